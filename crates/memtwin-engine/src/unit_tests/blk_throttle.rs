//! blk-throttle (blk_throttle.rs) held to block/blk-throttle.c as 6.18 has it.

use crate::blk_throttle::{calculate_bytes_allowed, ThrotlGrp, THROTL_SLICE};
use crate::timer::NSEC_PER_JIFFY;

const MS: u64 = 1_000_000;

/// `tg_within_bps_limit()` (6.18) allows `bps` over the time elapsed in the slice rounded up to
/// whole slices (`DFL_THROTL_SLICE` = `HZ / 10`): a backlog of 512 KiB writeback bios under a
/// 150 MiB/s rule leaves the throttle a slice's worth at a time, 15 MiB (30 bios) every 100
/// ms, the first at once, the next when the pending timer fires (`tg_update_disptime()`:
/// jiffies + the wait, rounded by the timer wheel). Traced on the host (6.18, 2026-11-28,
/// block:block_rq_issue of loop0): bursts of 16 MiB every 100-112 ms.
#[test]
fn tg_within_bps_limit_grants_a_slice_at_a_time() {
    assert_eq!(THROTL_SLICE * NSEC_PER_JIFFY, 100 * MS, "DFL_THROTL_SLICE = HZ / 10");
    let bps = 150u64 << 20;
    let mut g = ThrotlGrp::default();
    let t0 = 1_000 * MS;
    let times: Vec<u64> = (0..200u64).map(|i| g.throtl_bio(512 << 10, t0 + i * 10_000, bps)).collect();
    // The first slice's worth goes as it is submitted.
    let slice_bios = (calculate_bytes_allowed(bps, THROTL_SLICE) / (512 << 10)) as usize;
    assert_eq!(slice_bios, 30);
    for (i, &t) in times.iter().enumerate().take(slice_bios) {
        assert_eq!(t, t0 + i as u64 * 10_000, "bio {i} within the first slice");
    }
    // Then bursts: every bio of a burst leaves at the same tick, a slice after the last.
    let mut bursts: Vec<(u64, usize)> = vec![];
    for &t in &times[slice_bios..] {
        match bursts.last_mut() {
            Some((bt, n)) if *bt == t => *n += 1,
            _ => bursts.push((t, 1)),
        }
    }
    assert!(bursts.len() >= 5, "{bursts:?}");
    let (full, last) = bursts.split_at(bursts.len() - 1);
    for (i, &(t, n)) in full.iter().enumerate() {
        assert_eq!(n, slice_bios, "burst {i} at {} ms is a slice's worth: {bursts:?}", (t - t0) / MS);
        assert_eq!(t % NSEC_PER_JIFFY, 0, "the pending timer fires on a tick");
    }
    for w in full.windows(2) {
        assert_eq!(w[1].0 - w[0].0, THROTL_SLICE * NSEC_PER_JIFFY, "one burst per slice: {bursts:?}");
    }
    // The first queued bio waits for the next slice plus its own jiffy of bytes
    // (`max(extra_bytes * HZ / bps, 1)`) and the wheel's rounding up of its timer: 108 ms.
    assert_eq!(bursts[0].0 - t0, 108 * MS, "{bursts:?}");
    assert!(last[0].1 <= slice_bios);
    // The rule holds on average: 100 MiB in about 100/150 s.
    let end = *times.last().unwrap() - t0;
    assert!(end > 600 * MS && end < 700 * MS, "{end}");
}

