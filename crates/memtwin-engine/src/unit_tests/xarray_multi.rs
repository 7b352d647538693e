//! Large folios as multi-index xarray entries ([`crate::profile::KernelProfile::xa_multi_index`]),
//! held to linux-6.1's lib/xarray.c (`xas_store()`, `update_node()`, `xas_split_alloc()`,
//! `xas_split()`, `xas_free_nodes()`, `xas_delete_node()`), mm/filemap.c
//! (`__filemap_add_folio()`: `xas_set_order()`, the split of a larger shadow) and
//! mm/workingset.c (`workingset_update_node()`, `shadow_lru_isolate()`); 6.18 the same per
//! lab/validation/bias21/README.md point 2.

use super::readahead::{folio_reader, folios};
use super::*;
use crate::vmstat::VmEvent;

const NODE: u64 = crate::slab::RADIX_TREE_NODE_SIZE;

/// The 16 MiB XFS file of `folio_reader` under `profile`, its reader's memcg A (64M), not run.
fn machine(profile: &str) -> (Simulation, MemcgId, InodeId) {
    let s = folio_reader(profile, "xfs", "", 8192, Some("64M"));
    let (a, f) = (memcg(&s, "A"), inode(&s, "/f"));
    (s, a, f)
}

/// Memcg A's shadow-node list: nodes on it.
fn listed(k: &Kernel, a: MemcgId) -> u64 {
    k.shadow_nodes[a.idx()].count
}

/// `__filemap_add_folio()` of an order-9 folio: `XA_STATE_ORDER()` gives shift 6 and 7
/// siblings, so the folio is 8 slots of the shift-6 node and no leaf: `xas_store()` counts
/// each slot (`count += !next - !entry`): `node->count` 8, `nr_values` 0, one 576-byte node
/// charged (`xas_nomem()`, `XA_FLAGS_ACCOUNT`) where a leaf per 64 pages was before (5.0's
/// per-page stores: 8 leaves). Reclaim's `page_cache_delete()` stores its shadow at the same
/// order (`xas_set_order()`): `nr_values` 8 = `count`, so `workingset_update_node()` puts the
/// shift-6 node on the shadow-node list, one node where 5.0 lists 8 leaves.
#[test]
fn a_large_folio_is_one_multi_index_entry_from_5_17() {
    for (profile, multi) in [("linux-6.18", true), ("linux-6.1", true), ("linux-5.0", false)] {
        let (mut s, a, f) = machine(profile);
        let k = &mut s.kernel;
        assert_eq!(k.profile.xa_multi_index, multi, "{profile}");
        let head = k.filemap_add_large_folio(f, 512, 9, a, true).unwrap();
        let m = &k.mappings[f.idx()];
        let leaves_charged = m.xa_nodes().filter(|(_, n)| n.charged == a).count();
        let leaves = m.xa_nodes().filter(|(_, n)| n.slab).count();
        if multi {
            assert!((8..16).all(|c| m.node(c).unwrap().multi == 9), "{profile}: eight slots of one order-9 entry");
            let (acct, count) = m.xa.shift6(8).unwrap();
            assert_eq!((acct.pages, acct.shadows, count), (8, 0, 8), "{profile}: count 8, nr_values 0");
            assert_eq!(leaves_charged, 0, "{profile}: no leaf");
            assert_eq!(xa_node_bytes(k, a), NODE, "{profile}: the shift-6 node only");
        } else {
            assert!(m.xa.shift6(8).is_none_or(|(x, _)| x.pages == 0));
            // 5.0 (4.20-5.1) charges no tree node (KernelProfile::account_xa_nodes).
            assert_eq!((leaves, leaves_charged), (8, 0), "{profile}: a leaf per 64 pages");
        }
        assert_invariants(k);
        k.try_to_free_mem_cgroup_pages(a, 512);
        assert!(k.mappings[f.idx()].lookup(512).is_none(), "{profile}: evicted");
        let _ = head;
        assert_eq!(k.mappings[f.idx()].nrshadows, 512, "{profile}");
        if multi {
            let (acct, count) = k.mappings[f.idx()].xa.shift6(8).unwrap();
            assert_eq!((acct.pages, acct.shadows, count, acct.on_lru), (0, 8, 8, true), "{profile}: count == nr_values: listed");
            assert_eq!(listed(k, a), 1, "{profile}");
        } else {
            assert_eq!(listed(k, MemcgId::ROOT), 8, "{profile}: eight shadow leaves (on the root's list where nodes are not charged)");
        }
        assert_invariants(k);
    }
}

