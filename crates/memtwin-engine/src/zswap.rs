//! zswap: the compressed cache in front of swap (mm/zswap.c as of 6.1, behind the frontswap
//! hooks of mm/frontswap.c and mm/page_io.c), with its default zpool on Debian's 6.1, zbud
//! (mm/zbud.c: at most two compressed pages per pool page).
//!
//! Reclaim's `swap_writepage()` first offers a page to `frontswap_store()` ->
//! `zswap_frontswap_store()`: a same-filled page is kept as its one repeated word (no pool
//! memory), another is compressed and stored in a zbud page; the write then "starts and ends"
//! at once (`folio_start_writeback()` + `folio_end_writeback()`, no I/O), so
//! `shrink_folio_list()` frees the page in the same pass. A store is rejected — the page goes
//! to the disk as before — when the pool is over `max_pool_percent` of RAM (`pool_limit_hit`,
//! which queues the shrink worker: `zpool_shrink()` -> `zbud_reclaim_page()` writes the
//! oldest pool page's entries back to swap, `zswap_writeback_entry()`), until it is back under
//! `accept_threshold_percent` of that; when the compressed page does not fit a zbud buddy
//! (`reject_compress_poor`), or does not fit the one page the compressor may write (LZO's
//! output of incompressible data: compression fails, counted nowhere); or when the memcg is at its memory.zswap.max (5.19+, cgroup v2; from 6.8 the store first
//! writes back one of the memcg's entries, `shrink_memcg()`, and goes on if it did).
//! `swap_readpage()` asks `frontswap_load()` first: an entry is decompressed, no I/O, and
//! (6.1: loads are not exclusive) stays until its slot is freed (`swap_entry_free()` ->
//! `frontswap_invalidate_page()`). The compressed bytes are charged to the page's memcg as
//! kernel memory (`obj_cgroup_charge_zswap()`, 5.19+, cgroup v2), memory.stat `zswap`,
//! `zswapped`, `zswpin`, `zswpout`.
//!
//! What a page compresses to depends on its data: each anonymous mapping says what its pages
//! hold ([`AnonFill`], the scenario's `fill`), and [`lzo1x_1_compressed_len`] gives the
//! size LZO1X-1 (`lzo`, Debian's `CONFIG_ZSWAP_COMPRESSOR_DEFAULT`) makes of it.

use crate::kernel::Kernel;
use crate::memcontrol::CgroupVersion;
use crate::mm_types::pg;
use crate::types::{MemcgId, Nanos, PageId, PAGE_SIZE};

/// What the pages of an anonymous mapping hold once written (the scenario's mmap `fill`;
/// the real-kernel runners write it): it decides what zswap stores.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum AnonFill {
    /// One byte set at the start of the page, the rest zero (what a `touch` writes).
    #[default]
    Byte,
    /// Every byte the same (a same-filled page: `zswap_is_page_same_filled()`).
    Same,
    /// The first `n` bytes random (incompressible), the rest zero; `n` = 4096: all random.
    Random(u16),
}

impl AnonFill {
    /// The scenario's spelling.
    pub fn name(&self) -> String {
        match self {
            AnonFill::Byte => "byte".into(),
            AnonFill::Same => "same".into(),
            AnonFill::Random(n) if *n as u64 >= PAGE_SIZE => "random".into(),
            AnonFill::Random(n) => format!("random-{n}"),
        }
    }
}

/// `struct zswap_header` before each compressed page in an evictable zpool (zbud): the swap
/// entry, 8 bytes (`hlen = zpool_evictable() ? sizeof(zhdr) : 0`).
pub const ZSWAP_HEADER: u64 = 8;
/// zbud's allocation unit: `CHUNK_SIZE` = `PAGE_SIZE >> NCHUNKS_ORDER` (6) = 64 bytes.
pub const ZBUD_CHUNK: u64 = 64;
/// `NCHUNKS`: chunks of a zbud page after its header (`(PAGE_SIZE - ZHDR_SIZE_ALIGNED) >>
/// CHUNK_SHIFT`) = 63.
pub const ZBUD_NCHUNKS: u64 = (PAGE_SIZE - ZBUD_CHUNK) / ZBUD_CHUNK;
/// The largest object zbud takes: `PAGE_SIZE - ZHDR_SIZE_ALIGNED - CHUNK_SIZE` (bigger:
/// `zbud_alloc()` returns -ENOSPC, zswap counts `reject_compress_poor`).
pub const ZBUD_MAX_ALLOC: u64 = PAGE_SIZE - 2 * ZBUD_CHUNK;
/// `zbud_zpool_shrink()` -> `zbud_reclaim_page(pool, 8)`: pool pages tried per shrink.
pub const ZBUD_RECLAIM_RETRIES: u32 = 8;

/// What LZO1X-1 (lib/lzo/lzo1x_compress.c, `lzo1x_1_compress()`, the `lzo` compressor) makes
/// of one 4 KiB page holding `fill`, in bytes, from the format's encoding:
/// - a literal run of `t` bytes costs `t` plus 1 byte (t <= 18) or 2 + (t - 18) / 255;
/// - a match (`M3`, offsets up to 16 KiB) of `m` bytes costs 3 bytes plus one per 255 of
///   `m - 33` beyond the first;
/// - the compressor looks for matches from byte 4 on and, inside a literal run, skips ahead
///   `1 + (ip - ii) / 32` bytes at a time (`literal: ip += 1 + ((ip - ii) >> 5)`), so a run
///   of `r` random bytes ends about `r / 32 + 1` bytes into the zeros after it (the second
///   zero word it hashes is the first match);
/// - the match stops 20 bytes before the end (`ip_end = in + in_len - 20`), which go out as
///   literals, then the 3-byte end marker (`M4_MARKER | 1, 0, 0`).
///
/// Random bytes never match (a 4-byte hash collision that also compares equal is a 2^-32
/// event per position). A same-filled page is never compressed by zswap (it keeps the word).
/// An estimate within a few bytes of the real output for these fills (the skip's exact end
/// depends on where the literal run stops), which is what memory.zswap.current adds up.
pub fn lzo1x_1_compressed_len(fill: AnonFill) -> u64 {
    let lit = |t: u64| if t == 0 { 0 } else if t <= 18 { 1 + t } else { 2 + (t - 18) / 255 + t };
    let mat = |m: u64| if m <= 33 { 3 } else { 3 + 1 + (m - 33) / 255 };
    let (random, tail) = match fill {
        AnonFill::Same => return 0,
        AnonFill::Byte => (1u64, 20u64),
        AnonFill::Random(n) => ((n as u64).min(PAGE_SIZE), 20),
    };
    // The literal run: the random bytes and the zeros the skipping passes over before the
    // second zero word is hashed (at least 4: the first word looked at is at byte 4).
    let run = (random + 1 + random / 32).max(5);
    if run + tail >= PAGE_SIZE {
        // Nothing left to match: one literal run of the whole page.
        return lit(PAGE_SIZE) + 3;
    }
    let matched = PAGE_SIZE - tail - run;
    lit(run) + mat(matched) + lit(tail) + 3
}

