//! Page reclaim (mm/vmscan.c): memcg limit reclaim, global direct reclaim and kswapd, all
//! through `do_try_to_free_pages()` -> `shrink_node_memcgs()` -> `shrink_lruvec()`.

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::{LruList, ACT_DIRTY};
use crate::profile::{InactiveRatio, IsolatedThrottle, LruvecStop, ReclaimThrottle, ReclaimWalk};
use crate::profile::ScanBalance as ScanModel;
use crate::swapfile::SwapOut;
use crate::types::{int_sqrt, MemcgId, PageId};
use crate::vmstat::VmEvent;

/// `SWAP_CLUSTER_MAX`: the reclaim batch.
pub const SWAP_CLUSTER_MAX: u64 = 32;
/// `DEF_PRIORITY`: reclaim starts scanning `lru_size >> 12` pages per list.
pub const DEF_PRIORITY: u32 = 12;
/// `vm.swappiness` default (mm/vmscan.c `vm_swappiness = 60`, every era modelled); a scenario
/// sets its own with `kernel.swappiness` (`KernelProfile::swappiness`).
pub const SWAPPINESS: u64 = 60;

/// Longest stall of a direct reclaimer on a congested queue: `HZ/10` (`wait_iff_congested()`
/// in `shrink_inactive_list()`, mm/vmscan.c 3.x-5.15; `reclaim_throttle()` since 5.16).
pub const RECLAIM_THROTTLE: crate::types::Nanos = 100_000_000;
/// [`RECLAIM_THROTTLE`] in jiffies (`HZ/10`): the timeout those sleeps give
/// `schedule_timeout()`/`io_schedule_timeout()`, which the timer wheel ends at a tick
/// (timer.rs).
pub const RECLAIM_THROTTLE_JIFFIES: u64 = crate::timer::HZ / 10;

/// `enum vmscan_throttle_state` (include/linux/mmzone.h, 5.16+): why `reclaim_throttle()`
/// slept, the `reason` of the `vmscan:mm_vmscan_throttled` tracepoint it fires after each
/// sleep. No vmstat counts them; the engine counts them in `Kernel::vmscan_throttled`, reported
/// as `vmscan.throttled.<name>` on the profiles that have `reclaim_throttle()`
/// (`ReclaimThrottle::Writeback`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum VmscanThrottle {
    /// `VMSCAN_THROTTLE_WRITEBACK`: kswapd's `nr_immediate` batch, legacy v1 memcg reclaim
    /// after waking the flusher.
    Writeback = 0,
    /// `VMSCAN_THROTTLE_ISOLATED`: `too_many_isolated()` in `shrink_inactive_list()`.
    Isolated = 1,
    /// `VMSCAN_THROTTLE_NOPROGRESS`: direct reclaim that got nothing by priority 1.
    Noprogress = 2,
    /// `VMSCAN_THROTTLE_CONGESTED`: direct reclaim of an `LRUVEC_CONGESTED` target.
    Congested = 3,
}

/// `NR_VMSCAN_THROTTLE`.
pub const NR_VMSCAN_THROTTLE: usize = 4;

impl VmscanThrottle {
    /// Every reason with its metric name (`vmscan.throttled.<name>`: the tracepoint's
    /// `reason` string, `WRITEBACK`, `ISOLATED`, `NOPROGRESS`, `CONGESTED`, in lower case), in
    /// report order.
    pub const ALL: [(VmscanThrottle, &'static str); NR_VMSCAN_THROTTLE] = [
        (VmscanThrottle::Writeback, "vmscan.throttled.writeback"),
        (VmscanThrottle::Isolated, "vmscan.throttled.isolated"),
        (VmscanThrottle::Noprogress, "vmscan.throttled.noprogress"),
        (VmscanThrottle::Congested, "vmscan.throttled.congested"),
    ];
}

/// `reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED)`'s timeout (mm/vmscan.c 5.16+: "a
/// transient condition based on too many parallel reclaimers which is a short-lived event so
/// the timeout is short"): `HZ/50` jiffies.
pub const ISOLATED_THROTTLE_JIFFIES: u64 = crate::timer::HZ / 50;

/// `msleep(100)` in `shrink_inactive_list()` (4.14-5.15): `schedule_timeout_uninterruptible(
/// msecs_to_jiffies(100) + 1)` (kernel/time/timer.c `msleep()`), `HZ/10 + 1` jiffies.
pub const ISOLATED_MSLEEP_JIFFIES: u64 = crate::timer::HZ / 10 + 1;

/// `too_many_isolated()`'s test (mm/vmscan.c, every era modelled): more pages of the list's
/// type isolated than left on the inactive list, of which a `__GFP_IO | __GFP_FS` caller
/// counts only an eighth ("GFP_NOIO/GFP_NOFS callers are allowed to isolate more pages, so
/// they won't get blocked by normal direct-reclaimers, forming a circular deadlock").
pub fn too_many_isolated_sizes(inactive: u64, isolated: u64, gfp_io_fs: bool) -> bool {
    let inactive = if gfp_io_fs { inactive >> 3 } else { inactive };
    isolated > inactive
}

/// `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c, 5.16+): a task
/// throttled at `now`, one of `nr_throttled` on the node, sleeps until
/// `__acct_reclaim_writeback()` sees more than `SWAP_CLUSTER_MAX * nr_throttled` pages of
/// the node finish writeback since the throttling started (`NR_THROTTLED_WRITTEN -
/// nr_reclaim_start`), at most `HZ/10`: `schedule_timeout(HZ/10)`, whose timer wakes it at
/// `timeout` (the wheel's tick, timer.rs). `completions`: (completion time, pages) of the
/// writes in flight, in completion order.
pub fn reclaim_throttle_writeback_wake(
    now: crate::types::Nanos,
    nr_throttled: u64,
    completions: impl IntoIterator<Item = (crate::types::Nanos, u64)>,
    timeout: crate::types::Nanos,
) -> crate::types::Nanos {
    let mut written = 0;
    for (t, n) in completions {
        if t <= now {
            continue; // completed before the throttling started
        }
        if t >= timeout {
            break;
        }
        written += n;
        if written > SWAP_CLUSTER_MAX * nr_throttled {
            return t;
        }
    }
    timeout
}

/// `congestion_wait(BLK_RW_ASYNC, timeout)` (mm/backing-dev.c) 5.0-5.15: no blk-mq device
/// marks its bdi congested, so nothing calls `clear_wb_congested()` to wake the sleeper and it
/// sleeps the whole `io_schedule_timeout(timeout)` (`timeout` jiffies), until its timer's
/// tick (timer.rs, `round_up`: 4.8+). Returns the wake-up time.
pub fn congestion_wait_blk_mq(now: crate::types::Nanos, timeout: u64, round_up: bool) -> crate::types::Nanos {
    crate::timer::schedule_timeout_wake(now, timeout, round_up)
}

/// `inactive_is_low()` on list sizes: `inactive * ratio < active`, the ratio
/// `int_sqrt(10 * size_in_GiB)` (1 below 1 GiB) or 1:1.
pub fn inactive_is_low_sizes(inactive: u64, active: u64, ratio: InactiveRatio) -> bool {
    let r = match ratio {
        InactiveRatio::OneToOne => 1,
        InactiveRatio::Sqrt => {
            let gb = (inactive + active) >> (30 - crate::types::PAGE_SHIFT);
            if gb > 0 {
                int_sqrt(10 * gb)
            } else {
                1
            }
        }
    };
    inactive * r < active
}

/// `enum folio_references` (mm/vmscan.c): what `folio_check_references()` decided for a
/// mapped page at the inactive tail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FolioRef {
    /// `FOLIOREF_ACTIVATE`: to the active list.
    Activate,
    /// `FOLIOREF_KEEP`: back to the inactive list for another trip.
    Keep,
    /// `FOLIOREF_RECLAIM` / `FOLIOREF_RECLAIM_CLEAN`: unmap and reclaim.
    Reclaim,
    /// A `VM_LOCKED` VMA maps it: to the unevictable list (the mlock race the kernel settles
    /// with `FOLIOREF_ACTIVATE` and `folio_evictable()`).
    Unevictable,
}

/// `folio_check_references()` (mm/vmscan.c; `page_check_references()` 2.6.34-5.17, same
/// rules): `referenced_ptes` young PTEs found, `referenced_folio` its `PG_referenced`, `exec`
/// whether a `VM_EXEC` VMA had one. "All mapped folios start out with page table references
/// from the instantiating fault, so we need to look twice if a mapped file/anon folio is used
/// more than once": a second reference (the flag, or another PTE) activates, one young PTE
/// keeps it for another trip with `PG_referenced` set, executable file pages activate after
/// their first use; with no young PTE it is reclaimed.
pub fn folio_references(referenced_ptes: u32, referenced_folio: bool, exec: bool) -> FolioRef {
    if referenced_ptes > 0 {
        if referenced_folio || referenced_ptes > 1 || exec {
            return FolioRef::Activate;
        }
        return FolioRef::Keep;
    }
    FolioRef::Reclaim
}

/// `struct scan_control`.
#[derive(Clone, Copy, Debug)]
pub struct ScanControl {
    /// `nr_to_reclaim`.
    pub nr_to_reclaim: u64,
    /// `nr_reclaimed`.
    pub nr_reclaimed: u64,
    /// `nr_scanned`.
    pub nr_scanned: u64,
    /// `priority`.
    pub priority: u32,
    /// `target_mem_cgroup`: the memcg whose subtree is reclaimed (root for global reclaim).
    pub target: MemcgId,
    /// `cgroup_reclaim(sc)`: limit reclaim of a memcg.
    pub cgroup_reclaim: bool,
    /// `current_is_kswapd()`.
    pub kswapd: bool,
    /// `memcg_low_reclaim`: second pass that may reclaim below memory.low.
    pub memcg_low_reclaim: bool,
    /// `memcg_low_skipped`.
    pub memcg_low_skipped: bool,
    /// `nr.writeback`: pages found under writeback.
    pub nr_writeback: u64,
    /// `nr.writeback` of the current `shrink_node()` round (zeroed per priority round): pages
    /// under writeback marked by case 2 of `shrink_folio_list()` (the kswapd rule of 5.16+,
    /// [`Kernel::shrink_node_throttle`]).
    pub round_writeback: u64,
    /// `nr.immediate` of the round: pages under writeback kswapd met marked on a node flagged
    /// `PGDAT_WRITEBACK` (case 1).
    pub round_immediate: u64,
    /// `nr.taken` of the round: pages isolated.
    pub round_taken: u64,
    /// `nr.dirty` of the current `shrink_node()` (zeroed per priority round here): file
    /// pages met dirty or under writeback (`folio_check_dirty_writeback()`; anonymous pages
    /// are not counted).
    pub nr_dirty: u64,
    /// `nr.congested`: of those, the pages under writeback already marked `PG_reclaim`
    /// ("folios are cycling through the LRU so quickly that the folios marked for immediate
    /// reclaim are making it to the end of the LRU a second time").
    pub nr_congested: u64,
    /// `may_deactivate & DEACTIVATE_FILE` forced by refaults at the reclaim root (5.9+):
    /// the active file list is shrunk whether or not the inactive one is low.
    pub deactivate_file: bool,
    /// `memcg_full_walk` (6.11+): this reclaim walks every memcg of the subtree, the shared
    /// iterator aside.
    pub memcg_full_walk: bool,
    /// `skipped_deactivate` (5.9+ here, `KernelProfile::deactivate_on_refault`): `shrink_list()`
    /// met an active list it had pages to scan on but `may_deactivate` did not allow.
    pub skipped_deactivate: bool,
    /// `force_deactivate`: `do_try_to_free_pages()`'s retry after a pass that reclaimed
    /// nothing and skipped a deactivation: `prepare_scan_control()` allows both types'
    /// deactivation whatever the root's list sizes and refaults say.
    pub force_deactivate: bool,
    /// `may_swap`: anonymous pages may be swapped (false for a v1 memsw limit).
    pub may_swap: bool,
    /// `(sc->gfp_mask & (__GFP_IO | __GFP_FS)) == (__GFP_IO | __GFP_FS)`: kswapd's
    /// `GFP_KERNEL`, and a direct reclaim's `current_gfp_context(gfp_mask)` of a `GFP_KERNEL`
    /// or `GFP_HIGHUSER_MOVABLE` request (`try_to_free_pages()`,
    /// `try_to_free_mem_cgroup_pages()`), unless the task is in a `memalloc_nofs_save()`
    /// scope ([`Kernel::memalloc_nofs`]: readahead's, 5.8+), which clears `__GFP_FS`.
    /// Read by [`Kernel::too_many_isolated`].
    pub gfp_io_fs: bool,
    /// kswapd's pass of the memcg LRU going on inside an lruvec (6.3+ lru_gen,
    /// `Node::kswapd_pass`): the pages `try_to_shrink_lruvec()` had scanned there when the
    /// pass stopped at the shared clock; it goes on from that count.
    pub kswapd_resume_scanned: Option<u64>,
    /// Set by `try_to_shrink_lruvec()` when kswapd's clock reached the shared clock inside
    /// the lruvec: the pages it had scanned there.
    pub kswapd_stopped_scanned: Option<u64>,
    /// `sc->last_reclaimed` (6.1 lru_gen): `nr_reclaimed` when kswapd's `lru_gen_age_node()`
    /// began this `balance_pgdat()` round; kswapd's `should_abort_scan()` goes on evicting
    /// while the round has reclaimed less than `nr_to_reclaim` since.
    pub last_reclaimed: u64,
}

/// What `prepare_scan_count()` (mm/vmscan.c, 5.8+) reads at the reclaim root for one node,
/// once per pass, for `get_scan_count()` of every lruvec below it.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScanPrep {
    /// `sc->anon_cost`, `sc->file_cost`: the root lruvec's `anon_cost`/`file_cost`.
    pub anon_cost: u64,
    /// See `anon_cost`.
    pub file_cost: u64,
    /// `may_deactivate & DEACTIVATE_ANON`: the root saw anon refault activations since its
    /// last reclaim, or its inactive anon list is low.
    pub deactivate_anon: bool,
    /// `may_deactivate & DEACTIVATE_FILE` (5.9+): the root saw file refault activations
    /// since its last reclaim, or its inactive file list is low, when this pass began;
    /// `shrink_list()` deactivates the active file lists of every lruvec below by it.
    pub deactivate_file: bool,
    /// `cache_trim_mode`: the root's inactive file list has pages at this priority and
    /// neither file refaults nor a low inactive file list ask to deactivate.
    pub cache_trim_mode: bool,
    /// `file_is_tiny` (global reclaim): the node's file and free pages are under its zones'
    /// high watermarks while inactive anon pages are there to scan.
    pub file_is_tiny: bool,
    /// The node's file and free pages are under its zones' high watermarks (the "cache
    /// trap" test of global reclaim, every era).
    pub file_and_free_low: bool,
}

/// `enum scan_balance` (mm/vmscan.c).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScanBalance {
    /// `SCAN_EQUAL`: every list by its size.
    Equal,
    /// `SCAN_FRACT`: anon and file by `fraction[] / denominator`.
    Fract,
    /// `SCAN_ANON`: anonymous lists only.
    Anon,
    /// `SCAN_FILE`: file lists only.
    File,
}

/// `shrink_lruvec()`'s nudge towards proportionality (mm/vmscan.c, 3.11+): the type (anon
/// or file) with fewer pages left to scan stops, and the other's two lists are cut to the share
/// of their original `targets` the smaller had left (`percentage = nr_smaller * 100 /
/// (its targets + 1)`), less what they already scanned. Lists in `[inactive anon, active anon,
/// inactive file, active file]` order; returns what is left of each.
pub fn lruvec_nudge(targets: [u64; 4], mut nr: [u64; 4]) -> [u64; 4] {
    let nr_file = nr[2] + nr[3];
    let nr_anon = nr[0] + nr[1];
    let (smaller, percentage) = if nr_file > nr_anon {
        (0, nr_anon * 100 / (targets[0] + targets[1] + 1))
    } else {
        (2, nr_file * 100 / (targets[2] + targets[3] + 1))
    };
    // "Stop scanning the smaller of the LRU"
    nr[smaller] = 0;
    nr[smaller + 1] = 0;
    // "Recalculate the other LRU scan count based on its original scan target and the
    // percentage scanning already complete"
    let other = 2 - smaller;
    for l in [other, other + 1] {
        let nr_scanned = targets[l] - nr[l];
        let n = targets[l] * (100 - percentage) / 100;
        nr[l] = n - n.min(nr_scanned);
    }
    nr
}

/// The cost one `lru_note_cost()` call adds (mm/swap.c): 6.2+ (`rotations`, 0538a82c39e9
/// "mm: vmscan: make rotations a secondary factor in balancing anon vs file") `nr_io *
/// SWAP_CLUSTER_MAX + nr_rotated` ("Reflect the relative cost of incurring IO and spending
/// CPU time on rotations"); 5.8-6.1 the `nr_pages` of IO alone.
pub fn lru_cost(rotations: bool, nr_io: u64, nr_rotated: u64) -> u64 {
    if rotations {
        nr_io * SWAP_CLUSTER_MAX + nr_rotated
    } else {
        nr_io
    }
}

/// `get_scan_count()`'s `SCAN_FRACT` weights of the 5.8+ cost model: `(fraction[anon],
/// fraction[file], denominator)` from swappiness and the root's `anon_cost`/`file_cost`
/// ("at least a third of the pressure is applied, before swappiness").
pub fn scan_fraction_cost(swappiness: u64, anon_cost: u64, file_cost: u64) -> (u64, u64, u64) {
    let total = anon_cost + file_cost;
    let anon = total + anon_cost;
    let file = total + file_cost;
    let total = anon + file;
    let ap = swappiness * (total + 1) / (anon + 1);
    let fp = (200 - swappiness) * (total + 1) / (file + 1);
    (ap, fp, ap + fp)
}

