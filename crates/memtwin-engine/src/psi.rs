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

/// Per-cgroup memory pressure totals (`psi_group`'s `total[PSI_MEM_SOME/FULL]`), ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsiTotals {
    /// `some` stall time.
    pub some: Nanos,
    /// `full` stall time.
    pub full: Nanos,
    /// End of the latest stall interval merged into `some`.
    pub some_until: Nanos,
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
            let single = self.memcgs.subtree_sum(c, |m| m.nr_tasks as u64) <= 1;
            let p = &mut self.memcgs.memcgs[c.idx()].psi;
            let from = start.max(p.some_until);
            if end > from {
                p.some += end - from;
                p.some_until = end;
            }
            if single {
                p.full += stall;
            }
            cur = self.memcgs.memcgs[c.idx()].parent;
        }
    }
}
