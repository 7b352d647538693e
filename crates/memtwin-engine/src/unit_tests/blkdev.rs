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
    let wake = d.get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, 0, BlkQueue::Legacy).expect("the async list is full");
    // The first write completes after its seek and one page.
    assert_eq!(wake, MS + 4096 * 1_000_000_000 / (128 << 20));
    assert_eq!(d.get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::Legacy), None, "sync requests are counted apart");
    // A bio that merges into the last request needs none.
    let last = 127 * 1000 + 1;
    assert_eq!(d.get_request_wait(Dir::Write, RqClass::Async, last, 1, 0, BlkQueue::Legacy), None);
    // Once one has completed there is room.
    assert_eq!(d.get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, wake, BlkQueue::Legacy), None);
}

/// blk-mq (5.0+): both classes share `nr_requests` scheduler tags; from 5.14 mq-deadline lets
/// async requests use three quarters of them (`dd_limit_depth()`), so sync ones keep 32.
#[test]
fn blk_mq_tags_are_shared_and_mq_deadline_keeps_a_quarter_for_sync() {
    let mut d = disk();
    for i in 0..96 {
        d.submit(Dir::Write, i * 1000, 1, 0);
    }
    assert!(d.get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, 0, BlkQueue::MqAsyncDepth).is_some(), "async at its depth");
    assert_eq!(d.get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, 0, BlkQueue::Mq), None, "5.0-5.13: no async depth");
    assert_eq!(d.get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::MqAsyncDepth), None);
    for i in 0..32 {
        d.submit(Dir::Read, 500_000 + i * 1000, 1, 0);
    }
    assert!(d.get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::MqAsyncDepth).is_some(), "all 128 tags held");
    assert!(d.get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::Mq).is_some());
    assert_eq!(d.get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::Legacy), None, "legacy: 32 of 128 sync");
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
            assert_eq!(d.get_request_wait(Dir::Read, RqClass::Sync, 5 << 30, 1, 0, BlkQueue::MqAsyncDepth), None);
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
    assert!(full.get_request_wait(Dir::Write, RqClass::Async, 10_000, 10, 0, BlkQueue::Mq).is_some());
    d.submit(Dir::Write, 10_000, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (3, 1), "not contiguous: a request of its own");
    d.queue.retire(u64::MAX);
    assert_eq!(d.queue.completed, 3);
}

/// The host runner's loop device as lab/validation/loop-device.md measured it (6.18.44): a
/// request alone pays a latency and moves at one request's rate; requests in flight together
/// share the device's bandwidth. Round figures: 50 us, 1 GiB/s alone, 4 GiB/s shared.
fn queued_disk(depth: u32) -> BlockDevice {
    use crate::blkdev::HwQueue;
    BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128).with_hw_queue(HwQueue::new(depth, 50_000, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0))
}

/// 512 KiB alone: 50 us + 512 KiB at 1 GiB/s = 538.28 us: a device with its own queue
/// (blk-mq's driver tags, `tag_set.queue_depth`: drivers/block/loop.c's `hw_queue_depth` in
/// 6.x) serves one request at the rate one request gets, not at the shared bandwidth.
#[test]
fn a_request_alone_pays_its_latency_and_its_own_rate() {
    let mut d = queued_disk(128);
    let done = d.submit(Dir::Read, 0, MAX_REQUEST_PAGES, 0);
    assert_eq!(done, 50_000 + 488_281, "latency + 512 KiB at 1 GiB/s");
    // Later, alone again (the device idle): the same, from its own submission.
    let t = 10 * MS;
    assert_eq!(d.submit(Dir::Read, 5000, MAX_REQUEST_PAGES, t), t + 50_000 + 488_281);
}

/// 32 requests of 512 KiB submitted together (a 16 MiB readahead window, one bio cut at
/// `max_sectors_kb`): they are all under way at once (`blk_mq_dispatch_rq_list()` hands each
/// to the driver while it has a tag) and share 4 GiB/s, so the last completes after
/// 16 MiB / 4 GiB/s = 3.906 ms (one after the other at one request's rate it would be 15.6
/// ms), and completions come in order. Held on 6.18's loop device: 32 requests of 1 MiB
/// issued together completed together, p10 8.8 ms and p90 10.2 ms after issue.
#[test]
fn requests_in_flight_share_the_bandwidth_and_complete_in_order() {
    let mut d = queued_disk(128);
    let last = d.submit(Dir::Read, 0, 32 * MAX_REQUEST_PAGES, 0);
    assert_eq!(d.queue.queued, 32);
    assert_eq!(d.queue.in_flight(RqClass::Sync, 0), 32);
    assert_eq!(last, 32 * 122_070, "16 MiB at the shared 4 GiB/s (122.07 us a request, in whole ns)");
    assert!(d.queue.ordered());
    // The first request: no earlier than alone, and no earlier than its share of the bandwidth.
    assert_eq!(d.queue.in_flight(RqClass::Sync, 538_280), 32, "none completes before a request alone would");
    // The first four's bytes have moved by then (4 x 122 us): they complete together.
    assert_eq!(d.queue.in_flight(RqClass::Sync, 538_282), 28);
    // The shared line ends at the last: 4 requests' share per 488 us after the first.
    assert_eq!(d.queue.in_flight(RqClass::Sync, 1_953_125), 32 - 16, "half the bytes, half the requests");
}

/// With 4 driver tags the fifth request waits for the first's completion before the device
/// takes it (`blk_mq_get_driver_tag()` fails, the request stays on the dispatch list until
/// `blk_mq_run_hw_queue()` after a completion): it completes a request-alone time after that.
#[test]
fn a_full_device_queue_holds_the_next_request() {
    let mut d = queued_disk(4);
    let mut done = vec![];
    for i in 0..5u64 {
        done.push(d.submit(Dir::Read, i * 1000, MAX_REQUEST_PAGES, 0));
    }
    // 4 together: line 4 x 122 us = 488 us < alone 538 us: all four at 538 us (in order).
    assert!(done[..4].iter().all(|&t| t == 538_281), "{done:?}");
    assert_eq!(done[4], 538_281 + 538_281, "dispatched at the first completion");
    // With 128 tags the fifth would have been under way at once.
    let mut e = queued_disk(128);
    let fifth = (0..5u64).map(|i| e.submit(Dir::Read, i * 1000, MAX_REQUEST_PAGES, 0)).last().unwrap();
    assert_eq!(fifth, 5 * 122_070, "the shared line: 5 x 512 KiB at 4 GiB/s");
}

/// Bios submitted at one instant merge into the request made at that instant (the plug:
/// `blk_start_plug()` in `read_pages()`, `blk_attempt_plug_merge()`), up to `max_sectors_kb`.
#[test]
fn bios_of_one_plug_merge_on_a_queued_device() {
    let mut d = queued_disk(128);
    d.submit(Dir::Read, 0, 32, 0);
    let done = d.submit(Dir::Read, 32, 32, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (1, 1));
    assert_eq!(done, 50_000 + 244_140, "one 256 KiB request alone");
    assert_eq!(d.get_request_wait(Dir::Read, RqClass::Sync, 64, 32, 0, BlkQueue::Mq), None);
    // Later, the request under way: a new one.
    d.submit(Dir::Read, 64, 32, 1);
    assert_eq!((d.queue.queued, d.queue.merged), (2, 1));
}

/// The queue's `max_sectors_kb` (1280 on 6.x's loop device, `BLK_DEF_MAX_SECTORS` in 6.1): a 16
/// MiB bio is cut into 13 requests (12 of 1280 KiB and the rest), as the host's traces show a
/// readahead window's bio ("13 requests of 1,280 KiB", lab/validation/large-folios.md).
#[test]
fn a_queue_cuts_requests_at_its_max_sectors_kb() {
    let mut d = queued_disk(128).with_max_sectors_kb(1280);
    d.submit(Dir::Read, 0, 4096, 0);
    assert_eq!(d.queue.queued, 13);
    // Bios of the same plug merge up to 1280 KiB (320 pages): the last request, 256 pages,
    // takes 64 more.
    d.submit(Dir::Read, 4096, 64, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (13, 1));
    d.submit(Dir::Read, 4160, 1, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (14, 1), "full: a new request");
}

/// `blk_queue_split()` (block/blk-merge.c 6.1; `bio_split_rw()` later) cuts a bio at the
/// queue's `max_sectors_kb` whatever serves the queue: the lab's QEMU guest disk (virtio-blk,
/// no queue of its own in the model) reports 1280, as every qemu61/qemu612 recording's
/// `real.machine.queue` shows, so a 16 MiB bio is 13 requests there, not 32 of 512 KiB, and
/// `bdi->io_pages` (`disk_update_readahead()`) is 320 pages. A device that does not give its
/// `max_sectors_kb` keeps 512 KiB (`BLK_DEF_MAX_SECTORS` of 4.x).
#[test]
fn a_device_without_a_queue_of_its_own_cuts_at_its_max_sectors_kb() {
    for qemu in [false, true] {
        let d0 = BlockDevice { qemu_throttle: qemu, ..BlockDevice::new("vda", 500 << 20, 400 << 20, 0, 128) };
        let mut d = d0.clone();
        assert_eq!(d.io_pages(), 128, "qemu {qemu}");
        d.submit(Dir::Read, 0, 4096, 0);
        assert_eq!(d.queue.queued, 32, "qemu {qemu}: 512 KiB requests");
        let mut d = d0.with_max_sectors_kb(1280);
        assert_eq!(d.io_pages(), 320, "qemu {qemu}");
        d.submit(Dir::Read, 0, 4096, 0);
        assert_eq!(d.queue.queued, 13, "qemu {qemu}: 12 of 1280 KiB and the rest");
        d.submit(Dir::Write, 1 << 20, 1024, 0);
        assert_eq!(d.queue.queued, 13 + 4, "qemu {qemu}: 4 MiB written in 4 requests");
    }
}

