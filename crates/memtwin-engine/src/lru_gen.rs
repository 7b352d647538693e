//! The multi-generational LRU (mm/vmscan.c's `CONFIG_LRU_GEN` part, include/linux/mm_inline.h,
//! mm/workingset.c's `lru_gen_eviction()`/`lru_gen_refault()`, mm/swap.c's
//! `folio_inc_refs()`), as Linux 6.1 has it.
//!
//! It sits beside the two-list code of vmscan.rs, not in place of it: every lruvec carries
//! both the two-list lists and the generation lists (`lrugen->folios[gen][type]`), and the
//! profile switch `KernelProfile::lru_gen` (`/sys/kernel/mm/lru_gen/enabled`) decides which
//! one a lruvec uses. `Lruvec::add()`/`add_tail()`/`del()` (mmzone.rs) dispatch to
//! [`lru_gen_add_folio`] when it is on, so every caller that puts a page on an LRU (page cache
//! adds, anonymous faults, memcg moves, fadvise, writeback rotation) places it in a
//! generation as the kernel does; `shrink_lruvec()` (vmscan.rs) hands reclaim to
//! [`Kernel::lru_gen_shrink_lruvec`]; `folio_mark_accessed()` (swap.rs) to
//! [`Kernel::folio_inc_refs`]; `workingset_eviction()`/`workingset_refault()` (workingset.rs)
//! to [`Kernel::lru_gen_eviction`]/[`Kernel::lru_gen_refault`].
//!
//! Generations: `max_seq` (youngest, shared by both types) and `min_seq[type]` (oldest, per
//! type) bound a window of `MIN_NR_GENS`..`MAX_NR_GENS` sequence numbers; a page's generation
//! is `seq % MAX_NR_GENS`. Aging (`inc_max_seq()`) opens a new youngest generation; eviction
//! takes pages from the oldest generation's tail (`scan_folios()`), sorting out those that
//! were promoted, are protected by their tier, or wait for writeback (`sort_folio()`).
//! Tiers: a page read N times through a file descriptor is in tier `order_base_2(N)`
//! (`lru_tier_from_refs()`), and the PID controller (`get_tier_idx()`, `read_ctrl_pos()`)
//! protects the tiers whose refault rate exceeds the first tier's.
//!
//! Mapped pages: pages a file fault brings in start in the youngest generation
//! (`lru_gen_in_fault()`); the aging's page-table walk ([`Kernel::lru_gen_walk_mms`], over the
//! mms of the memcg's tasks, with `force_scan`, `should_skip_mm()` and the Bloom filters of
//! PMDs) moves pages whose PTE is young to the generation being closed; eviction meeting a
//! mapped page asks rmap (`folio_check_references()`), and a young PTE starts the look-around
//! ([`Kernel::lru_gen_look_around`]).
//!
//! The walk covers anonymous VMAs too when anonymous pages can be swapped (their accessed bits
//! are `Vma::young`). What the engine does not model, and why: virtual addresses (each VMA is
//! taken to start on a PMD boundary); the PTE dirty bit the walk carries to a folio.
//! Zones are not split (one list per generation and type). `CONFIG_LRU_GEN_STATS` is off, as
//! in Debian's build (`NR_HIST_GENS` = 1). `min_ttl_ms` gates kswapd's aging
//! (`age_lruvec()`), and when no memcg passes, kswapd invokes the OOM killer
//! (`out_of_memory()`, oom_kill.rs), whose victim the scheduler kills.
//!
//! The memcg LRU for global reclaim (6.3+, `KernelProfile::lru_gen_memcg_lru`; before it,
//! and for memcg reclaim always, the memcgs are walked as the two-list code walks them): each
//! node keeps its memcgs in two generations (old = `seq`, young = `seq + 1`, modulo
//! `MEMCG_NR_GENS`) of `MEMCG_NR_BINS` bins ([`LruGenMemcg`]); global reclaim
//! ([`Kernel::lru_gen_shrink_node`] -> `shrink_many()`) walks the old generation's bins from a
//! random one, shrinking each memcg (`shrink_one()`) and rotating it by the outcome
//! ([`Kernel::lru_gen_rotate_memcg`]: young when its eviction had to age it, tail on a first
//! look below memory.low or too small); the old generation's seq moves on when its last memcg
//! leaves it. The per-lruvec eviction ages in the eviction path and stops the lruvec there
//! (6.3 `get_nr_to_scan()`, `try_to_shrink_lruvec()`), and kswapd no longer ages first. The
//! memcg LRU is as 6.7 has it (`shrink_one()` with "mm/mglru: reclaim offlined memcgs
//! harder"); the v1 soft limit's `lru_gen_soft_reclaim()` is not modelled (no soft limits).

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::{pg, Page};
use crate::mmzone::{LruList, Lruvec, NR_LRU_LISTS};
use crate::types::{MemcgId, Nanos, PageId};
use crate::memory::VmaId;
use crate::page_alloc::PAGEBLOCK_NR;
use crate::vmscan::{FolioRef, ScanControl, DEF_PRIORITY};
use crate::vmstat::VmEvent;

/// `MIN_NR_GENS` (include/linux/mmzone.h, 6.1): the eviction stalls at two generations.
pub const MIN_NR_GENS: u64 = 2;
/// `MAX_NR_GENS` (6.1): at most four generations.
pub const MAX_NR_GENS: u64 = 4;
/// `MAX_NR_TIERS` (6.1).
pub const MAX_NR_TIERS: usize = 4;
/// `LRU_REFS_WIDTH` on x86_64 (`MAX_NR_TIERS - 2`, include/linux/page-flags-layout.h).
pub const LRU_REFS_WIDTH: u32 = 2;
/// `PAGEVEC_SIZE` (include/linux/pagevec.h, 6.1).
pub const PAGEVEC_SIZE: usize = 15;
/// `MIN_LRU_BATCH` = `BITS_PER_LONG`.
pub const MIN_LRU_BATCH: u64 = 64;
/// `MAX_LRU_BATCH` = `MIN_LRU_BATCH * 64`.
pub const MAX_LRU_BATCH: u64 = MIN_LRU_BATCH * 64;
/// `MEMCG_NR_GENS` (include/linux/mmzone.h, 6.3+): "only two valid generations: old (seq)
/// and young (seq+1)"; three so that a stale seq read locklessly does not wrap to young.
pub const MEMCG_NR_GENS: u64 = 3;
/// `MEMCG_NR_BINS` (6.3+): memcgs of a generation randomly sharded into 8 bins.
pub const MEMCG_NR_BINS: usize = 8;
/// No lruvec (the end of a memcg LRU bin).
pub const NIL_LRUVEC: u32 = u32::MAX;
/// The start of the engine's stand-in for `get_random_u32_below()` (any non-zero value: the
/// kernel's bins are random, the engine's must be reproducible).
pub const MEMCG_LRU_RAND_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// The state of the engine's `get_random_u32_below()` for boot `boot_seed`
/// (`kernel.boot_seed`): [`MEMCG_LRU_RAND_SEED`] for 0, for any other a state of its own
/// (`boot_seed` through splitmix64's finaliser, never 0, which xorshift64 cannot leave). A
/// real kernel seeds its random numbers afresh at every boot, so each value is one boot.
pub fn memcg_lru_rand_seed(boot_seed: u64) -> u64 {
    if boot_seed == 0 {
        return MEMCG_LRU_RAND_SEED;
    }
    let mut z = boot_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    if z == 0 { MEMCG_LRU_RAND_SEED } else { z }
}

/// The operations on the memcg LRU (6.3+ `enum { MEMCG_LRU_NOP, MEMCG_LRU_HEAD,
/// MEMCG_LRU_TAIL, MEMCG_LRU_OLD, MEMCG_LRU_YOUNG }`, mm/vmscan.c); `Head`/`Tail` are also the
/// segment values of `lrugen->seg` (0 is the default segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcgLruOp {
    /// `MEMCG_LRU_NOP`: stay.
    Nop = 0,
    /// `MEMCG_LRU_HEAD`: to the head of a random bin of its generation, segment head.
    Head = 1,
    /// `MEMCG_LRU_TAIL`: to the tail of a random bin of its generation, segment tail.
    Tail = 2,
    /// `MEMCG_LRU_OLD`: to the head of a random bin of the old generation.
    Old = 3,
    /// `MEMCG_LRU_YOUNG`: to the tail of a random bin of the young generation.
    Young = 4,
}

/// `struct lru_gen_memcg` (include/linux/mmzone.h, 6.3+), `pgdat->memcg_lru`: the node's
/// memcg generation counter, the memcgs per generation, and per generation and bin a list of
/// lruvecs (head, tail; `NIL_LRUVEC` when empty).
#[derive(Clone, Debug)]
pub struct LruGenMemcg {
    /// `seq`: its remainder modulo `MEMCG_NR_GENS` is the old generation.
    pub seq: u64,
    /// `nr_memcgs[MEMCG_NR_GENS]`.
    pub nr_memcgs: [u64; MEMCG_NR_GENS as usize],
    /// `fifo[MEMCG_NR_GENS][MEMCG_NR_BINS]`: (head, tail) lruvec indices.
    pub fifo: [[(u32, u32); MEMCG_NR_BINS]; MEMCG_NR_GENS as usize],
}

impl Default for LruGenMemcg {
    fn default() -> Self {
        LruGenMemcg { seq: 0, nr_memcgs: [0; MEMCG_NR_GENS as usize], fifo: [[(NIL_LRUVEC, NIL_LRUVEC); MEMCG_NR_BINS]; MEMCG_NR_GENS as usize] }
    }
}

/// Where kswapd's pass of the memcg LRU (6.3+ `lru_gen_shrink_node()` → `shrink_many()`)
/// stopped when its clock reached the shared clock (`Kernel::kswapd_until`): the engine runs
/// kswapd lazily, whenever another context looks at memory, up to that context's clock, so a
/// pass of about the zones' high watermarks (`kswapd_shrink_node()`'s goal, 1,000 pages and
/// more) would otherwise free all its pages at the clock it started at. The kernel's kswapd
/// frees them batch by batch (`evict_folios()` → `shrink_folio_list()`) on its own CPU while
/// the others run; stopped after a batch, the pass goes on from here
/// (`Kernel::lru_gen_kswapd_resume`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KswapdPass {
    /// Pages the pass has reclaimed (`sc->nr_reclaimed` against its goal).
    pub nr_reclaimed: u64,
    /// Pages the pass has scanned (`sc->nr_scanned`, which `kswapd_shrink_node()` holds
    /// against its goal when the round ends: `Kernel::kswapd_round_end`).
    pub nr_scanned: u64,
    /// `sc->priority` of the pass (`set_initial_priority()`'s, or lower).
    pub priority: u32,
    /// The memcg generation and bins of the walk: `gen`, the random `first_bin` and the
    /// current `bin`.
    pub gen: u8,
    /// See `gen`.
    pub first_bin: u8,
    /// See `gen`.
    pub bin: u8,
    /// The lruvec to go on with (its index).
    pub lruvec: u32,
    /// Pages `try_to_shrink_lruvec()` had scanned in it (0: it was not begun).
    pub scanned: u64,
}

impl KswapdPass {
    fn at(sc: &ScanControl, gen: usize, first_bin: usize, bin: usize, lruvec: u32, scanned: u64) -> KswapdPass {
        KswapdPass { nr_reclaimed: sc.nr_reclaimed, nr_scanned: sc.nr_scanned, priority: sc.priority, gen: gen as u8, first_bin: first_bin as u8, bin: bin as u8, lruvec, scanned }
    }
}

/// `get_memcg_gen()` (6.3+).
#[inline]
pub fn get_memcg_gen(seq: u64) -> usize {
    (seq % MEMCG_NR_GENS) as usize
}

/// `LRU_GEN_ANON`.
pub const LRU_GEN_ANON: usize = 0;
/// `LRU_GEN_FILE`.
pub const LRU_GEN_FILE: usize = 1;
/// Generation lists of a lruvec: `MAX_NR_GENS x ANON_AND_FILE`.
pub const NR_GEN_LISTS: usize = MAX_NR_GENS as usize * 2;

/// The lruvec list number of generation `gen`, type `ty`.
#[inline(always)]
pub fn gen_list(gen: usize, ty: usize) -> usize {
    NR_LRU_LISTS + gen * 2 + ty
}

/// The generation of list number `list` (a generation list).
#[inline(always)]
pub fn list_gen(list: usize) -> usize {
    (list - NR_LRU_LISTS) / 2
}

/// The type (`LRU_GEN_ANON`/`LRU_GEN_FILE`) of list number `list` (a generation list).
#[inline(always)]
pub fn list_type(list: usize) -> usize {
    (list - NR_LRU_LISTS) % 2
}

/// `lru_gen_from_seq()`.
#[inline(always)]
pub fn lru_gen_from_seq(seq: u64) -> usize {
    (seq % MAX_NR_GENS) as usize
}

/// `lru_tier_from_refs()` (include/linux/mm_inline.h, 6.1): `order_base_2(refs + 1)`.
#[inline(always)]
pub fn lru_tier_from_refs(refs: u32) -> usize {
    debug_assert!(refs <= 1 << LRU_REFS_WIDTH);
    let n = refs + 1;
    (32 - (n - 1).leading_zeros()) as usize
}

