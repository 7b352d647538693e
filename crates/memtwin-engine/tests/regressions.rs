//! Regressions found by review (2026-11-22), each a case the property test reached only with
//! more cases than it runs by default. Both run a scenario step by step with the invariants
//! checked after every step.

use memtwin_engine::fadvise::Advice;
use memtwin_engine::memcontrol::CgroupVersion;
use memtwin_engine::profile::{profile, Policies};
use memtwin_engine::scenario::model::*;
use memtwin_engine::Simulation;

/// linux-6.6, cgroup v2, 130 MiB of RAM, one disk and a tmpfs: memcg `c0` (memory.max,
/// memory.low) with a child `c0/c1` (memory.max, memory.low), disk files of the given sizes,
/// and the tasks' op lists, all in `c0`.
fn scenario(c0: (u64, u64), c1: (Option<u64>, u64), sizes: &[u64], tasks: Vec<Vec<OpKind>>) -> Scenario {
    Scenario {
        name: "regression".into(),
        description: String::new(),
        variant: None,
        seed: 7,
        boot_seed: 0,
        machine: Machine {
            ram: 136314880,
            cpus: 4,
            kernel_reserved: 4 << 20,
            nodes: 1,
            node_reserved: vec![],
            dma32: 0,
            swap: 0,
            swap_device: Some(0),
            swap_file: false,
            zswap: None,
            boot_percpu: 1 << 20,
            boot_slab: 8 << 20,
            boot_used: 300 << 20,
            boot_superblocks: 3,
            fs: "ext4".into(),
            fs_features: vec![],
            cpu_slowdown: 1,
            copy_slowdown: None,
            wakeup_latency: vec![],
            kworker_wakeup_latency: vec![],
            vcpu_stall: None,
            background_runnable: 0,
            autogroup: None,
            host_cost: Default::default(),
            submit_io_slowdown: None,
            nonmovable_free: None,
        },
        profile: profile("linux-6.6").unwrap(),
        thp: false,
        shmem_enabled: None,
        policies: Policies { recharge_on_pagecache_get: false, memcg_percpu_release_on_offline: false, fadvise_directory: false, zonelist_cache: false },
        cgroup_version: CgroupVersion::V2,
        devices: vec![DeviceSpec { name: "sda".into(), read_bw: 200 << 20, write_bw: 100 << 20, seek: 1_000_000, read_ahead_kb: 128, rotational: true, blk_throttle: false, qemu_throttle: false, hw: None, complete_together: false, scheduler: memtwin_engine::blkdev::SchedKind::None, driver_depth: 31, max_sectors_kb: 512, wbt_lat_usec: 0, queue_keys_given: vec![], worker_wakeup_latency: vec![], segment_cost: 0, max_segments: None, write_latency: 0, write_service_bw: 0 }],
        cgroups: vec![
            CgroupSpec { path: "c0".into(), max: Some(c0.0), high: None, low: c0.1, min: 0, swap_max: None, memsw_max: None, swappiness: None, zswap_max: None, zswap_writeback: true },
            CgroupSpec { path: "c0/c1".into(), max: c1.0, high: None, low: c1.1, min: 0, swap_max: None, memsw_max: None, swappiness: None, zswap_max: None, zswap_writeback: true },
        ],
        mounts: vec![MountSpec { path: "/tmp".into(), fs: "tmpfs".into(), device: None, huge: None }],
        files: sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| FileSpec { path: format!("/f{i}"), size, device: Some(0), uid: 0, mode: 0o644, created: false })
            .collect(),
        dirs: vec![],
        tasks: tasks
            .into_iter()
            .enumerate()
            .map(|(t, ops)| TaskSpec {
                name: format!("t{t}"),
                uid: 0,
                cgroup: Some(0),
                node: 0,
                start: 0,
                ops: ops.into_iter().enumerate().map(|(i, kind)| OpSpec { step: format!("t{t}:{i}").into(), kind }).collect(),
                step_gaps: vec![],
            })
            .collect(),
        sample_interval: 10_000_000,
        report_metrics: vec![],
        resident_pages: Default::default(),
        runner_setup: false,
                    setup_writes: vec![],
    }
}

