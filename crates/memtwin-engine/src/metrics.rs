//! What a run reports: per-step metrics, totals and time series, named with the kernel's own
//! vocabulary (memory.stat, /proc/vmstat, /proc/meminfo, /usr/bin/time).

use crate::delayacct::{StallKind, NR_STALL_KINDS};
use crate::kernel::{IoAcct, Kernel};
use crate::memcontrol::{MemcgEvent, NR_MEMCG_EVENTS};
use crate::types::{secs, MemcgId, Nanos, PAGE_SIZE};
use crate::vmstat::{VmEvent, NR_VM_EVENTS};

/// Whether a metric adds up over steps or is a level read at the end of a step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MetricKind {
    /// A delta over the step; totals are sums.
    Counter,
    /// A value at the end of the step; totals take the last step's.
    Gauge,
}

/// The kind of the metric called `name`.
pub fn metric_kind(name: &str) -> MetricKind {
    if name.starts_with("meminfo.")
        || name.starts_with("cgroup.")
        || name.starts_with("list_lru.")
        || name.starts_with("kmem.")
        || name.starts_with("free.")
        || name.starts_with("shrinker_info.")
        || name.starts_with("latency.")
        || name.starts_with("node.")
        || name.contains("_avg")
        || matches!(name, "zswap.stored_pages" | "zswap.same_filled_pages" | "zswap.pool_total_size" | "memcg.zswap_bytes" | "memcg.zswapped_bytes")
        || name.ends_with("ratelimit_kBps")
        || matches!(name, "memcg.usage_bytes" | "memcg.max_usage_bytes" | "memcg.file_bytes" | "memcg.dirty_bytes" | "memcg.writeback_bytes" | "memcg.anon_bytes" | "memcg.file_mapped_bytes" | "memcg.swap_bytes" | "memcg.unevictable_bytes" | "memcg.shmem_bytes" | "memcg.shmem_thp_bytes")
    {
        MetricKind::Gauge
    } else {
        MetricKind::Counter
    }
}

/// Whether the metric called `name` counts whole things (bytes, pages, kB, events, samples), as
/// every /proc and cgroup file the kernel writes does; only times (`*_s`, `*_ms`) and the PSI
/// averages (`*_avg10`, `*_avg60`: percent with two decimals) are real numbers.
/// Results carry such metrics as integers.
pub fn metric_is_integer(name: &str) -> bool {
    !(name.ends_with("_s") || name.ends_with("_ms") || name.contains("_avg"))
}

/// One step: one operation of one task.
#[derive(Clone, Debug)]
pub struct StepResult {
    /// The step's name (the op's `step`, or `task:N op`).
    pub name: String,
    /// The task that ran it.
    pub task: String,
    /// The memcg the task ran in (cgroup path).
    pub memcg: String,
    /// Metrics in a fixed order.
    pub metrics: Vec<(String, f64)>,
    /// Latency samples taken during the step (mmap_probe rounds), in nanoseconds, in the
    /// order they were taken.
    pub samples: Vec<Nanos>,
    /// Resident page-cache pages per file at the end of the step (`mapping->nrpages`, what
    /// mincore or cachestat report), files with none left out: the files the step's ops name,
    /// or every file with `[report] resident_pages = "all"` (`ResidentPagesReport`).
    pub resident_pages: Vec<(std::sync::Arc<str>, u64)>,
    /// Page-cache pages of the whole machine at the end of the step (`NR_FILE_PAGES`, the sum
    /// of every mapping's nrpages; a counter, O(1)): what validation compares.
    pub pagecache: u64,
}

/// Counters of a task and its memcg at one instant, to take deltas from.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Task's virtual clock.
    pub clock: Nanos,
    /// Task's user time.
    pub user: Nanos,
    /// Task's system time.
    pub sys: Nanos,
    /// Task's I/O wait.
    pub iowait: Nanos,
    /// Task's waits for a CPU (schedstat's `run_delay`).
    pub runq: Nanos,
    /// Task's I/O.
    pub io: IoAcct,
    /// Task's stall times per kind (delayacct.rs).
    pub stall: [Nanos; NR_STALL_KINDS],
    /// The memcg's hierarchical events.
    pub memcg_events: [u64; NR_MEMCG_EVENTS],
    /// The memcg's failcnt as the lab reads it: v1's `memory.failcnt` (the memory page
    /// counter's `failcnt`, each refused `page_counter_try_charge()`); v2 has none, and the
    /// lab takes memory.events `max` (hierarchical: one per charge round that met the limit).
    pub failcnt: u64,
    /// Global vmstat events.
    pub vm_events: [u64; NR_VM_EVENTS],
    /// tmpfs huge pages' vmstat events: `thp_file_alloc`, `thp_file_fallback`,
    /// `thp_file_fallback_charge`, and reclaim's `thp_split_page`, `thp_swpout`,
    /// `thp_swpout_fallback` of tmpfs folios, and the per-size `shmem_alloc`, `shmem_fallback`,
    /// `shmem_fallback_charge` of the orders below PMD (shmem.rs), `thp_split_pmd` and
    /// `ksm_swpin_copy`.
    pub shmem: [u64; 11],
    /// memory.pressure totals of the memcg and of the machine (root), ns.
    pub psi: [Nanos; 4],
    /// zswap's event counters ([`ZSWAP_COUNTERS`] order), when the machine has zswap.
    pub zswap: [u64; ZSWAP_COUNTERS.len()],
    /// The `writeback:balance_dirty_pages` tracepoint's sums so far (page_writeback.rs).
    pub bdp: crate::page_writeback::BdpTrace,
    /// `reclaim_throttle()` sleeps per reason ([`crate::vmscan::VmscanThrottle`]).
    pub throttled: [u64; crate::vmscan::NR_VMSCAN_THROTTLE],
}

