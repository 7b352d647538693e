//! Memory cgroups: the hierarchy, page counters, charging and memory.stat (mm/memcontrol.c,
//! mm/page_counter.c).

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::profile::{ChargePath, MemcgOomEvent};
use crate::types::{MemcgId, Nanos, PageId, PAGE_SIZE};

/// cgroup interface generation, which decides the control files and their semantics.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// cgroup v1: memory.limit_in_bytes (hierarchical, as with use_hierarchy=1).
    V1,
    /// cgroup v2: memory.max, memory.high, memory.low, memory.min.
    V2,
}

/// [`Memcg::wb_subtree`]'s slot of page-cache pages that are not shmem (`NR_FILE_PAGES -
/// NR_SHMEM`).
pub const WB_FILE: usize = 0;
/// [`Memcg::wb_subtree`]'s slot of dirty page-cache pages (`NR_FILE_DIRTY`).
pub const WB_DIRTY: usize = 1;
/// [`Memcg::wb_subtree`]'s slot of page-cache pages under writeback (`NR_WRITEBACK`).
pub const WB_WRITEBACK: usize = 2;

/// The slot of [`Memcg::activate_subtree`] that keeps event `ev` (a [`MemcgEvent`] index)
/// hierarchically, if it is one of the two it keeps.
#[inline(always)]
fn activate_slot(ev: usize) -> Option<usize> {
    if ev == MemcgEvent::WorkingsetActivateFile as usize {
        Some(0)
    } else if ev == MemcgEvent::WorkingsetActivateAnon as usize {
        Some(1)
    } else {
        None
    }
}

/// `MEM_CGROUP_ID_MAX`: memcg ids are 16 bits.
pub const MEM_CGROUP_ID_MAX: u32 = 65535;

impl Memcg {
    fn new(path: String, parent: Option<MemcgId>, level: u32, id: u32) -> Memcg {
        Memcg {
            path,
            parent,
            children: vec![],
            counter: PageCounter::default(),
            nr_file: 0,
            nr_dirty: 0,
            nr_writeback: 0,
            psi: Default::default(),
            events: [0; NR_MEMCG_EVENTS],
            level,
            state: MemcgState::Online,
            id,
            kmem_id: None,
            nr_tasks: 0,
            nr_tasks_subtree: 0,
            nr_shmem: 0,
            nr_shmem_thps: 0,
            nr_anon: 0,
            nr_file_mapped: 0,
            refaults_snapshot: 0,
            refaults_snapshot_anon: 0,
            activate_subtree: [0; 2],
            activate_flushed: [0; 2],
            activate_flushed_epoch: 0,
            wb_subtree: std::cell::Cell::new([0; 3]),
            wb_flushed: std::cell::Cell::new([0; 3]),
            wb_queued: std::cell::Cell::new(false),
            percpu_bytes: 0,
            slab_bytes: 0,
            kmem_pins: 0,
            kmem_cache_sets: 0,
            kmem_bytes: 0,
            kmem_pages: 0,
            lru_objects: 0,
            swap: 0,
            swap_max: PAGE_COUNTER_MAX,
            memsw_max: PAGE_COUNTER_MAX,
            swappiness: crate::vmscan::SWAPPINESS,
            nr_swapcache: 0,
            zswap_bytes: 0,
            zswapped: 0,
            zswpin: 0,
            zswpout: 0,
            zswap_max: PAGE_COUNTER_MAX,
            zswap_writeback: true,
        }
    }
}

/// `HZ` of the kernels modelled: Debian's x86_64 configuration (`CONFIG_HZ_250`).
pub const HZ: u64 = 250;
/// `FLUSH_TIME` (mm/memcontrol.c, `2UL*HZ`): the period of `flush_memcg_stats_dwork()`,
/// the worker that flushes every memcg's statistics (rstat) into the copies their readers use.
pub const FLUSH_TIME: Nanos = 2 * crate::types::NSEC_PER_SEC;

/// `FLUSH_TIME` in jiffies: the delay `flush_memcg_stats_dwork()` requeues itself with
/// (`queue_delayed_work(system_unbound_wq, &stats_flush_dwork, FLUSH_TIME)`, 6.1-6.18).
pub const FLUSH_TIME_JIFFIES: u64 = 2 * HZ;

/// When the periodic flusher, having run at jiffy `ran` (the engine's clock in
/// [`crate::timer::NSEC_PER_JIFFY`] ticks), runs next: linux-6.1/6.12/6.18 mm/memcontrol.c
/// `flush_memcg_stats_dwork()` ends with `queue_delayed_work(system_unbound_wq,
/// &stats_flush_dwork, FLUSH_TIME)` -> `__queue_delayed_work()`: `timer->expires = jiffies +
/// delay`, then `add_timer()` (6.1, 6.12) / `add_timer_global()` (6.18) -> `__mod_timer()` ->
/// `internal_add_timer()` -> `calc_wheel_index()`. 500 jiffies is below `LVL_START(2)` (504):
/// level 1, whose `calc_index()` rounds the expiry up to the next multiple of 8 jiffies, so
/// the timer fires 501-508 jiffies on: 504 (2.016 s at HZ 250) when requeued within the jiffy
/// its bucket fired (a multiple of 8). With `round_up` false (before 4.8's wheel) it fires at
/// `expires` itself. The workqueue's wake-up of the worker is not modelled: the flush runs
/// (and requeues) at the jiffy its timer fires.
pub fn stats_flush_requeue(ran: u64, round_up: bool) -> u64 {
    let expires = ran + FLUSH_TIME_JIFFIES;
    if round_up {
        crate::timer::calc_wheel_index(expires, ran)
    } else {
        expires
    }
}

/// Where the periodic statistics flusher runs within its period for boot `boot_seed`
/// (`kernel.boot_seed`): how many jiffies before the clock's 0 it last ran. It is queued once
/// per boot (linux-6.1/6.12 `mem_cgroup_css_online()` of the root memcg, 6.18
/// `mem_cgroup_css_online()` likewise: `queue_delayed_work(system_unbound_wq,
/// &stats_flush_dwork, FLUSH_TIME)`) and requeued by each run ([`stats_flush_requeue`]), so
/// its timer fires on the wheel's level-1 buckets (multiples of 8 jiffies of the engine's
/// clock, whose jiffy 0 is taken as a bucket's) every 504 jiffies; its phase against a
/// workload started later is the boot's: 0 for boot 0 (a flush at the clock's 0), one of the
/// 63 buckets of a period drawn from the seed for the others.
pub fn stats_flush_phase(boot_seed: u64) -> u64 {
    if boot_seed == 0 {
        return 0;
    }
    // (the draw is the one the 2 s period had, a fraction of `FLUSH_TIME`, taken as the same
    // fraction of the wheel's period and floored to its bucket)
    let period = stats_flush_requeue(0, true);
    let drawn = crate::lru_gen::memcg_lru_rand_seed(boot_seed ^ 0x5EED_F1A5) % FLUSH_TIME;
    8 * (drawn as u128 * (period / 8) as u128 / FLUSH_TIME as u128) as u64
}

/// `MEMCG_MAX_HIGH_DELAY_JIFFIES`: the longest memory.high penalty per return to user space.
pub const MEMCG_MAX_HIGH_DELAY_JIFFIES: u64 = 2 * HZ;
/// `MEMCG_DELAY_PRECISION_SHIFT` (mm/memcontrol.c).
pub const MEMCG_DELAY_PRECISION_SHIFT: u32 = 20;
/// `MEMCG_DELAY_SCALING_SHIFT` (mm/memcontrol.c).
pub const MEMCG_DELAY_SCALING_SHIFT: u32 = 14;

/// `calculate_overage()`: how far `usage` is above `high`, as a fraction of `high` in
/// `2^MEMCG_DELAY_PRECISION_SHIFT` units (0 when not above).
pub fn calculate_overage(usage: u64, high: u64) -> u64 {
    if usage <= high {
        return 0;
    }
    let high = high.max(1);
    ((((usage - high) as u128) << MEMCG_DELAY_PRECISION_SHIFT) / high as u128).min(u64::MAX as u128) as u64
}

/// `calculate_high_delay()`: the penalty in jiffies for a task that charged `nr_pages` over
/// high with the memcg's `max_overage`: `overage^2 * HZ >> (PRECISION + SCALING)`, scaled by
/// the task's share (`nr_pages / MEMCG_CHARGE_BATCH`).
pub fn calculate_high_delay(nr_pages: u64, max_overage: u64, charge_batch: u64) -> u64 {
    if max_overage == 0 {
        return 0;
    }
    let p = (max_overage as u128 * max_overage as u128 * HZ as u128) >> MEMCG_DELAY_PRECISION_SHIFT >> MEMCG_DELAY_SCALING_SHIFT;
    (p * nr_pages as u128 / charge_batch as u128).min(u64::MAX as u128) as u64
}

/// `MEM_CGROUP_MAX_RECLAIM_LOOPS` (mm/memcontrol.c, 3.13): the most passes one
/// `mem_cgroup_reclaim()` makes ([`ChargePath::DoCharge`]).
pub const MEM_CGROUP_MAX_RECLAIM_LOOPS: u32 = 100;

/// `PAGE_COUNTER_MAX`: no limit.
pub const PAGE_COUNTER_MAX: u64 = u64::MAX / 2;

/// `struct page_counter` (mm/page_counter.c), in pages.
#[derive(Clone, Debug)]
pub struct PageCounter {
    /// Pages charged to this memcg and its descendants.
    pub usage: u64,
    /// Pages the CPUs' charge stocks hold pre-charged for this memcg or a descendant
    /// ([`MemcgStock`]): the kernel's counter holds them beside `usage` (`page_counter_read()`
    /// = usage + stocked), and its limit tests and `mem_cgroup_margin()` see them.
    pub stocked: u64,
    /// `memory.max` / `memory.limit_in_bytes`.
    pub max: u64,
    /// `memory.high`.
    pub high: u64,
    /// `memory.low` (set through [`MemcgTree::set_protection`]).
    low: u64,
    /// `memory.min` (set through [`MemcgTree::set_protection`]).
    min: u64,
    /// Effective low protection computed for the current reclaim (`elow`).
    pub elow: u64,
    /// Effective min protection computed for the current reclaim (`emin`).
    pub emin: u64,
    /// `memory.max_usage_in_bytes` (v1) / `memory.peak` (v2).
    pub watermark: u64,
    /// `memory.failcnt`: charges that hit the limit.
    pub failcnt: u64,
}

impl PageCounter {
    /// `memory.low`, pages.
    pub fn low(&self) -> u64 {
        self.low
    }

    /// `memory.min`, pages.
    pub fn min(&self) -> u64 {
        self.min
    }
}

impl Default for PageCounter {
    fn default() -> Self {
        PageCounter {
            usage: 0,
            stocked: 0,
            max: PAGE_COUNTER_MAX,
            high: PAGE_COUNTER_MAX,
            low: 0,
            min: 0,
            elow: 0,
            emin: 0,
            watermark: 0,
            failcnt: 0,
        }
    }
}

/// memory.stat event counters (`enum vm_event_item` / `memcg_vm_event_stat`), per memcg,
/// counted locally; [`MemcgTree::events`] sums a subtree as v2's memory.stat does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum MemcgEvent {
    /// v1 `pgpgin`: pages charged.
    Pgpgin,
    /// v1 `pgpgout`: pages uncharged.
    Pgpgout,
    /// `pgscan`: pages scanned by reclaim.
    Pgscan,
    /// `pgsteal`: pages reclaimed.
    Pgsteal,
    /// `pgactivate`.
    Pgactivate,
    /// `pgdeactivate`.
    Pgdeactivate,
    /// `pgrefill`: pages scanned on the active list.
    Pgrefill,
    /// `workingset_refault_file`.
    WorkingsetRefaultFile,
    /// `workingset_activate_file`.
    WorkingsetActivateFile,
    /// `workingset_restore_file`.
    WorkingsetRestoreFile,
    /// memory.events `max`: the limit was hit.
    Max,
    /// memory.events `high`.
    High,
    /// memory.events `oom_kill`.
    OomKill,
    /// memory.events `oom` (`MEMCG_OOM`): a charge of this memcg (the one whose limit it
    /// met) entered the OOM path, counted before any kill (4.0+; [`MemcgOomEvent`]).
    Oom,
    /// memory.events `low`: reclaimed despite memory.low (second pass).
    Low,
    /// `pgfault`: page faults taken by the memcg's tasks.
    Pgfault,
    /// `pgmajfault`: faults that had to read the page from disk.
    Pgmajfault,
    /// memory.swap.events `max` (v2): a swap charge met memory.swap.max (`MEMCG_SWAP_MAX`).
    SwapMax,
    /// memory.swap.events `fail` (v2): a page could not get a slot, for lack of swap or of
    /// room under memory.swap.max (`MEMCG_SWAP_FAIL`).
    SwapFail,
    /// `workingset_refault_anon` (5.9+).
    WorkingsetRefaultAnon,
    /// `workingset_activate_anon`.
    WorkingsetActivateAnon,
    /// `workingset_restore_anon`.
    WorkingsetRestoreAnon,
}

impl MemcgEvent {
    /// A memory.events / memory.swap.events counter (`enum memcg_memory_event`, counted by
    /// `memcg_memory_event()`), not a memory.stat one.
    pub fn is_memory_event(self) -> bool {
        matches!(self, MemcgEvent::Max | MemcgEvent::High | MemcgEvent::OomKill | MemcgEvent::Oom | MemcgEvent::Low | MemcgEvent::SwapMax | MemcgEvent::SwapFail)
    }
}

/// Number of [`MemcgEvent`]s.
pub const NR_MEMCG_EVENTS: usize = 22;

impl MemcgEvent {
    /// All events with their memory.stat names, and memory.events names as `events.NAME`.
    pub const ALL: [(MemcgEvent, &'static str); NR_MEMCG_EVENTS] = [
        (MemcgEvent::Pgpgin, "pgpgin"),
        (MemcgEvent::Pgpgout, "pgpgout"),
        (MemcgEvent::Pgscan, "pgscan"),
        (MemcgEvent::Pgsteal, "pgsteal"),
        (MemcgEvent::Pgactivate, "pgactivate"),
        (MemcgEvent::Pgdeactivate, "pgdeactivate"),
        (MemcgEvent::Pgrefill, "pgrefill"),
        (MemcgEvent::WorkingsetRefaultFile, "workingset_refault_file"),
        (MemcgEvent::WorkingsetActivateFile, "workingset_activate_file"),
        (MemcgEvent::WorkingsetRestoreFile, "workingset_restore_file"),
        (MemcgEvent::Max, "events.max"),
        (MemcgEvent::High, "events.high"),
        (MemcgEvent::OomKill, "events.oom_kill"),
        (MemcgEvent::Oom, "events.oom"),
        (MemcgEvent::Low, "events.low"),
        (MemcgEvent::Pgfault, "pgfault"),
        (MemcgEvent::Pgmajfault, "pgmajfault"),
        (MemcgEvent::SwapMax, "swap_events.max"),
        (MemcgEvent::SwapFail, "swap_events.fail"),
        (MemcgEvent::WorkingsetRefaultAnon, "workingset_refault_anon"),
        (MemcgEvent::WorkingsetActivateAnon, "workingset_activate_anon"),
        (MemcgEvent::WorkingsetRestoreAnon, "workingset_restore_anon"),
    ];
}

/// Where a memcg is in its life (kernel/cgroup/cgroup.c, mm/memcontrol.c).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MemcgState {
    /// Created and online (`css_online`): visible in the hierarchy, tasks can join.
    Online,
    /// Removed (`rmdir` -> `css_offline`) but still referenced: a dying memcg.
    Dying,
    /// Released (`css_free`): nothing refers to it any more.
    Freed,
}

