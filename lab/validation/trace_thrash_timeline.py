#!/usr/bin/env python3
"""Record a timestamped timeline of a host run's read path: readahead decisions, page-cache
additions and deletions, memcg reclaim, the loop device's reads and the reader's scheduling
(lab/validation/large-folios.md, "Why the kernel thrashes more than the twin").

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_thrash_timeline.py SCENARIO \\
        [--ms N] [--raw FILE] [--json FILE] [--out FILE]

Runs `memtwin real SCENARIO --on host` (root, this host's 6.x kernel with the readahead
tracepoints of 6.14+) while a tracefs instance of its own records, for loop devices (`s_dev` /
`dev` major 7): filemap:mm_filemap_add_to_page_cache / _delete_from_page_cache /
mm_filemap_get_pages, readahead:page_cache_sync_ra / _async_ra / _ra_order / _ra_unbounded,
block:block_bio_queue / block_rq_issue / block_rq_complete; and, for every task, vmscan:mm_vmscan_memcg_reclaim_begin / _end and
sched:sched_switch of tasks named python3 (the runner's tasks). The timeline starts at the first
page_cache_sync_ra of the scenario's reader (the last task to miss: the runner's host-cost
calibration, hostcal21, reads files first; ra_cycles.reader_pid()), in
milliseconds: runs of additions or deletions of one order over contiguous indices, the reader's
reads as page ranges (mm_filemap_get_pages), readahead calls, the bios submitted to the loop
device (KiB; blk-throttle may hold a bio before its requests are issued) and its requests as runs
of issues and completions (how many, KiB, and for completions how long after their issue), reclaim
calls (duration, pages reclaimed) and the reader's switches off the CPU (state R: preempted,
D: waiting) with how long it stayed off. A scenario of one step keeps the trace short. The
instance and its tracefs mount are removed whatever happens (SIGINT, SIGTERM, a failing run).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import tracefs_instance  # noqa: E402
from ra_cycles import reader_pid  # noqa: E402

LOOP = f"s_dev >= {7 << 20} && s_dev < {8 << 20}"
BLK = f"dev >= {7 << 20} && dev < {8 << 20}"
EVENTS = {
    "filemap/mm_filemap_add_to_page_cache": LOOP, "filemap/mm_filemap_delete_from_page_cache": LOOP,
    "filemap/mm_filemap_get_pages": LOOP,
    "readahead/page_cache_sync_ra": LOOP, "readahead/page_cache_async_ra": LOOP,
    "readahead/page_cache_ra_order": LOOP, "readahead/page_cache_ra_unbounded": LOOP,
    "block/block_bio_queue": BLK, "block/block_rq_issue": BLK, "block/block_rq_complete": BLK,
    "vmscan/mm_vmscan_memcg_reclaim_begin": None, "vmscan/mm_vmscan_memcg_reclaim_end": None,
    "sched/sched_switch": 'prev_comm == "python3" || next_comm == "python3"',
}
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def record(scenario: str, work: str, raw: str, result: str) -> None:
    """Run the scenario on the host with the instance recording into `raw`; the runner's result (its
    steps and the run's host costs, the inputs a twin run of the traced run needs) goes to `result`."""
    with tracefs_instance.recording(work, "memtwin-timeline", EVENTS, raw, 131072, tool="trace_thrash_timeline",
                                    hint="6.14+ has them all") as inst:
        r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host",
                            "--json", result],
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
        if r.returncode != 0:
            sys.exit(f"trace_thrash_timeline: memtwin real failed (exit {r.returncode})")
        lost = tracefs_instance.events_lost(inst)
        if lost:
            sys.exit(f"trace_thrash_timeline: {lost} events lost (the ring buffers overran); use a shorter scenario")


