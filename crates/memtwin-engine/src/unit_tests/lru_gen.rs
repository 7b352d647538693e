//! The multi-generational LRU (mm/vmscan.c CONFIG_LRU_GEN, include/linux/mm_inline.h,
//! mm/swap.c folio_inc_refs(), mm/workingset.c lru_gen_eviction()/lru_gen_refault()), held to
//! Linux 6.1.

use super::*;
use crate::lru_gen::*;
use crate::memcontrol::MemcgEvent;
use crate::types::Nanos;
use crate::vmstat::VmEvent;

/// A 1 GiB machine on `profile` with the multi-generational LRU on, a memcg `ct` (limit
/// `limit`, or none), files `/a` (4 MiB) and `/b` (16 MiB).
fn setup(profile: &str, limit: &str) -> (Simulation, MemcgId, InodeId, InodeId) {
    let lim = if limit.is_empty() { String::new() } else { format!("\"memory.max\" = \"{limit}\"") };
    let s = sim(&format!(
        r#"
[scenario]
name = "lru-gen"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
lru_gen = true
[devices.sda]
read_bw = "1G"
[files."/a"]
size = "4M"
[files."/b"]
size = "16M"
[cgroups.ct]
{lim}
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let (ct, a, b) = (memcg(&s, "ct"), inode(&s, "/a"), inode(&s, "/b"));
    (s, ct, a, b)
}

/// A 1 GiB machine on `profile` with the multi-generational LRU on, `swap` of swap, a device
/// and memcg `ct` with an idle task.
fn swap_sim(profile: &str, swap: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "lru-gen-swap"
[machine]
ram = "1G"
swap = "{swap}"
[kernel]
profile = "{profile}"
cgroup = "v2"
lru_gen = true
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[cgroups.ct]
[tasks.t]
cgroup = "ct"
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ))
}

/// The generation (`folio_lru_gen()`) of a page on a generation list.
fn gen_of(k: &Kernel, p: PageId) -> usize {
    let l = k.pages[p].lru() as usize;
    assert!(l >= crate::mmzone::NR_LRU_LISTS, "page not on a generation list");
    list_gen(l)
}

/// include/linux/mm_inline.h 6.1 `lru_tier_from_refs()`: `order_base_2(refs + 1)`; refs N-1
/// for a page accessed N > 1 times, so 0 and 1 access share tier 0.
#[test]
fn lru_tier_from_refs_6_1_is_order_base_2_of_refs_plus_1() {
    assert_eq!([0, 1, 2, 3, 4].map(lru_tier_from_refs), [0, 1, 2, 2, 3]);
    assert_eq!(MAX_NR_TIERS, 4);
    assert_eq!(1u32 << LRU_REFS_WIDTH, 4, "refs saturate at BIT(LRU_REFS_WIDTH)");
}

/// mm/swap.c 6.1 `folio_mark_accessed()` -> `folio_inc_refs()` under lru_gen: PG_referenced,
/// then PG_workingset, then the LRU_REFS bits up to 3; the page never changes list.
#[test]
fn folio_inc_refs_6_1_counts_reads_into_tiers_without_moving_the_page() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    read_pages(k, a, 0, 1, ct);
    let p = page_at(k, a, 0);
    let list = k.pages[p].lru();
    let mut tiers = vec![lru_tier_from_refs(folio_lru_refs(&k.pages[p]))];
    for _ in 0..5 {
        read_pages(k, a, 0, 1, ct);
        tiers.push(lru_tier_from_refs(folio_lru_refs(&k.pages[p])));
        assert_eq!(k.pages[p].lru(), list, "a read moves no page between generations");
    }
    // 1 read: PG_referenced (tier 0); 2: +PG_workingset (refs 1, tier 1); 3, 4: refs 2, 3
    // (tier 2); 5, 6: refs 4 (tier 3, saturated).
    assert_eq!(tiers, vec![0, 1, 2, 2, 3, 3]);
    assert!(k.pages[p].test(pg::REFERENCED) && k.pages[p].test(pg::WORKINGSET));
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), 0, "no activation under lru_gen");
    assert_invariants(k);
}

/// include/linux/mm_inline.h 6.1 `lru_gen_add_folio()`: a page read into the page cache goes
/// to the second oldest generation (`min_seq + 1`) while there are more than MIN_NR_GENS,
/// else the oldest; a freshly faulted (active) page to the youngest; an anonymous page not in
/// swap cache to the second youngest; `folio_rotate_reclaimable()` (reclaiming) to the oldest.
#[test]
fn lru_gen_add_folio_6_1_places_pages_by_kind() {
    let mut g = LruGenStruct::default();
    g.init(0);
    assert_eq!((g.max_seq, g.min_seq), (MIN_NR_GENS + 1, [0, 0]), "lru_gen_init_lruvec()");
    let mut file = crate::mm_types::Page { mapping: InodeId(0), index: 0, memcg: MemcgId::ROOT, prev: PageId::NIL, next: PageId::NIL, flags: 0, lru_refs: 0, mapcount: 0 };
    // min_seq 0 + MIN_NR_GENS < max_seq 3: min_seq + 1.
    assert_eq!(lru_gen_add_folio(&g, &mut file, LruList::InactiveFile, false), gen_list(1, LRU_GEN_FILE));
    assert_eq!(lru_gen_add_folio(&g, &mut file, LruList::InactiveFile, true), gen_list(0, LRU_GEN_FILE));
    file.flags |= pg::ACTIVE;
    assert_eq!(lru_gen_add_folio(&g, &mut file, LruList::InactiveFile, false), gen_list(3, LRU_GEN_FILE));
    assert!(!file.test(pg::ACTIVE), "lru_gen_add_folio() clears PG_active");
    let mut anon = crate::mm_types::Page { flags: pg::ANON | pg::SWAPBACKED, ..file };
    assert_eq!(lru_gen_add_folio(&g, &mut anon, LruList::InactiveAnon, false), gen_list(2, LRU_GEN_ANON));
    anon.flags |= pg::SWAPCACHE | pg::RECLAIM | pg::WRITEBACK;
    assert_eq!(lru_gen_add_folio(&g, &mut anon, LruList::InactiveAnon, false), gen_list(2, LRU_GEN_ANON));
    // With only MIN_NR_GENS + 1 generations left of file (min_seq 1, max_seq 3): the oldest.
    g.min_seq[LRU_GEN_FILE] = 1;
    assert_eq!(lru_gen_add_folio(&g, &mut file, LruList::InactiveFile, false), gen_list(1, LRU_GEN_FILE));
    // The two youngest generations are "active" (lru_gen_is_active()).
    assert!(lru_gen_is_active(&g, 3) && lru_gen_is_active(&g, 2) && !lru_gen_is_active(&g, 1));
}

/// mm/vmscan.c 6.1 `positive_ctrl_err()`: true while the process variable has fewer than
/// MIN_LRU_BATCH refaults, or `pv.refaulted * (sp.total + MIN_LRU_BATCH) * sp.gain <=
/// (sp.refaulted + 1) * pv.total * pv.gain`.
#[test]
fn positive_ctrl_err_6_1() {
    let sp = CtrlPos { refaulted: 100, total: 1000, gain: 1 };
    assert!(positive_ctrl_err(&sp, &CtrlPos { refaulted: 63, total: 64, gain: 2 }), "fewer than MIN_LRU_BATCH refaults");
    // pv rate 64/100 vs sp 101/1064 with gain 2: 64 * 1064 * 1 = 68096 > 101 * 100 * 2 = 20200.
    assert!(!positive_ctrl_err(&sp, &CtrlPos { refaulted: 64, total: 100, gain: 2 }));
    // pv rate 64/2000: 68096 <= 101 * 2000 * 2 = 404000.
    assert!(positive_ctrl_err(&sp, &CtrlPos { refaulted: 64, total: 2000, gain: 2 }));
}

/// mm/vmscan.c 6.1 `get_tier_idx()` / `read_ctrl_pos()`: a tier whose refaults per
/// (evicted + protected) page exceed twice the first tier's is protected, and so are those
/// above it; with no refault history nothing is.
#[test]
fn get_tier_idx_6_1_protects_tiers_that_refault_more_than_tier_0() {
    let mut g = LruGenStruct::default();
    g.init(0);
    let f = LRU_GEN_FILE;
    assert_eq!(g.get_tier_idx(f), MAX_NR_TIERS - 1, "no history: evict every tier");
    g.evicted[f][0] = 10_000;
    g.refaulted[f][0] = 100;
    g.evicted[f][1] = 500;
    g.protected[f][0] = 500;
    g.refaulted[f][1] = 400; // 400/1000 against 101/10064
    assert_eq!(g.get_tier_idx(f), 0, "tier 1 (and above) protected");
    g.refaulted[f][1] = 10; // below MIN_LRU_BATCH: too few to judge
    assert_eq!(g.get_tier_idx(f), MAX_NR_TIERS - 1);
    // Tier 2 refaulting more, tier 1 not: tiers 0 and 1 evicted.
    g.evicted[f][2] = 100;
    g.refaulted[f][2] = 80;
    assert_eq!(g.get_tier_idx(f), 1);
    // read_ctrl_pos(): total of a tier above 0 counts the pages protected from it.
    assert_eq!(g.read_ctrl_pos(f, 1, 2), CtrlPos { refaulted: 10, total: 1000, gain: 2 });
}

/// mm/vmscan.c 6.1 `reset_ctrl_pos(carryover = true)` with NR_HIST_GENS 1: the averages
/// take half of (average + current), the current counters restart.
#[test]
fn reset_ctrl_pos_6_1_carries_half_into_the_averages() {
    let mut g = LruGenStruct::default();
    g.init(0);
    let f = LRU_GEN_FILE;
    g.avg_refaulted[f][1] = 10;
    g.refaulted[f][1] = 30;
    g.avg_total[f][1] = 100;
    g.evicted[f][1] = 50;
    g.protected[f][0] = 50;
    g.reset_ctrl_pos(f, false);
    assert_eq!(g.refaulted[f][1], 30, "inc_max_seq()'s reset keeps everything (NR_HIST_GENS 1)");
    g.reset_ctrl_pos(f, true);
    assert_eq!((g.avg_refaulted[f][1], g.avg_total[f][1]), (20, 100));
    assert_eq!((g.refaulted[f][1], g.evicted[f][1], g.protected[f][0]), (0, 0, 0));
}

/// 6.1 eviction under a memcg limit: a file read once keeps the window between MIN_NR_GENS
/// and MAX_NR_GENS; without aging (the second oldest generation stays big, the youngest
/// empty: `should_run_aging()` false) pages leave the oldest generation in FIFO order, each
/// with a shadow entry that `lru_gen_refault()` counts while `min_seq` has not moved.
#[test]
fn evict_folios_6_1_takes_the_oldest_generation_fifo_and_refaults_count() {
    let (mut s, ct, _, b) = setup("linux-6.1", "8M");
    let k = &mut s.kernel;
    for c in 0..8 {
        read_pages(k, b, c * 512, 512, ct); // 16M through an 8M limit, 2M a read()
    }
    let g = &k.lruvecs[k.lruvec_idx(ct, 0)].lrugen;
    let nr = g.nr_gens(LRU_GEN_FILE);
    assert!((MIN_NR_GENS..=MAX_NR_GENS).contains(&nr), "{nr} generations");
    let resident: Vec<u32> = (0..4096).filter(|&i| k.mappings[b.idx()].lookup(i).is_some()).collect();
    assert!(resident.len() > 1500 && resident.len() < 2048, "{} resident", resident.len());
    // FIFO: what survives is the end of the file.
    assert_eq!(*resident.last().unwrap(), 4095);
    assert!(resident.windows(2).all(|w| w[1] == w[0] + 1), "one contiguous tail");
    assert!(k.memcgs.events(ct, MemcgEvent::Pgsteal) >= 4096 - 2048);
    // Read the start again: those pages refault (same memcg, same min_seq: no aging ran).
    let before = k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile);
    read_pages(k, b, 0, 64, ct);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile) - before, 64);
    let g = &k.lruvecs[k.lruvec_idx(ct, 0)].lrugen;
    assert!(g.refaulted[LRU_GEN_FILE][0] >= 64, "refaults of tier 0 feed the PID controller");
    assert_invariants(k);
}

