//! Charging (mm/memcontrol.c, mm/page_counter.c): who pays for a page-cache page, how the
//! page counters and memory.stat follow charges and uncharges, and what a charge that hits a
//! limit records.

use super::*;
use crate::memcontrol::MemcgEvent;

/// Two tasks in sibling cgroups read the same 1 MiB file, `a` first.
const SHARED_READ: &str = r#"
[scenario]
name = "shared-read"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.6"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[cgroups.a]
[cgroups.b]
[tasks.reader_a]
cgroup = "a"
ops = [{ op = "read", file = "/f", bufsize = "128K" }]
[tasks.reader_b]
cgroup = "b"
start = "1s"
ops = [{ op = "read", file = "/f", bufsize = "128K" }]
"#;

/// `filemap_add_folio()` charges a new page-cache page to the memcg of the task that inserts
/// it (`mem_cgroup_charge(folio, NULL, gfp)` charges `current`'s memcg), and a later lookup by
/// a task in another memcg finds the page without charging anyone: the page stays with the
/// first memcg until it is freed.
#[test]
fn page_cache_stays_charged_to_the_memcg_that_inserted_it() {
    let mut s = sim(SHARED_READ);
    let (a, b, f) = (memcg(&s, "a"), memcg(&s, "b"), inode(&s, "/f"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.mappings[f.idx()].nrpages, 256);
    for i in 0..256 {
        assert_eq!(k.pages[page_at(k, f, i)].memcg, a, "page {i}");
    }
    assert_eq!(page_usage(k, a), 256);
    assert_eq!(k.memcgs.file_pages(a), 256);
    assert_eq!(
        page_usage(k, b),
        0,
        "b's reads found the pages cached"
    );
    assert_eq!(k.memcgs.file_pages(b), 0);
    assert_eq!(k.memcgs.events(b, MemcgEvent::Pgpgin), 0);
    assert_eq!(
        k.devices[0].read_bytes,
        1 << 20,
        "the file was read from disk once"
    );
    assert_invariants(k);
}

/// memory.current and memory.stat `file` are the same charge seen twice for a page-cache
/// only workload, through charges and limit-reclaim uncharges alike; and v1's `pgpgin` and
/// `pgpgout` count every charge and uncharge, so their difference is the usage.
#[test]
fn usage_and_file_stat_move_together() {
    let mut s = sim(r#"
[scenario]
name = "usage-file"
[machine]
ram = "1G"
[kernel]
profile = "linux-5.0"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "4M"
[cgroups.ct]
"memory.limit_in_bytes" = "1M"
[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/f", bufsize = "64K" }]
"#);
    let ct = memcg(&s, "ct");
    let steps = run_with(&mut s, |s| {
        let m = s.kernel.memcgs.get(ct);
        assert_eq!((m.counter.usage - m.kmem_pages), m.nr_file);
        assert_eq!((m.counter.usage - m.kmem_pages), s.kernel.memcgs.file_pages(ct));
        let pgpgin = s.kernel.memcgs.events(ct, MemcgEvent::Pgpgin);
        let pgpgout = s.kernel.memcgs.events(ct, MemcgEvent::Pgpgout);
        assert_eq!(pgpgin - pgpgout, (m.counter.usage - m.kmem_pages));
    });
    assert_eq!(steps, 64);
    let k = &s.kernel;
    assert_eq!(
        k.memcgs.get(ct).counter.watermark,
        256,
        "usage climbed to the limit"
    );
    assert!(
        k.memcgs.events(ct, MemcgEvent::Pgpgout) > 0,
        "reclaim uncharged pages"
    );
    assert_invariants(k);
}

/// Evicting a page (`__remove_mapping()` -> `mem_cgroup_uncharge()`) drops its charge from
/// the page counter and memory.stat `file`, counts a v1 `pgpgout`, and frees the frame.
#[test]
fn eviction_uncharges_the_page() {
    let mut s = sim(r#"
[scenario]
name = "uncharge"
[machine]
ram = "1G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "64K"
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 16, ct);
    assert_eq!(page_usage(k, ct), 16);
    let free = k.nr_free_pages();
    isolate_and_evict(k, f, 3);
    let m = k.memcgs.get(ct);
    assert_eq!((m.counter.usage - m.kmem_pages), 15);
    assert_eq!(m.nr_file, 15);
    assert_eq!(m.events[MemcgEvent::Pgpgout as usize], 1);
    assert_eq!(
        page_usage(k, MemcgId::ROOT),
        15,
        "the ancestors are uncharged too"
    );
    assert_eq!(k.nr_free_pages(), free + 1);
    assert_eq!(k.mappings[f.idx()].nrpages, 15);
    assert_invariants(k);
}

/// `page_counter_charge()` charges the memcg and every ancestor; memory.stat `file` of a
/// parent is hierarchical while the parent holds no page locally; the peak (watermark)
/// follows usage up and stays there.
#[test]
fn charges_propagate_to_every_ancestor() {
    let mut s = sim(r#"
[scenario]
name = "hierarchy"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[cgroups.p]
[cgroups."p/c"]
[tasks.cat]
cgroup = "p/c"
ops = [{ op = "read", file = "/f" }]
"#);
    let (p, c, f) = (memcg(&s, "p"), memcg(&s, "p/c"), inode(&s, "/f"));
    run(&mut s);
    let k = &mut s.kernel;
    for m in [c, p, MemcgId::ROOT] {
        assert_eq!(
            page_usage(k, m),
            256,
            "{}",
            k.memcgs.get(m).path
        );
    }
    assert_eq!(k.memcgs.get(p).nr_file, 0, "p holds no page itself");
    assert_eq!(
        k.memcgs.file_pages(p),
        256,
        "memory.stat file of p counts its child's pages"
    );
    isolate_and_evict(k, f, 0);
    assert_eq!(page_usage(k, c), 255);
    assert_eq!(page_usage(k, p), 255);
    assert_eq!(
        k.memcgs.get(p).counter.watermark - k.memcgs.get(c).kmem_pages,
        256,
        "memory.peak keeps the high point"
    );
    assert_invariants(k);
}

/// `page_counter_try_charge()` increments `failcnt` of the counter that refused the charge,
/// and `try_charge_memcg()` records a memory.events `max` against that memcg before it
/// reclaims. No event is counted while charges fit; `failcnt` counts only the batch a charge
/// tries first when the stock is empty (see `failcnt_counts_the_failed_batch_before_the_charge`).
#[test]
fn failcnt_counts_charges_that_hit_the_limit() {
    let mut s = sim(r#"
[scenario]
name = "failcnt"
[machine]
ram = "1G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[cgroups.ct]
"memory.limit_in_bytes" = "260K"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 64, ct);
    assert_eq!(page_usage(k, ct), 64);
    assert_eq!(k.memcgs.get(ct).counter.usage, 65, "exactly at the limit: 64 pages and a slab page for their tree node");
    assert_eq!(
        k.memcgs.get(ct).counter.failcnt,
        1,
        "the first charge took a batch of 64 (63 in the stock); the 65th found the stock empty and its batch refused"
    );
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Max), 0);
    read_pages(k, f, 64, 1, ct);
    let m = k.memcgs.get(ct);
    assert!(m.counter.failcnt >= 1);
    assert!(m.counter.failcnt >= k.memcgs.events(ct, MemcgEvent::Max));
    assert!(k.memcgs.events(ct, MemcgEvent::Max) >= 1);
    assert!((m.counter.usage - m.kmem_pages) <= 64);
    assert!(
        k.memcgs.events(ct, MemcgEvent::Pgsteal) >= 1,
        "the charge reclaimed room"
    );
    let failcnt = m.counter.failcnt;
    // A page that is already cached charges nothing and cannot fail.
    read_pages(k, f, 64, 1, ct);
    assert_eq!(k.memcgs.get(ct).counter.failcnt, failcnt);
    assert_invariants(k);
}

/// When a child without a limit charges past its parent's limit, the parent's counter is the
/// one that fails: its failcnt and memory.events `max` count, the child's do not.
#[test]
fn failcnt_is_counted_on_the_ancestor_whose_limit_was_hit() {
    let mut s = sim(r#"
[scenario]
name = "failcnt-parent"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "4M"
[cgroups.p]
"memory.max" = "1M"
[cgroups."p/c"]
[tasks.cat]
cgroup = "p/c"
ops = [{ op = "read", file = "/f" }]
"#);
    let (p, c) = (memcg(&s, "p"), memcg(&s, "p/c"));
    run(&mut s);
    let k = &s.kernel;
    assert!(k.memcgs.get(p).counter.failcnt > 0);
    assert_eq!(k.memcgs.get(c).counter.failcnt, 0);
    assert!(k.memcgs.get(p).events[MemcgEvent::Max as usize] > 0);
    assert_eq!(k.memcgs.get(c).events[MemcgEvent::Max as usize], 0);
    assert!(page_usage(k, p) <= 256);
    assert_invariants(k);
}

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18) charges a whole `MEMCG_CHARGE_BATCH`
/// first when the stock cannot serve the charge, and falls back to the charge's own pages
/// ("batch = nr_pages; goto retry;") when that fails; `page_counter_try_charge()` counts a
/// `failcnt` at every refusal (3.13: `mem_cgroup_do_charge()`'s `CHARGE_RETRY` after
/// `res_counter_charge()` of `CHARGE_BATCH`, `res_counter_charge_locked()`'s `failcnt++`).
/// Within a batch of the limit each one-page charge fails once as a batch and succeeds
/// alone, leaving no stock; at the limit a charge counts the batch's failure and one per
/// reclaim round. v2's memory.events `max` counts only the rounds.
#[test]
fn failcnt_counts_the_failed_batch_before_the_charge() {
    for (profile, batch) in [("linux-6.1", 64u64), ("linux-6.18", 64), ("linux-3.13", 32)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        assert_eq!(k.profile.memcg_charge_batch, batch);
        let limit = k.memcgs.get(ct).counter.max;
        // Free room for 10 pages, less than a batch: the stock cannot be refilled.
        k.memcgs.memcgs[ct.idx()].counter.max = limit + 10;
        { let cpu = k.stock_cpu(); let before = k.memcg_stock[cpu]; k.memcg_stock[cpu] = Default::default(); k.stock_changed(cpu, &before); }
        let (fail0, max0) = (k.memcgs.get(ct).counter.failcnt, k.memcgs.events(ct, MemcgEvent::Max));
        for i in 0..10 {
            assert!(k.try_charge_memcg(ct, 1, true).is_ok(), "{profile}: page {i} fits");
            assert_eq!(k.this_cpu_stock().pages_of(ct, k.profile.memcg_stock_slots), 0, "{profile}: no batch was taken for the stock");
        }
        assert_eq!(k.memcgs.get(ct).counter.failcnt - fail0, 10, "{profile}: each charge's batch failed once");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max), max0, "{profile}: no charge met the limit");
        assert!(k.try_charge_memcg(ct, 1, false).is_err());
        let rounds = k.memcgs.events(ct, MemcgEvent::Max) - max0;
        assert!(rounds >= 1);
        assert_eq!(k.memcgs.get(ct).counter.failcnt - fail0, 10 + 1 + rounds, "{profile}: the batch, then one a round");
        // With a batch of room the batch fits: no failure, the stock holds the rest.
        let usage = k.memcgs.get(ct).counter.usage;
        k.memcgs.memcgs[ct.idx()].counter.max = usage + batch;
        let fail1 = k.memcgs.get(ct).counter.failcnt;
        assert!(k.try_charge_memcg(ct, 1, true).is_ok());
        assert_eq!((k.this_cpu_stock().cached[0], k.this_cpu_stock().nr_pages[0]), (ct, batch - 1), "{profile}");
        assert_eq!(k.memcgs.get(ct).counter.failcnt, fail1, "{profile}");
        // The charges made here belong to no page.
        k.memcgs.counter_uncharge(ct, 11);
        { let cpu = k.stock_cpu(); let before = k.memcg_stock[cpu]; k.memcg_stock[cpu] = Default::default(); k.stock_changed(cpu, &before); }
        assert_invariants(k);
    }
}