/// `[devices.NAME] max_sectors_kb` is the device's, with or without `queue_depth`: a QEMU guest's
/// disk (`qemu_throttle`) given 1280 has `bdi->io_pages` 320 (`disk_update_readahead()`), one
/// that does not give it 128 (512 KiB); it is no longer refused without `queue_depth`.
#[test]
fn max_sectors_kb_is_the_devices_key() {
    for (line, pages) in [("max_sectors_kb = 1280\n", 320), ("", 128)] {
        let s = sim(&format!(
            r#"
[scenario]
name = "vda"
[machine]
ram = "256M"
[devices.sda]
read_bw = "500M"
write_bw = "400M"
qemu_throttle = true
{line}[files."/f"]
size = "4M"
[tasks.t]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
        ));
        assert_eq!(s.kernel.devices[0].io_pages(), pages, "{line:?}");
    }
}

/// On a blk-throttle device with its own queue each direction is released on its own budget
/// (`tg_may_dispatch()`, block/blk-throttle.c 6.18) and then served by the device: a read
/// within the reads' first slice goes at once, whatever writeback the write rule holds.
#[test]
fn throttled_directions_reach_the_queue_apart() {
    use crate::blkdev::HwQueue;
    let mb = 1u64 << 20;
    let mut d = BlockDevice::throttled("loop0", 100 * mb, 100 * mb, 0, 128).with_hw_queue(HwQueue::new(128, 50_000, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0));
    let wdone = d.submit(Dir::Write, 0, 256 * 100, 0); // 100 MiB: 10 MiB a slice
    assert!(wdone > 900 * MS, "{wdone}");
    let rdone = d.submit(Dir::Read, 1 << 30, MAX_REQUEST_PAGES, 0);
    // Within the reads' first slice (10 MiB): released at once, then alone on the device
    // (50 us + 512 KiB at 1 GiB/s).
    assert_eq!(rdone, 538_281);
    assert!(d.queue.ordered());
}

/// A queue device under a blk-throttle rule releases a writeback backlog as
/// `tg_within_bps_limit()` (block/blk-throttle.c, 6.18) grants it, the same slices as a device
/// without a queue ([`crate::blk_throttle::ThrotlGrp::throtl_bio`], shared): a slice's worth
/// (15 MiB at 150 MiB/s) at once, then a slice's worth every `DFL_THROTL_SLICE` (100 ms) when
/// the pending timer fires; the bios released at one tick reach the device together
/// (`blk_throtl_dispatch_work_fn()` submits them under one plug) and it serves them with its
/// queue: the burst's requests complete within a few ms at the shared bandwidth, not spread
/// over the slice. Traced on the host (6.18, block:block_rq_issue of loop0 under a 150 MiB/s
/// write rule): bursts of 16 MiB every 100-112 ms, completed within 2.5-8 ms.
#[test]
fn a_queue_device_under_tg_within_bps_limit_takes_a_slice_at_a_time() {
    use crate::blk_throttle::{calculate_bytes_allowed, ThrotlGrp, THROTL_SLICE};
    use crate::blkdev::HwQueue;
    use crate::timer::NSEC_PER_JIFFY;
    let bps = 150u64 << 20;
    let hw = || HwQueue::new(128, 50_000, [1_400_000_000, 3_500_000_000], [3_300_000_000, 3_400_000_000], 13_000).with_max_sectors_kb(1280);
    let mut d = BlockDevice::throttled("loop0", bps, bps, 0, 128).with_hw_queue(hw());
    let mut plain = BlockDevice::throttled("loop0", bps, bps, 0, 128);
    let mut g = ThrotlGrp::default();
    let t0 = 1_000 * MS;
    let bio = 512u64 << 10;
    let pages = bio / 4096;
    let slice = calculate_bytes_allowed(bps, THROTL_SLICE);
    let first = slice / bio;
    let mut bursts: Vec<(u64, u64, u64)> = vec![]; // (release, bytes, last completion)
    for i in 0..200u64 {
        let now = t0 + i * 10_000;
        let released = g.throtl_bio(bio, now, bps);
        let done = d.submit(Dir::Write, i * pages, pages, now);
        // The device without a queue takes the same slices (no access latency here, and the
        // disk beneath the rule serves a released bio at once).
        assert_eq!(plain.submit(Dir::Write, i * pages, pages, now), released, "bio {i}");
        assert!(done >= released, "bio {i} completes after its release");
        if i < first {
            assert_eq!(released, now, "bio {i}: the first slice's worth goes as it is submitted");
            continue;
        }
        match bursts.last_mut() {
            Some((t, n, last)) if *t == released => {
                *n += bio;
                *last = (*last).max(done);
            }
            _ => bursts.push((released, bio, done)),
        }
    }
    assert!(bursts.len() >= 5, "{bursts:?}");
    for w in bursts[..bursts.len() - 1].windows(2) {
        assert_eq!(w[1].0 - w[0].0, THROTL_SLICE * NSEC_PER_JIFFY, "one burst a slice");
    }
    for &(t, n, last) in &bursts[..bursts.len() - 1] {
        assert_eq!(n, first * bio, "a slice's worth of bios");
        assert_eq!(t % NSEC_PER_JIFFY, 0, "released when the pending timer fires");
        // 15 MiB at the shared 3.4 GB/s (+13 us a request): about 5 ms, well within the slice.
        let took = last - t;
        assert!(took > 4 * MS && took < 6 * MS, "burst at {} ms served in {} us", (t - t0) / MS, took / 1000);
    }
    assert!(d.queue.ordered());
    assert_eq!(d.queue.queued + d.queue.merged, 200, "every bio a request or merged");
}

/// The device queue's keys: `queue_depth` turns it on and the others need it; the queue's own
/// bandwidths are asked for only under blk-throttle rules. Each mistake names the key.
/// The errors of a one-device scenario (q.toml, the device's table at line 5) whose
/// `[devices.sda]` has `read_bw = "1G"` and the lines `dev` (from line 7); "" when it resolves.
fn device_errors(dev: &str) -> String {
    let text = format!("[scenario]\nname = \"q\"\n[machine]\nram = \"1G\"\n[devices.sda]\nread_bw = \"1G\"\n{dev}\n[files.\"/f\"]\nsize = \"1M\"\n[tasks.t]\nops = [{{ op = \"read\", file = \"/f\" }}]\n");
    let doc = crate::Document::from_toml("q.toml", &text).unwrap();
    doc.resolve(None, &[]).err().map(|e| e.to_string()).unwrap_or_default()
}

#[test]
fn device_queue_keys_are_checked() {
    let errors = device_errors;
    assert_eq!(errors("queue_depth = 128\nrequest_latency = \"50us\"\nrequest_read_bw = \"1G\"\nrequest_cost = \"10us\""), "");
    let e = errors("request_latency = \"50us\"");
    assert!(e.contains("q.toml:7:") && e.contains("devices.sda.request_latency is given without devices.sda.queue_depth"), "{e}");
    let e = errors("queue_depth = 0");
    assert!(e.contains("devices.sda.queue_depth is 0") && e.contains("BLK_MQ_MAX_DEPTH"), "{e}");
    let e = errors("blk_throttle = true\nqueue_depth = 128\nqueue_read_bw = \"3G\"");
    assert!(e.contains("not both queue_read_bw and queue_write_bw"), "{e}");
    assert_eq!(errors("blk_throttle = true\nqueue_depth = 128\nqueue_read_bw = \"3G\"\nqueue_write_bw = \"3G\""), "");
    let e = errors("queue_depth = 128\nqueue_read_bw = \"3G\"");
    assert!(e.contains("devices.sda.queue_read_bw is given on a device without blk_throttle"), "{e}");
    let e = errors("queue_depth = 128\nmax_sectors_kb = 2");
    assert!(e.contains("devices.sda.max_sectors_kb is 2: a request holds from one page"), "{e}");
    // max_sectors_kb is the device's, with or without a queue of its own, checked either way.
    assert_eq!(errors("max_sectors_kb = 1280"), "");
    let e = errors("max_sectors_kb = 2");
    assert!(e.contains("devices.sda.max_sectors_kb is 2: a request holds from one page"), "{e}");
    let e = errors("queue_depth = 128\nrequest_latncy = \"5us\"");
    assert!(e.contains("unknown key `request_latncy`"), "{e}");
}

