//! tmpfs huge pages (shmem.rs; mm/shmem.c of 6.1): the mount's `huge=`, the global
//! `shmem_enabled`, `shmem_is_huge()` and `shmem_get_folio_gfp()`'s PMD-order attempt with its
//! fallbacks, and what memory.stat, /proc/vmstat and /proc/meminfo count.

use super::*;
use crate::shmem::{ShmemHuge, HPAGE_PMD_NR};
use crate::vmstat::VmEvent;

fn tmpfs(profile: &str, huge: &str, extra: &str) -> Simulation {
    let huge = if huge.is_empty() { String::new() } else { format!("huge = \"{huge}\"\n") };
    sim(&format!(
        "[scenario]\nname = \"shmem\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"{profile}\"\n{extra}\n[mounts.\"/t\"]\nfs = \"tmpfs\"\n{huge}[files.\"/t/f\"]\nsize = \"0\"\n[cgroups.A]\n\"memory.max\" = \"256M\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
    ))
}

fn write(s: &mut Simulation, pos: u64, len: u64) {
    let f = inode(s, "/t/f");
    let a = memcg(s, "A");
    let mut p = pos;
    while p < pos + len {
        let n = (1u64 << 20).min(pos + len - p);
        s.kernel.generic_perform_write(f, p, n, a).unwrap();
        p += n;
    }
}

/// `shmem_is_huge()` (6.1 `__shmem_is_huge()`, no VMA): `always` grants; `within_size` grants
/// when the huge page holding the index ends within i_size, rounded up to a page; `advise` and
/// `never` refuse a `write()`; `shmem_enabled`'s `deny` refuses and `force` grants over any mount.
#[test]
fn shmem_is_huge_follows_the_mount_option_and_shmem_enabled() {
    let s = tmpfs("linux-6.1", "always", "");
    let f = inode(&s, "/t/f");
    assert!(s.kernel.shmem_is_huge(f, 0) && s.kernel.shmem_is_huge(f, 10_000));
    for h in ["never", "advise"] {
        let s = tmpfs("linux-6.1", h, "");
        assert!(!s.kernel.shmem_is_huge(f, 0), "{h}: a write() has no VM_HUGEPAGE VMA");
    }
    let mut s = tmpfs("linux-6.1", "within_size", "");
    assert!(!s.kernel.shmem_is_huge(f, 0), "within_size, i_size 0");
    // i_size 2M - 1 byte rounds up to 512 pages: the first huge page fits, the second does not
    s.kernel.inodes[f.idx()].size = (2 << 20) - 1;
    assert!(s.kernel.shmem_is_huge(f, 0) && s.kernel.shmem_is_huge(f, 511));
    assert!(!s.kernel.shmem_is_huge(f, 512));
    s.kernel.inodes[f.idx()].size = 4 << 20;
    assert!(s.kernel.shmem_is_huge(f, 1023));
    let s = tmpfs("linux-6.1", "always", "shmem_enabled = \"deny\"");
    assert!(!s.kernel.shmem_is_huge(f, 0), "deny over huge=always");
    let s = tmpfs("linux-6.1", "", "shmem_enabled = \"force\"");
    assert!(s.kernel.shmem_is_huge(f, 0), "force over the default huge=never");
    let s = tmpfs("linux-6.1", "", "shmem_enabled = \"always\"");
    assert!(!s.kernel.shmem_is_huge(f, 0), "shmem_enabled's other values are shm_mnt's, not a tmpfs mount's");
}

/// `shmem_get_folio_gfp()` (6.1) with huge=always: each 2 MiB of a written file is one
/// PMD-order folio (`shmem_alloc_hugefolio()`, `shmem_add_to_page_cache()`): swap-backed, one
/// entry of 512 pages on the anon LRU, in memory.stat `file`, `shmem` and `shmem_thp`,
/// `THP_FILE_ALLOC` once a folio, `NR_SHMEM_THPS` (meminfo ShmemHugePages); truncation to 0
/// (`shmem_undo_range()`, `truncate_inode_pages()` here) frees them whole.
#[test]
fn a_huge_tmpfs_file_is_written_in_pmd_folios_and_truncated_whole() {
    let mut s = tmpfs("linux-6.1", "always", "");
    write(&mut s, 0, 5 << 20);
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    let k = &s.kernel;
    assert_eq!(k.shmem_stat.thp_file_alloc, 3, "5 MiB: three huge pages (the third covers 4-6 MiB)");
    assert_eq!(k.shmem_stat.nr_shmem_thps, 3 * HPAGE_PMD_NR as u64);
    let m = k.memcgs.get(a);
    assert_eq!((m.nr_file, m.nr_shmem, m.nr_shmem_thps), (1536, 1536, 1536));
    let head = page_at(k, f, 0);
    assert!(k.pages[head].test(pg::HEAD) && k.pages[head].test(pg::SWAPBACKED));
    assert_eq!(k.pages.folio_nr_pages(head), 512);
    assert_eq!(k.pages.page_folio(page_at(k, f, 700)), page_at(k, f, 512));
    assert!(matches!(lru_of(k, head), Some(LruList::ActiveAnon) | Some(LruList::InactiveAnon)), "swap-backed: the anon lists");
    assert_invariants(k);
    s.kernel.inodes[f.idx()].size = 0;
    assert_eq!(s.kernel.truncate_inode_pages(f), 1536);
    let k = &s.kernel;
    let m = k.memcgs.get(a);
    assert_eq!((m.nr_file, m.nr_shmem, m.nr_shmem_thps, k.shmem_stat.nr_shmem_thps), (0, 0, 0, 0));
    assert_invariants(k);
}

