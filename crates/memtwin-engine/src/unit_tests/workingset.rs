//! Shadow entries and refault detection (mm/workingset.c).

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::vmstat::VmEvent;
use crate::workingset::unpack_shadow;

/// A memcg `ct` with 16 active pages (`/hot`, read twice) and 64 inactive ones (`/f` pages
/// 0..64, read once), plus an empty sibling `other`.
struct Setup {
    s: Simulation,
    ct: MemcgId,
    other: MemcgId,
    f: InodeId,
}

fn setup(profile: &str) -> Setup {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "workingset"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/hot"]
size = "64K"
[files."/f"]
size = "1M"
[cgroups.ct]
[cgroups.other]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (ct, other, hot, f) = (
        memcg(&s, "ct"),
        memcg(&s, "other"),
        inode(&s, "/hot"),
        inode(&s, "/f"),
    );
    let k = &mut s.kernel;
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, f, 0, 64, ct);
    // The pages still in the CPU's lru_add batch onto their lists.
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 16);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 64);
    Setup { s, ct, other, f }
}

/// Evict page `first` of `/f`, then `more` further pages after it, and read `first` back
/// from `reader`. Returns whether the refaulting page went to the active list.
fn refault_after(profile: &str, more: u32) -> bool {
    let Setup { mut s, ct, f, .. } = setup(profile);
    let k = &mut s.kernel;
    for i in 0..=more {
        isolate_and_evict(k, f, i);
    }
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 16);
    read_pages(k, f, 0, 1, ct);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 1);
    assert_invariants(k);
    k.pages[page_at(k, f, 0)].test(pg::ACTIVE)
}

/// `__remove_mapping()` stores `workingset_eviction()`'s shadow entry in the evicted page's
/// slot: the mapping counts it (`nrpages` down, shadows up), it names the memcg whose LRU the
/// page left, and it carries `PG_workingset` (clear for a page that was never active). A
/// later insertion at that index consumes the shadow.
#[test]
fn eviction_leaves_a_shadow_entry_in_the_slot() {
    let Setup { mut s, ct, f, .. } = setup("linux-6.6");
    let k = &mut s.kernel;
    isolate_and_evict(k, f, 5);
    let m = &k.mappings[f.idx()];
    assert_eq!(m.nrpages, 63);
    assert_eq!(m.nrshadows, 1);
    assert_eq!(m.lookup(5), None);
    let shadow = m.slot(5).as_shadow().expect("slot 5 holds a shadow entry");
    let (memcg, _age, workingset) = unpack_shadow(shadow);
    assert_eq!(memcg, ct);
    assert!(!workingset);
    assert_invariants(k);
    read_pages(k, f, 5, 1, ct);
    let m = &k.mappings[f.idx()];
    assert_eq!((m.nrpages, m.nrshadows), (64, 0));
    assert!(m.slot(5).as_page().is_some());
    assert_invariants(k);
}

/// A scenario-level view of the same: a read twice the size of memory.max leaves, for every
/// page of the file, either the page or a shadow entry naming the memcg.
#[test]
fn limit_reclaim_leaves_shadows_for_every_evicted_page() {
    let mut s = sim(r#"
[scenario]
name = "shadows"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "2M"
[cgroups.ct]
"memory.max" = "1M"
[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/f" }]
"#);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    let k = &s.kernel;
    let m = &k.mappings[f.idx()];
    assert!(m.nrshadows >= 256);
    assert_eq!(m.nrpages + m.nrshadows, 512);
    for i in 0..512 {
        if let Some(sh) = m.slot(i).as_shadow() {
            assert_eq!(unpack_shadow(sh).0, ct, "shadow {i}");
        }
    }
    assert_invariants(k);
}

/// `workingset_refault()`: a refault whose distance (evictions and activations since the
/// page's eviction) is within the active file list is activated at once: `PG_active`, the
/// active list, `workingset_activate_file`; `workingset_refault_file` counts either way.
#[test]
fn refault_within_the_active_list_size_is_activated() {
    let Setup { mut s, ct, f, .. } = setup("linux-6.6");
    let k = &mut s.kernel;
    for i in 0..=5 {
        isolate_and_evict(k, f, i);
    }
    read_pages(k, f, 0, 1, ct);
    k.lru_add_drain();
    let p = page_at(k, f, 0);
    assert!(k.pages[p].test(pg::ACTIVE));
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 1);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile), 1);
    assert_eq!(
        k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreFile),
        0,
        "the page was not in the workingset"
    );
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetRefaultFile), 1);
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetActivateFile), 1);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 17);
    assert_invariants(k);
}

