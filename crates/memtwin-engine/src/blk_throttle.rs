//! blk-throttle (block/blk-throttle.c): a throttle group's bandwidth rule per direction
//! (`blkio.throttle.read_bps_device`/`write_bps_device` on cgroup v1, `io.max` on v2), as the
//! host runner's loop device has it over a faster disk.
//!
//! The rule is granted a slice at a time, not as a stream: a group's direction keeps a slice
//! (`slice_start`, `slice_end`, in jiffies) and the bytes dispatched in it (`bytes_disp`).
//! `tg_within_bps_limit()` allows a bio when the bytes dispatched plus its own stay within
//! `bps` times the time elapsed in the slice **rounded up to whole slices** (a slice that has
//! just started counts as one): the first bios of a slice go at once, up to a slice's worth,
//! and the next wait for the next slice. A bio beyond it is queued in the group's service queue
//! (FIFO: a bio waits for those queued before it, `throtl_peek_queued()`), and the pending
//! timer dispatches it at the group's `disptime` (`jiffies + wait`, fired by the timer wheel).
//! After each dispatch `throtl_trim_slice()` moves the slice's start forward by the whole slices
//! already used, less one, taking the bytes they allowed off `bytes_disp`. A writeback backlog
//! so leaves the throttle in bursts of `bps * THROTL_SLICE` bytes every slice: traced on the
//! host (6.18, 2026-11-28, block:block_rq_issue of loop0 under its 150 MiB/s write rule), bursts
//! of 16 MiB every 100-112 ms.
//!
//! Modelled as 6.18's source has it (the bps rule; iops rules, the carryover of a limit change
//! and hierarchical groups are not: the engine's throttled devices have one group with bps
//! rules set once), with two era switches: before v6.15 `throtl_trim_slice()` trimmed every whole
//! slice elapsed (`ThrotlGrp::trim_all`, profile `throtl_trim_keeps_one_slice`), and from v6.3
//! a swap write (`REQ_SWAP`) is never queued (`bio_issue_as_root_blkg()` in `__blk_throtl_bio()`,
//! profile `throtl_swap_in_debt`): charged and dispatched at once, the bios after it paying the
//! debt ([`ThrotlGrp::throtl_bio_in_debt`]). The slice is
//! `HZ / 10` in every modelled era: 6.1's `HZ / 50` for non-rotational queues
//! (`DFL_THROTL_SLICE_SSD`) applies only with `CONFIG_BLK_DEV_THROTTLING_LOW`, which Debian's
//! 6.1 config leaves unset ("if no low limit, use previous default", `blk_throtl_register()`).

use crate::types::Nanos;

/// `DFL_THROTL_SLICE` (block/blk-throttle.c, 6.18: `HZ / 10`, 100 ms), in jiffies: the slice
/// of every queue. (Before, `td->throtl_slice` was `DFL_THROTL_SLICE_HD` = `HZ / 10` on a
/// rotational queue, as the host's loop device reports itself, and `HZ / 50` on others.)
pub const THROTL_SLICE: u64 = crate::timer::HZ / 10;

/// One direction of a throttle group (`struct throtl_grp`, the fields indexed by `rw`), with
/// its service queue reduced to when the last bio queued in it is dispatched.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ThrotlGrp {
    /// `tg->slice_start[rw]` (jiffies).
    pub slice_start: u64,
    /// `tg->slice_end[rw]` (jiffies).
    pub slice_end: u64,
    /// `tg->bytes_disp[rw]`: bytes dispatched in the slice (trimmed as it moves on).
    pub bytes_disp: u64,
    /// When the last bio queued in this direction is dispatched (ns): a bio submitted before
    /// then is queued behind it.
    pub queued_until: Nanos,
    /// The latest submission so far (ns). The engine runs each task's quantum whole, so a task
    /// whose clock is behind another's may submit after it in the engine's order but before it
    /// in time: such an early bio is not queued behind the later ones ([`ThrotlGrp::throtl_bio`]).
    pub last_arrival: Nanos,
    /// The jiffy the group's slice was last evaluated at: its state never moves back.
    pub last_j: u64,
    /// `throtl_trim_slice()` trims every whole slice elapsed, as before v6.15 (`profile.rs`
    /// `throtl_trim_keeps_one_slice` false); else it keeps one.
    pub trim_all: bool,
}

/// `calculate_bytes_allowed()`: what `bps` allows in `jiffies`.
#[inline]
pub fn calculate_bytes_allowed(bps: u64, jiffies: u64) -> u64 {
    (bps as u128 * jiffies as u128 / crate::timer::HZ as u128).min(u64::MAX as u128) as u64
}