/// huge=within_size: an appending write never takes a huge page (shmem_write_begin() asks
/// before shmem_write_end() moves i_size), a write below an i_size set ahead does, except
/// where the huge page's range already holds a page (`shmem_alloc_hugefolio()`'s
/// `xa_find(XA_PRESENT)`: order 0, no fallback counted). As the QEMU 6.1 recordings show
/// (scenarios/validation/qemu61-tmpfs-huge-within.toml: 63 huge pages of 64, 0 after O_TRUNC).
#[test]
fn within_size_takes_huge_pages_only_below_i_size() {
    let mut s = tmpfs("linux-6.1", "within_size", "");
    write(&mut s, 0, 4 << 20);
    assert_eq!(s.kernel.shmem_stat.thp_file_alloc, 0, "appending: never within i_size");
    let mut s = tmpfs("linux-6.1", "within_size", "");
    write(&mut s, (8 << 20) - 4096, 4096);
    assert_eq!(s.kernel.shmem_stat.thp_file_alloc, 0, "i_size 0 when the last page is asked for");
    write(&mut s, 0, 8 << 20);
    let k = &s.kernel;
    assert_eq!((k.shmem_stat.thp_file_alloc, k.shmem_stat.thp_file_fallback), (3, 0), "the last 2 MiB holds a page: order 0 without a fallback");
    assert_eq!(k.memcgs.get(memcg(&s, "A")).nr_shmem_thps, 3 * 512);
    assert_invariants(k);
}

/// A huge page whose charge fails falls back to order 0 (6.1 `shmem_add_to_page_cache()`:
/// `THP_FILE_FALLBACK` and `THP_FILE_FALLBACK_CHARGE`; `mem_cgroup_oom()` skips an order above
/// `PAGE_ALLOC_COSTLY_ORDER`, so nothing is killed).
#[test]
fn a_failed_huge_charge_falls_back_to_order_0() {
    let mut s = tmpfs("linux-6.1", "always", "");
    let a = memcg(&s, "A");
    s.kernel.memcgs.memcgs[a.idx()].counter.max = 256; // 1 MiB
    write(&mut s, 0, 512 << 10);
    let k = &s.kernel;
    // the first page falls back; the range then holds it, and xa_find() refuses the other 127
    // huge attempts before any allocation, without counting them
    assert_eq!((k.shmem_stat.thp_file_alloc, k.shmem_stat.thp_file_fallback, k.shmem_stat.thp_file_fallback_charge), (0, 1, 1));
    assert_eq!((k.memcgs.get(a).nr_shmem, k.memcgs.get(a).nr_shmem_thps), (128, 0));
    assert_eq!(k.vmstat.events[crate::vmstat::VmEvent::OomKill as usize], 0);
    assert_invariants(k);
}

/// review48 L4: a write whose order-0 charge slept and ended the task's quantum resumes at that
/// page (sched.rs `Resumed`); 6.1 `shmem_get_folio_gfp()` sleeps inside that charge, past its
/// huge attempt (`alloc_nohuge`), so the resumed call makes no second attempt at its first page
/// and counts no second `THP_FILE_FALLBACK`; its later pages ask as a fresh call would.
#[test]
fn a_resumed_write_makes_no_second_huge_attempt_at_its_page_6_1() {
    use crate::sched::Resumed;
    let mut s = tmpfs("linux-6.1", "always", "");
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    let counts = |k: &crate::kernel::Kernel| (k.shmem_stat.thp_file_alloc, k.shmem_stat.thp_file_fallback, k.shmem_stat.thp_file_fallback_charge);
    s.kernel.memcgs.memcgs[a.idx()].counter.max = 256; // 1 MiB: a huge charge fails
    // the call before the sleep made the attempt (one fallback); the resumed one adds none
    s.kernel.resched.resumed = Resumed::ALL;
    assert_eq!(s.kernel.generic_perform_write(f, 0, PAGE_SIZE, a), Ok(PAGE_SIZE));
    assert_eq!(counts(&s.kernel), (0, 0, 0), "the resumed page: no second huge attempt");
    assert_eq!(s.kernel.pages.folio_nr_pages(page_at(&s.kernel, f, 0)), 1);
    // a fresh call at an empty huge range makes its attempt
    write(&mut s, 600 * PAGE_SIZE, PAGE_SIZE);
    assert_eq!(counts(&s.kernel), (0, 1, 1), "a fresh call: the attempt and its fallback");
    // a resumed call's later pages ask as before: 2047 (empty range 1536..2047) order 0, 2048 huge
    s.kernel.memcgs.memcgs[a.idx()].counter.max = 65536;
    s.kernel.resched.resumed = Resumed::ALL;
    assert_eq!(s.kernel.generic_perform_write(f, 2047 * PAGE_SIZE, 2 * PAGE_SIZE, a), Ok(2 * PAGE_SIZE));
    assert_eq!(counts(&s.kernel), (1, 1, 1));
    let k = &s.kernel;
    assert_eq!((k.pages.folio_nr_pages(page_at(k, f, 2047)), k.pages.folio_nr_pages(k.pages.page_folio(page_at(k, f, 2048)))), (1, 512));
    assert_invariants(k);
}

