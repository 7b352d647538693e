//! On-demand readahead (mm/readahead.c) as the block device sees it.

use super::*;

/// A 4 MiB file on a device with `read_ahead_kb`, read by one task with `op`.
fn reader(read_ahead_kb: u32, op: &str) -> String {
    format!(
        r#"
[scenario]
name = "readahead"
seed = 3
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
read_ahead_kb = {read_ahead_kb}
[files."/f"]
size = "4M"
[tasks.reader]
ops = [{op}]
"#
    )
}

/// Run `sim` to the end and return, for each step (one `read()`), the device requests it
/// submitted and the bytes they read.
fn io_per_step(s: &mut Simulation) -> Vec<(u64, u64)> {
    let mut out = vec![];
    let (mut ios, mut bytes) = (0, 0);
    run_with(s, |s| {
        let d = &s.kernel.devices[0];
        out.push((d.ios - ios, d.read_bytes - bytes));
        (ios, bytes) = (d.ios, d.read_bytes);
    });
    out
}

/// `read_ahead_kb = 128` gives `ra_pages = 32`: cat's sequential 128 KiB reads are served by
/// 32-page requests. The first `read()` starts the window at the file's start and, reaching
/// its `PG_readahead` marker, submits the next window at once (`page_cache_async_ra()`); each
/// later `read()` reaches the next marker and submits one more 32-page window.
#[test]
fn sequential_read_uses_read_ahead_kb_windows() {
    let mut s = sim(&reader(
        128,
        r#"{ op = "read", file = "/f", bufsize = "128K" }"#,
    ));
    let f = inode(&s, "/f");
    let steps = io_per_step(&mut s);
    assert_eq!(steps.len(), 32);
    assert_eq!(steps[0], (2, 2 * 32 * PAGE_SIZE));
    for (i, &(ios, bytes)) in steps.iter().enumerate().skip(1) {
        assert!(ios <= 1, "read {i} submitted {ios} requests");
        assert_eq!(
            bytes,
            ios * 32 * PAGE_SIZE,
            "read {i}: every request is 32 pages"
        );
    }
    let k = &s.kernel;
    assert_eq!(k.devices[0].ios, 32);
    assert_eq!(
        k.devices[0].read_bytes,
        4 << 20,
        "nothing read twice, nothing past EOF"
    );
    assert_eq!(k.mappings[f.idx()].nrpages, 1024);
    assert_invariants(k);
}

/// After the first 32-page `read()` the next window is in flight and its first page carries
/// `PG_readahead`: the reader will trigger the following window when it gets there.
#[test]
fn readahead_marker_sits_at_the_start_of_the_async_window() {
    let mut s = sim(&reader(
        128,
        r#"{ op = "read", file = "/f", bufsize = "128K" }"#,
    ));
    let f = inode(&s, "/f");
    assert!(s.step());
    let k = &s.kernel;
    let m = &k.mappings[f.idx()];
    assert_eq!(m.nrpages, 64);
    assert!(m.lookup(64).is_none());
    assert!(k.pages[page_at(k, f, 32)].test(pg::READAHEAD));
    for i in (0..64).filter(|&i| i != 32) {
        assert!(!k.pages[page_at(k, f, i)].test(pg::READAHEAD), "page {i}");
    }
    assert_invariants(k);
}

/// Small sequential reads ramp the window up: 16 KiB reads (4 pages) start with
/// `get_init_ra_size(4, 32) = 8` pages, then `get_next_ra_size()` gives 16 and then the
/// 32-page maximum.
#[test]
fn small_sequential_reads_ramp_the_window_up() {
    let mut s = sim(&reader(
        128,
        r#"{ op = "read", file = "/f", bufsize = "16K" }"#,
    ));
    let steps = io_per_step(&mut s);
    assert_eq!(steps.len(), 256);
    let sizes: Vec<u64> = steps
        .iter()
        .filter(|(ios, _)| *ios > 0)
        .map(|&(ios, bytes)| bytes / ios / PAGE_SIZE)
        .collect();
    assert_eq!(&sizes[..4], &[8, 16, 32, 32]);
    assert!(
        sizes[2..sizes.len() - 1].iter().all(|&n| n == 32),
        "{sizes:?}"
    );
    assert_eq!(s.kernel.devices[0].read_bytes, 4 << 20);
    assert_invariants(&s.kernel);
}

