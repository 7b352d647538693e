//! A host recording's own measured costs (hostcal.rs: `[machine] read_large_folio_ns`,
//! `reclaim_call_ns`, `loop_read_window`).

use super::*;
use crate::hostcal::{read_split, window_read_bw};

/// A 6.18 ext4 machine with `machine` added to its [machine] table, two empty files /f and /g
/// and a loop device like the host runner's (hw queue, 1280 KiB requests, 13 us a request).
fn host(machine: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "hostcal"
[machine]
ram = "256M"
{machine}
[kernel]
profile = "linux-6.18"
cgroup = "v1"
[devices.sda]
read_bw = "500M"
write_bw = "400M"
blk_throttle = true
queue_read_bw = 3300000000
queue_write_bw = 3400000000
queue_depth = 128
request_latency = "50us"
request_read_bw = 1400000000
request_write_bw = 3500000000
request_cost = "13us"
max_sectors_kb = 1280
[files."/f"]
size = 0
[files."/g"]
size = 0
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// 6.18's `filemap_read()` takes a read's folios from `filemap_get_read_batch()` and does the
/// xarray step, the reference, `folio_mark_accessed()` and `folio_put()` once per folio, the
/// copy (`copy_page_to_iter()`) per 4 KiB page: a page of an order-`o` folio costs
/// `c + f * v(o) / 32` for a 128 KiB read visiting `v(o) = max(32 >> o, 1)` folios. The split
/// from v782's measured orders 2, 4, 8 (566, 469, 426 ns a page, ra21 2026-11-30 00:48) by least
/// squares: a per-folio term of ~600 ns, so that an order-2 page costs 1.3x an order-8 one, as
/// measured; one order alone, or orders that all visit one folio a read, give no per-folio term.
#[test]
fn read_split_takes_a_per_folio_term_from_the_orders_6_18() {
    let (c, f) = read_split(&[(2, 566), (4, 469), (8, 426)], 169);
    assert!((410..=425).contains(&c) && (580..=615).contains(&f), "c {c} f {f}");
    // The fit gives back the measurements within 15 ns (the syscall's 5 ns a page added back).
    for (o, ns) in [(2u32, 566i64), (4, 469), (8, 426)] {
        let v = (32u64 >> o).max(1);
        let model = (c + f * v / 32 + 169 / 32) as i64;
        assert!((model - ns).abs() <= 15, "order {o}: {model} against {ns}");
    }
    assert_eq!(read_split(&[(8, 426)], 169), (421, 0), "one order: no per-folio term");
    assert_eq!(read_split(&[(5, 430), (8, 420)], 169).1, 0, "orders 5 and 8 both visit one folio a 128 KiB read");
    assert_eq!(read_split(&[(2, 400), (8, 500)], 169), (445, 0), "a negative per-folio term is noise: the mean, none");
}

/// `[machine] read_large_folio_ns` sets `read_large_folio_page` and `read_large_folio`, and a hot
/// 128 KiB `filemap_read()` (6.18) of order-2 folios then costs 8 folio visits, of an order-8
/// folio one: the order-2 read is dearer by 7 x `read_large_folio`. Without the keys the table's
/// `read_large_folio` is 0 and both cost the same (v857's M15, flat in the order).
#[test]
fn a_read_of_small_large_folios_pays_each_folio_6_18() {
    let cost_of = |machine: &str| {
        let mut s = host(machine);
        let (f, g) = (inode(&s, "/f"), inode(&s, "/g"));
        let k = &mut s.kernel;
        for off in (0..(128 << 10)).step_by(16 << 10) {
            k.generic_perform_write(f, off, 16 << 10, MemcgId::ROOT).unwrap();
        }
        k.generic_perform_write(g, 0, 1 << 20, MemcgId::ROOT).unwrap();
        assert_eq!(super::readahead::folios(k, f), (0..8).map(|i| (i * 4, 2)).collect::<Vec<_>>());
        assert_eq!(super::readahead::folios(k, g), vec![(0, 8)]);
        let mut ra = FileRaState::new(256);
        let mut time = |ino| {
            // two reads first: every folio referenced, then active (no activation in the timed one)
            for _ in 0..2 {
                k.filemap_read(ino, 0, 128 << 10, &mut ra, MemcgId::ROOT).unwrap();
            }
            let t0 = k.sys_ns;
            assert_eq!(k.filemap_read(ino, 0, 128 << 10, &mut ra, MemcgId::ROOT), Ok(128 << 10));
            k.sys_ns - t0
        };
        let (o2, o8) = (time(f), time(g));
        (o2, o8, k.cost.clone())
    };
    let (o2, o8, c) = cost_of("read_large_folio_ns = [[2, 566], [4, 469], [8, 426]]");
    assert!(c.read_large_folio > 500, "{}", c.read_large_folio);
    assert_eq!(o8, c.syscall + c.read_large_folio + 32 * c.read_large_folio_page);
    assert_eq!(o2, c.syscall + 8 * c.read_large_folio + 32 * c.read_large_folio_page);
    // ~ the measured 566 and 426 ns a page
    assert!((550 * 32..=580 * 32).contains(&o2) && (420 * 32..=445 * 32).contains(&o8), "{o2} {o8}");
    let (o2, o8, c) = cost_of("");
    assert_eq!((c.read_large_folio, c.read_large_folio_page), (0, 115));
    assert_eq!(o2, o8, "the table: flat in the order");
}

/// `[machine] reclaim_call_ns`: a memcg reclaim that frees nothing over its `isolate_lru_folios()`
/// calls (M13's method, `shrink_inactive_list()` meeting one locked large folio a call, 6.18):
/// `shrink_list_call` is it less the `scan_page` of the folio each call takes, as M13's 748 gave
/// the table's 550; the other reclaim entries stay the table's.
#[test]
fn reclaim_call_ns_sets_shrink_list_call_6_18() {
    let s = host("reclaim_call_ns = 262");
    let r = crate::profile::CpuCost::reference();
    assert_eq!(s.kernel.cost.shrink_list_call, 262 - r.scan_page);
    assert_eq!((s.kernel.cost.scan_page, s.kernel.cost.evict_page), (r.scan_page, r.evict_page));
    assert_eq!(host("").kernel.cost.shrink_list_call, r.shrink_list_call);
}

/// `[machine] loop_read_window`: an 8 MiB read on the idle loop device is 7 requests of at most
/// 1280 KiB issued together, the last done after each one's `request_cost` and the 8 MiB at the
/// bandwidth they share (`HwQueue::dispatch()`, blk-mq's driver tags and loop's `lo_rw_aio()`):
/// that bandwidth is 8 MiB / (window - 7 x 13 us); the device's write side stays.
#[test]
fn loop_read_window_sets_the_loop_devices_shared_read_bandwidth() {
    assert_eq!(window_read_bw(1_600_000, 1280, 13_000), Some(8 * 1048576 * 1_000_000_000 / (1_600_000 - 91_000)));
    assert_eq!(window_read_bw(90_000, 1280, 13_000), None);
    let bw = |m: &str| {
        let scn = crate::Document::from_toml("s.toml", &host_toml(m)).unwrap().resolve(None, &[]).unwrap();
        scn.devices[0].hw.as_ref().unwrap().bw
    };
    assert_eq!(bw("loop_read_window = \"1600us\""), [window_read_bw(1_600_000, 1280, 13_000).unwrap(), 3_400_000_000]);
    assert_eq!(bw(""), [3_300_000_000, 3_400_000_000]);
}

/// `[machine] loop_read_window_spans` (spans21, lab/validation/spans-rule.md 1): a run's lone
/// 8 MiB windows one by one become the loop device's read batches, each span's rate by the
/// window's own rule (8 MiB / (span - 7 x 13 us)), in the order given (the draw is
/// `HwQueue::shared_bw()`'s, one per busy period from the boot seed); the median window stays
/// the shared rate `bw[0]`; without spans the window clears the batches (one rate for all, the
/// engine before spans21); a device's own `queue_read_bw_batches` are replaced by the spans'.
#[test]
fn loop_read_window_spans_become_the_loop_devices_read_batches() {
    let hw = |m: &str| {
        let scn = crate::Document::from_toml("s.toml", &host_toml(m)).unwrap().resolve(None, &[]).unwrap();
        let h = scn.devices[0].hw.clone().unwrap();
        (h.bw, h.read_bw_batches)
    };
    let r = |ns| window_read_bw(ns, 1280, 13_000).unwrap();
    let (bw, batches) = hw("loop_read_window = \"3200us\"\nloop_read_window_spans = [\"3000us\", \"3200us\", \"3900us\"]");
    assert_eq!(bw, [r(3_200_000), 3_400_000_000]);
    assert_eq!(batches, vec![r(3_000_000), r(3_200_000), r(3_900_000)]);
    assert_eq!(hw("loop_read_window = \"3200us\"").1, Vec::<u64>::new());
    // a simulation built from them draws from the spans' rates
    let s = host("loop_read_window = \"3200us\"\nloop_read_window_spans = [\"3000us\", \"3900us\"]");
    assert_eq!(s.kernel.devices[0].hw.as_ref().unwrap().read_bw_batches, vec![r(3_000_000), r(3_900_000)]);
}

/// Bad `[machine] loop_read_window_spans`: not an array, empty, a span that is no duration or out
/// of range, a span no longer than the requests' costs, spans without their median window.
#[test]
fn bad_loop_read_window_spans_are_refused_with_the_fix() {
    for (m, want) in [
        ("loop_read_window = \"3ms\"\nloop_read_window_spans = \"3ms\"", "machine.loop_read_window_spans must be an array of durations"),
        ("loop_read_window = \"3ms\"\nloop_read_window_spans = []", "machine.loop_read_window_spans is empty"),
        ("loop_read_window = \"3ms\"\nloop_read_window_spans = [3000000]", "a machine.loop_read_window_spans span must be a duration string"),
        ("loop_read_window = \"3ms\"\nloop_read_window_spans = [\"1us\"]", "span is 1000 ns, outside 10us to 10s"),
        ("loop_read_window = \"3ms\"\nloop_read_window_spans = [\"3ms\", \"50us\"]", "span is 50000 ns, no longer than the request_cost"),
        ("loop_read_window_spans = [\"3ms\"]", "machine.loop_read_window_spans without machine.loop_read_window"),
    ] {
        let toml = host_toml(m);
        let e = crate::Document::from_toml("s.toml", &toml).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(want), "{m}: {e}");
        assert!(e.contains("s.toml:"), "{m}: the place: {e}");
        assert!(e.contains("fix: "), "{m}: the fix: {e}");
    }
}

