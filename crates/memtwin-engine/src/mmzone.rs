//! LRU lists and the lruvec (include/linux/mmzone.h, include/linux/mm_inline.h).
//!
//! One [`Lruvec`] exists per (memcg, node). Lists are intrusive doubly-linked lists threaded
//! through [`Page::prev`](crate::mm_types::Page::prev)/`next`; the head is the most recently
//! added page and reclaim takes from the tail, as `list_add()`/`lru_to_folio()` do.

use crate::mm_types::{pg, PageArena};
use crate::types::PageId;

/// Base pages of a huge page on an LRU list (`HPAGE_PMD_NR`).

/// `enum lru_list`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum LruList {
    /// `LRU_INACTIVE_ANON`.
    InactiveAnon = 0,
    /// `LRU_ACTIVE_ANON`.
    ActiveAnon = 1,
    /// `LRU_INACTIVE_FILE`.
    InactiveFile = 2,
    /// `LRU_ACTIVE_FILE`.
    ActiveFile = 3,
    /// `LRU_UNEVICTABLE`.
    Unevictable = 4,
}

/// `NR_LRU_LISTS`.
pub const NR_LRU_LISTS: usize = 5;

impl LruList {
    /// All lists, in `enum lru_list` order.
    pub const ALL: [LruList; NR_LRU_LISTS] = [
        LruList::InactiveAnon,
        LruList::ActiveAnon,
        LruList::InactiveFile,
        LruList::ActiveFile,
        LruList::Unevictable,
    ];
    /// From the `u8` stored in a page. A generation list of the multi-generational LRU maps
    /// to its type's inactive list (putting the page back lets `lru_gen_add_folio()` choose
    /// the generation again, from `PG_active` as `lru_gen_del_folio()` left it).
    #[inline]
    pub fn from_u8(v: u8) -> LruList {
        if v as usize >= NR_LRU_LISTS {
            return if crate::lru_gen::list_type(v as usize) == crate::lru_gen::LRU_GEN_FILE { LruList::InactiveFile } else { LruList::InactiveAnon };
        }
        LruList::ALL[v as usize]
    }
    /// `is_active_lru()`.
    pub fn is_active(self) -> bool {
        matches!(self, LruList::ActiveAnon | LruList::ActiveFile)
    }
    /// `is_file_lru()`.
    pub fn is_file(self) -> bool {
        matches!(self, LruList::InactiveFile | LruList::ActiveFile)
    }
}

/// One intrusive list: head (newest), tail (oldest) and length.
#[derive(Clone, Copy, Debug)]
pub struct ListHead {
    /// Most recently added page.
    pub head: PageId,
    /// Oldest page: the next one reclaim looks at.
    pub tail: PageId,
    /// Number of entries on the list (a huge page is one).
    pub len: u64,
    /// Base pages on the list (`lruvec_page_state()`: a huge page is `HPAGE_PMD_NR`).
    pub pages: u64,
}

impl Default for ListHead {
    fn default() -> Self {
        ListHead { head: PageId::NIL, tail: PageId::NIL, len: 0, pages: 0 }
    }
}

/// Lists of a lruvec: the two-list LRU's `NR_LRU_LISTS`, then the multi-generational LRU's
/// `MAX_NR_GENS x ANON_AND_FILE` generation lists (`lrugen->folios[gen][type]`, one zone).
pub const NR_ALL_LISTS: usize = NR_LRU_LISTS + crate::lru_gen::NR_GEN_LISTS;

/// The hierarchical LRU sizes of every lruvec: `lruvec_page_state(lruvec, NR_LRU_BASE +
/// lru)` of a memcg's lruvec counts the pages of the memcg and of all its descendants
/// (`mem_cgroup_per_node->lruvec_stats`, which rstat aggregates up the tree:
/// `__mod_lruvec_state()` -> `memcg_rstat_updated()`, read after `mem_cgroup_flush_stats()`).
/// Here the aggregate is kept exact at every change (`__update_lru_size()` of the lruvec adds
/// to it and to every ancestor's), so that reading a subtree's size — `workingset_refault()`
/// at the eviction lruvec, meminfo's totals at the root — costs the tree's depth, not a walk
/// over every memcg below. Sizes are in the units of [`Lruvec::size`]: entries on the
/// anonymous lists, pages on the file lists; and the anonymous lists in pages too (those of
/// [`Lruvec::nr_pages`], which `prepare_scan_count()` reads at the reclaim root); the lists
/// of the two-list LRU only (the multi-generational LRU's generation lists are read through
/// its own `compat_size`).
#[derive(Clone, Debug, Default)]
pub struct LruvecStats {
    /// Per lruvec, in one entry so that an update touches one place per level.
    nodes: Vec<LruvecStatNode>,
    /// The periods of the rstat copy (6.12's reclaim reads it, `memcg_stats_ratelimited_reclaim`):
    /// the number of the current `FLUSH_TIME` period, whose start the last periodic flush
    /// (`flush_memcg_stats_dwork()`) copied every counter at; 0 until the kernel sets
    /// [`LruvecStats::flush_periodic`].
    epoch: u64,
    /// Whether the rstat copy is kept (the profile reads it); off, [`LruvecStats::flushed_subtree_size`]
    /// is the exact size.
    rstat_copy: bool,
    /// The lruvecs whose verdict was forgotten since global reclaim's walk index last looked
    /// (each once per verdict: [`LruvecStats::act_dirty`] of a recorded one).
    dirtied: Vec<u32>,
}

/// An lruvec's reclaim-walk verdict is unknown ([`LruvecStats::act_level`]): its lists, or its
/// memcg's shadow nodes, slab, dentries or state, changed since the walk last looked, so the
/// next walk visits its memcg.
pub const ACT_DIRTY: u8 = u8::MAX;