/// Task-side counters passed in by the scheduler.
#[derive(Clone, Copy, Debug, Default)]
pub struct TaskTimes {
    /// Virtual clock.
    pub clock: Nanos,
    /// User time.
    pub user: Nanos,
    /// System time.
    pub sys: Nanos,
    /// I/O wait.
    pub iowait: Nanos,
    /// I/O.
    pub io: IoAcct,
    /// Stall times per [`crate::delayacct::StallKind`] (`stall.*_ms`).
    pub stall: [Nanos; NR_STALL_KINDS],
    /// Waits for a CPU ([`Kernel::runq_ns`]): schedstat's `run_delay`.
    pub runq: Nanos,
}

/// zswap's counters reported per step (deltas): vmstat `zswpin`/`zswpout`, the memcg's
/// memory.stat `zswpin`/`zswpout` (its subtree), and /sys/kernel/debug/zswap's.
pub const ZSWAP_COUNTERS: [&str; 9] = [
    "vmstat.zswpin",
    "vmstat.zswpout",
    "memcg.zswpin",
    "memcg.zswpout",
    "zswap.pool_limit_hit",
    "zswap.written_back_pages",
    "zswap.reject_reclaim_fail",
    "zswap.reject_compress_poor",
    "zswap.reject_alloc_fail",
];

fn zswap_counters(k: &Kernel, memcg: MemcgId) -> [u64; ZSWAP_COUNTERS.len()] {
    let Some(z) = k.zswap.as_ref() else { return [0; ZSWAP_COUNTERS.len()] };
    let s = &z.stats;
    [
        s.zswpin,
        s.zswpout,
        k.memcgs.subtree_sum(memcg, |m| m.zswpin),
        k.memcgs.subtree_sum(memcg, |m| m.zswpout),
        s.pool_limit_hit,
        s.written_back_pages,
        s.reject_reclaim_fail,
        s.reject_compress_poor,
        s.reject_alloc_fail,
    ]
}

impl Snapshot {
    /// Read the counters of `memcg` and the machine, with the task's times.
    pub fn take(k: &Kernel, memcg: MemcgId, t: TaskTimes) -> Snapshot {
        let mut memcg_events = [0; NR_MEMCG_EVENTS];
        for (ev, _) in MemcgEvent::ALL {
            memcg_events[ev as usize] = k.memcgs.events(memcg, ev);
        }
        Snapshot {
            clock: t.clock,
            user: t.user,
            sys: t.sys,
            iowait: t.iowait,
            runq: t.runq,
            io: t.io,
            stall: t.stall,
            memcg_events,
            failcnt: match k.memcgs.version {
                crate::memcontrol::CgroupVersion::V1 => k.memcgs.get(memcg).counter.failcnt,
                _ => k.memcgs.events(memcg, crate::memcontrol::MemcgEvent::Max),
            },
            vm_events: k.vmstat.events,
            shmem: [
                k.shmem_stat.thp_file_alloc,
                k.shmem_stat.thp_file_fallback,
                k.shmem_stat.thp_file_fallback_charge,
                k.shmem_stat.thp_split_page,
                k.shmem_stat.thp_swpout,
                k.shmem_stat.thp_swpout_fallback,
                k.shmem_stat.mthp_alloc,
                k.shmem_stat.mthp_fallback,
                k.shmem_stat.mthp_fallback_charge,
                k.shmem_stat.thp_split_pmd,
                k.shmem_stat.ksm_swpin_copy,
            ],
            zswap: zswap_counters(k, memcg),
            psi: {
                let (m, r) = (k.memcgs.get(memcg).psi, k.memcgs.get(MemcgId::ROOT).psi);
                [m.some, m.full, r.some, r.full]
            },
            bdp: k.bdp_trace,
            throttled: k.vmscan_throttled,
        }
    }
}

