//! `madvise()` of file and anonymous mappings (mm/madvise.c).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::memory::VmaId;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::scenario::model::MAdvice;
use crate::types::{MemcgId, PageId};
use crate::vmstat::VmEvent;

/// Why madvise() failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MadviseError {
    /// `EINVAL`: the advice is unknown to this kernel (COLD/PAGEOUT before 5.4), or it drops
    /// or reclaims pages of a `VM_LOCKED` VMA.
    Inval,
}

impl Kernel {
    /// `do_madvise()` on pages `first..end` of `vma`: `MADV_NORMAL`/`SEQUENTIAL`/`RANDOM` set
    /// the VMA's `VM_SEQ_READ`/`VM_RAND_READ` (`madvise_behavior()`); `WILLNEED` reads the
    /// file range ahead (`madvise_willneed()` -> `vfs_fadvise(POSIX_FADV_WILLNEED)`) or, on
    /// anonymous memory, reads its swapped-out pages into the swap cache
    /// ([`Kernel::force_swapin_readahead`]); `DONTNEED` zaps the range
    /// (`madvise_dontneed_single_vma()`); `COLD` and `PAGEOUT` (5.4+) deactivate or reclaim the
    /// pages only this VMA maps (`madvise_cold_or_pageout_pte_range()`). `DONTNEED`, `COLD` and
    /// `PAGEOUT` of a `VM_LOCKED` VMA fail with `EINVAL`. mm/madvise.c 6.1 `do_madvise()` runs
    /// the walk under the task's block plug (`blk_start_plug()` .. `blk_finish_plug()`): the
    /// swap writes of `PAGEOUT` and the swap reads of `WILLNEED` leave as merged requests.
    pub fn do_madvise(&mut self, vma: VmaId, first: u32, end: u32, advice: MAdvice) -> Result<(), MadviseError> {
        self.cpu(self.cost.syscall);
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        if matches!(advice, MAdvice::Cold | MAdvice::PageOut) && !self.profile.madv_cold_pageout {
            return Err(MadviseError::Inval);
        }
        if matches!(advice, MAdvice::DontNeed | MAdvice::Cold | MAdvice::PageOut) && self.vmas[v].locked {
            // can_madv_lru_vma() / madvise_dontneed_free_valid_vma() (6.1): not on a
            // VM_LOCKED VMA (-EINVAL; MADV_DONTNEED_LOCKED, 5.18+, is not modelled).
            return Err(MadviseError::Inval);
        }
        if matches!(advice, MAdvice::DontNeed | MAdvice::Cold | MAdvice::PageOut) {
            // madvise_dontneed_single_vma() -> zap_page_range(), madvise_cold(),
            // madvise_pageout(): "lru_add_drain();" first.
            self.lru_add_drain();
        }
        if matches!(advice, MAdvice::Cold | MAdvice::PageOut) {
            // madvise_cold() / madvise_pageout() (6.1): can_madv_lru_vma(); can_do_pageout()
            // is true for anonymous VMAs and for files the caller may write (always here).
            let plugged = advice == MAdvice::PageOut && self.blk_start_plug();
            self.madvise_cold_or_pageout(vma, first, end, advice == MAdvice::PageOut);
            if plugged {
                self.blk_finish_plug();
            }
            return Ok(());
        }
        let Some(f) = self.vmas[v].file.as_mut() else {
            // Anonymous memory: DONTNEED frees; SEQUENTIAL/RANDOM set flags nothing anonymous
            // reads; WILLNEED reads the swapped-out pages back.
            match advice {
                MAdvice::DontNeed => self.zap_anon_range(vma, first, end),
                MAdvice::WillNeed => {
                    let plugged = self.blk_start_plug();
                    self.force_swapin_readahead(vma, first, end);
                    if plugged {
                        self.blk_finish_plug();
                    }
                }
                _ => {}
            }
            return Ok(());
        };
        match advice {
            MAdvice::Normal => (f.seq_read, f.rand_read) = (false, false),
            MAdvice::Sequential => (f.seq_read, f.rand_read) = (true, false),
            MAdvice::Random => (f.seq_read, f.rand_read) = (false, true),
            MAdvice::WillNeed => {
                let (inode, pgoff) = (f.inode, f.pgoff);
                self.generic_fadvise(inode, pgoff + first, pgoff + end - 1, crate::fadvise::Advice::WillNeed, memcg);
            }
            MAdvice::DontNeed => self.zap_file_range(vma, first, end),
            MAdvice::Cold | MAdvice::PageOut => unreachable!("handled above"),
        }
        Ok(())
    }

