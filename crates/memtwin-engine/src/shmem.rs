//! tmpfs huge pages (mm/shmem.c): the `huge=` mount option, the global
//! /sys/kernel/mm/transparent_hugepage/shmem_enabled (its `deny` and `force`), the decision
//! whether a new page of a tmpfs file is a PMD-order folio (`shmem_is_huge()`), and the
//! allocation that tries one and falls back to order 0 (`shmem_get_folio_gfp()`,
//! `shmem_alloc_and_acct_folio()`, `shmem_alloc_hugefolio()`, `shmem_add_to_page_cache()`).
//!
//! Swap-out and swap-in of tmpfs pages (tmpfs21b): reclaim of a tmpfs folio on the anon
//! inactive list (`shrink_folio_list()` -> `pageout()` -> `shmem_writepage()`), which moves it
//! from the page cache to the swap cache and writes it (`folio_alloc_swap()`,
//! `add_to_swap_cache()`, `shmem_delete_from_page_cache()`, `swap_writepage()`), a large folio
//! split first (6.1-6.11) or, from 6.12, written whole where the swap area gives it contiguous
//! slots ([`ShmemSwapOut`]); and a read or write that meets the swap entry
//! (`shmem_swapin_folio()`). The mapping's swap entries are [`ShmemStat::swapped`].

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::swapfile::SWAPPER;
use crate::types::{InodeId, MemcgId, PageId};

/// `HPAGE_PMD_ORDER`: the order of a tmpfs huge folio (2 MiB of 4 KiB pages).
pub const HPAGE_PMD_ORDER: u32 = 9;
/// `HPAGE_PMD_NR`.
pub const HPAGE_PMD_NR: u32 = 1 << HPAGE_PMD_ORDER;

/// `SHMEM_HUGE_*` (mm/shmem.c, 6.1): a tmpfs mount's `huge=` option, or the global
/// `shmem_enabled` knob (whose `deny` and `force` override every mount; its other values
/// apply to the kernel's internal mount, shm_mnt, which no scenario file lives on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShmemHuge {
    /// `SHMEM_HUGE_NEVER` (the default of both).
    #[default]
    Never,
    /// `SHMEM_HUGE_ALWAYS`.
    Always,
    /// `SHMEM_HUGE_WITHIN_SIZE`: huge where the whole huge page lies within `i_size`.
    WithinSize,
    /// `SHMEM_HUGE_ADVISE`: huge only for `madvise(MADV_HUGEPAGE)` mappings (the engine models
    /// no shmem faults, so a tmpfs file written by `write()` is never huge).
    Advise,
    /// `SHMEM_HUGE_DENY` (shmem_enabled only).
    Deny,
    /// `SHMEM_HUGE_FORCE` (shmem_enabled only).
    Force,
}

/// The `huge=` values of a tmpfs mount (`shmem_parse_huge()` via `shmem_param_enums_huge`).
pub const MOUNT_HUGE: &[&str] = &["never", "always", "within_size", "advise"];
/// The values of /sys/kernel/mm/transparent_hugepage/shmem_enabled (`shmem_parse_huge()`).
pub const SHMEM_ENABLED: &[&str] = &["never", "always", "within_size", "advise", "deny", "force"];

impl ShmemHuge {
    /// `shmem_parse_huge()`.
    pub fn parse(s: &str) -> Option<ShmemHuge> {
        Some(match s {
            "never" => ShmemHuge::Never,
            "always" => ShmemHuge::Always,
            "within_size" => ShmemHuge::WithinSize,
            "advise" => ShmemHuge::Advise,
            "deny" => ShmemHuge::Deny,
            "force" => ShmemHuge::Force,
            _ => return None,
        })
    }

    /// `shmem_format_huge()`.
    pub fn name(self) -> &'static str {
        match self {
            ShmemHuge::Never => "never",
            ShmemHuge::Always => "always",
            ShmemHuge::WithinSize => "within_size",
            ShmemHuge::Advise => "advise",
            ShmemHuge::Deny => "deny",
            ShmemHuge::Force => "force",
        }
    }
}

