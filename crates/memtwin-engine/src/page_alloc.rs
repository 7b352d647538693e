//! The page allocator (mm/page_alloc.c): NUMA nodes with zones, per-zone watermarks, a buddy
//! allocator per zone, the zonelist fallback order, kswapd per node, direct reclaim and
//! direct compaction for the allocating task, the NUMA counters, and the zonelist cache of
//! kernels before 4.4 (the seed-002 policy `zonelist_cache`).
//!
//! Page frame numbers are the engine's `PageId`s: zones own disjoint PFN ranges laid out node
//! by node (node 0's DMA32, node 0's Normal, node 1's Normal, ...), so the frame a page sits
//! in says its zone, its node and its pageblock, as `page_zone()` and `pfn_to_nid()` do.
//!
//! The buddy allocator keeps the two orders the modelled workloads ask for: order 0 (every
//! page-cache and base anonymous page) and `pageblock_order` = `HPAGE_PMD_ORDER` = 9
//! (transparent huge pages). A pageblock is either wholly free (on the order-9 free list),
//! partly free (its free frames are the order-0 free list, found by a bitmap), or full.
//! Freeing the last used frame of a pageblock merges it back into an order-9 block. Orders
//! 1 to 8 are read from the bitmaps where they matter (the page cache's large folios,
//! `rmqueue_order`; a fallback's largest buddy, `block_buddies`), not kept as lists. A
//! pageblock's migratetype is Movable or not (Unmovable and Reclaimable together), with a
//! partial list each; a movable allocation falls back into the non-movable one
//! (`Zone::rmqueue_fallback`).

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::profile::{FallbackSteal, KernelProfile};
use crate::types::{int_sqrt, InodeId, Nanos, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// `pageblock_order` on x86_64 (= `HPAGE_PMD_ORDER`).
pub const PAGEBLOCK_ORDER: u32 = 9;
/// Pages in a pageblock.
pub const PAGEBLOCK_NR: u64 = 1 << PAGEBLOCK_ORDER;
/// `pageblock_order / 2`: the lowest order of a buddy whose pageblock a movable allocation's
/// fallback tries to claim (`can_steal_fallback()`, 6.15 `should_try_claim_block()`).
const CLAIM_ORDER: usize = PAGEBLOCK_ORDER as usize / 2;
/// `LOCAL_DISTANCE` (include/linux/topology.h): the SLIT distance of a node to itself.
pub const LOCAL_DISTANCE: u32 = 10;
/// `REMOTE_DISTANCE`: the default SLIT distance between two nodes.
pub const REMOTE_DISTANCE: u32 = 20;
/// kswapd's short sleep once it has balanced its node, before it decides whether to sleep
/// fully: `kswapd_try_to_sleep()`'s `schedule_timeout(HZ/10)` (mm/vmscan.c, 3.13-6.12).
pub const KSWAPD_SHORT_SLEEP: Nanos = crate::types::NSEC_PER_SEC / 10;

/// The zonelist cache's zap interval: `zlc->last_full_zap + HZ`, one second.
pub const ZLC_ZAP_INTERVAL: Nanos = 1_000_000_000;
/// `congestion_wait()` / `wait_iff_congested()` timeout in the allocator's retry loop, in
/// jiffies (what [`Kernel::congestion_wait`] takes): `HZ/50`, 20 ms (mm/page_alloc.c
/// `__alloc_pages_slowpath()` before 4.7: `wait_iff_congested(preferred_zone, BLK_RW_ASYNC,
/// HZ/50)`).
pub const CONGESTION_WAIT_JIFFIES: u64 = crate::timer::HZ / 50;
/// `MAX_RECLAIM_RETRIES` of mm/page_alloc.c (4.7+; mm/internal.h later): rounds of direct
/// reclaim without progress before the allocator gives up on an order-0 request.
pub const MAX_RECLAIM_RETRIES: u32 = 16;

/// `CONFIG_PCP_BATCH_SCALE_MAX` (mm/Kconfig, 6.7+, default 5): the largest `alloc_factor`
/// of a per-CPU list, whose refills take at most `batch << 5` frames, and the cap of its
/// `free_count`.
pub const PCP_BATCH_SCALE_MAX: u32 = 5;
/// `MIN_PERCPU_PAGELIST_HIGH_FRACTION` (mm/page_alloc.c, 5.14+): 8, the fraction of a zone
/// whose share per CPU is a per-CPU list's `high_max` (6.7+).
pub const MIN_PERCPU_PAGELIST_HIGH_FRACTION: u64 = 8;
/// `sysctl_stat_interval` (mm/vmstat.c): `HZ`, the period of each CPU's `vmstat_update()`,
/// which runs `decay_pcp_high()` on its lists.
pub const STAT_INTERVAL: Nanos = 1_000_000_000;

/// Pages of ZONE_DMA on x86_64 (`MAX_DMA_PFN`: the first 16 MiB).
pub const ZONE_DMA_PAGES: u64 = 4096;
/// `sysctl_lowmem_reserve_ratio[ZONE_DMA]` (mm/page_alloc.c, 2.6 to 6.x): 256.
pub const LOWMEM_RESERVE_RATIO_DMA: u64 = 256;

/// `enum zone_type` (the zones x86_64 machines have memory in).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ZoneType {
    /// `ZONE_DMA32`: the first 4 GiB of physical memory, on node 0.
    Dma32,
    /// `ZONE_NORMAL`.
    Normal,
}

impl ZoneType {
    /// The zone's name in /proc/zoneinfo.
    pub fn name(self) -> &'static str {
        match self {
            ZoneType::Dma32 => "DMA32",
            ZoneType::Normal => "Normal",
        }
    }
}

/// `enum zone_watermarks` index used by `alloc_flags & ALLOC_WMARK_MASK`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wmark {
    /// `WMARK_MIN`.
    Min,
    /// `WMARK_LOW`.
    Low,
    /// `WMARK_HIGH`.
    High,
}

/// `watermark_boost_factor` (mm/page_alloc.c, 5.0+; the sysctl's default 15000, per 10000 of
/// the high watermark): the most a zone's watermarks are boosted by.
pub const WATERMARK_BOOST_FACTOR: u64 = 15000;

/// One pageblock's free frames.
#[derive(Clone, Debug)]
struct Pageblock {
    /// Bit i set = frame `start + i` is free.
    bits: [u64; 8],
    /// Free frames.
    nr_free: u16,
    /// Frames the block has (512, fewer for a zone's last block).
    cap: u16,
    /// Links of the partial-block list (block indices within the zone; `u32::MAX` = none).
    prev: u32,
    next: u32,
    /// Whether it is on the partial list.
    on_partial: bool,
    /// Its migratetype, MIGRATE_MOVABLE or not (Unmovable and Reclaimable together): a block
    /// a non-movable allocation took while wholly free is claimed for it (`steal_suitable_fallback()`
    /// at `current_order >= pageblock_order`: `change_pageblock_range()`), a wholly free block
    /// a movable one takes is movable again. Its partial list is its type's.
    movable: bool,
    /// Bit w set: word w of `bits` has changed since [`Zone::chunks`] last counted it, and
    /// its aligned chunks are left out of the zone's counts until the next read of them
    /// (`Zone::chunks_now`). A `Cell`: the read that folds them in is `&self`.
    stale: std::cell::Cell<u8>,
}

const NO_BLOCK: u32 = u32::MAX;

/// The orders whose free chunks `Zone::nr_free_in_chunks` counts (1 to `CHUNK_ORDERS`).
const CHUNK_ORDERS: usize = 6;

/// Bit i set where i is a multiple of `1 << order`: the starts of naturally aligned chunks of
/// that order in a 64-frame word (index `order - 1`).
const CHUNK_STARTS: [u64; CHUNK_ORDERS] = {
    let mut m = [0u64; CHUNK_ORDERS];
    let mut o = 1;
    while o <= CHUNK_ORDERS {
        let n = 1u32 << o;
        let mut i = 0;
        while i < 64 {
            m[o - 1] |= 1 << i;
            i += n;
        }
        o += 1;
    }
    m
};

/// Free, naturally aligned chunks of `1 << order` frames in the 64 frames of `word` (bit set =
/// frame free): bit i of `all` ends up set when bits i..i+n of the word are all set.
#[inline(always)]
fn word_chunks(word: u64, order: usize) -> u64 {
    chunk_starts(word, order).count_ones() as u64
}

/// [`word_chunks`] of `word` for every order 1..=`CHUNK_ORDERS` (index `order - 1`), in one
/// pass of shifts.
#[inline(always)]
pub(crate) fn word_chunk_counts(word: u64) -> [u64; CHUNK_ORDERS] {
    let mut c = [0u64; CHUNK_ORDERS];
    let mut all = word;
    for o in 1..=CHUNK_ORDERS {
        all &= all >> (1u32 << (o - 1));
        c[o - 1] = (all & CHUNK_STARTS[o - 1]).count_ones() as u64;
    }
    c
}

/// Partial pageblocks `rmqueue_order()` looks at before it splits a free one: a bound on the
/// cost of a large-folio allocation, whatever the machine's size.
pub const RMQUEUE_PARTIAL_SCAN: u32 = 64;

/// The offset of the first naturally aligned run of `1 << order` free frames in a
/// pageblock's bitmap (orders 1..=8), or `None`.
fn find_free_run(bits: &[u64; 8], order: u32) -> Option<u32> {
    if order as usize <= CHUNK_ORDERS {
        for (w, &word) in bits.iter().enumerate() {
            let starts = chunk_starts(word, order as usize);
            if starts != 0 {
                return Some(w as u32 * 64 + starts.trailing_zeros());
            }
        }
        None
    } else {
        let words = 1usize << (order - 6);
        (0..8).step_by(words).find(|&w| bits[w..w + words].iter().all(|&x| x == u64::MAX)).map(|w| w as u32 * 64)
    }
}

/// The starts (bit i: frame i of the word) of the free, naturally aligned chunks of
/// `1 << order` frames in a 64-frame bitmap word, orders 0..=6.
#[inline(always)]
fn chunk_starts(word: u64, order: usize) -> u64 {
    if order == 0 {
        return word;
    }
    let n = 1u32 << order;
    let mut all = word;
    let mut s = 1;
    while s < n {
        all &= all >> s;
        s <<= 1;
    }
    all & CHUNK_STARTS[order - 1]
}

/// The free buddies of a pageblock's bitmap as the kernel's `free_area[]` lists hold them
/// (each free run split into naturally aligned blocks, each as large as its alignment and the
/// run allow: `__free_one_page()` merges a block with its free buddy): the offset of the
/// first buddy of each order 0..=8 in the block, `None` where it has none of that order
/// (a chunk of order o is a buddy when the chunk of order o + 1 holding it is not free).
fn block_buddies(bits: &[u64; 8]) -> [Option<u32>; PAGEBLOCK_ORDER as usize] {
    let mut first = [None; PAGEBLOCK_ORDER as usize];
    for o in 0..CHUNK_ORDERS {
        let n = 1u32 << o;
        for (w, &word) in bits.iter().enumerate() {
            let parent = chunk_starts(word, o + 1);
            let inside = parent | (parent << n);
            let mine = chunk_starts(word, o) & !inside;
            if mine != 0 {
                first[o] = Some(w as u32 * 64 + mine.trailing_zeros());
                break;
            }
        }
    }
    // Orders 6..=8 are runs of whole words: order o spans 2^(o-6) words, aligned.
    let full = |w: usize| bits[w] == u64::MAX;
    let chunk = |w: usize, o: usize| (w..w + (1usize << (o - 6))).all(full);
    for o in CHUNK_ORDERS..PAGEBLOCK_ORDER as usize {
        let words = 1usize << (o - 6);
        first[o] = (0..8).step_by(words).find(|&w| {
            let parent_free = if o + 1 < PAGEBLOCK_ORDER as usize { chunk(w & !(2 * words - 1), o + 1) } else { (0..8).all(full) };
            chunk(w, o) && !parent_free
        }).map(|w| w as u32 * 64);
    }
    first
}

/// The boot's non-movable pool (`[machine] nonmovable_free`): the free pages the boot left in
/// node 0's first zone's Unmovable and Reclaimable pageblocks below pageblock order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NonmovablePool {
    /// Their number (`nonmovable_free = N`).
    Pages(u64),
    /// Their free buddies by order 0..=8, as /proc/pagetypeinfo lists them (`nonmovable_free =
    /// [c0, ..., c8]`): the orders `__rmqueue_fallback()` chooses by.
    Buddies([u64; PAGEBLOCK_ORDER as usize]),
}

impl NonmovablePool {
    /// The pool's free pages.
    pub fn pages(&self) -> u64 {
        match self {
            NonmovablePool::Pages(n) => *n,
            NonmovablePool::Buddies(c) => c.iter().enumerate().map(|(o, &n)| n << o).sum(),
        }
    }
}

/// `struct zone`: counters, watermarks and the buddy free lists.
#[derive(Clone, Debug)]
pub struct Zone {
    /// `zone_to_nid()`.
    pub node: u32,
    /// `zone_idx()`.
    pub kind: ZoneType,
    /// First PFN of the zone.
    pub start_pfn: u64,
    /// `managed_pages`: RAM the allocator hands out.
    pub managed: u64,
    /// `NR_FREE_PAGES`.
    pub free: u64,
    /// `WMARK_MIN`.
    pub wmark_min: u64,
    /// `WMARK_LOW`.
    pub wmark_low: u64,
    /// `WMARK_HIGH`.
    pub wmark_high: u64,
    /// `min_free_kbytes` the watermarks were derived from (the whole machine's).
    pub min_free_kbytes: u64,
    /// `NUMA_HIT`: allocations from this zone for a task that wanted this node.
    pub numa_hit: u64,
    /// `NUMA_MISS`: allocations from this zone for a task that wanted another node.
    pub numa_miss: u64,
    /// `NUMA_FOREIGN`: allocations meant for this zone's node that went elsewhere.
    pub numa_foreign: u64,
    /// `NR_ALLOC_BATCH`: pages this zone may still hand out in the current round of the fair
    /// zone allocation policy (3.12-4.7); the zone is `ZONE_FAIR_DEPLETED` at 0 or below.
    pub alloc_batch: i64,
    /// `ZONE_BELOW_HIGH` (6.7+): an allocation found the zone below its high watermark
    /// (`get_page_from_freelist()`); cleared by a free that flushes a per-CPU list while the
    /// zone is above it again (`free_unref_page_commit()`). Per-CPU lists stop growing and
    /// shrink on frees while it is set.
    pub below_high: bool,
    /// `ZONE_RECLAIM_ACTIVE` (5.14+): kswapd is balancing the zone's node
    /// (`set_reclaim_active()` .. `clear_reclaim_active()` around `balance_pgdat()`); the
    /// per-CPU lists hold at most 4 batches of freed frames meanwhile (`nr_pcp_high()`).
    pub reclaim_active: bool,
    /// `compact_considered` / `compact_defer_shift` (mm/compaction.c `defer_compaction()`).
    pub compact_considered: u32,
    /// See `compact_considered`.
    pub compact_defer_shift: u32,
    /// `compact_cached_migrate_pfn`, as a block index within the zone.
    pub compact_migrate_block: u32,
    /// Free frames of ZONE_DMA (folded into node 0's lowest zone) that its `lowmem_reserve`
    /// keeps from every allocation the engine makes: out of the free lists, but counted in
    /// `MemFree` (`Kernel::nr_free_pages`).
    pub lowmem_held: u64,
    /// `zone->watermark_boost` (5.0+, `boost_watermark()`): added to every watermark
    /// (`wmark_pages()`; `wmark_min`/`wmark_low`/`wmark_high` hold the boosted values).
    pub watermark_boost: u64,
    /// `zone_boosts[]` of the running `balance_pgdat()`: the boost it started with, taken off
    /// at its end.
    pub boost_at_balance: u64,
    /// `ZONE_BOOSTED_WATERMARK`: a fallback boosted the zone; the allocation wakes kswapd
    /// (`rmqueue()`) and clears it.
    pub boosted_flag: bool,
    /// Order-0 frames movable allocations took from non-movable pageblocks since the last
    /// [`Zone::take_fallbacks`] (`__rmqueue_fallback()`'s steals, each a `boost_watermark()`).
    fallbacks: u64,
    /// Head of the non-movable pageblocks' partial list.
    nm_head: u32,
    /// `profile.watermark_boost` (5.0+): whether a steal boosts the watermarks.
    pub boost_enabled: bool,
    /// `boost_watermark()` calls that boosted the zone (steals while `boost_enabled`).
    pub boost_events: u64,
    /// `profile.fallback_steal`: what a fallback leaves and when it boosts.
    pub fallback_steal: FallbackSteal,
    /// Before 6.10 (`FallbackSteal::MoveBlock`): the non-movable pageblock whose free pages a
    /// fallback moved to the Movable free lists without claiming the block
    /// (`move_freepages_block()`, or `move_to_free_list()` of the one buddy taken), and how
    /// many of them the next movable allocations take with no fallback (`lent_left`; frees
    /// into the block after go to its own type's lists).
    lent_block: u32,
    lent_left: u64,
    /// 6.15+ and 6.12.29+ (`FallbackSteal::ClaimSteal`): `rmqueue_bulk()`'s `enum rmqueue_mode` at
    /// RMQUEUE_STEAL (6.18.44's BTF has it; 6.12.y took it with 90abee6d7895): a claim failed earlier in this per-CPU list
    /// refill, so its further fallbacks steal without trying to claim (cleared at each
    /// refill's start and end: `Kernel::rmqueue_pcplist`; an allocation outside a refill
    /// starts at RMQUEUE_NORMAL). The mode's skipping of `__rmqueue_smallest()` for the rest
    /// of the refill is not modelled (a Movable frame freed meanwhile is taken first).
    pub steal_mode: bool,
    blocks: Vec<Pageblock>,
    /// Order-9 free list: wholly free pageblocks (a stack; the last one is taken first).
    free_blocks: Vec<u32>,
    partial_head: u32,
    /// Free aligned chunks of order 1..=6 over every pageblock, wholly free ones included
    /// (index `order - 1`), as the kernel's `free_area[order].nr_free`, but for the bitmap
    /// words marked stale (`Pageblock::stale`): a take or a free marks the word it changes
    /// (the first change of a word takes the word's chunks out of the counts), and a read
    /// (`Zone::chunks_now`: an order-1..6 watermark check, `rmqueue_order()`) counts the
    /// marked words again, each once, whatever happened to it meanwhile (the counts are a
    /// function of the bitmap). Order-0 takes and frees, the engine's common ones, then
    /// count nothing (they did a branch-free count of six orders each; issue 17).
    chunks: std::cell::Cell<[u64; CHUNK_ORDERS]>,
    /// The pageblocks with a stale word (each once).
    stale_blocks: std::cell::RefCell<Vec<u32>>,
    /// Per pageblock, the frames the boot's kernel allocations took (`rmqueue_order0_unmovable()`,
    /// `take_boot_frames_pooled()`; never freed): its unmovable pages. A block's other used
    /// frames are movable allocations' (page cache, anonymous pages: `PageLRU`), which
    /// `move_freepages_block()` counts as `movable_pages` for the half-block claim
    /// ([`Zone::try_claim_block`]). Beside `blocks` (2 bytes a block, not 8 of padding).
    boot_used: Vec<u16>,
}

impl Zone {
    /// A zone of `managed` pages starting at `start_pfn`, with watermarks for a machine whose
    /// lowmem is `managed` pages (one-zone machines).
    pub fn new(managed: u64, profile: &KernelProfile) -> Zone {
        let mut z = Zone::with_range(0, ZoneType::Normal, 0, managed);
        z.setup_per_zone_wmarks(profile, managed);
        z.boost_enabled = profile.watermark_boost;
        z.fallback_steal = profile.fallback_steal;
        z
    }

