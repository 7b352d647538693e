//! Global event and state counters, as /proc/vmstat and /proc/meminfo show them
//! (mm/vmstat.c, include/linux/vm_event_item.h).

/// `enum vm_event_item` and the node stat items the engine reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum VmEvent {
    /// `pgpgin`: KiB read from block devices.
    Pgpgin,
    /// `pgpgout`: KiB written to block devices.
    Pgpgout,
    /// `pgscan_kswapd`.
    PgscanKswapd,
    /// `pgscan_direct`.
    PgscanDirect,
    /// `pgsteal_kswapd`.
    PgstealKswapd,
    /// `pgsteal_direct`.
    PgstealDirect,
    /// `pgactivate`.
    Pgactivate,
    /// `pgdeactivate`.
    Pgdeactivate,
    /// `pgrefill`.
    Pgrefill,
    /// `workingset_refault_file`.
    WorkingsetRefaultFile,
    /// `workingset_activate_file`.
    WorkingsetActivateFile,
    /// `workingset_restore_file`.
    WorkingsetRestoreFile,
    /// `allocstall` (3.x-4.7, one counter): direct reclaim entered by the page allocator
    /// (`do_try_to_free_pages()`: `count_vm_event(ALLOCSTALL)`). From 4.8 the count is per zone,
    /// [`VmEvent::AllocstallNormal`] and [`VmEvent::AllocstallMovable`]; the engine counts into
    /// the one of its profile and the request ([`crate::page_alloc::Gfp::allocstall_event`]).
    Allocstall,
    /// `allocstall_normal` (4.8+): direct reclaim for a request whose `gfp_zone()` is
    /// ZONE_NORMAL (`GFP_KERNEL`: slab, the page cache's xarray nodes).
    AllocstallNormal,
    /// `allocstall_movable` (4.8+): direct reclaim for a `GFP_HIGHUSER_MOVABLE` request (page
    /// cache, anonymous memory, THP, swap-in): `gfp_zone()` is ZONE_MOVABLE whether or not the
    /// machine has such a zone (include/linux/gfp.h GFP_ZONE_TABLE: MOVABLE + HIGHMEM).
    AllocstallMovable,
    /// `kswapd_wakeups` (`pageoutrun`).
    KswapdWakeup,
    /// `pgalloc_normal`.
    Pgalloc,
    /// `pgfree`.
    Pgfree,
    /// `oom_kill`.
    OomKill,
    /// `workingset_nodereclaim`: shadow nodes freed by the shadow shrinker.
    WorkingsetNodereclaim,
    /// `numa_hit`: allocations (of any order: a huge page counts once) served by the node the
    /// task wanted.
    NumaHit,
    /// `numa_miss`: allocations served by a node the task did not want.
    NumaMiss,
    /// `numa_foreign`: allocations the task wanted from its node that another served.
    NumaForeign,
    /// `thp_fault_alloc`.
    ThpFaultAlloc,
    /// `thp_fault_fallback`.
    ThpFaultFallback,
    /// `compact_stall`: direct compaction entered.
    CompactStall,
    /// `compact_fail`.
    CompactFail,
    /// `compact_success`.
    CompactSuccess,
    /// `pgmigrate_success`.
    PgmigrateSuccess,
    /// `pgrotated`: pages moved to the inactive tail when their writeback ended.
    Pgrotated,
    /// `pswpin`: pages read back from swap.
    Pswpin,
    /// `pswpout`: pages written to swap.
    Pswpout,
    /// `pgfault`: page faults.
    Pgfault,
    /// `pgmajfault`: page faults that read from disk (`VM_FAULT_MAJOR`).
    Pgmajfault,
    /// `swap_ra`: pages swap readahead read beside the one a fault asked for.
    SwapRa,
    /// `swap_ra_hit`: faults that found a page swap readahead had read.
    SwapRaHit,
    /// `workingset_refault_anon`: pages read back from swap whose slot held a shadow (5.9+).
    WorkingsetRefaultAnon,
    /// `workingset_activate_anon`: such pages activated at once.
    WorkingsetActivateAnon,
    /// `workingset_restore_anon`: activated ones that were active before their eviction.
    WorkingsetRestoreAnon,
}

/// Number of [`VmEvent`]s.
pub const NR_VM_EVENTS: usize = 39;

