//! tmpfs huge pages (mm/shmem.c): the `huge=` mount option, the global
//! /sys/kernel/mm/transparent_hugepage/shmem_enabled (its `deny` and `force`), the decision
//! whether a new page of a tmpfs file is a PMD-order folio (`shmem_is_huge()`), and the
//! allocation that tries one and falls back to order 0 (`shmem_get_folio_gfp()`,
//! `shmem_alloc_and_acct_folio()`, `shmem_alloc_hugefolio()`, `shmem_add_to_page_cache()`).

use crate::kernel::Kernel;
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
    /// cleared by [`Kernel::shmem_alloc_huge_folio`]).
    pub charge_failed: bool,
    /// Set by `filemap_add_large_folio_paid()` when a tmpfs folio's xarray nodes could not be
    /// had (`xas_nomem()` failed: 6.1 `shmem_add_to_page_cache()` returns the xas error and
    /// counts nothing; read and cleared by [`Kernel::shmem_alloc_huge_folio`]).
    pub xa_failed: bool,
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

    /// The huge attempt of `shmem_get_folio_gfp()` (mm/shmem.c, 6.1) for a missing page at
    /// `index`: `shmem_alloc_hugefolio()` refuses when any entry lies in the huge page's range
    /// (`xa_find(XA_PRESENT)`, no event), else allocates a PMD-order folio
    /// (`vma_alloc_folio(HPAGE_PMD_ORDER)`, THP defrag's default: no direct reclaim or
    /// compaction) — failing, `THP_FILE_FALLBACK`; `shmem_add_to_page_cache()` charges its
    /// 512 pages at once (`mem_cgroup_charge()` with the mapping's gfp: reclaim allowed) —
    /// failing, `THP_FILE_FALLBACK` and `THP_FILE_FALLBACK_CHARGE` — stores it in the xarray
    /// (`xas_nomem()` for its nodes: failing, no event, review48 L5) and counts
    /// `THP_FILE_ALLOC` and `NR_SHMEM_THPS`. The folio is swap-backed, on the anon LRU, its
    /// pages in memory.stat `file`, `shmem` and `shmem_thp`. `None`: the caller takes order 0
    /// (`alloc_nohuge`, in the same call: a write resumed inside that order-0 page's charge
    /// makes no second attempt, `generic_perform_write()`, review48 L4).
    pub fn shmem_alloc_huge_folio(&mut self, inode: InodeId, index: u32, memcg: MemcgId) -> Option<PageId> {
        let hindex = index & !(HPAGE_PMD_NR - 1);
        let m = &self.mappings[inode.idx()];
        if m.next_entry(hindex, hindex + HPAGE_PMD_NR - 1).is_some() {
            return None;
        }
        self.shmem_stat.charge_failed = false;
        self.shmem_stat.xa_failed = false;
        match self.filemap_add_large_folio_paid(inode, hindex, HPAGE_PMD_ORDER, memcg, true, true) {
            Ok(head) => {
                self.shmem_stat.thp_file_alloc += 1;
                self.shmem_stat.nr_shmem_thps += HPAGE_PMD_NR as u64;
                Some(head)
            }
            Err(_) => {
                let charge = std::mem::take(&mut self.shmem_stat.charge_failed);
                // 6.1: shmem_alloc_hugefolio()'s allocation and shmem_add_to_page_cache()'s
                // charge count THP_FILE_FALLBACK; its xas_nomem() failure nothing.
                if !std::mem::take(&mut self.shmem_stat.xa_failed) {
                    self.shmem_stat.thp_file_fallback += 1;
                    if charge {
                        self.shmem_stat.thp_file_fallback_charge += 1;
                    }
                }
                None
            }
        }
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

    /// Whether the run reports the tmpfs huge-page metrics ([`ShmemStat::report`]).
    pub fn shmem_huge_metrics(&self) -> bool {
        self.shmem_stat.report
    }
}