/// `folio_lru_refs()`: the `LRU_REFS` bits plus `PG_workingset`.
#[inline(always)]
pub fn folio_lru_refs(p: &Page) -> u32 {
    p.refs() as u32 + p.test(pg::WORKINGSET) as u32
}

/// `folio_is_file_lru()`: the generation type of a page.
#[inline(always)]
fn page_type(p: &Page) -> usize {
    if p.test(pg::SWAPBACKED) {
        LRU_GEN_ANON
    } else {
        LRU_GEN_FILE
    }
}

/// `lruvec->mm_state.tail` (6.1), as a position on the memcg's mm list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MmTail {
    /// `NULL`: no iteration yet; the next one force-scans from its first mm.
    #[default]
    Null,
    /// The first mm added since the last iteration (index on the list).
    At(u32),
    /// `&mm_list->fifo`: nothing added since.
    End,
}

/// `BLOOM_FILTER_SHIFT` (6.1): 2^15 bits per filter.
pub const BLOOM_FILTER_SHIFT: u32 = 15;

/// `mm->lru_gen` of a task's address space (6.1): the memcg whose mm list holds it, its VMAs
/// in the order they were mapped (the engine has no addresses: mapping order stands for
/// address order), and `bitmap` (one bit per node, set when the task runs, `lru_gen_use_mm()`,
/// cleared by the walker of that node).
#[derive(Clone, Debug)]
pub struct LruGenMm {
    /// The memcg of the task (`mm->lru_gen.memcg`).
    pub memcg: MemcgId,
    /// The task's live mappings.
    pub vmas: Vec<VmaId>,
    /// `mm->lru_gen.bitmap`.
    pub bitmap: u64,
    /// On its memcg's mm list.
    pub listed: bool,
}

impl Default for LruGenMm {
    fn default() -> Self {
        LruGenMm { memcg: MemcgId::ROOT, vmas: vec![], bitmap: 0, listed: false }
    }
}

/// `get_item_key()` (6.1): two 15-bit keys from a 30-bit hash of the PMD - here of (VMA,
/// PMD index), hashed with the golden-ratio multiplier of `hash_64()`.
#[inline]
pub fn bloom_keys(vma: VmaId, pmd: u32) -> [usize; 2] {
    let h = ((((vma.0 as u64) << 32) | pmd as u64).wrapping_mul(0x61C8_8646_80B5_83EB) >> (64 - 2 * BLOOM_FILTER_SHIFT)) as usize;
    [h & ((1 << BLOOM_FILTER_SHIFT) - 1), h >> BLOOM_FILTER_SHIFT]
}

/// `suitable_to_scan()` (6.1): at least one young PTE per cache line on average (64-byte
/// lines, 8-byte PTEs: `n` = 8).
#[inline]
pub fn suitable_to_scan(total: u32, young: u32) -> bool {
    young * 8 >= total
}

/// `struct lru_gen_struct` (include/linux/mmzone.h, 6.1) with `NR_HIST_GENS` = 1.
#[derive(Clone, Debug, Default)]
pub struct LruGenStruct {
    /// `lrugen->enabled`.
    pub enabled: bool,
    /// `max_seq`: the youngest generation.
    pub max_seq: u64,
    /// `min_seq[type]`: the oldest generation of each type.
    pub min_seq: [u64; 2],
    /// `timestamps[gen]`: when each generation was opened.
    pub timestamps: [Nanos; MAX_NR_GENS as usize],
    /// `avg_refaulted[type][tier]`: the I term's refaults.
    pub avg_refaulted: [[u64; MAX_NR_TIERS]; 2],
    /// `avg_total[type][tier]`: the I term's evictions plus protections.
    pub avg_total: [[u64; MAX_NR_TIERS]; 2],
    /// `refaulted[0][type][tier]`: refaults from the generation being evicted.
    pub refaulted: [[u64; MAX_NR_TIERS]; 2],
    /// `evicted[0][type][tier]`.
    pub evicted: [[u64; MAX_NR_TIERS]; 2],
    /// `protected[0][type][tier - 1]`: pages `sort_folio()` kept for their tier.
    pub protected: [[u64; MAX_NR_TIERS - 1]; 2],
    /// `lruvec->mm_state.seq`: the last generation the (non-)walk finished.
    pub mm_seq: u64,
    /// `lruvec->mm_state.tail`: where on the memcg's mm list the mms added since the last
    /// iteration start (they are walked with `force_scan`).
    pub mm_tail: MmTail,
    /// `lruvec->mm_state.filters[NR_BLOOM_FILTERS]`: the Bloom filters of PMDs worth walking
    /// (`BLOOM_FILTER_SHIFT` = 15 bits each), allocated by the first walk that needs one.
    pub filters: [Option<Box<[u64]>>; 2],
    /// Times kswapd found this lruvec's oldest generation younger than `min_ttl_ms`
    /// (`age_lruvec()` returning false).
    pub min_ttl_skips: u64,
    /// `lrugen->gen` (6.3+): the memcg generation (`seq % MEMCG_NR_GENS`) of the node's memcg
    /// LRU this lruvec is in.
    pub memcg_gen: u8,
    /// `lrugen->seg` (6.3+): `MemcgLruSeg` head, tail or default (0).
    pub memcg_seg: u8,
    /// The bin of `memcg_lru.fifo[gen]` this lruvec is in (the kernel finds it through the
    /// list's nulls value; the engine keeps it to unlink in O(1)).
    pub memcg_bin: u8,
    /// On a memcg LRU list (`!hlist_nulls_unhashed(&lrugen->list)`).
    pub memcg_listed: bool,
    /// `lrugen->list`: the previous and next lruvec (indices) in the bin, `NIL_LRUVEC` at the
    /// ends.
    pub memcg_prev: u32,
    /// See `memcg_prev`.
    pub memcg_next: u32,
    /// Times `lru_gen_age_node()` invoked the OOM killer because no memcg was older than
    /// `min_ttl_ms` (counted on the root's lruvec; a call while an earlier victim has not
    /// exited yet kills nobody).
    pub min_ttl_ooms: u64,
}

impl LruGenStruct {
    /// `lru_gen_init_lruvec()` (6.1): `max_seq = MIN_NR_GENS + 1`, `min_seq = 0`, every
    /// timestamp now, `mm_state.seq = MIN_NR_GENS`.
    pub fn init(&mut self, now: Nanos) {
        *self = LruGenStruct { enabled: true, max_seq: MIN_NR_GENS + 1, mm_seq: MIN_NR_GENS, timestamps: [now; 4], ..Default::default() };
    }

    /// `get_nr_gens()`.
    #[inline]
    pub fn nr_gens(&self, ty: usize) -> u64 {
        self.max_seq - self.min_seq[ty] + 1
    }

    /// `read_ctrl_pos()` (mm/vmscan.c, 6.1): the PID controller's position for `tier` of
    /// `ty`: refaulted and total (evicted, plus protected for tiers above 0) of the
    /// generation being evicted plus the moving averages of earlier ones.
    pub fn read_ctrl_pos(&self, ty: usize, tier: usize, gain: u64) -> CtrlPos {
        let mut total = self.avg_total[ty][tier] + self.evicted[ty][tier];
        if tier > 0 {
            total += self.protected[ty][tier - 1];
        }
        CtrlPos { refaulted: self.avg_refaulted[ty][tier] + self.refaulted[ty][tier], total, gain }
    }

    /// `reset_ctrl_pos()` (6.1) with `NR_HIST_GENS` = 1: on `carryover` (the oldest
    /// generation was retired), halve the sums into the moving averages (smoothing factor
    /// 1/2) and clear the current counters; otherwise (`inc_max_seq()`) nothing to do.
    pub fn reset_ctrl_pos(&mut self, ty: usize, carryover: bool) {
        if !carryover {
            return;
        }
        for tier in 0..MAX_NR_TIERS {
            self.avg_refaulted[ty][tier] = (self.avg_refaulted[ty][tier] + self.refaulted[ty][tier]) / 2;
            let mut sum = self.avg_total[ty][tier] + self.evicted[ty][tier];
            if tier > 0 {
                sum += self.protected[ty][tier - 1];
            }
            self.avg_total[ty][tier] = sum / 2;
            self.refaulted[ty][tier] = 0;
            self.evicted[ty][tier] = 0;
            if tier > 0 {
                self.protected[ty][tier - 1] = 0;
            }
        }
    }

    /// `get_tier_idx()` (6.1): the highest tier of `ty` not to protect: compare each tier
    /// above 0 (gain 2) with the first tier (gain 1), stopping at the first whose refault
    /// rate is higher.
    pub fn get_tier_idx(&self, ty: usize) -> usize {
        let sp = self.read_ctrl_pos(ty, 0, 1);
        let mut tier = 1;
        while tier < MAX_NR_TIERS {
            let pv = self.read_ctrl_pos(ty, tier, 2);
            if !positive_ctrl_err(&sp, &pv) {
                break;
            }
            tier += 1;
        }
        tier - 1
    }

    /// `get_type_to_scan()` (6.1): anon or file by their first tiers' refault rates weighted
    /// by swappiness (gains `swappiness` and `200 - swappiness`), and the last tier of the
    /// chosen type to evict.
    pub fn get_type_to_scan(&self, swappiness: u64) -> (usize, usize) {
        let gain = [swappiness, 200 - swappiness];
        let sp = self.read_ctrl_pos(LRU_GEN_ANON, 0, gain[LRU_GEN_ANON]);
        let pv = self.read_ctrl_pos(LRU_GEN_FILE, 0, gain[LRU_GEN_FILE]);
        let ty = positive_ctrl_err(&sp, &pv) as usize;
        let sp = self.read_ctrl_pos(1 - ty, 0, gain[1 - ty]);
        let mut tier = 1;
        while tier < MAX_NR_TIERS {
            let pv = self.read_ctrl_pos(ty, tier, gain[ty]);
            if !positive_ctrl_err(&sp, &pv) {
                break;
            }
            tier += 1;
        }
        (ty, tier - 1)
    }
}

/// `struct ctrl_pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtrlPos {
    /// Refaults.
    pub refaulted: u64,
    /// Evictions plus protections.
    pub total: u64,
    /// Gain.
    pub gain: u64,
}

/// `positive_ctrl_err()` (6.1): the process variable has few refaults (fewer than
/// `MIN_LRU_BATCH`) or a refault rate not above the setpoint's.
pub fn positive_ctrl_err(sp: &CtrlPos, pv: &CtrlPos) -> bool {
    pv.refaulted < MIN_LRU_BATCH
        || pv.refaulted as u128 * (sp.total + MIN_LRU_BATCH) as u128 * sp.gain as u128 <= (sp.refaulted + 1) as u128 * pv.total as u128 * pv.gain as u128
}

/// `lru_gen_is_active()`: the two youngest generations count as active.
#[inline]
pub fn lru_gen_is_active(g: &LruGenStruct, gen: usize) -> bool {
    gen == lru_gen_from_seq(g.max_seq) || gen == lru_gen_from_seq(g.max_seq.wrapping_sub(1))
}

/// `lru_gen_add_folio()` (include/linux/mm_inline.h, 6.1): the generation list a page goes
/// on. Active (freshly faulted, or `PG_active` from `lru_gen_del_folio()`): the youngest;
/// anonymous not in swap cache, or waiting for writeback with `PG_reclaim`: the second
/// youngest; put back by reclaim (`reclaiming`, `folio_rotate_reclaimable()`), or with only
/// `MIN_NR_GENS` generations: the oldest; else the second oldest. Clears `PG_active`.
pub fn lru_gen_add_folio(g: &LruGenStruct, p: &mut Page, lru: LruList, reclaiming: bool) -> usize {
    let ty = if lru.is_file() { LRU_GEN_FILE } else { LRU_GEN_ANON };
    let seq = if lru.is_active() || p.test(pg::ACTIVE) {
        g.max_seq
    } else if (ty == LRU_GEN_ANON && !p.test(pg::SWAPCACHE)) || (p.test(pg::RECLAIM) && (p.test(pg::DIRTY) || p.test(pg::WRITEBACK))) {
        g.max_seq - 1
    } else if reclaiming || g.min_seq[ty] + MIN_NR_GENS >= g.max_seq {
        g.min_seq[ty]
    } else {
        g.min_seq[ty] + 1
    };
    p.flags &= !pg::ACTIVE;
    gen_list(lru_gen_from_seq(seq), ty)
}

/// Pages (or, with `base_pages`, base pages) the two-list statistics show on `lru` under
/// the multi-generational LRU: `lru_gen_update_size()` counts the two youngest generations
/// as active, the others as inactive.
pub fn compat_size(v: &Lruvec, lru: LruList, base_pages: bool) -> u64 {
    let ty = if lru.is_file() { LRU_GEN_FILE } else { LRU_GEN_ANON };
    let mut n = 0;
    for gen in 0..MAX_NR_GENS as usize {
        if lru_gen_is_active(&v.lrugen, gen) == lru.is_active() {
            let l = &v.lists[gen_list(gen, ty)];
            n += if base_pages { l.pages } else { l.len };
        }
    }
    n
}