/// A page added inside an order-9 shadow (`__filemap_add_folio()`: the conflict's order 9 >
/// the folio's 0): `xas_split_alloc()` allocates `1 << (9 % 6)` = 8 leaves with
/// `__GFP_ACCOUNT`, `xas_split()` fills each with the shadow (`count = nr_values = 64`:
/// `xas_update(child)` lists each) and turns the shift-6 node's 8 slots into node pointers
/// (`nr_values` 8 -> 0, `count` 8): off the list. Then the page replaces one shadow: its
/// leaf holds a page, off the list; 7 leaves stay listed. The refault reads the shadow.
#[test]
fn a_small_folio_in_a_multi_index_shadow_splits_it_6_18() {
    let (mut s, a, f) = machine("linux-6.18");
    let k = &mut s.kernel;
    k.filemap_add_large_folio(f, 512, 9, a, true).unwrap();
    k.try_to_free_mem_cgroup_pages(a, 512);
    assert_eq!(listed(k, a), 1);
    let refaults = k.vmstat.get(VmEvent::WorkingsetRefaultFile);
    k.filemap_add_folio(f, 520, a, true).unwrap();
    let m = &k.mappings[f.idx()];
    assert!((8..16).all(|c| m.node(c).unwrap().multi == 0), "leaves now");
    let (acct, count) = m.xa.shift6(8).unwrap();
    assert_eq!((acct.pages, acct.shadows, count, acct.on_lru), (0, 0, 8, false));
    assert_eq!(m.xa_nodes().filter(|(_, n)| n.charged == a).count(), 8);
    assert_eq!(xa_node_bytes(k, a), 8 * NODE, "eight leaves; the shift-6 node's own memory is no longer modelled once it holds only leaves");
    assert_eq!(listed(k, a), 7, "the leaves full of shadows");
    assert_eq!(m.nrshadows, 511);
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetRefaultFile), refaults + 1);
    assert_invariants(k);
    // A folio of order 6 inside the order-9 shadow's range, had it stayed one entry, splits at
    // the shift-6 level (no allocation): here its chunk is a leaf full of shadows, which the
    // order-6 entry replaces (`xas_store()` -> `xas_free_nodes()`: off the list, uncharged).
    k.filemap_add_large_folio(f, 576, 6, a, true).unwrap();
    let m = &k.mappings[f.idx()];
    assert_eq!(m.node(9).unwrap().multi, 6);
    let (acct, count) = m.xa.shift6(9).unwrap();
    assert_eq!((acct.pages, acct.shadows, count), (1, 0, 8));
    assert_eq!(xa_node_bytes(k, a), 8 * NODE, "leaf 9 went, the shift-6 node came");
    assert_eq!(listed(k, a), 6);
    assert_invariants(k);
}

/// An order-8 folio added where an order-9 shadow lies: same level (`xas->xa_shift` 6 = the
/// node's), so `xas_split_alloc()` allocates nothing and `xas_split()` re-stores the 8 slots
/// as two order-8 entries; the folio takes 4 (`nr_values` 8 -> 4, `count` 8): off the list.
#[test]
fn a_smaller_multi_index_folio_splits_a_shadow_at_the_same_level_6_18() {
    let (mut s, a, f) = machine("linux-6.18");
    let k = &mut s.kernel;
    k.filemap_add_large_folio(f, 512, 9, a, true).unwrap();
    k.try_to_free_mem_cgroup_pages(a, 512);
    k.filemap_add_large_folio(f, 768, 8, a, true).unwrap();
    let m = &k.mappings[f.idx()];
    assert!((8..16).all(|c| m.node(c).unwrap().multi == 8));
    let (acct, count) = m.xa.shift6(8).unwrap();
    assert_eq!((acct.pages, acct.shadows, count, acct.on_lru), (4, 4, 8, false));
    assert_eq!(xa_node_bytes(k, a), NODE);
    assert_eq!(listed(k, a), 0);
    assert_invariants(k);
}

/// `shadow_lru_isolate()` of a listed shift-6 node: `node->count == node->nr_values`, so
/// `xa_delete_node()` frees it with every shadow in its slots (8 slots, 512 pages' shadows)
/// and WORKINGSET_NODERECLAIM counts one node (`__inc_lruvec_kmem_state(node, ...)`); its
/// charge goes. Driven by `do_shrink_slab()`'s deferred work (zero-seek: one freeable node
/// alone is scanned only with `nr_deferred`).
#[test]
fn the_shadow_shrinker_frees_a_shift6_node_with_its_shadows_6_18() {
    let (mut s, a, f) = machine("linux-6.18");
    let k = &mut s.kernel;
    k.filemap_add_large_folio(f, 512, 9, a, true).unwrap();
    k.try_to_free_mem_cgroup_pages(a, 512);
    assert_eq!(listed(k, a), 1);
    let kmem = k.memcgs.get(a).kmem_bytes;
    let reclaimed = k.vmstat.get(VmEvent::WorkingsetNodereclaim);
    k.shadow_nodes[a.idx()].nr_deferred = 1000;
    k.shrink_shadow_nodes(a, 0);
    let m = &k.mappings[f.idx()];
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetNodereclaim), reclaimed + 1, "one node");
    assert_eq!((m.nrshadows, m.xa_nodes().count()), (0, 0), "its shadows went with it");
    assert_eq!(listed(k, a), 0);
    assert_eq!(xa_node_bytes(k, a), 0);
    assert_eq!(k.memcgs.get(a).kmem_bytes, kmem - NODE);
    assert_invariants(k);
}

