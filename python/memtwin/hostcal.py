"""The host's CPU and loop-device costs that time a throttled large-folio read's race, measured by
`memtwin real --on host` with each recording (issue 21, hostcal21), as the QEMU runner measures
each boot's code/copy slowdown: the engine's cost table (profile.rs `CpuCost`) was measured on
one boot of this host (6.18.44-fc-v857) and the host's later boot (v782) reads a large folio three
times slower and reclaims locked folios three times faster (BENCHMARKS.md M13, M15). validate
gives what a recording measured to the engine as `[machine] read_large_folio_ns`,
`reclaim_call_ns` and `loop_read_window` (validate.recorded_host_cost; the engine's hostcal.rs turns
them into `CpuCost` entries and the loop device's shared read bandwidth).

Three micro-benchmarks, on the run's own scratch file system and loop device, after mkfs and
before the scenario's files are written and the device throttled (HostRun._calibrate), each
bounded in time and leaving nothing behind (files unlinked, the memcg removed, the trace instance
removed and its tracefs unmounted, the temporary blk-throttle rule and read_ahead_kb put back):

- `read_ns_by_order` (M15's method, read_cost_large_folios.py): a 64 MiB file written with
  pwrite()s of 2^order pages (6.18's generic_perform_write() asks for a folio of the write's
  length, fgf_set_order(): folios of that order), then read hot with 128 KiB preadv()s: getrusage()
  system time per 4 KiB page, median of three samples of 16 reads of the file; orders 0, 2, 4, 8.
- `loop_read_window_ns`: an O_DIRECT 8 MiB read of a file on the idle, unthrottled loop device,
  median of eight at distinct offsets (recorded, not given to the engine: results below).
  Beside it `loop_read_window_thp_ns`: the same reads, alternately first, into a buffer of
  transparent huge pages (one bio segment per 2 MiB where the 4 KiB-page buffer has one a page):
  the host's disk times a request by its segments (lab/measurements/segment_cost.py), which the
  engine's HwQueue has no cost for yet; recorded, not given.
- `readahead_window_ns`: one 8 MiB readahead window re-read on the idle, unthrottled loop device (a
  cold 8 MiB read() at index 0 at read_ahead_kb 8192, the file read and dropped just before, less
  the same read hot), median of eight files: recorded, not given (it holds readahead's allocation,
  insertion, LRU add and charge, which the engine charges as CPU besides the device: review12 M2).
- `reclaim_call_ns` (M13's method, reclaim_call_cost.py): a 128 MiB file read cold by a child in a
  20M memcg (cgroup v1) with read_ahead_kb 8192 while blk-throttle holds reads to 200 MB/s, so the
  charges of a new window meet folios still under read: the memcg reclaims that free nothing
  (mm_vmscan_memcg_reclaim_begin/_end with nr_reclaimed=0, the child never off the CPU
  inside: sched_switch), timed with no event inside them, then counted in a second read with
  mm_vmscan_lru_isolate enabled (one per shrink_inactive_list()/shrink_active_list() call): the
  median time over the median call count. rec21: the file is read again (light, full, alternately)
  until each kind holds RECLAIM_MIN = 5 such reclaims (at most 8 reads of a kind, 90 s): one read
  caught a median of 6 light / 4 full on the v669 boot, fewer than 3 in 127 of 335 recordings
  (lab/validation/reclaim-spans-rule.md, amendment). Beside it, recorded and not given: the light trace's
  reclaims that freed pages, the median ns per page freed (`reclaim_freed_ns_per_page`).

- `reclaim_folio_ns`, `reclaim_tail_page_ns`, `reclaim_fixed_ns`, `reclaim_batch_ns` (orders61, issue 21): after
  the failing reclaims' reads, the same file read unthrottled (FREED_KINDS: FADV_SEQUENTIAL at read_ahead_kb 8192,
  FADV_RANDOM traced full and light) with the reader's shrink_inactive and page-cache deletion events; each
  successful reclaim's ns fitted over batches, folios and tail pages (reclaim_freed_from), the traced events' own
  cost (freed_event_ns) taken off. Given to the engine (hostcal.rs: evict_page, evict_tail_page, reclaim_call,
  evict_batch); lab/validation/orders61/README.md.

- `device_window_ns` (rawin21), measured over the scenario's own run, not before it: the loop
  device's read requests traced from issue (`blk_mq_start_request()` in `loop_queue_rq()`) to
  completion (`blk_mq_end_request()`), block_rq_issue/block_rq_complete filtered on its dev_t,
  their busy periods (the union of the requests' in-flight intervals) and the busy time per 8 MiB
  read: `8 MiB x busy / bytes`. With the scenario's read_ahead_kb, blk-throttle rule and load,
  since the time is the device's under the scenario's own mix of windows: its large-folio
  windows' requests complete together (1.6-2.1 ms an 8 MiB window), a restart's order-0 window's
  (bios of 256 single pages, split at the loop device's 128 segments into ~16 requests) one
  after another (2.9 ms per 8 MiB); the engine's `HwQueue` serves both at one shared bandwidth,
  so the mix is what its bandwidth must stand for. blk-throttle's hold is not in it: a held bio
  waits in blk_throtl_bio() (submit_bio_noacct()) before it becomes a request, and the engine's
  `HwQueue::dispatch()` starts a request at its release too (`LoopWorker::loop_queue_work(at)`
  with `at` the release). The loop worker's wake-up is in it (the request is issued in
  loop_queue_rq() before the kworker runs), which the engine has no separate term for on the
  host (no `worker_wakeup_latency` is given for host recordings), so the bandwidth holds it.
  Refuted first (not kept): the device's own /sys/block/NAME/stat read ticks over read ios of
  eight 8 MiB windows read cold before the run: those windows are order-0 (the first window
  of a file), their ~16 requests complete one after another over 3.6-4.5 ms, so the mean
  request time (2.2-2.4 ms) is neither their window nor the scenario's (traced 2026-11-30 06:20,
  load 6).

- `anon_fault_ns`, `clear_page_ns`, `zap_page_ns` (hostcal23, issues 21/23; M11/M12's method,
  lab/measurements/anon_fault_cost.py, shortened to well under a second): rounds of an 18 MiB
  anonymous mmap() touched one byte a 4 KiB page (a strided memoryview store: one first-touch
  do_anonymous_page() each, THP `madvise` mode so none huge), touched again (no fault: the user
  loop, subtracted), munmap()ed; and the same with MADV_HUGEPAGE (9 huge-page faults a round,
  almost all clear_huge_page()). The 10th percentile of each figure's rounds (another CPU's work
  only adds time) per 4 KiB: `anon_fault_ns` the base first touch less the user loop (the whole
  fault, clearing included), `clear_page_ns` the huge first touch less its user loop, `zap_page_ns`
  the base munmap(). Given to the engine as `[machine] anon_fault_ns`, `clear_page_ns`,
  `zap_page_ns` (hostcal.rs: CpuCost anon_fault = the fault less clear_page). A huge round without
  9 THP faults (none available) leaves clear_page_ns unavailable. Run in the runner's own process
  and cgroup before the scenario's, with the rest.

Each measurement that cannot be made says why (`unavailable`), and the rest stand. The loop worker's
wake-up waits are not measured here: the runner records them over the run itself (`kthread_waits`).

Results (2026-11-30 03:13-03:38, 6.18.44-fc-v782, 22 runs at load 7.2-15.7, 7-18 s each): order 8 318-422 ns a
page, order 4 277-455, order 2 393-543, order 0 382-861; 644 isolate calls (636-648) a reclaim that frees
nothing, 247-338 ns a call; the O_DIRECT window 3.9-22.7 ms, where the scenarios' own readahead windows
complete in 1.5-2.4 ms (traced), so validate records it and does not give it to the engine
(lab/validation/large-folios.md, "The host's own costs, measured with each recording"). The readahead
window, added after those runs (03:53-03:55, two runs at load 10-11): 7.2 ms read cold the first time
after the write, 3.5 ms re-read (the form kept).
"""
import mmap
import os
import re
import resource
import statistics
import subprocess
import time
from typing import Callable, Optional

from memtwin.real import _loadavg, _write, signals_held