/// `get_scan_count()`'s `SCAN_FRACT` weights before 5.8: `anon_prio = swappiness`, `file_prio =
/// 200 - swappiness`, each times `(recent_scanned + 1) / (recent_rotated + 1)` of its type;
/// the denominator is `ap + fp + 1`.
pub fn scan_fraction_rotated(swappiness: u64, scanned: [u64; 2], rotated: [u64; 2]) -> (u64, u64, u64) {
    let ap = swappiness * (scanned[0] + 1) / (rotated[0] + 1);
    let fp = (200 - swappiness) * (scanned[1] + 1) / (rotated[1] + 1);
    (ap, fp, ap + fp + 1)
}

/// Global reclaim's index of the memcgs its walk would visit to some effect, per priority
/// (the walk over the root's subtree that `shrink_node_memcgs()` repeats at every priority of
/// every global reclaim). Each visit records the memcg's verdict
/// ([`Kernel::reclaim_walk_note`]): the bit length of its lists' sizes, at or below which a
/// priority finds `size >> priority` = 0 to scan in every list, or
/// [`crate::mmzone::ACT_DIRTY`] where a visit may act at any priority; anything the verdict
/// is computed from forgets it ([`crate::mmzone::LruvecStats::act_dirty`]). Bit `i` of
/// `bits[p]` is set when the `i`th memcg of the walk has a verdict above `p`: the walk at
/// priority `p` visits those and passes over the rest, in its order, at the cost of the
/// words it reads and the memcgs it visits.
#[derive(Clone, Debug, Default)]
pub struct WalkIndex {
    /// The memcg tree's `topology_gen` when `order` was listed (`u64::MAX`: never).
    gen: u64,
    /// The root's subtree in the walk's order.
    pub(crate) order: Vec<MemcgId>,
    /// Per memcg, its place in `order` (`u32::MAX`: not in it).
    pos: Vec<u32>,
    /// Per memcg, the verdict over its lruvecs (the highest) the bitsets hold.
    level: Vec<u8>,
    /// Per priority `0..=DEF_PRIORITY`, over `order`: the memcgs with a verdict above it.
    bits: [Vec<u64>; DEF_PRIORITY as usize + 1],
}

impl WalkIndex {
    /// An index to be built at the first walk.
    pub fn new() -> Self {
        WalkIndex { gen: u64::MAX, ..Default::default() }
    }

    /// Record `memcg`'s verdict, its bits in every priority's set.
    #[inline]
    fn set_level(&mut self, memcg: MemcgId, level: u8) {
        let Some(old) = self.level.get_mut(memcg.idx()) else { return };
        if *old == level {
            return;
        }
        let (lo, hi) = ((*old).min(level) as usize, ((*old).max(level) as usize).min(DEF_PRIORITY as usize + 1));
        let up = level > *old;
        *old = level;
        let i = self.pos[memcg.idx()];
        if i == u32::MAX {
            return;
        }
        let (w, bit) = (i as usize / 64, 1u64 << (i % 64));
        for p in lo..hi {
            if up {
                self.bits[p][w] |= bit;
            } else {
                self.bits[p][w] &= !bit;
            }
        }
    }

    /// The first place at or after `from` in the walk whose memcg has a verdict above
    /// priority `p`, or `order.len()`.
    #[inline]
    fn next_set(&self, p: usize, from: usize) -> usize {
        let bits = &self.bits[p];
        let mut w = from / 64;
        if w >= bits.len() {
            return self.order.len();
        }
        let mut word = bits[w] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return (w * 64 + word.trailing_zeros() as usize).min(self.order.len());
            }
            w += 1;
            if w >= bits.len() {
                return self.order.len();
            }
            word = bits[w];
        }
    }
}

/// What `shrink_folio_list()` counts of the folios it keeps (`struct reclaim_stat`'s
/// `nr_writeback`, `nr_immediate`, `nr_activate`, `nr_unqueued_dirty`) and what
/// `shrink_inactive_list()` acts on after the batch (the flusher's wake-up, the congested
/// device).
#[derive(Default)]
struct ReclaimStat {
    kick_flusher: bool,
    nr_unqueued_dirty: u64,
    congested_dev: Option<crate::types::DevId>,
    nr_writeback: u64,
    nr_immediate: u64,
    nr_activate: u64,
}

/// [`Kernel::shrink_folio_unclean`]'s verdict on a folio.
enum Unclean {
    /// Kept, put back or activated: the next folio.
    Next,
    /// A wait ended the task's quantum: the folio is back at the tail, the batch ends.
    Stop,
    /// On to its eviction.
    Reclaim,
}

/// What one `shrink_inactive_list()` batch leaves to its end, as the kernel does or with the
/// same result: the isolated folios' pages for the lruvec's hierarchical sizes
/// (`isolate_lru_folios()` -> `update_lru_sizes()` once per batch), the freed pages' charge
/// (`mem_cgroup_uncharge_list()` -> `uncharge_batch()`: one page-counter uncharge per memcg
/// run), and the ageing of the eviction lruvec (`workingset_age_nonresident()` of each
/// evicted folio, whose shadow reads the age the folio would have seen). Applied by
/// [`Kernel::evict_batch_flush`] before anything in the batch could read them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EvictBatch {
    /// The lruvec the batch isolates from, and the pages taken off its inactive file list
    /// that [`crate::mmzone::LruvecStats`] has not been told of.
    pub(crate) lruvec: u32,
    pub(crate) taken: u64,
    /// The memcg whose lruvec (node 0) the batch's evictions age, its age when the batch
    /// began to age it, and the pages evicted since.
    pub(crate) age_memcg: MemcgId,
    pub(crate) age_base: u64,
    pub(crate) aged: u64,
    /// The memcg the batch's freed pages were charged to, and how many.
    pub(crate) unc_memcg: MemcgId,
    pub(crate) uncharged: u64,
    /// The run of frames the batch's evictions freed that the buddy has not taken back yet:
    /// `free_n` consecutive frames from `free_first`, in one pageblock of zone `free_zone`,
    /// freed in that order ([`Kernel::free_page_batched`]).
    pub(crate) free_first: u32,
    pub(crate) free_n: u32,
    pub(crate) free_zone: u32,
}

impl EvictBatch {
    pub(crate) fn new(lruvec: usize) -> Self {
        EvictBatch { lruvec: lruvec as u32, taken: 0, age_memcg: MemcgId::NONE, age_base: 0, aged: 0, unc_memcg: MemcgId::NONE, uncharged: 0, free_first: 0, free_n: 0, free_zone: 0 }
    }
}

impl ScanControl {
    pub(crate) fn new(target: MemcgId, nr_to_reclaim: u64, cgroup_reclaim: bool, kswapd: bool) -> Self {
        ScanControl {
            nr_to_reclaim,
            nr_reclaimed: 0,
            nr_scanned: 0,
            priority: DEF_PRIORITY,
            target,
            cgroup_reclaim,
            kswapd,
            memcg_low_reclaim: false,
            memcg_low_skipped: false,
            nr_writeback: 0,
            round_writeback: 0,
            round_immediate: 0,
            round_taken: 0,
            nr_dirty: 0,
            nr_congested: 0,
            deactivate_file: false,
            memcg_full_walk: false,
            skipped_deactivate: false,
            force_deactivate: false,
            may_swap: true,
            gfp_io_fs: true,
            kswapd_resume_scanned: None,
            kswapd_stopped_scanned: None,
            last_reclaimed: 0,
        }
    }
}

impl Kernel {
    /// `try_to_free_mem_cgroup_pages()`: limit reclaim of `memcg` and its descendants for at
    /// least `max(nr_pages, SWAP_CLUSTER_MAX)` pages. Returns the pages reclaimed.
    pub fn try_to_free_mem_cgroup_pages(&mut self, memcg: MemcgId, nr_pages: u64) -> u64 {
        self.try_to_free_mem_cgroup_pages_swap(memcg, nr_pages, true)
    }

    /// `try_to_free_mem_cgroup_pages()` with `MEMCG_RECLAIM_MAY_SWAP` as `may_swap` (6.1;
    /// `may_swap = !noswap` before): a v1 memsw limit reclaims without swapping.
    pub fn try_to_free_mem_cgroup_pages_swap(&mut self, memcg: MemcgId, nr_pages: u64, may_swap: bool) -> u64 {
        let mut sc = self.direct_scan_control(memcg, nr_pages, true);
        sc.may_swap = may_swap;
        // reclaim21 (hostcal.rs `reclaim_call_spans`): this reclaim's cost per
        // shrink_inactive_list() call drawn from the run's own failing reclaims
        let keep = self.draw_reclaim_call();
        let freed = self.do_try_to_free_pages(&mut sc);
        self.cost.shrink_list_call = keep;
        freed
    }

    /// `try_to_free_pages()`: global direct reclaim by an allocating task.
    pub fn try_to_free_pages(&mut self, nr_pages: u64) -> u64 {
        let mut sc = self.direct_scan_control(MemcgId::ROOT, nr_pages, false);
        self.do_try_to_free_pages(&mut sc)
    }

    /// The `scan_control` of a direct reclaim of `target` by the running task
    /// (`try_to_free_pages()`, `try_to_free_mem_cgroup_pages()` when `cgroup_reclaim`):
    /// `.gfp_mask = current_gfp_context(gfp_mask)`, which drops `__GFP_FS` inside a
    /// `memalloc_nofs_save()` scope ([`Kernel::memalloc_nofs`]; 6.1 mm/vmscan.c,
    /// include/linux/sched/mm.h).
    pub(crate) fn direct_scan_control(&self, target: MemcgId, nr_pages: u64, cgroup_reclaim: bool) -> ScanControl {
        let mut sc = ScanControl::new(target, nr_pages.max(SWAP_CLUSTER_MAX), cgroup_reclaim, false);
        sc.gfp_io_fs = !self.memalloc_nofs;
        sc
    }

    /// One `balance_pgdat()` round of global reclaim of the node (kswapd when `kswapd`).
    pub fn shrink_node_global(&mut self, nr_pages: u64, kswapd: bool) -> u64 {
        let mut sc = ScanControl::new(MemcgId::ROOT, nr_pages.max(SWAP_CLUSTER_MAX), false, kswapd);
        self.do_try_to_free_pages(&mut sc)
    }

    /// One round of kswapd's `balance_pgdat()` (mm/vmscan.c) on node `nid`: its
    /// `kswapd_shrink_node()` at the priority the loop is at ([`crate::page_alloc::Node::kswapd_priority`]),
    /// then the loop's priority step ([`Kernel::kswapd_round_end`]). Returns the pages it
    /// reclaimed and whether it ended a `balance_pgdat()` that reclaimed nothing.
    ///
    /// `balance_pgdat()`'s flat loop (3.11+, b8e83b942a16 "mm: vmscan: flatten kswapd priority
    /// loop"; 6.1 as read in /work/src/linux-source-6.1) sets `sc.priority = DEF_PRIORITY` once
    /// and keeps it across its rounds: `kswapd_shrink_node()` sets `sc->nr_to_reclaim` to the
    /// sum over the node's zones of `max(high_wmark_pages(zone), SWAP_CLUSTER_MAX)`
    /// ([`Kernel::kswapd_nr_to_reclaim`]) and `shrink_node()`s the node once at that priority
    /// (every memcg, each lruvec's lists by `size >> priority`; under 6.1's lru_gen each
    /// lruvec by `get_nr_to_scan()`'s `total >> priority`, so a memcg of fewer than `1 <<
    /// priority` pages is passed over), after `kswapd_age_node()` (6.1 lru_gen:
    /// `lru_gen_age_node()`, which sets `sc->last_reclaimed`). 6.3+ lru_gen
    /// (`profile.lru_gen_memcg_lru`): `lru_gen_shrink_node()`, whose `set_initial_priority()`
    /// replaces `DEF_PRIORITY` by the node's own estimate in the first round; a pass stopped at
    /// the shared clock ends its round in [`Kernel::lru_gen_kswapd_resume`]. The engine
    /// reclaimed in rounds of `KSWAPD_BATCH` = 128 pages that each went down from
    /// `DEF_PRIORITY` (`do_try_to_free_pages()`'s loop) until this change (kswpri22).
    ///
    /// The engine's LRUs are per node in every era: 3.11-4.7's `kswapd_shrink_zone()`, which
    /// shrank each unbalanced zone's share of the LRU with that zone's high watermark as its
    /// goal (no priority raise when any zone's round scanned its goal), is taken as one round
    /// of the node with the zones' sum as its goal.
    pub(crate) fn kswapd_shrink_node(&mut self, nid: u32) -> (u64, bool) {
        let n = &mut self.nodes[nid as usize];
        if n.kswapd_priority == 0 {
            // A balance_pgdat() starts: "sc.priority = DEF_PRIORITY", sc.nr_reclaimed 0
            // (its zone_boosts[] were taken by kswapd_run(): balance_pgdat_boosts()).
            n.kswapd_priority = DEF_PRIORITY;
            n.kswapd_reclaimed = 0;
        }
        let n = &mut self.nodes[nid as usize];
        let (priority, reclaimed, boosting) = (n.kswapd_priority, n.kswapd_reclaimed, n.nr_boost_reclaim > 0);
        let mut sc = ScanControl::new(MemcgId::ROOT, self.kswapd_nr_to_reclaim(nid), false, true);
        sc.priority = priority;
        sc.nr_reclaimed = reclaimed;
        // "Do not writeback or swap pages for boosted reclaim" (5.0+): sc.may_writepage =
        // sc.may_swap = !nr_boost_reclaim (the engine's kswapd has no may_writepage: see
        // balance_pgdat_boosts()).
        sc.may_swap = !boosting;
        let before = sc.nr_reclaimed;
        self.cpu(self.cost.reclaim_call);
        if self.profile.deactivate_on_refault {
            // shrink_node() -> prepare_scan_count() (5.9+): refaults at the root since
            // balance_pgdat()'s last snapshot_refaults() ([`Kernel::kswapd_balance_end`]).
            let r = self.memcgs.flushed_subtree_events(MemcgId::ROOT, MemcgEvent::WorkingsetActivateFile as usize);
            sc.deactivate_file = r != self.memcgs.get(MemcgId::ROOT).refaults_snapshot;
        }
        if self.profile.lru_gen {
            // kswapd_age_node() -> lru_gen_age_node(): 6.1 ages here ("sc->last_reclaimed =
            // sc->nr_reclaimed" first); 6.3+ checks min_ttl_ms only.
            if self.profile.lru_gen_memcg_lru {
                self.lru_gen_age_node_6_3(nid, &sc);
            } else {
                sc.last_reclaimed = sc.nr_reclaimed;
                self.lru_gen_age_node(nid, &sc);
            }
        }
        if self.profile.lru_gen && self.profile.lru_gen_memcg_lru {
            // lru_gen_shrink_node() (6.3+, e4dde56cd208): "if (!sc->may_writepage ||
            // !sc->may_unmap) goto done": a boosted round (may_writepage 0) reclaims nothing.
            if !boosting {
                self.lru_gen_shrink_node(nid, &mut sc);
            }
        } else {
            self.shrink_node_memcgs(&mut sc);
        }
        if self.kswapd_pass_stopped() {
            // The round goes on at the next catch-up, which ends it.
            return (sc.nr_reclaimed - before, false);
        }
        if self.profile.reclaim_throttle == ReclaimThrottle::Writeback {
            self.shrink_node_throttle(&sc);
        }
        let empty = self.kswapd_round_end(nid, sc.priority, sc.nr_scanned, sc.nr_reclaimed - before);
        (sc.nr_reclaimed - before, empty)
    }

    /// The end of a `balance_pgdat()` round on node `nid` at `priority` that scanned `scanned`
    /// and reclaimed `reclaimed` pages: "if (kswapd_shrink_node(pgdat, &sc)) raise_priority =
    /// false" (it scanned at least its goal: "There should be no need to raise the scanning
    /// priority if enough pages are already being scanned that that high watermark would be
    /// met at 100% efficiency") and "if (raise_priority || !nr_reclaimed) sc.priority--"; the
    /// loop runs `while (sc.priority >= 1)`. At its end, 4.12+ (c73322d098e4,
    /// `profile.kswapd_failures`, whose series also made `sc.nr_reclaimed` count the whole
    /// run: "if (!sc.nr_reclaimed) pgdat->kswapd_failures++"), and `kswapd()` goes back to
    /// `balance_pgdat()` at once unless `prepare_kswapd_sleep()` lets it sleep (the node
    /// balanced or hopeless: [`Kernel::kswapd_run`]'s test), counting `PAGEOUTRUN` again with a
    /// zeroed `scan_control`. Returns whether it ended a `balance_pgdat()` that reclaimed
    /// nothing.
    pub(crate) fn kswapd_round_end(&mut self, nid: u32, priority: u32, scanned: u64, reclaimed: u64) -> bool {
        let goal = self.kswapd_nr_to_reclaim(nid);
        // "If the low watermark is met there is no need for processes to be throttled on
        // pfmemalloc_wait as they should not be able to safely make forward progress. Wake
        // them" (3.6+): after each kswapd_shrink_node().
        if self.nodes[nid as usize].pfmemalloc_waiters > 0 && self.allow_direct_reclaim(nid) {
            self.nodes[nid as usize].pfmemalloc_wake = Some(self.now);
        }
        let n = &mut self.nodes[nid as usize];
        n.kswapd_reclaimed += reclaimed;
        // 5.0+: "Limit the priority of boosting to avoid reclaim writeback" (no raise at
        // DEF_PRIORITY - 2 while boosting), nr_boost_reclaim less what the round reclaimed,
        // and "If reclaim made no progress for a boost, stop reclaim as IO cannot be queued".
        let boosting = n.nr_boost_reclaim > 0;
        let raise_priority = scanned < goal && !(boosting && priority == DEF_PRIORITY - 2);
        n.nr_boost_reclaim -= n.nr_boost_reclaim.min(reclaimed);
        let boost_stuck = n.nr_boost_reclaim > 0 && reclaimed == 0;
        let priority = if raise_priority || reclaimed == 0 { priority.saturating_sub(1) } else { priority };
        n.kswapd_priority = priority.max(1);
        if priority >= 1 && !boost_stuck {
            return false;
        }
        let empty = n.kswapd_reclaimed == 0;
        if empty && self.profile.kswapd_failures {
            n.kswapd_failures += 1;
        }
        self.kswapd_balance_end(nid);
        if !(self.kswapd_hopeless(nid) || self.node_balanced(nid)) {
            self.vmstat.count(crate::vmstat::VmEvent::KswapdWakeup, 1);
            self.nodes[nid as usize].lru_gen_memcgs_need_aging = false;
        }
        empty
    }

