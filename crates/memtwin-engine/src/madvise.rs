//! `madvise()` of a file mapping (mm/madvise.c).

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
        let Some(f) = self.vmas[v].file.as_mut() else {
            // Anonymous memory: DONTNEED frees; the read hints change nothing modelled.
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
            MAdvice::Cold | MAdvice::PageOut => {
                let mut deactivated = 0;
                for i in first..end {
                    let p = self.vmas[v].pages[i as usize];
                    // Only pages mapped by this VMA alone ("page_mapcount(page) != 1": skip).
                    if p == PageId::NIL || self.pages[p].test(pg::ANON) || self.pages[p].mapcount != 1 {
                        continue;
                    }
                    self.cpu(self.cost.scan_page);
                    // ptep_test_and_clear_young(), folio_clear_referenced().
                    self.vmas[v].file.as_mut().expect("a file VMA").set_young(i, false);
                    self.pages[p].flags &= !pg::REFERENCED;
                    if !self.pages[p].test(pg::LRU) || self.pages[p].lru() == LruList::Unevictable as u8 {
                        continue;
                    }
                    if advice == MAdvice::Cold {
                        // folio_deactivate() -> lru_deactivate_fn(): an active page to the
                        // inactive head.
                        if self.pages[p].test(pg::ACTIVE) {
                            let lv = self.folio_lruvec(p);
                            self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
                            self.pages[p].flags &= !pg::ACTIVE;
                            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
                            deactivated += 1;
                        }
                    } else {
                        // reclaim_pages() -> shrink_folio_list() with ignore_references: a
                        // clean, unlocked page is unmapped and evicted; a dirty one is
                        // activated (reclaim does not write file pages).
                        if self.pages[p].flags & (pg::DIRTY | pg::WRITEBACK) != 0 || self.folio_test_locked(p) {
                            continue;
                        }
                        let lv = self.folio_lruvec(p);
                        self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
                        self.try_to_unmap(p);
                        let owner = self.pages[p].memcg;
                        self.memcgs.count_event(owner, MemcgEvent::Pgsteal, 1);
                        self.evict(p, owner);
                    }
                }
                self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, deactivated);
                self.vmstat.count(VmEvent::Pgdeactivate, deactivated);
            }
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
}
