//! Dirty pages and writeback (mm/page-writeback.c, fs/fs-writeback.c).
//!
//! Dirty pages are written back by the flusher when the machine's dirty pages pass
//! `dirty_background_ratio` of dirtyable memory, when reclaim meets them, and on fsync. A
//! writer past the free-run ceiling (halfway between the background and the hard threshold)
//! sleeps the pauses `balance_dirty_pages()` computes from its domains' position and the
//! wb's bandwidth estimates (3.2+'s IO-less dirty throttling). A page being written is clean and `PG_writeback` until its request completes
//! on the device (`folio_end_writeback()`, run by [`Kernel::writeback_end_io`] whenever the
//! clock has passed the completion); reclaim cannot free it until then.

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

/// `HZ` (memcontrol.rs: Debian's `CONFIG_HZ_250`, the host's too): balance_dirty_pages()
/// computes in jiffies.
pub const HZ: u64 = crate::memcontrol::HZ;
/// Nanoseconds per jiffy.
pub const NSEC_PER_JIFFY: Nanos = crate::types::NSEC_PER_SEC / HZ;
/// `MAX_PAUSE` (mm/page-writeback.c, 3.2+): `max(HZ/5, 1)`, 200 ms, the longest single pause.
pub const MAX_PAUSE: u64 = if HZ / 5 > 1 { HZ / 5 } else { 1 };
/// `BANDWIDTH_INTERVAL` (3.1+): `max(HZ/5, 1)`, how often the write bandwidth, the dirty
/// ratelimit and the domains' dirty limits are re-estimated.
pub const BANDWIDTH_INTERVAL: u64 = if HZ / 5 > 1 { HZ / 5 } else { 1 };
/// `RATELIMIT_CALC_SHIFT` (3.2+): the fixed point of `pos_ratio`.
pub const RATELIMIT_CALC_SHIFT: u32 = 10;
/// `DIRTY_POLL_THRESH` (3.2+): `128 >> (PAGE_SHIFT - 10)`, the pages `wb_min_pause()` aims to
/// let a task dirty between two pauses; also `nr_dirtied_pause` of a new task (kernel/fork.c).
pub const DIRTY_POLL_THRESH: u64 = 32;
/// `INIT_BW` (mm/backing-dev.c, 3.1+): `100 << (20 - PAGE_SHIFT)` pages/s, a new wb's write
/// bandwidth and dirty ratelimit (`wb_init()`).
pub const INIT_BW: u64 = 100 << (20 - 12);
/// `WB_BANDWIDTH_IDLE_JIF` (5.14+): a wb idle this long restarts its bandwidth estimate
/// (`wb_bandwidth_estimate_start()`).
pub const WB_BANDWIDTH_IDLE_JIF: u64 = HZ;

/// The flusher's work (`wb_workfn()`'s `wb->work_list` and its periodic `wb_check_*` calls)
/// while blk-wbt holds it (blkdev/wbt.rs) or the device has no free request of its class
/// (`Kernel::flusher_get_request`): the flusher slept in `wbt_wait()` / `get_request()` /
/// `blk_mq_get_tag()` before a request and goes on at `until` with what is left, the pages it has not reached still dirty. Work
/// queued meanwhile (`wb_start_background_writeback()`, `wakeup_flusher_threads()`, the
/// periodic wake-up) waits for it: one flusher, one request at a time.
#[derive(Clone, Debug, Default)]
pub struct FlusherWork {
    /// When the flusher is let through; 0: it is not held.
    pub until: Nanos,
    /// Pages left of `wakeup_flusher_threads()`' work.
    pub wakeup_left: u64,
    /// `WB_start_all` set and its flush not started yet (4.14+: it counts its pages when it
    /// starts, `wb_check_start_all()`); while it runs, `wakeup_left` > 0 keeps the bit.
    pub start_all: bool,
    /// Per writeback domain key, a periodic `wb_check_old_data_flush()` to run.
    pub kupdate: Vec<bool>,
    /// Per writeback domain key, background writeback to run (`wb_check_background_flush()`).
    pub background: Vec<bool>,
    /// The `wb_writeback()` the flusher is in (`wb_do_writeback()` runs one work at a time:
    /// one it slept in goes on first when it is let through).
    pub work: Option<WbWork>,
    /// The inode whose chunk the flusher slept in (`writeback_sb_inodes()` blocked inside
    /// `__writeback_single_inode()`): the inode, its `write_chunk` and the pages written of it.
    pub chunk: Option<(InodeId, u64, u64)>,
    /// The running context is the flusher (its writes wait by stopping, not sleeping).
    pub running: bool,
    /// The write op of the running context's writeback (`wbc_to_write_flags()`).
    pub op: crate::blkdev::WbtOp,
    /// Set when a request of the running flusher is held: when it is let through.
    pub stop: Option<Nanos>,
}

/// Why the flusher writes (`enum wb_reason` of the `wb_writeback_work`), as far as
/// `wb_writeback()` treats works differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WbReason {
    /// `WB_REASON_VMSCAN`: `wakeup_flusher_threads()` of reclaim (4.14+: `wb_check_start_all()`;
    /// before, a work on `wb->work_list`): neither `for_background` nor `for_kupdate`; its
    /// `nr_pages` is [`FlusherWork::wakeup_left`].
    Vmscan,
    /// `WB_REASON_PERIODIC`: `wb_check_old_data_flush()`, `for_kupdate`.
    Periodic,
    /// `WB_REASON_BACKGROUND`: `wb_check_background_flush()`, `for_background`.
    Background,
}

/// One `struct wb_writeback_work` as `wb_writeback()` runs it (fs/fs-writeback.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WbWork {
    /// What asked for it.
    pub reason: WbReason,
    /// The wb key whose inodes it writes (`None`: every wb, as the engine's global-domain
    /// background writeback and reclaim's wake-up do).
    pub key: Option<u32>,
    /// `work->nr_pages` left (`LONG_MAX`: `u64::MAX`); a `Vmscan` work's is
    /// [`FlusherWork::wakeup_left`].
    pub nr_pages: u64,
    /// `jiffies` when `wb_writeback()` started: the `dirtied_before` of a work neither
    /// background nor kupdate.
    pub start: u64,
    /// `jiffies` when the current `writeback_sb_inodes()` pass started (it bails out to
    /// `wb_writeback()` after `HZ / 10` once it wrote something).
    pub slice_start: u64,
}

impl Default for crate::blkdev::WbtOp {
    fn default() -> Self {
        crate::blkdev::WbtOp::Normal
    }
}

/// Set `v[k]`, growing `v` (once per writeback domain).
fn set_key(v: &mut Vec<bool>, k: u32) {
    if v.len() <= k as usize {
        v.resize(k as usize + 1, false);
    }
    v[k as usize] = true;
}

/// `roundup_pow_of_two()`.
fn roundup_pow_of_two(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

/// `ilog2()` (of at least 1).
fn ilog2(x: u64) -> u64 {
    63 - x.max(1).leading_zeros() as u64
}

/// The bandwidth estimates of one wb (`struct bdi_writeback`, 3.1+) and the dirty limit of the
/// writeback domain of the same key (the global `global_wb_domain` for key 0, a memcg's
/// `cgwb_domain` for memcg index + 1), in pages, pages/s and jiffies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WbBandwidth {
    /// `WB_DIRTIED`: pages dirtied (`folio_account_dirtied()`).
    pub dirtied: u64,
    /// `WB_WRITTEN`: pages whose writeback completed (`__wb_writeout_add()`).
    pub written: u64,
    /// `WB_WRITEBACK`: pages under writeback.
    pub writeback: u64,
    /// `bw_time_stamp` (jiffies).
    pub bw_time_stamp: u64,
    /// `dirtied_stamp`.
    pub dirtied_stamp: u64,
    /// `written_stamp`.
    pub written_stamp: u64,
    /// `write_bandwidth` (pages/s).
    pub write_bandwidth: u64,
    /// `avg_write_bandwidth` (pages/s).
    pub avg_write_bandwidth: u64,
    /// `dirty_ratelimit` (pages/s): the base rate of a task dirtying pages of this wb.
    pub dirty_ratelimit: u64,
    /// `balanced_dirty_ratelimit` (pages/s).
    pub balanced_dirty_ratelimit: u64,
    /// `dirty_exceeded`: the wb over its share of a domain over its threshold.
    pub dirty_exceeded: bool,
    /// The wb completed writes in its memcg's domain (`wb->memcg_completions`: its share of
    /// the domain it is the only member of on one bdi: all of it, or nothing yet).
    pub memcg_completed: bool,
    /// `dom->dirty_limit` of the domain of this key.
    pub dom_dirty_limit: u64,
    /// `dom->dirty_limit_tstamp` (jiffies).
    pub dom_dirty_limit_tstamp: u64,
}

impl WbBandwidth {
    /// `wb_init()` (and `wb_domain_init()`) at jiffies `now`.
    pub fn new(now: u64) -> Self {
        WbBandwidth {
            dirtied: 0,
            written: 0,
            writeback: 0,
            bw_time_stamp: now,
            dirtied_stamp: 0,
            written_stamp: 0,
            write_bandwidth: INIT_BW,
            avg_write_bandwidth: INIT_BW,
            dirty_ratelimit: INIT_BW,
            balanced_dirty_ratelimit: INIT_BW,
            dirty_exceeded: false,
            memcg_completed: false,
            dom_dirty_limit: 0,
            dom_dirty_limit_tstamp: now,
        }
    }
}

/// A task's dirty throttling state (`current->nr_dirtied`, `nr_dirtied_pause`,
/// `dirty_paused_when`) and its CPU's `bdp_ratelimits` (each task has a CPU of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskDirty {
    /// `nr_dirtied`: pages dirtied since the last pause.
    pub nr_dirtied: u64,
    /// `nr_dirtied_pause`: pages to dirty before the next `balance_dirty_pages()`.
    pub nr_dirtied_pause: u64,
    /// `dirty_paused_when` (jiffies; 0: never paused).
    pub dirty_paused_when: u64,
    /// `bdp_ratelimits` of the task's CPU.
    pub bdp_ratelimits: u64,
}

impl Default for TaskDirty {
    /// kernel/fork.c: `nr_dirtied_pause = 128 >> (PAGE_SHIFT - 10)`.
    fn default() -> Self {
        TaskDirty { nr_dirtied: 0, nr_dirtied_pause: DIRTY_POLL_THRESH, dirty_paused_when: 0, bdp_ratelimits: 0 }
    }
}

/// What `trace_balance_dirty_pages()` reported over a run (writeback:balance_dirty_pages):
/// the number of events, of those that slept (`pause > 0`), and the sums of their `pause`,
/// `period` (jiffies), `task_ratelimit` and `dirty_ratelimit` (KB/s, as the tracepoint
/// prints them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BdpTrace {
    /// Events.
    pub events: u64,
    /// Events with a pause (the writer slept).
    pub pauses: u64,
    /// Sum of `pause` over the events that slept (jiffies).
    pub pause: u64,
    /// Sum of `period` over the events that slept (jiffies).
    pub period: u64,
    /// Sum of `task_ratelimit` over the events that slept (KB/s).
    pub task_ratelimit: u64,
    /// Sum of `dirty_ratelimit` over the events that slept (KB/s).
    pub dirty_ratelimit: u64,
}