/// A leaf holding shadows where a multi-index entry is stored: `xas_store()` finds a node in
/// the slot at shift 6 and frees it (`xas_free_nodes()`: `count = 0`, `xas_update()` takes it
/// off the shadow list), uncharged; the entry's slot counts once in the shift-6 node.
#[test]
fn a_multi_index_entry_frees_the_shadow_leaf_below_it_6_18() {
    let (mut s, a, f) = machine("linux-6.18");
    let k = &mut s.kernel;
    for i in 512..520 {
        k.filemap_add_folio(f, i, a, true).unwrap();
    }
    k.lru_add_drain();
    k.try_to_free_mem_cgroup_pages(a, 8);
    assert_eq!(k.mappings[f.idx()].nrshadows, 8);
    assert_eq!(listed(k, a), 1, "leaf 8 holds 8 shadows");
    assert_eq!(xa_node_bytes(k, a), NODE);
    k.filemap_add_large_folio(f, 512, 6, a, true).unwrap();
    let m = &k.mappings[f.idx()];
    assert_eq!(m.node(8).unwrap().multi, 6);
    assert_eq!((m.node(8).unwrap().charged, listed(k, a)), (MemcgId::NONE, 0));
    assert_eq!(xa_node_bytes(k, a), NODE, "the leaf's charge went, the shift-6 node's came");
    assert_invariants(k);
}

/// Nodes are conserved: over a deterministic random mix of adds (orders 0-9), limit
/// reclaim, shadow-node shrinking, `POSIX_FADV_DONTNEED` (clearing shadows), splits of
/// resident large folios and a final truncation, every node charged is uncharged once: the
/// memcg's kmem less its page-cache nodes stays what it was, the engine's invariants hold
/// after each step (the shift-6 nodes' counts against their slots, list membership), and
/// after the truncation no node is charged and the kmem is back where it began.
#[test]
fn xa_nodes_are_conserved_with_multi_index_entries() {
    for profile in ["linux-6.18", "linux-6.1", "linux-5.0"] {
        let (mut s, a, f) = machine(profile);
        let k = &mut s.kernel;
        let base = k.memcgs.get(a).kmem_bytes;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for step in 0..400 {
            match rnd(10) {
                0..=4 => {
                    let order = [0u32, 2, 4, 6, 8, 9][rnd(6) as usize];
                    let index = (rnd(4096) as u32) & !((1u32 << order) - 1);
                    if order == 0 {
                        if k.mappings[f.idx()].lookup(index).is_none() {
                            let _ = k.filemap_add_folio(f, index, a, true);
                        }
                    } else {
                        let _ = k.filemap_add_large_folio(f, index, order, a, true);
                    }
                }
                5 | 6 => {
                    let n = 1 + rnd(1024);
                    k.try_to_free_mem_cgroup_pages(a, n);
                }
                7 => {
                    k.shadow_nodes[a.idx()].nr_deferred += rnd(64);
                    k.shrink_shadow_nodes(a, rnd(13) as u32);
                }
                8 => {
                    let first = rnd(4096) as u32;
                    let last = (first + rnd(1024) as u32).min(4095);
                    k.generic_fadvise(f, first, last, crate::fadvise::Advice::DontNeed, a);
                }
                _ => {
                    let fo = folios(k, f);
                    if let Some(&(i, o)) = fo.iter().find(|&&(_, o)| o >= 6) {
                        let p = k.mappings[f.idx()].lookup(i).unwrap();
                        debug_assert!(o >= 6);
                        k.split_folio(p);
                    }
                }
            }
            assert_eq!(k.memcgs.get(a).kmem_bytes - xa_node_bytes(k, a), base, "{profile} step {step}: kmem beyond the charged nodes");
            if let Err(e) = k.check_invariants() {
                panic!("{profile} step {step}: {e}");
            }
        }
        k.truncate_inode_pages(f);
        assert_eq!(xa_node_bytes(k, a), 0, "{profile}");
        assert_eq!(k.mappings[f.idx()].xa.shift6_nodes().count(), 0, "{profile}");
        assert_eq!(k.memcgs.get(a).kmem_bytes, base, "{profile}: every node charged was uncharged");
        assert_invariants(k);
    }
}