READ_FILE_BYTES = 64 << 20
READ_BS = 128 << 10
READ_PASSES = 16  # reads of the file a sample: 16 x 16384 pages, >100 ms of system time at 400 ns a page
READ_SAMPLES = 3
READ_ORDERS = (0, 2, 4, 8)
WINDOW_BYTES = 8 << 20
WINDOWS = 8
RECLAIM_FILE_BYTES = 128 << 20
RECLAIM_LIMIT = 20 << 20
RECLAIM_READ_BPS = 200_000_000
RECLAIM_RA_KB = 8192
CHILD_TIMEOUT_S = 60
# rec21 (reclaim-spans-rule.md, amendment): the calibration reads its file until each kind (light,
# full) holds RECLAIM_MIN failing reclaims on the CPU, at most RECLAIM_READS_MAX reads of a kind,
# none started after RECLAIM_SECONDS_MAX
RECLAIM_MIN = 5
RECLAIM_READS_MAX = 8
RECLAIM_SECONDS_MAX = 90
# the scenario's reclaim trace's ring buffer per CPU (reclaim_trace_start)
RECLAIM_TRACE_KB = 32768
TRACE_LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def _write_file(path: str, size: int, wbs: int) -> int:
    """Create `path` with `size` bytes of random data written `wbs` bytes a pwrite(); its fd.
    The caller makes it inside the `try:` whose `finally` removes it (_remove()): a signal
    between this return and that `try:` would leave the file (review52 L5); and that `finally`
    leaves the file when this raised FileExistsError (O_EXCL: a file already there is not the
    call's to remove, review54 L1: the caller's `mine` flag)."""
    fd = None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        block = os.urandom(1 << 20)
        for off in range(0, size, 1 << 20):
            for o in range(0, 1 << 20, wbs):
                os.pwrite(fd, block[o:o + wbs], off + o)
    except FileExistsError:
        raise  # O_EXCL: the file is not this call's
    except BaseException:
        # ENOSPC, a signal (in os.open() too, after the file was made): neither the fd nor a
        # half-written file outlives the failure
        if fd is not None:
            os.close(fd)
        _remove(path)
        raise
    return fd


