//! The simulated kernel's state: one struct holding every subsystem's data, as the kernel's
//! globals and per-node structures would. Each mm/ file of the kernel becomes a module of this
//! crate that adds an `impl Kernel` block with the functions of that file, so a call chain in
//! the engine reads like the kernel's (`filemap_read` -> `page_cache_sync_ra` ->
//! `filemap_add_folio` -> `mem_cgroup_charge` -> `try_to_free_mem_cgroup_pages` -> ...).

use crate::blkdev::BlockDevice;
use crate::filemap::AddressSpace;
use crate::fs::Inode;
use crate::memcontrol::{CgroupVersion, MemcgTree};
use crate::mm_types::PageArena;
use crate::mmzone::Lruvec;
use crate::page_alloc::{Node, Zone};
use crate::profile::{CpuCost, KernelProfile, Policies};
use crate::types::{InodeId, MemcgId, Nanos};
use crate::vmstat::VmStat;

/// I/O done on behalf of the running context (`/proc/<pid>/io` read_bytes/write_bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct IoAcct {
    /// Bytes this context caused to be read from block devices.
    pub read_bytes: u64,
    /// Bytes this context caused to be written to block devices.
    pub write_bytes: u64,
    /// Pages found in the page cache.
    pub hits: u64,
    /// Pages not found in the page cache.
    pub misses: u64,
}

/// [`Kernel::vmpressure_works`]' slot of the windows whose kworker preempted the task at once.
pub const VMP_WORK_PREEMPTED: usize = 0;
/// [`Kernel::vmpressure_works`]' slot of the windows whose work stayed pending behind the task.
pub const VMP_WORK_KEPT: usize = 1;
/// [`Kernel::vmpressure_works`]' slot of the windows swallowed by a work still pending.
pub const VMP_WORK_SWALLOWED: usize = 2;

