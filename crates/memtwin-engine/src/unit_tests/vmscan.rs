//! Reclaim (mm/vmscan.c): memcg limit reclaim, memory.low/min protection, global reclaim,
//! and the seed-000 `recharge_on_pagecache_get` policy.

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::vmstat::VmEvent;

/// A 16 MiB file read by cat in a cgroup-v1 memcg limited to 4 MiB.
fn limited_cat(recharge: bool) -> String {
    format!(
        r#"
[scenario]
name = "limited-cat"
[machine]
ram = "1G"
[kernel]
profile = "linux-5.0"
cgroup = "v1"
[kernel.policies]
recharge_on_pagecache_get = {recharge}
[devices.sda]
read_bw = "1G"
read_ahead_kb = 128
[files."/f"]
size = "16M"
[cgroups.ct]
"memory.limit_in_bytes" = "4M"
[cgroups.other]
[tasks.cat]
cgroup = "ct"
ops = [{{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential" }}]
[tasks.other]
cgroup = "other"
start = "10s"
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
    )
}

/// Reading a file four times the size of memory.limit_in_bytes never lets usage pass the
/// limit (`try_charge_memcg()` reclaims first), and the room comes from the memcg's own LRU:
/// `pgscan`/`pgsteal` count in its memory.stat, not in the global `pgscan_direct`/`_kswapd`
/// (`shrink_inactive_list()` counts vm events only when `!cgroup_reclaim(sc)`). Every
/// uncharge is an eviction that leaves a shadow entry.
#[test]
fn limit_reclaim_keeps_usage_under_max_and_evicts_from_the_memcg() {
    let mut s = sim(&limited_cat(false));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let max = s.kernel.memcgs.get(ct).counter.max;
    assert_eq!(max, 1024);
    let mut steps = 0;
    while steps < 128 && s.step() {
        steps += 1;
        assert!(page_usage(&s.kernel, ct) <= max, "step {steps}");
    }
    assert_eq!(
        steps, 128,
        "cat's 128 reads ran before the other task starts"
    );
    let k = &s.kernel;
    let usage = page_usage(k, ct);
    let stolen = k.memcgs.events(ct, MemcgEvent::Pgsteal);
    assert!(stolen >= 4096 - 1024);
    assert!(k.memcgs.events(ct, MemcgEvent::Pgscan) >= stolen);
    assert_eq!(
        stolen,
        k.memcgs.events(ct, MemcgEvent::Pgpgin) - usage,
        "every uncharge was a steal"
    );
    assert_eq!(
        k.mappings[f.idx()].nrpages,
        usage,
        "only ct's pages are resident"
    );
    assert!(k.mappings[f.idx()].nrshadows > 0);
    assert_eq!(
        k.vmstat.get(VmEvent::PgscanDirect) + k.vmstat.get(VmEvent::PgscanKswapd),
        0
    );
    assert_eq!(
        k.vmstat.get(VmEvent::PgstealDirect) + k.vmstat.get(VmEvent::PgstealKswapd),
        0
    );
    assert_invariants(k);
}

/// Limit reclaim of a memcg walks its whole subtree (`shrink_node_memcgs()` iterates
/// `mem_cgroup_iter(target, ...)`): a child that is not charging anything loses pages when
/// its sibling pushes the parent over memory.max, and the parent never passes its limit.
#[test]
fn limit_reclaim_of_a_parent_reclaims_its_children() {
    let mut s = sim(r#"
[scenario]
name = "parent-limit"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/a"]
size = "3M"
[files."/b"]
size = "8M"
[cgroups.p]
"memory.max" = "4M"
[cgroups."p/a"]
[cgroups."p/b"]
[tasks.ta]
cgroup = "p/a"
ops = [{ op = "read", file = "/a" }]
[tasks.tb]
cgroup = "p/b"
start = "1s"
ops = [{ op = "read", file = "/b" }]
"#);
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run_with(&mut s, |s| {
        assert!(page_usage(&s.kernel, p) <= 1024)
    });
    let k = &s.kernel;
    assert!(
        page_usage(k, a) < 768,
        "a lost pages to b's charges"
    );
    assert!(k.memcgs.get(a).events[MemcgEvent::Pgsteal as usize] > 0);
    assert!(k.memcgs.get(b).events[MemcgEvent::Pgsteal as usize] > 0);
    assert_eq!(
        k.memcgs.events(p, MemcgEvent::Pgsteal),
        k.memcgs.get(a).events[MemcgEvent::Pgsteal as usize]
            + k.memcgs.get(b).events[MemcgEvent::Pgsteal as usize],
        "v2 memory.stat of p sums its children"
    );
    assert!(k.memcgs.get(p).counter.failcnt > 0);
    assert_invariants(k);
}

/// Limit reclaim of a parent spreads over its children by size: in 6.6 `shrink_node_memcgs()`
/// visits every child at every priority (full walks since 1ba6fc9af35b "mm: vmscan: do not
/// share cgroup iteration between reclaimers"); 5.0 and 6.11+ (6be5e186fd65 "mm: vmscan:
/// restore incremental cgroup iteration") stop early but resume the walk where the last
/// reclaimer left off. Either way two equal children lose about as much as each other.
#[test]
fn parent_limit_reclaim_is_fair_between_equal_children() {
    let mut s = sim(r#"
[scenario]
name = "fair"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/a"]
size = "2M"
[files."/b"]
size = "2M"
[cgroups.p]
[cgroups."p/a"]
[cgroups."p/b"]
[tasks.ta]
cgroup = "p/a"
ops = [{ op = "read", file = "/a" }]
[tasks.tb]
cgroup = "p/b"
ops = [{ op = "read", file = "/b" }]
"#);
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run(&mut s);
    let k = &mut s.kernel;
    assert_eq!(page_usage(k, a), 512);
    assert_eq!(page_usage(k, b), 512);
    for _ in 0..4 {
        k.try_to_free_mem_cgroup_pages(p, 32);
    }
    let sa = k.memcgs.get(a).events[MemcgEvent::Pgsteal as usize];
    let sb = k.memcgs.get(b).events[MemcgEvent::Pgsteal as usize];
    assert!(sa + sb >= 4 * 32);
    assert!(
        sa.abs_diff(sb) <= (sa + sb) / 8,
        "a lost {sa} pages, b lost {sb}"
    );
    assert_invariants(k);
}

/// `folio_check_references()`: an unmapped clean file page on the inactive list is reclaimed
/// even with `PG_referenced` set (FOLIOREF_RECLAIM_CLEAN), so a file read once is evicted
/// without being activated, oldest first.
#[test]
fn referenced_clean_inactive_pages_are_reclaimed_oldest_first() {
    let mut s = sim(r#"
[scenario]
name = "reclaim-clean"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "256K"
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    for i in 0..64 {
        read_pages(k, f, i, 1, ct);
    }
    assert!(k.pages[page_at(k, f, 0)].test(pg::REFERENCED));
    let reclaimed = k.try_to_free_mem_cgroup_pages(ct, 32);
    assert!(reclaimed >= 32);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 0);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 0);
    let m = &k.mappings[f.idx()];
    let evicted: Vec<u32> = (0..64).filter(|&i| m.lookup(i).is_none()).collect();
    assert_eq!(
        evicted,
        (0..reclaimed as u32).collect::<Vec<_>>(),
        "the oldest pages went first"
    );
    assert_invariants(k);
}

/// A memcg whose only pages are 64 dirty ones just written to `/log`.
fn dirty_memcg() -> (Simulation, MemcgId, InodeId) {
    let mut s = sim(r#"
[scenario]
name = "reclaim-dirty"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
# slow writes: no writeback completes during the
# reclaim_throttle(CONGESTED) sleeps (5.16+) these tests are not about
write_bw = "1M"
[files."/log"]
size = 0
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, log) = (memcg(&s, "ct"), inode(&s, "/log"));
    let k = &mut s.kernel;
    assert_eq!(
        k.generic_perform_write(log, 0, 64 * PAGE_SIZE, ct),
        Ok(64 * PAGE_SIZE)
    );
    assert_eq!(k.mappings[log.idx()].nrdirty, 64);
    assert_eq!(k.devices[0].write_bytes, 0);
    (s, ct, log)
}

/// Direct and memcg reclaim never write file pages: `shrink_folio_list()` sets `PG_reclaim`
/// on a dirty file folio and activates it (`goto activate_locked`) instead of evicting it,
/// and `shrink_inactive_list()` wakes the flusher when everything it isolated was dirty. When
/// the device completes the writes, `folio_end_writeback()` rotates the activated pages to the
/// inactive tail (`folio_rotate_reclaimable()`).
#[test]
fn reclaim_activates_dirty_pages_and_wakes_the_flusher() {
    let (mut s, ct, log) = dirty_memcg();
    let k = &mut s.kernel;
    k.try_to_free_mem_cgroup_pages(ct, 32);
    assert!(k.memcgs.events(ct, MemcgEvent::Pgactivate) > 0, "dirty pages were activated, not evicted");
    assert_eq!(k.devices[0].write_bytes, 64 * PAGE_SIZE, "the flusher was woken and wrote every dirty page");
    assert!(k.vmstat.nr_writeback > 0, "their writeback has not completed yet");
    // The device completes the writes: folio_end_writeback() rotates the PG_reclaim pages.
    k.now += 1_000_000_000;
    k.writeback_end_io();
    assert_eq!(k.vmstat.nr_writeback, 0);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 0, "rotated off the active list when written back");
    assert!(k.try_to_free_mem_cgroup_pages(ct, 32) > 0, "clean now: reclaimed");
    for i in 0..64 {
        if let Some(p) = k.mappings[log.idx()].lookup(i) {
            assert!(!k.pages[p].test(pg::DIRTY) && !k.pages[p].test(pg::RECLAIM));
        }
    }
    assert_invariants(k);
}

/// The activation of a dirty folio by reclaim is an activation like any other:
/// `activate_locked` counts `PGACTIVATE` in the memcg and `shrink_folio_list()` adds it to
/// the vm event `pgactivate`; each of those pages is rotated once its writeback ends.
#[test]
fn reclaim_activation_of_dirty_pages_counts_pgactivate() {
    let (mut s, ct, _) = dirty_memcg();
    let k = &mut s.kernel;
    k.try_to_free_mem_cgroup_pages(ct, 32);
    k.now += 1_000_000_000;
    k.writeback_end_io();
    let activated = k.memcgs.events(ct, MemcgEvent::Pgactivate);
    assert!(activated > 0);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), activated);
    // Every page reclaim met dirty or under writeback has PG_reclaim and was rotated when its
    // write completed. From 4.12 both are activated (activate_locked, c55e8d035b28 "mm: vmscan:
    // move dirty pages out of the way until they're flushed"), so a page met dirty, then met
    // again under writeback once deactivated, counts two activations and one rotation.
    assert!(activated >= 64, "{activated}");
    assert_eq!(k.vmstat.get(VmEvent::Pgrotated), 64);
    assert_invariants(k);
}

/// Two children of a limited parent, one of them protected by memory.low or memory.min; the
/// protected one reads a small file first, the other one then streams a large file.
fn protection(a_knob: &str, b_knob: &str) -> String {
    format!(
        r#"
[scenario]
name = "protection"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/small"]
size = "1M"
[files."/big"]
size = "8M"
[cgroups.p]
"memory.max" = "4M"
[cgroups."p/a"]
{a_knob}
[cgroups."p/b"]
{b_knob}
[tasks.ta]
cgroup = "p/a"
ops = [{{ op = "read", file = "/small" }}]
[tasks.tb]
cgroup = "p/b"
start = "1s"
ops = [{{ op = "read", file = "/big" }}]
"#
    )
}

/// cgroup v2 memory.low: a child whose usage is within its (effective) low is skipped by
/// reclaim (`mem_cgroup_below_low()`) as long as an unprotected sibling has pages to give,
/// and no memory.events `low` is recorded.
#[test]
fn memory_low_spares_a_child_while_an_unprotected_sibling_is_reclaimed() {
    let mut s = sim(&protection(r#""memory.low" = "2M""#, ""));
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run_with(&mut s, |s| {
        assert!(page_usage(&s.kernel, p) <= 1024)
    });
    let k = &s.kernel;
    assert_eq!(page_usage(k, a), 256, "a kept every page");
    assert_eq!(
        k.memcgs.events(a, MemcgEvent::Pgscan),
        0,
        "a was never scanned"
    );
    assert_eq!(k.memcgs.events(a, MemcgEvent::Low), 0);
    assert!(k.memcgs.events(b, MemcgEvent::Pgsteal) >= 2048 - 768);
    assert_eq!(k.memcgs.events(b, MemcgEvent::Low), 0);
    assert_invariants(k);
}

/// memory.min is hard protection: when the only other reclaimable memory is protected by
/// memory.low, `do_try_to_free_pages()` retries with `memcg_low_reclaim` set, which reclaims
/// the low-protected child (counting memory.events `low`) but still skips the child below
/// memory.min (`mem_cgroup_below_min()` is checked in every pass).
#[test]
fn memory_min_protects_even_in_the_low_reclaim_pass() {
    let mut s = sim(&protection(
        r#""memory.min" = "2M""#,
        r#""memory.low" = "max""#,
    ));
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run_with(&mut s, |s| {
        assert!(page_usage(&s.kernel, p) <= 1024)
    });
    let k = &s.kernel;
    assert_eq!(page_usage(k, a), 256, "a kept every page");
    assert_eq!(
        k.memcgs.events(a, MemcgEvent::Pgscan),
        0,
        "a was never scanned"
    );
    assert_eq!(k.memcgs.events(a, MemcgEvent::Low), 0);
    assert!(
        k.memcgs.events(b, MemcgEvent::Low) > 0,
        "b was reclaimed below its memory.low"
    );
    assert!(k.memcgs.events(b, MemcgEvent::Pgsteal) >= 2048 - 768);
    assert_eq!(k.memcgs.events(b, MemcgEvent::OomKill), 0);
    assert_invariants(k);
}

/// memory.low is best effort: when every child of the limited parent is within its low, the
/// first pass reclaims nothing and sets `memcg_low_skipped`, and the retry ignores memory.low
/// rather than failing the charge. Each reclaim below low is a memory.events `low`.
#[test]
fn memory_low_gives_way_when_everything_is_protected() {
    let mut s = sim(&protection(
        r#""memory.low" = "max""#,
        r#""memory.low" = "max""#,
    ));
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run_with(&mut s, |s| {
        assert!(page_usage(&s.kernel, p) <= 1024)
    });
    let k = &s.kernel;
    assert!(k.memcgs.events(p, MemcgEvent::Low) > 0);
    assert!(k.memcgs.events(p, MemcgEvent::Pgsteal) >= 2304 - 1024);
    assert!(k.memcgs.events(a, MemcgEvent::Low) + k.memcgs.events(b, MemcgEvent::Low) > 0);
    assert_eq!(k.memcgs.events(p, MemcgEvent::OomKill), 0);
    let resident: u64 = k.mappings.iter().map(|m| m.nrpages).sum();
    assert_eq!(resident, page_usage(k, p));
    assert_invariants(k);
}

/// A child above its memory.low is reclaimed, but with pressure scaled down by the share of
/// its usage that is protected (`get_scan_count()`: `scan = lruvec_size - lruvec_size *
/// protection / (cgroup_size + 1)`, 9783aa9917f8 "mm, memcg: proportional memory.{low,min}
/// reclaim", v5.4): with 768 pages used and 512 protected it is scanned a third as hard as
/// an unprotected sibling of the same size.
#[test]
fn memory_low_scales_reclaim_pressure_above_low() {
    let mut s = sim(r#"
[scenario]
name = "proportional-low"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/a"]
size = "3M"
[files."/b"]
size = "3M"
[cgroups.p]
[cgroups."p/a"]
"memory.low" = "2M"
[cgroups."p/b"]
[tasks.ta]
cgroup = "p/a"
ops = [{ op = "read", file = "/a" }]
[tasks.tb]
cgroup = "p/b"
ops = [{ op = "read", file = "/b" }]
"#);
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    run(&mut s);
    let k = &mut s.kernel;
    assert_eq!(page_usage(k, a), 768);
    assert_eq!(page_usage(k, b), 768);
    for _ in 0..4 {
        k.try_to_free_mem_cgroup_pages(p, 32);
    }
    let sa = k.memcgs.get(a).events[MemcgEvent::Pgsteal as usize];
    let sb = k.memcgs.get(b).events[MemcgEvent::Pgsteal as usize];
    assert!(sa > 0, "a is above its low and is reclaimed");
    assert!(2 * sa < sb, "a lost {sa} pages, b lost {sb}");
    assert_eq!(k.memcgs.events(p, MemcgEvent::Low), 0);
    assert_invariants(k);
}

/// Seed 000's policy: limit reclaim uncharges clean page cache and leaves it cached on the
/// root memcg's LRU instead of evicting it; the next task to look a page up is charged for it.
#[test]
fn recharge_policy_keeps_pages_uncharged_and_charges_the_next_reader() {
    let mut s = sim(&limited_cat(true));
    let (ct, other, f) = (memcg(&s, "ct"), memcg(&s, "other"), inode(&s, "/f"));
    // cat's 128 reads all run before `other` starts at 10 s.
    for _ in 0..128 {
        assert!(s.step());
        assert!(page_usage(&s.kernel, ct) <= 1024);
    }
    let k = &s.kernel;
    let ct_usage = page_usage(k, ct);
    assert_eq!(k.mappings[f.idx()].nrpages, 4096, "nothing was evicted");
    assert_eq!(k.mappings[f.idx()].nrshadows, 0);
    assert_eq!(
        k.lruvecs[0].file_pages(),
        4096 - ct_usage,
        "the rest sits uncharged on the root LRU"
    );
    assert!(k.memcgs.events(ct, MemcgEvent::Pgsteal) >= 4096 - ct_usage);
    for i in 0..4096 {
        let pg_ = &k.pages[page_at(k, f, i)];
        assert!(pg_.memcg == ct || pg_.memcg == MemcgId::NONE);
    }
    assert_eq!(k.devices[0].read_bytes, 16 << 20);
    assert_invariants(k);

    run(&mut s);
    let k = &s.kernel;
    assert_eq!(
        page_usage(k, other),
        4096 - ct_usage,
        "other paid for what it found uncharged"
    );
    assert_eq!(
        page_usage(k, ct),
        ct_usage,
        "ct's pages stay with ct"
    );
    assert_eq!(k.lruvecs[0].file_pages(), 0);
    assert_eq!(
        k.devices[0].read_bytes,
        16 << 20,
        "the second read came from the page cache"
    );
    assert_invariants(k);
}

/// Under the recharge policy global reclaim (kswapd, direct reclaim) still evicts the
/// uncharged pages: the policy only changes what memcg limit reclaim does.
#[test]
fn recharge_policy_pages_are_still_evicted_by_global_reclaim() {
    let mut s = sim(r#"
[scenario]
name = "recharge-global"
[machine]
ram = "64M"
[kernel]
profile = "linux-5.0"
cgroup = "v1"
[kernel.policies]
recharge_on_pagecache_get = true
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "128M"
[cgroups.ct]
"memory.limit_in_bytes" = "4M"
[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run_with(&mut s, |s| {
        assert!(page_usage(&s.kernel, ct) <= 1024)
    });
    let k = &s.kernel;
    let global_steal = k.vmstat.get(VmEvent::PgstealKswapd) + k.vmstat.get(VmEvent::PgstealDirect);
    assert!(global_steal > 0);
    let root_steal = k.memcgs.get(MemcgId::ROOT).events[MemcgEvent::Pgsteal as usize];
    assert!(
        root_steal > 0,
        "the uncharged pages on the root LRU were evicted"
    );
    assert!(k.mappings[f.idx()].nrpages < 32768);
    assert!(
        k.mappings[f.idx()].nrshadows > 0,
        "evictions left shadow entries"
    );
    assert_invariants(k);
}

/// Global reclaim: an allocation that finds free memory at the low watermark wakes kswapd,
/// which reclaims until the high watermark (`balance_pgdat()`), counting `pgscan_kswapd` and
/// `pgsteal_kswapd`; free memory never falls below the min watermark.
#[test]
fn kswapd_keeps_free_memory_above_the_min_watermark() {
    let mut s = sim(r#"
[scenario]
name = "kswapd"
[machine]
ram = "64M"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "128M"
[tasks.cat]
ops = [{ op = "read", file = "/f", bufsize = "128K" }]
"#);
    let f = inode(&s, "/f");
    run_with(&mut s, |s| {
        let z = &s.kernel.zones[0];
        assert!(
            z.free >= z.wmark_min,
            "free {} below min {}",
            z.free,
            z.wmark_min
        );
    });
    let k = &s.kernel;
    assert!(k.vmstat.get(VmEvent::KswapdWakeup) > 0);
    let steal = k.vmstat.get(VmEvent::PgstealKswapd);
    assert!(steal > 0);
    assert!(k.vmstat.get(VmEvent::PgscanKswapd) >= steal);
    assert_eq!(
        k.memcgs.events(MemcgId::ROOT, MemcgEvent::Pgsteal),
        steal + k.vmstat.get(VmEvent::PgstealDirect)
    );
    assert!(k.mappings[f.idx()].nrpages < 32768);
    assert_invariants(k);
}

/// A dirty file page at the inactive tail: v4.12+ reclaim activates it (`activate_locked`,
/// c55e8d035b28), v3.2-4.11 keeps it on the inactive list (`keep_locked`); both set
/// PG_reclaim and hand the pages to the flusher, whose writeback rotates them to the
/// inactive tail (`rotate_reclaimable_page()`), where the next reclaim takes them.
#[test]
fn dirty_pages_met_by_reclaim_by_era() {
    for (profile, activates) in [("linux-6.6", true), ("linux-4.4", false), ("linux-3.13", false)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "dirty"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = 0
[tasks.w]
ops = [{{ op = "write", file = "/f", length = "1M" }}]
"#
        ));
        run(&mut s);
        let k = &mut s.kernel;
        let dirty = k.vmstat.nr_dirty;
        assert!(dirty >= 32, "{profile}: the file is still dirty ({dirty} pages)");
        let act = k.vmstat.get(VmEvent::Pgactivate);
        let rot = k.vmstat.get(VmEvent::Pgrotated);
        let first = k.try_to_free_pages(32);
        // The flusher's writes complete on the device; then reclaim again.
        k.now += 10_000_000_000;
        k.writeback_end_io();
        let reclaimed = first + k.try_to_free_pages(32);
        let activated = k.vmstat.get(VmEvent::Pgactivate) - act;
        assert_eq!(activated > 0, activates, "{profile}: dirty pages activated: {activated}");
        assert!(k.vmstat.get(VmEvent::Pgrotated) > rot, "{profile}: written-back PG_reclaim pages rotate to the tail");
        assert!(reclaimed >= 32, "{profile}: the rotated pages are reclaimed next ({reclaimed})");
        assert_eq!(lru_size(k, MemcgId::ROOT, LruList::ActiveFile), 0, "{profile}: rotation takes pages off the active list");
        assert_invariants(k);
    }
}

/// Seed 004's first step on linux-3.13 (`cp -r a c` after writing `a`, then `b`): written
/// pages are inactive with `PG_referenced` (`generic_perform_write()` calls
/// `mark_page_accessed()` after the copy), so cp's read activates each file of `a` it finds
/// cached. But `a` is the oldest part of the inactive list: once the copy's writes have used
/// the free memory, reclaim takes the inactive tail, the files of `a` cp has not read yet
/// (`page_check_references()`: PAGEREF_RECLAIM_CLEAN for a clean unmapped referenced page),
/// and cp reads them from disk. The active list (the part of `a` read while cached) stays
/// smaller than the inactive one (`inactive_file_is_low()`: `active > inactive`), so nothing
/// is deactivated. No free memory can avoid this when `a` and `b` are the same size and the
/// machine cannot hold three of them.
#[test]
fn copying_the_oldest_cached_directory_loses_its_unread_files() {
    let n = 200u32;
    let mut s = sim(&format!(
        r#"
[scenario]
name = "seed004-cp"
[machine]
ram = "512M"
[kernel]
profile = "linux-3.13"
[devices.sda]
read_bw = "120M"
write_bw = "110M"
[dirs."/a"]
files = {{ count = {n}, size = "1M" }}
[dirs."/b"]
files = {{ count = {n}, size = "1M" }}
[tasks.sh]
ops = [
  {{ op = "repeat", times = {n}, ops = [{{ op = "write", file = "/a/f{{i}}", length = "1M", bufsize = "128K" }}] }},
  {{ op = "repeat", times = {n}, ops = [{{ op = "write", file = "/b/f{{i}}", length = "1M", bufsize = "128K" }}] }},
  {{ op = "cp", src = "/a", dst = "/c" }},
]
"#
    ));
    let files: Vec<InodeId> = (1..=n).map(|i| inode(&s, &format!("/a/f{i}"))).collect();
    run(&mut s);
    let k = &s.kernel;
    let pages = 256u32;
    let active = |f: InodeId| (0..pages).filter(|&i| k.mappings[f.idx()].lookup(i).is_some_and(|p| k.pages[p].test(pg::ACTIVE))).count() as u32;
    // The files cp found cached were activated, in order; the others were read from disk
    // and are inactive.
    let hit = files.iter().take_while(|&&f| active(f) == pages).count();
    assert!(hit > 0 && hit < n as usize / 2 + n as usize / 4, "{hit} of {n} files found cached");
    for (j, &f) in files.iter().enumerate().skip(hit + 1) {
        assert_eq!(active(f), 0, "file {} was evicted before cp read it", j + 1);
    }
    let reread = k.devices[0].read_bytes / PAGE_SIZE;
    assert!(reread >= (n as u64 - hit as u64 - 1) * pages as u64, "cp read {reread} pages from disk");
    assert_eq!(k.vmstat.get(VmEvent::Pgdeactivate), 0, "the active list is never the larger");
    assert_eq!(lru_size(k, MemcgId::ROOT, LruList::ActiveFile), k.vmstat.get(VmEvent::Pgactivate));
    assert_invariants(k);
}

/// Four children of `p` holding 2 MiB each, on `profile`, in order-0 pages in every era
/// (the ext4 verity feature keeps 6.18 off large folios): the walks are compared page for page.
fn four_children(profile: &str) -> (Simulation, [MemcgId; 4]) {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "walk"
[machine]
ram = "1G"
fs_features = ["verity"]
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[cgroups.p]
{}
"#,
        (0..4)
            .map(|i| format!(
                "[files.\"/f{i}\"]\nsize = \"2M\"\n[cgroups.\"p/c{i}\"]\n[tasks.t{i}]\ncgroup = \"p/c{i}\"\nops = [{{ op = \"read\", file = \"/f{i}\" }}]\n"
            ))
            .collect::<String>()
    ));
    let c = [0, 1, 2, 3].map(|i| memcg(&s, &format!("p/c{i}")));
    run(&mut s);
    (s, c)
}

/// `mem_cgroup_iter()` with a reclaim cookie restarts a walk that would begin past the end of
/// the subtree from its beginning ("make sure they see at least one group and restart from
/// the beginning", 4.4 and 6.11 alike): limit reclaim of a memcg without children scans the
/// same in every era, call after call, whichever walk the era has.
#[test]
fn a_shared_walk_of_a_single_memcg_restarts_at_its_beginning() {
    let scans = |profile: &str| {
        let (mut s, c) = four_children(profile);
        let k = &mut s.kernel;
        (0..4)
            .map(|_| {
                let before = k.memcgs.events(c[0], MemcgEvent::Pgscan);
                k.try_to_free_mem_cgroup_pages(c[0], 32);
                k.memcgs.events(c[0], MemcgEvent::Pgscan) - before
            })
            .collect::<Vec<_>>()
    };
    let full = scans("linux-6.6"); // 5.5-6.10
    assert!(full.iter().all(|&n| n >= 32), "{full:?}");
    assert_eq!(scans("linux-6.18"), full, "6.11+ shared walk");
    assert_eq!(scans("linux-5.0"), full, "pre-5.5 walk shared per priority");
}

/// Global direct reclaim (`shrink_node_global(.., kswapd = false)`): from 6.11 (6be5e186fd65)
/// every reclaimer but kswapd stops its memcg walk once `nr_to_reclaim` is met, so the
/// children after the one that met it lose only what the higher priorities scanned;
/// 5.5-6.10 (1ba6fc9af35b) walk every memcg at every priority, and four equal children lose
/// the same; kswapd walks every memcg in all eras.
#[test]
fn direct_reclaim_stops_its_memcg_walk_at_its_goal_from_6_11() {
    let stolen = |profile: &str, kswapd: bool| {
        let (mut s, c) = four_children(profile);
        s.kernel.shrink_node_global(32, kswapd);
        c.map(|m| s.kernel.memcgs.events(m, MemcgEvent::Pgsteal))
    };
    let l = stolen("linux-6.18", false);
    assert!(l[0] > l[3] && l.iter().sum::<u64>() >= 32, "6.11+, partial walk: {l:?}");
    let l = stolen("linux-6.6", false);
    assert!(l.iter().all(|&n| n == l[0]) && l[0] > 0, "5.5-6.10, full walk: {l:?}");
    let l = stolen("linux-6.18", true);
    assert!(l.iter().all(|&n| n == l[0]) && l[0] > 0, "kswapd, full walk: {l:?}");
}

/// `shrink_folio_list()` + `__remove_mapping()` of a large folio (6.1): reclaim evicts it
/// whole, and `workingset_eviction()` leaves one shadow entry over its range (the kernel's
/// multi-index value entry; here the same value in each of its slots). Each eviction ages the
/// lruvec by the folio's pages, so two folios never share a value: every run of equal shadow
/// values is one folio, a naturally aligned power of two.
#[test]
fn a_large_folio_is_evicted_whole_with_one_shadow() {
    use super::readahead::folio_reader;
    let mut s = folio_reader("linux-6.1", "xfs", "", 8192, Some("4M"));
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &s.kernel;
    let m = &k.mappings[f.idx()];
    assert!(m.nrshadows > 256, "evicted folios left shadows: {}", m.nrshadows);
    let shadows: Vec<(u32, u64)> = m.entries(0, u32::MAX).filter_map(|(i, s)| s.as_shadow().map(|v| (i, v))).collect();
    let mut groups: Vec<(u32, u32)> = vec![]; // (first index, length)
    for w in 0..shadows.len() {
        let (i, v) = shadows[w];
        match groups.last_mut() {
            Some((g, n)) if w > 0 && shadows[w - 1] == (i - 1, v) && *g + *n == i => *n += 1,
            _ => groups.push((i, 1)),
        }
    }
    assert!(groups.iter().all(|&(g, n)| n.is_power_of_two() && g % n == 0), "{groups:?}");
    assert!(groups.iter().any(|&(_, n)| n >= 16), "order-4 folios left one shadow each: {groups:?}");
    assert_invariants(k);
}

/// A memcg of `profile` whose 16 MiB file has `inactive` pages on the inactive list and the
/// rest active (read, then marked accessed again: `folio_activate()`).
fn file_lists(profile: &str, inactive: u32) -> (Simulation, MemcgId) {
    let toml = format!(
        r#"
[scenario]
name = "deactivate"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[cgroups.ct]
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    );
    let mut s = sim(&toml);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4096, ct);
    for i in inactive..4096 {
        let p = page_at(k, f, i);
        k.folio_mark_accessed(p);
    }
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), inactive as u64);
    (s, ct)
}

