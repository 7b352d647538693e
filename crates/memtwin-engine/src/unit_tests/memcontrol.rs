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
        k.charge_stock = (MemcgId::NONE, 0);
        let (fail0, max0) = (k.memcgs.get(ct).counter.failcnt, k.memcgs.events(ct, MemcgEvent::Max));
        for i in 0..10 {
            assert!(k.try_charge_memcg(ct, 1, true).is_ok(), "{profile}: page {i} fits");
            assert_eq!(k.charge_stock.1, 0, "{profile}: no batch was taken for the stock");
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
        assert_eq!(k.charge_stock, (ct, batch - 1), "{profile}");
        assert_eq!(k.memcgs.get(ct).counter.failcnt, fail1, "{profile}");
        // The charges made here belong to no page.
        k.memcgs.counter_uncharge(ct, 11);
        k.charge_stock = (MemcgId::NONE, 0);
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
    }
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
/// any other. A 4 MiB readahead into a 2 MiB memcg on a 1 MB/s disk: on 6.1 the charges fail
/// once the memcg is full of pages still under read (nothing to reclaim after two passes);
/// on 3.13 and 4.4 a failing charge's retries wait for reads to complete
/// (`reclaim_throttle()`) and reclaim them, so more of the window is charged.
#[test]
fn readahead_charges_reclaim_and_retry_before_4_8() {
    let charged = |profile: &str| {
        let (s, ct, _) = super::vmscan::memcg_full_under_read(profile);
        let k = &s.kernel;
        assert_invariants(k);
        (k.memcgs.events(ct, MemcgEvent::Pgpgin), k.memcgs.events(ct, MemcgEvent::Pgsteal))
    };
    let (new, new_steal) = charged("linux-6.1");
    assert_eq!(new_steal, 0, "6.1: the NORETRY charges found nothing to reclaim");
    assert!(new <= 512, "6.1: {new} pages charged, no more than fit in 2 MiB");
    for profile in ["linux-3.13", "linux-4.4"] {
        let (old, old_steal) = charged(profile);
        assert!(old_steal > 0, "{profile}: the GFP_KERNEL charges reclaimed pages whose read completed");
        assert!(old > 512 && old > new, "{profile}: {old} pages charged, 6.1 {new}");
    }
}

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18; 3.13's `__mem_cgroup_try_charge()`
/// and its `nr_oom_retries`): `nr_retries` and `drained` are locals of one call. A task whose `reclaim_throttle()` sleep ended its quantum resumes
/// inside that call, so a charge restarted after each sleep ([`crate::sched::ChargeLoop`])
/// reclaims exactly as often as one that slept in place (the first pass, the `drained` pass,
/// one per retry: memory.events `max`) before it fails, instead of a fresh drain and
/// `MAX_RECLAIM_RETRIES` more at every restart.
#[test]
fn try_charge_memcg_resumed_keeps_its_retries_and_drained() {
    for profile in ["linux-6.1", "linux-6.18", "linux-3.13"] {
        let passes = |restart: bool| {
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
            let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
            let k = &mut s.kernel;
            // A read elsewhere keeps the disk busy: each retry's reclaim_throttle() sleeps.
            k.do_page_cache_ra(f, 0, 1024, 0, MemcgId::ROOT);
            let vma = k.do_mmap_anon(256, ct);
            let mut i = 0;
            while k.memcgs.margin(ct) > 0 {
                k.handle_mm_fault(vma, i).unwrap();
                i += 1;
            }
            let max0 = k.memcgs.events(ct, MemcgEvent::Max);
            let mut restarts = 0;
            let r = loop {
                if restart {
                    // Another task could run at once: every sleep ends the quantum.
                    k.resched.horizon = Some(k.now);
                    k.resched.restartable_next = true;
                }
                let r = k.try_charge_memcg(ct, 1, true);
                if r != Err(crate::memcontrol::ChargeError::Again) {
                    break r;
                }
                assert!(k.resched.charge_loop.is_some(), "{profile}: the loop's state kept with the task");
                k.resched.wake = None;
                restarts += 1;
                assert!(restarts <= 100, "{profile}: the restarted charge never gives up");
            };
            assert!(matches!(r, Err(crate::memcontrol::ChargeError::Oom { .. })), "{profile}: nothing to reclaim without swap");
            assert_eq!(k.resched.charge_loop, None, "{profile}: the charge is over");
            k.resched = Default::default();
            assert_invariants(k);
            (k.memcgs.events(ct, MemcgEvent::Max) - max0, restarts, k.profile.max_reclaim_retries as u64)
        };
        let (in_place, _, retries) = passes(false);
        // 3.13 (mem_cgroup_do_charge()) has no drained round: one failed charge a round.
        let drained_round = (profile != "linux-3.13") as u64;
        assert_eq!(in_place, 1 + drained_round + retries, "{profile}: the first pass, the drained pass and each retry");
        let (restarted, restarts, _) = passes(true);
        // 3.13's retry loop charges again at once: no sleep, nothing to restart.
        let sleeps = if profile == "linux-3.13" { 0 } else { retries };
        assert_eq!(restarts, sleeps, "{profile}: each retry's throttle sleep ended the quantum");
        assert_eq!(restarted, in_place, "{profile}: the restarts went on with the same loop");
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
            k.charge_stock = (MemcgId::NONE, 0);
        }
        assert_invariants(k);
    }
}
