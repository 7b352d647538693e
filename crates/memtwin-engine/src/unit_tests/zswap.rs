//! zswap held to Linux 6.1 (mm/zswap.c behind mm/frontswap.c and mm/page_io.c, the zbud pool
//! of mm/zbud.c, `obj_cgroup_*_zswap()` of mm/memcontrol.c).

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::vmstat::VmEvent;
use crate::zswap::{lzo1x_1_compressed_len, AnonFill, ZBUD_CHUNK, ZBUD_MAX_ALLOC, ZSWAP_HEADER};

/// A hog of `anon` with `fill` touched twice in a 16M v2 memcg, swap 256M, zswap with `zswap`
/// (inline-table keys), the extra cgroup keys `cg`.
pub(super) fn zhog(anon: &str, fill: &str, zswap: &str, cg: &str, profile: &str, cgroup: &str) -> String {
    let max = if cgroup == "v1" { "memory.limit_in_bytes" } else { "memory.max" };
    format!(
        r#"
[scenario]
name = "zswap"
[machine]
ram = "1G"
swap = "256M"
zswap = {{ {zswap} }}
[kernel]
profile = "{profile}"
cgroup = "{cgroup}"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"{max}" = "16M"
{cg}
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "m", size = "{anon}", fill = "{fill}", step = "touch 1" }},
  {{ op = "touch", name = "m", step = "touch 1" }},
  {{ op = "touch", name = "m", step = "touch 2" }},
]
"#
    )
}

fn stats(s: &Simulation) -> crate::zswap::ZswapStats {
    stats_of(&s.kernel)
}

fn stats_of(k: &crate::kernel::Kernel) -> crate::zswap::ZswapStats {
    k.zswap.as_ref().expect("zswap").stats.clone()
}

/// `lzo1x_1_compress()` (lib/lzo/lzo1x_compress.c) of the fills: one set byte is a short
/// literal, one long match and the 20-byte tail (tens of bytes); 1 KiB of random bytes
/// stays 1 KiB plus the encoding and the skip into the zeros; a random page expands
/// (literal-run length bytes and the end marker) past what zbud takes.
#[test]
fn lzo1x_1_sizes_of_the_fills_6_1() {
    let byte = lzo1x_1_compressed_len(AnonFill::Byte);
    assert!((30..=64).contains(&byte), "{byte}");
    assert_eq!(lzo1x_1_compressed_len(AnonFill::Same), 0);
    let k1 = lzo1x_1_compressed_len(AnonFill::Random(1024));
    // 1024 + 33 skipped zeros + 1 as a literal run (2 + 1039/255 length bytes), a match of
    // 4096 - 20 - 1058 bytes (3 + 1 + 11), the 20-byte tail (1 + 20), the end marker (3).
    assert_eq!(k1, 1058 + 2 + (1058 - 18) / 255 + 4 + (4096 - 20 - 1058 - 33) / 255 + 21 + 3);
    let all = lzo1x_1_compressed_len(AnonFill::Random(4096));
    assert!(all > PAGE_SIZE && all + ZSWAP_HEADER > ZBUD_MAX_ALLOC);
}

/// `zswap_frontswap_store()` of same-filled pages (6.1, `zswap_is_page_same_filled()`): kept
/// as their word, no pool page, nothing charged (`entry->length` 0) but `zswapped` and
/// `zswpout` counted; the store frees the page in the same reclaim pass (no disk write,
/// `pswpout` 0); the re-touch loads them (`zswpin`) without I/O.
#[test]
fn same_filled_pages_stored_without_pool_memory_6_1() {
    let mut s = sim(&zhog("24M", "same", "enabled = true", "", "linux-6.1", "v2"));
    let ct = memcg(&s, "ct");
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let k = &s.kernel;
    let z = stats(&s);
    assert_eq!(k.vmstat.get(VmEvent::Pswpout), 0);
    assert_eq!(k.vmstat.get(VmEvent::Pswpin), 0);
    assert_eq!(k.io.read_bytes, 0);
    assert!(z.zswpout > 1000 && z.zswpin > 1000, "{z:?}");
    assert_eq!(z.same_filled_pages, z.stored_pages);
    assert_eq!(k.zswap.as_ref().unwrap().pool_pages(), 0);
    let m = k.memcgs.get(ct);
    assert_eq!(m.zswap_bytes, 0);
    assert_eq!(m.zswapped, z.stored_pages);
    assert_eq!(m.zswpout, z.zswpout);
    // Entries are not invalidated by a load (6.1), but the write fault frees the slot.
    assert_eq!(m.swap, z.stored_pages);
}

/// zbud (mm/zbud.c `zbud_alloc()`): two compressed pages share a pool page when their chunks
/// fit (1 KiB of random data: 18 of 63 chunks each), so a pool filled in one go has half as
/// many pages as entries; once entries go (`zbud_free()`), pages left with one buddy take the
/// next entries first (`unbuddied` lists). `obj_cgroup_charge_zswap()` charges the
/// compressed bytes to the memcg (memory.zswap.current), whole pages of its page counter.
#[test]
fn zbud_pairs_compressed_pages_and_charges_the_bytes_6_1() {
    let mut s = sim(&zhog("24M", "random-1K", "enabled = true", "", "linux-6.1", "v2"));
    let ct = memcg(&s, "ct");
    let mut first = None;
    run_with(&mut s, |s| {
        s.kernel.check_invariants().unwrap();
        let z = s.kernel.zswap.as_ref().unwrap();
        if z.stats.zswpin == 0 {
            // Filled in one go: nothing loaded, so nothing invalidated yet.
            first = Some((z.stats.stored_pages, z.pool_pages()));
        }
        assert!(z.pool_pages() >= z.stats.stored_pages.div_ceil(2) && z.pool_pages() <= z.stats.stored_pages);
    });
    let (stored, pool) = first.unwrap();
    assert!(stored > 1000);
    assert_eq!(pool, stored.div_ceil(2));
    let k = &s.kernel;
    let z = stats(&s);
    let len = lzo1x_1_compressed_len(AnonFill::Random(1024));
    assert_eq!((ZSWAP_HEADER + len).div_ceil(ZBUD_CHUNK), 18);
    let m = k.memcgs.get(ct);
    assert_eq!(m.zswap_bytes, z.stored_pages * len);
    assert!(m.kmem_bytes >= m.zswap_bytes && m.kmem_pages == m.kmem_bytes.div_ceil(PAGE_SIZE));
    assert_eq!(k.vmstat.get(VmEvent::Pswpout), 0);
}

