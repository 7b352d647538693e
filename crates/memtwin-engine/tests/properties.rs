//! Property tests: random machines, cgroup trees, files and task scripts, with the
//! conservation invariants checked after every step of every run. The generator is seeded,
//! so the test is deterministic.

use memtwin_engine::memcontrol::CgroupVersion;
use memtwin_engine::profile::{profile, Policies};
use memtwin_engine::scenario::model::*;
use memtwin_engine::Simulation;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// Declared cgroups c0.., then the root, then cgroups the scripts mkdir (d0..d2).
fn cgroup_name(i: usize, ncg: usize) -> String {
    if i < ncg {
        if i % 2 == 1 {
            format!("c{}/c{i}", i - 1)
        } else {
            format!("c{i}")
        }
    } else if i == ncg {
        "/".into()
    } else {
        format!("d{}", i - ncg - 1)
    }
}

/// Ops on file mappings (and the reads and writes that compete with them), for the mapped-page
/// The data of an anonymous mapping's pages: one byte, same-filled, 1 KiB random, all random
/// (what zswap stores, compresses and rejects differs).
fn fill_of(f: u8) -> memtwin_engine::zswap::AnonFill {
    use memtwin_engine::zswap::AnonFill;
    [AnonFill::Byte, AnonFill::Same, AnonFill::Random(1024), AnonFill::Random(4096)][f as usize]
}

/// property test: a task's ops are mostly mmap, touch, madvise, mlock, msync, munmap, of file
/// and anonymous mappings.
fn map_op_strategy(nfiles: usize) -> BoxedStrategy<OpKind> {
    prop_oneof![
        3 => (0..nfiles, prop::bool::ANY, prop::bool::ANY, prop::bool::ANY, 0u8..3).prop_map(|(file, shared, exec, populate, adv)| OpKind::Mmap {
            name: format!("f{file}"),
            size: 0,
            file: Some(MapFile { file, offset: 0, shared, exec, populate, advice: [MAdvice::Normal, MAdvice::Random, MAdvice::Sequential][adv as usize] }),
            fill: Default::default(),
        }),
        6 => (0..nfiles, prop::bool::ANY, 0u8..3, 0u64..2 << 20).prop_map(|(file, write, pat, offset)| OpKind::Touch {
            name: format!("f{file}"),
            access: MapAccess {
                write,
                offset: offset & !4095,
                length: None,
                pattern: [TouchPattern::Sequential, TouchPattern::Random { count: 700 }, TouchPattern::Strided { stride: 3 }][pat as usize],
            },
        }),
        2 => (0..nfiles, 0u8..7).prop_map(|(file, a)| OpKind::Madvise {
            name: format!("f{file}"),
            advice: [MAdvice::Normal, MAdvice::Sequential, MAdvice::Random, MAdvice::WillNeed, MAdvice::DontNeed, MAdvice::Cold, MAdvice::PageOut][a as usize],
            offset: 0,
            length: None,
        }),
        2 => (0..nfiles, prop::bool::ANY).prop_map(|(file, lock)| OpKind::Mlock { name: format!("f{file}"), lock }),
        1 => (0..nfiles).prop_map(|file| OpKind::Msync { name: format!("f{file}") }),
        1 => (0..nfiles).prop_map(|file| OpKind::Munmap { name: format!("f{file}") }),
        2 => (0..nfiles, 0u64..4 << 20, 1u64..256 << 10).prop_map(|(file, offset, bufsize)| OpKind::Read {
            file,
            offset,
            length: None,
            bufsize,
            pattern: Pattern::Sequential,
            fadvise: Advice::Normal,
            scan: false,
        }),
        1 => (0..nfiles, 0u64..2 << 20, 1u64..4 << 20).prop_map(|(file, offset, length)| OpKind::Write { file, offset, length, bufsize: 64 << 10, fsync: false, create: false, truncate: false }),
        1 => (0usize..2, 4096u64..8 << 20, 0u8..4).prop_map(|(i, size, f)| OpKind::Mmap { name: format!("m{i}"), size, file: None, fill: fill_of(f) }),
        1 => (0usize..2).prop_map(|i| OpKind::Touch { name: format!("m{i}"), access: MapAccess::write_all() }),
        // Loads and stores over anonymous memory: zero-page PTEs, swap-ins a load leaves in
        // the swap cache with their slots, stores to them; MADV_DONTNEED over all of it.
        2 => (0usize..2, prop::bool::ANY, 0u8..3).prop_map(|(i, write, pat)| OpKind::Touch {
            name: format!("m{i}"),
            access: MapAccess { write, offset: 0, length: None, pattern: [TouchPattern::Sequential, TouchPattern::Random { count: 700 }, TouchPattern::Strided { stride: 3 }][pat as usize] },
        }),
        1 => (0usize..2, 0u64..4 << 20).prop_map(|(i, offset)| OpKind::Madvise { name: format!("m{i}"), advice: MAdvice::DontNeed, offset: offset & !4095, length: Some(1 << 20) }),
        // mlock/munlock of anonymous memory: its pages on the unevictable list (never swapped),
        // new pages faulted straight onto it, put back on the inactive anon list at munlock;
        // an mlock over the limit ends in the OOM killer.
        1 => (0usize..2, prop::bool::ANY).prop_map(|(i, lock)| OpKind::Mlock { name: format!("m{i}"), lock }),
    ]
    .boxed()
}

