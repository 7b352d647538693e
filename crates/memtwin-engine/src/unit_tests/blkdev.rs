//! The request queue (blkdev.rs): requests cut at `max_sectors_kb` and back-merged
//! (block/blk-merge.c, block/elevator.c), allocated per class on the legacy request list
//! (`__get_request()`, block/blk-core.c 4.3) or from blk-mq's scheduler tags
//! (`blk_mq_get_tag()`, mq-deadline's `async_depth` from 5.14), and the waits that hang off it:
//! `get_request()` sleeping on a full class, `throttle_vm_writeout()` (mm/page-writeback.c,
//! 2.6-4.8).

use super::*;
use crate::blkdev::{BlkQueue, BlockDevice, Dir, RqClass, BLKDEV_MAX_RQ, MAX_REQUEST_PAGES};
use crate::delayacct::StallKind;
use crate::profile::{profile, Policies};

const MS: u64 = 1_000_000;

/// 128 MiB/s both ways, 1 ms seeks: a 512 KiB request takes 3.90625 ms.
fn disk() -> BlockDevice {
    BlockDevice::new("sda", 128 << 20, 128 << 20, MS, 128)
}

/// `blk_queue_split()` cuts a bio at `max_sectors_kb` (512 KiB: 128 pages); a bio that
/// continues the last request before the device starts it merges into it (`elv_merge()`'s
/// back merge), allocating nothing; requests are freed once each, in completion order.
#[test]
fn requests_are_cut_at_max_sectors_and_back_merged() {
    assert_eq!(MAX_REQUEST_PAGES, 128);
    let mut d = disk();
    let t0 = d.submit(Dir::Write, 0, 300, 0);
    assert_eq!(d.queue.queued, 3, "300 pages: 128 + 128 + 44");
    assert_eq!(d.queue.in_flight(RqClass::Async, 0), 3);
    // A contiguous bio while the third request has not started: merged.
    let t1 = d.submit(Dir::Write, 300, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (3, 1));
    assert!(t1 > t0);
    // Not contiguous: a request of its own.
    d.submit(Dir::Write, 10_000, 10, 0);
    assert_eq!(d.queue.queued, 4);
    // The first request completes after its seek and 128 pages, the others in order.
    let first = MS + 128 * 4096 * 1_000_000_000 / (128 << 20);
    assert_eq!(d.queue.in_flight(RqClass::Async, first - 1), 4);
    assert_eq!(d.queue.in_flight(RqClass::Async, first), 3);
    d.queue.retire(first);
    assert_eq!((d.queue.completed, d.queue.held()), (1, 3));
    d.queue.retire(u64::MAX);
    d.queue.retire(u64::MAX);
    assert_eq!((d.queue.completed, d.queue.held()), (4, 0), "each request freed once");
    assert!(d.queue.ordered());
}

/// 4.3's `__get_request()`: a class with `nr_requests` (128) allocated has no request for a
/// task that is not batching; it sleeps on `rl->wait[is_sync]` until `__freed_request()` frees
/// one of that class. The other class is counted apart: a read does not wait behind writes.
#[test]
fn legacy_get_request_sleeps_until_a_request_of_its_class_is_freed() {
    let mut d = disk();
    for i in 0..BLKDEV_MAX_RQ {
        d.submit(Dir::Write, i * 1000, 1, 0);
    }
    let first = d.queue.in_flight(RqClass::Async, 0);
    assert_eq!(first, 128);
    let wake = d.get_request_wait(RqClass::Async, 999_999, 1, 0, BlkQueue::Legacy).expect("the async list is full");
    // The first write completes after its seek and one page.
    assert_eq!(wake, MS + 4096 * 1_000_000_000 / (128 << 20));
    assert_eq!(d.get_request_wait(RqClass::Sync, 999_999, 1, 0, BlkQueue::Legacy), None, "sync requests are counted apart");
    // A bio that merges into the last request needs none.
    let last = 127 * 1000 + 1;
    assert_eq!(d.get_request_wait(RqClass::Async, last, 1, 0, BlkQueue::Legacy), None);
    // Once one has completed there is room.
    assert_eq!(d.get_request_wait(RqClass::Async, 999_999, 1, wake, BlkQueue::Legacy), None);
}

