//! Refault detection with shadow entries (mm/workingset.c).
//!
//! When reclaim evicts a page-cache page it leaves a shadow entry in the page's slot holding
//! the memcg, whether the page was in the working set, and the eviction "age" of its lruvec
//! (`nonresident_age`, advanced by every eviction and activation in the lruvec and its
//! ancestors). When the page is read again, the refault distance `age now - age at eviction`
//! is how many pages the page would have needed on top of the inactive list to stay resident;
//! if it is not larger than the active file list the page is activated straight away.

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::filemap::XA_CHUNK_SHIFT;
use crate::types::{InodeId, MemcgId, PageId};
use std::collections::VecDeque;

/// A memcg's part of the `shadow_nodes` list_lru: xarray nodes holding only shadow entries,
/// oldest first, as (inode, node index, generation).
#[derive(Clone, Debug, Default)]
pub struct ShadowNodeList {
    /// Entries; some may be stale (see [`crate::filemap::XaNode::gen`]).
    pub nodes: VecDeque<(InodeId, u32, u32)>,
    /// Nodes really on the list.
    pub count: u64,
    /// The shrinker's `nr_deferred` for this memcg (`shrinker_info->nr_deferred`, the root's
    /// `shrinker->nr_deferred`): scan work `do_shrink_slab()` owed and carried to its next
    /// call (zero-seek profiles, [`crate::profile::KernelProfile::shadow_shrinker_zero_seek`]).
    pub nr_deferred: u64,
}

/// `do_shrink_slab()` (mm/vmscan.c, 4.19+; unchanged in 6.1 and 6.12) for a zero-seek
/// shrinker (`shrinker->seeks == 0`, the shadow-node shrinker): `freeable` objects counted,
/// `nr` deferred from earlier calls, at reclaim `priority`. `delta = freeable / 2`,
/// `total_scan = min((nr >> priority) + delta, 2 * freeable)`, scanned in batches of
/// `min(SHRINK_BATCH, total_scan)` "while (total_scan >= batch_size || total_scan >=
/// freeable)"; `next_deferred = min(max(nr + delta - scanned, 0), 2 * freeable)`. Returns
/// (objects to scan, next `nr_deferred`): fewer than `2 * SHRINK_BATCH` freeable nodes are
/// left alone until the deferred work, shifted by the priority, makes up a batch.
pub fn do_shrink_slab_zero_seek(freeable: u64, nr: u64, priority: u32) -> (u64, u64) {
    use crate::dcache::SHRINK_BATCH;
    if freeable == 0 {
        return (0, nr);
    }
    let delta = freeable / 2;
    let mut total_scan = ((nr >> priority) + delta).min(2 * freeable);
    let mut scanned = 0;
    while total_scan >= SHRINK_BATCH || total_scan >= freeable {
        let n = total_scan.min(SHRINK_BATCH);
        total_scan -= n;
        scanned += n;
    }
    (scanned, (nr + delta).saturating_sub(scanned).min(2 * freeable))
}
use crate::vmstat::VmEvent;

const MEMCG_BITS: u32 = 16;
const WS_SHIFT: u32 = 1 + MEMCG_BITS;
const AGE_SHIFT: u32 = WS_SHIFT + 1;
/// Bits left for the eviction age (`EVICTION_BITS`).
pub const EVICTION_BITS: u32 = 64 - AGE_SHIFT;
const EVICTION_MASK: u64 = (1u64 << EVICTION_BITS) - 1;

/// `pack_shadow()`: memcg id, working-set bit and eviction age in one tagged word (bit 0 set,
/// as `xa_mk_value()` marks value entries).
#[inline]
pub fn pack_shadow(memcg: MemcgId, eviction: u64, workingset: bool) -> u64 {
    debug_assert!(memcg.0 < (1 << MEMCG_BITS));
    1 | ((memcg.0 as u64) << 1) | ((workingset as u64) << WS_SHIFT) | ((eviction & EVICTION_MASK) << AGE_SHIFT)
}

/// `unpack_shadow()`.
#[inline]
pub fn unpack_shadow(shadow: u64) -> (MemcgId, u64, bool) {
    let memcg = MemcgId(((shadow >> 1) & ((1 << MEMCG_BITS) - 1)) as u32);
    let ws = (shadow >> WS_SHIFT) & 1 == 1;
    (memcg, shadow >> AGE_SHIFT, ws)
}

