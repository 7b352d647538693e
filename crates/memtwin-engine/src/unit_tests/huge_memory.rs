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
        assert!(sl[0] > 0 && sl[0] % 512 == 0, "{profile}: a cluster-aligned run, not cluster 0: {}", sl[0]);
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

/// The swap-cache frame of the head of a THP written whole, found through its first slot.
fn written_head(s: &Simulation, vma: crate::memory::VmaId) -> (PageId, u32) {
    let slot = s.kernel.vmas[vma.0 as usize].swap[0];
    (s.kernel.swap.as_ref().unwrap().cache_get(slot), slot)
}

/// Let the swap writes in flight complete (the plug flushed, the clock past the last one).
fn complete_writes(s: &mut Simulation) {
    let k = &mut s.kernel;
    k.blk_flush_plug();
    let t = k.now + 1_000_000_000;
    k.wait_until(t);
    k.swap_end_io();
}

/// 6.1 `shrink_folio_list()`: a PMD-mappable folio is unmapped with `TTU_SPLIT_HUGE_PMD`
/// before `pageout()`; `try_to_unmap_one()` splits the PMD (`__split_huge_pmd_locked()`,
/// THP_SPLIT_PMD) and writes the swap entry of slot + i into PTE i (`page_private(subpage)`),
/// `page_remove_rmap()` taking each page out of `NR_ANON_MAPPED` (memory.stat `anon` drops by
/// 512 at once). The folio stays large in the swap cache, unmapped, under writeback, its
/// charge kept; once written, reclaim frees it whole: the charge goes, the 512 slots stay
/// (memory.swap.current on cgroup v2). 6.18 the same (its THP on a block device).
#[test]
fn a_thp_written_whole_is_unmapped_at_swap_out_and_freed_whole_once_written() {
    for profile in ["linux-6.1", "linux-6.18", "linux-6.12-lru_gen"] {
        let mut s = machine(profile, false, false);
        let a = memcg(&s, "A");
        let anon_before = s.kernel.vmstat.nr_anon_pages;
        let pmd_before = s.kernel.shmem_stat.thp_split_pmd;
        let (vma, out) = fault_and_reclaim(&mut s, 1);
        assert_eq!(out, Out { swpout: 1, fallback: 0, split: 0, pswpout: 512 }, "{profile}");
        let k = &s.kernel;
        assert_eq!(k.shmem_stat.thp_split_pmd - pmd_before, 1, "{profile}: THP_SPLIT_PMD at the unmap");
        let (head, slot) = written_head(&s, vma);
        let v = &k.vmas[vma.0 as usize];
        for i in 0..PAGEBLOCK_NR as usize {
            assert_eq!(v.pages[i], PageId::NIL, "{profile}: PTE {i} unmapped");
            assert_eq!(v.swap[i], slot + i as u32, "{profile}: PTE {i} names the folio's slot + {i}");
            assert_eq!(k.swap.as_ref().unwrap().cache_get(slot + i as u32), head, "{profile}: the swap cache holds the folio at slot + {i}");
        }
        assert_eq!(v.nr_resident, 0);
        let p = k.pages[head];
        assert!(p.test(pg::HEAD) && p.test(pg::SWAPCACHE) && p.test(pg::WRITEBACK) && p.test(pg::LRU), "{profile}: a large swap-cache folio under writeback on the LRU");
        assert_eq!(p.mapping, crate::swapfile::SWAPPER);
        let m = k.memcgs.get(a);
        assert_eq!((m.nr_anon, m.nr_swapcache), (0, PAGEBLOCK_NR), "{profile}: memory.stat anon drops by 512, the swap cache holds them");
        assert_eq!(page_usage(k, a), PAGEBLOCK_NR, "{profile}: the charge stays with the swap cache");
        assert_eq!(k.vmstat.nr_anon_pages, anon_before, "{profile}: NR_ANON_MAPPED back where it was");
        assert_conserved(&s, vma, 1);
        // the write completes; reclaim frees the folio whole
        complete_writes(&mut s);
        let k = &mut s.kernel;
        assert!(!k.pages[head].test(pg::WRITEBACK));
        k.try_to_free_mem_cgroup_pages(a, PAGEBLOCK_NR);
        let m = k.memcgs.get(a);
        assert_eq!((m.nr_anon, m.nr_swapcache), (0, 0), "{profile}: freed");
        assert_eq!(page_usage(k, a), 0, "{profile}: uncharged");
        assert_eq!(k.vmstat.get(VmEvent::Pswpout), 512, "{profile}: written once");
        for i in 0..PAGEBLOCK_NR as u32 {
            assert_eq!(k.swap.as_ref().unwrap().cache_get(slot + i), PageId::NIL, "{profile}: out of the swap cache");
        }
        assert_eq!(slots(&s, vma).len(), 512, "{profile}: the PTEs keep their slots");
        assert!(s.kernel.swap.as_ref().unwrap().inuse >= 512);
        assert_conserved(&s, vma, 1);
    }
}