/// `posix_fadvise(POSIX_FADV_SEQUENTIAL)` doubles the file's window (`f_ra.ra_pages =
/// bdi->ra_pages * 2` in `generic_fadvise()`): the same 128 KiB reads are served by 64-page
/// requests, half as many.
#[test]
fn fadvise_sequential_doubles_the_window() {
    let mut s = sim(&reader(
        128,
        r#"{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential" }"#,
    ));
    let steps = io_per_step(&mut s);
    assert_eq!(steps.len(), 32);
    for (i, &(ios, bytes)) in steps.iter().enumerate() {
        assert_eq!(
            bytes,
            ios * 64 * PAGE_SIZE,
            "read {i}: every request is 64 pages"
        );
    }
    let k = &s.kernel;
    assert_eq!(k.devices[0].ios, 16);
    assert_eq!(k.devices[0].read_bytes, 4 << 20);
    assert_invariants(k);
}

/// `posix_fadvise(POSIX_FADV_RANDOM)` sets `FMODE_RANDOM`, and `page_cache_sync_ra()` then
/// reads exactly the pages the `read()` asked for (`force_page_cache_ra()` of the request):
/// each miss of a 16 KiB read is one 4-page request, and nothing else is cached.
#[test]
fn fadvise_random_reads_only_what_is_asked() {
    let mut s = sim(&reader(
        128,
        r#"{ op = "read", file = "/f", bufsize = "16K", pattern = "random", count = 64, fadvise = "random" }"#,
    ));
    let f = inode(&s, "/f");
    let steps = io_per_step(&mut s);
    assert_eq!(steps.len(), 64);
    for (i, &(ios, bytes)) in steps.iter().enumerate() {
        assert!(ios <= 1, "read {i}");
        assert_eq!(bytes, ios * 4 * PAGE_SIZE, "read {i}");
    }
    let k = &s.kernel;
    let cached = k.mappings[f.idx()].nrpages;
    assert!(cached > 0 && cached <= 64 * 4);
    assert_eq!(
        k.devices[0].read_bytes,
        cached * PAGE_SIZE,
        "every page read was asked for"
    );
    assert_eq!(cached % 4, 0, "whole 16 KiB chunks");
    assert!(
        k.devices[0].read_bytes <= 1 << 20,
        "no window was read ahead"
    );
    assert_invariants(k);
}

/// `page_cache_ra_unbounded()` locks each page as `filemap_add_folio()` adds it, before the
/// batch's read is submitted: reclaim run by a later page's charge cannot take the batch's
/// own pages. A window larger than the memcg keeps its first pages; the charges for the rest
/// fail (`__GFP_NORETRY`) and those pages are simply not read ahead (the device is slow
/// enough that even the batch's first bio, 256 pages, is still being read while the rest are
/// tried: a bio whose read completed unlocks its pages, which reclaim may then take).
#[test]
fn a_readahead_batch_does_not_evict_its_own_pages() {
    let mut s = sim(r#"
[scenario]
name = "ra-lock"
[machine]
ram = "1G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "1M"
[files."/f"]
size = "8M"
[cgroups.ct]
"memory.limit_in_bytes" = "2M"
[tasks.t]
cgroup = "ct"
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    k.do_page_cache_ra(f, 0, 1024, 0, ct);
    let m = &k.mappings[f.idx()];
    assert!(m.lookup(0).is_some(), "the batch's first page was not evicted by its own later charges");
    assert!(m.lookup(1023).is_none(), "no room was left for the end of the window");
    assert!(m.nrpages <= 512);
    assert_eq!(k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgsteal), 0, "nothing of the batch was reclaimed");
    assert_invariants(k);
}

