//! LRU insertion and the access-driven promotion of pages (mm/swap.c).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::{MemcgId, PageId};
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

/// When `__lru_cache_add()` / `folio_add_lru()` moves the CPU's batch to the LRU
/// (`KernelProfile::lru_add_move`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LruAddMove {
    /// 3.13-4.6 `__lru_cache_add()`: "if (!pagevec_space(pvec)) __pagevec_lru_add(pvec);
    /// pagevec_add(pvec, page);": a full pagevec is moved before the page is added, so the
    /// newest page always waits in it (1 to `PAGEVEC_SIZE` pages after an add), and a
    /// compound page (a THP) waits like any other.
    BeforeAdd,
    /// From "mm/swap.c: flush lru pvecs on compound page arrival" (2016, 4.7): "if
    /// (!pagevec_add(pvec, page) || PageCompound(page)) __pagevec_lru_add(pvec);" (6.1
    /// `folio_batch_add_and_move()`: `folio_may_be_lru_cached()`, i.e. not large; 6.18 the
    /// same): the page is added, then the batch moved when that left no space or the page is
    /// compound (0 to `PAGEVEC_SIZE` - 1 pages after an add).
    AfterAdd,
}

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

/// `folio_lru_list()` of the two-list LRU: the list a folio with these flags goes on, by
/// `PG_swapbacked` and `PG_active` (`PG_unevictable` is the caller's).
#[inline(always)]
fn folio_lru_list(flags: u16) -> LruList {
    match (flags & pg::SWAPBACKED != 0, flags & pg::ACTIVE != 0) {
        (true, true) => LruList::ActiveAnon,
        (true, false) => LruList::InactiveAnon,
        (false, true) => LruList::ActiveFile,
        (false, false) => LruList::InactiveFile,
    }
}