impl Kernel {
    /// `folio_inc_refs()` (mm/swap.c, 6.1), what `folio_mark_accessed()` does under the
    /// multi-generational LRU: the first access sets `PG_referenced`, the second
    /// `PG_workingset`, later ones count up the `LRU_REFS` bits (saturating at 3). No list
    /// moves: the page's tier changes, not its generation.
    #[inline]
    pub fn folio_inc_refs(&mut self, page: PageId) {
        let p = &mut self.pages[page];
        if !p.test(pg::REFERENCED) {
            p.flags |= pg::REFERENCED;
        } else if !p.test(pg::WORKINGSET) {
            p.flags |= pg::WORKINGSET;
        } else if (p.refs() as u32) < (1 << LRU_REFS_WIDTH) - 1 {
            p.set_refs(p.refs() + 1);
        }
    }

    /// `lru_gen_eviction()` (mm/workingset.c, 6.1): the shadow entry of a page being evicted:
    /// its own memcg, the oldest generation of its type and its refs (`token = min_seq <<
    /// LRU_REFS_WIDTH | max(refs - 1, 0)`, the workingset bit `refs != 0`); counts the
    /// eviction in its tier.
    pub fn lru_gen_eviction(&mut self, page: PageId) -> u64 {
        let p = &self.pages[page];
        let ty = page_type(p);
        let refs = folio_lru_refs(p);
        let tier = lru_tier_from_refs(refs);
        let memcg = if p.memcg == MemcgId::NONE { MemcgId::ROOT } else { p.memcg };
        let v = self.folio_lruvec(page);
        let g = &mut self.lruvecs[v].lrugen;
        let min_seq = g.min_seq[ty];
        let token = (min_seq << LRU_REFS_WIDTH) | refs.saturating_sub(1) as u64;
        g.evicted[ty][tier] += 1;
        crate::workingset::pack_shadow(memcg, token, refs != 0)
    }

