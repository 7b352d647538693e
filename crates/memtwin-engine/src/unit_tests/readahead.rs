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
/// enough that the first pages are still being read while the rest are tried).
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
read_bw = "10M"
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
