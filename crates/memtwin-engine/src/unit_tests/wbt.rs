//! blk-wbt (blkdev/wbt.rs): block/blk-wbt.c and block/blk-rq-qos.c of Debian's 6.1 — the limits
//! (`calc_wb_limits()`, `rq_depth_calc_max_depth()`), the writer's wait (`get_limit()`,
//! `rq_qos_wait()`, `wbt_rqw_done()`), the latency monitor (`wb_timer_fn()`,
//! `latency_exceeded()`), a read going before the writes blk-wbt holds, and the flusher that
//! stops at the limit and goes on when a write completes.

use super::*;
use crate::blkdev::wbt::{Wbt, WbtOp, RWB_WINDOW_NSEC, WBT_LAT_USEC_NONROT, WBT_LAT_USEC_ROTATIONAL};
use crate::blkdev::{BlockDevice, Dir, SchedKind, MAX_REQUEST_PAGES};
use crate::types::Nanos;

const MS: Nanos = 1_000_000;
/// A 512 KiB request at 128 MiB/s.
const RQ: Nanos = 3_906_250;

/// `calc_wb_limits()` and `rq_depth_calc_max_depth()` (6.1): a queue of 128 at step 0 has
/// `max_depth` `RWB_DEF_DEPTH` 16, `wb_normal` 8, `wb_background` 4; a step down halves the
/// depth less one (8: 4 and 2); writes only go up to 3/4 of the queue (96) and stop there
/// (`scaled_max`); a queue of one has 2 (1 scaled down); `wbt_lat_usec` 0 is off.
#[test]
fn wbt_limits_follow_calc_wb_limits_6_1() {
    let w = Wbt::new(WBT_LAT_USEC_NONROT, 128, true);
    assert_eq!((w.max_depth, w.wb_normal, w.wb_background), (16, 8, 4));
    let w1 = Wbt::new(WBT_LAT_USEC_NONROT, 1, true);
    assert_eq!((w1.max_depth, w1.wb_normal, w1.wb_background), (2, 2, 1));
    assert!(!Wbt::new(0, 128, true).enabled());
    assert_eq!(Wbt::new(0, 128, true).get_limit(WbtOp::Background, 0, false), u32::MAX);
    // get_limit(): REQ_SYNC, kswapd and a recent balance_dirty_pages() sleep get max_depth;
    // REQ_BACKGROUND wb_background; others wb_normal, wb_background within HZ/10 of a read.
    let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 128, true);
    let t = 10_000 * MS;
    assert_eq!(w.get_limit(WbtOp::Sync, t, false), 16);
    assert_eq!(w.get_limit(WbtOp::Kswapd, t, false), 16);
    assert_eq!(w.get_limit(WbtOp::Background, t, true), 16);
    assert_eq!(w.get_limit(WbtOp::Background, t, false), 4);
    assert_eq!(w.get_limit(WbtOp::Normal, t, false), 8);
    w.read(t, t + MS);
    assert_eq!(w.get_limit(WbtOp::Normal, t + 50 * MS, false), 4, "close_io()");
    assert_eq!(w.get_limit(WbtOp::Normal, t + 200 * MS, false), 8);
}

/// `rq_qos_wait()` + `wbt_rqw_done()` (6.1): with a write-back cache and no recent
/// `balance_dirty_pages()` sleep the sleepers are woken only when the last tracked request
/// completes (wake limit 0); otherwise when fewer than `wb_normal` (8) are left, by at least
/// `wb_background / 2` (2), and the background writer goes when fewer than 4 are in flight.
#[test]
fn wbt_wait_wakes_as_wbt_rqw_done_6_1() {
    for (wc, expect) in [(true, 3usize), (false, 0)] {
        let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 128, wc);
        let now = 1000 * MS;
        // Four background requests go at once and complete 10 ms apart.
        for i in 0..4 {
            assert_eq!(w.wait(WbtOp::Background, now, 0), now, "request {i} under the limit");
            w.track(now, now + (i + 1) * 10 * MS);
        }
        // The fifth sleeps: woken at the completion of request `expect`.
        let r = w.wait(WbtOp::Background, now, 0);
        assert_eq!(r, now + (expect as u64 + 1) * 10 * MS, "wc {wc}");
        assert_eq!(w.waits, 1);
        w.track(r, r + 10 * MS);
        // Writers go in turn: one submitted earlier than the last release waits for it.
        assert!(w.wait(WbtOp::Background, now, 0) >= r);
    }
}