/// mm/vmscan.c 6.1 `sort_folio()`: with tier 1 refaulting far more than tier 0, a page read
/// twice (tier 1) met at the tail of the oldest generation is protected: moved to the next
/// generation (`folio_inc_gen()`, refs and PG_referenced/PG_workingset cleared) and counted in
/// `protected[]` and `workingset_activate_file`; a page read once is evicted.
#[test]
fn sort_folio_6_1_protects_a_tier_the_pid_controller_says_refaults() {
    let (mut s, ct, a, b) = setup("linux-6.1", "12M");
    let k = &mut s.kernel;
    read_pages(k, a, 0, 1024, ct);
    read_pages(k, a, 0, 1024, ct); // /a: tier 1
    let v = k.lruvec_idx(ct, 0);
    {
        let g = &mut k.lruvecs[v].lrugen;
        g.evicted[LRU_GEN_FILE][0] = 100_000;
        g.refaulted[LRU_GEN_FILE][0] = 10;
        g.evicted[LRU_GEN_FILE][1] = 1000;
        g.refaulted[LRU_GEN_FILE][1] = 900;
        assert_eq!(g.get_tier_idx(LRU_GEN_FILE), 0);
    }
    // /a sits at the tail of the second oldest generation, the one eviction starts on once the
    // empty oldest is retired. 2600 pages of /b (10.2M) bring the memcg over its 12M limit:
    // reclaim meets /a first.
    for c in 0..5 {
        read_pages(k, b, c * 520, 520, ct);
    }
    let oldest = k.lruvecs[v].lrugen.min_seq[LRU_GEN_FILE];
    assert!(k.memcgs.events(ct, MemcgEvent::Pgsteal) > 0, "reclaim ran");
    let kept = (0..1024).filter(|&i| k.mappings[a.idx()].lookup(i).is_some()).count();
    assert_eq!(kept, 1024, "every page of /a was protected");
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile), 1024);
    assert!(k.lruvecs[v].lrugen.protected[LRU_GEN_FILE][0] > 0 || k.lruvecs[v].lrugen.avg_total[LRU_GEN_FILE][1] > 0);
    let p = page_at(k, a, 0);
    assert!(!k.pages[p].test(pg::WORKINGSET) && k.pages[p].refs() == 0, "folio_inc_gen() clears the refs");
    assert_ne!(gen_of(k, p), lru_gen_from_seq(oldest), "moved out of the oldest generation");
    assert_invariants(k);
}

/// mm/workingset.c 6.1 `lru_gen_refault()`: a page evicted with refs >= 3 (read four or more
/// times) that refaults is a "stall": `workingset_restore_file`, and it comes back with its
/// refs saturated and PG_workingset (the top tier, always protected by `sort_folio()`).
#[test]
fn lru_gen_refault_6_1_restores_pages_read_four_times() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    for _ in 0..4 {
        read_pages(k, a, 0, 1, ct);
    }
    read_pages(k, a, 1, 1, ct);
    // Reclaim's isolation, after its lru_add_drain(): the pages onto their generation first.
    k.lru_add_drain();
    for i in 0..2 {
        let p = page_at(k, a, i);
        let v = k.folio_lruvec(p);
        k.lruvecs[v].unlink(&mut k.pages, &mut k.lru_stats, p);
        k.evict(p, ct);
    }
    let g = &k.lruvecs[k.lruvec_idx(ct, 0)].lrugen;
    // lru_gen_eviction(): evicted[tier] by the refs at eviction (refs 3: tier 2; refs 0: 0).
    assert_eq!((g.evicted[LRU_GEN_FILE][2], g.evicted[LRU_GEN_FILE][0]), (1, 1));
    read_pages(k, a, 0, 2, ct);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 2);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreFile), 1);
    let p = page_at(k, a, 0);
    // refs 3 + PG_workingset = BIT(LRU_REFS_WIDTH); the read that brought it in adds nothing
    // beyond saturation.
    assert_eq!(folio_lru_refs(&k.pages[p]), 1 << LRU_REFS_WIDTH);
    assert_invariants(k);
}

/// mm/workingset.c 6.1 `lru_gen_refault()`: once the lruvec's oldest generation has moved
/// on (`min_seq` advanced past the one the page was evicted from), a refault is not counted.
#[test]
fn lru_gen_refault_6_1_ignores_shadows_of_retired_generations() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    read_pages(k, a, 0, 1, ct);
    let p = page_at(k, a, 0);
    // Reclaim's isolation, after its lru_add_drain(): the page onto its generation first.
    k.lru_add_drain();
    let v = k.folio_lruvec(p);
    k.lruvecs[v].unlink(&mut k.pages, &mut k.lru_stats, p);
    k.evict(p, ct);
    k.lruvecs[v].lrugen.min_seq[LRU_GEN_FILE] += 1;
    k.lruvecs[v].lrugen.max_seq += 1;
    read_pages(k, a, 0, 1, ct);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 0);
}

/// mm/vmscan.c 6.1 `inc_max_seq()`: with MAX_NR_GENS generations of a type, the oldest is
/// retired first (`inc_min_seq()`: its pages move to the next generation); the new youngest
/// gets a timestamp.
#[test]
fn inc_max_seq_6_1_retires_the_oldest_at_max_nr_gens() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    read_pages(k, a, 0, 10, ct);
    k.lru_add_drain();
    let v = k.lruvec_idx(ct, 0);
    k.now += 5_000_000;
    // lru_gen_init_lruvec() leaves seqs 0..=3: already MAX_NR_GENS. Opening 4 retires 0
    // (empty); the file pages read in sit in 1 (min_seq + 1).
    assert_eq!(gen_of(k, page_at(k, a, 0)), 1);
    k.inc_max_seq(v, false);
    let g = &k.lruvecs[v].lrugen;
    assert_eq!((g.max_seq, g.min_seq[LRU_GEN_FILE]), (4, 1));
    assert_eq!(g.nr_gens(LRU_GEN_FILE), MAX_NR_GENS);
    assert_eq!(g.timestamps[lru_gen_from_seq(4)], k.now);
    // Opening 5 retires 1: its pages move to 2 (folio_inc_gen()).
    k.inc_max_seq(v, false);
    let g = &k.lruvecs[v].lrugen;
    assert_eq!((g.max_seq, g.min_seq[LRU_GEN_FILE]), (5, 2));
    // Anonymous generations without swap are retired without moving pages (min_seq only).
    assert_eq!(g.min_seq[LRU_GEN_ANON], 2);
    assert_eq!(gen_of(k, page_at(k, a, 0)), lru_gen_from_seq(2), "pages of the retired generation 1 moved to 2");
    assert_eq!(k.lruvecs[v].lists[gen_list(lru_gen_from_seq(2), LRU_GEN_FILE)].len, 10);
    assert_invariants(k);
}

/// Where lru_gen and the two lists differ most (the qemu61-lrugen-stream-wset recording): a
/// working set read twice survives a stream under the two lists (it is active), and is
/// evicted by the multi-generational LRU, whose PID controller has seen no refaults to
/// justify protecting tier 1.
#[test]
fn a_stream_evicts_the_working_set_under_lru_gen_but_not_under_the_two_lists() {
    let wset_kept = |lru_gen: bool| {
        let (mut s, ct, a, b) = setup("linux-6.1", "10M");
        let k = &mut s.kernel;
        if !lru_gen {
            // The same machine booted with lru_gen off.
            for v in &mut k.lruvecs {
                assert_eq!(v.lists.iter().skip(5).map(|l| l.len).sum::<u64>(), 0);
                v.lrugen.enabled = false;
            }
            k.profile.lru_gen = false;
        }
        read_pages(k, a, 0, 1024, ct);
        read_pages(k, a, 0, 1024, ct);
        for i in 0..4 {
            read_pages(k, b, i * 1024, 1024, ct);
        }
        assert_invariants(k);
        (0..1024).filter(|&i| k.mappings[a.idx()].lookup(i).is_some()).count()
    };
    assert_eq!(wset_kept(false), 1024);
    assert_eq!(wset_kept(true), 0);
}

/// `kernel.lru_gen` is a 6.1+ switch and `min_ttl_ms` needs it: both errors name the place.
#[test]
fn lru_gen_on_an_old_profile_is_a_scenario_error() {
    let doc = |prof: &str, extra: &str| {
        format!("[scenario]\nname = \"x\"\n[machine]\nram = \"1G\"\n[kernel]\nprofile = \"{prof}\"\n{extra}\n[tasks.t]\nops = [{{ op = \"sleep\", duration = \"1ms\" }}]\n")
    };
    let err = |t: String| Document::from_toml("s.toml", &t).unwrap().resolve(None, &[]).unwrap_err().to_string();
    let e = err(doc("linux-5.0", "lru_gen = true"));
    assert!(e.contains("s.toml:7:") && e.contains("came in Linux 6.1"), "{e}");
    let e = err(doc("linux-6.1", "min_ttl_ms = 1000"));
    assert!(e.contains("s.toml:7:") && e.contains("lru_gen = true"), "{e}");
    let e = err(doc("linux-6.1", "lru_gen = \"yes\""));
    assert!(e.contains("true or false"), "{e}");
    let ok = Document::from_toml("s.toml", &doc("linux-6.1", "lru_gen = true\nmin_ttl_ms = 1000")).unwrap().resolve(None, &[]).unwrap();
    assert!(ok.profile.lru_gen && ok.profile.lru_gen_min_ttl_ms == 1000);
    assert!(crate::profile::profile("linux-6.6-lru_gen").unwrap().lru_gen);
}

/// Seed 000 (`recharge_on_pagecache_get`) under lru_gen: limit reclaim uncharges the clean
/// page it isolated from the oldest generation and puts it on the root memcg's lruvec, in the
/// generation `lru_gen_add_folio()` gives a page there (not active: the root's second oldest,
/// or its oldest), where global reclaim may evict it.
#[test]
fn seed000_root_putback_under_lru_gen_lands_in_the_roots_old_generations() {
    let mut s = sim(
        r#"
[scenario]
name = "seed000-lru-gen"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v1"
lru_gen = true
[kernel.policies]
recharge_on_pagecache_get = true
[devices.sda]
read_bw = "1G"
[files."/f"]
size = "16M"
[cgroups.ct]
"memory.limit_in_bytes" = "8M"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#,
    );
    let (ct, f) = (memcg(&s, "ct"), inode(&s, "/f"));
    let k = &mut s.kernel;
    read_pages(k, f, 0, 4096, ct);
    let root_v = k.lruvec_idx(MemcgId::ROOT, 0);
    let g = k.lruvecs[root_v].lrugen.clone();
    let on_root = (0..4096).filter_map(|i| k.mappings[f.idx()].lookup(i)).filter(|&p| k.pages[p].memcg == MemcgId::NONE).collect::<Vec<_>>();
    assert!(on_root.len() > 1500, "{} pages put back on the root", on_root.len());
    for &p in &on_root {
        assert_eq!(k.folio_lruvec(p), root_v);
        let gen = gen_of(k, p);
        assert!(gen == lru_gen_from_seq(g.min_seq[LRU_GEN_FILE]) || gen == lru_gen_from_seq(g.min_seq[LRU_GEN_FILE] + 1));
    }
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), 0);
    assert_invariants(k);
}

