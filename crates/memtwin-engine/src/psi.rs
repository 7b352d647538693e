//! Pressure stall information for memory (kernel/sched/psi.c): how long tasks were stalled on
//! memory, per memcg (its `memory.pressure`, counting its descendants' tasks) and for the
//! machine (`/proc/pressure/memory`, the root).
//!
//! A task is in a memory stall between `psi_memstall_enter()` and `psi_memstall_leave()`:
//! direct and memcg limit reclaim (with their throttling sleeps), `reclaim_high()` and the
//! memory.high penalty sleep, direct compaction, and waiting for the read of a refaulting
//! workingset page (`folio_wait_bit_common()` on a `PG_workingset` page). `some` is the time
//! at least one task of the cgroup was stalled; `full` the time all of its non-idle tasks were.
//! The engine keeps one stall interval per task quantum (its stalls are added up and placed at
//! the quantum's start) and merges intervals per cgroup for `some`; `full` equals `some` in a
//! cgroup with one task and is not modelled (stays 0) with more.

use crate::kernel::Kernel;
use crate::types::{MemcgId, Nanos};

/// `PSI_FREQ`: the running averages are updated every 2 s plus a jiffy.
pub const PSI_FREQ: Nanos = 2 * crate::types::NSEC_PER_SEC + crate::types::NSEC_PER_SEC / crate::memcontrol::HZ;
/// `FSHIFT`/`FIXED_1`: the averages' fixed point (include/linux/sched/loadavg.h).
pub const FSHIFT: u32 = 11;
/// `FIXED_1`.
pub const FIXED_1: u64 = 1 << FSHIFT;
/// `EXP_10s`, `EXP_60s`: `1/exp(2s/10s)`, `1/exp(2s/60s)` in fixed point (kernel/sched/psi.c).
pub const EXP: [u64; 2] = [1677, 1981];

/// Per-cgroup memory pressure (`psi_group`): the totals (`total[PSI_MEM_SOME/FULL]`, ns) and
/// the running averages of `some` and `full` over 10 s and 60 s (`avg[][]`, fixed point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsiTotals {
    /// `some` stall time.
    pub some: Nanos,
    /// `full` stall time.
    pub full: Nanos,
    /// End of the latest stall interval merged into `some`.
    pub some_until: Nanos,
    /// `avg[PSI_MEM_SOME][0..2]`, `avg[PSI_MEM_FULL][0..2]` (10 s, 60 s).
    pub avg: [[u64; 2]; 2],
    /// `avg_total`: the totals the averages have seen.
    pub avg_total: [Nanos; 2],
    /// `avg_last_update`, `avg_next_update`.
    pub avg_last_update: Nanos,
    /// `avg_next_update` (0: not started).
    pub avg_next_update: Nanos,
}

/// `calc_load()` (kernel/sched/loadavg.c).
fn calc_load(load: u64, exp: u64, active: u64) -> u64 {
    let mut newload = load * exp + active * (FIXED_1 - exp);
    if active >= load {
        newload += FIXED_1 - 1;
    }
    newload / FIXED_1
}

impl PsiTotals {
    /// `update_averages()` at time `now`: for every `PSI_FREQ` period that ended, fold the
    /// stall share of the last one into the averages (`calc_avgs()`; periods without a sample
    /// decay them, `calc_load_n()` with no activity).
    pub fn update_averages(&mut self, now: Nanos) {
        if self.avg_next_update == 0 {
            self.avg_last_update = now;
            self.avg_next_update = now + PSI_FREQ;
            self.avg_total = [self.some, self.full];
            return;
        }
        if now < self.avg_next_update {
            return;
        }
        let missed = (now - self.avg_next_update) / PSI_FREQ;
        self.avg_next_update += (1 + missed) * PSI_FREQ;
        let period = now - (self.avg_last_update + missed * PSI_FREQ);
        self.avg_last_update = now;
        for (s, total) in [self.some, self.full].into_iter().enumerate() {
            let sample = (total - self.avg_total[s]).min(period);
            self.avg_total[s] += sample;
            for (i, &e) in EXP.iter().enumerate() {
                for _ in 0..missed {
                    self.avg[s][i] = calc_load(self.avg[s][i], e, 0);
                }
                let pct = sample * 100 / period.max(1) * FIXED_1;
                self.avg[s][i] = calc_load(self.avg[s][i], e, pct);
            }
        }
    }

    /// Add the stall `[start, end)` (merged into `some`, and into `full` when `full`), folding
    /// each `PSI_FREQ` period into the averages as its end is passed, as the kernel's
    /// `psi_avgs_work()` does every 2 s.
    pub fn add_stall(&mut self, start: Nanos, end: Nanos, full: bool) {
        self.update_averages(start);
        let mut t = start;
        while t < end {
            let seg_end = end.min(self.avg_next_update.max(t + 1));
            let from = t.max(self.some_until);
            if seg_end > from {
                self.some += seg_end - from;
                self.some_until = seg_end;
            }
            if full {
                self.full += seg_end - t;
            }
            t = seg_end;
            self.update_averages(t);
        }
    }

    /// The averages as memory.pressure prints them at `now` (`LOAD_INT.LOAD_FRAC` percent):
    /// [some avg10, some avg60, full avg10, full avg60].
    pub fn avgs_at(&self, now: Nanos) -> [f64; 4] {
        let mut p = *self;
        p.update_averages(now);
        let pct = |x: u64| (x >> FSHIFT) as f64 + (((x & (FIXED_1 - 1)) * 100) >> FSHIFT) as f64 / 100.0;
        [pct(p.avg[0][0]), pct(p.avg[0][1]), pct(p.avg[1][0]), pct(p.avg[1][1])]
    }
}

impl Kernel {
    /// `psi_memstall_enter()`: the running context starts a memory stall (nested calls count
    /// once).
    #[inline]
    pub fn psi_memstall_enter(&mut self) {
        if self.memstall_depth == 0 {
            self.memstall_start = self.now;
        }
        self.memstall_depth += 1;
    }

    /// `psi_memstall_leave()`.
    #[inline]
    pub fn psi_memstall_leave(&mut self) {
        self.memstall_depth -= 1;
        if self.memstall_depth == 0 {
            self.memstall_ns += self.now - self.memstall_start;
        }
    }

    /// `psi_task_change()` for a task of `memcg` that stalled `stall` ns in the quantum that
    /// began at `start`: merged into `some` of its cgroup and every ancestor up to the root
    /// (the machine), and into `full` where the cgroup's subtree holds that one task only.
    pub fn psi_account(&mut self, memcg: MemcgId, start: Nanos, stall: Nanos) {
        if stall == 0 || memcg == MemcgId::NONE {
            return;
        }
        let end = start + stall;
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let single = self.memcgs.memcgs[c.idx()].nr_tasks_subtree <= 1;
            self.memcgs.memcgs[c.idx()].psi.add_stall(start, end, single);
            cur = self.memcgs.memcgs[c.idx()].parent;
        }
    }
}
