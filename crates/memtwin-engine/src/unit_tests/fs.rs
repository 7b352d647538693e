//! Directories (fs.rs): directory objects with owners and modes, the path-walk permission
//! check, and the seed-004 walk (`shrink_pagecache_parent()`) through them.

use super::*;
use crate::types::DirId;

const TREE: &str = r#"
[scenario]
name = "dirs"
[machine]
ram = "1G"
[kernel.policies]
fadvise_directory = true
[devices.sda]
read_bw = "1G"
[dirs."/home/u"]
uid = 1000
mode = 0o755
[dirs."/home/u/private"]
mode = "0700"
[dirs."/home/u/gen"]
files = { count = 3, size = "64K", name = "g{i}" }
[files."/home/u/a"]
size = "64K"
[files."/home/u/private/b"]
size = "64K"
[files."/home/u/sub/c"]
size = "64K"
uid = 2000
[files."/home/ux/d"]
size = "64K"
uid = 1000
"#;

fn tree(tasks: &str) -> Simulation {
    sim(&format!("{TREE}{tasks}"))
}

fn dir(k: &Kernel, path: &str) -> DirId {
    k.lookup_dir(path).unwrap_or_else(|| panic!("no directory {path}"))
}

#[test]
fn directories_are_objects_with_owner_mode_parent_and_children() {
    let s = tree("[tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let k = &s.kernel;
    let u = dir(k, "/home/u");
    assert_eq!((k.dirs[u.idx()].uid, k.dirs[u.idx()].mode), (1000, 0o755));
    let p = dir(k, "/home/u/private");
    assert_eq!((k.dirs[p.idx()].uid, k.dirs[p.idx()].mode), (1000, 0o700), "uid inherited from /home/u, mode as a string");
    let home = dir(k, "/home");
    assert_eq!((k.dirs[home.idx()].uid, k.dirs[home.idx()].mode), (0, 0o755), "implied: root's, 0755");
    assert_eq!(k.dirs[home.idx()].parent, DirId::ROOT);
    assert_eq!(k.dirs[p.idx()].parent, u);
    assert!(k.dirs[u.idx()].subdirs.contains(&p));
    let sub = dir(k, "/home/u/sub");
    assert_eq!(k.dirs[sub.idx()].uid, 0, "a directory only implied by a file is root's");
    let a = inode(&s, "/home/u/a");
    assert_eq!(k.inodes[a.idx()].uid, 1000, "a file inherits the uid of its nearest declared directory");
    assert_eq!(k.inodes[a.idx()].parent, u);
    assert!(k.dirs[u.idx()].files.contains(&a));
    assert_eq!(k.inodes[inode(&s, "/home/u/sub/c").idx()].uid, 2000, "a file's own uid wins");
    let gen = dir(k, "/home/u/gen");
    let names: Vec<&str> = k.dirs[gen.idx()].files.iter().map(|f| &*k.inodes[f.idx()].path).collect();
    assert_eq!(names, ["/home/u/gen/g1", "/home/u/gen/g2", "/home/u/gen/g3"]);
    assert!(k.dirs[gen.idx()].files.iter().all(|f| k.inodes[f.idx()].size == 64 << 10 && k.inodes[f.idx()].uid == 1000));
    assert_invariants(k);
}

#[test]
fn the_walk_follows_directories_not_path_prefixes() {
    // /home/ux/d shares the prefix "/home/u" but is not below /home/u.
    let read_all = r#"
[tasks.t]
uid = 1000
ops = [
  { op = "read", file = "/home/u/a" }, { op = "read", file = "/home/u/sub/c" },
  { op = "read", file = "/home/u/gen/g2" }, { op = "read", file = "/home/ux/d" },
  { op = "fadvise", path = "/home/u", advice = "dontneed" },
]
"#;
    let mut s = tree(read_all);
    run(&mut s);
    let k = &s.kernel;
    let pages = |f: &str| k.mappings[inode(&s, f).idx()].nrpages;
    assert_eq!(pages("/home/u/a"), 0);
    assert_eq!(pages("/home/u/gen/g2"), 0, "recursively, into a subdirectory");
    assert_eq!(pages("/home/u/sub/c"), 16, "uid 2000's file: not the caller's");
    assert_eq!(pages("/home/ux/d"), 16, "a sibling directory with the same prefix is not walked");
    assert!(s.op_errors().is_empty());
    assert_invariants(k);
}

#[test]
fn opening_a_directory_needs_search_on_the_path_and_read_on_it() {
    let s = tree("[tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let k = &s.kernel;
    let p = dir(k, "/home/u/private");
    assert!(k.may_open_dir(p, 1000), "the owner: rwx");
    assert!(!k.may_open_dir(p, 2000), "others: no read on 0700");
    assert!(k.may_open_dir(p, 0), "root bypasses (CAP_DAC_OVERRIDE)");
    let mut s = tree("[tasks.t]\nops = [{ op = \"sleep\", duration = \"1ms\" }]\n");
    let k = &mut s.kernel;
    let below = k.vfs_mkdir("/home/u/private/inner", 1000, 0o777);
    assert!(!k.may_open_dir(below, 2000), "no search permission on /home/u/private");
    assert!(k.may_open_dir(below, 1000));
    let u = dir(k, "/home/u");
    k.dirs[u.idx()].mode = 0o744;
    assert!(!k.may_open_dir(below, 3000), "no search permission on /home/u for others");
}

#[test]
fn a_directory_the_caller_may_not_open_is_eacces_and_nothing_is_dropped() {
    let ops = r#"
[tasks.t]
uid = 2000
ops = [
  { op = "read", file = "/home/u/private/b" },
  { op = "fadvise", path = "/home/u/private", advice = "dontneed" },
]
"#;
    let mut s = tree(ops);
    run(&mut s);
    assert_eq!(s.kernel.mappings[inode(&s, "/home/u/private/b").idx()].nrpages, 16);
    assert_eq!(s.op_errors().len(), 1);
    assert!(s.op_errors()[0].contains("EACCES"), "{:?}", s.op_errors());
    assert_invariants(&s.kernel);
}

/// The patch's directory branch calls `invalidate_mapping_pages()` without
/// `__filemap_fdatawrite_range()`: dirty pages are neither written nor dropped; they are
/// deactivated with PG_reclaim, but for the last one written, still in the CPU's lru_add
/// batch (16 pages, `PAGEVEC_SIZE` 15 on linux-6.6): the branch drains nothing, and
/// `deactivate_file_folio()` passes over a folio off the LRU.
#[test]
fn the_directory_clean_starts_no_writeback() {
    let ops = r#"
[tasks.t]
uid = 1000
ops = [
  { op = "write", file = "/home/u/a", length = "64K" },
  { op = "fadvise", path = "/home/u", advice = "dontneed" },
]
"#;
    let mut s = tree(ops);
    run(&mut s);
    let k = &s.kernel;
    let a = inode(&s, "/home/u/a");
    assert_eq!(k.mappings[a.idx()].nrpages, 16);
    assert_eq!(k.mappings[a.idx()].nrdirty, 16, "no writeback started");
    assert_eq!(k.devices[0].write_bytes, 0);
    for i in 0..15 {
        let p = page_at(k, a, i);
        assert!(k.pages[p].test(pg::RECLAIM));
        assert_eq!(lru_of(k, p), Some(LruList::InactiveFile));
    }
    let p = page_at(k, a, 15);
    assert!(k.folio_in_lru_batch(p) && !k.pages[p].test(pg::RECLAIM));
    assert_invariants(k);
}

#[test]
fn files_and_directories_a_task_creates_are_the_tasks() {
    let ops = r#"
[tasks.t]
uid = 1000
ops = [{ op = "cp", src = "/home/u/gen", dst = "/home/u/copy/deep" }]
"#;
    let mut s = tree(ops);
    run(&mut s);
    let k = &s.kernel;
    for d in ["/home/u/copy", "/home/u/copy/deep"] {
        assert_eq!(k.dirs[dir(k, d).idx()].uid, 1000, "{d}: mkdir by the task");
    }
    let g1 = inode(&s, "/home/u/copy/deep/g1");
    assert_eq!((k.inodes[g1.idx()].uid, k.inodes[g1.idx()].mode), (1000, 0o644), "the creator's uid, 0666 & ~022");
    assert_eq!(k.mappings[g1.idx()].nrpages, 16);
    assert_invariants(k);
}