/// The metrics of a step from the snapshots at its start and end.
pub fn step_metrics(k: &Kernel, memcg: MemcgId, a: &Snapshot, b: &Snapshot, oom_killed: bool) -> Vec<(String, f64)> {
    let mut m: Vec<(String, f64)> = Vec::with_capacity(64);
    let mut put = |name: &str, v: f64| m.push((name.to_string(), v));
    put("elapsed_s", secs(b.clock - a.clock));
    put("user_s", secs(b.user - a.user));
    put("sys_s", secs(b.sys - a.sys));
    put("iowait_s", secs(b.iowait - a.iowait));
    if k.bg_load != 0 || k.loop_worker_run.is_some() || k.vmpressure_work_run.is_some() || k.end_io_work_run.is_some() {
        // The task's waits for a CPU (/proc/PID/schedstat's run_delay, which `memtwin real
        // --on host` records per step as sched.run_delay_s), reported where the machine's
        // other runnable tasks are given (`[machine] background_runnable`), the loop
        // worker's run (`[machine] loop_worker_run`, kwork23) or the vmpressure work's
        // (`[machine] vmpressure_work_run`, kwork23c), so that the metrics of scenarios
        // without them are as they were.
        put("sched.run_delay_s", secs(b.runq - a.runq));
    }
    put("read_bytes", (b.io.read_bytes - a.io.read_bytes) as f64);
    put("write_bytes", (b.io.write_bytes - a.io.write_bytes) as f64);
    put("pagecache_hit_pages", (b.io.hits - a.io.hits) as f64);
    put("pagecache_miss_pages", (b.io.misses - a.io.misses) as f64);
    put("oom_killed", oom_killed as u8 as f64);
    let mc = k.memcgs.get(memcg);
    put("memcg.usage_bytes", k.memcg_usage_bytes(memcg) as f64);
    put("memcg.max_usage_bytes", (mc.counter.watermark * PAGE_SIZE) as f64);
    put("memcg.file_bytes", (k.memcgs.file_pages(memcg) * PAGE_SIZE) as f64);
    put("memcg.dirty_bytes", (k.memcgs.wb_subtree(memcg, crate::memcontrol::WB_DIRTY) * PAGE_SIZE) as f64);
    put("memcg.writeback_bytes", (k.memcgs.wb_subtree(memcg, crate::memcontrol::WB_WRITEBACK) * PAGE_SIZE) as f64);
    put("memcg.failcnt", (b.failcnt - a.failcnt) as f64);
    for (ev, name) in MemcgEvent::ALL {
        let i = ev as usize;
        put(&format!("memcg.{name}"), (b.memcg_events[i] - a.memcg_events[i]) as f64);
    }
    for (ev, name) in VmEvent::ALL {
        let i = ev as usize;
        put(&format!("vmstat.{name}"), (b.vm_events[i] - a.vm_events[i]) as f64);
    }
    // /proc/zoneinfo's `node_unreclaimable` of each node at the end of the step (mm/vmstat.c
    // zoneinfo_show_print(): `pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES`, 4.12+, printed under
    // each of the node's zones): kswapd gave up on the node (`Kernel::kswapd_hopeless()`). Always 0
    // on profiles without `KernelProfile::kswapd_failures` (3.x-4.11 zoneinfo has a per-zone
    // `all_unreclaimable` instead, not reported). One metric per node: node.0 .. node.{N-1}.
    for nid in 0..k.nr_nodes as u32 {
        put(&format!("node.{nid}.unreclaimable"), k.kswapd_hopeless(nid) as u8 as f64);
    }
    put("meminfo.MemFree_kB", (k.nr_free_pages() * PAGE_SIZE / 1024) as f64);
    put("meminfo.Cached_kB", (k.nr_file_pages() * PAGE_SIZE / 1024) as f64);
    put("meminfo.Dirty_kB", (k.vmstat.nr_dirty * PAGE_SIZE / 1024) as f64);
    // The node totals: the root lruvecs' hierarchical sizes (every memcg is below the root;
    // a freed memcg's lists are empty), or under the multi-generational LRU the sum of every
    // lruvec's generation-based sizes.
    let lru_pages = |l: crate::mmzone::LruList| {
        if k.profile.lru_gen {
            k.lruvecs.iter().map(|v| v.size(l)).sum::<u64>()
        } else {
            (0..k.nr_nodes).map(|nid| k.lru_stats.subtree_size(k.lruvec_idx(MemcgId::ROOT, nid), l)).sum::<u64>()
        }
    };
    let lru_kb = |l: crate::mmzone::LruList| (lru_pages(l) * PAGE_SIZE / 1024) as f64;
    put("meminfo.Active(file)_kB", lru_kb(crate::mmzone::LruList::ActiveFile));
    put("meminfo.Inactive(file)_kB", lru_kb(crate::mmzone::LruList::InactiveFile));
    put("meminfo.Percpu_kB", (k.kmem.percpu / 1024) as f64);
    put("meminfo.Slab_kB", (k.kmem.slab / 1024) as f64);
    put("kmem.other_kB", (k.kmem.other / 1024) as f64);
    put("free.used_kB", (k.used_bytes() / 1024) as f64);
    let (live, dying) = k.memcgs.descendants(MemcgId::ROOT);
    put("cgroup.nr_descendants", live as f64);
    put("cgroup.nr_dying_descendants", dying as f64);
    put("list_lru.nr_cache_ids", k.memcgs.nr_cache_ids as f64);
    put("list_lru.kB", ((k.kmem.list_lru_slab + k.kmem.list_lru_other) / 1024) as f64);
    put("list_lru.superblocks", k.superblocks.len() as f64);
    put("shrinker_info.kB", ((k.kmem.shrinker_slab + k.kmem.shrinker_other) / 1024) as f64);
    put("meminfo.AnonPages_kB", (k.vmstat.nr_anon_pages * PAGE_SIZE / 1024) as f64);
    put("memcg.anon_bytes", (k.memcgs.anon_pages(memcg) * PAGE_SIZE) as f64);
    put("memcg.file_mapped_bytes", (k.memcgs.subtree_sum(memcg, |m| m.nr_file_mapped) * PAGE_SIZE) as f64);
    put("meminfo.Mapped_kB", (k.vmstat.nr_mapped * PAGE_SIZE / 1024) as f64);
    let (swap_total, swap_used) = k.swap_usage();
    put("meminfo.SwapFree_kB", ((swap_total - swap_used) * PAGE_SIZE / 1024) as f64);
    // memory.swap.current (v2); v1: memory.memsw.usage_in_bytes less memory.usage_in_bytes.
    put("memcg.swap_bytes", (mc.swap * PAGE_SIZE) as f64);
    put("meminfo.Writeback_kB", (k.vmstat.nr_writeback * PAGE_SIZE / 1024) as f64);
    // memory.pressure of the step's memcg and /proc/pressure/memory, `total=` deltas in us.
    put("psi.memory.some_us", ((b.psi[0] - a.psi[0]) / 1000) as f64);
    put("psi.memory.full_us", ((b.psi[1] - a.psi[1]) / 1000) as f64);
    put("psi.system.memory.some_us", ((b.psi[2] - a.psi[2]) / 1000) as f64);
    put("psi.system.memory.full_us", ((b.psi[3] - a.psi[3]) / 1000) as f64);
    // memory.pressure's avg10/avg60 (percent) at the end of the step.
    let avgs = mc.psi.avgs_at(b.clock);
    put("psi.memory.some_avg10", avgs[0]);
    put("psi.memory.some_avg60", avgs[1]);
    put("psi.memory.full_avg10", avgs[2]);
    put("psi.memory.full_avg60", avgs[3]);
    // Where the task's time went while it waited in the kernel (delayacct.rs), ms.
    for (kind, name) in StallKind::ALL {
        let i = kind as usize;
        put(&format!("stall.{name}_ms"), (b.stall[i] - a.stall[i]) as f64 / 1e6);
    }
    // The machine's dirty throttling pauses in the step (`writeback:balance_dirty_pages`
    // events with a pause): their number, total pause and period (ms), and their mean
    // task_ratelimit and dirty_ratelimit (KB/s, as the tracepoint prints them).
    let (ba, bb) = (&a.bdp, &b.bdp);
    let pauses = bb.pauses - ba.pauses;
    let jiffy_ms = crate::page_writeback::NSEC_PER_JIFFY as f64 / 1e6;
    put("bdp.pauses", pauses as f64);
    put("bdp.pause_ms", (bb.pause - ba.pause) as f64 * jiffy_ms);
    put("bdp.period_ms", (bb.period - ba.period) as f64 * jiffy_ms);
    let mean = |x: u64| if pauses > 0 { (x / pauses) as f64 } else { 0.0 };
    put("bdp.task_ratelimit_kBps", mean(bb.task_ratelimit - ba.task_ratelimit));
    put("bdp.dirty_ratelimit_kBps", mean(bb.dirty_ratelimit - ba.dirty_ratelimit));
    if k.profile.reclaim_throttle == crate::profile::ReclaimThrottle::Writeback {
        // The machine's `vmscan:mm_vmscan_throttled` events in the step, per reason: only on
        // profiles that have `reclaim_throttle()` (5.16+), so that other runs' outputs keep
        // their metrics.
        for (r, name) in crate::vmscan::VmscanThrottle::ALL {
            m.push((name.to_string(), (b.throttled[r as usize] - a.throttled[r as usize]) as f64));
        }
    }
    if k.profile.lru_gen {
        lru_gen_metrics(k, memcg, &mut m);
    }
    if k.shmem_huge_metrics() {
        // tmpfs huge pages (shmem.rs): only where a mount's huge= or shmem_enabled is set, so
        // that other runs' outputs keep their metrics. memory.stat `shmem` and `shmem_thp`
        // (hierarchical, bytes), /proc/vmstat's events, /proc/meminfo `ShmemHugePages`.
        let sub = |f: fn(&crate::memcontrol::Memcg) -> u64| (k.memcgs.subtree_sum(memcg, f) * PAGE_SIZE) as f64;
        let values = [
            sub(|c| c.nr_shmem),
            sub(|c| c.nr_shmem_thps),
            (b.shmem[0] - a.shmem[0]) as f64,
            (b.shmem[1] - a.shmem[1]) as f64,
            (b.shmem[2] - a.shmem[2]) as f64,
            (k.shmem_stat.nr_shmem_thps * PAGE_SIZE / 1024) as f64,
            (b.shmem[3] - a.shmem[3]) as f64,
            (b.shmem[4] - a.shmem[4]) as f64,
            (b.shmem[5] - a.shmem[5]) as f64,
        ];
        m.extend(shmem_metric_names().into_iter().zip(values));
        if matches!(k.profile.large_folios.tmpfs, crate::shmem::TmpfsHuge::WriteSize | crate::shmem::TmpfsHuge::AllOrders) {
            // 6.14+: tmpfs folios below the PMD size, the per-size counters summed
            // (hugepages-<size>kB/stats/shmem_*, sizes under 2 MiB), after the others so that
            // the 6.1-6.13 runs keep their metrics.
            let values = [(b.shmem[6] - a.shmem[6]) as f64, (b.shmem[7] - a.shmem[7]) as f64, (b.shmem[8] - a.shmem[8]) as f64];
            m.extend(SHMEM_MTHP_METRICS.iter().map(|s| s.to_string()).zip(values));
        }
    } else if k.thp_enabled && k.swap.is_some() {
        // Anonymous THPs that reclaim may swap (huge_memory.rs, swapfile.rs ThpSwapOut):
        // /proc/vmstat's thp_split_page, thp_swpout, thp_swpout_fallback (the counters the
        // tmpfs metrics above report too), only with THP always and swap, so that other runs'
        // outputs keep their metrics.
        // vmstat.thp_split_pmd: the PMD splits of reclaim's THPs, at the unmap of one written
        // whole (huge_memory.rs split_huge_pmd_address()) or in split_huge_page()
        // (ShmemStat::thp_split_pmd).
        // Named as the era's /proc/vmstat names them (review61 L5): before 4.5 the one counter
        // is `thp_split` (122afea9626a, 4.5, split it into thp_split_page and thp_split_pmd);
        // thp_swpout and thp_swpout_fallback came with 4.14 (bd4c82c22c36, fe490cc0fe9e). The
        // profiles here with `ThpSwapOut::Split` (3.13, 4.3, 4.4) are all before 4.5, the
        // others (5.0 on) after 4.14.
        if k.profile.thp_swapout == crate::swapfile::ThpSwapOut::Split {
            m.push(("vmstat.thp_split".to_string(), (b.shmem[3] - a.shmem[3]) as f64));
        } else {
            let values = [(b.shmem[3] - a.shmem[3]) as f64, (b.shmem[4] - a.shmem[4]) as f64, (b.shmem[5] - a.shmem[5]) as f64, (b.shmem[9] - a.shmem[9]) as f64];
            m.extend(["vmstat.thp_split_page", "vmstat.thp_swpout", "vmstat.thp_swpout_fallback", "vmstat.thp_split_pmd"].map(String::from).into_iter().zip(values));
            if k.profile.swapin_copies_large_tails == crate::profile::KsmSwapinCopy::CopyCounted {
                // ksm_swpin_copy (5.19+): the swap-ins that mapped a copy, here the subpages
                // of THPs written whole (swapfile.rs do_swap_page_copy(), until 6.8).
                m.push(("vmstat.ksm_swpin_copy".to_string(), (b.shmem[10] - a.shmem[10]) as f64));
            }
        }
    }
    if let Some(z) = k.zswap.as_ref() {
        // Only on a machine with zswap (`[machine] zswap`), so that other runs' outputs keep
        // their metrics.
        for (i, name) in ZSWAP_COUNTERS.iter().enumerate() {
            m.push((name.to_string(), (b.zswap[i] - a.zswap[i]) as f64));
        }
        let pool = zswap_pool_bytes(k, z);
        m.push(("zswap.stored_pages".into(), z.stats.stored_pages as f64));
        m.push(("zswap.same_filled_pages".into(), z.stats.same_filled_pages as f64));
        m.push(("zswap.pool_total_size".into(), pool as f64));
        m.push(("meminfo.Zswap_kB".into(), (pool / 1024) as f64));
        m.push(("meminfo.Zswapped_kB".into(), (z.stats.stored_pages * PAGE_SIZE / 1024) as f64));
        // memory.zswap.current (= memory.stat `zswap`) and memory.stat `zswapped` (bytes).
        let mc = k.memcgs.get(memcg);
        m.push(("memcg.zswap_bytes".into(), mc.zswap_bytes as f64));
        m.push(("memcg.zswapped_bytes".into(), (mc.zswapped * PAGE_SIZE) as f64));
    }
    m
}

