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