/// One lruvec's entry in [`LruvecStats`].
#[derive(Clone, Copy, Debug, Default)]
struct LruvecStatNode {
    /// The sizes of lists `InactiveAnon..=ActiveFile` over its memcg's subtree.
    subtree: [u64; 4],
    /// The pages (a huge page counts 512) of lists `InactiveAnon` and `ActiveAnon` over its
    /// memcg's subtree.
    anon_pages: [u64; 2],
    /// Pages (anon, file) on the multi-generational LRU's inactive generations (all but the
    /// two youngest) over the subtree: what `lru_gen_update_size()` and `inc_max_seq()` add
    /// to `NR_INACTIVE_{ANON,FILE}` for compatibility.
    gen_inactive: [u64; 2],
    /// Pages (anon, file) on every generation of the multi-generational LRU over the subtree:
    /// `NR_INACTIVE_*` + `NR_ACTIVE_*` under lru_gen (`lru_gen_update_size()`), what
    /// `zone_reclaimable_pages()` sums.
    gen_all: [u64; 2],
    /// The lruvec of its memcg's parent on the same node (`u32::MAX` at the root: no entry).
    parent: u32,
    /// `subtree` as the last periodic flush left it (`pn->lruvec_stats->state`), valid when
    /// `flushed_epoch` is the current period: taken at the first change of the period (before
    /// it, `subtree` has not moved since the flush).
    flushed: [u64; 4],
    /// `anon_pages` as the last periodic flush left it (as `flushed`).
    flushed_anon: [u64; 2],
    /// The period whose flush `flushed` and `flushed_anon` hold.
    flushed_epoch: u64,
    /// The reclaim walk's verdict on the lruvec (see [`ACT_DIRTY`]): the bit length of the
    /// OR of its four lists' page counts, at or above which priorities `shrink_lruvec()`
    /// scans nothing there; [`ACT_DIRTY`] once anything it was computed from changed. Kept
    /// here because every change of a list's size passes through [`LruvecStats::update`].
    act: u8,
}

impl LruvecStats {
    /// Register the next lruvec (index `self.len()`), whose memcg's parent has lruvec
    /// `parent` on the same node (`None` for the root memcg's): `mem_cgroup_alloc()`'s
    /// `alloc_mem_cgroup_per_node_info()`.
    pub fn push(&mut self, parent: Option<usize>) {
        self.nodes.push(LruvecStatNode {
            subtree: [0; 4],
            anon_pages: [0; 2],
            gen_inactive: [0; 2],
            gen_all: [0; 2],
            parent: parent.map_or(u32::MAX, |p| p as u32),
            flushed: [0; 4],
            flushed_anon: [0; 2],
            flushed_epoch: 0,
            act: ACT_DIRTY,
        });
    }

    /// Lruvec `v`'s reclaim-walk verdict: [`ACT_DIRTY`], or the bit length of its lists'
    /// sizes OR'ed, as the walk left it ([`LruvecStats::set_act_level`]).
    #[inline(always)]
    pub fn act_level(&self, v: usize) -> u8 {
        self.nodes[v].act
    }

    /// Record lruvec `v`'s reclaim-walk verdict.
    #[inline(always)]
    pub fn set_act_level(&mut self, v: usize, level: u8) {
        self.nodes[v].act = level;
    }

    /// Forget lruvec `v`'s reclaim-walk verdict: something it was computed from changed.
    #[inline(always)]
    pub fn act_dirty(&mut self, v: usize) {
        if self.nodes.get(v).is_some_and(|e| e.act != ACT_DIRTY) {
            self.act_forget(v);
        }
    }

    /// [`LruvecStats::act_dirty`] of a recorded verdict (once per walk's visit at most).
    #[cold]
    #[inline(never)]
    fn act_forget(&mut self, v: usize) {
        self.nodes[v].act = ACT_DIRTY;
        self.dirtied.push(v as u32);
    }

    /// Whether a verdict was forgotten since [`LruvecStats::drain_dirtied`].
    #[inline(always)]
    pub fn has_dirtied(&self) -> bool {
        !self.dirtied.is_empty()
    }

    /// Each lruvec whose verdict was forgotten since the last call, with its verdict now
    /// (recorded again since, or [`ACT_DIRTY`]).
    pub fn drain_dirtied(&mut self, mut f: impl FnMut(u32, u8)) {
        for &v in &self.dirtied {
            f(v, self.nodes[v as usize].act);
        }
        self.dirtied.clear();
    }

    /// Lruvecs registered.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no lruvec is registered.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `__update_lru_size()` -> `__mod_lruvec_state()`: list number `list` of lruvec `v`
    /// gained (`add`) or lost `n` base pages (as many units on any list); the change goes up
    /// to the root.
    #[inline(always)]
    pub fn update(&mut self, v: u32, list: usize, n: u64, add: bool) {
        self.update_units(v, list, n, n, add)
    }

    /// [`LruvecStats::update`] for one folio of `nr` pages: `nr` units on a file list, one
    /// entry on an anonymous list.
    #[inline(always)]
    pub fn update_folio(&mut self, v: u32, list: usize, nr: u64, add: bool) {
        self.update_units(v, list, size_units(list, nr), nr, add)
    }