/// `wb_timer_fn()` / `latency_exceeded()` (6.1): a window whose smallest read latency is above
/// `min_lat_nsec`, with 3 writes completed in it, scales down (16 -> 8: normal 4, background
/// 2) and shortens the next window (`rwb_arm_timer()`: 100 ms * 16 / int_sqrt(512) = 72.7 ms); a
/// window of writes only scales up (step -1: 31, capped at 3/4 of a 32 queue: 24).
#[test]
fn wbt_monitor_scales_as_wb_timer_fn_6_1() {
    let mut w = Wbt::new(WBT_LAT_USEC_NONROT, 128, true);
    let t = 1000 * MS;
    for i in 0..3 {
        w.wait(WbtOp::Background, t, 0);
        w.track(t, t + (i + 1) * 20 * MS);
    }
    w.read(t + 10 * MS, t + 40 * MS); // 30 ms, above 2 ms
    w.roll(t + RWB_WINDOW_NSEC, 0);
    assert_eq!((w.scale_step, w.max_depth, w.wb_normal, w.wb_background), (1, 8, 4, 2));
    assert_eq!(w.scaled, (1, 0));
    assert_eq!(w.win_end, t + RWB_WINDOW_NSEC + 100 * MS * 16 / 22);

    let mut w = Wbt::new(WBT_LAT_USEC_NONROT, 32, true);
    for i in 0..3 {
        w.wait(WbtOp::Background, t, 0);
        w.track(t, t + (i + 1) * 20 * MS);
    }
    w.roll(t + RWB_WINDOW_NSEC, 0);
    assert_eq!((w.scale_step, w.max_depth), (-1, 24));
    // scaled_max: the next window of writes does not go further.
    w.wait(WbtOp::Background, t + RWB_WINDOW_NSEC, 0);
    w.track(t + RWB_WINDOW_NSEC, t + RWB_WINDOW_NSEC + 10 * MS);
    w.roll(t + 2 * RWB_WINDOW_NSEC, 0);
    assert_eq!((w.scale_step, w.max_depth), (-1, 24));
}

/// A read on a disk serving one request at a time, no scheduler (`none`): without blk-wbt it
/// waits for every write the flusher queued; with it, only for those let through (the
/// background limit, 4, at once), the rest being in the flusher's hands
/// (`wbt_wait()` before the request is allocated, 6.1).
#[test]
fn a_read_goes_before_the_writes_wbt_holds() {
    let now = 1000 * MS;
    let mk = |lat| BlockDevice::new("sda", 128 << 20, 128 << 20, MS, 128).with_sched(SchedKind::None).with_driver_depth(32).with_wbt(lat, 32, true);
    let mut reads = vec![];
    for lat in [0, WBT_LAT_USEC_ROTATIONAL] {
        let mut d = mk(lat);
        for i in 0..16 {
            let s = i * MAX_REQUEST_PAGES;
            let r = d.wbt_release(s, MAX_REQUEST_PAGES, now, WbtOp::Background, 0, crate::blkdev::RqClass::Async);
            d.submit_tracked(s, MAX_REQUEST_PAGES, r, crate::blkdev::RqClass::Async);
        }
        reads.push(d.submit(Dir::Read, 1 << 30, 1, now + MS));
        assert_eq!(d.queue.queued, 17);
    }
    assert!(reads[0] > now + MS + 16 * RQ, "without blk-wbt the read waits for all 16: {}", reads[0] - now);
    assert!(reads[1] < now + 6 * RQ, "with it, for the 4 let through: {}", reads[1] - now);
}