    /// A zone with every frame free and no watermarks yet.
    pub fn with_range(node: u32, kind: ZoneType, start_pfn: u64, managed: u64) -> Zone {
        let nblocks = managed.div_ceil(PAGEBLOCK_NR) as usize;
        let mut blocks = Vec::with_capacity(nblocks);
        for b in 0..nblocks as u64 {
            let cap = (managed - b * PAGEBLOCK_NR).min(PAGEBLOCK_NR);
            let mut bits = [0u64; 8];
            for (w, word) in bits.iter_mut().enumerate() {
                let lo = w as u64 * 64;
                if cap >= lo + 64 {
                    *word = u64::MAX;
                } else if cap > lo {
                    *word = (1u64 << (cap - lo)) - 1;
                }
            }
            blocks.push(Pageblock { bits, nr_free: cap as u16, cap: cap as u16, prev: NO_BLOCK, next: NO_BLOCK, on_partial: false, movable: true, stale: std::cell::Cell::new(0) });
        }
        let mut z = Zone {
            node,
            kind,
            start_pfn,
            managed,
            free: managed,
            wmark_min: 0,
            wmark_low: 0,
            wmark_high: 0,
            min_free_kbytes: 0,
            numa_hit: 0,
            numa_miss: 0,
            numa_foreign: 0,
            alloc_batch: 0,
            below_high: false,
            reclaim_active: false,
            compact_considered: 0,
            compact_defer_shift: 0,
            compact_migrate_block: 0,
            lowmem_held: 0,
            watermark_boost: 0,
            boost_at_balance: 0,
            boosted_flag: false,
            fallbacks: 0,
            nm_head: NO_BLOCK,
            boost_enabled: false,
            boost_events: 0,
            fallback_steal: FallbackSteal::MoveBlock,
            lent_block: NO_BLOCK,
            lent_left: 0,
            steal_mode: false,
            blocks,
            free_blocks: Vec::with_capacity(nblocks),
            partial_head: NO_BLOCK,
            chunks: std::cell::Cell::new([0; CHUNK_ORDERS]),
            // At most one entry per pageblock (a block is listed once while stale): reserved
            // here so that marking a block stale on the take/free path never allocates.
            stale_blocks: std::cell::RefCell::new(Vec::with_capacity(nblocks)),
            boot_used: vec![0; nblocks],
        };
        for b in 0..nblocks {
            for w in 0..8 {
                let word = z.blocks[b].bits[w];
                z.count_word(word);
            }
        }
        // Lowest PFNs are handed out first: push in descending order onto the stack. A short
        // last block can never be an order-9 block: it is a partial block from the start.
        for b in (0..nblocks as u32).rev() {
            if z.blocks[b as usize].cap as u64 == PAGEBLOCK_NR {
                z.free_blocks.push(b);
            }
        }
        if let Some(last) = z.blocks.last() {
            if (last.cap as u64) < PAGEBLOCK_NR {
                let b = nblocks as u32 - 1;
                z.partial_push(b);
            }
        }
        z
    }

    /// `zone_batchsize()` (mm/page_alloc.c): the per-CPU lists' `batch`, about 0.1% of the
    /// zone or 1 MiB, whichever is smaller, over 4, as `2^n - 1` (`rounddown_pow_of_two(batch
    /// + batch / 2) - 1`), at least 1 (`zone_set_pageset_high_and_batch()`): 31 frames for a
    /// 512M zone, 63 from 1 GiB.
    pub fn pcp_batch(&self) -> u64 {
        let b = (self.managed >> 10).min(1 << 20 >> 12) / 4;
        let b = b.max(1);
        let b = b + b / 2;
        ((1u64 << (63 - b.leading_zeros())) - 1).max(1)
    }

    /// `zone_highsize()` (5.14+) of a zone whose node has `node_cpus` CPUs: `fraction` 0 (the
    /// default `percpu_pagelist_high_fraction`) splits the low watermark over them (6.7+'s
    /// `high_min`), `MIN_PERCPU_PAGELIST_HIGH_FRACTION` an eighth of the zone (`high_max`); at
    /// least 4 batches. The low watermark is the one `setup_per_zone_wmarks()` set (it calls
    /// `zone_pcp_update()`), without a watermark boost (5.0+: `boost_watermark()` does not
    /// update the per-CPU lists' sizes).
    pub fn pcp_highsize(&self, node_cpus: u64, fraction: u64) -> u64 {
        let total = if fraction == 0 { self.wmark_low - self.watermark_boost } else { self.managed / fraction };
        (total / node_cpus.max(1)).max(self.pcp_batch() << 2)
    }

    /// `init_per_zone_wmark_min()` + `setup_per_zone_wmarks()`: min_free_kbytes =
    /// int_sqrt(lowmem_kbytes * 16) clamped to [128, 65536] over the machine's lowmem, each
    /// zone's min its share by managed pages; low and high are min plus one or two steps of
    /// max(min/4, managed * watermark_scale_factor / 10000) since v4.6, and 5/4 and 3/2 of
    /// min before.
    pub fn setup_per_zone_wmarks(&mut self, profile: &KernelProfile, lowmem_pages: u64) {
        let lowmem_kb = lowmem_pages * PAGE_SIZE / 1024;
        let min_free_kbytes = int_sqrt(lowmem_kb * 16).clamp(128, 65536);
        self.min_free_kbytes = min_free_kbytes;
        let pages_min = min_free_kbytes * 1024 / PAGE_SIZE;
        let min = (pages_min as u128 * self.managed as u128 / lowmem_pages.max(1) as u128) as u64;
        self.wmark_min = min;
        match profile.watermark_scale_factor {
            Some(wsf) => {
                let step = (min / 4).max(self.managed * wsf as u64 / 10_000);
                self.wmark_low = min + step;
                self.wmark_high = min + 2 * step;
            }
            None => {
                self.wmark_low = min + min / 4;
                self.wmark_high = min + min / 2;
            }
        }
    }

    /// The watermark `w`.
    #[inline]
    pub fn wmark(&self, w: Wmark) -> u64 {
        match w {
            Wmark::Min => self.wmark_min,
            Wmark::Low => self.wmark_low,
            Wmark::High => self.wmark_high,
        }
    }

    /// Wholly free pageblocks (`free_area[9].nr_free`, orders above folded in).
    #[inline]
    pub fn nr_free_blocks(&self) -> u64 {
        self.free_blocks.len() as u64
    }

    /// Free frames that lie in free, naturally aligned chunks of `1 << order` frames (the
    /// pages the buddy allocator holds in blocks of at least that order), for orders 1 to 6:
    /// whole free pageblocks plus the aligned free runs inside partial pageblocks.
    pub fn nr_free_in_chunks(&self, order: u32) -> u64 {
        debug_assert!((1..=CHUNK_ORDERS as u32).contains(&order));
        // Every wholly free pageblock holds PAGEBLOCK_NR >> order chunks, all counted in
        // `chunks`; they count as whole blocks here.
        let whole = self.free_blocks.len() as u64;
        let partial_chunks = self.chunks_now()[order as usize - 1] - whole * (PAGEBLOCK_NR >> order);
        whole * PAGEBLOCK_NR + (partial_chunks << order)
    }

    /// The chunk counts of every order, the stale words counted again first (see
    /// [`Zone::chunks`]).
    #[inline]
    fn chunks_now(&self) -> [u64; CHUNK_ORDERS] {
        if !self.stale_blocks.borrow().is_empty() {
            self.fold_stale();
        }
        self.chunks.get()
    }

    /// Count the stale words' chunks into [`Zone::chunks`] and mark them counted.
    #[inline(never)]
    fn fold_stale(&self) {
        let mut list = self.stale_blocks.borrow_mut();
        let mut c = self.chunks.get();
        for b in list.drain(..) {
            let blk = &self.blocks[b as usize];
            let mut s = blk.stale.replace(0);
            while s != 0 {
                let w = s.trailing_zeros() as usize;
                s &= s - 1;
                let n = word_chunk_counts(blk.bits[w]);
                for o in 0..CHUNK_ORDERS {
                    c[o] += n[o];
                }
            }
        }
        self.chunks.set(c);
    }

    /// Word `w` of pageblock `b` is about to change: unless it is stale already, its chunks
    /// leave [`Zone::chunks`] and it is marked stale.
    #[inline(always)]
    fn word_stale(&mut self, b: u32, w: usize) {
        let s = self.blocks[b as usize].stale.get();
        if s & (1 << w) == 0 {
            self.mark_stale(b, 1 << w);
        }
    }

    /// Mark the words of `mask` of pageblock `b` stale, taking the chunks of those not
    /// stale yet out of the counts.
    #[inline(never)]
    fn mark_stale(&mut self, b: u32, mask: u8) {
        let blk = &mut self.blocks[b as usize];
        let s = blk.stale.get_mut();
        if *s == 0 {
            self.stale_blocks.get_mut().push(b);
        }
        let mut new = mask & !*s;
        *s |= mask;
        let c = self.chunks.get_mut();
        while new != 0 {
            let w = new.trailing_zeros() as usize;
            new &= new - 1;
            let n = word_chunk_counts(blk.bits[w]);
            for o in 0..CHUNK_ORDERS {
                c[o] -= n[o];
            }
        }
    }

    /// Pageblock `b` is about to be wholly taken (`freed` false: its every frame free) or
    /// wholly freed (`freed`: none free): with no stale word its chunks move at once by a
    /// whole block's (the order-9 path keeps its counts exact), else its words are all marked
    /// stale.
    #[inline]
    fn block_chunks_change(&mut self, b: u32, freed: bool) {
        if self.blocks[b as usize].stale.get() == 0 {
            let c = self.chunks.get_mut();
            for o in 1..=CHUNK_ORDERS {
                if freed {
                    c[o - 1] += PAGEBLOCK_NR >> o;
                } else {
                    c[o - 1] -= PAGEBLOCK_NR >> o;
                }
            }
        } else {
            self.mark_stale(b, u8::MAX);
        }
    }

    /// `chunks` after the whole word `word` of a pageblock's bitmap appeared (at boot).
    fn count_word(&mut self, word: u64) {
        if word == u64::MAX {
            // A wholly free word (a boot's every word but a zone's last): 64 >> o chunks.
            for o in 1..=CHUNK_ORDERS {
                self.chunks.get_mut()[o - 1] += 64 >> o;
            }
            return;
        }
        for o in 1..=CHUNK_ORDERS {
            self.chunks.get_mut()[o - 1] += word_chunks(word, o);
        }
    }

    /// The walk `nr_free_in_chunks` replaced, for the tests: counted from the bitmaps.
    #[cfg(test)]
    pub fn nr_free_in_chunks_walked(&self, order: u32) -> u64 {
        let n = 1u64 << order;
        let mut chunks = 0;
        for b in &self.blocks {
            if b.nr_free as u64 == PAGEBLOCK_NR {
                continue;
            }
            chunks += b.bits.iter().map(|&w| word_chunks(w, order as usize)).sum::<u64>();
        }
        self.free_blocks.len() as u64 * PAGEBLOCK_NR + chunks * n
    }

    /// Free frames outside wholly free pageblocks (the order-0..8 free lists).
    #[inline]
    pub fn nr_free_scattered(&self) -> u64 {
        self.free - self.free_blocks.len() as u64 * PAGEBLOCK_NR
    }

    /// Whether `pfn` belongs to this zone.
    #[inline]
    pub fn contains(&self, pfn: u64) -> bool {
        pfn >= self.start_pfn && pfn < self.start_pfn + self.managed
    }

    /// `__zone_watermark_ok()`: after the request, free pages must stay above the watermark
    /// `mark`. For `order > 0`, before v4.4 (`watermark_check_lower_orders`) the free pages
    /// of each lower order are subtracted and the watermark halved per order; from v4.4 a
    /// free block of sufficient order is enough.
    pub fn watermark_ok(&self, order: u32, mark: u64, lower_orders: bool) -> bool {
        let free = self.free as i64 - ((1i64 << order) - 1);
        let min = mark as i64;
        if free <= min {
            return false;
        }
        if order == 0 {
            return true;
        }
        if order <= 6 {
            // Orders the engine allocates nothing of (SLUB's high-order slab attempts): the
            // free pages in chunks of at least that order stand for free_area[order..].
            let big = self.nr_free_in_chunks(order) as i64;
            return if lower_orders { big > min >> order } else { big > 0 };
        }
        if lower_orders {
            // for (o = 0; o < order; o++) { free -= nr_free[o] << o; min >>= 1; if (free <= min) fail }
            // The engine does not know how the scattered frames split over orders 0..8; it
            // subtracts them at the last step, where min has been halved `order` times (the
            // lenient end: orders 0..8 kept only as free blocks inside partial pageblocks).
            let free = free - self.nr_free_scattered() as i64;
            free > min >> order && self.nr_free_blocks() > 0
        } else {
            self.nr_free_blocks() > 0
        }
    }

    /// Put pageblock `b` at the head of its migratetype's partial list (the movable one's,
    /// `partial_head`, or the non-movable one's, `nm_head`).
    fn partial_push(&mut self, b: u32) {
        let movable = self.blocks[b as usize].movable;
        let old = if movable { self.partial_head } else { self.nm_head };
        {
            let blk = &mut self.blocks[b as usize];
            blk.prev = NO_BLOCK;
            blk.next = old;
            blk.on_partial = true;
        }
        if old != NO_BLOCK {
            self.blocks[old as usize].prev = b;
        }
        if movable {
            self.partial_head = b;
        } else {
            self.nm_head = b;
        }
    }

    fn partial_del(&mut self, b: u32) {
        let (prev, next) = {
            let blk = &mut self.blocks[b as usize];
            blk.on_partial = false;
            (blk.prev, blk.next)
        };
        if prev != NO_BLOCK {
            self.blocks[prev as usize].next = next;
        } else if self.blocks[b as usize].movable {
            self.partial_head = next;
        } else {
            self.nm_head = next;
        }
        if next != NO_BLOCK {
            self.blocks[next as usize].prev = prev;
        }
    }

    /// A wholly free pageblock for a movable allocation (it becomes, or stays, movable), onto
    /// the movable partial list; `None` when the zone has none (the allocation falls back:
    /// [`Zone::rmqueue_fallback`]).
    #[inline]
    fn movable_block(&mut self) -> Option<u32> {
        let b = self.free_blocks.pop()?;
        self.blocks[b as usize].movable = true;
        self.partial_push(b);
        Some(b)
    }

    /// `__rmqueue_fallback()` (mm/page_alloc.c) of a movable order-0 allocation that found no
    /// free Movable frame (no movable partial pageblock, no wholly free one): takes a frame of
    /// a non-movable pageblock and returns its PFN, `None` when the zone has no free frame.
    /// Before 6.10 the free pages an earlier fallback moved to the Movable lists
    /// (`lent_left`) come first, with no fallback. Else the free buddies of the first
    /// [`RMQUEUE_PARTIAL_SCAN`] non-movable partial blocks (`block_buddies()`, in list
    /// order: the first block with a buddy of an order stands for the head of that order's
    /// list) are the non-movable `free_area[]` lists: the largest buddy first (the loop from
    /// `MAX_ORDER - 1` down; a wholly free block of either type was taken before as the
    /// engine's order-9 list); at order >= `pageblock_order / 2` (`can_steal_fallback()`)
    /// its block is claimed when its free and movable pages reach half a pageblock
    /// ([`Zone::try_claim_block`]), below it the smallest buddy is taken (`find_smallest`).
    /// Per era (`profile.fallback_steal`): 6.1's `steal_suitable_fallback()` boosts once and
    /// moves the block's free pages (order >= 4) or the buddy (below) to the Movable lists;
    /// 6.10-6.12.28 boost once and take one page, the buddy's rest staying the block's type;
    /// 6.15+ and 6.12.29+ `__rmqueue_claim()` boosts at each order >= 4 it tries to claim
    /// (`try_to_claim_block()`, 6.12.y's `try_to_steal_block()`), then `__rmqueue_steal()` takes one page of the smallest
    /// buddy with no boost. Each call with no lent page is one fallback (`fallbacks`).
    /// Cost: at most 64 blocks' bitmaps, whatever the zone's size.
    #[inline(never)]
    fn rmqueue_fallback(&mut self) -> Option<u64> {
        if self.lent_left > 0 {
            let b = self.lent_block;
            let blk = &self.blocks[b as usize];
            if !blk.movable && blk.nr_free > 0 {
                self.lent_left -= 1;
                return Some(self.take_frame(b));
            }
            self.lent_left = 0;
        }
        if self.nm_head == NO_BLOCK {
            return None;
        }
        let mut first: [Option<(u32, u32)>; PAGEBLOCK_ORDER as usize] = [None; PAGEBLOCK_ORDER as usize];
        let mut b = self.nm_head;
        let mut seen = 0;
        while b != NO_BLOCK && seen < RMQUEUE_PARTIAL_SCAN {
            for (o, off) in block_buddies(&self.blocks[b as usize].bits).into_iter().enumerate() {
                if let (None, Some(off)) = (first[o], off) {
                    first[o] = Some((b, off));
                }
            }
            b = self.blocks[b as usize].next;
            seen += 1;
        }
        let largest = (0..PAGEBLOCK_ORDER as usize).rev().find(|&o| first[o].is_some()).expect("a non-movable partial pageblock has a free frame");
        let smallest = (0..PAGEBLOCK_ORDER as usize).find(|&o| first[o].is_some()).expect("as above");
        self.fallbacks += 1;
        let (b, off) = match self.fallback_steal {
            FallbackSteal::MoveBlock => {
                self.boost_watermark();
                if largest >= CLAIM_ORDER {
                    let (b, off) = first[largest].unwrap();
                    if !self.try_claim_block(b) {
                        // move_freepages_block(): every free page of the block is on the
                        // Movable lists now, this allocation's among them
                        self.lent_block = b;
                        self.lent_left = self.blocks[b as usize].nr_free as u64 - 1;
                    }
                    (b, off)
                } else {
                    // find_smallest: the buddy moved whole to the Movable lists
                    let (b, off) = first[smallest].unwrap();
                    self.lent_block = b;
                    self.lent_left = (1u64 << smallest) - 1;
                    (b, off)
                }
            }
            FallbackSteal::ExpandOwn => {
                self.boost_watermark();
                if largest >= CLAIM_ORDER {
                    let (b, off) = first[largest].unwrap();
                    self.try_claim_block(b);
                    (b, off)
                } else {
                    first[smallest].unwrap()
                }
            }
            FallbackSteal::ClaimSteal => {
                let mut claimed = None;
                if !self.steal_mode {
                    for o in (CLAIM_ORDER..PAGEBLOCK_ORDER as usize).rev() {
                        if let Some((b, off)) = first[o] {
                            self.boost_watermark();
                            if self.try_claim_block(b) {
                                claimed = Some((b, off));
                                break;
                            }
                        }
                    }
                }
                claimed.unwrap_or_else(|| {
                    // rmqueue_bulk()'s `rmqueue_mode`: RMQUEUE_STEAL for the rest of the refill
                    self.steal_mode = true;
                    first[smallest].unwrap()
                })
            }
        };
        Some(self.take_frame_at(b, off))
    }

    /// `steal_suitable_fallback()`'s (6.1) / `try_to_claim_block()`'s (6.15) half-block claim
    /// of non-movable pageblock `b` for a movable allocation: when its free pages and its
    /// movable pages (`PageLRU`: every used frame but the boot's kernel frames,
    /// `Zone::boot_used`) reach `1 << (pageblock_order - 1)`, it becomes movable
    /// (`set_pageblock_migratetype()`) and moves to the movable partial list; a zone's short
    /// last block is never claimed (`move_freepages_block()` fails at the zone's boundary).
    /// Returns whether it claimed it.
    fn try_claim_block(&mut self, b: u32) -> bool {
        let blk = &self.blocks[b as usize];
        if blk.cap as u64 != PAGEBLOCK_NR || ((blk.cap - self.boot_used[b as usize]) as u64) < PAGEBLOCK_NR / 2 {
            return false;
        }
        self.partial_del(b);
        self.blocks[b as usize].movable = true;
        self.partial_push(b);
        if self.lent_block == b {
            self.lent_left = 0;
        }
        true
    }

    /// The pageblocks' migratetype lists hold together (invariants.rs): every block on the
    /// movable partial list is movable and every one on the non-movable list is not, each
    /// partial (some frames free, not all), flagged `on_partial` exactly when on a list; the
    /// wholly free blocks are free; the blocks' free frames add up to the zone's `free`.
    pub fn check_pageblocks(&self) -> Result<(), String> {
        let mut on_lists = 0usize;
        for (head, movable) in [(self.partial_head, true), (self.nm_head, false)] {
            let mut b = head;
            let mut prev = NO_BLOCK;
            while b != NO_BLOCK {
                let blk = &self.blocks[b as usize];
                if blk.movable != movable || !blk.on_partial || blk.nr_free == 0 || (blk.nr_free >= blk.cap && blk.cap as u64 == PAGEBLOCK_NR) || blk.prev != prev {
                    return Err(format!("pageblock {b} on the {} partial list: movable {}, on_partial {}, free {} of {}",
                        if movable { "movable" } else { "non-movable" }, blk.movable, blk.on_partial, blk.nr_free, blk.cap));
                }
                on_lists += 1;
                if on_lists > self.blocks.len() {
                    return Err("a pageblock list loops".into());
                }
                prev = b;
                b = blk.next;
            }
        }
        let flagged = self.blocks.iter().filter(|blk| blk.on_partial).count();
        if flagged != on_lists {
            return Err(format!("{flagged} pageblocks flagged on_partial, {on_lists} on the lists"));
        }
        if let Some(&b) = self.free_blocks.iter().find(|&&b| self.blocks[b as usize].nr_free != self.blocks[b as usize].cap) {
            return Err(format!("pageblock {b} on the free list is not wholly free"));
        }
        let sum: u64 = self.blocks.iter().map(|blk| blk.nr_free as u64).sum();
        if sum != self.free {
            return Err(format!("the pageblocks' free frames {sum} != the zone's free {}", self.free));
        }
        Ok(())
    }

