//! File mappings: the fault path (mm/memory.c `do_read_fault()`, `do_cow_fault()`,
//! `do_shared_fault()`, `do_fault_around()`; mm/filemap.c 6.1 `filemap_fault()`,
//! `do_sync_mmap_readahead()`, `do_async_mmap_readahead()`, `filemap_map_pages()`), the
//! reverse map and reclaim's view of mapped pages (mm/rmap.c `folio_referenced()`,
//! `try_to_unmap()`; mm/vmscan.c `folio_check_references()`), mlock (mm/mlock.c) and madvise
//! (mm/madvise.c).

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::memory::VmaId;
use crate::vmscan::{folio_references, FolioRef};
use crate::vmstat::VmEvent;

fn scenario(profile: &str) -> String {
    format!(
        r#"
[scenario]
name = "mmap"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
# slow writes: no writeback completes during the
# reclaim_throttle(CONGESTED) sleeps (5.16+) these tests are not about
write_bw = "64K"
read_ahead_kb = 128
[files."/f"]
size = "4M"
[cgroups.ct]
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    )
}

/// A kernel of `profile` with the 4M file `/f` (1024 pages) mapped whole by a task of `ct`.
fn mapped(profile: &str, shared: bool, exec: bool) -> (Simulation, MemcgId, InodeId, VmaId) {
    let mut s = sim(&scenario(profile));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let vma = s.kernel.do_mmap_file(f, 0, 1024, ct, shared, exec);
    (s, ct, f, vma)
}

fn resident(k: &Kernel, f: InodeId) -> Vec<u32> {
    (0..1024).filter(|&i| k.mappings[f.idx()].lookup(i).is_some()).collect()
}

fn mapped_pages(k: &Kernel, vma: VmaId) -> Vec<u32> {
    let v = &k.vmas[vma.0 as usize];
    (0..v.pages.len() as u32).filter(|&i| v.pages[i as usize] != PageId::NIL).collect()
}

/// mm/filemap.c 6.1 `do_sync_mmap_readahead()`: a read fault on a missing page is a major
/// fault that reads around it, `ra_pages` (32) from `pgoff - ra_pages / 2`, the last quarter
/// asynchronous (`PG_readahead` at start + 24); the fault waited for I/O, so it is retried
/// (`VM_FAULT_RETRY`: pgfault counted twice) and the retry's `do_fault_around()` maps the
/// 64K-aligned window's up-to-date pages, skipping the readahead marker
/// (`next_uptodate_page()`).
#[test]
fn read_fault_reads_around_and_the_retry_maps_the_window_6_1() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 500, false).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 2, "the fault and its retry");
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgmajfault), 1);
    assert_eq!(resident(k, f), (484..516).collect::<Vec<_>>());
    assert!(k.pages[page_at(k, f, 508)].test(pg::READAHEAD));
    let want: Vec<u32> = (496..512).filter(|&i| i != 508).collect();
    assert_eq!(mapped_pages(k, vma), want);
    assert_eq!(k.vmstat.nr_mapped, 15);
    assert_eq!(k.memcgs.get(ct).nr_file_mapped, 15);
    // mmap_miss: one miss, then 15 pages mapped around (filemap_map_pages() counts each).
    assert_eq!(k.vmas[vma.0 as usize].file.as_ref().unwrap().mmap_miss, 0);
    // A page of the window is mapped already: no fault.
    k.handle_mm_fault_file(vma, 497, false).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 2);
    // The marker page is resident but unmapped: a minor fault that starts async readahead
    // (do_async_mmap_readahead()) of the next window.
    k.handle_mm_fault_file(vma, 508, false).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert!(resident(k, f).contains(&540), "the async window follows the read-around one");
    assert_invariants(k);
}

/// The page-cache hits and misses of accesses through a mapping (mm20, issue 20 N2), as a
/// `read()` of the page counts them: a major fault's page (mm/filemap.c 6.1 `filemap_fault()`)
/// is a miss, and so is the first access of each page read around for it
/// (`do_sync_mmap_readahead()`), whether fault-around mapped it (`filemap_map_pages()`) or a
/// minor fault finds it; a second access is a hit; a private copy's accesses are not page-cache
/// ones.
#[test]
fn mapped_accesses_count_page_cache_hits_and_misses_6_1() {
    let (mut s, _, _, vma) = mapped("linux-6.1", false, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 500, false).unwrap();
    assert_eq!((k.io.hits, k.io.misses), (0, 1), "the major fault's page");
    // 497 was mapped by fault-around, 508 (the readahead marker) is resident and unmapped:
    // both read for the fault, accessed for the first time now.
    k.handle_mm_fault_file(vma, 497, false).unwrap();
    k.handle_mm_fault_file(vma, 508, false).unwrap();
    assert_eq!((k.io.hits, k.io.misses), (0, 3));
    k.handle_mm_fault_file(vma, 497, false).unwrap();
    k.handle_mm_fault_file(vma, 508, false).unwrap();
    k.handle_mm_fault_file(vma, 500, false).unwrap();
    assert_eq!((k.io.hits, k.io.misses), (3, 3), "accessed before: hits");
    // A store to the private mapping copies page 499 (a read of the cached page: a miss, its
    // first access), then the copy's accesses are anonymous memory's.
    k.handle_mm_fault_file(vma, 499, true).unwrap();
    assert_eq!((k.io.hits, k.io.misses), (3, 4));
    k.handle_mm_fault_file(vma, 499, false).unwrap();
    assert_eq!((k.io.hits, k.io.misses), (3, 4));
    assert_invariants(k);
}