/// Whether reclaim deactivates active file pages is decided once per pass from 5.9 on
/// (b91ac374346b "mm: vmscan: enforce inactive:active ratio at the reclaim root"):
/// `prepare_scan_count()` sets `sc->may_deactivate & DEACTIVATE_FILE` when the root's inactive
/// file list is low as the pass begins, and `shrink_list()` then deactivates the whole
/// `nr[LRU_ACTIVE_FILE]` of the pass in 6.1, even once the inactive list has overtaken the
/// active one. Before (5.0), `shrink_list()` asked `inactive_list_is_low()` again before each
/// `SWAP_CLUSTER_MAX` batch, so deactivation stopped within a batch of the 1:1 balance.
#[test]
fn file_deactivation_is_decided_per_pass_from_5_9() {
    for (profile, per_pass) in [("linux-6.1", true), ("linux-5.0", false)] {
        // 2000 inactive, 2096 active: the inactive list is low (ratio 1 below 1 GiB).
        let (mut s, ct) = file_lists(profile, 2000);
        let k = &mut s.kernel;
        let got = k.try_to_free_mem_cgroup_pages(ct, 1024);
        let (inactive, active) = (lru_size(k, ct, LruList::InactiveFile), lru_size(k, ct, LruList::ActiveFile));
        assert!(got >= 1024, "{profile}: reclaimed {got}");
        if per_pass {
            // 6.1 here: 1234 pages deactivated, 1572 inactive against 862 active.
            assert!(inactive > active + crate::vmscan::SWAP_CLUSTER_MAX, "{profile}: {inactive} inactive, {active} active");
        } else {
            // 5.0 here: 1180 inactive against 1178 active.
            assert!(inactive <= active + crate::vmscan::SWAP_CLUSTER_MAX, "{profile}: {inactive} inactive, {active} active");
        }
        assert_invariants(k);
    }
}

