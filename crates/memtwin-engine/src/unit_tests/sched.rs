//! The scheduler: one virtual clock, tasks ordered by it, and `post`/`wait` events between
//! tasks (sched.rs).

use super::*;
use crate::vmstat::VmEvent;

fn step_end(res: &crate::SimResult, task: &str, step: &str) -> (f64, f64) {
    (task_metric(res, task, step, "elapsed_s"), task_metric(res, task, step, "user_s"))
}

/// A `wait` blocks its task until another task `post`s the event, and takes one post; a post
/// made before the wait is kept for it.
#[test]
fn wait_blocks_until_a_post_and_takes_one() {
    let s = sim(r#"
[scenario]
name = "events"
[machine]
ram = "64M"
[tasks.a]
ops = [
  { op = "sleep", duration = "1s", step = "a sleeps" },
  { op = "post", event = "go", step = "a posts" },
  { op = "post", event = "go", step = "a posts" },
]
[tasks.b]
ops = [
  { op = "wait", event = "go", step = "b waits" },
  { op = "sleep", duration = "2s", step = "b sleeps" },
  { op = "wait", event = "go", step = "b waits again" },
]
"#);
    let res = s.run(&mut |_, _| true).unwrap();
    assert!(res.errors.is_empty(), "{:?}", res.errors);
    let (waited, _) = step_end(&res, "b", "b waits");
    assert!((waited - 1.0).abs() < 1e-6, "b waited for a's post at 1 s: {waited}");
    let (again, _) = step_end(&res, "b", "b waits again");
    assert!(again < 1e-6, "the second post was kept for the second wait: {again}");
    assert!((res.engine.virtual_time_s - 3.0).abs() < 1e-6);
}

/// A task still waiting when every other task is done fails its op (EDEADLK) instead of
/// hanging the run; a wait for an event no task posts is refused when the scenario is read.
#[test]
fn a_wait_nobody_answers_fails_or_is_refused() {
    let s = sim(r#"
[scenario]
name = "deadlock"
[machine]
ram = "64M"
[tasks.a]
ops = [{ op = "post", event = "go" }]
[tasks.b]
ops = [{ op = "wait", event = "go" }, { op = "wait", event = "go", step = "second" }]
"#);
    let res = s.run(&mut |_, _| true).unwrap();
    assert_eq!(res.nr_errors, 1);
    assert!(res.errors[0].contains("still waiting"), "{}", res.errors[0]);

    let doc = crate::Document::from_toml(
        "x.toml",
        r#"
[scenario]
name = "typo"
[machine]
ram = "64M"
[tasks.a]
ops = [{ op = "post", event = "copied" }]
[tasks.b]
ops = [{ op = "wait", event = "copid" }]
"#,
    )
    .unwrap();
    let err = doc.resolve(None, &[]).unwrap_err().to_string();
    assert!(err.contains("waits for event `copid`, which no task posts"), "{err}");
    assert!(err.contains("copied"), "suggests the posted name: {err}");
}

/// A run of a few huge `read()`s reports progress as it goes, not only every 2048 syscalls:
/// at least every `PROGRESS_PAGES` pages of work.
#[test]
fn huge_reads_report_progress_as_they_go() {
    let doc = crate::Document::from_toml(
        "progress.toml",
        r#"
[scenario]
name = "huge-reads"
[machine]
ram = "16G"
[devices.sda]
read_bw = "10G"
[files."/f"]
size = "8G"
[tasks.t]
ops = [{ op = "read", file = "/f", bufsize = "1G" }]
"#,
    )
    .unwrap();
    let scn = doc.resolve(None, &[]).unwrap();
    let mut calls = vec![];
    crate::simulate(&scn, &mut |done, total| {
        calls.push((done, total));
        true
    })
    .unwrap();
    let midway = calls.iter().filter(|(d, t)| *d > 0 && d < t).count();
    assert!(midway >= 1, "progress during an 8-syscall read: {calls:?}");
}

/// A cgroup with a 0 limit (v1 `memory.limit_in_bytes = "0"`, v2 `memory.max = 0`) is
/// accepted, as the kernel accepts it on an empty group; the task's first charge fails, and
/// the failure names the op as the scenario wrote it and the limit that made it fail — never
/// the engine's structures.
#[test]
fn a_zero_limit_fails_with_a_message_in_the_scenarios_terms() {
    for (version, file, value) in [("v1", "memory.limit_in_bytes", "\"0\""), ("v2", "memory.max", "0")] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "zero"
[machine]
ram = "1G"
[kernel]
cgroup = "{version}"
[devices.sda]
read_bw = "100M"
[files."/f"]
size = "1M"
[cgroups.ct]
"{file}" = {value}
[tasks.cat]
cgroup = "ct"
ops = [{{ op = "read", file = "/f", step = "read" }}]
"#
        ));
        run(&mut s);
        let errors = s.op_errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        let e = &errors[0];
        assert!(e.contains("step \"read\"") && e.contains("(read /f)"), "{e}");
        assert!(e.contains(&format!("cgroup `ct` has {file} = 0")) && e.contains("ENOMEM"), "{e}");
        assert!(!e.contains("Read {") && !e.contains("bufsize:"), "no Debug dump: {e}");
        assert_invariants(&s.kernel);
    }
}