/// The flusher stops at blk-wbt's limit and goes on when a write completes (6.1: the flusher
/// sleeps in `wbt_wait()` inside `wb_writeback()`): right after `wakeup_flusher_threads()`
/// (not background: `wb_normal`, 8 requests) at most the limit of requests (and the one it
/// sleeps before) is under writeback and the rest of the file is still dirty; once the clock
/// passes the completions, all of it has been written.
/// Without blk-wbt (`wbt_lat_usec = 0`) it stops only when no scheduler tag is left (before
/// flq12 it queued all of it at once).
#[test]
fn the_flusher_stops_at_the_wbt_limit_and_resumes() {
    for lat in [0u64, 75_000] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "wbt"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
scheduler = "none"
wbt_lat_usec = {lat}
[files."/out"]
size = 0
[tasks.w]
ops = [{{ op = "write", file = "/out", length = "64M", bufsize = "1M", create = true }}]
"#
        ));
        run(&mut s);
        let k = &mut s.kernel;
        assert!(k.vmstat.nr_dirty > 0, "the write leaves dirty pages");
        let now = k.now;
        k.wakeup_flusher_threads();
        let (dirty, wb) = (k.vmstat.nr_dirty, k.vmstat.nr_writeback);
        // Without blk-wbt the flusher stops at mq-deadline's async depth instead (6.1
        // `blk_mq_get_tag()`: 96 of 128 tags, `Kernel::flusher_get_request`).
        let limit = if lat == 0 { 96 } else { 8 };
        assert!(wb <= (limit + 1) * MAX_REQUEST_PAGES, "at most the limit and the request held: {wb}");
        assert!(dirty > 0);
        assert!(k.flusher.until > now, "the flusher waits");
        k.advance_clock(now + 10_000 * MS);
        assert_eq!(k.flusher.until, 0);
        assert_eq!(k.vmstat.nr_dirty + k.vmstat.nr_writeback, 0, "all written by then");
        assert_eq!(k.devices[0].wbt.waits > 0, lat != 0);
    }
}

/// `[devices.NAME] wbt_lat_usec`: the default from `wbt_default_latency_nsec()` (6.1: 75 ms
/// rotational, 2 ms not) and the loop device's 2 ms, off before 4.10 (`KernelProfile::wbt`),
/// 0 off; a value on a profile without blk-wbt is refused, naming the key and its place.
#[test]
fn wbt_lat_usec_key_and_defaults() {
    let lat = |profile: &str, dev: &str| {
        let text = format!("[scenario]\nname = \"q\"\n[kernel]\nprofile = \"{profile}\"\n[machine]\nram = \"1G\"\n[devices.sda]\nread_bw = \"1G\"\n{dev}\n[files.\"/f\"]\nsize = \"1M\"\n[tasks.t]\nops = [{{ op = \"read\", file = \"/f\" }}]\n");
        crate::Document::from_toml("q.toml", &text).unwrap().resolve(None, &[]).map(|s| s.devices[0].wbt_lat_usec).map_err(|e| e.to_string())
    };
    assert_eq!(lat("linux-6.1", ""), Ok(WBT_LAT_USEC_ROTATIONAL));
    assert_eq!(lat("linux-6.1", "rotational = false"), Ok(WBT_LAT_USEC_NONROT));
    assert_eq!(lat("linux-6.18", "queue_depth = 128"), Ok(WBT_LAT_USEC_NONROT));
    assert_eq!(lat("linux-6.18", "blk_throttle = true"), Ok(WBT_LAT_USEC_NONROT));
    assert_eq!(lat("linux-5.0", ""), Ok(WBT_LAT_USEC_ROTATIONAL));
    assert_eq!(lat("linux-4.4", ""), Ok(0));
    assert_eq!(lat("linux-4.4", "wbt_lat_usec = 0"), Ok(0));
    assert_eq!(lat("linux-6.1", "wbt_lat_usec = 0"), Ok(0));
    assert_eq!(lat("linux-6.1", "wbt_lat_usec = 5000"), Ok(5000));
    let e = lat("linux-4.4", "wbt_lat_usec = 2000").unwrap_err();
    assert!(e.contains("q.toml:9:") && e.contains("devices.sda.wbt_lat_usec is 2000 on profile `linux-4.4`"), "{e}");
    let e = lat("linux-6.1", "wbt_lat_usec = -1").unwrap_err();
    assert!(e.contains("devices.sda.wbt_lat_usec"), "{e}");
}