/// `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c, 6.1): the task wakes once
/// more than `SWAP_CLUSTER_MAX` pages finished writeback after it slept. A write that a context
/// ahead in time already ended (a sleeper whose quantum went past its wake-up) completes after
/// the clock of a task that is behind it: it still wakes that task, until the scheduler's
/// horizon passes it.
#[test]
fn reclaim_throttle_6_1_counts_writes_a_context_ahead_in_time_ended() {
    const MS: u64 = 1_000_000;
    let mut k = Kernel::new(crate::profile::profile("linux-6.1").unwrap(), crate::profile::Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
    k.wb_ended.push_back((5 * MS, 128));
    k.now = MS;
    assert_eq!(k.reclaim_throttle_writeback_until(), 5 * MS, "woken by the write ended at 5 ms");
    k.now = 6 * MS;
    assert_eq!(k.reclaim_throttle_writeback_until(), crate::timer::schedule_timeout_wake(6 * MS, crate::vmscan::RECLAIM_THROTTLE_JIFFIES, true), "ended before: the timeout");
    k.blk_retire(5 * MS);
    assert!(k.wb_ended.is_empty(), "trimmed at the horizon");
}

/// A 2M cgroup-v1 memcg under `profile` (order-0 ext4 pages) filled by readahead of an 8 MiB
/// file on a 1 MB/s device: every page it holds is still under read, locked for seconds.
pub(crate) fn memcg_full_under_read(profile: &str) -> (Simulation, MemcgId, InodeId) {
    let mut s = sim(&format!(r#"
[scenario]
name = "full-under-read"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1M"
[files."/f"]
size = "8M"
[cgroups.ct]
"memory.limit_in_bytes" = "2M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    s.kernel.do_page_cache_ra(f, 0, 1024, 0, ct);
    (s, ct, f)
}

/// `shrink_inactive_list()` (mm/vmscan.c, 6.1) costs its call besides the pages it scans
/// (`lru_add_drain()`, the `lru_lock` round trips, the counters: `CpuCost::shrink_list_call`):
/// a limit reclaim that meets only pages under read frees nothing and takes
/// `reclaim_call` + one `shrink_list_call` per batch of `SWAP_CLUSTER_MAX` that
/// `shrink_lruvec()` gives it at each priority 12..0 (`lru_size >> priority` pages) +
/// `scan_page` per page.
#[test]
fn a_reclaim_that_frees_nothing_costs_each_shrink_inactive_list_call() {
    let (mut s, ct, _f) = memcg_full_under_read("linux-6.1");
    let k = &mut s.kernel;
    let size = lru_size(k, ct, LruList::InactiveFile);
    assert!(size > 256 && lru_size(k, ct, LruList::ActiveFile) == 0, "{size} pages on the inactive list, none active");
    let (mut calls, mut scanned) = (0, 0);
    for p in (0..=crate::vmscan::DEF_PRIORITY).rev() {
        let n = size >> p;
        calls += n.div_ceil(crate::vmscan::SWAP_CLUSTER_MAX);
        scanned += n;
    }
    let (sys0, now0) = (k.sys_ns, k.now);
    assert_eq!(k.try_to_free_mem_cgroup_pages(ct, 1), 0, "every page is locked");
    let c = &k.cost;
    let want = c.reclaim_call + calls * c.shrink_list_call + scanned * c.scan_page;
    assert_eq!(k.sys_ns - sys0, want);
    assert_eq!(k.now - now0, want, "the reclaimer's clock moves with its CPU time");
}

/// The clock a reclaim's calls advance is the one `folio_test_locked()` reads: pages whose
/// read completes while the reclaim goes on are unlocked for its later batches, as the
/// kernel's read completion runs from its interrupt while reclaim scans. A reclaim of the
/// memcg full of pages under read that starts half its own CPU time before the first bio's
/// completion frees pages in its later batches; one that starts its whole time before frees
/// nothing.
#[test]
fn reads_completing_during_a_reclaim_unlock_pages_for_its_later_batches() {
    let t = {
        let (mut s, ct, _) = memcg_full_under_read("linux-6.1");
        let now0 = s.kernel.now;
        assert_eq!(s.kernel.try_to_free_mem_cgroup_pages(ct, 1), 0);
        s.kernel.now - now0
    };
    let mut got = Vec::new();
    for before in [t / 2, t + 1] {
        let (mut s, ct, f) = memcg_full_under_read("linux-6.1");
        let k = &mut s.kernel;
        let first = k.mappings[f.idx()].inflight.iter().map(|r| r.done).min().unwrap();
        k.now = first - before;
        got.push(k.try_to_free_mem_cgroup_pages(ct, 1));
        assert_invariants(k);
    }
    assert!(got[0] > 0, "the first bio completes during the reclaim: {got:?}");
    assert_eq!(got[1], 0, "the reclaim ends before the first bio completes");
}

/// mm/vmscan.c 6.12 `prepare_scan_control()` reads the reclaim root's hierarchical LRU sizes
/// (`lruvec_page_state()`) from the rstat copy after `mem_cgroup_flush_stats_ratelimited()`,
/// which flushes only when mm/memcontrol.c's periodic `flush_memcg_stats_dwork()` is a full
/// `FLUSH_TIME` cycle late: between two periodic flushes (every 504 jiffies = 2.016 s, the
/// timer wheel's level-1 bucket of a 500-jiffy requeue, at the boot's phase) a parent sees
/// its children's pages as they were at the last flush. 6.1's
/// `prepare_scan_count()` flushes first (`mem_cgroup_flush_stats()`): exact.
#[test]
fn prepare_scan_control_6_12_reads_the_copy_the_periodic_flush_left() {
    use crate::memcontrol::stats_flush_phase;
    use crate::timer::NSEC_PER_JIFFY;
    // (the period: 504 jiffies at HZ 250, 2.016 s)
    const FLUSH_TIME: u64 = 504 * NSEC_PER_JIFFY;
    let scn = |profile: &str| {
        sim(&format!(
            r#"
[scenario]
name = "rstat"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "4M"
[files."/s"]
size = "8M"
[cgroups.P]
[cgroups."P/A"]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ))
    };
    let mut s = scn("linux-6.12");
    let (p, a, w, f) = (memcg(&s, "P"), memcg(&s, "P/A"), inode(&s, "/w"), inode(&s, "/s"));
    let k = &mut s.kernel;
    let vp = k.lruvec_idx(p, 0);
    assert_eq!(k.stats_flush_next, FLUSH_TIME, "boot 0: the flusher ran at the clock's 0, next 504 jiffies on");
    // A reads its 4 MiB twice: 1024 pages on the active file list, counted at P at once...
    read_pages(k, w, 0, 1024, a);
    read_pages(k, w, 0, 1024, a);
    // (the last pages read sit in the CPU's lru_add batch on 6.12: onto the lists now)
    k.lru_add_drain();
    assert!(k.now < FLUSH_TIME);
    assert_eq!(k.lru_stats.subtree_size(vp, LruList::ActiveFile), 1024);
    // ...but the copy reclaim reads is the flush's at 0: nothing.
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 0);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::InactiveFile), 0);
    // The periodic flush at FLUSH_TIME: the copy is the counters.
    k.advance_clock(FLUSH_TIME);
    assert_eq!(k.stats_flush_next, 2 * FLUSH_TIME);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 1024);
    // A streams 8 MiB: inactive at once, the copy keeps the flush's until the next one.
    read_pages(k, f, 0, 2048, a);
    k.lru_add_drain();
    assert_eq!(k.lru_stats.subtree_size(vp, LruList::InactiveFile), 2048);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::InactiveFile), 0);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 1024);
    k.advance_clock(2 * FLUSH_TIME + 1);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::InactiveFile), 2048);
    // Another boot flushes at another phase within the period.
    let phases: Vec<u64> = (1..=16).map(stats_flush_phase).collect();
    assert!(phases.iter().all(|&ph| ph < 504 && ph % 8 == 0) && phases.windows(2).any(|w| w[0] != w[1]), "{phases:?}");
    // 6.1 flushes before reading: exact.
    let mut s = scn("linux-6.1");
    let (p, a, w) = (memcg(&s, "P"), memcg(&s, "P/A"), inode(&s, "/w"));
    let k = &mut s.kernel;
    let vp = k.lruvec_idx(p, 0);
    read_pages(k, w, 0, 1024, a);
    read_pages(k, w, 0, 1024, a);
    k.lru_add_drain();
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 1024);
    assert_eq!(k.stats_flush_next, u64::MAX);
}