/// One `writeback:balance_dirty_pages` event with the fields the tracepoint prints
/// (include/trace/events/writeback.h, 3.2+; 6.x names `bdi_setpoint`/`bdi_dirty` `wb_setpoint`/
/// `wb_dirty`), kept in [`Kernel::bdp_log`] when a caller asks for them, to put the engine's
/// calls beside a recording of the kernel's (lab/validation/trace_bdp.py --raw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BdpEvent {
    /// The engine's clock at the call (ns).
    pub time: Nanos,
    /// `limit`: the global domain's `dirty_limit` (pages).
    pub limit: u64,
    /// `setpoint`: `(limit + freerun) / 2`, `freerun` of the throttling domain's thresholds.
    pub setpoint: u64,
    /// `dirty`: the throttling domain's dirty and writeback pages.
    pub dirty: u64,
    /// `wb_setpoint`: `setpoint * wb_thresh / (thresh + 1)`.
    pub wb_setpoint: u64,
    /// `wb_dirty`: the wb's dirty and writeback pages.
    pub wb_dirty: u64,
    /// `dirty_ratelimit` (KB/s).
    pub dirty_ratelimit: u64,
    /// `task_ratelimit` (KB/s).
    pub task_ratelimit: u64,
    /// `dirtied`: the pages the task dirtied since its last pause.
    pub dirtied: u64,
    /// `dirtied_pause`: the task's `nr_dirtied_pause` at the event.
    pub dirtied_pause: u64,
    /// `paused`: ms since the call began.
    pub paused: u64,
    /// `pause` (ms; at most 0 when the task does not sleep).
    pub pause: i64,
    /// `period` (ms).
    pub period: u64,
    /// `think`: ms since `dirty_paused_when` (negative: it is ahead), 0 if never paused.
    pub think: i64,
}

/// `pos_ratio_polynom()` (3.2+): `1 + ((setpoint - dirty) / (limit - setpoint))^3`, fixed
/// point, clamped to `[0, 2]`.
pub fn pos_ratio_polynom(setpoint: u64, dirty: u64, limit: u64) -> u64 {
    let x = ((setpoint as i64 - dirty as i64) << RATELIMIT_CALC_SHIFT) / ((limit - setpoint) | 1) as i64;
    let mut pos_ratio = x;
    pos_ratio = pos_ratio * x >> RATELIMIT_CALC_SHIFT;
    pos_ratio = pos_ratio * x >> RATELIMIT_CALC_SHIFT;
    pos_ratio += 1 << RATELIMIT_CALC_SHIFT;
    pos_ratio.clamp(0, 2 << RATELIMIT_CALC_SHIFT) as u64
}

/// `wb_position_ratio()` (3.2+, without `BDI_CAP_STRICTLIMIT`: no engine file system sets it):
/// the domain's cubic control line around its setpoint, scaled by the wb's linear line around
/// its share of the setpoint (`wb_setpoint`, over a span of 8 times the write bandwidth), and
/// the wb reserve area below half its threshold. `bump_wb_thresh`: the wb's threshold is
/// raised to 1/8 of the room left under the limit here (3.2-6.13; 6.14 moved the floor into
/// `__wb_calc_thresh()`, `KernelProfile::wb_thresh_floor`). Returns `pos_ratio`.
pub fn wb_position_ratio(dtc: &DirtyThrottleControl, write_bw: u64, bump_wb_thresh: bool) -> u64 {
    let limit = dtc.limit();
    if dtc.dirty >= limit {
        return 0;
    }
    let setpoint = dtc.setpoint();
    let mut pos_ratio = pos_ratio_polynom(setpoint, dtc.dirty, limit);
    let mut wb_thresh = dtc.wb_thresh.min(dtc.thresh);
    if bump_wb_thresh {
        wb_thresh = wb_thresh.max((limit - dtc.dirty) / 8);
    }
    let x = (wb_thresh << 16) / (dtc.thresh | 1);
    let wb_setpoint = setpoint * x >> 16;
    let span = (dtc.thresh - wb_thresh + 8 * write_bw) * x >> 16;
    let x_intercept = wb_setpoint + span;
    if dtc.wb_dirty < x_intercept - span / 4 {
        pos_ratio = pos_ratio * (x_intercept - dtc.wb_dirty) / ((x_intercept - wb_setpoint) | 1);
    } else {
        pos_ratio /= 4;
    }
    let x_intercept = wb_thresh / 2;
    if dtc.wb_dirty < x_intercept {
        if dtc.wb_dirty > x_intercept / 8 {
            pos_ratio = pos_ratio * x_intercept / dtc.wb_dirty;
        } else {
            pos_ratio *= 8;
        }
    }
    pos_ratio
}

/// `wb_update_write_bandwidth()` (3.1+): the bandwidth of the pages written in the last
/// `elapsed` jiffies, averaged over a period of `roundup_pow_of_two(3 * HZ)` with the
/// previous estimate, and `avg_write_bandwidth` moved an eighth toward it when both agree on
/// the direction (filtering out spikes); an estimate older than the period starts over.
pub fn wb_update_write_bandwidth(b: &mut WbBandwidth, elapsed: u64, written: u64) {
    let period = roundup_pow_of_two(3 * HZ);
    let mut avg = b.avg_write_bandwidth;
    let old = b.write_bandwidth;
    let mut bw = (written - written.min(b.written_stamp)) * HZ;
    if elapsed > period {
        bw /= elapsed;
        avg = bw;
    } else {
        bw += old * (period - elapsed);
        bw >>= ilog2(period);
        if avg > old && old >= bw {
            avg -= (avg - old) >> 3;
        }
        if avg < old && old <= bw {
            avg += (old - avg) >> 3;
        }
    }
    b.write_bandwidth = bw;
    b.avg_write_bandwidth = avg.max(1);
}

/// `dirty_poll_interval()` (3.2+): how many pages a task below the free-run ceiling may dirty
/// before it looks again, `2^(ilog2(thresh - dirty) / 2)`.
pub fn dirty_poll_interval(dirty: u64, thresh: u64) -> u64 {
    if thresh > dirty {
        1 << (ilog2(thresh - dirty) >> 1)
    } else {
        1
    }
}

/// `wb_max_pause()` (3.2+): at most `MAX_PAUSE`, less on a small pool of dirty pages
/// (`wb_dirty / (1 + bw / 32)` jiffies, plus one) so that the disk does not go idle.
pub fn wb_max_pause(avg_write_bandwidth: u64, wb_dirty: u64) -> u64 {
    let t = wb_dirty / (1 + avg_write_bandwidth / roundup_pow_of_two(1 + HZ / 8)) + 1;
    t.min(MAX_PAUSE)
}

/// `wb_min_pause()` (3.3+): the shortest pause worth sleeping (about 10 ms for one writer,
/// more for many) and the pages to dirty before the next call (`nr_dirtied_pause`): returns
/// (min_pause, nr_dirtied_pause).
pub fn wb_min_pause(avg_write_bandwidth: u64, wb_dirty_ratelimit: u64, max_pause: u64, task_ratelimit: u64, dirty_ratelimit: u64) -> (u64, u64) {
    let hi = ilog2(avg_write_bandwidth) as i64;
    let lo = ilog2(wb_dirty_ratelimit) as i64;
    let mut t = (HZ / 100).max(1) as i64;
    if hi > lo {
        t += (hi - lo) * (10 * HZ as i64) / 1024;
    }
    t = t.min(1 + max_pause as i64 / 2);
    let hz2 = roundup_pow_of_two(HZ) as i64;
    let mut pages = dirty_ratelimit as i64 * t / hz2;
    if pages < DIRTY_POLL_THRESH as i64 {
        t = max_pause as i64;
        pages = dirty_ratelimit as i64 * t / hz2;
        if pages > DIRTY_POLL_THRESH as i64 {
            pages = DIRTY_POLL_THRESH as i64;
            t = HZ as i64 * DIRTY_POLL_THRESH as i64 / dirty_ratelimit as i64;
        }
    }
    let pause = HZ as i64 * pages / (task_ratelimit as i64 + 1);
    if pause > max_pause as i64 {
        t = max_pause as i64;
        pages = task_ratelimit as i64 * t / hz2;
    }
    let min_pause = if pages >= DIRTY_POLL_THRESH as i64 { 1 + t / 2 } else { t };
    (min_pause as u64, pages.max(0) as u64)
}

/// The inodes with dirty pages, oldest first (the bdi's `b_dirty` list, one for all wbs): a
/// doubly linked list through per-inode links, so that adding, removing and testing an inode
/// cost the same whatever the number of files (a [`WbIoList`] of one key).
#[derive(Clone, Debug, Default)]
pub struct DirtyInodes(WbIoList);

const NIL: u32 = u32::MAX;
const ABSENT: u32 = u32::MAX - 1;

impl DirtyInodes {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Inodes on the list.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No inode on the list.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `inode` is on the list.
    pub fn contains(&self, inode: InodeId) -> bool {
        self.0.contains(inode)
    }

    /// Put `inode` at the tail (`inode_io_list_move_locked(inode, wb, &wb->b_dirty)`), unless
    /// it is on the list.
    pub fn push_back(&mut self, inode: InodeId) {
        self.0.push_back(0, inode)
    }

    /// Take `inode` off the list, if it is on it.
    pub fn remove(&mut self, inode: InodeId) {
        self.0.remove(inode)
    }

    /// The oldest inode.
    pub fn first(&self) -> Option<InodeId> {
        self.0.first(Some(0))
    }

    /// The inode after `inode` (which must be on the list).
    pub fn next(&self, inode: InodeId) -> Option<InodeId> {
        self.0.next(inode)
    }

    /// The newest inode.
    pub fn last(&self) -> Option<InodeId> {
        self.0.ends.first().and_then(|e| (e.1 != NIL).then_some(InodeId(e.1)))
    }

    /// Every inode, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = InodeId> + '_ {
        self.0.iter(Some(0))
    }
}

/// A writeback list of every wb at once, `b_io` or `b_more_io` (fs/fs-writeback.c: one of each
/// per `struct bdi_writeback`): per wb key a FIFO of inodes through per-inode links, so that
/// adding, removing, testing and taking a wb's next inode cost the same whatever the number of
/// files or wbs. An inode is on at most one wb's list (its `inode_to_wb()`).
#[derive(Clone, Debug, Default)]
pub struct WbIoList {
    /// Per inode: (previous, next, wb key), `NIL` at the ends; `ABSENT` off the list.
    links: Vec<(u32, u32, u32)>,
    /// Per wb key: (first, last).
    ends: Vec<(u32, u32)>,
    len: usize,
}

impl WbIoList {
    /// Inodes on the lists of every wb.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No inode on any wb's list.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `inode` is on the list of its wb.
    pub fn contains(&self, inode: InodeId) -> bool {
        self.links.get(inode.idx()).is_some_and(|l| l.0 != ABSENT)
    }