/// A task that sleeps in a page fault (here legacy v1 memcg reclaim waiting on a page's
/// writeback, `folio_wait_writeback()` in 6.18's `shrink_folio_list()`) gives the CPU to the
/// other tasks (`io_schedule()`): its quantum of faults ends at the fault that slept, and its
/// next faults run after what the others did by its wake-up time. Without it, a probe that
/// waited found every page freed during its sleep kept for it, and the copy beside it paid
/// the probe's waits.
#[test]
fn a_fault_that_sleeps_ends_its_tasks_quantum() {
    // SLEEPERS (below) with a probe of 32M.
    let mut s = sim(&SLEEPERS.replace(r#"size = "16M""#, r#"size = "32M""#));
    // The probe's quanta that slept: those that stopped short of a quantum's 512 faults, and
    // those that ran all 512 (the sleep in their last fault). A round's last quantum unmaps.
    let (mut short, mut full, mut mapped_before, mut iowait_before) = (0, 0, 0usize, 0u64);
    run_with(&mut s, |s| {
        let mapped = s.kernel.vmas.iter().map(|v| v.pages.iter().filter(|p| **p != crate::types::PageId::NIL).count()).sum::<usize>();
        let iowait = s.task_iowait("probe");
        if mapped > mapped_before && iowait > iowait_before {
            if mapped - mapped_before < 512 {
                short += 1;
            } else {
                full += 1;
            }
        }
        mapped_before = mapped;
        iowait_before = iowait;
    });
    assert!(short > 0, "the probe's faults slept in reclaim, and its quanta ended there");
    assert!(full * 4 <= short, "a sleeping quantum went on with its faults: {full} of {}", full + short);
}

/// The v1 memcg reclaim of a copy and a probe sharing a 64M memcg over a throttled disk
/// (the host's host-stall scenarios, smaller).
const SLEEPERS: &str = r#"
[scenario]
name = "sleepers"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.18"
cgroup = "v1"
[devices.sda]
read_bw = "200M"
write_bw = "150M"
blk_throttle = true
[files."/data/src"]
size = "256M"
[cgroups.A]
"memory.limit_in_bytes" = "64M"
[tasks.cp]
cgroup = "A"
ops = [{ op = "cp", src = "/data/src", dst = "/data/dst", step = "copy" }]
[tasks.probe]
cgroup = "A"
ops = [{ op = "mmap_probe", size = "16M", interval = "5ms", while_task = "cp", step = "probe" }]
"#;

/// A task that sleeps in a syscall gives up the CPU until its wake-up (`io_schedule()` in
/// `folio_wait_writeback()`, which v1 memcg reclaim calls on a `PG_reclaim` folio under
/// writeback in `shrink_folio_list()`, 6.18; `schedule_timeout()` in `reclaim_throttle()`):
/// the probe's quantum ends at the sleep, with its clock at the wake-up, and the copy runs
/// meanwhile. What the probe would see only once awake is left for then: the writeback of the
/// folio it waits for has not ended when its quantum ends (the scheduler's clock ends it when
/// the probe runs again, after the copy's quanta before that time). Before, the sleeper went
/// on with its fault at the wake-up within its quantum, ending the writeback of the whole
/// burst it waited for and reclaiming it ahead of the copy, whose clock was behind. The
/// copy's file system has order-0 folios (ext4 `-O verity`): the copy written in 32-page
/// folios makes each of reclaim's 32-page batches one dirty folio, all unqueued dirty, so the
/// probe sleeps in `reclaim_throttle()` beside the copy rather than on a folio's writeback
/// (a_large_folio_batch_of_one_dirty_folio_throttles_v1_reclaim_6_18, unit_tests/filemap.rs).
#[test]
fn a_sleep_in_reclaim_ends_the_quantum_until_the_wake_up() {
    let mut s = sim(&SLEEPERS.replace("ram = \"1G\"\n", "ram = \"1G\"\nfs_features = [\"verity\"]\n"));
    let (mut sleeps, mut ran_meanwhile) = (0u32, 0u32);
    let mut wake: Option<u64> = None;
    loop {
        let (probe_clock, probe_iowait, cp_clock) = (s.task_clock("probe"), s.task_iowait("probe"), s.task_clock("cp"));
        if !s.step() {
            break;
        }
        if let Some(w) = wake {
            if s.task_clock("cp") != cp_clock && cp_clock < w {
                ran_meanwhile += 1;
                wake = None;
            } else if s.task_clock("probe") != probe_clock {
                wake = None;
            }
        }
        let slept = s.task_iowait("probe") - probe_iowait;
        if slept >= 10_000_000 && s.task_clock("probe") > probe_clock {
            let w = s.task_clock("probe");
            // Folios whose request completed by the wake-up are still under writeback.
            let k = &s.kernel;
            let pending = (0..k.wb_done.len()).filter(|&i| k.pages[PageId(i as u32)].test(pg::WRITEBACK) && k.wb_done[i] <= w).count();
            if pending > 0 {
                sleeps += 1;
                wake = Some(w);
            }
        }
    }
    assert!(sleeps >= 5, "the probe slept in reclaim with its quantum ended: {sleeps}");
    assert!(ran_meanwhile * 10 >= sleeps * 9, "the copy ran while the probe slept: {ran_meanwhile} of {sleeps}");
    s.kernel.check_invariants().unwrap();
}

/// The restart of a syscall whose charge slept ([`crate::sched::Resched`]) redoes nothing and
/// loses nothing: the kernel's charge goes on after the sleep (`try_charge_memcg()`'s retry
/// loop), so the fault the engine takes again counts one `PGFAULT` (memory.stat `pgfault`:
/// 4096 a round of the 16M probe, exactly), and the copy's `write()` goes on from the page
/// whose charge slept (every page of the file dirtied once: /proc/<pid>/io `write_bytes`).
#[test]
fn a_restarted_fault_counts_once_and_a_restarted_write_loses_nothing() {
    let s = sim(SLEEPERS);
    let res = s.run(&mut |_, _| true).unwrap();
    assert!(res.errors.is_empty(), "{:?}", res.errors);
    let get = |task: &str, k: &str| metric_in(res.steps.iter().find(|st| st.task == task).unwrap(), k);
    let rounds = get("probe", "latency.samples");
    assert!(rounds > 10.0 && get("probe", "latency.max_ms") > 50.0, "long rounds: the probe slept");
    assert_eq!(get("probe", "memcg.pgfault"), rounds * 4096.0);
    assert_eq!(get("cp", "write_bytes"), (256u64 << 20) as f64);
    assert!(get("cp", "stall.writeback_ms") > 0.0 && get("probe", "stall.writeback_ms") > 0.0);
}

/// A fault or `write()` resumed after its charge's sleep ended the quantum
/// ([`crate::sched::Resumed`]) pays the work done before the sleep once: in the kernel
/// (6.12, 6.18) the task goes on where it slept (`folio_wait_writeback()` returns into
/// `shrink_folio_list()`, and `try_charge_memcg()` goes on), so the fault's entry
/// (`do_anonymous_page()` before `mem_cgroup_charge()`), the syscall's entry and the
/// page-cache folio's allocation (`filemap_add_folio()` before its charge) are not done
/// again. The restarted charge drops what it did not use.
#[test]
fn a_resumed_fault_or_write_pays_its_entry_once() {
    use crate::sched::Resumed;
    let mut s = sim(r#"
[scenario]
name = "resumed"
[machine]
ram = "256M"
[kernel]
profile = "linux-6.12"
cgroup = "v1"
[devices.sda]
read_bw = "100M"
[files."/f"]
size = 0
[cgroups.A]
"memory.limit_in_bytes" = "64M"
[tasks.t]
cgroup = "A"
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let a = memcg(&s, "A");
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(64, a);
    k.handle_mm_fault(vma, 0).unwrap();
    let sys = |k: &mut crate::kernel::Kernel, resumed: Resumed, op: &mut dyn FnMut(&mut crate::kernel::Kernel)| {
        k.resched.resumed = resumed;
        let t0 = k.sys_ns;
        op(k);
        assert_eq!(k.resched.resumed, Resumed::NONE, "the charge took or dropped every flag");
        k.sys_ns - t0
    };
    let fresh = sys(k, Resumed::NONE, &mut |k| k.handle_mm_fault(vma, 1).unwrap());
    let resumed = sys(k, Resumed::ALL, &mut |k| k.handle_mm_fault(vma, 2).unwrap());
    assert_eq!(fresh - resumed, k.cost.anon_fault, "the resumed fault's entry is not paid again");
    k.generic_perform_write(f, 0, PAGE_SIZE, a).unwrap();
    let fresh = sys(k, Resumed::NONE, &mut |k| assert_eq!(k.generic_perform_write(f, PAGE_SIZE, PAGE_SIZE, a), Ok(PAGE_SIZE)));
    let resumed = sys(k, Resumed::ALL, &mut |k| assert_eq!(k.generic_perform_write(f, 2 * PAGE_SIZE, PAGE_SIZE, a), Ok(PAGE_SIZE)));
    // Its folio's zeroing too: 6.12 is Debian's build, init_on_alloc (post_alloc_hook()).
    let init = if k.profile.init_on_alloc { k.cost.clear_page } else { 0 };
    assert_eq!(fresh - resumed, k.cost.syscall + k.cost.add_page + init, "the resumed write's entry and its folio are not paid again");
    k.check_invariants().unwrap();
}


/// The tasks' random numbers (`types::Rng`: SplitMix64, `below()` the high word of x * n), which
/// the real-kernel runners draw alike (python/memtwin/real.py `EngineRng`, the QEMU guest's
/// memtwin_guest.c `rnd()`/`below()`; python/tests/test_real.py holds them to these figures):
/// seed 0's first random pages of a 96M mapping, as qemu61-mmap-db's lookup touches them.
#[test]
fn the_random_pages_the_runners_draw_alike() {
    let mut rng = crate::types::Rng::new(0);
    let pages: Vec<u64> = (0..5).map(|_| rng.below(24576)).collect();
    assert_eq!(pages, vec![10605, 649, 23860, 2613, 8044]);
}

/// `step_gaps` (TaskSpec::step_gaps): a real runner's time between a task's steps, slept before
/// the next step's start snapshot and counted in no step. The kernel's clock runs on through it:
/// on linux-6.12 mm/memcontrol.c's periodic `flush_memcg_stats_dwork()` (every FLUSH_TIME = 2 s)
/// runs in a 2.5 s gap, before the next step begins, so the rstat copy the next step's reclaim
/// would read (`prepare_scan_control()`) holds the first step's active pages. Without a gap the
/// second step starts at once, before the flush. A list longer than the task's step boundaries
/// is refused.
#[test]
fn step_gaps_sleep_between_steps_outside_them_and_the_flush_runs_in_them() {
    use crate::memcontrol::FLUSH_TIME;
    let scn = |gaps: &str| {
        sim(&format!(
            r#"
[scenario]
name = "gaps"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.12"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "4M"
[cgroups.P]
[cgroups."P/A"]
[tasks.t]
cgroup = "P/A"
{gaps}
ops = [
  {{ op = "read", file = "/w", step = "one" }},
  {{ op = "read", file = "/w", step = "two" }},
  {{ op = "sleep", duration = "10ms", step = "three" }},
]
"#
        ))
    };
    // (the flushed copy of P's active file pages after the quantum in which the flush at
    // FLUSH_TIME ran, and the kernel's clock then)
    let at_three = |gaps: &str| {
        let mut s = scn(gaps);
        let p = memcg(&s, "P");
        let vp = s.kernel.lruvec_idx(p, 0);
        let mut seen = None;
        run_with(&mut s, |s| {
            // (the first flush is due 504 jiffies in, 2.016 s: the wheel's bucket)
            if seen.is_none() && s.kernel.stats_flush_next > FLUSH_TIME + 16 * crate::timer::NSEC_PER_JIFFY {
                let st = &s.kernel.lru_stats;
                seen = Some((st.flushed_subtree_size(vp, LruList::ActiveFile), st.subtree_size(vp, LruList::ActiveFile), s.kernel.now));
            }
        });
        (seen, s)
    };
    let plain = scn("").run(&mut |_, _| true).unwrap();
    let gapped = scn(r#"step_gaps = ["1ms", "2500ms"]"#).run(&mut |_, _| true).unwrap();
    assert!(plain.errors.is_empty() && gapped.errors.is_empty(), "{:?} {:?}", plain.errors, gapped.errors);
    // The gaps are in no step: each step's elapsed time is the same with and without them...
    for st in ["one", "two", "three"] {
        let (a, b) = (task_metric(&plain, "t", st, "elapsed_s"), task_metric(&gapped, "t", st, "elapsed_s"));
        assert!((a - b).abs() < 1e-9, "step {st}: {a} s without gaps, {b} s with");
    }
    assert!((task_metric(&gapped, "t", "three", "elapsed_s") - 0.010).abs() < 1e-9);
    // ...and the run is longer by them.
    let more = gapped.engine.virtual_time_s - plain.engine.virtual_time_s;
    assert!((more - 2.501).abs() < 1e-6, "the run took {more} s longer, not the gaps' 2.501 s");
    assert!(plain.engine.virtual_time_s < 2.0, "without gaps the run ends before the first flush");
    // The periodic flush ran in the 2.5 s gap, before step three's start: the copy holds A's
    // 1024 pages the second read activated. Without the gap no flush ran by the run's end.
    let (seen, _) = at_three(r#"step_gaps = ["1ms", "2500ms"]"#);
    let (copied, active, when) = seen.expect("the flush at FLUSH_TIME ran");
    // (the last pages read may still sit in the CPU's lru_add batch: on no list yet)
    assert!(active > 1000 && copied == active, "the flush in the gap copied the {active} active pages: {copied}");
    // (it ran when the task woke from the gap, at step three's start, 10 ms before the end)
    let three_starts = ((gapped.engine.virtual_time_s - 0.010) * 1e9).round() as u64;
    assert!(when.abs_diff(three_starts) < 1_000, "the flush ran at {when} ns, step three began at {three_starts} ns");
    let (seen, _) = at_three("");
    assert!(seen.is_none(), "no flush without the gap: {seen:?}");
    // One duration per boundary between steps at most.
    let doc = crate::Document::from_toml("x.toml", &r#"
[scenario]
name = "x"
[machine]
ram = "64M"
[tasks.t]
step_gaps = ["1ms", "1ms"]
ops = [{ op = "sleep", duration = "1ms", step = "a" }, { op = "sleep", duration = "1ms", step = "b" }]
"#.to_string()).unwrap();
    let e = doc.resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("step_gaps has 2 entries, but the task has 2 step(s), so 1 gap(s)"), "{e}");
}

/// The flusher is a kernel thread that runs while a task sleeps: a sleep inside a restartable
/// charge that goes past the flusher's resumption (held by blk-wbt until `FlusherWork::until`,
/// `rq_qos_wait()` -> `wbt_rqw_done()` / `scale_up()` in 6.1 block/blk-wbt.c) or past a periodic
/// flusher wake-up (`wb_workfn()`) ends the task's quantum, so that the scheduler's
/// `advance_clock()` runs that work before the task goes on, even with no other task runnable
/// (`horizon` None). A lone writer throttled in reclaim otherwise ran on for tens of seconds
/// while the flusher that was to write its dirty pages waited for it.
#[test]
fn a_sleep_past_the_flusher_resumption_ends_the_quantum() {
    let mut s = sim(r#"
[scenario]
name = "alone"
[machine]
ram = "64M"
[tasks.t]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let k = &mut s.kernel;
    let t0 = k.now;
    k.resched.restartable = true;
    assert_eq!(k.resched.horizon, None);
    assert!(!k.flusher_due_before(t0 + 50 * 1_000_000));
    assert!(!k.schedule_until(t0 + 50 * 1_000_000), "nothing else runs meanwhile: the task sleeps in place");
    let t1 = k.now;
    k.flusher.until = t1 + 10 * 1_000_000;
    assert!(k.flusher_due_before(t1 + 50 * 1_000_000));
    assert!(!k.schedule_until(t1 + 5 * 1_000_000), "a sleep that ends before the flusher's resumption");
    assert_eq!(k.resched.wake, None);
    let t2 = k.now;
    assert!(k.schedule_until(t2 + 50 * 1_000_000), "the flusher goes on at 10 ms: the quantum ends");
    assert_eq!(k.resched.wake, Some(t2 + 50 * 1_000_000));
    k.resched.wake = None;
    k.flusher.until = 0;
    k.wb_wakeup_delayed(0);
    assert!(k.flusher_due_before(k.now + 10_000 * 1_000_000), "a periodic wake-up is due within dirty_writeback_interval");
    k.resched.restartable = false;
    assert!(!k.schedule_until(k.now + 10_000 * 1_000_000), "outside a restartable charge the task sleeps in place");
}

/// CFS's share of the CPUs (kernel/sched/fair.c 6.1 `sched_slice()`: the period split in
/// proportion to the weights of the runnable entities, equal at nice 0; the load balancer
/// spreading them over the CPUs): a runnable context's CPU time takes `max(1, n / nr_cpus)`
/// times as long in wall time with `n` runnable contexts, itself included; and PELT's
/// runnable average (kernel/sched/pelt.c 6.1 `___update_load_avg()`, y^32 = 1/2 over
/// 1024 us periods) that counts them: half way to a new runnable fraction after 32 periods.
#[test]
fn cfs_share_of_the_cpus_and_pelt_runnable_average_6_1() {
    use crate::kernel::{cfs_stretch, SCHED_CAPACITY_SCALE as S};
    use crate::sched::{runnable_avg_update, LOAD_PRECISION_SHIFT as P};
    assert_eq!(cfs_stretch(0, 2), S, "alone on two CPUs: a CPU of its own");
    assert_eq!(cfs_stretch(S, 2), S, "two runnable on two CPUs");
    assert_eq!(cfs_stretch(32 * S, 2), 33 * S / 2, "kswapd beside 32 runnable readers on 2 CPUs: 2/33 of a CPU");
    assert_eq!(cfs_stretch(3 * S, 1), 4 * S);
    assert_eq!(cfs_stretch(S / 2, 1), 3 * S / 2, "an expectation: a task runnable half the time");
    let half = 32 * 1024 * 1000; // LOAD_AVG_PERIOD periods of 1024 us
    let one = S << P;
    assert_eq!(runnable_avg_update(0, half, half), one / 2);
    assert_eq!(runnable_avg_update(one, half, 0), one / 2);
    assert_eq!(runnable_avg_update(one, 2 * half, 0), one / 4);
    assert_eq!(runnable_avg_update(one, 10 * half, 10 * half), one);
    assert_eq!(runnable_avg_update(0, half, half / 2), one / 4);
    assert_eq!(runnable_avg_update(700, 0, 0), 700, "no time: unchanged");
    // Many short windows add up as one long one: 1000 windows of 20 us fully runnable.
    let mut avg = 0;
    for _ in 0..1000 {
        avg = runnable_avg_update(avg, 20_000, 20_000);
    }
    let once = runnable_avg_update(0, 20_000_000, 20_000_000);
    assert!(avg.abs_diff(once) < one / 10_000, "{avg} against {once}");
}

/// The CFS share counts the tasks runnable at the instant, not PELT's averages: 6.1's
/// `sched_slice()` (kernel/sched/fair.c) divides by `cfs_rq->load`, the weights
/// `account_entity_enqueue()` adds at each enqueue; 6.18's EEVDF by `cfs_rq->avg_load`, summed by
/// `avg_vruntime_add()` (`__enqueue_entity()`). PELT's `runnable_avg` (`post_init_entity_util_avg()`'s
/// ~half a CPU for a new task) is the load balancer's, not the share. A task runnable for a
/// fraction of its quantum counts that fraction (`crate::sched::quantum_runnable_weight`); a
/// forked task (`wake_up_new_task()` -> `activate_task()`) counts whole from its fork: three
/// CPU-bound touchers forked together on two CPUs each take 1.5x their time alone from the
/// first instant (host-stall-hog-swap's hog 1: the kernel's three reclaimers share two CPUs
/// from its start, lab/validation/trace-hog-swap-1130/cfs23). With the post-init averages
/// (512 + 384 + 288 of 1024, under two CPUs' worth) they ran at a CPU each for their first
/// ~80 ms: 1.00x here (checked: the test then fails).
#[test]
fn cfs_share_counts_the_tasks_runnable_at_the_instant_6_1_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{quantum_runnable_weight, LOAD_PRECISION_SHIFT as P};
    let one = S << P;
    assert_eq!(quantum_runnable_weight(0, 0), one, "forked or woken, not yet measured: a whole weight");
    assert_eq!(quantum_runnable_weight(1_000_000, 1_000_000), one, "runnable all its quantum");
    assert_eq!(quantum_runnable_weight(1_000_000, 250_000), one / 4, "runnable a quarter of it");
    assert_eq!(quantum_runnable_weight(1_000_000, 0), 0, "asleep all of it");
    assert_eq!(quantum_runnable_weight(1_000_000, 2_000_000), one, "at most a whole weight");
    for profile in ["linux-6.1", "linux-6.18"] {
        let toml = |n: usize| {
            let tasks: String = (0..n)
                .map(|i| format!("[tasks.t{i}]\nops = [{{ op = \"mmap\", name = \"m\", size = \"4M\" }}, {{ op = \"touch\", name = \"m\", step = \"touch\" }}]\n"))
                .collect();
            format!("[scenario]\nname = \"fork\"\n[machine]\nram = \"2G\"\ncpus = 2\ncpu_slowdown = 20\n[kernel]\nprofile = \"{profile}\"\n{tasks}")
        };
        let go = |n: usize| sim(&toml(n)).run(&mut |_, _| true).unwrap();
        let (alone, three) = (go(1), go(3));
        let e_alone = task_metric(&alone, "t0", "touch", "elapsed_s");
        assert!(e_alone < 0.05, "{profile}: {e_alone} s alone: short beside PELT's 32 ms half-life");
        for t in ["t0", "t1", "t2"] {
            let e = task_metric(&three, t, "touch", "elapsed_s");
            assert!((e / e_alone - 1.5).abs() < 0.02, "{profile} {t}: {e} s against {e_alone} s alone: 3 on 2 CPUs from the fork");
        }
    }
}

/// A task a `post` wakes (`futex_wake()` -> `try_to_wake_up()` -> `activate_task()`) is a whole
/// weight on the run queue at once, not a runnable average built up again from 0: two
/// CPU-bound touchers on one CPU, one of them woken from a `wait` as the other starts, each
/// take twice their time alone (kernel/sched/fair.c 6.18 EEVDF, `cfs_rq->avg_load`; 6.1
/// `sched_slice()`). Before (PELT from 0 after the wake-up) the poster ran alone at first: 1.2x.
#[test]
fn a_woken_task_shares_the_cpu_at_once_6_18() {
    let touch = |name: &str, first: &str| {
        format!("[tasks.{name}]\nops = [{first}{{ op = \"mmap\", name = \"m\", size = \"4M\" }}, {{ op = \"touch\", name = \"m\", step = \"touch\" }}]\n")
    };
    let head = "[scenario]\nname = \"wake\"\n[machine]\nram = \"2G\"\ncpus = 1\ncpu_slowdown = 20\n[kernel]\nprofile = \"linux-6.18\"\n";
    let alone = sim(&format!("{head}{}", touch("a", ""))).run(&mut |_, _| true).unwrap();
    let pair = format!(
        "{head}{}{}",
        touch("a", "{ op = \"sleep\", duration = \"10ms\" }, { op = \"post\", event = \"go\" }, "),
        touch("b", "{ op = \"wait\", event = \"go\" }, ")
    );
    let both = sim(&pair).run(&mut |_, _| true).unwrap();
    let e_alone = task_metric(&alone, "a", "touch", "elapsed_s");
    for t in ["a", "b"] {
        let e = task_metric(&both, t, "touch", "elapsed_s");
        assert!((e / e_alone - 2.0).abs() < 0.03, "{t}: {e} s against {e_alone} s alone: two on one CPU from the wake-up");
    }
}

/// A task that left the run queue at a clock ahead of the others' counts there until they reach
/// it (`Simulation::departed`: `dequeue_entity()` at its own instant, 6.1/6.18
/// kernel/sched/fair.c); woken before then (`try_to_wake_up()` -> `activate_task()`), it is one
/// entity on the run queue, counted once, whole, not whole and departed both (review51 L3: under
/// the old rule the sum at 5 ms was 2.25 weights, checked: this test then fails). Its stale entry
/// does not take a later departure's weight away early, and a second departure at the same clock
/// counts once.
#[test]
fn a_task_woken_before_its_departure_counts_once() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::LOAD_PRECISION_SHIFT as P;
    let one = S << P;
    let mut s = sim("[scenario]\nname = \"d\"\n[machine]\nram = \"256M\"\ncpus = 2\n[kernel]\nprofile = \"linux-6.18\"\n\
                     [tasks.a]\nops = [{ op = \"sleep\", duration = \"1s\" }]\n[tasks.b]\nops = [{ op = \"sleep\", duration = \"1s\" }]\n");
    let ms = 1_000_000;
    s.set_task_quantum(0, 5 * ms, one);
    s.set_task_quantum(1, 10 * ms, one / 4);
    let seen = |s: &mut crate::sched::Simulation, now: crate::types::Nanos| s.kernel.task_load_sum + s.departed_weight(now);
    assert_eq!(seen(&mut s, 5 * ms), one + one / 4, "both on the run queue");
    // b blocks at its clock, 10 ms: at 5 ms it is still there by its quantum's fraction
    s.task_off_runq(1);
    assert_eq!(seen(&mut s, 5 * ms), one + one / 4, "b departs at 10 ms: still counted at 5 ms");
    // b is woken at its clock: one entity, whole
    s.task_on_runq(1);
    assert_eq!(s.kernel.departed_load_sum, 0, "its departed entry taken back");
    assert_eq!(seen(&mut s, 5 * ms), 2 * one, "b once, whole (the old rule: 2.25 weights)");
    // b departs again at the same clock with another weight; the stale entry pops at 10 ms
    s.set_task_quantum(1, 10 * ms, one / 2);
    s.task_off_runq(1);
    assert_eq!(seen(&mut s, 5 * ms), one + one / 2, "departed again at 10 ms, by its new weight");
    assert_eq!(seen(&mut s, 10 * ms), one, "gone at its clock, once");
    assert_eq!(s.kernel.departed_load_sum, 0);
    // a later departure is not taken away by b's stale entries
    s.set_task_quantum(1, 20 * ms, one / 2);
    s.task_off_runq(1);
    s.task_on_runq(1);
    s.set_task_quantum(1, 30 * ms, one / 8);
    s.task_off_runq(1);
    assert_eq!(seen(&mut s, 20 * ms), one + one / 8, "the stale 20 ms entry leaves the 30 ms departure");
    assert_eq!(seen(&mut s, 30 * ms), one);
}

/// kswapd shares the CPUs with every task on the run queue at the running context's instant, the
/// tasks that left it at a later clock among them (`Kernel::departed_load_sum`, which the running
/// task's own share in `enter()` counts), and the other nodes' awake kswapds (review51 L4: its
/// share left the departed tasks out; checked: this test then fails).
#[test]
fn kswapd_shares_the_cpus_with_departed_tasks_too() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::LOAD_PRECISION_SHIFT as P;
    let mut s = sim("[scenario]\nname = \"k\"\n[machine]\nram = \"256M\"\ncpus = 1\n[kernel]\nprofile = \"linux-6.18\"\n[tasks.t]\nops = []\n");
    let k = &mut s.kernel;
    k.nodes[0].kswapd_active = true;
    k.nodes[0].kswapd_load = (S / 4) << P;
    k.task_load_sum = S << P;
    k.departed_load_sum = (S / 2) << P;
    assert_eq!(k.kswapd_share_others(0), S + S / 2, "the running task and a departed one's half, not kswapd itself");
    assert_eq!(crate::kernel::cfs_stretch(k.kswapd_share_others(0), 1), 2 * S + S / 2);
}

/// Tasks that want a CPU share the machine's CPUs (CFS, kernel/sched/fair.c 6.1
/// `sched_slice()`): four tasks faulting in anonymous memory, CPU time only, take each the same
/// system time on one CPU as on four, but on one CPU four times as long (the share counts the
/// tasks runnable at the instant, `crate::sched::quantum_runnable_weight`, from their fork: with
/// PELT's averages building up over its 32 ms half-life it was 3-4x), and on four CPUs as long
/// as a task alone.
#[test]
fn runnable_tasks_share_the_cpus_cfs_6_1() {
    let toml = |cpus: u32, n: usize| {
        let tasks: String = (0..n)
            .map(|i| format!("[tasks.t{i}]\nops = [{{ op = \"mmap\", name = \"m\", size = \"64M\" }}, {{ op = \"touch\", name = \"m\", step = \"touch\" }}]\n"))
            .collect();
        format!("[scenario]\nname = \"share\"\n[machine]\nram = \"2G\"\ncpus = {cpus}\ncpu_slowdown = 20\n[kernel]\nprofile = \"linux-6.1\"\n{tasks}")
    };
    let go = |cpus: u32, n: usize| sim(&toml(cpus, n)).run(&mut |_, _| true).unwrap();
    let alone = go(4, 1);
    let four = go(4, 4);
    let one = go(1, 4);
    let (e_alone, s_alone) = (task_metric(&alone, "t0", "touch", "elapsed_s"), task_metric(&alone, "t0", "touch", "sys_s"));
    assert!(e_alone > 0.1, "{e_alone}: long enough for the averages to build up");
    for t in ["t0", "t1", "t2", "t3"] {
        let (e4, s4) = (task_metric(&four, t, "touch", "elapsed_s"), task_metric(&four, t, "touch", "sys_s"));
        let (e1, s1) = (task_metric(&one, t, "touch", "elapsed_s"), task_metric(&one, t, "touch", "sys_s"));
        assert!((e4 - e_alone).abs() < 1e-9 && (s4 - s_alone).abs() < 1e-9, "{t} on four CPUs: {e4} s like alone {e_alone} s");
        assert!((s1 - s_alone).abs() < 1e-9, "{t}: the same CPU time {s1} on one CPU");
        assert!((e1 / e_alone - 4.0).abs() < 0.04, "{t} on one CPU: {e1} s against {e_alone} s alone");
    }
}

/// kswapd is a task like the others (6.1 mm/vmscan.c `kswapd()`: SCHED_NORMAL, nice 0, any CPU
/// of its node), so beside tasks that keep the CPUs busy it reclaims at its CFS share
/// (`sched_slice()`), and allocating tasks whose pace is their disk's, not their CPU's, reach
/// the min watermark before kswapd has caught up and reclaim directly
/// (`__alloc_pages_slowpath()`): four readers streaming files from a 20 MB/s disk through a
/// small machine beside sixteen tasks re-reading a cached file (CPU time only), on one CPU and
/// on 32. On 32 kswapd has a CPU of its own, waits for none and reclaims everything; on one it
/// waits for most of its time, and direct reclaim takes a large part. (Tasks that all want the
/// CPU for their own allocations keep their ratio to kswapd's share whatever the CPU count:
/// the shares change together; a single reader, whose pages cost it more CPU than kswapd's
/// reclaim of them, never outruns kswapd at an equal share.)
#[test]
fn kswapd_reclaims_at_its_cfs_share_beside_busy_tasks_6_1() {
    let toml = |cpus: u32| {
        let busy: String = (0..16)
            .map(|i| format!("[tasks.b{i}]\nops = [{{ op = \"read\", file = \"/hot\", bufsize = \"4K\", pattern = \"random\", count = 100000 }}]\n"))
            .collect();
        let readers: String = (0..4)
            .map(|i| format!("[files.\"/f{i}\"]\nsize = \"128M\"\n[tasks.r{i}]\nops = [{{ op = \"read\", file = \"/f{i}\", bufsize = \"128K\", step = \"read\" }}]\n"))
            .collect();
        format!(
            "[scenario]\nname = \"kswapd-share\"\n[machine]\nram = \"128M\"\ncpus = {cpus}\ncpu_slowdown = 20\n[kernel]\nprofile = \"linux-6.1\"\n\
             [devices.sda]\nread_bw = \"20M\"\n[files.\"/hot\"]\nsize = \"1M\"\n{readers}{busy}"
        )
    };
    let go = |cpus: u32| {
        let mut s = sim(&toml(cpus));
        run(&mut s);
        let k = &s.kernel;
        (k.vmstat.get(VmEvent::PgstealDirect), k.vmstat.get(VmEvent::PgstealKswapd), k.kswapd_runq_ns, k.kswapd_ns)
    };
    let (direct32, kswapd32, runq32, cpu32) = go(32);
    let (direct1, kswapd1, runq1, cpu1) = go(1);
    assert!(kswapd32 > 0 && cpu32 > 0 && cpu1 > 0);
    assert_eq!((direct32, runq32), (0, 0), "a CPU of its own: kswapd keeps up ({kswapd32} pages)");
    assert!(runq1 > 5 * cpu1, "kswapd waited {runq1} ns for its {cpu1} ns of CPU");
    assert!(direct1 > kswapd1 / 4, "direct reclaim {direct1} pages beside kswapd's {kswapd1} on one CPU");
}

/// kswapd counts on a run queue by its runnable average while awake and not at all asleep
/// (6.1 kernel/sched/fair.c: a sleeping kswapd is dequeued, `dequeue_entity()`; its
/// `runnable_avg` is PELT's, kernel/sched/pelt.c), not as a full CPU whenever it is awake;
/// the kswapd that asks leaves itself out.
#[test]
fn kswapd_counts_by_its_runnable_average_while_awake_6_1() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::LOAD_PRECISION_SHIFT as P;
    let mut s = sim("[scenario]\nname = \"k\"\n[machine]\nram = \"256M\"\ncpus = 1\n[kernel]\nprofile = \"linux-6.1\"\n[tasks.t]\nops = []\n");
    let k = &mut s.kernel;
    k.nodes[0].kswapd_load = (S / 4) << P;
    k.nodes[0].kswapd_active = false;
    assert_eq!(k.kswapd_load_sum(None), 0, "asleep: off the run queue");
    k.nodes[0].kswapd_active = true;
    assert_eq!(k.kswapd_load_sum(None), (S / 4) << P, "awake: its runnable average, a quarter of a CPU");
    assert_eq!(k.kswapd_load_sum(Some(0)), 0, "kswapd itself is not among the others");
    assert_eq!(crate::kernel::cfs_stretch(k.kswapd_load_sum(None) >> P, 1), S + S / 4);
}

/// A task woken from a sleep beside the machine's other runnable tasks waits for a CPU as the
/// era's fair scheduler places it (`crate::sched::wakeup_runq_wait`). 6.18's EEVDF
/// (kernel/sched/fair.c `place_entity()`, `check_preempt_wakeup_fair()` ->
/// `__pick_eevdf(cfs_rq, protect)` with RUN_TO_PARITY's `set_protect_slice()`): on a busy CPU
/// the wakee waits out the running entity's protected slice, 700 us x (1 + ilog2(2)) = 1.4 ms
/// with 2 CPUs (6.15's base slice), which `update_deadline()` notices at the tick (HZ 250): a
/// CPU-bound entity runs one 4 ms tick, a wake-up in its first 1.4 ms waits the rest of it,
/// on average 1.4 - 1.4^2 / 8 = 1.155 ms; 6.6-6.14's 750 us slice: 1.5 - 1.5^2 / 8 = 1.21875
/// ms. `select_idle_sibling()` takes an idle CPU when there is one: one other task on two CPUs
/// leaves one idle, 1.5 of them half the time. 6.1's CFS (`place_entity()`'s
/// GENTLE_FAIR_SLEEPERS credit of `sysctl_sched_latency / 2`, 6 ms, against `wakeup_gran()`'s
/// 2 ms): preempted at once (for a sleeper more than 6 ms behind `min_vruntime`: 6.1's
/// `place_entity()` ends with `max_vruntime()`; a task near its share keeps its vruntime, not
/// modelled, review11 M2).
#[test]
fn woken_task_waits_for_a_cpu_eevdf_6_18_not_cfs_6_1() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{sched_slice_ns, wakeup_runq_wait};
    let p618 = crate::profile::profile("linux-6.18").unwrap();
    let p612 = crate::profile::profile("linux-6.12").unwrap();
    let p61 = crate::profile::profile("linux-6.1").unwrap();
    assert_eq!(sched_slice_ns(&p618, 2), 1_400_000);
    assert_eq!(sched_slice_ns(&p618, 1), 700_000);
    assert_eq!(sched_slice_ns(&p618, 64), 2_800_000, "the factor stops at 8 CPUs: 1 + ilog2(8)");
    assert_eq!(wakeup_runq_wait(&p618, 8 * S, 2), 1_155_000);
    assert_eq!(wakeup_runq_wait(&p612, 8 * S, 2), 1_218_750);
    assert_eq!(wakeup_runq_wait(&p618, S, 2), 0, "one other task on two CPUs: an idle CPU for the wakee");
    assert_eq!(wakeup_runq_wait(&p618, 3 * S / 2, 2), 1_155_000 / 2);
    assert_eq!(wakeup_runq_wait(&p618, 0, 1), 0);
    assert_eq!(wakeup_runq_wait(&p61, 8 * S, 2), 0, "6.1: the sleeper's credit preempts at once");
}

/// The same through a scenario: a task reading a cold file beside `[machine]
/// background_runnable` other tasks. On linux-6.18 every sleep on the read's I/O ends with the
/// wait of `wakeup_runq_wait()` (the step's `sched.run_delay_s`, schedstat's run_delay), so the
/// step takes longer; on linux-6.1 it waits for none. A task re-reading a cached file (CPU time
/// only, no sleep) gets its first slice (1.4 ms) at its own share and the rest at its CFS share
/// beside the background (`cfs_stretch()`: 3 runnable on 2 CPUs, 1.5 times its CPU time).
/// Without the key no `sched.run_delay_s` is reported and the figures are as before.
#[test]
fn background_runnable_delays_a_woken_reader_6_18() {
    let toml = |profile: &str, bg: &str| {
        format!(
            "[scenario]\nname = \"bg\"\n[machine]\nram = \"2G\"\ncpus = 2\n{bg}\n[kernel]\nprofile = \"{profile}\"\n\
             [devices.sda]\nread_bw = \"200M\"\nseek = \"100us\"\n[files.\"/data/in\"]\nsize = \"16M\"\n\
             [tasks.r]\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"cold\" }},\n\
             {{ op = \"repeat\", times = 20, ops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"hot\" }}] }}]\n"
        )
    };
    let go = |profile: &str, bg: &str| sim(&toml(profile, bg)).run(&mut |_, _| true).unwrap();
    let m = |r: &crate::SimResult, step: &str, name: &str| task_metric(r, "r", step, name);
    let plain = go("linux-6.18", "");
    assert!(step_of(&plain, Some("r"), "cold").metrics.iter().all(|(n, _)| n != "sched.run_delay_s"), "no background: no sched metric");
    let bg = go("linux-6.18", "background_runnable = 2");
    let wait = m(&bg, "cold", "sched.run_delay_s");
    // 2 background tasks on 2 CPUs: one entity on the reader's CPU (m = 1, its lag 0 as the
    // sole other entity, `BusyRq`): the first wake-up waits the protected slice, and gives the
    // reader lag; from then on its entry makes the running entity ineligible and it preempts
    assert!(wait > 0.001_155 && wait < 0.003_4, "the woken reader waited for a CPU once: {wait} s");
    let e = m(&bg, "cold", "elapsed_s") - m(&plain, "cold", "elapsed_s");
    assert!(e > 0.0 && e <= wait + 1e-9, "the waits lengthen the step by at most their sum: {e} s of {wait} s");
    let cfs = go("linux-6.1", "background_runnable = 2");
    assert_eq!(m(&cfs, "cold", "sched.run_delay_s"), 0.0, "6.1: preempts at once");
    // The hot re-reads: CPU time only, a single quantum's first 1.4 ms at a CPU of its own.
    let (sys, hot) = (m(&bg, "hot", "sys_s"), m(&bg, "hot", "elapsed_s"));
    let user = m(&bg, "hot", "user_s");
    assert!(sys + user > 0.01, "{sys} {user}");
    // The CPU-bound re-reads: the part at a CPU of its own (the slice the cold read's last I/O
    // wake-up gave, `hot = free + 1.5 x (cpu - free)`) is at least the 1.4 ms slice; without
    // the slice protection `free` would be 0 (hot exactly 1.5 x cpu). Measured 1.471 ms: 71 us
    // more than one slice, not explained by the deadline (review11 L1 asked for exact 1.4 ms).
    let free = 2.0 * (1.5 * (sys + user) - hot);
    assert!(free > 0.001_4 - 1e-9 && free < 0.001_5, "the CPU-bound re-reads: {hot} s for {} s of CPU, {free} s of it unpreempted", sys + user);
    let hot_plain = m(&plain, "hot", "elapsed_s");
    assert!((hot_plain - m(&plain, "hot", "sys_s") - m(&plain, "hot", "user_s")).abs() < 1e-9, "alone: a CPU of its own");
}

/// Every wake-up beside the background takes the same path (kernel/sched/core.c
/// `try_to_wake_up()` -> `ttwu_do_activate()` -> `enqueue_task_fair()` -> `place_entity()`,
/// `check_preempt_wakeup_fair()`; linux-6.18): a timer sleep (`hrtimer_nanosleep()`, op
/// `sleep`) and a futex wake-up (`futex_wake()`, op `wait` woken by a `post`) wait for a CPU
/// as an I/O wait's wake-up does (`Kernel::ttwu_fair_wait`), 1.155 ms each with 2 CPUs and a
/// busy CPU (4 background tasks), and start a fresh slice. Review11 M1: 50 x (2 ms sleep + a
/// cached 256K read) reported run_delay 0 before.
#[test]
fn sleep_and_futex_wakeups_wait_for_a_cpu_6_18() {
    let toml = |bg: &str| {
        format!(
            "[scenario]\nname = \"bg\"\n[machine]\nram = \"2G\"\ncpus = 2\n{bg}\n[kernel]\nprofile = \"linux-6.18\"\n\
             [devices.sda]\nread_bw = \"200M\"\nseek = \"100us\"\n[files.\"/data/in\"]\nsize = \"256K\"\n\
             [tasks.r]\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"256K\", step = \"cold\" }},\n\
             {{ op = \"repeat\", times = 50, ops = [{{ op = \"sleep\", duration = \"2ms\", step = \"loop\" }}, {{ op = \"read\", file = \"/data/in\", bufsize = \"256K\", step = \"loop\" }}] }},\n\
             {{ op = \"wait\", event = \"go\", step = \"woken\" }}]\n\
             [tasks.p]\nops = [{{ op = \"sleep\", duration = \"1s\" }}, {{ op = \"post\", event = \"go\" }}]\n"
        )
    };
    let go = |bg: &str| sim(&toml(bg)).run(&mut |_, _| true).unwrap();
    let m = |r: &crate::SimResult, step: &str, name: &str| task_metric(r, "r", step, name);
    let bg = go("background_runnable = 4");
    let plain = go("");
    let wait = m(&bg, "loop", "sched.run_delay_s");
    // a 2 ms sleep: ((2 - 1.4) x 1.155 + (5.4 - 2)^2 / 2) / 4 = 1.61825 ms (wakeup_runq_wait_after)
    // for the first, without lag; each wait gives the sleeper lag, and the later wake-ups wait
    // less (`BusyRq::wakeup`, the wakee's lag making the running entity ineligible)
    assert!(wait > 0.001_618_25 && wait < 5.0 * 0.001_618_25, "50 timer wake-ups, the first of 1.618 ms: {wait} s");
    let e = m(&bg, "loop", "elapsed_s") - m(&plain, "loop", "elapsed_s");
    assert!((e - wait).abs() < 1e-9, "the waits lengthen the loop by their sum (the reads fit the fresh slice): {e} s vs {wait} s");
    let woken = m(&bg, "woken", "sched.run_delay_s");
    assert!(woken < 0.001_155, "the futex wake-up after a long wait waits less than the lag-free 1.155 ms: {woken} s");
}

/// `crate::sched::wakeup_runq_wait_after()` (6.18's kernel/sched/fair.c: `pick_next_task_fair()`
/// -> `set_next_entity()` -> `set_protect_slice()` when the sleeper leaves the CPU, the picked
/// entity's run ended by `task_tick_fair()` -> `update_deadline()` at the first tick after its
/// 1.4 ms slice, `check_preempt_wakeup_fair()` keeping it while protected): a task that slept
/// `s` on a busy CPU waits for the end of the run that began when it slept, uniform in [1.4,
/// 5.4) ms at HZ 250 with 2 CPUs, when that end comes after `s`; else the random-point mean
/// 1.155 ms. Traced on this host (lab/validation/trace-runq-wait-1130): wake-ups 128-512 us
/// into the running entity's run waited 3.01 ms each. 6.1: none; an idle CPU: none.
#[test]
fn short_sleep_wakes_into_a_fresh_protected_slice_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{wakeup_runq_wait, wakeup_runq_wait_after};
    let p618 = crate::profile::profile("linux-6.18").unwrap();
    let p61 = crate::profile::profile("linux-6.1").unwrap();
    let w = |s: u64| wakeup_runq_wait_after(&p618, 8 * S, 2, s);
    assert_eq!(w(0), 3_400_000, "at once: the mean end of the fresh run, 1.4 + 4 / 2 ms");
    assert_eq!(w(300_000), 3_100_000, "a 0.3 ms read: 3.4 - 0.3 ms");
    assert_eq!(w(1_400_000), 2_000_000, "s = slice: 3.4 - 1.4 ms, where the two pieces meet");
    assert_eq!(w(2_000_000), 1_618_250, "2 ms: ((2 - 1.4) x 1.155 + (5.4 - 2)^2 / 2) / 4");
    assert_eq!(w(5_400_000), wakeup_runq_wait(&p618, 8 * S, 2), "after the fresh run's last possible end: the random-point mean");
    assert_eq!(w(50_000_000), 1_155_000);
    assert!(w(1_399_999).abs_diff(w(1_400_001)) < 10 && w(5_399_999).abs_diff(w(5_400_001)) < 10, "continuous where the pieces meet");
    assert_eq!(wakeup_runq_wait_after(&p618, 3 * S / 2, 2, 300_000), 1_550_000, "a CPU idle half the time");
    assert_eq!(wakeup_runq_wait_after(&p618, S, 2, 300_000), 0, "an idle CPU");
    assert_eq!(wakeup_runq_wait_after(&p61, 8 * S, 2, 300_000), 0, "6.1's CFS preempts at once");
}

