//! The reclaim balance (cost23, issue 23)'s eras — what `lru_note_cost()` (mm/swap.c) notes
//! (6.2+ `nr_io * SWAP_CLUSTER_MAX + nr_rotated`, 0538a82c39e9; 5.8-6.1 the IO pages alone).

use super::*;
use crate::vmscan::{lru_cost, ScanControl, SWAP_CLUSTER_MAX};

fn profile(n: &str) -> crate::profile::KernelProfile {
    crate::profile::profile(n).unwrap()
}

/// The eras of `lru_note_cost()`: 0538a82c39e9 went into 6.2, so the 6.6, 6.12 and 6.18
/// profiles (and their lru_gen variants) note rotations, 6.1 and older do not.
#[test]
fn lru_note_cost_rotations_from_6_2_by_profile() {
    for n in ["linux-6.6", "linux-6.6-lru_gen", "linux-6.12", "linux-6.12-lru_gen", "linux-6.18"] {
        assert!(profile(n).lru_cost_rotations, "{n}: 6.2+");
    }
    for n in ["linux-6.1", "linux-6.1-lab", "linux-5.17", "linux-5.0", "linux-4.4", "linux-4.3", "linux-3.13"] {
        assert!(!profile(n).lru_cost_rotations, "{n}: before 6.2");
    }
    // mm/swap.c 6.2+ "cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated"; 6.1 "nr_pages".
    assert_eq!(lru_cost(true, 3, 5), 3 * SWAP_CLUSTER_MAX + 5);
    assert_eq!(lru_cost(true, 0, 7), 7);
    assert_eq!(lru_cost(false, 3, 5), 3);
    assert_eq!(lru_cost(false, 0, 7), 0);
}

/// A v1 memcg of 16M with 256M of swap on a 20M/s device (its writes outlast the test) and a
/// 1M file system that takes writes slowly, kernel `profile`.
fn swap_memcg(profile: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "cost23"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "400M"
write_bw = "20M"
[files."/log"]
size = 0
[cgroups.ct]
"memory.limit_in_bytes" = "16M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// `shrink_inactive_list()` of the anon list, then `lru_note_cost(lruvec, file,
/// stat.nr_pageout, nr_scanned - nr_reclaimed)` (mm/vmscan.c 6.18; 6.1:
/// `lru_note_cost(lruvec, file, stat.nr_pageout)`). A batch of 8 pages with young PTEs is
/// kept (`FOLIOREF_KEEP`): 8 rotations, no IO. A batch of 8 unreferenced pages is written to
/// swap and stays under writeback (not freed in the pass): 8 IO pages and 8 rotations. 6.18
/// notes 8, then 8 * 32 + 8; 6.1 nothing, then 8. Fails on the 6.1 rule in 6.18 (8 and 16)
/// and on 6.2's in 6.1.
#[test]
fn shrink_inactive_list_anon_notes_pageout_and_rotations_6_18_pageout_only_6_1() {
    for (n, kept, written) in [("linux-6.18", 8, 8 * SWAP_CLUSTER_MAX + 8), ("linux-6.1", 0, 8)] {
        let mut s = swap_memcg(n);
        let ct = memcg(&s, "ct");
        let k = &mut s.kernel;
        let vma = k.do_mmap_anon(2048, ct);
        for i in 0..2048 {
            k.handle_mm_fault(vma, i).unwrap();
        }
        let v = k.lruvec_idx(ct, 0);
        assert_eq!((k.lruvecs[v].anon_cost, k.lruvecs[v].file_cost), (0, 0), "{n}: no reclaim yet");
        // No decay in this test: the costs stay under a quarter of the memcg's pages.
        assert!(k.memcgs.get(ct).counter.usage / 4 > kept + written, "{n}");
        let mut sc = ScanControl::new(ct, 32, true, false);
        assert_eq!(k.shrink_inactive_anon(ct, v, 8, &mut sc), 0, "{n}: young PTEs: kept");
        assert_eq!(k.lruvecs[v].anon_cost, kept, "{n}: 8 scanned, 0 reclaimed, no IO");
        // The next 8 at the tail: their accessed bits cleared, no PG_referenced: reclaimed,
        // written to swap.
        let tail: Vec<PageId> = {
            let mut t = Vec::new();
            let mut q = k.lruvecs[v].tail(LruList::InactiveAnon);
            while let Some(p) = q {
                t.push(p);
                if t.len() == 8 {
                    break;
                }
                // `prev` is toward the head: the next oldest page
                q = Some(k.pages[p].prev).filter(|&x| x != PageId::NIL);
            }
            t
        };
        assert_eq!(tail.len(), 8);
        for &p in &tail {
            k.anon_referenced(p);
            assert!(!k.pages[p].test(pg::REFERENCED));
        }
        let out = k.vmstat.get(crate::vmstat::VmEvent::Pswpout);
        assert_eq!(k.shrink_inactive_anon(ct, v, 8, &mut sc), 0, "{n}: written, under writeback");
        assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::Pswpout), out + 8, "{n}");
        assert!(tail.iter().all(|&p| k.pages[p].test(pg::WRITEBACK)), "{n}");
        assert_eq!(k.lruvecs[v].anon_cost, kept + written, "{n}");
        assert_eq!(k.lruvecs[v].file_cost, 0, "{n}");
        assert_invariants(k);
    }
}