/// A touch of a page of a THP written whole before reclaim frees it finds it in the swap
/// cache: a minor fault, no read (`do_swap_page()` -> `swap_cache_get_folio()`). 6.8+ maps
/// that page alone (memory.stat anon 1, the other 511 still unmapped in the swap cache, the
/// charge still 512); the engine splits the swap-cache folio to do so
/// (`split_swapcache_thp()`). 6.1 (4.14-6.7, `ksm_might_need_to_copy()`: a tail's
/// `page->index` is unset) maps a copy: anon 1, the whole folio still in the swap cache at its
/// 512 slots, 513 pages charged. Under writeback (the write in flight) and written alike;
/// then munmap frees every page and slot.
#[test]
fn a_touch_of_a_thp_written_whole_before_it_is_freed_is_a_minor_fault_of_that_page() {
    for (profile, written) in [("linux-6.1", false), ("linux-6.1", true), ("linux-6.18", false), ("linux-6.12-lru_gen", true)] {
        let copies = profile == "linux-6.1";
        let mut s = machine(profile, false, false);
        let a = memcg(&s, "A");
        let (vma, _) = fault_and_reclaim(&mut s, 1);
        let (head, slot) = written_head(&s, vma);
        if written {
            complete_writes(&mut s);
        }
        let k = &mut s.kernel;
        let (maj, pswpin) = (k.vmstat.get(VmEvent::Pgmajfault), k.vmstat.get(VmEvent::Pswpin));
        k.handle_mm_fault_flags(vma, 5, true).unwrap();
        k.lru_add_drain();
        assert_eq!((k.vmstat.get(VmEvent::Pgmajfault), k.vmstat.get(VmEvent::Pswpin)), (maj, pswpin), "{profile} written={written}: a minor fault, nothing read");
        let v = &k.vmas[vma.0 as usize];
        assert_eq!(v.pages[5] == PageId(head.0 + 5), !copies, "{profile}: the faulting page's own frame is mapped, or (6.1) a copy");
        assert_eq!(v.nr_resident, 1);
        let m = k.memcgs.get(a);
        let cached = if copies { PAGEBLOCK_NR } else { PAGEBLOCK_NR - 1 };
        assert_eq!((m.nr_anon, m.nr_swapcache), (1, cached), "{profile} written={written}");
        assert_eq!(page_usage(k, a), cached + 1, "{profile}: nothing uncharged (6.1: the copy charged)");
        assert_eq!(k.shmem_stat.ksm_swpin_copy, copies as u64);
        for i in (0..PAGEBLOCK_NR as u32).filter(|&i| copies || i != 5) {
            let p = k.swap.as_ref().unwrap().cache_get(slot + i);
            let want = if copies { head } else { PageId(head.0 + i) };
            assert_eq!(p, want, "{profile}: page {i} still in the swap cache at its slot");
            assert_eq!(k.pages[p].test(pg::WRITEBACK), !written, "{profile}: page {i} under the folio's write");
        }
        assert_conserved(&s, vma, 1);
        // reclaim again, then munmap: every page and slot freed
        complete_writes(&mut s);
        s.kernel.try_to_free_mem_cgroup_pages(a, PAGEBLOCK_NR * 2);
        assert_conserved(&s, vma, 1);
        let k = &mut s.kernel;
        k.do_munmap(vma);
        k.lru_add_drain();
        let m = k.memcgs.get(a);
        assert_eq!((m.nr_anon, m.nr_swapcache), (0, 0), "{profile}: munmap freed every page");
        assert_eq!(page_usage(k, a), 0, "{profile}: uncharged");
        assert_eq!(k.swap_usage().1, k.swap_slots.held(), "{profile}: munmap freed every slot but those the slots caches hold");
        assert_invariants(k);
    }
}

