//! The per-CPU swap slots cache (mm/swap_slots.c, 4.11 67afa38e012e "mm/swap: add cache for
//! swap slots allocation" to 6.14; removed in 6.15 by 0ff67f990bd4 "mm, swap: remove swap slot
//! cache"; `KernelProfile::swap_slots_cache`).
//!
//! Allocation: `folio_alloc_swap()` of a base page takes the next slot of the running CPU's
//! batch (`cache->slots[cache->cur++]`), refilled when empty with up to
//! [`SWAP_SLOTS_CACHE_SIZE`] slots from the area at once (`refill_swap_slots_cache()` ->
//! `get_swap_pages()`), each at `SWAP_HAS_CACHE` until handed out; a huge page goes to the area
//! directly. Freeing: a slot whose swap count drops to 0 (`__swap_entry_free()`,
//! `put_swap_folio()`) goes into the running CPU's `slots_ret` (`free_swap_slot()`), still at
//! `SWAP_HAS_CACHE`, its swap charge and its zswap entry kept; when 64 are held the next free
//! returns them all to the area first (`swapcache_free_entries()` -> `swap_entry_free()`:
//! `mem_cgroup_uncharge_swap()`, `swap_range_free()` -> `frontswap_invalidate_page()`). So on
//! 6.1 a zswap entry outlives the write fault that freed its slot by up to 64 frees, and its
//! writeback meanwhile fails: `__read_swap_cache_async()` finds the swap count 0 ("Just skip
//! read ahead for unused swap slot") and `zswap_writeback_entry()` returns -ENOMEM. From 6.9
//! (0827a1fb143f "mm/zswap: invalidate zswap entry when swap entry free";
//! `KernelProfile::zswap_invalidate_on_slot_free`) `free_swap_slot()` calls
//! `zswap_invalidate()` first, so on 6.9-6.14 a held slot keeps only its `SWAP_HAS_CACHE` and
//! swap charge: its zswap entry, pool memory and zswap charge are gone at the free.
//!
//! The cache is active from the first allocation while more than
//! `num_online_cpus() * THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE` slots are free, and drained and
//! inactive below `num_online_cpus() * THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE`
//! (`check_cache_active()`).

use crate::kernel::Kernel;
use crate::types::MemcgId;

/// `SWAP_SLOTS_CACHE_SIZE` = `SWAP_BATCH` (include/linux/swap_slots.h, include/linux/swap.h:
/// 64): slots in one CPU's allocation batch, and freed slots one CPU holds.
pub const SWAP_SLOTS_CACHE_SIZE: usize = 64;
/// `THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE` (5 * `SWAP_SLOTS_CACHE_SIZE`) free slots per online CPU.
pub const THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE: u64 = 5 * SWAP_SLOTS_CACHE_SIZE as u64;
/// `THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE` (2 * `SWAP_SLOTS_CACHE_SIZE`) free slots per online CPU.
pub const THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE: u64 = 2 * SWAP_SLOTS_CACHE_SIZE as u64;

/// `struct swap_slots_cache` of one CPU.
#[derive(Clone, Copy, Debug)]
pub struct CpuSlots {
    /// `slots`: the allocation batch.
    pub slots: [u32; SWAP_SLOTS_CACHE_SIZE],
    /// `cur`: the next slot of the batch handed out.
    pub cur: usize,
    /// `nr`: slots of the batch left.
    pub nr: usize,
    /// `slots_ret`: freed slots held at `SWAP_HAS_CACHE`.
    pub slots_ret: [u32; SWAP_SLOTS_CACHE_SIZE],
    /// `n_ret`: how many.
    pub n_ret: usize,
}

impl Default for CpuSlots {
    fn default() -> Self {
        CpuSlots { slots: [0; SWAP_SLOTS_CACHE_SIZE], cur: 0, nr: 0, slots_ret: [0; SWAP_SLOTS_CACHE_SIZE], n_ret: 0 }
    }
}

