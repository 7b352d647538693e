//! The wakee of a completion kworker (issue 23; wake23): a task woken by a write completion's kworker waits behind it on its CPU
//! (sched.rs `kworker_waker_share`, `end_io_wakee_wait`; kernel.rs `woken_by_end_io`,
//! `wait_until`; vmscan.rs's `folio_wait_writeback()` and `reclaim_throttle()` sleeps).

use super::*;
use crate::kernel::SCHED_CAPACITY_SCALE as S;

fn p(n: &str) -> crate::profile::KernelProfile {
    crate::profile::profile(n).unwrap()
}

/// kernel/sched/fair.c 6.18 `select_task_rq_fair()` -> `wake_affine()` (`wake_affine_idle()`,
/// `wake_affine_weight()`) -> `select_idle_sibling()`: the task woken by a kworker running on CPU W
/// lands on W exactly when no other CPU of the LLC is idle, whether its `prev_cpu` is W (the idle
/// CPU found by `recent_used_cpu` / `select_idle_cpu()`) or another CPU (taken when idle by
/// `wake_affine_idle()` and `select_idle_sibling()`'s "prev is idle" test): `others - (nr_cpus -
/// 2)` clamped to 0..1. One CPU: always W. Fails with `loop_worker_wait()`'s extra `1 / nr_cpus`
/// (the kworker's previous CPU: not this wake-up's question) or without the clamp.
#[test]
fn kworker_waker_share_is_the_chance_no_other_cpu_is_idle_select_idle_sibling_6_18() {
    use crate::sched::kworker_waker_share;
    assert_eq!(kworker_waker_share(0, 2), 0, "the other CPU idle: the task goes there");
    assert_eq!(kworker_waker_share(S / 4, 2), S / 4);
    assert_eq!(kworker_waker_share(3 * S, 2), S, "every CPU busy: W, at most always");
    assert_eq!(kworker_waker_share(S / 2, 4), 0, "4 CPUs, half a task: two others idle");
    assert_eq!(kworker_waker_share(5 * S / 2, 4), S / 2, "4 CPUs, 2.5 tasks: the last other CPU busy half the time");
    assert_eq!(kworker_waker_share(0, 1), S, "one CPU: W");
}

/// `sched::end_io_wakee_wait()`: the completion work's run (`run`) times that share. EEVDF
/// (kernel/sched/fair.c 6.18 `check_preempt_wakeup_fair()` -> `__pick_eevdf(cfs_rq, protect)`):
/// the kworker placed at `entity_lag()`'s bound (5.4 ms on 6.18 with 2 CPUs) stays eligible after
/// the task's entry even when the task carries that much lag itself (its entry lowers
/// `avg_vruntime()` by `lag / load`, at most 5.4 ms), so `protect_slice()` keeps it running and the
/// task waits its run, at most the 1.4 ms slice. 6.1's CFS (`check_preempt_wakeup()` ->
/// `wakeup_preempt_entity()`: two sleepers placed alike, the kworker ahead by what it ran, less than
/// `wakeup_gran()`) does not preempt either. Fails with the share dropped, the slice's cap
/// dropped, or the wakee taken as preempting (0) when it carries lag.
#[test]
fn end_io_wakee_waits_the_protected_kworkers_run_check_preempt_wakeup_fair_6_18() {
    use crate::sched::end_io_wakee_wait;
    let p618 = p("linux-6.18");
    assert_eq!(end_io_wakee_wait(&p618, S / 4, S / 4, 2, 0, 400_000), 100_000);
    assert_eq!(end_io_wakee_wait(&p618, 0, 0, 2, 0, 400_000), 0, "an idle CPU: no wait");
    assert_eq!(end_io_wakee_wait(&p618, 3 * S, 3 * S, 2, 0, 400_000), 400_000, "no idle CPU: the whole run");
    assert_eq!(end_io_wakee_wait(&p618, S / 4, S / 4, 2, 5_400_000, 400_000), 100_000, "lag at the bound: the kworker still eligible, protected");
    assert_eq!(end_io_wakee_wait(&p618, S / 4, S / 4, 2, -3_000_000, 400_000), 100_000, "a task behind its share waits too");
    assert_eq!(end_io_wakee_wait(&p618, 3 * S, 3 * S, 2, 0, 5_000_000), 1_400_000, "at most the kworker's protected slice");
    assert_eq!(end_io_wakee_wait(&p("linux-6.1"), S / 4, S / 4, 2, 0, 400_000), 100_000, "CFS: no wake-up preemption either");
    assert_eq!(end_io_wakee_wait(&p618, S / 4, S / 4, 2, 0, 0), 0, "no run: no wait");
}

