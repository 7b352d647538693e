//! kernel/sched/fair.c (EEVDF, 6.6+; read as 6.18 has it): the root run queue of a reclaiming
//! task's CPU as the wake-ups of its pool's bound kworker meet it (elig55, issue 23).
//!
//! mm/vmpressure.c `vmpressure()` -> `schedule_work()` queues a memcg's vmpressure work on the
//! per-CPU `system_wq` of the CPU the task reclaims on; `kick_pool()` wakes that CPU's pool
//! worker there (`wake_up_process()` in the task's own context). Whether the task keeps its CPU
//! is `check_preempt_wakeup_fair()` -> `__pick_eevdf(cfs_rq, protect = true)` at the root run
//! queue, between the task's top entity (its autogroup's, weight NICE_0 like the task's) and the
//! kworker (nice 0): traced on the host's 6.18 (lab/validation/vmp-slice-1201 q1/q2, q1045-1/2,
//! lag.bt: `nr_queued` 2 and `sum_weight` 1024 at 94-96% of the writer's wake-ups) the decision
//! follows the kworker's saved lag: the writer kept its CPU where the kworker came with
//! `vlag` 0 and was preempted where it came with positive lag, which falls by a few us at each
//! work it runs and jumps by half the writer's run at a work the writer kept its CPU through.
//! What this module keeps, per running task (the engine has no per-CPU run queue: the task's
//! CPU's, saved with the task between its quanta):
//! - the kworker: asleep with its `se->vlag` (`update_entity_lag()` at its dequeue), delayed
//!   (6.12+ DELAY_DEQUEUE: it slept not eligible and stays queued), or queued behind the task
//!   (woken without preempting: the work pending);
//! - the task's top entity: its `deadline` and `vprot` in its own vruntime, which is its CPU time
//!   (weight NICE_0: `calc_delta_fair()` the identity) less what schedstat's stale clock charged to
//!   the kworkers at wake-up preemptions ([`BoundRq::charged_away`], pre23: the task's run from a
//!   preempting wake-up to its switch-out on the wake-up's rq clock goes to the next entity).
//!
//! Weights in units of NICE_0_LOAD: `load` is the task and the background beyond the other CPUs
//! ([`crate::sched::bound_worker_wait`]'s placement load, 1 on an idle host). Not modelled: the
//! pool's other works run by the same kworker (the loop device's direct-I/O completions, woken
//! from interrupts: their runs change the kworker's lag too), a work queued with no wake-up
//! (`kick_pool()` with `need_more_worker()` false: the pool's worker already runnable),
//! PICK_BUDDY / next buddy, the tick's renewal of the deadline at the tick after it passed (taken
//! at the crossing).

use crate::types::Nanos;

/// Where the task's CPU's pool worker is (`struct sched_entity` of a bound kworker), virtual
/// times in the task's vruntime (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kworker {
    /// Off the run queue with `se->vlag` saved at its dequeue (`update_entity_lag()`).
    Sleeping {
        /// `se->vlag`.
        vlag: i64,
    },
    /// Slept not eligible (lag `lag` < 0) with the task's vruntime `at` then: 6.12+
    /// `dequeue_entity()` with DELAY_DEQUEUE leaves it queued (`sched_delayed`) until a pick
    /// dequeues it (DELAY_ZERO: `finish_delayed_dequeue_entity()` zeroes a positive `vlag`) or a
    /// wake-up requeues it (`requeue_delayed_entity()`).
    Delayed {
        /// Its lag at its sleep.
        lag: i64,
        /// The task's vruntime then.
        at: i64,
    },
    /// Queued on the task's run queue with lag `lag` at the task's vruntime `at`: its wake-up
    /// preempted the task (it runs at the task's next preemption point) or did not (the work
    /// pending until the task's reschedule or sleep).
    Queued {
        /// Its lag after its entry.
        lag: i64,
        /// The task's vruntime then.
        at: i64,
    },
}