/// A refault from further away than the active list could have held is not activated: the
/// page goes to the inactive list, and only `workingset_refault_file` counts.
#[test]
fn refault_beyond_the_active_list_size_is_not_activated() {
    let Setup { mut s, ct, f, .. } = setup("linux-6.6");
    let k = &mut s.kernel;
    for i in 10..=40 {
        isolate_and_evict(k, f, i);
    }
    read_pages(k, f, 10, 1, ct);
    k.lru_add_drain();
    let p = page_at(k, f, 10);
    assert!(!k.pages[p].test(pg::ACTIVE));
    assert_eq!(lru_of(k, p), Some(LruList::InactiveFile));
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 1);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile), 0);
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetActivateFile), 0);
    assert_invariants(k);
}

/// linux-5.0's `workingset_eviction()` stores `atomic_long_inc_return(&lruvec->inactive_age)`,
/// the age after counting the page's own eviction, so the distance is the number of
/// evictions after it: with 16 active pages, 16 later evictions still activate, 17 do not.
#[test]
fn refault_distance_boundary_linux_5_0() {
    assert!(
        refault_after("linux-5.0", 16),
        "distance 16 <= 16 active pages"
    );
    assert!(
        !refault_after("linux-5.0", 17),
        "distance 17 > 16 active pages"
    );
}

/// Since 5.12 (ac35a4902374 "mm: workingset: clarify eviction order and distance
/// calculation") `workingset_eviction()` reads `nonresident_age` before ageing it for the
/// page's own eviction, so the distance counts that eviction too: with 16 active pages, 15
/// later evictions activate (distance 16) and 16 do not (distance 17).
#[test]
fn refault_distance_boundary_linux_6_6() {
    assert!(
        refault_after("linux-6.6", 15),
        "distance 16 <= 16 active pages"
    );
    assert!(
        !refault_after("linux-6.6", 16),
        "distance 17 > 16 active pages"
    );
}

/// The activation decision is made at the lruvec where the eviction happened, but the page
/// is charged to, and its refault and activation are counted in, the memcg that reads it
/// again ("the cgroup that will own the folio is the one that is actually experiencing the
/// refault event").
#[test]
fn refault_is_judged_at_the_evicting_memcg_and_counted_in_the_reader() {
    let Setup {
        mut s,
        ct,
        other,
        f,
    } = setup("linux-6.6");
    let k = &mut s.kernel;
    for i in 0..=5 {
        isolate_and_evict(k, f, i);
    }
    assert_eq!(lru_size(k, other, LruList::ActiveFile), 0);
    read_pages(k, f, 0, 1, other);
    k.lru_add_drain();
    let p = page_at(k, f, 0);
    assert_eq!(k.pages[p].memcg, other);
    assert!(
        k.pages[p].test(pg::ACTIVE),
        "ct's 16 active pages cover the distance"
    );
    assert_eq!(lru_size(k, other, LruList::ActiveFile), 1);
    assert_eq!(k.memcgs.events(other, MemcgEvent::WorkingsetRefaultFile), 1);
    assert_eq!(
        k.memcgs.events(other, MemcgEvent::WorkingsetActivateFile),
        1
    );
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 0);
    assert_invariants(k);
}