/// The whole simulated kernel.
#[derive(Debug)]
pub struct Kernel {
    /// The kernel era being modelled.
    pub profile: KernelProfile,
    /// Seed mechanisms switched on.
    pub policies: Policies,
    /// CPU cost table.
    pub cost: CpuCost,
    /// The virtual clock of the context that is running (a task during its syscall, or kswapd).
    pub now: Nanos,
    /// System CPU time accumulated by the running context.
    pub sys_ns: Nanos,
    /// Time the running context spent waiting for I/O.
    pub iowait_ns: Nanos,
    /// I/O accounting of the running context.
    pub io: IoAcct,
    /// `mem_map`: every page frame.
    pub pages: PageArena,
    /// One lruvec per (memcg, node); index = memcg index * nodes + node
    /// ([`Kernel::lruvec_idx`]). Uncharged pages sit on the root's.
    pub lruvecs: Vec<Lruvec>,
    /// The lruvecs' hierarchical LRU sizes (`lruvec_stats`), one entry per lruvec.
    pub lru_stats: crate::mmzone::LruvecStats,
    /// Global reclaim's index of the memcgs its walk would visit to some effect
    /// ([`crate::vmscan::WalkIndex`]).
    pub walk_index: crate::vmscan::WalkIndex,
    /// Global reclaim walks every memcg instead of using `walk_index` (unit tests compare the
    /// two).
    #[cfg(test)]
    pub(crate) walk_index_off: bool,
    /// The memory cgroup hierarchy.
    pub memcgs: MemcgTree,
    /// The page cache of each inode; index = inode index.
    pub mappings: Vec<AddressSpace>,
    /// Files.
    pub inodes: Vec<Inode>,
    /// Directories (fs.rs): `/` first, parents before their children.
    pub dirs: Vec<crate::fs::Directory>,
    /// Directory paths to ids, for path lookup (`lookup_fast()` of the walk, in spirit).
    pub dir_index: std::collections::BTreeMap<String, crate::types::DirId>,
    /// Block devices.
    pub devices: Vec<BlockDevice>,
    /// Every zone of every node, node by node, lowest zone first (PFN order).
    pub zones: Vec<Zone>,
    /// The per-CPU page lists (`zone->per_cpu_pageset`, 6.7+): CPU by CPU, zone by zone
    /// ([`crate::page_alloc::PerCpuPages`]).
    pub pcps: Vec<crate::page_alloc::PerCpuPages>,
    /// The CPU of the running context, whose lists in `pcps` it uses (`Kernel::task_cpu`,
    /// `Kernel::kswapd_cpu`); `u32::MAX` before the scheduler names one (CPU 0).
    pub pcp_ctx: u32,
    /// Per CPU, its `cpu_fbatches.lru_add` batch (swap.rs [`crate::swap::FolioBatch`];
    /// `KernelProfile::lru_add_batch`), one per CPU from the machine's setup.
    pub lru_add_fbatches: Vec<crate::swap::FolioBatch>,
    /// When every CPU's next `vmstat_update()` runs `decay_pcp_high()` (each second).
    pub pcp_next_decay: Nanos,
    /// The earliest time at which an allocation's five "anything due?" tests
    /// (`alloc_pages()`: owed page-cache slab frames, `writeback_end_io()`, `swap_end_io()`,
    /// `kswapd_catch_up()`, `pcp_decay_due()`) may find work: a lower bound, so that before it
    /// the allocation makes one comparison with the clock and skips the five (issue 17).
    /// Recomputed from their state after they run ([`Kernel::alloc_due_next`]); each producer
    /// lowers it when it schedules something: `pagecache_slab_alloc()` (0 when frames are
    /// owed), the two completion queues' pushes (the completion's time), `kswapd_start()` (0)
    /// and kswapd's short sleep (its end). 0 at boot: the first allocation computes it.
    pub alloc_due: Nanos,
    /// The lists in `pcps` that `decay_pcp_high()` may change: used since their `high` was
    /// last at its floor (`PerCpuPages::queued`).
    pub pcp_active: Vec<u32>,
    /// `NODE_DATA()`: per node its zones, zonelist, zonelist cache and kswapd.
    pub nodes: Vec<Node>,
    /// The node the running context allocates for (`numa_node_id()`).
    pub cur_nid: u32,
    /// `current->flags & PF_MEMALLOC_NOFS` of the running context: set by readahead's
    /// `memalloc_nofs_save()` (5.8+, `KernelProfile::readahead_memalloc_nofs`) until its
    /// `memalloc_nofs_restore()`; `current_gfp_context()` then clears `__GFP_FS` from the
    /// reclaim it enters ([`crate::vmscan::ScanControl::gfp_io_fs`]).
    pub memalloc_nofs: bool,
    /// The node kswapd is balancing while it runs (`None`: reclaim of every node).
    pub reclaim_nid: Option<u32>,
    /// /proc/vmstat and /proc/meminfo counters.
    pub vmstat: VmStat,
    /// Pages charged while some memcg was above memory.high during the running syscall
    /// (`current->memcg_nr_pages_over_high`).
    pub nr_pages_over_high: u64,
    /// Every CPU's charge stock (`memcg_stock_pcp`, [`crate::memcontrol::MemcgStock`]), CPU by
    /// CPU: the running context's is that of `pcp_ctx` ([`Kernel::stock_cpu`]); a charge
    /// takes from it and refills it ([`Kernel::try_charge_memcg`]), whatever task runs there.
    pub memcg_stock: Vec<crate::memcontrol::MemcgStock>,
    /// The running task's dirty throttling state (`current->nr_dirtied`, `nr_dirtied_pause`,
    /// `dirty_paused_when`, its CPU's `bdp_ratelimits`); saved per task.
    pub task_dirty: crate::page_writeback::TaskDirty,
    /// `ratelimit_pages` (`writeback_set_ratelimit()`).
    pub ratelimit_pages: u64,
    /// Per writeback domain key, the wb's bandwidth estimates and its domain's dirty limit.
    pub wb_bw: Vec<crate::page_writeback::WbBandwidth>,
    /// What the `writeback:balance_dirty_pages` tracepoint reported so far.
    pub bdp_trace: crate::page_writeback::BdpTrace,
    /// Every `writeback:balance_dirty_pages` event, when a caller sets it to `Some` (a debug
    /// log for comparisons with the kernel's tracepoint; `None`, nothing kept, by default).
    pub bdp_log: Option<Vec<crate::page_writeback::BdpEvent>>,
    /// Time the running context spent stalled on memory in this quantum (psi.rs), ns.
    pub memstall_ns: Nanos,
    /// Nesting of `psi_memstall_enter()` in the running context.
    pub memstall_depth: u32,
    /// When the running context's outermost memory stall began.
    pub memstall_start: Nanos,
    /// The running context's stall frames and per-kind stall times this quantum
    /// (delayacct.rs; the source of the `stall.*_ms` metrics and of `memstall_ns`).
    pub stall: crate::delayacct::StallAcct,
    /// kswapd's own CPU time.
    pub kswapd_ns: Nanos,
    /// Wall-clock nanoseconds per nanosecond of CPU time of the running context, in units of
    /// [`SCHED_CAPACITY_SCALE`]: the CPU share CFS gives it among the runnable contexts
    /// ([`cfs_stretch`]); [`SCHED_CAPACITY_SCALE`] (a CPU of its own) outside a task's quantum
    /// or kswapd's run.
    pub cpu_stretch: u64,
    /// The running context's wait for a CPU in this quantum (the part of its `cpu()` time's
    /// wall-clock length that [`Kernel::cpu_stretch`] adds): schedstat's `run_delay`.
    pub runq_ns: Nanos,
    /// The machine's other runnable tasks, outside the scenario (`[machine]
    /// background_runnable`, units of [`SCHED_CAPACITY_SCALE`]): CPU-bound tasks that want a
    /// CPU beside the scenario's. 0: none.
    pub bg_load: u64,
    /// Where CFS shares the CPUs by autogroup (`[machine] sched_autogroup`): the background's
    /// root-level entities and the others in the scenario's own autogroup (units of
    /// [`SCHED_CAPACITY_SCALE`], [`autogroup_stretch`]); None: by task ([`cfs_stretch`]).
    pub bg_autogroup: Option<(u64, u64)>,
    /// The running task's wall-clock nanoseconds per nanosecond of CPU time beyond the slice it
    /// woke with (units of [`SCHED_CAPACITY_SCALE`]): its CFS share beside the other tasks and
    /// the background ([`cfs_stretch`] of both); [`Kernel::cpu_stretch`] outside a task's
    /// quantum or without a background.
    pub bg_stretch: u64,
    /// The wall-clock slice a woken task runs before it can be preempted
    /// ([`crate::sched::sched_slice_ns`]).
    pub sched_slice: Nanos,
    /// CPU time the running task has left of the slice it woke with: its first
    /// [`Kernel::sched_slice`] of CPU after a wake-up runs unpreempted by the background (it
    /// waited for the CPU at the wake-up, [`Kernel::ttwu_fair_wait`]).
    pub slice_left: Nanos,
    /// The run queue a woken task meets beside the background under EEVDF
    /// ([`crate::sched::BusyRq`]); None under CFS (6.1) or without a background.
    pub eevdf_rq: Option<crate::sched::BusyRq>,
    /// The running task's EEVDF lag (`avg_vruntime() - vruntime` of its top-level entity on its
    /// CPU's root run queue, ns of virtual time) while [`Kernel::eevdf_rq`] is set: what its
    /// wake-up waits gave it, and its CPU time and waits beside the others ([`crate::sched::BusyRq::run_lag`]), less what
    /// the loop worker its reads wake ([`Kernel::loop_worker_woken`]) took; saved across its
    /// sleeps (`update_entity_lag()`, PLACE_LAG).
    pub eevdf_lag: i64,
    /// One run of the loop device's work ([`crate::hostcal::HostCost::loop_worker_run`]): what a
    /// task waits when the loop worker its read woke takes its CPU
    /// ([`crate::sched::loop_worker_wait`]); None: never.
    pub loop_worker_run: Option<Nanos>,
    /// The runner's sampler's CPUs ([`crate::hostcal::HostCost::runner_sampler`], units of
    /// [`SCHED_CAPACITY_SCALE`]).
    pub runner_sampler: u64,
    /// The running task's wait behind the loop worker its read woke, due at its return to user
    /// space unless it sleeps first ([`Kernel::loop_worker_woken`], [`Kernel::loop_worker_resched`]).
    pub loop_worker_pending: Nanos,
    /// The switch to and run of a memcg's vmpressure work on the reclaiming task's CPU
    /// ([`crate::hostcal::HostCost::vmpressure_work_run`], kwork23c): what the task waits when
    /// the work its reclaim queued takes its CPU ([`Kernel::vmpressure_tree`]); None: never.
    pub vmpressure_work_run: Option<Nanos>,
    /// `CpuCost::shrink_list_call` of a memcg reclaim, one per `[machine] reclaim_call_spans`
    /// sample, each drawn for a whole `try_to_free_mem_cgroup_pages()` (reclaim21,
    /// [`Kernel::draw_reclaim_call`]); empty: the cost table's one figure.
    pub reclaim_call_draws: Vec<Nanos>,
    /// The state of the draws from `reclaim_call_draws` (seeded per boot).
    pub reclaim_call_rand: u64,
    /// The running task's wait behind a bound kworker queued on its CPU that did not take it at
    /// once (review49 L1, [`crate::sched::bound_worker_deferred`]): due at the end of its protected
    /// slice ([`Kernel::cpu_wall`]), dropped when it sleeps first ([`Kernel::wait_until`]).
    pub bound_worker_deferred: Nanos,
    /// CPU time the running task has left of its protected slice while
    /// [`Kernel::bound_worker_deferred`] is pending ([`Kernel::bound_worker_tick`]).
    pub bound_worker_slice: Nanos,
    /// The first tick at or after the end of that protected slice, once its CPU time has used it
    /// up (`jiffies` boundaries of the engine's clock, [`crate::timer::NSEC_PER_JIFFY`]): when
    /// [`Kernel::bound_worker_deferred`] is charged ([`Kernel::bound_worker_tick`]); 0 while the
    /// slice lasts.
    pub bound_worker_tick_at: Nanos,
    /// The memcg (index) whose vmpressure work [`Kernel::bound_worker_deferred`] is: its run
    /// takes that memcg's [`Kernel::vmpressure_tree_scanned`] back to 0
    /// ([`Kernel::vmpressure_work_ran`]).
    pub bound_worker_memcg: u32,
    /// The running task's CPU's root run queue as its bound kworker meets it (elig55, EEVDF:
    /// [`crate::fair::BoundRq`]): the kworker's lag and the task's deadline and `vprot`, kept with
    /// the task between its quanta. Used with [`Kernel::vmpressure_work_run`] on an EEVDF profile.
    pub bound_rq: crate::fair::BoundRq,
    /// The running task's CPU time (system and user) at its quantum's start: with
    /// [`Kernel::sys_ns`] its CPU time now ([`Kernel::task_vruntime`]).
    pub task_cpu_base: Nanos,
    /// The task's mean run from a preempting kworker wake-up to its switch-out (`[machine]
    /// preempt_resched_runs` / `preempt_resched_run`, pre23's traced runs; 0 without): at its
    /// next `cond_resched()` under the host's preempt=none, its vruntime's part of the run before
    /// the stale clock's ([`Kernel::preempt_stale`]) and what the kworker's lag gets from it
    /// ([`crate::fair::BoundRq::kworker_ran`]).
    pub preempt_resched: Nanos,
    /// The run of the write completion's work after it wakes a task (`[machine] end_io_work_run`,
    /// [`crate::hostcal::HostCost::end_io_work_run`], wake23): what a task woken by it waits when
    /// it lands on the kworker's CPU ([`crate::sched::end_io_wakee_wait`]); None: never.
    pub end_io_work_run: Option<Nanos>,
    /// The stale interval schedstat's `run_delay` counts at each kworker wake-up preemption of the
    /// running task (pre23): the mean stale clock of the traced runs from the kworker's wake-up to
    /// the task's switch-out (`[machine] preempt_resched_runs` / `preempt_resched_run`,
    /// [`crate::sched::wakeup_preempt_stale_mean`]); None: never.
    pub preempt_stale: Option<Nanos>,
    /// A task's vmpressure windows ([`Kernel::vmpressure_tree`]) by what became of their work
    /// (lag56, counted for the engine's statistics, `EngineStats::vmpressure_works`), in the slots
    /// [`VMP_WORK_PREEMPTED`] (its kworker preempted the task at once), [`VMP_WORK_KEPT`] (it
    /// stayed pending behind the task) and [`VMP_WORK_SWALLOWED`] (the window came while the work
    /// was still pending: `queue_work()` false, swallowed into that one run).
    pub vmpressure_works: [u64; 3],
    /// The running task's sleep about to start ([`Kernel::wait_until`]) is ended by a write
    /// completion's `folio_end_writeback()` (set by [`Kernel::woken_by_end_io`], taken by the sleep).
    pub end_io_wake: bool,
    /// sis23 (review51 M4): the running task's fellow tasks' expected runnable weight at its
    /// quantum's start (units of [`SCHED_CAPACITY_SCALE`]: the scenario's other tasks by their present
    /// quanta's runnable fractions, those that left the run queue since, and the awake kswapds),
    /// as sched.rs `enter()` reads it for the task's CFS share; 0 between quanta. What keeps the
    /// other CPUs busy at a write completion's wake-up beside the background and the sampler
    /// ([`crate::sched::end_io_wakee_wait`]).
    pub rq_tasks: u64,
    /// sis23: the running task's own part of the LLC's utilisation ([`crate::sched::nr_idle_scan`]):
    /// its `util_avg` at its quantum's start ([`Kernel::task_util_update`]), units of
    /// [`SCHED_CAPACITY_SCALE`]; 0 between quanta.
    pub rq_own: u64,
    /// sis23: per task (by index), its PELT `util_avg` (units of `SCHED_CAPACITY_SCALE <<
    /// crate::sched::LOAD_PRECISION_SHIFT`), the clock it was brought up to, and its CPU time then.
    pub task_util: Vec<(u64, Nanos, Nanos)>,
    /// Each memcg's `vmpr->tree_scanned` (mm/vmpressure.c), by memcg index, grown as memcgs
    /// reclaim ([`Kernel::vmpressure_tree`]); empty without [`Kernel::vmpressure_work_run`].
    pub vmpressure_tree_scanned: Vec<u64>,
    /// Set while a task's quantum runs (sched.rs `enter()` to `leave()`): the context the
    /// background competes with ([`Kernel::bg_load`]).
    pub in_task: bool,
    /// The tasks' weights on the run queue summed ([`crate::sched::quantum_runnable_weight`],
    /// units of `SCHED_CAPACITY_SCALE << crate::sched::LOAD_PRECISION_SHIFT`): how many tasks
    /// want a CPU at the running task's instant, an expectation over the other tasks' present
    /// quanta.
    pub task_load_sum: u64,
    /// The weights of the tasks that left the run queue at a clock later than the running
    /// context's instant, summed (sched.rs `Simulation::departed`): still runnable then by their
    /// last quanta's fractions. Kept by the scheduler (pruned to each quantum's clock); read with
    /// [`Kernel::task_load_sum`] by every context that takes its CFS share: the running task
    /// (sched.rs `enter()`) and kswapd ([`Kernel::kswapd_run`], review51 L4).
    pub departed_load_sum: u64,
    /// kswapd's waits for a CPU while awake (every node's): schedstat's `run_delay` of the
    /// kswapd threads.
    pub kswapd_runq_ns: Nanos,
    /// Set while kswapd is the running context.
    pub in_kswapd: bool,
    /// Set while 6.1's zswap shrink worker, a kworker, is the running context
    /// ([`Kernel::zswap_shrink_worker_due`]).
    pub in_zswap_worker: bool,
    /// [`Kernel::cpu`]'s test, kept: `((cpu_stretch == SCHED_CAPACITY_SCALE && bg_stretch ==
    /// SCHED_CAPACITY_SCALE) || in_zswap_worker) && vcpu_stalls.is_none() &&
    /// bound_worker_deferred == 0` (the running context's CPU time is its wall-clock time, no
    /// vCPU stall can hold it back and no deferred bound-kworker wait counts it). Set by
    /// [`Kernel::cpu_plain_update`] after every write of the five; `cpu()` reads one flag
    /// instead of five fields, about six times a page event of a limit reclaim and three times
    /// a page-cache hit (issue 17). Not part of the model: a copy of the five fields' test.
    pub(crate) cpu_plain: bool,
    /// [`Kernel::cpu`]'s one compare, kept: [`Kernel::stats_flush_next`] while
    /// [`Kernel::cpu_plain`] holds, else 0. A `cpu()` that leaves the clock before it only
    /// moves the clock; any other (a stretched or stalled context, or the clock reaching the
    /// stats flush) takes the flag's test and the full path. Set by
    /// [`Kernel::cpu_fast_update`] after every write of either (issue 17: in the plain
    /// context one compare instead of the flag's test and the flush's). Not part of the model.
    pub(crate) cpu_fast_until: Nanos,
    /// A switch for tests (the property tests set it; off in every run): each charge that
    /// takes `try_charge_memcg()`'s one-walk fast path (`charge_fits_at_once()`) and each
    /// order-0 allocation that takes `get_page_from_freelist_order0()` also makes the general
    /// path's decision from the same state, and a disagreement panics
    /// ([`Kernel::check_charge_fast_path`], [`Kernel::check_freelist_order0`]). The fast
    /// paths are otherwise held to the general ones only by the output hashes.
    pub check_fast_paths: bool,
    /// A switch for tests (the property tests set it; off in every run): every anonymous
    /// fault taken by `handle_mm_fault()` alone (no fault run, [`Kernel::handle_mm_fault_run`]),
    /// every page munmap zaps unlinked from its LRU list and freed by `free_page()` alone (no
    /// segment, no pageblock bitmap): the one-at-a-time path the runs are held to.
    pub one_at_a_time: bool,
    /// While kswapd runs ([`Kernel::kswapd_run`]): the shared clock it is catching up with
    /// (the interrupted context's). Its pass of the memcg LRU stops there
    /// (`Node::kswapd_pass`).
    pub kswapd_until: Nanos,
    /// The running task's sleeps and their restart (sched.rs [`crate::sched::Resched`]): when
    /// a sleep may end the quantum, and the wake-up of the one that did.
    pub resched: crate::sched::Resched,
    /// Inodes with dirty pages, oldest first: the bdi's `b_dirty` list, with the inodes also
    /// on [`Kernel::b_io`] or [`Kernel::b_more_io`] (not on the kernel's `b_dirty` then).
    pub dirty_inodes: crate::page_writeback::DirtyInodes,
    /// The wbs' `b_io` lists: the inodes the flusher's current pass takes, next first
    /// (`queue_io()` fills them; fs/fs-writeback.c).
    pub b_io: crate::page_writeback::WbIoList,
    /// The wbs' `b_more_io` lists: inodes whose chunk used up the flusher's slice with pages
    /// left (`requeue_io()`), spliced into `b_io` by the next `queue_io()` of any work.
    pub b_more_io: crate::page_writeback::WbIoList,
    /// Per inode, the memcg whose writeback domain (`bdi_writeback`) it belongs to
    /// (`inode_attach_wb()`: the memcg of the task that first dirtied it; cgroup v2, 4.2+);
    /// `MemcgId::NONE` until then, or where cgroup writeback does not apply.
    pub inode_wb: Vec<MemcgId>,
    /// Scratch list for memcg iteration, kept to avoid allocating in reclaim.
    pub(crate) scratch_memcgs: Vec<MemcgId>,
    /// Writeback completions (time, pages) in time order, reused by
    /// [`Kernel::reclaim_throttle_writeback_until`] (no allocation per throttle).
    pub(crate) scratch_completions: Vec<(Nanos, u64)>,
    /// `prepare_scan_count()`'s figures per node for the reclaim pass under way.
    pub(crate) scan_prep: Vec<crate::vmscan::ScanPrep>,
    /// `current->reclaim_state->mm_walk` is set: the reclaimer running has a page-table walk
    /// context (kswapd always; direct reclaim once its aging allocated one, until the end of
    /// `lru_gen_shrink_lruvec()`), so `lru_gen_look_around()` updates generations in place.
    pub(crate) lru_gen_mm_walk: bool,
    /// The running task (`current->mm`), set by the scheduler: which mm a new mapping joins
    /// and whose `lru_gen` bitmap a context switch sets (`u32::MAX`: none).
    pub cur_mm: u32,
    /// `current->in_lru_fault` (6.1 `lru_gen_enter_fault()`): a fault of a mapping that is
    /// neither `VM_SEQ_READ` nor `VM_RAND_READ` is running, under the multi-generational LRU.
    pub(crate) lru_gen_in_fault: bool,
    /// `pgdat->memcg_lru` of each node (6.3+ `struct lru_gen_memcg`), under the
    /// multi-generational LRU with `KernelProfile::lru_gen_memcg_lru`.
    pub memcg_lru: Vec<crate::lru_gen::LruGenMemcg>,
    /// The state of the pseudo-random numbers standing for `get_random_u32_below()` where
    /// the memcg LRU picks a bin (xorshift64, fixed start: runs are reproducible).
    pub memcg_lru_rand: u64,
    /// The machine's cross-CPU wake-up latency samples (`[machine] wakeup_latency`), from
    /// which each wake-up of a sleeping kswapd draws how long it waits to run; empty: at once.
    pub wakeup_latency: Vec<Nanos>,
    /// The state of the pseudo-random numbers drawing from `wakeup_latency` (xorshift64, seeded
    /// per boot from `kernel.boot_seed` apart from `memcg_lru_rand`, whose draws it leaves alone).
    pub wakeup_rand: u64,
    /// How long a CPU-bound kworker that `queue_work()` wakes waits to run, as samples
    /// (`[machine] kworker_wakeup_latency`; 6.1's zswap shrink worker); empty: at once.
    pub kworker_wakeup_latency: Vec<Nanos>,
    /// The state of the pseudo-random numbers drawing from `kworker_wakeup_latency`, apart from
    /// `wakeup_rand` so that kswapd's draws do not depend on it.
    pub kworker_rand: u64,
    /// The machine's vCPU stalls (`[machine] vcpu_stall`, vcpu_stall.rs); none: the vCPUs always
    /// run. Private to this module (review16 M2): set only by [`Kernel::set_vcpu_stalls`], which
    /// keeps [`Kernel::cpu_plain`]; read by [`Kernel::vcpu_stalls`], their state changed by
    /// [`Kernel::vcpu_stalls_mut`] and [`Kernel::with_vcpu_stalls`] (none of which can add or
    /// remove them).
    vcpu_stalls: Option<Box<crate::vcpu_stall::VcpuStalls>>,
    /// When the next periodic memcg statistics flush (`flush_memcg_stats_dwork()`) falls due,
    /// on profiles whose reclaim reads the flushed copy
    /// (`KernelProfile::memcg_stats_ratelimited_reclaim`); `Nanos::MAX` on the others.
    pub stats_flush_next: Nanos,
    /// The periodic flusher's runs so far, 1 from its start (the rstat copy's period number).
    pub stats_flush_epoch: u64,
    /// The task (its mm's index) the OOM killer chose and marked (`mark_oom_victim()`) that
    /// has not exited yet; the scheduler kills it (oom_kill.rs).
    pub oom_victim: Option<u32>,
    /// The OOM killer's view of each task (by task index, on every profile): alive (a
    /// candidate of `select_bad_process()`) and its memcg (oom_kill.rs).
    pub oom_tasks: Vec<crate::oom_kill::OomTask>,
    /// Tasks an allocation's OOM kill ended in the kernel (their mappings freed, their exit
    /// done) whose SIGKILL the scheduler has yet to deliver (end their step as killed).
    pub oom_killed: Vec<u32>,
    /// `select_bad_process()`'s scratch: each task's `oom_badness()` (sized at task creation).
    pub oom_points: Vec<u64>,
    /// `mm->lru_gen` of each task (by task index), under the multi-generational LRU.
    pub lru_gen_mms: Vec<crate::lru_gen::LruGenMm>,
    /// `memcg->mm_list` (by memcg index): the tasks' mms in the order they joined.
    pub lru_gen_mm_lists: Vec<Vec<u32>>,
    /// The mm of each VMA (by VMA index; `u32::MAX`: none).
    pub lru_gen_vma_mm: Vec<u32>,
    /// The `shadow_nodes` list_lru, one list per memcg (index = memcg index).
    pub shadow_nodes: Vec<crate::workingset::ShadowNodeList>,
    /// Where the last shared-iterator reclaim walk of each target stopped
    /// (`mz->iter.position`), index = target memcg, then priority up to 5.4
    /// (`mz->iter[priority]`) or slot 0 (6.11+); `MemcgId::NONE` = at the start.
    pub reclaim_iter: Vec<[MemcgId; crate::vmscan::DEF_PRIORITY as usize + 1]>,
    /// Mounted file systems, each with its two memcg-aware list_lrus.
    pub superblocks: Vec<crate::list_lru::SuperBlock>,
    /// `nr_cpu_ids`: possible CPUs, each with a copy of every percpu allocation.
    pub nr_cpu_ids: u32,
    /// Page-cache tree nodes allocated so far (one in `slub_order()`'s objects-per-slab
    /// needs a new slab page).
    pub radix_nodes_allocated: u64,
    /// NUMA nodes (`nr_node_ids`).
    pub nr_nodes: u32,
    /// RAM in pages (`node_present_pages()` summed over the nodes).
    pub present_pages: u64,
    /// Kernel memory outside the page cache: /proc/meminfo `Percpu` and `Slab`.
    pub kmem: crate::slab::KmemStat,
    /// Page accesses simulated (hits + misses + writes), for the benchmark.
    pub page_events: u64,
    /// `transparent_hugepage/enabled` = always.
    pub thp_enabled: bool,
    /// /sys/kernel/mm/transparent_hugepage/shmem_enabled (`shmem_huge`, mm/shmem.c).
    pub shmem_huge: crate::shmem::ShmemHuge,
    /// tmpfs huge pages: vmstat events and `NR_SHMEM_THPS` (shmem.rs).
    pub shmem_stat: crate::shmem::ShmemStat,
    /// Write requests in flight: (completion time, inode, first page, pages), earliest first.
    pub wb_queue: std::collections::BinaryHeap<std::cmp::Reverse<(Nanos, u32, u32, u32)>>,
    /// Per frame, the completion time of the write request it is in (valid while
    /// `PG_writeback`).
    pub wb_done: Vec<Nanos>,
    /// Write requests already ended by `writeback_end_io`: (completion time, pages), in time
    /// order, kept until the scheduler's horizon passes them (`blk_retire`). A context whose
    /// clock is behind the one that ended them (a task that runs after a sleeper woke past its
    /// clock, ARCHITECTURE.md "The clock") still sees them complete after its own clock:
    /// `reclaim_throttle()`'s wake-up counts them.
    pub wb_ended: std::collections::VecDeque<(Nanos, u64)>,
    /// `reclaim_throttle()` calls that slept (5.16+), per `enum vmscan_throttle_state`
    /// ([`crate::vmscan::VmscanThrottle`]): the `vmscan:mm_vmscan_throttled` tracepoint's
    /// events by `reason` (no vmstat counts them); the `vmscan.throttled.<reason>` metrics.
    pub vmscan_throttled: [u64; crate::vmscan::NR_VMSCAN_THROTTLE],
    /// Armed periodic-writeback timers (`wb->dwork` queued by `wb_wakeup_delayed()`): (when,
    /// writeback domain key: 0 the root wb, memcg index + 1 a memcg's), earliest first.
    pub wb_timers: std::collections::BinaryHeap<std::cmp::Reverse<(Nanos, u32)>>,
    /// Per writeback domain key, whether its timer is armed (`delayed_work_pending()`).
    pub wb_timer_armed: Vec<bool>,
    /// The flusher's work while blk-wbt holds it (page_writeback.rs [`crate::page_writeback::FlusherWork`]).
    pub flusher: crate::page_writeback::FlusherWork,
    /// The root wb's `dirty_sleep`: when a task last slept in `balance_dirty_pages()` against it
    /// (blk-wbt's `wb_recent_wait()`); `None`: never.
    pub wb_dirty_sleep: Option<Nanos>,
    /// Per writeback domain key, its dirty pages (`WB_RECLAIMABLE`).
    pub wb_dirty: Vec<u64>,
    /// Per writeback domain key, its write completions in the global domain
    /// (`wb->completions`).
    pub wb_completions: Vec<crate::flex_proportions::FpropLocal>,
    /// The global writeback domain's completions (`global_wb_domain.completions`) and when its
    /// period timer fires next (`period_time`; 0: off).
    pub wb_domain: (crate::flex_proportions::FpropGlobal, Nanos),
    /// The readahead batch being built (`page_cache_ra_unbounded()`): its pages are locked
    /// although their read is not submitted yet (inode, first index, end).
    pub ra_pending: Option<(InodeId, u32, u32)>,
    /// The root file system on the devices has superblock features that keep its files at
    /// order 0 (`[machine] fs_features`: ext4's verity or encrypt).
    pub root_fs_order0: bool,
    /// The folio a `read()` holds a reference on while it starts asynchronous readahead
    /// (inode, first index, end): reclaim keeps it (`filemap_get_read_batch()`).
    pub read_pinned: Option<(InodeId, u32, u32)>,
    /// The swap area (`swapon`), if the machine has one.
    pub swap: Option<crate::swapfile::SwapArea>,
    /// The per-CPU swap slots caches (`swp_slots`, 4.11-6.14: `KernelProfile::swap_slots_cache`),
    /// one per CPU from the machine's setup, none without swap or on other eras.
    pub swap_slots: crate::swap_slots::SwapSlotsCache,
    /// zswap in front of the swap area (`[machine] zswap`), `None` when not configured.
    pub zswap: Option<crate::zswap::Zswap>,
    /// Swap writes in flight: (completion time, frame), earliest first.
    pub swap_wb_queue: std::collections::BinaryHeap<std::cmp::Reverse<(Nanos, u32)>>,
    /// The large swap-cache folios whose head page a swap-in fault of 4.14-6.7 copied
    /// (swapfile.rs `do_swap_page_copy()`): (the VMA, the head's page index in it, the folio's
    /// head frame, its first slot). The kernel maps the head page itself, so zapping that PTE
    /// frees the folio (`free_swap_cache()`) once no swap PTE names it; the engine does it at
    /// the VMA's munmap ([`Kernel::free_copied_swapcache_folios`]).
    pub swapcache_head_copies: Vec<(crate::memory::VmaId, u32, crate::types::PageId, u32)>,
    /// The running reclaim's plug of swap writes (`current->plug` between `blk_start_plug()`
    /// and `blk_finish_plug()` in `shrink_lruvec()`), and the pages of its requests in order
    /// (swapfile.rs `blk_flush_plug`).
    pub swap_plug: crate::blkdev::BlkPlug,
    /// `PF_MEMALLOC` of the running context where the engine needs it: a charge forces its
    /// way past the limit instead of reclaiming (zswap's writeback from `shrink_memcg()`).
    pub pf_memalloc: bool,
    /// The pages of the plug's requests, in the order they were added.
    pub swap_plug_pages: Vec<crate::types::PageId>,
    /// The plug of the context [`Kernel::kswapd_run`] is not running: the interrupted task's
    /// while kswapd runs (`current->plug` is per task: kswapd's reclaim neither joins nor
    /// flushes the task's), kswapd's own (empty, its capacity kept) otherwise.
    pub other_swap_plug: (crate::blkdev::BlkPlug, Vec<crate::types::PageId>),
    /// The last order-0 `get_page_from_freelist()` walk at the low watermark, when it changed
    /// nothing but its zone's counters (set by the walk, taken by the anonymous fault).
    pub freelist_walk: Option<crate::page_alloc::FreelistWalk>,
    /// An allocation took a frame from a zone flagged `ZONE_BOOSTED_WATERMARK`: `rmqueue()`'s
    /// wake-up of kswapd, done when the allocation returns (page_alloc.rs `boost_wake_kswapd()`).
    pub boost_wake: bool,
    /// Anonymous mappings (VMAs); index = `VmaId`.
    pub vmas: Vec<crate::memory::Vma>,
    /// Unmapped VMA entries, reused first.
    pub free_vmas: Vec<crate::memory::VmaId>,
}