def timeline(raw: str, ms: float) -> list:
    """The timeline's lines (see the module's docstring) up to `ms` after its start."""
    out, cur = [], None
    t0 = pid = ino = None
    reclaim = off = None
    issued = {}  # sector -> issue time (ms)
    # the scenario's reader: the last task to miss (ra_cycles.reader_pid(); since hostcal21 the runner's
    # host-cost calibration reads files first, in the same trace)
    reader = reader_pid(raw)

    def flush():
        nonlocal cur
        if cur and cur[1] in ("issued", "completed"):
            t, kind, nreq, kib, lo, hi = cur
            lat = f", {lo:.3f}-{hi:.3f} ms after issue" if kind == "completed" and lo is not None else ""
            out.append(f"{t:9.3f} device {kind} {nreq} requests, {kib} KiB{lat}")
            cur = None
        elif cur:
            t, kind, a, b, order, n = cur
            out.append(f"{t:9.3f} {'READ pages' if kind == 'read' else kind} [{a},{b})"
                       + (f" order {order} x{n}" if kind != "read" else f" in {n} reads"))
            cur = None

    with open(raw, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, p, ts, ev, rest = m.groups()
            if t0 is None:
                if ev != "page_cache_sync_ra" or p != reader:
                    continue
                t0, pid = float(ts), p
                ino = re.search(r"ino=(\w+)", rest).group(1)
            t = (float(ts) - t0) * 1000
            if t > ms:
                break
            if ev in ("mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache"):
                g = re.search(r"ino (\w+) pfn=\S+ ofs=(\d+) order=(\d+)", rest)
                if g.group(1) != ino:
                    continue
                idx, order = int(g.group(2)) >> 12, int(g.group(3))
                kind = "add" if "add" in ev else "del"
                if cur and cur[1] == kind and cur[4] == order and cur[3] == idx:
                    cur[3] += 1 << order
                    cur[5] += 1
                    continue
                flush()
                cur = [t, kind, idx, idx + (1 << order), order, 1]
            elif ev == "mm_filemap_get_pages":
                if p != pid:
                    continue
                g = re.search(r"ofs=(\d+)-(\d+)", rest)
                a, b = int(g.group(1)) >> 12, (int(g.group(2)) + 1) >> 12
                if cur and cur[1] == "read" and cur[2] <= a <= cur[3]:
                    cur[3] = max(cur[3], b)
                    cur[5] += 1
                    continue
                flush()
                cur = [t, "read", a, b, 0, 1]
            elif ev == "sched_switch":
                if f"prev_pid={pid} " in rest:
                    off = (t, re.search(r"prev_state=(\S+)", rest).group(1))
                elif f"next_pid={pid} " in rest and off:
                    if t - off[0] >= 1.0:  # only the long ones
                        flush()
                        out.append(f"{off[0]:9.3f} reader off the CPU ({off[1]}) for {t - off[0]:.3f} ms")
                    off = None
            elif ev.startswith("mm_vmscan_memcg_reclaim"):
                if p != pid:
                    continue
                if ev.endswith("begin"):
                    reclaim = t
                elif reclaim is not None:
                    n = re.search(r"nr_reclaimed=(\d+)", rest).group(1)
                    if n == "0" or t - reclaim >= 1.0:
                        flush()
                        out.append(f"{reclaim:9.3f} memcg reclaim for {t - reclaim:.3f} ms: {n} pages reclaimed")
                    reclaim = None
            elif ev == "block_bio_queue":
                g = re.search(r"\d+ \+ (\d+)", rest)
                if g:
                    flush()
                    out.append(f"{t:9.3f} bio submitted, {int(g.group(1)) // 2} KiB")
            elif ev in ("block_rq_issue", "block_rq_complete"):
                # The sector ranges are the image's, not the file's: only sizes and times shown.
                g = re.search(r"(\d+) \+ (\d+)", rest)
                if not g:
                    continue
                sector, kib = int(g.group(1)), int(g.group(2)) // 2
                kind = "issued" if ev == "block_rq_issue" else "completed"
                lat = None
                if kind == "issued":
                    issued[sector] = t
                elif sector in issued:
                    lat = t - issued.pop(sector)
                if cur and cur[1] == kind:
                    cur[2] += 1
                    cur[3] += kib
                    if lat is not None:
                        cur[4] = lat if cur[4] is None else min(cur[4], lat)
                        cur[5] = lat if cur[5] is None else max(cur[5], lat)
                    continue
                flush()
                cur = [t, kind, 1, kib, lat, lat]
            else:
                flush()
                out.append(f"{t:9.3f} {ev}: " + re.sub(r"dev=\S+ ino=\w+ ", "", rest))
    flush()
    if t0 is None:
        sys.exit("trace_thrash_timeline: no page_cache_sync_ra in the trace (did the run read a file?)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--ms", type=float, default=200.0, help="how many milliseconds of the timeline to write (default 200)")
    ap.add_argument("--raw", help="also keep the raw trace in FILE")
    ap.add_argument("--json", help="also keep the runner's result (steps, host costs) in FILE (bias55: the twin at the traced run's own inputs)")
    ap.add_argument("--out", help="output file (default: stdout)")
    a = ap.parse_args()
    if not a.ms > 0:
        sys.exit(f"trace_thrash_timeline: --ms {a.ms}: give a positive number of milliseconds")
    if os.geteuid() != 0:
        sys.exit("trace_thrash_timeline: run it as root (it runs memtwin real --on host and makes a trace instance)")
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_thrash_timeline: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-timeline-") as work:
        raw = a.raw or os.path.join(work, "trace.txt")
        record(os.path.abspath(a.scenario), work, raw, os.path.abspath(a.json) if a.json else os.path.join(work, "result.json"))
        lines = timeline(raw, a.ms)
    out = open(a.out, "w") if a.out else sys.stdout
    out.write(f"# {a.scenario}: the first {a.ms:g} ms from the first read miss (lab/validation/trace_thrash_timeline.py)\n")
    out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