impl Kernel {
    /// `workingset_update_node()`: after a slot of `inode`'s node around `index` changed, put
    /// the node on `memcg`'s shadow-node list if it now holds only shadow entries, or take it
    /// off if it holds pages again or nothing at all. (The kernel files a node under the memcg
    /// its slab object is charged to; the engine uses the memcg of the page whose arrival or
    /// eviction changed the node. Where the profile charges no tree nodes — before 4.6, and
    /// 4.20-5.1 — every node is filed under the root, whose list only global reclaim shrinks:
    /// limit reclaim keeps a memcg's shadow entries.)
    pub fn workingset_update_node(&mut self, inode: InodeId, index: u32, memcg: MemcgId) {
        let chunk = index >> XA_CHUNK_SHIFT;
        let mapping = &mut self.mappings[inode.idx()];
        let Some(node) = mapping.node_mut(chunk) else { return };
        if node.multi != 0 {
            // No leaf here: the slot is the shift-6 node's (workingset_update_shift6()).
            return;
        }
        let shadow_only = node.pages == 0 && node.shadows > 0;
        if shadow_only && !node.on_lru {
            let m = if memcg == MemcgId::NONE || !self.profile.account_xa_nodes { MemcgId::ROOT } else { memcg };
            node.on_lru = true;
            node.owner = m;
            mapping.gen_seq = mapping.gen_seq.wrapping_add(1);
            let gen = mapping.gen_seq;
            mapping.node_mut(chunk).expect("allocated").gen = gen;
            let list = &mut self.shadow_nodes[m.idx()];
            list.nodes.push_back((inode, chunk, gen));
            list.count += 1;
            // One more node may put the list over the shrinker's limit.
            self.reclaim_walk_dirty(m);
        } else if !shadow_only && node.on_lru {
            node.on_lru = false;
            let m = node.owner;
            self.shadow_nodes[m.idx()].count -= 1;
        }
    }

    /// `workingset_update_node()` (mm/workingset.c, 6.1 and 6.18) of the shift-6 node above
    /// `chunk` ([`crate::xarray::XArray::shift6`]), called by `xas_update()` when a store of a
    /// multi-index entry changes its `count` / `nr_values` (`update_node()`, `xas_split()`)
    /// or a leaf below it is allocated (`xas_alloc()`: `parent->count++`) or freed
    /// (`xas_delete_node()`): on the list when `node->count && node->count ==
    /// node->nr_values` (only multi-index shadows), off it otherwise. Filed under the memcg
    /// its slab object is charged to (`list_lru_add_obj()`), else `memcg`'s (root's when
    /// none).
    pub fn workingset_update_shift6(&mut self, inode: InodeId, chunk: u32, memcg: MemcgId) {
        let mapping = &mut self.mappings[inode.idx()];
        let shadow_only = mapping.xa.shift6_shadow_only(chunk);
        let Some(a) = mapping.xa.shift6_mut(chunk) else { return };
        if shadow_only && !a.on_lru {
            let m = if a.charged != MemcgId::NONE {
                a.charged
            } else if memcg == MemcgId::NONE || !self.profile.account_xa_nodes {
                MemcgId::ROOT
            } else {
                memcg
            };
            mapping.gen_seq = mapping.gen_seq.wrapping_add(1);
            let gen = mapping.gen_seq;
            let a = mapping.xa.shift6_mut(chunk).expect("found above");
            a.on_lru = true;
            a.owner = m;
            a.gen = gen;
            let key = (chunk & !(crate::xarray::XA_CHUNK_SIZE as u32 - 1)) | crate::xarray::SHIFT6_KEY;
            let list = &mut self.shadow_nodes[m.idx()];
            list.nodes.push_back((inode, key, gen));
            list.count += 1;
            self.reclaim_walk_dirty(m);
        } else if !shadow_only && a.on_lru {
            a.on_lru = false;
            let m = a.owner;
            self.shadow_nodes[m.idx()].count -= 1;
        }
    }

