//! The page allocator, anonymous memory, THP and compaction (mm/page_alloc.c, mm/memory.c,
//! mm/huge_memory.c, mm/compaction.c).

use super::*;
use crate::page_alloc::{Gfp, Wmark, PAGEBLOCK_NR};
use crate::vmstat::VmEvent;

/// Two nodes of 64 MiB; node 0's first 32 MiB are DMA32. No swap.
fn two_nodes(extra: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "numa"
[kernel]
profile = "linux-4.3"
{extra}
[machine]
ram = "128M"
nodes = 2
dma32 = "32M"
[devices.sda]
read_bw = "100M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1s" }}]
"#
    ))
}

#[test]
fn zones_and_zonelists_follow_build_zonelists() {
    let s = two_nodes("");
    let k = &s.kernel;
    assert_eq!(k.zones.len(), 3, "node 0: DMA32 + Normal, node 1: Normal");
    assert_eq!(k.zones[0].kind, crate::page_alloc::ZoneType::Dma32);
    assert_eq!((k.zones[0].node, k.zones[1].node, k.zones[2].node), (0, 0, 1));
    // Own node highest zone first, then the other node.
    assert_eq!(k.nodes[0].zonelist, vec![1, 0, 2]);
    assert_eq!(k.nodes[1].zonelist, vec![2, 1, 0]);
    // min_free_kbytes is the machine's, split by managed pages.
    let total_min: u64 = k.zones.iter().map(|z| z.wmark_min).sum();
    let lowmem_kb = k.managed_pages() * 4;
    let expect = crate::types::int_sqrt(lowmem_kb * 16).clamp(128, 65536) / 4;
    assert!(total_min.abs_diff(expect) <= 2, "{total_min} vs {expect}");
    assert_invariants(k);
}

/// Drain zone `z` to `free` pages with order-0 allocations for `nid`; returns the frames.
fn drain(k: &mut Kernel, z: usize, free: u64) -> Vec<u64> {
    let mut out = vec![];
    while k.zones[z].free > free {
        out.push(k.zones[z].rmqueue_order0().unwrap());
    }
    out
}

/// Make node 0's DMA32 fragmented (half its frames free, no free pageblock) and its Normal
/// zone below the min watermark: the state the seed-002 flaw needs.
fn fragment_node0(k: &mut Kernel) {
    let all = drain(k, 0, 0);
    for pfn in all.iter().step_by(2) {
        k.zones[0].free_order0(*pfn);
    }
    assert_eq!(k.zones[0].nr_free_blocks(), 0);
    assert!(k.zones[0].watermark_ok(0, k.zones[0].wmark_low, true));
    let min = k.zones[1].wmark_min;
    drain(k, 1, min - 1);
}

#[test]
fn the_zonelist_cache_sends_order0_remote_after_a_failed_thp_attempt() {
    for zlc in [true, false] {
        let mut s = two_nodes(&format!("policies.zonelist_cache = {zlc}"));
        let k = &mut s.kernel;
        fragment_node0(k);
        // A high-order attempt from node 0 through the fallback zonelist (a pre-4.0 THP fault;
        // in 4.x, SLUB's high-order slab attempts): Normal fails its watermark (zlc set up),
        // DMA32 fails the order-9 check and is marked full; node 1 has whole blocks.
        let huge = k.get_page_from_freelist(9, Wmark::Low, Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: false, no_direct_reclaim: false, movable: true, noretry: false }).unwrap();
        assert_eq!(k.page_nid(huge), 1);
        // In 4.3's fast path the fair pass over the local zones comes first and the cache is
        // off for the rescan: the order-0 request is served locally either way.
        let p = k.get_page_from_freelist(0, Wmark::Low, Gfp::node(0)).unwrap();
        assert_eq!(k.zone_of(p), 0, "fast path: local DMA32");
        // The slowpath's attempt at the min watermark has no fair pass.
        let before = k.vmstat.events[VmEvent::NumaMiss as usize];
        let p = k.get_page_from_freelist(0, Wmark::Min, Gfp::node(0)).unwrap();
        let missed = k.vmstat.events[VmEvent::NumaMiss as usize] - before;
        if zlc {
            assert_eq!(k.page_nid(p), 1, "DMA32 was marked full by the THP failure: the page goes remote");
            assert_eq!(missed, 1);
        } else {
            assert_eq!(k.zone_of(p), 0, "without the cache the local DMA32 zone serves order 0");
            assert_eq!(missed, 0);
        }
    }
}

#[test]
fn the_zonelist_cache_is_zapped_after_a_second() {
    let mut s = two_nodes("policies.zonelist_cache = true");
    let k = &mut s.kernel;
    fragment_node0(k);
    k.get_page_from_freelist(9, Wmark::Low, Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: false, no_direct_reclaim: false, movable: true, noretry: false }).unwrap();
    assert!(k.nodes[0].zlc_full[1], "DMA32 (position 1 of node 0's zonelist) is marked full");
    let p = k.get_page_from_freelist(0, Wmark::Min, Gfp::node(0)).unwrap();
    assert_eq!(k.page_nid(p), 1, "within the second DMA32 is skipped");
    k.now += crate::page_alloc::ZLC_ZAP_INTERVAL;
    let p = k.get_page_from_freelist(0, Wmark::Min, Gfp::node(0)).unwrap();
    assert_eq!(k.zone_of(p), 0, "zlc_setup() zapped the cache: DMA32 is tried again");
}

#[test]
fn thp_faults_fall_back_to_base_pages_and_munmap_returns_everything() {
    let mut s = two_nodes("thp = \"always\"");
    let k = &mut s.kernel;
    let free0 = k.nr_free_pages();
    let vma = k.do_mmap_anon(3 * PAGEBLOCK_NR, MemcgId::ROOT);
    for i in 0..(3 * PAGEBLOCK_NR) as u32 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    assert_eq!(k.vmstat.events[VmEvent::ThpFaultAlloc as usize], 3);
    assert_eq!(k.vmstat.nr_anon_pages, 3 * PAGEBLOCK_NR);
    assert_eq!(k.nr_free_pages(), free0 - 3 * PAGEBLOCK_NR);
    assert_invariants(k);
    // No whole pageblock left anywhere: the next huge fault falls back to a base page.
    let mut hold = vec![];
    for z in 0..k.zones.len() {
        while k.zones[z].nr_free_blocks() > 0 {
            let f = k.zones[z].rmqueue_order0().unwrap();
            hold.push(f);
        }
    }
    let fallback0 = k.vmstat.events[VmEvent::ThpFaultFallback as usize];
    let v2 = k.do_mmap_anon(PAGEBLOCK_NR, MemcgId::ROOT);
    k.handle_mm_fault(v2, 0).unwrap();
    assert!(k.vmstat.events[VmEvent::ThpFaultFallback as usize] > fallback0);
    assert!(!k.pages[k.vmas[v2.0 as usize].pages[0]].test(pg::HEAD));
    for f in hold {
        let z = k.zone_of(PageId(f as u32));
        k.zones[z].free_order0(f);
    }
    k.do_munmap(v2);
    k.do_munmap(vma);
    assert_eq!(k.nr_free_pages(), free0);
    assert_eq!(k.vmstat.nr_anon_pages, 0);
    assert_invariants(k);
}

#[test]
fn remote_clearing_costs_the_slit_distance() {
    let mut s = two_nodes("");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(4, MemcgId::ROOT);
    k.cur_nid = 0;
    let t0 = k.sys_ns;
    k.handle_mm_fault(vma, 0).unwrap();
    let local = k.sys_ns - t0;
    // Exhaust node 0 so the next page comes from node 1.
    for z in [0, 1] {
        drain(k, z, 0);
    }
    let t1 = k.sys_ns;
    k.handle_mm_fault(vma, 1).unwrap();
    let remote = k.sys_ns - t1;
    assert_eq!(k.page_nid(k.vmas[vma.0 as usize].pages[1]), 1);
    assert_eq!(remote - local, k.cost.clear_page, "a remote clear_page costs 20/10 of a local one");
}

#[test]
fn compaction_migrates_file_pages_and_their_slots_follow() {
    let mut s = sim(r#"
[scenario]
name = "compact"
[kernel]
profile = "linux-4.3"
[machine]
ram = "64M"
[devices.sda]
read_bw = "100M"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{ op = "sleep", duration = "1s" }]
"#);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4096, MemcgId::ROOT);
    k.now += 1_000_000_000; // the reads complete
    // Spread the file thin: keep every 8th page, so pageblocks are partly used.
    for i in 0..4096u32 {
        if i % 8 != 0 {
            isolate_and_evict(k, f, i);
        }
    }
    // Use up every whole free block so that an order-9 request needs compaction.
    let mut hold = vec![];
    while k.zones[0].nr_free_blocks() > 0 {
        hold.push(k.zones[0].rmqueue_pageblock().unwrap());
    }
    let before: Vec<PageId> = (0..4096).step_by(8).map(|i| page_at(k, f, i)).collect();
    let got = k.alloc_pages_direct_compact(9, Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: false, no_direct_reclaim: false, movable: true, noretry: false });
    assert!(got.is_some(), "a partly used block of clean file pages is emptied");
    assert!(k.vmstat.events[VmEvent::PgmigrateSuccess as usize] > 0);
    let after: Vec<PageId> = (0..4096).step_by(8).map(|i| page_at(k, f, i)).collect();
    assert_ne!(before, after, "some pages moved");
    for (i, p) in (0..4096u32).step_by(8).zip(&after) {
        assert_eq!(k.pages[*p].index, i, "the slot points at the moved page");
    }
    let head = got.unwrap();
    k.zones[0].free_pageblock(head.0 as u64);
    for b in hold {
        k.zones[0].free_pageblock(b);
    }
    assert_invariants(k);
}

