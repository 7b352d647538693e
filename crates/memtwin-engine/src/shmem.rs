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