/// A 6.18 machine on 2 CPUs whose running context is a task, with the runner's sampler keeping a
/// quarter of a CPU busy and no background (so the wake-up's own wait, `ttwu_fair_wait()`, is 0).
fn end_io_task() -> Simulation {
    let mut s = sim("[scenario]\nname = \"eio\"\n[machine]\nram = \"1G\"\ncpus = 2\n[kernel]\nprofile = \"linux-6.18\"\n\
                     [tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let k = &mut s.kernel;
    k.in_task = true;
    k.runner_sampler = S / 4;
    s
}

/// `Kernel::woken_by_end_io()` + `Kernel::wait_until()`: a sleep that a write completion ends
/// (mm/vmscan.c 6.18 `reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)` woken by
/// `__acct_reclaim_writeback()` before its HZ/10 timeout, or `folio_wait_writeback()`), with
/// `[machine] end_io_work_run` = 400 us, leaves the task a quarter of it (100 us) of run-queue
/// wait, schedstat's `run_delay`, on its clock. Not when the timeout ends the sleep (the timer's
/// wake-up), not without the key (the engine before wake23), not for a kernel thread (kswapd's
/// sleeps are no task's), and the flag lasts one sleep. Fails with the flag ignored, kept across
/// sleeps, or taken for a timeout.
#[test]
fn wait_until_woken_by_end_io_adds_the_wait_behind_the_kworker_6_18() {
    let mut s = end_io_task();
    let k = &mut s.kernel;
    let t0 = k.now;
    k.woken_by_end_io(t0 + 1_000_000, t0 + 100_000_000);
    assert!(!k.end_io_wake, "no end_io_work_run: nothing announced");
    k.wait_until(t0 + 1_000_000);
    assert_eq!((k.runq_ns, k.now), (0, t0 + 1_000_000), "without the key: as before wake23");
    k.end_io_work_run = Some(400_000);
    let t1 = k.now;
    k.woken_by_end_io(t1 + 1_000_000, t1 + 100_000_000);
    k.wait_until(t1 + 1_000_000);
    k.end_io_wake_done();
    assert_eq!((k.runq_ns, k.now), (100_000, t1 + 1_100_000), "woken by the completion: a quarter of its run");
    let t2 = k.now;
    k.woken_by_end_io(t2 + 100_000_000, t2 + 100_000_000);
    k.wait_until(t2 + 100_000_000);
    k.end_io_wake_done();
    assert_eq!((k.runq_ns, k.now), (100_000, t2 + 100_000_000), "the timeout woke it: the timer's wake-up, no kworker");
    let t3 = k.now;
    k.wait_until(t3 + 1_000_000);
    assert_eq!(k.runq_ns, 100_000, "an unannounced sleep: none");
    // a folio whose writeback already ended: no sleep, and the flag does not outlive the call
    let t4 = k.now;
    k.woken_by_end_io(t4, Nanos::MAX);
    k.wait_until(t4);
    k.end_io_wake_done();
    k.wait_until(t4 + 1_000_000);
    assert_eq!(k.runq_ns, 100_000, "the flag went with the sleep that never began");
    k.in_kswapd = true;
    let t5 = k.now;
    k.woken_by_end_io(t5 + 1_000_000, Nanos::MAX);
    k.wait_until(t5 + 1_000_000);
    k.end_io_wake_done();
    assert_eq!(k.runq_ns, 100_000, "kswapd: no task waits");
}

use crate::types::Nanos;

/// Through a scenario: a v1 memcg writer of 64 MiB through a 16M limit on linux-6.18 (2 CPUs, the
/// sampler at 0.25 of a CPU, a background of 0.01 task: `sched.run_delay_s` reported, no wake-up
/// wait of its own below one task) sleeps in shrink_folio_list()'s `folio_wait_writeback()` (legacy memcg
/// reclaim, case 3) and `reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)`; with `[machine]
/// end_io_work_run = "400us"` each sleep a completion ends adds 0.26 of 400 us to its
/// `sched.run_delay_s`, or (sis23) 0.63 of it while the writer's own `util_avg` keeps SIS_UTIL's
/// scan off: the difference from the run without the key is a positive whole number of each of
/// those, its elapsed time longer by at most that (the device sets the writer's pace: a later
/// wake-up shortens its next sleep). Fails with the vmscan.rs calls removed (no
/// difference) or the wait charged at a timeout's wake-up too (checked apart above).
#[test]
fn a_v1_memcg_writer_waits_behind_the_completion_work_that_wakes_it_6_18() {
    let go = |m: &str| {
        let toml = format!(
            "[scenario]\nname = \"eio\"\n[machine]\nram = \"2G\"\ncpus = 2\nrunner_sampler = 0.25\nbackground_runnable = 0.01\n{m}\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
             [devices.sda]\nread_bw = \"200M\"\nwrite_bw = \"50M\"\nseek = \"60us\"\n\
             [files.\"/data/out\"]\nsize = \"0\"\n[cgroups.W]\n\"memory.limit_in_bytes\" = \"16M\"\n\
             [tasks.w]\ncgroup = \"W\"\nops = [{{ op = \"write\", file = \"/data/out\", length = \"64M\", bufsize = \"1M\", create = true, fsync = false, step = \"write\" }}]\n"
        );
        let s = sim(&toml);
        let others = s.kernel.bg_load + s.kernel.runner_sampler;
        let per = crate::sched::end_io_wakee_wait(&s.kernel.profile, others, others, 2, 0, 400_000);
        // sis23: while the writer's own util_avg keeps the LLC past SIS_UTIL's threshold (its
        // first CPU-bound writes), no scan: the idle other CPU found at half the wake-ups only
        let per_busy = crate::sched::end_io_wakee_wait(&s.kernel.profile, others, 2 * S, 2, 0, 400_000);
        let r = s.run(&mut |_, _| true).unwrap();
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        (task_metric(&r, "w", "write", "sched.run_delay_s"), task_metric(&r, "w", "write", "elapsed_s"), per as f64 * 1e-9, per_busy as f64 * 1e-9)
    };
    let (d0, e0, _, _) = go("");
    let (d1, e1, per, per_busy) = go("end_io_work_run = \"400us\"");
    assert!((per - 0.26 * 400e-6).abs() < 2e-6, "the sampler's quarter and the background's hundredth of 400 us: {per}");
    // a whole number of each of the two waits (the scan on, and off)
    let waits = (0..=((d1 - d0) / per_busy) as u64)
        .map(|b| (b, (d1 - d0 - b as f64 * per_busy) / per))
        .find(|&(_, a)| a >= -1e-6 && (a - a.round()).abs() < 1e-3);
    assert!(matches!(waits, Some((b, a)) if a.round() >= 1.0 || b >= 1), "whole waits of {per} and {per_busy} s: {d0} -> {d1} s ({waits:?})");
    let waits = waits.unwrap().0 as f64 + waits.unwrap().1.round();
    // the writer runs at the device's pace: a later wake-up shortens its next sleep, so its
    // elapsed time takes at most the waits (here one)
    assert!(e1 >= e0 && e1 - e0 <= d1 - d0 + 1e-9, "the elapsed time: {e0} -> {e1} s, waits {d0} -> {d1} s");
    eprintln!("run_delay {d0} -> {d1} s ({waits} waits of {per} s), elapsed {e0} -> {e1} s");
}

/// `[machine] end_io_work_run` (wake23) refuses a duration outside 100ns to 100ms, a word that is no
/// duration and a bare number, each error naming the file, line and column of the value (line 5,
/// column 19 after `end_io_work_run = `) and what to write; a good one sets
/// `HostCost::end_io_work_run`.
#[test]
fn bad_end_io_work_run_is_refused_with_the_place_and_the_fix() {
    let toml = |m: &str| format!("[scenario]\nname = \"h\"\n[machine]\nram = \"256M\"\n{m}\n[kernel]\nprofile = \"linux-6.18\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
    for (v, want, fix) in [
        ("\"1ns\"", "machine.end_io_work_run is 1 ns, outside 100ns to 100ms", "write the completion work's measured run, such as \"359us\""),
        ("\"200ms\"", "machine.end_io_work_run is 200000000 ns, outside 100ns to 100ms", "write the completion work's measured run"),
        ("\"abc\"", "machine.end_io_work_run: ", "write a duration with a unit"),
        ("359", "machine.end_io_work_run must be a duration string, not", "write a duration with a unit"),
    ] {
        let e = crate::Document::from_toml("s.toml", &toml(&format!("end_io_work_run = {v}"))).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains("s.toml:5:19"), "{v}: the place: {e}");
        assert!(e.contains(want), "{v}: {e}");
        assert!(e.contains(fix), "{v}: the fix: {e}");
    }
    let ok = crate::Document::from_toml("s.toml", &toml("end_io_work_run = \"359us\"")).unwrap().resolve(None, &[]).unwrap();
    assert_eq!(ok.machine.host_cost.end_io_work_run, Some(359_000));
}