/// Bad values of the three keys: an error that names the key and says what to write.
#[test]
fn bad_host_cost_values_are_refused_with_the_fix() {
    for (m, want) in [
        ("read_large_folio_ns = []", "must be a non-empty array"),
        ("read_large_folio_ns = [[0, 400]]", "order 0 is not a large folio's"),
        ("read_large_folio_ns = [[8, 400], [2, 500]]", "does not follow the order before it"),
        ("read_large_folio_ns = [[2, 0]]", "outside 1 ns to 1 ms"),
        ("read_large_folio_ns = [400]", "is not an (order, ns) pair"),
        ("read_large_folio_ns = 400", "must be a non-empty array of (order, ns) pairs, not"),
        ("reclaim_call_ns = 0", "machine.reclaim_call_ns is 0"),
        ("loop_read_window = \"1us\"", "outside 10us to 10s"),
        ("loop_read_window = \"50us\"", "no longer than the request_cost"),
        ("loop_worker_run = \"10ns\"", "outside 100ns to 100ms"),
        ("loop_worker_run = 40", "machine.loop_worker_run"),
        ("runner_sampler = -1", "machine.runner_sampler is outside 0 to 1000 CPUs"),
        ("runner_sampler = \"0.2\"", "machine.runner_sampler must be a number"),
        ("anon_fault_ns = 0", "machine.anon_fault_ns is 0, outside 1 ns to 1 ms"),
        ("clear_page_ns = 2000000", "machine.clear_page_ns is 2000000, outside"),
        ("zap_page_ns = -3", "machine.zap_page_ns"),
        ("zap_page_ns = \"250ns\"", "machine.zap_page_ns"),
        ("anon_fault_ns = 300\nclear_page_ns = 338", "machine.anon_fault_ns is 300, not more than clear_page_ns 338"),
        // review48 M4: THP "always" base rounds fault huge pages, ~100 ns a 4 KiB page; without
        // clear_page_ns the clearing in effect is the table's 150 (at the slowdown): 6.18
        // do_anonymous_page()'s fault includes its clear_page(), so the fault can not be less.
        ("anon_fault_ns = 100", "machine.anon_fault_ns is 100, not more than the clear_page cost in effect, the table's 150 ns"),
        ("anon_fault_ns = 150", "the table's 150 ns (no machine.clear_page_ns)"),
        ("anon_fault_ns = 250\ncpu_slowdown = 2", "machine.anon_fault_ns is 250, not more than the clear_page cost in effect, the table's 300 ns"),
    ] {
        let toml = host_toml(m);
        let e = crate::Document::from_toml("s.toml", &toml).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(want), "{m}: {e}");
        assert!(e.contains("s.toml:"), "{m}: the place: {e}");
    }
}

