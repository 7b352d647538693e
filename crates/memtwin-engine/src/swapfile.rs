//! Swap: the swap area (mm/swapfile.c), swap-out of anonymous pages by reclaim
//! (mm/vmscan.c `shrink_folio_list()` -> `add_to_swap()` -> `pageout()`, mm/page_io.c
//! `swap_writepage()`), and swap-in at fault (mm/memory.c `do_swap_page()`).
//!
//! A swap area is a range of slots on a block device. Reclaim gives an inactive anonymous page
//! (or a whole huge page: THP swap-out, 4.13+) slots, writes it out and marks it
//! `PG_writeback` + `PG_reclaim`; when the write completes the page is rotated to the inactive
//! tail (`folio_end_writeback()`), and the next reclaim pass finds it clean in the swap cache
//! and frees it, leaving the slot in its VMA's page table. A later touch reads it back (one
//! page per fault; swap readahead, `page-cluster`, is not modelled) and frees the slot.

use crate::blkdev::Dir;
use crate::kernel::Kernel;
use crate::profile::KsmSwapinCopy;
use crate::memory::VmaId;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::page_alloc::PAGEBLOCK_NR;
use crate::memcontrol::{CgroupVersion, MemcgEvent};
use crate::types::{DevId, MemcgId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// No swap slot (`swp_entry_t` of 0 in a page table).
pub const NO_SLOT: u32 = u32::MAX;

/// `SWAPFILE_CLUSTER` (mm/swapfile.c, x86_64 with THP: `HPAGE_PMD_NR`, 512; 256 without):
/// how many slots the allocator hands out from one run before it looks for a free run again.
pub const SWAPFILE_CLUSTER: u64 = 512;

/// Slot `slot`'s bit in a per-slot bitmap of [`SwapArea`] (false past its end).
fn slot_bit(bits: &[u64], slot: u32) -> bool {
    bits.get(slot as usize / 64).is_some_and(|w| w & (1 << (slot % 64)) != 0)
}

/// Set or clear slot `slot`'s bit in a per-slot bitmap of [`SwapArea`] (grown with `used`).
fn set_slot_bit(bits: &mut [u64], slot: u32, on: bool) {
    if let Some(w) = bits.get_mut(slot as usize / 64) {
        if on {
            *w |= 1 << (slot % 64);
        } else {
            *w &= !(1 << (slot % 64));
        }
    }
}

/// `struct swap_info_struct` of a swap area on a rotational device (no `cluster_info`, the
/// allocation of mm/swapfile.c `scan_swap_map_slots()`), with its `swap_cgroup` map
/// (mm/swap_cgroup.c: the memcg each slot is charged to).
#[derive(Clone, Debug)]
pub struct SwapArea {
    /// The device holding the area.
    pub dev: DevId,
    /// First device page of the area.
    pub base: u64,
    /// Slots of the area, the header's (slot 0, `SWAP_MAP_BAD`) included (`si->max`).
    pub max: u64,
    /// Usable slots (`si->pages`: `max` less the header page).
    pub pages: u64,
    /// Slots in use (`inuse_pages`).
    pub inuse: u64,
    /// `swap_map[]` as bits: which slots are in use; grown on demand up to the highest slot
    /// used, so that host memory follows the swap used, not the area's size.
    used: Vec<u64>,
    /// Slots in use at `SWAP_HAS_CACHE` alone, held by a swap slots cache (swap_slots.rs: in
    /// a CPU's allocation batch or its `slots_ret`): no page table names them and no page
    /// caches them; `__read_swap_cache_async()` finds their swap count 0 and returns NULL
    /// (as bits, grown with `used`).
    held: Vec<u64>,
    /// Slots at `SWAP_HAS_CACHE` alone because the page table that named them dropped its
    /// reference while a large swap-cache folio kept them (a tail copied at its swap-in,
    /// [`crate::profile::KsmSwapinCopy`]): freed with that folio's swap-cache page (as bits,
    /// grown with `used`).
    cache_only: Vec<u64>,
    /// `swap_cgroup` ids: the memcg recorded for each slot (grown with `used`).
    memcg: Vec<MemcgId>,
    /// Whether the slot's swap charge was taken (v2: with the slot; v1: when the page was
    /// freed, `mem_cgroup_swapout()`), as bits (grown with `used`).
    charged: Vec<u64>,
    /// `si->cluster_next`: where the next scan starts.
    cluster_next: u64,
    /// `si->cluster_nr`: slots left before the allocator looks for a free run again.
    cluster_nr: u64,
    /// `si->lowest_bit`: the lowest free slot.
    lowest_bit: u64,
    /// The swap cache (`swapper_spaces`): the page holding each slot's data, mapped or not
    /// (grown with `used`).
    cache: Vec<PageId>,
    /// Shadow entries left in the swap cache by reclaim (`__delete_from_swap_cache(folio,
    /// entry, shadow)`, 5.9+), `NO_SHADOW` where none (grown with `used`).
    shadow: Vec<u64>,
    /// `prev_offset` of mm/swap_state.c: the slot of the last fault that found no readahead hit.
    ra_prev_offset: u64,
    /// `swapin_readahead_hits`: faults that found a readahead page since the last readahead
    /// ([`SWAP_RA_INIT_HITS`] at first).
    ra_hits: u64,
    /// `last_readahead_pages`: the last window.
    ra_last: u64,
    /// `SWP_SOLIDSTATE`: the area's device is not rotational (`bdev_nonrot()`); with no
    /// rotational area (`nr_rotate_swap` 0) swap-in reads ahead by virtual address.
    pub solidstate: bool,
    /// `SWP_BLKDEV`: the area is a block device (the QEMU guest's /dev/vdb), not a swap file
    /// on a file system (the host runner's); only a block device gives a large folio
    /// contiguous slots: an anonymous THP from 5.9 ([`ThpSwapOut`]), a large tmpfs folio
    /// (swapped out whole only from 6.12, shmem.rs [`crate::shmem::ShmemSwapOut`]).
    pub blkdev: bool,
}

/// What `add_to_swap()` of an anonymous PMD-mapped THP (`HPAGE_PMD_NR` = 512 pages) gets in
/// reclaim (`shrink_folio_list()`), per era (`KernelProfile::thp_swapout`). Where it gets
/// 512 contiguous slots the THP is written whole, one request (`THP_SWPOUT`); where not, 4.13+
/// `shrink_folio_list()` splits it (`split_folio_to_list(folio, folio_list)`, `THP_SPLIT_PAGE`,
/// `THP_SWPOUT_FALLBACK`), gives the head a slot and the tails, put on the list being
/// reclaimed, one each in the same pass ([`Kernel::split_huge_page_to_list`]). The test is
/// the swap allocator's for a cluster-sized request, the same one a large tmpfs folio meets
/// from 6.12 ([`crate::shmem::ShmemSwapOut`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThpSwapOut {
    /// Before 4.13: `add_to_swap()` takes one slot (`get_swap_page()`), then splits the THP
    /// (`split_huge_page_to_list(page, list)`); no slot, no split (the THP is activated).
    /// No `THP_SWPOUT_FALLBACK` (4.13's counter).
    Split,
    /// 4.13-5.8 (38d8b4e6bdc8 "mm, THP, swap: delay splitting THP during swap out", 4.13):
    /// `get_swap_pages(1, true, ..)` -> `swap_alloc_cluster()`, which needs a free cluster,
    /// and free clusters exist only with `cluster_info`, set up for a non-rotational device
    /// (`SWP_SOLIDSTATE`) - a swap file on one too, until 41663430588c "mm, THP, swap: fix
    /// allocating cluster for swapfile by mistake" (5.9).
    WholeNonrot,
    /// 5.9-6.13: as [`ThpSwapOut::WholeNonrot`] on a block device only (6.1 mm/swapfile.c
    /// `get_swap_pages()`: "if (size == SWAPFILE_CLUSTER) { if (si->flags & SWP_BLKDEV)
    /// n_ret = swap_alloc_cluster(si, swp_entries); }"; 6.10-6.13 `scan_swap_map_slots()`:
    /// "if (!(si->flags & SWP_BLKDEV) || !si->cluster_info) return 0").
    WholeNonrotBlkdev,
    /// 6.14+ (the swap allocator keeps `cluster_info` for every device): any block device
    /// (`cluster_alloc_swap_entry()`: "if (order && !(si->flags & SWP_BLKDEV)) return 0");
    /// never a swap file.
    WholeBlkdev,
}

/// What `add_to_swap()` + `pageout()` of an anonymous page did ([`Kernel::swap_writepage_res`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapOut {
    /// Given slots and written (or stored by zswap).
    Written,
    /// `add_to_swap()` failed: no slots (no area, the area full, no contiguous slots for a THP
    /// ([`ThpSwapOut`])) or memory.swap.max: a THP is split and its pages tried one by one.
    NoSlot,
    /// `pageout()`'s `AOP_WRITEPAGE_ACTIVATE` (memory.zswap.writeback 0): activated as it is.
    Activate,
}

/// No shadow entry in a swap-cache slot.
const NO_SHADOW: u64 = u64::MAX;

/// `page_cluster` (mm/swap.c `swap_setup()`: 3 above 16 MiB of RAM): swap readahead reads up
/// to `1 << page_cluster` = 8 slots around a faulting one.
pub const PAGE_CLUSTER: u32 = 3;

/// `SWAP_RA_ORDER_CEILING` (mm/swap_state.c, 64-bit): the VMA-based window is at most
/// `1 << min(page_cluster, 5)` pages.
pub const SWAP_RA_ORDER_CEILING: u32 = 5;

/// `SWAP_RA_HITS_MAX` (mm/swap_state.c: `SWAP_RA_HITS_MASK`, `(1 << SWAP_RA_WIN_SHIFT) - 1`
/// with `SWAP_RA_WIN_SHIFT = PAGE_SHIFT / 2`): the VMA's readahead hits saturate at 63.
pub const SWAP_RA_HITS_MAX: u32 = (1 << (12 / 2)) - 1;

/// The readahead hits a VMA or the swap area starts with (mm/swap_state.c, 6.1: "Initial
/// readahead hits is 4 to start up with a small window": `GET_SWAP_RA_VAL(vma)` reads a
/// zero `swap_readahead_info` as 4, and `swapin_readahead_hits` is `ATOMIC_INIT(4)`), so the
/// first swap fault reads a window of 8 (`__swapin_nr_pages()`: 4 + 2 rounded up).
pub const SWAP_RA_INIT_HITS: u32 = 4;

