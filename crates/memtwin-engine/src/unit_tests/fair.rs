//! elig55 (issue 23): the root run queue of a reclaiming task's CPU as its bound kworker's wake-ups
//! meet it (fair.rs `BoundRq`; kernel/sched/fair.c 6.18 `place_entity()` with PLACE_LAG,
//! `update_entity_lag()`, `entity_eligible()`, `requeue_delayed_entity()` with DELAY_ZERO,
//! `set_protect_slice()` / `protect_slice()`, `update_deadline()`, `__pick_eevdf(protect = true)`
//! from `check_preempt_wakeup_fair()`). Weights NICE_0 (`load` 1: the task alone beside the
//! kworker, as lag.bt found the host's root run queue at 94-96% of the writer's wake-ups).

use crate::fair::{BoundRq, Kworker, Wakeup};
use crate::types::Nanos;

/// 6.18's slice with 2 CPUs: 0.7 ms x (1 + ilog2(2)).
const SLICE: Nanos = 1_400_000;
/// `entity_lag()`'s bound on 6.18 with 2 CPUs at HZ 250 (`sched::entity_lag_limit`).
const LIMIT: i64 = 5_400_000;

/// `check_preempt_wakeup_fair()` -> `__pick_eevdf()`: a kworker asleep with positive `vlag`
/// enters at `avg_vruntime() - 2 vlag` beside the task alone (`place_entity()`: `lag * (load + w)
/// / load`), which leaves the task at lag `-vlag`: not `entity_eligible()`, preempted whatever
/// its protected slice. With `vlag` 0 (DELAY_ZERO's, or a sleep alone on the CPU)
/// `place_entity()` puts it at `avg_vruntime()` itself, the task stays eligible (`vruntime <=
/// avg`) and inside its protected slice keeps the CPU: the host's kept wake-ups (vlag 0 at 21 of
/// the 30 in q1/q2 and q1045-1/2). Negative `vlag`: the task eligible too. Fails with the
/// kworker placed at `entity_lag()`'s bound (sched.rs `bound_worker_wait`'s rule), or with
/// eligibility taken strictly (`vruntime < avg`).
#[test]
fn check_preempt_wakeup_fair_follows_the_kworkers_own_vlag_6_18() {
    let mut rq = BoundRq::new(SLICE, LIMIT);
    assert_eq!(rq.kworker, Kworker::Sleeping { vlag: LIMIT }, "a kworker that slept long: at the lag bound");
    rq.task_slept(10_000_000, SLICE);
    assert_eq!((rq.deadline, rq.vprot), (11_400_000, 11_400_000), "woken: a fresh deadline, picked: vprot = deadline");
    assert_eq!(rq.check_preempt_wakeup_fair(10_100_000, 0, 1.0, SLICE), Wakeup::Preempt);
    assert_eq!(rq.kworker, Kworker::Queued { lag: LIMIT, at: 10_100_000 });
    for (vlag, want) in [(1, Wakeup::Preempt), (0, Wakeup::Keep { protected: 1_300_000 }), (-5_000, Wakeup::Keep { protected: 1_300_000 })] {
        rq.kworker = Kworker::Sleeping { vlag };
        assert_eq!(rq.check_preempt_wakeup_fair(10_100_000, 0, 1.0, SLICE), want, "vlag {vlag}");
    }
    // the task's own lag counts: 3 us of it outweighs a 2 us vlag (shift -vlag / load)
    rq.kworker = Kworker::Sleeping { vlag: 2_000 };
    assert_eq!(rq.check_preempt_wakeup_fair(10_100_000, 3_000, 1.0, SLICE), Wakeup::Keep { protected: 1_300_000 });
    // beside a background entity (load 2) the same vlag shifts the average by half
    rq.kworker = Kworker::Sleeping { vlag: 4_000 };
    assert_eq!(rq.check_preempt_wakeup_fair(10_100_000, 2_000, 2.0, SLICE), Wakeup::Keep { protected: 1_300_000 });
    rq.kworker = Kworker::Sleeping { vlag: 4_002 };
    assert_eq!(rq.check_preempt_wakeup_fair(10_100_000, 2_000, 2.0, SLICE), Wakeup::Preempt);
}

