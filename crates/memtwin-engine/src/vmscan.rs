//! Page reclaim (mm/vmscan.c): memcg limit reclaim, global direct reclaim and kswapd, all
//! through `do_try_to_free_pages()` -> `shrink_node_memcgs()` -> `shrink_lruvec()`.

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::profile::{InactiveRatio, ReclaimThrottle, ReclaimWalk};
use crate::types::{int_sqrt, MemcgId, PageId};
use crate::vmstat::VmEvent;

/// `SWAP_CLUSTER_MAX`: the reclaim batch.
pub const SWAP_CLUSTER_MAX: u64 = 32;
/// `DEF_PRIORITY`: reclaim starts scanning `lru_size >> 12` pages per list.
pub const DEF_PRIORITY: u32 = 12;
/// `vm.swappiness` default (mm/vmscan.c `vm_swappiness = 60`, every era modelled).
pub const SWAPPINESS: u64 = 60;

/// Longest stall of a direct reclaimer on a congested queue: `HZ/10` (`wait_iff_congested()`
/// in `shrink_inactive_list()`, mm/vmscan.c 3.x-5.15; `reclaim_throttle()` since 5.16).
pub const RECLAIM_THROTTLE: crate::types::Nanos = 100_000_000;

/// `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c, 5.16+): a task
/// throttled at `now`, one of `nr_throttled` on the node, sleeps until
/// `__acct_reclaim_writeback()` sees more than `SWAP_CLUSTER_MAX * nr_throttled` pages of
/// the node finish writeback since the throttling started (`NR_THROTTLED_WRITTEN -
/// nr_reclaim_start`), at most `HZ/10` (`RECLAIM_THROTTLE`). `completions`: (completion
/// time, pages) of the writes in flight, in completion order.
pub fn reclaim_throttle_writeback_wake(
    now: crate::types::Nanos,
    nr_throttled: u64,
    completions: impl IntoIterator<Item = (crate::types::Nanos, u64)>,
) -> crate::types::Nanos {
    let timeout = now + RECLAIM_THROTTLE;
    let mut written = 0;
    for (t, n) in completions {
        if t <= now {
            continue; // completed before the throttling started
        }
        if t >= timeout {
            break;
        }
        written += n;
        if written > SWAP_CLUSTER_MAX * nr_throttled {
            return t;
        }
    }
    timeout
}

/// `congestion_wait(BLK_RW_ASYNC, timeout)` (mm/backing-dev.c) 5.0-5.15: no blk-mq device
/// marks its bdi congested, so nothing calls `clear_wb_congested()` to wake the sleeper and it
/// sleeps the whole `io_schedule_timeout(timeout)`. Returns the wake-up time.
pub fn congestion_wait_blk_mq(now: crate::types::Nanos, timeout: crate::types::Nanos) -> crate::types::Nanos {
    now + timeout
}

/// `enum folio_references` (mm/vmscan.c): what `folio_check_references()` decided for a
/// mapped page at the inactive tail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FolioRef {
    /// `FOLIOREF_ACTIVATE`: to the active list.
    Activate,
    /// `FOLIOREF_KEEP`: back to the inactive list for another trip.
    Keep,
    /// `FOLIOREF_RECLAIM` / `FOLIOREF_RECLAIM_CLEAN`: unmap and reclaim.
    Reclaim,
    /// A `VM_LOCKED` VMA maps it: to the unevictable list (the mlock race the kernel settles
    /// with `FOLIOREF_ACTIVATE` and `folio_evictable()`).
    Unevictable,
}

/// `folio_check_references()` (mm/vmscan.c; `page_check_references()` 2.6.34-5.17, same
/// rules): `referenced_ptes` young PTEs found, `referenced_folio` its `PG_referenced`, `exec`
/// whether a `VM_EXEC` VMA had one. "All mapped folios start out with page table references
/// from the instantiating fault, so we need to look twice if a mapped file/anon folio is used
/// more than once": a second reference (the flag, or another PTE) activates, one young PTE
/// keeps it for another trip with `PG_referenced` set, executable file pages activate after
/// their first use; with no young PTE it is reclaimed.
pub fn folio_references(referenced_ptes: u32, referenced_folio: bool, exec: bool) -> FolioRef {
    if referenced_ptes > 0 {
        if referenced_folio || referenced_ptes > 1 || exec {
            return FolioRef::Activate;
        }
        return FolioRef::Keep;
    }
    FolioRef::Reclaim
}

/// `struct scan_control`.
#[derive(Clone, Copy, Debug)]
pub struct ScanControl {
    /// `nr_to_reclaim`.
    pub nr_to_reclaim: u64,
    /// `nr_reclaimed`.
    pub nr_reclaimed: u64,
    /// `nr_scanned`.
    pub nr_scanned: u64,
    /// `priority`.
    pub priority: u32,
    /// `target_mem_cgroup`: the memcg whose subtree is reclaimed (root for global reclaim).
    pub target: MemcgId,
    /// `cgroup_reclaim(sc)`: limit reclaim of a memcg.
    pub cgroup_reclaim: bool,
    /// `current_is_kswapd()`.
    pub kswapd: bool,
    /// `memcg_low_reclaim`: second pass that may reclaim below memory.low.
    pub memcg_low_reclaim: bool,
    /// `memcg_low_skipped`.
    pub memcg_low_skipped: bool,
    /// `nr.writeback`: pages found under writeback.
    pub nr_writeback: u64,
    /// `may_deactivate & DEACTIVATE_FILE` forced by refaults at the reclaim root (5.9+):
    /// the active file list is shrunk whether or not the inactive one is low.
    pub deactivate_file: bool,
    /// `memcg_full_walk` (6.11+): this reclaim walks every memcg of the subtree, the shared
    /// iterator aside.
    pub memcg_full_walk: bool,
}