/// `struct mem_cgroup`. `repr(C)`, cache-line aligned, the fields global reclaim's walk
/// reads of every memcg at every priority first (`mem_cgroup_protection()`, the state,
/// the shrinkers' counts): they share the struct's first two cache lines.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Memcg {
    /// `memcg->memory`.
    pub counter: PageCounter,
    /// Slab bytes charged to this memcg (dentries, inodes).
    pub kmem_bytes: u64,
    /// Its unused dentries on superblock LRUs (to skip the shrinkers quickly).
    pub lru_objects: u64,
    /// Life-cycle state.
    pub state: MemcgState,
    /// Path below the cgroup root, `/` for the root.
    pub path: String,
    /// Parent memcg (`parent_mem_cgroup()`); `None` for the root.
    pub parent: Option<MemcgId>,
    /// Children, in creation order.
    pub children: Vec<MemcgId>,
    /// Page-cache pages charged here (memory.stat `file`, local).
    pub nr_file: u64,
    /// Dirty page-cache pages charged here (`file_dirty`, local).
    pub nr_dirty: u64,
    /// Page-cache pages under writeback charged here (`file_writeback`, local).
    pub nr_writeback: u64,
    /// memory.pressure totals (its subtree's tasks).
    pub psi: crate::psi::PsiTotals,
    /// Event counters (local).
    pub events: [u64; NR_MEMCG_EVENTS],
    /// Depth in the hierarchy (root = 0).
    pub level: u32,
    /// `mem_cgroup_id()`: 1..=65535 from `mem_cgroup_idr`, 0 once released.
    pub id: u32,
    /// `memcg->kmemcg_id`: the list_lru index while online, from `memcg_cache_ida`.
    pub kmem_id: Option<u32>,
    /// Tasks attached (`cgroup.procs`).
    pub nr_tasks: u32,
    /// Tasks in this memcg and its descendants (kept by `MemcgTree::add_tasks`, so that PSI's
    /// per-quantum test of a single-task subtree costs the tree's depth, not its size).
    pub nr_tasks_subtree: u32,
    /// Shmem (tmpfs) pages charged here, included in `nr_file` (memory.stat `shmem`).
    pub nr_shmem: u64,
    /// Of those, pages in tmpfs huge pages (memory.stat `shmem_thp`, `NR_SHMEM_THPS`).
    pub nr_shmem_thps: u64,
    /// Anonymous pages charged here (memory.stat `anon`, local).
    pub nr_anon: u64,
    /// Page-cache pages charged here that some VMA maps (`NR_FILE_MAPPED`: memory.stat
    /// `mapped_file` on v1, `file_mapped` on v2, local).
    pub nr_file_mapped: u64,
    /// `lruvec->refaults[WORKINGSET_FILE]`: the subtree's `workingset_activate_file` when a
    /// reclaim rooted here last ended (`snapshot_refaults()`).
    pub refaults_snapshot: u64,
    /// `lruvec->refaults[WORKINGSET_ANON]` (5.9+): anon activations at its last reclaim as root.
    pub refaults_snapshot_anon: u64,
    /// `workingset_activate_file` and `workingset_activate_anon` of this memcg and every
    /// descendant (`lruvec_page_state(WORKINGSET_ACTIVATE_BASE + type)`, hierarchical as
    /// rstat keeps it): counted here and at every ancestor by [`MemcgTree::count_event`], so
    /// that reclaim's `prepare_scan_count()` and `snapshot_refaults()` read them in O(1).
    /// A freed memcg's events fold into its parent, which already counts them.
    pub activate_subtree: [u64; 2],
    /// `activate_subtree` as the last periodic statistics flush left it (the rstat copy
    /// `pn->lruvec_stats->state` 6.12+'s reclaim reads), valid while `activate_flushed_epoch`
    /// is [`MemcgTree`]'s current period: taken at the first change of the period, as
    /// [`crate::mmzone::LruvecStats`] takes the list sizes'.
    activate_flushed: [u64; 2],
    /// The period whose flush `activate_flushed` holds.
    activate_flushed_epoch: u64,
    /// `nr_file - nr_shmem`, `nr_dirty` and `nr_writeback` of this memcg and every descendant
    /// ([`WB_FILE`], [`WB_DIRTY`], [`WB_WRITEBACK`]) as the last flush left them: the
    /// hierarchical `memcg_page_state()` of `NR_FILE_PAGES - NR_SHMEM`, `NR_FILE_DIRTY` and
    /// `NR_WRITEBACK` that `mem_cgroup_wb_stats()` reads ([`MemcgTree::wb_subtree`] flushes
    /// first, so the read is exact).
    pub wb_subtree: std::cell::Cell<[u64; 3]>,
    /// The three local counts of [`Memcg::wb_subtree`] when the last flush propagated them
    /// (`memcg->vmstats_percpu->state_prev`).
    pub wb_flushed: std::cell::Cell<[u64; 3]>,
    /// On [`MemcgTree::wb_pending`] (`cgroup_rstat_updated()` put it on the updated list).
    pub wb_queued: std::cell::Cell<bool>,
    /// Percpu bytes this memcg holds (`Percpu` in /proc/meminfo).
    pub percpu_bytes: u64,
    /// Slab bytes this memcg's own structures hold.
    pub slab_bytes: u64,
    /// Slab objects charged to this memcg that pin it while it is dying (dentries, inodes in
    /// kernels before per-object accounting, v5.9).
    pub kmem_pins: u64,
    /// Groups of accounted slab caches this memcg has its own copies of (pre-5.9), as bits.
    pub kmem_cache_sets: u8,
    /// Pages of its page counter those bytes take (`ceil(kmem_bytes / PAGE_SIZE)`).
    pub kmem_pages: u64,
    /// Swap slots charged to this memcg and its descendants, pages: v2's `memcg->swap` page
    /// counter (memory.swap.current), charged when reclaim gives a page a slot
    /// (`__mem_cgroup_try_charge_swap()`); on v1 the swap part of `memcg->memsw` (memory.stat
    /// `swap`), moved from memory to swap when the swapped page is freed
    /// (`mem_cgroup_swapout()`). Uncharged when the slot is freed (`__mem_cgroup_uncharge_swap()`).
    pub swap: u64,
    /// memory.swap.max (v2), pages.
    pub swap_max: u64,
    /// memory.memsw.limit_in_bytes (v1), pages: the limit of memory + swap.
    pub memsw_max: u64,
    /// memory.swappiness (v1; `memcg->swappiness`, inherited from the parent at creation).
    pub swappiness: u64,
    /// Pages charged here that are in the swap cache and mapped by no page table (swap
    /// readahead's), local.
    pub nr_swapcache: u64,
    /// `MEMCG_ZSWAP_B` (5.19+, memory.zswap.current, memory.stat `zswap`): compressed bytes
    /// zswap holds for pages of this memcg's subtree (hierarchical).
    pub zswap_bytes: u64,
    /// `MEMCG_ZSWAPPED` (memory.stat `zswapped`, pages), hierarchical.
    pub zswapped: u64,
    /// memory.stat `zswpin` events, local.
    pub zswpin: u64,
    /// memory.stat `zswpout` events, local.
    pub zswpout: u64,
    /// memory.zswap.max (5.19+, cgroup v2), pages.
    pub zswap_max: u64,
    /// memory.zswap.writeback (6.8+, cgroup v2; `memcg->zswap_writeback`, 1 at creation).
    pub zswap_writeback: bool,
}

/// Lowest-free id allocator (`idr_alloc()` / `ida_alloc_range()` over a range).
#[derive(Clone, Debug, Default)]
pub struct IdAlloc {
    used: Vec<bool>,
    first_free: usize,
}

impl IdAlloc {
    /// Take the lowest free id at or above `min`, at most `max`.
    pub fn alloc(&mut self, min: u32, max: u32) -> Option<u32> {
        let mut i = self.first_free.max(min as usize);
        while i < self.used.len() && self.used[i] {
            i += 1;
        }
        if i > max as usize {
            return None;
        }
        if i >= self.used.len() {
            self.used.resize(i + 1, false);
        }
        self.used[i] = true;
        if i == self.first_free {
            self.first_free = i + 1;
        }
        Some(i as u32)
    }

    /// Give `id` back.
    pub fn free(&mut self, id: u32) {
        if let Some(u) = self.used.get_mut(id as usize) {
            *u = false;
            self.first_free = self.first_free.min(id as usize);
        }
    }

    /// Ids in use.
    pub fn in_use(&self) -> usize {
        self.used.iter().filter(|&&u| u).count()
    }
}

/// The memcg hierarchy (the `memory` controller's cgroup tree).
#[derive(Clone, Debug)]
pub struct MemcgTree {
    /// All memcgs; index = [`MemcgId`].
    pub memcgs: Vec<Memcg>,
    /// Interface generation.
    pub version: CgroupVersion,
    /// Online memcgs by path, for O(1) lookups by cgroup path.
    pub online: std::collections::HashMap<String, MemcgId>,
    /// `mem_cgroup_idr`.
    pub ids: IdAlloc,
    /// `memcg_cache_ida`: list_lru (kmem) ids.
    pub kmem_ids: IdAlloc,
    /// `memcg_nr_cache_ids`: the size every memcg-aware list_lru's per-memcg array has; it
    /// only grows.
    pub nr_cache_ids: u32,
    /// Memcgs allocated (root, online and dying): those holding per-node shrinker state.
    pub nr_allocated: u64,
    /// Memcgs whose page-cache counts changed since the last [`MemcgTree::wb_flush`] (the
    /// rstat updated list of [`Memcg::wb_subtree`]); its capacity is kept.
    pub wb_pending: std::cell::RefCell<Vec<MemcgId>>,
    /// Memcgs with memory.min or memory.low set: while there is none (and no effective
    /// protection is left from an earlier computation), every `emin` and `elow` is 0 and
    /// [`MemcgTree::calculate_protection`] has nothing to compute.
    nr_protected: usize,
    /// Whether some memcg's `emin` or `elow` may be non-zero.
    eprot_left: bool,
    /// Bumped whenever a memcg joins or leaves its parent's `children`
    /// ([`MemcgTree::create`], [`MemcgTree::unlink_child`]).
    topology_gen: u64,
    /// The last subtree [`MemcgTree::calculate_protection`] listed: (root, `topology_gen`)
    /// and the list, copied out while the tree has not changed instead of walked again
    /// (reclaim lists it at every priority; the walk reads every memcg's `children`).
    subtree_cache: (MemcgId, u64, Vec<MemcgId>),
    /// The current `FLUSH_TIME` period of the rstat copy (see
    /// [`crate::mmzone::LruvecStats::flush_periodic`]); 0 until the periodic flusher starts.
    stats_epoch: u64,
    /// Whether the rstat copy of the activation counters is kept (the profile's reclaim reads
    /// it: `KernelProfile::memcg_stats_ratelimited_reclaim`).
    rstat_copy: bool,
    /// Whether memory.events counters propagate to the ancestors (v2 on a
    /// `KernelProfile::memory_events_recursive` kernel): see [`MemcgTree::events`].
    pub memory_events_recursive: bool,
    /// The run of one-page charges whose outcome the last charge's walks decided
    /// ([`ChargeCredit`]); every other change of a page counter or a stock ends it.
    pub(crate) charge_credit: ChargeCredit,
}

/// A run of one-page cgroup-v2 charges of `memcg` on CPU `cpu` (`try_charge_memcg()` of a
/// page-cache page, 6.6: `consume_stock()`, `page_counter_try_charge()` of the
/// `MEMCG_CHARGE_BATCH` batch, then of the page) whose outcome is known for the next `left`
/// pages: the stock does not cover the page, the batch is refused at `memcg`'s own counter
/// (its `failcnt`), the page fits every counter up to the root and leaves each at or below
/// memory.high. Within the run each charge is `page_counter_charge()` of one page (usage and
/// watermark at every level) and the `failcnt` of `memcg`, as the walks of
/// [`Kernel::charge_fits_at_once`] would find it (issue 17: the decisions per run, the
/// counters per page). The run ends at any other change of a page counter (`usage`,
/// `stocked`, `swap`), of the tree or of a stock: [`MemcgTree::charge_credit_end`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChargeCredit {
    /// The memcg charged.
    pub memcg: MemcgId,
    /// The running context whose CPU's stock was found not to cover it
    /// ([`Kernel::pcp_ctx`], which names that CPU: [`Kernel::stock_cpu`]).
    pub ctx: u32,
    /// Charges left in the run.
    pub left: u64,
}

impl Default for ChargeCredit {
    fn default() -> Self {
        ChargeCredit { memcg: MemcgId::NONE, ctx: 0, left: 0 }
    }
}

impl MemcgTree {
    /// A tree holding only `root_mem_cgroup`.
    pub fn new(version: CgroupVersion) -> Self {
        let mut ids = IdAlloc::default();
        let root_id = ids.alloc(1, MEM_CGROUP_ID_MAX).expect("first id");
        let mut online = std::collections::HashMap::new();
        online.insert("/".to_string(), MemcgId::ROOT);
        MemcgTree {
            memcgs: vec![Memcg::new("/".into(), None, 0, root_id)],
            version,
            online,
            ids,
            kmem_ids: IdAlloc::default(),
            nr_protected: 0,
            eprot_left: false,
            topology_gen: 0,
            subtree_cache: (MemcgId::NONE, 0, Vec::new()),
            nr_cache_ids: 0,
            nr_allocated: 1,
            stats_epoch: 0,
            rstat_copy: false,
            memory_events_recursive: version == CgroupVersion::V2,
            wb_pending: Default::default(),
            charge_credit: ChargeCredit::default(),
        }
    }

    /// End the run of one-page charges [`MemcgTree::charge_credit`] describes: a page counter,
    /// the tree or a stock changed otherwise than by its charges.
    #[inline(always)]
    pub(crate) fn charge_credit_end(&mut self) {
        self.charge_credit.left = 0;
    }

    /// Keep the rstat copy of the activation counters from now on
    /// ([`MemcgTree::flushed_subtree_events`]).
    pub fn keep_rstat_copy(&mut self) {
        self.rstat_copy = true;
    }

    /// `flush_memcg_stats_dwork()`'s flush of period `epoch`: every copy becomes the counter
    /// (lazily, at its first change in the period). Periods only move forward.
    pub fn flush_periodic(&mut self, epoch: u64) {
        self.stats_epoch = self.stats_epoch.max(epoch);
    }

    /// A flush of memcg `m` outside the periodic one ([`Kernel::mem_cgroup_flush_stats`]): its
    /// copy of the activation counters becomes the counters as they are now (taken again at
    /// their next change, as after a periodic flush). Other memcgs keep theirs.
    #[inline]
    pub fn flush_memcg(&mut self, m: MemcgId) {
        self.memcgs[m.idx()].activate_flushed_epoch = 0;
    }

    /// [`MemcgTree::subtree_events`] as 6.12+'s reclaim reads it (`lruvec_page_state()` after
    /// `mem_cgroup_flush_stats_ratelimited()`): for the two activation counters, the rstat
    /// copy the last periodic flush left; exact when no copy is kept, and for other events.
    pub fn flushed_subtree_events(&self, m: MemcgId, ev: usize) -> u64 {
        if let Some(i) = activate_slot(ev) {
            let mc = &self.memcgs[m.idx()];
            if self.rstat_copy && mc.activate_flushed_epoch == self.stats_epoch {
                return mc.activate_flushed[i];
            }
        }
        self.subtree_events(m, ev)
    }