/// `throtl_trim_slice()` (6.18): once two whole slices have elapsed, the slice's start moves
/// forward by the whole slices less one ("one extra slice is preserved for deviation") and
/// `bytes_disp` loses the bytes they allowed (`throtl_trim_bps()`, clamped at 0); a used slice
/// is not trimmed, and a group with nothing queued whose slice is used starts a new one
/// (`tg_update_slice()` -> `throtl_start_new_slice(tg, rw, true)`): no credit for idle time.
#[test]
fn throtl_trim_slice_keeps_one_slice_and_an_idle_group_starts_anew() {
    let bps = 100u64 << 20;
    let mut g = ThrotlGrp { slice_start: 1000, slice_end: 1100, bytes_disp: 50 << 20, queued_until: 0, trim_all: false, ..Default::default() };
    // 1.5 slices elapsed: nothing trimmed.
    g.trim_slice(1037, bps);
    assert_eq!((g.slice_start, g.bytes_disp), (1000, 50 << 20));
    assert_eq!(g.slice_end, 1075, "throtl_set_slice_end(): jiffies + slice, rounded up to a slice");
    // 2.8 slices: rounddown to 2, less 1: 1 slice (100 ms, 10 MiB) trimmed.
    g.trim_slice(1070, bps);
    assert_eq!(g.slice_start, 1025);
    assert_eq!(g.bytes_disp, (50 << 20) - calculate_bytes_allowed(bps, THROTL_SLICE));
    assert_eq!(g.slice_end, 1100);
    // Past its end the slice is used: not trimmed.
    let before = g;
    g.trim_slice(1200, bps);
    assert_eq!(g, before);
    // Idle for a second: the next bio starts a new slice at once, with nothing dispatched.
    let now = 1_000 * MS + 5 * 1_000 * MS;
    let t = g.throtl_bio(1 << 20, now, bps);
    assert_eq!(t, now);
    assert_eq!(g.slice_start, now / NSEC_PER_JIFFY);
    assert_eq!(g.bytes_disp, 1 << 20);
}