    /// The end of kswapd's `balance_pgdat()` on node `nid` (its loop ran out, or "goto out" on
    /// a balanced node): `snapshot_refaults(NULL, pgdat)` (5.9+: the root's
    /// `WORKINGSET_ACTIVATE_FILE`, and `_ANON` with the anon workingset) and the next round
    /// starts a new `balance_pgdat()` at `DEF_PRIORITY`.
    pub(crate) fn kswapd_balance_end(&mut self, nid: u32) {
        // "If reclaim was boosted, account for the reclaim done in this pass" (5.0+, at "out:",
        // also of a balance_pgdat() that found the node balanced): each zone's boost less the
        // one this balance_pgdat() started with (zone_boosts[], `Zone::boost_at_balance`, 0
        // once taken off); what allocations added meanwhile stays for the next one.
        for i in 0..self.nodes[nid as usize].zones.len() {
            let z = self.nodes[nid as usize].zones[i];
            let zone = &mut self.zones[z];
            if zone.boost_at_balance > 0 {
                let left = zone.watermark_boost - zone.watermark_boost.min(zone.boost_at_balance);
                zone.set_watermark_boost(left);
                zone.boost_at_balance = 0;
            }
        }
        let n = &mut self.nodes[nid as usize];
        n.nr_boost_reclaim = 0;
        if n.kswapd_priority == 0 {
            return;
        }
        n.kswapd_priority = 0;
        n.kswapd_reclaimed = 0;
        if self.profile.deactivate_on_refault {
            let r = self.memcgs.flushed_subtree_events(MemcgId::ROOT, MemcgEvent::WorkingsetActivateFile as usize);
            self.memcgs.memcgs[MemcgId::ROOT.idx()].refaults_snapshot = r;
        }
        if self.profile.anon_workingset {
            let r = self.memcgs.flushed_subtree_events(MemcgId::ROOT, MemcgEvent::WorkingsetActivateAnon as usize);
            self.memcgs.memcgs[MemcgId::ROOT.idx()].refaults_snapshot_anon = r;
        }
    }

    /// The start of kswapd's `balance_pgdat()` on node `nid` (mm/vmscan.c 5.0+, 1c30844d2dfe
    /// "mm: reclaim small amounts of memory when an external fragmentation event occurs"; 6.1
    /// and 6.12 alike): "Account for the reclaim boost. Note that the zone boost is left in
    /// place so that parallel allocations that are near the watermark will stall or direct
    /// reclaim until kswapd is finished": `zone_boosts[i]` is each zone's
    /// `watermark_boost` now (`Zone::boost_at_balance`, taken off at the end:
    /// [`Kernel::kswapd_balance_end`]) and `nr_boost_reclaim` their sum
    /// (`Node::nr_boost_reclaim`). A balanced node with a boost is reclaimed by that much
    /// without writeback or swap (`sc.may_swap` off; the engine's kswapd writes dirty pages
    /// regardless: `may_writepage` is not modelled but on 6.3+ lru_gen, whose
    /// `lru_gen_shrink_node()` returns at once without it); an unbalanced one restarts
    /// unboosted to the boosted high watermark ([`Kernel::kswapd_run`]).
    pub(crate) fn balance_pgdat_boosts(&mut self, nid: u32) {
        let mut sum = 0;
        for i in 0..self.nodes[nid as usize].zones.len() {
            let z = self.nodes[nid as usize].zones[i];
            self.zones[z].boost_at_balance = self.zones[z].watermark_boost;
            sum += self.zones[z].watermark_boost;
        }
        self.nodes[nid as usize].nr_boost_reclaim = sum;
    }

    /// `allow_direct_reclaim()` (mm/vmscan.c 3.6+, 5515061d22f0; 6.1 and 6.12 alike) of node
    /// `nid`: true when kswapd has given up on it (4.12+: `kswapd_failures >=
    /// MAX_RECLAIM_RETRIES`), else whether its free pages exceed half of `pfmemalloc_reserve`,
    /// the sum of the min watermarks (`min_wmark_pages()`, the boost included) of its zones
    /// with reclaimable pages. ZONE_DMA's free frames (folded into the lowest zone,
    /// `Zone::lowmem_held`) count, as its `NR_FREE_PAGES` does.
    pub fn allow_direct_reclaim(&self, nid: u32) -> bool {
        if self.kswapd_hopeless(nid) {
            return true;
        }
        if self.node_reclaimable_pages(nid) == 0 && !self.lru_gen_node_reclaimable(nid) {
            return true; // no zone with zone_reclaimable_pages(): no reserve
        }
        let (mut reserve, mut free) = (0u64, 0u64);
        for &z in &self.nodes[nid as usize].zones {
            reserve += self.zones[z].wmark_min;
            free += self.zones[z].free + self.zones[z].lowmem_held;
        }
        reserve == 0 || free > reserve / 2
    }

    /// Whether node `nid` has pages on its multi-generational LRU that `zone_reclaimable_pages()`
    /// counts (under lru_gen the `NR_ZONE_{IN,}ACTIVE_*` counts are the generations',
    /// `lru_gen_update_size()`; the engine's two-list sizes are 0 then): 6.1
    /// `zone_reclaimable_pages()` sums inactive + active file, so the file pages of every
    /// generation, and the anonymous ones while swap has room (O(1)).
    fn lru_gen_node_reclaimable(&self, nid: u32) -> bool {
        if !self.profile.lru_gen {
            return false;
        }
        let root = self.lruvec_idx(MemcgId::ROOT, nid);
        self.lru_stats.gen_all(root, crate::lru_gen::LRU_GEN_FILE) > 0
            || (self.can_swap() && self.lru_stats.gen_all(root, crate::lru_gen::LRU_GEN_ANON) > 0)
    }

    /// `throttle_direct_reclaim()` (mm/vmscan.c 3.6+, at the start of `try_to_free_pages()`;
    /// 6.1 and 6.12 alike): a direct reclaimer (not a kthread) whose first node fails
    /// [`Kernel::allow_direct_reclaim`] counts `PGSCAN_DIRECT_THROTTLE`
    /// (`Node::pgscan_direct_throttle`), wakes that node's kswapd if it sleeps
    /// (`allow_direct_reclaim()`'s `wake_up_interruptible(&pgdat->kswapd_wait)`) and sleeps
    /// on `pgdat->pfmemalloc_wait` until kswapd wakes it with the test true (after one of its
    /// `kswapd_shrink_node()` rounds, or as it goes to sleep: `Node::pfmemalloc_wake`); without
    /// `__GFP_FS` (readahead's `memalloc_nofs_save()` scope, [`Kernel::memalloc_nofs`]) at
    /// most HZ. Then it reclaims as before. kswapd runs on its own clock: the task's clock
    /// steps to kswapd's, one of kswapd's steps at a time, until the wake.
    pub fn throttle_direct_reclaim_pfmemalloc(&mut self, nid: u32) {
        if self.in_kthread() || self.allow_direct_reclaim(nid) {
            return;
        }
        self.nodes[nid as usize].pgscan_direct_throttle += 1;
        if !self.nodes[nid as usize].kswapd_active && !self.kswapd_hopeless(nid) {
            self.kswapd_wake_direct(nid);
        }
        let deadline = self.memalloc_nofs.then(|| self.now + crate::timer::HZ * crate::timer::NSEC_PER_JIFFY);
        self.nodes[nid as usize].pfmemalloc_waiters += 1;
        self.nodes[nid as usize].pfmemalloc_wake = None;
        // Bounded: each step runs at least one of kswapd's rounds (or batches of a pass).
        for _ in 0..1_000_000 {
            if let Some(t) = self.nodes[nid as usize].pfmemalloc_wake.take() {
                let t = deadline.map_or(t, |d| t.min(d));
                self.wait_until(t);
                if self.allow_direct_reclaim(nid) {
                    break;
                }
                if !self.nodes[nid as usize].kswapd_active && !self.kswapd_hopeless(nid) {
                    self.kswapd_wake_direct(nid); // the wait's condition, tested again
                }
            }
            if deadline.is_some_and(|d| self.now >= d) {
                break;
            }
            let n = &self.nodes[nid as usize];
            if !n.kswapd_active {
                break; // hopeless: allow_direct_reclaim() holds
            }
            let mut t = n.kswapd_clock.max(self.now) + 1;
            if let Some(d) = deadline {
                t = t.min(d);
            }
            self.wait_until(t);
            self.kswapd_run(nid);
        }
        self.nodes[nid as usize].pfmemalloc_waiters -= 1;
    }

    /// `do_try_to_free_pages()`: shrink the target's subtree at falling priority until enough
    /// is reclaimed; if memory.low protection held everything back, go round once more
    /// ignoring memory.low.
    pub fn do_try_to_free_pages(&mut self, sc: &mut ScanControl) -> u64 {
        // The reclaim of a resumed charge goes on from its sleep: its set-up was paid
        // (sched.rs Resumed).
        if !self.take_resumed(crate::sched::Resumed::RECLAIM) {
            self.cpu(self.cost.reclaim_call);
        }
        loop {
            sc.priority = DEF_PRIORITY;
            loop {
                if !sc.kswapd && sc.priority <= crate::sched::VMPRESSURE_CRITICAL_PRIO {
                    // do_try_to_free_pages() -> vmpressure_prio() (kwork23c)
                    self.vmpressure_tree(sc.target, crate::sched::VMPRESSURE_WIN);
                }
                sc.nr_scanned = 0;
                if self.profile.deactivate_on_refault {
                    // shrink_node() -> prepare_scan_control() at every pass (5.9+; 6.12
                    // mm/vmscan.c): refaults seen at the reclaim root since its last reclaim's
                    // snapshot_refaults() force the deactivation of active file pages.
                    // lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_FILE): the rstat
                    // copy on 6.12+ (its mem_cgroup_flush_stats_ratelimited()), so a periodic
                    // flush between two passes of one call is seen by the second.
                    let r = self.memcgs.flushed_subtree_events(sc.target, MemcgEvent::WorkingsetActivateFile as usize);
                    sc.deactivate_file = r != self.memcgs.get(sc.target).refaults_snapshot;
                }
                // shrink_node(): "memset(&sc->nr, 0, sizeof(sc->nr));"
                sc.nr_dirty = 0;
                sc.nr_congested = 0;
                (sc.round_writeback, sc.round_immediate, sc.round_taken) = (0, 0, 0);
                if sc.kswapd && self.profile.lru_gen {
                    // balance_pgdat() -> kswapd_age_node() -> lru_gen_age_node() (6.1), before
                    // it shrinks the node at each priority; 6.3+ checks min_ttl_ms only.
                    if self.profile.lru_gen_memcg_lru {
                        self.lru_gen_age_node_6_3(self.reclaim_nid.unwrap_or(0), sc);
                    } else {
                        self.lru_gen_age_node(self.reclaim_nid.unwrap_or(0), sc);
                    }
                }
                if self.profile.lru_gen && self.profile.lru_gen_memcg_lru && sc.target == MemcgId::ROOT {
                    // shrink_node(): "if (lru_gen_enabled() && root_reclaim(sc)) {
                    // lru_gen_shrink_node(pgdat, sc); return; }" (6.3+), each node in turn.
                    let (first, last) = match self.reclaim_nid {
                        Some(n) => (n, n + 1),
                        None => (0, self.nr_nodes),
                    };
                    for nid in first..last {
                        self.lru_gen_shrink_node(nid, sc);
                        if sc.nr_reclaimed >= sc.nr_to_reclaim || self.kswapd_pass_stopped() {
                            break;
                        }
                    }
                } else {
                    let scanned = sc.nr_scanned;
                    self.shrink_node_memcgs(sc);
                    // shrink_node(): "Record the subtree's reclaim efficiency" (kwork23c)
                    self.vmpressure_tree(sc.target, sc.nr_scanned - scanned);
                }
                if self.profile.reclaim_throttle == ReclaimThrottle::Writeback && !self.resched_pending() && !self.kswapd_pass_stopped() {
                    self.shrink_node_throttle(sc);
                }
                if sc.nr_reclaimed >= sc.nr_to_reclaim || sc.priority == 0 || self.resched_pending() || self.kswapd_pass_stopped() {
                    break;
                }
                sc.priority -= 1;
            }
            if sc.nr_reclaimed > 0 || self.resched_pending() || self.kswapd_pass_stopped() {
                break;
            }
            // 6.11+: a partial walk that got nothing goes round once more over every memcg
            // ("Avoid false OOMs in this case"), before the memory.low retry.
            if self.profile.reclaim_walk == ReclaimWalk::Shared && !sc.memcg_full_walk {
                sc.memcg_full_walk = true;
                continue;
            }
            // "We make inactive:active ratio decisions based on the node's composition of
            // memory, but a restrictive reclaim_idx or a memory.low cgroup setting can exempt
            // large amounts of memory from reclaim. [...] we assume the estimates are good, and
            // retry with forcible deactivation if that fails." The estimates are the root's
            // list sizes as prepare_scan_control() read them: on 6.12+ the rstat copy, up to
            // FLUSH_TIME old, which can show a full inactive list that reclaim has emptied.
            if sc.skipped_deactivate {
                sc.force_deactivate = true;
                sc.skipped_deactivate = false;
                continue;
            }
            if !sc.memcg_low_skipped || sc.memcg_low_reclaim {
                break;
            }
            sc.force_deactivate = false;
            sc.memcg_low_reclaim = true;
        }
        if sc.cgroup_reclaim {
            // do_try_to_free_pages()'s end: "clear_bit(LRUVEC_CONGESTED, &lruvec->flags)" of
            // the target on each node (5.16+; the flag is never set before).
            for nid in 0..self.nr_nodes {
                let v = self.lruvec_idx(sc.target, nid);
                self.lruvecs[v].congested = false;
            }
        }
        if self.profile.deactivate_on_refault {
            // do_try_to_free_pages()'s end: snapshot_refaults(sc->target_mem_cgroup, pgdat)
            // reads WORKINGSET_ACTIVATE_FILE now (5.9+; 6.12 mm/vmscan.c), not as the first
            // pass saw it: activations counted (or flushed into the copy) during the call do
            // not make the next call deactivate.
            let r = self.memcgs.flushed_subtree_events(sc.target, MemcgEvent::WorkingsetActivateFile as usize);
            self.memcgs.memcgs[sc.target.idx()].refaults_snapshot = r;
        }
        if self.profile.anon_workingset {
            // snapshot_refaults(): WORKINGSET_ACTIVATE_ANON too.
            let r = self.memcgs.flushed_subtree_events(sc.target, MemcgEvent::WorkingsetActivateAnon as usize);
            self.memcgs.memcgs[sc.target.idx()].refaults_snapshot_anon = r;
        }
        sc.nr_reclaimed
    }

    /// `shrink_node_memcgs()` for unit tests.
    #[cfg(test)]
    pub(crate) fn shrink_node_memcgs_for_test(&mut self, sc: &mut ScanControl) {
        self.shrink_node_memcgs(sc)
    }

    /// `shrink_node_memcgs()`: visit every memcg of the target's subtree (`mem_cgroup_iter()`),
    /// skip those protected by memory.min (always) and memory.low (first pass), and shrink
    /// each one's lruvec.
    fn shrink_node_memcgs(&mut self, sc: &mut ScanControl) {
        if sc.target == MemcgId::ROOT && self.reclaim_walk_index() {
            return self.shrink_node_memcgs_indexed(sc);
        }
        // calculate_protection() leaves the subtree, pre-order, in `list`.
        let mut list = std::mem::take(&mut self.scratch_memcgs);
        self.memcgs.calculate_protection(sc.target, &mut list);
        if self.swap.is_some() || self.profile.deactivate_on_refault {
            self.prepare_scan_count(sc, &list);
        }
        // Which reclaimers share an iterator, and which one (`mem_cgroup_reclaim_cookie`).
        let slot = match self.profile.reclaim_walk {
            ReclaimWalk::Full => None,
            ReclaimWalk::SharedPerPriority => sc.cgroup_reclaim.then_some(sc.priority as usize),
            ReclaimWalk::Shared => (!sc.kswapd && !sc.memcg_full_walk).then_some(0),
        };
        let shared = slot.is_some();
        // With a shared iterator the walk resumes after the memcg the previous walk stopped
        // at, and runs to the end of the subtree (one round). A walk that would start past
        // the end restarts from the beginning (`mem_cgroup_iter()`: "a new one might jump in
        // right at the end of the hierarchy - make sure they see at least one group and
        // restart from the beginning").
        let start = if let Some(slot) = slot {
            let last = self.reclaim_iter[sc.target.idx()][slot];
            list.iter().position(|&m| m == last).map(|i| i + 1).filter(|&i| i < list.len()).unwrap_or(0)
        } else {
            0
        };
        let mut stopped_at = None;
        for &m in &list[start..] {
            if self.memcgs.below_min(m) {
                continue;
            }
            if self.memcgs.below_low(m) {
                if !sc.memcg_low_reclaim {
                    sc.memcg_low_skipped = true;
                    continue;
                }
                self.memcgs.count_event(m, MemcgEvent::Low, 1);
            }
            self.shrink_lruvec(m, sc);
            if self.resched_pending() {
                break;
            }
            // shrink_slab(): the shadow-node shrinker is the one memcg-aware shrinker modelled.
            self.shrink_shadow_nodes(m, sc.priority);
            self.shrink_slab_sb(m, sc.priority);
            if shared && sc.nr_reclaimed >= sc.nr_to_reclaim {
                stopped_at = Some(m);
                break;
            }
        }
        if let Some(slot) = slot {
            self.reclaim_iter[sc.target.idx()][slot] = stopped_at.unwrap_or(MemcgId::NONE);
        }
        self.scratch_memcgs = list;
    }