/// A task in a v1 memcg maps 1 MiB of anonymous memory, writes it and unmaps it, twice.
const ANON_ROUNDS: &str = r#"
[scenario]
name = "anon-rounds"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v1"
[cgroups.a]
[tasks.t]
cgroup = "a"
ops = [
  { op = "mmap", name = "m", size = "1M" }, { op = "touch", name = "m" }, { op = "munmap", name = "m" },
  { op = "mmap", name = "m", size = "1M" }, { op = "touch", name = "m" }, { op = "munmap", name = "m" },
]
"#;

/// v1's memory.stat `pgpgin`/`pgpgout` count every folio charged and uncharged, anonymous ones
/// too: `charge_memcg()` calls `mem_cgroup_charge_statistics()` (one `PGPGIN` per folio, "pagein
/// of a big page is an event") and `uncharge_folio()` adds one to `ug->pgpgout`, which
/// `uncharge_batch()` counts (Linux 6.1 mm/memcontrol.c). The engine counted only page-cache
/// pages, so an mmap probe's rounds were missing from both.
#[test]
fn anonymous_charges_and_unmaps_count_pgpgin_and_pgpgout_per_folio() {
    let mut s = sim(ANON_ROUNDS);
    let a = memcg(&s, "a");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.memcgs.events(a, MemcgEvent::Pgpgin), 512, "two rounds of 256 base pages charged");
    assert_eq!(k.memcgs.events(a, MemcgEvent::Pgpgout), 512, "and uncharged at munmap");
    assert_eq!(page_usage(k, a), 0);
    assert_invariants(k);
}

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18): a charge whose reclaim left the memcg
/// short runs `drain_all_stock()` and goes round once more (`drained`), reclaiming again,
/// before `__GFP_NORETRY` gives up: a failing `__GFP_NORETRY` charge in a memcg full of pages
/// under read reclaims twice (two memory.events `max`, two reclaims' CPU time).
#[test]
fn a_failing_noretry_charge_reclaims_twice_after_draining_the_stock() {
    for profile in ["linux-6.1", "linux-6.18"] {
        let passes = 2;
        let (mut s, ct, _) = super::vmscan::memcg_full_under_read(profile);
        let k = &mut s.kernel;
        let max0 = k.memcgs.events(ct, MemcgEvent::Max);
        let sys0 = k.sys_ns;
        assert!(k.try_charge_memcg(ct, 1, false).is_err(), "{profile}: nothing to reclaim, the charge fails");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, passes, "{profile}");
        let one = {
            let (mut s, ct, _) = super::vmscan::memcg_full_under_read(profile);
            let sys0 = s.kernel.sys_ns;
            s.kernel.try_to_free_mem_cgroup_pages(ct, 1);
            s.kernel.sys_ns - sys0
        };
        assert_eq!(k.sys_ns - sys0, passes * one, "{profile}: each pass costs one reclaim that frees nothing");
        assert_invariants(k);
    }
}

/// A v1 memcg with a 1 MiB limit filled to it with anonymous pages, no swap: nothing in it
/// can be reclaimed.
fn memcg_full_of_anon(profile: &str) -> (Simulation, MemcgId) {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "no-swap-full"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1M"
[files."/f"]
size = "8M"
[cgroups.ct]
"memory.limit_in_bytes" = "1M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(256, ct);
    let mut i = 0;
    while k.memcgs.margin(ct) > 0 {
        k.handle_mm_fault(vma, i).unwrap();
        i += 1;
        if k.memcgs.margin(ct) == 0 {
            // The stock's pages are in the counter (zswap20): drained, they are room for
            // single pages (less than a batch), and the memcg is full with no stock left.
            k.drain_all_stock(ct);
        }
    }
    assert_eq!(k.memcgs.get(ct).counter.stocked, 0);
    (s, ct)
}