/// A new VMA's `swap_readahead_info` as (page, window, hits): address 0 (below any VMA, so
/// adjacent to no fault: [`NO_RA_PAGE`]), no window, [`SWAP_RA_INIT_HITS`].
pub const SWAP_RA_INIT: (u32, u32, u32) = (NO_RA_PAGE, 0, SWAP_RA_INIT_HITS);

/// The page of `SWAP_RA_INIT`: address 0 is below every VMA (`mmap_min_addr`), so no fault
/// is next to it.
pub const NO_RA_PAGE: u32 = u32::MAX;

/// `page->mapping` of an anonymous page in the swap cache that no page table maps (read by
/// swap readahead): its `index` is then its slot.
pub const SWAPPER: crate::types::InodeId = crate::types::InodeId(u32::MAX - 1);

/// `__swapin_nr_pages()` (mm/swap_state.c, 6.1): the readahead window for a fault at `offset`
/// given the previous fault's slot, the readahead hits since and the last window, at most
/// `max_pages`: hits + 2 rounded up to a power of two from 4; with no hits 2 for a fault next
/// to the previous one, else 1; never less than half the last window.
pub fn swapin_nr_pages(prev_offset: u64, offset: u64, hits: u64, max_pages: u64, prev_win: u64) -> u64 {
    let mut pages = hits + 2;
    if pages == 2 {
        if offset != prev_offset + 1 && offset + 1 != prev_offset {
            pages = 1;
        }
    } else {
        let mut roundup = 4;
        while roundup < pages {
            roundup <<= 1;
        }
        pages = roundup;
    }
    pages = pages.min(max_pages);
    pages.max(prev_win / 2)
}

impl SwapArea {
    /// An area of `slots` slots (page 0 the swap header) at device page `base` of `dev`
    /// (`mkswap` + `swapon`).
    pub fn new(dev: DevId, base: u64, slots: u64) -> SwapArea {
        let max = slots.max(1);
        SwapArea { dev, base, max, pages: max - 1, inuse: 0, used: vec![], held: vec![], cache_only: vec![], memcg: vec![], charged: vec![], cluster_next: 1, cluster_nr: SWAPFILE_CLUSTER - 1, lowest_bit: 1, cache: vec![], shadow: vec![], ra_prev_offset: 0, ra_hits: SWAP_RA_INIT_HITS as u64, ra_last: 0, solidstate: false, blkdev: true }
    }

    #[inline]
    fn is_used(&self, s: u64) -> bool {
        s == 0 || self.used.get((s / 64) as usize).is_some_and(|w| w & (1 << (s % 64)) != 0)
    }

    fn set_used(&mut self, s: u64, on: bool) {
        let w = (s / 64) as usize;
        if w >= self.used.len() {
            // Grown by an eighth at least (amortised), never past the area.
            let want = (w + 1).max(self.used.len() + self.used.len() / 8).min(self.max.div_ceil(64) as usize);
            self.used.resize(want, 0);
            self.held.resize(want, 0);
            self.cache_only.resize(want, 0);
            self.charged.resize(want, 0);
            self.memcg.resize(want * 64, MemcgId::NONE);
            self.cache.resize(want * 64, PageId::NIL);
            self.shadow.resize(want * 64, NO_SHADOW);
        }
        if on {
            self.used[w] |= 1 << (s % 64);
        } else {
            self.used[w] &= !(1 << (s % 64));
        }
    }

    /// The first free slot at or after `from` (wrapping to `lowest_bit` once), or `None`.
    fn next_free(&self, from: u64) -> Option<u64> {
        let scan = |lo: u64, hi: u64| -> Option<u64> {
            let mut s = lo;
            while s < hi {
                let w = (s / 64) as usize;
                let word = self.used.get(w).copied().unwrap_or(0) | if w == 0 { 1 } else { 0 };
                let free = !word & (u64::MAX << (s % 64));
                if free != 0 {
                    let f = (w as u64) * 64 + free.trailing_zeros() as u64;
                    return (f < hi).then_some(f);
                }
                s = (w as u64 + 1) * 64;
            }
            None
        };
        scan(from, self.max).or_else(|| scan(self.lowest_bit, from.min(self.max)))
    }

    /// The first run of `n` free slots from `lowest_bit` ("Locate the first empty (unaligned)
    /// cluster"), or `None`.
    fn free_run(&self, n: u64) -> Option<u64> {
        let mut s = self.lowest_bit;
        let mut run = 0;
        while s < self.max {
            let w = (s / 64) as usize;
            if s % 64 == 0 && run + 64 <= n && self.used.get(w).copied().unwrap_or(0) == 0 && w > 0 {
                run += 64;
                s += 64;
            } else if self.is_used(s) {
                run = 0;
                s += 1;
            } else {
                run += 1;
                s += 1;
            }
            if run >= n {
                return Some(s - n);
            }
        }
        None
    }

    /// `swap_alloc_cluster()` (6.1 mm/swapfile.c) of a PMD-sized folio: a cluster from
    /// `si->free_clusters`, wholly free and `SWAPFILE_CLUSTER`-aligned ("offset = idx *
    /// SWAPFILE_CLUSTER"), never cluster 0, which holds the header page (`setup_clusters()`;
    /// 6.12's and 6.14+'s allocators also take an empty cluster for an order-9 request), or
    /// `None` (the caller splits the folio; review61 M2: a free run across two clusters was
    /// taken before). The kernel takes the head of its free list, which `setup_clusters()`
    /// interleaves by `SWAP_CLUSTER_COLS` from a random start on an SSD; the engine takes the
    /// lowest free cluster (which moves the slots' numbers only).
    fn free_cluster(&self) -> Option<u64> {
        let words = (SWAPFILE_CLUSTER / 64) as usize;
        let mut c = 1u64;
        while (c + 1) * SWAPFILE_CLUSTER <= self.max {
            let w0 = (c * SWAPFILE_CLUSTER / 64) as usize;
            if (w0..w0 + words).all(|w| self.used.get(w).copied().unwrap_or(0) == 0) {
                return Some(c * SWAPFILE_CLUSTER);
            }
            c += 1;
        }
        None
    }

    /// `scan_swap_map_slots()` on a rotational device: the next free slot from `cluster_next`
    /// forward (wrapping), and every `SWAPFILE_CLUSTER` slots a new start at the first free
    /// run of that many from the lowest free slot, "to minimize the span of allocated swap".
    /// `n` > 1 (a huge page, `swap_alloc_cluster()`): `n` contiguous free slots. The slots are
    /// charged to `memcg` in the area's `swap_cgroup` map. `None` when the area is full.
    pub(crate) fn alloc(&mut self, n: u64, memcg: MemcgId) -> Option<u32> {
        if self.inuse + n > self.pages {
            return None;
        }
        let start = if n == SWAPFILE_CLUSTER {
            self.free_cluster()?
        } else if n > 1 {
            self.free_run(n)?
        } else {
            if self.cluster_nr == 0 {
                self.cluster_nr = SWAPFILE_CLUSTER - 1;
                if self.pages - self.inuse >= SWAPFILE_CLUSTER {
                    if let Some(r) = self.free_run(SWAPFILE_CLUSTER) {
                        self.cluster_next = r;
                    }
                }
            } else {
                self.cluster_nr -= 1;
            }
            self.next_free(self.cluster_next)?
        };
        for s in start..start + n {
            self.set_used(s, true);
            self.memcg[s as usize] = memcg;
        }
        self.cluster_next = start + n;
        self.inuse += n;
        if start == self.lowest_bit {
            self.lowest_bit = self.next_free(start + n).unwrap_or(self.max);
        }
        Some(start as u32)
    }

    /// `swap_entry_free()`: the slot is free again; returns the memcg recorded for it
    /// (`swap_cgroup_record(entry, 0)`) and whether it carried a swap charge.
    pub(crate) fn free(&mut self, slot: u32) -> (MemcgId, bool) {
        let s = slot as u64;
        debug_assert!(self.is_used(s) && s != 0, "freeing a free swap slot");
        self.set_used(s, false);
        self.set_held(slot, false);
        self.set_cache_only(slot, false);
        let charged = self.is_charged(slot);
        self.set_charged(slot, false);
        self.shadow[s as usize] = NO_SHADOW;
        self.inuse -= 1;
        if s < self.lowest_bit {
            self.lowest_bit = s;
        }
        (std::mem::replace(&mut self.memcg[s as usize], MemcgId::NONE), charged)
    }

    /// Whether slot `slot` carries its memcg's swap charge.
    pub fn is_charged(&self, slot: u32) -> bool {
        self.charged.get(slot as usize / 64).is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }

    /// Mark the swap charge of slot `slot` as taken or gone.
    pub fn set_charged(&mut self, slot: u32, on: bool) {
        if let Some(w) = self.charged.get_mut(slot as usize / 64) {
            if on {
                *w |= 1 << (slot % 64);
            } else {
                *w &= !(1 << (slot % 64));
            }
        }
    }

    /// Whether slot `slot` is in use (`__swp_swapcount() > 0` or cached), not one a swap
    /// slots cache holds at `SWAP_HAS_CACHE` alone (which `__read_swap_cache_async()` skips:
    /// "if (!__swp_swapcount(entry) && swap_slot_cache_enabled) return NULL").
    pub fn slot_in_use(&self, slot: u32) -> bool {
        (slot as u64) < self.max && self.is_used(slot as u64) && !self.is_held(slot)
    }

    /// Whether slot `slot` is allocated (`swap_map[]` nonzero), held by a slots cache or not.
    pub fn slot_allocated(&self, slot: u32) -> bool {
        (slot as u64) < self.max && self.is_used(slot as u64)
    }

    /// Whether a swap slots cache holds slot `slot` (`SWAP_HAS_CACHE` alone).
    pub fn is_held(&self, slot: u32) -> bool {
        slot_bit(&self.held, slot)
    }

    /// Mark slot `slot` held by a swap slots cache, or not.
    pub(crate) fn set_held(&mut self, slot: u32, on: bool) {
        set_slot_bit(&mut self.held, slot, on);
    }

    /// Whether slot `slot` is held by its swap-cache page alone, no page table naming it
    /// (`cache_only`).
    pub fn is_cache_only(&self, slot: u32) -> bool {
        slot_bit(&self.cache_only, slot)
    }

    /// Mark slot `slot` held by its swap-cache page alone, or not.
    pub(crate) fn set_cache_only(&mut self, slot: u32, on: bool) {
        set_slot_bit(&mut self.cache_only, slot, on);
    }