    /// Whether reclaim's walk may pass over memcgs by the verdicts it recorded
    /// ([`crate::mmzone::LruvecStats::act_level`]): where a visit's work depends only on what
    /// the verdicts are computed from. Not with memory.min/low anywhere (the walk's
    /// protection tests and the proportional scan), swap (the anonymous lists' rebalancing
    /// at the end of `shrink_lruvec()`), `throttle_vm_writeout()` (2.6-4.8) or the
    /// multi-generational LRU (its own walk and aging).
    #[inline]
    fn reclaim_walk_index(&self) -> bool {
        #[cfg(test)]
        if self.walk_index_off {
            return false;
        }
        self.swap.is_none() && !self.profile.throttle_vm_writeout && !self.profile.lru_gen && self.memcgs.no_protection()
    }

    /// [`Kernel::shrink_node_memcgs`] of global reclaim where the walk may pass over memcgs
    /// (`reclaim_walk_index()`): the same visits in the same order, found in [`WalkIndex`]'s
    /// bitset of the root's subtree for this priority instead of by a visit to each memcg.
    /// Between two visits, the memcgs passed over would each have done nothing; the walk's
    /// tests after such a visit (a pending reschedule, a shared walk's target met) are made
    /// once for the run, at its first memcg, as the walk would have made them there.
    fn shrink_node_memcgs_indexed(&mut self, sc: &mut ScanControl) {
        debug_assert!(sc.target == MemcgId::ROOT && !self.profile.lru_gen);
        self.walk_index_sync();
        if self.swap.is_some() || self.profile.deactivate_on_refault {
            // The subtree is read only under the multi-generational LRU.
            self.prepare_scan_count(sc, &[]);
        }
        let slot = match self.profile.reclaim_walk {
            ReclaimWalk::Full => None,
            ReclaimWalk::SharedPerPriority => sc.cgroup_reclaim.then_some(sc.priority as usize),
            ReclaimWalk::Shared => (!sc.kswapd && !sc.memcg_full_walk).then_some(0),
        };
        let shared = slot.is_some();
        let n = self.walk_index.order.len();
        let start = match slot {
            Some(slot) => {
                let last = self.reclaim_iter[MemcgId::ROOT.idx()][slot];
                let at = if last == MemcgId::NONE { None } else { self.walk_index.pos.get(last.idx()).copied().filter(|&p| p != u32::MAX) };
                at.map(|i| i as usize + 1).filter(|&i| i < n).unwrap_or(0)
            }
            None => 0,
        };
        let p = sc.priority.min(DEF_PRIORITY) as usize;
        let mut stopped_at = None;
        let mut cur = start;
        loop {
            self.walk_index_drain();
            let next = self.walk_index.next_set(p, cur);
            if next > cur {
                // memcgs cur..next pass over: each visit would have done nothing, then these.
                if self.resched_pending() {
                    break;
                }
                if shared && sc.nr_reclaimed >= sc.nr_to_reclaim {
                    stopped_at = Some(self.walk_index.order[cur]);
                    break;
                }
            }
            if next >= n {
                break;
            }
            let m = self.walk_index.order[next];
            cur = next + 1;
            // No memory.min/low anywhere (`reclaim_walk_index()`): nothing is protected.
            self.shrink_lruvec(m, sc);
            if self.resched_pending() {
                break;
            }
            self.shrink_shadow_nodes(m, sc.priority);
            self.shrink_slab_sb(m, sc.priority);
            self.reclaim_walk_note(m);
            if shared && sc.nr_reclaimed >= sc.nr_to_reclaim {
                stopped_at = Some(m);
                break;
            }
        }
        if let Some(slot) = slot {
            self.reclaim_iter[MemcgId::ROOT.idx()][slot] = stopped_at.unwrap_or(MemcgId::NONE);
        }
    }

    /// Bring [`WalkIndex`] up to the memcg tree: after a memcg was created or freed, list the
    /// root's subtree again (in [`crate::memcontrol::MemcgTree::subtree`]'s order, the walk's)
    /// and rebuild the bitsets from the lruvecs' verdicts.
    fn walk_index_sync(&mut self) {
        let gen = self.memcgs.topology_gen();
        if self.walk_index.gen == gen {
            return;
        }
        let w = &mut self.walk_index;
        w.gen = gen;
        self.memcgs.subtree(MemcgId::ROOT, &mut w.order);
        let nr = self.memcgs.len();
        w.pos.clear();
        w.pos.resize(nr, u32::MAX);
        w.level.clear();
        w.level.resize(nr, 0);
        let words = w.order.len().div_ceil(64);
        for b in w.bits.iter_mut() {
            b.clear();
            b.resize(words, 0);
        }
        self.lru_stats.drain_dirtied(|_, _| {});
        for i in 0..self.walk_index.order.len() {
            let m = self.walk_index.order[i];
            self.walk_index.pos[m.idx()] = i as u32;
            let level = self.memcg_act_level(m);
            self.walk_index.set_level(m, level);
        }
    }

    /// Apply to [`WalkIndex`] the lruvecs whose verdict was forgotten since it last looked.
    #[inline]
    fn walk_index_drain(&mut self) {
        if !self.lru_stats.has_dirtied() {
            return;
        }
        let nodes = self.nr_nodes as usize;
        let w = &mut self.walk_index;
        self.lru_stats.drain_dirtied(|v, act| {
            if act == ACT_DIRTY {
                w.set_level(MemcgId((v as usize / nodes) as u32), ACT_DIRTY);
            }
        });
    }

    /// A memcg's verdict over its lruvecs of every node: the highest.
    fn memcg_act_level(&self, memcg: MemcgId) -> u8 {
        let base = self.lruvec_idx(memcg, 0);
        (0..self.nr_nodes as usize).map(|n| self.lru_stats.act_level(base + n)).max().unwrap_or(ACT_DIRTY)
    }