/// 3.13's `mem_cgroup_do_charge()` (mm/memcontrol.c, v3.13: "if (gfp_mask & __GFP_NORETRY)
/// return CHARGE_NOMEM;" before `mem_cgroup_reclaim()`): a `__GFP_NORETRY` charge that meets
/// the limit reclaims nothing. `__mem_cgroup_try_charge()` (page cache and anonymous charges
/// pass `oom = true`) charges again while `nr_oom_retries` (`MEM_CGROUP_RECLAIM_RETRIES` = 5)
/// lasts: six failed charges, each counted by `res_counter_charge_locked()`'s `failcnt++`
/// (and the batch's before them), no reclaim, no CPU time. From 3.17 (d485e6b4ed62) it reclaims at least once.
#[test]
fn a_noretry_charge_on_3_13_fails_before_any_reclaim() {
    for (profile, reclaims) in [("linux-3.13", false), ("linux-4.4", true), ("linux-6.1", true)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        let (sys0, fail0, scan0, max0) = (k.sys_ns, k.memcgs.get(ct).counter.failcnt, k.memcgs.events(ct, MemcgEvent::Pgscan), k.memcgs.events(ct, MemcgEvent::Max));
        assert!(matches!(k.try_charge_memcg(ct, 1, false), Err(crate::memcontrol::ChargeError::Oom { .. })), "{profile}");
        let failed = k.memcgs.get(ct).counter.failcnt - fail0;
        let rounds = k.memcgs.events(ct, MemcgEvent::Max) - max0;
        if reclaims {
            assert!(k.sys_ns > sys0, "{profile}: the charge reclaimed before it gave up");
            assert_eq!(rounds, 2, "{profile}: the first round and the drained one");
        } else {
            assert_eq!(k.sys_ns, sys0, "{profile}: no reclaim's CPU time");
            assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgscan), scan0, "{profile}: nothing scanned");
            assert_eq!(rounds, 1 + k.profile.max_reclaim_retries as u64, "{profile}: charged and failed 1 + MEM_CGROUP_RECLAIM_RETRIES times");
        }
        assert_eq!(failed, 1 + rounds, "{profile}: the batch's failed charge first, then one a round");
        assert_invariants(k);
    }
}

/// 3.13's `mem_cgroup_reclaim()` (mm/memcontrol.c, v3.13): a charge that may reclaim makes a
/// second `try_to_free_mem_cgroup_pages()` pass, after `drain_all_stock_async()`, when the
/// first left the margin at 0, and stops there when neither reclaimed anything ("if (loop &&
/// !total) break"); `mem_cgroup_do_charge()` then returns `CHARGE_NOMEM` and
/// `__mem_cgroup_try_charge()` charges again while `nr_oom_retries` lasts. In a memcg with
/// nothing to reclaim: 1 + `MEM_CGROUP_RECLAIM_RETRIES` charges that fail, each followed by
/// two passes, where 6.1's `try_charge_memcg()` makes one pass a round and one `drained`
/// round more.
#[test]
fn mem_cgroup_reclaim_on_3_13_makes_two_passes_a_charge() {
    let one = |profile: &str| {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let sys0 = s.kernel.sys_ns;
        s.kernel.try_to_free_mem_cgroup_pages(ct, 1);
        s.kernel.sys_ns - sys0
    };
    for (profile, rounds, passes_a_round, drained_round) in [("linux-3.13", 6, 2, 0), ("linux-4.4", 6, 1, 1), ("linux-6.1", 17, 1, 1)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        assert_eq!(k.profile.max_reclaim_retries + 1, rounds as u32, "{profile}");
        let (sys0, max0) = (k.sys_ns, k.memcgs.events(ct, MemcgEvent::Max));
        assert!(matches!(k.try_charge_memcg(ct, 1, true), Err(crate::memcontrol::ChargeError::Oom { .. })), "{profile}");
        let one = one(profile);
        assert!(one > 0);
        let passes = rounds * passes_a_round + drained_round;
        assert_eq!(k.sys_ns - sys0, passes * one, "{profile}: {passes} reclaim passes that free nothing");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, rounds + drained_round, "{profile}: one failed charge a round");
        assert_invariants(k);
    }
}

/// Readahead's charge is `__GFP_NORETRY` from 4.8 (`readahead_gfp_mask()`, 8a5c743e308d);
/// before, `read_pages()`/`mpage_readpages()` add its pages with `add_to_page_cache_lru(...,
/// GFP_KERNEL)` (3.13 mm/readahead.c, fs/mpage.c), a charge that reclaims and retries like
/// any other. A 4 MiB readahead into a 2 MiB memcg on a 1 MB/s disk: on 6.1 a charge that
/// meets the memcg full of pages still under read fails after two passes (the first, the
/// `drained` one); on 4.4 it goes round `try_charge()`'s loop `MEM_CGROUP_RECLAIM_RETRIES`
/// times more, at once (the loop has no sleep), and finds the same locked pages; on 3.13
/// each `mem_cgroup_reclaim()` makes passes while they reclaim (up to
/// `MEM_CGROUP_MAX_RECLAIM_LOOPS`), long enough in CPU time for reads to complete and be
/// reclaimed, so more of the window is charged. Each charge that meets the limit counts its
/// batch's `failcnt` once beside one a pass.
#[test]
fn readahead_charges_reclaim_and_retry_before_4_8() {
    let charged = |profile: &str| {
        let (s, ct, _) = super::vmscan::memcg_full_under_read(profile);
        let k = &s.kernel;
        assert_invariants(k);
        let (max, failcnt) = (k.memcgs.events(ct, MemcgEvent::Max), k.memcgs.get(ct).counter.failcnt);
        (k.memcgs.events(ct, MemcgEvent::Pgpgin), k.memcgs.events(ct, MemcgEvent::Pgsteal), max, failcnt - max)
    };
    let (new, new_steal, new_passes, new_failed) = charged("linux-6.1");
    assert_eq!(new_steal, 0, "6.1: the NORETRY charges found nothing to reclaim");
    assert!(new <= 512, "6.1: {new} pages charged, no more than fit in 2 MiB");
    assert_eq!(new_passes, 2 * new_failed, "6.1: two passes a failed charge");
    let (mid, mid_steal, mid_passes, mid_failed) = charged("linux-4.4");
    assert_eq!(mid_steal, 0, "4.4: the retries came at once, the reads not completed");
    assert!(mid >= new && mid <= 512, "4.4: {mid} pages charged");
    let retries = crate::profile::profile("linux-4.4").unwrap().max_reclaim_retries as u64;
    assert_eq!(mid_passes, (2 + retries) * mid_failed, "4.4: the first pass, the drained pass and each retry");
    let (old, old_steal, _, _) = charged("linux-3.13");
    assert!(old_steal > 0, "3.13: the GFP_KERNEL charges reclaimed pages whose read completed");
    assert!(old > 512 && old > new, "3.13: {old} pages charged, 6.1 {new}");
}

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18; 3.13's `__mem_cgroup_try_charge()`
/// and its `nr_oom_retries`): `nr_retries` and `drained` are locals of one call, and the loop
/// retries without sleeping. A failing charge in a memcg full of anonymous pages without swap
/// reclaims on the first pass, the `drained` pass and each retry (memory.events `max`) before
/// it fails (3.13: no drained pass).
#[test]
fn try_charge_memcg_fails_after_its_retries() {
    for profile in ["linux-6.1", "linux-6.18", "linux-3.13"] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        let max0 = k.memcgs.events(ct, MemcgEvent::Max);
        let r = k.try_charge_memcg(ct, 1, true);
        assert!(matches!(r, Err(crate::memcontrol::ChargeError::Oom { .. })), "{profile}: nothing to reclaim without swap");
        let drained_round = (profile != "linux-3.13") as u64;
        let retries = k.profile.max_reclaim_retries as u64;
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, 1 + drained_round + retries, "{profile}: the first pass, the drained pass and each retry");
        assert_invariants(k);
    }
}