/// The zswap tunables (`/sys/module/zswap/parameters/*`, the scenario's `[machine] zswap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZswapParams {
    /// `enabled` (Debian's 6.1: `CONFIG_ZSWAP_DEFAULT_ON` unset, so off unless asked).
    pub enabled: bool,
    /// `max_pool_percent` (default 20): the pool's limit, percent of RAM.
    pub max_pool_percent: u64,
    /// `accept_threshold_percent` (default 90, 5.6+): after the pool was full, stores are
    /// rejected until it is below this percent of its limit.
    pub accept_threshold_percent: u64,
    /// `same_filled_pages_enabled` (default true, 5.1+).
    pub same_filled_pages_enabled: bool,
    /// `non_same_filled_pages_enabled` (default true, 5.15+).
    pub non_same_filled_pages_enabled: bool,
}

impl Default for ZswapParams {
    fn default() -> Self {
        ZswapParams { enabled: true, max_pool_percent: 20, accept_threshold_percent: 90, same_filled_pages_enabled: true, non_same_filled_pages_enabled: true }
    }
}

/// /sys/kernel/debug/zswap and the zswap lines of /proc/vmstat.
#[derive(Clone, Debug, Default)]
pub struct ZswapStats {
    /// `pool_limit_hit`.
    pub pool_limit_hit: u64,
    /// `written_back_pages`.
    pub written_back_pages: u64,
    /// `reject_reclaim_fail`.
    pub reject_reclaim_fail: u64,
    /// `reject_compress_poor`.
    pub reject_compress_poor: u64,
    /// `reject_alloc_fail`.
    pub reject_alloc_fail: u64,
    /// `stored_pages`.
    pub stored_pages: u64,
    /// `same_filled_pages`.
    pub same_filled_pages: u64,
    /// vmstat `zswpin` (5.19+).
    pub zswpin: u64,
    /// vmstat `zswpout` (5.19+).
    pub zswpout: u64,
}

const NIL: u32 = u32::MAX;
/// No entry at a slot.
const NO_ENTRY: u16 = u16::MAX;
/// The handle of a same-filled entry (no pool memory).
const SAME_FILLED: u32 = u32::MAX;
/// `blist` of a zbud page with both buddies used (`pool->buddied`).
const BUDDIED: u8 = u8::MAX;

/// `struct zbud_header` of one pool page, with the engine's links.
#[derive(Clone, Copy, Debug)]
struct ZbudPage {
    frame: PageId,
    first_chunks: u8,
    last_chunks: u8,
    /// The slots whose entries the buddies hold.
    first_slot: u32,
    last_slot: u32,
    /// `zhdr->lru` (head = most recently allocated into).
    lru_prev: u32,
    lru_next: u32,
    /// `zhdr->buddy` on `unbuddied[blist]` (or `BUDDIED`, on no engine list).
    buddy_prev: u32,
    buddy_next: u32,
    blist: u8,
}

/// `struct zbud_pool`.
#[derive(Clone, Debug)]
struct Zbud {
    pages: Vec<ZbudPage>,
    free_ids: Vec<u32>,
    /// `unbuddied[i]`: pages with one buddy used and `i` free chunks.
    unbuddied: [u32; ZBUD_NCHUNKS as usize + 1],
    lru_head: u32,
    lru_tail: u32,
    /// `pages_nr`.
    pages_nr: u64,
}

impl Zbud {
    fn new() -> Zbud {
        Zbud { pages: vec![], free_ids: vec![], unbuddied: [NIL; ZBUD_NCHUNKS as usize + 1], lru_head: NIL, lru_tail: NIL, pages_nr: 0 }
    }

    fn lru_del(&mut self, i: u32) {
        let (p, n) = (self.pages[i as usize].lru_prev, self.pages[i as usize].lru_next);
        if p == NIL { self.lru_head = n } else { self.pages[p as usize].lru_next = n }
        if n == NIL { self.lru_tail = p } else { self.pages[n as usize].lru_prev = p }
    }

    fn lru_add(&mut self, i: u32) {
        let h = self.lru_head;
        self.pages[i as usize].lru_prev = NIL;
        self.pages[i as usize].lru_next = h;
        if h == NIL { self.lru_tail = i } else { self.pages[h as usize].lru_prev = i }
        self.lru_head = i;
    }

    fn buddy_del(&mut self, i: u32) {
        let z = self.pages[i as usize];
        if z.blist == BUDDIED {
            return;
        }
        if z.buddy_prev == NIL { self.unbuddied[z.blist as usize] = z.buddy_next } else { self.pages[z.buddy_prev as usize].buddy_next = z.buddy_next }
        if z.buddy_next != NIL {
            self.pages[z.buddy_next as usize].buddy_prev = z.buddy_prev;
        }
        self.pages[i as usize].blist = BUDDIED;
    }

    /// `list_add(&zhdr->buddy, ...)`: onto `unbuddied[num_free_chunks()]` when one buddy is
    /// free, else `buddied`.
    fn buddy_add(&mut self, i: u32) {
        let z = self.pages[i as usize];
        if z.first_chunks != 0 && z.last_chunks != 0 {
            self.pages[i as usize].blist = BUDDIED;
            return;
        }
        // num_free_chunks(): "There is always at least one free chunk".
        let free = ZBUD_NCHUNKS - z.first_chunks as u64 - z.last_chunks as u64;
        let h = self.unbuddied[free as usize];
        let zp = &mut self.pages[i as usize];
        zp.blist = free as u8;
        zp.buddy_prev = NIL;
        zp.buddy_next = h;
        if h != NIL {
            self.pages[h as usize].buddy_prev = i;
        }
        self.unbuddied[free as usize] = i;
    }
}

/// zsmalloc's smallest object (mm/zsmalloc.c `ZS_MIN_ALLOC_SIZE`, 32 bytes on x86_64).
pub const ZS_MIN_ALLOC_SIZE: u64 = 32;
/// `ZS_SIZE_CLASS_DELTA`: `PAGE_SIZE >> CLASS_BITS` (8) = 16 bytes between size classes.
pub const ZS_SIZE_CLASS_DELTA: u64 = PAGE_SIZE >> 8;
/// `ZS_HANDLE_SIZE`: `zs_malloc()` adds a handle's room (`sizeof(unsigned long)`) to each
/// object ("extra space in chunk to keep the handle").
pub const ZS_HANDLE_SIZE: u64 = 8;
/// `ZS_MAX_PAGES_PER_ZSPAGE`: `CONFIG_ZSMALLOC_CHAIN_SIZE` (default 8; this host's 6.18 config).
pub const ZS_MAX_PAGES_PER_ZSPAGE: u64 = 8;
/// `ZS_SIZE_CLASSES`: classes from `ZS_MIN_ALLOC_SIZE` to `PAGE_SIZE` in `ZS_SIZE_CLASS_DELTA` steps.
pub const ZS_SIZE_CLASSES: usize = ((PAGE_SIZE - ZS_MIN_ALLOC_SIZE) / ZS_SIZE_CLASS_DELTA + 1) as usize;

/// `get_size_class_index()` (mm/zsmalloc.c) of an allocation of `size` bytes (the handle's
/// room included): `DIV_ROUND_UP(size - ZS_MIN_ALLOC_SIZE, ZS_SIZE_CLASS_DELTA)`, at most the
/// last class.
pub fn zs_size_class_index(size: u64) -> usize {
    let idx = if size > ZS_MIN_ALLOC_SIZE { (size - ZS_MIN_ALLOC_SIZE).div_ceil(ZS_SIZE_CLASS_DELTA) } else { 0 };
    (idx as usize).min(ZS_SIZE_CLASSES - 1)
}

