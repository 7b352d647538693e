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

/// How `count_shadow_nodes()` (mm/workingset.c) caps the nodes that hold only shadow entries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShadowNodeCap {
    /// v3.15-v4.5: one list per node for the whole machine, capped at
    /// `node_present_pages() >> (1 + RADIX_TREE_MAP_SHIFT - 3)`, one node per 16 present pages.
    NodePresent,
    /// v4.20+ (95f9ab2d596e "mm: workingset: don't drop refault information prematurely"):
    /// per memcg, one node per 8 pages of its LRU lists and its slab
    /// (`pages >> (XA_CHUNK_SHIFT - 3)`).
    MemcgLruAndSlab,
}

/// How reclaim walks the memcgs below its target (`shrink_node_memcgs()`, `shrink_node()`
/// before 4.20's rename, `mem_cgroup_iter()` with a reclaim cookie).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReclaimWalk {
    /// Up to 5.4: limit reclaim shares one iterator per target, node and priority
    /// (`mz->iter[reclaim->priority]`), resumes after the memcg the last reclaimer at that
    /// priority stopped at, and stops once `nr_to_reclaim` is met (`!global_reclaim(sc)`).
    /// Global reclaim walks the whole subtree.
    SharedPerPriority,
    /// 5.5 to 6.10: every memcg of the subtree at every priority, no early stop (1ba6fc9af35b
    /// "mm: vmscan: do not share cgroup iteration between reclaimers", 5.5).
    Full,
    /// 6.11+ (6be5e186fd65 "mm: vmscan: restore incremental cgroup iteration"): every
    /// reclaimer but kswapd shares one iterator per target and node and stops once
    /// `nr_to_reclaim` is met; a `do_try_to_free_pages()` that reclaimed nothing goes round
    /// once more with a full walk (`sc->memcg_full_walk`, priority reset: 308d6ef58d66).
    Shared,
}

/// How `get_scan_count()` (mm/vmscan.c) balances the anonymous and file lists when both may be
/// scanned, per era.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScanBalance {
    /// Before 5.8: SCAN_FILE while the inactive file list is not low and has pages to scan at
    /// this priority; else SCAN_FRACT with `anon_prio = swappiness`, `file_prio = 200 -
    /// swappiness`, each weighed by `recent_scanned / recent_rotated` of its lists
    /// (`struct zone_reclaim_stat`, halved when the scans pass a quarter of the lists).
    Rotated,
    /// 5.8+ (314b57fb0460 "mm: balance LRU lists based on relative thrashing", 7cf111bc39f6
    /// "mm: vmscan: determine anon/file pressure balance at the reclaim root"): the cost of
    /// each type (`lruvec->anon_cost`: pages swapped out, `file_cost`: file pages written by
    /// reclaim and restored refaults, `lru_note_cost()`, decayed), read at the reclaim root
    /// (`prepare_scan_count()`); `cache_trim_mode` (SCAN_FILE while the inactive file list has
    /// pages at this priority and no file refaults), `file_is_tiny` (SCAN_ANON, global
    /// reclaim), SCAN_EQUAL at priority 0; swappiness up to 200 (c843966c556d).
    Cost,
}

/// What `shrink_lruvec()` (mm/vmscan.c) does once a pass has reclaimed `sc->nr_to_reclaim`
/// with scan targets left, per era. Every era's loop runs while the inactive anon or either
/// file target is left (`while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] ||
/// nr[LRU_INACTIVE_FILE])`: what is left of the active anon target alone is not scanned).
/// The "nudge": the smaller type's targets (anon or file) stop and the larger type's are cut
/// to the share of their original targets the smaller had left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LruvecStop {
    /// 3.11-3.15 (e82e0561dae9 "mm: vmscan: obey proportional scanning requirements for
    /// kswapd", read in 3.13's source): global direct reclaim stops at once; kswapd and memcg
    /// reclaim nudge once (`scan_adjusted`), even when one type had no target left, and scan
    /// the cut targets to their end.
    DirectBreak,
    /// 3.16-5.19 (1a501907bbea "mm: vmscan: use proportional scanning during direct reclaim
    /// and full scan at DEF_PRIORITY", read in a 5.8-era source): global direct reclaim at
    /// `DEF_PRIORITY` scans its whole targets (`scan_adjusted` from the start); otherwise the
    /// loop stops when either type's targets are used up ("It's just vindictive to attack the
    /// larger once the smaller has gone to zero"), else nudges once and scans the cut targets
    /// to their end.
    ScanAdjusted,
    /// 6.0+ (f53af4285d77 "mm: vmscan: fix extreme overreclaim and swap floods"; Debian's 6.1
    /// and 6.18 alike): `proportional_reclaim` (global direct reclaim at `DEF_PRIORITY`) scans
    /// its whole targets; otherwise the nudge is tried at each batch past the goal, so after
    /// it one more batch of the larger type and the loop stops ("we only make one nudge
    /// towards proportionality once we've got nr_to_reclaim").
    Proportional,
}

/// When kswapd finds a node balanced (`pgdat_balanced()`, mm/vmscan.c), at order 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PgdatBalanced {
    /// 3.13-4.7 (zone-based kswapd): "For order-0, all zones must be balanced!", a zone that
    /// is not `zone_reclaimable()` counting as balanced.
    AllZones,
    /// 4.8+ (1d82de618ddd "mm, vmscan: make kswapd reclaim in terms of nodes"; the
    /// `pgdat_balanced()` of 4.11+ loops the eligible zones and returns true at the first
    /// one above its high watermark): any zone.
    AnyZone,
}

/// Where an era counts memory.events `oom` (`MEMCG_OOM`) for the memcg whose limit a
/// `GFP_KERNEL` charge met, once its reclaim retries are spent (mm/memcontrol.c).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MemcgOomEvent {
    /// 3.13: no memory.events (cgroup v1's memory.oom_control shows `under_oom`, a state).
    None,
    /// 4.0-4.18: `try_charge()` counts it ("mem_cgroup_events(mem_over_limit, MEMCG_OOM,
    /// 1);") before `mem_cgroup_oom()`, for a charge of any order.
    TryCharge,
    /// 4.19+ (29ef680ae7c2 "memcg, oom: move out_of_memory back to the charge path"):
    /// `mem_cgroup_oom()` counts it ("memcg_memory_event(memcg, MEMCG_OOM);") after "if
    /// (order > PAGE_ALLOC_COSTLY_ORDER) return false;": a charge above 8 pages counts none.
    MemcgOom,
}

/// The memcg charge path of an era (mm/memcontrol.c): what a charge that meets a limit does
/// before it succeeds or fails.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChargePath {
    /// 3.13: `__mem_cgroup_try_charge()` calling `mem_cgroup_do_charge()` until it returns
    /// `CHARGE_OK`, or `CHARGE_NOMEM` for the `MEM_CGROUP_RECLAIM_RETRIES`+1-th time (page
    /// cache and anonymous charges pass `oom = true`). Three differences from `TryCharge`:
    /// `res_counter_charge(&memcg->res)` is tried before `memsw` (a memsw failure reclaims
    /// without swap, `MEM_CGROUP_RECLAIM_NOSWAP`); a `__GFP_NORETRY` charge returns
    /// `CHARGE_NOMEM` before any reclaim (each of its retries charges again and fails again);
    /// and a charge that may reclaim calls `mem_cgroup_reclaim()`, which loops
    /// `try_to_free_mem_cgroup_pages()` while `mem_cgroup_margin()` is 0, draining the
    /// per-CPU stocks before every pass but the first (`if (loop)
    /// drain_all_stock_async(memcg)`) and stopping after a pass when nothing was reclaimed
    /// in all (`if (loop && !total) break`), at most `MEM_CGROUP_MAX_RECLAIM_LOOPS` = 100
    /// passes; then `CHARGE_RETRY` if the margin fits the charge or the loop reclaimed
    /// anything for a charge of at most `1 << PAGE_ALLOC_COSTLY_ORDER` pages.
    DoCharge,
    /// 3.17+ (6539cc053869 "mm: memcontrol: fold mem_cgroup_do_charge()", d485e6b4ed62
    /// "mm: memcontrol: reclaim at least once for __GFP_NORETRY", 3.17; memsw tried before
    /// memory in 4.x's `try_charge()`, since 3.19's page counters, 3e32cb2e0a12): one `try_to_free_mem_cgroup_pages()` a
    /// round; a round that leaves the memcg short drains the stocks and goes round once more
    /// (`drained`, `drain_all_stock(mem_over_limit); drained = true; goto retry;`) before
    /// `__GFP_NORETRY` gives up or a retry is counted; in 4.x's `try_charge()` and 6.1's
    /// and 6.18's `try_charge_memcg()`.
    TryCharge,
}

/// How reclaim waits for writeback when it meets pages being written faster than the device
/// completes them, per era (mm/vmscan.c, mm/backing-dev.c).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReclaimThrottle {
    /// Before 5.0 (the legacy request queue): `congestion_wait(BLK_RW_ASYNC, HZ/10)` and
    /// `wait_iff_congested()` sleep on the bdi's congestion wait queue, woken by
    /// `clear_wb_congested()` when the queue's backlog falls below its congestion-off mark
    /// (`blk_clear_congested()` from `__freed_request()`).
    Congestion,
    /// 5.0-5.15: with the legacy request path gone (5.0, a1ce35fa4985 "block: remove dead
    /// elevator code"), no blk-mq device marks its bdi congested, so `congestion_wait()`
    /// always sleeps its whole timeout and `wait_iff_congested()` never sleeps (it returns at
    /// once when `nr_wb_congested` is 0). This is what Mel Gorman's 5.16 series replaced.
    CongestionTimeout,
    /// 5.16+: `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (8cd7c588decf "mm/vmscan:
    /// throttle reclaim until some writeback completes if congested"): sleep at most HZ/10 and
    /// be woken by `__acct_reclaim_writeback()` once more than `SWAP_CLUSTER_MAX *
    /// nr_throttled` pages of the node have finished writeback since the first throttled task
    /// started waiting. The same series (with 1b4e3f26f9f7 "mm: vmscan: Reduce throttling due
    /// to a failure to make progress", 5.16) has direct reclaim sleep one `schedule_timeout(1)`
    /// for `VMSCAN_THROTTLE_CONGESTED` (a target lruvec flagged `LRUVEC_CONGESTED`) and
    /// `VMSCAN_THROTTLE_NOPROGRESS` (nothing reclaimed by priority 1), unless
    /// `skip_throttle_noprogress()`: `Kernel::shrink_node_throttle`.
    Writeback,
}

/// What a direct reclaimer does in `shrink_inactive_list()` when `too_many_isolated()` says
/// more pages of the list's type are isolated on the node (per zone before 4.8) than are left
/// on its inactive list (an eighth of it for a `__GFP_IO | __GFP_FS` caller), per era
/// (mm/vmscan.c; 35cd78156c49 "vmscan: throttle direct reclaim when too many pages are
/// isolated already", 2.6.32). kswapd never waits there, nor does reclaim whose writeback
/// throttling is not sane (`global_reclaim()` only before 4.2, `sane_reclaim()` /
/// `writeback_throttling_sane()` after: legacy v1 memcg reclaim is exempt, v2's is not).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IsolatedThrottle {
    /// 2.6.32-4.13: `while (too_many_isolated()) { congestion_wait(BLK_RW_ASYNC, HZ/10); if
    /// (fatal_signal_pending(current)) return SWAP_CLUSTER_MAX; }`: the task sleeps on the
    /// async congestion queue (woken when a queue leaves congestion, else HZ/10) and loops
    /// for as long as the condition holds.
    CongestionLoop,
    /// 4.14-5.15: db73ee0d4637 ("mm, vmscan: do not loop on too_many_isolated for ever"):
    /// `msleep(100)` once (`schedule_timeout_uninterruptible(msecs_to_jiffies(100) + 1)`),
    /// then `return 0` (nothing scanned) if it still holds.
    SleepOnce,
    /// 5.16+: d818fca1cac3 ("mm/vmscan: throttle reclaim and compaction when too may pages
    /// are isolated"): `reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED)` once, at most
    /// `HZ/50`, woken by `wake_throttle_isolated()` from the next `too_many_isolated()` of
    /// any reclaimer that finds the node below the limit; then `return 0` if it still holds.
    ReclaimThrottle,
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
    /// Seed 004 (Li Wang, December 2013, never merged): `POSIX_FADV_DONTNEED` on a directory
    /// drops the page cache of every file below it, recursively, skipping inodes the caller
    /// has no permission on. Without it a directory's fadvise touches nothing inside.
    pub fadvise_directory: bool,
    /// Seed 002 reversed (Mel Gorman, "mm, page_alloc: delete the zonelist_cache", merged in
    /// 4.4): kernels before 4.4 on NUMA machines kept a zonelist cache of zones recently
    /// found full, skipped them for up to a second, and marked a zone full after any failed
    /// watermark check or allocation, including a failed THP (order-9) attempt, which then
    /// pushed order-0 requests to remote nodes. On = the pre-4.4 behaviour.
    pub zonelist_cache: bool,
}

/// Kernel memory one memcg costs, by kernel era (bytes). Percpu figures are per possible
/// CPU; `pcpu_alloc()` multiplies by `nr_cpu_ids`. Struct sizes are before kmalloc rounding.
/// Source: `pahole` on x86_64 builds of 5.0.1/5.1.15 and on the BTF of Debian's 6.1.0-56
/// kernel, with Debian's 6.1 configuration (olddefconfig for the older trees); enum counts
/// from include/linux/mmzone.h, memcontrol.h and vm_event_item.h of each tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemcgKmemCost {
    /// `memcg->vmstats_percpu` per CPU. 5.0: `mem_cgroup_stat_cpu` = count[MEMCG_NR_STAT=36],
    /// events[NR_VM_EVENT_ITEMS=85], nr_page_events and targets[3]: 1000 B. 6.1:
    /// `memcg_vmstats_percpu` = (state[50] + events[17]) x 2 + 1 + targets[2]: 1096 B.
    /// Freed at offline by the seed-003 policy.
    pub vmstats_percpu: u64,
    /// Per node and CPU: 5.0 `lruvec_stat` count[NR_VM_NODE_STAT_ITEMS=30] = 240 B; 6.1
    /// `lruvec_stats_percpu` state[43] + state_prev[43] = 688 B. Freed at offline by the
    /// seed-003 policy.
    pub lruvec_stats_percpu: u64,
    /// Other percpu memory per CPU a memcg's cgroup holds until it is freed:
    /// `cgroup_rstat_cpu` 64 + `psi_group_cpu` 128 + `perf_cgroup_info` (16 in 5.0, 32 in
    /// 6.1) + `percpu_ref` counters 8 each (3 in 5.0, 5 in 6.1) + the writeback domain's
    /// `percpu_counter` 4.
    pub other_percpu: u64,
    /// `sizeof(struct mem_cgroup)` without its `nodeinfo[]` pointers (8 per node, added when
    /// it is allocated): 2688 in 5.0, 4096 in 5.17, 2240 in 6.1.
    pub memcg_struct: u64,
    /// 6.1's separately allocated `struct memcg_vmstats` (1072); 0 in 5.0.
    pub memcg_vmstats_struct: u64,
    /// `sizeof(struct mem_cgroup_per_node)` per node: 848 in 5.0, 2560 in 6.1 (LRU_GEN).
    pub per_node_struct: u64,
    /// `sizeof(struct cgroup)` at level 1: 1836 in 5.0 (1832 + 4 per level), 1808 in 6.1.
    pub cgroup_struct: u64,
    /// Other slab of a cgroup with the memory controller, already rounded: `perf_cgroup`
    /// 256; in 6.1 also `psi_group` 720 -> 1024, 5 `percpu_ref_data` of 64, `obj_cgroup` 64;
    /// the kernfs directory node 128.
    pub cgroup_other_slab: u64,
    /// Control files of a memory cgroup, each a 128-byte `kernfs_node` freed at rmdir: 24 in
    /// 5.0 (13 core incl. 3 PSI, 8 memory, 3 swap), 34 in 6.1.
    pub kernfs_files: u64,
    /// Kernels before 5.9 give each memcg its own copy of every accounted slab cache it
    /// allocates from (`memcg_create_kmem_cache()`), freed only when the memcg is freed.
    pub per_memcg_kmem_caches: bool,
    /// Slab of one such copy: `struct kmem_cache` with `node[1 << NODES_SHIFT]` (856 B at the
    /// x86_64 default NODES_SHIFT 6, from the 5.1 layout) + a `kmem_cache_node` (64) + the
    /// name (32, estimate).
    pub kmem_cache_clone_slab: u64,
    /// Percpu of one such copy: its `kmem_cache_cpu` (32 B, SLUB).
    pub kmem_cache_clone_percpu: u64,
    /// Kernels before 5.9 pin a dying memcg with every slab object charged to it (e.g. the
    /// dentry and inode of a file it created); from 5.9 objects are reparented.
    pub slab_objects_pin: bool,
    /// Per memcg and node, the memcg-aware shrinkers' state (mm/vmscan.c).
    pub shrinker_info: ShrinkerInfo,
}