    /// `mem_cgroup_css_alloc()` + online: create a child of `parent`, taking the lowest free
    /// `mem_cgroup_id`. Returns `None` when the 65535 ids are all taken (`-ENOSPC`).
    pub fn create(&mut self, parent: MemcgId, name: &str) -> Option<MemcgId> {
        let css_id = self.ids.alloc(1, MEM_CGROUP_ID_MAX)?;
        let id = MemcgId(self.memcgs.len() as u32);
        let ppath = &self.memcgs[parent.idx()].path;
        let path = if ppath == "/" { format!("/{name}") } else { format!("{ppath}/{name}") };
        let level = self.memcgs[parent.idx()].level + 1;
        self.online.insert(path.clone(), id);
        self.memcgs.push(Memcg::new(path, Some(parent), level, css_id));
        // mem_cgroup_css_alloc(): "memcg->swappiness = mem_cgroup_swappiness(parent)".
        self.memcgs[id.idx()].swappiness = self.memcgs[parent.idx()].swappiness;
        self.memcgs[parent.idx()].children.push(id);
        self.topology_gen += 1;
        self.charge_credit_end();
        self.nr_allocated += 1;
        Some(id)
    }

    /// The online memcg at `path` (`/a/b`).
    pub fn by_path(&self, path: &str) -> Option<MemcgId> {
        self.online.get(path).copied()
    }

    /// `cgroup.stat`: (`nr_descendants`, `nr_dying_descendants`) of `m`.
    pub fn descendants(&self, m: MemcgId) -> (u64, u64) {
        if m == MemcgId::ROOT {
            // Every memcg descends from the root: O(1) from the counts kept (the online map
            // holds the root and the online memcgs; `nr_allocated` the root, online and dying).
            let online = self.online.len() as u64;
            return (online - 1, self.nr_allocated - online);
        }
        self.descendants_walk(m)
    }

    /// `descendants` by walking the subtree (the invariant check compares the two for the root).
    pub fn descendants_walk(&self, m: MemcgId) -> (u64, u64) {
        let mut live = 0;
        let mut dying = 0;
        let mut stack: Vec<MemcgId> = self.memcgs[m.idx()].children.clone();
        while let Some(c) = stack.pop() {
            match self.memcgs[c.idx()].state {
                MemcgState::Online => live += 1,
                MemcgState::Dying => dying += 1,
                MemcgState::Freed => continue,
            }
            stack.extend_from_slice(&self.memcgs[c.idx()].children);
        }
        (live, dying)
    }

    /// The memcg behind `id`.
    #[inline]
    pub fn get(&self, id: MemcgId) -> &Memcg {
        &self.memcgs[id.idx()]
    }

    /// Number of memcgs, root included.
    pub fn len(&self) -> usize {
        self.memcgs.len()
    }

    /// Whether only the root exists.
    pub fn is_empty(&self) -> bool {
        self.memcgs.len() <= 1
    }

    /// `mem_cgroup_iter()` over `root` and its descendants, pre-order, into `out`.
    pub fn subtree(&self, root: MemcgId, out: &mut Vec<MemcgId>) {
        out.clear();
        out.push(root);
        let mut i = 0;
        // Breadth-first keeps this allocation-free once `out` has grown; reclaim visits every
        // memcg of the subtree once per priority level either way.
        while i < out.len() {
            let m = out[i];
            out.extend_from_slice(&self.memcgs[m.idx()].children);
            i += 1;
        }
    }

    /// Whether `m` is `ancestor` or below it (`mem_cgroup_is_descendant()`).
    pub fn is_descendant(&self, mut m: MemcgId, ancestor: MemcgId) -> bool {
        loop {
            if m == ancestor {
                return true;
            }
            match self.memcgs[m.idx()].parent {
                Some(p) => m = p,
                None => return false,
            }
        }
    }

    /// `memcg_events()` as v2's memory.stat reports it: the subtree's sum. memory.events and
    /// memory.swap.events counters ([`MemcgEvent::is_memory_event`]) are the subtree's sum only
    /// where `memcg_memory_event()` propagates them (v2 from 5.2, 9852ae3fe529 "mm, memcg:
    /// consider subtrees in memory.events"), and never into the root (its loop stops at
    /// `mem_cgroup_is_root()`): otherwise the memcg's own count.
    pub fn events(&self, m: MemcgId, ev: MemcgEvent) -> u64 {
        if ev.is_memory_event() && (!self.memory_events_recursive || m == MemcgId::ROOT) {
            return self.memcgs[m.idx()].events[ev as usize];
        }
        let mut sum = self.memcgs[m.idx()].events[ev as usize];
        for &c in &self.memcgs[m.idx()].children {
            sum += self.events(c, ev);
        }
        sum
    }

    /// memory.stat `anon` (pages), hierarchical.
    pub fn anon_pages(&self, m: MemcgId) -> u64 {
        let mut sum = self.memcgs[m.idx()].nr_anon;
        for &c in &self.memcgs[m.idx()].children {
            sum += self.anon_pages(c);
        }
        sum
    }

    /// Add `n` (may be negative) tasks to `m`: its own count and the subtree counts of it and
    /// every ancestor (O(depth)).
    pub fn add_tasks(&mut self, m: MemcgId, n: i32) {
        self.memcgs[m.idx()].nr_tasks = (self.memcgs[m.idx()].nr_tasks as i64 + n as i64) as u32;
        let mut cur = Some(m);
        while let Some(c) = cur {
            let mc = &mut self.memcgs[c.idx()];
            mc.nr_tasks_subtree = (mc.nr_tasks_subtree as i64 + n as i64) as u32;
            cur = mc.parent;
        }
    }

    /// `cgroup_rstat_updated()` after `__mod_memcg_page_state()` of a page-cache count
    /// `mem_cgroup_wb_stats()` reads (the callers changed `nr_file`, `nr_shmem`, `nr_dirty` or
    /// `nr_writeback` of `m`): `m` goes on the updated list, once until the next flush. O(1).
    #[inline(always)]
    pub fn wb_updated(&mut self, m: MemcgId) {
        let q = self.memcgs[m.idx()].wb_queued.get_mut();
        if !*q {
            *q = true;
            self.wb_pending.get_mut().push(m);
        }
    }

    /// `cgroup_rstat_flush()` of the counts [`MemcgTree::wb_subtree`] reads: each memcg on the
    /// updated list adds the change of its local counts since its last flush to its own and
    /// every ancestor's subtree counts. O(depth) per memcg updated since the last flush.
    pub fn wb_flush(&self) {
        let mut pending = self.wb_pending.borrow_mut();
        for m in pending.drain(..) {
            let mc = &self.memcgs[m.idx()];
            mc.wb_queued.set(false);
            let now = [mc.nr_file - mc.nr_shmem, mc.nr_dirty, mc.nr_writeback];
            let prev = mc.wb_flushed.replace(now);
            let d = [now[0].wrapping_sub(prev[0]), now[1].wrapping_sub(prev[1]), now[2].wrapping_sub(prev[2])];
            let mut cur = Some(m);
            while let Some(c) = cur {
                let e = &self.memcgs[c.idx()];
                let w = e.wb_subtree.get();
                e.wb_subtree.set([w[0].wrapping_add(d[0]), w[1].wrapping_add(d[1]), w[2].wrapping_add(d[2])]);
                cur = e.parent;
            }
        }
    }

    /// `memcg_page_state()` (hierarchical, after `mem_cgroup_flush_stats()`) of [`WB_FILE`],
    /// [`WB_DIRTY`] or [`WB_WRITEBACK`] over `m`'s subtree: flushes the memcgs updated since
    /// the last read ([`MemcgTree::wb_flush`]), then reads [`Memcg::wb_subtree`].
    #[inline]
    pub fn wb_subtree(&self, m: MemcgId, item: usize) -> u64 {
        self.wb_flush();
        self.memcgs[m.idx()].wb_subtree.get()[item]
    }

    /// A local counter of `m` summed over its subtree (`memcg_page_state()`, hierarchical).
    /// Event `ev` (a [`MemcgEvent`] index) summed over `m` and its descendants
    /// (`lruvec_page_state()` of the hierarchical lruvec).
    pub fn subtree_events(&self, m: MemcgId, ev: usize) -> u64 {
        if let Some(i) = activate_slot(ev) {
            return self.memcgs[m.idx()].activate_subtree[i];
        }
        let mut sum = self.memcgs[m.idx()].events[ev];
        for &c in &self.memcgs[m.idx()].children {
            sum += self.subtree_events(c, ev);
        }
        sum
    }

    /// The sum of `f` over `m` and its descendants.
    pub fn subtree_sum(&self, m: MemcgId, f: fn(&Memcg) -> u64) -> u64 {
        let mut sum = f(&self.memcgs[m.idx()]);
        for &c in &self.memcgs[m.idx()].children {
            sum += self.subtree_sum(c, f);
        }
        sum
    }

    /// [`MemcgTree::subtree_sum`] of a closure (the invariant checks).
    pub fn subtree_sum_dyn(&self, m: MemcgId, f: &dyn Fn(&Memcg) -> u64) -> u64 {
        let mut sum = f(&self.memcgs[m.idx()]);
        for &c in &self.memcgs[m.idx()].children {
            sum += self.subtree_sum_dyn(c, f);
        }
        sum
    }

    /// memory.stat `file` (pages), hierarchical.
    pub fn file_pages(&self, m: MemcgId) -> u64 {
        let mut sum = self.memcgs[m.idx()].nr_file;
        for &c in &self.memcgs[m.idx()].children {
            sum += self.file_pages(c);
        }
        sum
    }

    /// `count_memcg_events()`.
    #[inline]
    pub fn count_event(&mut self, m: MemcgId, ev: MemcgEvent, n: u64) {
        if m != MemcgId::NONE {
            self.memcgs[m.idx()].events[ev as usize] += n;
            if let Some(i) = activate_slot(ev as usize) {
                let (copy, epoch) = (self.rstat_copy, self.stats_epoch);
                let mut cur = Some(m);
                while let Some(c) = cur {
                    let mc = &mut self.memcgs[c.idx()];
                    if copy && mc.activate_flushed_epoch != epoch {
                        (mc.activate_flushed, mc.activate_flushed_epoch) = (mc.activate_subtree, epoch);
                    }
                    mc.activate_subtree[i] += n;
                    cur = mc.parent;
                }
            }
        }
    }

    /// The first counter from `m` up to the root that cannot take `nr` more pages
    /// (`page_counter_try_charge()` failing at `fail`).
    #[inline]
    pub fn over_limit(&self, m: MemcgId, nr: u64) -> Option<MemcgId> {
        let mut cur = Some(m);
        while let Some(c) = cur {
            let mc = &self.memcgs[c.idx()];
            if mc.counter.usage + mc.counter.stocked + nr > mc.counter.max {
                return Some(c);
            }
            cur = mc.parent;
        }
        None
    }

    /// v1 with swap accounting (`do_memsw_account()`): the first memcg from `m` up whose
    /// `memsw` counter (memory + swap) cannot take `nr` more pages. `try_charge_memcg()` tries
    /// memsw before memory, and a memsw failure reclaims without swapping
    /// (`reclaim_options &= ~MEMCG_RECLAIM_MAY_SWAP`).
    #[inline]
    pub fn over_memsw_limit(&self, m: MemcgId, nr: u64) -> Option<MemcgId> {
        if self.version != CgroupVersion::V1 {
            return None;
        }
        let mut cur = Some(m);
        while let Some(c) = cur {
            let mc = &self.memcgs[c.idx()];
            if mc.counter.usage + mc.counter.stocked + mc.swap + nr > mc.memsw_max {
                return Some(c);
            }
            cur = mc.parent;
        }
        None
    }

    /// `mem_cgroup_get_nr_swap_pages()` (6.1) without the global part: the room left under
    /// memory.swap.max from `m` up to the root (v2; v1 and the root: unlimited).
    pub fn swap_room(&self, m: MemcgId) -> u64 {
        let mut room = u64::MAX;
        if self.version != CgroupVersion::V2 {
            return room;
        }
        let mut cur = Some(m);
        while let Some(c) = cur {
            let mc = &self.memcgs[c.idx()];
            if c == MemcgId::ROOT {
                break;
            }
            room = room.min(mc.swap_max.saturating_sub(mc.swap));
            cur = mc.parent;
        }
        room
    }

    /// `page_counter_try_charge(&memcg->swap)` (v2): the first memcg from `m` up (the root
    /// excluded) whose memory.swap.max `nr` more slots would pass, or `None` after charging.
    pub fn try_charge_swap(&mut self, m: MemcgId, nr: u64) -> Option<MemcgId> {
        let mut cur = Some(m);
        while let Some(c) = cur {
            if c == MemcgId::ROOT {
                break;
            }
            let mc = &self.memcgs[c.idx()];
            if self.version == CgroupVersion::V2 && mc.swap + nr > mc.swap_max {
                return Some(c);
            }
            cur = mc.parent;
        }
        self.swap_charge(m, nr);
        None
    }

    /// The swap part of the counters of `m` and its ancestors grows by `nr` pages.
    pub fn swap_charge(&mut self, m: MemcgId, nr: u64) {
        self.charge_credit_end();
        let mut cur = Some(m);
        while let Some(c) = cur {
            self.memcgs[c.idx()].swap += nr;
            cur = self.memcgs[c.idx()].parent;
        }
    }

    /// `__mem_cgroup_uncharge_swap()`: `nr` slots of `m` freed.
    pub fn swap_uncharge(&mut self, m: MemcgId, nr: u64) {
        self.charge_credit_end();
        let mut cur = Some(m);
        while let Some(c) = cur {
            debug_assert!(self.memcgs[c.idx()].swap >= nr, "swap counter underflow");
            self.memcgs[c.idx()].swap -= nr;
            cur = self.memcgs[c.idx()].parent;
        }
    }

    /// `mem_cgroup_swappiness()` (6.1): cgroup v2 has no per-cgroup swappiness, and the
    /// root's is vm.swappiness; a v1 memcg has its own memory.swappiness.
    pub fn swappiness(&self, m: MemcgId, vm_swappiness: u64) -> u64 {
        if self.version == CgroupVersion::V2 || m == MemcgId::ROOT || m == MemcgId::NONE {
            vm_swappiness
        } else {
            self.memcgs[m.idx()].swappiness
        }
    }

    /// `page_counter_charge()` on `m` and every ancestor; returns whether any counter went
    /// above its `memory.high`. A page of the root memcg charges no counter: the kernel
    /// never charges `root_mem_cgroup` for its own pages (`try_charge()` returns at
    /// `mem_cgroup_is_root()` in 4.x-6.18, 3.13's `__mem_cgroup_try_charge()` "goto done";
    /// `mem_cgroup_migrate()` forces no charge on it), so the root's counter holds its
    /// descendants' charges only.
    #[inline]
    pub fn counter_charge(&mut self, m: MemcgId, nr: u64) -> bool {
        if m == MemcgId::ROOT {
            return false;
        }
        self.charge_credit_end();
        let mut over_high = false;
        let mut cur = Some(m);
        while let Some(c) = cur {
            let pc = &mut self.memcgs[c.idx()].counter;
            pc.usage += nr;
            if pc.usage > pc.watermark {
                pc.watermark = pc.usage;
            }
            over_high |= pc.usage > pc.high;
            cur = self.memcgs[c.idx()].parent;
        }
        over_high
    }

    /// `page_counter_uncharge()` on `m` and every ancestor; nothing for a page of the root
    /// memcg, which [`MemcgTree::counter_charge`] did not charge ("LRU pages aren't
    /// accounted at the root level", `uncharge_folio()` 6.1; `cancel_charge()` and
    /// `mem_cgroup_swapout()` test `mem_cgroup_is_root()` too; 3.13's
    /// `__mem_cgroup_uncharge_common()` and `__mem_cgroup_cancel_charge()`).
    #[inline]
    pub fn counter_uncharge(&mut self, m: MemcgId, nr: u64) {
        if m == MemcgId::ROOT {
            return;
        }
        self.charge_credit_end();
        let mut cur = Some(m);
        while let Some(c) = cur {
            let pc = &mut self.memcgs[c.idx()].counter;
            debug_assert!(pc.usage >= nr, "page counter underflow in {}", self.memcgs[c.idx()].path);
            pc.usage -= nr;
            cur = self.memcgs[c.idx()].parent;
        }
    }