/// `calculate_zspage_chain_size()` (mm/zsmalloc.c, 6.3+): the pages of a zspage of class
/// `class_size`: one for a power of two, else the chain of up to `ZS_MAX_PAGES_PER_ZSPAGE`
/// pages that wastes the fewest bytes (the first such).
pub fn zs_chain_size(class_size: u64) -> u64 {
    if class_size.is_power_of_two() {
        return 1;
    }
    let (mut best, mut min_waste) = (1, u64::MAX);
    for i in 1..=ZS_MAX_PAGES_PER_ZSPAGE {
        let waste = (i * PAGE_SIZE) % class_size;
        if waste < min_waste {
            min_waste = waste;
            best = i;
        }
    }
    best
}

/// zsmalloc's pool (`struct zs_pool`, the one zswap has on 6.18): per size class the objects
/// held and the zspages' frames. The pages a class holds are as many zspages as its objects
/// fill, `DIV_ROUND_UP(objects, objs_per_zspage)` (a zspage is freed once it holds no object;
/// the engine keeps the class as `zs_compact()` leaves it, its objects packed).
#[derive(Clone, Debug)]
struct Zsmalloc {
    /// Objects held per class.
    objs: Vec<u64>,
    /// The frames of each class's zspages, `chain` at a time.
    frames: Vec<Vec<PageId>>,
    /// `zs_get_total_pages()`.
    pages_nr: u64,
}

impl Zsmalloc {
    fn new() -> Zsmalloc {
        Zsmalloc { objs: vec![0; ZS_SIZE_CLASSES], frames: vec![vec![]; ZS_SIZE_CLASSES], pages_nr: 0 }
    }

    /// (pages per zspage, objects per zspage) of class `idx`.
    fn class(idx: usize) -> (u64, u64) {
        let size = ZS_MIN_ALLOC_SIZE + idx as u64 * ZS_SIZE_CLASS_DELTA;
        let chain = zs_chain_size(size);
        (chain, chain * PAGE_SIZE / size)
    }
}

/// The zswap state of the machine (`zswap_trees[type]` of its one swap area, the current pool).
#[derive(Clone, Debug)]
pub struct Zswap {
    /// The tunables.
    pub params: ZswapParams,
    /// Counters.
    pub stats: ZswapStats,
    /// The entry of each slot: its compressed length (`entry->length`), `NO_ENTRY` for none
    /// (grown on demand with the slots used).
    len: Vec<u16>,
    /// Its zbud handle: pool page * 2 + buddy (1 = last), `SAME_FILLED` for a same-filled one.
    handle: Vec<u32>,
    zbud: Zbud,
    /// The zsmalloc pool (`KernelProfile::zswap_direct`).
    zs: Zsmalloc,
    /// zswap's LRU of entries (6.8+ `zswap_list_lru`; zsmalloc pools): slots in store order,
    /// stale ones skipped when met; and each slot's `entry->referenced`.
    lru: std::collections::VecDeque<u32>,
    /// Each memcg's part of `zswap_list_lru` (`list_lru_walk_one(&zswap_list_lru, nid, memcg)`
    /// walks it alone), by memcg index: slots in store order, stale ones (loaded, invalidated,
    /// written back, or the slot's entry now another memcg's) skipped when met.
    memcg_lru: Vec<std::collections::VecDeque<u32>>,
    referenced: Vec<bool>,
    /// What each slot's last stored page held (for a page stored again unmapped).
    fills: Vec<AnonFill>,
    /// `zswap_pool_reached_full`.
    reached_full: bool,
    /// 6.1's `zswap_pool_total_size` in pages: the pool's size as `zswap_update_total_size()`
    /// last took it, at `zswap_free_entry()` and at the end of a successful store only, which
    /// `zswap_is_full()`, `zswap_can_accept()` and debugfs's `pool_total_size` read. A zbud page
    /// a shrink run frees (`zbud_reclaim_page()`, after its buddies' `zswap_free_entry()`)
    /// stays in it until the next store or free.
    total_pages_copy: u64,
    /// The pool's `shrink_work` is queued (`queue_work()` of a queued work does nothing).
    pub shrink_queued: bool,
    /// When the queued `shrink_work` was queued (6.1's worker starts then, or where its run
    /// under way ends: [`Kernel::zswap_shrink_worker_due`]).
    pub(crate) shrink_queued_at: Nanos,
    /// The shrink worker's clock (6.1): when its last run ended. The worker runs in a kworker
    /// of its own, beside the storing task ([`Kernel::zswap_shrink_worker_due`]).
    pub worker_clock: Nanos,
    /// 6.1's worker run under way ([`Kernel::zswap_shrink_worker_due`]).
    pub(crate) worker_run: Option<ZbudRun>,
    /// The pool page `zbud_reclaim_page()` is working on (`under_reclaim`: off the buddy
    /// lists, `zbud_free()` of its buddies leaves it to the reclaim to free).
    reclaiming: u32,
}

/// 6.1's `zbud_reclaim_page(pool, 8)` under way, one `zswap_writeback_entry()` a step: the
/// page under reclaim (`Zswap::reclaiming`), the slots of its two buddies as the reclaim read
/// them (`first_handle`, `last_handle`; `NIL` for none), the next one, whether every eviction
/// so far succeeded, and the retries left.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZbudRun {
    slots: [u32; 2],
    next: usize,
    ok: bool,
    retries_left: u32,
}

impl Zswap {
    /// zswap with `params`, an empty pool.
    pub fn new(params: ZswapParams) -> Zswap {
        Zswap { params, stats: ZswapStats::default(), len: vec![], handle: vec![], zbud: Zbud::new(), zs: Zsmalloc::new(), lru: Default::default(), memcg_lru: vec![], referenced: vec![], fills: vec![], reached_full: false, total_pages_copy: 0, shrink_queued: false, shrink_queued_at: 0, worker_clock: 0, worker_run: None, reclaiming: NIL }
    }

    /// `zswap_pool_total_size` in pages (zbud: `pages_nr`; zsmalloc: `zs_get_total_pages()`).
    pub fn pool_pages(&self) -> u64 {
        self.zbud.pages_nr + self.zs.pages_nr
    }

    /// The zbud pool's LRU, head first (pool page indices), and the page under reclaim with
    /// the slots of the buddies it still holds (`NIL` for none); for the tests.
    #[cfg(test)]
    pub(crate) fn zbud_lru(&self) -> (Vec<u32>, Option<(u32, [u32; 2])>) {
        let mut v = vec![];
        let mut i = self.zbud.lru_head;
        while i != NIL {
            v.push(i);
            i = self.zbud.pages[i as usize].lru_next;
        }
        let r = (self.reclaiming != NIL).then(|| {
            let z = self.zbud.pages[self.reclaiming as usize];
            (self.reclaiming, [if z.first_chunks != 0 { z.first_slot } else { NIL }, if z.last_chunks != 0 { z.last_slot } else { NIL }])
        });
        (v, r)
    }