/// review49 L3: `[machine] vmpressure_work_run` (kwork23c; the wait behind mm/vmpressure.c
/// `vmpressure_work_fn()` on linux-6.18) refuses the same bad values as `loop_worker_run`: a
/// duration outside 100ns to 100ms, a word that is no duration, a bare number. Each error names
/// the file, line and column of the value (line 5 of `host_toml`, column 23 after
/// `vmpressure_work_run = `) and says what to write.
#[test]
fn bad_vmpressure_work_run_is_refused_with_the_place_and_the_fix() {
    for (v, want, fix) in [
        ("\"1ns\"", "machine.vmpressure_work_run is 1 ns, outside 100ns to 100ms", "write the measured wait, such as \"11us\""),
        ("\"200ms\"", "machine.vmpressure_work_run is 200000000 ns, outside 100ns to 100ms", "write the measured wait, such as \"11us\""),
        ("\"abc\"", "machine.vmpressure_work_run: ", "write a duration with a unit"),
        ("11", "machine.vmpressure_work_run must be a duration string, not", "write a duration with a unit"),
    ] {
        let toml = host_toml(&format!("vmpressure_work_run = {v}"));
        let e = crate::Document::from_toml("s.toml", &toml).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains("s.toml:5:23"), "{v}: the place: {e}");
        assert!(e.contains(want), "{v}: {e}");
        assert!(e.contains(fix), "{v}: the fix: {e}");
    }
    let ok = crate::Document::from_toml("s.toml", &host_toml("vmpressure_work_run = \"11us\"")).unwrap().resolve(None, &[]).unwrap();
    assert_eq!(ok.machine.host_cost.vmpressure_work_run, Some(11_000));
}

