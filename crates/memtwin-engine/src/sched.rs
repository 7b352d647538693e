//! Tasks, their scripts, and the one virtual clock that orders them (kernel/sched/core.c in
//! spirit: whoever is furthest behind runs next).
//!
//! Every task has its own position on the virtual time line. An event queue (a binary heap
//! keyed by virtual time, then task index) hands out the runnable task with the earliest
//! clock, which runs one quantum: one syscall, one sleep, one cgroup move. During a
//! syscall the kernel's clock is that task's; CPU costs and I/O waits advance it. Devices are
//! shared, so a task that submits I/O while another's is queued waits behind it.

use crate::kernel::{IoAcct, Kernel};
use crate::memcontrol::PAGE_COUNTER_MAX;
use crate::metrics::{step_metrics, totals, Series, Snapshot, StepResult, TaskTimes};
use crate::readahead::FileRaState;
use crate::scenario::model::{Advice, OpKind, Pattern, Scenario};
use crate::types::{pages_for, DevId, InodeId, MemcgId, Nanos, Rng, PAGE_SIZE};
use std::cmp::Reverse;
use std::rc::Rc;
use std::collections::BinaryHeap;

/// Mixed into `kernel.boot_seed` for the wake-up latency draws (`Kernel::wakeup_rand`), so that
/// they are a stream of their own beside the memcg LRU's bins (any constant: only apartness matters).
const WAKEUP_RAND_SALT: u64 = 0x57A4_E0F1_A7E2_C0DE;
/// The same for the kworker wake-up draws (`Kernel::kworker_rand`).
const KWORKER_RAND_SALT: u64 = 0x6B77_6F72_6B65_7231;

#[path = "replay.rs"]
mod replay;
pub use replay::TraceStats;

/// Where a task is within its current operation.
#[derive(Clone, Debug)]
enum Cursor {
    /// Not started.
    Idle,
    /// Reading `pos..end` sequentially, or `left` random chunks.
    Read { pos: u64, end: u64, left: u64, ra: FileRaState },
    /// Writing `pos..end`; `call_end` > `pos`: the `write()` call a charge's sleep interrupted
    /// goes on to `call_end` (the rest of that call, not a new one).
    Write { pos: u64, end: u64, call_end: u64 },
    /// Touching the pages of a mapping, `pos` next.
    Touch { vma: crate::memory::VmaId, pos: u32 },
    /// Touching a range of a mapping by pattern: `done` of `total` pages touched.
    MapTouch { vma: crate::memory::VmaId, done: u64, total: u64 },
    /// A latency-probe round: mapped at `t0`, touching from `pos`.
    Probe { vma: crate::memory::VmaId, pos: u32, t0: Nanos },
    /// Asleep until the task's clock: the step ends when the task is scheduled again, so
    /// that everything due before it (other tasks, the flusher's timers) has run.
    Sleeping,
}

/// A sleep inside a syscall (`schedule()` from `io_schedule()`, `io_schedule_timeout()`,
/// `schedule_timeout()`): the CPU goes to the other runnable tasks until the sleeper's
/// wake-up, and the sleeper goes on from there. The engine cannot suspend a syscall in the
/// middle of a kernel path, so a sleep at a point the path can be restarted from ends the
/// task's quantum instead: the task is put back on the run queue at its wake-up time, and the
/// interrupted part of the syscall (the charge that reclaimed, and the rest of the fault or
/// write) runs again then, against what the others did meanwhile. The sleep's time is the
/// task's (I/O wait and its stall kind), and nothing the sleeper would see only at its
/// wake-up (the writeback of requests completing during the sleep) is done within its quantum:
/// the scheduler's `advance_clock()` ends those when the task runs again.
///
/// A sleep ends the quantum only when another task could run before the wake-up (the
/// earliest clock on the run queue, `horizon`, is before it), and only inside a charge whose
/// caller handles the restart (`restartable`: `do_anonymous_page()` of a task's fault,
/// `filemap_add_folio()` of a `write()`); elsewhere the task sleeps in place as before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resched {
    /// The earliest clock of another runnable task while the running syscall can be
    /// restarted (`None`: nobody could run meanwhile, or the syscall cannot be restarted).
    pub horizon: Option<Nanos>,
    /// The next `try_charge_memcg()` may be restarted (one-shot: the charge takes it).
    pub restartable_next: bool,
    /// Inside a restartable charge.
    pub restartable: bool,
    /// Set when a sleep ended the quantum: the time the task wakes. The kernel path unwinds
    /// without doing more (reclaim stops, further sleeps are skipped) and the scheduler takes
    /// it.
    pub wake: Option<Nanos>,
    /// The running task resumes the fault or `write()` whose charge's sleep ended its last
    /// quantum ([`Resumed`]). Saved with the task between quanta.
    pub resumed: Resumed,
    /// The retry loop of the charge whose sleep ended the task's last quantum
    /// ([`ChargeLoop`]): the restarted charge goes on with it. Saved with the task between
    /// quanta.
    pub charge_loop: Option<ChargeLoop>,
}

/// The locals of `try_charge_memcg()`'s retry loop (mm/memcontrol.c, 6.1 and 6.18):
/// `nr_retries` and `drained`; in 3.13 (`KernelProfile::charge_path` `DoCharge`)
/// `__mem_cgroup_try_charge()`'s `nr_oom_retries` and the `loop` and `total` of the
/// `mem_cgroup_reclaim()` it is in. A task whose sleep in the charge's reclaim (`reclaim_throttle()`,
/// `folio_wait_writeback()`) ended the quantum resumes inside that same call
/// in the kernel, with the retries it spent spent and the stock drained; the engine's
/// restarted charge takes them back ([`Kernel::try_charge_memcg`]) instead of starting a
/// fresh loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChargeLoop {
    /// Retries left before the OOM path (`nr_retries`; 3.13: `nr_oom_retries`).
    pub retries: u32,
    /// The charge stocks were drained once (`drained`; always true in 3.13, which has no
    /// such retry).
    pub drained: bool,
    /// The first attempt, of a whole `MEMCG_CHARGE_BATCH`, failed: the charge goes on with
    /// `nr_pages` (`batch = nr_pages`), and refills no stock when it succeeds.
    pub batch_failed: bool,
    /// 3.13: the passes `mem_cgroup_reclaim()` made before the sleep (`loop`), 0 outside it.
    pub reclaim_loop: u32,
    /// 3.13: the pages those passes reclaimed (`total`).
    pub reclaim_total: u64,
}

/// What a resumed fault or `write()` does not pay again. In the kernel the task goes on where
/// it slept (`folio_wait_writeback()` returns into `shrink_folio_list()`, `reclaim_throttle()`
/// into `shrink_node()`): the fault's entry (`do_anonymous_page()`'s own work before
/// the charge), the syscall's entry, the page-cache folio's allocation (`filemap_add_folio()`
/// before its charge) and the reclaim call's set-up (`do_try_to_free_pages()`) were done
/// once, before the sleep. The engine's restart runs that path again from the
/// fault or the page, so each of them takes its flag instead of its CPU time, once
/// ([`Kernel::take_resumed`]); the restarted charge drops what it did not use when it
/// returns ([`Kernel::try_charge_memcg`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resumed(u8);

impl Resumed {
    /// Nothing resumed.
    pub const NONE: Resumed = Resumed(0);
    /// The fault's or the syscall's entry.
    pub const ENTRY: Resumed = Resumed(1);
    /// The reclaim call's set-up.
    pub const RECLAIM: Resumed = Resumed(2);
    /// The page-cache folio whose charge slept: its allocation and insertion work.
    pub const PAGE: Resumed = Resumed(4);
    /// Everything done before a sleep that ended the quantum.
    pub const ALL: Resumed = Resumed(7);
}

impl Kernel {
    /// Sleep until `t` (`schedule()` in `io_schedule_timeout()`/`schedule_timeout()`, the
    /// caller's stall frame open around it), then run the I/O completions due by then (their
    /// interrupts ran while the task slept: `folio_end_writeback()`, swap-out's end). Where the
    /// syscall can be restarted and another task could run before `t` ([`Resched`]), the sleep
    /// ends the quantum instead: the clock and the task's wait go to `t`, `resched.wake` is
    /// set, and the completions are left for the scheduler. Returns true when the syscall is
    /// unwinding (this sleep or an earlier one ended the quantum), and does nothing more then.
    pub fn schedule_until(&mut self, t: Nanos) -> bool {
        if self.resched.wake.is_some() {
            return true;
        }
        let yields = self.resched.restartable && !self.in_kthread() && t > self.now && (self.resched.horizon.is_some_and(|h| t > h) || self.flusher_due_before(t));
        self.wait_until(t);
        if yields {
            self.resched.wake = Some(self.now);
            return true;
        }
        self.writeback_end_io();
        self.swap_end_io();
        false
    }

    /// Whether the running task resumes a path that already did `what` before its sleep
    /// ([`Resumed`]); the flag is taken: the caller skips that work's CPU time this once.
    #[inline]
    pub fn take_resumed(&mut self, what: Resumed) -> bool {
        let had = self.resched.resumed.0 & what.0 != 0;
        self.resched.resumed.0 &= !what.0;
        had
    }

    /// Whether a sleep ended the running task's quantum ([`Resched::wake`]): the kernel path
    /// is unwinding.
    #[inline(always)]
    pub fn resched_pending(&self) -> bool {
        self.resched.wake.is_some()
    }
}

/// Pages one fault quantum touches: one PMD range (a huge page, or 512 base-page faults).
const TOUCH_QUANTUM: u32 = 512;

#[derive(Clone, Debug)]
pub(crate) struct Task {
    name: String,
    memcg: MemcgId,
    pc: usize,
    pub(crate) times: TaskTimes,
    cursor: Cursor,
    snapshot: Option<Snapshot>,
    step_memcg: MemcgId,
    /// The op the current step began with (its ops name the files of its `resident_pages`).
    step_pc: usize,
    /// Steps the task has ended: its next step is step `steps_done + 1`, which begins after
    /// `step_gaps[steps_done - 1]` (TaskSpec::step_gaps).
    steps_done: usize,
    /// The gap before the next step was slept (or there is none to sleep).
    gap_slept: bool,
    killed: bool,
    /// `numa_node_id()` of the CPU the task runs on.
    node: u32,
    /// The task's live anonymous mappings by name.
    maps: Vec<(String, crate::memory::VmaId)>,
    /// Latency samples of the running step (mmap_probe rounds).
    samples: Vec<Nanos>,
    /// Blocked in a `wait` op: off the run queue until a `post` of its event.
    waiting: bool,
    /// The task's dirty throttling state (`balance_dirty_pages()`).
    dirty: crate::page_writeback::TaskDirty,
    /// The fault or `write()` a charge's sleep interrupted, resumed at the next quantum
    /// ([`Resched::resumed`]).
    resumed: Resumed,
    /// The interrupted charge's retry loop ([`Resched::charge_loop`]).
    charge_loop: Option<ChargeLoop>,
    /// The task's weight on the run queue as the other contexts' CFS share sees it at an
    /// instant of its present quantum ([`quantum_runnable_weight`], units of
    /// `SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT`): its last quantum's runnable fraction,
    /// as of `load_at`; a full weight from its fork or wake-up to the end of its first quantum
    /// (`enqueue_entity()`: on the run queue); 0 off the run queue (not started, blocked in a
    /// `wait`, exited).
    load: u64,
    /// When `load` was last brought up to date (the end of the task's last quantum, or its
    /// wake-up): the start of the quantum the next update measures.
    load_at: Nanos,
    /// Its entry in [`Simulation::departed`] while pending: (the clock it left the run queue
    /// at, its weight then). A wake-up takes it back ([`Simulation::task_on_runq`]): the task
    /// counts once, never both whole and departed (review51 L3).
    departed: Option<(Nanos, u64)>,
    /// CPU time left of the slice the task was given when it last woke
    /// ([`Kernel::slice_left`]).
    slice_left: Nanos,
    /// Its EEVDF lag ([`Kernel::eevdf_lag`], kept here between its quanta).
    eevdf_lag: i64,
    /// Its CPU's run queue as its bound kworker meets it ([`Kernel::bound_rq`], kept here between
    /// its quanta).
    bound_rq: crate::fair::BoundRq,
    /// A bound kworker's run it waits at its protected slice's end ([`Kernel::bound_worker_deferred`],
    /// kept here between its quanta).
    pub(crate) bound_worker_deferred: Nanos,
    /// What it has left of its protected slice meanwhile ([`Kernel::bound_worker_slice`]).
    pub(crate) bound_worker_slice: Nanos,
    /// The tick the run is charged at once that slice is over ([`Kernel::bound_worker_tick_at`]).
    pub(crate) bound_worker_tick_at: Nanos,
    /// The memcg whose vmpressure work that run is ([`Kernel::bound_worker_memcg`]).
    pub(crate) bound_worker_memcg: u32,
}

/// PELT's half-life (kernel/sched/sched-pelt.h `LOAD_AVG_PERIOD` 32 periods of 1024 us,
/// kernel/sched/pelt.c: "y^32 = 0.5"), in ns.
const PELT_HALFLIFE_NS: f64 = 32.0 * 1024.0 * 1000.0;

/// The precision of the engine's runnable averages: units of `SCHED_CAPACITY_SCALE <<
/// LOAD_PRECISION_SHIFT` (a quantum of a few microseconds moves an average by less than a unit
/// of `SCHED_CAPACITY_SCALE`: at that scale alone it would never grow; the kernel's
/// `runnable_sum` keeps the same precision below the average, kernel/sched/pelt.c).
pub const LOAD_PRECISION_SHIFT: u32 = 20;

/// The runnable average of a context whose average was `avg` (units of
/// `SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT`), after a window of `dt` ns in which it was runnable (on a CPU or
/// waiting for one) `runnable` ns: `___update_load_avg()`'s `runnable_avg` (kernel/sched/
/// pelt.c, 6.1; 5.7+ as `runnable_avg`, the geometric series of 1024 us periods since 3.8),
/// the old average decayed by y^(dt/1024us) with y^32 = 1/2 and the window's runnable
/// fraction added with the rest, the window's runnable time taken as spread evenly over it.
pub fn runnable_avg_update(avg: u64, dt: Nanos, runnable: Nanos) -> u64 {
    if dt == 0 {
        return avg;
    }
    let y = (-(dt as f64) / PELT_HALFLIFE_NS).exp2();
    let frac = runnable.min(dt) as f64 / dt as f64;
    let scale = (crate::kernel::SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT) as f64;
    ((avg as f64) * y + (1.0 - y) * frac * scale).round() as u64
}

/// The weight a task puts on its run queue at an instant of its present quantum, as another
/// context's CFS share counts it (units of `SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT`, a
/// nice-0 task's whole weight being `SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT`): the
/// fraction of its quantum's `dt` ns in which it was runnable (`runnable` ns: on a CPU or
/// waiting for one; its I/O waits and sleeps are not).
///
/// The kernel shares a CPU by the weights of the entities enqueued at each instant, not by an
/// average: 6.1's `sched_slice()` (kernel/sched/fair.c) divides the period by `cfs_rq->load`,
/// the sum of `se->load.weight` that `account_entity_enqueue()` adds at each enqueue and
/// `account_entity_dequeue()` takes off when the task sleeps; 6.18's EEVDF gives each entity
/// service in proportion to its weight over `cfs_rq->avg_load`, summed likewise by
/// `avg_vruntime_add()`/`avg_vruntime_sub()` as entities are queued and dequeued
/// (`__enqueue_entity()`, `__dequeue_entity()`). PELT's `runnable_avg` ([`runnable_avg_update`],
/// kernel/sched/pelt.c) is what the load balancer (`update_sg_lb_stats()` -> `cpu_runnable()`)
/// and `wake_up_new_task()`'s `post_init_entity_util_avg()` read, not the share. The engine
/// runs one task's quantum at a time and keeps no timeline of where in another task's quantum
/// its waits fell; every other task's last quantum spans the running task's clock (its quantum
/// began at or before it: the run queue runs the earliest clock first), so the other task is
/// runnable at that instant with the probability of its quantum's runnable fraction, and the
/// sum over the tasks is the expected runnable weight of the run queue at the instant. A task
/// just forked or woken counts whole until its first quantum (it is enqueued:
/// `wake_up_new_task()`, `try_to_wake_up()` -> `activate_task()`). `dt` 0: a full weight.
pub fn quantum_runnable_weight(dt: Nanos, runnable: Nanos) -> u64 {
    let one = crate::kernel::SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT;
    if dt == 0 {
        return one;
    }
    (runnable.min(dt) as u128 * one as u128 / dt as u128) as u64
}

/// The wall-clock slice of a task on `nr_cpus` CPUs: `sysctl_sched_base_slice` (6.1's
/// `sysctl_sched_min_granularity`), the profile's normalized value
/// ([`crate::profile::KernelProfile::sched_base_slice`]) times `get_update_sysctl_factor()`
/// (kernel/sched/fair.c, SCHED_TUNABLESCALING_LOG, the default: `1 + ilog2(min(CPUs, 8))`),
/// as `update_sysctl()` sets it at boot and on CPU hotplug: 1.4 ms on 6.18 with 2 CPUs.
pub fn sched_slice_ns(p: &crate::profile::KernelProfile, nr_cpus: u32) -> Nanos {
    let cpus = nr_cpus.clamp(1, 8);
    p.sched_base_slice * (1 + cpus.ilog2() as u64)
}