/// The tmpfs huge-page counters: /proc/vmstat's `thp_file_alloc`, `thp_file_fallback`,
/// `thp_file_fallback_charge` (events) and `NR_SHMEM_THPS` (/proc/meminfo `ShmemHugePages`,
/// in pages); memory.stat `shmem_thp` is [`crate::memcontrol::Memcg::nr_shmem_thps`].
#[derive(Clone, Debug, Default)]
pub struct ShmemStat {
    /// `THP_FILE_ALLOC`: huge pages added to a tmpfs file (`shmem_add_to_page_cache()`).
    pub thp_file_alloc: u64,
    /// `THP_FILE_FALLBACK`: a huge page wanted, order 0 taken because the allocation
    /// (`shmem_alloc_hugefolio()`) or the charge (`shmem_add_to_page_cache()`) failed.
    pub thp_file_fallback: u64,
    /// `THP_FILE_FALLBACK_CHARGE`: of those, the charge's.
    pub thp_file_fallback_charge: u64,
    /// `NR_SHMEM_THPS`: pages in tmpfs huge pages in the page cache.
    pub nr_shmem_thps: u64,
    /// Whether the run reports these (a scenario naming a mount's `huge=` or
    /// `[kernel] shmem_enabled`), so that other runs' outputs keep their metrics.
    pub report: bool,
    /// Set by `filemap_add_large_folio_paid()` when a tmpfs folio's charge failed (read and
    /// cleared by [`Kernel::shmem_alloc_large_folio`]).
    pub charge_failed: bool,
    /// Set by `filemap_add_large_folio_paid()` when a tmpfs folio's xarray nodes could not be
    /// had (`xas_nomem()` failed: 6.1 `shmem_add_to_page_cache()` returns the xas error and
    /// counts nothing; read and cleared by [`Kernel::shmem_alloc_large_folio`]).
    pub xa_failed: bool,
    /// `THP_SPLIT_PAGE` of tmpfs huge pages split by reclaim (6.1 `shrink_folio_list()`'s
    /// "Split shmem folio", 6.12+ `shmem_writepage()`'s `try_split`). Other splits (truncation,
    /// the engine's own before single-page paths) are not counted.
    pub thp_split_page: u64,
    /// `THP_SWPOUT`: tmpfs huge pages written to swap whole (`swap_writepage()` ->
    /// `count_swpout_vm_event()`, 6.12+).
    pub thp_swpout: u64,
    /// `THP_SWPOUT_FALLBACK` of tmpfs folios: 0 in every modelled era (6.12's `shmem_writepage()`
    /// splits a folio that got no contiguous slots without counting it; the count in
    /// `shrink_folio_list()` is the anonymous path's). Reported so a recording can show it.
    pub thp_swpout_fallback: u64,
    /// `THP_SPLIT_PMD` of anonymous THPs whose PMD reclaim split to unmap them after
    /// writing them whole (`try_to_unmap(TTU_SPLIT_HUGE_PMD)` -> `__split_huge_pmd_locked()`,
    /// huge_memory.rs [`Kernel::split_huge_pmd_address`]) and of those reclaim split
    /// (`split_huge_page_to_list()` -> `unmap_page()` -> `__split_huge_pmd()`). The PMD splits
    /// of munmap/mprotect/madvise ranges and of tmpfs are not counted.
    pub thp_split_pmd: u64,
    /// `KSM_SWPIN_COPY` (/proc/vmstat `ksm_swpin_copy`, 5.19+): swap-ins that mapped a copy of
    /// the swap-cache page (swapfile.rs `do_swap_page_copy()`, a large folio's subpages
    /// until 6.8).
    pub ksm_swpin_copy: u64,
    /// `MTHP_STAT_SHMEM_ALLOC` of the orders below PMD (hugepages-<size>kB/stats/shmem_alloc
    /// summed over the sizes under 2 MiB; 6.14+ tmpfs folios, [`TmpfsHuge::WriteSize`] and
    /// [`TmpfsHuge::AllOrders`]).
    pub mthp_alloc: u64,
    /// `MTHP_STAT_SHMEM_FALLBACK` of the orders below PMD (their allocation or charge failed).
    pub mthp_fallback: u64,
    /// `MTHP_STAT_SHMEM_FALLBACK_CHARGE` of the orders below PMD.
    pub mthp_fallback_charge: u64,
    /// The gfp [`Kernel::shmem_alloc_large_folio`] gives the charge of its folio where the era
    /// charges with the huge gfp (`LargeFolios::shmem_charge_huge_gfp`), read and cleared by
    /// `filemap_add_large_folio_paid()`.
    pub huge_charge_gfp: Option<crate::memcontrol::ChargeGfp>,
    /// The swap entries tmpfs mappings hold (`swp_to_radix_entry()` in `i_pages` after
    /// `shmem_delete_from_page_cache()`), by (inode, index): the slot. The engine keeps them
    /// beside the xarray: the mapping's node is freed when its last page leaves (the kernel's
    /// holds the value entries, and its slab charge, until they are freed).
    pub swapped: std::collections::BTreeMap<(u32, u32), u32>,
}

/// What reclaim does with a large tmpfs folio (`KernelProfile::large_folios.shmem_swapout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShmemSwapOut {
    /// 6.1-6.11: `shrink_folio_list()` splits any large swap-backed folio that is not
    /// anonymous before `pageout()` ("Split shmem folio": `split_folio_to_list()` onto the
    /// list being reclaimed, `THP_SPLIT_PAGE`), and `shmem_writepage()` swaps base pages out.
    Split,
    /// 6.12-6.13 (809bc86517cc "mm: shmem: support large folio swap out", Baolin Wang):
    /// `shmem_writepage()` swaps a large folio out whole when `folio_alloc_swap()` gets
    /// `1 << order` contiguous slots (`THP_SWPOUT`), which 6.12's `scan_swap_map_slots()` gives
    /// only on a block device with clusters (`SWP_BLKDEV` and `cluster_info`, set up for a
    /// non-rotational device: `SWP_SOLIDSTATE`); otherwise, or when the folio crosses `i_size`,
    /// it splits (`try_split`, `split_huge_page_to_list_to_order(page, wbc->list, 0)`) and
    /// swaps the base pages. Swap-in is order 0 (`shmem_split_large_entry()`).
    WholeNonrot,
    /// 6.14+: as [`ShmemSwapOut::WholeNonrot`], large slots on any block device
    /// (`cluster_alloc_swap_entry()`: "if (order && !(si->flags & SWP_BLKDEV)) return 0", the
    /// HDD path using clusters too); never on a swap file.
    WholeBlkdev,
}

/// What [`Kernel::shrink_shmem_folio`] did with a tmpfs folio reclaim isolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShmemReclaim {
    /// Pages scanned beyond the folio's LRU entry (`isolate_lru_folios()` counts a large
    /// folio's every page; a split folio's tails make their own pass).
    pub extra_scanned: u64,
    /// Pages written out (`nr_pageout`).
    pub pageout: u64,
    /// Pages activated (`activate_locked`: no slot, or the write refused).
    pub activate: u64,
    /// Pages freed in this pass (zswap took them: clean at once).
    pub reclaimed: u64,
}