/// Anonymous memory larger than its memcg's limit, and a file, with swap, on the
/// multi-generational LRU (6.1 `isolate_folios()`: with swap, `get_type_to_scan()` weighs anon
/// against file by swappiness and refaults): anon goes to swap, the file is reclaimed, and
/// faulting anon back reads it from swap. The generation window stays within
/// MIN_NR_GENS..MAX_NR_GENS for both types.
#[test]
fn anon_and_file_with_swap_under_a_memcg_limit_on_lru_gen() {
    let mut s = sim(r#"
[scenario]
name = "lru-gen-swap"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[machine]
ram = "256M"
swap = "256M"
[devices.sda]
read_bw = "200M"
[files."/f"]
size = "32M"
[cgroups.ct]
"memory.max" = "48M"
[tasks.t]
cgroup = "ct"
ops = [
  { op = "mmap", name = "a", size = "56M", step = "fill" },
  { op = "touch", name = "a", step = "fill" },
  { op = "read", file = "/f", bufsize = "128K", step = "read" },
  { op = "read", file = "/f", bufsize = "128K", step = "read again" },
  { op = "touch", name = "a", step = "touch again" },
  { op = "munmap", name = "a", step = "unmap" },
]
"#);
    let ct = memcg(&s, "ct");
    run_with(&mut s, |s| {
        assert_invariants(&s.kernel);
        let g = &s.kernel.lruvecs[s.kernel.lruvec_idx(ct, 0)].lrugen;
        for ty in [LRU_GEN_ANON, LRU_GEN_FILE] {
            assert!((MIN_NR_GENS..=MAX_NR_GENS).contains(&g.nr_gens(ty)), "type {ty}: {} generations", g.nr_gens(ty));
        }
    });
    let k = &s.kernel;
    assert!(k.vmstat.get(crate::vmstat::VmEvent::Pswpout) > 0, "anon went to swap");
    assert!(k.vmstat.get(crate::vmstat::VmEvent::Pswpin) > 0, "and came back");
    assert!(k.memcgs.events(ct, MemcgEvent::Pgsteal) > 0);
    // 6.1's per-CPU swap slots caches (swap_slots.rs) still hold up to 64 freed and 64 unused
    // slots a CPU, counted in use (nr_swap_pages) as the kernel counts them.
    assert_eq!(k.swap_usage().1, k.swap_slots.held(), "munmap freed every slot but those the slots caches hold");
    assert!(k.memcgs.get(ct).counter.usage <= 48 << 8);
}

/// fadvise(POSIX_FADV_DONTNEED) on the multi-generational LRU: clean pages are dropped
/// (`invalidate_mapping_pages()`), and dirty ones it cannot drop are deactivated
/// (`deactivate_file_folio()` -> `lru_deactivate_file()`: off their generation, back with
/// PG_reclaim), never left with PG_active on a generation list.
#[test]
fn fadvise_dontneed_on_lru_gen_drops_clean_pages_and_keeps_dirty_ones_listed() {
    let mut s = sim(r#"
[scenario]
name = "lru-gen-fadvise"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
write_bw = "1M"
[files."/r"]
size = "8M"
[files."/w"]
size = "0"
[cgroups.ct]
[tasks.t]
cgroup = "ct"
ops = [
  { op = "read", file = "/r", bufsize = "128K", step = "read" },
  { op = "write", file = "/w", length = "4M", bufsize = "128K", step = "write" },
  { op = "fadvise", path = "/r", advice = "dontneed", step = "drop r" },
  { op = "fadvise", path = "/w", advice = "dontneed", step = "drop w" },
]
"#);
    run_with(&mut s, |s| assert_invariants(&s.kernel));
    let (r, w) = (inode(&s, "/r"), inode(&s, "/w"));
    let k = &s.kernel;
    assert_eq!(k.mappings[r.idx()].nrpages, 0, "clean pages dropped");
    let dirty_left = k.mappings[w.idx()].nrpages;
    for i in 0..1024 {
        if let Some(p) = k.mappings[w.idx()].lookup(i) {
            assert!(k.pages[p].test(pg::LRU) && !k.pages[p].test(pg::ACTIVE));
        }
    }
    assert!(dirty_left <= 1024);
}



/// mm/vmscan.c 6.1 `lru_gen_age_node()` / `age_lruvec()` with `min_ttl_ms`: kswapd does not age
/// a memcg whose oldest file generation is younger than min_ttl (`time_is_after_jiffies(birth +
/// min_ttl)`), and when no memcg could be aged 6.1 invokes the OOM killer (`out_of_memory()`,
/// counted in `min_ttl_ooms`; with no task to kill it kills nobody); once the generation is old
/// enough, it ages as without the setting.
#[test]
fn lru_gen_age_node_6_1_leaves_memcgs_younger_than_min_ttl_alone() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    k.profile.lru_gen_min_ttl_ms = 1000;
    read_pages(k, a, 0, 64, ct);
    let v = k.lruvec_idx(ct, 0);
    // One aging: the oldest file generation is now generation 1, born when ct was made.
    k.inc_max_seq(v, false);
    let birth = k.lruvecs[v].lrugen.timestamps[lru_gen_from_seq(k.lruvecs[v].lrugen.min_seq[LRU_GEN_FILE])];
    k.now = birth + 500_000_000; // 0.5 s: younger than min_ttl
    let max_seq = k.lruvecs[v].lrugen.max_seq;
    let sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, true);
    k.nodes[0].lru_gen_memcgs_need_aging = true;
    k.lru_gen_age_node(0, &sc);
    assert_eq!(k.lruvecs[v].lrugen.max_seq, max_seq, "not aged");
    assert!(k.lruvecs[v].lrugen.min_ttl_skips >= 1);
    let root = k.lruvec_idx(MemcgId::ROOT, 0);
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 1, "every memcg too young: 6.1 invokes the OOM killer");
    k.now = birth + 1_500_000_000;
    k.lru_gen_age_node(0, &sc);
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 1, "old enough: age_lruvec() succeeds, no OOM");
}

/// mm/vmscan.c 6.1 `lru_gen_age_node()`: `sc->memcgs_need_aging` clear (a new
/// `balance_pgdat()`, or an eviction that reclaimed `MIN_LRU_BATCH` without needing aging)
/// makes it return at once, setting the flag, with no aging and no OOM kill even when every
/// memcg is younger than min_ttl; `age_lruvec()` below `DEF_PRIORITY` does not count a lruvec
/// whose size at that priority is 0 ("likely too small to be helpful"); and an empty memcg is
/// below min (`mem_cgroup_below_min()`: emin 0 >= usage 0), so it is not aged.
#[test]
fn lru_gen_age_node_6_1_memcgs_need_aging_and_the_priority_gate() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    k.profile.lru_gen_min_ttl_ms = 1000;
    read_pages(k, a, 0, 64, ct);
    let root = k.lruvec_idx(MemcgId::ROOT, 0);
    let v = k.lruvec_idx(ct, 0);
    k.now = 2_000_000_000; // every generation is 2 s old: older than min_ttl
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, true);
    assert!(!k.nodes[0].lru_gen_memcgs_need_aging, "a new balance_pgdat() starts clear");
    k.now += 1;
    let before = k.lruvecs[v].lrugen.min_ttl_skips;
    // Make ct's oldest generation young: the gate alone decides.
    k.lruvecs[v].lrugen.timestamps = [k.now; 4];
    k.lruvecs[root].lrugen.timestamps = [k.now; 4];
    k.lru_gen_age_node(0, &sc);
    assert!(k.nodes[0].lru_gen_memcgs_need_aging, "the skip sets the flag");
    assert_eq!(k.lruvecs[v].lrugen.min_ttl_skips, before, "skipped: no lruvec looked at");
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 0, "skipped: no OOM");
    // Old generations again, and priority 1: ct's 64 pages >> 1 = 32 pages count, the root's
    // and the empty memcgs' 0 do not; at priority 11, 64 >> 11 = 0 does not either.
    k.lruvecs[v].lrugen.timestamps = [0; 4];
    k.lruvecs[root].lrugen.timestamps = [0; 4];
    sc.priority = 1;
    k.lru_gen_age_node(0, &sc);
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 0, "ct is old enough and sizable at priority 1");
    sc.priority = 11;
    k.lru_gen_age_node(0, &sc);
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 1, "at priority 11 no lruvec is sizable: OOM");
    sc.priority = crate::vmscan::DEF_PRIORITY;
    k.lru_gen_age_node(0, &sc);
    assert_eq!(k.lruvecs[root].lrugen.min_ttl_ooms, 1, "at DEF_PRIORITY size does not matter");
}