/// How long a task woken from a sleep waits for a CPU, on average, beside `background`
/// other runnable, CPU-bound tasks (units of [`crate::kernel::SCHED_CAPACITY_SCALE`]: a
/// mean count, `[machine] background_runnable`) on `nr_cpus` CPUs.
///
/// `try_to_wake_up()` -> `select_task_rq_fair()` -> `select_idle_sibling()` puts the wakee
/// on an idle CPU when there is one: with a fractional mean count taken as the mix of the
/// two counts around it, no CPU is idle for the fraction `background - (nr_cpus - 1)`
/// (clamped to 0..1) of the wake-ups. On a busy CPU, `enqueue_task_fair()` ->
/// `place_entity()` and then `check_preempt_wakeup_fair()` decide:
/// - EEVDF (6.6+, [`crate::profile::KernelProfile::eevdf`]; 6.18's kernel/sched/fair.c):
///   the sleeper keeps its lag (a task that sleeps most of the time has not run ahead of
///   its share: eligible, and its deadline `vruntime + slice` the earliest), but
///   `check_preempt_wakeup_fair()` preempts only when `__pick_eevdf(cfs_rq, protect)`
///   returns the wakee, and with RUN_TO_PARITY it returns the running entity while
///   `protect_slice()` holds (`set_protect_slice()`: `vprot = deadline`, a whole slice, the
///   same base slice for every entity). The running entity loses the CPU when
///   `update_curr()` -> `update_deadline()` finds its slice used up, at the tick
///   (`task_tick_fair()` -> `entity_tick()`, `TICK_NSEC`, no HRTICK by default) or at the
///   wakee's own enqueue if it is already used up. A CPU-bound entity picked at a tick runs
///   `L = ceil(slice / TICK_NSEC)` ticks; a wake-up at a uniformly random point `u` of it
///   waits `L - u` while `u < slice`, and not at all after: on average
///   `slice - slice^2 / (2 L)` (1.155 ms at 6.18's 1.4 ms slice with 2 CPUs and HZ 250).
/// - CFS (6.1): `place_entity()` puts the sleeper `sysctl_sched_latency / 2` behind
///   `min_vruntime` (GENTLE_FAIR_SLEEPERS, 6 ms with 2 CPUs), more than `wakeup_gran()`
///   (`sysctl_sched_wakeup_granularity`, 2 ms with 2 CPUs; both scaled by the same factor,
///   so on every CPU count), so `check_preempt_wakeup()` -> `wakeup_preempt_entity()`
///   preempts the running task at once: no wait. That holds only for a sleeper more than
///   `sysctl_sched_latency / 2` behind `min_vruntime`: `place_entity()` ends with
///   `se->vruntime = max_vruntime(se->vruntime, vruntime)` (6.1 fair.c ~4700), so a task near
///   its share with short sleeps keeps its vruntime and may not preempt (2 ms granularity);
///   not modelled: every 6.1 wake-up is taken as preempting (review11 M2).
///
/// The expectation over wake-ups (a deterministic figure, as [`crate::kernel::cfs_stretch`]
/// is): the wake-up's run-queue wait, schedstat's `run_delay`, for a task that slept long
/// enough for its wake-up to land at a random point of the running entity's run; a short
/// sleep's wake-up waits longer ([`wakeup_runq_wait_after`]).
pub fn wakeup_runq_wait(p: &crate::profile::KernelProfile, background: u64, nr_cpus: u32) -> Nanos {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    if !p.eevdf {
        return 0;
    }
    let busy = background.saturating_sub((nr_cpus.max(1) as u64 - 1) * S).min(S);
    let slice = sched_slice_ns(p, nr_cpus);
    let tick = 1_000_000_000 / crate::timer::HZ;
    let run = slice.div_ceil(tick) * tick;
    let wait = slice - (slice as u128 * slice as u128 / (2 * run as u128)) as u64;
    (wait as u128 * busy as u128 / S as u128) as u64
}

/// The run-queue wait of a task woken after sleeping `slept` ns on a busy CPU (EEVDF, 6.6+;
/// 6.18's kernel/sched/fair.c), beside `background` (as [`wakeup_runq_wait`]): when the task
/// went to sleep, `__schedule()` -> `pick_next_task_fair()` picked a CPU-bound entity of the
/// background and `set_next_entity()` -> `set_protect_slice()` gave it a fresh protected slice;
/// that entity keeps the CPU until a tick (`task_tick_fair()` -> `update_curr()` ->
/// `update_deadline()`, no HRTICK) finds its slice used: at a pick `d` before the next tick
/// (uniform in (0, TICK_NSEC]) its run ends at the first tick after `slice` of run, so the end
/// is uniform in [slice, slice + TICK_NSEC). The sleeper's wake-up at `slept` waits for that
/// end when it comes first (`check_preempt_wakeup_fair()`: `pick_eevdf()` returns the running,
/// protected entity; on the CPU it slept on: `select_idle_sibling()` finds no idle CPU and
/// keeps the previous one), else lands in a later entity's run at a random point
/// ([`wakeup_runq_wait`]'s mean). With `a = slice`, `b = slice + TICK_NSEC`, `W` that mean:
/// `(a + b) / 2 - slept` for `slept <= a`, `((slept - a) W + (b - slept)^2 / 2) / TICK_NSEC`
/// between, `W` after `b`; times the fraction of wake-ups with no idle CPU. A wake-up after
/// the fresh run ended is taken at a random point of a later run (`W`), though one just after
/// that end lands early in the next run (picked at that tick) and waits longer: the figure
/// rises from `b - W` to `b` where the kernel's would fall and rise again with the ticks. A read's 0.3 ms I/O
/// waits 3.1 ms at 6.18's 1.4 ms slice with 2 CPUs and HZ 250 (traced on this host 2026-11-30:
/// 1009 wake-ups landing 128-512 us into the running entity's run, 3.01 ms each,
/// lab/validation/trace-runq-wait-1130); a 10 ms sleep 1.155 ms. 6.1's CFS: 0.
///
/// This is the wait of a wakee that carries no lag: `__pick_eevdf()` drops a running entity
/// that is not eligible before it tests `protect_slice()`, and the wakee's entry lowers
/// `avg_vruntime()` by its lag's share (`place_entity()`, PLACE_LAG, its `vlag` kept across the
/// sleep), so a wakee carrying more lag than the running entity has takes the CPU at once
/// (traced on this host, lab/validation/trace-wake-preempt-1130). The engine's wake-ups go
/// through [`BusyRq::wakeup`], which keeps each task's lag and gives this figure at lag 0.
pub fn wakeup_runq_wait_after(p: &crate::profile::KernelProfile, background: u64, nr_cpus: u32, slept: Nanos) -> Nanos {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    if !p.eevdf {
        return 0;
    }
    let busy = background.saturating_sub((nr_cpus.max(1) as u64 - 1) * S).min(S);
    let slice = sched_slice_ns(p, nr_cpus) as u128;
    let tick = (1_000_000_000 / crate::timer::HZ) as u128;
    let run = slice.div_ceil(tick) * tick;
    let w = slice - slice * slice / (2 * run);
    let (a, b, s) = (slice, slice + tick, slept as u128);
    let wait = if s <= a {
        (a + b) / 2 - s
    } else if s >= b {
        w
    } else {
        ((s - a) * w + (b - s) * (b - s) / 2) / tick
    };
    (wait * busy as u128 / S as u128) as u64
}

/// The bound `update_entity_lag()` -> `entity_lag()` clamps a nice-0 entity's lag to, in ns of
/// virtual time (kernel/sched/fair.c, EEVDF 6.6+; `calc_delta_fair()` of a NICE_0_LOAD entity
/// is the identity): `cfs_rq_max_slice() + TICK_NSEC` with 6e3c0a4e1ad1 ("sched/fair: Fix lag
/// clamp"; [`crate::profile::KernelProfile::lag_clamp_max_slice`], the host's 6.18.44: 1.4 +
/// 4 = 5.4 ms with 2 CPUs at HZ 250, every slice the base slice), before it `max(2 *
/// se->slice, TICK_NSEC)` (6.6, 6.12: 4 ms). 0 for CFS (6.1: no lag is kept).
pub fn entity_lag_limit(p: &crate::profile::KernelProfile, nr_cpus: u32) -> i64 {
    if !p.eevdf {
        return 0;
    }
    let slice = sched_slice_ns(p, nr_cpus);
    let tick = 1_000_000_000 / crate::timer::HZ;
    (if p.lag_clamp_max_slice { slice + tick } else { (2 * slice).max(tick) }) as i64
}

/// `update_entity_lag()` (kernel/sched/fair.c, 6.6+; `entity_lag()` in 6.18): the lag
/// `avg_vruntime() - se->vruntime` an entity leaving its run queue (a sleep) saves in
/// `se->vlag`, clamped to `+-limit` ([`entity_lag_limit`]). 6.12+'s DELAY_DEQUEUE (an entity
/// that sleeps with negative lag stays queued, its lag growing, and leaves at 0, DELAY_ZERO)
/// acts before this clamp: [`BusyRq::delayed_lag`].
#[inline]
pub fn update_entity_lag(lag: i64, limit: i64) -> i64 {
    lag.clamp(-limit, limit)
}

/// `place_entity()` with PLACE_LAG (kernel/sched/fair.c, 6.6+): an entity of weight `w` joining a
/// run queue whose entities (the running one included) weigh `load` is placed at
/// `avg_vruntime() - lag` with its saved `vlag` scaled, `lag = vlag * (load + w) / load`, so
/// that after its entry, which moves `avg_vruntime()` down by `lag * w / (load + w)`, its lag
/// is `vlag` again. Returns `lag`; `vlag` itself on an empty run queue (`nr_queued` 0: no
/// scaling, the entity alone defines the average). Weights in units of NICE_0_LOAD.
#[inline]
pub fn place_entity_lag(vlag: f64, w: f64, load: f64) -> f64 {
    if load <= 0.0 {
        return vlag;
    }
    vlag * (load + w) / load
}

/// How far `avg_vruntime()` moves when an entity of weight `w` placed at lag `lag` (from
/// [`place_entity_lag`]) joins a run queue of weight `load` (`avg_vruntime_add()`: the
/// weighted mean of the vruntimes): `-lag * w / (load + w)`. Every other entity's lag
/// (`avg_vruntime() - vruntime`) moves by the same amount.
#[inline]
pub fn avg_vruntime_shift(lag: f64, w: f64, load: f64) -> f64 {
    -lag * w / (load + w)
}

/// `entity_eligible()` / `vruntime_eligible()` (kernel/sched/fair.c, 6.6+): an entity may be
/// picked when its vruntime is not past the weighted average, `avg_vruntime() >= vruntime`,
/// i.e. its lag is not negative.
#[inline]
pub fn entity_eligible(lag: f64) -> bool {
    lag >= 0.0
}

/// The root run queue of a woken task's CPU as EEVDF sees it at the wake-up (6.6+,
/// kernel/sched/fair.c; the engine keeps no per-CPU run queue, so the background is its mean):
/// `m` CPU-bound NICE_0 entities besides the wakee (`[machine] background_entities` per CPU
/// with `sched_autogroup`, else `background_runnable` per CPU; at least 1), taking turns: an
/// entity picked at another's sleep (`pick_next_task_fair()` -> `set_next_entity()` ->
/// `set_protect_slice()`, RUN_TO_PARITY) runs to the first tick after its slice, `R = slice +
/// TICK_NSEC / 2` on average. Entities of equal weight taking turns so have, at a pick, lags
/// `l_p - k R / m` (k = 0 the picked one, the earliest deadline; their weighted mean is 0):
/// `l_p = (m - 1) R / (2 m)` ([`BusyRq::wakeup`] uses them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusyRq {
    /// The entities besides the wakee (units of one NICE_0 entity).
    pub m: f64,
    /// The fraction of wake-ups that find no idle CPU ([`wakeup_runq_wait`]'s `busy`).
    pub busy: f64,
    /// The slice ([`sched_slice_ns`]).
    pub slice: f64,
    /// `TICK_NSEC`.
    pub tick: f64,
    /// [`entity_lag_limit`].
    pub limit: i64,
    /// `nr_cpus`.
    pub nr_cpus: u32,
    /// DELAY_DEQUEUE and DELAY_ZERO ([`crate::profile::KernelProfile::delay_dequeue`], 6.12+).
    pub delay_dequeue: bool,
}

impl BusyRq {
    /// The run queue of a woken task beside `background` runnable tasks (units of
    /// [`crate::kernel::SCHED_CAPACITY_SCALE`]), `entities` their root-level entities where
    /// the machine shares the CPUs by autogroup, on `nr_cpus` CPUs; None under CFS (6.1:
    /// [`wakeup_runq_wait`] is 0, no lag) or without a background.
    pub fn new(p: &crate::profile::KernelProfile, background: u64, entities: Option<u64>, nr_cpus: u32) -> Option<BusyRq> {
        use crate::kernel::SCHED_CAPACITY_SCALE as S;
        if !p.eevdf || background == 0 {
            return None;
        }
        let cpus = nr_cpus.max(1);
        let busy = background.saturating_sub((cpus as u64 - 1) * S).min(S);
        let per_cpu = entities.unwrap_or(background) as f64 / S as f64 / cpus as f64;
        Some(BusyRq {
            m: per_cpu.max(1.0),
            busy: busy as f64 / S as f64,
            slice: sched_slice_ns(p, cpus) as f64,
            tick: (1_000_000_000 / crate::timer::HZ) as f64,
            limit: entity_lag_limit(p, cpus),
            nr_cpus: cpus,
            delay_dequeue: p.delay_dequeue,
        })
    }

    /// The lag a task that went to sleep with lag `lag` (ns of virtual time, unclamped: its
    /// top-level entity's `avg_vruntime() - vruntime` at `dequeue_entity()`) has when it wakes
    /// `slept` ns later, clamped as `update_entity_lag()` saves it ([`update_entity_lag`]), for
    /// [`BusyRq::wakeup`]. Without DELAY_DEQUEUE (6.6-6.11) that is `lag` clamped, whatever
    /// the sleep's length. With it (6.12+, 152e11f6df29 and 54a58a787791, kernel/sched/fair.c
    /// as 6.12 and 6.18 have it; [`crate::profile::KernelProfile::delay_dequeue`]):
    /// `dequeue_entity()` with `DEQUEUE_SLEEP` finds an entity that is not eligible
    /// ([`entity_eligible`]: negative lag) and only marks it (`set_delayed()`, which takes it
    /// out of `h_nr_runnable` but leaves its weight in the queue's load and in
    /// `avg_vruntime()`), so while the `m` others run on its CPU the average advances by
    /// `slept / (m + 1)` and the entity's vruntime not: its lag grows by that. Once eligible it
    /// is picked (`pick_next_entity()` -> `dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED)`
    /// -> `finish_delayed_dequeue_entity()`), and a wake-up before that requeues it
    /// (`ttwu_runnable()` -> `enqueue_task(ENQUEUE_DELAYED)` -> `requeue_delayed_entity()`,
    /// `update_entity_lag()` there); either way DELAY_ZERO cuts a positive lag to 0, so the
    /// woken task carries `min(0, lag + slept / (m + 1))`, clamped. On a CPU with nothing
    /// else queued the delayed entity is picked at once and leaves at lag 0 (its own vruntime
    /// is the average): the expectation weighs the two by [`BusyRq::busy`]. A sleeper with
    /// positive lag is dequeued at once, as before. The rule is the same for a group entity
    /// (`dequeue_entities()` dequeues an autogroup's entity with `DEQUEUE_SLEEP` when its last
    /// task sleeps), which is the top-level entity whose lag the engine keeps under
    /// `sched_autogroup`. Not modelled: the delayed entity's weight kept in its group's load
    /// (`calc_group_shares()`: the group's share on its other CPUs, [`crate::kernel::autogroup_stretch`]),
    /// and a delayed task's wake-up staying on its CPU (`ttwu_runnable()` does no
    /// `select_task_rq()`; [`BusyRq::wakeup`] scales every wait by [`BusyRq::busy`]).
    pub fn delayed_lag(&self, lag: i64, slept: Nanos) -> i64 {
        if !self.delay_dequeue || entity_eligible(lag as f64) {
            return update_entity_lag(lag, self.limit);
        }
        let grown = lag as f64 + slept as f64 / (self.m + 1.0);
        let queued = update_entity_lag(grown.min(0.0) as i64, self.limit);
        (queued as f64 * self.busy) as i64
    }

    /// The woken task's run-queue wait after sleeping `slept` ns with saved lag `vlag` (ns of
    /// virtual time, [`update_entity_lag`]), and its lag once it gets the CPU. EEVDF as 6.18's
    /// kernel/sched/fair.c has it: `enqueue_task_fair()` -> `place_entity()` (PLACE_LAG,
    /// [`place_entity_lag`]) lowers `avg_vruntime()` by `vlag / m` ([`avg_vruntime_shift`]);
    /// `check_preempt_wakeup_fair()` preempts when `__pick_eevdf(cfs_rq, protect)` returns the
    /// wakee: it drops a running entity that is no longer eligible ([`entity_eligible`]) before
    /// it tests `protect_slice()`, and then picks the eligible entity with the earliest deadline
    /// (every deadline `vruntime + slice`: the one with the most lag). So the wakee takes the
    /// CPU at once when the running entity, at `e` into its run (lag `l_p - e (m - 1) / m`), falls
    /// below the shift, and the next in line (`l_p - R / m + e / m`) has less lag than the
    /// wakee's `vlag`; otherwise it waits for the running entity's protected slice to end, as
    /// [`wakeup_runq_wait_after`] says. A sleep shorter than the slice wakes into the run of the
    /// entity picked at the sleep (`e = slept`); a longer one at a uniformly random point of a
    /// later run picked at a tick (the protected part of `[0, slice)` less the window in which
    /// the wakee preempts). With `vlag = 0` this is [`wakeup_runq_wait_after`] (the running
    /// entity stays eligible through its slice: `l_p m / (m - 1) = R / 2 > slice`). The wait
    /// is scaled by the fraction of wake-ups with no idle CPU (`select_idle_sibling()`). While
    /// it waits, the wakee's lag grows by `wait / (m + 1)` (`avg_vruntime()` advances at
    /// `1 / (m + 1)` of the running entity's vruntime). Traced on this host
    /// (lab/validation/trace-wake-preempt-1130): host-queue-rw-rand's random reader, carrying
    /// 1-8 ms of lag, took the CPU at once at 95-98% of its wake-ups under 64 us, the
    /// running entity ineligible after its entry.
    ///
    /// Not modelled: a task of the wakee's own autogroup running on its CPU (the comparison is
    /// then made inside the group, `find_matching_se()`, against that task's lag); entities
    /// other than the loop worker woken onto the wakee's CPU while it runs
    /// ([`BusyRq::loop_worker_take`]); a wakee that is eligible but not first waits only the
    /// running entity's protected slice here, not the next one's too.
    pub fn wakeup(&self, vlag: i64, slept: Nanos) -> (Nanos, i64) {
        let (m, a, tick) = (self.m, self.slice, self.tick);
        let b = a + tick;
        let r = a + tick / 2.0;
        let l_p = (m - 1.0) * r / (2.0 * m);
        let v = vlag as f64;
        let d = -avg_vruntime_shift(place_entity_lag(v, 1.0, m), 1.0, m);
        // the wakee preempts a running entity `e` into its run
        let preempts = |e: f64| {
            let curr = l_p - e * (m - 1.0) / m - d;
            let next = l_p - r / m + e / m - d;
            entity_eligible(v) && !entity_eligible(curr) && v >= next
        };
        // the mean wait at a random point of a run picked at a tick (`L` long): `L - u` while
        // `u < slice` and the wakee does not preempt; the window in which it preempts is
        // [u1, u2] (curr ineligible from u1, the wakee ahead of the next in line up to u2)
        let run = (a / tick).ceil() * tick;
        let area = |x: f64, y: f64| if y > x { (run * (y - x) - (y * y - x * x) / 2.0) / run } else { 0.0 };
        let u1 = if m > 1.0 { (l_p - d) * m / (m - 1.0) } else if d > 0.0 { 0.0 } else { f64::INFINITY };
        let u2 = (m + 1.0) * v + r - m * l_p;
        let random = if entity_eligible(v) { area(0.0, a) - area(u1.clamp(0.0, a), u2.clamp(0.0, a)) } else { area(0.0, a) };
        let s = slept as f64;
        let fresh = |s: f64| if preempts(s) { 0.0 } else { 1.0 };
        let wait = if s <= a {
            fresh(s) * ((a + b) / 2.0 - s)
        } else if s >= b {
            random
        } else {
            ((s - a) * random + fresh(s) * (b - s) * (b - s) / 2.0) / tick
        };
        let wait = (wait.max(0.0) * self.busy) as Nanos;
        (wait, vlag + (wait as f64 / (m + 1.0)) as i64)
    }