/// What a memcg keeps per node for the memcg-aware shrinkers (one per superblock, plus the
/// workingset shadow-node shrinker), sized by the highest shrinker id and grown for every
/// memcg when a new id does not fit (`expand_shrinker_info()`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShrinkerInfo {
    /// 4.19-5.12 `memcg_shrinker_map`: an rcu_head and a bitmap, 16 + 8 * ceil(S / 64).
    Map,
    /// 5.13+ `shrinker_info`: a 32-byte header, `nr_deferred[S]` (8 each) and the bitmap,
    /// with S rounded up to a multiple of 64: 32 + 8 S + S / 8.
    WithDeferred,
}

/// Accounted (`SLAB_ACCOUNT`) slab caches a fork + exec + exit of a short program allocates
/// from (kernel/fork.c, fs/exec.c): task_struct, cred_jar, pid, mm_struct, vm_area_struct,
/// anon_vma, anon_vma_chain, files_cache, fs_cache, signal_cache, sighand_cache, filp.
pub const FORK_EXEC_CACHES: u64 = 12;
/// Accounted caches a file creation allocates from: dentry, and the file system's inode cache.
pub const CREATE_CACHES: u64 = 2;
/// Slab a dentry takes: 192-byte objects, 21 to a 4 KiB slab (/proc/slabinfo on Debian 6.1
/// in QEMU: objperslab 21, pagesperslab 1), so 4096 / 21 = 195 bytes each.
pub const DENTRY_SLAB: u64 = 195;
/// Slab a page's buffer head takes on a file system with page-sized blocks: `buffer_head`
/// objects of 104 bytes, 39 to a 4 KiB slab (/proc/slabinfo on this project's 6.18 host:
/// objsize 104, objperslab 39, pagesperslab 1), so 4096 / 39 = 105 bytes. Measured in a cgroup
/// v1 memcg on that host: writing 18 MiB of new files charged 496 KiB of kmem that dropping
/// them gave back (4608 pages: 108 bytes each, with the files' xarray nodes).
pub const BUFFER_HEAD_SLAB: u64 = 105;
/// Slab a tmpfs inode takes: `shmem_inode_cache` objects of 784 bytes, 40 to a 32 KiB slab
/// (slabinfo, 6.1), so 819 bytes each, plus its LSM blob (`lsm_inode_cache`, 32 bytes with
/// Debian's LSMs). 5.x's objects are 32 bytes smaller; the 6.1 figure is used for all eras.
pub const SHMEM_INODE_SLAB: u64 = 819 + 32;
/// Names of a memory cgroup's control files, `kstrdup()`ed by kernfs and freed with them:
/// 22 in kmalloc-16 and 11 in kmalloc-32 per cgroup on 6.1 (slabinfo), 21 bytes a file.
pub const KERNFS_NAME: u64 = 21;
/// IDR nodes (`radix_tree_node`, 584 bytes, 64 ids each) for the kernfs inode numbers of a
/// cgroup's directory and files: 584 x 35 / 64 per memory cgroup on 6.1.
pub const KERNFS_IDR_PER_FILE: u64 = 584 / 64;

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
    /// The memcg charge path's era ([`ChargePath`]): 3.13's `mem_cgroup_do_charge()` under
    /// `__mem_cgroup_try_charge()`, or the `try_charge()`/`try_charge_memcg()` that Johannes
    /// Weiner's 3.17-3.19 rework left.
    pub charge_path: ChargePath,
    /// Readahead charges its pages with `__GFP_NORETRY` (`readahead_gfp_mask()`, 8a5c743e308d
    /// "mm, memcg: use consistent gfp flags during readahead", 4.8): a failing charge gives up
    /// after one reclaim pass (and the drained one). Before, `read_pages()` and
    /// `mpage_readpages()` add the preallocated pages with `add_to_page_cache_lru(...,
    /// GFP_KERNEL)` (3.13 mm/readahead.c, fs/mpage.c; `mapping_gfp_constraint(mapping,
    /// GFP_KERNEL)` in 4.4): the charge reclaims and retries as any other
    /// (`MEM_CGROUP_RECLAIM_RETRIES`), only the page allocation itself is `__GFP_NORETRY`
    /// (`page_cache_alloc_readahead()`).
    pub readahead_charge_noretry: bool,
    /// Readahead allocates inside `memalloc_nofs_save()` (`page_cache_ra_unbounded()`,
    /// `page_cache_ra_order()`; f2c817bed58d "mm: Use memalloc_nofs_save in readahead path",
    /// 5.8): the reclaim its allocations and charges enter has no `__GFP_FS`
    /// (`current_gfp_context()`), so `too_many_isolated()` does not count only an eighth of
    /// the inactive list for it. Before, the mapping's gfp (`GFP_HIGHUSER_MOVABLE` on ext4)
    /// kept `__GFP_FS`.
    pub readahead_memalloc_nofs: bool,
    /// `folio_activate()` counts `PGACTIVATE` (vmstat and the memcg's) by the folio's pages: 5.8's
    /// `__activate_page()` `__count_vm_events(PGACTIVATE, hpage_nr_pages(page))` (5d91f31faf8e
    /// "mm: swap: fix vmstats for huge pages") and `__count_memcg_events(lruvec_memcg(lruvec),
    /// PGACTIVATE, nr_pages)` (the same series' "mm: swap: memcg: fix memcg stats for huge
    /// pages", 5.8); 6.1 `folio_activate_fn()`, 6.18 `lru_activate()`: `folio_nr_pages(folio)`.
    /// Before, one `__count_vm_event(PGACTIVATE)` a page-cache head (3.13-5.7
    /// `__activate_page()`), a shmem huge page of 512 counted once, and no memcg event at all
    /// (2262185c5b28 "mm: per-cgroup memory reclaim stats" missed this site until 5.8).
    pub pgactivate_nr_pages: bool,
    /// `post_alloc_hook()` zeroes every page the buddy allocator hands out
    /// (`kernel_init_pages()` when `want_init_on_alloc()`: `CONFIG_INIT_ON_ALLOC_DEFAULT_ON`, or
    /// `init_on_alloc=1`; 6471384af2a6 "mm: security: introduce init_on_alloc=1 and
    /// init_on_free=1 boot options", 5.3), page-cache pages included, which are then read or
    /// written over: `CpuCost::clear_page` a page besides `add_page`. A build's config, not an
    /// era: on in Debian's 6.1 and 6.12, the lab's QEMU guests (their /boot/config-6.1.0-57-amd64
    /// and config-6.12.117+deb12-amd64: `CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y`; a profiled guest
    /// spent 36% of readahead's own time outside reclaim in `clear_page_erms()` under
    /// `get_page_from_freelist()`, lab/measurements/guest-cpu-profile); off in the reference
    /// machine's 6.18 (its /proc/config.gz: not set), where `CpuCost` was measured, so
    /// `add_page` holds no zeroing; off in the lab's tinyconfig 6.1 build and in the older
    /// profiles (before 5.3, or builds whose config is not known here). Every buddy
    /// allocation the engine takes a frame for is zeroed (`Kernel::post_alloc_init`): page-
    /// and swap-cache folios, COW copies, slab frames, zswap's pool pages, and THPs, which
    /// `clear_huge_page()` zeroes again (until 5708d96da20b, 6.13). A base anonymous page is
    /// zeroed once either way (x86's `__GFP_ZERO`, the same `kernel_init_pages()`).
    pub init_on_alloc: bool,
    /// `inactive_is_low()` rule for the file lists (mm/vmscan.c).
    pub file_inactive_ratio: InactiveRatio,
    /// Refault detection with shadow entries (mm/workingset.c, v3.15+).
    pub workingset_refault: bool,
    /// The shadow-node shrinker's cap.
    pub shadow_node_cap: ShadowNodeCap,
    /// The shadow-node shrinker is a zero-seek shrinker (`.seeks = 0`, v4.19+, "mm: zero-seek
    /// shrinkers"): `do_shrink_slab()` scans half of what `count_shadow_nodes()` reports as
    /// freeable plus the work deferred from earlier calls (`nr_deferred >> priority`), in
    /// batches of `SHRINK_BATCH`, and defers what it did not scan (the scan loop runs only
    /// while a whole batch, or everything freeable, is due). Before (4.4's `DEFAULT_SEEKS`
    /// and a scan proportional to the LRU pages scanned) the engine trims the list to its cap
    /// at every call.
    pub shadow_shrinker_zero_seek: bool,
    /// Shadow entries name the reclaim target's lruvec, ages propagate to ancestors, and a
    /// refault is judged against the target's hierarchical active list (v5.5+, b910718a948a
    /// "mm: vmscan: detect file thrashing at the reclaim root"). Before, the page's own
    /// memcg's lruvec, with local ages and the local active list.
    pub eviction_at_reclaim_root: bool,
    /// `workingset_eviction()` reads the age before ageing it for this eviction (v5.12+,
    /// ac35a4902374); before, it aged first (`atomic_long_inc_return()`).
    pub eviction_reads_age_first: bool,
    /// A file refault's working set counts the anon lists when the eviction memcg (the one
    /// the shadow names) has swap room: `mem_cgroup_get_nr_swap_pages(eviction_memcg)` in
    /// `workingset_test_recent()` (linux-6.6 and 6.12 mm/workingset.c; Johannes Weiner's
    /// "workingset: fix confusion around eviction vs refault container", after 6.1). Before
    /// (linux-6.1 `workingset_refault()`), the refaulting folio's memcg's swap room:
    /// `mem_cgroup_get_nr_swap_pages(memcg)`, `memcg = folio_memcg(folio)`.
    pub refault_swap_room_at_eviction: bool,
    /// How limit reclaim walks the target's subtree.
    pub reclaim_walk: ReclaimWalk,
    /// Read faults on file mappings map the resident pages around the fault
    /// (`do_fault_around()` -> `filemap_map_pages()`, `fault_around_bytes` = 64K; v3.15+,
    /// 8c6e50b0290c "mm: introduce vm_ops->map_pages()"). Before, one page per fault.
    pub fault_around: bool,
    /// Reclaim deactivates the active file list whenever the reclaim root saw refault
    /// activations since its last reclaim ("When refaults are being observed, it means a new
    /// workingset is being established. Deactivate to get rid of any stale active pages
    /// quickly": `sc->may_deactivate` in `prepare_scan_count()`/`shrink_node()` and
    /// `snapshot_refaults()`, v5.9+, b91ac374346b "mm: vmscan: enforce inactive:active ratio
    /// at the reclaim root"), not only when the inactive list is low.
    pub deactivate_on_refault: bool,
    /// `pgfault` counts every `handle_mm_fault()` call, a fault retried after I/O
    /// (`VM_FAULT_RETRY`) twice (before 6.4); from 6.4 (53156443a303 "mm: do not increment
    /// pgfault stats when page fault handler retries") `mm_account_fault()` counts a fault
    /// once, when it completes.
    pub pgfault_counts_retries: bool,
    /// `do_swap_page()` maps an exclusive page writable on a load too (clean; the CPU sets
    /// the dirty bit at the first store), from 6.11 (c18160dba5ff "mm: swap: reuse exclusive
    /// folio directly instead of wp page faults"); before, a load maps it write-protected and
    /// the first store takes a `do_wp_page()` fault (counted in pgfault) that reuses it.
    pub swapin_maps_writable: bool,
    /// The request `blk_add_rq_to_plug()` peeks at for its `BLK_PLUG_FLUSH_SIZE` test
    /// (blkdev.rs [`crate::blkdev::PlugPeek`]): none before 4.10, the newest 4.10-6.12, the
    /// oldest from 6.13 ("block: add a rq_list type": requests added at the tail,
    /// `rq_list_peek()` the head). The plug of swap I/O (swap readahead, reclaim's swap writes,
    /// [`crate::blkdev::BlkPlug`]) is modelled in every era; only this test differs: from 6.13
    /// behind a readahead's read it holds up to 32 write requests, before a request of 128 KiB
    /// or more goes as the next one starts.
    pub blk_plug_peek: crate::blkdev::PlugPeek,
    /// The per-CPU `lru_add` batch (mm/swap.c: `lru_add_pvec` and `__lru_cache_add()` to 5.x,
    /// `cpu_fbatches.lru_add` and `folio_add_lru()` from 5.16) and its size, `PAGEVEC_SIZE`:
    /// 14 in 3.13 and 4.x (3.13's include/linux/pagevec.h; 4.4's "14 pointers + two long's"),
    /// 15 by 5.0 to 6.9 (6.1's "15 pointers + header", the header made bytes in 2017), 31 from
    /// 6.10 ("mm: increase folio batch size"). Every era
    /// modelled has it. A page in a batch is on no list (`PG_lru` clear) until the batch is
    /// moved (swap.rs [`crate::swap::FolioBatch`]; when and how: [`Self::lru_add_move`]) or
    /// `lru_add_drain()` runs.
    pub lru_add_batch: usize,
    /// When `__lru_cache_add()`/`folio_add_lru()` moves the batch (swap.rs
    /// [`crate::swap::LruAddMove`]): before the add, when full, with compound pages batched
    /// like any other, to mid-2016 (3.13, 4.4); after the add, when full or when the page is
    /// compound/large, from "mm/swap.c: flush lru pvecs on compound page arrival" (4.7).
    pub lru_add_move: crate::swap::LruAddMove,
    /// `BLK_MAX_REQUEST_COUNT`: the requests a plug holds before it is flushed, 16 before 5.16
    /// and 32 from 5.16 (blkdev.rs [`crate::blkdev::BLK_MAX_REQUEST_COUNT`]).
    pub blk_max_request_count: usize,
    /// `MADV_COLD` and `MADV_PAGEOUT` exist (v5.4+, 9c276cc65a58 and 1a4e58cce84e); before,
    /// madvise() returns EINVAL for them.
    pub madv_cold_pageout: bool,
    /// Kernel memory of one memcg.
    pub memcg_kmem: MemcgKmemCost,
    /// How memcg-aware list_lrus lay out their per-memcg lists (seed 001).
    pub list_lru_layout: crate::list_lru::ListLruLayout,
    /// `kmalloc_large()` pages (allocations above 8 KiB) count in /proc/meminfo `Slab`
    /// (`NR_SLAB_UNRECLAIMABLE_B`): seen on 6.1 in QEMU (shrinker state of 16 KiB per memcg
    /// and node grew Slab); assumed from 5.10 on, not before.
    pub kmalloc_large_in_slab: bool,
    /// A dirty file page at the inactive tail goes to the active list with `PG_reclaim`
    /// (`activate_locked`, v4.12+: c55e8d035b28 "mm: vmscan: move dirty pages out of the way
    /// until they're flushed"); before, from v3.2 (49ea7eb65e7c "mm: vmscan: immediately
    /// reclaim end-of-LRU dirty pages when writeback completes"), it stays on the inactive
    /// list (`keep_locked`, put back at the head) with `PG_reclaim`. Either way the end of its
    /// writeback rotates it to the inactive tail.
    pub reclaim_activates_dirty: bool,
    /// `throtl_trim_slice()` keeps one finished slice (v6.15, 29cb95593430 "blk-throttle: fix
    /// lower bps rate by throtl_trim_slice()": it trims once two whole slices are used, one
    /// less than they are); before, it trimmed every whole slice elapsed (Debian's 6.1 source).
    /// Mainline's order: the fix went to 6.14.2 stable; whether 6.12.y took it is not checked.
    pub throtl_trim_keeps_one_slice: bool,
    /// blk-throttle dispatches a bio `bio_issue_as_root_blkg()` names (`REQ_META | REQ_SWAP`:
    /// swap writes) at once even over the limit, charging it ("IOs which may cause priority
    /// inversions are dispatched directly", `__blk_throtl_bio()`; 29390bb5661d "blk-throttle:
    /// support prioritized processing of metadata", v6.3; Debian's 6.12 and 6.18 have it,
    /// Debian's 6.1 does not): blk_throttle.rs `ThrotlGrp::throtl_bio_in_debt`.
    pub throtl_swap_in_debt: bool,
    /// `do_async_mmap_readahead()` takes one off `ra->mmap_miss` only for a folio that is not
    /// locked (v6.18, e338d8353154 "mm: readahead: improve mmap_miss heuristic for concurrent
    /// faults", Roman Gushchin, posted August 2025, merged for 6.18: "If the folio is locked,
    /// we're likely racing against another fault"); before, for every folio a fault finds.
    pub mmap_miss_skips_locked: bool,
    /// `filemap_map_pages()` takes one off `ra->mmap_miss` only for a page whose folio is not
    /// `PG_workingset` (`filemap_map_folio_range()`/`filemap_map_order0_folio()`: "If there
    /// are too many folios that are recently evicted in a file, they will probably continue to
    /// be evicted ... Don't decrease mmap_miss"; v6.10, 5c46d5319bde "mm/filemap: don't
    /// decrease mmap_miss when folio has workingset flag", Liu Shixin); before, for every
    /// up-to-date page it meets. `do_async_mmap_readahead()` was left as it was.
    pub mmap_miss_skips_workingset: bool,
    /// A written page's buffer heads are charged to its memcg (v4.19+: `alloc_page_buffers()`
    /// allocates with `__GFP_ACCOUNT` under the page's memcg, "fs, mm: account buffer_head to
    /// kmem cgroup"); before, they were not accounted.
    pub account_buffer_heads: bool,
    /// The page cache's tree nodes (`radix_tree_node` / `xa_node`, 576-byte slab objects, one
    /// per 64 slots) are charged to the memcg of the task that inserts the page needing them:
    /// v4.6 (58e698af4c63 "radix-tree: account radix_tree_node to memory cgroup"), lost when
    /// the page cache moved to the xarray in v4.20, restored in v5.2 (7b785645e8f1 "mm: fix
    /// page cache convergence regression", backported to 4.20+ stable).
    pub account_xa_nodes: bool,
    /// The page cache stores a large folio as one multi-index entry (`XA_STATE_ORDER()` /
    /// `xas_set_order()` in `__filemap_add_folio()` and `shmem_add_to_page_cache()`; its
    /// shadow at the same order, `xas_set_order()` in `page_cache_delete()`): a folio of order
    /// 6-11 is 1-32 slots (canonical + siblings) of a shift-6 node with no leaf below, a
    /// smaller folio landing in such a shadow splits it into leaves (`xas_split_alloc()` +
    /// `xas_split()`), and the shift-6 node goes on the shadow-node list when it holds only
    /// shadows (`workingset_update_node()`). From v5.17 (6b24ca4a1a8d "mm: Use multi-index
    /// entries in the page cache", the folio page-cache series; read here in 6.1's
    /// mm/filemap.c, mm/shmem.c and lib/xarray.c; 6.18's per bias21's reading). Before, a
    /// tmpfs THP was stored one slot a page (4.20-5.16 `shmem_add_to_page_cache()`:
    /// `xas_create_range()` then `xas_store()` of each subpage; 4.x `radix_tree_insert()` of
    /// each subpage), and so is a large folio here: a leaf per 64 pages.
    pub xa_multi_index: bool,
    /// An invalidation (`invalidate_mapping_pages()`, fadvise DONTNEED) passes over pages under
    /// writeback without touching them (v5.12+: `find_lock_entries()` skips them, 5c211ba29deb
    /// "mm: add and use find_lock_entries"); before, it tried them like any other page and
    /// deactivated them with `PG_reclaim` when they could not be dropped (mm/truncate.c).
    pub invalidate_skips_writeback: bool,
    /// A buffered write marks each page it writes accessed, as a read does: up to v4.6
    /// (`mark_page_accessed()` in 3.13's `generic_perform_write()`, `FGP_ACCESSED` in
    /// `grab_cache_page_write_begin()` from 3.16), so a page written then read is activated
    /// by the read. From v4.7 (bbddabe2e436 "mm: filemap: only do access activations on
    /// reads") writes leave the page unreferenced, and only reads activate. tmpfs is not
    /// concerned: `shmem_get_folio_gfp()` marks a page written with `SGP_WRITE` in every era.
    pub write_marks_accessed: bool,
    /// THP defrag defaults to "madvise" (v4.6+, 444eb2a449ef "mm: thp: set THP defrag by
    /// default to madvise and add a stall-free defrag option"): a fault in a mapping without
    /// MADV_HUGEPAGE asks without reclaim flags (the mask named `GFP_TRANSHUGE_LIGHT` from 4.8),
    /// so no direct compaction or reclaim (no profile covers 4.6-4.7, whose slowpath gave up
    /// even before its attempt at the min watermark). Before,
    /// "always": `GFP_TRANSHUGE`, direct compaction and reclaim.
    pub thp_defrag_madvise: bool,
    /// Whether reclaim's `add_to_swap()` of an anonymous PMD-mapped THP gets 512 contiguous
    /// slots and writes it whole (`THP_SWPOUT`), or splits it and swaps its pages one by one
    /// (`THP_SWPOUT_FALLBACK`): swapfile.rs [`crate::swapfile::ThpSwapOut`].
    pub thp_swapout: crate::swapfile::ThpSwapOut,
    /// What a swap-in fault on a subpage of a large swap-cache folio (an anonymous THP
    /// written whole, [`crate::swapfile::ThpSwapOut`]) maps: [`KsmSwapinCopy`].
    pub swapin_copies_large_tails: KsmSwapinCopy,
    /// cgroup writeback (v4.2, the series ending in 1ed8d48c57bf "writeback: implement
    /// memcg writeback domain based throttling"): on cgroup v2 each memcg is a writeback
    /// domain (`wb_domain`) with dirty limits of its own (`mem_cgroup_wb_stats()`,
    /// `mdtc_calc_avail()`), its own flusher work, and `balance_dirty_pages()` throttles a
    /// writer against both the global and its memcg's domain. cgroup v1 only ever has the
    /// global domain.
    pub cgroup_writeback: bool,
    /// Reclaim meeting dirty pages wakes the flusher for every dirty page ("flush the world":
    /// `wakeup_flusher_threads(0, WB_REASON_VMSCAN)`, Johannes Weiner's series with "mm:
    /// vmscan: kick flushers when we encounter dirty pages on the LRU", the one that also
    /// activates dirty pages, `reclaim_activates_dirty`; 4.14 made every wakeup a full flush,
    /// "fs: kill 'nr_pages' argument from wakeup_flusher_threads()"); before, direct reclaim
    /// asked for about what it had scanned (modelled as one batch of 1024 pages).
    pub flusher_wakeup_writes_all: bool,
    /// `MEMCG_CHARGE_BATCH`: pages a charge takes from the page counter at once into the
    /// per-CPU stock (`consume_stock()`/`refill_stock()`): 64 from 6.1 (1813e51eece0 "memcg:
    /// increase MEMCG_CHARGE_BATCH to 64"), 32 before (`CHARGE_BATCH`).
    pub memcg_charge_batch: u64,
    /// Memcgs one CPU's charge stock caches at once (`memcg_stock_pcp`,
    /// [`crate::memcontrol::MemcgStock`]): 7 (`NR_MEMCG_STOCK`) from 6.16 (f735eebe55f8f
    /// "memcg: multi-memcg percpu charge cache"), where a charge of another memcg on the CPU
    /// takes a free slot; 1 before (`stock->cached`), where it drains the CPU's stock
    /// (`refill_stock()`: "reset if necessary").
    pub memcg_stock_slots: usize,
    /// An OOM kill is counted: /proc/vmstat `oom_kill` and the victim's memcg's
    /// `MEMCG_OOM_KILL` (memory.events `oom_kill`, v1 memory.oom_control `oom_kill`), both in
    /// `__oom_kill_process()` (4.13, 8e675f7af507 "mm/oom_kill: count global and memory cgroup
    /// oom kills"). Before, neither counter exists (and 3.13-4.18 kill a memcg's task only at
    /// the end of a user page fault, `mem_cgroup_oom_synchronize()`): nothing is counted.
    pub oom_kill_events: bool,
    /// Whether v2's memory.events counters propagate to every ancestor below the root
    /// (`memcg_memory_event()`'s loop; 5.2, 9852ae3fe529 "mm, memcg: consider subtrees in
    /// memory.events"); before, each memcg counts only its own events.
    pub memory_events_recursive: bool,
    /// Where memory.events `oom` is counted ([`MemcgOomEvent`]): in `mem_cgroup_oom()` from
    /// 4.19, in `try_charge()` 4.0-4.18, nowhere in 3.13.
    pub memcg_oom_event: MemcgOomEvent,
    /// Whether `try_charge_memcg()`'s forced charge (`force:`: a `PF_MEMALLOC` task, e.g.
    /// reclaim's own allocations such as zswap's store and writeback, that cannot charge
    /// below the limit) raises memory.events `max` on the memcg over its limit when the
    /// reclaim path did not already ("if (!raised_max_event) memcg_memory_event(mem_over_limit,
    /// MEMCG_MAX);"): 6.0 (mm-stable-2022-08-03 for 5.20-rc1, Roman Gushchin "mm: memcontrol:
    /// do not miss MEMCG_MAX events for enforced allocations"). Before, a forced charge counts
    /// no event (4.x-5.19's `try_charge()`/`try_charge_memcg()` go to `force:` past it).
    pub memcg_max_event_on_force: bool,
    /// When kswapd finds a node balanced ([`PgdatBalanced`]): any zone above its high
    /// watermark from 4.8, every (reclaimable) zone before.
    pub pgdat_balanced: PgdatBalanced,
    /// vmstat counts direct reclaim per zone of the request (`allocstall_normal`,
    /// `allocstall_movable`, ...; "mm: vmstat: account per-zone stalls and pages skipped during
    /// reclaim", v4.8) instead of one `allocstall` (3.x-4.7).
    pub allocstall_per_zone: bool,
    /// What kswapd does after `balance_pgdat()` reclaimed nothing (mm/vmscan.c). 4.12+
    /// (c73322d098e4 "mm: fix 100% CPU kswapd busyloop on unreclaimable nodes"): the pass
    /// counts `pgdat->kswapd_failures++`; at `MAX_RECLAIM_RETRIES` (16) failures
    /// `prepare_kswapd_sleep()` lets kswapd sleep and `wakeup_kswapd()` leaves the "hopeless
    /// node" to direct reclaim, until a `shrink_node()` of any reclaimer makes progress on it
    /// ("if (reclaimable) pgdat->kswapd_failures = 0"). Before (3.11-4.11), kswapd has no
    /// such count: `kswapd_try_to_sleep()` sleeps only once `pgdat_balanced()` holds, a zone
    /// that is no longer `zone_reclaimable()` counting as balanced, and until then kswapd
    /// goes on with `balance_pgdat()` without sleeping.
    pub kswapd_failures: bool,
    /// memory.high throttles: `mem_cgroup_handle_over_high()` retries reclaim while it makes
    /// progress and sleeps `calculate_high_delay()` (up to 2 s per return to user space) when
    /// the memcg stays far above high (v5.4, 0e4b01df8659 "mm, memcg: throttle allocators when
    /// failing reclaim over memory.high", retries from v5.8 "mm, memcg: reclaim more
    /// aggressively before high allocator throttling"; no profile lies between 5.4 and 5.8).
    /// Before, only `reclaim_high()` of the pages charged.
    pub memcg_high_delay: bool,
    /// A task more than a charge batch over memory.high reclaims synchronously inside the
    /// charge, not only on return to user space (v5.18, c9afe31ec443 "memcg: synchronously
    /// enforce memory.high for large overcharges").
    pub memcg_high_sync: bool,
    /// `should_reclaim_retry()` counts a round without progress only when less than half of the
    /// reclaimable memory waits for writeback; otherwise it waits for I/O and retries (4.7,
    /// 0a0337e0d1d1 "mm, oom: rework oom detection", to 5.15; 5.16 replaced the wait with
    /// `reclaim_throttle()` inside reclaim).
    pub oom_waits_on_write_pending: bool,
    /// How reclaim waits on writeback (`congestion_wait()` before 5.16, `reclaim_throttle()`
    /// since); see [`ReclaimThrottle`].
    pub reclaim_throttle: ReclaimThrottle,
    /// Legacy (v1) memcg reclaim that wakes the flusher (`nr_unqueued_dirty == nr_taken`) also
    /// throttles there, `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` in
    /// `shrink_inactive_list()` (v6.1, 81a70c21d917 "mm/cgroup/reclaim: fix dirty pages
    /// throttling on cgroup v1"); before, it only waited on pages it had already marked
    /// (`folio_wait_writeback()` in `shrink_page_list()`).
    pub v1_reclaim_throttle: bool,
    /// The `too_many_isolated()` wait of direct reclaim in `shrink_inactive_list()`; see
    /// [`IsolatedThrottle`].
    pub isolated_throttle: IsolatedThrottle,
    /// How the block layer hands out requests (`get_request()` on the legacy request list
    /// before 5.0, scheduler tags on blk-mq after, mq-deadline's async depth from 5.14); see
    /// [`crate::blkdev::BlkQueue`].
    pub blk_queue: crate::blkdev::BlkQueue,
    /// blk-wbt on every blk-mq queue by default (blkdev/wbt.rs; 4.10, e34cbd307477 "blk-wbt:
    /// add general throttling mechanism" and 87760e5eef35 "block: hook up writeback
    /// throttling"; `CONFIG_BLK_WBT=y` in Debian's configs with `CONFIG_BLK_WBT_MQ` "default y",
    /// `wbt_enable_default()` at queue registration; the lab's 6.1 guest's /dev/vda shows
    /// `wbt_lat_usec` 75000 and the host's 6.18 loop devices 2000). The profiles before 4.10
    /// (3.13, 4.3, 4.4) have none; the legacy request path's `CONFIG_BLK_WBT_SQ` (4.12-4.20,
    /// "default n") is not a profile of the engine's.
    pub wbt: bool,
    /// blk-wbt's `wb_recent_wait()` counts a `balance_dirty_pages()` sleep on any wb of the
    /// bdi (`bdi->last_bdp_sleep`; 6.8, f814bdda774c "blk-wbt: Fix detection of
    /// dirty-throttled tasks", Jan Kara, also in 6.7.y stable); before, only a sleep on the
    /// bdi's root wb (`wb->dirty_sleep` of `bdi->wb`: a writer in a cgroup v2 memcg of its own
    /// never counts; Debian's 6.1.192 source still has it so). The linux-6.6 profile is the
    /// 6.6 release, before the fix.
    pub wbt_last_bdp_sleep: bool,
    /// blk-wbt gives `max_depth` to swap writes (`REQ_SWAP` in `REQ_HIPRIO`, their own
    /// `WBT_RWQ_SWAP`), not to kswapd's (Baokun Li's "blk-wbt: don't throttle swap writes in
    /// direct reclaim", posted 2024-06-04 for 6.11); before (6.1's `get_limit()`:
    /// `current_is_kswapd()`), every write kswapd submits gets `max_depth` (its file pageout
    /// too) and direct reclaim's swap writes the usual limits. The engine tracks no swap
    /// writes (blkdev/wbt.rs), so what moves is kswapd's file pageout: `wb_normal` with this.
    pub wbt_swap_hiprio: bool,
    /// One full flush pending or in flight per wb (`WB_start_all`; 4.14, 85009b4f5f03
    /// "writeback: eliminate work item allocation in bd_start_writeback()", Jens Axboe):
    /// `wakeup_flusher_threads()` while it is set adds nothing, and the flush counts the dirty
    /// pages when it starts (`wb_check_start_all()`); before, each call queued a work item of
    /// its own (page_writeback.rs `Kernel::wakeup_flusher_threads`).
    pub wb_start_all: bool,
    /// `throttle_vm_writeout()` at the end of `shrink_lruvec()` (2.6-4.8; c2aa723a6093 "mm:
    /// remove throttle_vm_writeout()", 4.9): reclaim sleeps `congestion_wait(BLK_RW_ASYNC,
    /// HZ/10)` while the pages under writeback exceed the global dirty limit plus a tenth.
    pub throttle_vm_writeout: bool,
    /// User page tables are charged to the memcg as kernel memory (`__GFP_ACCOUNT` in x86's
    /// page-table allocations, v4.5, Vladimir Davydov's "arch: x86: charge page tables to
    /// kmemcg"); one page per 2 MiB of anonymous memory touched.
    pub account_page_tables: bool,
    /// `ra->prev_pos` is the position after the last read (`iocb->ki_pos`, from the 5.11
    /// rework of `generic_file_buffered_read()` into `filemap_read()`); before, the last byte
    /// read (`prev_index << PAGE_SHIFT | prev_offset`). Readahead's sequential test compares
    /// the missed index with `prev_pos >> PAGE_SHIFT`.
    pub ra_prev_pos_after_read: bool,
    /// `filemap_read()` sets `ra->prev_pos` once, when the read returns (`last_pos`, v6.6:
    /// Haibo Li, "mm/filemap.c: fix update prev_pos after one read request done"); before,
    /// after each folio it copied. From 6.6 a miss inside a read, after folios it found, is
    /// therefore not sequential for `page_cache_sync_ra()` (the missed index is more than one
    /// page past the previous read's end): it takes the context readahead of the pages cached
    /// before it, instead of a fresh ramp-up window.
    pub ra_prev_pos_per_read: bool,
    /// A read larger than the readahead window may read up to the device's optimal I/O size,
    /// `bdi->io_pages` (its `max_sectors_kb` in pages): `ondemand_readahead()` from 4.10
    /// (Jens Axboe, "mm: don't cap request size based on read-ahead setting"),
    /// `ractl_max_pages()` in `page_cache_sync_ra()`/`page_cache_async_ra()` from 6.11.
    pub ra_io_pages: bool,
    /// `page_cache_ra_unbounded()` stops its loop when `filemap_add_folio()` fails with
    /// `-ENOMEM` (readahead's `__GFP_NORETRY` memcg charge failed after its one reclaim pass)
    /// and submits what it added, as it stops when the allocation fails: 6.10+ (Liu Shixin,
    /// "mm/readahead: break read-ahead loop if filemap_add_folio return -ENOMEM"). Before, it
    /// submitted the batch and went on with the next page, charging (and reclaiming) page
    /// by page to the window's end (Debian's 6.1.192 read).
    pub ra_enomem_stops: bool,
    /// `do_sync_mmap_readahead()`'s `VM_EXEC` branch, 6.16+ (3b61a3f08949, Ryan Roberts,
    /// "mm/filemap: allow arch to request folio size for exec memory"): a major fault on an
    /// executable file mapping reads from the fault (rounded down to `exec_folio_order()`: 0
    /// on x86, include/linux/pgtable.h's default) forward, `ra_pages` at most and never past
    /// the VMA's end, with no asynchronous part (`async_size = 0`: no `PG_readahead` mark), and
    /// `VM_RAND_READ` does not turn it off; before, every mapping reads around the fault
    /// (`ra_pages` from `pgoff - ra_pages / 2`, the last quarter asynchronous), unbounded by
    /// the VMA.
    pub exec_ra_forward: bool,
    /// `ondemand_readahead()` before 6.11 takes a synchronous miss at the window's expected
    /// `PG_readahead` index or at its end for an asynchronous hit (moves the window on and
    /// ramps it up); 6.11+ (Jan Kara, "readahead: Make sure sync readahead reads needed page")
    /// does so only for a marked folio, and a miss always starts a window at the missed page
    /// (Debian's 6.1.192 has the old test).
    pub ra_sync_miss_as_hit: bool,
    /// An asynchronous window at the expected index keeps the previous window's size when
    /// `get_next_ra_size()` would give less (`ra->size = max(ra->size, get_next_ra_size(ra,
    /// max_pages))`, "In the case of MADV_HUGEPAGE, the actual size might exceed the readahead
    /// window": in 6.1's and 6.18's mm/readahead.c, from 5.18's large-folio readahead); before,
    /// the window is `get_next_ra_size()` of the read's limit, which is smaller than a window
    /// a larger read opened up to `io_pages`.
    pub ra_keep_larger_window: bool,
    /// A wb's share of a dirty threshold is at least 1/8 of what its domain has left under it
    /// (`__wb_calc_thresh()`, v6.14, Jim Zhao's "mm/page-writeback: raise wb_thresh to prevent
    /// write blocking with strictlimit"); before, a wb that completed no write recently has a
    /// share of 0, and the flusher writes its dirty pages at its next wake-up.
    pub wb_thresh_floor: bool,
    /// A `schedule_timeout()` sleep ends one tick after its expiry, at least (4.8's non-cascading
    /// timer wheel: `calc_index()` rounds the expiry up with the level's granularity, timer.rs);
    /// before 4.8 it ended at the tick of its expiry. Sets when `balance_dirty_pages()`'s
    /// pauses end, and so the think time the next call finds.
    pub timer_wheel_round_up: bool,
    /// `vm.dirty_ratio` default (mm/page-writeback.c).
    pub dirty_ratio: u32,
    /// `vm.dirty_background_ratio` default.
    pub dirty_background_ratio: u32,
    /// `vm.dirty_bytes` (0, the default: `vm.dirty_ratio` applies; `kernel.dirty_bytes`).
    pub dirty_bytes: u64,
    /// `vm.dirty_background_bytes` (0, the default: `vm.dirty_background_ratio` applies;
    /// `kernel.dirty_background_bytes`).
    pub dirty_background_bytes: u64,
    /// `vm.watermark_scale_factor` (v4.6+; `None` before: low = 5/4 min, high = 3/2 min).
    pub watermark_scale_factor: Option<u32>,
    /// `__zone_watermark_ok()` for order > 0 subtracts every lower order's free pages and
    /// halves the watermark per order (before v4.4, 97a16fc82a7c "mm, page_alloc: only
    /// enforce watermarks for order-0 allocations"); since, any free block of the order will do.
    pub watermark_check_lower_orders: bool,
    /// The fair zone allocation policy (3.12, 81c0a2bb515f, to 4.7, removed with node-based
    /// LRUs): the fast path first allocates only from the local node's zones, each up to a
    /// batch of `high - low` pages per round, then everywhere.
    pub fair_zone_alloc: bool,
    /// How the page allocator decides that reclaim is hopeless (the OOM path). Before 4.7
    /// (0a0337e0d1d1 "mm, oom: rework oom detection"), `do_try_to_free_pages()` reports
    /// progress while any zone of the zonelist is `zone_reclaimable()` (fewer pages scanned
    /// since the last free than 6x its reclaimable pages), and `should_alloc_retry()` retries an
    /// order-0 request for as long as it does: `true`. Since 4.7, `should_reclaim_retry()`
    /// gives up after `MAX_RECLAIM_RETRIES` (16) rounds in a row without progress: `false`.
    pub oom_zone_reclaimable: bool,
    /// A THP fault allocates with `__GFP_THISNODE` from the faulting task's node only (4.0+,
    /// 5265047ac301 "mm, thp: really limit transparent hugepage allocation to local node");
    /// before, through the fallback zonelist (other nodes too).
    pub thp_thisnode: bool,
    /// The kernel has the multi-generational LRU built in (`CONFIG_LRU_GEN`, v6.1, ec1c86b25f4b
    /// "mm: multi-gen LRU: groundwork"); `kernel.lru_gen = true` may switch it on.
    pub lru_gen_available: bool,
    /// Reclaim uses the multi-generational LRU (`/sys/kernel/mm/lru_gen/enabled` = y, the
    /// default of `CONFIG_LRU_GEN_ENABLED` kernels: Fedora, Arch, Ubuntu 23.10+) instead of the
    /// active/inactive lists; see [`crate::lru_gen`]. Debian builds it in off.
    pub lru_gen: bool,
    /// `/sys/kernel/mm/lru_gen/min_ttl_ms` (default 0, off): kswapd does not age a memcg whose
    /// oldest file generation is younger than this, and when no memcg passes it invokes the
    /// OOM killer (`lru_gen_age_node()` -> `out_of_memory()`, 6.1; oom_kill.rs).
    pub lru_gen_min_ttl_ms: u64,
    /// The memcg LRU for global reclaim under the multi-generational LRU (6.3, e4dde56cd208
    /// "mm: multi-gen LRU: per-node lru_gen_folio lists"): memcgs of a node in two
    /// generations of `MEMCG_NR_BINS` bins (`pgdat->memcg_lru`), global reclaim walks the old
    /// generation's bins (`shrink_many()`) and rotates each memcg it reclaimed from
    /// (`lru_gen_rotate_memcg()`), the lruvec's eviction ages it when it runs out of cold pages
    /// and stops there (`get_nr_to_scan()` returning -1), kswapd does not age
    /// (`lru_gen_age_node()` checks `min_ttl_ms` only). Before 6.3 global reclaim walks every
    /// memcg (`shrink_node_memcgs()`) and kswapd ages first. See [`crate::lru_gen`].
    pub lru_gen_memcg_lru: bool,
    /// lru_gen's workingset counters as 6.5+ keeps them (Kalesh Singh, "mm: Multi-gen LRU:
    /// fix workingset accounting", 6.5): `lru_gen_refault()` counts `workingset_refault_*` for
    /// every refault into the lruvec the page was evicted from, recent or not, and
    /// `workingset_activate_*` for a recent one (the generation it was evicted from is still
    /// the oldest: `lru_gen_test_recent()`), where only those feed the PID controller;
    /// `sort_folio()` no longer counts `workingset_activate_*` for a protected tier. Before
    /// (Debian's 6.1.192): a refault counts only when recent, activations come from
    /// `sort_folio()`. (6.14's `lru_gen_test_recent()` by distance to `max_seq` is not modelled.)
    pub lru_gen_refault_activates: bool,
    /// `prepare_scan_control()` reads the reclaim root's rstat copy of its counters without
    /// flushing them first (6.12, Shakeel Butt, "memcg: use ratelimited stats flush in the
    /// reclaim": `mem_cgroup_flush_stats_ratelimited()`, which flushes only when the periodic
    /// flusher is a full cycle late): the hierarchical LRU sizes it decides deactivation
    /// (`inactive_is_low()`) and `cache_trim_mode` from are as the last periodic
    /// `flush_memcg_stats_dwork()` left them, up to one period old (`FLUSH_TIME`, 500 jiffies, requeued on
    /// the timer wheel: 504 jiffies, 2.016 s, [`crate::memcontrol::stats_flush_requeue`])
    /// ([`crate::memcontrol::FLUSH_TIME`], [`crate::mmzone::LruvecStats::flushed_subtree_size`]).
    /// Before (6.1's `prepare_scan_count()`: `mem_cgroup_flush_stats()`, "so that we read
    /// accurate per-memcg lruvec stats for heuristics"), reclaim flushes whenever more than
    /// `MEMCG_CHARGE_BATCH` updates per CPU are pending: read exact here.
    pub memcg_stats_ratelimited_reclaim: bool,
    /// The fair scheduler's placement of a woken task is EEVDF's (6.6, 147f3efaa241
    /// "sched/fair: Implement an EEVDF-like scheduling policy"; 63304558ba5d "sched/eevdf: Curb
    /// wakeup-preemption", RUN_TO_PARITY): `place_entity()` keeps the sleeper's lag and
    /// `check_preempt_wakeup_fair()` preempts the running entity only when `pick_eevdf()` would
    /// pick the wakee, which it does not while the running entity's slice is protected (until
    /// its deadline, `set_protect_slice()`): beside a CPU-bound entity, a woken task waits for
    /// the rest of its slice, up to the tick that notices it is over
    /// ([`crate::sched::wakeup_runq_wait`]). Before (6.1's CFS), `place_entity()` puts a sleeper
    /// `sysctl_sched_latency / 2` behind `min_vruntime` (GENTLE_FAIR_SLEEPERS), more than
    /// `wakeup_gran()`, so `check_preempt_wakeup()` preempts at once - but only for a sleeper
    /// more than 6 ms (2 CPUs) behind `min_vruntime`: 6.1's `place_entity()` ends with
    /// `se->vruntime = max_vruntime(se->vruntime, vruntime)` (fair.c ~4700), so a task near
    /// its share with short sleeps keeps its own vruntime and `wakeup_preempt_entity()` (2 ms
    /// granularity) may not preempt; the model takes every 6.1 wake-up as preempting (review11
    /// M2, not modelled).
    pub eevdf: bool,
    /// `normalized_sysctl_sched_base_slice` (kernel/sched/fair.c; 6.1's
    /// `normalized_sysctl_sched_min_granularity`, renamed by 6.6's EEVDF): 750 us up to 6.14,
    /// 700 us from 6.15 (2ae891b82695 "sched: Reduce the default slice to avoid tasks getting
    /// an extra tick"), scaled by `get_update_sysctl_factor()` (1 + ilog2(min(CPUs, 8))). The
    /// CPU time a woken task runs before it can be preempted (EEVDF's slice; CFS's minimum
    /// granularity in `check_preempt_tick()`), and under EEVDF the slice a woken task waits
    /// out ([`crate::sched::wakeup_runq_wait`]).
    pub sched_base_slice: u64,
    /// The bound `update_entity_lag()` -> `entity_lag()` clamps a dequeued entity's lag to
    /// (kernel/sched/fair.c, EEVDF, [`crate::sched::entity_lag_limit`]): `cfs_rq_max_slice() +
    /// TICK_NSEC`, the longest slice queued plus the tick (6e3c0a4e1ad1 "sched/fair: Fix lag
    /// clamp": the host's 6.18.44 has it, its BTF `struct sched_entity` has `max_slice`; Debian's
    /// 6.12.117 does not, its BTF has no `max_slice`); before, `max(2 * se->slice, TICK_NSEC)` (6.6,
    /// 147f3efaa241 "sched/fair: Implement an EEVDF-like scheduling policy"). Only with
    /// [`KernelProfile::eevdf`].
    pub lag_clamp_max_slice: bool,
    /// DELAY_DEQUEUE and DELAY_ZERO (kernel/sched/features.h, both on by default; 6.12,
    /// 152e11f6df29 "sched/fair: Implement delayed dequeue" and 54a58a787791 "sched/fair:
    /// Implement DELAY_ZERO"): `dequeue_entity()` of a sleeper that is not eligible (negative
    /// lag) only marks it `sched_delayed` (`set_delayed()`) and leaves it queued, its lag
    /// growing as the others run, until `pick_next_entity()` picks it and dequeues it
    /// (`DEQUEUE_DELAYED`, `finish_delayed_dequeue_entity()`) or its task wakes
    /// (`ttwu_runnable()` -> `ENQUEUE_DELAYED`, `requeue_delayed_entity()`); either way a lag
    /// it turned positive is cut to 0 (DELAY_ZERO). Before (6.6), the sleeper left at once with
    /// its lag clamped and kept it across any sleep ([`crate::sched::BusyRq::delayed_lag`]).
    /// Only with [`KernelProfile::eevdf`].
    pub delay_dequeue: bool,
    /// elig55 (issue 23): a bound kworker woken by the running task (mm/vmpressure.c's work,
    /// `kick_pool()` on the task's CPU) meets the task as 6.18's kernel/sched/fair.c has them on
    /// that CPU's root run queue, the kworker with its own saved lag (`place_entity()`,
    /// `update_entity_lag()`, DELAY_DEQUEUE) and the task with its deadline and protected slice
    /// (`set_protect_slice()`, `update_deadline()`): [`crate::fair::BoundRq`]. Off, the kworker
    /// is placed at `entity_lag()`'s bound at every wake-up ([`crate::sched::bound_worker_wait`]).
    /// Off in every profile for now: the model has the mechanism but not what keeps the
    /// kworker's lag up on the host (its saved lag at the scenario writer's preempting wake-ups
    /// is 0.4-1.1 ms median, where it falls 64-155 us a work on average), such as the pool's
    /// other works (the loop device's direct-I/O completions on the same per-CPU pool).
    /// lab/validation/vmp-slice-1201/README.md "lag56": tried on for linux-6.18 with the
    /// preempting wake-ups' runs as the stale-clock input (machine.preempt_resched_runs, 122.4 us
    /// mean), the twin's host-queue writer queues 109 works a run (83 preempting, 26 kept) and
    /// swallows 498 windows, run_delay 14.0-14.7 ms, where the host's writer queues 243-302
    /// works (20-27 kept), swallows 104-176 windows and waits 40-81 ms (elig55's 94 works with
    /// pre23's input alike). Only with [`KernelProfile::eevdf`].
    pub bound_kworker_lag: bool,
    /// SIS_UTIL (kernel/sched/features.h, on by default; 6.0, 70fb5ccf2ebb "sched/fair: Introduce
    /// SIS_UTIL to search idle CPU based on sum of util_avg"; 6.1 and 6.18 have it): `select_idle_cpu()`
    /// looks at as many CPUs of the LLC as `update_idle_cpu_scan()` allows, none once the LLC's
    /// mean utilisation passes `sqrt(1 - 1 / llc_weight) * 100 / imbalance_pct` ([`crate::sched::nr_idle_scan`],
    /// [`crate::sched::end_io_placement_share`]). Before (5.x: SIS_PROP's scan by the average idle
    /// time, not modelled) off.
    pub sis_util: bool,
    /// The per-CPU page lists of order-0 frames (`struct per_cpu_pages`, mm/page_alloc.c) as
    /// 6.7 tunes them (Huang Ying, "mm, pcp: ..." series; CONFIG_PCP_BATCH_SCALE_MAX 5): a CPU
    /// whose list is empty refills it from the buddy lists with `batch << alloc_factor` frames
    /// (`nr_pcp_alloc()`: the factor doubles with each refill without a free between, up to
    /// 992 frames of a 512M zone), its `high` grows towards `high_max` (an eighth of the zone
    /// over the node's CPUs) while the zone is above its high watermark (`ZONE_BELOW_HIGH`
    /// clear), frees fill the freeing CPU's list until `nr_pcp_high()` (4 batches while
    /// kswapd reclaims, `ZONE_RECLAIM_ACTIVE`), and `decay_pcp_high()` shrinks it every
    /// second. The frames on the lists are out of `NR_FREE_PAGES`, which the watermarks
    /// read. [`crate::page_alloc::PerCpuPages`]. Off: frames come from and go to the buddy
    /// lists one at a time (the older eras' lists, refilled `batch` (31-63) frames at a
    /// time with `high` at most the low watermark over the CPUs, are not modelled).
    pub pcp_auto_tune: bool,
    /// External fragmentation boosts the watermarks (5.0+, 1c30844d2dfe "mm: reclaim small
    /// amounts of memory when an external fragmentation event occurs"): a steal from another
    /// migratetype's pageblock below pageblock order (`steal_suitable_fallback()`) raises
    /// `zone->watermark_boost` by a pageblock, up to `watermark_boost_factor` (15000) / 10000 of
    /// the high watermark (`boost_watermark()`), which every watermark includes (`wmark_pages()`);
    /// the allocation wakes kswapd (`rmqueue()`, `ZONE_BOOSTED_WATERMARK`), whose
    /// `balance_pgdat()` reclaims to the boosted high and takes the boost it started with off at
    /// its end. Before: no boost.
    pub watermark_boost: bool,
    /// How a movable allocation that found no free Movable frame takes one of another
    /// migratetype's pageblock (`__rmqueue_fallback()`, mm/page_alloc.c): see [`FallbackSteal`].
    pub fallback_steal: FallbackSteal,
    /// `vm.swappiness` (`vm_swappiness`, default 60 in every era modelled; `kernel.swappiness`
    /// sets it): the relative IO cost of swapping anonymous pages against dropping file pages.
    pub swappiness: u64,
    /// How `get_scan_count()` balances anon against file (see [`ScanBalance`]).
    pub scan_balance: ScanBalance,
    /// The cost `lru_note_cost()` (mm/swap.c) notes under [`ScanBalance::Cost`], per era.
    /// 6.2+ (0538a82c39e9 "mm: vmscan: make rotations a secondary factor in balancing anon vs
    /// file"): `cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated`, nothing noted when it is 0;
    /// `shrink_inactive_list()` notes its `stat.nr_pageout` as IO and `nr_scanned -
    /// nr_reclaimed` as rotations, `shrink_active_list()` its `nr_rotated` (referenced file
    /// folios of executable mappings kept active) as rotations, `lru_note_cost_refault()` a
    /// restored refault's pages as IO (6.18's `lru_note_cost_unlock_irq()` the same). 5.8-6.1
    /// (false): `lru_note_cost(lruvec, file, nr_pages)`, one a page written by reclaim or
    /// restored by a refault (`lru_note_cost_folio()`), no rotations.
    pub lru_cost_rotations: bool,
    /// What `shrink_lruvec()` does once its goal is met (see [`LruvecStop`]).
    pub lruvec_stop: LruvecStop,
    /// A new anonymous page starts on the inactive anon list (5.9+, b518154e59aa "mm/vmscan:
    /// protect the workingset on anonymous LRU": `lru_cache_add_inactive_or_unevictable()`);
    /// before, on the active list (`lru_cache_add_active_or_unevictable()`).
    pub anon_fault_inactive: bool,
    /// Where a swap-in's delay is accounted: 6.1's `swap_readpage()` counts the read's
    /// submission (`delayacct_swapin_start()`..`_end()`) and the fault's wait for the page
    /// is not swapin delay; older kernels (5.17 and before here) set `DELAYACCT_PF_SWAPIN`
    /// around `lock_page_or_retry()` in `do_swap_page()`, so the wait is.
    pub swapin_delay_in_readpage: bool,
    /// Refault detection for anonymous pages (5.9+, aae466b0052e "mm/swap: implement
    /// workingset detection for anonymous LRU"): reclaim leaves a shadow in the swap cache
    /// slot of a page it frees, and the swap-in that finds it runs `workingset_refault()`.
    pub anon_workingset: bool,
    /// Reclaim's putback ages the non-resident clock by the active pages it puts back on the
    /// LRU: `move_folios_to_lru()` (6.1 mm/vmscan.c; `move_pages_to_lru()` 5.9-5.x) runs
    /// `if (folio_test_active(folio)) workingset_age_nonresident(lruvec, nr_pages)` for the
    /// pages `shrink_folio_list()` activated and for the referenced executable pages
    /// `shrink_active_list()` keeps active (5.9+, 31d8fcac00fc "mm: workingset: age nonresident
    /// information alongside anonymous pages"). Before, only evictions and activations by
    /// access or refault aged it (`advance_inactive_age()`). Under the multi-generational LRU
    /// `lru_gen_add_folio()` clears `PG_active` first: no ageing.
    pub age_nonresident_on_putback: bool,
    /// zswap's memcg accounting (5.19+, f4840ccfca25 "zswap: memcg accounting" and
    /// f6498b776d28 "mm: zswap: add basic meminfo and vmstat coverage"): the compressed bytes
    /// charged to the page's memcg (cgroup v2), memory.zswap.current/max, memory.stat
    /// `zswap`/`zswapped`/`zswpin`/`zswpout`, vmstat `zswpin`/`zswpout`. Before, zswap is
    /// neither charged nor counted there.
    pub zswap_memcg: bool,
    /// zswap as 6.1 has it (frontswap hooks, non-exclusive loads, the zbud pool written back
    /// from its LRU when full) is the mechanism modelled; later kernels changed it (exclusive
    /// loads 6.5/6.7, the memcg-aware shrinker 6.8, zbud removed): `false` there, and a
    /// scenario asking for zswap on such a profile is refused.
    pub zswap_modelled: bool,
    /// zswap as 6.18 has it, against 6.1's (`false`): no frontswap (6.5: `zswap_store()` and
    /// `zswap_load()` called from `swap_writepage()`/`swap_read_folio()`), zsmalloc the only
    /// pool (zbud removed in 6.15; no `zswap_header` before an object), exclusive loads (an
    /// entry is freed when its page is read into the swap cache, and the page is marked
    /// dirty), no same-filled entries (6.12: zero-filled pages go to the swap area's zeromap
    /// instead; the engine refuses such fills on this era), `zswap_check_limits()` (full at
    /// the limit, accepting again at the accept threshold), and the shrink worker writing
    /// back from zswap's LRU of entries with a second chance for referenced ones (6.8:
    /// `shrink_worker()` -> `shrink_memcg()` -> `shrink_memcg_cb()`). Checked against mm/zswap.c
    /// of a 6.17+ tree (CachyOS/linux; its vswap patches aside) and the host's 6.18 config
    /// (CONFIG_ZSMALLOC, no zpool parameter); the versions in between are not told apart.
    pub zswap_direct: bool,
    /// cgroup v2's `memory.zswap.writeback` (6.8+, 501a06fe8e4c "zswap: memcontrol: implement
    /// zswap writeback disabling"; from 6.9 read up the hierarchy and ignored while zswap is
    /// off, `mem_cgroup_zswap_writeback_enabled()`): 0 keeps the memcg's pages off the swap
    /// device. `swap_writepage()` returns `AOP_WRITEPAGE_ACTIVATE` for a page zswap refused
    /// (dirty, kept in the swap cache, activated), and the shrink worker's `shrink_memcg()`
    /// skips the memcg (-ENOENT). Before 6.8 the file does not exist.
    pub zswap_writeback_knob: bool,
    /// `zswap_store()` of a page whose memcg is at memory.zswap.max first writes back one entry
    /// of that memcg's zswap LRU (`shrink_memcg()`, 6.8+: a65b0e7607cc "zswap: make shrinking
    /// memcg-aware"), and stores if it did; before, the store is refused.
    pub zswap_shrink_memcg: bool,
    /// zswap keeps a page that does not compress below a page as it is (6.18, against 6.12
    /// and before, where LZO's output past `PAGE_SIZE` fails the store: zsmalloc refuses an
    /// object larger than `ZS_MAX_ALLOC_SIZE`, or the one-page request overruns). The engine
    /// models the refusal only: a scenario with such pages under zswap on this era is refused.
    pub zswap_incompressible_as_is: bool,
    /// VMA-based swap readahead (4.14+, ec560175c0b6 "mm, swap: VMA based swap readahead"):
    /// `swapin_readahead()` uses `swap_vma_readahead()` when `vma_ra_enabled` (default on)
    /// and no swap area is rotational (`swap_use_vma_readahead()`); before, always
    /// `swapin_readahead()`'s cluster readahead by slot.
    pub swap_vma_readahead: bool,
    /// The per-CPU swap slots cache (mm/swap_slots.c, 4.11 67afa38e012e "mm/swap: add cache
    /// for swap slots allocation" to 6.14; removed in 6.15 by 0ff67f990bd4 "mm, swap: remove
    /// swap slot cache"): `folio_alloc_swap()` hands out slots from a per-CPU batch of up to
    /// `SWAP_SLOTS_CACHE_SIZE` (64) taken from the area at once, and `free_swap_slot()` holds
    /// up to 64 freed slots per CPU at `SWAP_HAS_CACHE` (their zswap entries and swap charges
    /// with them) until `swapcache_free_entries()` frees the batch (swap_slots.rs). From 6.9
    /// the zswap entry does not stay: see `zswap_invalidate_on_slot_free`.
    pub swap_slots_cache: bool,
    /// `free_swap_slot()` invalidates the slot's zswap entry before holding the slot (6.9,
    /// 0827a1fb143f "mm/zswap: invalidate zswap entry when swap entry free", which also took
    /// `zswap_invalidate()` out of `swap_range_free()`): on 6.9-6.14 a slot held in a slots
    /// cache has no zswap entry, so its pool memory and zswap charge go at once and writeback
    /// never meets it. Before (6.1, 6.6) the entry stays until `swapcache_free_entries()`.
    /// From 6.15 (no slots cache) every free goes straight to `swap_entry_free()`, which
    /// invalidates, so the switch changes nothing there.
    pub zswap_invalidate_on_slot_free: bool,
    /// Large folios in the page cache: which file systems' regular files take them, up to
    /// which order, and how readahead sizes them.
    pub large_folios: LargeFolios,
    /// Policies switched on by default in this era (none of the seeds' are).
    pub policies: Policies,
}

