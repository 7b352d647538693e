//! The I/O schedulers (blkdev/elevator.rs, one policy a file): where a sync request goes among
//! the async requests pending on a device serving one request at a time. CFQ's rules from
//! block/cfq-iosched.c of 4.3, mq-deadline's from block/mq-deadline.c of 6.1, the defaults
//! from block/elevator.c (`elevator_get_default()`, 6.1).

use crate::blkdev::cfq::{CFQ_SLICE_IDLE, CFQ_SLICE_SYNC};
use crate::blkdev::mq_deadline::DD_FIFO_BATCH;
use crate::blkdev::{BlockDevice, Dir, Elevator, HwQueue, SchedKind, MAX_REQUEST_PAGES};
use crate::types::Nanos;

const MS: Nanos = 1_000_000;
/// A 512 KiB request at 128 MiB/s.
const RQ: Nanos = 3_906_250;
/// A 4 KiB read at 128 MiB/s.
const PAGE_XFER: Nanos = 30_517;

/// A SATA disk's queue on the legacy path (`ata_scsi_dev_config()`, 4.x: ATA_MAX_QUEUE - 1).
const CFQ_DRIVER_DEPTH: u64 = 31;
/// A SATA disk's queue on blk-mq (`ata_scsi_dev_config()`, 6.1: ATA_MAX_QUEUE).
const DD_DRIVER_DEPTH: u64 = 32;

/// A SATA disk, 128 MiB/s both ways, 1 ms seeks, with scheduler `kind`.
fn disk(kind: SchedKind) -> BlockDevice {
    let depth = if kind == SchedKind::Cfq { CFQ_DRIVER_DEPTH } else { DD_DRIVER_DEPTH };
    BlockDevice::new("sda", 128 << 20, 128 << 20, MS, 128).with_sched(kind).with_driver_depth(depth)
}

/// `n` sequential 512 KiB writes submitted at `now` (the flusher's requests): their completions.
fn writes(d: &mut BlockDevice, from: u64, n: u64, now: Nanos) -> Vec<Nanos> {
    (0..n).map(|i| d.submit(Dir::Write, from + i * MAX_REQUEST_PAGES, MAX_REQUEST_PAGES, now)).collect()
}

/// none (blk-mq without an elevator; noop): the read waits for every write queued before it.
#[test]
fn none_serves_in_submission_order() {
    let mut d = disk(SchedKind::None);
    let w = writes(&mut d, 0, 40, 0);
    let r = d.submit(Dir::Read, 1 << 30, 1, MS);
    assert_eq!(r, w[39] + MS + PAGE_XFER, "behind the 40 writes, with a seek");
    assert!(d.queue.ordered());
}

/// 4.3 `cfq_should_preempt()` (a sync request preempts the async queue) and `cfq_may_dispatch()`
/// (it waits for the async requests in the driver, of which the async queue's `low_latency`
/// depth let one through within `cfq_slice[1]` of the last delayed sync request): the read
/// goes after the first write, not the 40th. The line moves by the read, the seek back, and the
/// idle window (`cfq_arm_slice_timer()`, 8 ms) that holds the writes after it.
#[test]
fn cfq_sync_preempts_async_after_the_dispatched_depth() {
    let mut d = disk(SchedKind::Cfq);
    let w = writes(&mut d, 0, 40, 0);
    let line = d.busy_until;
    assert_eq!(line, w[39]);
    let r = d.submit(Dir::Read, 1 << 30, 1, MS);
    assert_eq!(r, w[0] + MS + PAGE_XFER, "after the one write in the driver");
    assert_eq!(d.busy_until, line + MS + PAGE_XFER + MS + CFQ_SLICE_IDLE, "the line moves by the read, the seek back and the idle window");
    // The next write waits for that line (submission order within the async queue).
    let line = d.busy_until;
    let w41 = d.submit(Dir::Write, 40 * MAX_REQUEST_PAGES, MAX_REQUEST_PAGES, 2 * MS);
    assert_eq!(w41, line + RQ);
    assert!(d.queue.ordered());
    // The same read with none: behind all 40.
    let mut n = disk(SchedKind::None);
    writes(&mut n, 0, 40, 0);
    assert_eq!(n.submit(Dir::Read, 1 << 30, 1, MS), w[39] + MS + PAGE_XFER);
}