/// `shrink_active_list()` sets `PG_workingset` on the pages it deactivates; evicted, such a
/// page's shadow carries the bit, and a refault that is activated sets `PG_workingset` again
/// and counts `workingset_restore_file`.
#[test]
fn deactivated_pages_refault_as_workingset_restores() {
    let mut s = sim(r#"
[scenario]
name = "restore"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/w"]
size = "256K"
[files."/hot"]
size = "1M"
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, w, hot) = (memcg(&s, "ct"), inode(&s, "/w"), inode(&s, "/hot"));
    let k = &mut s.kernel;
    // /w is activated first, so it is at the tail of the active list, the end that
    // shrink_active_list() takes from; /hot is activated after it.
    read_pages(k, w, 0, 64, ct);
    read_pages(k, w, 0, 64, ct);
    read_pages(k, hot, 0, 256, ct);
    read_pages(k, hot, 0, 256, ct);
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 320);
    assert!(k.try_to_free_mem_cgroup_pages(ct, 32) >= 32);
    assert!(k.memcgs.events(ct, MemcgEvent::Pgdeactivate) > 0);
    let m = &k.mappings[w.idx()];
    let shadows: Vec<(u32, u64)> = (0..64)
        .filter_map(|i| m.slot(i).as_shadow().map(|sh| (i, sh)))
        .map(|(i, sh)| {
            let (_, age, workingset) = unpack_shadow(sh);
            assert!(workingset, "page {i} was active before it was evicted");
            (i, age)
        })
        .collect();
    assert!(shadows.len() >= 32);
    assert!(lru_size(k, ct, LruList::ActiveFile) > 0);
    // The most recently evicted page refaults from the shortest distance.
    let (last, _) = *shadows.iter().max_by_key(|(_, age)| *age).unwrap();
    read_pages(k, w, last, 1, ct);
    let p = page_at(k, w, last);
    assert!(k.pages[p].test(pg::ACTIVE | pg::WORKINGSET));
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreFile), 1);
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetRestoreFile), 1);
    assert_invariants(k);
}

/// `workingset_age_nonresident()` ages the lruvec of the memcg and of every ancestor ("when
/// the physical inactive list of a leaf cgroup ages, the virtual inactive lists of all its
/// parents, including the root cgroup's, age as well"), and nobody else's.
#[test]
fn nonresident_age_advances_in_every_ancestor() {
    let mut s = sim(r#"
[scenario]
name = "age"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "64K"
[cgroups.p]
[cgroups."p/c"]
[cgroups."p/d"]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (p, c, d, f) = (
        memcg(&s, "p"),
        memcg(&s, "p/c"),
        memcg(&s, "p/d"),
        inode(&s, "/f"),
    );
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4, c);
    let age = |k: &Kernel, m: MemcgId| k.lruvecs[m.idx()].nonresident_age;
    let before = [age(k, c), age(k, p), age(k, MemcgId::ROOT), age(k, d)];
    isolate_and_evict(k, f, 0);
    isolate_and_evict(k, f, 1);
    let after = [age(k, c), age(k, p), age(k, MemcgId::ROOT), age(k, d)];
    assert_eq!(after[0], before[0] + 2);
    assert_eq!(after[1], before[1] + 2);
    assert_eq!(after[2], before[2] + 2);
    assert_eq!(after[3], before[3], "a sibling's clock does not move");
    // A second access activates a page and ages the clocks too (workingset_activation()).
    let pg2 = page_at(k, f, 2);
    k.folio_mark_accessed(pg2);
    assert_eq!(age(k, c), after[0] + 1);
    assert_eq!(age(k, p), after[1] + 1);
    assert_invariants(k);
}

/// `cat` of a 32 MiB file in a memcg limited to 1 MiB: reclaim all the way.
fn cat_32m_in_1m(profile: &str) -> Simulation {
    cat_in_1m(profile, "32M")
}

