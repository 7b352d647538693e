//! The global OOM killer's choice of a victim (mm/oom_kill.c, Linux 6.1), for the OOM kill
//! that kswapd invokes under the multi-generational LRU when no memcg's oldest generation is
//! older than `min_ttl_ms` (`lru_gen_age_node()`, lru_gen.rs).
//!
//! The allocation-path OOMs (a memcg that cannot reclaim, a global allocation that runs out
//! of retries) fail the allocating task's op, which the scheduler ends as killed; this one
//! comes from kswapd, which is no task the scenario runs, so the victim is chosen the
//! kernel's way (`select_bad_process()` by `oom_badness()`) among the scenario's tasks, and
//! the scheduler kills it (sched.rs: the SIGKILL, its step ended as `oom_killed`, its
//! mappings freed as `exit_mmap()` does). The tasks the kernel knows are those whose mms are
//! on the memcgs' mm lists (`Kernel::lru_gen_mms`, kept under `kernel.lru_gen`): a task
//! leaves them when it exits. Processes outside the scenario (a real machine's init, the
//! lab's own program) are not candidates: scenarios that record this kill give the victim
//! far more memory than those hold.

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::swapfile::NO_SLOT;
use crate::vmstat::VmEvent;

impl Kernel {
    /// `oom_badness()` (mm/oom_kill.c, 6.1) of task `mm` with `oom_score_adj` 0 (no
    /// scenario sets it): `get_mm_rss()` (the pages its mappings map: anonymous, file and
    /// private copies) plus `MM_SWAPENTS` (its swapped-out pages) plus
    /// `mm_pgtables_bytes() / PAGE_SIZE` (its page-table pages, `Vma::nr_ptes`).
    pub fn oom_badness(&self, mm: u32) -> u64 {
        let Some(m) = self.lru_gen_mms.get(mm as usize) else { return 0 };
        m.vmas
            .iter()
            .map(|&vma| {
                let v = &self.vmas[vma.0 as usize];
                let swapents = v.swap.iter().filter(|&&s| s != NO_SLOT).count() as u64;
                v.nr_resident + swapents + v.nr_ptes
            })
            .sum()
    }

    /// `select_bad_process()` -> `oom_evaluate_task()` (6.1) over every live task in creation
    /// order (`for_each_process`): none while a victim chosen before has not exited yet
    /// (`tsk_is_oom_victim()`: "abort"); else the task with the highest `oom_badness()`, the
    /// later one on a tie (`points < oc->chosen_points` skips, equal selects).
    pub fn select_bad_process(&self) -> Option<u32> {
        if self.oom_victim.is_some() {
            return None;
        }
        let mut chosen: Option<(u32, u64)> = None;
        for (i, m) in self.lru_gen_mms.iter().enumerate() {
            if !m.listed {
                continue;
            }
            let points = self.oom_badness(i as u32);
            if chosen.is_none_or(|(_, c)| points >= c) {
                chosen = Some((i as u32, points));
            }
        }
        chosen.map(|(i, _)| i)
    }

    /// `out_of_memory()` (6.1) without a memcg or nodemask (`CONSTRAINT_NONE`), as
    /// `lru_gen_age_node()` calls it from kswapd (`gfp_mask` `GFP_KERNEL`: `__GFP_FS` set,
    /// so it goes on): choose a victim (`select_bad_process()`), count the kill
    /// (`__oom_kill_process()`: `OOM_KILL` in /proc/vmstat, `MEMCG_OOM_KILL` in the victim's
    /// memcg) and mark it (`mark_oom_victim()`); the scheduler carries the kill out. Returns
    /// whether a victim was chosen (false also while an earlier one has not exited).
    pub fn out_of_memory(&mut self) -> bool {
        let Some(victim) = self.select_bad_process() else { return false };
        let memcg = self.lru_gen_mms[victim as usize].memcg;
        self.vmstat.count(VmEvent::OomKill, 1);
        self.memcgs.count_event(memcg, MemcgEvent::OomKill, 1);
        self.oom_victim = Some(victim);
        true
    }

    /// `__alloc_pages_may_oom()` -> `out_of_memory()` -> `__oom_kill_process()` of an
    /// allocation that gave up: /proc/vmstat `oom_kill` counts the kill from 4.13
    /// (`KernelProfile::oom_kill_events`, 8e675f7af507); before, the counter does not exist
    /// and nothing is counted. (The engine fails the allocation and kills the allocating task.)
    pub fn count_global_oom_kill(&mut self) {
        if self.profile.oom_kill_events {
            self.vmstat.count(VmEvent::OomKill, 1);
        }
    }

    /// The exit of task `mm` (`do_exit()` -> `exit_mm()` -> `mmput()` -> `lru_gen_del_mm()`):
    /// it is no longer a candidate of the OOM killer nor on its memcg's mm list.
    pub fn task_exit_mm(&mut self, mm: u32) {
        self.lru_gen_del_mm(mm);
        if self.oom_victim == Some(mm) {
            self.oom_victim = None;
        }
    }
}
