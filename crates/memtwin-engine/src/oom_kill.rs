//! The global OOM killer (mm/oom_kill.c, Linux 6.1): its choice of a victim
//! (`select_bad_process()` by `oom_badness()`) and the kill, for the two global callers the
//! engine has:
//!
//! - an order-0 allocation that gave up (`__alloc_pages_slowpath()` ->
//!   `__alloc_pages_may_oom()` -> `out_of_memory()`, [`Kernel::alloc_pages_may_oom`]): the
//!   victim is the worst task, whichever it is. Another task's memory is freed at the kill
//!   (its exit: `exit_mmap()`, or the oom_reaper's `__oom_reap_task_mm()` of a victim slow
//!   to exit) and the allocation retries (`did_some_progress = 1` -> `goto retry`); when the
//!   allocating task is the victim its allocation fails and the scheduler ends it and frees
//!   its mappings at its exit (sched.rs `oom_kill_task()`).
//! - kswapd under the multi-generational LRU when no memcg's oldest generation is older
//!   than `min_ttl_ms` (`lru_gen_age_node()`, lru_gen.rs, [`Kernel::out_of_memory`]): kswapd
//!   is no task the scenario runs; the victim is marked (`oom_victim`) and the scheduler
//!   kills it after the quantum (its step ended as `oom_killed`, its mappings freed as
//!   `exit_mmap()` does).
//!
//! A memcg's OOM (`mem_cgroup_out_of_memory()`, memcontrol.rs) is separate: the charging
//! task is killed there. The tasks the kernel knows are the scenario's tasks that have not
//! exited (`oom_tasks`, on every profile); processes outside the scenario (a real machine's
//! init, the lab's own program) are not candidates: scenarios that record this kill give
//! the victim far more memory than those hold.

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::swapfile::NO_SLOT;
use crate::types::MemcgId;
use crate::vmstat::VmEvent;

/// A task as the OOM killer sees it (`for_each_process()`): alive, and the memcg of its mm
/// (`memcg_memory_event_mm()` counts the kill there).
#[derive(Clone, Copy, Debug)]
pub struct OomTask {
    /// Created and not exited: a candidate.
    pub live: bool,
    /// Its memcg.
    pub memcg: MemcgId,
}

impl Kernel {
    /// Task `mm` is created in `memcg` (`copy_process()`): a candidate of the OOM killer.
    pub fn oom_task_add(&mut self, mm: u32, memcg: MemcgId) {
        let i = mm as usize;
        if self.oom_tasks.len() <= i {
            self.oom_tasks.resize(i + 1, OomTask { live: false, memcg: MemcgId::ROOT });
            self.oom_points.resize(i + 1, 0);
        }
        self.oom_tasks[i] = OomTask { live: true, memcg };
        // Room for every task's kill without a later allocation.
        self.oom_killed.reserve(self.oom_tasks.len().saturating_sub(self.oom_killed.capacity()));
    }

    /// Task `mm` moved to `to` (`cgroup_attach_task()`).
    pub fn oom_task_migrate(&mut self, mm: u32, to: MemcgId) {
        if let Some(t) = self.oom_tasks.get_mut(mm as usize) {
            t.memcg = to;
        }
    }

    /// `oom_badness()` (mm/oom_kill.c, 6.1) of task `mm` with `oom_score_adj` 0 (no
    /// scenario sets it): `get_mm_rss()` (the pages its mappings map: anonymous, file and
    /// private copies) plus `MM_SWAPENTS` (its swapped-out pages) plus
    /// `mm_pgtables_bytes() / PAGE_SIZE` (its page-table pages, `Vma::nr_ptes`).
    pub fn oom_badness(&self, mm: u32) -> u64 {
        self.vmas.iter().filter(|v| v.live && v.mm == mm).map(vma_badness).sum()
    }

    /// `select_bad_process()` -> `oom_evaluate_task()` (6.1) over every live task in creation
    /// order (`for_each_process`): none while a victim chosen before has not exited yet
    /// (`tsk_is_oom_victim()`: "abort"); else the task with the highest `oom_badness()`, the
    /// later one on a tie (`points < oc->chosen_points` skips, equal selects). The points of
    /// every task come from one pass over the mappings (`oom_points`, sized at task creation).
    pub fn select_bad_process(&mut self) -> Option<u32> {
        if self.oom_victim.is_some() {
            return None;
        }
        self.oom_points.fill(0);
        for v in self.vmas.iter().filter(|v| v.live) {
            if let Some(p) = self.oom_points.get_mut(v.mm as usize) {
                *p += vma_badness(v);
            }
        }
        let mut chosen: Option<(u32, u64)> = None;
        for (i, t) in self.oom_tasks.iter().enumerate() {
            if !t.live {
                continue;
            }
            let points = self.oom_points[i];
            if chosen.is_none_or(|(_, c)| points >= c) {
                chosen = Some((i as u32, points));
            }
        }
        chosen.map(|(i, _)| i)
    }

    /// `__oom_kill_process()`'s counters of the kill of `victim`: `OOM_KILL` in /proc/vmstat
    /// and `MEMCG_OOM_KILL` in the victim's memcg (`memcg_memory_event_mm()`), both from 4.13
    /// (`KernelProfile::oom_kill_events`, 8e675f7af507); before, neither exists.
    fn count_oom_kill(&mut self, victim: u32) {
        if self.profile.oom_kill_events {
            let memcg = self.oom_tasks[victim as usize].memcg;
            self.vmstat.count(VmEvent::OomKill, 1);
            self.memcgs.count_event(memcg, MemcgEvent::OomKill, 1);
        }
    }

