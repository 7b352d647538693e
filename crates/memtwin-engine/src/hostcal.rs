//! A recorded host's own costs (`[machine] read_large_folio_ns`, `reclaim_call_ns`,
//! `loop_read_window`, `anon_fault_ns`, `clear_page_ns`, `zap_page_ns`): what `memtwin real --on host` measures of the machine with each
//! recording (python/memtwin/hostcal.py, kept as `real.machine.host_cost`) and validate gives the
//! engine, as the QEMU runner's boots give their code/copy slowdown. The cost table
//! ([`CpuCost::reference`]) was measured on one boot of the host (6.18.44-fc-v857); the host's
//! later boot (v782) reads a page of a large folio about three times slower and makes a memcg
//! reclaim call that frees nothing about three times faster (BENCHMARKS.md M13, M15). A scenario
//! without these keys keeps the table (v857's figures).
//!
//! - `read_large_folio_ns`: (order, ns) pairs, the system time per 4 KiB page of hot 128 KiB
//!   `read()`s of a file held in folios of that order (M15's method). They set
//!   [`CpuCost::read_large_folio_page`] and [`CpuCost::read_large_folio`] ([`read_split`]).
//! - `reclaim_call_ns`: a memcg reclaim that frees nothing over its `isolate_lru_folios()` calls
//!   (M13's method): [`CpuCost::shrink_list_call`] is it less `scan_page` (the one folio each
//!   call takes), as M13's 748 ns gave the table's 550.
//! - `reclaim_call_spans` (reclaim21, lab/validation/reclaim-spans-rule.md): the scenario's own
//!   memcg reclaims that freed nothing, traced over the run by the host runner
//!   (`scenario_reclaim_call_spans_ns`: each one's duration, timed by M13's light trace, over the
//!   calibration's median `mm_vmscan_lru_isolate` count, sorted), instead of the separate 128 MiB
//!   read's median. Each memcg reclaim
//!   (`try_to_free_mem_cgroup_pages()`, 6.18 mm/vmscan.c) draws one of them, seeded by the boot
//!   seed, as [`crate::blkdev::HwQueue::read_bw_batches`] draws the device's batches, and every
//!   `shrink_inactive_list()` call of that reclaim costs it ([`CpuCost::shrink_list_call`] is the
//!   draw less `scan_page`, as for `reclaim_call_ns`). A sample is one reclaim's mean per call,
//!   so the draw is per reclaim, not per call: drawing each call anew would average the spread
//!   of a reclaim's length away. The median stays `reclaim_call_ns`, the scalar every other
//!   reclaim (global, kswapd) costs.
//! - `loop_read_window`: the loop device's time for an 8 MiB read ([`window_read_bw`]): the read
//!   bandwidth its requests share in [`crate::blkdev::HwQueue`]. A host recording's is its
//!   `device_window_ns` (rawin21): over the scenario's own run, the busy time of the device's
//!   read requests (traced from `blk_mq_start_request()` in `loop_queue_rq()` to
//!   `blk_mq_end_request()`, 6.18) per 8 MiB read. blk-throttle's hold is outside it (a held bio
//!   is not a request yet: `blk_throtl_bio()` in `submit_bio_noacct()`), as it is outside
//!   [`crate::blkdev::HwQueue::dispatch`], which starts a request at its release; the loop
//!   worker's wake-up is inside it, which the engine has no separate term for on the host (no
//!   `worker_wakeup_latency` is given for host recordings), so the bandwidth holds it.
//! - `loop_read_window_spans` (spans21, lab/validation/spans-rule.md): the run's lone 8 MiB windows
//!   one by one (`device_lone_window_spans_ns`: hostcal.py `device_window_from()`'s busy periods of
//!   one window issued at once and nothing else), each turned into a rate as the window is; the
//!   rates are the loop device's read batches, drawn one per busy period
//!   ([`crate::blkdev::HwQueue::read_bw_batches`]), the device's spread instead of one rate.
//! - `reclaim_folio_ns`, `reclaim_tail_page_ns`, `reclaim_fixed_ns`, `reclaim_batch_ns` (orders61,
//!   issue 21): a successful memcg reclaim's per-folio, per-tail-page, fixed and per-freeing-batch
//!   terms, fitted by the host runner (hostcal.py `reclaim_freed_from()`): they set
//!   [`CpuCost::evict_page`] (less `scan_page` and `charge`), [`CpuCost::evict_tail_page`],
//!   [`CpuCost::reclaim_call`] and [`CpuCost::evict_batch`] (less the failing call).
//! - `anon_fault_ns`, `clear_page_ns`, `zap_page_ns` (hostcal23, issues 21/23): the anonymous
//!   memory paths of an `mmap_probe` round (mmap, one first-touch fault per base page, munmap),
//!   by M11/M12's method (lab/measurements/anon_fault_cost.py, shortened: the 10th percentile of
//!   rounds, kernel time: the first touch less the same loop's second, faultless pass).
//!   `anon_fault_ns` is M11's figure, a whole first-touch `do_anonymous_page()` of a base page
//!   (6.18: `alloc_anon_folio()` -> `vma_alloc_zeroed_movable_folio()` with its
//!   `clear_page()`, the memcg charge, `folio_add_new_anon_rmap()`, `folio_add_lru_vma()`,
//!   `set_pte_at()`); `clear_page_ns` M12's, a `MADV_HUGEPAGE` region's
//!   `do_huge_pmd_anonymous_page()` time per 4 KiB (almost all `clear_huge_page()`), which
//!   sets [`CpuCost::clear_page`]; [`CpuCost::anon_fault`] is the fault less that clearing
//!   (as M11's 1305 less M12's 150 gave the table's 1155); `zap_page_ns` M11's munmap per base
//!   page (`zap_pte_range()` and the frees, `tlb_finish_mmu()`), which sets
//!   [`CpuCost::zap_page`]. On host boot v669 the quiet set with these costs (the lead's
//!   real/host-stall-alone-p16m-v669h1..6, 2026-11-30 20:11-20:12 UTC, no helper running,
//!   loadavg 0.83-0.97; host-stall-alone-p16m's header) measured `anon_fault_ns` 1653-1775
//!   (1.27-1.36x the table's 1305), `clear_page_ns` 81-135 (the table's 150) and `zap_page_ns`
//!   203-223 (250). Refuted by it: stall23's "a fault in ~2x v857's time, a page cleared in
//!   338 ns" for v669 (anon_fault_cost.py on a loaded host).