/// `cfq_may_dispatch()`: the async depth grows by one every `cfq_slice[1]` (100 ms) since the
/// last delayed sync request, up to the disk's queue (31); a sync request that took
/// `cfq_fifo_expire[1]` (125 ms) or more sets `last_delayed_sync` at its completion
/// (`cfq_completed_request()`), which brings the depth back to 1.
#[test]
fn cfq_async_depth_ramps_and_a_delayed_sync_resets_it() {
    let mut d = disk(SchedKind::Cfq);
    let t = 350 * MS;
    let w = writes(&mut d, 0, 40, t);
    let r = d.submit(Dir::Read, 1 << 30, 1, t + MS);
    assert_eq!(r, w[2] + MS + PAGE_XFER, "3 slices since boot: 3 writes in the driver");
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    assert_eq!(c.async_depth(t + 100 * CFQ_SLICE_SYNC, CFQ_DRIVER_DEPTH), CFQ_DRIVER_DEPTH, "capped at the disk's queue");
    // A delayed sync request: 20 MiB read alone (160 ms).
    let mut d = disk(SchedKind::Cfq);
    let t = 1_000 * MS;
    let big = d.submit(Dir::Read, 1 << 30, 20 * 256, t);
    assert!(big - t >= 125 * MS);
    let w = writes(&mut d, 0, 40, big + MS);
    let r = d.submit(Dir::Read, 2 << 30, 1, big + 2 * MS);
    assert_eq!(r, w[0] + MS + PAGE_XFER, "depth 1 again after the delayed read");
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    assert_eq!(c.last_delayed_sync, big);
    // Without it, 11 slices since boot (1.159 s): 11 writes go first.
    let mut e = disk(SchedKind::Cfq);
    let w = writes(&mut e, 0, 40, big + MS);
    assert_eq!((big + 2 * MS) / CFQ_SLICE_SYNC, 11);
    assert_eq!(e.submit(Dir::Read, 2 << 30, 1, big + 2 * MS), w[10] + MS + PAGE_XFER);
}

/// `cfq_arm_slice_timer()`: after its request completes the sync queue is idled for 8 ms; a
/// sync request arriving in the window is served at once (nothing async was dispatched), and
/// the part of the window not used goes back to the writes. Async requests submitted in the
/// window wait for its end.
#[test]
fn cfq_idles_after_a_sync_request() {
    let mut d = disk(SchedKind::Cfq);
    writes(&mut d, 0, 40, 0);
    let r1 = d.submit(Dir::Read, 1 << 30, 1, MS);
    let line = d.busy_until;
    let r2 = d.submit(Dir::Read, (1 << 30) + 1, 1, r1 + 2 * MS);
    assert_eq!(r2, r1 + 2 * MS + PAGE_XFER, "served at once, contiguous: no seek");
    assert_eq!(d.busy_until, line - 6 * MS + PAGE_XFER + MS + CFQ_SLICE_IDLE, "6 ms of the first window given back");
    // No async pending: a write submitted in the idle window starts at its end.
    let mut e = disk(SchedKind::Cfq);
    let r = e.submit(Dir::Read, 0, 1, 0);
    let w = e.submit(Dir::Write, 1 << 20, MAX_REQUEST_PAGES, r + MS);
    assert_eq!(w, r + CFQ_SLICE_IDLE + MS + RQ, "held to the window's end, then a seek");
    let mut n = disk(SchedKind::None);
    let r = n.submit(Dir::Read, 0, 1, 0);
    assert_eq!(n.submit(Dir::Write, 1 << 20, MAX_REQUEST_PAGES, r + MS), r + MS + MS + RQ);
}

/// `cfq_update_idle_window()`: a queue whose mean think time (`__cfq_update_io_thinktime()`)
/// is above `slice_idle` once its samples are valid is not idled for.
#[test]
fn cfq_does_not_idle_for_a_slow_thinker() {
    let mut d = disk(SchedKind::Cfq);
    let mut t = 0;
    for i in 0..8 {
        let r = d.submit(Dir::Read, i << 20, 1, t);
        t = r + 30 * MS;
    }
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    assert!(!c.idle_enabled(), "think time 16 ms (capped) > 8 ms");
    assert_eq!(c.idle_until, 0);
    let mut f = disk(SchedKind::Cfq);
    let mut t = 0;
    for i in 0..8 {
        let r = f.submit(Dir::Read, i << 20, 1, t);
        t = r + MS;
    }
    let Elevator::Cfq(c) = &f.sched else { panic!() };
    assert!(c.idle_enabled(), "think time 1 ms");
    assert!(c.idle_until > 0);
}