/// memory.stat `unevictable` of `memcg` in pages (`NR_LRU_BASE + LRU_UNEVICTABLE`, v2's
/// hierarchical count; v1's `total_unevictable`): the unevictable lists of its lruvecs and its
/// descendants' on every node (mlocked pages, mlock.rs).
/// zswap's pool size as debugfs `pool_total_size` and meminfo `Zswap` show it: 6.1's
/// `zswap_pool_total_size`, the size `zswap_update_total_size()` last took; 6.18's
/// `zswap_total_pages()`, the pool's now.
pub fn zswap_pool_bytes(k: &Kernel, z: &crate::zswap::Zswap) -> u64 {
    (if k.profile.zswap_direct { z.pool_pages() } else { z.pool_total_size_pages() }) * PAGE_SIZE
}

/// memory.stat's `unevictable` of `memcg` and its descendants: the pages on their lruvecs'
/// `LRU_UNEVICTABLE` lists over every node (`memcg_page_state(memcg, NR_UNEVICTABLE)`, hierarchical).
pub fn memcg_unevictable_pages(k: &Kernel, memcg: MemcgId) -> u64 {
    let mut n: u64 = (0..k.nr_nodes).map(|nid| k.lruvecs[k.lruvec_idx(memcg, nid)].lists[crate::mmzone::LruList::Unevictable as usize].pages).sum();
    for &c in &k.memcgs.get(memcg).children {
        n += memcg_unevictable_pages(k, c);
    }
    n
}