def _remove(path: str) -> None:
    """Unlink a calibration file if it is there (made, or about to be, inside the caller's `try:`)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def sys_ns_per_page(fd: int, size: int, passes: int, bs: int = READ_BS) -> float:
    """getrusage() system time per 4 KiB page over `passes` hot reads of the file's `size` bytes
    with `bs`-sized preadv()s into one buffer (the process's precise run time split between user
    and system by tick samples, cputime_adjust(): a sample needs many ticks). M15's measurement
    (lab/measurements/read_cost_large_folios.py uses it too)."""
    buf = bytearray(bs)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(passes):
        for off in range(0, size, bs):
            os.preadv(fd, [buf], off)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return (r1.ru_stime - r0.ru_stime) * 1e9 / (passes * size // 4096)


# The most the calibration holds on the scratch file system at once (each measurement unlinks its
# files before the next): the reclaim measurement's file (HostRun._disk's free-space check adds it).
SCRATCH_BYTES = max(RECLAIM_FILE_BYTES, WINDOWS * WINDOW_BYTES, READ_FILE_BYTES)


def positive_median(ts: list, what: str) -> int:
    """The median of `ts` (ns), rounded; ValueError, naming `what`, when it is not positive (a
    timing that cannot be a window: review12 L2)."""
    m = round(statistics.median(ts))
    if m <= 0:
        raise ValueError(f"{what} took {m} ns (median of {len(ts)}): not a window")
    return m


def read_ns_by_order(d: str, orders=READ_ORDERS, size: int = READ_FILE_BYTES, passes: int = READ_PASSES,
                     samples: int = READ_SAMPLES) -> dict:
    """{order: hot 128 KiB read's system ns per 4 KiB page} of a file in `d` written in folios of
    each order (one file at a time, synced before the reads, unlinked after)."""
    out = {}
    for order in orders:
        path = os.path.join(d, f"memtwin-hostcal-read-o{order}")
        fd, mine = None, True
        try:
            try:
                fd = _write_file(path, size, 4096 << order)
            except FileExistsError:
                mine = False  # already there: not this call's (review54 L1)
                raise
            # written back before the timed reads: no flusher writes it meanwhile, and none holds
            # its inode when it is unlinked (the flusher's iput() would then evict it later, during
            # the scenario, its page-cache deletions counted in the first step's folio events)
            os.fsync(fd)
            sys_ns_per_page(fd, size, 1)  # one untimed read: every folio once accessed
            xs = [sys_ns_per_page(fd, size, passes) for _ in range(samples)]
            out[order] = round(statistics.median(xs))
        finally:
            if fd is not None:
                os.close(fd)
            if mine:
                _remove(path)
    return out


def _anon_huge_kb() -> int:
    with open("/proc/self/smaps_rollup") as f:
        return next((int(x.split()[1]) for x in f if x.startswith("AnonHugePages:")), 0)


def huge_buffer(nbytes: int):
    """(mapping, view) of `nbytes` of private anonymous memory aligned to 2 MiB and backed by
    transparent huge pages (MADV_HUGEPAGE, faulted in), so that a read into it is one bio segment
    per 2 MiB; ValueError when the kernel gave it none (THP off, or no huge page free)."""
    import ctypes
    m = mmap.mmap(-1, nbytes + (2 << 20), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    off = -addr % (2 << 20)
    before = _anon_huge_kb()
    m.madvise(mmap.MADV_HUGEPAGE, off, nbytes)
    view = memoryview(m)[off:off + nbytes]
    for i in range(0, nbytes, 4096):
        view[i] = 1
    got = _anon_huge_kb() - before
    if got < nbytes >> 10:
        view.release()
        m.close()
        raise ValueError(f"the buffer got {got} kB of transparent huge pages of {nbytes >> 10} (THP off or none free)")
    return m, view


def loop_read_window_ns(d: str, windows: int = WINDOWS) -> dict:
    """O_DIRECT 8 MiB reads of a written, synced file in `d` (on the idle loop device), at
    `windows` distinct offsets, each into a buffer of 4 KiB pages (one bio segment a page) and,
    alternately first, into one of transparent huge pages (one segment per 2 MiB: huge_buffer());
    {"loop_read_window_ns": median 4 KiB-page read, "loop_read_window_thp_ns": median huge-page
    read} (the second left out, with why under "thp_unavailable", when THP gives no buffer). The
    file unlinked after."""
    path = os.path.join(d, "memtwin-hostcal-window")
    out, huge, buf, mine = {}, None, None, True
    try:
        try:
            fd = _write_file(path, windows * WINDOW_BYTES, 1 << 20)
        except FileExistsError:
            mine = False  # already there: not this call's (review54 L1)
            raise
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        buf = mmap.mmap(-1, WINDOW_BYTES)  # page-aligned, as O_DIRECT wants
        try:
            huge = huge_buffer(WINDOW_BYTES)
        except (OSError, ValueError) as e:
            out["thp_unavailable"] = str(e)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            ts, th = [], []
            for i in range(windows):
                bufs = [(buf, ts)] + ([(huge[1], th)] if huge else [])
                for b, into in (bufs if i % 2 == 0 else bufs[::-1]):
                    t0 = time.perf_counter_ns()
                    n = os.preadv(fd, [b], i * WINDOW_BYTES)
                    into.append(time.perf_counter_ns() - t0)
                    if n != WINDOW_BYTES:
                        raise OSError(f"short O_DIRECT read ({n} bytes)")
            out["loop_read_window_ns"] = positive_median(ts, "the O_DIRECT window")
            if huge:
                out["loop_read_window_thp_ns"] = positive_median(th, "the O_DIRECT window into huge pages")
            return out
        finally:
            os.close(fd)
    finally:
        if huge:
            huge[1].release()
            huge[0].close()
        if buf is not None:
            buf.close()
        if mine:
            _remove(path)


def readahead_window_ns(d: str, ra_path: str, windows: int = WINDOWS) -> int:
    """Median ns of one 8 MiB readahead window on the idle loop device: a cold 8 MiB re-read() (read
    and dropped just before) at a window's start with read_ahead_kb 8192 (the first read of a file at index 0 is one window of
    the read's size, page_cache_sync_ra() -> get_init_ra_size(): 2048 pages, allocated, submitted
    in one plug and waited for), less the same read hot right after (its copy). `ra_path` is the
    loop device's read_ahead_kb, set to 8192 for the reads and put back. A file of its own per
    window (each read at index 0), written, synced and dropped first; unlinked after."""
    with open(ra_path) as f:
        ra_old = f.read().strip()
    paths = [os.path.join(d, f"memtwin-hostcal-ra{i}") for i in range(windows)]
    buf = bytearray(WINDOW_BYTES)
    # paths[:mine] are this call's to remove: each counted before its making (a signal right after
    # it leaves nothing behind), uncounted when it was already there (O_EXCL's FileExistsError:
    # another's, review54 L1); the ones after it never made, so never removed either
    mine = 0
    try:
        for i, p in enumerate(paths):
            mine = i + 1
            try:
                fd = _write_file(p, WINDOW_BYTES, 1 << 20)
            except FileExistsError:
                mine = i
                raise
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        _write(ra_path, str(RECLAIM_RA_KB))
        ts = []
        for p in paths:
            fd = os.open(p, os.O_RDONLY)
            try:
                # read once and drop: the timed read is a re-read from the device, as most of a
                # tight memcg's windows are (its pages evicted and read again), which the layers
                # below the loop device (the VM's disk) serve from their cache
                os.preadv(fd, [buf], 0)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                t0 = time.perf_counter_ns()
                n = os.preadv(fd, [buf], 0)
                t1 = time.perf_counter_ns()
                os.preadv(fd, [buf], 0)
                t2 = time.perf_counter_ns()
            finally:
                os.close(fd)
            if n != WINDOW_BYTES:
                raise OSError(f"short read ({n} bytes)")
            ts.append((t1 - t0) - (t2 - t1))
        return positive_median(ts, "the re-read window less the hot read")
    finally:
        try:
            _write(ra_path, ra_old)
        except OSError:
            pass
        for p in paths[:mine]:
            _remove(p)


DEVICE_EVENTS = ("block/block_rq_issue", "block/block_rq_complete")
RQ_LINE = re.compile(r"^\s*.+?\s+\[\d+\]\s+\S+\s+([\d.]+): (block_rq_issue|block_rq_complete): \d+,\d+ (\S+) .*?(\d+) \+ (\d+) ")
DEVICE_MIN_BYTES = 64 << 20  # at least 8 windows' worth read in the run, or no figure
DEVICE_WINDOW_SOURCE = ("the scenario's own run: the loop device's read requests (block_rq_issue to block_rq_complete, "
                        "traced on the monotonic clock), their busy periods' time per 8 MiB read")


def device_window_from(text: str, min_bytes: int = DEVICE_MIN_BYTES) -> dict:
    """The device window (module doc) of a trace of the loop device's block_rq_issue and
    block_rq_complete events: the read requests paired by sector, their busy periods (the union
    of each request's [issue, completion]: the time the device holds a read in flight), and the
    busy time per 8 MiB read, `device_window_ns = 8 MiB x busy / bytes`; with at least
    LONE_WINDOWS_MIN periods that are one 8 MiB window issued at once and nothing else
    ([`_lone_window`]), also their median span, `device_lone_window_ns` (and how many,
    `device_lone_windows`, and every one of their spans, sorted, `device_lone_window_spans_ns`:
    trio21e, large-folios.md "a locked cycle": the kernel's lone windows spread, p10-p90 0.84-1.08
    of their median rate in the quiet v669 traces, and a twin given one rate for all of them locks
    into a periodic orbit; validate gives them as `machine.loop_read_window_spans`, the device's
    read batches, lab/validation/spans-rule.md 1). ValueError, saying why, with fewer than `min_bytes` read."""
    issued, reqs = {}, []
    for line in text.splitlines():
        m = RQ_LINE.match(line)
        if not m or "R" not in m.group(3):
            continue
        t, ev, sector, n = round(float(m.group(1)) * 1e9), m.group(2), int(m.group(4)), int(m.group(5))
        if n == 0:
            continue
        if ev == "block_rq_issue":
            issued[sector] = (t, n)
        elif sector in issued:
            t0, n0 = issued.pop(sector)
            reqs.append((t0, t, n0))
    reqs.sort()
    busy = nbytes = periods = 0
    start = end = None
    lone, cur = [], []
    for t0, t1, n in reqs:
        if end is None or t0 > end:
            if end is not None:
                busy += end - start
                lone.append(_lone_window(cur, start, end))
            start, end, periods, cur = t0, t1, periods + 1, []
        else:
            end = max(end, t1)
        cur.append((t0, n))
        nbytes += n * 512
    if end is not None:
        busy += end - start
        lone.append(_lone_window(cur, start, end))
    if nbytes < min_bytes or busy <= 0:
        raise ValueError(f"too little read on the loop device for its window ({nbytes >> 20} MiB in {len(reqs)} requests; "
                         f"{min_bytes >> 20} MiB wanted)")
    out = {"device_window_ns": round(WINDOW_BYTES * busy / nbytes), "device_busy_ms": round(busy / 1e6, 3),
           "device_read_mib": round(nbytes / 2**20, 1), "device_requests": len(reqs), "device_busy_periods": periods}
    lone = sorted(x for x in lone if x is not None)
    if len(lone) >= LONE_WINDOWS_MIN:
        out["device_lone_window_ns"] = lone[len(lone) // 2]
        out["device_lone_windows"] = len(lone)
        out["device_lone_window_spans_ns"] = lone
    return out


LONE_ISSUE_NS = 100_000  # a window's requests issued within this of each other: one submission (11-40 us seen)
LONE_WINDOWS_MIN = 3  # fewer lone windows in the run: no figure


def _lone_window(reqs: list, start: int, end: int) -> Optional[int]:
    """The span of a busy period that is one 8 MiB window issued at once and nothing else (its read
    requests, [(issue ns, sectors)], all issued within LONE_ISSUE_NS of the first and 8 MiB
    together), else None. race669 (large-folios.md, "The order-6 window's race on v669"): the loop
    device serves the bytes in flight at one rate and ends them together, and such a window's span is
    that rate's (2.08-2.72 GB/s in the quiet v669 traces) where the busy union per 8 MiB
    (`device_window_ns`) also holds the small periods' latency and the order-2 windows' segments
    (1.76-2.41 GB/s by `window_read_bw()` in the same runs). Recorded, not given (validate gives
    `device_window_ns`)."""
    if sum(n for _, n in reqs) * 512 != WINDOW_BYTES or reqs[-1][0] - reqs[0][0] > LONE_ISSUE_NS:
        return None
    return end - start


def lost_events(inst: str) -> int:
    """Events tracefs instance `inst` lost (its per-CPU stats' overrun and dropped events)."""
    lost = 0
    for cpu in os.listdir(os.path.join(inst, "per_cpu")):
        with open(os.path.join(inst, "per_cpu", cpu, "stats")) as f:
            lost += sum(int(x.split(":")[1]) for x in f if x.split(":")[0] in ("overrun", "dropped events"))
    return lost


def device_trace_start(run) -> str:
    """Start tracing the run's loop device's requests (block_rq_issue, block_rq_complete, filtered
    on its dev_t, on the monotonic clock) in a tracefs instance `memtwin-<id>-device` of the
    run's tracefs mount (HostRun._trace_folios'), kept in `run.traces` so that the runner's
    cleanup removes it; its directory. ValueError when the run has no tracefs (folio tracing
    off or unsupported: `run.traces_why`)."""
    tracefs = os.path.join(run.scratch, "tracefs")
    if run.traces_why or tracefs not in run.mounted:
        raise ValueError(f"no tracefs for the run ({run.traces_why or 'not mounted'})")
    with open(f"/sys/block/{os.path.basename(run.loop)}/dev") as f:
        major, minor = (int(x) for x in f.read().split(":"))
    inst = os.path.join(tracefs, "instances", f"memtwin-{run.id}-device")
    run.traces["device"] = inst  # before the mkdir (review52 L5): the runner's cleanup takes a missing one for gone
    try:
        os.mkdir(inst)
    except OSError:
        run.traces.pop("device", None)
        raise
    _write(os.path.join(inst, "buffer_size_kb"), "8192")
    _write(os.path.join(inst, "trace_clock"), "mono")
    for ev in DEVICE_EVENTS:
        _write(os.path.join(inst, "events", ev, "filter"), f"dev == {(major << 20) | minor}")
        _write(os.path.join(inst, "events", ev, "enable"), "1")
    return inst


def device_trace_finish(run, inst: str) -> dict:
    """Stop the trace `device_trace_start()` began, read it ([`device_window_from`]) and remove
    the instance. ValueError when events were lost (a full ring buffer) or too little was read."""
    try:
        for ev in DEVICE_EVENTS:
            _write(os.path.join(inst, "events", ev, "enable"), "0")
        lost = lost_events(inst)
        if lost:
            raise ValueError(f"{lost} trace events of the loop device lost (ring buffer overrun)")
        with open(os.path.join(inst, "trace"), errors="replace") as f:
            return device_window_from(f.read())
    finally:
        from memtwin import leftovers
        if leftovers.remove_trace_instance(inst) is None:
            run.traces.pop("device", None)


def reclaim_spans(text: str, pid: int):
    """Task `pid`'s memcg reclaims in a trace's text that it did not leave the CPU in (no
    sched_switch with prev_pid = pid between begin and end), in order: (ns, [(event, rest)] of
    its other events between begin and end, nr_reclaimed)."""
    cur = None
    p = str(pid)
    for line in text.splitlines():
        m = TRACE_LINE.match(line)
        if not m:
            continue
        _comm, tid, ts, ev, rest = m.groups()
        if ev == "sched_switch":
            if cur is not None and re.search(rf"prev_pid={p}\b", rest):
                cur[2] = True
            continue
        if tid != p:
            continue
        if ev == "mm_vmscan_memcg_reclaim_begin":
            cur = [float(ts), [], False]
        elif cur is None:
            continue
        elif ev == "mm_vmscan_memcg_reclaim_end":
            g = re.search(r"nr_reclaimed=(\d+)", rest)
            if not cur[2] and g:
                yield round((float(ts) - cur[0]) * 1e9), cur[1], int(g.group(1))
            cur = None
        else:
            cur[1].append((ev, rest))


def parse_reclaims(text: str, pid: int) -> list:
    """[(ns, isolate calls, nr_reclaimed)] of task `pid`'s memcg reclaims in a trace's text that
    it did not leave the CPU in ([`reclaim_spans`])."""
    return [(ns, sum(ev == "mm_vmscan_lru_isolate" for ev, _ in evs), nr) for ns, evs, nr in reclaim_spans(text, pid)]


def reclaims_begun(text: str, pid: int) -> int:
    """The memcg reclaims task `pid` began in a trace's text (on the CPU or not, freeing or not)."""
    p = str(pid)
    n = 0
    for line in text.splitlines():
        m = TRACE_LINE.match(line)
        if m and m.group(2) == p and m.group(4) == "mm_vmscan_memcg_reclaim_begin":
            n += 1
    return n


def reclaim_call_from(light: list, full: list, n_min: int = 3) -> dict:
    """ns per isolate call of a memcg reclaim that frees nothing: the median duration of such
    reclaims traced without events inside (`light`), over the median isolate-call count of such
    reclaims in the traced run (`full`); ValueError when either has fewer than `n_min` (the
    runner's calibration asks RECLAIM_MIN: reclaim_call_from_reads())."""
    dur = sorted(r[0] for r in light if r[2] == 0)
    calls = sorted(r[1] for r in full if r[2] == 0 and r[1] > 0)
    if len(dur) < n_min or len(calls) < n_min:
        raise ValueError(f"too few reclaims that freed nothing on the CPU ({len(dur)} timed, {len(calls)} counted; {n_min} each wanted)")
    d, n = statistics.median(dur), statistics.median(calls)
    out = {"reclaim_call_ns": round(d / n), "reclaims_timed": len(dur), "reclaim_median_ns": round(d),
           "reclaims_counted": len(calls), "isolate_calls_median": n}
    # recorded, not given (reclaim21, reclaim-spans-rule.md 1): the same failing reclaims' median
    # duration in the traced run, its isolate events inside; less the light median, over the calls,
    # the tracing cost per isolate call the scenario's own reclaim spans hold (they trace them too)
    full_dur = sorted(r[0] for r in full if r[2] == 0 and r[1] > 0)
    out["reclaim_median_full_ns"] = round(statistics.median(full_dur))
    out["isolate_trace_ns_per_call"] = round((out["reclaim_median_full_ns"] - d) / n)
    # recorded, not given (rawin21): the reclaims of the same light trace that freed pages, ns per
    # page freed on the CPU (large-folios.md's 64-65 ns in two v782 traces against the twin's 99;
    # which cost-table entries it stands for is reclaim's cost split, not hostcal's)
    freed = [r[0] / r[2] for r in light if r[2] > 0]
    if len(freed) >= 3:
        out["reclaim_freed_ns_per_page"] = round(statistics.median(freed))
        out["reclaims_freed_timed"] = len(freed)
    return out


RECLAIM_EVENTS = ("vmscan/mm_vmscan_memcg_reclaim_begin", "vmscan/mm_vmscan_memcg_reclaim_end",
                  "vmscan/mm_vmscan_lru_isolate", "sched/sched_switch")
SCENARIO_RECLAIM_SOURCE = ("the scenario's own memcg reclaims over the run (reclaim21, lab/validation/reclaim-spans-rule.md): "
                           "mm_vmscan_memcg_reclaim_begin/_end and sched_switch of the tasks' pids in the runner's tracefs "
                           "instance memtwin-<id>-reclaim (M13's light trace: no event inside the reclaim); each reclaim that "
                           "freed nothing (nr_reclaimed=0) without leaving the CPU, its duration over the calibration's median "
                           "isolate-call count (isolate_calls_median, M13's method), sorted")
SCENARIO_RECLAIM_SOURCE_FULL = ("the scenario's own memcg reclaims over the run (reclaim21, MEMTWIN_RECLAIM_TRACE=full): "
                                "mm_vmscan_memcg_reclaim_begin/_end, mm_vmscan_lru_isolate and sched_switch of the tasks' pids; "
                                "each reclaim that freed nothing without leaving the CPU, its duration over its own isolate calls, "
                                "sorted; the isolate events inside are traced (their cost inside each span; trace-reclaim-1201: "
                                "the traced runs read more)")


def reclaim_trace_start(run, pids: list, isolate: bool = False) -> str:
    """Start tracing the scenario's own memcg reclaims (reclaim21): mm_vmscan_memcg_reclaim_begin
    and _end of the tasks `pids` (with `isolate` their mm_vmscan_lru_isolate too: the full trace,
    which lengthens the reclaims it counts: trace-reclaim-1201), and their sched_switch out, as
    parse_reclaims() reads them, on the monotonic clock, in a tracefs instance
    `memtwin-<id>-reclaim` of the run's tracefs mount, kept in `run.traces` so that the runner's
    cleanup (and leftovers.py) removes it; its directory. ValueError without a tracefs or pids."""
    tracefs = os.path.join(run.scratch, "tracefs")
    if run.traces_why or tracefs not in run.mounted:
        raise ValueError(f"no tracefs for the run ({run.traces_why or 'not mounted'})")
    if not pids:
        raise ValueError("no task to trace")
    inst = os.path.join(tracefs, "instances", f"memtwin-{run.id}-reclaim")
    run.traces["reclaim"] = inst  # before the mkdir (review52 L5)
    mine = True
    try:
        try:
            os.mkdir(inst)
        except FileExistsError:
            # already there: neither this call's nor the runner's cleanup's to remove (review54 L1)
            mine = False
            run.traces.pop("reclaim", None)
            raise
        _write(os.path.join(inst, "buffer_size_kb"), str(RECLAIM_TRACE_KB))
        _write(os.path.join(inst, "trace_clock"), "mono")
        own = " || ".join(f"common_pid == {p}" for p in pids)
        out = " || ".join(f"prev_pid == {p}" for p in pids)
        for ev in RECLAIM_EVENTS:
            if ev == "vmscan/mm_vmscan_lru_isolate" and not isolate:
                continue
            _write(os.path.join(inst, "events", ev, "filter"), out if ev == "sched/sched_switch" else own)
            _write(os.path.join(inst, "events", ev, "enable"), "1")
    except OSError:
        if mine:
            reclaim_trace_stop(run, inst)
        raise
    return inst


def reclaim_trace_stop(run, inst: str) -> None:
    """Disable the reclaim trace's events and remove its instance (every exit path)."""
    for ev in RECLAIM_EVENTS:
        try:
            _write(os.path.join(inst, "events", ev, "enable"), "0")
        except OSError:
            pass
    from memtwin import leftovers
    if leftovers.remove_trace_instance(inst) is None:
        run.traces.pop("reclaim", None)


def scenario_reclaims_from(text: str, pids: list, calls: Optional[float] = None) -> dict:
    """The run's memcg reclaims as recorded (reclaim21): `scenario_reclaim_call_spans_ns`, each
    reclaim that freed nothing without leaving the CPU as its ns per isolate call, sorted: over
    `calls` (the calibration's median isolate-call count, M13's method: the light trace has no
    isolate event) or, with `calls` None, over its own traced isolate calls (the full trace;
    one with none is counted, not spanned); their median `scenario_reclaim_call_ns`; their
    durations `scenario_reclaim_failing_ns`, sorted; the counts of each kind. Every pid's
    reclaims together."""
    rs = [r for p in pids for r in parse_reclaims(text, p)]
    failing = [r for r in rs if r[2] == 0]
    if calls is not None:
        timed = [ns for ns, _, _ in failing]
        spans = sorted(round(ns / calls) for ns in timed)
    else:
        timed = [ns for ns, n, _ in failing if n > 0]
        spans = sorted(round(ns / n) for ns, n, _ in failing if n > 0)
    out = {"scenario_reclaims_on_cpu": len(rs), "scenario_reclaims_failing": len(failing),
           "scenario_reclaim_call_spans_ns": spans}
    if calls is None:
        out["scenario_reclaims_failing_no_isolate"] = sum(1 for r in failing if r[1] == 0)
    else:
        out["scenario_reclaim_isolate_calls"] = calls
    if spans:
        out["scenario_reclaim_call_ns"] = round(statistics.median(spans))
        out["scenario_reclaim_failing_ns"] = sorted(timed)
    return out


def reclaim_trace_finish(run, inst: str, pids: list, calls: Optional[float] = None) -> dict:
    """Stop the trace reclaim_trace_start() began, read it ([`scenario_reclaims_from`], `calls` as
    there: the calibration's count for the light trace, None for the full one) and remove the
    instance. ValueError when events were lost (a full ring buffer) or the run had no failing
    reclaim on the CPU (with isolate calls, in the full trace)."""
    try:
        for ev in RECLAIM_EVENTS:
            _write(os.path.join(inst, "events", ev, "enable"), "0")
        lost = lost_events(inst)
        if lost:
            raise ValueError(f"{lost} trace events of the scenario's reclaims lost (ring buffer overrun)")
        with open(os.path.join(inst, "trace"), errors="replace") as f:
            out = scenario_reclaims_from(f.read(), pids, calls)
        if not out["scenario_reclaim_call_spans_ns"]:
            raise ValueError(f"no memcg reclaim of the tasks freed nothing on the CPU ({out['scenario_reclaims_on_cpu']} reclaims on the CPU)")
        return out
    finally:
        reclaim_trace_stop(run, inst)


def _read_child(path: str, procs: str, go_r: int, parent: int, go_w: Optional[int] = None, mask=None,
                advice: int = os.POSIX_FADV_SEQUENTIAL) -> None:
    """In a forked child: close the pipe's write end `go_w`, die with the runner (a SIGKILLed
    runner must not leave it reading in the memcg), put back the signal mask `mask` (forked
    under signals_held()), join the memcg, wait for the go, read `path` once with 128 KiB reads.
    Never returns."""
    try:
        if go_w is not None:
            os.close(go_w)
        from memtwin.real import die_with_parent
        die_with_parent(parent)
        if mask is not None:
            import signal
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
        os.read(go_r, 1)
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, advice)
        buf = bytearray(READ_BS)
        while os.readv(fd, [buf]) > 0:
            pass
        os._exit(0)
    except BaseException:  # noqa: BLE001 - a forked child must never return into the runner
        os._exit(1)


def reclaim_reads_until(read_one: Callable[[str], tuple], n_min: int = None, reads_max: int = None,
                        seconds_max: float = None, clock: Callable[[], float] = time.monotonic) -> dict:
    """rec21 (reclaim-spans-rule.md, amendment): the calibration's reads of its file, alternately
    light and full (`read_one(kind)` -> (parse_reclaims() of the read, its memcg reclaims begun)),
    until the light reads hold `n_min` failing reclaims on the CPU and the full reads `n_min` with
    isolate calls (reclaim_call_from()'s two counts); a kind that has them is not read again; at
    most `reads_max` reads of a kind, and none started after `seconds_max` from the first. One read
    of 128 MiB caught a median of 6 / 4 on v669 (3 wanted: 127 of 335 recordings had too few):
    a draw of a count, so the read goes on until the count is there. {"light": [...], "full": [...]
    (every read's reclaims together), "reads": {kind: n}, "by_read": [[kind, failing caught, begun]],
    "bound": None or which bound ended it short}."""
    n_min = RECLAIM_MIN if n_min is None else n_min
    reads_max = RECLAIM_READS_MAX if reads_max is None else reads_max
    seconds_max = RECLAIM_SECONDS_MAX if seconds_max is None else seconds_max

    def caught(kind: str, rs: list) -> int:
        return sum(1 for r in rs if r[2] == 0 and (kind == "light" or r[1] > 0))

    out = {"light": [], "full": [], "reads": {"light": 0, "full": 0}, "by_read": [], "bound": None}
    t0 = clock()
    while True:
        want = [k for k in ("light", "full") if caught(k, out[k]) < n_min]
        if not want:
            return out
        if all(out["reads"][k] >= reads_max for k in want):
            out["bound"] = f"{reads_max} reads of each kind"
            return out
        for kind in want:
            if out["reads"][kind] >= reads_max:
                continue
            if clock() - t0 > seconds_max:
                out["bound"] = f"{seconds_max} s"
                return out
            rs, begun = read_one(kind)
            out[kind].extend(rs)
            out["reads"][kind] += 1
            out["by_read"].append([kind, caught(kind, rs), begun])


def reclaim_call_ns(run, d: str, memcg_dir: str, procs_name: str, tracefs: str, children: list,
                    sysfs: str = "/sys/block", blkio: str = "/sys/fs/cgroup/blkio") -> dict:
    """M13's figure on this host (module doc): `run` is the HostRun (its loop device, and
    `throttled` set while the temporary rule stands, so that its cleanup removes it should this
    be interrupted); `memcg_dir` the memcg to make (limit 20M; removed after); `tracefs` a
    mounted tracefs; `children`: where the child's pid goes while it runs (the runner's cleanup
    kills them). The file is read as often as reclaim_reads_until() asks (rec21: until both
    kinds hold RECLAIM_MIN failing reclaims, bounded), each read from a cold page cache. `sysfs`
    and `blkio`: where /sys/block and the v1 blkio hierarchy are (a test gives directories of its own)."""
    name = os.path.basename(run.loop)
    with open(os.path.join(sysfs, name, "dev")) as f:
        majmin = f.read().strip()
    base = blkio
    if not os.path.exists(os.path.join(base, "blkio.throttle.read_bps_device")):
        raise ValueError(f"no cgroup v1 blkio controller at {base} (the reads must stay under way)")
    ra_path = os.path.join(sysfs, name, "queue", "read_ahead_kb")
    with open(ra_path) as f:
        ra_old = f.read().strip()
    path = os.path.join(d, "memtwin-hostcal-reclaim")
    inst = os.path.join(tracefs, "instances", f"memtwin-{run.id}-hostcal")

    def read_one(kind: str) -> tuple:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        go_r, go_w = os.pipe()
        me = os.getpid()
        pid = None
        try:
            # the child's pid in `children` (the runner's cleanup kills them) before a signal can
            # act (review52 L5: a child nobody knows keeps the memcg, and the run's cgroup, from
            # going); a signal held meanwhile acts at the block's end, inside this `try:`
            with signals_held() as mask:
                pid = os.fork()
                if pid == 0:
                    _read_child(path, os.path.join(memcg_dir, procs_name), go_r, me, go_w, mask,
                                os.POSIX_FADV_RANDOM if kind.startswith("freed_random") else os.POSIX_FADV_SEQUENTIAL)
                children.append(pid)
            events = [("vmscan/mm_vmscan_memcg_reclaim_begin", f"common_pid == {pid}"),
                      ("vmscan/mm_vmscan_memcg_reclaim_end", f"common_pid == {pid}"),
                      ("sched/sched_switch", f"prev_pid == {pid}")]
            if kind == "full":
                events.append(("vmscan/mm_vmscan_lru_isolate", f"common_pid == {pid}"))
            elif kind in ("freed", "freed_random"):
                events += [("vmscan/mm_vmscan_lru_shrink_inactive", f"common_pid == {pid}"),
                           ("filemap/mm_filemap_delete_from_page_cache", f"common_pid == {pid}")]
            _write(os.path.join(inst, "trace"), "")
            for ev, flt in events:
                _write(os.path.join(inst, "events", ev, "filter"), flt)
                _write(os.path.join(inst, "events", ev, "enable"), "1")
            time.sleep(0.05)  # the child has joined the memcg
            os.write(go_w, b"g")
            deadline = time.monotonic() + CHILD_TIMEOUT_S
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    raise ValueError(f"the calibration's reader took more than {CHILD_TIMEOUT_S} s")
                time.sleep(0.02)
            children.remove(pid)
            for ev, _ in events:
                _write(os.path.join(inst, "events", ev, "enable"), "0")
            lost = lost_events(inst)
            if lost:
                raise ValueError(f"{lost} trace events lost (ring buffer overrun)")
            if os.WEXITSTATUS(status) != 0:
                raise ValueError("the calibration's reader failed")
            with open(os.path.join(inst, "trace"), errors="replace") as f:
                text = f.read()
            if kind in ("freed", "freed_random"):  # freed_random_light: parse_reclaims() below
                return parse_freed_reclaims(text, pid), reclaims_begun(text, pid)
            return parse_reclaims(text, pid), reclaims_begun(text, pid)
        finally:
            os.close(go_r)
            os.close(go_w)
            if pid in children:
                try:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
                children.remove(pid)

    # everything made inside the `try:` whose `finally` removes it (review52 L5: a SIGINT between a
    # making and that `try:` left the file or the memcg); the `finally` takes what is missing for
    # never made. `mine`: what this call went to make, each marked before its making and unmarked
    # when it was already there (FileExistsError: another's, review54 L1); the `finally` removes
    # only those (what comes after a failure is never made, so never removed either)
    mine = {"file": False, "memcg": False, "inst": False}

    def make(what: str, fn, *args):
        mine[what] = True
        try:
            return fn(*args)
        except FileExistsError:
            mine[what] = False
            raise

    try:
        fd = make("file", _write_file, path, RECLAIM_FILE_BYTES, 1 << 20)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        make("memcg", os.mkdir, memcg_dir)
        _write(os.path.join(memcg_dir, "memory.limit_in_bytes" if run.version == "v1" else "memory.max"), str(RECLAIM_LIMIT))
        _write(ra_path, str(RECLAIM_RA_KB))
        run.throttled = majmin
        _write(os.path.join(base, "blkio.throttle.read_bps_device"), f"{majmin} {RECLAIM_READ_BPS}")
        run.traces["hostcal"] = inst  # before the mkdir: the runner's cleanup removes it should this be interrupted
        make("inst", os.mkdir, inst)
        _write(os.path.join(inst, "buffer_size_kb"), "16384")
        got = reclaim_reads_until(read_one)
        # orders61: the successful reclaims' reads, unthrottled (module doc, FREED_EVENTS)
        _write(os.path.join(base, "blkio.throttle.read_bps_device"), f"{majmin} 0")
        run.throttled = None
        freed, freed_reads, light_random = [], [], []
        try:
            for kind in FREED_KINDS:
                for _ in range(FREED_READS):
                    rs, begun = read_one(kind)
                    if kind == "freed_random_light":
                        light_random.extend(r for r in rs if r[2] > 0)
                    else:
                        freed.extend(rs)
                    freed_reads.append([kind, len(rs), begun])
        except (OSError, ValueError) as e:
            got["freed_unavailable"] = str(e)
        got["freed"], got["freed_reads"], got["freed_light"] = freed, freed_reads, light_random
    finally:
        if not mine["inst"]:
            run.traces.pop("hostcal", None)  # never made, or another's: not the runner's cleanup's to remove either
        elif os.path.isdir(inst):
            for ev in ("vmscan/mm_vmscan_memcg_reclaim_begin", "vmscan/mm_vmscan_memcg_reclaim_end",
                       "sched/sched_switch", "vmscan/mm_vmscan_lru_isolate", "vmscan/mm_vmscan_lru_shrink_inactive",
                       "filemap/mm_filemap_delete_from_page_cache"):
                try:
                    _write(os.path.join(inst, "events", ev, "enable"), "0")
                except OSError:
                    pass
            try:
                os.rmdir(inst)
                run.traces.pop("hostcal", None)
            except OSError:
                pass
        else:
            run.traces.pop("hostcal", None)  # never made
        if getattr(run, "throttled", None):
            try:
                _write(os.path.join(base, "blkio.throttle.read_bps_device"), f"{majmin} 0")
                run.throttled = None
            except OSError:
                pass
        try:
            _write(ra_path, ra_old)
        except OSError:
            pass
        for _ in range(50 if mine["memcg"] else 0):
            try:
                os.rmdir(memcg_dir)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)
        if mine["file"]:
            _remove(path)
    return reclaim_call_from_reads(got)