#[test]
fn anonymous_memory_beyond_ram_is_swapped_out_and_back_in() {
    let mut s = sim(r#"
[scenario]
name = "swap"
[kernel]
profile = "linux-4.3"
[machine]
ram = "128M"
swap = "256M"
[devices.sda]
read_bw = "200M"
[tasks.t]
ops = [
  { op = "mmap", name = "a", size = "160M", step = "fill" },
  { op = "touch", name = "a", step = "fill" },
  { op = "touch", name = "a", step = "again" },
  { op = "munmap", name = "a", step = "unmap" },
]
"#);
    let mut worst = 0u64;
    run_with(&mut s, |s| {
        assert_invariants(&s.kernel);
        worst = worst.max(s.kernel.swap_usage().1);
    });
    let k = &s.kernel;
    assert!(k.vmstat.get(VmEvent::Pswpout) > 0, "160M of anonymous memory in 128M of RAM went partly to swap");
    assert!(worst >= (160u64 - 128) << 8, "at least the excess was in swap ({worst} pages)");
    // Touching every page again: the swapped ones fault back in from the device.
    assert!(k.vmstat.get(VmEvent::Pswpin) > 0);
    assert_eq!(k.swap_usage().1, 0, "munmap freed every slot");
    assert_eq!(k.vmstat.nr_anon_pages, 0);
}

/// tmpfs pages sit on the anon lists with swap-backed anonymous memory. Reclaim that meets
/// them with swap configured swaps them out as it swaps the anonymous pages
/// (`shrink_folio_list()` -> `pageout()` -> `shmem_writepage()`, mm/shmem.c 4.3 and 6.1:
/// tmpfs21b; before, the engine kept them), every tmpfs page either in the page cache or
/// named by the file's swap entry; it used to take a tmpfs page for an anonymous one and
/// index a VMA by its inode (found by the property test).
#[test]
fn reclaim_with_swap_swaps_tmpfs_pages_and_anonymous_ones() {
    let mut s = sim(r#"
[scenario]
name = "swap-tmpfs"
[kernel]
profile = "linux-4.3"
[machine]
ram = "128M"
swap = "256M"
[devices.sda]
read_bw = "200M"
[mounts."/tmp"]
fs = "tmpfs"
[files."/tmp/t"]
size = 0
[tasks.t]
ops = [
  { op = "write", file = "/tmp/t", length = "16M", step = "tmpfs" },
  { op = "mmap", name = "a", size = "160M", step = "fill" },
  { op = "touch", name = "a", step = "fill" },
]
"#);
    let t = inode(&s, "/tmp/t");
    run_with(&mut s, |s| assert_invariants(&s.kernel));
    let k = &s.kernel;
    assert!(k.vmstat.get(VmEvent::Pswpout) > 0, "anonymous pages went to swap");
    let swapped = (0..4096).filter(|&i| k.shmem_swap_entry(t, i).is_some()).count() as u64;
    assert!(swapped > 0, "tmpfs pages went to swap too");
    assert_eq!(k.mappings[t.idx()].nrpages + swapped, 4096, "every tmpfs page is cached or swapped");
}

#[test]
fn without_swap_anonymous_pages_are_never_scanned() {
    let mut s = sim(r#"
[scenario]
name = "noswap"
[machine]
ram = "128M"
[devices.sda]
read_bw = "200M"
[files."/f"]
size = "200M"
[tasks.t]
ops = [
  { op = "mmap", name = "a", size = "48M" },
  { op = "touch", name = "a" },
  { op = "read", file = "/f" },
]
"#);
    run_with(&mut s, |s| assert_invariants(&s.kernel));
    let k = &s.kernel;
    assert_eq!(k.vmstat.get(VmEvent::Pswpout), 0);
    assert_eq!(k.vmstat.nr_anon_pages, 48 << 8, "the mapping stays resident; reclaim took page cache");
}

#[test]
fn the_fair_zone_policy_spreads_order0_over_the_local_zones() {
    for (profile, fair) in [("linux-4.3", true), ("linux-6.6", false)] {
        let mut s = sim(&format!(
            "[scenario]\nname = \"fair\"\n[kernel]\nprofile = \"{profile}\"\n[machine]\nram = \"128M\"\nnodes = 2\ndma32 = \"32M\"\n[devices.sda]\nread_bw = \"1G\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1s\" }}]\n"
        ));
        let k = &mut s.kernel;
        let batch = (k.zones[1].wmark_high - k.zones[1].wmark_low) as usize;
        let mut in_dma = 0;
        for _ in 0..4 * batch.max(64) {
            let p = k.get_page_from_freelist(0, Wmark::Low, Gfp::node(0)).unwrap();
            assert_eq!(k.page_nid(p), 0);
            in_dma += (k.zone_of(p) == 0) as usize;
        }
        assert_eq!(in_dma > 0, fair, "{profile}: DMA32 used while Normal has room: {in_dma}");
    }
}

/// Before 4.7 the allocator does not give up while a zone is still reclaimable: an order-0
/// fault that finds every page under swap writeback waits for the device (congestion waits)
/// instead of invoking the OOM killer. A 192 MiB hog in 128 MiB of RAM with a 20 MB/s swap
/// device takes at least the time to write the excess to swap, and nothing is killed.
#[test]
fn pre_4_7_allocations_wait_for_swap_writeback_instead_of_oom() {
    let mut s = sim(r#"
[scenario]
name = "slow-swap"
[kernel]
profile = "linux-4.3"
[machine]
ram = "128M"
swap = "512M"
[devices.sda]
read_bw = "20M"
write_bw = "20M"
[tasks.hog]
ops = [
  { op = "mmap", name = "a", size = "192M", step = "fill" },
  { op = "touch", name = "a", step = "fill" },
]
"#);
    run_with(&mut s, |s| assert_invariants(&s.kernel));
    let k = &s.kernel;
    let out = k.vmstat.get(VmEvent::Pswpout);
    assert!(out >= (192 - 128) << 8, "the excess went to swap ({out} pages)");
    let secs = crate::types::secs(k.now);
    assert!(secs >= (64 << 20) as f64 / 20e6 * 0.9, "the fault waited for the device: {secs} s");
    assert!(s.op_errors().is_empty(), "{:?}", s.op_errors());
    // 4.3 counts no oom_kill (the counter is 4.13's): whether the allocator gave up is the
    // step's oom_killed.
    let r = s.run(&mut |_, _| true).expect("runs");
    assert_eq!(step_metric(&r, "fill", "oom_killed"), 0.0, "the allocator gave up: the hog was OOM-killed");
}

/// `zone_reclaimable()`: reclaimable while global reclaim has scanned fewer than 6x the LRU
/// pages since the last free (anonymous pages count only while swap has room); freeing a
/// page to the node resets the count.
#[test]
fn zone_reclaimable_counts_scans_since_the_last_free() {
    let mut s = sim(r#"
[scenario]
name = "reclaimable"
[kernel]
profile = "linux-4.3"
[machine]
ram = "64M"
swap = "64M"
[devices.sda]
read_bw = "100M"
[tasks.t]
ops = [{ op = "mmap", name = "a", size = "8M" }, { op = "touch", name = "a" }]
"#);
    run(&mut s);
    let k = &mut s.kernel;
    // The pages still in the CPU's lru_add batch onto their lists.
    k.lru_add_drain();
    let on_lru: u64 = k.lruvecs.iter().map(|l| l.nr_pages(LruList::InactiveAnon) + l.nr_pages(LruList::ActiveAnon)).sum();
    assert_eq!(on_lru, 2048, "8 MiB of anonymous memory, counted in base pages (huge pages count 512)");
    k.nodes[0].pages_scanned = 6 * on_lru - 1;
    assert!(k.zonelist_reclaimable());
    k.nodes[0].pages_scanned = 6 * on_lru;
    assert!(!k.zonelist_reclaimable(), "scanned 6x its reclaimable pages: all_unreclaimable()");
    k.do_munmap(crate::memory::VmaId(0));
    assert_eq!(k.nodes[0].pages_scanned, 0, "freeing resets NR_PAGES_SCANNED");
    assert_invariants(k);
}

/// The anon lists are balanced in pages, as `lruvec_page_state()` counts them: four huge pages
/// on the active list outweigh 100 base pages on the inactive one (2048 against 100 pages),
/// though they are only 4 entries. Counting entries would never deactivate huge pages, and
/// reclaim would swap out newer base pages instead.
#[test]
fn anon_list_balance_counts_huge_pages_as_512() {
    let mut s = sim(r#"
[scenario]
name = "balance"
[kernel]
profile = "linux-4.3"
thp = "always"
[machine]
ram = "64M"
swap = "64M"
[devices.sda]
read_bw = "100M"
[tasks.t]
ops = [
  { op = "mmap", name = "big", size = "8M" }, { op = "touch", name = "big" },
  { op = "mmap", name = "small", size = "400K" }, { op = "touch", name = "small" },
]
"#);
    run(&mut s);
    let k = &mut s.kernel;
    // The pages still in the CPU's lru_add batch onto their lists.
    k.lru_add_drain();
    let v = k.lruvec_idx(MemcgId::ROOT, 0);
    // Move the base pages to the inactive list, as deactivation would.
    let mut base = vec![];
    let mut p = k.lruvecs[v].tail(LruList::ActiveAnon);
    while let Some(id) = p {
        if !k.pages[id].test(pg::HEAD) {
            base.push(id);
        }
        let prev = k.pages[id].prev;
        p = (prev != PageId::NIL).then_some(prev);
    }
    assert_eq!(base.len(), 100);
    for id in base {
        k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, id);
        k.pages[id].flags &= !pg::ACTIVE;
        k.lruvecs[v].add(&mut k.pages, &mut k.lru_stats, id, LruList::InactiveAnon);
    }
    let l = &k.lruvecs[v];
    assert_eq!((l.size(LruList::ActiveAnon), l.nr_pages(LruList::ActiveAnon)), (4, 2048));
    assert_eq!((l.size(LruList::InactiveAnon), l.nr_pages(LruList::InactiveAnon)), (100, 100));
    assert!(k.inactive_anon_is_low(v), "100 inactive pages against 2048 active ones");
    assert_invariants(k);
}

/// Since 4.0 a THP fault asks its own node only (`__GFP_THISNODE`, `ZONELIST_NOFALLBACK`,
/// which has no zonelist cache): with node 0 fragmented it falls back to a base page instead
/// of taking node 1's free pageblocks, and marks nothing in the cache.
#[test]
fn thp_faults_stay_on_their_node_and_leave_the_zonelist_cache_alone() {
    let mut s = two_nodes("policies.zonelist_cache = true");
    let k = &mut s.kernel;
    fragment_node0(k);
    let gfp = Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: true, no_direct_reclaim: false, movable: true, noretry: false };
    assert!(k.get_page_from_freelist(9, Wmark::Low, gfp).is_none(), "node 1's free pageblocks are not considered");
    assert!(k.nodes[0].zlc_full.iter().all(|f| !f), "the NOFALLBACK zonelist has no zonelist cache");
    assert!(crate::profile::profile("linux-4.3").unwrap().thp_thisnode);
    assert!(!crate::profile::profile("linux-3.13").unwrap().thp_thisnode);
}

/// SLUB's slab order for the page cache's tree nodes (576 bytes): `slub_min_objects` = 4 x
/// (fls(nr_cpu_ids) + 1) objects per slab, at most order 3.
#[test]
fn slub_orders_follow_calculate_order() {
    use crate::slab::{slub_order, RADIX_TREE_NODE_SIZE as R};
    // 1 CPU: 8 objects; 4096 / 576 = 7 < 8, so order 1 (14 objects).
    assert_eq!(slub_order(R, 1), (1, 14));
    // 2 CPUs: 12 objects: order 1 holds 14.
    assert_eq!(slub_order(R, 2), (1, 14));
    // 8 CPUs: 20 objects: order 2 (28).
    assert_eq!(slub_order(R, 8), (2, 28));
    // 64 CPUs: 32 objects: order 3 (56), the cap.
    assert_eq!(slub_order(R, 64), (3, 56));
    assert_eq!(slub_order(R, 4096), (3, 56));
}

/// Free frames in aligned chunks: a pageblock with frames 0-3 and 5-6 free holds one free
/// order-2 chunk (4 frames) and, at order 1, two chunks (0-1, 2-3; 5-6 is not aligned).
#[test]
fn free_chunks_are_counted_by_aligned_runs() {
    let mut s = two_nodes("");
    let k = &mut s.kernel;
    let all = drain(k, 0, 0);
    // Past ZONE_DMA, whose lowest frames its lowmem_reserve holds.
    let base = k.zones[0].start_pfn + crate::page_alloc::ZONE_DMA_PAGES;
    for off in [0u64, 1, 2, 3, 5, 6] {
        assert!(all.contains(&(base + off)));
        k.zones[0].free_order0(base + off);
    }
    assert_eq!(k.zones[0].nr_free_in_chunks(2), 4);
    assert_eq!(k.zones[0].nr_free_in_chunks(1), 4);
    assert_eq!(k.zones[0].free, 6);
}

/// The chunk counts kept up to date on take and free (`free_area[order].nr_free`, which the
/// kernel updates in `__free_one_page()`/`del_page_from_free_list()`) always equal a walk of
/// every pageblock's bitmap, through order-0 and order-9 takes and frees in a pseudo-random
/// order.
#[test]
fn free_chunk_counts_kept_on_take_and_free_equal_a_walk_of_the_bitmaps() {
    let mut s = two_nodes("");
    let k = &mut s.kernel;
    let check = |k: &Kernel| {
        for z in &k.zones {
            for o in 1..=6 {
                assert_eq!(z.nr_free_in_chunks(o), z.nr_free_in_chunks_walked(o), "order {o}");
            }
        }
    };
    check(k);
    let mut held: Vec<u64> = vec![];
    let mut blocks: Vec<u64> = vec![];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..60_000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        match x % 16 {
            0 if !blocks.is_empty() => k.zones[0].free_pageblock(blocks.swap_remove((x >> 8) as usize % blocks.len())),
            1 => blocks.extend(k.zones[0].rmqueue_pageblock()),
            2..=8 if !held.is_empty() => k.zones[0].free_order0(held.swap_remove((x >> 8) as usize % held.len())),
            _ => held.extend(k.zones[0].rmqueue_order0()),
        }
        if i % 997 == 0 {
            check(k);
        }
    }
    check(k);
    assert!(k.zones[0].nr_free_blocks() < k.zones[0].nr_blocks() as u64, "the walk met partial blocks");
}

/// The lazily kept chunk counts (`Zone::chunks_now`) through a pageblock taken and freed
/// whole (`__rmqueue_smallest()` of order 9, `__free_one_page()` of an order-9 block, v6.1
/// mm/page_alloc.c) while its bitmap words are stale from order-0 takes and frees, with and
/// without a read between: every read equals a walk of the bitmaps.
#[test]
fn free_chunk_counts_stay_exact_through_a_stale_pageblock_taken_and_freed_whole() {
    use crate::page_alloc::{Zone, ZoneType};
    let check = |z: &Zone, at: &str| {
        for o in 1..=6 {
            assert_eq!(z.nr_free_in_chunks(o), z.nr_free_in_chunks_walked(o), "{at}: order {o}");
        }
    };
    let mut z = Zone::with_range(0, ZoneType::Normal, 0, 4 * PAGEBLOCK_NR);
    check(&z, "boot");
    for read_between in [false, true] {
        // 100 order-0 frames of the lowest pageblock taken and given back: the block is
        // wholly free again, on the order-9 list's top, its first two words stale.
        let taken: Vec<u64> = (0..100).map(|_| z.rmqueue_order0().unwrap()).collect();
        if read_between {
            check(&z, "after the takes");
        }
        for &p in &taken {
            z.free_order0(p);
        }
        let b = z.rmqueue_pageblock().unwrap();
        assert_eq!(b, taken[0] / PAGEBLOCK_NR * PAGEBLOCK_NR, "the block made whole is taken whole");
        if read_between {
            check(&z, "after the whole take");
        }
        z.free_pageblock(b);
        check(&z, "after the whole free");
    }
    // A clean block taken and freed whole moves the counts at once.
    let b = z.rmqueue_pageblock().unwrap();
    check(&z, "clean whole take");
    z.free_pageblock(b);
    check(&z, "clean whole free");
}

/// With the zonelist cache, SLUB's failed order-2 attempt for a new slab page marks the
/// zones it found short of order-2 blocks full (for order-0 requests too, for up to a
/// second); without the cache the attempt leaves nothing behind.
#[test]
fn a_failed_slab_attempt_marks_zones_full_for_order0() {
    for zlc in [true, false] {
        let mut s = two_nodes(&format!("policies.zonelist_cache = {zlc}"));
        let k = &mut s.kernel;
        fragment_node0(k); // DMA32: every other frame free, no order-1 chunk at all
        let _ = drain(k, 2, 0); // node 1 too: the attempt fails everywhere
        assert!(!k.slab_high_order_attempt(2, 0));
        assert_eq!(k.nodes[0].zlc_full.iter().any(|f| *f), zlc);
        if zlc {
            assert!(k.nodes[0].zlc_full[1], "DMA32 has order-0 frames only: marked full");
        }
    }
}

/// A THP fault's slowpath stays on its node too: `ZONELIST_NOFALLBACK` holds the local zones
/// only, so direct compaction looks at node 0's zones (node 1's deferral state is untouched)
/// and direct reclaim shrinks node 0's LRU lists, not node 1's.
#[test]
fn a_thp_faults_compaction_and_reclaim_stay_on_its_node() {
    let mut s = two_nodes("[files.\"/f\"]\nsize = \"16M\"");
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    k.cur_nid = 1;
    read_pages(k, f, 0, 2048, MemcgId::ROOT);
    k.lru_add_drain();
    k.cur_nid = 0;
    read_pages(k, f, 2048, 2048, MemcgId::ROOT);
    k.lru_add_drain();
    let (v0, v1) = (k.lruvec_idx(MemcgId::ROOT, 0), k.lruvec_idx(MemcgId::ROOT, 1));
    let on = |k: &Kernel, v: usize| k.lruvecs[v].nr_pages(LruList::InactiveFile) + k.lruvecs[v].nr_pages(LruList::ActiveFile);
    let (node0, node1) = (on(k, v0), on(k, v1));
    assert_eq!((node0, node1), (2048, 2048));
    fragment_node0(k);
    for z in 0..k.zones.len() {
        k.zones[z].compact_defer_shift = 0;
    }
    let gfp = Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: true, no_direct_reclaim: false, movable: true, noretry: false };
    let _ = k.alloc_pages(9, gfp);
    assert!(on(k, v0) < node0, "node 0 was reclaimed");
    assert_eq!(on(k, v1), node1, "node 1 was not");
    assert_eq!(k.zones[2].compact_defer_shift, 0, "node 1's zone was not compacted");
    // (fragment_node0() takes frames behind the allocator's back: no invariant check here.)
}

/// `node_reserved` takes each node's boot-time holdings from its share of RAM: node 0 keeps
/// 1 GiB - 95 MiB and node 1 1 GiB - 42 MiB free, where `kernel_reserved` would split evenly.
/// A fault that spills over counts one `numa_miss` (and `numa_foreign`) per page; a huge page
/// counts one `numa_hit` for its 512 pages (`zone_statistics(..., 1)` in `rmqueue()`, while
/// PGALLOC counts pages).
#[test]
fn node_reserved_sets_each_nodes_free_memory_and_numa_events_count_allocations() {
    let scn = |thp: &str| {
        format!(
            r#"
[scenario]
name = "nodes"
[machine]
ram = "2G"
cpus = 2
nodes = 2
node_reserved = ["95M", "42M"]
[kernel]
profile = "linux-6.1"
thp = "{thp}"
[tasks.t]
node = 0
ops = [{{ op = "mmap", name = "a", size = "64M" }}, {{ op = "touch", name = "a" }}]
"#
        )
    };
    let mut s = sim(&scn("never"));
    {
        let k = &s.kernel;
        let free = |n: usize| k.nodes[n].zones.iter().map(|&z| k.zones[z].free).sum::<u64>();
        // Node 0 less ZONE_DMA's frames its lowmem_reserve holds (managed above it / 256),
        // which MemFree counts.
        let held = ((1024 - 95) * 256 - crate::page_alloc::ZONE_DMA_PAGES) / 256;
        assert_eq!(free(0), (1024 - 95) * 256 - held);
        assert_eq!(k.nr_free_pages(), (1024 - 95) * 256 + (1024 - 42) * 256);
        assert_eq!(free(1), (1024 - 42) * 256);
    }
    run(&mut s);
    assert_eq!(s.kernel.vmstat.get(VmEvent::NumaHit), 64 * 256, "one event per base page");
    assert_eq!(s.kernel.vmstat.get(VmEvent::NumaMiss), 0);
    let mut s = sim(&scn("always"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.vmstat.get(VmEvent::ThpFaultAlloc), 32);
    assert_eq!(k.vmstat.get(VmEvent::NumaHit), 32, "one event per huge page");
    assert_eq!(k.vmstat.get(VmEvent::Pgalloc), 64 * 256, "PGALLOC counts pages");
    assert_invariants(k);
}

/// THP defrag: before 4.6 ("always") a THP fault that finds no free huge page goes on to
/// direct compaction and a round of direct reclaim (`GFP_TRANSHUGE`); from 4.6 ("madvise",
/// the mapping not advised) it asks with `GFP_TRANSHUGE_LIGHT` and gives up after its attempt
/// at the min watermark, stalling nowhere, and the base pages it falls back to find memory
/// that kswapd frees. Debian's 6.1 showed the light behaviour (qemu61-numa-anon: allocstall
/// and compact_stall 0 with 255 fallbacks, on 2 vCPUs). Two CPUs here as there: kswapd has one
/// of its own beside the faulting task (on one CPU it shares it with the task, runnable at that
/// instant, `crate::sched::quantum_runnable_weight`, and falls behind the fallbacks: 5
/// allocstalls, 180 pages scanned directly; the test held on one CPU only while the task's
/// PELT average started at half a CPU).
#[test]
fn thp_faults_reclaim_directly_only_before_4_6() {
    for (profile, light) in [("linux-4.3", false), ("linux-6.1", true)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "defrag"
[machine]
ram = "64M"
cpus = 2
[kernel]
profile = "{profile}"
thp = "always"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "44M"
[tasks.t]
ops = [
  {{ op = "read", file = "/f", bufsize = "128K" }},
  {{ op = "mmap", name = "a", size = "24M" }}, {{ op = "touch", name = "a" }},
]
"#
        ));
        run(&mut s);
        let k = &s.kernel;
        let v = |e| k.vmstat.get(e);
        assert_eq!(v(VmEvent::ThpFaultAlloc) + v(VmEvent::ThpFaultFallback), 12, "{profile}: 12 THP faults");
        assert!(v(VmEvent::ThpFaultFallback) > 0, "{profile}: some fall back");
        if light {
            assert_eq!(((v(VmEvent::Allocstall) + v(VmEvent::AllocstallNormal) + v(VmEvent::AllocstallMovable)), v(VmEvent::PgscanDirect), v(VmEvent::CompactStall)), (0, 0, 0), "{profile}: no direct reclaim or compaction");
            assert!(v(VmEvent::PgscanKswapd) > 0, "{profile}: kswapd freed what the base pages took");
        } else {
            assert!((v(VmEvent::Allocstall) + v(VmEvent::AllocstallNormal) + v(VmEvent::AllocstallMovable)) > 0 && v(VmEvent::PgscanDirect) > 0, "{profile}: the THP faults reclaimed directly");
        }
        assert_invariants(k);
    }
    let p = |n: &str| crate::profile::profile(n).unwrap().thp_defrag_madvise;
    assert!(!p("linux-3.13") && !p("linux-4.3") && !p("linux-4.4"));
    assert!(p("linux-5.0") && p("linux-6.1") && p("linux-6.6"));
}


/// `setup_per_zone_lowmem_reserve()` (mm/page_alloc.c, 3.13 to 6.x): ZONE_DMA keeps
/// managed(above) / `sysctl_lowmem_reserve_ratio[ZONE_DMA]` (256) of its frames from
/// allocations for higher zones, the page cache's among them. On a 2 GiB machine that is
/// (managed - 4096) / 256 pages, held at the lowest PFNs, counted in MemFree, never handed out:
/// filling memory with page cache leaves MemFree at least that high.
#[test]
fn zone_dma_lowmem_reserve_keeps_its_frames_from_the_page_cache() {
    let mut s = sim(
        r#"
[scenario]
name = "dma"
[machine]
ram = "2G"
[kernel]
profile = "linux-3.13"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "3G"
[tasks.t]
ops = [{ op = "read", file = "/f" }]
"#,
    );
    let held = (s.kernel.managed_pages() - crate::page_alloc::ZONE_DMA_PAGES) / crate::page_alloc::LOWMEM_RESERVE_RATIO_DMA;
    assert_eq!(s.kernel.zones[0].lowmem_held, held);
    assert!(!s.kernel.zones[0].is_free(s.kernel.zones[0].start_pfn), "the lowest frames are the held ones");
    run(&mut s);
    let k = &s.kernel;
    assert!(k.nr_free_pages() >= held + k.zones[0].wmark_min, "MemFree {} pages", k.nr_free_pages());
    assert_eq!(k.nr_free_pages(), k.zones.iter().map(|z| z.free).sum::<u64>() + held);
    assert_invariants(k);
}

/// `Zone::free_order0_run()` (munmap's `free_pages_run()`) of consecutive frames of a pageblock leave
/// the buddy exactly as `free_unref_folios()` of each frame in turn (mm/page_alloc.c 4.3
/// `__free_one_page()`): same free counts, same free chunks of every order, and the same
/// frames handed out afterwards (the partial and order-9 lists in the same order).
#[test]
fn freeing_and_taking_runs_of_frames_equal_one_frame_at_a_time() {
    let mut one = two_nodes("");
    let mut run = two_nodes("");
    let (a, b) = (&mut one.kernel, &mut run.kernel);
    let z = 0;
    let all = drain(a, z, 0);
    assert_eq!(drain(b, z, 0), all);
    let (start, end) = (a.zones[z].start_pfn, a.zones[z].start_pfn + a.zones[z].managed);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut runs = 0;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let first = start + (x >> 16) % (end - start);
        // Up to 100 frames, within the pageblock, up to the first free one.
        let block_end = (first - start) / PAGEBLOCK_NR * PAGEBLOCK_NR + PAGEBLOCK_NR + start;
        let want = 1 + (x >> 40) % 100;
        let n = (first..(first + want).min(block_end).min(end)).take_while(|&p| !a.zones[z].is_free(p)).count() as u64;
        if n == 0 {
            continue;
        }
        for p in first..first + n {
            a.zones[z].free_order0(p);
        }
        b.zones[z].free_order0_run(first, n);
        runs += 1;
        for o in 1..=6 {
            assert_eq!(a.zones[z].nr_free_in_chunks(o), b.zones[z].nr_free_in_chunks(o), "order {o}");
            assert_eq!(b.zones[z].nr_free_in_chunks(o), b.zones[z].nr_free_in_chunks_walked(o), "order {o}");
        }
        assert_eq!(a.zones[z].free, b.zones[z].free);
        assert_eq!(a.zones[z].nr_free_blocks(), b.zones[z].nr_free_blocks());
    }
    assert!(runs > 300 && a.zones[z].nr_free_blocks() > 0, "{runs} runs, some blocks merged whole");
    // The same frames come out of both, in the same order: one by one from `a`, in runs of
    // up to 700 (`Zone::take_order0_run()`, the fault runs' allocation) from `b`.
    while a.zones[z].free > 0 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = (1 + (x >> 20) % 700).min(a.zones[z].free);
        let one: Vec<PageId> = (0..n).map(|_| PageId(a.zones[z].rmqueue_order0().unwrap() as u32)).collect();
        let mut many = vec![PageId::NIL; n as usize];
        b.zones[z].take_order0_run(&mut many);
        assert_eq!(one, many);
        assert_eq!(a.zones[z].free, b.zones[z].free);
        for o in 1..=6 {
            assert_eq!(a.zones[z].nr_free_in_chunks(o), b.zones[z].nr_free_in_chunks(o), "order {o}");
        }
    }
}