    /// What `ns` of the task's CPU time, stretched by `waited` ns on the run queue beside the
    /// others (`Kernel::cpu_wall`), does to its lag (`update_curr()`): running, its vruntime
    /// advances by `ns` and `avg_vruntime()` by `ns / (m + 1)`; waiting, the average advances by
    /// `waited / (m + 1)` and its vruntime not. At its fair share (`waited = m ns`) the two
    /// cancel.
    #[inline]
    pub fn run_lag(&self, ns: Nanos, waited: Nanos) -> i64 {
        ((waited as f64 - ns as f64 * self.m) / (self.m + 1.0)) as i64
    }

    /// What a wake-up of the loop device's worker by the running task (its read's plug reaching
    /// `loop_queue_rq()` -> `loop_queue_work()` -> `queue_work()` on the `WQ_UNBOUND`
    /// workqueue -> `kick_pool()` -> `wake_up_process()`) takes of the task's lag: the kworker
    /// is placed (`place_entity()`, PLACE_LAG) with its saved lag, at `entity_lag()`'s bound
    /// (traced: 1547 of 1593 entries at 4-8 ms, lab/validation/trace-wake-preempt-1130 t10),
    /// which lowers `avg_vruntime()` by `limit / (m + 1)` when it joins the task's CPU, and the
    /// task, sleeping on its I/O before the kworker leaves, saves its lag at that lower mean.
    /// Where the kworker is woken: `select_task_rq_fair()` with `wake_wide()` true (the
    /// waker's and the worker's `wakee_flips`: the pool's idle kworkers taken in turn) does
    /// no `wake_affine()`: `select_idle_sibling(p, prev_cpu, prev_cpu)` keeps its previous CPU
    /// when none is idle (traced, lab/validation/trace-worker-wake-1130: the unbound kworkers
    /// went to their previous CPU at 99.7% of their wake-ups, wake_wide() true at all of them).
    /// Its previous CPU is where it last ran, which nothing in the wake-up ties to the waker's:
    /// the expectation takes it as any of the `nr_cpus` CPUs alike (traced: the task's own CPU at
    /// 18-53% of its wake-ups, by run).
    #[inline]
    pub fn loop_worker_take(&self) -> i64 {
        (self.limit as f64 / (self.m + 1.0) / self.nr_cpus as f64) as i64
    }
}

/// The run queue's load (units of one nice-0 weight) a kworker is placed into on a task's CPU
/// beside `others` runnable entities (units of [`crate::kernel::SCHED_CAPACITY_SCALE`]) on `cpus`
/// CPUs: the task itself and the others beyond one per other CPU (`place_entity()`'s `load`,
/// 6.18 kernel/sched/fair.c). Shared by [`loop_worker_wait`], [`bound_worker_wait`] and
/// [`end_io_wakee_wait`].
pub fn kworker_placement_load(others: u64, cpus: u64) -> f64 {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    1.0 + others.saturating_sub((cpus - 1) * S) as f64 / S as f64
}

/// What a running task waits, on average, when its read wakes the loop device's worker
/// (kwork23; drivers/block/loop.c 6.18 `loop_queue_rq()` -> `loop_queue_work()` ->
/// `queue_work()` on the `WQ_UNBOUND` "loop%d" workqueue -> `kick_pool()` ->
/// `wake_up_process()`): the kworker runs its work (`loop_rootcg_workfn()`, `run` ns) on the
/// task's CPU ahead of the task.
///
/// Where the kworker is woken (kernel/sched/fair.c 6.18 `select_task_rq_fair()`): `wake_wide()`
/// is true for the pool's kworkers (traced, lab/validation/trace-worker-wake-1130), so no
/// `wake_affine()`: `select_idle_sibling(p, prev, prev)` with the kworker's previous CPU, any of
/// the `nr_cpus` alike ([`BusyRq::loop_worker_take`]'s reading of the same trace). It keeps
/// `prev` when idle, else takes `recent_used_cpu` or what `select_idle_cpu()` finds idle in the
/// LLC (this host's two CPUs share theirs), else `prev`: the kworker lands on the running task's
/// CPU only when that is its previous CPU and no other CPU is idle. `others` is what keeps the
/// other CPUs busy (units of [`crate::kernel::SCHED_CAPACITY_SCALE`]: the background's
/// runnable tasks and the runner's sampler, [`crate::hostcal::HostCost::runner_sampler`]), taken
/// as [`wakeup_runq_wait`] takes a mean count: no other CPU idle for the fraction
/// `others - (nr_cpus - 2)` clamped to 0..1 (all of them on one CPU).
///
/// Whether it takes the task's CPU (`wakeup_preempt()` -> `check_preempt_wakeup_fair()`):
/// EEVDF (6.6+) places the kworker with its saved lag, at `entity_lag()`'s bound
/// ([`entity_lag_limit`]; traced: 1547 of 1593 entries at 4-8 ms, trace-wake-preempt-1130), on
/// a run queue of `load` entities (the task and the background beyond the other CPUs), which
/// lowers `avg_vruntime()` by `limit / load` ([`place_entity_lag`], [`avg_vruntime_shift`]):
/// the running task, at lag `task_lag`, is no longer eligible when that leaves it negative, and
/// `__pick_eevdf()` returns the kworker: the task is rescheduled (on this host's 6.18
/// PREEMPT_DYNAMIC at its return to user space, `exit_to_user_mode_loop()` -> `schedule()`:
/// traced as switches with prev_state R to the loop's kworker, lab/validation/trace-idle-wait-1130)
/// and waits the kworker's run. 6.1's CFS places the woken kworker `sysctl_sched_latency / 2`
/// behind `min_vruntime` (GENTLE_FAIR_SLEEPERS) and preempts as [`wakeup_runq_wait`] says: always.
/// Returns `run` times the fraction of wake-ups landing on the task's CPU, or 0 when the task
/// keeps its CPU. Not modelled: a worker already running or queued (one kick per request, as
/// [`BusyRq::loop_worker_take`]), the kworker's own wait when it lands on a busy other CPU (the
/// loop device's `worker_wakeup_latency`).
pub fn loop_worker_wait(p: &crate::profile::KernelProfile, others: u64, nr_cpus: u32, task_lag: i64, run: Nanos) -> Nanos {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    let cpus = nr_cpus.max(1) as u64;
    let busy = kworker_waker_share(others, nr_cpus);
    if busy == 0 {
        return 0;
    }
    if p.eevdf {
        let load = kworker_placement_load(others, cpus);
        let limit = entity_lag_limit(p, nr_cpus) as f64;
        let shift = avg_vruntime_shift(place_entity_lag(limit, 1.0, load), 1.0, load);
        if entity_eligible(task_lag as f64 + shift) {
            return 0;
        }
    }
    (run as u128 * busy as u128 / (S as u128 * cpus as u128)) as Nanos
}

/// What a running task waits, on average, when its own code queues a work item on a per-CPU
/// (bound) workqueue (kwork23c): mm/vmpressure.c `vmpressure()` -> `schedule_work()` on the
/// per-CPU `system_wq` (6.1 as read in /work/src/linux-source-6.1; on the host's 6.18 traced:
/// lab/validation/trace-idle-wait-1130 q3, `vmpressure_work_fn` starting in 247 of a v1 memcg
/// writer's waits). `queue_work_on(WORK_CPU_UNBOUND, ...)` -> `__queue_work()` takes the local
/// CPU for a per-CPU workqueue and `kick_pool()` wakes that CPU's pool's idle worker, a kworker
/// bound to the CPU: unlike the unbound loop worker ([`loop_worker_wait`]) there is no
/// `select_idle_sibling()` and no other CPU to go to, so the kworker always joins the task's
/// run queue (`nr_cpus` and the other CPUs' load do not enter). Whether it takes the CPU is
/// [`loop_worker_wait`]'s test: EEVDF (6.6+, kernel/sched/fair.c 6.18
/// `check_preempt_wakeup_fair()` -> `__pick_eevdf()`) places the kworker with its saved lag at
/// `entity_lag()`'s bound ([`entity_lag_limit`]) on a queue of `load` entities (the task, and the
/// background beyond the other CPUs: `others - (nr_cpus - 1)`), which lowers `avg_vruntime()` by
/// `limit / load`; the task, at lag `task_lag`, is rescheduled when that leaves it ineligible.
/// 6.1's CFS places the long-sleeping kworker `sysctl_sched_latency / 2` behind `min_vruntime`
/// (GENTLE_FAIR_SLEEPERS), more than `wakeup_gran()` ahead of the running task: always. The task
/// then waits `run` (the kworker's switch-in, its work, the switch back: traced 11.4 us a time on
/// the host's 6.18, whose default PREEMPT_NONE mode switches at the task's next `cond_resched()`:
/// prev_state R+ in the trace), schedstat's `run_delay`; else 0. Not modelled: the kworker's
/// entry taking from the task's lag ([`BusyRq::loop_worker_take`]'s rule).
pub fn bound_worker_wait(p: &crate::profile::KernelProfile, others: u64, nr_cpus: u32, task_lag: i64, run: Nanos) -> Nanos {
    if p.eevdf {
        let cpus = nr_cpus.max(1) as u64;
        let load = kworker_placement_load(others, cpus);
        let limit = entity_lag_limit(p, nr_cpus) as f64;
        let shift = avg_vruntime_shift(place_entity_lag(limit, 1.0, load), 1.0, load);
        if entity_eligible(task_lag as f64 + shift) {
            return 0;
        }
    }
    run
}

/// What a running task waits LATER when the work item its code queued on a per-CPU workqueue
/// does not take its CPU at once (review49 L1; [`bound_worker_wait`] returned 0: EEVDF, the task
/// still eligible after the kworker's entry). kernel/sched/fair.c 6.18: `check_preempt_wakeup_fair()`
/// leaves the kworker queued on the task's run queue (`__pick_eevdf()` returned the task, whose
/// slice is protected, `protect_slice()`); the task runs on until `update_curr()` finds its
/// protected slice over or its deadline passed (`update_deadline()`) with another entity queued
/// (`cfs_rq->nr_queued > 1`) and calls `resched_curr_lazy()`; the next pick takes the kworker
/// (placed with positive lag it is eligible, its deadline a slice after its placement), and the
/// task waits its `run` then. A bound kworker has no other CPU to go to (`kick_pool()` woke the
/// pool of the task's own CPU: no `select_idle_sibling()`, and the scheduler's idle balancing does not
/// pull a per-CPU kthread, `kthread_is_per_cpu()` in `can_migrate_task()`), so the wait is deferred,
/// not dropped: `run` under EEVDF when the task is eligible, 0 otherwise (the wait is then
/// [`bound_worker_wait`]'s, at once; 6.1's CFS preempts always). The caller charges it at the end
/// of the task's protected slice ([`crate::kernel::Kernel::bound_worker_tick`]) unless the task sleeps
/// first (the kworker then runs while it sleeps: [`crate::kernel::Kernel::wait_until`]).
/// The reschedule is seen only at a tick or an `update_curr()` call, and the host's PREEMPT_NONE
/// kernel switches at the next `cond_resched()` or return to user, not at `resched_curr_lazy()`.
/// With autogroup on (`sched_autogroup_enabled`), the entity competing with the kworker at the
/// root run queue is the task's autogroup's group entity, not the task itself (review50 L6).
pub fn bound_worker_deferred(p: &crate::profile::KernelProfile, others: u64, nr_cpus: u32, task_lag: i64, run: Nanos) -> Nanos {
    if p.eevdf && bound_worker_wait(p, others, nr_cpus, task_lag, run) == 0 {
        run
    } else {
        0
    }
}

// ---- wake23 (issue 23): the wake-up placement behind a waking kworker. This section starts here
// and ends at "end of wake23's section" below; nothing else in this file is wake23's. ----

/// The fraction of a task's wake-ups by a kworker running on CPU W that land on W behind it (units
/// of [`crate::kernel::SCHED_CAPACITY_SCALE`]), on `nr_cpus` CPUs of one LLC with `others` (units
/// of `SCHED_CAPACITY_SCALE`: the background's runnable tasks and the runner's sampler) keeping the
/// CPUs other than W busy, for [`end_io_wakee_wait`].
///
/// kernel/sched/fair.c (6.12 as read in /work/src, the host's 6.18 alike) `select_task_rq_fair()`:
/// a one-to-one waker and wakee (`wake_wide()` false: the kworker's and the task's `wakee_flips`
/// below `sd_llc_size`) take the affine path. With the task's `prev_cpu` on W, `wake_affine()` is
/// skipped (`cpu == prev_cpu`) and `select_idle_sibling(p, W, W)` finds W busy (the kworker runs
/// there), then takes `recent_used_cpu` or what `select_idle_cpu()` finds idle in the LLC. With
/// `prev_cpu` another CPU, `wake_affine_idle()` returns `prev_cpu` when it is idle; when it is busy
/// `wake_affine_weight()` weighs the two CPUs' loads (W's kworker carries little PELT load) and
/// `select_idle_sibling()` again takes any idle CPU of the LLC before the busy target. Either
/// way the task lands on W exactly when no CPU but W is idle, whatever its `prev_cpu` was: the
/// fraction `others - (nr_cpus - 2)` clamped to 0..1, as [`loop_worker_wait`] takes a mean count
/// (the background's and the sampler's busy CPUs spread over the others), all of them on one CPU.
/// An unbound kworker is no per-CPU kthread (its pool spans the LLC, `nr_cpus_allowed` > 1), so
/// `select_idle_sibling()`'s stacking rule for `is_per_cpu_kthread(current)` does not apply.
/// Not modelled: DELAY_DEQUEUE's woken task that is still queued (6.12+, `ttwu_runnable()`:
/// `enqueue_task(ENQUEUE_DELAYED)` on its own CPU with no `select_task_rq()`), which stays on W
/// whatever the other CPUs do.
pub fn kworker_waker_share(others: u64, nr_cpus: u32) -> u64 {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    let cpus = nr_cpus.max(1) as u64;
    if cpus == 1 {
        S
    } else {
        others.saturating_sub((cpus - 2) * S).min(S)
    }
}

/// What a task woken by a write completion run in an unbound kworker waits for a CPU, on average
/// (wake23, issue 23): `run` ns, the completion work's run after the wake-up, times the share of
/// wake-ups that land behind the kworker ([`end_io_placement_share`]: `others` keeping the other
/// CPUs busy, the background, the runner's sampler and the scenario's other tasks, review51 M4;
/// `sum_util` the LLC's utilisation for SIS_UTIL, review51 M3), or 0 when the task would take the
/// CPU from it.
///
/// The waker: ext4 (6.1 and 6.18 fs/ext4/page-io.c) ends the writeback of newly allocated blocks,
/// written as unwritten extents (delayed allocation with `dioread_nolock`, the default since 5.6),
/// in `ext4_end_io_rsv_work()` on the `WQ_UNBOUND` "ext4-rsv-conversion" workqueue: the bio's
/// `ext4_end_bio()` queues the io_end, the work converts the extents and then
/// `ext4_release_io_end()` -> `ext4_finish_bio()` calls `folio_end_writeback()` on each folio,
/// which wakes a `folio_wait_writeback()` sleeper (`folio_wake_bit()`) and, once more than
/// `SWAP_CLUSTER_MAX` pages per throttled task have ended, `reclaim_throttle(pgdat,
/// VMSCAN_THROTTLE_WRITEBACK)`'s sleepers (mm/vmscan.c `__acct_reclaim_writeback()` ->
/// `wake_up(&pgdat->reclaim_wait[...])`). Traced on the host's 6.18 (lab/validation/
/// trace-idle-wait-1130 q3: `ext4_end_io_rsv_work` 128 runs of 359 us mean beside the writer;
/// wakers-1201q: the writers' wake-ups by unbound kworkers, 28-41 a run, 25-29 of them waiting
/// behind the kworker that woke them). `run` is the work's run from the wake-up on: the engine
/// takes the work's whole run (the folios reclaim waits on are the oldest under writeback, the
/// first the work ends; the extents' conversion before them is not told apart).
///
/// Whether the task waits behind it there (kernel/sched/fair.c 6.18, EEVDF):
/// `enqueue_task_fair()` -> `place_entity()` puts the task with its saved lag `task_lag`
/// (PLACE_LAG, [`place_entity_lag`]) on W's queue: the kworker, placed at `entity_lag()`'s bound
/// when it woke ([`entity_lag_limit`], as [`loop_worker_wait`] says of the loop's kworker), and
/// the background beyond the other CPUs. `check_preempt_wakeup_fair()` -> `__pick_eevdf(cfs_rq,
/// protect)` keeps the running kworker unless it is no longer eligible after the task's entry
/// ([`avg_vruntime_shift`], [`entity_eligible`]); while its protected slice holds
/// (`protect_slice()`, RUN_TO_PARITY: a whole slice, [`sched_slice_ns`], from its pick) the task
/// waits the kworker's run, at most the slice. 6.1's CFS places both sleepers
/// `sysctl_sched_latency / 2` behind `min_vruntime` (GENTLE_FAIR_SLEEPERS), so the task's
/// vruntime is ahead of the kworker's by what the kworker has run, less than `wakeup_gran()`:
/// `check_preempt_wakeup()` does not preempt and the task waits the run too, at most the slice
/// (`check_preempt_tick()`). Not modelled: what the wait gives the task's lag; the kworker's run
/// before the wake-up taking from its lag.
pub fn end_io_wakee_wait(p: &crate::profile::KernelProfile, others: u64, sum_util: u64, nr_cpus: u32, task_lag: i64, run: Nanos) -> Nanos {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    let share = end_io_placement_share(p, others, sum_util, nr_cpus);
    if share == 0 || run == 0 {
        return 0;
    }
    if p.eevdf {
        let cpus = nr_cpus.max(1) as u64;
        // W's queue before the task's entry: the kworker and the background beyond the other CPUs
        let load = kworker_placement_load(others, cpus);
        let limit = entity_lag_limit(p, nr_cpus) as f64;
        let v = task_lag as f64;
        let shift = avg_vruntime_shift(place_entity_lag(v, 1.0, load), 1.0, load);
        if entity_eligible(v) && !entity_eligible(limit + shift) {
            // the kworker is no longer eligible: __pick_eevdf() returns the task at once
            return 0;
        }
    }
    let wait = run.min(sched_slice_ns(p, nr_cpus));
    (wait as u128 * share as u128 / S as u128) as Nanos
}

