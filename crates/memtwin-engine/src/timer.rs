//! Timers (kernel/time/timer.c): when a task that sleeps in `schedule_timeout()` wakes up.
//!
//! The kernel's timer wheel runs the timers of a bucket at the tick where `jiffies` reaches
//! the bucket's expiry. Since 4.8's non-cascading wheel (Thomas Gleixner, "timers: Switch to a
//! non-cascading wheel") a timer's expiry is rounded up with its level's granularity when it is
//! queued (`calc_index()`): "The timer wheel has to guarantee that a timer does not fire early",
//! as a timer armed at the edge of a tick would. A timeout of `n` jiffies below 63 (level 0,
//! granularity 1) so ends at the tick `jiffies + n + 1`: between `n` and `n + 1` jiffies after
//! the call. Before 4.8 the cascading wheel ran a timer at the tick where `jiffies` reached its
//! `expires`: `n - 1` to `n` jiffies after the call. The engine's ticks fall on multiples of
//! `NSEC_PER_SEC / HZ` of its clock.

use crate::types::{Nanos, NSEC_PER_SEC};

/// `HZ` (memcontrol.rs: Debian's `CONFIG_HZ_250`, the host's too).
pub const HZ: u64 = crate::memcontrol::HZ;
/// Nanoseconds per jiffy.
pub const NSEC_PER_JIFFY: Nanos = NSEC_PER_SEC / HZ;
/// `LVL_CLK_SHIFT` (4.8+): each level of the wheel is 8 times coarser than the one below.
pub const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_BITS` (4.8+): 64 buckets per level.
pub const LVL_BITS: u32 = 6;
/// `LVL_DEPTH` (4.8+): 9 levels for `HZ > 100`, 8 below.
pub const LVL_DEPTH: u32 = if HZ > 100 { 9 } else { 8 };

/// `LVL_START(n)`: the smallest delta (jiffies) queued on level `n`.
const fn lvl_start(n: u32) -> u64 {
    ((1 << LVL_BITS) - 1) << ((n - 1) * LVL_CLK_SHIFT)
}

/// `calc_wheel_index()` / `calc_index()` (4.8+; the rounding is 5.9's
/// `(expires >> LVL_SHIFT(lvl)) + 1`, equal to 4.8's `(expires + LVL_GRAN(lvl)) >>
/// LVL_SHIFT(lvl)`): the expiry (jiffies) of the bucket a timer expiring at `expires`, queued
/// when the wheel's clock is `clk`, goes into: `expires` rounded up with the granularity of the
/// level its delta selects, so at least one jiffy late. Timeouts past the wheel's capacity
/// (`WHEEL_TIMEOUT_CUTOFF`) are cut to `WHEEL_TIMEOUT_MAX`.
pub fn calc_wheel_index(expires: u64, clk: u64) -> u64 {
    let delta = expires.saturating_sub(clk);
    let mut lvl = 0;
    while lvl + 1 < LVL_DEPTH && delta >= lvl_start(lvl + 1) {
        lvl += 1;
    }
    let mut expires = expires;
    let cutoff = lvl_start(LVL_DEPTH);
    if delta >= cutoff {
        expires = clk + cutoff - (1 << ((LVL_DEPTH - 1) * LVL_CLK_SHIFT));
    }
    let shift = lvl * LVL_CLK_SHIFT;
    ((expires >> shift) + 1) << shift
}

/// `schedule_timeout(timeout)` called at `now` (ns): the time the sleeper wakes, at the tick
/// where `jiffies` reaches the timer's bucket (`calc_wheel_index()`, `round_up`: 4.8+), or,
/// before 4.8, its `expires` (`jiffies + timeout`).
pub fn schedule_timeout_wake(now: Nanos, timeout: u64, round_up: bool) -> Nanos {
    let jiffies = now / NSEC_PER_JIFFY;
    let expire = jiffies + timeout;
    let tick = if round_up { calc_wheel_index(expire, jiffies) } else { expire };
    (tick * NSEC_PER_JIFFY).max(now)
}

impl crate::kernel::Kernel {
    /// [`schedule_timeout_wake`] of a sleep of `timeout` jiffies from the running context's
    /// clock, with the era's wheel (`KernelProfile::timer_wheel_round_up`): when a
    /// `schedule_timeout()`/`io_schedule_timeout()` sleeper nobody wakes earlier wakes.
    pub fn schedule_timeout_at(&self, timeout: u64) -> Nanos {
        schedule_timeout_wake(self.now, timeout, self.profile.timer_wheel_round_up)
    }
}