/// blk-mq (5.0+): both classes share `nr_requests` scheduler tags; from 5.14 mq-deadline lets
/// async requests use three quarters of them (`dd_limit_depth()`), so sync ones keep 32.
#[test]
fn blk_mq_tags_are_shared_and_mq_deadline_keeps_a_quarter_for_sync() {
    let mut d = disk();
    for i in 0..96 {
        d.submit(Dir::Write, i * 1000, 1, 0);
    }
    assert!(d.get_request_wait(RqClass::Async, 999_999, 1, 0, BlkQueue::MqAsyncDepth).is_some(), "async at its depth");
    assert_eq!(d.get_request_wait(RqClass::Async, 999_999, 1, 0, BlkQueue::Mq), None, "5.0-5.13: no async depth");
    assert_eq!(d.get_request_wait(RqClass::Sync, 999_999, 1, 0, BlkQueue::MqAsyncDepth), None);
    for i in 0..32 {
        d.submit(Dir::Read, 500_000 + i * 1000, 1, 0);
    }
    assert!(d.get_request_wait(RqClass::Sync, 999_999, 1, 0, BlkQueue::MqAsyncDepth).is_some(), "all 128 tags held");
    assert!(d.get_request_wait(RqClass::Sync, 999_999, 1, 0, BlkQueue::Mq).is_some());
    assert_eq!(d.get_request_wait(RqClass::Sync, 999_999, 1, 0, BlkQueue::Legacy), None, "legacy: 32 of 128 sync");
}