/// `blk_attempt_plug_merge()` + `blk_add_rq_to_plug()` (block/blk-mq.c): a bio that
/// continues the plug's newest request in its direction merges into it up to
/// `BLK_MAX_SEGMENTS` (128 pages of separate bios); a new request flushes the plug first when
/// the plug holds `BLK_MAX_REQUEST_COUNT` requests (16 before 5.16, 32 from 5.16) or when the
/// request `rq_list_peek()` returns is at least `BLK_PLUG_FLUSH_SIZE` (128 KiB): the newest
/// 4.10-6.12 (6.1), the oldest from 6.13 (6.18), so behind a small read the plug holds 32
/// write requests; before 4.10 (legacy `blk_queue_bio()`, 4.4) there is no size test and the
/// plug holds 16.
#[test]
fn blk_add_rq_to_plug_peeks_the_newest_6_1_and_the_oldest_6_13() {
    use crate::blkdev::{BlkPlug, PlugPeek, BLK_MAX_REQUEST_COUNT, BLK_MAX_REQUEST_COUNT_PRE_5_16, BLK_PLUG_FLUSH_PAGES, PLUG_RQ_MAX_PAGES};
    assert_eq!((BLK_MAX_REQUEST_COUNT, BLK_MAX_REQUEST_COUNT_PRE_5_16, BLK_PLUG_FLUSH_PAGES, PLUG_RQ_MAX_PAGES), (32, 16, 32, 128));
    for peek in [PlugPeek::Newest, PlugPeek::Oldest] {
        let mut p = BlkPlug::default();
        assert!(!p.flush_before(0, 1, true, PLUG_RQ_MAX_PAGES, peek, BLK_MAX_REQUEST_COUNT), "an empty plug takes the first request");
        for s in 0..PLUG_RQ_MAX_PAGES {
            assert!(!p.flush_before(s, 1, true, PLUG_RQ_MAX_PAGES, peek, BLK_MAX_REQUEST_COUNT), "page {s} merges");
            p.add(s, 1, true, PLUG_RQ_MAX_PAGES);
        }
        assert_eq!(p.rqs, vec![(0, PLUG_RQ_MAX_PAGES, true)], "128 one-page bios: one request");
        // The 129th page cannot merge: a new request, after a flush (the large request is both
        // the oldest and the newest).
        assert!(p.flush_before(PLUG_RQ_MAX_PAGES, 1, true, PLUG_RQ_MAX_PAGES, peek, BLK_MAX_REQUEST_COUNT));
        // A read next to a write does not merge into it.
        let mut p = BlkPlug::default();
        p.add(0, 1, false, PLUG_RQ_MAX_PAGES);
        p.add(1, 1, true, PLUG_RQ_MAX_PAGES);
        assert_eq!(p.rqs.len(), 2);
    }
    // Behind a 3-page read: 6.1 flushes before the second write request, 6.13+ holds 32, 4.4
    // holds 16 (no size test).
    let fill = |peek: PlugPeek, max: usize| -> usize {
        let mut p = BlkPlug::default();
        p.add(1_000_000, 3, false, PLUG_RQ_MAX_PAGES);
        for r in 0..64u64 {
            for s in 0..PLUG_RQ_MAX_PAGES {
                let start = r * 1000 + s;
                if p.flush_before(start, 1, true, PLUG_RQ_MAX_PAGES, peek, max) {
                    return p.rqs.len();
                }
                p.add(start, 1, true, PLUG_RQ_MAX_PAGES);
            }
        }
        p.rqs.len()
    };
    assert_eq!(fill(PlugPeek::Newest, BLK_MAX_REQUEST_COUNT), 2, "the read and one 512 KiB write");
    assert_eq!(fill(PlugPeek::Oldest, BLK_MAX_REQUEST_COUNT), BLK_MAX_REQUEST_COUNT, "the read and 31 writes of 512 KiB");
    assert_eq!(fill(PlugPeek::NoSizeTest, BLK_MAX_REQUEST_COUNT_PRE_5_16), BLK_MAX_REQUEST_COUNT_PRE_5_16, "the read and 15 writes of 512 KiB");
    let (p41, p50, p61, p618) = (
        crate::profile::profile("linux-4.4").unwrap(),
        crate::profile::profile("linux-5.0").unwrap(),
        crate::profile::profile("linux-6.1").unwrap(),
        crate::profile::profile("linux-6.18").unwrap(),
    );
    assert_eq!((p41.blk_plug_peek, p41.blk_max_request_count), (PlugPeek::NoSizeTest, 16));
    assert_eq!((p50.blk_plug_peek, p50.blk_max_request_count), (PlugPeek::Newest, 16));
    assert_eq!((p61.blk_plug_peek, p61.blk_max_request_count), (PlugPeek::Newest, 32));
    assert_eq!((p618.blk_plug_peek, p618.blk_max_request_count), (PlugPeek::Oldest, 32));
}

/// A device whose reads in flight complete together (`[devices.X] complete_together`,
/// blkdev.rs `BlockDevice::read_batch`): the guest's `virtblk_done()` (drivers/block/virtio_blk.c,
/// 6.18) ends every request the device has put in the used ring by the interrupt it runs at,
/// and the lab's virtio disk reports a read submitted while another is in flight with the last
/// of them (lab/validation/trace-programs.md). The transfer stays serial: a read submitted
/// while one is on the device joins its batch and the first completes with the second; a read
/// after the batch ended opens the next one; a device without the key completes each read on
/// its own.
#[test]
fn reads_submitted_while_others_are_in_flight_complete_with_the_last() {
    let mut d = BlockDevice::new("vda", 1 << 30, 1 << 30, 0, 128).with_complete_together();
    let a = d.submit(Dir::Read, 0, 256, 0);
    let batch = d.read_batch();
    assert_eq!(a, 1_000_000_000 / 1024, "1 MiB at 1 GiB/s, serial");
    let b = d.submit(Dir::Read, 10_000, 1024, a / 2);
    assert_eq!(d.read_batch(), batch, "submitted while the first is in flight: the same batch");
    assert_eq!(b, a + 3_906_250, "the 4 MiB read is served after the 1 MiB one");
    assert_eq!(d.read_batch_done(batch, a), b, "the first read completes with the last");
    assert_eq!(d.read_batch_done(batch, b), b);
    let c = d.submit(Dir::Read, 20_000, 1, b);
    assert_ne!(d.read_batch(), batch, "submitted once the batch is done: the next batch");
    assert_eq!(d.read_batch_done(d.read_batch(), c), c);
    assert_eq!(d.read_batch_done(batch, a), b, "an ended batch's reads were done with its last (before now)");
    // Writes do not join or open batches (their completion is each one's own).
    let w = d.submit(Dir::Write, 30_000, 256, c);
    assert_eq!(d.batch_end, c);
    assert!(w > c);
    let mut e = BlockDevice::new("sda", 1 << 30, 1 << 30, 0, 128);
    let a = e.submit(Dir::Read, 0, 256, 0);
    e.submit(Dir::Read, 10_000, 1024, a / 2);
    assert_eq!(e.read_batch(), 0, "a device completing each read on its own has no batches");
    assert_eq!(e.read_batch_done(0, a), a);
}

/// Under a blk-throttle rule (`blk_throttle` with `complete_together`: the host runner's loop
/// device, whose direct I/O goes to a file on the host's virtio disk): a bio the throttle holds
/// (`blk_throtl_bio()`, block/blk-throttle.c 6.18, queues it on the group's service queue until
/// `blk_throtl_dispatch_work_fn()` submits it) is not on the device, so it joins the batch of
/// the reads on the device only if it is released while they are still in flight
/// (`virtblk_done()`, drivers/block/virtio_blk.c, ends what the device has put in the used ring);
/// released after their end it opens the next batch, and the reads before it complete with their
/// own batch's last read, not with the held bio.
#[test]
fn a_read_blk_throttle_holds_joins_the_batch_its_release_finds_6_18() {
    use crate::blkdev::HwQueue;
    let mb = 1u64 << 20;
    // 10 MiB a slice (100 ms) at 100 MiB/s; the device beneath serves 1 GiB/s alone, 4 shared.
    let mut d = BlockDevice::throttled("loop0", 100 * mb, 100 * mb, 0, 128)
        .with_hw_queue(HwQueue::new(128, 50_000, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0))
        .with_complete_together();
    let a = d.submit(Dir::Read, 0, 1024, 0); // 4 MiB: within the slice, released at once
    let ba = d.read_batch();
    let a2 = d.submit(Dir::Read, 1024, 1024, 1_000); // 4 MiB more, within the slice: joins it
    assert_eq!(d.read_batch(), ba);
    assert!(a < a2 && a2 < 10 * MS, "released at once and read in a few ms: {a} {a2}");
    let b = d.submit(Dir::Read, 2048, 1024, 2_000); // 4 MiB more: over the slice's 10 MiB, held
    let bb = d.read_batch();
    assert!(b > 90 * MS, "held by the throttle until a later slice: {b}");
    assert_ne!(bb, ba, "released after the first batch ended: a batch of its own");
    assert_eq!(d.read_batch_done(ba, a), a2, "the first read completes with its own batch's last, not with the held one");
    assert_eq!(d.read_batch_done(bb, b), b);
    // Without the throttle the second read, submitted while the first is on the device, joins it.
    let mut u = BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128)
        .with_hw_queue(HwQueue::new(128, 50_000, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0))
        .with_complete_together();
    let a = u.submit(Dir::Read, 0, 2048, 0);
    let ba = u.read_batch();
    let b = u.submit(Dir::Read, 2048, 1024, 1_000);
    assert_eq!(u.read_batch(), ba);
    assert_eq!(u.read_batch_done(ba, a), b.max(a));
}