/// mm/oom_kill.c 6.1 `select_bad_process()` / `oom_badness()`: the task whose RSS (anonymous,
/// file-mapped), swap entries and page-table pages add up to most is chosen, the later task on
/// a tie; a task that exited (off the mm lists) is not a candidate; while a chosen victim has
/// not exited, no other is chosen (`tsk_is_oom_victim()`: abort).
#[test]
fn select_bad_process_6_1_chooses_by_oom_badness() {
    let mut s = sim(r#"
[scenario]
name = "oom-badness"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[cgroups.a]
[cgroups.b]
[tasks.small]
cgroup = "a"
ops = [{ op = "mmap", name = "m", size = "8M" }, { op = "touch", name = "m" }, { op = "sleep", duration = "10s" }]
[tasks.big]
cgroup = "b"
ops = [{ op = "mmap", name = "m", size = "24M" }, { op = "touch", name = "m" }, { op = "sleep", duration = "10s" }]
[tasks.tie]
cgroup = "a"
ops = [{ op = "mmap", name = "m", size = "24M" }, { op = "touch", name = "m" }, { op = "sleep", duration = "10s" }]
"#);
    // Run until every task sleeps (its mapping touched).
    while s.steps_done() < 6 {
        assert!(s.step());
    }
    let k = &mut s.kernel;
    // 8 MiB = 2048 pages plus 4 page tables (one per 2 MiB); 24 MiB = 6144 plus 12.
    assert_eq!(k.oom_badness(0), 2048 + 4);
    assert_eq!(k.oom_badness(1), 6144 + 12);
    assert_eq!(k.oom_badness(2), 6144 + 12);
    assert_eq!(k.select_bad_process(), Some(2), "a tie goes to the later task");
    k.task_exit_mm(2);
    assert_eq!(k.select_bad_process(), Some(1));
    assert!(k.out_of_memory());
    assert_eq!(k.oom_victim, Some(1));
    assert_eq!(k.select_bad_process(), None, "a victim that has not exited blocks another choice");
    assert!(!k.out_of_memory());
}

/// The min_ttl_ms OOM kill carried out (mm/vmscan.c 6.1 `lru_gen_age_node()` ->
/// `out_of_memory()`): a task streaming through a mapped file faster than min_ttl_ms (its
/// faults put pages in the youngest generation, so kswapd must age, and every generation
/// becomes younger than min_ttl) makes kswapd's reclaim fall below `DEF_PRIORITY`, where the
/// idle memcg's anonymous memory (no swap) does not count; the OOM killer kills the task with
/// the most memory, the streamer itself (its mapped pages are RSS), not the idle hog: its step
/// ends `oom_killed`, /proc/vmstat and its memcg count one `oom_kill`, and its mapping is gone.
/// Without min_ttl_ms, or with a stream slower than it, nobody is killed.
#[test]
fn min_ttl_ms_6_1_oom_kills_the_largest_task_when_the_stream_outruns_it() {
    let scn = |min_ttl: u64, read_bw: &str| {
        format!(
            r#"
[scenario]
name = "min-ttl"
[machine]
ram = "256M"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
min_ttl_ms = {min_ttl}
[devices.sda]
read_bw = "{read_bw}"
[files."/big"]
size = "640M"
[cgroups.hog]
[cgroups.io]
[tasks.hog]
cgroup = "hog"
ops = [
  {{ op = "mmap", name = "m", size = "64M", step = "fill" }},
  {{ op = "touch", name = "m", step = "fill" }},
  {{ op = "sleep", duration = "60s", step = "idle" }},
]
[tasks.reader]
cgroup = "io"
ops = [
  {{ op = "sleep", duration = "1s" }},
  {{ op = "mmap", name = "f", file = "/big", shared = true, advice = "normal", step = "stream" }},
  {{ op = "touch", name = "f", access = "read", step = "stream" }},
]
"#
        )
    };
    let metric = task_metric;
    let run_it = |min_ttl, bw| {
        let mut s = sim(&scn(min_ttl, bw));
        // The kill (exit_mmap() of the victim) keeps pages and charges conserved.
        let mut n = 0u64;
        while s.step() {
            n += 1;
            if let Err(e) = s.kernel.check_invariants() {
                panic!("step {n} (min_ttl {min_ttl}, {bw}) victim {:?} now {}: {e}", s.kernel.oom_victim, s.kernel.now);
            }
        }
        assert_invariants(&s.kernel);
        s.run(&mut |_, _| true).expect("runs")
    };
    let killed = run_it(1000, "2G");
    assert_eq!(metric(&killed, "reader", "stream", "oom_killed"), 1.0, "the streamer is the victim");
    assert_eq!(metric(&killed, "reader", "stream", "vmstat.oom_kill"), 1.0);
    assert_eq!(metric(&killed, "reader", "stream", "memcg.events.oom_kill"), 1.0);
    assert!(metric(&killed, "reader", "stream", "memcg.file_mapped_bytes") == 0.0, "its mapping is gone");
    assert_eq!(metric(&killed, "hog", "idle", "oom_killed"), 0.0);
    assert_eq!(metric(&killed, "hog", "idle", "memcg.anon_bytes"), 64.0 * 1048576.0, "the hog keeps its memory");
    for (ttl, bw) in [(0, "2G"), (1000, "40M")] {
        let r = run_it(ttl, bw);
        assert_eq!(metric(&r, "reader", "stream", "oom_killed"), 0.0, "min_ttl_ms {ttl} at {bw}/s");
        assert_eq!(metric(&r, "hog", "idle", "vmstat.oom_kill"), 0.0, "min_ttl_ms {ttl} at {bw}/s");
        assert!(metric(&r, "reader", "stream", "vmstat.pgsteal_kswapd") > 0.0, "kswapd reclaimed");
    }
}

/// memory.low under the multi-generational LRU: `shrink_node_memcgs()` (shared with the two
/// lists) skips a memcg below its protection before `lru_gen_shrink_lruvec()` is reached
/// (6.1 `get_nr_to_scan()` returns 0 for it too), so a sibling's reads under the parent's
/// limit take the unprotected memcg's pages only.
#[test]
fn memory_low_protects_a_memcg_under_lru_gen() {
    let mut s = sim(r#"
[scenario]
name = "lru-gen-low"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/p"]
size = "12M"
[files."/u"]
size = "12M"
[files."/x"]
size = "16M"
[cgroups.P]
"memory.max" = "32M"
[cgroups."P/prot"]
"memory.low" = "16M"
[cgroups."P/unprot"]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (prot, unprot) = (memcg(&s, "P/prot"), memcg(&s, "P/unprot"));
    let (p, u, x) = (inode(&s, "/p"), inode(&s, "/u"), inode(&s, "/x"));
    let k = &mut s.kernel;
    for c in 0..6 {
        read_pages(k, p, c * 512, 512, prot);
        read_pages(k, u, c * 512, 512, unprot);
    }
    for c in 0..8 {
        read_pages(k, x, c * 512, 512, unprot);
    }
    assert_eq!(k.mappings[p.idx()].nrpages, 3072, "the protected memcg kept all of /p");
    assert_eq!(k.memcgs.events(prot, MemcgEvent::Pgsteal), 0);
    assert!(k.memcgs.events(unprot, MemcgEvent::Pgsteal) > 0);
    assert_invariants(k);
}

/// A shared mapping touched between streams read through the same memcg stays resident under
/// lru_gen, with no activation counted (recorded: qemu61-lrugen-mmap-hot, the same workload:
/// pgactivate 0, pgscan/pgsteal 64 in the first stream). mm/swap.c 6.1 `folio_add_lru()`: pages
/// a fault brings in start in the youngest generation (`lru_gen_in_fault()`); mm/vmscan.c 6.1
/// `try_to_inc_max_seq()`: the aging's page-table walk (`walk_pte_range()`) moves pages with
/// young PTEs to the generation being closed, so the streams' pages are evicted first. Before
/// these, the engine re-read the whole mapping after every stream.
#[test]
fn mapped_pages_6_1_stay_through_streams_by_fault_activation_and_the_walk() {
    let touch = r#"{ op = "touch", name = "hot", access = "read" },"#;
    let scenario = format!(
            r#"
[scenario]
name = "mmap-hot"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[devices.sda]
read_bw = "1G"
[files."/hot"]
size = "16M"
[files."/s1"]
size = "24M"
[files."/s2"]
size = "24M"
[files."/s3"]
size = "24M"
[cgroups.ct]
"memory.max" = "40M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "mmap", name = "hot", file = "/hot", shared = true }},
  {{ op = "touch", name = "hot", access = "read" }},
  {{ op = "read", file = "/s1", bufsize = "128K" }}, {touch}
  {{ op = "read", file = "/s2", bufsize = "128K" }}, {touch}
  {{ op = "read", file = "/s3", bufsize = "128K" }}, {touch}
]
"#
    );
    let mut s = sim(&scenario);
    let (hot, ct) = (inode(&s, "/hot"), memcg(&s, "ct"));
    let mut kept = vec![];
    run_with(&mut s, |s| {
        kept.push((0..4096).filter(|&i| s.kernel.mappings[hot.idx()].lookup(i).is_some()).count());
        assert_invariants(&s.kernel);
    });
    // Every step after the first touch completed (a step is a quantum of 512 faults here).
    let first_full = kept.iter().position(|&n| n == 4096).expect("the mapping was faulted in");
    assert!(kept[first_full..].iter().all(|&n| n == 4096), "touched between streams: {kept:?}");
    assert_eq!(s.kernel.memcgs.events(ct, MemcgEvent::Pgactivate), 0, "no activation, as recorded");
}

/// mm/vmscan.c 6.1 `iterate_mm_list()` + `walk_pte_range()`: the aging walks the mms on the
/// memcg's list (the first iteration with `force_scan`), clears young PTEs and moves their
/// pages to the generation being closed (`max_seq`'s), leaving pages without a young PTE
/// where they are; a PMD with at least one young PTE per cache line enters the next
/// generation's Bloom filter, and the next walk (not forced, the task has not run) skips
/// the mm (`should_skip_mm()`: its bitmap bit is clear).
#[test]
fn aging_walk_6_1_promotes_pages_with_young_ptes() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    k.lru_gen_add_mm(0, ct);
    k.cur_mm = 0;
    k.lru_gen_use_mm();
    let vma = k.do_mmap_file(a, 0, 1024, ct, true, false);
    for i in 0..1024 {
        k.handle_mm_fault_file(vma, i, false).unwrap();
    }
    k.lru_add_drain();
    let v = k.folio_lruvec(page_at(k, a, 0));
    // Fault-time pages start in the youngest generation (lru_gen_in_fault()).
    let youngest = lru_gen_from_seq(k.lruvecs[v].lrugen.max_seq);
    assert!((0..1024).all(|i| gen_of(k, page_at(k, a, i)) == youngest));
    // Spend the accessed bits of the second half, age twice without walking.
    for i in 512..1024u32 {
        k.vmas[vma.0 as usize].file.as_mut().unwrap().set_young(i, false);
    }
    k.inc_max_seq(v, false);
    k.inc_max_seq(v, false);
    let before: Vec<usize> = (0..1024).map(|i| gen_of(k, page_at(k, a, i))).collect();
    let max_seq = k.lruvecs[v].lrugen.max_seq;
    k.lru_gen_walk_mms(v, max_seq, false);
    let closing = lru_gen_from_seq(max_seq);
    for i in 0..1024u32 {
        let g = gen_of(k, page_at(k, a, i));
        if i < 512 {
            assert_eq!(g, closing, "page {i} (young PTE) moved to max_seq's generation");
            assert!(!k.vmas[vma.0 as usize].file.as_ref().unwrap().young(i));
        } else {
            assert_eq!(g, before[i as usize], "page {i} (old PTE) left alone");
        }
    }
    assert!(k.test_bloom_filter(v, max_seq + 1, vma, 0), "the young PMD carried over");
    assert!(!k.test_bloom_filter(v, max_seq + 1, vma, 1), "the old PMD did not");
    assert_eq!(k.lruvecs[v].lrugen.mm_tail, crate::lru_gen::MmTail::End);
    // Young again, but the task has not run since: the next walk skips the mm.
    for i in 0..512u32 {
        k.vmas[vma.0 as usize].file.as_mut().unwrap().set_young(i, true);
    }
    k.inc_max_seq(v, false);
    let max_seq = k.lruvecs[v].lrugen.max_seq;
    k.lru_gen_walk_mms(v, max_seq, false);
    assert!(k.vmas[vma.0 as usize].file.as_ref().unwrap().young(0), "skipped: no PTE cleared");
    assert_invariants(k);
}

/// mm/vmscan.c 6.1 `should_skip_vma()` + `walk_pte_range()` / `walk_pmd_range()` over an
/// anonymous VMA: with a swap area (`walk->can_swap`) the aging walks anonymous memory as it
/// walks file mappings, moving the pages with young PTEs to the generation being closed and a
/// PMD-mapped huge page as one folio (`walk_pmd_range_locked()`); without one the VMA is
/// skipped and its accessed bits kept.
#[test]
fn aging_walk_6_1_walks_anonymous_vmas_when_anon_can_be_swapped() {
    for thp in [false, true] {
        let mut s = sim(&format!(
            r#"
[scenario]
name = "lru-gen-anon-walk"
[machine]
ram = "1G"
swap = "64M"
swap_device = "sda"
[devices.sda]
read_bw = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
thp = "{}"
[cgroups.ct]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#,
            if thp { "always" } else { "never" }
        ));
        let ct = memcg(&s, "ct");
        let k = &mut s.kernel;
        k.lru_gen_add_mm(0, ct);
        k.cur_mm = 0;
        k.lru_gen_use_mm();
        let vma = k.do_mmap_anon(1024, ct);
        for i in 0..1024 {
            k.handle_mm_fault(vma, i).unwrap();
        }
        let vi = vma.0 as usize;
        let page = |k: &Kernel, i: u32| k.vmas[vi].pages[i as usize];
        let v = k.folio_lruvec(page(k, 0));
        // Spend the accessed bits of the second PMD, age twice without walking.
        for i in 512..1024u32 {
            k.vmas[vi].test_and_clear_young(i);
        }
        k.inc_max_seq(v, true);
        k.inc_max_seq(v, true);
        let heads: Vec<u32> = if thp { vec![0, 512] } else { (0..1024).collect() };
        let before: Vec<usize> = heads.iter().map(|&i| gen_of(k, page(k, i))).collect();
        let max_seq = k.lruvecs[v].lrugen.max_seq;
        // Without swap (can_swap false) should_skip_vma() skips it.
        k.lru_gen_walk_mms(v, max_seq, false);
        assert!(k.vmas[vi].pte_young(0), "thp {thp}: skipped without swap, its accessed bits kept");
        assert_eq!(heads.iter().map(|&i| gen_of(k, page(k, i))).collect::<Vec<_>>(), before);
        k.lruvecs[v].lrugen.mm_tail = crate::lru_gen::MmTail::Null; // force_scan again
        k.lru_gen_walk_mms(v, max_seq, true);
        let closing = lru_gen_from_seq(max_seq);
        for (n, &i) in heads.iter().enumerate() {
            let g = gen_of(k, page(k, i));
            if i < 512 {
                assert_eq!(g, closing, "thp {thp}: page {i} (young) moved to max_seq's generation");
                assert!(!k.vmas[vi].pte_young(i));
            } else {
                assert_eq!(g, before[n], "thp {thp}: page {i} (old) left alone");
            }
        }
        assert_invariants(k);
    }
}

