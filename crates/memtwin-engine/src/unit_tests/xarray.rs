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
/// `xa_find()` agree with a plain map under random stores and erasures.
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
        let id = xa.create(chunk);
        let slot = xa.leaf_mut(id).slot_mut((index & 63) as usize);
        if model.contains_key(&index) && step % 3 != 0 {
            *slot = Slot::EMPTY;
            model.remove(&index);
            if !model.range(chunk << 6..=(chunk << 6 | 63)).any(|_| true) {
                xa.free_leaf(chunk);
            }
        } else {
            *slot = Slot(2 + 2 * step as u64);
            model.insert(index, 2 + 2 * step as u64);
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
        let id = xa.leaf_id(i >> 6).unwrap();
        *xa.leaf_mut(id).slot_mut((i & 63) as usize) = Slot::EMPTY;
        model.remove(&i);
        if !model.range((i >> 6) << 6..=((i >> 6) << 6 | 63)).any(|_| true) {
            xa.free_leaf(i >> 6);
        }
    }
    assert_eq!(xa.nr_nodes(), (0, 0), "every node freed");
    assert_eq!(xa.next_entry(0, u32::MAX), None);
}

/// The host's copy of a small file's leaf holds only the slots up to the file's end (a power
/// of two), and all 64 from the first store beyond it; entries, `xa_find()` and the leaf's
/// occupancy are those of the kernel's 64-slot `xa_node` whatever the host holds (lib/xarray.c
/// `xas_store()`, `xas_find()`; linux-6.1). The same stores and erasures on a tree told the
/// file's size and on one told nothing give the same entries at every index.
#[test]
fn small_file_leaf_holds_few_host_slots_and_grows_to_64() {
    let mut small = XArray::default();
    small.set_size_hint(2);
    let mut plain = XArray::default();
    for xa in [&mut small, &mut plain] {
        let id = xa.create(0);
        *xa.leaf_mut(id).slot_mut(1) = Slot(4);
    }
    let id = small.leaf_id(0).unwrap();
    assert_eq!(small.leaf(id).slots().len(), 2, "an 8 KiB file's leaf: two host slots");
    assert_eq!(plain.leaf(plain.leaf_id(0).unwrap()).slots().len(), 64);
    assert!(small.host_bytes() < plain.host_bytes() / 4, "{} vs {} host bytes", small.host_bytes(), plain.host_bytes());
    for i in 0..64 {
        assert_eq!(small.get(i), plain.get(i), "index {i}");
    }
    assert_eq!(small.next_entry(2, u32::MAX), None, "no entry past the host's slots");
    // A store past the file's end (a write extending it) grows the host's copy to 64 slots,
    // keeping the entries.
    for xa in [&mut small, &mut plain] {
        let id = xa.create_for(0, 40);
        *xa.leaf_mut(id).slot_mut(40) = Slot(7);
    }
    assert_eq!(small.leaf(small.leaf_id(0).unwrap()).slots().len(), 64);
    for i in 0..64 {
        assert_eq!(small.get(i), plain.get(i), "index {i} after the leaf grew");
    }
    assert_eq!(small.next_entry(2, u32::MAX), Some(40));
    // Emptied and freed, then made again (from the free list): still a 64-slot copy, empty.
    for xa in [&mut small, &mut plain] {
        let id = xa.leaf_id(0).unwrap();
        *xa.leaf_mut(id).slot_mut(1) = Slot::EMPTY;
        *xa.leaf_mut(id).slot_mut(40) = Slot::EMPTY;
        xa.free_leaf(0);
        assert_eq!(xa.nr_nodes(), (0, 0));
        let id = xa.create(0);
        assert!(xa.leaf(id).slots().iter().all(|s| *s == Slot::EMPTY));
        assert_eq!(xa.nr_nodes(), (1, 0), "the freed leaf reused");
    }
}

/// Only a file of fewer than 64 pages has a small leaf, and only while it has one chunk: a
/// 100-page file's leaves hold 64 host slots; a 3-page file's leaf holds four until a second
/// chunk is made (a write past 64 pages), which moves it to the arena with its entries.
#[test]
fn leaves_of_a_file_hold_host_slots_up_to_its_end() {
    let mut xa = XArray::default();
    xa.set_size_hint(100);
    let a = xa.create(0);
    let b = xa.create(1);
    assert_eq!(xa.leaf(a).slots().len(), 64);
    assert_eq!(xa.leaf(b).slots().len(), 64);
    let mut xa = XArray::default();
    xa.set_size_hint(3);
    let a = xa.create(0);
    assert_eq!(xa.leaf(a).slots().len(), 4, "three pages: four host slots");
    *xa.leaf_mut(a).slot_mut(2) = Slot(6);
    let b = xa.create(1);
    *xa.leaf_mut(b).slot_mut(0) = Slot(8);
    assert_eq!(xa.get(2), Slot(6), "the first leaf's entry kept as it moved");
    assert_eq!(xa.get(64), Slot(8));
    assert_eq!(xa.leaf(xa.leaf_id(0).unwrap()).slots().len(), 64);
    assert_eq!(xa.nr_nodes().0, 2);
    assert_eq!(xa.next_entry(0, u32::MAX), Some(2));
    assert_eq!(xa.next_entry(3, u32::MAX), Some(64));
}