    #[inline(always)]
    fn update_units(&mut self, v: u32, list: usize, units: u64, pages: u64, add: bool) {
        self.act_dirty(v as usize);
        if list >= 4 {
            if list >= NR_LRU_LISTS {
                self.update_gen_all(v, crate::lru_gen::list_type(list), pages, add);
            }
            return;
        }
        let d = if add { units } else { units.wrapping_neg() };
        let dp = if add { pages } else { pages.wrapping_neg() };
        let mut v = v;
        let (copy, epoch) = (self.rstat_copy, self.epoch);
        // The root's parent, u32::MAX, is past the last entry: the walk ends there.
        if list >= 2 {
            while let Some(e) = self.nodes.get_mut(v as usize) {
                debug_assert!(add || e.subtree[list] >= units, "lruvec {v}'s subtree size of list {list} would go below 0");
                if copy && e.flushed_epoch != epoch {
                    (e.flushed, e.flushed_anon, e.flushed_epoch) = (e.subtree, e.anon_pages, epoch);
                }
                e.subtree[list] = e.subtree[list].wrapping_add(d);
                v = e.parent;
            }
        } else {
            while let Some(e) = self.nodes.get_mut(v as usize) {
                debug_assert!(add || e.subtree[list] >= units, "lruvec {v}'s subtree size of list {list} would go below 0");
                if copy && e.flushed_epoch != epoch {
                    (e.flushed, e.flushed_anon, e.flushed_epoch) = (e.subtree, e.anon_pages, epoch);
                }
                e.subtree[list] = e.subtree[list].wrapping_add(d);
                e.anon_pages[list] = e.anon_pages[list].wrapping_add(dp);
                v = e.parent;
            }
        }
    }

    /// [`LruvecStats::update_folio`] of a folio of `nr` pages leaving list `from` and joining
    /// list `to` of lruvec `v` at the same instant (both lists of the two-list LRU, not
    /// `Unevictable`): `lruvec_del_folio()` then `lruvec_add_folio()`, their two
    /// `__update_lru_size()` calls applied in one walk up to the root (same counts, same
    /// rstat copy, same verdict forgotten).
    #[inline(always)]
    pub fn move_folio(&mut self, v: u32, from: usize, to: usize, nr: u64) {
        debug_assert!(from < 4 && to < 4);
        self.act_dirty(v as usize);
        let (uf, ut) = (size_units(from, nr), size_units(to, nr));
        let (copy, epoch) = (self.rstat_copy, self.epoch);
        let mut v = v;
        while let Some(e) = self.nodes.get_mut(v as usize) {
            debug_assert!(e.subtree[from] >= uf, "lruvec {v}'s subtree size of list {from} would go below 0");
            if copy && e.flushed_epoch != epoch {
                (e.flushed, e.flushed_anon, e.flushed_epoch) = (e.subtree, e.anon_pages, epoch);
            }
            e.subtree[from] = e.subtree[from].wrapping_sub(uf);
            e.subtree[to] = e.subtree[to].wrapping_add(ut);
            if from < 2 {
                e.anon_pages[from] = e.anon_pages[from].wrapping_sub(nr);
            }
            if to < 2 {
                e.anon_pages[to] = e.anon_pages[to].wrapping_add(nr);
            }
            v = e.parent;
        }
    }

    /// `lru_gen_update_size()` / `inc_max_seq()`'s compatibility update: pages of type `ty`
    /// (`LRU_GEN_ANON`/`LRU_GEN_FILE`) joined (`add`) or left an inactive generation of lruvec
    /// `v`; the change goes up to the root.
    #[inline(always)]
    pub fn update_gen_inactive(&mut self, v: u32, ty: usize, n: u64, add: bool) {
        let d = if add { n } else { n.wrapping_neg() };
        let mut v = v;
        while let Some(e) = self.nodes.get_mut(v as usize) {
            debug_assert!(add || e.gen_inactive[ty] >= n, "lruvec {v}'s inactive generations would go below 0");
            e.gen_inactive[ty] = e.gen_inactive[ty].wrapping_add(d);
            v = e.parent;
        }
    }

    /// `lru_gen_update_size()`'s `NR_INACTIVE_*` + `NR_ACTIVE_*`: pages of type `ty` joined
    /// (`add`) or left a generation of lruvec `v`; the change goes up to the root.
    #[inline(always)]
    fn update_gen_all(&mut self, v: u32, ty: usize, n: u64, add: bool) {
        let d = if add { n } else { n.wrapping_neg() };
        let mut v = v;
        while let Some(e) = self.nodes.get_mut(v as usize) {
            debug_assert!(add || e.gen_all[ty] >= n, "lruvec {v}'s generations would go below 0");
            e.gen_all[ty] = e.gen_all[ty].wrapping_add(d);
            v = e.parent;
        }
    }

    /// Pages of type `ty` on every generation of lruvec `v`'s subtree (at the root lruvec of a
    /// node, `node_page_state(NR_INACTIVE_*) + node_page_state(NR_ACTIVE_*)` under lru_gen).
    #[inline]
    pub fn gen_all(&self, v: usize, ty: usize) -> u64 {
        self.nodes[v].gen_all[ty]
    }

    /// Pages of type `ty` on the inactive generations of lruvec `v`'s subtree (under the
    /// multi-generational LRU, its share of `lruvec_page_state(NR_INACTIVE_*)`; at the root
    /// lruvec of a node, `node_page_state()`'s).
    #[inline]
    pub fn gen_inactive(&self, v: usize, ty: usize) -> u64 {
        self.nodes[v].gen_inactive[ty]
    }

    /// `lruvec_page_state(lruvec, NR_LRU_BASE + lru)` of lruvec `v`: the list's size over the
    /// memcg's subtree (`lru` of the two-list LRU, not `Unevictable`).
    #[inline]
    pub fn subtree_size(&self, v: usize, lru: LruList) -> u64 {
        self.nodes[v].subtree[lru as usize]
    }

    /// Keep the rstat copy ([`LruvecStats::flushed_subtree_size`]) from now on: a profile whose
    /// reclaim reads it (`memcg_stats_ratelimited_reclaim`).
    pub fn keep_rstat_copy(&mut self) {
        self.rstat_copy = true;
    }