fn op_strategy(nfiles: usize, ncg: usize) -> impl Strategy<Value = OpKind> {
    prop_oneof![
        (0..nfiles, 0u64..4 << 20, prop::option::of(1u64..8 << 20), 1u64..256 << 10, prop::bool::ANY, 0u8..3).prop_map(
            |(file, offset, length, bufsize, random, adv)| OpKind::Read {
                file,
                offset,
                length,
                bufsize,
                pattern: if random { Pattern::Random { count: 20 } } else { Pattern::Sequential },
                fadvise: [Advice::Normal, Advice::Sequential, Advice::Random][adv as usize],
                scan: adv == 1,
            }
        ),
        (0..nfiles, 0u64..2 << 20, 1u64..4 << 20, 4096u64..128 << 10, prop::bool::ANY)
            .prop_map(|(file, offset, length, bufsize, fsync)| OpKind::Write { file, offset, length, bufsize, fsync, create: file % 2 == 1, truncate: offset < 64 << 10 }),
        Just(OpKind::Exec { program: "dd".into() }),
        (0..nfiles).prop_map(|file| OpKind::Fsync { file }),
        (0..nfiles).prop_map(|file| OpKind::Stat { file }),
        (0..nfiles, prop::bool::ANY, 0u64..2 << 20, prop::option::of(0u64..4 << 20)).prop_map(|(file, dontneed, offset, length)| OpKind::Fadvise {
            path: format!("/f{file}"),
            files: vec![file],
            directory: false,
            walk: false,
            advice: if dontneed { memtwin_engine::fadvise::Advice::DontNeed } else { memtwin_engine::fadvise::Advice::WillNeed },
            offset,
            length,
        }),
        prop::bool::ANY.prop_map(move |walk| OpKind::Fadvise {
            path: "/".into(),
            files: (0..nfiles).collect(),
            directory: true,
            walk,
            advice: memtwin_engine::fadvise::Advice::DontNeed,
            offset: 0,
            length: None,
        }),
        (0u64..50_000_000).prop_map(|d| OpKind::Sleep { duration: d }),
        (0..ncg + 4).prop_map(move |i| OpKind::Move { cgroup: cgroup_name(i, ncg) }),
        (0usize..3).prop_map(|i| OpKind::Mkdir { cgroup: format!("d{i}") }),
        (0usize..3).prop_map(|i| OpKind::Rmdir { cgroup: format!("d{i}") }),
        (0usize..3).prop_map(|i| OpKind::Mount { path: format!("/mnt/{i}"), fs: "tmpfs".into(), mkdir: i % 2 == 0 }),
        (0usize..2, 4096u64..48 << 20, 0u8..4).prop_map(|(i, size, f)| OpKind::Mmap { name: format!("m{i}"), size, file: None, fill: fill_of(f) }),
        (0usize..2).prop_map(|i| OpKind::Touch { name: format!("m{i}"), access: memtwin_engine::scenario::model::MapAccess::write_all() }),
        (0usize..2).prop_map(|i| OpKind::Munmap { name: format!("m{i}") }),
        // File mappings (named after their file; sized to the file in `fix_file_maps`).
        (0..nfiles, prop::bool::ANY, prop::bool::ANY, prop::bool::ANY, 0u8..3).prop_map(|(file, shared, exec, populate, adv)| OpKind::Mmap {
            name: format!("f{file}"),
            size: 0,
            file: Some(MapFile { file, offset: 0, shared, exec, populate, advice: [MAdvice::Normal, MAdvice::Random, MAdvice::Sequential][adv as usize] }),
            fill: Default::default(),
        }),
        (0..nfiles, prop::bool::ANY, 0u8..3, 0u64..2 << 20).prop_map(|(file, write, pat, offset)| OpKind::Touch {
            name: format!("f{file}"),
            access: MapAccess {
                write,
                offset: offset & !4095,
                length: None,
                pattern: [TouchPattern::Sequential, TouchPattern::Random { count: 700 }, TouchPattern::Strided { stride: 3 }][pat as usize],
            },
        }),
        (0..nfiles, 0u8..7).prop_map(|(file, a)| OpKind::Madvise {
            name: format!("f{file}"),
            advice: [MAdvice::Normal, MAdvice::Sequential, MAdvice::Random, MAdvice::WillNeed, MAdvice::DontNeed, MAdvice::Cold, MAdvice::PageOut][a as usize],
            offset: 0,
            length: None,
        }),
        (0..nfiles, prop::bool::ANY).prop_map(|(file, lock)| OpKind::Mlock { name: format!("f{file}"), lock }),
        (0..nfiles).prop_map(|file| OpKind::Msync { name: format!("f{file}") }),
        (0..nfiles).prop_map(|file| OpKind::Munmap { name: format!("f{file}") }),
    ]
}

/// File mappings map their whole file (a whole number of pages; build.rs refuses a mapping
/// past the end); a file under a page long, or on tmpfs, is not mapped (a sleep instead).
fn fix_file_maps(ops: &mut [OpSpec], files: &[FileSpec]) {
    for op in ops {
        if let OpKind::Mmap { size, file: Some(f), .. } = &mut op.kind {
            let spec = &files[f.file];
            if spec.device.is_none() || spec.size < 4096 {
                op.kind = OpKind::Sleep { duration: 1 };
            } else {
                *size = spec.size / 4096 * 4096;
            }
        }
    }
}

fn scenario_strategy() -> impl Strategy<Value = Scenario> {
    scenario_strategy_with(false)
}

