//! Block devices: a request queue per device with a latency and bandwidth model
//! (block/blk-core.c, block/blk-mq.c, block/elevator.c, and the device's `queue/` attributes).
//!
//! The device serves requests one after the other in submission order. A request costs its
//! transfer time (`bytes / bandwidth`) plus an access latency when it does not start where the
//! previous request ended (a seek on a disk, a random-read penalty on flash). A request
//! submitted while the device is busy waits for it.
//!
//! The queue holds requests, not bytes: a submission of `pages` is cut into requests of at most
//! `MAX_REQUEST_PAGES` (`max_sectors_kb`), or merged into the last request when it continues
//! it and that request has not started yet (`elv_merge()`'s back merge; the plug's merge of
//! consecutive bios). Each request is allocated in its class (`rl->count[is_sync]` of the
//! legacy request list; a scheduler tag on blk-mq) and freed when it completes, so the number in
//! flight at any instant is known; `get_request()`/`blk_mq_get_tag()` make a submitter sleep
//! while its class is full ([`BlockDevice::get_request_wait`]). Requests are kept per class in
//! completion order ([`RequestQueue`]): counting those in flight at an instant is a binary
//! search, retiring completed ones is amortised O(1), and no per-request cost depends on the
//! queue's length.
//!
//! A device whose bandwidths are blk-throttle limits over a faster disk (`blk_throttle`, the
//! host runner's loop device: `blkio.throttle.read_bps_device`/`write_bps_device`) serves each
//! direction on its own budget: block/blk-throttle.c keeps a slice per direction
//! (`tg->bps[rw]`, `tg->bytes_disp[rw]`, `tg_within_bps_limit()`), so a read waits for the
//! reads before it and not for the writes the flusher queued, and leaves the throttle when its
//! direction's slice allows it (blk_throttle.rs: a backlog goes a slice's worth at a time), the
//! disk beneath serving it at once, or, when the scenario gives the device a queue of its own
//! ([`HwQueue`]), with that queue (the same slices, [`BlockDevice::throtl_release`]). The throttled bios are held in
//! the throttle group's service queue before they are given a request (`blk_throtl_bio()` in
//! `submit_bio_noacct()`), so they take no request and no tag: a submitter never waits for
//! one on such a device.
//! Swap writes are not held there from v6.3 (`bio_issue_as_root_blkg()`: charged in debt,
//! [`BlockDevice::submit_swap_write`]).
//!
//! The order a device serving one request at a time is given its requests is its I/O
//! scheduler's ([`elevator`]: one policy per file, [`none`], [`cfq`], [`mq_deadline`]; the
//! era's default or `[devices.NAME] scheduler`): a sync request is placed before the async
//! requests the scheduler still holds ([`BlockDevice::submit_class`]).
//!
//! blk-wbt ([`wbt`], block/blk-wbt.c) throttles buffered writes before they get a request:
//! [`BlockDevice::wbt_release`] gives when a write's submitter is let through,
//! [`BlockDevice::submit_tracked`] submits and tracks it; a sync request goes before the
//! tracked writes not released yet ([`BlockDevice::submit_sync_sched`]).

use std::collections::VecDeque;

pub mod cfq;
pub mod elevator;
pub mod mq_deadline;
pub mod none;
pub mod wbt;

pub use elevator::{Elevator, SchedKind};
pub use wbt::{Wbt, WbtOp};

use crate::types::{Nanos, NSEC_PER_SEC, PAGE_SIZE};

/// `queue_congestion_on_threshold()` of a 128-request queue (block/blk-core.c, 2.6-4.x):
/// `nr_requests - nr_requests/8 + 1` = 113 requests in flight, each of at most
/// `BLK_DEF_MAX_SECTORS` (1024 sectors, 512 KiB, in 4.x): the write backlog in bytes above
/// which a queue is congested. The engine's queue holds a time line, not requests, so the
/// backlog is measured in bytes the device still has to write.
pub const CONGESTION_ON_BYTES: u64 = 113 * 512 * 1024;
/// `queue_congestion_off_threshold()`: `nr_requests - nr_requests/8 - nr_requests/16 - 1` =
/// 103 requests: the backlog below which the queue is no longer congested.
pub const CONGESTION_OFF_BYTES: u64 = 103 * 512 * 1024;

/// `BLKDEV_MAX_RQ` (include/linux/blkdev.h): the default `nr_requests` of a legacy request
/// list, per class (2.6-4.x), and the cap of a blk-mq queue's scheduler tags
/// (`blk_mq_init_sched()`: `2 * min(queue_depth, BLKDEV_MAX_RQ)`, 128 for a tag set of 64 or
/// more: a SATA disk's 32 NCQ tags give 64, the engine takes 128 for every device).
pub const BLKDEV_MAX_RQ: u64 = 128;

/// Largest request, in pages: `BLK_DEF_MAX_SECTORS` = 1024 sectors (`max_sectors_kb` 512,
/// include/linux/blkdev.h in 4.x; a SATA disk's limit in later eras too).
pub const MAX_REQUEST_PAGES: u64 = 1024 * 512 / PAGE_SIZE;

/// `BLK_MAX_REQUEST_COUNT` (block/blk.h, 32 from 5.16): the requests a task's plug holds
/// before `blk_add_rq_to_plug()` flushes it (one queue: the `multiple_queues` doubling of
/// `blk_plug_max_rq_count()` does not apply).
pub const BLK_MAX_REQUEST_COUNT: usize = 32;
/// `BLK_MAX_REQUEST_COUNT` before 5.16 (block/blk.h of 3.0-5.15: 16; ba0ffdd8ce48 "block: bump
/// BLK_MAX_REQUEST_COUNT to 32" in 5.16).
pub const BLK_MAX_REQUEST_COUNT_PRE_5_16: usize = 16;

/// Which request the plug's `BLK_PLUG_FLUSH_SIZE` test looks at when a new request is added
/// (a profile switch; the plug itself exists in every era the engine models: `shrink_lruvec()`
/// and the swap readaheads plug since 3.0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlugPeek {
    /// Before 4.10 there is no size test: the legacy `blk_queue_bio()` flushes the plug only
    /// when it holds `BLK_MAX_REQUEST_COUNT` requests (block/blk-core.c, 3.13-4.9).
    NoSizeTest,
    /// 4.10-6.12: the newest request (50d24c34403c / 600271d90023 "immediately dispatch big
    /// size request": `list_entry_rq(plug->list.prev)`, later `rq_list_peek()` of a list
    /// pushed at its head): a request of 128 KiB or more goes as soon as the next one starts.
    Newest,
    /// 6.13+: the oldest (`rq_list_add_tail()`, "block: add a rq_list type").
    Oldest,
}
/// `BLK_PLUG_FLUSH_SIZE` (block/blk.h, 128 KiB), in pages: `blk_add_rq_to_plug()` also
/// flushes the plug before a new request when the request it peeks at is this large.
pub const BLK_PLUG_FLUSH_PAGES: u64 = 128 * 1024 / PAGE_SIZE;
/// `BLK_MAX_SEGMENTS` (include/linux/blkdev.h, 128): a request built of bios of separate
/// pages (swap writes: one page a bio) holds at most this many pages, 512 KiB (the host's
/// loop device: swap write requests of 1024 sectors, traced 2026-11-28), unless the device's
/// `queue/max_segments` differs ([`BlockDevice::plug_rq_pages`]: the lab's QEMU virtio disk's
/// `seg_max` 254, swap write requests of 2032 sectors, lab/validation/qlat62).
pub const PLUG_RQ_MAX_PAGES: u64 = 128;

/// How many completion batches of a `complete_together` device keep their end
/// ([`BlockDevice::read_batch_done`]): a model bound, not a kernel figure. Under blk-throttle a
/// batch ends while later reads still wait in the throttle; a reader's readahead has at most a
/// few windows under read (two at the ramp's end), so 8 ends cover every read still in flight.
pub const BATCH_RING: u64 = 8;

/// A task's plug (`struct blk_plug`, block/blk-core.c `blk_start_plug()`/`blk_finish_plug()`)
/// as the engine uses it for swap I/O: the requests a swap readahead or a reclaim pass built
/// and has not dispatched yet, as (first sector in pages, pages, write), oldest first. A plug
/// started inside another is the outer one (`blk_start_plug()`: "if (tsk->plug) return"), so
/// a reclaim entered by the charge of a swap readahead's page (`__read_swap_cache_async()`)
/// adds its swap writes behind the readahead's read. blk-mq builds a request when a bio does
/// not merge into the plug's newest one (`blk_attempt_plug_merge()`: a back merge of the same
/// direction up to the device's [`BlockDevice::plug_rq_pages`], [`PLUG_RQ_MAX_PAGES`] unless it gives its
/// `max_segments`) and, before adding it, flushes the plug
/// (`blk_add_rq_to_plug()`) when it holds [`BLK_MAX_REQUEST_COUNT`] requests or when the
/// request `rq_list_peek(&plug->mq_list)` returns is at least [`BLK_PLUG_FLUSH_PAGES`]
/// ([`PlugPeek`]: no size test before 4.10; 16 requests before 5.16). Before
/// 6.13 requests were pushed at the list's head and the peek saw the newest (a large request
/// goes as soon as the next one starts); from 6.13 (`rq_list_add_tail()`) it sees the oldest:
/// behind a readahead's small read the plug holds up to 32 write requests of 512 KiB. Traced on
/// the host's 6.18 (2026-11-28, lab/measurements/swap-pending/README.md): a 24-48 sector swap
/// read issued first, then 32 write requests of 1024 sectors built over 60-280 ms of reclaim,
/// issued together, then one at a time.
#[derive(Clone, Debug, Default)]
pub struct BlkPlug {
    /// Between the outermost `blk_start_plug()` and its `blk_finish_plug()`.
    pub active: bool,
    /// The requests held, oldest first: (start, pages, write).
    pub rqs: Vec<(u64, u64, bool)>,
}

impl BlkPlug {
    /// Whether a bio of `pages` at `start` merges into the newest request held
    /// (`blk_attempt_plug_merge()`: a back merge of the same direction within `rq_max` pages,
    /// the device's [`BlockDevice::plug_rq_pages`]).
    #[inline]
    fn merges(&self, start: u64, pages: u64, write: bool, rq_max: u64) -> bool {
        self.rqs.last().is_some_and(|&(s, n, w)| w == write && s + n == start && n + pages <= rq_max)
    }

    /// `blk_add_rq_to_plug()`'s test: a bio of `pages` at `start` that does not merge makes
    /// a new request, before which the plug is flushed when it holds `max_count` requests
    /// (the era's `BLK_MAX_REQUEST_COUNT`) or the request `peek` names is at least
    /// [`BLK_PLUG_FLUSH_PAGES`].
    pub fn flush_before(&self, start: u64, pages: u64, write: bool, rq_max: u64, peek: PlugPeek, max_count: usize) -> bool {
        if self.rqs.is_empty() || self.merges(start, pages, write, rq_max) {
            return false;
        }
        let big = match peek {
            PlugPeek::NoSizeTest => false,
            PlugPeek::Newest => self.rqs[self.rqs.len() - 1].1 >= BLK_PLUG_FLUSH_PAGES,
            PlugPeek::Oldest => self.rqs[0].1 >= BLK_PLUG_FLUSH_PAGES,
        };
        self.rqs.len() >= max_count || big
    }

    /// Add the bio: merged into the newest request, or a new request.
    pub fn add(&mut self, start: u64, pages: u64, write: bool, rq_max: u64) {
        if self.merges(start, pages, write, rq_max) {
            self.rqs.last_mut().expect("a request to merge into").1 += pages;
        } else {
            self.rqs.push((start, pages, write));
        }
    }
}

/// A request's class: the legacy request list counts and limits sync and async requests
/// apart (`rl->count[is_sync]`, `rl->wait[is_sync]`); `rw_is_sync()`: reads and
/// `REQ_SYNC` writes are sync, background and reclaim writeback async. On blk-mq the class is
/// what the scheduler and its tags treat apart: reads (mq-deadline's read FIFO; the requests
/// `dd_limit_depth()` does not throttle) and writes, `REQ_SYNC` or not
/// ([`BlkQueue::write_class`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RqClass {
    /// `BLK_RW_SYNC`: reads, and on the legacy path `REQ_SYNC` writes (`WB_SYNC_ALL`
    /// writeback: fsync).
    Sync = 0,
    /// `BLK_RW_ASYNC`: writeback and swap-out (on blk-mq every write).
    Async = 1,
}

