//! mlock (mm/mlock.c): `VM_LOCKED` VMAs fault their pages in and keep them on the
//! unevictable list, where reclaim does not look.
//!
//! Since 5.18 (Hugh Dickins' mlock rework, in 6.1) `mlock_folio()` moves a page mapped by a
//! locked VMA to `LRU_UNEVICTABLE` with `PG_active` cleared, and `munlock_folio()` puts it
//! back on the inactive list once no locked VMA maps it; earlier kernels reach the same lists
//! through `mlock_vma_page()`/`munlock_vma_page()`. The engine keeps a page-cache page on the
//! unevictable list exactly while a `VM_LOCKED` file VMA maps it (`PG_mlocked` is that list).
//! Private copies (anonymous pages) of a locked VMA stay on the anon lists: without swap they
//! are not reclaimed anyway.

use crate::kernel::Kernel;
use crate::memory::{FaultError, VmaId};
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::PageId;

impl Kernel {
    /// `mlock_folio()`: move `p` to the unevictable list (`PG_active` cleared).
    pub fn mlock_folio(&mut self, p: PageId) {
        let pg_ = &self.pages[p];
        if !pg_.test(pg::LRU) || pg_.lru() == LruList::Unevictable as u8 || pg_.test(pg::ANON) {
            return;
        }
        let v = self.folio_lruvec(p);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        self.pages[p].flags &= !pg::ACTIVE;
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
    }

    /// `munlock_folio()`: `p` is evictable again: off the unevictable list, onto the inactive
    /// file list.
    pub fn munlock_folio(&mut self, p: PageId) {
        if !self.pages[p].test(pg::LRU) || self.pages[p].lru() != LruList::Unevictable as u8 {
            return;
        }
        let v = self.folio_lruvec(p);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
    }

    /// `do_mlock()` -> `mlock_fixup()` + `__mm_populate()` (`lock`), or `munlock`: set or clear
    /// `VM_LOCKED` and move the mapped pages to or from the unevictable list; mlock first
    /// faults every page in (`populate_vma_page_range()`, a read fault each, a write fault for
    /// a private writable mapping as `FOLL_WRITE` asks: `(vm_flags & (VM_WRITE | VM_SHARED)) ==
    /// VM_WRITE`; the engine's private mappings are writable unless `exec`).
    pub fn do_mlock(&mut self, vma: VmaId, lock: bool) -> Result<(), FaultError> {
        self.cpu(self.cost.mmap_call);
        let v = vma.0 as usize;
        let Some(f) = self.vmas[v].file.as_mut() else {
            // An anonymous VMA: populate it (its pages are not reclaimed without swap).
            if lock {
                for i in 0..self.vmas[v].pages.len() as u32 {
                    self.handle_mm_fault(vma, i)?;
                }
            }
            return Ok(());
        };
        f.locked = lock;
        let write = !f.shared && !f.exec;
        let n = self.vmas[v].pages.len() as u32;
        if lock {
            for i in 0..n {
                self.handle_mm_fault_file(vma, i, write)?;
            }
        }
        for i in 0..n {
            let p = self.vmas[v].pages[i as usize];
            if p == PageId::NIL || self.pages[p].test(pg::ANON) {
                continue;
            }
            if lock {
                self.mlock_folio(p);
            } else if !self.folio_locked_by_vma(p) {
                self.munlock_folio(p);
            }
        }
        Ok(())
    }
}