    /// `lru_gen_refault()` (mm/workingset.c, 6.1): a page read back in over `shadow`. Only a
    /// page refaulting into the memcg it was evicted from, while that lruvec's oldest
    /// generation is still the one it was evicted from, counts: as a refault of its tier
    /// (the PID controller's input) and `workingset_refault_{anon,file}` (6.5+,
    /// `KernelProfile::lru_gen_refault_activates`: `workingset_refault_*` for every refault
    /// into that memcg, `workingset_activate_*` for the recent ones); one read back by
    /// a fault (`lru_gen_in_fault()`: a mapped page, a swap-in and its readahead) or read
    /// `BIT(LRU_REFS_WIDTH)` or more times through file descriptors (refs >= 3) is a
    /// "stall" (`workingset_restore_*`) and comes back in the top tier (refs bits full,
    /// `PG_workingset`), which `sort_folio()` protects once (`refs == BIT(LRU_REFS_WIDTH)`).
    pub fn lru_gen_refault(&mut self, page: PageId, shadow: u64) {
        self.cpu(self.cost.refault);
        let (memcg, token, workingset) = crate::workingset::unpack_shadow(shadow);
        let page_memcg = self.pages[page].memcg;
        let own = if page_memcg == MemcgId::NONE { MemcgId::ROOT } else { page_memcg };
        if memcg != own {
            return;
        }
        let ty = page_type(&self.pages[page]);
        let v = self.folio_lruvec(page);
        let (refault, restore) = if ty == LRU_GEN_FILE {
            (MemcgEvent::WorkingsetRefaultFile, MemcgEvent::WorkingsetRestoreFile)
        } else {
            (MemcgEvent::WorkingsetRefaultAnon, MemcgEvent::WorkingsetRestoreAnon)
        };
        let count_refault = |k: &mut Kernel| {
            // mod_lruvec_state(lruvec, WORKINGSET_REFAULT_BASE + type, delta)
            k.memcgs.count_event(page_memcg, refault, 1);
            k.vmstat.count(if ty == LRU_GEN_FILE { VmEvent::WorkingsetRefaultFile } else { VmEvent::WorkingsetRefaultAnon }, 1);
        };
        let activates = self.profile.lru_gen_refault_activates;
        if activates {
            // 6.5+: every refault into the lruvec it was evicted from, before the recent test
            count_refault(self);
        }
        let g = &mut self.lruvecs[v].lrugen;
        let min_seq = g.min_seq[ty];
        let mask = (1u64 << crate::workingset::EVICTION_BITS) - 1;
        if token >> LRU_REFS_WIDTH != (min_seq & (mask >> LRU_REFS_WIDTH)) {
            return;
        }
        let refs = (token & ((1 << LRU_REFS_WIDTH) - 1)) as u32 + workingset as u32;
        let tier = lru_tier_from_refs(refs);
        g.refaulted[ty][tier] += 1;
        if activates {
            // 6.5+: mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_BASE + type, delta)
            if ty == LRU_GEN_FILE {
                self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetActivateFile, 1);
                self.vmstat.count(VmEvent::WorkingsetActivateFile, 1);
            } else {
                self.memcgs.count_event(page_memcg, MemcgEvent::WorkingsetActivateAnon, 1);
                self.vmstat.count(VmEvent::WorkingsetActivateAnon, 1);
            }
        } else {
            count_refault(self);
        }
        // "Count the following two cases as stalls: 1. For pages accessed through page
        // tables, hotter pages pushed out hot pages which refaulted immediately. 2. For pages
        // accessed multiple times through file descriptors, they would have been protected
        // by sort_folio()": lru_gen_in_fault() || refs >= BIT(LRU_REFS_WIDTH) - 1.
        if self.lru_gen_in_fault || refs >= (1 << LRU_REFS_WIDTH) - 1 {
            let p = &mut self.pages[page];
            p.set_refs((1 << LRU_REFS_WIDTH) - 1);
            p.flags |= pg::WORKINGSET;
            self.memcgs.count_event(page_memcg, restore, 1);
            self.vmstat.count(if ty == LRU_GEN_FILE { VmEvent::WorkingsetRestoreFile } else { VmEvent::WorkingsetRestoreAnon }, 1);
        }
    }

    /// `folio_inc_gen()` (6.1): move a page of the oldest generation to the next one,
    /// clearing its refs, `PG_referenced` and `PG_workingset` (and setting `PG_reclaim` when
    /// `reclaiming`); returns the new list number. The caller links it.
    fn folio_inc_gen(&mut self, v: usize, p: PageId, reclaiming: bool) -> usize {
        let ty = page_type(&self.pages[p]);
        let old_gen = lru_gen_from_seq(self.lruvecs[v].lrugen.min_seq[ty]);
        let new_gen = (old_gen + 1) % MAX_NR_GENS as usize;
        let page = &mut self.pages[p];
        page.set_refs(0);
        page.flags &= !(pg::REFERENCED | pg::WORKINGSET);
        if reclaiming {
            page.flags |= pg::RECLAIM;
        }
        gen_list(new_gen, ty)
    }

    /// `inc_min_seq()` (6.1): retire the oldest generation of `ty`, moving what is left in it
    /// to the next (`folio_inc_gen()`); an anonymous generation with swapping impossible is
    /// retired without moving its pages.
    fn inc_min_seq(&mut self, v: usize, ty: usize, can_swap: bool) {
        if !(ty == LRU_GEN_ANON && !can_swap) {
            let old = gen_list(lru_gen_from_seq(self.lruvecs[v].lrugen.min_seq[ty]), ty);
            while let Some(p) = self.lruvecs[v].list_tail(old) {
                self.cpu(self.cost.scan_page);
                let list = self.folio_inc_gen(v, p, false);
                self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, p);
                self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, p, list);
            }
        }
        let g = &mut self.lruvecs[v].lrugen;
        g.reset_ctrl_pos(ty, true);
        g.min_seq[ty] += 1;
    }

    /// `try_to_inc_min_seq()` (6.1): advance each type's `min_seq` past empty generations
    /// (keeping `MIN_NR_GENS`), anon no further than file when swapping is possible.
    fn try_to_inc_min_seq(&mut self, v: usize, can_swap: bool) -> bool {
        let g = &self.lruvecs[v].lrugen;
        let mut min_seq = g.min_seq;
        for ty in (!can_swap as usize)..2 {
            while min_seq[ty] + MIN_NR_GENS <= g.max_seq {
                let gen = lru_gen_from_seq(min_seq[ty]);
                if self.lruvecs[v].lists[gen_list(gen, ty)].len > 0 {
                    break;
                }
                min_seq[ty] += 1;
            }
        }
        if can_swap {
            min_seq[LRU_GEN_ANON] = min_seq[LRU_GEN_ANON].min(min_seq[LRU_GEN_FILE]);
            min_seq[LRU_GEN_FILE] = min_seq[LRU_GEN_ANON].max(g.min_seq[LRU_GEN_FILE]);
        }
        let mut success = false;
        for ty in (!can_swap as usize)..2 {
            let g = &mut self.lruvecs[v].lrugen;
            if min_seq[ty] == g.min_seq[ty] {
                continue;
            }
            g.reset_ctrl_pos(ty, true);
            g.min_seq[ty] = min_seq[ty];
            success = true;
        }
        success
    }

    /// `inc_max_seq()` (6.1): open a new youngest generation, first retiring the oldest of a
    /// type that already has `MAX_NR_GENS`.
    pub fn inc_max_seq(&mut self, v: usize, can_swap: bool) {
        for ty in [LRU_GEN_FILE, LRU_GEN_ANON] {
            if self.lruvecs[v].lrugen.nr_gens(ty) == MAX_NR_GENS {
                self.inc_min_seq(v, ty, can_swap);
            }
        }
        let now = self.now;
        let g = &mut self.lruvecs[v].lrugen;
        g.reset_ctrl_pos(LRU_GEN_ANON, false);
        g.reset_ctrl_pos(LRU_GEN_FILE, false);
        let prev = lru_gen_from_seq(g.max_seq - 1);
        let next = lru_gen_from_seq(g.max_seq + 1);
        g.timestamps[next] = now;
        g.max_seq += 1;
        // "update the active/inactive LRU sizes for compatibility": the generation before the
        // old youngest becomes inactive, the new youngest active
        for ty in [LRU_GEN_ANON, LRU_GEN_FILE] {
            let (p, n) = (self.lruvecs[v].lists[gen_list(prev, ty)].pages, self.lruvecs[v].lists[gen_list(next, ty)].pages);
            let idx = self.lruvecs[v].idx;
            self.lru_stats.update_gen_inactive(idx, ty, p, true);
            self.lru_stats.update_gen_inactive(idx, ty, n, false);
        }
    }

    /// `try_to_inc_max_seq()` (6.1) with the page-table walk (`arch_has_hw_pte_young()` and
    /// `LRU_GEN_MM_WALK`, on when lru_gen is enabled with "y"): unless another walker already
    /// finished this generation (`max_seq <= mm_state.seq`), walk every mm on the memcg's mm
    /// list ([`Kernel::lru_gen_walk_mms`]), then open a new generation.
    fn try_to_inc_max_seq(&mut self, v: usize, max_seq: u64, can_swap: bool) -> bool {
        if max_seq <= self.lruvecs[v].lrugen.mm_seq {
            return max_seq < self.lruvecs[v].lrugen.max_seq;
        }
        // set_mm_walk(NULL): the reclaimer keeps its walk context until clear_mm_walk().
        self.lru_gen_mm_walk = true;
        self.lru_gen_walk_mms(v, max_seq, can_swap);
        self.lruvecs[v].lrugen.mm_seq += 1;
        self.inc_max_seq(v, can_swap);
        true
    }

    /// `iterate_mm_list()` + `walk_mm()` (6.1) for one aging of lruvec `v`: each mm on its
    /// memcg's list in turn, those added since the last iteration with `force_scan`
    /// (`mm_state.tail`), others skipped unless their task ran since this node's last walk or
    /// when they map fewer than `MIN_LRU_BATCH` pages (`should_skip_mm()`); the first mm
    /// walked resets the Bloom filter of the next generation (`reset_bloom_filter(max_seq +
    /// 1)`).
    pub fn lru_gen_walk_mms(&mut self, v: usize, max_seq: u64, can_swap: bool) {
        let memcg = MemcgId((v / self.nr_nodes as usize) as u32);
        let nid = (v % self.nr_nodes as usize) as u32;
        let Some(list) = self.lru_gen_mm_lists.get_mut(memcg.idx()).map(std::mem::take) else { return };
        let mut force = false;
        let mut first = true;
        for (j, &mm) in list.iter().enumerate() {
            let tail = self.lruvecs[v].lrugen.mm_tail;
            if tail == MmTail::Null || tail == MmTail::At(j as u32) {
                self.lruvecs[v].lrugen.mm_tail = if j + 1 < list.len() { MmTail::At(j as u32 + 1) } else { MmTail::End };
                force = true;
            }
            // should_skip_mm()
            let bit = 1u64 << (nid % 64);
            let m = &mut self.lru_gen_mms[mm as usize];
            if !force && m.bitmap & bit == 0 {
                continue;
            }
            m.bitmap &= !bit;
            let size: u64 = m
                .vmas
                .iter()
                .map(|&vma| {
                    let x = &self.vmas[vma.0 as usize];
                    if x.file.is_some() || can_swap { x.nr_resident } else { 0 }
                })
                .sum();
            if size < MIN_LRU_BATCH {
                continue;
            }
            if first {
                self.reset_bloom_filter(v, max_seq + 1);
                first = false;
            }
            for k in 0..self.lru_gen_mms[mm as usize].vmas.len() {
                let vma = self.lru_gen_mms[mm as usize].vmas[k];
                self.lru_gen_walk_vma(v, vma, max_seq, can_swap, force);
            }
        }
        self.lru_gen_mm_lists[memcg.idx()] = list;
    }

    /// `reset_bloom_filter()` (6.1): clear, or allocate, the filter of `seq`.
    fn reset_bloom_filter(&mut self, v: usize, seq: u64) {
        let f = &mut self.lruvecs[v].lrugen.filters[(seq % 2) as usize];
        match f {
            Some(bits) => bits.fill(0),
            None => *f = Some(vec![0u64; 1 << (BLOOM_FILTER_SHIFT - 6)].into_boxed_slice()),
        }
    }

    /// `update_bloom_filter()` (6.1): only into an allocated filter.
    fn update_bloom_filter(&mut self, v: usize, seq: u64, vma: VmaId, pmd: u32) {
        if let Some(bits) = self.lruvecs[v].lrugen.filters[(seq % 2) as usize].as_mut() {
            for k in bloom_keys(vma, pmd) {
                bits[k / 64] |= 1 << (k % 64);
            }
        }
    }

    /// `test_bloom_filter()` (6.1): true when the filter is not allocated yet.
    pub(crate) fn test_bloom_filter(&self, v: usize, seq: u64, vma: VmaId, pmd: u32) -> bool {
        match self.lruvecs[v].lrugen.filters[(seq % 2) as usize].as_ref() {
            None => true,
            Some(bits) => bloom_keys(vma, pmd).iter().all(|&k| bits[k / 64] & (1 << (k % 64)) != 0),
        }
    }

    /// `walk_pmd_range()` + `walk_pte_range()` (6.1) over one VMA, file and anonymous alike:
    /// VMAs `should_skip_vma()` skips (locked, `VM_SEQ_READ`, `VM_RAND_READ`; anonymous memory
    /// and tmpfs when anonymous pages cannot be swapped, `!walk->can_swap`) are left alone.
    /// Each PMD (512 pages from the VMA's start) with a page table and a young entry (x86's
    /// non-leaf PMD accessed bit, `LRU_GEN_NONLEAF_YOUNG`): a huge page it maps
    /// (`pmd_trans_huge()`) is handled at once (`walk_pmd_range_locked()`: its PMD made old,
    /// the folio moved), without the Bloom filter; else, when the Bloom filter of `max_seq`
    /// holds it, or with `force_scan`, its young PTEs are cleared and their pages moved to
    /// generation `max_seq` (`folio_update_gen()`: refs, `PG_referenced` and `PG_workingset`
    /// cleared; an isolated page gets `PG_referenced`); a PMD with at least one young PTE per
    /// cache line goes into the next generation's filter. Each young entry costs one
    /// `scan_page` of CPU. The dirty bit `walk_pte_range()` carries to the folio is not kept
    /// by the engine (a written anonymous page is dirty from its fault on).
    fn lru_gen_walk_vma(&mut self, v: usize, vma: VmaId, max_seq: u64, can_swap: bool, force: bool) {
        let vi = vma.0 as usize;
        if !self.vmas[vi].live || self.vmas[vi].locked {
            return;
        }
        match self.vmas[vi].file.as_ref() {
            Some(f) => {
                if f.seq_read || f.rand_read {
                    return;
                }
                if !can_swap && self.inodes[f.inode.idx()].dev.is_none() {
                    return;
                }
            }
            None if !can_swap => return,
            None => {}
        }
        let len = self.vmas[vi].pages.len() as u32;
        let ptrs = PAGEBLOCK_NR as u32;
        let new_gen = lru_gen_from_seq(max_seq);
        for pmd in 0..len.div_ceil(ptrs) {
            if !self.vmas[vi].ptes.get(pmd as usize).copied().unwrap_or(false) {
                continue;
            }
            let (start, end) = (pmd * ptrs, ((pmd + 1) * ptrs).min(len));
            if !self.vmas[vi].any_young(start, end) {
                continue;
            }
            let head = self.vmas[vi].pages[start as usize];
            if head != PageId::NIL && self.pages[head].test(pg::HEAD) && self.vmas[vi].file.is_none() {
                // walk_pmd_range_locked(): pmdp_test_and_clear_young() of the huge page.
                for i in start..end {
                    self.vmas[vi].pte_mkold(i);
                }
                if self.folio_lruvec(head) == v {
                    self.cpu(self.cost.scan_page);
                    self.folio_update_gen(v, head, new_gen);
                }
                continue;
            }
            if !force && !self.test_bloom_filter(v, max_seq, vma, pmd) {
                continue;
            }
            let mut young = 0u32;
            for i in start..end {
                let Some(q) = self.young_pte_folio(vi, i, v, can_swap) else { continue };
                self.vmas[vi].pte_mkold(i);
                young += 1;
                self.cpu(self.cost.scan_page);
                self.folio_update_gen(v, q, new_gen);
            }
            if suitable_to_scan(end - start, young) {
                self.update_bloom_filter(v, max_seq + 1, vma, pmd);
            }
        }
    }

    /// `get_pfn_folio()` (6.1) of page `i` of VMA `vi` when its PTE is young: the page, if it
    /// is on lruvec `v` (its memcg and node), and, when it is swap-backed (anonymous, a
    /// private copy, tmpfs), if anonymous pages can be swapped ("file VMAs can contain anon
    /// pages from COW").
    fn young_pte_folio(&self, vi: usize, i: u32, v: usize, can_swap: bool) -> Option<PageId> {
        let q = self.vmas[vi].pages[i as usize];
        if q == PageId::NIL || !self.vmas[vi].pte_young(i) {
            return None;
        }
        (self.folio_lruvec(q) == v && !(self.pages[q].test(pg::SWAPBACKED) && !can_swap)).then_some(q)
    }

    /// `folio_update_gen()` (6.1): a page on the LRU goes to generation `new_gen` with its
    /// refs, `PG_referenced` and `PG_workingset` cleared; an isolated one gets
    /// `PG_referenced` (for `shrink_folio_list()`).
    fn folio_update_gen(&mut self, v: usize, q: PageId, new_gen: usize) {
        let page = &mut self.pages[q];
        if !page.test(pg::LRU) {
            page.flags |= pg::REFERENCED;
            return;
        }
        page.set_refs(0);
        page.flags &= !(pg::REFERENCED | pg::WORKINGSET);
        if list_gen(page.lru() as usize) != new_gen {
            let ty = page_type(page);
            self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, q);
            self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, q, gen_list(new_gen, ty));
        }
    }

    /// `lru_gen_add_mm()` (6.1): task `mm`'s address space joins `memcg`'s mm list; the
    /// first mm added since an iteration becomes its lruvecs' `mm_state.tail`.
    pub fn lru_gen_add_mm(&mut self, mm: u32, memcg: MemcgId) {
        if !self.profile.lru_gen {
            return;
        }
        if self.lru_gen_mms.len() <= mm as usize {
            self.lru_gen_mms.resize(mm as usize + 1, LruGenMm::default());
        }
        if self.lru_gen_mm_lists.len() <= memcg.idx() {
            self.lru_gen_mm_lists.resize(memcg.idx() + 1, vec![]);
        }
        let pos = self.lru_gen_mm_lists[memcg.idx()].len() as u32;
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(memcg, nid);
            if self.lruvecs[v].lrugen.mm_tail == MmTail::End {
                self.lruvecs[v].lrugen.mm_tail = MmTail::At(pos);
            }
        }
        self.lru_gen_mm_lists[memcg.idx()].push(mm);
        let m = &mut self.lru_gen_mms[mm as usize];
        m.memcg = memcg;
        m.listed = true;
    }

    /// `lru_gen_del_mm()` (6.1): off its memcg's list; a `mm_state.tail` on it moves to the
    /// next.
    pub fn lru_gen_del_mm(&mut self, mm: u32) {
        let Some(m) = self.lru_gen_mms.get_mut(mm as usize) else { return };
        if !m.listed {
            return;
        }
        m.listed = false;
        let memcg = m.memcg;
        let list = &mut self.lru_gen_mm_lists[memcg.idx()];
        let r = list.iter().position(|&x| x == mm).expect("a listed mm is on its memcg's list") as u32;
        list.remove(r as usize);
        let len = list.len() as u32;
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(memcg, nid);
            let t = &mut self.lruvecs[v].lrugen.mm_tail;
            if let MmTail::At(i) = *t {
                if i > r {
                    *t = MmTail::At(i - 1);
                } else if i == r && r == len {
                    *t = MmTail::End;
                }
            }
        }
    }

    /// `lru_gen_migrate_mm()` (6.1): a task moved to `to` takes its mm to `to`'s list.
    pub fn lru_gen_migrate_mm(&mut self, mm: u32, to: MemcgId) {
        if self.lru_gen_mms.get(mm as usize).is_some_and(|m| m.listed && m.memcg != to) {
            self.lru_gen_del_mm(mm);
            self.lru_gen_add_mm(mm, to);
        }
    }

    /// `lru_gen_use_mm()` (6.1, at context switch): the running task's mm has run on every
    /// node since their last walks.
    #[inline]
    pub fn lru_gen_use_mm(&mut self) {
        if let Some(m) = self.lru_gen_mms.get_mut(self.cur_mm as usize) {
            m.bitmap = u64::MAX;
        }
    }

    /// A new VMA `vma` of the running task (`cur_mm`), for its mm's walk.
    pub fn lru_gen_mm_add_vma(&mut self, vma: VmaId) {
        if !self.profile.lru_gen {
            return;
        }
        if self.lru_gen_vma_mm.len() <= vma.0 as usize {
            self.lru_gen_vma_mm.resize(vma.0 as usize + 1, u32::MAX);
        }
        self.lru_gen_vma_mm[vma.0 as usize] = self.cur_mm;
        if let Some(m) = self.lru_gen_mms.get_mut(self.cur_mm as usize) {
            m.vmas.push(vma);
        }
    }

    /// `vma` unmapped: off its mm's walk.
    pub fn lru_gen_mm_del_vma(&mut self, vma: VmaId) {
        let Some(&mm) = self.lru_gen_vma_mm.get(vma.0 as usize) else { return };
        self.lru_gen_vma_mm[vma.0 as usize] = u32::MAX;
        if let Some(m) = self.lru_gen_mms.get_mut(mm as usize) {
            if let Some(k) = m.vmas.iter().position(|&x| x == vma) {
                m.vmas.remove(k);
            }
        }
    }

    /// `should_run_aging()` (6.1): (whether to age, pages to scan = total >> priority, or
    /// all of a dying memcg's). Age when fewer than `MIN_NR_GENS + 1` generations remain, or
    /// at exactly that many when the youngest holds more than 1/`MIN_NR_GENS` of the pages or
    /// the oldest less than 1/(`MIN_NR_GENS + 2`).
    pub fn should_run_aging(&self, v: usize, can_swap: bool, priority: u32, online: bool) -> (bool, u64) {
        let g = &self.lruvecs[v].lrugen;
        let (mut old, mut young, mut total) = (0u64, 0u64, 0u64);
        for ty in (!can_swap as usize)..2 {
            for seq in g.min_seq[ty]..=g.max_seq {
                let size = self.lruvecs[v].lists[gen_list(lru_gen_from_seq(seq), ty)].pages;
                total += size;
                if seq == g.max_seq {
                    young += size;
                } else if seq + MIN_NR_GENS == g.max_seq {
                    old += size;
                }
            }
        }
        let nr_to_scan = if online { total >> priority } else { total };
        let min = g.min_seq[!can_swap as usize];
        if min + MIN_NR_GENS > g.max_seq {
            return (true, nr_to_scan);
        }
        if min + MIN_NR_GENS < g.max_seq {
            return (false, nr_to_scan);
        }
        if young * MIN_NR_GENS > total || old * (MIN_NR_GENS + 2) < total {
            return (true, nr_to_scan);
        }
        (false, nr_to_scan)
    }

    /// `get_swappiness()` (6.1): the memcg's swappiness (`mem_cgroup_swappiness()`: its v1
    /// memory.swappiness, else vm.swappiness) when it may still take `MIN_LRU_BATCH` slots
    /// (`mem_cgroup_get_nr_swap_pages()`: free slots, capped by memory.swap.max), else 0.
    fn lru_gen_swappiness(&self, memcg: MemcgId) -> u64 {
        if self.mem_cgroup_get_nr_swap_pages(memcg) < MIN_LRU_BATCH {
            return 0;
        }
        self.memcgs.swappiness(memcg, self.profile.swappiness)
    }

    /// `get_nr_to_scan()` (6.1): pages to scan in this lruvec at this priority, aging it
    /// first when needed (not at `DEF_PRIORITY`, and not by kswapd, which ages in
    /// [`Kernel::lru_gen_age_node`]).
    fn lru_gen_get_nr_to_scan(&mut self, memcg: MemcgId, v: usize, sc: &ScanControl, can_swap: bool) -> (u64, bool) {
        let online = self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Online;
        let (need_aging, nr_to_scan) = self.should_run_aging(v, can_swap, sc.priority, online);
        if !need_aging {
            return (nr_to_scan, false);
        }
        if sc.priority != DEF_PRIORITY {
            if sc.kswapd {
                return (0, true);
            }
            let max_seq = self.lruvecs[v].lrugen.max_seq;
            if self.try_to_inc_max_seq(v, max_seq, can_swap) {
                return (nr_to_scan, true);
            }
        }
        let g = &self.lruvecs[v].lrugen;
        (if g.min_seq[!can_swap as usize] + MIN_NR_GENS <= g.max_seq { nr_to_scan } else { 0 }, true)
    }

    /// `lru_gen_shrink_lruvec()` (6.1): evict batches from the oldest generation until
    /// `total >> priority` pages were scanned, the lruvec was aged twice (fairness), or, for
    /// global reclaim at low priority, enough was reclaimed.
    pub fn lru_gen_shrink_lruvec(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) {
        // set_mm_walk(pgdat): kswapd's walk context; a direct reclaimer gets one at its first
        // aging (try_to_inc_max_seq() -> set_mm_walk(NULL)). clear_mm_walk() at the end.
        self.lru_gen_mm_walk = sc.kswapd;
        // "lru_add_drain();" before blk_start_plug() (6.1).
        self.lru_add_drain();
        self.lru_gen_evict_loop(memcg, v, sc);
        self.lru_gen_mm_walk = false;
    }

    /// The loop of `lru_gen_shrink_lruvec()` (6.1): the returns stand for its `goto done`;
    /// after a `break` (enough scanned, or `should_abort_scan()`), kswapd's
    /// `sc->memcgs_need_aging` is cleared when this lruvec gave `MIN_LRU_BATCH` pages without
    /// needing aging ("see the comment in lru_gen_age_node()").
    fn lru_gen_evict_loop(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) {
        let start_reclaimed = sc.nr_reclaimed;
        let need_aging = self.lru_gen_evict_batches(memcg, v, sc);
        if need_aging == Some(false) && sc.kswapd && sc.nr_reclaimed - start_reclaimed >= MIN_LRU_BATCH {
            let nid = v % self.nr_nodes as usize;
            self.nodes[nid].lru_gen_memcgs_need_aging = false;
        }
    }

    /// The `while (true)` of `lru_gen_shrink_lruvec()` (6.1): `None` when it ended at `goto
    /// done`, else whether the last `get_nr_to_scan()` found the lruvec in need of aging.
    fn lru_gen_evict_batches(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) -> Option<bool> {
        let start_max_seq = self.lruvecs[v].lrugen.max_seq;
        let mut scanned = 0;
        loop {
            // 6.1: global reclaim that may not swap (kswapd's boosted reclaim) still evicts
            // with swappiness 1 where swap has room ("else if (!cgroup_reclaim(sc) &&
            // get_swappiness(lruvec, sc)) swappiness = 1"); 6.3's "mm: multi-gen LRU: remove
            // eviction fairness safeguard" dropped it (try_to_shrink_lruvec(): 0 then).
            let swappiness = if sc.may_swap {
                self.lru_gen_swappiness(memcg)
            } else if !sc.cgroup_reclaim && self.lru_gen_swappiness(memcg) != 0 {
                1
            } else {
                0
            };
            let (nr_to_scan, need_aging) = self.lru_gen_get_nr_to_scan(memcg, v, sc, swappiness != 0);
            if nr_to_scan == 0 {
                return None;
            }
            let delta = self.evict_folios(memcg, v, sc, swappiness);
            if delta == 0 {
                return None;
            }
            scanned += delta;
            if scanned >= nr_to_scan {
                return Some(need_aging);
            }
            // should_abort_scan()
            if !sc.kswapd {
                if self.lruvecs[v].lrugen.max_seq - start_max_seq > 1 {
                    return Some(need_aging);
                }
                if sc.cgroup_reclaim {
                    continue;
                }
            } else if sc.nr_reclaimed - sc.last_reclaimed < sc.nr_to_reclaim {
                // kswapd: this balance_pgdat() round ("sc->nr_reclaimed -
                // sc->last_reclaimed", set by lru_gen_age_node()) has not met its goal.
                continue;
            }
            if sc.priority > DEF_PRIORITY - 2 {
                continue;
            }
            // The watermark check of should_abort_scan(): for kswapd every zone of the node
            // at or above its high watermark ("if (wmark > zone_page_state(zone,
            // NR_FREE_PAGES)) return false"); a direct reclaimer stops once its target is
            // met, which stands for the zones being above their low marks.
            let safe = if sc.kswapd {
                let nid = v % self.nr_nodes as usize;
                self.nodes[nid].zones.iter().all(|&z| self.zones[z].free >= self.zones[z].wmark_high)
            } else {
                sc.nr_reclaimed >= sc.nr_to_reclaim
            };
            if safe {
                return Some(need_aging);
            }
        }
    }

    /// `evict_folios()` (6.1): isolate a batch from the oldest generation of the type
    /// chosen (`isolate_folios()`), reclaim it, and retire emptied generations. Returns the
    /// pages scanned (0 when the lruvec is down to `MIN_NR_GENS`).
    fn evict_folios(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl, swappiness: u64) -> u64 {
        // The completion interrupts of writes that finished while reclaim ran (its CPU time
        // advances the clock) end their writeback now, rotating PG_reclaim pages to the tail
        // of the oldest generation (folio_rotate_reclaimable()), as they would have
        // meanwhile: reclaim then finds them clean instead of aging past them.
        self.writeback_end_io();
        self.swap_end_io();
        let mut scanned = self.isolate_folios(memcg, v, sc, swappiness);
        scanned += self.try_to_inc_min_seq(v, swappiness != 0) as u64;
        if self.lruvecs[v].lrugen.nr_gens((swappiness == 0) as usize) == MIN_NR_GENS {
            scanned = 0;
        }
        scanned
    }

    /// `isolate_folios()` (6.1): scan the obvious type first (file without swap, anon when
    /// its oldest generation is older), else the one `get_type_to_scan()` picks; fall back to
    /// the other type when nothing was scanned.
    fn isolate_folios(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl, swappiness: u64) -> u64 {
        let g = &self.lruvecs[v].lrugen;
        let (mut ty, mut tier) = if swappiness == 0 {
            (LRU_GEN_FILE, None)
        } else if g.min_seq[LRU_GEN_ANON] < g.min_seq[LRU_GEN_FILE] {
            (LRU_GEN_ANON, None)
        } else if swappiness == 1 {
            (LRU_GEN_FILE, None)
        } else if swappiness == 200 {
            (LRU_GEN_ANON, None)
        } else {
            let (t, i) = g.get_type_to_scan(swappiness);
            (t, Some(i))
        };
        let mut scanned = 0;
        for _ in ((swappiness == 0) as usize)..2 {
            let t = tier.unwrap_or_else(|| self.lruvecs[v].lrugen.get_tier_idx(ty));
            scanned = self.scan_folios(memcg, v, sc, ty, t);
            if scanned > 0 {
                break;
            }
            ty = 1 - ty;
            tier = None;
        }
        scanned
    }

    /// `scan_folios()` (6.1) with `shrink_folio_list()` of each isolated page: from the tail
    /// of the oldest generation of `ty`, sort out pages to keep (`sort_folio()`) and reclaim
    /// the others, until `MIN_LRU_BATCH` are isolated or `MAX_LRU_BATCH` looked at.
    fn scan_folios(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl, ty: usize, tier_idx: usize) -> u64 {
        if self.lruvecs[v].lrugen.nr_gens(ty) == MIN_NR_GENS {
            return 0;
        }
        let list = gen_list(lru_gen_from_seq(self.lruvecs[v].lrugen.min_seq[ty]), ty);
        let (mut scanned, mut sorted, mut isolated, mut reclaimed) = (0u64, 0u64, 0u64, 0u64);
        let mut remaining = MAX_LRU_BATCH;
        while let Some(p) = self.lruvecs[v].list_tail(list) {
            scanned += 1;
            self.cpu(self.cost.scan_page);
            if self.sort_folio(memcg, v, p, sc, tier_idx) {
                sorted += 1;
            } else {
                self.isolate_folio(v, p);
                isolated += 1;
                reclaimed += self.lru_gen_reclaim_folio(v, p, sc);
            }
            remaining -= 1;
            if remaining == 0 || isolated >= MIN_LRU_BATCH {
                break;
            }
        }
        self.count_scan_steal(memcg, v, isolated, reclaimed, sc);
        sc.nr_reclaimed += reclaimed;
        self.memcgs.count_event(memcg, MemcgEvent::Pgrefill, sorted);
        if !sc.cgroup_reclaim {
            self.vmstat.count(VmEvent::Pgrefill, sorted);
        }
        if isolated > 0 || remaining == 0 {
            scanned
        } else {
            0
        }
    }

    /// `sort_folio()` (6.1): keep a page of the oldest generation when its tier is above
    /// `tier_idx` or its refs are saturated (protected: to the next generation, counted in
    /// `protected[]` and `workingset_activate_*`), or when it is locked, under writeback or
    /// dirty (to the next generation with `PG_reclaim`). Returns whether it was kept.
    fn sort_folio(&mut self, memcg: MemcgId, v: usize, p: PageId, sc: &mut ScanControl, tier_idx: usize) -> bool {
        let page = &self.pages[p];
        let ty = page_type(page);
        let refs = folio_lru_refs(page);
        let tier = lru_tier_from_refs(refs);
        if tier > tier_idx || refs == 1 << LRU_REFS_WIDTH {
            let list = self.folio_inc_gen(v, p, false);
            self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, p);
            self.lruvecs[v].link_tail(&mut self.pages, &mut self.lru_stats, p, list);
            self.lruvecs[v].lrugen.protected[ty][tier - 1] += 1;
            // __mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_BASE + type, delta), up to 6.4
            // (6.5+ counts activations in lru_gen_refault())
            if !self.profile.lru_gen_refault_activates {
                if ty == LRU_GEN_FILE {
                    self.memcgs.count_event(memcg, MemcgEvent::WorkingsetActivateFile, 1);
                    self.vmstat.count(VmEvent::WorkingsetActivateFile, 1);
                } else {
                    self.memcgs.count_event(memcg, MemcgEvent::WorkingsetActivateAnon, 1);
                    self.vmstat.count(VmEvent::WorkingsetActivateAnon, 1);
                }
            }
            return true;
        }
        let writeback = self.pages[p].test(pg::WRITEBACK);
        if self.folio_test_locked(p) || writeback || (ty == LRU_GEN_FILE && self.pages[p].test(pg::DIRTY)) {
            if writeback {
                sc.nr_writeback += 1;
            }
            let list = self.folio_inc_gen(v, p, true);
            self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, p);
            self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, p, list);
            return true;
        }
        false
    }

    /// `isolate_folio()` (6.1): take the page off its generation; a page not referenced since
    /// its last access count loses its refs and `PG_workingset` ("see the comment on
    /// MAX_NR_TIERS"); `PG_reclaim` and `PG_referenced` are cleared for
    /// `shrink_folio_list()`.
    fn isolate_folio(&mut self, v: usize, p: PageId) {
        let page = &mut self.pages[p];
        if !page.test(pg::REFERENCED) {
            page.set_refs(0);
            page.flags &= !pg::WORKINGSET;
        }
        page.flags &= !(pg::RECLAIM | pg::REFERENCED);
        self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, p);
    }

    /// `add_to_swap()` + `pageout()` of anonymous page `p` isolated by the multi-generational
    /// LRU and its putback ([`Kernel::lru_gen_swap_written`]); returns the pages freed.
    fn lru_gen_swap_out(&mut self, v: usize, p: PageId) -> u64 {
        let written = self.pages[p].test(pg::ANON) && self.swap_writepage(p);
        self.lru_gen_swap_written(v, p, written)
    }

    /// The putback of anonymous page `p` after its swap-out: written, under writeback with
    /// `PG_reclaim` (or freed when zswap stored it); not written, activated into the youngest
    /// generation. Returns the pages freed.
    fn lru_gen_swap_written(&mut self, v: usize, p: PageId, written: bool) -> u64 {
        if written {
            if !self.pages[p].test(pg::WRITEBACK) {
                // Stored by zswap without I/O: clean, freed in this pass.
                return self.free_swapped_page(p);
            }
            self.pages[p].flags |= pg::RECLAIM;
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
        } else {
            self.pages[p].set_refs(0);
            self.pages[p].flags &= !(pg::REFERENCED | pg::WORKINGSET);
            self.pages[p].flags |= pg::ACTIVE;
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
        }
        0
    }

    /// `shrink_folio_list()` of one isolated page under the multi-generational LRU, and its
    /// putback (`move_folios_to_lru()`): a clean file page is evicted (with a shadow entry,
    /// [`Kernel::lru_gen_eviction`]), or with seed 000's `recharge_on_pagecache_get` and limit
    /// reclaim uncharged and put on the root memcg's lruvec, in the generation
    /// `lru_gen_add_folio()` gives it there (the root's second oldest, or oldest); a mapped
    /// anonymous page whose PTE is young is activated (`folio_check_references()`, freeing
    /// its swap-cache copy when swap is getting full); a swap-cache page is freed; another
    /// anonymous page is written to swap and put back
    /// (`PG_reclaim` under writeback: the second youngest generation), or, when it cannot be
    /// (swap full, tmpfs), activated into the youngest. Returns pages reclaimed.
    pub(crate) fn lru_gen_reclaim_folio(&mut self, v: usize, p: PageId, sc: &mut ScanControl) -> u64 {
        if self.pages[p].test(pg::SWAPBACKED) {
            if self.swap_read_pending(p) {
                // Locked for its read: put back.
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveAnon);
                return 0;
            }
            if self.pages[p].test(pg::ANON) && self.anon_folio_referenced_lru_gen(p) {
                // folio_check_references() of a mapped anonymous page with a young PTE:
                // folio_referenced_one() runs lru_gen_look_around(), which marks the isolated
                // page PG_referenced, so it is FOLIOREF_ACTIVATE. activate_locked: "Not a
                // candidate for swapping, so reclaim swap space" when swap is getting full
                // (mem_cgroup_swap_full()) - the swap-cache copy of a page read back goes,
                // its slot freed; the page, PG_active, goes back into the youngest generation
                // (evict_folios(): set_mask_bits(LRU_REFS_MASK | LRU_REFS_FLAGS, PG_active)),
                // counted in pgactivate.
                if self.pages[p].test(pg::SWAPCACHE) && self.mem_cgroup_swap_full(self.pages[p].memcg) {
                    self.folio_free_swap(p);
                }
                let memcg = self.pages[p].memcg;
                let page = &mut self.pages[p];
                page.set_refs(0);
                page.flags &= !(pg::REFERENCED | pg::WORKINGSET);
                page.flags |= pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
                self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, 1);
                self.vmstat.count(VmEvent::Pgactivate, 1);
                return 0;
            }
            if self.pages[p].test(pg::SWAPCACHE) {
                return self.free_swapped_page(p);
            }
            if !self.pages[p].test(pg::ANON) {
                return self.lru_gen_swap_out(v, p);
            }
            let res = self.swap_writepage_res(p);
            if res == crate::swapfile::SwapOut::NoSlot && self.pages[p].test(pg::HEAD) && self.thp_swap_fallback(p) {
                // add_to_swap() of a THP failed: split it and swap the head, then the tails
                // the split put on the list (the engine takes them right after the head, not
                // after the batch's other pages), each alone.
                let mut tails = Vec::new();
                self.split_huge_page_to_list(p, &mut tails);
                let mut reclaimed = self.lru_gen_swap_out(v, p);
                for q in tails {
                    reclaimed += self.lru_gen_swap_out(v, q);
                }
                return reclaimed;
            }
            return self.lru_gen_swap_written(v, p, res == crate::swapfile::SwapOut::Written);
        }
        if self.pages[p].mapcount > 0 {
            // shrink_folio_list()'s folio_check_references() of a mapped page: with the
            // multi-generational LRU a young PTE starts the look-around
            // (folio_referenced_one() -> lru_gen_look_around()), which marks the isolated
            // page PG_referenced, so one young PTE activates it; a page kept or activated
            // goes back with PG_active into the youngest generation (evict_folios(): "don't
            // add rejected folios to the oldest generation", set_mask_bits(LRU_REFS_MASK |
            // LRU_REFS_FLAGS, PG_active)); one without a young PTE is unmapped and reclaimed.
            match self.folio_check_references(p) {
                FolioRef::Activate | FolioRef::Keep => {
                    let memcg = self.pages[p].memcg;
                    let page = &mut self.pages[p];
                    page.set_refs(0);
                    page.flags &= !(pg::REFERENCED | pg::WORKINGSET);
                    page.flags |= pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
                    // shrink_folio_list()'s activate_locked: `stat->nr_activate[type] += nr_pages`
                    // (6.1), a large mapped folio's pages.
                    let nr = self.pages.folio_nr_pages(p);
                    self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr);
                    self.vmstat.count(VmEvent::Pgactivate, nr);
                    return 0;
                }
                FolioRef::Unevictable => {
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::Unevictable);
                    return 0;
                }
                FolioRef::Reclaim => self.try_to_unmap(p),
            }
        }
        self.pages[p].flags &= !pg::READAHEAD;
        let keep_in_cache = self.policies.recharge_on_pagecache_get && sc.cgroup_reclaim;
        if keep_in_cache && self.pages[p].memcg != MemcgId::NONE && self.pages[p].memcg != MemcgId::ROOT {
            if self.pages[p].test(pg::HEAD) {
                self.mem_cgroup_uncharge_folio(p);
            } else {
                self.mem_cgroup_uncharge(p);
            }
            let root = self.folio_lruvec(p);
            self.lruvecs[root].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
        } else {
            self.evict(p, sc.target);
        }
        1
    }

    /// `folio_referenced()` (mm/rmap.c, 6.1) of isolated anonymous page `p` under the
    /// multi-generational LRU: the PTE of the VMA that maps it (its anonymous VMA, or the file
    /// VMA of a private copy; an unmapped swap-cache page has none) is young: then
    /// `folio_referenced_one()` runs [`Kernel::lru_gen_look_around`] around it (clearing it
    /// and its young neighbours) and reports one reference. Returns whether it was young.
    pub(crate) fn anon_folio_referenced_lru_gen(&mut self, p: PageId) -> bool {
        let (vi, i) = (self.pages[p].mapping.0 as usize, self.pages[p].index);
        let young = match self.vmas.get(vi) {
            Some(vm) if vm.live && vm.pages.get(i as usize) == Some(&p) => vm.pte_young(i),
            _ => false,
        };
        if !young {
            return false;
        }
        self.cpu(self.cost.scan_page);
        self.lru_gen_look_around(VmaId(vi as u32), i, p);
        // ptep_clear_flush_young_notify() after the look-around finds the PTE old; a huge
        // page's PMD is cleared by pmdp_clear_flush_young_notify().
        self.vmas[vi].pte_mkold(i);
        true
    }

    /// `lru_gen_look_around()` (mm/vmscan.c, 6.1), called by `folio_referenced_one()` for a
    /// young PTE of a mapping that is neither `VM_SEQ_READ` nor `VM_RAND_READ`: scan the PTEs
    /// around page `i` of `vma` - its PMD's, at most `MIN_LRU_BATCH` of them centred on it -
    /// clear the young ones whose page is on the same lruvec (`get_pfn_folio()`: same memcg
    /// and node; a private copy only when anonymous pages can be swapped), mark the isolated
    /// ones `PG_referenced` and promote the others to the youngest generation. Without a
    /// page-table walker of its own (direct reclaim before its first aging) and fewer than
    /// `PAGEVEC_SIZE` to promote, each is activated (`folio_activate()`: counted in
    /// pgactivate, refs kept); else their generation is updated in place
    /// (`folio_update_gen()`: refs, `PG_referenced` and `PG_workingset` cleared). The VMA is
    /// taken to start on a PMD boundary (the engine has no virtual addresses). Returns the
    /// young PTEs cleared (page `i`'s among them).
    pub fn lru_gen_look_around(&mut self, vma: VmaId, i: u32, p: PageId) -> u32 {
        let v = self.folio_lruvec(p);
        let vi = vma.0 as usize;
        let len = self.vmas[vi].pages.len() as u32;
        let ptrs = PAGEBLOCK_NR as u32;
        let batch = MIN_LRU_BATCH as u32;
        let mut start = i & !(ptrs - 1);
        let mut end = (i | (ptrs - 1)).min(len - 1) + 1;
        if end - start > batch {
            if i - start < batch / 2 {
                end = start + batch;
            } else if end - i < batch / 2 {
                start = end - batch;
            } else {
                start = i - batch / 2;
                end = i + batch / 2;
            }
        }
        // get_swappiness() of the page's memcg (`walk->can_swap`, set by the aging).
        let memcg = match self.pages[p].memcg {
            MemcgId::NONE => MemcgId::ROOT,
            m => m,
        };
        let can_swap = !self.lru_gen_mm_walk || self.lru_gen_swappiness(memcg) != 0;
        let max_seq = self.lruvecs[v].lrugen.max_seq;
        let new_gen = lru_gen_from_seq(max_seq);
        let mut young = 0u32;
        let mut promote = [PageId::NIL; MIN_LRU_BATCH as usize];
        let mut nr_promote = 0;
        for k in start..end {
            let Some(q) = self.young_pte_folio(vi, k, v, can_swap) else { continue };
            self.vmas[vi].pte_mkold(k);
            young += 1;
            if !self.pages[q].test(pg::LRU) {
                self.pages[q].flags |= pg::REFERENCED;
            } else if list_gen(self.pages[q].lru() as usize) != new_gen {
                promote[nr_promote] = q;
                nr_promote += 1;
            }
        }
        self.cpu(self.cost.scan_page * (end - start) as u64);
        let memcg = self.pages[p].memcg;
        let activate = !self.lru_gen_mm_walk && nr_promote < PAGEVEC_SIZE;
        for &q in &promote[..nr_promote] {
            if activate {
                let ty = page_type(&self.pages[q]);
                self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, q);
                self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, q, gen_list(new_gen, ty));
            } else {
                self.folio_update_gen(v, q, new_gen);
            }
        }
        if activate && nr_promote > 0 {
            self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, nr_promote as u64);
            self.vmstat.count(VmEvent::Pgactivate, nr_promote as u64);
        }
        young
    }

    /// `lru_gen_age_node()` + `age_lruvec()` (mm/vmscan.c, 6.1), run by kswapd's
    /// `balance_pgdat()` before it shrinks the node at each priority. Skipped, once, when
    /// `sc->memcgs_need_aging` is clear (the eviction since the last call reclaimed
    /// `MIN_LRU_BATCH` without needing aging; a new `balance_pgdat()` starts clear): the flag
    /// is set again. Otherwise every memcg's lruvec on the node that is not below memory.min
    /// (`mem_cgroup_below_min()`: `emin >= usage`, so an empty memcg too) is aged when it needs
    /// it (`should_run_aging()`), except, with `min_ttl_ms` set, one whose oldest file
    /// generation is younger than `min_ttl_ms`, or whose size at this priority is 0 below
    /// `DEF_PRIORITY` ("likely too small to be helpful"). When `min_ttl_ms` is set and no
    /// lruvec passed, the OOM killer is invoked (`out_of_memory()`, oom_kill.rs; kswapd
    /// reclaims for order 0 here, so "the order to exclude compaction-induced reclaim" always
    /// passes); each invocation counts in the root lruvec's `min_ttl_ooms`.
    pub fn lru_gen_age_node(&mut self, nid: u32, sc: &ScanControl) {
        let min_ttl = self.profile.lru_gen_min_ttl_ms * 1_000_000;
        if !self.nodes[nid as usize].lru_gen_memcgs_need_aging {
            self.nodes[nid as usize].lru_gen_memcgs_need_aging = true;
            return;
        }
        let mut list = std::mem::take(&mut self.scratch_memcgs);
        self.memcgs.calculate_protection(MemcgId::ROOT, &mut list);
        // set_mm_walk(pgdat) .. clear_mm_walk()
        self.lru_gen_mm_walk = true;
        let mut success = false;
        for &m in &list {
            // mem_cgroup_below_min() (include/linux/memcontrol.h, 6.1): not the root
            // (mem_cgroup_supports_protection()), else emin >= usage.
            let c = &self.memcgs.get(m).counter;
            if m != MemcgId::ROOT && c.emin >= c.usage {
                continue;
            }
            let swappiness = self.lru_gen_swappiness(m);
            let v = self.lruvec_idx(m, nid);
            let online = self.memcgs.get(m).state == crate::memcontrol::MemcgState::Online;
            let (need_aging, nr_to_scan) = self.should_run_aging(v, swappiness != 0, sc.priority, online);
            if min_ttl > 0 {
                let g = &self.lruvecs[v].lrugen;
                let birth = g.timestamps[lru_gen_from_seq(g.min_seq[LRU_GEN_FILE])];
                if birth + min_ttl > self.now {
                    self.lruvecs[v].lrugen.min_ttl_skips += 1;
                    continue;
                }
                if nr_to_scan == 0 && sc.priority != DEF_PRIORITY {
                    continue;
                }
            }
            if need_aging {
                let max_seq = self.lruvecs[v].lrugen.max_seq;
                self.try_to_inc_max_seq(v, max_seq, swappiness != 0);
            }
            success = true;
        }
        self.scratch_memcgs = list;
        self.lru_gen_mm_walk = false;
        if success || min_ttl == 0 {
            return;
        }
        // "The main goal is to OOM kill if every generation from all memcgs is younger than
        // min_ttl": mutex_trylock(&oom_lock) -> out_of_memory().
        let v = self.lruvec_idx(MemcgId::ROOT, nid);
        self.lruvecs[v].lrugen.min_ttl_ooms += 1;
        self.out_of_memory();
    }

    /// Per-generation page counts of `memcg` on all nodes, oldest first, as
    /// /sys/kernel/debug/lru_gen shows them: (seq, age in ns, anon pages, file pages).
    pub fn lru_gen_generations(&self, memcg: MemcgId) -> Vec<(u64, Nanos, u64, u64)> {
        let mut out = vec![];
        for nid in 0..self.nr_nodes {
            let lv = &self.lruvecs[self.lruvec_idx(memcg, nid)];
            let g = &lv.lrugen;
            if !g.enabled {
                continue;
            }
            let first = g.min_seq[0].min(g.min_seq[1]);
            for seq in first..=g.max_seq {
                let gen = lru_gen_from_seq(seq);
                let anon = if seq >= g.min_seq[0] { lv.lists[gen_list(gen, LRU_GEN_ANON)].pages } else { 0 };
                let file = if seq >= g.min_seq[1] { lv.lists[gen_list(gen, LRU_GEN_FILE)].pages } else { 0 };
                out.push((seq, self.now.saturating_sub(g.timestamps[gen]), anon, file));
            }
        }
        out
    }
}

