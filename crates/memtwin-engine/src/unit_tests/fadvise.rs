//! posix_fadvise() (mm/fadvise.c) and the seed-004 directory policy.

use super::*;
use crate::fadvise::Advice;
use crate::vmstat::VmEvent;

fn machine(policy: bool, extra: &str) -> Simulation {
    machine_on("linux-6.6", policy, extra)
}

fn machine_on(profile: &str, policy: bool, extra: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "fadvise"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[kernel.policies]
fadvise_directory = {policy}
[devices.sda]
read_bw = "1G"
[mounts."/tmp"]
fs = "tmpfs"
[files."/d/a"]
size = "1M"
uid = 1000
[files."/d/sub/b"]
size = "1M"
uid = 1000
[files."/d/sub/c"]
size = "1M"
uid = 2000
[files."/other"]
size = "1M"
[files."/tmp/s"]
size = 0
[cgroups.ct]
{extra}
"#
    ))
}

fn all_pages() -> u32 {
    256
}

#[test]
fn dontneed_drops_clean_pages_of_the_range_and_uncharges_them() {
    let mut s = machine(false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let (ct, a) = (memcg(&s, "ct"), inode(&s, "/d/a"));
    let k = &mut s.kernel;
    read_pages(k, a, 0, all_pages(), ct);
    assert_eq!(k.mappings[a.idx()].nrpages, 256);
    let before = page_usage(k, ct);
    let st = k.generic_fadvise(a, 10, 19, Advice::DontNeed, ct);
    assert_eq!(st.dropped, 10);
    assert_eq!(st.kept, 0);
    assert_eq!(k.mappings[a.idx()].nrpages, 246);
    assert_eq!(k.mappings[a.idx()].nrshadows, 0, "invalidation leaves no shadow entries");
    assert!(k.mappings[a.idx()].lookup(9).is_some() && k.mappings[a.idx()].lookup(20).is_some());
    assert_eq!(page_usage(k, ct), before - 10);
    assert_invariants(k);
}

/// DONTNEED on dirty pages: writeback starts, and the pages, now under writeback, stay. Before
/// v5.12 the invalidation then deactivated them (`kept`); since, `find_lock_entries()` passes
/// over them and they stay where they were on the LRU.
#[test]
fn dontneed_starts_writeback_but_keeps_dirty_pages_this_time() {
    for (profile, kept) in [("linux-5.0", 16), ("linux-6.6", 0)] {
        let mut s = machine_on(profile, false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"write\", file = \"/d/a\", length = \"64K\" }]\n");
        let a = inode(&s, "/d/a");
        run(&mut s);
        let k = &mut s.kernel;
        assert_eq!(k.mappings[a.idx()].nrdirty, 16);
        let st = k.generic_fadvise(a, 0, u32::MAX, Advice::DontNeed, MemcgId::ROOT);
        assert_eq!((st.dropped, st.kept), (0, kept), "{profile}: under writeback, not dropped");
        assert_eq!(k.mappings[a.idx()].nrdirty, 0, "writeback was started");
        let st = k.generic_fadvise(a, 0, u32::MAX, Advice::DontNeed, MemcgId::ROOT);
        assert_eq!((st.dropped, st.kept), (0, kept), "{profile}: still under writeback");
        // The write completes on the device.
        k.now += 1_000_000_000;
        k.writeback_end_io();
        assert_eq!(k.vmstat.nr_writeback, 0);
        let st = k.generic_fadvise(a, 0, u32::MAX, Advice::DontNeed, MemcgId::ROOT);
        assert_eq!((st.dropped, st.kept), (16, 0), "{profile}: clean now, dropped");
        assert_invariants(k);
    }
}

/// Since v5.12 a page under writeback is not deactivated by DONTNEED: no PG_reclaim, so the
/// end of its writeback does not rotate it, and it keeps its place on the LRU.
#[test]
fn dontneed_leaves_pages_under_writeback_in_place_since_5_12() {
    let mut s = machine_on("linux-6.6", false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let (ct, a) = (memcg(&s, "ct"), inode(&s, "/d/a"));
    let k = &mut s.kernel;
    read_pages(k, a, 0, 8, ct);
    read_pages(k, a, 0, 8, ct); // active
    let p = page_at(k, a, 5);
    k.folio_mark_dirty(p);
    let rotated = k.vmstat.get(VmEvent::Pgrotated);
    let st = k.generic_fadvise(a, 5, 5, Advice::DontNeed, ct);
    assert_eq!((st.dropped, st.kept), (0, 0));
    assert!(k.pages[p].test(pg::WRITEBACK), "writeback started");
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile), "passed over: still active");
    assert!(!k.pages[p].test(pg::RECLAIM));
    k.now += 1_000_000_000;
    k.writeback_end_io();
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
    assert_eq!(k.vmstat.get(VmEvent::Pgrotated), rotated, "nothing rotated");
    assert_invariants(k);
}