/// The multi-generational LRU's state of `memcg` (node 0 and beyond summed), as
/// /sys/kernel/debug/lru_gen shows it: `memcg.lru_gen.genJ.{anon,file}_pages` and `.age_ms`
/// for the generation J below the youngest (`max_seq - J`, J = 0..3; 0 pages outside the
/// window), the number of file generations, and the times `min_ttl_ms` held kswapd back.
/// Only under `kernel.lru_gen = true`.
pub fn lru_gen_metrics(k: &Kernel, memcg: MemcgId, m: &mut Vec<(String, f64)>) {
    let gens = k.lru_gen_generations(memcg);
    let max_seq = gens.iter().map(|g| g.0).max().unwrap_or(0);
    for j in 0..crate::lru_gen::MAX_NR_GENS {
        let (mut anon, mut file, mut age) = (0u64, 0u64, 0u64);
        for &(seq, a, an, f) in &gens {
            if seq + j == max_seq {
                anon += an;
                file += f;
                age = age.max(a);
            }
        }
        m.push((format!("memcg.lru_gen.gen{j}.anon_pages"), anon as f64));
        m.push((format!("memcg.lru_gen.gen{j}.file_pages"), file as f64));
        m.push((format!("memcg.lru_gen.gen{j}.age_ms"), (age / 1_000_000) as f64));
    }
    let v = k.lruvec_idx(memcg, 0);
    let g = &k.lruvecs[v].lrugen;
    m.push(("memcg.lru_gen.nr_gens_file".to_string(), g.nr_gens(crate::lru_gen::LRU_GEN_FILE) as f64));
    m.push(("memcg.lru_gen.max_seq".to_string(), g.max_seq as f64));
    let ooms: u64 = (0..k.nr_nodes).map(|n| k.lruvecs[k.lruvec_idx(MemcgId::ROOT, n)].lrugen.min_ttl_ooms).sum();
    m.push(("lru_gen.min_ttl_ooms".to_string(), ooms as f64));
}