/// Random scenarios; with `maps`, the tasks' ops are file-mapping ops ([`map_op_strategy`]).
fn scenario_strategy_with(maps: bool) -> impl Strategy<Value = Scenario> {
    let files = prop::collection::vec(0u64..12 << 20, 1..4);
    let limits = prop::collection::vec((prop::option::of(256u64 << 10..16 << 20), 0u64..4 << 20), 1..5);
    (files, limits, prop::bool::ANY, prop::bool::ANY, 32u64..160, 0u8..6, prop::bool::ANY)
        .prop_flat_map(move |(fsizes, limits, recharge, v1, ram_mb, prof, release)| {
            let nf = fsizes.len();
            let nc = limits.len();
            let ops = if maps { prop::collection::vec(map_op_strategy(nf), 3..12).boxed() } else { prop::collection::vec(op_strategy(nf, nc).boxed(), 1..6).boxed() };
            let tasks = prop::collection::vec((prop::option::of(0..nc), ops), 1..4);
            tasks.prop_map(move |tasks| {
                let cgroups = limits
                    .iter()
                    .enumerate()
                    .map(|(i, (max, low))| CgroupSpec {
                        // Every other cgroup nests under the previous one.
                        path: if i % 2 == 1 { format!("c{}/c{i}", i - 1) } else { format!("c{i}") },
                        max: *max,
                        // memory.high (v2) on some: twice the low setting when it is above 2M.
                        high: if !v1 && *low > 2 << 20 { Some(*low * 2) } else { None },
                        low: if v1 { 0 } else { *low },
                        min: 0,
                        // Swap limits on some: memory.swap.max (v2) of half the low setting,
                        // memory.memsw.limit_in_bytes (v1) the limit plus that; every third
                        // v1 cgroup swaps at its own swappiness.
                        swap_max: if !v1 && i % 2 == 0 { Some(*low / 2) } else { None },
                        memsw_max: if v1 && i % 2 == 0 { max.map(|m| m + *low / 2) } else { None },
                        swappiness: if v1 && i % 3 == 1 { Some([0, 100, 0][i % 3 + (*low % 2) as usize]) } else { None },
                        // memory.zswap.max (v2) on every third: an eighth of the low setting.
                        zswap_max: if !v1 && i % 3 == 2 { Some(*low / 8) } else { None },
                        // memory.zswap.writeback 0 (6.8+ profiles with zswap) on every fourth.
                        zswap_writeback: v1 || i % 4 != 3,
                    })
                    .collect();
                let mut scn = Scenario {
                    name: "prop".into(),
                    description: String::new(),
                    variant: None,
                    seed: 7,
                    boot_seed: 0,
                    machine: Machine {
                        ram: ram_mb << 20,
                        cpus: 4,
                        kernel_reserved: 4 << 20,
                        nodes: 1 + (ram_mb % 2) as u32,
                        node_reserved: vec![],
                        dma32: if ram_mb % 3 == 0 { (ram_mb / 4) << 20 } else { 0 },
                        swap: if ram_mb % 4 < 2 { (ram_mb / 2) << 20 } else { 0 },
                        swap_device: Some(0),
                        swap_file: ram_mb % 8 == 1,
                        // zswap in front of the swap on the profiles whose zswap is modelled
                        // (linux-6.1, linux-5.17), with a pool limit of 1-3% of RAM so that
                        // the pool fills and writes back.
                        zswap: (ram_mb % 4 < 2 && (prof == 3 || prof == 4)).then(|| memtwin_engine::zswap::ZswapParams { max_pool_percent: 1 + ram_mb % 3, ..Default::default() }),
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
                        // the boot's non-movable pool ([machine] nonmovable_free) on some machines
                        nonmovable_free: (ram_mb % 5 == 0).then_some(memtwin_engine::page_alloc::NonmovablePool::Pages(ram_mb * 3)),
                    },
                    profile: profile(["linux-6.6", "linux-5.0", "linux-4.4", "linux-6.1", "linux-5.17", "linux-3.13"][prof as usize]).unwrap(),
                    thp: release,
                    shmem_enabled: None,
                    policies: Policies { recharge_on_pagecache_get: recharge, memcg_percpu_release_on_offline: release, fadvise_directory: release, zonelist_cache: recharge },
                    cgroup_version: if v1 { CgroupVersion::V1 } else { CgroupVersion::V2 },
                    devices: vec![DeviceSpec { name: "sda".into(), read_bw: 200 << 20, write_bw: 100 << 20, seek: 1_000_000, read_ahead_kb: 128, rotational: ram_mb % 3 != 1, blk_throttle: false, qemu_throttle: false,
                        // Every other machine's disk serves requests in flight together on a
                        // queue of 4 or 32 tags (blkdev.rs HwQueue).
                        hw: (ram_mb % 2 == 0).then_some(HwQueueSpec { queue_depth: if ram_mb % 4 == 0 { 4 } else { 32 }, request_latency: 50_000, request_bw: [100 << 20, 80 << 20], bw: [200 << 20, 100 << 20], request_cost: 10_000, max_segments: 0, read_bw_batches: vec![], ring_descriptors: 0 }),
                        // and every third completes its reads in flight together.
                        complete_together: ram_mb % 3 == 0,
                        // The era's scheduler (CFQ on linux-4.4 and linux-3.13, mq-deadline
                        // after), every fifth machine none: each places the reads among the
                        // pending writes its own way (blkdev/elevator.rs).
                        scheduler: if ram_mb % 5 == 0 { memtwin_engine::blkdev::SchedKind::None } else { memtwin_engine::blkdev::SchedKind::era_default(prof == 2 || prof == 5, false) },
                        // A SATA disk's queue, or every request pending (a deep virtio ring).
                        driver_depth: if ram_mb % 2 == 1 { 32 } else { 128 },
                        // requests of 512 KiB (BLK_DEF_MAX_SECTORS of 4.x) or 1280 KiB (6.x's loop and virtio disks)
                        max_sectors_kb: if ram_mb % 4 == 0 { 512 } else { 1280 },
                        // blk-wbt (blkdev/wbt.rs) on the profiles that have it, at the
                        // rotational and the non-rotational default, off on every seventh.
                        wbt_lat_usec: if prof == 2 || prof == 5 || ram_mb % 7 == 0 { 0 } else if ram_mb % 3 != 1 { 75_000 } else { 2_000 }, queue_keys_given: vec![], worker_wakeup_latency: vec![], segment_cost: if ram_mb % 5 == 0 { 1_000 } else { 0 },
                        // swap write requests of up to 254 one-page bios on every third machine (the
                        // lab's QEMU virtio disk's seg_max, within its max_sectors_kb), else 128
                        max_segments: (ram_mb % 3 == 2).then_some(254), write_latency: 0, write_service_bw: 0 }],
                    cgroups,
                    mounts: vec![MountSpec { path: "/tmp".into(), fs: "tmpfs".into(), device: None, huge: None }],
                    files: fsizes
                        .iter()
                        .enumerate()
                        // Every third file lives on tmpfs.
                        .map(|(i, &size)| FileSpec {
                            path: format!("/f{i}"),
                            size,
                            device: if i % 3 == 2 { None } else { Some(0) },
                            uid: 0,
                            mode: 0o644,
                            created: false,
                        })
                        .collect(),
                    dirs: vec![],
                    tasks: tasks
                        .into_iter()
                        .enumerate()
                        .map(|(i, (cgroup, ops))| TaskSpec {
                            name: format!("t{i}"),
                            uid: (i as u32) * 1000,
                            cgroup,
                            node: (i % 2) as u32 % (1 + (ram_mb % 2) as u32),
                            start: 0,
                            ops: ops.into_iter().enumerate().map(|(j, kind)| OpSpec { step: format!("t{i}:{j}").into(), kind }).collect(),
                            step_gaps: vec![],
                        })
                        .collect(),
                    sample_interval: 10_000_000,
                    report_metrics: vec![],
                    resident_pages: Default::default(),
                    runner_setup: false,
                    setup_writes: vec![],
                };
                let files = scn.files.clone();
                for t in &mut scn.tasks {
                    fix_file_maps(&mut t.ops, &files);
                }
                scn
            })
        })
}