    /// `flush_memcg_stats_dwork()` -> `do_flush_stats(root_mem_cgroup)`: the periodic flush of
    /// period `epoch` (every counter's copy becomes the counter; the copy of an lruvec is taken
    /// lazily, at its first change in the period). Periods only move forward.
    pub fn flush_periodic(&mut self, epoch: u64) {
        self.epoch = self.epoch.max(epoch);
    }

    /// A flush of lruvec `v`'s memcg (`css_rstat_flush()` of a subtree holding it, outside the
    /// periodic flush: [`crate::kernel::Kernel::mem_cgroup_flush_stats`]): its copy becomes its
    /// counters as they are now, and stays so until its next change, which takes the copy
    /// again (lazily, as after a periodic flush). Other lruvecs keep theirs.
    #[inline]
    pub fn flush_lruvec(&mut self, v: usize) {
        if let Some(e) = self.nodes.get_mut(v) {
            e.flushed_epoch = 0;
        }
    }

    /// `lruvec_page_state(lruvec, NR_LRU_BASE + lru)` as 6.12's reclaim reads it: the rstat
    /// copy `pn->lruvec_stats->state` of lruvec `v`'s subtree size of `lru`, as the last
    /// periodic flush left it (the exact size when no copy is kept).
    #[inline]
    pub fn flushed_subtree_size(&self, v: usize, lru: LruList) -> u64 {
        let e = &self.nodes[v];
        if self.rstat_copy && e.flushed_epoch == self.epoch {
            e.flushed[lru as usize]
        } else {
            e.subtree[lru as usize]
        }
    }

    /// [`LruvecStats::subtree_anon_pages`] as 6.12's reclaim reads it: the rstat copy (see
    /// [`LruvecStats::flushed_subtree_size`]).
    #[inline]
    pub fn flushed_subtree_anon_pages(&self, v: usize, lru: LruList) -> u64 {
        let e = &self.nodes[v];
        if self.rstat_copy && e.flushed_epoch == self.epoch {
            e.flushed_anon[lru as usize]
        } else {
            e.anon_pages[lru as usize]
        }
    }

    /// `lruvec_page_state()` of lruvec `v`'s anonymous list `lru` (`InactiveAnon` or
    /// `ActiveAnon`) in pages, over the memcg's subtree ([`Lruvec::nr_pages`] summed).
    #[inline]
    pub fn subtree_anon_pages(&self, v: usize, lru: LruList) -> u64 {
        self.nodes[v].anon_pages[lru as usize]
    }
}

/// The units a page adds to list number `list` in [`Lruvec::size`]: its pages on a file
/// list, one entry on an anonymous list.
#[inline(always)]
fn size_units(list: usize, nr: u64) -> u64 {
    if list == LruList::InactiveFile as usize || list == LruList::ActiveFile as usize {
        nr
    } else {
        1
    }
}

/// `struct lruvec`: the LRU lists of one memcg on one node, plus the workingset clock.
/// `repr(C)`, cache-line aligned, the lists first: global reclaim's walk reads the two-list
/// LRU's sizes of every lruvec at every priority, and they share its first two cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Lruvec {
    /// The lruvec's index in the kernel's lruvecs (memcg x nodes + node), for
    /// [`LruvecStats::update`].
    pub idx: u32,
    /// `lruvec->lists[]`, then `lrugen->folios[][]` (see [`NR_ALL_LISTS`]).
    pub lists: [ListHead; NR_ALL_LISTS],
    /// `lruvec->nonresident_age`: bumped on every eviction and activation in this lruvec and
    /// its descendants (mm/workingset.c).
    pub nonresident_age: u64,
    /// `lruvec->lrugen`: the multi-generational LRU's state; when `lrugen.enabled`, pages go on
    /// the generation lists and the two-list lists hold only unevictable pages.
    pub lrugen: crate::lru_gen::LruGenStruct,
    /// `lruvec->anon_cost` (5.8+): anonymous pages reclaim swapped out, decayed
    /// (`lru_note_cost()`); noted in this lruvec and every ancestor's.
    pub anon_cost: u64,
    /// `lruvec->file_cost` (5.8+): file pages reclaim wrote and restored refaults, decayed.
    pub file_cost: u64,
    /// `reclaim_stat.recent_scanned[anon, file]` (before 5.8): pages added to and scanned
    /// on the lists of each type.
    pub recent_scanned: [u64; 2],
    /// `reclaim_stat.recent_rotated[anon, file]` (before 5.8): pages of each type that went
    /// (back) to the active list.
    pub recent_rotated: [u64; 2],
    /// `LRUVEC_CONGESTED` (mm/vmscan.c 5.16+): set by kswapd's or sane (v2) memcg reclaim's
    /// `shrink_node()` of this lruvec as its target when every dirty file page it met was
    /// under writeback and already marked `PG_reclaim` (`nr.dirty == nr.congested`); direct
    /// reclaim of this target then throttles (`VMSCAN_THROTTLE_CONGESTED`). Cleared by
    /// `clear_pgdat_congested()` (kswapd finding the node balanced) and at the end of memcg
    /// reclaim (`do_try_to_free_pages()`).
    pub congested: bool,
}

impl Lruvec {
    /// Lruvec number `idx`, with the multi-generational LRU on when `lru_gen`
    /// (`lru_gen_init_lruvec()` at time `now`).
    pub fn new(idx: usize, lru_gen: bool, now: crate::types::Nanos) -> Lruvec {
        let mut v = Lruvec { idx: idx as u32, ..Lruvec::default() };
        if lru_gen {
            v.lrugen.init(now);
        }
        v
    }