/// What `check_preempt_wakeup_fair()` decided at the kworker's wake-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wakeup {
    /// `__pick_eevdf()` returned the kworker: `resched_curr_lazy()`, it runs at once.
    Preempt,
    /// It returned the task: the kworker waits until the first `update_curr()` (the tick) after
    /// the task's protected slice, `protected` ns of its CPU from now (0: already over, the
    /// next tick).
    Keep {
        /// The task's CPU time left of its protected slice.
        protected: Nanos,
    },
}

/// The task's CPU's root run queue as its bound kworker meets it (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundRq {
    /// The pool's kworker.
    pub kworker: Kworker,
    /// The task's top entity's `se->deadline` (its vruntime, ns).
    pub deadline: i64,
    /// Its `se->vprot` (`set_protect_slice()` at its last pick).
    pub vprot: i64,
    /// The task's CPU time charged to the kworkers by the stale rq clock at the preemptions
    /// (pre23): its vruntime is its CPU time less this.
    pub charged_away: i64,
}

impl BoundRq {
    /// A task's run queue at its fork (`place_entity()` with ENQUEUE_INITIAL and
    /// PLACE_DEADLINE_INITIAL: `vslice /= 2`, deadline half a slice ahead) and its CPU's kworker
    /// asleep at `entity_lag()`'s bound `limit` ([`crate::sched::entity_lag_limit`], what the loop
    /// worker was traced with at its entries, trace-wake-preempt-1130: a worker that has slept
    /// long has run below its share).
    pub fn new(slice: Nanos, limit: i64) -> BoundRq {
        let d = (slice / 2) as i64;
        BoundRq { kworker: Kworker::Sleeping { vlag: limit }, deadline: d, vprot: d, charged_away: 0 }
    }

    /// The task's vruntime at CPU time `cpu` (ns).
    #[inline]
    pub fn vruntime(&self, cpu: Nanos) -> i64 {
        cpu as i64 - self.charged_away
    }

    /// `update_deadline()` (kernel/sched/fair.c 6.18, from `update_curr()`): once the task's
    /// vruntime `vr` reaches its deadline, `deadline = vruntime + slice`.
    #[inline]
    pub fn update_deadline(&mut self, vr: i64, slice: Nanos) {
        if vr >= self.deadline {
            self.deadline = vr + slice as i64;
        }
    }

    /// `set_protect_slice()` (6.18, from `set_next_entity()` at the task's pick; every slice the
    /// base slice, so RUN_TO_PARITY's `cfs_rq_min_slice()` is the task's own): `vprot = deadline`,
    /// after `put_prev_entity()` -> `update_curr()` renewed a passed deadline.
    #[inline]
    pub fn set_protect_slice(&mut self, vr: i64, slice: Nanos) {
        self.update_deadline(vr, slice);
        self.vprot = self.deadline;
    }

    /// `protect_slice()` (6.18): the task keeps the CPU from an eligible wakee while `vruntime <
    /// vprot`.
    #[inline]
    pub fn protect_slice(&self, vr: i64) -> bool {
        vr < self.vprot
    }

    /// The task slept and woke at vruntime `vr`: `dequeue_entity()` took it off the run queue, so
    /// a kworker queued or delayed behind it was picked alone (a delayed one dequeued at that pick,
    /// DELAY_ZERO; a queued one ran its work, its lag 0 at its own sleep: `avg_vruntime()` is its
    /// own vruntime with nothing else queued): `vlag` 0. Its wake-up's `place_entity()` gave it a
    /// fresh deadline `vruntime + slice`, and its pick `vprot` = that ([`BoundRq::set_protect_slice`]).
    pub fn task_slept(&mut self, vr: i64, slice: Nanos) {
        if !matches!(self.kworker, Kworker::Sleeping { .. }) {
            self.kworker = Kworker::Sleeping { vlag: 0 };
        }
        self.deadline = vr + slice as i64;
        self.vprot = self.deadline;
    }