impl Kernel {
    /// A kernel with `ram_pages` of RAM of which `reserved_pages` are taken by the kernel itself.
    pub fn new(profile: KernelProfile, policies: Policies, version: CgroupVersion, ram_pages: u64, reserved_pages: u64) -> Kernel {
        let managed = ram_pages.saturating_sub(reserved_pages);
        let lru_gen = profile.lru_gen;
        let events_recursive = profile.memory_events_recursive;
        let mut k = Kernel {
            profile,
            policies,
            cost: CpuCost::reference(),
            now: 0,
            sys_ns: 0,
            iowait_ns: 0,
            io: IoAcct::default(),
            pages: PageArena::with_capacity(0),
            lruvecs: vec![Lruvec::new(0, lru_gen, 0)],
            lru_stats: {
                let mut st = crate::mmzone::LruvecStats::default();
                st.push(None);
                st
            },
            walk_index: crate::vmscan::WalkIndex::new(),
            #[cfg(test)]
            walk_index_off: false,
            memcgs: {
                let mut t = MemcgTree::new(version);
                t.memory_events_recursive &= events_recursive;
                t
            },
            mappings: vec![],
            inodes: vec![],
            dirs: vec![crate::fs::Directory::root()],
            dir_index: [("/".to_string(), crate::types::DirId::ROOT)].into_iter().collect(),
            devices: vec![],
            zones: vec![],
            pcps: vec![],
            pcp_ctx: u32::MAX,
            lru_add_fbatches: vec![crate::swap::FolioBatch::default()],
            pcp_next_decay: crate::page_alloc::STAT_INTERVAL,
            alloc_due: 0,
            pcp_active: vec![],
            nodes: vec![],
            cur_nid: 0,
            memalloc_nofs: false,
            reclaim_nid: None,
            vmstat: VmStat::default(),
            nr_pages_over_high: 0,
            memcg_stock: vec![crate::memcontrol::MemcgStock::default()],
            task_dirty: Default::default(),
            ratelimit_pages: 0,
            wb_bw: vec![],
            bdp_trace: Default::default(),
            bdp_log: None,
            memstall_ns: 0,
            memstall_depth: 0,
            memstall_start: 0,
            stall: Default::default(),
            kswapd_ns: 0,
            cpu_stretch: SCHED_CAPACITY_SCALE,
            runq_ns: 0,
            bg_load: 0,
            bg_autogroup: None,
            bg_stretch: SCHED_CAPACITY_SCALE,
            sched_slice: 0,
            slice_left: 0,
            eevdf_rq: None,
            eevdf_lag: 0,
            loop_worker_run: None,
            runner_sampler: 0,
            loop_worker_pending: 0,
            bound_worker_deferred: 0,
            bound_worker_slice: 0,
            bound_worker_tick_at: 0,
            bound_worker_memcg: 0,
            bound_rq: crate::fair::BoundRq::new(0, 0),
            task_cpu_base: 0,
            preempt_resched: 0,
            vmpressure_work_run: None,
            end_io_work_run: None,
            preempt_stale: None,
            vmpressure_works: [0; 3],
            end_io_wake: false,
            rq_tasks: 0,
            rq_own: 0,
            task_util: Vec::new(),
            reclaim_call_draws: vec![],
            reclaim_call_rand: crate::lru_gen::MEMCG_LRU_RAND_SEED,
            vmpressure_tree_scanned: Vec::new(),
            in_task: false,
            task_load_sum: 0,
            departed_load_sum: 0,
            kswapd_runq_ns: 0,
            in_kswapd: false,
            in_zswap_worker: false,
            cpu_plain: true,
            cpu_fast_until: Nanos::MAX,
            check_fast_paths: false,
            one_at_a_time: false,
            kswapd_until: 0,
            dirty_inodes: crate::page_writeback::DirtyInodes::new(),
            b_io: Default::default(),
            b_more_io: Default::default(),
            inode_wb: vec![],
            scratch_memcgs: vec![],
            scratch_completions: vec![],
            scan_prep: vec![],
            lru_gen_mm_walk: false,
            cur_mm: u32::MAX,
            lru_gen_in_fault: false,
            memcg_lru: vec![],
            memcg_lru_rand: crate::lru_gen::MEMCG_LRU_RAND_SEED,
            wakeup_latency: vec![],
            wakeup_rand: crate::lru_gen::MEMCG_LRU_RAND_SEED,
            kworker_wakeup_latency: vec![],
            vcpu_stalls: None,
            kworker_rand: crate::lru_gen::MEMCG_LRU_RAND_SEED,
            stats_flush_next: Nanos::MAX,
            stats_flush_epoch: 0,
            oom_victim: None,
            oom_tasks: vec![],
            oom_killed: vec![],
            oom_points: vec![],
            lru_gen_mms: vec![],
            lru_gen_mm_lists: vec![],
            lru_gen_vma_mm: vec![],
            shadow_nodes: vec![Default::default()],
            reclaim_iter: vec![[MemcgId::NONE; crate::vmscan::DEF_PRIORITY as usize + 1]],
            kmem: Default::default(),
            superblocks: vec![],
            nr_cpu_ids: 1,
            radix_nodes_allocated: 0,
            nr_nodes: 1,
            present_pages: ram_pages,
            page_events: 0,
            thp_enabled: false,
            shmem_huge: crate::shmem::ShmemHuge::Never,
            shmem_stat: Default::default(),
            wb_queue: Default::default(),
            wb_ended: Default::default(),
            vmscan_throttled: [0; crate::vmscan::NR_VMSCAN_THROTTLE],
            resched: Default::default(),
            wb_done: vec![],
            wb_timers: Default::default(),
            wb_timer_armed: vec![],
            flusher: Default::default(),
            wb_dirty_sleep: None,
            wb_dirty: vec![],
            wb_completions: vec![],
            wb_domain: Default::default(),
            ra_pending: None,
            root_fs_order0: false,
            read_pinned: None,
            swap: None,
            swap_slots: Default::default(),
            zswap: None,
            swap_wb_queue: Default::default(),
            swapcache_head_copies: Vec::new(),
            swap_plug: Default::default(),
            pf_memalloc: false,
            swap_plug_pages: vec![],
            other_swap_plug: Default::default(),
            freelist_walk: None,
            boost_wake: false,
            vmas: vec![],
            free_vmas: vec![],
        };
        k.setup_nodes(&[managed], 0);
        k
    }