/// `shrink_inactive_list()` of the file list meeting dirty pages: reclaim writes none
/// (`stat.nr_pageout` 0), activates them (`activate_locked`) and frees none, so 6.18 notes
/// the 32 scanned and not freed as file rotations; 6.1 notes a cost of 0. Fails on the 6.1
/// rule in 6.18 and on 6.2's in 6.1.
#[test]
fn shrink_inactive_list_file_notes_dirty_pages_as_rotations_6_18_not_6_1() {
    for (n, want) in [("linux-6.18", 32), ("linux-6.1", 0)] {
        let mut s = swap_memcg(n);
        let ct = memcg(&s, "ct");
        let log = inode(&s, "/log");
        let k = &mut s.kernel;
        // 4 KiB writes: order-0 folios in every era (6.18 writes large folios of a write's size)
        for i in 0..512 {
            assert_eq!(k.generic_perform_write(log, i * PAGE_SIZE, PAGE_SIZE, ct), Ok(PAGE_SIZE));
        }
        let v = k.lruvec_idx(ct, 0);
        assert!(k.lruvecs[v].size(LruList::InactiveFile) >= 32, "{n}");
        assert!(k.memcgs.get(ct).counter.usage / 4 > 32, "{n}: no decay");
        let mut sc = ScanControl::new(ct, 32, true, false);
        let act = k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgactivate);
        assert_eq!(k.shrink_inactive_list(ct, v, 32, &mut sc), 0, "{n}: dirty: none freed");
        assert_eq!(k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgactivate), act + 32, "{n}");
        assert_eq!((k.lruvecs[v].file_cost, k.lruvecs[v].anon_cost), (want, 0), "{n}");
        assert_invariants(k);
    }
}

/// `lru_note_cost_refault()` (6.2+: `lru_note_cost(lruvec, file, folio_nr_pages(folio), 0)`,
/// IO) and 6.1's `lru_note_cost_folio()` (`nr_pages`): a restored page is 32 of cost in
/// 6.18, 1 in 6.1, in the memcg's lruvec and its ancestors' (the root's).
#[test]
fn lru_note_cost_refault_is_io_6_18_and_a_page_6_1() {
    for (n, want) in [("linux-6.18", SWAP_CLUSTER_MAX), ("linux-6.1", 1)] {
        let mut s = swap_memcg(n);
        let ct = memcg(&s, "ct");
        let k = &mut s.kernel;
        let vma = k.do_mmap_anon(2048, ct);
        for i in 0..2048 {
            k.handle_mm_fault(vma, i).unwrap();
        }
        let (v, r) = (k.lruvec_idx(ct, 0), k.lruvec_idx(MemcgId::ROOT, 0));
        let root = k.lruvecs[r].file_cost;
        k.lru_note_cost(ct, 0, true, 1, 0);
        assert_eq!(k.lruvecs[v].file_cost, want, "{n}");
        assert_eq!(k.lruvecs[r].file_cost, root + want, "{n}: noted in the parent too");
        // 6.2+: "if (!cost) return"; 6.1 notes the 0 of IO a rotation-only call has.
        k.lru_note_cost(ct, 0, false, 0, 0);
        assert_eq!(k.lruvecs[v].anon_cost, 0, "{n}");
    }
}