def reclaim_call_from_reads(got: dict) -> dict:
    """reclaim_call_from() over every read of reclaim_reads_until()'s `got`, with RECLAIM_MIN wanted
    of each kind; the reads and each read's counts recorded beside it. ValueError (the counts,
    the reads and the bound that ended them) when either kind has too few."""
    reads = f"{got['reads']['light']} light and {got['reads']['full']} full reads of the {RECLAIM_FILE_BYTES >> 20} MiB file"
    try:
        out = reclaim_call_from(got["light"], got["full"], RECLAIM_MIN)
    except ValueError as e:
        raise ValueError(f"{e} after {reads}" + (f" (bound: {got['bound']})" if got.get("bound") else "")) from None
    out["reclaim_reads"] = dict(got["reads"])
    out["reclaims_by_read"] = [list(r) for r in got["by_read"]]
    # orders61: the successful reclaims' costs, recorded with what they came from; why not, if not
    if "freed" in got:
        out["reclaim_freed_reads"] = got.get("freed_reads", [])
        out["reclaim_freed_rows"] = [list(r) for r in got["freed"]]
        try:
            if got.get("freed_unavailable"):
                raise ValueError(got["freed_unavailable"])
            ev = freed_event_ns(got["freed"], got.get("freed_light", []))
            out.update(ev)
            out.update(reclaim_freed_from(got["freed"], ev["reclaim_freed_event_ns"]))
        except ValueError as e:
            out["reclaim_freed_unavailable"] = str(e)
    return out