    /// Record `memcg`'s verdicts after the walk's visit: [`crate::mmzone::ACT_DIRTY`] where a
    /// visit may act at any priority (a dying memcg, whose remaining cache is scraped out;
    /// unused dentries on its lists), else per lruvec the bit length of its four lists' page
    /// counts OR'ed (`shrink_lruvec()` scans nothing at a priority at or above it), raised to
    /// the shadow-node shrinker's verdict ([`Kernel::shadow_nodes_walk_level`]).
    fn reclaim_walk_note(&mut self, memcg: MemcgId) {
        let mc = self.memcgs.get(memcg);
        let always = mc.state != crate::memcontrol::MemcgState::Online || mc.lru_objects != 0;
        let shadow = self.shadow_nodes_walk_level(memcg);
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(memcg, nid);
            let level = if always {
                ACT_DIRTY
            } else {
                let l = &self.lruvecs[v].lists;
                let any = l[LruList::InactiveAnon as usize].pages | l[LruList::ActiveAnon as usize].pages | l[LruList::InactiveFile as usize].pages | l[LruList::ActiveFile as usize].pages;
                ((64 - any.leading_zeros()) as u8).max(shadow)
            };
            self.lru_stats.set_act_level(v, level);
        }
        let level = self.memcg_act_level(memcg);
        self.walk_index.set_level(memcg, level);
    }

    /// Forget `memcg`'s reclaim-walk verdicts ([`Kernel::reclaim_walk_note`]): its shadow
    /// nodes, slab, dentries or state changed (its lists' changes reach
    /// [`crate::mmzone::LruvecStats`] directly).
    #[inline]
    pub(crate) fn reclaim_walk_dirty(&mut self, memcg: MemcgId) {
        if memcg != MemcgId::NONE {
            let v = self.lruvec_idx(memcg, 0);
            self.lru_stats.act_dirty(v);
        }
    }

    /// `get_scan_count()` + `shrink_lruvec()`: scan each file list by `size >> priority` in
    /// batches of `SWAP_CLUSTER_MAX` until the target is met. Anonymous lists are not scanned:
    /// there is no swap.
    fn shrink_lruvec(&mut self, memcg: MemcgId, sc: &mut ScanControl) {
        // Global reclaim by kswapd balances one node; limit and direct reclaim go over the
        // lruvecs of every node (shrink_zones() walks the whole zonelist).
        let (first, last) = match self.reclaim_nid {
            Some(n) => (n, n + 1),
            None => (0, self.nr_nodes),
        };
        for nid in first..last {
            let v = self.lruvec_idx(memcg, nid);
            self.shrink_lruvec_node(memcg, v, sc);
            if sc.nr_reclaimed >= sc.nr_to_reclaim || self.resched_pending() {
                break;
            }
        }
    }

    /// `shrink_lruvec()` of one node's lruvec `v` of `memcg`: the batch loop between
    /// `blk_start_plug()` and `blk_finish_plug()` (its swap writes wait in the plug, or in the
    /// plug of the swap readahead whose charge entered reclaim: swapfile.rs), then, with the
    /// plug flushed, the anon rebalance (`inactive_is_low()` -> `shrink_active_list()`, whose
    /// `lru_add_drain()` and scan come after the pass's writes were dispatched) and, up to 4.8,
    /// `throttle_vm_writeout()` (mm/vmscan.c `shrink_lruvec()`, 3.x-6.12 alike).
    pub(crate) fn shrink_lruvec_node(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) {
        let plugged = self.blk_start_plug();
        let end = self.shrink_lruvec_node_plugged(memcg, v, sc);
        if plugged {
            self.blk_finish_plug();
        }
        if end {
            self.shrink_lruvec_node_end(memcg, v);
        }
    }

    /// [`Kernel::shrink_lruvec_node`] under the plug; true when the end of `shrink_lruvec()`
    /// ([`Kernel::shrink_lruvec_node_end`]) follows the flush (not under the multi-generational
    /// LRU, which returns before it, nor when a sleep ended the pass).
    fn shrink_lruvec_node_plugged(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) -> bool {
        if self.lruvecs[v].lrugen.enabled {
            // "if (lru_gen_enabled()) { lru_gen_shrink_lruvec(lruvec, sc); return; }" (6.1;
            // 6.3+: memcg reclaim only, root reclaim goes through lru_gen_shrink_node())
            if self.profile.lru_gen_memcg_lru {
                self.lru_gen_shrink_lruvec_6_3(memcg, v, sc);
            } else {
                self.lru_gen_shrink_lruvec(memcg, v, sc);
            }
            return false;
        }
        // mem_cgroup_protection(): emin in the low-ignoring pass, else max(emin, elow); the
        // reclaim target itself is never protected.
        let pc = &self.memcgs.get(memcg).counter;
        let protection = if memcg == sc.target {
            0
        } else if sc.memcg_low_reclaim {
            pc.emin
        } else {
            pc.emin.max(pc.elow)
        };
        let cgroup_size = pc.usage.max(protection);
        let dying = self.memcgs.get(memcg).state != crate::memcontrol::MemcgState::Online;
        // Every list below 2^priority pages, unprotected and online: get_scan_count() gives
        // each list `size >> priority` = 0 whatever the balance, and the batch loop does
        // nothing. The balance is skipped only where it has no side effect (the pre-5.8
        // rotated-based balance halves its statistics once swap is in play).
        if protection == 0 && !dying && (self.swap.is_none() || self.profile.scan_balance == ScanModel::Cost) {
            let l = &self.lruvecs[v].lists;
            let any = l[LruList::InactiveAnon as usize].pages | l[LruList::ActiveAnon as usize].pages | l[LruList::InactiveFile as usize].pages | l[LruList::ActiveFile as usize].pages;
            if any >> sc.priority == 0 {
                return true;
            }
        }
        let scan = |size: u64| -> u64 {
            let s = if protection > 0 {
                // Scan in proportion to how far the memcg is above its protection.
                (size - (size as u128 * protection as u128 / (cgroup_size as u128 + 1)) as u64).max(SWAP_CLUSTER_MAX)
            } else {
                size
            };
            let scan = s >> sc.priority;
            // "If the cgroup's already been deleted, make sure to scrape out the remaining
            // cache" (get_scan_count()).
            if scan == 0 && dying {
                size.min(SWAP_CLUSTER_MAX)
            } else {
                scan
            }
        };
        // get_scan_count(): how much of each list, by the era's anon/file balance.
        let balance = self.scan_balance(memcg, v, sc);
        let online = !dying;
        let mut nr = [0u64; 4];
        if balance.0 == ScanBalance::File {
            // SCAN_FILE (no swap: the common case) gives the anon lists nothing and the file
            // lists their scan: the loop's result without its per-list balance matches (issue
            // 17: about 75 instructions a reclaim pass).
            nr[2] = scan(self.lruvecs[v].size(LruList::InactiveFile));
            nr[3] = scan(self.lruvecs[v].size(LruList::ActiveFile));
        } else {
            for (i, lru) in [LruList::InactiveAnon, LruList::ActiveAnon, LruList::InactiveFile, LruList::ActiveFile].into_iter().enumerate() {
                let file = i >= 2;
                // Anonymous sizes in pages (`lruvec_lru_size()`); the scan loop takes one entry
                // (a page or a huge page) per unit, as isolate_lru_pages() counts `scan` in 4.x.
                let size = if file { self.lruvecs[v].size(lru) } else { self.lruvecs[v].nr_pages(lru) };
                let s = scan(size);
                nr[i] = match balance {
                    (ScanBalance::Equal, ..) => s,
                    (ScanBalance::Fract, ap, fp, den) => {
                        let f = if file { fp } else { ap };
                        // "Make sure we don't miss the last page on the offlined memory cgroups
                        // because of a round-off error."
                        if online || den == 0 { (s as u128 * f as u128 / den.max(1) as u128) as u64 } else { (s as u128 * f as u128).div_ceil(den as u128) as u64 }
                    }
                    (ScanBalance::File, ..) => if file { s } else { 0 },
                    (ScanBalance::Anon, ..) => if file { 0 } else { s },
                };
            }
        }
        // "Record the original scan target for proportional adjustments later"
        let targets = nr;
        let [mut nr_anon_inactive, mut nr_anon_active, mut nr_inactive, mut nr_active] = nr;
        // shrink_lruvec() compares what this call reclaimed (its local `nr_reclaimed`) with the
        // whole target `sc->nr_to_reclaim`, not what the earlier priorities already got: a
        // reclaim of 64 pages that reaches priority 7 takes up to 62 + 64.
        let before = sc.nr_reclaimed;
        let stop = self.profile.lruvec_stop;
        let global_direct = !sc.cgroup_reclaim && !sc.kswapd;
        // 3.16-5.19 `scan_adjusted`, 6.0+ `proportional_reclaim`: global direct reclaim at
        // DEF_PRIORITY scans its whole targets; 3.11-3.15 `scan_adjusted = false`.
        let full_targets = stop != LruvecStop::DirectBreak && global_direct && sc.priority == DEF_PRIORITY;
        let mut scan_adjusted = full_targets;
        // "while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE])" (3.13,
        // 5.8, 6.1, 6.18): what is left of the active anon target alone ends the loop.
        while nr_inactive > 0 || nr_active > 0 || nr_anon_inactive > 0 {
            if nr_anon_inactive > 0 {
                let n = nr_anon_inactive.min(SWAP_CLUSTER_MAX);
                nr_anon_inactive -= n;
                sc.nr_reclaimed += self.shrink_inactive_anon(memcg, v, n, sc);
            }
            if nr_anon_active > 0 {
                let n = nr_anon_active.min(SWAP_CLUSTER_MAX);
                nr_anon_active -= n;
                // 5.9+: `sc->may_deactivate & DEACTIVATE_ANON`, decided at the reclaim root
                // (prepare_scan_count()); before, inactive_list_is_low() of this lruvec.
                let deactivate = match self.profile.scan_balance {
                    ScanModel::Cost => self.scan_prep.get(v % self.nr_nodes as usize).is_some_and(|p| p.deactivate_anon),
                    ScanModel::Rotated => self.inactive_anon_is_low(v),
                };
                if deactivate {
                    self.shrink_active_anon(memcg, v, n);
                } else if self.profile.deactivate_on_refault {
                    // shrink_list(): "else sc->skipped_deactivate = 1".
                    sc.skipped_deactivate = true;
                }
            }
            if nr_inactive > 0 {
                let n = nr_inactive.min(SWAP_CLUSTER_MAX);
                nr_inactive -= n;
                sc.nr_reclaimed += self.shrink_inactive_list(memcg, v, n, sc);
            }
            if nr_active > 0 {
                let n = nr_active.min(SWAP_CLUSTER_MAX);
                nr_active -= n;
                // 5.9+: `sc->may_deactivate & DEACTIVATE_FILE`, decided at the reclaim root
                // when the pass began (prepare_scan_count()); before, inactive_list_is_low()
                // of this lruvec at each batch.
                let deactivate = if self.profile.deactivate_on_refault {
                    self.scan_prep.get(v % self.nr_nodes as usize).is_some_and(|p| p.deactivate_file)
                } else {
                    self.inactive_is_low(v)
                };
                if deactivate {
                    self.shrink_active_list(memcg, v, n, sc);
                } else if self.profile.deactivate_on_refault {
                    sc.skipped_deactivate = true;
                }
            }
            if self.resched_pending() {
                break;
            }
            if sc.nr_reclaimed - before < sc.nr_to_reclaim || scan_adjusted {
                continue;
            }
            // 3.11-3.15: "For global direct reclaim, reclaim only the number of pages requested."
            if stop == LruvecStop::DirectBreak && global_direct {
                break;
            }
            let nr_file = nr_inactive + nr_active;
            let nr_anon = nr_anon_inactive + nr_anon_active;
            // 3.16+: "It's just vindictive to attack the larger once the smaller has gone to zero."
            if stop != LruvecStop::DirectBreak && (nr_file == 0 || nr_anon == 0) {
                break;
            }
            let nudge = lruvec_nudge(targets, [nr_anon_inactive, nr_anon_active, nr_inactive, nr_active]);
            [nr_anon_inactive, nr_anon_active, nr_inactive, nr_active] = nudge;
            // 6.0+: no flag; the next batch past the goal finds the smaller type at 0 and stops.
            if stop != LruvecStop::Proportional {
                scan_adjusted = true;
            }
        }
        // A sleep ended the task's quantum: the rest runs when the charge restarts.
        !self.resched_pending()
    }

    /// The end of `shrink_lruvec()`, after the batch loop.
    #[inline]
    pub(crate) fn shrink_lruvec_node_end(&mut self, memcg: MemcgId, v: usize) {
        // "Even if we did not try to evict anon pages at all, we want to rebalance the anon
        // lru active/inactive ratio" (can_age_anon_pages(): swap is present).
        if self.swap.is_some() && self.inactive_anon_is_low(v) {
            self.shrink_active_anon(memcg, v, SWAP_CLUSTER_MAX);
        }
        if self.profile.throttle_vm_writeout {
            self.throttle_vm_writeout();
        }
    }

    /// `prepare_scan_count()` (5.8+) for every node reclaim visits: the reclaim root's
    /// costs, whether to deactivate anon, `cache_trim_mode`, `file_is_tiny`. The root's
    /// lruvec sizes are its subtree's (`lruvec_page_state()` is hierarchical): read from
    /// [`crate::mmzone::LruvecStats`], or under the multi-generational LRU summed over
    /// `subtree` (the walk's memcgs).
    fn prepare_scan_count(&mut self, sc: &ScanControl, subtree: &[MemcgId]) {
        let nodes = self.nr_nodes as usize;
        if self.scan_prep.len() < nodes {
            self.scan_prep.resize(nodes, ScanPrep::default());
        }
        if self.swap.is_none() && !self.profile.lru_gen {
            // Without swap, get_scan_count() of every lruvec returns SCAN_FILE before it reads
            // `sc->anon_cost`/`file_cost`, `cache_trim_mode` or `file_is_tiny`
            // (`!sc->may_swap || !can_reclaim_anon_pages()`: [`Kernel::scan_balance`]), no
            // anon list is scanned (so `DEACTIVATE_ANON` is never tested) and the end of
            // `shrink_lruvec()` does not age the anon lists: of this pass's figures only
            // `DEACTIVATE_FILE` is read. The rest is left at its default, unread; the file
            // test is the full one's (issue 17: about 150 instructions a reclaim pass fewer).
            for nid in 0..nodes {
                let target = self.lruvec_idx(sc.target, nid as u32);
                let deactivate_file = sc.force_deactivate || sc.deactivate_file || {
                    let st = &self.lru_stats;
                    let (inactive, active) = (st.flushed_subtree_size(target, LruList::InactiveFile), st.flushed_subtree_size(target, LruList::ActiveFile));
                    inactive_is_low_sizes(inactive, active, self.profile.file_inactive_ratio)
                };
                self.scan_prep[nid] = ScanPrep { deactivate_file, ..ScanPrep::default() };
            }
            return;
        }
        self.prepare_scan_count_full(sc, subtree);
    }

    /// [`Kernel::prepare_scan_count`] with swap or the multi-generational LRU: every figure.
    #[inline(never)]
    fn prepare_scan_count_full(&mut self, sc: &ScanControl, subtree: &[MemcgId]) {
        let nodes = self.nr_nodes as usize;
        for nid in 0..nodes {
            let target = self.lruvec_idx(sc.target, nid as u32);
            let mut sizes = [0u64; 4];
            if self.profile.lru_gen {
                // The generation lists' sizes (`compat_size`) are not in lruvec_stats.
                for &m in subtree {
                    let l = &self.lruvecs[self.lruvec_idx(m, nid as u32)];
                    sizes[0] += l.nr_pages(LruList::InactiveAnon);
                    sizes[1] += l.nr_pages(LruList::ActiveAnon);
                    sizes[2] += l.size(LruList::InactiveFile);
                    sizes[3] += l.size(LruList::ActiveFile);
                }
            } else {
                // lruvec_page_state() of the target's lruvec: the hierarchical sizes, O(1); on
                // 6.12+ the rstat copy the periodic flusher left (prepare_scan_control()'s
                // mem_cgroup_flush_stats_ratelimited() does not flush while that flusher keeps
                // time), exact before (mem_cgroup_flush_stats()).
                let st = &self.lru_stats;
                sizes = [
                    st.flushed_subtree_anon_pages(target, LruList::InactiveAnon),
                    st.flushed_subtree_anon_pages(target, LruList::ActiveAnon),
                    st.flushed_subtree_size(target, LruList::InactiveFile),
                    st.flushed_subtree_size(target, LruList::ActiveFile),
                ];
            }
            // "When refaults are being observed, it means a new workingset is being
            // established. Deactivate to get rid of any stale active pages quickly."
            // lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_ANON): the rstat copy on
            // 6.12+, as the sizes.
            let anon_refaults = self.memcgs.flushed_subtree_events(sc.target, MemcgEvent::WorkingsetActivateAnon as usize);
            // "else sc->may_deactivate = DEACTIVATE_ANON | DEACTIVATE_FILE" (force_deactivate).
            let anon_low = sc.force_deactivate
                || anon_refaults != self.memcgs.get(sc.target).refaults_snapshot_anon
                || inactive_is_low_sizes(sizes[0], sizes[1], InactiveRatio::Sqrt);
            let file_low = inactive_is_low_sizes(sizes[2], sizes[3], self.profile.file_inactive_ratio);
            let deactivate_file = sc.force_deactivate || sc.deactivate_file || file_low;
            let (mut file_and_free_low, mut anon) = (false, 0);
            if !sc.cgroup_reclaim {
                let (mut free, mut high) = (0, 0);
                for z in self.zones.iter().filter(|z| z.node as usize == nid) {
                    free += z.free;
                    high += z.wmark_high;
                }
                let mut file = 0;
                if sc.target == MemcgId::ROOT && self.profile.lru_gen {
                    // The walk's memcgs are all of them: the node's lists are summed above.
                    file = sizes[2] + sizes[3];
                    anon = sizes[0];
                } else if sc.target == MemcgId::ROOT {
                    // node_page_state(): the node's exact counters, not the root memcg's copy.
                    let st = &self.lru_stats;
                    file = st.subtree_size(target, LruList::InactiveFile) + st.subtree_size(target, LruList::ActiveFile);
                    anon = st.subtree_anon_pages(target, LruList::InactiveAnon);
                } else {
                    for m in 0..self.memcgs.len() {
                        let l = &self.lruvecs[self.lruvec_idx(MemcgId(m as u32), nid as u32)];
                        file += l.size(LruList::InactiveFile) + l.size(LruList::ActiveFile);
                        anon += l.nr_pages(LruList::InactiveAnon);
                    }
                }
                file_and_free_low = file + free <= high;
            }
            self.scan_prep[nid] = ScanPrep {
                anon_cost: self.lruvecs[target].anon_cost,
                file_cost: self.lruvecs[target].file_cost,
                deactivate_anon: anon_low,
                deactivate_file,
                cache_trim_mode: sizes[2] >> sc.priority > 0 && !deactivate_file,
                file_is_tiny: file_and_free_low && !anon_low && anon >> sc.priority > 0,
                file_and_free_low,
            };
        }
    }

    /// `get_scan_count()`'s choice for lruvec `v` of `memcg`: the balance and, for
    /// `SCAN_FRACT`, (`fraction[anon]`, `fraction[file]`, denominator). Without swap room for
    /// the memcg (`can_reclaim_anon_pages()`: `mem_cgroup_get_nr_swap_pages()`), or when the
    /// reclaim may not swap (a v1 memsw limit), file only.
    fn scan_balance(&mut self, memcg: MemcgId, v: usize, sc: &ScanControl) -> (ScanBalance, u64, u64, u64) {
        if !sc.may_swap || self.mem_cgroup_get_nr_swap_pages(memcg) == 0 {
            return (ScanBalance::File, 0, 0, 0);
        }
        let swappiness = self.memcgs.swappiness(memcg, self.profile.swappiness);
        // "Global reclaim will swap to prevent OOM even with no swappiness, but memcg users
        // want to use this knob to disable swapping for individual groups completely."
        if sc.cgroup_reclaim && swappiness == 0 {
            return (ScanBalance::File, 0, 0, 0);
        }
        // "Do not apply any pressure balancing cleverness when the system is close to OOM."
        if sc.priority == 0 && swappiness > 0 {
            return (ScanBalance::Equal, 0, 0, 0);
        }
        match self.profile.scan_balance {
            ScanModel::Cost => {
                let p = self.scan_prep.get(v % self.nr_nodes as usize).copied().unwrap_or_default();
                if p.file_is_tiny {
                    return (ScanBalance::Anon, 0, 0, 0);
                }
                if p.cache_trim_mode {
                    return (ScanBalance::File, 0, 0, 0);
                }
                let (ap, fp, den) = scan_fraction_cost(swappiness, p.anon_cost, p.file_cost);
                (ScanBalance::Fract, ap, fp, den)
            }
            ScanModel::Rotated => {
                let l = &self.lruvecs[v];
                // "Prevent the reclaimer from falling into the cache trap" (4.x-5.7, global
                // reclaim): the node's file and free pages under its high watermarks.
                let low = self.scan_prep.get(v % self.nr_nodes as usize).is_some_and(|p| p.file_and_free_low);
                if low && !self.inactive_anon_is_low(v) && l.nr_pages(LruList::InactiveAnon) >> sc.priority > 0 {
                    return (ScanBalance::Anon, 0, 0, 0);
                }
                // "If there is enough inactive page cache ... we do not reclaim anything from
                // the anonymous working set right now."
                if !self.inactive_is_low(v) && self.lruvecs[v].size(LruList::InactiveFile) >> sc.priority > 0 {
                    return (ScanBalance::File, 0, 0, 0);
                }
                // The stats are halved once the scans pass a quarter of the lists.
                let l = &mut self.lruvecs[v];
                let anon = l.nr_pages(LruList::InactiveAnon) + l.nr_pages(LruList::ActiveAnon);
                let file = l.size(LruList::InactiveFile) + l.size(LruList::ActiveFile);
                for (t, size) in [(0, anon), (1, file)] {
                    if l.recent_scanned[t] > size / 4 {
                        l.recent_scanned[t] /= 2;
                        l.recent_rotated[t] /= 2;
                    }
                }
                let (ap, fp, den) = scan_fraction_rotated(swappiness, l.recent_scanned, l.recent_rotated);
                (ScanBalance::Fract, ap, fp, den)
            }
        }
    }

    /// `lru_note_cost()` (mm/swap.c, 5.8+; 6.18's `lru_note_cost_unlock_irq()`): reclaim cost
    /// of one type in the lruvec of `memcg` on node `nid` and every ancestor's, each halving
    /// both costs once they pass a quarter of its LRU pages. `nr_io` pages of IO (anon:
    /// swapped out; file: written by reclaim; either: a restored refault) and `nr_rotated`
    /// pages reclaim scanned and did not free. 5.8-6.1 note `nr_io` alone; 6.2+
    /// (`KernelProfile::lru_cost_rotations`, 0538a82c39e9) note `nr_io * SWAP_CLUSTER_MAX +
    /// nr_rotated`. A cost of 0 notes nothing (6.2+: "if (!cost) return"; 6.1 would still
    /// run the decay test). The LRU pages of a memcg's lruvec (hierarchical in the kernel)
    /// are taken from its page counter (its subtree's charged pages: LRU pages and the
    /// kernel memory charged with them), the root's from the node's LRU pages.
    pub fn lru_note_cost(&mut self, memcg: MemcgId, nid: u32, file: bool, nr_io: u64, nr_rotated: u64) {
        if self.profile.scan_balance != ScanModel::Cost || memcg == MemcgId::NONE {
            return;
        }
        let nr = lru_cost(self.profile.lru_cost_rotations, nr_io, nr_rotated);
        if nr == 0 {
            return;
        }
        let mut cur = Some(memcg);
        while let Some(m) = cur {
            let lrusize = if m == MemcgId::ROOT {
                self.vmstat.nr_anon_pages + self.nr_file_pages()
            } else {
                self.memcgs.get(m).counter.usage
            };
            let idx = self.lruvec_idx(m, nid);
            let l = &mut self.lruvecs[idx];
            if file {
                l.file_cost += nr;
            } else {
                l.anon_cost += nr;
            }
            if l.file_cost + l.anon_cost > lrusize / 4 {
                l.file_cost /= 2;
                l.anon_cost /= 2;
            }
            cur = self.memcgs.get(m).parent;
        }
    }

    /// `update_page_reclaim_stat()` (before 5.8): `nr` pages of one type added to or scanned
    /// on the lists of lruvec `v`, `rotated` when they went to the active list.
    pub fn update_page_reclaim_stat(&mut self, v: usize, file: bool, nr: u64, rotated: bool) {
        if self.profile.scan_balance != ScanModel::Rotated {
            return;
        }
        let l = &mut self.lruvecs[v];
        l.recent_scanned[file as usize] += nr;
        if rotated {
            l.recent_rotated[file as usize] += nr;
        }
    }

    /// `inactive_is_low()` for the anon lists: `inactive * ratio < active`, the ratio
    /// `int_sqrt(10 * size_in_GiB)` (1 below 1 GiB), in pages (`lruvec_page_state()`: a huge
    /// page counts 512). On 6.12+ profiles (`memcg_stats_ratelimited_reclaim`) the sizes are
    /// the memcg subtree's rstat copy ([`crate::mmzone::LruvecStats::flushed_subtree_anon_pages`]);
    /// before, the lruvec's own lists, exact (the same as the kernel's hierarchical sizes
    /// for a leaf memcg).
    pub fn inactive_anon_is_low(&self, v: usize) -> bool {
        let l = &self.lruvecs[v];
        let (inactive, active) = if self.profile.memcg_stats_ratelimited_reclaim {
            // 6.12+: inactive_is_low() reads lruvec_page_state() of the lruvec, the rstat
            // copy the periodic flush left (reclaim no longer flushes).
            let st = &self.lru_stats;
            (st.flushed_subtree_anon_pages(v, LruList::InactiveAnon), st.flushed_subtree_anon_pages(v, LruList::ActiveAnon))
        } else {
            (l.nr_pages(LruList::InactiveAnon), l.nr_pages(LruList::ActiveAnon))
        };
        let gb = (inactive + active) >> (30 - crate::types::PAGE_SHIFT);
        let ratio = if gb > 0 { int_sqrt(10 * gb) } else { 1 };
        inactive * ratio < active
    }

    /// `shrink_active_list()` of the anon lists: move up to `nr` pages from the active tail to
    /// the inactive list, clearing their PTEs' accessed bits (`folio_referenced()`: a
    /// referenced anonymous page is deactivated all the same; before 5.8 it counts as rotated
    /// in `recent_rotated`), marking them `PG_workingset`.
    fn shrink_active_anon(&mut self, memcg: MemcgId, v: usize, nr: u64) {
        // shrink_active_list(): "lru_add_drain();" first.
        let start = self.now;
        self.lru_add_drain();
        let (mut moved, mut scanned, mut rotated) = (0, 0, 0);
        // isolate_lru_folios() counts a folio's pages against nr_to_scan: a large tmpfs folio
        // fills the batch (tmpfs21b; the engine's anonymous huge pages are still taken one
        // entry a page).
        let mut shmem_extra = 0u64;
        for taken in 0..nr {
            if taken + shmem_extra >= nr {
                break;
            }
            let Some(p) = self.lruvecs[v].tail(LruList::ActiveAnon) else { break };
            self.cpu(self.cost.scan_page);
            self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
            let n = if self.pages[p].test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
            if self.pages[p].flags & (pg::ANON | pg::SWAPBACKED) == pg::SWAPBACKED {
                shmem_extra += self.pages.folio_nr_pages(p) - 1;
            }
            scanned += n;
            if self.anon_referenced(p) {
                rotated += n;
            }
            self.pages[p].flags &= !pg::ACTIVE;
            self.pages[p].flags |= pg::WORKINGSET;
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
            moved += n;
        }
        // Isolated (NR_ISOLATED_ANON) while the batch's PTEs were looked at, not throttled.
        self.isolated_putback(v, false, start, scanned, false);
        self.update_page_reclaim_stat(v, false, scanned, false);
        if rotated > 0 {
            self.update_rotated(v, false, rotated);
        }
        self.memcgs.count_event(memcg, MemcgEvent::Pgrefill, scanned);
        self.vmstat.count(VmEvent::Pgrefill, scanned);
        self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, moved);
        self.vmstat.count(VmEvent::Pgdeactivate, moved);
    }

    /// `recent_rotated` alone (before 5.8): pages that stayed or went active.
    pub(crate) fn update_rotated(&mut self, v: usize, file: bool, nr: u64) {
        if self.profile.scan_balance == ScanModel::Rotated {
            self.lruvecs[v].recent_rotated[file as usize] += nr;
        }
    }

    /// `folio_referenced()` of an anonymous page: test and clear the accessed bit of the PTE
    /// mapping it (any of a huge page's 512: its PMD's), in its anonymous VMA or, for a private
    /// copy, its file VMA. An unmapped page is not referenced.
    pub fn anon_referenced(&mut self, p: PageId) -> bool {
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index);
        let n = if self.pages[p].test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR as u32 } else { 1 };
        let Some(vm) = self.vmas.get_mut(vma) else { return false };
        if vm.pages.get(index as usize) != Some(&p) {
            return false;
        }
        let mut young = false;
        for i in index..index + n {
            young |= match vm.file.as_mut() {
                Some(f) => {
                    let y = f.young(i);
                    f.set_young(i, false);
                    y
                }
                None => vm.test_and_clear_young(i),
            };
        }
        young
    }

    /// `shrink_inactive_list()` of the anon lists. A page under swap writeback is kept (and
    /// marked for immediate reclaim); the others go through `folio_check_references()`
    /// (`folio_references()`: one young PTE keeps it for another trip with `PG_referenced`
    /// set, a second reference activates it); one to reclaim is freed when it is a clean
    /// swap-cache page, else written to swap (`add_to_swap()` + `pageout()`), or activated
    /// when it gets no slot (swap full, or memory.swap.max: `activate_locked`). A tmpfs folio
    /// (swap-backed page cache, on the anon lists too) goes to swap through
    /// `shmem_writepage()` ([`Kernel::shrink_shmem_folio`], shmem.rs). The pages written
    /// out are the batch's anon cost (`lru_note_cost(lruvec, 0, stat.nr_pageout)`, 5.8+; 6.2+ with
    /// the pages scanned and not freed as rotations).
    pub(crate) fn shrink_inactive_anon(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &mut ScanControl) -> u64 {
        let checked = match self.shrink_inactive_throttle((v % self.nr_nodes as usize) as u32, false, sc) {
            Ok(c) => c,
            Err(nr) => return nr,
        };
        let start = self.now;
        let (mut scanned, mut reclaimed, mut nr_writeback, mut nr_immediate) = (0u64, 0u64, 0u64, 0u64);
        let (mut nr_pageout, mut nr_activate, mut nr_taken) = (0u64, 0u64, 0u64);
        // isolate_lru_folios()'s `nr_scanned` in pages (a huge page's 512, a tmpfs folio's
        // every page), for lru_note_cost()'s rotations (6.2+).
        let mut nr_scanned_pages = 0u64;
        self.shrink_list_call_cost();
        // The swap writes that completed by now have ended their writeback (their
        // completion interrupts, `end_swap_bio_write()`, ran while reclaim went on), and the
        // pages reclaim marked are at the inactive tail.
        self.swap_end_io();
        // isolate_lru_folios() counts a folio's pages against nr_to_scan ("scan += nr_pages"):
        // a large tmpfs folio at the tail fills the batch (the engine's anonymous huge pages
        // are still taken one entry a page).
        let mut shmem_extra = 0u64;
        let mut split_list: Vec<PageId> = Vec::new();
        for taken in 0..nr {
            if taken + shmem_extra >= nr {
                break;
            }
            let Some(p) = self.lruvecs[v].tail(LruList::InactiveAnon) else { break };
            self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
            scanned += 1;
            let taken_pages = if self.pages[p].test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
            nr_taken += taken_pages;
            nr_scanned_pages += taken_pages;
            self.cpu(self.cost.scan_page);
            if self.pages[p].test(pg::WRITEBACK) && !sc.kswapd && !self.writeback_throttling_sane(sc) && self.pages[p].test(pg::RECLAIM) {
                // shrink_folio_list() "case 3": legacy (cgroup v1) memcg reclaim waits for the
                // swap write of a page marked PG_reclaim (pageout() marks the pages it writes)
                // with folio_wait_writeback(), then tries the page again: clean in the swap
                // cache now, it is freed. The sleep flushes the task's plug first (schedule()),
                // which may hold the page's own write.
                self.blk_flush_plug();
                let done = self.wb_done.get(p.idx()).copied().unwrap_or(self.now);
                if self.io_schedule_until(done, StallKind::Writeback) {
                    // The wait ended the task's quantum: the page goes back to the tail for
                    // the restarted charge's reclaim to try first after the wake-up, as the
                    // file path does (shrink_inactive_file).
                    self.lruvecs[v].add_tail(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                    scanned -= 1;
                    nr_scanned_pages -= taken_pages;
                    break;
                }
                if !self.pages[p].test(pg::WRITEBACK) {
                    // folio_end_writeback() cleared PG_reclaim (the page was off the LRU: no
                    // rotation).
                    self.pages[p].flags &= !pg::RECLAIM;
                }
            }
            if self.pages[p].test(pg::WRITEBACK) {
                // "case 1" (kswapd meeting a marked page again) and "case 2": mark it for
                // immediate reclaim and, from 4.12 (c55e8d035b28), activate it out of the way
                // (activate_locked); the end of its write rotates it to the inactive tail
                // (folio_rotate_reclaimable(), which clears PG_active).
                nr_immediate += self.pages[p].test(pg::RECLAIM) as u64;
                let n = if self.pages[p].test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
                self.count_writeback_case(v, p, n, sc);
                self.pages[p].flags |= pg::RECLAIM;
                if self.profile.reclaim_activates_dirty {
                    self.pages[p].flags |= pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
                    nr_activate += n;
                } else {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                }
                sc.nr_writeback += 1;
                nr_writeback += 1;
                continue;
            }
            if self.swap_read_pending(p) {
                // Read by swap readahead and still locked for its I/O.
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                continue;
            }
            if self.pages[p].flags & (pg::ANON | pg::SWAPBACKED) == pg::SWAPBACKED {
                // A tmpfs folio: pageout() -> shmem_writepage() (shmem.rs, tmpfs21b).
                let r = self.shrink_shmem_folio(p, v, sc.target);
                scanned += r.extra_scanned;
                shmem_extra += r.extra_scanned;
                nr_scanned_pages += r.extra_scanned;
                nr_pageout += r.pageout;
                nr_activate += r.activate;
                reclaimed += r.reclaimed;
                continue;
            }
            let n = if self.pages[p].test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
            if self.pages[p].test(pg::ANON) {
                let ptes = self.anon_referenced(p) as u32;
                let referenced_folio = self.pages[p].test(pg::REFERENCED);
                self.pages[p].flags &= !pg::REFERENCED;
                if ptes > 0 {
                    self.pages[p].flags |= pg::REFERENCED;
                }
                match folio_references(ptes, referenced_folio, false) {
                    FolioRef::Activate => {
                        // activate_locked: "Not a candidate for swapping, so reclaim swap
                        // space" when swap is getting full (mem_cgroup_swap_full()).
                        if self.pages[p].test(pg::SWAPCACHE) && self.mem_cgroup_swap_full(self.pages[p].memcg) {
                            self.folio_free_swap(p);
                        }
                        self.pages[p].flags |= pg::ACTIVE;
                        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
                        nr_activate += n;
                        continue;
                    }
                    FolioRef::Keep => {
                        self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                        continue;
                    }
                    FolioRef::Reclaim | FolioRef::Unevictable => {}
                }
            }
            if self.pages[p].test(pg::SWAPCACHE) {
                reclaimed += self.free_swapped_page_shadow(p, Some(sc.target));
                continue;
            }
            let mut n = n;
            let mut res = if self.pages[p].test(pg::ANON) { self.swap_writepage_res(p) } else { SwapOut::NoSlot };
            if res == SwapOut::NoSlot && n > 1 && self.thp_swap_fallback(p) {
                // add_to_swap() of a THP failed: split it, its tails onto the list being
                // reclaimed (after the batch's other pages), and try the head alone.
                self.split_huge_page_to_list(p, &mut split_list);
                n = 1;
                res = self.swap_writepage_res(p);
            }
            if res == SwapOut::Written {
                nr_pageout += n;
                if !self.pages[p].test(pg::WRITEBACK) {
                    // zswap took it (frontswap_store(): writeback started and ended in
                    // swap_writepage()): PAGE_SUCCESS on a clean page, freed in this pass.
                    reclaimed += self.free_swapped_page_shadow(p, Some(sc.target));
                } else {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                }
            } else {
                self.pages[p].flags |= pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
                nr_activate += n;
            }
        }
        // The tails of the THPs split above make their own pass through shrink_folio_list():
        // their PTEs old (the head's folio_referenced() cleared the PMD's young bit, which
        // __split_huge_pmd_locked() copied) and PG_referenced clear (FOLIOREF_RECLAIM), each
        // gets a slot of its own (add_to_swap(); none: activate_locked_split) and is written.
        for q in std::mem::take(&mut split_list) {
            if self.swap_writepage_res(q) == SwapOut::Written {
                nr_pageout += 1;
                if !self.pages[q].test(pg::WRITEBACK) {
                    reclaimed += self.free_swapped_page_shadow(q, Some(sc.target));
                } else {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::InactiveAnon);
                }
            } else {
                self.pages[q].flags |= pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::ActiveAnon);
                nr_activate += 1;
            }
        }
        if nr_activate > 0 {
            self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr_activate);
            self.vmstat.count(VmEvent::Pgactivate, nr_activate);
            self.update_rotated(v, false, nr_activate);
            self.move_folios_to_lru_age(memcg, nr_activate);
        }
        self.isolated_putback(v, false, start, nr_taken, checked);
        self.update_page_reclaim_stat(v, false, scanned, false);
        self.count_scan_steal(memcg, v, scanned, reclaimed, sc);
        // lru_note_cost(lruvec, file, stat.nr_pageout, nr_scanned - nr_reclaimed) (6.2+; 5.8-6.1
        // without the rotations)
        self.lru_note_cost(memcg, (v % self.nr_nodes as usize) as u32, false, nr_pageout, nr_scanned_pages.saturating_sub(reclaimed));
        sc.round_taken += nr_taken;
        if nr_writeback > 0 {
            if let Some(dev) = self.swap.as_ref().map(|a| a.dev.idx()) {
                self.throttle_direct_reclaim(dev, sc);
                self.throttle_kswapd(dev, nr_immediate, nr_writeback == scanned, sc);
            }
        }
        reclaimed
    }

    /// `shrink_folio_list()`'s cases 1 and 2 of a folio `p` of `n` pages under writeback on
    /// lruvec `v`, counted for the round ([`Kernel::shrink_node_throttle`], 5.16+ as read in
    /// 6.1): kswapd meeting a folio already marked `PG_reclaim` on a node flagged
    /// `PGDAT_WRITEBACK` counts it `nr_immediate` (case 1); any other reclaimer, or an unmarked
    /// folio, or a node not flagged, counts it `nr_writeback` (case 2, the folio is marked).
    /// Both are activated (`activate_locked`). The caller marks the folio after.
    #[inline]
    pub(crate) fn count_writeback_case(&mut self, v: usize, p: PageId, n: u64, sc: &mut ScanControl) {
        let nid = v % self.nr_nodes as usize;
        if sc.kswapd && self.pages[p].test(pg::RECLAIM) && self.nodes.get(nid).is_some_and(|node| node.pgdat_writeback) {
            sc.round_immediate += n;
        } else {
            sc.round_writeback += n;
        }
    }

    /// The end of `shrink_inactive_list()` for kswapd: a batch whose every page was under
    /// writeback (`ZONE_WRITEBACK`/`PGDAT_WRITEBACK`) and that met pages already marked for
    /// immediate reclaim (`nr_immediate`: reclaim found them under writeback before) means
    /// pages are being queued for I/O faster than the device completes them: kswapd sleeps
    /// `congestion_wait(BLK_RW_ASYNC, HZ/10)` (3.11-5.15; `reclaim_throttle(
    /// VMSCAN_THROTTLE_WRITEBACK)` since 5.16), woken early when the queue leaves congestion.
    pub(crate) fn throttle_kswapd(&mut self, dev: usize, nr_immediate: u64, all_writeback: bool, sc: &ScanControl) {
        if !sc.kswapd || nr_immediate == 0 || !all_writeback || self.profile.reclaim_throttle == ReclaimThrottle::Writeback {
            // 5.16+: at the end of the shrink_node() round (Kernel::shrink_node_throttle).
            return;
        }
        let until = match self.profile.reclaim_throttle {
            ReclaimThrottle::Congestion => match self.devices[dev].write_congested(self.now) {
                Some(t) => t.min(self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES)),
                None => self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES),
            },
            ReclaimThrottle::CongestionTimeout => congestion_wait_blk_mq(self.now, RECLAIM_THROTTLE_JIFFIES, self.profile.timer_wheel_round_up),
            ReclaimThrottle::Writeback => {
                self.vmscan_throttled[VmscanThrottle::Writeback as usize] += 1;
                self.reclaim_throttle_writeback_until()
            }
        };
        self.io_schedule_until(until, StallKind::Congestion);
    }

    /// When `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c, 5.16+) called
    /// now by one task returns: see [`reclaim_throttle_writeback_wake`].
    pub fn reclaim_throttle_writeback_until(&mut self) -> crate::types::Nanos {
        let mut done = std::mem::take(&mut self.scratch_completions);
        done.clear();
        // The requests still in flight, and those a context ahead of this one in time already
        // ended after this one's clock.
        done.extend(self.wb_queue.iter().map(|r| (r.0 .0, r.0 .3 as u64)));
        done.extend(self.wb_ended.iter().filter(|e| e.0 > self.now).copied());
        done.sort_unstable();
        let until = reclaim_throttle_writeback_wake(self.now, 1, done.iter().copied(), self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES));
        self.scratch_completions = done;
        until
    }

    /// Sleep in D state until `t` (`io_schedule_timeout()`), a stall of `kind`, then end the
    /// writeback of every write that completed meanwhile (their interrupts ran while the task
    /// slept). In a restartable charge the sleep may end the task's quantum instead
    /// ([`Kernel::schedule_until`]): true then, and reclaim stops where it is.
    fn io_schedule_until(&mut self, t: crate::types::Nanos, kind: StallKind) -> bool {
        self.stalled(kind, |k| k.schedule_until(t))
    }

    /// The end of `shrink_inactive_list()` for a batch that met dirty pages or pages under
    /// writeback on device `dev`: global direct reclaim stalls while that device's queue is
    /// congested (`wait_iff_congested(zone, BLK_RW_ASYNC, HZ/10)` in 3.x-5.15, after the batch
    /// flagged the zone `ZONE_CONGESTED`), at most `HZ/10`, until the backlog drains below the
    /// off threshold; not on 5.0-5.15's blk-mq. kswapd and memcg limit reclaim do not stall
    /// here. 5.16 deleted `wait_iff_congested()` (Mel Gorman's "Remove dependency on
    /// congestion_wait in mm/"): its throttles are [`Kernel::shrink_node_throttle`]'s.
    pub(crate) fn throttle_direct_reclaim(&mut self, dev: usize, sc: &ScanControl) {
        if sc.kswapd || sc.cgroup_reclaim {
            return;
        }
        if self.profile.reclaim_throttle != ReclaimThrottle::Congestion {
            // wait_iff_congested() 5.0-5.15: no blk-mq bdi is ever congested
            // (nr_wb_congested == 0), so it only cond_resched()s; gone from 5.16.
            return;
        }
        if let Some(t) = self.devices[dev].write_congested(self.now) {
            self.io_schedule_until(t.min(self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES)), StallKind::Congestion);
        }
    }

    /// The end of one `shrink_node()` round (mm/vmscan.c 5.16+, 6.1 read; the engine's round
    /// is one priority of `do_try_to_free_pages()` over the target's lruvecs of the nodes it
    /// reclaims), then `shrink_zones()`'s `consider_reclaim_throttle()`:
    /// - kswapd flags its node `PGDAT_WRITEBACK` when every page the round took was under
    ///   writeback and unmarked (`nr.writeback == nr.taken`, case 2), and sleeps
    ///   `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` once when the round met marked
    ///   pages under writeback on a flagged node (`nr.immediate`, case 1:
    ///   [`Kernel::count_writeback_case`]); `clear_pgdat_congested()` clears the flag;
    /// - kswapd, and memcg reclaim where writeback throttling is sane (v2), flag the target's
    ///   lruvec `LRUVEC_CONGESTED` when every dirty file page of the round was under writeback
    ///   and already marked for immediate reclaim (`nr.dirty && nr.dirty == nr.congested`);
    /// - direct reclaim (global or memcg) of a flagged target sleeps
    ///   `reclaim_throttle(pgdat, VMSCAN_THROTTLE_CONGESTED)`;
    /// - global direct reclaim that reached priority 1 with nothing reclaimed sleeps
    ///   `reclaim_throttle(pgdat, VMSCAN_THROTTLE_NOPROGRESS)` (kswapd and memcg reclaim
    ///   never do: "it will throttle on VMSCAN_THROTTLE_WRITEBACK").
    ///
    /// Both reasons share 1b4e3f26f9f7's form ("mm: vmscan: Reduce throttling due to a failure
    /// to make progress", 5.16): no sleep when `skip_throttle_noprogress()`
    /// ([`Kernel::skip_throttle_noprogress`]), else `schedule_timeout(1)`, one jiffy, to the
    /// timer's tick. A reclaimer with more than 12% efficiency wakes NOPROGRESS sleepers
    /// earlier; the engine's sleepers are not woken by other tasks (a one-jiffy sleep at most).
    pub(crate) fn shrink_node_throttle(&mut self, sc: &ScanControl) {
        let (first, last) = match self.reclaim_nid {
            Some(n) => (n, n + 1),
            None => (0, self.nr_nodes),
        };
        if sc.kswapd {
            // "if (sc->nr.writeback && sc->nr.writeback == sc->nr.taken) set_bit(PGDAT_WRITEBACK,
            // &pgdat->flags);" then "if (sc->nr.immediate) reclaim_throttle(pgdat,
            // VMSCAN_THROTTLE_WRITEBACK);": kswapd's node.
            let nid = self.reclaim_nid.unwrap_or(self.cur_nid) as usize;
            if sc.round_writeback > 0 && sc.round_writeback == sc.round_taken {
                if let Some(node) = self.nodes.get_mut(nid) {
                    node.pgdat_writeback = true;
                }
            }
            if sc.round_immediate > 0 {
                self.vmscan_throttled[VmscanThrottle::Writeback as usize] += 1;
                let until = self.reclaim_throttle_writeback_until();
                self.io_schedule_until(until, StallKind::Congestion);
            }
        }
        let flag = sc.kswapd || (sc.cgroup_reclaim && self.writeback_throttling_sane(sc));
        for nid in first..last {
            let v = self.lruvec_idx(sc.target, nid);
            if flag && sc.nr_dirty > 0 && sc.nr_dirty == sc.nr_congested {
                self.lruvecs[v].congested = true;
            }
            if !sc.kswapd && self.lruvecs[v].congested && self.reclaim_throttle_one_jiffy(nid, VmscanThrottle::Congested) {
                return;
            }
        }
        if !sc.kswapd && !sc.cgroup_reclaim && sc.priority == 1 && sc.nr_reclaimed == 0 {
            // consider_reclaim_throttle(first_pgdat, sc): the zonelist's first node.
            let nid = self.reclaim_nid.unwrap_or(self.cur_nid);
            self.reclaim_throttle_one_jiffy(nid, VmscanThrottle::Noprogress);
        }
    }

    /// `reclaim_throttle(pgdat, VMSCAN_THROTTLE_CONGESTED / _NOPROGRESS)` (5.16+): unless
    /// `skip_throttle_noprogress()`, sleep `schedule_timeout(1)` (to the next tick), a
    /// congestion stall. True when the sleep ended the task's quantum (a restartable charge:
    /// reclaim stops there, [`Kernel::schedule_until`]).
    fn reclaim_throttle_one_jiffy(&mut self, nid: u32, reason: VmscanThrottle) -> bool {
        if self.skip_throttle_noprogress(nid) {
            return false;
        }
        self.vmscan_throttled[reason as usize] += 1;
        let until = self.schedule_timeout_at(1);
        self.stalled(StallKind::Congestion, |k| k.schedule_until(until))
    }

    /// `skip_throttle_noprogress()` (mm/vmscan.c 5.16+): no throttle on a node kswapd gave up
    /// on ("the system is likely near OOM", [`Kernel::kswapd_hopeless`]), nor when at most half
    /// of its reclaimable pages wait for writeback (`2 * NR_ZONE_WRITE_PENDING <=
    /// zone_reclaimable_pages()`, summed over its zones: "throttling will occur when the folios
    /// cycle towards the end of the LRU if still under writeback"). Write-pending pages are
    /// the machine's dirty and writeback pages (the engine keeps them per machine).
    pub fn skip_throttle_noprogress(&self, nid: u32) -> bool {
        if self.kswapd_hopeless(nid) {
            return true;
        }
        let write_pending = self.vmstat.nr_dirty + self.vmstat.nr_writeback;
        2 * write_pending <= self.node_reclaimable_pages(nid)
    }

    /// `too_many_isolated()` (mm/vmscan.c) for reclaim `sc` on node `nid`, the list type
    /// `file`, at the running context's clock: [`too_many_isolated_sizes`] of the node's
    /// inactive list (`node_page_state(pgdat, NR_INACTIVE_*)`: the root lruvec's subtree
    /// size) and the pages other contexts' batches hold isolated now
    /// ([`crate::mmzone::IsolatedLedger`]). kswapd, and reclaim whose writeback throttling is not
    /// sane (legacy v1 memcg reclaim; every memcg reclaim before 4.2's `sane_reclaim()`, where
    /// the test was `global_reclaim()`), are never held: false. The inactive count is
    /// shifted by 3 when `sc.gfp_io_fs` ([`ScanControl::gfp_io_fs`]): every engine reclaim is
    /// on behalf of a `GFP_KERNEL` or `GFP_HIGHUSER_MOVABLE` request, which has `__GFP_IO |
    /// __GFP_FS`, except one entered inside readahead's `memalloc_nofs_save()` (5.8+), which
    /// has no `__GFP_FS` (iomap's `FGP_NOFS` page-cache writes and XFS's `mapping_gfp_mask()`
    /// without `__GFP_FS` are not told apart).
    pub fn too_many_isolated(&self, nid: u32, file: bool, sc: &ScanControl) -> bool {
        if sc.kswapd || !self.writeback_throttling_sane(sc) {
            return false;
        }
        let lru = if file { LruList::InactiveFile } else { LruList::InactiveAnon };
        let inactive = self.lru_stats.subtree_size(self.lruvec_idx(MemcgId::ROOT, nid), lru);
        let ledger = &self.nodes[nid as usize].isolated;
        // O(1) first: the ledger cannot hold enough.
        if !too_many_isolated_sizes(inactive, ledger.recorded(file, self.now), sc.gfp_io_fs) {
            return false;
        }
        too_many_isolated_sizes(inactive, ledger.isolated_at(file, self.now), sc.gfp_io_fs)
    }

    /// The `too_many_isolated()` wait at the start of `shrink_inactive_list()` (mm/vmscan.c)
    /// of the list type `file` on node `nid`, per era ([`crate::profile::IsolatedThrottle`]):
    /// - before 4.14, `congestion_wait(BLK_RW_ASYNC, HZ/10)` for as long as the node has too
    ///   many isolated, each sleep ended by a device's write queue leaving congestion (the
    ///   legacy queue's `clear_wb_congested()`) or the timeout;
    /// - 4.14-5.15, one `msleep(100)`;
    /// - 5.16+, one `reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED)`: at most `HZ/50`,
    ///   woken at the first `too_many_isolated()` of another direct reclaimer that found the
    ///   node below its limit after the sleep began (`wake_throttle_isolated()`: a batch of
    ///   the ledger recorded as checked that started then); counted in
    ///   `vmscan.throttled.isolated`;
    ///
    /// after which (4.14+) a node still over the limit makes the call return 0 without
    /// scanning. The sleeps are congestion stalls (inside reclaim: memory stalls). The
    /// pre-4.14 loop's `fatal_signal_pending()` exit is not modelled (the engine does not
    /// kill a sleeping task). Returns `Err(nr)` when `shrink_inactive_list()` returns `nr` at
    /// once (0: still too many, or the sleep ended the quantum), else `Ok(checked)`: whether
    /// a `too_many_isolated()` that can wake sleepers found the node below the limit.
    #[inline]
    pub(crate) fn shrink_inactive_throttle(&mut self, nid: u32, file: bool, sc: &ScanControl) -> Result<bool, u64> {
        if sc.kswapd || !self.writeback_throttling_sane(sc) {
            return Ok(false);
        }
        if self.nodes[nid as usize].isolated.recorded(file, self.now) == 0 {
            // Nothing isolated by anyone at this clock (the common case): not too many.
            return Ok(true);
        }
        self.shrink_inactive_throttle_wait(nid, file, sc)
    }

    /// [`Kernel::shrink_inactive_throttle`] when the ledger may hold isolated pages (out of
    /// line).
    #[cold]
    #[inline(never)]
    fn shrink_inactive_throttle_wait(&mut self, nid: u32, file: bool, sc: &ScanControl) -> Result<bool, u64> {
        let mut stalled = false;
        while self.too_many_isolated(nid, file, sc) {
            let until = match self.profile.isolated_throttle {
                IsolatedThrottle::CongestionLoop => {
                    let timeout = self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES);
                    let now = self.now;
                    let cleared = self.devices.iter().filter_map(|d| d.write_congested(now)).filter(|&t| t > now).min();
                    cleared.map_or(timeout, |t| t.min(timeout))
                }
                IsolatedThrottle::SleepOnce | IsolatedThrottle::ReclaimThrottle if stalled => return Err(0),
                IsolatedThrottle::SleepOnce => self.schedule_timeout_at(ISOLATED_MSLEEP_JIFFIES),
                IsolatedThrottle::ReclaimThrottle => {
                    self.vmscan_throttled[VmscanThrottle::Isolated as usize] += 1;
                    let timeout = self.schedule_timeout_at(ISOLATED_THROTTLE_JIFFIES);
                    self.nodes[nid as usize].isolated.first_check_between(self.now, timeout).unwrap_or(timeout)
                }
            };
            stalled = true;
            if self.stalled(StallKind::Congestion, |k| k.schedule_until(until)) {
                return Err(0);
            }
        }
        Ok(true)
    }

    /// The end of a reclaim batch that took `pages` of the list type `file` off lruvec `v`
    /// at `start` and put them back (or freed them) now: `NR_ISOLATED_ANON/FILE -= nr_taken`
    /// after `move_folios_to_lru()`, recorded in the node's ledger for the contexts whose
    /// clocks are within it ([`Kernel::too_many_isolated`]).
    #[inline]
    fn isolated_putback(&mut self, v: usize, file: bool, start: crate::types::Nanos, pages: u64, checked: bool) {
        if pages > 0 {
            let nid = v % self.nr_nodes as usize;
            let now = self.now;
            self.nodes[nid].isolated.record(file, start, now, pages, checked);
        }
    }

    /// The scan and steal events of one `shrink_inactive_list()` batch: memory.stat
    /// `pgscan`/`pgsteal` of the memcg, and /proc/vmstat's kswapd or direct counters for
    /// global reclaim, which also adds to the node's `NR_PAGES_SCANNED` (pre-4.7 OOM
    /// detection, `zone_reclaimable()`); a batch that reclaimed resets the node's
    /// `kswapd_failures` (`shrink_node()`, 4.12+).
    pub(crate) fn count_scan_steal(&mut self, memcg: MemcgId, v: usize, scanned: u64, reclaimed: u64, sc: &mut ScanControl) {
        self.memcgs.count_event(memcg, MemcgEvent::Pgscan, scanned);
        self.memcgs.count_event(memcg, MemcgEvent::Pgsteal, reclaimed);
        sc.nr_scanned += scanned;
        if reclaimed > 0 {
            // shrink_node() (4.12+): "On reclaim progress, reset the failure counter. A
            // successful direct reclaim run will revive a dormant kswapd." Every reclaimer's
            // (kswapd, direct, memcg limit); at the batch, where shrink_node() looks at its sum.
            if let Some(n) = self.nodes.get_mut(v % self.nr_nodes as usize) {
                n.kswapd_failures = 0;
            }
        }
        if !sc.cgroup_reclaim {
            let (scan_ev, steal_ev) =
                if sc.kswapd { (VmEvent::PgscanKswapd, VmEvent::PgstealKswapd) } else { (VmEvent::PgscanDirect, VmEvent::PgstealDirect) };
            self.vmstat.count(scan_ev, scanned);
            self.vmstat.count(steal_ev, reclaimed);
            let nid = v % self.nr_nodes as usize;
            if let Some(n) = self.nodes.get_mut(nid) {
                n.pages_scanned += scanned;
            }
        }
    }

    /// `inactive_is_low()` for the file lists: `inactive * ratio < active` with
    /// `ratio = int_sqrt(10 * size_in_GiB)` (1 below 1 GiB), or 1:1 in old profiles.
    pub fn inactive_is_low(&self, v: usize) -> bool {
        let l = &self.lruvecs[v];
        let inactive = l.size(LruList::InactiveFile);
        let active = l.size(LruList::ActiveFile);
        let ratio = match self.profile.file_inactive_ratio {
            InactiveRatio::OneToOne => 1,
            InactiveRatio::Sqrt => {
                let gb = (inactive + active) >> (30 - crate::types::PAGE_SHIFT);
                if gb > 0 {
                    int_sqrt(10 * gb)
                } else {
                    1
                }
            }
        };
        inactive * ratio < active
    }

    /// `shrink_active_list()`: move up to `nr` pages from the tail of the active list to the
    /// inactive list, marking them `PG_workingset`. A mapped page's young PTEs are cleared
    /// on the way (`folio_referenced()`); one an executable mapping used goes round the
    /// active list once more ("Identify referenced, file-backed active folios and give them
    /// one more trip around the active list", every era modelled: 8cab4754d24a, 2.6.31).
    fn shrink_active_list(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &ScanControl) {
        // shrink_active_list(): "lru_add_drain();" first.
        let start = self.now;
        self.lru_add_drain();
        let mut moved = 0;
        let mut scanned = 0;
        let mut nr_rotated = 0;
        while scanned < nr {
            let Some(p) = self.lruvecs[v].tail(LruList::ActiveFile) else { break };
            let nr_p = self.pages.folio_nr_pages(p);
            self.cpu(self.cost.scan_page);
            self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
            scanned += nr_p;
            if self.pages[p].mapcount > 0 {
                let r = self.folio_referenced(p);
                if r.locked {
                    self.pages[p].flags &= !pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
                    continue;
                }
                if r.ptes > 0 && r.exec {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveFile);
                    nr_rotated += nr_p;
                    continue;
                }
            }
            let pg_ = &mut self.pages[p];
            pg_.flags &= !pg::ACTIVE;
            pg_.flags |= pg::WORKINGSET;
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            moved += nr_p;
        }
        // nr_activate = move_folios_to_lru(lruvec, &l_active): the rotated pages are active.
        self.move_folios_to_lru_age(memcg, nr_rotated);
        // "if (nr_rotated) lru_note_cost(lruvec, file, 0, nr_rotated);" (6.2+; 6.1 notes none)
        self.lru_note_cost(memcg, (v % self.nr_nodes as usize) as u32, true, 0, nr_rotated);
        // Isolated (NR_ISOLATED_FILE) while their references were looked at, not throttled.
        self.isolated_putback(v, true, start, scanned, false);
        self.memcgs.count_event(memcg, MemcgEvent::Pgrefill, scanned);
        self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, moved);
        if !sc.cgroup_reclaim {
            self.vmstat.count(VmEvent::Pgrefill, scanned);
        }
        self.vmstat.count(VmEvent::Pgdeactivate, moved);
    }

    /// The non-resident ageing of `move_folios_to_lru()` (5.9+,
    /// `KernelProfile::age_nonresident_on_putback`): `if (folio_test_active(folio))
    /// workingset_age_nonresident(lruvec, nr_pages)` for the `nr_active` pages of `memcg`'s
    /// lruvec reclaim puts back active, after the batch's evictions (the putback follows
    /// `shrink_folio_list()`).
    #[inline]
    fn move_folios_to_lru_age(&mut self, memcg: MemcgId, nr_active: u64) {
        if nr_active > 0 && self.profile.age_nonresident_on_putback && !self.profile.lru_gen {
            self.workingset_age_nonresident(memcg, nr_active);
        }
    }

    /// `shrink_inactive_list()` + `shrink_folio_list()`: isolate up to `nr` pages from the
    /// tail of the inactive file list and reclaim the clean, unlocked ones. Pages under read
    /// I/O or writeback are put back; dirty pages are handed to the flusher
    /// (`wakeup_flusher_threads()`) and activated, as direct reclaim never writes file pages.
    /// With `recharge_on_pagecache_get`, limit reclaim uncharges clean pages and moves them to
    /// the root memcg's LRU instead of evicting them.
    pub(crate) fn shrink_inactive_list(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &mut ScanControl) -> u64 {
        let keep_in_cache = self.policies.recharge_on_pagecache_get && sc.cgroup_reclaim;
        let checked = match self.shrink_inactive_throttle((v % self.nr_nodes as usize) as u32, true, sc) {
            Ok(c) => c,
            Err(nr) => return nr,
        };
        let start = self.now;
        let mut scanned = 0;
        let mut reclaimed = 0;
        let mut st = ReclaimStat::default();
        self.shrink_list_call_cost();
        // The lruvec's hierarchical sizes, the evictions' ageing and the freed pages' charge
        // are applied per batch (`EvictBatch`), before anything could read them.
        let mut b = EvictBatch::new(self.lruvecs[v].idx as usize);
        while scanned < nr {
            let Some((p, nr_p)) = self.lruvecs[v].isolate_tail(&mut self.pages, LruList::InactiveFile) else { break };
            b.taken += nr_p;
            scanned += nr_p;
            self.cpu(self.cost.scan_page);
            if self.folio_test_locked(p) {
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
                continue;
            }
            // A clean folio, not under writeback and unmapped (the common one), goes straight
            // to the flag clear and its eviction: none of these tests acts on it.
            let pv = self.pages[p];
            let clean = pv.flags & (pg::WRITEBACK | pg::DIRTY) == 0 && pv.mapcount == 0;
            if !clean {
                match self.shrink_folio_unclean(memcg, v, p, nr_p, sc, &mut b, &mut st) {
                    Unclean::Next => continue,
                    Unclean::Stop => {
                        scanned -= nr_p;
                        break;
                    }
                    Unclean::Reclaim => {}
                }
            }
            // The page as the tests left it (as read above when none acted).
            let pv = if clean { pv } else { self.pages[p] };
            if keep_in_cache && pv.memcg != MemcgId::NONE && pv.memcg != MemcgId::ROOT {
                self.shrink_folio_recharge(p, &mut b);
            } else {
                self.evict_batched(p, pv, sc.target, &mut b);
            }
            reclaimed += nr_p;
        }
        self.evict_batch_flush(&mut b);
        if reclaimed > 0 {
            // shrink_folio_list()'s free_folios: mem_cgroup_uncharge_folios(), free_unref_folios().
            self.cpu(self.cost.evict_batch);
        }
        self.move_folios_to_lru_age(memcg, st.nr_activate);
        self.isolated_putback(v, true, start, scanned, checked);
        self.count_scan_steal(memcg, v, scanned, reclaimed, sc);
        // lru_note_cost(lruvec, file, stat.nr_pageout, nr_scanned - nr_reclaimed): reclaim
        // writes no file page here (stat.nr_pageout 0), so 5.8-6.1 note nothing; 6.2+ the
        // pages scanned and not freed as rotations.
        self.lru_note_cost(memcg, (v % self.nr_nodes as usize) as u32, true, 0, scanned.saturating_sub(reclaimed));
        sc.round_taken += scanned;
        if self.profile.flusher_wakeup_writes_all {
            // 4.12+: "If dirty folios are scanned that are not queued for IO, it implies
            // that flushers are not doing their job": the flusher is woken only when every
            // page the batch took was dirty and not under writeback (`nr_unqueued_dirty ==
            // nr_taken`). From 6.1 legacy (v1) memcg reclaim then waits for writeback to
            // progress (`reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)`, at most HZ/10; woken
            // once more than SWAP_CLUSTER_MAX pages have finished writeback).
            if scanned > 0 && st.nr_unqueued_dirty == scanned {
                self.wakeup_flusher_threads();
                if self.profile.v1_reclaim_throttle && !self.writeback_throttling_sane(sc) {
                    self.vmscan_throttled[VmscanThrottle::Writeback as usize] += 1;
                    let until = self.reclaim_throttle_writeback_until();
                    // woken by __acct_reclaim_writeback() in the completion's work unless the
                    // HZ/10 timeout came first (wake23, Kernel::woken_by_end_io)
                    let timeout = self.schedule_timeout_at(RECLAIM_THROTTLE_JIFFIES);
                    self.woken_by_end_io(until, timeout);
                    self.io_schedule_until(until, StallKind::Congestion);
                    self.end_io_wake_done();
                }
            }
        } else if st.kick_flusher {
            self.wakeup_flusher_threads();
        }
        if let Some(dev) = st.congested_dev {
            self.throttle_direct_reclaim(dev.idx(), sc);
            self.throttle_kswapd(dev.idx(), st.nr_immediate, st.nr_writeback == scanned, sc);
        }
        reclaimed
    }

    /// [`Kernel::shrink_inactive_list`] under `recharge_on_pagecache_get` (out of line): the
    /// clean page is uncharged and moved to the root memcg's LRU instead of being evicted.
    #[cold]
    #[inline(never)]
    fn shrink_folio_recharge(&mut self, p: PageId, b: &mut EvictBatch) {
        // folio_check_references(): an unmapped clean file page is reclaimed even when
        // PG_referenced is set (FOLIOREF_RECLAIM_CLEAN); the flag is cleared.
        self.pages[p].flags &= !(pg::REFERENCED | pg::READAHEAD | pg::RECLAIM);
        self.evict_batch_flush(b);
        if self.pages[p].test(pg::HEAD) {
            self.mem_cgroup_uncharge_folio(p);
        } else {
            self.mem_cgroup_uncharge(p);
        }
        self.pages[p].flags &= !pg::ACTIVE;
        let root = self.folio_lruvec(p);
        self.lruvecs[root].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
    }

    /// `shrink_folio_list()`'s tests of a folio that is dirty, under writeback or mapped (out
    /// of line: the common clean, unmapped folio of [`Kernel::shrink_inactive_list`] passes
    /// none of them). `Unclean::Reclaim` when the folio goes on to its eviction.
    #[cold]
    #[inline(never)]
    fn shrink_folio_unclean(&mut self, memcg: MemcgId, v: usize, p: PageId, nr_p: u64, sc: &mut ScanControl, b: &mut EvictBatch, st: &mut ReclaimStat) -> Unclean {
        // Sleeps, rmap walks, activations: the batch is applied first.
        self.evict_batch_flush(b);
        // folio_check_dirty_writeback() (file folios only): stat->nr_dirty, and
        // stat->nr_congested for a folio under writeback that reclaim marked before.
        let f = self.pages[p].flags;
        if f & pg::ANON == 0 && f & (pg::DIRTY | pg::WRITEBACK) != 0 {
            sc.nr_dirty += nr_p;
            if f & pg::WRITEBACK != 0 && f & pg::RECLAIM != 0 {
                sc.nr_congested += nr_p;
            }
        }
        if self.pages[p].test(pg::WRITEBACK) && !sc.kswapd && !self.writeback_throttling_sane(sc) && self.pages[p].test(pg::RECLAIM) {
            // shrink_folio_list() "case 3": legacy (cgroup v1) memcg reclaim has no dirty
            // throttling of its own, so it waits for the writeback of a page it already
            // marked (folio_wait_writeback()), then tries the page again.
            let done = self.wb_done.get(p.idx()).copied().unwrap_or(self.now);
            // folio_end_writeback() in the completion's work wakes it (wake23, Kernel::woken_by_end_io)
            self.woken_by_end_io(done, crate::types::Nanos::MAX);
            let stop = self.io_schedule_until(done, StallKind::Writeback);
            self.end_io_wake_done();
            if stop {
                // The wait ended the task's quantum: the page goes back where it was, at
                // the tail, for the restarted charge's reclaim to try again first
                // (`list_add_tail(&folio->lru, folio_list)` then `continue`, after its
                // wake-up).
                self.lruvecs[v].add_tail(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
                return Unclean::Stop;
            }
        }
        if self.pages[p].test(pg::WRITEBACK) {
            // shrink_folio_list() "case 1" (kswapd meeting a marked page again) and "case
            // 2": mark it for immediate reclaim and keep it; the end of its writeback
            // rotates it to the inactive tail (writeback_end_io()). From 4.12 the page is
            // activated meanwhile (activate_locked), as dirty pages are (c55e8d035b28
            // "mm: vmscan: move dirty pages out of the way until they're flushed").
            // stat->nr_writeback and nr_immediate count pages (folio_nr_pages()).
            st.nr_immediate += self.pages[p].test(pg::RECLAIM) as u64 * nr_p;
            st.nr_writeback += nr_p;
            self.count_writeback_case(v, p, nr_p, sc);
            self.pages[p].flags |= pg::RECLAIM;
            if self.profile.reclaim_activates_dirty {
                self.pages[p].flags |= pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveFile);
                self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr_p);
                self.vmstat.count(VmEvent::Pgactivate, nr_p);
                st.nr_activate += nr_p;
            } else {
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            }
            sc.nr_writeback += nr_p;
            st.congested_dev = self.inodes[self.pages[p].mapping.idx()].dev.or(st.congested_dev);
            return Unclean::Next;
        }
        if self.pages[p].mapcount > 0 {
            match self.folio_check_references(p) {
                FolioRef::Activate => {
                    self.pages[p].flags |= pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveFile);
                    self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr_p);
                    self.vmstat.count(VmEvent::Pgactivate, nr_p);
                    st.nr_activate += nr_p;
                    return Unclean::Next;
                }
                FolioRef::Keep => {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
                    return Unclean::Next;
                }
                FolioRef::Unevictable => {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
                    return Unclean::Next;
                }
                FolioRef::Reclaim => {
                    // try_to_unmap() before the dirty test (shrink_folio_list(), 6.1; 3.13's
                    // shrink_page_list() alike): a dirty page is unmapped, then kept dirty
                    // (activated) below.
                    self.try_to_unmap(p);
                }
            }
        }
        if self.pages[p].test(pg::DIRTY) {
            st.congested_dev = self.inodes[self.pages[p].mapping.idx()].dev.or(st.congested_dev);
            // "Immediately reclaim when written back": PG_reclaim, so that the end of its
            // writeback rotates it to the inactive tail (clear_dirty_for_io()).
            st.kick_flusher = true;
            st.nr_unqueued_dirty += nr_p;
            if self.profile.reclaim_activates_dirty {
                // v4.12+: activate_locked, counted as an activation.
                self.pages[p].flags |= pg::RECLAIM | pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveFile);
                self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr_p);
                self.vmstat.count(VmEvent::Pgactivate, nr_p);
                st.nr_activate += nr_p;
            } else {
                // v3.2-4.11: keep_locked, back to the head of the inactive list.
                self.pages[p].flags |= pg::RECLAIM;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            }
            return Unclean::Next;
        }
        Unclean::Reclaim
    }

    /// The CPU time of one `shrink_inactive_list()` call (of either list type: one function in
    /// the kernel) besides the folios it scans
    /// (`CpuCost::shrink_list_call`: `lru_add_drain()`, the `lru_lock` round trips of
    /// `isolate_lru_folios()` and `move_folios_to_lru()`, the counters), spent before the
    /// isolation. The clock moves on with it, so a reclaim that finds only folios under read
    /// takes as long as the kernel's, and the reads that complete meanwhile unlock their
    /// folios for the next batch (`folio_test_locked()` holds a folio locked only until its
    /// read's completion time).
    #[inline]
    fn shrink_list_call_cost(&mut self) {
        // shrink_inactive_list(): "lru_add_drain();" before isolate_lru_folios().
        self.lru_add_drain();
        self.cpu(self.cost.shrink_list_call);
    }

    /// `folio_check_references()` of a mapped file page: `folio_referenced()` through rmap,
    /// `folio_test_clear_referenced()`, then [`folio_references`]; a kept page gets
    /// `PG_referenced` (`folio_set_referenced()`).
    pub fn folio_check_references(&mut self, p: PageId) -> FolioRef {
        let r = self.folio_referenced(p);
        let referenced_folio = self.pages[p].test(pg::REFERENCED);
        self.pages[p].flags &= !pg::REFERENCED;
        if r.locked {
            return FolioRef::Unevictable;
        }
        if r.ptes > 0 {
            self.pages[p].flags |= pg::REFERENCED;
        }
        folio_references(r.ptes, referenced_folio, r.exec)
    }

    /// `writeback_throttling_sane()`: global reclaim, and cgroup reclaim on cgroup v2 (whose
    /// memcgs are writeback domains with dirty throttling, v4.2+); legacy (v1) memcg reclaim
    /// is not, and waits on writeback instead.
    pub fn writeback_throttling_sane(&self, sc: &ScanControl) -> bool {
        !sc.cgroup_reclaim || (self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && self.profile.cgroup_writeback)
    }

    /// `__remove_mapping()` + `mem_cgroup_uncharge()` + `free_unref_folios()`: evict a clean
    /// page, leaving a shadow entry (`workingset_eviction()`), and free its frame; a large folio
    /// also pays `free_pages_prepare()`'s walk over its tail pages ([`CpuCost::evict_tail_page`]).
    pub fn evict(&mut self, p: PageId, target: MemcgId) {
        self.cpu(self.cost.evict_page);
        let shadow = if self.profile.workingset_refault { Some(self.workingset_eviction(p, target)) } else { None };
        if self.pages[p].test(pg::HEAD) {
            // A large folio goes whole, leaving one shadow entry over its range.
            let nr = self.pages.folio_nr_pages(p);
            // free_pages_prepare(): free_tail_page_prepare() on each tail page (orders61).
            self.cpu(self.cost.evict_tail_page * nr.saturating_sub(1));
            self.filemap_remove_large_folio(p, shadow);
            self.mem_cgroup_uncharge_folio(p);
            self.free_folio(p, nr);
            return;
        }
        self.filemap_remove_folio(p, shadow);
        self.mem_cgroup_uncharge(p);
        self.free_page(p);
    }

    /// [`Kernel::evict`] inside a `shrink_inactive_list()` batch `b`: a clean, unmapped
    /// order-0 page without buffers, charged to an online memcg, leaves its shadow, its
    /// slot and its frame at once, and its charge and the lruvec's ageing with the batch
    /// (`mem_cgroup_uncharge_list()`, [`Kernel::workingset_eviction_batched`]); any other
    /// page is evicted by `evict()` once the batch is applied.
    ///
    /// `pv` is the page as it is now, before `folio_check_references()`'s flag clear
    /// (`PG_referenced`, and `PG_readahead` and `PG_reclaim` as the kernel's
    /// `folio_clear_*()` before the folio is freed), which is made here: on a page `evict()`
    /// takes; a page evicted in the batch is freed (`Page::FREE`) before anything reads those
    /// flags (nor its memcg, which the uncharge leaves unwritten for the same reason).
    #[inline]
    fn evict_batched(&mut self, p: PageId, pv: crate::mm_types::Page, target: MemcgId, b: &mut EvictBatch) {
        let memcg = pv.memcg;
        let plain = pv.flags & (pg::HEAD | pg::PRIVATE | pg::DIRTY | pg::WRITEBACK | pg::SWAPBACKED) == 0
            && pv.mapcount == 0
            && memcg != MemcgId::NONE
            && self.profile.workingset_refault
            && !self.profile.lru_gen
            && self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Online;
        if !plain {
            self.pages[p].flags = pv.flags & !(pg::REFERENCED | pg::READAHEAD | pg::RECLAIM);
            self.evict_batch_flush(b);
            return self.evict(p, target);
        }
        self.cpu(self.cost.evict_page);
        let shadow = self.workingset_eviction_batched(memcg, pv.test(pg::WORKINGSET), target, b);
        let m = &self.mappings[pv.mapping.idx()];
        if m.nrpages + m.nrshadows == 1 {
            // The mapping's only entry: xas_shrink() may free range 0's tree node, and with it
            // a slab frame, which goes to the buddy after the batch's frames freed before it.
            self.free_batch_flush(b);
        }
        self.filemap_remove_folio_inline(p, Some(shadow), true);
        self.uncharge_folio_batched(memcg, b);
        self.free_page_batched(p, b);
    }

    /// Apply what batch `b` has left pending: the isolated pages to the lruvec's hierarchical
    /// sizes, the evictions' ageing, the freed pages' uncharge.
    #[inline]
    pub(crate) fn evict_batch_flush(&mut self, b: &mut EvictBatch) {
        if b.taken > 0 {
            self.lru_stats.update(b.lruvec, LruList::InactiveFile as usize, b.taken, false);
            b.taken = 0;
        }
        self.workingset_age_flush(b);
        self.uncharge_batch(b);
        self.free_batch_flush(b);
    }
}