    /// Put `inode` last on wb `key`'s list (taken after every inode already there), unless it
    /// is on it.
    pub fn push_back(&mut self, key: u32, inode: InodeId) {
        if self.contains(inode) {
            return;
        }
        if self.links.len() <= inode.idx() {
            self.links.resize(inode.idx() + 1, (ABSENT, ABSENT, 0));
        }
        if self.ends.len() <= key as usize {
            self.ends.resize(key as usize + 1, (NIL, NIL));
        }
        let tail = self.ends[key as usize].1;
        self.links[inode.idx()] = (tail, NIL, key);
        if tail == NIL {
            self.ends[key as usize].0 = inode.0;
        } else {
            self.links[tail as usize].1 = inode.0;
        }
        self.ends[key as usize].1 = inode.0;
        self.len += 1;
    }

    /// Take `inode` off its wb's list, if it is on it.
    pub fn remove(&mut self, inode: InodeId) {
        if !self.contains(inode) {
            return;
        }
        let (prev, next, key) = self.links[inode.idx()];
        if prev == NIL {
            self.ends[key as usize].0 = next;
        } else {
            self.links[prev as usize].1 = next;
        }
        if next == NIL {
            self.ends[key as usize].1 = prev;
        } else {
            self.links[next as usize].0 = prev;
        }
        self.links[inode.idx()] = (ABSENT, ABSENT, 0);
        self.len -= 1;
    }

    /// The next inode of wb `key` (the first put there), or of the lowest key that has one
    /// (`None`: every wb).
    pub fn first(&self, key: Option<u32>) -> Option<InodeId> {
        let head = match key {
            Some(k) => self.ends.get(k as usize).map_or(NIL, |e| e.0),
            None if self.len == 0 => NIL,
            None => self.ends.iter().map(|e| e.0).find(|&h| h != NIL).unwrap_or(NIL),
        };
        (head != NIL).then_some(InodeId(head))
    }

    /// The inode after `inode` on its wb's list (which it must be on).
    pub fn next(&self, inode: InodeId) -> Option<InodeId> {
        let n = self.links[inode.idx()].1;
        (n != NIL).then_some(InodeId(n))
    }

    /// Every inode of wb `key` (`None`: every wb, by key), first first.
    pub fn iter(&self, key: Option<u32>) -> impl Iterator<Item = InodeId> + '_ {
        let keys = match key {
            Some(k) => k as usize..(k as usize + 1).min(self.ends.len()),
            None => 0..self.ends.len(),
        };
        keys.flat_map(move |k| {
            let head = self.ends[k].0;
            std::iter::successors((head != NIL).then_some(InodeId(head)), move |&i| self.next(i))
        })
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
    /// `wb_thresh`: the writer's wb's share of `thresh` (`wb_dirty_limits()`).
    pub wb_thresh: u64,
    /// `wb_bg_thresh`: `wb_thresh * bg_thresh / thresh`.
    pub wb_bg_thresh: u64,
    /// `wb_dirty`: the wb's dirty plus writeback pages (`WB_RECLAIMABLE + WB_WRITEBACK`).
    pub wb_dirty: u64,
    /// `pos_ratio` of `wb_position_ratio()`, fixed point (`1 << RATELIMIT_CALC_SHIFT` is 1.0).
    pub pos_ratio: u64,
    /// `dom->dirty_limit` of the domain (`hard_dirty_limit()` takes the larger of it and
    /// `thresh`).
    pub dom_dirty_limit: u64,
}

impl DirtyThrottleControl {
    /// `domain_dirty_limits()` with ratios (the byte settings are 0 by default): the ratios are
    /// taken per `PAGE_SIZE` (`vm_dirty_ratio * PAGE_SIZE / 100`) "for higher precision", as
    /// 2.6.37+ does.
    pub fn new(avail: u64, nr_dirty: u64, nr_writeback: u64, ratio: u32, bg_ratio: u32) -> Self {
        Self::with_bytes(avail, nr_dirty, nr_writeback, ratio, bg_ratio, 0, 0, None)
    }

    /// `domain_dirty_limits()`: `vm.dirty_bytes` / `vm.dirty_background_bytes` when set (in
    /// pages, rounded up), else the ratios of `avail`. A memcg domain (`global_avail`: the
    /// global domain's dirtyable pages) cannot take bytes: they become ratios of the global
    /// domain's memory (`DIV_ROUND_UP(bytes, global_avail)` per `PAGE_SIZE`, 4.2+).
    #[allow(clippy::too_many_arguments)]
    pub fn with_bytes(avail: u64, nr_dirty: u64, nr_writeback: u64, ratio: u32, bg_ratio: u32, mut bytes: u64, mut bg_bytes: u64, global_avail: Option<u64>) -> Self {
        let mut ratio = ratio as u64 * PAGE_SIZE / 100;
        let mut bg_ratio = bg_ratio as u64 * PAGE_SIZE / 100;
        if let Some(g) = global_avail {
            let g = g.max(1);
            if bytes > 0 {
                ratio = bytes.div_ceil(g).min(PAGE_SIZE);
            }
            if bg_bytes > 0 {
                bg_ratio = bg_bytes.div_ceil(g).min(PAGE_SIZE);
            }
            bytes = 0;
            bg_bytes = 0;
        }
        let thresh = if bytes > 0 { bytes.div_ceil(PAGE_SIZE) } else { ratio * avail / PAGE_SIZE }.min(u32::MAX as u64);
        let mut bg_thresh = if bg_bytes > 0 { bg_bytes.div_ceil(PAGE_SIZE) } else { bg_ratio * avail / PAGE_SIZE };
        if bg_thresh >= thresh {
            bg_thresh = thresh / 2;
        }
        DirtyThrottleControl { avail, nr_dirty, dirty: nr_dirty + nr_writeback, thresh, bg_thresh, ..Default::default() }
    }

    /// `dirty_freerun_ceiling()`: below it a writer is not throttled at all.
    pub fn freerun(&self) -> u64 {
        dirty_freerun_ceiling(self.thresh, self.bg_thresh)
    }

    /// `hard_dirty_limit()`: the larger of `thresh` and the domain's `dirty_limit`, which
    /// follows `thresh` down slowly (`update_dirty_limit()`).
    pub fn limit(&self) -> u64 {
        self.thresh.max(self.dom_dirty_limit)
    }

    /// The setpoint of `wb_position_ratio()`: `(freerun + limit) / 2`, where the writer's
    /// rate equals the write bandwidth.
    pub fn setpoint(&self) -> u64 {
        (self.freerun() + self.limit()) / 2
    }
}

/// `dirty_freerun_ceiling()` (mm/page-writeback.c, 3.2+): `(thresh + bg_thresh) / 2`.
pub fn dirty_freerun_ceiling(thresh: u64, bg_thresh: u64) -> u64 {
    (thresh + bg_thresh) / 2
}

impl Kernel {
    /// `folio_mark_dirty()`: set `PG_dirty` on the folio holding `page`, account its pages, and
    /// queue the inode for writeback.
    pub fn folio_mark_dirty(&mut self, page: PageId) {
        self.folio_mark_dirty_paid(page, true)
    }

    /// [`Kernel::folio_mark_dirty`] whose CPU time is paid here (`pay`), or not: a new folio of
    /// a 6.18 large-folio write, whose cost is in `write_large_folio_page`
    /// ([`Kernel::generic_perform_write`]). A large folio is dirtied whole, its flag on the
    /// head, and counted in pages (`folio_account_dirtied()`: `NR_FILE_DIRTY`, the memcg's
    /// `file_dirty`, `WB_RECLAIMABLE`, `WB_DIRTIED`, `current->nr_dirtied` and
    /// `task_io_account_write()` each by `folio_nr_pages()`).
    pub(crate) fn folio_mark_dirty_paid(&mut self, page: PageId, pay: bool) {
        let page = self.pages.page_folio(page);
        if self.pages[page].test(pg::DIRTY) {
            return;
        }
        if pay {
            self.cpu(self.cost.dirty_page);
        }
        let nr = self.pages.folio_nr_pages(page);
        self.pages[page].flags |= pg::DIRTY;
        // folio_account_dirtied(): /proc/<pid>/io write_bytes counts the task that dirties a
        // folio (task_io_account_write(nr * PAGE_SIZE)), whoever writes it back later.
        self.io.write_bytes += nr * PAGE_SIZE;
        let inode = self.pages[page].mapping;
        let index = self.pages[page].index;
        let now = self.now;
        let m = &mut self.mappings[inode.idx()];
        m.dirty_hint = m.dirty_hint.min(index);
        let was_clean = m.nrdirty == 0;
        if was_clean {
            // __mark_inode_dirty(): dirtied_when is set when the inode becomes dirty, and it
            // goes to b_dirty as its newest (a clean inode is on no writeback list).
            m.dirtied_when = now;
            self.dirty_inodes.remove(inode);
            self.dirty_inodes.push_back(inode);
            self.b_io.remove(inode);
            self.b_more_io.remove(inode);
        }
        m.nrdirty += nr;
        self.vmstat.nr_dirty += nr;
        let memcg = self.pages[page].memcg;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty += nr;
            self.memcgs.wb_updated(memcg);
        }
        self.inode_attach_wb(inode, memcg);
        let key = self.inode_wb_key(inode);
        if self.wb_dirty.len() <= key as usize {
            self.wb_dirty.resize(key as usize + 1, 0);
        }
        self.wb_dirty[key as usize] += nr;
        // folio_account_dirtied(): WB_DIRTIED, current->nr_dirtied and the CPU's
        // bdp_ratelimits.
        self.wb_bw_mut(key).dirtied += nr;
        self.task_dirty.nr_dirtied += nr;
        self.task_dirty.bdp_ratelimits += nr;
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

    /// Whether the flusher has work to go on with before `t`: held by blk-wbt or for a request
    /// until then ([`FlusherWork::until`]), or a periodic wake-up due (`wb->dwork`). The flusher
    /// is a kernel thread that runs while a task sleeps ([`Kernel::schedule_until`]: a sleep
    /// past it ends a restartable quantum, so that the scheduler's `advance_clock()` runs it
    /// before the task goes on).
    #[inline]
    pub fn flusher_due_before(&self, t: Nanos) -> bool {
        (self.flusher.until != 0 && self.flusher.until < t) || self.wb_timers.peek().is_some_and(|r| r.0 .0 < t)
    }