/// The order of the folio holding page `i` of `f`.
fn folio_order_at(k: &Kernel, f: InodeId, i: u32) -> u32 {
    let p = k.mappings[f.idx()].lookup(i).expect("resident");
    k.pages.folio_nr_pages(k.pages.page_folio(p)).trailing_zeros()
}

/// mm/filemap.c 6.16+ `do_sync_mmap_readahead()` (mainline, which 6.18 runs): read-around
/// sets `ra->order = 0` before `page_cache_ra_order()`, so on ext4's large folios (linux-6.18)
/// the window is read in order-0 folios whatever order the file's readahead had reached, and
/// the asynchronous window its marker starts is of order 2 (`page_cache_async_ra()`:
/// `ra->order += 2`), not of that order + 2.
#[test]
fn read_around_resets_the_readahead_order_6_18() {
    let (mut s, _, f, vma) = mapped("linux-6.18", true, false);
    let k = &mut s.kernel;
    assert!(k.mappings[f.idx()].max_order > 0, "ext4 regular files take large folios in 6.18");
    // As a sequential read() stream of the same open file leaves it.
    k.vmas[vma.0 as usize].file.as_mut().unwrap().ra.order = 6;
    k.handle_mm_fault_file(vma, 500, false).unwrap();
    assert_eq!(k.vmas[vma.0 as usize].file.as_ref().unwrap().ra.order, 0);
    assert_eq!(resident(k, f), (484..516).collect::<Vec<_>>());
    assert!((484..516).all(|i| folio_order_at(k, f, i) == 0));
    assert!(k.pages[page_at(k, f, 508)].test(pg::READAHEAD));
    // The marker: the next window, [516, 548), in order-2 folios (with the order left at 6 it
    // would be order 8, capped at ilog2(32) = 5: 528 would start a 16-page folio).
    k.handle_mm_fault_file(vma, 508, false).unwrap();
    assert_eq!(k.vmas[vma.0 as usize].file.as_ref().unwrap().ra.order, 2);
    assert!((516..548).all(|i| folio_order_at(k, f, i) == 2), "{:?}", (516..548).map(|i| folio_order_at(k, f, i)).collect::<Vec<_>>());
    assert_invariants(k);
}