    /// Slots held by their swap-cache page alone, and of them those no page caches (for the
    /// invariants: the second is 0).
    pub fn cache_only_slots(&self) -> (u64, u64) {
        let mut n = (0, 0);
        for (w, &bits) in self.cache_only.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let slot = w * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                n.0 += 1;
                if self.cache.get(slot).is_none_or(|&p| p == PageId::NIL) {
                    n.1 += 1;
                }
            }
        }
        n
    }

    /// Slots a swap slots cache holds (for the invariants).
    pub fn held_slots(&self) -> u64 {
        self.held.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// `swap_cgroup_record()` of slot `slot` taken from a slots cache's batch: its memcg.
    pub(crate) fn record_memcg(&mut self, slot: u32, memcg: MemcgId) {
        if let Some(m) = self.memcg.get_mut(slot as usize) {
            *m = memcg;
        }
    }

    /// The swap-cache page of slot `slot` (`swap_cache_get_folio()`), or `PageId::NIL`.
    pub fn cache_get(&self, slot: u32) -> PageId {
        self.cache.get(slot as usize).copied().unwrap_or(PageId::NIL)
    }

    /// Put `p` in (or, with `PageId::NIL`, take it out of) the swap cache at `slot`.
    pub fn cache_set(&mut self, slot: u32, p: PageId) {
        if let Some(c) = self.cache.get_mut(slot as usize) {
            *c = p;
        }
    }

    /// Leave `shadow` in slot `slot` of the swap cache.
    fn set_shadow(&mut self, slot: u32, shadow: u64) {
        if let Some(x) = self.shadow.get_mut(slot as usize) {
            *x = shadow;
        }
    }

    /// `get_shadow_from_swap_cache()` (taking it).
    fn take_shadow(&mut self, slot: u32) -> Option<u64> {
        let x = self.shadow.get_mut(slot as usize)?;
        let s = std::mem::replace(x, NO_SHADOW);
        (s != NO_SHADOW).then_some(s)
    }

    /// `swapin_nr_pages()`: the readahead window for a fault at `slot` (consumes the hits).
    fn swapin_nr_pages(&mut self, slot: u32) -> u64 {
        let max_pages = 1u64 << PAGE_CLUSTER;
        let hits = std::mem::take(&mut self.ra_hits);
        let pages = swapin_nr_pages(self.ra_prev_offset, slot as u64, hits, max_pages, self.ra_last);
        if hits == 0 {
            self.ra_prev_offset = slot as u64;
        }
        self.ra_last = pages;
        pages
    }

    /// The memcg slot `slot` is charged to (`lookup_swap_cgroup_id()`).
    pub fn slot_memcg(&self, slot: u32) -> MemcgId {
        self.memcg.get(slot as usize).copied().unwrap_or(MemcgId::NONE)
    }

    /// Slots in use charged to each memcg (for the invariants): (memcg, slots).
    pub fn slots_by_memcg(&self) -> Vec<(MemcgId, u64)> {
        let mut m: std::collections::BTreeMap<u32, u64> = Default::default();
        for s in 1..(self.used.len() as u64 * 64).min(self.max) {
            if self.is_used(s) && self.is_charged(s as u32) {
                *m.entry(self.memcg[s as usize].0).or_default() += 1;
            }
        }
        m.into_iter().map(|(k, v)| (MemcgId(k), v)).collect()
    }
}

impl Kernel {
    /// Whether reclaim may swap: a swap area with free slots (`get_nr_swap_pages() > 0`).
    #[inline]
    pub fn can_swap(&self) -> bool {
        self.swap.as_ref().is_some_and(|s| s.inuse < s.pages)
    }

    /// `mem_cgroup_get_nr_swap_pages()` (6.1): the free slots `memcg` may still take, the
    /// global free slots capped by memory.swap.max - memory.swap.current of it and every
    /// ancestor below the root (cgroup v2; v1 and the root: the global free slots).
    pub fn mem_cgroup_get_nr_swap_pages(&self, memcg: MemcgId) -> u64 {
        let free = self.swap.as_ref().map_or(0, |s| s.pages - s.inuse);
        // No free slot: 0 without the walk up the tree (`get_scan_count()` asks at every
        // lruvec of every reclaim pass, swap or none).
        if free == 0 {
            return 0;
        }
        free.min(self.memcgs.swap_room(memcg))
    }

    /// `add_to_swap()` + `pageout()` of the anonymous page (or huge page) `p`: give it swap
    /// slots and write it out. Returns false when the swap area is full, or (cgroup v2) the
    /// slots would pass memory.swap.max of the page's memcg or an ancestor
    /// (`__mem_cgroup_try_charge_swap()`: memory.swap.events `max` at the memcg whose limit
    /// is in the way and `fail` at the page's, both counted up the hierarchy as
    /// `memcg_memory_event()` does); the page stays.
    pub fn swap_writepage(&mut self, p: PageId) -> bool {
        self.swap_writepage_res(p) == SwapOut::Written
    }

    /// Whether the swap area gives an anonymous THP 512 contiguous slots at all
    /// ([`ThpSwapOut`]; whether free ones are left is `folio_alloc_swap()`'s to find).
    pub(crate) fn thp_swap_cluster_ok(&self) -> bool {
        let Some(a) = self.swap.as_ref() else { return false };
        match self.profile.thp_swapout {
            ThpSwapOut::Split => false,
            ThpSwapOut::WholeNonrot => a.solidstate,
            ThpSwapOut::WholeNonrotBlkdev => a.blkdev && a.solidstate,
            ThpSwapOut::WholeBlkdev => a.blkdev,
        }
    }

    /// [`Kernel::swap_writepage`], saying why a page was not written ([`SwapOut`]).
    pub(crate) fn swap_writepage_res(&mut self, p: PageId) -> SwapOut {
        debug_assert!(!self.pages[p].test(pg::DIRTY), "a page reclaim gives slots is not a dirty swap-cache page");
        let nr = if self.pages[p].test(pg::HEAD) { PAGEBLOCK_NR } else { 1 };
        let memcg = self.pages[p].memcg;
        if self.swap.is_none() || (nr > 1 && !self.thp_swap_cluster_ok()) {
            return SwapOut::NoSlot;
        }
        if nr > 1 && !self.mem_cgroup_zswap_writeback_enabled(memcg) {
            // memory.zswap.writeback 0 (6.8+): zswap refuses a large folio (6.12's
            // zswap_store(): "Large folios aren't supported") and swap_writepage() returns
            // AOP_WRITEPAGE_ACTIVATE. The engine activates the huge page without giving it
            // slots (the kernel's keeps them in the swap cache): not written either way.
            return SwapOut::Activate;
        }
        let Some(slot) = self.folio_alloc_swap(nr, memcg) else { return SwapOut::NoSlot };
        if self.memcgs.version == CgroupVersion::V2 && memcg != MemcgId::NONE {
            if let Some(over) = self.memcgs.try_charge_swap(memcg, nr) {
                // put_swap_folio(): nothing recorded in swap_cgroup for the failed charge.
                self.put_swap_folio(slot, nr);
                self.memcg_memory_event(over, MemcgEvent::SwapMax);
                self.memcg_memory_event(memcg, MemcgEvent::SwapFail);
                return SwapOut::NoSlot;
            }
        }
        let v2 = self.memcgs.version == CgroupVersion::V2 && memcg != MemcgId::NONE;
        let area = self.swap.as_mut().expect("swap area");
        for i in 0..nr as u32 {
            // add_to_swap_cache()
            area.cache_set(slot + i, p);
            if v2 {
                area.set_charged(slot + i, true);
            }
        }
        let (dev, base) = (area.dev, area.base);
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
        let v = &mut self.vmas[vma];
        if v.swap.len() < v.pages.len() {
            v.swap.resize(v.pages.len(), NO_SLOT);
        }
        for i in 0..nr as usize {
            v.swap[index + i] = slot + i as u32;
        }
        let _ = (dev, base);
        let fill = self.vmas[vma].fill;
        if let Some(z) = self.zswap.as_mut() {
            z.note_fill(slot, fill);
        }
        // swap_writepage(): frontswap_store() first (zswap; not for a huge page, "THP isn't
        // supported"): taken, the write starts and ends at once, no I/O.
        if nr == 1 && self.zswap_store(p, slot) {
            self.pages[p].flags |= pg::SWAPCACHE;
            self.try_to_unmap_swapped(p, slot);
            return SwapOut::Written;
        }
        if !self.mem_cgroup_zswap_writeback_enabled(memcg) {
            // swap_writepage() (6.8+): "if (!mem_cgroup_zswap_writeback_enabled(folio_memcg(folio)))
            // { folio_mark_dirty(folio); return AOP_WRITEPAGE_ACTIVATE; }": the page keeps its
            // slot in the swap cache, unmapped (shrink_folio_list() unmapped it before
            // pageout()), dirty; the caller activates it (pageout()'s PAGE_ACTIVATE).
            self.pages[p].flags |= pg::SWAPCACHE | pg::DIRTY;
            self.try_to_unmap_swapped(p, slot);
            return SwapOut::Activate;
        }
        self.swap_submit_write(p, slot, nr);
        if nr > 1 {
            // count_swpout_vm_event(): THP_SWPOUT of a PMD-sized folio written whole (vmstat;
            // the engine keeps the global counter beside the tmpfs ones it reports).
            self.shmem_stat.thp_swpout += 1;
            // shrink_folio_list() (6.1): "if (folio_test_pmd_mappable(folio)) flags |=
            // TTU_SPLIT_HUGE_PMD; try_to_unmap(folio, flags);" - try_to_unmap_one() splits
            // the PMD first, then unmaps the 512 PTEs it made.
            self.split_huge_pmd_address(p);
        }
        self.try_to_unmap_swapped(p, slot);
        SwapOut::Written
    }