/// `shrink_lruvec()`'s nudge (mm/vmscan.c 3.11+, the same arithmetic in 3.13, 5.8 and 6.1):
/// the type with fewer pages left stops, the other's lists are cut to `(100 - percentage)`% of
/// their targets less what they scanned. 96 of 128 anon and 224 of 256 file left: anon stops,
/// percentage 96 * 100 / 129 = 74, file 256 * 26 / 100 = 66 less 32 scanned: 34. With no anon
/// target (SCAN_FILE) the percentage is 0 and the file keeps its whole target.
#[test]
fn shrink_lruvec_nudge_cuts_the_larger_type_to_the_smaller_ones_share() {
    use crate::vmscan::lruvec_nudge;
    assert_eq!(lruvec_nudge([128, 0, 256, 0], [96, 0, 224, 0]), [0, 0, 34, 0]);
    assert_eq!(lruvec_nudge([100, 60, 20, 10], [60, 40, 0, 5]), [44, 30, 0, 0], "file smaller: 5 * 100 / 31 = 16%: 84 - 40, 50 - 20");
    assert_eq!(lruvec_nudge([0, 0, 256, 0], [0, 0, 224, 0]), [0, 0, 224, 0], "no anon target: nothing cut");
}

/// A memcg of `profile` (v1) with `file_pages` clean inactive file pages read in, `anon` anon
/// pages faulted in (inactive from 5.9, active before), and 256M of swap.
fn lists(profile: &str, file_pages: u32, anon: u32, ram: &str, file: &str) -> (Simulation, MemcgId) {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "cost23-lists"
[machine]
ram = "{ram}"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
write_bw = "20M"
[files."/f"]
size = "{file}"
[cgroups.ct]
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    if file_pages > 0 {
        read_pages(k, f, 0, file_pages, ct);
    }
    if anon > 0 {
        let vma = k.do_mmap_anon(anon as u64, ct);
        for i in 0..anon {
            k.handle_mm_fault(vma, i).unwrap();
        }
    }
    // Every page on its LRU list (none left in the per-CPU add batch).
    k.lru_add_drain();
    (s, ct)
}

/// The pages `shrink_lruvec()` of `ct`'s lruvec scans with `sc` (`ct`'s pgscan).
fn scanned_by_shrink_lruvec(s: &mut Simulation, ct: MemcgId, sc: &mut ScanControl) -> u64 {
    let k = &mut s.kernel;
    let v = k.lruvec_idx(ct, 0);
    let before = k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgscan);
    k.shrink_lruvec_node(ct, v, sc);
    k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgscan) - before
}

/// Memcg reclaim of 32 pages at priority 0 (SCAN_EQUAL: every list's whole size) over 128
/// inactive anon pages (young: kept, none freed) and 256 clean inactive file pages (freed).
/// The first batch (32 anon, 32 file) meets the goal; the nudge stops anon and cuts file to 34
/// more. 6.1 (f53af4285d77 `proportional_reclaim`): one more batch (32), then the loop finds
/// anon at 0 and stops: 32 anon, 64 file. 5.17 (`scan_adjusted`): the cut target to its end:
/// 32 anon, 66 file. Both fail on a loop that stops at the goal (32 + 32).
#[test]
fn shrink_lruvec_nudges_once_then_one_batch_6_1_or_the_cut_targets_5_17() {
    for (n, want) in [("linux-6.1", 32 + 64), ("linux-5.17", 32 + 66)] {
        let (mut s, ct) = lists(n, 256, 128, "1G", "1M");
        let v = s.kernel.lruvec_idx(ct, 0);
        let l = &s.kernel.lruvecs[v];
        assert_eq!((l.nr_pages(LruList::InactiveAnon), l.nr_pages(LruList::ActiveAnon)), (128, 0), "{n}");
        assert_eq!((l.size(LruList::InactiveFile), l.size(LruList::ActiveFile)), (256, 0), "{n}");
        let mut sc = ScanControl::new(ct, 32, true, false);
        sc.priority = 0;
        assert_eq!(scanned_by_shrink_lruvec(&mut s, ct, &mut sc), want, "{n}");
        assert_invariants(&s.kernel);
    }
}

