//! The per-CPU swap slots cache held to Linux 6.1 (mm/swap_slots.c, mm/swapfile.c
//! `swapcache_free_entries()`, `__read_swap_cache_async()`; 4.11-6.14).

use super::*;
use crate::swap_slots::SWAP_SLOTS_CACHE_SIZE;

fn machine(profile: &str) -> Simulation {
    sim(&format!(
        r#"
[scenario]
name = "slots"
[machine]
ram = "1G"
cpus = 2
swap = "256M"
[kernel]
profile = "{profile}"
[devices.sda]
read_bw = "400M"
write_bw = "400M"
[tasks.t]
ops = [ {{ op = "sleep", duration = "1ms" }} ]
"#
    ))
}

/// `folio_alloc_swap()` (6.1) takes a base page's slot from the running CPU's batch, refilled
/// with `SWAP_SLOTS_CACHE_SIZE` (64) slots at once (`refill_swap_slots_cache()` ->
/// `get_swap_pages()`: all of them taken from the area, `nr_swap_pages` less 64); and
/// `free_swap_slot()` holds a freed slot at `SWAP_HAS_CACHE` in the CPU's `slots_ret` until 64
/// are held, when the next free returns them all (`swapcache_free_entries()`). Each CPU has its
/// own. On 6.18 (removed in 6.15) a slot is taken and freed alone.
#[test]
fn swap_slots_cache_batches_allocation_and_holds_frees_6_1() {
    let mut s = machine("linux-6.1");
    let k = &mut s.kernel;
    k.pcp_ctx = 0;
    let m = MemcgId::ROOT;
    assert_eq!(k.folio_alloc_swap(1, m), Some(1));
    assert!(k.swap_slots.active, "activated by the first allocation (65535 free > 2 CPUs x 320)");
    let inuse = |k: &crate::kernel::Kernel| k.swap.as_ref().unwrap().inuse;
    assert_eq!(inuse(k), 64, "the batch of 64 is taken from the area at once");
    assert_eq!((k.swap_slots.cpus[0].nr, k.swap.as_ref().unwrap().held_slots()), (63, 63));
    for want in 2..=64 {
        assert_eq!(k.folio_alloc_swap(1, m), Some(want));
    }
    assert_eq!((k.swap_slots.cpus[0].nr, inuse(k)), (0, 64));
    // The other CPU refills a batch of its own, the next 64.
    k.pcp_ctx = 1;
    assert_eq!(k.folio_alloc_swap(1, m), Some(65));
    assert_eq!((k.swap_slots.cpus[1].nr, inuse(k)), (63, 128));
    // CPU 0 frees its 64: held, still in use, no longer found by __read_swap_cache_async().
    k.pcp_ctx = 0;
    for slot in 1..=SWAP_SLOTS_CACHE_SIZE as u32 {
        k.free_swap_slot(slot);
    }
    let a = k.swap.as_ref().unwrap();
    assert_eq!((k.swap_slots.cpus[0].n_ret, a.inuse), (64, 128));
    assert!(a.slot_allocated(1) && !a.slot_in_use(1), "slot 1 at SWAP_HAS_CACHE alone");
    assert_eq!(a.held_slots(), 64 + 63);
    // The 65th free returns the 64 first and holds itself.
    k.free_swap_slot(65);
    let a = k.swap.as_ref().unwrap();
    assert_eq!((k.swap_slots.cpus[0].n_ret, a.inuse), (1, 64));
    assert!(!a.slot_allocated(1) && !a.slot_allocated(64) && a.slot_allocated(65));

    // The eras: 4.11-6.14.
    let on = |n: &str| crate::profile::profile(n).unwrap().swap_slots_cache;
    assert!(on("linux-5.0") && on("linux-6.1") && on("linux-6.6") && on("linux-6.12"));
    assert!(!on("linux-4.4") && !on("linux-3.13") && !on("linux-6.18"));
    let mut s = machine("linux-6.18");
    let k = &mut s.kernel;
    k.pcp_ctx = 0;
    assert!(!k.swap_slots.enabled());
    assert_eq!(k.folio_alloc_swap(1, m), Some(1));
    assert_eq!(inuse(k), 1, "6.18: one slot taken");
    k.free_swap_slot(1);
    assert_eq!(inuse(k), 0, "6.18: freed at once");
}