    /// The slots of zbud pool page `i`'s buddies (`NIL` for a free one); for the tests.
    #[cfg(test)]
    pub(crate) fn zbud_page_slots(&self, i: u32) -> [u32; 2] {
        let z = self.zbud.pages[i as usize];
        [if z.first_chunks != 0 { z.first_slot } else { NIL }, if z.last_chunks != 0 { z.last_slot } else { NIL }]
    }

    /// Whether the shrink worker is queued or, on 6.1, has a run under way.
    pub fn shrink_pending(&self) -> bool {
        self.shrink_queued || self.worker_run.is_some()
    }

    /// The compressed length of slot `slot`'s entry.
    pub fn entry_len(&self, slot: u32) -> Option<u64> {
        self.len.get(slot as usize).filter(|&&l| l != NO_ENTRY).map(|&l| l as u64)
    }

    /// 6.1's `zswap_pool_total_size` in pages ([`Zswap::total_pages_copy`]).
    pub fn pool_total_size_pages(&self) -> u64 {
        self.total_pages_copy
    }

    /// `zswap_update_total_size()` (6.1): take the pool's size.
    fn update_total_size(&mut self) {
        self.total_pages_copy = self.pool_pages();
    }

    /// `zswap_is_full()` (6.1): `totalram_pages() * max_pool_percent / 100 <
    /// DIV_ROUND_UP(zswap_pool_total_size, PAGE_SIZE)`, the size as last taken.
    pub fn is_full(&self, totalram: u64) -> bool {
        totalram * self.params.max_pool_percent / 100 < self.total_pages_copy
    }

    /// `zswap_can_accept()` (6.1): the pool, as last taken, below `accept_threshold_percent`
    /// of its limit.
    pub fn can_accept(&self, totalram: u64) -> bool {
        totalram * self.params.accept_threshold_percent / 100 * self.params.max_pool_percent / 100 > self.total_pages_copy
    }

    /// `zswap_check_limits()` (6.18): the pool full at `zswap_max_pages()` (`pool_limit_hit`),
    /// accepting again once at or below `zswap_accept_thr_pages()`; whether stores are refused.
    pub fn check_limits(&mut self, totalram: u64) -> bool {
        let max = totalram * self.params.max_pool_percent / 100;
        let cur = self.pool_pages();
        if cur >= max {
            self.stats.pool_limit_hit += 1;
            self.reached_full = true;
        } else if self.reached_full && cur <= max * self.params.accept_threshold_percent / 100 {
            self.reached_full = false;
        }
        self.reached_full
    }

    fn grow(&mut self, slot: u32) {
        let s = slot as usize;
        if s >= self.len.len() {
            let want = (s + 1).max(self.len.len() + self.len.len() / 8);
            self.len.resize(want, NO_ENTRY);
            self.handle.resize(want, NIL);
            self.referenced.resize(want, false);
            self.fills.resize(want, AnonFill::Byte);
        }
    }

    /// Note what the page given slot `slot` holds (its mapping's fill), whether or not zswap
    /// takes it: a page refused and kept in the swap cache (memory.zswap.writeback 0) is
    /// offered again unmapped, with the same data.
    pub fn note_fill(&mut self, slot: u32, fill: AnonFill) {
        self.grow(slot);
        self.fills[slot as usize] = fill;
    }

    /// Entries held, for the invariants: (entries, same-filled, pool pages named by them).
    pub fn count_entries(&self) -> (u64, u64) {
        let e = self.len.iter().filter(|&&l| l != NO_ENTRY).count() as u64;
        let s = self.handle.iter().zip(&self.len).filter(|(&h, &l)| l != NO_ENTRY && h == SAME_FILLED).count() as u64;
        (e, s)
    }

    /// Every entry: (slot, compressed length).
    pub fn entries(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.len.iter().enumerate().filter(|(_, &l)| l != NO_ENTRY).map(|(s, &l)| (s as u32, l as u64))
    }

    /// The pool's frames (for the invariants): the zbud LRU's, the page under reclaim (off
    /// the LRU), zsmalloc's.
    pub fn frames(&self) -> impl Iterator<Item = PageId> + '_ {
        let reclaiming = (self.reclaiming != NIL).then(|| self.zbud.pages[self.reclaiming as usize].frame);
        let mut i = self.zbud.lru_head;
        std::iter::from_fn(move || {
            if i == NIL {
                return None;
            }
            let z = self.zbud.pages[i as usize];
            i = z.lru_next;
            Some(z.frame)
        })
        .chain(reclaiming)
        .chain(self.zs.frames.iter().flatten().copied())
    }
}

impl Kernel {
    /// `zswap_frontswap_store()` (6.1) of the order-0 anonymous page `p` just given slot
    /// `slot` (charged to `memcg`): returns whether zswap took it. Rejections leave the page
    /// to the disk write (`__swap_writepage()`).
    pub fn zswap_store(&mut self, p: PageId, slot: u32) -> bool {
        if self.zswap.as_ref().is_none_or(|z| !z.params.enabled) {
            return false;
        }
        let fill = self.vmas[self.pages[p].mapping.0 as usize].fill;
        self.zswap_store_fill(p, slot, fill)
    }

    /// [`Kernel::zswap_store`] of an unmapped swap-cache page (dirtied by 6.18's exclusive
    /// load, reclaimed before a fault mapped it): its data is what the slot's last store
    /// held.
    pub fn zswap_store_unmapped(&mut self, p: PageId, slot: u32) -> bool {
        let Some(z) = self.zswap.as_ref() else { return false };
        let fill = z.fills.get(slot as usize).copied().unwrap_or_default();
        self.zswap_store_fill(p, slot, fill)
    }