/// Memcg reclaim of 32 pages with no anon target (no swap room asked: `may_swap` off, so
/// SCAN_FILE) over 4096 clean inactive file pages at priority 4 (target 256). 3.13
/// (e82e0561dae9, 3.11-3.15): the nudge finds no anon left (percentage 0) and the file target
/// is scanned whole: 256. 3.16+ (5.17, 6.1): "It's just vindictive to attack the larger once
/// the smaller has gone to zero": the first batch past the goal ends it: 32.
#[test]
fn shrink_lruvec_memcg_scan_file_scans_its_whole_target_3_13_one_batch_from_3_16() {
    for (n, want) in [("linux-3.13", 256), ("linux-5.17", 32), ("linux-6.1", 32)] {
        let (mut s, ct) = lists(n, 4096, 0, "1G", "16M");
        let mut sc = ScanControl::new(ct, 32, true, false);
        sc.priority = 4;
        sc.may_swap = false;
        assert_eq!(scanned_by_shrink_lruvec(&mut s, ct, &mut sc), want, "{n}");
        assert_invariants(&s.kernel);
    }
}

/// Global direct reclaim (not kswapd, no target memcg) of 32 pages at DEF_PRIORITY over
/// 163840 clean inactive file pages (target 163840 >> 12 = 40). 3.16+ (1a501907bbea
/// `scan_adjusted`, 6.0+ `proportional_reclaim`): the whole target, 40. 3.11-3.15: "For
/// global direct reclaim, reclaim only the number of pages requested": 32.
#[test]
fn shrink_lruvec_global_direct_at_def_priority_scans_its_whole_target_from_3_16() {
    for (n, want) in [("linux-3.13", 32), ("linux-5.17", 40), ("linux-6.1", 40)] {
        let (mut s, ct) = lists(n, 163840, 0, "2G", "640M");
        let mut sc = ScanControl::new(MemcgId::ROOT, 32, false, false);
        assert_eq!(sc.priority, crate::vmscan::DEF_PRIORITY);
        sc.may_swap = false;
        assert_eq!(scanned_by_shrink_lruvec(&mut s, ct, &mut sc), want, "{n}");
        assert_invariants(&s.kernel);
    }
}

/// `shrink_lruvec()`'s loop runs `while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] ||
/// nr[LRU_INACTIVE_FILE])` (3.13, 5.8-era, 6.1 and 6.18 sources alike): an active anon target
/// alone is not scanned. 5.0 (new anon pages active): 64 active anon pages at priority 0
/// (SCAN_EQUAL) deactivate nothing in the loop; the rebalance after it
/// (`inactive_is_low(LRU_INACTIVE_ANON)` -> `shrink_active_list(SWAP_CLUSTER_MAX)`) takes 32.
/// Fails on a loop that runs on for the active anon target (64).
#[test]
fn shrink_lruvec_loop_leaves_an_active_anon_target_alone_5_0() {
    let (mut s, ct) = lists("linux-5.0", 0, 64, "1G", "1M");
    let k = &mut s.kernel;
    let v = k.lruvec_idx(ct, 0);
    assert_eq!((k.lruvecs[v].nr_pages(LruList::InactiveAnon), k.lruvecs[v].nr_pages(LruList::ActiveAnon)), (0, 64));
    let d = k.vmstat.get(crate::vmstat::VmEvent::Pgdeactivate);
    let mut sc = ScanControl::new(ct, 32, true, false);
    sc.priority = 0;
    k.shrink_lruvec_node(ct, v, &mut sc);
    assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::Pgdeactivate) - d, 32, "the rebalance's 32 only");
    assert_eq!(k.lruvecs[v].nr_pages(LruList::ActiveAnon), 32);
    assert_invariants(k);
}