/// How the era's block layer hands out requests (a profile switch).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BlkQueue {
    /// Before 5.0, SATA/SCSI disks on the legacy request path (block/blk-core.c
    /// `__get_request()`): `nr_requests` per class; a task that finds its class full sleeps on
    /// `rl->wait[is_sync]` until `__freed_request()` frees one (`count + 1 <= nr_requests`).
    Legacy,
    /// 5.0-5.13, blk-mq (the legacy path removed in 5.0, a1ce35fa4985): one pool of
    /// `nr_requests` scheduler tags for both classes; `blk_mq_get_tag()` sleeps until a tag is
    /// freed.
    Mq,
    /// 5.14+: mq-deadline keeps a quarter of the tags for sync requests: async ones may use
    /// `async_depth = 3 * nr_requests / 4` (`dd_limit_depth()`, 07757588e507 "block/mq-deadline:
    /// Reserve 25% of scheduler tags for synchronous requests"). Not every later tree has it:
    /// Debian's 6.1 source (linux-source-6.1, block/mq-deadline.c `dd_depth_updated()`) sets
    /// `dd->async_depth = q->nr_requests` with a per-word `shallow_depth`
    /// (`dd_to_word_depth()`), no reservation; the profiles keep 3/4 for every 5.14+ era (the
    /// version history of that line is not pinned here).
    MqAsyncDepth,
}

impl BlkQueue {
    /// The class of a write bio, `REQ_SYNC` when `req_sync`. Every era submits `WB_SYNC_ALL`
    /// writeback (fsync, sync(), `filemap_write_and_wait()`) with `REQ_SYNC`: 2.6-4.9
    /// `wbc->sync_mode == WB_SYNC_ALL ? WRITE_SYNC : WRITE` in fs/mpage.c `__mpage_writepage()`
    /// (since 4.2, 5948edbcbf "fs/mpage.c: forgotten WRITE_SYNC in case of data integrity
    /// write"), fs/buffer.c `__block_write_full_page()`, ext4's `ext4_io_submit()` and xfs; 4.10+
    /// `wbc_to_write_flags()` (REQ_SYNC for WB_SYNC_ALL, REQ_BACKGROUND for kupdate and
    /// background writeback). What the flag changes is the era's:
    /// - [`BlkQueue::Legacy`] (block/blk-core.c 3.13/4.3 `get_request()`: `is_sync =
    ///   rw_is_sync(rw_flags)`): a sync request, counted and waited for in `rl->count[BLK_RW_SYNC]`
    ///   / `rl->wait[BLK_RW_SYNC]` with the reads, and CFQ's (`cfq_get_queue(cfqd, is_sync, ...)`
    ///   from `rq_is_sync()`): the submitting task's own sync queue, served before the async
    ///   queue ([`cfq`]);
    /// - blk-mq ([`BlkQueue::Mq`], [`BlkQueue::MqAsyncDepth`]): an async-class request. 5.0-5.13
    ///   share one pool of tags whatever the class; 6.1's `dd_limit_depth()` throttles every
    ///   request but a sync read ("Do not throttle synchronous reads": `op_is_sync(opf) &&
    ///   !op_is_write(opf)`), so a sync write is held to `async_depth` with the async ones; and
    ///   mq-deadline keeps one FIFO per direction (`dd_insert_request()`: `data_dir =
    ///   rq_data_dir(rq)`): a write is a write. What `REQ_SYNC` changes there is blk-wbt's limit
    ///   (`get_limit()`: `max_depth`, [`WbtOp::Sync`]).
    #[inline]
    pub fn write_class(self, req_sync: bool) -> RqClass {
        match (self, req_sync) {
            (BlkQueue::Legacy, true) => RqClass::Sync,
            _ => RqClass::Async,
        }
    }
}

/// The requests allocated and not yet retired, per class, in completion order, with the
/// counts the property tests hold: every request queued completes once
/// (`queued = completed + in the lists`).
#[derive(Clone, Debug, Default)]
pub struct RequestQueue {
    /// Per class, completion time of each allocated request, earliest first.
    rq: [VecDeque<Nanos>; 2],
    /// Requests allocated (`blk_get_request()`), ever.
    pub queued: u64,
    /// Of those, per class.
    pub pushed: [u64; 2],
    /// Bios merged into the last request instead of allocating one.
    pub merged: u64,
    /// Requests completed and freed (`__blk_put_request()` / `blk_mq_free_request()`).
    pub completed: u64,
    /// The last request: its class, pages, and when the device starts it.
    last: Option<(RqClass, u64, Nanos)>,
    /// The direction of the last request.
    last_dir: Option<Dir>,
}

impl RequestQueue {
    /// Requests of `class` allocated and not completed at `now`.
    #[inline]
    pub fn in_flight(&self, class: RqClass, now: Nanos) -> u64 {
        let q = &self.rq[class as usize];
        (q.len() - q.partition_point(|&t| t <= now)) as u64
    }

    /// The first completion after `now` in `class`.
    #[inline]
    fn next_completion(&self, class: RqClass, now: Nanos) -> Option<Nanos> {
        let q = &self.rq[class as usize];
        q.get(q.partition_point(|&t| t <= now)).copied()
    }

    /// Allocate a request of `class` completing at `done` (kept in completion order).
    #[inline]
    fn push(&mut self, class: RqClass, done: Nanos) {
        self.rq[class as usize].push_back(done);
        self.queued += 1;
        self.pushed[class as usize] += 1;
    }

    /// Free the requests completed by `horizon` (each once).
    #[inline]
    pub fn retire(&mut self, horizon: Nanos) {
        for q in &mut self.rq {
            while let Some(&t) = q.front() {
                if t > horizon {
                    break;
                }
                q.pop_front();
                self.completed += 1;
            }
        }
    }

    /// Requests held in the lists (completed ones not retired yet included).
    pub fn held(&self) -> u64 {
        (self.rq[0].len() + self.rq[1].len()) as u64
    }

    /// Whether each class's completion times are in order.
    pub fn ordered(&self) -> bool {
        self.rq.iter().all(|q| q.iter().zip(q.iter().skip(1)).all(|(a, b)| a <= b))
    }
}

/// Direction of a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `REQ_OP_READ`.
    Read,
    /// `REQ_OP_WRITE`.
    Write,
}

/// A block device with its queue state and statistics (`/sys/block/<dev>/stat`).
#[derive(Clone, Debug)]
pub struct BlockDevice {
    /// Device name (`sda`, `vda`).
    pub name: String,
    /// Sequential read bandwidth, bytes per second.
    pub read_bw: u64,
    /// Sequential write bandwidth, bytes per second.
    pub write_bw: u64,
    /// Access latency paid by a request that does not continue the previous one.
    pub seek_ns: Nanos,
    /// `queue/read_ahead_kb`: the readahead window limit (`bdi->ra_pages`).
    pub read_ahead_kb: u64,
    /// When the queue is next idle.
    pub busy_until: Nanos,
    /// Device page after the end of the last request.
    pub last_end: u64,
    /// Bytes read (sectors read * 512 in /sys/block/<dev>/stat).
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Requests served.
    pub ios: u64,
    /// Time the device was busy (`io_ticks`).
    pub busy_ns: Nanos,
    /// Next free device page for new files.
    pub next_free_page: u64,
    /// `queue/nr_requests`.
    pub nr_requests: u64,
    /// The allocated requests.
    pub queue: RequestQueue,
    /// `read_bw` and `write_bw` are blk-throttle limits over a faster disk: reads have a time
    /// line of their own (`read_busy_until`, `read_last_end`); `busy_until` and `last_end`
    /// are the writes' (so with `qemu_throttle`).
    pub blk_throttle: bool,
    /// `read_bw` and `write_bw` are a QEMU throttle group's `throttling.bps-read` and
    /// `throttling.bps-write` (the lab's guest disks): each direction has its own bucket and its
    /// own queue of throttled requests (block/throttle-groups.c `throttled_reqs[direction]`),
    /// so a read waits behind reads only: reads have their own time line, as with
    /// `blk_throttle`, on the device's one request queue (the guest's tags). The buckets let
    /// a tenth of a second's budget through at once ([`LeakyBucket`], `qemu_bucket`).
    pub qemu_throttle: bool,
    /// With `blk_throttle` or `qemu_throttle`: when the reads' line is next free.
    pub read_busy_until: Nanos,
    /// With `blk_throttle` or `qemu_throttle`: device page after the last read.
    pub read_last_end: u64,
    /// The device's own queue when the scenario gives one (`queue_depth`): requests served
    /// in parallel ([`HwQueue`]); `None`: one after the other on `busy_until`'s time line.
    pub hw: Option<HwQueue>,
    /// With `blk_throttle`: the throttle group's reads and writes (blk_throttle.rs).
    pub throtl: [crate::blk_throttle::ThrotlGrp; 2],
    /// While [`BlockDevice::submit_swap_write`] submits a swap write that blk-throttle
    /// dispatches in debt (`bio_issue_as_root_blkg()`, [`crate::blk_throttle::ThrotlGrp::throtl_bio_in_debt`]).
    pub swap_in_debt: bool,
    /// The device completes the reads in flight together, when the last of them is done
    /// ([`BlockDevice::read_batch`]); `false`: each read completes when its own transfer is.
    pub complete_together: bool,
    /// With `complete_together`: the current batch of reads (1, 2, ...; 0 before the first).
    pub batch: u64,
    /// With `complete_together`: when the current batch's last read is done.
    pub batch_end: Nanos,
    /// With `complete_together`: the ends of the last `BATCH_RING` batches (batch `b` at
    /// `b % BATCH_RING`): under blk-throttle a read held by the throttle opens the next batch
    /// while the reads before it are still on the device.
    pub batch_ends: [Nanos; BATCH_RING as usize],
    /// With `qemu_throttle`: the throttle group's `bps-read` and `bps-write` buckets.
    pub qemu_bucket: [LeakyBucket; 2],
    /// The I/O scheduler (`queue/scheduler`): reorders on a device serving one request at a
    /// time ([`elevator`]).
    pub sched: Elevator,
    /// When the sync requests given to the device so far are done.
    pub sync_until: Nanos,
    /// Device page after the last sync request placed before pending async ones.
    pub sync_last_end: u64,
    /// The requests the driver takes from the scheduler (a SCSI disk's `queue_depth`, blk-mq's
    /// driver tags): those the scheduler can no longer reorder.
    pub driver_depth: u64,
    /// `queue/max_sectors_kb` in pages: the largest request, whatever serves it
    /// (`bio_split_rw()`, 6.1's `blk_queue_split()`, cuts a bio at it and a back merge stops
    /// there), and `bdi->io_pages` ([`BlockDevice::io_pages`]). `MAX_REQUEST_PAGES` unless the
    /// scenario gives the device's (`max_sectors_kb`: 1280 on the host's loop device; the lab's
    /// guest virtio disk reports 1280 in `real.machine.queue`, but its requests are bounded by
    /// its `max_segments` too, not recorded, and the QEMU scenarios do not give it).
    pub max_pages: u64,
    /// blk-wbt (`queue/wbt_lat_usec`, [`wbt`]): the tracked writes in flight and their limits.
    pub wbt: Wbt,
    /// The loop driver's worker (`[devices.X] worker_wakeup_latency`, [`LoopWorker`]): off
    /// without samples.
    pub worker: LoopWorker,
    /// `[devices.X] segment_cost` on a device serving one request at a time (no [`HwQueue`]):
    /// each of a request's segments adds this to its transfer (the disk's backend serving a
    /// request descriptor by descriptor, [`HwQueue::segment_cost`]; the lab host's vda: 8 MiB
    /// into 4 KiB pages 3.34-3.57 ms, into 2 MiB ones 1.16-1.19 ms, lab/measurements/segment_cost.py:
    /// about 1.1 us a segment). Not on a throttled device (its transfer is not modelled). 0: none.
    pub segment_cost: Nanos,
    /// `queue/max_segments` (`[devices.X] max_segments`; [`PLUG_RQ_MAX_PAGES`], the block
    /// layer's `BLK_MAX_SEGMENTS`, unless given): the most one-page bios a plugged request
    /// holds ([`BlockDevice::plug_rq_pages`]).
    pub max_segments: u64,
    /// With `qemu_throttle`: QEMU's service of a write request once it left the throttle, a
    /// fixed part (`[devices.X] write_latency`) and `write_service_bw` bytes a second
    /// ([`BlockDevice::qemu_write_service`]); 0 and 0: done when it leaves the throttle.
    pub write_latency: Nanos,
    /// See `write_latency` (0: no per-byte part).
    pub write_service_bw: u64,
}