    /// Bring the kernel's timers up to `t` and set the clock there: the periodic flusher
    /// wake-ups due by then (`wb_workfn()` of expired `wb->dwork`, each at its own time), then
    /// the write and swap-write completions due by `t` (`folio_end_writeback()`).
    pub fn advance_clock(&mut self, t: Nanos) {
        self.wb_run_timers(t);
        self.now = t;
        if self.now >= self.stats_flush_next {
            self.flush_memcg_stats_dwork();
        }
        self.writeback_end_io();
        self.swap_end_io();
    }

    /// Whether a kernel thread (kswapd, 6.1's zswap shrink worker) is the running context, not
    /// the task whose quantum is running: its sleeps do not end the quantum nor count as the
    /// task's stalls.
    #[inline(always)]
    pub fn in_kthread(&self) -> bool {
        self.in_kswapd || self.in_zswap_worker
    }

    /// Spend `ns` of system CPU time in the running context.
    #[inline(always)]
    pub fn cpu(&mut self, ns: u64) {
        self.sys_ns += ns;
        debug_assert_eq!(self.cpu_plain, self.cpu_plain_now(), "a write of cpu_stretch, bg_stretch, in_zswap_worker, vcpu_stalls or bound_worker_deferred without cpu_plain_update()");
        debug_assert_eq!(self.cpu_fast_until, if self.cpu_plain { self.stats_flush_next } else { 0 }, "a write of stats_flush_next or cpu_plain without cpu_fast_update()");
        let t = self.now + ns;
        if t < self.cpu_fast_until {
            // cpu_plain, and the clock stays before the stats flush: what the rest does
            self.now = t;
        } else if self.cpu_plain {
            self.now = t;
            self.flush_memcg_stats_dwork();
        } else {
            let from = self.now;
            if self.cpu_unstretched() {
                self.now += ns;
            } else {
                // Runnable beside others on too few CPUs: CFS runs it a share of the time
                // (`cfs_stretch`); the rest it waits on the run queue.
                let wall = self.cpu_wall(ns);
                self.runq_ns += wall - ns;
                self.now += wall;
            }
            if self.vcpu_stalls.is_some() {
                self.vcpu_stall_pass(from);
            }
            // only the task's own CPU time uses its protected slice: kswapd inside its quantum and
            // the timers' work between quanta are other contexts (review50 M2); a pending deferred
            // wait clears cpu_plain, so the plain path pays no test for it (issue 17's (a))
            if self.bound_worker_deferred != 0 {
                self.bound_worker_cpu(ns, from);
            }
            if self.now >= self.stats_flush_next {
                self.flush_memcg_stats_dwork();
            }
        }
    }

