//! The watermark boost (mm/page_alloc.c `__rmqueue_fallback()`, `steal_suitable_fallback()`,
//! `boost_watermark()`, `wmark_pages()`; mm/vmscan.c `balance_pgdat()`'s `nr_boost_reclaim`)
//! and the pfmemalloc throttle of direct reclaim (`allow_direct_reclaim()`,
//! `throttle_direct_reclaim()`).

use super::*;
use crate::page_alloc::{NonmovablePool, Zone, PAGEBLOCK_NR, WATERMARK_BOOST_FACTOR};
use crate::profile::{profile, FallbackSteal, KernelProfile};
use crate::vmstat::VmEvent;

/// `steal_suitable_fallback()` -> `boost_watermark()` (5.0+, 1c30844d2dfe; 6.1 and 6.12 as
/// read): a movable order-0 allocation that finds no free frame in a Movable pageblock takes
/// one of a non-movable block (`__rmqueue_fallback()`), and each such steal below pageblock
/// order raises `zone->watermark_boost` by `pageblock_nr_pages` up to `max(pageblock_nr_pages,
/// high * watermark_boost_factor / 10000)`, flags the zone `ZONE_BOOSTED_WATERMARK`, and every
/// watermark includes the boost (`wmark_pages()`). 4.4 has the fallback but no boost. The
/// boot's kernel frames claim wholly free pageblocks for themselves
/// (`change_pageblock_range()`), so the fallback is into their block. 6.10-6.12.28 take a
/// page a fallback from a block they cannot claim, each a boost (6.1's one boost a block;
/// 6.12.29+ and 6.15+ a boost a claim try:
/// `rmqueue_fallback_claims_the_largest_buddys_block_6_1_6_12_6_18`).
#[test]
fn fallback_steal_boosts_the_watermarks_5_0_not_4_4() {
    for (name, boosts) in [("linux-6.12", true), ("linux-4.4", false)] {
        let p = profile(name).unwrap();
        let managed = 16 * PAGEBLOCK_NR;
        let mut z = Zone::new(managed, &p);
        let (min0, low0, high0) = (z.wmark_min, z.wmark_low, z.wmark_high);
        // 300 kernel frames claim a wholly free block: its other 212 frames are non-movable,
        // fewer than half a block (steal_suitable_fallback() does not claim it)
        for _ in 0..300 {
            z.rmqueue_order0_unmovable().expect("free memory");
        }
        // movable allocations take every Movable frame first, with no steal
        for _ in 0..managed - PAGEBLOCK_NR {
            z.rmqueue_order0().expect("movable frames left");
        }
        assert_eq!(z.take_fallbacks(), 0, "{name}: no steal while Movable frames are free");
        assert_eq!(z.watermark_boost, 0);
        assert!(!z.boosted_flag);
        // the next one falls back into the kernel's block
        z.rmqueue_order0().expect("the non-movable block's frames");
        assert_eq!(z.take_fallbacks(), 1, "{name}");
        let max_boost = (high0 * WATERMARK_BOOST_FACTOR / 10000).max(PAGEBLOCK_NR);
        if boosts {
            assert_eq!(z.watermark_boost, PAGEBLOCK_NR.min(max_boost), "{name}: a pageblock a steal");
            assert!(z.boosted_flag, "{name}: ZONE_BOOSTED_WATERMARK");
            for _ in 0..4 {
                z.rmqueue_order0().unwrap();
            }
            assert_eq!(z.watermark_boost, max_boost, "{name}: capped at high * 15000 / 10000");
            let b = z.watermark_boost;
            assert_eq!((z.wmark_min, z.wmark_low, z.wmark_high), (min0 + b, low0 + b, high0 + b), "{name}: wmark_pages()");
            // balance_pgdat()'s end takes the boost off: the watermarks are the zone's again
            z.set_watermark_boost(0);
            assert_eq!((z.wmark_min, z.wmark_low, z.wmark_high), (min0, low0, high0));
        } else {
            assert_eq!(z.watermark_boost, 0, "{name}: no boost before 5.0");
            assert!(!z.boosted_flag);
        }
        z.check_pageblocks().unwrap();
    }
}