    /// `lruvec_page_state(lruvec, NR_LRU_BASE + lru)`: the file lists in pages (a large
    /// folio counts its pages); the anon lists in entries, as the anon reclaim's callers
    /// expect (a huge page is one). Under the multi-generational LRU the two youngest
    /// generations count as active, the others as inactive (`lru_gen_update_size()`).
    #[inline]
    pub fn size(&self, lru: LruList) -> u64 {
        if self.lrugen.enabled && lru != LruList::Unevictable {
            return crate::lru_gen::compat_size(self, lru, false);
        }
        if lru.is_file() {
            self.lists[lru as usize].pages
        } else {
            self.lists[lru as usize].len
        }
    }

    /// Base pages on `lru` (`NR_LRU_BASE + lru` in pages: a huge page counts 512).
    #[inline]
    pub fn nr_pages(&self, lru: LruList) -> u64 {
        if self.lrugen.enabled && lru != LruList::Unevictable {
            return crate::lru_gen::compat_size(self, lru, true);
        }
        self.lists[lru as usize].pages
    }

    /// Pages on all file lists.
    pub fn file_pages(&self) -> u64 {
        self.size(LruList::InactiveFile) + self.size(LruList::ActiveFile)
    }

    /// `lruvec_add_folio()`: put `id` at the head of `lru` and set `PG_lru`; under the
    /// multi-generational LRU, at the head of the generation `lru_gen_add_folio()` picks.
    #[inline]
    pub fn add(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId, lru: LruList) {
        let list = if self.lrugen.enabled && lru != LruList::Unevictable {
            crate::lru_gen::lru_gen_add_folio(&self.lrugen, &mut pages[id], lru, false)
        } else {
            lru as usize
        };
        self.link(pages, stats, id, list);
    }

    /// `lruvec_del_folio()` then `lruvec_add_folio(lru)` of a folio on an LRU list, at the same
    /// instant (`folio_activate_fn()`'s move to the active list): the same lists, flags and
    /// [`LruvecStats`] as [`Lruvec::del`] followed by [`Lruvec::add`]; between two lists of
    /// the two-list LRU the folio's pages are counted once and the sizes updated in one walk
    /// ([`LruvecStats::move_folio`]). Returns the folio's pages.
    #[inline(always)]
    pub fn move_folio(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId, lru: LruList) -> u64 {
        let from = pages[id].lru() as usize;
        let to = lru as usize;
        if self.lrugen.enabled || from >= LruList::Unevictable as usize || to >= LruList::Unevictable as usize {
            self.del(pages, stats, id);
            self.add(pages, stats, id, lru);
            return pages.folio_nr_pages(id);
        }
        let (from, nr) = self.unlink_raw(pages, id);
        stats.move_folio(self.idx, from, to, nr);
        let l = &mut self.lists[to];
        let old = l.head;
        {
            let p = &mut pages[id];
            p.next = old;
            p.set_lru(to as u8);
            p.flags |= pg::LRU;
        }
        if old != PageId::NIL {
            pages[old].prev = id;
        } else {
            l.tail = id;
        }
        l.head = id;
        l.pages += nr;
        l.len += 1;
        nr
    }

    /// `lru_gen_update_size()`'s compatibility count: a page of `nr` pages joining or leaving
    /// list number `list`, when that is a generation list of an inactive generation.
    #[inline(always)]
    fn gen_inactive_update(&self, stats: &mut LruvecStats, list: usize, nr: u64, add: bool) {
        if list >= NR_LRU_LISTS && !crate::lru_gen::lru_gen_is_active(&self.lrugen, crate::lru_gen::list_gen(list)) {
            stats.update_gen_inactive(self.idx, crate::lru_gen::list_type(list), nr, add);
        }
    }

    /// Put `id` at the head of list number `list` (of [`NR_ALL_LISTS`]) and set `PG_lru`.
    #[inline]
    pub fn link(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId, list: usize) {
        let nr = pages.folio_nr_pages(id);
        stats.update_folio(self.idx, list, nr, true);
        self.gen_inactive_update(stats, list, nr, true);
        self.push_head(pages, id, list, nr);
    }

    /// The list part of [`Lruvec::link`]: `id` (a folio of `nr` pages) at the head of list
    /// number `list`, `PG_lru` set, the list's counts; no [`LruvecStats`] update.
    #[inline(always)]
    fn push_head(&mut self, pages: &mut PageArena, id: PageId, list: usize, nr: u64) {
        let l = &mut self.lists[list];
        let old = l.head;
        {
            let p = &mut pages[id];
            debug_assert!(!p.test(pg::LRU), "page already on an LRU");
            p.prev = PageId::NIL;
            p.next = old;
            p.set_lru(list as u8);
            p.flags |= pg::LRU;
        }
        l.pages += nr;
        if old != PageId::NIL {
            pages[old].prev = id;
        } else {
            l.tail = id;
        }
        l.head = id;
        l.len += 1;
    }

    /// [`Lruvec::link`] of an order-0 page onto list `list` of the two-list LRU (one of the
    /// four evictable lists), without its [`LruvecStats`] update: the caller applies it for
    /// the pages it links in a row ([`LruvecStats::update`] of their count:
    /// `folio_batch_move_lru()`'s `__update_lru_size()` calls of one lruvec and list summed),
    /// before anything reads the sizes.
    #[inline(always)]
    pub fn link_order0_unstated(&mut self, pages: &mut PageArena, id: PageId, list: usize) {
        debug_assert!(list < NR_LRU_LISTS - 1 && !self.lrugen.enabled && pages.folio_nr_pages(id) == 1);
        self.push_head(pages, id, list, 1);
    }