/// An 8 MiB file on a 10 MB/s device, read ahead through a 2M memcg (v1) under `profile`:
/// the window of 1024 pages is larger than the memcg.
fn ra_through_2m(profile: &str) -> (Simulation, MemcgId, InodeId) {
    let s = sim(&format!(r#"
[scenario]
name = "ra-enomem"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "10M"
[files."/f"]
size = "8M"
[cgroups.ct]
"memory.limit_in_bytes" = "2M"
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    (s, ct, f)
}

/// `page_cache_ra_unbounded()` (mm/readahead.c) when a page's memcg charge fails: 6.6 (as
/// 5.18-6.9) submits what it added and goes on with the next page, so the window's last
/// pages come in once reclaim run by those later charges finds pages whose read completed
/// (the batch's first bio, 1 MiB at 10 MB/s, is done while the failing charges go on, each
/// reclaiming twice at the measured cost of its `shrink_inactive_list()` calls: the first
/// bio's pages, the oldest, page 0 with them, are what they reclaim, and the memcg fills again
/// with later pages under read before the window's end); 6.10+
/// (linux-6.18: "mm/readahead: break read-ahead loop if filemap_add_folio return -ENOMEM")
/// stops at the first failure and submits what it added.
#[test]
fn page_cache_ra_unbounded_stops_at_a_failed_charge_from_6_10() {
    for (profile, stops) in [("linux-6.6", false), ("linux-6.18", true)] {
        let (mut s, ct, f) = ra_through_2m(profile);
        let k = &mut s.kernel;
        k.do_page_cache_ra(f, 0, 1024, 0, ct);
        let m = &k.mappings[f.idx()];
        let contiguous = (0..1024).take_while(|&i| m.lookup(i).is_some()).count() as u64;
        if stops {
            assert!(m.lookup(0).is_some(), "{profile}: the batch keeps its first page");
            assert_eq!(m.nrpages, contiguous, "{profile}: only the pages before the failed charge");
            assert!(m.lookup(1023).is_none(), "{profile}: nothing after the failure");
            assert_eq!(k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgsteal), 0, "{profile}: one failed reclaim, nothing taken");
        } else {
            // The memcg holds 512 pages: a page at 512 or beyond came after a failed charge.
            assert!((512..1024).any(|i| m.lookup(i).is_some()), "{profile}: the loop went on past the failed charges");
            assert!(k.memcgs.events(ct, crate::memcontrol::MemcgEvent::Pgsteal) > 0, "{profile}: the later charges reclaimed the first bio's pages");
        }
        assert_invariants(k);
    }
}

/// `ondemand_readahead()` before 6.11 (Debian's 6.1.192 reads "if (index == expected || index
/// == (ra->start + ra->size))" for a synchronous miss too): a miss at the window's expected
/// marker is taken for an asynchronous hit, the window moves past the current one and ramps up,
/// and readahead does not read the missed page itself; 6.11+ (`page_cache_sync_ra()` after Jan
/// Kara's "readahead: Make sure sync readahead reads needed page", linux-6.18) starts a window
/// at the miss. A miss at the window's end is a hit whose new window starts there, and
/// `readit:` merges the window after it into it.
#[test]
fn a_sync_miss_at_the_marker_is_an_async_hit_before_6_11() {
    for (profile, as_hit) in [("linux-6.1", true), ("linux-6.18", false)] {
        let mut s = sim(&format!(r#"
[scenario]
name = "ra-sync-hit"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        // The window [256, 320) was read ahead with its marker at 256, then lost.
        let mut ra = FileRaState::new(64);
        (ra.start, ra.size, ra.async_size) = (256, 64, 64);
        ra.prev_pos = Some(255 * PAGE_SIZE);
        k.page_cache_sync_ra(&mut ra, f, 256, 32, MemcgId::ROOT);
        let m = &k.mappings[f.idx()];
        if as_hit {
            assert_eq!((ra.start, ra.size, ra.async_size), (320, 64, 64), "{profile}: the window moved on");
            assert!(m.lookup(256).is_none(), "{profile}: the missed page is left to filemap_create_folio()");
            assert!(m.lookup(320).is_some() && m.lookup(383).is_some());
        } else {
            assert_eq!(ra.start, 256, "{profile}: a window at the miss");
            assert!(m.lookup(256).is_some() && m.lookup(320).is_none());
        }
        // A miss at the window's end: the new window starts at the miss and takes the next one in.
        let mut ra = FileRaState::new(64);
        (ra.start, ra.size, ra.async_size) = (1024, 16, 8);
        ra.prev_pos = Some(1039 * PAGE_SIZE);
        k.page_cache_sync_ra(&mut ra, f, 1040, 8, MemcgId::ROOT);
        if as_hit {
            assert_eq!((ra.start, ra.size, ra.async_size), (1040, 64, 32), "{profile}: 16 -> 32, then merged with the next (64): max, max/2");
        } else {
            assert_eq!((ra.start, ra.size, ra.async_size), (1040, 16, 8), "{profile}: get_init_ra_size(8, 64) = 16");
        }
        assert!(k.mappings[f.idx()].lookup(1040).is_some());
        assert_invariants(k);
    }
}

/// `filemap_read()` keeps the previous read's end in `ra->prev_pos` until it returns from 6.6
/// (Haibo Li's "mm/filemap.c: fix update prev_pos after one read request done"; 6.1 moves it
/// after each folio copied). A 256 KiB read from page 32 finds [32, 64) cached and misses at 64:
/// 6.1 (linux-6.1) sees a sequential miss and starts a fresh window, `get_init_ra_size(32,
/// 512)` = 64 pages with its marker 32 pages in; 6.18 (linux-6.18, whose trace of a read through
/// a tight memcg shows `page_cache_sync_ra: index=8505 req_count=7 ... prev_pos=34734080`, the
/// page 8480 the read started at) sees a jump of 32 pages and `page_cache_sync_ra()` takes the
/// context readahead: the 64 pages cached before the miss reach the file's start, so twice
/// that plus the request, 160 pages, with `async_size` 1.
#[test]
fn a_miss_inside_a_read_is_not_sequential_from_6_6() {
    for (profile, window) in [("linux-6.1", (64, 64, 32)), ("linux-6.18", (64, 160, 1))] {
        let mut s = sim(&format!(r#"
[scenario]
name = "ra-prev-pos"
[machine]
ram = "1G"
fs = "ext4"
fs_features = ["verity"]
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
        let f = inode(&s, "/f");
        let k = &mut s.kernel;
        k.do_page_cache_ra(f, 0, 64, 0, MemcgId::ROOT);
        let mut ra = FileRaState::new(512);
        ra.prev_pos = Some(32 * PAGE_SIZE);
        ra.prev_index = Some(31);
        k.filemap_read(f, 32 * PAGE_SIZE, 64 * PAGE_SIZE, &mut ra, MemcgId::ROOT).unwrap();
        assert_eq!((ra.start, ra.size, ra.async_size), window, "{profile}");
        assert_eq!(ra.prev_pos, Some(96 * PAGE_SIZE), "{profile}: the read's end once it returns");
        let m = &k.mappings[f.idx()];
        assert_eq!(m.nrpages, 64 + window.1 as u64, "{profile}: the window read past the miss");
        assert_invariants(k);
    }
}

/// `read_pages()` through a file system's `->readahead()` (ext4's `ext4_mpage_readpages()`,
/// `mpage_readahead()`, `iomap_readahead()`, 6.1 and 6.18 alike): bios of at most
/// `BIO_MAX_VECS` = 256 folios, each unlocking its folios when its own read completes
/// (`mpage_end_io()`): a window of 1024 order-0 pages is four bios, and its first page is up
/// to date (unlocked, reclaimable) while its last is still being read.
#[test]
fn read_pages_unlocks_each_bio_of_256_folios_when_it_completes() {
    let mut s = sim(&reader(128, r#"{ op = "sleep", duration = "1ms" }"#));
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    k.do_page_cache_ra(f, 0, 1024, 0, MemcgId::ROOT);
    let m = &k.mappings[f.idx()];
    let bios: Vec<(u32, u32, u64)> = m.inflight.iter().map(|r| (r.start, r.end, r.done)).collect();
    assert_eq!(bios.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>(), vec![(0, 256), (256, 512), (512, 768), (768, 1024)]);
    assert!(bios.windows(2).all(|w| w[0].2 < w[1].2), "each bio completes after the one before it: {bios:?}");
    assert_eq!(k.devices[0].read_bytes, 1024 * PAGE_SIZE);
    let (first, last) = (m.lookup(0).unwrap(), m.lookup(1023).unwrap());
    k.now = bios[0].2;
    assert!(!k.folio_test_locked(first), "the first bio's pages are up to date when it completes");
    assert!(k.folio_test_locked(last), "the last bio is still being read");
    // Large folios: one segment each, so 2048 pages in order-2 folios (512) are two bios.
    let mut s = folio_reader("linux-6.18", "ext4", "", 8192, None);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let mut ra = FileRaState::new(4096);
    ra.start = 0;
    ra.size = 2048;
    ra.async_size = 2048;
    ra.order = 2;
    k.page_cache_ra_order(&mut ra, f, None, MemcgId::ROOT);
    assert_eq!(runs(&folios(k, f)), vec![(2, 512)]);
    let m = &k.mappings[f.idx()];
    assert_eq!(m.inflight.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>(), vec![(0, 1024), (1024, 2048)]);
    assert_invariants(k);
}

/// A 16 MiB file on a root file system `fs` (with `features`) under `profile`, read by cat
/// (128 KiB reads) at `read_ahead_kb`, in a memcg of `limit` when given.
pub(super) fn folio_reader(profile: &str, fs: &str, features: &str, read_ahead_kb: u32, limit: Option<&str>) -> Simulation {
    let cg = limit.map(|l| format!("[cgroups.A]\n\"memory.max\" = \"{l}\"\n")).unwrap_or_default();
    let task_cg = if limit.is_some() { "cgroup = \"A\"\n" } else { "" };
    sim(&format!(
        r#"
[scenario]
name = "folios"
[machine]
ram = "1G"
fs = "{fs}"
fs_features = [{features}]
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
read_ahead_kb = {read_ahead_kb}
[files."/f"]
size = "16M"
{cg}
[tasks.cat]
{task_cg}ops = [{{ op = "read", file = "/f", bufsize = "128K" }}]
"#
    ))
}

/// The page-cache folios of `f` as (first index, order), in index order.
pub(super) fn folios(k: &Kernel, f: InodeId) -> Vec<(u32, u32)> {
    let m = &k.mappings[f.idx()];
    let mut out = vec![];
    let mut i = 0u32;
    while let Some(j) = m.next_entry(i, u32::MAX) {
        let Some(p) = m.lookup(j) else {
            i = j + 1;
            continue;
        };
        let order = k.pages.folio_order(p);
        out.push((j, order));
        i = j + (1 << order);
    }
    out
}

/// Orders of consecutive runs of folios: (order, how many).
pub(super) fn runs(f: &[(u32, u32)]) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = vec![];
    for &(_, o) in f {
        match out.last_mut() {
            Some((lo, n)) if *lo == o => *n += 1,
            _ => out.push((o, 1)),
        }
    }
    out
}

/// mm/readahead.c 5.18-6.15 (Debian's 6.1.192), `page_cache_ra_order()` on XFS, worked by
/// hand from the source: the synchronous window (start 0, `get_init_ra_size(32, 2048)` = 128
/// pages, mark at 32) takes order 0 + 2: 32 folios of order 2. Each asynchronous window takes
/// the marked folio's order + 2: 128..384 in 16 of order 4, 384..896 in 8 of order 6; the
/// window 896..1920 wants order 8 but 896 is aligned to 128 only (`__ffs(index)`): one of
/// order 7, three of order 8, and 1792's order 8 would pass the window's end: order 7. Then
/// 1920..3968 at order 9: 1920 takes 7, three of order 9, 3584 steps down to 8, 3840 to 7;
/// the file's end (4096) clips the last window to one more of order 7.
#[test]
fn ra_order_6_1_xfs_grows_the_marked_folios_order_by_two() {
    let mut s = folio_reader("linux-6.1", "xfs", "", 8192, None);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.mappings[f.idx()].max_order, 9);
    assert_eq!(runs(&folios(k, f)), vec![(2, 32), (4, 16), (6, 8), (7, 1), (8, 3), (7, 2), (9, 3), (8, 1), (7, 2)]);
    assert_eq!(k.mappings[f.idx()].nrpages, 4096, "the whole file is cached");
    assert_invariants(k);
}

/// mm/readahead.c 6.16+ (`ra->order`, which 6.18 runs), on ext4 (large folios since 6.16),
/// worked by hand: the synchronous window resets `ra->order` to 0 (128 pages of order 0);
/// each asynchronous one adds 2 and rounds its end down to that order's alignment: 128..384
/// in order 2, 384..896 in order 4, 896..1920 in order 6; 1920's window of 2048 is cut to end
/// at 3840 (aligned to 256) and takes order 8 (`ilog2(ra->size)` allows 10, the order 8):
/// 1920 is aligned to 128 only (one of order 7), then order 8; the last window (order 10,
/// capped at 9) starts at 3840, aligned to 256: one more of order 8 to the end of the file.
#[test]
fn ra_order_6_18_ext4_starts_at_order_0() {
    let mut s = folio_reader("linux-6.18", "ext4", "", 8192, None);
    let f = inode(&s, "/f");
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(runs(&folios(k, f)), vec![(0, 128), (2, 64), (4, 32), (6, 16), (7, 1), (8, 8)]);
    assert_eq!(k.mappings[f.idx()].nrpages, 4096);
    assert_invariants(k);
}

/// Where the era or the file system has no large folios, every page is order 0: ext4 on 6.1,
/// ext4 with the verity feature on 6.18 (`ext4_should_enable_large_folio()`), XFS on 5.17.
#[test]
fn no_large_folios_where_the_file_system_has_none() {
    for (profile, fs, features) in [("linux-6.1", "ext4", ""), ("linux-6.18", "ext4", "\"verity\""), ("linux-5.17", "xfs", "")] {
        let mut s = folio_reader(profile, fs, features, 8192, None);
        let f = inode(&s, "/f");
        run(&mut s);
        let k = &s.kernel;
        assert_eq!(k.mappings[f.idx()].max_order, 0, "{profile} {fs}");
        assert_eq!(runs(&folios(k, f)), vec![(0, 4096)], "{profile} {fs}");
    }
}

/// At read_ahead_kb 128 (32-page windows) 6.1 reads order-2 folios and the marked folio's
/// order + 2 is capped by the window: `while ((1 << new_order) > ra->size) new_order--`
/// keeps every folio at order 5 or below.
#[test]
fn ra_order_is_capped_by_the_window() {
    let mut s = folio_reader("linux-6.1", "xfs", "", 128, None);
    let f = inode(&s, "/f");
    run(&mut s);
    let fo = folios(&s.kernel, f);
    assert!(fo.iter().all(|&(_, o)| o <= 5), "{:?}", runs(&fo));
    assert!(fo.iter().any(|&(_, o)| o == 5), "{:?}", runs(&fo));
    assert_invariants(&s.kernel);
}

/// A `read()` larger than the window (1 MiB at `read_ahead_kb` 128) may read ahead up to the
/// device's optimal I/O size, `bdi->io_pages` = its `max_sectors_kb` in pages
/// (`ractl_max_pages()`, mm/readahead.c 6.11+; inline in `ondemand_readahead()` from 4.10,
/// Jens Axboe's "mm: don't cap request size based on read-ahead setting"): on the loop device (1280 KiB) the first read's window is the whole 256-page
/// request and its asynchronous successor another 256 (2 MiB in two requests); 4.4 caps the
/// windows at 32 pages (the first two merged by "readit:" into one of 64). Seen on 6.18's loop device: 1 MiB `dd` reads went out as 1 MiB requests (513 for
/// 512 MiB, lab/validation/loop-device.md).
#[test]
fn a_read_larger_than_the_window_reads_ahead_up_to_io_pages() {
    let first = |profile: &str| {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "io-pages"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "3G"
queue_depth = 128
max_sectors_kb = 1280
read_ahead_kb = 128
[files."/f"]
size = "8M"
[tasks.reader]
ops = [{{ op = "read", file = "/f", bufsize = "1M" }}]
"#
        ));
        let steps = io_per_step(&mut s);
        assert_invariants(&s.kernel);
        steps[0]
    };
    assert_eq!(first("linux-6.18"), (2, 2 << 20), "two windows of 256 pages, one request each");
    // 4.4: a 32-page window whose mark is its first page, merged by "readit:" with the next 32
    // (one 64-page request), then a 32-page window per mark: 64 + 7 x 32 pages for the first MiB.
    assert_eq!(first("linux-4.4"), (8, (64 + 7 * 32) * PAGE_SIZE), "32-page windows, the first two merged");
}

/// A 16 MiB file on a fast device under `profile`, nothing read yet (for direct calls into
/// readahead).
fn ra_file(profile: &str) -> (Simulation, InodeId) {
    let s = sim(&format!(r#"
[scenario]
name = "ra-window"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#));
    let f = inode(&s, "/f");
    (s, f)
}

/// A read as large as its window (cat's 128 KiB `read()` at `read_ahead_kb` 128: 32 pages, a
/// window of `get_init_ra_size(32, 32)` = 32): `page_cache_sync_ra()` of 6.18's
/// mm/readahead.c sets `ra->async_size = ra->size > req_count ? ra->size - req_count : ra->size
/// >> 1`, the mark half-way; 6.1's `ondemand_readahead()` marks the first page and "readit:"
/// merges the next window, capped at `max_pages`: the same 32 pages with the mark at 16. 4.4's
/// merge (2.6.31 to 4.19: `ra->async_size = get_next_ra_size(ra, max); ra->size +=
/// ra->async_size`) reads 64 pages with the mark at 32. Before, the engine marked the first
/// page in every era.
#[test]
fn a_read_as_large_as_its_window_is_marked_half_way_6_18_and_6_1_merged_4_4() {
    for (profile, window) in [("linux-6.18", (0, 32, 16)), ("linux-6.1", (0, 32, 16)), ("linux-4.4", (0, 64, 32))] {
        let (mut s, f) = ra_file(profile);
        let k = &mut s.kernel;
        let mut ra = FileRaState::new(32);
        k.page_cache_sync_ra(&mut ra, f, 0, 32, MemcgId::ROOT);
        assert_eq!((ra.start, ra.size, ra.async_size), window, "{profile}");
        let mark = window.1 - window.2;
        for i in 0..window.1 {
            assert_eq!(k.pages[page_at(k, f, i)].test(pg::READAHEAD), i == mark, "{profile}: page {i}");
        }
        assert!(k.mappings[f.idx()].lookup(window.1).is_none(), "{profile}: nothing past the window");
        assert_invariants(k);
    }
}

/// `page_cache_async_ra()` (6.18) / `ondemand_readahead()` (6.1) at the expected index:
/// "ra->size = max(ra->size, get_next_ra_size(ra, max_pages))" ("In the case of MADV_HUGEPAGE,
/// the actual size might exceed the readahead window", from 5.18): a 256-page window opened by
/// a 1 MiB read (up to `io_pages`) keeps 256 pages when the next hit's request (128 pages)
/// limits `max_pages` to 128; 5.17 (`ra->size = get_next_ra_size(ra, max_pages)`) halves it.
#[test]
fn an_async_window_keeps_a_larger_previous_size_from_5_18() {
    for (profile, size) in [("linux-6.18", 256), ("linux-6.1", 256), ("linux-5.17", 128)] {
        let (mut s, f) = ra_file(profile);
        let k = &mut s.kernel;
        let mut ra = FileRaState::new(32);
        (ra.start, ra.size, ra.async_size) = (0, 256, 128);
        // io_pages of the default device is larger than 128 pages: max_pages = min(128, io_pages).
        k.page_cache_async_ra(&mut ra, f, 128, 128, MemcgId::ROOT);
        assert_eq!((ra.start, ra.size, ra.async_size), (256, size, size), "{profile}");
        assert!(k.mappings[f.idx()].lookup(256 + size - 1).is_some(), "{profile}");
        assert!(k.mappings[f.idx()].lookup(256 + size).is_none(), "{profile}");
        assert_invariants(k);
    }
}

/// `page_cache_ra_unbounded()` (mm/readahead.c, 6.1 and 6.18): the batch `read_pages()` will
/// submit is the folios it added (`ractl->_index .. + _nr_pages`, locked since
/// `filemap_add_folio()`); a folio of the window already in the cache is stepped over, not
/// locked. So the reclaim run by the window's own charges may evict a cached page of the
/// window whose read has completed, and whether anything looked at that page's `PG_locked`
/// before (the engine clears it lazily, [`Kernel::folio_test_locked`]) changes nothing. Before
/// (h-obs20), `ra_pending` covered the whole window: a cached page of it whose flag had been
/// cleared counted as locked and was kept, one whose flag was still set was evicted, so a
/// query of the flag moved the result (trace-sqlite3-mmap@10M: 55 major faults unobserved,
/// 48 with every page of the database queried after each fault).
#[test]
fn readahead_batch_locks_only_the_folios_it_added_whether_or_not_observed() {
    let outcome = |observe: bool| {
        let mut s = sim(r#"
[scenario]
name = "ra-batch"
[machine]
ram = "1G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[files."/g"]
size = "2M"
[cgroups.ct]
"memory.limit_in_bytes" = "1M"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
        let (ct, f, g) = (memcg(&s, "ct"), inode(&s, "/f"), inode(&s, "/g"));
        let k = &mut s.kernel;
        // Page 8 of /f first (the oldest on the memcg's LRU), then /g up to the limit.
        k.do_page_cache_ra(f, 8, 1, 0, ct);
        let max = k.memcgs.get(ct).counter.max as u32;
        k.do_page_cache_ra(g, 0, max - page_usage(k, ct) as u32 - 8, 0, ct);
        k.now = k.mappings.iter().flat_map(|m| m.inflight.iter().map(|r| r.done)).max().unwrap() + 1;
        k.lru_add_drain();
        let p8 = page_at(k, f, 8);
        assert_eq!(k.lruvecs[k.folio_lruvec(p8)].tail(LruList::InactiveFile), Some(p8), "the oldest");
        assert!(k.pages[p8].test(pg::LOCKED), "PG_locked is cleared lazily");
        if observe {
            // Only a look: its read is complete, so it is not locked.
            assert!(!k.folio_test_locked(p8));
        }
        // A window over /f's first 16 pages: its new pages' charges reclaim.
        let before = k.devices[0].read_bytes;
        k.do_page_cache_ra(f, 0, 16, 0, ct);
        let read = (k.devices[0].read_bytes - before) / PAGE_SIZE;
        assert!(page_usage(k, ct) <= max as u64);
        assert_invariants(k);
        (read, (0..512).filter(|&i| k.mappings[g.idx()].lookup(i).is_some()).count())
    };
    let (unobserved, observed) = (outcome(false), outcome(true));
    // The window's first charges reclaim from the tail: page 8 goes, and the window reads it
    // again with the other 15.
    assert_eq!(unobserved.0, 16, "the cached, completed page 8 is evicted and read again");
    assert_eq!(observed, unobserved, "looking at PG_locked changes nothing");
}
