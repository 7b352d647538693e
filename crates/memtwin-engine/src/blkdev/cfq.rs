//! CFQ (block/cfq-iosched.c as 4.3 has it; the legacy path's default scheduler from 2.6.18
//! until 4.20, removed in 5.0 with that path): a sync queue per process, served in time
//! slices before the async requests, idled for after each request; the async queue's dispatch
//! depth kept low after a delayed sync request.
//!
//! Rules modelled, each from the 4.3 source:
//! - `cfq_get_queue()` / `cfq_set_request()`: a sync request (`rq_is_sync()`: a read, or a
//!   `REQ_SYNC` write, an fsync's `WRITE_SYNC`, `super::BlkQueue::write_class`) belongs to its task's own
//!   `cfq_queue` (`cic->cfqq[1]`, the task's io context on this device); async requests go to
//!   the async queue of their priority, shared by every task (`cfqg->async_cfqq[1][4]`).
//!   The engine names a task's queue by its index ([`CfqqId`], a pool sized by the scenario's
//!   tasks when the device is made, [`Cfq::reserve_queues`]; the last slot takes requests of no
//!   task): [`Cfq::set_ioc`] is `get_request()`'s `cfq_set_request()` for the running task;
//! - `cfq_should_preempt()`: "if the new request is sync, but the currently running queue is
//!   not, let the sync request have priority": a sync request is served before every async
//!   request the scheduler still holds; another task's sync request preempts the active sync
//!   queue only when that queue's slice is used (`cfq_slice_used()`), when both are on the
//!   sync-noidle tree, when the active queue should not be idled for (`cfq_should_idle()`),
//!   or when the active queue is idling and the request is within `CFQQ_CLOSE_THR` (4 MiB) of
//!   where it stopped (`cfq_rq_close()`); else it waits on the service tree until the active
//!   queue expires: at the end of its idle window (`cfq_idle_slice_timer()`), or at the
//!   completion of its requests in flight and the window after them. Queues waiting are served
//!   in the order they arrived (`cfq_service_tree_add()`: `rb_key = now + cfq_slice_offset()`,
//!   one offset for every queue of one class and priority); the waiting sync queue is served
//!   before the async queue at the expiry (the async queue's `cfq_slice_offset()` is
//!   `cfq_prio_slice(1, 0) - cfq_prio_slice(0, 4)` = 140 ms per other queue behind, a sync
//!   queue's 80 ms, so a sync queue queued within the expiring slice has the lower key);
//! - `cfq_may_dispatch()`: "Drain async requests before we start sync IO"
//!   (`cfq_should_idle() && rq_in_flight[BLK_RW_ASYNC]`): a slice opened after the async queue
//!   ran still waits for the async requests already dispatched to the driver, whose number the
//!   async queue's depth limits: with `low_latency` `depth = (jiffies - last_delayed_sync) /
//!   cfq_slice[1]`, at least 1, and no more than the device's queue (its `driver_depth`); an
//!   async queue alone on the device (`busy_queues == 1`) has no other limit;
//! - `cfq_completed_request()`: `last_delayed_sync` is the completion of the last sync
//!   request that took `cfq_fifo_expire[1]` (HZ/8) or more from its submission; the active
//!   queue's slice is `cfq_scaled_cfqq_slice()` from its first request: `cfq_slice[1]`
//!   ([`CFQ_SLICE_SYNC`]) scaled down with `low_latency` when `cfq_slice[1]` times the busy
//!   queues' average (`cfq_group_get_avg_queues()`) exceeds the group's 300 ms
//!   (`cfq_target_latency`), to no less than `2 * slice_idle`; a queue whose slice is not used
//!   up and that has no request left is idled for (`cfq_arm_slice_timer()`, [`CFQ_SLICE_IDLE`])
//!   when `cfq_should_idle()`: no async request is dispatched in the window, and a request of
//!   the queue arriving in it is served at once; a used-up slice expires
//!   (`cfq_slice_expired()`), and the async queue dispatches again before the next sync slice;
//! - `cfq_update_idle_window()` / `cfqq_type()`: a queue whose next request is `REQ_NOIDLE`
//!   (4.3's `WRITE_SYNC` = `WRITE | REQ_SYNC | REQ_NOIDLE`: an fsync's writes), or whose mean think time
//!   (`__cfq_update_io_thinktime()`, per task: `cic->ttime`, the gap between a request's
//!   completion and the next's submission, capped at twice the idle window, averaged 7/8)
//!   exceeds `slice_idle` once its samples are valid (`sample_valid()`: more than 80), or that
//!   is seeky (`CFQQ_SEEKY()`: more than 4 of its last 32 requests began more than
//!   `CFQQ_SEEK_THR`, 800 sectors, from where its previous one ended,
//!   `cfq_update_io_seektime()`), loses its idle window and goes on the sync-noidle tree;
//!   `cfq_should_idle()` still idles for the last queue of that tree while the tree's think
//!   time (`st->ttime`) is small (the workload's idle at the end of the tree).
//!
//! Not modelled: the async queue's own slice (`cfq_slice_async`, HZ/25: when the sync slice
//! expires the async queue gets its dispatch depth's requests in before the next sync
//! request), the workload slices of `choose_wl_class_and_type()` (the waiting queues are
//! served in arrival order whatever their tree), `cfq_should_wait_busy()` and group idling
//! (`cfq_group_idle`: with one cgroup it idles only for a queue alone in the group, where
//! nothing else waits), close cooperators (`cfq_close_cooperator()`, queue merging), the
//! `deep` flag (the engine's requests reach the device as they are submitted, so no queue has
//! 4 queued), the think time against the slice's rest in `cfq_arm_slice_timer()`, groups and
//! I/O priorities (every queue is best-effort 4), and non-rotational devices. The engine fixes
//! a request's completion at its submission, so a request of the active queue submitted after
//! another queue's request was placed behind its expiry waits for that request.