/// `cat` of a file of `size` in a memcg limited to 1 MiB.
fn cat_in_1m(profile: &str, size: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "shadow-nodes"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "{size}"
[cgroups.ct]
"memory.max" = "1M"
[tasks.cat]
cgroup = "ct"
ops = [{{ op = "read", file = "/f" }}]
"#
    ))
}

/// The shadow-node shrinker (`count_shadow_nodes()`, 4.20+): a memcg may keep at most one
/// shadow-only xarray node per 8 pages of its LRU lists and slab (`pages >> (XA_CHUNK_SHIFT -
/// 3)`); beyond that reclaim frees the oldest nodes with their shadow entries
/// (`shadow_lru_isolate()`), counting `workingset_nodereclaim`, in `do_shrink_slab()`'s
/// batches of `SHRINK_BATCH` (a zero-seek shrinker since 4.19): fewer than two batches over
/// the cap are left alone while reclaim's priority stays high.
#[test]
fn shadow_node_shrinker_caps_shadow_nodes_per_memcg() {
    let mut s = cat_in_1m("linux-6.6", "128M");
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let slack = 2 * crate::dcache::SHRINK_BATCH;
    run_with(&mut s, |s| {
        let k = &s.kernel;
        let lru: u64 = LruList::ALL.iter().map(|&l| lru_size(k, ct, l)).sum();
        let slab = k.memcgs.get(ct).kmem_bytes / PAGE_SIZE;
        assert!(
            k.shadow_nodes[ct.idx()].count < ((lru + slab) >> 3) + slack,
            "{} shadow nodes for {lru} LRU pages and {slab} slab pages",
            k.shadow_nodes[ct.idx()].count
        );
    });
    let k = &s.kernel;
    assert!(k.memcgs.get(ct).kmem_bytes > 0, "the memcg is charged slab (tree nodes), which the cap counts");
    assert!(k.vmstat.get(VmEvent::WorkingsetNodereclaim) > 0);
    let m = &k.mappings[f.idx()];
    let shadow_only = m
        .xa_nodes()
        .filter(|(_, n)| n.pages == 0 && n.shadows > 0)
        .count() as u64;
    assert_eq!(
        shadow_only,
        k.shadow_nodes[ct.idx()].count,
        "every shadow-only node is on ct's list"
    );
    assert!(shadow_only < (256 >> 3) + slack, "{shadow_only} shadow-only nodes");
    assert!(
        m.nrshadows <= 64 * (shadow_only + 4),
        "freed nodes took their shadows with them"
    );
    let empty = (0..32768)
        .filter(|&i| m.slot(i) == crate::filemap::Slot::EMPTY)
        .count() as u64;
    assert!(empty >= 64 * k.vmstat.get(VmEvent::WorkingsetNodereclaim) / 2);
    assert_invariants(k);
}

/// `do_shrink_slab()` (mm/vmscan.c, 4.19 "mm: zero-seek shrinkers" to 6.12) for the
/// shadow-node shrinker (`.seeks = 0`): half the freeable nodes plus the deferred work
/// shifted by the priority, scanned in whole batches of 128 (or all that is freeable), the
/// rest deferred up to twice the freeable count.
#[test]
fn do_shrink_slab_zero_seek_scans_whole_batches_and_defers_the_rest() {
    use crate::workingset::do_shrink_slab_zero_seek as f;
    assert_eq!(f(200, 0, 12), (0, 100), "100 due, under a batch and under the 200 freeable");
    assert_eq!(f(200, 100, 12), (0, 200));
    assert_eq!(f(200, 400, 12), (0, 400), "deferred capped at 2 x freeable");
    assert_eq!(f(200, 400, 1), (256, 244), "400 >> 1 + 100, capped at 400 -> 300: two batches");
    assert_eq!(f(1000, 0, 12), (384, 116), "500 due: three batches, 116 deferred");
    assert_eq!(f(1, 0, 12), (0, 0));
    assert_eq!(f(1, 2, 1), (1, 1), "total_scan >= freeable scans the one node");
    assert_eq!(f(0, 7, 12), (0, 7), "nothing freeable: no call to the scan");
}