    /// `shadow_lru_isolate()` of a listed shift-6 node whose first chunk is `first`: every
    /// multi-index shadow entry below it is dropped, the node freed and uncharged
    /// (`xa_delete_node()`), and WORKINGSET_NODERECLAIM counts one node.
    fn shadow_lru_isolate_shift6(&mut self, inode: InodeId, first: u32) {
        let m = &mut self.mappings[inode.idx()];
        debug_assert!(m.xa.shift6_shadow_only(first), "a listed shift-6 node holds only shadows");
        let a = m.xa.shift6_mut(first).expect("a listed node is allocated");
        let memcg = std::mem::replace(&mut a.charged, MemcgId::NONE);
        let slab = std::mem::replace(&mut a.slab, false);
        a.on_lru = false;
        a.shadows = 0;
        self.memcg_kmem_uncharge(memcg, crate::slab::RADIX_TREE_NODE_SIZE);
        if slab {
            self.pagecache_slab_free(crate::slab::RADIX_TREE_NODE_SIZE);
        }
        let m = &mut self.mappings[inode.idx()];
        for c in first..first + crate::xarray::XA_CHUNK_SIZE as u32 {
            if m.node(c).is_some_and(|n| n.multi != 0) {
                m.nrshadows -= m.xa.clear_values(c) as u64;
                let n = m.node_mut(c).expect("found");
                n.shadows = 0;
                n.multi = 0;
                m.xa.free_leaf(c);
            }
        }
        self.xas_shrink(inode);
    }

    /// `count_shadow_nodes()` + `scan_shadow_nodes()`: the shadow-node shrinker of `memcg`,
    /// run from `shrink_slab()` during reclaim. Since 4.20 it keeps at most one node per 8
    /// pages of the memcg's LRU lists and slab (`pages >> (XA_CHUNK_SHIFT - 3)`); before 4.6,
    /// one per 16 present pages of the machine (`node_present_pages() >> 4`, the engine's one
    /// list standing for the per-node ones). It frees the oldest nodes beyond that, forgetting
    /// their shadow entries (`shadow_lru_isolate()`).
    #[inline]
    pub fn shrink_shadow_nodes(&mut self, memcg: MemcgId, priority: u32) {
        // shrink_slab_memcg() calls a memcg-aware shrinker only for the set bits of the
        // memcg's shrinker_info map, set while its list_lru holds an item: an empty list is
        // skipped without counting (here, without a call: reclaim's walk visits every memcg).
        if self.shadow_nodes[memcg.idx()].count != 0 {
            self.shrink_shadow_nodes_listed(memcg, priority);
        }
    }

    /// The reclaim walk's verdict on `memcg`'s shadow-node list (see
    /// [`Kernel::shrink_shadow_nodes`]): 0 when a visit's shrinker call does nothing at any
    /// priority (the list within its cap), else the lowest priority from which on it does
    /// nothing (on zero-seek profiles, once `nr_deferred` has reached its cap of twice the
    /// freeable nodes, a call that scans nothing leaves it there), else
    /// [`crate::mmzone::ACT_DIRTY`] (it may act, or change `nr_deferred`, at any priority).
    pub(crate) fn shadow_nodes_walk_level(&self, memcg: MemcgId) -> u8 {
        let l = &self.shadow_nodes[memcg.idx()];
        if l.count == 0 {
            return 0;
        }
        let max = self.shadow_nodes_max(memcg);
        if l.count <= max {
            return 0;
        }
        let freeable = l.count - max;
        if !self.profile.shadow_shrinker_zero_seek || l.nr_deferred < 2 * freeable {
            return crate::mmzone::ACT_DIRTY;
        }
        // do_shrink_slab()'s scan shrinks with the priority: find where it stops.
        let mut level = crate::mmzone::ACT_DIRTY;
        for p in (0..=crate::vmscan::DEF_PRIORITY).rev() {
            if do_shrink_slab_zero_seek(freeable, l.nr_deferred, p).0 != 0 {
                break;
            }
            level = p as u8;
        }
        level
    }