/// `get_random_u32_below(ceil)` (include/linux/random.h): the engine's stand-in, one
/// xorshift64 step of `state` (the kernel's numbers are random; the engine's repeat run to
/// run, seeded per boot by [`memcg_lru_rand_seed`]).
#[inline]
pub fn get_random_u32_below(state: &mut u64, ceil: u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x % ceil
}

/// The memcg LRU for global reclaim and the 6.3+ eviction path (mm/vmscan.c, "memcg LRU").
impl Kernel {
    /// `get_random_u32_below(MEMCG_NR_BINS)`: a bin (xorshift64 standing for the kernel's
    /// random numbers; reproducible run to run).
    fn memcg_lru_random_bin(&mut self) -> usize {
        get_random_u32_below(&mut self.memcg_lru_rand, MEMCG_NR_BINS as u64) as usize
    }

    /// `hlist_nulls_del_rcu(&lruvec->lrugen.list)` from its bin.
    fn memcg_lru_unlink(&mut self, v: usize) {
        let nid = v % self.nr_nodes as usize;
        let g = &self.lruvecs[v].lrugen;
        let (gen, bin, prev, next) = (g.memcg_gen as usize, g.memcg_bin as usize, g.memcg_prev, g.memcg_next);
        if prev != NIL_LRUVEC {
            self.lruvecs[prev as usize].lrugen.memcg_next = next;
        } else {
            self.memcg_lru[nid].fifo[gen][bin].0 = next;
        }
        if next != NIL_LRUVEC {
            self.lruvecs[next as usize].lrugen.memcg_prev = prev;
        } else {
            self.memcg_lru[nid].fifo[gen][bin].1 = prev;
        }
        let g = &mut self.lruvecs[v].lrugen;
        g.memcg_prev = NIL_LRUVEC;
        g.memcg_next = NIL_LRUVEC;
        g.memcg_listed = false;
    }