fn willneed(offset: u64, length: Option<u64>) -> OpKind {
    OpKind::Fadvise { path: "/f0".into(), files: vec![0], directory: false, walk: false, advice: Advice::WillNeed, offset, length }
}

fn write(offset: u64, length: u64, bufsize: u64) -> OpKind {
    OpKind::Write { file: 0, offset, length, bufsize, fsync: false, create: false, truncate: false }
}

fn run_checked(scn: &Scenario) {
    let mut sim = Simulation::new(scn);
    let mut steps = 0;
    while sim.step() {
        steps += 1;
        if let Err(e) = sim.kernel.check_invariants() {
            panic!("after step {steps}: {e}");
        }
        assert!(steps < 1_000_000);
    }
}

/// A write over a page that readahead brought in without buffer heads charges them; the
/// charge's reclaim must not evict the page the write holds (write_begin keeps it locked).
#[test]
fn a_buffer_head_charge_does_not_reclaim_the_page_being_written() {
    let tasks = vec![vec![willneed(816145, Some(1641456))], vec![write(315392, 544769, 4096)]];
    run_checked(&scenario((2168733, 2593148), (Some(6966582), 891511), &[3993482, 490373], tasks));
}

/// Reclaim inside a slab charge can free slab of the same memcg (buffer heads, tree nodes):
/// the whole pages the charge took beyond what the bytes need go back.
#[test]
fn a_slab_charge_keeps_whole_pages_matching_its_bytes() {
    let tasks = vec![vec![willneed(1159168, None), write(1048576, 643073, 90932)]];
    run_checked(&scenario((2740562, 198517), (None, 3728787), &[7671887, 8873257], tasks));
}

/// The property test's case (fault_and_munmap_runs_equal_one_page_at_a_time, found 2026-11-29)
/// that faults taken as runs must meet one at a time: linux-3.13 with THP ("always", 3.13's
/// defrag), 72 MiB of RAM and swap, cgroup v1 with `c0` limited to 280 pages (memsw 735) and
/// `c0/c1` under it, a task in each writing a 3.3 MiB anonymous mapping. `c1`'s first fault
/// tries a huge page (`do_huge_pmd_anonymous_page()`), whose charge reclaims and waits on
/// `c0`'s pages under swap writeback (8.2 ms) before it fails and the fault falls back to
/// `do_anonymous_page()`, whose charge is quiet. The task's return from that fault finds the
/// CPU given to `t0` (`io_schedule()`), so its next faults come after what `t0` did meanwhile:
/// `handle_mm_fault_run()` must end its run after a first fault that slept (it went on with
/// 16 more pages: memcg pgfault 154 vs 91, pgscan 106 vs 76 in `t1:1`).
#[test]
fn a_fault_run_ends_after_a_first_fault_that_slept_3_13() {
    let touch = |size: u64| -> Vec<OpKind> {
        vec![OpKind::Mmap { name: "a0".into(), size, file: None, fill: Default::default() }, OpKind::Touch { name: "a0".into(), access: MapAccess::write_all() }]
    };
    let mut scn = scenario((1147285, 0), (None, 0), &[], vec![touch(3433551), touch(3437647)]);
    scn.machine.ram = 72 << 20;
    scn.machine.dma32 = 18 << 20;
    scn.machine.swap = 36 << 20;
    scn.machine.boot_used = 16 << 20;
    scn.profile = profile("linux-3.13").unwrap();
    scn.thp = true;
    scn.policies = Policies { recharge_on_pagecache_get: true, memcg_percpu_release_on_offline: true, fadvise_directory: true, zonelist_cache: true };
    scn.cgroup_version = CgroupVersion::V1;
    scn.devices[0].hw = Some(HwQueueSpec { queue_depth: 4, request_latency: 50_000, request_bw: [100 << 20, 80 << 20], bw: [200 << 20, 100 << 20], request_cost: 10_000, max_segments: 0, read_bw_batches: vec![], ring_descriptors: 0 });
    scn.devices[0].complete_together = true;
    scn.cgroups[0].memsw_max = Some(3012721);
    scn.cgroups[1].swappiness = Some(100);
    scn.tasks[1].cgroup = Some(1);
    scn.tasks[1].uid = 1000;
    let runs = Simulation::new(&scn).run(&mut |_, _| true).unwrap();
    let mut one = Simulation::new(&scn);
    one.kernel.one_at_a_time = true;
    let one = one.run(&mut |_, _| true).unwrap();
    // The case is there: t1's huge-page attempt fell back, and c0 swapped.
    let t1 = one.steps.iter().find(|s| s.name == "t1:1").unwrap();
    let metric = |name: &str| t1.metrics.iter().find(|m| m.0 == name).unwrap().1;
    assert!(metric("vmstat.thp_fault_fallback") > 0.0);
    assert!(metric("vmstat.pswpout") > 0.0);
    assert_eq!(format!("{:?}", runs.steps), format!("{:?}", one.steps));
}

