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
    /// `NR_ANON_THPS` less 512, which the engine does not keep; `THP_SPLIT_PMD`, counted),
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
        self.shmem_stat.thp_split_pmd += 1;
        self.shmem_stat.thp_split_page += 1;
    }
}

impl Kernel {
    /// `split_huge_page(page)` (mm/huge_memory.c 6.1: `split_huge_page_to_list(page, NULL)`)
    /// of the PMD-mapped anonymous THP `head` on an LRU list, as
    /// `madvise_cold_or_pageout_pte_range()` splits one its range covers in part: the split of
    /// [`Kernel::split_huge_page_to_list`] (THP_SPLIT_PMD, THP_SPLIT_PAGE; flags, memcg and
    /// charge kept; `remap_page()` maps the 512 pages again by PTEs as young as the PMD was,
    /// the engine's per-page bits), but with the head on the LRU: the head keeps its place and
    /// each tail goes on its list right before it (`lru_add_page_tail(head, tail, lruvec,
    /// NULL)`: "head is still on lru": `list_add_tail(&tail->lru, &head->lru)`, tails 511 down
    /// to 1), so reclaim, from the list's tail, meets the head and then tails 1 to 511. The
    /// list's page count is unchanged (512 pages, now 512 entries).
    pub(crate) fn split_huge_page(&mut self, head: PageId) {
        debug_assert!(self.pages[head].test(pg::LRU), "split_huge_page() of a THP on the LRU");
        let v = self.folio_lruvec(head);
        let list = self.pages[head].lru() as usize;
        let prev = self.pages[head].prev;
        self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, head);
        let mut tails = Vec::with_capacity(PAGEBLOCK_NR as usize - 1);
        self.split_huge_page_to_list(head, &mut tails);
        let link_before = |k: &mut Kernel, before: PageId, p: PageId| {
            // (list_add_tail(&p->lru, &before->lru): between `before`'s newer neighbour and it)
            match k.pages[before].prev {
                PageId::NIL => k.lruvecs[v].link(&mut k.pages, &mut k.lru_stats, p, list),
                newer => k.lruvecs[v].link_after(&mut k.pages, &mut k.lru_stats, newer, p, list),
            }
        };
        match prev {
            PageId::NIL => self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, head, list),
            newer => self.lruvecs[v].link_after(&mut self.pages, &mut self.lru_stats, newer, head, list),
        }
        for &t in tails.iter().rev() {
            link_before(self, head, t);
        }
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

impl Kernel {
    /// `split_huge_pmd_address()` -> `__split_huge_pmd()` -> `__split_huge_pmd_locked()`
    /// (mm/huge_memory.c, 6.1) of the PMD mapping the anonymous THP `head`, called by
    /// `try_to_unmap_one()` for `TTU_SPLIT_HUGE_PMD` (`shrink_folio_list()` passes it for a
    /// PMD-mappable folio): `THP_SPLIT_PMD`; the deposited page table is withdrawn
    /// (`pgtable_trans_huge_withdraw()`) and filled with 512 PTEs naming the subpages, each
    /// as young as the PMD was (the engine's per-page young bits already are the PTEs', and
    /// its page-table count took the deposited table at the fault: `mm_nr_ptes` unchanged);
    /// the compound mapcount goes (`NR_ANON_THPS` less 512, not kept by the engine). The
    /// folio stays one large folio; the caller unmaps the PTEs
    /// ([`Kernel::try_to_unmap_swapped`]).
    pub(crate) fn split_huge_pmd_address(&mut self, head: PageId) {
        debug_assert!(self.pages[head].test(pg::HEAD) && self.pages[head].test(pg::ANON), "a PMD-mapped anonymous THP");
        self.shmem_stat.thp_split_pmd += 1;
    }