/// `filemap_read()` through such a device: a readahead window submitted while the window
/// before it is being read keeps that window's pages locked (`folio_test_locked()`, the
/// reader's `folio_wait_locked()`) until the second completes (`end_page_read()` from the
/// batch's completion), as the cold `cat` of trace-cat.toml saw on the host: its 2 MiB and
/// 4 MiB windows, issued 0.16 ms apart, completed 20 us apart.
#[test]
fn a_window_submitted_behind_another_holds_its_pages_locked_until_both_complete() {
    for together in [false, true] {
        let mut s = sim(&format!(r#"
[scenario]
name = "together"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
complete_together = {together}
[files."/f"]
size = "16M"
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        assert_eq!(k.devices[0].complete_together, together);
        k.do_page_cache_ra(f, 0, 256, 0, MemcgId::ROOT);
        let first_done = k.mappings[f.idx()].inflight[0].done;
        k.now = first_done / 2;
        k.do_page_cache_ra(f, 256, 256, 0, MemcgId::ROOT);
        let second_done = k.mappings[f.idx()].inflight.last().unwrap().done;
        assert!(second_done > first_done);
        let p = page_at(k, f, 0);
        k.now = first_done;
        assert_eq!(k.folio_test_locked(p), together, "complete_together = {together}: the first window at its own completion");
        k.folio_wait_locked(p);
        assert_eq!(k.now, if together { second_done } else { first_done }, "the reader waits for the batch");
        assert!(!k.folio_test_locked(p));
        assert_invariants(k);
    }
}

/// `folio_wait_locked()` (mm/filemap.c, 6.6) of a page whose read completed: the kernel's
/// `folio_end_read()` unlocked it at the completion, so the reader neither sleeps nor counts a
/// thrashing stall. The engine clears `PG_locked` lazily: once the next window's `read_pages()`
/// dropped the completed read's record, the inlined look-up finds no read covering the page
/// and unlocks it without calling `folio_wait_bit_common()` (issue 17, h-perf17); a page whose
/// read is still recorded and in flight is waited for, a workingset one as a thrashing stall.
#[test]
fn folio_wait_locked_after_the_read_completed_neither_sleeps_nor_stalls() {
    let mut s = sim(r#"
[scenario]
name = "wait"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    k.do_page_cache_ra(f, 0, 32, 0, MemcgId::ROOT);
    let first_done = k.mappings[f.idx()].inflight[0].done;
    // The next window, submitted after the first completed, drops the first's record.
    k.now = first_done + 1;
    k.do_page_cache_ra(f, 32, 32, 0, MemcgId::ROOT);
    let second_done = k.mappings[f.idx()].inflight.last().unwrap().done;
    assert!(k.mappings[f.idx()].inflight.iter().all(|r| r.start >= 32), "the first window's record is dropped");
    let (p, q) = (page_at(k, f, 0), page_at(k, f, 32));
    k.pages[p].flags |= pg::WORKINGSET;
    k.pages[q].flags |= pg::WORKINGSET;
    assert!(k.pages[p].test(pg::LOCKED), "PG_locked is cleared lazily");
    let (now, stalls, memstall) = (k.now, k.stall.ns, k.memstall_ns);
    k.folio_wait_locked(p);
    assert!(!k.pages[p].test(pg::LOCKED));
    assert_eq!((k.now, k.stall.ns, k.memstall_ns, k.memstall_depth), (now, stalls, memstall, 0), "no sleep, no stall");
    // The second window's page is still under read: a thrashing stall until its completion.
    k.folio_wait_locked(q);
    assert_eq!(k.now, second_done);
    assert!(!k.pages[q].test(pg::LOCKED));
    assert_eq!(k.stall.ns[StallKind::Thrashing as usize], second_done - now);
    assert_invariants(k);
}

/// A QEMU throttle group (block/throttle-groups.c, QEMU 7.2 as the lab runs it:
/// `throttling.bps-read` and `throttling.bps-write` on the guest's virtio disk) keeps a bucket
/// and a queue of throttled requests per direction (`throttled_reqs[direction]`): a read the
/// guest submits behind a burst of writes waits for earlier reads only. On one line (a disk
/// without `qemu_throttle`) it waits for the writes' transfer; merges stay within a direction.
#[test]
fn qemu_throttle_serves_reads_apart_from_writes() {
    let one_line = |apart: bool| {
        let mut d = BlockDevice { qemu_throttle: apart, ..disk() };
        // 512 KiB of swap writes, then a 4-page read elsewhere at the same instant.
        d.submit(Dir::Write, 0, 128, 0);
        d.submit(Dir::Read, 10_000, 4, 0)
    };
    let xfer = |pages: u64| pages * 4096 * 1_000_000_000 / (128 << 20);
    assert_eq!(one_line(false), 2 * MS + xfer(128) + xfer(4), "one line: behind the writes");
    // Apart, the read leaves its own (empty) bucket at once: only its seek.
    assert_eq!(one_line(true), MS, "apart: the read's own seek, nothing queued before it");
    // A read contiguous with the last write is not merged into it.
    let mut d = BlockDevice { qemu_throttle: true, ..disk() };
    d.submit(Dir::Write, 0, 8, 0);
    d.submit(Dir::Read, 8, 8, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (2, 0));
}

/// QEMU's throttle (util/throttle.c and block/throttle-groups.c, QEMU 7.2, the lab's
/// `throttling.bps-read` with no burst rate): `throttle_fix_bucket()` gives the bucket a `max`
/// of `avg / 10`, `throttle_compute_wait()` lets a request go while the level is at most `max`
/// and `throttle_account()` adds its bytes after: a guest reads a tenth of a second's budget
/// (and one request more) at once, then at `avg`; a request arriving while others wait queues
/// behind them (`pending_reqs`); a bucket left alone leaks back to empty.
#[test]
fn qemu_throttle_lets_a_tenth_of_a_second_through_then_holds_reads_to_its_rate() {
    use crate::blkdev::LeakyBucket;
    let avg = 100_000_000u64; // 100 MB/s: max = 10 MB
    let mb = 1_000_000u64;
    let mut b = LeakyBucket::default();
    // Eleven 1 MB requests at t = 0: the level reaches 10 MB after ten, the eleventh still goes
    // (level 10 MB <= max), and the twelfth waits for 1 MB to leak (10 ms).
    for i in 0..11 {
        assert_eq!(b.release(mb, 0, avg), 0, "request {i} goes at once");
    }
    assert_eq!(b.level, 11 * mb);
    assert_eq!(b.release(mb, 0, avg), 10 * MS, "over max: waits (level - max) / avg");
    // Queued behind it, the next waits its own 1 MB more: the rate is avg.
    assert_eq!(b.release(mb, 0, avg), 20 * MS);
    // A request arriving after the queue drained and the bucket leaked goes at once.
    assert_eq!(b.release(mb, 2_000 * MS, avg), 2_000 * MS);
    assert_eq!(b.level, mb, "leaked to empty, then this request's bytes");
    // On the device: a 16 MiB read window (32 requests of 512 KiB) on a 500 MB/s QEMU read rule
    // completes at once (16.8 MB < 50 MB), where the whole window at 500 MB/s took 33.6 ms.
    let mut d = BlockDevice { qemu_throttle: true, ..BlockDevice::new("vda", 500_000_000, 400_000_000, 0, 8192) };
    assert_eq!(d.submit(Dir::Read, 0, 4096, 0), 0);
    assert_eq!(d.queue.queued, 32);
    // Three more windows fill the bucket: the last requests of the fourth wait.
    for w in 1..4 {
        d.submit(Dir::Read, w * 4096, 4096, 0);
    }
    let level = 4 * 4096 * 4096 - 512 * 1024; // before the fourth window's last request
    let last = d.qemu_bucket[Dir::Read as usize].queued_until;
    assert_eq!(last, (level - 50_000_000) * 1_000_000_000 / 500_000_000, "held to the rate past max");
    // The writes have a bucket of their own: a write now goes at once.
    assert_eq!(d.submit(Dir::Write, 100_000, 8, 0), 0);
}

/// QEMU's throttle (block/throttle-groups.c `throttle_group_co_io_limits_intercept()`: a request
/// waits only when the bucket is over or requests are pending at its arrival) never holds a
/// request behind one that arrived after it in time. The engine runs a task's quantum whole, so
/// a reader whose clock ran 70 ms ahead (a read() with a long CPU share) submits before one
/// whose clock is behind: before iso23 the later-processed, earlier-arriving request left the
/// throttle and completed no earlier than the other's arrival (`queued_until`, the read line's
/// busy time), a wait of the clocks' skew that is no device's (qemu61-throttle-isolated's
/// readers: 24-100 ms per window against 0.64 ms of transfer).
#[test]
fn qemu_throttle_does_not_hold_a_request_behind_a_later_arrival() {
    use crate::blkdev::LeakyBucket;
    let avg = 100_000_000u64;
    let mb = 1_000_000u64;
    let mut b = LeakyBucket::default();
    assert_eq!(b.release(mb, 70 * MS, avg), 70 * MS, "an idle bucket lets it go at once");
    assert_eq!(b.release(mb, 5 * MS, avg), 5 * MS, "it arrived before the other: not behind it");
    // in order again: a later arrival is behind the requests pending (none wait here)
    assert_eq!(b.release(mb, 71 * MS, avg), 71 * MS);
    // over the bucket's max, an early arrival still waits for the level to leak (the rate holds)
    let mut c = LeakyBucket::default();
    for _ in 0..11 {
        c.release(mb, 50 * MS, avg);
    }
    // Over max at the bucket's time (50 ms, 11 MB), an early arrival leaves when the bucket lets
    // one through, 50 ms + (11 - 10) MB / avg, not 10 ms after its own arrival (which set the
    // leak clock back to 20 ms and leaked 20-50 ms twice: review12 H2).
    assert_eq!(c.release(mb, 10 * MS, avg), 60 * MS, "over max: (level - max) / avg from the bucket's time");
    assert_eq!(c.at, 60 * MS, "the bucket's state does not move back in time");
    // On the device: the read line's completion of the later arrival does not hold the earlier one.
    let mut d = BlockDevice { qemu_throttle: true, ..BlockDevice::new("vda", 200_000_000, 200_000_000, 0, 8192) };
    assert_eq!(d.submit(Dir::Read, 0, 32, 70 * MS), 70 * MS);
    assert_eq!(d.submit(Dir::Read, 100_000, 32, 2 * MS), 2 * MS, "completes at its own release, not at 70 ms");
    assert_eq!(d.submit(Dir::Read, 200_000, 32, 80 * MS), 80 * MS);
}

/// QEMU's throttle bucket (util/throttle.c `throttle_compute_wait()`, `throttle_do_leak()`; QEMU
/// 7.2) lets at most `avg` bytes a second through plus its burst (`max = avg / 10`,
/// `throttle_fix_bucket()`) and one request, whatever order the engine processes the arrivals in
/// (a task's quantum runs whole, so arrivals come out of time order): LeakyBucket::release()
/// never moves its state back in time (review12 H2: with iso23's early arrivals setting the
/// leak clock back, two submitters of 1 MB every 10 ms each let 200 MB through in a second
/// under a 100 MB/s rule). Arrival orders: quanta of 4 with one submitter 20 ms ahead, local
/// shuffles (a deterministic LCG), and a submitter whose clock lags 90 ms behind two others.
#[test]
fn qemu_throttle_bucket_holds_its_rate_under_any_arrival_order() {
    use crate::blkdev::LeakyBucket;
    let avg = 100_000_000u64;
    let mb = 1_000_000u64;
    let sec = 1_000_000_000u64;
    let most_in_a_second = |order: &[u64]| -> (u64, u64) {
        let mut b = LeakyBucket::default();
        let mut rel: Vec<u64> = Vec::with_capacity(order.len());
        for &a in order {
            let t = b.release(mb, a, avg);
            assert!(t >= a, "released before its arrival ({t} < {a})");
            rel.push(t);
        }
        rel.sort_unstable();
        let (mut j, mut most) = (0usize, 0u64);
        for i in 0..rel.len() {
            while rel[i] - rel[j] >= sec {
                j += 1;
            }
            most = most.max((i - j + 1) as u64 * mb);
        }
        (most, *rel.last().unwrap())
    };
    let bound = avg + avg / 10 + mb;
    // Two submitters, 1 MB every 10 ms each (200 MB/s offered), 2 s of arrivals.
    let a: Vec<u64> = (0..200).map(|i| i * 10 * MS).collect();
    let b: Vec<u64> = (0..200).map(|i| i * 10 * MS + 5 * MS).collect();
    for lead in [0, 20 * MS] {
        let mut order = Vec::new();
        for k in (0..200).step_by(4) {
            order.extend(a[k..k + 4].iter().map(|x| x + lead));
            order.extend(&b[k..k + 4]);
        }
        let (most, _) = most_in_a_second(&order);
        assert!(most <= bound, "quanta of 4, lead {lead}: {most} bytes in a second > {bound}");
        assert!(most >= avg, "the rule's rate is reached ({most})");
    }
    let mut seed = 12345u64;
    for seg in [3usize, 8, 16] {
        let mut order: Vec<u64> = a.iter().chain(&b).copied().collect();
        order.sort_unstable();
        for chunk in order.chunks_mut(seg) {
            for i in (1..chunk.len()).rev() {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                chunk.swap(i, (seed >> 33) as usize % (i + 1));
            }
        }
        let (most, _) = most_in_a_second(&order);
        assert!(most <= bound, "shuffled in runs of {seg}: {most} bytes in a second > {bound}");
    }
    // Two submitters ahead (1 MB every 20 ms each), a third 90 ms behind them in the engine's order.
    let mut order = Vec::new();
    for i in 0..150u64 {
        order.push(i * 20 * MS + 90 * MS);
        order.push(i * 20 * MS + 100 * MS);
        order.push(i * 10 * MS);
    }
    let (most, _) = most_in_a_second(&order);
    assert!(most <= bound, "a lagging submitter: {most} bytes in a second > {bound}");
}

/// `[devices.X] qemu_throttle` (the lab's QEMU guest disk) is refused beside blk-throttle rules
/// or a queue of the device's own, naming the key and the fix.
#[test]
fn qemu_throttle_key_is_checked() {
    let errors = device_errors;
    assert_eq!(errors("qemu_throttle = true"), "");
    let e = errors("qemu_throttle = true\nblk_throttle = true");
    assert!(e.contains("q.toml:7:") && e.contains("qemu_throttle = true with blk_throttle = true"), "{e}");
    let e = errors("qemu_throttle = true\nqueue_depth = 128");
    assert!(e.contains("qemu_throttle = true with queue_depth"), "{e}");
    let e = errors("qemu_throttle = 1");
    assert!(e.contains("qemu_throttle"), "{e}");
}


/// The flusher's async write finding its class full (4.3's `get_request()`:
/// `rl->count[BLK_RW_ASYNC] >= nr_requests` -> `io_schedule()` until `__freed_request()`;
/// 6.1's `blk_mq_get_tag()`: past mq-deadline's async depth, until a tag frees) does not
/// sleep in the engine: the flusher stops (`FlusherWork`) until the first completion that
/// frees a request, its write gets the request then, and it is no stall of a task. A write
/// after the stop asks from the stop on. Every request is freed once.
#[test]
fn the_flusher_stops_for_a_request_of_its_class() {
    for p in ["linux-3.13", "linux-4.3", "linux-6.1"] {
        let mut k = kernel_with_disk(p);
        for i in 0..BLKDEV_MAX_RQ {
            k.devices[0].submit(Dir::Write, i * 1000, 1, 0);
        }
        let wake = k.devices[0].get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, 0, k.profile.blk_queue).expect("full");
        k.flusher.running = true;
        let done = k.wbt_submit_write(0, 999_999, 1);
        assert_eq!(k.flusher.stop, Some(wake), "{p}: the flusher stops until a request is freed");
        assert!(done > wake, "{p}: its request starts at the wake-up");
        assert_eq!(k.now, 0, "{p}: the flusher does not sleep");
        assert_eq!(k.stall.take()[StallKind::Congestion as usize], 0, "{p}");
        // The next write of its run waits from the stop: for the completion after it.
        k.wbt_submit_write(0, 2_000_000, 1);
        assert!(k.flusher.stop.unwrap() > wake, "{p}: the next write waits from the stop on");
        let d = &mut k.devices[0];
        assert_eq!(d.queue.queued, BLKDEV_MAX_RQ + 2);
        d.queue.retire(u64::MAX);
        assert_eq!((d.queue.completed, d.queue.held()), (BLKDEV_MAX_RQ + 2, 0), "{p}: each request freed once");
        assert!(d.queue.ordered());
        // Not the flusher: no stop here (a task's wait is `blk_get_request()`'s).
        k.flusher = Default::default();
        for i in 0..BLKDEV_MAX_RQ {
            k.devices[0].submit(Dir::Write, 3_000_000 + i * 1000, 1, 0);
        }
        k.wbt_submit_write(0, 9_000_000, 1);
        assert_eq!(k.flusher.stop, None, "{p}");
    }
}

/// The loop driver's worker (drivers/block/loop.c, 6.18: `loop_queue_rq()` ->
/// `loop_queue_work()` -> `queue_work()` on the device's `loopN` workqueue, a kworker running
/// `loop_process_work()`): a request that finds the work idle waits for the woken kworker to run
/// (`[devices.X] worker_wakeup_latency`), one queued while that run is pending goes with it, and
/// without samples nothing waits. On the throttled loop device (released by blk-throttle) and on
/// one with a queue of its own.
#[test]
fn loop_queue_work_wakes_an_idle_worker_and_a_pending_run_takes_later_requests_6_18() {
    let mb = 1u64 << 20;
    let us = 1_000;
    let one = |d: BlockDevice| d.with_loop_worker(vec![500 * us], 0, 0);
    // Throttled, the reads within the first slice: released at once.
    let mut off = BlockDevice::throttled("loop0", 200 * mb, 150 * mb, 0, 128);
    let mut on = one(BlockDevice::throttled("loop0", 200 * mb, 150 * mb, 0, 128));
    assert_eq!(off.submit(Dir::Read, 0, 32, 0), 0, "no worker: the disk below serves it at its release");
    assert_eq!(on.submit(Dir::Read, 0, 32, 0), 500 * us, "the idle work: a kworker woken, 500 us to run");
    // 100 us later, while that run is pending: the command joins its list (no second wake-up).
    assert_eq!(on.submit(Dir::Read, 1_000, 32, 100 * us), 500 * us);
    // After the run: idle again, a new wake-up.
    assert_eq!(on.submit(Dir::Read, 2_000, 32, 600 * us), 1_100 * us);
    // A write on the same worker (the root blkcg's), in the pending run's window.
    assert_eq!(on.submit(Dir::Write, 3_000, 32, 700 * us), 1_100 * us);
    // On a device with a queue of its own: the dispatch to it waits for the run.
    let hw = || crate::blkdev::HwQueue::new(128, 50 * us, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0);
    let mut q0 = BlockDevice::throttled("loop0", 200 * mb, 150 * mb, 0, 128).with_hw_queue(hw());
    let mut q1 = one(BlockDevice::throttled("loop0", 200 * mb, 150 * mb, 0, 128).with_hw_queue(hw()));
    let (a, b) = (q0.submit(Dir::Read, 0, 32, 0), q1.submit(Dir::Read, 0, 32, 0));
    assert_eq!(b, a + 500 * us, "{a} {b}");
    // Samples are drawn in turn from a stream seeded per boot: the same boot draws the same.
    let draws = |seed: u64| {
        let mut w = crate::blkdev::LoopWorker::new(vec![10, 20, 30, 40, 50], seed, 0);
        (0..20u64).map(|i| w.loop_queue_work(i * 1_000) - i * 1_000).collect::<Vec<_>>()
    };
    assert_eq!(draws(1), draws(1));
    assert_ne!(draws(1), draws(2));
    assert!(draws(1).iter().all(|d| [10, 20, 30, 40, 50].contains(d)));
}

/// A bio back-merged into a request blk-throttle still holds goes with that request
/// (drivers/block/loop.c 6.18: `loop_queue_work()` is called from `loop_queue_rq()`, once per
/// request, and a merged bio makes no request of its own; block/blk-merge.c
/// `blk_attempt_plug_merge()`/`elv_merge()` ELEVATOR_BACK_MERGE): no wake-up of the worker
/// is drawn for it and the pending run stays, and the merged request completes as on a device
/// without a worker once its own run is over (`BlockDevice::submit_own`).
#[test]
fn loop_worker_is_not_woken_for_a_bio_merged_into_a_throttled_request_6_18() {
    let mb = 1u64 << 20;
    let us = 1_000;
    // 1 MiB/s of reads: the first slice's budget is about 100 KiB, later bios are held.
    let mut off = BlockDevice::throttled("loop0", mb, mb, 0, 128);
    let mut on = BlockDevice::throttled("loop0", mb, mb, 0, 128).with_loop_worker(vec![500 * us], 0, 0);
    for d in [&mut off, &mut on] {
        d.submit(Dir::Read, 0, 25, 0);
    }
    let (b_off, b_on) = (off.submit(Dir::Read, 1_000, 32, 0), on.submit(Dir::Read, 1_000, 32, 0));
    assert!(b_off > 0, "the second bio is held by the throttle: {b_off}");
    assert_eq!(b_on, b_off + 500 * us, "its request waits for a woken worker");
    let (run, rand) = (on.worker.run, on.worker.rand);
    // Contiguous, submitted while bio 2 is still in the throttle, released well after bio 2's
    // run: it merges into bio 2's request.
    let (c_off, c_on) = (off.submit(Dir::Read, 1_032, 32, us), on.submit(Dir::Read, 1_032, 32, us));
    assert_eq!((off.queue.merged, on.queue.merged), (1, 1));
    assert!(c_off > b_on, "released after bio 2's run: {c_off} {b_on}");
    assert_eq!((on.worker.run, on.worker.rand), (run, rand), "no wake-up drawn for a merged bio");
    assert_eq!(c_on, c_off, "the merged request completes at bio 3's release, not a wake-up later");
}

/// On a loop device with a queue of its own (`BlockDevice::submit_hw`), a request the loop
/// worker holds was taken by `loop_queue_rq()` (drivers/block/loop.c 6.18) at its release:
/// it is the driver's, so a contiguous bio submitted while it waits for the worker's run does
/// not merge into it (block/blk-mq.c `blk_mq_submit_bio()` merges only into requests still
/// in the plug or the scheduler). Without a worker, a request still waiting for a driver tag
/// has not started and the same bio merges.
#[test]
fn loop_worker_held_request_is_not_mergeable_6_18() {
    let us = 1_000;
    let hw = |depth| crate::blkdev::HwQueue::new(depth, 50 * us, [1 << 30, 1 << 30], [4 << 30, 4 << 30], 0);
    // No worker, one driver tag: bio 2 waits for bio 1's tag, not started at 10 us.
    let mut off = BlockDevice::throttled("loop0", 1 << 30, 1 << 30, 0, 128).with_hw_queue(hw(1));
    off.submit(Dir::Read, 0, 32, 0);
    off.submit(Dir::Read, 1_000, 32, 0);
    off.submit(Dir::Read, 1_032, 32, 10 * us);
    assert_eq!(off.queue.merged, 1, "a request waiting for a tag has not started: the bio merges");
    // With a worker: bio 2's request is the worker's from its release (0) until the run (500 us).
    let mut on = BlockDevice::throttled("loop0", 1 << 30, 1 << 30, 0, 128).with_hw_queue(hw(1)).with_loop_worker(vec![500 * us], 0, 0);
    on.submit(Dir::Read, 0, 32, 0);
    let b = on.submit(Dir::Read, 1_000, 32, 0);
    let c = on.submit(Dir::Read, 1_032, 32, 10 * us);
    assert_eq!(on.queue.merged, 0, "a request the worker holds is not mergeable");
    assert_eq!(on.queue.queued, 3, "bio 3 is a request of its own");
    assert!(c > b, "behind bio 2 on the device: {b} {c}");
}

/// `[devices.X] worker_wakeup_latency`: samples on the host runner's loop device only.
#[test]
fn worker_wakeup_latency_key_is_checked() {
    let errors = device_errors;
    assert_eq!(errors("blk_throttle = true\nworker_wakeup_latency = [\"300us\", \"2ms\"]"), "");
    let e = errors("worker_wakeup_latency = [\"300us\"]");
    assert!(e.contains("q.toml:7:") && e.contains("devices.sda.worker_wakeup_latency on a device that is not the host runner's loop device"), "{e}");
    let e = errors("blk_throttle = true\nworker_wakeup_latency = []");
    assert!(e.contains("devices.sda.worker_wakeup_latency is empty") && e.contains("real.machine.kthread_waits.unbound_kworker"), "{e}");
    let e = errors("blk_throttle = true\nworker_wakeup_latency = \"1ms\"");
    assert!(e.contains("devices.sda.worker_wakeup_latency must be an array of durations"), "{e}");
    let e = errors("blk_throttle = true\nworker_wakeup_latency = [\"11s\"]");
    assert!(e.contains("a devices.sda.worker_wakeup_latency sample is longer than 10 s"), "{e}");
}

/// `WB_SYNC_ALL` writeback is `REQ_SYNC` in every era (4.3: `WRITE_SYNC` in fs/mpage.c
/// `__mpage_writepage()`, fs/buffer.c `__block_write_full_page()`, ext4's `ext4_io_submit()`;
/// 4.10+ `wbc_to_write_flags()`), and on the legacy path a sync request: 4.3's
/// `get_request()` takes `is_sync = rw_is_sync(rw_flags)`, so a task's fsync writes are counted
/// in `rl->count[BLK_RW_SYNC]` with the reads, and the fsyncing task sleeps on
/// `rl->wait[BLK_RW_SYNC]` when 128 of them are allocated (a `congestion` stall), while the
/// async list is left to the flusher and swap-outs. On blk-mq (6.1) the same writes are
/// async-class requests (`dd_limit_depth()` throttles every request but a sync read;
/// mq-deadline's FIFOs are per direction): `BlkQueue::write_class()`.
#[test]
fn fsync_writes_are_sync_requests_on_the_legacy_path() {
    // 4.3: the fsync's writes (the context's op is WbtOp::Sync, as vfs_fsync() sets it).
    let mut k = kernel_with_disk("linux-4.3");
    k.flusher.op = crate::blkdev::WbtOp::Sync;
    let first = k.wbt_submit_write(0, 0, 1);
    for i in 1..BLKDEV_MAX_RQ {
        k.wbt_submit_write(0, i * 1000, 1);
    }
    let q = &k.devices[0].queue;
    assert_eq!((q.pushed[RqClass::Sync as usize], q.pushed[RqClass::Async as usize]), (BLKDEV_MAX_RQ, 0), "rl->count[BLK_RW_SYNC]");
    assert_eq!(k.now, 0, "128 sync requests: none waited");
    assert_eq!(k.devices[0].get_request_wait(Dir::Write, RqClass::Async, 999_999, 1, 0, BlkQueue::Legacy), None, "the async list is free for the flusher");
    assert!(k.devices[0].get_request_wait(Dir::Read, RqClass::Sync, 999_999, 1, 0, BlkQueue::Legacy).is_some(), "a read waits behind them");
    // The 129th: the task sleeps until the first sync request is freed.
    k.wbt_submit_write(0, 999_999, 1);
    assert_eq!(k.now, first, "woken by __freed_request() of the first");
    assert_eq!(k.stall.take()[StallKind::Congestion as usize], first);
    assert_eq!(k.devices[0].queue.pushed[RqClass::Sync as usize], BLKDEV_MAX_RQ + 1);
    // The flusher's own writeback (WB_SYNC_NONE) stays async.
    let mut k = kernel_with_disk("linux-4.3");
    k.flusher.running = true;
    k.wbt_submit_write(0, 0, 1);
    assert_eq!(k.devices[0].queue.pushed, [0, 1]);
    // 6.1: a write is an async-class request whatever its REQ_SYNC.
    let mut k = kernel_with_disk("linux-6.1");
    k.flusher.op = crate::blkdev::WbtOp::Sync;
    for i in 0..BLKDEV_MAX_RQ {
        k.wbt_submit_write(0, i * 1000, 1);
    }
    assert_eq!(k.devices[0].queue.pushed, [0, BLKDEV_MAX_RQ]);
    assert_eq!(k.now, 0);
    assert_eq!(BlkQueue::Legacy.write_class(true), RqClass::Sync);
    assert_eq!(BlkQueue::Legacy.write_class(false), RqClass::Async);
    assert_eq!(BlkQueue::Mq.write_class(true), RqClass::Async);
    assert_eq!(BlkQueue::MqAsyncDepth.write_class(true), RqClass::Async);
}

/// `blk_rq_merge_ok()` (block/blk-merge.c, 4.3 and 6.1): "different data direction ... don't
/// merge". With `REQ_SYNC` writes in the sync class (the legacy path), a read that starts where
/// a sync write not started yet ends is a request of its own.
#[test]
fn a_read_does_not_back_merge_into_a_sync_write() {
    let mut d = disk();
    // The device is busy: the requests below have not started when the next comes.
    d.submit(Dir::Write, 5000, 100, 0);
    d.submit_class(Dir::Write, RqClass::Sync, 0, 10, 0);
    d.submit_class(Dir::Read, RqClass::Sync, 10, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (3, 0));
    // The same direction merges.
    d.submit_class(Dir::Read, RqClass::Sync, 20, 10, 0);
    assert_eq!((d.queue.queued, d.queue.merged), (3, 1));
    assert_eq!(d.get_request_wait(Dir::Write, RqClass::Sync, 30, 1, 0, BlkQueue::Legacy), None);
}

/// A request's segments cost the device's shared time besides its bytes (`HwQueue::segment_cost`):
/// the loop device with direct I/O hands its request's bvecs to the backing file as they are
/// (drivers/block/loop.c 6.18 `lo_rw_aio()`: `iov_iter_bvec()` over `rq_for_each_bvec()`,
/// `IOCB_DIRECT`; fs/iomap/direct-io.c `bio_iov_iter_get_pages()` -> `bio_iov_bvec_set()`),
/// so the disk beneath gets one scatter-gather entry a segment (virtio_blk.c `virtblk_map_data()`
/// -> `blk_rq_map_sg()`). Traced on the lab host (lab/measurements/segment_cost_buffered.py,
/// 2026-11-30, 6.18.44-fc-v782): 256 KiB loop requests alone in flight took 79 us in 0-3
/// segments and 162-165 us in 60-67. Here: 256 KiB alone in 64 segments at 1 us each takes
/// 64 us more than in one, shared among requests in flight like `request_cost`.
#[test]
fn a_request_pays_the_device_per_segment_lo_rw_aio_6_18() {
    use crate::blkdev::HwQueue;
    let dev = |cost| BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128).with_hw_queue(HwQueue::new(128, 0, [4 << 30, 4 << 30], [4 << 30, 4 << 30], 0).with_segments(cost, 0));
    let (mut one, mut many, mut free) = (dev(1000), dev(1000), dev(0));
    let t1 = one.submit_read_segs(0, 64, 1, 0);
    let t64 = many.submit_read_segs(0, 64, 64, 0);
    let t0 = free.submit_read_segs(0, 64, 64, 0);
    assert_eq!(t1, t0 + 1000, "one segment: its 1 us");
    assert_eq!(t64, t0 + 64_000, "64 segments: 64 us more than none");
    // Requests in flight together share it: the second request's segments come after the first's.
    let t64b = many.submit_read_segs(1000, 64, 64, 0);
    assert_eq!(t64b, 2 * t64, "two requests of 64 segments in flight: twice one's shared time");
    // submit() takes one segment a page (a caller that does not count them).
    let mut d = dev(1000);
    assert_eq!(d.submit(Dir::Read, 0, 64, 0), t64);
}

/// The host runner's loop device hands a batch of requests to the virtio disk beneath
/// (drivers/block/loop.c 6.18 `lo_rw_aio()` -> the backing file's direct I/O ->
/// `virtblk_map_data()`), whose backend serves the batch and ends it at once; on an idle host
/// its batches of two readahead windows took 2.32-2.69 GB/s from one batch to the next
/// (lab/measurements/loop_device_table.py). `HwQueue::read_bw_batches`: a read request that
/// finds the shared line idle draws the batch's bandwidth; requests that join it move at the
/// same; draws are seeded per boot and device; writes and a queue without samples keep `bw`.
#[test]
fn a_read_batch_shares_one_drawn_bandwidth_lo_rw_aio_6_18() {
    use crate::blkdev::HwQueue;
    const MB: u64 = 1 << 20;
    let q = |seed| HwQueue::new(128, 0, [u64::MAX / 4, u64::MAX / 4], [1_000_000_000, 1_000_000_000], 0).with_read_bw_batches(vec![1_000_000_000, 2_000_000_000], seed, 0);
    // ten batches of two 1 MiB reads issued together, 100 ms apart (the line idle between them)
    let batches = |seed| {
        let mut h = q(seed);
        (0..10u64)
            .map(|i| {
                let at = i * 100_000_000;
                let (_, a) = h.dispatch(0, Dir::Read, MB, 1, at, 0);
                let (_, b) = h.dispatch(0, Dir::Read, MB, 1, at, 0);
                assert_eq!(b - at, 2 * (a - at), "the batch's second request moves at the first's bandwidth");
                a - at
            })
            .collect::<Vec<_>>()
    };
    let (at1g, at2g) = (MB * 1_000_000_000 / 1_000_000_000, MB * 1_000_000_000 / 2_000_000_000);
    let s0 = batches(0);
    assert!(s0.iter().all(|&t| t == at1g || t == at2g), "{s0:?}");
    assert!(s0.contains(&at1g) && s0.contains(&at2g), "both samples drawn over ten batches: {s0:?}");
    assert_eq!(s0, batches(0), "the same boot draws the same");
    assert!((1..6).any(|seed| batches(seed) != s0), "another boot draws otherwise");
    // writes keep the queue's bw; a queue without samples keeps bw[0] for every batch
    let mut h = q(0);
    let (_, w) = h.dispatch(0, Dir::Write, MB, 1, 0, 0);
    assert_eq!(w, at1g);
    let mut plain = HwQueue::new(128, 0, [u64::MAX / 4, u64::MAX / 4], [1_000_000_000, 1_000_000_000], 0);
    assert!((0..10u64).all(|i| plain.dispatch(0, Dir::Read, MB, 1, i * 100_000_000, 0).1 - i * 100_000_000 == at1g));
}

/// `[devices.X] queue_read_bw_batches` is checked: an array of 1 to 10,000 bandwidths above 0.
#[test]
fn queue_read_bw_batches_is_checked() {
    let errors = device_errors;
    assert_eq!(errors("queue_depth = 128\nqueue_read_bw_batches = [2520000000, \"2.4G\"]"), "");
    let e = errors("queue_depth = 128\nqueue_read_bw_batches = []");
    assert!(e.contains("devices.sda.queue_read_bw_batches is empty"), "{e}");
    let e = errors("queue_depth = 128\nqueue_read_bw_batches = [0]");
    assert!(e.contains("a devices.sda.queue_read_bw_batches sample") && e.contains("above zero"), "{e}");
    let e = errors("queue_depth = 128\nqueue_read_bw_batches = \"2G\"");
    assert!(e.contains("must be an array of bandwidths"), "{e}");
    let e = errors("queue_read_bw_batches = [2520000000]");
    assert!(e.contains("is given without devices.sda.queue_depth"), "{e}");
}

/// `queue/max_segments` cuts a bio as `max_sectors_kb` does (block/blk-merge.c 6.18
/// `bio_split_rw_at()`: `nsegs < lim->max_segments` for each bvec): the loop device's 128
/// (`BLK_MAX_SEGMENTS`, which loop.c does not change) makes an order-0 readahead bio of 256
/// single-page segments two requests of 512 KiB, as rawin21's trace showed ("bios of 256 single
/// pages are split at the loop device's 128 segments"), where a large-folio bio of the same
/// pages in 4 segments is one request of 1 MiB under its 1280 KiB `max_sectors_kb`.
#[test]
fn max_segments_cuts_a_bio_of_single_pages_bio_split_rw_at_6_18() {
    use crate::blkdev::HwQueue;
    let dev = || BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128).with_hw_queue(HwQueue::new(128, 0, [4 << 30, 4 << 30], [4 << 30, 4 << 30], 0).with_segments(0, 128).with_max_sectors_kb(1280)).with_max_sectors_kb(1280);
    let mut d = dev();
    d.submit_read_segs(0, 256, 256, 0);
    assert_eq!(d.queue.queued, 2, "256 single-page segments: two requests of 128");
    let mut d = dev();
    d.submit_read_segs(0, 256, 4, 0);
    assert_eq!(d.queue.queued, 1, "4 segments of 64 pages: one request");
    // Without a limit of its own (0): max_sectors_kb alone.
    let mut d = BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128).with_hw_queue(HwQueue::new(128, 0, [4 << 30, 4 << 30], [4 << 30, 4 << 30], 0).with_segments(0, 0).with_max_sectors_kb(1280)).with_max_sectors_kb(1280);
    d.submit_read_segs(0, 256, 256, 0);
    assert_eq!(d.queue.queued, 1);
}