/// fix48's scenario (2026-11-30): linux-6.1, cgroup v2, 1 GiB, a 20 MB/s disk, a tmpfs
/// `huge=always`, memcg `A` at 1 MiB with a task writing 64 MiB to a disk file in 1 MiB chunks
/// and one writing 512 KiB to the tmpfs in 4 KiB chunks. It panicked in the flusher's write
/// (`BlockDevice::submit_own()`: "the last request is held"): the scheduler freed the
/// requests completed by the task's clock (`Kernel::blk_retire()`) before the writeback timer
/// due earlier ran `wb_workfn()` at its own time (`Kernel::wb_run_timers()`), whose
/// `submit_bio()` then back-merged into a request already freed (the queue's last, not
/// started at the flusher's time). In the kernel a request is freed at its completion
/// (`blk_mq_free_request()` from `blk_mq_end_request()`, block/blk-mq.c, 6.1): a flusher at
/// `t` finds every request completing after `t`. Fails without the fix (checked 2026-11-30,
/// the same panic from `flusher_run()` <- `wb_run_timers()` <- `Simulation::enter()`).
const PANIC49: &str = r#"
[scenario]
name = "panic49"

[machine]
ram = "1G"
cpus = 2

[kernel]
profile = "linux-6.1"
cgroup = "v2"

[devices.sda]
read_bw = "50M"
write_bw = "WBW"

[mounts."/t"]
fs = "tmpfs"
huge = "always"

[files."/t/f"]
size = "0"

[files."/d"]
size = "0"

[cgroups.A]
"memory.max" = "MAX"

[tasks.w]
cgroup = "A"
ops = [{ op = "write", file = "/d", length = "64M", bufsize = "1M", step = "dirty" }]

[tasks.t]
cgroup = "A"
start = "5ms"
ops = [{ op = "write", file = "/t/f", length = "512K", bufsize = "4K", step = "tmpfs" }]

[tasks.o]
ops = [{ op = "sleep", duration = "1ms" }]
"#;

fn panic49(write_bw: &str, max: &str) -> Scenario {
    let text = PANIC49.replace("WBW", write_bw).replace("MAX", max);
    let doc = memtwin_engine::scenario::Document::from_toml("panic49.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    doc.resolve(None, &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn panic49_flusher_write_with_the_last_request_retired() {
    run_checked(&panic49("20M", "1M"));
}

/// The neighbours of panic49: write_bw 10-100 MB/s, memory.max 1-8 MiB, with and without the
/// tmpfs task, each run with the invariants checked after every step.
#[test]
fn panic49_neighbours_run_through() {
    let mut failed = vec![];
    for bw in ["10M", "15M", "20M", "30M", "50M", "100M"] {
        for max in ["1M", "2M", "4M", "8M"] {
            for tmpfs in [true, false] {
                let mut scn = panic49(bw, max);
                if !tmpfs {
                    scn.tasks.retain(|t| t.name != "t");
                }
                if std::panic::catch_unwind(|| run_checked(&scn)).is_err() {
                    failed.push(format!("write_bw {bw} memory.max {max} tmpfs {tmpfs}"));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{} of 48 panicked: {failed:#?}", failed.len());
}