# orders61 (issue 21): a successful memcg reclaim's costs, split into the terms the engine prices.
# After the failing-reclaim reads, the same file is read cold in the same memcg with the blk-throttle
# rule removed (so reclaim finds folios it can free), at read_ahead_kb 8192, sequentially ("freed":
# victims the readahead's large folios and, after each ramp, its small ones) and with POSIX_FADV_RANDOM
# ("freed_random": no readahead, 6.18 page_cache_sync_ra()'s FMODE_RANDOM path reads the request in
# order-0 folios: victims of 32 order-0 folios a reclaim), FREED_READS times each, with
# mm_vmscan_memcg_reclaim_begin/_end, sched_switch,
# mm_vmscan_lru_shrink_inactive (one a shrink_inactive_list() call) and mm_filemap_delete_from_page_cache
# (one a folio deleted, with its order) of the reader.
FREED_READS = 2
FREED_KINDS = ("freed", "freed_random", "freed_random_light")
FREED_MAX_BATCHES = 20
FREED_MIN = 20
FREED_EVENTS = ("vmscan/mm_vmscan_memcg_reclaim_begin", "vmscan/mm_vmscan_memcg_reclaim_end",
                "sched/sched_switch", "vmscan/mm_vmscan_lru_shrink_inactive",
                "filemap/mm_filemap_delete_from_page_cache")