    /// How many order-0 frames a run of takes ([`Zone::take_order0_run`]) may take before one of
    /// them could fall back into a non-movable pageblock, a steal that boosts the watermarks
    /// (5.0+) and so changes more than the zone's counters: unbounded while no steal can boost
    /// (no non-movable block with free frames, or no boost in the era), else the free frames of
    /// the first movable partial block and of the wholly free blocks (O(1), at most the Movable
    /// frames free).
    #[inline]
    pub fn movable_run_bound(&self) -> u64 {
        if !self.boost_enabled || self.nm_head == NO_BLOCK {
            return u64::MAX;
        }
        let head = if self.partial_head != NO_BLOCK { self.blocks[self.partial_head as usize].nr_free as u64 } else { 0 };
        head + self.free_blocks.len() as u64 * PAGEBLOCK_NR
    }

    /// The fallback steals counted since the last call, cleared.
    pub fn take_fallbacks(&mut self) -> u64 {
        std::mem::take(&mut self.fallbacks)
    }

    /// `boost_watermark()` (mm/page_alloc.c 5.0+, as in Debian's 6.1 and 6.12), called by a
    /// fallback below pageblock order ([`Zone::rmqueue_fallback`]: `steal_suitable_fallback()`,
    /// 6.15's `try_to_claim_block()`): not in a zone smaller than 4 pageblocks, nor while the
    /// high watermark is 0; `zone->watermark_boost` grows by `pageblock_nr_pages` up to
    /// `max(pageblock_nr_pages, high * watermark_boost_factor / 10000)`, and the zone is
    /// `ZONE_BOOSTED_WATERMARK` (the allocation wakes kswapd).
    #[inline]
    fn boost_watermark(&mut self) {
        if !self.boost_enabled || PAGEBLOCK_NR * 4 > self.managed {
            return;
        }
        let high = self.wmark_high - self.watermark_boost;
        let max_boost = high * WATERMARK_BOOST_FACTOR / 10000;
        if max_boost == 0 {
            return;
        }
        let boost = (self.watermark_boost + PAGEBLOCK_NR).min(max_boost.max(PAGEBLOCK_NR));
        self.set_watermark_boost(boost);
        self.boosted_flag = true;
        self.boost_events += 1;
    }

    /// `zone->watermark_boost = boost`: every watermark moves with it (`wmark_pages()`).
    pub fn set_watermark_boost(&mut self, boost: u64) {
        let old = self.watermark_boost;
        self.wmark_min = self.wmark_min - old + boost;
        self.wmark_low = self.wmark_low - old + boost;
        self.wmark_high = self.wmark_high - old + boost;
        self.watermark_boost = boost;
    }

    /// `__rmqueue()` for a non-movable order-0 allocation (the boot's kernel memory,
    /// `boot_used`): a frame of a non-movable partial pageblock, else a wholly free pageblock
    /// claimed for it (`change_pageblock_range()`), else a movable block's frame (a steal
    /// that boosts nothing at boot: `boost_watermark()`'s "high watermark may be
    /// uninitialised").
    pub fn rmqueue_order0_unmovable(&mut self) -> Option<u64> {
        let b = self.boot_block(false)?;
        Some(self.take_boot_frame(b))
    }

    /// [`Zone::take_frame`] for the boot's kernel memory: counted in the block's `boot_used`.
    fn take_boot_frame(&mut self, b: u32) -> u64 {
        self.boot_used[b as usize] += 1;
        self.take_frame(b)
    }

    /// The pageblock a boot-time order-0 allocation of one migratetype (`movable` or not) takes
    /// its frame from: a partial block of its own type, else a wholly free block claimed for it
    /// (`change_pageblock_range()`), else a partial block of the other type (a steal that
    /// boosts nothing at boot); `None` when the zone has no free frame.
    fn boot_block(&mut self, movable: bool) -> Option<u32> {
        let (own, other) = if movable { (self.partial_head, self.nm_head) } else { (self.nm_head, self.partial_head) };
        if own != NO_BLOCK {
            return Some(own);
        }
        if let Some(b) = self.free_blocks.pop() {
            self.blocks[b as usize].movable = movable;
            self.partial_push(b);
            return Some(b);
        }
        (other != NO_BLOCK).then_some(other)
    }

    /// The boot's `frames` kernel frames (`boot_used`) laid out as the booted kernel's
    /// non-movable pageblocks were (`[machine] nonmovable_free`, from the boot's
    /// /proc/pagetypeinfo): the pool's free frames in non-movable pageblocks outside wholly
    /// free ones, which a movable allocation falls back into once the Movable ones are gone
    /// ([`Zone::rmqueue_fallback`]). The boot's kernel allocations claim wholly free
    /// pageblocks (`change_pageblock_range()`): `(frames + pool) / pageblock_nr_pages` of them
    /// (at least one) become non-movable. [`NonmovablePool::Buddies`] places each free buddy
    /// (largest first, each at the top of the claimed block with the most room left, so
    /// naturally aligned; a buddy no block has room for is left out) and the boot's frames
    /// fill every block below its buddies; [`NonmovablePool::Pages`] leaves the pool spread
    /// evenly at the blocks' tops (its buddies are what that leaves). The boot's frames left
    /// over (fewer than a pageblock, or all beyond the zone's free blocks) go to a Movable
    /// pageblock, as an unmovable allocation that stole from one without claiming it.
    /// Returns the PFNs taken (at most `frames`; boot only).
    pub fn take_boot_frames_pooled(&mut self, frames: u64, pool: &NonmovablePool) -> Vec<u64> {
        let mut out = Vec::with_capacity(frames as usize);
        let n = ((frames + pool.pages()) / PAGEBLOCK_NR).max(1);
        let mut claimed = Vec::new();
        while (claimed.len() as u64) < n {
            let Some(b) = self.free_blocks.pop() else { break };
            self.blocks[b as usize].movable = false;
            self.partial_push(b);
            claimed.push(b);
        }
        // The frames each claimed block gives the boot (its lowest ones).
        let want: Vec<u64> = match pool {
            NonmovablePool::Pages(pool) => {
                let cap: u64 = claimed.iter().map(|&b| self.blocks[b as usize].nr_free as u64).sum();
                let used = cap.saturating_sub(*pool).min(frames);
                let nb = claimed.len().max(1) as u64;
                claimed.iter().enumerate().map(|(i, &b)| (used / nb + u64::from((i as u64) < used % nb)).min(self.blocks[b as usize].nr_free as u64)).collect()
            }
            NonmovablePool::Buddies(counts) => {
                let mut top: Vec<u64> = claimed.iter().map(|&b| self.blocks[b as usize].nr_free as u64).collect();
                for o in (0..PAGEBLOCK_ORDER as usize).rev() {
                    for _ in 0..counts[o] {
                        let Some(i) = (0..top.len()).max_by_key(|&i| (top[i], std::cmp::Reverse(i))) else { break };
                        if top[i] < 1 << o {
                            break;
                        }
                        top[i] -= 1 << o;
                    }
                }
                let mut left = frames;
                top.iter().map(|&t| {
                    let t = t.min(left);
                    left -= t;
                    t
                }).collect()
            }
        };
        for (&b, &w) in claimed.iter().zip(&want) {
            for _ in 0..w {
                out.push(self.take_boot_frame(b));
            }
        }
        while (out.len() as u64) < frames {
            let Some(b) = self.boot_block(true) else { break };
            out.push(self.take_boot_frame(b));
        }
        out
    }

    /// Free frames in non-movable pageblocks (partial ones: a wholly free block has no type
    /// the engine keeps): the pool a movable allocation falls back into.
    pub fn nonmovable_free(&self) -> u64 {
        let mut n = 0;
        let mut b = self.nm_head;
        while b != NO_BLOCK {
            n += self.blocks[b as usize].nr_free as u64;
            b = self.blocks[b as usize].next;
        }
        n
    }

    /// `__rmqueue_smallest()` for order 0: a frame from the partial pageblock freed into last,
    /// else split the next wholly free pageblock; else (5.0+ era or not, the steal is the
    /// same) `__rmqueue_fallback()` into a non-movable pageblock.
    #[inline]
    pub fn rmqueue_order0(&mut self) -> Option<u64> {
        self.rmqueue_order0_inline()
    }

    /// [`Zone::rmqueue_order0`] inlined (the page cache's order-0 allocation).
    #[inline(always)]
    fn rmqueue_order0_inline(&mut self) -> Option<u64> {
        let b = if self.partial_head != NO_BLOCK {
            self.partial_head
        } else {
            match self.movable_block() {
                Some(b) => b,
                None => return self.rmqueue_fallback(),
            }
        };
        Some(self.take_frame(b))
    }

    /// Take the lowest free frame of partial pageblock `b`; returns its PFN (inlined: the
    /// page cache's order-0 allocation).
    #[inline(always)]
    fn take_frame(&mut self, b: u32) -> u64 {
        let w = self.blocks[b as usize].bits.iter().position(|&word| word != 0).expect("a partial pageblock has a free frame");
        let off = w as u32 * 64 + self.blocks[b as usize].bits[w].trailing_zeros();
        self.take_frame_at(b, off)
    }

    /// Take free frame `off` of partial pageblock `b`; returns its PFN.
    #[inline(always)]
    fn take_frame_at(&mut self, b: u32, off: u32) -> u64 {
        let w = (off / 64) as usize;
        self.word_stale(b, w);
        let blk = &mut self.blocks[b as usize];
        let word = &mut blk.bits[w];
        debug_assert!(*word & (1 << (off % 64)) != 0, "frame {off} of block {b} is not free");
        *word &= !(1u64 << (off % 64));
        let off = off as u64;
        blk.nr_free -= 1;
        let empty = blk.nr_free == 0;
        if empty {
            self.partial_del(b);
            if b == self.lent_block {
                // the pages a fallback moved to the Movable lists are all taken
                self.lent_left = 0;
            }
        }
        self.free -= 1;
        self.start_pfn + b as u64 * PAGEBLOCK_NR + off
    }

    /// `__rmqueue_smallest()` for orders 1..=8 (the page cache's large folios): the first
    /// naturally aligned free run of `1 << order` frames in one of the first
    /// [`RMQUEUE_PARTIAL_SCAN`] partial pageblocks (their bitmaps stand for the kernel's
    /// `free_area[1..8]` lists, which the engine does not keep), else a wholly free pageblock
    /// is split (`expand()`), its remainder staying free in the block. Returns the first PFN.
    pub fn rmqueue_order(&mut self, order: u32) -> Option<u64> {
        debug_assert!((1..PAGEBLOCK_ORDER).contains(&order));
        let n = 1u32 << order;
        // The chunk counts say whether a partial pageblock has a run of an order up to 6.
        let whole = self.free_blocks.len() as u64;
        let partial_may = order as usize > CHUNK_ORDERS || self.chunks_now()[order as usize - 1] > whole * (PAGEBLOCK_NR >> order);
        if partial_may {
            let mut b = self.partial_head;
            let mut seen = 0;
            while b != NO_BLOCK && seen < RMQUEUE_PARTIAL_SCAN {
                let blk = &self.blocks[b as usize];
                if blk.nr_free as u32 >= n {
                    if let Some(off) = find_free_run(&blk.bits, order) {
                        return Some(self.take_run(b, off, n));
                    }
                }
                b = blk.next;
                seen += 1;
            }
        }
        let b = self.free_blocks.pop()?;
        self.blocks[b as usize].movable = true;
        self.partial_push(b);
        Some(self.take_run(b, 0, n))
    }

    /// Take frames `off..off + n` of pageblock `b` (free, on the partial list); returns the
    /// PFN of the first.
    fn take_run(&mut self, b: u32, off: u32, n: u32) -> u64 {
        for i in off..off + n {
            self.word_stale(b, (i / 64) as usize);
            let word = &mut self.blocks[b as usize].bits[(i / 64) as usize];
            debug_assert!(*word & (1 << (i % 64)) != 0, "frame {i} of block {b} is not free");
            *word &= !(1u64 << (i % 64));
        }
        let blk = &mut self.blocks[b as usize];
        blk.nr_free -= n as u16;
        if blk.nr_free == 0 {
            self.partial_del(b);
        }
        self.free -= n as u64;
        self.start_pfn + b as u64 * PAGEBLOCK_NR + off as u64
    }

    /// `rmqueue_order0()` once per slot of `out`, in order, writing the frames taken there
    /// (the caller made sure the zone has that many free frames): the same frames, bitmaps,
    /// counts, chunk counts and list moves, a bitmap word at a time.
    pub fn take_order0_run(&mut self, out: &mut [PageId]) {
        let mut done = 0;
        while done < out.len() {
            let b = if self.partial_head != NO_BLOCK {
                self.partial_head
            } else if let Some(b) = self.movable_block() {
                b
            } else {
                // __rmqueue_fallback(), one frame at a time (no boost inside a run:
                // movable_run_bound())
                out[done] = PageId(self.rmqueue_fallback().expect("a zone above its watermark has a free frame") as u32);
                done += 1;
                continue;
            };
            let base = self.start_pfn + b as u64 * PAGEBLOCK_NR;
            let mut taken = 0u64;
            for w in 0..8 {
                if done == out.len() {
                    break;
                }
                let old = self.blocks[b as usize].bits[w];
                if old == 0 {
                    continue;
                }
                self.word_stale(b, w);
                // The lowest free frames of the word, in order.
                let take = (out.len() - done).min(old.count_ones() as usize);
                let first = (base + w as u64 * 64) as u32;
                let mut word = old;
                if old == u64::MAX && take == 64 {
                    for (j, slot) in out[done..done + 64].iter_mut().enumerate() {
                        *slot = PageId(first + j as u32);
                    }
                    word = 0;
                } else {
                    for slot in &mut out[done..done + take] {
                        *slot = PageId(first + word.trailing_zeros());
                        word &= word - 1;
                    }
                }
                done += take;
                self.blocks[b as usize].bits[w] = word;
                taken += take as u64;
            }
            let blk = &mut self.blocks[b as usize];
            debug_assert!(blk.movable, "a run takes movable blocks' frames");
            blk.nr_free -= taken as u16;
            self.free -= taken;
            if self.blocks[b as usize].nr_free == 0 {
                self.partial_del(b);
            }
        }
    }

    /// The lowest free frame of the zone (ZONE_DMA's held frames sit at the lowest PFNs);
    /// returns its PFN. Walks the pageblocks from the start: for boot only.
    pub fn rmqueue_lowest(&mut self) -> Option<u64> {
        let b = (0..self.blocks.len()).find(|&b| self.blocks[b].nr_free > 0)? as u32;
        if !self.blocks[b as usize].on_partial {
            // A wholly free pageblock leaves the order-9 list for the partial one.
            if let Some(i) = self.free_blocks.iter().position(|&x| x == b) {
                self.free_blocks.remove(i);
            }
            self.partial_push(b);
        }
        Some(self.take_frame(b))
    }

    /// `__rmqueue_smallest()` for order 9: a wholly free pageblock. Returns its first PFN.
    #[inline]
    pub fn rmqueue_pageblock(&mut self) -> Option<u64> {
        let b = self.free_blocks.pop()?;
        self.blocks[b as usize].movable = true;
        self.block_chunks_change(b, false);
        let blk = &mut self.blocks[b as usize];
        blk.bits = [0; 8];
        blk.nr_free = 0;
        self.free -= PAGEBLOCK_NR;
        Some(self.start_pfn + b as u64 * PAGEBLOCK_NR)
    }

    /// `__free_one_page()` of an order-0 frame: back onto its pageblock; the pageblock merges
    /// into an order-9 block when its last used frame comes back.
    #[inline]
    pub fn free_order0(&mut self, pfn: u64) {
        let rel = pfn - self.start_pfn;
        let b = (rel / PAGEBLOCK_NR) as u32;
        let off = rel % PAGEBLOCK_NR;
        self.word_stale(b, (off / 64) as usize);
        let blk = &mut self.blocks[b as usize];
        debug_assert!(blk.bits[(off / 64) as usize] & (1 << (off % 64)) == 0, "double free of pfn {pfn}");
        blk.bits[(off / 64) as usize] |= 1 << (off % 64);
        blk.nr_free += 1;
        let (nr_free, cap, on_partial) = (blk.nr_free, blk.cap, blk.on_partial);
        self.free += 1;
        if nr_free as u64 == PAGEBLOCK_NR {
            if on_partial {
                self.partial_del(b);
            }
            self.free_blocks.push(b);
        } else if !on_partial && nr_free <= cap {
            self.partial_push(b);
        }
    }

    /// `free_order0()` of the `n` frames `pfn..pfn + n`, in that order, all in one pageblock:
    /// the same bitmap, counts, chunk counts and list moves, one word at a time.
    pub fn free_order0_run(&mut self, pfn: u64, n: u64) {
        let rel = pfn - self.start_pfn;
        let b = (rel / PAGEBLOCK_NR) as u32;
        let off = rel % PAGEBLOCK_NR;
        debug_assert!(n > 0 && off + n <= PAGEBLOCK_NR, "a run of {n} frames from pfn {pfn} crosses its pageblock");
        let on_partial = self.blocks[b as usize].on_partial;
        let (mut lo, end) = (off, off + n);
        while lo < end {
            let w = (lo / 64) as usize;
            let hi = end.min((w as u64 + 1) * 64);
            let width = hi - lo;
            self.word_stale(b, w);
            let old = self.blocks[b as usize].bits[w];
            let mask = if width == 64 { u64::MAX } else { ((1u64 << width) - 1) << (lo % 64) };
            debug_assert!(old & mask == 0, "double free in pfns {pfn}..{}", pfn + n);
            self.blocks[b as usize].bits[w] = old | mask;
            lo = hi;
        }
        self.finish_block_frees(b, on_partial, n);
    }

    /// The counts and list moves after `n` frames of pageblock `b` came back one after another
    /// (`on_partial`: the block was on the partial list before them): the first puts a
    /// pageblock that was wholly used on the partial list, the one that frees its last frame
    /// moves it to the order-9 list (a push and a delete with nothing between leave the
    /// partial list as it was).
    #[inline]
    fn finish_block_frees(&mut self, b: u32, on_partial: bool, n: u64) {
        let blk = &mut self.blocks[b as usize];
        blk.nr_free += n as u16;
        let nr_free = blk.nr_free;
        self.free += n;
        if nr_free as u64 == PAGEBLOCK_NR {
            if on_partial {
                self.partial_del(b);
            }
            self.free_blocks.push(b);
        } else if !on_partial {
            self.partial_push(b);
        }
    }

    /// `free_order0()` of the `n` frames whose bits are set in `mask` (bit i of word w: frame
    /// `w * 64 + i` of pageblock `b`), in any order, with nothing else between: the same
    /// bitmap, counts, chunk counts and list moves as one at a time. Each frame's return
    /// completes the aligned chunks around it that are whole once it is back, so the chunks
    /// gained are those whole after the frees and not before, whatever the order; the block
    /// goes on the partial list at the first free (when it was wholly used) and onto the
    /// order-9 list at the last one that makes it whole (a push and a delete with nothing
    /// between leave the partial list as it was), which no order changes.
    pub fn free_order0_mask(&mut self, b: u32, mask: &[u64; 8], n: u64) {
        let on_partial = self.blocks[b as usize].on_partial;
        for (w, &m) in mask.iter().enumerate() {
            if m == 0 {
                continue;
            }
            self.word_stale(b, w);
            let old = self.blocks[b as usize].bits[w];
            debug_assert!(old & m == 0, "double free in pageblock {b}, word {w}");
            self.blocks[b as usize].bits[w] = old | m;
        }
        self.finish_block_frees(b, on_partial, n);
    }

    /// The pageblock of frame `pfn` (an index among the zone's blocks) and the frame's
    /// offset in it.
    #[inline(always)]
    pub fn block_of(&self, pfn: u64) -> (u32, u64) {
        let rel = pfn - self.start_pfn;
        ((rel / PAGEBLOCK_NR) as u32, rel % PAGEBLOCK_NR)
    }

    /// `__free_one_page()` of an order-9 block.
    pub fn free_pageblock(&mut self, pfn: u64) {
        let b = ((pfn - self.start_pfn) / PAGEBLOCK_NR) as u32;
        self.block_chunks_change(b, true);
        let blk = &mut self.blocks[b as usize];
        debug_assert_eq!(blk.nr_free, 0);
        blk.bits = [u64::MAX; 8];
        blk.nr_free = PAGEBLOCK_NR as u16;
        self.free += PAGEBLOCK_NR;
        self.free_blocks.push(b);
    }