/// `sd->imbalance_pct` of the LLC's domain: kernel/sched/topology.c (6.1, 6.18) `sd_init()` gives
/// 117 to a domain with `SD_SHARE_LLC` (6.1: `SD_SHARE_PKG_RESOURCES`) and without
/// `SD_SHARE_CPUCAPACITY` (the MC level: this host's two vCPUs share their L3 and have no SMT
/// sibling, lscpu and /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 0-1).
pub const LLC_IMBALANCE_PCT: u64 = 117;

/// SIS_UTIL's scan depth (sis23, review51 M3): how many CPUs of an LLC of `llc_weight` CPUs
/// `select_idle_cpu()` may look at for an idle one, at the LLC's summed utilisation `sum_util`
/// (units of [`crate::kernel::SCHED_CAPACITY_SCALE`]), kernel/sched/fair.c (6.1 and 6.18)
/// `update_idle_cpu_scan()`, with the kernel's integer arithmetic: `x = sum_util / llc_weight`,
/// `tmp = min(x^2 pct^2 / (10000 * 1024), 1024)`, `nr_idle_scan = (1024 - tmp) * llc_weight /
/// 1024`. It is 0, and `select_idle_cpu()` returns -1 without looking (`nr == 1`, "overloaded LLC
/// is unlikely to have idle cpu/core"), once the mean utilisation passes
/// `sqrt(1 - 1 / llc_weight) * 100 / pct` of a CPU: 60.4% on two CPUs at pct 117. The kernel
/// writes it at the periodic load balance of the LLC's domain (`update_sd_lb_stats()`, not at a
/// newly idle one), from `cpu_util_cfs()` summed over the LLC (PELT's `util_avg`, 32 ms half-life).
pub fn nr_idle_scan(sum_util: u64, llc_weight: u32, imbalance_pct: u64) -> u32 {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    let w = llc_weight.max(1) as u64;
    let x = sum_util / w;
    let tmp = (x * x * imbalance_pct * imbalance_pct / (10_000 * S)).min(S);
    ((S - tmp) * w / S) as u32
}

/// The share of a task's wake-ups by an unbound kworker running on CPU W that land on W (units
/// of [`crate::kernel::SCHED_CAPACITY_SCALE`]), for [`end_io_wakee_wait`] (sis23, review51 M3/M4).
/// `others`: what keeps the CPUs other than W busy (units of `SCHED_CAPACITY_SCALE`: the
/// background, the runner's sampler and, M4, the scenario's other tasks and the awake kswapds by
/// their expected runnable weights at the task's quantum, [`crate::kernel::Kernel::rq_tasks`]);
/// `sum_util`: the LLC's utilisation (the same plus the task's own weight, capped at a CPU each).
///
/// kernel/sched/fair.c (6.1, 6.18) `select_task_rq_fair()`, a one-to-one wake-up (`wake_wide()`
/// false), `this_cpu` W busy with the kworker, the task's `prev_cpu` P:
/// - P = W: no `wake_affine()` (`cpu == prev_cpu`); `select_idle_sibling(p, W, W)` finds W busy and
///   `prev == target`, then `recent_used_cpu`, then `select_idle_cpu()`, which looks at the other
///   CPUs only while SIS_UTIL's [`nr_idle_scan`] is above 0.
/// - P another CPU: `wake_affine_idle()` returns P when it is idle (`available_idle_cpu(prev_cpu)`),
///   and `select_idle_sibling(p, P, P)` keeps it; when P is busy, `wake_affine_weight()` picks W
///   or P and `select_idle_sibling()` takes any idle CPU the scan finds.
///
/// So with the scan on, the task lands on W exactly when no other CPU is idle
/// ([`kworker_waker_share`]: the mean count `others - (nr_cpus - 2)` clamped to 0..1, as
/// [`loop_worker_wait`] takes it); with it off (`nr_idle_scan()` 0 at `sum_util` capped at
/// `nr_cpus` CPUs), also when another CPU is idle but P is W, which the engine takes as
/// `1 / nr_cpus` of those wake-ups (P is where the task slept, and the kworker, woken from the
/// bio's completion interrupt with `wake_wide()` true, took any idle CPU alike:
/// [`BusyRq::loop_worker_take`]'s reading of lab/validation/trace-worker-wake-1130). Without
/// SIS_UTIL (before 6.0, [`crate::profile::KernelProfile::sis_util`]; SIS_PROP's scan is not
/// modelled) the scan is taken as on. Not modelled: `recent_used_cpu` (an idle CPU the task used
/// the wake-up before), DELAY_DEQUEUE's woken task still queued on W (6.12+, `ttwu_runnable()`:
/// no `select_task_rq()`), and what the host kernel adds upstream has not: 6.18.44-fc-v669 has a
/// `vcpu_pack_room(struct task_struct *p, int cpu)` in kernel/sched/fair.c (its kallsyms and
/// BTF; booted with `sched_vcpu_pack=15`), whose source is not available: traced, the writer
/// landed on the kworker's busy CPU with the other one idle at 68 of 198 completion wake-ups,
/// 21 of them from an idle previous CPU that upstream's `wake_affine_idle()` returns
/// (lab/validation/trace-idle-wait-1130/wakers-1201s).
pub fn end_io_placement_share(p: &crate::profile::KernelProfile, others: u64, sum_util: u64, nr_cpus: u32) -> u64 {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    let cpus = nr_cpus.max(1);
    let busy = kworker_waker_share(others, cpus);
    if cpus == 1 || !p.sis_util {
        return busy;
    }
    let util = sum_util.min(cpus as u64 * S);
    if nr_idle_scan(util, cpus, LLC_IMBALANCE_PCT) > 0 {
        return busy;
    }
    busy + (S - busy) / cpus as u64
}

// ---- end of wake23's section ----

// ---- pre23 (issue 23): schedstat's clock at a wake-up preemption. This section starts here and
// ends at "end of pre23's section" below; nothing else in this file is pre23's. ----

/// What schedstat's `run_delay` counts beyond a task's real wait when a kworker woken on its CPU
/// preempts it ([`bound_worker_wait`]'s immediate case, the memcg vmpressure work the task's own
/// reclaim queued): the task's own run from the kworker's wake-up to its switch-out, as far back
/// as the CPU's last clock update (pre23, issue 23; lab/validation/trace-idle-wait-1130/preempt-1201s).
///
/// kernel/sched/core.c (6.18; 6.1's `check_preempt_curr()` alike) `wakeup_preempt()`: when the
/// wakee's check set need_resched on the running task, "A queue event has occurred, and we're
/// going to schedule. In this case, we can save a useless back to back clock update":
/// `rq_clock_skip_update()` sets `RQCF_REQ_SKIP`, `__schedule()` promotes it to `RQCF_ACT_SKIP`
/// and its `update_rq_clock()` returns at once, so the switch runs on the clock of the CPU's last
/// update: the wake-up's own (`ttwu_do_activate()` under the rq lock) or a later tick's
/// (`sched_tick()` -> `update_rq_clock()`, every `1/HZ`). Where the kernel preempts only at the
/// task's next preemption point (the host's 6.18, PREEMPT_DYNAMIC in its default `none` mode: the
/// next `cond_resched()`, prev_state R+ in the traces) the task runs on between the wake-up and the
/// switch, and `sched_info_switch()` -> `sched_info_depart()` -> `sched_info_enqueue()`
/// (kernel/sched/stats.h) stamps its `last_queued` with the stale clock: `sched_info_arrive()` at
/// its next switch-in adds that run to its `run_delay` (and the kworker's `sum_exec_runtime`
/// gets it, not the task's). Its wall clock does not move: the task ran.
///
/// `resched` is the task's run from the kworker's wake-up to its switch-out (`[machine]
/// preempt_resched_run`, traced: the `sched_wakeup` of the bound kworker to the task's
/// `sched_switch`); `tick` is `1/HZ`. A run `g` shorter than a tick, begun at a uniform phase of
/// the tick, holds a tick with chance `g / tick`, which leaves the half after it: `g - g^2 / (2
/// tick)` on average; a run of a tick or more leaves half a tick. 0 without a run. An upper bound
/// (review52 L1): any other `update_rq_clock()` on that CPU within the run (another task enqueued
/// there, an interrupt's wake-up) refreshes the clock too. Only for a host whose kernel preempts at
/// the next preemption point (preempt=none or voluntary); under full preemption the run is about
/// 0 and so is this (review52 L2).
pub fn wakeup_preempt_stale_clock(resched: Nanos, tick: Nanos) -> Nanos {
    if tick == 0 || resched >= tick {
        return tick / 2;
    }
    resched - (resched as u128 * resched as u128 / (2 * tick as u128)) as Nanos
}

/// The stale interval schedstat adds to a preempted task's `run_delay` at each kworker wake-up
/// preemption (pre23): the mean of [`wakeup_preempt_stale_clock`] over the traced runs
/// (`[machine] preempt_resched_runs`, review52 M1: the expectation over the runs, not the interval
/// of their median), else that of the one run (`preempt_resched_run`); None without either.
pub fn wakeup_preempt_stale_mean(hc: &crate::hostcal::HostCost, tick: Nanos) -> Option<Nanos> {
    preempt_runs_mean(hc, |g| wakeup_preempt_stale_clock(g, tick))
}

/// The mean of `f` over the traced preemption runs (`[machine] preempt_resched_runs`), else `f`
/// of the one run (`preempt_resched_run`); None without either.
fn preempt_runs_mean(hc: &crate::hostcal::HostCost, f: impl Fn(Nanos) -> Nanos) -> Option<Nanos> {
    let runs = &hc.preempt_resched_runs;
    if runs.is_empty() {
        return hc.preempt_resched_run.map(f);
    }
    Some((runs.iter().map(|&g| f(g) as u128).sum::<u128>() / runs.len() as u128) as Nanos)
}

/// The mean of the traced runs from a preempting kworker wake-up to the task's switch-out
/// (`[machine] preempt_resched_runs`, else `preempt_resched_run`; 0 without either): the task's
/// run at its next `cond_resched()` under preempt=none (elig55, [`crate::kernel::Kernel::preempt_resched`]).
pub fn wakeup_preempt_resched_mean(hc: &crate::hostcal::HostCost) -> Nanos {
    preempt_runs_mean(hc, |g| g).unwrap_or(0)
}

// ---- end of pre23's section ----

/// mm/vmpressure.c `vmpressure_win` (6.1): `SWAP_CLUSTER_MAX * 16` pages scanned in a memcg's
/// subtree before `vmpressure()` schedules its work ([`crate::kernel::Kernel::vmpressure_tree`]).
pub const VMPRESSURE_WIN: u64 = 32 * 16;

/// mm/vmpressure.c `vmpressure_level_critical_prio` (6.1): `ilog2(100 / 10)`; at a reclaim
/// priority at or below it `vmpressure_prio()` reports a full window.
pub const VMPRESSURE_CRITICAL_PRIO: u32 = 3;

/// Engine statistics of a run, for benchmarks.
#[derive(Clone, Debug, Default)]
pub struct EngineStats {
    /// Page accesses simulated.
    pub page_events: u64,
    /// Host bytes held by per-page structures at the end.
    pub host_bytes: u64,
    /// `host_bytes` part by part ([`crate::kernel::Kernel::host_bytes_parts`]).
    pub host_bytes_parts: Vec<(&'static str, u64)>,
    /// Resident simulated pages at the end.
    pub resident_pages: u64,
    /// Virtual time at the end, seconds.
    pub virtual_time_s: f64,
    /// kswapd CPU time, seconds.
    pub kswapd_s: f64,
    /// kswapd's waits for a CPU while awake ([`Kernel::kswapd_runq_ns`]), seconds.
    pub kswapd_runq_s: f64,
    /// The tasks' vmpressure windows: their work's kworker preempted at once, kept pending, or
    /// swallowed by a pending work ([`Kernel::vmpressure_works`], lag56).
    pub vmpressure_works: [u64; 3],
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct SimResult {
    /// Scenario name.
    pub scenario: String,
    /// Variant, if any.
    pub variant: Option<String>,
    /// Steps in completion order.
    pub steps: Vec<StepResult>,
    /// Totals over steps.
    pub totals: Vec<(String, f64)>,
    /// Sampled time series.
    pub series: Series,
    /// Engine statistics.
    pub engine: EngineStats,
    /// Ops that failed as the syscall would have (first 100), and how many failed in all.
    pub errors: Vec<String>,
    /// Failed ops in all.
    pub nr_errors: u64,
    /// What each trace task's replay did (sched/replay.rs).
    pub traces: Vec<TraceStats>,
}

/// Why a run stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The progress callback asked it to.
    Interrupted,
    /// A trace task's trace is defective; the message names the place and the fix.
    Trace(String),
}

/// A scenario set up on a fresh kernel, ready to run.
pub struct Simulation {
    /// The simulated kernel.
    pub kernel: Kernel,
    /// Shared so that a quantum can read its op while the simulation changes (no copy).
    scenario: Rc<Scenario>,
    pub(crate) tasks: Vec<Task>,
    inodes: Vec<InodeId>,
    memcg_of_cgroup: Vec<MemcgId>,
    steps: Vec<StepResult>,
    series: Series,
    next_sample: Nanos,
    /// The time series' sample interval: the scenario's, doubled each time the series would
    /// pass [`MAX_SAMPLES`] rows.
    sample_interval: Nanos,
    rng: Rng,
    /// Work units (pages) done and planned, for progress reports.
    work_done: u64,
    work_total: u64,
    /// The event queue: runnable tasks keyed by (virtual time, task index), earliest first.
    runq: BinaryHeap<Reverse<(Nanos, usize)>>,
    /// The tasks not yet forked, latest start first: each is forked
    /// (`wake_up_new_task()`, a full weight on the run queue, [`quantum_runnable_weight`]) when the
    /// first quantum at or after its start begins.
    unforked: Vec<usize>,
    /// Tasks that left the run queue (exited, killed, blocked in a `wait`) at a clock later than
    /// the running task's: (that clock, their weight then), earliest first. The engine takes a
    /// task off at the end of its last quantum, which may lie ahead of the other tasks' clocks;
    /// until their clocks reach it the task was still on the run queue
    /// (`dequeue_entity()` happens at its own instant): [`Simulation::departed_weight`].
    /// Entries are (that clock, the task); the weight is the task's `Task::departed`, and an
    /// entry whose task no longer holds it (woken meanwhile) is stale and skipped. Their sum
    /// is [`Kernel::departed_load_sum`], which kswapd's share reads too (review51 L4).
    departed: BinaryHeap<Reverse<(Nanos, usize)>>,
    /// Ops that failed as the syscall would (EBUSY, ENOENT, ...), with where.
    errors: Vec<String>,
    nr_errors: u64,
    /// Posts not yet taken by a `wait`, by event name.
    events: Vec<(String, u64)>,
    /// Scratch list of a step's files (`step_resident_pages`), reused.
    rp_scratch: Vec<InodeId>,
    /// Per task, the chunk source of its trace until it starts, then its replay's state.
    trace_sources: Vec<Option<Box<dyn crate::trace::ChunkSource>>>,
    trace_runs: Vec<Option<Box<replay::TraceRun>>>,
    /// The first defect a trace showed: it stops the run.
    trace_error: Option<String>,
    trace_stats: Vec<TraceStats>,
    /// Whether steps report `memcg.unevictable_bytes`: only in scenarios with an `mlock` op,
    /// so that other runs' outputs keep their metrics.
    report_unevictable: bool,
}

impl Simulation {
    /// Boot a kernel for `scn`: devices, cgroups with their limits, files, tasks.
    pub fn new(scn: &Scenario) -> Simulation {
        Simulation::with_scenario(Rc::new(scn.clone()))
    }