/// mm/vmscan.c (6.12, as since 5.5's b91ac374346b) `do_try_to_free_pages()`: a pass that
/// reclaimed nothing after `shrink_list()` skipped an active list (`sc->skipped_deactivate`:
/// `may_deactivate` did not allow it) is retried at the first priority with
/// `sc->force_deactivate`, which `prepare_scan_control()` turns into `DEACTIVATE_ANON |
/// DEACTIVATE_FILE` whatever the root's sizes say. On 6.12+ those sizes are the rstat copy the
/// periodic flush left: here it shows the memcg's 1024 file pages inactive while a second read
/// has made them all active, so without the retry reclaim frees nothing until the next flush.
#[test]
fn do_try_to_free_pages_6_12_retries_with_force_deactivate_when_the_stale_copy_blocks_deactivation() {
    // (the periodic flush's period: 504 jiffies, the wheel's level-1 bucket of FLUSH_TIME)
    const FLUSH_TIME: u64 = 504 * crate::timer::NSEC_PER_JIFFY;
    let mut s = sim(r#"
[scenario]
name = "force"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.12"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "4M"
[cgroups.A]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (a, w) = (memcg(&s, "A"), inode(&s, "/w"));
    let k = &mut s.kernel;
    let v = k.lruvec_idx(a, 0);
    read_pages(k, w, 0, 1024, a);
    // (the last pages read sit in the CPU's lru_add batch on 6.12: onto the lists now)
    k.lru_add_drain();
    k.advance_clock(FLUSH_TIME);
    // The flush at FLUSH_TIME copied 1024 inactive pages; the second read activates them all.
    read_pages(k, w, 0, 1024, a);
    assert!(k.now < 2 * FLUSH_TIME);
    assert_eq!((k.lruvecs[v].size(LruList::InactiveFile), k.lruvecs[v].size(LruList::ActiveFile)), (0, 1024));
    assert_eq!(k.lru_stats.flushed_subtree_size(v, LruList::InactiveFile), 1024);
    assert_eq!(k.lru_stats.flushed_subtree_size(v, LruList::ActiveFile), 0);
    let got = k.try_to_free_mem_cgroup_pages(a, 32);
    assert_invariants(k);
    assert!(got >= 32, "the forced pass deactivates and reclaims: {got}");
    assert!(k.lruvecs[v].size(LruList::ActiveFile) < 1024);
}

/// mm/vmscan.c 6.12 `prepare_scan_control()` and `snapshot_refaults()` read the reclaim root's
/// `WORKINGSET_ACTIVATE_*` with `lruvec_page_state()`, the rstat copy as the LRU sizes (review
/// M1): activations after a periodic flush are seen at the next one; 6.1 reads them exact.
#[test]
fn prepare_scan_control_6_12_reads_refault_activations_from_the_copy() {
    use crate::memcontrol::MemcgEvent;
    // (the periodic flush's period: 504 jiffies, the wheel's level-1 bucket of FLUSH_TIME)
    const FLUSH_TIME: u64 = 504 * crate::timer::NSEC_PER_JIFFY;
    let scn = |profile: &str| {
        sim(&format!(
            r#"
[scenario]
name = "rstat-refaults"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[cgroups.P]
[cgroups."P/A"]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ))
    };
    let ev = MemcgEvent::WorkingsetActivateFile as usize;
    let mut s = scn("linux-6.12");
    let (p, a) = (memcg(&s, "P"), memcg(&s, "P/A"));
    let k = &mut s.kernel;
    k.memcgs.count_event(a, MemcgEvent::WorkingsetActivateFile, 5);
    assert_eq!(k.memcgs.subtree_events(p, ev), 5);
    assert_eq!(k.memcgs.flushed_subtree_events(p, ev), 0, "the flush at 0 saw none");
    k.advance_clock(FLUSH_TIME);
    assert_eq!(k.memcgs.flushed_subtree_events(p, ev), 5);
    k.memcgs.count_event(a, MemcgEvent::WorkingsetActivateFile, 3);
    assert_eq!((k.memcgs.flushed_subtree_events(p, ev), k.memcgs.flushed_subtree_events(a, ev)), (5, 5));
    k.advance_clock(2 * FLUSH_TIME);
    assert_eq!(k.memcgs.flushed_subtree_events(p, ev), 8);
    let mut s = scn("linux-6.1");
    let (p, a) = (memcg(&s, "P"), memcg(&s, "P/A"));
    let k = &mut s.kernel;
    k.memcgs.count_event(a, MemcgEvent::WorkingsetActivateFile, 5);
    assert_eq!(k.memcgs.flushed_subtree_events(p, ev), 5);
}

/// mm/vmscan.c 6.12 `shrink_node()` -> `prepare_scan_control()` decides `DEACTIVATE_FILE` at
/// every pass (each priority) from the root's `WORKINGSET_ACTIVATE_FILE` against
/// `target_lruvec->refaults[]`, and `do_try_to_free_pages()` ends with `snapshot_refaults()`,
/// which reads the counter then. A periodic flush inside one limit reclaim brings activations
/// into the copy: the passes after it deactivate (the inactive list is not low), and the
/// snapshot holds them, so the next reclaim does not. (Taken once at the call's start, the
/// test would miss them in that call and the start's snapshot would make the next deactivate.)
#[test]
fn refault_deactivation_is_decided_per_pass_and_snapshot_at_the_end_6_12() {
    use crate::memcontrol::MemcgEvent;
    use crate::vmstat::VmEvent;
    let mut s = sim(r#"
[scenario]
name = "per-pass-refaults"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.12"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/hot"]
size = "64K"
[files."/f"]
size = "1M"
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, hot, f) = (memcg(&s, "ct"), inode(&s, "/hot"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, f, 0, 200, ct);
    k.lru_add_drain();
    let t = k.stats_flush_next;
    k.advance_clock(t);
    let v = k.lruvec_idx(ct, 0);
    assert_eq!((k.lru_stats.flushed_subtree_size(v, LruList::InactiveFile), k.lru_stats.flushed_subtree_size(v, LruList::ActiveFile)), (200, 16));
    // A first reclaim: no refaults, inactive not low: nothing deactivated; snapshot 0.
    k.try_to_free_mem_cgroup_pages(ct, 32);
    let d0 = k.vmstat.get(VmEvent::Pgdeactivate);
    assert_eq!(d0, 0);
    // An activation, not yet in the copy; the flush falls inside the next reclaim, after its
    // first pass has decided (its reclaim_call cost is spent before the first pass).
    k.memcgs.count_event(ct, MemcgEvent::WorkingsetActivateFile, 1);
    let ev = MemcgEvent::WorkingsetActivateFile as usize;
    assert_eq!(k.memcgs.flushed_subtree_events(ct, ev), 0);
    let epoch = k.stats_flush_epoch;
    k.stats_flush_next = k.now + k.cost.reclaim_call + 1;
    k.cpu_fast_update(); // cpu()'s kept compare follows the flush time (issue 17)
    k.try_to_free_mem_cgroup_pages(ct, 32);
    assert_eq!(k.stats_flush_epoch, epoch + 1, "the flush fell inside the reclaim");
    assert_eq!(k.memcgs.flushed_subtree_events(ct, ev), 1);
    let d1 = k.vmstat.get(VmEvent::Pgdeactivate);
    assert!(d1 > d0, "the passes after the flush see the activation and deactivate");
    assert_eq!(k.memcgs.get(ct).refaults_snapshot, 1, "snapshot_refaults() at the call's end");
    k.try_to_free_mem_cgroup_pages(ct, 32);
    assert_eq!(k.vmstat.get(VmEvent::Pgdeactivate), d1, "no activation since the snapshot: no deactivation");
    assert_invariants(k);
}

/// A v1 memcg of 16M on a machine with 256M of swap on a 20M/s device (kernel `profile`).
fn slow_swap_v1(profile: &str) -> String {
    format!(
        r#"
[scenario]
name = "case3"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "400M"
write_bw = "20M"
[cgroups.ct]
"memory.limit_in_bytes" = "16M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    )
}

/// `shrink_folio_list()` (mm/vmscan.c 6.1) "case 3" of an anonymous page: legacy (v1) memcg
/// reclaim meets a page under swap writeback that `pageout()` marked `PG_reclaim` and waits
/// for the write (`folio_wait_writeback()`), then frees the page, clean in the swap cache.
/// When another task could run before the write ends and the charge that reclaims can be
/// restarted (`Resched`), the engine ends the quantum at the wait instead: the page goes back
/// to the inactive tail still under writeback, uncounted in pgscan, nothing reclaimed, and the
/// task wakes when the write ends (`Resched::wake`) to reclaim it then.
#[test]
fn shrink_inactive_anon_case_3_waits_or_yields_6_1() {
    for yields in [false, true] {
        let mut s = sim(&slow_swap_v1("linux-6.1"));
        let ct = memcg(&s, "ct");
        let k = &mut s.kernel;
        let vma = k.do_mmap_anon(64, ct);
        for i in 0..64 {
            k.handle_mm_fault(vma, i).unwrap();
        }
        let v = k.lruvec_idx(ct, 0);
        // pageout() of the inactive tail: PG_writeback + PG_reclaim, back at the tail.
        let p = k.lruvecs[v].tail(LruList::InactiveAnon).expect("an inactive anon page");
        k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p);
        assert!(k.swap_writepage(p));
        assert!(k.pages[p].test(pg::WRITEBACK) && k.pages[p].test(pg::RECLAIM));
        k.lruvecs[v].add_tail(&mut k.pages, &mut k.lru_stats, p, LruList::InactiveAnon);
        let done = k.wb_done[p.idx()];
        assert!(done > k.now, "the write takes time at 20M/s");
        if yields {
            k.resched = crate::sched::Resched { horizon: Some(k.now), restartable: true, ..Default::default() };
        }
        let scanned = k.memcgs.events(ct, MemcgEvent::Pgscan);
        let mut sc = crate::vmscan::ScanControl::new(ct, 32, true, false);
        let reclaimed = k.shrink_inactive_anon(ct, v, 1, &mut sc);
        if yields {
            assert_eq!(k.now, done, "the task's clock at the write's end");
            assert_eq!(reclaimed, 0);
            assert_eq!(k.resched.wake, Some(done), "the wait ended the quantum");
            assert_eq!(k.lruvecs[v].tail(LruList::InactiveAnon), Some(p), "back at the inactive tail");
            assert!(k.pages[p].test(pg::WRITEBACK), "its completion is left to the scheduler");
            assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgscan), scanned, "not counted as scanned");
            k.resched = Default::default();
        } else {
            assert!(k.now >= done, "waited for the write");
            assert_eq!(reclaimed, 1, "waited in place and freed it");
            assert!(!k.vmas[vma.0 as usize].pages.contains(&p));
            assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgscan), scanned + 1);
        }
        assert_invariants(k);
    }
}

/// Global reclaim's walk over many memcgs (6.1 `shrink_node_memcgs()`: every memcg at every
/// priority) visits through `vmscan::WalkIndex` only the memcgs whose visit does something:
/// the same reclaim, page for page, as a visit to every memcg. 96 containers re-read their
/// files on a machine too small for them all (scalebench's `reread`), with shadow nodes,
/// refaults and kswapd; every memcg's scan, steal, refault and activation counts, the
/// machine's, and each memcg's usage agree with the walk that visits every memcg.
#[test]
fn global_reclaim_walk_index_visits_what_the_full_walk_acts_on() {
    let n = 96;
    let mut t = format!("[scenario]\nname = \"reread\"\n[machine]\nram = \"{}M\"\ncpus = 2\n[kernel]\nprofile = \"linux-6.1\"\ncgroup = \"v2\"\n[devices.sda]\nread_bw = \"10G\"\nread_ahead_kb = 128\n", 2 * n);
    for i in 0..n {
        t += &format!("[files.\"/c{i}/f\"]\nsize = \"8M\"\n[cgroups.c{i}]\n\"memory.max\" = \"4M\"\n[tasks.t{i}]\ncgroup = \"c{i}\"\nops = [{{op = \"read\", file = \"/c{i}/f\", bufsize = \"128K\"}}, {{op = \"read\", file = \"/c{i}/f\", bufsize = \"128K\"}}]\n");
    }
    let mut indexed = sim(&t);
    let mut full = sim(&t);
    full.kernel.walk_index_off = true;
    run(&mut indexed);
    run(&mut full);
    let (a, b) = (&indexed.kernel, &full.kernel);
    assert!(b.walk_index.order.is_empty(), "the full walk built no index");
    assert_eq!(a.walk_index.order.len(), n + 1, "global reclaim walked the root's subtree through the index");
    assert!(a.vmstat.events[VmEvent::PgstealKswapd as usize] + a.vmstat.events[VmEvent::PgstealDirect as usize] > 0, "global reclaim ran");
    for ev in [MemcgEvent::Pgscan, MemcgEvent::Pgsteal, MemcgEvent::WorkingsetRefaultFile, MemcgEvent::WorkingsetActivateFile] {
        for m in 0..a.memcgs.len() {
            let m = MemcgId(m as u32);
            assert_eq!(a.memcgs.get(m).events[ev as usize], b.memcgs.get(m).events[ev as usize], "{ev:?} of memcg {}", m.0);
        }
    }
    for m in 0..a.memcgs.len() {
        let m = MemcgId(m as u32);
        assert_eq!(a.memcgs.get(m).counter.usage, b.memcgs.get(m).counter.usage, "usage of memcg {}", m.0);
    }
    assert_eq!(a.vmstat.events, b.vmstat.events);
    assert_eq!(a.now, b.now);
    assert_invariants(a);
}

/// `pgdat_balanced()` at order 0, per era. From 4.8 (1d82de618ddd, kswapd reclaiming by
/// node; 6.1's loop "if (zone_watermark_ok_safe(zone, order, mark, highest_zoneidx)) return
/// true;") one zone at or above its high watermark balances the node; 3.13's and 4.4's
/// require every zone ("For order-0, all zones must be balanced!"), a zone that is not
/// `zone_reclaimable()` (scanned 6x its reclaimable pages since a page was freed) counting
/// as balanced.
#[test]
fn pgdat_balanced_needs_any_zone_from_4_8_and_every_zone_before() {
    for (profile, any) in [("linux-6.1", true), ("linux-6.18", true), ("linux-5.0", true), ("linux-4.4", false), ("linux-3.13", false)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "two-zones"
[kernel]
profile = "{profile}"
[machine]
ram = "128M"
dma32 = "32M"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "8M"
[tasks.t]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
        ));
        run(&mut s);
        let k = &mut s.kernel;
        let zones = k.nodes[0].zones.clone();
        assert_eq!(zones.len(), 2, "{profile}: Normal and DMA32");
        let saved: Vec<u64> = zones.iter().map(|&z| k.zones[z].free).collect();
        let set = |k: &mut Kernel, above: [bool; 2]| {
            for (i, &z) in zones.iter().enumerate() {
                k.zones[z].free = if above[i] { k.zones[z].wmark_high } else { k.zones[z].wmark_high - 1 };
            }
        };
        assert!(k.node_reclaimable(0), "{profile}: /f's pages are on the LRU, none scanned");
        set(k, [true, true]);
        assert!(k.node_balanced(0), "{profile}: both zones at their high watermark");
        set(k, [false, false]);
        assert!(!k.node_balanced(0), "{profile}: both below");
        set(k, [true, false]);
        assert_eq!(k.node_balanced(0), any, "{profile}: Normal balanced, DMA32 not");
        set(k, [false, true]);
        assert_eq!(k.node_balanced(0), any, "{profile}: DMA32 balanced, Normal not");
        // Scanned 6x its reclaimable pages: not zone_reclaimable(), balanced before 4.8 only.
        let scanned = k.nodes[0].pages_scanned;
        k.nodes[0].pages_scanned = 1 << 40;
        assert!(!k.node_reclaimable(0), "{profile}");
        set(k, [false, false]);
        assert_eq!(k.node_balanced(0), !any, "{profile}: an unreclaimable node");
        // wakeup_kswapd() has no zone_reclaimable() test (4.4: "if (zone_balanced(zone, order,
        // 0, 0)) return;" per zone of the zonelist): a zone below its high watermark wakes
        // kswapd even on a node pgdat_balanced() calls balanced.
        assert!(!k.wakeup_kswapd_balanced(0), "{profile}: wakeup_kswapd() wakes kswapd for an unreclaimable node below high");
        set(k, [true, true]);
        assert!(k.wakeup_kswapd_balanced(0), "{profile}: both zones at high: kswapd left asleep");
        k.nodes[0].pages_scanned = scanned;
        // Above the low watermark and below high: the low-watermark gate before 3.12
        // ("zone_watermark_ok_safe(zone, order, low_wmark_pages(zone), 0, 0)") would leave
        // kswapd asleep; zone_balanced() (3.12+, read in v3.13.0's wakeup_kswapd()) wakes it.
        for &z in &zones {
            k.zones[z].free = k.zones[z].wmark_low + 1;
            assert!(k.zones[z].free < k.zones[z].wmark_high, "{profile}: low < high");
        }
        assert!(!k.wakeup_kswapd_balanced(0), "{profile}: between low and high, kswapd is woken");
        for (i, &z) in zones.iter().enumerate() {
            k.zones[z].free = saved[i];
        }
        assert_invariants(k);
    }
}