/// `wb_timer_fn()` runs on the monitor's timer, not on the next write (6.1 block/blk-wbt.c):
/// after three writes, a read-only phase of 2000 reads 1 ms apart judges the writes' window
/// (`LAT_UNKNOWN_WRITES`: scale up) as soon as a read comes after its end, and holds no more
/// samples than the windows' reads in flight (before, `Wbt::read` pushed a sample per read while the window was armed but not rolled:
/// 2000 samples in the heap, and the window judged at the next write saw the last read as in
/// flight since before the window's end: `t - issue` wrapped, `LAT_EXCEEDED`).
#[test]
fn wbt_read_rolls_the_monitor_as_wb_timer_fn_6_1() {
    let mut w = Wbt::new(WBT_LAT_USEC_NONROT, 32, true);
    let t = 1000 * MS;
    for i in 0..3 {
        w.wait(WbtOp::Background, t, 0);
        w.track(t, t + (i + 1) * MS);
    }
    assert_eq!(w.win_end, t + RWB_WINDOW_NSEC);
    for i in 0..2000 {
        let now = t + 10 * MS + i * MS;
        w.read(now, now + MS / 2);
        assert!(w.pending_samples() <= 101, "read {i}: {} samples held", w.pending_samples());
    }
    assert_eq!(w.scaled.1, 1, "the writes' window scaled up without another write");
    assert!(w.pending_samples() <= 1, "{}", w.pending_samples());
    // Five windows of reads only (`LAT_UNKNOWN`, `RWB_UNKNOWN_BUMP`) brought the step back to 0
    // and the timer stopped. The next write judges no window late: before, the read watched
    // last (`sync_issue`, issued after the writes' window ended) made that window's `thislat`
    // wrap: `LAT_EXCEEDED`, step 1, depth 8.
    assert_eq!(w.win_end, 0);
    w.wait(WbtOp::Background, t + 3000 * MS, 0);
    assert_eq!((w.scale_step, w.max_depth), (0, 16));
}

/// `get_limit()`: 6.1 gives every write of kswapd `max_depth` (`current_is_kswapd()`); with
/// 6.11's `REQ_SWAP` in `REQ_HIPRIO` (`KernelProfile::wbt_swap_hiprio`) kswapd's file pageout
/// (`pageout()`: neither background nor kupdate) has `wb_normal`, `wb_background` near a read;
/// the flusher's and tasks' writes are as they were.
#[test]
fn wbt_kswapd_limit_per_era_get_limit_6_1_and_6_11() {
    use crate::blkdev::wbt::write_op;
    let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 128, true);
    let t = 10_000 * MS;
    assert_eq!(w.get_limit(write_op(true, false, WbtOp::Normal), t, false), 16, "6.1: kswapd");
    assert_eq!(w.get_limit(write_op(true, true, WbtOp::Normal), t, false), 8, "6.11: kswapd's pageout");
    for hiprio in [false, true] {
        assert_eq!(write_op(false, hiprio, WbtOp::Background), WbtOp::Background);
        assert_eq!(write_op(false, hiprio, WbtOp::Sync), WbtOp::Sync);
    }
    w.read(t, t + MS);
    assert_eq!(w.get_limit(write_op(true, true, WbtOp::Normal), t + 50 * MS, false), 4, "close_io()");
    assert_eq!(w.get_limit(write_op(true, false, WbtOp::Normal), t + 50 * MS, false), 16);
    let p = |n: &str| crate::profile::profile(n).unwrap().wbt_swap_hiprio;
    assert!(!p("linux-6.1") && !p("linux-6.6") && p("linux-6.12") && p("linux-6.18"));
}

/// A 64M buffered write on a 6.1 disk with blk-wbt at its rotational default.
const WRITE_64M: &str = r#"
[scenario]
name = "wbt"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
scheduler = "none"
[files."/out"]
size = 0
[tasks.w]
ops = [{ op = "write", file = "/out", length = "64M", bufsize = "1M", create = true }]
"#;