    /// Run every periodic flusher wake-up due by `until`, in time order, each at its own time
    /// (`wb_workfn()` of a wb whose delayed work expired): `wb_check_old_data_flush()`, then
    /// `wb_check_background_flush()`, then re-queue itself while the wb has dirty inodes. The
    /// clock is left at the last wake-up run (callers set it to `until` after).
    pub fn wb_run_timers(&mut self, until: Nanos) {
        loop {
            let timer = self.wb_timers.peek().map(|r| r.0 .0).filter(|&t| t <= until);
            let resume = Some(self.flusher.until).filter(|&t| t != 0 && t <= until);
            match (timer, resume) {
                (Some(t), r) if r.is_none_or(|r| t < r) => {
                    let std::cmp::Reverse((_, key)) = self.wb_timers.pop().expect("a timer due");
                    self.wb_timer_armed[key as usize] = false;
                    self.now = t;
                    self.writeback_end_io();
                    // wb_workfn(): wb_check_old_data_flush(), then wb_check_background_flush().
                    set_key(&mut self.flusher.kupdate, key);
                    if self.flusher.until == 0 {
                        self.flusher_run();
                    }
                }
                (_, Some(r)) => {
                    // wbt_done() woke the flusher: it goes on with its work.
                    self.now = r;
                    self.flusher.until = 0;
                    self.writeback_end_io();
                    self.flusher_run();
                }
                _ => break,
            }
        }
    }

    /// The flusher runs its work (`wb_do_writeback()`): the `wb_writeback()` it slept in
    /// first, then reclaim's pages (`wakeup_flusher_threads()`: the works queued before 4.14,
    /// `wb_check_start_all()` from 4.14), then the periodic `wb_check_old_data_flush()` of each
    /// wb due (then `wb_check_background_flush()`, and the timer re-armed while the wb has
    /// dirty inodes), then background writeback of each wb asked, one work at a time, until
    /// done or until blk-wbt holds one of its requests ([`FlusherWork`]): then the rest waits
    /// for `until`. A wake-up while the flusher runs adds to what it looks at next.
    pub fn flusher_run(&mut self) {
        if self.flusher.until != 0 || self.flusher.running {
            return;
        }
        self.flusher.running = true;
        let op = self.flusher.op;
        loop {
            if self.flusher.work.is_none() {
                match self.wb_next_work() {
                    Some(w) => self.flusher.work = Some(w),
                    None => break,
                }
            }
            if self.wb_writeback() {
                break;
            }
            let w = self.flusher.work.take().expect("the flusher's work");
            self.wb_work_done(w);
        }
        if let Some(t) = self.flusher.stop.take() {
            self.flusher.until = t;
        }
        self.flusher.running = false;
        self.flusher.op = op;
    }

    /// `wb_do_writeback()`'s next work: the works on `wb->work_list` (before 4.14 reclaim's
    /// wake-ups, [`FlusherWork::wakeup_left`]), `wb_check_start_all()` (4.14+: the full flush
    /// counts the dirty pages as it starts, `get_nr_dirty_pages()`), `wb_check_old_data_flush()`
    /// of a wb whose periodic wake-up came (`nr_pages = get_nr_dirty_pages()`, no work if 0),
    /// `wb_check_background_flush()` of a wb asked. `get_nr_dirty_pages()` is the dirty page
    /// count (the engine has no dirty inode metadata to add).
    fn wb_next_work(&mut self) -> Option<WbWork> {
        let start = self.jiffies();
        let work = |reason, key, nr_pages| WbWork { reason, key, nr_pages, start, slice_start: start };
        if std::mem::take(&mut self.flusher.start_all) {
            self.flusher.wakeup_left = self.vmstat.nr_dirty;
        }
        if self.flusher.wakeup_left > 0 {
            return Some(work(WbReason::Vmscan, None, 0));
        }
        let mut key = 0;
        while key < self.flusher.kupdate.len() {
            if std::mem::take(&mut self.flusher.kupdate[key]) {
                let w = work(WbReason::Periodic, Some(key as u32), self.vmstat.nr_dirty);
                if w.nr_pages > 0 {
                    return Some(w);
                }
                self.wb_work_done(w);
            }
            key += 1;
        }
        let mut key = 0;
        while key < self.flusher.background.len() {
            if std::mem::take(&mut self.flusher.background[key]) {
                return Some(work(WbReason::Background, (key != 0).then_some(key as u32), u64::MAX));
            }
            key += 1;
        }
        None
    }

    /// After a work: reclaim's pages are done; the periodic flush is followed by
    /// `wb_check_background_flush()` and `wb_workfn()` re-arms the wb's timer while it has
    /// dirty inodes (`wb_has_dirty_io()`: `wb_wakeup_delayed()`).
    fn wb_work_done(&mut self, w: WbWork) {
        match w.reason {
            WbReason::Vmscan => self.flusher.wakeup_left = 0,
            WbReason::Periodic => {
                let key = w.key.unwrap_or(0);
                set_key(&mut self.flusher.background, key);
                let mut cur = self.dirty_inodes.first();
                while let Some(inode) = cur {
                    cur = self.dirty_inodes.next(inode);
                    if self.mappings[inode.idx()].nrdirty > 0 && self.inode_wb_key(inode) == key {
                        self.wb_wakeup_delayed(key);
                        break;
                    }
                }
            }
            WbReason::Background => {}
        }
    }

    /// `wb_writeback()` (fs/fs-writeback.c, as 6.1 has it; the same since 3.2) of the
    /// flusher's work: until `work->nr_pages` is used up; a background or kupdate work stops
    /// when other work is queued (`!list_empty(&wb->work_list)`: before 4.14 reclaim's
    /// wake-ups; the background work is asked again, as `wb_check_background_flush()` restarts
    /// it after them), a background work once `wb_over_bg_thresh()` is false; each pass takes
    /// the inodes `queue_io()` put on `b_io` when it was empty, with `dirtied_before` the
    /// work's start, now for background, and `now - dirty_expire_interval` for kupdate (a
    /// moving target, 3.1+), and the loop goes on while a pass made progress. Returns whether
    /// blk-wbt or a request held the flusher (the work stays current).
    fn wb_writeback(&mut self) -> bool {
        use crate::blkdev::WbtOp;
        let mut w = self.flusher.work.expect("the flusher's work");
        self.flusher.op = if w.reason == WbReason::Vmscan { WbtOp::Normal } else { WbtOp::Background };
        let held = loop {
            if self.flusher.chunk.is_none() {
                let nr_pages = if w.reason == WbReason::Vmscan { self.flusher.wakeup_left } else { w.nr_pages };
                if nr_pages == 0 {
                    break false;
                }
                if w.reason != WbReason::Vmscan && !self.profile.wb_start_all && self.flusher.wakeup_left > 0 {
                    if w.reason == WbReason::Background {
                        set_key(&mut self.flusher.background, w.key.unwrap_or(0));
                    }
                    break false;
                }
                if w.reason == WbReason::Background && !self.wb_over_bg_thresh(w.key.map(|k| MemcgId(k - 1))) {
                    break false;
                }
                let now = self.jiffies();
                // jiffies are compared as time_after() does: before boot + 30 s the kupdate
                // cutoff lies before every dirtying.
                let dirtied_before = match w.reason {
                    WbReason::Periodic => now as i64 - (DIRTY_EXPIRE_INTERVAL / NSEC_PER_JIFFY) as i64,
                    WbReason::Background => now as i64,
                    WbReason::Vmscan => w.start as i64,
                };
                if self.b_io.first(w.key).is_none() {
                    self.queue_io(w.key, dirtied_before, w.reason != WbReason::Periodic);
                }
                w.slice_start = now;
            }
            let (progress, held) = self.writeback_sb_inodes(&mut w);
            if held {
                break true;
            }
            if progress == 0 {
                // No more inodes for I/O (nothing but the flusher holds an inode's I_SYNC in
                // the engine: b_more_io is empty after a pass without progress).
                break false;
            }
        };
        self.flusher.work = Some(w);
        held
    }

    /// Whether a request of the running flusher is held by blk-wbt or waits for a request
    /// (it stops there).
    #[inline(always)]
    fn flusher_held(&self) -> bool {
        self.flusher.stop.is_some()
    }