/// `[machine] anon_fault_ns`, `clear_page_ns`, `zap_page_ns` (M11/M12's method, hostcal23): the
/// first-touch fault of a base page (6.18 `do_anonymous_page()`, its `clear_page()` included)
/// sets `anon_fault` to it less the clearing, `clear_page` and `zap_page` to theirs; the rest of
/// the table stays. The figures are test inputs set apart from the table's, not a host's (the
/// quiet v669h set, host-stall-alone-p16m's header, measured a fault of 1653-1775 ns, clearing
/// 81-135, munmap 203-223): the table's 1305 ns fault with a 338 ns clearing is 967 + 338.
/// Without the keys: the table (v857's 1155 + 150, 250).
#[test]
fn anon_fault_costs_set_the_tables_anonymous_entries_6_18() {
    let r = crate::profile::CpuCost::reference();
    let c = host("anon_fault_ns = 2100\nclear_page_ns = 338\nzap_page_ns = 310").kernel.cost.clone();
    assert_eq!((c.anon_fault, c.clear_page, c.zap_page), (2100 - 338, 338, 310));
    assert_eq!((c.thp_fault, c.zap_thp, c.mmap_call, c.migrate_page), (r.thp_fault, r.zap_thp, r.mmap_call, r.migrate_page));
    let c = host("anon_fault_ns = 151").kernel.cost.clone();
    assert_eq!((c.anon_fault, c.clear_page), (1, r.clear_page), "a fault just above the table's clearing is taken (review48 M4's bound)");
    let c = host("anon_fault_ns = 1305").kernel.cost.clone();
    assert_eq!((c.anon_fault, c.clear_page, c.zap_page), (1305 - r.clear_page, r.clear_page, r.zap_page), "the fault alone: less the table's clearing");
    let c = host("clear_page_ns = 338").kernel.cost.clone();
    assert_eq!((c.anon_fault, c.clear_page), (r.anon_fault, 338), "the clearing alone moves only clear_page");
    let c = host("").kernel.cost.clone();
    assert_eq!((c.anon_fault, c.clear_page, c.zap_page), (1155, 150, 250), "no keys: the table");
}

