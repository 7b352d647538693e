//! Memcg-aware list_lrus (mm/list_lru.c) in the four layouts of the seed-001 series,
//! superblocks (fs/super.c) and the memcg-aware shrinkers' per-memcg state (mm/vmscan.c).
//!
//! The expected sizes are computed here from the constants with the kmalloc rounding
//! written out by hand, independently of `list_lru_fixed_bytes()` and `kmalloc_size()`.

use super::*;
use crate::list_lru::{ListLruLayout, LIST_LRU_NODE, LIST_LRU_ONE, RCU_HEAD, SUPERBLOCK_PERCPU, SUPERBLOCK_SLAB, XA_NODE};
use crate::memcontrol::MemcgState;
use crate::slab::kvmalloc_size;

const LAYOUTS: [(ListLruLayout, &str); 4] = [
    (ListLruLayout::Eager, "eager"),
    (ListLruLayout::Transposed, "transposed"),
    (ListLruLayout::LazyArray, "lazy-array"),
    (ListLruLayout::Lazy, "lazy"),
];

/// A machine running `profile` with the list_lru `layout`, `cpus` CPUs and `nodes` nodes,
/// and one idle task in the root memcg; `extra` TOML is appended.
fn machine(profile: &str, layout: &str, cpus: u32, nodes: u32, extra: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "list-lru"
[machine]
ram = "1G"
cpus = {cpus}
nodes = {nodes}
[kernel]
profile = "{profile}"
cgroup = "v2"
list_lru_layout = "{layout}"
{extra}
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// `list_lru_fixed_bytes(N)` on two nodes with `memcg_nr_cache_ids` N = 12286 (seed 001's 10k
/// memcgs), per layout, from the constants:
/// - the `list_lru_node` array: 2 x 64 = 128 B, exactly kmalloc-128;
/// - the pointer array `list_lru_memcg`: rcu_head 16 + 8 N = 98304 B, above kmalloc's 8 KiB,
///   so kvmalloc takes `kmalloc_large()` pages: 2^5 pages = 131072 B, outside Slab;
/// - eager: per node the array and N `list_lru_one` of 24 B in kmalloc-32;
/// - transposed: one array, and N `list_lru_per_memcg` of 16 + 2 x 24 = 64 B (kmalloc-64);
/// - lazy-array: the array only; lazy (xarray): the node array only.
#[test]
fn list_lru_fixed_bytes_at_12286_ids_on_two_nodes() {
    let n: u64 = 12286;
    let nodes: u64 = 2;
    let node_array = nodes * LIST_LRU_NODE;
    assert_eq!(node_array, 128, "a kmalloc-128 object exactly");
    let array = RCU_HEAD + 8 * n;
    assert_eq!(array, 98304);
    let array_pages: u64 = 128 << 10; // kmalloc_large(): get_order(98304) = 5
    assert!(array > 8192 && array <= array_pages && array > array_pages / 2);
    assert!(LIST_LRU_ONE > 16 && LIST_LRU_ONE <= 32);
    let one: u64 = 32; // kmalloc-32
    assert_eq!(RCU_HEAD + nodes * LIST_LRU_ONE, 64);
    let per_memcg: u64 = 64; // kmalloc-64
    let expect = |layout| match layout {
        ListLruLayout::Eager => (node_array + nodes * n * one, nodes * array_pages),
        ListLruLayout::Transposed => (node_array + n * per_memcg, array_pages),
        ListLruLayout::LazyArray => (node_array, array_pages),
        ListLruLayout::Lazy => (node_array, 0),
    };
    assert_eq!(expect(ListLruLayout::Eager), (786_432, 262_144));
    assert_eq!(expect(ListLruLayout::Transposed), (786_432, 131_072));
    for (layout, name) in LAYOUTS {
        let mut s = machine("linux-5.17", name, 1, 2, "");
        let k = &mut s.kernel;
        assert_eq!(k.profile.list_lru_layout, layout);
        assert_eq!(k.list_lru_fixed_bytes(n), expect(layout), "{name}");
        assert_eq!(k.list_lru_entry_bytes(), per_memcg, "{name}");
        assert!(k.check_invariants().is_ok(), "{name}: {:?}", k.check_invariants());
    }
    // The kernel-facts approximation (about 40 N nodes bytes per eager list_lru) is within 7%.
    let (s, v) = expect(ListLruLayout::Eager);
    let approx = 40 * n * nodes;
    assert!((s + v) as f64 / approx as f64 - 1.0 < 0.07);
}

/// `memcg_update_all_list_lrus()` resizes every list_lru to the new `memcg_nr_cache_ids`
/// and never shrinks them: a smaller size changes nothing.
#[test]
fn memcg_update_all_list_lrus_only_grows() {
    let mut s = machine("linux-5.17", "eager", 1, 2, "[mounts.\"/a\"]\n[mounts.\"/b\"]\n");
    let k = &mut s.kernel;
    assert_eq!(k.superblocks.len(), 2);
    assert_eq!(k.memcgs.nr_cache_ids, 0);
    // N = 0: eager lists hold only the node array and an empty pointer array (16 B ->
    // kmalloc-16) per node.
    assert_eq!(k.kmem.list_lru_slab, 4 * (128 + 2 * 16));
    k.memcg_update_all_list_lrus(100);
    assert_eq!(k.memcgs.nr_cache_ids, 100);
    // 16 + 800 = 816 -> kmalloc-1k per node, 100 x kmalloc-32 per node.
    let at_100 = 4 * (128 + 2 * (1024 + 100 * 32));
    assert_eq!(k.kmem.list_lru_slab, at_100);
    assert_eq!(k.kmem.list_lru_other, 0);
    let (slab, other) = (k.kmem.slab, k.kmem.other);
    k.memcg_update_all_list_lrus(50);
    k.memcg_update_all_list_lrus(100);
    assert_eq!(k.memcgs.nr_cache_ids, 100);
    assert_eq!((k.kmem.list_lru_slab, k.kmem.slab, k.kmem.other), (at_100, slab, other));
    k.memcg_update_all_list_lrus(2000);
    // 16 + 16000 = 16016 -> kmalloc_large 16 KiB per node, which 5.17 counts in Slab.
    assert!(k.profile.kmalloc_large_in_slab);
    assert_eq!(k.kmem.list_lru_slab, 4 * (128 + 2 * 2000 * 32) + 4 * 2 * 16384);
    assert_eq!(k.kmem.list_lru_other, 0);
    assert_eq!(k.kmem.other, k.kmem.list_lru_other + k.kmem.shrinker_other);
    k.memcg_update_all_list_lrus(4);
    assert_eq!(k.memcgs.nr_cache_ids, 2000);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// `mount()` registers two memcg-aware list_lrus (their size follows the layout and the
/// current `memcg_nr_cache_ids`), the superblock's own slab `SUPERBLOCK_SLAB` and percpu
/// `SUPERBLOCK_PERCPU` per CPU, and one more memcg-aware shrinker.
#[test]
fn a_mount_adds_two_list_lrus_and_the_superblock() {
    let (cpus, nodes) = (8u64, 2u64);
    // super_block 2048, shmem_sb_info 192, root inode 819 + LSM blob 32, root dentry 195,
    // mount 328, mountpoint 64, device name 16; percpu 3 x 4 + 8 + 4.
    // and what 6.1's slabinfo shows per mount beyond those (2 vmap_area, 0.056 radix_tree_node).
    assert_eq!(SUPERBLOCK_SLAB, 2048 + 192 + 851 + 195 + 328 + 64 + 16 + (128 + 32));
    assert_eq!(SUPERBLOCK_PERCPU, 24);
    for (layout, name) in LAYOUTS {
        let mut s = machine("linux-5.17", name, cpus as u32, nodes as u32, "[cgroups.a]\n[cgroups.b]\n[cgroups.c]\n[cgroups.d]\n[cgroups.e]\n");
        let k = &mut s.kernel;
        assert_eq!(k.memcgs.nr_cache_ids, 10);
        assert!(k.superblocks.is_empty());
        // Per list_lru at N = 10 on 2 nodes: node array 128; pointer array 16 + 80 = 96 ->
        // kmalloc-96; list_lru_one kmalloc-32; list_lru_per_memcg kmalloc-64.
        let per_lru = match layout {
            ListLruLayout::Eager => 128 + 2 * (96 + 10 * 32),
            ListLruLayout::Transposed => 128 + 96 + 10 * 64,
            ListLruLayout::LazyArray => 128 + 96,
            ListLruLayout::Lazy => 128,
        };
        let (percpu0, slab0, other0, shrinker0) = (k.kmem.percpu, k.kmem.slab, k.kmem.other, k.kmem.shrinker_slab);
        k.mount("/m", "tmpfs");
        assert_eq!(k.superblocks.len(), 1);
        assert_eq!((k.superblocks[0].path.as_str(), k.superblocks[0].fs.as_str()), ("/m", "tmpfs"));
        assert_eq!(k.kmem.list_lru_slab, 2 * per_lru, "{name}");
        assert_eq!(k.kmem.list_lru_other, 0, "{name}");
        // The superblock and its mount (the mount op, not mount(), makes the mount point).
        assert_eq!(k.kmem.superblock_slab, SUPERBLOCK_SLAB);
        assert_eq!(k.kmem.superblock_percpu, cpus * SUPERBLOCK_PERCPU);
        assert_eq!(k.kmem.percpu - percpu0, cpus * 24, "{name}");
        // S goes from 1 to 2 shrinkers: 32 + 8 x 64 + 8 = 552 -> kmalloc-1k either way.
        assert_eq!(k.kmem.shrinker_slab, shrinker0);
        assert_eq!(k.kmem.shrinker_slab, 6 * nodes * 1024, "root + 5 memcgs, per node");
        assert_eq!(k.kmem.slab - slab0, SUPERBLOCK_SLAB + 2 * per_lru, "{name}");
        assert_eq!(k.kmem.other, other0);
        k.mount("/m2", "tmpfs");
        assert_eq!(k.kmem.list_lru_slab, 4 * per_lru, "{name}");
        assert_eq!(k.kmem.slab - slab0, 2 * (SUPERBLOCK_SLAB + 2 * per_lru), "{name}");
        assert!(k.check_invariants().is_ok(), "{name}: {:?}", k.check_invariants());
    }
}

/// Lazy layouts (`memcg_list_lru_alloc()`): the first `list_lru_add()` of an object charged to
/// a nested memcg allocates the per-memcg entry (16 + 24 x nodes -> kmalloc-64 on two
/// nodes) of that memcg and of each ancestor with a kmem id, in that list_lru only, once;
/// the lazy xarray adds a 576-byte node per 64 ids used. Eager layouts allocate nothing.
#[test]
fn lazy_list_lru_add_allocates_entries_for_the_memcg_and_its_ancestors_once() {
    for (layout, name) in LAYOUTS {
        let mut s = machine("linux-5.17", name, 1, 2, "");
        let k = &mut s.kernel;
        let a = k.cgroup_mkdir("/a").unwrap();
        let b = k.cgroup_mkdir("/a/b").unwrap();
        let c = k.cgroup_mkdir("/c").unwrap();
        let (ka, kb, kc) = (k.memcgs.get(a).kmem_id.unwrap(), k.memcgs.get(b).kmem_id.unwrap(), k.memcgs.get(c).kmem_id.unwrap());
        assert_eq!((ka, kb, kc), (0, 1, 2));
        k.mount("/m", "tmpfs");
        let sb = k.superblocks.len() - 1;
        let lazy = matches!(layout, ListLruLayout::LazyArray | ListLruLayout::Lazy);
        let xa = if layout == ListLruLayout::Lazy { XA_NODE } else { 0 };
        let slab0 = k.kmem.list_lru_slab;

        k.list_lru_add(sb, false, b);
        let lru = &k.superblocks[sb].dentry_lru;
        assert_eq!(lru.items.get(&kb), Some(&1), "{name}");
        assert_eq!(lru.items.len(), 1, "{name}");
        let entries: Vec<u32> = lru.entries.keys().copied().collect();
        assert_eq!(entries, if lazy { vec![ka, kb] } else { vec![] }, "{name}");
        assert!(k.superblocks[sb].inode_lru.entries.is_empty());
        let grown = if lazy { 2 * 64 + xa } else { 0 };
        assert_eq!(k.kmem.list_lru_slab - slab0, grown, "{name}");

        // Again, and by the ancestor: nothing new.
        k.list_lru_add(sb, false, b);
        k.list_lru_add(sb, false, a);
        let lru = &k.superblocks[sb].dentry_lru;
        assert_eq!(lru.items.get(&kb), Some(&2), "{name}");
        assert_eq!(lru.items.get(&ka), Some(&1), "{name}");
        assert_eq!(lru.entries.len(), if lazy { 2 } else { 0 }, "{name}");
        assert_eq!(k.kmem.list_lru_slab - slab0, grown, "{name}");

        // The inode list is a list_lru of its own; /c has no ancestor with a kmem id.
        k.list_lru_add(sb, true, c);
        let entries: Vec<u32> = k.superblocks[sb].inode_lru.entries.keys().copied().collect();
        assert_eq!(entries, if lazy { vec![kc] } else { vec![] }, "{name}");
        let grown = if lazy { 3 * 64 + 2 * xa } else { 0 };
        assert_eq!(k.kmem.list_lru_slab - slab0, grown, "{name}");
        assert!(k.check_invariants().is_ok(), "{name}: {:?}", k.check_invariants());
    }
}

/// `memcg_reparent_list_lrus()` at `rmdir`: the memcg's items are spliced onto its parent's
/// lists and, in lazy layouts, its per-memcg entries are freed (the parent's stay).
///
/// (At commit 13a3d68 this failed: `cgroup_rmdir()` took the kmem id before calling
/// `memcg_reparent_list_lrus()`, which then returned at once.)
#[test]
fn rmdir_reparents_list_lru_items_and_frees_the_memcgs_entries() {
    for (layout, name) in LAYOUTS {
        let mut s = machine("linux-5.17", name, 1, 2, "");
        let k = &mut s.kernel;
        let a = k.cgroup_mkdir("/a").unwrap();
        let b = k.cgroup_mkdir("/a/b").unwrap();
        let (ka, kb) = (k.memcgs.get(a).kmem_id.unwrap(), k.memcgs.get(b).kmem_id.unwrap());
        k.mount("/m", "tmpfs");
        let sb = k.superblocks.len() - 1;
        let lazy = matches!(layout, ListLruLayout::LazyArray | ListLruLayout::Lazy);
        k.list_lru_add(sb, false, b);
        k.list_lru_add(sb, false, b);
        k.list_lru_add(sb, false, a);
        k.list_lru_add(sb, true, b);
        let slab0 = k.kmem.list_lru_slab;

        k.cgroup_rmdir("/a/b").unwrap();
        assert_eq!(k.memcgs.get(b).state, MemcgState::Freed);
        let sbk = &k.superblocks[sb];
        assert_eq!(sbk.dentry_lru.items.get(&kb), None, "{name}: b's list is empty");
        assert_eq!(sbk.dentry_lru.items.get(&ka), Some(&3), "{name}: b's two items moved to a");
        assert_eq!(sbk.inode_lru.items.get(&ka), Some(&1), "{name}");
        let want: Vec<u32> = if lazy { vec![ka] } else { vec![] };
        assert_eq!(sbk.dentry_lru.entries.keys().copied().collect::<Vec<_>>(), want, "{name}");
        assert_eq!(sbk.inode_lru.entries.keys().copied().collect::<Vec<_>>(), want, "{name}");
        // Two entries of 64 freed; ids 0 and 1 share one xarray node, which stays.
        assert_eq!(slab0 - k.kmem.list_lru_slab, if lazy { 2 * 64 } else { 0 }, "{name}");
        assert!(k.check_invariants().is_ok(), "{name}: {:?}", k.check_invariants());
    }
}

/// The root memcg has no kmem id (`kmemcg_id` -1 in 5.17: its objects go to
/// `lru->node[nid].lru`), while the first memcg made gets kmem id 0: the root's objects must
/// not land on that memcg's list.
#[test]
fn the_roots_list_is_not_the_list_of_the_memcg_with_kmem_id_0() {
    let mut s = machine("linux-6.6", "lazy", 1, 1, "");
    let k = &mut s.kernel;
    let a = k.cgroup_mkdir("/a").unwrap();
    assert_eq!(k.memcgs.get(a).kmem_id, Some(0));
    k.mount("/m", "tmpfs");
    let sb = k.superblocks.len() - 1;
    k.list_lru_add(sb, false, a);
    k.list_lru_add(sb, false, a);
    k.list_lru_add(sb, false, MemcgId::ROOT);
    assert_eq!(k.superblocks[sb].dentry_lru.items.get(&0), Some(&2), "/a's list holds /a's two objects only");
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// `expand_shrinker_info()`: per memcg and node, for S memcg-aware shrinkers,
/// `memcg_shrinker_map` (4.19-5.12) is 16 + 8 ceil(S/64) and `shrinker_info` (5.13+)
/// 32 + 8 x 64 ceil(S/64) + 8 ceil(S/64), through kvmalloc (kmalloc caches up to 8 KiB, whole
/// power-of-two pages above).
#[test]
fn shrinker_info_bytes_by_era() {
    // (S, Map bytes, WithDeferred bytes), hand-rounded:
    // S=1: 24 -> 32; 552 -> 1024. S=64: same. S=65: 32 -> 32; 1072 -> 2048.
    // S=200 (4 longs): 48 -> 64; 32 + 2048 + 32 = 2112 -> 4096.
    // S=1000 (16 longs): 144 -> 192; 32 + 8192 + 128 = 8352 -> 16 KiB pages.
    // S=10041 (157 longs): 1272 -> 2048; 32 + 80384 + 1256 = 81672 -> 128 KiB pages.
    let table: [(u64, (u64, u64), (u64, u64)); 6] = [
        (1, (32, 0), (1024, 0)),
        (64, (32, 0), (1024, 0)),
        (65, (32, 0), (2048, 0)),
        (200, (64, 0), (4096, 0)),
        (1000, (192, 0), (0, 16384)),
        (10041, (2048, 0), (0, 131072)),
    ];
    let map = machine("linux-5.0", "eager", 1, 1, "");
    let deferred = machine("linux-6.6", "lazy", 1, 1, "");
    assert_eq!(map.kernel.profile.memcg_kmem.shrinker_info, crate::profile::ShrinkerInfo::Map);
    assert_eq!(deferred.kernel.profile.memcg_kmem.shrinker_info, crate::profile::ShrinkerInfo::WithDeferred);
    for (s, want_map, want_deferred) in table {
        let longs = s.div_ceil(64);
        assert_eq!(map.kernel.shrinker_info_bytes(s), want_map, "Map, S = {s}");
        assert_eq!(map.kernel.shrinker_info_bytes(s), kvmalloc_size(16 + 8 * longs), "Map, S = {s}");
        assert_eq!(deferred.kernel.shrinker_info_bytes(s), want_deferred, "WithDeferred, S = {s}");
        assert_eq!(deferred.kernel.shrinker_info_bytes(s), kvmalloc_size(32 + 8 * 64 * longs + 8 * longs), "WithDeferred, S = {s}");
    }
}

/// Every allocated memcg (root, online, dying) keeps the shrinker state on every node; it is
/// recomputed for all of them when a mount adds a shrinker, and a memcg's goes with it.
#[test]
fn every_allocated_memcg_keeps_shrinker_state_per_node() {
    let nodes = 2u64;
    let mut s = machine("linux-6.6", "lazy", 1, nodes as u32, "[cgroups.a]\n[cgroups.b]\n");
    let k = &mut s.kernel;
    assert_eq!(k.memcgs.nr_allocated, 3);
    // S = 1 (the shadow-node shrinker only): 552 -> kmalloc-1k.
    assert_eq!(k.kmem.shrinker_slab, 3 * nodes * 1024);
    for i in 0..64 {
        k.mount(&format!("/m{i}"), "tmpfs");
    }
    // S = 65: 32 + 2 x 512 + 16 = 1072 -> kmalloc-2k.
    assert_eq!(k.kmem.shrinker_slab, 3 * nodes * 2048);
    assert_eq!(k.kmem.shrinker_other, 0);
    k.cgroup_rmdir("/b").unwrap();
    assert_eq!(k.kmem.shrinker_slab, 2 * nodes * 2048);
    for i in 64..1000 {
        k.mount(&format!("/m{i}"), "tmpfs");
    }
    // S = 1001: 16 longs, 32 + 8192 + 128 = 8352 -> 16 KiB of pages each (kmalloc_large,
    // in Slab from 5.10).
    assert_eq!(k.kmem.shrinker_slab, 2 * nodes * 16384);
    assert_eq!(k.kmem.shrinker_other, 0);
    assert_eq!(k.kmem.other, k.kmem.list_lru_other + k.kmem.shrinker_other);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// The `Lazy` layout's xarray (5.18 `list_lru->xa`, indexed by kmem id) needs one node per 64
/// ids that have an entry: 130 memcgs with entries take three nodes; freeing the two ids of
/// the third node frees it, freeing one id of a node that keeps others does not. (The node
/// count is kept on insert and erase, `xa_store()`/`xa_erase()`, not recounted over every
/// memcg.)
#[test]
fn lazy_list_lru_xarray_nodes_follow_the_kmem_ids_in_use() {
    let mut s = machine("linux-6.1", "lazy", 1, 2, "");
    let k = &mut s.kernel;
    k.mount("/m", "tmpfs");
    let sb = k.superblocks.len() - 1;
    let slab0 = k.kmem.list_lru_slab;
    let entry = 64; // kmalloc-64: rcu_head 16 + two nodes' list_lru_one 2 x 24
    for i in 0..130 {
        let m = k.cgroup_mkdir(&format!("/c{i}")).unwrap();
        assert_eq!(k.memcgs.get(m).kmem_id, Some(i));
        k.list_lru_add(sb, false, m);
    }
    assert_eq!(k.superblocks[sb].dentry_lru.entry_nodes, 3);
    assert_eq!(k.kmem.list_lru_slab - slab0, 130 * entry + 3 * XA_NODE);
    k.cgroup_rmdir("/c64").unwrap();
    assert_eq!(k.superblocks[sb].dentry_lru.entry_nodes, 3, "ids 65..127 keep the second node");
    assert_eq!(k.kmem.list_lru_slab - slab0, 129 * entry + 3 * XA_NODE);
    k.cgroup_rmdir("/c128").unwrap();
    k.cgroup_rmdir("/c129").unwrap();
    assert_eq!(k.superblocks[sb].dentry_lru.entry_nodes, 2, "the third node is empty");
    assert_eq!(k.kmem.list_lru_slab - slab0, 127 * entry + 2 * XA_NODE);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}