/// `do_shrink_slab()` on 6.1: a memcg's shadow-only nodes over `count_shadow_nodes()`'s cap
/// are scanned in whole batches of `SHRINK_BATCH` (or all that is freeable), fewer than a
/// batch's worth due being deferred: a 64 MiB file read through a 1 MiB memcg (256 tree
/// nodes, a cap of about 32) keeps more shadow-only nodes than the cap, and frees them a
/// batch at a time (the old engine trimmed the list to its cap at every reclaim).
#[test]
fn shadow_node_shrinker_frees_whole_batches_over_the_cap_6_1() {
    let mut s = cat_in_1m("linux-6.1", "64M");
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    let k = &s.kernel;
    let m = &k.mappings[f.idx()];
    let shadow_only = m.xa_nodes().filter(|(_, n)| n.pages == 0 && n.shadows > 0).count() as u64;
    let cap = k.shadow_nodes_max(ct);
    let count = k.shadow_nodes[ct.idx()].count;
    let freed = k.vmstat.get(VmEvent::WorkingsetNodereclaim);
    assert_eq!(shadow_only, count);
    assert!(count > cap + 64, "{count} nodes over a cap of {cap}");
    assert_eq!(freed % crate::dcache::SHRINK_BATCH, 0, "{freed} nodes freed: whole batches");
    assert!(count + freed >= 250, "{count} + {freed} shadow-only nodes of 256");
    assert!(k.shadow_nodes[ct.idx()].nr_deferred > 0, "the work not done is deferred");
    assert_invariants(k);
}

/// Where tree nodes are not charged to memcgs (before 4.6, and 4.20-5.1: linux-5.0 here),
/// `list_lru_add()` files a shadow-only node under the root: a memcg's limit reclaim finds
/// none on its own list, so the memcg keeps every shadow entry.
#[test]
fn without_charged_tree_nodes_limit_reclaim_keeps_shadow_entries() {
    let mut s = cat_32m_in_1m("linux-5.0");
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(k.vmstat.get(VmEvent::WorkingsetNodereclaim), 0);
    assert_eq!(k.shadow_nodes[ct.idx()].count, 0, "nothing on ct's list");
    let m = &k.mappings[f.idx()];
    let shadow_only = m.xa_nodes().filter(|(_, n)| n.pages == 0 && n.shadows > 0).count() as u64;
    assert!(shadow_only > 100, "{shadow_only} shadow-only nodes kept");
    assert_eq!(k.shadow_nodes[MemcgId::ROOT.idx()].count, shadow_only, "all on the root's list");
    assert_invariants(k);
}

/// Since 5.5 (b910718a948a "mm: vmscan: detect file thrashing at the reclaim root")
/// `workingset_eviction()` records the shadow at the lruvec of the reclaim target
/// (`mem_cgroup_lruvec(target_memcg, pgdat)`), and the refault is judged against that
/// lruvec's (hierarchical) active list: a page of `b` evicted by limit reclaim of the parent
/// `p` names `p` in its shadow, and refaults active when `p`'s subtree has a big active list,
/// even though `b` itself has none.
#[test]
fn eviction_is_recorded_at_the_reclaim_root() {
    let mut s = sim(r#"
[scenario]
name = "reclaim-root"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.6"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/hot"]
size = "512K"
[files."/a"]
size = "512K"
[files."/b"]
size = "256K"
[cgroups.p]
[cgroups."p/a"]
[cgroups."p/b"]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (p, a, b) = (memcg(&s, "p"), memcg(&s, "p/a"), memcg(&s, "p/b"));
    let (hot, fa, fb) = (inode(&s, "/hot"), inode(&s, "/a"), inode(&s, "/b"));
    let k = &mut s.kernel;
    read_pages(k, hot, 0, 128, a);
    read_pages(k, hot, 0, 128, a);
    read_pages(k, fa, 0, 128, a);
    read_pages(k, fb, 0, 64, b);
    k.try_to_free_mem_cgroup_pages(p, 32);
    let m = &k.mappings[fb.idx()];
    let (first, shadow) = (0..64)
        .filter_map(|i| m.slot(i).as_shadow().map(|sh| (i, sh)))
        .min_by_key(|&(_, sh)| unpack_shadow(sh).1)
        .expect("limit reclaim of p evicted pages of b");
    assert_eq!(
        unpack_shadow(shadow).0,
        p,
        "the shadow names the reclaim root"
    );
    read_pages(k, fb, first, 1, b);
    assert!(
        k.pages[page_at(k, fb, first)].test(pg::ACTIVE),
        "p's subtree has 128 active pages"
    );
    assert_invariants(k);
}