/// A task whose sleep inside a charge's reclaim ended its quantum resumes inside the same
/// `try_charge_memcg()` call in the kernel (6.1, 6.18: v1 memcg reclaim that met only dirty
/// pages not yet queued waits for writeback, `reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)`):
/// the engine's restarted charge takes back the loop's `nr_retries` and `drained`
/// ([`crate::sched::ChargeLoop`]) instead of a fresh loop, so every restart finds the state
/// the last one left, never a fuller one, and the charge ends.
#[test]
fn try_charge_memcg_resumed_keeps_its_retries_and_drained() {
    for profile in ["linux-6.1", "linux-6.18"] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "dirty-full"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1M"
write_bw = "1M"
[files."/f"]
size = 0
[cgroups.ct]
"memory.limit_in_bytes" = "1M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ));
        let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
        let k = &mut s.kernel;
        let mut pos = 0;
        while k.memcgs.margin(ct) > 0 {
            assert_eq!(k.generic_perform_write(f, pos, PAGE_SIZE, ct), Ok(PAGE_SIZE));
            pos += PAGE_SIZE;
            if k.memcgs.margin(ct) == 0 {
                // Full with no stock left (its pages are in the counter: zswap20).
                k.drain_all_stock(ct);
            }
        }
        let mut restarts = 0;
        let mut last: Option<crate::sched::ChargeLoop> = None;
        let r = loop {
            // Another task could run at once: a sleep ends the quantum.
            k.resched.horizon = Some(k.now);
            k.resched.restartable_next = true;
            let r = k.try_charge_memcg(ct, 1, true);
            if r != Err(crate::memcontrol::ChargeError::Again) {
                break r;
            }
            let st = k.resched.charge_loop.expect("the loop's state kept with the task");
            if let Some(l) = last {
                assert!(st.retries <= l.retries && (st.drained || !l.drained), "{profile}: {st:?} after {l:?}");
            }
            last = Some(st);
            k.resched.wake = None;
            k.advance_clock(k.now);
            restarts += 1;
            assert!(restarts <= 100, "{profile}: the restarted charge never ends");
        };
        assert!(restarts > 0, "{profile}: the charge's reclaim slept");
        assert!(r.is_ok(), "{profile}: written back, the pages were reclaimed: {r:?}");
        assert_eq!(k.resched.charge_loop, None, "{profile}: the charge is over");
        k.resched = Default::default();
        k.memcgs.counter_uncharge(ct, 1);
        assert_invariants(k);
    }
}

/// The memcg charge of a THP fault (`do_huge_pmd_anonymous_page()`), 512 pages into a v1
/// memcg full of clean page cache, per era: 6.1 charges with the allocation's
/// `GFP_TRANSHUGE_LIGHT` (defrag "madvise", the mapping not madvised), which cannot block:
/// `try_charge_memcg()` fails it at the limit before reclaim and before memory.events `max`
/// ("if (!gfpflags_allow_blocking(gfp_mask)) goto nomem;"). 4.4 charges with
/// `GFP_TRANSHUGE` (defrag "always"): one reclaim of the 512 pages (`nr_pages`) makes room.
/// 3.13 charges with `GFP_KERNEL` and `oom = false` (mm/huge_memory.c,
/// `mem_cgroup_charge_common()`): `mem_cgroup_reclaim()` stops when its `SWAP_CLUSTER_MAX`
/// pass leaves a margin, which is short of 512; a huge page does not retry after progress
/// (`nr_pages <= 1 << PAGE_ALLOC_COSTLY_ORDER`) and `oom = false` ends it at the first
/// `CHARGE_NOMEM`.
#[test]
fn a_thp_charge_per_era() {
    for (profile, ok, reclaims) in [("linux-6.1", false, false), ("linux-4.4", true, true), ("linux-3.13", false, true)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "thp-charge"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "8M"
[cgroups.ct]
"memory.limit_in_bytes" = "4M"
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ));
        let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
        let k = &mut s.kernel;
        read_pages(k, f, 0, 2048, ct);
        assert!(k.memcgs.margin(ct) < 512, "{profile}: the memcg is full");
        let (fail0, max0, steal0, oom0) =
            (k.memcgs.get(ct).counter.failcnt, k.memcgs.events(ct, MemcgEvent::Max), k.memcgs.events(ct, MemcgEvent::Pgsteal), k.memcgs.events(ct, MemcgEvent::OomKill));
        let gfp = k.thp_charge_gfp();
        let r = k.try_charge_memcg_gfp(ct, crate::page_alloc::PAGEBLOCK_NR, gfp);
        assert_eq!(r.is_ok(), ok, "{profile}: {gfp:?} {r:?}");
        let stolen = k.memcgs.events(ct, MemcgEvent::Pgsteal) - steal0;
        assert_eq!(stolen > 0, reclaims, "{profile}: {stolen} pages reclaimed");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::OomKill), oom0, "{profile}: no OOM for a huge page");
        if profile == "linux-6.1" {
            assert_eq!(k.memcgs.events(ct, MemcgEvent::Max), max0, "{profile}: it never reached the max event");
            assert_eq!(k.memcgs.get(ct).counter.failcnt - fail0, 1, "{profile}: the one refused charge");
        }
        if profile == "linux-3.13" {
            assert!(stolen < 512 && stolen >= crate::vmscan::SWAP_CLUSTER_MAX, "{profile}: one SWAP_CLUSTER_MAX pass: {stolen}");
            assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, 1, "{profile}: one round");
        }
        if ok {
            k.memcgs.counter_uncharge(ct, crate::page_alloc::PAGEBLOCK_NR);
            { let cpu = k.stock_cpu(); let before = k.memcg_stock[cpu]; k.memcg_stock[cpu] = Default::default(); k.stock_changed(cpu, &before); }
        }
        assert_invariants(k);
    }
}

/// Two unlimited v1 memcgs `a` and `b` on a two-CPU machine, no task running yet.
fn two_memcgs_two_cpus(profile: &str) -> (Simulation, MemcgId, MemcgId) {
    let s = sim(&format!(
        r#"
[scenario]
name = "two-memcgs-two-cpus"
[machine]
ram = "256M"
cpus = 2
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[cgroups.a]
[cgroups.b]
[tasks.t]
cgroup = "a"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (a, b) = (memcg(&s, "a"), memcg(&s, "b"));
    (s, a, b)
}

/// The charge stock is per CPU (`DEFINE_PER_CPU(struct memcg_stock_pcp, memcg_stock)`,
/// mm/memcontrol.c), not per task: `consume_stock()` and `refill_stock()` use
/// `this_cpu_ptr(&memcg_stock)`, whoever runs there. Before 6.16 it caches one memcg: a
/// charge of `b` on the CPU that caches `a` finds no stock, takes a batch and
/// `refill_stock()` drains `a`'s pages ("reset if necessary"; 6.1, 6.12); 6.16+ (f735eebe55f8f,
/// 6.18 here) keeps up to `NR_MEMCG_STOCK` memcgs per CPU, each in its slot. Another CPU's
/// stock is untouched by either.
#[test]
fn the_charge_stock_is_per_cpu_and_caches_one_memcg_before_6_16() {
    for (profile, slots) in [("linux-6.1", 1), ("linux-6.12", 1), ("linux-6.18", crate::memcontrol::NR_MEMCG_STOCK)] {
        let (mut s, a, b) = two_memcgs_two_cpus(profile);
        let k = &mut s.kernel;
        assert_eq!(k.profile.memcg_stock_slots, slots, "{profile}");
        assert_eq!(k.memcg_stock.len(), 2, "{profile}: one stock per CPU");
        let batch = k.profile.memcg_charge_batch;
        k.pcp_ctx = 0;
        k.try_charge_memcg(a, 1, true).unwrap();
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), batch - 1, "{profile}: a batch, one page used");
        k.try_charge_memcg(b, 1, true).unwrap();
        assert_eq!(k.memcg_stock[0].pages_of(b, slots), batch - 1, "{profile}");
        let a_left = if slots == 1 { 0 } else { batch - 1 };
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), a_left, "{profile}: b's refill on CPU 0");
        // a's next charge on CPU 0: from its slot (6.18), or a batch afresh (6.1).
        k.try_charge_memcg(a, 1, true).unwrap();
        let expect = if slots == 1 { batch - 1 } else { batch - 2 };
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), expect, "{profile}");
        assert_eq!(k.memcg_stock[1], Default::default(), "{profile}: CPU 1 charged nothing");
        // The other CPU takes its own batch.
        k.pcp_ctx = 1;
        k.try_charge_memcg(a, 1, true).unwrap();
        assert_eq!(k.memcg_stock[1].pages_of(a, slots), batch - 1, "{profile}");
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), expect, "{profile}: CPU 0's stock is its own");
        assert_eq!(k.memcgs.get(a).counter.usage, 3, "{profile}: the counters hold the pages used");
        k.memcgs.counter_uncharge(a, 3);
        k.memcgs.counter_uncharge(b, 1);
    }
}