use crate::profile::CpuCost;

/// Pages of one of the calibration's reads (hostcal.py `READ_BS`, 128 KiB: cat's buffer).
pub const CAL_READ_PAGES: u64 = 32;
/// The calibration's window read (hostcal.py `WINDOW_BYTES`): one readahead window at
/// read_ahead_kb 8192.
pub const CAL_WINDOW_BYTES: u64 = 8 << 20;

/// What a host recording measured of its machine (module doc); empty: the table as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostCost {
    /// (folio order >= 1, ns per 4 KiB page of a hot 128 KiB read), orders ascending, each once.
    pub read_large_folio: Vec<(u32, u64)>,
    /// ns per `isolate_lru_folios()` call of a memcg reclaim that frees nothing.
    pub reclaim_call: Option<u64>,
    /// ns per `isolate_lru_folios()` call of each of the run's own memcg reclaims that freed
    /// nothing (`[machine] reclaim_call_spans`; a host recording's
    /// `scenario_reclaim_call_spans_ns`, lab/validation/reclaim-spans-rule.md): one drawn per
    /// memcg reclaim ([`crate::kernel::Kernel::draw_reclaim_call`]). Empty: `reclaim_call` for
    /// every reclaim.
    pub reclaim_call_spans: Vec<u64>,
    /// ns of an 8 MiB read on the loop device: the median span of a run's lone 8 MiB windows where
    /// every recording of the set has them (`device_lone_window_ns`, lab/validation/lone-window-rule.md),
    /// else its busy time per 8 MiB over the run (`device_window_ns`).
    pub loop_read_window: Option<u64>,
    /// ns of each of a run's lone 8 MiB windows (`[machine] loop_read_window_spans`; a host
    /// recording's `device_lone_window_spans_ns`, lab/validation/spans-rule.md): each becomes a read
    /// rate by [`window_read_bw`] and the rates the device's read batches
    /// ([`crate::blkdev::HwQueue::read_bw_batches`], one drawn per busy period), the spread of the
    /// device's own rate (trio21e: p10-p90 0.84-1.08 of the median in the quiet v669 traces). Empty:
    /// `loop_read_window`'s one rate for every batch.
    pub loop_read_window_spans: Vec<u64>,
    /// ns a task waits when the loop device's kworker its read woke takes its CPU (`[machine]
    /// loop_worker_run`, review48 M1: not the work item's own run, drivers/block/loop.c 6.18
    /// `loop_rootcg_workfn()` from workqueue_execute_start to _end, 59.9 us mean and bimodal in
    /// kwork23's loaded traces, but the reader's wait from its switch-out, runnable with the loop's
    /// kworker next on its CPU and only kernel threads between, to its switch-in again: traced by
    /// lab/validation/trace_idle_wait.bt on host-queue-read-ra128-idle msk-128, 43 us at load
    /// 4.7-5.7 and 27 us on a quiet host, make_queue_scenarios.py LOOP_WORKER_RUN /
    /// LOOP_WORKER_RUN_QUIET; given to the other host-queue scenarios, which were not traced)
    /// ([`crate::sched::loop_worker_wait`]). None: the kworker never takes the task's CPU (the
    /// engine before kwork23).
    pub loop_worker_run: Option<u64>,
    /// ns a task waits when the vmpressure work its memcg reclaim queued takes its CPU
    /// (`[machine] vmpressure_work_run`, kwork23c: mm/vmpressure.c `vmpressure()` ->
    /// `schedule_work()`, the per-CPU pool's kworker woken on the task's CPU, its switch-in, its
    /// `vmpressure_work_fn()` and the switch back, traced by lab/validation/trace_idle_wait.bt as
    /// the task's waits behind kernel threads only; [`crate::sched::bound_worker_wait`]). None:
    /// the work never takes the task's CPU (the engine before kwork23c).
    pub vmpressure_work_run: Option<u64>,
    /// ns of the write completion's work on its kworker's CPU after it wakes a task (`[machine]
    /// end_io_work_run`, wake23: fs/ext4/page-io.c `ext4_end_io_rsv_work()`, whose
    /// `folio_end_writeback()` calls wake the tasks in `folio_wait_writeback()` and
    /// `reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK)`; its runs from workqueue_execute_start to _end,
    /// traced by lab/validation/trace_idle_wait.bt beside a writer, make_queue_scenarios.py
    /// END_IO_WORK_RUN; [`crate::sched::end_io_wakee_wait`]). None: the woken task never waits
    /// behind it (the engine before wake23).
    pub end_io_work_run: Option<u64>,
    /// ns a task runs on between the wake-up of a kworker that preempts it and its switch-out
    /// (`[machine] preempt_resched_run`, pre23: the host's 6.18 switches at the task's next
    /// `cond_resched()`; traced by lab/validation/trace-idle-wait-1130/preempt-1201s/bound.bt, the
    /// vmpressure kworker's `sched_wakeup` to the writer's `sched_switch`, make_queue_scenarios.py
    /// PREEMPT_RESCHED_RUN; [`crate::sched::wakeup_preempt_stale_clock`]). None: schedstat's
    /// `run_delay` counts the wait only (the engine before pre23).
    pub preempt_resched_run: Option<u64>,
    /// The same runs, one per traced preemption (`[machine] preempt_resched_runs`, review52 M1):
    /// the engine charges the mean of their stale intervals
    /// ([`crate::sched::wakeup_preempt_stale_mean`]). Empty: [`HostCost::preempt_resched_run`].
    pub preempt_resched_runs: Vec<u64>,
    /// The runner's own run-queue sampler's CPU (`[machine] runner_sampler`, units of
    /// [`crate::kernel::SCHED_CAPACITY_SCALE`]: CPUs; `memtwin real --on host` records its CPU time,
    /// real.machine.runq_sampler.cpu_s, over the tasks' run): a runnable entity on the CPUs
    /// beside the background the runner samples (which leaves the sampler out), for
    /// [`crate::sched::loop_worker_wait`]'s idle-CPU test only. 0: none.
    pub runner_sampler: u64,
    /// ns of a first-touch anonymous fault of a base page, its clearing included (M11's method).
    pub anon_fault: Option<u64>,
    /// ns per 4 KiB of a huge page's first-touch fault: `clear_page()` (M12's method).
    pub clear_page: Option<u64>,
    /// ns per base page of munmap() of faulted pages: `zap_pte_range()` and the free (M11's).
    pub zap_page: Option<u64>,
    /// ns per folio a successful memcg reclaim evicts (`[machine] reclaim_folio_ns`, orders61:
    /// hostcal.py `reclaim_freed_from()`'s per-folio term): its isolation, references,
    /// `__remove_mapping()`, uncharge and free; sets [`CpuCost::evict_page`] to it less
    /// `scan_page` and `charge` (the engine's other per-folio terms of an eviction).
    pub reclaim_folio: Option<u64>,
    /// ns per tail page of a large folio a memcg reclaim evicts (`[machine] reclaim_tail_page_ns`,
    /// orders61): [`CpuCost::evict_tail_page`].
    pub reclaim_tail_page: Option<u64>,
    /// ns of a memcg reclaim's own work besides its batches and folios (`[machine]
    /// reclaim_fixed_ns`, orders61: the fit's fixed term): [`CpuCost::reclaim_call`].
    pub reclaim_fixed: Option<u64>,
    /// ns per `shrink_inactive_list()` call that frees (`[machine] reclaim_batch_ns`, orders61): sets
    /// [`CpuCost::evict_batch`] to it less a failing call (`shrink_list_call + scan_page` as
    /// calibrated: `reclaim_call_ns`).
    pub reclaim_batch: Option<u64>,
}