/// `[devices.X] segment_cost` and `max_segments` are range-checked.
#[test]
fn segment_keys_are_checked() {
    let errors = device_errors;
    assert_eq!(errors("queue_depth = 128\nsegment_cost = \"1300ns\"\nmax_segments = 128"), "");
    let e = errors("queue_depth = 128\nsegment_cost = \"2ms\"");
    assert!(e.contains("devices.sda.segment_cost is 2000000 ns: more than 1 ms"), "{e}");
    let e = errors("queue_depth = 128\nmax_segments = 0");
    assert!(e.contains("devices.sda.max_segments is 0") && e.contains("queue/max_segments"), "{e}");
}

/// A disk serving one request at a time pays `segment_cost` per segment in its transfer
/// (`BlockDevice::segment_cost`): the lab host's vda (virtio-blk under Firecracker, 6.18.44) reads
/// 8 MiB into 4 KiB pages in 3.34-3.57 ms and into 2 MiB pages in 1.16-1.19 ms
/// (lab/measurements/segment_cost.py): its backend serves `virtblk_map_data()`'s descriptors one by
/// one. A 64-page read in 64 segments takes 63 segments' time more than in one, on the device's
/// line and on mq-deadline's sync placement alike.
#[test]
fn a_disk_without_a_queue_pays_per_segment_virtblk_map_data_6_18() {
    let dev = |cost| BlockDevice::new("vda", 1 << 30, 1 << 30, 0, 128).with_segment_cost(cost);
    let (mut one, mut many) = (dev(1100), dev(1100));
    let t1 = one.submit_read_segs(0, 64, 1, 0);
    let t64 = many.submit_read_segs(0, 64, 64, 0);
    assert_eq!(t64 - t1, 63 * 1100);
    let mut free = dev(0);
    assert_eq!(t1, free.submit_read_segs(0, 64, 64, 0) + 1100, "no cost: the bytes alone");
    // The next request queues behind the first one's segments.
    assert_eq!(many.submit_read_segs(64, 64, 64, 0), 2 * t64);
}

