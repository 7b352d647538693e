"""memtwin calibrate: measure the disk the host runner gives a scenario and write it as the
scenario's `[devices.NAME]` table.

`memtwin real --on host` runs a scenario on an ext4 image on a loop device (direct I/O) in its
scratch directory (real.HostRun._disk); with a scenario bandwidth it throttles the loop device
with blk-throttle (real.HostRun._throttle). The engine's device (blkdev.rs) has three figures:
`read_bw` and `write_bw` (bytes/s of a sequential stream) and `seek` (what a request that does
not start where the last one ended pays on top of its transfer). This command sets up the same
disk, writes a file and measures, with O_DIRECT so the page cache is not in the way:

- write_bw: 1 MiB writes from the start of the file to its end, then fsync;
- read_bw: 1 MiB reads of the file, start to end;
- 4 KiB random reads (page-aligned offsets in the whole file): their latency's quantiles;
  `seek` = the median minus the transfer time of 4 KiB at read_bw;
- also the buffered read a cold reader gets (page cache dropped, 1 MiB read() calls, the
  device's read_ahead_kb), for comparison.

With `--queue`, also the device's own queue (blkdev.rs `HwQueue`, lab/validation/loop-device.md),
measured before any throttle rule is set:

- `queue_depth`: the loop device's driver tags (`/sys/block/loopN/mq/0/nr_tags`, loop's
  `hw_queue_depth`), and its `max_sectors_kb` (queue/max_sectors_kb);
- `request_latency` and `request_read_bw`/`request_write_bw`: one request alone (one thread,
  O_DIRECT) of 64 KiB and of 1 MiB, median latencies t64 and t1M; the rate alone is
  (1 MiB - 64 KiB) / (t1M - t64), the latency t64 less 64 KiB at that rate;
- the bandwidth requests in flight share: `QUEUE_THREADS` threads each reading (writing) its own
  slice of the file in 1 MiB O_DIRECT requests, all at once; it becomes the table's
  `read_bw`/`write_bw` (or `queue_read_bw`/`queue_write_bw` with `--throttle`, whose rules stay
  `read_bw`/`write_bw`, with `blk_throttle = true`);
- `request_cost`: 4 KiB random reads by `QUEUE_THREADS` threads at once: the device time one
  costs, 1 / (reads a second) less 4 KiB at the shared read bandwidth (an upper bound: the
  threads' own CPU time on this 2-CPU host is in it).

With `--dir DIR` (and `--queue`) the disk measured is instead the one beneath DIR's own file
system (no loop device, no throttle rule): a scratch file in DIR, O_DIRECT, the device's driver
tags and `max_sectors_kb` read from its /sys/block entry. That is the device a program the host
runs on that file system reads from (`memtwin measure`, issue 18's recorded programs: the
virtio disk /dev/vda under /var/tmp; lab/validation/trace-programs.md). It needs no root (only
write access to DIR) and takes no `--scratch`: its scratch file goes in DIR.

Each pass is repeated `--repeat` times and the median kept. With `--throttle READ,WRITE` the
loop device gets the runner's blk-throttle rules first, which shows what a rule actually gives.
Everything it makes (scratch directory, image, loop device, mount, rules) is removed on every
exit path, as a host run's are.
"""

from __future__ import annotations

import datetime
import json
import mmap
import os
import platform
import random
import signal
import statistics
import sys
import threading
import time

from . import leftovers, real
from .measure import parse_size

MIB = 1 << 20
# Requests in flight for the shared-bandwidth and per-request-cost passes: enough to reach the
# loop device's plateau (lab/validation/loop-device.md: 1 MiB reads level off from QD 16).
QUEUE_THREADS = 32


class CalibrateError(Exception):
    pass


def add_parser(sub, epilog=None) -> None:
    c = sub.add_parser("calibrate", help="measure the host runner's disk and write it as a scenario's [devices] table",
                       description="Set up the disk `memtwin real --on host` gives a scenario (ext4 on a loop device) and "
                                   "measure its sequential read and write bandwidth and 4 KiB random read latency with "
                                   "O_DIRECT; print (or write) them as a [devices.NAME] table. Root only; run it under "
                                   "`flock /tmp/memtwin-host.lock` like every host run.", epilog=epilog)
    c.add_argument("--on", choices=["host"], default="host", help="which lab disk (only the host runner's for now)")
    # The disk options' defaults are None (filled in by main()) so that --wakeup can tell one given from one not.
    c.add_argument("--size", default=None, help="the test file's size (default 512M)")
    c.add_argument("--repeat", type=int, default=None, help="passes per measurement; the median is kept (default 3)")
    c.add_argument("--samples", type=int, default=None, help="4 KiB random reads per pass (default 2000)")
    c.add_argument("--read-ahead-kb", type=int, default=None, help="the loop device's read_ahead_kb (default 128)")
    c.add_argument("--throttle", metavar="READ,WRITE", help="give the loop device the host runner's blk-throttle rules "
                   "(bytes/s or sizes such as 400M) before measuring")
    c.add_argument("--queue", action="store_true", help="also measure the device's own queue (requests in flight "
                   "together: queue_depth, request_latency, request_read_bw/request_write_bw, request_cost, the shared "
                   "bandwidth) and write them into the table")
    c.add_argument("--dir", metavar="DIR", help="measure the disk beneath DIR's own file system instead (a scratch file in "
                   "DIR, no loop device, no throttle): the device programs the host runs there read from")
    c.add_argument("--device", default=None, help="the table's device name (default sda)")
    c.add_argument("--scratch", metavar="DIR", default=None, help="where the image goes (default /var/tmp; not with "
                   "--dir, whose scratch file goes in DIR)")
    c.add_argument("--out", metavar="FILE", help="also write the [devices] table (with the figures as comments) to FILE "
                   "(--wakeup: its report)")
    c.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    c.add_argument("--wakeup", action="store_true", help="measure instead the run-queue wait (schedstat run_delay) of a "
                   "task woken onto an idle CPU, by a pipe from the other CPU and by its own timer, and print its "
                   "quantiles (no disk, no root)")
    c.add_argument("--wakeup-gaps", metavar="US,US,...", default=None, help="--wakeup: the sleeps "
                   "between wake-ups, in microseconds (default 500,1000,2000; only with --wakeup)")
    c.add_argument("--wakeup-samples", type=int, default=None, help="--wakeup: wake-ups per sleep and kind (default 1000; "
                   "only with --wakeup)")


