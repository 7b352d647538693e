//! madvise() of anonymous memory held to Linux 6.1 (mm/madvise.c, mm/vmscan.c `reclaim_pages()`).

use super::*;

/// 16M of anonymous memory in a 64M memcg: written, `advice` on it, `then` (extra ops), and
/// written again; with a 256M swap area unless `swap` is false.
fn madv(swap: bool, ops: &str) -> String {
    let swap = if swap { "swap = \"256M\"" } else { "" };
    format!(
        r#"
[scenario]
name = "madv"
[machine]
ram = "1G"
{swap}
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"memory.max" = "64M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "heap", size = "16M", step = "touch" }},
  {{ op = "touch", name = "heap", step = "touch" }},
  {{ op = "madvise", name = "heap", advice = "pageout", step = "pageout" }},
{ops}
]
"#
    )
}

/// mm/madvise.c 6.1 `madvise_cold_or_pageout_pte_range()` -> mm/vmscan.c 6.1 `reclaim_pages()`
/// -> `shrink_folio_list()` of anonymous pages with a swap area: each gets a slot
/// (`add_to_swap()`), is unmapped (`try_to_unmap()`: memory.stat `anon` drops) and written
/// (`pageout()`, pswpout), and stays in the swap cache, charged (`PAGE_SUCCESS` under
/// writeback: `keep`); no PGSCAN/PGSTEAL. The stores after it find the pages in the swap cache:
/// minor faults (`do_swap_page()` -> `swap_cache_get_folio()`), no pswpin.
#[test]
fn madv_pageout_swaps_anonymous_pages_out_6_1() {
    let res = run_checked(&madv(true, r#"  { op = "touch", name = "heap", step = "retouch" },"#));
    let mib = 1048576.0;
    assert_eq!(step_metric(&res, "pageout", "vmstat.pswpout"), 4096.0);
    assert_eq!(step_metric(&res, "pageout", "memcg.anon_bytes"), 0.0, "unmapped");
    assert_eq!(step_metric(&res, "pageout", "memcg.swap_bytes"), 16.0 * mib);
    assert!(step_metric(&res, "pageout", "memcg.usage_bytes") >= 16.0 * mib, "the swap cache stays charged");
    assert_eq!(step_metric(&res, "pageout", "memcg.pgsteal"), 0.0, "reclaim_pages() counts no PGSTEAL");
    assert_eq!(step_metric(&res, "pageout", "memcg.pgscan"), 0.0);
    assert_eq!(step_metric(&res, "retouch", "memcg.pgmajfault"), 0.0);
    assert_eq!(step_metric(&res, "retouch", "vmstat.pswpin"), 0.0);
    assert_eq!(step_metric(&res, "retouch", "memcg.pgfault"), 4096.0);
    assert_eq!(step_metric(&res, "retouch", "memcg.anon_bytes"), 16.0 * mib);
}

/// Run the scenario `toml` twice: stepped, with the invariants checked after every step, and
/// to its result.
fn run_checked(toml: &str) -> crate::SimResult {
    let mut s = sim(toml);
    run_with(&mut s, |sim| assert_invariants(&sim.kernel));
    sim(toml).run(&mut |_, _| true).unwrap()
}

/// mm/vmscan.c 6.1 `shrink_folio_list()`: without a swap area `add_to_swap()` fails and the
/// anonymous page is activated (`activate_locked_split` -> `activate_locked`: PGACTIVATE in
/// memcg and vmstat); it stays mapped.
#[test]
fn madv_pageout_without_swap_activates_anonymous_pages_6_1() {
    let res = run_checked(&madv(false, ""));
    assert_eq!(step_metric(&res, "pageout", "memcg.pgactivate"), 4096.0);
    assert_eq!(step_metric(&res, "pageout", "vmstat.pgactivate"), 4096.0);
    assert_eq!(step_metric(&res, "pageout", "memcg.anon_bytes"), 16.0 * 1048576.0);
    assert_eq!(step_metric(&res, "pageout", "vmstat.pswpout"), 0.0);
}

/// mm/madvise.c 6.1 `madvise_willneed()` of an anonymous VMA -> `swapin_walk_pmd_entry()`:
/// `read_swap_cache_async()` of every swap PTE whose page is not in the swap cache (pswpin at
/// the read, no `PG_readahead`: no swap_ra), so the later loads are minor faults. The pages
/// MADV_PAGEOUT left in the swap cache are freed by the limit reclaim of a second mapping
/// first (clean: no pswpout).
#[test]
fn madv_willneed_reads_swapped_anonymous_pages_6_1() {
    let res = run_checked(&madv(
        true,
        r#"  { op = "mmap", name = "other", size = "60M", step = "pressure" },
  { op = "touch", name = "other", step = "pressure" },
  { op = "munmap", name = "other", step = "free" },
  { op = "madvise", name = "heap", advice = "willneed", step = "willneed" },
  { op = "touch", name = "heap", access = "read", step = "read" },"#,
    ));
    let freed = step_metric(&res, "pressure", "memcg.pgsteal");
    assert!(freed > 1000.0, "reclaim freed paged-out pages: {freed}");
    assert_eq!(step_metric(&res, "pressure", "vmstat.pswpout"), 0.0, "clean swap-cache pages");
    assert_eq!(step_metric(&res, "willneed", "vmstat.pswpin"), freed);
    assert_eq!(step_metric(&res, "willneed", "vmstat.swap_ra"), 0.0);
    assert_eq!(step_metric(&res, "willneed", "memcg.pgmajfault"), 0.0);
    assert_eq!(step_metric(&res, "read", "memcg.pgmajfault"), 0.0);
    assert_eq!(step_metric(&res, "read", "vmstat.pswpin"), 0.0);
    // A load that finds its page still locked under the read retries (folio_lock_or_retry():
    // VM_FAULT_RETRY, counted in pgfault again before 6.4): minor faults all the same.
    assert!(step_metric(&res, "read", "memcg.pgfault") >= 4096.0);
}
