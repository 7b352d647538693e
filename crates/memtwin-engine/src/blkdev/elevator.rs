//! The I/O scheduler of a device (block/elevator.c): which queued request the device is given
//! next. One interface ([`Elevator`]), one file per policy: [`super::none`] (blk-mq's "none",
//! the legacy "noop": submission order), [`super::cfq`] (block/cfq-iosched.c, the default of
//! the legacy request path up to 4.20) and [`super::mq_deadline`] (block/mq-deadline.c, blk-mq's
//! default for a single hardware queue from 5.0).
//!
//! What a scheduler can reorder is what it holds: requests not yet dispatched to the driver.
//! The engine's device fixes a request's completion when it is submitted (every caller keeps
//! it: the folio's end of writeback, the read's wake-up), so the policies decide one thing, at
//! a sync request's submission: how many of the async requests still pending on the device
//! go before it (those already dispatched to the driver, and what the policy's rules let
//! through first). The sync request is then served after those and after the sync requests
//! placed before it; the device's line ([`super::BlockDevice::busy_until`]) moves later by its
//! time (and the seek back to the writes, and CFQ's idling), so every request submitted after
//! it waits for it. CFQ may also hold it until another task's sync queue expires
//! ([`Elevator::sync_floor`]; the submitting task's queue is named at `get_request()`,
//! [`Elevator::set_ioc`]). Not modelled: the async requests already pending behind it keep the
//! completions they were given (the engine cannot move them later), so for the duration of
//! the sync requests placed ahead they complete as if the device had served both.
//!
//! Only a device serving one request at a time (no queue of its own, no throttle) is
//! reordered: blk-throttle holds bios before they reach the scheduler
//! (`blk_throtl_bio()` in `submit_bio_noacct()`), and a driver that takes every request the
//! scheduler's tags allow (the host's loop device, `hw_queue_depth` 128; a QEMU guest's
//! virtio-blk ring of 256) leaves the scheduler nothing to hold, so its order is submission
//! order whatever the scheduler.

use std::collections::VecDeque;

use crate::types::Nanos;

/// `[devices.NAME] scheduler`: the policy (`queue/scheduler`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SchedKind {
    /// `none` (blk-mq) / `noop` (legacy): submission order.
    None,
    /// `cfq` (block/cfq-iosched.c, 2.6.18-4.20 default of the legacy path; removed in 5.0 with
    /// it, f382fb0bcef4 "block: remove legacy IO schedulers").
    Cfq,
    /// `mq-deadline` (block/mq-deadline.c; blk-mq's default for a device with one hardware
    /// queue: `elevator_get_default()`).
    MqDeadline,
}

impl SchedKind {
    /// The name `queue/scheduler` shows.
    pub fn name(self) -> &'static str {
        match self {
            SchedKind::None => "none",
            SchedKind::Cfq => "cfq",
            SchedKind::MqDeadline => "mq-deadline",
        }
    }

    /// The policy named `s` (`echo NAME > queue/scheduler`).
    pub fn parse(s: &str) -> Option<SchedKind> {
        match s {
            "none" | "noop" => Some(SchedKind::None),
            "cfq" => Some(SchedKind::Cfq),
            "mq-deadline" => Some(SchedKind::MqDeadline),
            _ => None,
        }
    }

    /// The era's default for a device (block/elevator.c): the legacy path's
    /// `CONFIG_DEFAULT_IOSCHED` "cfq" (`elevator_init()`, 2.6.18-4.20); on blk-mq (5.0+)
    /// `elevator_get_default()` of 6.1: none for a tag set with `BLK_MQ_F_NO_SCHED_BY_DEFAULT`
    /// (the loop driver, drivers/block/loop.c 6.1: the host runner's device, given with
    /// `queue_depth` or `blk_throttle`) or more than one hardware queue, else mq-deadline (a
    /// SATA disk, a single-queue virtio disk: the lab host's /dev/vda shows
    /// `none [mq-deadline] kyber bfq`, its loop devices `[none]`, 2026-11-29).
    pub fn era_default(legacy: bool, loop_device: bool) -> SchedKind {
        if legacy {
            SchedKind::Cfq
        } else if loop_device {
            SchedKind::None
        } else {
            SchedKind::MqDeadline
        }
    }

    /// The default `driver_depth` of a device (the requests its driver takes from the
    /// scheduler): on the legacy path a SATA disk's, `ata_scsi_dev_config()` of 4.x:
    /// `min(ATA_MAX_QUEUE - 1, NCQ depth)` = 31 (the seeds' 4.x disks); on blk-mq the lab host's
    /// virtio disk's driver tags (`/sys/block/vda/mq/0/nr_tags` 128 beside `nr_requests`
    /// 256, 2026-11-29). A SATA disk on blk-mq takes 32 (`min(ATA_MAX_QUEUE, NCQ depth)`,
    /// 6.1): `driver_depth = 32`.
    pub fn default_driver_depth(legacy: bool) -> u64 {
        if legacy {
            31
        } else {
            128
        }
    }
}

/// The async requests pending on a device when a sync request is submitted: their completion
/// times, in order, from `first` in `q`; `seq_first`, the number of async requests the device
/// was given before the first of them.
pub struct PendingAsync<'a> {
    /// The async class's completion times (the device's request list).
    pub q: &'a VecDeque<Nanos>,
    /// Index of the first not completed.
    pub first: usize,
    /// How many are pending.
    pub n: u64,
    /// Async requests given to the device before `q[first]`.
    pub seq_first: u64,
    /// The driver's tags: requests the device takes from the scheduler
    /// ([`super::BlockDevice::driver_depth`]).
    pub driver_depth: u64,
}

