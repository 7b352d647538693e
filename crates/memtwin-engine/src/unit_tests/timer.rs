//! timer.rs against kernel/time/timer.c.
use crate::timer::*;

/// `calc_wheel_index()` / `calc_index()` (4.8+, as 6.1 and 6.18 have it): a timer less than
/// `LVL_START(1)` = 63 jiffies ahead goes to level 0, into the bucket one jiffy after its
/// expiry ("Round up with level granularity", so that a timer armed at the edge of a tick does
/// not fire early); further ahead, the level's granularity (8 jiffies on level 1, 64 on level
/// 2) rounds it up more.
#[test]
fn calc_wheel_index_rounds_the_expiry_up_with_the_level_granularity_4_8() {
    assert_eq!(calc_wheel_index(1000 + 3, 1000), 1000 + 4);
    assert_eq!(calc_wheel_index(1000, 1000), 1001);
    assert_eq!(calc_wheel_index(1000 + 62, 1000), 1000 + 63);
    // Level 1 from 63 jiffies on: (expires >> 3) + 1, times 8.
    assert_eq!(calc_wheel_index(1000 + 63, 1000), ((1063 >> 3) + 1) << 3);
    assert_eq!(calc_wheel_index(100, 0), 104);
    // Level 2 from LVL_START(2) = 63 << 3 = 504.
    assert_eq!(calc_wheel_index(504, 0), ((504 >> 6) + 1) << 6);
    assert_eq!(LVL_DEPTH, 9, "HZ 250 > 100");
}

/// `schedule_timeout()` (6.1, 6.18): `expire = timeout + jiffies`, the timer queued at
/// `calc_wheel_index()`'s bucket; the sleeper wakes at the tick of that bucket, between
/// `timeout` and `timeout + 1` jiffies after a call made inside a jiffy. Before 4.8 the
/// cascading wheel ran it at the tick of `expire`: between `timeout - 1` and `timeout`.
#[test]
fn schedule_timeout_wakes_one_tick_after_the_expiry_from_4_8() {
    let j = NSEC_PER_JIFFY;
    assert_eq!(j, 4_000_000, "HZ 250");
    // Called 0.3 ms into jiffy 100 with a pause of 3 jiffies: woken at tick 104, 15.7 ms later
    // (the host's 6.18 trace: 12 ms pauses last 15.4-15.9 ms).
    let now = 100 * j + 300_000;
    assert_eq!(schedule_timeout_wake(now, 3, true), 104 * j);
    assert_eq!(schedule_timeout_wake(now, 3, false), 103 * j);
    // Called on a tick: still a whole jiffy more than asked from 4.8.
    assert_eq!(schedule_timeout_wake(100 * j, 2, true), 103 * j);
    assert_eq!(schedule_timeout_wake(100 * j, 2, false), 102 * j);
    // A 200 ms pause (MAX_PAUSE, 50 jiffies) stays on level 0.
    assert_eq!(schedule_timeout_wake(now, 50, true), 151 * j);
}

/// `Kernel::schedule_timeout_at()`, the sleeps that end at their timer (memory.high's
/// `schedule_timeout_killable(penalty)` in `mem_cgroup_handle_over_high()`, 5.4+;
/// `schedule_timeout(HZ/10)` in `reclaim_throttle()`, 5.16+; `io_schedule_timeout(HZ/10)` in
/// `congestion_wait()`, before): the era's wheel. On 6.1 a 100-jiffy penalty lies on level 1
/// and ends at the next multiple of 8 jiffies after its expiry (1104 for an expiry at 1100); on
/// 4.3's cascading wheel at the tick of its expiry.
#[test]
fn schedule_timeout_at_follows_the_eras_wheel() {
    let j = NSEC_PER_JIFFY;
    for (name, wake) in [("linux-6.1", 1104 * j), ("linux-6.18", 1104 * j), ("linux-4.3", 1100 * j)] {
        let mut k = crate::kernel::Kernel::new(crate::profile::profile(name).unwrap(), crate::profile::Policies::default(), crate::memcontrol::CgroupVersion::V2, 1 << 15, 0);
        k.now = 1000 * j + 300_000;
        assert_eq!(k.schedule_timeout_at(100), wake, "{name}");
    }
}