    /// `hlist_nulls_add_head_rcu()` / `hlist_nulls_add_tail_rcu()` of lruvec `v` to
    /// `fifo[gen][bin]`.
    fn memcg_lru_link(&mut self, v: usize, gen: usize, bin: usize, head: bool) {
        let nid = v % self.nr_nodes as usize;
        let (h, t) = self.memcg_lru[nid].fifo[gen][bin];
        let vi = v as u32;
        {
            let g = &mut self.lruvecs[v].lrugen;
            g.memcg_gen = gen as u8;
            g.memcg_bin = bin as u8;
            g.memcg_listed = true;
            if head {
                g.memcg_prev = NIL_LRUVEC;
                g.memcg_next = h;
            } else {
                g.memcg_prev = t;
                g.memcg_next = NIL_LRUVEC;
            }
        }
        let f = &mut self.memcg_lru[nid].fifo[gen][bin];
        if head {
            if h != NIL_LRUVEC {
                self.lruvecs[h as usize].lrugen.memcg_prev = vi;
            } else {
                f.1 = vi;
            }
            f.0 = vi;
        } else {
            if t != NIL_LRUVEC {
                self.lruvecs[t as usize].lrugen.memcg_next = vi;
            } else {
                f.0 = vi;
            }
            f.1 = vi;
        }
    }