/// `Zone::free_order0_mask()` (munmap's zap of the base pages of one pageblock, issue 17)
/// leaves the buddy exactly as `free_unref_folios()` of each frame in turn, in any order
/// (mm/page_alloc.c 4.3 `__free_one_page()`): same free counts, same free chunks of every
/// order, the same partial and order-9 lists (so the same frames handed out afterwards),
/// for scattered frames, whole words, and a last free that makes the block whole.
#[test]
fn freeing_a_pageblock_bitmap_equals_one_frame_at_a_time() {
    let mut one = two_nodes("");
    let mut mask = two_nodes("");
    let (a, b) = (&mut one.kernel, &mut mask.kernel);
    let z = 0;
    let all = drain(a, z, 0);
    assert_eq!(drain(b, z, 0), all);
    let start = a.zones[z].start_pfn;
    let nr_blocks = a.zones[z].managed / crate::page_alloc::PAGEBLOCK_NR;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut whole = 0;
    for round in 0..4000 {
        let blk = next() % nr_blocks;
        let base = start + blk * crate::page_alloc::PAGEBLOCK_NR;
        // Up to 300 frames of the block still in use, in a random order (the zap's order is
        // the VMA's, not the frames').
        let mut used: Vec<u64> = (base..base + crate::page_alloc::PAGEBLOCK_NR).filter(|&p| !a.zones[z].is_free(p)).collect();
        if used.is_empty() {
            continue;
        }
        for i in (1..used.len()).rev() {
            used.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let want = if round % 7 == 0 { used.len() } else { 1 + (next() % 300) as usize };
        let freed = &used[..want.min(used.len())];
        let mut bits = [0u64; 8];
        for &p in freed {
            a.zones[z].free_order0(p);
            let off = p - base;
            bits[(off / 64) as usize] |= 1 << (off % 64);
        }
        b.zones[z].free_order0_mask(blk as u32, &bits, freed.len() as u64);
        if a.zones[z].block_usage(blk as u32).0 == 0 {
            whole += 1;
        }
        assert_eq!(a.zones[z].free, b.zones[z].free);
        assert_eq!(a.zones[z].nr_free_blocks(), b.zones[z].nr_free_blocks());
        for o in 1..=6 {
            assert_eq!(a.zones[z].nr_free_in_chunks(o), b.zones[z].nr_free_in_chunks(o), "order {o}");
            assert_eq!(b.zones[z].nr_free_in_chunks(o), b.zones[z].nr_free_in_chunks_walked(o), "order {o}");
        }
        if round % 500 == 499 {
            // Take some frames back out of both: the same ones (the lists' order).
            let n = 1 + next() % 2000;
            for _ in 0..n.min(a.zones[z].free) {
                assert_eq!(a.zones[z].rmqueue_order0(), b.zones[z].rmqueue_order0());
            }
        }
    }
    assert!(whole > 10, "{whole} blocks made whole");
    assert_eq!(drain(a, z, 0), drain(b, z, 0));
}

/// munmap's zap (issue 17): a segment of consecutive frames (a fault run's, as the buddy
/// handed them out) goes into the pageblock's bitmap a word at a time
/// (`Kernel::free_mask_add_range`), leaving the same `FreeMask` as its frames one by one
/// (`Kernel::free_mask_add_block`, the bitmap of `free_unref_page()` of each in turn,
/// mm/memory.c 4.3 `zap_pte_range()`): ranges inside one word, ending on a word boundary,
/// spanning several words and the whole block, onto an empty mask and onto one holding
/// another frame of the block.
#[test]
fn a_consecutive_zap_segment_sets_the_bits_of_its_frames_one_at_a_time() {
    let mut s = two_nodes("");
    let k = &mut s.kernel;
    let z = 0;
    let block_start = k.zones[z].start_pfn + 3 * PAGEBLOCK_NR;
    let cases = [(0, 1), (0, 64), (5, 59), (5, 60), (63, 2), (60, 200), (1, 510), (448, 63), (130, 1), (200, 311), (0, 512)];
    for &(off, n) in &cases {
        let first = block_start + off;
        let frames: Vec<PageId> = (first..first + n).map(|p| PageId(p as u32)).collect();
        for held in [None, Some(block_start + 511)] {
            if held.is_some_and(|h| h >= first && h < first + n) {
                continue;
            }
            let mut by_frame = crate::page_alloc::FreeMask::EMPTY;
            if let Some(h) = held {
                k.free_mask_add_block(&mut by_frame, z, block_start, &[PageId(h as u32)]);
            }
            let mut by_range = by_frame;
            k.free_mask_add_block(&mut by_frame, z, block_start, &frames);
            k.free_mask_add_range(&mut by_range, z, block_start, first, n);
            assert_eq!(by_range, by_frame, "{n} frames from offset {off}, held {held:?}");
            assert_ne!(by_range, crate::page_alloc::FreeMask::EMPTY);
        }
    }
}

/// `handle_mm_fault_run()` (issue 17) gives what one `handle_mm_fault()` per page gives
/// (mm/memory.c 4.3 `do_anonymous_page()` through `__alloc_pages_nodemask()`): the same
/// frames in the same order, the same clock, counters and zone state, through a run that
/// meets kswapd waking and catching up, the fair zone policy's batches, the zonelist cache
/// and the fall-back to the other node.
#[test]
fn anonymous_fault_runs_equal_one_fault_at_a_time() {
    fault_runs_equal_one_fault_at_a_time("linux-4.3", "policies.zonelist_cache = true");
}

/// The same on 6.12, whose faults take their frames from the task's per-CPU list (refilled
/// `batch << alloc_factor` frames at a time, `rmqueue_pcplist()`): a run stops where the list
/// is empty, and the lists end as one fault at a time leaves them.
#[test]
fn anonymous_fault_runs_equal_one_fault_at_a_time_with_per_cpu_lists_6_12() {
    fault_runs_equal_one_fault_at_a_time("linux-6.12", "");
}

fn fault_runs_equal_one_fault_at_a_time(profile: &str, extra: &str) {
    let file = r#"
[files."/data/f"]
size = "80M"
[tasks.r]
ops = [{ op = "read", file = "/data/f" }]
"#;
    let scn = |_: ()| {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "runs"
[kernel]
profile = "{profile}"
{extra}
[machine]
ram = "128M"
nodes = 2
dma32 = "32M"
[devices.sda]
read_bw = "100M"
{file}
"#
        ));
        run(&mut s);
        s
    };
    let (mut one, mut runs) = (scn(()), scn(()));
    let (a, b) = (&mut one.kernel, &mut runs.kernel);
    let n = (72 << 20) / PAGE_SIZE as u32;
    let (va, vb) = (a.do_mmap_anon(n as u64, MemcgId::ROOT), b.do_mmap_anon(n as u64, MemcgId::ROOT));
    for i in 0..n {
        a.handle_mm_fault(va, i).unwrap();
    }
    let mut i = 0;
    let mut calls = 0;
    while i < n {
        let end = (i + PAGEBLOCK_NR as u32).min(n);
        i = b.handle_mm_fault_run(vb, i, end).unwrap();
        calls += 1;
    }
    assert!(calls < n / 4, "runs of faults were taken ({calls} calls for {n} pages)");
    assert_eq!(a.vmas[va.0 as usize].pages, b.vmas[vb.0 as usize].pages, "the same frames");
    assert_eq!((a.now, a.sys_ns, a.iowait_ns), (b.now, b.sys_ns, b.iowait_ns));
    assert_eq!(a.vmstat.events, b.vmstat.events);
    assert!(a.vmstat.events[VmEvent::NumaMiss as usize] > 0 && a.vmstat.events[VmEvent::KswapdWakeup as usize] > 0, "the run met the other node and kswapd");
    for z in 0..a.zones.len() {
        let (x, y) = (&a.zones[z], &b.zones[z]);
        assert_eq!((x.free, x.numa_hit, x.numa_miss, x.numa_foreign, x.alloc_batch), (y.free, y.numa_hit, y.numa_miss, y.numa_foreign, y.alloc_batch));
        // 6.7+'s ZONE_BELOW_HIGH, which every fault's get_page_from_freelist() tests.
        assert_eq!(x.below_high, y.below_high, "zone {z}'s ZONE_BELOW_HIGH");
    }
    for nid in 0..a.nodes.len() {
        assert_eq!(a.nodes[nid].zlc_full, b.nodes[nid].zlc_full);
        assert_eq!((a.nodes[nid].kswapd_clock, a.nodes[nid].zlc_last_zap), (b.nodes[nid].kswapd_clock, b.nodes[nid].zlc_last_zap));
    }
    assert_eq!(a.pcps.iter().map(|p| (p.list.clone(), p.high, p.alloc_factor, p.free_count)).collect::<Vec<_>>(),
               b.pcps.iter().map(|p| (p.list.clone(), p.high, p.alloc_factor, p.free_count)).collect::<Vec<_>>());
    // The same LRU lists, in the same order, and the same pages waiting in the CPUs' lru_add
    // batches (the run's pages go through the batch as one add at a time does).
    let lists = |k: &Kernel| -> Vec<Vec<PageId>> {
        let mut out = vec![];
        for lv in &k.lruvecs {
            for l in &lv.lists {
                let (mut v, mut x) = (vec![], l.head);
                while x != PageId::NIL {
                    v.push(x);
                    x = k.pages[x].next;
                }
                out.push(v);
            }
        }
        out
    };
    assert_eq!(lists(a), lists(b), "the same LRU lists in the same order");
    let batches = |k: &Kernel| k.lru_add_fbatches.iter().map(|f| f.folios[..f.nr as usize].to_vec()).collect::<Vec<_>>();
    assert_eq!(batches(a), batches(b), "the same lru_add batches");
    assert_invariants(a);
    assert_invariants(b);
    a.do_munmap(va);
    b.do_munmap(vb);
    assert_eq!(a.nr_free_pages(), b.nr_free_pages());
    assert_eq!(a.vmstat.events, b.vmstat.events);
    assert_invariants(b);
}

