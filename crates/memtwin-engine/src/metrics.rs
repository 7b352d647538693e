//! What a run reports: per-step metrics, totals and time series, named with the kernel's own
//! vocabulary (memory.stat, /proc/vmstat, /proc/meminfo, /usr/bin/time).

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
        || matches!(name, "memcg.usage_bytes" | "memcg.max_usage_bytes" | "memcg.file_bytes" | "memcg.dirty_bytes")
    {
        MetricKind::Gauge
    } else {
        MetricKind::Counter
    }
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
    /// Task's I/O.
    pub io: IoAcct,
    /// The memcg's hierarchical events.
    pub memcg_events: [u64; NR_MEMCG_EVENTS],
    /// The memcg's failcnt.
    pub failcnt: u64,
    /// Global vmstat events.
    pub vm_events: [u64; NR_VM_EVENTS],
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
            io: t.io,
            memcg_events,
            failcnt: k.memcgs.get(memcg).counter.failcnt,
            vm_events: k.vmstat.events,
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
    put("read_bytes", (b.io.read_bytes - a.io.read_bytes) as f64);
    put("write_bytes", (b.io.write_bytes - a.io.write_bytes) as f64);
    put("pagecache_hit_pages", (b.io.hits - a.io.hits) as f64);
    put("pagecache_miss_pages", (b.io.misses - a.io.misses) as f64);
    put("oom_killed", oom_killed as u8 as f64);
    let mc = k.memcgs.get(memcg);
    put("memcg.usage_bytes", (mc.counter.usage * PAGE_SIZE) as f64);
    put("memcg.max_usage_bytes", (mc.counter.watermark * PAGE_SIZE) as f64);
    put("memcg.file_bytes", (k.memcgs.file_pages(memcg) * PAGE_SIZE) as f64);
    put("memcg.failcnt", (b.failcnt - a.failcnt) as f64);
    for (ev, name) in MemcgEvent::ALL {
        let i = ev as usize;
        put(&format!("memcg.{name}"), (b.memcg_events[i] - a.memcg_events[i]) as f64);
    }
    for (ev, name) in VmEvent::ALL {
        let i = ev as usize;
        put(&format!("vmstat.{name}"), (b.vm_events[i] - a.vm_events[i]) as f64);
    }
    put("meminfo.MemFree_kB", (k.zone.free * PAGE_SIZE / 1024) as f64);
    put("meminfo.Cached_kB", (k.nr_file_pages() * PAGE_SIZE / 1024) as f64);
    put("meminfo.Dirty_kB", (k.vmstat.nr_dirty * PAGE_SIZE / 1024) as f64);
    let lru_kb = |l: crate::mmzone::LruList| (k.lruvecs.iter().map(|v| v.size(l)).sum::<u64>() * PAGE_SIZE / 1024) as f64;
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
    m
}

/// Every metric name a step reports, in report order.
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
        "memcg.failcnt",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(MemcgEvent::ALL.iter().map(|(_, n)| format!("memcg.{n}")));
    v.extend(VmEvent::ALL.iter().map(|(_, n)| format!("vmstat.{n}")));
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
        ]
        .iter()
        .map(|s| s.to_string()),
    );
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
        row.push((k.zone.free * PAGE_SIZE) as f64);
        row.push((k.nr_file_pages() * PAGE_SIZE) as f64);
        row.push((k.vmstat.nr_dirty * PAGE_SIZE) as f64);
        row.push(k.kmem.percpu as f64);
        row.push(k.kmem.slab as f64);
        row.push(k.memcgs.descendants(MemcgId::ROOT).1 as f64);
        for d in &k.devices {
            row.push(d.read_bytes as f64);
            row.push(d.write_bytes as f64);
        }
        for (i, m) in k.memcgs.memcgs.iter().enumerate().take(self.memcgs) {
            row.push((m.counter.usage * PAGE_SIZE) as f64);
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
        let scn = crate::Document::from_toml("t.toml", "[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\n[tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n")
            .unwrap()
            .resolve(None, &[])
            .unwrap();
        let r = crate::simulate(&scn, &mut |_, _| true).unwrap();
        let names: Vec<String> = r.steps[0].metrics.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names, metric_names());
    }
}