/// A machine whose 64M hold a `size` file read once (profile `prof`, `lru_gen` on or off).
fn read_once(prof: &str, size: &str, lru_gen: bool) -> Simulation {
    read_once_on("ram = \"64M\"", prof, size, lru_gen)
}

/// [`read_once`] on the machine `machine` (its `[machine]` keys).
fn read_once_on(machine: &str, prof: &str, size: &str, lru_gen: bool) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "boost"
[machine]
{machine}
[kernel]
profile = "{prof}"
lru_gen = {lru_gen}
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "{size}"
[tasks.cat]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
    ))
}

/// kswapd fully asleep (any short sleep ended) a second after the run.
fn settle(k: &mut Kernel) {
    let t = k.now + 1_000_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    k.kswapd_catch_up();
    assert!(!k.nodes[0].kswapd_active && k.nodes[0].kswapd_short_sleep.is_none());
}

/// `balance_pgdat()` with a boost on a node balanced at its boosted high watermark (5.0+,
/// mm/vmscan.c 6.1 and 6.12 as read): `wakeup_kswapd()` wakes kswapd for a boosted node though
/// it is balanced (`pgdat_watermark_boosted()`), and kswapd reclaims `nr_boost_reclaim` (the
/// boost) without swap or writeback at no lower priority than `DEF_PRIORITY - 2`, then takes
/// the boost off. 6.3+'s lru_gen (`lru_gen_shrink_node()`: "if (!sc->may_writepage ||
/// !sc->may_unmap) goto done") reclaims nothing in such a round: "If reclaim made no progress
/// for a boost, stop reclaim", and the boost is taken off all the same.
#[test]
fn balance_pgdat_reclaims_the_boost_of_a_balanced_node_5_0_but_not_6_12_lru_gen() {
    for (prof, lru_gen, reclaims) in [("linux-6.1", false, true), ("linux-6.12", false, true), ("linux-6.12", true, false)] {
        let mut s = read_once(prof, "24M", lru_gen);
        run(&mut s);
        let k = &mut s.kernel;
        settle(k);
        let z = k.nodes[0].zones[0];
        assert!(k.zones[z].free > k.zones[z].wmark_high + 2 * PAGEBLOCK_NR, "{prof}: room for a boost");
        let (runs, stolen) = (k.vmstat.get(VmEvent::KswapdWakeup), k.vmstat.get(VmEvent::PgstealKswapd));
        // unboosted, a balanced node leaves kswapd asleep
        k.wakeup_kswapd(0, 0);
        assert_eq!(k.vmstat.get(VmEvent::KswapdWakeup), runs, "{prof}");
        // boosted by one steal: woken, it reclaims the boost and takes it off
        k.zones[z].set_watermark_boost(PAGEBLOCK_NR);
        k.wakeup_kswapd(0, 0);
        assert_eq!(k.vmstat.get(VmEvent::KswapdWakeup), runs + 1, "{prof}: woken for the boost");
        settle(k);
        let reclaimed = k.vmstat.get(VmEvent::PgstealKswapd) - stolen;
        if reclaims {
            assert!(reclaimed >= PAGEBLOCK_NR, "{prof} lru_gen={lru_gen}: nr_boost_reclaim {reclaimed}");
            assert!(reclaimed < 3 * PAGEBLOCK_NR, "{prof} lru_gen={lru_gen}: only the boost, {reclaimed}");
        } else {
            assert_eq!(reclaimed, 0, "{prof}: may_writepage off, lru_gen_shrink_node() returns");
        }
        assert_eq!(k.zones[z].watermark_boost, 0, "{prof}: zone_boosts[] taken off at the end");
        assert_eq!(k.nodes[0].nr_boost_reclaim, 0);
        assert_invariants(k);
    }
}

