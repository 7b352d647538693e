//! The anonymous fault path held to Linux 6.1 mm/memory.c (`do_anonymous_page()`,
//! `do_wp_page()`) and mm/huge_memory.c (`do_huge_pmd_anonymous_page()`).

use super::*;
use crate::page_alloc::PAGEBLOCK_NR;
use crate::vmstat::VmEvent;

/// A 1G machine with THP `thp` ("never" or "always") and nothing running.
fn machine(thp: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "anon"
[kernel]
profile = "linux-6.1"
thp = "{thp}"
[machine]
ram = "1G"
[devices.sda]
read_bw = "100M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1s" }}]
"#
    ))
}

/// `do_anonymous_page()` without `FAULT_FLAG_WRITE` (6.1): a load maps the shared zero page
/// (`my_zero_pfn()`): one pgfault per page, no page allocated or charged, nothing on an LRU
/// list; a second load takes no fault. A store then takes `do_wp_page()` -> `wp_page_copy()`
/// (the zero page is not a normal page): a new zeroed page, one more pgfault, the PTE writable.
#[test]
fn a_load_maps_the_zero_page_and_a_store_copies_it_6_1() {
    let mut s = machine("never");
    let k = &mut s.kernel;
    let free0 = k.nr_free_pages();
    let vma = k.do_mmap_anon(64, MemcgId::ROOT);
    for i in 0..64 {
        k.handle_mm_fault_flags(vma, i, false).unwrap();
    }
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 64);
    assert_eq!(k.vmstat.nr_anon_pages, 0);
    assert_eq!(k.nr_free_pages(), free0, "no page taken for the zero page");
    assert!(k.vmas[vma.0 as usize].pages.iter().all(|&p| p == PageId::NIL));
    for i in 0..64 {
        k.handle_mm_fault_flags(vma, i, false).unwrap();
    }
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 64, "the zero page is mapped: no fault");
    k.handle_mm_fault_flags(vma, 5, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 65);
    assert_eq!(k.vmstat.nr_anon_pages, 1);
    assert!(!k.vmas[vma.0 as usize].wp_test(5) && k.vmas[vma.0 as usize].wp_test(6));
    k.handle_mm_fault_flags(vma, 5, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 65, "writable now");
    assert_invariants(k);
    // MADV_DONTNEED drops the zero-page PTEs: the next load faults again.
    k.do_madvise(vma, 0, 64, crate::scenario::model::MAdvice::DontNeed).unwrap();
    assert_eq!(k.vmstat.nr_anon_pages, 0);
    k.handle_mm_fault_flags(vma, 6, false).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 66);
    k.do_munmap(vma);
    assert_eq!(k.nr_free_pages(), free0);
    assert_invariants(k);
}

/// `do_huge_pmd_anonymous_page()` without `FAULT_FLAG_WRITE` (6.1, THP enabled,
/// `use_zero_page` 1): a load maps the huge zero page, one fault for the 2 MiB; a store then
/// splits the PMD (`do_huge_pmd_wp_page()` -> `__split_huge_pmd()`) and copies one base page
/// (`wp_page_copy()`): no huge page is allocated for that range.
#[test]
fn a_load_maps_the_huge_zero_page_and_stores_get_base_pages_6_1() {
    let mut s = machine("always");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(2 * PAGEBLOCK_NR, MemcgId::ROOT);
    k.handle_mm_fault_flags(vma, 3, false).unwrap();
    for i in 0..PAGEBLOCK_NR as u32 {
        k.handle_mm_fault_flags(vma, i, false).unwrap();
    }
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 1, "one fault maps the 2 MiB");
    k.handle_mm_fault_flags(vma, 7, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::ThpFaultAlloc), 0);
    assert_eq!(k.vmstat.nr_anon_pages, 1);
    // The next range, untouched, still gets a huge page on a store.
    k.handle_mm_fault_flags(vma, PAGEBLOCK_NR as u32, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::ThpFaultAlloc), 1);
    assert_invariants(k);
}

/// The PTE walks of a fault run (`pte_none()` per PTE, mm/memory.c `do_anonymous_page()` of
/// each page, 6.1) and of a touch over mapped pages count, eight entries at a time, exactly
/// the entries one at a time would: every position of the first change, in and across
/// chunks.
#[test]
fn fault_run_pte_walks_count_as_one_page_at_a_time_6_1() {
    use crate::memory::{mapped_prefix, unmapped_prefix};
    use crate::types::PageId;
    for len in [0usize, 1, 7, 8, 9, 16, 23, 64] {
        for first in 0..=len {
            let mut v = vec![PageId::NIL; len];
            for p in v.iter_mut().skip(first) {
                *p = PageId(5);
            }
            assert_eq!(unmapped_prefix(&v), first, "len {len}, first mapped {first}");
            let w: Vec<PageId> = v.iter().map(|p| if *p == PageId::NIL { PageId(3) } else { PageId::NIL }).collect();
            assert_eq!(mapped_prefix(&w), first, "len {len}, first unmapped {first}");
        }
    }
    // Frame 0 and frames with high bits set are mapped pages, not NIL.
    assert_eq!(unmapped_prefix(&[PageId::NIL; 8].iter().copied().chain([PageId(0)]).collect::<Vec<_>>()), 8);
    assert_eq!(mapped_prefix(&[PageId(u32::MAX - 1); 9]), 9);
}
