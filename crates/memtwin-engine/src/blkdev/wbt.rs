//! blk-wbt, writeback throttling (block/blk-wbt.c and block/blk-rq-qos.c as Debian's 6.1 has
//! them; e34cbd307477 "blk-wbt: add general throttling mechanism" and 87760e5eef35 "block: hook
//! up writeback throttling", 4.10): a buffered write that would take a new request sleeps in
//! `wbt_wait()` while the device has its class's limit of tracked writes in flight, and is woken
//! by `wbt_done()` as they complete; a latency monitor scales the limits down when reads
//! complete slower than `min_lat_nsec` and up when they do not, or when only writes are seen.
//!
//! Rules modelled, each from the 6.1 source:
//! - `bio_to_wbt_flags()`/`wbt_should_throttle()`: every write is tracked but O_DIRECT's
//!   (`REQ_SYNC | REQ_IDLE`; the engine has no O_DIRECT writes); reads are not, they only
//!   stamp `last_issue` (`wbt_wait()`) and `last_comp` (`wbt_done()`); a bio merged into a
//!   request is neither (`blk_mq_attempt_bio_merge()` comes before `rq_qos_throttle()`);
//! - `get_limit()`: `max_depth` for `REQ_HIPRIO` (`REQ_SYNC`: WB_SYNC_ALL writeback, fsync), for
//!   kswapd, and while a task slept in `balance_dirty_pages()` on the bdi's root wb within the
//!   last second (`wb_recent_wait()`: `wb->dirty_sleep + HZ`); `wb_background` for
//!   `REQ_BACKGROUND` (the flusher's background and kupdate writeback, `wbc_to_write_flags()`)
//!   or when a read was issued or completed in the last `HZ/10` (`close_io()`); else
//!   `wb_normal` (reclaim's swap-out, a DONTNEED's writeback);
//! - `calc_wb_limits()`: `wb_normal = (max_depth + 1) / 2`, `wb_background = (max_depth + 3) / 4`
//!   (`max_depth` <= 2: `max_depth` and 1); `rq_depth_calc_max_depth()`: `max_depth` is
//!   `min(RWB_DEF_DEPTH, queue_depth)` at `scale_step` 0, `1 + ((depth - 1) >> step)` above,
//!   `1 + ((depth - 1) << -step)` below, at most `3 * queue_depth / 4` (then `scaled_max`);
//! - `rq_qos_wait()`: a writer that finds its class at the limit, or others already waiting,
//!   sleeps; `wbt_rqw_done()` wakes the sleepers when a tracked request completes and the
//!   requests left in flight are 0, or below the wake limit by at least `wb_background / 2` (the
//!   wake limit is 0 on a device with a write-back cache, `rwb->wc`, unless `wb_recent_wait()`,
//!   else `wb_normal`), and the woken writer goes when fewer than its limit are in flight;
//!   `scale_up()` wakes every sleeper too (`rwb_wake_all()`), each going when fewer than its
//!   limit at the new depth are in flight ([`Wbt::wait`]: foreseen while no read is known to
//!   the monitor, whose latency would decide the window);
//! - `wb_timer_fn()` every `cur_win_nsec` (`RWB_WINDOW_NSEC`, 100 ms, shortened by
//!   `rwb_arm_timer()` while scaled down) from the first tracked write, re-armed while
//!   requests are in flight or `scale_step` is not 0: `latency_exceeded()` (the oldest read
//!   still in flight, `sync_issue`, older than the window, or older than `min_lat_nsec` when no
//!   read completed in it; else, with a read and `RWB_MIN_WRITE_SAMPLES` writes completed in
//!   the window, the smallest read latency above `min_lat_nsec`) scales down, hard (a negative
//!   step goes back to 0); a window of reads and writes under the target, or of writes only
//!   (`LAT_UNKNOWN_WRITES`), scales up; `RWB_UNKNOWN_BUMP` windows of nothing bring the step
//!   one back toward 0.
//!
//! How the engine uses it: its requests get their completion when they are submitted, so a
//! throttled write's wait is a time, not a sleep: [`Wbt::wait`] returns when the writer is let
//! through (its release), from the completions of the tracked requests in flight, which the
//! device keeps in order ([`Wbt::track`]). A task (fsync, a DONTNEED's writeback) sleeps
//! until then; the flusher, which is not a task in the engine, stops its
//! writeback there and resumes it at that time (page_writeback.rs `Kernel::flusher_resume`):
//! the pages it has not reached stay dirty. A read on a device serving one request at a time
//! goes ahead of the tracked writes not yet released (they are in the flusher's hands, not in
//! the queue; blkdev/mod.rs `submit_sync_sched`).
//!
//! Not modelled: reclaim's swap-out writes (swapfile.rs), neither throttled nor tracked: they
//! go at once as before, and a read placed before the held writes is placed before the swap
//! writes queued after them too. Making reclaim sleep in `wbt_wait()` before its swap writes
//! (`Kernel::wbt_wait_write` in `swap_submit_write()`/`blk_flush_plug()`) made the fault-run
//! path and one fault at a time diverge (tests/properties.rs
//! `mapped_fault_runs_equal_one_page_at_a_time`, a v1 linux-6.6 case with 0.3 s of such waits);
//! why was not found, so it was taken out. kswapd's and discards' own wait queues (`WBT_RWQ_KSWAPD`, `WBT_RWQ_DISCARD`:
//! every tracked write counts in one); a read's latency is counted from its submission, not
//! from its dispatch to the driver (`io_start_time_ns`); the limits are taken at the writer's
//! wake-up as they were when it went to sleep but for the windows of writes only that scale
//! them up (a window's scale-down, and a scale-up decided by reads submitted after the writer
//! went to sleep, are not foreseen); `last_comp` is the latest read completion given,
//! also while that read is still in flight.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::types::Nanos;