fn kernel_with_disk(p: &str) -> Kernel {
    let mut k = Kernel::new(profile(p).unwrap(), Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
    k.devices.push(disk());
    k
}

/// A swap-out from reclaim (`pageout()` -> `swap_writepage()`, an async request) that finds
/// 4.3's async list full sleeps in `get_request()`: a `congestion` stall of the task, in its
/// I/O wait; on 6.1 (mq-deadline) the same backlog of 128 async requests is past the async
/// depth too.
#[test]
fn a_task_sleeping_in_get_request_is_a_congestion_stall() {
    for p in ["linux-4.3", "linux-6.1"] {
        let mut k = kernel_with_disk(p);
        for i in 0..BLKDEV_MAX_RQ {
            k.devices[0].submit(Dir::Write, i * 1000, 1, 0);
        }
        k.blk_get_request(0, RqClass::Async, 999_999, 1);
        let ns = k.stall.take();
        assert!(ns[StallKind::Congestion as usize] > 0, "{p}");
        assert_eq!(ns[StallKind::Congestion as usize], k.now, "{p}");
        assert_eq!(k.iowait_ns, k.now, "{p}");
    }
    assert_eq!(profile("linux-4.3").unwrap().blk_queue, BlkQueue::Legacy);
    assert_eq!(profile("linux-5.0").unwrap().blk_queue, BlkQueue::Mq);
    assert_eq!(profile("linux-5.17").unwrap().blk_queue, BlkQueue::MqAsyncDepth);
}

/// `throttle_vm_writeout()` (4.3): while more pages are under writeback than the global dirty
/// threshold plus a tenth, reclaim sleeps `congestion_wait(BLK_RW_ASYNC, HZ/10)` and looks
/// again; it returns once the device has drained (here nothing completes the pages, so it
/// sleeps until the queue is idle: ten HZ/10 rounds for a second's backlog). Removed in 4.9.
#[test]
fn throttle_vm_writeout_loops_on_congestion_wait_while_writeback_is_over_the_limit() {
    let mut k = kernel_with_disk("linux-4.3");
    assert!(k.profile.throttle_vm_writeout);
    let g = k.global_dirty_limits();
    k.vmstat.nr_writeback = g.thresh + g.thresh / 10;
    k.devices[0].busy_until = 1_000 * MS;
    k.throttle_vm_writeout();
    assert_eq!(k.now, 0, "at the limit plus a tenth: no wait");
    k.vmstat.nr_writeback += 1;
    k.throttle_vm_writeout();
    assert_eq!(k.now, 1_000 * MS);
    assert_eq!(k.stall.take()[StallKind::Congestion as usize], 1_000 * MS);
    assert!(!profile("linux-5.0").unwrap().throttle_vm_writeout, "c2aa723a6093, 4.9");
}

/// blk-throttle (block/blk-throttle.c `tg_within_bps_limit()`, 6.18): the rules
/// `blkio.throttle.read_bps_device` and `write_bps_device` keep a slice and a byte count per
/// direction (`tg->bps[rw]`, `tg->bytes_disp[rw]`), so over a disk faster than both a read
/// is served on the reads' budget while the writes' backlog drains on its own: a 1 MiB read
/// submitted beside 64 MiB of queued writeback goes within its own slice's worth at once,
/// where a device with one time line serves it after the writes. The throttled bios wait
/// before they are given a request (`blk_throtl_bio()` in `submit_bio_noacct()`), so no
/// submitter waits for one.
#[test]
fn blk_throttle_serves_each_direction_on_its_own_budget() {
    let mb = 1u64 << 20;
    for throttled in [false, true] {
        let mut d = if throttled {
            BlockDevice::throttled("loop0", 128 * mb, 64 * mb, 0, 128)
        } else {
            BlockDevice::new("loop0", 128 * mb, 64 * mb, 0, 128)
        };
        // 64 MiB of writeback in 1 MiB bios.
        let mut wdone = 0;
        for i in 0..64 {
            wdone = d.submit(Dir::Write, i * mb / 4096, mb / 4096, 0);
        }
        let rdone = d.submit(Dir::Read, 1 << 30, mb / 4096, 0);
        let own = 1_000 * MS / 128;
        if throttled {
            // A slice's worth a slice: the 64th MiB leaves in the tenth slice (6.4 MiB each),
            // when the pending timer fires.
            assert!(wdone > 900 * MS && wdone <= 1_000 * MS + 8 * crate::timer::NSEC_PER_JIFFY, "64 MiB at 64 MiB/s: {wdone}");
            assert_eq!(rdone, 0, "the read's own budget: 1 MiB within the reads' first slice");
            assert_eq!(d.busy_until, wdone, "the writes' line does not move");
            // The writes' backlog holds no request a read could wait for.
            for i in 0..BLKDEV_MAX_RQ {
                d.submit(Dir::Write, (2 << 30) + i * 1000, 1, 0);
            }
            assert_eq!(d.get_request_wait(RqClass::Sync, 5 << 30, 1, 0, BlkQueue::MqAsyncDepth), None);
            assert!(d.queue.ordered(), "each class completes in order on its line");
        } else {
            assert_eq!(wdone, 1_000 * MS, "64 MiB at 64 MiB/s");
            assert_eq!(rdone, wdone + own, "one time line: the read waits for the writes");
        }
    }
}

/// `blk_try_merge()` (block/blk-merge.c, 4.x-6.x): a bio back-merges into a request only when
/// it starts where the request ends (`blk_rq_pos(rq) + blk_rq_sectors(rq) ==
/// bio->bi_iter.bi_sector`), whatever the device's access latency: on a device without one a
/// distant bio pays no seek, and still gets a request of its own, as `get_request_wait()` (the
/// same test) expects.
#[test]
fn blk_try_merge_needs_a_contiguous_bio_even_without_seeks() {
    let mut d = BlockDevice::new("sda", 128 << 20, 128 << 20, 0, 128);
    // The device is busy with a first request: the next ones wait, not started.
    d.submit(Dir::Write, 50_000, 100, 0);
    d.submit(Dir::Write, 0, 10, 0);
    d.submit(Dir::Write, 10, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (2, 1), "contiguous: merged");
    // A free request: the allocation test agrees that a distant bio needs one.
    let full = BlockDevice { nr_requests: 1, ..d.clone() };
    assert!(full.get_request_wait(RqClass::Async, 10_000, 10, 0, BlkQueue::Mq).is_some());
    d.submit(Dir::Write, 10_000, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (3, 1), "not contiguous: a request of its own");
    d.queue.retire(u64::MAX);
    assert_eq!(d.queue.completed, 3);
}
