//! Swap held to Linux 6.1 (mm/swapfile.c, mm/swap_state.c, mm/memcontrol.c's swap
//! accounting, mm/vmscan.c `get_scan_count()`).

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::swapfile::swapin_nr_pages;
use crate::vmscan::{scan_fraction_cost, scan_fraction_rotated};
use crate::vmstat::VmEvent;

/// An anonymous hog of `anon` in a cgroup `ct` with the extra cgroup keys `cg`, on a machine
/// with 256M of swap.
fn hog(cgroup: &str, anon: &str, cg: &str, kernel: &str) -> String {
    let max = if cgroup == "v1" { "memory.limit_in_bytes" } else { "memory.max" };
    format!(
        r#"
[scenario]
name = "swap"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "linux-6.1"
cgroup = "{cgroup}"
{kernel}
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"{max}" = "16M"
{cg}
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "m", size = "{anon}", step = "touch 1" }},
  {{ op = "touch", name = "m", step = "touch 1" }},
  {{ op = "touch", name = "m", step = "touch 2" }},
]
"#
    )
}

/// `__swapin_nr_pages()` (mm/swap_state.c, 6.1): no hits and a fault not next to the last
/// one read one page; next to it, two; hits + 2 rounded up to a power of two from 4, capped
/// at `1 << page_cluster`; never below half the last window.
#[test]
fn swapin_nr_pages_6_1() {
    assert_eq!(swapin_nr_pages(100, 500, 0, 8, 0), 1);
    assert_eq!(swapin_nr_pages(100, 101, 0, 8, 0), 2);
    assert_eq!(swapin_nr_pages(100, 99, 0, 8, 0), 2);
    assert_eq!(swapin_nr_pages(100, 500, 1, 8, 0), 4);
    assert_eq!(swapin_nr_pages(100, 500, 3, 8, 0), 8);
    assert_eq!(swapin_nr_pages(100, 500, 40, 8, 0), 8);
    // "Don't shrink readahead too fast"
    assert_eq!(swapin_nr_pages(100, 500, 0, 8, 8), 4);
}

/// `get_scan_count()` SCAN_FRACT of 6.1 (the 5.8+ cost model): equal costs at swappiness 100
/// weigh anon and file alike; swappiness 0 gives anon nothing; a higher anon cost (pages
/// swapped out) moves pressure to file, "at least a third of the pressure" kept on each.
#[test]
fn scan_fraction_cost_6_1() {
    let (ap, fp, den) = scan_fraction_cost(100, 50, 50);
    assert_eq!(ap, fp);
    assert_eq!(den, ap + fp);
    assert_eq!(scan_fraction_cost(0, 10, 10).0, 0);
    let (ap, fp, _) = scan_fraction_cost(60, 1000, 0);
    assert!(ap < fp, "anon costly: file scanned more");
    // total = 1000, anon = 2000, file = 1000: ap = 60 * 3001 / 2001, fp = 140 * 3001 / 1001
    assert_eq!((ap, fp), (60 * 3001 / 2001, 140 * 3001 / 1001));
}

/// `get_scan_count()` SCAN_FRACT before 5.8 (5.0): `anon_prio = swappiness`, `file_prio = 200 -
/// swappiness`, each times `(recent_scanned + 1) / (recent_rotated + 1)`; denominator `ap +
/// fp + 1`.
#[test]
fn scan_fraction_rotated_5_0() {
    assert_eq!(scan_fraction_rotated(60, [99, 99], [0, 0]), (6000, 14000, 20001));
    // Rotated anon pages (activated, or new anonymous pages before 5.9) protect anon.
    let (ap, fp, _) = scan_fraction_rotated(60, [99, 99], [99, 0]);
    assert_eq!(ap, 60);
    assert!(ap < fp);
}

/// `scan_swap_map_slots()` (6.1, a rotational device: no cluster_info): slots are handed out
/// forward from `cluster_next`, a freed slot is not reused before the scan wraps to the
/// lowest free one, slot 0 (the header) never; the area's usable pages are its size less the
/// header.
#[test]
fn swap_slots_go_forward_6_1() {
    use crate::swapfile::SwapArea;
    let mut a = SwapArea::new(crate::types::DevId(0), 0, 8);
    assert_eq!(a.pages, 7);
    let m = MemcgId::ROOT;
    assert_eq!((a.alloc(1, m), a.alloc(1, m), a.alloc(1, m)), (Some(1), Some(2), Some(3)));
    a.free(2);
    assert_eq!(a.alloc(1, m), Some(4), "forward, not the freed slot");
    assert_eq!((a.alloc(1, m), a.alloc(1, m), a.alloc(1, m)), (Some(5), Some(6), Some(7)));
    assert_eq!(a.alloc(1, m), Some(2), "wrapped to the lowest free slot");
    assert_eq!(a.alloc(1, m), None, "full");
    assert_eq!(a.inuse, 7);
}