use std::collections::VecDeque;

use super::elevator::{PendingAsync, Placement};
use crate::types::Nanos;

const MS: Nanos = 1_000_000;
/// `cfq_slice_idle` = HZ/125: 8 ms.
pub const CFQ_SLICE_IDLE: Nanos = 8 * MS;
/// `cfq_slice_sync` = HZ/10 (`cfq_slice[1]`; the slice of a priority-4 sync queue,
/// `cfq_prio_slice()`): 100 ms.
pub const CFQ_SLICE_SYNC: Nanos = 100 * MS;
/// `cfq_target_latency` = HZ * 3/10: the root group's slice (`cfq_group_slice()`, its
/// `vfraction` is the whole with one cgroup) that `low_latency` fits the busy queues' slices in.
pub const CFQ_TARGET_LATENCY: Nanos = 300 * MS;
/// `cfq_fifo_expire[1]` = HZ/8: a sync request that took this long is "delayed"
/// (`cfq_completed_request()` sets `last_delayed_sync`).
pub const CFQ_FIFO_EXPIRE_SYNC: Nanos = 125 * MS;
/// `CFQQ_SEEK_THR` = 8 * 100 sectors, in pages: a request beginning farther than this from
/// where its queue's previous one ended is a seek (`cfq_update_io_seektime()`).
pub const CFQQ_SEEK_THR_PAGES: u64 = 8 * 100 * 512 / crate::types::PAGE_SIZE;
/// `CFQQ_CLOSE_THR` = 8 * 1024 sectors, in pages: a request this close to where the active
/// queue stopped may preempt it while it idles (`cfq_rq_close()`).
pub const CFQQ_CLOSE_THR_PAGES: u64 = 8 * 1024 * 512 / crate::types::PAGE_SIZE;
/// `sample_valid()`: think-time samples needed before they decide idling.
const SAMPLE_VALID: u32 = 80;
/// `cfq_hist_divisor`: `cfq_group_get_avg_queues()`' average.
const CFQ_HIST_DIVISOR: u32 = 4;
/// No queue.
const NONE: u32 = u32::MAX;

/// A task's sync queue on one device: its slot in [`Cfq`]'s pool (the task's index; the
/// pool's last slot takes the requests of no task).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CfqqId(pub u32);