/// The free aligned chunks of every order 1..=6 in a bitmap word, counted in one pass of
/// shifts (what a stale word adds back to a zone's `free_area[order].nr_free`-like counts,
/// v6.1 mm/page_alloc.c `__free_one_page()` merging buddies of those orders), equal a test of
/// each aligned chunk of each order, for a spread of words.
#[test]
fn word_chunk_counts_equal_the_test_of_each_chunk() {
    let by_chunk = |w: u64, o: u32| {
        let n = 1u32 << o;
        let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        (0..64 / n).filter(|i| (w >> (i * n)) & mask == mask).count() as u64
    };
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut words = vec![0u64, u64::MAX, 1, 1 << 63, 0xffff_fffe, !0xffff_fffe, 0x0f0f_0f0f_0f0f_0f0f];
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Words with long runs of set bits, as a pageblock's free frames are.
        words.push(x | (x >> 1) | (x >> 3));
        words.push(x);
    }
    let mut nonzero = 0;
    for &w in &words {
        let c = crate::page_alloc::word_chunk_counts(w);
        for o in 1..=6u32 {
            assert_eq!(c[o as usize - 1], by_chunk(w, o), "word {w:#x} order {o}");
            nonzero += (c[o as usize - 1] > 0) as u32;
        }
    }
    assert!(nonzero > 1000);
}