/// `cfq_completed_request()`: a sync queue whose slice (100 ms) is used up is expired, not
/// idled for, and the next sync request waits for what the async queue dispatched meanwhile.
#[test]
fn cfq_sync_slice_expires() {
    let mut d = disk(SchedKind::Cfq);
    let w = writes(&mut d, 0, 200, 0);
    // Reads 1 ms apart keep the sync queue active through its idle windows.
    let mut t = MS;
    let mut reads = vec![];
    while t < 130 * MS {
        let r = d.submit(Dir::Read, (1 << 30) + t / MS * 64, 1, t);
        reads.push((t, r));
        t = r + MS;
    }
    // The slice began when the first read did, after the one write in the driver.
    assert_eq!(reads[0].1, w[0] + MS + PAGE_XFER);
    let slice_end = w[0] + CFQ_SLICE_SYNC;
    let late = reads.iter().position(|&(t, _)| t >= slice_end).expect("a read after the slice");
    // Within the slice each read is served at once (a seek and its transfer).
    for &(t, r) in &reads[1..late] {
        assert_eq!(r, t + MS + PAGE_XFER, "read at {t}");
    }
    // The first read after it waits for the write the async queue dispatched meanwhile.
    let (t, r) = reads[late];
    let next_write = *w.iter().find(|&&d| d > t).expect("writes pending");
    assert_eq!(r, next_write + MS + PAGE_XFER);
    assert!(r > t + MS + PAGE_XFER);
    assert!(d.queue.ordered());
}

/// 6.1 `__dd_dispatch_request()`: a read waits for the 32 writes in the SATA disk's queue and
/// the rest of the write batch (`fifo_batch` 16) the next of them belongs to; the next write
/// batch starts after it.
#[test]
fn mq_deadline_read_waits_for_the_driver_and_the_write_batch() {
    let mut d = disk(SchedKind::MqDeadline);
    let w = writes(&mut d, 0, 100, 0);
    let r = d.submit(Dir::Read, 1 << 30, 1, MS);
    assert_eq!(r, w[DD_DRIVER_DEPTH as usize - 1] + MS + PAGE_XFER, "32 in the driver: the batch ends with the 32nd");
    // Three writes completed: the 32 in the driver end with write 35, inside a batch begun at
    // write 32 (after the read): it goes on to write 48.
    let mut d = disk(SchedKind::MqDeadline);
    let w = writes(&mut d, 0, 100, 0);
    let now = w[2];
    let r = d.submit(Dir::Read, 1 << 30, 1, now);
    let into = (3 + DD_DRIVER_DEPTH) % DD_FIFO_BATCH;
    assert_eq!(into, 3);
    assert_eq!(r, w[(3 + DD_DRIVER_DEPTH + DD_FIFO_BATCH - into) as usize - 1] + MS + PAGE_XFER);
    assert!(d.queue.ordered());
    // A driver taking every pending request (a virtio disk's 128 tags) leaves nothing to reorder.
    let mut v = disk(SchedKind::MqDeadline).with_driver_depth(128);
    let w = writes(&mut v, 0, 100, 0);
    assert_eq!(v.submit(Dir::Read, 1 << 30, 1, MS), w[99] + MS + PAGE_XFER);
}

/// `writes_starved` (2): reads queued back to back go in batches of 16; the third read batch
/// chosen while writes wait is a write batch's turn (`dd->starved++ >= dd->writes_starved`).
#[test]
fn mq_deadline_writes_starved_lets_a_write_batch_through() {
    let mut d = disk(SchedKind::MqDeadline);
    let w = writes(&mut d, 0, 200, 0);
    // 48 one-page reads at the same instant: three read batches.
    let reads: Vec<Nanos> = (0..48).map(|i| d.submit(Dir::Read, (1 << 30) + i * 64, 1, MS)).collect();
    let step = MS + PAGE_XFER;
    assert_eq!(reads[0], w[31] + step);
    for i in 1..32 {
        assert_eq!(reads[i], reads[i - 1] + step, "read {i} in the first two batches");
    }
    // Batch 3 waits for 16 writes beyond those done by the end of batch 2.
    let done_by = w.iter().filter(|&&t| t <= reads[31]).count();
    assert_eq!(reads[32], w[done_by + DD_FIFO_BATCH as usize - 1] + step);
    assert!(d.queue.ordered());
}