/// `filemap_read()`'s cost of a large folio, split from the per-order measurements: per 4 KiB
/// page `c` (`copy_folio_to_iter()`'s per-page `copy_page_to_iter()` step) and per folio a read
/// visits `f` (`filemap_get_read_batch()`'s xarray walk, `folio_try_get()` and checks,
/// `folio_mark_accessed()`, `folio_put()`: once per folio in 6.18's filemap_read()), so that a
/// page of an order-`o` folio costs `c + f * v(o) / 32` where `v(o)` is the folios a 128 KiB read
/// visits, `max(32 >> o, 1)`. Least squares over the given orders of `ns - syscall/32` (the
/// read's syscall entry, [`CpuCost::syscall`], shared by its 32 pages). One distinct `v`: no
/// per-folio term. A negative `f` (a noisy measurement) is taken as 0 with `c` the mean; a
/// negative `c` as 0 with `f` through the points' mean. Returns (c, f).
pub fn read_split(points: &[(u32, u64)], syscall: u64) -> (u64, u64) {
    if points.is_empty() {
        return (0, 0);
    }
    let xs: Vec<f64> = points.iter().map(|&(o, _)| (CAL_READ_PAGES >> o.min(63)).max(1) as f64 / CAL_READ_PAGES as f64).collect();
    let ys: Vec<f64> = points.iter().map(|&(_, ns)| ns as f64 - syscall as f64 / CAL_READ_PAGES as f64).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let (c, f) = if sxx <= 0.0 {
        (my, 0.0)
    } else {
        let f = sxy / sxx;
        if f < 0.0 {
            (my, 0.0)
        } else if my - f * mx < 0.0 {
            (0.0, my / mx)
        } else {
            (my - f * mx, f)
        }
    };
    (c.max(0.0).round() as u64, f.max(0.0).round() as u64)
}