/// Run `scn` step by step, checking the conservation invariants after every step (and before
/// the first with `at_start`), and every charge and order-0 allocation that takes a fast path
/// against the general path's decision (`Kernel::check_fast_paths`).
/// The simulated time no property scenario reaches (review50 L2: one hour; they end by 57 s).
const MAX_SIM_NS: u64 = 3_600_000_000_000;

fn invariants_after_every_step(scn: &Scenario, at_start: bool) -> Result<(), TestCaseError> {
    let mut sim = Simulation::new(scn);
    sim.kernel.check_fast_paths = true;
    if at_start {
        sim.kernel.check_invariants().map_err(TestCaseError::fail)?;
    }
    let mut steps = 0;
    while sim.step() {
        steps += 1;
        if let Err(e) = sim.kernel.check_invariants() {
            return Err(TestCaseError::fail(format!("after step {steps}: {e}")));
        }
        prop_assert!(steps < 2_000_000, "runaway simulation");
        // review50 L2: a scenario that stops progressing fails instead of hanging (these cases end
        // by 57 s of simulated time in at most 1,449 quanta, fix50 2026-12-01); a wait for an I/O
        // never queued panics in Kernel::wait_until() itself
        prop_assert!(sim.kernel.now < MAX_SIM_NS, "after step {}: simulated time {} ns past {} ns: the scenario stopped progressing", steps, sim.kernel.now, MAX_SIM_NS);
    }
    // Every I/O request queued completes once: freeing everything completed by the end of
    // time leaves none held, and freeing again frees nothing more.
    sim.kernel.blk_retire(u64::MAX);
    for d in &sim.kernel.devices {
        prop_assert_eq!(d.queue.completed, d.queue.queued, "device {}", d.name);
        prop_assert_eq!(d.queue.held(), 0);
    }
    let done: Vec<u64> = sim.kernel.devices.iter().map(|d| d.queue.completed).collect();
    sim.kernel.blk_retire(u64::MAX);
    prop_assert_eq!(done, sim.kernel.devices.iter().map(|d| d.queue.completed).collect::<Vec<_>>());
    Ok(())
}

/// Two runs of `scn` give the same steps and time series.
fn same_result_twice(scn: &Scenario) -> Result<(), TestCaseError> {
    let a = memtwin_engine::simulate(scn, &mut |_, _| true).unwrap();
    let b = memtwin_engine::simulate(scn, &mut |_, _| true).unwrap();
    prop_assert_eq!(format!("{:?}", a.steps), format!("{:?}", b.steps));
    prop_assert_eq!(format!("{:?}", a.series.rows), format!("{:?}", b.series.rows));
    Ok(())
}