impl ScanControl {
    fn new(target: MemcgId, nr_to_reclaim: u64, cgroup_reclaim: bool, kswapd: bool) -> Self {
        ScanControl {
            nr_to_reclaim,
            nr_reclaimed: 0,
            nr_scanned: 0,
            priority: DEF_PRIORITY,
            target,
            cgroup_reclaim,
            kswapd,
            memcg_low_reclaim: false,
            memcg_low_skipped: false,
            nr_writeback: 0,
            deactivate_file: false,
            memcg_full_walk: false,
        }
    }
}

impl Kernel {
    /// `try_to_free_mem_cgroup_pages()`: limit reclaim of `memcg` and its descendants for at
    /// least `max(nr_pages, SWAP_CLUSTER_MAX)` pages. Returns the pages reclaimed.
    pub fn try_to_free_mem_cgroup_pages(&mut self, memcg: MemcgId, nr_pages: u64) -> u64 {
        let mut sc = ScanControl::new(memcg, nr_pages.max(SWAP_CLUSTER_MAX), true, false);
        self.do_try_to_free_pages(&mut sc)
    }

    /// `try_to_free_pages()`: global direct reclaim by an allocating task.
    pub fn try_to_free_pages(&mut self, nr_pages: u64) -> u64 {
        let mut sc = ScanControl::new(MemcgId::ROOT, nr_pages.max(SWAP_CLUSTER_MAX), false, false);
        self.do_try_to_free_pages(&mut sc)
    }

    /// One `balance_pgdat()` round of global reclaim of the node (kswapd when `kswapd`).
    pub fn shrink_node_global(&mut self, nr_pages: u64, kswapd: bool) -> u64 {
        let mut sc = ScanControl::new(MemcgId::ROOT, nr_pages.max(SWAP_CLUSTER_MAX), false, kswapd);
        if kswapd && self.profile.lru_gen {
            // kswapd_age_node() -> lru_gen_age_node() (6.1), before balance_pgdat() shrinks,
            // as on its first pass (sc.priority = DEF_PRIORITY).
            self.lru_gen_age_node(self.reclaim_nid.unwrap_or(0), DEF_PRIORITY);
        }
        self.do_try_to_free_pages(&mut sc)
    }

    /// `do_try_to_free_pages()`: shrink the target's subtree at falling priority until enough
    /// is reclaimed; if memory.low protection held everything back, go round once more
    /// ignoring memory.low.
    pub fn do_try_to_free_pages(&mut self, sc: &mut ScanControl) -> u64 {
        self.cpu(self.cost.reclaim_call);
        // prepare_scan_count() (5.9+): refaults seen at the reclaim root since its last
        // reclaim force the deactivation of active file pages; snapshot_refaults() at the end.
        let refaults = if self.profile.deactivate_on_refault {
            let i = MemcgEvent::WorkingsetActivateFile as usize;
            let r = self.memcgs.subtree_events(sc.target, i);
            sc.deactivate_file = r != self.memcgs.get(sc.target).refaults_snapshot;
            Some(r)
        } else {
            None
        };
        loop {
            sc.priority = DEF_PRIORITY;
            loop {
                sc.nr_scanned = 0;
                self.shrink_node_memcgs(sc);
                if sc.nr_reclaimed >= sc.nr_to_reclaim || sc.priority == 0 {
                    break;
                }
                sc.priority -= 1;
            }
            if sc.nr_reclaimed > 0 {
                break;
            }
            // 6.11+: a partial walk that got nothing goes round once more over every memcg
            // ("Avoid false OOMs in this case"), before the memory.low retry.
            if self.profile.reclaim_walk == ReclaimWalk::Shared && !sc.memcg_full_walk {
                sc.memcg_full_walk = true;
                continue;
            }
            if !sc.memcg_low_skipped || sc.memcg_low_reclaim {
                break;
            }
            sc.memcg_low_reclaim = true;
        }
        if let Some(r) = refaults {
            self.memcgs.memcgs[sc.target.idx()].refaults_snapshot = r;
        }
        sc.nr_reclaimed
    }