/// The same through a scenario: 50 timer sleeps of 0.3 ms and of 10 ms beside 4 background
/// tasks on 2 CPUs (linux-6.18): the first wake-ups wait 3.1 ms and 1.155 ms, and each wait
/// gives the sleeper lag (`BusyRq::wakeup`: `wait / (m + 1)`, m = 2 entities on its CPU;
/// it spends no CPU to lose it) until its entry makes the running entity ineligible
/// (`__pick_eevdf()`) and it takes the CPU at once: after 0.3 ms, from the third wake-up (its
/// lag 2 x 3.1 / 3 = 2.07 ms, the running entity's 0.85 - 0.15 = 0.7 ms < 2.07 / 2); after
/// 10 ms, the window of its run in which the running entity turns ineligible grows with each
/// wait until it covers the protected slice.
#[test]
fn short_sleeps_wait_longer_than_long_ones_6_18() {
    let go = |d: &str| {
        let toml = format!(
            "[scenario]\nname = \"bg\"\n[machine]\nram = \"1G\"\ncpus = 2\nbackground_runnable = 4\n[kernel]\nprofile = \"linux-6.18\"\n\
             [tasks.r]\nops = [{{ op = \"repeat\", times = 50, ops = [{{ op = \"sleep\", duration = \"{d}\", step = \"loop\" }}] }}]\n"
        );
        let r = sim(&toml).run(&mut |_, _| true).unwrap();
        task_metric(&r, "r", "loop", "sched.run_delay_s")
    };
    let (short, long) = (go("300us"), go("10ms"));
    assert!((short - 2.0 * 0.003_1).abs() < 1e-9, "0.3 ms sleeps: two waits of 3.1 ms, then none: {short} s");
    assert!(long > 2.0 * 0.001_155 && long < 10.0 * 0.001_155, "10 ms sleeps: a few waits of at most 1.155 ms: {long} s");
}