fn config() -> Config {
    Config { cases: 96, rng_seed: RngSeed::Fixed(20261121), failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Pages and charges (and I/O requests: every request queued completes once) are conserved.
    #[test]
    fn pages_and_charges_are_conserved_after_every_step(scn in scenario_strategy()) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn mapped_pages_and_charges_are_conserved_after_every_step(scn in scenario_strategy_with(true)) {
        // rmap (mapcount = VMAs mapping the page, NR_FILE_MAPPED and file_mapped), the
        // unevictable list of mlocked pages, private copies as anonymous pages, anonymous
        // loads (zero-page PTEs name no slot; a swap-in a load mapped keeps its slot, in the
        // swap cache at it: swap slots conserved): with every other invariant, after every step.
        invariants_after_every_step(&scn, false)?;
    }

    #[test]
    fn same_scenario_same_result(scn in scenario_strategy()) {
        same_result_twice(&scn)?;
    }
}

/// The same scenarios on the multi-generational LRU (mm/vmscan.c CONFIG_LRU_GEN, 6.1): the
/// 6.1 or 6.6 profile with `kernel.lru_gen = true`, some with `min_ttl_ms`.
fn lru_gen_scenario_strategy() -> impl Strategy<Value = Scenario> {
    (scenario_strategy(), prop::bool::ANY, prop::option::of(0u64..2000)).prop_map(|(mut scn, six_six, ttl)| {
        scn.profile = profile(if six_six { "linux-6.6" } else { "linux-6.1" }).unwrap();
        scn.profile.lru_gen = true;
        scn.profile.lru_gen_min_ttl_ms = ttl.unwrap_or(0);
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn lru_gen_pages_and_charges_are_conserved_after_every_step(scn in lru_gen_scenario_strategy()) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn lru_gen_same_scenario_same_result(scn in lru_gen_scenario_strategy()) {
        same_result_twice(&scn)?;
    }
}

/// The same scenarios with large folios in the page cache (issue 21): XFS on linux-6.1
/// (5.18-6.15 readahead orders), ext4 or XFS on linux-6.18 (6.16+ `ra->order`), at
/// read_ahead_kb 128 or 8192, so that folios of orders 0 to 9 mix with order-0 pages (tmpfs
/// files, readahead fallbacks, and the splits of writes, faults, fadvise and the seed-000
/// recharge). The invariants hold a folio to one LRU entry counting its pages, each frame in
/// the slot of its index, its tails charged as the head and on no list.
fn large_folio_scenario_strategy(maps: bool) -> impl Strategy<Value = Scenario> {
    (scenario_strategy_with(maps), 0u8..3, prop::bool::ANY).prop_map(|(mut scn, era, big_ra)| {
        let (p, fs) = [("linux-6.1", "xfs"), ("linux-6.18", "ext4"), ("linux-6.18", "xfs")][era as usize];
        scn.profile = profile(p).unwrap();
        scn.machine.fs = fs.into();
        if big_ra {
            scn.devices[0].read_ahead_kb = 8192;
        }
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn large_folio_pages_and_charges_are_conserved_after_every_step(scn in large_folio_scenario_strategy(false)) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn large_folio_mapped_pages_are_conserved_after_every_step(scn in large_folio_scenario_strategy(true)) {
        invariants_after_every_step(&scn, false)?;
    }

    #[test]
    fn large_folio_same_scenario_same_result(scn in large_folio_scenario_strategy(false)) {
        same_result_twice(&scn)?;
    }
}

/// The same scenarios with tmpfs huge pages (tmpfs21, mm/shmem.c 6.1 `shmem_is_huge()`,
/// `shmem_get_folio_gfp()`): every third file on a tmpfs mounted with `huge=always` or
/// `within_size`, or forced by `shmem_enabled = force`, on linux-6.1 or linux-6.6 (two lists)
/// and linux-6.1 with lru_gen, so that PMD-order swap-backed folios on the anon lists mix with
/// order-0 shmem pages (a range that already holds a page, a failed allocation or charge),
/// page-cache folios of XFS's readahead, and anonymous memory under reclaim and swap. The
/// invariants hold each folio to one LRU entry counting its pages, its frames in their slots,
/// the memcg's `file` and `shmem` counts (`shmem_thp` within them) and the charges.
fn shmem_huge_scenario_strategy() -> impl Strategy<Value = Scenario> {
    (scenario_strategy_with(false), 0u8..3, 0u8..3).prop_map(|(mut scn, era, mode)| {
        let (p, fs) = [("linux-6.1", "xfs"), ("linux-6.6", "ext4"), ("linux-6.1", "xfs")][era as usize];
        scn.profile = profile(p).unwrap();
        scn.profile.lru_gen = era == 2;
        scn.machine.fs = fs.into();
        use memtwin_engine::shmem::ShmemHuge;
        let huge = [ShmemHuge::Always, ShmemHuge::WithinSize, ShmemHuge::Never][mode as usize];
        scn.mounts[0].huge = Some(huge);
        if huge == ShmemHuge::Never {
            scn.shmem_enabled = Some(ShmemHuge::Force);
        }
        // the tmpfs files below the mount, each written by the first task (4 MiB + 4 KiB from a
        // random page: huge pages, a partial one, charges that may fail under the limits)
        // before its own ops, and rewritten after them (O_TRUNC: the folios freed whole, 1 MiB
        // appended)
        // machines of 256-1,280 MiB, on which free pageblocks are there to be had at first
        // (the smaller ones of the other tests start full: every huge attempt would fall back)
        scn.machine.ram *= 8;
        let mut extra = vec![];
        for (i, f) in scn.files.iter_mut().enumerate().filter(|(_, f)| f.device.is_none()) {
            f.path = format!("/tmp{}", f.path);
            let at = (f.size / 2) & !4095;
            extra.push((i, at));
        }
        for (k, (file, offset)) in extra.into_iter().enumerate() {
            let t = &mut scn.tasks[0];
            let w = |offset, length, truncate| OpKind::Write { file, offset, length, bufsize: 1 << 20, fsync: false, create: false, truncate };
            t.ops.insert(0, OpSpec { step: format!("shm{k}").into(), kind: w(offset, (4 << 20) + 4096, false) });
            t.ops.push(OpSpec { step: format!("shm{k}t").into(), kind: w(0, 1 << 20, true) });
        }
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shmem_huge_pages_and_charges_are_conserved_after_every_step(scn in shmem_huge_scenario_strategy()) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn shmem_huge_same_scenario_same_result(scn in shmem_huge_scenario_strategy()) {
        same_result_twice(&scn)?;
    }
}

/// tmpfs swap-out and swap-in (tmpfs21b, mm/shmem.c `shmem_writepage()` and
/// `shmem_swapin_folio()`, mm/vmscan.c `shrink_folio_list()`): the tmpfs scenarios above with
/// swap on every machine, on linux-6.1 (a large tmpfs folio split before it goes to swap),
/// linux-6.12 (whole where the swap device is not rotational) and linux-6.18 (whole on any
/// block device), each tmpfs file written (huge folios and base pages mixed) and read back
/// twice, no other op touching it. After every step the invariants hold (every swap slot in
/// use named once: by a page table, a slots cache or a tmpfs file's swap entry; no index both
/// cached and swapped; charges, `shmem`/`shmem_thp` and the LRU counts agree); at the end every
/// page a tmpfs file was written is in its page cache or named by its swap entry.
fn shmem_swap_scenario_strategy() -> impl Strategy<Value = Scenario> {
    (shmem_huge_scenario_strategy(), 0u8..4, prop::bool::ANY).prop_map(|(mut scn, era, rotational)| {
        let p = ["linux-6.1", "linux-6.12", "linux-6.18", "linux-6.1"][era as usize];
        let lru_gen = scn.profile.lru_gen && era == 3;
        scn.profile = profile(p).unwrap();
        scn.profile.lru_gen = lru_gen;
        scn.machine.swap = scn.machine.ram / 2;
        scn.machine.swap_device = Some(0);
        scn.devices[0].rotational = rotational;
        // Pressure on the tmpfs files: task 0's memcg limited to 3-11 MiB (its 4 MiB writes go
        // to swap in part), no memsw or swap limit anywhere (they would OOM the write, which
        // is not what this test is about).
        for cg in scn.cgroups.iter_mut() {
            cg.memsw_max = None;
            cg.swap_max = None;
        }
        let lim = (3 << 20) + ((scn.machine.ram >> 12) % 2048) * 4096;
        if scn.tasks[0].cgroup.is_none() && !scn.cgroups.is_empty() {
            scn.tasks[0].cgroup = Some(0);
        }
        if let Some(c) = scn.tasks[0].cgroup {
            scn.cgroups[c].max = Some(lim);
        }
        let tmpfs: Vec<usize> = scn.files.iter().enumerate().filter(|(_, f)| f.path.starts_with("/tmp/")).map(|(i, _)| i).collect();
        let on_tmpfs = |f: &usize| tmpfs.contains(f);
        for (ti, t) in scn.tasks.iter_mut().enumerate() {
            t.ops.retain(|o| match &o.kind {
                // task 0's own tmpfs writes (step "shm*") stay; the O_TRUNC rewrites go
                OpKind::Write { file, truncate, .. } => !on_tmpfs(file) || (ti == 0 && !*truncate && o.step.starts_with("shm")),
                OpKind::Read { file, .. } | OpKind::Stat { file } | OpKind::Fsync { file } => !on_tmpfs(file),
                OpKind::Fadvise { files, .. } => !files.iter().any(on_tmpfs),
                _ => true,
            });
        }
        for (k, &file) in tmpfs.iter().enumerate() {
            for pass in 0..2 {
                let kind = OpKind::Read { file, offset: 0, length: None, bufsize: 1 << 20, pattern: Pattern::Sequential, fadvise: Advice::Normal, scan: false };
                scn.tasks[0].ops.push(OpSpec { step: format!("shm{k}r{pass}").into(), kind });
            }
        }
        scn
    })
}

/// The pages each tmpfs file was written: `(path, first index, last index)` of task 0's
/// "shm*" writes.
fn tmpfs_written(scn: &Scenario) -> Vec<(String, u32, u32)> {
    scn.tasks[0].ops.iter().filter_map(|o| match &o.kind {
        OpKind::Write { file, offset, length, .. } if o.step.starts_with("shm") => {
            Some((scn.files[*file].path.clone(), (*offset / 4096) as u32, ((*offset + *length - 1) / 4096) as u32))
        }
        _ => None,
    }).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shmem_swapped_pages_slots_and_charges_are_conserved(scn in shmem_swap_scenario_strategy()) {
        invariants_after_every_step(&scn, true)?;
        // A tmpfs page once written stays cached or swapped (nothing here truncates, and tmpfs
        // has no other way out); a write the memcg's limits made fail leaves fewer pages, so
        // each page is followed from the step it first appears.
        let mut sim = Simulation::new(&scn);
        let files: Vec<(memtwin_engine::types::InodeId, String, u32, u32)> =
            tmpfs_written(&scn).into_iter().map(|(p, a, b)| (sim.inode(&p).expect("a declared file"), p, a, b)).collect();
        let mut seen: Vec<Vec<bool>> = files.iter().map(|f| vec![false; f.3 as usize + 1]).collect();
        let mut steps = 0;
        while sim.step() {
            steps += 1;
            for (n, (ino, path, first, last)) in files.iter().enumerate() {
                for i in *first..=*last {
                    let cached = sim.kernel.mappings[ino.idx()].lookup(i).is_some();
                    let swapped = sim.kernel.shmem_swap_entry(*ino, i).is_some();
                    prop_assert!(!(cached && swapped), "after step {}: {} page {} both cached and swapped", steps, path, i);
                    prop_assert!(cached || swapped || !seen[n][i as usize], "after step {}: {} page {} lost", steps, path, i);
                    seen[n][i as usize] |= cached || swapped;
                }
            }
        }
    }
}

/// The same scenarios on 6.7+'s per-CPU page lists (mm/page_alloc.c `struct per_cpu_pages`,
/// `KernelProfile::pcp_auto_tune`): linux-6.12 with the two lists or lru_gen (6.3+'s memcg
/// LRU). The invariants count the frames on the lists as neither free nor used (free +
/// lists + used = managed) through refills, frees, flushes, drains and decay.
fn pcp_scenario_strategy(maps: bool) -> impl Strategy<Value = Scenario> {
    (scenario_strategy_with(maps), prop::bool::ANY).prop_map(|(mut scn, lru_gen)| {
        scn.profile = profile(if lru_gen { "linux-6.12-lru_gen" } else { "linux-6.12" }).unwrap();
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn pcp_pages_and_charges_are_conserved_after_every_step(scn in pcp_scenario_strategy(false)) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn pcp_mapped_pages_are_conserved_after_every_step(scn in pcp_scenario_strategy(true)) {
        invariants_after_every_step(&scn, false)?;
    }

    #[test]
    fn pcp_same_scenario_same_result(scn in pcp_scenario_strategy(false)) {
        same_result_twice(&scn)?;
    }
}

/// The same scenarios with written large folios (issue 23): the write path creating folios of
/// the write's size (`__filemap_get_folio()` with `fgf_set_order(len)`: linux-6.6 XFS, without
/// order-1 folios, on the two lists or lru_gen, and linux-6.18 ext4), every `write()` 128 KiB
/// or a random size, at random
/// offsets, so that whole, partial and unaligned folios are dirtied, written back (whole, in
/// runs), reclaimed dirty or under writeback (PG_reclaim), truncated, fadvised and split by
/// faults. The invariants hold NR_FILE_DIRTY and each mapping's dirty count to the pages of its
/// dirty folios (the flags on the head only), with the pages, charges and I/O requests.
fn written_folio_scenario_strategy(maps: bool) -> impl Strategy<Value = Scenario> {
    (scenario_strategy_with(maps), 0u8..3, prop::bool::ANY).prop_map(|(mut scn, era, whole)| {
        let (p, fs) = [("linux-6.6", "xfs"), ("linux-6.6-lru_gen", "xfs"), ("linux-6.18", "ext4")][era as usize];
        scn.profile = profile(p).unwrap();
        scn.machine.fs = fs.into();
        if whole {
            for t in &mut scn.tasks {
                for op in &mut t.ops {
                    if let OpKind::Write { bufsize, .. } = &mut op.kind {
                        *bufsize = 128 << 10;
                    }
                }
            }
        }
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn written_folio_pages_dirty_counts_and_charges_are_conserved_after_every_step(scn in written_folio_scenario_strategy(false)) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn written_folio_mapped_pages_are_conserved_after_every_step(scn in written_folio_scenario_strategy(true)) {
        invariants_after_every_step(&scn, false)?;
    }

    #[test]
    fn written_folio_same_scenario_same_result(scn in written_folio_scenario_strategy(false)) {
        same_result_twice(&scn)?;
    }
}


/// The per-CPU `lru_add` batch (mm/swap.c `cpu_fbatches.lru_add`, `KernelProfile::lru_add_batch`,
/// on every era) at each era's size (`PAGEVEC_SIZE` 14 in 3.13-4.x, 15 by 5.0 to 6.9, 31 from
/// 6.10) and either way of moving it (`LruAddMove`: before the add, to 4.6; after it, from 4.7)
/// on every profile the other strategies use: after every step each page is on exactly one LRU
/// list or in exactly one CPU's batch (the invariants walk the batches with the lists), and a
/// run repeats exactly.
fn lru_add_batch_scenario_strategy(maps: bool) -> impl Strategy<Value = Scenario> {
    use memtwin_engine::swap::LruAddMove;
    (
        scenario_strategy_with(maps),
        prop::sample::select(vec![memtwin_engine::swap::PAGEVEC_SIZE_4_X, memtwin_engine::swap::PAGEVEC_SIZE_5_X, memtwin_engine::swap::PAGEVEC_SIZE_6_10]),
        prop::sample::select(vec![LruAddMove::BeforeAdd, LruAddMove::AfterAdd]),
        prop::bool::ANY,
    )
        .prop_map(|(mut scn, size, mv, six_twelve)| {
            if six_twelve {
                scn.profile = profile("linux-6.12").unwrap();
            }
            scn.profile.lru_add_batch = size;
            scn.profile.lru_add_move = mv;
            scn
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn lru_add_batch_pages_are_on_one_list_or_in_one_batch_after_every_step(scn in lru_add_batch_scenario_strategy(false)) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn lru_add_batch_mapped_pages_are_on_one_list_or_in_one_batch_after_every_step(scn in lru_add_batch_scenario_strategy(true)) {
        invariants_after_every_step(&scn, false)?;
    }

    #[test]
    fn lru_add_batch_same_scenario_same_result(scn in lru_add_batch_scenario_strategy(false)) {
        same_result_twice(&scn)?;
    }
}

/// The per-CPU charge stocks (`memcg_stock_pcp`, memcontrol.rs `MemcgStock`) shared by more
/// memcgs than a stock holds: the random scenarios plus eight more tasks, each in a cgroup of
/// its own, on one or two CPUs, on linux-6.6 (one cached memcg a CPU: another memcg's charge
/// drains it) and linux-6.18 (`NR_MEMCG_STOCK` 7 slots from 6.16, the eighth memcg drains a
/// victim drawn by `get_random_u32_below()`). `check_invariants()` holds each stock's slots
/// (distinct memcgs, at most a charge batch, no freed memcg with pages) after every step.
fn shared_stock_scenario_strategy(maps: bool) -> impl Strategy<Value = Scenario> {
    (scenario_strategy_with(maps), prop::bool::ANY, 1u32..3).prop_map(|(mut scn, six_eighteen, cpus)| {
        scn.profile = profile(if six_eighteen { "linux-6.18" } else { "linux-6.6" }).unwrap();
        scn.machine.cpus = cpus;
        let (base, n) = (scn.cgroups.len(), scn.tasks.len());
        for i in 0..8 {
            scn.cgroups.push(CgroupSpec { path: format!("s{i}"), max: None, high: None, low: 0, min: 0, swap_max: None, memsw_max: None, swappiness: None, zswap_max: None, zswap_writeback: true });
            let mut t = scn.tasks[i % n].clone();
            t.name = format!("s{i}");
            t.cgroup = Some(base + i);
            for (j, op) in t.ops.iter_mut().enumerate() {
                op.step = format!("s{i}:{j}").into();
            }
            scn.tasks.push(t);
        }
        scn
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shared_stock_pages_charges_and_stocks_hold_after_every_step(scn in shared_stock_scenario_strategy(false)) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn shared_stock_same_scenario_same_result(scn in shared_stock_scenario_strategy(false)) {
        same_result_twice(&scn)?;
    }
}

/// Runs of pages taken per run (issue 17: `handle_mm_fault_run()`'s fault runs, the CPU's
/// `lru_add` batch linked as a chain, munmap's LRU segments and pageblock bitmaps) give
/// what one `handle_mm_fault()` and one `free_page()` at a time give (`Kernel::one_at_a_time`,
/// mm/memory.c `do_anonymous_page()` and `zap_pte_range()`): the same steps and time series.
fn runs_equal_one_at_a_time(scn: &Scenario) -> Result<(), TestCaseError> {
    let runs = Simulation::new(scn).run(&mut |_, _| true).unwrap();
    let mut one = Simulation::new(scn);
    one.kernel.one_at_a_time = true;
    let one = one.run(&mut |_, _| true).unwrap();
    prop_assert_eq!(format!("{:?}", runs.steps), format!("{:?}", one.steps));
    prop_assert_eq!(format!("{:?}", runs.series.rows), format!("{:?}", one.series.rows));
    Ok(())
}

/// [`runs_equal_one_at_a_time`] quantum by quantum, on the state that is not in the steps'
/// metrics: each CPU's per-CPU list in order (from 6.7 munmap's frames go onto it one at a
/// time, `free_unref_page_commit()`, so a run's bitmap must give them back in the order the
/// zap freed them) and each zone's free pages, after every quantum of both simulations.
fn runs_keep_the_per_cpu_lists_of_one_at_a_time(scn: &Scenario) -> Result<(), TestCaseError> {
    let mut runs = Simulation::new(scn);
    let mut one = Simulation::new(scn);
    one.kernel.one_at_a_time = true;
    let lists = |sim: &Simulation| {
        let pcp: Vec<Vec<u32>> = sim.kernel.pcps.iter().map(|p| p.list.iter().copied().collect()).collect();
        let free: Vec<u64> = sim.kernel.zones.iter().map(|z| z.free).collect();
        (pcp, free)
    };
    let mut quanta = 0u64;
    loop {
        let (a, b) = (runs.step(), one.step());
        prop_assert_eq!(a, b, "one simulation ended first, after quantum {}", quanta);
        if !a {
            break;
        }
        quanta += 1;
        let (x, y) = (lists(&runs), lists(&one));
        prop_assert!(x == y, "per-CPU lists or free pages differ after quantum {}", quanta);
        prop_assert!(quanta < 2_000_000, "runaway simulation");
    }
    Ok(())
}

/// `base`'s scenarios with each task's script wrapped in rounds of an anonymous mapping of
/// 4 KiB-24 MiB written whole and unmapped, one of the task's own ops between the touch and
/// the munmap (so that reads, writes and reclaim of the others interleave with the runs).
fn anon_rounds_strategy(base: impl Strategy<Value = Scenario>) -> impl Strategy<Value = Scenario> {
    (base, prop::collection::vec(4096u64..24 << 20, 2..5)).prop_map(|(mut scn, sizes)| {
        // Room for the mappings beside the boot's memory.
        scn.machine.boot_used = 16 << 20;
        for (ti, t) in scn.tasks.iter_mut().enumerate() {
            let mut rest = std::mem::take(&mut t.ops).into_iter().map(|o| o.kind);
            let mut ops = vec![];
            for (k, &size) in sizes.iter().enumerate() {
                let name = format!("a{k}");
                ops.push(OpKind::Mmap { name: name.clone(), size: size + ti as u64 * 4096, file: None, fill: Default::default() });
                ops.push(OpKind::Touch { name: name.clone(), access: MapAccess::write_all() });
                ops.extend(rest.next());
                ops.push(OpKind::Munmap { name });
            }
            ops.extend(rest);
            t.ops = ops.into_iter().enumerate().map(|(j, kind)| OpSpec { step: format!("t{ti}:{j}").into(), kind }).collect();
        }
        scn
    })
}

/// `base`'s scenarios on a profile with `MADV_COLD`/`MADV_PAGEOUT` (5.4+: a 5.0/4.4/3.13 draw
/// becomes linux-6.6, without zswap), swap on three machines of four, and each task's script
/// wrapped in rounds over an anonymous mapping of 64 KiB-8 MiB: written whole, one madvise
/// over part of it (PAGEOUT: 6.1 `reclaim_pages()` -> `shrink_folio_list()`'s `add_to_swap()`
/// and `pageout()`, the page left in the swap cache, or activated without swap; WILLNEED:
/// `force_swapin_readahead()`; COLD: deactivated; DONTNEED: zapped), one of the task's own
/// ops, a patterned load or store over it (swap-ins from the swap cache or the device), a
/// second madvise, then munmap (issue 20: anonymous PAGEOUT/WILLNEED among reads, writes and
/// reclaim).
fn anon_madvise_rounds_strategy(base: impl Strategy<Value = Scenario>) -> impl Strategy<Value = Scenario> {
    let round = (64u64 << 10..8 << 20, 0u8..4, 0u8..4, 0u64..8 << 20, 64u64 << 10..4 << 20, prop::bool::ANY, 0u8..3);
    (base, prop::collection::vec(round, 2..5), 0u8..4).prop_map(|(mut scn, rounds, swap)| {
        if !scn.profile.madv_cold_pageout {
            scn.profile = profile("linux-6.6").unwrap();
            scn.machine.zswap = None;
        }
        scn.machine.boot_used = 16 << 20;
        scn.machine.swap = if swap == 0 { 0 } else { scn.machine.ram / 2 };
        let advice = [MAdvice::PageOut, MAdvice::WillNeed, MAdvice::Cold, MAdvice::DontNeed];
        for (ti, t) in scn.tasks.iter_mut().enumerate() {
            let mut rest = std::mem::take(&mut t.ops).into_iter().map(|o| o.kind);
            let mut ops = vec![];
            for (k, &(size, a1, a2, off, len, write, pat)) in rounds.iter().enumerate() {
                let name = format!("a{k}");
                let size = size + ti as u64 * 4096;
                let offset = (off % size) & !4095;
                ops.push(OpKind::Mmap { name: name.clone(), size, file: None, fill: Default::default() });
                ops.push(OpKind::Touch { name: name.clone(), access: MapAccess::write_all() });
                ops.push(OpKind::Madvise { name: name.clone(), advice: advice[a1 as usize], offset, length: Some(len) });
                ops.extend(rest.next());
                ops.push(OpKind::Touch {
                    name: name.clone(),
                    access: MapAccess { write, offset: 0, length: None, pattern: [TouchPattern::Sequential, TouchPattern::Random { count: 300 }, TouchPattern::Strided { stride: 3 }][pat as usize] },
                });
                ops.push(OpKind::Madvise { name: name.clone(), advice: advice[a2 as usize], offset: 0, length: None });
                ops.push(OpKind::Munmap { name });
            }
            ops.extend(rest);
            t.ops = ops.into_iter().enumerate().map(|(j, kind)| OpSpec { step: format!("t{ti}:{j}").into(), kind }).collect();
        }
        scn
    })
}

proptest! {
    #![proptest_config(Config { cases: 48, ..config() })]

    /// Pages, charges, swap slots and I/O requests are conserved with anonymous PAGEOUT,
    /// WILLNEED, COLD and DONTNEED among the other ops (the two lists of every era from 5.4).
    #[test]
    fn anon_madvise_pages_charges_and_slots_are_conserved_after_every_step(scn in anon_madvise_rounds_strategy(scenario_strategy_with(false))) {
        invariants_after_every_step(&scn, true)?;
    }

    /// The same under lru_gen.
    #[test]
    fn lru_gen_anon_madvise_pages_charges_and_slots_are_conserved_after_every_step(scn in anon_madvise_rounds_strategy(lru_gen_scenario_strategy())) {
        invariants_after_every_step(&scn, true)?;
    }

    #[test]
    fn anon_madvise_same_scenario_same_result(scn in anon_madvise_rounds_strategy(scenario_strategy_with(false))) {
        same_result_twice(&scn)?;
    }
}

proptest! {
    // Each case runs its scenario twice, with mappings of up to 24 MiB: a quarter of the cases.
    #![proptest_config(Config { cases: 24, ..config() })]

    /// Anonymous mappings written and unmapped among reads, writes and reclaim (the two-list
    /// LRU of every era, without a batch). (Ignored until h-run9: its case 17, linux-3.13
    /// with THP, two tasks in nested v1 memcgs at c0's limit swapping, went on with a fault
    /// run after a first fault whose THP attempt had slept in its charge's reclaim; the
    /// regression `a_fault_run_ends_after_a_first_fault_that_slept_3_13`.)
    #[test]
    fn fault_and_munmap_runs_equal_one_page_at_a_time(scn in anon_rounds_strategy(scenario_strategy_with(false))) {
        runs_equal_one_at_a_time(&scn)?;
    }

    /// With file mappings, private copies, loads and patterned touches.
    #[test]
    fn mapped_fault_runs_equal_one_page_at_a_time(scn in anon_rounds_strategy(scenario_strategy_with(true))) {
        runs_equal_one_at_a_time(&scn)?;
    }

    /// Through the `lru_add` batches of 3.13-6.10 and 6.12.
    #[test]
    fn lru_add_batch_fault_and_munmap_runs_equal_one_page_at_a_time(scn in anon_rounds_strategy(lru_add_batch_scenario_strategy(false))) {
        runs_equal_one_at_a_time(&scn)?;
    }

    /// With 6.12's per-CPU lists (frames freed onto them in order), on the two lists and lru_gen.
    #[test]
    fn pcp_fault_and_munmap_runs_equal_one_page_at_a_time(scn in anon_rounds_strategy(pcp_scenario_strategy(false))) {
        runs_equal_one_at_a_time(&scn)?;
    }

    /// The same with the per-CPU lists compared after every quantum (review6 M2: munmap's
    /// bitmap of a pageblock must keep 6.7+'s order of frees; the steps' metrics do not show
    /// the lists' order).
    #[test]
    fn pcp_runs_keep_the_per_cpu_lists_of_one_page_at_a_time(scn in anon_rounds_strategy(pcp_scenario_strategy(false))) {
        runs_keep_the_per_cpu_lists_of_one_at_a_time(&scn)?;
    }
}