/// Which tmpfs mounts' `huge=` an era has (`KernelProfile::large_folios.tmpfs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmpfsHuge {
    /// No `huge=` option: before 4.8 (800d8c63b2e9 "shmem: add huge pages support").
    None,
    /// A PMD-order folio or order 0 (`shmem_is_huge()`, 4.8-6.13; 6.11-6.13's
    /// `shmem_allowable_huge_orders()` gives a tmpfs file `BIT(HPAGE_PMD_ORDER)` only, the
    /// per-size `hugepages-*/shmem_enabled` knobs being anonymous shmem's).
    Pmd,
    /// 6.14-6.17 (acd7ccb284b8 "mm: shmem: add large folio support for tmpfs", Baolin Wang):
    /// a `write()`'s folio orders from the write's size (`shmem_huge_global_enabled()`:
    /// `huge=always` -> `shmem_mapping_size_orders(mapping, index, write_end)`,
    /// `huge=within_size` -> those `shmem_get_orders_within_size()` keeps), tried from the
    /// highest down (`shmem_alloc_and_add_folio()`).
    WriteSize,
    /// 6.18 ("mm: shmem: fix the strategy for the tmpfs 'huge=' options", Baolin Wang):
    /// `huge=always` gives every order of `THP_ORDERS_ALL_FILE_DEFAULT` (1..=PMD), PMD first,
    /// `huge=within_size` those whose aligned extent ends within `max(i_size, write_end)`.
    /// Seen on this lab's 6.18 host (2026-12-01, make_host_tmpfs_scenarios.py's probe): a 4 KiB
    /// and a 64 KiB write on a huge=always mount each took a PMD folio.
    AllOrders,
}

/// `THP_ORDERS_ALL_FILE_DEFAULT` (include/linux/huge_mm.h, 6.10+): orders 1 to
/// `MAX_PAGECACHE_ORDER` (9 on x86_64), as a bit mask.
pub const THP_ORDERS_ALL_FILE_DEFAULT: u16 = ((1u32 << (HPAGE_PMD_ORDER + 1)) - 1 - 1) as u16;

/// `highest_order()`: the highest order in mask `orders` (non-zero).
#[inline]
fn highest_order(orders: u16) -> u32 {
    15 - orders.leading_zeros()
}

/// `shmem_mapping_size_orders()` (mm/shmem.c, 6.14-6.17) of the page at `index` for a write
/// ending at byte `write_end`: the write's size from `index` as an order
/// (`filemap_get_order()`: `ilog2(size) - PAGE_SHIFT`, 0 at a page or less), lowered to the
/// index's alignment (`__ffs(index)`) and to `MAX_PAGECACHE_ORDER`; every order up to it
/// (`BIT(order + 1) - 1`), or none.
pub fn shmem_mapping_size_orders(index: u32, write_end: u64) -> u16 {
    let start = index as u64 * crate::types::PAGE_SIZE;
    if write_end <= start {
        return 0;
    }
    let size = write_end - start;
    let shift = 63 - size.leading_zeros();
    if shift <= 12 {
        return 0;
    }
    let mut order = shift - 12;
    if index & ((1u32 << order.min(31)) - 1) != 0 {
        order = index.trailing_zeros();
    }
    let order = order.min(HPAGE_PMD_ORDER);
    if order > 0 { ((1u32 << (order + 1)) - 1) as u16 } else { 0 }
}

/// `shmem_get_orders_within_size()` (mm/shmem.c, 6.14+): of `orders`, from the highest down,
/// the first whose extent holding `index` (`round_up(index + 1, 1 << order)`) ends within
/// `max(write_end, i_size)` rounded up to a page, with every order below it; else none.
pub fn shmem_get_orders_within_size(mut orders: u16, index: u32, write_end: u64, i_size: u64) -> u16 {
    let end = write_end.max(i_size).div_ceil(crate::types::PAGE_SIZE);
    while orders != 0 {
        let order = highest_order(orders);
        let aligned = (index as u64 + 1).next_multiple_of(1u64 << order);
        if end >= aligned {
            return orders;
        }
        orders &= !(1u16 << order);
    }
    0
}

/// The per-size shmem knobs, /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/shmem_enabled
/// (6.10+, mm/shmem.c `thpsize_shmem_enabled_store()`): the orders set to each value, as bit
/// masks (`huge_shmem_orders_always`, `_inherit`, `_madvise`, `_within_size`). They size the
/// folios of anonymous shmem (`shmem_allowable_huge_orders()` past its "Tmpfs huge pages
/// allocation" return); a tmpfs mount's file takes `shmem_huge_global_enabled()`'s orders
/// alone, so no tmpfs path of the engine reads them. Kept per profile as the lab host shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShmemSizeKnobs {
    /// Orders set to `always`.
    pub always: u16,
    /// Orders set to `inherit` (follow the top-level shmem_enabled).
    pub inherit: u16,
    /// Orders set to `advise`.
    pub madvise: u16,
    /// Orders set to `within_size`.
    pub within_size: u16,
}

impl ShmemSizeKnobs {
    /// No per-size knobs (before 6.10).
    pub const NONE: ShmemSizeKnobs = ShmemSizeKnobs { always: 0, inherit: 0, madvise: 0, within_size: 0 };
    /// The kernel's default since 6.10 (mm/shmem.c `shmem_init()`: `huge_shmem_orders_inherit =
    /// BIT(HPAGE_PMD_ORDER)`), the other sizes `never`.
    pub const DEFAULT_6_10: ShmemSizeKnobs = ShmemSizeKnobs { inherit: 1 << HPAGE_PMD_ORDER, ..ShmemSizeKnobs::NONE };
}