    /// `try_to_unmap()` of the anonymous page `p` that `add_to_swap()` put in the swap cache
    /// at `slot` (mm/vmscan.c `shrink_folio_list()` unmaps it before `pageout()`, 6.1;
    /// mm/rmap.c `try_to_unmap_one()` writes the swap entry into the PTE): the page table
    /// names the slot only, and the page, under writeback or written and not yet freed, is an
    /// unmapped swap-cache page (`mapping` = `SWAPPER`, `index` = its slot) no longer counted
    /// as mapped anonymous memory (`NR_ANON_MAPPED`, memory.stat `anon`). A touch before
    /// reclaim frees it is a minor fault that finds it in the swap cache (`do_swap_page()` ->
    /// `swap_cache_get_folio()`). The PTE's accessed bit goes with the PTE.
    ///
    /// A THP written whole (its PMD already split by [`Kernel::split_huge_pmd_address`]): each
    /// of its 512 PTEs becomes the swap entry of its own slot, `slot + i`
    /// (`try_to_unmap_one()` walks the folio's PTEs: "swp_entry_t entry = { .val =
    /// page_private(subpage) }", `swap_duplicate()`, `dec_mm_counter(MM_ANONPAGES)`,
    /// `inc_mm_counter(MM_SWAPENTS)`, `page_remove_rmap(subpage, vma, false)` ->
    /// `NR_ANON_MAPPED` less one a page: memory.stat `anon` drops by 512 at this unmap, the
    /// charge stays with the swap cache). The folio stays large, one LRU entry, in the swap
    /// cache at its 512 slots (`add_to_swap_cache()` stored it at each), unmapped, and
    /// `deferred_split_huge_page()` leaves it alone ("if (PageSwapCache(page)) return;",
    /// mm/huge_memory.c 6.1): reclaim frees it whole once written
    /// ([`Kernel::free_swapped_page_shadow`]; `destroy_large_folio()`).
    fn try_to_unmap_swapped(&mut self, p: PageId, slot: u32) {
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index);
        let memcg = self.pages[p].memcg;
        let nr = if self.pages[p].test(pg::HEAD) { PAGEBLOCK_NR } else { 1 };
        let v = &mut self.vmas[vma];
        for i in 0..nr as u32 {
            debug_assert!(v.pages[(index + i) as usize] == PageId(p.0 + i), "the page reclaim swaps out is mapped");
            v.pages[(index + i) as usize] = PageId::NIL;
            v.pte_mkold(index + i);
        }
        v.nr_resident -= nr;
        v.wp_clear_range(index, index + nr as u32);
        for i in 0..nr as u32 {
            // (a THP's tails name its slots too: page_private() of each subpage)
            let page = &mut self.pages[PageId(p.0 + i)];
            page.mapping = SWAPPER;
            page.index = slot + i;
        }
        self.vmstat.nr_anon_pages -= nr;
        self.vmstat.nr_swapcache_unmapped += nr;
        if memcg != MemcgId::NONE {
            let m = &mut self.memcgs.memcgs[memcg.idx()];
            m.nr_anon -= nr;
            m.nr_swapcache += nr;
        }
    }

    /// `__swap_writepage()` of the swap-cache page `p` (`nr` frames) to slots `slot..`: an
    /// async request (pageout()'s `WB_SYNC_NONE`), the page `PG_writeback` + `PG_reclaim`
    /// until `swap_end_io()`. Counted in pswpout at submission (`count_swpout_vm_event()`).
    /// Under a reclaim pass's plug ([`Kernel::blk_start_plug`]) the bio waits there
    /// (`blk_mq_submit_bio()` -> `blk_add_rq_to_plug()`) until the plug is flushed: its page
    /// stays under writeback with no completion time until then.
    pub(crate) fn swap_submit_write(&mut self, p: PageId, slot: u32, nr: u64) {
        let area = self.swap.as_ref().expect("swap area");
        let (dev, base) = (area.dev, area.base);
        self.cpu(self.cost.submit_io);
        let done = if self.swap_plug.active {
            self.swap_plug_bio(slot as u64, nr, true);
            self.swap_plug_pages.push(p);
            None
        } else {
            self.blk_get_request(dev.idx(), crate::blkdev::RqClass::Async, base + slot as u64, nr);
            Some(self.devices[dev.idx()].submit_swap_write(base + slot as u64, nr, self.now, self.profile.throtl_swap_in_debt))
        };
        self.vmstat.count(VmEvent::Pswpout, nr);
        self.vmstat.count(VmEvent::Pgpgout, nr * PAGE_SIZE / 1024);
        let pg_ = &mut self.pages[p];
        pg_.flags |= pg::SWAPCACHE | pg::WRITEBACK | pg::RECLAIM;
        self.vmstat.nr_writeback += 1;
        if p.idx() >= self.wb_done.len() {
            self.wb_done.resize(self.pages.len().max(p.idx() + 1), 0);
        }
        match done {
            Some(done) => self.swap_write_dispatched(p, nr, done),
            None => self.wb_done[p.idx()] = crate::types::Nanos::MAX,
        }
    }

    /// The swap write of `p` (`nr` frames) is on the device and completes at `done`, or, when
    /// the device model gives it no time at all (`qemu_throttle` with its bucket idle: the
    /// image file beneath is not modelled), at the clock's next instant: its
    /// `end_swap_bio_write()` -> `folio_end_writeback()` runs from the device's completion
    /// interrupt (virtio-blk `vblk_done()` -> `blk_mq_complete_request()`, 6.12), which comes
    /// after the dispatching CPU has gone on from `blk_mq_flush_plug_list()`; never within the
    /// path that dispatched it. So a completion is not handled before what that path does at
    /// the dispatch instant in the engine's time: the `lru_add_drain()` of the next
    /// `shrink_inactive_list()` that the engine reaches at the instant of `blk_finish_plug()`
    /// moves the batched page zswap wrote back to the LRU first, and its completion rotates it
    /// (`folio_rotate_reclaimable()`), where before the tie put the completion first and the
    /// page, still in the batch, was not rotated. This next-instant rule is the swap writes'
    /// only: file I/O on the same device still completes at the dispatch instant itself
    /// (blkdev `BlockDevice::submit_qemu`), the same tie left as it is because only this swap
    /// rotation path was shown to depend on it and moving file completions would move many
    /// committed outputs (review10 L3, left for a later session).
    ///
    /// The write is no task's `write_bytes` (/proc/PID/io): that is `task_io_account_write()`,
    /// which the kernel calls from `folio_account_dirtied()` (mm/page-writeback.c) and direct
    /// I/O only; `swap_writepage()` -> `__swap_writepage()` (mm/page_io.c, 6.1) has
    /// none, where a swap-in's read is counted at `submit_bio()` (block/blk-core.c,
    /// `task_io_account_read()`). 6.18 on the host: the hog steps of host-stall-hog-swap write
    /// 0 bytes while pswpout counts 30,159-34,773 pages (stall23).
    fn swap_write_dispatched(&mut self, p: PageId, _nr: u64, done: crate::types::Nanos) {
        let done = done.max(self.now + 1);
        self.wb_done[p.idx()] = done;
        self.swap_wb_queue.push(std::cmp::Reverse((done, p.0)));
        self.alloc_due = self.alloc_due.min(done);
    }

    /// `blk_start_plug()` at the start of `shrink_lruvec()` (mm/vmscan.c) or of a swap
    /// readahead (mm/swap_state.c): the swap I/O submitted until `blk_finish_plug()` waits in
    /// the task's plug. Returns whether this call started it: a plug started inside another is
    /// the outer one ("if (tsk->plug) return"). Every era plugs (`shrink_lruvec()` since 3.0);
    /// what differs is when the plug is flushed (`KernelProfile::blk_plug_peek`).
    pub fn blk_start_plug(&mut self) -> bool {
        !std::mem::replace(&mut self.swap_plug.active, true)
    }

    /// `blk_finish_plug()` at the end of `shrink_lruvec()`: dispatch what the plug holds.
    pub fn blk_finish_plug(&mut self) {
        self.blk_flush_plug();
        self.swap_plug.active = false;
    }

    /// `blk_mq_flush_plug_list()`: dispatch the plug's swap requests, oldest first (a
    /// readahead's reads by `swap_readpage()`), each with its request allocated then (the engine takes the tag at dispatch, not when the
    /// request was built). Called by `blk_add_rq_to_plug()` when the plug is full, at
    /// `blk_finish_plug()`, and before the task sleeps (`schedule()` -> `sched_submit_work()`
    /// -> `blk_flush_plug()`; [`Kernel::wait_until`]).
    pub fn blk_flush_plug(&mut self) {
        if self.swap_plug.rqs.is_empty() {
            return;
        }
        let mut rqs = std::mem::take(&mut self.swap_plug.rqs);
        let mut pages = std::mem::take(&mut self.swap_plug_pages);
        let dev = self.swap.as_ref().expect("a plugged swap write has a swap area").dev.idx();
        let base = self.swap.as_ref().expect("swap area").base;
        let mut i = 0;
        for &(start, n, write) in &rqs {
            if !write {
                self.swap_readpages((start - base, start - base + n - 1));
                continue;
            }
            self.blk_get_request(dev, crate::blkdev::RqClass::Async, start, n);
            let done = self.devices[dev].submit_swap_write(start, n, self.now, self.profile.throtl_swap_in_debt);
            let mut left = n;
            while left > 0 {
                let p = pages[i];
                i += 1;
                let nr = if self.pages[p].test(pg::HEAD) { PAGEBLOCK_NR } else { 1 };
                self.swap_write_dispatched(p, nr, done);
                left = left.saturating_sub(nr);
            }
        }
        debug_assert_eq!(i, pages.len(), "every plugged page is in one request");
        rqs.clear();
        pages.clear();
        // Keep the vectors' capacity; a nested flush (a request wait above) found them empty.
        debug_assert!(self.swap_plug.rqs.is_empty() && self.swap_plug_pages.is_empty());
        self.swap_plug.rqs = rqs;
        self.swap_plug_pages = pages;
    }

    /// `folio_end_writeback()` of swap writes completed by now: the page leaves
    /// `PG_writeback` and, marked for immediate reclaim, goes to the inactive anon tail.
    #[inline]
    pub fn swap_end_io(&mut self) {
        // Called on every allocation: the test for a due completion stays in the caller.
        if self.swap_wb_queue.peek().is_some_and(|r| r.0 .0 <= self.now) {
            self.swap_end_io_due();
        }
    }

    /// [`Kernel::swap_end_io`] once a completion is due.
    #[inline(never)]
    fn swap_end_io_due(&mut self) {
        while let Some(&std::cmp::Reverse((done, p))) = self.swap_wb_queue.peek() {
            if done > self.now {
                break;
            }
            self.swap_wb_queue.pop();
            let p = PageId(p);
            let page = self.pages[p];
            if !page.test(pg::ANON) || !page.test(pg::WRITEBACK) || self.wb_done[p.idx()] != done {
                continue; // unmapped and freed meanwhile
            }
            self.pages[p].flags &= !pg::WRITEBACK;
            self.vmstat.nr_writeback -= 1;
            // A page zswap wrote back that a fault mapped meanwhile has left the swap cache.
            // folio_rotate_reclaimable() passes over an unevictable (mlocked) page.
            if page.test(pg::SWAPCACHE) && page.test(pg::RECLAIM) && page.test(pg::LRU) && page.lru() != LruList::Unevictable as u8 {
                self.folio_rotate_reclaimable(p, LruList::InactiveAnon);
            } else if self.folio_in_lru_batch(p) {
                // folio_end_writeback(): "if (folio_test_reclaim(folio)) {
                // folio_clear_reclaim(folio); folio_rotate_reclaimable(folio); }" - a page
                // still in a CPU's lru_add batch (zswap's writeback page) is not on the LRU:
                // not rotated, it goes to the head of the inactive list when the batch moves.
                self.pages[p].flags &= !pg::RECLAIM;
            }
        }
    }

    /// `__remove_mapping()` of a clean swap-cache page: unmap it (the page table keeps the
    /// slot) or, read by readahead and never mapped, take it out of the swap cache
    /// (`__delete_from_swap_cache()`), uncharge and free it. Returns the pages freed.
    pub fn free_swapped_page(&mut self, p: PageId) -> u64 {
        self.free_swapped_page_shadow(p, None)
    }

    /// [`Kernel::free_swapped_page`] by two-list reclaim aimed at `target`: from 5.9 the slot
    /// keeps a shadow entry (`workingset_eviction()` in `__remove_mapping()`).
    pub fn free_swapped_page_shadow(&mut self, p: PageId, target: Option<MemcgId>) -> u64 {
        if self.pages[p].test(pg::DIRTY) && !self.pages[p].test(pg::HEAD) {
            // shrink_folio_list() of a dirty swap-cache page: one a store mapped while its
            // swap-out was in flight (do_swap_page() could not free its slot; try_to_unmap()
            // moves the PTE's dirty bit to the folio), or one zswap_load() filled and dirtied
            // (6.18's exclusive loads): pageout() writes it to the same slot (zswap first);
            // the page goes back to the inactive list under writeback.
            self.pages[p].flags &= !pg::DIRTY;
            let mapped = self.pages[p].mapping != SWAPPER;
            let slot = if mapped {
                let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
                self.vmas[vma].swap[index]
            } else {
                self.pages[p].index
            };
            let stored = if mapped { self.zswap_store(p, slot) } else { self.zswap_store_unmapped(p, slot) };
            if !stored && !self.mem_cgroup_zswap_writeback_enabled(self.pages[p].memcg) {
                // swap_writepage()'s AOP_WRITEPAGE_ACTIVATE (memory.zswap.writeback 0, 6.8+):
                // dirty again, unmapped, activated.
                self.pages[p].flags |= pg::DIRTY | pg::ACTIVE;
                if mapped {
                    self.try_to_unmap_swapped(p, slot);
                }
                let lv = self.folio_lruvec(p);
                self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
                return 0;
            }
            if !stored {
                self.swap_submit_write(p, slot, 1);
            }
            if mapped {
                self.try_to_unmap_swapped(p, slot);
            }
            if !self.pages[p].test(pg::WRITEBACK) {
                // zswap took it: clean, freed now.
                return self.free_swapped_page_shadow(p, target);
            }
            let lv = self.folio_lruvec(p);
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
            return 0;
        }
        let memcg = self.pages[p].memcg;
        let huge = self.pages[p].test(pg::HEAD);
        let nr = if huge { PAGEBLOCK_NR } else { 1 };
        let unmapped = self.pages[p].mapping == SWAPPER;
        let slot = if unmapped {
            self.pages[p].index
        } else {
            let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
            self.vmas[vma].swap[index]
        };
        if self.memcgs.version == CgroupVersion::V1 && memcg != MemcgId::NONE {
            // mem_cgroup_swapout() (v1): the memsw charge moves from the page to its swap
            // entry (memory.stat `swap`), and the page's memory charge goes.
            self.memcgs.swap_charge(memcg, nr);
            let area = self.swap.as_mut().expect("a swap-cache page has slots");
            for i in 0..nr as u32 {
                area.set_charged(slot + i, true);
            }
        }
        self.cpu(self.cost.evict_page);
        let shadow = match target {
            Some(t) if self.profile.anon_workingset && self.profile.workingset_refault && !huge => Some(self.workingset_eviction(p, t)),
            _ => None,
        };
        let area = self.swap.as_mut().expect("a swap-cache page has slots");
        for i in 0..nr as u32 {
            area.cache_set(slot + i, PageId::NIL);
        }
        if let Some(sh) = shadow {
            area.set_shadow(slot, sh);
        }
        if unmapped {
            if huge {
                // A THP written whole and unmapped at its swap-out: freed whole
                // (`destroy_large_folio()`), its 512 pages uncharged as one folio.
                self.free_pageblock(p);
            } else {
                self.free_page(p);
            }
            self.uncharge_swapcache(memcg, nr);
            // put_swap_folio(): a slot no page table names any more (its tail copied at a
            // swap-in, KsmSwapinCopy) drops to a count of 0 with SWAP_HAS_CACHE and is freed
            // (free_swap_slot()).
            for i in 0..nr as u32 {
                if self.swap.as_ref().expect("a swap-cache page has slots").is_cache_only(slot + i) {
                    self.swap.as_mut().expect("a swap-cache page has slots").set_cache_only(slot + i, false);
                    self.free_swap_slot(slot + i);
                }
            }
            return nr;
        }
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
        for i in 0..nr as usize {
            self.vmas[vma].pages[index + i] = PageId::NIL;
        }
        self.vmas[vma].wp_clear_range(index as u32, (index as u64 + nr) as u32);
        self.vmas[vma].nr_resident -= nr;
        if huge {
            self.free_pageblock(p);
        } else {
            self.free_page(p);
        }
        self.uncharge_anon(memcg, nr, 1);
        nr
    }

    /// Whether `p` is a swap-cache page whose read has not completed (locked, as
    /// `__read_swap_cache_async()` leaves it until `swap_readpage()`'s I/O ends): reclaim
    /// cannot take it.
    #[inline]
    pub fn swap_read_pending(&self, p: PageId) -> bool {
        let page = &self.pages[p];
        page.test(pg::SWAPCACHE) && !page.test(pg::WRITEBACK) && page.mapping == SWAPPER && self.wb_done.get(p.idx()).is_some_and(|&d| d > self.now)
    }

    /// The swap-cache page at `slot` (`swap_cache_get_folio()`), `NIL` when none, as a base
    /// page: a slot of a THP written whole and unmapped at its swap-out
    /// ([`Kernel::try_to_unmap_swapped`]) splits that folio first
    /// ([`Kernel::split_swapcache_thp`], the engine's approximation), for the callers that
    /// take one page of it ([`Kernel::do_swap_page`], [`Kernel::swap_free`]).
    fn swap_cache_base_page(&mut self, slot: u32) -> PageId {
        let p = self.swap.as_ref().expect("a slot implies a swap area").cache_get(slot);
        if p == PageId::NIL || !self.pages[p].test(pg::HEAD) {
            return p;
        }
        self.split_swapcache_thp(p);
        self.swap.as_ref().expect("swap area").cache_get(slot)
    }

    /// The uncharge of a freed swap-cache folio of `nr` pages no page table mapped.
    fn uncharge_swapcache(&mut self, memcg: MemcgId, nr: u64) {
        self.vmstat.nr_swapcache_unmapped -= nr;
        if memcg == MemcgId::NONE {
            return;
        }
        self.memcgs.counter_uncharge(memcg, nr);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_swapcache -= nr;
        // uncharge_folio(): one PGPGOUT per folio uncharged.
        m.events[crate::memcontrol::MemcgEvent::Pgpgout as usize] += 1;
        if m.state == crate::memcontrol::MemcgState::Dying && m.counter.usage == 0 {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// `swap_use_vma_readahead()`: `vma_ra_enabled` (on by default) and no rotational swap
    /// area (`nr_rotate_swap` 0), from 4.14.
    #[inline]
    pub fn swap_use_vma_readahead(&self) -> bool {
        self.profile.swap_vma_readahead && self.swap.as_ref().is_some_and(|a| a.solidstate)
    }

    /// `do_swap_page()`: page `index` of `vma` was swapped out. Look its slot up in the swap
    /// cache (`swap_cache_get_folio()`: a page readahead brought counts `swap_ra_hit`, a hit
    /// of the area's readahead or, VMA-based, of the VMA's, whose last address it also
    /// moves); if it is not there, `swapin_readahead()` reads ahead —
    /// `swap_vma_readahead()` when [`Kernel::swap_use_vma_readahead`], else
    /// `swap_cluster_readahead()` (a rotational swap device, as the guest's virtio disk is
    /// unless its queue says otherwise) — and the fault is major. Wait for the page's read,
    /// map it (`swap_free()` drops the PTE's reference to the slot), and free the slot with the
    /// page's place in the swap cache when [`Kernel::should_try_to_free_swap`] says so: a
    /// store (`write`), or swap half full. A load otherwise leaves the page in the swap cache
    /// with its slot, clean, its PTE in [`crate::memory::Vma::wrprotect`]: evicted before a
    /// store dirties it, it needs no new write (`shrink_folio_list()` finds it clean and
    /// `__remove_mapping()` frees it; no pswpout). Returns the frame, or `None` when no
    /// memory could be had.
    pub fn do_swap_page(&mut self, vma: VmaId, index: u32, nid: u32, write: bool) -> Option<PageId> {
        let slot = self.vmas[vma.0 as usize].swap[index as usize];
        let fault_memcg = self.vmas[vma.0 as usize].memcg;
        self.cpu(self.cost.anon_fault);
        let vma_ra = self.swap_use_vma_readahead();
        // A subpage of a THP written whole and unmapped at its swap-out, still in the swap
        // cache, is a minor fault. 4.14-6.7 (KsmSwapinCopy): ksm_might_need_to_copy() maps a
        // copy of it ([`Kernel::do_swap_page_copy`]). 6.8-6.9's do_swap_page() maps this one
        // subpage (`folio_file_page(folio, swp_offset(entry))`, `page_add_anon_rmap()`) and
        // keeps the folio large (6.10+ maps all of its PTEs at once when they are its
        // entries); the engine splits it first and maps the page as a base swap-cache page.
        let cached = self.swap.as_ref().expect("a slot implies a swap area").cache_get(slot);
        if cached != PageId::NIL && self.pages[cached].test(pg::HEAD) && self.profile.swapin_copies_large_tails != KsmSwapinCopy::None {
            if vma_ra {
                // swap_cache_get_folio(): the VMA's readahead address moves to this fault's.
                let ra = &mut self.vmas[vma.0 as usize].swap_ra;
                *ra = (index, ra.1, ra.2);
            }
            return self.do_swap_page_copy(vma, index, slot, nid, write);
        }
        let mut pfn = self.swap_cache_base_page(slot);
        // A window of one reads the faulting page synchronously (`read_swap_cache_async(...,
        // do_poll = true)`: `swap_readpage()` waits for its bio), so the page comes back
        // unlocked; otherwise the fault may find it locked under its read.
        let mut sync_read = false;
        if pfn != PageId::NIL {
            let readahead = self.pages[pfn].test(pg::READAHEAD);
            if vma_ra {
                // SWAP_RA_VAL(addr, win, hits): hits + 1 (at most SWAP_RA_HITS_MAX) on a
                // readahead page, the address moved to this fault's either way.
                let ra = &mut self.vmas[vma.0 as usize].swap_ra;
                *ra = (index, ra.1, if readahead { (ra.2 + 1).min(SWAP_RA_HITS_MAX) } else { ra.2 });
            }
            if readahead {
                self.pages[pfn].flags &= !pg::READAHEAD;
                self.vmstat.count(VmEvent::SwapRaHit, 1);
                if !vma_ra {
                    self.swap.as_mut().expect("swap area").ra_hits += 1;
                }
            }
        } else {
            self.count_pgmajfault(fault_memcg);
            let win = if vma_ra { self.swap_vma_readahead(vma, index, nid, fault_memcg) } else { self.swap_cluster_readahead(slot, nid, fault_memcg) };
            sync_read = win == 1;
            pfn = self.swap.as_ref().expect("swap area").cache_get(slot);
            if pfn == PageId::NIL {
                // swap_cluster_readahead() ends with read_swap_cache_async() of the faulting
                // slot: its page, filled from zswap (no read to wait for, unlocked) and
                // referenced by nothing, may have been reclaimed by a later page's charge;
                // it is read again, alone.
                if self.read_swap_cache_async(slot, false, nid, fault_memcg) {
                    let p = self.swap.as_ref().expect("swap area").cache_get(slot);
                    if !self.zswap_load(slot, p) {
                        self.swap_readpages((slot as u64, slot as u64));
                    }
                }
                pfn = self.swap.as_ref().expect("swap area").cache_get(slot);
            }
            if pfn == PageId::NIL {
                return None;
            }
        }
        // folio_lock_or_retry(): a page still being read is waited for.
        // folio_wait_bit_common() (6.1): waiting for the read of a workingset page is
        // thrashing, a memory stall; the read's submission was the swapin delay.
        if let Some(&done) = self.wb_done.get(pfn.idx()) {
            if done > self.now && !self.pages[pfn].test(pg::WRITEBACK) {
                if !sync_read && self.profile.pgfault_counts_retries {
                    // folio_lock_or_retry() fails on the locked page: the fault drops
                    // mmap_lock, waits for the unlock and returns VM_FAULT_RETRY; the retry,
                    // a second handle_mm_fault(), is counted in pgfault again (before 6.4)
                    // and finds the page in the swap cache.
                    self.count_pgfault(fault_memcg, false);
                }
                if self.pages[pfn].test(pg::WORKINGSET) {
                    self.stalled(crate::delayacct::StallKind::Thrashing, |k| k.wait_until(done));
                } else if !self.profile.swapin_delay_in_readpage {
                    // before 6.1 here: DELAYACCT_PF_SWAPIN around lock_page_or_retry()
                    self.stalled(crate::delayacct::StallKind::Swapin, |k| k.wait_until(done));
                } else {
                    self.wait_until(done);
                }
            }
        }
        debug_assert!(self.pages[pfn].mapping == SWAPPER, "a swap-cache page of a swapped-out PTE is unmapped");
        let memcg = self.pages[pfn].memcg;
        self.vmstat.nr_swapcache_unmapped -= 1;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_swapcache -= 1;
            self.memcgs.memcgs[memcg.idx()].nr_anon += 1;
        }
        self.vmstat.nr_anon_pages += 1;
        // should_try_to_free_swap(): folio_free_swap() for a store (the refcount test: the
        // page is this PTE's alone) or when swap is getting full; it fails on a page still
        // under writeback (a swap-out reclaim started and the fault caught): that page stays
        // in the swap cache, mapped, with its slot, as a load's does.
        if write && !self.pages[pfn].test(pg::LRU) {
            // 6.1 do_swap_page(): "Try removing the extra reference from the local LRU
            // pagevecs if required": a store's swap-cache page off the LRU -> lru_add_drain().
            self.lru_add_drain();
        }
        let writeback = self.pages[pfn].test(pg::WRITEBACK);
        let locked = self.vmas[vma.0 as usize].locked;
        let free = !writeback && self.should_try_to_free_swap(memcg, write, locked);
        let pg_ = &mut self.pages[pfn];
        pg_.mapping = crate::types::InodeId(vma.0);
        pg_.index = index;
        pg_.flags &= !pg::READAHEAD;
        if free {
            // Out of the swap cache the page's dirtiness is its PTE's, which the engine does
            // not track for anonymous memory: only a swap-cache page's is.
            pg_.flags &= !(pg::SWAPCACHE | pg::DIRTY);
        } else if write {
            // The store the fault is for dirties the PTE (`pte_mkdirty()`): the next unmap
            // makes the folio dirty, and reclaim writes it to its slot again.
            pg_.flags |= pg::DIRTY;
        }
        let v = &mut self.vmas[vma.0 as usize];
        v.pages[index as usize] = pfn;
        if free {
            v.swap[index as usize] = NO_SLOT;
        }
        if !write {
            // A load maps the PTE without FAULT_FLAG_WRITE: write-protected (before 6.11) or
            // writable and clean; the store that follows dirties it.
            v.wp_set(index);
        }
        v.nr_resident += 1;
        v.mkyoung(index);
        if free {
            // folio_free_swap(): out of the swap cache, the slot freed.
            self.swap.as_mut().expect("swap area").cache_set(slot, PageId::NIL);
            self.swap_free(slot);
        }
        if locked {
            // page_add_anon_rmap() -> mlock_vma_page() (6.1): mapped into a VM_LOCKED VMA,
            // to the unevictable list.
            self.mlock_folio(pfn);
            return Some(pfn);
        }
        if !self.profile.anon_fault_inactive && !self.pages[pfn].test(pg::ACTIVE) && self.pages[pfn].test(pg::LRU) {
            // Before 5.9 do_swap_page() activated the page (`activate_page()`).
            let lv = self.folio_lruvec(pfn);
            self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, pfn);
            self.pages[pfn].flags |= pg::ACTIVE;
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, pfn, LruList::ActiveAnon);
            self.update_rotated(lv, false, 1);
        }
        Some(pfn)
    }

    /// `do_swap_page()` of page `index` of `vma` whose slot `slot` a large swap-cache folio
    /// holds (an anonymous THP written whole, unmapped at its swap-out), 4.14-6.7 with
    /// `CONFIG_KSM` ([`KsmSwapinCopy`]): `ksm_might_need_to_copy()` finds the subpage's
    /// `page->index` unset (only a THP's head has it) and copies it: `alloc_page_vma()`
    /// (`post_alloc_hook()`'s init_on_alloc zeroing), `mem_cgroup_charge()` to the faulting
    /// mm's memcg (a failed charge is the fault's OOM: `None`), `copy_user_highpage()`,
    /// KSM_SWPIN_COPY. The copy is mapped as a new anonymous page (`page_add_new_anon_rmap()`
    /// + `folio_add_lru_vma()`: memory.stat `anon`, the inactive anon list), writable for a
    /// store, read-only for a load ("exclusive": no copy at the store that follows);
    /// `swap_free(entry)` drops the PTE's reference to the slot, which the folio's
    /// `SWAP_HAS_CACHE` keeps allocated and charged until reclaim frees the folio
    /// ([`Kernel::free_swapped_page_shadow`] frees its cache-only slots then). The folio
    /// stays in the swap cache, unmapped, on its LRU list, charged: a THP swapped out whole
    /// and touched again holds its 512 pages beside the 512 copies. The head's own fault in
    /// the kernel maps the folio's head page (its index is set), where the engine, which keeps
    /// no partly mapped large swap-cache folio, copies it too (one page a THP).
    pub(crate) fn do_swap_page_copy(&mut self, vma: VmaId, index: u32, slot: u32, nid: u32, write: bool) -> Option<PageId> {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let pfn = self.alloc_pages(0, crate::page_alloc::Gfp::node(nid))?;
        self.post_alloc_init(1);
        if self.try_charge_memcg(memcg, 1, true).is_err() {
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return None;
        }
        self.cpu(self.cost.copy_page);
        if self.profile.swapin_copies_large_tails == KsmSwapinCopy::CopyCounted {
            self.shmem_stat.ksm_swpin_copy += 1;
        }
        self.anon_page_install(vma, index, pfn, memcg);
        if !write {
            self.vmas[v].wp_set(index);
        }
        // swap_free(entry): the PTE's reference goes; the slot stays while a swap-cache page
        // holds it (the charge's reclaim may have freed the folio meanwhile).
        self.vmas[v].swap[index as usize] = NO_SLOT;
        let area = self.swap.as_mut().expect("a slot implies a swap area");
        let folio = area.cache_get(slot);
        if folio != PageId::NIL {
            area.set_cache_only(slot, true);
            if self.pages[folio].test(pg::HEAD) && self.pages[folio].index == slot {
                // The head's fault: the kernel maps the folio's head page here.
                self.swapcache_head_copies.push((vma, index, folio, slot));
            }
        } else {
            self.free_swap_slot(slot);
        }
        Some(pfn)
    }

    /// `lruvec_del_folio()` of a swap-cache folio about to be freed: off its LRU list, or out
    /// of a CPU's lru_add batch (its slot emptied) when it still waits there.
    fn folio_off_lru(&mut self, p: PageId) {
        if self.folio_in_lru_batch(p) {
            self.folio_unbatch(p);
        } else {
            let lv = self.folio_lruvec(p);
            self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
        }
    }

    /// `zap_pte_range()` -> `free_swap_cache()` (mm/swap_state.c 6.1) of the large swap-cache
    /// folios whose head page `vma` mapped (4.14-6.7, [`Kernel::do_swap_page_copy`]), at its
    /// munmap: a folio no swap PTE names any more (each of its slots held by the swap cache
    /// alone) and not under writeback leaves the swap cache (`folio_free_swap()` ->
    /// `delete_from_swap_cache()`, `put_swap_folio()`: its slots freed) and is freed, its 512
    /// pages uncharged. One still named by a swap PTE stays to that PTE's zap (the engine then
    /// splits it, [`Kernel::swap_free`]) or to reclaim; so does one under writeback.
    pub(crate) fn free_copied_swapcache_folios(&mut self, vma: VmaId) {
        if self.swapcache_head_copies.is_empty() {
            return;
        }
        let mut links = std::mem::take(&mut self.swapcache_head_copies);
        links.retain(|&(v, _, head, slot)| {
            if v != vma {
                return true;
            }
            let p = self.pages[head];
            let area = self.swap.as_ref().expect("a copied folio had slots");
            let whole = p.test(pg::HEAD) && p.test(pg::SWAPCACHE) && p.mapping == SWAPPER && p.index == slot && area.cache_get(slot) == head;
            if whole && !p.test(pg::WRITEBACK) && (0..PAGEBLOCK_NR as u32).all(|i| area.is_cache_only(slot + i)) {
                self.folio_off_lru(head);
                for i in 0..PAGEBLOCK_NR as u32 {
                    let area = self.swap.as_mut().expect("a copied folio had slots");
                    area.cache_set(slot + i, PageId::NIL);
                    area.set_cache_only(slot + i, false);
                    self.free_swap_slot(slot + i);
                }
                self.free_pageblock(head);
                self.uncharge_swapcache(p.memcg, PAGEBLOCK_NR);
            }
            false
        });
        self.swapcache_head_copies = links;
    }

    /// A swap-in of `slot` by a task in `memcg` that found nothing in the swap cache, with no
    /// VMA (`shmem_swapin()` -> `swap_cluster_readahead()`, mm/swap_state.c 6.1): the window
    /// around the slot, then the slot alone when the window did not leave it cached (as
    /// [`Kernel::do_swap_page`] does).
    pub(crate) fn swap_cluster_readahead_at(&mut self, slot: u32, nid: u32, memcg: MemcgId) {
        self.swap_cluster_readahead(slot, nid, memcg);
        if self.swap.as_ref().expect("swap area").cache_get(slot) == PageId::NIL && self.read_swap_cache_async(slot, false, nid, memcg) {
            let p = self.swap.as_ref().expect("swap area").cache_get(slot);
            if !self.zswap_load(slot, p) {
                self.swap_readpages((slot as u64, slot as u64));
            }
        }
    }

    /// A swap-cache readahead hit outside a fault's VMA (`swap_cache_get_folio(entry, NULL,
    /// 0)`: `swapin_readahead_hits` counts it).
    pub(crate) fn swap_ra_hit_novma(&mut self) {
        self.swap.as_mut().expect("swap area").ra_hits += 1;
    }

    /// `folio_free_swap()` of swap-cache page `p`: only a base page a page table maps (a
    /// swap-in a load mapped, its slot kept; nothing else names the slot, `folio_swapped()`
    /// false) and not under writeback leaves the swap cache, its slot freed; it is dirty then
    /// (`folio_set_dirty()`: memory holds the only copy), which for a page out of the swap
    /// cache the engine leaves to the PTE. An unmapped swap-cache page (readahead's: its
    /// swap PTE still names the slot) stays. Returns whether the slot was freed.
    pub fn folio_free_swap(&mut self, p: PageId) -> bool {
        let page = self.pages[p];
        if !page.test(pg::SWAPCACHE) || page.flags & (pg::WRITEBACK | pg::HEAD) != 0 || page.mapping == SWAPPER {
            return false;
        }
        let (v, index) = (page.mapping.0 as usize, page.index as usize);
        let slot = self.vmas[v].swap[index];
        self.vmas[v].swap[index] = NO_SLOT;
        self.pages[p].flags &= !(pg::SWAPCACHE | pg::DIRTY);
        self.swap.as_mut().expect("swap area").cache_set(slot, PageId::NIL);
        self.swap_free(slot);
        true
    }

    /// `should_try_to_free_swap()` (mm/memory.c, 6.1; the same rule in 6.18 for a base page:
    /// `folio_ref_count(folio) == 1 + folio_nr_pages(folio)`) of a page `do_swap_page()` found
    /// in the swap cache, charged to `memcg`: free its slot when swap is getting full
    /// ([`Kernel::mem_cgroup_swap_full`]) or for a store (`FAULT_FLAG_WRITE`, the page
    /// referenced by the swap cache and the fault only; nothing else holds one in the engine:
    /// no KSM, no fork, no GUP), or when the VMA is `VM_LOCKED` (`locked`: "(vma->vm_flags &
    /// VM_LOCKED) || folio_test_mlocked(folio)"; the page will not be swapped out again while
    /// locked, its slot would only take swap space).
    pub fn should_try_to_free_swap(&self, memcg: MemcgId, write: bool, locked: bool) -> bool {
        write || locked || self.mem_cgroup_swap_full(memcg)
    }

    /// `mem_cgroup_swap_full()` (mm/memcontrol.c, 6.1): `vm_swap_full()` (fewer than half the
    /// slots free: `nr_swap_pages * 2 < total_swap_pages`), or on cgroup v2 `memcg` or an
    /// ancestor below the root using half its memory.swap.max (memory.swap.high is not
    /// modelled: its default, max, never counts).
    pub fn mem_cgroup_swap_full(&self, memcg: MemcgId) -> bool {
        let Some(area) = self.swap.as_ref() else { return false };
        if (area.pages - area.inuse) * 2 < area.pages {
            return true;
        }
        if self.memcgs.version != CgroupVersion::V2 || memcg == MemcgId::NONE {
            return false;
        }
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            if c == MemcgId::ROOT {
                break;
            }
            let m = &self.memcgs.memcgs[c.idx()];
            if m.swap.saturating_mul(2) >= m.swap_max {
                return true;
            }
            cur = m.parent;
        }
        false
    }

    /// `swap_cluster_readahead()` (mm/swap_state.c, 6.1) for a fault at `slot`: read the
    /// `swapin_nr_pages()` window, aligned, around it (never the header), each slot in use
    /// and not cached yet into a new swap-cache page (`__read_swap_cache_async()`: charged to
    /// the memcg the slot records, `mem_cgroup_swapin_charge_folio()`, on the inactive anon
    /// list), the others marked `PG_readahead` and counted in `swap_ra`; contiguous reads are
    /// one request (the plug). With a window of one, or when the readahead could not read the
    /// faulting slot, it is read alone (`read_swap_cache_async()`). Returns the window.
    fn swap_cluster_readahead(&mut self, slot: u32, nid: u32, fault_memcg: MemcgId) -> u64 {
        let area = self.swap.as_mut().expect("swap area");
        let mask = area.swapin_nr_pages(slot) - 1;
        let max = area.max;
        let (start, end) = if mask > 0 { (((slot as u64) & !mask).max(1), ((slot as u64) | mask).min(max - 1)) } else { (slot as u64, slot as u64) };
        let plugged = self.blk_start_plug();
        for s in start..=end {
            let read = self.read_swap_cache_async(s as u32, s as u32 != slot, nid, fault_memcg);
            // swap_readpage(): frontswap_load() first; a zswap entry fills the page, no bio.
            let read = read && {
                let p = self.swap.as_ref().expect("swap area").cache_get(s as u32);
                !self.zswap_load(s as u32, p)
            };
            if read {
                self.swap_ra_read(s);
            }
        }
        if plugged {
            self.blk_finish_plug();
        }
        if mask > 0 {
            // "lru_add_drain();	/* Push any new pages onto the LRU now */" (a window of
            // one skips it: "goto skip").
            self.lru_add_drain();
        }
        mask + 1
    }

    /// `swap_vma_readahead()` (mm/swap_state.c, 6.1) for a fault at page `index` of `vma`:
    /// `swap_ra_info()` sizes the window with `__swapin_nr_pages()` from the VMA's last
    /// fault page, window and hits (at most `1 << min(page_cluster, SWAP_RA_ORDER_CEILING)`),
    /// records (this page, window, 0 hits), and places it forward from the fault after a
    /// fault on the page before, backward after one on the page after, else centred
    /// (`(win - 1) / 2` pages before), clamped to the VMA and to the fault's page table
    /// (`swap_ra_clamp_pfn()`, a 2 MiB range). Every page of the window whose PTE holds a swap
    /// entry is read into the swap cache (the others but the faulting one `PG_readahead`,
    /// `swap_ra`); reads of adjacent slots are one request (the plug). A window of one reads
    /// the faulting page alone. Returns the window.
    fn swap_vma_readahead(&mut self, vma: VmaId, index: u32, nid: u32, fault_memcg: MemcgId) -> u64 {
        let v = vma.0 as usize;
        let max_win = 1u64 << PAGE_CLUSTER.min(SWAP_RA_ORDER_CEILING);
        let (prev, prev_win, hits) = self.vmas[v].swap_ra;
        let win = swapin_nr_pages(prev as u64, index as u64, hits as u64, max_win, prev_win as u64);
        self.vmas[v].swap_ra = (index, win as u32, 0);
        let (f, w) = (index as i64, win as i64);
        let (lo, hi) = if win == 1 {
            (f, f + 1)
        } else if f == prev as i64 + 1 {
            (f, f + w)
        } else if prev as i64 == f + 1 {
            (f - w + 1, f + 1)
        } else {
            let left = (w - 1) / 2;
            (f - left, f + w - left)
        };
        let pmd = f & !(PAGEBLOCK_NR as i64 - 1);
        let (lo, hi) = (lo.max(0).max(pmd) as u32, (hi.min(self.vmas[v].pages.len() as i64).min(pmd + PAGEBLOCK_NR as i64)) as u32);
        let plugged = self.blk_start_plug();
        for i in lo..hi {
            let vv = &self.vmas[v];
            let s = vv.swap.get(i as usize).copied().unwrap_or(NO_SLOT);
            if s == NO_SLOT || vv.pages[i as usize] != PageId::NIL {
                continue; // not a swap PTE
            }
            let read = self.read_swap_cache_async(s, i != index, nid, fault_memcg) && {
                let p = self.swap.as_ref().expect("swap area").cache_get(s);
                !self.zswap_load(s, p)
            };
            if !read {
                continue;
            }
            self.swap_ra_read(s as u64);
        }
        if plugged {
            self.blk_finish_plug();
        }
        if win > 1 {
            // swap_vma_readahead(): "lru_add_drain();" after the window (not for a window of
            // one: "goto skip").
            self.lru_add_drain();
        }
        win
    }

    /// `swap_readpage()` of a readahead's page at `slot`: into the task's plug (the
    /// readahead's own, or the one a reclaim pass or an outer readahead started): a back merge
    /// into its newest request, or a new request, the plug flushed first when
    /// `blk_add_rq_to_plug()` says so ([`crate::blkdev::BlkPlug::flush_before`]).
    pub(crate) fn swap_ra_read(&mut self, slot: u64) {
        debug_assert!(self.swap_plug.active, "a swap readahead runs under a plug");
        self.swap_plug_bio(slot, 1, false);
    }

    /// `blk_mq_submit_bio()` -> `blk_add_rq_to_plug()` of a swap bio of `nr` pages at `slot`
    /// into the task's plug: the plug flushed first when it says so
    /// ([`crate::blkdev::BlkPlug::flush_before`]), then merged into the newest request within
    /// the swap device's [`crate::blkdev::BlockDevice::plug_rq_pages`], or a new request.
    fn swap_plug_bio(&mut self, slot: u64, nr: u64, write: bool) {
        let area = self.swap.as_ref().expect("swap area");
        let (start, rq_max) = (area.base + slot, self.devices[area.dev.idx()].plug_rq_pages());
        if self.swap_plug.flush_before(start, nr, write, rq_max, self.profile.blk_plug_peek, self.profile.blk_max_request_count) {
            self.blk_flush_plug();
        }
        self.swap_plug.add(start, nr, write, rq_max);
    }

    /// `__read_swap_cache_async()` of slot `slot`: a new page in the swap cache for it, unless
    /// the slot is free or cached already, or no memory can be had. Returns whether a page was
    /// added (its read is for the caller to submit).
    pub(crate) fn read_swap_cache_async(&mut self, slot: u32, readahead: bool, nid: u32, fault_memcg: MemcgId) -> bool {
        let area = self.swap.as_ref().expect("swap area");
        if !area.slot_in_use(slot) || area.cache_get(slot) != PageId::NIL {
            return false;
        }
        let recorded = area.slot_memcg(slot);
        let memcg = if recorded != MemcgId::NONE && self.memcgs.get(recorded).state != crate::memcontrol::MemcgState::Freed { recorded } else { fault_memcg };
        let Some(pfn) = self.alloc_pages(0, crate::page_alloc::Gfp::node(nid)) else { return false };
        // post_alloc_hook(): GFP_HIGHUSER_MOVABLE without __GFP_ZERO, zeroed under init_on_alloc.
        self.post_alloc_init(1);
        // The allocation's reclaim may have freed or cached the slot meanwhile.
        let area = self.swap.as_ref().expect("swap area");
        if !area.slot_in_use(slot) || area.cache_get(slot) != PageId::NIL || self.try_charge_memcg(memcg, 1, true).is_err() {
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return false;
        }
        if !self.swap.as_ref().expect("swap area").slot_in_use(slot) || self.swap.as_ref().expect("swap area").cache_get(slot) != PageId::NIL {
            // The charge's reclaim took it: give the charge back.
            self.memcgs.counter_uncharge(memcg, 1);
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return false;
        }
        self.pages.init(pfn, SWAPPER, slot);
        let p = &mut self.pages[pfn];
        p.memcg = memcg;
        p.flags |= pg::ANON | pg::SWAPBACKED | pg::SWAPCACHE | if readahead { pg::READAHEAD } else { 0 };
        let area = self.swap.as_mut().expect("swap area");
        area.cache_set(slot, pfn);
        if self.memcgs.version == CgroupVersion::V1 && area.is_charged(slot) {
            // mem_cgroup_swapin_uncharge_swap() (v1): the memsw charge is the page's now.
            area.set_charged(slot, false);
            let rec = area.slot_memcg(slot);
            self.memcgs.swap_uncharge(rec, 1);
        }
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_swapcache += 1;
        // mem_cgroup_swapin_charge_folio() -> charge_memcg() -> mem_cgroup_charge_statistics():
        // one PGPGIN per folio charged, as for a new anonymous page.
        m.events[crate::memcontrol::MemcgEvent::Pgpgin as usize] += 1;
        self.vmstat.nr_swapcache_unmapped += 1;
        if readahead {
            self.vmstat.count(VmEvent::SwapRa, 1);
        }
        if let Some(shadow) = self.swap.as_mut().expect("swap area").take_shadow(slot) {
            // __read_swap_cache_async(): "if (shadow) workingset_refault(folio, shadow)".
            self.workingset_refault_anon(pfn, shadow);
        }
        // The read is submitted with its run; until it completes the page is locked
        // (`__read_swap_cache_async()` returns it locked, and `swap_readpage()`'s completion
        // unlocks it): reclaim by the charges of the window's later pages cannot take it
        // (`folio_trylock()` fails in `shrink_folio_list()`), before its submission either.
        if pfn.idx() >= self.wb_done.len() {
            self.wb_done.resize(self.pages.len().max(pfn.idx() + 1), 0);
        }
        self.wb_done[pfn.idx()] = crate::types::Nanos::MAX;
        self.swapin_lru_add(pfn);
        self.page_events += 1;
        true
    }

    /// `swap_readpage()` of the pages read for slots `first..=last` as one request.
    fn swap_readpages(&mut self, (first, last): (u64, u64)) {
        let area = self.swap.as_ref().expect("swap area");
        let (dev, base) = (area.dev, area.base);
        let n = last - first + 1;
        self.cpu(self.cost.submit_io);
        // swap_readpage() (6.1): the submission is the swapin delay (delayacct_swapin_start()
        // .. _end(): "when the device is congested ... submission can be a significant part
        // of overall IO time"), a sync request; the fault waits for the page's lock after.
        self.stalled(crate::delayacct::StallKind::Swapin, |k| k.blk_get_request(dev.idx(), crate::blkdev::RqClass::Sync, base + first, n));
        let done = self.devices[dev.idx()].submit(Dir::Read, base + first, n, self.now);
        self.io.read_bytes += n * PAGE_SIZE;
        self.vmstat.count(VmEvent::Pswpin, n);
        self.vmstat.count(VmEvent::Pgpgin, n * PAGE_SIZE / 1024);
        for s in first..=last {
            let p = self.swap.as_ref().expect("swap area").cache_get(s as u32);
            if p != PageId::NIL {
                self.wb_done[p.idx()] = done;
            }
        }
    }


    /// The LRU list of a page read from swap: the inactive anon list (`folio_add_lru()` in
    /// `__read_swap_cache_async()`, every era; before 5.9 `do_swap_page()` then activated the
    /// page it mapped), the active one when its refault activated it (5.9+); under lru_gen
    /// the youngest generation when read by a fault (`lru_gen_in_fault()`).
    fn swapin_lru_add(&mut self, pfn: PageId) {
        let lv = self.folio_lruvec(pfn);
        if self.lru_gen_in_fault {
            // folio_add_lru() under lru_gen (6.1): during a fault, PG_active - the youngest
            // generation, the faulting page and its readahead alike.
            self.pages[pfn].flags |= pg::ACTIVE;
        }
        let active = self.pages[pfn].test(pg::ACTIVE);
        if self.folio_add_lru_batched(pfn) {
            self.update_page_reclaim_stat(lv, false, 1, active);
            return;
        }
        self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, pfn, if active { LruList::ActiveAnon } else { LruList::InactiveAnon });
        self.update_page_reclaim_stat(lv, false, 1, active);
    }

    /// `swap_free()` of a slot no page table names any more (the page was read back with a
    /// write fault: `should_try_to_free_swap()`, or unmapped): `swap_entry_free()` and
    /// `__mem_cgroup_uncharge_swap()` of the memcg it was charged to; a page readahead left in
    /// the swap cache for it goes too (`free_swap_and_cache()`). A dying memcg whose last
    /// charge this was is freed (swap entries hold a reference to it).
    pub fn swap_free(&mut self, slot: u32) {
        // (the engine keeps no large swap-cache folio part of whose slots are gone)
        let cached = self.swap_cache_base_page(slot);
        let area = self.swap.as_mut().expect("a slot implies a swap area");
        if cached != PageId::NIL {
            area.cache_set(slot, PageId::NIL);
            let p = self.pages[cached];
            if p.mapping == SWAPPER && p.index == slot && p.test(pg::SWAPCACHE) {
                self.folio_off_lru(cached);
                if p.test(pg::WRITEBACK) {
                    // An unmapped page under swap-out: its write completes on its own.
                    self.vmstat.nr_writeback -= 1;
                }
                self.free_page(cached);
                self.uncharge_swapcache(p.memcg, 1);
            }
        }
        // __swap_entry_free(): the count drops to 0 -> free_swap_slot() (swap_slots.rs: held
        // in the CPU's slots cache on 4.11-6.14, else freed now).
        self.free_swap_slot(slot);
    }

    /// `swap_entry_free()` (mm/swapfile.c, 6.1; from `swapcache_free_entries()`): the slot at
    /// `SWAP_HAS_CACHE` alone goes back to the area, `mem_cgroup_uncharge_swap()` of the memcg
    /// it was charged to, and `swap_range_free()`'s `frontswap_invalidate_page()` frees its
    /// zswap entry.
    pub(crate) fn swap_entry_free(&mut self, slot: u32) {
        let area = self.swap.as_mut().expect("a slot implies a swap area");
        let (memcg, charged) = area.free(slot);
        // swap_range_free() -> frontswap_invalidate_page() (zswap_invalidate() to 6.8; from
        // 6.9 free_swap_slot() invalidated a cached slot's entry already, and this finds none)
        self.zswap_invalidate(slot, memcg);
        if memcg == MemcgId::NONE {
            return;
        }
        // v2 charged the slot when it was allocated; v1 when the page was freed, so a slot
        // whose page is still resident (under writeback, or in the swap cache) has no swap
        // charge yet.
        if charged {
            self.memcgs.swap_uncharge(memcg, 1);
        }
        if self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Dying {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// `memcg_memory_event()`: count `ev` at `memcg` and, as memory.events is hierarchical
    /// on v2, at every ancestor (memory.swap.events too).
    pub fn memcg_memory_event(&mut self, memcg: MemcgId, ev: MemcgEvent) {
        // The engine's memory.stat events are local and summed per subtree when read
        // (`MemcgTree::events`), so one count at the memcg stands for the hierarchy.
        self.memcgs.count_event(memcg, ev, 1);
    }

    /// `free_swap_and_cache()` of every slot a VMA still holds (munmap).
    pub fn free_vma_swap(&mut self, vma: VmaId) {
        let slots = std::mem::take(&mut self.vmas[vma.0 as usize].swap);
        for &s in &slots {
            if s != NO_SLOT {
                self.swap_free(s);
            }
        }
        let mut slots = slots;
        slots.clear();
        self.vmas[vma.0 as usize].swap = slots;
    }

    /// The swap area's size and use, in pages: (total, in use).
    pub fn swap_usage(&self) -> (u64, u64) {
        self.swap.as_ref().map(|s| (s.pages, s.inuse)).unwrap_or((0, 0))
    }
}