/// 6.16+'s `refill_stock()` takes the first empty slot for a memcg it does not cache and, with
/// all `NR_MEMCG_STOCK` taken, drains a victim slot chosen by `get_random_u32_below()`
/// (6.16-6.18; the engine's seeded stand-in, so the victim is the one the same draw gives). A
/// refill that takes a slot above `MEMCG_CHARGE_BATCH` drains it (4.13+).
#[test]
fn refill_stock_takes_a_free_slot_then_drains_a_random_victim_6_18() {
    use crate::lru_gen::{get_random_u32_below, memcg_lru_rand_seed};
    use crate::memcontrol::{MemcgStock, NR_MEMCG_STOCK};
    let ids: Vec<MemcgId> = (10..10 + NR_MEMCG_STOCK as u32 + 2).map(MemcgId).collect();
    let mut st = MemcgStock::default();
    let mut rand = memcg_lru_rand_seed(0);
    for (i, &m) in ids[..NR_MEMCG_STOCK].iter().enumerate() {
        st.refill(m, 10 + i as u64, NR_MEMCG_STOCK, 64, &mut rand);
        assert_eq!(st.cached[i], m, "slot {i} was free");
    }
    assert_eq!(rand, memcg_lru_rand_seed(0), "free slots draw no random number");
    let mut expect = rand;
    let v = get_random_u32_below(&mut expect, NR_MEMCG_STOCK as u64) as usize;
    st.refill(ids[NR_MEMCG_STOCK], 5, NR_MEMCG_STOCK, 64, &mut rand);
    assert_eq!(rand, expect, "one draw for the victim");
    assert_eq!((st.cached[v], st.nr_pages[v]), (ids[NR_MEMCG_STOCK], 5), "the drawn slot {v} drained and taken");
    assert_eq!(st.pages_of(ids[v], NR_MEMCG_STOCK), 0, "the victim's memcg lost its stock");
    let kept = (0..NR_MEMCG_STOCK).find(|&i| i != v).unwrap();
    assert!(st.consume(ids[kept], 10 + kept as u64, NR_MEMCG_STOCK, 64), "slot {kept} kept its pages");
    assert!(!st.consume(ids[kept], 1, NR_MEMCG_STOCK, 64), "and has none left");
    assert!(!st.consume(ids[kept], 65, NR_MEMCG_STOCK, 64), "no consume above a charge batch");
    st.refill(ids[kept], 60, NR_MEMCG_STOCK, 64, &mut rand);
    st.refill(ids[kept], 5, NR_MEMCG_STOCK, 64, &mut rand);
    assert_eq!((st.cached[kept], st.nr_pages[kept]), (MemcgId::NONE, 0), "60 + 5 > 64: drained");
    // One slot (before 6.16): another memcg's refill drains the stock first, no draw.
    let mut one = MemcgStock::default();
    let before = rand;
    one.refill(ids[0], 63, 1, 64, &mut rand);
    one.refill(ids[1], 40, 1, 64, &mut rand);
    assert_eq!((one.cached[0], one.nr_pages[0], one.pages_of(ids[0], 1)), (ids[1], 40, 0));
    assert_eq!(rand, before, "one slot: the empty-or-own slot, never a draw");
}

/// `drain_all_stock()` (mm/memcontrol.c, 6.1 and 6.18) drains the stock of every CPU that
/// caches pages of the memcg whose limit was met or of a descendant (the running CPU's
/// directly, the others' by `schedule_work_on()`), each CPU's whole stock
/// (`drain_local_stock()`; 6.18 `drain_stock_fully()`); a CPU caching only other memcgs
/// keeps its stock. `mem_cgroup_css_offline()` drains the memcg going offline too.
#[test]
fn drain_all_stock_drains_every_cpu_caching_the_subtree() {
    for profile in ["linux-6.1", "linux-6.18"] {
        let (mut s, a, b) = two_memcgs_two_cpus(profile);
        let k = &mut s.kernel;
        let slots = k.profile.memcg_stock_slots;
        k.pcp_ctx = 0;
        k.try_charge_memcg(b, 1, true).unwrap();
        k.try_charge_memcg(a, 1, true).unwrap();
        k.pcp_ctx = 1;
        k.try_charge_memcg(b, 1, true).unwrap();
        assert!(k.memcg_stock[0].pages_of(a, slots) > 0);
        k.drain_all_stock(a);
        assert_eq!(k.memcg_stock[0], Default::default(), "{profile}: CPU 0 cached a: all of it drained");
        assert!(k.memcg_stock[1].pages_of(b, slots) > 0, "{profile}: CPU 1 cached only b");
        k.memcgs.counter_uncharge(a, 1);
        k.memcgs.counter_uncharge(b, 2);
        k.cgroup_rmdir("b").unwrap();
        assert_eq!(k.memcg_stock[1], Default::default(), "{profile}: b went offline");
    }
}

/// The scheduler runs task i on CPU i modulo `nr_cpu_ids` (`Kernel::task_cpu`) and its charges
/// use that CPU's stock: two readers of one memcg on two CPUs leave a stock on each, on one
/// CPU a single one.
#[test]
fn tasks_charge_through_the_stock_of_their_cpu() {
    for cpus in [1usize, 2] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "two-readers"
[machine]
ram = "256M"
cpus = {cpus}
[kernel]
profile = "linux-6.1"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "800K"
[files."/g"]
size = "800K"
[cgroups.a]
[tasks.r1]
cgroup = "a"
ops = [{{ op = "read", file = "/f", bufsize = "4K" }}]
[tasks.r2]
cgroup = "a"
ops = [{{ op = "read", file = "/g", bufsize = "4K" }}]
"#
        ));
        let a = memcg(&s, "a");
        run(&mut s);
        let k = &s.kernel;
        assert_eq!(k.memcg_stock.len(), cpus);
        let stocked: Vec<u64> = k.memcg_stock.iter().map(|st| st.pages_of(a, 1)).collect();
        assert!(stocked.iter().all(|&n| n > 0 && n < 64), "{cpus} CPUs: {stocked:?}");
    }
}

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18; `try_charge()` of 4.x) goes round
/// its retry loop without sleeping: after a reclaim that left the memcg short it retries at
/// once (`nr_retries--; goto retry`), and only the reclaim's own waits or the OOM path
/// block. A charge in a memcg full of unreclaimable pages, beside a busy disk, fails having
/// spent CPU time only (3.13's `__mem_cgroup_try_charge()` is the same).
#[test]
fn the_charge_retry_loop_does_not_sleep() {
    for profile in ["linux-6.1", "linux-6.18", "linux-4.4", "linux-3.13"] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        k.devices[0].busy_until = k.now + crate::types::NSEC_PER_SEC;
        let (t0, sys0, io0) = (k.now, k.sys_ns, k.iowait_ns);
        assert!(k.try_charge_memcg(ct, 1, true).is_err(), "{profile}: nothing to reclaim");
        assert_eq!(k.iowait_ns, io0, "{profile}: no sleep");
        assert_eq!(k.now - t0, k.sys_ns - sys0, "{profile}: all of the charge's time is CPU time");
        assert!(k.now - t0 < crate::vmscan::RECLAIM_THROTTLE_JIFFIES * crate::types::NSEC_PER_SEC / crate::memcontrol::HZ, "{profile}");
    }
}

/// `mem_cgroup_margin()` (mm/memcontrol.c, 6.1; 3.13 on its res_counters) reads the memcg's
/// own memory (and v1 memsw) counter, not its ancestors': the charge loop asks it of the
/// memcg whose counter refused the charge.
#[test]
fn mem_cgroup_margin_reads_the_memcgs_own_counters_6_1() {
    let mut t = crate::memcontrol::MemcgTree::new(crate::memcontrol::CgroupVersion::V1);
    let a = t.create(MemcgId::ROOT, "a").unwrap();
    let b = t.create(a, "b").unwrap();
    t.memcgs[a.idx()].counter.max = 10;
    t.memcgs[b.idx()].counter.max = 100;
    t.counter_charge(b, 8);
    assert_eq!(t.margin(a), 2);
    assert_eq!(t.margin(b), 92, "b's own limit, whatever a has left");
    assert_eq!(t.over_limit(b, 3), Some(a), "the charge meets a's limit: the loop asks a's margin");
    t.memcgs[a.idx()].memsw_max = 9;
    assert_eq!(t.margin(a), 1, "v1: memsw's room too");
}