const MS: Nanos = 1_000_000;
/// `RWB_DEF_DEPTH` (block/blk-wbt.c): the default `max_depth` of a queue at `scale_step` 0.
pub const RWB_DEF_DEPTH: u32 = 16;
/// `RWB_WINDOW_NSEC`: the latency monitor's window, 100 ms.
pub const RWB_WINDOW_NSEC: Nanos = 100 * MS;
/// `RWB_MIN_WRITE_SAMPLES`: writes a window needs before its read latencies count.
pub const RWB_MIN_WRITE_SAMPLES: u32 = 3;
/// `RWB_UNKNOWN_BUMP`: windows without samples before a scaled step moves back.
pub const RWB_UNKNOWN_BUMP: u32 = 5;
/// `close_io()`: `HZ / 10` after a read's issue or completion.
pub const CLOSE_IO_NS: Nanos = 100 * MS;
/// `wb_recent_wait()`: `HZ` after a task slept in `balance_dirty_pages()`.
pub const RECENT_WAIT_NS: Nanos = 1000 * MS;
/// `wbt_default_latency_nsec()`: 75 ms on a rotational queue.
pub const WBT_LAT_USEC_ROTATIONAL: u64 = 75_000;
/// `wbt_default_latency_nsec()`: 2 ms on a non-rotational queue (and on the host's loop
/// devices whatever their `rotational`: `wbt_init()` runs at `add_disk()`, before
/// `loop_configure()` takes the backing file's flag; every loop device of the lab host shows
/// `wbt_lat_usec` 2000, loop0 with `rotational` 1, 2026-11-29).
pub const WBT_LAT_USEC_NONROT: u64 = 2_000;

/// What a tracked write is, for `get_limit()`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WbtOp {
    /// `REQ_BACKGROUND`: the flusher's background and kupdate writeback.
    Background,
    /// Neither: reclaim's swap-out, a DONTNEED's `WB_SYNC_NONE` writeback, the flusher's
    /// writeback for `wakeup_flusher_threads()` (`WB_REASON_VMSCAN`, not background).
    Normal,
    /// `REQ_SYNC` (`REQ_HIPRIO`): `WB_SYNC_ALL` writeback, fsync.
    Sync,
    /// `current_is_kswapd()` (to 6.10: [`write_op`]).
    Kswapd,
}

/// What `get_limit()` takes a write submitted by kswapd (`kswapd`) or by the flusher or a task
/// writing as `op` for: 6.1's `current_is_kswapd()` gives kswapd's every write `max_depth`
/// ([`WbtOp::Kswapd`]); with `swap_hiprio` (`KernelProfile::wbt_swap_hiprio`, 6.11's
/// `REQ_SWAP` in `REQ_HIPRIO`) only swap writes get it, and kswapd's file pageout
/// (`pageout()`: `WB_SYNC_NONE`, neither background nor kupdate) is [`WbtOp::Normal`].
#[inline]
pub fn write_op(kswapd: bool, swap_hiprio: bool, op: WbtOp) -> WbtOp {
    match (kswapd, swap_hiprio) {
        (false, _) => op,
        (true, false) => WbtOp::Kswapd,
        (true, true) => WbtOp::Normal,
    }
}