/// `MAX_PAGECACHE_ORDER` on x86_64 with THP: `min(MAX_XAS_ORDER, PREFERRED_MAX_PAGECACHE_ORDER)`
/// = min(11, `HPAGE_PMD_ORDER` = 9) (include/linux/pagemap.h, 6.1 and later); a PMD-sized
/// folio of 2 MiB.
pub const MAX_PAGECACHE_ORDER: u8 = 9;

/// Large folios in the page cache of an era, per file system: the largest folio order a
/// regular file's mapping takes (`mapping_max_folio_order()`; 0 = order-0 pages only,
/// `!mapping_large_folio_support()`). tmpfs takes PMD-order folios where its mount's `huge=`
/// says so (`tmpfs`, shmem.rs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LargeFolios {
    /// XFS: `mapping_set_large_folios()` in `xfs_setup_inode()` since 5.18, up to
    /// [`MAX_PAGECACHE_ORDER`].
    pub xfs: u8,
    /// ext4 regular files: since 6.16, `ext4_set_inode_mapping_order()` (fs/ext4/inode.c) up
    /// to `EXT4_MAX_PAGECACHE_ORDER` = min(`MAX_PAGECACHE_ORDER`, 11 + `i_blkbits` -
    /// `PAGE_SHIFT`) = 9 with 4 KiB blocks, unless the superblock has the verity or encrypt
    /// feature (`ext4_should_enable_large_folio()`; `[machine] fs_features`).
    pub ext4: u8,
    /// btrfs: 0 in every profile (its large folios need `CONFIG_BTRFS_EXPERIMENTAL`, 6.17+,
    /// which distribution kernels leave off).
    pub btrfs: u8,
    /// How readahead picks folio orders.
    pub ra: RaOrder,
    /// How the buffered write path sizes the folio it creates on a mapping with large folios.
    pub write: WriteOrder,
    /// tmpfs's `huge=` (mm/shmem.c): none before 4.8, a PMD-order folio or order 0 to 6.13,
    /// 6.14-6.17 folios of the write's size (acd7ccb284b8, `shmem_mapping_size_orders()`), 6.18
    /// the PMD order first and every smaller order after it (`THP_ORDERS_ALL_FILE_DEFAULT`)
    /// ([`crate::shmem::TmpfsHuge`], [`crate::Kernel::shmem_huge_orders`]).
    pub tmpfs: crate::shmem::TmpfsHuge,
    /// The boot value of /sys/kernel/mm/transparent_hugepage/shmem_enabled (`shmem_huge`,
    /// mm/shmem.c: `SHMEM_HUGE_NEVER` unless the command line's `transparent_hugepage_shmem=`
    /// says otherwise, 6.14+); `[kernel] shmem_enabled` overrides it. Its `deny` and `force`
    /// override every tmpfs mount's `huge=`. linux-6.18: `never`, as this lab's host shows it
    /// (read 2026-12-01; the host runner records it in each recording, real.shmem_enabled_settings()).
    pub shmem_enabled: crate::shmem::ShmemHuge,
    /// The per-size hugepages-<size>kB/shmem_enabled knobs (6.10+, [`crate::shmem::ShmemSizeKnobs`]):
    /// the kernel's default, `inherit` for the PMD size and `never` for the others
    /// (`huge_shmem_orders_inherit = BIT(HPAGE_PMD_ORDER)`), which this lab's 6.18 host shows
    /// (read 2026-12-01: hugepages-2048kB inherit, hugepages-{8..1024}kB never). Anonymous
    /// shmem's: a tmpfs mount's file does not read them (`shmem_allowable_huge_orders()`).
    pub shmem_size_knobs: crate::shmem::ShmemSizeKnobs,
    /// 6.7+: a large tmpfs folio is charged with the huge gfp it was allocated by, without
    /// direct reclaim under THP defrag `madvise` (`shmem_alloc_and_add_folio()`, shmem.rs
    /// `shmem_huge_charge_gfp()`); before, with the mapping's gfp.
    pub shmem_charge_huge_gfp: bool,
    /// What reclaim does with a large tmpfs folio: split it before `shmem_writepage()` (to
    /// 6.11), or swap it out whole where the swap area gives contiguous slots (6.12+), shmem.rs
    /// [`crate::shmem::ShmemSwapOut`].
    pub shmem_swapout: crate::shmem::ShmemSwapOut,
}