/// The machine's swap slots caches (`swp_slots`, `swap_slot_cache_active`): empty (never
/// used) without swap or on an era without them.
#[derive(Clone, Debug, Default)]
pub struct SwapSlotsCache {
    /// `swap_slot_cache_active` (false at `swapon`: the first allocation activates it).
    pub active: bool,
    /// One per CPU, from the machine's setup.
    pub cpus: Vec<CpuSlots>,
}

impl SwapSlotsCache {
    /// `enable_swap_slots_cache()` at `swapon` on a machine of `cpus` CPUs.
    pub fn new(cpus: usize) -> SwapSlotsCache {
        SwapSlotsCache { active: false, cpus: vec![CpuSlots::default(); cpus.max(1)] }
    }

    /// `swap_slot_cache_enabled`: `has_usable_swap()` after `swapon`.
    #[inline]
    pub fn enabled(&self) -> bool {
        !self.cpus.is_empty()
    }

    /// Slots held by every CPU (allocation batches and `slots_ret`).
    pub fn held(&self) -> u64 {
        self.cpus.iter().map(|c| (c.nr + c.n_ret) as u64).sum()
    }
}

impl Kernel {
    /// `check_cache_active()` (mm/swap_slots.c, 6.1): activate the cache when more than
    /// `num_online_cpus() * THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE` slots are free
    /// (`get_nr_swap_pages()`), deactivate it and drain every CPU's slots
    /// (`deactivate_swap_slots_cache()`) below `num_online_cpus() *
    /// THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE`. Returns whether it is active.
    pub fn check_cache_active(&mut self) -> bool {
        if !self.swap_slots.enabled() {
            return false;
        }
        let free = self.swap.as_ref().map_or(0, |a| a.pages - a.inuse);
        let cpus = self.swap_slots.cpus.len() as u64;
        if !self.swap_slots.active {
            if free > cpus * THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE {
                self.swap_slots.active = true;
            }
            return self.swap_slots.active;
        }
        if free < cpus * THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE {
            self.swap_slots.active = false;
            for cpu in 0..self.swap_slots.cpus.len() {
                self.drain_slots_cache_cpu(cpu);
            }
        }
        self.swap_slots.active
    }

    /// `drain_slots_cache_cpu(cpu, SLOTS_CACHE | SLOTS_CACHE_RET, false)`: the CPU's
    /// unused batch and its held frees go back to the area (`swapcache_free_entries()`).
    fn drain_slots_cache_cpu(&mut self, cpu: usize) {
        let c = self.swap_slots.cpus[cpu];
        self.swap_slots.cpus[cpu].cur = 0;
        self.swap_slots.cpus[cpu].nr = 0;
        for &s in &c.slots[c.cur..c.cur + c.nr] {
            self.swap.as_mut().expect("a slots cache implies a swap area").set_held(s, false);
            self.swap_entry_free(s);
        }
        self.swap_slots.cpus[cpu].n_ret = 0;
        for &s in &c.slots_ret[..c.n_ret] {
            self.swap.as_mut().expect("a slots cache implies a swap area").set_held(s, false);
            self.swap_entry_free(s);
        }
    }

    /// `folio_alloc_swap()` (mm/swap_slots.c, 6.1) of a folio of `nr` pages charged to
    /// `memcg`: a huge page's slots come from the area (`get_swap_pages(1, &entry, nr)`); a
    /// base page's from the running CPU's batch when the cache is active, refilled when empty
    /// (`refill_swap_slots_cache()`), else from the area one at a time. The slot's memcg is
    /// recorded (the engine's `swap_cgroup_record()`, which the caller's swap charge follows).
    pub(crate) fn folio_alloc_swap(&mut self, nr: u64, memcg: MemcgId) -> Option<u32> {
        if nr == 1 && self.check_cache_active() {
            let cpu = self.this_cpu().min(self.swap_slots.cpus.len() - 1);
            if self.swap_slots.cpus[cpu].nr == 0 {
                self.refill_swap_slots_cache(cpu);
            }
            let c = &mut self.swap_slots.cpus[cpu];
            if c.nr > 0 {
                let slot = c.slots[c.cur];
                c.cur += 1;
                c.nr -= 1;
                let area = self.swap.as_mut().expect("a slots cache implies a swap area");
                area.set_held(slot, false);
                area.record_memcg(slot, memcg);
                return Some(slot);
            }
        }
        self.swap.as_mut()?.alloc(nr, memcg)
    }