def _throttle_arg(s):
    parts = s.split(",")
    if len(parts) != 2:
        raise CalibrateError(f"--throttle {s}: error: give READ,WRITE bandwidths\n  fix: e.g. --throttle 400M,300M")
    try:
        r, w = (parse_size(p) for p in parts)
    except Exception:  # noqa: BLE001 - parse_size's own error names --limit
        raise CalibrateError(f"--throttle {s}: error: not two sizes\n  fix: e.g. --throttle 400M,300M") from None
    if r <= 0 or w <= 0:
        raise CalibrateError(f"--throttle {s}: error: bandwidths must be positive\n  fix: e.g. --throttle 400M,300M")
    return r, w


def _seq(fd: int, size: int, write: bool, buf) -> float:
    """Seconds to write (then fsync) or read `size` bytes in 1 MiB O_DIRECT requests."""
    t0 = time.monotonic()
    pos = 0
    while pos < size:
        if write:
            n = os.pwrite(fd, buf, pos)
        else:
            n = os.preadv(fd, [buf], pos)
        if n <= 0:
            raise CalibrateError(f"short {'write' if write else 'read'} at {pos}")
        pos += n
    if write:
        os.fsync(fd)
    return time.monotonic() - t0


def _random_4k(fd: int, size: int, n: int, rng) -> list:
    """Latencies (s) of `n` O_DIRECT 4 KiB reads at random page-aligned offsets."""
    page = mmap.mmap(-1, 4096)
    slots = size // 4096
    out = []
    for _ in range(n):
        off = rng.randrange(slots) * 4096
        t0 = time.monotonic_ns()
        os.preadv(fd, [page], off)
        out.append((time.monotonic_ns() - t0) / 1e9)
    page.close()
    return out


def _buffered_read(path: str, size: int) -> float:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        buf = bytearray(MIB)
        t0 = time.monotonic()
        pos = 0
        while pos < size:
            n = os.readv(fd, [buf])
            if n <= 0:
                break
            pos += n
        return time.monotonic() - t0
    finally:
        os.close(fd)


def _alone(fd: int, size: int, bs: int, n: int, write: bool) -> float:
    """Median latency (s) of `n` O_DIRECT requests of `bs` one at a time, sequential."""
    buf = mmap.mmap(-1, bs)
    buf.write(os.urandom(bs))
    out = []
    pos = 0
    try:
        for _ in range(n):
            if pos + bs > size:
                pos = 0
            t0 = time.monotonic_ns()
            (os.pwrite(fd, buf, pos) if write else os.preadv(fd, [buf], pos))
            out.append((time.monotonic_ns() - t0) / 1e9)
            pos += bs
    finally:
        buf.close()
    return statistics.median(out)