impl LargeFolios {
    /// No file system has large folios (before 5.18).
    pub const NONE: LargeFolios = LargeFolios { xfs: 0, ext4: 0, btrfs: 0, ra: RaOrder::MarkedPlus2, write: WriteOrder::Order0, tmpfs: crate::shmem::TmpfsHuge::Pmd, shmem_swapout: crate::shmem::ShmemSwapOut::Split, shmem_enabled: crate::shmem::ShmemHuge::Never, shmem_size_knobs: crate::shmem::ShmemSizeKnobs::NONE, shmem_charge_huge_gfp: false };

    /// Whether any file system of the era has large folios.
    pub fn any(&self) -> bool {
        self.xfs > 0 || self.ext4 > 0 || self.btrfs > 0
    }
}

/// The order of the folio a buffered `write()` creates in a mapping with large folios
/// (`__filemap_get_folio()` with `FGP_CREAT` from the file system's `write_begin`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WriteOrder {
    /// Order-0 pages whatever the mapping takes (before 6.6: `iomap_write_begin()` and
    /// `ext4_write_begin()` ask `__filemap_get_folio()` for no order).
    Order0,
    /// 6.6-6.7: `iomap_get_folio()` asks for `fgf_set_order(len)` of the write's chunk
    /// (d6bb59a9444d "iomap: Create large folios in the buffered write path", 6.6; the chunk
    /// `PAGE_SIZE << MAX_PAGECACHE_ORDER` aligned in the file); `__filemap_get_folio()` caps it
    /// at `mapping_max_folio_order()`, lowers it to the index's alignment (`__ffs(index)`), and
    /// tries each order down to 0 (`__GFP_NORETRY | __GFP_NOWARN` above 0), skipping order 1
    /// (`if (order == 1) order = 0`: no order-1 page-cache folios before 6.8).
    SizedNoOrder1,
    /// 6.8+: as `SizedNoOrder1` with order-1 folios allowed (6.8, "mm: support order-1 folios
    /// in the page cache"); generic_perform_write() takes the same chunk from 6.11
    /// (`mapping_max_folio_size()`), which ext4's `write_begin` (large folios from 6.16) passes
    /// on as `fgf_set_order(len)` (6.18: `write_begin_get_folio()`).
    Sized,
}