/// mm/vmscan.c 6.1 `lru_gen_look_around()` (from `folio_referenced_one()` for a young PTE):
/// the PTEs of the page's PMD, at most MIN_LRU_BATCH (64) centred on it, are scanned; the
/// young ones are cleared and their pages promoted to the youngest generation, the others left
/// where they are.
#[test]
fn look_around_6_1_promotes_the_young_ptes_around_a_referenced_page() {
    let (mut s, ct, a, _) = setup("linux-6.1", "");
    let k = &mut s.kernel;
    let vma = k.do_mmap_file(a, 0, 1024, ct, true, false);
    for i in 0..1024 {
        k.handle_mm_fault_file(vma, i, false).unwrap();
    }
    let v = k.folio_lruvec(page_at(k, a, 0));
    // Age the pages into the oldest generation without a walk (their PTEs stay young).
    k.inc_max_seq(v, false);
    k.inc_max_seq(v, false);
    let oldest = lru_gen_from_seq(k.lruvecs[v].lrugen.min_seq[LRU_GEN_FILE]);
    assert!((0..1024).all(|i| gen_of(k, page_at(k, a, i)) != lru_gen_from_seq(k.lruvecs[v].lrugen.max_seq)));
    let before: Vec<usize> = (0..1024).map(|i| gen_of(k, page_at(k, a, i))).collect();
    let young = k.lru_gen_look_around(vma, 100, page_at(k, a, 100));
    assert_eq!(young, 64, "MIN_LRU_BATCH PTEs around page 100: 68..132");
    let youngest = lru_gen_from_seq(k.lruvecs[v].lrugen.max_seq);
    for i in 0..1024u32 {
        let in_window = (68..132).contains(&i);
        let f = k.vmas[vma.0 as usize].file.as_ref().unwrap();
        assert_eq!(f.young(i), !in_window, "page {i}'s PTE");
        let g = gen_of(k, page_at(k, a, i));
        if in_window {
            assert_eq!(g, youngest, "page {i} promoted");
        } else {
            assert_eq!(g, before[i as usize], "page {i} left alone");
        }
    }
    let _ = oldest;
    // Near the PMD's start the window is its first 64 PTEs (0..64), all still young.
    assert_eq!(k.lru_gen_look_around(vma, 3, page_at(k, a, 3)), 64);
    assert!((64..68).all(|i| k.vmas[vma.0 as usize].file.as_ref().unwrap().young(i)), "64..68 outside both windows");
    assert_invariants(k);
}

/// mm/memory.c 6.1 `handle_mm_fault()` -> `lru_gen_enter_fault()` and mm/swap.c 6.1
/// `folio_add_lru()`: during a fault of a VMA that is neither `VM_SEQ_READ` nor `VM_RAND_READ`
/// every page added to the LRU is `PG_active`, so `lru_gen_add_folio()` puts it in the youngest
/// generation - a new anonymous page (`do_anonymous_page()`, one at a time or in a run) and a
/// page read back from swap with its readahead (`__read_swap_cache_async()`). Not in the
/// second youngest, where an inactive anonymous page would go. And mm/workingset.c 6.1
/// `lru_gen_refault()` of an anonymous page: `workingset_refault_anon`, and within a fault
/// (`lru_gen_in_fault()`) a stall: `workingset_restore_anon`, refs bits full.
#[test]
fn anon_fault_and_swap_in_6_1_add_pages_to_the_youngest_generation() {
    let mut s = sim(r#"
[scenario]
name = "lru-gen-anon-fault"
[machine]
ram = "256M"
swap = "64M"
swap_device = "sda"
[devices.sda]
read_bw = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
thp = "never"
[cgroups.ct]
"memory.max" = "4M"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(2048, ct);
    let vi = vma.0 as usize;
    let youngest = |k: &Kernel| lru_gen_from_seq(k.lruvecs[k.lruvec_idx(ct, 0)].lrugen.max_seq);
    // One fault at a time, then the run of faults handle_mm_fault_run() takes at once.
    // (Each new page waits in the CPU's lru_add batch with PG_active; the drain puts it in the
    // youngest generation, no aging having run meanwhile.)
    for i in 0..16 {
        k.handle_mm_fault(vma, i).unwrap();
        k.lru_add_drain();
        assert_eq!(gen_of(k, k.vmas[vi].pages[i as usize]), youngest(k), "page {i}");
    }
    let mut i = 16;
    while i < 512 {
        i = k.handle_mm_fault_run(vma, i, 512).unwrap();
    }
    k.lru_add_drain();
    for i in 16..512usize {
        assert_eq!(gen_of(k, k.vmas[vi].pages[i]), youngest(k), "page {i} of a run");
    }
    assert!(!k.lru_gen_in_fault, "lru_gen_exit_fault()");
    // Fill past memory.max: reclaim swaps the oldest pages out.
    for i in 512..2048 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    assert!(k.vmstat.get(crate::vmstat::VmEvent::Pswpout) > 0);
    let swapped = (0..2048usize).find(|&i| k.vmas[vi].pages[i] == PageId::NIL).expect("a page was swapped out");
    // The swap-cache pages of the slots after `from`, not mapped yet (readahead).
    let cached = |k: &Kernel, from: usize| -> Vec<PageId> {
        (from..2048)
            .filter_map(|i| {
                let slot = k.vmas[vi].swap.get(i).copied().unwrap_or(crate::swapfile::NO_SLOT);
                if slot == crate::swapfile::NO_SLOT {
                    return None;
                }
                let p = k.swap.as_ref().unwrap().cache_get(slot);
                (p != PageId::NIL).then_some(p)
            })
            .collect()
    };
    // Swap the next 64 back in, one fault each; the readahead hits widen the window. The
    // pages a fault reads ahead go to the youngest generation of that moment (a later aging
    // may have opened another by the time the check runs: max_seq before .. after).
    let mut read_ahead = 0;
    for i in swapped..swapped + 64 {
        let before = cached(k, i + 1);
        let seq0 = k.lruvecs[k.lruvec_idx(ct, 0)].lrugen.max_seq;
        k.handle_mm_fault(vma, i as u32).unwrap();
        k.lru_add_drain();
        let seq1 = k.lruvecs[k.lruvec_idx(ct, 0)].lrugen.max_seq;
        let p = k.vmas[vi].pages[i];
        assert_ne!(p, PageId::NIL);
        assert_eq!(gen_of(k, p), youngest(k), "the swapped-in page {i}");
        assert!(!k.lru_gen_in_fault);
        // (Not the pages this fault's reclaim wrote out: they are in the swap cache too.)
        for q in cached(k, i + 1).into_iter().filter(|q| !before.contains(q) && k.pages[*q].test(crate::mm_types::pg::READAHEAD)) {
            let gens: Vec<usize> = (seq0..=seq1).map(lru_gen_from_seq).collect();
            assert!(gens.contains(&gen_of(k, q)), "a page read ahead by the fault of page {i}");
            read_ahead += 1;
        }
    }
    assert!(read_ahead > 0, "cluster readahead read neighbours");
    assert_invariants(k);

    // lru_gen_refault() of an anonymous page over a shadow of the current oldest generation:
    // workingset_refault_anon; outside a fault with refs 0 no stall, inside one
    // (lru_gen_in_fault()) a stall - refs bits full, PG_workingset, workingset_restore_anon.
    let p = k.vmas[vi].pages[swapped];
    let v = k.folio_lruvec(p);
    let min_seq = k.lruvecs[v].lrugen.min_seq[LRU_GEN_ANON];
    let shadow = crate::workingset::pack_shadow(ct, min_seq << LRU_REFS_WIDTH, false);
    let (refault0, restore0) = (k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultAnon), k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreAnon));
    k.pages[p].set_refs(0);
    k.pages[p].flags &= !(crate::mm_types::pg::WORKINGSET | crate::mm_types::pg::REFERENCED);
    k.lru_gen_refault(p, shadow);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultAnon), refault0 + 1);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreAnon), restore0);
    assert_eq!(folio_lru_refs(&k.pages[p]), 0);
    k.lru_gen_in_fault = true;
    k.lru_gen_refault(p, shadow);
    k.lru_gen_in_fault = false;
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultAnon), refault0 + 2);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreAnon), restore0 + 1);
    assert_eq!(folio_lru_refs(&k.pages[p]), 1 << LRU_REFS_WIDTH, "protected once by sort_folio()");
    assert_eq!(k.vmstat.get(crate::vmstat::VmEvent::WorkingsetRefaultFile), 0);
    assert_invariants(k);
}

/// mm/memory.c 6.1 `lru_gen_enter_fault()` + mm/swap.c `folio_add_lru()` over a whole
/// workload: the re-touch of a mapping larger than its memcg swaps every page in again, as an
/// LRU does, because the pages it faults in are the youngest (recorded on Debian's 6.1 with
/// lru_gen on: scenarios/validation/qemu61-lrugen-swap-retouch, 24580 of 24576 pages read back
/// in the second pass; with swap-ins in the second oldest generation the engine read 16358).
/// mm/workingset.c 6.1 `lru_gen_refault()`: a refault read by a fault is a stall.
#[test]
fn a_retouch_6_1_reads_every_page_back_from_swap_under_lru_gen() {
    let mut s = sim(r#"
[scenario]
name = "lru-gen-retouch"
[machine]
ram = "256M"
swap = "64M"
[devices.sda]
read_bw = "1G"
write_bw = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
lru_gen = true
[cgroups.ct]
"memory.max" = "16M"
[tasks.t]
cgroup = "ct"
ops = [
  { op = "mmap", name = "heap", size = "24M", step = "touch 1" },
  { op = "touch", name = "heap", step = "touch 1" },
  { op = "touch", name = "heap", step = "touch 2" },
]
"#);
    let ct = memcg(&s, "ct");
    run_with(&mut s, |s| assert_invariants(&s.kernel));
    let k = &s.kernel;
    let pswpin = k.vmstat.get(crate::vmstat::VmEvent::Pswpin);
    // 24M = 6144 pages; the first pass never reads, the second finds each page swapped out
    // (the pages it faults in are the youngest, the ones it has not reached the oldest); a
    // few readahead pages are evicted before their fault and read again.
    assert!(pswpin >= 6144 * 95 / 100 && pswpin <= 6144 * 105 / 100, "pswpin {pswpin}");
    // No refault is counted: 6.1's lru_gen_refault() counts one only when the shadow's
    // eviction generation is still the lruvec's min_seq, and each page comes back a pass after
    // its eviction, when aging has moved min_seq on (the refault-and-restore counting itself
    // is held by the test above).
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultAnon), 0);
    assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRestoreAnon), 0);
}

/// A 1 GiB machine on `profile` with lru_gen on and memcgs `a`, `b`, `c` (no limits), each
/// with a file of its own (`/fa`, `/fb`, `/fc`, 8 MiB).
fn setup_memcgs(profile: &str) -> (Simulation, [MemcgId; 3], [InodeId; 3]) {
    let s = sim(&format!(
        r#"
[scenario]
name = "memcg-lru"
[machine]
ram = "1G"
[kernel]
profile = "{profile}"
cgroup = "v2"
lru_gen = true
[devices.sda]
read_bw = "1G"
[files."/fa"]
size = "8M"
[files."/fb"]
size = "8M"
[files."/fc"]
size = "8M"
[cgroups.a]
[cgroups.b]
[cgroups.c]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
    ));
    let m = [memcg(&s, "a"), memcg(&s, "b"), memcg(&s, "c")];
    let f = [inode(&s, "/fa"), inode(&s, "/fb"), inode(&s, "/fc")];
    (s, m, f)
}