/// Mixed into `kernel.boot_seed` for a loop device's worker wake-up draws
/// ([`LoopWorker::rand`]), so that they are a stream of their own (any constant: only apartness
/// matters); the device's index is mixed in too.
pub const LOOP_WORKER_RAND_SALT: u64 = 0x6C6F_6F70_776B_7232;

/// Mixed into `kernel.boot_seed` for a device queue's batch bandwidth draws
/// ([`HwQueue::batch_rand`]), a stream of its own like [`LOOP_WORKER_RAND_SALT`]'s.
pub const HW_BATCH_RAND_SALT: u64 = 0x6877_6261_7463_6832;

/// The loop driver's dispatch of its requests to the backing file (drivers/block/loop.c, 6.18,
/// the host runner's loop device): `loop_queue_rq()` -> `loop_queue_work()` adds every request
/// (read, write, flush) to the worker's command list (`rootcg_cmd_list`, or a blkcg's worker's)
/// and `queue_work()`s the worker's work on the device's `WQ_UNBOUND` workqueue `loopN`;
/// a kworker of the unbound pool then runs `loop_workfn()`/`loop_rootcg_workfn()` ->
/// `loop_process_work()`, which takes the commands off the list in order until it is empty
/// and hands each to the backing file (`lo_rw_aio()` with direct I/O: submitted, not waited
/// for). So which requests wait: one queued while the work is idle waits for `queue_work()`'s
/// wake-up of a kworker (`__queue_work()` -> `kick_pool()` -> `wake_up_process()`) to run it;
/// one queued while the work is pending (woken, not yet running: `WORK_STRUCT_PENDING`, so
/// `queue_work()` does nothing) joins the list and goes with that run. The handing over itself
/// (`lo_rw_aio()`'s submission) costs no modelled time, so the run is over at its start and the
/// next request finds the work idle again. Every request of the device takes this path in
/// 6.18; 6.19's 0ba93a906dda ("loop: try to handle loop aio command via NOWAIT IO first")
/// submits a direct-I/O request from `loop_queue_rq()` itself and queues the work only when
/// that returns -EAGAIN (not modelled: no 6.19 profile). The wake-up's wait is one of the
/// device's samples (`[devices.X] worker_wakeup_latency`, what the host runner records as the
/// run-queue wait of the unbound pool's kworkers the loop work runs on,
/// `real.machine.kthread_waits.unbound_kworker`), drawn in turn.
/// The completion side (`lo_rw_aio_complete()` -> `blk_mq_complete_request()`, which on the
/// loop device's single hardware queue raises BLOCK_SOFTIRQ on the completing CPU) is not a
/// worker and not delayed here. Fixed memory: the samples are given with the device.
#[derive(Clone, Debug, Default)]
pub struct LoopWorker {
    /// The wake-up samples; empty: no worker delay (a device that is not a loop device, or whose
    /// worker's wait is not given).
    pub wakeup_latency: Vec<Nanos>,
    /// The state of the draws from `wakeup_latency` (seeded per boot and device).
    pub rand: u64,
    /// The last run: when the work was queued idle (its kworker woken) and when the run starts
    /// (the kworker switched in); a request queued from the first up to the second joins it.
    /// `None` before the first request.
    pub run: Option<(Nanos, Nanos)>,
}

impl LoopWorker {
    /// One of the wake-up samples, drawn in turn.
    #[inline]
    fn draw(&mut self) -> Nanos {
        let i = crate::lru_gen::get_random_u32_below(&mut self.rand, self.wakeup_latency.len() as u64) as usize;
        self.wakeup_latency[i]
    }

    /// A worker drawing from `samples` (none: off), its draws seeded from `boot_seed` and the
    /// device's index `dev`.
    pub fn new(samples: Vec<Nanos>, boot_seed: u64, dev: u64) -> Self {
        LoopWorker {
            wakeup_latency: samples,
            rand: crate::lru_gen::memcg_lru_rand_seed(boot_seed ^ LOOP_WORKER_RAND_SALT ^ dev),
            run: None,
        }
    }

    /// `loop_queue_work()` of a request reaching the loop driver at `at` (its submission, or its
    /// release by blk-throttle): when the worker hands it to the backing file. The run that is
    /// pending at `at` (woken at or before `at`, starting at or after it), else a new run a
    /// drawn wake-up after `at`. A request reaching the driver before the last wake-up (a write
    /// released earlier than the read computed before it) wakes a run of its own without moving
    /// the pending one. `at` itself without samples.
    #[inline]
    pub fn loop_queue_work(&mut self, at: Nanos) -> Nanos {
        if self.wakeup_latency.is_empty() {
            return at;
        }
        match self.run {
            Some((woken, run)) if woken <= at && at <= run => return run,
            Some((woken, _)) if at < woken => return at + self.draw(),
            _ => {}
        }
        let run = at + self.draw();
        self.run = Some((at, run));
        run
    }
}

/// One direction's bucket of a QEMU throttle group (`LeakyBucket`, util/throttle.c, QEMU 7.2 as
/// the lab runs it: `throttling.bps-read`/`-write` set, no `bps-*-max`, `burst_length` 1) with
/// its queue of throttled requests (`throttled_reqs[direction]`, block/throttle-groups.c)
/// reduced to when the last one leaves it.
///
/// The bucket's `level` leaks at `avg` bytes a second (`throttle_leak_bucket()`). A request may
/// go when the level is at most `max`, which `throttle_fix_bucket()` sets to `avg / 10` when no
/// burst rate is given ("a max burst value of 100ms of the average"): `throttle_compute_wait()`
/// waits `(level - max) / avg` otherwise. A request that goes adds its bytes to the level
/// (`throttle_account()`), so the level may end above `max`. Requests of a direction leave in
/// order: one arriving while others wait queues behind them
/// (`throttle_group_co_io_limits_intercept()`: `must_wait || tgm->pending_reqs[is_write]`).
/// A guest reading slower than `avg` so finds its requests let through at once, up to a tenth
/// of a second's budget ahead; only a faster one is held to `avg`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LeakyBucket {
    /// `bkt->level` in bytes, at `at`.
    pub level: u64,
    /// When `level` was last leaked (`ts->previous_leak`).
    pub at: Nanos,
    /// When the last request queued in this direction left the throttle.
    pub queued_until: Nanos,
    /// The latest arrival so far. The engine runs each task's quantum whole, so a task whose
    /// clock is behind another's may submit after it in the engine's order but before it in
    /// time; QEMU queues a request only behind the requests pending when it arrives, so one
    /// that arrived before the latest is not held behind it (iso23).
    pub last_arrival: Nanos,
}

impl LeakyBucket {
    /// `throttle_group_co_io_limits_intercept()` of a request of `bytes` arriving at `now` under
    /// `avg` bytes a second: when it leaves the throttle (and is accounted).
    ///
    /// The bucket's state (`level` at `at`) never moves back in time. A request that arrived
    /// before the latest arrival (processed late: another task's clock ran ahead) is accounted
    /// at the bucket's time `at`, the level leaked up to `max(now, at)` only, and leaves at
    /// `max(now, at + (level - max) / avg)`: the time the bucket, holding every byte already
    /// released, would let a request through (`throttle_compute_wait()` read backwards from `at`
    /// when the level is under `max`). Bytes let through in any interval so stay within
    /// `avg` a second plus `max` plus one request whatever the engine's order of arrivals
    /// (review12 H2: the leak clock set back to an early arrival's release leaked one interval
    /// twice and let up to twice `avg` through), while such a request is still not queued behind
    /// the later arrival (iso23: only the rate holds it).
    pub fn release(&mut self, bytes: u64, now: Nanos, avg: u64) -> Nanos {
        let avg = avg.max(1);
        // Behind the requests queued when it arrives: not behind one that arrived after it in
        // time (submitted earlier in the engine's order by a task whose clock ran ahead).
        let mut t = if now < self.last_arrival { now } else { now.max(self.queued_until) };
        self.last_arrival = self.last_arrival.max(now);
        // throttle_do_leak(), at the bucket's own time: never before its last leak.
        let at = t.max(self.at);
        let leaked = (avg as u128 * (at - self.at) as u128 / NSEC_PER_SEC as u128).min(u64::MAX as u128) as u64;
        self.level = self.level.saturating_sub(leaked);
        self.at = at;
        // throttle_compute_wait(): max = avg / 10 (throttle_fix_bucket()).
        let max = avg / 10;
        if self.level > max {
            let go = at + xfer_ns(self.level - max, avg);
            t = t.max(go);
            self.level = max;
            self.at = go;
        } else {
            // An early arrival: the bucket at `at` would have let it through from
            // `at - (max - level) / avg` on (a later arrival has none: t >= at).
            t = t.max(at.saturating_sub(xfer_ns(max - self.level, avg)));
        }
        self.level += bytes;
        self.queued_until = self.queued_until.max(t);
        t
    }
}