/// A 512M machine with 2 CPUs on `profile`, one sleeping task; its kernel with the frames
/// the booted system holds left as they are.
fn pcp_machine(profile: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "pcp"
[kernel]
profile = "{profile}"
[machine]
ram = "512M"
cpus = 2
[devices.sda]
read_bw = "100M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1s" }}]
"#
    ))
}

/// The zone the machine's page-cache allocations come from (its largest).
fn main_zone(k: &Kernel) -> usize {
    (0..k.zones.len()).max_by_key(|&z| k.zones[z].managed).unwrap()
}

/// Frames are conserved with the per-CPU lists: free (NR_FREE_PAGES) + on a list + used.
fn assert_frames_conserved(k: &Kernel) {
    assert_eq!(k.nr_free_pages() + k.nr_pcp_pages() + k.pages.in_use() as u64, k.managed_pages());
}

/// `zone_batchsize()` and `zone_highsize()` (mm/page_alloc.c, 6.12): batch 31 for a 512M
/// zone (min(managed >> 10, 256) / 4 = 28, rounddown_pow_of_two(28 + 14) - 1), high_min the
/// low watermark over the node's 2 CPUs, high_max an eighth of the zone over them.
#[test]
fn pcp_batch_and_high_follow_zone_batchsize_and_zone_highsize_6_12() {
    let s = pcp_machine("linux-6.12");
    let z = &s.kernel.zones[main_zone(&s.kernel)];
    assert_eq!(z.pcp_batch(), 31, "managed {}", z.managed);
    assert_eq!(z.pcp_highsize(2, 0), z.wmark_low / 2);
    assert_eq!(z.pcp_highsize(2, crate::page_alloc::MIN_PERCPU_PAGELIST_HIGH_FRACTION), z.managed / 8 / 2);
    // At least 4 batches: a zone with a tiny low watermark.
    let mut tiny = z.clone();
    tiny.wmark_low = 10;
    assert_eq!(tiny.pcp_highsize(2, 0), 31 << 2);
    // 1 MiB caps the batch from 1 GiB on: min(managed >> 10, 256) / 4 = 64 -> 63.
    assert_eq!(crate::page_alloc::Zone::new(1 << 20, &crate::profile::profile("linux-6.12").unwrap()).pcp_batch(), 63);
}

/// `rmqueue_pcplist()` -> `nr_pcp_alloc()` (6.12): with no free between them, each refill of
/// an empty list takes `batch << alloc_factor` frames out of NR_FREE_PAGES, the factor
/// growing by one per refill up to CONFIG_PCP_BATCH_SCALE_MAX (5): 31, 62, 124, 248, 496,
/// then 992 each time, while `high` grows by each refill above the high watermark; the
/// allocations between refills leave NR_FREE_PAGES alone. A free halves the factor
/// (`free_unref_page_commit()`, 5 >> 1 = 2): the next refill takes 124.
#[test]
fn pcp_refills_double_up_to_batch_scale_max_nr_pcp_alloc_6_12() {
    let mut s = pcp_machine("linux-6.12");
    let k = &mut s.kernel;
    k.pcp_ctx = k.task_cpu(0); // the task's CPU's lists
    let z = main_zone(k);
    let mut drops = vec![];
    let mut pages = vec![];
    for i in 0..(31 + 62 + 124 + 248 + 496 + 992 + 992) {
        let before = k.zones[z].free;
        let p = k.alloc_page(InodeId(0), i).unwrap();
        assert_eq!(k.zone_of(p), z);
        if k.zones[z].free != before {
            drops.push(before - k.zones[z].free);
        }
        pages.push(p);
    }
    assert_eq!(drops, vec![31, 62, 124, 248, 496, 992, 992]);
    assert_eq!(k.nr_pcp_pages(), 0, "every frame taken handed out");
    assert_frames_conserved(k);
    let p = pages.pop().unwrap();
    k.free_page(p);
    assert_eq!(k.nr_pcp_pages(), 1, "the free went to the task's list (below its high)");
    assert_frames_conserved(k);
    k.alloc_page(InodeId(0), 0).unwrap(); // the frame just freed, from the list
    let before = k.zones[z].free;
    k.alloc_page(InodeId(0), 1).unwrap();
    assert_eq!(before - k.zones[z].free, 124, "alloc_factor 5 >> 1 = 2: 31 << 2");
    assert_frames_conserved(k);
}

/// Before 6.7 (linux-6.1) the lists are not modelled: each allocation takes its frame from
/// the buddy lists and each free gives it back.
#[test]
fn pcp_lists_are_not_modelled_before_6_7() {
    let mut s = pcp_machine("linux-6.1");
    let k = &mut s.kernel;
    let z = main_zone(k);
    for i in 0..100 {
        let before = k.zones[z].free;
        let p = k.alloc_page(InodeId(0), i).unwrap();
        assert_eq!(before - k.zones[z].free, 1);
        k.free_page(p);
        assert_eq!(k.zones[z].free, before);
    }
    assert_eq!(k.nr_pcp_pages(), 0);
}

/// `nr_pcp_high()` / `nr_pcp_free()` (6.12) while kswapd reclaims (`ZONE_RECLAIM_ACTIVE`):
/// kswapd's list holds at most 4 batches (124 frames); the free that reaches them flushes
/// `clamp(free_count, batch, high - batch)` to the buddy lists, leaving a batch or more.
/// `drain_all_pages()` empties every list.
#[test]
fn pcp_holds_four_batches_while_reclaim_is_active_nr_pcp_high_6_12() {
    let mut s = pcp_machine("linux-6.12");
    let k = &mut s.kernel;
    let z = main_zone(k);
    k.pcp_ctx = k.task_cpu(0);
    let pages: Vec<PageId> = (0..600).map(|i| k.alloc_page(InodeId(0), i).unwrap()).collect();
    k.drain_all_pages();
    k.zones[z].reclaim_active = true;
    k.pcp_ctx = k.kswapd_cpu(0); // node 0's kswapd frees them, on CPU 1
    assert_eq!(k.pcp_ctx, 1);
    let ki = k.pcp_ctx as usize * k.zones.len() + z;
    let mut most = 0;
    for &p in &pages {
        k.free_page(p);
        let n = k.pcps[ki].list.len();
        most = most.max(n);
        assert!(n < 124, "a list at nr_pcp_high() is flushed: {n}");
        assert_frames_conserved(k);
    }
    assert_eq!(most, 123);
    assert!(k.pcps[ki].list.len() >= 31, "nr_pcp_free() leaves a batch: {}", k.pcps[ki].list.len());
    assert!(k.drain_all_pages());
    assert_eq!(k.nr_pcp_pages(), 0);
    assert!(!k.drain_all_pages(), "nothing left to drain");
    assert_frames_conserved(k);
}

/// 6.7+ `get_page_from_freelist()` tests the high watermark (`ZONE_BELOW_HIGH`) before each
/// fault's page (here 6.12): when a fault run's first fault (`handle_mm_fault_run()`) refills
/// the empty per-CPU list (`rmqueue_pcplist()` -> `rmqueue_bulk()`, after its own test) from a
/// zone just above the high watermark and so takes it below, the second fault's test marks
/// the zone, one fault at a time and in the run alike. (Found by oom13: the run skipped the
/// test, so a later munmap's `nr_pcp_high()` kept a full list that one fault at a time
/// flushed; `pcp_runs_keep_the_per_cpu_lists_of_one_page_at_a_time` failed once the OOM kill
/// freed a task's mappings.)
#[test]
fn a_fault_run_that_refilled_below_the_high_watermark_sets_zone_below_high_6_12() {
    let setup = || {
        let mut s = pcp_machine("linux-6.12");
        let k = &mut s.kernel;
        let z = main_zone(k);
        k.pcp_ctx = k.task_cpu(0);
        k.drain_all_pages();
        let high = k.zones[z].wmark_high;
        drain(k, z, high + 10);
        s
    };
    let n = 16u32;
    let (mut one, mut runs) = (setup(), setup());
    let (a, b) = (&mut one.kernel, &mut runs.kernel);
    let z = main_zone(a);
    let (va, vb) = (a.do_mmap_anon(n as u64, MemcgId::ROOT), b.do_mmap_anon(n as u64, MemcgId::ROOT));
    a.handle_mm_fault(va, 0).unwrap();
    assert!(a.zones[z].free < a.zones[z].wmark_high && !a.zones[z].below_high, "the first fault's refill took the zone below high, after its test");
    for i in 1..n {
        a.handle_mm_fault(va, i).unwrap();
    }
    assert!(a.zones[z].below_high, "the second fault's test marks the zone");
    assert_eq!(b.handle_mm_fault_run(vb, 0, n).unwrap(), n, "one run");
    assert_eq!(a.vmas[va.0 as usize].pages, b.vmas[vb.0 as usize].pages, "the same frames");
    assert_eq!((a.zones[z].free, a.zones[z].below_high), (b.zones[z].free, b.zones[z].below_high));
    assert_eq!(a.pcps.iter().map(|p| (p.list.clone(), p.high, p.free_count)).collect::<Vec<_>>(), b.pcps.iter().map(|p| (p.list.clone(), p.high, p.free_count)).collect::<Vec<_>>());
}