/// `zswap_frontswap_store()` (6.1) asks the compressor for at most `PAGE_SIZE` of output
/// (`dlen = PAGE_SIZE`, crypto/lzo.c's `lzo1x_1_compress_safe()`): a random page, which LZO
/// expands, fails to compress and goes to the disk without any reject counter; output that
/// fits a page but not a zbud buddy (`zbud_alloc()`: over `PAGE_SIZE - ZHDR_SIZE_ALIGNED -
/// CHUNK_SIZE`) is `reject_compress_poor`.
#[test]
fn incompressible_pages_go_to_disk_6_1() {
    let mut s = sim(&zhog("24M", "random", "enabled = true", "", "linux-6.1", "v2"));
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let k = &s.kernel;
    let z = stats(&s);
    assert_eq!(z.stored_pages, 0);
    assert_eq!(z.reject_compress_poor, 0);
    assert!(k.vmstat.get(VmEvent::Pswpout) > 1000);
    assert!(k.vmstat.get(VmEvent::Pswpin) > 1000);
    // 3900 random bytes: LZO's output (about 4070) fits the page but not a zbud buddy.
    let n = lzo1x_1_compressed_len(AnonFill::Random(3900));
    assert!(n <= PAGE_SIZE && n + ZSWAP_HEADER > ZBUD_MAX_ALLOC, "{n}");
    let mut s = sim(&zhog("24M", "random-3900", "enabled = true", "", "linux-6.1", "v2"));
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let z = stats(&s);
    assert_eq!(z.stored_pages, 0);
    assert_eq!(s.kernel.vmstat.get(VmEvent::Pswpout), z.reject_compress_poor);
}

