//! cost23 (issue 23): the reclaim balance's eras — what `lru_note_cost()` (mm/swap.c) notes
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