/// `struct cfq_ttime`: think time samples (fixed point, as the kernel's).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TTime {
    /// `last_end_request` (0: none yet).
    pub last_end: Nanos,
    /// `ttime_samples`.
    pub samples: u32,
    /// `ttime_total`.
    pub total: u64,
}

impl TTime {
    /// `__cfq_update_io_thinktime()` for a request submitted at `now`: elapsed since the last
    /// completion, capped at 2 * slice_idle, 7/8 decay.
    fn update(&mut self, now: Nanos) {
        if self.last_end != 0 && now >= self.last_end {
            let elapsed = (now - self.last_end).min(2 * CFQ_SLICE_IDLE);
            self.samples = (7 * self.samples + 256) / 8;
            self.total = (7 * self.total + 256 * elapsed) / 8;
        }
    }

    /// `sample_valid(ttime_samples)`.
    pub fn valid(&self) -> bool {
        self.samples > SAMPLE_VALID
    }

    /// `ttime_mean`.
    pub fn mean(&self) -> u64 {
        (self.total + 128) / self.samples.max(1) as u64
    }

    /// `cfq_io_thinktime_big()` against `slice_idle`.
    fn big(&self) -> bool {
        self.valid() && self.mean() > CFQ_SLICE_IDLE
    }
}

/// A task's sync `cfq_queue` with its `cfq_io_cq` on one device.
#[derive(Clone, Debug)]
pub struct CfqQueue {
    /// `cic->ttime`: the task's think time.
    pub ttime: TTime,
    /// `cfqq->seek_history`: one bit a request, set for a seek.
    pub seek_history: u32,
    /// `cfqq->last_request_pos`: device page after its last request (0: none yet).
    pub last_request_pos: u64,
    /// `CFQ_CFQQ_FLAG_idle_window` (set for a new sync queue, `cfq_init_cfqq()`): on the sync
    /// tree when set, on the sync-noidle tree when not (`cfqq_type()`).
    pub idle_window: bool,
    /// Its requests on the device (it is busy, on the service tree, while any).
    nr: u32,
    /// Counted in [`Cfq`]'s sync-noidle busy queues.
    on_noidle: bool,
}

impl Default for CfqQueue {
    fn default() -> Self {
        CfqQueue { ttime: TTime::default(), seek_history: 0, last_request_pos: 0, idle_window: true, nr: 0, on_noidle: false }
    }
}

impl CfqQueue {
    /// `CFQQ_SEEKY()`: more than 32/8 of the last 32 requests were seeks.
    pub fn seeky(&self) -> bool {
        self.seek_history.count_ones() > 32 / 8
    }
}

/// CFQ's state on one device.
#[derive(Clone, Debug)]
pub struct Cfq {
    /// `cfqd->last_delayed_sync`.
    pub last_delayed_sync: Nanos,
    /// A delayed sync request's completion not reached yet (it becomes `last_delayed_sync` then).
    delayed_pending: Nanos,
    /// End of the idle window armed after the active queue's last request (0: none).
    pub idle_until: Nanos,
    /// Its start (the request's completion).
    idle_from: Nanos,
    /// Whether the device's line was moved by the window (async requests were pending).
    idle_pushed: bool,
    /// When the active queue's current slice began.
    pub slice_start: Nanos,
    /// When it ends (`cfqq->slice_end`).
    pub slice_end: Nanos,
    /// This request opens a new slice ([`Cfq::sync_placed`] sets its start).
    new_slice: bool,
    /// `cfqd->active_queue` among the sync queues (`NONE`: none yet).
    active: u32,
    /// The queue of the request being set up (`cfq_set_request()`: the running task's).
    ioc: u32,
    /// Where that request begins (device page).
    rq_pos: u64,
    /// That request is `REQ_NOIDLE` (a sync write: `WRITE_SYNC` in 2.6.30-4.9).
    rq_noidle: bool,
    /// The sync queues, one per task and one for requests of no task; a fixed pool.
    queues: Vec<CfqQueue>,
    /// The sync-noidle service tree's `st->ttime`.
    noidle_ttime: TTime,
    /// The sync requests on the device, (completion, queue), in placement order: which
    /// queues are busy (on the service tree).
    inflight: VecDeque<(Nanos, u32)>,
    /// Sync queues with requests on the device.
    busy: u32,
    /// Of those, the ones on the sync-noidle tree (`service_trees[BE][SYNC_NOIDLE].count`).
    noidle_busy: u32,
    /// `cfqg->busy_queues_avg[BE_WORKLOAD]`.
    busy_avg: u32,
    /// The earliest the request placed last may start: the active queue's expiry when it
    /// waits on the service tree (0: at once).
    pub wait_until: Nanos,
}

