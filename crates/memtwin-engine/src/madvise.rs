//! `madvise()` of file and anonymous mappings (mm/madvise.c).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::memory::VmaId;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::scenario::model::MAdvice;
use crate::types::PageId;
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
    /// file range ahead (`madvise_willneed()` -> `vfs_fadvise(POSIX_FADV_WILLNEED)`);
    /// `DONTNEED` zaps the range (`madvise_dontneed_single_vma()`); `COLD` and `PAGEOUT`
    /// (5.4+) deactivate or reclaim the pages only this VMA maps
    /// (`madvise_cold_or_pageout_pte_range()`). `DONTNEED`, `COLD` and `PAGEOUT` of a
    /// `VM_LOCKED` VMA fail with `EINVAL`.
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
            self.madvise_cold_or_pageout(vma, first, end, advice == MAdvice::PageOut);
            return Ok(());
        }
        let Some(f) = self.vmas[v].file.as_mut() else {
            // Anonymous memory: DONTNEED frees; SEQUENTIAL/RANDOM set flags nothing anonymous
            // reads; WILLNEED's swap-in readahead (force_swapin_readahead()) is not modelled.
            if advice == MAdvice::DontNeed {
                self.zap_anon_range(vma, first, end);
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
    /// `vma` (file or anonymous): each present page mapped by this VMA alone and on an LRU
    /// ("`!PageLRU(page) || page_mapcount(page) != 1`: skip"; the private copies of a file VMA
    /// are its anonymous pages and count too) loses its young PTE and `PG_referenced`; `COLD`
    /// deactivates it (`deactivate_page()` -> `lru_deactivate_fn()`: an active page to its
    /// type's inactive list, PGDEACTIVATE), `PAGEOUT` isolates it and hands it to
    /// `reclaim_pages()` (see [`Kernel::reclaim_page_madvise`]). A transparent huge page
    /// (split when this VMA alone maps it, `split_huge_page()`) is skipped here (not modelled).
    fn madvise_cold_or_pageout(&mut self, vma: VmaId, first: u32, end: u32, pageout: bool) {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let mut deactivated = 0;
        for i in first..end.min(self.vmas[v].pages.len() as u32) {
            let p = self.vmas[v].pages[i as usize];
            // An anonymous page is mapped by its one VMA (`Page::mapcount` stays 0: no fork
            // sharing is modelled), so the mapcount rule skips file pages only.
            if p == PageId::NIL {
                continue;
            }
            let shared = !self.pages[p].test(pg::ANON) && self.pages[p].mapcount != 1;
            if !self.pages[p].test(pg::LRU) || shared || self.pages[p].test(pg::HEAD) {
                continue;
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
                continue;
            }
            if !pageout {
                if self.pages[p].test(pg::ACTIVE) {
                    let lv = self.folio_lruvec(p);
                    let anon = self.pages[p].test(pg::ANON);
                    self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
                    self.pages[p].flags &= !pg::ACTIVE;
                    let to = if anon { LruList::InactiveAnon } else { LruList::InactiveFile };
                    self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, to);
                    deactivated += 1;
                }
            } else if !self.pages[p].test(pg::ANON) {
                self.reclaim_page_madvise(p);
            }
            // An anonymous page under PAGEOUT: reclaim_pages() swaps it out where there is a
            // swap area (add_to_swap()); that path is not modelled, the page stays (as it
            // does without swap: shrink_folio_list() activates an anonymous folio it cannot
            // add to swap).
        }
        self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, deactivated);
        self.vmstat.count(VmEvent::Pgdeactivate, deactivated);
    }

    /// mm/vmscan.c 6.1 `reclaim_pages()` -> `reclaim_folio_list()` -> `shrink_folio_list(...,
    /// ignore_references = false)` of one file page `MADV_PAGEOUT` isolated (not kswapd, no
    /// target memcg: `writeback_throttling_sane()`). `reclaim_pages()` clears `PG_active`
    /// first. In `shrink_folio_list()`'s order: a locked folio is kept (back inactive); one
    /// under writeback is marked `PG_reclaim` and activated (case 2); references (its young
    /// PTE and `PG_referenced` were just cleared: FOLIOREF_RECLAIM) lead to `try_to_unmap()`;
    /// a dirty file folio is then, not being kswapd's, marked `PG_reclaim` ("Immediately
    /// reclaim when written back") and activated (`activate_locked`, PGACTIVATE); a clean one
    /// is evicted. No PGSTEAL: only shrink_inactive_list() counts it.
    fn reclaim_page_madvise(&mut self, p: PageId) {
        let lv = self.folio_lruvec(p);
        let owner = self.pages[p].memcg;
        self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
        self.pages[p].flags &= !pg::ACTIVE;
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
        self.evict(p, owner);
    }
}