/// `segment_cost` is a device key with or without a queue (range-checked), `max_segments` needs
/// the queue.
#[test]
fn segment_cost_is_given_without_a_queue_too() {
    let errors = device_errors;
    assert_eq!(errors("segment_cost = \"1100ns\""), "");
    let e = errors("max_segments = 128");
    assert!(e.contains("devices.sda.max_segments is given without devices.sda.queue_depth"), "{e}");
}

/// A read submitted while the flusher's writes are queued on the unthrottled loop device (loop23, issue 23)
/// is served behind them: 6.18's `loop_queue_rq()` -> `loop_queue_work()` appends every request whose first
/// bio's blkcg is the root (`queue_on_root_worker()`: on the cgroup v1 host the reader, the writer and the
/// flusher are all in the blkio root) to the one `lo->rootcg_cmd_list`, which `loop_process_work()` hands to
/// the backing file in order (`lo_rw_aio()`), and the host's vda completed its requests in issue order:
/// lab/measurements/loop_rw_table.py over three rounds of loop_rw_trace.py (2026-11-30 18:25-18:33, 6.18.44,
/// loaded, load 5.5-11.4), 0 of 4,372 pairs of a write and a later-issued read (and 0 of the 42,410 others)
/// completed out of order on vda. So the engine's one line (no blk-throttle: `HwQueue::lines[0]` for both
/// directions) takes the read's bytes after the writes' and completes it no earlier than the last write.
#[test]
fn a_read_behind_the_flusher_s_writes_is_served_after_them_loop_process_work_6_18() {
    use crate::blkdev::HwQueue;
    let (rbw, wbw) = (2_520_000_000u64, 3_760_000_000u64);
    let mut d = BlockDevice::new("loop0", rbw, wbw, 0, 128)
        .with_hw_queue(HwQueue::new(128, 50_000, [7_080_000_000, 4_630_000_000], [rbw, wbw], 13_000).with_max_sectors_kb(1280));
    let rq = 320u64; // 1280 KiB, max_sectors_kb
    let mut last_write = 0;
    for i in 0..8 {
        last_write = last_write.max(d.submit(Dir::Write, 1_000_000 + i * rq, rq, 0));
    }
    let read = d.submit(Dir::Read, 0, rq, 1_000);
    assert!(read >= last_write, "the read completes behind the writes queued before it: {read} < {last_write}");
    // its bytes after the writes' on the one shared line: 8 writes and the read, 13 us a request besides
    let bytes = rq * 4096;
    let line = 9 * 13_000 + 8 * (bytes as u128 * 1_000_000_000 / wbw as u128) as u64 + (bytes as u128 * 1_000_000_000 / rbw as u128) as u64;
    assert!(read.abs_diff(line) <= 9, "{read} vs {line}");
    // alone, the same read takes its latency and its own rate
    let mut alone = BlockDevice::new("loop0", rbw, wbw, 0, 128)
        .with_hw_queue(HwQueue::new(128, 50_000, [7_080_000_000, 4_630_000_000], [rbw, wbw], 13_000).with_max_sectors_kb(1280));
    assert!(alone.submit(Dir::Read, 0, rq, 1_000) < read / 4);
}