    /// [`Simulation::new`] sharing the caller's scenario instead of a copy of it (its files and
    /// ops are the largest part of a ten-million-file scenario).
    pub fn with_scenario(rc: Rc<Scenario>) -> Simulation {
        let scn: &Scenario = &rc;
        let ram_pages = scn.machine.ram / PAGE_SIZE;
        let reserved = scn.machine.kernel_reserved / PAGE_SIZE;
        let mut k = Kernel::new(scn.profile.clone(), scn.policies.clone(), scn.cgroup_version, ram_pages, reserved);
        k.nr_cpu_ids = scn.machine.cpus;
        // One charge stock per CPU (`DEFINE_PER_CPU(struct memcg_stock_pcp, memcg_stock)`),
        // shared by the tasks that run there (`Kernel::task_cpu`).
        k.memcg_stock = vec![crate::memcontrol::MemcgStock::default(); scn.machine.cpus.max(1) as usize];
        // One lru_add batch per CPU (`DEFINE_PER_CPU(struct cpu_fbatches, cpu_fbatches)`).
        k.lru_add_fbatches = vec![crate::swap::FolioBatch::default(); scn.machine.cpus.max(1) as usize];
        k.nr_nodes = scn.machine.nodes;
        k.memcg_lru_rand = crate::lru_gen::memcg_lru_rand_seed(scn.boot_seed);
        k.wakeup_latency = scn.machine.wakeup_latency.clone();
        k.wakeup_rand = crate::lru_gen::memcg_lru_rand_seed(scn.boot_seed ^ WAKEUP_RAND_SALT);
        k.kworker_wakeup_latency = scn.machine.kworker_wakeup_latency.clone();
        k.set_vcpu_stalls(scn.machine.vcpu_stall.as_ref().map(|(d, i)| Box::new(crate::vcpu_stall::VcpuStalls::new(d.clone(), *i, scn.machine.cpus, scn.boot_seed))));
        // The machine's other runnable tasks (`[machine] background_runnable`): a woken task's
        // wait for a CPU beside them, and the slice it then runs unpreempted.
        k.bg_load = scn.machine.background_runnable;
        k.bg_autogroup = scn.machine.autogroup.as_ref().map(|a| (a.entities, a.own_group));
        k.sched_slice = sched_slice_ns(&k.profile, scn.machine.cpus);
        k.eevdf_rq = BusyRq::new(&k.profile, k.bg_load, k.bg_autogroup.map(|(entities, _)| entities), scn.machine.cpus);
        // the loop device's work's run and the runner's sampler (loop_worker_wait, kwork23)
        k.loop_worker_run = scn.machine.host_cost.loop_worker_run;
        k.runner_sampler = scn.machine.host_cost.runner_sampler;
        // the memcg's vmpressure work on the reclaiming task's CPU (bound_worker_wait, kwork23c)
        k.vmpressure_work_run = scn.machine.host_cost.vmpressure_work_run;
        // the write completion's work that wakes a reclaiming writer (end_io_wakee_wait, wake23)
        k.end_io_work_run = scn.machine.host_cost.end_io_work_run;
        // the preempted task's run from the kworker's wake-up to its switch-out (pre23)
        k.preempt_stale = wakeup_preempt_stale_mean(&scn.machine.host_cost, crate::timer::NSEC_PER_JIFFY);
        k.preempt_resched = wakeup_preempt_resched_mean(&scn.machine.host_cost);
        k.kworker_rand = crate::lru_gen::memcg_lru_rand_seed(scn.boot_seed ^ KWORKER_RAND_SALT);
        k.lruvecs = (0..scn.machine.nodes as usize).map(|n| crate::mmzone::Lruvec::new(n, k.profile.lru_gen, k.now)).collect();
        k.lru_stats = Default::default();
        for _ in 0..scn.machine.nodes {
            k.lru_stats.push(None);
        }
        k.thp_enabled = scn.thp;
        k.kmem.boot_percpu = scn.machine.boot_percpu;
        k.kmem.boot_slab = scn.machine.boot_slab;
        k.kmem.percpu = scn.machine.boot_percpu;
        k.kmem.boot_used = scn.machine.boot_used;
        k.kmem.boot_nonmovable_free = scn.machine.nonmovable_free.clone();
        k.kmem.slab = scn.machine.boot_slab;
        for (i, d) in scn.devices.iter().enumerate() {
            let dev = if d.blk_throttle {
                let mut dev = crate::blkdev::BlockDevice::throttled(&d.name, d.read_bw, d.write_bw, d.seek, d.read_ahead_kb);
                // The era's throtl_trim_slice() (blk_throttle.rs).
                for g in &mut dev.throtl {
                    g.trim_all = !k.profile.throtl_trim_keeps_one_slice;
                }
                dev
            } else {
                crate::blkdev::BlockDevice {
                    qemu_throttle: d.qemu_throttle,
                    write_latency: d.write_latency,
                    write_service_bw: d.write_service_bw,
                    ..crate::blkdev::BlockDevice::new(&d.name, d.read_bw, d.write_bw, d.seek, d.read_ahead_kb)
                }
            };
            let dev = if d.complete_together { dev.with_complete_together() } else { dev };
            let mut dev = dev.with_sched(d.scheduler).with_driver_depth(d.driver_depth);
            // CFQ's sync queue per task (`cfq_get_queue()`), a pool made with the device.
            dev.sched.reserve_queues(scn.tasks.len());
            // blk-wbt over `blk_queue_depth()`: the loop device's tag set (`nr_requests`), a
            // disk's driver depth (a SCSI disk's `queue_depth`); every modelled device reports a
            // write-back cache (`QUEUE_FLAG_WC`: the lab's vda and loop devices show "write back").
            let qd = d.hw.as_ref().map_or(d.driver_depth.min(u32::MAX as u64) as u32, |h| h.queue_depth);
            let dev = dev.with_wbt(d.wbt_lat_usec, qd, true);
            let dev = match &d.hw {
                Some(h) => dev.with_hw_queue(crate::blkdev::HwQueue::new(h.queue_depth, h.request_latency, h.request_bw, h.bw, h.request_cost).with_segments(d.segment_cost, h.max_segments).with_ring(h.ring_descriptors).with_read_bw_batches(h.read_bw_batches.clone(), scn.boot_seed, i as u64)),
                None => dev,
            };
            let mut dev = dev.with_max_sectors_kb(d.max_sectors_kb).with_segment_cost(d.segment_cost).with_loop_worker(d.worker_wakeup_latency.clone(), scn.boot_seed, i as u64);
            dev.max_segments = d.max_segments.unwrap_or(crate::blkdev::PLUG_RQ_MAX_PAGES);
            k.devices.push(dev);
        }
        // Superblocks: the booted system's own, one file system per device, declared mounts.
        for i in 0..scn.machine.boot_superblocks {
            k.mount(&format!("(boot {i})"), "boot");
        }
        k.root_fs_order0 = !scn.machine.fs_features.is_empty();
        let submit_io = k.cost.submit_io;
        match scn.machine.copy_slowdown {
            Some(c) => k.cost = k.cost.scaled_split(scn.machine.cpu_slowdown, c),
            None if scn.machine.cpu_slowdown != 1 => k.cost = k.cost.scaled(scn.machine.cpu_slowdown),
            None => {}
        }
        // A host recording's own measured costs (hostcal.rs).
        k.cost = k.cost.host_calibrated(&scn.machine.host_cost);
        // reclaim21: each memcg reclaim's isolate-call cost drawn from the run's own (hostcal.rs)
        k.set_reclaim_call_spans(&scn.machine.host_cost.reclaim_call_spans, scn.boot_seed);
        // `[machine] submit_io_slowdown` (iso23): a request's submission at its own factor.
        if let Some(s) = scn.machine.submit_io_slowdown {
            k.cost.submit_io = submit_io * s;
        }
        for d in &scn.devices {
            k.mount(&format!("/dev/{}", d.name), &scn.machine.fs);
        }
        for m in &scn.mounts {
            k.mount(&m.path, &m.fs);
            k.superblocks.last_mut().expect("mounted").shmem_huge = m.huge.unwrap_or_default();
        }
        k.shmem_huge = scn.shmem_enabled.unwrap_or(k.profile.large_folios.shmem_enabled);
        // The tmpfs huge-page metrics where the scenario names huge= or shmem_enabled (shmem.rs).
        k.shmem_stat.report = scn.shmem_enabled.is_some() || scn.mounts.iter().any(|m| m.huge.is_some());
        // mem_cgroup_css_online() of the root memcg: lru_gen_online_memcg() (6.3+).
        k.lru_gen_online_memcg(MemcgId::ROOT);
        let mut memcg_of_cgroup = Vec::with_capacity(scn.cgroups.len());
        // The root memcg's swappiness is vm.swappiness; children inherit their parent's.
        k.memcgs.memcgs[MemcgId::ROOT.idx()].swappiness = k.profile.swappiness;
        for c in &scn.cgroups {
            let id = k.cgroup_mkdir(&c.path).expect("cgroups are validated: parents first, unique, within the id space");
            let pc = &mut k.memcgs.memcgs[id.idx()].counter;
            pc.max = c.max.map(|b| b / PAGE_SIZE).unwrap_or(PAGE_COUNTER_MAX);
            pc.high = c.high.map(|b| b / PAGE_SIZE).unwrap_or(PAGE_COUNTER_MAX);
            k.memcgs.set_protection(id, c.min / PAGE_SIZE, c.low / PAGE_SIZE);
            let m = &mut k.memcgs.memcgs[id.idx()];
            m.swap_max = c.swap_max.map(|b| b / PAGE_SIZE).unwrap_or(PAGE_COUNTER_MAX);
            m.memsw_max = c.memsw_max.map(|b| b / PAGE_SIZE).unwrap_or(PAGE_COUNTER_MAX);
            m.zswap_max = c.zswap_max.map(|b| b / PAGE_SIZE).unwrap_or(PAGE_COUNTER_MAX);
            m.zswap_writeback = c.zswap_writeback;
            if let Some(sw) = c.swappiness {
                m.swappiness = sw;
            }
            memcg_of_cgroup.push(id);
        }
        for d in &scn.dirs {
            if d.path == "/" {
                let root = &mut k.dirs[crate::types::DirId::ROOT.idx()];
                (root.uid, root.mode) = (d.uid, d.mode);
            } else {
                k.vfs_mkdir(&d.path, d.uid, d.mode);
            }
        }
        k.inodes.reserve_exact(scn.files.len());
        k.mappings.reserve_exact(scn.files.len());
        let inodes: Vec<InodeId> =
            scn.files.iter().map(|f| k.create_inode(&f.path, f.size, f.device.map(|d| DevId(d as u32)), f.uid, f.mode)).collect();
        // Files that a write creates do not exist until then.
        for t in &scn.tasks {
            for op in &t.ops {
                if let OpKind::Write { file, create: true, .. } = &op.kind {
                    k.inodes[inodes[*file].idx()].exists = false;
                }
            }
        }
        // The declared disk files, written and fsync()ed by a real-kernel runner's setup
        // before the tasks, through the root wb: their completions in the global writeback
        // domain. Only for a scenario a runner records (`[validation] on`); a user's declared
        // files were written long before, their completions aged away.
        // The recording's own timing of them where it has one (`[validation] setup_writes`,
        // on the disk of the declared files), else the declared files back to back, ending as
        // the tasks start.
        if scn.runner_setup {
            let files: Vec<(u64, u64)> =
                scn.files.iter().filter(|f| !f.created).filter_map(|f| f.device.map(|d| (pages_for(f.size), scn.devices[d].write_bw))).collect();
            let mut setup: Vec<(u64, u64, Nanos)> = vec![];
            if scn.setup_writes.is_empty() {
                let mut ended: Nanos = 0;
                for &(pages, bw) in files.iter().rev() {
                    setup.push((pages, bw, ended));
                    ended += (pages as u128 * crate::types::PAGE_SIZE as u128 * crate::types::NSEC_PER_SEC as u128).div_ceil(bw.max(1) as u128) as Nanos;
                }
                setup.reverse();
            } else {
                let disk = scn.files.iter().find_map(|f| f.device).unwrap_or(0);
                let bw = scn.devices.get(disk).map_or(0, |d| d.write_bw);
                setup.extend(scn.setup_writes.iter().map(|&(bytes, ended)| (pages_for(bytes), bw, ended)));
            }
            k.wb_setup_writeout(&setup);
        }
        // Room for every page the files can hold, bounded by RAM: the arena never grows on
        // the hot path.
        let file_pages: u64 = scn.files.iter().map(|f| pages_for(f.size)).sum();
        k.pages = crate::mm_types::PageArena::with_capacity(file_pages.min(k.managed_pages()) as usize + 1024);
        // Memory split evenly between the nodes (node 0 takes the remainder), less what each
        // node holds at boot when the scenario says (`node_reserved`), node 0's first `dma32`
        // bytes in ZONE_DMA32.
        let n = scn.machine.nodes as u64;
        let node_pages = if scn.machine.node_reserved.len() == n as usize {
            let mut v: Vec<u64> = scn.machine.node_reserved.iter().map(|&r| ram_pages / n - r / PAGE_SIZE).collect();
            v[0] += ram_pages % n;
            v
        } else {
            let managed = k.managed_pages();
            let mut v = vec![managed / n; n as usize];
            v[0] += managed % n;
            v
        };
        k.setup_nodes(&node_pages, scn.machine.dma32 / PAGE_SIZE);
        k.take_boot_frames();
        if let (true, Some(d)) = (scn.machine.swap > 0, scn.machine.swap_device) {
            let pages = scn.machine.swap / PAGE_SIZE;
            let base = k.devices[d].alloc_extent(pages);
            let mut area = crate::swapfile::SwapArea::new(DevId(d as u32), base, pages);
            // swapon: "if (p->bdev && bdev_nonrot(p->bdev)) p->flags |= SWP_SOLIDSTATE; else
            // atomic_inc(&nr_rotate_swap)".
            area.solidstate = !scn.devices[d].rotational;
            // claim_swapfile(): only a block device's inode sets SWP_BLKDEV (a swap file's
            // `si->bdev` is its file system's, so SWP_SOLIDSTATE above holds for both).
            area.blkdev = !scn.machine.swap_file;
            k.swap = Some(area);
            k.zswap = scn.machine.zswap.map(crate::zswap::Zswap::new);
            // swapon -> enable_swap_slots_cache() (4.11-6.14): one cache per CPU
            // (`alloc_swap_slot_cache()` at CPU hotplug), sized here, none used on the way.
            if k.profile.swap_slots_cache {
                k.swap_slots = crate::swap_slots::SwapSlotsCache::new(scn.machine.cpus.max(1) as usize);
            }
        }
        let mut work_total = 0;
        let mut ti = 0usize;
        let tasks: Vec<Task> = scn
            .tasks
            .iter()
            .map(|t| {
                for op in &t.ops {
                    work_total += match &op.kind {
                        OpKind::Read { file, offset, length, pattern, bufsize, .. } => match pattern {
                            Pattern::Sequential => pages_for(length.unwrap_or(scn.files[*file].size.saturating_sub(*offset))),
                            Pattern::Random { count } => count * pages_for(*bufsize),
                        },
                        OpKind::Write { length, .. } => pages_for(*length),
                        OpKind::Trace { events, loops, .. } => events.saturating_mul(*loops),
                        OpKind::Touch { access, .. } => match access.pattern {
                            crate::scenario::model::TouchPattern::Random { count } => count,
                            _ => 1,
                        },
                        _ => 1,
                    };
                }
                let memcg = t.cgroup.map(|i| memcg_of_cgroup[i]).unwrap_or(MemcgId::ROOT);
                k.memcgs.add_tasks(memcg, 1);
                k.lru_gen_add_mm(ti as u32, memcg);
                k.oom_task_add(ti as u32, memcg);
                ti += 1;
                Task {
                    name: t.name.clone(),
                    memcg,
                    pc: 0,
                    times: TaskTimes { clock: t.start, ..Default::default() },
                    cursor: Cursor::Idle,
                    snapshot: None,
                    step_memcg: memcg,
                    step_pc: 0,
                    steps_done: 0,
                    gap_slept: false,
                    killed: false,
                    node: t.node,
                    maps: vec![],
                    samples: vec![],
                    waiting: false,
                    dirty: Default::default(),
                    resumed: Resumed::NONE,
                    charge_loop: None,
                    load: 0,
                    load_at: t.start,
                    departed: None,
                    // a new task is placed with a slice of its own (`place_entity()` at fork)
                    slice_left: k.sched_slice,
                    eevdf_lag: 0,
                    bound_rq: crate::fair::BoundRq::new(k.sched_slice, crate::sched::entity_lag_limit(&k.profile, k.nr_cpu_ids)),
                    bound_worker_deferred: 0,
                    bound_worker_slice: 0,
                    bound_worker_tick_at: 0,
                    bound_worker_memcg: 0,
                }
            })
            .collect();
        let series = Series::for_kernel(&k);
        let runq = tasks
            .iter()
            .enumerate()
            .filter(|(i, _)| !scn.tasks[*i].ops.is_empty())
            .map(|(i, t)| Reverse((t.times.clock, i)))
            .collect();
        let mut unforked: Vec<usize> = (0..tasks.len()).filter(|&i| !scn.tasks[i].ops.is_empty()).collect();
        unforked.sort_by_key(|&i| Reverse((tasks[i].times.clock, i)));
        // The periodic memcg statistics flusher, from the machine as set up (6.12+ reclaim reads
        // its copy).
        k.start_stats_flush(scn.boot_seed);
        Simulation {
            kernel: k,
            scenario: rc.clone(),
            tasks,
            inodes,
            memcg_of_cgroup,
            steps: vec![],
            series,
            next_sample: 0,
            sample_interval: scn.sample_interval,
            rng: Rng::new(scn.seed),
            work_done: 0,
            work_total: work_total.max(1),
            runq,
            unforked,
            departed: BinaryHeap::new(),
            errors: vec![],
            nr_errors: 0,
            events: vec![],
            rp_scratch: vec![],
            trace_sources: (0..scn.tasks.len()).map(|_| None).collect(),
            trace_runs: (0..scn.tasks.len()).map(|_| None).collect(),
            trace_error: None,
            trace_stats: vec![],
            report_unevictable: scn.tasks.iter().any(|t| t.ops.iter().any(|o| matches!(o.kind, OpKind::Mlock { .. }))),
        }
    }

    /// The memcg created for cgroup `path` (without leading slash).
    pub fn memcg(&self, path: &str) -> Option<MemcgId> {
        self.scenario.cgroups.iter().position(|c| c.path == path).map(|i| self.memcg_of_cgroup[i])
    }

    /// The inode of file `path`.
    pub fn inode(&self, path: &str) -> Option<InodeId> {
        self.scenario.files.iter().position(|f| f.path == path).map(|i| self.inodes[i])
    }

