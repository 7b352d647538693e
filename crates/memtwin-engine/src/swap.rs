//! LRU insertion and the access-driven promotion of pages (mm/swap.c).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::PageId;
use crate::vmstat::VmEvent;

impl Kernel {
    /// `folio_add_lru()`: put a new page on its memcg's lruvec, on the active list if
    /// `PG_active` is set (a refault judged to be in the working set), else inactive. Under
    /// the multi-generational LRU, during a fault of a mapping that is neither `VM_SEQ_READ`
    /// nor `VM_RAND_READ` (`lru_gen_in_fault()`), every page is added active.
    #[inline]
    pub fn folio_add_lru(&mut self, page: PageId) {
        if self.lru_gen_in_fault {
            // 6.1: "if (lru_gen_enabled() && !folio_test_unevictable(folio) &&
            // lru_gen_in_fault() ...) folio_set_active(folio)": a page a fault brings in (the
            // faulting page and its readahead) starts in the youngest generation.
            self.pages[page].flags |= pg::ACTIVE;
        }
        let active = self.pages[page].test(pg::ACTIVE);
        let lru = match (self.pages[page].test(pg::SWAPBACKED), active) {
            (true, true) => LruList::ActiveAnon,
            (true, false) => LruList::InactiveAnon,
            (false, true) => LruList::ActiveFile,
            (false, false) => LruList::InactiveFile,
        };
        let v = self.folio_lruvec(page);
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, page, lru);
    }

    /// `folio_rotate_reclaimable()`: a page marked for immediate reclaim (`PG_reclaim`)
    /// whose writeback ended goes to the tail of the inactive list `lru`, next to be reclaimed.
    pub fn folio_rotate_reclaimable(&mut self, page: PageId, lru: LruList) {
        let v = self.folio_lruvec(page);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, page);
        self.pages[page].flags &= !(pg::ACTIVE | pg::RECLAIM);
        self.lruvecs[v].add_tail(&mut self.pages, &mut self.lru_stats, page, lru);
        // lru_move_tail(): PGROTATED counts the folio's pages.
        self.vmstat.count(VmEvent::Pgrotated, self.pages.folio_nr_pages(page));
    }

    /// `folio_mark_accessed()`: the first access sets `PG_referenced`; a second access on an
    /// inactive page moves it to the active list (`folio_activate()`), clears the flag and
    /// counts a working-set activation. The flag tests are inlined into the callers (the
    /// hit path's per-page work); the activation is [`Kernel::folio_activate`].
    #[inline(always)]
    pub fn folio_mark_accessed(&mut self, page: PageId) {
        if self.profile.lru_gen {
            // "if (lru_gen_enabled()) { folio_inc_refs(folio); return; }" (6.1)
            return self.folio_inc_refs(page);
        }
        let flags = self.pages[page].flags;
        if flags & pg::REFERENCED == 0 {
            self.pages[page].flags |= pg::REFERENCED;
        } else if flags & pg::ACTIVE == 0 {
            self.folio_activate(page);
        }
    }

    /// The activation of [`Kernel::folio_mark_accessed`] (`PG_referenced` set, `PG_active`
    /// clear): `folio_activate()` -> `folio_activate_fn()` moves an evictable page on an LRU
    /// list to the active one (counting `PGACTIVATE`), marks one off the lists active;
    /// `folio_mark_accessed()` then clears `PG_referenced` and calls `workingset_activation()`.
    /// An unevictable page is left as it is.
    #[inline(never)]
    pub fn folio_activate(&mut self, page: PageId) {
        if self.pages[page].lru() == LruList::Unevictable as u8 {
            return;
        }
        let flags = self.pages[page].flags;
        if flags & pg::LRU != 0 {
            self.cpu(self.cost.activate);
            let v = self.folio_lruvec(page);
            self.pages[page].flags |= pg::ACTIVE;
            let lru = if flags & pg::SWAPBACKED != 0 { LruList::ActiveAnon } else { LruList::ActiveFile };
            // lruvec_del_folio(), folio_set_active(), lruvec_add_folio()
            self.lruvecs[v].move_folio(&mut self.pages, &mut self.lru_stats, page, lru);
            let memcg = self.pages[page].memcg;
            self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, 1);
            self.vmstat.count(VmEvent::Pgactivate, 1);
        } else {
            self.pages[page].flags |= pg::ACTIVE;
        }
        self.pages[page].flags &= !pg::REFERENCED;
        self.workingset_activation(page);
    }
}