/// Before 4.6 the shadow-node shrinker keeps one list per node for the whole machine, capped
/// at one node per 16 present pages (`node_present_pages() >> (1 + RADIX_TREE_MAP_SHIFT - 3)`),
/// whatever the memcgs hold: 64 MiB of RAM (16384 pages) keeps up to 1024 shadow-only nodes of
/// the 2048 that a 512 MiB file read through it leaves, where 4.20+ would keep ~1900.
#[test]
fn before_4_6_shadow_nodes_are_capped_by_present_pages() {
    for (profile, cap) in [("linux-4.4", 16384 >> 4), ("linux-4.3", 16384 >> 4)] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "cap"
[machine]
ram = "64M"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "512M"
[tasks.cat]
ops = [{{ op = "read", file = "/f", bufsize = "128K", step = "a" }}, {{ op = "read", file = "/f", length = "256M", bufsize = "128K", step = "b" }}]
"#
        ));
        let most = std::cell::Cell::new(0u64);
        run_with(&mut s, |s| {
            let n = s.kernel.shadow_nodes[MemcgId::ROOT.idx()].count;
            assert!(n <= cap, "{profile}: {n} nodes");
            most.set(most.get().max(n));
        });
        let k = &s.kernel;
        assert_eq!(k.present_pages, 16384);
        let lru: u64 = LruList::ALL.iter().map(|&l| lru_size(k, MemcgId::ROOT, l)).sum();
        assert!(lru >> 3 > cap, "{profile}: the 4.20+ rule would allow {} nodes", lru >> 3);
        assert!(most.get() + 64 >= cap, "{profile}: at most {} nodes, below the cap of {cap}", most.get());
        assert!(k.vmstat.get(VmEvent::WorkingsetNodereclaim) > 0, "{profile}: the cap was reached");
        assert_invariants(k);
    }
}