    /// Host bytes of the zone's buddy bookkeeping.
    pub fn host_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Pageblock>() + self.free_blocks.capacity() * 4
            + self.stale_blocks.borrow().capacity() * 4 + self.boot_used.capacity() * 2
    }

    /// Pageblocks in the zone.
    pub fn nr_blocks(&self) -> u32 {
        self.blocks.len() as u32
    }

    /// Used frames of pageblock `b` and whether it is a full-size block.
    pub fn block_usage(&self, b: u32) -> (u64, bool) {
        let blk = &self.blocks[b as usize];
        ((blk.cap - blk.nr_free) as u64, blk.cap as u64 == PAGEBLOCK_NR)
    }

    /// `get_pfnblock_migratetype()` of frame `pfn` reduced to the engine's two types: whether
    /// its pageblock is MIGRATE_MOVABLE (else Unmovable or Reclaimable).
    #[inline]
    pub fn pfn_movable(&self, pfn: u64) -> bool {
        self.blocks[((pfn - self.start_pfn) / PAGEBLOCK_NR) as usize].movable
    }

    /// Whether frame `pfn` is free.
    pub fn is_free(&self, pfn: u64) -> bool {
        let rel = pfn - self.start_pfn;
        let blk = &self.blocks[(rel / PAGEBLOCK_NR) as usize];
        let off = rel % PAGEBLOCK_NR;
        blk.bits[(off / 64) as usize] & (1 << (off % 64)) != 0
    }

    /// A free frame outside pageblock `avoid`, taken from the partial pageblock with the
    /// fewest free frames (the compaction free scanner's target), or `None`.
    pub fn take_free_outside(&mut self, avoid: u32) -> Option<u64> {
        let mut best = NO_BLOCK;
        let mut best_free = u16::MAX;
        let mut b = self.partial_head;
        let mut seen = 0;
        while b != NO_BLOCK && seen < 64 {
            let blk = &self.blocks[b as usize];
            if b != avoid && blk.nr_free < best_free {
                best = b;
                best_free = blk.nr_free;
            }
            b = blk.next;
            seen += 1;
        }
        (best != NO_BLOCK).then(|| self.take_frame(best))
    }
}

/// `struct pglist_data`, reduced to what the allocator and kswapd need.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The node's zones, highest first (indices into `Kernel::zones`).
    pub zones: Vec<usize>,
    /// `node_zonelists[ZONELIST_FALLBACK]`: this node's zones highest first, then the other
    /// nodes' by distance (indices into `Kernel::zones`).
    pub zonelist: Vec<usize>,
    /// The zonelist cache (`struct zonelist_cache`): zones recently found full, by position
    /// in `zonelist`.
    pub zlc_full: Vec<bool>,
    /// `zlc->last_full_zap`.
    pub zlc_last_zap: Nanos,
    /// kswapd is awake and reclaiming.
    pub kswapd_active: bool,
    /// kswapd's own clock: how far it has got.
    pub kswapd_clock: Nanos,
    /// kswapd's own CPU time on this node.
    pub kswapd_ns: Nanos,
    /// kswapd's runnable average (`crate::sched::runnable_avg_update`, units of
    /// `SCHED_CAPACITY_SCALE << LOAD_PRECISION_SHIFT`): runnable while it reclaims on a CPU or
    /// waits for one, not while it waits on I/O or sleeps; as of `kswapd_load_at`. kswapd is a
    /// kthread forked at boot and asleep until memory runs low: it starts at 0.
    pub kswapd_load: u64,
    /// When `kswapd_load` was last brought up to date (kswapd's clock then).
    pub kswapd_load_at: Nanos,
    /// The end of the short sleep kswapd took when it last balanced the node
    /// (`kswapd_try_to_sleep()`'s `schedule_timeout(HZ/10)`, [`KSWAPD_SHORT_SLEEP`]), while
    /// kswapd is in it: asleep on `kswapd_wait` (a `wakeup_kswapd()` wakes it as from a full
    /// sleep), and at its end back to balancing if the node is no longer balanced
    /// ([`Kernel::kswapd_short_sleep_end`]).
    pub kswapd_short_sleep: Option<Nanos>,
    /// kswapd's pass of the memcg LRU (6.3+ lru_gen) that its clock took past the shared
    /// clock, to go on with at its next catch-up ([`crate::lru_gen::KswapdPass`]).
    pub kswapd_pass: Option<crate::lru_gen::KswapdPass>,
    /// `sc->memcgs_need_aging` of kswapd's `balance_pgdat()` under the multi-generational LRU
    /// (6.1): false when a wake-up starts it (its `scan_control` is zeroed), set by
    /// `lru_gen_age_node()` when it skips, cleared by an eviction that reclaimed
    /// `MIN_LRU_BATCH` without needing aging.
    pub lru_gen_memcgs_need_aging: bool,
    /// `sc.priority` of kswapd's `balance_pgdat()` (mm/vmscan.c, the flat loop of 3.11+,
    /// b8e83b942a16): `DEF_PRIORITY` when a `balance_pgdat()` starts, kept across its
    /// `kswapd_shrink_node()` rounds and lowered after each that scanned fewer pages than its
    /// goal or reclaimed none ([`Kernel::kswapd_shrink_node`]). 0 stands for "no
    /// `balance_pgdat()` under way" (`Node::default()`): the next round starts one.
    pub kswapd_priority: u32,
    /// `sc.nr_reclaimed` of kswapd's `balance_pgdat()`: pages reclaimed since it started
    /// (4.12+: "if (!sc.nr_reclaimed) pgdat->kswapd_failures++" at its end; under 6.1's
    /// lru_gen `should_abort_scan()` reads it against `sc->last_reclaimed`).
    pub kswapd_reclaimed: u64,
    /// `NR_PAGES_SCANNED` (per zone before 4.8; per node here, as the LRUs are): pages
    /// global reclaim scanned on this node since a page was last freed to it.
    pub pages_scanned: u64,
    /// `PGDAT_WRITEBACK` (mm/vmscan.c 5.16+ as modelled, `ReclaimThrottle::Writeback`): set by
    /// a kswapd `shrink_node()` round whose every page taken was under writeback (case 2 of
    /// `shrink_folio_list()`), cleared by `clear_pgdat_congested()`; while set, kswapd counts
    /// the marked pages under writeback it meets as `nr_immediate` (case 1).
    pub pgdat_writeback: bool,
    /// `pgdat->kswapd_failures` (4.12+, `KernelProfile::kswapd_failures`): kswapd's
    /// `balance_pgdat()` passes in a row that reclaimed nothing; at `MAX_RECLAIM_RETRIES`
    /// the node is "hopeless" ([`Kernel::kswapd_hopeless`]). Reset by any reclaim that makes
    /// progress on the node (`shrink_node()`).
    pub kswapd_failures: u32,
    /// `NR_ISOLATED_ANON`/`NR_ISOLATED_FILE` of the node over time: reclaim's batches with
    /// the times they held their pages ([`crate::mmzone::IsolatedLedger`]), which
    /// `too_many_isolated()` reads ([`Kernel::too_many_isolated`]).
    pub isolated: crate::mmzone::IsolatedLedger,
    /// `nr_boost_reclaim` of kswapd's `balance_pgdat()` (mm/vmscan.c 5.0+, 1c30844d2dfe): the
    /// node's zones' watermark boosts when it started, less what its boosted rounds reclaimed;
    /// while it is above 0 the rounds neither write back nor swap (`sc.may_writepage =
    /// sc.may_swap = !nr_boost_reclaim`), and an unbalanced node zeroes it ("goto restart").
    pub nr_boost_reclaim: u64,
    /// Tasks throttled on `pgdat->pfmemalloc_wait` (`throttle_direct_reclaim()`, 3.6+):
    /// `waitqueue_active()`.
    pub pfmemalloc_waiters: u32,
    /// When kswapd last woke the tasks on `pfmemalloc_wait` (`wake_up_all()` in
    /// `balance_pgdat()` after a round that left `allow_direct_reclaim()` true, or in
    /// `prepare_kswapd_sleep()`), taken by the throttled task.
    pub pfmemalloc_wake: Option<Nanos>,
    /// `PGSCAN_DIRECT_THROTTLE` of this node: direct reclaimers throttled on it.
    pub pgscan_direct_throttle: u64,
}

/// Order-0 frames of one pageblock freed one after the other (munmap's zap of base pages:
/// `zap_pte_range()` -> `free_pages_and_swap_cache()` of its batches), held as the block's
/// bitmap until a frame of another block or any other buddy operation comes
/// ([`Kernel::free_mask_add`], [`Kernel::free_mask_flush`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct FreeMask {
    zone: u32,
    block: u32,
    /// The last frame added (6.7+ per-CPU lists take them in ascending order only).
    last: u64,
    /// Frames held.
    n: u64,
    bits: [u64; 8],
}

impl FreeMask {
    pub(crate) const EMPTY: FreeMask = FreeMask { zone: 0, block: 0, last: 0, n: 0, bits: [0; 8] };
}

/// The outcome of an order-0 `get_page_from_freelist()` walk at the low watermark that
/// changed no state but the chosen zone's counters. Repeated with nothing else changed, the
/// walk takes the same path to the same zone for as long as that zone passes its watermark,
/// keeps a fair-allocation batch when it was chosen in the fair pass, and (when the walk
/// set up the zonelist cache) the cache is not due for its zap: a fault run
/// (`handle_mm_fault_run`, `Zone::take_order0_run`) allocates on that basis without walking the
/// zonelist again.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FreelistWalk {
    /// The zone the walk took the page from.
    pub zone: usize,
    /// The requesting node.
    pub nid: u32,
    /// Chosen in the fair pass (`ALLOC_FAIR`): the zone's `NR_ALLOC_BATCH` had to be positive.
    pub fair: bool,
    /// The walk called `zlc_setup()` (a zone failed with the zonelist cache enabled).
    pub zlc: bool,
}

/// Flags of an allocation request (`gfp_t` and `alloc_flags` reduced to what is modelled).
#[derive(Copy, Clone, Debug)]
pub struct Gfp {
    /// The node the request prefers (`numa_node_id()` of the allocating task).
    pub nid: u32,
    /// `__GFP_NORETRY` with `GFP_TRANSHUGE`: a THP fault, which gives up after compaction
    /// and one round of direct reclaim instead of looping.
    pub thp: bool,
    /// `__GFP_NO_KSWAPD` (THP faults before 4.x's defrag settings): do not wake kswapd.
    pub no_kswapd: bool,
    /// `__GFP_THISNODE`: only the preferred node's zones (`ZONELIST_NOFALLBACK`, which has no
    /// zonelist cache).
    pub thisnode: bool,
    /// `__GFP_DIRECT_RECLAIM` absent (`GFP_TRANSHUGE_LIGHT`): the slowpath gives up after its
    /// attempt at the min watermark, with neither direct compaction nor direct reclaim.
    pub no_direct_reclaim: bool,
    /// `__GFP_MOVABLE | __GFP_HIGHMEM` (`GFP_HIGHUSER_MOVABLE`: page cache, anonymous memory,
    /// THP, swap-in): `gfp_zone()` is ZONE_MOVABLE. Without it (`GFP_KERNEL`: slab), ZONE_NORMAL.
    /// It names the zone 4.8+ counts a direct reclaim under ([`Gfp::allocstall_event`]).
    pub movable: bool,
    /// `__GFP_NORETRY` of an order-0 request (readahead's, [`Gfp::readahead`]): after one
    /// round of direct reclaim (and compaction) that did not yield a page,
    /// `__alloc_pages_slowpath()` gives up (6.1 `if (gfp_mask & __GFP_NORETRY) goto
    /// nopage;`; 3.13-4.6: `should_alloc_retry()` returns 0 and `oom_gfp_allowed()` is
    /// false): neither retry nor `__alloc_pages_may_oom()`.
    pub noretry: bool,
}

impl Gfp {
    /// `GFP_HIGHUSER_MOVABLE` order-0 request from a task on node `nid` (a page of the page
    /// cache or of anonymous memory).
    pub const fn node(nid: u32) -> Gfp {
        Gfp { nid, thp: false, no_kswapd: false, thisnode: false, no_direct_reclaim: false, movable: true, noretry: false }
    }

    /// Readahead's order-0 page-cache request from a task on node `nid`:
    /// `readahead_gfp_mask(mapping)` = the mapping's `GFP_HIGHUSER_MOVABLE | __GFP_NORETRY |
    /// __GFP_NOWARN` (6.1 include/linux/pagemap.h, `page_cache_ra_unbounded()` ->
    /// `filemap_alloc_folio()`; `page_cache_alloc_readahead()` in `__do_page_cache_readahead()`
    /// in every era modelled, 3.13 included). A failure ends the readahead quietly.
    pub const fn readahead(nid: u32) -> Gfp {
        Gfp { noretry: true, ..Gfp::node(nid) }
    }

    /// `GFP_KERNEL` order-0 request from a task on node `nid` (a slab page; the page cache's
    /// xarray nodes are allocated with `gfp & GFP_RECLAIM_MASK`, which keeps no zone bits).
    pub const fn kernel(nid: u32) -> Gfp {
        Gfp { movable: false, ..Gfp::node(nid) }
    }

    /// The vmstat event `do_try_to_free_pages()` counts for a direct reclaim entered by this
    /// request: `count_vm_event(ALLOCSTALL)` before 4.8, from 4.8
    /// `__count_zid_vm_events(ALLOCSTALL, sc->reclaim_idx, 1)` with `reclaim_idx =
    /// gfp_zone(gfp_mask)` (`try_to_free_pages()`; "mm: vmstat: account per-zone stalls and
    /// pages skipped during reclaim", v4.8; 6.1 mm/vmscan.c read).
    pub const fn allocstall_event(&self, per_zone: bool) -> VmEvent {
        match (per_zone, self.movable) {
            (false, _) => VmEvent::Allocstall,
            (true, true) => VmEvent::AllocstallMovable,
            (true, false) => VmEvent::AllocstallNormal,
        }
    }
}

/// `struct per_cpu_pages` (include/linux/mmzone.h) of one zone on one CPU, order-0 frames
/// only (6.7+, `KernelProfile::pcp_auto_tune`): one set per simulated CPU (`machine.cpus`);
/// task i uses CPU i modulo the CPU count ([`Kernel::task_cpu`]), a node's kswapd the node's
/// last CPU ([`Kernel::kswapd_cpu`]). `batch`, `high_min` and `high_max` follow from the zone
/// ([`Zone::pcp_batch`], [`Zone::pcp_highsize`]) and the node's CPUs.
#[derive(Clone, Debug, Default)]
pub struct PerCpuPages {
    /// `pcp->lists[order_to_pindex(MIGRATE_MOVABLE, 0)]`: the frames an order-0 movable
    /// allocation takes, the list's head first (`list_first_entry()` is taken by an
    /// allocation, a free goes to the head, `free_pcppages_bulk()` takes from the tail): a
    /// refill's frames, whatever their pageblock, and the frees of frames in movable pageblocks.
    pub list: std::collections::VecDeque<u32>,
    /// `pcp->lists[]` of MIGRATE_UNMOVABLE and MIGRATE_RECLAIMABLE (one list: the engine's
    /// pageblocks are movable or not): the frees of frames whose pageblock is not movable
    /// (`free_unref_page()` -> `get_pfnblock_migratetype()`, 6.12 mm/page_alloc.c), which a
    /// movable allocation does not take; they count in `pcp->count` and go back to the buddy
    /// with the list's flushes. (Slab pages, non-movable allocations of the kernel, come from
    /// `list` in the engine, their buddy allocation not being modelled by migratetype.)
    pub nm: std::collections::VecDeque<u32>,
    /// `pcp->high`: 0 until first used (`per_cpu_pages_init()`), then clamped into
    /// `[high_min, high_max]` at each use.
    pub high: u64,
    /// `pcp->alloc_factor`: refills take `batch << alloc_factor` frames; +1 per refill (up to
    /// `PCP_BATCH_SCALE_MAX`) while the list can hold it, halved by each free.
    pub alloc_factor: u32,
    /// `pcp->free_count`: frees since the allocations (halved by each allocation), at most
    /// `batch << PCP_BATCH_SCALE_MAX`.
    pub free_count: u64,
    /// On `Kernel::pcp_active`: used since its `high` was last at its floor.
    pub queued: bool,
}

impl PerCpuPages {
    /// `pcp->count`: the frames on all its lists.
    #[inline]
    pub fn count(&self) -> u64 {
        (self.list.len() + self.nm.len()) as u64
    }

    /// `out.len()` allocations (`rmqueue_pcplist()` without a refill) from a list holding at
    /// least that many frames: its first frames into `out`, `free_count` halved each time.
    pub fn take_run(&mut self, out: &mut [PageId]) {
        for slot in out.iter_mut() {
            *slot = PageId(self.list.pop_front().expect("the caller made sure the list holds them"));
        }
        self.free_count >>= out.len().min(63);
    }
}

impl Kernel {
    /// Lay out the machine's memory: `node_pages[n]` managed pages per node; node 0's first
    /// `dma32_pages` form ZONE_DMA32. Builds the zonelists (own node first, highest zone
    /// first, then the other nodes by distance) and sets the watermarks.
    pub fn setup_nodes(&mut self, node_pages: &[u64], dma32_pages: u64) {
        self.zones.clear();
        self.nodes.clear();
        let mut pfn = 0u64;
        for (nid, &pages) in node_pages.iter().enumerate() {
            let mut node = Node::default();
            let dma = if nid == 0 { dma32_pages.min(pages) } else { 0 };
            let mut mine = vec![];
            if dma > 0 {
                self.zones.push(Zone::with_range(nid as u32, ZoneType::Dma32, pfn, dma));
                mine.push(self.zones.len() - 1);
                pfn += dma;
            }
            if pages > dma {
                self.zones.push(Zone::with_range(nid as u32, ZoneType::Normal, pfn, pages - dma));
                mine.push(self.zones.len() - 1);
                pfn += pages - dma;
            }
            mine.reverse(); // highest zone first
            node.zones = mine;
            self.nodes.push(node);
        }
        let lowmem: u64 = self.zones.iter().map(|z| z.managed).sum();
        for z in &mut self.zones {
            z.setup_per_zone_wmarks(&self.profile, lowmem);
            z.boost_enabled = self.profile.watermark_boost;
            z.fallback_steal = self.profile.fallback_steal;
            z.alloc_batch = (z.wmark_high - z.wmark_low) as i64;
        }
        // ZONE_DMA, the first 16 MiB of node 0, is folded into node 0's lowest zone; its
        // lowmem_reserve against the zones above it (setup_per_zone_lowmem_reserve():
        // their managed pages / sysctl_lowmem_reserve_ratio[ZONE_DMA] = 256, in every era
        // modelled) keeps that many of its frames free from page-cache, anonymous and slab
        // allocations (`__zone_watermark_ok()` adds it to the mark): they stay in MemFree.
        if let Some(&low) = self.nodes.first().and_then(|n| n.zones.last()) {
            let node0: u64 = self.nodes[0].zones.iter().map(|&z| self.zones[z].managed).sum();
            if node0 > 2 * ZONE_DMA_PAGES {
                let held = ((node0 - ZONE_DMA_PAGES) / LOWMEM_RESERVE_RATIO_DMA).min(ZONE_DMA_PAGES);
                let z = &mut self.zones[low];
                for _ in 0..held {
                    if z.rmqueue_lowest().is_none() {
                        break;
                    }
                    z.lowmem_held += 1;
                }
            }
        }
        let n = self.nodes.len();
        for nid in 0..n {
            // build_zonelists(): the local node, then the others in order of distance (all
            // remote nodes are at REMOTE_DISTANCE: next node id first, wrapping, as
            // find_next_best_node() breaks ties).
            let mut list = self.nodes[nid].zones.clone();
            for d in 1..n {
                let other = (nid + d) % n;
                list.extend(self.nodes[other].zones.iter().copied());
            }
            self.nodes[nid].zlc_full = vec![false; list.len()];
            self.nodes[nid].zonelist = list;
        }
        self.pages.reserve_pfns(pfn as usize);
    }

    /// `page_zone()`: the zone index of frame `pfn`.
    #[inline(always)]
    pub fn zone_of(&self, pfn: PageId) -> usize {
        let p = pfn.0 as u64;
        let mut i = 0;
        while i + 1 < self.zones.len() && !self.zones[i].contains(p) {
            i += 1;
        }
        i
    }

    /// `page_to_nid()`.
    #[inline(always)]
    pub fn page_nid(&self, pfn: PageId) -> u32 {
        self.zones[self.zone_of(pfn)].node
    }

    /// Free pages over all zones (`NR_FREE_PAGES` of /proc/meminfo `MemFree`), ZONE_DMA's
    /// reserved ones included.
    pub fn nr_free_pages(&self) -> u64 {
        self.zones.iter().map(|z| z.free + z.lowmem_held).sum()
    }

    /// Managed pages over all zones.
    pub fn managed_pages(&self) -> u64 {
        self.zones.iter().map(|z| z.managed).sum()
    }

