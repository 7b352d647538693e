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

/// A small file's leaf holds only its first few slots on the host (a short leaf), and turns
/// into a 64-slot leaf on the first store it cannot hold (a page past them: a write extending
/// the file; a shadow entry); entries, `xa_find()` and the leaf's occupancy are those of the
/// kernel's 64-slot `xa_node` whatever the host holds (lib/xarray.c `xas_store()`,
/// `xas_find()`; linux-6.1). The same stores and erasures on a tree told the file's size and
/// on one told nothing give the same entries at every index.
#[test]
fn small_file_leaf_holds_few_host_slots_and_grows_to_64() {
    let mut small = XArray::default();
    small.set_size_hint(2);
    let mut plain = XArray::default();
    for xa in [&mut small, &mut plain] {
        xa.create(0);
        xa.store(1, Slot(4));
        xa.node_mut(xa.leaf_id(0).unwrap()).pages += 1;
    }
    assert!(small.host_bytes() < plain.host_bytes() / 4, "{} vs {} host bytes", small.host_bytes(), plain.host_bytes());
    for i in 0..64 {
        assert_eq!(small.get(i), plain.get(i), "index {i}");
    }
    assert_eq!(small.next_entry(2, u32::MAX), None, "no entry past the host's slots");
    // A store past the short leaf's slots grows it to 64, keeping the entries and occupancy.
    for xa in [&mut small, &mut plain] {
        xa.store(40, Slot(8));
        xa.node_mut(xa.leaf_id(0).unwrap()).pages += 1;
    }
    for i in 0..64 {
        assert_eq!(small.get(i), plain.get(i), "index {i} after the leaf grew");
    }
    assert_eq!(small.node(small.leaf_id(0).unwrap()).pages, 2);
    assert_eq!(small.next_entry(2, u32::MAX), Some(40));
    // A shadow entry in a short leaf: the wide layout, same entries.
    let mut s2 = XArray::default();
    s2.set_size_hint(3);
    s2.create(0);
    s2.store(0, Slot(6));
    s2.store(2, Slot(9));
    assert_eq!((s2.get(0), s2.get(2)), (Slot(6), Slot(9)));
    // Emptied and freed: no node left; made again from the free list.
    for xa in [&mut small, &mut plain] {
        xa.store(1, Slot::EMPTY);
        xa.store(40, Slot::EMPTY);
        xa.free_leaf(0);
        assert_eq!(xa.nr_nodes(), (0, 0));
        let id = xa.create(0);
        assert!(xa.slots(id).all(|s| s == Slot::EMPTY));
        assert_eq!(xa.nr_nodes(), (1, 0));
    }
}

/// Only the chunk in which a file ends within its first `SHORT_SLOTS` pages gets a short leaf:
/// a 66-page file's second chunk (pages 64-65) does, its first does not; a 100-page file's
/// second chunk (36 pages) does not.
#[test]
fn short_leaves_only_where_the_file_ends_early_in_a_chunk() {
    let bytes = |hint: u64, chunk: u32| {
        let mut xa = XArray::default();
        xa.set_size_hint(hint);
        xa.create(chunk);
        xa.host_bytes()
    };
    // (a leaf of chunk 1 has an inner node above it, as in the kernel's tree)
    assert!(bytes(66, 1) + 200 < bytes(100, 1), "{} vs {}", bytes(66, 1), bytes(100, 1));
    assert_eq!(bytes(100, 1), bytes(0, 1));
    assert!(bytes(2, 0) < bytes(0, 0) / 4, "{} vs {}", bytes(2, 0), bytes(0, 0));
    assert_eq!(bytes(66, 2), bytes(0, 2), "past the end: a file that grew");
}

/// `Slot::as_page()` decodes by rotate-and-subtract (issue 17): a page's slot gives its id for
/// ids across the whole `u32` range a `PageId` can hold below `NIL`, and an empty slot or any
/// shadow entry (bit 0 set, whatever the bits above) gives none.
#[test]
fn a_slot_is_a_page_only_when_it_holds_one() {
    for id in [0u32, 1, 2, 63, 64, 1 << 20, (1 << 31) - 1, 1 << 31, u32::MAX - 1] {
        assert_eq!(Slot::page(PageId(id)).as_page(), Some(PageId(id)), "page {id}");
        assert_eq!(Slot::page(PageId(id)).as_shadow(), None, "page {id}");
    }
    assert_eq!(Slot::EMPTY.as_page(), None);
    for shadow in [1u64, 3, 5, (1 << 32) + 1, (1 << 33) | 1, (1 << 63) | 1, u64::MAX, u64::MAX - 2] {
        assert_eq!(Slot(shadow).as_page(), None, "shadow {shadow:#x}");
        assert_eq!(Slot(shadow).as_shadow(), Some(shadow));
    }
}