def parse_freed_reclaims(text: str, pid: int) -> list:
    """[(ns, batches, folios, pages)] of task `pid`'s memcg reclaims that freed pages (nr_reclaimed
    > 0) without leaving the CPU, in a trace with FREED_EVENTS: `batches` its
    mm_vmscan_lru_shrink_inactive events (shrink_inactive_list() calls), `folios` its
    mm_filemap_delete_from_page_cache events (folios deleted, __remove_mapping()) and `pages` their
    pages (2^order each)."""
    out = []
    for ns, evs, nr in reclaim_spans(text, pid):
        batches = folios = pages = 0
        for ev, rest in evs:
            if ev == "mm_vmscan_lru_shrink_inactive":
                batches += 1
            elif ev == "mm_filemap_delete_from_page_cache":
                g = re.search(r"order=(\d+)", rest)
                folios += 1
                pages += 1 << int(g.group(1)) if g else 1
        if nr > 0 and folios > 0:
            out.append((ns, batches, folios, pages))
    return out


def freed_event_ns(full: list, light: list, n_min: int = FREED_MIN) -> dict:
    """The cost of one traced event inside a successful reclaim (orders61): the order-0 reclaims of the
    FADV_RANDOM reads are all alike (the full trace's most common (batches, folios, pages), 5 / 35 / 35 on
    6.18: M13's structure), so their median in the full trace less the median of the light trace's
    reclaims of as many pages (mm_vmscan_memcg_reclaim_begin/_end only, [(ns, 0, nr_reclaimed)] of
    parse_reclaims()), over the events inside one (a batch's shrink_inactive and a folio's deletion).
    ValueError with fewer than `n_min` of either."""
    from collections import Counter
    if not full:
        raise ValueError("no successful reclaim traced")
    (b, f, pg), n = Counter((r[1], r[2], r[3]) for r in full).most_common(1)[0]
    lt = [r[0] for r in light if r[2] == pg]
    if n < n_min or len(lt) < n_min:
        raise ValueError(f"too few like reclaims to time the trace's events ({n} traced of {b}/{f}/{pg}, {len(lt)} light of {pg} pages; {n_min} each wanted)")
    fm = statistics.median(r[0] for r in full if (r[1], r[2], r[3]) == (b, f, pg))
    lm = statistics.median(lt)
    return {"reclaim_freed_event_ns": max(0, round((fm - lm) / (b + f))), "reclaim_freed_event_class": [b, f, pg, n, len(lt)],
            "reclaim_freed_event_medians_ns": [round(fm), round(lm)]}