    /// `queue_io()`: splice wb `key`'s `b_more_io` into its `b_io` (`None`: every wb's), then
    /// move the inodes of `b_dirty` dirtied at or before `dirtied_before` (jiffies;
    /// `move_expired_inodes()`, `inode_dirtied_after()`), oldest first; `b_io` is taken in
    /// that order. `b_dirty` is every dirty inode not on `b_io` or `b_more_io`.
    ///
    /// Not modelled: the splice for the periodic work (`splice_more_io` false). 6.1 (and every
    /// era here: `list_splice_init(&wb->b_more_io, &wb->b_io)` is unconditional since 2.6.32)
    /// splices for every work, so a kupdate work also writes the young inode a background work
    /// left on `b_more_io`. Tried (flush23, with the work's `nr_pages` bound): it leaves
    /// qemu61-throttle-writeback-v1 at 16 WRITEBACK sleeps (the inode is clean after each
    /// reclaim flush there, so on no list) and makes qemu61-wbt-reader's write step end with 8
    /// MB under writeback and 54 MB dirty against the boots' 23-37 and 19-30 MB: its 5 s
    /// periodic work queues 25 MB onto 38 MB in flight, past blk-wbt's `wb_background`, and the
    /// flusher waits for the queue to drain (`wbt_rqw_done()` with a write cache) for 3.5 s.
    fn queue_io(&mut self, key: Option<u32>, dirtied_before: i64, splice_more_io: bool) {
        while let Some(inode) = self.b_more_io.first(key).filter(|_| splice_more_io) {
            self.b_more_io.remove(inode);
            let k = self.inode_wb_key(inode);
            self.b_io.push_back(k, inode);
        }
        let mut cur = self.dirty_inodes.first();
        while let Some(inode) = cur {
            cur = self.dirty_inodes.next(inode);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.remove(inode);
                continue;
            }
            let k = self.inode_wb_key(inode);
            if key.is_some_and(|key| key != k) || self.b_io.contains(inode) || self.b_more_io.contains(inode) {
                continue;
            }
            if (self.mappings[inode.idx()].dirtied_when / NSEC_PER_JIFFY) as i64 > dirtied_before {
                continue;
            }
            self.b_io.push_back(k, inode);
        }
    }

    /// `writeback_sb_inodes()` (one superblock: `__writeback_inodes_wb()` is the same pass):
    /// take `b_io`'s inodes of the work's wbs in turn, write `writeback_chunk_size()` pages of
    /// each (at most the work's `nr_pages` left, rounded up to `MIN_WRITEBACK_PAGES`), and
    /// requeue it (`requeue_inode()`: off the lists when clean, on `b_more_io` when its chunk
    /// was used up with pages left, back on `b_dirty` otherwise); bail out once something was
    /// written and `HZ / 10` has passed since the pass started or `nr_pages` is used up. A
    /// chunk the flusher slept in ([`FlusherWork::chunk`]) is finished first. Returns (pages
    /// written and inodes cleaned, whether the flusher was held).
    fn writeback_sb_inodes(&mut self, w: &mut WbWork) -> (u64, bool) {
        let bw = self.devices.iter().map(|d| d.write_bw).max().unwrap_or(1);
        let mut wrote = 0;
        loop {
            let nr_pages = if w.reason == WbReason::Vmscan { self.flusher.wakeup_left } else { w.nr_pages };
            let (inode, write_chunk, done) = match self.flusher.chunk.take() {
                Some(c) => c,
                None => {
                    let Some(inode) = self.b_io.first(w.key) else { break };
                    self.b_io.remove(inode);
                    (inode, self.writeback_chunk_size_nr(bw, nr_pages), 0)
                }
            };
            let (n, _) = self.writeback_inode(inode, write_chunk.saturating_sub(done));
            let nr_pages = nr_pages.saturating_sub(n);
            if w.reason == WbReason::Vmscan {
                // Held, a work keeps at least a page to go on with.
                self.flusher.wakeup_left = if self.flusher_held() { nr_pages.max(1) } else { nr_pages };
            } else {
                w.nr_pages = nr_pages;
            }
            // The chunk's pages count for the pass, those before a sleep in it too (the
            // kernel's pass went on inside __writeback_single_inode()).
            wrote += done + n;
            if self.flusher_held() {
                self.flusher.chunk = Some((inode, write_chunk, done + n));
                return (wrote, true);
            }
            // requeue_inode()
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.remove(inode);
                wrote += 1;
            } else if done + n >= write_chunk {
                let k = self.inode_wb_key(inode);
                self.b_more_io.push_back(k, inode);
            } else {
                self.redirty_tail(inode);
            }
            if wrote > 0 && (self.jiffies() > w.slice_start + HZ / 10 || nr_pages == 0) {
                break;
            }
        }
        (wrote, false)
    }

    /// `redirty_tail_locked()`: the inode goes back to `b_dirty` as its newest, its
    /// `dirtied_when` set to now if it is older than the newest one's there.
    fn redirty_tail(&mut self, inode: InodeId) {
        if let Some(newest) = self.dirty_inodes.last().filter(|&i| i != inode) {
            if self.mappings[inode.idx()].dirtied_when < self.mappings[newest.idx()].dirtied_when {
                self.mappings[inode.idx()].dirtied_when = self.now;
            }
        }
        self.dirty_inodes.remove(inode);
        self.dirty_inodes.push_back(inode);
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
        let p = &self.profile;
        DirtyThrottleControl::with_bytes(avail, self.vmstat.nr_dirty, self.vmstat.nr_writeback, p.dirty_ratio, p.dirty_background_ratio, p.dirty_bytes, p.dirty_background_bytes, None)
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
            self.congestion_wait(crate::vmscan::RECLAIM_THROTTLE_JIFFIES);
            self.writeback_end_io();
            self.swap_end_io();
            if self.now == before {
                return; // nothing in flight: nothing will complete
            }
        }
    }

    /// `mem_cgroup_wb_stats()`: (file LRU pages, headroom, dirty, writeback) of `memcg`'s
    /// writeback domain; the counts are hierarchical (read in O(1) from the subtree counts
    /// [`crate::memcontrol::Memcg::wb_subtree`], as the kernel reads rstat's), the headroom is
    /// the smallest `min(memory.max, memory.high) - usage` from `memcg` up to, not including,
    /// the root (O(depth)).
    pub fn mem_cgroup_wb_stats(&self, memcg: MemcgId) -> (u64, u64, u64, u64) {
        use crate::memcontrol::{WB_DIRTY, WB_FILE, WB_WRITEBACK};
        let t = &self.memcgs;
        let filepages = t.wb_subtree(memcg, WB_FILE);
        let dirty = t.wb_subtree(memcg, WB_DIRTY);
        let writeback = t.wb_subtree(memcg, WB_WRITEBACK);
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
        let p = &self.profile;
        DirtyThrottleControl::with_bytes(avail, dirty, writeback, p.dirty_ratio, p.dirty_background_ratio, p.dirty_bytes, p.dirty_background_bytes, Some(gdtc.avail))
    }

    /// The clock in jiffies (`jiffies`, counted from the engine's time 0).
    #[inline]
    pub fn jiffies(&self) -> u64 {
        self.now / NSEC_PER_JIFFY
    }

    /// The bandwidth state of wb `key` (`wb_init()` at the current time when it is new).
    pub fn wb_bw_mut(&mut self, key: u32) -> &mut WbBandwidth {
        let k = key as usize;
        if self.wb_bw.len() <= k {
            let now = self.jiffies();
            self.wb_bw.resize(k + 1, WbBandwidth::new(now));
            if k == 0 || self.wb_bw[0].dom_dirty_limit == 0 {
                self.writeback_set_ratelimit();
            }
        }
        &mut self.wb_bw[k]
    }

    /// `writeback_set_ratelimit()` (at boot and when CPUs come up): the global domain's
    /// `dirty_limit` starts at its threshold, and `ratelimit_pages` (how many pages a CPU may
    /// dirty before its task looks at the limits whatever its own `nr_dirtied_pause`) is
    /// `thresh / (CPUs * 32)`, at least 16. The engine takes them at the first dirtying.
    fn writeback_set_ratelimit(&mut self) {
        let thresh = self.global_dirty_limits().thresh;
        self.wb_bw[0].dom_dirty_limit = thresh;
        self.ratelimit_pages = (thresh / (self.nr_cpu_ids.max(1) as u64 * 32)).max(16);
    }

    /// The writeback domain key of `inode` as `balance_dirty_pages_ratelimited()` finds it: the
    /// inode's wb (`inode_to_wb()`) or, before the inode has one, the writer's memcg's
    /// (`wb_get_create_current()`), when it is a writeback domain of its own.
    fn bdp_wb(&self, inode: InodeId, memcg: MemcgId) -> Option<MemcgId> {
        let wb = self.inode_wb.get(inode.idx()).copied().filter(|&m| m != MemcgId::NONE).unwrap_or(memcg);
        self.memcg_wb_domain(wb)
    }

    /// `balance_dirty_pages_ratelimited()` (3.2+), called for each page a `write()` copies
    /// (`generic_perform_write()`) and each shared page a fault dirties
    /// (`fault_dirty_shared_page()`): the task enters `balance_dirty_pages()` once it has
    /// dirtied `nr_dirtied_pause` pages (8 while its wb is `dirty_exceeded`), or once its CPU
    /// has dirtied `ratelimit_pages` since it last looked. The leaks of exited tasks
    /// (`dirty_throttle_leaks`) are not modelled.
    pub fn balance_dirty_pages_ratelimited(&mut self, inode: InodeId, memcg: MemcgId) {
        let wb = self.bdp_wb(inode, memcg);
        let key = wb.map_or(0, |m| m.0 + 1);
        let exceeded = self.wb_bw_mut(key).dirty_exceeded;
        let mut ratelimit = self.task_dirty.nr_dirtied_pause;
        if exceeded {
            ratelimit = ratelimit.min(32 >> (crate::types::PAGE_SHIFT - 10));
        }
        let t = &mut self.task_dirty;
        if t.nr_dirtied >= ratelimit {
            t.bdp_ratelimits = 0;
        } else if t.bdp_ratelimits >= self.ratelimit_pages {
            t.bdp_ratelimits = 0;
            ratelimit = 0;
        }
        if t.nr_dirtied >= ratelimit {
            let pages = t.nr_dirtied;
            self.balance_dirty_pages(wb, pages);
        }
    }

    /// `wb_dirty_limits()` (3.2+): the wb's share of `dtc`'s threshold (`__wb_calc_thresh()`:
    /// for the global domain its part of the recent completions, for a memcg domain all of it
    /// once the wb completed a write there, being its only member), the share of the background
    /// threshold, and the wb's dirty and writeback pages.
    fn wb_dirty_limits(&self, dtc: &mut DirtyThrottleControl, key: u32, memcg_domain: bool) {
        let b = self.wb_bw.get(key as usize).copied().unwrap_or(WbBandwidth::new(0));
        dtc.wb_thresh = if memcg_domain {
            let mut t = if b.memcg_completed { dtc.thresh } else { 0 };
            if self.profile.wb_thresh_floor && dtc.thresh > dtc.dirty {
                t = t.max((dtc.thresh - dtc.dirty) / 8);
            }
            t
        } else {
            self.wb_calc_thresh(key, dtc.thresh, dtc.dirty)
        };
        dtc.wb_bg_thresh = if dtc.thresh > 0 { dtc.wb_thresh * dtc.bg_thresh / dtc.thresh } else { 0 };
        dtc.wb_dirty = self.wb_dirty.get(key as usize).copied().unwrap_or(0) + b.writeback;
    }

    /// `balance_dirty_pages()` (3.2+'s IO-less dirty throttling) of a task that dirtied
    /// `pages_dirtied` pages of wb `wb` (`None`: the bdi's root wb), against the global domain
    /// and, on cgroup v2 from 4.2, the wb's memcg domain. Below both free-run ceilings
    /// (`dirty_freerun_ceiling()`) the task runs on and looks again after
    /// `dirty_poll_interval()` pages. Above, background writeback is started and the task
    /// sleeps the pause the kernel computes: `pos_ratio` of each domain (`wb_position_ratio()`;
    /// the smaller one throttles), `task_ratelimit = dirty_ratelimit * pos_ratio`,
    /// `period = HZ * pages_dirtied / task_ratelimit`, less the time since its last pause
    /// (`dirty_paused_when`: think time), skipped below `wb_min_pause()` and cut to
    /// `wb_max_pause()`; at or over the hard limit (`pos_ratio` 0) it sleeps `max_pause` and
    /// looks again. Every `BANDWIDTH_INTERVAL` the wb's write bandwidth, dirty ratelimit and
    /// the domains' dirty limits are re-estimated (`__wb_update_bandwidth()`). The sleep is
    /// `io_schedule_timeout()`: I/O wait, not a memory stall (PSI's io, which the engine does
    /// not keep), in the task's `stall.dirty`.
    pub fn balance_dirty_pages(&mut self, wb: Option<MemcgId>, pages_dirtied: u64) {
        let key = wb.map_or(0, |m| m.0 + 1);
        self.wb_bw_mut(key);
        let start_time = self.jiffies();
        loop {
            let now = self.jiffies();
            let mut g = self.global_dirty_limits();
            g.dom_dirty_limit = self.wb_bw[0].dom_dirty_limit;
            let mut m = wb.map(|m| {
                let mut md = self.memcg_dirty_limits(m, &g);
                md.dom_dirty_limit = self.wb_bw[key as usize].dom_dirty_limit;
                md
            });
            let freerun = g.dirty <= g.freerun() && m.is_none_or(|md| md.dirty <= md.freerun());
            // wb_start_background_writeback() (writeback_in_progress() is false whenever the
            // task looks: the engine's flusher work does not stay queued). The flusher is
            // woken, and runs while the task goes on: its writes are queued after the task's
            // bandwidth update below, as the kernel's flusher thread does them after the
            // writer's wake-up call returns (do_writepages()'s own bandwidth update then finds
            // the estimate fresh).
            if freerun {
                if g.nr_dirty > g.bg_thresh {
                    self.wb_background_writeback(wb);
                }
                let intv = dirty_poll_interval(g.dirty, g.thresh);
                let m_intv = m.map_or(u64::MAX, |md| dirty_poll_interval(md.dirty, md.thresh));
                let t = &mut self.task_dirty;
                t.dirty_paused_when = now;
                t.nr_dirtied = 0;
                t.nr_dirtied_pause = intv.min(m_intv);
                break;
            }
            self.wb_dirty_limits(&mut g, key, false);
            let bump = !self.profile.wb_thresh_floor;
            let mut dirty_exceeded = g.wb_dirty > g.wb_thresh && g.dirty > g.thresh;
            let bw = self.wb_bw[key as usize];
            g.pos_ratio = wb_position_ratio(&g, bw.avg_write_bandwidth, bump);
            let mut sdtc = g;
            if let Some(md) = m.as_mut() {
                self.wb_dirty_limits(md, key, true);
                dirty_exceeded |= md.wb_dirty > md.wb_thresh && md.dirty > md.thresh;
                md.pos_ratio = wb_position_ratio(md, bw.avg_write_bandwidth, bump);
                if md.pos_ratio < g.pos_ratio {
                    sdtc = *md;
                }
            }
            self.wb_bw[key as usize].dirty_exceeded = dirty_exceeded;
            if self.wb_bw[key as usize].bw_time_stamp + BANDWIDTH_INTERVAL < now {
                self.wb_update_bandwidth_full(key, &g, m.as_ref(), true);
            }
            let bw = self.wb_bw[key as usize];
            let dirty_ratelimit = bw.dirty_ratelimit;
            let task_ratelimit = dirty_ratelimit * sdtc.pos_ratio >> RATELIMIT_CALC_SHIFT;
            let max_pause = wb_max_pause(bw.avg_write_bandwidth, sdtc.wb_dirty);
            let (min_pause, nr_dirtied_pause) = wb_min_pause(bw.avg_write_bandwidth, bw.dirty_ratelimit, max_pause, task_ratelimit, dirty_ratelimit);
            self.wb_background_writeback(wb);
            let mut now = now as i64;
            let (period, pause);
            if task_ratelimit == 0 {
                period = max_pause as i64;
                pause = max_pause as i64;
            } else {
                period = (HZ * pages_dirtied / task_ratelimit) as i64;
                let mut p = period;
                let t = self.task_dirty;
                if t.dirty_paused_when != 0 {
                    p -= now - t.dirty_paused_when as i64;
                }
                if p < min_pause as i64 {
                    // Think time (or a fast pace) covered the period: no sleep.
                    self.bdp_trace.events += 1;
                    self.trace_balance_dirty_pages(&sdtc, dirty_ratelimit, task_ratelimit, pages_dirtied, period as u64, p.min(0), start_time);
                    let t = &mut self.task_dirty;
                    if p < -(HZ as i64) {
                        t.dirty_paused_when = now as u64;
                        t.nr_dirtied = 0;
                    } else if period != 0 {
                        t.dirty_paused_when += period as u64;
                        t.nr_dirtied = 0;
                    } else if t.nr_dirtied_pause <= pages_dirtied {
                        t.nr_dirtied_pause += pages_dirtied;
                    }
                    break;
                }
                if p > max_pause as i64 {
                    now += (p - max_pause as i64).min(max_pause as i64);
                    p = max_pause as i64;
                }
                pause = p;
            }
            let tr = &mut self.bdp_trace;
            tr.events += 1;
            tr.pauses += 1;
            tr.pause += pause as u64;
            tr.period += period as u64;
            // The tracepoint prints the rates in KB/s (`KBps()`).
            tr.task_ratelimit += task_ratelimit * (PAGE_SIZE / 1024);
            tr.dirty_ratelimit += dirty_ratelimit * (PAGE_SIZE / 1024);
            self.trace_balance_dirty_pages(&sdtc, dirty_ratelimit, task_ratelimit, pages_dirtied, period as u64, pause, start_time);
            // io_schedule_timeout(pause): the timer wheel wakes the task at a tick, one after
            // the pause's end from 4.8 (timer.rs); `dirty_paused_when` below still counts from
            // `now + pause`, so the next call finds the extra time as think time.
            let until = crate::timer::schedule_timeout_wake(self.now, pause as u64, self.profile.timer_wheel_round_up);
            if key == 0 || self.profile.wbt_last_bdp_sleep {
                // `wb->dirty_sleep = now` before io_schedule_timeout(): 6.1's blk-wbt
                // wb_recent_wait() looks at the bdi's root wb only; from 6.8 every wb's sleep
                // stamps the bdi's `last_bdp_sleep` (KernelProfile::wbt_last_bdp_sleep).
                self.wb_dirty_sleep = Some(self.now);
                let now = self.now;
                for d in self.devices.iter_mut() {
                    d.wbt.dirty_sleep(now);
                }
            }
            self.stalled(crate::delayacct::StallKind::Dirty, |k| k.wait_until(until));
            self.writeback_end_io();
            let t = &mut self.task_dirty;
            t.dirty_paused_when = (now + pause) as u64;
            t.nr_dirtied = 0;
            t.nr_dirtied_pause = nr_dirtied_pause;
            if task_ratelimit != 0 {
                break;
            }
            // An unresponsive device: give up once the wb has (almost) nothing dirty
            // (`wb_stat_error()`), or nothing will ever complete.
            if sdtc.wb_dirty <= self.wb_stat_error() || self.wb_queue.is_empty() {
                break;
            }
        }
    }

    /// `trace_balance_dirty_pages()` (the `writeback:balance_dirty_pages` tracepoint): appends
    /// the event to [`Kernel::bdp_log`] when it is kept, with the fields as the tracepoint's
    /// `TP_fast_assign` computes them from `sdtc` (the throttling domain), the rates (pages/s),
    /// the pages dirtied, `period` and `pause` (jiffies) and the call's `start_time`.
    #[allow(clippy::too_many_arguments)]
    fn trace_balance_dirty_pages(&mut self, sdtc: &DirtyThrottleControl, dirty_ratelimit: u64, task_ratelimit: u64, dirtied: u64, period: u64, pause: i64, start_time: u64) {
        if self.bdp_log.is_none() {
            return;
        }
        let jiffies = self.jiffies();
        let limit = self.wb_bw[0].dom_dirty_limit;
        let setpoint = (limit + sdtc.freerun()) / 2;
        let t = self.task_dirty;
        let ms = |j: i64| j * 1000 / HZ as i64;
        let ev = BdpEvent {
            time: self.now,
            limit,
            setpoint,
            dirty: sdtc.dirty,
            wb_setpoint: setpoint * sdtc.wb_thresh / (sdtc.thresh + 1),
            wb_dirty: sdtc.wb_dirty,
            dirty_ratelimit: dirty_ratelimit * (PAGE_SIZE / 1024),
            task_ratelimit: task_ratelimit * (PAGE_SIZE / 1024),
            dirtied,
            dirtied_pause: t.nr_dirtied_pause,
            paused: ms((jiffies - start_time) as i64) as u64,
            pause: ms(pause),
            period: ms(period as i64) as u64,
            think: if t.dirty_paused_when == 0 { 0 } else { ms(jiffies as i64 - t.dirty_paused_when as i64) },
        };
        if let Some(log) = self.bdp_log.as_mut() {
            log.push(ev);
        }
    }

    /// `wb_stat_error()`: the per-CPU counters' largest error, `WB_STAT_BATCH * nr_cpu_ids`
    /// (`WB_STAT_BATCH = 8 * (1 + ilog2(nr_cpu_ids))`).
    fn wb_stat_error(&self) -> u64 {
        let cpus = self.nr_cpu_ids.max(1) as u64;
        8 * (1 + ilog2(cpus)) * cpus
    }

    /// `__wb_update_bandwidth()` (3.1+; 5.14+ with the domains and dirty ratelimit only from
    /// `balance_dirty_pages()`): the domains' dirty limits (`domain_update_dirty_limit()`) and
    /// the wb's dirty ratelimit against each domain (`wb_update_dirty_ratelimit()`, the memcg
    /// domain's last) when `update_ratelimit`, then its write bandwidth.
    fn wb_update_bandwidth_full(&mut self, key: u32, g: &DirtyThrottleControl, m: Option<&DirtyThrottleControl>, update_ratelimit: bool) {
        self.writeback_end_io();
        let now = self.jiffies();
        let b = self.wb_bw[key as usize];
        let elapsed = now.saturating_sub(b.bw_time_stamp).max(1);
        let (dirtied, written) = (b.dirtied, b.written);
        if update_ratelimit {
            self.domain_update_dirty_limit(0, g, now);
            self.wb_update_dirty_ratelimit(key, g, dirtied, elapsed);
            if let Some(md) = m {
                self.domain_update_dirty_limit(key, md, now);
                self.wb_update_dirty_ratelimit(key, md, dirtied, elapsed);
            }
        }
        let b = &mut self.wb_bw[key as usize];
        wb_update_write_bandwidth(b, elapsed, written);
        b.dirtied_stamp = dirtied;
        b.written_stamp = written;
        b.bw_time_stamp = now;
    }

    /// `domain_update_dirty_limit()` / `update_dirty_limit()` (3.2+): once per
    /// `BANDWIDTH_INTERVAL`, the domain's `dirty_limit` follows its threshold up at once and
    /// down by 1/32 of the distance to the larger of the threshold and the dirty pages.
    fn domain_update_dirty_limit(&mut self, dom: u32, dtc: &DirtyThrottleControl, now: u64) {
        let b = &mut self.wb_bw[dom as usize];
        if now < b.dom_dirty_limit_tstamp + BANDWIDTH_INTERVAL {
            return;
        }
        let mut limit = b.dom_dirty_limit;
        if limit < dtc.thresh {
            limit = dtc.thresh;
        } else {
            let thresh = dtc.thresh.max(dtc.dirty);
            if limit > thresh {
                limit -= (limit - thresh) >> 5;
            }
        }
        b.dom_dirty_limit = limit;
        b.dom_dirty_limit_tstamp = now;
    }

    /// `wb_update_dirty_ratelimit()` (3.2+): the wb's `dirty_ratelimit` steps toward
    /// `balanced_dirty_ratelimit = task_ratelimit * write_bw / dirty_rate` (the rate at which
    /// N writers together dirty at the write bandwidth), only when the position error points the
    /// same way, by an eighth of the distance shrunk as it closes in.
    fn wb_update_dirty_ratelimit(&mut self, key: u32, dtc: &DirtyThrottleControl, dirtied: u64, elapsed: u64) {
        let b = &mut self.wb_bw[key as usize];
        let dirty = dtc.dirty;
        let setpoint = dtc.setpoint();
        let write_bw = b.avg_write_bandwidth;
        let mut dirty_ratelimit = b.dirty_ratelimit;
        let dirty_rate = dirtied.saturating_sub(b.dirtied_stamp) * HZ / elapsed;
        let task_ratelimit = (dirty_ratelimit * dtc.pos_ratio >> RATELIMIT_CALC_SHIFT) + 1;
        let balanced_dirty_ratelimit = (task_ratelimit * write_bw / (dirty_rate | 1)).min(write_bw);
        let mut step = 0;
        if dirty < setpoint {
            let x = b.balanced_dirty_ratelimit.min(balanced_dirty_ratelimit).min(task_ratelimit);
            if dirty_ratelimit < x {
                step = x - dirty_ratelimit;
            }
        } else {
            let x = b.balanced_dirty_ratelimit.max(balanced_dirty_ratelimit).max(task_ratelimit);
            if dirty_ratelimit > x {
                step = dirty_ratelimit - x;
            }
        }
        let shift = dirty_ratelimit / (2 * step + 1);
        step = if shift < 64 { (step >> shift).div_ceil(8) } else { 0 };
        if dirty_ratelimit < balanced_dirty_ratelimit {
            dirty_ratelimit += step;
        } else {
            dirty_ratelimit -= step.min(dirty_ratelimit);
        }
        b.dirty_ratelimit = dirty_ratelimit.max(1);
        b.balanced_dirty_ratelimit = balanced_dirty_ratelimit;
    }

    /// `wb_bandwidth_estimate_start()` (5.14+) at the start of `do_writepages()`: a wb idle for
    /// more than `WB_BANDWIDTH_IDLE_JIF` with nothing under writeback starts its estimate
    /// afresh, so the idle time does not count as slow writing.
    fn wb_bandwidth_estimate_start(&mut self, key: u32) {
        let now = self.jiffies();
        let b = self.wb_bw_mut(key);
        if now.saturating_sub(b.bw_time_stamp) > WB_BANDWIDTH_IDLE_JIF && b.writeback == 0 {
            b.dirtied_stamp = b.dirtied;
            b.written_stamp = b.written;
            b.bw_time_stamp = now;
        }
    }

    /// The end of `do_writepages()` (5.14+): `wb_update_bandwidth()` (the write bandwidth
    /// alone) when the last estimate is over `BANDWIDTH_INTERVAL` old.
    fn wb_update_bandwidth(&mut self, key: u32) {
        let now = self.jiffies();
        if self.wb_bw_mut(key).bw_time_stamp + BANDWIDTH_INTERVAL < now {
            let g = DirtyThrottleControl::default();
            self.wb_update_bandwidth_full(key, &g, None, false);
        }
    }

    /// The write bandwidth estimate of wb `key` in bytes/s (`wb->avg_write_bandwidth`), for the
    /// flusher's chunk size (`writeback_chunk_size()`).
    pub fn wb_avg_write_bandwidth(&self, key: u32) -> u64 {
        self.wb_bw.get(key as usize).map_or(INIT_BW, |b| b.avg_write_bandwidth) * PAGE_SIZE
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

    /// `__wb_writeout_add()` of the root wb (`wb_domain_writeout_add()` on the global domain,
    /// with `writeout_period()` halving it every `VM_COMPLETIONS_PERIOD_LEN` from the first
    /// completion) for writes that completed before the run: `writes` are (pages, write
    /// bandwidth in bytes/s, time from the write's last completion to the run's start), in the
    /// order they were made; each one's completions spread evenly over its transfer time at
    /// that bandwidth, ending then (a write that would overlap the one before starts when it
    /// ended). Between them and after the last, the period timer goes on ageing the domain
    /// (`writeout_period()`: `fprop_new_period()`), and stops once aging leaves at most one
    /// event; the next completion starts it again (`wb_domain_writeout_add()`:
    /// `wp_next_time()`).
    /// `Simulation::new` calls it only for a scenario a real-kernel runner records
    /// (`[validation] on = "host"` or `"qemu"`, [`crate::Scenario::runner_setup`]): a user's
    /// declared files were written at some unknown time before, their completions aged away
    /// (`writeout_period()` halves them every 3 s), and the domain starts empty. The
    /// real-kernel runners write and fsync() every declared file before the tasks start
    /// (qemu.py / memtwin_guest.c setup, real.py `_populate()`), from the root cgroup, so
    /// through the bdi's root wb: those completions are in the global domain's
    /// `completions` when the run starts, and a new memcg wb's share of the thresholds
    /// (`__wb_calc_thresh()`'s `fprop_fraction_percpu()`) starts from 0 against them and
    /// grows as they age (6.1 QEMU guest trace, 2026-11-30: `balance_dirty_pages`' bdi_setpoint
    /// / setpoint, the writer's wb share, 0 at its first call, 0.22 after 0.8 s, 0.46 after
    /// 1.8 s, 0.73 after 3.3 s, 0.93 after 8.4 s, after the setup's 20480 pages written from
    /// 7 s before the run). When the recording timed them ([`crate::Scenario::setup_writes`],
    /// the QEMU runner since wbt23: each declared file's fsync() and its 16 MiB calibration
    /// file's, against the tasks' start), those are the writes and their ends: the
    /// calibrations between the setup and the tasks took 1.4 s at host load 4 and 7.6 s at
    /// load 14 in two traced boots, time over which the setup's completions age. Otherwise
    /// the declared disk files, back to back, ending as the run starts. Not modelled: the host
    /// runner's setup bandwidth (real.py writes the files, `_populate()`, before it puts
    /// blk-throttle's rules on the loop device, `_throttle()`, so its setup runs at the
    /// unthrottled device's speed, not at the scenario's `write_bw` used here; the host is
    /// cgroup v1, where every write goes through the root wb, whose share of the domain is all
    /// of it either way: only the timing of `writeout_period()` differs); the host's other
    /// disks' completions in the same global domain.
    pub fn wb_setup_writeout(&mut self, writes: &[(u64, u64, Nanos)]) {
        let nsec = crate::types::NSEC_PER_SEC as u128;
        let durations: Vec<u128> = writes.iter().map(|&(pages, bw, _)| (pages as u128 * PAGE_SIZE as u128 * nsec).div_ceil(bw.max(1) as u128)).collect();
        if durations.iter().sum::<u128>() == 0 || writes.iter().all(|w| w.0 == 0) {
            return;
        }
        // Times are ns from the first write's start; the run starts at `run`.
        let run: u128 = writes.iter().zip(&durations).map(|(w, &d)| w.2 as u128 + d).max().unwrap_or(0);
        let mut g = self.wb_domain.0;
        if self.wb_completions.is_empty() {
            self.wb_completions.push(Default::default());
        }
        let mut local = self.wb_completions[0];
        let period = VM_COMPLETIONS_PERIOD_LEN as u128;
        // u128::MAX: the period timer is not running.
        let mut next_period = u128::MAX;
        let mut prev_end = 0u128;
        for (&(pages, _, ended), &d) in writes.iter().zip(&durations) {
            let end = (run - ended as u128).max(prev_end);
            let start = end.saturating_sub(d).max(prev_end);
            let d = end - start;
            // writeout_period() at each boundary before the write: ageing with no new events.
            while next_period <= start {
                next_period = if g.new_period(1) { next_period + period } else { u128::MAX };
            }
            if pages > 0 && next_period == u128::MAX {
                // The first completion starts the timer (wp_next_time()).
                next_period = start + period;
            }
            let mut done = 0u64;
            // The write's completions up to each period boundary inside it, then the rest.
            loop {
                let until = next_period.min(end);
                let upto = if d == 0 { pages } else { ((until - start) * pages as u128 / d) as u64 };
                if upto > done {
                    g.add(&mut local, upto - done);
                    done = upto;
                }
                if next_period > end {
                    break;
                }
                next_period = if g.new_period(1) { next_period + period } else { u128::MAX };
            }
            prev_end = end;
        }
        while next_period <= run {
            next_period = if g.new_period(1) { next_period + period } else { u128::MAX };
        }
        self.wb_completions[0] = local;
        let period_time = if next_period == u128::MAX { 0 } else { (next_period - run) as Nanos };
        self.wb_domain = (g, period_time);
    }

    /// `writeback_chunk_size()` (fs/fs-writeback.c, 3.2+) of a `WB_SYNC_NONE` work whose
    /// `nr_pages` is unbounded (background): see [`Kernel::writeback_chunk_size_nr`].
    pub fn writeback_chunk_size(&self, write_bw_bytes: u64) -> u64 {
        self.writeback_chunk_size_nr(write_bw_bytes, u64::MAX)
    }

    /// `writeback_chunk_size()` (fs/fs-writeback.c, 3.2+) for a `WB_SYNC_NONE` work with
    /// `nr_pages` left: pages written of one inode before the flusher moves on,
    /// `round_down(min(wb->avg_write_bandwidth / 2, dirty_limit / DIRTY_SCOPE, nr_pages) +
    /// MIN_WRITEBACK_PAGES, MIN_WRITEBACK_PAGES)`. `wb->avg_write_bandwidth` is taken as what
    /// `wb_update_write_bandwidth()` converges to, the device's write bandwidth, and
    /// `global_wb_domain.dirty_limit` as the global hard threshold.
    pub fn writeback_chunk_size_nr(&self, write_bw_bytes: u64, nr_pages: u64) -> u64 {
        let bw_pages = write_bw_bytes / PAGE_SIZE;
        let pages = (bw_pages / 2).min(self.global_dirty_limits().thresh / DIRTY_SCOPE).min(nr_pages);
        (pages + MIN_WRITEBACK_PAGES) / MIN_WRITEBACK_PAGES * MIN_WRITEBACK_PAGES
    }

    /// `wb_start_background_writeback()` and the flusher's background work (`wb_writeback()`
    /// with `for_background`): `writeback_chunk_size()` pages of the wb's inodes at a time
    /// (`None`: every inode) for as long as `wb_over_bg_thresh()`, run by the flusher at once
    /// unless blk-wbt holds it ([`Kernel::flusher_run`]).
    pub fn wb_background_writeback(&mut self, wb: Option<MemcgId>) {
        set_key(&mut self.flusher.background, wb.map_or(0, |m| m.0 + 1));
        self.flusher_run();
    }

    /// `folio_end_writeback()` for every write request that has completed by now: the pages
    /// leave `PG_writeback`, and those reclaim or a DONTNEED met while they were dirty or
    /// under writeback (`PG_reclaim`) go to the tail of the inactive list, to be reclaimed next
    /// (`folio_rotate_reclaimable()`, mm/swap.c; v4.12+ also takes them off the active list,
    /// where v4.12+ reclaim puts dirty pages).
    #[inline]
    pub fn writeback_end_io(&mut self) {
        // Called on every allocation: the test for a due completion stays in the caller.
        if self.wb_queue.peek().is_some_and(|r| r.0 .0 <= self.now) {
            self.writeback_end_io_due();
        }
    }

    /// [`Kernel::writeback_end_io`] once a completion is due.
    #[inline(never)]
    fn writeback_end_io_due(&mut self) {
        while let Some(&std::cmp::Reverse((done, inode, start, n))) = self.wb_queue.peek() {
            if done > self.now {
                break;
            }
            self.wb_queue.pop();
            let mut completed = 0;
            for i in start..start + n {
                let Some(p) = self.mappings[inode as usize].lookup(i) else { continue };
                // A large folio ends its writeback whole, with the last request carrying it.
                let p = self.pages.page_folio(p);
                if !self.pages[p].test(pg::WRITEBACK) || self.wb_done[p.idx()] != done {
                    continue; // rewritten since, by a later request
                }
                let nr = self.pages.folio_nr_pages(p);
                self.pages[p].flags &= !pg::WRITEBACK;
                completed += nr;
                self.vmstat.nr_writeback -= nr;
                let memcg = self.pages[p].memcg;
                if memcg != MemcgId::NONE {
                    self.memcgs.memcgs[memcg.idx()].nr_writeback -= nr;
                    self.memcgs.wb_updated(memcg);
                }
                if self.pages[p].test(pg::RECLAIM) && self.pages[p].test(pg::LRU) && !self.pages[p].test(pg::SWAPBACKED) && !self.pages[p].test(pg::DIRTY) {
                    self.folio_rotate_reclaimable(p, crate::mmzone::LruList::InactiveFile);
                }
                self.pages[p].flags &= !pg::RECLAIM;
            }
            if completed > 0 {
                self.wb_ended.push_back((done, completed));
                let key = self.inode_wb_key(InodeId(inode));
                self.wb_writeout_add(key, completed, done);
                // __folio_end_writeback(): WB_WRITEBACK down, WB_WRITTEN up, and the wb's
                // share of its memcg domain's completions (`wb->memcg_completions`).
                let b = self.wb_bw_mut(key);
                b.writeback -= completed;
                b.written += completed;
                b.memcg_completed |= key != 0;
            }
        }
    }

    /// `wakeup_flusher_threads()`: reclaim met dirty pages; start writeback, without
    /// waiting, of every dirty page from 4.12 (`KernelProfile::flusher_wakeup_writes_all`),
    /// of one batch worth of the oldest inodes before.
    /// From 4.14 (`KernelProfile::wb_start_all`) a wake-up while one full flush is pending or
    /// in flight (`WB_start_all` set: the flusher held before it started or inside it) adds
    /// nothing (wb_start_writeback()), and the flush reads the dirty count when it starts
    /// (`wb_check_start_all()`: `get_nr_dirty_pages()`); before, each call queued a work of
    /// its own pages (`__wb_start_writeback()`), which add up while the flusher is held.
    pub fn wakeup_flusher_threads(&mut self) {
        if self.profile.wb_start_all {
            if self.flusher.start_all || self.flusher.wakeup_left > 0 {
                return;
            }
            self.flusher.start_all = true;
        } else {
            let nr = if self.profile.flusher_wakeup_writes_all { self.vmstat.nr_dirty } else { crate::vmscan::SWAP_CLUSTER_MAX * 32 };
            self.flusher.wakeup_left = self.flusher.wakeup_left.saturating_add(nr);
        }
        self.flusher_run();
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
        let key = self.inode_wb_key(inode);
        self.wb_bandwidth_estimate_start(key);
        let r = self.writeback_range_pages(inode, first, last, nr);
        self.wb_update_bandwidth(key);
        r
    }

    /// `write_cache_pages()` of [`Kernel::writeback_range`]: the dirty folios of the range in
    /// index order (`writeback_iter()`), each written whole (a large folio met at any of its
    /// pages from its head, as the tagged lookup returns the folio), contiguous folios one run.
    fn writeback_range_pages(&mut self, inode: InodeId, first: u32, last: u32, nr: u64) -> (u64, u64) {
        let mut written = 0;
        let mut done = 0;
        let extent = self.mappings[inode.idx()].extent.min(u32::MAX as u64) as u32;
        let len = extent.min(last.saturating_add(1));
        let mut run: Option<(u32, u32)> = None;
        // Pages below the dirty hint are clean: the tagged lookup skips them.
        let hint = self.mappings[inode.idx()].dirty_hint;
        let mut i = first.max(hint);
        // With blk-wbt a writer may wait between two requests (`wbt_wait()`): the run is
        // submitted a request (`io_pages`) at a time as it is built, so the folios after a held
        // request are not reached (still dirty). Without it nothing happens in between and the
        // run goes whole (the same requests: submit_write() cuts it at `io_pages`).
        let dev = self.inodes[inode.idx()].dev.map(|d| d.idx());
        // The flusher may also stop for a request of its class (`get_request()` /
        // `blk_mq_get_tag()`, `Kernel::flusher_get_request`): its runs are cut the same way.
        let stops = self.flusher.running;
        let cut = dev.filter(|&d| stops || self.devices[d].wbt_on()).map_or(u32::MAX, |d| self.devices[d].io_pages().min(u32::MAX as u64) as u32);
        // The run's first piece is charged the submission's CPU (one per run, as without a cut).
        let mut charge = true;
        while i <= len && written < nr {
            let dirty_folio = if i < len {
                self.mappings[inode.idx()].lookup(i).map(|p| self.pages.page_folio(p)).filter(|&f| self.pages[f].test(pg::DIRTY))
            } else {
                None
            };
            match (dirty_folio, run) {
                (Some(f), _) => {
                    let (start, n) = (self.pages[f].index, self.pages.folio_nr_pages(f) as u32);
                    if let Some((s, k)) = run.filter(|&(s, k)| s + k == start && k + n > cut) {
                        done = done.max(self.submit_write(inode, s, k, charge));
                        charge = false;
                        run = None;
                        if self.flusher_held() {
                            i = start;
                            break; // the flusher sleeps in wbt_wait(): this folio stays dirty
                        }
                    }
                    self.clear_dirty_for_io(f);
                    self.folio_start_writeback(f);
                    written += n as u64;
                    run = Some(match run {
                        Some((s, k)) if s + k == start => (s, k + n),
                        Some((s, k)) => {
                            done = done.max(self.submit_write(inode, s, k, charge));
                            charge = true;
                            (start, n)
                        }
                        None => (start, n),
                    });
                    i = start + n;
                    if self.flusher_held() {
                        break; // the flusher sleeps in wbt_wait(): the rest stays dirty
                    }
                    continue;
                }
                (None, Some((s, n))) => {
                    done = done.max(self.submit_write(inode, s, n, charge));
                    charge = true;
                    run = None;
                    if self.flusher_held() {
                        i += 1;
                        break;
                    }
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
            done = done.max(self.submit_write(inode, s, n, charge));
        }
        if first <= hint {
            // Everything from the hint up to where the scan stopped is clean now.
            let m = &mut self.mappings[inode.idx()];
            m.dirty_hint = m.dirty_hint.max(i.min(len));
        }
        (written, done)
    }

    /// `folio_start_writeback()`: the folio (flag on its head) is under writeback until the
    /// last request carrying its pages completes; `NR_WRITEBACK`, `WB_WRITEBACK` and the
    /// memcg's `writeback` count its pages.
    fn folio_start_writeback(&mut self, p: PageId) {
        if !self.pages[p].test(pg::WRITEBACK) {
            let nr = self.pages.folio_nr_pages(p);
            self.pages[p].flags |= pg::WRITEBACK;
            self.vmstat.nr_writeback += nr;
            let key = self.inode_wb_key(self.pages[p].mapping);
            self.wb_bw_mut(key).writeback += nr;
            let memcg = self.pages[p].memcg;
            if memcg != MemcgId::NONE {
                self.memcgs.memcgs[memcg.idx()].nr_writeback += nr;
                self.memcgs.wb_updated(memcg);
            }
        }
    }

    /// `folio_clear_dirty_for_io()`: the folio is clean from the moment its write is issued;
    /// the dirty counts lose its pages.
    fn clear_dirty_for_io(&mut self, p: PageId) {
        let nr = self.pages.folio_nr_pages(p);
        self.pages[p].flags &= !pg::DIRTY;
        let inode = self.pages[p].mapping;
        self.mappings[inode.idx()].nrdirty -= nr;
        self.vmstat.nr_dirty -= nr;
        let key = self.inode_wb_key(inode) as usize;
        self.wb_dirty[key] -= nr;
        let memcg = self.pages[p].memcg;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty -= nr;
            self.memcgs.wb_updated(memcg);
        }
    }

    /// `submit_bio()` of a run of `n` pages of `inode` from index `start`, cut into requests of
    /// at most the device's `max_sectors_kb` ([`crate::blkdev::BlockDevice::io_pages`],
    /// `bio_split_rw()`): each request completes on its own, and
    /// its pages end their writeback then (`end_bio` -> `folio_end_writeback()` per bio), so
    /// the first pages of a long run are clean while the rest are still queued. Returns the
    /// completion time of the last request. `charge`: the submission's CPU is spent (the first
    /// piece of a run).
    fn submit_write(&mut self, inode: InodeId, start: u32, n: u32, charge: bool) -> u64 {
        if charge {
            self.cpu(self.cost.submit_io);
        }
        let (dev, base) = (self.inodes[inode.idx()].dev, self.inodes[inode.idx()].disk_base);
        let dev = dev.expect("shmem pages are never dirty-tracked");
        let mut done = 0;
        let max = self.devices[dev.idx()].io_pages().min(u32::MAX as u64) as u32;
        let mut s = start;
        while s < start + n {
            let c = (start + n - s).min(max);
            done = self.wbt_submit_write(dev.idx(), base + s as u64, c as u64);
            for i in s..s + c {
                if let Some(p) = self.mappings[inode.idx()].lookup(i) {
                    // The folio's writeback ends with the last request carrying its pages.
                    let p = self.pages.page_folio(p);
                    if p.idx() >= self.wb_done.len() {
                        self.wb_done.resize(self.pages.len().max(p.idx() + 1), 0);
                    }
                    self.wb_done[p.idx()] = done;
                }
            }
            self.wb_queue.push(std::cmp::Reverse((done, inode.0, s, c)));
            self.alloc_due = self.alloc_due.min(done);
            s += c;
        }
        self.vmstat.count(VmEvent::Pgpgout, n as u64 * PAGE_SIZE / 1024);
        done
    }

    /// `vfs_fsync()`: write back every dirty page of `inode` and wait for the device: for its
    /// own requests and for the pages already under writeback by the flusher
    /// (`file_write_and_wait_range()` -> `filemap_fdatawait_range()` waits on every page of
    /// the range with `PG_writeback`). A pass that found pages dirty or under writeback
    /// released its lookup batch (`write_cache_pages()` / 6.10+ `writeback_iter()`, and
    /// `__filemap_fdatawait_range()`: `pagevec_release()` / `folio_batch_release()` ->
    /// `lru_add_drain()` once, in every era): the running CPU's `lru_add` batch goes onto the LRU.
    pub fn vfs_fsync(&mut self, inode: InodeId) {
        self.cpu(self.cost.syscall);
        let dirty = self.mappings[inode.idx()].nrdirty > 0;
        // WB_SYNC_ALL: REQ_SYNC writes (blk-wbt's max_depth).
        let op = std::mem::replace(&mut self.flusher.op, crate::blkdev::WbtOp::Sync);
        let (_, mut done) = self.writeback_inode(inode, u64::MAX);
        self.flusher.op = op;
        let mut under_writeback = false;
        for std::cmp::Reverse((t, ino, _, _)) in self.wb_queue.iter() {
            if *ino == inode.0 {
                done = done.max(*t);
                under_writeback = true;
            }
        }
        if dirty || under_writeback {
            self.lru_add_drain();
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