    /// Put `id` right after `after` (on list number `list`) and set `PG_lru`
    /// (`list_add_tail(&tail->lru, &head->lru)` of a split's tail pages, `lru_add_page_tail()`).
    pub fn link_after(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, after: PageId, id: PageId, list: usize) {
        let nr = pages.folio_nr_pages(id);
        stats.update_folio(self.idx, list, nr, true);
        self.gen_inactive_update(stats, list, nr, true);
        let next = pages[after].next;
        {
            let p = &mut pages[id];
            debug_assert!(!p.test(pg::LRU), "page already on an LRU");
            p.prev = after;
            p.next = next;
            p.set_lru(list as u8);
            p.flags |= pg::LRU;
        }
        pages[after].next = id;
        let l = &mut self.lists[list];
        if next != PageId::NIL {
            pages[next].prev = id;
        } else {
            l.tail = id;
        }
        l.pages += nr;
        l.len += 1;
    }

    /// `lruvec_add_folio_tail()`: put `id` at the tail of `lru` (next to be reclaimed); under
    /// the multi-generational LRU, at the tail of the oldest generation
    /// (`lru_gen_add_folio(reclaiming = true)`).
    #[inline]
    pub fn add_tail(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId, lru: LruList) {
        let list = if self.lrugen.enabled && lru != LruList::Unevictable {
            crate::lru_gen::lru_gen_add_folio(&self.lrugen, &mut pages[id], lru, true)
        } else {
            lru as usize
        };
        self.link_tail(pages, stats, id, list);
    }

    /// Put `id` at the tail of list number `list` and set `PG_lru`.
    #[inline]
    pub fn link_tail(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId, list: usize) {
        let nr = pages.folio_nr_pages(id);
        stats.update_folio(self.idx, list, nr, true);
        self.gen_inactive_update(stats, list, nr, true);
        let l = &mut self.lists[list];
        let old = l.tail;
        {
            let p = &mut pages[id];
            p.next = PageId::NIL;
            p.prev = old;
            p.set_lru(list as u8);
            p.flags |= pg::LRU;
            l.pages += nr;
        }
        if old != PageId::NIL {
            pages[old].next = id;
        } else {
            l.head = id;
        }
        l.tail = id;
        l.len += 1;
    }

    /// `lruvec_del_folio()`: unlink `id` from its list and clear `PG_lru`. A page taken off
    /// one of the two youngest generations gets `PG_active` (`lru_gen_del_folio(reclaiming =
    /// false)`, "for folio_migrate_flags()"), so that putting it back keeps it young.
    #[inline(always)]
    pub fn del(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId) {
        let list = pages[id].lru() as usize;
        self.unlink(pages, stats, id);
        if list >= NR_LRU_LISTS && crate::lru_gen::lru_gen_is_active(&self.lrugen, crate::lru_gen::list_gen(list)) {
            pages[id].flags |= pg::ACTIVE;
        }
    }

    /// Unlink `id` from its list and clear `PG_lru`, leaving its flags alone
    /// (`lru_gen_del_folio(reclaiming = true)` for the generation lists).
    #[inline(always)]
    pub fn unlink(&mut self, pages: &mut PageArena, stats: &mut LruvecStats, id: PageId) {
        let (lru, nr) = self.unlink_raw(pages, id);
        stats.update_folio(self.idx, lru, nr, false);
        self.gen_inactive_update(stats, lru, nr, false);
    }

    /// The list surgery of [`Lruvec::unlink`] and [`Lruvec::isolate`]: unlink `id`, clear
    /// `PG_lru`, count its pages off the list; returns (the list it was on, its pages).
    #[inline(always)]
    fn unlink_raw(&mut self, pages: &mut PageArena, id: PageId) -> (usize, u64) {
        let nr = pages.folio_nr_pages(id);
        let (prev, next, lru) = {
            let p = &mut pages[id];
            debug_assert!(p.test(pg::LRU), "page not on an LRU");
            p.flags &= !pg::LRU;
            (p.prev, p.next, p.lru())
        };
        let l = &mut self.lists[lru as usize];
        l.pages -= nr;
        if prev != PageId::NIL {
            pages[prev].next = next;
        } else {
            l.head = next;
        }
        if next != PageId::NIL {
            pages[next].prev = prev;
        } else {
            l.tail = prev;
        }
        l.len -= 1;
        let p = &mut pages[id];
        p.prev = PageId::NIL;
        p.next = PageId::NIL;
        (lru as usize, nr)
    }

    /// `isolate_lru_folios()` of one folio from a list of the two-list LRU: unlink `id` and
    /// clear `PG_lru`, leaving [`LruvecStats`] to the caller, which applies the batch's total
    /// once (`update_lru_sizes()` after the isolation loop). Returns the folio's pages.
    #[inline(always)]
    pub fn isolate(&mut self, pages: &mut PageArena, id: PageId) -> u64 {
        debug_assert!((pages[id].lru() as usize) < NR_LRU_LISTS, "isolate() from a generation list");
        self.unlink_raw(pages, id).1
    }