/// `lruvec_page_state(lruvec, NR_LRU_BASE + lru)` of a memcg's lruvec is hierarchical (the
/// memcg's `lruvec_stats`, aggregated up the tree by rstat, 5.5+ / 6.1): a parent with no
/// pages of its own reports its child's lists, the root everyone's; an eviction and an
/// activation move the counts of every ancestor. And `workingset_refault()` compares the
/// refault distance with the eviction lruvec's hierarchical active list: a page of `/p/c`
/// evicted by reclaim aimed at `/p` (the shadow names `/p`) and refaulting at a distance of 4
/// is activated because `/p`'s subtree holds 8 active pages, though `/p`'s own lists are empty.
#[test]
fn lruvec_stats_are_subtree_sums_and_refaults_read_them() {
    let Setup { mut s, ct, f, .. } = setup("linux-6.6");
    let k = &mut s.kernel;
    let p = k.cgroup_mkdir("/p").unwrap();
    let c = k.cgroup_mkdir("/p/c").unwrap();
    read_pages(k, f, 64, 32, c);
    read_pages(k, f, 64, 8, c);
    k.lru_add_drain();
    let sizes = |k: &Kernel, m: MemcgId| {
        let v = k.lruvec_idx(m, 0);
        (k.lru_stats.subtree_size(v, LruList::InactiveFile), k.lru_stats.subtree_size(v, LruList::ActiveFile))
    };
    assert_eq!((lru_size(k, c, LruList::InactiveFile), lru_size(k, c, LruList::ActiveFile)), (24, 8));
    assert_eq!((lru_size(k, p, LruList::InactiveFile), lru_size(k, p, LruList::ActiveFile)), (0, 0));
    assert_eq!(sizes(k, c), (24, 8));
    assert_eq!(sizes(k, p), (24, 8), "the parent reports its child's pages");
    assert_eq!(sizes(k, MemcgId::ROOT), (64 + 24, 16 + 8), "the root reports every memcg's");
    assert_eq!(sizes(k, ct), (64, 16));
    assert_invariants(k);

    // Evict /f page 72 (inactive, of /p/c) and four more, by reclaim aimed at /p.
    for i in 72..77 {
        let pg_ = page_at(k, f, i);
        let v = k.folio_lruvec(pg_);
        k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, pg_);
        k.evict(pg_, p);
    }
    assert_eq!(sizes(k, p), (19, 8));
    assert_eq!(sizes(k, MemcgId::ROOT), (64 + 19, 16 + 8));
    let (named, _, _) = unpack_shadow(k.mappings[f.idx()].xa.get(72).as_shadow().expect("a shadow at 72"));
    assert_eq!(named, p, "the shadow names the reclaim target");
    read_pages(k, f, 72, 1, c);
    assert!(k.pages[page_at(k, f, 72)].test(pg::ACTIVE), "distance 4 <= 8 active pages below /p: activated");
    k.lru_add_drain();
    assert_eq!(sizes(k, c), (19, 9));
    assert_eq!(sizes(k, p), (19, 9));
    assert_invariants(k);
}

/// 64 dirty pages of `/log` in memcg `ct` under profile `profile`, then a limit reclaim that
/// can evict none of them: `shrink_folio_list()` activates each (`activate_locked`, 4.12+).
/// Returns how far the non-resident clocks of `ct` and of the root moved, and `ct`'s
/// `pgactivate`.
fn putback_ages(profile: &str) -> (u64, u64, u64) {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "putback-age"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
# slow writes: no writeback completes during the
# reclaim_throttle(CONGESTED) sleeps (5.16+) these tests are not about
write_bw = "1M"
[files."/log"]
size = 0
[cgroups.ct]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (ct, log) = (memcg(&s, "ct"), inode(&s, "/log"));
    let k = &mut s.kernel;
    assert_eq!(k.generic_perform_write(log, 0, 64 * PAGE_SIZE, ct), Ok(64 * PAGE_SIZE));
    let age = |k: &Kernel, m: MemcgId| k.lruvecs[m.idx()].nonresident_age;
    let (ct0, root0) = (age(k, ct), age(k, MemcgId::ROOT));
    assert_eq!(k.try_to_free_mem_cgroup_pages(ct, 32), 0, "every page is dirty: none evicted");
    let activated = k.memcgs.events(ct, MemcgEvent::Pgactivate);
    assert!(activated > 0, "reclaim activated the dirty pages");
    assert_invariants(k);
    (age(k, ct) - ct0, age(k, MemcgId::ROOT) - root0, activated)
}