/// The scheduler orders only a device serving one request at a time: one whose queue takes
/// every request (`queue_depth`, the host's loop device) serves them in submission order
/// whatever it is set to.
#[test]
fn a_device_with_its_own_queue_is_not_reordered() {
    let run = |kind| {
        let hw = HwQueue::new(128, 50_000, [1 << 30, 1 << 30], [2 << 30, 2 << 30], 10_000);
        let mut d = BlockDevice::new("loop0", 2 << 30, 2 << 30, 0, 128).with_hw_queue(hw).with_sched(kind);
        let w = writes(&mut d, 0, 40, 0);
        (w, d.submit(Dir::Read, 1 << 30, 1, MS))
    };
    assert_eq!(run(SchedKind::Cfq), run(SchedKind::None));
    assert_eq!(run(SchedKind::MqDeadline), run(SchedKind::None));
}

/// `[devices.NAME] scheduler`: the era's default (CFQ before 5.0, mq-deadline after, none for
/// the host's loop device), a given one, and the mistakes, each naming the key.
#[test]
fn scheduler_key_and_defaults() {
    let resolve = |profile: &str, dev: &str| {
        let text = format!("[scenario]\nname = \"q\"\n[kernel]\nprofile = \"{profile}\"\n[machine]\nram = \"1G\"\n[devices.sda]\nread_bw = \"1G\"\n{dev}\n[files.\"/f\"]\nsize = \"1M\"\n[tasks.t]\nops = [{{ op = \"read\", file = \"/f\" }}]\n");
        crate::Document::from_toml("q.toml", &text).unwrap().resolve(None, &[]).map(|s| s.devices[0].scheduler).map_err(|e| e.to_string())
    };
    assert_eq!(resolve("linux-4.3", ""), Ok(SchedKind::Cfq));
    assert_eq!(resolve("linux-6.1", ""), Ok(SchedKind::MqDeadline));
    assert_eq!(resolve("linux-6.18", "queue_depth = 128"), Ok(SchedKind::None));
    assert_eq!(resolve("linux-6.18", "blk_throttle = true"), Ok(SchedKind::None));
    assert_eq!(resolve("linux-4.3", "scheduler = \"none\""), Ok(SchedKind::None));
    assert_eq!(resolve("linux-6.1", "scheduler = \"none\""), Ok(SchedKind::None));
    let depth = |profile: &str, dev: &str| {
        let text = format!("[scenario]\nname = \"q\"\n[kernel]\nprofile = \"{profile}\"\n[machine]\nram = \"1G\"\n[devices.sda]\nread_bw = \"1G\"\n{dev}\n[files.\"/f\"]\nsize = \"1M\"\n[tasks.t]\nops = [{{ op = \"read\", file = \"/f\" }}]\n");
        crate::Document::from_toml("q.toml", &text).unwrap().resolve(None, &[]).map(|s| s.devices[0].driver_depth).map_err(|e| e.to_string())
    };
    assert_eq!(depth("linux-4.3", ""), Ok(31));
    assert_eq!(depth("linux-6.1", ""), Ok(128));
    assert_eq!(depth("linux-6.1", "driver_depth = 32"), Ok(32));
    let e = depth("linux-6.1", "driver_depth = 0").unwrap_err();
    assert!(e.contains("devices.sda.driver_depth is 0"), "{e}");
    let e = resolve("linux-6.1", "scheduler = \"cfq\"").unwrap_err();
    assert!(e.contains("q.toml:9:") && e.contains("devices.sda.scheduler is \"cfq\" on profile `linux-6.1`"), "{e}");
    let e = resolve("linux-4.3", "scheduler = \"bfq\"").unwrap_err();
    assert!(e.contains("devices.sda.scheduler is \"bfq\": not a scheduler the engine models"), "{e}");
}

/// A CFQ disk with sync queues for `tasks` tasks (`cfq_get_queue()`'s per-task queues).
fn cfq_disk(tasks: usize) -> BlockDevice {
    let mut d = disk(SchedKind::Cfq);
    d.sched.reserve_queues(tasks);
    d
}