    /// Whether `m` or an ancestor would be above its memory.high with `extra` more pages
    /// (the rest of a charge batch going to the stock).
    pub fn above_high(&self, m: MemcgId, extra: u64) -> bool {
        let mut cur = Some(m);
        while let Some(c) = cur {
            let pc = &self.memcgs[c.idx()].counter;
            if pc.usage + extra > pc.high {
                return true;
            }
            cur = self.memcgs[c.idx()].parent;
        }
        false
    }

    /// `mem_cgroup_margin()` (mm/memcontrol.c; 3.13's on its res_counters): pages that can
    /// still be charged to `m` before its own limit is hit, memory's and, "if
    /// (do_memsw_account())", memsw's. The kernel reads `m`'s counters only, not its
    /// ancestors': the charge loop asks it of `mem_over_limit`, the memcg whose counter
    /// refused the charge, and tries the whole hierarchy again when it retries.
    #[inline]
    pub fn margin(&self, m: MemcgId) -> u64 {
        let mc = &self.memcgs[m.idx()];
        let pc = &mc.counter;
        let margin = pc.max.saturating_sub(pc.usage + pc.stocked);
        if self.version == CgroupVersion::V1 {
            margin.min(mc.memsw_max.saturating_sub(pc.usage + pc.stocked + mc.swap))
        } else {
            margin
        }
    }

    /// `nr` pages of `m` put in a CPU's charge stock (`add`) or taken out of it (consumed or
    /// drained): [`PageCounter::stocked`] of `m` and every ancestor.
    #[inline]
    pub fn stock_moved(&mut self, m: MemcgId, nr: u64, add: bool) {
        self.charge_credit_end();
        let mut cur = Some(m);
        while let Some(c) = cur {
            let pc = &mut self.memcgs[c.idx()].counter;
            if add {
                pc.stocked += nr;
            } else {
                debug_assert!(pc.stocked >= nr, "memcg {} stocks {} pages, {nr} taken", c.0, pc.stocked);
                pc.stocked -= nr;
            }
            cur = self.memcgs[c.idx()].parent;
        }
    }

    /// Set memory.min and memory.low of `m` (pages): `memory_min_write()`,
    /// `memory_low_write()` -> `page_counter_set_min()`, `page_counter_set_low()`.
    pub fn set_protection(&mut self, m: MemcgId, min: u64, low: u64) {
        let pc = &mut self.memcgs[m.idx()].counter;
        let was = pc.min > 0 || pc.low > 0;
        pc.min = min;
        pc.low = low;
        let is = min > 0 || low > 0;
        if is && !was {
            self.nr_protected += 1;
        } else if was && !is {
            self.nr_protected -= 1;
        }
    }

    /// `mem_cgroup_calculate_protection()` for every memcg below `root` (v2 only): fills
    /// `emin`/`elow` with `effective_protection()` as in mm/memcontrol.c (without the
    /// memory_recursiveprot mount option).
    pub fn calculate_protection(&mut self, root: MemcgId, scratch: &mut Vec<MemcgId>) {
        if self.subtree_cache.0 == root && self.subtree_cache.1 == self.topology_gen {
            scratch.clear();
            scratch.extend_from_slice(&self.subtree_cache.2);
        } else {
            self.subtree(root, scratch);
            let mut cached = std::mem::take(&mut self.subtree_cache.2);
            cached.clear();
            cached.extend_from_slice(scratch);
            self.subtree_cache = (root, self.topology_gen, cached);
        }
        if self.nr_protected == 0 && !self.eprot_left {
            // No memory.min or memory.low anywhere: every effective protection is 0, as it
            // already is.
            return;
        }
        let mut nonzero = false;
        // (parent, its children's protected usage for min, for low) of the last parent seen.
        let mut sibs = (MemcgId::NONE, 0u64, 0u64);
        for &m in scratch.iter() {
            let (parent, usage, min, low) = {
                let mc = &self.memcgs[m.idx()];
                (mc.parent, mc.counter.usage, mc.counter.min, mc.counter.low)
            };
            if m == root || self.version == CgroupVersion::V1 {
                let pc = &mut self.memcgs[m.idx()].counter;
                pc.emin = 0;
                pc.elow = 0;
                continue;
            }
            let parent = parent.expect("non-root memcg has a parent");
            if parent == root {
                let pc = &mut self.memcgs[m.idx()].counter;
                pc.emin = min;
                pc.elow = low;
                nonzero |= min > 0 || low > 0;
                continue;
            }
            if min == 0 && low == 0 {
                // effective_protection() of nothing is nothing, whatever the siblings hold.
                let pc = &mut self.memcgs[m.idx()].counter;
                pc.emin = 0;
                pc.elow = 0;
                continue;
            }
            let pp = &self.memcgs[parent.idx()];
            let (pemin, pelow) = (pp.counter.emin, pp.counter.elow);
            // The parent's `children_min_usage`/`children_low_usage`, summed once per parent
            // (the subtree lists a parent's children together) rather than once per child.
            if sibs.0 != parent {
                let (mut sib_min, mut sib_low) = (0u64, 0u64);
                for &s in &pp.children {
                    let sc = &self.memcgs[s.idx()].counter;
                    sib_min += sc.usage.min(sc.min);
                    sib_low += sc.usage.min(sc.low);
                }
                sibs = (parent, sib_min, sib_low);
            }
            let (sib_min, sib_low) = (sibs.1, sibs.2);
            let ep = |usage: u64, setting: u64, parent_eff: u64, siblings: u64| -> u64 {
                let protected = usage.min(setting);
                if siblings > parent_eff && siblings > 0 {
                    (protected as u128 * parent_eff as u128 / siblings as u128) as u64
                } else {
                    protected
                }
            };
            let emin = ep(usage, min, pemin, sib_min);
            let elow = ep(usage, low, pelow, sib_low);
            let pc = &mut self.memcgs[m.idx()].counter;
            pc.emin = emin;
            pc.elow = elow;
            nonzero |= emin > 0 || elow > 0;
        }
        // Non-zero values outside `root`'s subtree are kept: only a computation over the
        // whole tree that found none clears the flag.
        self.eprot_left = if root == MemcgId::ROOT { nonzero } else { self.eprot_left || nonzero };
    }

    /// `css_release()` -> `list_del_rcu(&css->sibling)`: freed `m` leaves its parent's
    /// children.
    pub fn unlink_child(&mut self, parent: MemcgId, m: MemcgId) {
        self.memcgs[parent.idx()].children.retain(|&c| c != m);
        self.topology_gen += 1;
        self.charge_credit_end();
    }

    /// The cached subtree listing of [`MemcgTree::calculate_protection`] and what a walk
    /// lists now, when the cache claims to hold it (the invariant checks).
    pub fn subtree_cache_check(&self) -> Result<(), String> {
        let (root, gen, list) = &self.subtree_cache;
        if *gen != self.topology_gen || *root == MemcgId::NONE {
            return Ok(());
        }
        let mut walked = Vec::new();
        self.subtree(*root, &mut walked);
        if &walked != list {
            return Err(format!("cached subtree of memcg {} lists {} memcgs, a walk {}", root.0, list.len(), walked.len()));
        }
        Ok(())
    }

    /// The tree's generation: it changes whenever a memcg is created or freed.
    #[inline]
    pub fn topology_gen(&self) -> u64 {
        self.topology_gen
    }

    /// Whether no memcg has memory.min or memory.low and no effective protection is left
    /// from one (every `emin`/`elow` is 0; `calculate_protection()` has nothing to do).
    #[inline]
    pub fn no_protection(&self) -> bool {
        self.nr_protected == 0 && !self.eprot_left
    }

    /// `mem_cgroup_below_min()`.
    pub fn below_min(&self, m: MemcgId) -> bool {
        let pc = &self.memcgs[m.idx()].counter;
        pc.emin > 0 && pc.emin >= pc.usage
    }

    /// `mem_cgroup_below_low()`.
    pub fn below_low(&self, m: MemcgId) -> bool {
        let pc = &self.memcgs[m.idx()].counter;
        pc.elow > 0 && pc.elow >= pc.usage
    }
}

/// What a charge's gfp mask lets `try_charge_memcg()` do when it meets a limit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChargeGfp {
    /// `GFP_KERNEL` (or the mapping's gfp): reclaim and retry, then the OOM path.
    Kernel,
    /// `__GFP_NORETRY`: give up when the round(s) of reclaim left the memcg short (3.13:
    /// before any reclaim, [`crate::profile::ChargePath::DoCharge`]).
    NoRetry,
    /// No `__GFP_DIRECT_RECLAIM` (`!gfpflags_allow_blocking()`; 3.13: no `__GFP_WAIT`,
    /// `CHARGE_WOULDBLOCK`): fail at the limit without reclaim, before memory.events `max`.
    NoBlock,
    /// 3.13's `oom = false` (`mem_cgroup_charge_common()` of a transparent huge page, with
    /// `GFP_KERNEL`): reclaim as `Kernel`, but the first `CHARGE_NOMEM` fails the charge (no
    /// `nr_oom_retries`, no OOM).
    KernelNoOom,
}

/// `1 << PAGE_ALLOC_COSTLY_ORDER`: the largest charge that goes round again after a reclaim
/// that freed something but left the memcg short ("Only for regular pages, though: huge pages
/// are rather unlikely to succeed so close to the limit", `try_charge_memcg()` 6.1, 3.13's
/// `mem_cgroup_do_charge()`).
pub const CHARGE_RETRY_MAX_PAGES: u64 = 1 << 3;

/// `NR_MEMCG_STOCK` (mm/memcontrol.c, 6.16+, f735eebe55f8f "memcg: multi-memcg percpu charge
/// cache"): the memcgs one CPU's charge stock caches at once, "selected to keep the cached
/// memcgs and their nr_pages in a single cacheline". Before 6.16 a CPU caches one memcg
/// (`stock->cached`); the profile says how many of these slots its era uses
/// (`KernelProfile::memcg_stock_slots`).
pub const NR_MEMCG_STOCK: usize = 7;

/// `struct memcg_stock_pcp` of one CPU: the memcgs whose charges it caches and the pages
/// pre-charged for each (`cached[]`, `nr_pages[]`; one slot before 6.16). The kernel's page
/// counters hold these pages from the batch that took them; the engine's hold what is used in
/// `usage` and these pages apart in [`PageCounter::stocked`] (zswap20), which the limit tests
/// and the margin add as the kernel's counter holds them: draining a slot gives its pages back
/// to the margin. [`Kernel::stock_changed`] keeps the two in step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemcgStock {
    /// `stock->cached[i]` (`MemcgId::NONE`: empty).
    pub cached: [MemcgId; NR_MEMCG_STOCK],
    /// `stock->nr_pages[i]`.
    pub nr_pages: [u64; NR_MEMCG_STOCK],
}

impl Default for MemcgStock {
    fn default() -> Self {
        MemcgStock { cached: [MemcgId::NONE; NR_MEMCG_STOCK], nr_pages: [0; NR_MEMCG_STOCK] }
    }
}

impl MemcgStock {
    /// The slot caching `memcg` among the first `slots`.
    #[inline]
    fn slot_of(&self, memcg: MemcgId, slots: usize) -> Option<usize> {
        self.cached[..slots].iter().position(|&c| c == memcg)
    }

    /// Pages this stock holds for `memcg` (0 when it caches none).
    #[inline]
    pub fn pages_of(&self, memcg: MemcgId, slots: usize) -> u64 {
        self.slot_of(memcg, slots).map_or(0, |i| self.nr_pages[i])
    }

    /// Whether `consume_stock(memcg, nr)` would succeed: `nr` at most a charge batch and the
    /// slot caching `memcg` holds at least `nr` pages (6.16+: the first slot caching it;
    /// "break" after it whatever it holds).
    #[inline]
    pub fn covers(&self, memcg: MemcgId, nr: u64, slots: usize, batch: u64) -> bool {
        nr <= batch && self.pages_of(memcg, slots) >= nr
    }

    /// `consume_stock()` (mm/memcontrol.c; 3.13, 6.1: one cached memcg; 6.16+: the slot
    /// caching `memcg`): take `nr` pre-charged pages, or nothing and false.
    #[inline]
    pub fn consume(&mut self, memcg: MemcgId, nr: u64, slots: usize, batch: u64) -> bool {
        if nr > batch {
            return false;
        }
        match self.slot_of(memcg, slots) {
            Some(i) if self.nr_pages[i] >= nr => {
                self.nr_pages[i] -= nr;
                true
            }
            _ => false,
        }
    }

    /// `drain_stock()` of slot `i`: its pages go back to the counters (which in the engine
    /// never held them) and the slot is empty.
    #[inline]
    fn drain(&mut self, i: usize) {
        self.cached[i] = MemcgId::NONE;
        self.nr_pages[i] = 0;
    }

    /// `refill_stock()`: cache `nr` pre-charged pages of `memcg`. One slot (3.13 to 6.15):
    /// another memcg's stock is drained first ("reset if necessary"). 6.16+: the slot caching
    /// `memcg`, else the first empty one, else a victim slot drained, chosen at random as
    /// 6.16-6.18 do (`get_random_u32_below(NR_MEMCG_STOCK)`): `rand` is the engine's seeded
    /// stand-in for the kernel's random numbers (`Kernel::memcg_lru_rand`, xorshift64 from
    /// `kernel.boot_seed`, the state the memcg LRU's bins draw from too), so runs repeat. (A
    /// later fix takes the victims in turn, "memcg: use round-robin victim selection in
    /// refill_stock"; no profile models a kernel with it.)
    /// A stock above a charge batch is drained (4.13+, `if (stock->nr_pages >
    /// MEMCG_CHARGE_BATCH) drain_stock(stock)`; a charge's refill never gets there: it
    /// follows a `consume_stock()` that found fewer than `nr` pages, and refills `batch - nr`).
    pub fn refill(&mut self, memcg: MemcgId, nr: u64, slots: usize, batch: u64, rand: &mut u64) {
        let i = match self.slot_of(memcg, slots) {
            Some(i) => i,
            None => {
                let i = match self.cached[..slots].iter().position(|&c| c == MemcgId::NONE) {
                    Some(e) => e,
                    None if slots == 1 => 0,
                    None => crate::lru_gen::get_random_u32_below(rand, slots as u64) as usize,
                };
                self.drain(i);
                self.cached[i] = memcg;
                i
            }
        };
        self.nr_pages[i] += nr;
        if self.nr_pages[i] > batch {
            self.drain(i);
        }
    }

    /// `drain_stock()` of the slot caching `memcg`, if any.
    pub fn forget(&mut self, memcg: MemcgId, slots: usize) {
        if let Some(i) = self.slot_of(memcg, slots) {
            self.drain(i);
        }
    }

    /// The part of `drain_all_stock(root)` for this CPU: every slot caching pages of a memcg
    /// for which `in_subtree` holds is drained (`drain_local_stock()` /
    /// `drain_local_memcg_stock()`, which drain the whole CPU's stock: the other slots too).
    pub fn drain_if(&mut self, slots: usize, in_subtree: impl Fn(MemcgId) -> bool) {
        let hit = (0..slots).any(|i| self.cached[i] != MemcgId::NONE && self.nr_pages[i] > 0 && in_subtree(self.cached[i]));
        if hit {
            for i in 0..slots {
                self.drain(i);
            }
        }
    }
}

/// Why a charge failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChargeError {
    /// Reclaim could not make room within the retries: the memcg OOM path.
    Oom {
        /// The memcg whose limit could not be met.
        over: MemcgId,
    },
    /// The charge's reclaim slept and the sleep ended the task's quantum
    /// ([`crate::sched::Resched`]): nothing was charged, and the caller undoes what it
    /// prepared and restarts at the task's wake-up. Only a charge its caller made restartable
    /// (`resched.restartable_next`) returns it.
    Again,
}

