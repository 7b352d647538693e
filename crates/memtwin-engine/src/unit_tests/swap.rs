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
/// second access of every page: all of them move to the active list.
#[test]
fn a_file_read_twice_is_activated() {
    let mut s = sim(&one_file(
        r#"{ op = "read", file = "/f", bufsize = "128K" }, { op = "read", file = "/f", bufsize = "128K" }"#,
    ));
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    run(&mut s);
    let k = &s.kernel;
    assert_eq!(lru_size(k, ct, LruList::ActiveFile), 256);
    assert_eq!(lru_size(k, ct, LruList::InactiveFile), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 256);
    assert_eq!(k.vmstat.get(VmEvent::Pgactivate), 256);
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
/// `lru_add_drain()` moves a partial batch. linux-6.6 (batch not modelled) puts each page
/// straight on.
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

    let mut s = sim(&one_file_on("linux-6.6"));
    assert_eq!(s.kernel.profile.lru_add_batch, 0);
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 1, ct);
    assert_eq!(lru_of(k, page_at(k, f, 0)), Some(LruList::InactiveFile));
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