/// `balance_pgdat()` with a boost on a node below its boosted high watermark (5.0+): "If the
/// pgdat is imbalanced then ignore boosting and preserve the watermarks for a later time and
/// restart": kswapd reclaims as usual (6.12 lru_gen too: writeback allowed) until the node is
/// balanced at the boosted high watermark (`pgdat_balanced()` and `kswapd_shrink_node()`'s
/// goal read `high_wmark_pages()`, which includes the boost), then takes the boost off: the
/// zone is left that far above its own high watermark.
#[test]
fn balance_pgdat_restarts_unboosted_and_balances_to_the_boosted_high_5_0() {
    for (prof, lru_gen) in [("linux-6.1", false), ("linux-6.1", true), ("linux-6.12", true)] {
        let mut s = read_once(prof, "128M", lru_gen);
        run(&mut s);
        let k = &mut s.kernel;
        settle(k);
        let z = k.nodes[0].zones[0];
        let high = k.zones[z].wmark_high;
        let boost = 2 * PAGEBLOCK_NR;
        assert!(k.zones[z].free < high + boost, "{prof}: the boost unbalances the node");
        k.zones[z].set_watermark_boost(boost);
        k.wakeup_kswapd(0, 0);
        settle(k);
        assert_eq!(k.zones[z].watermark_boost, 0, "{prof}: taken off at the end");
        assert_eq!(k.zones[z].wmark_high, high);
        assert!(k.zones[z].free >= high + boost, "{prof} lru_gen={lru_gen}: balanced at the boosted high: free {} high {high}", k.zones[z].free);
        assert_invariants(k);
    }
}

/// `throttle_direct_reclaim()` (mm/vmscan.c 3.6+; 6.1 and 6.12 as read): a direct reclaimer
/// whose node's free pages are at most half the sum of its zones' min watermarks (boosted:
/// `min_wmark_pages()`) counts `PGSCAN_DIRECT_THROTTLE`, wakes kswapd and sleeps on
/// `pfmemalloc_wait` until a `balance_pgdat()` round leaves `allow_direct_reclaim()` true
/// (or kswapd goes to sleep); above that it is not throttled.
#[test]
fn throttle_direct_reclaim_waits_for_kswapd_below_half_the_boosted_min_6_1() {
    let mut s = read_once("linux-6.1", "128M", false);
    run(&mut s);
    let k = &mut s.kernel;
    settle(k);
    let z = k.nodes[0].zones[0];
    // unboosted: free (about high) is far above half of min
    assert!(k.allow_direct_reclaim(0));
    let (t0, runs) = (k.now, k.vmstat.get(VmEvent::KswapdWakeup));
    k.throttle_direct_reclaim_pfmemalloc(0);
    assert_eq!((k.now, k.nodes[0].pgscan_direct_throttle), (t0, 0), "not throttled");
    // boosted so that half the boosted min is above the free pages
    let free = k.zones[z].free + k.zones[z].lowmem_held;
    let boost = 2 * free + 2 - k.zones[z].wmark_min + PAGEBLOCK_NR;
    k.zones[z].set_watermark_boost(boost);
    assert!(!k.allow_direct_reclaim(0));
    k.throttle_direct_reclaim_pfmemalloc(0);
    assert_eq!(k.nodes[0].pgscan_direct_throttle, 1);
    assert!(k.vmstat.get(VmEvent::KswapdWakeup) > runs, "allow_direct_reclaim() woke kswapd");
    assert!(k.now > t0, "the task slept until kswapd woke it");
    assert!(k.allow_direct_reclaim(0), "woken with the test true");
    assert_eq!(k.nodes[0].pfmemalloc_waiters, 0);
    // the allocator's direct reclaim (__alloc_pages_direct_reclaim() -> try_to_free_pages())
    // is throttled the same way
    settle(k);
    let free = k.zones[z].free + k.zones[z].lowmem_held;
    let boost = (2 * free + 2).saturating_sub(k.zones[z].wmark_min - k.zones[z].watermark_boost) + PAGEBLOCK_NR;
    k.zones[z].set_watermark_boost(boost);
    assert!(!k.allow_direct_reclaim(0));
    let stalls = k.vmstat.get(VmEvent::AllocstallMovable) + k.vmstat.get(VmEvent::AllocstallNormal);
    let p = k.alloc_page(InodeId(0), 0).expect("reclaimable page cache");
    assert!(k.vmstat.get(VmEvent::AllocstallMovable) + k.vmstat.get(VmEvent::AllocstallNormal) > stalls, "a direct reclaim");
    assert_eq!(k.nodes[0].pgscan_direct_throttle, 2, "throttled before it");
    k.free_page(p);
    assert_invariants(k);
}

