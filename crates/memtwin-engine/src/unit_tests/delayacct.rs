//! One accounting of stalls (delayacct.rs): per-task `stall.*_ms` and PSI's memory pressure
//! taken from the same frames (kernel/delayacct.c, include/linux/psi.h).

use super::*;
use crate::delayacct::StallKind;
use crate::profile::{profile, Policies};

const MS: u64 = 1_000_000;

fn kernel(p: &str) -> Kernel {
    Kernel::new(profile(p).unwrap(), Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0)
}

/// A direct reclaimer that sleeps in `congestion_wait()` inside `__perform_reclaim()` (4.3:
/// `shrink_inactive_list()`'s `wait_iff_congested()`): the sleep is `congestion`, the reclaim's
/// CPU `reclaim`, and PSI counts the whole bracket once, because `psi_memstall_enter()` was
/// called by `__perform_reclaim()` only (4.20+; the engine's PSI counts it in every era).
#[test]
fn nested_frames_charge_the_innermost_kind_and_psi_once() {
    let mut k = kernel("linux-4.3");
    k.now = 1_000 * MS;
    k.stall_enter(StallKind::Reclaim);
    k.cpu(3 * MS);
    k.stall_enter(StallKind::Congestion);
    k.wait_until(k.now + 40 * MS);
    k.stall_leave(StallKind::Congestion);
    k.cpu(2 * MS);
    k.stall_leave(StallKind::Reclaim);
    let ns = k.stall.take();
    assert_eq!(ns[StallKind::Reclaim as usize], 5 * MS);
    assert_eq!(ns[StallKind::Congestion as usize], 40 * MS);
    assert_eq!(ns.iter().sum::<u64>(), 45 * MS, "no nanosecond counted twice");
    assert_eq!(k.memstall_ns, 45 * MS, "PSI: one memory stall for the whole bracket");
    assert_eq!(k.stall.take(), [0; crate::delayacct::NR_STALL_KINDS], "taken once");
}

/// `congestion_wait()` in the allocator's retry loop (`should_alloc_retry()` ->
/// `wait_iff_congested()`, 4.3) is outside `__perform_reclaim()`: a stall of its kind, not a
/// memory stall. A swap-in's read (`swap_readpage()`, delayacct `swapin`) is not one either
/// (the kernel enters a memstall there only for a workingset page, which anonymous pages are
/// not in the engine).
#[test]
fn waits_outside_reclaim_are_not_memory_stalls() {
    let mut k = kernel("linux-4.3");
    k.stalled(StallKind::Congestion, |k| k.wait_until(k.now + 20 * MS));
    k.stalled(StallKind::Swapin, |k| k.wait_until(k.now + 7 * MS));
    let ns = k.stall.take();
    assert_eq!(ns[StallKind::Congestion as usize], 20 * MS);
    assert_eq!(ns[StallKind::Swapin as usize], 7 * MS);
    assert_eq!(k.memstall_ns, 0);
    assert_eq!(k.iowait_ns, 27 * MS, "both are io_schedule() sleeps");
}

/// kswapd is not a task: frames it opens while it runs inside a task's quantum charge nothing
/// to the task (`kswapd_run()` moves the clock back to its own and restores the task's).
#[test]
fn kswapd_frames_are_not_the_tasks() {
    let mut k = kernel("linux-4.3");
    k.now = 500 * MS;
    k.stall_enter(StallKind::Reclaim);
    let task_now = k.now;
    k.in_kswapd = true;
    k.now = 100 * MS;
    k.stalled(StallKind::Congestion, |k| k.wait_until(k.now + 100 * MS));
    k.in_kswapd = false;
    k.now = task_now + MS;
    k.stall_leave(StallKind::Reclaim);
    let ns = k.stall.take();
    assert_eq!(ns[StallKind::Reclaim as usize], MS);
    assert_eq!(ns[StallKind::Congestion as usize], 0);
}