/// mm/filemap.c 6.16+ `do_sync_mmap_readahead()` (3b61a3f08949, which 6.18 runs): a major
/// fault on a `VM_EXEC` mapping reads from the fault forward, `ra_pages` (32) at most and not
/// past the VMA's end, with no `PG_readahead` mark (`async_size = 0`), in order-0 folios
/// (`exec_folio_order()` is 0 on x86), even with `VM_RAND_READ`; 6.12 reads around the fault
/// as for any mapping. The mapping here is the file's pages [256, 512), as a library's text
/// segment maps part of its file.
#[test]
fn exec_fault_reads_forward_to_the_vma_end_6_18() {
    let mut s = sim(&scenario("linux-6.18"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let vma = s.kernel.do_mmap_file(f, 256, 256, ct, false, true);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 100, false).unwrap(); // file page 356
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert_eq!(resident(k, f), (356..388).collect::<Vec<_>>());
    assert!((356..388).all(|i| folio_order_at(k, f, i) == 0));
    assert!((356..388).all(|i| !k.pages[page_at(k, f, i)].test(pg::READAHEAD)), "async_size 0: no marker");
    // The page below the window was not read: a fault there is major again and its window runs
    // forward from it (355..387); page_cache_ra_unbounded() skips each page already cached and
    // goes on to the window's end, so of that window only page 355 is read.
    k.handle_mm_fault_file(vma, 99, false).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 2);
    assert_eq!(resident(k, f), (355..388).collect::<Vec<_>>());
    // Near the VMA's end the window stops at it (file page 512 stays out).
    k.handle_mm_fault_file(vma, 250, false).unwrap(); // file page 506
    assert_eq!(resident(k, f).iter().filter(|&&i| i >= 500).copied().collect::<Vec<_>>(), (506..512).collect::<Vec<_>>());
    // VM_RAND_READ does not turn the exec branch off.
    k.do_madvise(vma, 0, 256, crate::scenario::model::MAdvice::Random).unwrap();
    k.handle_mm_fault_file(vma, 10, false).unwrap(); // file page 266
    assert!((266..298).all(|i| k.mappings[f.idx()].lookup(i).is_some()));
    assert_invariants(k);

    // linux-6.12 (before 3b61a3f08949): read-around, centred on the fault, marker at start + 24.
    let mut s = sim(&scenario("linux-6.12"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let vma = s.kernel.do_mmap_file(f, 256, 256, ct, false, true);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 100, false).unwrap();
    assert_eq!(resident(k, f), (340..372).collect::<Vec<_>>());
    assert!(k.pages[page_at(k, f, 364)].test(pg::READAHEAD));
    k.do_madvise(vma, 0, 256, crate::scenario::model::MAdvice::Random).unwrap();
    k.handle_mm_fault_file(vma, 10, false).unwrap();
    assert!(k.mappings[f.idx()].lookup(266).is_some() && k.mappings[f.idx()].lookup(267).is_none(), "VM_RAND_READ: the page alone");
    assert_invariants(k);
}

/// mm/filemap.c `next_uptodate_folio()` and `do_async_mmap_readahead()`: `PG_readahead` is a
/// folio flag. Fault-around maps no page of a marked large folio, so a fault on any of its pages
/// reaches `filemap_fault()`, which starts the next window (`page_cache_async_ra()` with the
/// fault's `pgoff`: not the expected marker unless it is the folio's first page, so the
/// window starts at the first page missing after it).
#[test]
fn a_fault_inside_a_marked_large_folio_starts_readahead_6_18() {
    let (mut s, _, f, vma) = mapped("linux-6.18", true, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 500, false).unwrap(); // read-around [484, 516), marker 508
    k.handle_mm_fault_file(vma, 508, false).unwrap(); // the window [516, 548) in order-2 folios
    let head = page_at(k, f, 516);
    assert_eq!(folio_order_at(k, f, 516), 2);
    assert!(k.pages[head].test(pg::READAHEAD), "async_size = size: the marker is the window's first folio");
    assert!(!resident(k, f).contains(&548));
    // 518 is a tail page of the marked folio: fault-around leaves the folio unmapped and the
    // fault goes to filemap_fault().
    k.handle_mm_fault_file(vma, 518, false).unwrap();
    assert!(!k.pages[head].test(pg::READAHEAD));
    assert!(resident(k, f).contains(&548), "the next window, from the first page missing after 518");
    assert_ne!(k.vmas[vma.0 as usize].pages[518], PageId::NIL, "the fault maps its page");
    assert_invariants(k);
}

/// mm/filemap.c `do_sync_mmap_readahead()`: past `MMAP_LOTSAMISS` (100) more misses than
/// hits read-around stops and the fault reads its page alone.
#[test]
fn mmap_miss_above_lotsamiss_stops_read_around() {
    let (mut s, _, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.vmas[vma.0 as usize].file.as_mut().unwrap().mmap_miss = crate::filemap::MMAP_LOTSAMISS;
    k.handle_mm_fault_file(vma, 300, false).unwrap();
    assert_eq!(resident(k, f), vec![300]);
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert_invariants(k);
}

/// mm/filemap.c `do_async_mmap_readahead()`: a fault that finds a page takes one off
/// `mmap_miss`; from linux-6.18 (e338d8353154 "mm: readahead: improve mmap_miss heuristic for
/// concurrent faults") only when its folio is not locked, as it is while its read is in flight
/// (another fault's read-around: "we're likely racing against another fault"); linux-6.1
/// takes it off either way.
#[test]
fn mmap_miss_is_left_alone_for_a_locked_folio_6_18() {
    for (profile, skips) in [("linux-6.1", false), ("linux-6.18", true)] {
        let (mut s, _, f, vma) = mapped(profile, true, false);
        let k = &mut s.kernel;
        let miss = |k: &Kernel| k.vmas[vma.0 as usize].file.as_ref().unwrap().mmap_miss;
        k.vmas[vma.0 as usize].file.as_mut().unwrap().mmap_miss = 10;
        // another fault's read-around of 500, submitted, not yet read: its pages are locked
        k.do_sync_mmap_readahead(vma, 500);
        assert_eq!(miss(k), 11, "{profile}: the miss");
        let p = page_at(k, f, 501);
        assert!(k.folio_test_locked(p), "{profile}: 501 is under its read");
        k.do_async_mmap_readahead(vma, p, 501);
        assert_eq!(miss(k), if skips { 11 } else { 10 }, "{profile}: a fault on the locked 501");
        // once the read is done, a fault on an unlocked page counts as a hit on every profile
        let t = k.now + 1_000_000_000;
        k.advance_clock(t);
        let q = page_at(k, f, 502);
        assert!(!k.folio_test_locked(q), "{profile}: 502 read");
        k.do_async_mmap_readahead(vma, q, 502);
        assert_eq!(miss(k), if skips { 10 } else { 9 }, "{profile}: a fault on the unlocked 502");
        assert_invariants(k);
    }
}

/// mm/filemap.c `filemap_map_pages()`: each up-to-date page fault-around meets takes one off
/// `mmap_miss`; from v6.10 (5c46d5319bde "mm/filemap: don't decrease mmap_miss when folio has
/// workingset flag", `filemap_map_folio_range()`/`filemap_map_order0_folio()`) not when its
/// folio is `PG_workingset` (recently evicted and refaulted), so that a file thrashing in its
/// memcg piles misses up past `MMAP_LOTSAMISS` and read-around stops. linux-6.6 counts them.
#[test]
fn fault_around_does_not_count_workingset_pages_as_mmap_hits_6_10() {
    for (profile, skips) in [("linux-6.6", false), ("linux-6.12", true), ("linux-6.18", true)] {
        let (mut s, _, f, vma) = mapped(profile, true, false);
        let k = &mut s.kernel;
        let miss = |k: &Kernel| k.vmas[vma.0 as usize].file.as_ref().unwrap().mmap_miss;
        k.vmas[vma.0 as usize].file.as_mut().unwrap().mmap_miss = 50;
        k.do_sync_mmap_readahead(vma, 500);
        assert_eq!(miss(k), 51, "{profile}: the miss");
        let t = k.now + 1_000_000_000;
        k.advance_clock(t);
        // pages 496..504 refaulted: their folios carry PG_workingset
        for i in 496..504 {
            let folio = k.pages.page_folio(page_at(k, f, i));
            k.pages[folio].flags |= pg::WORKINGSET;
        }
        let (mut met, mut ws) = (0, 0);
        for i in 496..512 {
            let folio = k.pages.page_folio(page_at(k, f, i));
            if k.pages[folio].test(pg::READAHEAD) {
                continue;
            }
            met += 1;
            ws += k.pages[folio].test(pg::WORKINGSET) as u32;
        }
        assert!(ws >= 8 && met > ws, "{profile}: {met} pages met, {ws} in workingset folios");
        k.filemap_map_pages(vma, 496, 512);
        let want = if skips { 51 - (met - ws) } else { 51 - met };
        assert_eq!(miss(k), want, "{profile}: {met} pages met, {ws} in workingset folios");
        assert_eq!(mapped_pages(k, vma).len() as u32, met, "{profile}: every page met is mapped");
        assert_invariants(k);
    }
}

/// mm/madvise.c `madvise_behavior()` + mm/filemap.c: `MADV_RANDOM` (`VM_RAND_READ`) turns
/// mmap readahead off (one page per major fault); `MADV_SEQUENTIAL` (`VM_SEQ_READ`) reads a
/// sequential window from the fault (`page_cache_sync_ra()`).
#[test]
fn vm_rand_read_and_vm_seq_read() {
    let (mut s, _, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.do_madvise(vma, 0, 1024, crate::scenario::model::MAdvice::Random).unwrap();
    k.handle_mm_fault_file(vma, 700, false).unwrap();
    assert_eq!(resident(k, f), vec![700]);
    k.do_madvise(vma, 0, 1024, crate::scenario::model::MAdvice::Sequential).unwrap();
    k.handle_mm_fault_file(vma, 100, false).unwrap();
    let r = resident(k, f);
    assert!(r.contains(&100) && r.contains(&131) && !r.contains(&99), "a window starting at the fault: {r:?}");
    assert_invariants(k);
}

/// mm/memory.c `do_fault_around()` appeared in 3.15 (8c6e50b0290c): linux-3.13 maps one page
/// per fault.
#[test]
fn no_fault_around_before_3_15() {
    let (mut s, _, _, vma) = mapped("linux-3.13", true, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 500, false).unwrap();
    assert_eq!(mapped_pages(k, vma), vec![500]);
    assert_invariants(k);
}

/// mm/vmscan.c `folio_check_references()` (6.1; `page_check_references()` since 2.6.34,
/// 645747462435 "vmscan: detect mapped file pages used only once"): one young PTE keeps a
/// page for another trip; a second reference (PG_referenced, or another young PTE), or a
/// young PTE of a `VM_EXEC` mapping (8cab4754d24a, 2.6.31), activates it; no young PTE
/// reclaims it whatever PG_referenced says.
#[test]
fn folio_references_rules() {
    assert_eq!(folio_references(1, false, false), FolioRef::Keep);
    assert_eq!(folio_references(1, true, false), FolioRef::Activate);
    assert_eq!(folio_references(2, false, false), FolioRef::Activate);
    assert_eq!(folio_references(1, false, true), FolioRef::Activate);
    assert_eq!(folio_references(0, true, false), FolioRef::Reclaim);
    assert_eq!(folio_references(0, false, true), FolioRef::Reclaim);
}

/// mm/rmap.c `folio_referenced()` through the VMA's accessed bits: the first check of a page
/// mapped by its fault keeps it and sets PG_referenced; used again, it is activated; left
/// alone, the next check finds its PTE old and reclaims it.
#[test]
fn mapped_page_needs_two_references_to_activate() {
    let (mut s, _, f, vma) = mapped("linux-6.1", false, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 0, false).unwrap();
    let p = page_at(k, f, 0);
    assert_eq!(k.folio_check_references(p), FolioRef::Keep);
    assert!(k.pages[p].test(pg::REFERENCED));
    assert!(!k.vmas[vma.0 as usize].file.as_ref().unwrap().young(0), "folio_referenced() clears the young bit");
    k.handle_mm_fault_file(vma, 0, false).unwrap(); // the CPU sets it again
    assert_eq!(k.folio_check_references(p), FolioRef::Activate);
    assert_eq!(k.folio_check_references(p), FolioRef::Reclaim);
    assert_invariants(k);
}

/// `VM_EXEC` file pages are activated after their first use (folio_check_references()).
#[test]
fn exec_mapping_activates_at_first_use() {
    let (mut s, _, f, vma) = mapped("linux-6.1", false, true);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 0, false).unwrap();
    let p = page_at(k, f, 0);
    assert_eq!(k.folio_check_references(p), FolioRef::Activate);
}

/// mm/vmscan.c 6.1 `shrink_active_list()`: "Identify referenced, file-backed active folios
/// and give them one more trip around the active list" — `if ((vm_flags & VM_EXEC) &&
/// folio_is_file_lru(folio))` a folio a `VM_EXEC` VMA maps with a young PTE goes back to the
/// active list (`nr_rotated`) where any other is deactivated. Here 768 pages of `/f` mapped
/// `PROT_EXEC`, active and just used, over 256 unmapped pages of the same file on the inactive
/// list (inactive_is_low(): 256 < 768): limit reclaim of 32 pages scans part of the active list
/// once (pgrefill) and every text page it met goes back active.
#[test]
fn shrink_active_list_keeps_referenced_exec_pages_active_6_1() {
    let mut s = sim(&scenario("linux-6.1"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    let text = k.do_mmap_file(f, 0, 768, ct, false, true);
    let data = k.do_mmap_file(f, 768, 256, ct, false, false);
    for i in 0..768 {
        k.handle_mm_fault_file(text, i, false).unwrap();
    }
    for i in 0..256 {
        k.handle_mm_fault_file(data, i, false).unwrap();
    }
    k.do_munmap(data);
    k.lru_add_drain();
    // The text pages active (as folio_check_references() left them after their first use) and
    // young again (the program ran them since).
    for i in 0..768u32 {
        let p = page_at(k, f, i);
        let lv = k.folio_lruvec(p);
        k.lruvecs[lv].del(&mut k.pages, &mut k.lru_stats, p);
        k.pages[p].flags |= pg::ACTIVE;
        k.lruvecs[lv].add(&mut k.pages, &mut k.lru_stats, p, LruList::ActiveFile);
        k.vmas[text.0 as usize].file.as_mut().unwrap().set_young(i, true);
    }
    assert_invariants(k);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 768);
    k.try_to_free_mem_cgroup_pages(ct, 32);
    assert!(k.memcgs.events(ct, MemcgEvent::Pgrefill) > 0, "the active list was scanned");
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgdeactivate), 0, "no VM_EXEC page deactivated");
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 768, "every referenced text page rotated back");
    assert!((0..768).all(|i| k.pages[page_at(k, f, i)].test(pg::ACTIVE)));
    assert_invariants(k);
}

