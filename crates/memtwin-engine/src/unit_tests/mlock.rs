//! mlock of anonymous memory held to Linux 6.1 (mm/mlock.c after the 5.18 rework:
//! `mlock_folio()`, `mlock_new_page()`, `munlock_page()`; mm/memory.c
//! `should_try_to_free_swap()`; mm/madvise.c `can_madv_lru_vma()`).

use super::*;
use crate::memory::Vma;

/// A 16M memcg with 256M of swap (kernel `profile`, `extra` kernel lines): a task maps
/// `locked` (4M) and touches or mlocks it as `lock_ops` say, then a 20M `heap` touched twice
/// pushes the memcg past its limit, then the `tail` ops.
fn locked_and_heap(profile: &str, extra: &str, lock_ops: &str, tail: &str) -> String {
    format!(
        r#"
[scenario]
name = "mlock"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v2"
{extra}
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"memory.max" = "16M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "locked", size = "4M", step = "lock" }},
{lock_ops}
  {{ op = "mmap", name = "heap", size = "20M", step = "heap" }},
  {{ op = "touch", name = "heap", step = "heap" }},
  {{ op = "touch", name = "heap", step = "heap 2" }},
{tail}
]
"#
    )
}

const TOUCH_THEN_LOCK: &str = r#"  { op = "touch", name = "locked", step = "lock" },
  { op = "mlock", name = "locked", step = "lock" },"#;
const LOCK_UNTOUCHED: &str = r#"  { op = "mlock", name = "locked", step = "lock" },"#;

/// The live anonymous VMA of `pages` pages.
fn vma_of(k: &Kernel, pages: usize) -> &Vma {
    k.vmas.iter().find(|v| v.live && v.file.is_none() && v.pages.len() == pages).expect("the mapping")
}

/// mm/mlock.c 6.1: `mlock_folio()` moves the pages of an anonymous mapping that was touched to
/// the unevictable list, and reclaim (which scans only the evictable lists) never swaps them:
/// the 20M heap in a 16M memcg swaps its own pages only, the 4M locked stay resident without a
/// swap slot, memory.stat `unevictable` is 4M at every step.
#[test]
fn mlocked_anonymous_pages_stay_resident_under_swap_pressure_6_1() {
    for (profile, extra) in [("linux-6.1", ""), ("linux-6.1", "lru_gen = true")] {
        let res = sim(&locked_and_heap(profile, extra, TOUCH_THEN_LOCK, "")).run(&mut |_, _| true).unwrap();
        for step in ["lock", "heap", "heap 2"] {
            assert_eq!(step_metric(&res, step, "memcg.unevictable_bytes"), (4 << 20) as f64, "{profile} {extra}: {step}");
        }
        assert!(step_metric(&res, "heap 2", "vmstat.pswpout") > 0.0, "{extra}: the heap swaps");
        let mut s = sim(&locked_and_heap(profile, extra, TOUCH_THEN_LOCK, ""));
        run(&mut s);
        let ct = memcg(&s, "ct");
        let k = &s.kernel;
        let v = vma_of(k, 1024);
        assert!(v.locked);
        assert_eq!(v.nr_resident, 1024, "{extra}: every locked page resident");
        assert!(v.swap.iter().all(|&s| s == crate::swapfile::NO_SLOT), "{extra}: no locked page has a swap slot");
        assert_eq!(lru_size(k, ct, LruList::Unevictable), 1024);
        assert!(vma_of(k, 5120).swap.iter().any(|&s| s != crate::swapfile::NO_SLOT), "{extra}: the heap swapped");
        assert_invariants(k);
    }
}

/// mm/mlock.c 6.1 `mlock_new_page()`: mlock of an untouched mapping populates it
/// (`__mm_populate()`, write faults of a private writable mapping), each new page going to
/// the unevictable list at once: the anon lists never see it (no pgactivate, pgdeactivate or
/// pgscan of it), and memory.stat `anon` counts it.
#[test]
fn mlock_populates_onto_the_unevictable_list_6_1() {
    let toml = locked_and_heap("linux-6.1", "", LOCK_UNTOUCHED, "");
    let mut s = sim(&toml);
    while s.steps_done() < 1 {
        assert!(s.step(), "step lock");
    }
    let ct = memcg(&s, "ct");
    let k = &s.kernel;
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 1024);
    assert_eq!(lru_size(k, ct, LruList::InactiveAnon) + lru_size(k, ct, LruList::ActiveAnon), 0);
    assert_eq!(vma_of(k, 1024).nr_resident, 1024);
    assert_eq!(k.memcgs.anon_pages(ct), 1024);
    assert_invariants(k);
}