    fn zswap_store_fill(&mut self, p: PageId, slot: u32, fill: AnonFill) -> bool {
        let Some(z) = self.zswap.as_ref() else { return false };
        if !z.params.enabled {
            return false;
        }
        let memcg = self.pages[p].memcg;
        let v2 = self.memcgs.version == CgroupVersion::V2 && self.profile.zswap_memcg && memcg != MemcgId::NONE;
        if v2 && !self.obj_cgroup_may_zswap(memcg) {
            // 6.8+: "if (shrink_memcg(memcg)) goto reject;" - one entry of the page's memcg
            // written back, then the store goes on (the limit is not checked again).
            if !self.profile.zswap_shrink_memcg || !self.shrink_memcg(memcg) {
                return false;
            }
        }
        let totalram = self.managed_pages();
        if self.profile.zswap_direct {
            let z = self.zswap.as_mut().expect("zswap");
            if z.check_limits(totalram) {
                // "if (!ret && zswap_pool_reached_full) queue_work(shrink_wq, ...)"
                z.shrink_queued = true;
                return false;
            }
        } else {
            // The worker's run queued earlier, when its turn has come.
            self.zswap_shrink_worker_due();
            let z = self.zswap.as_mut().expect("zswap");
            if z.is_full(totalram) {
                z.stats.pool_limit_hit += 1;
                z.reached_full = true;
                // "goto shrink": queue_work(shrink_wq, &pool->shrink_work), and reject.
                self.zswap_queue_shrink_work();
                return false;
            }
            if z.reached_full {
                if !z.can_accept(totalram) {
                    return false;
                }
                z.reached_full = false;
            }
        }
        let params = self.zswap.as_ref().expect("zswap").params;
        self.cpu(self.cost.zswap_same_filled_check);
        let (len, handle) = if fill == AnonFill::Same && params.same_filled_pages_enabled && !self.profile.zswap_direct {
            (0u64, SAME_FILLED)
        } else {
            if !params.non_same_filled_pages_enabled {
                return false;
            }
            self.cpu(self.cost.zswap_compress);
            let dlen = lzo1x_1_compressed_len(fill);
            if dlen > PAGE_SIZE {
                // The request's output is one page (`dlen = PAGE_SIZE`; crypto/lzo.c runs
                // lzo1x_1_compress_safe()): a page LZO expands overruns it, compression fails
                // (-EINVAL, "goto put_dstmem") and the store is refused, counted nowhere.
                return false;
            }
            let h = if self.profile.zswap_direct { self.zs_malloc(dlen) } else { self.zbud_alloc(ZSWAP_HEADER + dlen, slot) };
            match h {
                Ok(h) => (dlen, h),
                Err(()) => return false,
            }
        };
        let z = self.zswap.as_mut().expect("zswap");
        z.grow(slot);
        debug_assert!(z.len[slot as usize] == NO_ENTRY, "a new slot has no zswap entry");
        z.len[slot as usize] = len as u16;
        z.handle[slot as usize] = handle;
        z.fills[slot as usize] = fill;
        z.stats.stored_pages += 1;
        if self.profile.zswap_direct {
            // zswap_lru_add(): "entry->referenced = true", at the LRU's tail.
            z.referenced[slot as usize] = true;
            z.lru.push_back(slot);
            if v2 {
                if z.memcg_lru.len() <= memcg.idx() {
                    z.memcg_lru.resize(memcg.idx() + 1, Default::default());
                }
                z.memcg_lru[memcg.idx()].push_back(slot);
            }
        }
        if handle == SAME_FILLED {
            z.stats.same_filled_pages += 1;
        }
        // "update stats": zswap_update_total_size().
        z.update_total_size();
        if self.profile.zswap_memcg {
            z.stats.zswpout += 1;
        }
        if v2 {
            self.obj_cgroup_charge_zswap(memcg, len);
            self.memcgs.memcgs[memcg.idx()].zswpout += 1;
        }
        true
    }