#[test]
fn dontneed_clears_shadow_entries_and_deactivates_what_it_keeps() {
    let mut s = machine(false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let (ct, a) = (memcg(&s, "ct"), inode(&s, "/d/a"));
    let k = &mut s.kernel;
    read_pages(k, a, 0, 8, ct);
    read_pages(k, a, 0, 8, ct); // second touch: active
    for i in 0..4 {
        isolate_and_evict(k, a, i);
    }
    assert_eq!(k.mappings[a.idx()].nrshadows, 4);
    // Pages 4..8 are active; make one dirty so that it cannot go. The invalidation alone
    // (no writeback started first, as in the seed-004 walk) meets it dirty.
    let p = page_at(k, a, 5);
    k.folio_mark_dirty(p);
    let st = k.mapping_try_invalidate(a, 0, 7);
    assert_eq!(st.shadows_cleared, 4);
    assert_eq!((st.dropped, st.kept), (3, 1));
    assert_eq!(k.mappings[a.idx()].nrshadows, 0);
    assert_eq!(lru_of(k, p), Some(LruList::InactiveFile), "kept pages are deactivated");
    assert_invariants(k);
}

#[test]
fn tmpfs_ignores_the_advice() {
    let mut s = machine(false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"write\", file = \"/tmp/s\", length = \"64K\" }]\n");
    let f = inode(&s, "/tmp/s");
    run(&mut s);
    let k = &mut s.kernel;
    let st = k.generic_fadvise(f, 0, u32::MAX, Advice::DontNeed, MemcgId::ROOT);
    assert_eq!(st.dropped, 0);
    assert_eq!(k.mappings[f.idx()].nrpages, 16);
}

#[test]
fn willneed_reads_the_range_ahead() {
    let mut s = machine(false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"fadvise\", path = \"/d/a\", advice = \"willneed\", offset = \"256K\", length = \"256K\" }]\n");
    let a = inode(&s, "/d/a");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.mappings[a.idx()].nrpages, 64);
    assert!(k.mappings[a.idx()].lookup(64).is_some() && k.mappings[a.idx()].lookup(127).is_some());
    assert!(k.mappings[a.idx()].lookup(63).is_none());
    assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::Pgpgin), 256, "256 KiB read");
}

const READ_ALL_THEN_DIR: &str = r#"[tasks.t]
cgroup = "ct"
uid = 1000
ops = [
  { op = "read", file = "/d/a" }, { op = "read", file = "/d/sub/b" }, { op = "read", file = "/d/sub/c" },
  { op = "read", file = "/other" },
  { op = "fadvise", path = "/d", advice = "dontneed", step = "clean /d" },
]
"#;

#[test]
fn a_directory_is_left_alone_without_the_policy() {
    let mut s = machine(false, READ_ALL_THEN_DIR);
    run(&mut s);
    let k = &s.kernel;
    for f in ["/d/a", "/d/sub/b", "/d/sub/c", "/other"] {
        assert_eq!(k.mappings[inode(&s, f).idx()].nrpages, 256, "{f}");
    }
}

#[test]
fn the_directory_policy_cleans_the_tree_where_the_caller_may() {
    let mut s = machine(true, READ_ALL_THEN_DIR);
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.mappings[inode(&s, "/d/a").idx()].nrpages, 0);
    assert_eq!(k.mappings[inode(&s, "/d/sub/b").idx()].nrpages, 0, "recursively");
    assert_eq!(k.mappings[inode(&s, "/d/sub/c").idx()].nrpages, 256, "uid 2000's file: no permission");
    assert_eq!(k.mappings[inode(&s, "/other").idx()].nrpages, 256, "outside the tree");
    assert_invariants(k);
}

/// `generic_fadvise()` passes the advised byte range to `__filemap_fdatawrite_range()`: dirty
/// pages outside it stay dirty and stay in the page cache.
#[test]
fn dontneed_writes_back_only_the_range() {
    let mut s = machine(false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"write\", file = \"/d/a\", length = \"64K\" }]\n");
    let a = inode(&s, "/d/a");
    run(&mut s);
    let k = &mut s.kernel;
    assert_eq!(k.mappings[a.idx()].nrdirty, 16);
    let written = k.devices[0].write_bytes;
    let st = k.generic_fadvise(a, 4, 7, Advice::DontNeed, MemcgId::ROOT);
    assert_eq!((st.dropped, st.kept), (0, 0), "the range is under writeback: passed over");
    assert_eq!(k.mappings[a.idx()].nrdirty, 12, "only pages 4..=7 were written back");
    assert_eq!(k.devices[0].write_bytes - written, 4 * 4096);
    for i in (0..4).chain(8..16) {
        assert!(k.pages[page_at(k, a, i)].test(pg::DIRTY), "page {i} outside the range stays dirty");
    }
    assert!(k.dirty_inodes.contains(a), "the inode still has dirty pages");
    k.now += 1_000_000_000;
    k.writeback_end_io();
    let st = k.generic_fadvise(a, 4, 7, Advice::DontNeed, MemcgId::ROOT);
    assert_eq!((st.dropped, st.kept), (4, 0), "clean now: dropped");
    assert_eq!(k.mappings[a.idx()].nrpages, 12);
    assert_invariants(k);
}