/// A reader's stream on a 256M machine whose boot left part of a kernel pageblock free
/// (qemu612-lrugen-global-stream's shape, at the reference machine's pace): on 6.12 the 6.7+
/// per-CPU refills (up to `batch << 5` frames, taken below the watermarks) run the zone's
/// Movable frames out and fall back into the kernel's pageblock, whose mostly free block the
/// first fallback claims: one steal, one `boost_watermark()` (5.0+; 6.12.29+'s
/// `try_to_steal_block()` boosts before its claim test as 6.12.0's `steal_suitable_fallback()`
/// did); 4.4 never boosts. Pages are conserved and the pageblock lists hold
/// (`check_pageblocks()` in the invariants).
#[test]
fn a_612_stream_falls_back_and_boosts_where_4_4_does_not() {
    for (prof, boosts) in [("linux-6.12", true), ("linux-4.4", false)] {
        let mut s = read_once_on("ram = \"256M\"\nboot_used = \"29M\"", prof, "512M", false);
        run(&mut s);
        let k = &mut s.kernel;
        let steals: u64 = (0..k.zones.len()).map(|z| k.zones[z].take_fallbacks()).sum();
        if boosts {
            assert!(steals > 0, "{prof}: the per-CPU refills ran the Movable frames out");
        }
        let pgscan = k.vmstat.get(VmEvent::PgscanKswapd);
        assert!(pgscan > 0, "{prof}");
        assert_invariants(k);
        let boosted: u64 = k.zones.iter().map(|z| z.boost_events).sum();
        if boosts {
            assert_eq!(boosted, steals, "{prof}: boost_watermark() per steal");
        } else {
            assert_eq!(boosted, 0, "{prof}");
            assert!(k.zones.iter().all(|z| z.watermark_boost == 0 && !z.boosted_flag), "{prof}");
        }
    }
}

/// `prof`'s profile with the fallback of another era: `FallbackSteal::ExpandOwn` is 6.10-6.12.28's
/// (and 6.13-6.14's), which no profile has since linux-6.12 took the 6.12.y backports (pool22c).
fn profile_with(prof: &str, fallback_steal: Option<FallbackSteal>) -> KernelProfile {
    let p = profile(prof).unwrap();
    KernelProfile { fallback_steal: fallback_steal.unwrap_or(p.fallback_steal), ..p }
}

/// A zone of `blocks` pageblocks whose boot left `frames` kernel frames and the non-movable
/// free buddies `pool` (orders 0..=8) in claimed pageblocks, with every Movable frame then
/// taken by movable allocations (no fallback among them).
fn zone_with_pool(prof: &str, blocks: u64, frames: u64, pool: [u64; 9]) -> Zone {
    zone_with_pool_of(prof, None, blocks, frames, pool)
}