/// Past its protected slice (`protect_slice()`: `vruntime < vprot` false) an eligible task keeps
/// the CPU only while its deadline is the earlier (`__pick_eevdf()`: the eligible entity with the
/// earliest deadline); `update_curr()` -> `update_deadline()` renews a passed deadline first
/// (`vruntime + slice`), so a kworker at vlag 0, deadline `vruntime + slice` too, does not win.
/// Fails without the renewal or with the protection taken as `vruntime <= vprot`.
#[test]
fn an_eligible_task_past_vprot_keeps_the_cpu_by_its_deadline_6_18() {
    let mut rq = BoundRq::new(SLICE, LIMIT);
    rq.task_slept(0, SLICE);
    rq.kworker = Kworker::Sleeping { vlag: 0 };
    assert_eq!(rq.check_preempt_wakeup_fair(SLICE as i64, 0, 1.0, SLICE), Wakeup::Keep { protected: 0 }, "at vprot itself: over");
    assert_eq!(rq.deadline, 2 * SLICE as i64, "renewed at the wake-up's update_curr()");
    // deadline not yet passed but vprot is (vprot set at an earlier pick): the earlier deadline
    rq.vprot = 100;
    rq.deadline = 500_000;
    rq.kworker = Kworker::Sleeping { vlag: 0 };
    assert_eq!(rq.check_preempt_wakeup_fair(200_000, 0, 1.0, SLICE), Wakeup::Keep { protected: 0 }, "its deadline 0.5 ms, the kworker's 1.6 ms");
}

/// The kworker's lag after its run (`dequeue_entity()` -> `update_entity_lag()` at its sleep): its
/// entry lag, plus what the task ran since over the two entities' weight, less its own run times
/// `load / (load + 1)`: with the task run 10 us and the kworker 30 us from a 50 us lag, 50 + (10 +
/// 30) / 2 - 30 = 40 us. Not eligible at its sleep (DELAY_DEQUEUE): it stays queued, and the next
/// wake-up (`requeue_delayed_entity()`) finds its lag grown by half the task's run since, which
/// DELAY_ZERO re-places at 0 once positive: the task eligible, kept inside its new protected slice
/// (`set_protect_slice()` at its pick after the kworker). Without DELAY_DEQUEUE (6.6) the lag is
/// kept as it is, clamped to `entity_lag()`'s bound. Fails with the kworker's run not counted, the
/// task's run counted whole, or no delay.
#[test]
fn kworker_ran_saves_its_lag_and_delays_an_ineligible_sleep_6_18() {
    let mut rq = BoundRq::new(SLICE, LIMIT);
    rq.task_slept(0, SLICE);
    rq.kworker = Kworker::Sleeping { vlag: 50_000 };
    assert_eq!(rq.check_preempt_wakeup_fair(100_000, 0, 1.0, SLICE), Wakeup::Preempt);
    rq.kworker_ran(110_000, 30_000, 1.0, LIMIT, true, SLICE);
    assert_eq!(rq.kworker, Kworker::Sleeping { vlag: 40_000 });
    assert_eq!(rq.vprot, SLICE as i64, "picked again: vprot = its deadline (not yet passed)");
    // a run longer than the lag: -10 us at its sleep, delayed
    assert_eq!(rq.check_preempt_wakeup_fair(200_000, 0, 1.0, SLICE), Wakeup::Preempt);
    rq.kworker_ran(200_000, 100_000, 1.0, LIMIT, true, SLICE);
    assert_eq!(rq.kworker, Kworker::Delayed { lag: -10_000, at: 200_000 });
    // 10 us of the task's run later its lag is -5 us: still queued, still the task's to keep
    assert_eq!(rq.check_preempt_wakeup_fair(210_000, 0, 1.0, SLICE), Wakeup::Keep { protected: SLICE - 210_000 });
    assert_eq!(rq.kworker, Kworker::Queued { lag: -5_000, at: 210_000 });
    // DELAY_ZERO: grown positive, re-placed at 0
    rq.kworker = Kworker::Delayed { lag: -10_000, at: 200_000 };
    assert_eq!(rq.check_preempt_wakeup_fair(230_000, 0, 1.0, SLICE), Wakeup::Keep { protected: SLICE - 230_000 });
    assert_eq!(rq.kworker, Kworker::Queued { lag: 0, at: 230_000 });
    // 6.6: no delay, the lag kept; clamped at the bound
    rq.kworker = Kworker::Queued { lag: 50_000, at: 0 };
    rq.kworker_ran(0, 200_000, 1.0, LIMIT, false, SLICE);
    assert_eq!(rq.kworker, Kworker::Sleeping { vlag: -50_000 });
    rq.kworker = Kworker::Queued { lag: LIMIT, at: 0 };
    rq.kworker_ran(1_000_000, 0, 1.0, LIMIT, true, SLICE);
    assert_eq!(rq.kworker, Kworker::Sleeping { vlag: LIMIT }, "update_entity_lag(): clamped");
}