/// `__rmqueue_fallback()`'s steal of a movable order-0 allocation from a non-movable pageblock
/// (mm/page_alloc.c; `can_steal_fallback()`'s `pageblock_order / 2` and the half-block claim
/// in every era): the largest free buddy of the non-movable lists first; at order >=
/// `pageblock_order / 2` its block is claimed (made movable) when its free and movable pages
/// reach half a pageblock. What the steal leaves and when it boosts differ by era.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FallbackSteal {
    /// Before 6.10 (6.1, 6.6 as read in Debian's 6.1 source): `steal_suitable_fallback()`
    /// boosts once a fallback below pageblock order; at order >= 4 `move_freepages_block()`
    /// moves every free page of the block to the Movable lists whether the block is claimed
    /// or not (the next allocations take them with no fallback); below order 4 the smallest
    /// non-movable buddy is taken (`find_smallest`) and moved whole (`move_to_free_list()`).
    /// Eras before 6.1 are given the same rules (not checked against their sources).
    MoveBlock,
    /// 6.10-6.12.28 and 6.13-6.14 (the "freelist migratetype hygiene" series, c0cd6f557b90 "mm:
    /// page_alloc: fix freelist movement during block conversion"): a fallback that does not
    /// claim the block takes one page of the largest buddy and expands the rest into the
    /// block's own type (`page_del_and_expand(..., block_type)`): one fallback and one boost a
    /// page. No profile has it since linux-6.12 took 6.12.29's backports (pool22c); the unit
    /// tests keep it (unit_tests/boost.rs `profile_with()`).
    ExpandOwn,
    /// 6.15+ and 6.12.29+: c2f6ea38fc1b ("mm: page_alloc: don't steal single pages from biggest
    /// buddy", J. Weiner, 2025) and 90abee6d7895 ("mm: page_alloc: speed up fallbacks in
    /// rmqueue_bulk()"), both backported to 6.12.y ("[PATCH 6.12.y 1/2]" and "2/2", 8 May 2025;
    /// in upstream 6.12.29, listed under Debian's linux 6.12.29-1 in the changelog of the lab's
    /// guest kernel 6.12.117+deb12, ~/.cache/memtwin-lab/kpkg-6.12/usr/share/doc/
    /// linux-image-6.12.117+deb12-amd64/changelog.gz). `__rmqueue_claim()` tries the first
    /// buddy of each order from `MAX_PAGE_ORDER` down to `pageblock_order / 2`, each try below
    /// pageblock order a `boost_watermark()` before the claim test (6.12.y's
    /// `try_to_steal_block()`, 6.15's `try_to_claim_block()`), then `__rmqueue_steal()` takes
    /// one page of the smallest buddy with no boost; `rmqueue_bulk()` remembers the mode
    /// (`enum rmqueue_mode`) over a per-CPU refill, so one claim loop a refill
    /// (`Zone::steal_mode`).
    ClaimSteal,
}