/// [`zone_with_pool`] with `prof`'s fallback replaced by `fallback_steal`.
fn zone_with_pool_of(prof: &str, fallback_steal: Option<FallbackSteal>, blocks: u64, frames: u64, pool: [u64; 9]) -> Zone {
    let p = profile_with(prof, fallback_steal);
    let mut z = Zone::new(blocks * PAGEBLOCK_NR, &p);
    let pool = NonmovablePool::Buddies(pool);
    assert_eq!(z.take_boot_frames_pooled(frames, &pool).len() as u64, frames);
    assert_eq!(z.nonmovable_free(), pool.pages(), "{prof}: the pool's buddies all placed");
    for _ in 0..blocks * PAGEBLOCK_NR - frames - pool.pages() {
        z.rmqueue_order0().expect("movable frames");
    }
    assert_eq!(z.take_fallbacks(), 0, "{prof}: no fallback while Movable frames are free");
    z.steal_mode = false;
    z.check_pageblocks().unwrap();
    z
}

/// `__rmqueue_fallback()` (mm/page_alloc.c, 6.1 as read; the same loop in 6.12): the largest
/// non-movable buddy first; at order >= `pageblock_order / 2` (`can_steal_fallback()`) its
/// block is claimed when its free and movable pages reach half a pageblock
/// (`steal_suitable_fallback()`): a block whose boot left an order-8 buddy (256 free, 256
/// kernel frames) is claimed by the first fallback, one `boost_watermark()`, and its other
/// 255 free frames are then Movable ones (no fallback, no boost). A block with an order-7
/// buddy (384 kernel frames) is not claimed: 6.1 moves its free pages to the Movable lists
/// (`move_freepages_block()`): one fallback and one boost for its 128 frames; 6.10-6.12.28
/// (`page_del_and_expand(..., block_type)`, "6.12.0" below) take one page a fallback: 128
/// fallbacks and boosts. 6.18 (`__rmqueue_claim()` then `__rmqueue_steal()`, 6.15+) and
/// linux-6.12 (6.12.29+: the 6.12.y backports of c2f6ea38fc1b "mm: page_alloc: don't steal
/// single pages from biggest buddy" and 90abee6d7895 "mm: page_alloc: speed up fallbacks in
/// rmqueue_bulk()", in Debian's 6.12.117: `__rmqueue_claim()` with `try_to_steal_block()`)
/// boost at each order >= 4 they try to claim and steal with no boost; within one per-CPU
/// refill (`rmqueue_bulk()`'s `rmqueue_mode`) a failed claim makes the later fallbacks steal
/// directly.
#[test]
fn rmqueue_fallback_claims_the_largest_buddys_block_6_1_6_12_6_18() {
    for (base, mode, prof) in [
        ("linux-6.1", None, "linux-6.1"),
        ("linux-6.12", Some(FallbackSteal::ExpandOwn), "6.12.0"),
        ("linux-6.12", None, "linux-6.12"),
        ("linux-6.18", None, "linux-6.18"),
    ] {
        let claim_steal = profile_with(base, mode).fallback_steal == FallbackSteal::ClaimSteal;
        let mut z = zone_with_pool_of(base, mode, 8, 640, [0, 0, 0, 0, 0, 0, 0, 1, 1]);
        let nm = z.nonmovable_free();
        let first = z.rmqueue_order0().unwrap();
        assert_eq!(first % PAGEBLOCK_NR, 256, "{prof}: the order-8 buddy's first frame");
        assert_eq!((z.take_fallbacks(), z.boost_events), (1, 1), "{prof}: one fallback, one boost");
        assert_eq!(z.nonmovable_free(), nm - 256, "{prof}: its block claimed (Movable now)");
        for _ in 0..255 {
            z.rmqueue_order0().unwrap();
        }
        assert_eq!((z.take_fallbacks(), z.boost_events), (0, 1), "{prof}: the claimed block's frames are Movable");
        let second = z.rmqueue_order0().unwrap();
        assert_eq!(second % PAGEBLOCK_NR, 384, "{prof}: the order-7 buddy's first frame");
        let (fallbacks, boosts) = match prof {
            "linux-6.1" => (1, 2),
            "6.12.0" => (128, 129),
            _ => (128, 5),
        };
        assert_eq!(claim_steal, matches!(prof, "linux-6.12" | "linux-6.18"), "{prof}");
        let mut n = 1;
        if claim_steal {
            assert_eq!(z.boost_events, 2, "{prof}: the try at order 7 boosted");
            assert!(z.steal_mode, "{prof}: RMQUEUE_STEAL after the failed claim");
            // a new allocation outside the refill starts at RMQUEUE_NORMAL: it tries to claim
            // at orders 6, 5 and 4 of the split buddy (three boosts) before it steals
            z.steal_mode = false;
            z.rmqueue_order0().unwrap();
            n += 1;
            assert_eq!(z.boost_events, 5, "{prof}: try_to_claim_block() at each order >= 4");
            assert!(z.steal_mode);
        }
        while z.rmqueue_order0().is_some() {
            n += 1;
        }
        assert_eq!(n, 128, "{prof}");
        assert_eq!((z.take_fallbacks(), z.boost_events), (fallbacks, boosts), "{prof}: the unclaimed block");
        z.check_pageblocks().unwrap();
    }
}