/// The latency metrics of a step, in milliseconds, as mmtests reports a latency benchmark
/// (its `stutter` table; kernel-facts section 7): with the samples sorted ascending,
/// Min; quartiles and Max-90/93/95/99% as `x[int((n-1)*p + 0.5)]`; Max; Mean; and
/// BestN%Mean, the mean of `x[0..=k]` with `k = int(n*N/100)` (the whole mean when k is 0).
/// All zero, with `latency.samples` 0, for a step without samples.
pub fn mmtests_latency(samples: &[Nanos]) -> Vec<(String, f64)> {
    let mut x: Vec<f64> = samples.iter().map(|&s| s as f64 / 1e6).collect();
    x.sort_by(|a, b| a.total_cmp(b));
    let n = x.len();
    let mut out = Vec::with_capacity(LATENCY_METRICS.len());
    out.push(("latency.samples".to_string(), n as f64));
    if n == 0 {
        out.extend(LATENCY_METRICS[1..].iter().map(|m| (m.to_string(), 0.0)));
        return out;
    }
    let at = |p: f64| x[(((n - 1) as f64) * p + 0.5) as usize];
    let mean = |k: usize| x[..k].iter().sum::<f64>() / k as f64;
    let best = |pct: usize| {
        let k = n * pct / 100;
        if k == 0 {
            mean(n)
        } else {
            mean((k + 1).min(n))
        }
    };
    let vals = [
        x[0],
        at(0.25),
        at(0.50),
        at(0.75),
        at(0.90),
        at(0.93),
        at(0.95),
        at(0.99),
        x[n - 1],
        mean(n),
        best(99),
        best(95),
        best(90),
        best(50),
        best(10),
        best(5),
        best(1),
    ];
    out.extend(LATENCY_METRICS[1..].iter().zip(vals).map(|(m, v)| (m.to_string(), v)));
    out
}

/// The names [`mmtests_latency`] reports, in its order.
pub const LATENCY_METRICS: [&str; 18] = [
    "latency.samples",
    "latency.min_ms",
    "latency.q1_ms",
    "latency.q2_ms",
    "latency.q3_ms",
    "latency.max90_ms",
    "latency.max93_ms",
    "latency.max95_ms",
    "latency.max99_ms",
    "latency.max_ms",
    "latency.mean_ms",
    "latency.best99_mean_ms",
    "latency.best95_mean_ms",
    "latency.best90_mean_ms",
    "latency.best50_mean_ms",
    "latency.best10_mean_ms",
    "latency.best5_mean_ms",
    "latency.best1_mean_ms",
];

/// tmpfs huge pages (shmem.rs), in report order: a step reports them only where the scenario
/// names a tmpfs mount's `huge=` or `[kernel] shmem_enabled` ([`crate::shmem::ShmemStat::report`]):
/// memory.stat `shmem` and `shmem_thp`, /proc/vmstat's `thp_file_alloc`, `thp_file_fallback`,
/// `thp_file_fallback_charge`, /proc/meminfo `ShmemHugePages`, and reclaim's tmpfs
/// `thp_split_page`, `thp_swpout`, `thp_swpout_fallback` (tmpfs21b).
pub fn shmem_metric_names() -> Vec<String> {
    [
        "memcg.shmem_bytes",
        "memcg.shmem_thp_bytes",
        "vmstat.thp_file_alloc",
        "vmstat.thp_file_fallback",
        "vmstat.thp_file_fallback_charge",
        "meminfo.ShmemHugePages_kB",
        "vmstat.thp_split_page",
        "vmstat.thp_swpout",
        "vmstat.thp_swpout_fallback",
    ]
        .map(String::from)
        .to_vec()
}

/// The 6.14+ tmpfs large-folio counters below the PMD size (shmem.rs, [`crate::shmem::TmpfsHuge`]),
/// reported after [`shmem_metric_names`]'s on those eras: the sums over the sizes under 2 MiB of
/// /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/stats/shmem_alloc, shmem_fallback,
/// shmem_fallback_charge (`MTHP_STAT_SHMEM_*`, mm/shmem.c `shmem_alloc_and_add_folio()`).
pub const SHMEM_MTHP_METRICS: [&str; 3] = ["mthp.shmem_alloc", "mthp.shmem_fallback", "mthp.shmem_fallback_charge"];

/// `reclaim_throttle()`'s sleeps per reason (`vmscan.throttled.<reason>`,
/// [`crate::vmscan::VmscanThrottle`]), in report order: a step reports them only on a profile
/// that has `reclaim_throttle()` (5.16+, `ReclaimThrottle::Writeback`), after the others and
/// before the lru_gen and latency ones.
pub fn vmscan_throttled_metric_names() -> Vec<String> {
    crate::vmscan::VmscanThrottle::ALL.iter().map(|(_, n)| n.to_string()).collect()
}