    /// Run one quantum of the task whose clock is earliest (ties: lowest task index), after
    /// taking the time-series samples due before it. Returns false when every task is done.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((t_now, ti))) = self.runq.pop() else { return false };
        if self.tasks[ti].killed {
            // Killed (by the OOM killer) while it waited for its turn.
            return true;
        }
        // No context looks at a device queue before the earliest of this task's clock and an
        // awake kswapd's (which catches up from its own): requests completed by then are freed.
        let horizon = self.kernel.nodes.iter().filter(|n| n.kswapd_active).map(|n| n.kswapd_clock).fold(t_now, Nanos::min);
        // The tasks whose start has come are forked, each a full weight on the run queue
        // (`wake_up_new_task()` -> `activate_task()`), before any of them runs: tasks that start
        // together share the CPUs from their first quantum (`quantum_runnable_weight`).
        while let Some(&i) = self.unforked.last() {
            if self.tasks[i].times.clock > t_now {
                break;
            }
            self.unforked.pop();
            let load = quantum_runnable_weight(0, 0);
            let t = &mut self.tasks[i];
            if t.load == 0 && !t.killed {
                t.load = load;
                self.kernel.task_load_sum += load;
            }
        }
        // The tasks that left the run queue by now no longer count (`Kernel::departed_load_sum`,
        // which kswapd reads when the timers below run it).
        self.departed_weight(t_now);
        self.kernel.blk_retire(horizon);
        while self.next_sample <= t_now {
            self.kernel.advance_clock(self.next_sample);
            self.series.sample(&self.kernel, self.next_sample);
            if self.series.rows.len() >= MAX_SAMPLES {
                // A run far longer than its sample interval: keep every other row and sample
                // half as often, so the series stays a regular grid over the whole run.
                self.series.rows = std::mem::take(&mut self.series.rows).into_iter().step_by(2).collect();
                self.sample_interval *= 2;
                self.next_sample = (self.series.rows.len() as u64) * self.sample_interval;
                continue;
            }
            self.next_sample += self.sample_interval;
        }
        let t = &self.tasks[ti].times;
        let before = (t.sys + t.user + t.runq, self.tasks[ti].load);
        self.run_quantum(ti);
        self.task_load_update(ti, before);
        if let Some(victim) = self.kernel.oom_victim {
            self.oom_kill_task(victim as usize);
        }
        // The victims of the quantum's allocation-path OOM kills (oom_kill.rs
        // alloc_pages_may_oom()), in the order they were killed.
        while !self.kernel.oom_killed.is_empty() {
            let victim = self.kernel.oom_killed.remove(0);
            self.oom_kill_task(victim as usize);
        }
        let t = &self.tasks[ti];
        if !t.killed && !t.waiting && t.pc < self.scenario.tasks[ti].ops.len() {
            self.runq.push(Reverse((t.times.clock, ti)));
        } else if t.waiting {
            self.task_off_runq(ti);
        } else {
            self.task_off_runq(ti);
            // do_exit() -> exit_mm(): its mm leaves its memcg's list (lru_gen_del_mm()) and
            // the OOM killer's candidates.
            self.kernel.task_exit_mm(ti as u32);
        }
        true
    }

    /// Bring task `ti`'s weight on the run queue up to the end of the quantum it ran (its
    /// clock): the quantum's runnable fraction ([`quantum_runnable_weight`]), its runnable time
    /// being its CPU time (system and user) and its waits for a CPU (its I/O waits and sleeps
    /// are not runnable); and the sum of the tasks' weights with it. `before`: the task's runnable time so far and its average, as
    /// they were before the quantum (an OOM kill in the quantum may have taken it off).
    fn task_load_update(&mut self, ti: usize, before: (Nanos, u64)) {
        let t = &mut self.tasks[ti];
        if t.killed || t.load != before.1 || t.times.clock <= t.load_at {
            return;
        }
        let runnable = t.times.sys + t.times.user + t.times.runq - before.0;
        let load = quantum_runnable_weight(t.times.clock - t.load_at, runnable);
        self.kernel.task_load_sum = self.kernel.task_load_sum - t.load + load;
        (t.load, t.load_at) = (load, t.times.clock);
    }

    /// Task `ti` blocked (a `wait`) or exited: no longer runnable (`dequeue_entity()`), its
    /// weight out of the sum; a task a post wakes is enqueued again whole ([`Simulation::task_on_runq`]).
    pub(crate) fn task_off_runq(&mut self, ti: usize) {
        let t = &mut self.tasks[ti];
        let load = std::mem::take(&mut t.load);
        self.kernel.task_load_sum -= load;
        t.load_at = t.times.clock;
        if load > 0 {
            // on the run queue up to its own clock (`Simulation::departed`)
            let at = t.times.clock;
            if let Some((_, old)) = t.departed.replace((at, load)) {
                self.kernel.departed_load_sum -= old;
            }
            self.departed.push(Reverse((at, ti)));
            self.kernel.departed_load_sum += load;
        }
    }

    /// The weight of the tasks that left the run queue after `now` ([`Simulation::departed`]):
    /// still runnable at `now` by their last quanta's fractions. Those that left at or before
    /// `now` are forgotten (the quanta run in clock order, so a later quantum does not need them).
    pub(crate) fn departed_weight(&mut self, now: Nanos) -> u64 {
        while let Some(&Reverse((at, ti))) = self.departed.peek() {
            if at > now {
                break;
            }
            self.departed.pop();
            // a task woken meanwhile took its entry back (`Simulation::task_on_runq`)
            if let Some((left, load)) = self.tasks[ti].departed {
                if left == at {
                    self.tasks[ti].departed = None;
                    self.kernel.departed_load_sum -= load;
                }
            }
        }
        self.kernel.departed_load_sum
    }

    /// Task `ti` woken from a `wait` (`try_to_wake_up()` -> `activate_task()`): a full weight
    /// on the run queue until its next quantum measures it ([`quantum_runnable_weight`]), from
    /// its clock now. Woken before the other tasks' clocks reach the one it left the run
    /// queue at, it would count there twice (whole and by its departed weight): its entry in
    /// [`Simulation::departed`] is taken back, and it counts once, whole (review51 L3).
    pub(crate) fn task_on_runq(&mut self, ti: usize) {
        let t = &mut self.tasks[ti];
        if let Some((_, load)) = t.departed.take() {
            self.kernel.departed_load_sum -= load;
        }
        if t.load == 0 && !t.killed {
            t.load = quantum_runnable_weight(0, 0);
            self.kernel.task_load_sum += t.load;
        }
        t.load_at = t.times.clock;
    }

    /// The SIGKILL of a task the OOM killer chose (`Kernel::oom_victim`, `Kernel::oom_killed`,
    /// oom_kill.rs) and its exit, at the kernel's present time: the step it is in ends with
    /// `oom_killed` (a task between steps is killed in the next one, which it was about to
    /// run), the file its read or write holds is closed, and `exit_mmap()` frees its mappings
    /// (`do_munmap()` of each, the files they map closed; those an allocation's kill unmapped
    /// already are gone). A task whose own allocation failed as the victim has ended its step
    /// already (`killed`): only its exit is left.
    fn oom_kill_task(&mut self, ti: usize) {
        let scn = Rc::clone(&self.scenario);
        if self.tasks[ti].killed || self.tasks[ti].pc >= scn.tasks[ti].ops.len() {
            if !self.tasks[ti].maps.is_empty() {
                self.exit_mmap_off_cpu(ti);
            }
            self.kernel.task_exit_mm(ti as u32);
            return;
        }
        let op = &scn.tasks[ti].ops[self.tasks[ti].pc];
        let now = self.kernel.now;
        self.tasks[ti].times.clock = now;
        if self.tasks[ti].snapshot.is_none() {
            let memcg = self.tasks[ti].memcg;
            self.tasks[ti].step_memcg = memcg;
            self.tasks[ti].step_pc = self.tasks[ti].pc;
            self.tasks[ti].snapshot = Some(Snapshot::take(&self.kernel, memcg, self.tasks[ti].times));
        }
        self.enter(ti);
        match (&op.kind, std::mem::replace(&mut self.tasks[ti].cursor, Cursor::Idle)) {
            (OpKind::Read { file, .. }, Cursor::Read { .. }) | (OpKind::Write { file, .. }, Cursor::Write { .. }) => {
                self.kernel.dput(self.inodes[*file]);
            }
            (_, Cursor::Probe { vma, .. }) if self.task_maps(ti, vma) => self.kernel.do_munmap(vma),
            _ => {}
        }
        self.exit_mmap(ti);
        self.kernel.task_exit_mm(ti as u32);
        self.leave(ti, 0);
        self.task_off_runq(ti);
        self.tasks[ti].killed = true;
        self.tasks[ti].waiting = false;
        self.finish_step(ti, op, false);
    }

    /// `exit_mmap()` of task `ti` ([`Kernel::exit_mmap`]: the live mappings of its mm, so
    /// those the OOM killer's exit of it unmapped already, `Kernel::alloc_pages_may_oom()`,
    /// are not met again); its names for them are dropped.
    fn exit_mmap(&mut self, ti: usize) {
        self.tasks[ti].maps.clear();
        self.kernel.exit_mmap(ti as u32);
    }

    /// [`Self::exit_mmap`] of a task that is not running, as its own exit on its CPU.
    fn exit_mmap_off_cpu(&mut self, ti: usize) {
        self.enter(ti);
        self.exit_mmap(ti);
        self.leave(ti, 0);
    }

    /// Whether `vma` is still a live mapping of task `ti` (an OOM kill's exit may have
    /// unmapped it, and its entry may be another task's mapping since).
    fn task_maps(&self, ti: usize, vma: crate::memory::VmaId) -> bool {
        let v = &self.kernel.vmas[vma.0 as usize];
        v.live && v.mm == ti as u32
    }

    /// Unit tests: set task `ti`'s clock and its weight on the run queue (as a quantum ending
    /// there would, [`Simulation::task_load_update`]), the sum with it.
    #[cfg(test)]
    pub(crate) fn set_task_quantum(&mut self, ti: usize, clock: Nanos, load: u64) {
        let t = &mut self.tasks[ti];
        self.kernel.task_load_sum = self.kernel.task_load_sum - t.load + load;
        (t.times.clock, t.load, t.load_at) = (clock, load, clock);
    }

    /// The clock of task `name` (unit tests watch who runs while a task sleeps).
    #[cfg(test)]
    pub(crate) fn task_clock(&self, name: &str) -> Nanos {
        self.tasks.iter().find(|t| t.name == name).map_or(0, |t| t.times.clock)
    }

    /// The I/O wait task `name` has accumulated so far (unit tests watch a task's sleeps).
    #[cfg(test)]
    pub(crate) fn task_iowait(&self, name: &str) -> Nanos {
        self.tasks.iter().find(|t| t.name == name).map_or(0, |t| t.times.iowait)
    }

