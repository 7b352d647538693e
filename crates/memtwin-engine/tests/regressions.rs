//! Regressions found by review (2026-11-22), each a case the property test reached only with
//! more cases than it runs by default. Both run a scenario step by step with the invariants
//! checked after every step.

use memtwin_engine::memcontrol::CgroupVersion;
use memtwin_engine::profile::{profile, Policies};
use memtwin_engine::scenario::model::*;
use memtwin_engine::Simulation;

#[test]
/// A write over a page that readahead brought in without buffer heads charges them; the
/// charge's reclaim must not evict the page the write holds (write_begin keeps it locked).
fn a_buffer_head_charge_does_not_reclaim_the_page_being_written() {
    let scn = Scenario {
        name: "uaf".into(), description: String::new(), variant: None, seed: 7,
        machine: Machine { ram: 136314880, cpus: 4, kernel_reserved: 4 << 20, nodes: 1, dma32: 0, swap: 0, swap_device: Some(0),
            boot_percpu: 1 << 20, boot_slab: 8 << 20, boot_used: 300 << 20, boot_superblocks: 3 },
        profile: profile("linux-6.6").unwrap(), thp: false,
        policies: Policies { recharge_on_pagecache_get: false, memcg_percpu_release_on_offline: false, fadvise_directory: false, zonelist_cache: false },
        cgroup_version: CgroupVersion::V2,
        devices: vec![DeviceSpec { name: "sda".into(), read_bw: 200 << 20, write_bw: 100 << 20, seek: 1_000_000, read_ahead_kb: 128 }],
        cgroups: vec![
            CgroupSpec { path: "c0".into(), max: Some(2168733), high: None, low: 2593148, min: 0 },
            CgroupSpec { path: "c0/c1".into(), max: Some(6966582), high: None, low: 891511, min: 0 },
        ],
        mounts: vec![MountSpec { path: "/tmp".into(), fs: "tmpfs".into(), device: None }],
        files: vec![
            FileSpec { path: "/f0".into(), size: 3993482, device: Some(0), uid: 0, mode: 0o644, created: false },
            FileSpec { path: "/f1".into(), size: 490373, device: Some(0), uid: 0, mode: 0o644, created: false },
        ],
        dirs: vec![],
        tasks: vec![
            TaskSpec { name: "t0".into(), uid: 0, cgroup: Some(0), node: 0, start: 0, ops: vec![OpSpec { step: "t0:0".into(), kind: OpKind::Fadvise {
                path: "/f0".into(), files: vec![0], directory: false, walk: false, advice: memtwin_engine::fadvise::Advice::WillNeed, offset: 816145, length: Some(1641456) } }] },
            TaskSpec { name: "t1".into(), uid: 1000, cgroup: Some(0), node: 0, start: 0, ops: vec![OpSpec { step: "t1:0".into(), kind: OpKind::Write {
                file: 0, offset: 315392, length: 544769, bufsize: 4096, fsync: false, create: false, truncate: false } }] },
        ],
        sample_interval: 10_000_000, report_metrics: vec![],
    };
    let mut sim = Simulation::new(&scn);
    let mut steps = 0;
    while sim.step() {
        steps += 1;
        sim.kernel.check_invariants().unwrap();
        assert!(steps < 1_000_000);
    }
}

#[test]
/// Reclaim inside a slab charge can free slab of the same memcg (buffer heads, tree nodes):
/// the whole pages the charge took beyond what the bytes need go back.
fn a_slab_charge_keeps_whole_pages_matching_its_bytes() {
    let scn = Scenario {
        name: "kmem".into(), description: String::new(), variant: None, seed: 7,
        machine: Machine { ram: 136314880, cpus: 4, kernel_reserved: 4 << 20, nodes: 1, dma32: 0, swap: 0, swap_device: Some(0),
            boot_percpu: 1 << 20, boot_slab: 8 << 20, boot_used: 300 << 20, boot_superblocks: 3 },
        profile: profile("linux-6.6").unwrap(), thp: false,
        policies: Policies { recharge_on_pagecache_get: false, memcg_percpu_release_on_offline: false, fadvise_directory: false, zonelist_cache: false },
        cgroup_version: CgroupVersion::V2,
        devices: vec![DeviceSpec { name: "sda".into(), read_bw: 200 << 20, write_bw: 100 << 20, seek: 1_000_000, read_ahead_kb: 128 }],
        cgroups: vec![
            CgroupSpec { path: "c0".into(), max: Some(2740562), high: None, low: 198517, min: 0 },
            CgroupSpec { path: "c0/c1".into(), max: None, high: None, low: 3728787, min: 0 },
        ],
        mounts: vec![MountSpec { path: "/tmp".into(), fs: "tmpfs".into(), device: None }],
        files: vec![
            FileSpec { path: "/f0".into(), size: 7671887, device: Some(0), uid: 0, mode: 0o644, created: false },
            FileSpec { path: "/f1".into(), size: 8873257, device: Some(0), uid: 0, mode: 0o644, created: false },
        ],
        dirs: vec![],
        tasks: vec![
            TaskSpec { name: "t0".into(), uid: 0, cgroup: Some(0), node: 0, start: 0, ops: vec![OpSpec { step: "t0:0".into(), kind: OpKind::Fadvise {
                path: "/f0".into(), files: vec![0], directory: false, walk: false, advice: memtwin_engine::fadvise::Advice::WillNeed, offset: 1159168, length: None } }, OpSpec { step: "t0:1".into(), kind: OpKind::Write { file: 0, offset: 1048576, length: 643073, bufsize: 90932, fsync: false, create: false, truncate: false } }] },
            
        ],
        sample_interval: 10_000_000, report_metrics: vec![],
    };
    let mut sim = Simulation::new(&scn);
    let mut steps = 0;
    while sim.step() {
        steps += 1;
        if let Err(e) = sim.kernel.check_invariants() { panic!("after step {steps}: {e}"); }
        assert!(steps < 1_000_000);
    }
}