    /// `zap_page_range()` of anonymous pages `first..end` of `vma` (MADV_DONTNEED): each PTE's
    /// page, swap entry or zero page goes ([`Kernel::zap_anon_pte`]).
    fn zap_anon_range(&mut self, vma: VmaId, first: u32, end: u32) {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let mut freed = 0;
        for i in first..end {
            freed += self.zap_anon_pte(vma, i) as u64;
        }
        self.uncharge_anon(memcg, freed, freed);
    }

    /// mm/madvise.c 6.1 `madvise_cold_or_pageout_pte_range()` over pages `first..end` of
    /// `vma` (file or anonymous), one page table (a 2 MiB range, in address order) at a time:
    /// each present page mapped by this VMA alone and on an LRU ("`!PageLRU(page) ||
    /// page_mapcount(page) != 1`: skip"; the private copies of a file VMA are its anonymous
    /// pages and count too) loses its young PTE and `PG_referenced`; `COLD` deactivates it
    /// (`deactivate_page()` -> `lru_deactivate_fn()`: an active page to its type's inactive
    /// list, PGDEACTIVATE), `PAGEOUT` isolates it (`isolate_lru_page()`) onto the page table's
    /// list, which goes to `reclaim_pages()` at the end of each page table (see
    /// [`Kernel::reclaim_page_madvise`] and [`Kernel::reclaim_anon_page_madvise`]).
    ///
    /// A PMD-mapped anonymous THP (`pmd_trans_huge(*pmd)`, the function's first branch) is
    /// handled whole when the range covers its 2 MiB (`next - addr == HPAGE_PMD_SIZE`): the PMD
    /// made old (`pmd_mkold()`: the engine's 512 per-page young bits), `ClearPageReferenced()`,
    /// then `deactivate_page()` (PGDEACTIVATE of its 512 pages when active) or
    /// `isolate_lru_page()` and `reclaim_pages()` of it alone (written whole or split there,
    /// as reclaim does: [`Kernel::reclaim_anon_page_madvise`]). One the range covers in part is
    /// split first (`split_huge_page()`: [`Kernel::split_huge_page`], THP_SPLIT_PMD and
    /// THP_SPLIT_PAGE), and its pages in the range are then walked as base pages
    /// (`goto regular_page`). A large page-cache folio mapped by PTEs (which 6.1's PTE loop
    /// would split, `PageTransCompound()`) is skipped: not modelled.
    fn madvise_cold_or_pageout(&mut self, vma: VmaId, first: u32, end: u32, pageout: bool) {
        const PMD_NR: u32 = crate::page_alloc::PAGEBLOCK_NR as u32;
        let v = vma.0 as usize;
        let mut deactivated = 0;
        let mut list: Vec<PageId> = Vec::new();
        let end = end.min(self.vmas[v].pages.len() as u32);
        let mut addr = first;
        while addr < end {
            // pmd_addr_end(addr, end): this page table's part of the range.
            let next = ((addr / PMD_NR + 1) * PMD_NR).min(end);
            if let Some(head) = self.pmd_trans_huge(vma, addr) {
                if next - addr == PMD_NR {
                    deactivated += self.madvise_cold_or_pageout_thp(vma, head, addr, pageout);
                    addr = next;
                    continue;
                }
                // "if (next - addr != HPAGE_PMD_SIZE)": split_huge_page(), then the PTEs.
                self.split_huge_page(head);
            }
            for i in addr..next {
                deactivated += self.madvise_cold_or_pageout_pte(vma, i, pageout, &mut list);
            }
            if pageout {
                // The page table's list to reclaim_pages() at the end of its walk.
                self.reclaim_pages_madvise(&mut list);
            }
            addr = next;
        }
        self.vmstat.count(VmEvent::Pgdeactivate, deactivated);
    }