/// review48 L5: 6.1 `shmem_add_to_page_cache()` charges the huge folio, then stores it with
/// `xas_nomem()` allocating the tree's nodes (`__GFP_ACCOUNT`: charged to the memcg); a
/// failure there returns the xas error with no event (only the charge's failure counts
/// `THP_FILE_FALLBACK` and `THP_FILE_FALLBACK_CHARGE`, the allocation's `THP_FILE_FALLBACK` in
/// `shmem_alloc_hugefolio()`), and `shmem_get_folio_gfp()` takes order 0 (`unacct:` ->
/// `alloc_nohuge`). A memcg of exactly 512 pages: the folio's charge fits, its nodes' do not.
#[test]
fn a_failed_xarray_node_charge_counts_no_fallback_6_1() {
    let mut s = tmpfs("linux-6.1", "always", "");
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    assert!(s.kernel.profile.account_xa_nodes);
    let used = s.kernel.memcgs.memcgs[a.idx()].counter.usage;
    s.kernel.memcgs.memcgs[a.idx()].counter.max = used + HPAGE_PMD_NR as u64;
    write(&mut s, 0, PAGE_SIZE);
    let k = &s.kernel;
    assert_eq!((k.shmem_stat.thp_file_alloc, k.shmem_stat.thp_file_fallback, k.shmem_stat.thp_file_fallback_charge), (0, 0, 0));
    assert_eq!((k.memcgs.get(a).nr_shmem, k.memcgs.get(a).nr_shmem_thps), (1, 0), "order 0 taken");
    assert_eq!(k.pages.folio_nr_pages(page_at(k, f, 0)), 1);
    assert_invariants(k);
}

/// No `huge=` before 4.8 (800d8c63b2e9 "shmem: add huge pages support"): the scenario is refused
/// at the option, with its place and the fix; a bad value names the ones there are.
#[test]
fn huge_is_refused_before_4_8_and_bad_values_are_named() {
    let bad = |profile: &str, huge: &str| {
        let t = format!("[scenario]\nname = \"x\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"{profile}\"\n[mounts.\"/t\"]\nfs = \"tmpfs\"\nhuge = \"{huge}\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
        let doc = Document::from_toml("x.toml", &t).unwrap();
        doc.resolve(None, &[]).err().map(|e| e.to_string())
    };
    let e = bad("linux-4.4", "always").expect("refused");
    assert!(e.contains("x.toml:9:8") && e.contains("4.8"), "{e}");
    let e = bad("linux-6.1", "alwys").expect("refused");
    assert!(e.contains("x.toml:9:8") && e.contains("always") && e.contains("within_size"), "{e}");
    let e = bad("linux-6.1", "deny").expect("refused");
    assert!(e.contains("shmem_enabled"), "{e}");
    assert!(bad("linux-5.0", "within_size").is_none());
    assert_eq!(ShmemHuge::parse("within_size"), Some(ShmemHuge::WithinSize));
}

// --- tmpfs swap-out and swap-in (tmpfs21b) ---

/// A tmpfs file on a `huge=` mount in memcg A (256M) of a machine with 256M of swap on sda
/// (`rotational` as given).
fn tmpfs_swap(profile: &str, huge: &str, rotational: bool) -> Simulation {
    tmpfs_swap_area(profile, huge, rotational, false)
}

/// As [`tmpfs_swap`], the swap area a swap file (`[machine] swap_file`) when `file`.
fn tmpfs_swap_area(profile: &str, huge: &str, rotational: bool, file: bool) -> Simulation {
    sim(&format!(
        "[scenario]\nname = \"shmem-swap\"\n[machine]\nram = \"1G\"\nswap = \"256M\"\nswap_file = {file}\n[kernel]\nprofile = \"{profile}\"\n[devices.sda]\nread_bw = \"500M\"\nwrite_bw = \"400M\"\nrotational = {rotational}\n[mounts.\"/t\"]\nfs = \"tmpfs\"\nhuge = \"{huge}\"\n[files.\"/t/f\"]\nsize = \"0\"\n[cgroups.A]\n\"memory.max\" = \"256M\"\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
    ))
}

/// Reclaim of the folio at `index` of /t/f as `shrink_inactive_anon()` takes it: off its
/// LRU list, then `shrink_shmem_folio()`.
fn reclaim_folio(s: &mut Simulation, index: u32) -> crate::shmem::ShmemReclaim {
    let (f, a) = (inode(s, "/t/f"), memcg(s, "A"));
    let k = &mut s.kernel;
    k.lru_add_drain();
    let head = k.pages.page_folio(page_at(k, f, index));
    let v = k.folio_lruvec(head);
    k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, head);
    k.shrink_shmem_folio(head, v, a)
}