    /// `lru_gen_rotate_memcg()` (mm/vmscan.c, 6.3+): move lruvec `v` by `op` - to the head
    /// (`Head`) or tail (`Tail`) of a random bin of its generation, setting its segment; to the
    /// head of a random bin of the old generation (`Old`) or the tail of one of the young
    /// generation (`Young`), segment default. When the generation it left was the old one and
    /// is now empty, the node's `seq` moves on (the young generation becomes the old).
    pub fn lru_gen_rotate_memcg(&mut self, v: usize, op: MemcgLruOp) {
        if !self.lruvecs[v].lrugen.memcg_listed {
            return;
        }
        let nid = v % self.nr_nodes as usize;
        let bin = self.memcg_lru_random_bin();
        let seq = self.memcg_lru[nid].seq;
        let old = self.lruvecs[v].lrugen.memcg_gen as usize;
        let (seg, new) = match op {
            MemcgLruOp::Head => (MemcgLruOp::Head as u8, old),
            MemcgLruOp::Tail => (MemcgLruOp::Tail as u8, old),
            MemcgLruOp::Old => (0, get_memcg_gen(seq)),
            MemcgLruOp::Young => (0, get_memcg_gen(seq + 1)),
            MemcgLruOp::Nop => return,
        };
        self.lruvecs[v].lrugen.memcg_seg = seg;
        self.memcg_lru_unlink(v);
        self.memcg_lru_link(v, new, bin, matches!(op, MemcgLruOp::Head | MemcgLruOp::Old));
        let ml = &mut self.memcg_lru[nid];
        ml.nr_memcgs[old] -= 1;
        ml.nr_memcgs[new] += 1;
        if ml.nr_memcgs[old] == 0 && old == get_memcg_gen(ml.seq) {
            ml.seq += 1;
        }
    }