/// ct57: a virtio ring without indirect descriptors holds a request's segments + 2 descriptors
/// until `virtblk_done()` takes it at the round's interrupt (drivers/block/virtio_blk.c 6.18
/// `virtblk_add_req()`, `virtio_queue_rq()`'s -ENOSPC -> `BLK_STS_DEV_RESOURCE`,
/// `blk_mq_start_stopped_hw_queues()` in `virtblk_done()`). On the lab's 256-descriptor vda two
/// 128-segment requests (the loop device's order-0 requests) do not fit together: the second is
/// dispatched when the first round ends, and opens a batch of its own on a `complete_together`
/// device; two 20-segment requests fit and complete together; without a ring every request in
/// flight joins the batch.
#[test]
fn a_request_whose_descriptors_do_not_fit_waits_for_the_round_virtio_queue_rq_6_18() {
    use crate::blkdev::HwQueue;
    let dev = |ring| {
        BlockDevice::new("loop0", 4 << 30, 4 << 30, 0, 128)
            .with_hw_queue(HwQueue::new(128, 0, [1 << 30, 1 << 30], [1 << 30, 1 << 30], 0).with_segments(0, 128).with_ring(ring))
            .with_complete_together()
    };
    // 512 KiB in 128 segments (130 descriptors) each, the second issued 0.1 ms after the first
    let mut ringed = dev(256);
    let a = ringed.submit_read_segs(0, 128, 128, 0);
    let ba = ringed.read_batch();
    let b = ringed.submit_read_segs(1000, 128, 128, 100_000);
    let bb = ringed.read_batch();
    assert!(a > 100_000, "the first is still in the ring at the second's dispatch");
    assert_eq!(bb, ba + 1, "the second goes in the next round: a batch of its own");
    assert_eq!(ringed.read_batch_done(ba, a), a, "the first completes at its own round's end");
    assert!(b >= a + (128 * 4096 * 1_000_000_000u64) / (1 << 30), "the second starts at the first round's end");
    // without a ring (the tags only) it joins the first's batch, which then ends with it
    let mut open = dev(0);
    let a0 = open.submit_read_segs(0, 128, 128, 0);
    let b0 = open.submit_read_segs(1000, 128, 128, 100_000);
    assert_eq!(open.read_batch(), 1);
    assert_eq!(open.read_batch_done(1, a0), b0, "one batch: the first completes with the second");
    // 20-segment requests (large folios) fit together: one round
    let mut few = dev(256);
    let a1 = few.submit_read_segs(0, 128, 20, 0);
    let b1 = few.submit_read_segs(1000, 128, 20, 100_000);
    assert_eq!(few.read_batch(), 1);
    assert_eq!(few.read_batch_done(1, a1), b1);
    // once the ring's requests are done, the next finds it empty whatever their descriptors
    let mut later = dev(256);
    let a2 = later.submit_read_segs(0, 128, 128, 0);
    let b2 = later.submit_read_segs(1000, 128, 128, a2 + 1);
    assert_eq!(later.read_batch(), 2);
    assert_eq!(b2 - (a2 + 1), a2, "alone in an empty ring: the first's own time");
}