impl ThrotlGrp {
    /// `throtl_slice_used()`: `jiffies` is outside `[slice_start, slice_end]`.
    #[inline]
    fn slice_used(&self, j: u64) -> bool {
        !(self.slice_start <= j && j <= self.slice_end)
    }

    /// `throtl_set_slice_end()`: the end rounded up to a whole slice.
    #[inline]
    fn set_slice_end(&mut self, end: u64) {
        self.slice_end = end.div_ceil(THROTL_SLICE) * THROTL_SLICE;
    }

    /// `throtl_extend_slice()`.
    #[inline]
    fn extend_slice(&mut self, end: u64) {
        if self.slice_end < end {
            self.set_slice_end(end);
        }
    }

    /// `tg_update_slice()`: a used slice with nothing queued starts anew
    /// (`throtl_start_new_slice(tg, rw, true)`), else the slice lasts at least one more.
    fn update_slice(&mut self, j: u64, queued: bool) {
        if self.slice_used(j) && !queued {
            self.bytes_disp = 0;
            self.slice_start = j;
            self.slice_end = j + THROTL_SLICE;
        } else {
            self.extend_slice(j + THROTL_SLICE);
        }
    }

    /// `tg_within_bps_limit()`: jiffies a bio of `bytes` must wait at `j` (0: it may go).
    pub fn within_bps_limit(&self, j: u64, bytes: u64, bps: u64) -> u64 {
        let elapsed = j - self.slice_start;
        // "Slice has just started. Consider one slice interval."
        let rnd = if elapsed == 0 { THROTL_SLICE } else { elapsed }.div_ceil(THROTL_SLICE) * THROTL_SLICE;
        let allowed = calculate_bytes_allowed(bps, rnd);
        if self.bytes_disp + bytes <= allowed {
            return 0;
        }
        let extra = self.bytes_disp + bytes - allowed;
        let wait = ((extra as u128 * crate::timer::HZ as u128) / bps.max(1) as u128).max(1) as u64;
        // "This wait time is without taking into consideration the rounding up we did."
        wait + (rnd - elapsed)
    }

    /// `tg_dispatch_bps_time()`: the slice updated, the wait of a bio of `bytes` at `j`, the
    /// slice extended to cover it. `queued`: the bio is in the service queue
    /// (`sq_queued(sq, rw)`).
    fn dispatch_bps_time(&mut self, j: u64, bytes: u64, bps: u64, queued: bool) -> u64 {
        self.update_slice(j, queued);
        let wait = self.within_bps_limit(j, bytes, bps);
        self.extend_slice(j + wait);
        wait
    }

    /// `throtl_trim_slice()` after a dispatch at `j`: once two whole slices are used, the start
    /// moves forward by the whole slices elapsed less one ("one extra slice is preserved for
    /// deviation", v6.15), with the bytes they allowed (`throtl_trim_bps()`). Before v6.15
    /// (`trim_all`), by every whole slice elapsed, from the first.
    pub fn trim_slice(&mut self, j: u64, bps: u64) {
        if self.slice_used(j) {
            return;
        }
        self.set_slice_end(j + THROTL_SLICE);
        let elapsed = (j - self.slice_start) / THROTL_SLICE * THROTL_SLICE;
        let elapsed = if self.trim_all {
            if elapsed == 0 {
                return;
            }
            elapsed
        } else {
            if elapsed < 2 * THROTL_SLICE {
                return;
            }
            elapsed - THROTL_SLICE
        };
        let trim = calculate_bytes_allowed(bps, elapsed);
        let trimmed = if self.bytes_disp < trim { std::mem::take(&mut self.bytes_disp) } else {
            self.bytes_disp -= trim;
            trim
        };
        if trimmed == 0 {
            return;
        }
        self.slice_start += elapsed;
    }

