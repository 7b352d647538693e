//! The page cache and the buffered read and write paths (mm/filemap.c).

use super::*;
use crate::memcontrol::MemcgEvent;

/// `filemap_read()` copies at most up to `i_size`: a read straddling the end of the file
/// returns the bytes before it, and a read at or past the end returns 0 and caches nothing.
#[test]
fn read_stops_at_end_of_file() {
    let mut s = sim(r#"
[scenario]
name = "eof"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = 10000
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let mut ra = FileRaState::new(32);
    assert_eq!(
        k.filemap_read(f, 8192, 4096, &mut ra, MemcgId::ROOT),
        Ok(10000 - 8192)
    );
    assert_eq!(k.filemap_read(f, 10000, 10, &mut ra, MemcgId::ROOT), Ok(0));
    assert_eq!(
        k.filemap_read(f, 20000, 4096, &mut ra, MemcgId::ROOT),
        Ok(0)
    );
    assert_eq!(k.filemap_read(f, 0, 0, &mut ra, MemcgId::ROOT), Ok(0));
    assert_eq!(
        k.filemap_read(f, 0, 1 << 20, &mut ra, MemcgId::ROOT),
        Ok(10000)
    );
    let m = &k.mappings[f.idx()];
    assert_eq!(m.nrpages, 3, "three pages cover 10000 bytes");
    assert_eq!(
        m.lookup(3),
        None,
        "no page is cached past the end of the file"
    );
    assert_invariants(k);
}

/// After a read every page of the file sits in its own slot of the mapping (`i_pages`), with
/// `page->mapping` and `page->index` pointing back at it.
#[test]
fn each_cached_page_sits_in_its_slot() {
    let mut s = sim(r#"
[scenario]
name = "slots"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[tasks.cat]
ops = [{ op = "read", file = "/f", bufsize = "64K" }]
"#);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &s.kernel;
    let m = &k.mappings[f.idx()];
    assert_eq!(m.nrpages, 256);
    assert_eq!(m.nrshadows, 0);
    for i in 0..256 {
        let p = page_at(k, f, i);
        assert_eq!((k.pages[p].mapping, k.pages[p].index), (f, i));
        assert!(
            !k.pages[p].test(pg::LOCKED),
            "page {i} was read and unlocked"
        );
    }
    assert_invariants(k);
}

/// Two readers of the same file at the same time: the second one finds the pages the first
/// one is reading in the page cache, locked, and waits for that I/O instead of reading them
/// again (`filemap_get_pages()` -> `filemap_update_page()` waits on the folio lock).
#[test]
fn concurrent_readers_share_the_io() {
    let mut s = sim(r#"
[scenario]
name = "two-readers"
[machine]
ram = "1G"
[devices.sda]
read_bw = "100M"
seek = "5ms"
[files."/f"]
size = "4M"
[tasks.one]
ops = [{ op = "read", file = "/f", bufsize = "128K" }]
[tasks.two]
ops = [{ op = "read", file = "/f", bufsize = "128K" }]
"#);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(
        k.devices[0].read_bytes,
        4 << 20,
        "every page was read from disk once"
    );
    assert_eq!(k.mappings[f.idx()].nrpages, 1024);
    assert_invariants(k);
}

/// A buffered write creates page-cache pages charged to the writer's memcg and leaves them
/// dirty (`folio_mark_dirty()`: `file_dirty` in memory.stat, `Dirty` in meminfo) and extends
/// `i_size`; below the background threshold nothing is written until fsync, which writes
/// every dirty page and leaves the pages cached and clean.
#[test]
fn buffered_write_dirties_pages_and_fsync_cleans_them() {
    let scenario = |fsync: bool| {
        format!(
            r#"
[scenario]
name = "write"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/log"]
size = 0
[cgroups.ct]
[tasks.writer]
cgroup = "ct"
ops = [{{ op = "write", file = "/log", length = "1M", bufsize = "128K", fsync = {fsync} }}]
"#
        )
    };
    let mut s = sim(&scenario(false));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/log"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.inodes[f.idx()].size, 1 << 20);
    assert_eq!(page_usage(k, ct), 256);
    assert_eq!(k.memcgs.get(ct).nr_dirty, 256);
    assert_eq!(k.mappings[f.idx()].nrdirty, 256);
    assert_eq!(k.vmstat.nr_dirty, 256);
    assert_eq!(k.devices[0].write_bytes, 0);
    assert_eq!(k.devices[0].read_bytes, 0, "whole-page writes need no read");
    assert_invariants(k);

    let mut s = sim(&scenario(true));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/log"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.devices[0].write_bytes, 1 << 20);
    assert_eq!(k.mappings[f.idx()].nrdirty, 0);
    assert_eq!(k.memcgs.get(ct).nr_dirty, 0);
    assert_eq!(k.vmstat.nr_dirty, 0);
    assert_eq!(
        k.mappings[f.idx()].nrpages,
        256,
        "written pages stay cached"
    );
    assert_eq!(page_usage(k, ct), 256);
    assert_invariants(k);
}

/// `filemap_read()` marks a folio accessed only the first time a read touches it: "When a
/// read accesses the same folio several times, only mark it as accessed the first time"
/// (`pos_same_folio(iocb->ki_pos, last_pos - 1, folio)`, and `prev_index != index ||
/// offset != prev_offset` in older kernels). A file read once in 1 KiB `read()`s touches each
/// page four times in a row but still counts one access per page: nothing is activated.
#[test]
fn sub_page_reads_mark_a_page_accessed_once() {
    let mut s = sim(r#"
[scenario]
name = "small-reads"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "64K"
[cgroups.ct]
[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/f", bufsize = "1K" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    assert_eq!(run(&mut s), 64);
    let k = &s.kernel;
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 0);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 0);
    for i in 0..16 {
        let p = page_at(k, f, i);
        assert!(
            k.pages[p].test(pg::REFERENCED) && !k.pages[p].test(pg::ACTIVE),
            "page {i}"
        );
    }
    assert_invariants(k);
}

/// `open(O_TRUNC)` → `truncate_inode_pages()`: every page of the file leaves the cache, dirty
/// ones cancelled (not written), pages under writeback waited for; charges and counters go
/// back to zero. `cp` opens its destination this way, so copying over a cached file first
/// drops the old copy's pages.
#[test]
fn truncate_drops_every_page_dirty_or_under_writeback() {
    let mut s = sim(r#"
[scenario]
name = "trunc"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "100M"
write_bw = "10M"
[files."/f"]
size = 0
[cgroups.ct]
[tasks.writer]
cgroup = "ct"
ops = [{ op = "write", file = "/f", length = "4M", bufsize = "128K" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    let k = &mut s.kernel;
    assert_eq!(k.mappings[f.idx()].nrdirty, 1024);
    // Half the file goes under writeback: 2 MiB at 10 MB/s, about 0.2 s of device time.
    k.writeback_inode(f, 512);
    let t0 = k.now;
    let busy = k.devices[0].busy_until;
    assert!(busy > t0 && k.vmstat.nr_writeback == 512);
    let written = k.devices[0].write_bytes;
    assert_eq!(k.truncate_inode_pages(f), 1024);
    assert!(k.now >= busy, "truncation waited for the pages under writeback");
    assert_eq!(k.devices[0].write_bytes, written, "dirty pages are cancelled, not written");
    assert_eq!(k.mappings[f.idx()].nrpages, 0);
    assert_eq!(k.mappings[f.idx()].nrdirty, 0);
    assert_eq!((k.vmstat.nr_dirty, k.vmstat.nr_writeback, k.vmstat.nr_file_pages), (0, 0, 0));
    assert_eq!(page_usage(k, ct), 0);
    assert_invariants(k);
}

/// `cp` over an existing destination truncates it: copying the same 8 MiB file twice frees the
/// first copy's pages and writes the second into new ones, rather than over the cached ones.
#[test]
fn cp_over_a_cached_file_replaces_its_pages() {
    let mut s = sim(r#"
[scenario]
name = "cp-twice"
[machine]
ram = "1G"
[devices.sda]
read_bw = "100M"
[files."/src"]
size = "8M"
[tasks.sh]
ops = [
  { op = "cp", src = "/src", dst = "/dst", step = "cp 1" },
  { op = "fsync", file = "/dst", step = "cp 1" },
  { op = "cp", src = "/src", dst = "/dst", step = "cp 2" },
]
"#);
    let dst = inode(&s, "/dst");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.mappings[dst.idx()].nrpages, 2048);
    assert_eq!(k.mappings[dst.idx()].nrdirty, 2048, "the second copy's pages, all new and dirty");
    assert_eq!(k.vmstat.nr_file_pages, 4096, "source and one destination copy");
    // The first copy's pages were freed (1 GiB of RAM: nothing else is), and with them the
    // slab pages of their buffer heads and tree nodes: 2048 x 105 + 32 x 576 bytes, 57 pages
    // at most (fewer when a slab page is shared with the second copy's objects).
    let freed = k.vmstat.get(crate::vmstat::VmEvent::Pgfree);
    assert!((2048 + 50..=2048 + 57).contains(&freed), "pgfree {freed}");
    assert_invariants(k);
}

/// Since 4.19 a written page's buffer heads are charged to its memcg (105 bytes of slab per
/// page with page-sized blocks) and given back with the page; a page read in first gets them
/// when it is overwritten; tmpfs pages have none; before 4.19 nothing is charged. The page
/// cache's tree nodes are charged too where the profile says so (one 576-byte node per 64
/// slots: one for /r's first 64 pages, one for the tmpfs file).
#[test]
fn buffer_heads_of_written_pages_are_charged_with_them() {
    let node = crate::slab::RADIX_TREE_NODE_SIZE;
    for (profile, per_page, per_node) in [("linux-6.1", crate::profile::BUFFER_HEAD_SLAB, node), ("linux-4.4", 0, 0)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "bh"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[mounts."/tmp"]
fs = "tmpfs"
[files."/r"]
size = "64K"
[files."/tmp/t"]
size = 0
[cgroups.A]
[tasks.idle]
cgroup = "A"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let a = memcg(&s, "A");
        let r = inode(&s, "/r");
        let t = inode(&s, "/tmp/t");
        let k = &mut s.kernel;
        let before = k.memcgs.memcgs[a.idx()].kmem_bytes;
        let (usage0, kpages0) = (k.memcgs.memcgs[a.idx()].counter.usage, k.memcgs.memcgs[a.idx()].kmem_pages);
        read_pages(k, r, 0, 16, a);
        assert_eq!(k.memcgs.memcgs[a.idx()].kmem_bytes, before + per_node, "{profile}: read pages have no buffers, only their tree node");
        k.generic_perform_write(r, 0, 8 * PAGE_SIZE, a).unwrap();
        k.generic_perform_write(r, 64 << 10, 24 * PAGE_SIZE, a).unwrap();
        k.generic_perform_write(t, 0, 10 * PAGE_SIZE, a).unwrap();
        let m = &k.memcgs.memcgs[a.idx()];
        assert_eq!(m.kmem_bytes - before, 32 * per_page + 2 * per_node, "{profile}: 8 overwritten + 24 new disk pages, no tmpfs ones");
        assert_eq!(m.kmem_pages - kpages0, (m.kmem_bytes).div_ceil(PAGE_SIZE) - before.div_ceil(PAGE_SIZE));
        assert_eq!(m.counter.usage - usage0, 16 + 24 + 10 + (m.kmem_pages - kpages0), "{profile}: pages and whole slab pages");
        assert_invariants(k);
        k.truncate_inode_pages(r);
        assert_eq!(k.memcgs.memcgs[a.idx()].kmem_bytes, before + per_node, "{profile}: dropped with their pages; the tmpfs file's node stays");
        assert_invariants(k);
    }
}

/// Buffer heads and the page cache's tree nodes are slab whose pages come from the page
/// allocator, in every era (3.13: `alloc_buffer_head()` from `create_empty_buffers()` in
/// ext4's write_begin, `radix_tree_node_alloc()`; charged to a memcg or not): 1024 written
/// pages take ceil((1024 x 105 + 16 x 576) / 4096) = 29 frames out of MemFree with them, and
/// `try_to_free_buffers()` and the nodes' frees give them back when the pages go.
#[test]
fn buffer_heads_and_tree_nodes_take_frames_from_the_page_allocator_in_every_era() {
    for profile in ["linux-3.13", "linux-6.1"] {
        let mut s = one_file_idle(profile, "");
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        let free0 = k.nr_free_pages();
        k.generic_perform_write(f, 0, 1024 * PAGE_SIZE, MemcgId::ROOT).unwrap();
        let bytes = 1024 * crate::profile::BUFFER_HEAD_SLAB + 16 * crate::slab::RADIX_TREE_NODE_SIZE;
        assert_eq!(k.kmem.pagecache_slab, bytes, "{profile}");
        assert_eq!(k.kmem.pagecache_slab_frames.len() as u64, bytes.div_ceil(PAGE_SIZE), "{profile}");
        assert_eq!(free0 - k.nr_free_pages(), 1024 + 29, "{profile}: the pages and their slab");
        assert_invariants(k);
        k.truncate_inode_pages(f);
        assert_eq!((k.kmem.pagecache_slab, k.kmem.pagecache_slab_frames.len()), (0, 0), "{profile}");
        assert_eq!(k.nr_free_pages(), free0, "{profile}: all given back");
        assert_invariants(k);
    }
}

/// `machine.boot_used`: what the booted machine holds is taken from the page allocator before
/// the run, so MemFree starts at MemTotal less it (and ZONE_DMA's held frames count as free).
#[test]
fn boot_memory_takes_frames_before_the_run() {
    let scn = |boot: &str| {
        sim(&format!(
            r#"
[scenario]
name = "boot"
[machine]
ram = "1G"
boot_used = "{boot}"
[kernel]
profile = "linux-3.13"
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ))
    };
    let (a, b) = (scn("0"), scn("20M"));
    assert_eq!(a.kernel.nr_free_pages(), a.kernel.managed_pages());
    assert_eq!(a.kernel.nr_free_pages() - b.kernel.nr_free_pages(), 20 * 256);
    assert_eq!(b.kernel.kmem.boot_frames, 20 * 256);
    assert_invariants(&b.kernel);
}

/// One 1 MiB file on a disk, the memcgs `cgroups` (TOML table headers) and an idle task, on
/// `profile`: the tests below drive the kernel by hand.
fn one_file_idle(profile: &str, cgroups: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "xa"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
{cgroups}
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// The page cache's tree nodes: one 576-byte slab object per 64 slots, charged to the memcg
/// of the task whose page needs it (4.6-4.19 and 5.2+), kept while a page or a shadow entry
/// is in its range, given back when the range empties; linux-5.0 (4.20-5.1) charges nothing.
#[test]
fn page_cache_tree_nodes_are_charged_while_their_range_holds_entries() {
    for (profile, per_node) in [("linux-6.6", crate::slab::RADIX_TREE_NODE_SIZE), ("linux-5.0", 0)] {
        let s = &mut one_file_idle(profile, "[cgroups.A]");
        let (a, f) = (memcg(s, "A"), inode(s, "/f"));
        let k = &mut s.kernel;
        let before = k.memcgs.get(a).kmem_bytes;
        read_pages(k, f, 0, 100, a);
        assert_eq!(k.memcgs.get(a).kmem_bytes - before, 2 * per_node, "{profile}: slots 0-63 and 64-99");
        assert_eq!(xa_node_bytes(k, a), 2 * per_node);
        for i in 64..100 {
            isolate_and_evict(k, f, i);
        }
        assert_eq!(k.memcgs.get(a).kmem_bytes - before, 2 * per_node, "{profile}: shadow entries keep the second node");
        k.truncate_inode_pages(f);
        assert_eq!(k.memcgs.get(a).kmem_bytes, before, "{profile}: both ranges empty, both nodes freed");
        assert_invariants(k);
    }
}

/// A lone entry at index 0 lives in the xarray's head (`xas_expand()` stores it there), so a
/// one-page file has no tree node; a second index makes range 0's node (and the new index's
/// range's) necessary, and when index 0 is alone again `xas_shrink()` frees it.
#[test]
fn a_lone_page_at_index_0_needs_no_tree_node() {
    let mut s = one_file_idle("linux-6.6", "[cgroups.A]");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let node = crate::slab::RADIX_TREE_NODE_SIZE;
    let k = &mut s.kernel;
    let before = k.memcgs.get(a).kmem_bytes;
    read_pages(k, f, 0, 1, a);
    assert_eq!(k.memcgs.get(a).kmem_bytes - before, 0, "index 0 alone: in the head");
    read_pages(k, f, 100, 1, a);
    assert_eq!(k.memcgs.get(a).kmem_bytes - before, 2 * node, "ranges 0 and 1 now have nodes");
    let p = page_at(k, f, 100);
    k.delete_from_page_cache(p);
    assert_eq!(k.memcgs.get(a).kmem_bytes - before, 0, "index 0 alone again: back in the head");
    assert_invariants(k);
}

/// From 5.9 a tree node's charge follows its memcg's objcg to the parent at offline, as
/// dentries and inodes do, so it does not keep the dying memcg allocated.
#[test]
fn tree_node_charges_move_to_the_parent_at_offline() {
    let mut s = one_file_idle("linux-6.6", "[cgroups.p]\n[cgroups.\"p/c\"]");
    let (p, c, f) = (memcg(&s, "p"), memcg(&s, "p/c"), inode(&s, "/f"));
    let node = crate::slab::RADIX_TREE_NODE_SIZE;
    let k = &mut s.kernel;
    read_pages(k, f, 0, 100, c);
    assert_eq!(xa_node_bytes(k, c), 2 * node);
    k.cgroup_rmdir("/p/c").unwrap();
    assert_eq!((xa_node_bytes(k, c), xa_node_bytes(k, p)), (0, 2 * node));
    assert_eq!(k.memcgs.get(c).kmem_bytes, 0);
    assert_eq!(k.memcgs.get(c).counter.usage, 100, "only its pages keep it");
    k.truncate_inode_pages(f);
    assert_eq!(k.memcgs.get(c).state, crate::memcontrol::MemcgState::Freed);
    assert_eq!(xa_node_bytes(k, p), 0);
    assert_invariants(k);
}

/// A 1G machine on `profile` with `tables` (devices, mounts, files) and one idle task, for
/// tests that drive the kernel's functions themselves.
fn idle_sim(profile: &str, tables: &str) -> Simulation {
    sim(&format!("[scenario]\nname = \"idle\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"{profile}\"\n{tables}\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"))
}

/// Before 4.7 a buffered write marks the page accessed (3.13's `generic_perform_write()`,
/// later `FGP_ACCESSED` in `grab_cache_page_write_begin()`), so one read of a freshly written
/// page activates it; from 4.7 (bbddabe2e436) only reads count, and the read merely
/// references it. Host 6.18 and QEMU 6.1 agree with the newer rule
/// (scenarios/validation/*-dir-eviction-warm.toml: cp of a written directory reads nothing
/// and activates nothing).
#[test]
fn a_written_page_is_activated_by_one_read_only_before_4_7() {
    for (profile, activated) in [("linux-3.13", true), ("linux-4.4", true), ("linux-5.0", false), ("linux-6.6", false)] {
        let mut s = idle_sim(profile, "[devices.sda]\nread_bw = \"1G\"\nwrite_bw = \"1G\"\n[files.\"/f\"]\nsize = \"64K\"");
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        k.generic_perform_write(f, 0, 65536, MemcgId::ROOT).unwrap();
        // The pages still in the CPU's lru_add batch onto the inactive list.
        k.lru_add_drain();
        for i in 0..16 {
            let p = page_at(k, f, i);
            assert_eq!(k.pages[p].test(pg::REFERENCED), activated, "{profile}: page {i} referenced by the write");
            assert_eq!(lru_of(k, p), Some(LruList::InactiveFile));
        }
        let mut ra = FileRaState::new(32);
        k.filemap_read(f, 0, 65536, &mut ra, MemcgId::ROOT).unwrap();
        for i in 0..16 {
            let p = page_at(k, f, i);
            let want = if activated { LruList::ActiveFile } else { LruList::InactiveFile };
            assert_eq!(lru_of(k, p), Some(want), "{profile}: page {i} after one read");
            if !activated {
                assert!(k.pages[p].test(pg::REFERENCED), "{profile}: the read references page {i}");
            }
        }
        assert_invariants(k);
    }
}

/// tmpfs marks a written page accessed in every era (`shmem_get_folio_gfp()` with
/// `SGP_WRITE`): on 6.6 as on 3.13, one write references a new page and a second write of it
/// activates it, where an ext4 page on 6.6 stays unreferenced.
#[test]
fn tmpfs_writes_mark_pages_accessed_in_every_era() {
    for profile in ["linux-3.13", "linux-6.6"] {
        let mut s = idle_sim(profile, "[mounts.\"/tmp\"]\nfs = \"tmpfs\"\n[files.\"/tmp/f\"]\nsize = \"16K\"");
        let f = inode(&s, "/tmp/f");
        let k = &mut s.kernel;
        k.generic_perform_write(f, 0, 16384, MemcgId::ROOT).unwrap();
        for i in 0..4 {
            let p = page_at(k, f, i);
            assert!(k.pages[p].test(pg::REFERENCED), "{profile}: tmpfs page {i} referenced by its first write");
        }
        k.generic_perform_write(f, 0, 16384, MemcgId::ROOT).unwrap();
        for i in 0..4 {
            let p = page_at(k, f, i);
            assert!(k.pages[p].test(pg::ACTIVE), "{profile}: tmpfs page {i} activated by its second write");
        }
        assert_invariants(k);
    }
}

/// The engine writes single pages: a write into a large folio splits it (`split_folio()`,
/// as `truncate_inode_partial_folio()` and the kernel's splitting paths do) into order-0
/// pages that keep their slots, charge and LRU place, and dirties only the written page.
#[test]
fn a_write_into_a_large_folio_splits_it() {
    use super::readahead::{folio_reader, folios};
    let mut s = folio_reader("linux-6.1", "xfs", "", 8192, None);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &mut s.kernel;
    assert!(folios(k, f).contains(&(384, 6)));
    k.generic_perform_write(f, 400 * PAGE_SIZE, 100, MemcgId::ROOT).unwrap();
    let fo = folios(k, f);
    assert!((384..448).all(|i| fo.contains(&(i, 0))), "the order-6 folio became 64 pages");
    assert!(fo.contains(&(448, 6)), "its neighbour is untouched");
    assert_eq!(k.mappings[f.idx()].nrdirty, 1);
    assert_invariants(k);
}

/// `[machine] cpu_slowdown` (the QEMU/TCG lab's emulated CPUs): `filemap_read()` of cached
/// pages costs `syscall` + `lookup` + `copy_page` per page ([`crate::profile::CpuCost`]), so on a
/// machine 40 times slower the same hot re-read spends 40 times the system time, while a cold
/// read's device time is the device's: the CPU and the disk no longer keep the same pace, and a
/// CPU-bound reader finds its readahead's I/O long done.
#[test]
fn cpu_slowdown_scales_the_cpu_cost_table_not_the_device() {
    let scn = |k: u64| {
        format!(
            "[scenario]\nname = \"s\"\n[machine]\nram = \"1G\"\ncpu_slowdown = {k}\n[kernel]\nprofile = \"linux-6.1\"\n\
             [devices.sda]\nread_bw = \"100M\"\n[files.\"/f\"]\nsize = \"16M\"\n[tasks.t]\nops = [\
             {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"cold\" }}, {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"hot\" }}]\n"
        )
    };
    let (a, b) = (sim(&scn(1)), sim(&scn(40)));
    assert_eq!(b.kernel.cost.copy_page, 40 * a.kernel.cost.copy_page);
    let (ra, rb) = (a.run(&mut |_, _| true).unwrap(), b.run(&mut |_, _| true).unwrap());
    let get = |r: &crate::SimResult, step: &str, n: &str| metric_in(step_of(r, None, step), n);
    let hot_a = get(&ra, "hot", "sys_s");
    assert!(hot_a > 0.0);
    assert!((get(&rb, "hot", "sys_s") / hot_a - 40.0).abs() < 1e-6, "the hot pass is CPU only: 40 times the time");
    assert_eq!(get(&rb, "hot", "read_bytes"), get(&ra, "hot", "read_bytes"));
    // The cold pass: 16 MiB at 100 MB/s is 168 ms of device time on either machine; the slow
    // machine's reader, whose CPU work per window outlasts the window's I/O, waits less.
    let (wa, wb) = (get(&ra, "cold", "iowait_s"), get(&rb, "cold", "iowait_s"));
    assert!(wa > 0.1, "{wa}");
    assert!(wb < wa, "{wa} {wb}");
    assert!(get(&rb, "cold", "elapsed_s") > get(&ra, "cold", "elapsed_s"));
    // A bad factor names the key.
    let e = crate::Document::from_toml("s.toml", &scn(0)).unwrap().resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("machine.cpu_slowdown is 0"), "{e}");
}

/// `[machine] copy_slowdown` beside `cpu_slowdown` (the QEMU/TCG lab, whose emulated copies run
/// at a speed of their own): `filemap_read()`'s `copy_page_to_iter()` of each page and
/// `clear_page()` take `copy_slowdown` times the reference's, the rest of the kernel's code
/// (`lookup`, the syscall, reclaim's `scan_page`) `cpu_slowdown` times. The hot re-read's time
/// is then `cpu_slowdown` times its lookup and syscall share plus `copy_slowdown` times its
/// copies; without copy_slowdown the copies take `cpu_slowdown` as before.
#[test]
fn copy_slowdown_scales_the_copies_and_cpu_slowdown_the_rest() {
    let scn = |extra: &str| {
        format!(
            "[scenario]\nname = \"s\"\n[machine]\nram = \"1G\"\n{extra}\n[kernel]\nprofile = \"linux-6.1\"\n\
             [devices.sda]\nread_bw = \"100M\"\n[files.\"/f\"]\nsize = \"16M\"\n[tasks.t]\nops = [\
             {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"cold\" }}, {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"hot\" }}]\n"
        )
    };
    let r = crate::profile::CpuCost::reference();
    let (a, b, c) = (sim(&scn("")), sim(&scn("cpu_slowdown = 10\ncopy_slowdown = 40")), sim(&scn("cpu_slowdown = 10")));
    let cb = &b.kernel.cost;
    assert_eq!((cb.copy_page, cb.clear_page), (40 * r.copy_page, 40 * r.clear_page));
    assert_eq!((cb.lookup, cb.syscall, cb.scan_page, cb.evict_page), (10 * r.lookup, 10 * r.syscall, 10 * r.scan_page, 10 * r.evict_page));
    assert_eq!(c.kernel.cost.copy_page, 10 * r.copy_page, "no copy_slowdown: the copies take cpu_slowdown");
    let (ra, rb) = (a.run(&mut |_, _| true).unwrap(), b.run(&mut |_, _| true).unwrap());
    let get = |r: &crate::SimResult, step: &str, n: &str| r.steps.iter().find(|s| s.name == step).unwrap().metrics.iter().find(|(m, _)| m == n).unwrap().1;
    let pages = 4096.0;
    let copies = pages * r.copy_page as f64 * 1e-9;
    let (hot_a, hot_b) = (get(&ra, "hot", "sys_s"), get(&rb, "hot", "sys_s"));
    assert!(hot_a > copies);
    assert!((hot_b - (10.0 * (hot_a - copies) + 40.0 * copies)).abs() < 1e-6, "{hot_a} {hot_b}");
    let e = crate::Document::from_toml("s.toml", &scn("copy_slowdown = 0")).unwrap().resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("machine.copy_slowdown is 0"), "{e}");
}

/// `[machine] submit_io_slowdown` (iso23): `submit_bio()`'s per-request cost (`submit_io`: the
/// bio, blk-mq's submission, the driver's notify, the completion) at a factor of its own, the
/// rest of the kernel's code at `cpu_slowdown`. Under QEMU/TCG 6.1's virtio_blk
/// `virtio_queue_rq()` -> `virtqueue_notify()` is an MMIO exit to QEMU in the submitting vCPU's
/// thread. A cold read pays the difference once per request it submits, a hot read nothing;
/// at the code's own factor it is the scenario without the key; bad values are refused.
#[test]
fn submit_io_slowdown_scales_the_request_cost_alone() {
    let scn = |extra: &str| {
        format!(
            "[scenario]\nname = \"s\"\n[machine]\nram = \"1G\"\ncpu_slowdown = 10\n{extra}\n[kernel]\nprofile = \"linux-6.1\"\n\
             [devices.sda]\nread_bw = \"100M\"\n[files.\"/f\"]\nsize = \"16M\"\n[tasks.t]\nops = [\
             {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"cold\" }}, {{ op = \"read\", file = \"/f\", bufsize = \"128K\", step = \"hot\" }}]\n"
        )
    };
    let r = crate::profile::CpuCost::reference();
    let (a, b, c) = (sim(&scn("")), sim(&scn("submit_io_slowdown = 110")), sim(&scn("submit_io_slowdown = 10")));
    assert_eq!(b.kernel.cost.submit_io, 110 * r.submit_io);
    assert_eq!((b.kernel.cost.syscall, b.kernel.cost.add_page), (10 * r.syscall, 10 * r.add_page), "the rest at cpu_slowdown");
    let (ra, rb, rc) = (a.run(&mut |_, _| true).unwrap(), b.run(&mut |_, _| true).unwrap(), c.run(&mut |_, _| true).unwrap());
    let get = |r: &crate::SimResult, step: &str, n: &str| r.steps.iter().find(|s| s.name == step).unwrap().metrics.iter().find(|(m, _)| m == n).unwrap().1;
    assert_eq!(get(&ra, "cold", "sys_s").to_bits(), get(&rc, "cold", "sys_s").to_bits(), "at cpu_slowdown's factor: as without the key");
    assert_eq!(get(&ra, "hot", "sys_s").to_bits(), get(&rb, "hot", "sys_s").to_bits(), "a hot read submits nothing");
    // the cold read's extra system time is a whole number of requests at 100 x submit_io each:
    // 16 MiB in 128 KiB windows, readahead's first request(s) smaller, so 128 or a few more
    let per_req = 100.0 * r.submit_io as f64 * 1e-9;
    let n = (get(&rb, "cold", "sys_s") - get(&ra, "cold", "sys_s")) / per_req;
    assert!((n - n.round()).abs() < 1e-6 && (128.0..=140.0).contains(&n.round()), "{n} requests");
    for (bad, msg) in [("submit_io_slowdown = 0", "machine.submit_io_slowdown is 0"), ("submit_io_slowdown = 100001", "more than 100000 times slower"), ("submit_io_slowdown = 2.5", "machine.submit_io_slowdown")] {
        let e = crate::Document::from_toml("s.toml", &scn(bad)).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(msg) && e.contains("s.toml"), "{bad}: {e}");
    }
}

/// A new page written where the file system takes large folios (6.18 ext4:
/// `write_begin_get_folio()` with `fgf_set_order(len)`) costs `write_large_folio_page` (M14:
/// 658 ns a page measured on the host's ext4, the folio's allocation, charge, write_begin/end
/// and dirtying done once a folio), where 6.12's ext4 (order-0 page cache) pays each of them a
/// page: copy, write_begin/write_end, dirtying, the page's allocation and its charge.
#[test]
fn a_new_page_written_in_large_folios_costs_m14_on_6_18() {
    for (profile, large) in [("linux-6.18", true), ("linux-6.12", false)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "wcost"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "100M"
[files."/f"]
size = 0
[cgroups.A]
"memory.limit_in_bytes" = "64M"
[tasks.t]
cgroup = "A"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let a = memcg(&s, "A");
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        assert_eq!(k.mappings[f.idx()].max_order > 0, large, "{profile}");
        k.generic_perform_write(f, 0, PAGE_SIZE, a).unwrap();
        let t0 = k.sys_ns;
        assert_eq!(k.generic_perform_write(f, PAGE_SIZE, PAGE_SIZE, a), Ok(PAGE_SIZE));
        let c = &k.cost;
        // 6.12 (Debian's build) zeroes the new page first: init_on_alloc.
        let init = if k.profile.init_on_alloc { c.clear_page } else { 0 };
        let want = c.syscall + if large { c.write_large_folio_page } else { c.copy_page + c.write_begin_end + c.dirty_page + c.add_page + c.charge + init };
        assert_eq!(k.sys_ns - t0, want, "{profile}");
        k.check_invariants().unwrap();
    }
}

/// `post_alloc_hook()` zeroes every page it hands out under `init_on_alloc` (`kernel_init_pages()`,
/// `want_init_on_alloc()`; CONFIG_INIT_ON_ALLOC_DEFAULT_ON, 5.3: 6471384af2a6), set in Debian's
/// 6.1 and 6.12 builds (the lab's guests) and not in this host's 6.18 nor the lab's tinyconfig
/// 6.1: on linux-6.1 a cold read's new page-cache pages cost `clear_page` each more than the
/// same read with the switch off; the profiles carry their builds' setting.
#[test]
fn init_on_alloc_zeroes_each_new_page_cache_page_on_debians_6_1() {
    for (name, on) in [("linux-6.1", true), ("linux-6.12", true), ("linux-6.12-lru_gen", true), ("linux-6.1-lab", false), ("linux-6.18", false), ("linux-6.6", false), ("linux-5.17", false), ("linux-4.4", false)] {
        assert_eq!(crate::profile::profile(name).unwrap().init_on_alloc, on, "{name}");
    }
    let mut s = sim(r#"
[scenario]
name = "initonalloc"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
[devices.sda]
read_bw = "1G"
[files."/a"]
size = "1M"
[files."/b"]
size = "1M"
[tasks.t]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (a, b) = (inode(&s, "/a"), inode(&s, "/b"));
    let k = &mut s.kernel;
    let cold_read = |k: &mut Kernel, f: InodeId| {
        let mut ra = FileRaState::new(32);
        let (t0, f0) = (k.sys_ns, k.kmem.pagecache_slab_frames.len() as u64);
        assert_eq!(k.filemap_read(f, 0, 128 << 10, &mut ra, MemcgId::ROOT), Ok(128 << 10));
        (k.sys_ns - t0, k.mappings[f.idx()].nrpages, k.kmem.pagecache_slab_frames.len() as u64 - f0)
    };
    assert!(k.profile.init_on_alloc);
    let (on, pages, slab_on) = cold_read(k, a);
    k.profile.init_on_alloc = false;
    let (off, pages_off, _) = cold_read(k, b);
    assert_eq!(pages, pages_off, "the same readahead either way");
    assert!(pages >= 32, "{pages}");
    // The slab frame the first read's xarray nodes took is zeroed too (allocate_slab()).
    assert_eq!(slab_on, 1, "the first read takes a slab frame");
    assert_eq!(on - off, (pages + slab_on) * k.cost.clear_page, "a clear_page() per new page-cache page and slab frame under init_on_alloc");
    k.check_invariants().unwrap();
}

/// A 256M machine on `profile` with a 4M file /f on a 1 GB/s disk at read_ahead_kb 1024 and one idle task.
fn file_4m(profile: &str) -> Simulation {
    sim(&format!(r#"
[scenario]
name = "file4m"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
read_ahead_kb = 1024
[files."/f"]
size = "4M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#))
}

/// `filemap_read()` of the 4M file `f` three times in 128 KiB reads (the root memcg); its
/// readahead state, for more reads.
fn read_4m_thrice(k: &mut crate::kernel::Kernel, f: InodeId) -> FileRaState {
    let mut ra = FileRaState::new(256);
    for _ in 0..3 {
        let mut pos = 0;
        while pos < 4 << 20 {
            pos += k.filemap_read(f, pos, 128 << 10, &mut ra, MemcgId::ROOT).unwrap();
        }
    }
    ra
}

/// A cached page of a large folio read by `filemap_read()` costs `read_large_folio_page` (M15:
/// 6.18's `filemap_get_read_batch()` hands out folios and `copy_folio_to_iter()` copies the
/// read's part of a folio at once; the same runs' large-folio / order-0 ratio on the host's ext4
/// times this table's order-0 page, less the syscall's share), where a 4 KiB page (6.12's ext4:
/// order-0 page cache) costs its own lookup and copy.
#[test]
fn a_cached_page_of_a_large_folio_read_costs_m15_on_6_18() {
    for (profile, large) in [("linux-6.18", true), ("linux-6.12", false)] {
        let mut s = file_4m(profile);
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        // Read the file in (readahead's folios) and twice more, so that every folio is
        // cached, up to date, unmarked and active: the third read is lookups and copies only.
        let mut ra = read_4m_thrice(k, f);
        let at = 2 << 20; // 128 KiB at 2 MiB: within the file's large folios on 6.18
        let p = k.mappings[f.idx()].lookup((at / PAGE_SIZE) as u32).expect("cached");
        let head = k.pages.page_folio(p);
        assert_eq!(k.pages.folio_nr_pages(head) > 1, large, "{profile}");
        k.now = k.now.max(1 << 40); // every read long complete
        let t0 = k.sys_ns;
        assert_eq!(k.filemap_read(f, at, 128 << 10, &mut ra, MemcgId::ROOT), Ok(128 << 10));
        let c = &k.cost;
        let per_page = if large { c.read_large_folio_page } else { c.lookup + c.copy_page };
        assert_eq!(k.sys_ns - t0, c.syscall + 32 * per_page, "{profile}");
        k.check_invariants().unwrap();
    }
}

/// A 256M machine on `profile` with root file system `fs`, a 64M v1 memcg "A", an empty
/// file /f and one idle task, for the large-folio write tests.
fn folio_writer(profile: &str, fs: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "fwrite"
[machine]
ram = "256M"
fs = "{fs}"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
[files."/f"]
size = 0
[cgroups.A]
"memory.limit_in_bytes" = "64M"
[tasks.t]
cgroup = "A"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// `generic_perform_write()` (6.11+: the chunk is `mapping_max_folio_size()`) calls ext4's
/// `write_begin`, whose `write_begin_get_folio()` asks `__filemap_get_folio()` (mm/filemap.c,
/// 6.18) for `FGP_WRITEBEGIN | fgf_set_order(len)`: order `ilog2(len) - PAGE_SHIFT`, lowered
/// to the index's alignment (`__ffs(index)`), then each order down while the range holds a
/// page (`-EEXIST` from `filemap_add_folio()`). With page 5 cached, a 128 KiB write at 0 makes
/// folios of orders 2, 0 (page 4), 1, 3 and 4, and writes into page 5; before 6.8
/// (`iomap_get_folio()` on 6.6 XFS) `__filemap_get_folio()` skips order 1 (`if (order == 1)
/// order = 0`). 6.1's write_begin asks for no order: order-0 pages.
#[test]
fn a_write_creates_folios_of_fgf_set_order_down_the_orders_6_18() {
    use super::readahead::folios;
    let want_618 = vec![(0, 2), (4, 0), (5, 0), (6, 1), (8, 3), (16, 4)];
    let want_66 = vec![(0, 2), (4, 0), (5, 0), (6, 0), (7, 0), (8, 3), (16, 4)];
    for (profile, fs, want) in [("linux-6.18", "ext4", want_618), ("linux-6.6", "xfs", want_66), ("linux-6.1", "xfs", (0..32).map(|i| (i, 0)).collect())] {
        let mut s = folio_writer(profile, fs);
        let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
        let k = &mut s.kernel;
        assert!(k.mappings[f.idx()].max_order > 0, "{profile} {fs}: large folios for reads");
        k.generic_perform_write(f, 5 * PAGE_SIZE, PAGE_SIZE, a).unwrap();
        assert_eq!(k.generic_perform_write(f, 0, 128 << 10, a), Ok(128 << 10));
        assert_eq!(folios(k, f), want, "{profile}");
        assert_eq!(k.mappings[f.idx()].nrdirty, 32, "{profile}");
        assert_eq!(k.inodes[f.idx()].size, 128 << 10);
        assert_invariants(k);
    }
    // A 128 KiB write at 0 into an empty file: one order-5 folio; 100 KiB: ilog2 gives order 4,
    // then the rest (36 KiB) an order-3 folio at 16 and pages 24 (order 0, the write's last
    // 4 KiB's folio: fgf_set_order(4096) = 0).
    let mut s = folio_writer("linux-6.18", "ext4");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let k = &mut s.kernel;
    k.generic_perform_write(f, 0, 128 << 10, a).unwrap();
    assert_eq!(folios(k, f), vec![(0, 5)]);
    let g = k.create_inode("/g", 0, Some(crate::types::DevId(0)), 0, 0o644);
    k.generic_perform_write(g, 0, 100 << 10, a).unwrap();
    assert_eq!(folios(k, g), vec![(0, 4), (16, 3), (24, 0)]);
    assert_invariants(k);
}

/// A written large folio is one folio from its dirtying to its freeing (6.18):
/// `folio_mark_dirty()` -> `folio_account_dirtied()` counts its pages (NR_FILE_DIRTY, the
/// memcg's `file_dirty`, /proc/pid/io `write_bytes`), `write_cache_pages()`/`writeback_iter()`
/// writes it whole (`folio_clear_dirty_for_io()`, `folio_start_writeback()`: NR_WRITEBACK in
/// pages) in one request with its neighbours, its writeback ends whole
/// (`folio_end_writeback()`), and reclaim frees it whole: `mem_cgroup_uncharge()` ->
/// `uncharge_batch()` counts one PGPGOUT for its 32 pages, as `commit_charge()` counted one
/// PGPGIN (memory.stat pgpgin/pgpgout, v1).
#[test]
fn a_written_folio_is_dirtied_written_back_and_freed_whole_6_18() {
    let mut s = folio_writer("linux-6.18", "ext4");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let k = &mut s.kernel;
    let ev = |k: &Kernel, e: MemcgEvent| k.memcgs.memcgs[a.idx()].events[e as usize];
    let (in0, out0, wb0) = (ev(k, MemcgEvent::Pgpgin), ev(k, MemcgEvent::Pgpgout), k.io.write_bytes);
    // Two 128 KiB write()s, as cp makes them (one 256 KiB write() would make one order-6 folio).
    k.generic_perform_write(f, 0, 128 << 10, a).unwrap();
    k.generic_perform_write(f, 128 << 10, 128 << 10, a).unwrap();
    assert_eq!(super::readahead::folios(k, f), vec![(0, 5), (32, 5)]);
    assert_eq!(ev(k, MemcgEvent::Pgpgin) - in0, 2, "one charge event a folio");
    assert_eq!((k.vmstat.nr_dirty, k.memcgs.memcgs[a.idx()].nr_dirty, k.mappings[f.idx()].nrdirty), (64, 64, 64));
    assert_eq!(k.io.write_bytes - wb0, 256 << 10);
    let head = page_at(k, f, 0);
    assert!(k.pages[head].test(pg::HEAD) && k.pages[head].test(pg::DIRTY) && k.pages[head].test(pg::PRIVATE));
    assert!(!k.pages[page_at(k, f, 7)].test(pg::DIRTY), "the flag is the folio's, on its head");
    let reqs = k.devices[0].ios;
    let (written, done) = k.writeback_inode(f, 1);
    assert_eq!(written, 32, "a folio goes whole even when one page was asked for");
    assert_eq!(k.devices[0].ios - reqs, 1, "one request");
    assert_eq!((k.vmstat.nr_dirty, k.vmstat.nr_writeback, k.memcgs.memcgs[a.idx()].nr_writeback), (32, 32, 32));
    assert_invariants(k);
    k.wait_until(done);
    k.writeback_end_io();
    assert_eq!((k.vmstat.nr_writeback, k.memcgs.memcgs[a.idx()].nr_writeback), (0, 0));
    assert!(!k.pages[head].test(pg::WRITEBACK));
    let slab = k.kmem.pagecache_slab;
    isolate_and_evict(k, f, 0);
    assert_eq!(ev(k, MemcgEvent::Pgpgout) - out0, 1, "one uncharge event for 32 pages");
    assert_eq!(slab - k.kmem.pagecache_slab, 32 * crate::profile::BUFFER_HEAD_SLAB, "the folio's buffer heads go with it");
    assert_eq!(k.mappings[f.idx()].nrpages, 32);
    assert_eq!(page_usage(k, a), 32);
    assert_invariants(k);
}

/// Truncation (`truncate_inode_pages()` -> `filemap_unaccount_folio()`/`folio_cancel_dirty()`,
/// 6.18) drops a dirty written folio whole: the dirty counts lose its pages, its charge and
/// buffer heads go; one under writeback is waited for first.
#[test]
fn truncation_drops_a_dirty_or_written_folio_whole_6_18() {
    let mut s = folio_writer("linux-6.18", "ext4");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let k = &mut s.kernel;
    let slab = k.kmem.pagecache_slab;
    for i in 0..8 {
        k.generic_perform_write(f, i << 17, 128 << 10, a).unwrap();
    }
    k.writeback_inode(f, 64);
    assert_eq!((k.vmstat.nr_dirty, k.vmstat.nr_writeback), (192, 64));
    assert_eq!(k.truncate_inode_pages(f), 256);
    assert_eq!((k.vmstat.nr_dirty, k.vmstat.nr_writeback, k.vmstat.nr_file_pages), (0, 0, 0));
    assert_eq!((k.memcgs.memcgs[a.idx()].nr_dirty, k.memcgs.memcgs[a.idx()].nr_writeback), (0, 0));
    assert_eq!(page_usage(k, a), 0);
    assert_eq!(k.kmem.pagecache_slab, slab);
    assert_invariants(k);
}

/// `shrink_inactive_list()` counts a folio's pages (6.18: `stat->nr_unqueued_dirty +=
/// nr_pages` against `nr_taken`): a batch of 32 pages that is one dirty 32-page folio is all
/// unqueued dirty, so v1 memcg reclaim wakes the flusher (`wakeup_flusher_threads()`, which
/// writes every dirty page from 4.12), then sleeps in `reclaim_throttle()` (6.1+).
#[test]
fn a_large_folio_batch_of_one_dirty_folio_throttles_v1_reclaim_6_18() {
    let mut s = folio_writer("linux-6.18", "ext4");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let k = &mut s.kernel;
    for i in 0..8 {
        k.generic_perform_write(f, i << 17, 128 << 10, a).unwrap();
    }
    assert_eq!((k.vmstat.nr_dirty, k.vmstat.nr_writeback), (256, 0));
    k.try_to_free_mem_cgroup_pages(a, 32);
    // Counted a folio at a time (1 against 32 taken), the batch would not wake the flusher,
    // and every folio reclaim met would stay dirty, activated with PG_reclaim.
    assert_eq!(k.vmstat.nr_dirty, 0, "the flusher was woken and wrote every dirty folio");
    assert_invariants(k);
}

/// `shrink_folio_list()`'s `activate_locked:` counts a folio's pages (6.1 mm/vmscan.c:
/// `count_memcg_folio_events(folio, PGACTIVATE, nr_pages)`, and `count_vm_events(PGACTIVATE,
/// pgactivate)` with `stat->nr_activate[type] += nr_pages`): reclaim that activates dirty
/// written 32-page folios (4.12+ `activate_locked` of a dirty page) counts 32 a folio in
/// /proc/vmstat and memory.stat pgactivate alike (6.18).
#[test]
fn reclaim_counts_an_activated_large_folios_pages_6_18() {
    let mut s = folio_writer("linux-6.18", "ext4");
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    let k = &mut s.kernel;
    for i in 0..8 {
        k.generic_perform_write(f, i << 17, 128 << 10, a).unwrap();
    }
    let (vm0, cg0) = (k.vmstat.get(crate::vmstat::VmEvent::Pgactivate), k.memcgs.memcgs[a.idx()].events[MemcgEvent::Pgactivate as usize]);
    k.try_to_free_mem_cgroup_pages(a, 32);
    let vm = k.vmstat.get(crate::vmstat::VmEvent::Pgactivate) - vm0;
    let cg = k.memcgs.memcgs[a.idx()].events[MemcgEvent::Pgactivate as usize] - cg0;
    assert!(vm > 0, "reclaim met dirty folios and activated them");
    assert_eq!(vm % 32, 0, "whole folios of 32 pages: {vm}");
    assert_eq!(cg, vm, "memory.stat and /proc/vmstat count the same pages");
    assert_invariants(k);
}

/// `folio_mark_accessed()`'s activation counts the folio's pages from 5.8 (6.1
/// `folio_activate_fn()`, 6.18 `lru_activate()`: `__count_vm_events(PGACTIVATE, nr_pages)`;
/// 5d91f31faf8e "mm: swap: fix vmstats for huge pages"), one a page-cache head before
/// (3.13-5.7 `__activate_page()`: `__count_vm_event(PGACTIVATE)`): a 4M file read three times
/// in readahead's large folios on 6.18 counts as many pages activated as the file has (the
/// host's 6.18 ext4 host-ext4-reread-loose read 2: vmstat pgactivate 16,384 for a 64M file),
/// where counting per folio would give its folios. The same switch off (the 5.0 era's) on the
/// same folios counts the folios in /proc/vmstat and none in the memcg.
#[test]
fn folio_activate_counts_a_large_folios_pages_from_5_8() {
    for by_pages in [true, false] {
        let mut s = file_4m("linux-6.18");
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        k.profile.pgactivate_nr_pages = by_pages;
        let vm0 = k.vmstat.get(crate::vmstat::VmEvent::Pgactivate);
        read_4m_thrice(k, f);
        let (mut folios, mut large) = (0u64, 0u64);
        let mut i = 0u32;
        while i < 1024 {
            let head = k.pages.page_folio(k.mappings[f.idx()].lookup(i).expect("cached"));
            let n = k.pages.folio_nr_pages(head);
            assert!(k.pages[head].test(crate::mm_types::pg::ACTIVE), "page {i} activated by the reads");
            folios += 1;
            large += (n > 1) as u64;
            i += n as u32;
        }
        assert!(large > 0, "the file is cached in large folios on 6.18");
        let vm = k.vmstat.get(crate::vmstat::VmEvent::Pgactivate) - vm0;
        assert_eq!(vm, if by_pages { 1024 } else { folios }, "by pages: {by_pages}");
        // 3.13-5.7 counted no memcg PGACTIVATE at this site (5.8's "mm: swap: memcg: fix memcg
        // stats for huge pages").
        assert_eq!(k.memcgs.events(MemcgId::ROOT, MemcgEvent::Pgactivate), if by_pages { vm } else { 0 });
        k.check_invariants().unwrap();
    }
}

/// `read_pages()` gives the device its bios' segments as block/bio.c (6.18) makes them:
/// `bio_add_folio()` -> `bvec_try_merge_page()` extends the bio's last bvec when the folio's
/// frame follows it, so a bio's `nr_phys_segments` is its physically contiguous runs, and the
/// loop device pays each ([`crate::blkdev::HwQueue::segment_cost`], lo_rw_aio()'s bvecs on the
/// disk beneath). 256 order-0 pages read in one bio of a 1280 KiB request: the read completes
/// later by exactly the runs of its frames times the cost.
#[test]
fn read_pages_pays_the_device_per_contiguous_run_bvec_try_merge_page_6_18() {
    let done = |cost: &str| {
        let mut s = sim(&format!(r#"
[scenario]
name = "segments"
[machine]
ram = "1G"
fs = "ext4"
fs_features = ["verity"]
[kernel]
profile = "linux-6.18"
[devices.sda]
read_bw = "4G"
queue_depth = 128
request_read_bw = "4G"
max_sectors_kb = 1280
segment_cost = "{cost}"
[files."/f"]
size = "4M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        // 256 order-0 pages (verity: no large folios), one bio of BIO_MAX_VECS.
        k.do_page_cache_ra(f, 0, 256, 0, MemcgId::ROOT);
        let m = &k.mappings[f.idx()];
        let frames: Vec<u32> = (0..256).map(|i| m.lookup(i).expect("read").0).collect();
        let runs = 1 + frames.windows(2).filter(|w| w[1] != w[0] + 1).count() as u64;
        (m.inflight.last().expect("in flight").done, runs, m.inflight.len())
    };
    let (t0, runs0, bios) = done("0ns");
    let (t1, runs1, _) = done("10us");
    assert_eq!(bios, 1, "one bio of BIO_MAX_VECS folios");
    assert_eq!(runs0, runs1);
    assert!(runs1 >= 1 && runs1 <= 256);
    assert_eq!(t1 - t0, runs1 * 10_000, "{runs1} runs of frames at 10 us each");
}