/// 6.1 `swap_alloc_cluster()`: a PMD-sized folio's 512 slots are a wholly free,
/// `SWAPFILE_CLUSTER`-aligned cluster, never cluster 0 (the header's), taken from the free
/// list; a free run across two clusters does not do (review61 M2: the engine took the first
/// free run, slot 1 on an empty area). On a 2048-slot area with one slot in use in each of
/// clusters 1-3 the 599 free slots from 101 to 699 are no cluster: the request fails (the
/// caller splits the folio); freeing cluster 2's slot gives it cluster 2.
#[test]
fn a_pmd_sized_swap_request_takes_a_free_aligned_cluster_6_1() {
    use crate::swapfile::{SwapArea, SWAPFILE_CLUSTER};
    let m = MemcgId::ROOT;
    let mut a = SwapArea::new(crate::types::DevId(0), 0, 4 * SWAPFILE_CLUSTER);
    assert_eq!(a.alloc(SWAPFILE_CLUSTER, m), Some(SWAPFILE_CLUSTER as u32), "cluster 1 on an empty area, not slot 1");
    let mut a = SwapArea::new(crate::types::DevId(0), 0, 4 * SWAPFILE_CLUSTER);
    for _ in 1..4 * SWAPFILE_CLUSTER {
        a.alloc(1, m).unwrap();
    }
    for s in 1..4 * SWAPFILE_CLUSTER as u32 {
        if ![100, 700, 1300, 1700].contains(&s) {
            a.free(s);
        }
    }
    assert_eq!(a.alloc(SWAPFILE_CLUSTER, m), None, "no wholly free cluster (a free run of 599 from 101)");
    a.free(1300);
    assert_eq!(a.alloc(SWAPFILE_CLUSTER, m), Some(2 * SWAPFILE_CLUSTER as u32));
}