/// A 64M write leaves the flusher held by blk-wbt inside `wakeup_flusher_threads()`' flush
/// (6.1 as the_flusher_stops_at_the_wbt_limit_and_resumes). Two more wake-ups while it is held:
/// from 4.14 (`WB_start_all`, fs/fs-writeback.c wb_start_writeback() in 6.1) they add nothing,
/// the flush in flight keeps its pages; with the switch off (4.13 and before:
/// `__wb_start_writeback()` queues a work per call) each adds the dirty count. A wake-up while
/// the flusher is held before the flush starts counts the dirty pages when it starts
/// (`wb_check_start_all()`), not when it is asked.
#[test]
fn wakeup_flusher_threads_keeps_one_full_flush_wb_start_writeback_6_1() {
    for start_all in [true, false] {
        let mut s = sim(WRITE_64M);
        run(&mut s);
        let k = &mut s.kernel;
        k.profile.wb_start_all = start_all;
        k.wakeup_flusher_threads();
        assert!(k.flusher.until > k.now, "held by blk-wbt");
        let left = k.flusher.wakeup_left;
        assert!(left > 0);
        let dirty = k.vmstat.nr_dirty;
        k.wakeup_flusher_threads();
        k.wakeup_flusher_threads();
        if start_all {
            assert_eq!(k.flusher.wakeup_left, left, "WB_start_all: nothing added");
            assert!(!k.flusher.start_all);
        } else {
            assert_eq!(k.flusher.wakeup_left, left + 2 * dirty, "a work per call");
        }
    }
    // Held before the flush starts: the pages are counted when it starts.
    let mut s = sim(WRITE_64M);
    run(&mut s);
    let k = &mut s.kernel;
    let now = k.now;
    k.flusher.until = now + 50 * MS;
    k.wakeup_flusher_threads();
    assert!(k.flusher.start_all && k.flusher.wakeup_left == 0, "asked, not started, nothing counted yet");
    let dirty = k.vmstat.nr_dirty;
    k.advance_clock(now + 50 * MS);
    assert!(!k.flusher.start_all, "started at the resume");
    assert!(k.vmstat.nr_dirty < dirty, "and writing");
}

/// `balance_dirty_pages()` of a writer in a cgroup v2 memcg of its own sleeps on its memcg's
/// wb: 6.1's blk-wbt `wb_recent_wait()` looks at the bdi's root wb only (`wb->dirty_sleep`,
/// never set here), 6.8+ at the bdi's `last_bdp_sleep`, which any wb's sleep sets
/// (`KernelProfile::wbt_last_bdp_sleep`, linux-6.12).
#[test]
fn wbt_recent_wait_counts_a_memcg_writer_from_6_8_wb_recent_wait() {
    for (profile, counted) in [("linux-6.1", false), ("linux-6.12", true)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "wbt"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
dirty_bytes = "16M"
dirty_background_bytes = "8M"
[devices.sda]
read_bw = "100M"
write_bw = "20M"
scheduler = "none"
[files."/out"]
size = 0
[cgroups.w]
[tasks.w]
cgroup = "w"
ops = [{{ op = "write", file = "/out", length = "64M", bufsize = "1M", create = true }}]
"#));
        run(&mut s);
        let k = &s.kernel;
        assert!(k.bdp_trace.pauses > 0, "{profile}: the writer slept in balance_dirty_pages()");
        assert_eq!(k.wb_dirty_sleep.is_some(), counted, "{profile}");
    }
}