/// What an OOM kill of a memcg counts, per era: from 4.13 `__oom_kill_process()` counts
/// /proc/vmstat `oom_kill` and the victim's memcg's `MEMCG_OOM_KILL` (memory.events /
/// memory.oom_control `oom_kill`); 6.1's and 6.18's `try_charge_memcg()` get there through
/// `mem_cgroup_oom()` only for a charge of at most `PAGE_ALLOC_COSTLY_ORDER` ("if (order >
/// PAGE_ALLOC_COSTLY_ORDER) return false;": a larger one fails without a kill). 3.13 and 4.4
/// have neither counter.
#[test]
fn an_oom_kill_is_counted_from_4_13_and_not_for_costly_charges() {
    for (profile, counted) in [("linux-6.1", 1u64), ("linux-6.18", 1), ("linux-4.4", 0), ("linux-3.13", 0)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        let (vm0, ev0) = (k.vmstat.get(crate::vmstat::VmEvent::OomKill), k.memcgs.events(ct, MemcgEvent::OomKill));
        assert!(k.try_charge_memcg(ct, 1, true).is_err(), "{profile}");
        assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::OomKill) - vm0, counted, "{profile}: /proc/vmstat oom_kill");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::OomKill) - ev0, counted, "{profile}: memory.events oom_kill");
        if counted > 0 {
            assert!(k.try_charge_memcg(ct, 16, true).is_err(), "{profile}");
            assert_eq!(k.memcgs.events(ct, MemcgEvent::OomKill) - ev0, counted, "{profile}: no OOM for an order-4 charge");
            assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::OomKill) - vm0, counted, "{profile}");
        }
        assert_invariants(k);
    }
}

/// The kernel never charges the root memcg for its own pages: `try_charge()` returns at
/// `mem_cgroup_is_root()` before `consume_stock()` (4.4, 6.1, 6.18; 3.13's
/// `__mem_cgroup_try_charge()` "goto done"), and `uncharge_folio()` leaves the counter alone
/// ("LRU pages aren't accounted at the root level", 6.1). The page still records the root
/// (`commit_charge()`, memory.stat `cache`/`file`); the root's page counter holds its
/// descendants' charges only; its `memory.usage_in_bytes` (`mem_cgroup_usage()`) is read from
/// the statistics; and a root charge leaves the CPU's charge stock to the memcg it caches.
#[test]
fn the_root_memcg_is_never_charged() {
    for profile in ["linux-3.13", "linux-4.4", "linux-6.1", "linux-6.18"] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "root-charges"
[machine]
ram = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[files."/g"]
size = "512K"
[cgroups.a]
[tasks.at_root]
ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
[tasks.in_a]
cgroup = "a"
start = "1s"
ops = [{{ op = "read", file = "/g", bufsize = "128K" }}]
"#
        ));
        run(&mut s);
        let a = memcg(&s, "a");
        let k = &mut s.kernel;
        assert_eq!(k.memcgs.get(MemcgId::ROOT).nr_file, 256, "{profile}: the root's memory.stat counts the pages of /f");
        assert_eq!(k.memcgs.get(a).nr_file, 128, "{profile}: a's those of /g");
        assert_eq!(k.memcgs.get(MemcgId::ROOT).counter.usage, k.memcgs.get(a).counter.usage, "{profile}: the root's counter holds a's charges only");
        assert_eq!(k.memcg_usage_bytes(MemcgId::ROOT), (256 + 128) * PAGE_SIZE, "{profile}: usage_in_bytes from cache + rss");
        assert_invariants(k);
        // A root charge does not touch the stock (6.1: one memcg a CPU, which a refill would
        // drain).
        let slots = k.profile.memcg_stock_slots;
        k.pcp_ctx = 0;
        let held = k.memcg_stock[0];
        k.memcg_stock[0] = Default::default();
        k.stock_changed(0, &held);
        k.try_charge_memcg(a, 1, true).unwrap();
        let before = k.memcg_stock[0];
        let (usage, watermark) = (k.memcgs.get(MemcgId::ROOT).counter.usage, k.memcgs.get(MemcgId::ROOT).counter.watermark);
        k.try_charge_memcg(MemcgId::ROOT, 1, true).unwrap();
        assert_eq!(k.memcg_stock[0], before, "{profile}: the stock still caches a");
        assert!(k.memcg_stock[0].pages_of(a, slots) > 0, "{profile}");
        assert_eq!(k.memcgs.get(MemcgId::ROOT).counter.usage, usage, "{profile}");
        assert_eq!(k.memcgs.get(MemcgId::ROOT).counter.watermark, watermark, "{profile}");
        k.memcgs.counter_uncharge(a, 1);
    }
}

/// memory.events `oom` (`MEMCG_OOM`), counted for the memcg whose limit a `GFP_KERNEL` charge
/// met once its retries are spent, before the kill, per era: 6.1's and 6.18's
/// `mem_cgroup_oom()` count it ("memcg_memory_event(memcg, MEMCG_OOM);") after "if (order >
/// PAGE_ALLOC_COSTLY_ORDER) return false;", so an order-4 charge counts none; 4.4's
/// `try_charge()` counts it before calling `mem_cgroup_oom()`, whatever the order, with no
/// `oom_kill` (4.13+); 3.13 has no memory.events. A `__GFP_NORETRY` charge gives up before
/// it ("goto nomem").
#[test]
fn a_charge_entering_the_oom_path_counts_memory_events_oom() {
    for (profile, small, costly) in [("linux-6.1", 1u64, 0u64), ("linux-6.18", 1, 0), ("linux-5.0", 1, 0), ("linux-4.4", 1, 1), ("linux-3.13", 0, 0)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        let (oom0, kill0) = (k.memcgs.events(ct, MemcgEvent::Oom), k.memcgs.events(ct, MemcgEvent::OomKill));
        assert!(k.try_charge_memcg(ct, 1, false).is_err(), "{profile}");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Oom), oom0, "{profile}: a __GFP_NORETRY charge stops before the OOM path");
        assert!(k.try_charge_memcg(ct, 1, true).is_err(), "{profile}");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Oom) - oom0, small, "{profile}: an order-0 charge");
        let kills = k.memcgs.events(ct, MemcgEvent::OomKill) - kill0;
        assert_eq!(kills, if k.profile.oom_kill_events { small } else { 0 }, "{profile}: oom_kill follows oom from 4.13");
        assert!(k.try_charge_memcg(ct, 16, true).is_err(), "{profile}");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Oom) - oom0, small + costly, "{profile}: an order-4 charge");
        assert_eq!(k.memcgs.events(MemcgId::ROOT, MemcgEvent::Oom), 0, "{profile}: the root never counts a child's memory.events");
        assert_invariants(k);
    }
}