/// The read bandwidth a loop device's requests in flight share
/// ([`crate::blkdev::HwQueue`]'s `bw`) for an 8 MiB read that took `window` ns on the device:
/// the read's `ceil(8 MiB / max_sectors_kb)` requests go together and the last completes after
/// each one's `request_cost` and the 8 MiB at the shared bandwidth (`HwQueue::dispatch()`), so
/// `bw = 8 MiB / (window - requests * request_cost)`. None when the window is not longer than the
/// requests' costs (the device's `request_cost` and the measurement disagree).
pub fn window_read_bw(window: u64, max_sectors_kb: u64, request_cost: u64) -> Option<u64> {
    let per = (max_sectors_kb.max(4) * 1024).min(CAL_WINDOW_BYTES);
    let nreq = CAL_WINDOW_BYTES.div_ceil(per);
    let t = window.checked_sub(nreq * request_cost).filter(|&t| t > 0)?;
    Some((CAL_WINDOW_BYTES as u128 * 1_000_000_000 / t as u128).min(u64::MAX as u128) as u64)
}

impl CpuCost {
    /// This table with the entries a host recording measured replaced (module doc): the large
    /// folio's read costs from `read_large_folio` ([`read_split`]), `shrink_list_call` from
    /// `reclaim_call` less `scan_page`; `clear_page` and `zap_page` from the measured ones,
    /// `anon_fault` the measured first-touch fault less the clearing (the measured
    /// `clear_page` or, without it, the table's; 6.18 `do_anonymous_page()`, M11/M12).
    /// `evict_page` from `reclaim_folio` less `scan_page` and `charge`, `evict_tail_page` from
    /// `reclaim_tail_page`, `reclaim_call` from `reclaim_fixed`, `evict_batch` from `reclaim_batch`
    /// less the failing call in effect (orders61).
    /// Everything else stays the table's.
    pub fn host_calibrated(&self, h: &HostCost) -> CpuCost {
        let mut c = self.clone();
        if !h.read_large_folio.is_empty() {
            let (page, folio) = read_split(&h.read_large_folio, self.syscall);
            c.read_large_folio_page = page;
            c.read_large_folio = folio;
        }
        if let Some(ns) = h.reclaim_call {
            c.shrink_list_call = ns.saturating_sub(self.scan_page);
        }
        if let Some(ns) = h.clear_page {
            c.clear_page = ns;
        }
        if let Some(ns) = h.anon_fault {
            c.anon_fault = ns.saturating_sub(c.clear_page);
        }
        if let Some(ns) = h.zap_page {
            c.zap_page = ns;
        }
        if let Some(ns) = h.reclaim_folio {
            c.evict_page = ns.saturating_sub(c.scan_page + c.charge);
        }
        if let Some(ns) = h.reclaim_tail_page {
            c.evict_tail_page = ns;
        }
        if let Some(ns) = h.reclaim_fixed {
            c.reclaim_call = ns;
        }
        if let Some(ns) = h.reclaim_batch {
            c.evict_batch = ns.saturating_sub(c.shrink_list_call + c.scan_page);
        }
        c
    }
}

