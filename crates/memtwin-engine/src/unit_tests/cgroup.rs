//! The cgroup life cycle (kernel/cgroup/cgroup.c with mm/memcontrol.c's css callbacks):
//! `mkdir` allocates and onlines a memcg, `rmdir` takes it offline, and it is freed once
//! nothing refers to it (a dying memcg until then); the kernel memory each step costs or
//! gives back, by kernel era (`profile::MemcgKmemCost`); memcg and kmem ids; the seed-003
//! `memcg_percpu_release_on_offline` policy; and the pre-5.9 per-memcg slab cache copies and
//! slab pins.
//!
//! Expected values are computed in the tests from the profile constants and the kernel's
//! formulas (kmalloc rounding written out), never read back from the engine.

use super::*;
use crate::cgroup::{kernfs_files_bytes, Errno};
use crate::memcontrol::{MemcgEvent, MemcgState, MEM_CGROUP_ID_MAX};
use crate::profile::{profiles, MemcgKmemCost, CREATE_CACHES, DENTRY_SLAB, FORK_EXEC_CACHES, KMEM_5_0, KMEM_6_1, SHMEM_INODE_SLAB};
use crate::slab::kmalloc_size;

/// A machine with `cpus` possible CPUs and `nodes` nodes running `profile`, one idle task in
/// the root memcg, and whatever `extra` TOML adds (devices, files, mounts, cgroups, policies).
fn machine(profile: &str, cpus: u32, nodes: u32, extra: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "cgroup-life"
[machine]
ram = "1G"
cpus = {cpus}
nodes = {nodes}
[kernel]
profile = "{profile}"
cgroup = "v2"
{extra}
[tasks.t]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// A device with a 64 KiB file `/f` on it, for charging page-cache pages.
const FILE: &str = r#"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "64K"
"#;

/// `mem_cgroup_alloc()` + `cgroup_create()`: the percpu memory one memcg takes, over all CPUs.
fn memcg_percpu(c: &MemcgKmemCost, cpus: u64, nodes: u64) -> u64 {
    cpus * (c.vmstats_percpu + nodes * c.lruvec_stats_percpu + c.other_percpu)
}

/// The slab one online memcg takes: `mem_cgroup` with `nodeinfo[]`, 6.1's `memcg_vmstats`,
/// one `mem_cgroup_per_node` per node, the `cgroup`, the other cgroup objects (already
/// rounded) and the control files' kernfs nodes.
fn memcg_slab(c: &MemcgKmemCost, nodes: u64) -> u64 {
    let vmstats = if c.memcg_vmstats_struct > 0 { kmalloc_size(c.memcg_vmstats_struct) } else { 0 };
    kmalloc_size(c.memcg_struct + 8 * nodes)
        + vmstats
        + nodes * kmalloc_size(c.per_node_struct)
        + kmalloc_size(c.cgroup_struct)
        + c.cgroup_other_slab
        + kernfs_files_bytes(c.kernfs_files)
        + (c.kernfs_files + 1) * crate::profile::KERNFS_IDR_PER_FILE
}

/// (`nr_descendants`, `nr_dying_descendants`) of `/`.
fn root_descendants(k: &Kernel) -> (u64, u64) {
    k.memcgs.descendants(MemcgId::ROOT)
}

/// The slab of a 6.1 memcg on two nodes, with every kmalloc rounding written out.
#[test]
fn the_6_1_memcg_struct_sizes_round_as_documented() {
    let c = KMEM_6_1;
    // mem_cgroup 2248 + 2 x 8 -> kmalloc-4k; memcg_vmstats 1072 -> kmalloc-2k; two
    // mem_cgroup_per_node of 2560 -> kmalloc-4k each; cgroup 1808 -> kmalloc-2k;
    // perf_cgroup 256 + psi_group 1024 + 5 percpu_ref_data 320 + obj_cgroup 64 + kernfs dir 128;
    // 34 control files of 128 with their names (21 each); kernfs ids for the directory and
    // the files (9 each).
    assert_eq!(
        memcg_slab(&c, 2),
        4096 + 2048 + 2 * 4096 + 2048 + (256 + 1024 + 320 + 64 + 128) + 34 * (128 + 21) + 35 * 9
    );
    assert_eq!(memcg_slab(&c, 2), 23557);
    // percpu: 1096 + 2 x 688 + 268 per CPU.
    assert_eq!(memcg_percpu(&c, 4, 2), 4 * (1096 + 2 * 688 + 268));
    // 5.0 on one node: 2696 + 8 -> 4k, 848 -> 1k, 1836 -> 2k, 256 + 128, 24 files of
    // 128 + 21, 25 kernfs ids of 9.
    assert_eq!(memcg_slab(&KMEM_5_0, 1), 4096 + 1024 + 2048 + 384 + 24 * (128 + 21) + 25 * 9);
    assert_eq!(memcg_percpu(&KMEM_5_0, 32, 1), 32 * (1000 + 240 + 236));
}

/// `mkdir` then `rmdir` of a memcg nothing was ever charged to: it is online in between,
/// and `css_offline()` -> `css_release()` -> `css_free()` follow at once: state `Freed`,
/// `Percpu`, `Slab` and other kernel memory back to what they were (the shrinker state the
/// memcg held per node included), its memcg id and kmem id released, not a child any more.
#[test]
fn mkdir_then_rmdir_of_an_uncharged_memcg_frees_it_at_once() {
    let (cpus, nodes) = (4u64, 2u64);
    // A declared cgroup takes kmem id 0 and grows memcg_nr_cache_ids to 4 first, so that
    // /x's kmem id fits and no list_lru grows (which would never be given back).
    let mut s = machine("linux-6.6", cpus as u32, nodes as u32, "[mounts.\"/tmp\"]\nfs = \"tmpfs\"\n[cgroups.keep]\n");
    let k = &mut s.kernel;
    assert_eq!(k.memcgs.nr_cache_ids, 4);
    assert_eq!(k.superblocks.len(), 1);
    let c = k.profile.memcg_kmem.clone();
    assert_eq!(c, KMEM_6_1);
    let (percpu0, slab0, other0) = (k.kmem.percpu, k.kmem.slab, k.kmem.other);
    let (ids0, kids0, alloc0) = (k.memcgs.ids.in_use(), k.memcgs.kmem_ids.in_use(), k.memcgs.nr_allocated);
    assert_eq!((ids0, kids0, alloc0), (2, 1, 2));

    let x = k.cgroup_mkdir("/x").unwrap();
    {
        let m = k.memcgs.get(x);
        assert_eq!(m.state, MemcgState::Online);
        assert_eq!(m.path, "/x");
        assert_eq!(m.parent, Some(MemcgId::ROOT));
        assert_eq!(m.id, 3, "root has id 1, /keep 2");
        assert_eq!(m.kmem_id, Some(1));
        assert_eq!(m.percpu_bytes, memcg_percpu(&c, cpus, nodes));
        assert_eq!(m.percpu_bytes, 10960);
        assert_eq!(m.slab_bytes, memcg_slab(&c, nodes));
        assert_eq!(m.slab_bytes, 23557);
    }
    assert_eq!(k.kmem.percpu - percpu0, 10960);
    // One more allocated memcg keeps per node a shrinker_info for S = 2 shrinkers (/tmp and
    // the shadow nodes): 32 + 8 x 64 + 8 = 552 -> kmalloc-1k.
    assert_eq!(k.kmem.slab - slab0, 23557 + nodes * 1024);
    assert_eq!(k.kmem.other, other0);
    assert_eq!(k.memcgs.nr_cache_ids, 4);
    assert_eq!(root_descendants(k), (2, 0));
    assert_invariants(k);

    k.cgroup_rmdir("/x").unwrap();
    let m = k.memcgs.get(x);
    assert_eq!(m.state, MemcgState::Freed);
    assert_eq!((m.percpu_bytes, m.slab_bytes, m.id, m.kmem_id), (0, 0, 0, None));
    assert!(!k.memcgs.get(MemcgId::ROOT).children.contains(&x));
    assert_eq!(k.memcgs.by_path("/x"), None);
    assert_eq!(k.kmem.percpu, percpu0);
    assert_eq!(k.kmem.slab, slab0);
    assert_eq!(k.kmem.other, other0);
    assert_eq!(k.memcgs.ids.in_use(), ids0);
    assert_eq!(k.memcgs.kmem_ids.in_use(), kids0);
    assert_eq!(k.memcgs.nr_allocated, alloc0);
    assert_eq!(k.memcgs.nr_cache_ids, 4, "memcg_nr_cache_ids never shrinks");
    assert_eq!(root_descendants(k), (1, 0));
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// The syscall errors: `mkdir` of an existing cgroup is `EEXIST` (however the path is
/// written), of a child of a missing (or removed) parent `ENOENT`; `rmdir` of a cgroup with
/// a task or an online child is `EBUSY`, as is `rmdir /`, and of a missing or already
/// removed cgroup `ENOENT`. A failed call changes nothing.
#[test]
fn cgroup_syscalls_fail_as_the_kernel_does() {
    let mut s = machine("linux-6.6", 2, 1, "[cgroups.a]\n");
    let k = &mut s.kernel;
    let a = k.memcgs.by_path("/a").unwrap();
    let (percpu0, slab0, len0) = (k.kmem.percpu, k.kmem.slab, k.memcgs.len());
    assert_eq!(k.cgroup_mkdir("/a"), Err(Errno::EEXIST));
    assert_eq!(k.cgroup_mkdir("a"), Err(Errno::EEXIST));
    assert_eq!(k.cgroup_mkdir("a/"), Err(Errno::EEXIST));
    assert_eq!(k.cgroup_mkdir("/"), Err(Errno::EEXIST));
    assert_eq!(k.cgroup_mkdir("/missing/x"), Err(Errno::ENOENT));
    assert_eq!(k.cgroup_rmdir("/"), Err(Errno::EBUSY));
    assert_eq!(k.cgroup_rmdir(""), Err(Errno::EBUSY));
    assert_eq!(k.cgroup_rmdir("/missing"), Err(Errno::ENOENT));
    assert_eq!((k.kmem.percpu, k.kmem.slab, k.memcgs.len()), (percpu0, slab0, len0));

    // A task in /a.
    assert_eq!(k.cgroup_attach_task(MemcgId::ROOT, "/a"), Ok(a));
    assert_eq!(k.cgroup_rmdir("/a"), Err(Errno::EBUSY));
    assert_eq!(k.memcgs.get(a).state, MemcgState::Online);
    assert_eq!(k.cgroup_attach_task(a, "/"), Ok(MemcgId::ROOT));

    // An online child of /a.
    let b = k.cgroup_mkdir("/a/b").unwrap();
    assert_eq!(k.memcgs.get(b).parent, Some(a));
    assert_eq!(k.memcgs.get(b).level, 2);
    assert_eq!(k.cgroup_rmdir("/a"), Err(Errno::EBUSY));
    assert_eq!(k.memcgs.get(a).state, MemcgState::Online);
    assert_invariants(k);

    k.cgroup_rmdir("a/b/").unwrap();
    assert_eq!(k.memcgs.get(b).state, MemcgState::Freed);
    assert_eq!(k.cgroup_rmdir("/a/b"), Err(Errno::ENOENT), "already removed");
    k.cgroup_rmdir("/a").unwrap();
    assert_eq!(k.memcgs.get(a).state, MemcgState::Freed);
    assert_eq!(k.cgroup_mkdir("/a/b"), Err(Errno::ENOENT), "the parent was removed");
    assert_eq!(root_descendants(k), (0, 0));
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// A memcg with a page charged stays allocated after `rmdir` (dying) and is freed when that
/// page is uncharged — here by limit reclaim of its (dying) parent, which walks the dying
/// subtree. Freeing it lets its dying parent go too (`css_release()` of the child drops the
/// parent's last reference): the cascade. `cgroup.stat` `nr_dying_descendants` follows.
#[test]
fn a_dying_memcg_is_freed_with_its_last_page_and_its_dying_parent_follows() {
    let (cpus, nodes) = (2u64, 1u64);
    let mut s = machine("linux-6.6", cpus as u32, nodes as u32, FILE);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    // /q first: it takes kmem id 0 and memcg_nr_cache_ids 4, which stay.
    let q = k.cgroup_mkdir("/q").unwrap();
    let (percpu0, slab0, free0) = (k.kmem.percpu, k.kmem.slab, k.nr_free_pages());
    let p = k.cgroup_mkdir("/p").unwrap();
    let c = k.cgroup_mkdir("/p/c").unwrap();
    read_pages(k, f, 0, 1, c);
    assert_eq!(k.memcgs.get(c).counter.usage, 1, "the page alone: a lone page at index 0 needs no tree node");
    assert_eq!(k.memcgs.get(p).counter.usage, 1);
    assert_eq!(root_descendants(k), (3, 0));

    k.cgroup_rmdir("/p/c").unwrap();
    assert_eq!(k.memcgs.get(c).state, MemcgState::Dying);
    assert_eq!(root_descendants(k), (2, 1));
    assert_eq!(k.memcgs.descendants(p), (0, 1));
    // Dying, it keeps its percpu statistics and structures (not its control files).
    let kmem = k.profile.memcg_kmem.clone();
    assert_eq!(k.memcgs.get(c).percpu_bytes, memcg_percpu(&kmem, cpus, nodes));
    assert_eq!(k.memcgs.get(c).slab_bytes, memcg_slab(&kmem, nodes) - kernfs_files_bytes(kmem.kernfs_files));
    assert_eq!((k.memcgs.get(c).id, k.memcgs.get(c).kmem_id), (0, None), "ids go at offline");
    assert_invariants(k);

    // /p has only a dying child: it can go offline, and stays dying with the child's page.
    k.cgroup_rmdir("/p").unwrap();
    assert_eq!(k.memcgs.get(p).state, MemcgState::Dying);
    assert_eq!(root_descendants(k), (1, 2));
    assert_eq!(k.memcgs.nr_allocated, 4);
    assert_invariants(k);

    // Limit reclaim of the dying parent finds the page on the dying child's LRU (once the
    // CPU's lru_add batch is drained: reclaim sizes its scan from the lists, on which a
    // batched page is not).
    k.lru_add_drain();
    let reclaimed = k.try_to_free_mem_cgroup_pages(p, 1);
    assert_eq!(reclaimed, 1);
    assert_eq!(k.mappings[f.idx()].nrpages, 0);
    assert_eq!(k.memcgs.get(c).state, MemcgState::Freed);
    assert_eq!(k.memcgs.get(p).state, MemcgState::Freed, "the cascade frees the parent");
    assert_eq!(root_descendants(k), (1, 0));
    assert_eq!(k.memcgs.get(MemcgId::ROOT).children, vec![q]);
    assert_eq!(k.memcgs.nr_allocated, 2);
    assert_eq!(k.kmem.percpu, percpu0);
    assert_eq!(k.kmem.slab, slab0);
    assert_eq!(k.nr_free_pages(), free0);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// With the parent online, only the child goes; and a dying memcg holding two pages stays
/// dying until the second is uncharged (`Kernel::evict`, as reclaim would).
#[test]
fn a_dying_memcg_lives_until_its_last_page_is_evicted() {
    let mut s = machine("linux-5.0", 4, 1, FILE);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let p = k.cgroup_mkdir("/p").unwrap();
    let c = k.cgroup_mkdir("/p/c").unwrap();
    let (percpu0, slab0) = (k.kmem.percpu, k.kmem.slab);
    let c_percpu = k.memcgs.get(c).percpu_bytes;
    let c_slab = k.memcgs.get(c).slab_bytes;
    read_pages(k, f, 0, 2, c);
    k.cgroup_rmdir("/p/c").unwrap();
    assert_eq!(k.memcgs.descendants(p), (0, 1));
    assert_eq!(root_descendants(k), (1, 1));
    // rmdir gave back the control files only (the file's tree node stays).
    assert_eq!(k.kmem.percpu, percpu0);
    assert_eq!(k.kmem.slab - k.kmem.pagecache_slab, slab0 - kernfs_files_bytes(KMEM_5_0.kernfs_files));

    isolate_and_evict(k, f, 0);
    assert_eq!(k.memcgs.get(c).state, MemcgState::Dying, "one page still charged");
    assert_eq!(k.memcgs.get(c).counter.usage, 1);
    assert_eq!(root_descendants(k), (1, 1));
    assert_invariants(k);

    isolate_and_evict(k, f, 1);
    assert_eq!(k.memcgs.get(c).state, MemcgState::Freed);
    assert_eq!(k.memcgs.get(p).state, MemcgState::Online, "an online parent is not freed");
    assert_eq!(k.memcgs.descendants(p), (0, 0));
    assert_eq!(root_descendants(k), (1, 0));
    assert_eq!(k.kmem.percpu, percpu0 - c_percpu);
    // ... and the shrinker state it kept: 5.0's memcg_shrinker_map for S = 2 shrinkers (sda's
    // superblock, the shadow nodes) is 16 + 8 = 24 -> kmalloc-32, one node.
    // (The file's tree node, holding the evicted pages' shadow entries, stays.)
    assert_eq!(k.kmem.pagecache_slab, crate::slab::RADIX_TREE_NODE_SIZE);
    assert_eq!(k.kmem.slab - k.kmem.pagecache_slab, slab0 - c_slab - 32);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// `mem_cgroup_idr` and `memcg_cache_ida` hand out the lowest free id, so an id released by
/// `rmdir` is taken by the next `mkdir` — even while the memcg that had it is still dying.
#[test]
fn the_lowest_free_memcg_and_kmem_ids_are_reused() {
    let mut s = machine("linux-6.6", 1, 1, FILE);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    assert_eq!(k.memcgs.get(MemcgId::ROOT).id, 1);
    assert_eq!(k.memcgs.get(MemcgId::ROOT).kmem_id, None, "the root has no kmem id");
    let a = k.cgroup_mkdir("/a").unwrap();
    let b = k.cgroup_mkdir("/b").unwrap();
    let c = k.cgroup_mkdir("/c").unwrap();
    let ids = |k: &Kernel, m: MemcgId| (k.memcgs.get(m).id, k.memcgs.get(m).kmem_id);
    assert_eq!(ids(k, a), (2, Some(0)));
    assert_eq!(ids(k, b), (3, Some(1)));
    assert_eq!(ids(k, c), (4, Some(2)));

    k.cgroup_rmdir("/b").unwrap();
    assert_eq!(k.memcgs.get(b).state, MemcgState::Freed);
    let d = k.cgroup_mkdir("/d").unwrap();
    assert_eq!(ids(k, d), (3, Some(1)), "b's ids");
    let e = k.cgroup_mkdir("/e").unwrap();
    assert_eq!(ids(k, e), (5, Some(3)));

    // A dying memcg has given its ids back too.
    read_pages(k, f, 0, 1, a);
    k.cgroup_rmdir("/a").unwrap();
    assert_eq!(k.memcgs.get(a).state, MemcgState::Dying);
    let a2 = k.cgroup_mkdir("/a").unwrap();
    assert_ne!(a2, a, "a new memcg, not the dying one");
    assert_eq!(ids(k, a2), (2, Some(0)));
    assert_eq!(k.memcgs.by_path("/a"), Some(a2));
    assert_eq!(root_descendants(k), (4, 1));
    assert_eq!(k.memcgs.ids.in_use(), 5, "root, /c, /d, /e, new /a");
    assert_eq!(k.memcgs.kmem_ids.in_use(), 4);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// `memcg_alloc_cache_id()`: `memcg_nr_cache_ids` grows to clamp(2 (id + 1), 4, 65535)
/// only when a new kmem id does not fit — 4, 10, 22, 46 as memcgs 0..=22 are made — and
/// never shrinks, not even when every memcg is gone.
#[test]
fn memcg_nr_cache_ids_doubles_only_when_an_id_does_not_fit() {
    let mut s = machine("linux-5.17", 1, 1, "");
    let k = &mut s.kernel;
    assert_eq!(k.memcgs.nr_cache_ids, 0);
    let mut seen = vec![];
    let mut n = 0u32;
    for i in 0..23u32 {
        let m = k.cgroup_mkdir(&format!("/m{i}")).unwrap();
        let kid = k.memcgs.get(m).kmem_id.unwrap();
        assert_eq!(kid, i);
        if kid >= n {
            n = (2 * (kid + 1)).clamp(4, MEM_CGROUP_ID_MAX);
            seen.push(n);
        }
        assert_eq!(k.memcgs.nr_cache_ids, n, "after kmem id {kid}");
    }
    assert_eq!(seen, vec![4, 10, 22, 46]);
    for i in 0..23 {
        k.cgroup_rmdir(&format!("/m{i}")).unwrap();
    }
    assert_eq!(k.memcgs.kmem_ids.in_use(), 0);
    assert_eq!(k.memcgs.nr_cache_ids, 46, "never shrinks");
    let m = k.cgroup_mkdir("/again").unwrap();
    assert_eq!(k.memcgs.get(m).kmem_id, Some(0));
    assert_eq!(k.memcgs.nr_cache_ids, 46);
    // The clamp's upper end: the largest kmem id gives MEM_CGROUP_ID_MAX, not 131070.
    assert_eq!((2 * (65534u32 + 1)).clamp(4, MEM_CGROUP_ID_MAX), 65535);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// The percpu memory of a memcg is, per possible CPU, `vmstats_percpu` + per node
/// `lruvec_stats_percpu` + the cgroup's other percpu objects — for every profile. With
/// `memcg_percpu_release_on_offline`, `rmdir` of a memcg that stays dying frees exactly the
/// percpu statistics, cpus x (vmstats + nodes x lruvec), and kmallocs their atomic copies
/// (one `vmstats` array and one per node) in `Slab`; without it only the control files go.
/// Either way the memcg's memory.stat event counters keep their values across offline.
#[test]
fn percpu_per_memcg_and_the_release_on_offline_policy_for_every_profile() {
    let (cpus, nodes) = (8u64, 2u64);
    for prof in profiles() {
        for release in [false, true] {
            let extra = format!("{FILE}[kernel.policies]\nmemcg_percpu_release_on_offline = {release}\n");
            let mut s = machine(prof.name, cpus as u32, nodes as u32, &extra);
            let f = inode(&s, "/f");
            let k = &mut s.kernel;
            let c = prof.memcg_kmem.clone();
            assert_eq!(k.profile.memcg_kmem, c);
            assert_eq!(k.policies.memcg_percpu_release_on_offline, release);
            let p = k.cgroup_mkdir("/p").unwrap();
            let percpu0 = k.kmem.percpu;
            let m = k.cgroup_mkdir("/p/m").unwrap();
            let want = cpus * (c.vmstats_percpu + nodes * c.lruvec_stats_percpu + c.other_percpu);
            assert_eq!(k.kmem.percpu - percpu0, want, "{}", prof.name);
            assert_eq!(k.memcgs.get(m).percpu_bytes, want, "{}", prof.name);

            read_pages(k, f, 0, 3, m);
            let events = k.memcgs.get(m).events;
            assert_eq!(events[MemcgEvent::Pgpgin as usize], 3);
            let parent_pgpgin = k.memcgs.events(p, MemcgEvent::Pgpgin);
            assert_eq!(parent_pgpgin, 3);
            let (percpu1, slab1, mslab1) = (k.kmem.percpu, k.kmem.slab, k.memcgs.get(m).slab_bytes);

            k.cgroup_rmdir("/p/m").unwrap();
            let mc = k.memcgs.get(m);
            assert_eq!(mc.state, MemcgState::Dying, "{}", prof.name);
            let files = kernfs_files_bytes(c.kernfs_files);
            if release {
                let released = cpus * (c.vmstats_percpu + nodes * c.lruvec_stats_percpu);
                // kernel/patches/003-percpu-release (6.1): memcg_vmstats_atomic has the percpu
                // struct's arrays without nr_page_events and targets[2], plus a pointer;
                // lruvec_stats_atomic the lruvec arrays plus a pointer.
                let atomics = kmalloc_size(c.vmstats_percpu - 24 + 8) + nodes * kmalloc_size(c.lruvec_stats_percpu + 8);
                assert_eq!(percpu1 - k.kmem.percpu, released, "{}", prof.name);
                assert_eq!(mc.percpu_bytes, cpus * c.other_percpu, "{}", prof.name);
                assert_eq!(k.kmem.slab, slab1 - files + atomics, "{}", prof.name);
                assert_eq!(mc.slab_bytes, mslab1 - files + atomics, "{}", prof.name);
            } else {
                assert_eq!(k.kmem.percpu, percpu1, "{}", prof.name);
                assert_eq!(mc.percpu_bytes, want, "{}", prof.name);
                assert_eq!(k.kmem.slab, slab1 - files, "{}", prof.name);
            }
            assert_eq!(mc.events, events, "{}: memory.stat survives offline", prof.name);
            assert_eq!(k.memcgs.events(p, MemcgEvent::Pgpgin), parent_pgpgin, "{}", prof.name);
            assert_eq!(k.memcgs.file_pages(p), 3);
            assert_eq!(root_descendants(k), (1, 1));
            assert!(k.check_invariants().is_ok(), "{}: {:?}", prof.name, k.check_invariants());
        }
    }
}

/// The release policy's figures for the 5.0 profile of seed 003 (32 CPUs, one node), written
/// out: a memcg takes 32 x 1476 B = 47232 B of percpu; offline gives back 32 x 1240 = 39680 B
/// and kmallocs 1024 + 256 B of atomics.
#[test]
fn the_release_policy_on_the_seed_003_machine() {
    let extra = format!("{FILE}[kernel.policies]\nmemcg_percpu_release_on_offline = true\n");
    let mut s = machine("linux-5.0", 32, 1, &extra);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let m = k.cgroup_mkdir("/m").unwrap();
    assert_eq!(k.memcgs.get(m).percpu_bytes, 47232);
    read_pages(k, f, 0, 1, m);
    let (percpu, slab) = (k.kmem.percpu, k.kmem.slab);
    k.cgroup_rmdir("/m").unwrap();
    assert_eq!(percpu - k.kmem.percpu, 39680);
    assert_eq!(k.memcgs.get(m).percpu_bytes, 47232 - 39680);
    assert_eq!(k.kmem.slab, slab - 24 * (128 + 21) + 1024 + 256);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// A task in cgroup `a` execs a program twice, creates two empty files on a tmpfs (no page
/// charged: `length = 0`), leaves `a` and removes it; one op per step.
fn exec_and_create(profile: &str, cpus: u32) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "exec-and-create"
[machine]
ram = "1G"
cpus = {cpus}
[kernel]
profile = "{profile}"
cgroup = "v2"
[mounts."/tmp"]
fs = "tmpfs"
[cgroups.a]
[tasks.sh]
cgroup = "a"
ops = [
  {{ op = "exec", program = "dd", step = "exec 1" }},
  {{ op = "exec", program = "dd", step = "exec 2" }},
  {{ op = "write", file = "/tmp/x", length = 0, create = true, step = "create 1" }},
  {{ op = "write", file = "/tmp/y", length = 0, create = true, step = "create 2" }},
  {{ op = "move", cgroup = "/", step = "leave" }},
  {{ op = "rmdir", cgroup = "a", step = "rmdir" }},
]
"#
    ))
}

/// Before 5.9 (`linux-5.0`): the first exec by a task in a memcg (`process_spawned()`) gives
/// the memcg its own copy of the `FORK_EXEC_CACHES` accounted caches (a `kmem_cache` + node
/// + name in `Slab`, a `kmem_cache_cpu` per CPU in `Percpu`); a second exec adds nothing.
/// Creating a file adds the `CREATE_CACHES` copies once, plus the file's dentry and inode,
/// which pin the memcg: after `rmdir` it stays dying with no page charged.
#[test]
fn before_5_9_cache_copies_and_file_objects_pin_a_dying_memcg() {
    let cpus = 4u64;
    let mut s = exec_and_create("linux-5.0", cpus as u32);
    let a = memcg(&s, "a");
    let c = KMEM_5_0;
    assert!(c.per_memcg_kmem_caches && c.slab_objects_pin);
    // A copy: kmem_cache 856 + kmem_cache_node 64 + name 32 of slab, kmem_cache_cpu 32 per CPU.
    assert_eq!((c.kmem_cache_clone_slab, c.kmem_cache_clone_percpu), (952, 32));
    // A file: its dentry and its tmpfs inode (with the LSM blob), as they sit in their slabs.
    let file = DENTRY_SLAB + SHMEM_INODE_SLAB;
    assert_eq!(file, 195 + 819 + 32);
    let k = &s.kernel;
    let (percpu0, slab0) = (k.kmem.percpu, k.kmem.slab);
    let (mpercpu0, mslab0) = (k.memcgs.get(a).percpu_bytes, k.memcgs.get(a).slab_bytes);
    let delta = |k: &Kernel| (k.kmem.percpu - percpu0, k.kmem.slab as i64 - slab0 as i64);
    let mdelta = |k: &Kernel| (k.memcgs.get(a).percpu_bytes - mpercpu0, k.memcgs.get(a).slab_bytes - mslab0);

    assert!(s.step()); // exec 1
    let k = &s.kernel;
    assert_eq!(delta(k), ((FORK_EXEC_CACHES * cpus * 32), (FORK_EXEC_CACHES * 952) as i64));
    assert_eq!(delta(k), (1536, 11424));
    assert_eq!(mdelta(k), (1536, 11424), "the copies are the memcg's");
    assert_eq!(k.memcgs.get(a).kmem_pins, 0, "the program's objects were freed at exit");

    assert!(s.step()); // exec 2
    let k = &s.kernel;
    assert_eq!(delta(k), (1536, 11424), "a second exec finds the copies");

    assert!(s.step()); // create 1
    let k = &s.kernel;
    assert_eq!(delta(k), ((FORK_EXEC_CACHES + CREATE_CACHES) * cpus * 32, ((12 + CREATE_CACHES) * 952 + file) as i64));
    assert_eq!(delta(k), (1792, (14 * 952 + file) as i64));
    assert_eq!(mdelta(k), (1792, 14 * 952));
    assert_eq!(k.kmem.file_objects_slab, file);
    assert_eq!(k.memcgs.get(a).kmem_pins, 1);

    assert!(s.step()); // create 2
    let k = &s.kernel;
    assert_eq!(delta(k), (1792, (14 * 952 + 2 * file) as i64), "no new copies, one more dentry and inode");
    assert_eq!(k.kmem.file_objects_slab, 2 * file);
    assert_eq!(k.memcgs.get(a).kmem_pins, 2);
    assert_eq!(k.memcgs.get(a).nr_file, 0, "no page-cache page charged");
    assert_invariants(k);

    assert!(s.step()); // leave
    assert!(s.step()); // rmdir
    assert!(!s.step());
    let k = &s.kernel;
    assert!(rmdir_succeeded(&s));
    assert_eq!(k.memcgs.get(a).state, MemcgState::Dying, "pinned by its dentries and inodes");
    assert_eq!(k.memcgs.get(a).nr_file, 0);
    assert_eq!(root_descendants(k), (0, 1));
    // It keeps its copies; only the control files went.
    assert_eq!(delta(k), (1792, (14 * 952 + 2 * file) as i64 - kernfs_files_bytes(c.kernfs_files) as i64));
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// From 5.9 (`linux-6.6`): no per-memcg cache copies and no pins — exec costs nothing, a
/// created file only its dentry and inode, and `rmdir` frees the memcg at once.
#[test]
fn in_6_6_neither_copies_nor_pins() {
    let mut s = exec_and_create("linux-6.6", 4);
    let a = memcg(&s, "a");
    let k = &s.kernel;
    let (percpu0, slab0) = (k.kmem.percpu, k.kmem.slab);
    let (mpercpu, mslab) = (k.memcgs.get(a).percpu_bytes, k.memcgs.get(a).slab_bytes);
    assert!(s.step());
    assert!(s.step());
    let k = &s.kernel;
    assert_eq!((k.kmem.percpu, k.kmem.slab), (percpu0, slab0), "exec");
    assert!(s.step());
    assert!(s.step());
    let k = &s.kernel;
    assert_eq!(k.kmem.percpu, percpu0);
    // Two files' dentries and inodes, and the memcg's first allocation on the tmpfs
    // superblock: its entries of the dentry and inode list_lrus, each in a new xarray node.
    let entries = 2 * (crate::slab::kmalloc_size(16 + 24 * k.nr_nodes as u64) + crate::list_lru::XA_NODE);
    assert_eq!(k.kmem.slab - slab0, 2 * (DENTRY_SLAB + SHMEM_INODE_SLAB) + entries);
    assert_eq!(k.kmem.file_objects_slab, 2 * (DENTRY_SLAB + SHMEM_INODE_SLAB));
    assert_eq!((k.memcgs.get(a).percpu_bytes, k.memcgs.get(a).slab_bytes), (mpercpu, mslab));
    assert_eq!(k.memcgs.get(a).kmem_pins, 0);
    assert_eq!(k.memcgs.get(a).kmem_cache_sets, 0);
    assert_invariants(k);

    assert!(s.step());
    assert!(s.step());
    assert!(!s.step());
    assert!(rmdir_succeeded(&s));
    let k = &s.kernel;
    assert_eq!(k.memcgs.get(a).state, MemcgState::Freed);
    assert_eq!(root_descendants(k), (0, 0));
    // The files' objects outlive the memcg; its own memory is gone, and so is the
    // shrinker_info it kept (S = 2: 32 + 8 x 64 + 8 = 552 -> kmalloc-1k, one node).
    assert_eq!(k.kmem.percpu, percpu0 - mpercpu);
    assert_eq!(k.kmem.slab, slab0 - mslab + 2 * (DENTRY_SLAB + SHMEM_INODE_SLAB) - 1024);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// The run's `rmdir a` succeeded: `/a` is no longer an online cgroup.
fn rmdir_succeeded(s: &Simulation) -> bool {
    s.kernel.memcgs.by_path("/a").is_none()
}

/// When a dying memcg is finally freed, its event counters stay in its ancestors'
/// hierarchical memory.stat: since v5.3 the percpu counts are flushed into the parent at
/// release (kernel-facts section 5), and with rstat (v5.13+) `cgroup_rstat_exit()` flushes
/// before the memcg goes. Read-side aggregation over live memcgs (before v5.2) lost them.
#[test]
fn a_freed_memcgs_events_stay_in_its_ancestors_memory_stat() {
    let mut s = machine("linux-6.6", 1, 1, FILE);
    let f = inode(&s, "/f");
    let k = &mut s.kernel;
    let p = k.cgroup_mkdir("/p").unwrap();
    let c = k.cgroup_mkdir("/p/c").unwrap();
    read_pages(k, f, 0, 2, c);
    k.cgroup_rmdir("/p/c").unwrap();
    isolate_and_evict(k, f, 0);
    assert_eq!(k.memcgs.get(c).state, MemcgState::Dying);
    assert_eq!(k.memcgs.events(p, MemcgEvent::Pgpgin), 2);
    assert_eq!(k.memcgs.events(p, MemcgEvent::Pgpgout), 1);
    isolate_and_evict(k, f, 1);
    assert_eq!(k.memcgs.get(c).state, MemcgState::Freed);
    assert_eq!(k.memcgs.events(p, MemcgEvent::Pgpgin), 2, "pgpgin of the freed child");
    assert_eq!(k.memcgs.events(p, MemcgEvent::Pgpgout), 2);
    assert_eq!(k.memcgs.events(MemcgId::ROOT, MemcgEvent::Pgpgin), 2);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}

/// `get_scan_count()` scrapes out an offline memcg's LRUs: where `size >> priority` is 0 it
/// scans `min(size, SWAP_CLUSTER_MAX)` instead ("If the cgroup's already been deleted, make
/// sure to scrape out the remaining cache", mm/vmscan.c since 4.x, still in 6.x), so one
/// limit reclaim of the parent frees a dying child holding one page, even while the parent's
/// own 4096 pages meet the target at high priorities.
#[test]
fn reclaim_scrapes_out_a_dying_memcgs_last_pages() {
    let mut s = machine("linux-6.6", 1, 1, "[devices.sda]\nread_bw = \"1G\"\n[files.\"/f\"]\nsize = \"16M\"\n[files.\"/g\"]\nsize = \"4K\"\n");
    let (f, g) = (inode(&s, "/f"), inode(&s, "/g"));
    let k = &mut s.kernel;
    let p = k.cgroup_mkdir("/p").unwrap();
    let c = k.cgroup_mkdir("/p/c").unwrap();
    read_pages(k, g, 0, 1, c);
    read_pages(k, f, 0, 4096, p);
    k.cgroup_rmdir("/p/c").unwrap();
    assert_eq!(k.memcgs.get(c).state, MemcgState::Dying);
    let reclaimed = k.try_to_free_mem_cgroup_pages(p, 32);
    assert!(reclaimed >= 32);
    assert_eq!(k.mappings[g.idx()].nrpages, 0, "the dying memcg's page was scanned and reclaimed");
    assert_eq!(k.memcgs.get(c).state, MemcgState::Freed);
    assert!(k.check_invariants().is_ok(), "{:?}", k.check_invariants());
}