/// The lruvecs on memcg LRU bin `fifo[gen][bin]` of node 0, head to tail.
fn memcg_lru_bin(k: &Kernel, gen: usize, bin: usize) -> Vec<usize> {
    let mut out = vec![];
    let mut cur = k.memcg_lru[0].fifo[gen][bin].0;
    while cur != NIL_LRUVEC {
        out.push(cur as usize);
        cur = k.lruvecs[cur as usize].lrugen.memcg_next;
    }
    out
}

/// The memcg LRU is consistent: every listed lruvec is in the bin its `memcg_gen`/`memcg_bin`
/// say, each generation's `nr_memcgs` counts its lruvecs, and only the old and young
/// generations hold any (6.3+ "There are only two valid generations").
fn assert_memcg_lru(k: &Kernel) {
    let ml = &k.memcg_lru[0];
    let mut listed = 0;
    for gen in 0..MEMCG_NR_GENS as usize {
        let n: usize = (0..MEMCG_NR_BINS).map(|bin| {
            let l = memcg_lru_bin(k, gen, bin);
            for &v in &l {
                assert_eq!((k.lruvecs[v].lrugen.memcg_gen as usize, k.lruvecs[v].lrugen.memcg_bin as usize), (gen, bin));
            }
            l.len()
        }).sum();
        assert_eq!(n as u64, ml.nr_memcgs[gen], "generation {gen}");
        if n > 0 {
            assert!(gen == get_memcg_gen(ml.seq) || gen == get_memcg_gen(ml.seq + 1), "generation {gen} is neither old nor young");
        }
        listed += n;
    }
    assert_eq!(listed, k.lruvecs.iter().filter(|l| l.lrugen.memcg_listed).count());
}

/// mm/vmscan.c 6.3+ `lru_gen_online_memcg()` / `lru_gen_rotate_memcg()` /
/// `lru_gen_offline_memcg()` / `lru_gen_release_memcg()`: a new memcg joins the tail of a bin
/// of the old generation; MEMCG_LRU_YOUNG moves it to the young generation's tail, and when
/// the old generation empties the node's seq moves on (young becomes old);
/// MEMCG_LRU_HEAD/TAIL keep the generation and set the segment; offlining moves a memcg to the
/// head of a bin of the old generation (MEMCG_LRU_OLD); release takes it off.
#[test]
fn memcg_lru_6_3_online_rotate_offline_release() {
    let (mut s, m, _) = setup_memcgs("linux-6.6-lru_gen");
    let k = &mut s.kernel;
    let v = |k: &Kernel, x: MemcgId| k.lruvec_idx(x, 0);
    // Root and the three memcgs, all in the old generation (seq 0).
    assert_eq!(k.memcg_lru[0].seq, 0);
    assert_eq!(k.memcg_lru[0].nr_memcgs, [4, 0, 0]);
    assert_memcg_lru(k);
    for x in [MemcgId::ROOT, m[0], m[1], m[2]] {
        assert!(k.lruvecs[v(k, x)].lrugen.memcg_listed);
    }
    // Young: to the tail of a bin of generation seq + 1.
    let va = v(k, m[0]);
    k.lru_gen_rotate_memcg(va, MemcgLruOp::Young);
    assert_eq!(k.lruvecs[va].lrugen.memcg_gen, 1);
    assert_eq!(*memcg_lru_bin(k, 1, k.lruvecs[va].lrugen.memcg_bin as usize).last().unwrap(), va);
    assert_eq!(k.memcg_lru[0].nr_memcgs, [3, 1, 0]);
    assert_memcg_lru(k);
    // Tail and Head stay in the generation and set the segment.
    let vb = v(k, m[1]);
    k.lru_gen_rotate_memcg(vb, MemcgLruOp::Tail);
    assert_eq!((k.lruvecs[vb].lrugen.memcg_gen, k.lruvecs[vb].lrugen.memcg_seg), (0, MemcgLruOp::Tail as u8));
    assert_eq!(*memcg_lru_bin(k, 0, k.lruvecs[vb].lrugen.memcg_bin as usize).last().unwrap(), vb);
    k.lru_gen_rotate_memcg(vb, MemcgLruOp::Head);
    assert_eq!((k.lruvecs[vb].lrugen.memcg_gen, k.lruvecs[vb].lrugen.memcg_seg), (0, MemcgLruOp::Head as u8));
    assert_eq!(memcg_lru_bin(k, 0, k.lruvecs[vb].lrugen.memcg_bin as usize)[0], vb);
    assert_memcg_lru(k);
    // The rest young: the old generation empties and seq moves on; generation 1 is old now.
    for x in [MemcgId::ROOT, m[1], m[2]] {
        let vx = v(k, x);
        k.lru_gen_rotate_memcg(vx, MemcgLruOp::Young);
    }
    assert_eq!(k.memcg_lru[0].seq, 1);
    assert_eq!(k.memcg_lru[0].nr_memcgs, [0, 4, 0]);
    assert_eq!(k.lruvecs[vb].lrugen.memcg_seg, 0, "MEMCG_LRU_YOUNG resets the segment");
    assert_memcg_lru(k);
    // Offline: MEMCG_LRU_OLD, the head of a bin of the old generation (1).
    let vc = v(k, m[2]);
    k.lru_gen_rotate_memcg(vc, MemcgLruOp::Young);
    assert_eq!(k.lruvecs[vc].lrugen.memcg_gen, 2);
    k.cgroup_rmdir("/c").unwrap();
    // Nothing charged to it: freed at once, so released (off the memcg LRU).
    assert!(!k.lruvecs[vc].lrugen.memcg_listed);
    assert_eq!(k.memcg_lru[0].nr_memcgs, [0, 3, 0]);
    assert_memcg_lru(k);
    // A memcg with pages stays dying, at the head of the old generation.
    let (mut s, m, f) = setup_memcgs("linux-6.6-lru_gen");
    let k = &mut s.kernel;
    read_pages(k, f[0], 0, 64, m[0]);
    let va = v(k, m[0]);
    k.lru_gen_rotate_memcg(va, MemcgLruOp::Young);
    k.cgroup_rmdir("/a").unwrap();
    assert!(k.lruvecs[va].lrugen.memcg_listed, "dying, still listed");
    assert_eq!(k.lruvecs[va].lrugen.memcg_gen as usize, get_memcg_gen(k.memcg_lru[0].seq));
    assert_eq!(memcg_lru_bin(k, k.lruvecs[va].lrugen.memcg_gen as usize, k.lruvecs[va].lrugen.memcg_bin as usize)[0], va);
    assert_memcg_lru(k);
    // Before 6.3 there is no memcg LRU.
    let (s, _, _) = setup_memcgs("linux-6.1");
    assert!(s.kernel.memcg_lru.is_empty());
}

/// mm/vmscan.c 6.3+ `lru_gen_online_memcg()`: `bin = get_random_u32_below(MEMCG_NR_BINS)`,
/// drawn from the kernel's random numbers, seeded afresh at every boot. `kernel.boot_seed` is
/// the engine's boot: 0 is the default stream, and over 64 boots a memcg lands in every one
/// of the 8 bins and two memcgs share one about 1 time in 8 (the case where the one created
/// first is always met first by `shrink_many()` in that bin), as 64 boots of a kernel would.
#[test]
fn lru_gen_online_memcg_6_3_draws_each_memcgs_bin_per_boot() {
    let bins = |boot: Option<u64>| {
        let seed = boot.map(|b| format!("boot_seed = {b}")).unwrap_or_default();
        let s = sim(&format!(
            r#"
[scenario]
name = "memcg-lru-boot"
[machine]
ram = "256M"
[kernel]
profile = "linux-6.12-lru_gen"
cgroup = "v2"
{seed}
[devices.sda]
read_bw = "1G"
[cgroups.a]
[cgroups.b]
[tasks.idle]
ops = [{{ op = "sleep", duration = "1ms" }}]
"#
        ));
        let k = &s.kernel;
        let (a, b) = (k.lruvec_idx(memcg(&s, "a"), 0), k.lruvec_idx(memcg(&s, "b"), 0));
        (k.lruvecs[a].lrugen.memcg_bin as usize, k.lruvecs[b].lrugen.memcg_bin as usize)
    };
    assert_eq!(bins(None), bins(Some(0)), "boot_seed 0 is the default stream");
    assert_eq!(bins(Some(5)), bins(Some(5)), "a boot is reproducible");
    let draws: Vec<(usize, usize)> = (1..=64).map(|b| bins(Some(b))).collect();
    let mut seen = [0u32; MEMCG_NR_BINS];
    for &(a, _) in &draws {
        seen[a] += 1;
    }
    assert!(seen.iter().all(|&n| n > 0), "a's bin over 64 boots: {seen:?}");
    let shared = draws.iter().filter(|(a, b)| a == b).count();
    assert!((2..=20).contains(&shared), "a and b share a bin in {shared} of 64 boots (expected about 8)");
}

/// mm/vmscan.c 6.3+ `should_abort_scan()`: memcg reclaim never stops early ("to ensure
/// fairness"); global reclaim stops at `max(nr_to_reclaim, compact_gap(0))`; kswapd, whose
/// goal is `kswapd_shrink_node()`'s (the zones' high watermarks, at least `SWAP_CLUSTER_MAX`
/// each), also once every eligible zone is safe: `zone_watermark_ok(zone, 0, high +
/// MIN_LRU_BATCH, sc->reclaim_idx, 0)`, the zone's `lowmem_reserve[reclaim_idx]` included. On
/// node 0 ZONE_DMA is eligible and the engine holds its free frames at that reserve
/// (`Zone::lowmem_held`): never safe there, so kswapd's pass runs to its goal; a node without
/// ZONE_DMA (node 1) stops once its zones are safe.
#[test]
fn should_abort_scan_6_3_stops_global_reclaim_at_its_goal_and_kswapd_at_safe_zones() {
    let (mut s, m, _) = setup_memcgs("linux-6.12-lru_gen");
    let k = &mut s.kernel;
    let zones: Vec<usize> = k.nodes[0].zones.clone();
    let high: u64 = zones.iter().map(|&z| k.zones[z].wmark_high.max(crate::vmscan::SWAP_CLUSTER_MAX)).sum();
    // Every zone just below its high watermark + MIN_LRU_BATCH.
    for &z in &zones {
        k.zones[z].free = k.zones[z].wmark_high + MIN_LRU_BATCH;
    }
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, true);
    let (abort, goal) = k.should_abort_scan_for_test(0, &sc);
    assert_eq!(goal, high);
    assert!(!abort, "kswapd below its goal with zones not yet safe");
    sc.nr_reclaimed = 32;
    assert!(k.should_abort_scan_for_test(0, &sc).0, "at nr_to_reclaim");
    sc.nr_reclaimed = 0;
    for &z in &zones {
        k.zones[z].free = k.zones[z].wmark_high + MIN_LRU_BATCH + 1;
    }
    assert!(k.zones[*zones.last().unwrap()].lowmem_held > 0, "node 0 holds ZONE_DMA's reserve");
    assert!(!k.should_abort_scan_for_test(0, &sc).0, "node 0: ZONE_DMA at its reserve is not safe, kswapd goes on");
    let direct = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, false);
    assert!(!k.should_abort_scan_for_test(0, &direct).0, "a direct reclaimer stops at its goal only");
    let mut memcg_reclaim = crate::vmscan::ScanControl::new(m[0], 32, true, false);
    memcg_reclaim.nr_reclaimed = 1 << 20;
    assert!(!k.should_abort_scan_for_test(0, &memcg_reclaim).0, "memcg reclaim never aborts");

    // Node 1 of a two-node machine has no ZONE_DMA.
    let mut s2 = sim(r#"
[scenario]
name = "two-nodes"
[machine]
ram = "2G"
nodes = 2
[kernel]
profile = "linux-6.12-lru_gen"
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let k = &mut s2.kernel;
    let zones1: Vec<usize> = k.nodes[1].zones.clone();
    assert!(zones1.iter().all(|&z| k.zones[z].lowmem_held == 0));
    for &z in &zones1 {
        k.zones[z].free = k.zones[z].wmark_high + MIN_LRU_BATCH;
    }
    let sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, true);
    assert!(!k.should_abort_scan_for_test(1, &sc).0, "node 1 at high + MIN_LRU_BATCH: not yet safe");
    for &z in &zones1 {
        k.zones[z].free = k.zones[z].wmark_high + MIN_LRU_BATCH + 1;
    }
    assert!(k.should_abort_scan_for_test(1, &sc).0, "node 1: every zone safe, kswapd stops");
    assert!(!k.should_abort_scan_for_test(0, &sc).0, "node 0 of the same machine: ZONE_DMA is not safe");
}