/// An `mmap_probe` round (mmap, a first touch of each base page, munmap; sched.rs
/// `OpKind::MmapProbe`) of 16 MiB on a 6.18 host: its per-page work is the fault (anon_fault +
/// clear_page) and the munmap (zap_page), 1305 + 250 ns in the table; with measured costs of
/// 2100 ns a fault, 338 of it clearing, 310 a munmap (test inputs, not a host's) 2410: the round grows in that
/// ratio (the same CPU share and fixed mmap()/munmap() calls in both).
#[test]
fn a_probe_round_takes_the_measured_anonymous_costs_6_18() {
    let first_round = |machine: &str| {
        let toml = format!("[scenario]\nname = \"p\"\n[machine]\nram = \"256M\"\n{machine}\n[kernel]\nprofile = \"linux-6.18\"\n[tasks.w]\nops = [{{ op = \"sleep\", duration = \"30ms\" }}]\n[tasks.p]\nops = [{{ op = \"mmap_probe\", size = \"16M\", interval = \"5ms\", while_task = \"w\", step = \"probe\" }}]\n");
        let res = sim(&toml).run(&mut |_, _| true).unwrap();
        assert!(res.errors.is_empty(), "{:?}", res.errors);
        res.steps.iter().find(|st| st.name == "probe").expect("the probe step").samples[0]
    };
    let (t, h) = (first_round(""), first_round("anon_fault_ns = 2100\nclear_page_ns = 338\nzap_page_ns = 310"));
    let ratio = h as f64 / t as f64;
    let want = (2100.0 + 310.0) / (1305.0 + 250.0);
    assert!((ratio / want - 1.0).abs() < 0.01, "table {t} ns, measured {h} ns: x{ratio:.3}, want x{want:.3}");
}

fn host_toml(machine: &str) -> String {
    format!("[scenario]\nname = \"h\"\n[machine]\nram = \"256M\"\n{machine}\n[kernel]\nprofile = \"linux-6.18\"\n[devices.sda]\nread_bw = \"500M\"\nblk_throttle = true\nqueue_read_bw = 3300000000\nqueue_depth = 128\nrequest_latency = \"50us\"\nrequest_read_bw = 1400000000\nqueue_write_bw = 3400000000\nrequest_write_bw = 3500000000\nwrite_bw = \"400M\"\nrequest_cost = \"13us\"\nmax_sectors_kb = 1280\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n")
}

/// `[machine] reclaim_call_spans` (reclaim21, lab/validation/reclaim-spans-rule.md): each memcg
/// reclaim (`try_to_free_mem_cgroup_pages()`, 6.18 mm/vmscan.c) draws one of the run's own
/// failing reclaims' per-call costs; `shrink_list_call` is the draw less `scan_page` (as for
/// `reclaim_call_ns`) for that reclaim only, the scalar again after it. The draws are the
/// boot seed's: the same seed the same sequence, another seed another; every sample is drawn.
#[test]
fn reclaim_call_spans_draw_one_per_memcg_reclaim_from_the_boot_seed_6_18() {
    let r = crate::profile::CpuCost::reference();
    let draws = |seed: u64| {
        let mut s = host("reclaim_call_ns = 300\nreclaim_call_spans = [250, 300, 700]");
        assert_eq!(s.kernel.reclaim_call_draws, vec![250 - r.scan_page, 300 - r.scan_page, 700 - r.scan_page]);
        s.kernel.set_reclaim_call_spans(&[250, 300, 700], seed);
        (0..64).map(|_| {
            let keep = s.kernel.draw_reclaim_call();
            let d = s.kernel.cost.shrink_list_call;
            s.kernel.cost.shrink_list_call = keep;
            assert_eq!(keep, 300 - r.scan_page, "the scalar stays the median's");
            d + r.scan_page
        }).collect::<Vec<u64>>()
    };
    let a = draws(0);
    assert_eq!(a, draws(0), "one boot seed, one sequence");
    assert_ne!(a, draws(3), "another boot, other draws");
    for v in [250, 300, 700] {
        assert!(a.contains(&v), "{v} never drawn in {a:?}");
    }
    assert!(a.iter().all(|v| [250, 300, 700].contains(v)));
}