/// The metrics a step reports in addition where the machine has a background of other
/// runnable tasks (`[machine] background_runnable`), the loop worker's run (`[machine]
/// loop_worker_run`) or the vmpressure work's (`[machine] vmpressure_work_run`), after `iowait_s`: the task's waits for a CPU (schedstat's `run_delay`).
pub fn sched_metric_names() -> Vec<String> {
    vec!["sched.run_delay_s".to_string()]
}

/// The multi-generational LRU's metrics ([`lru_gen_metrics`]), in report order: a step reports
/// them only under `kernel.lru_gen = true`, after the others and before the latency ones.
pub fn lru_gen_metric_names() -> Vec<String> {
    let mut v = vec![];
    for j in 0..crate::lru_gen::MAX_NR_GENS {
        for x in ["anon_pages", "file_pages", "age_ms"] {
            v.push(format!("memcg.lru_gen.gen{j}.{x}"));
        }
    }
    v.extend(["memcg.lru_gen.nr_gens_file", "memcg.lru_gen.max_seq", "lru_gen.min_ttl_ooms"].map(String::from));
    v
}

/// Every metric name a step reports, in report order; under `kernel.lru_gen = true` a step also
/// reports [`lru_gen_metric_names`], before the latency ones.
pub fn metric_names() -> Vec<String> {
    let mut v: Vec<String> = [
        "elapsed_s",
        "user_s",
        "sys_s",
        "iowait_s",
        "read_bytes",
        "write_bytes",
        "pagecache_hit_pages",
        "pagecache_miss_pages",
        "oom_killed",
        "memcg.usage_bytes",
        "memcg.max_usage_bytes",
        "memcg.file_bytes",
        "memcg.dirty_bytes",
        "memcg.writeback_bytes",
        "memcg.failcnt",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(MemcgEvent::ALL.iter().map(|(_, n)| format!("memcg.{n}")));
    v.extend(VmEvent::ALL.iter().map(|(_, n)| format!("vmstat.{n}")));
    // node.N.unreclaimable: one a node; a machine of N nodes reports node.0 .. node.{N-1} here
    v.push("node.0.unreclaimable".to_string());
    v.extend(
        [
            "meminfo.MemFree_kB",
            "meminfo.Cached_kB",
            "meminfo.Dirty_kB",
            "meminfo.Active(file)_kB",
            "meminfo.Inactive(file)_kB",
            "meminfo.Percpu_kB",
            "meminfo.Slab_kB",
            "kmem.other_kB",
            "free.used_kB",
            "cgroup.nr_descendants",
            "cgroup.nr_dying_descendants",
            "list_lru.nr_cache_ids",
            "list_lru.kB",
            "list_lru.superblocks",
            "shrinker_info.kB",
            "meminfo.AnonPages_kB",
            "memcg.anon_bytes",
            "memcg.file_mapped_bytes",
            "meminfo.Mapped_kB",
            "meminfo.SwapFree_kB",
            "memcg.swap_bytes",
            "meminfo.Writeback_kB",
            "psi.memory.some_us",
            "psi.memory.full_us",
            "psi.system.memory.some_us",
            "psi.system.memory.full_us",
            "psi.memory.some_avg10",
            "psi.memory.some_avg60",
            "psi.memory.full_avg10",
            "psi.memory.full_avg60",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    v.extend(StallKind::ALL.iter().map(|(_, n)| format!("stall.{n}_ms")));
    v.extend(["bdp.pauses", "bdp.pause_ms", "bdp.period_ms", "bdp.task_ratelimit_kBps", "bdp.dirty_ratelimit_kBps"].map(String::from));
    v.extend(LATENCY_METRICS.iter().map(|s| s.to_string()));
    v
}

/// Totals over steps: counters summed, gauges from the last step, in first-seen order.
pub fn totals(steps: &[StepResult]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for s in steps {
        for (name, v) in &s.metrics {
            match out.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => match metric_kind(name) {
                    MetricKind::Counter => slot.1 += v,
                    MetricKind::Gauge => slot.1 = *v,
                },
                None => out.push((name.clone(), *v)),
            }
        }
    }
    out
}

/// Time series sampled every `interval` of virtual time: a column per quantity.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Column names; the first is `time_s`.
    pub columns: Vec<String>,
    /// Rows of values, one per sample, in column order.
    pub rows: Vec<Vec<f64>>,
    /// Memcgs with columns: those declared in the scenario (created at boot); cgroups that
    /// ops create later are counted in `nr_dying_memcgs` and the step metrics instead.
    pub memcgs: usize,
}

impl Series {
    /// Columns for a kernel's memcgs and devices.
    pub fn for_kernel(k: &Kernel) -> Series {
        let mut columns = vec![
            "time_s".to_string(),
            "free_bytes".into(),
            "cached_bytes".into(),
            "dirty_bytes".into(),
            "percpu_bytes".into(),
            "slab_bytes".into(),
            "nr_dying_memcgs".into(),
        ];
        for d in &k.devices {
            columns.push(format!("{}:read_bytes", d.name));
            columns.push(format!("{}:write_bytes", d.name));
        }
        for m in &k.memcgs.memcgs {
            columns.push(format!("{}:usage_bytes", m.path));
            columns.push(format!("{}:file_bytes", m.path));
        }
        Series { columns, rows: vec![], memcgs: k.memcgs.len() }
    }

    /// Record the state of `k` at time `t`.
    pub fn sample(&mut self, k: &Kernel, t: Nanos) {
        let mut row = Vec::with_capacity(self.columns.len());
        row.push(secs(t));
        row.push((k.nr_free_pages() * PAGE_SIZE) as f64);
        row.push((k.nr_file_pages() * PAGE_SIZE) as f64);
        row.push((k.vmstat.nr_dirty * PAGE_SIZE) as f64);
        row.push(k.kmem.percpu as f64);
        row.push(k.kmem.slab as f64);
        row.push(k.memcgs.descendants(MemcgId::ROOT).1 as f64);
        for d in &k.devices {
            row.push(d.read_bytes as f64);
            row.push(d.write_bytes as f64);
        }
        for i in 0..self.memcgs.min(k.memcgs.len()) {
            row.push(k.memcg_usage_bytes(MemcgId(i as u32)) as f64);
            row.push((k.memcgs.file_pages(MemcgId(i as u32)) * PAGE_SIZE) as f64);
        }
        self.rows.push(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_metrics_are_reported_in_metric_names_order() {
        // The metric names of the first step of a 1 ms sleep under `[kernel]` `kernel`.
        let names = |kernel: &str| -> Vec<String> {
            let toml = format!("[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\n{kernel}[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
            let scn = crate::Document::from_toml("t.toml", &toml).unwrap().resolve(None, &[]).unwrap();
            let r = crate::simulate(&scn, &mut |_, _| true).unwrap();
            r.steps[0].metrics.iter().map(|(n, _)| n.clone()).collect()
        };
        let at = |v: &Vec<String>| v.iter().position(|n| n == "latency.samples").unwrap();
        let mut want = metric_names();
        let i = at(&want);
        want.splice(i..i, vmscan_throttled_metric_names());
        assert_eq!(names(""), want, "the default profile has reclaim_throttle(): its metrics come before the latency ones");
        assert_eq!(names("[kernel]\nprofile = \"linux-5.0\"\n"), metric_names(), "5.0 has no reclaim_throttle()");
        let names = names("[kernel]\nprofile = \"linux-6.1\"\nlru_gen = true\n");
        let mut want = metric_names();
        let i = at(&want);
        want.splice(i..i, vmscan_throttled_metric_names().into_iter().chain(lru_gen_metric_names()));
        assert_eq!(names, want, "under lru_gen the lru_gen metrics come before the latency ones");
    }
}

/// Resident pages of the given files that have any, in inode order; `inodes` (a scratch list,
/// duplicates allowed) is sorted and deduplicated in place. Costs the files given.
pub fn resident_pages_of(k: &Kernel, inodes: &mut Vec<crate::types::InodeId>) -> Vec<(std::sync::Arc<str>, u64)> {
    inodes.sort_unstable_by_key(|i| i.idx());
    inodes.dedup();
    inodes
        .iter()
        .filter(|i| k.mappings[i.idx()].nrpages > 0)
        .map(|i| (k.inodes[i.idx()].path.clone(), k.mappings[i.idx()].nrpages))
        .collect()
}

/// Resident pages of every file that has any (`mapping->nrpages` per inode), in inode order.
pub fn resident_pages(k: &Kernel) -> Vec<(std::sync::Arc<str>, u64)> {
    k.inodes.iter().zip(k.mappings.iter()).filter(|(_, m)| m.nrpages > 0).map(|(i, m)| (i.path.clone(), m.nrpages)).collect()
}

#[cfg(test)]
mod latency_tests {
    use super::*;

    #[test]
    fn mmtests_latency_table_arithmetic() {
        // Samples 1..=20 ms, given out of order.
        let mut s: Vec<Nanos> = (1..=20u64).rev().map(|ms| ms * 1_000_000).collect();
        s.swap(3, 11);
        let m: std::collections::HashMap<String, f64> = mmtests_latency(&s).into_iter().collect();
        assert_eq!(m["latency.samples"], 20.0);
        assert_eq!(m["latency.min_ms"], 1.0);
        // x[int(19 * p + 0.5)]: q1 x[5] = 6, median x[10] = 11, q3 x[14] = 15.
        assert_eq!(m["latency.q1_ms"], 6.0);
        assert_eq!(m["latency.q2_ms"], 11.0);
        assert_eq!(m["latency.q3_ms"], 15.0);
        // Max-90% x[17] = 18, Max-93% x[18] = 19 (17.67 + 0.5), Max-95% x[18], Max-99% x[19].
        assert_eq!(m["latency.max90_ms"], 18.0);
        assert_eq!(m["latency.max93_ms"], 19.0);
        assert_eq!(m["latency.max95_ms"], 19.0);
        assert_eq!(m["latency.max99_ms"], 20.0);
        assert_eq!(m["latency.max_ms"], 20.0);
        assert_eq!(m["latency.mean_ms"], 10.5);
        // Best50%: k = 10, mean of x[0..=10] = mean(1..=11) = 6. Best10%: k = 2 -> mean(1,2,3).
        assert_eq!(m["latency.best50_mean_ms"], 6.0);
        assert_eq!(m["latency.best10_mean_ms"], 2.0);
        // Best5%: k = 1 -> mean(1, 2). Best1%: k = 0 -> the whole mean.
        assert_eq!(m["latency.best5_mean_ms"], 1.5);
        assert_eq!(m["latency.best1_mean_ms"], 10.5);
        // Best99%: k = 19 -> all 20 samples.
        assert_eq!(m["latency.best99_mean_ms"], 10.5);
        let empty: std::collections::HashMap<String, f64> = mmtests_latency(&[]).into_iter().collect();
        assert_eq!(empty["latency.samples"], 0.0);
        assert_eq!(empty.len(), LATENCY_METRICS.len());
    }
}