impl VmEvent {
    /// All events with their /proc/vmstat names.
    pub const ALL: [(VmEvent, &'static str); NR_VM_EVENTS] = [
        (VmEvent::Pgpgin, "pgpgin"),
        (VmEvent::Pgpgout, "pgpgout"),
        (VmEvent::PgscanKswapd, "pgscan_kswapd"),
        (VmEvent::PgscanDirect, "pgscan_direct"),
        (VmEvent::PgstealKswapd, "pgsteal_kswapd"),
        (VmEvent::PgstealDirect, "pgsteal_direct"),
        (VmEvent::Pgactivate, "pgactivate"),
        (VmEvent::Pgdeactivate, "pgdeactivate"),
        (VmEvent::Pgrefill, "pgrefill"),
        (VmEvent::WorkingsetRefaultFile, "workingset_refault_file"),
        (VmEvent::WorkingsetActivateFile, "workingset_activate_file"),
        (VmEvent::WorkingsetRestoreFile, "workingset_restore_file"),
        (VmEvent::Allocstall, "allocstall"),
        (VmEvent::AllocstallNormal, "allocstall_normal"),
        (VmEvent::AllocstallMovable, "allocstall_movable"),
        (VmEvent::KswapdWakeup, "pageoutrun"),
        (VmEvent::Pgalloc, "pgalloc_normal"),
        (VmEvent::Pgfree, "pgfree"),
        (VmEvent::OomKill, "oom_kill"),
        (VmEvent::WorkingsetNodereclaim, "workingset_nodereclaim"),
        (VmEvent::NumaHit, "numa_hit"),
        (VmEvent::NumaMiss, "numa_miss"),
        (VmEvent::NumaForeign, "numa_foreign"),
        (VmEvent::ThpFaultAlloc, "thp_fault_alloc"),
        (VmEvent::ThpFaultFallback, "thp_fault_fallback"),
        (VmEvent::CompactStall, "compact_stall"),
        (VmEvent::CompactFail, "compact_fail"),
        (VmEvent::CompactSuccess, "compact_success"),
        (VmEvent::PgmigrateSuccess, "pgmigrate_success"),
        (VmEvent::Pgrotated, "pgrotated"),
        (VmEvent::Pswpin, "pswpin"),
        (VmEvent::Pswpout, "pswpout"),
        (VmEvent::Pgfault, "pgfault"),
        (VmEvent::Pgmajfault, "pgmajfault"),
        (VmEvent::SwapRa, "swap_ra"),
        (VmEvent::SwapRaHit, "swap_ra_hit"),
        (VmEvent::WorkingsetRefaultAnon, "workingset_refault_anon"),
        (VmEvent::WorkingsetActivateAnon, "workingset_activate_anon"),
        (VmEvent::WorkingsetRestoreAnon, "workingset_restore_anon"),
    ];
}

/// /proc/vmstat event counters plus the page states /proc/meminfo reports.
#[derive(Clone, Debug)]
pub struct VmStat {
    /// Event counters, indexed by [`VmEvent`].
    pub events: [u64; NR_VM_EVENTS],
    /// `NR_FILE_DIRTY`: dirty page-cache pages.
    pub nr_dirty: u64,
    /// `NR_WRITEBACK`: pages under writeback (/proc/meminfo `Writeback`).
    pub nr_writeback: u64,
    /// `NR_ANON_PAGES`: anonymous pages (/proc/meminfo `AnonPages`).
    pub nr_anon_pages: u64,
    /// `NR_FILE_PAGES`: page-cache pages (/proc/meminfo `Cached`).
    pub nr_file_pages: u64,
    /// `NR_FILE_MAPPED`: page-cache pages mapped by some VMA (/proc/meminfo `Mapped`).
    pub nr_mapped: u64,
    /// Anonymous pages in the swap cache that no page table maps (read by swap readahead and
    /// not faulted yet): on the anon LRU, charged, not in `NR_ANON_MAPPED`.
    pub nr_swapcache_unmapped: u64,
}

impl Default for VmStat {
    fn default() -> Self {
        VmStat { events: [0; NR_VM_EVENTS], nr_dirty: 0, nr_writeback: 0, nr_anon_pages: 0, nr_file_pages: 0, nr_mapped: 0, nr_swapcache_unmapped: 0 }
    }
}

impl VmStat {
    /// `count_vm_events()`.
    #[inline(always)]
    pub fn count(&mut self, ev: VmEvent, n: u64) {
        self.events[ev as usize] += n;
    }
    /// Current value of `ev`.
    #[inline]
    pub fn get(&self, ev: VmEvent) -> u64 {
        self.events[ev as usize]
    }
}