/// A device that serves the requests in flight together (the host runner's loop device with
/// direct I/O over the VM's virtio disk; an NVMe or virtio disk in general): blk-mq hands a
/// request to the driver when it holds a driver tag (`blk_mq_get_driver_tag()` in
/// `blk_mq_dispatch_rq_list()`, block/blk-mq.c), of which the tag set has `queue_depth`
/// (`tag_set.queue_depth`: loop's `hw_queue_depth` module parameter, 128 by default in 6.x,
/// drivers/block/loop.c; a virtio-blk queue's ring size), and every request the driver holds
/// is under way at once (loop's `lo_rw_aio()` submits each as an asynchronous kiocb to the
/// backing file; virtio-blk places each in the ring).
///
/// What a request costs, as the lab measures it (lab/validation/loop-device.md):
/// - alone, `latency + bytes / request_bw[dir]`: the per-request latency of the path below the
///   driver and the rate one request gets (on the host 52 us and 1.4 GB/s for reads);
/// - requests in flight together share the device's bandwidth (`read_bw`/`write_bw`, the
///   aggregate a deep queue reaches) and each costs `request_cost` of it besides its bytes:
///   a time line of the shared bandwidth gives the earliest a request's bytes can all have
///   moved, so the last of N equal requests issued together completes after N times its
///   share, as on the host (N requests of 1 MiB issued together complete together, N x 0.3 ms
///   after issue);
/// - completions in order: a request completes no earlier than the one dispatched before it
///   (the host completes a batch together; the engine, which fixes a request's completion when
///   it is submitted, cannot move an earlier one later, so it completes the batch's first
///   requests as their bytes are done and the rest in order).
///
/// With `blk_throttle` each direction has its own [`HwLine`] (the throttle releases each
/// direction's bios on its own budget, in order within a direction but not across them: a
/// shared line would make a read wait for a write the throttle releases later); without it one
/// line serves both directions. Fixed memory (`queue_depth` completion times per line, reserved
/// when the device is made): a request costs O(1) whatever the queue's length.
#[derive(Clone, Debug)]
pub struct HwQueue {
    /// `tag_set.queue_depth`: requests the device serves at once.
    pub depth: u32,
    /// What a request alone takes besides its transfer.
    pub latency: Nanos,
    /// The rate one request alone transfers at, per direction (read, write), bytes/s.
    pub request_bw: [u64; 2],
    /// The bandwidth requests in flight share, per direction (read, write), bytes/s.
    pub bw: [u64; 2],
    /// Time of the shared bandwidth each request takes besides its bytes (the per-request
    /// work of the driver and the path below it that requests in flight do not overlap).
    pub request_cost: Nanos,
    /// Time of the shared bandwidth each of a request's segments takes besides its bytes
    /// (`[devices.X] segment_cost`; 0: none). A segment is a physically contiguous run of the
    /// request's memory (`rq->nr_phys_segments`: `bio_add_folio()` -> `bvec_try_merge_page()`
    /// merges a folio into the bio's last bvec when its memory follows it, block/bio.c 6.18).
    /// The loop device with direct I/O hands the request's bvecs to the backing file as they are
    /// (drivers/block/loop.c `lo_rw_aio()`: `iov_iter_bvec()` over `rq_for_each_bvec()`, the
    /// backing file's `->read_iter()` with `IOCB_DIRECT`; fs/iomap/direct-io.c ->
    /// `bio_iov_iter_get_pages()`, whose `bio_iov_bvec_set()` reuses the bvec array for an
    /// ITER_BVEC), so the disk beneath gets one scatter-gather entry a segment
    /// (drivers/block/virtio_blk.c `virtblk_map_data()` -> `blk_rq_map_sg()`, one virtqueue
    /// descriptor each) and its backend serves the request descriptor by descriptor: the lab
    /// host's disk reads 8 MiB in 4 KiB-page segments at 2.35-2.51 GB/s and in 2 MiB ones at
    /// 7.1-7.2 (lab/measurements/segment_cost.py), its loop device an order-0 page cache's
    /// windows at about half the rate of a large-folio one's (segment_cost_buffered.py).
    pub segment_cost: Nanos,
    /// `queue/max_segments` (`[devices.X] max_segments`; the loop device's is 128,
    /// `BLK_MAX_SEGMENTS`, which loop.c leaves): `bio_split_rw()` -> `bio_split_rw_at()` cuts a
    /// bio at it as at `max_sectors_kb`. `u64::MAX`: no limit of its own.
    pub max_segments: u64,
    /// One line, or one per direction with `blk_throttle`.
    pub lines: [HwLine; 2],
    /// `queue/max_sectors_kb` in pages: the largest request (`bio_split_rw()` cuts at it; the
    /// loop device's is 2560 sectors = 1280 KiB (`BLK_DEF_MAX_SECTORS`, drivers/block/loop.c 6.1;
    /// `BLK_DEF_MAX_SECTORS_CAP` later); a device
    /// without a queue of its own has `MAX_REQUEST_PAGES`).
    pub max_pages: u64,
    /// Samples of the read bandwidth one batch's requests share (`[devices.X]
    /// queue_read_bw_batches`, bytes/s; empty: `bw[0]` always). A batch is a busy period of the
    /// shared line: a read request dispatched when the line has moved everything before it
    /// draws one, and every request that joins before the line is idle again moves at it. What
    /// the draws stand for is below the guest kernel: the host runner's loop device hands each
    /// request to the virtio disk beneath (`lo_rw_aio()` -> the backing file's direct I/O ->
    /// `virtblk_map_data()`), whose backend (the hypervisor) serves the batch and ends it at
    /// once; on an idle host its batches of two 8 MiB readahead windows took 2.32-2.69 GB/s
    /// from one batch to the next (lab/measurements/loop_device_table.py), a spread the kernel's
    /// readers meet and a constant `bw[0]` does not give.
    pub read_bw_batches: Vec<u64>,
    /// The state of the draws from `read_bw_batches` (seeded per boot and device).
    pub batch_rand: u64,
    /// `[devices.X] ring_descriptors`: the descriptors of the virtio ring the requests reach
    /// beneath the device (0: none, only the tags bound what is in flight). A virtio-blk disk
    /// without `VIRTIO_RING_F_INDIRECT_DESC` (drivers/block/virtio_blk.c, read in 6.1 and the same
    /// in later trees; the lab's 6.18 traced doing it, lab/validation/ct57: `virtblk_add_req()`
    /// -> `virtqueue_add_sgs()`: the header, one entry a segment from `virtblk_map_data()`, the
    /// status) gives a request its segments + 2 of them ([`RING_REQ_DESCRIPTORS`]), and the guest
    /// gets them back only in `virtblk_done()`, at the queue's interrupt. When they do not fit,
    /// `virtio_queue_rq()` stops the hardware queue and returns `BLK_STS_DEV_RESOURCE` (the request
    /// is requeued) and `virtblk_done()`'s `blk_mq_start_stopped_hw_queues()` dispatches it again:
    /// behind a backend that serves its ring in rounds and raises one interrupt a round
    /// (Firecracker's `Sync` engine, [`BlockDevice::read_batch`]) the request goes in the next
    /// round. The host runner's loop device passes its requests' segments through
    /// (`lo_rw_aio()`'s ITER_BVEC, iomap's `bio_iov_bvec_set()`), so its 128-segment requests
    /// (`BLK_MAX_SEGMENTS`) of order-0 pages fill the lab's 256-descriptor vda ring one at a time
    /// (traced, lab/validation/ct57: at 448 and 185 failed dispatches the ring held one request,
    /// p50, of 512 KiB).
    pub ring: u64,
}

/// What a virtio-blk request takes of its ring besides one descriptor a segment: the request
/// header and the status byte (drivers/block/virtio_blk.c 6.1 `virtblk_add_req()`: `sgs[]` of
/// `hdr`, the data's scatterlist, `status`), without indirect descriptors ([`HwQueue::ring`]).
pub const RING_REQ_DESCRIPTORS: u64 = 2;

/// The state of one of [`HwQueue`]'s lines.
#[derive(Clone, Debug, Default)]
pub struct HwLine {
    /// Completion times of the requests holding driver tags, the latest `depth`, in order.
    tags: VecDeque<Nanos>,
    /// When the shared bandwidth has moved every byte dispatched so far.
    bw_until: Nanos,
    /// Completion of the last request dispatched.
    last_done: Nanos,
    /// When the last request alone would be done (its latency and own transfer).
    last_own: Nanos,
    /// The read bandwidth of the batch under way (`HwQueue::read_bw_batches`' draw; 0: none drawn).
    batch_bw: u64,
    /// With [`HwQueue::ring`]: the descriptors the requests dispatched since the ring was last
    /// emptied hold (`virtblk_done()` returns them at the round's end, `last_done`).
    ring_used: u64,
    /// With [`HwQueue::ring`]: whether the last [`HwQueue::dispatch`] waited for the round's end
    /// (its descriptors did not fit).
    ring_waited: bool,
}

impl HwQueue {
    /// A device queue of `depth` driver tags; `request_bw` (one request alone) and `bw`
    /// (shared) per direction (read, write).
    pub fn new(depth: u32, latency: Nanos, request_bw: [u64; 2], bw: [u64; 2], request_cost: Nanos) -> Self {
        let depth = depth.max(1);
        let line = || HwLine { tags: VecDeque::with_capacity(depth as usize), ..HwLine::default() };
        HwQueue {
            depth,
            latency,
            request_bw: [request_bw[0].max(1), request_bw[1].max(1)],
            bw: [bw[0].max(1), bw[1].max(1)],
            request_cost,
            segment_cost: 0,
            max_segments: u64::MAX,
            lines: [line(), line()],
            max_pages: MAX_REQUEST_PAGES,
            read_bw_batches: Vec::new(),
            batch_rand: 0,
            ring: 0,
        }
    }

    /// The same queue over a virtio ring of `descriptors` without indirect descriptors
    /// ([`HwQueue::ring`]; 0: none).
    pub fn with_ring(mut self, descriptors: u64) -> Self {
        self.ring = descriptors;
        self
    }

    /// The same queue drawing each read batch's shared bandwidth from `samples` (none: `bw[0]`
    /// always; [`HwQueue::read_bw_batches`]), seeded from `boot_seed` and the device's index `dev`.
    pub fn with_read_bw_batches(mut self, samples: Vec<u64>, boot_seed: u64, dev: u64) -> Self {
        self.read_bw_batches = samples.into_iter().map(|b| b.max(1)).collect();
        self.batch_rand = crate::lru_gen::memcg_lru_rand_seed(boot_seed ^ HW_BATCH_RAND_SALT ^ dev);
        self
    }

    /// The shared bandwidth of a request of direction `dir` on line `line` that may start a
    /// batch at `start` ([`HwQueue::read_bw_batches`]).
    #[inline]
    fn shared_bw(&mut self, line: usize, dir: Dir, start: Nanos) -> u64 {
        if dir != Dir::Read || self.read_bw_batches.is_empty() {
            return self.bw[dir as usize];
        }
        let l = &mut self.lines[line];
        if l.batch_bw == 0 || start >= l.bw_until {
            let i = crate::lru_gen::get_random_u32_below(&mut self.batch_rand, self.read_bw_batches.len() as u64) as usize;
            l.batch_bw = self.read_bw_batches[i];
        }
        l.batch_bw
    }

    /// The same queue with `cost` of the shared bandwidth a segment and requests of at most
    /// `max_segments` segments (0: no limit of its own).
    pub fn with_segments(mut self, cost: Nanos, max_segments: u64) -> Self {
        self.segment_cost = cost;
        self.max_segments = if max_segments == 0 { u64::MAX } else { max_segments };
        self
    }

    /// The same queue with requests of at most `max_sectors_kb` KiB.
    pub fn with_max_sectors_kb(mut self, kb: u64) -> Self {
        self.max_pages = (kb * 1024 / PAGE_SIZE).max(1);
        self
    }

    /// `blk_mq_dispatch_rq_list()` -> the driver's `->queue_rq()` and the device's completion
    /// (`blk_mq_complete_request()`) of one request of `bytes` in direction `dir` on line
    /// `line`, ready to go at `at` (submitted, or released by blk-throttle), paying `seek` alone
    /// when it does not continue the last one, over the bandwidth the requests in flight share,
    /// `request_cost` and `segs` times `segment_cost` of it besides its bytes. Waits
    /// for a driver tag when `depth` requests are under way (the completion of the request
    /// `depth` places before it). Returns (dispatch, completion).
    pub fn dispatch(&mut self, line: usize, dir: Dir, bytes: u64, segs: u64, at: Nanos, seek: Nanos) -> (Nanos, Nanos) {
        let own_bw = self.request_bw[dir as usize];
        let (depth, latency, cost) = (self.depth as usize, self.latency, self.request_cost + segs * self.segment_cost);
        let mut start = at;
        if self.lines[line].tags.len() == depth {
            start = start.max(self.lines[line].tags.pop_front().expect("a full queue holds a tag"));
        }
        self.ring_dispatch(line, segs, &mut start);
        let bw = self.shared_bw(line, dir, start);
        let l = &mut self.lines[line];
        l.bw_until = l.bw_until.max(start) + cost + xfer_ns(bytes, bw);
        l.last_own = start + latency + seek + xfer_ns(bytes, own_bw);
        let done = l.last_own.max(l.bw_until).max(l.last_done);
        l.last_done = done;
        l.tags.push_back(done);
        (start, done)
    }

    /// `virtio_queue_rq()` -> `virtblk_add_req()` of a request of `segs` segments on line `line`
    /// at `start` over the ring ([`HwQueue::ring`]; nothing without one): the ring is empty once
    /// everything dispatched is done (`virtblk_done()` took every used buffer); else when the
    /// request's segments + [`RING_REQ_DESCRIPTORS`] do not fit beside what the round's requests
    /// hold (-ENOSPC), it is dispatched at the round's end (`blk_mq_start_stopped_hw_queues()` in
    /// `virtblk_done()`; its kblockd run is not modelled) into an empty ring. A request of more
    /// segments than the ring holds takes the whole ring (the disk's own `max_segments`, the
    /// ring's size - 2 in `virtblk_probe()`, would have split it).
    #[inline]
    fn ring_dispatch(&mut self, line: usize, segs: u64, start: &mut Nanos) {
        let ring = self.ring;
        let l = &mut self.lines[line];
        l.ring_waited = false;
        if ring == 0 {
            return;
        }
        let need = (segs + RING_REQ_DESCRIPTORS).min(ring);
        if *start >= l.last_done {
            l.ring_used = 0;
        } else if l.ring_used + need > ring {
            *start = l.last_done;
            l.ring_used = 0;
            l.ring_waited = true;
        }
        l.ring_used += need;
    }

    /// Whether the last [`HwQueue::dispatch`] on `line` waited for the ring's round to end
    /// ([`HwQueue::ring`]).
    #[inline]
    pub fn ring_waited(&self, line: usize) -> bool {
        self.lines[line].ring_waited
    }

    /// A bio of `bytes` back-merged into the last request of `line` before it started
    /// (`blk_attempt_plug_merge()`): the request grows, on the shared line and alone, and
    /// completes later, by its bytes and `segs` segments. Returns its new completion.
    pub fn extend(&mut self, line: usize, dir: Dir, bytes: u64, segs: u64) -> Nanos {
        // the request's batch is under way: its bandwidth (`read_bw_batches`' draw) holds
        let batch = self.lines[line].batch_bw;
        let own_bw = self.request_bw[dir as usize];
        let bw = if dir == Dir::Read && !self.read_bw_batches.is_empty() && batch != 0 { batch } else { self.bw[dir as usize] };
        let seg_cost = segs * self.segment_cost;
        let ring = self.ring;
        let l = &mut self.lines[line];
        if ring != 0 {
            // the merged bio's segments go in the request's scatterlist: descriptors of its own
            // (over the ring's size, as `ring_dispatch()` caps a request: the round holds them)
            l.ring_used = (l.ring_used + segs).min(ring);
        }
        l.bw_until += seg_cost + xfer_ns(bytes, bw);
        l.last_own += xfer_ns(bytes, own_bw);
        let done = l.last_own.max(l.bw_until).max(l.last_done);
        l.last_done = done;
        *l.tags.back_mut().expect("the last request holds a tag") = done;
        done
    }
}