/// A memcg reclaim with `reclaim_call_spans` of one sample costs what `reclaim_call_ns` of that
/// sample costs (the draw is the reclaim's per-call cost), and leaves `shrink_list_call` at the
/// scalar; without spans nothing is drawn (the random state untouched, outputs as before).
#[test]
fn a_memcg_reclaim_costs_its_drawn_span_and_restores_the_scalar_6_18() {
    let elapsed = |m: &str| {
        let mut s = host(&format!("{m}\n[files.\"/h\"]\nsize = \"16M\""));
        let h = inode(&s, "/h");
        let k = &mut s.kernel;
        let c = k.cgroup_mkdir("/c").unwrap();
        read_pages(k, h, 0, 4096, c);
        let (t0, rand0) = (k.now, k.reclaim_call_rand);
        assert!(k.try_to_free_mem_cgroup_pages(c, 32) >= 32);
        (k.now - t0, k.cost.shrink_list_call, k.reclaim_call_rand != rand0)
    };
    let r = crate::profile::CpuCost::reference();
    let (spans, after, drew) = elapsed("reclaim_call_ns = 262\nreclaim_call_spans = [2000]");
    let (scalar, after_scalar, drew_none) = elapsed("reclaim_call_ns = 2000");
    assert_eq!(spans, scalar, "the reclaim's calls cost the drawn 2000 ns");
    assert_eq!((after, after_scalar), (262 - r.scan_page, 2000 - r.scan_page));
    assert!(drew && !drew_none);
    let (low, _, _) = elapsed("reclaim_call_ns = 262");
    assert!(low < spans, "{low} {spans}");
}

/// Bad `[machine] reclaim_call_spans`: not an array, empty, a sample that is no whole number or
/// out of range, spans without their median `reclaim_call_ns`.
#[test]
fn bad_reclaim_call_spans_are_refused_with_the_fix() {
    for (m, want) in [
        ("reclaim_call_ns = 300\nreclaim_call_spans = 300", "machine.reclaim_call_spans must be an array of whole numbers of ns"),
        ("reclaim_call_ns = 300\nreclaim_call_spans = []", "machine.reclaim_call_spans is empty"),
        ("reclaim_call_ns = 300\nreclaim_call_spans = [\"300ns\"]", "a machine.reclaim_call_spans sample"),
        ("reclaim_call_ns = 300\nreclaim_call_spans = [2000000]", "sample is 2000000, outside 1 ns to 1 ms a call"),
        ("reclaim_call_spans = [300]", "machine.reclaim_call_spans without machine.reclaim_call_ns"),
    ] {
        let toml = host_toml(m);
        let e = crate::Document::from_toml("s.toml", &toml).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(want), "{m}: {e}");
        assert!(e.contains("s.toml:"), "{m}: the place: {e}");
        assert!(e.contains("fix: "), "{m}: the fix: {e}");
    }
}

/// `[machine] reclaim_folio_ns`, `reclaim_tail_page_ns` (orders61, issue 21: hostcal.py
/// `reclaim_freed_from()`'s per-folio and per-tail-page terms of a successful memcg reclaim):
/// `evict_page` is the per-folio figure less the engine's other per-folio terms of an eviction
/// (`scan_page`, the uncharge's `charge`), `evict_tail_page` the per-tail-page one; the rest of
/// the table stays. Without the keys: the table's 530 and no tail-page term. The figures are test
/// inputs, not a host's.
#[test]
fn reclaim_freed_costs_set_evict_page_and_evict_tail_page_6_18() {
    let r = crate::profile::CpuCost::reference();
    let c = host("reclaim_folio_ns = 1800\nreclaim_tail_page_ns = 25").kernel.cost.clone();
    assert_eq!((c.evict_page, c.evict_tail_page), (1800 - r.scan_page - r.charge, 25));
    assert_eq!((c.scan_page, c.charge, c.shrink_list_call, c.reclaim_call), (r.scan_page, r.charge, r.shrink_list_call, r.reclaim_call));
    let c = host("reclaim_fixed_ns = 3000\nreclaim_batch_ns = 1700\nreclaim_call_ns = 900").kernel.cost.clone();
    assert_eq!((c.reclaim_call, c.evict_batch, c.shrink_list_call), (3000, 1700 - 900, 900 - r.scan_page), "a freeing batch less the failing call");
    let c = host("").kernel.cost.clone();
    assert_eq!((c.evict_page, c.evict_tail_page, c.evict_batch, c.reclaim_call), (530, 0, 0, 1500), "no keys: the table");
    for (m, want) in [("reclaim_folio_ns = 0", "machine.reclaim_folio_ns is 0"), ("reclaim_tail_page_ns = 2000000", "machine.reclaim_tail_page_ns is 2000000")] {
        let e = crate::Document::from_toml("s.toml", &host_toml(m)).unwrap().resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains(want), "{m}: {e}");
    }
}