/// The swap entries /t/f holds in `first..first + n`, in index order.
fn swap_entries(s: &Simulation, first: u32, n: u32) -> Vec<u32> {
    let f = inode(s, "/t/f");
    (first..first + n).filter_map(|i| s.kernel.shmem_swap_entry(f, i)).collect()
}

/// 6.1 `shrink_folio_list()` ("Split shmem folio": `split_folio_to_list()`, THP_SPLIT_PAGE)
/// then `pageout()` -> `shmem_writepage()` of each base page (mm/vmscan.c, mm/shmem.c 6.1):
/// a PMD-order tmpfs folio is split, its 512 pages leave the page cache for the swap cache
/// (`shmem_delete_from_page_cache()`: the mapping holds their swap entries; memory.stat
/// `shmem`, `shmem_thp` and NR_SHMEM_THPS lose them) and are written (pswpout 512, no
/// THP_SWPOUT), each under writeback on the inactive anon list.
#[test]
fn reclaim_splits_a_tmpfs_huge_page_and_swaps_its_pages_out_6_1() {
    let mut s = tmpfs_swap("linux-6.1", "always", true);
    write(&mut s, 0, 4 << 20);
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    let out0 = s.kernel.vmstat.get(VmEvent::Pswpout);
    let r = reclaim_folio(&mut s, 0);
    let k = &s.kernel;
    assert_eq!((r.pageout, r.extra_scanned, r.activate), (512, 511, 0));
    assert_eq!((k.shmem_stat.thp_split_page, k.shmem_stat.thp_swpout), (1, 0));
    assert_eq!(k.vmstat.get(VmEvent::Pswpout) - out0, 512);
    assert_eq!(swap_entries(&s, 0, 512).len(), 512, "every page's swap entry is in the mapping");
    assert!((0..512).all(|i| k.mappings[f.idx()].lookup(i).is_none()), "no page left in the page cache there");
    let m = k.memcgs.get(a);
    assert_eq!((m.nr_shmem, m.nr_shmem_thps, m.nr_swapcache), (512, 512, 512), "the second huge page stays; 512 pages in the swap cache");
    assert_eq!(k.shmem_stat.nr_shmem_thps, 512);
    assert_invariants(k);
}

/// 6.12 `shmem_writepage()` (809bc86517cc, Debian 6.12.117 read): a PMD-order tmpfs folio is
/// swapped out whole when `folio_alloc_swap()` gets 512 contiguous slots, which 6.12's
/// `scan_swap_map_slots()` gives only on a block device with clusters (`SWP_BLKDEV` and
/// `cluster_info`: non-rotational): THP_SWPOUT, no split, slots contiguous. On a rotational
/// device the allocation fails and `shmem_writepage()` splits (`try_split`: THP_SPLIT_PAGE).
#[test]
fn a_tmpfs_huge_page_goes_to_swap_whole_on_6_12_only_on_a_non_rotational_device() {
    let mut s = tmpfs_swap("linux-6.12", "always", false);
    write(&mut s, 0, 4 << 20);
    let r = reclaim_folio(&mut s, 512);
    let k = &s.kernel;
    assert_eq!(r.pageout, 512);
    assert_eq!((k.shmem_stat.thp_swpout, k.shmem_stat.thp_split_page), (1, 0));
    let slots = swap_entries(&s, 512, 512);
    assert!(slots.len() == 512 && slots.windows(2).all(|w| w[1] == w[0] + 1), "512 contiguous slots");
    assert_eq!(k.shmem_stat.nr_shmem_thps, 512, "NR_SHMEM_THPS: shmem_update_stats(-nr) of the folio swapped out");
    assert_invariants(k);

    let mut s = tmpfs_swap("linux-6.12", "always", true);
    write(&mut s, 0, 4 << 20);
    reclaim_folio(&mut s, 512);
    let k = &s.kernel;
    assert_eq!((k.shmem_stat.thp_swpout, k.shmem_stat.thp_split_page), (0, 1), "rotational: no cluster_info, split");
    assert_eq!(swap_entries(&s, 512, 512).len(), 512);
    assert_invariants(k);
}

/// 6.18 `cluster_alloc_swap_entry()`: "if (order && !(si->flags & SWP_BLKDEV)) return 0" -
/// large slots on any block device (rotational too), never on a swap file; and
/// `shmem_writeout()` splits a folio crossing `i_size` ("shrinkage of pages beyond i_size
/// does not split swap").
#[test]
fn a_tmpfs_huge_page_goes_to_swap_whole_on_6_18_unless_a_swap_file_or_i_size_is_inside() {
    let mut s = tmpfs_swap("linux-6.18", "always", true);
    write(&mut s, 0, 4 << 20);
    reclaim_folio(&mut s, 0);
    assert_eq!((s.kernel.shmem_stat.thp_swpout, s.kernel.shmem_stat.thp_split_page), (1, 0), "a rotational block device");
    assert_invariants(&s.kernel);

    let mut s = tmpfs_swap_area("linux-6.18", "always", true, true);
    assert!(!s.kernel.swap.as_ref().unwrap().blkdev, "swap_file = true: claim_swapfile() of a regular file, no SWP_BLKDEV");
    write(&mut s, 0, 4 << 20);
    reclaim_folio(&mut s, 0);
    assert_eq!((s.kernel.shmem_stat.thp_swpout, s.kernel.shmem_stat.thp_split_page), (0, 1), "a swap file: no SWP_BLKDEV, split");
    // 6.12's WholeNonrot asks SWP_BLKDEV too: a swap file on a non-rotational device splits
    let mut s = tmpfs_swap_area("linux-6.12", "always", false, true);
    write(&mut s, 0, 4 << 20);
    reclaim_folio(&mut s, 512);
    assert_eq!((s.kernel.shmem_stat.thp_swpout, s.kernel.shmem_stat.thp_split_page), (0, 1), "6.12, a swap file on an SSD: split");
    assert_invariants(&s.kernel);

    let mut s = tmpfs_swap("linux-6.18", "always", true);
    write(&mut s, 0, 3 << 20);
    reclaim_folio(&mut s, 512);
    assert_eq!((s.kernel.shmem_stat.thp_swpout, s.kernel.shmem_stat.thp_split_page), (0, 1), "i_size at 3 MiB lies inside the second folio: split");
    assert_invariants(&s.kernel);
}