/// mm/memory.c `do_cow_fault()` / `wp_page_copy()`: a store to a private file mapping copies
/// the page into an anonymous page charged to the task; the file page stays cached, unmapped
/// in that VMA.
#[test]
fn private_write_copies_to_an_anonymous_page() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", false, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 10, false).unwrap();
    let file_page = page_at(k, f, 10);
    assert_eq!(k.pages[file_page].mapcount, 1);
    let faults = k.vmstat.get(VmEvent::Pgfault);
    k.handle_mm_fault_file(vma, 10, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), faults + 1, "do_wp_page()");
    let copy = k.vmas[vma.0 as usize].pages[10];
    assert!(k.pages[copy].test(pg::ANON) && copy != file_page);
    assert_eq!(k.pages[file_page].mapcount, 0);
    assert_eq!(k.memcgs.get(ct).nr_anon, 1);
    // A store to a page never read: do_cow_fault() reads it and copies it.
    k.handle_mm_fault_file(vma, 900, true).unwrap();
    assert!(k.pages[k.vmas[vma.0 as usize].pages[900]].test(pg::ANON));
    assert!(k.pages[page_at(k, f, 900)].mapcount == 0);
    assert_eq!(k.memcgs.get(ct).nr_anon, 2);
    assert_invariants(k);
    k.do_munmap(vma);
    assert_eq!(k.memcgs.get(ct).nr_anon, 0);
    assert_eq!(k.vmstat.nr_mapped, 0);
    assert_invariants(k);
}