/// A kernel of profile `p` with one disk (128 MiB/s both ways, 1 ms seeks) and no swap, at 0.
fn kernel_with_disk(p: &str) -> Kernel {
    let mut k = Kernel::new(crate::profile::profile(p).unwrap(), crate::profile::Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
    k.devices.push(crate::blkdev::BlockDevice::new("sda", 128 << 20, 128 << 20, 1_000_000, 128));
    k
}

/// `wait_iff_congested(zone, BLK_RW_ASYNC, HZ/10)` at the end of `shrink_inactive_list()`
/// (mm/vmscan.c and mm/backing-dev.c, 4.3): global direct reclaim that met dirty or writeback
/// pages sleeps while their queue is congested (more than `queue_congestion_on_threshold()`,
/// 113 requests of 512 KiB, behind: 441.4 ms at 128 MiB/s), woken by `clear_wb_congested()`
/// once the backlog is below `queue_congestion_off_threshold()` (103 requests: 402.3 ms), at
/// most HZ/10; kswapd (`!current_is_kswapd()`) and memcg limit reclaim (`global_reclaim()`
/// sets `ZONE_CONGESTED`) do not sleep there. 5.0-5.15: no blk-mq bdi is congested
/// (`nr_wb_congested` 0), so it only `cond_resched()`s.
#[test]
fn wait_iff_congested_sleeps_global_direct_reclaim_until_the_queue_leaves_congestion_4_3_not_on_blk_mq_5_0() {
    use crate::delayacct::StallKind;
    use crate::vmscan::ScanControl;
    const MS: u64 = 1_000_000;
    let direct = ScanControl::new(MemcgId::ROOT, 32, false, false);
    // 450 ms of writes queued: congested; below the off mark after 47.65625 ms.
    let mut k = kernel_with_disk("linux-4.3");
    k.devices[0].busy_until = 450 * MS;
    k.throttle_direct_reclaim(0, &direct);
    assert_eq!(k.now, 450 * MS - 402_343_750);
    assert_eq!(k.stall.take()[StallKind::Congestion as usize], k.now, "a congestion stall");
    // A second's backlog: the HZ/10 timeout (4.3's wheel: the tick of its expiry, 100 ms).
    let mut k = kernel_with_disk("linux-4.3");
    k.devices[0].busy_until = 1_000 * MS;
    k.throttle_direct_reclaim(0, &direct);
    assert_eq!(k.now, 100 * MS);
    // Below the on mark (440 ms < 441.4 ms): not congested, no sleep.
    let mut k = kernel_with_disk("linux-4.3");
    k.devices[0].busy_until = 440 * MS;
    k.throttle_direct_reclaim(0, &direct);
    assert_eq!(k.now, 0);
    // kswapd and memcg limit reclaim: no sleep, however congested.
    for sc in [ScanControl::new(MemcgId::ROOT, 32, false, true), ScanControl::new(MemcgId::ROOT, 32, true, false)] {
        let mut k = kernel_with_disk("linux-4.3");
        k.devices[0].busy_until = 1_000 * MS;
        k.throttle_direct_reclaim(0, &sc);
        assert_eq!(k.now, 0, "kswapd {} cgroup {}", sc.kswapd, sc.cgroup_reclaim);
    }
    // 5.0 (blk-mq, ReclaimThrottle::CongestionTimeout): never.
    let mut k = kernel_with_disk("linux-5.0");
    k.devices[0].busy_until = 1_000 * MS;
    k.throttle_direct_reclaim(0, &direct);
    assert_eq!(k.now, 0, "5.0: wait_iff_congested() returns at once");
}

/// kswapd meeting pages it had already marked for immediate reclaim (`nr_immediate`) in a
/// batch all under writeback is throttled, per era: 4.3's `congestion_wait(BLK_RW_ASYNC,
/// HZ/10)` (mm/vmscan.c `shrink_inactive_list()`, 3.11-4.x), woken when the congested queue
/// drains below its off mark; 5.0-5.15's on blk-mq, which nothing wakes (the whole HZ/10, to
/// the tick after its expiry on 4.8+'s wheel: 104 ms). 5.16+ throttles at the end of the
/// `shrink_node()` round instead (`kswapd_writeback_throttle_per_shrink_node_round_6_1`): not
/// per batch. Without `nr_immediate`, with a page not under writeback in the batch, or outside
/// kswapd, no sleep.
#[test]
fn kswapd_throttles_on_immediate_reclaim_pages_per_era_4_3_5_0_6_1() {
    use crate::vmscan::ScanControl;
    const MS: u64 = 1_000_000;
    let kswapd = ScanControl::new(MemcgId::ROOT, 32, false, true);
    let mut k = kernel_with_disk("linux-4.3");
    k.devices[0].busy_until = 450 * MS;
    k.throttle_kswapd(0, 1, true, &kswapd);
    assert_eq!(k.now, 450 * MS - 402_343_750, "4.3: until the queue leaves congestion");
    let mut k = kernel_with_disk("linux-5.0");
    k.devices[0].busy_until = 450 * MS;
    k.throttle_kswapd(0, 1, true, &kswapd);
    assert_eq!(k.now, 104 * MS, "5.0: the whole HZ/10");
    let mut k = kernel_with_disk("linux-6.1");
    k.devices[0].busy_until = 450 * MS;
    k.wb_ended.push_back((5 * MS, 33));
    k.throttle_kswapd(0, 1, true, &kswapd);
    assert_eq!(k.now, 0, "6.1: not at the batch's end");
    for p in ["linux-4.3", "linux-5.0", "linux-6.1"] {
        for (nr_immediate, all_writeback, sc) in [(0, true, kswapd), (1, false, kswapd), (1, true, ScanControl::new(MemcgId::ROOT, 32, false, false))] {
            let mut k = kernel_with_disk(p);
            k.devices[0].busy_until = 450 * MS;
            k.throttle_kswapd(0, nr_immediate, all_writeback, &sc);
            assert_eq!(k.now, 0, "{p}: nr_immediate {nr_immediate} all_writeback {all_writeback} kswapd {}", sc.kswapd);
        }
    }
}

/// `throttle_vm_writeout()` is called at the end of `shrink_lruvec()` (`shrink_zone()` in 4.3)
/// up to 4.8 only (c2aa723a6093 "mm: remove throttle_vm_writeout()", 4.9): the same writeback
/// over the global limit plus a tenth makes 4.3's reclaim sleep until the device drains (no
/// write completes the pages here) and 5.0's go on.
#[test]
fn shrink_lruvec_calls_throttle_vm_writeout_up_to_4_8_only() {
    const MS: u64 = 1_000_000;
    for (p, slept) in [("linux-4.3", 300 * MS), ("linux-4.4", 300 * MS), ("linux-5.0", 0)] {
        let mut k = kernel_with_disk(p);
        let g = k.global_dirty_limits();
        k.vmstat.nr_writeback = g.thresh + g.thresh / 10 + 1;
        k.devices[0].busy_until = 300 * MS;
        k.shrink_lruvec_node_end(MemcgId::ROOT, 0);
        assert_eq!(k.now, slept, "{p}");
    }
}

/// Legacy (v1) memcg reclaim whose batch was all unqueued dirty pages wakes the flusher and,
/// from 6.1 (81a70c21d917 "mm/cgroup/reclaim: fix dirty pages throttling on cgroup v1"),
/// throttles there: `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` in
/// `shrink_inactive_list()`, a `congestion` stall until more than `SWAP_CLUSTER_MAX` pages
/// have been written (6.1's mm/vmscan.c). 5.17's only wakes the flusher.
#[test]
fn v1_reclaim_of_unqueued_dirty_pages_throttles_from_6_1_not_on_5_17() {
    use crate::delayacct::StallKind;
    for (p, throttles) in [("linux-5.17", false), ("linux-6.1", true)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "v1-dirty"
[machine]
ram = "1G"
[kernel]
profile = "{p}"
cgroup = "v1"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
[files."/log"]
size = 0
[cgroups.ct]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let (ct, log) = (memcg(&s, "ct"), inode(&s, "/log"));
        let k = &mut s.kernel;
        assert_eq!(k.generic_perform_write(log, 0, 64 * PAGE_SIZE, ct), Ok(64 * PAGE_SIZE));
        k.stall.take();
        k.try_to_free_mem_cgroup_pages(ct, 32);
        let congestion = k.stall.take()[StallKind::Congestion as usize];
        assert!(k.devices[0].write_bytes > 0, "{p}: the flusher was woken");
        assert_eq!(congestion > 0, throttles, "{p}: congestion stall {congestion} ns");
        assert_invariants(k);
    }
}

/// kswapd on a node whose LRU pages it cannot free (every page of /f pinned by a reader's
/// batch, `read_pinned`: reclaim scans them and keeps them) and that is below its high
/// watermark, per era (mm/vmscan.c):
/// - 4.12+ (c73322d098e4 "mm: fix 100% CPU kswapd busyloop on unreclaimable nodes"; 6.1
///   read): each `balance_pgdat()` that reclaimed nothing counts `pgdat->kswapd_failures++`;
///   at `MAX_RECLAIM_RETRIES` (16) `prepare_kswapd_sleep()` ("Hopeless node, leave it to
///   direct reclaim") lets kswapd sleep, `wakeup_kswapd()` does not wake it, and a
///   `shrink_node()` of direct reclaim that frees a page resets the count ("A successful direct
///   reclaim run will revive a dormant kswapd");
/// - 3.11-4.11 (4.4 read): no count; kswapd balances again without sleeping until
///   `pgdat_balanced()` holds, which an unreclaimable node does (scanned 6x its LRU pages since
///   the last free, `zone_reclaimable()`), and `wakeup_kswapd()` wakes it again at once.
///
/// /proc/zoneinfo's `node_unreclaimable` (mm/vmstat.c zoneinfo_show_print(), 4.12+:
/// `pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES`) says the same: the step metric
/// `node.0.unreclaimable` is 1 on the hopeless node, 0 once direct reclaim revived it, and 0
/// throughout before 4.12.
#[test]
fn kswapd_failures_leave_a_hopeless_node_to_direct_reclaim_from_4_12() {
    // the step metric at this instant (a step's end), as a run reports it
    let node_unreclaimable = |k: &Kernel| {
        let snap = crate::metrics::Snapshot::take(k, crate::types::MemcgId::ROOT, Default::default());
        let m = crate::metrics::step_metrics(k, crate::types::MemcgId::ROOT, &snap, &snap, false);
        m.iter().find(|(n, _)| n == "node.0.unreclaimable").expect("node.0.unreclaimable is reported").1
    };
    for (profile, counts) in [("linux-6.1", true), ("linux-5.0", true), ("linux-6.18", true), ("linux-4.4", false), ("linux-3.13", false)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "hopeless"
[kernel]
profile = "{profile}"
[machine]
ram = "64M"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
        ));
        run(&mut s);
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        k.lru_add_drain();
        let wakeups = |k: &Kernel| k.vmstat.get(VmEvent::KswapdWakeup);
        // Below high (not below low: no allocation wakes kswapd) with frames off the LRU.
        let mut held = vec![];
        while k.node_balanced(0) {
            let i = held.len() as u32;
            held.push(k.alloc_page(InodeId(0), i).expect("memory left"));
        }
        k.read_pinned = Some((f, 0, u32::MAX));
        let cached = k.mappings[f.idx()].nrpages;
        assert!(cached > 0, "{profile}: /f is cached");
        let (w0, scan0) = (wakeups(k), k.vmstat.get(VmEvent::PgscanKswapd));
        k.wakeup_kswapd(0, 0);
        assert_eq!(wakeups(k), w0 + 1, "{profile}");
        let t = k.now + 5_000_000_000;
        k.advance_clock(t);
        k.kswapd_catch_up();
        assert_eq!(k.mappings[f.idx()].nrpages, cached, "{profile}: nothing reclaimed");
        let scanned = k.vmstat.get(VmEvent::PgscanKswapd) - scan0;
        assert!(!k.nodes[0].kswapd_active, "{profile}: kswapd sleeps");
        if counts {
            assert_eq!(k.nodes[0].kswapd_failures, crate::page_alloc::MAX_RECLAIM_RETRIES, "{profile}: 16 failed passes");
            assert!(k.kswapd_hopeless(0) && !k.node_balanced(0), "{profile}: asleep on a hopeless node below high");
            assert_eq!(node_unreclaimable(k), 1.0, "{profile}: zoneinfo_show_print()'s node_unreclaimable");
            // Every failed balance_pgdat() went down to priority 1 (kswapd never scans at 0,
            // 3.11+: "} while (sc.priority >= 1)"): each scanned at least cached >> p at each.
            let per_pass: u64 = (1..=crate::vmscan::DEF_PRIORITY).map(|p| cached >> p).sum();
            assert!(scanned >= 16 * per_pass, "{profile}: {scanned} scanned, {cached} cached");
            let t = k.now + 1_000_000_000;
            k.advance_clock(t);
            k.kswapd_catch_up();
            assert!(k.nodes[0].kswapd_short_sleep.is_none() && !k.nodes[0].kswapd_active, "{profile}: fully asleep");
            // PAGEOUTRUN counts each balance_pgdat(): the wake-up's and the 15 that kswapd()
            // started at once after a failed one (prepare_kswapd_sleep() false).
            assert_eq!(wakeups(k), w0 + 16, "{profile}");
            let w0 = w0 + 15;
            k.wakeup_kswapd(0, 0);
            assert_eq!(wakeups(k), w0 + 1, "{profile}: wakeup_kswapd() leaves a hopeless node asleep");
            // Direct reclaim frees pages of /f once the reader lets them go: the count resets
            // and the next wakeup_kswapd() wakes kswapd.
            k.read_pinned = None;
            assert!(k.try_to_free_pages(32) > 0, "{profile}");
            assert_eq!(k.nodes[0].kswapd_failures, 0, "{profile}: shrink_node() made progress");
            assert_eq!(node_unreclaimable(k), 0.0, "{profile}: revived");
            while k.node_balanced(0) {
                let i = held.len() as u32;
                held.push(k.alloc_page(InodeId(0), i).expect("memory left"));
            }
            k.wakeup_kswapd(0, 0);
            assert_eq!(wakeups(k), w0 + 2, "{profile}: a successful direct reclaim revives kswapd");
        } else {
            assert_eq!(k.nodes[0].kswapd_failures, 0, "{profile}: no kswapd_failures before 4.12");
            assert_eq!(node_unreclaimable(k), 0.0, "{profile}: no node_unreclaimable before 4.12");
            // kswapd went on without sleeping until the node stopped being zone_reclaimable().
            assert!(!k.node_reclaimable(0) && k.node_balanced(0), "{profile}");
            assert!(scanned >= 6 * cached, "{profile}: {scanned} scanned, {cached} cached");
            // PAGEOUTRUN counts each balance_pgdat() kswapd() started without sleeping.
            let w0 = wakeups(k) - 1;
            k.wakeup_kswapd(0, 0);
            assert_eq!(wakeups(k), w0 + 2, "{profile}: wakeup_kswapd() wakes kswapd for a zone below high");
        }
        k.read_pinned = None;
        for p in held {
            k.free_page(p);
        }
        assert_invariants(k);
    }
}

