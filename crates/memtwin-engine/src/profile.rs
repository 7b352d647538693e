//! Kernel profiles (the defaults of a kernel era) and policy switches (the seeds' mechanisms).
//!
//! A profile fixes what differs between kernel versions; a policy is a mechanism from a patch
//! set that can be switched on top of any profile, including ones that were never merged.

/// How `inactive_is_low()` sizes the inactive file list against the active one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InactiveRatio {
    /// `int_sqrt(10 * gb)` (file lists since v4.10, commit 59dc76b0d4df; anon earlier).
    Sqrt,
    /// Plain 1:1 (file lists before v4.7).
    OneToOne,
}

/// How limit reclaim walks the memcgs below its target (`shrink_node_memcgs()`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReclaimWalk {
    /// Every memcg of the subtree at every priority, no early stop (v6.6: 1ba6fc9af35b
    /// "mm: vmscan: do not share cgroup iteration between reclaimers").
    Full,
    /// `mem_cgroup_iter()` with a reclaim cookie: the walk resumes where the last reclaimer
    /// of the same target stopped, and stops once `nr_to_reclaim` is met (before v6.6, and
    /// again since v6.11).
    SharedPartial,
}

/// Mechanisms from the seed patch sets, switchable per scenario variant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policies {
    /// Seed 000 (Kirill Tkhai, RFC 2019, never merged): on memcg limit reclaim an unmapped clean
    /// page-cache page is uncharged and left in the page cache on the root memcg's LRU
    /// (`__remove_mapping()`/`putback_lru_page()`); the first task to look it up charges it to
    /// its own memcg (`pagecache_get_page()`). Global reclaim may still evict it.
    pub recharge_on_pagecache_get: bool,
    /// Seed 003 (Roman Gushchin, v3, March 2019, never merged): at offline a memcg's percpu
    /// statistics (`vmstats_percpu`, per-node `lruvec_stat_cpu`) are flushed into atomic
    /// counters and freed, so a dying memcg no longer holds them.
    pub memcg_percpu_release_on_offline: bool,
}

/// Kernel memory one memcg costs, by kernel era (bytes). Percpu figures are per possible
/// CPU; `pcpu_alloc()` multiplies by `nr_cpu_ids`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemcgKmemCost {
    /// `memcg->vmstats_percpu` (stat counters, event counters, page-event count, targets),
    /// per CPU. Freed at offline by the seed-003 policy.
    pub vmstats_percpu: u64,
    /// Per node: `lruvec_stat_cpu` (node stat counters), per CPU. Freed at offline by the
    /// seed-003 policy.
    pub lruvec_stats_percpu: u64,
    /// Other percpu memory a memcg holds until it is freed, per CPU.
    pub other_percpu: u64,
    /// `kmalloc(sizeof(struct mem_cgroup) + nodeinfo pointers)`.
    pub memcg_struct: u64,
    /// `kmalloc(sizeof(struct mem_cgroup_per_node))`, one per node.
    pub per_node_struct: u64,
    /// Slab of the cgroup core for one cgroup with the memory controller: `struct cgroup`,
    /// the css, kernfs nodes of its control files.
    pub cgroup_core_slab: u64,
}

/// The defaults of one kernel era.
#[derive(Clone, Debug)]
pub struct KernelProfile {
    /// Profile name as written in scenarios (`linux-6.6`, `linux-5.0`).
    pub name: &'static str,
    /// What the profile stands for.
    pub description: &'static str,
    /// Retries of a failing memcg charge after reclaim made no progress before the OOM path:
    /// `MAX_RECLAIM_RETRIES` = 16 in mm/memcontrol.c since v5.9; `MEM_CGROUP_RECLAIM_RETRIES`
    /// = 5 before.
    pub max_reclaim_retries: u32,
    /// `inactive_is_low()` rule for the file lists (mm/vmscan.c).
    pub file_inactive_ratio: InactiveRatio,
    /// Refault detection with shadow entries (mm/workingset.c, v3.15+).
    pub workingset_refault: bool,
    /// Shadow entries name the reclaim target's lruvec, ages propagate to ancestors, and a
    /// refault is judged against the target's hierarchical active list (v5.5+, b910718a948a
    /// "mm: vmscan: detect file thrashing at the reclaim root"). Before, the page's own
    /// memcg's lruvec, with local ages and the local active list.
    pub eviction_at_reclaim_root: bool,
    /// `workingset_eviction()` reads the age before ageing it for this eviction (v5.12+,
    /// ac35a4902374); before, it aged first (`atomic_long_inc_return()`).
    pub eviction_reads_age_first: bool,
    /// How limit reclaim walks the target's subtree.
    pub reclaim_walk: ReclaimWalk,
    /// Kernel memory of one memcg.
    pub memcg_kmem: MemcgKmemCost,
    /// How memcg-aware list_lrus lay out their per-memcg lists (seed 001).
    pub list_lru_layout: crate::list_lru::ListLruLayout,
    /// `vm.dirty_ratio` default (mm/page-writeback.c).
    pub dirty_ratio: u32,
    /// `vm.dirty_background_ratio` default.
    pub dirty_background_ratio: u32,
    /// `vm.watermark_scale_factor` (v4.6+; `None` before: low = 5/4 min, high = 3/2 min).
    pub watermark_scale_factor: Option<u32>,
    /// Policies switched on by default in this era (none of the seeds' are).
    pub policies: Policies,
}