/// mm/memory.c `do_shared_fault()` / `wp_page_shared()`: a store to a shared mapping dirties
/// the page (`page_mkwrite`); once written back (`page_mkclean()` write-protects it) the next
/// store faults again.
#[test]
fn shared_write_dirties_and_faults_again_after_writeback() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 3, true).unwrap();
    let p = page_at(k, f, 3);
    assert!(k.pages[p].test(pg::DIRTY));
    assert_eq!(k.memcgs.get(ct).nr_dirty, 1);
    let faults = k.vmstat.get(VmEvent::Pgfault);
    k.handle_mm_fault_file(vma, 3, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), faults, "a dirty page's PTE is writable");
    k.msync(vma);
    assert!(!k.pages[p].test(pg::DIRTY));
    k.handle_mm_fault_file(vma, 3, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), faults + 1);
    assert!(k.pages[p].test(pg::DIRTY));
    assert_invariants(k);
}

/// mm/mlock.c (5.18+ `mlock_folio()`/`munlock_folio()`): mlock faults the mapping in and
/// moves its pages to the unevictable list; munlock puts them back on the inactive list.
#[test]
fn mlock_moves_pages_to_the_unevictable_list() {
    let (mut s, ct, _, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.do_mlock(vma, true).unwrap();
    // The pages the populate read last wait in the CPU's lru_add batch (mlocked: mlock_folio()
    // could not take them off a list); lru_add_fn() puts them on the unevictable list.
    assert_invariants(k);
    let waiting = k.lru_add_fbatches[0].nr as u64;
    assert!(waiting > 0);
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 1024 - waiting);
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 1024);
    assert_invariants(k);
    k.do_mlock(vma, false).unwrap();
    assert_eq!(lru_size(k, ct, LruList::Unevictable), 0);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 1024);
    assert_invariants(k);
}