/// `[machine] background_runnable`: a number of tasks, 0 to 1000, refused otherwise with the
/// place and the fix.
#[test]
fn background_runnable_key_is_checked() {
    let err = |v: &str| {
        let toml = format!("[scenario]\nname = \"bg\"\n[machine]\nram = \"1G\"\nbackground_runnable = {v}\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
        match crate::Document::from_toml("bg.toml", &toml).and_then(|d| d.resolve(None, &[])) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(err("3.5"), "");
    assert_eq!(err("0"), "");
    for (v, want) in [("-1", "machine.background_runnable is -1, outside 0 to 1000 tasks"), ("1001", "outside 0 to 1000"), ("1e308", "machine.background_runnable is 1e308, outside"), ("\"4\"", "machine.background_runnable must be a number, not")] {
        let e = err(v);
        assert!(e.contains("bg.toml:5:") && e.contains(want) && e.contains("sched.background_runnable"), "{v}: {e}");
    }
}

/// `kernel::autogroup_stretch()`: where CFS shares the CPUs by autogroup (kernel/sched/
/// autogroup.c `task_wants_autogroup()`, fair.c `calc_group_shares()`; linux-6.18 as this
/// host's, sched_autogroup_enabled=1), a task of the scenario's autogroup shares the CPUs with
/// the background's root-level entities, not its tasks: 14 runnable tasks in 4 autogroups on
/// 2 CPUs leave the group 2/5 of the machine, a lone task's CPU time 2.5 times as long (by
/// task, `cfs_stretch()`: 15/2 = 7.5 times, review11 H1); the group's CPUs are at least what
/// the background's tasks leave (one task in one autogroup on 2 CPUs: a CPU of its own), and
/// its own tasks (the scenario's others, the session's other runnable tasks) share them.
#[test]
fn autogroup_shares_the_cpus_between_sessions_6_18() {
    use crate::kernel::{autogroup_stretch, cfs_stretch};
    const S: u64 = crate::kernel::SCHED_CAPACITY_SCALE;
    assert_eq!(cfs_stretch(14 * S, 2), 15 * S / 2, "by task: 15 runnable on 2 CPUs");
    assert_eq!(autogroup_stretch(0, 0, 4 * S, 14 * S, 2), 5 * S / 2, "by autogroup: 1 of 5 root entities");
    assert_eq!(autogroup_stretch(0, 0, S, S, 2), S, "one other task in one autogroup: a CPU left idle for the group");
    assert_eq!(autogroup_stretch(0, 0, S, 4 * S, 2), S, "one other autogroup of 4 tasks: the group gets a CPU");
    assert_eq!(autogroup_stretch(S, 0, 4 * S, 14 * S, 2), 5 * S, "two scenario tasks share the group's 2/5 of the machine");
    assert_eq!(autogroup_stretch(0, S, 4 * S, 14 * S, 2), 5 * S, "the session's other runnable task shares the group too");
    assert_eq!(autogroup_stretch(0, 0, 0, 0, 1), S, "alone: a CPU of its own");
}

/// The same through a scenario (linux-6.18): CPU-bound re-reads of a cached file beside 14
/// other runnable tasks in 4 other autogroups (`[machine] sched_autogroup = true`,
/// `background_entities = 4`) take 2.5 times their CPU time beyond the 1.4 ms slice they woke
/// with, against 7.5 times by task; the wake-ups' waits for a CPU (EEVDF's protected slice at
/// the root, `check_preempt_wakeup_fair()`'s `find_matching_se()` compares the wakee's group
/// entity with the running one) are shorter by autogroup: 2 root-level entities on the
/// reader's CPU instead of 7, so the lag its waits give it (`wait / (m + 1)`) is larger and
/// its entry lowers `avg_vruntime()` by more (`vlag / m`): the running entity turns
/// ineligible and the reader preempts (`BusyRq::wakeup`) where by task it does not (7 x the
/// running entity's 1.4 ms is more than `entity_lag()`'s 5.4 ms bound).
#[test]
fn autogroup_background_through_a_scenario_6_18() {
    let toml = |bg: &str| {
        format!(
            "[scenario]\nname = \"bg\"\n[machine]\nram = \"2G\"\ncpus = 2\nbackground_runnable = 14\n{bg}\n[kernel]\nprofile = \"linux-6.18\"\n\
             [devices.sda]\nread_bw = \"200M\"\nseek = \"100us\"\n[files.\"/data/in\"]\nsize = \"16M\"\n\
             [tasks.r]\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"cold\" }},\n\
             {{ op = \"repeat\", times = 20, ops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"hot\" }}] }}]\n"
        )
    };
    let go = |bg: &str| sim(&toml(bg)).run(&mut |_, _| true).unwrap();
    let m = |r: &crate::SimResult, step: &str, name: &str| task_metric(r, "r", step, name);
    let (tasks, groups) = (go(""), go("sched_autogroup = true\nbackground_entities = 4"));
    let cpu = |r: &crate::SimResult| m(r, "hot", "sys_s") + m(r, "hot", "user_s");
    let beyond = |r: &crate::SimResult| (m(r, "hot", "elapsed_s") - 0.001_4) / (cpu(r) - 0.001_4);
    assert!(cpu(&groups) > 0.01 && (cpu(&groups) - cpu(&tasks)).abs() < 1e-9, "the same CPU time");
    let (bt, bg) = (beyond(&tasks), beyond(&groups));
    assert!((bt - 7.5).abs() < 0.05 && (bg - 2.5).abs() < 0.05, "beyond the slice: {bt} by task, {bg} by autogroup");
    let w = |r: &crate::SimResult| m(r, "cold", "sched.run_delay_s") / 0.001_155;
    assert!(w(&groups) >= 1.0 && w(&groups) < w(&tasks) / 5.0, "the wake-up waits: {} and {}", w(&groups), w(&tasks));
}

/// `[machine] sched_autogroup`, `background_entities`, `background_own_group`: the counts 0 to
/// 1000; the two counts refused without `sched_autogroup = true`, with the place and the fix.
#[test]
fn autogroup_keys_are_checked() {
    let err = |keys: &str| {
        let toml = format!("[scenario]\nname = \"bg\"\n[machine]\nram = \"1G\"\n{keys}\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
        match crate::Document::from_toml("bg.toml", &toml).and_then(|d| d.resolve(None, &[])) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(err("background_runnable = 9\nsched_autogroup = true\nbackground_entities = 3.5\nbackground_own_group = 0.5"), "");
    assert_eq!(err("sched_autogroup = false"), "");
    let e = err("background_entities = 3");
    assert!(e.contains("bg.toml:5:") && e.contains("between tasks") && e.contains("sched_autogroup = true"), "{e}");
    let e = err("sched_autogroup = true\nbackground_entities = 1001");
    assert!(e.contains("bg.toml:6:") && e.contains("machine.background_entities is 1001, outside 0 to 1000 entities") && e.contains("sched.background_entities"), "{e}");
    let e = err("sched_autogroup = \"yes\"");
    assert!(e.contains("machine.sched_autogroup must be true or false"), "{e}");
}

/// `update_entity_lag()` -> `entity_lag()` (kernel/sched/fair.c): the bound a sleeper's saved
/// lag is clamped to, by era: 6.18 (the host's 6.18.44, with 6e3c0a4e1ad1 "sched/fair: Fix lag
/// clamp") `cfs_rq_max_slice() + TICK_NSEC` = 1.4 + 4 = 5.4 ms with 2 CPUs at HZ 250; 6.6 and
/// 6.12 `max(2 * se->slice, TICK_NSEC)` = max(3, 4) = 4 ms (their 0.75 ms base slice x 2);
/// 6.1's CFS keeps no lag (0). The field alone moves the 6.18 bound back to 6.6's formula.
#[test]
fn entity_lag_limit_by_era_6_6_6_12_6_18() {
    use crate::sched::{entity_lag_limit, update_entity_lag};
    let p = |n: &str| crate::profile::profile(n).unwrap();
    assert_eq!(entity_lag_limit(&p("linux-6.18"), 2), 5_400_000);
    assert_eq!(entity_lag_limit(&p("linux-6.12"), 2), 4_000_000);
    assert_eq!(entity_lag_limit(&p("linux-6.6"), 2), 4_000_000);
    assert_eq!(entity_lag_limit(&p("linux-6.6"), 8), 6_000_000, "8 CPUs: 2 x 0.75 x 4 ms = 6 ms, above the tick");
    assert_eq!(entity_lag_limit(&p("linux-6.1"), 2), 0);
    let mut old = p("linux-6.18");
    old.lag_clamp_max_slice = false;
    assert_eq!(entity_lag_limit(&old, 2), 4_000_000, "6.18 before 6e3c0a4e1ad1: max(2 x 1.4, 4) ms");
    assert_eq!(update_entity_lag(8_000_000, 5_400_000), 5_400_000);
    assert_eq!(update_entity_lag(-8_000_000, 5_400_000), -5_400_000);
    assert_eq!(update_entity_lag(1_000_000, 5_400_000), 1_000_000);
}

/// `place_entity()` with PLACE_LAG (6.6+): a wakee with saved lag `vlag` joining a run queue of
/// load 3 (NICE_0 entities) is placed at `vlag * 4 / 3` behind `avg_vruntime()`, whose entry
/// (`avg_vruntime_add()`) moves the average down by a quarter of that, `vlag / 3`: the wakee's
/// lag is `vlag` again, and every other entity loses `vlag / 3` of its own; one that had less
/// turns ineligible (`entity_eligible()`).
#[test]
fn place_entity_keeps_the_lag_and_lowers_the_average_6_6() {
    use crate::sched::{avg_vruntime_shift, entity_eligible, place_entity_lag};
    let placed = place_entity_lag(2.0e6, 1.0, 3.0);
    assert!((placed - 2.0e6 * 4.0 / 3.0).abs() < 1e-6, "{placed}");
    let shift = avg_vruntime_shift(placed, 1.0, 3.0);
    assert!((shift + 2.0e6 / 3.0).abs() < 1e-6, "{shift}");
    assert!((placed + shift - 2.0e6).abs() < 1e-6, "the wakee's lag after its entry is its vlag");
    assert!(entity_eligible(0.7e6 + shift) && !entity_eligible(0.6e6 + shift), "a running entity with less than vlag / 3 turns ineligible");
    assert_eq!(place_entity_lag(2.0e6, 1.0, 0.0), 2.0e6, "an empty run queue: no scaling");
}

/// `check_preempt_wakeup_fair()` -> `__pick_eevdf()` (6.18's kernel/sched/fair.c) through
/// `BusyRq::wakeup()`: host-queue-rw-rand's background (7.17 root-level entities, 14.3 tasks on
/// 2 CPUs: m = 3.59 entities on the wakee's CPU). A wakee without lag waits as
/// `wakeup_runq_wait_after()` says at every sleep length (the running entity stays eligible
/// through its protected slice); one carrying `entity_lag()`'s bound (5.4 ms, the random
/// reader's lag in the traces, lab/validation/trace-wake-preempt-1130) after a 20 us sleep
/// makes it ineligible and takes the CPU at once; one carrying 0.5 ms (the sequential reader's)
/// after a 0.3 ms read waits the protected slice out, 3.1 ms; after a long sleep a large lag
/// shortens the random-point mean or, at the bound, takes the CPU at any point. The wait adds `wait / (m + 1)` to the lag. 6.1: no queue.
#[test]
fn wakee_lag_preempts_an_ineligible_running_entity_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{wakeup_runq_wait_after, BusyRq};
    let p618 = crate::profile::profile("linux-6.18").unwrap();
    let (bg, ent) = (14_281 * S / 1000, 7_173 * S / 1000);
    let rq = BusyRq::new(&p618, bg, Some(ent), 2).unwrap();
    assert!((rq.m - 3.5864).abs() < 1e-3 && rq.busy == 1.0 && rq.limit == 5_400_000, "{rq:?}");
    for s in [0, 20_000, 300_000, 1_399_999, 2_000_000, 5_400_000, 10_000_000] {
        let (w, lag) = rq.wakeup(0, s);
        assert!(w.abs_diff(wakeup_runq_wait_after(&p618, bg, 2, s)) <= 2, "no lag, {s} ns: {w}");
        assert_eq!(lag, (w as f64 / (rq.m + 1.0)) as i64);
    }
    assert_eq!(rq.wakeup(5_400_000, 20_000), (0, 5_400_000), "the random reader: at once, its lag kept");
    assert_eq!(rq.wakeup(500_000, 300_000).0, 3_100_000, "the sequential reader: the protected slice");
    let (short_of, _) = rq.wakeup(4_000_000, 20_000);
    assert_eq!(short_of, 3_380_000, "4 ms: below m x the running entity's lag (1.226 - 0.014 ms) x 3.59 = 4.35 ms");
    assert_eq!(rq.wakeup(5_400_000, 10_000_000).0, 0, "a long sleep with the bound's lag: the running entity ineligible anywhere in its run");
    // 2 ms after a long sleep: ineligible from 0.93 ms into a run (`(l_p - vlag / m) m / (m - 1)`),
    // so the protected [0, 1.4) ms waits only up to there: 1.155 - 0.336 ms
    let (long, _) = rq.wakeup(2_000_000, 10_000_000);
    assert!(long.abs_diff(819_000) < 2_000, "{long}");
    let p61 = crate::profile::profile("linux-6.1").unwrap();
    assert!(BusyRq::new(&p61, bg, Some(ent), 2).is_none() && BusyRq::new(&p618, 0, None, 2).is_none());
}

/// The lag through a scenario (linux-6.18, 4 background entities on 2 CPUs): a reader of 4 KiB
/// random blocks sleeps ~0.1 ms on each read. On a plain device its waits give it lag
/// (`wait / (m + 1)` each) until its wake-ups make the running entity ineligible and it takes
/// the CPU at once (`BusyRq::wakeup`), so it waits far less than `wakeup_runq_wait_after()`'s
/// 3.3 ms a wake-up. On the host runner's loop device (blk_throttle) each read's plug wakes
/// the loop worker, whose entry takes `5.4 ms / (m + 1) / 2` of the reader's lag
/// (`Kernel::loop_worker_woken`, `BusyRq::loop_worker_take`): it waits more.
#[test]
fn random_reader_lag_and_the_loop_worker_take_6_18() {
    let go = |dev: &str| {
        let toml = format!(
            "[scenario]\nname = \"lag\"\n[machine]\nram = \"2G\"\ncpus = 2\nbackground_runnable = 4\n[kernel]\nprofile = \"linux-6.18\"\n\
             [devices.sda]\nread_bw = \"200M\"\nwrite_bw = \"150M\"\nseek = \"60us\"\n{dev}\n[files.\"/data/in\"]\nsize = \"64M\"\n\
             [tasks.r]\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"4K\", pattern = \"random\", count = 400, step = \"read\" }}]\n"
        );
        let r = sim(&toml).run(&mut |_, _| true).unwrap();
        task_metric(&r, "r", "read", "sched.run_delay_s")
    };
    let (plain, looped) = (go(""), go("blk_throttle = true"));
    // without the lag every wake-up ~0.1 ms after the sleep would wait 3.3 ms: 400 x 3.3 ms
    assert!(plain < 0.2 * 400.0 * 0.0033, "the reader's lag lets it preempt: {plain} s");
    assert!(looped > 2.0 * plain, "the loop worker takes the reader's lag: {looped} s vs {plain} s");
}

/// The loop worker woken onto the reading task's CPU (kwork23; drivers/block/loop.c 6.18
/// `loop_queue_work()` -> `kick_pool()`, kernel/sched/fair.c 6.18 `select_task_rq_fair()` ->
/// `select_idle_sibling()`, `check_preempt_wakeup_fair()`): `sched::loop_worker_wait()`. On 2
/// CPUs the kworker lands on the task's CPU when that is its previous CPU (1/2) and the other
/// CPU is busy (the background's and the sampler's mean count, at most 1): 0.25 busy, 40 us
/// run: 5 us. Nothing busy: 0 (an idle CPU is taken). Its entry at `entity_lag()`'s bound (5.4
/// ms on 6.18) lowers `avg_vruntime()` by 5.4 ms on a CPU holding the task alone: a task with
/// less lag than that is ineligible and gives the CPU up; one with more keeps it. 6.1's CFS
/// preempts always; one CPU: always there.
#[test]
fn loop_worker_wait_lands_on_the_tasks_cpu_when_no_other_is_idle_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::loop_worker_wait;
    let p = |n: &str| crate::profile::profile(n).unwrap();
    let p618 = p("linux-6.18");
    assert_eq!(loop_worker_wait(&p618, S / 4, 2, 0, 40_000), 5_000);
    assert_eq!(loop_worker_wait(&p618, 0, 2, 0, 40_000), 0, "the other CPU idle: the kworker goes there");
    assert_eq!(loop_worker_wait(&p618, 3 * S, 2, 0, 40_000), 20_000, "every CPU busy: its previous CPU, half the time");
    assert_eq!(loop_worker_wait(&p618, S / 4, 2, 5_300_000, 40_000), 5_000, "5.3 ms of lag: below the 5.4 ms shift");
    assert_eq!(loop_worker_wait(&p618, S / 4, 2, 5_400_000, 40_000), 0, "the task still eligible: it keeps its CPU");
    // beside 3 tasks on 2 CPUs the task's CPU holds 3 entities (2 beyond the other CPU's and
    // the task): the shift is 5.4 / 3 ms
    assert_eq!(loop_worker_wait(&p618, 3 * S, 2, 1_900_000, 40_000), 0);
    assert_eq!(loop_worker_wait(&p618, 3 * S, 2, 1_700_000, 40_000), 20_000);
    assert_eq!(loop_worker_wait(&p618, 0, 1, 0, 40_000), 40_000, "one CPU: the task's");
    assert_eq!(loop_worker_wait(&p("linux-6.1"), S / 4, 2, 10_000_000, 40_000), 5_000, "CFS: the sleeper preempts");
    assert_eq!(loop_worker_wait(&p618, S / 2, 4, 0, 40_000), 0, "4 CPUs, half a task: two others idle");
}

/// Through a scenario (linux-6.18, 2 CPUs, the host runner's throttled loop device): a reader of
/// 128 KiB blocks kicks the loop worker once per read (`read_pages()` -> `loop_worker_woken()`);
/// with `[machine] loop_worker_run = "40us"` and the sampler's `runner_sampler = 0.2` (and no
/// background), each kick costs it 1/2 x 0.2 x 40 us of run-queue wait, schedstat's
/// `run_delay`: 256 reads of a cold 32 MiB file, 1.02 ms (0.2 ms either way for reads that do
/// not kick it alone). Without the run: 0, as before kwork23. A reader of random 4 KiB blocks
/// sleeps on each read before it returns (`Kernel::wait_until` drops the pending wait): none.
#[test]
fn loop_worker_run_gives_the_reader_its_wait_behind_the_kworker_6_18() {
    let go = |m: &str| {
        let toml = format!(
            "[scenario]\nname = \"lw\"\n[machine]\nram = \"2G\"\ncpus = 2\n{m}\n[kernel]\nprofile = \"linux-6.18\"\n\
             [devices.sda]\nread_bw = \"200M\"\nwrite_bw = \"150M\"\nseek = \"60us\"\nblk_throttle = true\n[files.\"/data/in\"]\nsize = \"32M\"\n\
             [tasks.r]\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"read\" }}]\n"
        );
        let r = sim(&toml).run(&mut |_, _| true).unwrap();
        task_metric(&r, "r", "read", "sched.run_delay_s")
    };
    assert_eq!(go("runner_sampler = 0.2\nbackground_runnable = 0.01"), 0.0, "no kworker run given: no wait");
    let w = go("runner_sampler = 0.2\nloop_worker_run = \"40us\"");
    assert!((w - 256.0 * 4e-6).abs() < 0.2e-3, "{w}");
    // a synchronous read sleeps on its folio before its return to user space: the kworker
    // runs while it sleeps, no wait (the idle host's random reader: 0-1 us a switch-in)
    let random = {
        let toml = "[scenario]\nname = \"lw\"\n[machine]\nram = \"2G\"\ncpus = 2\nrunner_sampler = 0.2\nloop_worker_run = \"40us\"\n[kernel]\nprofile = \"linux-6.18\"\n\
             [devices.sda]\nread_bw = \"200M\"\nwrite_bw = \"150M\"\nseek = \"60us\"\nblk_throttle = true\n[files.\"/data/in\"]\nsize = \"32M\"\n\
             [tasks.r]\nops = [{ op = \"read\", file = \"/data/in\", bufsize = \"4K\", pattern = \"random\", count = 256, step = \"read\" }]\n";
        let r = sim(toml).run(&mut |_, _| true).unwrap();
        task_metric(&r, "r", "read", "sched.run_delay_s")
    };
    assert!(random < 0.1 * 256.0 * 4e-6, "{random}");
}

/// DELAY_DEQUEUE and DELAY_ZERO (6.12, 152e11f6df29 and 54a58a787791; kernel/sched/fair.c as
/// 6.12 and 6.18 have it) through `BusyRq::delayed_lag()`: 4 background tasks on 2 CPUs (m = 2
/// others on the sleeper's CPU, none idle). `dequeue_entity()` of a sleeper with negative lag
/// only marks it `sched_delayed` (`set_delayed()`); queued, its lag grows by `slept / (m + 1)`:
/// -3 ms after a 3 ms sleep is -2 ms at the wake-up (`ttwu_runnable()` ->
/// `requeue_delayed_entity()`, which clamps it, `update_entity_lag()`: -8 ms + 1 ms is -5.4 ms);
/// after 9 ms or more it is eligible, picked and dequeued (`pick_next_entity()` ->
/// `finish_delayed_dequeue_entity()`), DELAY_ZERO cutting the positive part: 0. A sleeper with
/// positive lag leaves at once and keeps it. 6.6 (no DELAY_DEQUEUE) and 6.18 with the switch
/// off keep -3 ms across any sleep. With an idle CPU at half the wake-ups (1.5 tasks on 2 CPUs)
/// the delayed entity is alone there, picked at once at lag 0: the mean is half the queued
/// figure.
#[test]
fn delay_dequeue_requeue_delayed_entity_and_delay_zero_6_12_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::BusyRq;
    let p = |n: &str| crate::profile::profile(n).unwrap();
    let rq = BusyRq::new(&p("linux-6.18"), 4 * S, None, 2).unwrap();
    assert!(rq.m == 2.0 && rq.busy == 1.0 && rq.delay_dequeue, "{rq:?}");
    assert_eq!(rq.delayed_lag(-3_000_000, 3_000_000), -2_000_000, "delayed, requeued at the wake-up");
    assert_eq!(rq.delayed_lag(-3_000_000, 9_000_000), 0, "eligible again: picked and dequeued at lag 0");
    assert_eq!(rq.delayed_lag(-3_000_000, 12_000_000), 0, "DELAY_ZERO: no positive lag earned while delayed");
    assert_eq!(rq.delayed_lag(-8_000_000, 3_000_000), -5_400_000, "requeue_delayed_entity() clamps (entity_lag())");
    assert_eq!(rq.delayed_lag(2_000_000, 50_000_000), 2_000_000, "eligible at the sleep: dequeued at once, lag kept");
    assert_eq!(rq.delayed_lag(8_000_000, 0), 5_400_000);
    let rq612 = BusyRq::new(&p("linux-6.12"), 4 * S, None, 2).unwrap();
    assert_eq!(rq612.delayed_lag(-3_000_000, 12_000_000), 0, "6.12 has it too");
    let rq66 = BusyRq::new(&p("linux-6.6"), 4 * S, None, 2).unwrap();
    assert_eq!(rq66.delayed_lag(-3_000_000, 12_000_000), -3_000_000, "6.6: the lag kept across the sleep");
    assert_eq!(rq66.delayed_lag(-8_000_000, 12_000_000), -4_000_000, "6.6: clamped at the sleep");
    let mut off = p("linux-6.18");
    off.delay_dequeue = false;
    assert_eq!(BusyRq::new(&off, 4 * S, None, 2).unwrap().delayed_lag(-3_000_000, 12_000_000), -3_000_000);
    let half = BusyRq::new(&p("linux-6.18"), 3 * S / 2, None, 2).unwrap();
    assert!(half.m == 1.0 && half.busy == 0.5, "{half:?}");
    assert_eq!(half.delayed_lag(-3_000_000, 2_000_000), -1_000_000, "half the wake-ups: -3 + 2 / 2 ms; the other half 0");
}

/// The wake-up path takes the delayed lag (`Kernel::ttwu_fair_wait()` -> `BusyRq::delayed_lag()`,
/// 6.18's `ttwu_runnable()` -> `requeue_delayed_entity()`): a task that sleeps 9 ms with -3 ms
/// of lag beside 4 background tasks on 2 CPUs wakes at lag 0 (it waits at the wake-up as a
/// lag-0 wakee does, its lag then what the wait gives); without DELAY_DEQUEUE it wakes at -3 ms.
#[test]
fn ttwu_fair_wait_requeues_a_delayed_entity_6_18() {
    let toml = "[scenario]\nname = \"dd\"\n[machine]\nram = \"256M\"\ncpus = 2\nbackground_runnable = 4\n[kernel]\nprofile = \"linux-6.18\"\n\
                [tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n";
    let mut s = sim(toml);
    let rq = s.kernel.eevdf_rq.unwrap();
    let (wait0, after0) = rq.wakeup(0, 9_000_000);
    let mut lag = -3_000_000;
    let (wait, _) = s.kernel.ttwu_fair_wait(&mut lag, 9_000_000).unwrap();
    assert_eq!((wait, lag), (wait0, after0), "woken at lag 0");
    s.kernel.eevdf_rq = Some(crate::sched::BusyRq { delay_dequeue: false, ..rq });
    let mut lag = -3_000_000;
    s.kernel.ttwu_fair_wait(&mut lag, 9_000_000).unwrap();
    assert!(lag < -2_500_000, "without DELAY_DEQUEUE the lag is kept: {lag}");
}

/// A work item queued on a per-CPU workqueue by the running task (kwork23c: mm/vmpressure.c 6.1
/// `vmpressure()` -> `schedule_work()` on `system_wq`; `__queue_work()` takes the local CPU,
/// `kick_pool()` wakes that CPU's bound kworker): `sched::bound_worker_wait()`. Unlike the
/// unbound loop worker (`loop_worker_wait()`, 0 with the other CPU idle) the bound kworker has
/// nowhere else to go: with nothing else runnable it still joins the task's CPU and, placed at
/// `entity_lag()`'s bound (kernel/sched/fair.c 6.18 `place_entity()`, `check_preempt_wakeup_fair()`
/// -> `__pick_eevdf()`), leaves a task with less lag than the shift ineligible: the whole run.
/// One with more keeps its CPU; 6.1's CFS preempts always.
#[test]
fn bound_worker_wait_joins_the_tasks_cpu_whatever_the_others_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{bound_worker_wait, loop_worker_wait};
    let p = |n: &str| crate::profile::profile(n).unwrap();
    let p618 = p("linux-6.18");
    assert_eq!(bound_worker_wait(&p618, 0, 2, 0, 11_000), 11_000, "the other CPU idle: the bound kworker still comes");
    assert_eq!(loop_worker_wait(&p618, 0, 2, 0, 11_000), 0, "where the unbound one goes to the idle CPU");
    assert_eq!(bound_worker_wait(&p618, S / 4, 2, 5_300_000, 11_000), 11_000, "5.3 ms of lag: below the 5.4 ms shift");
    assert_eq!(bound_worker_wait(&p618, S / 4, 2, 5_400_000, 11_000), 0, "the task still eligible: it keeps its CPU");
    // beside 3 tasks on 2 CPUs the task's CPU holds 3 entities: the shift is 5.4 / 3 ms
    assert_eq!(bound_worker_wait(&p618, 3 * S, 2, 1_900_000, 11_000), 0);
    assert_eq!(bound_worker_wait(&p618, 3 * S, 2, 1_700_000, 11_000), 11_000);
    assert_eq!(bound_worker_wait(&p("linux-6.1"), 0, 2, 10_000_000, 11_000), 11_000, "CFS: the sleeper preempts");
}