/// Kernel memory of a memcg in v5.0/v5.1 (x86_64). PROVISIONAL: to be replaced by the counts
/// from the source.
pub const KMEM_5_0: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 1024,
    lruvec_stats_percpu: 240,
    other_percpu: 600,
    memcg_struct: 2048,
    per_node_struct: 1024,
    cgroup_core_slab: 8192,
};

/// Kernel memory of a memcg in v6.1 (x86_64). PROVISIONAL, see `KMEM_5_0`.
pub const KMEM_6_1: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 1024,
    lruvec_stats_percpu: 400,
    other_percpu: 200,
    memcg_struct: 4096,
    per_node_struct: 2048,
    cgroup_core_slab: 8192,
};

/// All built-in profiles.
pub fn profiles() -> Vec<KernelProfile> {
    vec![
        KernelProfile {
            name: "linux-6.6",
            description: "a 6.x kernel like the host's: MAX_RECLAIM_RETRIES 16, sqrt inactive ratio, \
                          refault detection, watermark_scale_factor 10",
            max_reclaim_retries: 16,
            file_inactive_ratio: InactiveRatio::Sqrt,
            workingset_refault: true,
            eviction_at_reclaim_root: true,
            eviction_reads_age_first: true,
            reclaim_walk: ReclaimWalk::Full,
            memcg_kmem: KMEM_6_1,
            list_lru_layout: crate::list_lru::ListLruLayout::Lazy,
            dirty_ratio: 20,
            dirty_background_ratio: 10,
            watermark_scale_factor: Some(10),
            policies: Policies::default(),
        },
        KernelProfile {
            name: "linux-5.0",
            description: "the 5.0 era the seed-000 RFC was written on: MEM_CGROUP_RECLAIM_RETRIES 5, \
                          sqrt inactive ratio, refault detection",
            max_reclaim_retries: 5,
            file_inactive_ratio: InactiveRatio::Sqrt,
            workingset_refault: true,
            eviction_at_reclaim_root: false,
            eviction_reads_age_first: false,
            reclaim_walk: ReclaimWalk::SharedPartial,
            memcg_kmem: KMEM_5_0,
            list_lru_layout: crate::list_lru::ListLruLayout::Eager,
            dirty_ratio: 20,
            dirty_background_ratio: 10,
            watermark_scale_factor: Some(10),
            policies: Policies::default(),
        },
        KernelProfile {
            name: "linux-4.4",
            description: "the 4.4 era: file lists balanced 1:1 (pre-4.7), watermarks 5/4 and 3/2 of min",
            max_reclaim_retries: 5,
            file_inactive_ratio: InactiveRatio::OneToOne,
            workingset_refault: true,
            eviction_at_reclaim_root: false,
            eviction_reads_age_first: false,
            reclaim_walk: ReclaimWalk::SharedPartial,
            memcg_kmem: KMEM_5_0,
            list_lru_layout: crate::list_lru::ListLruLayout::Eager,
            dirty_ratio: 20,
            dirty_background_ratio: 10,
            watermark_scale_factor: None,
            policies: Policies::default(),
        },
    ]
}

/// Look a profile up by name.
pub fn profile(name: &str) -> Option<KernelProfile> {
    profiles().into_iter().find(|p| p.name == name)
}