impl PendingAsync<'_> {
    /// Completion of the `i`-th pending request (0: the first).
    #[inline]
    pub fn done(&self, i: u64) -> Nanos {
        self.q[self.first + i as usize]
    }

    /// How many pending requests complete by `t`.
    #[inline]
    pub fn done_by(&self, t: Nanos) -> u64 {
        (self.q.partition_point(|&d| d <= t).saturating_sub(self.first) as u64).min(self.n)
    }
}

/// Where the policy puts a sync request among the pending async ones.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Pending async requests served before it.
    pub ahead: u64,
    /// Device time the policy held for the sync queue and gives back to the async line now
    /// (CFQ's idling window cut short by this request).
    pub refund: Nanos,
}

/// A device's scheduler state: one of the policies (static dispatch, no allocation).
#[derive(Clone, Debug)]
pub enum Elevator {
    /// Submission order.
    None(super::none::NoneSched),
    /// CFQ.
    Cfq(super::cfq::Cfq),
    /// mq-deadline.
    MqDeadline(super::mq_deadline::MqDeadline),
}

impl Default for Elevator {
    fn default() -> Self {
        Elevator::None(super::none::NoneSched)
    }
}

impl Elevator {
    /// A fresh scheduler of `kind`.
    pub fn new(kind: SchedKind) -> Self {
        match kind {
            SchedKind::None => Elevator::None(super::none::NoneSched),
            SchedKind::Cfq => Elevator::Cfq(super::cfq::Cfq::default()),
            SchedKind::MqDeadline => Elevator::MqDeadline(super::mq_deadline::MqDeadline::default()),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> SchedKind {
        match self {
            Elevator::None(_) => SchedKind::None,
            Elevator::Cfq(_) => SchedKind::Cfq,
            Elevator::MqDeadline(_) => SchedKind::MqDeadline,
        }
    }

    /// A sync request submitted at `now`, the sync requests before it done at `sync_until`:
    /// how many of `pending` go first. `pending.n` or more: submission order.
    #[inline]
    pub fn place_sync(&mut self, now: Nanos, sync_until: Nanos, pending: &PendingAsync) -> Placement {
        match self {
            Elevator::None(_) => Placement { ahead: pending.n, refund: 0 },
            Elevator::Cfq(c) => c.place_sync(now, sync_until, pending),
            Elevator::MqDeadline(d) => d.place_sync(now, sync_until, pending),
        }
    }

    /// The sync request placed by [`Elevator::place_sync`] (or queued in submission order,
    /// `reordered` false) runs from `begin` to `done`: the time async requests are held after
    /// it (CFQ's idling), which the device's line moves by when async requests are pending
    /// (`async_pending`).
    #[inline]
    pub fn sync_placed(&mut self, now: Nanos, begin: Nanos, done: Nanos, async_pending: bool) -> Nanos {
        match self {
            Elevator::None(_) => 0,
            Elevator::Cfq(c) => c.sync_placed(now, begin, done, async_pending),
            Elevator::MqDeadline(d) => d.sync_placed(done),
        }
    }

    /// The earliest an async request submitted now may start (CFQ's idling window).
    #[inline]
    pub fn async_floor(&self) -> Nanos {
        match self {
            Elevator::Cfq(c) => c.idle_until,
            _ => 0,
        }
    }

    /// The earliest the sync request placed last by [`Elevator::place_sync`] may start (CFQ:
    /// another task's sync queue is active and keeps the device until it expires).
    #[inline]
    pub fn sync_floor(&self) -> Nanos {
        match self {
            Elevator::Cfq(c) => c.wait_until,
            _ => 0,
        }
    }

    /// `elv_set_request()` (`get_request()` of the legacy path, in the running task's context):
    /// the scheduler's per-task queue for a request of `pages` at device page `start` from task
    /// `task` (a task index; `u32::MAX`: none), in the sync class when `sync`, `REQ_NOIDLE`
    /// when `noidle` (a sync write) (CFQ's `cfq_set_request()`; the other policies keep no
    /// per-task state).
    #[inline]
    pub fn set_ioc(&mut self, task: u32, sync: bool, noidle: bool, start: u64, pages: u64) {
        if let Elevator::Cfq(c) = self {
            c.set_ioc(task, sync, noidle, start, pages);
        }
    }

    /// Whether the policy serves a sync request of direction `dir` in its sync queue(s), ahead
    /// of the async requests it holds ([`Elevator::place_sync`]): CFQ every sync request, a
    /// `REQ_SYNC` write too (`cfq_get_queue(cfqd, is_sync, ...)` with `is_sync =
    /// rq_is_sync(rq)`, 4.3); mq-deadline by direction only (`dd_insert_request()`: `data_dir =
    /// rq_data_dir(rq)`, one FIFO per direction, 6.1): a write, sync or not, is a write; none
    /// orders nothing.
    #[inline]
    pub fn sync_queue(&self, dir: super::Dir) -> bool {
        match self {
            Elevator::Cfq(_) => true,
            _ => dir == super::Dir::Read,
        }
    }

    /// Room for the per-task queues of `tasks` tasks, made with the device (CFQ's sync queues;
    /// nothing for the other policies).
    pub fn reserve_queues(&mut self, tasks: usize) {
        if let Elevator::Cfq(c) = self {
            c.reserve_queues(tasks);
        }
    }
}
