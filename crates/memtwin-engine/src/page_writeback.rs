//! Dirty pages and writeback (mm/page-writeback.c, fs/fs-writeback.c).
//!
//! Dirty pages are written back by the flusher when the machine's dirty pages pass
//! `dirty_background_ratio` of dirtyable memory, when reclaim meets them, and on fsync. A
//! writer is throttled in `balance_dirty_pages()` above `dirty_ratio` until the device has
//! caught up. A page being written is clean and `PG_writeback` until its request completes
//! on the device (`folio_end_writeback()`, run by [`Kernel::writeback_end_io`] whenever the
//! clock has passed the completion); reclaim cannot free it until then.

use crate::blkdev::Dir;
use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::{InodeId, MemcgId, Nanos, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// `MIN_WRITEBACK_PAGES` (fs/fs-writeback.c): the flusher writes an inode in chunks of at
/// least 4 MiB (`writeback_chunk_size()` rounds down to it).
pub const MIN_WRITEBACK_PAGES: u64 = 1024;
/// `DIRTY_SCOPE` (mm/page-writeback.c): `writeback_chunk_size()` takes at most 1/8 of the
/// global dirty limit.
pub const DIRTY_SCOPE: u64 = 8;
/// `dirty_writeback_interval` (mm/page-writeback.c, `vm.dirty_writeback_centisecs`, 500
/// centisecs since 2.6.x): the flusher wakes this long after a writeback domain gets its first
/// dirty inode, and again after each run while it has dirty inodes (`wb_wakeup_delayed()`).
pub const DIRTY_WRITEBACK_INTERVAL: Nanos = 5_000_000_000;
/// `dirty_expire_interval` (mm/page-writeback.c, `vm.dirty_expire_centisecs`, 3000 centisecs
/// since 2.6.x): kupdate writeback writes an inode once it has been dirty this long.
pub const DIRTY_EXPIRE_INTERVAL: Nanos = 30_000_000_000;
/// `VM_COMPLETIONS_PERIOD_LEN` (mm/page-writeback.c, 3 s since 3.5's flexible proportions):
/// the period after which the writeback domains' completion counts are halved.
pub const VM_COMPLETIONS_PERIOD_LEN: Nanos = 3_000_000_000;

/// The inodes with dirty pages, oldest first (the bdi's `b_dirty` list, one for all wbs): a
/// doubly linked list through per-inode links, so that adding, removing and testing an inode
/// cost the same whatever the number of files.
#[derive(Clone, Debug, Default)]
pub struct DirtyInodes {
    head: u32,
    tail: u32,
    /// Per inode: (previous, next), `NIL` at the ends; `(ABSENT, ABSENT)` off the list.
    links: Vec<(u32, u32)>,
    len: usize,
}

const NIL: u32 = u32::MAX;
const ABSENT: u32 = u32::MAX - 1;

impl DirtyInodes {
    /// An empty list.
    pub fn new() -> Self {
        DirtyInodes { head: NIL, tail: NIL, links: vec![], len: 0 }
    }

    /// Inodes on the list.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No inode on the list.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `inode` is on the list.
    pub fn contains(&self, inode: InodeId) -> bool {
        self.links.get(inode.idx()).is_some_and(|l| l.0 != ABSENT)
    }

    /// Put `inode` at the tail (`inode_io_list_move_locked(inode, wb, &wb->b_dirty)`), unless
    /// it is on the list.
    pub fn push_back(&mut self, inode: InodeId) {
        if self.contains(inode) {
            return;
        }
        if self.links.len() <= inode.idx() {
            self.links.resize(inode.idx() + 1, (ABSENT, ABSENT));
        }
        self.links[inode.idx()] = (self.tail, NIL);
        if self.tail == NIL {
            self.head = inode.0;
        } else {
            self.links[self.tail as usize].1 = inode.0;
        }
        self.tail = inode.0;
        self.len += 1;
    }

    /// Take `inode` off the list, if it is on it.
    pub fn remove(&mut self, inode: InodeId) {
        if !self.contains(inode) {
            return;
        }
        let (prev, next) = self.links[inode.idx()];
        if prev == NIL {
            self.head = next;
        } else {
            self.links[prev as usize].1 = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.links[next as usize].0 = prev;
        }
        self.links[inode.idx()] = (ABSENT, ABSENT);
        self.len -= 1;
    }

    /// The oldest inode.
    pub fn first(&self) -> Option<InodeId> {
        (self.head != NIL).then_some(InodeId(self.head))
    }

    /// The inode after `inode` (which must be on the list).
    pub fn next(&self, inode: InodeId) -> Option<InodeId> {
        let n = self.links[inode.idx()].1;
        (n != NIL).then_some(InodeId(n))
    }

    /// Every inode, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = InodeId> + '_ {
        std::iter::successors(self.first(), move |&i| self.next(i))
    }
}