/// CPU cost of the kernel paths the engine models, in nanoseconds of system time (user time
/// for `user_per_syscall`). These are global model constants: no scenario can change them.
///
/// Source: measurements on the project's reference machine (2 vCPU AMD EPYC KVM guest, host
/// kernel 6.18, 2026-11-21), on an ext4 file system mounted `data=journal` so that the page
/// cache holds only 4 KiB pages as pre-large-folio kernels did; `cat` of a 1 GiB file timed
/// with `wait4()` rusage, median of 3 runs. BENCHMARKS.md ("Calibration") has the table.
///
/// | measurement | sys ns per 4 KiB page |
/// |---|---|
/// | M1 cached read, pages already active | 391 |
/// | M2 cached read that activates every page (second touch) | 576 |
/// | M3 cold read, no limit, read_ahead_kb 128 (cat: 256 KiB requests) | 1235 |
/// | M4 cold read in a 20M cgroup-v1 memcg, read_ahead_kb 128 | 2194 |
/// | M5 as M4 with read_ahead_kb 32: 8192 instead of 4096 requests | 2453 |
/// | M6 `getppid()` syscall | 169 per call |
/// | M7 user-space `memcpy` of 4 KiB, sequential buffers | 308 per copy |
///
/// Where a measurement covers several functions, the split between them is an estimate from
/// the work each does, and is marked so; the sums match the measurements.
#[derive(Clone, Debug)]
pub struct CpuCost {
    /// Entry and exit of one syscall (`ksys_read()`, `vfs_read()`): M6.
    pub syscall: u64,
    /// User-space work per `read()` of a copy loop like cat's: 1.1 ms of user time over
    /// 8192 reads of a cached 1 GiB file.
    pub user_per_syscall: u64,
    /// `filemap_get_pages()` per page found in the page cache, with a no-op
    /// `folio_mark_accessed()`: M1 - M7 - M6/32.
    pub lookup: u64,
    /// `copy_page_to_iter()` of one 4 KiB page: M7.
    pub copy_page: u64,
    /// `folio_activate()`: moving an inactive page to the active list on its second touch:
    /// M2 - M1.
    pub activate: u64,
    /// `page_cache_ra_unbounded()` per page: `filemap_alloc_folio()` + `filemap_add_folio()`
    /// (xarray insert, `lru_cache_add`) + read completion, without the charge:
    /// M3 - M1 - `submit_io`/64 - `charge`.
    pub add_page: u64,
    /// `mem_cgroup_charge()` or uncharge of one page (page_counter walk, stat updates);
    /// estimate: 110 of M4 - M3.
    pub charge: u64,
    /// `submit_bio()` per read request (bio set-up, plug, completion interrupt):
    /// (M5 - M4) * 262144 / 4096 extra requests = 16 us.
    pub submit_io: u64,
    /// `shrink_folio_list()` per page scanned (isolation, reference checks); estimate: 200 of
    /// M4 - M3.
    pub scan_page: u64,
    /// `__remove_mapping()` + `free_unref_folios()` per page evicted, shadow entry included;
    /// estimate: 600 of M4 - M3 (M4 - M3 = scan + evict + uncharge + reclaim_call/32).
    pub evict_page: u64,
    /// `workingset_refault()` per refaulting page (shadow unpack, distance, stats); estimate:
    /// the host kernel showed no refaults to measure it by.
    pub refault: u64,
    /// One `try_to_free_mem_cgroup_pages()` / `do_try_to_free_pages()` call (set-up,
    /// `mem_cgroup_iter()`, `shrink_slab()`); estimate: 1500, i.e. 47 per page of a 32-page
    /// batch in M4 - M3.
    pub reclaim_call: u64,
    /// `folio_mark_dirty()` + `balance_dirty_pages_ratelimited()` per written page; estimate,
    /// not yet measured.
    pub dirty_page: u64,
}

impl CpuCost {
    /// The global cost table.
    pub const fn reference() -> CpuCost {
        CpuCost {
            syscall: 169,
            user_per_syscall: 137,
            lookup: 78,
            copy_page: 308,
            activate: 185,
            add_page: 484,
            charge: 110,
            submit_io: 16_000,
            scan_page: 200,
            evict_page: 600,
            refault: 150,
            reclaim_call: 1_500,
            dirty_page: 250,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_unique_and_findable() {
        let ps = profiles();
        for p in &ps {
            assert_eq!(profile(p.name).unwrap().name, p.name);
            assert_eq!(ps.iter().filter(|q| q.name == p.name).count(), 1);
        }
        assert!(profile("linux-9.9").is_none());
        assert_eq!(profile("linux-5.0").unwrap().max_reclaim_retries, 5);
        assert_eq!(profile("linux-6.6").unwrap().max_reclaim_retries, 16);
    }
}