/// [`Kernel::folio_batch_move_lru`]'s common folios on a machine of one node, from `folios[i]`
/// on: each order-0, unmapped page-cache page (not anonymous, lru_gen off on its lruvec) is
/// linked to the head of its list and counted in `run`, as the loop there does; returns the
/// index of the first folio it did not take (`folios.len()` when it took them all).
#[inline(always)]
fn lru_add_order0_stretch(pages: &mut crate::mm_types::PageArena, lruvecs: &mut [crate::mmzone::Lruvec], stats: &mut crate::mmzone::LruvecStats, folios: &[PageId], mut i: usize, run: &mut (usize, usize, u64)) -> usize {
    while i < folios.len() {
        let p = folios[i];
        if p == PageId::NIL {
            i += 1;
            continue;
        }
        let pv = pages[p];
        debug_assert!(pv.flags & pg::LRU == 0 && pv.lru() == LRU_IN_FBATCH, "a batch slot holds a page that is not batched");
        // `folio_lruvec()` on node 0: the lruvec of the page's memcg (`Kernel::lruvec_idx`).
        let v = if pv.memcg == MemcgId::NONE { 0 } else { pv.memcg.idx() };
        if pv.flags & (pg::HEAD | pg::TAIL | pg::ANON) != 0 || pv.mapcount != 0 || lruvecs[v].lrugen.enabled {
            return i;
        }
        let list = folio_lru_list(pv.flags) as usize;
        if (v, list) != (run.0, run.1) {
            if run.2 > 0 {
                stats.update(lruvecs[run.0].idx, run.1, run.2, true);
            }
            *run = (v, list, 0);
        }
        lruvecs[v].link_order0_unstated(pages, p, list);
        run.2 += 1;
        i += 1;
    }
    i
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
    pub(crate) fn this_cpu(&self) -> usize {
        if self.pcp_ctx == u32::MAX { 0 } else { self.pcp_ctx as usize }
    }

    /// `folio_add_lru()` -> `folio_batch_add_and_move(fbatch, folio, lru_add_fn)` (before
    /// 5.16 `__lru_cache_add()`) on profiles with the per-CPU batch
    /// (`KernelProfile::lru_add_batch`): `page` (its `PG_active` set as the caller wants it)
    /// goes into the running CPU's batch, which is moved to the LRU
    /// ([`Kernel::folio_batch_move_lru`]) as the era does it ([`LruAddMove`]): before 4.7 first,
    /// when it is full; from 4.7 after the add, when that left no space or the folio is large
    /// (`PageCompound()`, 6.1/6.18 `!folio_may_be_lru_cached()`).
    /// Returns false (nothing done) where the batch is not modelled.
    #[inline(always)]
    pub(crate) fn folio_add_lru_batched(&mut self, page: PageId) -> bool {
        let size = self.profile.lru_add_batch.min(FOLIO_BATCH_MAX);
        if size == 0 {
            return false;
        }
        debug_assert!(!self.pages[page].test(pg::LRU), "folio_add_lru() of a page on an LRU");
        let cpu = self.this_cpu();
        debug_assert!(cpu < self.lru_add_fbatches.len(), "one batch per CPU from the setup");
        let before = self.profile.lru_add_move == LruAddMove::BeforeAdd;
        if before && self.lru_add_fbatches[cpu].nr as usize >= size {
            // "if (!pagevec_space(pvec)) __pagevec_lru_add(pvec);"
            self.folio_batch_move_lru(cpu);
        }
        // The page read once: its `PG_head` for the move's test below.
        let head = {
            let p = &mut self.pages[page];
            p.set_lru(LRU_IN_FBATCH);
            p.test(pg::HEAD)
        };
        let b = &mut self.lru_add_fbatches[cpu];
        b.folios[b.nr as usize] = page;
        b.nr += 1;
        if !before && (b.nr as usize >= size || head) {
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
    ///
    /// An order-0 page-cache page that no VMA maps (so not `PG_mlocked`) goes onto a list of
    /// the two-list LRU without its own walk up the lruvec sizes: the pages linked in a row to
    /// one lruvec's list are counted once when the run ends (the kernel's per-folio
    /// `__update_lru_size()` are per-CPU counter adds its rstat flush sums later; the
    /// engine's hierarchical [`crate::mmzone::LruvecStats`] gets the same totals, applied
    /// before anything reads them).
    pub(crate) fn folio_batch_move_lru(&mut self, cpu: usize) {
        self.swap_end_io();
        let n = self.lru_add_fbatches[cpu].nr as usize;
        self.lru_add_fbatches[cpu].nr = 0;
        // The run being linked: (lruvec, list, pages).
        let mut run = (usize::MAX, 0usize, 0u64);
        let mut i = 0;
        while i < n {
            if self.nr_nodes == 1 {
                // The common folios of one node's machine, linked with the arrays as
                // arguments (their lengths and bases held in registers).
                let folios = &self.lru_add_fbatches[cpu].folios[..n];
                i = lru_add_order0_stretch(&mut self.pages, &mut self.lruvecs, &mut self.lru_stats, folios, i, &mut run);
                if i >= n {
                    break;
                }
            }
            let p = self.lru_add_fbatches[cpu].folios[i];
            i += 1;
            if p == PageId::NIL {
                continue; // freed while in the batch
            }
            debug_assert!(self.folio_in_lru_batch(p), "a batch slot holds a page that is not batched");
            let pv = self.pages[p];
            let v = self.folio_lruvec(p);
            if pv.flags & (pg::HEAD | pg::TAIL | pg::ANON) == 0 && pv.mapcount == 0 && !self.lruvecs[v].lrugen.enabled {
                // lru_add_fn() -> lruvec_add_folio() by PG_active and PG_swapbacked.
                let list = folio_lru_list(pv.flags) as usize;
                if (v, list) != (run.0, run.1) {
                    self.lru_add_run_stats(run);
                    run = (v, list, 0);
                }
                self.lruvecs[v].link_order0_unstated(&mut self.pages, p, list);
                run.2 += 1;
                continue;
            }
            self.lru_add_run_stats(run);
            run.2 = 0;
            self.lru_add_fn(p);
        }
        self.lru_add_run_stats(run);
    }

    /// The lruvec sizes of a run of [`Kernel::folio_batch_move_lru`]: `run.2` order-0 pages
    /// linked to list `run.1` of lruvec `run.0` (`__update_lru_size()` of each, summed).
    #[inline(always)]
    fn lru_add_run_stats(&mut self, run: (usize, usize, u64)) {
        if run.2 > 0 {
            let idx = self.lruvecs[run.0].idx;
            self.lru_stats.update(idx, run.1, run.2, true);
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

    /// `lru_add_fn()` (`__pagevec_lru_add_fn()` before 5.16): `lruvec_add_folio()` of `page`
    /// by its `PG_active` and `PG_swapbacked`; a page that a `VM_LOCKED` VMA mapped while it
    /// waited in the batch (`PG_mlocked`: `folio_evictable()` false) goes to the unevictable
    /// list with `PG_active` cleared ("folio_clear_active(folio); folio_set_unevictable(folio);",
    /// 6.1; 3.13's `__pagevec_lru_add_fn()` -> `page_evictable()` alike), as `mlock_folio()`
    /// could not move it off a list it was not on.
    #[inline]
    fn lru_add_fn(&mut self, page: PageId) {
        if self.folio_mlocked(page) {
            self.pages[page].flags &= !pg::ACTIVE;
            let v = self.folio_lruvec(page);
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, page, LruList::Unevictable);
            return;
        }
        let lru = folio_lru_list(self.pages[page].flags);
        let v = self.folio_lruvec(page);
        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, page, lru);
    }

    /// Whether `page` is mapped by a `VM_LOCKED` VMA (the engine's `PG_mlocked`: the
    /// unevictable list is where such a page is, mlock.rs): an anonymous page by the VMA its
    /// `mapping` names, a page-cache page by any VMA of its file's `i_mmap`.
    fn folio_mlocked(&self, page: PageId) -> bool {
        let p = &self.pages[page];
        if p.test(pg::ANON) {
            p.mapping != crate::swapfile::SWAPPER
                && self.vmas.get(p.mapping.0 as usize).is_some_and(|v| v.live && v.locked && v.pages.get(p.index as usize) == Some(&page))
        } else {
            p.mapcount > 0 && self.folio_locked_by_vma(page)
        }
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

    /// `lru_add_drain_all()`: every CPU's `lru_add` batch moved to the LRU (the kernel queues
    /// `lru_add_drain_per_cpu()` on each CPU with a non-empty batch and waits for them; the
    /// engine moves them in CPU order). Callers: `generic_fadvise()`'s DONTNEED when pages
    /// could not be dropped ("It is likely on the pagevec of a remote CPU").
    pub fn lru_add_drain_all(&mut self) {
        if self.profile.lru_add_batch == 0 {
            return;
        }
        for cpu in 0..self.lru_add_fbatches.len() {
            if self.lru_add_fbatches[cpu].nr > 0 {
                self.folio_batch_move_lru(cpu);
            }
        }
    }

    /// `folio_add_lru()`: put a new page on its memcg's lruvec, on the active list if
    /// `PG_active` is set (a refault judged to be in the working set), else inactive; on
    /// profiles with the per-CPU batch, into the running CPU's batch first
    /// ([`Kernel::folio_add_lru_batched`]). Under the multi-generational LRU, during a fault
    /// of a mapping that is neither `VM_SEQ_READ` nor `VM_RAND_READ` (`lru_gen_in_fault()`),
    /// every page is added active.
    #[inline(always)]
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
        self.lru_add_fn(page);
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
        self.folio_mark_accessed_flags(page, flags);
    }

    /// [`Kernel::folio_mark_accessed`] of a page whose flags the caller has just read
    /// (`flags`: `page`'s flags as they are now), without reading them again.
    #[inline(always)]
    pub(crate) fn folio_mark_accessed_flags(&mut self, page: PageId, flags: u16) {
        debug_assert_eq!(flags, self.pages[page].flags, "folio_mark_accessed_flags() with flags that are not the page's");
        if self.profile.lru_gen {
            // "if (lru_gen_enabled()) { folio_inc_refs(folio); return; }" (6.1)
            return self.folio_inc_refs(page);
        }
        if flags & pg::REFERENCED == 0 {
            self.pages[page].flags = flags | pg::REFERENCED;
        } else if flags & pg::ACTIVE == 0 {
            self.folio_activate(page);
        }
    }

    /// The activation of [`Kernel::folio_mark_accessed`] (`PG_referenced` set, `PG_active`
    /// clear): `folio_activate()` -> `folio_activate_fn()` moves an evictable page on an LRU
    /// list to the active one (counting `PGACTIVATE`, by its pages from 5.8:
    /// `KernelProfile::pgactivate_nr_pages`), marks one off the lists active;
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
            if self.profile.pgactivate_nr_pages {
                let nr = self.pages.folio_nr_pages(page);
                self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr);
                self.vmstat.count(VmEvent::Pgactivate, nr);
            } else {
                // 3.13-5.7 `__activate_page()`: `__count_vm_event(PGACTIVATE)` only, no memcg
                // event (2262185c5b28's memcg PGACTIVATE missed it until 5.8).
                self.vmstat.count(VmEvent::Pgactivate, 1);
            }
        } else {
            self.pages[page].flags |= pg::ACTIVE;
        }
        self.pages[page].flags &= !pg::REFERENCED;
        self.workingset_activation(page);
    }
}
