//! mlock (mm/mlock.c): `VM_LOCKED` VMAs fault their pages in and keep them on the
//! unevictable list, where reclaim does not look.
//!
//! Since 5.18 (Hugh Dickins' mlock rework, in 6.1) `mlock_folio()` moves a page mapped by a
//! locked VMA to `LRU_UNEVICTABLE` with `PG_active` cleared, a new page faulted into one goes
//! there at once (`lru_cache_add_inactive_or_unevictable()` -> `mlock_new_page()`), and
//! `munlock_page()` puts it back on the inactive list of its type once no locked VMA maps it;
//! earlier kernels reach the same lists through `mlock_vma_page()`/`munlock_vma_page()`. The
//! engine keeps a page, page cache or anonymous, on the unevictable list exactly while a
//! `VM_LOCKED` VMA maps it (`PG_mlocked` is that list): reclaim never meets it, so an
//! anonymous one is never swapped out, and memory.stat `unevictable` counts it.

use crate::kernel::Kernel;
use crate::memory::{FaultError, VmaId};
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::PageId;

impl Kernel {
    /// `mlock_folio()` -> `__mlock_page()` (6.1): move `p`, on an LRU list, to the
    /// unevictable list with `PG_active` cleared (under lru_gen out of its generation:
    /// `lru_gen_add_folio()` leaves an unevictable folio to the unevictable list).
    pub fn mlock_folio(&mut self, p: PageId) {
        let pg_ = &self.pages[p];
        if !pg_.test(pg::LRU) || pg_.lru() == LruList::Unevictable as u8 {
            return;
        }
        let v = self.folio_lruvec(p);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        self.pages[p].flags &= !pg::ACTIVE;
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
    }

    /// `mlock_new_page()` -> `__mlock_new_page()` (6.1): a new page (`nr` base pages: a huge
    /// page's head) faulted into a `VM_LOCKED` VMA goes straight to the unevictable list of
    /// lruvec `lv`, never inactive or active (`lru_cache_add_inactive_or_unevictable()`).
    pub(crate) fn mlock_new_page(&mut self, p: PageId, lv: usize) {
        self.pages[p].flags &= !pg::ACTIVE;
        self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
    }

    /// `munlock_page()` -> `__munlock_page()` (6.1): `p` is evictable again: off the
    /// unevictable list, onto the inactive list of its type (`add_page_to_lru_list()` with
    /// `PG_active` clear: the inactive anon list for a swap-backed page, the inactive file
    /// list otherwise; under lru_gen the generation `lru_gen_add_folio()` gives an inactive
    /// page: an anonymous one not in the swap cache the second oldest).
    pub fn munlock_folio(&mut self, p: PageId) {
        if !self.pages[p].test(pg::LRU) || self.pages[p].lru() != LruList::Unevictable as u8 {
            return;
        }
        let v = self.folio_lruvec(p);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        let lru = if self.pages[p].test(pg::SWAPBACKED) { LruList::InactiveAnon } else { LruList::InactiveFile };
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, lru);
    }

    /// `do_mlock()` -> `mlock_fixup()` + `__mm_populate()` (`lock`), or `munlock`: set or clear
    /// `VM_LOCKED`, then move the pages the VMA maps to or from the unevictable list
    /// (`mlock_vma_pages_range()` -> `mlock_pte_range()`: `mlock_folio()` or `munlock_page()`
    /// of each present page; a page cache page another locked VMA maps stays). mlock then
    /// faults every page in (`populate_vma_page_range()`, a read fault each, a write fault for
    /// a private writable mapping as `FOLL_WRITE` asks: `(vm_flags & (VM_WRITE | VM_SHARED))
    /// == VM_WRITE`; the engine's private mappings are writable unless `exec`): a new page
    /// goes to the unevictable list at once (`mlock_new_page()`), a page swapped out is read
    /// back (`do_swap_page()`, which frees its slot: `should_try_to_free_swap()`), and each
    /// page is marked accessed (`FOLL_TOUCH`: `PG_referenced`, so that after munlock a young
    /// PTE activates it at its first trip through reclaim, as 6.1 does). A fault
    /// whose charge fails ends in the memcg OOM killer (`Err`), as `try_charge_memcg()` ->
    /// `mem_cgroup_oom()` does for the populating task.
    pub fn do_mlock(&mut self, vma: VmaId, lock: bool) -> Result<(), FaultError> {
        self.cpu(self.cost.mmap_call);
        // mlock_vma_pages_range(): "lru_add_drain();" before the page walk (and after it).
        self.lru_add_drain();
        let v = vma.0 as usize;
        self.vmas[v].locked = lock;
        let n = self.vmas[v].pages.len() as u32;
        for i in 0..n {
            let p = self.vmas[v].pages[i as usize];
            if p == PageId::NIL || self.pages[p].test(pg::TAIL) {
                continue;
            }
            if lock {
                self.mlock_folio(p);
            } else if self.pages[p].test(pg::ANON) || !self.folio_locked_by_vma(p) {
                self.munlock_folio(p);
            }
        }
        if !lock {
            return Ok(());
        }
        let write = self.vmas[v].file.as_ref().map(|f| !f.shared && !f.exec);
        for i in 0..n {
            match write {
                Some(w) => self.handle_mm_fault_file(vma, i, w)?,
                None => self.handle_mm_fault(vma, i)?,
            }
            // follow_page_pte() with FOLL_TOUCH (6.1 mm/gup.c), for the page mapped or just
            // faulted in (the retry after faultin_page()): mark_page_accessed(), on the
            // unevictable list only PG_referenced (or lru_gen's refs), which the page keeps
            // for its first trip through reclaim after munlock. A huge page is not marked
            // (follow_trans_huge_pmd() only makes its PMD young).
            let p = self.vmas[v].pages[i as usize];
            if p != PageId::NIL && self.pages[p].flags & (pg::HEAD | pg::TAIL) == 0 {
                self.folio_mark_accessed(p);
            }
        }
        Ok(())
    }
}
