//! madvise() of anonymous memory held to Linux 6.1 (mm/madvise.c, mm/vmscan.c `reclaim_pages()`).

use super::*;

/// 16M of anonymous memory in a 64M memcg: written, MADV_PAGEOUT of it, `then` (extra ops, a
/// store of every page among them), on linux-6.1 with a 256M swap area unless `swap` is false.
fn madv(swap: bool, then: &str) -> String {
    madv_scenario("linux-6.1", if swap { "swap = \"256M\"" } else { "" }, "", "", "pageout", "", then)
}

/// The 16M scenario of [`madv`] on `profile`, with `machine`, `kernel` and `dev` lines added to
/// those sections, `madvise(advice)` of `range` (an `offset`/`length` pair or nothing), then
/// `then`; the madvise step is named after the advice.
fn madv_scenario(profile: &str, machine: &str, kernel: &str, dev: &str, advice: &str, range: &str, then: &str) -> String {
    format!(
        r#"
[scenario]
name = "madv"
[machine]
ram = "1G"
{machine}
[kernel]
profile = "{profile}"
cgroup = "v2"
{kernel}
[devices.sda]
read_bw = "400M"
write_bw = "400M"
{dev}
[cgroups.ct]
"memory.max" = "64M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "heap", size = "16M", step = "touch" }},
  {{ op = "touch", name = "heap", step = "touch" }},
  {{ op = "madvise", name = "heap", advice = "{advice}"{range}, step = "{advice}" }},
{then}
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

/// The 16M scenario of [`madv`] in 8 THPs (THP always) on `profile`, with a 256M swap area on
/// a device that is `rotational` or not: `madvise(advice)` of `range`, then `then`.
fn madv_thp(profile: &str, rotational: bool, advice: &str, range: &str, then: &str) -> String {
    madv_scenario(profile, "swap = \"256M\"", "thp = \"always\"", &format!("rotational = {rotational}"), advice, range, then)
}

/// mm/madvise.c 6.1 `madvise_cold_or_pageout_pte_range()`'s `pmd_trans_huge()` branch: a THP
/// the range covers whole is isolated whole and goes to `reclaim_pages()` ->
/// `shrink_folio_list()`. On a non-rotational block device `add_to_swap()` gets it a cluster:
/// written whole (THP_SWPOUT, its PMD split at the unmap: THP_SPLIT_PMD), no split of the
/// page. On a rotational one (no `cluster_info` in 6.1) "Fallback to swap normal pages":
/// split (THP_SPLIT_PAGE, THP_SWPOUT_FALLBACK) and its 512 pages written one by one. Before
/// the THP branch the engine skipped THPs: nothing was written.
#[test]
fn madv_pageout_reclaims_whole_thps_6_1() {
    let res = run_checked(&madv_thp("linux-6.1", false, "pageout", "", ""));
    let m = |k: &str| step_metric(&res, "pageout", k);
    assert_eq!(step_metric(&res, "touch", "vmstat.thp_fault_alloc"), 8.0);
    assert_eq!((m("vmstat.thp_swpout"), m("vmstat.thp_swpout_fallback"), m("vmstat.thp_split_page")), (8.0, 0.0, 0.0));
    assert_eq!((m("vmstat.pswpout"), m("vmstat.thp_split_pmd")), (4096.0, 8.0));
    assert_eq!(m("memcg.anon_bytes"), 0.0, "unmapped");
    assert_eq!(m("memcg.swap_bytes"), 16.0 * 1048576.0);
    let res = run_checked(&madv_thp("linux-6.1", true, "pageout", "", ""));
    let m = |k: &str| step_metric(&res, "pageout", k);
    assert_eq!((m("vmstat.thp_swpout"), m("vmstat.thp_swpout_fallback"), m("vmstat.thp_split_page")), (0.0, 8.0, 8.0));
    assert_eq!(m("vmstat.pswpout"), 4096.0);
    assert_eq!(m("memcg.anon_bytes"), 0.0);
}

/// `madvise_cold_or_pageout_pte_range()`: a THP the range covers in part ("if (next - addr !=
/// HPAGE_PMD_SIZE)") is split first (`split_huge_page()`: THP_SPLIT_PAGE, THP_SPLIT_PMD) and
/// only its pages in the range are reclaimed, as base pages; the THPs between are written
/// whole. 1M..15M of 16M: the first and last THP split, 6 written whole, 3584 pages out,
/// 1M at each end left mapped; the split pages stay on the LRU, the charge conserved.
#[test]
fn madv_pageout_splits_a_partly_covered_thp_6_1() {
    let res = run_checked(&madv_thp("linux-6.1", false, "pageout", r#", offset = "1M", length = "14M""#, ""));
    let m = |k: &str| step_metric(&res, "pageout", k);
    assert_eq!((m("vmstat.thp_split_page"), m("vmstat.thp_swpout"), m("vmstat.thp_swpout_fallback")), (2.0, 6.0, 0.0));
    assert_eq!(m("vmstat.thp_split_pmd"), 8.0, "2 at the madvise split, 6 at the whole writes' unmap");
    assert_eq!(m("vmstat.pswpout"), 3584.0);
    assert_eq!(m("memcg.anon_bytes"), 2.0 * 1048576.0, "1M at each end stays mapped");
}

/// `split_huge_page()` of a THP on the LRU keeps the head's place and puts each tail right
/// before it (`lru_add_page_tail(..., NULL)`: `list_add_tail(&tail->lru, &head->lru)`, tails
/// 511 down to 1), so that reclaim from the list's tail meets the head, then tails 1..511;
/// the list's page count is unchanged.
#[test]
fn split_huge_page_keeps_the_head_in_place_with_its_tails_before_it() {
    let mut s = sim(&madv_thp("linux-6.1", false, "normal", "", ""));
    run_with(&mut s, |_| {});
    let k = &mut s.kernel;
    let vma = crate::memory::VmaId(k.vmas.iter().position(|v| v.live && v.pages.len() == 4096).expect("the heap") as u32);
    let head = k.vmas[vma.0 as usize].pages[512];
    assert!(k.pages[head].test(pg::HEAD) && k.pages[head].test(pg::LRU));
    let lv = k.folio_lruvec(head);
    let list = k.pages[head].lru() as usize;
    let (older, newer) = (k.pages[head].next, k.pages[head].prev);
    let before = k.lruvecs[lv].lists[list].pages;
    let len = k.lruvecs[lv].lists[list].len;
    k.split_huge_page(head);
    assert_eq!(k.shmem_stat.thp_split_page, 1);
    assert_eq!(k.lruvecs[lv].lists[list].pages, before, "512 pages still");
    assert_eq!(k.lruvecs[lv].lists[list].len, len + 511);
    assert_eq!(k.pages[head].next, older, "the head keeps its place");
    // From the head toward the list's head (newer): tails 1, 2, ..., 511, then the old
    // newer neighbour.
    let mut p = k.pages[head].prev;
    for i in 1..512u32 {
        assert_eq!(p, PageId(head.0 + i), "tail {i} next before the head");
        p = k.pages[p].prev;
    }
    assert_eq!(p, newer);
    assert_invariants(k);
}

/// `madvise(MADV_COLD)` of a THP the range covers whole (`deactivate_page()` ->
/// `lru_deactivate_fn()`): an active THP goes to the inactive anon list, PGDEACTIVATE counts
/// its 512 pages (memcg and vmstat); no split.
#[test]
fn madv_cold_deactivates_an_active_thp_whole_6_1() {
    let mut s = sim(&madv_thp("linux-6.1", false, "normal", "", ""));
    run_with(&mut s, |_| {});
    let k = &mut s.kernel;
    let vma = crate::memory::VmaId(k.vmas.iter().position(|v| v.live && v.pages.len() == 4096).expect("the heap") as u32);
    let head = k.vmas[vma.0 as usize].pages[0];
    let lv = k.folio_lruvec(head);
    k.lruvecs[lv].del(&mut k.pages, &mut k.lru_stats, head);
    k.pages[head].flags |= pg::ACTIVE;
    k.lruvecs[lv].add(&mut k.pages, &mut k.lru_stats, head, crate::mmzone::LruList::ActiveAnon);
    let before = k.vmstat.get(crate::vmstat::VmEvent::Pgdeactivate);
    k.do_madvise(vma, 0, 512, crate::scenario::model::MAdvice::Cold).unwrap();
    assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::Pgdeactivate) - before, 512);
    assert!(!k.pages[head].test(pg::ACTIVE) && k.pages[head].test(pg::HEAD), "deactivated whole");
    assert_eq!(k.pages[head].lru(), crate::mmzone::LruList::InactiveAnon as u8);
    assert_eq!(k.shmem_stat.thp_split_page, 0);
    assert_invariants(k);
}

/// mm/ksm.c 6.1 `ksm_might_need_to_copy()`: a THP written whole stays a large swap-cache
/// folio; a store to one of its pages finds `page->index` unset (only the head's is) and maps
/// a copy (KSM_SWPIN_COPY), charged anew, while the folio stays in the swap cache, charged,
/// its slots held (memory.swap.current unchanged) until reclaim frees it - and its slots with
/// it. 6.12's folio version returns a large folio uncopied (the engine splits it and maps its
/// pages, no copy). Before the copy the engine mapped every page of the split folio on 6.1.
#[test]
fn a_swapped_out_thp_touched_again_is_copied_page_by_page_6_1_not_6_12() {
    let mib = 1048576.0;
    let retouch = r#"  { op = "touch", name = "heap", step = "retouch" },"#;
    let res = run_checked(&madv_thp("linux-6.1", false, "pageout", "", retouch));
    let m = |k: &str| step_metric(&res, "retouch", k);
    assert_eq!(m("vmstat.ksm_swpin_copy"), 4096.0, "every page copied (the kernel maps each head: 4088)");
    assert_eq!((m("memcg.pgfault"), m("memcg.pgmajfault"), m("vmstat.pswpin")), (4096.0, 0.0, 0.0));
    assert_eq!(m("memcg.anon_bytes"), 16.0 * mib);
    assert_eq!(m("memcg.usage_bytes").div_euclid(mib), 32.0, "16M of copies beside the 16M folios");
    assert_eq!(m("memcg.swap_bytes"), 16.0 * mib, "the folios keep their slots");
    // Reclaim frees the folios, and their slots with them.
    let mut s = sim(&madv_thp("linux-6.1", false, "pageout", "", retouch));
    run_with(&mut s, |_| {});
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    assert_eq!(k.swap.as_ref().unwrap().cache_only_slots(), (4096, 0));
    k.wait_until(k.now + 1_000_000_000);
    k.try_to_free_mem_cgroup_pages(ct, 4096);
    assert_invariants(k);
    assert_eq!(k.swap.as_ref().unwrap().cache_only_slots().0, 0, "freed with the folios");
    // munmap (a process's exit) frees the folios too, once written: the kernel's head PTE maps
    // the folio's head page, whose zap frees it once no swap PTE names it (free_swap_cache();
    // folio_free_swap() leaves a folio under writeback to reclaim).
    let exit = format!("{retouch}\n  {{ op = \"sleep\", duration = \"1s\" }},\n  {{ op = \"munmap\", name = \"heap\", step = \"exit\" }},");
    let res = run_checked(&madv_thp("linux-6.1", false, "pageout", "", &exit));
    assert_eq!(step_metric(&res, "exit", "memcg.usage_bytes"), 0.0, "everything uncharged at munmap");
    let mut s = sim(&madv_thp("linux-6.1", false, "pageout", "", &exit));
    run_with(&mut s, |_| {});
    let k = &s.kernel;
    assert_eq!(k.swap_usage().1, k.swap_slots.held(), "munmap freed every slot but those the slots caches hold");
    assert!(k.swapcache_head_copies.is_empty());
    let res = run_checked(&madv_thp("linux-6.12", false, "pageout", "", retouch));
    let m = |k: &str| step_metric(&res, "retouch", k);
    assert!(res.steps.iter().all(|s| s.metrics.iter().all(|(n, _)| n != "vmstat.ksm_swpin_copy")), "6.12: no copies counted");
    assert_eq!(m("memcg.anon_bytes"), 16.0 * mib);
    assert!(m("memcg.usage_bytes") < 17.0 * mib, "6.12: the folio's pages mapped, no copies");
}