/// `Kernel::vmpressure_tree()` (mm/vmpressure.c 6.1 `vmpressure()` with `tree`, and
/// `vmpressure_work_fn()`): a memcg's scans add up to `VMPRESSURE_WIN` = 512 pages before its
/// work is scheduled, and the work's run takes the counter back to 0, a window's excess with it;
/// the task waits `vmpressure_work_run` each time (lag 0 on linux-6.18: `bound_worker_wait()`),
/// a kernel thread (kswapd) not. Without the key nothing is counted.
#[test]
fn vmpressure_tree_schedules_the_work_every_512_pages_scanned_6_18() {
    let mut s = sim("[scenario]\nname = \"vmp\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
                     [cgroups.W]\n\"memory.limit_in_bytes\" = \"32M\"\n[tasks.t]\ncgroup = \"W\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let w = memcg(&s, "W");
    let k = &mut s.kernel;
    k.in_task = true;
    k.vmpressure_tree(w, 600);
    assert_eq!((k.runq_ns, k.vmpressure_tree_scanned.len()), (0, 0), "no vmpressure_work_run: nothing counted");
    k.vmpressure_work_run = Some(10_000);
    let t0 = k.now;
    k.vmpressure_tree(w, 300);
    assert_eq!(k.runq_ns, 0, "300 of 512");
    k.vmpressure_tree(w, 300);
    assert_eq!((k.runq_ns, k.now - t0, k.vmpressure_tree_scanned[w.idx()]), (10_000, 10_000, 0), "600: the work runs, the counter back to 0");
    k.vmpressure_tree(w, 1_100);
    assert_eq!((k.runq_ns, k.vmpressure_tree_scanned[w.idx()]), (20_000, 0), "one run for two windows' worth");
    k.vmpressure_tree(w, 0);
    assert_eq!(k.runq_ns, 20_000);
    k.in_kswapd = true;
    k.vmpressure_tree(w, 512);
    assert_eq!((k.runq_ns, k.vmpressure_tree_scanned[w.idx()]), (20_000, 0), "kswapd: the work runs, no task waits");
}

/// A 6.18 machine whose task, in v1 memcg W (returned), runs in task context, eligible (lag 10 ms)
/// with 1 ms of its protected slice left, and its memcg's vmpressure work takes 10 us: the set-up
/// of the deferred bound-kworker wait's tests.
fn eligible_vmpressure_task() -> (crate::sched::Simulation, MemcgId) {
    let mut s = sim("[scenario]\nname = \"vmp\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
                     [cgroups.W]\n\"memory.limit_in_bytes\" = \"32M\"\n[tasks.t]\ncgroup = \"W\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let w = memcg(&s, "W");
    let k = &mut s.kernel;
    k.in_task = true;
    k.vmpressure_work_run = Some(10_000);
    k.eevdf_lag = 10_000_000;
    k.slice_left = 1_000_000;
    (s, w)
}

/// review49 L1, lag23: a bound kworker that does not take an eligible task's CPU at once still
/// runs on that CPU before the task runs on (kernel/sched/fair.c 6.18 `check_preempt_wakeup_fair()`
/// leaves it queued; a per-CPU kthread is not pulled by another CPU, `can_migrate_task()`):
/// `sched::bound_worker_deferred()` is the run where `bound_worker_wait()` gives 0 under EEVDF, 0
/// where it gives the run, 0 on 6.1 (CFS preempts at once). `Kernel::vmpressure_tree()` charges
/// it at the first tick (HZ=250: every 4 ms of the engine's clock) after the task's CPU time has
/// used up what was left of its protected slice: `protect_slice()` (`vruntime < vprot`) is only
/// looked at by `update_curr()`, which for a task running alone is the tick's
/// (`task_tick_fair()` -> `entity_tick()` -> `update_curr()`: `resched_curr_lazy()` once
/// `!protect_slice(curr)` with `nr_queued > 1`); it drops it when the task sleeps first (the
/// kworker runs while it sleeps). Fails with the wait dropped (the behaviour before review49),
/// charged at once, or charged at the protected slice's end (the behaviour before lag23).
#[test]
fn bound_worker_waits_for_the_first_tick_after_the_protected_slice_when_the_task_is_eligible_6_18() {
    use crate::kernel::SCHED_CAPACITY_SCALE as S;
    use crate::sched::{bound_worker_deferred, bound_worker_wait};
    const J: crate::types::Nanos = crate::timer::NSEC_PER_JIFFY;
    let p = |n: &str| crate::profile::profile(n).unwrap();
    let p618 = p("linux-6.18");
    assert_eq!(bound_worker_deferred(&p618, S / 4, 2, 5_400_000, 11_000), 11_000, "eligible: the run, later");
    assert_eq!(bound_worker_wait(&p618, S / 4, 2, 5_400_000, 11_000), 0, "and nothing at once");
    assert_eq!(bound_worker_deferred(&p618, S / 4, 2, 5_300_000, 11_000), 0, "ineligible: the wait is at once");
    assert_eq!(bound_worker_deferred(&p("linux-6.1"), 0, 2, 10_000_000, 11_000), 0, "CFS: at once");

    let (mut s, w) = eligible_vmpressure_task();
    let k = &mut s.kernel;
    // 0.5 ms after a tick: the 1 ms slice left ends 1.5 ms after it, the next tick 2.5 ms later
    let base = 100 * J;
    k.advance_clock(base + 500_000);
    let t0 = k.now;
    k.vmpressure_tree(w, 600);
    assert_eq!((k.runq_ns, k.bound_worker_deferred), (0, 10_000), "eligible: it keeps its CPU, the run pending");
    k.vmpressure_tree(w, 600);
    assert_eq!(k.bound_worker_deferred, 10_000, "queued again while pending: one run");
    k.cpu(600_000);
    assert_eq!((k.runq_ns, k.now - t0), (0, 600_000), "0.6 of its 1 ms slice: still running");
    k.cpu(600_000);
    assert_eq!((k.runq_ns, k.now - t0, k.bound_worker_deferred, k.bound_worker_tick_at), (0, 1_200_000, 10_000, base + J), "the slice over, no tick yet: still running");
    k.cpu(2_000_000);
    assert_eq!((k.runq_ns, k.bound_worker_deferred), (0, 10_000), "3.7 ms after the tick: still running");
    k.cpu(400_000);
    assert_eq!((k.runq_ns, k.now - t0, k.bound_worker_deferred, k.bound_worker_tick_at), (10_000, 3_610_000, 0, 0), "the tick: the kworker's run");
    k.vmpressure_tree(w, 600);
    assert_eq!(k.bound_worker_deferred, 10_000);
    let t1 = k.now;
    k.wait_until(t1 + 1_000_000);
    assert_eq!((k.runq_ns, k.bound_worker_deferred, k.bound_worker_tick_at), (10_000, 0, 0), "it slept first: the kworker ran meanwhile");
    // a slice whose end is a tick: `protect_slice()` is over at that tick (vruntime == vprot)
    k.advance_clock(base + 10 * J);
    k.slice_left = J;
    k.vmpressure_tree(w, 600);
    k.cpu(J);
    assert_eq!((k.runq_ns, k.bound_worker_deferred), (20_000, 0), "the slice ends on a tick: charged at it");
}

/// lag23 (mm/vmpressure.c 6.1 and 6.18 `vmpressure()` with `tree`: `scanned = vmpr->tree_scanned +=
/// scanned; if (scanned < vmpressure_win) return; schedule_work(&vmpr->work);`, and
/// `vmpressure_work_fn()`: `vmpr->tree_scanned = 0` when the work RUNS): while the memcg's work is
/// pending behind an eligible task, its counter is not reset at each window but grows with every
/// page scanned, and the work's run takes it all back to 0: at the deferred run (the tick after
/// the protected slice), at a sleep inside the quantum (`Kernel::wait_until()`), or at a sleep
/// between quanta (`Simulation::bound_worker_slept()`). A work that preempts at once resets it at
/// the window as before; kswapd's too. Fails with the counter reset at the window (the
/// behaviour before lag23) or not reset at the run.
#[test]
fn vmpressure_counter_grows_while_the_work_is_pending_and_resets_when_it_runs_6_18() {
    const J: crate::types::Nanos = crate::timer::NSEC_PER_JIFFY;
    let (mut s, w) = eligible_vmpressure_task();
    let c = |s: &crate::sched::Simulation| s.kernel.vmpressure_tree_scanned[w.idx()];
    let k = &mut s.kernel;
    k.advance_clock(100 * J);
    k.vmpressure_tree(w, 600);
    assert_eq!((k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (10_000, 600), "pending: the 600 pages wait for the run");
    k.vmpressure_tree(w, 100);
    k.vmpressure_tree(w, 700);
    assert_eq!(k.vmpressure_tree_scanned[w.idx()], 1_400, "every page scanned while pending");
    assert_eq!(k.vmpressure_works, [0, 1, 2], "one work kept pending; two vmpressure() calls past the window while it was (schedule_work() false)");
    k.cpu(J);
    assert_eq!((k.runq_ns, k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (10_000, 0, 0), "the run at the tick takes them all");
    k.vmpressure_tree(w, 300);
    assert_eq!((k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (0, 300), "a fresh window from 0");
    k.vmpressure_tree(w, 300);
    assert_eq!((k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (10_000, 600));
    k.wait_until(k.now + 1_000_000);
    assert_eq!((k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (0, 0), "it slept: the work ran, the counter with it");
    // ineligible: the kworker preempts at once, the work runs, the counter back to 0 at the window
    k.eevdf_lag = -10_000_000;
    let r = k.runq_ns;
    k.vmpressure_tree(w, 700);
    assert_eq!((k.runq_ns - r, k.bound_worker_deferred, k.vmpressure_tree_scanned[w.idx()]), (10_000, 0, 0), "at once: reset at the window");
    assert_eq!(k.vmpressure_works, [1, 2, 2], "lag56's counts: preempting at once, kept, swallowed");
    // pending between quanta: a sleep there (op sleep's ttwu, a step gap, a probe's interval)
    k.eevdf_lag = 10_000_000;
    k.slice_left = 1_000_000;
    k.vmpressure_tree(w, 600);
    k.vmpressure_tree(w, 200);
    s.enter(0);
    s.kernel.bound_worker_deferred = 10_000;
    s.kernel.bound_worker_memcg = w.idx() as u32;
    s.kernel.bound_worker_slice = 1_000_000;
    s.kernel.cpu_plain_update();
    s.leave(0, 0);
    assert_eq!((s.tasks[0].bound_worker_deferred, s.tasks[0].bound_worker_memcg, c(&s)), (10_000, w.idx() as u32, 800));
    s.bound_worker_slept(0);
    assert_eq!((s.tasks[0].bound_worker_deferred, c(&s)), (0, 0), "slept between quanta: the work ran");
    // kswapd's window: the work runs beside it
    s.kernel.in_kswapd = true;
    s.kernel.vmpressure_tree(w, 600);
    assert_eq!(c(&s), 0, "kswapd: reset at the window");
    assert_eq!(s.kernel.vmpressure_works, [1, 3, 3], "kswapd's window is no task's: not counted");
}

/// Through a scenario (linux-6.18, cgroup v1, 2 CPUs, no background): a writer of 128 MiB through
/// a 32M memcg reclaims, and every `VMPRESSURE_WIN` = 512 pages its reclaims scan
/// (`shrink_node()` -> `vmpressure(.., true, ..)`, mm/vmpressure.c 6.1), and each reclaim pass at
/// priority 3 or below (`vmpressure_prio()`), queue the memcg's vmpressure work on its CPU, whose
/// kworker takes it (`bound_worker_wait()`, lag 0): with `[machine] vmpressure_work_run = "10us"`
/// its schedstat `run_delay` is 10 us a window, at least `memcg.pgscan / 1024` of them (a reclaim
/// call scans far less than a window). Without the key: no `sched.run_delay_s`, as before
/// kwork23c. A reader in a memcg without a limit never reclaims: 0.
#[test]
fn vmpressure_work_takes_the_reclaiming_writers_cpu_a_window_at_a_time_6_18() {
    let go = |m: &str| {
        let toml = format!(
            "[scenario]\nname = \"vmp\"\n[machine]\nram = \"2G\"\ncpus = 2\n{m}\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
             [devices.sda]\nread_bw = \"200M\"\nwrite_bw = \"150M\"\n[files.\"/data/out\"]\nsize = \"0\"\n[files.\"/data/in\"]\nsize = \"16M\"\n\
             [cgroups.W]\n\"memory.limit_in_bytes\" = \"32M\"\n[cgroups.R]\n\
             [tasks.w]\ncgroup = \"W\"\nops = [{{ op = \"write\", file = \"/data/out\", length = \"128M\", bufsize = \"1M\", create = true, fsync = false, step = \"write\" }}]\n\
             [tasks.r]\ncgroup = \"R\"\nops = [{{ op = \"read\", file = \"/data/in\", bufsize = \"128K\", step = \"read\" }}]\n"
        );
        let r = sim(&toml).run(&mut |_, _| true).unwrap();
        let delay = |t: &str, st: &str| step_of(&r, Some(t), st).metrics.iter().find(|(m, _)| m == "sched.run_delay_s").map(|x| x.1);
        (delay("w", "write"), task_metric(&r, "w", "write", "memcg.pgscan"), delay("r", "read"))
    };
    let (none, scanned, r0) = go("");
    assert_eq!((none, r0), (None, None), "no vmpressure_work_run: no wait, and the metric as before kwork23c");
    assert!(scanned > 20_000.0, "the writer reclaims: {scanned}");
    let (w, scanned2, r) = go("vmpressure_work_run = \"10us\"");
    let w = w.unwrap();
    assert_eq!(scanned2, scanned, "the wait does not change what reclaim scans here");
    assert_eq!(r, Some(0.0), "the reader never reclaims");
    let windows = w / 10e-6;
    assert!((windows - windows.round()).abs() < 1e-6, "whole runs: {windows}");
    assert!(windows >= scanned / 1024.0, "{windows} windows for {scanned} pages scanned");
}

/// review50 M2: the deferred wait ([`crate::sched::bound_worker_deferred`]) is charged once, and
/// only by the task's own CPU time (kernel/sched/fair.c 6.18 `update_curr()` of the task's entity:
/// kswapd's and the timers' CPU time are other contexts'), and a later vmpressure window finding
/// the task ineligible while the work is still pending queues nothing (mm/vmpressure.c 6.1
/// `vmpressure()` -> `schedule_work()`: `queue_work()` returns false, nothing is woken).
/// `Simulation::leave()` takes the fields to the task and leaves none in the kernel. Fails with
/// `Kernel::cpu()` ticking in any context, with the early return in `vmpressure_tree()` removed,
/// or with `leave()` not clearing the kernel's fields.
#[test]
fn bound_worker_deferred_wait_is_charged_once_by_the_tasks_own_cpu_time_6_18() {
    const J: crate::types::Nanos = crate::timer::NSEC_PER_JIFFY;
    let (mut s, w) = eligible_vmpressure_task();
    {
        let k = &mut s.kernel;
        // 0.5 ms after a tick: the task's 1 ms slice, run after the others' 2.4 ms, ends 0.1 ms
        // before the next tick, which its 1.2 ms reaches (lag23: the charge waits for that tick)
        k.advance_clock(100 * J + 500_000);
        k.vmpressure_tree(w, 600);
        assert_eq!((k.runq_ns, k.bound_worker_deferred), (0, 10_000));
        // (a) kswapd inside the quantum, then the timers' work between quanta: not the task's slice
        k.in_kswapd = true;
        let t0 = k.now;
        k.cpu(1_200_000);
        k.in_kswapd = false;
        k.in_task = false;
        k.cpu(1_200_000);
        assert_eq!((k.now - t0, k.runq_ns, k.bound_worker_deferred, k.bound_worker_slice), (2_400_000, 0, 10_000, 1_000_000), "no wait charged outside the task");
        // (b) pending, and a window finds the task ineligible: nothing more queued, nothing at once
        k.in_task = true;
        k.eevdf_lag = -10_000_000;
        k.vmpressure_tree(w, 600);
        assert_eq!((k.runq_ns, k.bound_worker_deferred), (0, 10_000), "the work is still pending: queue_work() false");
        let t1 = k.now;
        k.cpu(1_200_000);
        assert_eq!((k.runq_ns, k.now - t1, k.bound_worker_deferred), (10_000, 1_210_000, 0), "charged once at the tick after the slice's end");
        // with none pending, an ineligible task waits at once as before
        k.vmpressure_tree(w, 600);
        assert_eq!((k.runq_ns, k.bound_worker_deferred), (20_000, 0));
    }
    // (c) leave() takes the pending wait to the task and leaves none in the kernel
    s.enter(0);
    s.kernel.bound_worker_deferred = 10_000;
    s.kernel.bound_worker_slice = 1_000_000;
    s.kernel.cpu_plain_update();
    s.leave(0, 0);
    assert_eq!((s.tasks[0].bound_worker_deferred, s.tasks[0].bound_worker_slice), (10_000, 1_000_000));
    assert_eq!((s.kernel.bound_worker_deferred, s.kernel.bound_worker_slice), (0, 0), "none left in the kernel between quanta");
    s.enter(0);
    assert_eq!((s.kernel.bound_worker_deferred, s.kernel.bound_worker_slice), (10_000, 1_000_000), "the task's own back at enter()");
    // (d) its user time at the quantum's end uses the slice and reaches the tick (lag23): the run
    // is charged there, before the user time's wall
    let (runq, clock) = (s.tasks[0].times.runq, s.kernel.now);
    s.leave(0, 2 * J);
    assert_eq!((s.tasks[0].bound_worker_deferred, s.tasks[0].bound_worker_tick_at), (0, 0), "2 ticks of user time: charged");
    assert_eq!((s.tasks[0].times.runq - runq, s.tasks[0].times.clock - clock), (10_000, 10_000 + 2 * J));
    assert_eq!((s.kernel.bound_worker_deferred, s.kernel.bound_worker_tick_at), (0, 0));
}

/// review50 L1: a task that sleeps drops the bound kworker's deferred wait (the kworker runs
/// while it sleeps, kernel/sched/fair.c 6.18: it is the only entity left on the CPU) wherever it
/// sleeps: here `mem_cgroup_handle_over_high()`'s penalty sleep (mm/memcontrol.c 6.1
/// `schedule_timeout_killable(penalty_jiffies)`), as `Kernel::wait_until()` does for an I/O
/// wait. Fails with the clear in memcontrol.rs removed (the wait charged after the sleep).
#[test]
fn memory_high_penalty_sleep_drops_the_deferred_bound_worker_wait_6_18() {
    let mut s = sim("[scenario]\nname = \"hi\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v2\"\n\
                     [cgroups.ct]\n\"memory.high\" = \"32M\"\n[tasks.t]\ncgroup = \"ct\"\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let m = memcg(&s, "ct");
    s.enter(0);
    let k = &mut s.kernel;
    assert!(k.profile.memcg_high_delay, "6.18 sleeps over memory.high");
    // 36M charged against the 32M high, nothing on the LRU to reclaim: the penalty sleep
    k.memcgs.memcgs[m.idx()].counter.usage = 36 << 8;
    k.nr_pages_over_high = 64;
    k.bound_worker_deferred = 10_000;
    k.bound_worker_slice = 1_000_000;
    k.cpu_plain_update();
    let t0 = k.now;
    k.mem_cgroup_handle_over_high(m);
    assert!(k.now - t0 > 4_000_000, "it slept the penalty: {} ns", k.now - t0);
    assert_eq!(k.bound_worker_deferred, 0, "the kworker ran while it slept");
    k.cpu(2_000_000);
    assert_eq!(k.runq_ns, 0, "no wait after the sleep");
}