/// `struct dirty_throttle_control` of one writeback domain, in pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirtyThrottleControl {
    /// Dirtyable memory (`avail`).
    pub avail: u64,
    /// Dirty pages (`NR_FILE_DIRTY`: what the flusher can write).
    pub nr_dirty: u64,
    /// Dirty plus writeback pages (`dtc->dirty`).
    pub dirty: u64,
    /// `thresh`: `vm.dirty_ratio` of `avail`.
    pub thresh: u64,
    /// `bg_thresh`: `vm.dirty_background_ratio` of `avail` (half of `thresh` if not below it).
    pub bg_thresh: u64,
}

impl DirtyThrottleControl {
    /// `domain_dirty_limits()` with ratios (the byte settings are 0 by default).
    pub fn new(avail: u64, nr_dirty: u64, nr_writeback: u64, ratio: u32, bg_ratio: u32) -> Self {
        let thresh = avail * ratio as u64 / 100;
        let mut bg_thresh = avail * bg_ratio as u64 / 100;
        if bg_thresh >= thresh {
            bg_thresh = thresh / 2;
        }
        DirtyThrottleControl { avail, nr_dirty, dirty: nr_dirty + nr_writeback, thresh, bg_thresh }
    }

    /// `dirty_freerun_ceiling()`: below it a writer is not throttled at all.
    pub fn freerun(&self) -> u64 {
        (self.thresh + self.bg_thresh) / 2
    }

    /// The setpoint of `wb_position_ratio()`: `(freerun + limit) / 2`, where the writer's
    /// rate equals the write bandwidth.
    pub fn setpoint(&self) -> u64 {
        (self.freerun() + self.thresh) / 2
    }
}