    /// `__alloc_pages()` of one order-0 page for the page cache of `mapping` at `index`, for
    /// the running task's node. Returns `None` when reclaim cannot free anything (the OOM
    /// path).
    pub fn alloc_page(&mut self, mapping: InodeId, index: u32) -> Option<PageId> {
        self.alloc_page_gfp(mapping, index, Gfp::node(self.cur_nid))
    }

    /// [`Kernel::alloc_page`] with the request's flags `gfp` (`filemap_alloc_folio(gfp, 0)`):
    /// readahead's [`Gfp::readahead`] gives up without an OOM kill.
    #[inline(always)]
    pub fn alloc_page_gfp(&mut self, mapping: InodeId, index: u32, gfp: Gfp) -> Option<PageId> {
        let pfn = self.alloc_pages_inline(0, gfp)?;
        Some(self.pages.init(pfn, mapping, index))
    }

    /// `__alloc_pages()`: fast path `get_page_from_freelist()` at the low watermark, then
    /// `__alloc_pages_slowpath()`: wake kswapd, retry at min, direct compaction for high
    /// orders, direct reclaim, and (order 0) retry while reclaim makes progress (before 4.7
    /// after `wait_iff_congested(HZ/50)`). Returns the first PFN of the block.
    pub fn alloc_pages(&mut self, order: u32, gfp: Gfp) -> Option<PageId> {
        self.alloc_pages_inline(order, gfp)
    }

    /// [`Kernel::alloc_pages`] up to its first attempt, inlined into the page cache's
    /// allocation ([`Kernel::alloc_page`], a page per miss); `__alloc_pages_slowpath()` is
    /// [`Kernel::alloc_pages_slowpath`].
    #[inline(always)]
    fn alloc_pages_inline(&mut self, order: u32, gfp: Gfp) -> Option<PageId> {
        #[cfg(test)]
        assert!(self.now >= self.alloc_due || !self.alloc_work_due(), "alloc_due {} after now {} with work due: a producer did not lower it", self.alloc_due, self.now);
        // The five "anything due?" tests, one comparison while none can find work (issue 17).
        if self.now >= self.alloc_due {
            self.alloc_due_run();
        }
        // The first attempt: the order-0 walk inlined here (the page cache's allocation).
        let first = if self.freelist_walk_is_order0(order, Wmark::Low, gfp) && !self.check_fast_paths {
            self.get_page_from_freelist_order0_inline(Wmark::Low, gfp)
        } else {
            self.get_page_from_freelist(order, Wmark::Low, gfp)
        };
        let page = match first {
            Some(p) => Some(p),
            None => self.alloc_pages_slowpath(order, gfp),
        };
        if self.boost_wake {
            self.boost_wake_kswapd(gfp);
        }
        page
    }

    /// What `__alloc_pages()` does before `get_page_from_freelist()` in the engine, run once
    /// [`Kernel::alloc_due`] is reached: the owed page-cache slab frames (`allocate_slab()`),
    /// the I/O completions due (`folio_end_writeback()` of file and swap writes, interrupt
    /// context), kswapd's catch-up and `vmstat_update()`'s `decay_pcp_high()` (6.7+); then the
    /// next due time from their state.
    #[inline(never)]
    fn alloc_due_run(&mut self) {
        if self.pagecache_slab_owed() {
            // The slab pages of the buffer heads and tree nodes allocated since the last
            // allocation (slab.rs): taken first, as the kernel took them when it allocated
            // those objects.
            self.pagecache_slab_settle();
        }
        self.writeback_end_io();
        self.swap_end_io();
        self.kswapd_catch_up();
        self.pcp_decay_due();
        self.alloc_due = self.alloc_due_next();
    }

    /// The first file or swap I/O completion due (`writeback_end_io()`, `swap_end_io()`: the
    /// heads of the two completion queues), `Nanos::MAX` with none queued; shared by
    /// [`Kernel::alloc_due_next`] and [`Kernel::alloc_quiet_until`].
    #[inline]
    fn io_end_due(&self) -> Nanos {
        let mut t = Nanos::MAX;
        if let Some(&std::cmp::Reverse((done, ..))) = self.wb_queue.peek() {
            t = t.min(done);
        }
        if let Some(&std::cmp::Reverse((done, _))) = self.swap_wb_queue.peek() {
            t = t.min(done);
        }
        t
    }

    /// The earliest time at which one of [`Kernel::alloc_due_run`]'s tests can find work
    /// with the state as it is: 0 for owed slab frames or an awake kswapd, else the first
    /// file or swap completion, the first end of a kswapd short sleep, and (with
    /// `pcp_auto_tune`) the next `decay_pcp_high()` period.
    pub fn alloc_due_next(&self) -> Nanos {
        if self.pagecache_slab_owed() {
            return 0;
        }
        let mut t = self.io_end_due();
        for n in &self.nodes {
            if n.kswapd_active {
                return 0;
            }
            if let Some(end) = n.kswapd_short_sleep {
                t = t.min(end);
            }
        }
        if self.profile.pcp_auto_tune {
            t = t.min(self.pcp_next_decay);
        }
        t
    }

    /// Whether one of [`Kernel::alloc_due_run`]'s tests finds work now (the invariant
    /// `alloc_due <= now` whenever it does is asserted at every allocation of the unit tests).
    #[cfg(test)]
    pub(crate) fn alloc_work_due(&self) -> bool {
        let now = self.now;
        self.pagecache_slab_owed()
            || self.wb_queue.peek().is_some_and(|r| r.0 .0 <= now)
            || self.swap_wb_queue.peek().is_some_and(|r| r.0 .0 <= now)
            || !self.nodes.iter().all(|n| !n.kswapd_active && n.kswapd_short_sleep.is_none_or(|end| end > now || self.in_kswapd))
            || (self.profile.pcp_auto_tune && now >= self.pcp_next_decay)
    }

    /// `rmqueue()`'s end (5.0+): "if ((alloc_flags & ALLOC_KSWAPD) && unlikely(test_bit(
    /// ZONE_BOOSTED_WATERMARK, &zone->flags))) { clear_bit(...); wakeup_kswapd(zone, 0, 0,
    /// zone_idx(zone)); }" (6.12; 6.1 without the ALLOC_KSWAPD test, which every allocation
    /// the engine boosts with has): the zones whose fallback boosted them wake their node's
    /// kswapd once the allocation has its page. The check is a flag the walk sets.
    #[inline(never)]
    fn boost_wake_kswapd(&mut self, gfp: Gfp) {
        self.boost_wake = false;
        for z in 0..self.zones.len() {
            if self.zones[z].boosted_flag {
                self.zones[z].boosted_flag = false;
                if !gfp.no_kswapd {
                    let nid = self.zones[z].node;
                    self.wakeup_kswapd(nid, 0);
                }
            }
        }
    }

    /// Whether a zone of node `nid` is boosted (`pgdat_watermark_boosted()`, 5.0+).
    pub fn node_boosted(&self, nid: u32) -> bool {
        self.nodes[nid as usize].zones.iter().any(|&z| self.zones[z].watermark_boost > 0)
    }

    /// `__alloc_pages_slowpath()`: [`Kernel::alloc_pages`] after its first attempt failed.
    #[inline(never)]
    fn alloc_pages_slowpath(&mut self, order: u32, gfp: Gfp) -> Option<PageId> {
        if !gfp.no_kswapd {
            self.wake_all_kswapds(order, gfp.nid);
        }
        let mut no_progress = 0;
        loop {
            if let Some(p) = self.get_page_from_freelist(order, Wmark::Min, gfp) {
                return Some(p);
            }
            if gfp.no_direct_reclaim {
                return None; // !can_direct_reclaim: goto nopage
            }
            if order > 0 {
                // __alloc_pages_direct_compact() (async), then one direct reclaim round, then
                // sync-light compaction; a THP request gives up after that (__GFP_NORETRY).
                if let Some(p) = self.alloc_pages_direct_compact(order, gfp) {
                    return Some(p);
                }
                if gfp.thp && self.compaction_deferred_all(gfp) {
                    return None;
                }
                let progress = self.alloc_pages_direct_reclaim(order, gfp);
                if let Some(p) = self.get_page_from_freelist_drained(order, gfp, progress) {
                    return Some(p);
                }
                if let Some(p) = self.alloc_pages_direct_compact(order, gfp) {
                    return Some(p);
                }
                if gfp.thp || progress == 0 {
                    return None;
                }
                continue;
            }
            let progress = self.alloc_pages_direct_reclaim(order, gfp);
            if let Some(p) = self.get_page_from_freelist_drained(order, gfp, progress) {
                return Some(p);
            }
            if gfp.noretry {
                // "Do not loop if specifically requested": goto nopage, before
                // should_reclaim_retry() and __alloc_pages_may_oom().
                return None;
            }
            if self.profile.oom_zone_reclaimable {
                // Before 4.7: do_try_to_free_pages() claims progress while a zone of the
                // zonelist is still reclaimable, and should_alloc_retry() retries an order-0
                // request for as long as there is progress; with none, __alloc_pages_may_oom().
                if progress == 0 && !self.zonelist_reclaimable() {
                    if self.alloc_pages_may_oom() {
                        continue; // the OOM killer made progress: goto retry
                    }
                    return None;
                }
            } else if progress > 0 {
                // should_reclaim_retry(): progress resets the count of rounds without it.
                no_progress = 0;
            } else {
                no_progress += 1;
                if no_progress > MAX_RECLAIM_RETRIES {
                    // __alloc_pages_may_oom(): "Retry as long as the OOM killer is making
                    // progress" (no_progress_loops = 0).
                    if self.alloc_pages_may_oom() {
                        no_progress = 0;
                        continue;
                    }
                    return None;
                }
                if self.profile.oom_waits_on_write_pending
                    && 2 * (self.vmstat.nr_dirty + self.vmstat.nr_writeback) > self.nr_file_lru_pages() + self.nr_free_pages()
                {
                    // should_reclaim_retry() 4.7-5.15: a round without progress while more
                    // than half of what is reclaimable waits for writeback waits for I/O
                    // (congestion_wait(BLK_RW_ASYNC, HZ/10)) "to prevent from pre mature OOM"
                    // before the next round; the round still counts.
                    self.should_reclaim_retry_write_pending_wait();
                }
            }
            if self.profile.oom_zone_reclaimable {
                // Before 4.7: should_alloc_retry() -> wait_iff_congested(HZ/50): sleep while
                // the disk has writeback in flight, at most 20 ms. From 4.7 (0a0337e0d1d1 "mm,
                // oom: rework oom detection") the retry is should_reclaim_retry()'s, which
                // sleeps only for pending writes (above, 4.7-5.15) and otherwise
                // cond_resched()s.
                self.congestion_wait(CONGESTION_WAIT_JIFFIES);
            }
            // I/O that completed meanwhile ends its writeback (interrupt context), and kswapd
            // has run on.
            self.writeback_end_io();
            self.swap_end_io();
            self.kswapd_catch_up();
        }
    }

    /// File LRU pages of every node (`zone_reclaimable_pages()` without swap).
    pub fn nr_file_lru_pages(&self) -> u64 {
        use crate::mmzone::LruList;
        self.lruvecs.iter().map(|l| l.nr_pages(LruList::InactiveFile) + l.nr_pages(LruList::ActiveFile)).sum()
    }

    /// `all_unreclaimable()` negated (every node's zonelist holds every zone): some node still has
    /// `zone_reclaimable()` memory, i.e. global reclaim scanned fewer than 6x its reclaimable
    /// pages (file LRU pages, and anon LRU pages while swap has room) since a page was last
    /// freed to it (mm/vmscan.c before 4.8, per zone there, per node here).
    pub fn zonelist_reclaimable(&self) -> bool {
        let nn = self.nr_nodes as usize;
        let swap = self.can_swap();
        (0..self.nodes.len()).any(|n| {
            let mut reclaimable = 0u64;
            for v in (n..self.lruvecs.len()).step_by(nn) {
                let l = &self.lruvecs[v];
                use crate::mmzone::LruList;
                reclaimable += l.nr_pages(LruList::InactiveFile) + l.nr_pages(LruList::ActiveFile);
                if swap {
                    reclaimable += l.nr_pages(LruList::InactiveAnon) + l.nr_pages(LruList::ActiveAnon);
                }
            }
            self.nodes[n].pages_scanned < reclaimable * 6
        })
    }

    /// `zlc_setup()`: the zonelist cache of node `nid` comes into use for this walk; it is
    /// zapped (every zone considered again) at most once a second. Returns whether it was.
    fn zlc_setup(&mut self, nid: usize) -> bool {
        let now = self.now;
        let n = &mut self.nodes[nid];
        if now >= n.zlc_last_zap + ZLC_ZAP_INTERVAL {
            n.zlc_full.iter_mut().for_each(|f| *f = false);
            n.zlc_last_zap = now;
            return true;
        }
        false
    }

    /// SLUB's first, high-order attempt for a new slab page (`allocate_slab()`: the cache's
    /// preferred order with `__GFP_NORETRY` and, above its minimum order, without direct
    /// reclaim; it falls back to the minimum order when it fails). The engine keeps slab
    /// memory as bytes (slab.rs), so what is modelled of the attempt is its walk over the
    /// task's zonelist, the fast path at the low watermark then the slowpath's at min, and
    /// what that walk leaves in the zonelist cache: with the cache (kernels before 4.4) every
    /// zone that fails the high-order check is marked full for order-0 requests too, the flaw
    /// seed 002 names. Returns whether a zone passed (the slab page would have come from it).
    pub fn slab_high_order_attempt(&mut self, order: u32, nid: u32) -> bool {
        let lower_orders = self.profile.watermark_check_lower_orders;
        let zlc_enabled = self.policies.zonelist_cache && self.nodes.len() > 1;
        let n = nid as usize;
        let len = self.nodes[n].zonelist.len();
        for mark in [Wmark::Low, Wmark::Min] {
            let mut zlc_active = false;
            for zi in 0..len {
                if zlc_active && self.nodes[n].zlc_full[zi] {
                    continue;
                }
                let z = self.nodes[n].zonelist[zi];
                let ok = {
                    let zone = &self.zones[z];
                    zone.watermark_ok(order, zone.wmark(mark), lower_orders)
                };
                if ok {
                    return true;
                }
                if zlc_enabled {
                    if !zlc_active {
                        self.zlc_setup(n);
                        zlc_active = true;
                    }
                    self.nodes[n].zlc_full[zi] = true;
                }
            }
        }
        false
    }

    /// `__alloc_pages_direct_reclaim()`: `try_to_free_pages()` for the zonelist, then (with the
    /// zonelist cache) forget which zones were full. A `__GFP_THISNODE` request's zonelist
    /// (`ZONELIST_NOFALLBACK`) holds the local node's zones only, so only that node is
    /// reclaimed.
    fn alloc_pages_direct_reclaim(&mut self, _order: u32, gfp: Gfp) -> u64 {
        self.vmstat.count(gfp.allocstall_event(self.profile.allocstall_per_zone), 1);
        let saved = self.reclaim_nid;
        if gfp.thisnode {
            self.reclaim_nid = Some(gfp.nid);
        }
        // __perform_reclaim(): a memory stall (psi_memstall_enter()).
        self.stall_enter(StallKind::Reclaim);
        // try_to_free_pages() -> throttle_direct_reclaim() on the zonelist's first node.
        if let Some(&z) = self.nodes[gfp.nid as usize].zonelist.first() {
            let nid = self.zones[z].node;
            self.throttle_direct_reclaim_pfmemalloc(nid);
        }
        let progress = self.try_to_free_pages(crate::vmscan::SWAP_CLUSTER_MAX);
        self.stall_leave(StallKind::Reclaim);
        self.reclaim_nid = saved;
        if progress > 0 && self.policies.zonelist_cache {
            // zlc_clear_zones_full()
            let n = &mut self.nodes[gfp.nid as usize];
            n.zlc_full.iter_mut().for_each(|f| *f = false);
        }
        progress
    }

    /// The end of `__alloc_pages_direct_reclaim()`: `get_page_from_freelist()` at the min
    /// watermark and, when that fails after a reclaim that made progress, "it could be because
    /// pages are pinned on the per-cpu lists": `drain_all_pages()` and once more (6.7+ lists,
    /// `KernelProfile::pcp_auto_tune`).
    fn get_page_from_freelist_drained(&mut self, order: u32, gfp: Gfp, progress: u64) -> Option<PageId> {
        if let Some(p) = self.get_page_from_freelist(order, Wmark::Min, gfp) {
            return Some(p);
        }
        if progress > 0 && self.profile.pcp_auto_tune && self.drain_all_pages() {
            return self.get_page_from_freelist(order, Wmark::Min, gfp);
        }
        None
    }

    /// `get_page_from_freelist()`: walk the zonelist of the task's node and take a block from
    /// the first zone that passes its watermark. With the zonelist cache (kernels before 4.4)
    /// the first watermark failure activates it (`zlc_setup()`, which also zaps the bitmap
    /// once a second); from then on zones marked full are skipped and every zone that fails
    /// is marked full, whatever the order of the request (the flaw seed 002 names); if
    /// nothing was found, the zonelist is scanned again without the cache.
    ///
    /// An order-0 walk at the low watermark that changed nothing but the chosen zone's
    /// counters (no zap of the cache, no zone newly marked full, no fair-batch reset) leaves
    /// its outcome in `Kernel::freelist_walk` (see [`FreelistWalk`]).
    #[inline(always)]
    pub fn get_page_from_freelist(&mut self, order: u32, mark: Wmark, gfp: Gfp) -> Option<PageId> {
        if self.freelist_walk_is_order0(order, mark, gfp) {
            if self.check_fast_paths {
                return self.check_freelist_order0(mark, gfp);
            }
            return self.get_page_from_freelist_order0(mark, gfp);
        }
        self.get_page_from_freelist_general(order, mark, gfp)
    }

    /// With [`Kernel::check_fast_paths`]: [`Kernel::get_page_from_freelist_order0`] and the
    /// general walk ([`Kernel::get_page_from_freelist_general`]) each run from the same state;
    /// they must give the same frame and leave the same zone counters (free pages, fair
    /// batch, NUMA events), /proc/vmstat events and `Kernel::freelist_walk`. The general
    /// walk's result stands.
    fn check_freelist_order0(&mut self, mark: Wmark, gfp: Gfp) -> Option<PageId> {
        let summary = |k: &Kernel| {
            let zones: Vec<_> = k.zones.iter().map(|z| (z.free, z.alloc_batch, z.numa_hit, z.numa_miss, z.numa_foreign)).collect();
            (zones, k.vmstat.events, k.freelist_walk)
        };
        let (zones, events, walk) = (self.zones.clone(), self.vmstat.events, self.freelist_walk);
        let fast = self.get_page_from_freelist_order0(mark, gfp);
        let after_fast = summary(self);
        self.zones = zones;
        (self.vmstat.events, self.freelist_walk) = (events, walk);
        let general = self.get_page_from_freelist_general(0, mark, gfp);
        assert_eq!(fast, general, "get_page_from_freelist_order0() and the general walk give different frames ({mark:?}, node {})", gfp.nid);
        assert!(summary(self) == after_fast, "get_page_from_freelist_order0() and the general walk leave different zone counters, events or walk ({mark:?}, node {})", gfp.nid);
        general
    }