/// include/linux/memcontrol.h `memcg_memory_event()`: from 5.2 (9852ae3fe529 "mm, memcg:
/// consider subtrees in memory.events") a v2 memory.events counter is counted at the memcg and
/// every ancestor below the root (the loop stops at `mem_cgroup_is_root()`); before, and on v1
/// (04fd61a4e010), at the memcg only. memory.stat's events are the subtree's sum in every era.
#[test]
fn memory_events_propagate_to_ancestors_from_5_2_on_v2_only() {
    use crate::memcontrol::{CgroupVersion, MemcgTree};
    for (profile, version, recursive) in [
        ("linux-6.1", CgroupVersion::V2, true),
        ("linux-5.17", CgroupVersion::V2, true),
        ("linux-5.0", CgroupVersion::V2, false),
        ("linux-4.4", CgroupVersion::V2, false),
        ("linux-6.1", CgroupVersion::V1, false),
    ] {
        let prof = crate::profile::profile(profile).unwrap();
        let k = Kernel::new(prof, Default::default(), version, 1 << 15, 0);
        assert_eq!(k.memcgs.memory_events_recursive, recursive, "{profile} {version:?}");
        let mut t = MemcgTree::new(version);
        t.memory_events_recursive = k.memcgs.memory_events_recursive;
        let p = t.create(MemcgId::ROOT, "p").unwrap();
        let c = t.create(p, "c").unwrap();
        t.count_event(c, MemcgEvent::Max, 1);
        t.count_event(c, MemcgEvent::Pgscan, 5);
        assert_eq!(t.events(c, MemcgEvent::Max), 1);
        assert_eq!(t.events(p, MemcgEvent::Max), recursive as u64, "{profile} {version:?}: the parent's memory.events max");
        assert_eq!(t.events(MemcgId::ROOT, MemcgEvent::Max), 0, "{profile}: never the root");
        assert_eq!(t.events(p, MemcgEvent::Pgscan), 5, "{profile}: memory.stat sums the subtree");
    }
}

/// `try_charge_memcg()` (mm/memcontrol.c) of a `PF_MEMALLOC` task ("goto force": reclaim's own
/// allocations, zswap's store and writeback page) that does not fit is forced over the limit;
/// from 6.0 ("mm: memcontrol: do not miss MEMCG_MAX events for enforced allocations", in 6.1's
/// and 6.12's `force:` label: "if (!raised_max_event) memcg_memory_event(mem_over_limit,
/// MEMCG_MAX);") it counts memory.events `max` on the memcg over its limit, which 5.19 and
/// before never do on this path. A forced charge that fits counts nothing in any era.
#[test]
fn a_forced_pf_memalloc_charge_counts_memory_events_max_from_6_0() {
    for (profile, counted) in [("linux-6.1", 1u64), ("linux-6.12", 1), ("linux-6.18", 1), ("linux-5.17", 0), ("linux-5.0", 0), ("linux-4.4", 0)] {
        let (mut s, ct) = memcg_full_of_anon(profile);
        let k = &mut s.kernel;
        let (max0, usage0) = (k.memcgs.events(ct, MemcgEvent::Max), k.memcgs.get(ct).counter.usage);
        k.pf_memalloc = true;
        assert_eq!(k.try_charge_memcg(ct, 1, true), Ok(()), "{profile}: a PF_MEMALLOC charge must succeed");
        assert_eq!(k.memcgs.get(ct).counter.usage, usage0 + 1, "{profile}: forced over the limit");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, counted, "{profile}: the forced charge's memory.events max");
        k.memcgs.counter_uncharge(ct, 1);
        k.memcgs.memcgs[ct.idx()].counter.max += 2;
        assert_eq!(k.try_charge_memcg(ct, 1, true), Ok(()), "{profile}");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::Max) - max0, counted, "{profile}: a forced charge that fits counts no event");
        k.pf_memalloc = false;
        k.memcgs.counter_uncharge(ct, 1);
        assert_invariants(k);
    }
}

/// `try_charge_memcg()` (mm/memcontrol.c; 4.x's `try_charge()`, 3.13's
/// `__mem_cgroup_try_charge()`): `consume_stock()` comes first, at `retry:` (3.13: `again:`),
/// before any page counter is tested. A memcg pushed over its limit by a forced charge (a
/// `PF_MEMALLOC` charge such as 6.1 zswap's, `force:`) while its CPU's stock still holds
/// pre-charged pages serves the next one-page charges from the stock: no `failcnt`, no
/// memory.events `max` (so no reclaim, which follows them). Checked on 3.13, 4.4, 5.0, 6.1, 6.12 and 6.18 (each era's
/// source has the same order). Testing the limit first (the engine before zswap20) counted
/// `failcnt` and `max` and reclaimed here.
#[test]
fn try_charge_memcg_consumes_the_stock_before_testing_the_limit() {
    for profile in ["linux-3.13", "linux-4.4", "linux-5.0", "linux-6.1", "linux-6.12", "linux-6.18"] {
        let (mut s, a, _) = two_memcgs_two_cpus(profile);
        let k = &mut s.kernel;
        let (slots, batch) = (k.profile.memcg_stock_slots, k.profile.memcg_charge_batch);
        k.pcp_ctx = 0;
        k.memcgs.memcgs[a.idx()].counter.max = 100;
        k.try_charge_memcg(a, 1, true).unwrap();
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), batch - 1, "{profile}: a batch, one page used");
        // A forced charge takes the counter over the limit (the engine's counters hold the
        // used pages; the kernel's hold the stock's too: over either way).
        k.memcgs.counter_charge(a, 120);
        assert!(k.memcgs.over_limit(a, 1).is_some(), "{profile}");
        let (failcnt, max_events) = (k.memcgs.get(a).counter.failcnt, k.memcgs.events(a, MemcgEvent::Max));
        for _ in 0..3 {
            assert_eq!(k.try_charge_memcg(a, 1, true), Ok(()), "{profile}: served by the stock");
        }
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), batch - 4, "{profile}: three pages from the stock");
        assert_eq!(k.memcgs.get(a).counter.usage, 124, "{profile}");
        assert_eq!(k.memcgs.get(a).counter.stocked, batch - 4, "{profile}: the counter's stocked pages");
        assert_eq!(k.memcgs.get(a).counter.failcnt, failcnt, "{profile}: no counter was tested");
        assert_eq!(k.memcgs.events(a, MemcgEvent::Max), max_events, "{profile}: no memory.events max");
        // The fault-run batching agrees: every stocked page is a quiet charge.
        assert_eq!(k.charge_from_stock(a), batch - 4, "{profile}");
        assert!(k.charge_is_quiet(a, 1), "{profile}");
        // A PF_MEMALLOC charge (`try_charge_memcg_force`) takes the stock first too.
        k.try_charge_memcg_force(a, 1);
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), batch - 5, "{profile}: force: after consume_stock()");
        assert_eq!(k.memcgs.events(a, MemcgEvent::Max), max_events, "{profile}: the stock served it, no force");
    }
}

/// `page_counter_try_charge()` (mm/page_counter.c, 6.1; 3.13's `res_counter_charge()`): the
/// counter a charge is tested against holds every CPU's stocked pages (`refill_stock()`'s
/// batch was charged to it), so a charge on CPU 1 meets the limit with CPU 0's stock counted;
/// when reclaim then finds nothing, `try_charge_memcg()`'s `drain_all_stock()` gives CPU 0's
/// pages back and the retry fits. The engine's counters held the used pages only before
/// zswap20: CPU 1 charged up to the limit beside CPU 0's stock, and a stock consumed before
/// the limit test (`consume_stock()` first) took the used pages over it.
#[test]
fn another_cpus_stock_counts_against_the_limit_6_1() {
    for profile in ["linux-3.13", "linux-6.1", "linux-6.18"] {
        let (mut s, a, _) = two_memcgs_two_cpus(profile);
        let k = &mut s.kernel;
        let (slots, batch) = (k.profile.memcg_stock_slots, k.profile.memcg_charge_batch);
        k.memcgs.memcgs[a.idx()].counter.max = 2 * batch + 4;
        k.pcp_ctx = 0;
        k.try_charge_memcg(a, 1, true).unwrap();
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), batch - 1, "{profile}");
        // CPU 1: a batch, then single pages while they fit beside CPU 0's stock.
        k.pcp_ctx = 1;
        let room = 2 * batch + 4 - batch; // the limit less CPU 0's batch (1 used + batch - 1 stocked)
        for _ in 0..room {
            k.try_charge_memcg(a, 1, true).unwrap();
        }
        let (usage, stocked) = (k.memcgs.get(a).counter.usage, k.memcgs.get(a).counter.stocked);
        assert_eq!(usage + stocked, 2 * batch + 4, "{profile}: the counter at the limit, stocks included");
        assert!(k.memcgs.over_limit(a, 1).is_some(), "{profile}: CPU 0's stocked pages count");
        assert_eq!(k.memcgs.margin(a), 0, "{profile}");
        let max0 = k.memcgs.events(a, MemcgEvent::Max);
        // The next charge on CPU 1 (its own stock used up): over the counter, reclaim (nothing
        // to free), drain_all_stock() and the retry.
        assert_eq!(k.memcg_stock[1].pages_of(a, slots), 0, "{profile}");
        k.try_charge_memcg(a, 1, true).unwrap();
        assert_eq!(k.memcgs.events(a, MemcgEvent::Max), max0 + 1, "{profile}: the limit met once");
        assert_eq!(k.memcg_stock[0].pages_of(a, slots), 0, "{profile}: CPU 0's stock drained");
        assert!(k.memcgs.get(a).counter.usage <= 2 * batch + 4, "{profile}: the used pages within the limit");
        k.check_memcg_stocks().unwrap();
    }
}