/// How `page_cache_ra_order()` (mm/readahead.c) picks folio orders.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RaOrder {
    /// 5.18-6.15 (Debian's 6.1.192 read): `ondemand_readahead()` passes the order of the
    /// `PG_readahead` folio that triggered it (0 for a synchronous miss) and
    /// `page_cache_ra_order()` allocates folios of that order + 2, capped at the mapping's
    /// maximum and lowered until one fits in `ra->size`; nothing below 4 pages of window; a
    /// failed allocation or insertion falls back to `do_page_cache_ra()` of a whole window
    /// from where it stopped.
    MarkedPlus2,
    /// 6.16+ (mainline's mm/readahead.c, which 6.18 runs): the order lives in the file's
    /// `ra->order`: a synchronous miss resets it to 0, each `page_cache_async_ra()` adds 2
    /// and rounds the window's end down to that order's alignment; `page_cache_ra_order()`
    /// caps it at the mapping's maximum and `ilog2(ra->size)` and stores it back; the
    /// fallback reads only the rest of the window; a window reaching the end of the file sets
    /// no `PG_readahead` mark.
    FileOrder,
}

/// Kernel memory of a memcg in v5.0/v5.1 (x86_64); see the fields of [`MemcgKmemCost`].
pub const KMEM_5_0: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 1000,
    lruvec_stats_percpu: 240,
    other_percpu: 64 + 128 + 16 + 3 * 8 + 4,
    memcg_struct: 2688,
    memcg_vmstats_struct: 0,
    per_node_struct: 848,
    cgroup_struct: 1836,
    cgroup_other_slab: 256 + 128,
    kernfs_files: 24,
    per_memcg_kmem_caches: true,
    kmem_cache_clone_slab: 856 + 64 + 32,
    kmem_cache_clone_percpu: 32,
    slab_objects_pin: true,
    shrinker_info: ShrinkerInfo::Map,
};

/// Kernel memory of a memcg in v5.17 (x86_64), the base of the seed-001 series: pahole on
/// 5.17-rc5. `memcg_vmstats_percpu` 2376 B and per node `lruvec_stats_percpu` 640 B per CPU;
/// `mem_cgroup` 4096 + 8 per node (kmalloc-8k); `mem_cgroup_per_node` 1064; `cgroup`
/// 2360 + 8 per level. The control-file count is 6.1's (estimate).
pub const KMEM_5_17: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 2376,
    lruvec_stats_percpu: 640,
    other_percpu: 64 + 128 + 32 + 5 * 8 + 4,
    memcg_struct: 4096,
    memcg_vmstats_struct: 0,
    per_node_struct: 1064,
    cgroup_struct: 2368,
    cgroup_other_slab: 256 + 5 * 64 + 64 + 128,
    kernfs_files: 34,
    per_memcg_kmem_caches: false,
    kmem_cache_clone_slab: 0,
    kmem_cache_clone_percpu: 0,
    slab_objects_pin: false,
    shrinker_info: ShrinkerInfo::WithDeferred,
};

/// Kernel memory of a memcg in v6.1 (x86_64); see the fields of [`MemcgKmemCost`].
pub const KMEM_6_1: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 1096,
    lruvec_stats_percpu: 688,
    other_percpu: 64 + 128 + 32 + 5 * 8 + 4,
    memcg_struct: 2240,
    memcg_vmstats_struct: 1072,
    per_node_struct: 2560,
    cgroup_struct: 1808,
    cgroup_other_slab: 256 + 1024 + 5 * 64 + 64 + 128,
    kernfs_files: 34,
    per_memcg_kmem_caches: false,
    kmem_cache_clone_slab: 0,
    kmem_cache_clone_percpu: 0,
    slab_objects_pin: false,
    shrinker_info: ShrinkerInfo::WithDeferred,
};

/// Kernel memory of a memcg in the lab's own 6.1 build (`memtwin lab kernel build`: Debian's
/// linux-source-6.1, 6.1.192, with `make tinyconfig` + kernel/config/lab.config and the seeds'
/// patches). Its sizes, compiled from that tree with its config (sizeof in a file including
/// mm/memcontrol.c): `memcg_vmstats_percpu` 1032 (MEMCG_NR_STAT 48, NR_MEMCG_EVENTS 15: no
/// THP-split and NUMA-balancing items of Debian's config), `lruvec_stats_percpu` 656
/// (NR_VM_NODE_STAT_ITEMS 41), `memcg_vmstats` 1008, `mem_cgroup_per_node` 2304. The config has no
/// CONFIG_CGROUP_PERF: no `perf_cgroup_info` percpu (32) and no `perf_cgroup` slab (256).
/// The 000/003/004 patches leave `mem_cgroup` at 2240 (kmalloc-4k either way).
pub const KMEM_6_1_LAB: MemcgKmemCost = MemcgKmemCost {
    vmstats_percpu: 1032,
    lruvec_stats_percpu: 656,
    other_percpu: 64 + 128 + 5 * 8 + 4,
    memcg_struct: 2240,
    memcg_vmstats_struct: 1008,
    per_node_struct: 2304,
    cgroup_other_slab: 1024 + 5 * 64 + 64 + 128,
    ..KMEM_6_1
};

/// Whether mm/ksm.c `ksm_might_need_to_copy()` (called by `do_swap_page()` for every page it
/// finds in the swap cache, with `CONFIG_KSM=y` as every distribution builds it; Debian's 6.1
/// config has it) copies a subpage of a large swap-cache folio. Until 6.8 it compares
/// `page->index` with the fault's linear index, and of an anonymous THP only the head has its
/// index set (`__page_set_anon_rmap()`; a tail's is set only at a split): each tail's fault
/// allocates, charges and maps a new page, and the folio stays in the swap cache, charged and
/// holding its slots, until reclaim frees it. 6.8's folio conversion (96db66d9c8f3) returns
/// a large folio uncopied ("if (folio_test_large(folio)) return folio;").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KsmSwapinCopy {
    /// 6.8+ (and before 4.14, which wrote no THP whole): the subpage is mapped.
    None,
    /// 4.14-5.18: copied, uncounted.
    Copy,
    /// 5.19-6.7: copied and counted in /proc/vmstat `ksm_swpin_copy` (KSM_SWPIN_COPY, 5.19).
    CopyCounted,
}