/// A read of `pages` at device page `start` by task `task` at `now` (`get_request()` binds it
/// to the task's queue, `cfq_set_request()`): its completion.
fn read_by(d: &mut BlockDevice, task: u32, start: u64, pages: u64, now: Nanos) -> Nanos {
    d.sched.set_ioc(task, true, false, start, pages);
    d.submit(Dir::Read, start, pages, now)
}

/// 4.3 `cfq_get_queue()` (a sync queue per process), `cfq_arm_slice_timer()` and
/// `cfq_should_preempt()`: while task 0's queue idles after its read (8 ms), a read of task 1
/// far from it does not preempt it (same class, slice not used, idle window set, not within
/// `CFQQ_CLOSE_THR`): it waits on the service tree until the window ends
/// (`cfq_idle_slice_timer()` expires the queue). Task 0's own read in its window is served at
/// once; once task 0's slice (100 ms) is used, task 1 preempts it at once.
#[test]
fn cfq_another_tasks_read_waits_for_the_active_queues_idle_window() {
    let mut d = cfq_disk(2);
    let r0 = read_by(&mut d, 0, 1 << 20, 1, 0);
    assert_eq!(r0, MS + PAGE_XFER);
    let t = r0 + MS;
    let r1 = read_by(&mut d, 1, 4 << 20, 1, t);
    assert_eq!(r1, r0 + CFQ_SLICE_IDLE + MS + PAGE_XFER, "after task 0's window, then a seek");
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    assert_eq!(c.active_queue(), Some(c.queue_of(1)));
    assert_eq!(c.slice_start, r0 + CFQ_SLICE_IDLE, "task 1's slice opens at task 0's expiry");
    // The same read of task 0 itself (one queue): served at once.
    let mut e = cfq_disk(2);
    let r0 = read_by(&mut e, 0, 1 << 20, 1, 0);
    assert_eq!(read_by(&mut e, 0, 4 << 20, 1, r0 + MS), r0 + MS + MS + PAGE_XFER);
    // Task 0's 16 MiB read (125 ms) outlasts its slice: task 1's read at 110 ms preempts it
    // (`cfq_slice_used()`) and goes right after the read in flight; at 90 ms it waits for the
    // window task 0 will idle for after it.
    let mut f = cfq_disk(2);
    let big = read_by(&mut f, 0, 1 << 20, 4096, 0);
    assert_eq!(big, MS + 125 * MS);
    assert_eq!(read_by(&mut f, 1, 8 << 20, 1, 110 * MS), big + MS + PAGE_XFER, "slice used: preempts");
    let mut g = cfq_disk(2);
    let big = read_by(&mut g, 0, 1 << 20, 2048, 0);
    assert_eq!(read_by(&mut g, 1, 8 << 20, 1, 50 * MS), big + CFQ_SLICE_IDLE + MS + PAGE_XFER, "within the slice: waits");
    // Task 0's read ends 4.4 ms before its slice does: its window runs past the slice's end,
    // and task 1's read 0.1 ms after the slice's end preempts it (served at once), where
    // 1 ms before the end it waits for the window.
    let mut h = cfq_disk(2);
    let r0 = read_by(&mut h, 0, 1 << 20, 3100, 0);
    assert!(r0 < CFQ_SLICE_SYNC && r0 + CFQ_SLICE_IDLE > CFQ_SLICE_SYNC + MS);
    let t = CFQ_SLICE_SYNC + 100_000;
    assert_eq!(read_by(&mut h, 1, 8 << 20, 1, t), t + MS + PAGE_XFER, "slice used: preempts the idling queue");
    let mut k = cfq_disk(2);
    let r0 = read_by(&mut k, 0, 1 << 20, 3100, 0);
    assert_eq!(read_by(&mut k, 1, 8 << 20, 1, CFQ_SLICE_SYNC - MS), r0 + CFQ_SLICE_IDLE + MS + PAGE_XFER);
}