/// `move_folios_to_lru()` (6.1 mm/vmscan.c) ages the non-resident clock by every active page
/// reclaim puts back: `if (folio_test_active(folio)) workingset_age_nonresident(lruvec,
/// nr_pages)`, in the lruvec and its ancestors (5.9+, 31d8fcac00fc "mm: workingset: age
/// nonresident information alongside anonymous pages"). Before, `move_active_pages_to_lru()`
/// / the putback of `shrink_inactive_list()` left it alone (5.0).
#[test]
fn reclaim_putback_of_active_pages_ages_nonresident_linux_6_1() {
    let (ct, root, activated) = putback_ages("linux-6.1");
    assert_eq!(ct, activated, "ct's clock moved by the pages put back active");
    assert_eq!(root, activated, "and its ancestors' with it");
    let (ct, root, activated) = putback_ages("linux-5.0");
    assert!(activated > 0);
    assert_eq!((ct, root), (0, 0), "5.0: putback does not age the clock");
}

/// A file page evicted from `ct` (swap room, 64 anonymous pages) refaults in `other`, whose
/// memory.swap.max is 0, 41 evictions later: beyond `ct`'s 16 active file pages, within them
/// and `ct`'s anon lists. Returns whether the refault was activated.
fn refault_from_a_memcg_without_swap(profile: &str) -> bool {
    let mut s = sim(&format!(
        r#"
[scenario]
name = "workingset-swap-room"
[machine]
ram = "1G"
swap = "64M"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
write_bw = "1G"
[files."/hot"]
size = "64K"
[files."/f"]
size = "1M"
[cgroups.ct]
[cgroups.other]
"memory.swap.max" = "0"
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (ct, other, hot, f) = (memcg(&s, "ct"), memcg(&s, "other"), inode(&s, "/hot"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, hot, 0, 16, ct);
    read_pages(k, f, 0, 64, ct);
    let vma = k.do_mmap_anon(64, ct);
    for i in 0..64 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 16);
    assert_eq!(lru_size(k, ct, LruList::ActiveAnon) + lru_size(k, ct, LruList::InactiveAnon), 64);
    assert!(k.mem_cgroup_get_nr_swap_pages(ct) > 0);
    assert_eq!(k.mem_cgroup_get_nr_swap_pages(other), 0);
    for i in 0..=40 {
        isolate_and_evict(k, f, i);
    }
    // 6.12's test reads the lists from the rstat copy: the periodic flush first
    // (flush_memcg_stats_dwork()).
    if k.stats_flush_next != u64::MAX {
        let t = k.stats_flush_next;
        k.advance_clock(t);
    }
    read_pages(k, f, 0, 1, other);
    k.lru_add_drain();
    let p = page_at(k, f, 0);
    assert_eq!(k.pages[p].memcg, other);
    assert_eq!(k.memcgs.events(other, MemcgEvent::WorkingsetRefaultFile), 1);
    assert_invariants(k);
    k.pages[p].test(pg::ACTIVE)
}

/// Whose swap room lets a file refault's working set count the anon lists. linux-6.6 and
/// 6.12 mm/workingset.c `workingset_test_recent()`: `mem_cgroup_get_nr_swap_pages(eviction_memcg)`,
/// the memcg the shadow names ("workingset: fix confusion around eviction vs refault
/// container": "When pages get evicted from a cgroup with swap, and refault in one without,
/// this can incorrectly consider a hot refault as cold"); linux-6.1 `workingset_refault()`:
/// `mem_cgroup_get_nr_swap_pages(memcg)` of the refaulting folio. A page evicted from `ct`
/// (swap room) at a distance of 41 refaults in `other` (memory.swap.max 0): 6.6 and 6.12
/// compare 41 with `ct`'s 16 active file + 64 anon pages and activate it, 6.1 with the 16 alone
/// and does not.
#[test]
fn refault_swap_room_is_the_eviction_memcgs_6_6_6_12_and_the_readers_6_1() {
    assert!(refault_from_a_memcg_without_swap("linux-6.6"), "6.6: ct has swap room, 41 <= 16 + 64");
    assert!(refault_from_a_memcg_without_swap("linux-6.12"), "6.12: ct has swap room, 41 <= 16 + 64");
    assert!(!refault_from_a_memcg_without_swap("linux-6.1"), "6.1: other has none, 41 > 16");
}
