//! Reclaim of an anonymous PMD-mapped THP held to mm/vmscan.c `shrink_folio_list()` (6.1:
//! `add_to_swap()`, and when it fails "Fallback to swap normal pages": `split_folio_to_list()`,
//! THP_SWPOUT_FALLBACK) and the swap allocator's cluster rule per era (swapfile.rs
//! [`crate::swapfile::ThpSwapOut`]; mm/huge_memory.c `split_huge_page_to_list()`).

use super::*;
use crate::page_alloc::PAGEBLOCK_NR;
use crate::swapfile::NO_SLOT;
use crate::vmstat::VmEvent;

/// A 1G machine on `profile` with THP always, 256M of swap on a device that is `rotational`
/// (a swap file on it when `file`), a cgroup A, nothing running.
fn machine(profile: &str, rotational: bool, file: bool) -> Simulation {
    sim(&format!(
        "[scenario]\nname = \"thp-swap\"\n[machine]\nram = \"1G\"\nswap = \"256M\"\nswap_file = {file}\n[kernel]\nprofile = \"{profile}\"\nthp = \"always\"\n[devices.sda]\nread_bw = \"500M\"\nwrite_bw = \"400M\"\nrotational = {rotational}\n[cgroups.A]\n\"memory.max\" = \"512M\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
    ))
}

/// What one reclaim of A did to its THPs.
#[derive(Debug, PartialEq, Eq)]
struct Out {
    swpout: u64,
    fallback: u64,
    split: u64,
    pswpout: u64,
}

/// Map `nr_thp` THPs in A (stores, each PMD range's first fault a THP fault), make every PTE
/// old (as a reclaim that found them young once would), then reclaim 512 pages of A.
fn fault_and_reclaim(s: &mut Simulation, nr_thp: u32) -> (crate::memory::VmaId, Out) {
    let a = memcg(s, "A");
    let k = &mut s.kernel;
    let n = nr_thp * PAGEBLOCK_NR as u32;
    let vma = k.do_mmap_anon(n as u64, a);
    for i in 0..n {
        k.handle_mm_fault_flags(vma, i, true).unwrap();
    }
    assert_eq!(k.vmstat.get(VmEvent::ThpFaultAlloc), nr_thp as u64, "every range is a THP");
    k.lru_add_drain();
    for i in 0..n {
        k.vmas[vma.0 as usize].test_and_clear_young(i);
    }
    let before = (k.shmem_stat.thp_swpout, k.shmem_stat.thp_swpout_fallback, k.shmem_stat.thp_split_page, k.vmstat.get(VmEvent::Pswpout));
    k.try_to_free_mem_cgroup_pages(a, PAGEBLOCK_NR);
    let out = Out {
        swpout: k.shmem_stat.thp_swpout - before.0,
        fallback: k.shmem_stat.thp_swpout_fallback - before.1,
        split: k.shmem_stat.thp_split_page - before.2,
        pswpout: k.vmstat.get(VmEvent::Pswpout) - before.3,
    };
    (vma, out)
}

/// The slots the VMA's pages hold, in index order.
fn slots(s: &Simulation, vma: crate::memory::VmaId) -> Vec<u32> {
    s.kernel.vmas[vma.0 as usize].swap.iter().copied().filter(|&x| x != NO_SLOT).collect()
}

/// The pages, the charge and the swap slots of A are conserved: every page of the mapping is
/// mapped or has a swap slot (in the swap cache, or written and freed), A's charge is its
/// mapped and swap-cache pages (nothing charged or left charged by the split), the area's
/// slots in use hold the mapping's.
fn assert_conserved(s: &Simulation, vma: crate::memory::VmaId, nr_thp: u32) {
    let k = &s.kernel;
    let a = memcg(s, "A");
    let m = k.memcgs.get(a);
    let n = nr_thp as usize * PAGEBLOCK_NR as usize;
    let v = &k.vmas[vma.0 as usize];
    for i in 0..n {
        assert!(v.pages[i] != PageId::NIL || v.swap.get(i).is_some_and(|&x| x != NO_SLOT), "page {i} neither mapped nor swapped");
    }
    assert_eq!(v.nr_resident, m.nr_anon, "the resident pages are A's anon");
    assert_eq!(page_usage(k, a), m.nr_anon + m.nr_swapcache, "A's charge: mapped + swap cache");
    // (a page swapped in keeps its slot in the swap cache after the PTE took it back)
    assert!(k.swap.as_ref().unwrap().inuse >= slots(s, vma).len() as u64, "the mapping's slots are in use");
    assert_invariants(k);
}