/// mm/mlock.c 6.1 `munlock_page()` -> `__munlock_page()`: munlock puts each page back on the
/// inactive anon list (`PG_active` was cleared at mlock), where reclaim finds it. mlock's
/// populate marked every page accessed (mm/gup.c `follow_page_pte()` with `FOLL_TOUCH`:
/// `PG_referenced`), and its PTE is young from its fault, so at its first trip through reclaim
/// `folio_check_references()` activates it: heap 3's pgactivate counts the 1024.
#[test]
fn munlock_makes_anonymous_pages_swappable_again_6_1() {
    let tail = r#"  { op = "munlock", name = "locked", step = "munlock" },
  { op = "touch", name = "heap", step = "heap 3" },"#;
    let mut s = sim(&locked_and_heap("linux-6.1", "", TOUCH_THEN_LOCK, tail));
    let ct = memcg(&s, "ct");
    // Steps lock, heap, heap 2, munlock.
    while s.steps_done() < 4 {
        assert!(s.step());
    }
    // After the munlock op: no unevictable page, the 1024 on the inactive anon list.
    let k = &s.kernel;
    assert!(!vma_of(k, 1024).locked);
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 0);
    let v = vma_of(k, 1024);
    let inactive = v.pages.iter().filter(|&&p| lru_of(k, p) == Some(LruList::InactiveAnon)).count();
    assert_eq!(inactive, 1024, "every munlocked page on the inactive anon list");
    assert!(v.pages.iter().all(|&p| k.pages[p].test(pg::REFERENCED)), "FOLL_TOUCH marked every page");
    assert_invariants(k);
    let before = k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgactivate);
    run(&mut s);
    let k = &s.kernel;
    let activated = k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgactivate) - before;
    assert!(activated >= 1024, "heap 3 activated the formerly locked pages ({activated})");
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 0);
    assert_invariants(k);
}

/// mm/memory.c 6.1 `should_try_to_free_swap()`: "(vma->vm_flags & VM_LOCKED) ||
/// folio_test_mlocked(folio)" frees the slot of a page read back into a locked VMA, even for a
/// load with swap far from full.
#[test]
fn should_try_to_free_swap_frees_a_locked_vmas_slot_6_1() {
    let s = sim(&locked_and_heap("linux-6.1", "", TOUCH_THEN_LOCK, ""));
    let ct = memcg(&s, "ct");
    let k = &s.kernel;
    assert!(!k.should_try_to_free_swap(ct, false, false), "a load, swap empty");
    assert!(k.should_try_to_free_swap(ct, false, true), "a load into a VM_LOCKED VMA");
    assert!(k.should_try_to_free_swap(ct, true, false), "a store");
}

/// mm/madvise.c 6.1 `can_madv_lru_vma()` / `madvise_dontneed_free_valid_vma()`:
/// MADV_DONTNEED, MADV_COLD and MADV_PAGEOUT of a VM_LOCKED VMA fail with EINVAL and leave its
/// pages alone.
#[test]
fn madvise_of_a_locked_vma_is_einval_6_1() {
    use crate::scenario::model::MAdvice;
    let mut s = sim(&locked_and_heap("linux-6.1", "", LOCK_UNTOUCHED, ""));
    while s.steps_done() < 1 {
        assert!(s.step());
    }
    let ct = memcg(&s, "ct");
    let vma = crate::memory::VmaId(s.kernel.vmas.iter().position(|v| v.live && v.locked).unwrap() as u32);
    for advice in [MAdvice::DontNeed, MAdvice::Cold, MAdvice::PageOut] {
        assert_eq!(s.kernel.do_madvise(vma, 0, 1024, advice), Err(crate::madvise::MadviseError::Inval), "{advice:?}");
    }
    assert_eq!(lru_size(&s.kernel, ct, LruList::Unevictable), 1024);
    assert_invariants(&s.kernel);
}
