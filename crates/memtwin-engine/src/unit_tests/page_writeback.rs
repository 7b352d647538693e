//! Writers under memcg limits (issue 16): cgroup writeback domains, reclaim meeting dirty and
//! writeback pages per era, memory.high's batching and penalty, readahead on random misses.

use super::*;
use crate::memcontrol::{calculate_high_delay, calculate_overage, MemcgEvent};

/// A 2G machine with a 100 MB/s-write disk, empty files /out, /a and /b, memcg `ct` with
/// `limit`, and task `w` with the `[tasks.w]` line `task_cgroup` ("": the root) running `ops`.
fn write_sim(cgroup: &str, profile: &str, limit: &str, task_cgroup: &str, ops: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "writer"
[machine]
ram = "2G"
[kernel]
profile = "{profile}"
cgroup = "{cgroup}"
[devices.sda]
read_bw = "500M"
write_bw = "100M"
[files."/out"]
size = 0
[files."/a"]
size = 0
[files."/b"]
size = 0
[cgroups.ct]
{limit}
[tasks.w]
{task_cgroup}
ops = [{ops}]
"#
    ))
}

fn writer(cgroup: &str, limit: &str, profile: &str) -> Simulation {
    write_sim(cgroup, profile, limit, r#"cgroup = "ct""#, r#"{ op = "write", file = "/out", length = "128M", bufsize = "1M", create = true, fsync = true }"#)
}

/// cgroup v2, 4.2+: the memcg is a writeback domain. `balance_dirty_pages()` keeps its dirty
/// and writeback pages near the domain's setpoint (`mem_cgroup_wb_stats()` +
/// `mdtc_calc_avail()`: file pages plus headroom under memory.max), so limit reclaim finds
/// clean pages at the inactive tail and the writer of 4x its limit is never OOM-killed
/// (Debian 6.1 in QEMU: pgscan = pgsteal, no oom_kill; qemu61-write-4x-fsync).
#[test]
fn v2_writer_is_throttled_by_its_memcg_domain_not_oom_killed() {
    let mut s = writer("v2", r#""memory.max" = "32M""#, "linux-6.1");
    let ct = memcg(&s, "ct");
    let mut worst = 0;
    run_with(&mut s, |s| {
        let m = s.kernel.memcgs.get(ct);
        worst = worst.max(m.nr_dirty + m.nr_writeback);
    });
    let k = &s.kernel;
    assert_eq!(k.memcgs.get(ct).events[MemcgEvent::OomKill as usize], 0);
    assert_eq!(k.devices[0].write_bytes, 128 << 20);
    assert_eq!(k.memcgs.get(ct).events[MemcgEvent::Pgscan as usize], k.memcgs.get(ct).events[MemcgEvent::Pgsteal as usize]);
    // The domain: about 8192 file pages available, dirty_ratio 20%: limit ~1638 pages.
    let g = k.global_dirty_limits();
    let md = k.memcg_dirty_limits(ct, &g);
    assert!(md.thresh > 0 && md.thresh < 2048, "{md:?}");
    assert!(worst <= 2048 + 256, "dirty + writeback peaked at {worst} pages");
    assert_invariants(k);
}

/// cgroup v1 has no memcg writeback domain (only the global limits, 20% of 2G here): the
/// memcg fills with dirty pages; legacy memcg reclaim (`!writeback_throttling_sane()`) wakes
/// the flusher and waits on pages it already marked (`shrink_folio_list()` case 3,
/// `folio_wait_writeback()`), so the writer is not OOM-killed either (host 6.18, v1).
#[test]
fn v1_memcg_reclaim_waits_on_writeback() {
    let mut s = writer("v1", r#""memory.limit_in_bytes" = "32M""#, "linux-6.6");
    let ct = memcg(&s, "ct");
    assert!(s.kernel.memcg_wb_domain(ct).is_none());
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.memcgs.get(ct).events[MemcgEvent::OomKill as usize], 0);
    assert_eq!(k.devices[0].write_bytes, 128 << 20);
    assert_invariants(k);
}

/// 3.13 has no cgroup writeback (4.2): no memcg domain even on v2.
#[test]
fn no_cgroup_writeback_before_4_2() {
    let s = writer("v2", r#""memory.max" = "32M""#, "linux-3.13");
    assert!(s.kernel.memcg_wb_domain(memcg(&s, "ct")).is_none());
    let s = writer("v2", r#""memory.max" = "32M""#, "linux-4.4");
    assert!(s.kernel.memcg_wb_domain(memcg(&s, "ct")).is_some());
}

/// `calculate_overage()` and `calculate_high_delay()` of mm/memcontrol.c (6.1): 10% over
/// high owes (0.1 * 2^20)^2 * HZ >> 34 = 159 jiffies per batch; twice high owes 16000,
/// clamped to MEMCG_MAX_HIGH_DELAY_JIFFIES (2 s) by the caller.
#[test]
fn memory_high_penalty_follows_calculate_high_delay() {
    assert_eq!(calculate_overage(8192, 8192), 0);
    let ov = calculate_overage(9011, 8192);
    assert_eq!(ov, 104832);
    assert_eq!(calculate_high_delay(64, ov, 64), 159);
    assert_eq!(calculate_high_delay(128, ov, 64), 318);
    assert_eq!(calculate_high_delay(64, calculate_overage(16384, 8192), 64), 16000);
}

/// memory.events `high` is counted in `reclaim_high()`, once per memcg above high per
/// reclaim, not per page charged: charges go through the per-CPU stock in batches of
/// MEMCG_CHARGE_BATCH (64 from 6.1), and only a batch charged to the counter over high adds
/// to `memcg_nr_pages_over_high` (6.1 counts about 1 event per 158 pages on a 128M read).
#[test]
fn memory_high_events_are_counted_per_reclaim_not_per_page() {
    let mut s = sim(r#"
[scenario]
name = "high"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "500M"
[files."/f"]
size = "128M"
[cgroups.ct]
"memory.high" = "32M"
[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential" }]
"#);
    let ct = memcg(&s, "ct");
    run(&mut s);
    let k = &s.kernel;
    let high = k.memcgs.get(ct).events[MemcgEvent::High as usize];
    let reclaimed = k.memcgs.get(ct).events[MemcgEvent::Pgsteal as usize];
    assert!(high > 0 && high * 64 <= reclaimed + 64 * 4, "{high} events for {reclaimed} pages reclaimed");
    assert!(k.memcgs.get(ct).counter.usage <= (32 << 20) / PAGE_SIZE + 2 * 64);
    assert_invariants(k);
}

/// A 1G machine with a 1M file `/f`, not cached, on a read_ahead_kb 128 disk, and an idle
/// task: for driving the readahead functions directly.
fn one_cold_file() -> Simulation {
    sim(r#"
[scenario]
name = "ra"
[machine]
ram = "1G"
[devices.sda]
read_bw = "500M"
read_ahead_kb = 128
[files."/f"]
size = "1M"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#)
}

/// `try_context_readahead()` (`page_cache_sync_ra()` from 6.10): a random miss after 16
/// cached pages reads min(16 + 1, ra_pages) pages from the miss with `async_size` 1; a miss
/// with no cached history reads just the request ("standalone, small random read").
#[test]
fn random_miss_after_cached_history_reads_a_context_window() {
    let mut s = one_cold_file();
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let mut ra = FileRaState::new(32);
    ra.random = true;
    k.filemap_read(f, 4 * PAGE_SIZE, 16 * PAGE_SIZE, &mut ra, MemcgId::ROOT).unwrap();
    assert_eq!(k.mappings[f.idx()].nrpages, 16);
    let mut ra = FileRaState::new(32);
    ra.prev_index = Some(100);
    ra.prev_pos = Some(101 * PAGE_SIZE);
    k.filemap_read(f, 20 * PAGE_SIZE, PAGE_SIZE, &mut ra, MemcgId::ROOT).unwrap();
    assert_eq!(k.mappings[f.idx()].nrpages, 16 + 17);
    assert_eq!((ra.start, ra.size, ra.async_size), (20, 17, 1));
    let mut ra = FileRaState::new(32);
    ra.prev_index = Some(100);
    k.filemap_read(f, 200 * PAGE_SIZE, PAGE_SIZE, &mut ra, MemcgId::ROOT).unwrap();
    assert_eq!(k.mappings[f.idx()].nrpages, 16 + 17 + 1);
}

/// PSI (kernel/sched/psi.c): a task's time in memcg limit reclaim is a memory stall
/// (`psi_memstall_enter()` around `try_to_free_mem_cgroup_pages()` in `try_charge_memcg()`,
/// 6.1), counted in its cgroup and every ancestor up to the machine; with one task, `full`
/// equals `some`. A task that never reclaims stalls for nothing.
#[test]
fn psi_counts_reclaim_as_a_memory_stall() {
    let mut s = writer("v2", r#""memory.max" = "32M""#, "linux-6.1");
    let ct = memcg(&s, "ct");
    run(&mut s);
    let k = &s.kernel;
    let (m, root) = (k.memcgs.get(ct).psi, k.memcgs.get(MemcgId::ROOT).psi);
    assert!(m.some > 0, "{m:?}");
    assert_eq!(m.full, m.some, "one task: full = some");
    assert_eq!(root.some, m.some, "the machine's pressure includes the memcg's");
    let mut s = writer("v2", r#""memory.max" = "1G""#, "linux-6.1");
    let ct = memcg(&s, "ct");
    run(&mut s);
    assert_eq!(s.kernel.memcgs.get(ct).psi.some, 0, "no reclaim, no stall");
}

/// memory.high over unreclaimable memory (anonymous, no swap), 6.1: every fault returns to
/// user space through `mem_cgroup_handle_over_high()`. The k-th 64-page batch over high (the
/// counter holds the stock: usage includes the batch) owes
/// `calculate_high_delay()` = floor(250 k^2 / 256) jiffies; above HZ/100 the handler retries
/// reclaim MAX_RECLAIM_RETRIES times without progress (17 `reclaim_high()` events in all),
/// then sleeps it. 36M over a 32M high is 16 batches, one more for the 18 page tables
/// (`pte_alloc()`, charged from 4.5): 1 + 16 * 17 = 273 events and 1735 jiffies (6.94 s) of
/// penalty, as Debian 6.1 shows (qemu61-high-anon: 273 events, 7.10 s of memory stall). Each
/// `schedule_timeout_killable(penalty)` ends at its timer's tick (kernel/time/timer.c
/// `calc_wheel_index()`, 4.8+): up to one jiffy late for a penalty below 63 jiffies (level 0,
/// the 7 first), up to 8 late above (level 1, the 9 others).
#[test]
fn memory_high_penalty_sleeps_over_unreclaimable_memory() {
    let mut s = sim(r#"
[scenario]
name = "high-anon"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[cgroups.ct]
"memory.high" = "32M"
[tasks.t]
cgroup = "ct"
ops = [{ op = "mmap", name = "m", size = "36M" }, { op = "touch", name = "m" }, { op = "munmap", name = "m" }]
"#);
    let ct = memcg(&s, "ct");
    let mut kmem_at_touch = 0;
    run_with(&mut s, |s| {
        kmem_at_touch = kmem_at_touch.max(s.kernel.memcgs.get(ct).kmem_bytes);
    });
    let k = &s.kernel;
    assert_eq!(kmem_at_touch, 18 * PAGE_SIZE, "one page table per 2 MiB");
    assert_eq!(k.memcgs.get(ct).kmem_bytes, 0, "freed with the mapping");
    assert_eq!(k.memcgs.get(ct).events[MemcgEvent::High as usize], 273);
    let jiffies: u64 = (2..=17u64).map(|k| k * k * 250 / 256).sum();
    assert_eq!(jiffies, 1735);
    let late: u64 = (2..=17u64).map(|k| if k * k * 250 / 256 < 63 { 1 } else { 8 }).sum();
    assert_eq!(late, 7 + 9 * 8);
    let stall = k.memcgs.get(ct).psi.some;
    assert!(stall > jiffies * 4_000_000 && stall < (jiffies + late) * 4_000_000 + 50_000_000, "{stall}");
    assert_invariants(k);
}

/// `ondemand_readahead()`'s sequential test `index - (ra->prev_pos >> PAGE_SHIFT) <= 1`: with
/// `prev_pos` the position after the previous read (5.11+, `filemap_read()`), a miss one page
/// past the end of an aligned read of pages 0..=3 (index 5, prev_pos >> 12 = 4) starts a
/// window (get_init_ra_size(1, 32) = 4 pages); in 5.0, whose `prev_pos` is the last byte read
/// (page 3), it is a small random read of 1 page.
#[test]
fn sequential_test_follows_each_eras_prev_pos() {
    for (profile, pages) in [("linux-6.1", 4), ("linux-5.0", 1)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "prev-pos"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "500M"
read_ahead_kb = 128
[files."/f"]
size = "1M"
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        let mut ra = FileRaState::new(32);
        ra.prev_index = Some(3);
        ra.prev_pos = Some(4 * PAGE_SIZE);
        k.filemap_read(f, 5 * PAGE_SIZE, PAGE_SIZE, &mut ra, MemcgId::ROOT).unwrap();
        assert_eq!(k.mappings[f.idx()].nrpages, pages, "{profile}");
    }
}

/// memory.pressure's averages (kernel/sched/psi.c `update_averages()` + `calc_avgs()`, with
/// `calc_load()`'s fixed point): three 2 s periods (`PSI_FREQ`) fully stalled give
/// avg10 = 45.09% and avg60 = 9.49%; a period with no stall then decays them.
#[test]
fn psi_averages_follow_calc_avgs() {
    use crate::psi::{PsiTotals, PSI_FREQ};
    let mut p = PsiTotals::default();
    p.add_stall(0, 3 * PSI_FREQ, true);
    assert_eq!(p.avgs_at(3 * PSI_FREQ), [45.09, 9.49, 45.09, 9.49]);
    assert_eq!((p.some, p.full), (3 * PSI_FREQ, 3 * PSI_FREQ));
    let later = p.avgs_at(4 * PSI_FREQ);
    assert!(later[0] < 45.09 && later[0] > 30.0, "{later:?}");
}

/// `ondemand_readahead()` with `hit_readahead_marker` and no valid window (a random read
/// landing on a marked page, 2.6.31-6.9; `page_cache_async_ra()` after): the window starts at
/// `page_cache_next_miss(index + 1)` and its size is `get_next_ra_size(start - index + req)`.
/// Marker at 19, pages 20..=23 cached, a 4-page request: start 24, size get_next(9) = 18.
#[test]
fn marker_hit_without_window_starts_after_the_cached_run() {
    let mut s = one_cold_file();
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let mut fill = FileRaState::new(32);
    fill.random = true;
    k.filemap_read(f, 19 * PAGE_SIZE, 5 * PAGE_SIZE, &mut fill, MemcgId::ROOT).unwrap();
    assert_eq!(k.mappings[f.idx()].nrpages, 5);
    let mut ra = FileRaState::new(32);
    k.page_cache_async_ra(&mut ra, f, 19, 4, MemcgId::ROOT);
    assert_eq!((ra.start, ra.size, ra.async_size), (24, 18, 18));
    assert_eq!(k.mappings[f.idx()].nrpages, 5 + 18);
}

fn idle_writer(cgroup: &str, profile: &str, ops: &str) -> Simulation {
    write_sim(cgroup, profile, "", "", ops)
}

/// Periodic writeback (fs/fs-writeback.c, 6.1: `wb_wakeup_delayed()`,
/// `wb_check_old_data_flush()`, `inode_dirtied_after()`): a file far below every background
/// threshold stays dirty until its inode has been dirty for `dirty_expire_interval` (30 s);
/// the flusher, woken every `dirty_writeback_interval` (5 s) from the first dirtying, then
/// writes it; an inode dirtied later waits for its own expiry.
///
/// Before 6.14 a wb's background threshold is its share of the domain's recent write
/// completions (`wb_over_bg_thresh()` -> `wb_calc_thresh()`): on a machine that has written
/// nothing yet the share is 0, so the first wake-up (5 s) writes file a; once a's
/// completions make the wb the only writer, b waits for kupdate. From 6.14 the share is at
/// least 1/8 of the domain's room (`__wb_calc_thresh()`), so a waits for kupdate too (host
/// 6.18: host-write-idle).
#[test]
fn kupdate_writes_inodes_dirty_longer_than_dirty_expire_interval() {
    let kupdate_only = vec![(1024, 0), (1024, 0), (1024, 1024), (1024, 1024), (0, 1024), (0, 1024), (0, 0)];
    let fresh_wb_first = vec![(1024, 0), (0, 0), (0, 1024), (0, 1024), (0, 1024), (0, 1024), (0, 0)];
    for (cgroup, profile, want) in [
        ("v1", "linux-6.18", &kupdate_only),
        ("v2", "linux-6.18", &kupdate_only),
        ("v1", "linux-6.6", &fresh_wb_first),
        ("v2", "linux-6.1", &fresh_wb_first),
        ("v1", "linux-3.13", &fresh_wb_first),
    ] {
        let ops = r#"{ op = "write", file = "/a", length = "4M", create = true, step = "a" },
                     { op = "sleep", duration = "20s", step = "20" },
                     { op = "write", file = "/b", length = "4M", create = true, step = "b" },
                     { op = "sleep", duration = "9s", step = "29" },
                     { op = "sleep", duration = "7s", step = "36" },
                     { op = "sleep", duration = "13s", step = "49" },
                     { op = "sleep", duration = "7s", step = "56" }"#;
        let mut s = idle_writer(cgroup, profile, ops);
        let a = s.inode("/a").unwrap();
        let b = s.inode("/b").unwrap();
        let mut seen = vec![];
        let mut last = 0;
        while s.step() {
            if s.steps_done() != last {
                last = s.steps_done();
                let k = &s.kernel;
                seen.push((k.mappings[a.idx()].nrdirty, k.mappings[b.idx()].nrdirty));
            }
        }
        // After a, 20 s, b, 29 s: nothing has expired; at 36 s a has (dirty since ~0 s), b
        // (since ~20 s) only at 56 s.
        assert_eq!(&seen, want, "{cgroup} {profile}");
        let k = &s.kernel;
        assert_eq!(k.devices[0].write_bytes, 8 << 20);
        assert!(k.wb_timers.is_empty(), "the flusher stops re-arming once its wb is clean");
        assert_invariants(k);
    }
}

/// `wb_wakeup_delayed()` queues the delayed work only if it is not pending
/// (`queue_delayed_work()`): dirtying more inodes does not push the wake-up back.
#[test]
fn wb_wakeup_delayed_does_not_postpone_a_pending_wakeup() {
    let ops = r#"{ op = "write", file = "/a", length = "4K", create = true },
                 { op = "sleep", duration = "3s" },
                 { op = "write", file = "/b", length = "4K", create = true }"#;
    let mut s = idle_writer("v1", "linux-6.18", ops);
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.wb_timers.len(), 1);
    let std::cmp::Reverse((t, key)) = *k.wb_timers.peek().unwrap();
    assert_eq!(key, 0);
    assert!(t < crate::page_writeback::DIRTY_WRITEBACK_INTERVAL + 1_000_000, "armed at the first dirtying: {t}");
}

use crate::page_writeback::{
    dirty_poll_interval, pos_ratio_polynom, wb_max_pause, wb_min_pause, wb_position_ratio, wb_update_write_bandwidth, DirtyThrottleControl,
    WbBandwidth, HZ, INIT_BW, MAX_PAUSE, RATELIMIT_CALC_SHIFT,
};

/// mm/page-writeback.c (6.1) `pos_ratio_polynom()`: `1 + ((setpoint - dirty) / (limit -
/// setpoint))^3` in 10-bit fixed point, with the kernel's integer steps: 2.0 (clamped) at and
/// below the free-run ceiling, exactly 1.0 at the setpoint, and about 0 at the limit
/// (`(limit - setpoint) | 1` makes the divisor odd: x = -204800 / 201 = -1018; -1018^2 >> 10
/// = 1012; 1012 * -1018 >> 10 = -1007 (arithmetic shift); 1024 - 1007 = 17).
#[test]
fn pos_ratio_polynom_follows_page_writeback_c() {
    let one = 1 << RATELIMIT_CALC_SHIFT;
    assert_eq!(pos_ratio_polynom(1000, 1000, 1200), one);
    assert_eq!(pos_ratio_polynom(1000, 1200, 1200), 17);
    assert_eq!(pos_ratio_polynom(1000, 0, 1200), 2 * one);
    // Halfway between setpoint and limit: 1 - 1/8.
    let half = pos_ratio_polynom(1000, 1100, 1200);
    assert!((one * 7 / 8 - 8..=one * 7 / 8 + 8).contains(&half), "{half}");
    // Monotonic (negative feedback).
    let mut last = u64::MAX;
    for d in (0..1300).step_by(25) {
        let r = pos_ratio_polynom(1000, d, 1200);
        assert!(r <= last);
        last = r;
    }
}

/// `wb_position_ratio()` (6.1): one wb owning the whole domain (`wb_thresh == thresh`) at
/// the domain's setpoint and at its own (`wb_setpoint = setpoint * wb_thresh / thresh`) runs
/// at the base rate (pos_ratio 1.0); at the hard limit it is stopped (0); a wb far under half
/// its threshold gets the reserve area's boost (up to 8x); a wb over its share is slowed
/// below the domain's ratio, not under a quarter of it.
#[test]
fn wb_position_ratio_follows_page_writeback_c() {
    let one = 1 << RATELIMIT_CALC_SHIFT;
    let mut dtc = DirtyThrottleControl::new(100_000, 0, 0, 20, 10);
    assert_eq!((dtc.thresh, dtc.bg_thresh), (19_995, 9_985));
    dtc.wb_thresh = dtc.thresh;
    let setpoint = dtc.setpoint();
    assert_eq!(setpoint, (dtc.freerun() + dtc.thresh) / 2);
    dtc.dirty = setpoint;
    dtc.wb_dirty = setpoint;
    let r = wb_position_ratio(&dtc, INIT_BW, true);
    assert!((one - 4..=one + 4).contains(&r), "{r}");
    dtc.dirty = dtc.thresh;
    assert_eq!(wb_position_ratio(&dtc, INIT_BW, true), 0);
    // The reserve area: wb_dirty under wb_thresh / 16 multiplies by 8.
    dtc.dirty = setpoint;
    dtc.wb_dirty = dtc.wb_thresh / 32;
    let boosted = wb_position_ratio(&dtc, INIT_BW, true);
    assert!(boosted > 7 * one, "{boosted}");
    // A wb with half the domain's threshold but all of its dirty pages.
    dtc.wb_thresh = dtc.thresh / 2;
    dtc.wb_dirty = setpoint;
    let over = wb_position_ratio(&dtc, 1000, true);
    assert!(over < one && over >= one / 4, "{over}");
}

/// `dirty_poll_interval()`, `wb_max_pause()` and `wb_min_pause()` (6.1, HZ 250): a task far
/// under the threshold looks again after 2^(ilog2(room) / 2) pages; the longest pause is
/// `MAX_PAUSE` (HZ/5: 50 jiffies) but at most the time the device needs for the wb's dirty
/// pages over 8 (wb_dirty / (1 + bw / 32) + 1: 1600 pages at 25600 pages/s, 2 jiffies); one writer at the base rate of 100 MB/s aims
/// at 10 ms pauses (2 jiffies): 200 pages per pause, and sleeps at least 1 + t/2 = 2 jiffies.
#[test]
fn pause_bounds_follow_page_writeback_c() {
    assert_eq!(dirty_poll_interval(0, 1000), 16);
    assert_eq!(dirty_poll_interval(900, 1000), 8);
    assert_eq!(dirty_poll_interval(1000, 1000), 1);
    assert_eq!(MAX_PAUSE, 50);
    assert_eq!(wb_max_pause(25_600, 1_600), 2);
    assert_eq!(wb_max_pause(25_600, 1_000_000), MAX_PAUSE);
    assert_eq!(wb_min_pause(25_600, 25_600, 50, 25_600, 25_600), (2, 200));
    // A slow dirtier (task_ratelimit 1000 pages/s): 200 pages would be 50 jiffies, over
    // max_pause 10 -> pages = 1000 * 10 / 256 = 39, the pause itself the minimum.
    assert_eq!(wb_min_pause(25_600, 25_600, 10, 1_000, 25_600), (1 + 10 / 2, 39));
}

/// `wb_update_write_bandwidth()` (3.1+, 6.1): the estimate moves toward the bandwidth of the
/// last interval weighted by elapsed / roundup_pow_of_two(3 * HZ) (1024 jiffies);
/// `avg_write_bandwidth` follows it by an eighth of the gap once both move the same way;
/// after a gap longer than the period it takes the measured bandwidth at once.
#[test]
fn write_bandwidth_follows_wb_update_write_bandwidth() {
    let mut b = WbBandwidth::new(0);
    // 10240 pages in 50 jiffies: 51200 pages/s.
    wb_update_write_bandwidth(&mut b, 50, 10_240);
    assert_eq!((b.write_bandwidth, b.avg_write_bandwidth), ((10_240 * 250 + 25_600 * 974) >> 10, 25_600));
    b.written_stamp = 10_240;
    wb_update_write_bandwidth(&mut b, 50, 20_480);
    assert_eq!(b.write_bandwidth, (10_240 * 250 + 26_850 * 974) >> 10);
    assert_eq!(b.avg_write_bandwidth, 25_600 + ((26_850 - 25_600) >> 3));
    b.written_stamp = 20_480;
    wb_update_write_bandwidth(&mut b, 2_000, 20_480 + 4_000);
    assert_eq!((b.write_bandwidth, b.avg_write_bandwidth), (4_000 * 250 / 2_000, 500));
}

/// `balance_dirty_pages()` (3.2+'s IO-less throttling, 6.1): a writer of 768M on a 2G machine
/// with a 50 MB/s disk and no memcg domain (v1) runs free up to the global free-run ceiling,
/// then sleeps computed pauses that hold the domain's dirty and writeback pages between the
/// ceiling and the hard limit (never over it) while the write bandwidth estimate converges to
/// the disk's (12800 pages/s) and the dirty ratelimit follows it down from `INIT_BW` (25600). The
/// pauses are `io_schedule_timeout()`: the writer's `stall.dirty` and I/O wait, and no memory
/// stall (PSI some stays 0: balance_dirty_pages() has no `psi_memstall_enter()`).
#[test]
fn writer_is_paced_by_computed_pauses_not_memstall() {
    let paced = r#"
[scenario]
name = "paced"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v1"
[devices.sda]
read_bw = "500M"
write_bw = "50M"
[files."/out"]
size = 0
[cgroups.ct]
[tasks.w]
cgroup = "ct"
ops = [{ op = "write", file = "/out", length = "768M", bufsize = "1M", create = true }]
"#;
    let mut s = sim(paced);
    let ct = memcg(&s, "ct");
    let mut worst = 0;
    let mut limit = 0;
    let mut freerun = 0;
    run_with(&mut s, |s| {
        let g = s.kernel.global_dirty_limits();
        worst = worst.max(g.dirty);
        limit = limit.max(g.thresh);
        freerun = g.freerun();
    });
    let k = &s.kernel;
    assert!(worst > freerun, "the writer never left the free run: {worst} <= {freerun}");
    assert!(worst <= limit + 256, "dirty + writeback peaked at {worst} pages over the limit {limit}");
    let b = k.wb_bw[0];
    let disk = 50 * 1024 * 1024 / PAGE_SIZE;
    // The estimate's period is roundup_pow_of_two(3 * HZ) (4 s): after the 8 s run the last
    // interval's estimate is within 20% of the disk, the smoothed one on its way down to it.
    assert!(b.write_bandwidth * 10 > disk * 8 && b.write_bandwidth * 10 < disk * 12, "{b:?}");
    assert!(b.avg_write_bandwidth * 10 > disk * 9 && b.avg_write_bandwidth < INIT_BW, "{b:?}");
    assert!(b.dirty_ratelimit < INIT_BW && b.dirty_ratelimit * 2 > disk, "{b:?}");
    let tr = k.bdp_trace;
    assert!(tr.pauses > 100 && tr.pause > 0, "{tr:?}");
    // Every pause is at most MAX_PAUSE.
    assert!(tr.pause <= tr.pauses * MAX_PAUSE);
    let m = k.memcgs.get(ct);
    assert_eq!(m.psi.some, 0);
    assert_invariants(k);
    let res = sim(paced).run(&mut |_, _| true).unwrap();
    let w = res.steps.iter().find(|st| st.task == "w").unwrap();
    let get = |n: &str| metric_in(w, n);
    assert!(get("stall.dirty_ms") > 1000.0, "{}", get("stall.dirty_ms"));
    // Each pause sleeps until the tick after its expiry (schedule_timeout(), 4.8+ timer
    // wheel): longer than the pause, by at most one jiffy.
    let (stall, pause, pauses) = (get("stall.dirty_ms"), get("bdp.pause_ms"), get("bdp.pauses"));
    assert!(stall > pause && stall <= pause + pauses * 1000.0 / HZ as f64, "stall {stall} ms, pauses {pauses} of {pause} ms");
    // 768M at about 50 MB/s once past the free run (~300M dirty in 2G): well over 6 s.
    assert!(get("elapsed_s") > 6.0, "{}", get("elapsed_s"));
    assert_eq!(get("psi.memory.some_us"), 0.0);
}

/// `domain_dirty_limits()` (6.1) with `vm.dirty_bytes` / `vm.dirty_background_bytes`: the global
/// domain takes them in pages, rounded up; a memcg domain cannot, and takes them as ratios of
/// the global domain's dirtyable memory per `PAGE_SIZE` (`DIV_ROUND_UP(bytes, global_avail)`).
/// `kernel.dirty_bytes` below two pages (`dirty_bytes_min`) is refused.
#[test]
fn dirty_bytes_follow_domain_dirty_limits() {
    let g = DirtyThrottleControl::with_bytes(500_000, 0, 0, 20, 10, 256 << 20, (128 << 20) + 1, None);
    assert_eq!((g.thresh, g.bg_thresh), (65_536, 32_769));
    // A memcg domain of 10000 dirtyable pages under a global one of 500000 pages: ratios
    // ceil(268435456 / 500000) = 537 and ceil(134217729 / 500000) = 269 per 4096.
    let m = DirtyThrottleControl::with_bytes(10_000, 0, 0, 20, 10, 256 << 20, (128 << 20) + 1, Some(500_000));
    assert_eq!((m.thresh, m.bg_thresh), (537 * 10_000 / 4096, 269 * 10_000 / 4096));
    // Background not below the threshold: half of it.
    let h = DirtyThrottleControl::with_bytes(500_000, 0, 0, 20, 10, 64 << 20, 64 << 20, None);
    assert_eq!(h.bg_thresh, h.thresh / 2);
    let doc = crate::Document::from_toml(
        "t.toml",
        "[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"linux-6.1\"\ndirty_bytes = \"4K\"\n[tasks.t]\nops = []\n",
    )
    .unwrap();
    let err = doc.resolve(None, &[]).unwrap_err().to_string();
    assert!(err.contains("kernel.dirty_bytes is 4096 bytes") && err.contains("at least 8192"), "{err}");
    let s = sim("[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"linux-6.1\"\ndirty_bytes = \"256M\"\ndirty_background_bytes = \"128M\"\n[tasks.t]\nops = []\n");
    let g = s.kernel.global_dirty_limits();
    assert_eq!((g.thresh, g.bg_thresh), (65_536, 32_768));
}

/// A long run of dirty pages is written as requests of at most `max_sectors_kb` (512 KiB,
/// `MAX_REQUEST_PAGES`), each completing on its own: the bio's end_io (`ext4_end_bio()` ->
/// `folio_end_writeback()`, 6.6, ext4 in base pages) ends the writeback of its pages only, so
/// the first 128 pages of an 8 MiB run are clean after one request's transfer while the rest
/// are queued (a large folio split over two requests ends with the second). Before, the whole
/// run's pages completed with its last request: a reclaimer waiting on the first page of a
/// 120 MiB flush waited for all of it.
#[test]
fn a_long_writeback_run_completes_request_by_request() {
    let mut s = write_sim("v1", "linux-6.6", "", "", r#"{ op = "write", file = "/out", length = "8M", bufsize = "1M", create = true }"#);
    run(&mut s);
    let f = inode(&s, "/out");
    let k = &mut s.kernel;
    let t0 = k.now.max(k.devices[0].busy_until);
    k.now = t0;
    let (written, last) = k.writeback_inode(f, u64::MAX);
    assert_eq!(written, 2048);
    let req = crate::blkdev::MAX_REQUEST_PAGES;
    assert_eq!(req, 128);
    let one = req * 4096 * 1_000_000_000 / k.devices[0].write_bw; // 512 KiB at write_bw
    let done_of = |k: &Kernel, i: u32| k.wb_done[page_at(k, f, i).idx()];
    assert_eq!(done_of(k, 0), done_of(k, 127), "one request");
    assert!(done_of(k, 128) > done_of(k, 127), "the next request completes after");
    assert_eq!(done_of(k, 2047), last);
    assert!(done_of(k, 0) <= t0 + k.cost.submit_io + k.devices[0].seek_ns + one + 1, "{} {}", done_of(k, 0) - t0, one);
    // At the first request's completion only its pages leave writeback.
    k.now = done_of(k, 0);
    k.writeback_end_io();
    assert!(!k.pages[page_at(k, f, 0)].test(crate::mm_types::pg::WRITEBACK));
    assert!(k.pages[page_at(k, f, 128)].test(crate::mm_types::pg::WRITEBACK));
    assert_eq!(k.vmstat.nr_writeback, 2048 - 128);
    k.now = last;
    k.writeback_end_io();
    assert_eq!(k.vmstat.nr_writeback, 0);
    assert_invariants(k);
}

/// `balance_dirty_pages()` (6.1, 6.18) with `schedule_timeout()`'s 4.8+ timer wheel, as the host's
/// 6.18 traced it (writeback:balance_dirty_pages, a 1G writer on a 50 MB/s disk, 2026-11-28):
/// a pause of `n` jiffies ends at the tick after its expiry, so the next call, in the same
/// jiffy, finds one jiffy of think time since `dirty_paused_when = now + pause` (`think=4` ms),
/// taken off its period (`pause = period - think`). With the host's 2-jiffy periods that puts
/// the pause below `min_pause`: that call does not sleep and moves `dirty_paused_when` on by
/// the period, ahead of `now` (`think=-4`), and the next one sleeps the period plus a jiffy: the
/// kernel's writer slept in 1022 of its 2168 calls, 11.6 s of pauses for 7.7 s of their
/// periods. Before 4.8 the timer ends at the tick of its expiry: no think time.
#[test]
fn bdp_pauses_alternate_with_calls_that_find_the_timer_tick_as_think_time() {
    let paced = r#"
[scenario]
name = "paced"
[machine]
ram = "24G"
cpus = 2
[kernel]
profile = "linux-6.1"
cgroup = "v1"
dirty_bytes = "256M"
dirty_background_bytes = "128M"
[devices.sda]
read_bw = "200M"
write_bw = "50M"
[files."/out"]
size = 0
[tasks.w]
ops = [{ op = "write", file = "/out", length = "512M", bufsize = "1M", create = true }]
"#;
    let jiffy_ms = 1000 / HZ as i64;
    for round_up in [true, false] {
        let mut s = sim(paced);
        s.kernel.profile.timer_wheel_round_up = round_up;
        s.kernel.bdp_log = Some(Vec::new());
        run(&mut s);
        let log = s.kernel.bdp_log.take().unwrap();
        let slept: Vec<_> = log.iter().filter(|e| e.pause > 0).collect();
        assert!(slept.len() > 200, "{} pauses", slept.len());
        // The source's identity: a sleeping call's pause is its period less its think time
        // (below max_pause, which a 50 MB/s disk with 128M+ dirty does not reach).
        for e in &slept {
            assert_eq!(e.pause, e.period as i64 - e.think, "{e:?}");
        }
        // The think time the call after a sleep finds (its writer dirties ~100-200 pages in
        // well under a jiffy of CPU time).
        let after: Vec<i64> = log.windows(2).filter(|w| w[0].pause > 0).map(|w| w[1].think).collect();
        let thinks = |t: i64| after.iter().filter(|&&x| x == t).count();
        let skipped = log.iter().filter(|e| e.pause <= 0).count();
        eprintln!("round_up {round_up}: {} events, {} slept, {skipped} skipped, think after a sleep: {} x 0, {} x {jiffy_ms} ms", log.len(), slept.len(), thinks(0), thinks(jiffy_ms));
        if round_up {
            assert!(thinks(jiffy_ms) * 100 > after.len() * 95, "the extra tick found as think time after most sleeps");
        } else {
            assert!(thinks(0) * 100 > after.len() * 95, "no think time after a sleep before 4.8");
        }
        assert_invariants(&s.kernel);
    }
}

/// `mem_cgroup_wb_stats()` (mm/memcontrol.c, 6.1) reads the hierarchical `memcg_page_state()`
/// of `NR_FILE_PAGES - NR_SHMEM`, `NR_FILE_DIRTY` and `NR_WRITEBACK` (rstat's propagated
/// counts): the engine keeps them per memcg for its subtree, updated at each change. At every
/// step of two writers in sibling memcgs (one first overwriting a file it read, so that only
/// its dirty count changes) and a reader in their parent, the parent's and each child's counts
/// equal the sums of the local counters over the subtree, and the parent's dirty and writeback
/// counts take in both children's.
#[test]
fn mem_cgroup_wb_stats_reads_subtree_counts() {
    let mut s = sim(r#"
[scenario]
name = "wb-stats"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "500M"
write_bw = "100M"
[files."/a"]
size = 0
[files."/b"]
size = 0
[files."/r"]
size = "8M"
[files."/c"]
size = "16M"
[cgroups.p]
"memory.max" = "64M"
[cgroups."p/x"]
[cgroups."p/y"]
[tasks.wx]
cgroup = "p/x"
ops = [{ op = "read", file = "/c", bufsize = "1M" }, { op = "write", file = "/c", length = "16M", bufsize = "1M" }, { op = "write", file = "/a", length = "48M", bufsize = "1M", create = true, fsync = true }]
[tasks.wy]
cgroup = "p/y"
ops = [{ op = "write", file = "/b", length = "48M", bufsize = "1M", create = true }]
[tasks.r]
cgroup = "p"
ops = [{ op = "read", file = "/r", bufsize = "128K" }]
"#);
    let (p, x, y) = (memcg(&s, "p"), memcg(&s, "p/x"), memcg(&s, "p/y"));
    let (mut steps, mut both_dirty, mut writeback_seen) = (0, false, false);
    let mut check = |s: &Simulation| {
        let t = &s.kernel.memcgs;
        for m in [p, x, y, MemcgId::ROOT] {
            let (file, _, dirty, writeback) = s.kernel.mem_cgroup_wb_stats(m);
            assert_eq!(file, t.subtree_sum(m, |c| c.nr_file - c.nr_shmem), "{m:?} file");
            assert_eq!(dirty, t.subtree_sum(m, |c| c.nr_dirty), "{m:?} dirty");
            assert_eq!(writeback, t.subtree_sum(m, |c| c.nr_writeback), "{m:?} writeback");
        }
        let (_, _, dp, wp) = s.kernel.mem_cgroup_wb_stats(p);
        let (dx, dy) = (t.get(x).nr_dirty, t.get(y).nr_dirty);
        assert_eq!(dp, dx + dy + t.get(p).nr_dirty);
        both_dirty |= dx > 0 && dy > 0;
        writeback_seen |= wp > 0;
        steps += 1;
    };
    while s.step() {
        check(&s);
    }
    check(&s);
    assert!(steps > 2 && both_dirty && writeback_seen, "steps {steps}, both children dirty at once {both_dirty}, writeback {writeback_seen}");
    assert_invariants(&s.kernel);
}

/// Two files of 32M (8192 pages), /a dirtied before /b, nothing written yet, on a 16M/s disk
/// without blk-wbt (`writeback_chunk_size()`: 3072 pages), whose wb has written (an fsync of
/// /c: all the recent completions, under its background threshold); the clock past 30 s when
/// `sleep_first`, so that a kupdate cutoff can lie after a dirtying.
fn two_dirty_files(sleep_first: bool) -> (Simulation, InodeId, InodeId) {
    let sleep = if sleep_first { r#"{ op = "sleep", duration = "31s" },"# } else { "" };
    let mut s = sim(&format!(
        r#"
[scenario]
name = "two files"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
[devices.sda]
read_bw = "500M"
write_bw = "16M"
wbt_lat_usec = 0
[files."/a"]
size = 0
[files."/b"]
size = 0
[files."/c"]
size = 0
[tasks.w]
ops = [{{ op = "write", file = "/c", length = "4K", fsync = true }}, {sleep} {{ op = "write", file = "/a", length = "32M" }},
       {{ op = "write", file = "/b", length = "32M" }}]
"#
    ));
    run(&mut s);
    let (a, b) = (inode(&s, "/a"), inode(&s, "/b"));
    let k = &s.kernel;
    assert_eq!((k.mappings[a.idx()].nrdirty, k.mappings[b.idx()].nrdirty), (8192, 8192), "nothing written yet");
    assert!(k.flusher.work.is_none() && k.flusher.until == 0 && k.b_io.is_empty() && k.b_more_io.is_empty());
    (s, a, b)
}

/// fs/fs-writeback.c (6.1) `writeback_sb_inodes()` and `requeue_inode()`: a work writes
/// `writeback_chunk_size()` pages of each inode on `b_io` in turn, not the oldest inode to
/// the end of its pages, and an inode whose chunk was used up with dirty pages left goes to
/// `b_more_io`; `writeback_chunk_size()` takes at most the work's `nr_pages` left and rounds
/// up to `MIN_WRITEBACK_PAGES`, so a work's last chunk may write more than it asked
/// (`work->nr_pages` goes negative). Reclaim's full flush of two chunks' worth (the engine
/// before: the first 2 chunks of /a, /b untouched).
#[test]
fn writeback_sb_inodes_writes_a_chunk_of_each_inode_requeue_inode_6_1() {
    let (mut s, a, b) = two_dirty_files(false);
    let k = &mut s.kernel;
    let bw = k.devices[0].write_bw;
    let chunk = k.writeback_chunk_size(bw);
    assert_eq!(chunk, 3072, "half the device's 4096 pages/s, rounded");
    k.flusher.wakeup_left = 2 * chunk;
    k.flusher_run();
    assert!(k.flusher.work.is_none() && k.flusher.until == 0, "done, not held");
    assert_eq!(k.mappings[a.idx()].nrdirty, 8192 - chunk, "a chunk of /a");
    assert_eq!(k.mappings[b.idx()].nrdirty, 8192 - chunk, "then a chunk of /b");
    assert_eq!(k.b_more_io.iter(None).collect::<Vec<_>>(), vec![a, b], "both used their slice: b_more_io, in turn");
    assert!(k.b_io.is_empty());
    // A work of 100 pages: writeback_chunk_size() = round_down(min(.., 100) + 1024, 1024).
    assert_eq!(k.writeback_chunk_size_nr(bw, 100), crate::page_writeback::MIN_WRITEBACK_PAGES);
    k.flusher.wakeup_left = 100;
    k.flusher_run();
    assert_eq!(k.mappings[a.idx()].nrdirty, 8192 - chunk - crate::page_writeback::MIN_WRITEBACK_PAGES, "queue_io() spliced b_more_io: /a first");
    assert_eq!(k.mappings[b.idx()].nrdirty, 8192 - chunk, "the work's nr_pages was used up by /a's chunk");
    assert_eq!(k.b_io.iter(None).collect::<Vec<_>>(), vec![b], "what the work did not reach stays on b_io");
    assert_eq!(k.b_more_io.iter(None).collect::<Vec<_>>(), vec![a]);
    assert_invariants(k);
}

/// fs/fs-writeback.c (6.1) `wb_check_old_data_flush()` -> `wb_writeback()`: the periodic work
/// writes at most `nr_pages` (`get_nr_dirty_pages()` when it starts), a chunk of an inode at a
/// time, not every expired inode whole (the engine before: all 8192 pages); its cutoff is
/// `dirty_expire_interval` before now, recomputed as it goes (3.1+): /b, dirtied 1 s ago, stays
/// dirty. A work started with 1024 dirty pages counted writes one rounded chunk of /a.
#[test]
fn kupdate_work_stops_at_its_nr_pages_wb_writeback_6_1() {
    use crate::page_writeback::{WbReason, WbWork};
    let (mut s, a, b) = two_dirty_files(true);
    let k = &mut s.kernel;
    let bw = k.devices[0].write_bw;
    // /a as if dirtied 30 s before now: expired; /b young.
    k.mappings[a.idx()].dirtied_when = k.now - crate::page_writeback::DIRTY_EXPIRE_INTERVAL;
    let j = k.jiffies();
    k.flusher.work = Some(WbWork { reason: WbReason::Periodic, key: Some(0), nr_pages: 1024, start: j, slice_start: j });
    k.flusher_run();
    assert!(k.flusher.work.is_none() && k.flusher.until == 0);
    let chunk = k.writeback_chunk_size_nr(bw, 1024);
    assert_eq!(chunk, 2048);
    assert_eq!(k.mappings[a.idx()].nrdirty, 8192 - chunk, "one chunk: nr_pages used up");
    assert_eq!(k.mappings[b.idx()].nrdirty, 8192, "young: left on b_dirty");
    assert_eq!(k.b_more_io.iter(None).collect::<Vec<_>>(), vec![a], "its chunk used up with pages left");
    assert_invariants(k);
}

/// The runners' setup writes every declared disk file before the tasks, through the bdi's root
/// wb: 6.1's global writeback domain holds those completions when the run starts
/// (`__wb_writeout_add()` -> `wb_domain_writeout_add()`, aged by `writeout_period()` every
/// `VM_COMPLETIONS_PERIOD_LEN` from the first one), so a memcg wb that starts writing in the run
/// has share 0 of the global thresholds (`__wb_calc_thresh()`'s `fprop_fraction_percpu()`) and
/// `wb_over_bg_thresh()` asks background writeback of it while the global dirty count is far
/// under the background threshold; the share grows as its own completions add and the
/// setup's age (the 6.1 QEMU guest trace, lab/validation/trace-wbt-reader-1130).
/// The scenario of [`setup_writes_hold_the_global_domain_share_wb_calc_thresh_6_1`] with
/// `validation` as its `[validation]` table's lines.
fn setup_writes_scenario(validation: &str) -> Simulation {
    sim(&format!(r#"
[scenario]
name = "setup"
[machine]
ram = "512M"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
dirty_bytes = "64M"
dirty_background_bytes = "32M"
[devices.sda]
read_bw = "100M"
write_bw = "16M"
[files."/src"]
size = "64M"
[mounts."/shm"]
fs = "tmpfs"
[files."/shm/x"]
size = "8M"
[cgroups.w]
[tasks.t]
cgroup = "w"
ops = [{{ op = "write", file = "/out", length = "1M", bufsize = "1M", create = true }}]
[validation]
{validation}
"#))
}

#[test]
fn setup_writes_hold_the_global_domain_share_wb_calc_thresh_6_1() {
    let s = setup_writes_scenario("on = \"qemu\"");
    // 16384 pages written back over the 4 s before the run: 12288 by the period 3 s after the
    // first (halved: 6144), 4096 after it; the next period 2 s into the run. The tmpfs file and
    // the file the task creates are not written by the setup.
    assert_eq!(s.kernel.wb_domain.0.events, 10240);
    assert_eq!(s.kernel.wb_domain.1, 2_000_000_000);
    assert_eq!(s.kernel.wb_completions[0].events, 10240);
    let w = memcg(&s, "w");
    let key = w.0 + 1;
    let bg = s.kernel.global_dirty_limits().bg_thresh;
    assert_eq!(bg, 8192);
    assert_eq!(s.kernel.wb_calc_thresh(key, bg, 0), 0, "the run's memcg wb has no share yet");
    assert_eq!(s.kernel.wb_calc_thresh(0, bg, 0), bg, "the root wb has it all");
    // The host runner's setup is the same (real.py `_populate()`).
    assert_eq!(setup_writes_scenario("on = \"host\"").kernel.wb_domain.0.events, 10240);
}

/// Only a runner writes the declared files just before the tasks: a scenario no runner records
/// (no `[validation] on`: users' scenarios, seeds) starts 6.1's global writeback domain
/// (`wb_domain_writeout_add()`'s `completions`) empty, its declared files' completions long
/// aged away by `writeout_period()`, and the first wb to complete a page in the run has the
/// whole share (`__wb_calc_thresh()`'s `fprop_fraction_percpu()`); a `[validation] on` that is
/// not a runner is refused with the place and the fix.
#[test]
fn no_runner_no_setup_writes_in_the_global_domain_wb_domain_writeout_add_6_1() {
    let s = setup_writes_scenario("");
    assert_eq!(s.kernel.wb_domain.0.events, 0);
    assert_eq!(s.kernel.wb_domain.1, 0, "writeout_period()'s timer not started");
    assert!(s.kernel.wb_completions.iter().all(|c| c.events == 0));
    let head = "[scenario]\nname = \"s\"\n[machine]\nram = \"1G\"\n[tasks.t]\nops = [{ op = \"sleep\", duration = \"1s\" }]\n";
    let doc = |v: &str| crate::Document::from_toml("s.toml", &format!("{head}[validation]\non = {v}\n")).unwrap();
    let e = doc("\"ssh\"").resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("validation.on must be \"host\" or \"qemu\", not \"ssh\"") && e.contains("memtwin real --on host"), "{e}");
    let e = doc("1").resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("validation.on must be a string"), "{e}");
    assert!(doc("\"host\"").resolve(None, &[]).unwrap().runner_setup);
    assert!(doc("\"qemu\"").resolve(None, &[]).unwrap().runner_setup);
    let none = crate::Document::from_toml("s.toml", head).unwrap();
    assert!(!none.resolve(None, &[]).unwrap().runner_setup);
}

/// The runner's set-up writes as its recording timed them (`[validation] setup_writes`, the
/// QEMU runner's @@SETUPW/@@START lines since wbt23): each write's completions end `ended`
/// before the tasks, and `writeout_period()` (6.1 mm/page-writeback.c, the global domain's
/// `fprop_new_period()` every `VM_COMPLETIONS_PERIOD_LEN`) ages them over the time between,
/// where the declared files alone, back to back and ending at the start, leave them unaged.
#[test]
fn timed_setup_writes_age_over_the_gap_writeout_period_6_1() {
    // /src's 64M (4 s at 16M/s) ending 7 s before the tasks, a 16M calibration file (1 s)
    // ending 1 s before: times from the first completion, the run at 11 s. The timer's
    // boundaries at 3 s (12288 completed: 6144), 6 s (10240: 5120) and 9 s (2560), then
    // the 4096 of the second write: 6656, the next boundary 12 s, 1 s into the run.
    let s = setup_writes_scenario("on = \"qemu\"\nsetup_writes = [{ size = \"64M\", ended = \"7s\" }, { size = 16777216, ended = \"1s\" }]");
    assert_eq!(s.kernel.wb_domain.0.events, 6656);
    assert_eq!(s.kernel.wb_completions[0].events, 6656);
    assert_eq!(s.kernel.wb_domain.1, 1_000_000_000);
    // Ending as the tasks start, the same writes are the untimed default's arithmetic: 64M
    // then 16M back to back over 5 s (12288 by 3 s, halved, then 8192 more: 14336).
    let s = setup_writes_scenario("on = \"qemu\"\nsetup_writes = [{ size = \"64M\", ended = \"1s\" }, { size = \"16M\", ended = \"0s\" }]");
    assert_eq!(s.kernel.wb_domain.0.events, 14336);
    assert_eq!(s.kernel.wb_domain.1, 1_000_000_000);
    // Bad input: the place and the fix.
    let e = |v: &str| crate::Document::from_toml("s.toml", &format!("[scenario]\nname = \"s\"\n[machine]\nram = \"1G\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1s\" }}]\n[validation]\n{v}\n")).unwrap().resolve(None, &[]).unwrap_err().to_string();
    let m = e("setup_writes = [{ size = \"1M\", ended = \"1s\" }]");
    assert!(m.contains("validation.setup_writes needs validation.on") && m.contains("setup_writes = [{ size"), "{m}");
    let m = e("on = \"qemu\"\nsetup_writes = [{ size = \"1M\" }]");
    assert!(m.contains("a validation.setup_writes entry has no ended"), "{m}");
    let m = e("on = \"qemu\"\nsetup_writes = [{ size = \"1M\", ended = \"1s\", when = 3 }]");
    assert!(m.contains("unknown key \"when\" in a validation.setup_writes entry"), "{m}");
    let m = e("on = \"qemu\"\nsetup_writes = \"16M\"");
    assert!(m.contains("validation.setup_writes must be an array of tables, not a string"), "{m}");
}

/// The allocation's kept earliest-due time (`Kernel::alloc_due`, issue 17): a file write's
/// completion queued after the last allocation lowers it (`wb_queue`'s push), so the first
/// allocation at or after the completion ends the writeback (`folio_end_writeback()`, run as
/// `__alloc_pages()` did each time before: `writeback_end_io()`, 6.1) with no other test due.
/// Without the push's `alloc_due` update this fails (the allocation's assertion, or the
/// pages left under writeback).
#[test]
fn an_allocation_after_a_queued_write_completes_it() {
    let mut s = write_sim("v1", "linux-6.1", "", "", r#"{ op = "write", file = "/out", length = "1M", bufsize = "1M", create = true }"#);
    run(&mut s);
    let f = inode(&s, "/out");
    let k = &mut s.kernel;
    k.now = k.now.max(k.devices[0].busy_until) + 1_000_000_000;
    k.writeback_end_io();
    let gfp = crate::page_alloc::Gfp::kernel(0);
    k.alloc_pages(0, gfp).expect("a free page");
    assert!(k.alloc_due > k.now, "nothing due after the allocation: {} {}", k.alloc_due, k.now);
    let (written, last) = k.writeback_inode(f, u64::MAX);
    assert_eq!(written, 256);
    assert!(k.alloc_due <= last, "the queued completion lowered alloc_due");
    k.now = last;
    k.alloc_pages(0, gfp).expect("a free page");
    assert_eq!(k.vmstat.nr_writeback, 0, "the allocation ended the writeback");
}