/// `reclaim_throttle()`'s CONGESTED and NOPROGRESS reasons (mm/vmscan.c 5.16+, 6.1 read; both
/// in 1b4e3f26f9f7's form "mm: vmscan: Reduce throttling due to a failure to make progress"):
/// `shrink_node()` flags its target lruvec `LRUVEC_CONGESTED` for kswapd and sane (v2) memcg
/// reclaim when every dirty file page was under writeback and marked (`nr.dirty ==
/// nr.congested`), and direct reclaim of a flagged target sleeps `schedule_timeout(1)` after
/// each `shrink_node()`; `consider_reclaim_throttle()` has global direct reclaim that got
/// nothing by priority 1 sleep one jiffy too; `skip_throttle_noprogress()` spares both when
/// at most half the node's reclaimable pages wait for writeback or kswapd gave the node up.
/// 5.0-5.15 have neither (`wait_iff_congested()`, a no-op on blk-mq).
#[test]
fn reclaim_throttle_congested_and_noprogress_sleep_one_jiffy_from_5_16() {
    use crate::delayacct::StallKind;
    use crate::memcontrol::CgroupVersion;
    use crate::timer::NSEC_PER_JIFFY;
    let congestion = |k: &Kernel| k.stall.ns[StallKind::Congestion as usize];
    // Global direct reclaim of an empty LRU (nothing reclaimable) with `dirty` write-pending
    // pages: the congestion stall it took.
    let direct = |p: &str, dirty: u64, congested: bool, hopeless: bool| {
        let mut k = kernel_with_disk(p);
        k.vmstat.nr_dirty = dirty;
        let root = k.lruvec_idx(MemcgId::ROOT, 0);
        k.lruvecs[root].congested = congested;
        if hopeless {
            k.nodes[0].kswapd_failures = crate::page_alloc::MAX_RECLAIM_RETRIES;
        }
        k.now = 5 * NSEC_PER_JIFFY + 1;
        assert_eq!(k.try_to_free_pages(32), 0);
        k.vmstat.nr_dirty = 0;
        let c = congestion(&k);
        (c, k.lruvecs[root].congested)
    };
    // schedule_timeout(1) on the 4.8+ wheel (timer.rs, calc_wheel_index() rounds a level-0
    // expiry up by one) wakes at the second tick from now: up to two jiffies.
    let j = NSEC_PER_JIFFY;
    // 6.11+ goes round the priorities twice when the first round got nothing (the shared
    // memcg walk's `memcg_full_walk` retry).
    for (p, rounds) in [("linux-6.1", 1), ("linux-5.17", 1), ("linux-6.18", 2)] {
        // NOPROGRESS: one sleep per round, at priority 1.
        let (c, _) = direct(p, 1000, false, false);
        assert!(c > (2 * rounds - 1) * j && c <= 2 * rounds * j, "{p}: one NOPROGRESS sleep at priority 1 per round: {c}");
        // CONGESTED: a sleep after each of the 13 priorities' shrink_node(), plus NOPROGRESS.
        let (c, still) = direct(p, 1000, true, false);
        assert!(c > (28 * rounds - 2) * j && c <= 28 * rounds * j, "{p}: 14 sleeps of schedule_timeout(1) per round: {c}");
        assert!(still, "{p}: direct reclaim neither sets nor clears LRUVEC_CONGESTED");
        // skip_throttle_noprogress(): nothing waits for writeback, or a hopeless node.
        assert_eq!(direct(p, 0, true, false).0, 0, "{p}: 2 * write_pending <= reclaimable");
        assert_eq!(direct(p, 1000, true, true).0, 0, "{p}: kswapd_failures >= MAX_RECLAIM_RETRIES");
    }
    for p in ["linux-5.0", "linux-4.4"] {
        assert_eq!(direct(p, 1000, true, false).0, 0, "{p}: no reclaim_throttle() before 5.16");
    }
    // Who flags the target: kswapd, and memcg reclaim only where writeback throttling is sane
    // (cgroup v2 with cgroup writeback); global direct reclaim never; and only when every
    // dirty page met was congested.
    for (version, kswapd, cgroup, dirty, congested, flags) in [
        (CgroupVersion::V1, true, false, 32, 32, true),
        (CgroupVersion::V1, true, false, 32, 31, false),
        (CgroupVersion::V1, true, false, 0, 0, false),
        (CgroupVersion::V1, false, false, 32, 32, false),
        (CgroupVersion::V1, false, true, 32, 32, false),
        (CgroupVersion::V2, false, true, 32, 32, true),
    ] {
        let mut k = Kernel::new(crate::profile::profile("linux-6.1").unwrap(), crate::profile::Policies::default(), version, 1 << 15, 0);
        let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, cgroup, kswapd);
        sc.nr_reclaimed = 1; // no NOPROGRESS
        sc.nr_dirty = dirty;
        sc.nr_congested = congested;
        if kswapd {
            k.reclaim_nid = Some(0);
        }
        k.vmstat.nr_dirty = 1000;
        k.shrink_node_throttle(&sc);
        let root = k.lruvec_idx(MemcgId::ROOT, 0);
        assert_eq!(k.lruvecs[root].congested, flags, "{version:?} kswapd {kswapd} cgroup {cgroup} {dirty}/{congested}");
        // The flagging memcg reclaim throttles on its own flag at once; kswapd never does.
        assert_eq!(congestion(&k) > 0, flags && !kswapd, "{version:?} kswapd {kswapd} cgroup {cgroup}");
    }
    // Cleared at the end of memcg reclaim (do_try_to_free_pages()) and when kswapd finds the
    // node balanced (clear_pgdat_congested() from prepare_kswapd_sleep()).
    let mut k = Kernel::new(crate::profile::profile("linux-6.1").unwrap(), crate::profile::Policies::default(), CgroupVersion::V2, 1 << 15, 0);
    let root = k.lruvec_idx(MemcgId::ROOT, 0);
    k.lruvecs[root].congested = true;
    k.try_to_free_mem_cgroup_pages(MemcgId::ROOT, 32);
    assert!(!k.lruvecs[root].congested, "memcg reclaim clears its target's flag");
    k.lruvecs[root].congested = true;
    assert!(k.node_balanced(0), "a new machine is balanced");
    k.wakeup_kswapd(0, 0);
    k.nodes[0].kswapd_active = true;
    let t = k.now + 1_000_000;
    k.advance_clock(t);
    k.kswapd_catch_up();
    assert!(!k.nodes[0].kswapd_active && !k.lruvecs[root].congested, "kswapd going to sleep on a balanced node clears it");
}

/// `too_many_isolated()`'s test (mm/vmscan.c; 3.13, 4.3, 6.1 read: the same lines): more
/// isolated than the inactive list, or than an eighth of it for a `__GFP_IO | __GFP_FS` caller.
#[test]
fn too_many_isolated_3_13_to_6_1_counts_an_eighth_of_inactive_for_gfp_io_fs() {
    use crate::vmscan::too_many_isolated_sizes;
    assert!(!too_many_isolated_sizes(800, 100, true), "100 of 800 >> 3: not more");
    assert!(too_many_isolated_sizes(800, 101, true));
    assert!(!too_many_isolated_sizes(800, 101, false), "GFP_NOIO/GFP_NOFS: the whole list");
    assert!(too_many_isolated_sizes(800, 801, false));
    assert!(!too_many_isolated_sizes(0, 0, true), "nothing isolated is never too many");
}

/// The node's `NR_ISOLATED_ANON/FILE` over time ([`crate::mmzone::IsolatedLedger`]): a batch
/// counts at the clocks within its isolation (from its isolation to its putback), per type;
/// the first `too_many_isolated()` found below the limit after a time (a checked batch's
/// start) is what wakes 5.16+'s `VMSCAN_THROTTLE_ISOLATED` sleepers; the oldest batch goes
/// when the ledger is full.
#[test]
fn isolated_ledger_counts_batches_between_isolation_and_putback() {
    use crate::mmzone::{IsolatedLedger, ISOLATED_LEDGER_LEN};
    let mut l = IsolatedLedger::default();
    l.record(true, 100, 200, 32, true);
    l.record(true, 150, 300, 10, false);
    l.record(false, 150, 300, 7, true);
    assert_eq!(l.isolated_at(true, 99), 0);
    assert_eq!(l.isolated_at(true, 100), 32);
    assert_eq!(l.isolated_at(true, 150), 42);
    assert_eq!(l.isolated_at(true, 200), 10, "put back at 200");
    assert_eq!(l.isolated_at(false, 160), 7);
    assert_eq!(l.isolated_at(true, 300), 0);
    assert_eq!(l.recorded(true, 299), 42, "the O(1) bound");
    assert_eq!(l.recorded(true, 300), 0, "every batch over");
    assert_eq!(l.first_check_between(50, 1000), Some(100));
    assert_eq!(l.first_check_between(100, 1000), Some(150), "the anon batch's check");
    assert_eq!(l.first_check_between(150, 1000), None, "the 150 file batch was not checked");
    for i in 0..ISOLATED_LEDGER_LEN as u64 - 2 {
        l.record(true, 1000 + i, 1001 + i, 1, false);
    }
    assert_eq!(l.isolated_at(true, 100), 0, "the oldest batch was overwritten");
    assert_eq!(l.isolated_at(true, 150), 10);
}

/// The `too_many_isolated()` wait of direct reclaim at the start of `shrink_inactive_list()`
/// per era (mm/vmscan.c), on a node whose inactive file list is empty while another context
/// holds 32 file pages isolated:
/// - 3.13/4.3 (`IsolatedThrottle::CongestionLoop`): `congestion_wait(BLK_RW_ASYNC, HZ/10)`
///   again and again while the condition holds (no device congested: whole timeouts), then
///   the batch goes on;
/// - 4.14-5.15 (db73ee0d4637, 5.0 profile): one `msleep(100)` (`HZ/10 + 1` jiffies), then
///   `return 0` while it still holds;
/// - 5.16+ (d818fca1cac3, 6.1 read): one `reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED)`,
///   `HZ/50`, ended early only by another reclaimer's `too_many_isolated()` that finds the
///   node below the limit (`wake_throttle_isolated()`; the putback itself wakes nobody), then
///   `return 0` while it still holds; counted as `vmscan.throttled.isolated`.
///
/// kswapd never waits; legacy v1 memcg reclaim never (`writeback_throttling_sane()`, 4.2+
/// `sane_reclaim()`); cgroup v2 memcg reclaim does from 4.2 and not on 3.13
/// (`global_reclaim()`).
#[test]
fn too_many_isolated_waits_per_era_congestion_loop_3_13_msleep_4_14_reclaim_throttle_5_16() {
    use crate::delayacct::StallKind;
    use crate::memcontrol::CgroupVersion;
    use crate::timer::NSEC_PER_JIFFY as J;
    use crate::vmscan::{ScanControl, VmscanThrottle};
    let congestion = |k: &Kernel| k.stall.ns[StallKind::Congestion as usize];
    // A kernel at 10 jiffies whose node 0 has 32 file pages isolated by another context from
    // 9 jiffies to `until`, and `check` (a checked batch of 1 page another reclaimer started
    // at that time).
    let setup = |p: &str, version: CgroupVersion, until: u64, check: Option<u64>| {
        let mut k = Kernel::new(crate::profile::profile(p).unwrap(), crate::profile::Policies::default(), version, 1 << 15, 0);
        k.now = 10 * J;
        k.nodes[0].isolated.record(true, 9 * J, until, 32, false);
        if let Some(t) = check {
            k.nodes[0].isolated.record(true, t, until, 1, true);
        }
        k
    };
    let direct = ScanControl::new(MemcgId::ROOT, 32, false, false);
    // 5.16+: HZ/50 (5 jiffies; 6 on the 4.8+ wheel), then nothing scanned.
    for p in ["linux-6.1", "linux-5.17", "linux-6.18"] {
        let mut k = setup(p, CgroupVersion::V2, 100 * J, None);
        let timeout = k.schedule_timeout_at(crate::vmscan::ISOLATED_THROTTLE_JIFFIES);
        assert_eq!(timeout, 16 * J, "{p}: HZ/50 from 10 jiffies on the 4.8+ wheel");
        assert_eq!(k.shrink_inactive_throttle(0, true, &direct), Err(0), "{p}: still too many: return 0");
        assert_eq!((congestion(&k), k.now), (6 * J, 16 * J), "{p}: one sleep of HZ/50");
        assert_eq!(k.vmscan_throttled[VmscanThrottle::Isolated as usize], 1, "{p}");
        assert_eq!(k.shrink_inactive_throttle(0, false, &direct), Ok(true), "{p}: anon is its own count");
        // Woken by another reclaimer's check 2 jiffies in.
        let mut k = setup(p, CgroupVersion::V2, 100 * J, Some(12 * J));
        assert_eq!(k.shrink_inactive_throttle(0, true, &direct), Err(0), "{p}");
        assert_eq!(congestion(&k), 2 * J, "{p}: wake_throttle_isolated() at 12 jiffies");
        // The isolating batch put back at 12 jiffies wakes nobody: the whole HZ/50, then scan.
        let mut k = setup(p, CgroupVersion::V2, 12 * J, None);
        assert_eq!(k.shrink_inactive_throttle(0, true, &direct), Ok(true), "{p}: below the limit after the sleep");
        assert_eq!(congestion(&k), 6 * J, "{p}: the putback does not wake it");
    }
    // 4.14-5.15: msleep(100) = 26 jiffies (27 on the wheel), no tracepoint.
    let mut k = setup("linux-5.0", CgroupVersion::V2, 1000 * J, None);
    assert_eq!(k.shrink_inactive_throttle(0, true, &direct), Err(0));
    assert_eq!(congestion(&k), k.now - 10 * J);
    assert_eq!(k.now, crate::timer::schedule_timeout_wake(10 * J, crate::vmscan::ISOLATED_MSLEEP_JIFFIES, true), "one msleep(100)");
    assert_eq!(k.now, 37 * J);
    assert_eq!(k.vmscan_throttled, [0; 4], "5.0 has no reclaim_throttle()");
    // 3.13-4.13: HZ/10 sleeps (the cascading wheel: at their expiry) until the batch is back.
    for p in ["linux-4.4", "linux-4.3", "linux-3.13"] {
        let mut k = setup(p, CgroupVersion::V1, 60 * J, None);
        assert_eq!(k.shrink_inactive_throttle(0, true, &direct), Ok(true), "{p}: the loop ends when the node is below the limit");
        assert_eq!((congestion(&k), k.now), (50 * J, 60 * J), "{p}: two congestion_wait(HZ/10), the batch back at 60 jiffies");
    }
    // Who is exempt, per era.
    let kswapd = ScanControl::new(MemcgId::ROOT, 32, false, true);
    let memcg = ScanControl::new(MemcgId::ROOT, 32, true, false);
    for (p, version, sc, waits) in [
        ("linux-6.1", CgroupVersion::V2, &kswapd, false),
        ("linux-4.4", CgroupVersion::V1, &kswapd, false),
        ("linux-6.1", CgroupVersion::V1, &memcg, false),
        ("linux-5.0", CgroupVersion::V1, &memcg, false),
        ("linux-4.4", CgroupVersion::V1, &memcg, false),
        ("linux-6.1", CgroupVersion::V2, &memcg, true),
        ("linux-5.0", CgroupVersion::V2, &memcg, true),
        ("linux-4.4", CgroupVersion::V2, &memcg, true),
        ("linux-3.13", CgroupVersion::V2, &memcg, false),
    ] {
        let mut k = setup(p, version, 60 * J, None);
        let r = k.shrink_inactive_throttle(0, true, sc);
        assert_eq!(congestion(&k) > 0, waits, "{p} {version:?} kswapd {} memcg {}: {r:?}", sc.kswapd, sc.cgroup_reclaim);
        assert_eq!(r == Ok(false), !waits, "{p} {version:?}: exempt callers do not check, and wake nobody ({r:?})");
    }
}