/// Nanoseconds to move `bytes` at `bw` bytes/s.
#[inline]
fn xfer_ns(bytes: u64, bw: u64) -> Nanos {
    (bytes as u128 * NSEC_PER_SEC as u128 / bw.max(1) as u128) as Nanos
}

impl BlockDevice {
    /// A device with the given performance.
    pub fn new(name: &str, read_bw: u64, write_bw: u64, seek_ns: Nanos, read_ahead_kb: u64) -> Self {
        BlockDevice {
            name: name.to_string(),
            read_bw: read_bw.max(1),
            write_bw: write_bw.max(1),
            seek_ns,
            read_ahead_kb,
            busy_until: 0,
            last_end: u64::MAX,
            read_bytes: 0,
            write_bytes: 0,
            ios: 0,
            busy_ns: 0,
            next_free_page: 0,
            nr_requests: BLKDEV_MAX_RQ,
            queue: RequestQueue::default(),
            blk_throttle: false,
            swap_in_debt: false,
            qemu_throttle: false,
            read_busy_until: 0,
            read_last_end: u64::MAX,
            hw: None,
            throtl: Default::default(),
            complete_together: false,
            batch: 0,
            batch_end: 0,
            batch_ends: [0; BATCH_RING as usize],
            qemu_bucket: Default::default(),
            max_segments: PLUG_RQ_MAX_PAGES,
            write_latency: 0,
            write_service_bw: 0,
            sched: Elevator::default(),
            sync_until: 0,
            sync_last_end: u64::MAX,
            driver_depth: 31,
            max_pages: MAX_REQUEST_PAGES,
            wbt: Wbt::default(),
            worker: LoopWorker::default(),
            segment_cost: 0,
        }
    }

    /// The same device paying `cost` a segment when it serves one request at a time
    /// ([`BlockDevice::segment_cost`]).
    pub fn with_segment_cost(mut self, cost: Nanos) -> Self {
        self.segment_cost = cost;
        self
    }

    /// The same device as a loop device whose worker waits `samples` to run when woken
    /// ([`LoopWorker`]; empty: off), drawn from a stream of boot `boot_seed` and device index `dev`.
    pub fn with_loop_worker(mut self, samples: Vec<Nanos>, boot_seed: u64, dev: u64) -> Self {
        self.worker = LoopWorker::new(samples, boot_seed, dev);
        self
    }

    /// The same device with blk-wbt at `wbt_lat_usec` (0: off) over a queue of `queue_depth`
    /// with a write-back cache `wc` (`wbt_init()`).
    pub fn with_wbt(mut self, lat_usec: u64, queue_depth: u32, wc: bool) -> Self {
        self.wbt = Wbt::new(lat_usec, queue_depth, wc);
        self
    }

    /// Whether blk-wbt throttles this device's writes: enabled, and not under blk-throttle,
    /// which holds bios before they are given a request (`blk_throtl_bio()` in
    /// `submit_bio_noacct()` comes before `rq_qos_throttle()` in `blk_mq_submit_bio()`): the
    /// flusher is never put to sleep there, and the bios the throttle releases complete on the
    /// disk beneath at once (their transfer is not modelled), so none stays in flight to be
    /// counted.
    #[inline]
    pub fn wbt_on(&self) -> bool {
        self.wbt.enabled() && !self.blk_throttle
    }

    /// `rq_qos_throttle()` -> `wbt_wait()` for a write bio of `pages` at `start` submitted at
    /// `now` as `op`: when its writer is let through ([`Wbt::wait`]); `now` when it merges
    /// into the last request (`blk_mq_attempt_bio_merge()` comes first: a merged bio is not
    /// throttled) or blk-wbt is off. `recent_wait_until`: the end of `wb_recent_wait()`. `class`:
    /// the write's request class ([`BlkQueue::write_class`]).
    pub fn wbt_release(&mut self, start: u64, pages: u64, now: Nanos, op: WbtOp, recent_wait_until: Nanos, class: RqClass) -> Nanos {
        if !self.wbt_on() {
            return now;
        }
        let (_, _, line_end) = self.line_of(Dir::Write);
        if self.back_merge(Dir::Write, class, start, pages, line_end, now).is_some() {
            return now;
        }
        self.wbt.wait(op, now, recent_wait_until)
    }

    /// `submit_bio()` of a write let through by blk-wbt at `release`
    /// ([`BlockDevice::wbt_release`]): the requests it makes are tracked until they complete
    /// (`wbt_track()`, `wbt_done()`). `class`: the write's request class
    /// ([`BlkQueue::write_class`]). Returns the completion of the last.
    pub fn submit_tracked(&mut self, start: u64, pages: u64, release: Nanos, class: RqClass) -> Nanos {
        let before = self.queue.queued;
        let done = self.submit_class(Dir::Write, class, start, pages, release);
        if self.wbt_on() && self.queue.queued > before {
            self.wbt.track(release, done);
        }
        done
    }

    /// The same device whose driver takes `depth` requests from the scheduler.
    pub fn with_driver_depth(mut self, depth: u64) -> Self {
        self.driver_depth = depth.max(1);
        self
    }

    /// The same device with the I/O scheduler `kind`.
    pub fn with_sched(mut self, kind: SchedKind) -> Self {
        self.sched = Elevator::new(kind);
        self
    }

    /// Whether the scheduler orders this device's requests: it serves one at a time (no queue
    /// of its own, which takes every request the scheduler's tags allow), without blk-throttle
    /// (which holds bios before the scheduler) or a QEMU throttle (whose virtio ring takes them).
    #[inline]
    fn sched_orders(&self) -> bool {
        self.hw.is_none() && !self.blk_throttle && !self.qemu_throttle && self.sched.kind() != SchedKind::None
    }

    /// The same device completing the reads in flight together ([`BlockDevice::read_batch`]).
    pub fn with_complete_together(mut self) -> Self {
        self.complete_together = true;
        self
    }

    /// The same device serving its requests in flight together on a queue of its own
    /// ([`HwQueue`]): `read_bw`/`write_bw` are then the bandwidth requests in flight share.
    pub fn with_hw_queue(mut self, hw: HwQueue) -> Self {
        self.max_pages = hw.max_pages;
        self.hw = Some(hw);
        self
    }

    /// The same device with requests of at most `max_sectors_kb` KiB (its queue's too).
    pub fn with_max_sectors_kb(mut self, kb: u64) -> Self {
        self.max_pages = (kb * 1024 / PAGE_SIZE).max(1);
        self.hw = self.hw.take().map(|h| h.with_max_sectors_kb(kb));
        self
    }

    /// A device whose `read_bw` and `write_bw` are blk-throttle limits
    /// (`blkio.throttle.read_bps_device`, `write_bps_device`) over a disk faster than both:
    /// each direction is served on its own budget (block/blk-throttle.c
    /// `tg_within_bps_limit()`, a slice per direction).
    pub fn throttled(name: &str, read_bw: u64, write_bw: u64, seek_ns: Nanos, read_ahead_kb: u64) -> Self {
        BlockDevice { blk_throttle: true, ..BlockDevice::new(name, read_bw, write_bw, seek_ns, read_ahead_kb) }
    }

    /// `bdi_write_congested()`: whether the backlog at `now` is above the congestion
    /// threshold; if so, when it will have drained below the off threshold.
    pub fn write_congested(&self, now: Nanos) -> Option<Nanos> {
        let backlog = self.busy_until.saturating_sub(now);
        if backlog <= CONGESTION_ON_BYTES * NSEC_PER_SEC / self.write_bw {
            return None;
        }
        Some(self.busy_until - CONGESTION_OFF_BYTES * NSEC_PER_SEC / self.write_bw)
    }

    /// `bdi->io_pages`: the device's `max_sectors_kb` in pages (`disk_update_readahead()`),
    /// [`BlockDevice::max_pages`].
    #[inline]
    pub fn io_pages(&self) -> u64 {
        self.max_pages
    }

    /// The most pages of a request the task's plug builds of one-page bios (swap I/O,
    /// `blk_attempt_plug_merge()` -> `ll_back_merge_fn()`: a segment a page, as reclaim's
    /// pages are not physically contiguous): `queue/max_segments`, within `max_sectors_kb`.
    pub fn plug_rq_pages(&self) -> u64 {
        self.max_segments.min(self.max_pages).max(1)
    }

    /// With `qemu_throttle`: how long QEMU takes to serve a write request of `pages` that left
    /// its throttle, until the guest sees it complete: `write_latency + bytes /
    /// write_service_bw` (the lab's measured figures, lab/validation/qlat62: block_rq_issue to
    /// block_rq_complete of the guest's swap writes, its bucket never holding them; raw-image
    /// writes by QEMU's thread pool (`aio=threads`, `cache=writeback`) into the host's page
    /// cache, then the completion's interrupt into the guest).
    #[inline]
    pub fn qemu_write_service(&self, pages: u64) -> Nanos {
        if self.write_service_bw == 0 {
            self.write_latency
        } else {
            self.write_latency + xfer_ns(pages * PAGE_SIZE, self.write_service_bw)
        }
    }

    /// `bdi->ra_pages`.
    pub fn ra_pages(&self) -> u64 {
        (self.read_ahead_kb * 1024 / PAGE_SIZE).max(1)
    }

    /// Reserve a contiguous extent of `pages` for a new file; returns its first device page.
    pub fn alloc_extent(&mut self, pages: u64) -> u64 {
        let base = self.next_free_page;
        // Leave a gap so that two files are never contiguous on the device.
        self.next_free_page += pages + 256;
        base
    }

    /// `submit_bio()` of `pages` pages at device page `start`, at time `now`, in the
    /// direction's usual class (reads sync, writes async): returns the completion time.
    pub fn submit(&mut self, dir: Dir, start: u64, pages: u64, now: Nanos) -> Nanos {
        let class = match dir {
            Dir::Read => RqClass::Sync,
            Dir::Write => RqClass::Async,
        };
        self.submit_class(dir, class, start, pages, now)
    }

    /// `submit_bio()` of a swap write (`REQ_OP_WRITE | REQ_SWAP`, mm/page_io.c
    /// `swap_writepage_bdev_async()`) of `pages` at `start`, at `now`, as [`BlockDevice::submit`]
    /// does; `in_debt` (the era's `throtl_swap_in_debt`, 6.3+): on a `blk_throttle` device
    /// blk-throttle never holds it (`bio_issue_as_root_blkg()` in `__blk_throtl_bio()`: charged,
    /// dispatched at once; [`crate::blk_throttle::ThrotlGrp::throtl_bio_in_debt`]).
    pub fn submit_swap_write(&mut self, start: u64, pages: u64, now: Nanos, in_debt: bool) -> Nanos {
        self.swap_in_debt = in_debt && self.blk_throttle;
        let done = self.submit(Dir::Write, start, pages, now);
        self.swap_in_debt = false;
        done
    }

    /// `submit_bio()` in request class `class`: back-merged into the last request when it
    /// continues it, is of the same class, has not started and has room (`elv_merge()`,
    /// `ELEVATOR_BACK_MERGE`), else cut into requests of at most the device's `max_sectors_kb`
    /// ([`BlockDevice::max_pages`], `blk_queue_split()`), each allocated (`get_request()`) and completing when the device
    /// has transferred it. Returns the completion time of the last.
    pub fn submit_class(&mut self, dir: Dir, class: RqClass, start: u64, pages: u64, now: Nanos) -> Nanos {
        self.submit_class_segs(dir, class, start, pages, pages, now)
    }

    /// `submit_bio()` of a read of `pages` pages at device page `start` whose memory is `segs`
    /// physically contiguous runs (its bvecs as `bio_add_folio()` merged them:
    /// `rq->nr_phys_segments` of its requests, [`HwQueue::segment_cost`]); [`BlockDevice::submit`]
    /// takes one segment a page. Returns the completion time.
    pub fn submit_read_segs(&mut self, start: u64, pages: u64, segs: u64, now: Nanos) -> Nanos {
        self.submit_class_segs(Dir::Read, RqClass::Sync, start, pages, segs.clamp(1, pages.max(1)), now)
    }

    /// [`BlockDevice::submit_class`] of a bio of `segs` segments.
    fn submit_class_segs(&mut self, dir: Dir, class: RqClass, start: u64, pages: u64, segs: u64, now: Nanos) -> Nanos {
        let (done, dispatched) = self.submit_own(dir, class, start, pages, segs, now);
        if dir == Dir::Read && self.wbt_on() {
            self.wbt.read(now, done);
        }
        if self.complete_together && dir == Dir::Read {
            // A read dispatched to the device while the batch's reads are still on it joins the
            // batch and moves its completion to its own; otherwise it opens the next batch.
            if dispatched >= self.batch_end {
                self.batch += 1;
                self.batch_end = 0;
            }
            self.batch_end = self.batch_end.max(done);
            self.batch_ends[(self.batch % BATCH_RING) as usize] = self.batch_end;
        }
        done
    }