    /// [`Lruvec::isolate`] of [`Lruvec::tail`]'s folio of list `lru` (two-list LRU), the
    /// oldest, as `isolate_lru_folios()` takes them (`lru_to_folio()`, mm/vmscan.c 6.6): one
    /// pass that reads the folio once and leaves out [`Lruvec::unlink_raw`]'s tests a tail
    /// does not need (it has no `next`, and it is on `lru`). Returns the folio and its pages;
    /// None on an empty list. Same lists, flags and counts as `tail()` then `isolate()` (issue
    /// 17's (b): the scan loop of `shrink_inactive_list()`).
    #[inline(always)]
    pub fn isolate_tail(&mut self, pages: &mut PageArena, lru: LruList) -> Option<(PageId, u64)> {
        let l = &mut self.lists[lru as usize];
        let id = l.tail;
        if id == PageId::NIL {
            return None;
        }
        let flags = pages[id].flags;
        let nr = if flags & pg::HEAD == 0 { 1 } else { pages.folio_nr_pages(id) };
        let p = &mut pages[id];
        debug_assert!(p.test(pg::LRU), "page not on an LRU");
        debug_assert!(p.lru() == lru as u8 && p.next == PageId::NIL, "the list's tail is on it, last");
        p.flags = flags & !pg::LRU;
        let prev = std::mem::replace(&mut p.prev, PageId::NIL);
        l.pages -= nr;
        l.len -= 1;
        l.tail = prev;
        if prev != PageId::NIL {
            pages[prev].next = PageId::NIL;
        } else {
            l.head = PageId::NIL;
        }
        Some((id, nr))
    }

    /// Make the neighbours of `id` (a copy of a page that was on a list here) point to it:
    /// the page keeps its place on the list while changing frames (`folio_migrate_flags()`
    /// and `putback_lru_page()` keep LRU order in the kernel only approximately; here the
    /// position is kept exactly).
    pub fn relink(&mut self, pages: &mut PageArena, id: PageId) {
        let (prev, next, lru) = (pages[id].prev, pages[id].next, pages[id].lru());
        let l = &mut self.lists[lru as usize];
        if prev != PageId::NIL {
            pages[prev].next = id;
        } else {
            l.head = id;
        }
        if next != PageId::NIL {
            pages[next].prev = id;
        } else {
            l.tail = id;
        }
    }

    /// The oldest page of `lru`, if any (`lru_to_folio()`).
    #[inline]
    pub fn tail(&self, lru: LruList) -> Option<PageId> {
        self.list_tail(lru as usize)
    }