impl Kernel {
    /// `shmem_is_huge()` (mm/shmem.c, 6.1; `__shmem_is_huge()`) of a `write()`'s new page at
    /// `index` of tmpfs file `inode` (no VMA: `vma == NULL`, `shmem_huge_force` false): the
    /// global `shmem_enabled`'s `deny` refuses and `force` grants before the mount's `huge=`
    /// is asked; `always` grants; `within_size` grants when the huge page holding `index` ends
    /// within `i_size` (`round_up(index + 1, HPAGE_PMD_NR) <= round_up(i_size, PAGE_SIZE) >>
    /// PAGE_SHIFT`); `advise` needs a `VM_HUGEPAGE` VMA, which a `write()` has not.
    /// Always false on an era without tmpfs huge pages (`TmpfsHuge::None`).
    pub fn shmem_is_huge(&self, inode: InodeId, index: u32) -> bool {
        if self.profile.large_folios.tmpfs == TmpfsHuge::None {
            return false;
        }
        match self.shmem_huge {
            ShmemHuge::Deny => return false,
            ShmemHuge::Force => return true,
            _ => {}
        }
        let ino = &self.inodes[inode.idx()];
        match self.superblocks.get(self.sb_of(inode)).map_or(ShmemHuge::Never, |sb| sb.shmem_huge) {
            ShmemHuge::Always => true,
            ShmemHuge::WithinSize => {
                let end = (index as u64 + 1).next_multiple_of(HPAGE_PMD_NR as u64);
                ino.size.div_ceil(crate::types::PAGE_SIZE) >= end
            }
            _ => false,
        }
    }

    /// The large folio orders `shmem_get_folio_gfp()` may try for a `write()`'s missing page at
    /// `index` of tmpfs file `inode`, the write's chunk ending at byte `write_end`, as a bit mask
    /// (bit n: order n; 0: an order-0 page). Per era ([`TmpfsHuge`]): none before 4.8; 4.8-6.13
    /// the PMD order where [`Kernel::shmem_is_huge`] says so; 6.14+ `shmem_allowable_huge_orders()`
    /// of a file on a tmpfs mount (no VMA; mm/shmem.c 6.18), which is
    /// `shmem_huge_global_enabled()`'s answer alone ("Tmpfs huge pages allocation": the per-size
    /// knobs, [`ShmemSizeKnobs`], are anonymous shmem's): shmem_enabled `deny` none, `force` the
    /// PMD order, else the mount's `huge=`: `always` the era's orders (6.14-6.17
    /// [`shmem_mapping_size_orders`], 6.18 [`THP_ORDERS_ALL_FILE_DEFAULT`]), `within_size` those
    /// [`shmem_get_orders_within_size`] keeps of them (against `max(i_size, write_end)`),
    /// `advise` and `never` none (a `write()` has no `VM_HUGEPAGE` VMA).
    pub fn shmem_huge_orders(&self, inode: InodeId, index: u32, write_end: u64) -> u16 {
        let era = self.profile.large_folios.tmpfs;
        match era {
            TmpfsHuge::None => return 0,
            TmpfsHuge::Pmd => return if self.shmem_is_huge(inode, index) { 1 << HPAGE_PMD_ORDER } else { 0 },
            TmpfsHuge::WriteSize | TmpfsHuge::AllOrders => {}
        }
        match self.shmem_huge {
            ShmemHuge::Deny => return 0,
            ShmemHuge::Force => return 1 << HPAGE_PMD_ORDER,
            _ => {}
        }
        let huge = self.superblocks.get(self.sb_of(inode)).map_or(ShmemHuge::Never, |sb| sb.shmem_huge);
        if !matches!(huge, ShmemHuge::Always | ShmemHuge::WithinSize) {
            return 0;
        }
        // Orders 1 and up (order 0 is the caller's page, shmem_get_folio_gfp()'s last try).
        let all = if era == TmpfsHuge::WriteSize { shmem_mapping_size_orders(index, write_end) & !1 } else { THP_ORDERS_ALL_FILE_DEFAULT };
        if huge == ShmemHuge::Always {
            all
        } else {
            shmem_get_orders_within_size(all, index, write_end, self.inodes[inode.idx()].size)
        }
    }

    /// `shmem_alloc_and_add_folio()` with large `orders` (mm/shmem.c: 6.1's
    /// `shmem_alloc_and_acct_folio(huge)` and `shmem_alloc_hugefolio()`, 6.14+'s order loop,
    /// 6.18 read) for a missing page at `index` of tmpfs file `inode`, charged to `memcg`:
    /// `shmem_suitable_orders()` drops, from the highest, each order whose extent holding
    /// `index` already has an entry (`xa_find(XA_PRESENT)`: a page or a swap entry; 6.1's
    /// `shmem_alloc_hugefolio()` refuses its PMD extent alike, no event); then from the highest
    /// suitable order down a folio is allocated (`shmem_alloc_folio()`, THP defrag's default: no
    /// direct reclaim or compaction): a failed allocation counts `THP_FILE_FALLBACK` (PMD) or
    /// the size's `shmem_fallback` and tries the next order; the folio is charged whole
    /// (`mem_cgroup_charge()` with the mapping's gfp: reclaim allowed): a failed charge counts
    /// `THP_FILE_FALLBACK` and `THP_FILE_FALLBACK_CHARGE` (PMD) or the size's `shmem_fallback`
    /// and `shmem_fallback_charge`, and the caller takes order 0 (the error returned to
    /// `shmem_get_folio_gfp()`); stored in the xarray (`xas_nomem()` for its nodes: failing, no
    /// event, review48 L5; order 0 next), it counts `THP_FILE_ALLOC` and `NR_SHMEM_THPS` (PMD)
    /// or the size's `shmem_alloc`. The folio is swap-backed, on the anon LRU, its pages in
    /// memory.stat `file` and `shmem` (and `shmem_thp` when PMD-sized). `None`: the caller takes
    /// order 0 (`alloc_nohuge`, in the same call: a write resumed inside that order-0 page's
    /// charge makes no second attempt, `generic_perform_write()`, review48 L4).
    pub fn shmem_alloc_large_folio(&mut self, inode: InodeId, index: u32, mut orders: u16, memcg: MemcgId) -> Option<PageId> {
        orders &= !1;
        while orders != 0 {
            let n = 1u32 << highest_order(orders);
            let a = index & !(n - 1);
            // xa_find(XA_PRESENT) finds a swap entry too (tmpfs21b).
            if self.mappings[inode.idx()].next_entry(a, a + n - 1).is_none() && !self.shmem_swap_in_range(inode, a, a + n - 1) {
                break;
            }
            orders &= !(n as u16);
        }
        while orders != 0 {
            let order = highest_order(orders);
            let n = 1u32 << order;
            let pmd = order == HPAGE_PMD_ORDER;
            self.shmem_stat.charge_failed = false;
            self.shmem_stat.xa_failed = false;
            self.shmem_stat.huge_charge_gfp = self.shmem_huge_charge_gfp();
            let added = self.filemap_add_large_folio_paid(inode, index & !(n - 1), order, memcg, true, true);
            self.shmem_stat.huge_charge_gfp = None;
            match added {
                Ok(head) => {
                    if pmd {
                        self.shmem_stat.thp_file_alloc += 1;
                        self.shmem_stat.nr_shmem_thps += n as u64;
                    } else {
                        self.shmem_stat.mthp_alloc += 1;
                    }
                    return Some(head);
                }
                Err(_) => {
                    let charge = std::mem::take(&mut self.shmem_stat.charge_failed);
                    if std::mem::take(&mut self.shmem_stat.xa_failed) {
                        return None;
                    }
                    if pmd {
                        self.shmem_stat.thp_file_fallback += 1;
                        self.shmem_stat.thp_file_fallback_charge += charge as u64;
                    } else {
                        self.shmem_stat.mthp_fallback += 1;
                        self.shmem_stat.mthp_fallback_charge += charge as u64;
                    }
                    if charge {
                        return None;
                    }
                    orders &= !(n as u16);
                }
            }
        }
        None
    }