/// `cfq_should_preempt()`: a read within `CFQQ_CLOSE_THR` (4 MiB) of where the idling queue
/// stopped (`cfq_rq_close()`) preempts it: served at once.
#[test]
fn cfq_close_read_preempts_the_idling_queue() {
    let mut d = cfq_disk(2);
    let r0 = read_by(&mut d, 0, 1 << 20, 1, 0);
    let near = (1 << 20) + 1 + 1000;
    assert_eq!(read_by(&mut d, 1, near, 1, r0 + MS), r0 + MS + MS + PAGE_XFER, "1000 pages away: close");
    let mut e = cfq_disk(2);
    let r0 = read_by(&mut e, 0, 1 << 20, 1, 0);
    let far = (1 << 20) + 1 + 1025;
    assert_eq!(read_by(&mut e, 1, far, 1, r0 + MS), r0 + CFQ_SLICE_IDLE + MS + PAGE_XFER, "1025 pages away: waits");
}

/// `cfq_update_io_seektime()`, `cfq_update_idle_window()` and `cfq_should_preempt()`: a
/// queue with more than 4 seeks in its last 32 requests (`CFQQ_SEEKY()`) loses its idle
/// window and goes on the sync-noidle tree; alone there it is still idled for
/// (`cfq_should_idle()`: the last queue of the tree), but a read of another seeky queue
/// preempts it (both on the sync-noidle tree), where a sequential reader's idle window held
/// the same read.
#[test]
fn cfq_seeky_queues_share_the_sync_noidle_tree() {
    let mut d = cfq_disk(2);
    let mut t = 0;
    for i in 0..6u64 {
        t = read_by(&mut d, 0, (i + 1) << 20, 1, t) + MS;
        t = read_by(&mut d, 1, ((i + 1) << 20) + (64 << 20), 1, t) + MS;
    }
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    for task in 0..2 {
        assert!(c.queue(c.queue_of(task)).seeky() && !c.queue(c.queue_of(task)).idle_window);
    }
    // Task 0 alone: its window is armed (the tree's last queue).
    let r = read_by(&mut d, 0, 100 << 20, 1, t + 20 * MS);
    let Elevator::Cfq(c) = &d.sched else { panic!() };
    assert_eq!(c.idle_until, r + CFQ_SLICE_IDLE);
    // Task 1's seeky read in that window preempts it.
    assert_eq!(read_by(&mut d, 1, 200 << 20, 1, r + MS), r + MS + MS + PAGE_XFER);
    // A sequential task 0 (idle window) holds the same read of seeky task 1 to its window's end.
    let mut e = cfq_disk(2);
    let mut t = 0;
    for i in 0..6u64 {
        t = read_by(&mut e, 1, (i + 1) << 20, 1, t) + MS;
    }
    let r = read_by(&mut e, 0, 300 << 20, 1, t + 20 * MS);
    let r = read_by(&mut e, 0, (300 << 20) + 1, 1, r + MS);
    assert_eq!(read_by(&mut e, 1, 200 << 20, 1, r + MS), r + CFQ_SLICE_IDLE + MS + PAGE_XFER);
}

/// `cfq_scaled_cfqq_slice()` with `low_latency` and `cfq_group_get_avg_queues()`: with 4 sync
/// queues busy, the average reaches 4 on the fourth slice and `cfq_slice[1]` * 4 = 400 ms
/// exceeds the group's 300 ms (`cfq_target_latency`): the slice is 100 * 300 / 400 = 75 ms.
/// With 3 busy (average 3) it stays 100 ms. Waiting queues are served in arrival order
/// (`cfq_service_tree_add()`), each after the one before expires.
#[test]
fn cfq_low_latency_scales_the_slice_to_the_busy_queues() {
    let mut d = cfq_disk(4);
    let mut slices = vec![];
    let mut done = vec![];
    for task in 0..4u32 {
        done.push(read_by(&mut d, task, (task as u64 + 1) << 24, 1, task as u64 * 1000));
        let Elevator::Cfq(c) = &d.sched else { panic!() };
        slices.push(c.slice_end - c.slice_start);
    }
    assert_eq!(slices, vec![CFQ_SLICE_SYNC, CFQ_SLICE_SYNC, CFQ_SLICE_SYNC, 75 * MS]);
    for i in 1..4 {
        assert_eq!(done[i], done[i - 1] + CFQ_SLICE_IDLE + MS + PAGE_XFER, "queue {i} after queue {}'s window", i - 1);
    }
}

