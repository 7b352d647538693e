//! LRU insertion and the access-driven promotion of pages (mm/swap.c).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::PageId;
use crate::vmstat::VmEvent;

/// `PAGEVEC_SIZE` from 6.10 (include/linux/pagevec.h: "31 pointers + header align the
/// folio_batch structure to a power of two", "mm: increase folio batch size").
pub const PAGEVEC_SIZE_6_10: usize = 31;
/// `PAGEVEC_SIZE` from the byte-sized header (2017) to 6.9 (include/linux/pagevec.h, 6.1:
/// "15 pointers + header").
pub const PAGEVEC_SIZE_5_X: usize = 15;
/// `PAGEVEC_SIZE` of 4.x before the header was made bytes (include/linux/pagevec.h, 4.4: "14
/// pointers + two long's align the pagevec structure to a power of two": `nr`, `cold`).
pub const PAGEVEC_SIZE_4_X: usize = 14;
/// The room of every [`FolioBatch`]: the largest `PAGEVEC_SIZE` of the eras modelled.
pub const FOLIO_BATCH_MAX: usize = PAGEVEC_SIZE_6_10;
/// The LRU list number ([`crate::mm_types::Page::lru`]) of a page that sits in a CPU's
/// `lru_add` batch, with `PG_lru` clear: engine bookkeeping standing for the batch's
/// reference (`folio_get()` in `folio_add_lru()`), no list of the lruvec has this number.
pub const LRU_IN_FBATCH: u8 = 0x3f;

/// `struct folio_batch` of one CPU's `cpu_fbatches.lru_add` (mm/swap.c): the folios
/// `folio_add_lru()` added since the last `folio_batch_move_lru()`. A page freed meanwhile
/// ([`Kernel::folio_unbatch`]) leaves its slot empty (`PageId::NIL`) but counted: the kernel's
/// batch holds a reference, the page goes when the batch is moved.
#[derive(Clone, Copy, Debug)]
pub struct FolioBatch {
    /// `fbatch->nr`.
    pub nr: u8,
    /// `fbatch->folios`.
    pub folios: [PageId; FOLIO_BATCH_MAX],
}

impl Default for FolioBatch {
    fn default() -> Self {
        FolioBatch { nr: 0, folios: [PageId::NIL; FOLIO_BATCH_MAX] }
    }
}

impl Kernel {
    /// Whether `page` sits in a CPU's `lru_add` batch (on no list yet).
    #[inline(always)]
    pub fn folio_in_lru_batch(&self, page: PageId) -> bool {
        let p = &self.pages[page];
        p.flags & pg::LRU == 0 && p.lru() == LRU_IN_FBATCH
    }

    /// The CPU of the running context (`smp_processor_id()`): `pcp_ctx`, CPU 0 before the
    /// scheduler names one.
    #[inline(always)]
    fn this_cpu(&self) -> usize {
        if self.pcp_ctx == u32::MAX { 0 } else { self.pcp_ctx as usize }
    }

    /// `folio_add_lru()` -> `folio_batch_add_and_move(fbatch, folio, lru_add_fn)` on profiles
    /// with the per-CPU batch (`KernelProfile::lru_add_batch`): `page` (its `PG_active` set as
    /// the caller wants it) goes into the running CPU's batch; when `folio_batch_add()` leaves
    /// no space, or the folio is large (6.1 `folio_may_be_lru_cached()`; 6.12
    /// `folio_test_large()`), the batch is moved to the LRU ([`Kernel::folio_batch_move_lru`]).
    /// Returns false (nothing done) where the batch is not modelled.
    #[inline]
    pub(crate) fn folio_add_lru_batched(&mut self, page: PageId) -> bool {
        let size = self.profile.lru_add_batch;
        if size == 0 {
            return false;
        }
        debug_assert!(!self.pages[page].test(pg::LRU), "folio_add_lru() of a page on an LRU");
        self.pages[page].set_lru(LRU_IN_FBATCH);
        let cpu = self.this_cpu();
        debug_assert!(cpu < self.lru_add_fbatches.len(), "one batch per CPU from the setup");
        let b = &mut self.lru_add_fbatches[cpu];
        b.folios[b.nr as usize] = page;
        b.nr += 1;
        if b.nr as usize >= size.min(FOLIO_BATCH_MAX) || self.pages[page].test(pg::HEAD) {
            self.folio_batch_move_lru(cpu);
        }
        true
    }