    /// `mem_cgroup_zswap_writeback_enabled()` (mm/memcontrol.c, 6.9+; 6.8 read the memcg's
    /// own file only): true while zswap is off ("do not block pages going to the swapping
    /// device"), else false when `memcg` or an ancestor has memory.zswap.writeback 0. Always
    /// true on an era without the file (`KernelProfile::zswap_writeback_knob`).
    pub fn mem_cgroup_zswap_writeback_enabled(&self, memcg: MemcgId) -> bool {
        if !self.profile.zswap_writeback_knob || self.zswap.as_ref().is_none_or(|z| !z.params.enabled) || memcg == MemcgId::NONE {
            return true;
        }
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let m = self.memcgs.get(c);
            if !m.zswap_writeback {
                return false;
            }
            cur = m.parent;
        }
        true
    }

    /// `obj_cgroup_may_zswap()` (5.19+): no ancestor below the root at its memory.zswap.max
    /// (`zswap.max` 0 refuses outright; else the pages of its `MEMCG_ZSWAP_B` against it).
    pub fn obj_cgroup_may_zswap(&self, memcg: MemcgId) -> bool {
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            if c == MemcgId::ROOT {
                break;
            }
            let m = self.memcgs.get(c);
            if m.zswap_max != crate::memcontrol::PAGE_COUNTER_MAX && m.zswap_bytes / PAGE_SIZE >= m.zswap_max {
                return false;
            }
            cur = m.parent;
        }
        true
    }

    /// `obj_cgroup_charge_zswap()` (5.19+, cgroup v2): the compressed bytes go to the memcg's
    /// page counter as kernel memory — forced, the store runs in reclaim (`PF_MEMALLOC`,
    /// "charging must succeed") — and to `MEMCG_ZSWAP_B` / `MEMCG_ZSWAPPED` (hierarchical).
    fn obj_cgroup_charge_zswap(&mut self, memcg: MemcgId, bytes: u64) {
        if memcg != MemcgId::ROOT {
            let m = &self.memcgs.memcgs[memcg.idx()];
            let need = (m.kmem_bytes + bytes).div_ceil(PAGE_SIZE) - m.kmem_pages;
            if need > 0 {
                // obj_cgroup_charge_pages() -> try_charge_memcg() in PF_MEMALLOC: forced.
                self.try_charge_memcg_force(memcg, need);
            }
            let m = &mut self.memcgs.memcgs[memcg.idx()];
            m.kmem_pages += need;
            m.kmem_bytes += bytes;
        }
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let m = &mut self.memcgs.memcgs[c.idx()];
            m.zswap_bytes += bytes;
            m.zswapped += 1;
            cur = m.parent;
        }
    }

    /// `obj_cgroup_uncharge_zswap()`.
    fn obj_cgroup_uncharge_zswap(&mut self, memcg: MemcgId, bytes: u64) {
        if memcg != MemcgId::ROOT {
            self.memcg_kmem_uncharge(memcg, bytes);
        }
        let mut cur = Some(memcg);
        while let Some(c) = cur {
            let m = &mut self.memcgs.memcgs[c.idx()];
            m.zswap_bytes -= bytes;
            m.zswapped -= 1;
            cur = m.parent;
        }
    }

    /// `zbud_alloc()` of `size` bytes for slot `slot`'s entry: the first unbuddied page with
    /// enough free chunks, else a new page from the page allocator (`__GFP_NORETRY |
    /// __GFP_KSWAPD_RECLAIM`: kswapd may be woken, no direct reclaim). Returns the handle;
    /// -ENOSPC (`reject_compress_poor`) or -ENOMEM (`reject_alloc_fail`) counted here.
    fn zbud_alloc(&mut self, size: u64, slot: u32) -> Result<u32, ()> {
        if size > ZBUD_MAX_ALLOC {
            self.zswap.as_mut().expect("zswap").stats.reject_compress_poor += 1;
            return Err(());
        }
        let chunks = size.div_ceil(ZBUD_CHUNK);
        let zb = &self.zswap.as_ref().expect("zswap").zbud;
        let found = (chunks as usize..=ZBUD_NCHUNKS as usize).map(|i| zb.unbuddied[i]).find(|&h| h != NIL);
        let (i, last) = match found {
            Some(i) => {
                let zb = &mut self.zswap.as_mut().expect("zswap").zbud;
                zb.buddy_del(i);
                (i, zb.pages[i as usize].first_chunks != 0)
            }
            None => {
                let gfp = crate::page_alloc::Gfp { no_direct_reclaim: true, ..crate::page_alloc::Gfp::node(self.cur_nid) };
                let Some(pfn) = self.alloc_pages(0, gfp) else {
                    self.zswap.as_mut().expect("zswap").stats.reject_alloc_fail += 1;
                    return Err(());
                };
                // post_alloc_hook(): the pool's page is zeroed under init_on_alloc.
                self.post_alloc_init(1);
                let frame = self.pages.init(pfn, crate::slab::SLAB_FRAME, 0);
                let zb = &mut self.zswap.as_mut().expect("zswap").zbud;
                let z = ZbudPage { frame, first_chunks: 0, last_chunks: 0, first_slot: NIL, last_slot: NIL, lru_prev: NIL, lru_next: NIL, buddy_prev: NIL, buddy_next: NIL, blist: BUDDIED };
                let i = match zb.free_ids.pop() {
                    Some(i) => {
                        zb.pages[i as usize] = z;
                        i
                    }
                    None => {
                        zb.pages.push(z);
                        zb.pages.len() as u32 - 1
                    }
                };
                zb.pages_nr += 1;
                zb.lru_add(i);
                (i, false)
            }
        };
        let zb = &mut self.zswap.as_mut().expect("zswap").zbud;
        let z = &mut zb.pages[i as usize];
        if last {
            z.last_chunks = chunks as u8;
            z.last_slot = slot;
        } else {
            z.first_chunks = chunks as u8;
            z.first_slot = slot;
        }
        zb.buddy_add(i);
        // "Add/move zbud page to beginning of LRU".
        zb.lru_del(i);
        zb.lru_add(i);
        Ok(i * 2 + last as u32)
    }

    /// `zs_malloc()` (mm/zsmalloc.c) of a `dlen`-byte compressed page: an object of its size
    /// class (the handle's room added), a new zspage of the class's chain of pages from the
    /// page allocator when its zspages are full (`alloc_zspage()`, zswap's `__GFP_NORETRY |
    /// __GFP_KSWAPD_RECLAIM`: no direct reclaim; failing, `reject_alloc_fail`). Returns the
    /// class index as the handle.
    fn zs_malloc(&mut self, dlen: u64) -> Result<u32, ()> {
        let idx = zs_size_class_index(dlen + ZS_HANDLE_SIZE);
        let (chain, per) = Zsmalloc::class(idx);
        let zs = &self.zswap.as_ref().expect("zswap").zs;
        if zs.objs[idx] + 1 > zs.frames[idx].len() as u64 / chain * per {
            let gfp = crate::page_alloc::Gfp { no_direct_reclaim: true, ..crate::page_alloc::Gfp::node(self.cur_nid) };
            for k in 0..chain {
                let Some(pfn) = self.alloc_pages(0, gfp) else {
                    // free_zspage() of the part allocated
                    for _ in 0..k {
                        let f = self.zswap.as_mut().expect("zswap").zs.frames[idx].pop().expect("a frame just added");
                        self.zswap.as_mut().expect("zswap").zs.pages_nr -= 1;
                        self.free_page(f);
                    }
                    self.zswap.as_mut().expect("zswap").stats.reject_alloc_fail += 1;
                    return Err(());
                };
                // post_alloc_hook(): the pool's page is zeroed under init_on_alloc.
                self.post_alloc_init(1);
                let frame = self.pages.init(pfn, crate::slab::SLAB_FRAME, 0);
                let zs = &mut self.zswap.as_mut().expect("zswap").zs;
                zs.frames[idx].push(frame);
                zs.pages_nr += 1;
            }
        }
        self.zswap.as_mut().expect("zswap").zs.objs[idx] += 1;
        Ok(idx as u32)
    }

    /// `zs_free()` of an object of class `idx`: a zspage left empty goes back to the page
    /// allocator (the class kept packed: see [`Zsmalloc`]).
    fn zs_free(&mut self, idx: u32) {
        let idx = idx as usize;
        let (chain, per) = Zsmalloc::class(idx);
        let zs = &mut self.zswap.as_mut().expect("zswap").zs;
        zs.objs[idx] -= 1;
        if zs.objs[idx].div_ceil(per) < zs.frames[idx].len() as u64 / chain {
            for _ in 0..chain {
                let zs = &mut self.zswap.as_mut().expect("zswap").zs;
                let f = zs.frames[idx].pop().expect("a zspage's frames");
                zs.pages_nr -= 1;
                self.free_page(f);
            }
        }
    }

    /// `zbud_free()` of `handle`: a page left empty goes back to the page allocator.
    fn zbud_free(&mut self, handle: u32) {
        let zs = self.zswap.as_mut().expect("zswap");
        let under_reclaim = zs.reclaiming == handle / 2;
        let zb = &mut zs.zbud;
        let i = handle / 2;
        let z = &mut zb.pages[i as usize];
        if handle % 2 == 1 {
            z.last_chunks = 0;
            z.last_slot = NIL;
        } else {
            z.first_chunks = 0;
            z.first_slot = NIL;
        }
        if under_reclaim {
            // "zbud page is under reclaim, reclaim will free".
            return;
        }
        zb.buddy_del(i);
        let z = zb.pages[i as usize];
        if z.first_chunks == 0 && z.last_chunks == 0 {
            // "zbud page is empty, free": list_del(&zhdr->lru), free_zbud_page().
            zb.lru_del(i);
            self.free_zbud_page(i);
        } else {
            zb.buddy_add(i);
        }
    }

    /// `free_zbud_page()`: pool page `i` (both buddies free, off the buddy lists and the
    /// LRU) leaves the pool.
    fn free_zbud_page(&mut self, i: u32) {
        let zb = &mut self.zswap.as_mut().expect("zswap").zbud;
        let frame = zb.pages[i as usize].frame;
        zb.free_ids.push(i);
        zb.pages_nr -= 1;
        self.free_page(frame);
    }

    /// `zswap_frontswap_invalidate_page()` (6.1; `zswap_invalidate()` 6.6+): the slot was
    /// freed (`swap_entry_free()`; from 6.9 also `free_swap_slot()` before the slots cache
    /// holds it, 0827a1fb143f); its entry goes, its pool memory and charge with it. `memcg`
    /// is the slot's (`entry->objcg`).
    pub fn zswap_invalidate(&mut self, slot: u32, memcg: MemcgId) {
        let Some(z) = self.zswap.as_mut() else { return };
        let Some(len) = z.entry_len(slot) else { return };
        let handle = z.handle[slot as usize];
        z.len[slot as usize] = NO_ENTRY;
        z.handle[slot as usize] = NIL;
        z.stats.stored_pages -= 1;
        if handle == SAME_FILLED {
            z.stats.same_filled_pages -= 1;
        } else if self.profile.zswap_direct {
            self.zs_free(handle);
        } else {
            self.zbud_free(handle);
        }
        // zswap_free_entry(): zswap_update_total_size(), a page under reclaim still counted.
        self.zswap.as_mut().expect("zswap").update_total_size();
        if self.memcgs.version == CgroupVersion::V2 && self.profile.zswap_memcg && memcg != MemcgId::NONE {
            self.obj_cgroup_uncharge_zswap(memcg, len);
        }
    }

    /// `zswap_frontswap_load()` (6.1) for the swap-cache page just added at slot `slot`:
    /// with an entry, the page is filled from it (decompressed, or the same-filled word
    /// written) without I/O, `zswpin` counted, and the entry stays (loads are not exclusive
    /// before 6.5). Returns whether it did.
    pub fn zswap_load(&mut self, slot: u32, p: PageId) -> bool {
        let Some(z) = self.zswap.as_mut() else { return false };
        let Some(len) = z.entry_len(slot) else { return false };
        if self.profile.zswap_memcg {
            z.stats.zswpin += 1;
        }
        self.cpu(if len > 0 { self.cost.zswap_decompress } else { self.cost.clear_page });
        let memcg = self.swap.as_ref().map_or(MemcgId::NONE, |a| a.slot_memcg(slot));
        if self.memcgs.version == CgroupVersion::V2 && self.profile.zswap_memcg && memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].zswpin += 1;
        }
        if p.idx() < self.wb_done.len() {
            // Up to date at once: the fault does not wait for a read.
            self.wb_done[p.idx()] = self.now;
        }
        if self.profile.zswap_direct {
            // zswap_load() (6.18): "We are reading into the swapcache, invalidate zswap
            // entry": folio_mark_dirty(), the entry freed; reclaim stores the page again.
            self.pages[p].flags |= pg::DIRTY;
            self.zswap_invalidate(slot, memcg);
        }
        true
    }

    /// The queued `shrink_worker()`, from the fault path of the task whose store queued it.
    /// 6.8+ (`zswap_direct`): run now, in the faulting task's time. 6.1: the run due by now,
    /// if any ([`Kernel::zswap_shrink_worker_due`]).
    pub fn zswap_shrink_worker(&mut self) {
        let Some(z) = self.zswap.as_mut() else { return };
        if !z.shrink_pending() {
            return;
        }
        if self.profile.zswap_direct {
            z.shrink_queued = false;
            self.zswap_shrink_worker_lru();
            return;
        }
        self.zswap_shrink_worker_due();
    }

    /// `queue_work(shrink_wq, &pool->shrink_work)` (6.1, from a store that found the pool
    /// full): `shrink_wq` is `create_workqueue("zswap-shrink")`, a bound workqueue (not
    /// `WQ_UNBOUND`: `__queue_work()` takes `raw_smp_processor_id()`'s pool), so a kworker of
    /// the storing task's CPU runs the work, preempting the task (a woken kworker's vruntime is
    /// placed behind it: `check_preempt_wakeup()`), whose stores go on meanwhile on the idle
    /// CPU that pulls it: the engine runs the worker on its own clock from the queueing store's
    /// time, beside the task ([`Kernel::zswap_shrink_worker_due`]). An idle worker (no run under
    /// way, its clock not ahead) is woken (`wake_up_worker()`) and starts after the machine's
    /// kworker wake-up latency ([`Kernel::kworker_wakeup_delay`], 0 without samples; wake11), the
    /// task storing on meanwhile. Queued while a run is under way (its `WORK_STRUCT_PENDING` was
    /// cleared when it started), the work runs again where that run ends, the worker awake; a
    /// work already queued stays queued once.
    pub(crate) fn zswap_queue_shrink_work(&mut self) {
        let now = self.now;
        let z = self.zswap.as_ref().expect("zswap");
        if !z.shrink_queued {
            let idle = z.worker_run.is_none() && z.worker_clock <= now;
            let delay = if idle { self.kworker_wakeup_delay() } else { 0 };
            let z = self.zswap.as_mut().expect("zswap");
            z.shrink_queued = true;
            z.shrink_queued_at = now + delay;
        }
        self.zswap_shrink_worker_due();
    }

    /// Catch 6.1's shrink worker up with the running context's clock: the worker is a kworker
    /// with its own clock ([`Zswap::worker_clock`]), which runs a queued work from
    /// `max(queued, end of its last run)`, one `zswap_writeback_entry()` a step, each step
    /// taken once its start is not after the running context's clock, in kernel-thread time
    /// (not the task's CPU time, waits or stalls; its writes in its own plug). So what the task
    /// did meanwhile (its reclaim's frees and uncharges, its charges, its stores that met the
    /// full pool) is done when the step runs, and the pool page a run frees is gone for the
    /// stores after the step that frees it. Not run inside itself (a store of the worker's own
    /// charge reclaim queues the next run) nor inside kswapd (the next store or fault of a
    /// task catches it up).
    pub fn zswap_shrink_worker_due(&mut self) {
        if self.in_zswap_worker || self.in_kswapd {
            return;
        }
        loop {
            let Some(z) = self.zswap.as_mut() else { return };
            if z.worker_run.is_none() {
                let start = z.shrink_queued_at.max(z.worker_clock);
                if !z.shrink_queued || start > self.now {
                    return;
                }
                // process_one_work() clears PENDING before shrink_worker() runs.
                z.shrink_queued = false;
                z.worker_clock = start;
                z.worker_run = Some(ZbudRun { slots: [NIL; 2], next: 2, ok: true, retries_left: ZBUD_RECLAIM_RETRIES });
                if !self.zbud_reclaim_next_page() {
                    continue;
                }
            }
            let z = self.zswap.as_ref().expect("zswap");
            if z.worker_clock > self.now {
                return;
            }
            self.zbud_reclaim_step();
        }
    }

    /// One step of the run under way at the worker's clock: the next buddy's eviction
    /// (`pool->ops->evict()` = `zswap_writeback_entry()`), or the end of the page's reclaim.
    fn zbud_reclaim_step(&mut self) {
        self.in_zswap_worker = true;
        self.cpu_plain_update();
        self.swap_plug_switch();
        let (now, sys, iowait) = (self.now, self.sys_ns, self.iowait_ns);
        let z = self.zswap.as_mut().expect("zswap");
        let start = z.worker_clock;
        self.now = start;
        let i = z.reclaiming;
        let run = z.worker_run.as_mut().expect("a run under way");
        if run.next < 2 {
            let slot = run.slots[run.next];
            run.next += 1;
            let run_ok = run.ok;
            // "if (ret) goto next": a failed eviction skips the other buddy. A buddy freed
            // since the reclaim read its handle (loaded, invalidated) is gone from the tree:
            // zswap_writeback_entry() finds no entry and returns 0.
            let live = slot != NIL && z.entry_len(slot).is_some() && z.handle[slot as usize] / 2 == i;
            if run_ok && live {
                let ok = self.zswap_writeback_entry(slot);
                self.zswap.as_mut().expect("zswap").worker_run.as_mut().expect("a run under way").ok = ok;
            }
        } else {
            // "next:": under_reclaim cleared; a page whose buddies both went is freed and the
            // run ends (zpool_shrink() returns 0), else it goes back on a buddy list and "to
            // beginning of LRU", ahead of the pages stored during its reclaim.
            let pg = z.zbud.pages[i as usize];
            z.reclaiming = NIL;
            if pg.first_chunks == 0 && pg.last_chunks == 0 {
                z.worker_run = None;
                self.free_zbud_page(i);
            } else {
                z.zbud.buddy_add(i);
                z.zbud.lru_add(i);
                self.zbud_reclaim_next_page();
            }
        }
        let end = self.now.max(start);
        self.zswap.as_mut().expect("zswap").worker_clock = end;
        (self.now, self.sys_ns, self.iowait_ns) = (now, sys, iowait);
        self.swap_plug_switch();
        self.in_zswap_worker = false;
        self.cpu_plain_update();
    }

    /// `zbud_reclaim_page()`'s next try: the pool's LRU tail goes under reclaim (off the buddy
    /// lists and off the LRU until its `next:`) with the buddies it holds; retries spent or the LRU empty, the
    /// run ends in failure (`zpool_shrink()` nonzero: `reject_reclaim_fail`). Returns whether
    /// a page is under reclaim.
    fn zbud_reclaim_next_page(&mut self) -> bool {
        let z = self.zswap.as_mut().expect("zswap");
        let run = z.worker_run.as_mut().expect("a run under way");
        let i = z.zbud.lru_tail;
        if i == NIL || run.retries_left == 0 {
            z.worker_run = None;
            z.stats.reject_reclaim_fail += 1;
            return false;
        }
        run.retries_left -= 1;
        let pg = z.zbud.pages[i as usize];
        *run = ZbudRun { slots: [if pg.first_chunks != 0 { pg.first_slot } else { NIL }, if pg.last_chunks != 0 { pg.last_slot } else { NIL }], next: 0, ok: true, retries_left: run.retries_left };
        z.zbud.lru_del(i);
        z.zbud.buddy_del(i);
        z.reclaiming = i;
        true
    }

    /// `shrink_worker()` (6.8+, 6.18): down to `zswap_accept_thr_pages()`, entries from the
    /// head of zswap's LRU (`shrink_memcg()` -> `list_lru_walk_one()` -> `shrink_memcg_cb()`):
    /// a referenced one loses the bit and rotates to the tail ("second chance"), another is
    /// written back (`zswap_writeback_entry()`); a failed writeback rotates it too. It gives
    /// up after `MAX_RECLAIM_RETRIES` walks of `SWAP_CLUSTER_MAX` entries that wrote nothing
    /// back (`reject_reclaim_fail` is not counted on this era). One LRU for the machine: the
    /// round-robin over memcgs and nodes is not modelled. The entries of a memcg with
    /// memory.zswap.writeback 0 are passed over uncounted (6.8+: `shrink_memcg()` returns
    /// -ENOENT for it before walking its LRU, and from 6.11 `shrink_worker()` counts no
    /// failure for -ENOENT).
    fn zswap_shrink_worker_lru(&mut self) {
        let totalram = self.managed_pages();
        let thr = {
            let z = self.zswap.as_ref().expect("zswap");
            totalram * z.params.max_pool_percent / 100 * z.params.accept_threshold_percent / 100
        };
        let mut failures = 0;
        while self.zswap.as_ref().expect("zswap").pool_pages() > thr && failures < crate::page_alloc::MAX_RECLAIM_RETRIES {
            let mut shrunk = 0;
            let mut scanned = 0;
            let mut skipped = 0;
            while scanned < crate::vmscan::SWAP_CLUSTER_MAX {
                let z = self.zswap.as_mut().expect("zswap");
                let Some(slot) = z.lru.pop_front() else { break };
                if z.entry_len(slot).is_none_or(|l| l == 0) {
                    continue; // stale: the entry went (loaded, invalidated)
                }
                let m = self.swap.as_ref().map_or(MemcgId::NONE, |a| a.slot_memcg(slot));
                if !self.mem_cgroup_zswap_writeback_enabled(m) {
                    let z = self.zswap.as_mut().expect("zswap");
                    z.lru.push_back(slot);
                    skipped += 1;
                    if skipped > z.lru.len() {
                        break; // every entry left is a writeback-disabled memcg's
                    }
                    continue;
                }
                let z = self.zswap.as_mut().expect("zswap");
                scanned += 1;
                if std::mem::replace(&mut z.referenced[slot as usize], false) {
                    z.lru.push_back(slot);
                    continue;
                }
                if self.zswap_writeback_entry(slot) {
                    shrunk += 1;
                } else {
                    self.zswap.as_mut().expect("zswap").lru.push_back(slot);
                }
            }
            if scanned == 0 {
                break;
            }
            if shrunk == 0 {
                failures += 1;
            }
        }
    }

    /// `shrink_memcg()` (mm/zswap.c, 6.12) from `zswap_store()` at memory.zswap.max: -ENOENT
    /// (false) when `memcg` has writeback disabled, is offline or has no entry; else one step
    /// of `list_lru_walk_one()` over its part of zswap's LRU (`nr_to_walk` = 1, one node)
    /// with `shrink_memcg_cb()`: the head entry, when referenced, loses the bit and rotates to
    /// the tail (`LRU_ROTATE`: nothing shrunk, -EAGAIN, false); else it moves to the tail and
    /// is written back (`zswap_writeback_entry()`; a failure counts `reject_reclaim_fail`,
    /// false). Returns whether an entry was written back. The writeback's swap-cache page is
    /// charged by force: the store runs in reclaim (`PF_MEMALLOC`: `try_charge_memcg()`'s
    /// "goto force").
    pub fn shrink_memcg(&mut self, memcg: MemcgId) -> bool {
        if !self.mem_cgroup_zswap_writeback_enabled(memcg) || self.memcgs.get(memcg).state != crate::memcontrol::MemcgState::Online {
            return false;
        }
        let slot = loop {
            let z = self.zswap.as_mut().expect("zswap");
            let Some(slot) = z.memcg_lru.get_mut(memcg.idx()).and_then(|l| l.pop_front()) else { return false };
            if z.entry_len(slot).is_some() && self.swap.as_ref().is_some_and(|a| a.slot_in_use(slot) && a.slot_memcg(slot) == memcg) {
                break slot;
            }
        };
        let z = self.zswap.as_mut().expect("zswap");
        z.memcg_lru[memcg.idx()].push_back(slot);
        if std::mem::replace(&mut z.referenced[slot as usize], false) {
            return false;
        }
        let outer = std::mem::replace(&mut self.pf_memalloc, true);
        let ok = self.zswap_writeback_entry(slot);
        self.pf_memalloc = outer;
        if !ok {
            self.zswap.as_mut().expect("zswap").stats.reject_reclaim_fail += 1;
        }
        ok
    }

    /// `zswap_writeback_entry()` of slot `slot`: a new swap-cache page for it
    /// (`zswap_get_swap_cache_page()` -> `__read_swap_cache_async()`, charged to the slot's
    /// memcg; a slot already cached fails with -EEXIST), decompressed into, marked
    /// `PG_reclaim` and written (`__swap_writepage()`); the entry is freed
    /// (`written_back_pages`).
    fn zswap_writeback_entry(&mut self, slot: u32) -> bool {
        let area = self.swap.as_ref().expect("zswap entries imply a swap area");
        if area.cache_get(slot) != PageId::NIL {
            return false;
        }
        let memcg = area.slot_memcg(slot);
        let nid = self.cur_nid;
        if !self.read_swap_cache_async(slot, false, nid, memcg) {
            return false;
        }
        let p = self.swap.as_ref().expect("swap area").cache_get(slot);
        let len = self.zswap.as_ref().and_then(|z| z.entry_len(slot)).unwrap_or(0);
        self.cpu(if len > 0 { self.cost.zswap_decompress } else { self.cost.clear_page });
        self.swap_submit_write(p, slot, 1);
        self.zswap.as_mut().expect("zswap").stats.written_back_pages += 1;
        let m = self.swap.as_ref().expect("swap area").slot_memcg(slot);
        self.zswap_invalidate(slot, m);
        debug_assert!(self.pages[p].test(pg::SWAPCACHE));
        true
    }
}