/// `shmem_swapin_folio()` (6.1) from `read()`: a tmpfs page whose swap-cache page reclaim
/// freed is read back (`shmem_swapin()` -> `swap_cluster_readahead()`: pswpin), put back in
/// the page cache at its index (`shmem_add_to_page_cache()`: memory.stat `shmem` again), and
/// its slot freed (`delete_from_swap_cache()`, `swap_free()`); no PGMAJFAULT (no fault). A
/// truncation frees the file's remaining swap entries (`shmem_undo_range()` ->
/// `shmem_free_swap()`).
#[test]
fn a_read_swaps_a_tmpfs_page_back_in_and_truncation_frees_the_rest_6_1() {
    let mut s = tmpfs_swap("linux-6.1", "never", true);
    write(&mut s, 0, 64 << 10);
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    for i in 0..16 {
        reclaim_folio(&mut s, i);
    }
    assert_eq!(swap_entries(&s, 0, 16).len(), 16);
    // the writes complete, and reclaim frees the clean swap-cache pages
    let done = (0..16).map(|i| s.kernel.swap.as_ref().unwrap().cache_get(swap_entries(&s, i, 1)[0])).map(|p| s.kernel.wb_done[p.idx()]).max().unwrap();
    s.kernel.blk_flush_plug();
    let done = done.max((0..16).map(|i| s.kernel.swap.as_ref().unwrap().cache_get(swap_entries(&s, i, 1)[0])).map(|p| s.kernel.wb_done[p.idx()]).max().unwrap());
    s.kernel.wait_until(done);
    s.kernel.swap_end_io();
    for i in 0..16 {
        let p = s.kernel.swap.as_ref().unwrap().cache_get(swap_entries(&s, i, 1)[0]);
        assert!(!s.kernel.pages[p].test(pg::WRITEBACK));
        let k = &mut s.kernel;
        let v = k.folio_lruvec(p);
        k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p);
        k.free_swapped_page_shadow(p, Some(a));
    }
    assert_eq!(s.kernel.memcgs.get(a).nr_shmem, 0);
    let (in0, maj0) = (s.kernel.vmstat.get(VmEvent::Pswpin), s.kernel.vmstat.get(VmEvent::Pgmajfault));
    let mut ra = crate::readahead::FileRaState::new(32);
    s.kernel.filemap_read(f, 0, 4096, &mut ra, a).unwrap();
    let k = &s.kernel;
    assert!(k.vmstat.get(VmEvent::Pswpin) > in0, "read from swap");
    assert_eq!(k.vmstat.get(VmEvent::Pgmajfault), maj0, "a read() is no fault");
    assert!(k.mappings[f.idx()].lookup(0).is_some() && k.shmem_swap_entry(f, 0).is_none(), "back in the page cache, its swap entry gone");
    assert_eq!(k.memcgs.get(a).nr_shmem, 1);
    assert_invariants(k);
    s.kernel.inodes[f.idx()].size = 0;
    s.kernel.truncate_inode_pages(f);
    assert!(swap_entries(&s, 0, 16).is_empty(), "truncation freed the swap entries");
    assert_invariants(&s.kernel);
}

// ---- tmpfs21c: 6.14+ tmpfs large folios (mm/shmem.c 6.18, shmem_huge_orders())