/// `latency_exceeded()`'s verdicts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LatStatus {
    /// `LAT_OK`.
    Ok,
    /// `LAT_UNKNOWN`.
    Unknown,
    /// `LAT_UNKNOWN_WRITES`.
    UnknownWrites,
    /// `LAT_EXCEEDED`.
    Exceeded,
}

/// `struct rq_wb` of one device, with `struct rq_depth` and the window's `blk_rq_stat`.
#[derive(Clone, Debug, Default)]
pub struct Wbt {
    /// `min_lat_nsec` (`queue/wbt_lat_usec` * 1000); 0: off.
    pub min_lat: Nanos,
    /// `rwb->wc`: the queue has a write-back cache (`QUEUE_FLAG_WC`).
    pub wc: bool,
    /// `rq_depth.queue_depth` (`blk_queue_depth()`).
    pub queue_depth: u32,
    /// `rq_depth.scale_step`.
    pub scale_step: i32,
    /// `rq_depth.scaled_max`.
    scaled_max: bool,
    /// `rq_depth.max_depth`.
    pub max_depth: u32,
    /// `rwb->wb_normal`.
    pub wb_normal: u32,
    /// `rwb->wb_background`.
    pub wb_background: u32,
    /// `rwb->unknown_cnt`.
    unknown_cnt: u32,
    /// `rwb->last_issue`: the last read issued.
    last_issue: Nanos,
    /// `rwb->last_comp`: the last read completion.
    last_comp: Nanos,
    /// When the monitor's window ends (`blk_stat` timer); 0: not armed.
    pub win_end: Nanos,
    /// `rwb->cur_win_nsec`.
    cur_win: Nanos,
    /// The window's reads completed, their smallest latency, and its writes completed.
    stat: (u32, Nanos, u32),
    /// Samples not yet counted: (completion, latency, read), earliest first.
    samples: BinaryHeap<Reverse<(Nanos, Nanos, bool)>>,
    /// `sync_issue`/`sync_cookie`: the read being watched, (issue, completion).
    sync_cookie: Option<(Nanos, Nanos)>,
    /// The tracked requests in flight: (release, completion), in completion order.
    tracked: VecDeque<(Nanos, Nanos)>,
    /// The release of the last tracked request (writers go in turn: `rq_qos_wait()` queues
    /// one behind those already waiting).
    pub last_release: Nanos,
    /// Tracked requests that had to wait, and their waits summed.
    pub waits: u64,
    /// Total wait, ns.
    pub waited_ns: Nanos,
    /// Windows that scaled the depth down and up.
    pub scaled: (u64, u64),
    /// The end of `wb_recent_wait()` as last given ([`Wbt::wait`], [`Wbt::dirty_sleep`]): the
    /// windows rolled from [`Wbt::read`] judge `LAT_UNKNOWN_WRITES` with it.
    recent_until: Nanos,
}

impl Wbt {
    /// `wbt_init()` of a queue of `queue_depth` with `wbt_lat_usec` (0: off) and a write-back
    /// cache `wc`: `last_issue = last_comp = jiffies` (0), limits at `scale_step` 0.
    pub fn new(lat_usec: u64, queue_depth: u32, wc: bool) -> Self {
        let mut w = Wbt { min_lat: lat_usec * 1000, wc, queue_depth: queue_depth.max(1), cur_win: RWB_WINDOW_NSEC, ..Wbt::default() };
        w.calc_max_depth();
        w.calc_wb_limits();
        w
    }

