//! mm/huge_memory.c: the split of an anonymous transparent huge page that reclaim could not
//! swap out whole (`split_huge_page_to_list()`, 6.1), see swapfile.rs [`crate::swapfile::ThpSwapOut`].
//!
//! An anonymous THP is, in the engine, a `HEAD` frame and 511 `TAIL` frames, each named by
//! its VMA's page array (`Vma::pages[start + i]` = frame `head + i`), charged as 512 pages to
//! its memcg, counted as 512 in `nr_anon`/`NR_ANON_MAPPED`, one entry on the LRU holding 512
//! pages. Its page table was deposited and accounted at the fault (memory.rs `pte_alloc()`).

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::PageId;
use crate::page_alloc::PAGEBLOCK_NR;

impl Kernel {
    /// `split_huge_page_to_list(&folio->page, list)` (mm/huge_memory.c, 6.1) of the anonymous
    /// THP `head`, isolated by reclaim (off the LRU): `unmap_page()` splits its PMD first
    /// (`__split_huge_pmd()` -> `__split_huge_pmd_locked()`: the deposited page table is
    /// withdrawn and filled with 512 PTEs naming the pages, each as young and dirty as the PMD
    /// was - the engine's per-page young bits already are the PTEs'; `mm_nr_ptes` unchanged;
    /// `NR_ANON_THPS` less 512, which the engine does not keep; `THP_SPLIT_PMD`, not kept),
    /// then `__split_huge_page()` makes 512 order-0 pages in place: each tail takes the head's
    /// `PG_referenced`, `PG_active`, `PG_workingset`, `PG_swapbacked` (`__split_huge_page_tail()`)
    /// and its memcg (`split_page_memcg()`: the charge stays, 512 pages), and, the folio being
    /// isolated, goes on `list` (`lru_add_page_tail()`: "page reclaim is reclaiming a huge
    /// page": `list_add_tail(&tail->lru, list)`), in index order. `THP_SPLIT_PAGE`. Pages,
    /// charges, mappings and page tables are conserved; the head stays with the caller.
    pub(crate) fn split_huge_page_to_list(&mut self, head: PageId, list: &mut Vec<PageId>) {
        debug_assert!(self.pages[head].test(pg::HEAD) && self.pages[head].test(pg::ANON), "an anonymous THP");
        debug_assert!(!self.pages[head].test(pg::LRU), "reclaim splits an isolated THP");
        let keep = self.pages[head].flags & (pg::REFERENCED | pg::ACTIVE | pg::WORKINGSET | pg::SWAPBACKED | pg::ANON);
        let refs = self.pages[head].refs();
        self.pages[head].flags &= !pg::HEAD;
        for i in 1..PAGEBLOCK_NR as u32 {
            let t = PageId(head.0 + i);
            let page = &mut self.pages[t];
            debug_assert!(page.test(pg::TAIL));
            page.flags = (page.flags & !(pg::TAIL | pg::LRU)) | keep;
            page.prev = PageId::NIL;
            page.next = PageId::NIL;
            page.mapcount = 0;
            page.set_refs(refs);
            list.push(t);
        }
        self.shmem_stat.thp_split_page += 1;
    }
}

impl Kernel {
    /// `shrink_folio_list()`'s fallback when `add_to_swap()` of the anonymous THP `head` failed
    /// ([`crate::swapfile::SwapOut::NoSlot`]): whether it is split. 4.13+ (6.1: "Fallback to
    /// swap normal pages": `split_folio_to_list(folio, folio_list)`, which an isolated,
    /// unpinned anonymous THP passes (`can_split_folio()`), then `THP_SWPOUT_FALLBACK`, counted
    /// here) always; before 4.13 `add_to_swap()` splits only after `get_swap_page()` gave it a
    /// slot (no free slot: the THP is activated whole). The caller splits it
    /// ([`Kernel::split_huge_page_to_list`]) and tries `add_to_swap()` of the head again.
    pub(crate) fn thp_swap_fallback(&mut self, head: PageId) -> bool {
        if !self.pages[head].test(pg::HEAD) || !self.pages[head].test(pg::ANON) {
            return false;
        }
        if self.profile.thp_swapout == crate::swapfile::ThpSwapOut::Split {
            return self.swap.as_ref().is_some_and(|a| a.pages > a.inuse);
        }
        self.shmem_stat.thp_swpout_fallback += 1;
        true
    }
}
