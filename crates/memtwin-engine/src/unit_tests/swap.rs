//! LRU insertion and access-driven promotion (mm/swap.c: `folio_mark_accessed()`,
//! `folio_activate()`, `folio_add_lru()`).

use super::*;
use crate::memcontrol::MemcgEvent;
use crate::vmstat::VmEvent;

fn one_file(ops: &str) -> String {
    format!(
        r#"
[scenario]
name = "promotion"
[machine]
ram = "1G"
[kernel]
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "1M"
[cgroups.ct]
[tasks.cat]
cgroup = "ct"
ops = [{ops}]
"#
    )
}

/// `folio_mark_accessed()` step by step: the first access sets `PG_referenced`; the second on
/// an inactive page activates it (`folio_activate()`: active list, `pgactivate` in vmstat and
/// memory.stat) and clears `PG_referenced`; a third sets `PG_referenced` again and a fourth
/// changes nothing, as the page is already active.
#[test]
fn mark_accessed_references_then_activates() {
    let mut s = sim(&one_file(r#"{ op = "sleep", duration = "1ms" }"#));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 1, ct);
    let p = page_at(k, f, 0);
    assert!(
        k.pages[p].test(pg::REFERENCED),
        "the read was the first access"
    );
    assert!(!k.pages[p].test(pg::ACTIVE));
    // The new page waits in the CPU's lru_add batch; the drain puts it on the inactive list.
    assert_eq!(lru_of(k, p), None);
    k.lru_add_drain();
    assert_eq!(lru_of(k, p), Some(LruList::InactiveFile));

    k.folio_mark_accessed(p);
    assert!(k.pages[p].test(pg::ACTIVE));
    assert!(!k.pages[p].test(pg::REFERENCED));
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 1);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 1);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 1);

    k.folio_mark_accessed(p);
    assert!(k.pages[p].test(pg::ACTIVE | pg::REFERENCED));
    k.folio_mark_accessed(p);
    assert!(k.pages[p].test(pg::ACTIVE | pg::REFERENCED));
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
    assert_eq!(
        k.memcgs.events(ct, MemcgEvent::Pgactivate),
        1,
        "an active page is not activated again"
    );
    assert_invariants(k);
}

/// A file read once stays on the inactive list, every page with `PG_referenced`: one access
/// is not enough to enter the active list (use-once pages are reclaimed first).
#[test]
fn a_file_read_once_stays_inactive() {
    let mut s = sim(&one_file(
        r#"{ op = "read", file = "/f", bufsize = "128K" }"#,
    ));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    // 256 = 17 batches of 15 (linux-6.6's PAGEVEC_SIZE) and one page still in the batch.
    assert_eq!(lru_size(&s.kernel, ct, LruList::InactiveFile), 255);
    s.kernel.lru_add_drain();
    let k = &s.kernel;
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 256);
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 0);
    for i in 0..256 {
        let p = page_at(k, f, i);
        assert!(k.pages[p].test(pg::REFERENCED), "page {i}");
        assert!(!k.pages[p].test(pg::ACTIVE), "page {i}");
    }
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 0);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 0);
    assert_invariants(k);
}

/// Reading the file again (a second `open()` + `read()`, as a second `cat` does) is the
/// second access of every page: all of them move to the active list. The last page read, still
/// in the CPU's lru_add batch (256 = 17 x 15 + 1 on linux-6.6), is marked active there
/// (`__lru_cache_activate_folio()`, no `pgactivate`) and goes active when the batch moves.
#[test]
fn a_file_read_twice_is_activated() {
    let mut s = sim(&one_file(
        r#"{ op = "read", file = "/f", bufsize = "128K" }, { op = "read", file = "/f", bufsize = "128K" }"#,
    ));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    assert_eq!(lru_size(&s.kernel, ct, LruList::ActiveFile), 255);
    s.kernel.lru_add_drain();
    let k = &s.kernel;
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 256);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 255);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 255);
    for i in 0..256 {
        assert!(k.pages[page_at(k, f, i)].test(pg::ACTIVE), "page {i}");
    }
    assert_eq!(
        k.devices[0].read_bytes,
        1 << 20,
        "the second read hit the page cache"
    );
    assert_invariants(k);
}