impl Kernel {
    /// Start the periodic memcg statistics flusher (`mem_cgroup_css_online()` of the root
    /// memcg queueing `stats_flush_dwork`, 6.1-6.18) on a profile whose reclaim reads the
    /// flushed copy (`KernelProfile::memcg_stats_ratelimited_reclaim`), at the boot's phase
    /// ([`stats_flush_phase`]: it last ran that many jiffies before the clock's bucket); what
    /// the counters hold now is the copy until the first flush (period 1).
    pub fn start_stats_flush(&mut self, boot_seed: u64) {
        if !self.profile.memcg_stats_ratelimited_reclaim {
            return;
        }
        let phase = stats_flush_phase(boot_seed);
        self.lru_stats.keep_rstat_copy();
        self.memcgs.keep_rstat_copy();
        self.stats_flush_epoch = 1;
        self.lru_stats.flush_periodic(1);
        self.memcgs.flush_periodic(1);
        // The last run's jiffy, `phase` before the bucket the clock is in (an offset of one
        // period keeps it non-negative): the next is its requeue's.
        let round_up = self.profile.timer_wheel_round_up;
        let period = stats_flush_requeue(0, round_up);
        let bucket = (self.now / crate::timer::NSEC_PER_JIFFY) & !7;
        let ran = bucket + period - phase;
        let next = stats_flush_requeue(ran, round_up) - period;
        self.stats_flush_next = next * crate::timer::NSEC_PER_JIFFY;
        self.cpu_fast_update();
    }

    /// `mem_cgroup_flush_stats(memcg)` (mm/memcontrol.c, 6.8+; 6.18 read): `__mem_cgroup_flush_stats(memcg,
    /// false)` -> `css_rstat_flush(&memcg->css)`, the rstat copies of `memcg` and every memcg below
    /// it (their lruvecs' list sizes, `pn->lruvec_stats->state`, and their activation counters)
    /// become the counters as they are now; the ancestors keep theirs (the flush leaves their
    /// share pending), `flush_last_time` moves only for the root. The caller that matters here
    /// is a read of memory.stat (v1 `memcg1_stat_format()`, v2 `memory_stat_format()`: "Current
    /// memory state"), which a real-kernel runner makes at each step's start and end: on 6.12+
    /// profiles (`KernelProfile::memcg_stats_ratelimited_reclaim`) limit reclaim decides
    /// deactivation (`inactive_is_low()`) from that copy until the next periodic flush
    /// (tmpfs56: host-tmpfs-tight-always's read1 deactivates its 31 PMD folios, 15,872 pages,
    /// because the write step's closing read flushed its memcg). Nothing on profiles that keep
    /// no copy (their reclaim reads exact counters).
    ///
    /// Not modelled: the kernel flushes only when the subtree has more than `MEMCG_CHARGE_BATCH *
    /// num_online_cpus()` updates pending (`memcg_vmstats_needs_flush()`, 128 on two CPUs);
    /// below that the copy it keeps differs from the counters by at most those updates, which
    /// the engine, flushing always, leaves out.
    pub fn mem_cgroup_flush_stats(&mut self, memcg: MemcgId) {
        if !self.profile.memcg_stats_ratelimited_reclaim || memcg == MemcgId::NONE {
            return;
        }
        self.rstat_flush_subtree(memcg);
    }