/// The lab's QEMU guest disk as a swap device meets it (lab/validation/qlat62): QEMU serves a
/// write request that left its throttle in `write_latency + bytes / write_service_bw`
/// ([`BlockDevice::qemu_write_service`]), reads as before (at once); without the keys a write
/// is done when its bucket lets it go. The guest's requests complete in order.
#[test]
fn qemu_throttle_serves_a_write_in_its_measured_time() {
    let served = |latency: u64, bw: u64| {
        let d = BlockDevice { qemu_throttle: true, write_latency: latency, write_service_bw: bw, ..BlockDevice::new("vda", 500_000_000, 400_000_000, 0, 128) };
        // the guest's queue/max_sectors_kb (real.machine.queue): a 254-page request is one
        let mut d = d.with_max_sectors_kb(1280);
        let w = d.submit(Dir::Write, 0, 254, 0);
        let small = d.submit(Dir::Write, 1000, 8, 0);
        let r = d.submit(Dir::Read, 5000, 4, 0);
        (w, small, r)
    };
    assert_eq!(served(0, 0), (0, 0, 0), "no keys: done as the bucket lets each go");
    let xfer = |pages: u64| pages * 4096 * 1_000_000_000 / 1_499_000_000;
    let (w, small, r) = served(366_000, 1_499_000_000);
    assert_eq!(w, 366_000 + xfer(254), "254 pages: the latency and the bytes at the service rate");
    assert_eq!(small, w, "a later small write completes after the one before it (in order)");
    assert_eq!(r, 0, "reads are not held by QEMU's write service");
    // 2032 sectors: 1060 us, the traced median (lab/validation/qlat62/analysis.txt).
    assert!((w as i64 - 1_060_000).abs() < 5_000, "{w}");
}

/// `blk_attempt_plug_merge()` -> `ll_back_merge_fn()`: reclaim's swap writes are one-page bios
/// of pages not physically contiguous, a segment each, so a plugged request holds
/// `queue/max_segments` of them: 128 (`BLK_MAX_SEGMENTS`, the host's loop device) unless the
/// device gives its own (the lab's QEMU virtio disk: `seg_max` 254, swap write requests of
/// 2032 sectors in the guest's trace), and never more than `max_sectors_kb`.
#[test]
fn a_plugged_swap_request_holds_the_devices_max_segments_pages() {
    let rq_pages = |keys: &str| -> Vec<u64> {
        let mut s = sim(&format!(
            "[scenario]\nname = \"segs\"\n[machine]\nram = \"1G\"\nswap = \"256M\"\n[kernel]\nprofile = \"linux-6.1\"\n[devices.sda]\nread_bw = \"500M\"\nwrite_bw = \"400M\"\nqemu_throttle = true\n{keys}[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
        ));
        let k = &mut s.kernel;
        assert!(k.blk_start_plug());
        let start = k.swap.as_ref().unwrap().base;
        let rq_max = k.devices[0].plug_rq_pages();
        for i in 0..600 {
            if k.swap_plug.flush_before(start + i, 1, true, rq_max, crate::blkdev::PlugPeek::NoSizeTest, usize::MAX) {
                break;
            }
            k.swap_plug.add(start + i, 1, true, rq_max);
        }
        k.swap_plug.rqs.iter().map(|r| r.1).collect()
    };
    assert_eq!(rq_pages(""), [128, 128, 128, 128, 88], "BLK_MAX_SEGMENTS");
    assert_eq!(rq_pages("max_segments = 254\n"), [128, 128, 128, 128, 88], "within max_sectors_kb's default 512");
    assert_eq!(rq_pages("max_segments = 254\nmax_sectors_kb = 1280\n"), [254, 254, 92], "the QEMU disk's seg_max");
}

/// `max_segments` is taken on a QEMU guest's disk without a queue of its own, and
/// `write_latency`/`write_service_bw` on that disk only.
#[test]
fn qemu_disk_keys_are_checked() {
    assert_eq!(device_errors("qemu_throttle = true\nmax_segments = 254\nwrite_latency = \"366us\"\nwrite_service_bw = \"1499M\""), "");
    let e = device_errors("max_segments = 254");
    assert!(e.contains("devices.sda.max_segments is given without devices.sda.queue_depth"), "{e}");
    let e = device_errors("qemu_throttle = true\nmax_segments = 0");
    assert!(e.contains("devices.sda.max_segments is 0"), "{e}");
    let e = device_errors("write_latency = \"494us\"");
    assert!(e.contains("q.toml:") && e.contains("devices.sda.write_latency on a device without qemu_throttle"), "{e}");
    let e = device_errors("queue_depth = 128\nwrite_service_bw = \"1G\"");
    assert!(e.contains("devices.sda.write_service_bw on a device without qemu_throttle") && e.contains("request_write_bw"), "{e}");
}
