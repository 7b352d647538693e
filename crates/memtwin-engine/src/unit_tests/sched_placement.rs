//! Wake-up placement (issue 23; sis23, review51 M3/M4): where a task woken by a write completion's kworker lands
//! (sched.rs `nr_idle_scan`, `end_io_placement_share`, `end_io_wakee_wait`; kernel.rs
//! `end_io_woken` reading `Kernel::rq_tasks` / `Kernel::rq_own`, set by sched.rs `enter()`).

use super::*;
use crate::kernel::SCHED_CAPACITY_SCALE as S;
use crate::types::Nanos;

fn p(n: &str) -> crate::profile::KernelProfile {
    crate::profile::profile(n).unwrap()
}

/// kernel/sched/fair.c (6.1 and 6.18) `update_idle_cpu_scan()`, SIS_UTIL's scan depth with the
/// kernel's integer arithmetic at the MC domain's `imbalance_pct` 117 (topology.c `sd_init()`):
/// an idle LLC scans all its CPUs; two CPUs scan one other CPU up to a summed utilisation of 1239
/// (x = 619, tmp = 619^2 * 117^2 / 10240000 = 512) and none from 1240 (x = 620, tmp 513: y =
/// 511 * 2 / 1024 = 0), 60.5% of the two; eight CPUs at half their capacity scan five. Fails
/// with the threshold as a plain 85% (`x > 870`: 1240 would scan), the square dropped, or the
/// division by `llc_weight` left out.
#[test]
fn nr_idle_scan_is_update_idle_cpu_scans_sis_util_depth_6_18() {
    use crate::sched::{nr_idle_scan, LLC_IMBALANCE_PCT as PCT};
    assert_eq!(PCT, 117);
    assert_eq!(nr_idle_scan(0, 2, PCT), 2, "an idle LLC: every CPU");
    assert_eq!(nr_idle_scan(S / 2, 2, PCT), 1, "a quarter busy: one CPU");
    assert_eq!(nr_idle_scan(1239, 2, PCT), 1);
    assert_eq!(nr_idle_scan(1240, 2, PCT), 0, "past 60.5% of two CPUs: no scan");
    assert_eq!(nr_idle_scan(2 * S, 2, PCT), 0);
    assert_eq!(nr_idle_scan(4 * S, 8, PCT), 5, "8 CPUs half busy: five");
    assert_eq!(nr_idle_scan(6 * S, 8, PCT), 1);
    assert_eq!(nr_idle_scan(8 * S, 8, PCT), 0);
}

/// kernel/sched/fair.c (6.18) `select_task_rq_fair()` -> `wake_affine()` -> `select_idle_sibling()`
/// -> `select_idle_cpu()`: with SIS_UTIL's scan on, the task woken by a kworker running on W lands
/// on W exactly when no other CPU is idle (`kworker_waker_share`); with it off (`nr_idle_scan()`
/// 0: `select_idle_cpu()` returns -1 at once), also when another CPU is idle but the task's
/// `prev_cpu` is W (no `wake_affine()`, `prev == target`), which the engine takes as `1 /
/// nr_cpus` of those; an idle `prev_cpu` elsewhere is still taken (`wake_affine_idle()`). 5.17
/// (no SIS_UTIL): the scan is on. One CPU: always W. The utilisation is capped at a CPU each.
/// Fails with the scan ignored (review51 M3), with every idle-other wake-up sent to W when the
/// scan is off (prev_cpu ignored), or without the cap (3 CPUs' worth on two still scans: no).
#[test]
fn end_io_placement_share_follows_sis_util_select_idle_cpu_6_18() {
    use crate::sched::end_io_placement_share as share;
    let p618 = p("linux-6.18");
    assert_eq!(share(&p618, S / 4, S / 4, 2), S / 4, "a quarter busy, the scan on: the chance the other CPU is busy");
    assert_eq!(share(&p618, S / 4, 1239, 2), S / 4, "still one CPU scanned");
    assert_eq!(share(&p618, S / 4, 1240, 2), S / 4 + (S - S / 4) / 2, "no scan: W also when the idle other CPU is not the task's previous one");
    assert_eq!(share(&p618, 0, 2 * S, 2), S / 2);
    assert_eq!(share(&p618, 3 * S, 5 * S, 2), S, "every CPU busy: W");
    assert_eq!(share(&p618, S / 4, 1240, 1), S, "one CPU: W");
    assert_eq!(share(&p("linux-6.1"), S / 4, 1240, 2), S / 4 + (S - S / 4) / 2, "6.1 has SIS_UTIL too (6.0)");
    assert_eq!(share(&p("linux-5.17"), S / 4, 1240, 2), S / 4, "5.17: SIS_PROP, not modelled: the scan on");
    assert!(p("linux-6.18").sis_util && p("linux-6.12").sis_util && !p("linux-5.0").sis_util);
}