/// 4.3 `cfq_set_request()` through `get_request()`: each task's reads reach its own sync queue
/// (the pool sized by the scenario's tasks, the running task's queue named at
/// `Kernel::blk_get_request`), none the slot of requests of no task.
#[test]
fn cfq_each_tasks_reads_go_to_its_own_queue() {
    let mut s = super::sim(
        "[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\ncpus = 2\n[kernel]\nprofile = \"linux-4.3\"\n\
         [devices.sda]\nread_bw = \"100M\"\nseek = \"5ms\"\n\
         [files.\"/a\"]\nsize = \"8M\"\n[files.\"/b\"]\nsize = \"8M\"\n\
         [tasks.a]\nops = [{ op = \"read\", file = \"/a\", bufsize = \"128K\" }]\n\
         [tasks.b]\nops = [{ op = \"read\", file = \"/b\", bufsize = \"128K\" }]\n",
    );
    super::run_with(&mut s, |_| {});
    let Elevator::Cfq(c) = &s.kernel.devices[0].sched else { panic!("4.3's default is CFQ") };
    for task in 0..2 {
        assert!(c.queue(c.queue_of(task)).ttime.last_end > 0, "task {task}'s reads on its own queue");
    }
    assert_eq!(c.queue(c.queue_of(u32::MAX)).ttime.last_end, 0, "no request of no task");
    assert_ne!(c.queue_of(0), c.queue_of(1));
}

/// A kernel of profile `p` with `d` as its device and the running task 0.
fn kernel_with(p: &str, d: BlockDevice) -> crate::kernel::Kernel {
    let mut k = crate::kernel::Kernel::new(crate::profile::profile(p).unwrap(), crate::profile::Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
    k.devices.push(d);
    k.cur_mm = 0;
    k
}

/// 4.3: a task's fsync write (`WB_SYNC_ALL` -> `WRITE_SYNC` = `WRITE | REQ_SYNC | REQ_NOIDLE`)
/// is a sync request of the task's own CFQ queue (`cfq_get_queue(cfqd, is_sync, ...)`,
/// `rq_is_sync()`), so it preempts the async queue (`cfq_should_preempt()`: "if the new request
/// is sync, but the currently running queue is not") and goes after the one async write in the
/// driver, not behind the flusher's 40; its `REQ_NOIDLE` clears the queue's idle window
/// (`cfq_update_idle_window()`: `cfqq->next_rq->cmd_flags & REQ_NOIDLE`), which the task's next
/// read, its think time not yet valid, leaves cleared. On 6.1 mq-deadline the same write is a
/// write (one FIFO per direction, `dd_insert_request()`): behind the 40.
#[test]
fn cfq_fsync_write_is_a_sync_request_of_the_tasks_queue() {
    let mut d = cfq_disk(2);
    let w = writes(&mut d, 0, 40, 0);
    let mut k = kernel_with("linux-4.3", d);
    k.now = MS;
    k.flusher.op = crate::blkdev::WbtOp::Sync;
    let f = k.wbt_submit_write(0, 1 << 30, MAX_REQUEST_PAGES);
    assert_eq!(f, w[0] + MS + RQ, "after the one write in the driver, then a seek");
    let Elevator::Cfq(c) = &k.devices[0].sched else { panic!() };
    let q = c.queue_of(0);
    assert_eq!(c.active_queue(), Some(q), "the task's own queue");
    assert!(!c.queue(q).idle_window, "REQ_NOIDLE clears the idle window");
    // The task's read after it: no valid think time yet, the window stays cleared.
    k.flusher.op = crate::blkdev::WbtOp::Normal;
    k.now = f + MS;
    k.blk_get_request(0, crate::blkdev::RqClass::Sync, 2 << 30, 1);
    k.devices[0].submit(Dir::Read, 2 << 30, 1, k.now);
    let Elevator::Cfq(c) = &k.devices[0].sched else { panic!() };
    assert!(!c.queue(q).idle_window);
    // The same write on 6.1's mq-deadline: a write, behind the 40.
    let mut d = disk(SchedKind::MqDeadline);
    let w = writes(&mut d, 0, 40, 0);
    let mut k = kernel_with("linux-6.1", d);
    k.now = MS;
    k.flusher.op = crate::blkdev::WbtOp::Sync;
    assert_eq!(k.wbt_submit_write(0, 1 << 30, MAX_REQUEST_PAGES), w[39] + MS + RQ);
}