    /// `refill_swap_slots_cache()` -> `get_swap_pages(SWAP_SLOTS_CACHE_SIZE, cache->slots, 1)`
    /// for CPU `cpu`: up to 64 slots, each as the area's allocator gives the next one
    /// (`scan_swap_map_slots()` with `nr` = 64 on a rotational area: forward from
    /// `cluster_next` within the cluster, skipping used slots), held at `SWAP_HAS_CACHE`.
    /// The kernel's scan of one batch also stops after `LATENCY_LIMIT` (256) slots looked at
    /// past a used one; the engine takes the 64 next free slots (the difference matters only
    /// on a fragmented area).
    fn refill_swap_slots_cache(&mut self, cpu: usize) {
        let area = self.swap.as_mut().expect("a slots cache implies a swap area");
        let c = &mut self.swap_slots.cpus[cpu];
        c.cur = 0;
        c.nr = 0;
        while c.nr < SWAP_SLOTS_CACHE_SIZE {
            let Some(slot) = area.alloc(1, MemcgId::NONE) else { break };
            area.set_held(slot, true);
            c.slots[c.nr] = slot;
            c.nr += 1;
        }
    }

    /// `free_swap_slot()` (mm/swap_slots.c, 6.1; 6.12) of `slot`, its swap count just dropped
    /// to 0: with the cache active, held in the running CPU's `slots_ret` at `SWAP_HAS_CACHE`
    /// (its swap charge kept; its zswap entry kept before 6.9, invalidated first from 6.9,
    /// 0827a1fb143f), the CPU's 64 held slots returned to the area first when it is full
    /// (`swapcache_free_entries()`); else freed at once (`swap_entry_free()`, which
    /// invalidates the entry in every era).
    pub fn free_swap_slot(&mut self, slot: u32) {
        if !(self.swap_slots.enabled() && self.swap_slots.active) {
            self.swap_entry_free(slot);
            return;
        }
        if self.profile.zswap_invalidate_on_slot_free {
            // zswap_invalidate(entry), the entry's objcg being the slot's memcg.
            let memcg = self.swap.as_ref().expect("a slot implies a swap area").slot_memcg(slot);
            self.zswap_invalidate(slot, memcg);
        }
        let cpu = self.this_cpu().min(self.swap_slots.cpus.len() - 1);
        if self.swap_slots.cpus[cpu].n_ret >= SWAP_SLOTS_CACHE_SIZE {
            self.swapcache_free_entries(cpu);
        }
        self.swap.as_mut().expect("a slot implies a swap area").set_held(slot, true);
        let c = &mut self.swap_slots.cpus[cpu];
        c.slots_ret[c.n_ret] = slot;
        c.n_ret += 1;
    }

    /// `swapcache_free_entries(cache->slots_ret, cache->n_ret)` of CPU `cpu`: each held slot
    /// back to the area in the order freed (`swap_entry_free()`).
    fn swapcache_free_entries(&mut self, cpu: usize) {
        let c = self.swap_slots.cpus[cpu];
        self.swap_slots.cpus[cpu].n_ret = 0;
        for &s in &c.slots_ret[..c.n_ret] {
            self.swap.as_mut().expect("a slot implies a swap area").set_held(s, false);
            self.swap_entry_free(s);
        }
    }

    /// `put_swap_folio()` (mm/swapfile.c, 6.1) of slots `slot..slot + nr` a failed swap charge
    /// gives back (nothing was recorded in `swap_cgroup`): a huge page's cluster straight to
    /// the area (`swap_free_cluster()`), a base page's slot through `free_swap_slot()`.
    pub(crate) fn put_swap_folio(&mut self, slot: u32, nr: u64) {
        let area = self.swap.as_mut().expect("a slot implies a swap area");
        for i in 0..nr as u32 {
            area.record_memcg(slot + i, MemcgId::NONE);
        }
        if nr > 1 {
            for i in 0..nr as u32 {
                area.free(slot + i);
            }
            return;
        }
        self.free_swap_slot(slot);
    }
}