    /// With [`BlockDevice::complete_together`]: the batch the last read submitted joined (0 on
    /// a device completing each read on its own), for [`BlockDevice::read_batch_done`].
    ///
    /// The guest's completion of a virtio-blk request is `virtblk_done()`
    /// (drivers/block/virtio_blk.c), run at the queue's interrupt: it ends every request whose
    /// buffer the device has put in the used ring since the last one
    /// (`virtqueue_get_buf()` in a loop, `blk_mq_complete_request()` each). A backend that
    /// serves the requests it finds in the ring one after the other and signals the interrupt
    /// only once the ring is empty makes every read submitted while others are in flight
    /// complete with the last of them. The host's backend is Firecracker's virtio block device
    /// (src/vmm/src/devices/virtio/block/virtio/device.rs `process_queue()`, its default `Sync`
    /// file engine; the engine this VM's host configured is not visible from the guest): one
    /// thread pops the avail ring until `pop_or_enable_notification()` finds it empty (a request
    /// the guest adds meanwhile is popped in the same round), serves each popped request by a
    /// blocking read of the image, and only after the loop publishes the used index
    /// (`advance_used_ring_idx()`) and raises one interrupt: a round is this batch, a busy
    /// period of the backend, bounded by the rate the backend serves at against the rate
    /// requests reach it (not by a count). Traced on this lab's host (6.18.44 in a Firecracker VM,
    /// /dev/vda; lab/validation/trace-programs.md, block_rq_issue/_complete): a 2 MiB and a
    /// 4 MiB read issued 0.16 ms apart complete 20 us apart 4 ms later, every batch of a
    /// cold `cat` the same; the loop device over it (lab/validation/loop-device.md) completes
    /// requests issued together together too; two threads' O_DIRECT reads on the same disk did
    /// not (a 1 MiB read completed on its own with a 4 MiB one issued after it), and why the
    /// readers' windows do is not known: the model takes the readers' case for every read.
    /// The device's own transfer stays serial
    /// (`read_bw`, `seek`, or its [`HwQueue`]): only when the reads are reported done moves.
    /// Writes and swap reads (swapfile.rs `swap_readpages()`, which take the `done` `submit` returns) keep
    /// their own completion; a swap read still joins and extends the batch (not measured).
    #[inline]
    pub fn read_batch(&self) -> u64 {
        if self.complete_together {
            self.batch
        } else {
            0
        }
    }

    /// When a read of batch `batch` ([`BlockDevice::read_batch`]) whose own transfer ends at
    /// `done` is complete: the current batch's end while its reads are in flight; a batch a
    /// later one has replaced ended before that one began, so `done` (no later than now) is
    /// as good.
    #[inline]
    pub fn read_batch_done(&self, batch: u64, done: Nanos) -> Nanos {
        if batch != 0 && batch + BATCH_RING > self.batch {
            self.batch_ends[(batch % BATCH_RING) as usize].max(done)
        } else {
            done
        }
    }

    /// [`BlockDevice::submit_class`] without the completion batches: when the request's own
    /// transfer is done.
    fn submit_own(&mut self, dir: Dir, class: RqClass, start: u64, pages: u64, segs: u64, now: Nanos) -> (Nanos, Nanos) {
        if self.hw.is_some() {
            return self.submit_hw(dir, class, start, pages, segs, now);
        }
        if self.qemu_throttle {
            return (self.submit_qemu(dir, class, start, pages, now), now);
        }
        let ordered = self.sched_orders();
        // Served as a sync request by the scheduler (CFQ: every sync request, a `REQ_SYNC`
        // write too; mq-deadline, none: the reads).
        let sync_q = class == RqClass::Sync && self.sched.sync_queue(dir);
        // Tracked writes blk-wbt has not let through yet are in their writers' hands, not in
        // the queue: a sync request on a device serving one request at a time goes before them.
        let held = if sync_q && self.hw.is_none() && !self.qemu_throttle && self.wbt_on() { self.wbt.held_at(now) } else { 0 };
        if (ordered || held > 0) && sync_q {
            if let Some(done) = self.submit_sync_sched(dir, start, pages, segs, now, held) {
                // On the device from its submission (the scheduler's placement has no throttle).
                return (done, now);
            }
        }
        let bytes = pages * PAGE_SIZE;
        let bw = self.bw_of(dir);
        let (own_line, line_busy, line_end) = self.line_of(dir);
        // CFQ's idle window after a sync request holds async ones.
        let line_busy = if !ordered {
            line_busy
        } else if !sync_q {
            line_busy.max(self.sched.async_floor())
        } else {
            // CFQ: another task's sync queue keeps the device until it expires.
            line_busy.max(self.sched.sync_floor())
        };
        let seek = if start == line_end { 0 } else { self.seek_ns };
        // A throttled bio leaves the throttle when its direction's slice allows it
        // (blk_throttle.rs), and the disk beneath the rule serves it at once: its transfer
        // there is not modelled (on the host a 16 MiB burst of 14 requests completed within
        // 2.5-8 ms of its dispatch, beside slices of 100 ms), only the access latency.
        // Requests complete in the order they were queued on their line.
        let throttle = self.blk_throttle;
        // The disk's time per segment ([`BlockDevice::segment_cost`]): a request of `p` of the
        // bio's pages holds its share of the bio's segments.
        let seg_cost = self.segment_cost;
        let xfer_of = |p: u64| if throttle { 0 } else { xfer_ns(p * PAGE_SIZE, bw) + seg_cost * (segs as u128 * p as u128).div_ceil(pages.max(1) as u128) as u64 };
        let xfer = xfer_of(pages);
        let released = if self.blk_throttle { self.throtl_release(dir, bytes, now) } else { now };
        // The back merge (`elv_merge()`'s ELEVATOR_BACK_MERGE, `blk_attempt_plug_merge()`,
        // block/blk-merge.c `blk_try_merge()`: `blk_rq_pos(rq) + blk_rq_sectors(rq) ==
        // bio->bi_iter.bi_sector`): the bio starts where the last request ends, the request is
        // of this class and has not started, and (two lines) of this direction's line: with
        // blk-throttle reads and writes are apart. The same test as `get_request_wait()`'s,
        // whatever the device's access latency (a device without one pays no seek either way).
        let merge = self.back_merge(dir, class, start, pages, line_end, now);
        // A loop device's worker hands a new request to the disk below when it runs
        // ([`LoopWorker`]; `released` without one); a bio merged into a request not yet handed
        // to the driver goes with that request (no `loop_queue_work()` of its own, as
        // [`BlockDevice::submit_hw`]). Until the run the request is the driver's, no longer
        // mergeable: `begin` (for the back merge and the scheduler) is as without it.
        let run = if merge.is_none() { self.worker.loop_queue_work(released) } else { released };
        let begin = if self.blk_throttle { released } else { now.max(line_busy) };
        let served = if self.blk_throttle { run } else { run.max(line_busy) };
        let floor = if self.blk_throttle { line_busy } else { 0 };
        let done_of = |off: u64| (served + seek + xfer_of(off)).max(floor);
        let done = done_of(pages);
        match merge {
            Some((c, n, started)) => {
                // Back merge: the last request grows and completes later.
                *self.queue.rq[class as usize].back_mut().expect("the last request is held") = done;
                self.queue.last = Some((c, n + pages, started));
                self.queue.merged += 1;
            }
            _ => {
                let mut off = 0;
                while off < pages {
                    let n = (pages - off).min(self.max_pages);
                    off += n;
                    self.queue.push(class, if off == pages { done } else { done_of(off) });
                    self.queue.last = Some((class, n, if off == n { begin } else { done_of(off - n) }));
                }
            }
        }
        self.account(dir, own_line, start + pages, line_busy.max(done), bytes, seek + xfer);
        if ordered && sync_q {
            // In submission order behind every pending async request: the sync queue's
            // bookkeeping (CFQ's idle window after it).
            self.sync_until = self.sync_until.max(done);
            self.sync_last_end = start + pages;
            // Nothing async is pending behind it: no window to move the line by.
            self.sched.sync_placed(now, begin.max(line_busy), done, false);
        }
        // On the device from its submission, or under blk-throttle from its release.
        (done, if throttle { begin } else { now })
    }

    /// A sync request on a device whose scheduler orders its requests
    /// ([`BlockDevice::sched_orders`]): the scheduler places it among the async requests
    /// pending at `now` ([`Elevator::place_sync`]); `None` when it goes behind all of them
    /// (submission order, [`BlockDevice::submit_own`]'s line). Placed ahead of some, it starts
    /// when those and the sync requests before it are done (or back-merges into the last sync
    /// request when it continues it and has not started), cut into requests as on the line,
    /// and the device's line (`busy_until`) moves by its time, the seek back to the async
    /// requests, and the idle window the scheduler holds after it; the async requests already
    /// pending keep their completions (see [`elevator`]).
    fn submit_sync_sched(&mut self, dir: Dir, start: u64, pages: u64, segs: u64, now: Nanos, held: u64) -> Option<Nanos> {
        let q = &self.queue.rq[RqClass::Async as usize];
        let first = q.partition_point(|&t| t <= now);
        let n_all = (q.len() - first) as u64;
        // The last `held` pending are blk-wbt's, not yet in the queue: the scheduler sees the rest.
        let n = n_all - held.min(n_all);
        let last_async = q.back().copied().unwrap_or(0);
        let pending = elevator::PendingAsync { q, first, n, seq_first: self.queue.pushed[RqClass::Async as usize] - n_all, driver_depth: self.driver_depth };
        let bytes = pages * PAGE_SIZE;
        // Its segments' time (BlockDevice::segment_cost), spread over its pages as in submit_own().
        let seg_cost = self.segment_cost;
        let seg_of = |off: u64| seg_cost * (segs as u128 * off as u128).div_ceil(pages.max(1) as u128) as u64;
        let xfer = xfer_ns(bytes, self.bw_of(dir)) + seg_of(pages);
        // Back merge into the last sync request placed ahead, not started yet.
        let merge = self.queue.last.filter(|&(c, m, started)| c == RqClass::Sync && self.queue.last_dir == Some(dir) && started > now && start == self.sync_last_end && m + pages <= self.io_pages() && self.sync_until > now);
        if let (Some((c, m, started)), true) = (merge, n_all > 0) {
            let done = self.sync_until + xfer;
            *self.queue.rq[RqClass::Sync as usize].back_mut().expect("the last request is held") = done;
            self.queue.last = Some((c, m + pages, started));
            self.queue.merged += 1;
            self.sync_until = done;
            self.sync_last_end = start + pages;
            self.busy_until += xfer;
            self.count(dir, bytes, xfer);
            return Some(done);
        }
        let place = self.sched.place_sync(now, self.sync_until, &pending);
        if place.refund > 0 {
            // The idle window held after the last sync request ended early: the async line
            // gets it back (never before the async requests already given completions).
            self.busy_until = self.busy_until.saturating_sub(place.refund).max(last_async);
        }
        if place.ahead >= n_all {
            return None;
        }
        let after = if place.ahead == 0 { now } else { pending.done(place.ahead - 1) };
        let begin = now.max(after).max(self.sync_until).max(self.sched.sync_floor());
        let seek = if start == self.sync_last_end { 0 } else { self.seek_ns };
        let bw = self.bw_of(dir);
        let done_of = |off: u64| begin + seek + xfer_ns(off * PAGE_SIZE, bw) + seg_of(off);
        let mut off = 0;
        while off < pages {
            let m = (pages - off).min(MAX_REQUEST_PAGES);
            off += m;
            let d = done_of(off);
            self.queue.push(RqClass::Sync, d);
            self.queue.last = Some((RqClass::Sync, m, if off == m { begin } else { done_of(off - m) }));
        }
        let done = done_of(pages);
        let hold = self.sched.sync_placed(now, begin, done, true);
        // The device serves it between async requests: the line moves by its time, the seek
        // back to where the async requests continue, and the scheduler's idle window. A
        // request served right after the sync request before it (no async request between
        // them: a sequential reader's next window, an fsync's next write) adds no seek back:
        // the device goes back to the async requests once, after the last of the run, and the
        // seek the one before it charged is that one (its idle window was given back above).
        let back = if begin == self.sync_until { 0 } else { self.seek_ns };
        self.busy_until = self.busy_until.max(begin) + (done - begin) + back + hold;
        self.sync_until = done;
        self.sync_last_end = start + pages;
        self.queue.last_dir = Some(dir);
        self.count(dir, bytes, seek + xfer);
        Some(done)
    }