    /// Whether the running context's CPU time is its wall-clock time: a CPU of its own
    /// ([`Kernel::cpu_stretch`] and [`Kernel::bg_stretch`] at [`SCHED_CAPACITY_SCALE`]) or 6.1's
    /// zswap shrink worker (which [`Kernel::cpu`] never stretches).
    #[inline(always)]
    fn cpu_unstretched(&self) -> bool {
        (self.cpu_stretch == SCHED_CAPACITY_SCALE && self.bg_stretch == SCHED_CAPACITY_SCALE) || self.in_zswap_worker
    }

    /// [`Kernel::cpu_plain`]'s value: CPU time is wall-clock time
    /// ([`Kernel::cpu_unstretched`]), the machine has no vCPU stalls
    /// ([`Kernel::vcpu_stalls`] is `None`) and no deferred bound-kworker wait is pending
    /// ([`Kernel::bound_worker_deferred`] is 0).
    #[inline(always)]
    fn cpu_plain_now(&self) -> bool {
        self.cpu_unstretched() && self.vcpu_stalls.is_none() && self.bound_worker_deferred == 0
    }

    /// Keep [`Kernel::cpu_plain`] after a write of [`Kernel::cpu_stretch`],
    /// [`Kernel::bg_stretch`], [`Kernel::in_zswap_worker`], [`Kernel::vcpu_stalls`] or
    /// [`Kernel::bound_worker_deferred`] (every write calls it).
    #[inline(always)]
    pub(crate) fn cpu_plain_update(&mut self) {
        self.cpu_plain = self.cpu_plain_now();
        self.cpu_fast_update();
    }

    /// Keep [`Kernel::cpu_fast_until`] after a write of [`Kernel::cpu_plain`] or
    /// [`Kernel::stats_flush_next`] (every write calls it).
    #[inline(always)]
    pub(crate) fn cpu_fast_update(&mut self) {
        self.cpu_fast_until = if self.cpu_plain { self.stats_flush_next } else { 0 };
    }

    /// Give the machine its vCPU stalls (`[machine] vcpu_stall`; none: the vCPUs always run) and
    /// keep [`Kernel::cpu_plain`]: the one way to add or remove them (review16 M2), so a stalled
    /// machine's [`Kernel::cpu`] cannot skip [`Kernel::vcpu_stall_pass`] on a stale flag. A stand-in
    /// of the host's preemption of a QEMU/TCG vCPU thread, which Linux 6.1's
    /// `steal_account_process_time()` (kernel/sched/cputime.c) cannot see under TCG.
    pub fn set_vcpu_stalls(&mut self, v: Option<Box<crate::vcpu_stall::VcpuStalls>>) {
        self.vcpu_stalls = v;
        self.cpu_plain_update();
    }

    /// The machine's vCPU stalls, if it has any ([`Kernel::set_vcpu_stalls`]; a stand-in of the
    /// host's preemption of a vCPU thread, which Linux 6.1's `steal_account_process_time()` cannot
    /// see under TCG).
    pub fn vcpu_stalls(&self) -> Option<&crate::vcpu_stall::VcpuStalls> {
        self.vcpu_stalls.as_deref()
    }

    /// The machine's vCPU stalls' state, to change (their streams, the time met); they stay
    /// (adding or removing them is [`Kernel::set_vcpu_stalls`]). A stand-in of the host's
    /// preemption of a vCPU thread, which Linux 6.1's `steal_account_process_time()` cannot see.
    pub fn vcpu_stalls_mut(&mut self) -> Option<&mut crate::vcpu_stall::VcpuStalls> {
        self.vcpu_stalls.as_deref_mut()
    }

    /// Run `f` with the machine's vCPU stalls taken out beside the kernel (both mutable), then put
    /// them back: `None` without stalls. They are there again after it (`f`'s own
    /// [`Kernel::set_vcpu_stalls`] is overwritten), so [`Kernel::cpu_plain`] stays right.
    /// For [`Kernel::vcpu_stall_pass`] (Linux 6.1 `steal_account_process_time()` cannot see the
    /// stalls it models under TCG).
    #[inline(always)]
    pub(crate) fn with_vcpu_stalls<R>(&mut self, f: impl FnOnce(&mut Kernel, &mut crate::vcpu_stall::VcpuStalls) -> R) -> Option<R> {
        let mut v = self.vcpu_stalls.take()?;
        let r = f(self, &mut v);
        self.vcpu_stalls = Some(v);
        Some(r)
    }

    /// The wall-clock length of `ns` of CPU time of the running context: [`Kernel::cpu_stretch`]
    /// times it; beside a background ([`Kernel::bg_load`]) a task's CPU within the slice it
    /// woke with ([`Kernel::slice_left`]) at that stretch (EEVDF's `set_protect_slice()`, CFS's
    /// `check_preempt_tick()` minimum granularity: the background does not preempt it), the
    /// rest at [`Kernel::bg_stretch`] (its CFS share beside the background too).
    #[inline]
    pub fn cpu_wall(&mut self, ns: u64) -> u64 {
        if self.bg_load == 0 || !self.in_task || self.in_kthread() {
            return ns * self.cpu_stretch / SCHED_CAPACITY_SCALE;
        }
        let free = ns.min(self.slice_left);
        self.slice_left -= free;
        let wall = (free * self.cpu_stretch + (ns - free) * self.bg_stretch) / SCHED_CAPACITY_SCALE;
        if let Some(rq) = self.eevdf_rq {
            self.eevdf_lag += rq.run_lag(ns, wall - ns);
        }
        wall
    }