/// `folio_activate_fn()` (mm/swap.c, 6.1) moves a folio with `lruvec_del_folio()` then
/// `lruvec_add_folio()`: `Lruvec::move_folio`, which does both at once with one walk of the
/// hierarchical sizes, leaves every list, page and size (file and anonymous, the memcg's and
/// its ancestors') as `del` followed by `add` does, for a page in the middle of its list.
#[test]
fn move_folio_is_del_then_add() {
    let toml = r#"
[scenario]
name = "move"
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
[tasks.t]
cgroup = "p/c"
ops = [{ op = "read", file = "/f", bufsize = "64K" }, { op = "mmap", name = "a", size = "64K" }, { op = "touch", name = "a" }]
"#;
    let (mut fused, mut split) = (sim(toml), sim(toml));
    run(&mut fused);
    run(&mut split);
    let (c, p) = (memcg(&fused, "p/c"), memcg(&fused, "p"));
    let walk = |k: &Kernel, v: usize| -> Vec<Vec<PageId>> {
        (0..4)
            .map(|l| {
                let mut out = vec![];
                let mut x = k.lruvecs[v].lists[l].head;
                while x != PageId::NIL {
                    out.push(x);
                    x = k.pages[x].next;
                }
                out
            })
            .collect()
    };
    let v = fused.kernel.lruvec_idx(c, 0);
    let before = walk(&fused.kernel, v);
    let file = page_at(&fused.kernel, inode(&fused, "/f"), 5);
    let anon_list = if before[0].len() >= 3 { 0 } else { 1 };
    assert!(before[anon_list].len() >= 3, "the touched mapping is on an anonymous list: {:?}", before.iter().map(|l| l.len()).collect::<Vec<_>>());
    let anon = before[anon_list][1];
    for (page, to) in [(file, LruList::ActiveFile), (anon, LruList::from_u8(1 - anon_list as u8))] {
        // The caller sets or clears PG_active, as folio_activate_fn() sets it.
        let active = to == LruList::ActiveFile || to == LruList::ActiveAnon;
        for k in [&mut fused.kernel, &mut split.kernel] {
            if active {
                k.pages[page].flags |= pg::ACTIVE;
            } else {
                k.pages[page].flags &= !pg::ACTIVE;
            }
        }
        let kf = &mut fused.kernel;
        let nr = kf.lruvecs[v].move_folio(&mut kf.pages, &mut kf.lru_stats, page, to);
        assert_eq!(nr, 1);
        let ks = &mut split.kernel;
        ks.lruvecs[v].del(&mut ks.pages, &mut ks.lru_stats, page);
        ks.lruvecs[v].add(&mut ks.pages, &mut ks.lru_stats, page, to);
        let (kf, ks) = (&fused.kernel, &split.kernel);
        assert_eq!(walk(kf, v), walk(ks, v), "list order after moving {page:?} to {to:?}");
        assert_eq!(walk(kf, v)[to as usize][0], page, "the folio is at the head of {to:?}");
        assert_eq!(kf.pages[page].flags, ks.pages[page].flags);
        for m in [c, p, MemcgId::ROOT] {
            let w = kf.lruvec_idx(m, 0);
            for l in [LruList::InactiveAnon, LruList::ActiveAnon, LruList::InactiveFile, LruList::ActiveFile] {
                assert_eq!(kf.lru_stats.subtree_size(w, l), ks.lru_stats.subtree_size(w, l), "{m:?} {l:?}");
                assert_eq!(kf.lruvecs[w].lists[l as usize].pages, ks.lruvecs[w].lists[l as usize].pages, "{m:?} {l:?}");
                assert_eq!(kf.lruvecs[w].lists[l as usize].len, ks.lruvecs[w].lists[l as usize].len, "{m:?} {l:?}");
            }
            for l in [LruList::InactiveAnon, LruList::ActiveAnon] {
                assert_eq!(kf.lru_stats.subtree_anon_pages(w, l), ks.lru_stats.subtree_anon_pages(w, l), "{m:?} {l:?}");
            }
        }
        assert_eq!(kf.lru_stats.subtree_size(kf.lruvec_idx(p, 0), to), kf.lru_stats.subtree_size(v, to), "p's subtree holds c's pages");
        assert_invariants(kf);
    }
}