    /// A request's statistics: busy time, requests, bytes.
    #[inline(always)]
    fn count(&mut self, dir: Dir, bytes: u64, busy: Nanos) {
        self.busy_ns += busy;
        self.ios += 1;
        match dir {
            Dir::Read => self.read_bytes += bytes,
            Dir::Write => self.write_bytes += bytes,
        }
    }

    /// `submit_bio()` on a QEMU guest's throttled disk (`qemu_throttle`, the lab's virtio disk
    /// with `throttling.bps-read`/`-write`): the bio is back-merged into the request made at
    /// this same instant (the guest's plug, `blk_start_plug()` in `read_pages()`; a request the
    /// guest has handed to the virtio ring is QEMU's, waiting in its throttle or not, and takes
    /// no more bios) or cut into requests of at most the guest queue's `max_sectors_kb`
    /// ([`BlockDevice::max_pages`]), each of which leaves
    /// QEMU's throttle when its direction's bucket lets it ([`LeakyBucket::release`]) and is
    /// done then: the image file beneath (the host's page cache, QEMU's thread pool) serves it
    /// at once, its transfer not modelled, only the access latency (as under blk-throttle,
    /// [`BlockDevice::submit_class`]). Requests of a direction complete in order. Returns the
    /// completion of the last.
    ///
    /// A request its bucket lets go at once completes at the dispatch instant itself (`now`),
    /// the same instant as the path that submitted it; swap writes alone are moved to the
    /// clock's next instant (swapfile.rs `swap_write_dispatched()`, fc1e37d: the swap
    /// rotation path was shown to care about that tie). File I/O is left at the dispatch
    /// instant: no file path was shown to depend on the tie, and changing it would move many
    /// committed outputs (review10 L3).
    fn submit_qemu(&mut self, dir: Dir, class: RqClass, start: u64, pages: u64, now: Nanos) -> Nanos {
        let bw = self.bw_of(dir);
        let bytes = pages * PAGE_SIZE;
        let (own_line, line_busy, line_end) = self.line_of(dir);
        let mut seek = if start == line_end { 0 } else { self.seek_ns };
        let busy = seek;
        // A request that arrived before the direction's latest (the engine ran a later
        // submitter's quantum first) is not held behind that one's completion (LeakyBucket::last_arrival).
        let behind = if now < self.qemu_bucket[dir as usize].last_arrival { 0 } else { line_busy };
        let done = match self.back_merge(dir, class, start, pages, line_end, now) {
            Some((c, n, made)) => {
                // The request leaves the throttle with the merged bytes: they are accounted
                // with it (its release is the bucket's last: it was made at this instant).
                self.qemu_bucket[dir as usize].level += bytes;
                self.queue.last = Some((c, n + pages, made));
                self.queue.merged += 1;
                // QEMU serves the merged bytes with the request (qemu_write_service()'s per-byte part).
                let more = if dir == Dir::Write { self.qemu_write_service(pages) - self.write_latency } else { 0 };
                let done = self.queue.rq[class as usize].back_mut().expect("the last request is held");
                *done += more;
                *done
            }
            None => {
                let mut off = 0;
                let mut last = behind;
                while off < pages {
                    let n = (pages - off).min(self.max_pages);
                    off += n;
                    let released = self.qemu_bucket[dir as usize].release(n * PAGE_SIZE, now, bw);
                    let service = if dir == Dir::Write { self.qemu_write_service(n) } else { 0 };
                    last = (released + seek + service).max(last);
                    seek = 0;
                    self.queue.push(class, last);
                    self.queue.last = Some((class, n, now));
                }
                last
            }
        };
        self.account(dir, own_line, start + pages, line_busy.max(done), bytes, busy);
        done
    }

    /// `submit_bio()` on a device with a queue of its own ([`HwQueue`]): with `blk_throttle` the
    /// bio first leaves the throttle when its direction's slice allows it
    /// ([`BlockDevice::throtl_release`], as [`BlockDevice::submit_class`]'s bios do); then it is
    /// cut into requests of at most the queue's `max_sectors_kb` (`bio_split_rw()`: after the
    /// throttle, which charges the whole bio once, block/blk-throttle.c 6.18 marking it
    /// `BIO_BPS_THROTTLED`) or back-merged into the last request as
    /// [`BlockDevice::submit_class`] does, also when that request was made at the instant this
    /// bio is released (the submitter's plug, `blk_start_plug()` in `read_pages()`,
    /// `wb_writeback()` and `shrink_lruvec()`, holds it until `blk_finish_plug()`; bios the
    /// throttle releases together go under the plug of `blk_throtl_dispatch_work_fn()`); each
    /// request is dispatched to the device ([`HwQueue::dispatch`]). Returns the completion of
    /// the last.
    ///
    /// The bio's `segs` segments are taken as spread evenly over its pages (the engine keeps a
    /// bio's count, not where its runs break): a request of `n` of its pages holds
    /// `ceil(segs * n / pages)`, and the queue's `max_segments` cuts requests of that many.
    fn submit_hw(&mut self, dir: Dir, class: RqClass, start: u64, pages: u64, segs: u64, now: Nanos) -> (Nanos, Nanos) {
        let (own_line, line_busy, line_end) = self.line_of(dir);
        let hw_line = if self.blk_throttle { dir as usize } else { 0 };
        let seek = if start == line_end { 0 } else { self.seek_ns };
        let throttle = self.blk_throttle;
        let bytes = pages * PAGE_SIZE;
        let segs = segs.clamp(1, pages.max(1));
        let max_segs = self.hw.as_ref().map_or(u64::MAX, |h| h.max_segments);
        // bio_split_rw_at(): a request ends at max_sectors_kb or at max_segments, whichever
        // comes first (the pages max_segments of the bio's segments hold).
        let max_pages = if max_segs >= segs { self.io_pages() } else { self.io_pages().min((max_segs as u128 * pages as u128 / segs as u128).max(1) as u64) };
        let released = if throttle { self.throtl_release(dir, bytes, now) } else { now };
        let merge = self.back_merge(dir, class, start, pages, line_end, released);
        // A loop device's worker dispatches a new request when it runs ([`LoopWorker`]); a bio
        // merged into a request not yet dispatched goes with it.
        let at = if merge.is_none() { self.worker.loop_queue_work(released) } else { released };
        let hw = self.hw.as_mut().expect("submit_hw() on a device with a queue");
        let done;
        // With a ring (HwQueue::ring): the latest dispatch of the bio's requests that waited for
        // the ring's round to end (0: none waited).
        let mut ring_start: Nanos = 0;
        match merge {
            Some((c, n, started)) => {
                done = hw.extend(hw_line, dir, bytes, segs);
                *self.queue.rq[class as usize].back_mut().expect("the last request is held") = done;
                self.queue.last = Some((c, n + pages, started));
                self.queue.merged += 1;
            }
            _ => {
                let mut off = 0;
                let mut last = released;
                let mut seek = seek;
                while off < pages {
                    let n = (pages - off).min(max_pages);
                    off += n;
                    let rsegs = (segs as u128 * n as u128).div_ceil(pages as u128) as u64;
                    let (dispatched, d) = hw.dispatch(hw_line, dir, n * PAGE_SIZE, rsegs, at, seek);
                    if hw.ring_waited(hw_line) {
                        // into the next round: on the device from its dispatch there
                        ring_start = ring_start.max(dispatched);
                    }
                    seek = 0;
                    self.queue.push(class, d);
                    // Given to the driver, no longer mergeable, when dispatched; with a loop
                    // worker when `loop_queue_rq()` took it, at its release (a wait for one of
                    // the loop device's 128 tags is then not counted in it).
                    self.queue.last = Some((class, n, if at == released { dispatched } else { released }));
                    last = d;
                }
                done = last;
            }
        }
        // The direction's line: when blk-throttle releases its last bio, or the device's last
        // completion.
        let line = if throttle { line_busy.max(released) } else { done };
        let busy = seek + xfer_ns(bytes, self.hw.as_ref().map_or(1, |h| h.bw[dir as usize]));
        self.account(dir, own_line, start + pages, line, bytes, busy);
        (done, released.max(ring_start))
    }

    /// `blk_throtl_bio()` (block/blk-throttle.c, 6.18) of a bio of `bytes` in direction `dir`
    /// submitted at `now` on a `blk_throttle` device: when the throttle group's slice for the
    /// direction lets it go (blk_throttle.rs [`crate::blk_throttle::ThrotlGrp::throtl_bio`],
    /// under the direction's rule `read_bw`/`write_bw`). Both service models take it: the
    /// device's line ([`BlockDevice::submit_class`]) and a queue of its own
    /// ([`BlockDevice::submit_hw`]).
    #[inline]
    fn throtl_release(&mut self, dir: Dir, bytes: u64, now: Nanos) -> Nanos {
        let bps = self.bw_of(dir);
        if self.swap_in_debt && dir == Dir::Write {
            return self.throtl[dir as usize].throtl_bio_in_debt(bytes, now, bps);
        }
        self.throtl[dir as usize].throtl_bio(bytes, now, bps)
    }

    /// Direction `dir`'s bandwidth: the device's, or with `blk_throttle` the rule's.
    #[inline(always)]
    fn bw_of(&self, dir: Dir) -> u64 {
        match dir {
            Dir::Read => self.read_bw,
            Dir::Write => self.write_bw,
        }
    }

    /// The time line `dir` is served on: (its own reads' line, when it is busy until, the
    /// device page after its last request). With blk-throttle or a QEMU throttle group a read
    /// is served on the reads' budget, a write on the writes'; without, both share one line.
    #[inline(always)]
    fn line_of(&self, dir: Dir) -> (bool, Nanos, u64) {
        let own_line = (self.blk_throttle || self.qemu_throttle) && dir == Dir::Read;
        if own_line {
            (true, self.read_busy_until, self.read_last_end)
        } else {
            (false, self.busy_until, self.last_end)
        }
    }

    /// The last request a bio of `pages` at `start` back-merges into (`elv_merge()`'s
    /// ELEVATOR_BACK_MERGE, `blk_attempt_plug_merge()`, block/blk-merge.c `blk_try_merge()`):
    /// it ends where the bio starts (`line_end`, the end of the bio's line), is of `class`, has
    /// not started (on a device with its own queue, also one made at this same instant: the
    /// submitter's plug still holds it, [`BlockDevice::submit_hw`]; on a QEMU throttled disk
    /// only one made at this instant, [`BlockDevice::submit_qemu`]), has room for the bio within
    /// [`BlockDevice::io_pages`], and is of this direction (`blk_rq_merge_ok()`: "different
    /// data direction ... don't merge"; a class holds both directions on the legacy path, where
    /// `REQ_SYNC` writes are sync, [`BlkQueue::write_class`]).
    #[inline(always)]
    fn back_merge(&self, dir: Dir, class: RqClass, start: u64, pages: u64, line_end: u64, now: Nanos) -> Option<(RqClass, u64, Nanos)> {
        self.queue.last.filter(|&(c, n, started)| {
            start == line_end
                && c == class
                && if self.qemu_throttle { started == now } else { started > now || (self.hw.is_some() && started == now) }
                && n + pages <= self.io_pages()
                && self.queue.last_dir == Some(dir)
        })
    }

    /// A bio's bookkeeping once it is queued: the direction's line moves to `line` and ends
    /// at device page `end`; the device's busy time, request and byte counts.
    #[inline(always)]
    fn account(&mut self, dir: Dir, own_line: bool, end: u64, line: Nanos, bytes: u64, busy: Nanos) {
        self.queue.last_dir = Some(dir);
        if own_line {
            self.read_busy_until = line;
            self.read_last_end = end;
        } else {
            self.busy_until = line;
            self.last_end = end;
        }
        self.count(dir, bytes, busy);
    }