/// memory.swap.max (v2): with room for the overage the hog swaps within it; with
/// memory.swap.max = 0 `mem_cgroup_get_nr_swap_pages()` is 0, `get_scan_count()` scans no
/// anon (SCAN_FILE), and the hog is OOM-killed without touching swap.
#[test]
fn swap_max_caps_the_memcgs_swap_v2_6_1() {
    let mut s = sim(&hog("v2", "20M", r#""memory.swap.max" = "8M""#, ""));
    run(&mut s);
    let ct = memcg(&s, "ct");
    let k = &s.kernel;
    let m = k.memcgs.get(ct);
    assert!(m.swap > 0 && m.swap <= 8 << 8, "swap {} pages within memory.swap.max", m.swap);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::OomKill), 0);
    k.check_invariants().unwrap();

    let mut s = sim(&hog("v2", "20M", r#""memory.swap.max" = "0""#, ""));
    run(&mut s);
    let ct = memcg(&s, "ct");
    let k = &s.kernel;
    assert_eq!(k.memcgs.get(ct).swap, 0);
    assert_eq!(k.vmstat.get(VmEvent::Pswpout), 0);
    assert!(k.memcgs.events(ct, MemcgEvent::OomKill) > 0);
    k.check_invariants().unwrap();
}

/// v1 memsw (`do_memsw_account()`): memory + swap within memory.memsw.limit_in_bytes; with
/// the memsw limit equal to the memory limit nothing may be swapped (a memsw failure reclaims
/// without `MEMCG_RECLAIM_MAY_SWAP`) and the hog is OOM-killed.
#[test]
fn memsw_limits_memory_and_swap_v1_6_1() {
    let mut s = sim(&hog("v1", "20M", r#""memory.memsw.limit_in_bytes" = "24M""#, ""));
    run(&mut s);
    let ct = memcg(&s, "ct");
    let k = &s.kernel;
    let m = k.memcgs.get(ct);
    assert!(m.swap > 0);
    assert!(m.counter.usage + m.swap <= 24 << 8);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::OomKill), 0);
    k.check_invariants().unwrap();

    let mut s = sim(&hog("v1", "20M", r#""memory.memsw.limit_in_bytes" = "16M""#, ""));
    run(&mut s);
    let ct = memcg(&s, "ct");
    assert_eq!(s.kernel.memcgs.get(ct).swap, 0);
    assert!(s.kernel.memcgs.events(ct, MemcgEvent::OomKill) > 0);
}

/// v1 memsw (`try_charge_memcg()`, 6.1: memsw is tried before memory) holds for the faults
/// taken as a run too (`charge_is_quiet()`): with memsw 2M above the memory limit the hog
/// fills memory, swaps 2M, then every charge fails memsw and reclaims without swapping until
/// the OOM kill; no charge may pass memory + swap over the memsw limit meanwhile.
#[test]
fn memsw_holds_for_fault_runs_v1_6_1() {
    let mut s = sim(&hog("v1", "20M", r#""memory.memsw.limit_in_bytes" = "18M""#, ""));
    let ct = memcg(&s, "ct");
    let mut peak = (0, 0);
    let steps = run_with(&mut s, |s| {
        let m = s.kernel.memcgs.get(ct);
        if m.counter.usage + m.swap > peak.0 + peak.1 {
            peak = (m.counter.usage, m.swap);
        }
    });
    assert!(steps > 1);
    assert!(peak.1 > 0, "the hog swapped");
    assert!(peak.0 + peak.1 <= 18 << 8, "memory {} + swap {} pages over memsw", peak.0, peak.1);
    assert!(s.kernel.memcgs.events(ct, MemcgEvent::OomKill) > 0);
}

/// `mem_cgroup_swappiness()` + `get_scan_count()` (6.1): a v1 memcg with memory.swappiness 0
/// is never swapped by its limit reclaim ("memcg users want to use this knob to disable
/// swapping for individual groups completely"); vm.swappiness 0 on v2 does the same.
#[test]
fn swappiness_0_disables_limit_reclaim_swapping_6_1() {
    let mut s = sim(&hog("v1", "20M", r#""memory.swappiness" = 0"#, ""));
    run(&mut s);
    let ct = memcg(&s, "ct");
    assert_eq!(s.kernel.vmstat.get(VmEvent::Pswpout), 0);
    assert!(s.kernel.memcgs.events(ct, MemcgEvent::OomKill) > 0);
    let mut s = sim(&hog("v2", "20M", "", "swappiness = 0"));
    run(&mut s);
    assert_eq!(s.kernel.vmstat.get(VmEvent::Pswpout), 0);
    // the default (60) swaps
    let mut s = sim(&hog("v2", "20M", "", ""));
    run(&mut s);
    assert!(s.kernel.vmstat.get(VmEvent::Pswpout) > 0);
}

/// `do_swap_page()` -> `swap_cluster_readahead()` (6.1): a sequential re-touch of swapped
/// pages finds most of them in the swap cache (`swap_ra_hit`), so major faults are a fraction
/// of the pages read back (up to 1 in 8: page-cluster 3).
#[test]
fn sequential_swap_in_is_read_ahead_6_1() {
    let mut s = sim(&hog("v2", "24M", "", ""));
    run(&mut s);
    let k = &s.kernel;
    let pswpin = k.vmstat.get(VmEvent::Pswpin);
    let major = k.vmstat.get(VmEvent::Pgmajfault);
    assert!(pswpin > 1000, "{pswpin} pages read back");
    assert!(major * 6 < pswpin, "{major} major faults for {pswpin} pages");
    assert!(k.vmstat.get(VmEvent::SwapRaHit) > 0 && k.vmstat.get(VmEvent::SwapRa) >= k.vmstat.get(VmEvent::SwapRaHit));
    k.check_invariants().unwrap();
}

/// New anonymous pages start on the inactive list from 5.9 (`lru_cache_add_inactive_or_unevictable()`),
/// on the active list before (linux-5.0).
#[test]
fn new_anon_pages_start_inactive_from_5_9() {
    for (profile, list) in [("linux-6.1", LruList::InactiveAnon), ("linux-5.0", LruList::ActiveAnon)] {
        let toml = hog("v2", "4M", "", "").replace(r#"profile = "linux-6.1""#, &format!(r#"profile = "{profile}""#));
        let mut s = sim(&toml);
        run(&mut s);
        // The pages still in the CPU's lru_add batch onto their list.
        s.kernel.lru_add_drain();
        let ct = memcg(&s, "ct");
        assert_eq!(s.kernel.memcg_lru_size(ct, list), 1024, "{profile}");
    }
}

/// Bad swap settings are refused with the place and the fix: a v2 file on v1 and the
/// reverse, memory.swappiness on v2 (which has none: `mem_cgroup_swappiness()`), a memsw limit
/// below the memory limit (`mem_cgroup_resize_max()`: -EINVAL), swappiness above the era's
/// range (200 from 5.8, 100 before).
#[test]
fn bad_swap_settings_name_the_place_and_the_fix() {
    let cases: [(&str, &str, &str, &str); 5] = [
        ("v1", r#""memory.swap.max" = "8M""#, "", "`memory.swap.max` is a cgroup v2 file"),
        ("v2", r#""memory.memsw.limit_in_bytes" = "32M""#, "", "`memory.memsw.limit_in_bytes` is a cgroup v1 file"),
        ("v2", r#""memory.swappiness" = 10"#, "", "cgroup v2 has no per-cgroup swappiness"),
        ("v1", r#""memory.memsw.limit_in_bytes" = "8M""#, "", "below memory.limit_in_bytes"),
        ("v2", "", "swappiness = 150\nprofile = \"linux-5.0\"", "takes 0 to 100"),
    ];
    for (cgroup, cg, kernel, want) in cases {
        let toml = hog(cgroup, "4M", cg, kernel);
        let toml = if kernel.contains("profile") { toml.replacen("profile = \"linux-6.1\"\n", "", 1) } else { toml };
        let doc = Document::from_toml("bad.toml", &toml).unwrap_or_else(|e| panic!("{e}"));
        let err = match doc.resolve(None, &[]) {
            Ok(_) => panic!("{want}: accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{err}");
        assert!(err.contains("bad.toml:") && err.contains("fix:"), "{err}");
    }
}

/// 96M written even pages first, then odd pages (so swap slots interleave the two halves), then
/// touched in address order, in a 64M memcg, on a rotational or non-rotational swap device.
fn interleaved(rotational: bool, profile: &str) -> String {
    format!(
        r#"
[scenario]
name = "interleaved"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
rotational = {rotational}
[cgroups.ct]
"memory.max" = "16M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "m", size = "24M", step = "touch 1" }},
  {{ op = "touch", name = "m", access = "write", pattern = "strided", stride = "8K", step = "touch 1" }},
  {{ op = "touch", name = "m", access = "write", offset = "4K", pattern = "strided", stride = "8K", step = "touch 1" }},
  {{ op = "touch", name = "m", step = "touch 2" }},
]
"#
    )
}

/// `swapin_readahead()` (6.1): `swap_use_vma_readahead()` is false while a rotational swap
/// area exists (`nr_rotate_swap`), so the cluster readahead reads the faulting slot's
/// neighbours — here every other page of the address space, as the slots interleave —;
/// on a non-rotational device (`SWP_SOLIDSTATE`) `swap_vma_readahead()` reads the faulting
/// address's neighbours whose PTEs hold swap entries (`swap_ra_info()`: window from
/// `__swapin_nr_pages()` on the VMA's last fault, clamped to the VMA and the page table), which
/// here are half of them: about twice the major faults. Before 4.14 (4.4) there is no VMA
/// readahead, so the device's rotation changes nothing.
#[test]
fn vma_readahead_on_non_rotational_swap_4_14_and_6_1() {
    let majfaults = |rotational: bool, profile: &str| {
        let mut s = sim(&interleaved(rotational, profile));
        run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
        let k = &s.kernel;
        assert!(k.vmstat.get(VmEvent::Pswpin) > 1000);
        (k.vmstat.get(VmEvent::Pgmajfault), k.vmstat.get(VmEvent::SwapRa), k.vmstat.get(VmEvent::SwapRaHit))
    };
    let (cluster, cra, chit) = majfaults(true, "linux-6.1");
    let (vma, vra, vhit) = majfaults(false, "linux-6.1");
    assert!(vma * 10 > cluster * 15, "VMA readahead {vma} major faults, cluster {cluster}");
    assert!(cra > 0 && vra > 0 && chit <= cra && vhit <= vra);
    let (old_rot, ..) = majfaults(true, "linux-4.4");
    let (old_nonrot, ..) = majfaults(false, "linux-4.4");
    assert_eq!(old_rot, old_nonrot, "no VMA readahead before 4.14");
}

/// A page `__read_swap_cache_async()` adds to the swap cache is locked until its read
/// completes (6.1: `swap_readpage()`'s `end_swap_bio_read()` unlocks it), so the reclaim that
/// the charge of a later page of the same readahead window enters cannot take it
/// (`folio_trylock()` fails in `shrink_folio_list()`) and `do_swap_page()` always finds the
/// page it faulted for. qemu61-swap-max's workload: 68M of anonymous memory in 64M with
/// memory.swap.max 8M, a 64M file read twice, the anonymous memory touched again;
/// every page is young after the re-touch, so reclaim at priority 0 scans the whole inactive
/// list and reaches the window's new pages.
#[test]
fn swap_readahead_pages_are_locked_until_read_6_1() {
    let toml = r#"
[scenario]
name = "swap-max"
[machine]
ram = "1G"
swap = "64M"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[files."/f"]
size = "64M"
[cgroups.ct]
"memory.max" = "64M"
"memory.swap.max" = "8M"
[tasks.t]
cgroup = "ct"
ops = [
  { op = "mmap", name = "m", size = "68M", step = "anon" },
  { op = "touch", name = "m", step = "anon" },
  { op = "read", file = "/f", step = "read" },
  { op = "read", file = "/f", step = "read" },
  { op = "touch", name = "m", step = "retouch" },
]
"#;
    let s = sim(toml);
    let res = s.run(&mut |_, _| true).unwrap();
    let get = |n: &str| step_metric(&res, "retouch", n);
    assert_eq!(get("oom_killed"), 0.0, "the re-touch ran to its end");
    assert!(get("vmstat.pswpin") > 0.0);
}

/// mm/swap_state.c (6.1): "Initial readahead hits is 4 to start up with a small window"
/// (`GET_SWAP_RA_VAL(vma)` reads a new VMA's zero `swap_readahead_info` as 4 hits), so the
/// first swap fault of a VMA reads ahead (a window of 8, centred, clamped to the VMA) even
/// though no earlier fault is next to it. In the interleaved layout (even pages swapped, odd
/// ones resident) the first touch of page 0 reads pages 0, 2 and 4 (window [0, 5)): one
/// major fault, three pages read, two of them readahead. Without the initial hits the
/// window would be 1 and stay 1 (no fault is ever next to the last one).
#[test]
fn first_vma_swap_fault_reads_ahead_6_1() {
    use crate::swapfile::{NO_RA_PAGE, SWAP_RA_INIT, SWAP_RA_INIT_HITS};
    assert_eq!(SWAP_RA_INIT, (NO_RA_PAGE, 0, 4));
    assert_eq!(swapin_nr_pages(NO_RA_PAGE as u64, 0, SWAP_RA_INIT_HITS as u64, 8, 0), 8);
    let two = interleaved(false, "linux-6.1");
    let one = two.replace(r#"{ op = "touch", name = "m", step = "touch 2" },"#, "");
    let two = two.replace(r#"{ op = "touch", name = "m", step = "touch 2" },"#, r#"{ op = "touch", name = "m", length = "8K", step = "touch 2" },"#);
    assert_ne!(one, two);
    let counts = |toml: &str| {
        let mut s = sim(toml);
        run(&mut s);
        s.kernel.check_invariants().unwrap();
        let k = &s.kernel;
        let v = k.vmas.iter().find(|v| v.live).expect("the mapping");
        (v.swap.first().copied(), v.swap.get(2).copied(), v.pages[1], k.vmstat.get(VmEvent::Pgmajfault), k.vmstat.get(VmEvent::Pswpin), k.vmstat.get(VmEvent::SwapRa))
    };
    let (s0, s2, p1, maj1, in1, ra1) = counts(&one);
    assert!(s0.is_some_and(|s| s != crate::swapfile::NO_SLOT) && s2.is_some_and(|s| s != crate::swapfile::NO_SLOT), "pages 0 and 2 swapped out after touch 1");
    assert!(p1 != PageId::NIL, "page 1 resident after touch 1");
    let (.., maj2, in2, ra2) = counts(&two);
    assert_eq!((maj2 - maj1, in2 - in1, ra2 - ra1), (1, 3, 2));
}

/// mm/vmscan.c `shrink_folio_list()` (6.1) unmaps a page (`try_to_unmap()`: the PTE gets the
/// swap entry) before `pageout()` writes it: while its swap write is in flight, no page table
/// maps it, memory.stat `anon` (`NR_ANON_MAPPED`) no longer counts it, and the swap cache
/// holds it at its slot (checked after every step of a hog swapping 8M out).
#[test]
fn a_page_under_swap_out_is_unmapped_6_1() {
    let mut s = sim(&hog("v2", "24M", "", ""));
    let mut seen = 0u64;
    run_with(&mut s, |s| {
        let k = &s.kernel;
        if k.vmstat.nr_writeback == 0 {
            return;
        }
        let area = k.swap.as_ref().expect("swap");
        for v in k.vmas.iter().filter(|v| v.live) {
            for (i, &slot) in v.swap.iter().enumerate() {
                if slot == crate::swapfile::NO_SLOT {
                    continue;
                }
                let p = area.cache_get(slot);
                if p != PageId::NIL && k.pages[p].test(crate::mm_types::pg::WRITEBACK) {
                    assert_eq!(v.pages[i], PageId::NIL, "page {i} under swap-out still mapped");
                    assert!(k.pages[p].mapping == crate::swapfile::SWAPPER && k.pages[p].index == slot);
                    seen += 1;
                }
            }
        }
    });
    assert!(seen > 0, "no swap write seen in flight");
    s.kernel.check_invariants().unwrap();
}

/// A 24M anonymous mapping written once in a 16M memcg (v2, 256M of swap), then read twice
/// (`access = "read"`), the kernel profile `profile`, extra cgroup keys `cg`.
fn written_then_read(profile: &str, cg: &str) -> String {
    format!(
        r#"
[scenario]
name = "swap-read"
[machine]
ram = "1G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"memory.max" = "16M"
{cg}
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "m", size = "24M", step = "write" }},
  {{ op = "touch", name = "m", step = "write" }},
  {{ op = "touch", name = "m", access = "read", step = "read 1" }},
  {{ op = "touch", name = "m", access = "read", step = "read 2" }},
]
"#
    )
}

/// `do_swap_page()` of a load (6.1 mm/memory.c: `should_try_to_free_swap()` is false without
/// `FAULT_FLAG_WRITE` while swap is not half full): the page stays in the swap cache with its
/// slot and clean, so reclaim frees it again without a write (`shrink_folio_list()` skips
/// `pageout()` for a clean swap-cache folio). After the first read pass the pages evicted
/// since the write have slots; the second pass reads pages back and evicts others with no
/// pswpout at all, the same slots in use and charged to the memcg (memory.swap.current, v2).
#[test]
fn a_load_keeps_the_swap_slot_and_a_clean_eviction_writes_nothing_6_1() {
    let s = sim(&written_then_read("linux-6.1", ""));
    let res = s.run(&mut |_, _| true).unwrap();
    assert!(step_metric(&res, "write", "vmstat.pswpout") > 1000.0);
    assert!(step_metric(&res, "read 1", "vmstat.pswpin") > 1000.0);
    let (pswpin, pswpout) = (step_metric(&res, "read 2", "vmstat.pswpin"), step_metric(&res, "read 2", "vmstat.pswpout"));
    assert!(pswpin > 1000.0, "read 2 read {pswpin} pages back");
    assert_eq!(pswpout, 0.0, "read 2 evicted only clean swap-cache pages");
    let (kept1, kept2) = (step_metric(&res, "read 1", "memcg.swap_bytes"), step_metric(&res, "read 2", "memcg.swap_bytes"));
    assert!(kept1 > (16 << 20) as f64, "{kept1} bytes of slots kept and charged after read 1");
    assert_eq!(kept2, kept1, "read 2 frees no slot and takes none");
}

/// A swap-out is no task's write_bytes (/proc/PID/io counts `task_io_account_write()`, from
/// `folio_account_dirtied()` and direct I/O; `__swap_writepage()`, mm/page_io.c 6.1, has none;
/// 6.18 on the host writes 0 while it swaps out, host-stall-hog-swap), a swap-in's read is
/// (`submit_bio()`'s `task_io_account_read()`, block/blk-core.c 6.1): the hog writes nothing
/// while it swaps out, and reads what it swaps in.
#[test]
fn swap_writes_are_no_tasks_write_bytes_6_1() {
    let s = sim(&hog("v2", "48M", "", ""));
    let res = s.run(&mut |_, _| true).unwrap();
    for step in ["touch 1", "touch 2"] {
        assert!(step_metric(&res, step, "vmstat.pswpout") > 1000.0, "{step} swapped out");
        assert_eq!(step_metric(&res, step, "write_bytes"), 0.0, "{step}: a swap write is no task's write_bytes");
    }
    let pswpin = step_metric(&res, "touch 2", "vmstat.pswpin");
    assert!(pswpin > 1000.0);
    assert!(step_metric(&res, "touch 2", "read_bytes") >= pswpin * 4096.0, "a swap-in is the task's read_bytes");
}

/// The same mapping read back in a memcg with memory.swap.max 12M: from 6M of swap
/// `mem_cgroup_swap_full()` holds (6.1 mm/memcontrol.c: `usage * 2 >= swap.max`), so
/// `should_try_to_free_swap()` frees the slot of every page a load swaps in, and the second
/// read pass has to write the pages it evicts again.
#[test]
fn swap_half_full_frees_a_loads_slot_6_1() {
    let mut s = sim(&written_then_read("linux-6.1", r#""memory.swap.max" = "12M""#));
    run(&mut s);
    assert_invariants(&s.kernel);
    let s = sim(&written_then_read("linux-6.1", r#""memory.swap.max" = "12M""#));
    let res = s.run(&mut |_, _| true).unwrap();
    let pswpout = step_metric(&res, "read 2", "vmstat.pswpout");
    assert!(pswpout > 1000.0, "read 2 wrote {pswpout} pages whose slots the loads freed");
    assert!(step_metric(&res, "read 2", "memcg.swap_bytes") <= (12 << 20) as f64);
}

/// After a load's swap-in a store to the page: before 6.11 the PTE is write-protected and the
/// store takes a `do_wp_page()` fault (pgfault + 1) that reuses the exclusive page; from 6.11
/// (linux-6.18: c18160dba5ff, `do_swap_page()` maps it writable) the CPU sets the dirty bit,
/// no fault. Either way the swap-cache page is dirty for its next eviction, which writes it
/// to its slot (pswpout).
#[test]
fn a_store_after_a_loads_swap_in_is_a_wp_fault_before_6_11() {
    for (profile, faults) in [("linux-6.1", 1), ("linux-6.18", 0)] {
        let mut s = sim(&written_then_read(profile, ""));
        run(&mut s);
        let k = &mut s.kernel;
        let (vma, i) = k
            .vmas
            .iter()
            .enumerate()
            .filter(|(_, v)| v.live)
            .find_map(|(n, v)| (0..v.pages.len() as u32).find(|&i| v.pages[i as usize] != PageId::NIL && v.wp_test(i)).map(|i| (crate::memory::VmaId(n as u32), i)))
            .expect("a page a load swapped in");
        let p = k.vmas[vma.0 as usize].pages[i as usize];
        assert!(k.pages[p].test(pg::SWAPCACHE) && !k.pages[p].test(pg::DIRTY), "{profile}: clean in the swap cache");
        let before = k.vmstat.get(VmEvent::Pgfault);
        k.handle_mm_fault_flags(vma, i, true).unwrap();
        assert_eq!(k.vmstat.get(VmEvent::Pgfault) - before, faults, "{profile}");
        assert!(k.pages[p].test(pg::DIRTY) && k.pages[p].test(pg::SWAPCACHE), "{profile}: dirty, still in the swap cache");
        assert!(!k.vmas[vma.0 as usize].wp_test(i));
        // A load after it takes no fault.
        k.handle_mm_fault_flags(vma, i, false).unwrap();
        assert_eq!(k.vmstat.get(VmEvent::Pgfault) - before, faults);
        assert_invariants(k);
    }
}

/// `shrink_folio_list()` (6.1) meeting a page under swap writeback: `pageout()` marked it
/// `PG_reclaim`, so legacy (cgroup v1) memcg reclaim, whose writeback is not throttled
/// otherwise (`!writeback_throttling_sane()`), takes "case 3": it waits for the write
/// (`folio_wait_writeback()`: a writeback stall) and frees the page; cgroup v2 reclaim takes
/// "case 2": the page is activated out of the way (pgactivate, 4.12+), no wait. A slow swap
/// device (20M/s) makes reclaim meet its own writes.
#[test]
fn reclaim_meeting_swap_writeback_waits_on_v1_and_activates_on_v2_6_1() {
    let slow = |cgroup: &str| hog(cgroup, "24M", "", "").replace(r#"write_bw = "400M""#, r#"write_bw = "20M""#);
    let s = sim(&slow("v1"));
    let res = s.run(&mut |_, _| true).unwrap();
    assert!(step_metric(&res, "touch 1", "stall.writeback_ms") > 0.0, "v1 waited on a swap write");
    let s = sim(&slow("v2"));
    let res = s.run(&mut |_, _| true).unwrap();
    assert_eq!(step_metric(&res, "touch 1", "stall.writeback_ms"), 0.0, "v2 does not wait");
    assert!(step_metric(&res, "touch 1", "memcg.pgactivate") > 0.0, "v2 activated pages under writeback");
    let mut s = sim(&slow("v1"));
    run(&mut s);
    assert_invariants(&s.kernel);
}

/// host-swap-retouch's workload: 96M anonymous touched twice in a 64M v1 memcg, 256M of swap,
/// on `profile`.
fn retouch_v1(profile: &str) -> String {
    format!(
        r#"
[scenario]
name = "retouch"
[machine]
ram = "2G"
swap = "256M"
[kernel]
profile = "{profile}"
cgroup = "v1"
[devices.sda]
read_bw = "500M"
write_bw = "400M"
[cgroups.A]
"memory.limit_in_bytes" = "64M"
[tasks.t]
cgroup = "A"
ops = [
  {{ op = "mmap", name = "heap", size = "96M", step = "touch 1" }},
  {{ op = "touch", name = "heap", step = "touch 1" }},
  {{ op = "touch", name = "heap", step = "touch 2" }},
]
"#
    )
}

/// `swap_cluster_readahead()`/`swap_vma_readahead()` (mm/swap_state.c) and `shrink_lruvec()`
/// (mm/vmscan.c) run between `blk_start_plug()` and `blk_finish_plug()`: a reclaim entered by
/// the charge of a readahead page adds its swap writes to the readahead's plug, behind its
/// small read, and from 6.13 `blk_add_rq_to_plug()` peeks at that read for its
/// `BLK_PLUG_FLUSH_SIZE` test: the writes stay plugged until 32 requests, so reclaim writes
/// more pages before any completes. Between quanta the plug is empty and every page under
/// writeback has its completion; 6.18's re-touch writes more than the same kernel with the
/// pre-6.13 peek (the newest request: each 512 KiB write goes as the next one starts).
#[test]
fn a_reclaim_pass_holds_its_swap_writes_in_its_plug_6_18() {
    let mut s = sim(&retouch_v1("linux-6.18"));
    assert_eq!(s.kernel.profile.blk_plug_peek, crate::blkdev::PlugPeek::Oldest);
    let mut seen = 0u64;
    run_with(&mut s, |s| {
        let k = &s.kernel;
        assert!(!k.swap_plug.active && k.swap_plug.rqs.is_empty() && k.swap_plug_pages.is_empty(), "the plug outlived its pass");
        let area = k.swap.as_ref().expect("swap");
        for v in k.vmas.iter().filter(|v| v.live) {
            for &slot in v.swap.iter().filter(|&&s| s != crate::swapfile::NO_SLOT) {
                let p = area.cache_get(slot);
                if p != PageId::NIL && k.pages[p].test(crate::mm_types::pg::WRITEBACK) {
                    assert_ne!(k.wb_done[p.idx()], crate::types::Nanos::MAX, "a page under swap-out was never dispatched");
                    seen += 1;
                }
            }
        }
    });
    assert!(seen > 0, "no swap write seen in flight");
    s.kernel.check_invariants().unwrap();
    let plugged = sim(&retouch_v1("linux-6.18")).run(&mut |_, _| true).unwrap();
    let mut s = sim(&retouch_v1("linux-6.18"));
    s.kernel.profile.blk_plug_peek = crate::blkdev::PlugPeek::Newest;
    let at_once = s.run(&mut |_, _| true).unwrap();
    let (a, b) = (step_metric(&plugged, "touch 2", "vmstat.pswpout"), step_metric(&at_once, "touch 2", "vmstat.pswpout"));
    assert!(a > b + 256.0, "the plug's writes complete later, so reclaim writes more: {a} vs {b}");
    let (a, b) = (step_metric(&plugged, "touch 2", "memcg.anon_bytes"), step_metric(&at_once, "touch 2", "memcg.anon_bytes"));
    assert!(a < b, "written pages not yet freed are not mapped anon: {a} vs {b}");
}

/// A fault run's pages come from the charge stock before v1 memsw is tested:
/// `try_charge_memcg()` (6.1) calls `consume_stock()` at `retry:`, before memsw (memory +
/// swap) and memory are tried ([`Kernel::charge_over_limit`]), so every page the CPU's stock
/// holds for the memcg is a quiet charge, even over the limits. With memory 4070 pages used of
/// 4096, 518 swapped and 20 in the stock (memsw at its 4608), then 10 pages forced over both
/// (a `PF_MEMALLOC` charge, `force:`), `charge_from_stock()` gives 20 (10 before zswap20,
/// which tested the limits first), and a charge past the stock meets memsw.
#[test]
fn charge_from_stock_is_the_stock_before_memsw_v1_6_1() {
    let mut s = sim(&hog("v1", "20M", r#""memory.memsw.limit_in_bytes" = "18M""#, ""));
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    // memory.limit_in_bytes 16M = 4096 pages, memsw 18M = 4608.
    k.memcgs.counter_charge(ct, 4070);
    k.memcgs.swap_charge(ct, 518);
    let (cpu, slots) = (k.stock_cpu(), k.profile.memcg_stock_slots);
    let before = k.memcg_stock[cpu];
    let batch = k.profile.memcg_charge_batch;
    k.memcg_stock[cpu].refill(ct, 20, slots, batch, &mut k.memcg_lru_rand);
    k.stock_changed(cpu, &before);
    assert!(k.memcgs.over_memsw_limit(ct, 1).is_some(), "memsw full, the stock counted");
    k.memcgs.counter_charge(ct, 10);
    assert_eq!(k.memcg_stock[cpu].pages_of(ct, slots), 20);
    assert_eq!(k.memcgs.get(ct).counter.stocked, 20);
    assert_eq!(k.charge_from_stock(ct), 20);
    assert!(k.memcgs.over_memsw_limit(ct, 1).is_some());
    for _ in 0..20 {
        assert_eq!(k.try_charge_memcg(ct, 1, true), Ok(()));
    }
    assert_eq!(k.memcgs.get(ct).counter.failcnt, 0, "served by the stock, no counter tested");
    assert_eq!((k.memcgs.get(ct).counter.usage, k.memcgs.get(ct).counter.stocked), (4100, 0));
}

/// `post_alloc_hook()` (mm/page_alloc.c, 6.1) zeroes every page the buddy allocator hands out
/// under `init_on_alloc` (`kernel_init_pages()` when `want_init_on_alloc()`: Debian's 6.1
/// build, `CONFIG_INIT_ON_ALLOC_DEFAULT_ON`), not only page-cache pages: a swap-cache folio
/// `__read_swap_cache_async()` allocates (`GFP_HIGHUSER_MOVABLE`, no `__GFP_ZERO`) costs a
/// `clear_page` more on linux-6.1 than with the switch off, before its read overwrites it.
#[test]
fn init_on_alloc_zeroes_each_swap_cache_page_on_debians_6_1() {
    // The same run twice up to the same point, then the same swap-in with the switch on and
    // off: the allocation's other costs are the same.
    let swapin = |init_on_alloc: bool| {
        let mut s = sim(&hog("v2", "48M", "", ""));
        while s.step() {
            if s.kernel.swap.as_ref().unwrap().inuse > 64 {
                break;
            }
        }
        let k = &mut s.kernel;
        assert!(k.profile.init_on_alloc, "Debian's 6.1 build");
        k.profile.init_on_alloc = init_on_alloc;
        // A swapped-out slot no swap-cache page holds.
        let area = k.swap.as_ref().unwrap();
        let slot = (0..area.max as u32).find(|&sl| area.slot_in_use(sl) && area.cache_get(sl) == PageId::NIL).expect("a swapped-out slot");
        let (t0, f0) = (k.sys_ns, k.kmem.pagecache_slab_frames.len());
        assert!(k.read_swap_cache_async(slot, false, 0, MemcgId::ROOT));
        assert_ne!(k.swap.as_ref().unwrap().cache_get(slot), PageId::NIL);
        assert_eq!(k.kmem.pagecache_slab_frames.len(), f0, "no slab frame taken meanwhile");
        k.check_invariants().unwrap();
        (slot, k.sys_ns - t0, k.cost.clear_page)
    };
    let ((slot_on, on, clear), (slot_off, off, _)) = (swapin(true), swapin(false));
    assert_eq!(slot_on, slot_off);
    assert_eq!(on - off, clear, "a clear_page() per new swap-cache page under init_on_alloc: {on} vs {off}");
}