/// `boot_seed`'s stream of [`crate::kernel::Kernel::reclaim_call_rand`], apart from the others.
pub const RECLAIM_CALL_RAND_SALT: u64 = 0x7265_636C_6169_6D32;

impl crate::kernel::Kernel {
    /// Take `spans` (ns per isolate call, `[machine] reclaim_call_spans`) as the run's memcg
    /// reclaims' per-call costs: each less `scan_page` of the cost table as calibrated (as
    /// [`CpuCost::host_calibrated`] turns `reclaim_call_ns` into `shrink_list_call`), the draws
    /// seeded from `boot_seed`. Empty: every reclaim costs the table's `shrink_list_call`.
    pub fn set_reclaim_call_spans(&mut self, spans: &[u64], boot_seed: u64) {
        self.reclaim_call_draws = spans.iter().map(|&ns| ns.saturating_sub(self.cost.scan_page)).collect();
        self.reclaim_call_rand = crate::lru_gen::memcg_lru_rand_seed(boot_seed ^ RECLAIM_CALL_RAND_SALT);
    }

    /// One memcg reclaim's cost per `shrink_inactive_list()` call (reclaim21; 6.18 mm/vmscan.c
    /// `try_to_free_mem_cgroup_pages()`): with `reclaim_call_spans` given, one drawn from them into
    /// [`CpuCost::shrink_list_call`] for the whole reclaim; returns the figure to put back when
    /// the reclaim ends (the scalar the other reclaims cost). No spans: nothing drawn, the
    /// random state untouched.
    pub fn draw_reclaim_call(&mut self) -> u64 {
        let keep = self.cost.shrink_list_call;
        if !self.reclaim_call_draws.is_empty() {
            let i = crate::lru_gen::get_random_u32_below(&mut self.reclaim_call_rand, self.reclaim_call_draws.len() as u64) as usize;
            self.cost.shrink_list_call = self.reclaim_call_draws[i];
        }
        keep
    }
}