    /// The general walk of [`Kernel::get_page_from_freelist`] (any order, the zonelist cache,
    /// the fair pass, the per-CPU lists).
    fn get_page_from_freelist_general(&mut self, order: u32, mark: Wmark, gfp: Gfp) -> Option<PageId> {
        self.freelist_walk = None;
        let nid = gfp.nid as usize;
        // Whether the walk changed no state but the chosen zone's counters.
        let mut clean = true;
        // ZONELIST_NOFALLBACK has no zonelist cache (its zlcache_ptr is NULL before 4.4).
        let zlc_enabled = self.policies.zonelist_cache && self.nodes.len() > 1 && !gfp.thisnode;
        let lower_orders = self.profile.watermark_check_lower_orders;
        // ALLOC_FAIR: set for the fast path (the low watermark) in 3.12-4.7.
        let mut fair = self.profile.fair_zone_alloc && mark == Wmark::Low;
        let mut zlc_active = false;
        let mut did_zlc_setup = false;
        let len = self.nodes[nid].zonelist.len();
        loop {
            // zonelist_scan:
            let mut rescan = false;
            let mut nr_fair_skipped = 0;
            for zi in 0..len {
                let z = self.nodes[nid].zonelist[zi];
                if gfp.thisnode && self.zones[z].node != nid as u32 {
                    break; // the node's own zones come first in its zonelist
                }
                if zlc_active && self.nodes[nid].zlc_full[zi] {
                    continue;
                }
                if fair {
                    // The fair pass spreads allocations over the local node's zones in
                    // proportion to their size; remote zones wait for the second pass.
                    if self.zones[z].node != nid as u32 {
                        break;
                    }
                    if self.zones[z].alloc_batch <= 0 {
                        nr_fair_skipped += 1;
                        continue;
                    }
                }
                let ok = {
                    let zone = &self.zones[z];
                    zone.watermark_ok(order, zone.wmark(mark), lower_orders)
                };
                if self.profile.pcp_auto_tune && !self.zones[z].below_high {
                    // 6.7+: "Detect whether the number of free pages is below high watermark"
                    // (the per-CPU lists stop growing and shrink on frees while it is).
                    let zone = &self.zones[z];
                    if !zone.watermark_ok(order, zone.wmark_high, lower_orders) {
                        self.zones[z].below_high = true;
                        clean = false;
                    }
                }
                if !ok {
                    if zlc_enabled && !did_zlc_setup {
                        clean &= !self.zlc_setup(nid);
                        zlc_active = true;
                        did_zlc_setup = true;
                    }
                    // zone_reclaim_mode is 0: goto this_zone_full.
                    if zlc_active {
                        clean &= self.nodes[nid].zlc_full[zi];
                        self.nodes[nid].zlc_full[zi] = true;
                    }
                    continue;
                }
                let pfn = match order {
                    0 if self.profile.pcp_auto_tune => self.rmqueue_pcplist(z),
                    0 => self.zones[z].rmqueue_order0(),
                    o if o < PAGEBLOCK_ORDER => self.zones[z].rmqueue_order(o),
                    _ => self.zones[z].rmqueue_pageblock(),
                };
                match pfn {
                    Some(pfn) => {
                        // buffered_rmqueue(): NR_ALLOC_BATCH -= 1 << order.
                        self.zones[z].alloc_batch -= 1i64 << order;
                        self.boost_wake |= self.zones[z].boosted_flag;
                        self.zone_statistics(z, nid as u32);
                        self.vmstat.count(VmEvent::Pgalloc, 1u64 << order);
                        if clean && order == 0 && mark == Wmark::Low {
                            self.freelist_walk = Some(FreelistWalk { zone: z, nid: nid as u32, fair, zlc: did_zlc_setup });
                        }
                        return Some(PageId(pfn as u32));
                    }
                    None => {
                        if zlc_active {
                            clean &= self.nodes[nid].zlc_full[zi];
                            self.nodes[nid].zlc_full[zi] = true;
                        }
                    }
                }
            }
            if fair {
                fair = false;
                if nr_fair_skipped > 0 {
                    rescan = true;
                    clean = false;
                    self.reset_alloc_batches(nid);
                }
                if self.nodes.len() > 1 {
                    rescan = true;
                }
            }
            if zlc_active {
                zlc_active = false; // "Disable zlc cache for second zonelist scan"
                rescan = true;
            }
            if !rescan {
                return None;
            }
        }
    }

    /// Whether a [`Kernel::get_page_from_freelist`] walk is one
    /// [`Kernel::get_page_from_freelist_order0`] makes: an order-0 page where no zonelist
    /// cache, no fair pass and no per-CPU lists take part.
    #[inline(always)]
    fn freelist_walk_is_order0(&self, order: u32, mark: Wmark, gfp: Gfp) -> bool {
        order == 0
            && !self.profile.pcp_auto_tune
            && !(self.profile.fair_zone_alloc && mark == Wmark::Low)
            && !(self.policies.zonelist_cache && self.nodes.len() > 1 && !gfp.thisnode)
    }

    /// [`Kernel::get_page_from_freelist`] of an order-0 page where no zonelist cache, no fair
    /// pass and no per-CPU lists (6.7+'s `below_high` test) take part: the walk's single
    /// scan, in which the first zone of the zonelist above its watermark (`__zone_watermark_ok()`
    /// of order 0: free pages above the mark) that has a frame gives it; the counters and
    /// `Kernel::freelist_walk` as the general walk leaves them. Out of line, with the
    /// buddy's take and the NUMA counters in it, for the other walks; `alloc_pages()`'s first
    /// attempt (the page cache's hot path) has it inlined.
    #[inline(never)]
    fn get_page_from_freelist_order0(&mut self, mark: Wmark, gfp: Gfp) -> Option<PageId> {
        self.get_page_from_freelist_order0_inline(mark, gfp)
    }

    /// [`Kernel::get_page_from_freelist_order0`], inlined into `alloc_pages()`'s first attempt.
    #[inline(always)]
    fn get_page_from_freelist_order0_inline(&mut self, mark: Wmark, gfp: Gfp) -> Option<PageId> {
        self.freelist_walk = None;
        let nid = gfp.nid as usize;
        for zi in 0..self.nodes[nid].zonelist.len() {
            let z = self.nodes[nid].zonelist[zi];
            let zone = &mut self.zones[z];
            if gfp.thisnode && zone.node != nid as u32 {
                break;
            }
            if zone.free as i64 <= zone.wmark(mark) as i64 {
                continue;
            }
            let Some(pfn) = zone.rmqueue_order0_inline() else { continue };
            // buffered_rmqueue(): NR_ALLOC_BATCH -= 1 << order.
            zone.alloc_batch -= 1;
            self.boost_wake |= zone.boosted_flag;
            self.zone_statistics_n(z, nid as u32, 1);
            self.vmstat.count(VmEvent::Pgalloc, 1);
            if mark == Wmark::Low {
                self.freelist_walk = Some(FreelistWalk { zone: z, nid: nid as u32, fair: false, zlc: false });
            }
            return Some(PageId(pfn as u32));
        }
        None
    }

    /// The earliest time at which `alloc_pages()` would do more than walk the zonelist: an
    /// I/O completion falls due (`writeback_end_io()`, `swap_end_io()`), an awake kswapd is
    /// behind the clock (`kswapd_catch_up()`), or slab pages are owed (now). Before it, an
    /// allocation is its `get_page_from_freelist()` walk alone.
    pub fn alloc_quiet_until(&self) -> Nanos {
        if self.pagecache_slab_owed() {
            return 0;
        }
        let mut t = self.io_end_due();
        for n in &self.nodes {
            if n.kswapd_active {
                // kswapd_run() works while its clock is behind: idle up to and at its clock.
                t = t.min(n.kswapd_clock.saturating_add(1));
            }
        }
        t
    }

    /// Whether an order-0 allocation at time `t` (before `alloc_quiet_until()`), with nothing
    /// changed since the walk `w` but `w`'s own allocations, would repeat it: its zone still
    /// passes the low watermark (`__zone_watermark_ok()` of order 0), keeps a fair batch when
    /// it was chosen in the fair pass, and the zonelist cache is not due for its zap.
    #[inline]
    pub fn freelist_walk_holds(&self, w: &FreelistWalk, t: Nanos) -> bool {
        let zone = &self.zones[w.zone];
        zone.free > zone.wmark_low && (!w.fair || zone.alloc_batch > 0) && (!w.zlc || t < self.nodes[w.nid as usize].zlc_last_zap + ZLC_ZAP_INTERVAL)
    }

    /// `reset_alloc_batches()`: every zone of node `nid` gets its fair-allocation batch
    /// (`high - low` pages) back.
    fn reset_alloc_batches(&mut self, nid: usize) {
        for i in 0..self.nodes[nid].zones.len() {
            let z = self.nodes[nid].zones[i];
            let zone = &mut self.zones[z];
            zone.alloc_batch = (zone.wmark_high - zone.wmark_low) as i64;
        }
    }

    /// `zone_statistics()`: NUMA_HIT on the zone when it is on the preferred node, else
    /// NUMA_MISS on it and NUMA_FOREIGN on the preferred node's first zone. One event per
    /// allocation whatever its order (`rmqueue()` passes 1; PGALLOC counts the pages): a huge
    /// page counts once, as QEMU's 6.1 shows (qemu61-numa-anon.toml).
    fn zone_statistics(&mut self, z: usize, preferred: u32) {
        self.zone_statistics_n(z, preferred, 1);
    }

    /// `zone_statistics()` of `n` allocations from zone `z` for node `preferred`.
    #[inline(always)]
    pub(crate) fn zone_statistics_n(&mut self, z: usize, preferred: u32, n: u64) {
        if self.zones[z].node == preferred {
            self.zones[z].numa_hit += n;
            self.vmstat.count(VmEvent::NumaHit, n);
        } else {
            self.zones[z].numa_miss += n;
            let pz = self.nodes[preferred as usize].zones[0];
            self.zones[pz].numa_foreign += n;
            self.vmstat.count(VmEvent::NumaMiss, n);
            self.vmstat.count(VmEvent::NumaForeign, n);
        }
    }

    /// `free_unref_folios()`: give an order-0 page frame back to its zone.
    pub fn free_page(&mut self, page: PageId) {
        self.free_page_to(page, self.profile.pcp_auto_tune);
    }

    /// [`Kernel::free_page`] to the freeing context's per-CPU list (`pcp`) or straight to the
    /// buddy lists (a frame of a larger folio).
    fn free_page_to(&mut self, page: PageId, pcp: bool) {
        // A block-device page freed with its buffer heads still attached (an uncharged page:
        // mem_cgroup_uncharge() frees them for a charged one): try_to_free_buffers().
        if self.pages[page].test(crate::mm_types::pg::PRIVATE) {
            self.try_to_free_buffers(page);
        }
        self.pages.free(page);
        let z = self.zone_of(page);
        if pcp {
            self.free_unref_page_commit(z, page.0 as u64);
        } else {
            self.zones[z].free_order0(page.0 as u64);
        }
        // free_pcppages_bulk(): freeing resets NR_PAGES_SCANNED.
        let nid = self.zones[z].node as usize;
        self.nodes[nid].pages_scanned = 0;
        self.vmstat.count(VmEvent::Pgfree, 1);
    }

    /// `free_page()` of the `n` frames `first..first + n` of one pageblock, in that order,
    /// whose `Page`s the caller already freed (none had buffer heads). `folio`: the frames are
    /// one folio of `n` frames (`free_unref_folios()` of it); else `n` order-0 pages (a zap's
    /// run, `free_unref_folios()` of order-0 folios).
    pub fn free_pages_run(&mut self, first: PageId, n: u64, folio: bool) {
        let z = self.zone_of(first);
        if self.profile.pcp_auto_tune {
            if n == 1 || !folio {
                // Order-0 folios: free_unref_page_commit() of each frame (6.7+), onto the
                // freeing CPU's list.
                for i in 0..n {
                    self.free_unref_page_commit(z, first.0 as u64 + i);
                }
                let nid = self.zones[z].node as usize;
                self.nodes[nid].pages_scanned = 0;
                self.vmstat.count(VmEvent::Pgfree, n);
                return;
            }
            self.pcp_note_folio_free(z, n);
        }
        self.zones[z].free_order0_run(first.0 as u64, n);
        let nid = self.zones[z].node as usize;
        self.nodes[nid].pages_scanned = 0;
        self.vmstat.count(VmEvent::Pgfree, n);
    }

    /// `free_unref_page()` of order-0 frame `pfn` (its `Page` freed already) as one of a
    /// series with nothing reading the buddy between (munmap's zap): the frame joins the
    /// pageblock bitmap `m` holds when it is in the same pageblock (from 6.7, where each
    /// frame goes onto the per-CPU list in turn, only after the frame before it: the
    /// bitmap gives them back in ascending order), else `m` goes back to the buddy first
    /// ([`Kernel::free_mask_flush`]) and starts over with this frame.
    #[inline]
    pub(crate) fn free_mask_add(&mut self, m: &mut FreeMask, pfn: u64) {
        if m.n > 0 {
            let zone = &self.zones[m.zone as usize];
            if zone.contains(pfn) {
                let (b, off) = zone.block_of(pfn);
                if b == m.block && (!self.profile.pcp_auto_tune || pfn > m.last) {
                    m.bits[(off / 64) as usize] |= 1 << (off % 64);
                    m.n += 1;
                    m.last = pfn;
                    return;
                }
            }
            self.free_mask_flush(m);
        }
        let z = self.zone_of(PageId(pfn as u32));
        let (b, off) = self.zones[z].block_of(pfn);
        m.zone = z as u32;
        m.block = b;
        m.bits[(off / 64) as usize] |= 1 << (off % 64);
        m.n = 1;
        m.last = pfn;
    }

    /// [`Kernel::free_mask_add`] of each frame of `frames`, all in the pageblock of zone `z`
    /// that starts at frame `block_start` (from 6.7 in ascending order).
    #[inline]
    pub(crate) fn free_mask_add_block(&mut self, m: &mut FreeMask, z: usize, block_start: u64, frames: &[PageId]) {
        let b = self.zones[z].block_of(block_start).0;
        let first = frames[0].0 as u64;
        if m.n > 0 && (m.zone as usize != z || m.block != b || (self.profile.pcp_auto_tune && first < m.last)) {
            self.free_mask_flush(m);
        }
        m.zone = z as u32;
        m.block = b;
        for &q in frames {
            let off = q.0 as u64 - block_start;
            m.bits[(off / 64) as usize] |= 1 << (off % 64);
        }
        m.n += frames.len() as u64;
        m.last = frames[frames.len() - 1].0 as u64;
    }

    /// [`Kernel::free_mask_add_block`] of the `n` frames from `first` (`first + n` at most
    /// the block's end): the same bits, set a word at a time.
    #[inline]
    pub(crate) fn free_mask_add_range(&mut self, m: &mut FreeMask, z: usize, block_start: u64, first: u64, n: u64) {
        let b = self.zones[z].block_of(block_start).0;
        if m.n > 0 && (m.zone as usize != z || m.block != b || (self.profile.pcp_auto_tune && first < m.last)) {
            self.free_mask_flush(m);
        }
        m.zone = z as u32;
        m.block = b;
        let (lo, hi) = (first - block_start, first - block_start + n);
        debug_assert!(n > 0 && hi <= PAGEBLOCK_NR);
        for w in lo / 64..hi.div_ceil(64) {
            let (a, e) = (lo.max(w * 64) - w * 64, hi.min(w * 64 + 64) - w * 64);
            m.bits[w as usize] |= (u64::MAX >> (64 - (e - a))) << a;
        }
        m.n += n;
        m.last = first + n - 1;
    }

    /// The frames [`Kernel::free_mask_add`] holds in `m` back to the buddy
    /// (`Zone::free_order0_mask`; from 6.7 `free_unref_page_commit()` of each, in ascending
    /// order, which is the order they were freed in): the same bitmaps, counts and list moves
    /// as one `free_page()` each.
    pub(crate) fn free_mask_flush(&mut self, m: &mut FreeMask) {
        if m.n == 0 {
            return;
        }
        let z = m.zone as usize;
        if self.profile.pcp_auto_tune {
            let base = self.zones[z].start_pfn + m.block as u64 * PAGEBLOCK_NR;
            for w in 0..8 {
                let mut rest = m.bits[w];
                while rest != 0 {
                    let bit = rest.trailing_zeros() as u64;
                    rest &= rest - 1;
                    self.free_unref_page_commit(z, base + w as u64 * 64 + bit);
                }
            }
        } else {
            self.zones[z].free_order0_mask(m.block, &m.bits, m.n);
        }
        // free_pcppages_bulk(): freeing resets NR_PAGES_SCANNED.
        let nid = self.zones[z].node as usize;
        self.nodes[nid].pages_scanned = 0;
        self.vmstat.count(VmEvent::Pgfree, m.n);
        *m = FreeMask::EMPTY;
    }

    /// [`Kernel::free_page`] of an evicted order-0 page without buffer heads inside a
    /// `shrink_inactive_list()` batch `b` (`free_unref_folios()` of the batch's
    /// `free_folios`): the `Page` is freed at once, its frame joins the batch's run when it
    /// follows the run's last frame in the same pageblock, else the run goes to the buddy
    /// ([`Kernel::free_batch_flush`]) and a new one starts. Nothing between two evictions of a
    /// batch reads the buddy (an eviction leaves a shadow entry, so no tree node and no slab
    /// frame is freed with it; any other work flushes the batch first), so the frames go back
    /// in the same order with the same bitmaps, counts and list moves as one at a time
    /// (`evict_batched()` flushes the run before evicting a mapping's only entry, whose
    /// `xas_shrink()` may free a slab frame).
    #[inline]
    pub(crate) fn free_page_batched(&mut self, page: PageId, b: &mut crate::vmscan::EvictBatch) {
        debug_assert!(!self.pages[page].test(crate::mm_types::pg::PRIVATE));
        self.pages.free(page);
        if b.free_n > 0 && page.0 == b.free_first + b.free_n {
            let zone = &self.zones[b.free_zone as usize];
            if zone.contains(page.0 as u64) && (page.0 as u64 - zone.start_pfn) % PAGEBLOCK_NR != 0 {
                b.free_n += 1;
                return;
            }
        }
        self.free_batch_flush(b);
        b.free_first = page.0;
        b.free_n = 1;
        b.free_zone = self.zone_of(page) as u32;
    }

    /// The frames [`Kernel::free_page_batched`] holds in batch `b` go back to the buddy
    /// (`free_pages_run()` of order-0 pages, whose `Page`s are freed already).
    #[inline]
    pub(crate) fn free_batch_flush(&mut self, b: &mut crate::vmscan::EvictBatch) {
        if b.free_n > 0 {
            let (first, n) = (PageId(b.free_first), b.free_n as u64);
            b.free_n = 0;
            self.free_pages_run(first, n, false);
        }
    }

    /// `free_unref_folios()` of a page-cache folio of `nr` frames from `head`: each frame back
    /// to its pageblock (the buddy merges them as their neighbours come back).
    pub fn free_folio(&mut self, head: PageId, nr: u64) {
        if nr > 1 && self.pages[head].test(crate::mm_types::pg::PRIVATE) {
            // An uncharged large folio with its buffer heads (one a page, on the head).
            self.try_to_free_buffers(head);
        }
        let any_private = (0..nr as u32).any(|i| self.pages[PageId(head.0 + i)].test(crate::mm_types::pg::PRIVATE));
        let z = self.zone_of(head);
        let off = (head.0 as u64 - self.zones[z].start_pfn) % PAGEBLOCK_NR;
        if any_private || off + nr > PAGEBLOCK_NR || !self.zones[z].contains(head.0 as u64 + nr - 1) {
            if nr == 1 {
                self.free_page(head);
                return;
            }
            if self.profile.pcp_auto_tune {
                self.pcp_note_folio_free(z, nr);
            }
            for i in 0..nr as u32 {
                self.free_page_to(PageId(head.0 + i), false);
            }
            return;
        }
        // A folio within one pageblock (as the buddy hands them out): its frames go back as a run
        // (`free_pages_run()`: the same bitmap, counts and list moves as one at a time).
        self.pages.free_range(head, nr as u32);
        self.free_pages_run(head, nr, true);
    }

    /// `__free_pages(page, HPAGE_PMD_ORDER)`: give a huge page's block back.
    pub fn free_pageblock(&mut self, head: PageId) {
        self.pages.free_range(head, PAGEBLOCK_NR as u32);
        let z = self.zone_of(head);
        self.zones[z].free_pageblock(head.0 as u64);
        let nid = self.zones[z].node as usize;
        self.nodes[nid].pages_scanned = 0;
        self.vmstat.count(VmEvent::Pgfree, PAGEBLOCK_NR);
    }

    /// `wake_all_kswapds()`: wake the kswapd of every node in the zonelist whose zones are
    /// below their low watermark.
    pub fn wake_all_kswapds(&mut self, order: u32, nid: u32) {
        let list = std::mem::take(&mut self.nodes[nid as usize].zonelist);
        let mut woken = 0u64; // bitmask of nodes
        for &z in &list {
            let n = self.zones[z].node;
            if woken & (1 << n) == 0 {
                woken |= 1 << n;
                self.wakeup_kswapd(n, order);
            }
        }
        self.nodes[nid as usize].zonelist = list;
    }

    /// `wakeup_kswapd()`: wake the kswapd of node `nid` if the node is below its high
    /// watermark, then let it catch up (`kswapd_run`).
    pub fn wakeup_kswapd(&mut self, nid: u32, _order: u32) {
        if !self.nodes[nid as usize].kswapd_active {
            // "Hopeless node, leave it to direct reclaim if possible" (4.12+).
            if self.kswapd_hopeless(nid) || (self.wakeup_kswapd_balanced(nid) && !self.node_boosted(nid)) {
                return;
            }
            // Asleep, fully or in its short sleep (then "woken prematurely": remaining != 0,
            // KSWAPD_LOW_WMARK_HIT_QUICKLY), it runs after the wake-up's latency.
            let now = self.now;
            self.kswapd_start(nid, now);
        }
        self.kswapd_run(nid);
    }

    /// `allow_direct_reclaim()`'s wake-up of a sleeping kswapd of node `nid` for a throttled
    /// direct reclaimer (`wake_up_interruptible(&pgdat->kswapd_wait)`: no `pgdat_balanced()`
    /// test, unlike [`Kernel::wakeup_kswapd`]).
    pub(crate) fn kswapd_wake_direct(&mut self, nid: u32) {
        let now = self.now;
        self.kswapd_start(nid, now);
        self.kswapd_run(nid);
    }