impl Default for Cfq {
    fn default() -> Self {
        Cfq {
            last_delayed_sync: 0,
            delayed_pending: 0,
            idle_until: 0,
            idle_from: 0,
            idle_pushed: false,
            slice_start: 0,
            slice_end: 0,
            new_slice: false,
            active: NONE,
            ioc: 0,
            rq_pos: 0,
            rq_noidle: false,
            queues: vec![CfqQueue::default()],
            noidle_ttime: TTime::default(),
            inflight: VecDeque::new(),
            busy: 0,
            noidle_busy: 0,
            busy_avg: 0,
            wait_until: 0,
        }
    }
}

impl Cfq {
    /// A pool of sync queues for `tasks` tasks and the requests of no task, made when the
    /// device is (no allocation per request: `cfq_get_queue()`'s `kmem_cache_alloc_node()`
    /// is this pool's slot).
    pub fn reserve_queues(&mut self, tasks: usize) {
        self.queues = vec![CfqQueue::default(); tasks + 1];
        // The sync requests in flight are bounded by the sync request list (`nr_requests`,
        // 128; one entry per submission).
        self.inflight = VecDeque::with_capacity(2 * super::BLKDEV_MAX_RQ as usize);
    }

    /// The queue of `task` (a task index; `u32::MAX`: none).
    pub fn queue_of(&self, task: u32) -> CfqqId {
        CfqqId((task as usize).min(self.queues.len() - 1) as u32)
    }

    /// A queue's state.
    pub fn queue(&self, q: CfqqId) -> &CfqQueue {
        &self.queues[q.0 as usize]
    }

    /// The active sync queue (`cfqd->active_queue`), if any.
    pub fn active_queue(&self) -> Option<CfqqId> {
        (self.active != NONE).then_some(CfqqId(self.active))
    }

    /// `cfq_set_request()` of a request of `pages` at device page `start` from `task`
    /// (`get_request()` in the running task's context): the request's queue, and for a sync
    /// one `cfq_update_io_seektime()` (at its `cfq_rq_enqueued()`); `noidle`: the request is
    /// `REQ_NOIDLE` (a sync write), for `cfq_update_idle_window()`.
    pub fn set_ioc(&mut self, task: u32, sync: bool, noidle: bool, start: u64, pages: u64) {
        if !sync {
            return;
        }
        let q = self.queue_of(task).0;
        self.ioc = q;
        self.rq_pos = start;
        self.rq_noidle = noidle;
        let cq = &mut self.queues[q as usize];
        let sdist = if cq.last_request_pos == 0 { 0 } else { cq.last_request_pos.abs_diff(start) };
        cq.seek_history = (cq.seek_history << 1) | u32::from(sdist > CFQQ_SEEK_THR_PAGES);
        cq.last_request_pos = start + pages;
    }

    /// Whether the active (or the only) sync queue is idled for now (`cfq_cfqq_idle_window()`).
    pub fn idle_enabled(&self) -> bool {
        self.queues[if self.active == NONE { 0 } else { self.active as usize }].idle_window
    }

    /// The async queue's dispatch depth at `now` (`cfq_may_dispatch()` with `low_latency`) on
    /// a device taking `driver_depth` requests.
    pub fn async_depth(&self, now: Nanos, driver_depth: u64) -> u64 {
        let last = if self.delayed_pending != 0 && self.delayed_pending <= now { self.delayed_pending } else { self.last_delayed_sync };
        (now.saturating_sub(last) / CFQ_SLICE_SYNC).clamp(1, driver_depth.max(1))
    }