/// mm/madvise.c: `MADV_COLD` and `MADV_PAGEOUT` are 5.4+ (EINVAL before); PAGEOUT unmaps and
/// reclaims the clean pages only this VMA maps.
#[test]
fn madv_pageout_5_4_plus() {
    let (mut s, _, _, vma) = mapped("linux-5.0", true, false);
    assert_eq!(s.kernel.do_madvise(vma, 0, 16, crate::scenario::model::MAdvice::PageOut), Err(crate::madvise::MadviseError::Inval));
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    for i in 0..16 {
        k.handle_mm_fault_file(vma, i, false).unwrap();
    }
    let before = k.mappings[f.idx()].nrpages;
    k.do_madvise(vma, 0, 16, crate::scenario::model::MAdvice::PageOut).unwrap();
    assert_eq!(k.mappings[f.idx()].nrpages, before - 16);
    assert!(mapped_pages(k, vma).iter().all(|&i| i >= 16));
    assert_eq!(k.memcgs.get(ct).nr_file_mapped, mapped_pages(k, vma).len() as u64);
    assert_invariants(k);
}

/// mm/madvise.c 6.1 `madvise_cold_or_pageout_pte_range()` -> mm/vmscan.c 6.1
/// `reclaim_pages()` -> `reclaim_folio_list()` -> `shrink_folio_list(..., ignore_references =
/// false)`: a dirty file page is unmapped (`try_to_unmap()` before the dirty test), then, not
/// being kswapd's ("folio_is_file_lru(folio) && !current_is_kswapd()"), marked `PG_reclaim` and
/// activated (`activate_locked`, PGACTIVATE); a page under writeback is marked and activated
/// without being unmapped (case 2); a clean page is evicted, and no PGSTEAL is counted.
#[test]
fn madv_pageout_activates_dirty_and_writeback_file_pages_6_1() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    for i in 0..16 {
        k.handle_mm_fault_file(vma, i, i < 4).unwrap();
    }
    k.lru_add_drain();
    let wb = page_at(k, f, 4);
    k.pages[wb].flags |= pg::WRITEBACK;
    let before = k.mappings[f.idx()].nrpages;
    k.do_madvise(vma, 0, 16, crate::scenario::model::MAdvice::PageOut).unwrap();
    for i in 0..4 {
        let p = page_at(k, f, i);
        assert!(k.pages[p].test(pg::DIRTY) && k.pages[p].test(pg::RECLAIM) && k.pages[p].test(pg::ACTIVE), "dirty page {i}");
        assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
        assert_eq!(k.pages[p].mapcount, 0, "unmapped before the dirty test");
    }
    assert!(k.pages[wb].test(pg::RECLAIM) && k.pages[wb].test(pg::ACTIVE));
    assert_eq!(k.pages[wb].mapcount, 1, "the writeback test comes before try_to_unmap()");
    assert_eq!(k.mappings[f.idx()].nrpages, before - 11, "the 11 clean pages evicted");
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 5);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 5);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgsteal), 0, "reclaim_pages() counts no PGSTEAL");
    k.pages[wb].flags &= !pg::WRITEBACK;
    assert_invariants(k);
}