/// 6.18 `cluster_alloc_swap_entry()` ("if (order && !(si->flags & SWP_BLKDEV)) return 0"): a
/// swap file gives a THP no contiguous slots; `shrink_folio_list()` splits it
/// (THP_SPLIT_PAGE, THP_SWPOUT_FALLBACK) and writes its 512 pages one by one, each unmapped
/// with its own swap entry. 6.1's `get_swap_pages()` ("if (si->flags & SWP_BLKDEV)") the same.
#[test]
fn a_thp_on_a_swap_file_is_split_and_swapped_page_by_page_6_18_and_6_1() {
    for profile in ["linux-6.18", "linux-6.1", "linux-6.12-lru_gen"] {
        let mut s = machine(profile, false, true);
        assert!(!s.kernel.swap.as_ref().unwrap().blkdev);
        let (vma, out) = fault_and_reclaim(&mut s, 1);
        assert_eq!(out, Out { swpout: 0, fallback: 1, split: 1, pswpout: 512 }, "{profile}");
        let m = s.kernel.memcgs.get(memcg(&s, "A"));
        assert_eq!(m.nr_anon, 0, "{profile}: every page unmapped");
        assert_eq!(slots(&s, vma).len(), 512, "{profile}: a slot each");
        assert_conserved(&s, vma, 1);
    }
}

/// A non-rotational block device has `cluster_info` and free clusters: the THP gets 512
/// contiguous slots and is written whole (THP_SWPOUT, one request), on 6.1 and 6.18 alike.
#[test]
fn a_thp_on_a_non_rotational_block_device_is_written_whole_6_1_and_6_18() {
    for profile in ["linux-6.1", "linux-6.18"] {
        let mut s = machine(profile, false, false);
        assert!(s.kernel.swap.as_ref().unwrap().blkdev && s.kernel.swap.as_ref().unwrap().solidstate);
        let (vma, out) = fault_and_reclaim(&mut s, 1);
        assert_eq!(out, Out { swpout: 1, fallback: 0, split: 0, pswpout: 512 }, "{profile}");
        let sl = slots(&s, vma);
        assert!(sl.len() == 512 && sl.windows(2).all(|w| w[1] == w[0] + 1), "{profile}: 512 contiguous slots");
        assert_invariants(&s.kernel);
    }
}

/// A rotational block device: no `cluster_info` on 6.1 (5.9-6.13), so no free cluster and
/// the THP is split; 6.14+ allocates clusters on any block device (6.18 writes it whole).
#[test]
fn a_thp_on_a_rotational_block_device_is_split_on_6_1_and_written_whole_on_6_18() {
    let mut s = machine("linux-6.1", true, false);
    let (vma, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 0, fallback: 1, split: 1, pswpout: 512 });
    assert_conserved(&s, vma, 1);
    let mut s = machine("linux-6.12", true, false);
    let (_, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 0, fallback: 1, split: 1, pswpout: 512 }, "6.12: SWP_BLKDEV and cluster_info");
    let mut s = machine("linux-6.18", true, false);
    let (_, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 1, fallback: 0, split: 0, pswpout: 512 });
}

/// 4.13-5.8 gave a swap file on a non-rotational device clusters too (fixed by 41663430588c,
/// 5.9): linux-5.0 writes the THP whole there; before 4.13 `add_to_swap()` always split it
/// after taking one slot, with no THP_SWPOUT_FALLBACK.
#[test]
fn older_eras_write_whole_to_a_nonrot_swap_file_5_0_and_always_split_4_4() {
    let mut s = machine("linux-5.0", false, true);
    let (_, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 1, fallback: 0, split: 0, pswpout: 512 });
    let mut s = machine("linux-5.0", true, false);
    let (_, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 0, fallback: 1, split: 1, pswpout: 512 }, "5.0: a rotational device has no clusters");
    let mut s = machine("linux-4.4", false, false);
    let (vma, out) = fault_and_reclaim(&mut s, 1);
    assert_eq!(out, Out { swpout: 0, fallback: 0, split: 1, pswpout: 512 });
    assert_conserved(&s, vma, 1);
}

/// Property-style: over eras, swap kinds and THP counts, two reclaim rounds and a touch of
/// every page between them (swap-ins of the split pages), pages, charges and slots stay
/// conserved and the engine's invariants hold.
#[test]
fn thp_swap_out_conserves_pages_charges_and_slots() {
    for profile in ["linux-6.18", "linux-6.1", "linux-6.12", "linux-6.12-lru_gen", "linux-5.0", "linux-4.4"] {
        for (rotational, file) in [(false, true), (false, false), (true, false), (true, true)] {
            for nr_thp in [1u32, 3] {
                let mut s = machine(profile, rotational, file);
                let (vma, _) = fault_and_reclaim(&mut s, nr_thp);
                assert_conserved(&s, vma, nr_thp);
                let a = memcg(&s, "A");
                let k = &mut s.kernel;
                k.try_to_free_mem_cgroup_pages(a, PAGEBLOCK_NR * 2);
                k.lru_add_drain();
                assert_invariants(k);
                let ctx = format!("{profile} rot={rotational} file={file} thps={nr_thp}");
                let _ = ctx;
                assert_conserved(&s, vma, nr_thp);
                // every page touched again: swap-ins of the split pages (and of whole THPs' slots)
                let k = &mut s.kernel;
                for i in 0..nr_thp * PAGEBLOCK_NR as u32 {
                    k.handle_mm_fault_flags(vma, i, true).unwrap();
                }
                k.lru_add_drain();
                assert_conserved(&s, vma, nr_thp);
            }
        }
    }
}