    /// `shrink_node_memcgs()`: visit every memcg of the target's subtree (`mem_cgroup_iter()`),
    /// skip those protected by memory.min (always) and memory.low (first pass), and shrink
    /// each one's lruvec.
    fn shrink_node_memcgs(&mut self, sc: &mut ScanControl) {
        // calculate_protection() leaves the subtree, pre-order, in `list`.
        let mut list = std::mem::take(&mut self.scratch_memcgs);
        self.memcgs.calculate_protection(sc.target, &mut list);
        // Which reclaimers share an iterator, and which one (`mem_cgroup_reclaim_cookie`).
        let slot = match self.profile.reclaim_walk {
            ReclaimWalk::Full => None,
            ReclaimWalk::SharedPerPriority => sc.cgroup_reclaim.then_some(sc.priority as usize),
            ReclaimWalk::Shared => (!sc.kswapd && !sc.memcg_full_walk).then_some(0),
        };
        let shared = slot.is_some();
        // With a shared iterator the walk resumes after the memcg the previous walk stopped
        // at, and runs to the end of the subtree (one round). A walk that would start past
        // the end restarts from the beginning (`mem_cgroup_iter()`: "a new one might jump in
        // right at the end of the hierarchy - make sure they see at least one group and
        // restart from the beginning").
        let start = if let Some(slot) = slot {
            let last = self.reclaim_iter[sc.target.idx()][slot];
            list.iter().position(|&m| m == last).map(|i| i + 1).filter(|&i| i < list.len()).unwrap_or(0)
        } else {
            0
        };
        let mut stopped_at = None;
        for &m in &list[start..] {
            if self.memcgs.below_min(m) {
                continue;
            }
            if self.memcgs.below_low(m) {
                if !sc.memcg_low_reclaim {
                    sc.memcg_low_skipped = true;
                    continue;
                }
                self.memcgs.count_event(m, MemcgEvent::Low, 1);
            }
            self.shrink_lruvec(m, sc);
            // shrink_slab(): the shadow-node shrinker is the one memcg-aware shrinker modelled.
            self.shrink_shadow_nodes(m);
            self.shrink_slab_sb(m, sc.priority);
            if shared && sc.nr_reclaimed >= sc.nr_to_reclaim {
                stopped_at = Some(m);
                break;
            }
        }
        if let Some(slot) = slot {
            self.reclaim_iter[sc.target.idx()][slot] = stopped_at.unwrap_or(MemcgId::NONE);
        }
        self.scratch_memcgs = list;
    }

    /// `get_scan_count()` + `shrink_lruvec()`: scan each file list by `size >> priority` in
    /// batches of `SWAP_CLUSTER_MAX` until the target is met. Anonymous lists are not scanned:
    /// there is no swap.
    fn shrink_lruvec(&mut self, memcg: MemcgId, sc: &mut ScanControl) {
        // Global reclaim by kswapd balances one node; limit and direct reclaim go over the
        // lruvecs of every node (shrink_zones() walks the whole zonelist).
        let (first, last) = match self.reclaim_nid {
            Some(n) => (n, n + 1),
            None => (0, self.nr_nodes),
        };
        for nid in first..last {
            let v = self.lruvec_idx(memcg, nid);
            self.shrink_lruvec_node(memcg, v, sc);
            if sc.nr_reclaimed >= sc.nr_to_reclaim {
                break;
            }
        }
    }

    /// `shrink_lruvec()` of one node's lruvec `v` of `memcg`.
    fn shrink_lruvec_node(&mut self, memcg: MemcgId, v: usize, sc: &mut ScanControl) {
        if self.lruvecs[v].lrugen.enabled {
            // "if (lru_gen_enabled()) { lru_gen_shrink_lruvec(lruvec, sc); return; }" (6.1)
            return self.lru_gen_shrink_lruvec(memcg, v, sc);
        }
        // mem_cgroup_protection(): emin in the low-ignoring pass, else max(emin, elow); the
        // reclaim target itself is never protected.
        let pc = &self.memcgs.get(memcg).counter;
        let protection = if memcg == sc.target {
            0
        } else if sc.memcg_low_reclaim {
            pc.emin
        } else {
            pc.emin.max(pc.elow)
        };
        let cgroup_size = pc.usage.max(protection);
        let dying = self.memcgs.get(memcg).state != crate::memcontrol::MemcgState::Online;
        let scan = |size: u64| -> u64 {
            let s = if protection > 0 {
                // Scan in proportion to how far the memcg is above its protection.
                (size - (size as u128 * protection as u128 / (cgroup_size as u128 + 1)) as u64).max(SWAP_CLUSTER_MAX)
            } else {
                size
            };
            let scan = s >> sc.priority;
            // "If the cgroup's already been deleted, make sure to scrape out the remaining
            // cache" (get_scan_count()).
            if scan == 0 && dying {
                size.min(SWAP_CLUSTER_MAX)
            } else {
                scan
            }
        };
        let mut nr_inactive = scan(self.lruvecs[v].size(LruList::InactiveFile));
        let mut nr_active = scan(self.lruvecs[v].size(LruList::ActiveFile));
        // get_scan_count() with a swap area: reclaim only file pages while the inactive file
        // list is not low and has pages to scan at this priority (SCAN_FILE); otherwise anon
        // and file in proportion to vm.swappiness (anon_prio = swappiness, file_prio =
        // 200 - swappiness; the recent-rotation feedback is not modelled). Without swap, or
        // with the area full, anonymous pages are not scanned.
        let (mut nr_anon_inactive, mut nr_anon_active) = (0u64, 0u64);
        if self.can_swap() {
            let file_enough = !self.inactive_is_low(v) && self.lruvecs[v].size(LruList::InactiveFile) >> sc.priority > 0;
            if !file_enough {
                let sw = SWAPPINESS;
                // Sizes in pages (`lruvec_lru_size()`); the scan loop takes one entry (a page
                // or a huge page) per unit, as isolate_lru_pages() counts `scan` in 4.x.
                nr_anon_inactive = scan(self.lruvecs[v].nr_pages(LruList::InactiveAnon)) * sw / 200;
                nr_anon_active = scan(self.lruvecs[v].nr_pages(LruList::ActiveAnon)) * sw / 200;
                nr_inactive = nr_inactive * (200 - sw) / 200;
                nr_active = nr_active * (200 - sw) / 200;
            }
        }
        // shrink_lruvec() compares what this call reclaimed (its local `nr_reclaimed`) with the
        // whole target `sc->nr_to_reclaim`, not what the earlier priorities already got: a
        // reclaim of 64 pages that reaches priority 7 takes up to 62 + 64.
        let before = sc.nr_reclaimed;
        while nr_inactive > 0 || nr_active > 0 || nr_anon_inactive > 0 || nr_anon_active > 0 {
            if nr_anon_inactive > 0 {
                let n = nr_anon_inactive.min(SWAP_CLUSTER_MAX);
                nr_anon_inactive -= n;
                sc.nr_reclaimed += self.shrink_inactive_anon(memcg, v, n, sc);
            }
            if nr_anon_active > 0 {
                let n = nr_anon_active.min(SWAP_CLUSTER_MAX);
                nr_anon_active -= n;
                if self.inactive_anon_is_low(v) {
                    self.shrink_active_anon(memcg, v, n);
                }
            }
            if nr_inactive > 0 {
                let n = nr_inactive.min(SWAP_CLUSTER_MAX);
                nr_inactive -= n;
                sc.nr_reclaimed += self.shrink_inactive_list(memcg, v, n, sc);
            }
            if nr_active > 0 {
                let n = nr_active.min(SWAP_CLUSTER_MAX);
                nr_active -= n;
                if sc.deactivate_file || self.inactive_is_low(v) {
                    self.shrink_active_list(memcg, v, n, sc);
                }
            }
            if sc.nr_reclaimed - before >= sc.nr_to_reclaim {
                break;
            }
        }
        if self.profile.throttle_vm_writeout {
            self.throttle_vm_writeout();
        }
    }