/// `shmem_mapping_size_orders()` (6.14-6.17) and `shmem_get_orders_within_size()` (6.14+) as
/// bit masks: the write's size from the index as an order, lowered to the index's alignment;
/// within_size keeps the orders whose extent ends within max(i_size, write_end).
#[test]
fn shmem_mapping_size_orders_and_get_orders_within_size() {
    use crate::shmem::{shmem_get_orders_within_size, shmem_mapping_size_orders, THP_ORDERS_ALL_FILE_DEFAULT};
    assert_eq!(THP_ORDERS_ALL_FILE_DEFAULT, 0b11_1111_1110, "orders 1..=9");
    assert_eq!(shmem_mapping_size_orders(0, 1 << 20), 0x1ff, "1 MiB from index 0: order 8 and below");
    assert_eq!(shmem_mapping_size_orders(0, 8 << 20), 0x3ff, "at most MAX_PAGECACHE_ORDER");
    assert_eq!(shmem_mapping_size_orders(16, 16 * PAGE_SIZE + (1 << 20)), 0x1f, "index 16: __ffs(16) = 4");
    assert_eq!(shmem_mapping_size_orders(1, PAGE_SIZE + (1 << 20)), 0, "an odd index: order 0");
    assert_eq!(shmem_mapping_size_orders(0, PAGE_SIZE), 0, "one page: order 0");
    let all = THP_ORDERS_ALL_FILE_DEFAULT;
    assert_eq!(shmem_get_orders_within_size(all, 0, 1 << 20, 0), 0x1fe, "first 1M write: up to order 8");
    assert_eq!(shmem_get_orders_within_size(all, 256, 2 << 20, 1 << 20), all, "the second: the PMD extent ends at write_end");
    assert_eq!(shmem_get_orders_within_size(all, 0, 64 << 10, 0), 0x1e, "64K: up to order 4");
    assert_eq!(shmem_get_orders_within_size(all, 0, PAGE_SIZE, 0), 0);
    assert_eq!(shmem_get_orders_within_size(all, 0, PAGE_SIZE, 4 << 20), all, "i_size counts as well as write_end");
}

/// `shmem_allowable_huge_orders()` of a tmpfs file per era (shmem_huge_orders()): 6.1 the PMD
/// order as shmem_is_huge() says; 6.18 every order of THP_ORDERS_ALL_FILE_DEFAULT on
/// huge=always, within_size's against the write's end, none on never/advise, shmem_enabled's
/// deny none and force the PMD order; the per-size knobs (anonymous shmem's) change nothing.
#[test]
fn shmem_huge_orders_per_era_and_knob() {
    use crate::shmem::{ShmemSizeKnobs, TmpfsHuge, THP_ORDERS_ALL_FILE_DEFAULT};
    let pmd = 1u16 << 9;
    let s = tmpfs("linux-6.1", "always", "");
    let f = inode(&s, "/t/f");
    assert_eq!(s.kernel.shmem_huge_orders(f, 5, 6 * PAGE_SIZE), pmd, "6.1: PMD only, whatever the write's size");
    let s = tmpfs("linux-6.18", "always", "");
    assert_eq!(s.kernel.profile.large_folios.tmpfs, TmpfsHuge::AllOrders);
    assert_eq!(s.kernel.shmem_huge_orders(f, 5, 6 * PAGE_SIZE), THP_ORDERS_ALL_FILE_DEFAULT, "6.18: PMD first, every order after it");
    let mut s = tmpfs("linux-6.18", "always", "");
    s.kernel.profile.large_folios.shmem_size_knobs = ShmemSizeKnobs { always: 0x3fe, ..ShmemSizeKnobs::NONE };
    assert_eq!(s.kernel.shmem_huge_orders(f, 5, 6 * PAGE_SIZE), THP_ORDERS_ALL_FILE_DEFAULT, "the per-size knobs are not a tmpfs file's");
    s.kernel.profile.large_folios.tmpfs = TmpfsHuge::WriteSize;
    assert_eq!(s.kernel.shmem_huge_orders(f, 0, 64 << 10), 0x1e, "6.14-6.17: the write's size (64K: order 4)");
    assert_eq!(s.kernel.shmem_huge_orders(f, 5, 6 * PAGE_SIZE), 0, "6.14-6.17: a 4K write at index 5 takes order 0");
    for h in ["never", "advise"] {
        let s = tmpfs("linux-6.18", h, "");
        assert_eq!(s.kernel.shmem_huge_orders(f, 0, 2 << 20), 0, "{h}");
    }
    let s = tmpfs("linux-6.18", "within_size", "");
    assert_eq!(s.kernel.shmem_huge_orders(f, 0, 1 << 20), 0x1fe);
    let s = tmpfs("linux-6.18", "always", "shmem_enabled = \"deny\"");
    assert_eq!(s.kernel.shmem_huge_orders(f, 0, 2 << 20), 0);
    let s = tmpfs("linux-6.18", "never", "shmem_enabled = \"force\"");
    assert_eq!(s.kernel.shmem_huge_orders(f, 0, PAGE_SIZE), pmd, "force: the PMD order");
    // the profile's boot value of shmem_enabled applies unless the scenario names one
    let p = crate::profile::profile("linux-6.18").unwrap();
    assert_eq!((p.large_folios.shmem_enabled, p.large_folios.shmem_size_knobs), (ShmemHuge::Never, ShmemSizeKnobs::DEFAULT_6_10));
    assert_eq!(crate::profile::profile("linux-6.1").unwrap().large_folios.shmem_size_knobs, ShmemSizeKnobs::NONE, "no per-size knobs before 6.10");
}

/// The profile's shmem_enabled is the run's unless `[kernel] shmem_enabled` overrides it.
#[test]
fn the_profiles_shmem_enabled_applies_unless_the_scenario_names_one() {
    let s = tmpfs("linux-6.18", "always", "");
    assert_eq!(s.kernel.shmem_huge, s.kernel.profile.large_folios.shmem_enabled);
    let s = tmpfs("linux-6.18", "always", "shmem_enabled = \"deny\"");
    assert_eq!(s.kernel.shmem_huge, ShmemHuge::Deny);
}