def _together(fd: int, size: int, bs: int, threads: int, write: bool, rng=None, per_thread: int = 0) -> float:
    """Bytes/s of `threads` threads issuing O_DIRECT requests of `bs` at once: each its own slice
    of the file in order, or, with `rng`, `per_thread` requests at random offsets."""
    slice_ = size // threads // bs * bs
    errors = []
    offsets = [[rng.randrange(size // bs) * bs for _ in range(per_thread)] for _ in range(threads)] if rng else None
    start = threading.Barrier(threads + 1, timeout=60)

    def work(i):
        buf = None
        try:
            buf = mmap.mmap(-1, bs)
            start.wait()
            offs = offsets[i] if offsets else range(i * slice_, (i + 1) * slice_, bs)
            for off in offs:
                n = os.pwrite(fd, buf, off) if write else os.preadv(fd, [buf], off)
                if n != bs:
                    errors.append(f"short {'write' if write else 'read'} at {off}")
                    return
        except (OSError, threading.BrokenBarrierError) as e:
            errors.append(str(e) or "a measuring thread did not start")
            start.abort()
        finally:
            if buf is not None:
                buf.close()

    ts = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(threads)]
    for t in ts:
        t.start()
    try:
        start.wait()
    except threading.BrokenBarrierError:
        raise CalibrateError("the measuring threads did not all start within 60 s: "
                             + (errors[0] if errors else "a thread failed before the barrier")) from None
    t0 = time.monotonic()
    deadline = t0 + 600   # one bound for the whole pass, not 600 s per thread
    for t in ts:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            raise CalibrateError("the measuring threads did not finish within 600 s (the disk stalled?)")
    dt = time.monotonic() - t0
    if errors:
        raise CalibrateError("queue pass failed: " + errors[0])
    done = per_thread * bs * threads if rng else slice_ * threads
    return done / dt


def block_device_of(path: str) -> str:
    """The name of the whole block device (its /sys/block entry) beneath `path`'s file system:
    a partition's parent (vda for vda1)."""
    st = os.stat(path)
    sys_dev = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    try:
        real_path = os.path.realpath(sys_dev)
    except OSError:
        real_path = ""
    if not os.path.isdir(real_path):
        raise CalibrateError(f"--dir {path}: error: its file system is not on a block device ({sys_dev} does not exist)\n"
                             "  fix: give a directory on a disk's file system (not tmpfs or overlay), e.g. /var/tmp")
    if os.path.exists(os.path.join(real_path, "partition")):
        real_path = os.path.dirname(real_path)
    return os.path.basename(real_path)


def measure_queue(fd: int, size: int, repeat: int, loop: str) -> dict:
    """The device queue's figures (module docstring, `--queue`); `loop` is the device's node or
    /sys/block name (the loop device, or with `--dir` the disk beneath it)."""
    try:
        with open(f"/sys/block/{os.path.basename(loop)}/mq/0/nr_tags") as f:
            depth = int(f.read())
    except (OSError, ValueError):
        if not os.path.basename(loop).startswith("loop"):
            raise CalibrateError(f"/sys/block/{os.path.basename(loop)}/mq/0/nr_tags could not be read: the device is not "
                                 "blk-mq, and its queue cannot be described\n  fix: leave out --queue") from None
        depth = 128  # loop's hw_queue_depth default (drivers/block/loop.c)
        print(f"calibrate: /sys/block/{os.path.basename(loop)}/mq/0/nr_tags could not be read: queue_depth = 128 "
              "is loop's hw_queue_depth default (drivers/block/loop.c), not a measurement", file=sys.stderr)
    try:
        with open(f"/sys/block/{os.path.basename(loop)}/queue/max_sectors_kb") as f:
            max_kb = int(f.read())
    except (OSError, ValueError):
        max_kb = 1280  # BLK_DEF_MAX_SECTORS (6.1), the loop device's
    rng = random.Random(1)
    out = {"queue_depth": depth, "max_sectors_kb": max_kb}
    per = {}
    for key, write in (("read", False), ("write", True)):
        t64 = statistics.median(_alone(fd, size, 64 << 10, 200, write) for _ in range(repeat))
        t1m = statistics.median(_alone(fd, size, MIB, 100, write) for _ in range(repeat))
        bw1 = (MIB - (64 << 10)) / max(t1m - t64, 1e-9)
        lat = max(0.0, t64 - (64 << 10) / bw1)
        shared = statistics.median(_together(fd, size, MIB, QUEUE_THREADS, write) for _ in range(repeat))
        per[key] = {"t64_us": t64 * 1e6, "t1m_us": t1m * 1e6, "request_bw": int(bw1), "latency_ns": int(lat * 1e9), "shared_bw": int(shared)}
    iops = statistics.median(_together(fd, size, 4096, QUEUE_THREADS, False, rng, 2000) for _ in range(repeat)) / 4096
    out.update({
        "request_latency_ns": per["read"]["latency_ns"],
        "request_read_bw": per["read"]["request_bw"], "request_write_bw": per["write"]["request_bw"],
        "queue_read_bw": per["read"]["shared_bw"], "queue_write_bw": per["write"]["shared_bw"],
        "request_cost_ns": max(0, int(1e9 / iops - 4096 * 1e9 / per["read"]["shared_bw"])),
        "rand4k_iops_together": int(iops), "threads": QUEUE_THREADS, "alone": per,
    })
    return out


def _q(xs: list, p: float) -> float:
    s = sorted(xs)
    return s[int((len(s) - 1) * p + 0.5)]


# --- the per-byte rate and the per-segment cost, apart (the segment pass) --------------------
# A request's time on a virtio disk grows with its segments, not only its bytes: virtblk_map_data()
# (drivers/block/virtio_blk.c, 6.18) maps each of the request's physically contiguous runs of
# memory (blk_rq_map_sg(), rq->nr_phys_segments) to a descriptor of its own, and the disk's backend
# serves the request descriptor by descriptor (lab/measurements/segment_cost.py). The sequential
# pass's 1 MiB reads into a buffer of 4 KiB pages carry one segment a page, so its read_bw holds
# both. The segment pass reads (and writes) the same sizes from a buffer of 4 KiB pages
# (MADV_NOHUGEPAGE) and from one of transparent huge pages (MADV_HUGEPAGE, 2 MiB aligned), counts
# each buffer's runs of physically contiguous frames (/proc/self/pagemap, root; else one a 4 KiB
# page and one a 2 MiB page), and solves t = L + bytes / rate + segments * cost for rate and cost
# from the two buffers' differences between the sizes (L, a request's fixed time, cancels out).
#
# GUP: bio_iov_iter_get_pages() (block/bio.c, 6.18) pins the user buffer with
# iov_iter_extract_pages() -> pin_user_pages_fast(): a reference a 4 KiB page's PTE
# (gup_fast_pte_range()), one a folio for a PMD-mapped huge page (gup_fast_pmd_leaf()), and
# bio_release_pages() unpins them at completion; bio_iov_add_folio() then merges a folio's pages
# into one bvec. So the 4 KiB buffer's per-page CPU (pin, unpin, bvec) is in the difference too,
# and the page cache's readahead, whose folios are the kernel's own (read_pages(), no GUP), does
# not pay it. The pass measures the submitting thread's CPU time beside the wall time
# (`cpu_ns_per_segment`: GUP pinning, bvec and sg building, virtqueue_add_sgs(); the completion's
# unpin runs in the interrupt, elsewhere): the part of `segment_cost_ns` that is the kernel's CPU
# and not the disk's. The engine's `segment_cost` is the device's time per segment
# (BlockDevice::segment_cost, HwQueue::segment_cost); `segment_cost_ns` is given to it whole when
# the CPU part is small beside it (it is: see vda-calibrate.json).
SEG_SIZES = (1 * MIB, 8 * MIB)
SEG_READS = 16   # requests a size, buffer and pass; the median kept
HUGE = 2 * MIB


def solve_segments(sizes, segs_page, segs_huge, t_page, t_huge) -> tuple:
    """(bytes/s, seconds a segment) from the median times of requests of two `sizes` (bytes)
    from a buffer of small pages (`segs_page` segments each) and a huge-page one (`segs_huge`):
    t = L + bytes / rate + segments * cost, L eliminated by the differences between the sizes.
    CalibrateError when the buffers do not differ in segments or the solve is not physical."""
    db = sizes[1] - sizes[0]
    dsp, dsh = segs_page[1] - segs_page[0], segs_huge[1] - segs_huge[0]
    dtp, dth = t_page[1] - t_page[0], t_huge[1] - t_huge[0]
    if db <= 0 or dsp - dsh <= 0:
        raise CalibrateError(f"segment pass: the buffers' segments do not differ ({segs_page} against {segs_huge}): "
                             "the huge-page buffer got no huge pages\n  fix: enable transparent huge pages "
                             "(/sys/kernel/mm/transparent_hugepage/enabled: madvise or always)")
    cost = (dtp - dth) / (dsp - dsh)
    per_byte = (dth - dsh * cost) / db
    if cost < 0 or per_byte <= 0:
        raise CalibrateError(f"segment pass: no positive rate and cost solve the times (4 KiB pages {t_page}, huge "
                             f"{t_huge} s): the disk was too busy to measure\n  fix: measure again on a quieter host")
    return 1.0 / per_byte, cost


def _pfn_runs(addr: int, n_pages: int, max_seg: int):
    """The buffer's segments: its runs of physically contiguous frames (pagemap; None when the
    frame numbers are hidden, not root), a run cut at the queue's max_segment_size."""
    import struct
    try:
        with open("/proc/self/pagemap", "rb") as f:
            f.seek((addr // 4096) * 8)
            raw = f.read(n_pages * 8)
    except OSError:
        return None
    pfns = [e & ((1 << 55) - 1) for e in struct.unpack(f"<{n_pages}Q", raw)]
    if not all(pfns):
        return None
    runs, length = [], 1
    for a, b in zip(pfns, pfns[1:]):
        if b == a + 1:
            length += 1
        else:
            runs.append(length)
            length = 1
    runs.append(length)
    per = max(1, max_seg // 4096)
    return runs, per


def _segments(runs_per, nbytes: int, fallback: int) -> int:
    if runs_per is None:
        return fallback
    runs, per = runs_per
    left, segs = nbytes // 4096, 0
    for r in runs:
        take = min(r, left)
        segs += -(-take // per)
        left -= take
        if left == 0:
            break
    return segs


def _anon_huge_kb(addr: int) -> int:
    """AnonHugePages (kB) of the mapping holding `addr` (/proc/self/smaps); 0 when unreadable."""
    try:
        with open("/proc/self/smaps") as f:
            inside = False
            for line in f:
                head = line.split(None, 1)[0]
                if "-" in head and not head.endswith(":"):
                    lo, hi = (int(x, 16) for x in head.split("-"))
                    inside = lo <= addr < hi
                elif inside and head == "AnonHugePages:":
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _seg_buffer(huge: bool):
    """An 8 MiB buffer, 2 MiB aligned, of huge pages or of 4 KiB ones, faulted in."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    m = mmap.mmap(-1, SEG_SIZES[1] + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    base = (addr + HUGE - 1) & ~(HUGE - 1)
    advice = 14 if huge else 15   # MADV_HUGEPAGE, MADV_NOHUGEPAGE
    if libc.madvise(ctypes.c_void_p(base), ctypes.c_size_t(SEG_SIZES[1]), advice) != 0:
        m.close()
        raise CalibrateError("segment pass: madvise(MADV_HUGEPAGE) failed: this kernel has no transparent huge pages\n"
                             "  fix: a kernel with CONFIG_TRANSPARENT_HUGEPAGE")
    mv = memoryview(m)[base - addr: base - addr + SEG_SIZES[1]]
    mv[::4096] = b"x" * len(mv[::4096])
    return m, mv, base


def _seg_times(fd: int, size: int, mv, write: bool) -> tuple:
    """Median wall and thread-CPU seconds of SEG_READS O_DIRECT requests of each SEG_SIZES."""
    walls, cpus = [], []
    slots = size // SEG_SIZES[1]
    for bs in SEG_SIZES:
        w, c = [], []
        for i in range(SEG_READS):
            off = ((i * 7) % slots) * SEG_SIZES[1]
            c0, t0 = time.thread_time_ns(), time.monotonic_ns()
            n = os.pwritev(fd, [mv[:bs]], off) if write else os.preadv(fd, [mv[:bs]], off)
            w.append((time.monotonic_ns() - t0) / 1e9)
            c.append((time.thread_time_ns() - c0) / 1e9)
            if n != bs:
                raise CalibrateError(f"segment pass: short {'write' if write else 'read'} at {off}")
        walls.append(statistics.median(w))
        cpus.append(statistics.median(c))
    return walls, cpus


def measure_segments(fd: int, size: int, repeat: int, dev: str) -> dict:
    """The segment pass (above): per pass and direction the solved rate and cost; their medians."""
    try:
        with open(f"/sys/block/{dev}/queue/max_segment_size") as f:
            max_seg = int(f.read())
    except (OSError, ValueError):
        max_seg = 65536   # BLK_MAX_SEGMENT_SIZE (include/linux/blkdev.h), the default
    bufs = {}
    try:
        for huge in (False, True):
            m, mv, base = _seg_buffer(huge)
            bufs[huge] = (m, mv)
            rp = _pfn_runs(base, SEG_SIZES[1] // 4096, max_seg)
            # frame numbers hidden: a huge page a 2 MiB segment only if smaps shows the buffer huge
            unit = HUGE if huge and _anon_huge_kb(base) * 1024 >= SEG_SIZES[1] else 4096
            bufs[huge] += ([_segments(rp, s, -(-s // unit)) for s in SEG_SIZES], rp is not None)
        passes = {"read": [], "write": []}
        for _ in range(repeat):
            for key in ("read", "write"):
                (wp, cp), (wh, ch) = (_seg_times(fd, size, bufs[h][1], key == "write") for h in (False, True))
                rate, cost = solve_segments(SEG_SIZES, bufs[False][2], bufs[True][2], wp, wh)
                dsp, dsh = (bufs[h][2][1] - bufs[h][2][0] for h in (False, True))
                cpu = ((cp[1] - cp[0]) - (ch[1] - ch[0])) / (dsp - dsh)
                passes[key].append({"rate": int(rate), "cost_ns": round(cost * 1e9, 1), "cpu_ns": round(cpu * 1e9, 1),
                                    "t_page_us": [round(x * 1e6, 1) for x in wp], "t_huge_us": [round(x * 1e6, 1) for x in wh]})
    finally:
        for b in bufs.values():
            b[1].release()
            b[0].close()
    r, w = passes["read"], passes["write"]
    return {
        "read_bw": int(statistics.median(p["rate"] for p in r)),
        "write_bw": int(statistics.median(p["rate"] for p in w)),
        "segment_cost_ns": round(statistics.median(p["cost_ns"] for p in r), 1),
        "write_segment_cost_ns": round(statistics.median(p["cost_ns"] for p in w), 1),
        "cpu_ns_per_segment": round(statistics.median(p["cpu_ns"] for p in r), 1),
        "sizes": list(SEG_SIZES), "segments_page": bufs[False][2], "segments_huge": bufs[True][2],
        "counted": "pagemap" if bufs[False][3] and bufs[True][3] else "assumed (frame numbers hidden: one a 4 KiB page, one a 2 MiB page)",
        "max_segment_size": max_seg, "passes": passes,
    }


def _measure_file(path: str, size: int, repeat: int, samples: int, queue_dev, throttle_fn, seg_dev=None) -> tuple:
    """Lay out `path` (O_DIRECT), measure the queue of `queue_dev` when given, then call
    `throttle_fn()` when given and measure the sequential, random and buffered passes, and the
    segment pass on `seg_dev` when given: (passes, queue figures, segment figures)."""
    buf = mmap.mmap(-1, MIB)
    buf.write(os.urandom(MIB))
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o600)
    try:
        # lay the file out once (ext4 allocates its extents), so the timed writes overwrite
        _seq(fd, size, True, buf)
        queue_figures = measure_queue(fd, size, repeat, queue_dev) if queue_dev else None
        if throttle_fn:
            throttle_fn()
        rng = random.Random(0)
        w, r, lat, br = [], [], [], []
        for _ in range(repeat):
            w.append(size / _seq(fd, size, True, buf))
            r.append(size / _seq(fd, size, False, buf))
            lat.append(_random_4k(fd, size, samples, rng))
            br.append(size / _buffered_read(path, size))
        seg = measure_segments(fd, size, repeat, seg_dev) if seg_dev else None
    finally:
        os.close(fd)
        buf.close()
    return (w, r, lat, br), queue_figures, seg


def _figures(passes, queue_figures, size, repeat, samples, ra_kb, throttle, disk, segment=None) -> dict:
    w, r, lat, br = passes
    read_bw, write_bw = statistics.median(r), statistics.median(w)
    p50 = statistics.median(_q(x, 0.5) for x in lat)
    if segment:
        # a 4 KiB read in the segment model: its byte at the rate and its one segment besides the seek
        segment["seek_ns"] = max(0, int(p50 * 1e9 - 4096 * 1e9 / segment["read_bw"] - segment["segment_cost_ns"]))
    return {
        "read_bw": int(read_bw), "write_bw": int(write_bw),
        "rand4k_p50_us": p50 * 1e6,
        "rand4k_p90_us": statistics.median(_q(x, 0.9) for x in lat) * 1e6,
        "rand4k_p99_us": statistics.median(_q(x, 0.99) for x in lat) * 1e6,
        "seek_ns": max(0, int(p50 * 1e9 - 4096 * 1e9 / read_bw)),
        "buffered_read_bw": int(statistics.median(br)),
        "passes": {"read_bw": [int(x) for x in r], "write_bw": [int(x) for x in w],
                   "rand4k_p50_us": [_q(x, 0.5) * 1e6 for x in lat], "buffered_read_bw": [int(x) for x in br]},
        "size": size, "repeat": repeat, "samples": samples, "read_ahead_kb": ra_kb,
        "throttle": {"read_bw": throttle[0], "write_bw": throttle[1]} if throttle else None,
        "disk": disk,
        "queue": queue_figures,
        "segment": segment,
        "kernel": platform.release(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def measure_dir(size: int, repeat: int, samples: int, directory: str, queue: bool = False) -> dict:
    """Measure the disk beneath `directory`'s own file system with a scratch file there (`--dir`):
    no loop device, no throttle rule; the file is removed on every exit path."""
    dev = block_device_of(directory)
    try:
        with open(f"/sys/block/{dev}/queue/read_ahead_kb") as f:
            ra_kb = int(f.read())
    except (OSError, ValueError):
        raise CalibrateError(f"--dir {directory}: error: /sys/block/{dev}/queue/read_ahead_kb could not be read\n"
                             "  fix: give a directory on a disk's file system, e.g. /var/tmp") from None
    st = os.statvfs(directory)
    if st.f_bavail * st.f_frsize < size + 256 * MIB:
        raise CalibrateError(f"--dir {directory}: error: less than --size plus 256M free there\n  fix: a smaller --size or another directory")
    path = os.path.join(directory, f"memtwin-calibrate.{os.getpid()}.dat")
    old = {}

    def on_signal(signum, _frame):
        raise real.Interrupted(f"interrupted by {signal.Signals(signum).name}; the scratch file was removed")

    for s in (signal.SIGINT, signal.SIGTERM):
        old[s] = signal.signal(s, on_signal)
    try:
        passes, qf, seg = _measure_file(path, size, repeat, samples, dev if queue else None, None, dev)
    finally:
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        for s, h in old.items():
            signal.signal(s, h)
    return _figures(passes, qf, size, repeat, samples, ra_kb, None,
                    f"{dev} beneath {os.path.abspath(directory)} (its own file system, no loop device)", seg)


def measure(size: int, repeat: int, samples: int, ra_kb: int, throttle, scratch_parent: str, queue: bool = False) -> dict:
    """Set up the host runner's disk, measure it, remove everything; the figures."""
    plan = {"mounts": [], "devices": [], "files": [], "tasks": [], "cgroups": []}
    run = real.HostRun(plan, scratch_parent)
    old = {}

    def on_signal(signum, _frame):
        raise real.Interrupted(f"interrupted by {signal.Signals(signum).name}; everything calibrate made was removed")

    for s in (signal.SIGINT, signal.SIGTERM):
        old[s] = signal.signal(s, on_signal)
    try:
        os.mkdir(run.scratch, 0o700)
        run.made_scratch = True
        leftovers.write_owner(run.scratch, "host", image=os.path.join(run.scratch, "disk.img"),
                              mount=os.path.join(run.scratch, "mnt"))
        run._disk(size, ra_kb)
        path = os.path.join(run.scratch, "mnt", "calibrate.dat")
        thr = (lambda: run._throttle({"read_bw": throttle[0], "write_bw": throttle[1]})) if throttle else None
        passes, qf, _ = _measure_file(path, size, repeat, samples, run.loop if queue else None, thr)
        return _figures(passes, qf, size, repeat, samples, ra_kb, throttle,
                        f"ext4 image on a loop device (direct I/O) in {scratch_parent}")
    finally:
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        left = run.cleanup()
        for s, h in old.items():
            signal.signal(s, h)
        if left:
            print("memtwin calibrate: could not remove: " + "; ".join(left), file=sys.stderr)


def device_table(name: str, f: dict) -> str:
    """The [devices.NAME] table of the figures, what they are in comments."""
    thr = f["throttle"]
    how = ("throttled to read " + str(thr["read_bw"]) + " B/s, write " + str(thr["write_bw"]) + " B/s") if thr else "unthrottled"
    q = f.get("queue")
    if q:
        return _queue_table(name, f, how, q)
    return (f"# memtwin calibrate --on host, {f['date']}, kernel {f['kernel']}: {f['disk']}, {how};\n"
            f"# O_DIRECT, {f['size'] >> 20} MiB file, median of {f['repeat']} passes: sequential 1 MiB reads "
            f"{f['read_bw'] / 1e6:.0f} MB/s, writes {f['write_bw'] / 1e6:.0f} MB/s;\n"
            f"# random 4 KiB reads p50 {f['rand4k_p50_us']:.0f} us, p90 {f['rand4k_p90_us']:.0f} us, "
            f"p99 {f['rand4k_p99_us']:.0f} us (seek = p50 minus 4 KiB at read_bw);\n"
            f"# buffered cold read (read_ahead_kb {f['read_ahead_kb']}): {f['buffered_read_bw'] / 1e6:.0f} MB/s\n"
            + _segment_table(name, f))


def _segment_table(name: str, f: dict) -> str:
    """The [devices] keys of the sequential pass, or with the segment pass (`--dir`) its rates,
    seek and segment_cost (the sequential pass's figures then stay in the comment above)."""
    s = f.get("segment")
    if not s:
        return (f"[devices.{name}]\nread_bw = {f['read_bw']}\nwrite_bw = {f['write_bw']}\n"
                f"seek = \"{f['seek_ns'] / 1000:.0f}us\"\nread_ahead_kb = {f['read_ahead_kb']}\n")
    return (f"# segment pass: {s['sizes'][0] >> 20} and {s['sizes'][1] >> 20} MiB O_DIRECT requests from 4 KiB pages "
            f"({s['segments_page']} segments) and huge pages ({s['segments_huge']}): reads {s['read_bw'] / 1e6:.0f} MB/s "
            f"plus {s['segment_cost_ns']:.0f} ns a segment (the submitting CPU's part {s['cpu_ns_per_segment']:.0f} ns), "
            f"writes {s['write_bw'] / 1e6:.0f} MB/s\n"
            f"[devices.{name}]\nread_bw = {s['read_bw']}\nwrite_bw = {s['write_bw']}\n"
            f"seek = \"{s['seek_ns'] / 1000:.0f}us\"\nsegment_cost = \"{s['segment_cost_ns']:.0f}ns\"\n"
            f"read_ahead_kb = {f['read_ahead_kb']}\n")


def _queue_table(name: str, f: dict, how: str, q: dict) -> str:
    """The table of a device with its own queue (`--queue`): the shared bandwidths are the
    device's read_bw/write_bw, or queue_read_bw/queue_write_bw under the throttle's rules."""
    thr = f["throttle"]
    a = q["alone"]
    head = (f"# memtwin calibrate --on host --queue, {f['date']}, kernel {f['kernel']}: {f['disk']}, {how};\n"
            f"# O_DIRECT, {f['size'] >> 20} MiB file, median of {f['repeat']} passes, before any throttle rule: one request alone "
            f"64 KiB {a['read']['t64_us']:.0f} us, 1 MiB {a['read']['t1m_us']:.0f} us (reads), "
            f"{a['write']['t64_us']:.0f} / {a['write']['t1m_us']:.0f} us (writes);\n"
            f"# {q['threads']} requests of 1 MiB in flight: reads {q['queue_read_bw'] / 1e6:.0f} MB/s, writes {q['queue_write_bw'] / 1e6:.0f} MB/s; "
            f"4 KiB random reads {q['threads']} at once: {q['rand4k_iops_together']} a second;\n"
            f"# (with the rules: sequential 1 MiB reads {f['read_bw'] / 1e6:.0f} MB/s, writes {f['write_bw'] / 1e6:.0f} MB/s, "
            f"random 4 KiB p50 {f['rand4k_p50_us']:.0f} us; buffered cold read {f['buffered_read_bw'] / 1e6:.0f} MB/s)\n")
    keys = (f"queue_depth = {q['queue_depth']}\nrequest_latency = \"{q['request_latency_ns'] / 1000:.0f}us\"\n"
            f"request_read_bw = {q['request_read_bw']}\nrequest_write_bw = {q['request_write_bw']}\n"
            f"request_cost = \"{q['request_cost_ns'] / 1000:.1f}us\"\n"
            + (f"max_sectors_kb = {q['max_sectors_kb']}\n" if q.get("max_sectors_kb") else ""))
    if thr:
        bws = (f"read_bw = {thr['read_bw']}\nwrite_bw = {thr['write_bw']}\nblk_throttle = true\n"
               f"queue_read_bw = {q['queue_read_bw']}\nqueue_write_bw = {q['queue_write_bw']}\n")
    else:
        bws = f"read_bw = {q['queue_read_bw']}\nwrite_bw = {q['queue_write_bw']}\n"
    return head + f"[devices.{name}]\n" + bws + keys + f"read_ahead_kb = {f['read_ahead_kb']}\n"


# --- the wake-up pass (wake23, issue 23) -------------------------------------------------------------
#
# What a task woken onto an idle CPU waits before it runs, as /proc/PID/schedstat's run_delay counts it
# (kernel/sched/stats.h, 6.18: `sched_info_enqueue()` stamps `last_queued = rq_clock(rq)` at the enqueue,
# `sched_info_arrive()` adds `rq_clock(rq) - last_queued` at the switch-in). Two wake-ups, each of a task
# pinned to one CPU that was idle (its cpuidle states entered while the task slept: the `usage` counters of
# /sys/devices/system/cpu/cpuN/cpuidle/state*/usage grew, and their `time` by at least IDLE_THROUGH of the
# time the task was off its CPU), and only those counted:
# - by a pipe written from the other CPU: `try_to_wake_up()` -> `ttwu_queue()` -> `ttwu_queue_wakelist()`
#   (kernel/sched/core.c, 6.18: `ttwu_queue_cond()` is true for a CPU with `nr_running` 0) queues the wakee
#   on the idle CPU's wake list and sends the IPI; the idle CPU enqueues it itself in
#   `sched_ttwu_pending()` once it left idle (HLT here, a KVM guest), so the IPI and the exit from idle
#   come before `last_queued`;
# - by its own timer (`hrtimer_nanosleep()`): `hrtimer_wakeup()` -> `try_to_wake_up()` on the CPU whose
#   interrupt ended its idle (`ttwu_queue_cond()` false for the local CPU: `ttwu_do_activate()` at once).
# Either way `ttwu_do_activate()` -> `wakeup_preempt()` preempts the idle task and, "a queue event has
# occurred, and we're going to schedule", calls `rq_clock_skip_update()`: `__schedule()` does not move
# the run queue's clock again, so `sched_info_arrive()` reads the clock `last_queued` was stamped with
# and the wake-up adds exactly 0 (6.1's `check_preempt_curr()` has the same skip). A switch-in with a
# run_delay is one that waited for another entity on its CPU. The pass prints the quantiles and the mean
# per kind and sleep; the machine is shared with the other helpers' builds, whose tasks woken onto the
# same CPU at the same time are in the mean (not in the median).

def _wakeup_gaps(s: str) -> list:
    try:
        gaps = [int(x) for x in s.split(",")]
    except ValueError:
        raise CalibrateError(f"--wakeup-gaps {s}: error: not a list of whole microseconds\n  fix: e.g. --wakeup-gaps 100,500,1000") from None
    if not gaps or any(g < 10 or g > 100_000 for g in gaps):
        raise CalibrateError(f"--wakeup-gaps {s}: error: each sleep must be 10-100000 us\n  fix: e.g. --wakeup-gaps 100,500,1000")
    return gaps


def _schedstat() -> tuple:
    """(run_delay ns, switch-ins) of the calling thread (/proc/thread-self/schedstat)."""
    with open("/proc/thread-self/schedstat") as f:
        a = f.read().split()
    return int(a[1]), int(a[2])


def _idle_usage(cpu: int) -> tuple:
    """How many times CPU `cpu` entered any cpuidle state and its time in them (us); (0, 0) where it has
    no cpuidle driver."""
    d = f"/sys/devices/system/cpu/cpu{cpu}/cpuidle"
    n = t = 0
    try:
        for st in os.listdir(d):
            if st.startswith("state"):
                with open(os.path.join(d, st, "usage")) as f:
                    n += int(f.read())
                with open(os.path.join(d, st, "time")) as f:
                    t += int(f.read())
    except OSError:
        return 0, 0
    return n, t


# A wake-up counts as one onto an idle CPU when the CPU was idle for at least this share of the time
# the task was off it (the sleep): on a shared machine a CPU that idled once during the sleep may run
# another task at the wake-up. 0.75 is a classification choice (where "idle through the sleep" is drawn),
# not a measured figure: no recording or microbenchmark set it (review16 L5).
IDLE_THROUGH = 0.75


def _wake_samples(cpu: int, other: int, gap_us: int, n: int, kind: str) -> list:
    """run_delay (ns) of each switch-in of a task pinned to `cpu` after a wake-up that found `cpu` idle:
    `kind` "pipe": woken by a write from a task pinned to `other` every `gap_us`; "timer": its own
    nanosleep(`gap_us`)."""
    out = []
    if kind == "pipe":
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.sched_setaffinity(0, {other})
                os.close(r)
                time.sleep(0.02)
                for _ in range(n):
                    time.sleep(gap_us / 1e6)
                    os.write(w, b"x")
            finally:
                os._exit(0)
        os.close(w)
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        d, c = _schedstat()
        (u, it), t0 = _idle_usage(cpu), time.perf_counter_ns()
        for _ in range(n):
            if kind == "pipe":
                os.read(r, 1)
            else:
                time.sleep(gap_us / 1e6)
            d2, c2 = _schedstat()
            (u2, it2), t1 = _idle_usage(cpu), time.perf_counter_ns()
            off = t1 - t0 - (d2 - d)
            if c2 > c and u2 > u and (it2 - it) * 1000 >= IDLE_THROUGH * off:
                # it slept, its CPU idled through most of the sleep, and it was switched in: one wake-up
                # onto an idle CPU
                out.append(d2 - d)
            d, c = _schedstat()
            (u, it), t0 = _idle_usage(cpu), time.perf_counter_ns()
    finally:
        os.sched_setaffinity(0, old)
        if kind == "pipe":
            os.close(r)
            os.waitpid(pid, 0)
    return out


def measure_wakeup(gaps: list, n: int) -> dict:
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise CalibrateError("memtwin calibrate --wakeup: error: needs two CPUs this process may run on (it wakes a task "
                             "on one from the other)\n  fix: run it where sched_getaffinity() gives two or more CPUs")
    if not os.path.exists("/proc/thread-self/schedstat"):
        raise CalibrateError("memtwin calibrate --wakeup: error: /proc/thread-self/schedstat is missing (a kernel without "
                             "CONFIG_SCHED_INFO)\n  fix: run it on a kernel with schedstat")
    if _idle_usage(cpus[0])[0] == 0:
        raise CalibrateError(f"memtwin calibrate --wakeup: error: CPU {cpus[0]} has no cpuidle counters "
                             f"(/sys/devices/system/cpu/cpu{cpus[0]}/cpuidle), so an idle CPU cannot be told apart\n"
                             "  fix: run it on a kernel with a cpuidle driver (CONFIG_CPU_IDLE)")
    with open("/proc/loadavg") as f:
        load0 = " ".join(f.read().split()[:3])
    rows, pooled = [], []
    for kind in ("pipe", "timer"):
        for g in gaps:
            xs = []
            for a, b in ((cpus[0], cpus[1]), (cpus[1], cpus[0])):
                xs += _wake_samples(a, b, g, n // 2, kind)
            pooled += xs
            rows.append({"kind": kind, "gap_us": g, "wakeups": len(xs), "median_ns": _q(xs, 0.5) if xs else None,
                         "p90_ns": _q(xs, 0.9) if xs else None, "mean_ns": round(statistics.mean(xs)) if xs else None,
                         "zero_share": sum(1 for x in xs if x == 0) / len(xs) if xs else None})
    with open("/proc/loadavg") as f:
        load1 = " ".join(f.read().split()[:3])
    if not pooled:
        raise CalibrateError("memtwin calibrate --wakeup: error: no wake-up found its CPU idle (the machine is busy)\n"
                             "  fix: run it when the CPUs have idle time")
    return {"kernel": platform.release(), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "loadavg": [load0, load1], "cpus": cpus[:2], "rows": rows, "wakeups": len(pooled),
            "median_ns": round(_q(pooled, 0.5)), "mean_ns": round(statistics.mean(pooled)),
            "zero_share": sum(1 for x in pooled if x == 0) / len(pooled)}


def wakeup_report(f: dict) -> str:
    """The text of a --wakeup measurement (comment lines: the figures, the command and the load)."""
    lines = [f"# memtwin calibrate --wakeup, {f['date']}, kernel {f['kernel']}, CPUs {f['cpus'][0]} and {f['cpus'][1]}, "
             f"loadavg {f['loadavg'][0]} -> {f['loadavg'][1]}",
             "# run_delay (/proc/thread-self/schedstat) per switch-in of a task woken onto an idle CPU (idle for at least",
             f"# {IDLE_THROUGH:.0%} of the sleep, cpuidle): by a pipe from the other CPU (the wake list, ttwu_queue_wakelist()) and by",
             "# its own timer (hrtimer_wakeup(), a local ttwu_do_activate())"]
    for r in f["rows"]:
        if r["wakeups"]:
            lines.append(f"#   {r['kind']:5} every {r['gap_us']:>6} us: {r['wakeups']:5} wake-ups, median {r['median_ns'] / 1e3:.2f} us, "
                         f"p90 {r['p90_ns'] / 1e3:.2f} us, mean {r['mean_ns'] / 1e3:.2f} us, exactly 0 at {r['zero_share']:.0%}")
        else:
            lines.append(f"#   {r['kind']:5} every {r['gap_us']:>6} us: no wake-up found its CPU idle")
    lines.append(f"# all {f['wakeups']}: median {f['median_ns'] / 1e3:.2f} us, mean {f['mean_ns'] / 1e3:.2f} us, exactly 0 at "
                 f"{f['zero_share']:.0%} (the wake-up preempts the idle task: rq_clock_skip_update(), no clock update "
                 "before the switch-in)")
    return "\n".join(lines) + "\n"


# The options only the disk measurement reads, and the ones only --wakeup reads (argument, attribute).
DISK_ONLY = (("--size", "size"), ("--repeat", "repeat"), ("--samples", "samples"), ("--read-ahead-kb", "read_ahead_kb"),
             ("--throttle", "throttle"), ("--queue", "queue"), ("--dir", "dir"), ("--device", "device"),
             ("--scratch", "scratch"))
WAKEUP_ONLY = (("--wakeup-gaps", "wakeup_gaps"), ("--wakeup-samples", "wakeup_samples"))


def _given(a, attr) -> bool:
    v = getattr(a, attr, None)
    return v is not None and v is not False


def _check_mode(a) -> None:
    """Refuse an option the chosen measurement would not read (review16 M1): a wake-up option without
    --wakeup (the disk calibration would run instead), a disk option with --wakeup (it would be ignored)."""
    if getattr(a, "wakeup", False):
        bad = [arg for arg, attr in DISK_ONLY if _given(a, attr)]
        if bad:
            raise CalibrateError(f"memtwin calibrate --wakeup {' '.join(bad)}: error: {', '.join(bad)} "
                                 f"{'is an option' if len(bad) == 1 else 'are options'} of the disk measurement; --wakeup "
                                 "measures no disk\n  fix: leave out " + " ".join(bad) + " (or --wakeup)")
    else:
        bad = [arg for arg, attr in WAKEUP_ONLY if _given(a, attr)]
        if bad:
            raise CalibrateError(f"memtwin calibrate {' '.join(bad)}: error: {', '.join(bad)} only "
                                 f"{'sets' if len(bad) == 1 else 'set'} the wake-up measurement, which needs --wakeup "
                                 "(without it the disk calibration would run)\n  fix: add --wakeup (or leave out "
                                 + " ".join(bad) + ")")


def _emit(a, text: str, figures) -> None:
    """Print the report and write --out (the text) and --json (the figures), each whole or not at all
    (a .tmp file renamed over the target)."""
    print(text, end="")
    if a.out:
        with open(a.out + ".tmp", "w") as fh:
            fh.write(text)
        os.rename(a.out + ".tmp", a.out)
    if a.json:
        with open(a.json + ".tmp", "w") as fh:
            json.dump(figures, fh, indent=1)
        os.rename(a.json + ".tmp", a.json)


def main_wakeup(a) -> int:
    try:
        _check_mode(a)
        gaps = _wakeup_gaps("500,1000,2000" if a.wakeup_gaps is None else a.wakeup_gaps)
        if a.wakeup_samples is None:
            a.wakeup_samples = 1000
        if a.wakeup_samples < 2:
            raise CalibrateError(f"--wakeup-samples {a.wakeup_samples}: error: must be at least 2 (half on each CPU)\n"
                                 "  fix: e.g. --wakeup-samples 1000")
        for p in (a.out, a.json):
            if p and not os.path.isdir(os.path.dirname(os.path.abspath(p))):
                raise CalibrateError(f"{p}: error: its directory does not exist\n  fix: create it or give another path")
        f = measure_wakeup(gaps, a.wakeup_samples)
    except CalibrateError as e:
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memtwin calibrate: interrupted", file=sys.stderr)
        return 130
    text = wakeup_report(f)
    _emit(a, text, f)
    return 0


def main(a) -> int:
    if getattr(a, "wakeup", False):
        return main_wakeup(a)
    try:
        _check_mode(a)
        for attr, default in (("size", "512M"), ("repeat", 3), ("samples", 2000), ("device", "sda")):
            if getattr(a, attr) is None:
                setattr(a, attr, default)
        if a.dir and a.scratch is not None:
            raise CalibrateError(f"--dir {a.dir} --scratch {a.scratch}: error: --dir writes its scratch file in DIR, on the "
                                 "disk it measures; --scratch is where the loop device's image goes without --dir\n"
                                 "  fix: leave out --scratch (or --dir)")
        if not a.dir and os.geteuid() != 0:
            # --dir needs no root: an O_DIRECT file in DIR, posix_fadvise and /sys reads.
            raise CalibrateError("memtwin calibrate: error: must run as root (it makes a loop device and a mount)\n"
                                 "  fix: run it with sudo, or measure the disk beneath a directory you can write "
                                 "with --dir DIR (no root needed)")
        try:
            size = parse_size(a.size)
        except Exception:  # noqa: BLE001 - parse_size's own error names --limit
            raise CalibrateError(f"--size {a.size}: error: not a size\n  fix: give a size such as 512M") from None
        if size < 16 * MIB or size % MIB:
            raise CalibrateError(f"--size {a.size}: error: give a whole number of MiB, at least 16M\n  fix: e.g. --size 512M")
        if a.repeat < 1 or a.samples < 1:
            raise CalibrateError("--repeat and --samples must be at least 1\n  fix: e.g. --repeat 3 --samples 2000")
        thr = _throttle_arg(a.throttle) if a.throttle else None
        for p in (a.out, a.json):
            if p and not os.path.isdir(os.path.dirname(os.path.abspath(p))):
                raise CalibrateError(f"{p}: error: its directory does not exist\n  fix: create it or give another path")
        if a.dir:
            if thr:
                raise CalibrateError(f"--dir {a.dir} --throttle: error: --dir measures the disk beneath DIR as it is, with no "
                                     "throttle rule\n  fix: leave out --throttle (or --dir)")
            if a.read_ahead_kb is not None:
                raise CalibrateError(f"--dir {a.dir} --read-ahead-kb: error: --dir keeps the device's own read_ahead_kb\n"
                                     "  fix: leave out --read-ahead-kb")
            if not os.path.exists(a.dir):
                raise CalibrateError(f"--dir {a.dir}: error: no such directory\n  fix: give a directory on the disk to measure, e.g. /var/tmp")
            if not os.path.isdir(a.dir):
                raise CalibrateError(f"--dir {a.dir}: error: not a directory\n  fix: give the directory it is in "
                                     f"({os.path.dirname(os.path.abspath(a.dir))}) or another directory on the disk to measure")
            if not os.access(a.dir, os.W_OK | os.X_OK):
                raise CalibrateError(f"--dir {a.dir}: error: not writable by this user (the scratch file goes there)\n"
                                     "  fix: give a directory you can write on the disk to measure, or run it with sudo")
            f = measure_dir(size, a.repeat, a.samples, a.dir, a.queue)
        else:
            f = measure(size, a.repeat, a.samples, 128 if a.read_ahead_kb is None else a.read_ahead_kb, thr,
                        "/var/tmp" if a.scratch is None else a.scratch, a.queue)
    except real.Interrupted as e:
        print(f"memtwin calibrate: {e}", file=sys.stderr)
        return 130
    except (CalibrateError, real.RealError) as e:
        print(str(e), file=sys.stderr)
        return 2
    text = device_table(a.device, f)
    _emit(a, text, f)
    return 0