/// `readers` tasks on as many CPUs reading a file each through global direct reclaim while an
/// anonymous hog (no swap) leaves the node a small inactive file list (about 3 MiB):
/// `too_many_isolated()`'s scenario ("when there are massive number of tasks doing page
/// allocation, such sleeping direct reclaimers may keep piling up").
fn isolating_readers(profile: &str, readers: usize) -> String {
    let mut s = format!(
        r#"
[scenario]
name = "isolating-readers"
[machine]
ram = "256M"
cpus = {readers}
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "100G"
read_ahead_kb = 128
[tasks.hog]
ops = [{{ op = "mmap", name = "a", size = "244M" }}, {{ op = "touch", name = "a" }}, {{ op = "sleep", duration = "10s" }}]
"#
    );
    for i in 0..readers {
        s += &format!("[files.\"/f{i}\"]\nsize = \"16M\"\n[tasks.r{i}]\nstart = \"1s\"\nops = [{{ op = \"read\", file = \"/f{i}\", bufsize = \"128K\" }}]\n");
    }
    s
}

/// Many direct reclaimers on a small inactive list (global reclaim) meet each other's
/// isolated batches (mm/vmscan.c `too_many_isolated()`, 6.1 read): the batches of the tasks
/// whose clocks ran ahead are isolated over their own time on the engine's clock, so a task
/// behind them finds more than an eighth of the inactive list isolated and, on 5.0 (no
/// `memalloc_nofs_save()` in readahead), sleeps in `msleep(100)`: a congestion stall. On 6.1 the readers' reclaim is entered from readahead inside
/// `memalloc_nofs_save()` (5.8+), without `__GFP_FS`: the whole inactive list counts and
/// they do not wait. A lone reader (whom kswapd keeps up with here) never waits.
#[test]
fn many_direct_reclaimers_on_a_small_inactive_list_throttle_on_isolated_pages_6_1() {
    for (p, readers) in [("linux-6.1", 16), ("linux-6.1", 1), ("linux-5.0", 16)] {
        let res = crate::simulate(&crate::Document::from_toml("t.toml", &isolating_readers(p, readers)).unwrap().resolve(None, &[]).unwrap(), &mut |_, _| true).unwrap();
        let total = |name: &str| res.totals.iter().find(|(n, _)| n == name).map(|m| m.1);
        let congestion = total("stall.congestion_ms").unwrap();
        assert!(readers == 1 || total("vmstat.pgscan_direct").unwrap() > 0.0, "{p} {readers}: direct reclaim");
        if readers == 1 {
            assert_eq!((total("vmscan.throttled.isolated"), congestion), (Some(0.0), 0.0), "{p}: a lone reader");
        } else if p == "linux-6.1" {
            // The readers reclaim from readahead's allocations, inside memalloc_nofs_save()
            // (5.8+): no __GFP_FS, so the whole inactive list counts, and 16 batches of 32
            // are not more than it (before ragfp this asserted more than 10 throttles, from
            // the >> 3 of a __GFP_IO | __GFP_FS reclaim). The 6.1 sleep itself:
            // too_many_isolated_waits_per_era_congestion_loop_3_13_msleep_4_14_reclaim_throttle_5_16.
            assert_eq!((total("vmscan.throttled.isolated"), congestion), (Some(0.0), 0.0), "{p}: NOFS readahead reclaim");
        } else {
            assert_eq!(total("vmscan.throttled.isolated"), None, "{p}: no reclaim_throttle() metrics before 5.16");
            assert!(congestion >= 100.0, "{p}: msleep(100)s: {congestion} ms");
        }
    }
}

/// 6.1 `shrink_node()` for kswapd (mm/vmscan.c 5.16+): a round whose every page taken was under
/// writeback and unmarked (`shrink_folio_list()` case 2, `nr.writeback == nr.taken`) flags the
/// node `PGDAT_WRITEBACK` without sleeping; on a flagged node kswapd counts the marked pages
/// under writeback it meets as `nr.immediate` (case 1; before the flag, or for direct reclaim,
/// they are case 2), and a round with any sleeps `reclaim_throttle(pgdat,
/// VMSCAN_THROTTLE_WRITEBACK)` once, woken by 33 pages written; `clear_pgdat_congested()` (a
/// balanced node) clears the flag.
#[test]
fn kswapd_writeback_throttle_per_shrink_node_round_6_1() {
    use crate::vmscan::{ScanControl, VmscanThrottle};
    const MS: u64 = 1_000_000;
    let mut k = kernel_with_disk("linux-6.1");
    let p = k.alloc_page(InodeId(0), 0).expect("a free page");
    k.pages[p].flags |= pg::WRITEBACK | pg::RECLAIM;
    let mut direct = ScanControl::new(MemcgId::ROOT, 32, false, false);
    let mut sc = ScanControl::new(MemcgId::ROOT, 32, false, true);
    // Not flagged: case 2 for kswapd too.
    k.count_writeback_case(0, p, 1, &mut sc);
    assert_eq!((sc.round_writeback, sc.round_immediate), (1, 0));
    // A round all under writeback (case 2): the flag, no sleep.
    (sc.round_writeback, sc.round_taken) = (32, 32);
    k.shrink_node_throttle(&sc);
    assert!(k.nodes[0].pgdat_writeback);
    assert_eq!((k.now, k.vmscan_throttled[VmscanThrottle::Writeback as usize]), (0, 0));
    // Flagged: kswapd's marked page is case 1, direct reclaim's case 2.
    let mut sc = ScanControl::new(MemcgId::ROOT, 32, false, true);
    k.count_writeback_case(0, p, 1, &mut sc);
    k.count_writeback_case(0, p, 1, &mut direct);
    assert_eq!((sc.round_writeback, sc.round_immediate, direct.round_writeback, direct.round_immediate), (0, 1, 1, 0));
    // A round with one: one sleep, woken by 33 pages written at 5 ms.
    sc.round_taken = 32;
    k.wb_ended.push_back((5 * MS, 33));
    k.shrink_node_throttle(&sc);
    assert_eq!((k.now, k.vmscan_throttled[VmscanThrottle::Writeback as usize]), (5 * MS, 1));
    // A round with some pages not under writeback: the flag stays as it was; a balanced node clears it.
    let mut sc = ScanControl::new(MemcgId::ROOT, 32, false, true);
    (sc.round_writeback, sc.round_taken) = (16, 32);
    k.nodes[0].pgdat_writeback = false;
    k.shrink_node_throttle(&sc);
    assert!(!k.nodes[0].pgdat_writeback);
    k.nodes[0].pgdat_writeback = true;
    k.clear_pgdat_congested(0);
    assert!(!k.nodes[0].pgdat_writeback);
}

/// 6.1 mm/vmscan.c `too_many_isolated()` for a reclaim entered inside readahead's
/// `memalloc_nofs_save()` (mm/readahead.c `page_cache_ra_unbounded()` and
/// `page_cache_ra_order()`, 5.8+): `try_to_free_pages()` / `try_to_free_mem_cgroup_pages()`
/// take `current_gfp_context(gfp_mask)`, which has no `__GFP_FS`, so the inactive count is
/// not shifted by 3 (`if ((sc->gfp_mask & (__GFP_IO | __GFP_FS)) == (__GFP_IO | __GFP_FS))
/// inactive >>= 3;`). 200 inactive file pages, 32 isolated by another context: too many for
/// a `GFP_HIGHUSER_MOVABLE` reclaim (32 > 25), not for a NOFS one (32 <= 200). Readahead
/// restores the flag when it returns; 5.0 readahead never sets it.
#[test]
fn too_many_isolated_6_1_counts_the_whole_inactive_list_under_readahead_memalloc_nofs() {
    for (profile, nofs) in [("linux-6.1", true), ("linux-5.0", false)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "ra-nofs"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        read_pages(k, f, 0, 200, MemcgId::ROOT);
        k.lru_add_drain();
        assert_eq!(k.profile.readahead_memalloc_nofs, nofs, "{profile}");
        // A readahead window: the flag is the task's only inside it.
        k.do_page_cache_ra(f, 200, 8, 0, MemcgId::ROOT);
        assert!(!k.memalloc_nofs, "{profile}: memalloc_nofs_restore()");
        k.lru_add_drain();
        let now = k.now;
        k.nodes[0].isolated.record(true, now, now + 1_000_000_000, 32, false);
        let gfp_kernel = k.direct_scan_control(MemcgId::ROOT, 32, false);
        assert!(gfp_kernel.gfp_io_fs);
        assert!(k.too_many_isolated(0, true, &gfp_kernel), "{profile}: 32 > 208 >> 3");
        k.memalloc_nofs = true;
        for cgroup_reclaim in [false, true] {
            let sc = k.direct_scan_control(MemcgId::ROOT, 32, cgroup_reclaim);
            assert!(!sc.gfp_io_fs, "current_gfp_context() drops __GFP_FS");
            assert!(!k.too_many_isolated(0, true, &sc), "{profile}: 32 <= 208, the whole list");
        }
    }
}

/// 6.1 mm/vmscan.c `too_many_isolated()` reads `node_page_state(pgdat, NR_ISOLATED_FILE)`:
/// every reclaimer's batch between `isolate_lru_folios()` and `move_folios_to_lru()`, however
/// many batches each reclaimer ran since. 32 readers in direct reclaim at once, each quantum
/// (one `read()` of 128 KiB whose readahead allocations reclaim) 24 batches of 32 file pages
/// (qemu61-throttle-isolated's engine readers average 7.5: 1.1 reclaims a `read()`, 6.7
/// `shrink_inactive_list()` calls a reclaim),
/// reader `i`'s batch `j` isolated from `1000 j + i` for 500 ns, the quanta recorded one after
/// the other (the engine runs a task's whole syscall): a 33rd reclaimer whose clock is at
/// 12,100 ns finds all 32 readers mid-batch, 1,024 pages, more than a NOFS reclaim's whole
/// inactive list of 600 pages (qemu61-throttle-isolated's lists are 450-490 pages), and
/// sleeps (`reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED)`). With the ledger's former 32
/// slots it saw the last reader's batches only (32 pages).
#[test]
fn too_many_isolated_6_1_counts_every_reclaimers_batch_across_whole_quanta() {
    use crate::mmzone::IsolatedLedger;
    let mut l = IsolatedLedger::default();
    for i in 0..32u64 {
        for j in 0..24u64 {
            let start = 1000 * j + i;
            l.record(true, start, start + 500, 32, false);
        }
    }
    assert_eq!(l.isolated_at(true, 12_100), 32 * 32, "every reader's batch 12");
    assert_eq!(l.isolated_at(true, 12_700), 0, "between batches");
    assert!(crate::vmscan::too_many_isolated_sizes(600, l.isolated_at(true, 12_100), false));
    // Through the kernel: a direct reclaim entered inside readahead's memalloc_nofs_save().
    let mut k = Kernel::new(crate::profile::profile("linux-6.1").unwrap(), crate::profile::Policies::default(),
                            crate::memcontrol::CgroupVersion::V2, 1 << 15, 0);
    k.nodes[0].isolated = l;
    k.now = 12_100;
    k.memalloc_nofs = true;
    let sc = k.direct_scan_control(MemcgId::ROOT, 32, false);
    assert!(!sc.gfp_io_fs);
    assert!(k.too_many_isolated(0, true, &sc), "1024 isolated > an empty inactive list");
    k.now = 12_700;
    assert!(!k.too_many_isolated(0, true, &sc));
}

/// A 256M machine on `profile` (`lru_gen` on or off) with a memcg `a` holding 1,000 pages
/// of `/w` and a memcg `b` reading `/big` until kswapd is woken on a node below its high
/// watermark; then every zone's high watermark is raised by 1,500 pages, so that kswapd's
/// `balance_pgdat()` needs many rounds to balance the node. Returns the simulation, `a`, and
/// `a`'s pages at that point.
fn kswapd_below_high(profile: &str, lru_gen: bool) -> (Simulation, MemcgId, u64) {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "kswapd-priority"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v2"
lru_gen = {lru_gen}
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "4M"
[files."/big"]
size = "512M"
[cgroups.a]
[cgroups.b]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (a, b, w, big) = (memcg(&s, "a"), memcg(&s, "b"), inode(&s, "/w"), inode(&s, "/big"));
    let k = &mut s.kernel;
    read_pages(k, w, 0, 1000, a);
    let mut i = 0;
    while !(k.nodes[0].kswapd_active && !k.node_balanced(0)) {
        read_pages(k, big, i, 1, b);
        i += 1;
        assert!(i < 131_072, "the file filled memory without waking kswapd");
    }
    for zi in 0..k.nodes[0].zones.len() {
        let z = k.nodes[0].zones[zi];
        k.zones[z].wmark_high += 1500;
    }
    let pages = k.memcgs.get(a).counter.usage;
    (s, a, pages)
}