/// 6.18 huge=always: a 4 KiB write and 64 KiB writes each take a PMD folio (as this lab's host
/// did, make_host_tmpfs_scenarios.py's probe); huge=within_size: 1 MiB writes from 0 take 1 MiB
/// folios (order 8; the second of each 2 MiB finds the first in the PMD extent,
/// shmem_suitable_orders()), 64 KiB writes 64 KiB folios, counted as the sizes' shmem_alloc
/// (not THP_FILE_ALLOC), in memory.stat shmem but not shmem_thp (host-tmpfs-loose-within: 128
/// order-8 folios, then 1024 order-4 ones after O_TRUNC).
#[test]
fn tmpfs_folios_of_6_18_pmd_first_and_within_size_by_the_writes_end() {
    let mut s = tmpfs("linux-6.18", "always", "");
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    write(&mut s, 5 * PAGE_SIZE, PAGE_SIZE);
    assert_eq!((s.kernel.shmem_stat.thp_file_alloc, s.kernel.shmem_stat.mthp_alloc), (1, 0));
    assert_eq!(s.kernel.pages.folio_nr_pages(s.kernel.pages.page_folio(page_at(&s.kernel, f, 5))), 512);
    let mut s = tmpfs("linux-6.18", "within_size", "");
    write(&mut s, 0, 4 << 20);
    let k = &s.kernel;
    assert_eq!((k.shmem_stat.thp_file_alloc, k.shmem_stat.mthp_alloc), (0, 4));
    for i in [0, 256, 512, 768] {
        let p = page_at(k, f, i);
        assert!(k.pages[p].test(pg::HEAD) && k.pages.folio_nr_pages(p) == 256, "index {i}: a 1 MiB folio");
    }
    let m = k.memcgs.get(a);
    assert_eq!((m.nr_shmem, m.nr_shmem_thps, k.shmem_stat.nr_shmem_thps), (1024, 0, 0), "shmem_thp counts PMD folios only");
    assert_invariants(k);
    s.kernel.inodes[f.idx()].size = 0;
    s.kernel.truncate_inode_pages(f);
    let mut p = 0;
    while p < (1 << 20) {
        s.kernel.generic_perform_write(f, p, 64 << 10, a).unwrap();
        p += 64 << 10;
    }
    let k = &s.kernel;
    assert_eq!(k.shmem_stat.mthp_alloc, 4 + 16, "16 folios of 64 KiB");
    assert_eq!(k.pages.folio_nr_pages(page_at(k, f, 16)), 16);
    assert_invariants(k);
}

/// 6.18 `shmem_alloc_and_add_folio()`: a failed charge of the PMD folio counts THP_FILE_FALLBACK
/// and THP_FILE_FALLBACK_CHARGE and returns the error, so shmem_get_folio_gfp() takes order 0,
/// not the next order (a 300-page memcg would hold an order-8 folio).
#[test]
fn a_failed_charge_goes_to_order_0_not_the_next_order_6_18() {
    let mut s = tmpfs("linux-6.18", "always", "");
    let (f, a) = (inode(&s, "/t/f"), memcg(&s, "A"));
    let used = s.kernel.memcgs.memcgs[a.idx()].counter.usage;
    s.kernel.memcgs.memcgs[a.idx()].counter.max = used + 300;
    write(&mut s, 0, PAGE_SIZE);
    let k = &s.kernel;
    assert_eq!((k.shmem_stat.thp_file_alloc, k.shmem_stat.thp_file_fallback, k.shmem_stat.thp_file_fallback_charge), (0, 1, 1));
    assert_eq!((k.shmem_stat.mthp_alloc, k.shmem_stat.mthp_fallback), (0, 0));
    assert_eq!(k.pages.folio_nr_pages(page_at(k, f, 0)), 1, "order 0");
    assert_invariants(k);
}

/// 6.7+ `shmem_alloc_and_add_folio()` charges a large tmpfs folio with the huge gfp it was
/// allocated by (`limit_gfp_mask(vma_thp_gfp_mask(NULL), gfp)`, 6.12 and 6.18 read): under THP
/// defrag madvise `GFP_TRANSHUGE_LIGHT`, no direct reclaim, so a charge over the limit fails at
/// once; 6.1's `shmem_add_to_page_cache()` charges with the mapping's gfp (reclaim allowed).
/// host-tmpfs-tight-always (validation-pending): the kernel's 64 PMD attempts, 31 allocated and
/// 33 THP_FILE_FALLBACK_CHARGE, which the engine gives with this rule (64 and 0 without it).
#[test]
fn a_large_tmpfs_charge_takes_the_huge_gfp_from_6_7() {
    use crate::memcontrol::ChargeGfp;
    assert_eq!(tmpfs("linux-6.1", "always", "").kernel.shmem_huge_charge_gfp(), None);
    assert_eq!(tmpfs("linux-6.6", "always", "").kernel.shmem_huge_charge_gfp(), None);
    assert_eq!(tmpfs("linux-6.12", "always", "").kernel.shmem_huge_charge_gfp(), Some(ChargeGfp::NoBlock));
    let mut s = tmpfs("linux-6.18", "always", "");
    assert_eq!(s.kernel.shmem_huge_charge_gfp(), Some(ChargeGfp::NoBlock));
    s.kernel.profile.thp_defrag_madvise = false;
    assert_eq!(s.kernel.shmem_huge_charge_gfp(), Some(ChargeGfp::NoRetry), "defrag always: GFP_TRANSHUGE | __GFP_NORETRY");
}