impl Kernel {
    /// `folio_mark_dirty()`: set `PG_dirty`, account it, and queue the inode for writeback.
    pub fn folio_mark_dirty(&mut self, page: PageId) {
        if self.pages[page].test(pg::DIRTY) {
            return;
        }
        self.cpu(self.cost.dirty_page);
        self.pages[page].flags |= pg::DIRTY;
        // folio_account_dirtied(): /proc/<pid>/io write_bytes counts the task that dirties a
        // page (task_io_account_write()), whoever writes it back later.
        self.io.write_bytes += PAGE_SIZE;
        let inode = self.pages[page].mapping;
        let index = self.pages[page].index;
        let now = self.now;
        let m = &mut self.mappings[inode.idx()];
        m.dirty_hint = m.dirty_hint.min(index);
        let was_clean = m.nrdirty == 0;
        if was_clean {
            // __mark_inode_dirty(): dirtied_when is set when the inode becomes dirty.
            m.dirtied_when = now;
            self.dirty_inodes.push_back(inode);
        }
        m.nrdirty += 1;
        self.vmstat.nr_dirty += 1;
        let memcg = self.pages[page].memcg;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty += 1;
        }
        self.inode_attach_wb(inode, memcg);
        let key = self.inode_wb_key(inode);
        if self.wb_dirty.len() <= key as usize {
            self.wb_dirty.resize(key as usize + 1, 0);
        }
        self.wb_dirty[key as usize] += 1;
        if was_clean {
            // The inode goes on its wb's b_dirty list: the wb's flusher is woken in
            // dirty_writeback_interval if it is not already due (wb_wakeup_delayed()).
            self.wb_wakeup_delayed(key);
        }
    }

    /// The writeback domain of `inode` as a timer key: 0 the bdi's root wb, memcg index + 1 a
    /// memcg's wb (cgroup v2 writeback, `inode_to_wb()`).
    pub(crate) fn inode_wb_key(&self, inode: InodeId) -> u32 {
        match self.inode_wb.get(inode.idx()) {
            Some(&m) if m != MemcgId::NONE && m != MemcgId::ROOT => m.0 + 1,
            _ => 0,
        }
    }

    /// `wb_wakeup_delayed()`: queue the wb's flusher work `dirty_writeback_interval` from now,
    /// unless it is already queued (`queue_delayed_work()` leaves a pending work alone).
    pub fn wb_wakeup_delayed(&mut self, key: u32) {
        let k = key as usize;
        if self.wb_timer_armed.len() <= k {
            self.wb_timer_armed.resize(k + 1, false);
        }
        if !self.wb_timer_armed[k] {
            self.wb_timer_armed[k] = true;
            self.wb_timers.push(std::cmp::Reverse((self.now + DIRTY_WRITEBACK_INTERVAL, key)));
        }
    }

    /// Run every periodic flusher wake-up due by `until`, in time order, each at its own time
    /// (`wb_workfn()` of a wb whose delayed work expired): `wb_check_old_data_flush()`, then
    /// `wb_check_background_flush()`, then re-queue itself while the wb has dirty inodes. The
    /// clock is left at the last wake-up run (callers set it to `until` after).
    pub fn wb_run_timers(&mut self, until: Nanos) {
        while let Some(&std::cmp::Reverse((t, key))) = self.wb_timers.peek() {
            if t > until {
                break;
            }
            self.wb_timers.pop();
            self.wb_timer_armed[key as usize] = false;
            self.now = t;
            self.writeback_end_io();
            let dirty_left = self.wb_check_old_data_flush(key);
            let wb = if key == 0 { None } else { Some(MemcgId(key - 1)) };
            if self.wb_over_bg_thresh(wb) {
                self.wb_background_writeback(wb);
            }
            if dirty_left {
                self.wb_wakeup_delayed(key);
            }
        }
    }

    /// `wb_check_old_data_flush()` -> `wb_writeback()` with `for_kupdate`: write back every
    /// inode of wb `key` dirtied at least `dirty_expire_interval` ago (`queue_io()` moves only
    /// those from `b_dirty` to `b_io`; the work loops over them, `writeback_chunk_size()` at a
    /// time, until none is left), oldest first. Returns whether the wb still has dirty inodes
    /// (`wb_has_dirty_io()`).
    fn wb_check_old_data_flush(&mut self, key: u32) -> bool {
        let expired_before = self.now.saturating_sub(DIRTY_EXPIRE_INTERVAL);
        let mut dirty_left = false;
        let mut cur = self.dirty_inodes.first();
        while let Some(inode) = cur {
            cur = self.dirty_inodes.next(inode);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.remove(inode);
                continue;
            }
            if self.inode_wb_key(inode) != key {
                continue;
            }
            // inode_dirtied_after(inode, dirtied_before) keeps the young ones on b_dirty.
            if self.mappings[inode.idx()].dirtied_when > expired_before {
                dirty_left = true;
                continue;
            }
            self.writeback_inode(inode, u64::MAX);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.remove(inode);
            } else {
                dirty_left = true;
            }
        }
        dirty_left
    }

    /// `inode_attach_wb()`: the inode's writeback domain is fixed by its first dirtying: the
    /// memcg of the task that did it (cgroup v2, 4.2+), else the bdi's root wb
    /// (`MemcgId::ROOT`); the foreign-inode switching of `wbc_detach_inode()` is not modelled.
    fn inode_attach_wb(&mut self, inode: InodeId, memcg: MemcgId) {
        if self.inode_wb.len() <= inode.idx() {
            self.inode_wb.resize(self.mappings.len().max(inode.idx() + 1), MemcgId::NONE);
        }
        if self.inode_wb[inode.idx()] == MemcgId::NONE {
            self.inode_wb[inode.idx()] = self.memcg_wb_domain(memcg).unwrap_or(MemcgId::ROOT);
        }
    }

    /// `global_dirtyable_memory()`: free pages plus page-cache pages.
    pub fn global_dirtyable_memory(&self) -> u64 {
        self.nr_free_pages() + self.nr_file_pages()
    }

    /// The global domain's `dirty_throttle_control` (`domain_dirty_limits()` on
    /// `global_dirtyable_memory()`, `vm.dirty_ratio` and `vm.dirty_background_ratio`).
    pub fn global_dirty_limits(&self) -> DirtyThrottleControl {
        let avail = self.global_dirtyable_memory();
        DirtyThrottleControl::new(
            avail,
            self.vmstat.nr_dirty,
            self.vmstat.nr_writeback,
            self.profile.dirty_ratio,
            self.profile.dirty_background_ratio,
        )
    }

    /// `throttle_vm_writeout()` (mm/page-writeback.c, 2.6-4.8), called at the end of
    /// `shrink_lruvec()`: while the pages under writeback exceed the global dirty threshold
    /// plus a tenth ("Boost the allowable dirty threshold a bit for page allocators so they
    /// don't get DoS'ed by heavy writers"), sleep `congestion_wait(BLK_RW_ASYNC, HZ/10)` and
    /// look again. Reclaim's allocations here are `GFP_KERNEL`-like (`__GFP_FS | __GFP_IO`),
    /// so the loop does not give up after one sleep. kswapd too.
    pub fn throttle_vm_writeout(&mut self) {
        loop {
            let g = self.global_dirty_limits();
            let thresh = g.thresh + g.thresh / 10;
            if self.vmstat.nr_writeback <= thresh {
                return;
            }
            let before = self.now;
            self.congestion_wait(crate::vmscan::RECLAIM_THROTTLE);
            self.writeback_end_io();
            self.swap_end_io();
            if self.now == before {
                return; // nothing in flight: nothing will complete
            }
        }
    }

    /// `mem_cgroup_wb_stats()`: (file LRU pages, headroom, dirty, writeback) of `memcg`'s
    /// writeback domain; the counts are hierarchical, the headroom is the smallest
    /// `min(memory.max, memory.high) - usage` from `memcg` up to, not including, the root.
    pub fn mem_cgroup_wb_stats(&self, memcg: MemcgId) -> (u64, u64, u64, u64) {
        let t = &self.memcgs;
        let filepages = t.subtree_sum(memcg, |m| m.nr_file - m.nr_shmem);
        let dirty = t.subtree_sum(memcg, |m| m.nr_dirty);
        let writeback = t.subtree_sum(memcg, |m| m.nr_writeback);
        let mut headroom = crate::memcontrol::PAGE_COUNTER_MAX;
        let mut cur = memcg;
        while let Some(parent) = t.get(cur).parent {
            let pc = &t.get(cur).counter;
            let ceiling = pc.max.min(pc.high);
            headroom = headroom.min(ceiling - ceiling.min(pc.usage));
            cur = parent;
        }
        (filepages, headroom, dirty, writeback)
    }

    /// The writeback domain `wb` of a writer's memcg, when it has one of its own: cgroup
    /// writeback (`KernelProfile::cgroup_writeback`, cgroup v2 only) and not the root.
    pub fn memcg_wb_domain(&self, memcg: MemcgId) -> Option<MemcgId> {
        let own = self.profile.cgroup_writeback
            && self.memcgs.version == crate::memcontrol::CgroupVersion::V2
            && memcg != MemcgId::NONE
            && memcg != MemcgId::ROOT;
        own.then_some(memcg)
    }

    /// The memcg domain's `dirty_throttle_control`: `mem_cgroup_wb_stats()` then
    /// `mdtc_calc_avail()` (file pages plus the headroom, at most the clean pages outside the
    /// memcg) and `domain_dirty_limits()` with the same ratios as the global domain.
    pub fn memcg_dirty_limits(&self, memcg: MemcgId, gdtc: &DirtyThrottleControl) -> DirtyThrottleControl {
        let (filepages, headroom, dirty, writeback) = self.mem_cgroup_wb_stats(memcg);
        let clean = filepages - filepages.min(dirty + writeback);
        let global_clean = gdtc.avail - gdtc.avail.min(gdtc.dirty);
        let other_clean = global_clean - global_clean.min(clean);
        let avail = filepages + headroom.min(other_clean);
        DirtyThrottleControl::new(avail, dirty, writeback, self.profile.dirty_ratio, self.profile.dirty_background_ratio)
    }

    /// `balance_dirty_pages()` after a write to `inode` by a task in `memcg`, against the
    /// global domain and, on cgroup v2 from 4.2, the inode's memcg's (its `wb`). Below the
    /// free-run ceiling of both (`dirty_freerun_ceiling()`, halfway between the background
    /// and the hard threshold) the writer runs free and nothing starts. Above it the wb's
    /// background writeback starts (`wb_start_background_writeback()`) and the writer is
    /// paused until its domains are back under their setpoint (`wb_position_ratio()`: halfway
    /// between the ceiling and the limit); the pause is modelled as a wait for completions
    /// rather than the kernel's computed sleep, so the writer ends up at the device's write
    /// bandwidth with the domain at its setpoint, as pos_ratio steers it. On the way out,
    /// global dirty pages above the background threshold start background writeback too.
    pub fn balance_dirty_pages(&mut self, inode: InodeId, memcg: MemcgId) {
        let wb = self.inode_wb.get(inode.idx()).copied().filter(|&m| m != MemcgId::NONE).unwrap_or(memcg);
        let wb = self.memcg_wb_domain(wb);
        let g = self.global_dirty_limits();
        let freerun = g.dirty <= g.freerun()
            && wb.is_none_or(|m| {
                let md = self.memcg_dirty_limits(m, &g);
                md.dirty <= md.freerun()
            });
        if !freerun {
            self.wb_background_writeback(wb);
            loop {
                let g = self.global_dirty_limits();
                let over = g.dirty > g.setpoint()
                    || wb.is_some_and(|m| {
                        let md = self.memcg_dirty_limits(m, &g);
                        md.dirty > md.setpoint()
                    });
                if !over {
                    break;
                }
                let Some(&std::cmp::Reverse((t, _, _, _))) = self.wb_queue.peek() else { break };
                self.stalled(crate::delayacct::StallKind::Dirty, |k| k.wait_until(t));
                self.writeback_end_io();
            }
        }
        let g = self.global_dirty_limits();
        if g.nr_dirty > g.bg_thresh {
            self.wb_background_writeback(wb);
        }
    }

    /// `wb_over_bg_thresh()` (4.2+; `over_bground_thresh()` of the bdi before): the global
    /// domain's dirty pages above its background threshold, or the wb's own dirty pages above
    /// its share of it ([`Kernel::wb_calc_thresh`]); with cgroup writeback, the same against
    /// the memcg domain's threshold (whose share 6.1 still takes from the global domain:
    /// `wb_calc_thresh(mdtc->wb, ...)` builds a global `dirty_throttle_control`). `None` is
    /// the bdi's root wb.
    pub fn wb_over_bg_thresh(&self, wb: Option<MemcgId>) -> bool {
        let g = self.global_dirty_limits();
        if g.nr_dirty > g.bg_thresh {
            return true;
        }
        let key = wb.map_or(0, |m| m.0 + 1);
        let reclaimable = self.wb_dirty.get(key as usize).copied().unwrap_or(0);
        if reclaimable > self.wb_calc_thresh(key, g.bg_thresh, g.nr_dirty) {
            return true;
        }
        wb.is_some_and(|m| {
            let md = self.memcg_dirty_limits(m, &g);
            md.nr_dirty > md.bg_thresh || reclaimable > self.wb_calc_thresh(key, md.bg_thresh, g.nr_dirty)
        })
    }

    /// `wb_calc_thresh()` / `__wb_calc_thresh()`: wb `key`'s share of `thresh`, in proportion to
    /// its part of the global domain's recent write completions (`fprop_fraction_percpu()`;
    /// bdi min_ratio 0 and max_ratio 100, the defaults). A wb that has completed no write yet
    /// gets 0, so the flusher's next wake-up finds it over its background threshold. From
    /// v6.14 (Jim Zhao, "mm/page-writeback: raise wb_thresh to prevent write blocking with
    /// strictlimit") a wb gets at least 1/8 of what the domain has left under `thresh`
    /// (`KernelProfile::wb_thresh_floor`); `dirty` is the domain's dirty pages.
    pub fn wb_calc_thresh(&self, key: u32, thresh: u64, dirty: u64) -> u64 {
        let (g, _) = self.wb_domain_at(self.now);
        let local = self.wb_completions.get(key as usize).copied().unwrap_or_default();
        let (num, den) = g.fraction(&local);
        let mut wb_thresh = (thresh as u128 * num as u128 / den as u128) as u64;
        if self.profile.wb_thresh_floor && thresh > dirty {
            wb_thresh = wb_thresh.max((thresh - dirty) / 8);
        }
        wb_thresh.min(thresh)
    }

    /// The global writeback domain as its period timer (`writeout_period()`, every
    /// `VM_COMPLETIONS_PERIOD_LEN`) leaves it at `t`: each period halves the events
    /// (`fprop_new_period()`), and the timer stops when at most one event is left.
    fn wb_domain_at(&self, t: Nanos) -> (crate::flex_proportions::FpropGlobal, Nanos) {
        let (mut g, mut period_time) = self.wb_domain;
        while period_time != 0 && period_time <= t {
            if g.new_period(1) {
                period_time += VM_COMPLETIONS_PERIOD_LEN;
            } else {
                period_time = 0;
            }
        }
        (g, period_time)
    }

    /// `wb_domain_writeout_add()` from `__wb_writeout_add()` (`folio_end_writeback()` of a wb
    /// with `BDI_CAP_WRITEBACK_ACCT`): `nr` pages of wb `key` completed at `t`; the first event
    /// after the period timer stopped starts it again (`wp_next_time()`).
    fn wb_writeout_add(&mut self, key: u32, nr: u64, t: Nanos) {
        let (mut g, mut period_time) = self.wb_domain_at(t);
        if self.wb_completions.len() <= key as usize {
            self.wb_completions.resize(key as usize + 1, Default::default());
        }
        g.add(&mut self.wb_completions[key as usize], nr);
        if period_time == 0 {
            period_time = t + VM_COMPLETIONS_PERIOD_LEN;
        }
        self.wb_domain = (g, period_time);
    }

    /// `writeback_chunk_size()` (fs/fs-writeback.c, 3.2+) for background and kupdate work
    /// (`WB_SYNC_NONE`, `work->nr_pages` unbounded): pages written of one inode before the
    /// flusher moves on, `round_down(min(wb->avg_write_bandwidth / 2, dirty_limit /
    /// DIRTY_SCOPE) + MIN_WRITEBACK_PAGES, MIN_WRITEBACK_PAGES)`. `wb->avg_write_bandwidth` is
    /// taken as what `wb_update_write_bandwidth()` converges to, the device's write bandwidth,
    /// and `global_wb_domain.dirty_limit` as the global hard threshold.
    pub fn writeback_chunk_size(&self, write_bw_bytes: u64) -> u64 {
        let bw_pages = write_bw_bytes / PAGE_SIZE;
        let pages = (bw_pages / 2).min(self.global_dirty_limits().thresh / DIRTY_SCOPE);
        (pages + MIN_WRITEBACK_PAGES) / MIN_WRITEBACK_PAGES * MIN_WRITEBACK_PAGES
    }

    /// `wb_start_background_writeback()` and the flusher's background work (`wb_writeback()`
    /// with `for_background`): `writeback_chunk_size()` pages of the wb's inodes at a time
    /// (`None`: every inode) for as long as `wb_over_bg_thresh()`. The flusher's own pace is
    /// not modelled: its writes are queued at once.
    pub fn wb_background_writeback(&mut self, wb: Option<MemcgId>) {
        let bw = self.devices.iter().map(|d| d.write_bw).max().unwrap_or(1);
        while self.wb_over_bg_thresh(wb) {
            let before = self.vmstat.nr_dirty;
            let chunk = self.writeback_chunk_size(bw);
            self.writeback_dirty(chunk, wb);
            if self.vmstat.nr_dirty == before {
                break; // nothing of this wb's left to write
            }
        }
    }

    /// `folio_end_writeback()` for every write request that has completed by now: the pages
    /// leave `PG_writeback`, and those reclaim or a DONTNEED met while they were dirty or
    /// under writeback (`PG_reclaim`) go to the tail of the inactive list, to be reclaimed next
    /// (`folio_rotate_reclaimable()`, mm/swap.c; v4.12+ also takes them off the active list,
    /// where v4.12+ reclaim puts dirty pages).
    pub fn writeback_end_io(&mut self) {
        while let Some(&std::cmp::Reverse((done, inode, start, n))) = self.wb_queue.peek() {
            if done > self.now {
                break;
            }
            self.wb_queue.pop();
            let mut completed = 0;
            for i in start..start + n {
                let Some(p) = self.mappings[inode as usize].lookup(i) else { continue };
                if !self.pages[p].test(pg::WRITEBACK) || self.wb_done[p.idx()] != done {
                    continue; // rewritten since, by a later request
                }
                self.pages[p].flags &= !pg::WRITEBACK;
                completed += 1;
                self.vmstat.nr_writeback -= 1;
                let memcg = self.pages[p].memcg;
                if memcg != MemcgId::NONE {
                    self.memcgs.memcgs[memcg.idx()].nr_writeback -= 1;
                }
                if self.pages[p].test(pg::RECLAIM) && self.pages[p].test(pg::LRU) && !self.pages[p].test(pg::SWAPBACKED) && !self.pages[p].test(pg::DIRTY) {
                    self.folio_rotate_reclaimable(p, crate::mmzone::LruList::InactiveFile);
                }
                self.pages[p].flags &= !pg::RECLAIM;
            }
            if completed > 0 {
                let key = self.inode_wb_key(InodeId(inode));
                self.wb_writeout_add(key, completed, done);
            }
        }
    }

    /// `wakeup_flusher_threads()`: reclaim met dirty pages; start writeback, without
    /// waiting, of every dirty page from 4.12 (`KernelProfile::flusher_wakeup_writes_all`),
    /// of one batch worth of the oldest inodes before.
    pub fn wakeup_flusher_threads(&mut self) {
        let nr = if self.profile.flusher_wakeup_writes_all { self.vmstat.nr_dirty } else { crate::vmscan::SWAP_CLUSTER_MAX * 32 };
        self.writeback_dirty(nr, None);
    }

    /// `wb_writeback()`: write back up to `nr` dirty pages, oldest inode first; of every
    /// inode (`None`: the bdi's root wb and all others, as the global domain's background
    /// writeback and `wakeup_flusher_threads()` do) or of the inodes in memcg `wb`'s
    /// writeback domain. Returns the completion time of the last request (0 if nothing was
    /// written).
    pub fn writeback_dirty(&mut self, nr: u64, wb: Option<MemcgId>) -> u64 {
        let mut left = nr;
        let mut last_done = 0;
        let mut cur = self.dirty_inodes.first();
        while left > 0 {
            let Some(inode) = cur else { break };
            cur = self.dirty_inodes.next(inode);
            if let Some(m) = wb {
                if self.inode_wb.get(inode.idx()).copied() != Some(m) {
                    continue;
                }
            }
            let (written, done) = self.writeback_inode(inode, left);
            last_done = last_done.max(done);
            left = left.saturating_sub(written);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.remove(inode);
            } else if written == 0 {
                break;
            }
        }
        last_done
    }

    /// `do_writepages()` for one inode: write back up to `nr` dirty pages in index order, each
    /// contiguous run as one request. Returns (pages written, completion time).
    pub fn writeback_inode(&mut self, inode: InodeId, nr: u64) -> (u64, u64) {
        self.writeback_range(inode, 0, u32::MAX, nr)
    }

    /// `__filemap_fdatawrite_range()` (`do_writepages()` with `wbc->range_start/range_end`):
    /// write back up to `nr` dirty pages of `first..=last` in index order, each contiguous run
    /// as one request. Returns (pages written, completion time).
    pub fn writeback_range(&mut self, inode: InodeId, first: u32, last: u32, nr: u64) -> (u64, u64) {
        let mut written = 0;
        let mut done = 0;
        let extent = self.mappings[inode.idx()].extent.min(u32::MAX as u64) as u32;
        let len = extent.min(last.saturating_add(1));
        let mut run: Option<(u32, u32)> = None;
        // Pages below the dirty hint are clean: the tagged lookup skips them.
        let hint = self.mappings[inode.idx()].dirty_hint;
        let mut i = first.max(hint);
        while i <= len && written < nr {
            let dirty_page = if i < len {
                self.mappings[inode.idx()].lookup(i).filter(|&p| self.pages[p].test(pg::DIRTY))
            } else {
                None
            };
            match (dirty_page, run) {
                (Some(p), _) => {
                    self.clear_dirty_for_io(p);
                    self.folio_start_writeback(p);
                    written += 1;
                    run = Some(match run {
                        Some((s, n)) => (s, n + 1),
                        None => (i, 1),
                    });
                }
                (None, Some((s, n))) => {
                    done = done.max(self.submit_write(inode, s, n));
                    run = None;
                }
                (None, None) if i < len => {
                    // Skip the empty ranges: only an entry can be a dirty page.
                    i = self.mappings[inode.idx()].next_entry(i + 1, len - 1).unwrap_or(len);
                    continue;
                }
                (None, None) => {}
            }
            i += 1;
        }
        if let Some((s, n)) = run {
            done = done.max(self.submit_write(inode, s, n));
        }
        if first <= hint {
            // Everything from the hint up to where the scan stopped is clean now.
            let m = &mut self.mappings[inode.idx()];
            m.dirty_hint = m.dirty_hint.max(i.min(len));
        }
        (written, done)
    }

    /// `folio_start_writeback()`: the page is under writeback until its request completes.
    fn folio_start_writeback(&mut self, p: PageId) {
        if !self.pages[p].test(pg::WRITEBACK) {
            self.pages[p].flags |= pg::WRITEBACK;
            self.vmstat.nr_writeback += 1;
            let memcg = self.pages[p].memcg;
            if memcg != MemcgId::NONE {
                self.memcgs.memcgs[memcg.idx()].nr_writeback += 1;
            }
        }
    }

    /// `folio_clear_dirty_for_io()`: the page is clean from the moment its write is issued.
    fn clear_dirty_for_io(&mut self, p: PageId) {
        self.pages[p].flags &= !pg::DIRTY;
        let inode = self.pages[p].mapping;
        self.mappings[inode.idx()].nrdirty -= 1;
        self.vmstat.nr_dirty -= 1;
        let key = self.inode_wb_key(inode) as usize;
        self.wb_dirty[key] -= 1;
        let memcg = self.pages[p].memcg;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty -= 1;
        }
    }

    /// `submit_bio()` of a run of `n` pages of `inode` from index `start`, cut into requests of
    /// at most `MAX_REQUEST_PAGES` (`max_sectors_kb`): each request completes on its own, and
    /// its pages end their writeback then (`end_bio` -> `folio_end_writeback()` per bio), so
    /// the first pages of a long run are clean while the rest are still queued. Returns the
    /// completion time of the last request.
    fn submit_write(&mut self, inode: InodeId, start: u32, n: u32) -> u64 {
        self.cpu(self.cost.submit_io);
        let (dev, base) = (self.inodes[inode.idx()].dev, self.inodes[inode.idx()].disk_base);
        let dev = dev.expect("shmem pages are never dirty-tracked");
        let mut done = 0;
        let mut s = start;
        while s < start + n {
            let c = (start + n - s).min(crate::blkdev::MAX_REQUEST_PAGES as u32);
            done = self.devices[dev.idx()].submit(Dir::Write, base + s as u64, c as u64, self.now);
            for i in s..s + c {
                if let Some(p) = self.mappings[inode.idx()].lookup(i) {
                    if p.idx() >= self.wb_done.len() {
                        self.wb_done.resize(self.pages.len().max(p.idx() + 1), 0);
                    }
                    self.wb_done[p.idx()] = done;
                }
            }
            self.wb_queue.push(std::cmp::Reverse((done, inode.0, s, c)));
            s += c;
        }
        self.vmstat.count(VmEvent::Pgpgout, n as u64 * PAGE_SIZE / 1024);
        done
    }

    /// `vfs_fsync()`: write back every dirty page of `inode` and wait for the device: for its
    /// own requests and for the pages already under writeback by the flusher
    /// (`file_write_and_wait_range()` -> `filemap_fdatawait_range()` waits on every page of
    /// the range with `PG_writeback`).
    pub fn vfs_fsync(&mut self, inode: InodeId) {
        self.cpu(self.cost.syscall);
        let (_, mut done) = self.writeback_inode(inode, u64::MAX);
        for std::cmp::Reverse((t, ino, _, _)) in self.wb_queue.iter() {
            if *ino == inode.0 {
                done = done.max(*t);
            }
        }
        if self.mappings[inode.idx()].nrdirty == 0 {
            self.dirty_inodes.remove(inode);
        }
        self.wait_until(done);
        self.writeback_end_io();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{profile, Policies};

    #[test]
    fn writeback_chunk_size_follows_fs_writeback_c() {
        // fs/fs-writeback.c writeback_chunk_size() (3.2+, WB_SYNC_NONE):
        // round_down(min(avg_write_bandwidth / 2, dirty_limit / DIRTY_SCOPE) + MIN_WRITEBACK_PAGES,
        // MIN_WRITEBACK_PAGES).
        let k = Kernel::new(profile("linux-6.1").unwrap(), Policies::default(), crate::memcontrol::CgroupVersion::V2, 1 << 19, 0);
        let limit = k.global_dirty_limits().thresh;
        assert!(limit > 0);
        // A slow device: half its bandwidth (100 MiB/s: 25600 pages/s -> 12800) is the smaller.
        let slow = 100 << 20;
        let want = ((12800u64).min(limit / 8) + 1024) / 1024 * 1024;
        assert_eq!(k.writeback_chunk_size(slow), want);
        assert_eq!(want % MIN_WRITEBACK_PAGES, 0);
        // A very slow device still writes MIN_WRITEBACK_PAGES (4 MiB) per inode.
        assert_eq!(k.writeback_chunk_size(1 << 20), MIN_WRITEBACK_PAGES);
        // A fast device: 1/8 of the global dirty limit.
        assert_eq!(k.writeback_chunk_size(1 << 40), (limit / DIRTY_SCOPE + 1024) / 1024 * 1024);
    }
}