    /// The queues whose requests are all done by `now` leave the service tree
    /// (`cfq_del_cfqq_rr()`).
    fn retire(&mut self, now: Nanos) {
        while let Some(&(done, q)) = self.inflight.front() {
            if done > now {
                break;
            }
            self.inflight.pop_front();
            let cq = &mut self.queues[q as usize];
            cq.nr -= 1;
            if cq.nr == 0 {
                self.busy -= 1;
                if cq.on_noidle {
                    cq.on_noidle = false;
                    self.noidle_busy -= 1;
                }
            }
        }
    }

    /// `cfq_update_idle_window()` at a request of `q`: a `REQ_NOIDLE` request (4.3:
    /// `cfqq->next_rq->cmd_flags & REQ_NOIDLE`; the queue's next request is the one just
    /// enqueued, its requests going to the device as they come), seeky (the `deep` flag is never
    /// set) or a valid think time above `slice_idle` clears the idle window, a valid one below
    /// sets it; a busy queue changes tree with it. So a task's fsync writes (`WRITE_SYNC`) put
    /// its queue on the sync-noidle tree, and its next reads keep it there until a valid think
    /// time sets the window again.
    fn update_idle_window(&mut self, q: u32, noidle: bool) {
        let cq = &mut self.queues[q as usize];
        if noidle {
            cq.idle_window = false;
        } else if cq.seeky() {
            cq.idle_window = false;
        } else if cq.ttime.valid() {
            cq.idle_window = cq.ttime.mean() <= CFQ_SLICE_IDLE;
        }
        if cq.nr > 0 && cq.on_noidle == cq.idle_window {
            cq.on_noidle = !cq.idle_window;
            if cq.on_noidle {
                self.noidle_busy += 1;
            } else {
                self.noidle_busy -= 1;
            }
        }
    }

    /// `cfq_should_idle()` for queue `q` (a rotational disk): its idle window, or it is the
    /// last queue of the sync-noidle tree (`st->count == 1`: the active queue stays on its tree
    /// while it idles, its requests done) and the tree's think time is small.
    pub fn should_idle(&self, q: CfqqId) -> bool {
        let cq = &self.queues[q.0 as usize];
        let on_tree = self.noidle_busy + u32::from(!cq.on_noidle);
        cq.idle_window || (on_tree <= 1 && !self.noidle_ttime.big())
    }

    /// `cfq_should_preempt()` of the active sync queue `a` by a request of another queue `q`
    /// at `now`, `a` idling (`wait_request`) when `waiting`.
    fn should_preempt(&self, a: u32, q: u32, now: Nanos, waiting: bool) -> bool {
        let (qa, qq) = (&self.queues[a as usize], &self.queues[q as usize]);
        if now >= self.slice_end {
            // cfq_slice_used()
            return true;
        }
        if !qa.idle_window && !qq.idle_window {
            // Both on the sync-noidle tree, the active queue's sort list empty (its requests
            // are on the device).
            return true;
        }
        if !self.should_idle(CfqqId(a)) {
            return true;
        }
        if !waiting {
            return false;
        }
        // cfq_rq_close(): within CFQQ_CLOSE_THR of cfqd->last_position.
        qa.last_request_pos.abs_diff(self.rq_pos) <= CFQQ_CLOSE_THR_PAGES
    }

    /// `cfq_scaled_cfqq_slice()` with `low_latency`, the busy queues' average updated
    /// (`cfq_group_get_avg_queues()`) with `busy` queues now.
    fn scaled_slice(&mut self, busy: u32) -> Nanos {
        let (lo, hi) = (self.busy_avg.min(busy), self.busy_avg.max(busy));
        self.busy_avg = ((CFQ_HIST_DIVISOR - 1) * hi + lo + CFQ_HIST_DIVISOR / 2) / CFQ_HIST_DIVISOR;
        let expect = CFQ_SLICE_SYNC * self.busy_avg as u64;
        if expect > CFQ_TARGET_LATENCY {
            let low = (2 * CFQ_SLICE_IDLE).min(CFQ_SLICE_SYNC);
            (CFQ_SLICE_SYNC * CFQ_TARGET_LATENCY / expect).max(low)
        } else {
            CFQ_SLICE_SYNC
        }
    }