/// `get_page_from_freelist()` (6.12) sets `ZONE_BELOW_HIGH` when the zone fails its high
/// watermark; from then `nr_pcp_alloc()` no longer raises `high`, and a free that flushes a
/// list with the zone above the high watermark again clears it (`free_unref_page_commit()`).
/// `decay_pcp_high()` (every second, `vmstat_update()`) takes an eighth off `high`.
#[test]
fn zone_below_high_and_decay_pcp_high_6_12() {
    let mut s = pcp_machine("linux-6.12");
    let k = &mut s.kernel;
    let z = main_zone(k);
    k.pcp_ctx = k.task_cpu(0);
    let i = z;
    // Above the high watermark: each refill raises high by what it takes.
    let p = k.alloc_page(InodeId(0), 0).unwrap();
    assert!(!k.zones[z].below_high);
    let high_min = k.zones[z].pcp_highsize(2, 0);
    assert_eq!(k.pcps[i].high, high_min + 31);
    // Just below the high watermark (above low): the next allocation marks the zone.
    k.drain_all_pages();
    let taken = drain(k, z, k.zones[z].wmark_high - 10);
    let q = k.alloc_page(InodeId(0), 1).unwrap();
    assert!(k.zones[z].below_high);
    // The refill it made (an empty list after the drain) left high where it was.
    assert_eq!(k.pcps[i].high, high_min + 31);
    // Frames back: the free that flushes the list above the high watermark clears the flag.
    for f in taken {
        k.zones[z].free_order0(f);
    }
    assert!(k.zones[z].below_high, "the buddy frees above are not free_unref_page_commit()");
    assert_frames_conserved(k);
    k.free_page(q);
    k.free_page(p);
    let frees = k.pcps[i].list.len();
    assert!(frees >= 2);
    // nr_pcp_high() below the high mark lowers high and holds what the list has (at least
    // high_min): free until a flush happens.
    let mut pages = vec![];
    for j in 0..(high_min + 64) as u32 {
        pages.push(k.alloc_page(InodeId(0), j).unwrap());
    }
    k.drain_all_pages();
    k.zones[z].below_high = true;
    for p in pages {
        k.free_page(p);
        if !k.zones[z].below_high {
            break;
        }
    }
    assert!(!k.zones[z].below_high, "cleared by a flush above the high watermark");
    assert_frames_conserved(k);
    // decay_pcp_high(): an eighth off a high above high_min, each second.
    k.pcps[i].high = 4000;
    k.drain_all_pages();
    k.pcp_next_decay = k.now;
    k.pcp_decay_due();
    assert_eq!(k.pcps[i].high, 4000 - 500);
    assert_eq!(k.pcp_next_decay, k.now + crate::page_alloc::STAT_INTERVAL);
    assert!(k.pcp_active.contains(&(i as u32)));
    // A minute later (one catch-up of 60 periods) it is at high_min and leaves the set of
    // lists the decay looks at, until it is used again.
    k.now += 60 * crate::page_alloc::STAT_INTERVAL;
    k.pcp_decay_due();
    assert_eq!(k.pcps[i].high, high_min);
    assert!(!k.pcps[i].queued && !k.pcp_active.contains(&(i as u32)));
    k.alloc_page(InodeId(0), 2).unwrap();
    assert!(k.pcps[i].queued && k.pcp_active.contains(&(i as u32)));
}

/// One `per_cpu_pages` per CPU and zone (6.12), whatever the task count: 16 tasks on 2 CPUs
/// share CPU 0's and CPU 1's lists (task i on CPU i mod 2, kswapd on the node's last CPU), and
/// what the lists hold is at most CPUs x zones x high_max.
#[test]
fn pcp_lists_are_per_cpu_not_per_task_6_12() {
    let mut tasks = String::new();
    for t in 0..16 {
        tasks += &format!("[files.\"/data/f{t}\"]\nsize = \"40M\"\n[tasks.t{t}]\nops = [{{ op = \"read\", file = \"/data/f{t}\" }}]\n");
    }
    let mut s = sim(&format!(
        r#"
[scenario]
name = "pcp-tasks"
[kernel]
profile = "linux-6.12"
[machine]
ram = "512M"
cpus = 2
[devices.sda]
read_bw = "1G"
{tasks}
"#
    ));
    run(&mut s);
    let k = &s.kernel;
    let nz = k.zones.len();
    assert!(k.pcps.len() <= 2 * nz, "{} lists", k.pcps.len());
    let bound: u64 = (0..nz).map(|z| k.zones[z].pcp_highsize(2, crate::page_alloc::MIN_PERCPU_PAGELIST_HIGH_FRACTION)).sum::<u64>() * 2;
    assert!(k.nr_pcp_pages() <= bound, "{} on the lists", k.nr_pcp_pages());
    assert_eq!((k.task_cpu(0), k.task_cpu(15), k.kswapd_cpu(0)), (0, 1, 1));
    assert_invariants(k);
}

/// `pcp_allowed_order()` (mm/page_alloc.c 6.7+) and `free_unref_folios()` (6.10+; 6.12 here):
/// a page-cache folio of order 5 goes straight to the buddy lists (`free_one_page()`) and
/// leaves the freeing CPU's list and its `alloc_factor` alone; one of order 2 goes through
/// `free_unref_page_commit()`, which halves the factor; a munmap's run of order-0 pages
/// goes onto the list frame by frame, as one `free_page()` after another would.
#[test]
fn folio_frees_use_the_per_cpu_lists_only_for_pcp_allowed_orders_6_12() {
    let mut s = pcp_machine("linux-6.12");
    let k = &mut s.kernel;
    k.pcp_ctx = k.task_cpu(0);
    let factor = |k: &Kernel| k.pcps.iter().map(|p| p.alloc_factor).max().unwrap();
    for i in 0..(31 + 62 + 124) {
        k.alloc_page(InodeId(0), i).unwrap();
    }
    assert_eq!(factor(k), 3, "three refills");
    let gfp = Gfp { nid: 0, thp: false, no_kswapd: true, thisnode: true, no_direct_reclaim: true, movable: true, noretry: false };
    let folio = |k: &mut Kernel, order: u32| {
        let head = k.alloc_pages(order, gfp).unwrap();
        k.pages.init_range(head, 1 << order, InodeId(0), 0, MemcgId::ROOT, 0);
        head
    };
    let (on_lists, free) = (k.nr_pcp_pages(), k.nr_free_pages());
    let h5 = folio(k, 5);
    k.free_folio(h5, 32);
    assert_eq!((factor(k), k.nr_pcp_pages(), k.nr_free_pages()), (3, on_lists, free), "order 5: straight to the buddy");
    let h2 = folio(k, 2);
    k.free_folio(h2, 4);
    assert_eq!(factor(k), 1, "order 2: free_unref_page_commit() halves the factor");
    assert_frames_conserved(k);
    // A zap's run: four order-0 pages freed as a run land on the list as four frees would.
    let run = folio(k, 2);
    let on_lists = k.nr_pcp_pages();
    k.pages.free_range(run, 4);
    k.free_pages_run(run, 4, false);
    assert_eq!(k.nr_pcp_pages(), on_lists + 4);
    assert_eq!(factor(k), 0);
    assert_frames_conserved(k);
}

/// An allocation that gives up (`__alloc_pages_may_oom()`) kills, and /proc/vmstat `oom_kill`
/// counts it from 4.13 (8e675f7af507 "mm/oom_kill: count global and memory cgroup oom
/// kills"); 4.4 has no such counter. A hog touching two 100 MiB mappings in 128 MiB of RAM
/// without swap.
#[test]
fn a_global_oom_kill_is_counted_from_4_13() {
    for (profile, counted) in [("linux-4.4", false), ("linux-6.1", true)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "oom"
[kernel]
profile = "{profile}"
[machine]
ram = "128M"
[tasks.hog]
ops = [
  {{ op = "mmap", name = "a", size = "100M", step = "fill" }},
  {{ op = "mmap", name = "b", size = "100M", step = "fill" }},
  {{ op = "touch", name = "a", step = "fill" }},
  {{ op = "touch", name = "b", step = "fill" }},
]
"#));
        run_with(&mut s, |_| {});
        assert_eq!(s.kernel.vmstat.get(VmEvent::OomKill) > 0, counted, "{profile}: vmstat oom_kill");
        let r = s.run(&mut |_, _| true).expect("runs");
        assert_eq!(step_metric(&r, "fill", "oom_killed"), 1.0, "{profile}: the allocator gave up and the hog was killed");
    }
}

/// The allocation-path OOM kill (mm/page_alloc.c 6.1 `__alloc_pages_may_oom()` ->
/// mm/oom_kill.c `out_of_memory()` -> `select_bad_process()` / `oom_badness()`): in 128 MiB
/// without swap, an idle hog holds 80 MiB; a grower then touches 64 MiB. Its allocation gives
/// up, and the OOM killer kills the hog (more RSS and page tables), not the grower: the hog's
/// step ends `oom_killed`, its memory is freed at the kill (`exit_mmap()`), the grower's
/// allocation retries (`did_some_progress`) and its touch completes. One kill, counted in
/// /proc/vmstat and in the hog's memcg (`__oom_kill_process()`, 4.13+). A grower that is
/// itself the worst task (a 16 MiB hog, a grower of 112 MiB) is the victim: its touch fails, its step ends
/// `oom_killed` with its memory freed by its exit, and the hog lives.
#[test]
fn alloc_pages_may_oom_kills_select_bad_process_victim_and_retries_6_1() {
    let scn = |hog: &str, grow: &str| {
        sim(&format!(r#"
[scenario]
name = "oom-victim"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[machine]
ram = "128M"
[cgroups.h]
[cgroups.g]
[tasks.hog]
cgroup = "h"
ops = [
  {{ op = "mmap", name = "a", size = "{hog}", step = "fill" }},
  {{ op = "touch", name = "a", step = "fill" }},
  {{ op = "sleep", duration = "10s", step = "idle" }},
]
[tasks.grower]
cgroup = "g"
start = "1s"
ops = [
  {{ op = "mmap", name = "b", size = "{grow}", step = "grow" }},
  {{ op = "touch", name = "b", step = "grow" }},
]
"#))
    };
    let r = scn("80M", "64M").run(&mut |_, _| true).expect("runs");
    assert_eq!(task_metric(&r, "hog", "idle", "oom_killed"), 1.0, "the hog is select_bad_process()'s victim");
    assert_eq!(task_metric(&r, "grower", "grow", "oom_killed"), 0.0, "the grower's allocation retried");
    assert_eq!(task_metric(&r, "grower", "grow", "memcg.anon_bytes"), 64.0 * 1048576.0, "its touch completed");
    assert_eq!(task_metric(&r, "grower", "grow", "vmstat.oom_kill"), 1.0, "one kill");
    assert_eq!(task_metric(&r, "hog", "idle", "memcg.events.oom_kill"), 1.0, "counted in the victim's memcg");
    assert_eq!(task_metric(&r, "hog", "idle", "memcg.anon_bytes"), 0.0, "its memory freed at the kill");
    // The grower the worst task: it is the victim, and its exit frees what it held.
    let r = scn("16M", "112M").run(&mut |_, _| true).expect("runs");
    assert_eq!(task_metric(&r, "grower", "grow", "oom_killed"), 1.0, "the allocating task is the victim");
    assert_eq!(task_metric(&r, "grower", "grow", "memcg.anon_bytes"), 0.0, "freed by its exit before the step's end");
    assert_eq!(task_metric(&r, "hog", "idle", "oom_killed"), 0.0);
    assert_eq!(task_metric(&r, "hog", "idle", "memcg.anon_bytes"), 16.0 * 1048576.0, "the hog keeps its memory");
}

/// A 128 MiB stream read through a 64 MiB machine (linux-6.1), with the machine's wake-up
/// latency samples `lat` (`[machine] wakeup_latency`, "" for none) at boot `seed`.
fn stream_woken_after(lat: &str, seed: u64) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "wake"
[machine]
ram = "64M"
{lat}
[kernel]
profile = "linux-6.1"
boot_seed = {seed}
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "128M"
[tasks.cat]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
    ))
}