/// `generic_perform_write()` -> `shmem_write_begin()` -> `shmem_get_folio_gfp(SGP_WRITE)`
/// (6.18 mm/filemap.c, mm/shmem.c; Kernel::shmem_write_begin_per_folio): a tmpfs mapping with
/// large folios (6.14+, a mount with huge=) gets one write_begin a folio, so a new folio is
/// only referenced and a folio is activated by a second write (6.18 huge=within_size: a 1M
/// write's order-8 folio stays inactive; huge=always: the PMD folio's second 1M write activates
/// it), where 6.1's page-at-a-time write activates a huge page at its second page. The
/// activation keeps the folio off the inactive list whose large folios 6.18's memcg reclaim
/// swaps out whole (host-tmpfs-tight-within: mthp.shmem_alloc 2,350-2,390, engine 82 while
/// every folio was activated).
#[test]
fn a_tmpfs_large_folio_is_marked_once_a_write_from_6_14() {
    let active = |s: &Simulation, i: u32| {
        let k = &s.kernel;
        let p = k.pages.page_folio(page_at(k, inode(s, "/t/f"), i));
        (k.pages[p].test(pg::ACTIVE), k.pages[p].test(pg::REFERENCED))
    };
    let mut s = tmpfs("linux-6.18", "within_size", "");
    let f = inode(&s, "/t/f");
    assert!(s.kernel.shmem_write_begin_per_folio(f));
    write(&mut s, 0, 1 << 20);
    assert_eq!(s.kernel.pages.folio_nr_pages(s.kernel.pages.page_folio(page_at(&s.kernel, f, 0))), 256);
    assert_eq!(active(&s, 0), (false, true), "6.18: one write_begin for the 1M folio: referenced, inactive");
    write(&mut s, 64 << 10, 4096);
    assert_eq!(active(&s, 0), (true, false), "a second write's write_begin finds it referenced: activated");
    let mut s = tmpfs("linux-6.18", "always", "");
    let act0 = s.kernel.vmstat.get(VmEvent::Pgactivate);
    write(&mut s, 0, 1 << 20);
    assert_eq!(active(&s, 0), (false, true), "6.18 always: the PMD folio's first 1M write");
    write(&mut s, 1 << 20, 1 << 20);
    assert_eq!(active(&s, 0), (true, false), "its second 1M write activates it");
    assert!(s.kernel.vmstat.get(VmEvent::Pgactivate) > act0);
    let s = tmpfs("linux-6.18", "never", "");
    assert!(!s.kernel.shmem_write_begin_per_folio(inode(&s, "/t/f")), "huge=never: no large folios, a write_begin a page");
    // 6.1: the mapping has no large folios; the huge page is written a page at a time
    let mut s = tmpfs("linux-6.1", "always", "");
    assert!(!s.kernel.shmem_write_begin_per_folio(inode(&s, "/t/f")));
    write(&mut s, 0, 2 * PAGE_SIZE);
    let f = inode(&s, "/t/f");
    assert_eq!(s.kernel.pages.folio_nr_pages(s.kernel.pages.page_folio(page_at(&s.kernel, f, 0))), 512);
    assert_eq!(active(&s, 0), (true, false), "6.1: the second page's write_begin activates the huge page");
}

/// `[machine] swap_file`: a boolean, refused without swap, with the place and the fix; the
/// area it builds is `SWP_BLKDEV` only without it, `SWP_SOLIDSTATE` either way from the
/// device (`claim_swapfile()`: a swap file's `si->bdev` is its file system's device).
#[test]
fn swap_file_key_is_checked_and_makes_the_area_a_file() {
    let err = |keys: &str| {
        let toml = format!("[scenario]\nname = \"sf\"\n[machine]\nram = \"1G\"\n{keys}\n[devices.sda]\nread_bw = \"500M\"\nrotational = false\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n");
        match crate::Document::from_toml("sf.toml", &toml).and_then(|d| d.resolve(None, &[])) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(err("swap = \"64M\"\nswap_file = true"), "");
    assert_eq!(err("swap_file = false"), "");
    let e = err("swap_file = true");
    assert!(e.contains("sf.toml:5:") && e.contains("machine.swap_file = true but the machine has no swap") && e.contains("add swap = \"256M\""), "{e}");
    let e = err("swap = \"64M\"\nswap_file = \"yes\"");
    assert!(e.contains("machine.swap_file must be true or false"), "{e}");
    let file = tmpfs_swap_area("linux-6.18", "never", false, true);
    let dev = tmpfs_swap_area("linux-6.18", "never", false, false);
    let (a, b) = (file.kernel.swap.as_ref().unwrap(), dev.kernel.swap.as_ref().unwrap());
    assert_eq!((a.blkdev, a.solidstate), (false, true));
    assert_eq!((b.blkdev, b.solidstate), (true, true));
}