    /// `inactive_is_low()` for the anon lists: `inactive * ratio < active`, the ratio
    /// `int_sqrt(10 * size_in_GiB)` (1 below 1 GiB), in pages (`lruvec_page_state()`: a huge
    /// page counts 512).
    pub fn inactive_anon_is_low(&self, v: usize) -> bool {
        let l = &self.lruvecs[v];
        let (inactive, active) = (l.nr_pages(LruList::InactiveAnon), l.nr_pages(LruList::ActiveAnon));
        let gb = (inactive + active) >> (30 - crate::types::PAGE_SHIFT);
        let ratio = if gb > 0 { int_sqrt(10 * gb) } else { 1 };
        inactive * ratio < active
    }

    /// `shrink_active_list()` of the anon lists: move up to `nr` pages from the active tail to
    /// the inactive list (anonymous pages are not referenced-checked: the engine does not
    /// track accessed bits of page tables).
    fn shrink_active_anon(&mut self, memcg: MemcgId, v: usize, nr: u64) {
        let mut moved = 0;
        for _ in 0..nr {
            let Some(p) = self.lruvecs[v].tail(LruList::ActiveAnon) else { break };
            self.cpu(self.cost.scan_page);
            self.lruvecs[v].del(&mut self.pages, p);
            self.pages[p].flags &= !pg::ACTIVE;
            self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveAnon);
            moved += 1;
        }
        self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, moved);
        self.vmstat.count(VmEvent::Pgdeactivate, moved);
    }

    /// `shrink_inactive_list()` of the anon lists: a page under swap writeback is kept (and
    /// marked for immediate reclaim); a clean swap-cache page is freed; any other anonymous
    /// page is written to swap (`add_to_swap()` + `pageout()`), or activated when swap is
    /// full. A tmpfs page (swap-backed page cache, on the anon lists too) is activated: its
    /// swap-out (`shmem_writepage()`, page cache to swap cache) is not modelled.
    fn shrink_inactive_anon(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &mut ScanControl) -> u64 {
        let (mut scanned, mut reclaimed, mut nr_writeback, mut nr_immediate) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..nr {
            let Some(p) = self.lruvecs[v].tail(LruList::InactiveAnon) else { break };
            self.lruvecs[v].del(&mut self.pages, p);
            scanned += 1;
            self.cpu(self.cost.scan_page);
            if self.pages[p].test(pg::WRITEBACK) {
                nr_immediate += self.pages[p].test(pg::RECLAIM) as u64;
                self.pages[p].flags |= pg::RECLAIM;
                self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveAnon);
                sc.nr_writeback += 1;
                nr_writeback += 1;
                continue;
            }
            if self.pages[p].test(pg::SWAPCACHE) {
                reclaimed += self.free_swapped_page(p);
                continue;
            }
            if self.pages[p].test(pg::ANON) && self.swap_writepage(p) {
                self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveAnon);
            } else {
                self.pages[p].flags |= pg::ACTIVE;
                self.lruvecs[v].add(&mut self.pages, p, LruList::ActiveAnon);
            }
        }
        self.count_scan_steal(memcg, v, scanned, reclaimed, sc);
        if nr_writeback > 0 {
            if let Some(dev) = self.swap.as_ref().map(|a| a.dev.idx()) {
                self.throttle_direct_reclaim(dev, sc);
                self.throttle_kswapd(dev, nr_immediate, nr_writeback == scanned, sc);
            }
        }
        reclaimed
    }

    /// The end of `shrink_inactive_list()` for kswapd: a batch whose every page was under
    /// writeback (`ZONE_WRITEBACK`/`PGDAT_WRITEBACK`) and that met pages already marked for
    /// immediate reclaim (`nr_immediate`: reclaim found them under writeback before) means
    /// pages are being queued for I/O faster than the device completes them: kswapd sleeps
    /// `congestion_wait(BLK_RW_ASYNC, HZ/10)` (3.11-5.15; `reclaim_throttle(
    /// VMSCAN_THROTTLE_WRITEBACK)` since 5.16), woken early when the queue leaves congestion.
    fn throttle_kswapd(&mut self, dev: usize, nr_immediate: u64, all_writeback: bool, sc: &ScanControl) {
        if !sc.kswapd || nr_immediate == 0 || !all_writeback {
            return;
        }
        let until = match self.profile.reclaim_throttle {
            ReclaimThrottle::Congestion => match self.devices[dev].write_congested(self.now) {
                Some(t) => t.min(self.now + RECLAIM_THROTTLE),
                None => self.now + RECLAIM_THROTTLE,
            },
            ReclaimThrottle::CongestionTimeout => congestion_wait_blk_mq(self.now, RECLAIM_THROTTLE),
            ReclaimThrottle::Writeback => self.reclaim_throttle_writeback_until(),
        };
        self.io_schedule_until(until, StallKind::Congestion);
    }

    /// When `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (mm/vmscan.c, 5.16+) called
    /// now by one task returns: see [`reclaim_throttle_writeback_wake`].
    pub fn reclaim_throttle_writeback_until(&self) -> crate::types::Nanos {
        let mut done: Vec<(crate::types::Nanos, u64)> = self.wb_queue.iter().map(|r| (r.0 .0, r.0 .3 as u64)).collect();
        done.sort_unstable();
        reclaim_throttle_writeback_wake(self.now, 1, done)
    }

    /// Sleep in D state until `t` (`io_schedule_timeout()`), a stall of `kind`, then end the
    /// writeback of every write that completed meanwhile (their interrupts ran while the task
    /// slept).
    fn io_schedule_until(&mut self, t: crate::types::Nanos, kind: StallKind) {
        self.stalled(kind, |k| k.wait_until(t));
        self.writeback_end_io();
        self.swap_end_io();
    }

    /// The end of `shrink_inactive_list()` for a batch that met dirty pages or pages under
    /// writeback on device `dev`: global direct reclaim stalls while that device's queue is
    /// congested (`wait_iff_congested(zone, BLK_RW_ASYNC, HZ/10)` in 3.x-5.15, after the batch
    /// flagged the zone `ZONE_CONGESTED`; `reclaim_throttle(VMSCAN_THROTTLE_CONGESTED)` since
    /// 5.16), at most `HZ/10`, until the backlog drains below the off threshold. kswapd and
    /// memcg limit reclaim do not stall here.
    fn throttle_direct_reclaim(&mut self, dev: usize, sc: &ScanControl) {
        if sc.kswapd || sc.cgroup_reclaim {
            return;
        }
        if self.profile.reclaim_throttle == ReclaimThrottle::CongestionTimeout {
            // wait_iff_congested() 5.0-5.15: no blk-mq bdi is ever congested
            // (nr_wb_congested == 0), so it only cond_resched()s.
            return;
        }
        if let Some(t) = self.devices[dev].write_congested(self.now) {
            self.io_schedule_until(t.min(self.now + RECLAIM_THROTTLE), StallKind::Congestion);
        }
    }

    /// The scan and steal events of one `shrink_inactive_list()` batch: memory.stat
    /// `pgscan`/`pgsteal` of the memcg, and /proc/vmstat's kswapd or direct counters for
    /// global reclaim, which also adds to the node's `NR_PAGES_SCANNED` (pre-4.7 OOM
    /// detection, `zone_reclaimable()`).
    pub(crate) fn count_scan_steal(&mut self, memcg: MemcgId, v: usize, scanned: u64, reclaimed: u64, sc: &mut ScanControl) {
        self.memcgs.count_event(memcg, MemcgEvent::Pgscan, scanned);
        self.memcgs.count_event(memcg, MemcgEvent::Pgsteal, reclaimed);
        sc.nr_scanned += scanned;
        if !sc.cgroup_reclaim {
            let (scan_ev, steal_ev) =
                if sc.kswapd { (VmEvent::PgscanKswapd, VmEvent::PgstealKswapd) } else { (VmEvent::PgscanDirect, VmEvent::PgstealDirect) };
            self.vmstat.count(scan_ev, scanned);
            self.vmstat.count(steal_ev, reclaimed);
            let nid = v % self.nr_nodes as usize;
            if let Some(n) = self.nodes.get_mut(nid) {
                n.pages_scanned += scanned;
            }
        }
    }

    /// `inactive_is_low()` for the file lists: `inactive * ratio < active` with
    /// `ratio = int_sqrt(10 * size_in_GiB)` (1 below 1 GiB), or 1:1 in old profiles.
    pub fn inactive_is_low(&self, v: usize) -> bool {
        let l = &self.lruvecs[v];
        let inactive = l.size(LruList::InactiveFile);
        let active = l.size(LruList::ActiveFile);
        let ratio = match self.profile.file_inactive_ratio {
            InactiveRatio::OneToOne => 1,
            InactiveRatio::Sqrt => {
                let gb = (inactive + active) >> (30 - crate::types::PAGE_SHIFT);
                if gb > 0 {
                    int_sqrt(10 * gb)
                } else {
                    1
                }
            }
        };
        inactive * ratio < active
    }

    /// `shrink_active_list()`: move up to `nr` pages from the tail of the active list to the
    /// inactive list, marking them `PG_workingset`. A mapped page's young PTEs are cleared
    /// on the way (`folio_referenced()`); one an executable mapping used goes round the
    /// active list once more ("Identify referenced, file-backed active folios and give them
    /// one more trip around the active list", every era modelled: 8cab4754d24a, 2.6.31).
    fn shrink_active_list(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &ScanControl) {
        let mut moved = 0;
        let mut scanned = 0;
        while scanned < nr {
            let Some(p) = self.lruvecs[v].tail(LruList::ActiveFile) else { break };
            let nr_p = self.pages.folio_nr_pages(p);
            self.cpu(self.cost.scan_page);
            self.lruvecs[v].del(&mut self.pages, p);
            scanned += nr_p;
            if self.pages[p].mapcount > 0 {
                let r = self.folio_referenced(p);
                if r.locked {
                    self.pages[p].flags &= !pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, p, LruList::Unevictable);
                    continue;
                }
                if r.ptes > 0 && r.exec {
                    self.lruvecs[v].add(&mut self.pages, p, LruList::ActiveFile);
                    continue;
                }
            }
            let pg_ = &mut self.pages[p];
            pg_.flags &= !pg::ACTIVE;
            pg_.flags |= pg::WORKINGSET;
            self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveFile);
            moved += nr_p;
        }
        self.memcgs.count_event(memcg, MemcgEvent::Pgrefill, scanned);
        self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, moved);
        if !sc.cgroup_reclaim {
            self.vmstat.count(VmEvent::Pgrefill, scanned);
        }
        self.vmstat.count(VmEvent::Pgdeactivate, moved);
    }

    /// `shrink_inactive_list()` + `shrink_folio_list()`: isolate up to `nr` pages from the
    /// tail of the inactive file list and reclaim the clean, unlocked ones. Pages under read
    /// I/O or writeback are put back; dirty pages are handed to the flusher
    /// (`wakeup_flusher_threads()`) and activated, as direct reclaim never writes file pages.
    /// With `recharge_on_pagecache_get`, limit reclaim uncharges clean pages and moves them to
    /// the root memcg's LRU instead of evicting them.
    fn shrink_inactive_list(&mut self, memcg: MemcgId, v: usize, nr: u64, sc: &mut ScanControl) -> u64 {
        let keep_in_cache = self.policies.recharge_on_pagecache_get && sc.cgroup_reclaim;
        let mut scanned = 0;
        let mut reclaimed = 0;
        let mut kick_flusher = false;
        let mut nr_unqueued_dirty = 0u64;
        let mut congested_dev = None;
        let (mut nr_writeback, mut nr_immediate) = (0u64, 0u64);
        while scanned < nr {
            let Some(p) = self.lruvecs[v].tail(LruList::InactiveFile) else { break };
            let nr_p = self.pages.folio_nr_pages(p);
            self.lruvecs[v].del(&mut self.pages, p);
            scanned += nr_p;
            self.cpu(self.cost.scan_page);
            if self.folio_test_locked(p) {
                self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveFile);
                continue;
            }
            if self.pages[p].test(pg::WRITEBACK) && !sc.kswapd && !self.writeback_throttling_sane(sc) && self.pages[p].test(pg::RECLAIM) {
                // shrink_folio_list() "case 3": legacy (cgroup v1) memcg reclaim has no dirty
                // throttling of its own, so it waits for the writeback of a page it already
                // marked (folio_wait_writeback()), then tries the page again.
                let done = self.wb_done.get(p.idx()).copied().unwrap_or(self.now);
                self.io_schedule_until(done, StallKind::Writeback);
            }
            if self.pages[p].test(pg::WRITEBACK) {
                // shrink_folio_list() "case 1" (kswapd meeting a marked page again) and "case
                // 2": mark it for immediate reclaim and keep it; the end of its writeback
                // rotates it to the inactive tail (writeback_end_io()). From 4.12 the page is
                // activated meanwhile (activate_locked), as dirty pages are (c55e8d035b28
                // "mm: vmscan: move dirty pages out of the way until they're flushed").
                nr_immediate += self.pages[p].test(pg::RECLAIM) as u64;
                nr_writeback += 1;
                self.pages[p].flags |= pg::RECLAIM;
                if self.profile.reclaim_activates_dirty {
                    self.pages[p].flags |= pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, p, LruList::ActiveFile);
                    self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, 1);
                    self.vmstat.count(VmEvent::Pgactivate, 1);
                } else {
                    self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveFile);
                }
                sc.nr_writeback += 1;
                congested_dev = self.inodes[self.pages[p].mapping.idx()].dev.or(congested_dev);
                continue;
            }
            if self.pages[p].mapcount > 0 {
                match self.folio_check_references(p) {
                    FolioRef::Activate => {
                        self.pages[p].flags |= pg::ACTIVE;
                        self.lruvecs[v].add(&mut self.pages, p, LruList::ActiveFile);
                        self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, 1);
                        self.vmstat.count(VmEvent::Pgactivate, 1);
                        continue;
                    }
                    FolioRef::Keep => {
                        self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveFile);
                        continue;
                    }
                    FolioRef::Unevictable => {
                        self.lruvecs[v].add(&mut self.pages, p, LruList::Unevictable);
                        continue;
                    }
                    FolioRef::Reclaim => {
                        if !self.pages[p].test(pg::DIRTY) {
                            // try_to_unmap() before __remove_mapping().
                            self.try_to_unmap(p);
                        }
                    }
                }
            }
            if self.pages[p].test(pg::DIRTY) {
                congested_dev = self.inodes[self.pages[p].mapping.idx()].dev.or(congested_dev);
                // "Immediately reclaim when written back": PG_reclaim, so that the end of its
                // writeback rotates it to the inactive tail (clear_dirty_for_io()).
                kick_flusher = true;
                nr_unqueued_dirty += 1;
                if self.profile.reclaim_activates_dirty {
                    // v4.12+: activate_locked, counted as an activation.
                    self.pages[p].flags |= pg::RECLAIM | pg::ACTIVE;
                    self.lruvecs[v].add(&mut self.pages, p, LruList::ActiveFile);
                    self.memcgs.count_event(memcg, MemcgEvent::Pgactivate, 1);
                    self.vmstat.count(VmEvent::Pgactivate, 1);
                } else {
                    // v3.2-4.11: keep_locked, back to the head of the inactive list.
                    self.pages[p].flags |= pg::RECLAIM;
                    self.lruvecs[v].add(&mut self.pages, p, LruList::InactiveFile);
                }
                continue;
            }
            // folio_check_references(): an unmapped clean file page is reclaimed even when
            // PG_referenced is set (FOLIOREF_RECLAIM_CLEAN); the flag is cleared.
            self.pages[p].flags &= !(pg::REFERENCED | pg::READAHEAD | pg::RECLAIM);
            if keep_in_cache && self.pages[p].memcg != MemcgId::NONE && self.pages[p].memcg != MemcgId::ROOT {
                if self.pages[p].test(pg::HEAD) {
                    self.mem_cgroup_uncharge_folio(p);
                } else {
                    self.mem_cgroup_uncharge(p);
                }
                self.pages[p].flags &= !pg::ACTIVE;
                let root = self.folio_lruvec(p);
                self.lruvecs[root].add(&mut self.pages, p, LruList::InactiveFile);
            } else {
                self.evict(p, sc.target);
            }
            reclaimed += nr_p;
        }
        self.count_scan_steal(memcg, v, scanned, reclaimed, sc);
        if self.profile.flusher_wakeup_writes_all {
            // 4.12+: "If dirty folios are scanned that are not queued for IO, it implies
            // that flushers are not doing their job": the flusher is woken only when every
            // page the batch took was dirty and not under writeback (`nr_unqueued_dirty ==
            // nr_taken`). From 6.1 legacy (v1) memcg reclaim then waits for writeback to
            // progress (`reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)`, at most HZ/10; woken
            // once more than SWAP_CLUSTER_MAX pages have finished writeback).
            if scanned > 0 && nr_unqueued_dirty == scanned {
                self.wakeup_flusher_threads();
                if self.profile.v1_reclaim_throttle && !self.writeback_throttling_sane(sc) {
                    let until = self.reclaim_throttle_writeback_until();
                    self.io_schedule_until(until, StallKind::Congestion);
                }
            }
        } else if kick_flusher {
            self.wakeup_flusher_threads();
        }
        if let Some(dev) = congested_dev {
            self.throttle_direct_reclaim(dev.idx(), sc);
            self.throttle_kswapd(dev.idx(), nr_immediate, nr_writeback == scanned, sc);
        }
        reclaimed
    }

    /// `folio_check_references()` of a mapped file page: `folio_referenced()` through rmap,
    /// `folio_test_clear_referenced()`, then [`folio_references`]; a kept page gets
    /// `PG_referenced` (`folio_set_referenced()`).
    pub fn folio_check_references(&mut self, p: PageId) -> FolioRef {
        let r = self.folio_referenced(p);
        let referenced_folio = self.pages[p].test(pg::REFERENCED);
        self.pages[p].flags &= !pg::REFERENCED;
        if r.locked {
            return FolioRef::Unevictable;
        }
        if r.ptes > 0 {
            self.pages[p].flags |= pg::REFERENCED;
        }
        folio_references(r.ptes, referenced_folio, r.exec)
    }

    /// `writeback_throttling_sane()`: global reclaim, and cgroup reclaim on cgroup v2 (whose
    /// memcgs are writeback domains with dirty throttling, v4.2+); legacy (v1) memcg reclaim
    /// is not, and waits on writeback instead.
    pub fn writeback_throttling_sane(&self, sc: &ScanControl) -> bool {
        !sc.cgroup_reclaim || (self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && self.profile.cgroup_writeback)
    }

    /// `__remove_mapping()` + `mem_cgroup_uncharge()` + `free_unref_folios()`: evict a clean
    /// page, leaving a shadow entry (`workingset_eviction()`), and free its frame.
    pub fn evict(&mut self, p: PageId, target: MemcgId) {
        self.cpu(self.cost.evict_page);
        let shadow = if self.profile.workingset_refault { Some(self.workingset_eviction(p, target)) } else { None };
        if self.pages[p].test(pg::HEAD) {
            // A large folio goes whole, leaving one shadow entry over its range.
            let nr = self.pages.folio_nr_pages(p);
            self.filemap_remove_large_folio(p, shadow);
            self.mem_cgroup_uncharge_folio(p);
            self.free_folio(p, nr);
            return;
        }
        self.filemap_remove_folio(p, shadow);
        self.mem_cgroup_uncharge(p);
        self.free_page(p);
    }
}