/// mm/vmscan.c 6.1 `balance_pgdat()` → `kswapd_shrink_node()`: `sc.priority` is set to
/// `DEF_PRIORITY` once per `balance_pgdat()` and kept across its `shrink_node()` rounds,
/// lowered after each round that scanned fewer pages than `kswapd_shrink_node()`'s goal (the
/// zones' high watermarks); each memcg's lists are scanned by `size >> priority`. A memcg of
/// 1,000 pages is scanned nothing at priorities 12-10 (1,000 >> 10 = 0) and is reclaimed from
/// once kswapd's rounds reach priority 9, both with the two lists (`get_scan_count()`) and with
/// lru_gen (`get_nr_to_scan()`: `total >> priority`, then a `MIN_LRU_BATCH` eviction). The
/// engine's kswapd used to reclaim in 128-page rounds that each started again at
/// `DEF_PRIORITY`, which the big memcg met at priority 12 or 11: the small memcg kept every
/// page however far the node was below its watermark.
#[test]
fn balance_pgdat_6_1_keeps_its_priority_across_kswapd_shrink_node_rounds() {
    use crate::vmscan::DEF_PRIORITY;
    for lru_gen in [false, true] {
        let (mut s, a, before) = kswapd_below_high("linux-6.1", lru_gen);
        assert!(before >= 1000, "a holds its pages: {before}");
        let k = &mut s.kernel;
        let mut lowest = DEF_PRIORITY;
        let mut rounds = 0;
        let mut a_scanned_at = None;
        while k.nodes[0].kswapd_active && !k.node_balanced(0) {
            let p = if k.nodes[0].kswapd_priority == 0 { DEF_PRIORITY } else { k.nodes[0].kswapd_priority };
            lowest = lowest.min(p);
            let a_before = k.memcgs.get(a).counter.usage;
            k.now = k.nodes[0].kswapd_clock + 1;
            k.kswapd_catch_up();
            rounds += 1;
            if a_scanned_at.is_none() && k.memcgs.get(a).counter.usage < a_before {
                a_scanned_at = Some(p);
            }
            assert!(rounds < 10_000, "kswapd balances the node");
        }
        assert!(rounds >= 4, "lru_gen {lru_gen}: several rounds ({rounds})");
        assert!(lowest <= DEF_PRIORITY - 3, "lru_gen {lru_gen}: the rounds went down to priority {lowest}");
        let after = k.memcgs.get(a).counter.usage;
        assert!(after < before, "lru_gen {lru_gen}: kswapd reclaimed from the small memcg ({before} -> {after})");
        let p = a_scanned_at.unwrap();
        assert!(p <= DEF_PRIORITY - 3, "lru_gen {lru_gen}: the small memcg was first scanned at priority {p}, where 1,000 >> p > 0");
    }
}

/// mm/vmscan.c `balance_pgdat()` (6.1; the flat loop since 3.11, b8e83b942a16; the count
/// since 4.12, c73322d098e4): after each round "if (kswapd_shrink_node(pgdat, &sc))
/// raise_priority = false" (it scanned at least its goal) and "if (raise_priority ||
/// !nr_reclaimed) sc.priority--"; the loop ends below priority 1, and a `balance_pgdat()` that
/// reclaimed nothing counts `kswapd_failures` (4.12+ only) and the next starts at
/// `DEF_PRIORITY`.
#[test]
fn kswapd_shrink_node_6_1_raises_the_priority_only_when_the_round_fell_short() {
    for (profile, counts) in [("linux-6.1", true), ("linux-4.4", false)] {
        let (mut s, _, _) = kswapd_below_high(profile, false);
        let k = &mut s.kernel;
        let goal = k.kswapd_nr_to_reclaim(0);
        assert_eq!(goal, k.nodes[0].zones.iter().map(|&z| k.zones[z].wmark_high.max(32)).sum::<u64>());
        k.nodes[0].kswapd_priority = 9;
        k.nodes[0].kswapd_reclaimed = 0;
        assert!(!k.kswapd_round_end(0, 9, goal, 10));
        assert_eq!(k.nodes[0].kswapd_priority, 9, "{profile}: scanned its goal and reclaimed: the priority stays");
        assert!(!k.kswapd_round_end(0, 9, goal - 1, 10));
        assert_eq!(k.nodes[0].kswapd_priority, 8, "{profile}: scanned less than its goal: raised");
        assert!(!k.kswapd_round_end(0, 8, goal, 0));
        assert_eq!(k.nodes[0].kswapd_priority, 7, "{profile}: reclaimed nothing: raised");
        assert_eq!(k.nodes[0].kswapd_reclaimed, 20);
        // The last round of a balance_pgdat() that reclaimed something: no failure.
        let failures = k.nodes[0].kswapd_failures;
        assert!(!k.kswapd_round_end(0, 1, 0, 0));
        assert_eq!(k.nodes[0].kswapd_priority, 0, "{profile}: the loop ran out: the next round starts a balance_pgdat()");
        assert_eq!(k.nodes[0].kswapd_failures, failures);
        // One that reclaimed nothing.
        k.nodes[0].kswapd_priority = 1;
        assert!(k.kswapd_round_end(0, 1, 0, 0), "{profile}: a balance_pgdat() without a page");
        assert_eq!(k.nodes[0].kswapd_failures, failures + counts as u32, "{profile}: kswapd_failures from 4.12");
    }
}

/// mm/vmscan.c 6.12 limit reclaim of a parent P whose child A holds 64 MiB all active and whose
/// child B holds 192 MiB inactive (qemu612-lrugen-parent-stream's P's limit, parent22), with the
/// rstat copy of the last periodic flush showing A's active above P's inactive
/// (`prepare_scan_control()` -> `inactive_is_low()`: `sc->may_deactivate |= DEACTIVATE_FILE`):
/// each `try_to_free_mem_cgroup_pages(P, 1)` (`nr_to_reclaim` = `SWAP_CLUSTER_MAX`) walks P, A,
/// B at `DEF_PRIORITY` 12, where `get_scan_count()` gives A's active list `size >> 12` and B's
/// inactive list 12 pages, short of 32, then at priority 11, where B's 23 more reach it
/// (`shrink_node_memcgs()`'s partial walk stops at B): A loses `a >> 12` then `a >> 11` pages
/// to `shrink_active_list()` per call (unmapped file folios: `folio_referenced()` is 0).
/// The Debian 6.12 guest's trace (lab/measurements/memcg-stats-flush/traces/boot-5.trace.gz,
/// `mm_vmscan_lru_shrink_active`) has the same sequence, priority 12 then 11 per call: 4, 7, 3,
/// 7, 3, 7, ...; its 454, 667 and 1,011 calls deactivated 4,249, 5,740 and 7,862 pages
/// (boots 1, 2, 5), this recurrence's figures (deact_calls.py there).
#[test]
fn limit_reclaim_of_a_parent_deactivates_a_childs_active_list_at_priorities_12_and_11_6_12() {
    // (the periodic flush's period: 504 jiffies, the wheel's level-1 bucket of FLUSH_TIME)
    const FLUSH_TIME: u64 = 504 * crate::timer::NSEC_PER_JIFFY;
    let mut s = sim(r#"
[scenario]
name = "parent-deactivate"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.12"
cgroup = "v2"
[devices.sda]
read_bw = "2G"
[files."/w"]
size = "64M"
[files."/s"]
size = "192M"
[cgroups.P]
[cgroups."P/A"]
[cgroups."P/B"]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (p, a, b, w, f) = (memcg(&s, "P"), memcg(&s, "P/A"), memcg(&s, "P/B"), inode(&s, "/w"), inode(&s, "/s"));
    let k = &mut s.kernel;
    assert!(!k.profile.lru_gen);
    // A reads its 64 MiB twice (all active), the flush at FLUSH_TIME copies that, then B reads
    // 192 MiB once (inactive), before the next flush.
    read_pages(k, w, 0, 16384, a);
    read_pages(k, w, 0, 16384, a);
    k.lru_add_drain();
    assert!(k.now < FLUSH_TIME);
    k.advance_clock(FLUSH_TIME);
    read_pages(k, f, 0, 49152, b);
    k.lru_add_drain();
    assert!(k.now < 2 * FLUSH_TIME, "B's read ends before the next flush: {}", k.now);
    assert_eq!(lru_size(k, a, LruList::ActiveFile), 16384);
    assert_eq!(lru_size(k, b, LruList::InactiveFile), 49152);
    let vp = k.lruvec_idx(p, 0);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 16384);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::InactiveFile), 0);
    // The recurrence: per call a >> 12, then (a - a >> 12) >> 11.
    let mut act = 16384u64;
    let mut want = Vec::new();
    for _ in 0..100 {
        let x = act >> 12;
        act -= x;
        let y = act >> 11;
        act -= y;
        want.push(x + y);
    }
    assert_eq!(&want[..3], &[11, 10, 10], "the trace's 4 + 7, then 3 + 7");
    let mut got = Vec::new();
    for _ in 0..100 {
        let before = lru_size(k, a, LruList::ActiveFile);
        let reclaimed = k.try_to_free_mem_cgroup_pages(p, 1);
        assert!((32..=48).contains(&reclaimed), "priority 11 reaches SWAP_CLUSTER_MAX: {reclaimed}");
        got.push(before - lru_size(k, a, LruList::ActiveFile));
    }
    assert_invariants(k);
    assert!(k.now < 2 * FLUSH_TIME, "all 100 calls read the same copy");
    assert_eq!(got, want);
    assert_eq!(k.memcgs.get(a).events[MemcgEvent::Pgdeactivate as usize], want.iter().sum::<u64>());
}

/// mm/memcontrol.c (6.8+, 6.18 read) `mem_cgroup_flush_stats(memcg)` ->
/// `__mem_cgroup_flush_stats()` -> `css_rstat_flush(&memcg->css)`: a flush of one memcg's
/// subtree, as a read of its memory.stat makes (v1 `memcg1_stat_format()`, v2
/// `memory_stat_format()`), sets the rstat copy 6.12+'s reclaim reads (`inactive_is_low()`'s
/// `lruvec_page_state()`) to the counters for that memcg and those below it; its ancestors keep
/// the copy the last periodic flush left. A later change is seen only at the next flush. On 6.1
/// (no copy: reclaim flushes and reads exact counters) it changes nothing.
#[test]
fn mem_cgroup_flush_stats_6_18_sets_the_copy_of_the_subtree_only() {
    let scn = |profile: &str| {
        sim(&format!(
            r#"
[scenario]
name = "rstat"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "4M"
[files."/s"]
size = "8M"
[cgroups.P]
[cgroups."P/A"]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ))
    };
    let mut s = scn("linux-6.18");
    let (p, a, w, f) = (memcg(&s, "P"), memcg(&s, "P/A"), inode(&s, "/w"), inode(&s, "/s"));
    let k = &mut s.kernel;
    let (vp, va) = (k.lruvec_idx(p, 0), k.lruvec_idx(a, 0));
    read_pages(k, w, 0, 1024, a);
    read_pages(k, w, 0, 1024, a);
    k.lru_add_drain();
    assert!(k.now < k.stats_flush_next, "no periodic flush yet");
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::ActiveFile), 0, "the boot's copy");
    // A's memory.stat read: A's copy is its counters, P's stays the periodic flush's.
    k.mem_cgroup_flush_stats(a);
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::ActiveFile), 1024);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 0, "the ancestor keeps its copy");
    // P's read flushes its subtree: P's copy too.
    k.mem_cgroup_flush_stats(p);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::ActiveFile), 1024);
    // A streams 8 MiB: the copies stay the flush's until the next one.
    read_pages(k, f, 0, 2048, a);
    k.lru_add_drain();
    assert_eq!(k.lru_stats.subtree_size(va, LruList::InactiveFile), 2048);
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::InactiveFile), 0);
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::ActiveFile), 1024);
    k.mem_cgroup_flush_stats(a);
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::InactiveFile), 2048);
    assert_eq!(k.lru_stats.flushed_subtree_size(vp, LruList::InactiveFile), 0);
    // 6.1: exact before and after.
    let mut s = scn("linux-6.1");
    let (a, w) = (memcg(&s, "P/A"), inode(&s, "/w"));
    let k = &mut s.kernel;
    let va = k.lruvec_idx(a, 0);
    read_pages(k, w, 0, 1024, a);
    read_pages(k, w, 0, 1024, a);
    k.lru_add_drain();
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::ActiveFile), 1024);
    k.mem_cgroup_flush_stats(a);
    assert_eq!(k.lru_stats.flushed_subtree_size(va, LruList::ActiveFile), 1024);
}

/// A real-kernel runner reads the step's memcg's memory.stat at each step's start and end
/// (real.py `Snap`, the QEMU guest's `SNAP memory.stat`), and that read flushes its stats
/// (`mem_cgroup_flush_stats()`, 6.8+). 6.18 host-tmpfs-tight-always (tmpfs56, traced with
/// memcg:memcg_flush_stats and vmscan:mm_vmscan_lru_shrink_active): the write step's closing read
/// flushed the memcg with its PMD folios on the active list (activated by their second 1M write),
/// and the read step's limit reclaim then found `inactive_is_low()` in that copy and deactivated one
/// PMD folio a `shrink_lruvec()` (`shrink_active_list(SWAP_CLUSTER_MAX)`, a folio's 512 pages
/// filling it), all 31 (15,872 pages) within 0.5 s, before the next periodic flush. The same
/// scenario without a runner (no `[validation] on`): nothing flushed the copy since boot, the
/// reclaim sees no active pages and deactivates none.
#[test]
fn runner_memory_stat_read_flushes_and_reclaim_deactivates_6_18() {
    let text = r#"
[scenario]
name = "flush"
[machine]
ram = "1G"
cpus = 2
swap = "64M"
[kernel]
profile = "linux-6.18"
cgroup = "v1"
[devices.sda]
read_bw = "500M"
write_bw = "400M"
[mounts."/mnt/t"]
fs = "tmpfs"
huge = "always"
[files."/mnt/t/f"]
size = "0"
[cgroups.A]
"memory.limit_in_bytes" = "16M"
[tasks.t]
cgroup = "A"
ops = [
  { op = "write", file = "/mnt/t/f", length = "32M", bufsize = "1M", create = true, step = "write" },
  { op = "read", file = "/mnt/t/f", step = "read" },
]
"#;
    let plain = sim(text).run(&mut |_, _| true).unwrap();
    let hosted = sim(&format!("{text}[validation]\non = \"host\"\n")).run(&mut |_, _| true).unwrap();
    for r in [&plain, &hosted] {
        let pmd = step_metric(r, "write", "vmstat.thp_file_alloc");
        assert!(pmd >= 4.0, "PMD folios in the write: {pmd}");
        assert_eq!(step_metric(r, "write", "vmstat.pgactivate"), pmd * 512.0, "each activated by its second 1M write");
        assert_eq!(step_metric(r, "write", "vmstat.pgdeactivate"), 0.0, "the copy reclaim reads in the write: the boot's");
    }
    assert_eq!(step_metric(&plain, "read", "vmstat.pgdeactivate"), 0.0);
    let pmd = step_metric(&hosted, "write", "vmstat.thp_file_alloc");
    assert_eq!(step_metric(&hosted, "read", "vmstat.pgdeactivate"), pmd * 512.0, "every PMD folio deactivated");
}
