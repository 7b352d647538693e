//! Dentries and inodes (fs/dcache.c, fs/inode.c): charged to the task that looks a file up,
//! on the superblock's memcg-aware LRUs while unused, freed by the superblock shrinker when
//! their memcg is under pressure, and reparented at offline from 5.9 on.

use super::*;
use crate::dcache::DISK_INODE_SLAB;
use crate::memcontrol::MemcgState;
use crate::profile::DENTRY_SLAB;

/// A memcg `ct` limited to `limit`, 200 small files on the disk `sda`, and a task in `ct`
/// that stats them all and then reads the 4 MiB file `/big`.
fn stat_then_read(profile: &str, limit: &str) -> Simulation {
    let mut files = String::new();
    let mut ops = String::new();
    for i in 0..200 {
        files.push_str(&format!("[files.\"/d/f{i}\"]\nsize = 0\n"));
        ops.push_str(&format!("  {{ op = \"stat\", file = \"/d/f{i}\", step = \"stat\" }},\n"));
    }
    sim(&format!(
        r#"
[scenario]
name = "dcache"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
{files}
[files."/big"]
size = "4M"
[cgroups.ct]
"memory.max" = "{limit}"
[tasks.t]
cgroup = "ct"
ops = [
{ops}  {{ op = "read", file = "/big", step = "read" }},
]
"#
    ))
}

#[test]
fn stat_charges_dentries_and_inodes_and_puts_them_on_the_lru() {
    let mut s = stat_then_read("linux-6.6", "max");
    let ct = memcg(&s, "ct");
    for _ in 0..200 {
        assert!(s.step());
    }
    let k = &s.kernel;
    let per_file = DENTRY_SLAB + DISK_INODE_SLAB;
    let m = k.memcgs.get(ct);
    assert_eq!(m.kmem_bytes, 200 * per_file);
    assert_eq!(m.kmem_pages, (200 * per_file).div_ceil(PAGE_SIZE));
    assert_eq!(m.counter.usage, m.kmem_pages, "nothing but slab is charged yet");
    assert_eq!(m.lru_objects, 200, "unused after stat: on the LRU");
    let sb = k.inodes[inode(&s, "/d/f0").idx()].sb;
    let kid = m.kmem_id.unwrap();
    assert_eq!(k.superblocks[sb].dentry_lru.items.get(&kid), Some(&200));
    assert_eq!(k.superblocks[sb].inode_lru.items.get(&kid), Some(&200));
    assert!(k.superblocks[sb].dentry_lru.entries.contains_key(&kid), "lazy entry allocated");
    assert_invariants(k);
}

#[test]
fn the_superblock_shrinker_frees_unused_dentries_under_memcg_pressure() {
    // 1 MiB limit: the 4 MiB read keeps the memcg in limit reclaim, whose shrink_slab()
    // prunes the 200 unused dentries and inodes (their files have no page cache).
    let mut s = stat_then_read("linux-6.6", "1M");
    let ct = memcg(&s, "ct");
    run(&mut s);
    let k = &s.kernel;
    let m = k.memcgs.get(ct);
    // /big's dentry and inode went on the LRU when the read closed it; it keeps page cache,
    // so the shrinker rotates it. Of the 200 stat'ed files some were pruned and uncharged.
    assert_eq!(m.lru_objects, 1, "all 200 stat'ed files pruned, /big kept");
    assert!(k.inodes[inode(&s, "/big").idx()].dentry.cached);
    let per_file = DENTRY_SLAB + DISK_INODE_SLAB;
    let nodes = xa_node_bytes(k, ct);
    assert_eq!(nodes, 16 * crate::slab::RADIX_TREE_NODE_SIZE, "/big's 16 tree nodes (pages or shadow entries in each)");
    assert_eq!(m.kmem_bytes, m.lru_objects * per_file + nodes);
    assert!(m.counter.usage <= 256, "at or under memory.max");
    let freed = 201 - m.lru_objects;
    assert_eq!(k.kmem.file_objects_slab, m.lru_objects * per_file, "{freed} pairs freed from Slab too");
    assert_invariants(k);
}

#[test]
fn without_pressure_nothing_is_pruned() {
    let mut s = stat_then_read("linux-6.6", "max");
    let ct = memcg(&s, "ct");
    run(&mut s);
    // The 200 stat'ed files and /big, closed after its read.
    assert_eq!(s.kernel.memcgs.get(ct).lru_objects, 201);
    assert_invariants(&s.kernel);
}

#[test]
fn offline_moves_dentries_to_the_parent_from_5_9_and_pins_before() {
    for (profile, pinned) in [("linux-6.6", false), ("linux-5.0", true)] {
        let mut s = stat_then_read(profile, "max");
        let ct = memcg(&s, "ct");
        for _ in 0..200 {
            assert!(s.step());
        }
        let k = &mut s.kernel;
        // Take the task out so that ct can be removed.
        let to = k.cgroup_attach_task(ct, "/").unwrap();
        assert_eq!(to, MemcgId::ROOT);
        k.cgroup_rmdir("/ct").unwrap();
        let m = k.memcgs.get(ct);
        if pinned {
            assert_eq!(m.state, MemcgState::Dying, "{profile}: its slab objects pin it");
            assert_eq!(m.kmem_pins, 200);
        } else {
            assert_eq!(m.state, MemcgState::Freed, "{profile}: objects reparented to the root");
            assert_eq!(k.memcgs.get(MemcgId::ROOT).lru_objects, 200);
        }
        assert!(k.check_invariants().is_ok(), "{profile}: {:?}", k.check_invariants());
    }
}