/// `lru_deactivate_file()` (before v5.12, when the invalidation still tried pages under
/// writeback): a page the invalidation could not drop because it is dirty or under writeback
/// goes to the inactive head with PG_reclaim; once its writeback ends it is rotated to the
/// inactive tail, the next page reclaim takes.
#[test]
fn kept_pages_go_to_the_inactive_head_with_pg_reclaim_and_rotate_to_the_tail_when_written() {
    let mut s = machine_on("linux-5.0", false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let (ct, a) = (memcg(&s, "ct"), inode(&s, "/d/a"));
    let k = &mut s.kernel;
    read_pages(k, a, 0, 8, ct);
    read_pages(k, a, 0, 8, ct); // active
    read_pages(k, a, 8, 8, ct); // inactive, ahead of page 5 for reclaim
    let p = page_at(k, a, 5);
    k.folio_mark_dirty(p);
    // DONTNEED on page 5 only: its writeback has only started, so the page is kept,
    // deactivated with PG_reclaim, at the head.
    let st = k.generic_fadvise(a, 5, 5, Advice::DontNeed, ct);
    assert_eq!((st.dropped, st.kept), (0, 1));
    assert_eq!(lru_of(k, p), Some(LruList::InactiveFile));
    assert!(k.pages[p].test(pg::RECLAIM), "PG_reclaim set for rotation at writeback end");
    let v = k.lruvec_idx(ct, 0);
    assert_ne!(k.lruvecs[v].tail(LruList::InactiveFile), Some(p), "at the head, not the tail");
    // The end of its writeback rotates it to the tail.
    let rotated = k.vmstat.get(VmEvent::Pgrotated);
    assert!(k.pages[p].test(pg::WRITEBACK));
    k.now += 1_000_000_000;
    k.writeback_end_io();
    assert_eq!(k.lruvecs[v].tail(LruList::InactiveFile), Some(p), "rotated to the tail");
    assert!(!k.pages[p].test(pg::RECLAIM));
    assert_eq!(k.vmstat.get(VmEvent::Pgrotated), rotated + 1);
    assert_invariants(k);
}

/// `mapping_try_invalidate()` takes each page with `folio_trylock()`: a page whose read is
/// still in flight is locked, and the invalidation passes over it, neither dropped nor
/// deactivated (every era).
#[test]
fn dontneed_passes_over_pages_under_read_io() {
    for profile in ["linux-3.13", "linux-6.6"] {
        let mut s = machine_on(profile, false, "[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
        let (ct, a) = (memcg(&s, "ct"), inode(&s, "/d/a"));
        let k = &mut s.kernel;
        k.do_page_cache_ra(a, 0, 16, 0, ct);
        let p = page_at(k, a, 3);
        assert!(k.folio_test_locked(p), "{profile}: the read has not completed");
        let st = k.generic_fadvise(a, 0, 15, Advice::DontNeed, ct);
        assert_eq!((st.dropped, st.kept), (0, 0), "{profile}");
        assert_eq!(k.mappings[a.idx()].nrpages, 16);
        assert!(!k.pages[p].test(pg::RECLAIM));
        // Once the read has completed the pages go.
        k.now += 1_000_000_000;
        let st = k.generic_fadvise(a, 0, 15, Advice::DontNeed, ct);
        assert_eq!((st.dropped, st.kept), (16, 0), "{profile}");
        assert_invariants(k);
    }
}

/// `mapping_try_invalidate()` with `find_lock_entries()` (mm/filemap.c, 6.1): a large folio
/// that begins before the range or extends beyond it is omitted, whole; those inside go
/// whole (their pages counted).
#[test]
fn dontneed_skips_large_folios_straddling_the_range() {
    use super::readahead::{folio_reader, folios};
    let mut s = folio_reader("linux-6.1", "xfs", "", 8192, None);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &mut s.kernel;
    // 128..384 holds 16 folios of order 4: invalidate 136..=359, which cuts 128..144 and
    // 352..368 and holds 144..352 (13 folios, 208 pages).
    assert!(folios(k, f).contains(&(128, 4)) && folios(k, f).contains(&(352, 4)));
    let st = k.mapping_try_invalidate(f, 136, 359);
    assert_eq!(st.dropped, 208);
    let left = folios(k, f);
    assert!(left.contains(&(128, 4)) && left.contains(&(352, 4)), "the straddling folios stay whole");
    assert!(!left.iter().any(|&(i, _)| (144..352).contains(&i)));
    assert_invariants(k);
}