    /// `rwb_enabled()`.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.min_lat != 0 && self.wb_normal != 0
    }

    /// `rq_depth_calc_max_depth()` (block/blk-rq-qos.c): returns whether the depth hit its cap.
    fn calc_max_depth(&mut self) -> bool {
        let mut ret = false;
        if self.queue_depth == 1 {
            if self.scale_step > 0 {
                self.max_depth = 1;
            } else {
                self.max_depth = 2;
                ret = true;
            }
        } else {
            let mut depth = RWB_DEF_DEPTH.min(self.queue_depth);
            if self.scale_step > 0 {
                depth = 1 + ((depth - 1) >> self.scale_step.min(31));
            } else if self.scale_step < 0 {
                let maxd = 3 * self.queue_depth / 4;
                depth = 1 + ((depth as u64 - 1) << (-self.scale_step).min(31)).min(u32::MAX as u64 - 1) as u32;
                if depth > maxd {
                    depth = maxd;
                    ret = true;
                }
            }
            self.max_depth = depth;
        }
        ret
    }

    /// `calc_wb_limits()`.
    fn calc_wb_limits(&mut self) {
        if self.min_lat == 0 {
            self.wb_normal = 0;
            self.wb_background = 0;
        } else if self.max_depth <= 2 {
            self.wb_normal = self.max_depth;
            self.wb_background = 1;
        } else {
            self.wb_normal = (self.max_depth + 1) / 2;
            self.wb_background = (self.max_depth + 3) / 4;
        }
    }

    /// `scale_up()` (`rq_depth_scale_up()`).
    fn scale_up(&mut self) {
        if self.scaled_max {
            return;
        }
        self.scale_step -= 1;
        self.scaled_max = self.calc_max_depth();
        self.calc_wb_limits();
        self.unknown_cnt = 0;
        self.scaled.1 += 1;
    }

    /// `scale_down()` (`rq_depth_scale_down()`).
    fn scale_down(&mut self, hard: bool) {
        if self.max_depth == 1 {
            return;
        }
        if self.scale_step < 0 && hard {
            self.scale_step = 0;
        } else {
            self.scale_step += 1;
        }
        self.scaled_max = false;
        self.calc_max_depth();
        self.calc_wb_limits();
        self.unknown_cnt = 0;
        self.scaled.0 += 1;
    }

    /// `rwb_arm_timer()` at `t`: the window's length from the step (`win_nsec << 4 /
    /// int_sqrt((step + 1) << 8)` while scaled down), a fresh window of samples.
    fn arm_timer(&mut self, t: Nanos) {
        self.cur_win = if self.scale_step > 0 { (RWB_WINDOW_NSEC << 4) / int_sqrt(((self.scale_step as u64) + 1) << 8) } else { RWB_WINDOW_NSEC };
        self.win_end = t + self.cur_win;
        self.stat = (0, Nanos::MAX, 0);
        // blk_stat_activate_nsecs(): only completions from now on are counted.
        while self.samples.peek().is_some_and(|s| s.0 .0 <= t) {
            self.samples.pop();
        }
    }

    /// `latency_exceeded()` at the end `t` of the window, with `recent_wait`
    /// (`wb_recent_wait()`) and `inflight` tracked requests.
    fn latency_exceeded(&mut self, t: Nanos, recent_wait: bool, inflight: usize) -> LatStatus {
        let thislat = match self.sync_cookie {
            Some((issue, done)) if done > t => t - issue,
            _ => 0,
        };
        let (reads, min, writes) = self.stat;
        if thislat > self.cur_win || (thislat > self.min_lat && reads == 0) {
            return LatStatus::Exceeded;
        }
        // stat_sample_valid()
        if !(reads >= 1 && writes >= RWB_MIN_WRITE_SAMPLES) {
            if writes > 0 || recent_wait || inflight > 0 {
                return LatStatus::UnknownWrites;
            }
            return LatStatus::Unknown;
        }
        if min > self.min_lat {
            return LatStatus::Exceeded;
        }
        LatStatus::Ok
    }

    /// Run the monitor's windows that end by `t` (`wb_timer_fn()`), `recent_wait_until` the end
    /// of `wb_recent_wait()`.
    pub fn roll(&mut self, t: Nanos, recent_wait_until: Nanos) {
        while self.win_end != 0 && self.win_end <= t {
            let end = self.win_end;
            while let Some(&Reverse((done, lat, read))) = self.samples.peek() {
                if done > end {
                    break;
                }
                self.samples.pop();
                if read {
                    self.stat.0 += 1;
                    self.stat.1 = self.stat.1.min(lat);
                } else {
                    self.stat.2 += 1;
                }
            }
            if self.sync_cookie.is_some_and(|(_, done)| done <= end) {
                self.sync_cookie = None;
            }
            let inflight = self.tracked.iter().filter(|&&(r, d)| r <= end && d > end).count();
            match self.latency_exceeded(end, end < recent_wait_until, inflight) {
                LatStatus::Exceeded => self.scale_down(true),
                LatStatus::Ok | LatStatus::UnknownWrites => self.scale_up(),
                LatStatus::Unknown => {
                    self.unknown_cnt += 1;
                    if self.unknown_cnt >= RWB_UNKNOWN_BUMP {
                        if self.scale_step > 0 {
                            self.scale_up();
                        } else if self.scale_step < 0 {
                            self.scale_down(false);
                        }
                    }
                }
            }
            if self.scale_step != 0 || inflight > 0 {
                self.arm_timer(end);
            } else {
                self.win_end = 0;
            }
        }
    }

    /// `close_io()` at `t`.
    #[inline]
    fn close_io(&self, t: Nanos) -> bool {
        t < self.last_issue + CLOSE_IO_NS || t < self.last_comp + CLOSE_IO_NS
    }

    /// `get_limit()` of a write `op` at `t`.
    pub fn get_limit(&self, op: WbtOp, t: Nanos, recent_wait: bool) -> u32 {
        if !self.enabled() {
            return u32::MAX;
        }
        if matches!(op, WbtOp::Sync | WbtOp::Kswapd) || recent_wait {
            self.max_depth
        } else if op == WbtOp::Background || self.close_io(t) {
            self.wb_background
        } else {
            self.wb_normal
        }
    }

    /// `wbt_wait()` -> `rq_qos_wait()` of a tracked write `op` submitted at `now`, with a task
    /// sleeping in `balance_dirty_pages()` until `recent_wait_until` + `HZ`: when the writer is
    /// let through. At once when fewer than its limit are in flight and nobody waits before it;
    /// else at the completion of a tracked request after which `wbt_rqw_done()` wakes the
    /// sleepers and fewer than its limit are left in flight. O(limit).
    pub fn wait(&mut self, op: WbtOp, now: Nanos, recent_wait_until: Nanos) -> Nanos {
        self.recent_until = self.recent_until.max(recent_wait_until);
        self.roll(now, recent_wait_until);
        let t0 = now.max(self.last_release);
        // Those done by the caller's clock are gone for every context (a read submitted at
        // `now` may still see the ones done between `now` and `t0` held, [`Wbt::held_at`]).
        while self.tracked.front().is_some_and(|&(_, d)| d <= now) {
            self.tracked.pop_front();
        }
        let recent = t0 < recent_wait_until;
        let limit = self.get_limit(op, t0, recent) as usize;
        // In flight at t0: every request tracked is released by then (`last_release` <= t0).
        let first = self.tracked.partition_point(|&(_, d)| d <= t0);
        let n = self.tracked.len() - first;
        if n < limit {
            return t0;
        }
        // wbt_rqw_done(): the wake limit.
        let wl = if self.wc && !recent { 0 } else { self.wb_normal as usize };
        let half_bg = (self.wb_background / 2) as usize;
        let wakes = |m: usize| m == 0 || (m < wl && wl - m >= half_bg);
        for k in n - limit..n {
            let done = self.tracked[first + k].1;
            if k + 1 < n && self.tracked[first + k + 1].1 == done {
                continue; // they complete together
            }
            let m = n - 1 - k;
            if m < limit && wakes(m) {
                let done = self.scale_up_wake(op, t0, first, done, recent_wait_until).unwrap_or(done);
                self.waits += 1;
                self.waited_ns += done - now;
                return done;
            }
        }
        unreachable!("the last completion leaves nothing in flight")
    }

    /// `scale_up()`'s `rwb_wake_all()` (6.1 block/blk-wbt.c): a window of the monitor that ends
    /// while the writer sleeps (from `t0`) and scales the depth up wakes every sleeper, and the
    /// writer goes (`rq_qos_wait()`'s `acquire_inflight_cb()`) when the tracked requests in
    /// flight then (from `first`) are fewer than its limit at the new depth: the first such
    /// window end before `until` (`wbt_rqw_done()`'s wake-up), if any. A window scales up when
    /// it saw writes only (`LAT_UNKNOWN_WRITES`: writes in flight, as while a writer sleeps) and
    /// the depth is below its cap (`scaled_max`). Foreseen only while no read is known to the
    /// monitor (none watched, counted or sampled): a read's latency decides its window, and the
    /// reads to come are not known when the writer goes to sleep; with one, the writer waits for
    /// `until` as before. The monitor's own state is left as it was (`roll()` scales it when the
    /// windows end). At most a few windows (four from step 0 to the cap of a queue of 256).
    fn scale_up_wake(&mut self, op: WbtOp, t0: Nanos, first: usize, until: Nanos, recent_wait_until: Nanos) -> Option<Nanos> {
        if self.win_end == 0 || self.scaled_max || self.sync_cookie.is_some() || self.stat.0 > 0 || self.samples.iter().any(|s| s.0 .2) {
            return None;
        }
        let saved = (self.scale_step, self.max_depth, self.wb_normal, self.wb_background);
        let mut w = self.win_end;
        let mut release = None;
        while w < until {
            // scale_up(): rq_depth_scale_up(), calc_wb_limits(), rwb_wake_all().
            self.scale_step -= 1;
            let capped = self.calc_max_depth();
            self.calc_wb_limits();
            if w >= t0 {
                let limit = self.get_limit(op, w, w < recent_wait_until) as usize;
                let inflight = self.tracked.iter().skip(first).filter(|&&(_, d)| d > w).count();
                if inflight < limit {
                    release = Some(w);
                    break;
                }
            }
            if capped {
                break;
            }
            // rwb_arm_timer(): the next window (RWB_WINDOW_NSEC at a step <= 0).
            w += if self.scale_step > 0 { (RWB_WINDOW_NSEC << 4) / int_sqrt(((self.scale_step as u64) + 1) << 8) } else { RWB_WINDOW_NSEC };
        }
        (self.scale_step, self.max_depth, self.wb_normal, self.wb_background) = saved;
        release
    }

    /// The tracked request released at `release` completes at `done` (`wbt_track()`,
    /// `wbt_done()`): in flight until then, a write sample of the window it completes in; the
    /// monitor's timer armed if it was not (`wbt_wait()`: `rwb_arm_timer()`).
    pub fn track(&mut self, release: Nanos, done: Nanos) {
        let done = done.max(self.tracked.back().map_or(0, |e| e.1));
        self.tracked.push_back((release, done));
        self.last_release = self.last_release.max(release);
        if self.win_end == 0 {
            self.arm_timer(release);
        }
        self.samples.push(Reverse((done, done - release, false)));
    }

    /// A task slept in `balance_dirty_pages()` at `t` on a wb `wb_recent_wait()` looks at
    /// (`wb->dirty_sleep`, `bdi->last_bdp_sleep` from 6.8): recent until `t + HZ`.
    #[inline]
    pub fn dirty_sleep(&mut self, t: Nanos) {
        self.recent_until = self.recent_until.max(t + RECENT_WAIT_NS);
    }

    /// A read submitted at `now` completing at `done`: the monitor's windows that ended by
    /// `now` are judged first (`wb_timer_fn()` runs on its timer whether writes come or not,
    /// so a read-only phase does not keep the samples of the windows it spans); `wbt_wait()`
    /// stamps `last_issue`, `wbt_issue()` watches it when no read is watched (`sync_issue`),
    /// `wbt_done()` stamps `last_comp`; a read sample of the window it completes in, whether
    /// or not a window was armed when it was issued: `blk_stat_add()` (block/blk-stat.c,
    /// 4.10-6.18) counts a request at its completion while the callback's timer is pending
    /// (`blk_stat_is_active()`), its latency `now - io_start_time_ns`, so a read issued just
    /// before the first tracked write arms the window (`rwb_arm_timer()`) and completing in
    /// it is one of its samples (wbt23: host-queue-rw-wbt-unthrottled's first window; before,
    /// the engine dropped the sample of a read issued while no window was armed). A read
    /// sample that completes while no window is armed is never counted: `arm_timer()` drops
    /// the samples completed by its start, and while none is armed those completed by `now`
    /// go here, so the heap holds no more than the reads in flight.
    pub fn read(&mut self, now: Nanos, done: Nanos) {
        if !self.enabled() {
            return;
        }
        self.roll(now, self.recent_until);
        self.last_issue = self.last_issue.max(now);
        self.last_comp = self.last_comp.max(done);
        if self.sync_cookie.is_some_and(|(_, d)| d <= now) {
            self.sync_cookie = None;
        }
        if self.sync_cookie.is_none() {
            self.sync_cookie = Some((now, done));
        }
        if self.win_end == 0 {
            // No window armed: the samples completed by now can be counted by none.
            while self.samples.peek().is_some_and(|s| s.0 .0 <= now) {
                self.samples.pop();
            }
        }
        self.samples.push(Reverse((done, done.saturating_sub(now), true)));
    }

    /// Samples not yet counted in a window (reads and writes in flight, or done in the window
    /// running).
    #[inline]
    pub fn pending_samples(&self) -> usize {
        self.samples.len()
    }

    /// Tracked requests released after `t` (held by their writers at `t`), the latest ones.
    #[inline]
    pub fn held_at(&self, t: Nanos) -> u64 {
        self.tracked.iter().rev().take_while(|&&(r, _)| r > t).count() as u64
    }
}

/// `int_sqrt()`.
fn int_sqrt(x: u64) -> u64 {
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r.max(1)
}