/// 6.1: a zswap entry outlives the write fault that freed its slot while the slot is held in
/// a slots cache (`swap_range_free()` -> `frontswap_invalidate_page()` runs only at
/// `swapcache_free_entries()`), and its writeback fails: `zswap_writeback_entry()` ->
/// `__read_swap_cache_async()` finds the swap count 0 ("Just skip read ahead for unused swap
/// slot": `!__swp_swapcount(entry) && swap_slot_cache_enabled`) and returns NULL, -ENOMEM;
/// `zbud_reclaim_page()` goes on to the next LRU page and, every one of its 8 tries failing,
/// the run fails (`zswap_reject_reclaim_fail`). Without the cache the freed slots' entries are
/// gone at once and the run writes back the next page.
#[test]
fn zswap_writeback_of_a_slot_held_in_the_slots_cache_fails_6_1() {
    let run = |cache: bool| {
        // zswap.rs's hog: 48M of 1K-random anon touched in a 16M memcg, a 1% pool.
        let toml = super::zswap::zhog("48M", "random-1K", "max_pool_percent = 1", "", "linux-6.1", "v2");
        let mut s = sim(&toml);
        if !cache {
            s.kernel.swap_slots = Default::default();
        }
        while s.step() {
            let z = s.kernel.zswap.as_ref().unwrap();
            if z.stats.written_back_pages > 0 && !z.shrink_pending() {
                break;
            }
        }
        let k = &mut s.kernel;
        k.pcp_ctx = 0;
        // The slots of the pool's 8 oldest pages freed as a write fault frees them
        // (folio_free_swap() -> put_swap_folio() -> free_swap_slot()).
        let (lru, under) = k.zswap.as_ref().unwrap().zbud_lru();
        assert!(under.is_none());
        let tail: Vec<u32> = lru.iter().rev().take(8).copied().collect();
        let mut freed = 0;
        for &i in &tail {
            for slot in k.zswap.as_ref().unwrap().zbud_page_slots(i) {
                if slot != u32::MAX {
                    k.free_swap_slot(slot);
                    freed += 1;
                }
            }
        }
        assert!(freed >= 8, "{freed}");
        let before = k.zswap.as_ref().unwrap().stats.clone();
        let pool = k.zswap.as_ref().unwrap().pool_pages();
        let now = k.now;
        let z = k.zswap.as_mut().unwrap();
        z.shrink_queued = true;
        z.shrink_queued_at = now;
        k.now = now + 1_000_000_000;
        k.zswap_shrink_worker_due();
        let z = k.zswap.as_ref().unwrap();
        assert!(z.worker_run.is_none());
        (before, z.stats.clone(), pool, z.pool_pages(), tail, z.zbud_lru().0)
    };
    let (before, after, pool, pool_after, tail, lru) = run(true);
    assert_eq!(after.reject_reclaim_fail, before.reject_reclaim_fail + 1, "the run failed its 8 tries");
    assert_eq!(after.written_back_pages, before.written_back_pages, "nothing written back");
    assert_eq!((after.stored_pages, pool_after), (before.stored_pages, pool), "the held slots' entries are still stored");
    for p in &tail {
        assert!(lru.iter().position(|q| q == p).unwrap() < 8, "page {p} tried and put back at the LRU's head");
    }
    let (before, after, pool, pool_after, _, _) = run(false);
    assert_eq!(after.reject_reclaim_fail, before.reject_reclaim_fail, "without the cache the run succeeds");
    assert!(after.written_back_pages > before.written_back_pages);
    assert!(pool_after < pool && after.stored_pages < before.stored_pages + 0, "the freed slots' entries are gone: {pool_after} of {pool}");
}

/// 6.12 (6.9+, 0827a1fb143f "mm/zswap: invalidate zswap entry when swap entry free"):
/// `free_swap_slot()` calls `zswap_invalidate()` before it holds the slot in the CPU's
/// `slots_ret`, so the held slot (still at `SWAP_HAS_CACHE`, still in the area) has no zswap
/// entry: the entry's pool memory and the memcg's zswap charge go at the free, not 64 frees
/// later at `swapcache_free_entries()`. With the switch off (6.1/6.6's order) the same frees
/// keep every entry stored.
#[test]
fn free_swap_slot_invalidates_the_zswap_entry_first_6_12() {
    let run = |invalidate: bool| {
        let toml = super::zswap::zhog("48M", "random-1K", "enabled = true", "", "linux-6.12", "v2");
        let mut s = sim(&toml);
        assert!(s.kernel.profile.zswap_invalidate_on_slot_free, "linux-6.12 has 0827a1fb143f");
        s.kernel.profile.zswap_invalidate_on_slot_free = invalidate;
        while s.step() {
            if s.kernel.zswap.as_ref().unwrap().stats.stored_pages >= 200 {
                break;
            }
        }
        let k = &mut s.kernel;
        k.pcp_ctx = 0;
        let (a, z) = (k.swap.as_ref().unwrap(), k.zswap.as_ref().unwrap());
        let slots: Vec<u32> = (1..a.max as u32).filter(|&sl| a.slot_in_use(sl) && z.entry_len(sl).is_some()).take(8).collect();
        assert_eq!(slots.len(), 8);
        let memcg = a.slot_memcg(slots[0]);
        assert_ne!(memcg, MemcgId::NONE);
        let before = (z.stats.stored_pages, k.memcgs.get(memcg).zswap_bytes);
        for &sl in &slots {
            k.free_swap_slot(sl);
        }
        assert!(k.swap_slots.active && k.swap_slots.cpus[0].n_ret >= 8, "the slots are held, not freed");
        let (a, z) = (k.swap.as_ref().unwrap(), k.zswap.as_ref().unwrap());
        for &sl in &slots {
            assert!(a.slot_allocated(sl) && !a.slot_in_use(sl), "slot {sl} at SWAP_HAS_CACHE alone");
        }
        let gone = slots.iter().filter(|&&sl| z.entry_len(sl).is_none()).count();
        (before, (z.stats.stored_pages, k.memcgs.get(memcg).zswap_bytes), gone)
    };
    let ((stored, bytes), (stored_after, bytes_after), gone) = run(true);
    assert_eq!(gone, 8, "every held slot's zswap entry is gone");
    assert_eq!(stored_after, stored - 8);
    assert!(bytes_after < bytes, "the zswap charge went with them: {bytes_after} of {bytes}");
    let ((stored, bytes), after, gone) = run(false);
    assert_eq!(gone, 0, "before 6.9 the held slots keep their entries");
    assert_eq!(after, (stored, bytes));
}