    /// [`Kernel::mem_cgroup_flush_stats`]'s walk of `m`'s subtree (depth-first, no allocation).
    fn rstat_flush_subtree(&mut self, m: MemcgId) {
        self.memcgs.flush_memcg(m);
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(m, nid);
            self.lru_stats.flush_lruvec(v);
        }
        for i in 0..self.memcgs.memcgs[m.idx()].children.len() {
            let c = self.memcgs.memcgs[m.idx()].children[i];
            self.rstat_flush_subtree(c);
        }
    }

    /// `flush_memcg_stats_dwork()` (6.8+): `do_flush_stats(root_mem_cgroup)` regardless of
    /// `memcg_vmstats_needs_flush()`, then requeued `FLUSH_TIME` on through the timer wheel
    /// ([`stats_flush_requeue`]: at the jiffy it ran, which is the jiffy its timer fired).
    /// Called once the clock has reached [`Kernel::stats_flush_next`]: every run due by now
    /// counts a period (the copies are taken lazily: [`crate::mmzone::LruvecStats`] copies an
    /// lruvec's at its first change of the new period, so runs the clock passed at once
    /// differ only in when the next falls). Its period number counts from 1 (period 0 is
    /// before the flusher starts).
    #[inline(never)]
    pub fn flush_memcg_stats_dwork(&mut self) {
        let round_up = self.profile.timer_wheel_round_up;
        while self.stats_flush_next <= self.now {
            let ran = self.stats_flush_next / crate::timer::NSEC_PER_JIFFY;
            self.stats_flush_next = stats_flush_requeue(ran, round_up) * crate::timer::NSEC_PER_JIFFY;
            self.stats_flush_epoch += 1;
        }
        self.cpu_fast_update();
        self.lru_stats.flush_periodic(self.stats_flush_epoch);
        self.memcgs.flush_periodic(self.stats_flush_epoch);
    }

    /// `try_charge_memcg()`: charge `nr` pages to `memcg`, reclaiming from the memcg whose
    /// limit is in the way (`try_to_free_mem_cgroup_pages()`) and retrying up to the profile's
    /// `MAX_RECLAIM_RETRIES` times without progress. `may_reclaim = false` is a
    /// `__GFP_NORETRY` charge (readahead from 4.8, `KernelProfile::readahead_charge_noretry`;
    /// a large folio's), which gives up instead of reclaiming hard. The profile's
    /// [`ChargePath`] says how:
    ///
    /// - `TryCharge` (3.17+): a reclaim that leaves the memcg short is followed by
    ///   `drain_all_stock()` and a second pass before either (the `drained` retry): a failing
    ///   `__GFP_NORETRY` charge reclaims twice, the second time with the CPU time of the
    ///   first spent, so that reads completed meanwhile have unlocked their folios.
    /// - `DoCharge` (3.13, `__mem_cgroup_try_charge()` -> `mem_cgroup_do_charge()`): the
    ///   memory counter is charged before memsw; a `__GFP_NORETRY` charge fails before any
    ///   reclaim, and charges again each `nr_oom_retries` (`oom = true`) before it gives up;
    ///   a charge that may reclaim calls `mem_cgroup_reclaim()` ([`Kernel::mem_cgroup_reclaim`]).
    ///
    /// A reclaim that freed something but left the memcg short retries at once only a charge
    /// of at most [`CHARGE_RETRY_MAX_PAGES`] (every era); a larger one counts a retry. The
    /// loop itself never sleeps (`nr_retries--; goto retry;` in 4.x-6.18, `CHARGE_NOMEM` ->
    /// `nr_oom_retries--` in 3.13): only its reclaim's own waits take time off the CPU.
    ///
    /// A charge its caller made restartable (`resched.restartable_next`) whose reclaim's
    /// sleep ended the task's quantum returns [`ChargeError::Again`] at once, its
    /// retry loop's `nr_retries` and `drained` kept with the task
    /// ([`crate::sched::ChargeLoop`]): the restarted charge goes on with them, as the
    /// kernel's task goes on inside the same call.
    pub fn try_charge_memcg(&mut self, memcg: MemcgId, nr: u64, may_reclaim: bool) -> Result<(), ChargeError> {
        self.try_charge_memcg_gfp(memcg, nr, if may_reclaim { ChargeGfp::Kernel } else { ChargeGfp::NoRetry })
    }

    /// [`Kernel::try_charge_memcg`] with the charge's gfp ([`ChargeGfp`]). A charge of the
    /// root memcg does nothing, before the charge stock is looked at (`try_charge()`:
    /// "if (mem_cgroup_is_root(memcg)) return 0;", 4.x-6.18; 3.13's
    /// `__mem_cgroup_try_charge()` tests it before `consume_stock()`).
    ///
    /// The common charge (not restartable, of a memcg below the root, on the `TryCharge`
    /// path) that fits takes [`Kernel::charge_fits_at_once`] from here, without the restart
    /// bookkeeping around the loop.
    #[inline]
    pub fn try_charge_memcg_gfp(&mut self, memcg: MemcgId, nr: u64, gfp: ChargeGfp) -> Result<(), ChargeError> {
        if self.charge_may_fit_at_once(memcg) {
            let outer = std::mem::replace(&mut self.resched.restartable, false);
            let fits = self.charge_fits_at_once(memcg, nr, false);
            self.resched.restartable = outer;
            if fits {
                return Ok(());
            }
            // It does not fit (nothing changed): the loop, without trying it again.
            return self.try_charge_memcg_full(memcg, nr, gfp, true);
        }
        self.try_charge_memcg_full(memcg, nr, gfp, false)
    }

    /// [`Kernel::try_charge_memcg`] of one page-cache page (`mem_cgroup_charge()`'s), with
    /// [`Kernel::charge_fits_at_once`] inlined: the same as `try_charge_memcg(memcg, 1,
    /// may_reclaim)`.
    #[inline(always)]
    fn try_charge_memcg_page(&mut self, memcg: MemcgId, may_reclaim: bool) -> Result<(), ChargeError> {
        let gfp = if may_reclaim { ChargeGfp::Kernel } else { ChargeGfp::NoRetry };
        if self.charge_may_fit_at_once(memcg) {
            let cr = self.memcgs.charge_credit;
            if cr.left > 0 && cr.memcg == memcg && cr.ctx == self.pcp_ctx {
                self.charge_credit_take(memcg);
                return Ok(());
            }
            let outer = std::mem::replace(&mut self.resched.restartable, false);
            let v1 = self.memcgs.version == CgroupVersion::V1;
            let fits = if v1 { self.charge_fits_at_once(memcg, 1, false) } else { self.charge_fits_walks::<false>(memcg, 1, false) };
            self.resched.restartable = outer;
            if fits {
                if !v1 {
                    self.charge_credit_start(memcg);
                }
                return Ok(());
            }
            return self.try_charge_memcg_full(memcg, 1, gfp, true);
        }
        self.try_charge_memcg_full(memcg, 1, gfp, false)
    }

    /// A one-page charge of the run [`MemcgTree::charge_credit`] describes (cgroup v2):
    /// `page_counter_charge()` of the page on `memcg` and every ancestor, and the `failcnt`
    /// of the batch `page_counter_try_charge()` refused at `memcg` (`try_charge_memcg()`,
    /// 6.6), what [`Kernel::charge_fits_walks`] does then, without its tests.
    #[inline(always)]
    fn charge_credit_take(&mut self, memcg: MemcgId) {
        #[cfg(debug_assertions)]
        self.charge_credit_check(memcg);
        let t = &mut self.memcgs;
        t.charge_credit.left -= 1;
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let mc = &mut t.memcgs[c.idx()];
            let pc = &mut mc.counter;
            pc.usage += 1;
            if pc.usage > pc.watermark {
                pc.watermark = pc.usage;
            }
            cur = mc.parent;
        }
        t.memcgs[memcg.idx()].counter.failcnt += 1;
    }

    /// After a one-page cgroup-v2 charge of `memcg` that fit at once: the run of the next
    /// one-page charges whose outcome is the same ([`ChargeCredit`]), when the stock of this
    /// CPU does not cover a page and the batch is refused at `memcg` itself: as many as fit
    /// every counter up to the root and leave each at or below memory.high.
    #[inline(never)]
    fn charge_credit_start(&mut self, memcg: MemcgId) {
        let (cpu, slots, batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        let extra = batch.max(1) - 1;
        if extra == 0 || self.memcg_stock[cpu].covers(memcg, 1, slots, batch) {
            return;
        }
        let t = &mut self.memcgs;
        let pc = &t.memcgs[memcg.idx()].counter;
        // The next page's batch: `usage + 1 + stocked + extra` against `max` at `memcg` (its
        // usage only grows within the run).
        if pc.usage + 1 + pc.stocked + extra <= pc.max {
            return;
        }
        let mut left = u64::MAX;
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let pc = &t.memcgs[c.idx()].counter;
            left = left.min(pc.max.saturating_sub(pc.usage + pc.stocked)).min(pc.high.saturating_sub(pc.usage));
            cur = t.memcgs[c.idx()].parent;
        }
        t.charge_credit = ChargeCredit { memcg, ctx: self.pcp_ctx, left };
    }

    /// Debug builds: the run's charge is what [`Kernel::charge_fits_walks`] finds now.
    #[cfg(debug_assertions)]
    fn charge_credit_check(&self, memcg: MemcgId) {
        let (cpu, slots, batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        assert_eq!(self.memcgs.version, CgroupVersion::V2);
        assert!(!self.memcg_stock[cpu].covers(memcg, 1, slots, batch), "the charge run's stock covers a page");
        let pc = &self.memcgs.memcgs[memcg.idx()].counter;
        assert!(pc.usage + 1 + pc.stocked + (batch.max(1) - 1) > pc.max, "the charge run's batch would fit");
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let pc = &self.memcgs.memcgs[c.idx()].counter;
            assert!(pc.usage + pc.stocked + 1 <= pc.max && pc.usage + 1 <= pc.high, "the charge run's page does not fit quietly");
            cur = self.memcgs.memcgs[c.idx()].parent;
        }
    }

    /// Whether a charge to `memcg` goes to [`Kernel::charge_fits_at_once`] first from
    /// [`Kernel::try_charge_memcg_gfp`]: a fresh charge that is not restartable, of a memcg
    /// below the root, outside `PF_MEMALLOC`, on the `TryCharge` path, the fast paths not
    /// under their test-only cross-check.
    #[inline(always)]
    fn charge_may_fit_at_once(&self, memcg: MemcgId) -> bool {
        !self.resched.restartable_next && memcg != MemcgId::ROOT && !self.pf_memalloc && self.profile.charge_path == ChargePath::TryCharge && !self.check_fast_paths
    }

    /// [`Kernel::try_charge_memcg_gfp`] in full; `tried_fits`: a fresh charge that is not
    /// restartable was found not to fit at once (`charge_fits_at_once()` false) just before.
    fn try_charge_memcg_full(&mut self, memcg: MemcgId, nr: u64, gfp: ChargeGfp, tried_fits: bool) -> Result<(), ChargeError> {
        let restartable = std::mem::take(&mut self.resched.restartable_next);
        if memcg == MemcgId::ROOT {
            if restartable {
                // As a charge that fits at once: a resumed charge is over.
                self.resched.resumed = crate::sched::Resumed::NONE;
            }
            return Ok(());
        }
        let outer = std::mem::replace(&mut self.resched.restartable, restartable);
        // A fresh charge (not one resumed with its loop's state) that fits takes the loop's
        // first pass in one walk (`charge_fits_at_once()`).
        let fresh_loop = !restartable || self.resched.charge_loop.is_none();
        if fresh_loop && !self.pf_memalloc && self.profile.charge_path == ChargePath::TryCharge && self.check_fast_paths {
            self.check_charge_fast_path(memcg, nr);
        }
        if !tried_fits && fresh_loop && !self.pf_memalloc && self.profile.charge_path == ChargePath::TryCharge && self.charge_fits_at_once(memcg, nr, false) {
            self.resched.restartable = outer;
            if restartable {
                self.resched.resumed = crate::sched::Resumed::NONE;
            }
            return Ok(());
        }
        let fresh = crate::sched::ChargeLoop {
            retries: if gfp == ChargeGfp::KernelNoOom { 0 } else { self.profile.max_reclaim_retries },
            drained: self.profile.charge_path == ChargePath::DoCharge,
            batch_failed: false,
            reclaim_loop: 0,
            reclaim_total: 0,
        };
        let mut st = if restartable { self.resched.charge_loop.take().unwrap_or(fresh) } else { fresh };
        let r = self.try_charge_memcg_loop(memcg, nr, gfp, &mut st);
        self.resched.restartable = outer;
        if restartable {
            if r == Err(ChargeError::Again) {
                self.resched.charge_loop = Some(st);
            } else {
                // A resumed charge is over: what it did not take lapses (sched.rs Resumed).
                self.resched.resumed = crate::sched::Resumed::NONE;
            }
        }
        r
    }

    /// The body of [`Kernel::try_charge_memcg`], its loop's locals in `st`.
    fn try_charge_memcg_loop(&mut self, memcg: MemcgId, nr: u64, gfp: ChargeGfp, st: &mut crate::sched::ChargeLoop) -> Result<(), ChargeError> {
        let may_reclaim = matches!(gfp, ChargeGfp::Kernel | ChargeGfp::KernelNoOom);
        if self.pf_memalloc {
            // "Prevent unbounded recursion when reclaim operations need to allocate memory"
            // (PF_MEMALLOC): goto force.
            self.try_charge_memcg_force(memcg, nr);
            return Ok(());
        }
        let do_charge = self.profile.charge_path == ChargePath::DoCharge;
        // Whether this pass starts at `retry:` (3.13: `again:`), where consume_stock() is
        // tried before the counters; 3.13's CHARGE_NOMEM passes repeat
        // mem_cgroup_do_charge() without it.
        let mut at_retry = true;
        loop {
            if at_retry && self.consume_stock(memcg, nr) {
                return Ok(());
            }
            at_retry = true;
            let (over, may_swap) = self.charge_over_limit(memcg, nr);
            let Some(over) = over else {
                self.memcgs.counter_charge(memcg, nr);
                self.charge_batch_high(memcg, nr, st.batch_failed);
                return Ok(());
            };
            // A 3.13 charge resumed inside mem_cgroup_reclaim() goes on reclaiming there
            // without charging again (its margin is still 0: the charge does not fit).
            if st.reclaim_loop == 0 {
                if !st.batch_failed {
                    // The first attempt was of a whole batch (when larger than nr), which
                    // cannot fit where nr does not; then "batch = nr_pages; goto retry;".
                    st.batch_failed = true;
                    let extra = self.profile.memcg_charge_batch.max(nr);
                    if extra > nr {
                        self.try_charge_batch(memcg, extra);
                    }
                }
                if may_swap {
                    self.memcgs.memcgs[over.idx()].counter.failcnt += 1;
                }
                if gfp == ChargeGfp::NoBlock {
                    // "if (!gfpflags_allow_blocking(gfp_mask)) goto nomem;" before the event.
                    return Err(ChargeError::Oom { over });
                }
                self.memcgs.count_event(over, MemcgEvent::Max, 1);
            }
            if do_charge && !may_reclaim {
                // 3.13: "if (gfp_mask & __GFP_NORETRY) return CHARGE_NOMEM;" before any
                // reclaim; __mem_cgroup_try_charge() (oom = true) charges again while
                // nr_oom_retries lasts, then fails (mem_cgroup_oom() only records the OOM
                // context for the end of a page fault).
                if st.retries == 0 {
                    return Err(ChargeError::Oom { over });
                }
                st.retries -= 1;
                at_retry = false;
                continue;
            }
            self.stall_enter(StallKind::Reclaim);
            let reclaimed = if do_charge {
                self.mem_cgroup_reclaim(over, may_swap, st)
            } else {
                self.try_to_free_mem_cgroup_pages_swap(over, nr, may_swap)
            };
            self.stall_leave(StallKind::Reclaim);
            if self.resched_pending() {
                return Err(ChargeError::Again);
            }
            if self.memcgs.margin(over) >= nr {
                continue;
            }
            if !st.drained {
                st.drained = true;
                self.drain_all_stock(over);
                continue;
            }
            if reclaimed > 0 && may_reclaim && nr <= CHARGE_RETRY_MAX_PAGES {
                continue;
            }
            if !may_reclaim || st.retries == 0 {
                if gfp == ChargeGfp::Kernel {
                    self.count_memcg_oom_event(over, nr);
                }
                if gfp == ChargeGfp::Kernel && nr <= CHARGE_RETRY_MAX_PAGES && self.profile.oom_kill_events {
                    // mem_cgroup_oom() -> mem_cgroup_out_of_memory() (4.19+ from the charge;
                    // "if (order > PAGE_ALLOC_COSTLY_ORDER) return false;" before it) kills a
                    // task, here the charging one (the scheduler ends it), and
                    // __oom_kill_process() counts the kill: count_vm_event(OOM_KILL) and
                    // memcg_memory_event_mm(victim's mm, MEMCG_OOM_KILL).
                    self.vmstat.count(crate::vmstat::VmEvent::OomKill, 1);
                    self.memcgs.count_event(memcg, MemcgEvent::OomKill, 1);
                }
                return Err(ChargeError::Oom { over });
            }
            st.retries -= 1;
            // 4.x-6.18 "if (nr_retries--) goto retry;"; 3.13's CHARGE_NOMEM.
            at_retry = !do_charge;
        }
    }

    /// The page counters' [`PageCounter::stocked`] after CPU `cpu`'s stock changed from
    /// `before` (a refill, a drain): each slot's pages out of the memcg it cached, the new
    /// slots' in.
    pub(crate) fn stock_changed(&mut self, cpu: usize, before: &MemcgStock) {
        let after = self.memcg_stock[cpu];
        if after == *before {
            return;
        }
        for i in 0..NR_MEMCG_STOCK {
            let (was, now) = ((before.cached[i], before.nr_pages[i]), (after.cached[i], after.nr_pages[i]));
            if was == now {
                continue; // a slot the change left alone: no walk up the tree
            }
            if was.0 == now.0 && was.0 != MemcgId::NONE {
                // the same memcg's slot refilled or partly consumed: one walk with the difference
                let (nr, add) = if now.1 >= was.1 { (now.1 - was.1, true) } else { (was.1 - now.1, false) };
                self.memcgs.stock_moved(now.0, nr, add);
                continue;
            }
            if was.0 != MemcgId::NONE && was.1 > 0 {
                self.memcgs.stock_moved(was.0, was.1, false);
            }
            if now.0 != MemcgId::NONE && now.1 > 0 {
                self.memcgs.stock_moved(now.0, now.1, true);
            }
        }
    }

    /// `refill_stock()` on CPU `cpu`, the page counters' stocked pages with it.
    fn refill_stock(&mut self, cpu: usize, memcg: MemcgId, nr: u64) {
        let (slots, batch) = (self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        let before = self.memcg_stock[cpu];
        self.memcg_stock[cpu].refill(memcg, nr, slots, batch, &mut self.memcg_lru_rand);
        self.stock_changed(cpu, &before);
    }

    /// `consume_stock()` at `try_charge_memcg()`'s `retry:` (mm/memcontrol.c; 3.13's
    /// `__mem_cgroup_try_charge()` at `again:`, every era to 6.18): the running CPU's stock
    /// serves `nr` pre-charged pages before any counter is tested, so a charge it covers
    /// succeeds whatever the counters say (only differs from testing the limit first while
    /// the memcg is over its limit: forced charges, a lowered limit). The engine's counters
    /// hold the used pages only ([`MemcgStock`]): the pages move from the stock to them.
    #[inline]
    fn consume_stock(&mut self, memcg: MemcgId, nr: u64) -> bool {
        let (cpu, slots, batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        if !self.memcg_stock[cpu].consume(memcg, nr, slots, batch) {
            return false;
        }
        self.memcgs.stock_moved(memcg, nr, false);
        self.memcgs.counter_charge(memcg, nr);
        true
    }

    /// `try_charge_memcg()` of `nr` pages to `memcg` from a `PF_MEMALLOC` task (reclaim's own
    /// allocations: zswap's store and writeback): a charge that fits is taken; one that does
    /// not ("if (unlikely(current->flags & PF_MEMALLOC)) goto force;") is forced over the limit
    /// by `page_counter_charge()`, and from 6.0 (`KernelProfile::memcg_max_event_on_force`)
    /// `force:` first raises memory.events `max` on the memcg over its limit
    /// (`memcg_memory_event(mem_over_limit, MEMCG_MAX)`, not raised before on this path).
    pub(crate) fn try_charge_memcg_force(&mut self, memcg: MemcgId, nr: u64) {
        if memcg == MemcgId::ROOT {
            return;
        }
        // retry: consume_stock() comes before the counters and `force:`.
        if self.consume_stock(memcg, nr) {
            return;
        }
        if self.profile.memcg_max_event_on_force {
            if let (Some(over), _) = self.charge_over_limit(memcg, nr) {
                self.memcgs.count_event(over, MemcgEvent::Max, 1);
            }
        }
        self.memcgs.counter_charge(memcg, nr);
    }

    /// `memcg_memory_event(mem_over_limit, MEMCG_OOM)` (memory.events `oom`) of a charge of
    /// `nr` pages whose retries are spent, before the OOM kill ([`MemcgOomEvent`]): 4.19-6.18's
    /// `mem_cgroup_oom()` counts it after "if (order > PAGE_ALLOC_COSTLY_ORDER) return false;",
    /// 4.0-4.18's `try_charge()` before calling `mem_cgroup_oom()`, whatever the order; 3.13
    /// has no memory.events. A `__GFP_NORETRY` or non-blocking charge gives up before it
    /// (`goto nomem`), so the caller counts only `GFP_KERNEL` charges.
    fn count_memcg_oom_event(&mut self, over: MemcgId, nr: u64) {
        let counted = match self.profile.memcg_oom_event {
            MemcgOomEvent::None => false,
            MemcgOomEvent::TryCharge => true,
            MemcgOomEvent::MemcgOom => nr <= CHARGE_RETRY_MAX_PAGES,
        };
        if counted {
            self.memcgs.count_event(over, MemcgEvent::Oom, 1);
        }
    }

    /// The page counter a charge of `nr` pages to `memcg` meets first, if any, and whether the
    /// reclaim it calls may swap.
    #[inline]
    fn charge_over_limit(&self, memcg: MemcgId, nr: u64) -> (Option<MemcgId>, bool) {
        if self.profile.charge_path == ChargePath::DoCharge {
            // 3.13 mem_cgroup_do_charge(): res_counter_charge(&memcg->res) first; only when
            // it fits is memsw charged, and a memsw failure reclaims with
            // MEM_CGROUP_RECLAIM_NOSWAP.
            match self.memcgs.over_limit(memcg, nr) {
                Some(m) => (Some(m), true),
                None => (self.memcgs.over_memsw_limit(memcg, nr), false),
            }
        } else {
            // v1 with swap accounting tries memsw (memory + swap) first: over it, reclaim
            // may not swap, which would not lower memsw ("reclaim_options &=
            // ~MEMCG_RECLAIM_MAY_SWAP").
            match self.memcgs.over_memsw_limit(memcg, nr) {
                Some(m) => (Some(m), false),
                None => (self.memcgs.over_limit(memcg, nr), true),
            }
        }
    }

    /// What a charge touches before any reclaim: the page counters from `memcg` up (usage,
    /// watermark, failcnt), every CPU's stock, the stock's victim draw and the task's
    /// `memcg_nr_pages_over_high`.
    fn charge_state(&self, memcg: MemcgId) -> (Vec<(u64, u64, u64)>, Vec<MemcgStock>, u64, u64) {
        let mut chain = vec![];
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let pc = &self.memcgs.memcgs[c.idx()].counter;
            chain.push((pc.usage, pc.watermark, pc.failcnt));
            cur = self.memcgs.memcgs[c.idx()].parent;
        }
        (chain, self.memcg_stock.clone(), self.memcg_lru_rand, self.nr_pages_over_high)
    }

    fn set_charge_state(&mut self, memcg: MemcgId, s: &(Vec<(u64, u64, u64)>, Vec<MemcgStock>, u64, u64)) {
        self.memcgs.charge_credit_end();
        let mut cur = Some(memcg);
        for &(usage, watermark, failcnt) in &s.0 {
            let c = cur.expect("the same chain");
            let pc = &mut self.memcgs.memcgs[c.idx()].counter;
            (pc.usage, pc.watermark, pc.failcnt) = (usage, watermark, failcnt);
            cur = self.memcgs.memcgs[c.idx()].parent;
        }
        for cpu in 0..self.memcg_stock.len() {
            let before = self.memcg_stock[cpu];
            self.memcg_stock[cpu] = s.1[cpu];
            self.stock_changed(cpu, &before);
        }
        (self.memcg_lru_rand, self.nr_pages_over_high) = (s.2, s.3);
    }

    /// With [`Kernel::check_fast_paths`]: `charge_fits_at_once(memcg, nr)` and the first pass
    /// of `try_charge_memcg()`'s loop (the general path: [`Kernel::charge_over_limit`], then
    /// `page_counter_charge()` and [`Kernel::charge_batch_high`]) are each run from the same
    /// state, memory.high's synchronous reclaim held off in both; they must both charge or
    /// both leave the charge to the loop, and charging, leave the same counters, stocks,
    /// victim draw and `memcg_nr_pages_over_high`. The state is put back: the caller then
    /// charges as it would have.
    pub(crate) fn check_charge_fast_path(&mut self, memcg: MemcgId, nr: u64) {
        let before = self.charge_state(memcg);
        let high_sync = std::mem::replace(&mut self.profile.memcg_high_sync, false);
        let fast = self.charge_fits_at_once(memcg, nr, false);
        let after_fast = self.charge_state(memcg);
        self.set_charge_state(memcg, &before);
        let general = self.consume_stock(memcg, nr) || self.charge_over_limit(memcg, nr).0.is_none() && {
            self.memcgs.counter_charge(memcg, nr);
            self.charge_batch_high(memcg, nr, false);
            true
        };
        let after_general = self.charge_state(memcg);
        self.set_charge_state(memcg, &before);
        self.profile.memcg_high_sync = high_sync;
        assert_eq!(fast, general, "charge_fits_at_once() and try_charge_memcg()'s first pass disagree on whether {nr} pages fit in memcg {}", memcg.0);
        assert_eq!(after_fast, after_general, "charge_fits_at_once() and try_charge_memcg()'s first pass leave different state (memcg {}, {nr} pages)", memcg.0);
    }

    /// `mem_cgroup_reclaim()` (mm/memcontrol.c, 3.13): `try_to_free_mem_cgroup_pages()` on
    /// `over` while `mem_cgroup_margin()` is 0, `drain_all_stock_async()` before every pass
    /// but the first, stopping after a second or later pass when the passes reclaimed
    /// nothing in all ("If nothing was reclaimed after two attempts, there may be no
    /// reclaimable pages in this hierarchy"), at most `MEM_CGROUP_MAX_RECLAIM_LOOPS`
    /// passes. Each pass asks for `SWAP_CLUSTER_MAX` pages whatever the charge's size (3.13's
    /// `try_to_free_mem_cgroup_pages()` has no `nr_pages`: `.nr_to_reclaim =
    /// SWAP_CLUSTER_MAX`). Returns the pages reclaimed (`total`). A pass whose sleep ended the
    /// task's quantum leaves `loop` and `total` in `st` for the restarted charge to go on with.
    pub(crate) fn mem_cgroup_reclaim(&mut self, over: MemcgId, may_swap: bool, st: &mut crate::sched::ChargeLoop) -> u64 {
        let (mut passes, mut total) = (st.reclaim_loop, st.reclaim_total);
        loop {
            if passes > 0 {
                // The tests after pass `passes - 1`.
                if self.memcgs.margin(over) > 0 || (passes > 1 && total == 0) || passes >= MEM_CGROUP_MAX_RECLAIM_LOOPS {
                    break;
                }
                self.drain_all_stock(over);
            }
            total += self.try_to_free_mem_cgroup_pages_swap(over, crate::vmscan::SWAP_CLUSTER_MAX, may_swap);
            passes += 1;
            if self.resched_pending() {
                (st.reclaim_loop, st.reclaim_total) = (passes, total);
                return total;
            }
        }
        (st.reclaim_loop, st.reclaim_total) = (0, 0);
        total
    }

    /// The CPU the running context charges on: its stock in `memcg_stock` (`pcp_ctx`, CPU 0
    /// before the scheduler names one).
    #[inline]
    pub fn stock_cpu(&self) -> usize {
        let cpu = if self.pcp_ctx == u32::MAX { 0 } else { self.pcp_ctx as usize };
        debug_assert!(cpu < self.memcg_stock.len(), "a charge stock per CPU (Simulation sets nr_cpu_ids of them)");
        cpu.min(self.memcg_stock.len() - 1)
    }

    /// The running CPU's charge stock (`this_cpu_ptr(&memcg_stock)`).
    #[inline]
    pub fn this_cpu_stock(&self) -> &MemcgStock {
        &self.memcg_stock[self.stock_cpu()]
    }

    /// `drain_all_stock()` (mm/memcontrol.c; 3.13's `drain_all_stock_async()`) of `root`:
    /// the stock of every CPU caching pages of `root` or a descendant is drained, the running
    /// CPU's at once (`drain_local_stock()`), the others' by work queued on them, which the
    /// engine runs at once too. Their pages leave the counters' `stocked` ([`MemcgStock`]):
    /// the margin grows by them, and the drained CPUs' next charges take a batch afresh. Its cost is the kernel's: one look at each CPU's stock, on a charge that
    /// reclaim left short (or a memcg going offline).
    pub(crate) fn drain_all_stock(&mut self, root: MemcgId) {
        let slots = self.profile.memcg_stock_slots;
        for cpu in 0..self.memcg_stock.len() {
            let before = self.memcg_stock[cpu];
            let memcgs = &self.memcgs;
            self.memcg_stock[cpu].drain_if(slots, |m| memcgs.is_descendant(m, root));
            self.stock_changed(cpu, &before);
        }
    }

    /// Whether `try_charge_memcg(memcg, nr)` would take its fast path and nothing more: no
    /// counter up to the root in the way (`page_counter_try_charge()` succeeds), and either
    /// the charge stock covers `nr` (`consume_stock()`) or the refill leaves every counter at
    /// or below memory.high (no `memcg_nr_pages_over_high`, no synchronous reclaim).
    #[inline]
    pub fn charge_is_quiet(&self, memcg: MemcgId, nr: u64) -> bool {
        if memcg == MemcgId::ROOT {
            // try_charge() of the root: nothing.
            return true;
        }
        // consume_stock() before any counter (`retry:`).
        if self.this_cpu_stock().covers(memcg, nr, self.profile.memcg_stock_slots, self.profile.memcg_charge_batch) {
            return true;
        }
        // v1 memsw is tried first (`try_charge_memcg()`): over it, the charge reclaims.
        if self.memcgs.over_memsw_limit(memcg, nr).is_some() || self.memcgs.over_limit(memcg, nr).is_some() {
            return false;
        }
        // charge_batch_high() tests usage + nr + (batch - nr) after the charge, the batch
        // falling back to nr when it does not fit.
        let batch = if self.batch_fits(memcg, nr) { self.profile.memcg_charge_batch.max(nr) } else { nr };
        !self.memcgs.above_high(memcg, batch)
    }

    /// Pages that one-page charges to `memcg` can take in a row from the charge stock
    /// (`consume_stock()`, tried before any counter: every page it holds for `memcg`): quiet
    /// charges that only move counters. The root's charges take nothing (`try_charge()`
    /// returns at once): any number.
    #[inline]
    pub fn charge_from_stock(&self, memcg: MemcgId) -> u64 {
        if memcg == MemcgId::ROOT {
            return u64::MAX;
        }
        self.this_cpu_stock().pages_of(memcg, self.profile.memcg_stock_slots)
    }

    /// `nr` one-page charges of `memcg` served by the stock (at most `charge_from_stock()`):
    /// the page counters up to the root, the stock.
    #[inline]
    pub fn charge_stock_commit(&mut self, memcg: MemcgId, nr: u64) {
        debug_assert!(nr <= self.charge_from_stock(memcg));
        if memcg == MemcgId::ROOT {
            return;
        }
        self.memcgs.counter_charge(memcg, nr);
        self.memcgs.stock_moved(memcg, nr, false);
        let (cpu, slots, batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        let took = self.memcg_stock[cpu].consume(memcg, nr, slots, batch);
        debug_assert!(took, "charge_from_stock() said the stock holds them");
    }

    /// `try_charge_memcg(memcg, nr)` when it is quiet (`charge_is_quiet()`), else nothing:
    /// returns whether it charged.
    #[inline]
    pub fn try_charge_quiet(&mut self, memcg: MemcgId, nr: u64) -> bool {
        if memcg == MemcgId::ROOT {
            return true;
        }
        if !self.charge_is_quiet(memcg, nr) {
            return false;
        }
        self.memcgs.counter_charge(memcg, nr);
        self.charge_batch_high(memcg, nr, false);
        true
    }

    /// `mem_cgroup_charge()` of a page-cache page: charge it to `memcg` and move it to that
    /// memcg's LRU if it is on one. Counts v1 `pgpgin` and the `file` stat. `pay`: its CPU
    /// time is paid here (not for a new page of a large-folio write, whose cost is in
    /// `write_large_folio_page`).
    #[inline(always)]
    pub fn mem_cgroup_charge(&mut self, page: PageId, memcg: MemcgId, may_reclaim: bool, pay: bool) -> Result<(), ChargeError> {
        if pay {
            self.cpu(self.cost.charge);
        }
        self.try_charge_memcg_page(memcg, may_reclaim)?;
        self.commit_charge_inline(page, memcg);
        Ok(())
    }

    /// `commit_charge()`: record `memcg` in the page after the counters were charged.
    #[inline]
    pub(crate) fn commit_charge(&mut self, page: PageId, memcg: MemcgId) {
        self.commit_charge_inline(page, memcg)
    }

    /// [`Kernel::commit_charge`], inlined into [`Kernel::mem_cgroup_charge`].
    #[inline(always)]
    fn commit_charge_inline(&mut self, page: PageId, memcg: MemcgId) {
        // The page's state read once (taking it off its LRU changes only its list links and
        // PG_lru).
        let pg = self.pages[page];
        if pg.test(crate::mm_types::pg::LRU) {
            return self.commit_charge_on_lru(page, pg, memcg);
        }
        self.pages[page].memcg = memcg;
        self.commit_charge_stats(pg, memcg);
    }

    /// [`Kernel::commit_charge`] of a page on an LRU list (`pg`: the page before), which
    /// moves to `memcg`'s lruvec.
    #[inline(never)]
    fn commit_charge_on_lru(&mut self, page: PageId, pg: crate::mm_types::Page, memcg: MemcgId) {
        let from = self.folio_lruvec(page);
        self.lruvecs[from].del(&mut self.pages, &mut self.lru_stats, page);
        self.pages[page].memcg = memcg;
        self.commit_charge_stats(pg, memcg);
        let to = self.folio_lruvec(page);
        self.lruvecs[to].add(&mut self.pages, &mut self.lru_stats, page, crate::mmzone::LruList::from_u8(pg.lru()));
    }

    /// The memcg statistics of [`Kernel::commit_charge`] of a page whose state is `pg`.
    #[inline(always)]
    fn commit_charge_stats(&mut self, pg: crate::mm_types::Page, memcg: MemcgId) {
        let dirty = pg.test(crate::mm_types::pg::DIRTY);
        let writeback = pg.flags & (crate::mm_types::pg::WRITEBACK | crate::mm_types::pg::ANON) == crate::mm_types::pg::WRITEBACK;
        let shmem = pg.test(crate::mm_types::pg::SWAPBACKED);
        let mapped = pg.mapcount > 0;
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_file += 1;
        m.nr_file_mapped += mapped as u64;
        m.nr_shmem += shmem as u64;
        m.events[MemcgEvent::Pgpgin as usize] += 1;
        if dirty {
            m.nr_dirty += 1;
        }
        m.nr_writeback += writeback as u64;
        self.memcgs.wb_updated(memcg);
    }

    /// `commit_charge()` of a large page-cache folio (charged, not on an LRU): every frame
    /// records `memcg`, the `file` stat counts its pages and v1's `pgpgin` one event
    /// (`mem_cgroup_charge_statistics()` counts a folio once).
    pub(crate) fn commit_charge_folio(&mut self, head: PageId, memcg: MemcgId) {
        let n = self.pages.folio_nr_pages(head);
        for i in 0..n as u32 {
            self.pages[PageId(head.0 + i)].memcg = memcg;
        }
        let shmem = self.pages[head].test(crate::mm_types::pg::SWAPBACKED);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_file += n;
        if shmem {
            // a tmpfs large folio: memory.stat shmem, and shmem_thp when PMD-sized
            // (folio_test_pmd_mappable(), shmem.rs)
            m.nr_shmem += n;
            if n == crate::shmem::HPAGE_PMD_NR as u64 {
                m.nr_shmem_thps += n;
            }
        }
        m.events[MemcgEvent::Pgpgin as usize] += 1;
        self.memcgs.wb_updated(memcg);
    }

    /// `mem_cgroup_uncharge()` of a large page-cache folio (unmapped): its buffer heads go
    /// with the charge (`try_to_free_buffers()`), the counters lose its pages (`file`, and
    /// `file_dirty`/`file_writeback` when a truncation drops it dirty or after its
    /// writeback), v1's `pgpgout` counts one event (`uncharge_batch()`: one per folio), its
    /// frames are left uncharged.
    pub fn mem_cgroup_uncharge_folio(&mut self, head: PageId) {
        let memcg = self.pages[head].memcg;
        if memcg == MemcgId::NONE {
            return;
        }
        self.cpu(self.cost.charge);
        if self.pages[head].test(crate::mm_types::pg::PRIVATE) {
            self.try_to_free_buffers(head);
        }
        let n = self.pages.folio_nr_pages(head);
        self.memcgs.counter_uncharge(memcg, n);
        for i in 0..n as u32 {
            self.pages[PageId(head.0 + i)].memcg = MemcgId::NONE;
        }
        let dirty = self.pages[head].test(crate::mm_types::pg::DIRTY);
        let writeback = self.pages[head].test(crate::mm_types::pg::WRITEBACK);
        let shmem = self.pages[head].test(crate::mm_types::pg::SWAPBACKED);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_file -= n;
        if shmem {
            m.nr_shmem -= n;
            if n == crate::shmem::HPAGE_PMD_NR as u64 {
                m.nr_shmem_thps -= n;
            }
        }
        if dirty {
            m.nr_dirty -= n;
        }
        if writeback {
            m.nr_writeback -= n;
        }
        m.events[MemcgEvent::Pgpgout as usize] += 1;
        let dying_and_empty = m.state == MemcgState::Dying && m.counter.usage == 0;
        self.memcgs.wb_updated(memcg);
        if dying_and_empty {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// `mem_cgroup_uncharge()`: drop the page's charge (counters, `file` stat, v1 `pgpgout`)
    /// and leave it uncharged. The caller moves it between LRUs if it stays on one.
    pub fn mem_cgroup_uncharge(&mut self, page: PageId) {
        let memcg = self.pages[page].memcg;
        if memcg == MemcgId::NONE {
            return;
        }
        self.cpu(self.cost.charge);
        if self.pages[page].test(crate::mm_types::pg::PRIVATE) {
            // The page leaves its memcg (freed, or kept uncharged by the seed-000 policy): its
            // buffer heads go with the charge (try_to_free_buffers() before __remove_mapping()).
            self.try_to_free_buffers(page);
        }
        self.memcgs.counter_uncharge(memcg, 1);
        let dirty = self.pages[page].test(crate::mm_types::pg::DIRTY);
        let writeback = self.pages[page].flags & (crate::mm_types::pg::WRITEBACK | crate::mm_types::pg::ANON) == crate::mm_types::pg::WRITEBACK;
        let shmem = self.pages[page].test(crate::mm_types::pg::SWAPBACKED);
        let mapped = self.pages[page].mapcount > 0;
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_file -= 1;
        m.nr_file_mapped -= mapped as u64;
        m.nr_shmem -= shmem as u64;
        if dirty {
            m.nr_dirty -= 1;
        }
        m.nr_writeback -= writeback as u64;
        m.events[MemcgEvent::Pgpgout as usize] += 1;
        let dying_and_empty = m.state == MemcgState::Dying && m.counter.usage == 0;
        self.memcgs.wb_updated(memcg);
        self.pages[page].memcg = MemcgId::NONE;
        if dying_and_empty {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// `uncharge_folio()` of `mem_cgroup_uncharge_list()` for a clean, unmapped, order-0
    /// page-cache page without buffers, charged to `memcg`, an online memcg, which the caller
    /// frees next (so its `memcg` field is left as it is: the free clears it): the batch `b`
    /// counts it; its memcg's counters follow in
    /// [`Kernel::uncharge_batch`] (at the end of the batch, or when the next page's memcg
    /// differs), as the kernel uncharges a list.
    #[inline]
    pub(crate) fn uncharge_folio_batched(&mut self, memcg: MemcgId, b: &mut crate::vmscan::EvictBatch) {
        debug_assert!(memcg != MemcgId::NONE && self.memcgs.get(memcg).state == MemcgState::Online);
        if b.unc_memcg != memcg {
            self.uncharge_batch(b);
            b.unc_memcg = memcg;
        }
        self.cpu(self.cost.charge);
        b.uncharged += 1;
    }

    /// `uncharge_batch()`: the pages [`Kernel::uncharge_folio_batched`] counted leave their
    /// memcg's page counters, its `file` stat and v1's `pgpgout`.
    #[inline]
    pub(crate) fn uncharge_batch(&mut self, b: &mut crate::vmscan::EvictBatch) {
        let (memcg, nr) = (b.unc_memcg, b.uncharged);
        b.unc_memcg = MemcgId::NONE;
        b.uncharged = 0;
        if nr == 0 {
            return;
        }
        self.memcgs.counter_uncharge(memcg, nr);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_file -= nr;
        m.events[MemcgEvent::Pgpgout as usize] += nr;
        let dying_and_empty = m.state == MemcgState::Dying && m.counter.usage == 0;
        self.memcgs.wb_updated(memcg);
        if dying_and_empty {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// The memory.high side of `try_charge_memcg()` with the per-CPU charge stock: a charge
    /// that `consume_stock()` cannot serve tries a whole batch (`MEMCG_CHARGE_BATCH`, or `nr`
    /// if larger) from the page counter and `refill_stock()`s the rest
    /// ([`Kernel::try_charge_batch`]); a batch that does not fit falls back to `nr` (`batch =
    /// nr_pages; goto retry;`), with no refill; `batch_failed`: the charge's loop already
    /// tried the batch. Only then is memory.high looked at, and a memcg (or ancestor) above
    /// it adds the batch to the task's `memcg_nr_pages_over_high`, reclaimed on return to
    /// user space, or at once (5.18+) when that exceeds a batch. The engine keeps the page
    /// counters exact (the stock's pre-charged pages are not added to them; `nr` is charged
    /// already) and models the batching of these checks.
    fn charge_batch_high(&mut self, memcg: MemcgId, nr: u64, batch_failed: bool) {
        let (cpu, slots, charge_batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        if self.memcg_stock[cpu].consume(memcg, nr, slots, charge_batch) {
            self.memcgs.stock_moved(memcg, nr, false);
            return;
        }
        let batch = charge_batch.max(nr);
        let batch = if !batch_failed && self.try_charge_batch(memcg, batch - nr) { batch } else { nr };
        if batch > nr {
            // done_restock: refill_stock(memcg, batch - nr_pages).
            self.refill_stock(cpu, memcg, batch - nr);
        }
        if self.memcgs.above_high(memcg, batch - nr) {
            self.nr_pages_over_high += batch;
            if self.profile.memcg_high_sync && self.nr_pages_over_high > self.profile.memcg_charge_batch && !self.in_kthread() {
                self.mem_cgroup_handle_over_high(memcg);
            }
        }
    }

    /// The first pass of `try_charge_memcg()`'s loop (`TryCharge` path) when `nr` fits under
    /// every counter from `memcg` up: the same as its memsw/memory tests, `page_counter_charge()`
    /// and [`Kernel::charge_batch_high`] (the stock, the batch's fit and its `failcnt`, the
    /// memory.high test), in two walks up the tree instead of one per test: the limits, then
    /// the charge with the batch's and memory.high's tests. Returns false, having changed
    /// nothing, when `nr` does not fit: the loop then charges (or reclaims) as before. Never
    /// of the root memcg, whose charges [`Kernel::try_charge_memcg_gfp`] returns from before
    /// (its second walk is [`MemcgTree::counter_charge`] of a memcg below the root).
    #[inline(never)]
    fn charge_fits_at_once(&mut self, memcg: MemcgId, nr: u64, batch_failed: bool) -> bool {
        self.charge_fits_at_once_inline(memcg, nr, batch_failed)
    }

    /// [`Kernel::charge_fits_at_once`], inlined into its callers.
    #[inline(always)]
    fn charge_fits_at_once_inline(&mut self, memcg: MemcgId, nr: u64, batch_failed: bool) -> bool {
        if self.memcgs.version == CgroupVersion::V1 {
            self.charge_fits_walks::<true>(memcg, nr, batch_failed)
        } else {
            self.charge_fits_walks::<false>(memcg, nr, batch_failed)
        }
    }

    /// [`Kernel::charge_fits_at_once`] with v1's memsw counter (`MEMSW`, cgroup v1) or
    /// without (v2): the page cache's charge inlines the v2 walks, which then make no memsw
    /// test (issue 17), and calls [`Kernel::charge_fits_at_once`] on v1.
    #[inline(always)]
    fn charge_fits_walks<const MEMSW: bool>(&mut self, memcg: MemcgId, nr: u64, batch_failed: bool) -> bool {
        debug_assert!(memcg != MemcgId::ROOT, "a charge of the root memcg charges nothing");
        debug_assert_eq!(MEMSW, self.memcgs.version == CgroupVersion::V1);
        self.memcgs.charge_credit_end();
        let (cpu, slots, charge_batch) = (self.stock_cpu(), self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        let stock_covers = self.memcg_stock[cpu].covers(memcg, nr, slots, charge_batch);
        // The rest of the batch the refill would take from the counters (0: none tried).
        let extra = if stock_covers || batch_failed { 0 } else { charge_batch.max(nr) - nr };
        let memsw = MEMSW;
        // The first walk: whether `nr` fits every counter (the loop's memsw and memory tests),
        // after consume_stock(): a charge the stock covers tests none.
        let mut cur = if stock_covers { None } else { Some(memcg) };
        while let Some(c) = cur {
            let mc = &self.memcgs.memcgs[c.idx()];
            let pc = &mc.counter;
            if pc.usage + pc.stocked + nr > pc.max || (memsw && pc.usage + pc.stocked + mc.swap + nr > mc.memsw_max) {
                return false;
            }
            cur = mc.parent;
        }
        // The second: `page_counter_charge()` of `nr` ([`MemcgTree::counter_charge`]), each
        // counter read after it for the batch's and memory.high's tests.
        let (mut memsw_refuses, mut refused_by) = (false, None);
        let (mut high_nr, mut high_batch) = (false, false);
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let mc = &mut self.memcgs.memcgs[c.idx()];
            let pc = &mut mc.counter;
            pc.usage += nr;
            if stock_covers {
                pc.stocked -= nr;
            }
            if pc.usage > pc.watermark {
                pc.watermark = pc.usage;
            }
            let after = pc.usage;
            if extra > 0 {
                memsw_refuses |= memsw && after + pc.stocked + mc.swap + extra > mc.memsw_max;
                if refused_by.is_none() && after + pc.stocked + extra > pc.max {
                    refused_by = Some(c);
                }
            }
            high_nr |= after > pc.high;
            high_batch |= after + extra > pc.high;
            cur = mc.parent;
        }
        if stock_covers {
            let took = self.memcg_stock[cpu].consume(memcg, nr, slots, charge_batch);
            debug_assert!(took);
            return true;
        }
        // try_charge_batch(): memsw is tried first, and a memsw refusal leaves memory's
        // failcnt alone.
        let fits = extra > 0 && !memsw_refuses && refused_by.is_none();
        if !memsw_refuses {
            if let Some(m) = refused_by {
                self.memcgs.memcgs[m.idx()].counter.failcnt += 1;
            }
        }
        let batch = if fits { nr + extra } else { nr };
        if batch > nr {
            self.refill_stock(cpu, memcg, batch - nr);
        }
        if if fits { high_batch } else { high_nr } {
            self.nr_pages_over_high += batch;
            if self.profile.memcg_high_sync && self.nr_pages_over_high > self.profile.memcg_charge_batch && !self.in_kthread() {
                self.mem_cgroup_handle_over_high(memcg);
            }
        }
        true
    }

    /// Whether the batch the charge stock would take fits: `extra` more pages than the page
    /// counters hold now, from `memcg` up (`page_counter_try_charge()` of `batch` in
    /// `try_charge_memcg()`; 3.13's `res_counter_charge()` in `mem_cgroup_do_charge()`).
    /// A memory counter that refuses it counts a `failcnt` (`page_counter_try_charge()`,
    /// `res_counter_charge_locked()`: "failcnt++" at the counter that failed, in every era),
    /// one more than the charge's own failures: a one-page charge that meets the limit fails
    /// first as a batch. v1 memsw is tried before memory (after it in 3.13): a memsw refusal
    /// leaves memory's failcnt alone.
    fn try_charge_batch(&mut self, memcg: MemcgId, extra: u64) -> bool {
        if extra == 0 {
            return true;
        }
        let memory_first = self.profile.charge_path == ChargePath::DoCharge;
        if !memory_first && self.memcgs.over_memsw_limit(memcg, extra).is_some() {
            return false;
        }
        if let Some(m) = self.memcgs.over_limit(memcg, extra) {
            self.memcgs.memcgs[m.idx()].counter.failcnt += 1;
            return false;
        }
        !(memory_first && self.memcgs.over_memsw_limit(memcg, extra).is_some())
    }

    /// Whether a charge of `nr` pages to `memcg` that the stock does not cover would take a
    /// whole batch (`try_charge_batch()` without its `failcnt`): the pages it leaves in the
    /// stock.
    #[inline]
    fn batch_fits(&self, memcg: MemcgId, nr: u64) -> bool {
        let extra = self.profile.memcg_charge_batch.saturating_sub(nr);
        extra == 0 || (self.memcgs.over_limit(memcg, nr + extra).is_none() && self.memcgs.over_memsw_limit(memcg, nr + extra).is_none())
    }

    /// `reclaim_high()`: each memcg from `memcg` up to, not including, the root that is above
    /// memory.high counts a memory.events `high` and reclaims `nr` pages. Returns the pages
    /// reclaimed.
    pub fn reclaim_high(&mut self, memcg: MemcgId, nr: u64) -> u64 {
        let mut reclaimed = 0;
        let mut cur = memcg;
        while cur != MemcgId::ROOT && cur != MemcgId::NONE {
            if self.page_counter_read(cur) > self.memcgs.get(cur).counter.high {
                self.memcgs.count_event(cur, MemcgEvent::High, 1);
                self.stall_enter(StallKind::Reclaim);
                reclaimed += self.try_to_free_mem_cgroup_pages(cur, nr);
                self.stall_leave(StallKind::Reclaim);
            }
            match self.memcgs.get(cur).parent {
                Some(p) => cur = p,
                None => break,
            }
        }
        reclaimed
    }

    /// `mem_cgroup_handle_over_high()`: on return to user space (or inside a charge, 5.18+)
    /// a task that charged pages over memory.high reclaims them (`reclaim_high()`); from 5.4,
    /// while the memcg stays above high enough to owe more than `HZ/100` of penalty
    /// (`calculate_high_delay()`), it retries reclaim of `SWAP_CLUSTER_MAX` pages as long as
    /// reclaim makes progress (or up to `MAX_RECLAIM_RETRIES` times without), then sleeps the
    /// penalty, at most 2 s (`MEMCG_MAX_HIGH_DELAY_JIFFIES`).
    pub fn mem_cgroup_handle_over_high(&mut self, memcg: MemcgId) {
        let nr_pages = std::mem::take(&mut self.nr_pages_over_high);
        if nr_pages == 0 {
            return;
        }
        let mut retries = self.profile.max_reclaim_retries;
        let mut nr = nr_pages;
        loop {
            let reclaimed = self.reclaim_high(memcg, nr);
            if !self.profile.memcg_high_delay {
                return;
            }
            let overage = self.mem_find_max_overage(memcg);
            let penalty = calculate_high_delay(nr_pages, overage, self.profile.memcg_charge_batch).min(MEMCG_MAX_HIGH_DELAY_JIFFIES);
            if penalty <= HZ / 100 {
                return;
            }
            if reclaimed > 0 || retries > 0 {
                if reclaimed == 0 {
                    retries -= 1;
                }
                nr = crate::vmscan::SWAP_CLUSTER_MAX;
                continue;
            }
            // schedule_timeout_killable(penalty_jiffies), a memory stall, until the tick of
            // its timer's bucket (timer.rs: from 4.8 rounded up with the level's granularity,
            // 8 jiffies for penalties of 63 jiffies and more).
            let until = self.schedule_timeout_at(penalty);
            self.stall_enter(StallKind::High);
            self.now = until;
            // it slept: a bound kworker queued behind it ran meanwhile (review50 L1)
            self.bound_worker_slept();
            self.stall_leave(StallKind::High);
            return;
        }
    }

    /// `page_counter_read()` of `memcg` as the kernel's counter holds it: the engine's exact
    /// usage plus the pages every CPU's charge stock holds for it or a descendant (charged to
    /// the counter with their batch, not used yet: [`PageCounter::stocked`]).
    pub fn page_counter_read(&self, memcg: MemcgId) -> u64 {
        let pc = &self.memcgs.get(memcg).counter;
        pc.usage + pc.stocked
    }

    /// `mem_find_max_overage()`: the largest `calculate_overage()` from `memcg` up to, not
    /// including, the root.
    pub fn mem_find_max_overage(&self, memcg: MemcgId) -> u64 {
        let mut max = 0;
        let mut cur = memcg;
        while cur != MemcgId::ROOT && cur != MemcgId::NONE {
            max = max.max(calculate_overage(self.page_counter_read(cur), self.memcgs.get(cur).counter.high));
            match self.memcgs.get(cur).parent {
                Some(p) => cur = p,
                None => break,
            }
        }
        max
    }

    /// `mem_cgroup_usage()` in bytes (`memory.usage_in_bytes`; v2's `memory.current`): the
    /// page counter of `memcg`. The root's counter holds its descendants' charges only (it
    /// charges nothing of its own, [`MemcgTree::counter_charge`]), so the kernel approximates
    /// its usage from page statistics: the page cache and swap cache (`NR_FILE_PAGES`) and
    /// mapped anonymous pages (`NR_ANON_MAPPED`) of its subtree (6.1's
    /// `memcg_page_state(root, ...)`; 4.4's `tree_stat(CACHE) + tree_stat(RSS)`; 3.13's
    /// `mem_cgroup_recursive_stat()`; later kernels read the node counters, which differ
    /// by the pages charged to no memcg). v2 shows no memory.current at the root; the
    /// engine reports the same approximation.
    pub fn memcg_usage_bytes(&self, memcg: MemcgId) -> u64 {
        let pages = if memcg == MemcgId::ROOT {
            self.memcgs.file_pages(memcg) + self.memcgs.anon_pages(memcg) + self.memcgs.subtree_sum(memcg, |m| m.nr_swapcache)
        } else {
            self.memcgs.get(memcg).counter.usage
        };
        pages * PAGE_SIZE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_charges_ancestors_and_finds_the_limiting_counter() {
        let mut t = MemcgTree::new(CgroupVersion::V2);
        let a = t.create(MemcgId::ROOT, "a").unwrap();
        let b = t.create(a, "b").unwrap();
        assert_eq!(t.get(b).path, "/a/b");
        assert_eq!(t.by_path("/a/b"), Some(b));
        t.memcgs[a.idx()].counter.max = 10;
        assert_eq!(t.over_limit(b, 10), None);
        t.counter_charge(b, 8);
        assert_eq!(t.get(a).counter.usage, 8);
        assert_eq!(t.get(MemcgId::ROOT).counter.usage, 8);
        assert_eq!(t.over_limit(b, 3), Some(a));
        assert_eq!(t.margin(a), 2);
        t.counter_uncharge(b, 8);
        assert_eq!(t.get(a).counter.usage, 0);
        assert_eq!(t.get(a).counter.watermark, 8);
        assert!(t.is_descendant(b, a));
        assert!(!t.is_descendant(a, b));
        let mut sub = vec![];
        t.subtree(a, &mut sub);
        assert_eq!(sub, vec![a, b]);
    }

    #[test]
    fn high_is_reported_but_does_not_block() {
        let mut t = MemcgTree::new(CgroupVersion::V2);
        let a = t.create(MemcgId::ROOT, "a").unwrap();
        t.memcgs[a.idx()].counter.high = 4;
        assert!(!t.counter_charge(a, 4));
        assert!(t.counter_charge(a, 1));
        assert_eq!(t.get(a).counter.usage, 5);
    }

    #[test]
    fn effective_protection_follows_the_kernel_rules() {
        let mut t = MemcgTree::new(CgroupVersion::V2);
        let p = t.create(MemcgId::ROOT, "p").unwrap();
        let c1 = t.create(p, "c1").unwrap();
        let c2 = t.create(p, "c2").unwrap();
        t.set_protection(p, 0, 100);
        t.set_protection(c1, 0, 100);
        t.set_protection(c2, 0, 100);
        t.counter_charge(c1, 150);
        t.counter_charge(c2, 50);
        let mut s = vec![];
        // Reclaim from the root: p is a child of the target, so elow = low.
        t.calculate_protection(MemcgId::ROOT, &mut s);
        assert_eq!(t.get(p).counter.elow, 100);
        // Siblings claim min(150,100) + min(50,100) = 150 > parent's 100: shared out.
        assert_eq!(t.get(c1).counter.elow, 100 * 100 / 150);
        assert_eq!(t.get(c2).counter.elow, 50 * 100 / 150);
        assert!(!t.below_low(p), "p uses 200 > elow 100");
        // Reclaim targeted at p itself: p gets no protection, its children their own low.
        t.calculate_protection(p, &mut s);
        assert_eq!(t.get(p).counter.elow, 0);
        assert_eq!(t.get(c2).counter.elow, 100);
        assert!(t.below_low(c2));
        assert!(!t.below_low(c1));
    }

    #[test]
    fn v1_has_no_protection() {
        let mut t = MemcgTree::new(CgroupVersion::V1);
        let a = t.create(MemcgId::ROOT, "a").unwrap();
        t.set_protection(a, 0, 100);
        t.counter_charge(a, 10);
        let mut s = vec![];
        t.calculate_protection(MemcgId::ROOT, &mut s);
        assert!(!t.below_low(a));
    }
}