/// linux-6.1 / 6.12 / 6.18 mm/memcontrol.c `flush_memcg_stats_dwork()` requeues itself with
/// `queue_delayed_work(system_unbound_wq, &stats_flush_dwork, FLUSH_TIME)`: kernel/workqueue.c
/// `__queue_delayed_work()` sets `expires = jiffies + 500` (HZ 250) and `add_timer()` (6.1) /
/// `add_timer_global()` (6.9+) put it on the wheel, where kernel/time/timer.c
/// `calc_wheel_index()` files a 500-jiffy delta on level 1 (below `LVL_START(2)` = 504) and
/// `calc_index()` rounds the expiry up to the next multiple of 8: 501-508 jiffies on by the
/// jiffy it is requeued at, 504 (2.016 s) when requeued at a level-1 bucket's jiffy, so never
/// 500. Before 4.8's wheel it would fire at `expires`.
#[test]
fn stats_flush_requeue_lands_on_the_wheels_level_1_bucket_6_1_6_12() {
    use crate::memcontrol::{stats_flush_requeue, FLUSH_TIME, FLUSH_TIME_JIFFIES};
    assert_eq!(FLUSH_TIME_JIFFIES, 500);
    assert_eq!(FLUSH_TIME_JIFFIES * crate::timer::NSEC_PER_JIFFY, FLUSH_TIME);
    // Requeued at the jiffy its bucket fired (a multiple of 8): 504 jiffies on.
    assert_eq!(stats_flush_requeue(1000, true), 1504);
    assert_eq!(stats_flush_requeue(1504, true), 2008);
    // Requeued later within the bucket: 501 (jiffy 1003) to 508 (jiffy 1004) on.
    let delays: Vec<u64> = (1000..1008).map(|j| stats_flush_requeue(j, true) - j).collect();
    assert_eq!(delays, vec![504, 503, 502, 501, 508, 507, 506, 505]);
    // The pre-4.8 cascading wheel: at `expires`.
    assert_eq!(stats_flush_requeue(1003, false), 1503);
}

/// The engine's periodic flusher on the wheel (linux-6.12 `flush_memcg_stats_dwork()`, queued
/// at boot by `mem_cgroup_css_online()` of the root memcg): boot 0 ran it at the clock's 0 and
/// it runs every 504 jiffies (2.016 s) after, each run requeued at the jiffy its timer fired;
/// a run the clock passes late (a long sleep) does not move the ones after it, which stay on
/// the grid the wheel's buckets make. Another boot's phase is a whole number of level-1
/// buckets (8 jiffies) before the clock's 0. 6.1's reclaim flushes itself: no periodic flusher.
#[test]
fn periodic_stats_flush_runs_every_504_jiffies_on_the_boots_grid_6_12() {
    use crate::memcontrol::{stats_flush_phase, CgroupVersion};
    use crate::timer::NSEC_PER_JIFFY;
    let kernel = |name: &str| crate::kernel::Kernel::new(crate::profile::profile(name).unwrap(), crate::profile::Policies::default(), CgroupVersion::V2, 1 << 15, 0);
    let mut k = kernel("linux-6.12");
    k.start_stats_flush(0);
    assert_eq!(k.stats_flush_epoch, 1);
    let mut runs = vec![];
    while runs.len() < 5 {
        let due = k.stats_flush_next;
        k.advance_clock(due);
        runs.push((due / NSEC_PER_JIFFY, k.stats_flush_epoch));
    }
    assert_eq!(runs, vec![(504, 2), (1008, 3), (1512, 4), (2016, 5), (2520, 6)]);
    assert_eq!(k.stats_flush_next, 3024 * NSEC_PER_JIFFY);
    // The clock passes three runs at once (3024, 3528, 4032), 100 jiffies past the last: the
    // next stays on the grid, not 504 jiffies after the clock.
    k.advance_clock(4132 * NSEC_PER_JIFFY);
    assert_eq!(k.stats_flush_epoch, 9);
    assert_eq!(k.stats_flush_next, 4536 * NSEC_PER_JIFFY);
    // Another boot: the first run `phase` jiffies before the period's end.
    for seed in 1..=8 {
        let phase = stats_flush_phase(seed);
        assert!(phase % 8 == 0 && phase < 504, "seed {seed}: {phase}");
        let mut k = kernel("linux-6.12");
        k.start_stats_flush(seed);
        assert_eq!(k.stats_flush_next, (504 - phase) * NSEC_PER_JIFFY, "seed {seed}");
        let first = k.stats_flush_next;
        k.advance_clock(first);
        assert_eq!(k.stats_flush_next, first + 504 * NSEC_PER_JIFFY, "seed {seed}");
    }
    let mut k = kernel("linux-6.1");
    k.start_stats_flush(0);
    assert_eq!(k.stats_flush_next, u64::MAX);
}

/// A run of page-cache charges (`MemcgTree::charge_credit`, issue 17) is what
/// `try_charge_memcg()` gives each of them (mm/memcontrol.c 6.6: `consume_stock()`, the
/// `MEMCG_CHARGE_BATCH` batch refused at the memcg with its `failcnt`, the page charged up
/// to the root by `page_counter_try_charge()`): a reader at a v2 memcg's limit, then
/// `POSIX_FADV_DONTNEED` of its file (the uncharge makes room for a batch again: the run must
/// end there, and the next charge refill the stock), then a second read; without memory.high
/// and with it 32 pages below memory.max, within the batch the limit refuses (the run then
/// stops at memory.high). The run is taken only on the
/// fast path: with `Kernel::check_fast_paths` every charge takes the general loop. Both give
/// the same result, counters and stocks.
#[test]
fn a_run_of_page_cache_charges_is_what_each_charge_gives_6_6() {
    for high in ["", "\"memory.high\" = \"3968K\"\n"] {
        let toml = format!(
            r#"
[scenario]
name = "charge-run"
[machine]
ram = "256M"
[kernel]
profile = "linux-6.6"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
read_ahead_kb = 128
[files."/f"]
size = "12M"
[cgroups.ct]
"memory.max" = "4M"
{high}[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read 1" }},
  {{ op = "fadvise", path = "/f", advice = "dontneed", step = "drop" }},
  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read 2" }},
]
"#
        );
        // The charge counters and this CPU's stock after every step, and the rest at the end:
        // the counters of both runs meet again once the limit is reached, so their end
        // alone would not tell a run that outlived the drop.
        let outcome = |check: bool| {
            let mut s = sim(&toml);
            s.kernel.check_fast_paths = check;
            let mut steps = Vec::new();
            run_with(&mut s, |s| {
                let k = &s.kernel;
                let pc = &k.memcgs.get(memcg(s, "ct")).counter;
                steps.push((k.now, pc.usage, pc.watermark, pc.failcnt, pc.stocked, format!("{:?}", k.memcg_stock)));
            });
            let ct = memcg(&s, "ct");
            let k = &s.kernel;
            let pc = &k.memcgs.get(ct).counter;
            assert!(pc.failcnt > 0, "high {high:?}: the reader met the limit");
            (
                steps,
                format!("{pc:?}"),
                format!("{:?}", k.memcgs.get(MemcgId::ROOT).counter),
                (k.memcgs.events(ct, MemcgEvent::Max), k.memcgs.events(ct, MemcgEvent::High), k.now, k.sys_ns, k.nr_pages_over_high),
            )
        };
        assert_eq!(outcome(false), outcome(true), "high {high:?}");
    }
}