/// `__rmqueue_fallback()`'s `find_smallest` (6.1 as read): with no non-movable buddy of order
/// >= `pageblock_order / 2` the smallest one is taken, and 6.1's `steal_suitable_fallback()`
/// moves it whole to the Movable lists (`move_to_free_list()`): buddies of orders 0, 2 and 3
/// (13 frames) are three fallbacks, smallest first; 6.12 takes a page a fallback (13).
#[test]
fn rmqueue_fallback_takes_the_smallest_buddy_below_order_4_6_1() {
    for (prof, fallbacks) in [("linux-6.1", 3), ("linux-6.12", 13)] {
        let mut z = zone_with_pool(prof, 4, 499, [1, 0, 1, 1, 0, 0, 0, 0, 0]);
        let taken: Vec<u64> = (0..13).map(|_| z.rmqueue_order0().unwrap() % PAGEBLOCK_NR).collect();
        assert_eq!(taken[0], 499, "{prof}: the order-0 buddy first");
        assert_eq!(&taken[1..5], &[500, 501, 502, 503], "{prof}: then the order-2 buddy");
        assert_eq!(z.take_fallbacks(), fallbacks, "{prof}");
        assert!(z.rmqueue_order0().is_none());
    }
}

/// `steal_suitable_fallback()`'s claim test (6.1 as read; 6.12 the same), `free_pages +
/// alike_pages >= 1 << (pageblock_order - 1)`: with 256 kernel frames in the block (free 256)
/// it is claimed and a frame freed into it is a Movable one (no fallback to take it again);
/// with 257 (free 255) it is not, and a frame freed into it goes back to its own type's list
/// (`free_one_page()` reads the pageblock's type): taking it again is a fallback.
#[test]
fn steal_suitable_fallback_claims_at_half_a_pageblock_6_1() {
    for (frames, pool, claimed) in [(256, [0, 0, 0, 0, 0, 0, 0, 0, 1], true), (257, [1, 1, 1, 1, 1, 1, 1, 1, 0], false)] {
        let mut z = zone_with_pool("linux-6.1", 4, frames, pool);
        let got: Vec<u64> = (0..512 - frames).map(|_| z.rmqueue_order0().unwrap()).collect();
        assert_eq!(z.take_fallbacks(), 1, "{frames}: one fallback for the block's free frames");
        z.free_order0(got[0]);
        z.rmqueue_order0().unwrap();
        assert_eq!(z.take_fallbacks(), u64::from(!claimed), "{frames}: claimed {claimed}");
        z.check_pageblocks().unwrap();
    }
}

