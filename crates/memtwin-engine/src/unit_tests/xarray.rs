//! The page cache's index (lib/xarray.c): nodes on demand, freed when empty.

use super::*;
use crate::filemap::Slot;
use crate::xarray::XArray;

/// A mapping holds host memory for the nodes around its entries, not for the file's size: a
/// read of 1 MiB at the end of a 4 TiB file allocates two leaves and the inner nodes above
/// them, as `xas_create()` does (the flat slot array it replaces took 8 GiB here).
#[test]
fn mapping_memory_follows_entries_not_file_size() {
    let mut s = sim(r#"
[scenario]
name = "sparse"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "4T"
[tasks.t]
ops = [{ op = "read", file = "/f", offset = "4095G", length = "1M", fadvise = "random" }]
"#);
    run(&mut s);
    let f = inode(&s, "/f");
    let m = &s.kernel.mappings[f.idx()];
    assert_eq!(m.nrpages, 256);
    let (leaves, inner) = m.xa.nr_nodes();
    assert_eq!(leaves, 4, "256 pages: four 64-slot leaves");
    assert!(inner <= 5, "{inner} inner nodes");
    assert!(m.host_bytes() < 64 << 10, "{} host bytes", m.host_bytes());
    assert_invariants(&s.kernel);
}

/// Leaves are freed as their last entry goes and the tree shrinks back; lookups, stores and
/// `xa_find()` agree with a plain map under random stores and erasures of pages and shadow
/// entries, whatever layout (narrow, wide, run) each leaf is in.
#[test]
fn xarray_matches_a_map_and_frees_empty_nodes() {
    let mut xa = XArray::default();
    let mut model = std::collections::BTreeMap::new();
    let mut rng = crate::types::Rng::new(7);
    for step in 0..20000u32 {
        let index = match rng.below(4) {
            0 => rng.below(200) as u32,
            1 => u32::MAX - rng.below(200) as u32,
            _ => rng.below(1 << 31) as u32 & !0xfff | rng.below(100) as u32,
        };
        let chunk = index >> 6;
        xa.create(chunk);
        if model.contains_key(&index) && step % 3 != 0 {
            xa.store(index, Slot::EMPTY);
            model.remove(&index);
            if !model.range(chunk << 6..=(chunk << 6 | 63)).any(|_| true) {
                xa.free_leaf(chunk);
            }
        } else {
            // Pages, and a shadow (value) entry one store in five: leaves change layout.
            let v = if step % 5 == 0 { 1 + 2 * step as u64 } else { 2 + 2 * step as u64 };
            xa.store(index, Slot(v));
            model.insert(index, v);
        }
        if step % 499 == 0 {
            // A chunk filled with consecutive frames (a large folio's) becomes a run leaf.
            let c = index >> 6;
            let base = 2 * step;
            for o in 0..64u32 {
                let v = Slot::page(PageId(base + o));
                xa.store(c << 6 | o, v);
                model.insert(c << 6 | o, v.0);
            }
            xa.compact_run(c);
        }
        if step % 97 == 0 {
            for (&i, &v) in model.iter().take(50) {
                assert_eq!(xa.get(i), Slot(v));
            }
            let from = rng.below(1 << 32) as u32;
            assert_eq!(xa.next_entry(from, u32::MAX), model.range(from..).next().map(|(&i, _)| i));
        }
    }
    let chunks: std::collections::BTreeSet<u32> = model.keys().map(|i| i >> 6).collect();
    assert_eq!(xa.nr_nodes().0, chunks.len(), "one leaf per occupied chunk");
    for i in model.keys().copied().collect::<Vec<_>>() {
        xa.store(i, Slot::EMPTY);
        model.remove(&i);
        if !model.range((i >> 6) << 6..=((i >> 6) << 6 | 63)).any(|_| true) {
            xa.free_leaf(i >> 6);
        }
    }
    assert_eq!(xa.nr_nodes(), (0, 0), "every node freed");
    assert_eq!(xa.next_entry(0, u32::MAX), None);
}

/// A chunk that one large folio of order >= 6 fills is one multi-index entry in the kernel
/// (`xas_store()` after `xas_set_order()`, lib/xarray.c, 6.18): the engine keeps it as a run
/// leaf (the first frame only). Loads see every page; a store of anything else (a shadow entry,
/// another page, an erasure) turns it back into slots, and the counts follow.
#[test]
fn a_chunk_filled_by_one_folio_is_one_entry() {
    let mut xa = XArray::default();
    xa.create(3);
    for o in 0..64u32 {
        xa.store(3 << 6 | o, Slot::page(PageId(1000 + o)));
    }
    let slots_bytes = xa.host_bytes();
    xa.compact_run(3);
    for o in 0..64u32 {
        assert_eq!(xa.get(3 << 6 | o).as_page(), Some(PageId(1000 + o)));
    }
    assert_eq!(xa.nr_nodes().0, 1);
    // The same page stored again changes nothing.
    assert_eq!(xa.store(3 << 6 | 5, Slot::page(PageId(1005))), Slot::page(PageId(1005)));
    let mut other = XArray::default();
    other.create(3);
    other.store(3 << 6, Slot::page(PageId(7)));
    other.compact_run(3); // one page: not a run
    assert_eq!(other.get(3 << 6).as_page(), Some(PageId(7)));
    assert_eq!(other.get(3 << 6 | 1), Slot::EMPTY);
    // A shadow entry over the folio's first page: the leaf is slots again.
    assert_eq!(xa.store(3 << 6, Slot(0x55)), Slot::page(PageId(1000)));
    assert_eq!(xa.get(3 << 6), Slot(0x55));
    for o in 1..64u32 {
        assert_eq!(xa.get(3 << 6 | o).as_page(), Some(PageId(1000 + o)));
    }
    assert_eq!(xa.next_entry(0, u32::MAX), Some(3 << 6));
    for o in 0..64u32 {
        xa.store(3 << 6 | o, Slot::EMPTY);
    }
    xa.free_leaf(3);
    assert_eq!(xa.nr_nodes(), (0, 0));
    assert!(slots_bytes > 0);
}

/// Memory per resident page falls with the folio order: the page cache of a file read in
/// order-9 folios (XFS on 6.18, read_ahead_kb 8192) holds one run leaf per 64 pages instead of
/// 64 slots, and loads still find each page where it was.
#[test]
fn large_folios_cost_less_index_memory_than_pages() {
    let scn = |fs: &str| format!(r#"
[scenario]
name = "lf"
[machine]
ram = "4G"
fs = "{fs}"
[kernel]
profile = "linux-6.18"
[devices.sda]
read_bw = "10G"
read_ahead_kb = 8192
[files."/f"]
size = "256M"
[tasks.t]
ops = [{{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential" }}]
"#);
    let mut small = sim(&scn("btrfs"));
    run(&mut small);
    let mut large = sim(&scn("xfs"));
    run(&mut large);
    let (ms, ml) = (&small.kernel.mappings[inode(&small, "/f").idx()], &large.kernel.mappings[inode(&large, "/f").idx()]);
    assert_eq!(ms.nrpages, 65536);
    assert_eq!(ml.nrpages, 65536);
    assert!(ml.host_bytes() * 4 < ms.host_bytes(), "large folios {} vs pages {} bytes", ml.host_bytes(), ms.host_bytes());
    for i in (0..65536u32).step_by(97) {
        let p = ml.lookup(i).expect("resident");
        assert_eq!(large.kernel.pages[p].index, i);
    }
    assert_invariants(&large.kernel);
}