    /// Whether a `write()` to tmpfs file `inode` calls `shmem_write_begin()` once a folio rather
    /// than once a page: `generic_perform_write()` (mm/filemap.c) hands `write_begin` chunks of
    /// `mapping_max_folio_size()` aligned in the file and copies to the end of the folio it gets,
    /// so a mapping with large folios gets one `shmem_get_folio_gfp(SGP_WRITE)` for each folio a
    /// write touches (its chunks are 2 MiB aligned, the folios naturally aligned within them);
    /// a mapping without them gets one a page (`PAGE_SIZE` chunks). tmpfs mappings have large
    /// folios from 6.14 on a mount with `huge=` other than never (`__shmem_get_inode()`: "if
    /// (sbinfo->huge) mapping_set_large_folios(inode->i_mapping);", acd7ccb284b8 "mm: shmem: add
    /// large folio support for tmpfs", 6.18 read; the eras [`TmpfsHuge::WriteSize`] and
    /// [`TmpfsHuge::AllOrders`]); 4.8-6.13's huge pages were written a page at a time.
    /// `shmem_get_folio_gfp()` (6.1, 6.18) sets `PG_referenced` on the folio it allocates
    /// and calls `folio_mark_accessed()` on one it finds, so a page-at-a-time write activates
    /// a huge page at its second page, a folio-at-a-time one only at a second write (6.18
    /// host-tmpfs-tight-always: `pgactivate` 15,872 = the 31 PMD folios each written by two 1M
    /// writes; tight-within, whose 1M and 64K writes each fill one folio: 9-206).
    pub(crate) fn shmem_write_begin_per_folio(&self, inode: InodeId) -> bool {
        matches!(self.profile.large_folios.tmpfs, TmpfsHuge::WriteSize | TmpfsHuge::AllOrders)
            && self.superblocks.get(self.sb_of(inode)).is_some_and(|sb| sb.shmem_huge != ShmemHuge::Never)
    }

    /// The gfp a large tmpfs folio's charge takes: 4.8-6.6 the mapping's (`shmem_add_to_page_cache()`
    /// charges with `gfp & GFP_RECLAIM_MASK`, reclaim and retries allowed: `None`, the caller's
    /// default); 6.7+ (Hugh Dickins' "shmem: move memcg charge out of shmem_add_to_page_cache()",
    /// 6.12 and 6.18 read) `shmem_alloc_and_add_folio()` charges with the gfp it allocated by,
    /// `limit_gfp_mask(vma_thp_gfp_mask(NULL), gfp)`: THP defrag `madvise` (the default) gives
    /// `GFP_TRANSHUGE_LIGHT`, no `__GFP_DIRECT_RECLAIM`, so a charge over the limit fails at once
    /// ([`crate::memcontrol::ChargeGfp::NoBlock`]); defrag `always` gives `GFP_TRANSHUGE |
    /// __GFP_NORETRY` (one reclaim round, [`crate::memcontrol::ChargeGfp::NoRetry`]).
    pub(crate) fn shmem_huge_charge_gfp(&self) -> Option<crate::memcontrol::ChargeGfp> {
        if !self.profile.large_folios.shmem_charge_huge_gfp {
            return None;
        }
        Some(if self.profile.thp_defrag_madvise { crate::memcontrol::ChargeGfp::NoBlock } else { crate::memcontrol::ChargeGfp::NoRetry })
    }