    /// `count_shadow_nodes()`'s limit for `memcg`'s list: the nodes the shadow-node shrinker
    /// keeps (see [`Kernel::shrink_shadow_nodes`]).
    pub(crate) fn shadow_nodes_max(&self, memcg: MemcgId) -> u64 {
        match self.profile.shadow_node_cap {
            crate::profile::ShadowNodeCap::MemcgLruAndSlab => {
                let lru: u64 = if self.profile.lru_gen {
                    LruList::ALL.iter().map(|&x| self.memcg_lru_size(memcg, x)).sum()
                } else {
                    // `Lruvec::size` of the two-list LRU: entries on the anonymous and
                    // unevictable lists, pages on the file lists.
                    let base = self.lruvec_idx(memcg, 0);
                    self.lruvecs[base..base + self.nr_nodes as usize]
                        .iter()
                        .map(|l| l.lists[LruList::InactiveAnon as usize].len + l.lists[LruList::ActiveAnon as usize].len + l.lists[LruList::InactiveFile as usize].pages + l.lists[LruList::ActiveFile as usize].pages + l.lists[LruList::Unevictable as usize].len)
                        .sum()
                };
                let slab = self.memcgs.get(memcg).kmem_bytes / crate::types::PAGE_SIZE;
                (lru + slab) >> (XA_CHUNK_SHIFT - 3)
            }
            crate::profile::ShadowNodeCap::NodePresent => self.present_pages >> (1 + XA_CHUNK_SHIFT - 3),
        }
    }

    /// [`Kernel::shrink_shadow_nodes`] of a memcg with shadow nodes on its list.
    #[inline(never)]
    fn shrink_shadow_nodes_listed(&mut self, memcg: MemcgId, priority: u32) {
        let max_nodes = self.shadow_nodes_max(memcg);
        let list = &mut self.shadow_nodes[memcg.idx()];
        // count_shadow_nodes(): "if (nodes <= max_nodes) return 0; return nodes - max_nodes;"
        let freeable = list.count.saturating_sub(max_nodes);
        if freeable == 0 {
            return;
        }
        let mut to_scan = if self.profile.shadow_shrinker_zero_seek {
            let (scan, next) = do_shrink_slab_zero_seek(freeable, list.nr_deferred, priority);
            list.nr_deferred = next;
            scan
        } else {
            freeable
        };
        // scan_shadow_nodes(): list_lru_shrink_walk_irq() of `to_scan` nodes from the list's
        // head, each freed by shadow_lru_isolate().
        while to_scan > 0 {
            let Some((inode, chunk, gen)) = self.shadow_nodes[memcg.idx()].nodes.pop_front() else { break };
            if chunk & crate::xarray::SHIFT6_KEY != 0 {
                let first = chunk & !crate::xarray::SHIFT6_KEY;
                let live = self.mappings[inode.idx()].xa.shift6(first).is_some_and(|(a, _)| a.on_lru && a.gen == gen);
                if !live {
                    continue;
                }
                to_scan -= 1;
                self.cpu(self.cost.scan_page);
                self.shadow_lru_isolate_shift6(inode, first);
                self.shadow_nodes[memcg.idx()].count -= 1;
                self.vmstat.count(VmEvent::WorkingsetNodereclaim, 1);
                continue;
            }
            let live = self.mappings[inode.idx()].node(chunk).is_some_and(|n| n.on_lru && n.gen == gen);
            if !live {
                continue; // stale entry: the node left the list, or was freed, since
            }
            to_scan -= 1;
            self.cpu(self.cost.scan_page);
            let m = &mut self.mappings[inode.idx()];
            debug_assert_eq!(m.node(chunk).expect("a listed node is allocated").pages, 0);
            m.nrshadows -= m.xa.clear_values(chunk) as u64;
            let node = m.node_mut(chunk).expect("a listed node is allocated");
            node.shadows = 0;
            node.on_lru = false;
            self.xa_node_uncharge(inode, chunk);
            self.mappings[inode.idx()].xa.free_leaf(chunk);
            // xas_delete_node() -> xas_update() of the parent: a shift-6 node left with only
            // multi-index shadows goes on the list.
            if self.mappings[inode.idx()].max_order >= 6 {
                self.workingset_update_shift6(inode, chunk, memcg);
            }
            self.xas_shrink(inode);
            self.shadow_nodes[memcg.idx()].count -= 1;
            self.vmstat.count(VmEvent::WorkingsetNodereclaim, 1);
        }
    }