/// mm/vmscan.c 6.3+ `shrink_many()` against 6.1's `shrink_node_memcgs()` for global reclaim,
/// three memcgs of the same size: one global reclaim of 32 pages through the memcg LRU stops
/// after the memcg that met the target (`should_abort_scan()`). Repeated (`try_to_free_pages()`
/// from `DEF_PRIORITY`), the memcg LRU rotates a memcg its eviction aged to the young
/// generation (`MEMCG_LRU_YOUNG`) and walks the others first, so the calls reach every memcg,
/// a batch (`MIN_LRU_BATCH`) per call; 6.1 keeps scanning every memcg above
/// `DEF_PRIORITY - 2` ("keep scanning at low priorities to ensure fairness"), a batch from each
/// per call, so it reclaims more for the same calls.
#[test]
fn shrink_many_6_3_stops_at_the_target_and_rotates_memcgs() {
    let (mut s, m, f) = setup_memcgs("linux-6.6-lru_gen");
    let k = &mut s.kernel;
    for i in 0..3 {
        read_pages(k, f[i], 0, 2048, m[i]);
    }
    let before: Vec<u64> = m.iter().map(|&x| k.memcgs.get(x).counter.usage).collect();
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, false);
    sc.priority = 8;
    k.nr_reclaimed_for_test(&mut sc);
    let lost: Vec<u64> = m.iter().enumerate().map(|(i, &x)| before[i] - k.memcgs.get(x).counter.usage).collect();
    assert!(sc.nr_reclaimed >= 32);
    assert_eq!(lost.iter().filter(|&&l| l > 0).count(), 1, "one memcg reclaimed from: {lost:?}");
    assert_memcg_lru(k);
    let mut totals = vec![];
    for profile in ["linux-6.6-lru_gen", "linux-6.1"] {
        let (mut s, m, f) = setup_memcgs(profile);
        let k = &mut s.kernel;
        for i in 0..3 {
            read_pages(k, f[i], 0, 2048, m[i]);
        }
        let before: Vec<u64> = m.iter().map(|&x| k.memcgs.get(x).counter.usage).collect();
        let mut reclaimed = 0;
        for _ in 0..24 {
            reclaimed += k.try_to_free_pages(32);
        }
        let lost: Vec<u64> = m.iter().enumerate().map(|(i, &x)| before[i] - k.memcgs.get(x).counter.usage).collect();
        assert!(lost.iter().all(|&l| l > 0), "{profile}: every memcg reclaimed from: {lost:?}");
        if profile == "linux-6.6-lru_gen" {
            // One batch of MIN_LRU_BATCH per call: the first memcg met the target.
            assert_eq!(reclaimed, 24 * MIN_LRU_BATCH, "{profile}: {lost:?}");
            assert_memcg_lru(k);
        }
        totals.push(reclaimed);
        assert_invariants(k);
    }
    assert!(totals[1] >= 2 * totals[0], "6.1 takes a batch from every memcg per call: {totals:?}");
}

/// mm/vmscan.c 6.3+ `shrink_one()`: a memcg below memory.low is passed over once
/// (MEMCG_LRU_TAIL), then reclaimed with `memory.events low` counted; one below memory.min is
/// never reclaimed (MEMCG_LRU_YOUNG).
#[test]
fn shrink_one_6_3_memory_low_tail_once_and_memory_min_young() {
    let (mut s, m, f) = setup_memcgs("linux-6.6-lru_gen");
    let k = &mut s.kernel;
    for i in 0..3 {
        read_pages(k, f[i], 0, 2048, m[i]);
    }
    k.memcgs.set_protection(m[0], 4096, 0);
    k.memcgs.set_protection(m[1], 0, 4096);
    let mut list = vec![];
    k.memcgs.calculate_protection(MemcgId::ROOT, &mut list);
    let (va, vb) = (k.lruvec_idx(m[0], 0), k.lruvec_idx(m[1], 0));
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, false);
    sc.priority = 8;
    let usage = k.memcgs.get(m[0]).counter.usage;
    assert_eq!(k.shrink_one_for_test(m[0], va, &mut sc), MemcgLruOp::Young, "below min");
    assert_eq!(k.memcgs.get(m[0]).counter.usage, usage, "not reclaimed");
    let usage = k.memcgs.get(m[1]).counter.usage;
    assert_eq!(k.shrink_one_for_test(m[1], vb, &mut sc), MemcgLruOp::Tail, "below low, first look");
    assert_eq!(k.memcgs.events(m[1], MemcgEvent::Low), 0);
    k.lru_gen_rotate_memcg(vb, MemcgLruOp::Tail);
    k.shrink_one_for_test(m[1], vb, &mut sc);
    assert_eq!(k.memcgs.events(m[1], MemcgEvent::Low), 1, "below low, second look: reclaimed");
    assert!(k.memcgs.get(m[1]).counter.usage < usage);
    assert_invariants(k);
}

/// mm/workingset.c and mm/vmscan.c 6.5+ (Kalesh Singh, "mm: Multi-gen LRU: fix workingset
/// accounting"; as in Debian's 6.12.117): `lru_gen_refault()` counts `workingset_refault_file`
/// before the recent test and `workingset_activate_file` for a recent refault, and
/// `sort_folio()` protects a tier without counting an activation. The two setups of
/// `evict_folios_6_1_...` and `sort_folio_6_1_...` on linux-6.12 against linux-6.1.
#[test]
fn lru_gen_refault_6_5_counts_activations_for_recent_refaults_not_protections() {
    for (profile, new) in [("linux-6.1", false), ("linux-6.12", true), ("linux-6.6", true)] {
        assert_eq!(crate::profile::profile(profile).unwrap().lru_gen_refault_activates, new, "{profile}");
        // recent refaults: 64 pages read back while min_seq has not moved
        let (mut s, ct, _, b) = setup(profile, "8M");
        let k = &mut s.kernel;
        for c in 0..8 {
            read_pages(k, b, c * 512, 512, ct);
        }
        let (rf, act) = (k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile), k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile));
        read_pages(k, b, 0, 64, ct);
        assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetRefaultFile) - rf, 64, "{profile}");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile) - act, if new { 64 } else { 0 }, "{profile}");
        assert_invariants(k);
        // protection by sort_folio(): counted as an activation up to 6.4 only
        let (mut s, ct, a, b) = setup(profile, "12M");
        let k = &mut s.kernel;
        read_pages(k, a, 0, 1024, ct);
        read_pages(k, a, 0, 1024, ct);
        let v = k.lruvec_idx(ct, 0);
        {
            let g = &mut k.lruvecs[v].lrugen;
            g.evicted[LRU_GEN_FILE][0] = 100_000;
            g.refaulted[LRU_GEN_FILE][0] = 10;
            g.evicted[LRU_GEN_FILE][1] = 1000;
            g.refaulted[LRU_GEN_FILE][1] = 900;
        }
        for c in 0..5 {
            read_pages(k, b, c * 520, 520, ct);
        }
        assert!(k.memcgs.events(ct, MemcgEvent::Pgsteal) > 0, "reclaim ran");
        let kept = (0..1024).filter(|&i| k.mappings[a.idx()].lookup(i).is_some()).count();
        assert_eq!(kept, 1024, "{profile}: every page of /a was protected");
        assert_eq!(k.memcgs.events(ct, MemcgEvent::WorkingsetActivateFile), if new { 0 } else { 1024 }, "{profile}");
        assert_invariants(k);
    }
}

/// mm/vmscan.c `set_initial_priority()` (6.3+, as Debian's 6.12.117 has it) and
/// `inc_max_seq()`'s "update the active/inactive LRU sizes for compatibility": the node's
/// NR_INACTIVE_FILE under lru_gen is the pages of every generation but the two youngest, and a
/// global reclaim of at least MIN_LRU_BATCH pages at DEF_PRIORITY starts at
/// `fls(inactive) - 1 - fls(nr_to_reclaim - 1)`, clamped to [6, 12]; a direct reclaimer's
/// SWAP_CLUSTER_MAX keeps DEF_PRIORITY.
#[test]
fn set_initial_priority_6_3_starts_global_reclaim_where_inactive_pages_cover_the_goal() {
    let (mut s, ct, a, b) = setup("linux-6.12-lru_gen", "");
    let k = &mut s.kernel;
    read_pages(k, b, 0, 4096, ct);
    read_pages(k, a, 0, 1024, ct);
    // (the last pages read sit in the CPU's lru_add batch on 6.12: onto the lists now)
    k.lru_add_drain();
    let v = k.lruvec_idx(ct, 0);
    let root = k.lruvec_idx(MemcgId::ROOT, 0);
    let inactive = |k: &Kernel| -> u64 {
        let lv = &k.lruvecs[v];
        (0..MAX_NR_GENS as usize).filter(|&g| !lru_gen_is_active(&lv.lrugen, g)).map(|g| lv.lists[gen_list(g, LRU_GEN_FILE)].pages).sum()
    };
    // the pages read sit in the second oldest generation (lru_gen_add_folio()): inactive
    assert_eq!(inactive(k), 5120);
    assert_eq!(k.lru_stats.gen_inactive(root, LRU_GEN_FILE), 5120);
    k.inc_max_seq(v, false); // a new youngest: the previous youngest turns inactive (it is empty here)
    assert_eq!(k.lru_stats.gen_inactive(root, LRU_GEN_FILE), inactive(k));
    assert_invariants(k);
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 32, false, false);
    k.set_initial_priority(0, &mut sc);
    assert_eq!(sc.priority, crate::vmscan::DEF_PRIORITY, "SWAP_CLUSTER_MAX < MIN_LRU_BATCH");
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 64, false, false);
    k.set_initial_priority(0, &mut sc);
    // fls(5120) - 1 - fls(63) = 13 - 1 - 6 = 6
    assert_eq!(sc.priority, 6);
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 2048, false, false);
    k.set_initial_priority(0, &mut sc);
    assert_eq!(sc.priority, 6, "12 - 11 = 1, clamped to DEF_PRIORITY / 2");
    let mut sc = crate::vmscan::ScanControl::new(MemcgId::ROOT, 64, false, false);
    sc.priority = 10;
    k.set_initial_priority(0, &mut sc);
    assert_eq!(sc.priority, 10, "only at DEF_PRIORITY");
}