    /// `__split_huge_page()`'s `NR_SHMEM_THPS` of a tmpfs huge page split in place (its
    /// pages stay in the page cache, shmem, charged).
    pub(crate) fn shmem_thp_unaccount(&mut self, head: PageId, n: u64) {
        self.shmem_stat.nr_shmem_thps -= n;
        let memcg = self.pages[head].memcg;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_shmem_thps -= n;
        }
    }

    /// `shrink_folio_list()` of the tmpfs folio `p` (swap-backed, not anonymous) that
    /// [`Kernel::shrink_inactive_anon`] took off lruvec `v`'s inactive list, reclaiming for
    /// `target` (mm/vmscan.c, 6.1; 6.12 read for the whole swap-out): `folio_check_references()`
    /// returns `FOLIOREF_RECLAIM` for an unmapped tmpfs folio whatever its `PG_referenced`
    /// (cleared: "if (referenced_folio && folio_is_file_lru(folio)) return
    /// FOLIOREF_RECLAIM_CLEAN" is the file LRU's), and it is dirty (written by `write()`), so
    /// `pageout()` calls `shmem_writepage()` ([`Kernel::shmem_writepage`]) with `PG_reclaim` set.
    /// A large folio is split or written whole per [`ShmemSwapOut`]. A page that got no slot
    /// (swap full, memory.swap.max) is activated (`AOP_WRITEPAGE_ACTIVATE` -> `PAGE_ACTIVATE`);
    /// one under its swap write goes back to the inactive list (`keep`), to be freed when
    /// reclaim meets it clean (`__remove_mapping()` of a swap-cache folio); one zswap took is
    /// freed now. A mapped tmpfs page (no scenario maps one) is activated, its unmap not
    /// modelled.
    pub(crate) fn shrink_shmem_folio(&mut self, p: PageId, v: usize, target: MemcgId) -> ShmemReclaim {
        let mut r = ShmemReclaim::default();
        // Taken from the inactive list: PG_active is clear (a caller that took it elsewhere,
        // a unit test, deactivates it here).
        self.pages[p].flags &= !(pg::REFERENCED | pg::ACTIVE);
        let nr = self.pages.folio_nr_pages(p);
        // isolate_lru_folios(): "scan += nr_pages", the folio's every page scanned.
        r.extra_scanned = nr - 1;
        if self.pages[p].mapcount > 0 || self.swap.is_none() {
            self.pages[p].flags |= pg::ACTIVE;
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::ActiveAnon);
            r.activate += nr;
            return r;
        }
        if nr > 1 {
            if self.profile.large_folios.shmem_swapout != ShmemSwapOut::Split && self.shmem_swapout_whole(p) {
                r.pageout += nr;
                for i in 0..nr as u32 {
                    let q = PageId(p.0 + i);
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::InactiveAnon);
                }
                return r;
            }
            // 6.1: split_folio_to_list() in shrink_folio_list(); 6.12: shmem_writepage()'s
            // try_split. Either way THP_SPLIT_PAGE of a PMD-sized folio (6.18
            // __folio_split(): `is_thp`, folio_test_pmd_mappable()), the tails on the list
            // being reclaimed, each making its own pass (nr_scanned: the folio's nr less the head's).
            if nr == HPAGE_PMD_NR as u64 {
                self.shmem_stat.thp_split_page += 1;
            }
            self.split_folio(p);
        }
        // The pages under their swap write stay isolated until the batch is put back
        // (shrink_inactive_list()'s move_folios_to_lru() after shrink_folio_list()): a write
        // the plug dispatched meanwhile (blk_add_rq_to_plug()'s flush) and that completed ends
        // with the page off the LRU, so folio_end_writeback() clears PG_reclaim without
        // folio_rotate_reclaimable() (which needs folio_test_lru()), and the page goes back to
        // the inactive head, not its tail.
        let mut kept = 0u32;
        for i in 0..nr as u32 {
            let q = PageId(p.0 + i);
            if i > 0 {
                self.cpu(self.cost.scan_page);
                self.pages[q].flags &= !pg::REFERENCED;
            }
            match self.shmem_writepage(q) {
                Some(true) if nr > 1 => {
                    r.pageout += 1;
                    kept += 1;
                }
                Some(true) => {
                    r.pageout += 1;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::InactiveAnon);
                }
                Some(false) => {
                    // zswap took it (swap_writepage(): writeback started and ended): clean in
                    // the swap cache, freed in this pass.
                    r.pageout += 1;
                    r.reclaimed += self.free_swapped_page_shadow(q, Some(target));
                }
                None => {
                    self.pages[q].flags |= pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::ActiveAnon);
                    r.activate += 1;
                }
            }
        }
        if kept > 0 {
            self.shmem_putback_written(p, nr as u32, v);
        }
        r
    }

    /// The put-back of the pages of split tmpfs folio `head..head + nr` that reclaim wrote:
    /// the swap writes completed by now end off the LRU (`folio_end_writeback()`:
    /// `PG_reclaim` cleared, no rotation), then each written page goes to the inactive list
    /// (a completion after this rotates it as usual).
    fn shmem_putback_written(&mut self, head: PageId, nr: u32, v: usize) {
        self.swap_end_io();
        for i in 0..nr {
            let q = PageId(head.0 + i);
            let f = self.pages[q].flags;
            if f & pg::LRU != 0 || f & pg::SWAPCACHE == 0 || self.pages[q].mapping != SWAPPER || self.folio_in_lru_batch(q) {
                continue;
            }
            if f & pg::WRITEBACK == 0 {
                self.pages[q].flags &= !pg::RECLAIM;
            }
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, q, LruList::InactiveAnon);
        }
    }

    /// Whether the area can take a large tmpfs folio whole ([`ShmemSwapOut`]): a block
    /// device (`SWP_BLKDEV`), non-rotational on 6.12-6.13 (`cluster_info`); a swap file makes
    /// `shmem_writepage()` (6.16+ `shmem_writeout()`) split it (`try_split`).
    fn shmem_swap_large_ok(&self) -> bool {
        let Some(a) = self.swap.as_ref() else { return false };
        match self.profile.large_folios.shmem_swapout {
            ShmemSwapOut::Split => false,
            ShmemSwapOut::WholeNonrot => a.blkdev && a.solidstate,
            ShmemSwapOut::WholeBlkdev => a.blkdev,
        }
    }

    /// 6.12+ `shmem_writepage()` of the large tmpfs folio `head` whole: a folio within
    /// `i_size` (one crossing it splits: "shrinkage of pages beyond i_size does not split
    /// swap") gets `1 << order` contiguous slots (`folio_alloc_swap()` -> `get_swap_pages(1,
    /// &entry, order)`, no slots cache; `mem_cgroup_try_charge_swap()` of them all on v2), goes
    /// to the swap cache (`shmem_delete_from_page_cache()`: `NR_SHMEM_THPS`, `NR_SHMEM`,
    /// `NR_FILE_PAGES` less `nr`) and is written as one request (`THP_SWPOUT`, `pswpout` `nr`).
    /// The engine holds the swap-cache folio as `nr` base pages (an unmapped swap-cache page is
    /// order 0 in the engine), each under the write, freed as reclaim meets them. zswap is not
    /// asked (6.12's `zswap_store()` refuses a large folio; 6.13+'s stores it: not modelled).
    /// False: no contiguous slots (or the charge failed); the caller splits.
    fn shmem_swapout_whole(&mut self, head: PageId) -> bool {
        if !self.shmem_swap_large_ok() {
            return false;
        }
        let nr = self.pages.folio_nr_pages(head);
        let (inode, index) = (self.pages[head].mapping, self.pages[head].index);
        let isize_pages = self.inodes[inode.idx()].size.div_ceil(crate::types::PAGE_SIZE);
        if isize_pages > index as u64 && isize_pages < index as u64 + nr {
            return false;
        }
        let memcg = self.pages[head].memcg;
        let Some(slot) = self.folio_alloc_swap(nr, memcg) else { return false };
        if self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && memcg != MemcgId::NONE {
            if let Some(over) = self.memcgs.try_charge_swap(memcg, nr) {
                self.put_swap_folio(slot, nr);
                self.memcg_memory_event(over, crate::memcontrol::MemcgEvent::SwapMax);
                self.memcg_memory_event(memcg, crate::memcontrol::MemcgEvent::SwapFail);
                return false;
            }
        }
        // The folio stays whole in the kernel; the engine's swap cache holds base pages. The
        // split here is no THP_SPLIT_PAGE; its NR_SHMEM_THPS is shmem_update_stats(-nr)'s.
        self.split_folio(head);
        // count_swpout_vm_event(): THP_SWPOUT of a PMD-sized folio (the size's swpout else).
        if nr == HPAGE_PMD_NR as u64 {
            self.shmem_stat.thp_swpout += 1;
        }
        for i in 0..nr as u32 {
            let q = PageId(head.0 + i);
            self.shmem_delete_from_page_cache(q, slot + i);
            self.swap_submit_write(q, slot + i, 1);
        }
        true
    }

    /// `shmem_writepage()` (mm/shmem.c, 6.1) of the order-0 tmpfs page `p`: redirtied
    /// (`None`: `AOP_WRITEPAGE_ACTIVATE`) without a swap area or when `folio_alloc_swap()`
    /// gets no slot (swap full, or v2's `mem_cgroup_try_charge_swap()` over memory.swap.max:
    /// memory.swap.events `max` and `fail`); else the page moves to the swap cache
    /// ([`Kernel::shmem_delete_from_page_cache`]) and `swap_writepage()` stores it in zswap
    /// (`Some(false)`: clean, not under writeback) or submits its write (`Some(true)`:
    /// `PG_writeback` and `PG_reclaim`, pswpout). memory.zswap.writeback 0 (6.8+) redirties it
    /// in the swap cache (`None`).
    pub fn shmem_writepage(&mut self, p: PageId) -> Option<bool> {
        self.swap.as_ref()?;
        let memcg = self.pages[p].memcg;
        let slot = self.folio_alloc_swap(1, memcg)?;
        if self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && memcg != MemcgId::NONE {
            if let Some(over) = self.memcgs.try_charge_swap(memcg, 1) {
                self.put_swap_folio(slot, 1);
                self.memcg_memory_event(over, crate::memcontrol::MemcgEvent::SwapMax);
                self.memcg_memory_event(memcg, crate::memcontrol::MemcgEvent::SwapFail);
                return None;
            }
        }
        self.shmem_delete_from_page_cache(p, slot);
        if self.zswap_store_unmapped(p, slot) {
            return Some(false);
        }
        if !self.mem_cgroup_zswap_writeback_enabled(memcg) {
            self.pages[p].flags |= pg::DIRTY;
            return None;
        }
        self.swap_submit_write(p, slot, 1);
        Some(true)
    }

    /// `add_to_swap_cache()` + `shmem_delete_from_page_cache()` (mm/shmem.c, 6.1) of the
    /// order-0 tmpfs page `p` given swap slot `slot`: the mapping's slot takes the swap entry
    /// ([`ShmemStat::swapped`]), the page leaves the page cache (`NR_FILE_PAGES` and
    /// `NR_SHMEM` less one; memory.stat `shmem` and `file`) for the swap cache, unmapped, as
    /// an anonymous page reclaim unmapped is (`SWAPPER` at its slot: memory.stat `file` counts
    /// the kernel's swap cache as `NR_FILE_PAGES`, the engine's metric does not, as for
    /// anonymous swap-cache pages).
    pub(crate) fn shmem_delete_from_page_cache(&mut self, p: PageId, slot: u32) {
        let (inode, index) = (self.pages[p].mapping, self.pages[p].index);
        self.filemap_remove_folio(p, None);
        let memcg = self.pages[p].memcg;
        if memcg != MemcgId::NONE {
            let m = &mut self.memcgs.memcgs[memcg.idx()];
            m.nr_file -= 1;
            m.nr_shmem -= 1;
            m.nr_swapcache += 1;
            self.memcgs.wb_updated(memcg);
        }
        self.vmstat.nr_swapcache_unmapped += 1;
        let page = &mut self.pages[p];
        page.mapping = SWAPPER;
        page.index = slot;
        page.flags |= pg::ANON | pg::SWAPCACHE;
        let v2 = self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && memcg != MemcgId::NONE;
        let area = self.swap.as_mut().expect("a slot implies a swap area");
        area.cache_set(slot, p);
        if v2 {
            area.set_charged(slot, true);
        }
        self.shmem_stat.swapped.insert((inode.0, index), slot);
    }

    /// The swap entry tmpfs file `inode` holds at `index`, if any.
    #[inline]
    pub fn shmem_swap_entry(&self, inode: InodeId, index: u32) -> Option<u32> {
        if self.shmem_stat.swapped.is_empty() {
            return None;
        }
        self.shmem_stat.swapped.get(&(inode.0, index)).copied()
    }

    /// Whether tmpfs file `inode` holds a swap entry in `first..=last`.
    pub fn shmem_swap_in_range(&self, inode: InodeId, first: u32, last: u32) -> bool {
        !self.shmem_stat.swapped.is_empty() && self.shmem_stat.swapped.range((inode.0, first)..=(inode.0, last)).next().is_some()
    }

    /// `shmem_swapin_folio()` (mm/shmem.c, 6.1) of page `index` of tmpfs file `inode`, whose
    /// mapping holds a swap entry there, for a `read()` or `write()` by a task in `memcg`
    /// (no fault: no `PGMAJFAULT`): the swap cache is looked up (`swap_cache_get_folio(swap,
    /// NULL, 0)`: a readahead page counts `swap_ra_hit` and the area's readahead hits); a miss
    /// reads around the slot (`shmem_swapin()` -> `swap_cluster_readahead()` in every era the
    /// engine has: shmem has no VMA for VMA-based readahead), each page charged to the memcg
    /// its slot records. The task waits for the page's read (`folio_lock()`: a workingset
    /// page's wait is thrashing) and for a swap write still in flight
    /// (`folio_wait_writeback()`), then `shmem_add_to_page_cache()` puts it back in the mapping
    /// (`NR_FILE_PAGES`, `NR_SHMEM`; the page already charged, `mem_cgroup_swapin_charge_folio()`),
    /// `delete_from_swap_cache()` and `swap_free()` free the slot (its swap charge). The page
    /// stays on the anon LRU list it was read to. The xarray node the entry needs is not
    /// charged (the kernel's node held the entry all along). Returns the page, or `None` when
    /// no memory could be had.
    pub fn shmem_swapin_folio(&mut self, inode: InodeId, index: u32, memcg: MemcgId) -> Option<PageId> {
        let slot = self.shmem_swap_entry(inode, index)?;
        let nid = self.cur_nid;
        let mut pfn = self.swap.as_ref().expect("a swap entry implies a swap area").cache_get(slot);
        if pfn != PageId::NIL {
            if self.pages[pfn].test(pg::READAHEAD) {
                self.pages[pfn].flags &= !pg::READAHEAD;
                self.vmstat.count(crate::vmstat::VmEvent::SwapRaHit, 1);
                self.swap_ra_hit_novma();
            }
        } else {
            self.swap_cluster_readahead_at(slot, nid, memcg);
            pfn = self.swap.as_ref().expect("swap area").cache_get(slot);
            if pfn == PageId::NIL {
                return None;
            }
        }
        if let Some(&done) = self.wb_done.get(pfn.idx()) {
            if done > self.now {
                if self.pages[pfn].test(pg::WRITEBACK) {
                    // folio_wait_writeback(): the swap-out still in flight.
                    self.wait_until(done);
                    self.swap_end_io();
                } else if self.pages[pfn].test(pg::WORKINGSET) {
                    self.stalled(crate::delayacct::StallKind::Thrashing, |k| k.wait_until(done));
                } else {
                    self.wait_until(done);
                }
            }
        }
        debug_assert!(self.pages[pfn].mapping == SWAPPER && self.pages[pfn].index == slot);
        self.shmem_add_to_page_cache_swapin(pfn, inode, index);
        self.swap.as_mut().expect("swap area").cache_set(slot, PageId::NIL);
        self.shmem_stat.swapped.remove(&(inode.0, index));
        self.swap_free(slot);
        Some(pfn)
    }

    /// `shmem_add_to_page_cache()` of swap-cache page `p` at `index` of `inode` and its
    /// `delete_from_swap_cache()` (the caller frees the slot): the page is a tmpfs page again.
    fn shmem_add_to_page_cache_swapin(&mut self, p: PageId, inode: InodeId, index: u32) {
        let memcg = self.pages[p].memcg;
        self.vmstat.nr_swapcache_unmapped -= 1;
        if memcg != MemcgId::NONE {
            let m = &mut self.memcgs.memcgs[memcg.idx()];
            m.nr_swapcache -= 1;
            m.nr_file += 1;
            m.nr_shmem += 1;
            self.memcgs.wb_updated(memcg);
        }
        let page = &mut self.pages[p];
        page.mapping = inode;
        page.index = index;
        page.flags &= !(pg::ANON | pg::SWAPCACHE | pg::READAHEAD | pg::DIRTY);
        self.filemap_insert_page_uncharged(inode, index, p);
    }

    /// `shmem_undo_range()`'s `shmem_free_swap()` of every swap entry tmpfs file `inode`
    /// holds (truncation to 0, unlink): `free_swap_and_cache()`, a page the swap cache holds
    /// for the slot going with it.
    pub fn shmem_free_swap_all(&mut self, inode: InodeId) {
        if self.shmem_stat.swapped.is_empty() {
            return;
        }
        let keys: Vec<(u32, u32)> = self.shmem_stat.swapped.range((inode.0, 0)..=(inode.0, u32::MAX)).map(|(k, _)| *k).collect();
        for k in keys {
            let slot = self.shmem_stat.swapped.remove(&k).expect("listed");
            self.swap_free(slot);
        }
    }

    /// Whether the run reports the tmpfs huge-page metrics ([`ShmemStat::report`]).
    pub fn shmem_huge_metrics(&self) -> bool {
        self.shmem_stat.report
    }
}