def _lstsq(rows: list, ys: list) -> list:
    """Least squares (normal equations, Gaussian elimination with partial pivoting); ValueError
    when singular."""
    k = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(k)] + [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(k)]
    for c in range(k):
        piv = max(range(c, k), key=lambda i: abs(a[i][c]))
        if abs(a[piv][c]) < 1e-9:
            raise ValueError("the reclaims do not separate the terms (singular fit)")
        a[c], a[piv] = a[piv], a[c]
        for i in range(k):
            if i != c:
                f = a[i][c] / a[c][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[c])]
    return [a[i][k] / a[i][i] for i in range(k)]


def reclaim_freed_from(rows: list, event_ns: Optional[int] = None, n_min: int = FREED_MIN) -> dict:
    """A successful memcg reclaim's costs (orders61) from parse_freed_reclaims() rows: least squares of
    each reclaim's ns over [1, batches, folios, tail pages (pages - folios)], the reclaims with at most
    FREED_MAX_BATCHES batches and at most the 95th percentile of their ns (a reclaim interrupted by an
    interrupt or another task's lock); the traced events inside a reclaim (one a batch, one a folio)
    cost `event_ns` each (freed_event_ns(): the FADV_RANDOM reads' like reclaims traced full less
    light), taken off the batch and folio terms. `reclaim_folio_ns` (per folio
    evicted: isolation, references, __remove_mapping(), uncharge, free) and `reclaim_tail_page_ns`
    (per page of an evicted folio past its first: 6.18 free_pages_prepare()'s tail-page walk, the
    per-page uncharge and LRU stats) are given to the engine, and the fixed and per-batch terms
    (`reclaim_fixed_ns`: try_to_free_mem_cgroup_pages()'s own, less one event; `reclaim_batch_ns`: a
    shrink_inactive_list() call that frees, less its event). ValueError with fewer than `n_min` reclaims, or a folio or tail-page term below 1 ns."""
    rows = [r for r in rows if r[1] <= FREED_MAX_BATCHES]
    if len(rows) < n_min:
        raise ValueError(f"too few successful memcg reclaims on the CPU ({len(rows)}; {n_min} wanted)")
    cut = sorted(r[0] for r in rows)[max(0, int(0.95 * len(rows)) - 1)]
    rows = [r for r in rows if r[0] <= cut]
    x = [[1.0, float(b), float(f), float(pg - f)] for _, b, f, pg in rows]
    c, b, f, t = _lstsq(x, [float(r[0]) for r in rows])
    e = event_ns if event_ns is not None and event_ns > 0 else 0
    out = {"reclaim_freed_fit_ns": {"fixed": round(c), "batch": round(b), "folio": round(f), "tail_page": round(t, 1)},
           "reclaim_freed_event_ns": e, "reclaims_freed_fitted": len(rows),
           "reclaim_freed_batch_ns": round(b - e), "reclaim_freed_fixed_ns": round(c)}
    # given too (orders61): the fixed term less the one event's cost a span holds (the begin's commit
    # after its timestamp), the batch term less its event's
    if round(c - e) >= 1 and round(b - e) >= 1:
        out["reclaim_fixed_ns"], out["reclaim_batch_ns"] = round(c - e), round(b - e)
    folio, tail = round(f - e), round(t)
    if folio < 1 or tail < 1:
        raise ValueError(f"the fit's folio term {f - e:.0f} ns or tail-page term {t:.1f} ns is below 1 ns "
                         f"({len(rows)} reclaims; fit {out['reclaim_freed_fit_ns']})")
    out["reclaim_folio_ns"] = folio
    out["reclaim_tail_page_ns"] = tail
    return out


ANON_BYTES = 18 << 20
ANON_ROUNDS = 24
ANON_HUGE_ROUNDS = 24


def vmstat(key: str) -> int:
    with open("/proc/vmstat") as f:
        for line in f:
            if line.startswith(key + " "):
                return int(line.split()[1])
    return 0


def anon_rounds(huge: bool, n: int, size: int = ANON_BYTES, gap_s: float = 0.0) -> list:
    """`n` rounds of M11/M12's method (lab/measurements/anon_fault_cost.py runs it with `gap_s`
    0.005): (first touch, second touch, munmap) ns of an anonymous `size` mapping touched one
    byte a 4 KiB page; with `huge`, MADV_HUGEPAGE first, else MADV_NOHUGEPAGE (base pages under
    THP "always" too: VM_NOHUGEPAGE makes 6.18's `vma_thp_disabled()` true, so
    `__thp_vma_allowable_orders()` gives the fault no huge order; review48 M4); `gap_s` seconds
    between rounds."""
    pages = size // 4096
    ones = b"\x01" * pages
    out = []
    for _ in range(n):
        m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        m.madvise(mmap.MADV_HUGEPAGE if huge else mmap.MADV_NOHUGEPAGE)
        mv = memoryview(m)
        t0 = time.monotonic_ns()
        mv[::4096] = ones
        t1 = time.monotonic_ns()
        mv[::4096] = ones
        t2 = time.monotonic_ns()
        mv.release()
        m.close()
        t3 = time.monotonic_ns()
        out.append((t1 - t0, t2 - t1, t3 - t2))
        if gap_s:
            time.sleep(gap_s)
    return out