    /// `try_to_wake_up()` of a task (not a kthread) beside the machine's background
    /// ([`Kernel::bg_load`]): `ttwu_do_activate()` -> `enqueue_task_fair()` -> `place_entity()`,
    /// `check_preempt_wakeup_fair()` (kernel/sched/fair.c), after sleeping `slept` ns with the
    /// EEVDF lag `lag` (updated: clamped as `update_entity_lag()` saved it, or as DELAY_DEQUEUE
    /// left it, [`crate::sched::BusyRq::delayed_lag`], plus what the wait gives). Returns how long it waits for a CPU ([`crate::sched::BusyRq::wakeup`]: a short
    /// sleep's wake-up meets the fresh protected slice of the entity picked when it went to
    /// sleep, unless the wakee's lag makes that entity ineligible; CFS:
    /// [`crate::sched::wakeup_runq_wait_after`], 0; schedstat's `run_delay`) and the fresh slice
    /// it then runs unpreempted ([`Kernel::sched_slice`]); `None` without a background. The
    /// one wake-up path of every sleep: an I/O wait ([`Kernel::wait_until`]), a timer sleep
    /// (`hrtimer_nanosleep()`: op `sleep`) and a futex wake-up (op `wait` woken by a `post`).
    #[inline]
    pub fn ttwu_fair_wait(&self, lag: &mut i64, slept: Nanos) -> Option<(Nanos, Nanos)> {
        if self.bg_load == 0 {
            return None;
        }
        let wait = match self.eevdf_rq {
            Some(rq) => {
                let (wait, after) = rq.wakeup(rq.delayed_lag(*lag, slept), slept);
                *lag = after;
                wait
            }
            None => crate::sched::wakeup_runq_wait_after(&self.profile, self.bg_load, self.nr_cpu_ids, slept),
        };
        Some((wait, self.sched_slice))
    }

    /// The running task's read woke the loop device's worker (`read_pages()`'s plug reaching
    /// `loop_queue_rq()` -> `loop_queue_work()` on device `dev`, the host runner's loop device:
    /// blk-throttled or with a hardware queue): the kworker's entry takes its share of the
    /// task's EEVDF lag ([`crate::sched::BusyRq::loop_worker_take`]). Nothing without
    /// [`Kernel::eevdf_rq`] or outside a task. Not modelled: a throttled read that
    /// blk-throttle releases after the task slept wakes the worker from its timer, not from
    /// the task (the sequential readers traced woke it themselves for 1942 of their 2048
    /// requests, lab/validation/trace-worker-wake-1130 w1); and the task-context swap I/O
    /// (swapfile.rs's swap-in reads and swap-out writes) does not call it, so a swap device
    /// on a loop device takes no lag from its reader.
    ///
    /// With `[machine] loop_worker_run` (kwork23) the task then waits the kworker's run when it
    /// lands on the task's CPU and takes it ([`crate::sched::loop_worker_wait`], at the task's
    /// lag before the kworker's entry), schedstat's `run_delay`: the waits the idle host's
    /// sequential readers showed behind the loop's kworker (lab/validation/trace-idle-wait-1130).
    /// `check_preempt_wakeup_fair()` only sets need_resched; on the host's 6.18
    /// (PREEMPT_DYNAMIC, traced switches with prev_state R) the task gives up its CPU at its
    /// return to user space (`exit_to_user_mode_loop()` -> `schedule()`,
    /// [`Kernel::loop_worker_resched`]), and one that sleeps on its read first
    /// (`folio_wait_bit_common()` -> `io_schedule()`: a synchronous read, the random reader's)
    /// leaves the CPU to the kworker without a wait ([`Kernel::wait_until`] drops it).
    #[inline]
    pub fn loop_worker_woken(&mut self, dev: usize) {
        if self.eevdf_rq.is_none() && self.loop_worker_run.is_none() {
            return;
        }
        let d = &self.devices[dev];
        if !(self.in_task && !self.in_kthread() && (d.blk_throttle || d.hw.is_some())) {
            return;
        }
        if let Some(run) = self.loop_worker_run {
            let wait = crate::sched::loop_worker_wait(&self.profile, self.bg_load + self.runner_sampler, self.nr_cpu_ids, self.eevdf_lag, run);
            self.loop_worker_pending = self.loop_worker_pending.max(wait);
        }
        if let Some(rq) = self.eevdf_rq {
            self.eevdf_lag -= rq.loop_worker_take();
        }
    }

    /// The running task's return to user space (6.18 `exit_to_user_mode_loop()` -> `schedule()`
    /// with need_resched set): it waits the loop worker's run its read left pending
    /// ([`Kernel::loop_worker_woken`]), schedstat's `run_delay`. Called at a `read()`'s entry
    /// (the previous one returned) and at the end of the task's quantum.
    #[inline]
    pub fn loop_worker_resched(&mut self) {
        let p = std::mem::take(&mut self.loop_worker_pending);
        self.now += p;
        self.runq_ns += p;
    }

    /// [`Kernel::cpu`]'s `ns` with a deferred bound-kworker wait pending, run from `from` to
    /// [`Kernel::now`]: the running task's own CPU time only ([`Kernel::bound_worker_tick`];
    /// kswapd's and the timers' are other contexts).
    #[cold]
    #[inline(never)]
    fn bound_worker_cpu(&mut self, ns: Nanos, from: Nanos) {
        if self.in_task && !self.in_kthread() {
            let to = self.now;
            self.bound_worker_tick(ns, from, to);
        }
    }

    /// `ns` of the running task's CPU time, run over the wall-clock span `from..to`, with a bound
    /// kworker queued behind it ([`Kernel::bound_worker_deferred`], review49 L1). kernel/sched/fair.c
    /// 6.18: the task keeps its CPU while `protect_slice()` holds (`vruntime < vprot`, set by
    /// `set_protect_slice()` at its pick); what ends that is an `update_curr()` that finds it over
    /// (`if (resched || !protect_slice(curr)) resched_curr_lazy(rq)` with `cfs_rq->nr_queued > 1`,
    /// and `update_deadline()`), and with the task running alone on its CPU the only
    /// `update_curr()` is the tick's (`sched_tick()` -> `task_tick_fair()` -> `entity_tick()`;
    /// lab/validation/vmp-slice-1201: the host's pendings ended within 600 us of the first tick
    /// after the replayed protected slice, 13 of 16 and 20 of 24). So once the CPU time uses up
    /// what was left of the slice ([`Kernel::bound_worker_slice`], [`Kernel::slice_left`] at the
    /// queueing), the reschedule comes at the first tick at or after that instant
    /// ([`Kernel::bound_worker_tick_at`], the slice's end placed in `from..to` by its share of
    /// `ns`); the kworker is picked there and the task waits its run (schedstat's `run_delay`),
    /// and the work's run takes its memcg's counter back to 0 ([`Kernel::vmpressure_work_ran`]).
    /// Not modelled: the other `update_curr()` calls (a wake-up on the CPU) that can come first;
    /// the PREEMPT_NONE switch at the next `cond_resched()` after the tick. Called by
    /// [`Kernel::cpu`] and at the quantum's end for its user time (sched.rs `leave()`).
    #[inline(never)]
    pub fn bound_worker_tick(&mut self, ns: Nanos, from: Nanos, to: Nanos) {
        if self.bound_worker_tick_at == 0 {
            let used = ns.min(self.bound_worker_slice);
            self.bound_worker_slice -= used;
            if self.bound_worker_slice > 0 {
                return;
            }
            let span = to.saturating_sub(from);
            let end = from + if ns == 0 { span } else { (span as u128 * used as u128 / ns as u128) as Nanos };
            let j = crate::timer::NSEC_PER_JIFFY;
            // `protect_slice()` is `vruntime < vprot`: a tick at the end itself finds it over
            self.bound_worker_tick_at = end.div_ceil(j).max(1) * j;
        }
        if to >= self.bound_worker_tick_at {
            let w = std::mem::take(&mut self.bound_worker_deferred);
            self.bound_worker_tick_at = 0;
            if self.bound_rq_on() {
                // the tick's `update_curr()` found the protected slice over: the kworker is picked
                // at the task's next `cond_resched()` (no stale clock: no wake-up set the skip)
                let vr = self.task_vruntime() + self.preempt_resched as i64;
                self.bound_rq_kworker_ran(vr, w);
            }
            self.vmpressure_work_ran();
            self.cpu_plain_update();
            self.now += w;
            self.runq_ns += w;
        }
    }

    /// Whether the bound kworker's wake-ups are decided by [`Kernel::bound_rq`] (elig55): an EEVDF
    /// profile with [`crate::profile::KernelProfile::bound_kworker_lag`] and `[machine]
    /// vmpressure_work_run`.
    #[inline]
    pub fn bound_rq_on(&self) -> bool {
        self.profile.eevdf && self.profile.bound_kworker_lag && self.vmpressure_work_run.is_some()
    }

    /// The running task's vruntime ([`crate::fair::BoundRq::vruntime`] of its CPU time:
    /// [`Kernel::task_cpu_base`] and this quantum's [`Kernel::sys_ns`]).
    #[inline]
    pub fn task_vruntime(&self) -> i64 {
        self.bound_rq.vruntime(self.task_cpu_base + self.sys_ns)
    }

    /// The root run queue's weight beside the kworker (units of NICE_0_LOAD): the task and the
    /// background beyond the other CPUs, as [`crate::sched::bound_worker_wait`] places it.
    #[inline]
    pub fn bound_rq_load(&self) -> f64 {
        crate::sched::kworker_placement_load(self.bg_load + self.runner_sampler, self.nr_cpu_ids.max(1) as u64)
    }

    /// The queued kworker ran `run` and slept, the task switched out at vruntime `vr`
    /// ([`crate::fair::BoundRq::kworker_ran`]).
    fn bound_rq_kworker_ran(&mut self, vr: i64, run: Nanos) {
        let load = self.bound_rq_load();
        let limit = crate::sched::entity_lag_limit(&self.profile, self.nr_cpu_ids);
        let delay = self.profile.delay_dequeue;
        self.bound_rq.kworker_ran(vr, run, load, limit, delay, self.sched_slice);
    }