/// 6.18 `free_pages_prepare()` walks a freed compound page's `2^order - 1` tail pages
/// (`free_tail_page_prepare()`): reclaim's eviction of an order-8 folio costs 255
/// `evict_tail_page` more than the same eviction without the term, an order-0 page nothing more.
#[test]
fn evicting_a_large_folio_pays_each_tail_page_6_18() {
    let cost = |machine: &str, order: u32| {
        let mut s = sim(&format!(
            "[scenario]\nname = \"tail\"\n[machine]\nram = \"1G\"\n{machine}\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
             [devices.sda]\nread_bw = \"1G\"\n[files.\"/f\"]\nsize = \"16M\"\n[cgroups.A]\n\"memory.limit_in_bytes\" = \"64M\"\n\
             [tasks.t]\ncgroup = \"A\"\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
        ));
        let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
        let k = &mut s.kernel;
        if order == 0 {
            k.filemap_add_folio(f, 256, a, true).unwrap();
        } else {
            k.filemap_add_large_folio(f, 256, order, a, true).unwrap();
        }
        let t0 = k.sys_ns;
        isolate_and_evict(k, f, 256);
        k.sys_ns - t0
    };
    assert_eq!(cost("reclaim_tail_page_ns = 25", 8), cost("", 8) + 25 * 255);
    assert_eq!(cost("reclaim_tail_page_ns = 25", 0), cost("", 0));
}

/// orders61: a `shrink_inactive_list()` batch that frees pays `evict_batch` once (6.18
/// `shrink_folio_list()`'s `mem_cgroup_uncharge_folios()` and `free_unref_folios()` of its
/// `free_folios`), and `reclaim_fixed_ns` is the reclaim's `reclaim_call`: a memcg reclaim of 32
/// order-0 page-cache folios costs 1500 ns more with `reclaim_fixed_ns` 1500 above the table's, and
/// 800 more a freeing batch with `reclaim_batch_ns` 800 above the failing call; with nothing to
/// free, no batch pays.
#[test]
fn a_freeing_batch_pays_evict_batch_and_the_reclaim_its_fixed_cost_6_18() {
    let cost = |machine: &str, pages: u32| {
        let mut s = sim(&format!(
            "[scenario]\nname = \"batch\"\n[machine]\nram = \"1G\"\nreclaim_call_ns = 900\n{machine}\n[kernel]\nprofile = \"linux-6.18\"\ncgroup = \"v1\"\n\
             [devices.sda]\nread_bw = \"1G\"\n[files.\"/f\"]\nsize = \"16M\"\n[cgroups.A]\n\"memory.limit_in_bytes\" = \"64M\"\n\
             [tasks.t]\ncgroup = \"A\"\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n"
        ));
        let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
        let k = &mut s.kernel;
        for i in 0..pages {
            k.filemap_add_folio(f, i, a, true).unwrap();
        }
        k.lru_add_drain();
        let t0 = k.sys_ns;
        let freed = k.try_to_free_mem_cgroup_pages(a, 32);
        (k.sys_ns - t0, freed)
    };
    let (base, freed) = cost("", 32);
    assert_eq!(freed, 32);
    assert_eq!(cost("reclaim_fixed_ns = 3000", 32), (base + 1500, 32), "once a reclaim");
    let (with, _) = cost("reclaim_batch_ns = 1700", 32);
    // the 32 folios go in a few small batches as the priority falls (lruvec size >> priority)
    assert!(with > base && (with - base) % 800 == 0, "{with} - {base}: 800 per freeing batch");
    let (none, _) = cost("", 0);
    assert_eq!(cost("reclaim_batch_ns = 1700", 0).0, none, "nothing freed: no batch pays");
}