/// mm/vmscan.c 6.1 `reclaim_pages()` -> `reclaim_folio_list()`: its scan_control has no
/// `target_mem_cgroup`, so `__remove_mapping(.., sc->target_mem_cgroup)` ->
/// `workingset_eviction(folio, NULL)` -> `mem_cgroup_lruvec(NULL)` takes root's lruvec: a clean
/// file page `MADV_PAGEOUT` evicts from a child memcg leaves a shadow naming root, and ages
/// root's lruvec, not the child's (review48 M5).
#[test]
fn madv_pageout_shadows_name_the_root_memcg_6_1() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    for i in 0..16 {
        k.handle_mm_fault_file(vma, i, false).unwrap();
    }
    k.lru_add_drain();
    let child_age = k.lruvecs[k.lruvec_idx(ct, 0)].nonresident_age;
    let root_age = k.lruvecs[k.lruvec_idx(MemcgId::ROOT, 0)].nonresident_age;
    k.do_madvise(vma, 0, 16, crate::scenario::model::MAdvice::PageOut).unwrap();
    let m = &k.mappings[f.idx()];
    let shadows: Vec<u64> = (0..16).filter_map(|i| m.slot(i).as_shadow()).collect();
    assert_eq!(shadows.len(), 16, "every clean page evicted with a shadow");
    assert!(shadows.iter().all(|&sh| crate::workingset::unpack_shadow(sh).0 == MemcgId::ROOT), "the shadows name root");
    assert_eq!(k.lruvecs[k.lruvec_idx(ct, 0)].nonresident_age, child_age, "the child's lruvec is not aged");
    assert_eq!(k.lruvecs[k.lruvec_idx(MemcgId::ROOT, 0)].nonresident_age, root_age + 16, "root's is");
    assert_invariants(k);
}

/// mm/madvise.c 6.1 `madvise_cold_or_pageout_pte_range()` on an anonymous VMA (`can_do_pageout()`
/// and madvise_cold() take anonymous VMAs): `MADV_COLD` clears the young PTEs and
/// `deactivate_page()` -> mm/swap.c 6.1 `lru_deactivate_fn()` moves the active anonymous pages to
/// the inactive anonymous list, counting PGDEACTIVATE; a page already inactive is left
/// (`deactivate_page()` takes active folios only). Before 5.4 the advice is EINVAL.
#[test]
fn madv_cold_deactivates_anonymous_pages_6_1() {
    let (mut s, ct, _, _) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(32, ct);
    for i in 0..32 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    k.lru_add_drain();
    for i in 0..32 {
        let p = k.vmas[vma.0 as usize].pages[i];
        let lv = k.folio_lruvec(p);
        k.lruvecs[lv].del(&mut k.pages, &mut k.lru_stats, p);
        k.pages[p].flags |= pg::ACTIVE;
        k.lruvecs[lv].add(&mut k.pages, &mut k.lru_stats, p, LruList::ActiveAnon);
    }
    // Page 0 left inactive.
    let shared = k.vmas[vma.0 as usize].pages[0];
    let lv = k.folio_lruvec(shared);
    k.lruvecs[lv].del(&mut k.pages, &mut k.lru_stats, shared);
    k.pages[shared].flags &= !pg::ACTIVE;
    k.lruvecs[lv].add(&mut k.pages, &mut k.lru_stats, shared, LruList::InactiveAnon);
    assert_invariants(k);
    k.do_madvise(vma, 0, 32, crate::scenario::model::MAdvice::Cold).unwrap();
    assert_eq!(lru_size(k, ct, LruList::InactiveAnon), 32);
    assert_eq!(lru_size(k, ct, LruList::ActiveAnon), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgdeactivate), 31);
    assert_eq!(k.vmstat.get(VmEvent::Pgdeactivate), 31);
    assert!((1..32).all(|i| !k.vmas[vma.0 as usize].test_and_clear_young(i)), "young PTEs cleared");
    assert_invariants(k);
    let (mut s, ct, _, _) = mapped("linux-5.0", true, false);
    let vma = s.kernel.do_mmap_anon(4, ct);
    assert_eq!(s.kernel.do_madvise(vma, 0, 4, crate::scenario::model::MAdvice::Cold), Err(crate::madvise::MadviseError::Inval));
}