    /// `lru_gen_online_memcg()` (6.3+): the memcg's lruvec on each node joins the tail of a
    /// random bin (one bin for all nodes) of the old generation. A no-op unless the profile
    /// has the memcg LRU and lru_gen.
    pub fn lru_gen_online_memcg(&mut self, m: MemcgId) {
        if !(self.profile.lru_gen && self.profile.lru_gen_memcg_lru) {
            return;
        }
        if self.memcg_lru.len() < self.nr_nodes as usize {
            self.memcg_lru.resize(self.nr_nodes as usize, LruGenMemcg::default());
        }
        let bin = self.memcg_lru_random_bin();
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(m, nid);
            let gen = get_memcg_gen(self.memcg_lru[nid as usize].seq);
            self.memcg_lru_link(v, gen, bin, false);
            self.memcg_lru[nid as usize].nr_memcgs[gen] += 1;
        }
    }

    /// `lru_gen_offline_memcg()` (6.3+): each lruvec to the old generation's head
    /// (`MEMCG_LRU_OLD`), reclaimed first.
    pub fn lru_gen_offline_memcg(&mut self, m: MemcgId) {
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(m, nid);
            self.lru_gen_rotate_memcg(v, MemcgLruOp::Old);
        }
    }

    /// `lru_gen_release_memcg()` (6.3+): the lruvecs leave the memcg LRU; an old generation
    /// left empty moves `seq` on.
    pub fn lru_gen_release_memcg(&mut self, m: MemcgId) {
        for nid in 0..self.nr_nodes {
            let v = self.lruvec_idx(m, nid);
            if !self.lruvecs[v].lrugen.memcg_listed {
                continue;
            }
            let gen = self.lruvecs[v].lrugen.memcg_gen as usize;
            self.memcg_lru_unlink(v);
            let ml = &mut self.memcg_lru[nid as usize];
            ml.nr_memcgs[gen] -= 1;
            if ml.nr_memcgs[gen] == 0 && gen == get_memcg_gen(ml.seq) {
                ml.seq += 1;
            }
        }
    }

    /// `lruvec_is_sizable()` (6.3+): whether the evictable generations hold enough to be
    /// worth reclaiming at this priority (`total >> priority`; all of a dying memcg's).
    pub fn lruvec_is_sizable(&self, memcg: MemcgId, v: usize, sc: &ScanControl) -> bool {
        let can_swap = sc.may_swap && self.lru_gen_swappiness(memcg) != 0;
        let g = &self.lruvecs[v].lrugen;
        let mut total = 0;
        for ty in (!can_swap as usize)..2 {
            for seq in g.min_seq[ty]..=g.max_seq {
                total += self.lruvecs[v].lists[gen_list(lru_gen_from_seq(seq), ty)].pages;
            }
        }
        let online = self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Online;
        (if online { total >> sc.priority } else { total }) > 0
    }

    /// `get_nr_to_scan()` (6.3+): -1 to stop and rotate this lruvec (below memory.min, or it
    /// was low on cold pages and has just been aged, `try_to_inc_max_seq()`), else the pages
    /// to scan (`total >> priority`, all of a dying memcg's; 0 when no generation can be
    /// evicted at `DEF_PRIORITY`, where it does not age).
    fn lru_gen_get_nr_to_scan_6_3(&mut self, memcg: MemcgId, v: usize, sc: &ScanControl, can_swap: bool) -> i64 {
        if memcg != sc.target && self.memcgs.below_min(memcg) {
            return -1;
        }
        let online = self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Online;
        let (need_aging, nr_to_scan) = self.should_run_aging(v, can_swap, sc.priority, online);
        let g = &self.lruvecs[v].lrugen;
        // "whether this lruvec is completely out of cold folios": nothing to scan.
        let nr_to_scan = if g.min_seq[!can_swap as usize] + MIN_NR_GENS > g.max_seq { 0 } else { nr_to_scan };
        if !need_aging || sc.priority == DEF_PRIORITY {
            return nr_to_scan as i64;
        }
        let max_seq = g.max_seq;
        if self.try_to_inc_max_seq(v, max_seq, can_swap) {
            -1
        } else {
            0
        }
    }

    /// `try_to_shrink_lruvec()` (6.3+): evict batches until `get_nr_to_scan()` pages were
    /// scanned or reclaim may stop (`should_abort_scan()`: global reclaim that met its target;
    /// never memcg reclaim, "to ensure fairness"). Returns whether the lruvec should be
    /// rotated (`get_nr_to_scan()` said -1).
    fn try_to_shrink_lruvec(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) -> bool {
        let swappiness = if sc.may_swap { self.lru_gen_swappiness(memcg) } else { 0 };
        // kswapd going on with a pass it stopped in this lruvec: from the pages scanned then.
        let mut scanned = sc.kswapd_resume_scanned.take().unwrap_or(0);
        loop {
            let nr_to_scan = self.lru_gen_get_nr_to_scan_6_3(memcg, v, sc, swappiness != 0);
            if nr_to_scan <= 0 {
                return nr_to_scan < 0;
            }
            let delta = self.evict_folios(memcg, v, sc, swappiness);
            if delta == 0 {
                return false;
            }
            scanned += delta;
            if scanned >= nr_to_scan as u64 {
                return false;
            }
            if self.lru_gen_should_abort_scan((v % self.nr_nodes as usize) as u32, sc) {
                return false;
            }
            if self.kswapd_reached_shared_clock(sc) {
                // evict_folios() has freed its batch at kswapd's clock, which is now past the
                // shared one: the rest of the pass waits until the other contexts get there.
                sc.kswapd_stopped_scanned = Some(scanned);
                return false;
            }
        }
    }

    /// Whether kswapd, running a pass of the memcg LRU (6.3+), has reached the shared clock it
    /// is catching up with (`Kernel::kswapd_until`): its pass stops there, after the batch
    /// `evict_folios()` just freed, and goes on at its next catch-up (`Node::kswapd_pass`).
    #[inline]
    fn kswapd_reached_shared_clock(&self, sc: &ScanControl) -> bool {
        sc.kswapd && self.in_kswapd && self.now >= self.kswapd_until
    }

    /// `lru_gen_shrink_lruvec()` (6.3+) of memcg (not root) reclaim: shrink the lruvec with
    /// a walk context of its own, and rotate it to the young generation when it had to age.
    pub(crate) fn lru_gen_shrink_lruvec_6_3(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) {
        self.lru_gen_mm_walk = false;
        // lru_gen_shrink_lruvec() -> "lru_add_drain();" before blk_start_plug().
        self.lru_add_drain();
        if self.try_to_shrink_lruvec(memcg, v, sc) {
            self.lru_gen_rotate_memcg(v, MemcgLruOp::Young);
        }
        self.lru_gen_mm_walk = false;
    }

    /// `shrink_one()` (6.7, "mm/mglru: reclaim offlined memcgs harder"): shrink one memcg's
    /// lruvec for global reclaim and say how to rotate it: young when below memory.min or when
    /// its eviction aged it (and it is online); tail on the first look at a memcg below
    /// memory.low (the second counts `memory.events low` and reclaims); when nothing needed
    /// rotating, stay if it is sizable, else tail once, then young.
    fn shrink_one(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) -> MemcgLruOp {
        // A kswapd pass that stopped inside this lruvec passed these checks before it stopped.
        if sc.kswapd_resume_scanned.is_none() {
            if self.memcgs.below_min(memcg) {
                return MemcgLruOp::Young;
            }
            if self.memcgs.below_low(memcg) {
                if self.lruvecs[v].lrugen.memcg_seg != MemcgLruOp::Tail as u8 {
                    return MemcgLruOp::Tail;
                }
                self.memcgs.count_event(memcg, MemcgEvent::Low, 1);
            }
        }
        let success = self.try_to_shrink_lruvec(memcg, v, sc);
        if sc.kswapd_stopped_scanned.is_some() {
            // kswapd stopped at the shared clock: the rest of this shrink_one() (the slab
            // shrinkers, the rotation) comes when it goes on.
            return MemcgLruOp::Nop;
        }
        // shrink_slab(): the shadow-node shrinker and the superblock shrinkers.
        self.shrink_shadow_nodes(memcg, sc.priority);
        self.shrink_slab_sb(memcg, sc.priority);
        let online = self.memcgs.get(memcg).state == crate::memcontrol::MemcgState::Online;
        if success && online {
            return MemcgLruOp::Young;
        }
        if !success && self.lruvec_is_sizable(memcg, v, sc) {
            return MemcgLruOp::Nop;
        }
        // "one retry if offlined or too small"
        if self.lruvecs[v].lrugen.memcg_seg != MemcgLruOp::Tail as u8 {
            MemcgLruOp::Tail
        } else {
            MemcgLruOp::Young
        }
    }

    /// `shrink_many()` (6.7): from a random bin of the node's old generation, shrink each
    /// memcg in turn (`shrink_one()`), rotating the one just shrunk as it says before going on
    /// to the next (whose place was read before the rotation), until reclaim may stop
    /// (`should_abort_scan()`); then the other bins of that generation in order.
    ///
    /// kswapd's pass stops where its clock reaches the shared clock (`Kernel::kswapd_until`),
    /// inside a memcg's eviction or between two memcgs, and goes on from there at its next
    /// catch-up (`resume`, `Node::kswapd_pass`): the place in the walk is kept, as the
    /// kernel's kswapd, a thread of its own, keeps it while the other CPUs run.
    fn shrink_many(&mut self, nid: u32, sc: &mut ScanControl, resume: Option<KswapdPass>) {
        let n = nid as usize;
        let (gen, first_bin, mut bin, mut start) = match resume {
            Some(p) => (p.gen as usize, p.first_bin as usize, p.bin as usize, p.lruvec),
            None => {
                let first_bin = self.memcg_lru_random_bin();
                (get_memcg_gen(self.memcg_lru[n].seq), first_bin, first_bin, NIL_LRUVEC)
            }
        };
        loop {
            let mut cur = self.memcg_lru[n].fifo[gen][bin].0;
            if start != NIL_LRUVEC {
                // Where the stopped pass was, if that lruvec is still in this bin (else the
                // bin from its head, as the kernel restarts a walk that raced with a rotation).
                let g = &self.lruvecs[start as usize].lrugen;
                if g.memcg_listed && g.memcg_gen as usize == gen && g.memcg_bin as usize == bin {
                    cur = start;
                } else {
                    sc.kswapd_resume_scanned = None;
                }
                start = NIL_LRUVEC;
            }
            while cur != NIL_LRUVEC {
                let v = cur as usize;
                let next = self.lruvecs[v].lrugen.memcg_next;
                if self.lruvecs[v].lrugen.memcg_gen as usize != gen {
                    cur = next;
                    continue;
                }
                let memcg = MemcgId((v / self.nr_nodes as usize) as u32);
                let op = self.shrink_one(memcg, v, sc);
                sc.kswapd_resume_scanned = None;
                if let Some(scanned) = sc.kswapd_stopped_scanned.take() {
                    self.nodes[n].kswapd_pass = Some(KswapdPass::at(sc, gen, first_bin, bin, v as u32, scanned));
                    return;
                }
                self.lru_gen_rotate_memcg(v, op);
                if self.lru_gen_should_abort_scan(nid, sc) {
                    return;
                }
                if next != NIL_LRUVEC && self.kswapd_reached_shared_clock(sc) {
                    self.nodes[n].kswapd_pass = Some(KswapdPass::at(sc, gen, first_bin, bin, next, 0));
                    return;
                }
                cur = next;
            }
            bin = (bin + 1) % MEMCG_NR_BINS;
            if bin == first_bin {
                return;
            }
        }
    }

    /// `should_abort_scan()` (6.3+, mm/vmscan.c): whether global reclaim of node `nid` may stop
    /// walking memcgs and evicting: never for memcg reclaim ("don't abort memcg reclaim to
    /// ensure fairness"); once it reclaimed its goal (`max(nr_to_reclaim,
    /// compact_gap(order))`, order 0 here); and for kswapd once every zone of the node is above
    /// its high watermark plus `MIN_LRU_BATCH` ("kswapd should abort if all eligible zones are
    /// safe").
    fn lru_gen_should_abort_scan(&self, nid: u32, sc: &ScanControl) -> bool {
        if sc.target != MemcgId::ROOT {
            return false;
        }
        // compact_gap(0) = 2 << 0
        if sc.nr_reclaimed >= sc.nr_to_reclaim.max(2) {
            return true;
        }
        if !sc.kswapd {
            return false;
        }
        let zones = &self.nodes[nid as usize].zones;
        // ZONE_DMA, folded into node 0's lowest zone (page_alloc.rs `setup_nodes()`), is an
        // eligible zone at every reclaim_idx: the check is `zone_watermark_ok(zone, 0, high +
        // MIN_LRU_BATCH, sc->reclaim_idx, 0)`, its `lowmem_reserve[reclaim_idx]` included. The
        // fold keeps ZONE_DMA's free frames at that reserve (`Zone::lowmem_held`; the allocator
        // has the rest, as the kernel's falls back to ZONE_DMA down to about its low watermark
        // plus the reserve whenever the zone above is below low): never safe, so kswapd's pass
        // goes on to its goal (`kswapd_nr_to_reclaim()`).
        if zones.iter().any(|&z| self.zones[z].lowmem_held > 0) {
            return false;
        }
        zones.iter().all(|&z| self.zones[z].free > self.zones[z].wmark_high + MIN_LRU_BATCH)
    }

    /// `kswapd_shrink_node()`'s goal for node `nid`: the sum over its zones of the high
    /// watermark, at least `SWAP_CLUSTER_MAX` each.
    pub(crate) fn kswapd_nr_to_reclaim(&self, nid: u32) -> u64 {
        self.nodes[nid as usize].zones.iter().map(|&z| self.zones[z].wmark_high.max(crate::vmscan::SWAP_CLUSTER_MAX)).sum()
    }

    /// `set_initial_priority()` (6.3+, mm/vmscan.c; Debian's 6.12.117): at `DEF_PRIORITY`,
    /// a global reclaim that wants at least `MIN_LRU_BATCH` pages starts at the priority at
    /// which `(total >> priority) * inactive / total` covers its goal: `fls(inactive) - 1 -
    /// fls(nr_to_reclaim - 1)`, clamped to [`DEF_PRIORITY / 2`, `DEF_PRIORITY`]; inactive is
    /// the node's `NR_INACTIVE_FILE` (plus `NR_INACTIVE_ANON` when swap has room), under
    /// lru_gen the pages of every lruvec's generations but the two youngest. kswapd's goal is
    /// `kswapd_shrink_node()`'s, the sum of the node's zones' high watermarks (at least
    /// `SWAP_CLUSTER_MAX` each), not the engine's batch; a direct reclaimer's
    /// (`SWAP_CLUSTER_MAX`) is below `MIN_LRU_BATCH`, so it keeps `DEF_PRIORITY`.
    pub fn set_initial_priority(&self, nid: u32, sc: &mut ScanControl) {
        let nr_to_reclaim = if sc.kswapd { self.kswapd_nr_to_reclaim(nid) } else { sc.nr_to_reclaim };
        if sc.priority != DEF_PRIORITY || nr_to_reclaim < MIN_LRU_BATCH {
            return;
        }
        let root = self.lruvec_idx(MemcgId::ROOT, nid);
        let mut reclaimable = self.lru_stats.gen_inactive(root, LRU_GEN_FILE);
        if self.mem_cgroup_get_nr_swap_pages(MemcgId::ROOT) > 0 {
            reclaimable += self.lru_stats.gen_inactive(root, LRU_GEN_ANON);
        }
        let fls = |x: u64| 64 - x.leading_zeros() as i64;
        let priority = fls(reclaimable) - 1 - fls(nr_to_reclaim - 1);
        sc.priority = priority.clamp(DEF_PRIORITY as i64 / 2, DEF_PRIORITY as i64) as u32;
    }

    /// `lru_gen_shrink_node()` (6.3+): global reclaim of node `nid` through the memcg LRU
    /// (`shrink_many()`), with the protections computed from the root
    /// (`mem_cgroup_calculate_protection()`) and, for kswapd, the node's walk context; kswapd
    /// counts this pass's reclaim from 0 for `should_abort_scan()`, against its
    /// `kswapd_shrink_node()` goal (the zones' high watermarks: a pass walks on to the next
    /// memcg until it has them, where the engine's former 128-page kswapd batch stopped at
    /// the first memcg met).
    pub(crate) fn lru_gen_shrink_node(&mut self, nid: u32, sc: &mut ScanControl) {
        let mut list = std::mem::take(&mut self.scratch_memcgs);
        self.memcgs.calculate_protection(MemcgId::ROOT, &mut list);
        self.scratch_memcgs = list;
        // set_mm_walk(pgdat, sc->proactive): kswapd's walk context; a direct reclaimer gets
        // one at its first aging (try_to_inc_max_seq()).
        self.lru_gen_mm_walk = sc.kswapd;
        self.set_initial_priority(nid, sc);
        let (reclaimed, goal) = (sc.nr_reclaimed, sc.nr_to_reclaim);
        if sc.kswapd {
            sc.nr_reclaimed = 0;
            sc.nr_to_reclaim = self.kswapd_nr_to_reclaim(nid);
        }
        self.shrink_many(nid, sc, None);
        if sc.kswapd {
            sc.nr_reclaimed += reclaimed;
            sc.nr_to_reclaim = goal;
        }
        self.lru_gen_mm_walk = false;
    }

    /// kswapd goes on with the pass of the memcg LRU it stopped at the shared clock
    /// (`Node::kswapd_pass`, 6.3+ `lru_gen_shrink_node()` → `shrink_many()`): at the same
    /// priority, with the pages the pass has reclaimed so far counted against its
    /// `kswapd_shrink_node()` goal, from the memcg (and, inside it, the pages scanned) where
    /// it stopped. The protections and the walk context are the pass's. Returns the pages
    /// reclaimed now.
    pub(crate) fn lru_gen_kswapd_resume(&mut self, nid: u32) -> u64 {
        let Some(pass) = self.nodes[nid as usize].kswapd_pass.take() else { return 0 };
        let mut sc = ScanControl::new(MemcgId::ROOT, self.kswapd_nr_to_reclaim(nid), false, true);
        sc.priority = pass.priority;
        sc.nr_reclaimed = pass.nr_reclaimed;
        sc.nr_scanned = pass.nr_scanned;
        sc.kswapd_resume_scanned = (pass.scanned > 0).then_some(pass.scanned);
        self.lru_gen_mm_walk = true;
        self.shrink_many(nid, &mut sc, Some(pass));
        self.lru_gen_mm_walk = false;
        if self.nodes[nid as usize].kswapd_pass.is_none() {
            // The pass, and with it the balance_pgdat() round, is over.
            self.kswapd_round_end(nid, sc.priority, sc.nr_scanned, sc.nr_reclaimed);
        }
        sc.nr_reclaimed - pass.nr_reclaimed
    }

    /// `should_abort_scan()` and `kswapd_shrink_node()`'s goal for unit tests.
    #[cfg(test)]
    pub(crate) fn should_abort_scan_for_test(&self, nid: u32, sc: &ScanControl) -> (bool, u64) {
        (self.lru_gen_should_abort_scan(nid, sc), self.kswapd_nr_to_reclaim(nid))
    }

    /// `shrink_one()` for unit tests.
    #[cfg(test)]
    pub(crate) fn shrink_one_for_test(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) -> MemcgLruOp {
        self.shrink_one(memcg, v, sc)
    }

    /// One `shrink_node()` of global reclaim at `sc.priority`, for unit tests: through the
    /// memcg LRU (6.3+) or every memcg (`shrink_node_memcgs()`).
    #[cfg(test)]
    pub(crate) fn nr_reclaimed_for_test(&mut self, sc: &mut ScanControl) {
        if self.profile.lru_gen_memcg_lru {
            self.lru_gen_shrink_node(0, sc);
        } else {
            self.shrink_node_memcgs_for_test(sc);
        }
    }

    /// `lru_gen_age_node()` (6.3+): kswapd no longer ages here (the eviction path does);
    /// with `min_ttl_ms` set, below `DEF_PRIORITY`, it looks for a memcg whose oldest file
    /// generation is older than min_ttl_ms, sizable and not below memory.min
    /// (`lruvec_is_reclaimable()`), and invokes the OOM killer when there is none.
    pub(crate) fn lru_gen_age_node_6_3(&mut self, nid: u32, sc: &ScanControl) {
        let min_ttl = self.profile.lru_gen_min_ttl_ms * 1_000_000;
        if min_ttl == 0 || sc.priority == DEF_PRIORITY {
            return;
        }
        let mut list = std::mem::take(&mut self.scratch_memcgs);
        self.memcgs.calculate_protection(MemcgId::ROOT, &mut list);
        let mut reclaimable = false;
        for &m in &list {
            let v = self.lruvec_idx(m, nid);
            let g = &self.lruvecs[v].lrugen;
            let birth = g.timestamps[lru_gen_from_seq(g.min_seq[LRU_GEN_FILE])];
            if birth + min_ttl > self.now {
                self.lruvecs[v].lrugen.min_ttl_skips += 1;
                continue;
            }
            if !self.lruvec_is_sizable(m, v, sc) || self.memcgs.below_min(m) {
                continue;
            }
            reclaimable = true;
            break;
        }
        self.scratch_memcgs = list;
        if reclaimable {
            return;
        }
        let v = self.lruvec_idx(MemcgId::ROOT, nid);
        self.lruvecs[v].lrugen.min_ttl_ooms += 1;
        self.out_of_memory();
    }
}
