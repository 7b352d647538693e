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
/// reclaims. Nothing is counted while charges fit.
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
    assert_eq!(k.memcgs.get(ct).counter.failcnt, 0);
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
/// before `__GFP_NORETRY` gives up: a failing readahead charge in a memcg full of pages under
/// read reclaims twice (two memory.events `max`, two reclaims' CPU time). 3.13's
/// `mem_cgroup_do_charge()` has no such retry (the engine reclaims once there).
#[test]
fn a_failing_noretry_charge_reclaims_twice_after_draining_the_stock() {
    for (profile, passes) in [("linux-6.1", 2), ("linux-6.18", 2), ("linux-3.13", 1)] {
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

/// `try_charge_memcg()` (mm/memcontrol.c, 6.1 and 6.18): `nr_retries` and `drained` are
/// locals of one call. A task whose `reclaim_throttle()` sleep ended its quantum resumes
/// inside that call, so a charge restarted after each sleep ([`crate::sched::ChargeLoop`])
/// reclaims exactly as often as one that slept in place (the first pass, the `drained` pass,
/// one per retry: memory.events `max`) before it fails, instead of a fresh drain and
/// `MAX_RECLAIM_RETRIES` more at every restart.
#[test]
fn try_charge_memcg_resumed_keeps_its_retries_and_drained() {
    for profile in ["linux-6.1", "linux-6.18"] {
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
        assert_eq!(in_place, 2 + retries, "{profile}: the first pass, the drained pass and each retry");
        let (restarted, restarts, _) = passes(true);
        assert_eq!(restarts, retries, "{profile}: each retry's throttle sleep ended the quantum");
        assert_eq!(restarted, in_place, "{profile}: the restarts went on with the same loop");
    }
}