    /// The split of the unmapped large swap-cache folio `head` (a THP written whole:
    /// [`Kernel::try_to_unmap_swapped`]) into 512 base swap-cache pages, each at its own slot
    /// (mm/huge_memory.c 6.1 `__split_huge_page()` of a swap-cache folio: each tail's
    /// `private` is `head->private + i` and `__xa_store()` puts it at its slot of the swap
    /// cache), on the LRU right after the head in index order (`lru_add_page_tail()` of a
    /// folio on the LRU: `list_add_tail(&tail->lru, &head->lru)`), each with the head's
    /// `PG_referenced`, `PG_active`, `PG_workingset`, `PG_swapbacked`, `PG_swapcache`,
    /// `PG_dirty` and memcg. The charge, the unmapped swap-cache counts and the slots are
    /// conserved.
    ///
    /// Not the kernel's path: 6.1 splits no folio here. A fault on one of its pages maps that
    /// subpage and leaves the folio large (`do_swap_page()`), and `free_swap_and_cache()` of
    /// its entries frees it at the last one (`__try_to_reclaim_swap()` ->
    /// `folio_free_swap()`, which waits for `folio_swapped()` false); `split_huge_page()`
    /// itself refuses a folio under writeback (-EBUSY). The engine, which keeps no partly
    /// mapped or partly freed large swap-cache folio, splits it instead at the first such
    /// event ([`Kernel::do_swap_page`], [`Kernel::swap_free`]); a folio under writeback gives
    /// each page its write (in flight, the same completion; a plugged write is dispatched
    /// first). Not counted in THP_SPLIT_PAGE (the kernel did not split it).
    pub(crate) fn split_swapcache_thp(&mut self, head: PageId) {
        debug_assert!(self.pages[head].test(pg::HEAD) && self.pages[head].test(pg::SWAPCACHE), "a large swap-cache folio");
        debug_assert!(self.pages[head].mapping == crate::swapfile::SWAPPER, "unmapped");
        if self.pages[head].test(pg::WRITEBACK) && self.wb_done.get(head.idx()) == Some(&crate::types::Nanos::MAX) {
            // Its write is still in the task's plug (blk_flush_plug() counts a folio's pages
            // by PG_head): dispatch it first.
            self.blk_flush_plug();
        }
        let slot = self.pages[head].index;
        let keep = self.pages[head].flags
            & (pg::REFERENCED | pg::ACTIVE | pg::WORKINGSET | pg::SWAPBACKED | pg::ANON | pg::SWAPCACHE | pg::DIRTY | pg::WRITEBACK | pg::RECLAIM);
        let refs = self.pages[head].refs();
        let writeback = self.pages[head].test(pg::WRITEBACK);
        let done = if writeback { self.wb_done[head.idx()] } else { 0 };
        let on_lru = self.pages[head].test(pg::LRU);
        debug_assert!(on_lru, "an unmapped swap-cache THP outside reclaim is on the LRU");
        let v = self.folio_lruvec(head);
        let list = self.pages[head].lru() as usize;
        if on_lru {
            self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, head);
        }
        self.pages[head].flags &= !pg::HEAD;
        if writeback {
            let last = head.idx() + PAGEBLOCK_NR as usize;
            if self.wb_done.len() < last {
                self.wb_done.resize(last, 0);
            }
        }
        for i in 1..PAGEBLOCK_NR as u32 {
            let t = PageId(head.0 + i);
            let page = &mut self.pages[t];
            debug_assert!(page.test(pg::TAIL) && page.mapping == crate::swapfile::SWAPPER && page.index == slot + i);
            page.flags = (page.flags & !(pg::TAIL | pg::LRU)) | keep;
            page.prev = PageId::NIL;
            page.next = PageId::NIL;
            page.mapcount = 0;
            page.set_refs(refs);
            self.swap.as_mut().expect("swap area").cache_set(slot + i, t);
            if writeback {
                // (the folio's write counted once in nr_writeback; now one a page)
                self.vmstat.nr_writeback += 1;
                self.wb_done[t.idx()] = done;
                self.swap_wb_queue.push(std::cmp::Reverse((done, t.0)));
            }
        }
        if on_lru {
            self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, head, list);
            let mut prev = head;
            for i in 1..PAGEBLOCK_NR as u32 {
                let t = PageId(head.0 + i);
                self.lruvecs[v].link_after(&mut self.pages, &mut self.lru_stats, prev, t, list);
                prev = t;
            }
        }
    }
}