def p10(xs: list) -> int:
    """The 10th percentile as anon_fault_cost.py takes it: sorted, index int(n * 0.1)."""
    xs = sorted(xs)
    return xs[int(len(xs) * 0.1)]


def anon_costs_from(base: list, huge: list, thp_per_round: float, size: int = ANON_BYTES, base_thp: int = 0) -> dict:
    """The dict of the module doc from `base` and `huge` rounds ((first, second, munmap) ns each)
    and the THP faults a huge round took: per 4 KiB page, p10 of rounds. `clear_page_ns` needs
    the huge rounds to have faulted huge pages (9 a round of 18 MiB: 2 MiB-aligned ones inside).
    `base_thp`: /proc/vmstat thp_fault_alloc's move over the base rounds; not 0, they faulted
    huge pages (a THP fault is ~100 ns a 4 KiB page, less than a base page's clearing) and
    anon_fault_ns and zap_page_ns are unavailable (review48 M4)."""
    pages = size // 4096
    out, unavailable = {}, {}
    fault = round((p10([r[0] for r in base]) - p10([r[1] for r in base])) / pages)
    zap = round(p10([r[2] for r in base]) / pages)
    if base_thp:
        why = (f"thp_fault_alloc moved by {base_thp} over the MADV_NOHUGEPAGE base rounds: huge pages were faulted "
               "(the mapping's or another process's), not base pages")
        unavailable["anon_fault_ns"] = unavailable["zap_page_ns"] = why
    elif fault <= 0:
        unavailable["anon_fault_ns"] = f"the first touch ({p10([r[0] for r in base])} ns) was not slower than the second"
    else:
        out["anon_fault_ns"] = fault
    if base_thp:
        pass
    elif zap <= 0:
        unavailable["zap_page_ns"] = "munmap() took no time"
    else:
        out["zap_page_ns"] = zap
    want = size // (2 << 20) - 0.5
    if thp_per_round < want:
        unavailable["clear_page_ns"] = f"{thp_per_round:.1f} THP faults a MADV_HUGEPAGE round, not {size // (2 << 20)} (transparent_hugepage off or no huge page free)"
    else:
        clear = round((p10([r[0] for r in huge]) - p10([r[1] for r in huge])) / pages)
        if clear <= 0:
            unavailable["clear_page_ns"] = "the huge first touch was not slower than the second"
        elif "anon_fault_ns" in out and clear >= out["anon_fault_ns"]:
            unavailable["clear_page_ns"] = f"{clear} ns a page of clearing, not less than the base fault's {out['anon_fault_ns']}: a loaded round"
        else:
            out["clear_page_ns"] = clear
    if not base_thp:
        out["anon_fault_median_ns"] = round((statistics.median([r[0] for r in base]) - statistics.median([r[1] for r in base])) / pages)
    out["anon_thp_faults_per_round"] = round(thp_per_round, 1)
    if unavailable:
        out["unavailable"] = unavailable
    return out


def anon_costs(base_rounds: int = ANON_ROUNDS, huge_rounds: int = ANON_HUGE_ROUNDS) -> dict:
    """M11/M12's measurement, shortened (module doc): base then huge rounds, each counted by
    /proc/vmstat thp_fault_alloc (the base rounds' must not move: anon_costs_from)."""
    a = vmstat("thp_fault_alloc")
    base = anon_rounds(False, base_rounds)
    b = vmstat("thp_fault_alloc")
    huge = anon_rounds(True, huge_rounds)
    thp = (vmstat("thp_fault_alloc") - b) / huge_rounds
    return anon_costs_from(base, huge, thp, base_thp=b - a)


def measure(run, d: str, tracefs_mount: Callable[[], Optional[str]], log=None) -> dict:
    """Every measurement of the module doc made before the run on HostRun `run`'s scratch
    directory `d` (its file system); `tracefs_mount()` gives a mounted tracefs or None. The dict
    the recording keeps as `real.machine.host_cost` (the device window is added over the run:
    device_trace_start/_finish)."""
    out = {"kernel": os.uname().release, "loadavg_before": _loadavg(), "unavailable": {}}
    t0 = time.monotonic()
    try:
        out["read_ns_by_order"] = {str(k): v for k, v in read_ns_by_order(d).items()}
        out["read_source"] = ("hot 128 KiB preadv()s of a 64 MiB file written in folios of the order (pwrite()s of "
                              "2^order pages), getrusage() system ns per 4 KiB page, median of 3 samples of 16 reads")
    except OSError as e:
        out["unavailable"]["read_ns_by_order"] = str(e)
    try:
        w = loop_read_window_ns(d)
        if "thp_unavailable" in w:
            out["unavailable"]["loop_read_window_thp_ns"] = w.pop("thp_unavailable")
        out.update(w)
        out["loop_read_window_source"] = ("O_DIRECT 8 MiB preadv() of a synced file on the idle unthrottled loop device, median of 8, "
                                          "into 4 KiB pages and (_thp_ns) into transparent huge pages, alternately first")
    except (OSError, ValueError) as e:
        out["unavailable"]["loop_read_window_ns"] = str(e)
    try:
        out["readahead_window_ns"] = readahead_window_ns(d, f"/sys/block/{os.path.basename(run.loop)}/queue/read_ahead_kb")
        out["readahead_window_source"] = ("a cold 8 MiB read() of a synced file at index 0 at read_ahead_kb 8192 (one readahead "
                                          "window) less the same read hot, on the idle unthrottled loop device, median of 8")
    except (OSError, ValueError) as e:
        out["unavailable"]["readahead_window_ns"] = str(e)
    try:
        a = anon_costs()
        out["unavailable"].update(a.pop("unavailable", {}))
        out.update(a)
        out["anon_source"] = (f"anon_fault_cost.py's rounds, {ANON_ROUNDS} of an 18 MiB anonymous mmap touched a byte a 4 KiB page "
                              f"with MADV_NOHUGEPAGE (thp_fault_alloc unmoved) and {ANON_HUGE_ROUNDS} with MADV_HUGEPAGE: p10 ns per 4 KiB of the first touch less "
                              "the second (anon_fault_ns; clear_page_ns the huge one's), of munmap (zap_page_ns)")
    except (OSError, ValueError) as e:
        out["unavailable"]["anon_fault_ns"] = str(e)
    try:
        tr = tracefs_mount()
        if tr is None:
            raise ValueError("no tracefs")
        if run.version != "v1":
            raise ValueError("the reclaim measurement throttles through cgroup v1's blkio controller")
        procs = "tasks" if run.version == "v1" else "cgroup.procs"
        r = reclaim_call_ns(run, d, os.path.join(run.top, "memtwin-hostcal"), procs, tr, run.children)
        out.update(r)
        out["reclaim_source"] = ("memcg reclaims that freed nothing, on the CPU, of a 128 MiB file's cold read in a 20M "
                                 "memcg at read_ahead_kb 8192 under a 200 MB/s blk-throttle read rule: median time with "
                                 "only mm_vmscan_memcg_reclaim_begin/_end traced (light reads) over the median "
                                 "mm_vmscan_lru_isolate count (full reads), the file read again, the kinds alternating, "
                                 f"until each holds {RECLAIM_MIN} (at most {RECLAIM_READS_MAX} reads of a kind, "
                                 f"{RECLAIM_SECONDS_MAX} s; rec21)")
    except (OSError, ValueError) as e:
        out["unavailable"]["reclaim_call_ns"] = str(e)
    out["seconds"] = round(time.monotonic() - t0, 2)
    out["loadavg_after"] = _loadavg()
    if not out["unavailable"]:
        del out["unavailable"]
    if log:
        log(f"host calibration ({out['seconds']} s): " + ", ".join(f"{k} {out[k]}" for k in ("read_ns_by_order", "loop_read_window_ns", "readahead_window_ns", "reclaim_call_ns", "anon_fault_ns", "clear_page_ns", "zap_page_ns") if k in out))
    return out