fn one_file_on(profile: &str) -> String {
    one_file(r#"{ op = "sleep", duration = "1ms" }"#).replace("[kernel]\n", &format!("[kernel]\nprofile = \"{profile}\"\n"))
}

/// mm/swap.c (6.12) `folio_add_lru()` -> `folio_batch_add_and_move(fbatch, folio,
/// lru_add_fn)`: a new page goes into the running CPU's `cpu_fbatches.lru_add` batch, on no
/// list (`PG_lru` clear), until `folio_batch_add()` leaves no space (`PAGEVEC_SIZE` 31 from
/// 6.10): the 31st add moves all 31 onto the inactive list in the order they were added;
/// `lru_add_drain()` moves a partial batch.
#[test]
fn folio_add_lru_6_12_batches_31_folios_then_moves_them_in_order() {
    let mut s = sim(&one_file_on("linux-6.12"));
    assert_eq!(s.kernel.profile.lru_add_batch, crate::swap::PAGEVEC_SIZE_6_10);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 30, ct);
    for i in 0..30 {
        let p = page_at(k, f, i);
        assert!(k.folio_in_lru_batch(p), "page {i} waits in the batch");
        assert_eq!(lru_of(k, p), None);
    }
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 0);
    assert_invariants(k);
    read_pages(k, f, 30, 1, ct);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 31, "the 31st add filled the batch");
    // lru_add_fn() in batch order: each at the head, so the first added is at the tail.
    let v = k.lruvec_idx(ct, 0);
    assert_eq!(k.lruvecs[v].tail(LruList::InactiveFile), Some(page_at(k, f, 0)));
    read_pages(k, f, 31, 5, ct);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 31);
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 36);
    assert!(!k.folio_in_lru_batch(page_at(k, f, 35)));
    assert_invariants(k);
}

/// The batch on every era, at its `PAGEVEC_SIZE` and moved as its `__lru_cache_add()` /
/// `folio_add_lru()` moves it: 6.1 and 6.6 (`folio_batch_add_and_move()`, `PAGEVEC_SIZE`
/// 15: the 15th add moves 15), 5.0 (`__lru_cache_add()`: "if (!pagevec_add(pvec, page) ||
/// PageCompound(page)) __pagevec_lru_add(pvec)", 15), 6.18 (31), and 4.4 and 3.13
/// (`__lru_cache_add()`: "if (!pagevec_space(pvec)) __pagevec_lru_add(pvec);
/// pagevec_add(pvec, page);", `PAGEVEC_SIZE` 14: the 14th add leaves 14 waiting, the 15th
/// moves those 14 and waits itself).
#[test]
fn lru_cache_add_batches_pagevec_size_pages_on_every_era() {
    for (profile, size, before) in [
        ("linux-6.18", 31, false),
        ("linux-6.6", 15, false),
        ("linux-6.1", 15, false),
        ("linux-5.17", 15, false),
        ("linux-5.0", 15, false),
        ("linux-4.4", 14, true),
        ("linux-4.3", 14, true),
        ("linux-3.13", 14, true),
    ] {
        let mut s = sim(&one_file_on(profile));
        assert_eq!(s.kernel.profile.lru_add_batch, size, "{profile}");
        let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
        let k = &mut s.kernel;
        read_pages(k, f, 0, size as u32 - 1, ct);
        assert_eq!(lru_size(k, ct, LruList::InactiveFile), 0, "{profile}: {} pages wait", size - 1);
        read_pages(k, f, size as u32 - 1, 1, ct);
        let (on_list, waiting) = if before { (0, size) } else { (size as u64, 0) };
        assert_eq!(lru_size(k, ct, LruList::InactiveFile), on_list, "{profile}: after the {size}th add");
        assert_eq!(k.lru_add_fbatches[0].nr as usize, waiting, "{profile}");
        read_pages(k, f, size as u32, 1, ct);
        let (on_list, waiting) = if before { (size as u64, 1) } else { (size as u64, 1) };
        assert_eq!(lru_size(k, ct, LruList::InactiveFile), on_list, "{profile}: after the next add");
        assert_eq!(k.lru_add_fbatches[0].nr as usize, waiting, "{profile}");
        assert!(k.folio_in_lru_batch(page_at(k, f, size as u32)), "{profile}: the newest page waits");
        assert_invariants(k);
        k.lru_add_drain();
        assert_eq!(lru_size(k, ct, LruList::InactiveFile), size as u64 + 1, "{profile}");
        assert_invariants(k);
    }
}