/// All built-in profiles. Each era is written as what it changes against the next newer one.
pub fn profiles() -> Vec<KernelProfile> {
    let linux_6_6 = KernelProfile {
        name: "linux-6.6",
        description: "6.6 (a 6.x LTS): MAX_RECLAIM_RETRIES 16, sqrt inactive ratio, XFS files in large folios (5.18; written in folios of the write's size, 6.6), \
                      refault detection at the reclaim root, full memcg walks (5.5-6.10), lazy list_lrus, 6.1 structure sizes, \
                      reclaim's anon/file cost of IO x SWAP_CLUSTER_MAX plus rotations (6.2)",
        max_reclaim_retries: 16,
        charge_path: ChargePath::TryCharge,
        readahead_charge_noretry: true,
        readahead_memalloc_nofs: true,
        pgactivate_nr_pages: true,
        init_on_alloc: false,
        file_inactive_ratio: InactiveRatio::Sqrt,
        workingset_refault: true,
        shadow_node_cap: ShadowNodeCap::MemcgLruAndSlab,
        shadow_shrinker_zero_seek: true,
        eviction_at_reclaim_root: true,
        eviction_reads_age_first: true,
        refault_swap_room_at_eviction: true,
        reclaim_walk: ReclaimWalk::Full,
        fault_around: true,
        deactivate_on_refault: true,
        pgfault_counts_retries: false,
        swapin_maps_writable: false,
        blk_plug_peek: crate::blkdev::PlugPeek::Newest,
        lru_add_batch: crate::swap::PAGEVEC_SIZE_5_X,
        lru_add_move: crate::swap::LruAddMove::AfterAdd,
        blk_max_request_count: crate::blkdev::BLK_MAX_REQUEST_COUNT,
        madv_cold_pageout: true,
        memcg_kmem: KMEM_6_1,
        list_lru_layout: crate::list_lru::ListLruLayout::Lazy,
        kmalloc_large_in_slab: true,
        reclaim_activates_dirty: true,
        account_buffer_heads: true,
        account_xa_nodes: true,
        xa_multi_index: true,
        invalidate_skips_writeback: true,
        write_marks_accessed: false,
        thp_defrag_madvise: true,
        thp_swapout: crate::swapfile::ThpSwapOut::WholeNonrotBlkdev,
        swapin_copies_large_tails: KsmSwapinCopy::CopyCounted,
        cgroup_writeback: true,
        flusher_wakeup_writes_all: true,
        memcg_charge_batch: 64,
        memcg_stock_slots: 1,
        oom_kill_events: true,
        memory_events_recursive: true,
        memcg_oom_event: MemcgOomEvent::MemcgOom,
        memcg_max_event_on_force: true,
        pgdat_balanced: PgdatBalanced::AnyZone,
        allocstall_per_zone: true,
        kswapd_failures: true,
        ra_prev_pos_after_read: true,
        ra_prev_pos_per_read: true,
        ra_io_pages: true,
        ra_enomem_stops: false,
        exec_ra_forward: false,
        ra_sync_miss_as_hit: true,
        ra_keep_larger_window: true,
        account_page_tables: true,
        oom_waits_on_write_pending: false,
        reclaim_throttle: ReclaimThrottle::Writeback,
        v1_reclaim_throttle: true,
        isolated_throttle: IsolatedThrottle::ReclaimThrottle,
        blk_queue: crate::blkdev::BlkQueue::MqAsyncDepth,
        wbt: true,
        wbt_last_bdp_sleep: false,
        wbt_swap_hiprio: false,
        wb_start_all: true,
        throttle_vm_writeout: false,
        memcg_high_delay: true,
        memcg_high_sync: true,
        wb_thresh_floor: false,
        timer_wheel_round_up: true,
        dirty_ratio: 20,
        dirty_background_ratio: 10,
        dirty_bytes: 0,
        dirty_background_bytes: 0,
        watermark_scale_factor: Some(10),
        watermark_check_lower_orders: false,
        fair_zone_alloc: false,
        oom_zone_reclaimable: false,
        thp_thisnode: true,
        lru_gen_available: true,
        lru_gen: false,
        lru_gen_min_ttl_ms: 0,
        lru_gen_memcg_lru: true,
        lru_gen_refault_activates: true,
        memcg_stats_ratelimited_reclaim: false,
        eevdf: true,
        sched_base_slice: 750_000,
        lag_clamp_max_slice: false,
        delay_dequeue: false,
        bound_kworker_lag: false,
        sis_util: true,
        pcp_auto_tune: false,
        watermark_boost: true,
        fallback_steal: FallbackSteal::MoveBlock,
        swappiness: crate::vmscan::SWAPPINESS,
        scan_balance: ScanBalance::Cost,
        lru_cost_rotations: true,
        lruvec_stop: LruvecStop::Proportional,
        anon_fault_inactive: true,
        swapin_delay_in_readpage: true,
        anon_workingset: true,
        age_nonresident_on_putback: true,
        zswap_memcg: true,
        zswap_modelled: false,
        zswap_direct: false,
        zswap_writeback_knob: false,
        zswap_shrink_memcg: false,
        zswap_incompressible_as_is: false,
        swap_vma_readahead: true,
        swap_slots_cache: true,
        zswap_invalidate_on_slot_free: false,
        large_folios: LargeFolios { xfs: MAX_PAGECACHE_ORDER, write: WriteOrder::SizedNoOrder1, ..LargeFolios::NONE },
        throtl_trim_keeps_one_slice: false,
        throtl_swap_in_debt: true,
        mmap_miss_skips_locked: false,
        mmap_miss_skips_workingset: false,
        policies: Policies::default(),
    };
    let linux_6_1 = KernelProfile {
        name: "linux-6.1",
        description: "6.1 (Debian 12's kernel): as linux-6.6, but page faults retried after \
                      dropping mmap_lock count twice in pgfault, and reads move readahead's prev_pos after \
                      each folio copied (pre-6.6), buffered writes into order-0 folios (pre-6.6), and reclaim's \
                      anon/file cost noting IO one a page and no rotations (pre-6.2)",
        pgfault_counts_retries: true,
        ra_prev_pos_per_read: false,
        zswap_modelled: true,
        lru_gen_memcg_lru: false,
        lru_gen_refault_activates: false,
        large_folios: LargeFolios { write: WriteOrder::Order0, ..linux_6_6.large_folios },
        init_on_alloc: true,
        eevdf: false,
        refault_swap_room_at_eviction: false,
        throtl_swap_in_debt: false,
        lru_cost_rotations: false,
        ..linux_6_6.clone()
    };
    let linux_6_1_lab = KernelProfile {
        name: "linux-6.1-lab",
        description: "the lab's own 6.1 build (memtwin lab kernel build: tinyconfig + kernel/config/lab.config): \
                      as linux-6.1, with that config's structure sizes",
        memcg_kmem: KMEM_6_1_LAB,
        init_on_alloc: false,
        ..linux_6_1.clone()
    };
    let linux_6_6_lru_gen = KernelProfile {
        name: "linux-6.6-lru_gen",
        description: "linux-6.6 as Fedora, Arch and Ubuntu 23.10+ ship it: the multi-generational LRU \
                      on (CONFIG_LRU_GEN_ENABLED), min_ttl_ms 0; 6.1's generations, tiers and PID controller \
                      (validated on Debian's 6.1) with 6.3's memcg LRU for global reclaim (lru_gen_rotate_memcg(), \
                      shrink_many(), as 6.7 has them) and 6.3's aging in the eviction path (kswapd ages there too); \
                      the memcg LRU is held to the source by unit tests and recorded on Debian's 6.12 (linux-6.12-lru_gen, \
                      scenarios/validation/qemu612-lrugen-*)",
        lru_gen: true,
        ..linux_6_6.clone()
    };
    let linux_6_12 = KernelProfile {
        name: "linux-6.12",
        swapin_copies_large_tails: KsmSwapinCopy::None,
        description: "6.12 (Debian 12's bookworm-security kernel, the lab's second guest): as linux-6.6, and direct reclaim \
                      resumes a shared memcg walk and stops at its goal (6.11), readahead stops at a failed memcg charge (6.10), \
                      fault-around not counting workingset pages as mmap hits (6.10), \
                      reclaim reads the memcg statistics the periodic flusher left (6.12, up to 2 s old), per-CPU page lists refilled in batches of up to 992 frames with an auto-tuned high (6.7), a read miss always starts its window at the missed page (6.11), a swap-in on a read fault maps the page \
                      writable when it is exclusive (6.11, c18160dba5ff), a movable fallback that claims a \
                      non-movable block or steals one page of its smallest buddy (6.12.29's backports of 6.15's \
                      c2f6ea38fc1b and 90abee6d7895, in Debian's 6.12.117); the two lists (Debian's 6.12 boots with \
                      lru_gen on: the QEMU runner switches it off for this profile); zswap as 6.18's (no frontswap, zsmalloc, \
                      exclusive loads, the LRU shrink worker) with memory.zswap.writeback (6.8), a freed slot's zswap entry invalidated \
                      before the swap slots cache holds the slot (6.9, 0827a1fb143f)",
        wbt_last_bdp_sleep: true,
        wbt_swap_hiprio: true,
        reclaim_walk: ReclaimWalk::Shared,
        ra_enomem_stops: true,
        ra_sync_miss_as_hit: false,
        mmap_miss_skips_workingset: true,
        zswap_modelled: true,
        zswap_direct: true,
        zswap_writeback_knob: true,
        zswap_shrink_memcg: true,
        zswap_invalidate_on_slot_free: true,
        swapin_maps_writable: true,
        memcg_stats_ratelimited_reclaim: true,
        pcp_auto_tune: true,
        delay_dequeue: true,
        bound_kworker_lag: false,
        large_folios: LargeFolios { write: WriteOrder::Sized, shmem_swapout: crate::shmem::ShmemSwapOut::WholeNonrot, shmem_size_knobs: crate::shmem::ShmemSizeKnobs::DEFAULT_6_10, shmem_charge_huge_gfp: true, ..linux_6_6.large_folios },
        lru_add_batch: crate::swap::PAGEVEC_SIZE_6_10,
        init_on_alloc: true,
        fallback_steal: FallbackSteal::ClaimSteal,
        ..linux_6_6.clone()
    };
    let linux_6_12_lru_gen = KernelProfile {
        name: "linux-6.12-lru_gen",
        description: "linux-6.12 as Debian's 6.12 build boots (CONFIG_LRU_GEN_ENABLED=y): the multi-generational LRU on, \
                      min_ttl_ms 0, with 6.3's memcg LRU for global reclaim (lru_gen_rotate_memcg(), shrink_many())",
        lru_gen: true,
        ..linux_6_12.clone()
    };
    let linux_5_17 = KernelProfile {
        name: "linux-5.17",
        swapin_copies_large_tails: KsmSwapinCopy::Copy,
        sis_util: false,
        description: "5.17, the base of the list_lru series (seed 001): no large folios (XFS has them from 5.18), eager list_lrus, shrinker_info \
                      with nr_deferred, objcg slab accounting, shared memcg walks, charge batch 32, \
                      memory.high reclaimed on return to user space only, full memcg walks (5.5-6.10)",
        memcg_kmem: KMEM_5_17,
        list_lru_layout: crate::list_lru::ListLruLayout::Eager,
        memcg_charge_batch: 32,
        memcg_high_sync: false,
        v1_reclaim_throttle: false,
        lru_gen_available: false,
        large_folios: LargeFolios::NONE,
        ra_keep_larger_window: false,
        swapin_delay_in_readpage: false,
        zswap_memcg: false,
        init_on_alloc: false,
        memcg_max_event_on_force: false,
        lruvec_stop: LruvecStop::ScanAdjusted,
        ..linux_6_1.clone()
    };
    let linux_5_0 = KernelProfile {
        name: "linux-5.0",
        thp_swapout: crate::swapfile::ThpSwapOut::WholeNonrot,
        memory_events_recursive: false,
        madv_cold_pageout: false,
        deactivate_on_refault: false,
        description: "the 5.0 era the seed-000 RFC was written on: MEM_CGROUP_RECLAIM_RETRIES 5, \
                      sqrt inactive ratio, refault detection at the page's memcg, per-memcg kmem caches, \
                      limit reclaim resumes a memcg walk shared per priority (pre-5.5), \
                      page-cache tree nodes not charged (4.20-5.1), invalidation deactivates pages \
                      under writeback (pre-5.12), no memory.high throttling delay (pre-5.4), \
                      OOM detection waits HZ/10 for write-pending pages (4.7-5.15), anon/file scan balance \
                      by recent rotations (pre-5.8), new anonymous pages on the active list, no anon refault detection and no non-resident ageing by reclaim's putback of active pages (pre-5.9)",
        reclaim_walk: ReclaimWalk::SharedPerPriority,
        max_reclaim_retries: 5,
        readahead_memalloc_nofs: false,
        pgactivate_nr_pages: false,
        eviction_at_reclaim_root: false,
        eviction_reads_age_first: false,
        memcg_kmem: KMEM_5_0,
        kmalloc_large_in_slab: false,
        account_xa_nodes: false,
        xa_multi_index: false,
        invalidate_skips_writeback: false,
        memcg_high_delay: false,
        oom_waits_on_write_pending: true,
        reclaim_throttle: ReclaimThrottle::CongestionTimeout,
        isolated_throttle: IsolatedThrottle::SleepOnce,
        blk_queue: crate::blkdev::BlkQueue::Mq,
        blk_max_request_count: crate::blkdev::BLK_MAX_REQUEST_COUNT_PRE_5_16,
        ra_prev_pos_after_read: false,
        scan_balance: ScanBalance::Rotated,
        anon_fault_inactive: false,
        anon_workingset: false,
        age_nonresident_on_putback: false,
        zswap_modelled: false,
        ..linux_5_17.clone()
    };
    let linux_4_4 = KernelProfile {
        name: "linux-4.4",
        // no tmpfs huge= before 4.8 (800d8c63b2e9)
        large_folios: LargeFolios { tmpfs: crate::shmem::TmpfsHuge::None, ..LargeFolios::NONE },
        watermark_boost: false,
        oom_kill_events: false,
        memcg_oom_event: MemcgOomEvent::TryCharge,
        pgdat_balanced: PgdatBalanced::AllZones,
        allocstall_per_zone: false,
        kswapd_failures: false,
        description: "the 4.4 era: file lists balanced 1:1 (pre-4.7), watermarks 5/4 and 3/2 of min, \
                      dirty pages met by reclaim stay inactive until written back and wake the flusher for a \
                      batch, not all dirty pages (pre-4.12), the fair \
                      zone allocation policy (3.12-4.7), OOM only once no zone is reclaimable (pre-4.7), \
                      no counters of OOM kills (pre-4.13), \
                      user page tables not charged to memcgs (pre-4.5), \
                      writes mark pages accessed (pre-4.7), one shadow-node list capped by present pages (pre-4.6), \
                      THP faults compact and reclaim (defrag \"always\", pre-4.6), timers that fire at the tick \
                      of their expiry (the cascading timer wheel, pre-4.8), readahead charged with GFP_KERNEL (pre-4.8)",
        file_inactive_ratio: InactiveRatio::OneToOne,
        shadow_node_cap: ShadowNodeCap::NodePresent,
        shadow_shrinker_zero_seek: false,
        reclaim_activates_dirty: false,
        flusher_wakeup_writes_all: false,
        write_marks_accessed: true,
        thp_defrag_madvise: false,
        thp_swapout: crate::swapfile::ThpSwapOut::Split,
        account_buffer_heads: false,
        watermark_scale_factor: None,
        fair_zone_alloc: true,
        oom_zone_reclaimable: true,
        oom_waits_on_write_pending: false,
        reclaim_throttle: ReclaimThrottle::Congestion,
        isolated_throttle: IsolatedThrottle::CongestionLoop,
        blk_queue: crate::blkdev::BlkQueue::Legacy,
        wbt: false,
        wb_start_all: false,
        blk_plug_peek: crate::blkdev::PlugPeek::NoSizeTest,
        throttle_vm_writeout: true,
        account_page_tables: false,
        swap_vma_readahead: false,
        swap_slots_cache: false,
        timer_wheel_round_up: false,
        ra_io_pages: false,
        readahead_charge_noretry: false,
        lru_add_batch: crate::swap::PAGEVEC_SIZE_4_X,
        lru_add_move: crate::swap::LruAddMove::BeforeAdd,
        ..linux_5_0.clone()
    };
    let linux_4_3 = KernelProfile {
        name: "linux-4.3",
        description: "4.3, the base of the zonelist-cache removal (seed 002): high-order watermark \
                      checks subtract the lower orders' free pages; run with policy zonelist_cache for the \
                      kernel as it was",
        watermark_check_lower_orders: true,
        ..linux_4_4.clone()
    };
    let linux_3_13 = KernelProfile {
        name: "linux-3.13",
        fault_around: false,
        charge_path: ChargePath::DoCharge,
        memcg_oom_event: MemcgOomEvent::None,
        description: "the 3.13 era (seed 004): no refault detection (mm/workingset.c came in 3.15), \
                      THP faults fall back to other nodes (pre-4.0), no cgroup writeback (pre-4.2), \
                      memcg charges through mem_cgroup_do_charge() and mem_cgroup_reclaim() (pre-3.17), \
                      otherwise as linux-4.3",
        workingset_refault: false,
        thp_thisnode: false,
        cgroup_writeback: false,
        lruvec_stop: LruvecStop::DirectBreak,
        ..linux_4_3.clone()
    };
    let linux_6_18 = KernelProfile {
        name: "linux-6.18",
        thp_swapout: crate::swapfile::ThpSwapOut::WholeBlkdev,
        swapin_copies_large_tails: KsmSwapinCopy::None,
        description: "this host's kernel: as linux-6.6, and ext4 regular files in large folios (6.16; written in folios of the write's size), readahead \
                      keeping its folio order in ra->order (6.16), every wb gets at least 1/8 of what its domain has left \
                      under a dirty threshold (6.14), direct reclaim resumes a shared memcg walk and stops at its \
                      goal (6.11), zswap without frontswap on zsmalloc with exclusive loads and its LRU shrink worker, readahead stops at a failed memcg charge (6.10), fault-around not counting workingset pages as mmap hits (6.10), a major fault on executable text reading from the fault to the VMA's end (6.16), a read miss always starts its window at \
                      the missed page (6.11), a load's swap-in mapped writable (6.11), blk-throttle keeping one finished \
                      slice when it trims (6.15), a plug that peeks at its oldest request (6.13), per-CPU page lists refilled in batches of up to 32 x batch frames with an auto-tuned high (6.7): behind a swap readahead's read it holds 32 write requests, \
                      per-CPU charge stocks caching up to 7 memcgs each (6.16), \
                      an mmap fault that finds a locked folio leaving mmap_miss alone (6.18)",
        wbt_last_bdp_sleep: true,
        wbt_swap_hiprio: true,
        wb_thresh_floor: true,
        reclaim_walk: ReclaimWalk::Shared,
        large_folios: LargeFolios { xfs: MAX_PAGECACHE_ORDER, ext4: MAX_PAGECACHE_ORDER, btrfs: 0, ra: RaOrder::FileOrder, write: WriteOrder::Sized, tmpfs: crate::shmem::TmpfsHuge::AllOrders, shmem_swapout: crate::shmem::ShmemSwapOut::WholeBlkdev, shmem_enabled: crate::shmem::ShmemHuge::Never, shmem_size_knobs: crate::shmem::ShmemSizeKnobs::DEFAULT_6_10, shmem_charge_huge_gfp: true },
        ra_enomem_stops: true,
        exec_ra_forward: true,
        ra_sync_miss_as_hit: false,
        zswap_modelled: true,
        zswap_direct: true,
        zswap_writeback_knob: true,
        zswap_shrink_memcg: true,
        zswap_incompressible_as_is: true,
        swapin_maps_writable: true,
        blk_plug_peek: crate::blkdev::PlugPeek::Oldest,
        throtl_trim_keeps_one_slice: true,
        mmap_miss_skips_locked: true,
        mmap_miss_skips_workingset: true,
        sched_base_slice: 700_000,
        lag_clamp_max_slice: true,
        delay_dequeue: true,
        bound_kworker_lag: false,
        memcg_stats_ratelimited_reclaim: true,
        pcp_auto_tune: true,
        memcg_stock_slots: crate::memcontrol::NR_MEMCG_STOCK,
        lru_add_batch: crate::swap::PAGEVEC_SIZE_6_10,
        swap_slots_cache: false,
        zswap_invalidate_on_slot_free: true,
        fallback_steal: FallbackSteal::ClaimSteal,
        ..linux_6_6.clone()
    };
    vec![linux_6_18, linux_6_12, linux_6_12_lru_gen, linux_6_6, linux_6_6_lru_gen, linux_6_1, linux_6_1_lab, linux_5_17, linux_5_0, linux_4_4, linux_4_3, linux_3_13]
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
/// | M9 `write()` of 1 MiB over pages already cached and dirty (ext4 as above, 2026-11-25) | 968 |
/// | M10 `write()` of 1 MiB creating a 1 GiB file, no limit, no writeback meanwhile (median of 1726, 1592, 1548) | 1592 |
/// | M11 first-touch anonymous fault of a base page (THP `madvise`, none asked), kernel time; munmap of them (lab/measurements/anon_fault_cost.py, 2026-11-28: p10 of 200 rounds of 18 MiB, three runs 1288, 1305, 1315; munmap 249-254) | 1305; 250 |
/// | M12 the same with `MADV_HUGEPAGE`: 9 huge-page faults per round (three runs 141, 144, 152); munmap | 150; 13 |
/// | M13 memcg reclaim that frees nothing: `try_to_free_mem_cgroup_pages()` meeting only folios under read, per `shrink_inactive_list()` call (lab/measurements/reclaim_call_cost.py, 2026-11-28, load 10) | 748 |
/// | M14 `write()` of 128 KiB creating a 512 MiB file on the host's ext4 in large folios (6.18, no limit, nothing synced; lab/measurements/write_cost_large_folios.py, 2026-11-29, loadavg 8: 1023, 657, 658, the first on a cold allocator; median) | 658 |
///
/// M11 and M12 are 10th percentiles: the median base-page fault doubles (2.1-2.2 us) while the
/// other vCPU builds (the zone and LRU locks and the pcp lists are shared), the huge page's
/// clearing does not move; the engine gives each task a CPU of its own. The earlier figures
/// (anon_fault + clear_page 2040 ns, clear_page 460, zap_page 335) were taken on the host while
/// other sessions loaded it: the quiet host's `mmap_probe` control (host-stall-alone-p16m, 16 MiB
/// rounds) took 6.44 ms a round, 1.57 us per page for fault, clearing, charge and unmap.
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
    /// One `shrink_inactive_list()` call, less `scan_page` for the folio it takes:
    /// `lru_add_drain()`, `lru_lock` taken and dropped twice around `isolate_lru_folios()` and
    /// `move_folios_to_lru()`, the vmstat and memcg event counters, `lru_note_cost()`, with
    /// the share of `shrink_lruvec()`'s batch loop, `get_scan_count()`, `mem_cgroup_iter()` and
    /// `shrink_slab()` per call. M13: a memcg reclaim that meets only folios still under read
    /// (6.18, large folios of orders 6-8 in a 20M memcg) is 614-636 of these calls, one folio
    /// each, over priorities 12..0 (vmscan:mm_vmscan_lru_isolate), and takes 464 us (median
    /// of three runs' medians, 460-515, with only mm_vmscan_memcg_reclaim_begin/_end traced):
    /// 748 ns a call, less scan_page. This is v857's figure (the host boot the table was
    /// measured on); a host recording's own measurement replaces it (`[machine]
    /// reclaim_call_ns`, M13's method run by the host runner: 262-282 ns a call on v782, so 62-82).
    pub shrink_list_call: u64,
    /// `__remove_mapping()` + `free_unref_folios()` per page evicted, shadow entry included:
    /// the rest of M4 - M3 once the other reclaim costs are counted the way M4's reclaims ran
    /// (M13's trace of the same read at read_ahead_kb 128, order-0: 5.0 `shrink_inactive_list()`
    /// calls and 35 pages reclaimed per `try_to_free_mem_cgroup_pages()`): 959 =
    /// shrink_list_call/7 + scan_page + evict_page + uncharge (`charge`) + reclaim_call/35.
    pub evict_page: u64,
    /// Per tail page of a large folio reclaim evicts (orders61, issue 21): 6.18 mm/page_alloc.c
    /// `free_pages_prepare()` walks every tail page of a compound page it frees
    /// (`free_tail_page_prepare()`, the `PAGE_FLAGS_CHECK_AT_PREP` clear), `2^order - 1` of them,
    /// where `evict_page` is paid once a folio. The table has no such term (its M3/M4 reads were
    /// order-0): 0, so nothing moves unless a host recording measured it (`[machine]
    /// reclaim_tail_page_ns`: hostcal.py `reclaim_freed_from()`, the per-page term past a folio's
    /// first of a least-squares fit over the calibration's successful memcg reclaims).
    pub evict_tail_page: u64,
    /// Once per `shrink_inactive_list()` batch that freed a folio (orders61): the end of 6.18
    /// `shrink_folio_list()` with a non-empty `free_folios` list, `mem_cgroup_uncharge_folios()`
    /// (`uncharge_batch()`: the page counters, `memcg_check_events()`) and `free_unref_folios()`
    /// (the per-CPU lists' lock and the batch's pcp bookkeeping), which a batch that frees nothing
    /// skips. The table has no such term (its `shrink_list_call` is a failing call's, M13): 0 unless a
    /// host recording measured a freeing batch (`[machine] reclaim_batch_ns`, less the failing call
    /// `shrink_list_call + scan_page`).
    pub evict_batch: u64,
    /// `workingset_refault()` per refaulting page (shadow unpack, distance, stats); estimate:
    /// the host kernel showed no refaults to measure it by.
    pub refault: u64,
    /// One `try_to_free_mem_cgroup_pages()` / `do_try_to_free_pages()` call (set-up,
    /// `mem_cgroup_iter()`, `shrink_slab()`); estimate: 1500, i.e. 47 per page of a 32-page
    /// batch in M4 - M3.
    pub reclaim_call: u64,
    /// `folio_mark_dirty()` + `balance_dirty_pages_ratelimited()` per page a write dirties
    /// (with ext4's delayed-allocation reservation): M10 - M9 - `add_page`.
    pub dirty_page: u64,
    /// A block file system's `write_begin()` + `write_end()` per page written (ext4's
    /// `ext4_da_write_begin()`/`ext4_da_write_end()`: page lookup and lock, buffers, journal
    /// handle): M9 - M7.
    pub write_begin_end: u64,
    /// `write()` of a new page-cache page where the file system writes large folios (6.18
    /// ext4: `write_begin_get_folio()` asks for `fgf_set_order(len)`), everything per 4 KiB:
    /// the copy, the folio's allocation, insertion, charge and LRU add, `write_begin()` /
    /// `write_end()` and its dirtying, each done once per folio in the kernel: M14.
    pub write_large_folio_page: u64,
    /// `filemap_read()` of a cached page that is part of a large folio, the lookup's share
    /// and the copy. 6.18's `filemap_get_read_batch()` walks the xarray, takes a reference and
    /// checks each FOLIO once, `folio_mark_accessed()` and `folio_put()` run once per folio, and
    /// only `copy_folio_to_iter()`'s per-page `copy_page_to_iter()` step is per 4 KiB page: a page
    /// of an order-0 folio pays the folio's whole work (`lookup` + `copy_page`), a page of a
    /// large folio the copy and 1/nr of the rest. Set from the same runs' ratio (M15,
    /// lab/measurements/read_cost_large_folios.py, six runs on the host's 6.18 ext4: hot 128 KiB
    /// reads of a 512 MiB file in order-8 folios / the same file in order-0 folios; the ratios
    /// 0.225-0.58, median 0.307) times the order-0 page's cost of this table (M1 = `lookup` +
    /// `copy_page` + `syscall`/32 = 391), less `syscall`/32: 115. The order-0 control scatters
    /// between runs (255-609 ns, M1's 391 inside), the order-8 figure does not (130-153 ns), so
    /// the ratio and not M15's absolute figure ties the two paths to one machine.
    /// A host recording's own measurement replaces it (`[machine] read_large_folio_ns`,
    /// [`crate::hostcal::read_split`]: the per-page part of its per-order figures).
    pub read_large_folio_page: u64,
    /// `filemap_read()`'s work once per large folio a read visits: `filemap_get_read_batch()`'s
    /// xarray step, `folio_try_get()` and its checks, `folio_mark_accessed()`, `folio_put()`
    /// (6.18 does them per folio, the copy per page), so that a page of a small large folio
    /// costs more than a page of a big one. 0 in this table: M15 measured orders 5 and 8 only,
    /// both one folio a 128 KiB read (1 MiB reads of order-8 folios, 1/8 folio a page fewer,
    /// took the same within the runs' scatter), so v857's figure folds the folio's share into
    /// `read_large_folio_page`. A host recording's per-order measurement sets it (`[machine]
    /// read_large_folio_ns`, [`crate::hostcal::read_split`]; on v782 orders 2, 4 and 8 cost 566,
    /// 469 and 426 ns a page).
    pub read_large_folio: u64,
    /// fork + exec + exit of a short program, system time; estimate, not yet measured.
    pub spawn: u64,
    /// User time of `grep` scanning one 4 KiB page for a fixed string: GNU grep 3.8 over a
    /// cached 256 MiB file on the reference machine, 0.07 s user (median of 3).
    pub grep_scan_page: u64,
    /// `mmap()` or `munmap()` of a 128 MiB anonymous region, the call itself: 26 us measured
    /// (0.8 ns per page of the region, mmap + madvise, 50 iterations, median of 3 runs).
    pub mmap_call: u64,
    /// `do_anonymous_page()` of a base page without the clearing: 1305 ns per first-touch
    /// fault (M11), less `clear_page`.
    pub anon_fault: u64,
    /// `clear_page()` of 4 KiB on the local node: 150 ns, M12 (a huge page's fault is almost
    /// all clearing, so its time per 4 KiB bounds this from above). Remote nodes cost
    /// `REMOTE_DISTANCE / LOCAL_DISTANCE` times this.
    pub clear_page: u64,
    /// `do_huge_pmd_anonymous_page()` without the clearing; estimate (the THP fault
    /// measurement does not separate it from the clearing).
    pub thp_fault: u64,
    /// `zap_pte_range()` + free per base page at munmap: 250 ns (M11's munmap).
    pub zap_page: u64,
    /// `zap_huge_pmd()` + free of a huge page: 6.4 us measured (12.5 ns per 4 KiB; M12's
    /// munmap gave 13-14 ns per 4 KiB).
    pub zap_thp: u64,
    /// Compaction's migrate scanner per page looked at; estimate.
    pub compact_scan_page: u64,
    /// `migrate_pages()` of one base page (unmap, copy, remap); estimate: a `clear_page` for
    /// the copy plus the cost of a fault for the unmap and remap.
    pub migrate_page: u64,
    /// `zswap_is_page_same_filled()`: one pass over the page's words; estimate (4 KiB read
    /// at ~40 GB/s), not measured.
    pub zswap_same_filled_check: u64,
    /// LZO1X-1 compression of one 4 KiB page (`zswap_frontswap_store()`'s
    /// `crypto_comp_compress()`); estimate (LZO1X-1 compresses at about 600-700 MB/s on one
    /// core of a current x86_64), not measured.
    pub zswap_compress: u64,
    /// LZO1X decompression of one 4 KiB page (`zswap_frontswap_load()`,
    /// `zswap_writeback_entry()`); estimate (about 2 GB/s), not measured.
    pub zswap_decompress: u64,
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
            shrink_list_call: 550,
            evict_page: 530,
            evict_tail_page: 0,
            evict_batch: 0,
            refault: 150,
            reclaim_call: 1_500,
            dirty_page: 140,
            write_begin_end: 660,
            write_large_folio_page: 658,
            read_large_folio_page: 115,
            read_large_folio: 0,
            spawn: 300_000,
            grep_scan_page: 1_070,
            mmap_call: 26_000,
            anon_fault: 1_155,
            clear_page: 150,
            thp_fault: 2_000,
            zap_page: 250,
            zap_thp: 6_400,
            compact_scan_page: 20,
            migrate_page: 2_040,
            zswap_same_filled_check: 100,
            zswap_compress: 6_000,
            zswap_decompress: 2_000,
        }
    }

    /// The table on a machine whose CPUs are `k` times slower than the reference machine's
    /// (`[machine] cpu_slowdown`): every entry `k` times longer. For the QEMU/TCG lab, whose
    /// emulated CPUs run the kernel's code tens of times slower while QEMU's throttle serves
    /// the disk at its rate in the host's time: `memtwin real --on qemu` measures the guest's
    /// factor (`real.machine.cpu.cpu_slowdown`, a hot read of a cached file against
    /// `syscall`/`user_per_syscall`/`lookup`/`copy_page`).
    pub fn scaled(&self, k: u64) -> CpuCost {
        CpuCost {
            syscall: self.syscall * k,
            user_per_syscall: self.user_per_syscall * k,
            lookup: self.lookup * k,
            copy_page: self.copy_page * k,
            activate: self.activate * k,
            add_page: self.add_page * k,
            charge: self.charge * k,
            submit_io: self.submit_io * k,
            scan_page: self.scan_page * k,
            evict_page: self.evict_page * k,
            evict_tail_page: self.evict_tail_page * k,
            evict_batch: self.evict_batch * k,
            refault: self.refault * k,
            reclaim_call: self.reclaim_call * k,
            shrink_list_call: self.shrink_list_call * k,
            write_large_folio_page: self.write_large_folio_page * k,
            read_large_folio_page: self.read_large_folio_page * k,
            read_large_folio: self.read_large_folio * k,
            dirty_page: self.dirty_page * k,
            write_begin_end: self.write_begin_end * k,
            spawn: self.spawn * k,
            grep_scan_page: self.grep_scan_page * k,
            mmap_call: self.mmap_call * k,
            anon_fault: self.anon_fault * k,
            clear_page: self.clear_page * k,
            thp_fault: self.thp_fault * k,
            zap_page: self.zap_page * k,
            zap_thp: self.zap_thp * k,
            compact_scan_page: self.compact_scan_page * k,
            migrate_page: self.migrate_page * k,
            zswap_same_filled_check: self.zswap_same_filled_check * k,
            zswap_compress: self.zswap_compress * k,
            zswap_decompress: self.zswap_decompress * k,
        }
    }

    /// The table on a machine whose CPUs run the kernel's code `k` times and copy memory
    /// `copy_k` times slower than the reference machine's (`[machine] cpu_slowdown` and
    /// `copy_slowdown`): [`CpuCost::scaled`] by `k`, then the two entries that are a copy of
    /// a page and nothing else, `copy_page` and `clear_page`, `copy_k` times this table's.
    /// Entries that hold a copy among other work (`write_large_folio_page`, `migrate_page`)
    /// keep `k`. For the QEMU/TCG lab, whose emulated copies run at a speed of their own:
    /// `memtwin real --on qemu` measures `k` from 1-byte reads of cached pages (a syscall and
    /// a lookup) and `copy_k` from what 128 KiB reads of the same pages take more.
    pub fn scaled_split(&self, k: u64, copy_k: u64) -> CpuCost {
        CpuCost { copy_page: self.copy_page * copy_k, clear_page: self.clear_page * copy_k, ..self.scaled(k) }
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

    /// linux-6.12 takes the eras up to 6.12 that linux-6.18 lists (6.10's `-ENOMEM` stop in
    /// `page_cache_ra_unbounded()`, 6.11's shared `mem_cgroup_iter()` walk of
    /// `shrink_node_memcgs()` and `page_cache_sync_ra()`'s miss; 6.11's writable swap-in), not the later ones (6.14's
    /// `__wb_calc_thresh()` floor, 6.16's ext4 large folios and `ra->order`); lru_gen's memcg
    /// LRU (6.3) is on, and linux-6.12-lru_gen differs from linux-6.12 in `lru_gen` only.
    #[test]
    fn linux_6_12_takes_the_eras_up_to_6_12() {
        let (p612, p66, p618) = (profile("linux-6.12").unwrap(), profile("linux-6.6").unwrap(), profile("linux-6.18").unwrap());
        assert_eq!(p612.reclaim_walk, p618.reclaim_walk);
        assert_eq!(p612.ra_enomem_stops, p618.ra_enomem_stops);
        assert_eq!(p612.ra_sync_miss_as_hit, p618.ra_sync_miss_as_hit);
        assert!(p612.mmap_miss_skips_workingset && p618.mmap_miss_skips_workingset && !p66.mmap_miss_skips_workingset);
        // do_swap_page() maps an exclusive swapped-in folio writable on a read fault from 6.11
        // (c18160dba5ff).
        assert!(p612.swapin_maps_writable && p618.swapin_maps_writable && !p66.swapin_maps_writable);
        assert_ne!(p612.reclaim_walk, p66.reclaim_walk);
        assert_eq!(p612.wb_thresh_floor, p66.wb_thresh_floor);
        assert_ne!(p612.wb_thresh_floor, p618.wb_thresh_floor);
        assert_eq!(p612.large_folios.ext4, 0);
        assert_eq!(p612.large_folios.xfs, MAX_PAGECACHE_ORDER);
        assert_eq!(p612.large_folios.ra, p66.large_folios.ra);
        assert_eq!((p66.large_folios.write, p612.large_folios.write, p618.large_folios.write), (WriteOrder::SizedNoOrder1, WriteOrder::Sized, WriteOrder::Sized));
        assert_eq!(profile("linux-6.1").unwrap().large_folios.write, WriteOrder::Order0);
        assert!(p612.lru_gen_available && p612.lru_gen_memcg_lru && !p612.lru_gen);
        // 6.12.29 took 6.15's fallback (c2f6ea38fc1b, 90abee6d7895; Debian's 6.12.117 changelog):
        // claim a block or steal the smallest buddy, a boost a claim try (pool22c).
        assert_eq!((p66.fallback_steal, p612.fallback_steal, p618.fallback_steal), (FallbackSteal::MoveBlock, FallbackSteal::ClaimSteal, FallbackSteal::ClaimSteal));
        let lg = profile("linux-6.12-lru_gen").unwrap();
        assert!(lg.lru_gen);
        assert_eq!(format!("{:?}", KernelProfile { lru_gen: false, name: p612.name, description: p612.description, ..lg }), format!("{p612:?}"));
    }
}