/// `mem_cgroup_handle_over_high()`'s penalty sleep (6.1) is a `high` stall and a memory stall;
/// the per-task metric and memory.pressure agree (one task, so `full` = `some` too).
#[test]
fn memory_high_penalty_is_a_high_stall_in_the_step_metrics() {
    let s = sim(r#"
[scenario]
name = "high-anon"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[cgroups.ct]
"memory.high" = "32M"
[tasks.t]
cgroup = "ct"
ops = [{ op = "mmap", name = "m", size = "36M" }, { op = "touch", name = "m", step = "touch" }, { op = "munmap", name = "m" }]
"#);
    let res = s.run(&mut |_, _| true).unwrap();
    let st = step_of(&res, None, "touch");
    let get = |n: &str| metric_in(st, n);
    let high = get("stall.high_ms");
    // 1735 jiffies of penalty at HZ = 250, each sleep ended by its timer's tick (see
    // page_writeback's memory.high test).
    assert!(high > 1735.0 * 4.0 && high <= 1735.0 * 4.0 + 79.0 * 4.0, "{high}");
    let reclaim = get("stall.reclaim_ms");
    assert!(reclaim > 0.0, "reclaim_high() ran");
    let psi_ms = get("psi.memory.some_us") / 1000.0;
    assert!((psi_ms - (high + reclaim)).abs() < 0.01, "PSI {psi_ms} = high {high} + reclaim {reclaim}");
    let elapsed_ms = get("elapsed_s") * 1000.0;
    let total: f64 = crate::delayacct::StallKind::ALL.iter().map(|(_, n)| get(&format!("stall.{n}_ms"))).sum();
    assert!(total <= elapsed_ms, "stalls {total} within the step's {elapsed_ms} ms");
}

/// `do_swap_page()` -> `swap_readpage()` (4.3): a fault on a swapped-out page waits for its
/// read, a `swapin` stall (delayacct's `swapin`); it is all of the task's I/O wait while it
/// touches its pages again, and not a memory stall (no workingset page). The first pass, which
/// pushes pages out, stalls in direct reclaim instead. The disk has no scheduler (`none`): with
/// 4.3's CFQ the swap-ins go before the swap-outs and idle the async queue, the swap-outs then
/// fill their request list and the task also sleeps in `get_request()` (a `congestion` stall
/// whose frame holds the CPU of the plug flushed before the sleep, `sched_submit_work()`, which
/// iowait does not count: 1.008 ms of 2865 ms when this test was pinned, 2026-11-29).
#[test]
fn swap_in_faults_are_swapin_stalls() {
    let s = sim(r#"
[scenario]
name = "swapin"
[kernel]
profile = "linux-4.3"
[machine]
ram = "128M"
swap = "256M"
[devices.sda]
read_bw = "200M"
scheduler = "none"
[tasks.t]
ops = [
  { op = "mmap", name = "a", size = "160M", step = "fill" },
  { op = "touch", name = "a", step = "fill" },
  { op = "touch", name = "a", step = "again" },
  { op = "munmap", name = "a", step = "unmap" },
]
"#);
    let res = s.run(&mut |_, _| true).unwrap();
    let swapin = step_metric(&res, "again", "stall.swapin_ms");
    assert!(step_metric(&res, "again", "vmstat.pswpin") > 0.0);
    assert!(swapin > 0.0);
    // Each swap-in read is one page: its wait is the device's seek and transfer, or longer
    // behind the swap-outs queued before it; the step's other waits are in other kinds.
    let iowait_ms = step_metric(&res, "again", "iowait_s") * 1e3;
    let others: f64 = ["congestion", "writeback", "dirty"].iter().map(|k| step_metric(&res, "again", &format!("stall.{k}_ms"))).sum();
    assert!((iowait_ms - swapin - others).abs() < 1e-3, "iowait {iowait_ms} = swapin {swapin} + {others}");
    assert!(step_metric(&res, "fill", "stall.reclaim_ms") > 0.0, "the first pass reclaims");
    assert_eq!(step_metric(&res, "fill", "stall.swapin_ms"), 0.0);
}

/// Direct compaction for a THP fault (`__alloc_pages_direct_compact()` ->
/// `try_to_compact_pages()`, 4.3) is a `compaction` stall (delayacct's `compact`) and a
/// memory stall: its migration CPU is the task's `stall.compaction_ms` and PSI's.
#[test]
fn direct_compaction_is_a_compaction_stall() {
    let mut s = sim(r#"
[scenario]
name = "compact"
[kernel]
profile = "linux-4.3"
[machine]
ram = "64M"
[devices.sda]
read_bw = "100M"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{ op = "sleep", duration = "1s" }]
"#);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4096, MemcgId::ROOT);
    k.now += 1_000_000_000;
    // Every 8th page kept, every whole free block taken: an order-9 request must compact.
    for i in 0..4096u32 {
        if i % 8 != 0 {
            isolate_and_evict(k, f, i);
        }
    }
    while k.zones[0].nr_free_blocks() > 0 {
        k.zones[0].rmqueue_pageblock().unwrap();
    }
    k.stall.take();
    k.memstall_ns = 0;
    let t0 = k.now;
    let gfp = crate::page_alloc::Gfp { nid: 0, thp: true, no_kswapd: true, thisnode: false, no_direct_reclaim: false, movable: true, noretry: false };
    assert!(k.alloc_pages_direct_compact(9, gfp).is_some());
    let ns = k.stall.take();
    assert!(ns[StallKind::Compaction as usize] > 0);
    assert_eq!(ns[StallKind::Compaction as usize], k.now - t0, "all of it compaction");
    assert_eq!(k.memstall_ns, k.now - t0, "and a memory stall");
}

/// Where a swap-in fault's wait for its read goes, per era (`KernelProfile::
/// swapin_delay_in_readpage`): up to 5.17 `do_swap_page()` sets `DELAYACCT_PF_SWAPIN` around
/// `lock_page_or_retry()`, so the fault's wait for the page is swapin delay; 6.1's
/// `swap_readpage()` brackets only the read's submission (`delayacct_swapin_start()`/`_end()`)
/// and the wait in `folio_lock_or_retry()` is no delayacct class (thrashing for a workingset
/// page; on a disk, `swap_readpage_bdev_async()`, the submission does not wait for the read).
/// The same workload: on 5.17 the touching pass's I/O wait is all swapin (and the other kinds);
/// on 6.1 part of it is in none.
#[test]
fn a_swap_in_faults_wait_is_swapin_delay_up_to_5_17_not_on_6_1() {
    for (p, all_swapin) in [("linux-5.17", true), ("linux-6.1", false)] {
        let s = sim(&format!(r#"
[scenario]
name = "swapin"
[kernel]
profile = "{p}"
[machine]
ram = "128M"
swap = "256M"
[devices.sda]
read_bw = "200M"
[tasks.t]
ops = [
  {{ op = "mmap", name = "a", size = "160M", step = "fill" }},
  {{ op = "touch", name = "a", step = "fill" }},
  {{ op = "touch", name = "a", step = "again" }},
  {{ op = "munmap", name = "a", step = "unmap" }},
]
"#));
        let res = s.run(&mut |_, _| true).unwrap();
        assert!(step_metric(&res, "again", "vmstat.pswpin") > 0.0, "{p}");
        let iowait_ms = step_metric(&res, "again", "iowait_s") * 1e3;
        let kinds: f64 = ["swapin", "thrashing", "congestion", "writeback", "dirty"].iter().map(|k| step_metric(&res, "again", &format!("stall.{k}_ms"))).sum();
        let unclassed = iowait_ms - kinds;
        if all_swapin {
            assert!(step_metric(&res, "again", "stall.swapin_ms") > 0.0, "{p}");
            assert!(unclassed.abs() < 1e-3, "{p}: iowait {iowait_ms} ms = the kinds' {kinds}");
        } else {
            assert!(unclassed > 1.0, "{p}: iowait {iowait_ms} ms, the kinds' {kinds}: the fault's wait is in none");
        }
    }
}