/// A page in two slots of the batches (which `folio_unbatch()` exists to prevent: the
/// kernel's batch holds the folio's reference, so a folio is in at most one) is caught by
/// `check_invariants()`, as is a slot holding a page that is not batched.
#[test]
fn a_page_in_two_batch_slots_fails_the_invariants() {
    let mut s = sim(&one_file_on("linux-6.1").replace("[machine]\n", "[machine]\ncpus = 2\n"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    assert_eq!(k.lru_add_fbatches.len(), 2, "a batch per CPU");
    read_pages(k, f, 0, 3, ct);
    assert_invariants(k);
    let p = page_at(k, f, 1);
    // Twice in this CPU's batch.
    let n = k.lru_add_fbatches[0].nr as usize;
    k.lru_add_fbatches[0].folios[n] = p;
    k.lru_add_fbatches[0].nr += 1;
    let err = k.check_invariants().expect_err("a page in two slots");
    assert!(err.contains("two lru_add batch slots"), "{err}");
    k.lru_add_fbatches[0].folios[n] = PageId::NIL;
    k.lru_add_fbatches[0].nr -= 1;
    assert_invariants(k);
    // In both CPUs' batches.
    k.lru_add_fbatches[1].folios[0] = p;
    k.lru_add_fbatches[1].nr = 1;
    let err = k.check_invariants().expect_err("a page in two CPUs' batches");
    assert!(err.contains("two lru_add batch slots"), "{err}");
    k.lru_add_fbatches[1].folios[0] = PageId::NIL;
    k.lru_add_fbatches[1].nr = 0;
    assert_invariants(k);
    // A slot holding a page that is no longer marked batched.
    k.pages[p].set_lru(0);
    let err = k.check_invariants().expect_err("a slot holding a page that is not batched");
    assert!(err.contains("not batched"), "{err}");
}

/// mm/swap.c (6.1, 6.12) `folio_mark_accessed()` of a folio off the LRU: "assume the page is
/// in a folio_batch, mark it active and it'll be moved to the active LRU on the next drain"
/// (`__lru_cache_activate_folio()`): the second access sets `PG_active` without
/// `folio_activate()` (no `pgactivate`), and `lru_add_fn()` puts the page on the active list.
#[test]
fn mark_accessed_of_a_batched_folio_6_12_activates_it_at_the_drain() {
    let mut s = sim(&one_file_on("linux-6.12"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 1, ct);
    let p = page_at(k, f, 0);
    assert!(k.folio_in_lru_batch(p) && k.pages[p].test(pg::REFERENCED));
    k.folio_mark_accessed(p);
    assert!(k.pages[p].test(pg::ACTIVE) && !k.pages[p].test(pg::REFERENCED));
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 0);
    assert_eq!(lru_of(k, p), None);
    k.lru_add_drain();
    assert_eq!(lru_of(k, p), Some(LruList::ActiveFile));
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 1);
    assert_invariants(k);
}

/// A page truncated while it sits in the batch (mm/truncate.c with mm/swap.c, 6.12): it
/// leaves the page cache and is freed; its slot in the batch is emptied but still counted
/// until the batch moves (the kernel's batch holds a reference), so its frame, reused and
/// batched again, is in one slot only; the move passes over the empty slot.
#[test]
fn a_folio_freed_in_the_batch_is_passed_over_when_the_batch_moves_6_12() {
    let mut s = sim(&one_file_on("linux-6.12"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4, ct);
    let p = page_at(k, f, 2);
    k.delete_from_page_cache(p);
    assert!(!k.folio_in_lru_batch(p));
    assert_eq!(k.lru_add_fbatches[0].nr, 4);
    assert_eq!(k.lru_add_fbatches[0].folios[2], PageId::NIL, "its slot emptied");
    assert_invariants(k);
    k.lru_add_drain();
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 3);
    assert_invariants(k);
}

/// mm/truncate.c (6.1) `mapping_evict_folio()`: "if (folio_ref_count(folio) >
/// folio_nr_pages(folio) + folio_has_private(folio) + 1) return 0;" - a clean page in a CPU's
/// lru_add batch, whose reference the batch holds, is not dropped by an invalidation (3.13:
/// `remove_mapping()`'s `page_freeze_refs(page, 2)` fails alike); mm/fadvise.c (6.1)
/// `generic_fadvise()` DONTNEED drains the running CPU's batch first ("lru_add_drain()") and,
/// pages having failed ("It is likely on the pagevec of a remote CPU"), every CPU's
/// (`lru_add_drain_all()`) before trying again: a page batched on the other CPU is dropped.
#[test]
fn a_batched_page_is_not_invalidated_until_fadvise_drains_every_cpu_6_1() {
    let mut s = sim(&one_file_on("linux-6.1").replace("[machine]\n", "[machine]\ncpus = 2\n"));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    k.pcp_ctx = 1;
    read_pages(k, f, 0, 3, ct);
    assert_eq!(k.lru_add_fbatches[1].nr, 3, "batched on CPU 1");
    k.pcp_ctx = 0;
    read_pages(k, f, 3, 2, ct);
    assert_eq!(k.lru_add_fbatches[0].nr, 2, "batched on CPU 0");
    // The invalidation alone drops nothing that is batched.
    let st = k.mapping_try_invalidate(f, 0, 4);
    assert_eq!((st.dropped, st.kept), (0, 5));
    assert_eq!(k.mappings[f.idx()].nrpages, 5);
    assert_invariants(k);
    // fadvise(DONTNEED): this CPU's batch drained, CPU 1's pages fail, then every CPU's.
    let st = k.generic_fadvise(f, 0, 4, crate::fadvise::Advice::DontNeed, ct);
    assert_eq!((st.dropped, st.kept), (5, 0));
    assert_eq!(k.mappings[f.idx()].nrpages, 0);
    assert_eq!((k.lru_add_fbatches[0].nr, k.lru_add_fbatches[1].nr), (0, 0));
    assert_invariants(k);
}

/// mm/page-writeback.c (6.1) `write_cache_pages()` and mm/filemap.c
/// `__filemap_fdatawait_range()` release their lookup batch with `pagevec_release()` ->
/// `__pagevec_release()`: "lru_add_drain()" once (3.13 alike; 6.10+ `writeback_iter()` with
/// `folio_batch_release()`): an fsync of a file with dirty pages puts the running CPU's
/// lru_add batch on the LRU; one of a clean file finds nothing to look up and drains nothing.
#[test]
fn fsync_of_a_dirty_file_drains_the_cpus_lru_add_batch_6_1() {
    let mut s = sim(&one_file_on("linux-6.1").replace("read_bw = \"1G\"", "read_bw = \"1G\"\nwrite_bw = \"1G\""));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 2, ct);
    k.vfs_fsync(f);
    assert_eq!(k.lru_add_fbatches[0].nr, 2, "a clean file: no lookup, no drain");
    k.generic_perform_write(f, 8192, 3 * 4096, ct).unwrap();
    assert_eq!(k.lru_add_fbatches[0].nr, 5);
    k.vfs_fsync(f);
    assert_eq!(k.lru_add_fbatches[0].nr, 0);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 5);
    assert_invariants(k);
}