    /// `out_of_memory()` (6.1) without a memcg or nodemask (`CONSTRAINT_NONE`), as
    /// `lru_gen_age_node()` calls it from kswapd (`gfp_mask` `GFP_KERNEL`: `__GFP_FS` set,
    /// so it goes on): choose a victim (`select_bad_process()`), count the kill
    /// (`__oom_kill_process()`) and mark it (`mark_oom_victim()`); the scheduler carries the
    /// kill out. Returns whether a victim was chosen (false also while an earlier one has
    /// not exited).
    pub fn out_of_memory(&mut self) -> bool {
        let Some(victim) = self.select_bad_process() else { return false };
        self.count_oom_kill(victim);
        self.oom_victim = Some(victim);
        true
    }

    /// `__alloc_pages_may_oom()` -> `out_of_memory()` (6.1 mm/page_alloc.c, mm/oom_kill.c)
    /// of an order-0 allocation of the running task (`cur_mm`) whose reclaim retries are
    /// spent. Returns whether the allocation retries (`*did_some_progress = 1`):
    /// - a victim marked before (kswapd's) that has not exited: `select_bad_process()` aborts
    ///   and the allocation retries; its memory is freed now (the oom_reaper's work, or its
    ///   exit). When it is the allocating task itself, the allocation fails.
    /// - else `select_bad_process()`'s victim is killed (`__oom_kill_process()`, counted from
    ///   4.13). Another task exits at once: its mappings are unmapped (`exit_mmap()`: the
    ///   anonymous pages and page tables freed, the files' pages unmapped) and it leaves the
    ///   candidates; the allocation retries. The allocating task itself: the allocation fails
    ///   (the kernel retries it with `ALLOC_OOM` access to the reserves until the task sees
    ///   its SIGKILL; here the fault or read ends at once) and the scheduler ends the task
    ///   and frees its mappings at its exit.
    /// - no candidate (the kernel panics, "System is deadlocked on memory"): it fails.
    ///
    /// Each retry follows the exit of another task, so an allocation kills each task at most
    /// once. Not modelled: `__alloc_pages_may_oom()`'s last attempt at the high watermark
    /// (the attempt at the min watermark just failed), the oom_lock's sleep of a second
    /// allocator (one context allocates at a time), and the CPU time of the victim's exit on
    /// its own CPU (charged to the allocating task, which waits for it).
    pub(crate) fn alloc_pages_may_oom(&mut self) -> bool {
        let current = self.cur_mm;
        if self.oom_killed.contains(&current) {
            // task_will_free_mem(current): a victim already (its SIGKILL pending).
            return false;
        }
        if let Some(v) = self.oom_victim {
            if v == current {
                return false;
            }
            self.oom_victim = None;
            self.oom_exit_mm(v);
            return true;
        }
        let Some(victim) = self.select_bad_process() else { return false };
        self.count_oom_kill(victim);
        self.oom_killed.push(victim);
        if victim == current {
            return false;
        }
        self.oom_exit_mm(victim);
        true
    }

    /// The exit of OOM victim `mm` while another task allocates (`do_exit()` -> `exit_mm()`
    /// -> `exit_mmap()`): each of its mappings unmapped (`do_munmap()`, the file it maps
    /// released as `fput()`), and it leaves the OOM killer's candidates and its memcg's mm
    /// list. The scheduler ends its step at the end of the quantum (`oom_killed`).
    fn oom_exit_mm(&mut self, mm: u32) {
        self.exit_mmap(mm);
        self.task_exit_mm(mm);
        if !self.oom_killed.contains(&mm) {
            self.oom_killed.push(mm);
        }
    }

    /// `exit_mmap()` of task `mm`: each of its live mappings unmapped (`do_munmap()`, in the
    /// order of the mapping table) and the file it maps released (`fput()`).
    pub fn exit_mmap(&mut self, mm: u32) {
        for i in 0..self.vmas.len() {
            let v = &self.vmas[i];
            if !v.live || v.mm != mm {
                continue;
            }
            let inode = v.file.as_ref().map(|f| f.inode);
            self.do_munmap(crate::memory::VmaId(i as u32));
            if let Some(inode) = inode {
                self.dput(inode);
            }
        }
    }

    /// The exit of task `mm` (`do_exit()` -> `exit_mm()` -> `mmput()` -> `lru_gen_del_mm()`):
    /// it is no longer a candidate of the OOM killer nor on its memcg's mm list.
    pub fn task_exit_mm(&mut self, mm: u32) {
        self.lru_gen_del_mm(mm);
        if let Some(t) = self.oom_tasks.get_mut(mm as usize) {
            t.live = false;
        }
        if self.oom_victim == Some(mm) {
            self.oom_victim = None;
        }
    }
}

/// One mapping's share of `oom_badness()`: its resident pages, swap entries and page tables.
fn vma_badness(v: &crate::memory::Vma) -> u64 {
    let swapents = v.swap.iter().filter(|&&s| s != NO_SLOT).count() as u64;
    v.nr_resident + swapents + v.nr_ptes
}