    /// `blk_throtl_bio()` of a bio of `bytes` submitted at `now` under a rule of `bps`: when
    /// it leaves the throttle. A bio with nothing queued before it that is within the limit goes
    /// at once (`tg_within_limit()`, charged and the slice trimmed); else it is queued, and
    /// dispatched by the pending timer at the group's `disptime` (`tg_update_disptime()`: jiffies
    /// + its wait; the timer fires at the tick the wheel rounds it to, `calc_wheel_index()`),
    /// or, behind other bios, when the one before it goes (the dispatch round goes on while
    /// the head bio's wait is 0: `throtl_pending_timer_fn()`).
    ///
    /// An early bio (submitted before the latest submission, `last_arrival`: processed late
    /// because another task's clock ran ahead) is not queued behind the bios submitted after it
    /// in time: the kernel saw it first, with none of theirs in the service queue (block/
    /// blk-throttle.c 6.18 `__blk_throtl_bio()` queues a bio only behind `sq_queued()` bios,
    /// which were submitted before it). Only the rule holds it, on the group's slice as it
    /// stands (it never moves back: the bytes of every bio let through are in `bytes_disp`):
    /// within the limit at its own jiffy (or the slice's start, if later) it goes at its own
    /// time, else at the tick its wait from there gives (`tg_within_bps_limit()`), and is
    /// charged to the slice. (hogswap23: three reclaimers' swap writes under a 150 MiB/s rule,
    /// one task's long reclaim call running ahead: the others' earlier bios waited up to 13 ms
    /// behind its bios let through at once.)
    pub fn throtl_bio(&mut self, bytes: u64, now: Nanos, bps: u64) -> Nanos {
        if now < self.last_arrival {
            return self.throtl_bio_early(bytes, now, bps);
        }
        self.last_arrival = now;
        let mut queued = self.queued_until > now;
        let mut t = now.max(self.queued_until);
        // (The slice never starts after a bio submitted in time order: `max` only guards the
        // engine's disorder, [`ThrotlGrp::throtl_bio_early`].)
        let mut j = (t / crate::timer::NSEC_PER_JIFFY).max(self.slice_start);
        loop {
            let wait = self.dispatch_bps_time(j, bytes, bps, queued);
            if wait == 0 {
                break;
            }
            let tick = crate::timer::calc_wheel_index(j + wait, j);
            j = tick;
            t = tick * crate::timer::NSEC_PER_JIFFY;
            queued = true;
        }
        // throtl_charge_bps_bio(), then tg_dispatch_one_bio()'s / the direct path's trim.
        self.bytes_disp += bytes;
        self.trim_slice(j, bps);
        self.last_j = self.last_j.max(j);
        self.queued_until = t;
        t
    }

    /// `__blk_throtl_bio()` of a bio `bio_issue_as_root_blkg()` names (`REQ_META | REQ_SWAP`:
    /// a swap write, mm/page_io.c `swap_writepage_bdev_async()`) of `bytes` submitted at `now`:
    /// it is never queued. Within the limit with nothing queued (`tg_within_limit()`, the slice
    /// updated as for any bio) it is charged and the slice trimmed; over the limit, or with bios
    /// queued, it is "dispatched directly, even if [it is] over limit" and charged all the same
    /// ("extra IO bytes will be throttled for paying the debt": the bios submitted after it wait
    /// the longer). block/blk-throttle.c 6.12 (Debian's linux-source-6.12, `__blk_throtl_bio()`:
    /// `else if (bio_issue_as_root_blkg(bio)) throtl_charge_bio(tg, bio);`) and 6.18
    /// (`throtl_charge_bps_bio()`); Debian's 6.1 has no such branch (profile
    /// `throtl_swap_in_debt`). Bios already queued keep the release they were given (the engine
    /// gives a bio its release at submission; the kernel's pending timer would see the debt).
    /// Submissions out of time order as [`ThrotlGrp::throtl_bio`]'s: the slice at the group's time.
    pub fn throtl_bio_in_debt(&mut self, bytes: u64, now: Nanos, bps: u64) -> Nanos {
        let early = now < self.last_arrival;
        self.last_arrival = self.last_arrival.max(now);
        let j = (now / crate::timer::NSEC_PER_JIFFY).max(self.last_j).max(self.slice_start);
        let queued = if early { self.queued_until > j * crate::timer::NSEC_PER_JIFFY } else { self.queued_until > now };
        // tg_within_limit(): FIFO behind queued bios; else tg_may_dispatch() / tg_dispatch_time().
        let within = !queued && self.dispatch_bps_time(j, bytes, bps, false) == 0;
        // throtl_charge_bio() / throtl_charge_bps_bio().
        self.bytes_disp += bytes;
        if within {
            self.trim_slice(j, bps);
        }
        self.last_j = j;
        now
    }

    /// [`ThrotlGrp::throtl_bio`] of a bio submitted at `now`, before the latest submission.
    fn throtl_bio_early(&mut self, bytes: u64, now: Nanos, bps: u64) -> Nanos {
        let j = (now / crate::timer::NSEC_PER_JIFFY).max(self.slice_start);
        let wait = self.within_bps_limit(j, bytes, bps);
        let (t, jr) = if wait == 0 {
            (now, j)
        } else {
            let tick = crate::timer::calc_wheel_index(j + wait, j);
            (tick * crate::timer::NSEC_PER_JIFFY, tick)
        };
        self.extend_slice(jr);
        self.bytes_disp += bytes;
        // The trim at the group's time (never back).
        let jt = jr.max(self.last_j);
        self.trim_slice(jt, bps);
        self.last_j = jt;
        self.queued_until = self.queued_until.max(t);
        t
    }
}