    /// `workingset_age_nonresident()`: advance the age of `memcg`'s lruvec, and of its
    /// ancestors' when the profile propagates ages (v5.5+; older kernels bump only the local
    /// `inactive_age`).
    #[inline]
    pub fn workingset_age_nonresident(&mut self, memcg: MemcgId, nr: u64) {
        let mut cur = Some(if memcg == MemcgId::NONE { MemcgId::ROOT } else { memcg });
        let hierarchical = self.profile.eviction_at_reclaim_root;
        while let Some(m) = cur {
            let v = self.lruvec_idx(m, 0);
            self.lruvecs[v].nonresident_age += nr;
            cur = if hierarchical { self.memcgs.get(m).parent } else { None };
        }
    }

    /// `workingset_eviction()`: the shadow entry for `page`, evicted by reclaim aimed at
    /// `target` (the limit-reclaim memcg, or root for global reclaim). Since v5.5 the shadow
    /// names the target's lruvec; before, the page's own memcg's.
    pub fn workingset_eviction(&mut self, page: PageId, target: MemcgId) -> u64 {
        if self.profile.lru_gen {
            return self.lru_gen_eviction(page);
        }
        let memcg = self.pages[page].memcg;
        let own = if memcg == MemcgId::NONE { MemcgId::ROOT } else { memcg };
        let m = if self.profile.eviction_at_reclaim_root { target } else { own };
        // workingset_age_nonresident(lruvec, folio_nr_pages(folio)): a large folio ages the
        // lruvec by its pages.
        let nr = self.pages.folio_nr_pages(page);
        let eviction = if self.profile.eviction_reads_age_first {
            let e = self.lruvecs[self.lruvec_idx(m, 0)].nonresident_age;
            self.workingset_age_nonresident(m, nr);
            e
        } else {
            self.workingset_age_nonresident(m, nr);
            self.lruvecs[self.lruvec_idx(m, 0)].nonresident_age
        };
        pack_shadow(m, eviction, self.pages[page].test(pg::WORKINGSET))
    }

    /// [`Kernel::workingset_eviction`] of an order-0 page evicted inside a reclaim batch
    /// (two-list LRU): the shadow carries the age the eviction lruvec has reached by then (its
    /// age when the batch began to age it, plus the batch's evictions before this one); the
    /// batch ages the lruvec and its ancestors by all its evictions at once, at its end
    /// ([`Kernel::evict_batch_flush`]). Same shadows and ages as one
    /// `workingset_age_nonresident()` per eviction.
    #[inline]
    pub(crate) fn workingset_eviction_batched(&mut self, memcg: MemcgId, workingset: bool, target: MemcgId, b: &mut crate::vmscan::EvictBatch) -> u64 {
        debug_assert!(!self.profile.lru_gen);
        let own = if memcg == MemcgId::NONE { MemcgId::ROOT } else { memcg };
        let m = if self.profile.eviction_at_reclaim_root { target } else { own };
        if b.age_memcg != m {
            self.workingset_age_flush(b);
            b.age_memcg = m;
            b.age_base = self.lruvecs[self.lruvec_idx(m, 0)].nonresident_age;
        }
        let eviction = b.age_base + b.aged + !self.profile.eviction_reads_age_first as u64;
        b.aged += 1;
        pack_shadow(m, eviction, workingset)
    }

    /// The ageing a reclaim batch's evictions left pending
    /// ([`Kernel::workingset_eviction_batched`]): `workingset_age_nonresident()` by their pages.
    #[inline]
    pub(crate) fn workingset_age_flush(&mut self, b: &mut crate::vmscan::EvictBatch) {
        if b.aged > 0 {
            self.workingset_age_nonresident(b.age_memcg, b.aged);
            b.aged = 0;
        }
        b.age_memcg = MemcgId::NONE;
    }

