//! CFQ (block/cfq-iosched.c as 4.3 has it; the legacy path's default scheduler from 2.6.18
//! until 4.20, removed in 5.0 with that path): sync requests before async ones, the sync
//! queue idled for after each request, the async queue's dispatch depth kept low after a
//! delayed sync request.
//!
//! Rules modelled, each from the 4.3 source:
//! - `cfq_should_preempt()`: "if the new request is sync, but the currently running queue is
//!   not, let the sync request have priority": a sync request is served before every async
//!   request the scheduler still holds;
//! - `cfq_may_dispatch()`: "Drain async requests before we start sync IO"
//!   (`cfq_should_idle() && rq_in_flight[BLK_RW_ASYNC]`): it still waits for the async
//!   requests already dispatched to the driver, whose number the async queue's depth limits:
//!   with `low_latency` `depth = (jiffies - last_delayed_sync) / cfq_slice[1]`, at least 1,
//!   and no more than the device's queue (its `driver_depth`); an async queue alone on the
//!   device (`busy_queues == 1`) has no other limit (`max_dispatch = -1`);
//! - `cfq_completed_request()`: `last_delayed_sync` is the completion of the last sync
//!   request that took `cfq_fifo_expire[1]` (HZ/8) or more from its submission; a sync queue
//!   whose slice ([`CFQ_SLICE_SYNC`]) is not used up and that has no request left is idled for
//!   (`cfq_arm_slice_timer()`, [`CFQ_SLICE_IDLE`]): no async request is dispatched in the
//!   window, and a sync request arriving in it is served at once; a used-up slice expires
//!   (`cfq_slice_expired()`), and the async queue dispatches again before the next sync one;
//! - `cfq_update_idle_window()`: a queue whose mean think time (`__cfq_update_io_thinktime()`,
//!   the gap between a request's completion and the next's submission, capped at twice the
//!   idle window, averaged 7/8) exceeds `slice_idle` is not idled for, once its samples are
//!   valid (`sample_valid()`: more than 80).
//!
//! Not modelled: CFQ keeps a queue per process (the engine's device does not know the
//! submitting task: all sync requests are one queue), the async queue's own slice
//! (`cfq_slice_async`, HZ/25: when the sync slice expires the async queue gets its dispatch
//! depth's requests in before the next sync request), groups and priorities.

use super::elevator::{PendingAsync, Placement};
use crate::types::Nanos;

const MS: Nanos = 1_000_000;
/// `cfq_slice_idle` = HZ/125: 8 ms.
pub const CFQ_SLICE_IDLE: Nanos = 8 * MS;
/// `cfq_slice_sync` = HZ/10 (`cfq_slice[1]`; the slice of a priority-4 sync queue,
/// `cfq_prio_slice()`): 100 ms.
pub const CFQ_SLICE_SYNC: Nanos = 100 * MS;
/// `cfq_fifo_expire[1]` = HZ/8: a sync request that took this long is "delayed"
/// (`cfq_completed_request()` sets `last_delayed_sync`).
pub const CFQ_FIFO_EXPIRE_SYNC: Nanos = 125 * MS;
/// `sample_valid()`: think-time samples needed before they decide idling.
const SAMPLE_VALID: u32 = 80;

/// CFQ's state on one device.
#[derive(Clone, Debug, Default)]
pub struct Cfq {
    /// `cfqd->last_delayed_sync`.
    pub last_delayed_sync: Nanos,
    /// A delayed sync request's completion not reached yet (it becomes `last_delayed_sync` then).
    delayed_pending: Nanos,
    /// End of the idle window armed after the last sync request (0: none).
    pub idle_until: Nanos,
    /// Its start (the sync request's completion).
    idle_from: Nanos,
    /// Whether the device's line was moved by the window (async requests were pending).
    idle_pushed: bool,
    /// When the sync queue's current slice began.
    pub slice_start: Nanos,
    /// This request opens a new slice ([`Cfq::sync_placed`] sets its start).
    new_slice: bool,
    /// `ttime.last_end_request`.
    last_end: Nanos,
    /// `ttime.ttime_samples`, `ttime.ttime_total` (fixed point, as the kernel's).
    samples: u32,
    total: u64,
}

impl Cfq {
    /// `__cfq_update_io_thinktime()` and `cfq_update_idle_window()`: whether the sync queue
    /// is idled for.
    pub fn idle_enabled(&self) -> bool {
        if self.samples <= SAMPLE_VALID {
            return true;
        }
        let mean = (self.total + 128) / self.samples as u64;
        mean <= CFQ_SLICE_IDLE
    }

    /// The async queue's dispatch depth at `now` (`cfq_may_dispatch()` with `low_latency`) on
    /// a device taking `driver_depth` requests.
    pub fn async_depth(&self, now: Nanos, driver_depth: u64) -> u64 {
        let last = if self.delayed_pending != 0 && self.delayed_pending <= now { self.delayed_pending } else { self.last_delayed_sync };
        (now.saturating_sub(last) / CFQ_SLICE_SYNC).clamp(1, driver_depth.max(1))
    }

    /// A sync request submitted at `now` (see [`super::elevator::Elevator::place_sync`]).
    pub fn place_sync(&mut self, now: Nanos, sync_until: Nanos, pending: &PendingAsync) -> Placement {
        if self.delayed_pending != 0 && self.delayed_pending <= now {
            self.last_delayed_sync = self.delayed_pending;
            self.delayed_pending = 0;
        }
        // __cfq_update_io_thinktime(): elapsed capped at 2 * slice_idle, 7/8 decay.
        if self.last_end != 0 && now >= self.last_end {
            let elapsed = (now - self.last_end).min(2 * CFQ_SLICE_IDLE);
            self.samples = (7 * self.samples + 256) / 8;
            self.total = (7 * self.total + 256 * elapsed) / 8;
        }
        let in_window = now < self.idle_until;
        let refund = if in_window && self.idle_pushed { self.idle_until - now.max(self.idle_from) } else { 0 };
        self.idle_until = 0;
        self.idle_pushed = false;
        let active = sync_until > now || in_window;
        if active && now < self.slice_start + CFQ_SLICE_SYNC {
            // The sync queue is still the active one: nothing async was dispatched since.
            self.new_slice = false;
            return Placement { ahead: 0, refund };
        }
        // The async queue ran: the sync request preempts it and waits for what it dispatched.
        self.new_slice = true;
        Placement { ahead: self.async_depth(now, pending.driver_depth).min(pending.n), refund }
    }

    /// The sync request runs from `begin` to `done`: a delayed one is remembered, the idle
    /// window armed when the slice is not used up. Returns the window when async requests
    /// wait for it (`async_pending`), else 0.
    pub fn sync_placed(&mut self, now: Nanos, begin: Nanos, done: Nanos, async_pending: bool) -> Nanos {
        if self.new_slice {
            self.slice_start = begin;
            self.new_slice = false;
        }
        if done - now >= CFQ_FIFO_EXPIRE_SYNC {
            self.delayed_pending = done;
        }
        self.last_end = done;
        if !self.idle_enabled() || done >= self.slice_start + CFQ_SLICE_SYNC {
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