/// The task's sleep: a kworker queued or delayed behind it runs (or is dequeued) alone on the CPU,
/// `avg_vruntime()` its own vruntime: `vlag` 0 (DELAY_ZERO for the delayed one); one asleep keeps
/// its `vlag`. The task's wake-up gives it a fresh deadline and, picked, `vprot` = that. Fails
/// with the kworker's lag kept across the task's sleep.
#[test]
fn task_slept_zeroes_a_queued_kworkers_lag_6_18() {
    let mut rq = BoundRq::new(SLICE, LIMIT);
    for (k, want) in [
        (Kworker::Queued { lag: 300_000, at: 0 }, 0),
        (Kworker::Delayed { lag: -20_000, at: 0 }, 0),
        (Kworker::Sleeping { vlag: 77_000 }, 77_000),
    ] {
        rq.kworker = k;
        rq.task_slept(5_000_000, SLICE);
        assert_eq!(rq.kworker, Kworker::Sleeping { vlag: want }, "{k:?}");
        assert_eq!((rq.deadline, rq.vprot), (6_400_000, 6_400_000));
    }
}

/// The engine's vmpressure window with `bound_kworker_lag` on (a 6.18 machine, the task at lag 0):
/// the first work preempts (the kworker at the lag bound) and costs the run at once; a kworker
/// whose lag a run took below 0 stays delayed and the next window's work is kept pending, its
/// run charged at the first tick after the task's protected slice (`Kernel::bound_worker_tick`),
/// the counter growing meanwhile. Off (every profile's default), the kworker preempts at every
/// window as before. Fails with the switch ignored or the pending work not left to the tick.
#[test]
fn vmpressure_tree_takes_the_bound_rqs_decision_when_on_6_18() {
    let (mut s, w) = super::sched_stats::vmpressure_task();
    let k = &mut s.kernel;
    assert!(!k.profile.bound_kworker_lag, "off in the 6.18 profile (fair.rs's missing inputs)");
    k.vmpressure_tree(w, 512);
    assert_eq!(k.runq_ns, 10_000, "off: at once");
    k.profile.bound_kworker_lag = true;
    let limit = crate::sched::entity_lag_limit(&k.profile, k.nr_cpu_ids);
    k.bound_rq = BoundRq::new(k.sched_slice, limit);
    k.vmpressure_tree(w, 512);
    assert_eq!((k.runq_ns, k.bound_worker_deferred), (20_000, 0), "the kworker at the bound: at once");
    assert_eq!(k.bound_rq.kworker, Kworker::Sleeping { vlag: limit - 5_000 }, "its 10 us run less half of it (no preempt_resched run)");
    // a kworker delayed just below 0: the next window keeps the work pending
    k.bound_rq.kworker = Kworker::Delayed { lag: -1_000, at: k.task_vruntime() };
    k.vmpressure_tree(w, 512);
    assert_eq!((k.runq_ns, k.bound_worker_deferred), (20_000, 10_000), "kept: deferred");
    assert_eq!(k.vmpressure_tree_scanned[w.idx()], 512, "pending: the counter stays");
    k.vmpressure_tree(w, 512);
    assert_eq!((k.runq_ns, k.vmpressure_tree_scanned[w.idx()]), (20_000, 1024), "a window while pending: swallowed");
    // the task's CPU uses up its protected slice and reaches the tick: the run is charged
    let slice = k.sched_slice;
    k.cpu(slice + crate::timer::NSEC_PER_JIFFY);
    assert_eq!((k.runq_ns, k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (30_000, 0, 0), "charged at the tick");
    assert!(matches!(k.bound_rq.kworker, Kworker::Sleeping { vlag } if vlag > 0), "it ran after the task's slice: positive lag");
}