/// munmap of a range whose THP was written whole and is still in the swap cache, under
/// writeback: `free_swap_and_cache()` of its 512 entries frees the folio and its slots.
#[test]
fn munmap_of_a_thp_written_whole_frees_its_pages_and_slots() {
    for profile in ["linux-6.1", "linux-6.18"] {
        let mut s = machine(profile, false, false);
        let a = memcg(&s, "A");
        let (vma, out) = fault_and_reclaim(&mut s, 2);
        assert!(out.swpout >= 1, "{profile}: a THP written whole");
        let m = s.kernel.memcgs.get(a);
        assert_eq!(m.nr_swapcache, out.swpout * PAGEBLOCK_NR, "{profile}: each unmapped, in the swap cache");
        let k = &mut s.kernel;
        k.do_munmap(vma);
        k.lru_add_drain();
        let m = k.memcgs.get(a);
        assert_eq!((m.nr_anon, m.nr_swapcache), (0, 0), "{profile}");
        assert_eq!(page_usage(k, a), 0, "{profile}");
        assert_eq!(k.swap_usage().1, k.swap_slots.held(), "{profile}");
        assert_invariants(k);
        complete_writes(&mut s);
        assert_invariants(&s.kernel);
        assert_eq!(s.kernel.vmstat.nr_writeback, 0, "{profile}: the writes in flight completed on their own");
    }
}

/// The THP reclaim counters are reported under the names the era's /proc/vmstat has
/// (review61 L5): 4.4 has one `thp_split` (122afea9626a split it into `thp_split_page` and
/// `thp_split_pmd` in 4.5; `thp_swpout` and `thp_swpout_fallback` came with 4.14), 6.1 the
/// four. A 64M memcg with THP always and 96M touched: both split the THPs they swap out.
#[test]
fn thp_reclaim_counters_carry_the_eras_vmstat_names_4_4_and_6_1() {
    let scn = |profile: &str| {
        format!(
            "[scenario]\nname = \"thp-names\"\n[machine]\nram = \"1G\"\nswap = \"256M\"\nswap_file = true\n[kernel]\nprofile = \"{profile}\"\ncgroup = \"v1\"\nthp = \"always\"\n[devices.sda]\nread_bw = \"500M\"\nwrite_bw = \"400M\"\n[cgroups.A]\n\"memory.limit_in_bytes\" = \"64M\"\n[tasks.t]\ncgroup = \"A\"\nops = [{{ op = \"mmap\", name = \"m\", size = \"96M\", step = \"touch\" }}, {{ op = \"touch\", name = \"m\", access = \"write\", step = \"touch\" }}]\n"
        )
    };
    let names = |profile: &str| -> Vec<(String, f64)> {
        let r = sim(&scn(profile)).run(&mut |_, _| true).unwrap();
        step_of(&r, None, "touch").metrics.iter().filter(|(m, _)| m.starts_with("vmstat.thp_s")).cloned().collect()
    };
    let old = names("linux-4.4");
    assert_eq!(old.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(), ["vmstat.thp_split"], "{old:?}");
    assert!(old[0].1 > 0.0, "4.4 split what it swapped: {old:?}");
    let new = names("linux-6.1");
    assert_eq!(
        new.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(),
        ["vmstat.thp_split_page", "vmstat.thp_swpout", "vmstat.thp_swpout_fallback", "vmstat.thp_split_pmd"],
        "{new:?}"
    );
    assert!(new[0].1 > 0.0, "6.1 split on a swap file: {new:?}");
}