/// mm/memory.c `zap_pte_range()`: unmapping a page whose PTE is young marks it accessed
/// (unless the VMA is `VM_SEQ_READ`).
#[test]
fn munmap_marks_young_pages_accessed() {
    let (mut s, _, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    k.handle_mm_fault_file(vma, 0, false).unwrap();
    let p = page_at(k, f, 0);
    assert!(!k.pages[p].test(pg::REFERENCED), "faults do not mark pages accessed");
    k.do_munmap(vma);
    assert!(k.pages[p].test(pg::REFERENCED));
    assert_eq!(k.pages[p].mapcount, 0);
    assert_invariants(k);
}

/// mm/memory.c: before 6.4 `handle_mm_fault()` counts pgfault on entry, so a fault retried
/// after its I/O counts twice; from 6.4 (53156443a303) `mm_account_fault()` counts it once.
#[test]
fn retried_fault_counted_twice_before_6_4() {
    for (p, want) in [("linux-6.1", 2), ("linux-6.6", 1)] {
        let (mut s, _, _, vma) = mapped(p, true, false);
        s.kernel.handle_mm_fault_file(vma, 500, false).unwrap();
        assert_eq!(s.kernel.vmstat.get(VmEvent::Pgfault), want, "{p}");
        assert_eq!(s.kernel.vmstat.get(VmEvent::Pgmajfault), 1, "{p}");
    }
}

/// mm/filemap.c 6.1 `filemap_fault()`: a fault that finds its page is retried only when it
/// dropped mmap_lock (`fpin`): to start async readahead at a `PG_readahead` marker
/// (`do_async_mmap_readahead()`) or to wait for a locked page (`lock_folio_maybe_drop_mmap()`).
/// A store (`do_shared_fault()`: no fault-around) to a resident, unlocked, unmarked page of a
/// shared mapping is one fault, counted once even before 6.4; the fault's own reference on the
/// page (the engine's `read_pinned`) is not its lock.
#[test]
fn store_to_a_resident_unlocked_page_is_not_retried_6_1() {
    let (mut s, _, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    // A store to a missing page: read around 484..516, marker at 508; retried.
    k.handle_mm_fault_file(vma, 500, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 2, "the major fault and its retry");
    assert_eq!(mapped_pages(k, vma), vec![500], "a write fault maps no neighbours");
    let p = page_at(k, f, 490);
    assert!(!k.folio_test_locked(p), "the window's read has completed");
    // A store to page 490 of the window: resident, unlocked, unmarked: one fault.
    k.handle_mm_fault_file(vma, 490, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 3, "one fault, no retry");
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), 1);
    assert!(k.pages[p].test(pg::DIRTY));
    // A store to the marker page starts the async window and is retried.
    k.handle_mm_fault_file(vma, 508, true).unwrap();
    assert_eq!(k.vmstat.get(VmEvent::Pgfault), 5, "async readahead dropped mmap_lock: retried");
    assert!(resident(k, f).contains(&540), "the async window follows the read-around one");
    assert_invariants(k);
}

/// The refault-driven deactivation of `prepare_scan_count()` is 5.9+ (b91ac374346b).
#[test]
fn deactivate_on_refault_per_era() {
    for (p, on) in [("linux-5.0", false), ("linux-4.4", false), ("linux-5.17", true), ("linux-6.1", true), ("linux-6.6", true)] {
        assert_eq!(crate::profile::profile(p).unwrap().deactivate_on_refault, on, "{p}");
    }
}

/// `Vma::mkyoung_range()` sets, a word at a time, exactly the accessed bits that one
/// `mkyoung()` per page (the CPU setting each PTE's young bit, as `handle_pte_fault()`'s
/// `pte_mkyoung()` does) would set, at every alignment, and nothing past the VMA's last word.
#[test]
fn mkyoung_range_sets_the_bits_one_mkyoung_per_page_sets() {
    use crate::memory::Vma;
    let blank = || Vma { pages: vec![], memcg: MemcgId::ROOT, live: true, mm: 0, locked: false, nr_resident: 0, swap: vec![], ptes: vec![], nr_ptes: 0, young: vec![0; 4], file: None, fill: crate::zswap::AnonFill::Byte, swap_ra: (0, 0, 0), wrprotect: vec![] };
    for (from, to) in [(0, 0), (0, 1), (3, 64), (0, 64), (63, 65), (5, 200), (64, 128), (0, 256), (130, 300), (250, 400)] {
        let (mut a, mut b) = (blank(), blank());
        a.mkyoung_range(from, to);
        for i in from..to {
            b.mkyoung(i);
        }
        assert_eq!(a.young, b.young, "{from}..{to}");
        assert_eq!(a.young.len(), 4);
    }
}

/// mm/vmscan.c 6.1 `shrink_folio_list()`: a mapped folio that reclaim decides to reclaim is
/// unmapped (`try_to_unmap()`) BEFORE the dirty test, so a dirty page of a shared mapping
/// leaves the page tables even though reclaim then keeps it for writeback (`activate_locked`);
/// the program's next store to it faults. (3.13's `shrink_page_list()` has the same order.)
#[test]
fn reclaim_unmaps_a_dirty_mapped_page_before_keeping_it_6_1() {
    let (mut s, ct, f, vma) = mapped("linux-6.1", true, false);
    let k = &mut s.kernel;
    for i in 0..1024 {
        k.handle_mm_fault_file(vma, i, true).unwrap();
    }
    k.lru_add_drain();
    for _ in 0..8 {
        k.try_to_free_mem_cgroup_pages(ct, 32);
    }
    let dirty_unmapped = (0..1024u32)
        .filter_map(|i| k.mappings[f.idx()].lookup(i).map(|_| page_at(k, f, i)))
        .filter(|&p| (k.pages[p].test(pg::DIRTY) || k.pages[p].test(pg::WRITEBACK)) && k.pages[p].mapcount == 0)
        .count();
    assert!(dirty_unmapped > 0, "reclaim unmapped no dirty page it met");
    assert_invariants(k);
}