    /// Run to the end, calling `progress(done, total)` now and then; the run stops with
    /// [`Interrupted`] as soon as `progress` returns false.
    pub fn run(self, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<SimResult, Interrupted> {
        self.run_traced(progress).map_err(|_| Interrupted)
    }

    /// [`Simulation::run`], telling an interruption from a defective trace.
    pub fn run_traced(mut self, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<SimResult, RunError> {
        let mut n = 0u64;
        let mut reported = 0u64;
        while self.step() {
            if let Some(e) = self.trace_error.take() {
                return Err(RunError::Trace(e));
            }
            n += 1;
            // Every 2048 syscalls, and every PROGRESS_PAGES pages of work, so that a few huge
            // reads report as they go too.
            if n.is_multiple_of(2048) || self.work_done - reported >= PROGRESS_PAGES {
                reported = self.work_done;
                if !progress(self.work_done.min(self.work_total), self.work_total) {
                    return Err(RunError::Interrupted);
                }
            }
        }
        progress(self.work_total, self.work_total);
        // Tasks still blocked: nothing will post their events any more.
        for ti in 0..self.tasks.len() {
            if self.tasks[ti].waiting {
                let scn = Rc::clone(&self.scenario);
                let op = &scn.tasks[ti].ops[self.tasks[ti].pc];
                self.tasks[ti].waiting = false;
                self.tasks[ti].killed = true;
                self.op_failed(ti, op, crate::cgroup::Errno::EDEADLK);
            }
        }
        let end = self.tasks.iter().map(|t| t.times.clock).max().unwrap_or(0);
        self.kernel.advance_clock(end);
        self.series.sample(&self.kernel, end);
        let k = &self.kernel;
        let engine = EngineStats {
            page_events: k.page_events,
            host_bytes: k.host_bytes() as u64,
            host_bytes_parts: k.host_bytes_parts().iter().map(|&(n, b)| (n, b as u64)).collect(),
            resident_pages: k.nr_file_pages(),
            virtual_time_s: crate::types::secs(end),
            kswapd_s: crate::types::secs(k.kswapd_ns),
            kswapd_runq_s: crate::types::secs(k.kswapd_runq_ns),
            vmpressure_works: k.vmpressure_works,
        };
        let totals = totals(&self.steps);
        Ok(SimResult {
            scenario: self.scenario.name.clone(),
            variant: self.scenario.variant.clone(),
            steps: self.steps,
            totals,
            series: self.series,
            engine,
            errors: self.errors,
            nr_errors: self.nr_errors,
            traces: self.trace_stats,
        })
    }

    /// Steps ended so far.
    pub fn steps_done(&self) -> usize {
        self.steps.len()
    }

    /// The ops that failed so far, as the syscall would (at most the first 100).
    pub fn op_errors(&self) -> &[String] {
        &self.errors
    }

    fn op_failed(&mut self, ti: usize, op: &crate::scenario::model::OpSpec, e: crate::cgroup::Errno) {
        self.nr_errors += 1;
        if self.errors.len() < 100 {
            let what = op.kind.describe(&self.scenario.files);
            // Errno's own text speaks of cgroups; say what it means for the other ops.
            use crate::cgroup::Errno;
            let why = match (&op.kind, e) {
                (OpKind::Mmap { .. }, Errno::EEXIST) => "EEXIST (the task already has a live mapping of that name)".to_string(),
                (OpKind::Munmap { .. } | OpKind::Touch { .. } | OpKind::Madvise { .. } | OpKind::Msync { .. } | OpKind::Mlock { .. }, Errno::ENOENT) => "ENOENT (the task has no live mapping of that name)".to_string(),
                (OpKind::Fadvise { .. }, Errno::ENOENT) => "ENOENT (no such directory)".to_string(),
                (_, Errno::ENOMEM) => self.enomem_why(self.tasks[ti].memcg),
                _ => e.to_string(),
            };
            self.errors.push(format!(
                "task {} at {:.6} s, step {:?}, op {} ({what}): {why}",
                self.tasks[ti].name,
                crate::types::secs(self.kernel.now),
                op.step,
                self.tasks[ti].pc
            ));
        }
    }

    /// Why a charge to `memcg` failed, in the scenario's terms: a memcg (or an ancestor) with
    /// a limit of 0 can hold nothing. The kernel accepts such a limit on an empty group
    /// (`mem_cgroup_resize_max()` only fails, with EBUSY, when usage cannot be brought under
    /// it); the task's first charge then finds no room and no way to reclaim any
    /// (`try_charge_memcg()`): the memcg OOM killer kills it, or the allocation fails.
    fn enomem_why(&self, memcg: MemcgId) -> String {
        let file = match self.scenario.cgroup_version {
            crate::memcontrol::CgroupVersion::V1 => "memory.limit_in_bytes",
            crate::memcontrol::CgroupVersion::V2 => "memory.max",
        };
        let mut cur = Some(memcg);
        while let Some(m) = cur {
            let mc = self.kernel.memcgs.get(m);
            if mc.counter.max == 0 {
                return format!(
                    "ENOMEM: cgroup `{}` has {file} = 0, so nothing can be charged to it (the kernel accepts a 0 limit on an empty cgroup; a task's first charge there fails and the memcg OOM killer kills it). Write {file} = \"max\" for no limit, or a size such as \"100M\"",
                    mc.path.trim_start_matches('/'),
                );
            }
            cur = mc.parent;
        }
        crate::cgroup::Errno::ENOMEM.to_string()
    }

    /// `try_to_wake_up()` of task `ti` out of a sleep outside the kernel's I/O waits (a timer
    /// sleep, a futex wait): the same run-queue wait and fresh slice as
    /// [`Kernel::wait_until`]'s wake-up ([`Kernel::ttwu_fair_wait`]).
    fn ttwu(&mut self, ti: usize, slept: Nanos) {
        if let Some((wait, slice)) = self.kernel.ttwu_fair_wait(&mut self.tasks[ti].eevdf_lag, slept) {
            let t = &mut self.tasks[ti];
            t.times.clock += wait;
            t.times.runq += wait;
            t.slice_left = slice;
        }
        // it slept: a bound kworker queued behind it ran meanwhile (bound_worker_deferred)
        self.bound_worker_slept(ti);
    }

    /// Task `ti` sleeps outside its quantum with a bound kworker's run deferred behind it: the
    /// kworker runs meanwhile ([`Kernel::bound_worker_slept`]'s rule for a sleep inside one), its
    /// vmpressure work taking its memcg's counter back to 0 (mm/vmpressure.c 6.18
    /// `vmpressure_work_fn()`, [`Kernel::vmpressure_work_ran`]).
    pub(crate) fn bound_worker_slept(&mut self, ti: usize) {
        let t = &mut self.tasks[ti];
        if t.bound_worker_deferred > 0 {
            if let Some(c) = self.kernel.vmpressure_tree_scanned.get_mut(t.bound_worker_memcg as usize) {
                *c = 0;
            }
        }
        (t.bound_worker_deferred, t.bound_worker_tick_at) = (0, 0);
        if self.kernel.bound_rq_on() {
            let vr = t.bound_rq.vruntime(t.times.sys + t.times.user);
            t.bound_rq.task_slept(vr, self.kernel.sched_slice);
        }
    }

    pub(crate) fn enter(&mut self, ti: usize) {
        let departed = self.departed_weight(self.tasks[ti].times.clock);
        let k = &mut self.kernel;
        let t = &self.tasks[ti];
        k.cur_nid = t.node;
        // The per-CPU page lists of the task's CPU (page_alloc.rs PerCpuPages).
        k.pcp_ctx = k.task_cpu(ti);
        k.cur_mm = ti as u32;
        k.lru_gen_use_mm();
        k.advance_clock(t.times.clock);
        k.sys_ns = 0;
        k.iowait_ns = 0;
        k.memstall_ns = 0;
        debug_assert_eq!(k.stall.depth(), 0, "leave() took the last quantum's stalls");
        // The task's CFS share of the CPUs beside the other tasks that want one, each by its
        // expected weight on the run queue at this instant (`quantum_runnable_weight`), and the
        // awake kswapds by their runnable averages (`crate::kernel::cfs_stretch`).
        let others = (k.task_load_sum - t.load + departed + k.kswapd_load_sum(None)) >> LOAD_PRECISION_SHIFT;
        k.cpu_stretch = crate::kernel::cfs_stretch(others, k.nr_cpu_ids);
        // the same weights keep the other CPUs busy at a write completion's wake-up (sis23, M4);
        // the task's own part of the LLC's utilisation is its PELT util_avg (running time, 32 ms
        // half-life: runnable_avg_update()'s series over its CPU time since its last quantum)
        k.rq_tasks = others;
        k.rq_own = k.task_util_update(ti, t.times.clock, t.times.sys + t.times.user);
        // Beyond the slice it woke with, its share beside the machine's background too
        // (`Kernel::cpu_wall`).
        // By autogroup where the machine shares the CPUs so (`crate::kernel::autogroup_stretch`).
        k.bg_stretch = match k.bg_autogroup {
            _ if k.bg_load == 0 => k.cpu_stretch,
            Some((entities, own)) => crate::kernel::autogroup_stretch(others, own, entities, k.bg_load, k.nr_cpu_ids),
            None => crate::kernel::cfs_stretch(others + k.bg_load, k.nr_cpu_ids),
        };
        k.slice_left = t.slice_left;
        k.eevdf_lag = t.eevdf_lag;
        k.bound_rq = t.bound_rq;
        k.task_cpu_base = t.times.sys + t.times.user;
        k.bound_worker_deferred = t.bound_worker_deferred;
        k.bound_worker_slice = t.bound_worker_slice;
        (k.bound_worker_tick_at, k.bound_worker_memcg) = (t.bound_worker_tick_at, t.bound_worker_memcg);
        k.cpu_plain_update();
        k.in_task = true;
        k.runq_ns = 0;
        k.task_dirty = t.dirty;
        k.resched.resumed = t.resumed;
        k.resched.charge_loop = t.charge_loop;
        k.io = IoAcct::default();
    }

    pub(crate) fn leave(&mut self, ti: usize, user_ns: Nanos) {
        // the quantum's end is a return to user space: the loop worker's pending run (kwork23)
        self.kernel.loop_worker_resched();
        let memcg = self.tasks[ti].memcg;
        self.kernel.mem_cgroup_handle_over_high(memcg);
        let (start, stall) = (self.tasks[ti].times.clock, std::mem::take(&mut self.kernel.memstall_ns));
        self.kernel.psi_account(memcg, start, stall);
        let stall = self.kernel.stall.take();
        let user_wall = self.kernel.cpu_wall(user_ns);
        if self.kernel.bound_worker_deferred > 0 && self.kernel.in_task {
            // its user time, after the return to user (and any memory.high sleep on the way,
            // which ran the kworker), uses its protected slice too and may reach the tick
            // (review49 L1, lag23); a wait charged here comes before the user time's wall
            let now = self.kernel.now;
            self.kernel.bound_worker_tick(user_ns, now, now + user_wall);
        }
        let k = &self.kernel;
        let t = &mut self.tasks[ti];
        t.dirty = k.task_dirty;
        t.resumed = k.resched.resumed;
        t.charge_loop = k.resched.charge_loop;
        t.slice_left = k.slice_left;
        t.eevdf_lag = k.eevdf_lag;
        t.bound_rq = k.bound_rq;
        t.bound_worker_deferred = k.bound_worker_deferred;
        t.bound_worker_slice = k.bound_worker_slice;
        (t.bound_worker_tick_at, t.bound_worker_memcg) = (k.bound_worker_tick_at, k.bound_worker_memcg);
        t.times.runq += k.runq_ns + (user_wall - user_ns);
        t.times.clock = k.now + user_wall;
        t.times.user += user_ns;
        t.times.sys += k.sys_ns;
        t.times.iowait += k.iowait_ns;
        for (acc, ns) in t.times.stall.iter_mut().zip(stall) {
            *acc += ns;
        }
        t.times.io.read_bytes += k.io.read_bytes;
        t.times.io.write_bytes += k.io.write_bytes;
        t.times.io.hits += k.io.hits;
        t.times.io.misses += k.io.misses;
        self.work_done += k.io.hits + k.io.misses;
        // Off the task's CPU: the kernel's own work between quanta has a CPU of its own.
        (self.kernel.cpu_stretch, self.kernel.runq_ns) = (crate::kernel::SCHED_CAPACITY_SCALE, 0);
        (self.kernel.bg_stretch, self.kernel.in_task) = (crate::kernel::SCHED_CAPACITY_SCALE, false);
        (self.kernel.rq_tasks, self.kernel.rq_own) = (0, 0);
        // the deferred wait is the task's (copied above): none in the kernel between quanta, nor
        // for the next task's enter() before its own are loaded (review50 M2)
        (self.kernel.bound_worker_deferred, self.kernel.bound_worker_slice, self.kernel.bound_worker_tick_at) = (0, 0, 0);
        self.kernel.cpu_plain_update();
    }

    fn run_quantum(&mut self, ti: usize) {
        let scn = Rc::clone(&self.scenario);
        let op = &scn.tasks[ti].ops[self.tasks[ti].pc];
        if self.tasks[ti].snapshot.is_none() {
            // A real runner's time between the task's steps (TaskSpec::step_gaps), slept before
            // the step's start snapshot: the kernel's clock and its timers (the periodic memcg
            // stats flush, writeback, kswapd) run on while the runner takes its snapshots.
            if !self.tasks[ti].gap_slept {
                self.tasks[ti].gap_slept = true;
                let gap = self.tasks[ti].steps_done.checked_sub(1).and_then(|k| scn.tasks[ti].step_gaps.get(k)).copied().unwrap_or(0);
                if gap > 0 {
                    self.tasks[ti].times.clock += gap;
                    // it slept: a bound kworker queued behind it ran meanwhile (review50 L1)
                    self.bound_worker_slept(ti);
                    return;
                }
            } else if self.tasks[ti].steps_done > 0 && scn.tasks[ti].step_gaps.get(self.tasks[ti].steps_done - 1).is_some_and(|&g| g > 0) {
                // Woken from the gap: the kernel's timers run up to now before the snapshot.
                self.kernel.advance_clock(self.tasks[ti].times.clock);
            }
            let memcg = self.tasks[ti].memcg;
            self.tasks[ti].step_memcg = memcg;
            self.tasks[ti].step_pc = self.tasks[ti].pc;
            self.runner_reads_memory_stat(memcg);
            self.tasks[ti].snapshot = Some(Snapshot::take(&self.kernel, memcg, self.tasks[ti].times));
        }
        let user = self.kernel.cost.user_per_syscall;
        let mut finished = false;
        let mut oom = false;
        match &op.kind {
            OpKind::Trace { .. } => {
                self.trace_quantum(ti, op);
                return;
            }
            OpKind::Read { file, offset, length, bufsize, pattern, fadvise, scan } => {
                let inode = self.inodes[*file];
                if matches!(self.tasks[ti].cursor, Cursor::Idle) && !self.open_file(ti, inode, op) {
                    self.finish_step(ti, op, true);
                    return;
                }
                if matches!(self.tasks[ti].cursor, Cursor::Idle) {
                    let size = self.kernel.inodes[inode.idx()].size;
                    let end = length.map(|l| offset + l).unwrap_or(size).min(size.max(*offset));
                    let left = match pattern {
                        Pattern::Sequential => 0,
                        Pattern::Random { count } => *count,
                    };
                    let dev = self.kernel.inodes[inode.idx()].dev;
                    let bdi_ra = dev.map(|d| self.kernel.devices[d.idx()].ra_pages() as u32).unwrap_or(1);
                    // generic_fadvise(): SEQUENTIAL doubles the window, RANDOM turns it off.
                    let mut ra = FileRaState::new(if *fadvise == Advice::Sequential { bdi_ra * 2 } else { bdi_ra });
                    ra.random = *fadvise == Advice::Random;
                    self.tasks[ti].cursor = Cursor::Read { pos: *offset, end, left, ra };
                }
                let Cursor::Read { pos, end, left, mut ra } = std::mem::replace(&mut self.tasks[ti].cursor, Cursor::Idle) else {
                    unreachable!()
                };
                let (chunk_pos, next_pos, next_left) = match pattern {
                    Pattern::Sequential => (pos, pos + bufsize, 0),
                    Pattern::Random { .. } => {
                        let chunks = (end.saturating_sub(*offset)).div_ceil(*bufsize).max(1);
                        (offset + self.rng.below(chunks) * bufsize, pos, left.saturating_sub(1))
                    }
                };
                let len = (*bufsize).min(end.saturating_sub(chunk_pos));
                self.enter(ti);
                let memcg = self.tasks[ti].memcg;
                let got = match self.kernel.filemap_read(inode, chunk_pos, len, &mut ra, memcg) {
                    Ok(n) => n,
                    Err(_) => {
                        oom = true;
                        0
                    }
                };
                let scan_ns = if *scan { crate::types::pages_for(got) * self.kernel.cost.grep_scan_page } else { 0 };
                self.leave(ti, user + scan_ns);
                let done = match pattern {
                    Pattern::Sequential => next_pos >= end,
                    Pattern::Random { .. } => next_left == 0,
                };
                if done || oom {
                    self.kernel.dput(inode);
                    finished = true;
                } else {
                    self.tasks[ti].cursor = Cursor::Read { pos: next_pos, end, left: next_left, ra };
                }
            }
            OpKind::Write { file, offset, length, bufsize, fsync, create, truncate } => {
                let inode = self.inodes[*file];
                if *create && !self.kernel.inodes[inode.idx()].exists {
                    self.kernel.inodes[inode.idx()].exists = true;
                }
                if matches!(self.tasks[ti].cursor, Cursor::Idle) && !self.open_file(ti, inode, op) {
                    self.finish_step(ti, op, true);
                    return;
                }
                if matches!(self.tasks[ti].cursor, Cursor::Idle) {
                    if *truncate {
                        self.enter(ti);
                        // do_truncate() -> notify_change() -> the file system's setattr
                        // (ext4_setattr(), xfs_vn_setattr(), shmem_setattr()):
                        // truncate_setsize(inode, 0) sets i_size 0 on every file system, then
                        // truncate_pagecache() drops the pages (shmem_is_huge()'s within_size
                        // and readahead's end of file read i_size).
                        self.kernel.inodes[inode.idx()].size = 0;
                        self.kernel.truncate_inode_pages(inode);
                        self.leave(ti, 0);
                    }
                    self.tasks[ti].cursor = Cursor::Write { pos: *offset, end: offset + length, call_end: 0 };
                }
                let Cursor::Write { pos, end, call_end } = self.tasks[ti].cursor.clone() else { unreachable!() };
                // A call a sleep interrupted goes on to its own end.
                let len = if call_end > pos { call_end - pos } else { (*bufsize).min(end - pos) };
                self.enter(ti);
                let memcg = self.tasks[ti].memcg;
                // A sleep in a page's charge may end the quantum: the write goes on from that
                // page at the task's wake-up (Resched).
                self.kernel.resched.horizon = self.runq_horizon();
                let written = match self.kernel.generic_perform_write(inode, pos, len, memcg) {
                    Ok(n) => n,
                    Err(_) => {
                        oom = true;
                        len
                    }
                };
                self.kernel.resched.horizon = None;
                let yielded = self.kernel.resched.wake.take().is_some();
                // The interrupted call resumes at the task's wake-up; a call that returned
                // leaves nothing to resume.
                self.kernel.resched.resumed = if yielded { Resumed::ALL } else { Resumed::NONE };
                if !yielded {
                    self.kernel.resched.charge_loop = None;
                }
                let next = pos + written;
                if next >= end && !oom && *fsync {
                    self.kernel.vfs_fsync(inode);
                }
                // A write that slept within is still in the kernel: no return to user space.
                self.leave(ti, if yielded { 0 } else { user });
                if next >= end || oom {
                    self.kernel.dput(inode);
                    finished = true;
                } else {
                    self.tasks[ti].cursor = Cursor::Write { pos: next, end, call_end: if yielded { pos + len } else { 0 } };
                }
            }
            OpKind::Fadvise { path, files, directory, walk, advice, offset, length } => {
                self.enter(ti);
                let memcg = self.tasks[ti].memcg;
                let uid = self.scenario.tasks[ti].uid;
                let first = (offset / PAGE_SIZE) as u32;
                let last = match length {
                    Some(0) | None => u32::MAX,
                    Some(l) => ((offset + l - 1) / PAGE_SIZE) as u32,
                };
                let mut failed = None;
                if !*directory {
                    self.kernel.generic_fadvise(self.inodes[files[0]], first, last, *advice, memcg);
                } else if *walk {
                    // From user space: opendir, then open + posix_fadvise + close of every file
                    // below that exists and that the task reaches (it may list each directory
                    // on the way and open the file for reading).
                    self.kernel.cpu(self.kernel.cost.syscall);
                    match self.kernel.lookup_dir(path) {
                        Some(d) if self.kernel.may_open_dir(d, uid) => {
                            for &f in files {
                                let inode = self.inodes[f];
                                if !self.kernel.inodes[inode.idx()].exists || !self.kernel.may_walk_to(d, inode, uid) {
                                    continue;
                                }
                                self.kernel.cpu(2 * self.kernel.cost.syscall + self.kernel.cost.lookup);
                                self.kernel.generic_fadvise(inode, first, last, *advice, memcg);
                            }
                        }
                        Some(_) => failed = Some(crate::cgroup::Errno::EACCES),
                        None => failed = Some(crate::cgroup::Errno::ENOENT),
                    }
                } else {
                    self.kernel.cpu(self.kernel.cost.syscall);
                    match self.kernel.lookup_dir(path) {
                        None => failed = Some(crate::cgroup::Errno::ENOENT),
                        Some(d) if !self.kernel.may_open_dir(d, uid) => failed = Some(crate::cgroup::Errno::EACCES),
                        // The seed-004 policy: every file below that the caller owns.
                        Some(d) if self.kernel.policies.fadvise_directory && *advice == crate::fadvise::Advice::DontNeed => {
                            self.kernel.shrink_pagecache_parent(d, uid);
                        }
                        // Kernels as they are: only the directory's own mapping, nothing inside.
                        _ => {}
                    }
                }
                self.leave(ti, user);
                if let Some(errno) = failed {
                    self.op_failed(ti, op, errno);
                }
                finished = true;
            }
            OpKind::Stat { file } => {
                let inode = self.inodes[*file];
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                let memcg = self.tasks[ti].memcg;
                if self.kernel.d_instantiate(inode, memcg) {
                    self.kernel.dget(inode);
                    self.kernel.dput(inode);
                } else {
                    self.op_failed(ti, op, crate::cgroup::Errno::ENOMEM);
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Fsync { file } => {
                self.enter(ti);
                self.kernel.vfs_fsync(self.inodes[*file]);
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Sleep { duration } => {
                if matches!(self.tasks[ti].cursor, Cursor::Sleeping) {
                    // Woken by its hrtimer (`hrtimer_nanosleep()` -> `try_to_wake_up()`): beside
                    // the background it waits for a CPU and starts a fresh slice.
                    self.ttwu(ti, *duration);
                    // The kernel's timers run up to now before the step's snapshot.
                    self.kernel.advance_clock(self.tasks[ti].times.clock);
                    finished = true;
                } else {
                    self.tasks[ti].times.clock += duration;
                    self.tasks[ti].cursor = Cursor::Sleeping;
                }
            }
            OpKind::Move { cgroup } => {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                let from = self.tasks[ti].memcg;
                match self.kernel.cgroup_attach_task(from, cgroup) {
                    Ok(to) => {
                        self.tasks[ti].memcg = to;
                        self.kernel.lru_gen_migrate_mm(ti as u32, to);
                        self.kernel.oom_task_migrate(ti as u32, to);
                    }
                    Err(e) => self.op_failed(ti, op, e),
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Mkdir { cgroup } => {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                if let Err(e) = self.kernel.cgroup_mkdir(cgroup) {
                    self.op_failed(ti, op, e);
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Rmdir { cgroup } => {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                if let Err(e) = self.kernel.cgroup_rmdir(cgroup) {
                    self.op_failed(ti, op, e);
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Exec { .. } => {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.spawn);
                let memcg = self.tasks[ti].memcg;
                self.kernel.process_spawned(memcg);
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Mmap { name, size, file, fill } => {
                if let Some(f) = file {
                    if !self.open_file(ti, self.inodes[f.file], op) {
                        self.finish_step(ti, op, true);
                        return;
                    }
                }
                self.enter(ti);
                let memcg = self.tasks[ti].memcg;
                if self.tasks[ti].maps.iter().any(|(n, _)| n == name) {
                    self.op_failed(ti, op, crate::cgroup::Errno::EEXIST);
                } else if let Some(f) = file {
                    let inode = self.inodes[f.file];
                    let n = pages_for(*size);
                    let vma = self.kernel.do_mmap_file(inode, (f.offset / PAGE_SIZE) as u32, n, memcg, f.shared, f.exec);
                    self.tasks[ti].maps.push((name.clone(), vma));
                    if f.advice != crate::scenario::model::MAdvice::Normal && self.kernel.do_madvise(vma, 0, n as u32, f.advice).is_err() {
                        self.op_failed(ti, op, crate::cgroup::Errno::EINVAL);
                    }
                    if f.populate {
                        // MAP_POPULATE -> __mm_populate(): FOLL_WRITE for a private writable
                        // mapping (a copy of every page), read faults otherwise.
                        let write = !f.shared && !f.exec;
                        for i in 0..n as u32 {
                            if self.kernel.handle_mm_fault_file(vma, i, write).is_err() {
                                oom = true;
                                break;
                            }
                            if self.kernel.nr_pages_over_high != 0 {
                                self.kernel.mem_cgroup_handle_over_high(memcg);
                            }
                        }
                    }
                } else {
                    let vma = self.kernel.do_mmap_anon(pages_for(*size), memcg);
                    self.kernel.vmas[vma.0 as usize].fill = *fill;
                    self.tasks[ti].maps.push((name.clone(), vma));
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Munmap { name } => {
                self.enter(ti);
                match self.tasks[ti].maps.iter().position(|(n, _)| n == name) {
                    Some(i) => {
                        let (_, vma) = self.tasks[ti].maps.remove(i);
                        let inode = self.kernel.vmas[vma.0 as usize].file.as_ref().map(|f| f.inode);
                        self.kernel.do_munmap(vma);
                        if let Some(inode) = inode {
                            // The mapping held the file open (fput() at unmap).
                            self.kernel.dput(inode);
                        }
                    }
                    None => self.op_failed(ti, op, crate::cgroup::Errno::ENOENT),
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Madvise { name, advice, offset, length } => {
                self.enter(ti);
                match self.tasks[ti].maps.iter().find(|(n, _)| n == name) {
                    Some(&(_, vma)) => {
                        let len = self.kernel.vmas[vma.0 as usize].pages.len() as u32;
                        let first = ((offset / PAGE_SIZE) as u32).min(len);
                        let end = length.map_or(len, |l| (pages_for(offset + l) as u32).min(len));
                        if self.kernel.do_madvise(vma, first, end.max(first), *advice).is_err() {
                            self.op_failed(ti, op, crate::cgroup::Errno::EINVAL);
                        }
                    }
                    None => self.op_failed(ti, op, crate::cgroup::Errno::ENOENT),
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Msync { name } => {
                self.enter(ti);
                match self.tasks[ti].maps.iter().find(|(n, _)| n == name) {
                    Some(&(_, vma)) => self.kernel.msync(vma),
                    None => self.op_failed(ti, op, crate::cgroup::Errno::ENOENT),
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Mlock { name, lock } => {
                self.enter(ti);
                match self.tasks[ti].maps.iter().find(|(n, _)| n == name) {
                    Some(&(_, vma)) => oom = self.kernel.do_mlock(vma, *lock).is_err(),
                    None => self.op_failed(ti, op, crate::cgroup::Errno::ENOENT),
                }
                self.leave(ti, user);
                finished = true;
            }
            OpKind::Touch { name, access } => {
                if matches!(self.tasks[ti].cursor, Cursor::Idle) {
                    match self.tasks[ti].maps.iter().find(|(n, _)| n == name) {
                        Some(&(_, vma)) if self.kernel.vmas[vma.0 as usize].file.is_none() && *access == crate::scenario::model::MapAccess::write_all() => {
                            self.tasks[ti].cursor = Cursor::Touch { vma, pos: 0 }
                        }
                        Some(&(_, vma)) => {
                            let len = self.kernel.vmas[vma.0 as usize].pages.len() as u64;
                            let first = (access.offset / PAGE_SIZE).min(len);
                            let end = access.length.map_or(len, |l| pages_for(access.offset + l).min(len));
                            let n = end.saturating_sub(first);
                            let total = match access.pattern {
                                crate::scenario::model::TouchPattern::Sequential => n,
                                crate::scenario::model::TouchPattern::Strided { stride } => n.div_ceil(stride.max(1)),
                                crate::scenario::model::TouchPattern::Random { count } => if n == 0 { 0 } else { count },
                            };
                            self.tasks[ti].cursor = Cursor::MapTouch { vma, done: 0, total };
                        }
                        None => {
                            self.op_failed(ti, op, crate::cgroup::Errno::ENOENT);
                            self.finish_step(ti, op, true);
                            return;
                        }
                    }
                }
                match self.tasks[ti].cursor.clone() {
                    Cursor::Touch { vma, pos } => {
                        self.enter(ti);
                        let memcg = self.tasks[ti].memcg;
                        let (next, ok) = self.touch_range(vma, pos, memcg);
                        self.leave(ti, 0);
                        oom = !ok;
                        if oom || next as usize >= self.kernel.vmas[vma.0 as usize].pages.len() {
                            finished = true;
                        } else {
                            self.tasks[ti].cursor = Cursor::Touch { vma, pos: next };
                        }
                    }
                    Cursor::MapTouch { vma, done, total } => {
                        self.enter(ti);
                        let memcg = self.tasks[ti].memcg;
                        let (next, ok) = self.touch_pattern(vma, access, done, total, memcg);
                        self.leave(ti, 0);
                        oom = !ok;
                        if oom || next >= total {
                            finished = true;
                        } else {
                            self.tasks[ti].cursor = Cursor::MapTouch { vma, done: next, total };
                        }
                    }
                    _ => unreachable!("a touch's cursor"),
                }
            }
            OpKind::MmapProbe { size, interval, while_task } => {
                match self.tasks[ti].cursor.clone() {
                    Cursor::Idle => {
                        let watched = self.scenario.tasks.iter().position(|t| &t.name == while_task).expect("validated");
                        // The watched task is over once its last op ended at or before this
                        // task's clock (its last quantum may have run ahead, e.g. in fsync).
                        let wt = &self.tasks[watched];
                        let over = wt.killed || wt.pc >= self.scenario.tasks[watched].ops.len();
                        if over && wt.times.clock <= self.tasks[ti].times.clock {
                            finished = true;
                        } else {
                            self.enter(ti);
                            let t0 = self.kernel.now;
                            let memcg = self.tasks[ti].memcg;
                            let vma = self.kernel.do_mmap_anon(pages_for(*size), memcg);
                            self.leave(ti, 0);
                            self.tasks[ti].cursor = Cursor::Probe { vma, pos: 0, t0 };
                        }
                    }
                    Cursor::Probe { vma, pos, t0 } => {
                        self.enter(ti);
                        let len = self.kernel.vmas[vma.0 as usize].pages.len();
                        let memcg = self.tasks[ti].memcg;
                        let (next, ok) = self.touch_range(vma, pos, memcg);
                        if !ok || next as usize >= len {
                            self.kernel.do_munmap(vma);
                            let took = self.kernel.now - t0;
                            self.leave(ti, 0);
                            self.tasks[ti].samples.push(took);
                            // usleep(interval) before the next round.
                            self.tasks[ti].times.clock += interval;
                            // it slept: a bound kworker queued behind it ran meanwhile (review50 L1)
                            self.bound_worker_slept(ti);
                            self.tasks[ti].cursor = Cursor::Idle;
                            if !ok {
                                oom = true;
                                finished = true;
                            }
                        } else {
                            self.leave(ti, 0);
                            self.tasks[ti].cursor = Cursor::Probe { vma, pos: next, t0 };
                        }
                    }
                    _ => unreachable!("a probe's cursor"),
                }
            }
            OpKind::Post { event } => {
                let i = match self.events.iter().position(|(e, _)| e == event) {
                    Some(i) => i,
                    None => {
                        self.events.push((event.clone(), 0));
                        self.events.len() - 1
                    }
                };
                self.events[i].1 += 1;
                // Wake the first task blocked on it; it takes the post when it runs.
                let now = self.tasks[ti].times.clock;
                let waiter = (0..self.tasks.len()).find(|&w| {
                    self.tasks[w].waiting && matches!(&scn.tasks[w].ops[self.tasks[w].pc].kind, OpKind::Wait { event: e } if e == event)
                });
                if let Some(w) = waiter {
                    let t = &mut self.tasks[w];
                    t.waiting = false;
                    // how long it slept: from its clock when it blocked to the post
                    let slept = now.saturating_sub(t.times.clock);
                    t.times.clock = t.times.clock.max(now);
                    // `futex_wake()` -> `wake_up_q()` -> `try_to_wake_up()`.
                    self.ttwu(w, slept);
                    self.task_on_runq(w);
                    let t = &self.tasks[w];
                    self.runq.push(Reverse((t.times.clock, w)));
                }
                finished = true;
            }
            OpKind::Wait { event } => match self.events.iter_mut().find(|(e, n)| e == event && *n > 0) {
                Some((_, n)) => {
                    *n -= 1;
                    finished = true;
                }
                None => {
                    self.tasks[ti].waiting = true;
                    return;
                }
            },
            OpKind::Mount { path, fs, mkdir } => {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                if *mkdir {
                    self.kernel.mkdir_mountpoint();
                }
                self.kernel.mount(path, fs);
                self.leave(ti, user);
                finished = true;
            }
        }
        if finished {
            if oom && self.kernel.oom_killed.contains(&(ti as u32)) {
                // The allocation's OOM kill chose this task (oom_kill.rs
                // alloc_pages_may_oom()): it dies, and its exit (exit_mmap()) frees its
                // mappings before the step's end is read, as a runner reads it after the
                // process is gone.
                self.exit_mmap_off_cpu(ti);
            }
            self.finish_step(ti, op, !oom);
            if oom {
                self.tasks[ti].killed = true;
            }
        }
    }

    /// The earliest clock of a task on the run queue (the running one is off it): a sleep of
    /// the running task past it lets that task run first ([`Resched::horizon`]).
    fn runq_horizon(&self) -> Option<Nanos> {
        self.runq.peek().map(|Reverse((t, _))| *t)
    }

    /// Fault in up to `TOUCH_QUANTUM` pages of `vma` from `pos` (one PMD range). Returns the
    /// next position and false if a fault found no memory.
    fn touch_range(&mut self, vma: crate::memory::VmaId, pos: u32, memcg: MemcgId) -> (u32, bool) {
        let len = self.kernel.vmas[vma.0 as usize].pages.len() as u32;
        let end = (pos + TOUCH_QUANTUM).min(len);
        let mut i = pos;
        while i < end {
            // Pages already mapped (the rest of a huge page the fault before mapped, or pages
            // touched before) take no fault: the run is skipped at once, with the same result
            // as one handle_mm_fault() each (which returns at once) while nothing is over
            // memory.high (whose check follows every access).
            if self.kernel.nr_pages_over_high == 0 {
                // A store to a PTE in `wrprotect` (a swap-in a load mapped) is not skipped.
                let v = &self.kernel.vmas[vma.0 as usize];
                let mapped = &v.pages[i as usize..end as usize];
                i += if v.wrprotect.is_empty() {
                    crate::memory::mapped_prefix(mapped) as u32
                } else {
                    mapped.iter().zip(i..).take_while(|(p, j)| **p != crate::types::PageId::NIL && !v.wp_test(*j)).count() as u32
                };
                if i >= end {
                    break;
                }
            }
            let slept = self.kernel.iowait_ns;
            // A sleep in the fault's charge may end the quantum (Resched): the fault is taken
            // again at the task's wake-up.
            self.kernel.resched.horizon = self.runq_horizon();
            let r = self.kernel.handle_mm_fault_run(vma, i, end);
            self.kernel.resched.horizon = None;
            match r {
                Ok(next) => {
                    // A resumed fault is done: nothing more to resume.
                    self.kernel.resched.resumed = Resumed::NONE;
                    self.kernel.resched.charge_loop = None;
                    i = next;
                }
                Err(crate::memory::FaultError::Retry) => {
                    self.kernel.resched.wake = None;
                    // The fault resumes at the task's wake-up.
                    self.kernel.resched.resumed = Resumed::ALL;
                    self.kernel.vmas[vma.0 as usize].mkyoung_range(pos, i);
                    self.work_done += (i - pos) as u64;
                    return (i, true);
                }
                Err(_) => return (i, false),
            }
            // Each fault returns to user space: resume_user_mode_work() runs
            // mem_cgroup_handle_over_high() for what the fault charged over memory.high.
            if self.kernel.nr_pages_over_high != 0 {
                self.kernel.mem_cgroup_handle_over_high(memcg);
            }
            // The fault slept (io_schedule()): if another task is runnable, the CPU went to it.
            // Nobody runnable (a lone task, or the others blocked or done): nobody could have
            // run meanwhile, and the task keeps its quantum.
            if self.kernel.iowait_ns != slept && i < end && !self.runq.is_empty() {
                // The fault slept (on a page's writeback, a throttle, a request): the CPU went
                // to the other tasks meanwhile (schedule() in io_schedule()), so the quantum
                // ends here and the next faults run after what they did by this clock: a task
                // that wakes does not find the pages freed during its sleep kept for it.
                self.kernel.vmas[vma.0 as usize].mkyoung_range(pos, i);
                self.work_done += (i - pos) as u64;
                return (i, true);
            }
        }
        // Every page of the run was accessed: its PTE is young (the CPU sets the bit).
        self.kernel.vmas[vma.0 as usize].mkyoung_range(pos, end);
        self.work_done += (end - pos) as u64;
        (end, true)
    }

    /// One quantum of a patterned `touch`: up to `TOUCH_QUANTUM` accesses from the `done`-th
    /// of `total`, each one `handle_mm_fault()` when its PTE is missing or write-protected
    /// (a file VMA), then the return to user space's memory.high work. Returns (accesses
    /// done, no OOM).
    fn touch_pattern(&mut self, vma: crate::memory::VmaId, access: &crate::scenario::model::MapAccess, done: u64, total: u64, memcg: MemcgId) -> (u64, bool) {
        use crate::scenario::model::TouchPattern;
        let len = self.kernel.vmas[vma.0 as usize].pages.len() as u64;
        let first = (access.offset / PAGE_SIZE).min(len);
        let end = access.length.map_or(len, |l| pages_for(access.offset + l).min(len));
        let n = end.saturating_sub(first).max(1);
        let stop = (done + TOUCH_QUANTUM as u64).min(total);
        let file = self.kernel.vmas[vma.0 as usize].file.is_some();
        for k in done..stop {
            let i = first
                + match access.pattern {
                    TouchPattern::Sequential => k,
                    TouchPattern::Strided { stride } => k * stride,
                    TouchPattern::Random { .. } => self.rng.below(n),
                };
            self.kernel.page_events += 1;
            let r = if file { self.kernel.handle_mm_fault_file(vma, i as u32, access.write) } else { self.kernel.handle_mm_fault_flags(vma, i as u32, access.write) };
            if r.is_err() {
                return (k, false);
            }
            if self.kernel.nr_pages_over_high != 0 {
                self.kernel.mem_cgroup_handle_over_high(memcg);
            }
        }
        self.work_done += stop - done;
        (stop, true)
    }

    /// `open()`: look the file up (instantiating its dentry and inode, charged to the task's
    /// memcg) and hold it. False if the memcg could not be charged (ENOMEM).
    fn open_file(&mut self, ti: usize, inode: InodeId, op: &crate::scenario::model::OpSpec) -> bool {
        let memcg = self.tasks[ti].memcg;
        if !self.kernel.d_instantiate(inode, memcg) {
            self.op_failed(ti, op, crate::cgroup::Errno::ENOMEM);
            return false;
        }
        self.kernel.dget(inode);
        true
    }

    /// An op ended (`ok`: without an OOM kill): emit its step unless the next op continues
    /// it (consecutive ops with the same step name form one step).
    fn finish_step(&mut self, ti: usize, op: &crate::scenario::model::OpSpec, ok: bool) {
        let pc = self.tasks[ti].pc;
        self.tasks[ti].cursor = Cursor::Idle;
        let grouped = ok && self.scenario.tasks[ti].ops.get(pc + 1).is_some_and(|next| next.step == op.step);
        self.tasks[ti].pc += 1;
        if grouped {
            return;
        }
        self.tasks[ti].steps_done += 1;
        self.tasks[ti].gap_slept = false;
        let before = self.tasks[ti].snapshot.take().expect("snapshot taken at op start");
        let memcg = self.tasks[ti].step_memcg;
        if ok {
            // (A task the OOM killer chose is gone: no end snapshot of its own.)
            self.runner_reads_memory_stat(memcg);
        }
        let after = Snapshot::take(&self.kernel, memcg, self.tasks[ti].times);
        let mut metrics = step_metrics(&self.kernel, memcg, &before, &after, !ok);
        if self.report_unevictable {
            // memory.stat `unevictable` (v1 `total_unevictable`): the subtree's unevictable list.
            metrics.push(("memcg.unevictable_bytes".into(), (crate::metrics::memcg_unevictable_pages(&self.kernel, memcg) * PAGE_SIZE) as f64));
        }
        let samples = std::mem::take(&mut self.tasks[ti].samples);
        metrics.extend(crate::metrics::mmtests_latency(&samples));
        let resident_pages = self.step_resident_pages(ti, pc);
        self.steps.push(StepResult {
            name: op.step.to_string(),
            task: self.tasks[ti].name.clone(),
            memcg: self.kernel.memcgs.get(memcg).path.clone(),
            metrics,
            samples,
            resident_pages,
            pagecache: self.kernel.nr_file_pages(),
        });
    }

    /// A real-kernel runner's read of memory.stat of the step's memcg `memcg` as it takes a step's
    /// start or end snapshot (real.py `Cg.snapshot()`, the QEMU guest's `SNAP memory.stat`):
    /// `mem_cgroup_flush_stats(memcg)` ([`crate::kernel::Kernel::mem_cgroup_flush_stats`]), which
    /// on 6.12+ profiles sets the copy limit reclaim decides deactivation from. Only for a
    /// scenario a runner records (`[validation] on`, [`crate::Scenario::runner_setup`]): the
    /// engine's own snapshots read its counters without a flush.
    fn runner_reads_memory_stat(&mut self, memcg: MemcgId) {
        if self.scenario.runner_setup {
            self.kernel.mem_cgroup_flush_stats(memcg);
        }
    }

    /// `resident_pages` of the step of task `ti` that ended with op `pc`: the files its ops
    /// name (`ResidentPagesReport::Step`), or every file (`All`).
    fn step_resident_pages(&mut self, ti: usize, pc: usize) -> Vec<(std::sync::Arc<str>, u64)> {
        use crate::scenario::model::ResidentPagesReport;
        if self.scenario.resident_pages == ResidentPagesReport::All {
            return crate::metrics::resident_pages(&self.kernel);
        }
        let scn = Rc::clone(&self.scenario);
        let mut inodes = std::mem::take(&mut self.rp_scratch);
        inodes.clear();
        for op in &scn.tasks[ti].ops[self.tasks[ti].step_pc.min(pc)..=pc] {
            match &op.kind {
                OpKind::Read { file, .. } | OpKind::Write { file, .. } | OpKind::Stat { file } | OpKind::Fsync { file } => inodes.push(self.inodes[*file]),
                OpKind::Fadvise { files, .. } | OpKind::Trace { files, .. } => inodes.extend(files.iter().map(|f| self.inodes[*f])),
                _ => {}
            }
        }
        let out = crate::metrics::resident_pages_of(&self.kernel, &mut inodes);
        self.rp_scratch = inodes;
        out
    }
}

/// Most rows the time series keeps (100 000, a few MiB): a run longer than
/// `report.sample_interval` times this has its series thinned to every other row and its
/// interval doubled, as often as needed, instead of growing with the virtual time (a year-long
/// sleep sampled every 100 ms would take 300 million rows).
pub const MAX_SAMPLES: usize = 100_000;

/// Pages of work (page events) between two progress reports at most, whatever the syscalls'
/// sizes: 1 Mi page events, a few milliseconds of engine time.
pub const PROGRESS_PAGES: u64 = 1 << 20;

/// The caller's progress callback asked the run to stop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the simulation was interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Run `scn` to completion; `progress(done, total)` is called now and then and stops the
/// run by returning false.
pub fn simulate(scn: &Scenario, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<SimResult, Interrupted> {
    Simulation::new(scn).run(progress)
}