    /// The pending vmpressure work of the running task ([`Kernel::bound_worker_deferred`]) ran:
    /// at its reschedule ([`Kernel::bound_worker_tick`]) or while the task slept (the kworker is
    /// then the only entity on the CPU: [`Kernel::bound_worker_slept`]). mm/vmpressure.c 6.1 and
    /// 6.18 `vmpressure_work_fn()`: `scanned = vmpr->tree_scanned; ... vmpr->tree_scanned = 0;`
    /// when the work RUNS, so every page its memcg's reclaims scanned while it was pending is in
    /// that one run and the next window starts from 0.
    pub fn vmpressure_work_ran(&mut self) {
        if let Some(c) = self.vmpressure_tree_scanned.get_mut(self.bound_worker_memcg as usize) {
            *c = 0;
        }
    }

    /// The running task sleeps with a bound kworker's run deferred behind it
    /// ([`Kernel::bound_worker_deferred`]): the kworker runs while it sleeps, no wait for the task
    /// (review49 L1, review50 L1), and the vmpressure work's run resets its memcg's counter
    /// ([`Kernel::vmpressure_work_ran`]). Every sleep of a task calls it.
    pub fn bound_worker_slept(&mut self) {
        if self.bound_worker_deferred > 0 {
            self.vmpressure_work_ran();
        }
        if self.bound_rq_on() {
            let vr = self.task_vruntime();
            self.bound_rq.task_slept(vr, self.sched_slice);
        }
        (self.bound_worker_deferred, self.bound_worker_tick_at) = (0, 0);
        self.cpu_plain_update();
    }

    /// `vmpressure(gfp, memcg, true, scanned, reclaimed)` (mm/vmpressure.c 6.1, called by
    /// mm/vmscan.c `shrink_node()` after each `shrink_node_memcgs()` with the pages it scanned,
    /// unless proactive, for cgroup v1 and v2 alike; and by `vmpressure_prio()` with a full
    /// window at a priority at or below [`crate::sched::VMPRESSURE_CRITICAL_PRIO`]): the subtree's
    /// `tree_scanned` grows by `scanned`, and on reaching [`crate::sched::VMPRESSURE_WIN`] the
    /// memcg's work is scheduled (`schedule_work(&vmpr->work)`), which takes the counter back to
    /// 0 (`vmpressure_work_fn()`); the engine runs it at once. Its kworker, bound to the CPU
    /// the running context reclaims on, takes a task's CPU as
    /// [`crate::sched::bound_worker_wait`] says and the task waits its run (schedstat's
    /// `run_delay`; traced on the host's 6.18: lab/validation/trace-idle-wait-1130 q3, a v1 memcg
    /// writer preempted at 253 of its 285 switch-ins, `vmpressure_work_fn` starting in 247 of
    /// those waits); a task still eligible after the kworker's entry waits its run at the first
    /// tick after its protected slice's end instead, unless it sleeps first
    /// ([`crate::sched::bound_worker_deferred`], review49 L1, [`Kernel::bound_worker_tick`]). The
    /// work takes the whole counter back to 0 when it RUNS, a window's excess with it (6.1 and
    /// 6.18 `vmpressure_work_fn()`: `vmpr->tree_scanned = 0`): at once when its kworker preempts
    /// the task, else at the deferred run ([`Kernel::vmpressure_work_ran`]), every page scanned
    /// while it was pending in that one run (`vmpressure()` meanwhile: `tree_scanned += scanned`,
    /// `schedule_work()` false, lag23 after lab/validation/vmp-slice-1201), so a memcg's windows number
    /// fewer than its pages scanned / 512 (review49 L2: host-queue-rw-seq's writer scans 235,264
    /// pages in 382 windows, 616 pages each: its reclaim calls' scans overshoot 512). Kernel threads (kswapd) take no wait here. Only with `[machine]
    /// vmpressure_work_run`; `__GFP_IO`/`__GFP_FS`-less reclaims count too (not modelled: the
    /// gfp test's `__GFP_HIGHMEM | __GFP_MOVABLE` side keeps the page cache's and anonymous
    /// pages' reclaims in).
    pub fn vmpressure_tree(&mut self, memcg: MemcgId, scanned: u64) {
        let Some(run) = self.vmpressure_work_run else { return };
        if scanned == 0 {
            return;
        }
        let i = memcg.idx();
        if self.vmpressure_tree_scanned.len() <= i {
            self.vmpressure_tree_scanned.resize(i + 1, 0);
        }
        self.vmpressure_tree_scanned[i] += scanned;
        if self.vmpressure_tree_scanned[i] < crate::sched::VMPRESSURE_WIN {
            return;
        }
        if self.in_task && !self.in_kthread() {
            if self.bound_worker_deferred > 0 {
                // the work is still pending from an earlier window (`queue_work()` returns false:
                // nothing is woken, review50 M2); its one run is the deferred wait's, and the
                // counter grows on until that run takes it (`vmpressure_work_fn()`)
                self.vmpressure_works[VMP_WORK_SWALLOWED] += 1;
                return;
            }
            let others = self.bg_load + self.runner_sampler;
            let (wait, later, protected) = if self.bound_rq_on() {
                // EEVDF: the kworker's own lag and the task's protected slice decide (elig55)
                let (vr, load) = (self.task_vruntime(), self.bound_rq_load());
                match self.bound_rq.check_preempt_wakeup_fair(vr, self.eevdf_lag, load, self.sched_slice) {
                    crate::fair::Wakeup::Preempt => (run, 0, 0),
                    crate::fair::Wakeup::Keep { protected } => (0, run, protected),
                }
            } else {
                let wait = crate::sched::bound_worker_wait(&self.profile, others, self.nr_cpu_ids, self.eevdf_lag, run);
                (wait, crate::sched::bound_worker_deferred(&self.profile, others, self.nr_cpu_ids, self.eevdf_lag, run), self.slice_left)
            };
            self.now += wait;
            self.runq_ns += wait;
            if wait > 0 {
                self.vmpressure_works[VMP_WORK_PREEMPTED] += 1;
            } else if later > 0 {
                self.vmpressure_works[VMP_WORK_KEPT] += 1;
            }
            if wait > 0 {
                // the kworker's wake-up preempted the task, which ran on to its next preemption
                // point on the wake-up's rq clock: schedstat counts that run as waiting too (pre23)
                let s = self.preempt_stale.unwrap_or(0);
                self.runq_ns += s;
                if self.bound_rq_on() {
                    // the task runs on to its `cond_resched()`, the stale part on the kworker's
                    // account (pre23), and the kworker runs its work and sleeps
                    self.bound_rq.charged_away += s as i64;
                    let vr = self.task_vruntime() + self.preempt_resched as i64;
                    self.bound_rq_kworker_ran(vr, s + run);
                }
            }
            // an eligible task keeps its CPU to its protected slice's end and waits the run then
            // (review49 L1); a work queued again while pending runs once (`queue_work()` false)
            if later > 0 {
                // the work pending behind the task (the early return above): its counter grows
                // on until the deferred run takes it (`Kernel::vmpressure_work_ran`)
                (self.bound_worker_slice, self.bound_worker_tick_at, self.bound_worker_memcg) = (protected, 0, i as u32);
                self.bound_worker_deferred = later;
                self.cpu_plain_update();
            } else {
                // the kworker took the CPU at once: the work ran (`vmpressure_work_fn()`)
                self.vmpressure_tree_scanned[i] = 0;
            }
        } else {
            // a kernel thread's (kswapd's) window: the work runs beside it, no task waits
            self.vmpressure_tree_scanned[i] = 0;
        }
    }

    /// The running task's next sleep, until `t`, is ended by a write completion, not by its
    /// timeout (`timeout`: the time its `schedule_timeout()` would wake it; `Nanos::MAX` for a sleep
    /// with none): wake23, the callers of `folio_wait_writeback()` and `reclaim_throttle(pgdat,
    /// VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c 6.1 and 6.18). The completion's work wakes it
    /// (`folio_end_writeback()` in ext4's `ext4_end_io_rsv_work()`, [`crate::sched::end_io_wakee_wait`])
    /// and [`Kernel::wait_until`] adds the wait behind that kworker. Only with `[machine]
    /// end_io_work_run`; the flag lasts for that one sleep (the caller clears it after:
    /// [`Kernel::end_io_wake_done`]).
    #[inline]
    pub fn woken_by_end_io(&mut self, t: Nanos, timeout: Nanos) {
        self.end_io_wake = self.end_io_work_run.is_some() && t < timeout;
    }

    /// Task `ti`'s PELT `util_avg` brought up to its clock `clock`, its CPU time (system and user)
    /// being `cpu` then (sis23): kernel/sched/pelt.c (6.1, 6.18) `___update_load_sum()` /
    /// `___update_load_avg()` accrue `util_sum` while the entity runs (`running`), decayed by
    /// y^(dt/1024us) with y^32 = 1/2, the same series as [`crate::sched::runnable_avg_update`], which
    /// this takes with the window's CPU time for its runnable time (spread evenly over the window).
    /// A task starts at 0 (not `post_init_entity_util_avg()`'s half of the CPU's spare capacity).
    /// Returns it in units of [`SCHED_CAPACITY_SCALE`]: [`Kernel::rq_own`], the task's part of the
    /// LLC's utilisation for SIS_UTIL ([`crate::sched::nr_idle_scan`]).
    pub fn task_util_update(&mut self, ti: usize, clock: Nanos, cpu: Nanos) -> u64 {
        if self.task_util.len() <= ti {
            self.task_util.resize(ti + 1, (0, 0, 0));
        }
        let (avg, at, cpu_at) = self.task_util[ti];
        let avg = if clock > at { crate::sched::runnable_avg_update(avg, clock - at, cpu.saturating_sub(cpu_at)) } else { avg };
        self.task_util[ti] = (avg, clock.max(at), cpu);
        avg >> crate::sched::LOAD_PRECISION_SHIFT
    }

    /// The sleep [`Kernel::woken_by_end_io`] announced is over (or never began: a folio whose
    /// writeback ended first, a task already unwinding): the flag goes.
    #[inline]
    pub fn end_io_wake_done(&mut self) {
        self.end_io_wake = false;
    }