    /// `get_request()` (block/blk-core.c, before 5.0) / `blk_mq_get_tag()` (5.0+) for a bio of
    /// `pages` at `start` in direction `dir` and `class` submitted at `now`: `None` when it
    /// merges into the last request or a request is free; else the time the submitter wakes
    /// with one, the first completion of a request it may take (`__freed_request()` wakes one
    /// exclusive waiter of the class; a freed blk-mq tag wakes a waiter of either class). The
    /// legacy list limits each class to `nr_requests` (a `REQ_SYNC` write is counted with the
    /// reads, [`BlkQueue::write_class`]); blk-mq both together, and from 5.14 async requests to
    /// three quarters of them.
    pub fn get_request_wait(&self, dir: Dir, class: RqClass, start: u64, pages: u64, now: Nanos, era: BlkQueue) -> Option<Nanos> {
        if self.blk_throttle {
            // blk_throtl_bio() holds the bio before it is given a request: what waits is
            // the bio, on its direction's budget (submit_class()'s time line), not the task.
            return None;
        }
        let (_, _, line_end) = self.line_of(dir);
        if self.back_merge(dir, class, start, pages, line_end, now).is_some() {
            return None;
        }
        let q = &self.queue;
        let (sync, asy) = (q.in_flight(RqClass::Sync, now), q.in_flight(RqClass::Async, now));
        let next_any = || match (q.next_completion(RqClass::Sync, now), q.next_completion(RqClass::Async, now)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let nr = self.nr_requests;
        match era {
            BlkQueue::Legacy => {
                let n = if class == RqClass::Sync { sync } else { asy };
                if n >= nr {
                    q.next_completion(class, now)
                } else {
                    None
                }
            }
            BlkQueue::Mq | BlkQueue::MqAsyncDepth => {
                let async_depth = if era == BlkQueue::MqAsyncDepth { (3 * nr / 4).max(1) } else { nr };
                // Async requests beyond their depth would be waiting for a tag in the kernel
                // (the engine's flusher queues its writes at once): they hold no tag a sync
                // request could take.
                let held = sync + asy.min(async_depth);
                let full = match class {
                    RqClass::Sync => held >= nr,
                    RqClass::Async => held >= nr || asy >= async_depth,
                };
                if full {
                    next_any()
                } else {
                    None
                }
            }
        }
    }
}

impl crate::kernel::Kernel {
    /// `get_request()` / `blk_mq_get_tag()` for a bio of `pages` at device page `start` of
    /// device `dev`, in `class`, from the running context: sleep until a request of the class
    /// is free (see [`BlockDevice::get_request_wait`]), a `congestion` stall (the task waits
    /// for the queue, `io_schedule()` in `get_request()`). The flusher's own writes do not
    /// come here: it is not a task in the engine (it stops instead of sleeping,
    /// [`crate::kernel::Kernel::flusher_get_request`], as at blk-wbt's limit,
    /// [`crate::kernel::Kernel::wbt_submit_write`], see ARCHITECTURE.md). The bio is a read
    /// when `class` is sync, a write when async (reads, swap-outs); a `REQ_SYNC` write asks
    /// with [`crate::kernel::Kernel::blk_get_request_dir`].
    pub fn blk_get_request(&mut self, dev: usize, class: RqClass, start: u64, pages: u64) {
        let dir = if class == RqClass::Sync { Dir::Read } else { Dir::Write };
        self.blk_get_request_dir(dev, dir, class, start, pages);
    }

    /// [`crate::kernel::Kernel::blk_get_request`] for a bio of direction `dir`. The request is
    /// the running task's (`elv_set_request()` -> `cfq_set_request()`: CFQ's sync queue of its
    /// io context for a sync one); a sync write is `REQ_NOIDLE` (2.6.30-4.9 `WRITE_SYNC` =
    /// `WRITE | REQ_SYNC | REQ_NOIDLE`; 4.10+ `req_noidle()`: a sync write without `REQ_IDLE`).
    pub fn blk_get_request_dir(&mut self, dev: usize, dir: Dir, class: RqClass, start: u64, pages: u64) {
        let era = self.profile.blk_queue;
        if let Some(t) = self.devices[dev].get_request_wait(dir, class, start, pages, self.now, era) {
            self.stalled(crate::delayacct::StallKind::Congestion, |k| k.wait_until(t));
        }
        let sync = class == RqClass::Sync;
        self.devices[dev].sched.set_ioc(self.cur_mm, sync, sync && dir == Dir::Write, start, pages);
    }

    /// A write bio of `pages` at device page `start` of device `dev` from the running context,
    /// through blk-wbt ([`BlockDevice::wbt_release`], [`wbt`]): a task (fsync, a DONTNEED's
    /// writeback) sleeps in `wbt_wait()` until it is let through,
    /// a `congestion` stall as `get_request()`'s; the flusher ([`crate::page_writeback::FlusherWork`])
    /// does not sleep in the engine: its request goes at its release and its writeback stops
    /// there. The op is the context's (`FlusherWork::op`; kswapd's own). A `REQ_SYNC` write
    /// (`WB_SYNC_ALL`: fsync, [`WbtOp::Sync`]) is in the era's class for it
    /// ([`BlkQueue::write_class`]): on the legacy path a sync request, for which the task
    /// sleeps in `get_request()` on the sync list ([`crate::kernel::Kernel::blk_get_request_dir`],
    /// which also names its CFQ queue). A task's async writes (a DONTNEED's writeback, reclaim's
    /// `pageout()` of a file page) are not given a request here: they are queued at once, as
    /// before. Returns the completion of the last request.
    pub fn wbt_submit_write(&mut self, dev: usize, start: u64, pages: u64) -> Nanos {
        let class = self.write_class();
        let mut at = self.wbt_wait_write(dev, start, pages, class);
        if self.flusher.running {
            at = self.flusher_get_request(dev, start, pages, at, class);
        } else if class == RqClass::Sync {
            self.blk_get_request_dir(dev, Dir::Write, class, start, pages);
            at = at.max(self.now);
        }
        self.devices[dev].submit_tracked(start, pages, at, class)
    }

    /// The request class of the running context's write: `REQ_SYNC` for `WB_SYNC_ALL`
    /// writeback (`wbc_to_write_flags()`, 4.10+; `WRITE_SYNC` before), which is the context's
    /// op [`WbtOp::Sync`] (kswapd's own pageout is `WB_SYNC_NONE`), in the era's class
    /// ([`BlkQueue::write_class`]).
    #[inline]
    fn write_class(&self) -> RqClass {
        let op = wbt::write_op(self.in_kswapd && !self.flusher.running, self.profile.wbt_swap_hiprio, self.flusher.op);
        self.profile.blk_queue.write_class(op == WbtOp::Sync)
    }

    /// `get_request()` (block/blk-core.c, 3.13/4.3: `rl->count[BLK_RW_ASYNC] >= nr_requests`
    /// -> `io_schedule()` until `__freed_request()`) / `blk_mq_get_tag()` (block/blk-mq-tag.c,
    /// 6.1: no scheduler tag -> `io_schedule()` until a tag is freed) for the flusher's async
    /// write of `pages` at `start`, let through blk-wbt at `at` (`rq_qos_throttle()` comes
    /// before the tag): the flusher does not sleep in the engine, it stops as at blk-wbt's
    /// limit ([`crate::page_writeback::FlusherWork`]) and goes on at the completion that frees
    /// a request. A write after the stop (the rest of a run already taken from the page cache)
    /// asks from the stop on. `class`: the write's ([`BlkQueue::write_class`]; the flusher's
    /// own work is `WB_SYNC_NONE`, async). Returns when the write has its request.
    pub fn flusher_get_request(&mut self, dev: usize, start: u64, pages: u64, at: Nanos, class: RqClass) -> Nanos {
        let from = self.flusher.stop.map_or(at, |s| s.max(at));
        let era = self.profile.blk_queue;
        match self.devices[dev].get_request_wait(Dir::Write, class, start, pages, from, era) {
            Some(t) => {
                self.flusher.stop = Some(self.flusher.stop.map_or(t, |s| s.max(t)));
                t
            }
            None => from,
        }
    }

    /// The blk-wbt wait of [`crate::kernel::Kernel::wbt_submit_write`] alone: when the write may be given its
    /// request (the task has slept until then; the flusher has noted its stop).
    pub fn wbt_wait_write(&mut self, dev: usize, start: u64, pages: u64, class: RqClass) -> Nanos {
        if !self.devices[dev].wbt_on() {
            return self.now;
        }
        let op = wbt::write_op(self.in_kswapd && !self.flusher.running, self.profile.wbt_swap_hiprio, self.flusher.op);
        let recent_wait_until = self.wb_dirty_sleep.map_or(0, |t| t + wbt::RECENT_WAIT_NS);
        let release = self.devices[dev].wbt_release(start, pages, self.now, op, recent_wait_until, class);
        if release <= self.now {
            return self.now;
        }
        if self.flusher.running {
            self.flusher.stop = Some(self.flusher.stop.map_or(release, |s| s.max(release)));
            release
        } else {
            self.stalled(crate::delayacct::StallKind::Congestion, |k| k.wait_until(release));
            self.now
        }
    }

    /// Free every device's requests completed by `horizon` (`blk_mq_free_request()`,
    /// `__blk_put_request()`): the scheduler passes the earliest clock any context can still
    /// look at the queues with (the running task's, or a lagging kswapd's). The record of
    /// ended writes (`Kernel::wb_ended`) is trimmed to the same horizon.
    ///
    /// The flusher is such a context too: a writeback timer due, or its resume after blk-wbt's
    /// wake-up ([`crate::page_writeback::FlusherWork::until`]), runs `wb_workfn()` at its own
    /// time when the clock next moves ([`Self::wb_run_timers`]), which is after this call: the
    /// horizon stops there. Requests are freed when they complete (`blk_mq_free_request()` from
    /// `blk_mq_end_request()`, block/blk-mq.c 6.1), so a flusher at `t` must find every
    /// request completing after `t` still allocated: its `submit_bio()` back-merges into the
    /// last one (`blk_attempt_plug_merge()` / `elv_merge()`) and counts the ones in flight
    /// (`wbt_wait()`'s inflight, the tags of `blk_mq_get_tag()`). Freed up to the task's clock
    /// instead, the last request was gone while the queue still named it (panic49: linux-6.1,
    /// a 20 MB/s disk, memcg at 1 MiB; `tests/regressions.rs`).
    pub fn blk_retire(&mut self, horizon: Nanos) {
        let timer = self.wb_timers.peek().map_or(Nanos::MAX, |r| r.0 .0);
        let resume = if self.flusher.until != 0 { self.flusher.until } else { Nanos::MAX };
        let horizon = horizon.min(timer).min(resume);
        for d in &mut self.devices {
            d.queue.retire(horizon);
        }
        while self.wb_ended.front().is_some_and(|&(t, _)| t <= horizon) {
            self.wb_ended.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_requests_pay_no_seek_and_queue_behind_each_other() {
        let mut d = BlockDevice::new("sda", 100 * 1024 * 1024, 50 * 1024 * 1024, 5_000_000, 128);
        assert_eq!(d.ra_pages(), 32);
        // 100 MiB/s: 256 pages (1 MiB) take 10 ms.
        let t1 = d.submit(Dir::Read, 0, 256, 0);
        assert_eq!(t1, 5_000_000 + 10_000_000, "first request seeks");
        let t2 = d.submit(Dir::Read, 256, 256, 0);
        assert_eq!(t2, t1 + 10_000_000, "queued behind the first, no seek");
        let t3 = d.submit(Dir::Read, 10_000, 256, t2 + 1);
        assert_eq!(t3, t2 + 1 + 5_000_000 + 10_000_000, "random request seeks");
        let t4 = d.submit(Dir::Write, 10_256, 256, t3);
        assert_eq!(t4, t3 + 20_000_000, "writes at their own bandwidth");
        assert_eq!(d.read_bytes, 3 * 1024 * 1024);
        assert_eq!(d.write_bytes, 1024 * 1024);
        assert_eq!(d.ios, 4);
    }

    #[test]
    fn extents_never_touch() {
        let mut d = BlockDevice::new("sda", 1, 1, 0, 128);
        let a = d.alloc_extent(10);
        let b = d.alloc_extent(10);
        assert!(b > a + 10);
    }

    /// A queue is congested above 113 requests' worth of backlog (56.5 MiB) and stays so
    /// until it has drained to 103 requests' worth.
    #[test]
    fn congestion_follows_the_request_thresholds() {
        let mut d = BlockDevice::new("sda", 100 << 20, 100 << 20, 0, 128);
        let now = 1_000_000_000;
        d.busy_until = now + 500_000_000; // 50 MiB of backlog
        assert_eq!(d.write_congested(now), None);
        d.busy_until = now + 1_000_000_000; // 100 MiB
        let off = d.write_congested(now).expect("congested");
        let left = (d.busy_until - off) as f64 / 1e9 * 100.0; // MiB still queued when it clears
        assert!((left - 103.0 * 0.5).abs() < 0.01, "{left}");
    }
}