#[cfg(test)]
mod throttle_tests {
    use super::*;
    use crate::profile::{profile, Policies, ReclaimThrottle};

    const MS: u64 = 1_000_000;

    #[test]
    fn reclaim_throttle_writeback_5_16_wakes_after_swap_cluster_max_pages_written() {
        // mm/vmscan.c 5.16+ __acct_reclaim_writeback(): wake_up once
        // nr_written > SWAP_CLUSTER_MAX * nr_throttled; 32 pages are not enough, 33 are.
        let now = 1_000 * MS;
        let done = [(now + 2 * MS, 16), (now + 5 * MS, 16), (now + 7 * MS, 1), (now + 9 * MS, 64)];
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, done), now + 7 * MS);
        // Two throttled tasks need more than 64 pages.
        assert_eq!(reclaim_throttle_writeback_wake(now, 2, done), now + 9 * MS);
        // Writes completed before the throttling started do not count (nr_reclaim_start).
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, [(now - MS, 1000), (now + 3 * MS, 40)]), now + 3 * MS);
        // Nothing completing within HZ/10: the timeout.
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, [(now + 150 * MS, 1000)]), now + RECLAIM_THROTTLE);
        assert_eq!(reclaim_throttle_writeback_wake(now, 1, []), now + RECLAIM_THROTTLE);
    }

    #[test]
    fn congestion_wait_5_0_to_5_15_sleeps_the_whole_hz_10_on_blk_mq() {
        // mm/backing-dev.c congestion_wait() 5.0-5.15: no blk-mq bdi calls clear_wb_congested().
        assert_eq!(congestion_wait_blk_mq(7 * MS, RECLAIM_THROTTLE), 7 * MS + 100 * MS);
        assert_eq!(RECLAIM_THROTTLE, 100 * MS, "HZ/10");
    }

    #[test]
    fn reclaim_throttle_eras_per_profile() {
        // congestion_wait()/wait_iff_congested() with a legacy request queue before 5.0,
        // congestion_wait() on blk-mq 5.0-5.15, reclaim_throttle() from 5.16.
        assert_eq!(profile("linux-4.4").unwrap().reclaim_throttle, ReclaimThrottle::Congestion);
        assert_eq!(profile("linux-5.0").unwrap().reclaim_throttle, ReclaimThrottle::CongestionTimeout);
        for p in ["linux-5.17", "linux-6.1", "linux-6.6"] {
            assert_eq!(profile(p).unwrap().reclaim_throttle, ReclaimThrottle::Writeback, "{p}");
        }
        // shrink_inactive_list()'s v1 reclaim_throttle() after waking the flusher: 6.1+.
        assert!(!profile("linux-5.17").unwrap().v1_reclaim_throttle);
        assert!(profile("linux-6.1").unwrap().v1_reclaim_throttle);
    }

    #[test]
    fn should_reclaim_retry_4_7_to_5_15_waits_hz_10_for_write_pending() {
        // mm/page_alloc.c should_reclaim_retry() 4.7-5.15: "if (2 * write_pending > reclaimable)
        // { congestion_wait(BLK_RW_ASYNC, HZ/10); return true; }" -- on 5.x the full HZ/10,
        // as nothing clears a blk-mq bdi's congestion.
        let mut k = Kernel::new(profile("linux-5.0").unwrap(), Policies::default(), crate::memcontrol::CgroupVersion::V1, 1 << 15, 0);
        assert!(k.profile.oom_waits_on_write_pending);
        let t0 = k.now;
        k.should_reclaim_retry_write_pending_wait();
        assert_eq!(k.now - t0, 100 * MS);
        assert_eq!(k.iowait_ns, 100 * MS);
        // 5.16 removed the wait (reclaim_throttle() inside reclaim instead).
        assert!(!profile("linux-5.17").unwrap().oom_waits_on_write_pending);
    }
}