/// `[machine] nonmovable_free` as pages (the older form): spread evenly at the claimed
/// blocks' tops, every frame of it taken before the zone is empty; on 6.12.0 (6.10-6.12.28) a
/// pool whose blocks keep more than half their frames for the kernel is a fallback a frame
/// (`page_del_and_expand()`), and without a pool the boot's last, mostly free block is
/// claimed by the first fallback (`steal_suitable_fallback()`).
#[test]
fn the_boots_nonmovable_pool_is_what_steal_suitable_fallback_takes_6_12() {
    let p = profile_with("linux-6.12", Some(FallbackSteal::ExpandOwn));
    let managed = 32 * PAGEBLOCK_NR;
    let frames = 7 * PAGEBLOCK_NR + 100; // 3,684 kernel frames
    for (pool, nm, steals) in [(Some(189u64), 189, 189u64), (Some(1213), 1213, 1213), (Some(0), 0, 0), (None, 8 * PAGEBLOCK_NR - frames, 1)] {
        let mut z = Zone::new(managed, &p);
        let taken = match pool {
            Some(pool) => z.take_boot_frames_pooled(frames, &NonmovablePool::Pages(pool)).len() as u64,
            None => (0..frames).map(|_| z.rmqueue_order0_unmovable().expect("free memory")).count() as u64,
        };
        assert_eq!(taken, frames, "{pool:?}: every boot frame taken");
        assert_eq!(z.free, managed - frames, "{pool:?}");
        assert_eq!(z.nonmovable_free(), nm, "{pool:?}: the pool left free in non-movable blocks");
        z.check_pageblocks().unwrap();
        let mut n = 0;
        while z.rmqueue_order0().is_some() {
            n += 1;
        }
        assert_eq!(n, managed - frames, "{pool:?}: every free frame taken");
        assert_eq!(z.take_fallbacks(), steals, "{pool:?}");
        assert_eq!(z.boost_events, steals, "{pool:?}: boost_watermark() a fallback");
        z.check_pageblocks().unwrap();
    }
}

/// `[machine] nonmovable_free` on a booted machine: the pool in node 0's first zone at the
/// start, `MemFree` as `boot_used` says whatever the pool; a bad value is refused with the key.
#[test]
fn machine_nonmovable_free_sets_the_boots_pool_and_keeps_memfree() {
    let boot = |extra: &str| {
        let s = read_once_on(&format!("ram = \"256M\"\nboot_used = \"29M\"\n{extra}"), "linux-6.12", "1M", false);
        let z = s.kernel.nodes[0].zonelist[0];
        (s.kernel.zones[z].nonmovable_free(), s.kernel.nr_free_pages())
    };
    let (dense, free0) = boot("");
    assert_eq!(dense, 15 * PAGEBLOCK_NR - (29 << 8), "29M of kernel frames fill 15 blocks but 256 frames");
    for pool in [0u64, 189, 947, 1800] {
        let (nm, free) = boot(&format!("nonmovable_free = {pool}"));
        assert_eq!(nm, pool, "the boot's pool");
        assert_eq!(free, free0, "MemFree unchanged by where the boot's frames are");
    }
    // as buddies by order (pagetypeinfo's counts): two-list boot 12's 2,416 pages
    let (nm, free) = boot("nonmovable_free = [1, 0, 1, 1, 1, 1, 5, 6, 1]");
    assert_eq!(nm, 1 + 4 + 8 + 16 + 32 + 5 * 64 + 6 * 128 + 256, "the buddies' pages");
    assert_eq!(free, free0);
    let scn = |v: &str| format!("[scenario]\nname = \"b\"\n[machine]\nram = \"64M\"\nnonmovable_free = {v}\n[kernel]\nprofile = \"linux-6.12\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1s\" }}]\n");
    for (bad, msg) in [("-1", "machine.nonmovable_free"), ("2000000000", "more than 4 TiB"), ("\"189\"", "machine.nonmovable_free"),
                       ("[1, 2]", "has 2 counts, not 9"), ("[0, 0, 0, 0, -1, 0, 0, 0, 0]", "machine.nonmovable_free[4]"),
                       ("[0, 0, 0, 0, 0, 0, 0, 0, 5000000]", "more than 4 TiB")] {
        let e = crate::Document::from_toml("s.toml", &scn(bad)).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(msg) && e.contains("s.toml"), "{bad}: {e}");
    }
}