/// `sched::end_io_wakee_wait()` (wake23's rule) at the placement share: beside a quarter of a CPU
/// (the scan on) a quarter of 400 us; the same others on an LLC past SIS_UTIL's threshold five
/// eighths. Fails with `sum_util` not reaching the share.
#[test]
fn end_io_wakee_wait_takes_the_sis_util_share_6_18() {
    use crate::sched::end_io_wakee_wait;
    let p618 = p("linux-6.18");
    assert_eq!(end_io_wakee_wait(&p618, S / 4, S / 4, 2, 0, 400_000), 100_000);
    assert_eq!(end_io_wakee_wait(&p618, S / 4, 2 * S, 2, 0, 400_000), 250_000, "no scan: (1/4 + 3/8) of 400 us");
}

/// review51 M4: a 6.18 two-task scenario on 2 CPUs, the sampler at a quarter of a CPU: at its
/// quantum's start (`Simulation::enter()`) the first task reads the other task's expected runnable
/// weight (here whole, `quantum_runnable_weight(0, 0)`, put in `Kernel::task_load_sum`) into
/// `Kernel::rq_tasks`, and a sleep a write completion ends then waits the whole 400 us (the other
/// CPU busy: the sampler and the other task, more than one CPU's worth) where the task alone
/// waited a quarter of it (wake23's share, `wait_until_woken_by_end_io_adds_the_wait_behind_the_kworker_6_18`).
/// `leave()` clears both fields. Fails with `kernel.rs end_io_woken()` leaving `rq_tasks` out
/// (100 us) or `enter()` not setting it.
#[test]
fn the_scenarios_other_tasks_keep_the_other_cpu_busy_at_an_end_io_wake_up_6_18() {
    let mut s = sim("[scenario]\nname = \"eio2\"\n[machine]\nram = \"1G\"\ncpus = 2\nend_io_work_run = \"400us\"\nrunner_sampler = 0.25\n\
                     [kernel]\nprofile = \"linux-6.18\"\n\
                     [tasks.a]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n[tasks.b]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    // the other task runnable all through its present quantum: a whole weight in the sum
    s.kernel.task_load_sum = crate::sched::quantum_runnable_weight(0, 0);
    s.enter(0);
    assert_eq!(s.kernel.rq_tasks, S, "the other task: a whole weight");
    assert_eq!(s.kernel.rq_own, 0, "no CPU time yet");
    let k = &mut s.kernel;
    let t0 = k.now;
    let runq0 = k.runq_ns;
    k.woken_by_end_io(t0 + 1_000_000, Nanos::MAX);
    k.wait_until(t0 + 1_000_000);
    k.end_io_wake_done();
    assert_eq!(k.runq_ns - runq0, 400_000, "the sampler and the other task: no idle CPU, the whole run");
    s.leave(0, 0);
    assert_eq!((s.kernel.rq_tasks, s.kernel.rq_own), (0, 0), "none between quanta");
}

/// `Kernel::task_util_update()`: kernel/sched/pelt.c (6.18) `util_avg`, running time decayed with a
/// 32-period half-life (periods of 1024 us): a task on the CPU for 32 periods from nothing reaches half a CPU, then 32 asleep
/// halves that, and its clock standing still leaves it; the sum is kept per task. Fails with the
/// clock's time (not the CPU time) taken as running, or without the decay.
#[test]
fn task_util_update_is_pelts_util_avg_of_the_cpu_time_6_18() {
    let mut s = sim("[scenario]\nname = \"u\"\n[machine]\nram = \"1G\"\ncpus = 2\n[kernel]\nprofile = \"linux-6.18\"\n\
                     [tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let k = &mut s.kernel;
    let ms = 1_024_000; // PELT's period: 32 of them are the half-life
    assert_eq!(k.task_util_update(1, 0, 0), 0);
    let u = k.task_util_update(1, 32 * ms, 32 * ms);
    assert!(u.abs_diff(S / 2) <= 2, "32 periods running: about half ({u})");
    let v = k.task_util_update(1, 64 * ms, 32 * ms);
    assert!(v.abs_diff(u / 2) <= 2, "32 periods asleep: halved ({u} -> {v})");
    assert_eq!(k.task_util_update(1, 64 * ms, 32 * ms), v, "no time passed");
    assert_eq!(k.task_util_update(0, 64 * ms, 0), 0, "another task's own");
}