    /// The PMD-mapped anonymous THP mapping page `addr` of `vma` (`pmd_trans_huge(*pmd)`, a
    /// PMD this VMA alone maps: no fork sharing is modelled), if any, on an LRU list (or
    /// `isolate_lru_page()` / `split_huge_page()` would find it isolated elsewhere).
    fn pmd_trans_huge(&self, vma: VmaId, addr: u32) -> Option<PageId> {
        let vm = &self.vmas[vma.0 as usize];
        if vm.file.is_some() {
            return None;
        }
        let base = addr & !(crate::page_alloc::PAGEBLOCK_NR as u32 - 1);
        let head = *vm.pages.get(base as usize)?;
        if head == PageId::NIL {
            return None;
        }
        let p = &self.pages[head];
        (p.test(pg::HEAD) && p.test(pg::ANON) && p.test(pg::LRU) && p.mapping == crate::types::InodeId(vma.0) && vm.pages[addr as usize] == PageId(head.0 + (addr - base))).then_some(head)
    }

    /// `madvise_cold_or_pageout_pte_range()`'s first branch for the PMD-mapped THP `head`
    /// mapped at `addr..addr + 512` of `vma`, the range covering it whole: the PMD made old,
    /// `ClearPageReferenced()`, `test_and_clear_page_young()`; an unevictable one is put back;
    /// `COLD`: `deactivate_page()` (returns the pages deactivated, PGDEACTIVATE of the folio's
    /// 512 in its memcg here); `PAGEOUT`: `isolate_lru_page()`, then `reclaim_pages()` of it
    /// alone at `huge_unlock`.
    fn madvise_cold_or_pageout_thp(&mut self, vma: VmaId, head: PageId, addr: u32, pageout: bool) -> u64 {
        const PMD_NR: u32 = crate::page_alloc::PAGEBLOCK_NR as u32;
        let v = vma.0 as usize;
        self.cpu(self.cost.scan_page);
        for i in addr..addr + PMD_NR {
            // pmdp_invalidate() + pmd_mkold(): the PMD's accessed bit, the engine's per-page bits.
            self.vmas[v].test_and_clear_young(i);
        }
        self.pages[head].flags &= !pg::REFERENCED;
        if self.pages[head].lru() == LruList::Unevictable as u8 {
            return 0;
        }
        let lv = self.folio_lruvec(head);
        if !pageout {
            if !self.pages[head].test(pg::ACTIVE) {
                return 0;
            }
            self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, head);
            self.pages[head].flags &= !pg::ACTIVE;
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, head, LruList::InactiveAnon);
            let owner = self.pages[head].memcg;
            let nr = PMD_NR as u64;
            self.memcgs.count_event(if owner == MemcgId::NONE { MemcgId::ROOT } else { owner }, MemcgEvent::Pgdeactivate, nr);
            return nr;
        }
        self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, head);
        let mut list = vec![head];
        self.reclaim_pages_madvise(&mut list);
        0
    }

    /// `madvise_cold_or_pageout_pte_range()`'s PTE loop body for page `i` of `vma`: returns
    /// the pages `COLD` deactivated; `PAGEOUT` isolates onto `list`.
    fn madvise_cold_or_pageout_pte(&mut self, vma: VmaId, i: u32, pageout: bool, list: &mut Vec<PageId>) -> u64 {
        let v = vma.0 as usize;
        let p = self.vmas[v].pages[i as usize];
        // An anonymous page is mapped by its one VMA (`Page::mapcount` stays 0: no fork
        // sharing is modelled), so the mapcount rule skips file pages only.
        if p == PageId::NIL {
            return 0;
        }
        let shared = !self.pages[p].test(pg::ANON) && self.pages[p].mapcount != 1;
        if !self.pages[p].test(pg::LRU) || shared || self.pages[p].test(pg::HEAD) {
            return 0;
        }
        self.cpu(self.cost.scan_page);
        // ptep_get_and_clear_full() + pte_mkold(); ClearPageReferenced().
        match self.vmas[v].file.as_mut() {
            Some(f) => f.set_young(i, false),
            None => {
                self.vmas[v].test_and_clear_young(i);
            }
        }
        self.pages[p].flags &= !pg::REFERENCED;
        if self.pages[p].lru() == LruList::Unevictable as u8 {
            return 0;
        }
        if !pageout {
            if self.pages[p].test(pg::ACTIVE) {
                let lv = self.folio_lruvec(p);
                let anon = self.pages[p].test(pg::ANON);
                self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
                self.pages[p].flags &= !pg::ACTIVE;
                let to = if anon { LruList::InactiveAnon } else { LruList::InactiveFile };
                self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, to);
                // lru_deactivate_fn(): __count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE)
                // for the page's own memcg, not the VMA's (review48 L3)
                let owner = self.pages[p].memcg;
                self.memcgs.count_event(if owner == MemcgId::NONE { MemcgId::ROOT } else { owner }, MemcgEvent::Pgdeactivate, 1);
                return 1;
            }
            return 0;
        }
        // isolate_lru_page(): off its list; "list_add(&page->lru, &page_list)".
        let lv = self.folio_lruvec(p);
        self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
        list.push(p);
        0
    }

    /// mm/vmscan.c 6.1 `reclaim_pages()` of the pages `MADV_PAGEOUT` isolated from one page
    /// table (`list`, emptied), in address order (`list_add()` then `list_move()` reverse it
    /// twice): `folio_clear_active()`, then `shrink_folio_list()` of each, a file page by
    /// [`Kernel::reclaim_page_madvise`], an anonymous one (an anonymous VMA's, or a private
    /// copy in a file VMA) by [`Kernel::reclaim_anon_page_madvise`]. PGACTIVATE is counted in
    /// vmstat per page activated (`count_vm_events(PGACTIVATE, pgactivate)` at the end).
    fn reclaim_pages_madvise(&mut self, list: &mut Vec<PageId>) {
        for p in std::mem::take(list) {
            self.pages[p].flags &= !pg::ACTIVE;
            if self.pages[p].test(pg::ANON) {
                self.reclaim_anon_page_madvise(p);
            } else {
                self.reclaim_page_madvise(p);
            }
        }
    }

    /// mm/vmscan.c 6.1 `shrink_folio_list()` of one base anonymous page `p` that `MADV_PAGEOUT`
    /// isolated (`reclaim_folio_list()`'s scan_control: no target memcg, so
    /// `writeback_throttling_sane()`; `may_writepage`, `may_unmap`, `may_swap`;
    /// `ignore_references = false`), off the LRU with `PG_active` cleared. In the function's
    /// order: a page under writeback (a swap-out a fault caught mapped) is marked `PG_reclaim`
    /// and activated (case 2); `folio_check_references()` finds no reference (madvise cleared
    /// the young PTE and `PG_referenced`): FOLIOREF_RECLAIM. A page not in the swap cache gets
    /// a slot (`add_to_swap()`: none without a swap area, with the area full or over
    /// memory.swap.max, and the page is activated: `activate_locked_split`), is unmapped
    /// (`try_to_unmap()`: the PTE holds the swap entry; memory.stat `anon` drops) and written
    /// (`pageout()` -> `swap_writepage()`, pswpout; zswap first): under writeback it goes back
    /// to the inactive list (`keep`, `folio_putback_lru()`: the lru_add batch) and stays in the
    /// swap cache, charged, until reclaim frees it; one zswap took is clean and freed now
    /// (`__remove_mapping()`, a shadow for the root's lruvec: `sc->target_mem_cgroup` NULL).
    /// A page already in the swap cache (a load swapped it in) is unmapped and freed when clean
    /// (no write), written to its slot again when dirty. An activated page counts memcg
    /// PGACTIVATE (`count_memcg_folio_events()`) and vmstat PGACTIVATE; no PGSCAN/PGSTEAL
    /// (`shrink_inactive_list()`'s only).
    pub(crate) fn reclaim_anon_page_madvise(&mut self, p: PageId) {
        let owner = self.pages[p].memcg;
        let nr = self.pages.folio_nr_pages(p);
        if self.pages[p].test(pg::WRITEBACK) {
            // Case 2 (writeback_throttling_sane(): no target memcg).
            self.pages[p].flags |= pg::RECLAIM;
            return self.activate_anon_madvise(p, owner);
        }
        // folio_check_references(): the young PTE and PG_referenced were just cleared.
        let ptes = self.anon_referenced(p) as u32;
        let referenced_folio = self.pages[p].test(pg::REFERENCED);
        self.pages[p].flags &= !pg::REFERENCED;
        if ptes > 0 {
            self.pages[p].flags |= pg::REFERENCED;
        }
        match crate::vmscan::folio_references(ptes, referenced_folio, false) {
            crate::vmscan::FolioRef::Activate => return self.activate_anon_madvise(p, owner),
            crate::vmscan::FolioRef::Keep => {
                self.folio_add_lru(p);
                return;
            }
            _ => {}
        }
        if self.pages[p].test(pg::SWAPCACHE) {
            // Mapped from the swap cache: try_to_unmap(), then freed when clean (no write),
            // or pageout() to its slot when dirty (back on the inactive list under writeback).
            self.free_swapped_page_shadow(p, Some(MemcgId::ROOT));
            return;
        }
        let mut res = self.swap_writepage_res(p);
        if res == crate::swapfile::SwapOut::NoSlot && nr > 1 && self.thp_swap_fallback(p) {
            // add_to_swap() of a THP failed: "Fallback to swap normal pages":
            // split_folio_to_list(folio, folio_list), THP_SWPOUT_FALLBACK; its tails go on the
            // list reclaim_pages() gave shrink_folio_list() and are reclaimed after the head,
            // in index order; the head tries add_to_swap() again.
            let mut tails = Vec::new();
            self.split_huge_page_to_list(p, &mut tails);
            res = self.swap_writepage_res(p);
            self.reclaim_anon_written(p, res, owner);
            for t in tails {
                self.reclaim_anon_page_madvise(t);
            }
            return;
        }
        self.reclaim_anon_written(p, res, owner);
    }

    /// The end of [`Kernel::reclaim_anon_page_madvise`] for the folio `p` that
    /// `add_to_swap()` + `pageout()` gave `res`: not written (no slot, or
    /// AOP_WRITEPAGE_ACTIVATE) it is activated (`activate_locked_split`); written by zswap it
    /// is clean and freed now (`__remove_mapping()`, a shadow for the root's lruvec:
    /// `sc->target_mem_cgroup` NULL); under writeback it goes back to the inactive list
    /// (`keep`, `folio_putback_lru()`: the lru_add batch) and stays in the swap cache, charged.
    fn reclaim_anon_written(&mut self, p: PageId, res: crate::swapfile::SwapOut, owner: MemcgId) {
        if res != crate::swapfile::SwapOut::Written {
            return self.activate_anon_madvise(p, owner);
        }
        if !self.pages[p].test(pg::WRITEBACK) {
            // zswap took it (the write started and ended in swap_writepage()): clean, freed.
            self.free_swapped_page_shadow(p, Some(MemcgId::ROOT));
            return;
        }
        // PAGE_SUCCESS under writeback: keep; folio_putback_lru() -> folio_add_lru().
        self.folio_add_lru(p);
    }

    /// `shrink_folio_list()`'s `activate_locked` for the anonymous folio `p` reclaim_pages()
    /// gave it (owned by `owner`): "if (folio_test_swapcache(folio) &&
    /// (mem_cgroup_swap_full(folio) || ...)) folio_free_swap(folio);", `PG_active`, back on
    /// the LRU (`folio_putback_lru()`), "stat->nr_activate[type] += nr_pages;
    /// count_memcg_folio_events(folio, PGACTIVATE, nr_pages);" (vmstat PGACTIVATE too).
    fn activate_anon_madvise(&mut self, p: PageId, owner: MemcgId) {
        if self.pages[p].test(pg::SWAPCACHE) && self.mem_cgroup_swap_full(owner) {
            self.folio_free_swap(p);
        }
        let nr = self.pages.folio_nr_pages(p);
        self.pages[p].flags |= pg::ACTIVE;
        self.folio_add_lru(p);
        self.memcgs.count_event(owner, MemcgEvent::Pgactivate, nr);
        self.vmstat.count(VmEvent::Pgactivate, nr);
    }

    /// mm/madvise.c 6.1 `madvise_willneed()` of an anonymous VMA: `walk_page_range()` with
    /// `swapin_walk_pmd_entry()`, which for each PTE of pages `first..end` of `vma` holding a
    /// swap entry calls `read_swap_cache_async(entry, GFP_HIGHUSER_MOVABLE, vma, addr, false,
    /// &splug)`: a page not in the swap cache is allocated, charged (to the memcg the slot was
    /// charged to, `mem_cgroup_swapin_charge_folio()`), added to the swap cache and the LRU and
    /// read (`swap_readpage()`, pswpin; from zswap when it holds the slot), not marked
    /// `PG_readahead` (no swap_ra); the reads wait in `do_madvise()`'s plug and leave merged.
    /// Then "lru_add_drain(); /* Push any new pages onto the LRU now */". A later access finds
    /// the page in the swap cache: a minor fault (`do_swap_page()` -> `swap_cache_get_folio()`).
    /// Nothing is waited for.
    pub fn force_swapin_readahead(&mut self, vma: VmaId, first: u32, end: u32) {
        let v = vma.0 as usize;
        if self.swap.is_none() {
            return;
        }
        let (memcg, nid) = (self.vmas[v].memcg, self.cur_nid);
        let end = end.min(self.vmas[v].pages.len() as u32).min(self.vmas[v].swap.len() as u32);
        for i in first..end {
            let slot = self.vmas[v].swap[i as usize];
            if slot == crate::swapfile::NO_SLOT || self.vmas[v].pages[i as usize] != PageId::NIL {
                continue; // not a swap PTE
            }
            self.cpu(self.cost.scan_page);
            if !self.read_swap_cache_async(slot, false, nid, memcg) {
                continue; // in the swap cache already, or no memory
            }
            let page = self.swap.as_ref().expect("swap area").cache_get(slot);
            if self.zswap_load(slot, page) {
                continue;
            }
            // swap_readpage() into the plug: a back merge into its newest request, or a new
            // one (the plug flushed first when blk_add_rq_to_plug() says so).
            debug_assert!(self.swap_plug.active, "do_madvise() plugs");
            self.swap_ra_read(slot as u64);
        }
        self.lru_add_drain();
    }

    /// mm/vmscan.c 6.1 `reclaim_pages()` -> `reclaim_folio_list()` -> `shrink_folio_list(...,
    /// ignore_references = false)` of one file page `MADV_PAGEOUT` isolated (not kswapd, no
    /// target memcg: `writeback_throttling_sane()`). `reclaim_pages()` clears `PG_active`
    /// first. In `shrink_folio_list()`'s order: a locked folio is kept (back inactive); one
    /// under writeback is marked `PG_reclaim` and activated (case 2); references (its young
    /// PTE and `PG_referenced` were just cleared: FOLIOREF_RECLAIM) lead to `try_to_unmap()`;
    /// a dirty file folio is then, not being kswapd's, marked `PG_reclaim` ("Immediately
    /// reclaim when written back") and activated (`activate_locked`, PGACTIVATE); a clean one
    /// is evicted. No PGSTEAL: only shrink_inactive_list() counts it. `p` comes isolated
    /// (off its list, `PG_active` cleared: [`Kernel::reclaim_pages_madvise`]).
    fn reclaim_page_madvise(&mut self, p: PageId) {
        let lv = self.folio_lruvec(p);
        let owner = self.pages[p].memcg;
        if self.folio_test_locked(p) {
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            return;
        }
        let activate = |k: &mut Kernel, p: PageId| {
            k.pages[p].flags |= pg::RECLAIM | pg::ACTIVE;
            k.lruvecs[lv].add(&mut k.pages, &mut k.lru_stats, p, LruList::ActiveFile);
            k.memcgs.count_event(owner, MemcgEvent::Pgactivate, 1);
            k.vmstat.count(VmEvent::Pgactivate, 1);
        };
        if self.pages[p].test(pg::WRITEBACK) {
            return activate(self, p);
        }
        self.try_to_unmap(p);
        if self.pages[p].test(pg::DIRTY) {
            return activate(self, p);
        }
        // reclaim_folio_list()'s scan_control has no target memcg: __remove_mapping(.., NULL)
        // -> workingset_eviction(folio, NULL) -> mem_cgroup_lruvec(NULL) is root's lruvec
        // (6.1), so the shadow names root and ages root (review48 M5).
        self.evict(p, MemcgId::ROOT);
    }
}