#[cfg(test)]
mod throttle_tests {
    use super::*;
    use crate::profile::{profile, Policies, ReclaimThrottle};

    const MS: u64 = 1_000_000;

    #[test]
    fn reclaim_throttle_writeback_5_16_wakes_after_swap_cluster_max_pages_written() {
        // mm/vmscan.c 5.16+ __acct_reclaim_writeback(): wake_up once
        // nr_written > SWAP_CLUSTER_MAX * nr_throttled; 32 pages are not enough, 33 are.
        let now = 1_000 * MS;
        let done = [(now + 2 * MS, 16), (now + 5 * MS, 16), (now + 7 * MS, 1), (now + 9 * MS, 64)];
        let timeout = crate::timer::schedule_timeout_wake(now, RECLAIM_THROTTLE_JIFFIES, true);
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, done, timeout), now + 7 * MS);
        // Two throttled tasks need more than 64 pages.
        assert_eq!(reclaim_throttle_writeback_wake(now, 2, done, timeout), now + 9 * MS);
        // Writes completed before the throttling started do not count (nr_reclaim_start).
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, [(now - MS, 1000), (now + 3 * MS, 40)], timeout), now + 3 * MS);
        // Nothing completing within HZ/10: the timeout, schedule_timeout(HZ/10)'s timer, one
        // tick after its expiry (called on a tick: 26 jiffies, 104 ms).
        assert_eq!(timeout, now + 104 * MS);
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, [(now + 150 * MS, 1000)], timeout), timeout);
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, [], timeout), timeout);
    }

    #[test]
    fn congestion_wait_5_0_to_5_15_sleeps_the_whole_hz_10_on_blk_mq() {
        // mm/backing-dev.c congestion_wait() 5.0-5.15: no blk-mq bdi calls clear_wb_congested().
        // io_schedule_timeout(HZ/10) at 7 ms (jiffy 1): expiry at jiffy 26, the wheel's
        // bucket one tick later (4.8+): 108 ms.
        assert_eq!(congestion_wait_blk_mq(7 * MS, RECLAIM_THROTTLE_JIFFIES, true), 108 * MS);
        assert_eq!(RECLAIM_THROTTLE, 100 * MS, "HZ/10");
        assert_eq!(RECLAIM_THROTTLE_JIFFIES * crate::timer::NSEC_PER_JIFFY, RECLAIM_THROTTLE);
    }

    #[test]
    fn reclaim_throttle_eras_per_profile() {
        // congestion_wait()/wait_iff_congested() with a legacy request queue before 5.0,
        // congestion_wait() on blk-mq 5.0-5.15, reclaim_throttle() from 5.16.
        assert_eq!(profile("linux-4.4").unwrap().reclaim_throttle, ReclaimThrottle::Congestion);
        assert_eq!(profile("linux-5.0").unwrap().reclaim_throttle, ReclaimThrottle::CongestionTimeout);
        for p in ["linux-5.17", "linux-6.1", "linux-6.6"] {
            assert_eq!(profile(p).unwrap().reclaim_throttle, ReclaimThrottle::Writeback, "{p}");
        }
        // shrink_inactive_list()'s v1 reclaim_throttle() after waking the flusher: 6.1+.
        assert!(!profile("linux-5.17").unwrap().v1_reclaim_throttle);
        assert!(profile("linux-6.1").unwrap().v1_reclaim_throttle);
    }

    #[test]
    fn should_reclaim_retry_4_7_to_5_15_waits_hz_10_for_write_pending() {
        // mm/page_alloc.c should_reclaim_retry() 4.7-5.15: "if (2 * write_pending > reclaimable)
        // { congestion_wait(BLK_RW_ASYNC, HZ/10); return true; }" -- on 5.x the full HZ/10,
        // as nothing clears a blk-mq bdi's congestion, until the tick of the timer's bucket (one
        // after its expiry: called on a tick, 26 jiffies).
        let mut k = Kernel::new(profile("linux-5.0").unwrap(), Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
        assert!(k.profile.oom_waits_on_write_pending);
        let t0 = k.now;
        k.should_reclaim_retry_write_pending_wait();
        assert_eq!(k.now - t0, 104 * MS);
        assert_eq!(k.iowait_ns, 104 * MS);
        // 5.16 removed the wait (reclaim_throttle() inside reclaim instead).
        assert!(!profile("linux-5.17").unwrap().oom_waits_on_write_pending);
    }
}