    /// The wait behind the completion's kworker of a task it woke ([`crate::sched::end_io_wakee_wait`]
    /// at the task's lag, beside the background, the runner's sampler and the scenario's other tasks
    /// ([`Kernel::rq_tasks`]), the LLC's utilisation those and the task's own ([`Kernel::rq_own`])),
    /// schedstat's `run_delay`, for [`Kernel::wait_until`].
    #[cold]
    #[inline(never)]
    fn end_io_woken(&mut self) {
        let Some(run) = self.end_io_work_run else { return };
        // what keeps the CPUs busy: the background, the runner's sampler and the scenario's other
        // tasks (review51 M4); the LLC's utilisation adds the task's own (SIS_UTIL, review51 M3)
        let others = self.bg_load + self.runner_sampler + self.rq_tasks;
        let sum_util = others + self.rq_own;
        let w = crate::sched::end_io_wakee_wait(&self.profile, others, sum_util, self.nr_cpu_ids, self.eevdf_lag, run);
        self.now += w;
        self.runq_ns += w;
    }

    /// Block the running context until `t` (I/O wait). A task woken beside the machine's
    /// background ([`Kernel::bg_load`]) then waits for a CPU ([`Kernel::ttwu_fair_wait`] of the
    /// sleep's length and the task's EEVDF lag, `crate::sched::BusyRq::wakeup`: `ttwu_do_activate()` -> `enqueue_task_fair()` ->
    /// `place_entity()`, `check_preempt_wakeup_fair()`), schedstat's `run_delay`, and starts a
    /// new slice ([`Kernel::slice_left`]); a sleep a write completion ends
    /// ([`Kernel::woken_by_end_io`]) then waits behind the completion's kworker too (wake23,
    /// [`crate::sched::end_io_wakee_wait`]).
    #[inline]
    pub fn wait_until(&mut self, t: Nanos) {
        // a wait for an I/O never queued (wb_done's Nanos::MAX placeholder) would walk the timers to
        // the end of time: fail at once (review50 L2)
        assert!(t != Nanos::MAX, "wait_until(Nanos::MAX) at {} ns: a wait for an I/O that was never queued", self.now);
        if t > self.now && !self.swap_plug.rqs.is_empty() {
            // schedule() -> sched_submit_work(): a task about to sleep flushes its plug.
            self.blk_flush_plug();
        }
        if t > self.now {
            let slept = t - self.now;
            self.iowait_ns += slept;
            self.now = t;
            if self.in_task && !self.in_kthread() {
                // a task that sleeps leaves the CPU to the loop worker it woke, and to a bound
                // kworker queued behind it (review49 L1): no wait for either
                self.loop_worker_pending = 0;
                self.bound_worker_slept();
                let mut lag = self.eevdf_lag;
                let woke = self.ttwu_fair_wait(&mut lag, slept);
                self.eevdf_lag = lag;
                if let Some((wait, slice)) = woke {
                    self.now += wait;
                    self.runq_ns += wait;
                    self.slice_left = slice;
                }
                if std::mem::take(&mut self.end_io_wake) {
                    // woken by the write completion's kworker (wake23): behind it when it shares
                    // the CPU the task lands on
                    self.end_io_woken();
                }
            }
            if self.now >= self.stats_flush_next {
                self.flush_memcg_stats_dwork();
            }
        }
    }

    /// `mem_cgroup_lruvec(memcg, NODE_DATA(nid))`: index of the lruvec of `memcg` on node
    /// `nid`. Uncharged pages live on the root memcg's lruvecs.
    #[inline(always)]
    pub fn lruvec_idx(&self, memcg: MemcgId, nid: u32) -> usize {
        let m = if memcg == MemcgId::NONE { 0 } else { memcg.idx() };
        m * self.nr_nodes as usize + nid as usize
    }

    /// `folio_lruvec()`: the lruvec a page belongs on (its memcg's, on the page's node).
    #[inline(always)]
    pub fn folio_lruvec(&self, page: crate::types::PageId) -> usize {
        let nid = if self.nr_nodes == 1 { 0 } else { self.page_nid(page) };
        self.lruvec_idx(self.pages[page].memcg, nid)
    }

    /// Pages of `memcg` on list `lru` over all nodes (`lruvec_page_state()` summed).
    pub fn memcg_lru_size(&self, memcg: MemcgId, lru: crate::mmzone::LruList) -> u64 {
        let base = self.lruvec_idx(memcg, 0);
        (0..self.nr_nodes as usize).map(|n| self.lruvecs[base + n].size(lru)).sum()
    }

    /// Pages resident in the page cache.
    pub fn nr_file_pages(&self) -> u64 {
        self.vmstat.nr_file_pages
    }

    /// Host memory held by the simulation's per-page structures (page arena, page-cache
    /// slots, shadow nodes, writeback completion times, VMA page tables, the zones' buddy
    /// bookkeeping), for the bytes-per-resident-page benchmark.
    pub fn host_bytes(&self) -> usize {
        self.host_bytes_parts().iter().map(|(_, b)| b).sum()
    }

    /// [`Kernel::host_bytes`] part by part (`memtwin bench` prints where the bytes go).
    pub fn host_bytes_parts(&self) -> [(&'static str, usize); 6] {
        [
            ("page_arena", self.pages.host_bytes()),
            ("xarray", self.mappings.iter().map(|m| m.host_bytes()).sum::<usize>()),
            ("shadow_node_lists", self.shadow_nodes.iter().map(|l| l.nodes.capacity() * 12).sum::<usize>()),
            ("wb_done", self.wb_done.capacity() * std::mem::size_of::<Nanos>()),
            ("vma_page_tables", self.vmas.iter().map(|v| v.pages.capacity() * 4 + v.swap.capacity() * 4).sum::<usize>()),
            ("buddy", self.zones.iter().map(|z| z.host_bytes()).sum::<usize>()),
        ]
    }
}

/// `SCHED_CAPACITY_SCALE` (include/linux/sched.h, `1 << SCHED_CAPACITY_SHIFT`): the unit of CPU
/// capacity, load and runnable averages (kernel/sched/pelt.c), and of [`Kernel::cpu_stretch`].
pub const SCHED_CAPACITY_SCALE: u64 = 1024;

/// The wall-clock length of a nanosecond of CPU time (units of [`SCHED_CAPACITY_SCALE`]) of a
/// runnable context beside `others` runnable contexts (their sum of runnable averages, units
/// of [`SCHED_CAPACITY_SCALE`]) on `nr_cpus` CPUs. CFS (kernel/sched/fair.c, 6.1 as 2.6.23+)
/// gives each runnable entity of a run queue a slice of the period proportional to its weight
/// (`sched_slice()`: `__sched_period(nr_running)` times `se->load.weight` over the queue's
/// load), so that equally weighted tasks, every task and kswapd being SCHED_NORMAL at nice 0
/// (`kswapd()` and `kthread_run()` set no nice or policy; mm/vmscan.c), share the CPU
/// equally, and the load balancer (`load_balance()`) spreads the runnable tasks over the CPUs
/// (kswapd may run on any CPU of its node: `set_cpus_allowed_ptr(tsk, cpumask_of_node())`).
/// Over many slices a runnable context then gets `nr_cpus / n` of a CPU when `n` contexts,
/// itself included, are runnable on `nr_cpus` CPUs, and a CPU of its own when `n <= nr_cpus`:
/// its CPU time takes `max(1, n / nr_cpus)` times as long in wall time (processor sharing;
/// the slices' order and length, `place_entity()`'s credit for a woken sleeper and wakeup
/// preemption, move when within a period it runs, not its share). `n` is the count at the
/// instant (6.1 `sched_slice()`'s `cfs_rq->load`, 6.18 EEVDF's `cfs_rq->avg_load`: the weights
/// enqueued now, not PELT's averages), which the engine knows as an expectation: the other
/// tasks' runnable fractions of their present quanta
/// ([`crate::sched::quantum_runnable_weight`]) and the awake kswapds' runnable averages.
#[inline]
pub fn cfs_stretch(others: u64, nr_cpus: u32) -> u64 {
    ((others + SCHED_CAPACITY_SCALE) / nr_cpus.max(1) as u64).max(SCHED_CAPACITY_SCALE)
}

/// [`cfs_stretch`] where CFS shares the CPUs between autogroups (`[machine] sched_autogroup`,
/// kernel/sched/autogroup.c 6.18, CONFIG_FAIR_GROUP_SCHED): the scenario's tasks run in one
/// autogroup whose entity competes at the root beside the background's root-level entities
/// (`entities`: other autogroups with a runnable task and root-level tasks, each at its
/// weight over NICE_0_LOAD; `task_wants_autogroup()`), the tasks inside it beside each other
/// and `own` other runnable tasks of that session. A group's entity has its autogroup's
/// shares (nice 0: NICE_0_LOAD) split over the CPUs by its load there
/// (`update_cfs_group()` -> `calc_group_shares()`: `tg->shares * grq load / tg load`), so
/// that over the CPUs the group as a whole weighs NICE_0_LOAD, and the load balancer
/// spreads the root-level load: the group gets `nr_cpus / (1 + entities)` CPUs, at least what
/// the background leaves (`nr_cpus` less its `tasks - own` tasks, which use a CPU each at
/// most), shared by its `others + own + 1` tasks (`sched_slice()`/`pick_eevdf()` within the
/// group's run queue by weight, the same nice). Returns the wall-clock length of a
/// nanosecond of CPU time (units of [`SCHED_CAPACITY_SCALE`]), at least 1. Units of `others`,
/// `own`, `entities`, `tasks`: [`SCHED_CAPACITY_SCALE`].
#[inline]
pub fn autogroup_stretch(others: u64, own: u64, entities: u64, tasks: u64, nr_cpus: u32) -> u64 {
    let s = SCHED_CAPACITY_SCALE as u128;
    let cpus = nr_cpus.max(1) as u128;
    let n = others as u128 + own as u128 + s;
    // the group's CPUs: its share at the root, cpus * s / (s + entities), or what the
    // background's tasks leave, cpus * s - (tasks - own) (units of S), whichever is more
    let left = (cpus * s).saturating_sub(tasks.saturating_sub(own) as u128);
    let stretch = if left * (s + entities as u128) > cpus * s * s {
        n * s / left
    } else {
        n * (s + entities as u128) / cpus / s
    };
    (stretch as u64).max(SCHED_CAPACITY_SCALE)
}