/// `scale_up()` -> `rwb_wake_all()` (6.1 block/blk-wbt.c): a writer asleep in `rq_qos_wait()`
/// is woken by every window of the monitor that scales the depth up, not only by
/// `wbt_rqw_done()`, and goes when fewer than its limit at the new depth are in flight. With a
/// write-back cache `wbt_rqw_done()` wakes nobody before the last request completes (800 ms
/// here); the first window, a window of writes only (`LAT_UNKNOWN_WRITES`), ends 100 ms after
/// the first tracked write and raises the background limit 4 -> 8 (step -1, depth 31 on a
/// queue of 256): the fifth writer goes then. The monitor's own state is left to `roll()`. A
/// read known to the monitor (its latency decides the window) keeps the former wait.
#[test]
fn wbt_scale_up_wakes_the_sleepers_6_1() {
    let now = 1000 * MS;
    let fill = |w: &mut Wbt| {
        for i in 0..4u64 {
            assert_eq!(w.wait(WbtOp::Background, now, 0), now);
            w.track(now, now + (i + 1) * 200 * MS);
        }
    };
    let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 256, true);
    fill(&mut w);
    assert_eq!(w.wait(WbtOp::Background, now, 0), now + RWB_WINDOW_NSEC, "woken by the window's scale_up()");
    assert_eq!((w.scale_step, w.max_depth, w.wb_background), (0, 16, 4), "the monitor scales at roll()");
    w.roll(now + RWB_WINDOW_NSEC, 0);
    assert_eq!((w.scale_step, w.max_depth, w.wb_background), (-1, 31, 8));
    // Eight in flight at the first window (depth 31, background 8): the second window (step -2,
    // depth 61, background 16) lets the writer go, 200 ms after the first write.
    let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 256, true);
    for i in 0..8u64 {
        let r = w.wait(WbtOp::Background, now, 0);
        w.track(r, r + 1000 * MS + i * MS);
    }
    assert_eq!(w.wait(WbtOp::Background, now, 0), now + 2 * RWB_WINDOW_NSEC);
    // A read in flight: the window's verdict is not foreseen, the writer waits for the drain.
    let mut w = Wbt::new(WBT_LAT_USEC_ROTATIONAL, 256, true);
    fill(&mut w);
    w.read(now, now + 5 * MS);
    assert_eq!(w.wait(WbtOp::Background, now, 0), now + 800 * MS);
}

/// `blk_stat_add()` (block/blk-stat.c, 4.10-6.18: `if (!blk_stat_is_active(cb)) continue;` at
/// the request's completion, its value `now - io_start_time_ns`) counts a read that completes
/// while the monitor's window is armed, whatever its issue time: a read issued before the
/// first tracked write arms the window (`rwb_arm_timer()` in `wbt_wait()`) is one of that
/// window's samples. Here its 1.2 ms, under `wbt_lat_usec` 2000, is the window's smallest read
/// latency, and with a later read of 3 ms and three writes `latency_exceeded()` says `LAT_OK`:
/// `scale_up()`, step -1 (the engine before wbt23 dropped the early read's sample: the 3 ms read
/// alone, `LAT_EXCEEDED`, `scale_down()` to step 1; host-queue-rw-wbt-unthrottled's first window).
#[test]
fn wbt_counts_a_read_issued_before_the_window_blk_stat_add_6_18() {
    let mut w = Wbt::new(WBT_LAT_USEC_NONROT, 128, true);
    let t = 1000 * MS;
    // Issued with no window armed, completing in the first one (1.2 ms).
    w.read(t - MS / 2, t + 7 * MS / 10);
    assert_eq!(w.win_end, 0);
    for i in 0..3 {
        w.wait(WbtOp::Normal, t, 0);
        w.track(t, t + (i + 1) * MS);
    }
    assert_eq!(w.win_end, t + RWB_WINDOW_NSEC);
    // Issued in the window, 3 ms: over the target.
    w.read(t + 10 * MS, t + 13 * MS);
    w.roll(t + RWB_WINDOW_NSEC + MS, 0);
    assert_eq!(w.scaled, (0, 1), "the window's smallest read latency is the early read's 1.2 ms: LAT_OK");
    assert_eq!((w.scale_step, w.max_depth, w.wb_normal, w.wb_background), (-1, 31, 16, 8));
    // A read that completes while no window is armed is counted by none: a read-only phase
    // with no window holds no more samples than its reads in flight.
    let mut w = Wbt::new(WBT_LAT_USEC_NONROT, 128, true);
    for i in 0..1000 {
        let now = t + i * MS;
        w.read(now, now + MS / 2);
        assert!(w.pending_samples() <= 1, "read {i}: {} samples held", w.pending_samples());
    }
}