/// `wakeup_kswapd()` (mm/vmscan.c, linux-6.1) only wakes kswapd (`wake_up_interruptible(
/// &pgdat->kswapd_wait)`); the woken thread runs when its CPU schedules it, and meanwhile
/// `__alloc_pages_slowpath()` goes on allocating at the min watermark and reclaims directly
/// once the pages between low and min are gone. On the reference machine the wake-up takes
/// microseconds and the reader never gets there (no direct reclaim); on a machine whose
/// wake-ups take 50 ms (`[machine] wakeup_latency`, as a loaded QEMU/TCG host's idle vCPUs do)
/// it does, kswapd scans less, and each wake-up of kswapd counts once still. Samples of 0 are
/// the reference machine's; the draws repeat for a boot and differ between boots.
#[test]
fn a_woken_kswapd_runs_after_the_machines_wakeup_latency_6_1() {
    let pgscan = |s: &Simulation| (s.kernel.vmstat.get(VmEvent::PgscanKswapd), s.kernel.vmstat.get(VmEvent::PgscanDirect));
    let mut at_once = stream_woken_after("", 0);
    run(&mut at_once);
    let (ksw0, dir0) = pgscan(&at_once);
    assert!(ksw0 > 0 && dir0 == 0, "kswapd keeps up when it runs at once: {ksw0} {dir0}");
    let mut zero = stream_woken_after("wakeup_latency = [\"0ns\"]", 0);
    run(&mut zero);
    assert_eq!(pgscan(&zero), (ksw0, dir0), "zero latency is the reference machine");
    let mut late = stream_woken_after("wakeup_latency = [\"50ms\"]", 0);
    run(&mut late);
    let (ksw, dir) = pgscan(&late);
    assert!(dir > 0, "the reader reclaims directly while kswapd waits to run: {ksw} {dir}");
    assert!(ksw < ksw0, "{ksw} {ksw0}");
    assert!(late.kernel.vmstat.get(VmEvent::KswapdWakeup) > 0);
    assert_invariants(&late.kernel);
    // a distribution: the draws are the boot's, repeated run to run
    let mixed = "wakeup_latency = [\"10us\", \"100us\", \"20ms\", \"60ms\"]";
    let runs: Vec<_> = [0, 0, 1, 2, 3].iter().map(|&seed| {
        let mut s = stream_woken_after(mixed, seed);
        run(&mut s);
        pgscan(&s)
    }).collect();
    assert_eq!(runs[0], runs[1], "one boot repeats");
    assert!(runs[1..].iter().any(|r| *r != runs[0]), "the boots draw differently: {runs:?}");
    // bad samples name the key
    for (bad, says) in [("wakeup_latency = []", "machine.wakeup_latency is empty"),
                        ("wakeup_latency = \"5ms\"", "machine.wakeup_latency must be an array of durations"),
                        ("wakeup_latency = [\"5\"]", "a machine.wakeup_latency sample"),
                        ("wakeup_latency = [\"20s\"]", "longer than 10 s")] {
        let text = format!("[scenario]\nname = \"s\"\n[machine]\nram = \"64M\"\n{bad}\n");
        let e = crate::Document::from_toml("s.toml", &text).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// `kswapd_try_to_sleep()` (mm/vmscan.c, linux-6.1): kswapd that has balanced its node sleeps
/// HZ/10 first (`schedule_timeout(HZ/10)`); if the node is below its high watermark when that
/// runs out (KSWAPD_HIGH_WMARK_HIT_QUICKLY), kswapd balances again though no allocation went
/// below low to call `wakeup_kswapd()`; if it is balanced, kswapd sleeps fully and only
/// `wakeup_kswapd()` wakes it. The allocations here take the node from balanced to just below
/// high, never below low (kswapd is not woken by them).
#[test]
fn kswapd_sleeps_hz_10_then_balances_again_below_high_or_sleeps_fully_6_1() {
    let mut s = stream_woken_after("", 0);
    run(&mut s);
    let k = &mut s.kernel;
    let runs = |k: &Kernel| k.vmstat.get(VmEvent::KswapdWakeup);
    let mut held = vec![];
    // allocate until the node is just below high: no zone fails low, nothing wakes kswapd
    let take_below_high = |k: &mut Kernel, held: &mut Vec<PageId>| {
        while k.node_balanced(0) {
            let i = held.len() as u32;
            held.push(k.alloc_page(InodeId(0), i).expect("memory left"));
        }
        assert!(!k.nodes[0].kswapd_active, "no allocation went below low");
    };
    // whatever the stream left: a second later any short sleep has ended (one that ended
    // below high has kswapd balance again and sleep short once more, ended at the next look)
    let t = k.now + 1_000_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    k.kswapd_catch_up();
    assert!(!k.nodes[0].kswapd_active && k.nodes[0].kswapd_short_sleep.is_none());
    // fully asleep: below high, kswapd stays asleep however long
    take_below_high(k, &mut held);
    let before = runs(k);
    let t = k.now + 300_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    assert_eq!(runs(k), before, "a fully sleeping kswapd waits for wakeup_kswapd()");
    assert!(!k.nodes[0].kswapd_active);
    // woken, it balances the node and takes its short sleep
    k.wakeup_kswapd(0, 0);
    assert_eq!(runs(k), before + 1);
    let t = k.now + 50_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    assert!(k.node_balanced(0) && !k.nodes[0].kswapd_active);
    let end = k.nodes[0].kswapd_short_sleep.expect("kswapd sleeps HZ/10 first");
    assert!(end > k.nodes[0].kswapd_clock && end - k.nodes[0].kswapd_clock <= crate::page_alloc::KSWAPD_SHORT_SLEEP);
    // below high again within the HZ/10: nothing until it runs out, then kswapd balances again
    take_below_high(k, &mut held);
    let (woken, scanned) = (runs(k), k.vmstat.get(VmEvent::PgscanKswapd));
    k.advance_clock(end - 1);
    k.kswapd_catch_up();
    assert_eq!(runs(k), woken, "still in its short sleep");
    k.advance_clock(end + 1);
    k.kswapd_catch_up();
    assert_eq!(runs(k), woken + 1, "KSWAPD_HIGH_WMARK_HIT_QUICKLY: balance_pgdat() again");
    let t = k.now + 50_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    assert!(k.vmstat.get(VmEvent::PgscanKswapd) > scanned && k.node_balanced(0));
    // a short sleep that ends balanced ends in the full sleep
    assert!(k.nodes[0].kswapd_short_sleep.is_some());
    let t = k.now + 200_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    assert!(k.nodes[0].kswapd_short_sleep.is_none() && !k.nodes[0].kswapd_active);
    assert_eq!(runs(k), woken + 1);
    for p in held {
        k.free_page(p);
    }
    assert_invariants(k);
}

/// A run of anonymous faults through the `lru_add` batch (memory.rs `anon_pages_batch_run()`)
/// leaves the lists and the batch as one `__lru_cache_add()` per page does, for runs ending
/// anywhere against the batch's size: 4.3's pagevec of 14 moved before the add that finds it
/// full (a multiple of 14 leaves 14 waiting), 5.0's of 15 moved after the add that fills it (a
/// multiple of 15 leaves none).
#[test]
fn anonymous_fault_runs_through_the_lru_add_batch_equal_one_add_at_a_time() {
    for (profile, size) in [("linux-4.3", 14u32), ("linux-5.0", 15)] {
        for n in [2, size - 1, size, size + 1, 2 * size, 2 * size + 1, 3 * size - 1, 100] {
            let scn = || sim(&format!("[scenario]\nname = \"runs\"\n[kernel]\nprofile = \"{profile}\"\nthp = \"never\"\n[machine]\nram = \"128M\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"));
            let (mut one, mut runs) = (scn(), scn());
            let (a, b) = (&mut one.kernel, &mut runs.kernel);
            let (va, vb) = (a.do_mmap_anon(n as u64, MemcgId::ROOT), b.do_mmap_anon(n as u64, MemcgId::ROOT));
            for i in 0..n {
                a.handle_mm_fault(va, i).unwrap();
            }
            let (mut i, mut calls) = (0, 0);
            while i < n {
                i = b.handle_mm_fault_run(vb, i, n).unwrap();
                calls += 1;
            }
            assert!(calls < n, "{profile}, {n} pages: a run was taken ({calls} calls)");
            let lists = |k: &Kernel| -> Vec<Vec<PageId>> {
                k.lruvecs.iter().flat_map(|lv| lv.lists.iter()).map(|l| {
                    let (mut v, mut x) = (vec![], l.head);
                    while x != PageId::NIL {
                        v.push(x);
                        x = k.pages[x].next;
                    }
                    v
                }).collect()
            };
            assert_eq!(lists(a), lists(b), "{profile}, {n} pages: the same lists in the same order");
            let batches = |k: &Kernel| k.lru_add_fbatches.iter().map(|f| f.folios[..f.nr as usize].to_vec()).collect::<Vec<_>>();
            assert_eq!(batches(a), batches(b), "{profile}, {n} pages: the same batch");
            let waiting = if profile == "linux-4.3" { (n - 1) % size + 1 } else { n % size };
            assert_eq!(a.lru_add_fbatches[0].nr as u32, waiting, "{profile}, {n} pages");
            assert_invariants(b);
        }
    }
}


/// The fast paths agree with the general ones (`Kernel::check_fast_paths`): every order-0
/// allocation `get_page_from_freelist_order0()` serves gives the frame and leaves the
/// counters the general `get_page_from_freelist()` walk gives and leaves, and every charge
/// `charge_fits_at_once()` takes is `try_charge_memcg()`'s first pass (charges from the
/// stock, refills, memory.high), on 6.6, 6.1 and 5.0: a reader at the root and, in a memcg
/// held at its memory.high, an anonymous toucher that reads a file, the machine's memory
/// filling. A disagreement panics.
#[test]
fn the_fast_paths_agree_with_the_general_paths() {
    for profile in ["linux-6.6", "linux-6.1", "linux-5.0"] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "fast-paths"
[kernel]
profile = "{profile}"
cgroup = "v2"
[machine]
ram = "64M"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "48M"
[files."/g"]
size = "24M"
[cgroups.ct]
"memory.max" = "8M"
"memory.high" = "6M"
[tasks.r]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
[tasks.a]
cgroup = "ct"
ops = [{{ op = "mmap", name = "m", size = "4M" }}, {{ op = "touch", name = "m" }}, {{ op = "read", file = "/g", bufsize = "128K" }}]
"#
        ));
        s.kernel.check_fast_paths = true;
        run(&mut s);
        let ct = memcg(&s, "ct");
        assert!(s.kernel.memcgs.get(ct).counter.watermark >= 6 << 8, "{profile}: the memcg filled to memory.high");
        assert!(s.kernel.memcgs.events(ct, crate::memcontrol::MemcgEvent::High) > 0, "{profile}: and went above it");
        assert_invariants(&s.kernel);
    }
}