/// qemu612-lrugen-global-stream's FALLBACK612 known_out, its stated cause (review17 M5):
/// linux-6.12 (6.12.29+, `FallbackSteal::ClaimSteal`) boosts a movable fallback only where
/// `__rmqueue_claim()` tries to claim a block, at a non-movable buddy of order >= 4
/// (`try_to_steal_block()`: `boost_watermark()` before its claim test; mm/page_alloc.c 6.12.29,
/// the backport of 6.15's c2f6ea38fc1b and 90abee6d7895), and otherwise `__rmqueue_steal()`
/// takes one page of the smallest buddy with no boost. At that scenario's boot (512M,
/// kernel_reserved 51136K, boot_used 30666K, 2 CPUs: no pool recorded) the engine leaves 14
/// free frames in its last non-movable pageblock, every buddy below order 4; a per-CPU refill
/// of 992 frames (`rmqueue_bulk()` of `nr_pcp_alloc()`'s `batch << PCP_BATCH_SCALE_MAX`, 31 << 5)
/// that runs the Movable frames out takes those 14 as 14 fallbacks and boosts nothing.
/// 6.12.0's `steal_suitable_fallback()` (`FallbackSteal::ExpandOwn`, what boost22 rested on)
/// boosts at each of them.
#[test]
fn a_992_frame_refill_at_global_streams_boot_falls_back_with_no_boost_6_12_29() {
    let machine = "ram = \"512M\"\nkernel_reserved = \"51136K\"\nboot_used = \"30666K\"\ncpus = 2";
    for (mode, boosts) in [(None, 0u64), (Some(FallbackSteal::ExpandOwn), 14)] {
        let mut s = read_once_on(machine, "linux-6.12", "1M", true);
        let k = &mut s.kernel;
        let z = k.nodes[0].zonelist[0];
        if let Some(m) = mode {
            k.zones[z].fallback_steal = m;
        }
        let zone = &mut k.zones[z];
        assert_eq!(zone.fallback_steal == FallbackSteal::ClaimSteal, mode.is_none(), "linux-6.12 is 6.12.29+'s fallback");
        assert_eq!(zone.pcp_batch() << crate::page_alloc::PCP_BATCH_SCALE_MAX, 992, "the refill's largest size");
        let nm = zone.nonmovable_free();
        assert_eq!(nm, 14, "{mode:?}: the boot's last non-movable pageblock's free frames");
        // the Movable frames taken but 992 - 14, with no fallback
        for _ in 0..zone.free - nm - (992 - nm) {
            zone.rmqueue_order0().expect("movable frames");
        }
        assert_eq!(zone.take_fallbacks(), 0, "{mode:?}");
        let boosts0 = zone.boost_events;
        // rmqueue_bulk(): one rmqueue_mode for the refill
        zone.steal_mode = false;
        let got = (0..992).map_while(|_| zone.rmqueue_order0()).count();
        zone.steal_mode = false;
        assert_eq!(got, 992, "{mode:?}: the refill filled");
        assert_eq!(zone.take_fallbacks(), 14, "{mode:?}: the 14 frames, one fallback each");
        assert_eq!(zone.boost_events - boosts0, boosts, "{mode:?}: no claim try below order 4, no boost (6.12.29)");
        assert_eq!(zone.free, 0);
        zone.check_pageblocks().unwrap();
    }
}