    /// A sleeping kswapd of node `nid`, woken at `at`, goes back to `balance_pgdat()`: it runs
    /// after the machine's wake-up latency ([`Kernel::kswapd_wakeup_delay`]) with a zeroed
    /// `scan_control`, and `balance_pgdat()` counts `PAGEOUTRUN`.
    fn kswapd_start(&mut self, nid: u32, at: Nanos) {
        let delay = self.kswapd_wakeup_delay();
        let n = &mut self.nodes[nid as usize];
        n.kswapd_active = true;
        n.kswapd_short_sleep = None;
        // kswapd_catch_up() has work from the next allocation on.
        self.alloc_due = 0;
        n.kswapd_clock = n.kswapd_clock.max(at + delay);
        // Its runnable average decayed over the sleep (not runnable).
        n.kswapd_load = crate::sched::runnable_avg_update(n.kswapd_load, n.kswapd_clock.saturating_sub(n.kswapd_load_at), 0);
        n.kswapd_load_at = n.kswapd_clock;
        n.lru_gen_memcgs_need_aging = false;
        // A new balance_pgdat(): sc.priority = DEF_PRIORITY at its first round.
        n.kswapd_priority = 0;
        n.kswapd_reclaimed = 0;
        self.update_reclaim_active(nid, true);
        self.vmstat.count(VmEvent::KswapdWakeup, 1);
    }

    /// The end of kswapd's short sleep on node `nid` (`kswapd_try_to_sleep()`, mm/vmscan.c,
    /// unchanged from 3.13 to 6.12): `schedule_timeout(HZ/10)` ran out without a wake-up, and
    /// "After a short sleep, check if it was a premature sleep. If not, then go fully to sleep
    /// until explicitly woken up": `prepare_kswapd_sleep()` (the node balanced at the high
    /// watermark, [`Kernel::node_balanced`]) sends it to its full sleep; otherwise
    /// (KSWAPD_HIGH_WMARK_HIT_QUICKLY) kswapd, woken by its timer, balances again with no
    /// `wakeup_kswapd()`: the allocations took the node below high but not below low within
    /// the HZ/10. Run lazily, at the first catch-up at or after the sleep's end.
    fn kswapd_short_sleep_end(&mut self, nid: u32, end: Nanos) {
        self.nodes[nid as usize].kswapd_short_sleep = None;
        if self.kswapd_hopeless(nid) {
            return;
        }
        if self.node_balanced(nid) {
            self.clear_pgdat_congested(nid);
            return;
        }
        self.kswapd_start(nid, end);
        self.kswapd_run(nid);
    }

    /// How long a sleeping kswapd that `wakeup_kswapd()` wakes (`wake_up_interruptible(
    /// &pgdat->kswapd_wait)` -> `try_to_wake_up()`) waits before it runs on its CPU: one of
    /// the machine's measured wake-up latency samples (`[machine] wakeup_latency`), drawn in
    /// turn (`wakeup_rand`, seeded per boot); 0 on a machine without them. Until then the
    /// allocating task goes on taking the free pages between the low and min watermarks, and
    /// reclaims directly once they are gone (`__alloc_pages_slowpath()`).
    fn kswapd_wakeup_delay(&mut self) -> Nanos {
        if self.wakeup_latency.is_empty() {
            return 0;
        }
        let i = crate::lru_gen::get_random_u32_below(&mut self.wakeup_rand, self.wakeup_latency.len() as u64) as usize;
        self.wakeup_latency[i]
    }

    /// How long a CPU-bound kworker that `queue_work()` wakes (`__queue_work()` ->
    /// `insert_work()` -> `wake_up_worker()` -> `wake_up_process()`, kernel/workqueue.c) waits
    /// before it runs on its CPU: one of the machine's kworker wake-up samples (`[machine]
    /// kworker_wakeup_latency`), drawn in turn (`kworker_rand`, seeded per boot); 0 without them.
    pub(crate) fn kworker_wakeup_delay(&mut self) -> Nanos {
        if self.kworker_wakeup_latency.is_empty() {
            return 0;
        }
        let i = crate::lru_gen::get_random_u32_below(&mut self.kworker_rand, self.kworker_wakeup_latency.len() as u64) as usize;
        self.kworker_wakeup_latency[i]
    }

    /// The CPU kswapd of node `nid` runs on: the node's last (tasks take the CPUs from the
    /// first, [`Kernel::task_cpu`]), the node's CPUs being an equal share of `nr_cpu_ids`.
    pub fn kswapd_cpu(&self, nid: u32) -> u32 {
        let per_node = (self.nr_cpu_ids / self.nr_nodes.max(1)).max(1);
        ((nid + 1) * per_node - 1).min(self.nr_cpu_ids.max(1) - 1)
    }

    /// The CPU task `ti` runs on: task i on CPU i modulo `nr_cpu_ids`.
    pub fn task_cpu(&self, ti: usize) -> u32 {
        (ti % self.nr_cpu_ids.max(1) as usize) as u32
    }

    /// `update_reclaim_active()` (mm/vmscan.c, 5.14+): `set_reclaim_active()` when kswapd
    /// starts balancing node `nid` (`balance_pgdat()`), `clear_reclaim_active()` when it
    /// stops: `ZONE_RECLAIM_ACTIVE` on each of its zones.
    fn update_reclaim_active(&mut self, nid: u32, active: bool) {
        for i in 0..self.nodes[nid as usize].zones.len() {
            let z = self.nodes[nid as usize].zones[i];
            self.zones[z].reclaim_active = active;
        }
    }

    /// `pgdat_balanced()` (mm/vmscan.c) at order 0 (the engine's kswapd is woken and
    /// reclaims for order 0), every zone of the node eligible (the engine's allocations may
    /// use every zone), per era ([`crate::profile::PgdatBalanced`]):
    /// - `AnyZone` (4.8+, kswapd reclaiming by node): balanced as soon as one zone is at or
    ///   above its high watermark ("if (zone_watermark_ok_safe(zone, order, mark,
    ///   highest_zoneidx)) return true;", 6.1; `balance_pgdat()`'s "goto out" in 4.8-4.10);
    /// - `AllZones` (3.13-4.7): "For order-0, all zones must be balanced!", a zone that is not
    ///   `zone_reclaimable()` counting as balanced ("balance_pgdat() skips over
    ///   all_unreclaimable after DEF_PRIORITY"); the engine counts scans per node
    ///   ([`Node::pages_scanned`]), so it asks that of the node.
    pub fn node_balanced(&self, nid: u32) -> bool {
        match self.profile.pgdat_balanced {
            crate::profile::PgdatBalanced::AnyZone => {
                self.nodes[nid as usize].zones.iter().any(|&z| self.zones[z].free >= self.zones[z].wmark_high)
            }
            crate::profile::PgdatBalanced::AllZones => self.every_zone_balanced(nid) || !self.node_reclaimable(nid),
        }
    }

    /// Every zone of node `nid` at or above its high watermark (`zone_balanced()` of each,
    /// order 0).
    fn every_zone_balanced(&self, nid: u32) -> bool {
        self.nodes[nid as usize].zones.iter().all(|&z| self.zones[z].free >= self.zones[z].wmark_high)
    }

    /// `wakeup_kswapd()`'s test that leaves kswapd asleep. From 4.8 `pgdat_balanced()`
    /// ([`Kernel::node_balanced`]); before, `wake_all_kswapds()` calls it for each zone of the
    /// zonelist and each returns only when `zone_balanced()` holds (4.4 mm/vmscan.c: "if
    /// (zone_balanced(zone, order, 0, 0)) return;"), with no `zone_reclaimable()` test: kswapd
    /// is woken when any zone is below its high watermark, even on a node its own
    /// `pgdat_balanced()` would call balanced as unreclaimable. 3.13 has the same test, read in
    /// a v3.13.0 tree (mm/vmscan.c `wakeup_kswapd()`: after `waitqueue_active()`, "if
    /// (zone_balanced(zone, order, 0, 0)) return;", and `zone_balanced()` is
    /// `zone_watermark_ok_safe(zone, order, high_wmark_pages(zone) + balance_gap, classzone_idx,
    /// 0)` with balance_gap 0 and classzone 0, plus `compaction_suitable()` for order > 0, which
    /// the engine's order-0 wake-ups never need). The low-watermark test
    /// (`zone_watermark_ok_safe(zone, order, low_wmark_pages(zone), 0, 0)`) is older: it became
    /// `zone_balanced()` with Johannes Weiner's "mm: vmscan: fix numa reclaim balance problem
    /// in kswapd" (v2 posted 2 August 2013 as 1/3 of the fair zone allocator series, in 3.12),
    /// so every profile this engine has uses the high watermark here: no era switch is needed
    /// (unit test `pgdat_balanced_needs_any_zone_from_4_8_and_every_zone_before` wakes 3.13's
    /// kswapd with both zones one page below high, above low).
    pub fn wakeup_kswapd_balanced(&self, nid: u32) -> bool {
        match self.profile.pgdat_balanced {
            crate::profile::PgdatBalanced::AnyZone => self.node_balanced(nid),
            crate::profile::PgdatBalanced::AllZones => self.every_zone_balanced(nid),
        }
    }

    /// `clear_pgdat_congested()` (mm/vmscan.c 5.16+; `prepare_kswapd_sleep()` on a balanced
    /// node): the root lruvec of node `nid` is no longer `LRUVEC_CONGESTED`.
    pub(crate) fn clear_pgdat_congested(&mut self, nid: u32) {
        let v = self.lruvec_idx(crate::types::MemcgId::ROOT, nid);
        self.lruvecs[v].congested = false;
        // clear_bit(PGDAT_WRITEBACK, &pgdat->flags)
        self.nodes[nid as usize].pgdat_writeback = false;
    }

    /// `pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES` (mm/vmscan.c 4.12+, c73322d098e4):
    /// kswapd gave up on node `nid` after 16 `balance_pgdat()` passes without progress;
    /// `prepare_kswapd_sleep()` lets it sleep and `wakeup_kswapd()` does not wake it. Never
    /// before 4.12 (`KernelProfile::kswapd_failures`).
    #[inline]
    pub fn kswapd_hopeless(&self, nid: u32) -> bool {
        self.profile.kswapd_failures && self.nodes[nid as usize].kswapd_failures >= MAX_RECLAIM_RETRIES
    }

    /// `zone_reclaimable()` (mm/vmscan.c before 4.8) of node `nid`'s zones together: global
    /// reclaim scanned fewer than 6x its reclaimable pages (file LRU pages, and anon LRU pages
    /// while swap has room) since a page was last freed to it. The node's LRU sizes are its
    /// root lruvec's hierarchical ones (O(1)).
    pub fn node_reclaimable(&self, nid: u32) -> bool {
        self.nodes[nid as usize].pages_scanned < self.node_reclaimable_pages(nid) * 6
    }

    /// `zone_reclaimable_pages()` of node `nid`'s zones together: its file LRU pages, and its
    /// anonymous LRU pages while swap has room (`can_reclaim_anon_pages()`); the root lruvec's
    /// hierarchical sizes (O(1)).
    pub fn node_reclaimable_pages(&self, nid: u32) -> u64 {
        use crate::mmzone::LruList;
        let v = self.lruvec_idx(crate::types::MemcgId::ROOT, nid);
        let size = |l: LruList| self.lru_stats.subtree_size(v, l);
        let mut reclaimable = size(LruList::InactiveFile) + size(LruList::ActiveFile);
        if self.can_swap() {
            reclaimable += size(LruList::InactiveAnon) + size(LruList::ActiveAnon);
        }
        reclaimable
    }

    /// kswapd's `balance_pgdat()` loop, run lazily: kswapd is a thread with its own clock that
    /// reclaims the node in `balance_pgdat()`'s rounds ([`Kernel::kswapd_shrink_node`], at the
    /// loop's priority, `Node::kswapd_priority`) until `pgdat_balanced()` holds. The engine runs it, up to the running context's clock, whenever an
    /// allocation looks at memory, so that reclaim proceeds at kswapd's own pace (its CPU cost
    /// per page and its waits for I/O) and allocations faster than that pace see the
    /// watermarks fall, enter direct reclaim, or fail over to other zones. kswapd's time is
    /// its own; the allocating task is not charged for it. Its CPU time takes its CFS share
    /// of the CPUs on its clock ([`Kernel::cpu_stretch`], `crate::kernel::cfs_stretch`): beside
    /// more runnable tasks than CPUs it waits for a CPU (`Kernel::kswapd_runq_ns`). A pass of the memcg LRU (6.3+
    /// lru_gen, whose goal is the zones' high watermarks, not a batch) stops where kswapd's
    /// clock reaches the running context's, after the batch it was freeing, and goes on at the
    /// next call (`Node::kswapd_pass`): its pages are freed over the pass's time, as the
    /// kernel's kswapd frees them on its own CPU, not all at the clock the pass started at;
    /// the pass's end, not a stop, is where `balance_pgdat()` looks at the watermarks again.
    pub fn kswapd_run(&mut self, nid: u32) {
        if self.in_kswapd || self.in_zswap_worker || !self.nodes[nid as usize].kswapd_active {
            return;
        }
        self.in_kswapd = true;
        // kswapd is a task of its own: its reclaim plugs into its own `current->plug`, not the
        // one the interrupted task may hold open (a swap readahead's), and flushes only that.
        self.swap_plug_switch();
        let (now, sys, iowait, saved_nid, saved_ctx) = (self.now, self.sys_ns, self.iowait_ns, self.reclaim_nid, self.pcp_ctx);
        let (saved_stretch, saved_runq) = (self.cpu_stretch, self.runq_ns);
        // kswapd is a SCHED_NORMAL task at nice 0 (`kswapd()`): runnable beside the tasks that
        // want a CPU and the other nodes' awake kswapds, it gets its CFS share of the CPUs
        // (`crate::kernel::cfs_stretch`).
        self.cpu_stretch = crate::kernel::cfs_stretch(self.kswapd_share_others(nid), self.nr_cpu_ids);
        self.cpu_plain_update();
        self.reclaim_nid = Some(nid);
        let saved_until = self.kswapd_until;
        self.kswapd_until = now;
        // kswapd frees into its CPU's per-CPU lists.
        self.pcp_ctx = self.kswapd_cpu(nid);
        while self.nodes[nid as usize].kswapd_clock < now {
            let going_on = self.nodes[nid as usize].kswapd_pass.is_some();
            if !going_on && self.nodes[nid as usize].kswapd_priority == 0 {
                // A balance_pgdat() starts: its zone_boosts[] and nr_boost_reclaim (5.0+).
                self.balance_pgdat_boosts(nid);
            }
            let balanced = !going_on && self.node_balanced(nid);
            if !going_on && (self.kswapd_hopeless(nid) || (balanced && self.nodes[nid as usize].nr_boost_reclaim == 0)) {
                // kswapd_try_to_sleep(): balanced (or, 4.12+, hopeless), prepare_kswapd_sleep()
                // holds and kswapd sleeps HZ/10 on kswapd_wait first.
                if !self.kswapd_hopeless(nid) {
                    self.clear_pgdat_congested(nid);
                }
                // balance_pgdat()'s "goto out" on a balanced node (a hopeless one's ended).
                self.kswapd_balance_end(nid);
                let n = &mut self.nodes[nid as usize];
                n.kswapd_active = false;
                n.kswapd_short_sleep = Some(n.kswapd_clock + KSWAPD_SHORT_SLEEP);
                // prepare_kswapd_sleep(): "If kswapd is going to sleep, no process should be
                // sleeping on pfmemalloc_wait, so wake them now if necessary."
                if n.pfmemalloc_waiters > 0 {
                    n.pfmemalloc_wake = Some(n.kswapd_clock);
                }
                // kswapd_catch_up() ends the short sleep from its end on.
                let end = n.kswapd_clock + KSWAPD_SHORT_SLEEP;
                self.alloc_due = self.alloc_due.min(end);
                break;
            }
            if !going_on && !balanced && self.nodes[nid as usize].nr_boost_reclaim > 0 {
                // "If the pgdat is imbalanced then ignore boosting and preserve the watermarks
                // for a later time and restart" (5.0+): nr_boost_reclaim = 0, goto restart
                // (sc.priority = DEF_PRIORITY, sc.nr_reclaimed kept).
                let n = &mut self.nodes[nid as usize];
                n.nr_boost_reclaim = 0;
                n.kswapd_priority = crate::vmscan::DEF_PRIORITY;
            }
            let start = self.nodes[nid as usize].kswapd_clock;
            let runq_before = self.runq_ns;
            self.now = start;
            self.sys_ns = 0;
            self.writeback_end_io();
            self.swap_end_io();
            // One round of balance_pgdat()'s priority loop (vmscan.rs kswapd_shrink_node()),
            // or the rest of a 6.3+ lru_gen pass that stopped at the shared clock.
            let ended_empty = if going_on {
                self.lru_gen_kswapd_resume(nid);
                false
            } else {
                self.kswapd_shrink_node(nid).1
            };
            if ended_empty && !self.profile.kswapd_failures && self.now == start {
                // A balance_pgdat() that reclaimed nothing down to priority 1. 4.12+ counts
                // it in kswapd_failures (kswapd_round_end()), and kswapd_try_to_sleep()
                // sleeps at once when that made the node hopeless (the loop's test above);
                // else it balances again without sleeping. 3.11-4.11: no count, kswapd
                // balances again until pgdat_balanced() holds (an unreclaimable node counts
                // as balanced, 3.13's zone_reclaimable(): scanned 6x its LRU pages since the
                // last free). A round that took none of kswapd's time changed nothing a new
                // one would see: kswapd spins on its CPU up to the running context's clock
                // (the busy loop c73322d098e4 removed), and looks again at the next catch-up.
                self.sys_ns += now - start;
                self.now = now;
            }
            self.kswapd_ns += self.sys_ns;
            self.nodes[nid as usize].kswapd_ns += self.sys_ns;
            self.nodes[nid as usize].kswapd_clock = self.now.max(start + 1);
            // Its runnable average over the batch: its CPU time and its waits for a CPU are
            // runnable, its I/O waits not.
            let n = &mut self.nodes[nid as usize];
            let runnable = self.sys_ns + (self.runq_ns - runq_before);
            n.kswapd_load = crate::sched::runnable_avg_update(n.kswapd_load, n.kswapd_clock.saturating_sub(n.kswapd_load_at), runnable);
            n.kswapd_load_at = n.kswapd_clock;
        }
        self.now = now;
        self.sys_ns = sys;
        self.iowait_ns = iowait;
        self.kswapd_runq_ns += self.runq_ns - saved_runq;
        (self.cpu_stretch, self.runq_ns) = (saved_stretch, saved_runq);
        self.cpu_plain_update();
        self.reclaim_nid = saved_nid;
        self.kswapd_until = saved_until;
        self.pcp_ctx = saved_ctx;
        if !self.nodes[nid as usize].kswapd_active {
            self.update_reclaim_active(nid, false);
        }
        self.swap_plug_switch();
        self.in_kswapd = false;
    }

    /// What node `nid`'s kswapd shares the CPUs with (units of `SCHED_CAPACITY_SCALE`, for
    /// `crate::kernel::cfs_stretch`): the tasks that want a CPU, by their weights on the run
    /// queue (`crate::sched::quantum_runnable_weight`: [`Kernel::task_load_sum`], the running
    /// task's among them), with those that left it at a clock later than the running context's
    /// ([`Kernel::departed_load_sum`]: still enqueued there, 6.1/6.18 kernel/sched/fair.c
    /// `dequeue_entity()` at their own instant; review51 L4, which the running task's own share
    /// in sched.rs `enter()` counted and kswapd's did not), and the other nodes' awake kswapds by
    /// their runnable averages ([`Kernel::kswapd_load_sum`]).
    pub fn kswapd_share_others(&self, nid: u32) -> u64 {
        (self.task_load_sum + self.departed_load_sum + self.kswapd_load_sum(Some(nid))) >> crate::sched::LOAD_PRECISION_SHIFT
    }

    /// The runnable averages of the awake kswapds but `except`'s (units of `SCHED_CAPACITY_SCALE
    /// << LOAD_PRECISION_SHIFT`, `Node::kswapd_load`): what they add to a run queue's load
    /// beside the tasks' (`crate::kernel::cfs_stretch`). A sleeping kswapd is off the run
    /// queue (`dequeue_entity()`), as a task blocked in a `wait` is.
    pub fn kswapd_load_sum(&self, except: Option<u32>) -> u64 {
        self.nodes.iter().enumerate().filter(|&(i, n)| n.kswapd_active && Some(i as u32) != except).map(|(_, n)| n.kswapd_load).sum()
    }

    /// Whether kswapd, the running context, stopped its pass of the memcg LRU at the shared
    /// clock (`Node::kswapd_pass`): its reclaim unwinds to [`Kernel::kswapd_run`].
    #[inline]
    pub fn kswapd_pass_stopped(&self) -> bool {
        self.in_kswapd && self.reclaim_nid.is_some_and(|n| self.nodes[n as usize].kswapd_pass.is_some())
    }