    /// `check_preempt_wakeup_fair()` (6.18) at the kworker's wake-up while the task runs at
    /// vruntime `vr` with lag `task_lag` on a run queue of `load` (the task included).
    /// `enqueue_task_fair()` first: `update_curr()` ([`BoundRq::update_deadline`]), then the
    /// kworker's entry: asleep, `place_entity()` with PLACE_LAG puts it at its `vlag`
    /// ([`crate::sched::place_entity_lag`]); delayed, `ttwu_runnable()` ->
    /// `requeue_delayed_entity()` takes its lag as the task's run since grew it (`avg_vruntime()`
    /// moves by `run / (load + 1)`) and, with DELAY_ZERO, places it again at lag 0 when that is
    /// positive. Its entry lowers `avg_vruntime()` by `lag / load`
    /// ([`crate::sched::avg_vruntime_shift`]). `__pick_eevdf(protect = true)`: the task not
    /// eligible after that ([`crate::sched::entity_eligible`]) -> the kworker; eligible and
    /// `protect_slice()` -> the task; else the eligible one with the earlier deadline (the
    /// kworker's `vruntime + slice`, `place_entity()`).
    pub fn check_preempt_wakeup_fair(&mut self, vr: i64, task_lag: i64, load: f64, slice: Nanos) -> Wakeup {
        self.update_deadline(vr, slice);
        let lag = match self.kworker {
            Kworker::Sleeping { vlag } => vlag,
            Kworker::Delayed { lag, at } => {
                let grown = lag + ((vr - at) as f64 / (load + 1.0)) as i64;
                if grown > 0 {
                    0
                } else {
                    grown
                }
            }
            // a work queued again while pending wakes nothing (`queue_work()` false): the
            // caller does not call this then
            Kworker::Queued { lag, .. } => lag,
        };
        self.kworker = Kworker::Queued { lag, at: vr };
        let shift = crate::sched::avg_vruntime_shift(crate::sched::place_entity_lag(lag as f64, 1.0, load), 1.0, load);
        let task = task_lag as f64 + shift;
        if !crate::sched::entity_eligible(task) {
            return Wakeup::Preempt;
        }
        if self.protect_slice(vr) {
            return Wakeup::Keep { protected: (self.vprot - vr) as Nanos };
        }
        // both past their protection: the earlier deadline among the eligible; the kworker's
        // vruntime is the task's plus (task's lag - its lag)
        if crate::sched::entity_eligible(lag as f64) {
            let kworker_deadline = vr as f64 + task - lag as f64 + slice as f64;
            if kworker_deadline < self.deadline as f64 {
                return Wakeup::Preempt;
            }
        }
        Wakeup::Keep { protected: 0 }
    }

    /// The queued kworker ([`Kworker::Queued`]) was picked and ran its work, then slept: the task
    /// was switched out at vruntime `vr_switch` and the kworker charged `run` (its own run, and at
    /// a wake-up preemption the stale clock's part of the task's run, pre23). Its lag at its pick
    /// grew by the task's run since its entry over `load + 1` entities' weight; its run takes
    /// `run * load / (load + 1)` from it. `dequeue_entity()` at its sleep: `update_entity_lag()`
    /// (clamped to `limit`, [`crate::sched::update_entity_lag`]); not eligible with DELAY_DEQUEUE
    /// (`delay_dequeue`, 6.12+) it stays queued ([`Kworker::Delayed`]). The task is picked again:
    /// [`BoundRq::set_protect_slice`].
    pub fn kworker_ran(&mut self, vr_switch: i64, run: Nanos, load: f64, limit: i64, delay_dequeue: bool, slice: Nanos) {
        let Kworker::Queued { lag, at } = self.kworker else { return };
        let lag = lag as f64 + ((vr_switch - at) as f64 + run as f64) / (load + 1.0) - run as f64;
        let lag = lag as i64;
        self.kworker = if delay_dequeue && !crate::sched::entity_eligible(lag as f64) {
            Kworker::Delayed { lag: crate::sched::update_entity_lag(lag, limit), at: vr_switch }
        } else {
            Kworker::Sleeping { vlag: crate::sched::update_entity_lag(lag, limit) }
        };
        self.set_protect_slice(vr_switch, slice);
    }
}