    /// Pages of list `lru` the refault distance is compared with: the eviction lruvec's own
    /// list before v5.5, its subtree's (`lruvec_page_state()`, hierarchical) since, read from
    /// the lruvecs' hierarchical sizes ([`crate::mmzone::LruvecStats`]: the cost of a refault
    /// does not grow with the memcgs below the eviction lruvec); on 6.12+ profiles from their
    /// rstat copy ([`crate::mmzone::LruvecStats::flushed_subtree_size`]).
    fn workingset_size(&self, m: MemcgId, lru: LruList) -> u64 {
        if !self.profile.eviction_at_reclaim_root {
            return self.memcg_lru_size(m, lru);
        }
        if self.profile.lru_gen {
            // The generation lists' sizes (`compat_size`) are not in lruvec_stats.
            return self.subtree_lru_size(m, lru);
        }
        // 6.12+: workingset_test_recent() flushes only rate-limited
        // (mem_cgroup_flush_stats_ratelimited(eviction_memcg), no flush while the periodic
        // flusher keeps time): the rstat copy, up to FLUSH_TIME old; exact before.
        (0..self.nr_nodes).map(|nid| self.lru_stats.flushed_subtree_size(self.lruvec_idx(m, nid), lru)).sum()
    }

    /// `lru` pages of `m` and every memcg below it, by a walk over the subtree (under the
    /// multi-generational LRU, whose sizes are not aggregated; depth-first without a heap
    /// allocation: the tree's depth bounds the recursion).
    fn subtree_lru_size(&self, m: MemcgId, lru: LruList) -> u64 {
        self.memcg_lru_size(m, lru) + self.memcgs.get(m).children.iter().map(|&c| self.subtree_lru_size(c, lru)).sum::<u64>()
    }