    /// A sync request submitted at `now` (see [`super::elevator::Elevator::place_sync`]) by
    /// the queue [`Cfq::set_ioc`] named.
    pub fn place_sync(&mut self, now: Nanos, sync_until: Nanos, pending: &PendingAsync) -> Placement {
        if self.delayed_pending != 0 && self.delayed_pending <= now {
            self.last_delayed_sync = self.delayed_pending;
            self.delayed_pending = 0;
        }
        self.retire(now);
        let q = self.ioc;
        // cfq_rq_enqueued(): cfq_update_io_thinktime(), cfq_update_idle_window().
        self.queues[q as usize].ttime.update(now);
        if !self.queues[q as usize].idle_window {
            self.noidle_ttime.update(now);
        }
        self.update_idle_window(q, self.rq_noidle);
        self.wait_until = 0;
        let in_window = now < self.idle_until;
        let a = self.active;
        let active = sync_until > now || in_window;
        if active && a != NONE && a != q {
            if !self.should_preempt(a, q, now, in_window) {
                // On the service tree until the active queue expires: at its idle window's
                // end, or after its requests in flight and the window it will idle for.
                self.wait_until = if in_window {
                    self.idle_until
                } else if sync_until < self.slice_end {
                    sync_until + CFQ_SLICE_IDLE
                } else {
                    sync_until
                };
                self.active = q;
                self.new_slice = true;
                return Placement { ahead: 0, refund: 0 };
            }
            // cfq_preempt_queue(): the active queue expires, this one is served next; nothing
            // async was dispatched since.
            let refund = if in_window && self.idle_pushed { self.idle_until - now.max(self.idle_from) } else { 0 };
            self.idle_until = 0;
            self.idle_pushed = false;
            self.active = q;
            self.new_slice = true;
            return Placement { ahead: 0, refund };
        }
        let refund = if in_window && self.idle_pushed { self.idle_until - now.max(self.idle_from) } else { 0 };
        self.idle_until = 0;
        self.idle_pushed = false;
        if active && a == q && now < self.slice_end {
            // The queue is still the active one: nothing async was dispatched since.
            self.new_slice = false;
            return Placement { ahead: 0, refund };
        }
        // The async queue ran: the sync request preempts it and waits for what it dispatched.
        self.active = q;
        self.new_slice = true;
        Placement { ahead: self.async_depth(now, pending.driver_depth).min(pending.n), refund }
    }

    /// The sync request runs from `begin` to `done`: a delayed one is remembered, the idle
    /// window armed when the slice is not used up and the queue should be idled for. Returns
    /// the window when async requests wait for it (`async_pending`), else 0.
    pub fn sync_placed(&mut self, now: Nanos, begin: Nanos, done: Nanos, async_pending: bool) -> Nanos {
        let q = self.ioc;
        // On the service tree while it has requests on the device.
        let cq = &mut self.queues[q as usize];
        if cq.nr == 0 {
            self.busy += 1;
            if !cq.idle_window {
                cq.on_noidle = true;
                self.noidle_busy += 1;
            }
        }
        cq.nr += 1;
        cq.ttime.last_end = done;
        if !cq.idle_window {
            self.noidle_ttime.last_end = done;
        }
        self.inflight.push_back((done, q));
        if self.active == NONE {
            self.active = q;
            self.new_slice = true;
        }
        if self.new_slice {
            self.slice_start = begin;
            let busy = self.busy + u32::from(async_pending);
            self.slice_end = begin + self.scaled_slice(busy);
            self.new_slice = false;
        }
        if done - now >= CFQ_FIFO_EXPIRE_SYNC {
            self.delayed_pending = done;
        }
        if !self.should_idle(CfqqId(q)) || done >= self.slice_end {
            self.idle_until = 0;
            self.idle_pushed = false;
            return 0;
        }
        self.idle_from = done;
        self.idle_until = done + CFQ_SLICE_IDLE;
        self.idle_pushed = async_pending;
        if async_pending {
            CFQ_SLICE_IDLE
        } else {
            0
        }
    }
}