/// `zswap_is_full()` / `zswap_can_accept()` (6.1): a pool over `max_pool_percent` of RAM
/// rejects the store (`pool_limit_hit`, the page goes to disk) and queues `shrink_worker()`,
/// which writes the oldest zbud page's entries back to swap (`zswap_writeback_entry()`:
/// `written_back_pages`, `pswpout`); stores are then rejected until the pool is under
/// `accept_threshold_percent` of its limit.
#[test]
fn full_pool_rejects_and_writes_back_6_1() {
    let mut s = sim(&zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2"));
    let mut peak = 0;
    run_with(&mut s, |s| {
        s.kernel.check_invariants().unwrap();
        peak = peak.max(s.kernel.zswap.as_ref().unwrap().pool_pages());
    });
    let k = &s.kernel;
    let z = stats(&s);
    let totalram = k.managed_pages();
    assert!(z.pool_limit_hit > 0, "{z:?}");
    assert!(z.written_back_pages > 0, "{z:?}");
    assert!(peak <= totalram / 100 + 1, "pool peaked at {peak} pages, limit {}", totalram / 100);
    assert!(k.vmstat.get(VmEvent::Pswpout) >= z.written_back_pages + z.pool_limit_hit);
}

/// memory.zswap.max (5.19+, `obj_cgroup_may_zswap()`): 0 refuses every store of the memcg's
/// pages, which go to disk.
#[test]
fn zswap_max_0_sends_pages_to_disk_6_1() {
    let mut s = sim(&zhog("24M", "random-1K", "enabled = true", r#""memory.zswap.max" = "0""#, "linux-6.1", "v2"));
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let z = stats(&s);
    assert_eq!(z.stored_pages + z.zswpout, 0);
    assert!(s.kernel.vmstat.get(VmEvent::Pswpout) > 1000);
}

/// Before 5.19 (5.17) and on cgroup v1 zswap charges nothing to the memcg; 5.17 has no
/// zswpin/zswpout counters (f6498b776d28 came in 5.19).
#[test]
fn no_memcg_charge_before_5_19_or_on_v1() {
    let mut s = sim(&zhog("24M", "random-1K", "enabled = true", "", "linux-5.17", "v2"));
    let ct = memcg(&s, "ct");
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let z = stats(&s);
    assert!(z.stored_pages > 1000);
    assert_eq!(z.zswpout, 0);
    assert_eq!(s.kernel.memcgs.get(ct).zswap_bytes, 0);
    let mut s = sim(&zhog("24M", "random-1K", "enabled = true", "", "linux-6.1", "v1"));
    let ct = memcg(&s, "ct");
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    assert!(stats(&s).stored_pages > 1000);
    assert_eq!(s.kernel.memcgs.get(ct).zswap_bytes, 0);
    assert_eq!(s.kernel.memcgs.events(ct, MemcgEvent::OomKill), 0);
}

/// `zswap.enabled = false` is swap as without zswap: the same outputs.
#[test]
fn zswap_disabled_is_plain_swap_6_1() {
    let plain = zhog("24M", "byte", "enabled = true", "", "linux-6.1", "v2").replace("zswap = { enabled = true }\n", "");
    let mut a = sim(&plain);
    run(&mut a);
    let mut b = sim(&zhog("24M", "byte", "enabled = false", "", "linux-6.1", "v2"));
    run(&mut b);
    assert_eq!(a.kernel.vmstat.get(VmEvent::Pswpout), b.kernel.vmstat.get(VmEvent::Pswpout));
    assert_eq!(a.kernel.vmstat.get(VmEvent::Pswpin), b.kernel.vmstat.get(VmEvent::Pswpin));
    assert!(a.kernel.vmstat.get(VmEvent::Pswpout) > 1000);
}

/// Bad input: zswap without swap, an unmodelled compressor, zswap on a profile whose zswap
/// differs, memory.zswap.max before 5.19, an unknown fill.
#[test]
fn zswap_bad_input_is_refused() {
    let check = |toml: String, want: &str| {
        let doc = Document::from_toml("t.toml", &toml).unwrap();
        let e = doc.resolve(None, &[]).err().unwrap_or_else(|| panic!("accepted: {want}"));
        assert!(e.to_string().contains(want), "{e}");
    };
    check(zhog("24M", "byte", "enabled = true", "", "linux-6.1", "v2").replace("swap = \"256M\"\n", ""), "has no swap");
    check(zhog("24M", "byte", "compressor = \"zstd\"", "", "linux-6.1", "v2"), "`lzo` only");
    check(zhog("24M", "byte", "max_pool_percent = 101", "", "linux-6.1", "v2"), "a percentage");
    check(zhog("24M", "byte", "enabled = true", "", "linux-6.6", "v2"), "profile `linux-6.6`");
    check(zhog("24M", "byte", "enabled = true", r#""memory.zswap.max" = "1M""#, "linux-5.17", "v2"), "5.19");
    check(zhog("24M", "zeros", "enabled = true", "", "linux-6.1", "v2"), "not a fill");
    check(zhog("24M", "random-8K", "enabled = true", "", "linux-6.1", "v2"), "random bytes in a 4096-byte page");
    let lat = |l: &str| zhog("24M", "byte", "enabled = true", "", "linux-6.1", "v2").replace("swap = \"256M\"\n", &format!("swap = \"256M\"\n{l}\n"));
    check(lat("kworker_wakeup_latency = []"), "machine.kworker_wakeup_latency is empty");
    check(lat("kworker_wakeup_latency = \"1ms\""), "machine.kworker_wakeup_latency must be an array of durations");
    check(lat("kworker_wakeup_latency = [\"5\"]"), "a machine.kworker_wakeup_latency sample");
    check(lat("kworker_wakeup_latency = [\"11s\"]"), "longer than 10 s");
}

/// zsmalloc (mm/zsmalloc.c, 6.18): `get_size_class_index()` rounds an allocation (the
/// compressed page plus `ZS_HANDLE_SIZE`) up to a 16-byte class from 32 bytes;
/// `calculate_zspage_chain_size()` gives a power-of-two class one page per zspage, another
/// the chain of up to 8 pages wasting least.
#[test]
fn zsmalloc_classes_6_18() {
    use crate::zswap::{zs_chain_size, zs_size_class_index, ZS_SIZE_CLASSES};
    assert_eq!(ZS_SIZE_CLASSES, 255);
    assert_eq!(zs_size_class_index(1), 0);
    assert_eq!(zs_size_class_index(32), 0);
    assert_eq!(zs_size_class_index(33), 1);
    assert_eq!(zs_size_class_index(58), 2); // 64 bytes
    assert_eq!(zs_size_class_index(4096), 254);
    assert_eq!(zs_chain_size(64), 1);
    assert_eq!(zs_chain_size(4096), 1);
    // 48-byte objects: 3 pages hold 256 of them exactly
    assert_eq!(zs_chain_size(48), 3);
    // 1120 bytes (a 1 KiB-random page's class): 8 pages hold 29, 288 bytes over (the least of 1-8)
    assert_eq!(zs_chain_size(1120), 8);
}

/// 6.18's zswap (`zswap_direct`): a page holding one byte compresses (LZO) to 50 bytes, which
/// with zsmalloc's handle is a 64-byte object, 64 to a page: the pool is the objects' pages, not
/// one page per two entries as zbud's (host-zswap-reread: 8284 entries in 130 pages,
/// 532480 bytes). Loads are exclusive (`zswap_load()`: the entry goes, the page is dirtied),
/// so the re-touch leaves only the pages it did not read back in the pool and every page
/// reclaim takes again is stored again; 6.1 keeps a loaded page's entry while its slot
/// lives.
#[test]
fn zsmalloc_pool_and_exclusive_loads_6_18() {
    let toml = zhog("24M", "byte", "enabled = true", "", "linux-6.18", "v1");
    let mut s = sim(&toml);
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let k = &s.kernel;
    let z = k.zswap.as_ref().unwrap();
    assert_eq!(lzo1x_1_compressed_len(AnonFill::Byte), 50);
    let stored = z.stats.stored_pages;
    assert!(stored > 1000, "{stored}");
    assert_eq!(z.pool_pages(), stored.div_ceil(64), "{stored} entries of 64 bytes");
    // every entry is a slot whose page is not resident (nothing loaded keeps its entry)
    let area = k.swap.as_ref().unwrap();
    for (slot, _) in z.entries() {
        assert_eq!(area.cache_get(slot), PageId::NIL, "slot {slot} loaded and still in zswap");
    }
    // the re-touch read every page back and reclaim stored the ones it took again
    let (zin, zout) = (z.stats.zswpin, z.stats.zswpout);
    assert!(zin > 1000 && zout >= zin, "zswpin {zin} zswpout {zout}");
    // 6.1's zbud pool for the same pages: two entries per pool page
    let mut s61 = sim(&zhog("24M", "byte", "enabled = true", "", "linux-6.1", "v1"));
    run(&mut s61);
    let z61 = s61.kernel.zswap.as_ref().unwrap();
    assert!(z61.pool_pages() * 2 >= z61.stats.stored_pages && z61.pool_pages() > 10 * z.pool_pages());
}

/// 6.18's zswap refuses what the engine does not model there: a `zbud` pool (removed in
/// 6.15), the same-filled parameters (gone with same-filled entries, 6.12), fills whose pages
/// 6.18 handles otherwise (same-filled ones: the swap zeromap for zero pages; incompressible
/// ones: stored as they are).
#[test]
fn zswap_6_18_bad_input_is_refused() {
    let check = |toml: String, want: &str| {
        let doc = Document::from_toml("t.toml", &toml).unwrap();
        let e = doc.resolve(None, &[]).err().unwrap_or_else(|| panic!("accepted: {want}"));
        assert!(e.to_string().contains(want) && e.to_string().contains("t.toml:"), "{e}");
    };
    check(zhog("24M", "byte", "zpool = \"zbud\"", "", "linux-6.18", "v1"), "zbud was removed in 6.15");
    check(zhog("24M", "byte", "zpool = \"zbud\"", "", "linux-6.12", "v2"), "models `zsmalloc` there");
    check(zhog("24M", "byte", "zpool = \"zsmalloc\"", "", "linux-6.1", "v1"), "models `zbud` there");
    check(zhog("24M", "byte", "same_filled_pages_enabled = false", "", "linux-6.18", "v1"), "no such parameter");
    check(zhog("24M", "same", "enabled = true", "", "linux-6.18", "v1"), "fill = \"same\" with zswap on a 6.12+ profile");
    check(zhog("24M", "same", "enabled = true", "", "linux-6.12", "v2"), "zeromap");
    check(zhog("24M", "random", "enabled = true", "", "linux-6.18", "v1"), "6.18 stores pages that do not compress as they are");
    // accepted: zsmalloc named, a compressible fill
    let doc = Document::from_toml("t.toml", &zhog("24M", "random-1K", "zpool = \"zsmalloc\"", "", "linux-6.18", "v1")).unwrap();
    doc.resolve(None, &[]).unwrap();
}

/// A 6.12 hog with two mappings: `cold` (random, LZO expands it: zswap refuses every page) written
/// first, then `hot` (1 KiB of random bytes per page) written twice, in a 16M v2 memcg with
/// memory.zswap.writeback `wb`.
fn wb_hog(wb: u8) -> String {
    format!(
        r#"
[scenario]
name = "zswap-writeback"
[machine]
ram = "1G"
swap = "256M"
zswap = {{ enabled = true }}
[kernel]
profile = "linux-6.12"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
"memory.max" = "16M"
"memory.zswap.writeback" = {wb}
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "cold", size = "8M", fill = "random", step = "cold" }},
  {{ op = "touch", name = "cold", step = "cold" }},
  {{ op = "mmap", name = "hot", size = "16M", fill = "random-1K", step = "hot" }},
  {{ op = "touch", name = "hot", step = "hot" }},
  {{ op = "touch", name = "hot", step = "hot 2" }},
]
"#
    )
}

/// memory.zswap.writeback (6.8+, mm/page_io.c `swap_writepage()` of 6.12): with 1 the pages
/// zswap refuses (LZO's output of a random page passes `PAGE_SIZE`) are written to the swap
/// device; with 0 `swap_writepage()` returns `AOP_WRITEPAGE_ACTIVATE` — nothing reaches the
/// device (no pswpout), the refused pages stay resident (dirty, in the swap cache, activated)
/// and reclaim compresses the others instead, so zswap stores more.
#[test]
fn zswap_writeback_0_keeps_pages_off_the_device_6_12() {
    let mut s1 = sim(&wb_hog(1));
    run_with(&mut s1, |s| s.kernel.check_invariants().unwrap());
    let mut s0 = sim(&wb_hog(0));
    run_with(&mut s0, |s| s.kernel.check_invariants().unwrap());
    let (k1, k0) = (&s1.kernel, &s0.kernel);
    assert!(k1.vmstat.events[VmEvent::Pswpout as usize] >= 2048, "writeback 1: the random pages go to disk");
    assert_eq!(k0.vmstat.events[VmEvent::Pswpout as usize], 0, "writeback 0: nothing written to the device");
    let (z1, z0) = (stats(&s1), stats(&s0));
    assert!(z0.zswpout > z1.zswpout, "writeback 0 compresses more: {} against {}", z0.zswpout, z1.zswpout);
    // the cold mapping stays resident (its pages in the swap cache or mapped)
    let ct = k0.memcgs.memcgs.iter().position(|m| m.counter.max == (16 << 20) / PAGE_SIZE).unwrap();
    let m0 = &k0.memcgs.memcgs[ct];
    assert!(m0.nr_anon + m0.nr_swapcache >= 2048 - 64, "anon {} swapcache {}", m0.nr_anon, m0.nr_swapcache);
    assert_eq!(z0.written_back_pages, 0);
}

/// `mem_cgroup_zswap_writeback_enabled()` (mm/memcontrol.c, 6.9+): true while zswap is off,
/// false when the memcg or an ancestor has memory.zswap.writeback 0; with zswap off a
/// memcg with 0 swaps to the device as before.
#[test]
fn zswap_writeback_is_hierarchical_and_ignored_without_zswap_6_12() {
    let toml = wb_hog(0).replace("[cgroups.ct]\n\"memory.max\" = \"16M\"\n\"memory.zswap.writeback\" = 0", "[cgroups.p]\n\"memory.zswap.writeback\" = 0\n[cgroups.\"p/ct\"]\n\"memory.max\" = \"16M\"").replace("cgroup = \"ct\"", "cgroup = \"p/ct\"");
    assert!(toml.contains("[cgroups.\"p/ct\"]") && !toml.contains("[cgroups.ct]") && toml.contains("cgroup = \"p/ct\""), "{toml}");
    let mut s = sim(&toml);
    run(&mut s);
    assert_eq!(s.kernel.vmstat.events[VmEvent::Pswpout as usize], 0, "the parent's 0 holds for its child");
    let off = wb_hog(0).replace("zswap = { enabled = true }", "zswap = { enabled = false }");
    let mut s = sim(&off);
    run(&mut s);
    assert!(s.kernel.vmstat.events[VmEvent::Pswpout as usize] >= 2048, "zswap off: writeback 0 does not block swap");
}

/// memory.zswap.writeback is a cgroup v2 file of 6.8+ taking 0 or 1; the scenario is refused
/// with the place and a fix otherwise.
#[test]
fn zswap_writeback_bad_input_is_refused() {
    let check = |toml: String, want: &str| {
        let doc = Document::from_toml("t.toml", &toml).unwrap();
        let e = doc.resolve(None, &[]).err().unwrap_or_else(|| panic!("accepted: {want}"));
        assert!(e.to_string().contains(want) && e.to_string().contains("t.toml:") && e.to_string().contains("fix"), "{e}");
    };
    check(wb_hog(2), "takes 0 or 1");
    check(wb_hog(0).replace("linux-6.12", "linux-6.6"), "came in Linux 6.8");
    check(wb_hog(0).replace("linux-6.12", "linux-6.1").replace("fill = \"random\"", "fill = \"byte\""), "came in Linux 6.8");
    check(wb_hog(0).replace("cgroup = \"v2\"", "cgroup = \"v1\"").replace("\"memory.max\"", "\"memory.limit_in_bytes\""), "cgroup v2 file");
}

/// `zswap_store()` at memory.zswap.max (mm/zswap.c, 6.12): from 6.8 the store first calls
/// `shrink_memcg()` on the page's memcg, one step of `list_lru_walk_one()` over its zswap LRU
/// with `shrink_memcg_cb()`: the oldest entry, stored referenced, loses the bit and rotates
/// (the store is refused, the page goes to the device); once unreferenced it is written back
/// (`zswap_writeback_entry()`: `written_back_pages`) and the store goes on. So the memcg keeps
/// storing at its limit (zswpout well past what 4M holds) and its zswap charge stays at the
/// limit, where 6.6 (no `shrink_memcg()` at the limit) refuses every store past it and writes
/// nothing back; with memory.zswap.writeback 0 `shrink_memcg()` returns -ENOENT: refused too.
#[test]
fn zswap_max_writes_back_the_memcgs_oldest_entry_from_6_8() {
    let cg = r#""memory.zswap.max" = "2M""#;
    let mut s = sim(&zhog("48M", "random-1K", "enabled = true", cg, "linux-6.12", "v2"));
    assert!(s.kernel.profile.zswap_shrink_memcg);
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let z = stats(&s);
    let ct = s.kernel.memcgs.memcgs.iter().position(|m| m.counter.max == (16 << 20) / PAGE_SIZE).unwrap();
    let held = (2 << 20) / lzo1x_1_compressed_len(AnonFill::Random(1024));
    assert!(z.written_back_pages > 1000, "{z:?}");
    assert!(z.zswpout > held + z.written_back_pages / 2, "stores go on at the limit: {z:?}");
    let bytes = s.kernel.memcgs.memcgs[ct].zswap_bytes;
    assert!(bytes >= (2 << 20) - 4096 && bytes <= (2 << 20) + 4096, "memory.zswap.current {bytes} at the 2M limit");
    // 6.6: the limit refuses.
    let mut s = sim(&zhog("48M", "random-1K", "enabled = true", cg, "linux-6.12", "v2"));
    s.kernel.profile.zswap_shrink_memcg = false;
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    let z6 = stats(&s);
    assert_eq!(z6.written_back_pages, 0);
    assert!(z6.zswpout < z.zswpout, "{z6:?} vs {z:?}");
    // memory.zswap.writeback 0: shrink_memcg() -> -ENOENT, nothing written back.
    let cg0 = format!("{cg}\n\"memory.zswap.writeback\" = 0");
    let mut s = sim(&zhog("48M", "random-1K", "enabled = true", &cg0, "linux-6.12", "v2"));
    run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
    assert_eq!(stats(&s).written_back_pages, 0);
}

/// mm/zswap.c `zswap_writeback_entry()` (6.12) allocates its swap-cache page with
/// `__read_swap_cache_async()`, which adds it to the CPU's lru_add batch (`folio_add_lru()`),
/// marks it `PG_reclaim` and writes it. When the write ends before the batch moves
/// (`lru_add_drain()` at the next `shrink_inactive_list()`), `folio_end_writeback()` clears
/// `PG_reclaim` and `folio_rotate_reclaimable()` passes over the page (`PG_lru` clear): it is
/// not rotated to the inactive tail. On CPUs 55 times slower than the cost table's (the
/// QEMU/TCG guest) the next reclaim comes after the write has ended: written pages go
/// unrotated (pgrotated below pswpout); with the batch not modelled every one is rotated.
#[test]
fn zswap_writeback_pages_ending_in_the_lru_add_batch_are_not_rotated_6_12() {
    let cg = r#""memory.zswap.max" = "2M""#;
    let scn = zhog("48M", "random-1K", "enabled = true", cg, "linux-6.12", "v2").replace("[machine]\n", "[machine]\ncpu_slowdown = 55\n");
    let run_it = |batch: usize| {
        let mut s = sim(&scn);
        s.kernel.profile.lru_add_batch = batch;
        run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
        (s.kernel.vmstat.get(VmEvent::Pswpout), s.kernel.vmstat.get(VmEvent::Pgrotated), stats(&s).written_back_pages)
    };
    let (out, rotated, wb) = run_it(crate::swap::PAGEVEC_SIZE_6_10);
    let (out0, rotated0, wb0) = run_it(0);
    assert!(wb > 1000 && wb0 > 1000, "{wb} {wb0}");
    assert_eq!(rotated0, out0, "without the batch every written page is rotated");
    // (2381 of 18244 here)
    assert!(out - rotated > 1000, "with it, written pages go unrotated: {rotated} of {out}");
}

/// 6.12, a 16M memcg at memory.zswap.max 2M on QEMU's throttled disk (idle: a write completes
/// 1 ns after its dispatch, swapfile.rs `swap_write_dispatched`), run up to a quantum's end
/// with its entries written back, the lru_add batch drained; then, under a plug opened here
/// (`shrink_lruvec()`'s around a store), `shrink_memcg()` writes the memcg's oldest
/// unreferenced entry back (a referenced one rotates first): its page is the batch's, its write
/// waits in the plug. Returns the simulation and the memcg.
fn zswap_max_write_back_in_plug_6_12() -> (Simulation, MemcgId) {
    let cg = r#""memory.zswap.max" = "2M""#;
    let toml = zhog("48M", "random-1K", "enabled = true", cg, "linux-6.12", "v2").replace("write_bw = \"400M\"\n", "write_bw = \"400M\"\nqemu_throttle = true\n");
    assert!(toml.contains("qemu_throttle = true"), "{toml}");
    let mut s = sim(&toml);
    let ct = memcg(&s, "ct");
    while s.step() {
        if stats(&s).written_back_pages > 100 {
            break;
        }
    }
    let k = &mut s.kernel;
    assert!(!k.swap_plug.active, "between quanta no plug is open");
    k.lru_add_drain();
    assert!(k.blk_start_plug());
    let wb = stats_of(k).written_back_pages;
    for _ in 0..64 {
        if k.shrink_memcg(ct) {
            break;
        }
    }
    assert_eq!(stats_of(k).written_back_pages, wb + 1, "one entry written back");
    (s, ct)
}

/// mm/page_io.c `end_swap_bio_write()` -> `folio_end_writeback()` (6.12) runs from the
/// device's completion interrupt (virtio-blk `vblk_done()`), after the CPU that dispatched the
/// write at `blk_finish_plug()` has gone on; on the QEMU guest's throttled disk the engine's
/// device gives a write no time (its bucket idle), and the completion then comes at the
/// clock's next instant, not at the dispatch instant. So the page `zswap_writeback_entry()`
/// put in the CPU's lru_add batch and wrote under the reclaim's plug is moved to the LRU by the
/// `lru_add_drain()` that the engine reaches at the instant of `blk_finish_plug()` (the next
/// `shrink_inactive_list()`), and its completion rotates it to the inactive tail
/// (`folio_rotate_reclaimable()`, PGROTATED). Before, the completion was handled first, in
/// that drain, and the page, still batched, was not rotated (`PG_reclaim` cleared).
#[test]
fn a_swap_write_does_not_complete_at_its_dispatch_instant_6_12() {
    let (mut s, _) = zswap_max_write_back_in_plug_6_12();
    let k = &mut s.kernel;
    let cpu = k.this_cpu();
    let b = k.lru_add_fbatches[cpu];
    assert_eq!(b.nr, 1, "the writeback's page is the batch's only one");
    let p = b.folios[0];
    assert!(k.folio_in_lru_batch(p) && k.pages[p].test(pg::WRITEBACK) && k.pages[p].test(pg::RECLAIM), "batched, under writeback, PG_reclaim");
    let t = k.now;
    k.blk_finish_plug();
    assert_eq!(k.now, t);
    assert!(k.wb_done[p.idx()] > t, "dispatched at {t}, the idle bucket's write completes after it: {}", k.wb_done[p.idx()]);
    let rotated = k.vmstat.get(VmEvent::Pgrotated);
    // The next shrink_inactive_list()'s drain at the same instant, then the completion.
    k.lru_add_drain();
    assert!(k.pages[p].test(pg::LRU) && k.pages[p].test(pg::WRITEBACK), "on the LRU before its write ended");
    k.advance_clock(t + 1_000_000);
    assert!(!k.pages[p].test(pg::WRITEBACK));
    assert_eq!(k.vmstat.get(VmEvent::Pgrotated), rotated + 1, "folio_rotate_reclaimable() of the written page");
    let v = k.folio_lruvec(p);
    assert_eq!(k.lruvecs[v].tail(crate::mmzone::LruList::InactiveAnon), Some(p), "at the inactive anon tail");
}

/// 6.12's `shrink_lruvec()` (mm/vmscan.c; the same order since the plug went in, 3.x-6.12)
/// calls `blk_finish_plug()` after the batch loop and only then the anon rebalance,
/// `inactive_is_low(lruvec, LRU_INACTIVE_ANON)` -> `shrink_active_list()`: the pass's swap
/// writes are dispatched before the rebalance's `lru_add_drain()` and scan take their CPU
/// time. Before, the engine ran the rebalance under the plug and dispatched the writes after
/// its scan (the write's completion came that scan's CPU time later).
#[test]
fn shrink_lruvec_rebalances_anon_after_blk_finish_plug_6_12() {
    // A swap write waiting in the plug, as a store of the pass's batch loop leaves it; the
    // plug is closed again so that shrink_lruvec() below opens and flushes it as its own. The
    // idle bucket completes it 1 ns after its dispatch, which shows the dispatch instant.
    let (mut s, ct) = zswap_max_write_back_in_plug_6_12();
    let k = &mut s.kernel;
    let p = k.lru_add_fbatches[k.this_cpu()].folios[0];
    assert!(k.pages[p].test(pg::WRITEBACK) && k.wb_done[p.idx()] == u64::MAX, "its write waits in the plug: {}", k.wb_done[p.idx()]);
    k.swap_plug.active = false;
    // Inactive anon low (below 1 GiB: inactive < active): pages from the inactive tail to the
    // active list until it is.
    use crate::mmzone::LruList::{ActiveAnon, InactiveAnon};
    let v = k.lruvec_idx(ct, 0);
    while k.lruvecs[v].nr_pages(InactiveAnon) + 64 > k.lruvecs[v].nr_pages(ActiveAnon) {
        let q = k.lruvecs[v].tail(InactiveAnon).expect("inactive anon pages");
        k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, q);
        k.pages[q].flags |= pg::ACTIVE;
        k.lruvecs[v].add(&mut k.pages, &mut k.lru_stats, q, ActiveAnon);
    }
    // 6.12's inactive_is_low() reads the rstat copy: a periodic flush after the move.
    k.lru_stats.flush_periodic(u64::MAX);
    assert!(k.inactive_anon_is_low(v), "inactive {} active {}", k.lruvecs[v].nr_pages(InactiveAnon), k.lruvecs[v].nr_pages(ActiveAnon));
    // Priority 12 over lists of under 4096 pages: get_scan_count() gives every list 0, the
    // loop does nothing and the pass is its end.
    let mut sc = crate::vmscan::ScanControl::new(ct, 32, true, false);
    assert_eq!(sc.priority, 12);
    let (t, deact) = (k.now, k.vmstat.get(VmEvent::Pgdeactivate));
    k.shrink_lruvec_node(ct, v, &mut sc);
    assert!(!k.swap_plug.active);
    assert_eq!(k.vmstat.get(VmEvent::Pgdeactivate), deact + 32, "the rebalance deactivated SWAP_CLUSTER_MAX pages");
    assert!(k.now > t + 1, "its scan took CPU time: {t} -> {}", k.now);
    let done = k.wb_done[p.idx()];
    assert_eq!(done, t + 1, "the write was dispatched at the flush ({t}), before the rebalance's scan (the pass ended at {})", k.now);
}

/// 6.1's `shrink_wq` is `create_workqueue("zswap-shrink")`, a bound workqueue (mm/zswap.c
/// `zswap_setup()`; kernel/workqueue.c `__queue_work()` takes `raw_smp_processor_id()`'s pool
/// for a queue without `WQ_UNBOUND`): the work runs in a kworker beside the storing task, on
/// its own clock. A work queued at the task's clock runs its first `zswap_writeback_entry()`
/// then, in the kworker's time (the task's clock, CPU time and I/O wait do not move); the
/// next writeback waits until the task's clock reaches the kworker's, and the run that frees
/// the pool page ends there (`zbud_reclaim_page()`: the page under reclaim is freed when both
/// buddies went).
#[test]
fn the_shrink_worker_runs_beside_the_storing_task_6_1() {
    let mut s = sim(&zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2"));
    // Up to the first write-back: the pool has met its limit, the worker's first run is done.
    while s.step() {
        let z = s.kernel.zswap.as_ref().unwrap();
        if z.stats.written_back_pages > 0 && !z.shrink_pending() {
            break;
        }
    }
    let k = &mut s.kernel;
    let z = k.zswap.as_ref().unwrap();
    assert!(z.stats.pool_limit_hit > 0 && !z.shrink_pending(), "{:?}", z.stats);
    let (now, sys, iowait) = (k.now, k.sys_ns, k.iowait_ns);
    let (wb, pool) = (z.stats.written_back_pages, z.pool_pages());
    let z = k.zswap.as_mut().unwrap();
    z.shrink_queued = true;
    z.shrink_queued_at = now;
    k.zswap_shrink_worker_due();
    assert_eq!((k.now, k.sys_ns, k.iowait_ns), (now, sys, iowait), "the kworker's time is its own");
    let z = k.zswap.as_ref().unwrap();
    assert!(!z.shrink_queued, "the run started at the queueing");
    assert!(z.worker_clock > now, "its first writeback took the kworker's time: clock {} at {now}", z.worker_clock);
    assert_eq!(z.stats.written_back_pages, wb + 1, "one writeback before the task's clock reaches the kworker's");
    assert!(z.worker_run.is_some(), "the run is under way");
    // The task's clock at the kworker's: the run goes on to the pool page's end.
    k.now = z.worker_clock + 1_000_000_000;
    k.zswap_shrink_worker_due();
    let z = k.zswap.as_ref().unwrap();
    assert!(z.worker_run.is_none() && !z.shrink_queued, "the run ended");
    assert!(z.stats.written_back_pages >= wb + 1 && z.stats.written_back_pages <= wb + 2, "{:?}", z.stats);
    assert_eq!(z.pool_pages(), pool - 1, "the run freed the page under reclaim");
}

/// 6.1's shrink work is queued on a bound workqueue (`queue_work(shrink_wq, ...)` ->
/// `__queue_work()` -> `insert_work()` -> `wake_up_worker()`, kernel/workqueue.c of Linux 6.1):
/// an idle kworker is woken and runs the work only after its wake-up wait, the machine's
/// `[machine] kworker_wakeup_latency` (wake11: a QEMU guest's CPU-bound kworkers wait a mean
/// 0.05-0.4 ms, /proc/PID/schedstat). Queued from idle the run starts that long after the store;
/// queued while a run is under way it starts where that run ends, the worker awake. The stores
/// meanwhile meet the full pool and count `pool_limit_hit`: more than with the worker at once.
#[test]
fn a_woken_shrink_kworker_waits_its_wakeup_latency_6_1() {
    let with = |lat: &str| {
        let toml = zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2")
            .replace("swap = \"256M\"\n", &format!("swap = \"256M\"\n{lat}\n"));
        sim(&toml)
    };
    // Up to the end of the first run, at once and 1 ms late: then queue from idle.
    let mut s = with("kworker_wakeup_latency = [\"1ms\"]");
    while s.step() {
        let z = s.kernel.zswap.as_ref().unwrap();
        if z.stats.written_back_pages > 0 && !z.shrink_pending() {
            break;
        }
    }
    let k = &mut s.kernel;
    let now = k.now.max(k.zswap.as_ref().unwrap().worker_clock);
    k.now = now;
    let wb = k.zswap.as_ref().unwrap().stats.written_back_pages;
    k.zswap_queue_shrink_work();
    let z = k.zswap.as_ref().unwrap();
    assert!(z.shrink_queued && z.worker_run.is_none(), "the woken kworker has not run yet");
    assert_eq!(z.shrink_queued_at, now + 1_000_000, "it runs 1 ms after the queueing");
    k.now = now + 999_999;
    k.zswap_shrink_worker_due();
    assert_eq!(k.zswap.as_ref().unwrap().stats.written_back_pages, wb, "nothing written back before then");
    k.now = now + 1_000_000;
    k.zswap_shrink_worker_due();
    let z = k.zswap.as_ref().unwrap();
    assert!(!z.shrink_queued && z.stats.written_back_pages == wb + 1, "it ran at its time: {:?}", z.stats);
    // Queued again while that run is under way: no new wake-up, it runs where the run ends.
    assert!(z.worker_run.is_some());
    let end = z.worker_clock;
    k.zswap_queue_shrink_work();
    assert_eq!(k.zswap.as_ref().unwrap().shrink_queued_at, k.now, "queued at the store, started at the run's end ({end})");
    // Whole runs: the stores while the woken worker waits count pool_limit_hit.
    let hits = |lat: &str| {
        let mut s = with(lat);
        run_with(&mut s, |s| s.kernel.check_invariants().unwrap());
        stats(&s).pool_limit_hit
    };
    let (at_once, late) = (hits(""), hits("kworker_wakeup_latency = [\"1ms\"]"));
    assert!(late > at_once, "pool_limit_hit {late} with a 1 ms wake-up, {at_once} at once");
    assert_eq!(hits("kworker_wakeup_latency = [\"0ns\"]"), at_once, "0: as without samples");
}

/// 6.1's `zbud_reclaim_page()` (mm/zbud.c) takes the LRU's tail page off the LRU and the
/// buddy lists (`list_del(&zhdr->lru)`, `list_del(&zhdr->buddy)`) for the evictions, and only
/// at `next:`, when a buddy is still held (an eviction failed: `zswap_writeback_entry()`
/// finds the slot in the swap cache, -EEXIST), "add to beginning of LRU": the pages stored
/// while the reclaim ran (`zbud_alloc()` puts them at the LRU's head) end up behind it.
#[test]
fn zbud_reclaim_page_keeps_a_page_off_the_lru_until_next_6_1() {
    let mut s = sim(&zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2"));
    while s.step() {
        let z = s.kernel.zswap.as_ref().unwrap();
        if z.stats.written_back_pages > 0 && !z.shrink_pending() {
            break;
        }
    }
    // A run of the worker: its first eviction at the queueing, the page's other buddy left.
    let k = &mut s.kernel;
    let now = k.now;
    let z = k.zswap.as_mut().unwrap();
    z.shrink_queued = true;
    z.shrink_queued_at = now;
    k.zswap_shrink_worker_due();
    let z = k.zswap.as_ref().unwrap();
    let (before, under) = z.zbud_lru();
    let (r, slots) = under.expect("a page under reclaim");
    assert!(!before.contains(&r), "the page under reclaim is off the LRU");
    let left = slots[1];
    assert!(slots[0] == u32::MAX && left != u32::MAX, "the first buddy went, the last is held: {slots:?}");
    // The task faults the last buddy's page back meanwhile: its slot is in the swap cache.
    let memcg = k.swap.as_ref().unwrap().slot_memcg(left);
    assert!(k.read_swap_cache_async(left, false, 0, memcg));
    // The pool under its limit now (a larger max_pool_percent) and the kworker's first
    // writeback long (the TCG guest's kworker spent 13-22 ms in it), the task stores on.
    let z = k.zswap.as_mut().unwrap();
    z.params.max_pool_percent = 50;
    z.worker_clock = u64::MAX / 2;
    let mut stored = vec![];
    while stored.is_empty() {
        assert!(s.step(), "the task stores");
        let (lru, under) = s.kernel.zswap.as_ref().unwrap().zbud_lru();
        assert_eq!(under.map(|u| u.0), Some(r), "still under reclaim");
        stored = lru.into_iter().filter(|p| !before.contains(p)).collect();
    }
    // The kworker's next step: the eviction of the last buddy fails (-EEXIST), "goto next".
    let k = &mut s.kernel;
    k.zswap.as_mut().unwrap().worker_clock = k.now;
    k.zswap_shrink_worker_due();
    let (after, under) = k.zswap.as_ref().unwrap().zbud_lru();
    assert_ne!(under.map(|u| u.0), Some(r), "the reclaim is done with the page");
    let at = |p: u32| after.iter().position(|&q| q == p);
    let kept = at(r).expect("the page kept (its eviction failed) is back on the LRU");
    for p in stored {
        assert!(kept < at(p).unwrap(), "page {p}, stored during the reclaim, should be behind the kept page {r}: at {:?}, the kept page at {kept}", at(p));
    }
}

/// 6.1's `zswap_is_full()` and `zswap_can_accept()` read `zswap_pool_total_size`, which
/// `zswap_update_total_size()` takes only in `zswap_free_entry()` and at the end of a successful
/// store (mm/zswap.c of Linux 6.1; debugfs `pool_total_size` and meminfo `Zswap` read it too). A
/// shrink run's two writebacks free their entries while the zbud page is under reclaim
/// (`zbud_free()` leaves it), then `zbud_reclaim_page()` frees the page: the copy still holds it,
/// so the pool at its limit reads full until the next store or free takes the size again.
#[test]
fn zswap_is_full_reads_the_size_the_last_update_took_6_1() {
    let mut s = sim(&zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2"));
    while s.step() {
        let z = s.kernel.zswap.as_ref().unwrap();
        if z.stats.pool_limit_hit > 0 && !z.shrink_pending() {
            break;
        }
    }
    let k = &mut s.kernel;
    let totalram = k.managed_pages();
    let limit = totalram / 100;
    k.now = k.now.max(k.zswap.as_ref().unwrap().worker_clock);
    // The first hit's run has ended and no store came after it.
    let z = k.zswap.as_ref().unwrap();
    let live = z.pool_pages();
    assert!(live + 2 >= limit && live <= limit + 1, "the pool near its limit: {live} of {limit}");
    assert_eq!(z.pool_total_size_pages(), live + 1, "the run's frees took the size with the page under reclaim, freed after");
    assert_eq!(z.is_full(totalram), limit < live + 1, "zswap_is_full() reads the copy");
    assert_eq!(crate::metrics::zswap_pool_bytes(k, z), (live + 1) * PAGE_SIZE, "debugfs pool_total_size reads the copy too");
    // Another run: the same again, one page lower.
    let wb = z.stats.written_back_pages;
    k.zswap_queue_shrink_work();
    k.now += 1_000_000_000;
    k.zswap_shrink_worker_due();
    let z = k.zswap.as_ref().unwrap();
    assert!(!z.shrink_pending() && z.stats.written_back_pages == wb + 2, "a run of two writebacks: {:?}", z.stats);
    assert_eq!((z.pool_pages(), z.pool_total_size_pages()), (live - 1, live), "the same, one page lower");
    assert_eq!(z.can_accept(totalram), totalram * 90 / 100 / 100 > live, "zswap_can_accept() reads the copy");
}

/// The compressor's CPU time is part of the machine's cost table (`CpuCost::zswap_compress`,
/// `zswap_decompress`, `zswap_same_filled_check`), so `[machine] cpu_slowdown` (the QEMU/TCG
/// guest's measured factor) scales it with the rest of the kernel's code: a hog whose pages all
/// go to zswap and back spends `k` times the system time at `cpu_slowdown = k`, with the same
/// stores and loads. They were constants outside the table: at k = 8 the hog's system time
/// grew 2.56 times, the compression staying at its reference 6 us a page.
#[test]
fn zswap_compression_time_scales_with_the_machines_cpu_slowdown_6_1() {
    let run = |k: u64| {
        let text = zhog("24M", "random-1K", "enabled = true", "", "linux-6.1", "v2");
        let text = if k > 1 { text.replace("[machine]\n", &format!("[machine]\ncpu_slowdown = {k}\n")) } else { text };
        let mut s = sim(&text);
        run_with(&mut s, |_| {});
        let z = stats(&s);
        (s.kernel.sys_ns, z.stored_pages, z.zswpin)
    };
    let (sys1, stored1, loads1) = run(1);
    let (sys8, stored8, loads8) = run(8);
    assert_eq!((stored1, loads1), (stored8, loads8), "the same stores and loads");
    assert!(stored1 > 1000 && loads1 > 1000, "{stored1} {loads1}");
    let ratio = sys8 as f64 / sys1 as f64;
    assert!((7.9..=8.1).contains(&ratio), "system time x{ratio:.2} at cpu_slowdown 8 ({sys1} -> {sys8} ns)");
}