    /// Swap the running context's swap plug with the other context's (kswapd's and the
    /// interrupted task's: `current->plug` is per task). kswapd's own plug is empty whenever it
    /// is switched out: its `shrink_lruvec()` finishes every plug it starts.
    pub(crate) fn swap_plug_switch(&mut self) {
        std::mem::swap(&mut self.swap_plug, &mut self.other_swap_plug.0);
        std::mem::swap(&mut self.swap_plug_pages, &mut self.other_swap_plug.1);
    }

    /// Let every awake kswapd catch up with the running context's clock, and end the short
    /// sleeps that ran out by then ([`Kernel::kswapd_short_sleep_end`]).
    #[inline]
    pub fn kswapd_catch_up(&mut self) {
        // Called on every allocation: the test that no node has anything to do (no kswapd
        // awake, no short sleep run out) is one pass over the nodes without the loop's calls
        // (issue 17), and the loop below runs only when one has.
        let (now, in_kswapd) = (self.now, self.in_kswapd);
        if self.nodes.iter().all(|n| !n.kswapd_active && n.kswapd_short_sleep.is_none_or(|end| end > now || in_kswapd)) {
            return;
        }
        self.kswapd_catch_up_nodes();
    }

    /// [`Kernel::kswapd_catch_up`] once a node has something to do.
    #[inline(never)]
    fn kswapd_catch_up_nodes(&mut self) {
        for nid in 0..self.nodes.len() {
            if self.nodes[nid].kswapd_active {
                self.kswapd_run(nid as u32);
            } else if let Some(end) = self.nodes[nid].kswapd_short_sleep {
                if end <= self.now && !self.in_kswapd {
                    self.kswapd_short_sleep_end(nid as u32, end);
                }
            }
        }
    }

    /// The wait of `should_reclaim_retry()` (mm/page_alloc.c 4.7-5.15) for a round without
    /// progress while more than half of the reclaimable memory is dirty or under writeback:
    /// `congestion_wait(BLK_RW_ASYNC, HZ/10)`. On the 5.x block layer nothing wakes it early
    /// (`ReclaimThrottle::CongestionTimeout`: the whole HZ/10); before 5.0, until the device's
    /// backlog drains.
    pub fn should_reclaim_retry_write_pending_wait(&mut self) {
        match self.profile.reclaim_throttle {
            crate::profile::ReclaimThrottle::CongestionTimeout => {
                let t = crate::vmscan::congestion_wait_blk_mq(self.now, crate::vmscan::RECLAIM_THROTTLE_JIFFIES, self.profile.timer_wheel_round_up);
                self.stalled(StallKind::Congestion, |k| k.wait_until(t));
            }
            _ => self.congestion_wait(crate::vmscan::RECLAIM_THROTTLE_JIFFIES),
        }
        self.writeback_end_io();
    }

    /// `wait_iff_congested()` / `congestion_wait()`: sleep until the device's writeback has
    /// drained, at most `timeout` jiffies (`io_schedule_timeout()`, whose timer wakes it at a
    /// tick: timer.rs); no sleep when nothing is under writeback.
    pub fn congestion_wait(&mut self, timeout: u64) {
        let now = self.now;
        if let Some(t) = self.devices.iter().map(|d| d.busy_until).filter(|&t| t > now).min() {
            let until = t.min(self.schedule_timeout_at(timeout));
            self.stalled(StallKind::Congestion, |k| k.wait_until(until));
        }
    }
}

/// The per-CPU page lists (mm/page_alloc.c, 6.7+: `KernelProfile::pcp_auto_tune`).
impl Kernel {
    /// The running context's list of zone `z`: that of the CPU it runs on (`pcp_ctx`; no
    /// scheduler: CPU 0).
    fn pcp_index(&mut self, z: usize) -> usize {
        let ctx = if self.pcp_ctx == u32::MAX { 0 } else { self.pcp_ctx as usize };
        let i = ctx * self.zones.len() + z;
        if i >= self.pcps.len() {
            self.pcps.resize(i + 1, PerCpuPages::default());
        }
        if !self.pcps[i].queued {
            self.pcps[i].queued = true;
            self.pcp_active.push(i as u32);
        }
        i
    }

    /// `(batch, high_min, high_max)` of zone `z`'s lists (`zone_set_pageset_high_and_batch()`
    /// with the default `percpu_pagelist_high_fraction` 0; recomputed from the current low
    /// watermark, as `setup_per_zone_wmarks()` -> `zone_pcp_update()` does).
    fn pcp_params(&self, z: usize) -> (u64, u64, u64) {
        let zone = &self.zones[z];
        let node_cpus = (self.nr_cpu_ids / self.nr_nodes.max(1)).max(1) as u64;
        (zone.pcp_batch(), zone.pcp_highsize(node_cpus, 0), zone.pcp_highsize(node_cpus, MIN_PERCPU_PAGELIST_HIGH_FRACTION))
    }

    /// `nr_pcp_alloc()` (6.7+) for an order-0 refill of list `i` of zone `z`: `batch <<
    /// alloc_factor` frames, `high` first raised by as many while the zone is not below its
    /// high watermark, and at most what `high` leaves room for (`high - count - batch`, at
    /// least `batch`); the factor grows when the refill fits.
    pub fn nr_pcp_alloc(&mut self, i: usize, z: usize) -> u64 {
        let (base, high_min, high_max) = self.pcp_params(z);
        let below_high = self.zones[z].below_high;
        let pcp = &mut self.pcps[i];
        let mut high = pcp.high.clamp(high_min, high_max);
        pcp.high = high;
        if high < base {
            return 1;
        }
        let mut batch = base << pcp.alloc_factor;
        if high_min != high_max && !below_high {
            high = (high + batch).min(high_max);
            pcp.high = high;
        }
        let max_nr_alloc = (high as i64 - pcp.count() as i64 - base as i64).max(base as i64) as u64;
        if batch <= max_nr_alloc && pcp.alloc_factor < PCP_BATCH_SCALE_MAX {
            pcp.alloc_factor += 1;
        }
        batch = batch.min(max_nr_alloc);
        batch
    }

    /// `rmqueue_pcplist()` of an order-0 frame of zone `z` (6.7+): halve the list's
    /// `free_count`; an empty list is refilled from the buddy lists (`rmqueue_bulk()` of
    /// `nr_pcp_alloc()` frames, in the order the buddy hands them out, each counted out of
    /// `NR_FREE_PAGES`); the list's first frame. `None` when the zone has no frame.
    pub fn rmqueue_pcplist(&mut self, z: usize) -> Option<u64> {
        let i = self.pcp_index(z);
        self.pcps[i].free_count >>= 1;
        if self.pcps[i].list.is_empty() {
            let n = self.nr_pcp_alloc(i, z);
            // rmqueue_bulk(): one `rmqueue_mode` for the refill (6.15+, 6.12.29+ fallbacks)
            self.zones[z].steal_mode = false;
            for _ in 0..n {
                match self.zones[z].rmqueue_order0() {
                    Some(f) => self.pcps[i].list.push_back(f as u32),
                    None => break,
                }
            }
            self.zones[z].steal_mode = false;
        }
        self.pcps[i].list.pop_front().map(|f| f as u64)
    }

    /// Frames on the running context's list of zone `z` (what an allocation takes before it
    /// refills), for the anonymous fault run.
    pub fn pcp_count(&mut self, z: usize) -> u64 {
        let i = self.pcp_index(z);
        self.pcps[i].list.len() as u64
    }

    /// The running context's list of zone `z`, its index in `pcps` (for the anonymous fault
    /// run, [`PerCpuPages::take_run`]).
    pub fn pcp_of(&mut self, z: usize) -> usize {
        self.pcp_index(z)
    }

    /// `nr_pcp_high()` (6.7+, order-0 frees): how many frames list `i` of zone `z` may hold
    /// before a free flushes it, adjusting its `high`: while kswapd reclaims, `high` drops by
    /// the frees (at least a batch, not below `high_min`) and the list holds at most 4
    /// batches; below the high watermark `high` drops likewise and the list holds what it
    /// has (at least `high_min`); else a full list raises `high` to hold its frees and a
    /// batch more.
    fn nr_pcp_high(&mut self, i: usize, z: usize, batch: u64, high_min: u64, high_max: u64) -> u64 {
        let (reclaim_active, below_high) = (self.zones[z].reclaim_active, self.zones[z].below_high);
        let pcp = &mut self.pcps[i];
        let mut high = pcp.high.clamp(high_min, high_max);
        pcp.high = high;
        if high == 0 {
            return 0;
        }
        if reclaim_active {
            let free_count = pcp.free_count.max(batch);
            pcp.high = high.saturating_sub(free_count).max(high_min);
            return (batch << 2).min(pcp.high);
        }
        if high_min == high_max {
            return high;
        }
        if below_high {
            let free_count = pcp.free_count.max(batch);
            pcp.high = high.saturating_sub(free_count).max(high_min);
            high = pcp.count().max(high_min);
        } else if pcp.count() >= high {
            let need_high = pcp.free_count + batch;
            if pcp.high < need_high {
                pcp.high = need_high.clamp(high_min, high_max);
            }
        }
        high
    }

    /// `free_pcppages_bulk()` (6.12 mm/page_alloc.c): up to `count` frames of set `i` back to
    /// zone `z`'s buddy lists, each list from its tail, "Ensure requested pindex is drained
    /// first": the non-movable list first when `nm_first` (the list of a frame just freed
    /// there; `pindex` 0, MIGRATE_UNMOVABLE, for `decay_pcp_high()` and `drain_pages_zone()`),
    /// else the movable one, then the other ("round-robin": with two lists, the rest).
    ///
    /// Known simplification (review49 L4): the kernel's lists are per migratetype and its
    /// round-robin walks `pindex` upward, emptying each list before the next, so from `pindex` 0
    /// it frees unmovable (0) -> movable (1) -> reclaimable (2) -> the high-order lists. The
    /// engine keeps one non-movable list ([`PerCpuPages::nm`], unmovable and reclaimable frames
    /// together), so a drain from `pindex` 0 frees the reclaimable frames before the movable ones
    /// rather than after. Documented only; behaviour unchanged.
    fn free_pcppages_bulk(&mut self, i: usize, z: usize, count: u64, nm_first: bool) {
        for _ in 0..count {
            let pcp = &mut self.pcps[i];
            let f = if nm_first {
                pcp.nm.pop_back().or_else(|| pcp.list.pop_back())
            } else {
                pcp.list.pop_back().or_else(|| pcp.nm.pop_back())
            };
            let Some(f) = f else { break };
            self.zones[z].free_order0(f as u64);
        }
    }

    /// `free_unref_page_commit()` of an order-0 frame (6.7+): halve the freeing context's
    /// `alloc_factor`, put the frame at the head of the list of its pageblock's migratetype
    /// (`free_unref_page()`'s `get_pfnblock_migratetype()`, 6.12: [`PerCpuPages::nm`] for a
    /// non-movable block), count the free, and when the set's `pcp->count` reaches
    /// `nr_pcp_high()` flush `nr_pcp_free()` frames (`free_count` clamped to `[batch, high -
    /// batch]`), that list first, to the buddy lists, clearing `ZONE_BELOW_HIGH` if the zone is
    /// above its high watermark again.
    pub fn free_unref_page_commit(&mut self, z: usize, pfn: u64) {
        let i = self.pcp_index(z);
        let (batch, high_min, high_max) = self.pcp_params(z);
        // free_unref_page(): the list of the frame's pageblock's migratetype
        let nm = !self.zones[z].pfn_movable(pfn);
        {
            let pcp = &mut self.pcps[i];
            pcp.alloc_factor >>= 1;
            if nm {
                pcp.nm.push_front(pfn as u32);
            } else {
                pcp.list.push_front(pfn as u32);
            }
            if pcp.free_count < batch << PCP_BATCH_SCALE_MAX {
                pcp.free_count += 1;
            }
        }
        let high = self.nr_pcp_high(i, z, batch, high_min, high_max);
        if self.pcps[i].count() >= high {
            // nr_pcp_free(): "leave at least pcp->batch pages on the list"
            let n = if high < batch { 1 } else { self.pcps[i].free_count.max(batch).min(high - batch) };
            self.free_pcppages_bulk(i, z, n, nm);
            let lower = self.profile.watermark_check_lower_orders;
            let zone = &self.zones[z];
            if zone.below_high && zone.watermark_ok(0, zone.wmark_high, lower) {
                self.zones[z].below_high = false;
            }
        }
    }

    /// The freeing of a folio of `nr` (> 1) frames as it touches the freeing context's list
    /// of zone `z`: `free_unref_page_commit()` halves `alloc_factor` once when
    /// [`pcp_allowed_order`] lets the folio onto a list (orders 1-3 and the pageblock order;
    /// the engine does not model those orders' lists, so the frames go to the buddy lists);
    /// orders 4-8 leave the list alone.
    pub fn pcp_note_folio_free(&mut self, z: usize, nr: u64) {
        if !pcp_allowed_order(nr) {
            return;
        }
        let i = self.pcp_index(z);
        self.pcps[i].alloc_factor >>= 1;
    }

    /// `drain_all_pages(NULL)`: every list of every context back to the buddy lists (after
    /// a direct reclaim that made progress but left the allocation failing). Whether any
    /// frame was on a list.
    pub fn drain_all_pages(&mut self) -> bool {
        let nz = self.zones.len();
        let mut any = false;
        for i in 0..self.pcps.len() {
            let n = self.pcps[i].count();
            if n > 0 {
                any = true;
                // drain_pages_zone(): free_pcppages_bulk(zone, count, pcp, 0)
                self.free_pcppages_bulk(i, i % nz, n, true);
            }
        }
        any
    }

    /// Frames on every per-CPU list (out of `NR_FREE_PAGES`, in no one's use).
    pub fn nr_pcp_pages(&self) -> u64 {
        self.pcps.iter().map(|p| p.count()).sum()
    }

    /// `vmstat_update()` of every CPU, each `STAT_INTERVAL` from boot up to now:
    /// `decay_pcp_high()` of each list: `high` down by an eighth (not below `high_min`, nor
    /// below `count - (batch << PCP_BATCH_SCALE_MAX)`), and the frames above it back to the
    /// buddy lists. Only the lists used since their `high` was last at `high_min`
    /// (`pcp_active`, in index order) can change: the others are passed over, so that the
    /// work per second follows the contexts that allocated or freed, not the task count.
    /// The test for a due period is inlined into the caller (every allocation makes it).
    #[inline(always)]
    pub fn pcp_decay_due(&mut self) {
        if self.profile.pcp_auto_tune && self.now >= self.pcp_next_decay {
            self.pcp_decay_periods();
        }
    }

    /// [`Kernel::pcp_decay_due`] once a period is due.
    #[inline(never)]
    fn pcp_decay_periods(&mut self) {
        // After 64 periods every high is at its floor: more cannot change anything.
        let periods = ((self.now - self.pcp_next_decay) / STAT_INTERVAL + 1).min(64);
        self.pcp_next_decay += ((self.now - self.pcp_next_decay) / STAT_INTERVAL + 1) * STAT_INTERVAL;
        let nz = self.zones.len();
        let mut active = std::mem::take(&mut self.pcp_active);
        active.sort_unstable();
        for _ in 0..periods {
            for &i in &active {
                let i = i as usize;
                let z = i % nz;
                let (batch, high_min, _) = self.pcp_params(z);
                let pcp = &mut self.pcps[i];
                if pcp.high > high_min {
                    let floor = pcp.count().saturating_sub(batch << PCP_BATCH_SCALE_MAX);
                    pcp.high = floor.max(pcp.high - (pcp.high >> 3)).max(high_min);
                }
                let over = pcp.count().saturating_sub(pcp.high);
                if over > 0 {
                    // decay_pcp_high(): free_pcppages_bulk(zone, to_drain_batched, pcp, 0)
                    self.free_pcppages_bulk(i, z, over, true);
                }
            }
        }
        // Those at their floor leave the set until they are used again.
        let mut keep = 0;
        for j in 0..active.len() {
            let i = active[j] as usize;
            let (_, high_min, _) = self.pcp_params(i % nz);
            if self.pcps[i].high > high_min {
                active[keep] = active[j];
                keep += 1;
            } else {
                self.pcps[i].queued = false;
            }
        }
        active.truncate(keep);
        self.pcp_active = active;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::profile;

    #[test]
    fn watermarks_follow_the_kernel_formula() {
        // 16 GiB: lowmem_kb = 16777216; int_sqrt(16777216*16) = 16384 kB -> 4096 pages.
        let z = Zone::new(16 << 18, &profile("linux-6.6").unwrap());
        assert_eq!(z.min_free_kbytes, 16384);
        assert_eq!(z.wmark_min, 4096);
        let step = (4096u64 / 4).max((16u64 << 18) * 10 / 10_000);
        assert_eq!(z.wmark_low, 4096 + step);
        assert_eq!(z.wmark_high, 4096 + 2 * step);
        let old = Zone::new(16 << 18, &profile("linux-4.4").unwrap());
        assert_eq!(old.wmark_low, 4096 + 1024);
        assert_eq!(old.wmark_high, 4096 + 2048);
        // Tiny machines clamp at 128 kB, huge ones at 65536 kB.
        assert_eq!(Zone::new(100, &profile("linux-6.6").unwrap()).min_free_kbytes, 128);
        assert_eq!(Zone::new(1000, &profile("linux-6.6").unwrap()).min_free_kbytes, 252);
        assert_eq!(Zone::new(1 << 30, &profile("linux-6.6").unwrap()).min_free_kbytes, 65536);
    }

    #[test]
    fn buddy_splits_and_merges_pageblocks() {
        let mut z = Zone::with_range(0, ZoneType::Normal, 1000, 2 * PAGEBLOCK_NR + 10);
        // Two whole blocks and a short one (10 frames, a partial block from the start).
        assert_eq!(z.nr_free_blocks(), 2);
        assert_eq!(z.nr_free_scattered(), 10);
        // Order 0 comes from the partial block first.
        let a = z.rmqueue_order0().unwrap();
        assert_eq!(a, 1000 + 2 * PAGEBLOCK_NR);
        // A huge page takes the lowest whole block.
        let h = z.rmqueue_pageblock().unwrap();
        assert_eq!(h, 1000);
        assert_eq!(z.nr_free_blocks(), 1);
        // Drain the short block, then order 0 splits the last whole block.
        for _ in 0..9 {
            z.rmqueue_order0().unwrap();
        }
        let b = z.rmqueue_order0().unwrap();
        assert_eq!(b, 1000 + PAGEBLOCK_NR);
        assert_eq!(z.nr_free_blocks(), 0);
        assert!(!z.watermark_ok(9, 0, false), "no order-9 block left");
        assert!(z.watermark_ok(0, 0, false));
        // Freeing the only used frame of the split block merges it back.
        z.free_order0(b);
        assert_eq!(z.nr_free_blocks(), 1);
        z.free_pageblock(h);
        assert_eq!(z.nr_free_blocks(), 2);
        assert_eq!(z.free, z.managed - 10, "the ten frames of the short block are still used");
    }

    #[test]
    fn old_watermark_check_counts_only_high_order_blocks() {
        let p = profile("linux-4.4").unwrap();
        let mut z = Zone::with_range(0, ZoneType::Normal, 0, 8 * PAGEBLOCK_NR);
        z.setup_per_zone_wmarks(&p, 8 * PAGEBLOCK_NR);
        // Fragment: take one frame out of every block; half the zone stays free but no
        // order-9 block exists.
        let all: Vec<u64> = (0..8 * PAGEBLOCK_NR).map(|_| z.rmqueue_order0().unwrap()).collect();
        assert_eq!(z.free, 0);
        for pfn in all.iter().step_by(2) {
            z.free_order0(*pfn);
        }
        assert_eq!(z.free, 8 * 256);
        assert_eq!(z.nr_free_blocks(), 0);
        assert!(z.watermark_ok(0, z.wmark_low, true));
        assert!(!z.watermark_ok(9, z.wmark_low, true), "scattered frames do not count for order 9");
        assert!(!z.watermark_ok(9, z.wmark_low, false));
    }
}

/// `pcp_allowed_order()` (mm/page_alloc.c 6.7+) of a folio of `nr` frames: orders up to
/// `PAGE_ALLOC_COSTLY_ORDER` (3) and the pageblock order (THP) are freed through the per-CPU
/// lists (`free_unref_page_commit()`); the orders between (4-8, the page cache's large
/// folios) go straight to the buddy lists (`free_unref_folios()` -> `free_one_page()`,
/// `free_the_page()` -> `__free_pages_ok()`), leaving the lists alone.
#[inline]
pub fn pcp_allowed_order(nr: u64) -> bool {
    nr <= 1 << 3 || nr == PAGEBLOCK_NR
}