    /// `workingset_refault()`: `page` (charged, not yet on the LRU) replaces `shadow`; decide
    /// whether it goes straight to the active list. The decision is made at the eviction
    /// lruvec; the refault and activation are counted in the memcg that now owns the page.
    pub fn workingset_refault(&mut self, page: PageId, shadow: u64) {
        if self.profile.lru_gen {
            return self.lru_gen_refault(page, shadow);
        }
        self.cpu(self.cost.refault);
        let (eviction_memcg, eviction, workingset) = unpack_shadow(shadow);
        let page_memcg = self.pages[page].memcg;
        // Counted in pages: mod_lruvec_state(lruvec, WORKINGSET_REFAULT_BASE + file, nr).
        let nr = self.pages.folio_nr_pages(page);
        self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetRefaultFile, nr);
        self.vmstat.count(VmEvent::WorkingsetRefaultFile, nr);
        // The memcg may be gone (ids are never reused within a run, but be defensive).
        let e = if eviction_memcg.idx() < self.memcgs.len() { eviction_memcg } else { MemcgId::ROOT };
        let refault = self.lruvecs[self.lruvec_idx(e, 0)].nonresident_age;
        let distance = refault.wrapping_sub(eviction) & EVICTION_MASK;
        // The working set a file refault competes with: the active file list, and since
        // 5.8 (34e58cac6d8f "mm: workingset: let cache workingset challenge anon") the anon
        // lists too when swap has room: the eviction memcg's in 6.6/6.12's
        // workingset_test_recent(), the refaulting folio's in 6.1's workingset_refault().
        let mut ws = self.workingset_size(e, LruList::ActiveFile);
        if self.profile.scan_balance == crate::profile::ScanBalance::Cost && self.mem_cgroup_get_nr_swap_pages(self.refault_swap_memcg(e, page_memcg)) > 0 {
            ws += self.workingset_size(e, LruList::ActiveAnon) + self.workingset_size(e, LruList::InactiveAnon);
        }
        if distance > ws {
            return;
        }
        self.pages[page].flags |= pg::ACTIVE;
        self.workingset_age_nonresident(page_memcg, nr);
        self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetActivateFile, nr);
        self.vmstat.count(VmEvent::WorkingsetActivateFile, nr);
        if workingset {
            self.pages[page].flags |= pg::WORKINGSET;
            // lru_note_cost_folio() (5.8-6.1), lru_note_cost_refault() (6.2+): a restored
            // working-set page is file cost, its pages as IO.
            let nid = if self.nr_nodes == 1 { 0 } else { self.page_nid(page) };
            self.lru_note_cost(page_memcg, nid, true, nr, 0);
            self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetRestoreFile, nr);
            self.vmstat.count(VmEvent::WorkingsetRestoreFile, nr);
        }
    }

    /// `workingset_refault()` of an anonymous page read back from swap (5.9+): the
    /// refault distance against the eviction lruvec's working set (`NR_ACTIVE_FILE +
    /// NR_INACTIVE_FILE`, plus `NR_ACTIVE_ANON` while the memcg can swap); within it the page
    /// is activated (`workingset_activate_anon`) and, active before its eviction, restored
    /// (`workingset_restore_anon`, anon cost: `lru_note_cost_folio()`).
    pub fn workingset_refault_anon(&mut self, page: PageId, shadow: u64) {
        if self.profile.lru_gen {
            // workingset_refault() (6.1): "if (lru_gen_enabled()) { lru_gen_refault(); return; }"
            // - the shadow is lru_gen_eviction()'s token, for either type.
            return self.lru_gen_refault(page, shadow);
        }
        self.cpu(self.cost.refault);
        let (eviction_memcg, eviction, workingset) = unpack_shadow(shadow);
        let page_memcg = self.pages[page].memcg;
        self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetRefaultAnon, 1);
        self.vmstat.count(VmEvent::WorkingsetRefaultAnon, 1);
        let e = if eviction_memcg.idx() < self.memcgs.len() { eviction_memcg } else { MemcgId::ROOT };
        let refault = self.lruvecs[self.lruvec_idx(e, 0)].nonresident_age;
        let distance = refault.wrapping_sub(eviction) & EVICTION_MASK;
        let mut ws = self.workingset_size(e, LruList::ActiveFile) + self.workingset_size(e, LruList::InactiveFile);
        if self.mem_cgroup_get_nr_swap_pages(self.refault_swap_memcg(e, page_memcg)) > 0 {
            ws += self.workingset_size(e, LruList::ActiveAnon);
        }
        if distance > ws {
            return;
        }
        self.pages[page].flags |= pg::ACTIVE;
        self.workingset_age_nonresident(page_memcg, 1);
        self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetActivateAnon, 1);
        self.vmstat.count(VmEvent::WorkingsetActivateAnon, 1);
        if workingset {
            self.pages[page].flags |= pg::WORKINGSET;
            let nid = if self.nr_nodes == 1 { 0 } else { self.page_nid(page) };
            self.lru_note_cost(page_memcg, nid, false, 1, 0);
            self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetRestoreAnon, 1);
            self.vmstat.count(VmEvent::WorkingsetRestoreAnon, 1);
        }
    }

    /// The memcg whose swap room decides whether a refault's working set counts the anon
    /// lists (`mem_cgroup_get_nr_swap_pages()`): the eviction memcg `eviction` (the one the
    /// shadow names) in linux-6.6 and 6.12 mm/workingset.c `workingset_test_recent()`
    /// ("workingset: fix confusion around eviction vs refault container": "When pages get
    /// evicted from a cgroup with swap, and refault in one without, this can incorrectly
    /// consider a hot refault as cold - and vice versa"), the refaulting folio's memcg
    /// `reader` in linux-6.1 `workingset_refault()` (`KernelProfile::refault_swap_room_at_eviction`).
    #[inline]
    fn refault_swap_memcg(&self, eviction: MemcgId, reader: MemcgId) -> MemcgId {
        if self.profile.refault_swap_room_at_eviction {
            eviction
        } else {
            reader
        }
    }

    /// `workingset_activation()`: a page was activated by a second access.
    #[inline]
    pub fn workingset_activation(&mut self, page: PageId) {
        let memcg = self.pages[page].memcg;
        let nr = self.pages.folio_nr_pages(page);
        self.workingset_age_nonresident(memcg, nr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_round_trips() {
        for &(m, age, ws) in &[(0u32, 0u64, false), (65535, EVICTION_MASK, true), (7, 123_456_789, true)] {
            let s = pack_shadow(MemcgId(m), age, ws);
            assert_eq!(s & 1, 1, "tagged as a value entry");
            assert_eq!(unpack_shadow(s), (MemcgId(m), age, ws));
        }
        // Ages wrap within EVICTION_BITS.
        let s = pack_shadow(MemcgId(1), EVICTION_MASK + 5, false);
        assert_eq!(unpack_shadow(s).1, 4);
    }
}