    /// `folio_batch_move_lru(fbatch, lru_add_fn)` of CPU `cpu`'s `lru_add` batch: each folio
    /// still in it onto its lruvec (`lru_add_fn()` -> `lruvec_add_folio()`: the active list if
    /// `PG_active`, set meanwhile by `__lru_cache_activate_folio()` or before the add, else
    /// the inactive one; under lru_gen `lru_gen_add_folio()`), in the order they were added.
    /// Swap writes that completed by now ended first (their `folio_rotate_reclaimable()`
    /// found the page off the LRU).
    pub(crate) fn folio_batch_move_lru(&mut self, cpu: usize) {
        self.swap_end_io();
        let b = self.lru_add_fbatches[cpu];
        self.lru_add_fbatches[cpu].nr = 0;
        for &p in &b.folios[..b.nr as usize] {
            if p == PageId::NIL {
                continue; // freed while in the batch
            }
            debug_assert!(self.folio_in_lru_batch(p), "a batch slot holds a page that is not batched");
            self.lru_add_fn(p);
        }
    }

    /// `page`, in a CPU's `lru_add` batch, is freed (truncated, unmapped, its swap slot freed):
    /// its slot is emptied, the batch's count kept (the kernel's batch holds the folio's
    /// reference until `folio_batch_move_lru()` releases it), so that its frame, reused, cannot
    /// be taken for a batched page. The running CPU's batch is searched first, newest first
    /// (as `__lru_cache_activate_folio()` does). Nothing for a page in no batch.
    pub(crate) fn folio_unbatch(&mut self, page: PageId) {
        if !self.folio_in_lru_batch(page) {
            return;
        }
        self.pages[page].set_lru(0);
        let here = self.this_cpu();
        for cpu in std::iter::once(here).chain((0..self.lru_add_fbatches.len()).filter(|&c| c != here)) {
            let b = &mut self.lru_add_fbatches[cpu];
            if let Some(i) = b.folios[..b.nr as usize].iter().rposition(|&q| q == page) {
                b.folios[i] = PageId::NIL;
                return;
            }
        }
        debug_assert!(false, "page {} marked batched is in no batch", page.0);
    }

    /// `lru_add_fn()`: `lruvec_add_folio()` of `page` by its `PG_active` and `PG_swapbacked`.
    #[inline]
    fn lru_add_fn(&mut self, page: PageId) {
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

    /// `lru_add_drain()` -> `lru_add_drain_cpu(smp_processor_id())`: move the running CPU's
    /// `lru_add` batch to the LRU (callers: `shrink_inactive_list()`,
    /// `shrink_active_list()`, `lru_gen_shrink_lruvec()`, the end of a swap readahead,
    /// `unmap_region()`, `exit_mmap()`, `mlock_fixup()`, `madvise_cold()`/`_pageout()`,
    /// `generic_fadvise()`'s `POSIX_FADV_DONTNEED`, `do_swap_page()` of a swap-cache page off
    /// the LRU for a write, 6.1).
    #[inline]
    pub fn lru_add_drain(&mut self) {
        if self.profile.lru_add_batch == 0 {
            return;
        }
        let cpu = self.this_cpu();
        if self.lru_add_fbatches.get(cpu).is_some_and(|b| b.nr > 0) {
            self.folio_batch_move_lru(cpu);
        }
    }

    /// `folio_add_lru()`: put a new page on its memcg's lruvec, on the active list if
    /// `PG_active` is set (a refault judged to be in the working set), else inactive; on
    /// profiles with the per-CPU batch, into the running CPU's batch first
    /// ([`Kernel::folio_add_lru_batched`]). Under the multi-generational LRU, during a fault
    /// of a mapping that is neither `VM_SEQ_READ` nor `VM_RAND_READ` (`lru_gen_in_fault()`),
    /// every page is added active.
    #[inline]
    pub fn folio_add_lru(&mut self, page: PageId) {
        if self.lru_gen_in_fault {
            // 6.1: "if (lru_gen_enabled() && !folio_test_unevictable(folio) &&
            // lru_gen_in_fault() ...) folio_set_active(folio)": a page a fault brings in (the
            // faulting page and its readahead) starts in the youngest generation.
            self.pages[page].flags |= pg::ACTIVE;
        }
        if self.folio_add_lru_batched(page) {
            return;
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