/// `CONGESTION_WAIT_JIFFIES` is the allocator's `wait_iff_congested(.., HZ/50)` in jiffies
/// (what [`Kernel::congestion_wait`] takes): a sleep of at most HZ/50 = 5 jiffies, 20 ms on
/// 4.3's wheel (the tick of its expiry), 24 ms on 4.8+'s (one tick later), however long the
/// device's backlog; shorter when the device drains first.
#[test]
fn congestion_wait_jiffies_is_hz_50() {
    const MS: u64 = 1_000_000;
    assert_eq!(crate::page_alloc::CONGESTION_WAIT_JIFFIES * crate::timer::NSEC_PER_JIFFY, 20 * MS);
    for (p, woken) in [("linux-4.3", 20 * MS), ("linux-6.1", 24 * MS)] {
        let mut k = Kernel::new(crate::profile::profile(p).unwrap(), crate::profile::Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
        k.devices.push(crate::blkdev::BlockDevice::new("sda", 128 << 20, 128 << 20, MS, 128));
        k.devices[0].busy_until = 1_000 * MS;
        k.congestion_wait(crate::page_alloc::CONGESTION_WAIT_JIFFIES);
        assert_eq!(k.now, woken, "{p}: a second's backlog, HZ/50");
        k.devices[0].busy_until = k.now + 3 * MS;
        let t = k.now;
        k.congestion_wait(crate::page_alloc::CONGESTION_WAIT_JIFFIES);
        assert_eq!(k.now, t + 3 * MS, "{p}: the device drained first");
    }
}

/// An order-0 `alloc_pages()` that direct reclaim makes progress for but that still fails
/// at the min watermark retries. Before 4.7 (linux-4.3 mm/page_alloc.c
/// `__alloc_pages_slowpath()`: `should_alloc_retry()` -> `wait_iff_congested(preferred_zone,
/// BLK_RW_ASYNC, HZ/50)`) each retry sleeps while the device has writeback in flight, at most
/// HZ/50; linux-6.1's `should_reclaim_retry()` only `cond_resched()`s (and sleeps for pending
/// writes only 4.7-5.15): no congestion sleep at all, however busy the device.
#[test]
fn allocator_retry_waits_hz_50_on_a_busy_device_before_4_7_only() {
    for (profile, waits) in [("linux-4.3", true), ("linux-6.1", false)] {
        let mut s = page_cache_full_kswapd_asleep(profile);
        let k = &mut s.kernel;
        // every zone of the node taken to just above half its min watermark (below it, the
        // direct reclaimer would wait for kswapd first: throttle_direct_reclaim(), 3.6+): the
        // free pages one direct reclaim round frees (SWAP_CLUSTER_MAX) stay below the min
        // watermark, so the allocation retries
        let held: Vec<Vec<u64>> = (0..k.zones.len()).map(|z| { let keep = k.zones[z].wmark_min / 2 + 1; drain(k, z, keep) }).collect();
        assert!(k.allow_direct_reclaim(0), "{profile}: not throttled");
        k.devices[0].busy_until = k.now + 1_000_000_000;
        let (min, cluster) = (k.zones.iter().map(|z| z.wmark_min).max().unwrap(), crate::vmscan::SWAP_CLUSTER_MAX as u64);
        assert!(min > 2 * cluster, "{profile}: the min watermark ({min}) takes several rounds");
        let (stalls, congestion) = (allocstalls(k), k.stall.ns[crate::delayacct::StallKind::Congestion as usize]);
        let gfp = Gfp { no_kswapd: true, ..Gfp::node(0) };
        let p = k.alloc_pages(0, gfp).expect("the page cache is reclaimable");
        let rounds = allocstalls(k) - stalls;
        let slept = k.stall.ns[crate::delayacct::StallKind::Congestion as usize] - congestion;
        assert!(rounds >= 2, "{profile}: the allocation retried ({rounds} direct reclaim rounds)");
        let hz_50 = crate::page_alloc::CONGESTION_WAIT_JIFFIES * crate::timer::NSEC_PER_JIFFY;
        if waits {
            // one wait after each round that did not end in the page, each cut at HZ/50 (the
            // device stays busy for a second)
            let jiffy = crate::timer::NSEC_PER_JIFFY;
            assert!(slept <= (rounds - 1) * hz_50 && slept > (rounds - 1) * (hz_50 - jiffy), "{profile}: {rounds} rounds slept {slept} ns");
        } else {
            assert_eq!(slept, 0, "{profile}: {rounds} rounds, no congestion sleep");
        }
        k.free_page(p);
        for (z, frames) in held.into_iter().enumerate() {
            for f in frames {
                k.zones[z].free_order0(f);
            }
        }
    }
}

/// `do_try_to_free_pages()` (mm/vmscan.c) counts a direct reclaim the allocator enters in one
/// `allocstall` counter before 4.8 (`count_vm_event(ALLOCSTALL)`, 4.4 read) and from 4.8 under
/// the request's zone (`__count_zid_vm_events(ALLOCSTALL, sc->reclaim_idx, 1)`, `reclaim_idx =
/// gfp_zone(gfp_mask)`, 6.1 read): `allocstall_movable` for `GFP_HIGHUSER_MOVABLE` (page cache,
/// anonymous memory; ZONE_MOVABLE by GFP_ZONE_TABLE whether or not the machine has that zone),
/// `allocstall_normal` for `GFP_KERNEL` (slab).
#[test]
fn direct_reclaim_counts_allocstall_under_the_requests_zone_from_4_8() {
    use VmEvent::{Allocstall, AllocstallMovable, AllocstallNormal};
    for (profile, user, kernel) in [
        ("linux-3.13", Allocstall, Allocstall),
        ("linux-4.3", Allocstall, Allocstall),
        ("linux-4.4", Allocstall, Allocstall),
        ("linux-5.0", AllocstallMovable, AllocstallNormal),
        ("linux-6.1", AllocstallMovable, AllocstallNormal),
        ("linux-6.18", AllocstallMovable, AllocstallNormal),
    ] {
        let mut s = page_cache_full_kswapd_asleep(profile);
        let k = &mut s.kernel;
        for (gfp, event) in [(Gfp::node(0), user), (Gfp::kernel(0), kernel)] {
            let counts = |k: &Kernel| [Allocstall, AllocstallNormal, AllocstallMovable].map(|e| k.vmstat.get(e));
            let held: Vec<Vec<u64>> = (0..k.zones.len()).map(|z| drain(k, z, 0)).collect();
            let before = counts(k);
            let p = k.alloc_pages(0, Gfp { no_kswapd: true, ..gfp }).expect("the page cache is reclaimable");
            let after = counts(k);
            for (i, e) in [Allocstall, AllocstallNormal, AllocstallMovable].into_iter().enumerate() {
                if e == event {
                    assert!(after[i] > before[i], "{profile}: {gfp:?} counted under {e:?}");
                } else {
                    assert_eq!(after[i], before[i], "{profile}: {gfp:?} not counted under {e:?}");
                }
            }
            k.free_page(p);
            for (z, frames) in held.into_iter().enumerate() {
                for f in frames {
                    k.zones[z].free_order0(f);
                }
            }
        }
    }
}

/// Direct reclaims counted under any of the era's names ([`VmEvent::Allocstall`] before 4.8,
/// per zone after).
fn allocstalls(k: &Kernel) -> u64 {
    [VmEvent::Allocstall, VmEvent::AllocstallNormal, VmEvent::AllocstallMovable].iter().map(|&e| k.vmstat.get(e)).sum()
}

/// A 64M machine whose page cache a 128M file read filled, a second later, kswapd asleep: an
/// allocation with `__GFP_NO_KSWAPD` then reclaims directly on its own.
fn page_cache_full_kswapd_asleep(profile: &str) -> Simulation {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "full"
[machine]
ram = "64M"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "128M"
[tasks.cat]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
    ));
    run(&mut s);
    let k = &mut s.kernel;
    let t = k.now + 1_000_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    k.kswapd_catch_up();
    assert!(!k.nodes[0].kswapd_active, "{profile}: kswapd asleep");
    s
}

/// 6.1 mm/page_alloc.c `__alloc_pages_slowpath()` for readahead's order-0 request
/// (`readahead_gfp_mask()` = mapping gfp | `__GFP_NORETRY` | `__GFP_NOWARN`,
/// mm/readahead.c `page_cache_ra_unbounded()`): after one direct reclaim round that yields no
/// page, `if (gfp_mask & __GFP_NORETRY) goto nopage;`, before `should_reclaim_retry()` and
/// `__alloc_pages_may_oom()` (reached only after `MAX_RECLAIM_RETRIES` rounds without
/// progress): one allocstall. A `GFP_HIGHUSER_MOVABLE` request on the same machine retries
/// its `MAX_RECLAIM_RETRIES` (16) rounds before the OOM path.
#[test]
fn readahead_gfp_noretry_gives_up_after_one_reclaim_round_6_1() {
    let mut s = sim(r#"
[scenario]
name = "ra-noretry"
[kernel]
profile = "linux-6.1"
[machine]
ram = "128M"
[tasks.t]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let stalls = |k: &Kernel| k.vmstat.get(VmEvent::AllocstallMovable);
    let k = &mut s.kernel;
    // Exhaust the free lists without reclaim: frames no LRU holds, nothing to reclaim.
    let no_reclaim = Gfp { no_direct_reclaim: true, no_kswapd: true, ..Gfp::node(0) };
    while k.alloc_pages(0, no_reclaim).is_some() {}
    let s0 = stalls(k);
    assert!(k.alloc_pages(0, Gfp::readahead(0)).is_none(), "nothing to reclaim");
    assert_eq!(stalls(k) - s0, 1, "one direct reclaim round, then nopage");
    let s1 = stalls(k);
    assert!(k.alloc_pages(0, Gfp::node(0)).is_none());
    assert!(stalls(k) - s1 > crate::page_alloc::MAX_RECLAIM_RETRIES as u64, "GFP_HIGHUSER_MOVABLE retries before the OOM path: {} rounds", stalls(k) - s1);
}

/// `free_unref_page()` -> `free_unref_page_commit()` (6.12 mm/page_alloc.c) puts a freed frame
/// on the per-CPU list of its pageblock's migratetype (`get_pfnblock_migratetype()`,
/// `order_to_pindex()`): a frame of a non-movable pageblock (a fallback's steal, used and
/// freed) goes on the Unmovable/Reclaimable list, which an order-0 movable allocation
/// (`__rmqueue_pcplist()` of `lists[order_to_pindex(MIGRATE_MOVABLE, 0)]`) does not take: with
/// the movable list empty it refills from the buddy though the set holds frames. Both lists
/// count in `pcp->count`; `free_pcppages_bulk()` "Ensure[s] requested pindex is drained first"
/// (the list of the frame just freed), then the others; `drain_all_pages()` empties both.
#[test]
fn pcp_frees_go_to_their_pageblocks_migratetype_list_free_unref_page_6_12() {
    let mut s = pcp_machine("linux-6.12");
    let k = &mut s.kernel;
    k.pcp_ctx = k.task_cpu(0);
    let z = main_zone(k);
    let nm: Vec<u64> = (0..11).map(|_| k.zones[z].rmqueue_order0_unmovable().unwrap()).collect();
    let mv: Vec<u64> = (0..150).map(|_| k.zones[z].rmqueue_order0().unwrap()).collect();
    assert!(nm.iter().all(|&f| !k.zones[z].pfn_movable(f)) && mv.iter().all(|&f| k.zones[z].pfn_movable(f)));
    let free0 = k.zones[z].free;
    for &f in &mv {
        k.free_unref_page_commit(z, f);
    }
    for &f in &nm[..10] {
        k.free_unref_page_commit(z, f);
    }
    let i = k.pcp_of(z);
    assert_eq!((k.pcps[i].list.len(), k.pcps[i].nm.len(), k.pcps[i].count()), (150, 10, 160));
    assert_eq!(k.nr_pcp_pages(), 160);
    assert_eq!(k.zones[z].free, free0, "below high: no flush");
    // kswapd reclaims: the set holds at most 4 batches; the free of a non-movable frame
    // flushes clamp(free_count, batch, 124 - batch) = 93 frames, its own list first.
    k.zones[z].reclaim_active = true;
    k.free_unref_page_commit(z, nm[10]);
    assert_eq!(k.pcps[i].nm.len(), 0, "the freed frame's list drained first");
    assert_eq!(k.pcps[i].list.len(), 150 - (93 - 11));
    assert_eq!(k.zones[z].free, free0 + 93);
    k.zones[z].reclaim_active = false;
    // The movable list's frames serve the movable allocations, then a refill from the buddy.
    let left = k.pcps[i].list.len();
    for _ in 0..left {
        let f = k.rmqueue_pcplist(z).unwrap();
        assert!(mv.contains(&f));
    }
    // a fresh non-movable frame (nm[0] went back to the buddy with the drain above: freeing it
    // again was a double free, caught by Zone::free_order0's debug check)
    let x = k.zones[z].rmqueue_order0_unmovable().unwrap();
    k.free_unref_page_commit(z, x);
    let before = k.zones[z].free;
    let f = k.rmqueue_pcplist(z).unwrap();
    assert!(k.zones[z].pfn_movable(f) && f != x, "the non-movable list is not taken by a movable allocation");
    assert!(k.zones[z].free < before, "an empty movable list is refilled from the buddy");
    assert_eq!(k.pcps[i].nm.len(), 1);
    let n = k.pcps[i].count();
    let free1 = k.zones[z].free;
    assert!(k.drain_all_pages());
    assert_eq!(k.zones[z].free, free1 + n);
    assert_eq!((k.pcps[i].list.len(), k.pcps[i].nm.len()), (0, 0));
}