#[cfg(test)]
mod dirty_list_tests {
    use super::*;

    /// The b_dirty list keeps dirtying order through removals from anywhere, and adding an
    /// inode already on it leaves it where it is (`inode_io_list_move_locked()` is only
    /// called for an inode that was clean).
    #[test]
    fn dirty_inodes_keep_order_through_removals() {
        let mut l = DirtyInodes::new();
        for i in [3, 1, 4, 5, 9] {
            l.push_back(InodeId(i));
        }
        l.push_back(InodeId(1));
        assert_eq!(l.iter().map(|i| i.0).collect::<Vec<_>>(), vec![3, 1, 4, 5, 9]);
        l.remove(InodeId(4));
        l.remove(InodeId(3));
        l.remove(InodeId(9));
        l.remove(InodeId(7)); // never on it
        assert_eq!(l.iter().map(|i| i.0).collect::<Vec<_>>(), vec![1, 5]);
        assert!(!l.contains(InodeId(3)) && l.contains(InodeId(5)) && l.len() == 2);
        l.push_back(InodeId(3));
        assert_eq!(l.iter().map(|i| i.0).collect::<Vec<_>>(), vec![1, 5, 3]);
        l.remove(InodeId(1));
        l.remove(InodeId(5));
        l.remove(InodeId(3));
        assert!(l.is_empty() && l.first().is_none());
    }
}