    /// The oldest page of list number `list`, if any.
    #[inline]
    pub fn list_tail(&self, list: usize) -> Option<PageId> {
        let t = self.lists[list].tail;
        (t != PageId::NIL).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::InodeId;

    fn walk(v: &Lruvec, pages: &PageArena, lru: LruList) -> Vec<u32> {
        let mut out = vec![];
        let mut cur = v.lists[lru as usize].head;
        while cur != PageId::NIL {
            out.push(pages[cur].index);
            cur = pages[cur].next;
        }
        out
    }

    #[test]
    fn add_del_keep_order_and_counts() {
        let mut pages = PageArena::with_capacity(8);
        let mut v = Lruvec::default();
        let mut st = LruvecStats::default();
        st.push(None);
        let ids: Vec<_> = (0..4).map(|i| pages.init(PageId(i), InodeId(0), i)).collect();
        for &id in &ids {
            v.add(&mut pages, &mut st, id, LruList::InactiveFile);
        }
        assert_eq!(walk(&v, &pages, LruList::InactiveFile), vec![3, 2, 1, 0]);
        assert_eq!(v.tail(LruList::InactiveFile), Some(ids[0]));
        v.del(&mut pages, &mut st, ids[1]);
        assert_eq!(walk(&v, &pages, LruList::InactiveFile), vec![3, 2, 0]);
        v.del(&mut pages, &mut st, ids[0]);
        v.add_tail(&mut pages, &mut st, ids[0], LruList::ActiveFile);
        assert_eq!(v.size(LruList::InactiveFile), 2);
        assert_eq!(v.size(LruList::ActiveFile), 1);
        assert_eq!(v.file_pages(), 3);
        assert!(!pages[ids[1]].test(pg::LRU));
        assert!(pages[ids[0]].test(pg::LRU));
        v.del(&mut pages, &mut st, ids[3]);
        v.del(&mut pages, &mut st, ids[2]);
        assert_eq!(v.tail(LruList::InactiveFile), None);
    }

    /// `Lruvec::isolate_tail()` (issue 17's (b)) leaves the lists, the counts and every page's
    /// flags and links as `tail()` then `isolate()` do, down to the empty list, on a list of
    /// order-0 pages with a large folio in it. Fails with `isolate_tail()` leaving the new
    /// tail's `next` as it was (run: page 4's `next`); it compares the emptied list's `head` and
    /// the large folio's page count too.
    #[test]
    fn isolate_tail_is_tail_then_isolate() {
        let build = || {
            let mut pages = PageArena::with_capacity(16);
            let mut v = Lruvec::default();
            let mut st = LruvecStats::default();
            st.push(None);
            let mut ids = vec![];
            for i in 0..3 {
                ids.push(pages.init(PageId(i), InodeId(0), i));
            }
            // an order-2 folio: its head and the order kept in its first tail (`folio_order()`)
            for i in 4..8 {
                pages.init(PageId(i), InodeId(0), i);
            }
            pages[PageId(4)].flags |= pg::HEAD;
            pages[PageId(5)].mapcount = 2;
            ids.insert(1, PageId(4));
            ids.push(pages.init(PageId(8), InodeId(0), 8));
            for &id in &ids {
                v.add(&mut pages, &mut st, id, LruList::InactiveFile);
            }
            let active = pages.init(PageId(9), InodeId(0), 9);
            v.add(&mut pages, &mut st, active, LruList::ActiveFile);
            (pages, v)
        };
        let (mut pa, mut va) = build();
        let (mut pb, mut vb) = build();
        loop {
            let a = va.tail(LruList::InactiveFile).map(|p| (p, va.isolate(&mut pa, p)));
            let b = vb.isolate_tail(&mut pb, LruList::InactiveFile);
            assert_eq!(a, b);
            for l in 0..NR_LRU_LISTS {
                let (la, lb) = (&va.lists[l], &vb.lists[l]);
                assert_eq!((la.head, la.tail, la.len, la.pages), (lb.head, lb.tail, lb.len, lb.pages), "list {l}");
            }
            for i in 0..10 {
                let (x, y) = (&pa[PageId(i)], &pb[PageId(i)]);
                assert_eq!((x.flags, x.prev, x.next), (y.flags, y.prev, y.next), "page {i}");
            }
            if a.is_none() {
                break;
            }
        }
        assert_eq!(walk(&vb, &pb, LruList::ActiveFile), vec![9]);
    }
}

/// Batches a node's ledger remembers ([`IsolatedLedger`]): the last ones recorded, whichever
/// context recorded them. A task runs one batch at a time, and the scheduler runs the task
/// furthest behind next, so the batches another context can still meet are those of the
/// contexts' last quanta; a quantum isolating more batches than this while others lag behind
/// it loses its oldest ones from the count. One quantum is a whole syscall: a reader's
/// 128 KiB `read()` whose readahead allocations each enter direct reclaim walks several
/// `shrink_inactive_list()` batches per reclaim (priorities 12..0), so a lagging context must
/// see back over the other contexts' whole quanta, not their last batch. Until iso23
/// (2026-11-30) this was 32, one batch per context of a 32-task scenario: in
/// qemu61-throttle-isolated (32 readers in direct reclaim at once, boot 1's calibration) the
/// 32 slots held 1-2 readers' quanta, the lagging readers met 60-280 isolated pages where the
/// others held more, and `vmscan.throttled.isolated` was 105; 1024 and 4096 slots give the
/// same run (1372), 256 another (1750). The count is on the cold path only
/// ([`IsolatedLedger::recorded`] first).
pub const ISOLATED_LEDGER_LEN: usize = 1024;

/// One `shrink_inactive_list()` / `shrink_active_list()` batch's isolation on the engine's
/// clock: `pages` taken off an LRU list of the node at `start` and put back (or freed) at
/// `end` (`NR_ISOLATED_ANON/FILE += nr_taken` ... `-= nr_taken`).
#[derive(Clone, Copy, Debug, Default)]
struct IsolatedBatch {
    start: crate::types::Nanos,
    end: crate::types::Nanos,
    pages: u32,
    file: bool,
    /// The batch's reclaimer called `too_many_isolated()` and found the node below its limit
    /// just before `start` (`wake_throttle_isolated()`, 5.16+).
    checked: bool,
}

/// `NR_ISOLATED_ANON` and `NR_ISOLATED_FILE` of a node (per zone before 4.8; per node here, as
/// the engine's LRUs are) over time. The engine runs each batch of reclaim to its end within
/// the running context's quantum, so a batch is recorded once it is over, with the times it
/// took its pages and gave them back; a context whose clock is behind sees it as isolated
/// when its own clock is within them ([`IsolatedLedger::isolated_at`]). Fixed capacity, no
/// allocation; recording is O(1), a count O([`ISOLATED_LEDGER_LEN`]) and O(1) when the
/// ledger holds too few pages to matter ([`IsolatedLedger::recorded`]).
#[derive(Clone, Debug)]
pub struct IsolatedLedger {
    batches: [IsolatedBatch; ISOLATED_LEDGER_LEN],
    next: usize,
    /// The pages of the remembered batches, per type (anon, file).
    total: [u64; 2],
    /// The latest end of a batch ever recorded: nothing is isolated from then on.
    max_end: crate::types::Nanos,
}

impl Default for IsolatedLedger {
    /// Empty (`[T; N]: Default` stops at 32).
    fn default() -> Self {
        IsolatedLedger { batches: [IsolatedBatch::default(); ISOLATED_LEDGER_LEN], next: 0, total: [0; 2], max_end: 0 }
    }
}

impl IsolatedLedger {
    /// Record a batch of `pages` of one type (`file`) isolated from `start` to `end`.
    #[inline]
    pub fn record(&mut self, file: bool, start: crate::types::Nanos, end: crate::types::Nanos, pages: u64, checked: bool) {
        let old = self.batches[self.next];
        self.total[old.file as usize] -= old.pages as u64;
        let pages = pages.min(u32::MAX as u64) as u32;
        self.batches[self.next] = IsolatedBatch { start, end, pages, file, checked };
        self.total[file as usize] += pages as u64;
        self.max_end = self.max_end.max(end);
        self.next = (self.next + 1) % ISOLATED_LEDGER_LEN;
    }

    /// An upper bound of [`IsolatedLedger::isolated_at`] at `t`, in O(1): 0 once every
    /// batch is over, else the pages of type `file` the remembered batches hold.
    #[inline]
    pub fn recorded(&self, file: bool, t: crate::types::Nanos) -> u64 {
        if t >= self.max_end {
            0
        } else {
            self.total[file as usize]
        }
    }

    /// `node_page_state(pgdat, NR_ISOLATED_ANON + file)` at time `t`: the pages of the
    /// batches isolated at `t` (`start <= t < end`). A context's own batches are over by its
    /// clock.
    pub fn isolated_at(&self, file: bool, t: crate::types::Nanos) -> u64 {
        self.batches.iter().filter(|b| b.file == file && b.start <= t && t < b.end).map(|b| b.pages as u64).sum()
    }

    /// The first `too_many_isolated()` that found the node below its limit after `t` and
    /// before `until` (a batch recorded `checked` that started then), which wakes the
    /// `VMSCAN_THROTTLE_ISOLATED` sleepers (`wake_throttle_isolated()`, 5.16+).
    pub fn first_check_between(&self, t: crate::types::Nanos, until: crate::types::Nanos) -> Option<crate::types::Nanos> {
        self.batches.iter().filter(|b| b.checked && b.pages > 0 && b.start > t && b.start < until).map(|b| b.start).min()
    }
}