/// `shrink_folio_list()` (mm/vmscan.c 6.1), which `evict_folios()` calls for what it
/// isolated, on an anonymous page: `folio_check_references()` -> `folio_referenced_one()`
/// finds the PTE young, runs `lru_gen_look_around()` (which marks the isolated page
/// `PG_referenced`), and the page is `FOLIOREF_ACTIVATE`: `activate_locked` frees its swap
/// slot when swap is more than half full (`mem_cgroup_swap_full()`: "Not a candidate for
/// swapping, so reclaim swap space"), and the page goes back `PG_active`, into the youngest
/// generation (pgactivate). With its PTE old the clean swap-cache page is reclaimed and its
/// slot stays for the PTE.
#[test]
fn lru_gen_activates_a_young_anon_page_and_frees_its_slot_when_swap_is_half_full_6_1() {
    let mut s = swap_sim("linux-6.1", "256K");
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(64, ct);
    for i in 0..64 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    let vi = vma.0 as usize;
    // Reclaim's swap-out of pages `from..to`: isolated, written, the write ended, freed.
    let swap_out = |k: &mut Kernel, from: u32, to: u32| {
        let pages: Vec<PageId> = (from..to).map(|i| k.vmas[vi].pages[i as usize]).collect();
        for &p in &pages {
            let v = k.folio_lruvec(p);
            k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p);
            assert!(k.swap_writepage(p));
        }
        let t = k.now + 1_000_000_000;
        k.wait_until(t);
        k.swap_end_io();
        for &p in &pages {
            assert_eq!(k.free_swapped_page(p), 1);
        }
    };
    swap_out(k, 0, 20);
    // Loads of pages 0 and 1: read back, left in the swap cache with their slots (swap 20 of
    // 63 slots full: should_try_to_free_swap() is false), their PTEs young.
    for i in 0..2 {
        k.handle_mm_fault_flags(vma, i, false).unwrap();
        let p = k.vmas[vi].pages[i as usize];
        assert!(k.pages[p].test(pg::SWAPCACHE) && k.vmas[vi].swap[i as usize] != crate::swapfile::NO_SLOT);
    }
    assert!(!k.mem_cgroup_swap_full(ct));
    swap_out(k, 20, 45);
    assert!(k.mem_cgroup_swap_full(ct), "43 of 63 slots used");
    let (p0, p1) = (k.vmas[vi].pages[0], k.vmas[vi].pages[1]);
    k.vmas[vi].pte_mkold(1);
    let v = k.folio_lruvec(p0);
    let activations = k.memcgs.events(ct, MemcgEvent::Pgactivate);
    let mut sc = crate::vmscan::ScanControl::new(ct, 32, true, false);
    k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p0);
    assert_eq!(k.lru_gen_reclaim_folio(v, p0, &mut sc), 0, "young: kept");
    assert!(!k.pages[p0].test(pg::SWAPCACHE), "its swap-cache copy gone");
    assert_eq!(k.vmas[vi].swap[0], crate::swapfile::NO_SLOT, "its slot freed");
    let g = &k.lruvecs[v].lrugen;
    assert_eq!(list_gen(k.pages[p0].lru() as usize), lru_gen_from_seq(g.max_seq), "the youngest generation");
    assert_eq!(k.memcgs.events(ct, MemcgEvent::Pgactivate), activations + 1);
    k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p1);
    assert_eq!(k.lru_gen_reclaim_folio(v, p1, &mut sc), 1, "old: reclaimed");
    assert_ne!(k.vmas[vi].swap[1], crate::swapfile::NO_SLOT, "its slot kept for the PTE");
    assert_invariants(k);
}

/// A 256 MiB machine on linux-6.12-lru_gen whose memory a 512 MiB file in memcg `ct` has filled
/// until kswapd is awake (`wakeup_kswapd()` from the allocator's slowpath) with the node below
/// its high watermark; returns the clock.
fn kswapd_just_woken() -> (Simulation, Nanos) {
    let mut s = sim(r#"
[scenario]
name = "kswapd-pass"
[machine]
ram = "256M"
[kernel]
profile = "linux-6.12-lru_gen"
cgroup = "v2"
[devices.sda]
read_bw = "1G"
[files."/big"]
size = "512M"
[cgroups.ct]
[tasks.idle]
ops = [{ op = "sleep", duration = "1ms" }]
"#);
    let (ct, big) = (memcg(&s, "ct"), inode(&s, "/big"));
    let k = &mut s.kernel;
    let mut i = 0;
    while !(k.nodes[0].kswapd_active && !k.node_balanced(0)) {
        read_pages(k, big, i, 1, ct);
        i += 1;
        assert!(i < 131_072, "the file filled memory without waking kswapd");
    }
    assert!(k.nodes[0].kswapd_pass.is_none());
    let now = k.now;
    (s, now)
}

/// mm/vmscan.c 6.12 `kswapd()` → `balance_pgdat()` → `kswapd_shrink_node()` →
/// `lru_gen_shrink_node()` → `shrink_many()`: kswapd is a thread on a CPU of its own, and the
/// pages of its pass (a goal of the zones' high watermarks, `kswapd_shrink_node()`) are freed
/// batch by batch as `evict_folios()` → `shrink_folio_list()` frees them, while the other CPUs
/// run. The engine runs kswapd whenever another context looks at memory, up to that
/// context's clock: the pass stops after the batch that took kswapd's clock past it
/// (`Node::kswapd_pass`) and goes on from the same memcg at the next catch-up, so its frees
/// are spread over its own time, and the pass, run in steps, reclaims what it reclaims in one
/// go, at the same kswapd clock.
#[test]
fn kswapd_pass_6_12_frees_its_pages_over_its_own_time_and_goes_on_where_it_stopped() {
    // One catch-up long after the wake-up: the whole pass.
    let (mut whole, t0) = kswapd_just_woken();
    let k = &mut whole.kernel;
    let steal0 = k.vmstat.get(VmEvent::PgstealKswapd);
    k.now = t0 + 1_000_000_000;
    k.kswapd_catch_up();
    assert!(k.nodes[0].kswapd_pass.is_none() && !k.nodes[0].kswapd_active, "the pass ended, the node balanced: kswapd sleeps");
    let whole_steal = k.vmstat.get(VmEvent::PgstealKswapd) - steal0;
    let whole_clock = k.nodes[0].kswapd_clock;
    let whole_free = k.nr_free_pages();
    assert!(whole_steal > 2 * MIN_LRU_BATCH, "a pass of several batches: {whole_steal}");

    // The same kswapd caught up 1 ns at a time past its own clock: one batch per catch-up.
    let (mut steps, t1) = kswapd_just_woken();
    assert_eq!(t0, t1, "the engine is deterministic");
    let k = &mut steps.kernel;
    let steal0 = k.vmstat.get(VmEvent::PgstealKswapd);
    let mut stops = 0;
    let mut last = 0;
    while k.nodes[0].kswapd_active {
        k.now = k.nodes[0].kswapd_clock + 1;
        k.kswapd_catch_up();
        let steal = k.vmstat.get(VmEvent::PgstealKswapd) - steal0;
        if let Some(p) = k.nodes[0].kswapd_pass {
            stops += 1;
            assert!(k.nodes[0].kswapd_clock >= k.now, "kswapd stopped at or past the shared clock");
            assert!(steal - last <= MIN_LRU_BATCH, "one evict_folios() batch per catch-up: {}", steal - last);
            assert!(p.nr_reclaimed <= steal, "the pass counts its own pages");
        }
        last = steal;
        assert_invariants(k);
    }
    assert!(stops >= 2, "the pass stopped at the shared clock and went on ({stops} stops)");
    assert_eq!(k.vmstat.get(VmEvent::PgstealKswapd) - steal0, whole_steal, "the same pages reclaimed");
    assert_eq!(k.nodes[0].kswapd_clock, whole_clock, "the same CPU time");
    assert_eq!(k.nr_free_pages(), whole_free);
}

/// mm/vmscan.c 6.1 `lru_gen_shrink_lruvec()`: global reclaim that may not swap (kswapd's
/// boosted reclaim, `sc.may_swap = !nr_boost_reclaim`) evicts with swappiness 1 where swap has
/// room ("else if (!cgroup_reclaim(sc) && get_swappiness(lruvec, sc)) swappiness = 1"), so an
/// lruvec of anonymous pages only is still scanned; memcg reclaim that may not swap (a v1
/// memsw limit) is not (swappiness 0). 6.3's "mm: multi-gen LRU: remove eviction fairness
/// safeguard" dropped the 1: `try_to_shrink_lruvec()` takes `get_swappiness()`, 0 without
/// `may_swap`.
#[test]
fn lru_gen_shrink_lruvec_6_1_global_reclaim_without_may_swap_evicts_anon_at_swappiness_1() {
    let mut scanned = vec![];
    for (profile, cgroup_reclaim) in [("linux-6.1", false), ("linux-6.1", true), ("linux-6.6-lru_gen", false)] {
        let mut s = swap_sim(profile, "64M");
        let ct = memcg(&s, "ct");
        let k = &mut s.kernel;
        let vma = k.do_mmap_anon(1024, ct);
        for i in 0..1024 {
            k.handle_mm_fault(vma, i).unwrap();
        }
        let v = k.lruvec_idx(ct, 0);
        let target = if cgroup_reclaim { ct } else { MemcgId::ROOT };
        let mut sc = crate::vmscan::ScanControl::new(target, 32, cgroup_reclaim, false);
        sc.may_swap = false;
        sc.priority = 2;
        // The faulted pages are in the youngest generation: a few calls age them old.
        for _ in 0..4 {
            if profile == "linux-6.1" {
                k.lru_gen_shrink_lruvec(ct, v, &mut sc);
            } else {
                k.lru_gen_shrink_lruvec_6_3(ct, v, &mut sc);
            }
        }
        scanned.push(k.memcgs.events(ct, MemcgEvent::Pgscan));
        assert_invariants(k);
    }
    assert!(scanned[0] > 0, "6.1 global reclaim without may_swap scans anon: {scanned:?}");
    assert_eq!(scanned[1], 0, "6.1 memcg reclaim without may_swap: swappiness 0: {scanned:?}");
    assert_eq!(scanned[2], 0, "6.3+: swappiness 0 without may_swap: {scanned:?}");
}

/// mm/vmscan.c 6.1 `allow_direct_reclaim()` under lru_gen: a node counts as reclaimable when
/// `zone_reclaimable_pages()` (inactive + active file, + anon with swap: under lru_gen every
/// generation, `lru_gen_update_size()`) is non-zero. Anonymous pages just faulted in sit in the
/// youngest (active) generation only; with swap they make the node reclaimable, so a
/// direct reclaimer below half the min watermarks is throttled (not waved through as on a node
/// with nothing to reclaim).
#[test]
fn allow_direct_reclaim_6_1_lru_gen_counts_every_generation() {
    let mut s = swap_sim("linux-6.1", "64M");
    let ct = memcg(&s, "ct");
    let k = &mut s.kernel;
    let vma = k.do_mmap_anon(256, ct);
    for i in 0..256 {
        k.handle_mm_fault(vma, i).unwrap();
    }
    let root = k.lruvec_idx(MemcgId::ROOT, 0);
    assert_eq!(k.lru_stats.gen_inactive(root, LRU_GEN_ANON), 0, "all in the youngest generation");
    let v = k.lruvec_idx(ct, 0);
    let on_gens: u64 = (0..MAX_NR_GENS as usize).map(|g| k.lruvecs[v].lists[gen_list(g, LRU_GEN_ANON)].pages).sum();
    assert!(on_gens > 0);
    assert_eq!(k.lru_stats.gen_all(root, LRU_GEN_ANON), on_gens, "the subtree's pages on every generation");
    assert_eq!(k.node_reclaimable_pages(0), 0, "the two-list sizes are empty under lru_gen");
    let zones: Vec<usize> = k.nodes[0].zones.clone();
    assert!(k.allow_direct_reclaim(0), "free far above half of min");
    for &z in &zones {
        let free = k.zones[z].free + k.zones[z].lowmem_held;
        k.zones[z].set_watermark_boost(2 * free + crate::page_alloc::PAGEBLOCK_NR);
    }
    assert!(!k.allow_direct_reclaim(0), "anon of the youngest generation with swap: reclaimable, below half of min");
    assert_invariants(k);
}