/// `throtl_trim_slice()` before v6.15 (Debian's 6.1 source: `time_elapsed = rounddown(jiffies -
/// slice_start, throtl_slice); if (!time_elapsed) return;`): every whole slice elapsed is
/// trimmed from the first, where 6.18 keeps one (29cb95593430). The profiles say which: 6.18
/// keeps one, 6.12 and 6.1 do not, and a throttled device of the scenario takes its era's.
#[test]
fn throtl_trim_slice_before_6_15_trims_every_whole_slice() {
    let bps = 100u64 << 20;
    let mut g = ThrotlGrp { slice_start: 1000, slice_end: 1100, bytes_disp: 50 << 20, queued_until: 0, trim_all: true, ..Default::default() };
    // 1.5 slices elapsed: 1 slice trimmed (6.18: nothing).
    g.trim_slice(1037, bps);
    assert_eq!(g.slice_start, 1025);
    assert_eq!(g.bytes_disp, (50 << 20) - calculate_bytes_allowed(bps, THROTL_SLICE));
    // 2.8 slices from the first start: 1.8 from the new one, one more slice trimmed.
    g.trim_slice(1070, bps);
    assert_eq!(g.slice_start, 1050);
    assert_eq!(g.bytes_disp, (50 << 20) - 2 * calculate_bytes_allowed(bps, THROTL_SLICE));
    // Less than a slice: nothing.
    let before = g;
    g.trim_slice(1060, bps);
    assert_eq!((g.slice_start, g.bytes_disp), (before.slice_start, before.bytes_disp));
    for (name, keeps) in [("linux-6.18", true), ("linux-6.12", false), ("linux-6.1", false)] {
        assert_eq!(crate::profile::profile(name).unwrap().throtl_trim_keeps_one_slice, keeps, "{name}");
        let s = crate::unit_tests::sim(&format!(r#"
[scenario]
name = "trim"
[machine]
ram = "256M"
[kernel]
profile = "{name}"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
blk_throttle = true
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        assert!(s.kernel.devices[0].throtl.iter().all(|g| g.trim_all == !keeps), "{name}");
    }
}

/// `__blk_throtl_bio()` (block/blk-throttle.c, 6.18) queues a bio only behind the bios already
/// in the group's service queue (`sq_queued()`), which were submitted before it. The engine
/// runs each task's quantum whole, so one task's long reclaim call may submit bios at clocks
/// ahead of another task's next bio (hogswap23: host-stall-hog-swap's three reclaimers, the
/// others' earlier bios waiting up to 13 ms behind bios let through at once). Such an early
/// bio goes at its own time when the rule allows it, charged against the same slice (which
/// never moves back); only the rule holds it; bios submitted in time order keep the FIFO
/// behind a bio the throttle holds, and over any run of submissions the bytes let through
/// stay within the rule's slices.
#[test]
fn throtl_bio_early_bio_is_not_queued_behind_later_ones() {
    let bps = 150u64 << 20;
    let t0 = 1_000 * MS;
    // A later task's bio let through at once at t0 + 20 ms; then an early one (t0 + 5 ms).
    let mut g = ThrotlGrp::default();
    assert_eq!(g.throtl_bio(64 << 10, t0 + 20 * MS, bps), t0 + 20 * MS);
    assert_eq!(g.throtl_bio(64 << 10, t0 + 5 * MS, bps), t0 + 5 * MS, "an early bio within the rule goes at its own time");
    assert_eq!(g.bytes_disp, 128 << 10, "charged against the same slice");
    assert_eq!(g.last_j, (t0 + 20 * MS) / NSEC_PER_JIFFY, "the slice's time does not move back");
    // In time order, behind a held bio: still FIFO.
    let mut h = ThrotlGrp::default();
    let slice = calculate_bytes_allowed(bps, THROTL_SLICE);
    assert_eq!(h.throtl_bio(slice, t0, bps), t0, "a slice's worth goes at once");
    let held = h.throtl_bio(4096, t0 + MS, bps);
    assert!(held >= t0 + 100 * MS, "the next bio waits for the next slice: {held}");
    assert_eq!(h.throtl_bio(4096, t0 + 2 * MS, bps), held, "a later bio goes behind the held one");
    // An early bio over the rule is held from the group's time, not let through.
    let early = h.throtl_bio(4096, t0 + MS / 2, bps);
    assert!(early >= t0 + 100 * MS && early <= held, "over the rule an early bio waits for the next slice, not behind later bios: {early} {held}");
    // Out-of-order submissions of a burst: the bytes let through by any instant stay within
    // the slices elapsed (rounded up) plus one slice of the engine's disorder.
    let mut k = ThrotlGrp::default();
    let mut out = vec![];
    for i in 0..400u64 {
        // Three "tasks" whose clocks interleave 0-30 ms apart.
        let now = t0 + (i / 3) * MS + (i % 3) * 10 * MS;
        out.push(k.throtl_bio(128 << 10, now, bps));
    }
    out.sort_unstable();
    for (n, &t) in out.iter().enumerate() {
        let elapsed = (t - t0) / NSEC_PER_JIFFY;
        let slices = elapsed.div_ceil(THROTL_SLICE).max(1) + 1;
        assert!((n as u64 + 1) * (128 << 10) <= calculate_bytes_allowed(bps, slices * THROTL_SLICE), "bio {n} at {} ms", (t - t0) / MS);
    }
}

/// `__blk_throtl_bio()` (block/blk-throttle.c, Debian's 6.12 source; 6.18 the same with
/// `throtl_charge_bps_bio()`): a bio `bio_issue_as_root_blkg()` names (`REQ_META | REQ_SWAP`, a
/// swap write) is never queued: over the limit, or behind queued bios, it is charged and
/// dispatched at once, and the bios after it pay the debt. Traced on the host (6.18.44,
/// hogswap23, trace-hog-swap-1130/quiet-lead-2330: the swap bios of host-stall-hog-swap's hog 1
/// passed a 150 MiB/s rule's budget by up to 2,245 pages, none held). Debian's 6.1 has no such
/// branch: its swap writes wait as any bio (profile `throtl_swap_in_debt`).
#[test]
fn throtl_bio_in_debt_dispatches_a_swap_write_over_the_limit_6_12() {
    let bps = 150u64 << 20;
    let t0 = 1_000 * MS;
    let slice = calculate_bytes_allowed(bps, THROTL_SLICE);
    let mut g = ThrotlGrp::default();
    assert_eq!(g.throtl_bio(slice, t0, bps), t0, "a slice's worth goes at once");
    // Over the limit: a swap write goes at once, charged.
    assert_eq!(g.throtl_bio_in_debt(8 << 20, t0 + MS, bps), t0 + MS);
    assert_eq!(g.bytes_disp, slice + (8 << 20));
    // An ordinary bio now waits for the debt too: past the next slice by the debt's time.
    let mut plain = ThrotlGrp::default();
    plain.throtl_bio(slice, t0, bps);
    let without = plain.throtl_bio(4096, t0 + 2 * MS, bps);
    let with = g.throtl_bio(4096, t0 + 2 * MS, bps);
    assert!(with > without, "the bio after the debt waits longer: {with} vs {without}");
    // Behind a queued bio: a swap write still goes at once.
    assert_eq!(g.throtl_bio_in_debt(4096, t0 + 3 * MS, bps), t0 + 3 * MS);
    // On the device: a swap write is in debt only in the eras that have it.
    for (name, debt) in [("linux-6.18", true), ("linux-6.12", true), ("linux-6.6", true), ("linux-6.1", false)] {
        assert_eq!(crate::profile::profile(name).unwrap().throtl_swap_in_debt, debt, "{name}");
        let mut d = crate::blkdev::BlockDevice::throttled("sda", 200 << 20, bps, 0, 128);
        let pages = slice / 4096;
        d.submit(crate::blkdev::Dir::Write, 0, pages, t0);
        let done = d.submit_swap_write(10_000, 1, t0 + MS, debt);
        if debt {
            assert!(done < t0 + 10 * MS, "{name}: the swap write is not held: {done}");
        } else {
            assert!(done >= t0 + 100 * MS, "{name}: the swap write waits for the next slice: {done}");
        }
    }
}

/// The decisions 6.18's blk-throttle logged on the host for the throttled 1G ra8192 read under its
/// 524,288,000 B/s read rule (throtl21, 2026-12-01: the blk tracer's `throtl_log()` notes of
/// block/blk-throttle.c on 6.18.44, lab/validation/trace-throtl-1201/blk-1g-1.txt.xz), each
/// reproduced from the state the kernel logged with it. `tg_within_bps_limit()`: `[R] bio.
/// bdisp=49250304 sz=8388608` at jiffies 4303649669 in the slice started at 4303649663 (elapsed 6,
/// one slice allowed) -> `schedule timer. delay=21`; `bdisp=101122048 sz=12058624` at 4303649698
/// (elapsed 35, rounded up to two slices) -> `delay=18`. `throtl_trim_slice()` at the dispatch
/// round of jiffies 4303649717: `trim slice nr=1 bytes=52428800 start=4303649688 end=4303649750`
/// (two whole slices used, one kept). Replayed bio by bio at the kernel's jiffies, the rule holds
/// the same bios as the kernel in the three traces there (trace-throtl-1201/README.md).
#[test]
fn throtl_decisions_as_6_18_logged_them_on_the_host() {
    let bps = 524_288_000;
    let s0 = 4_303_649_663u64;
    let g = ThrotlGrp { slice_start: s0, slice_end: 4_303_649_688, bytes_disp: 49_250_304, queued_until: 0, trim_all: false, ..Default::default() };
    assert_eq!(g.within_bps_limit(4_303_649_669, 8_388_608, bps), 21, "delay=21");
    // What one slice allows to the byte goes at once; a byte more waits.
    assert_eq!(g.within_bps_limit(4_303_649_669, 52_428_800 - 49_250_304, bps), 0);
    assert!(g.within_bps_limit(4_303_649_669, 52_428_800 - 49_250_304 + 1, bps) > 0);
    let g = ThrotlGrp { slice_end: 4_303_649_725, bytes_disp: 101_122_048, ..g };
    assert_eq!(g.within_bps_limit(4_303_649_698, 12_058_624, bps), 18, "delay=18");
    // The round at 4303649717 dispatches that bio first (charged: 113,180,672), then trims.
    let mut g = ThrotlGrp { slice_end: 4_303_649_750, bytes_disp: 101_122_048 + 12_058_624, ..g };
    g.trim_slice(4_303_649_717, bps);
    assert_eq!((g.slice_start, g.slice_end), (4_303_649_688, 4_303_649_750), "start=4303649688 end=4303649750");
    assert_eq!(g.bytes_disp, 101_122_048 + 12_058_624 - 52_428_800, "bytes=52428800 trimmed");
}
