#!/usr/bin/env python3
"""What the page cache of one file did while a real program ran in a tight memcg: the
readahead calls and the folios added and deleted, by order (issue 18's trace validation,
README "Users' own workloads": why cat@12M, sqlite3@10M and sqlite3-mmap@10M read more than the
file).

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_program_folios.py FILE \\
        --limit SIZE [--trace T.mtt] [--raw OUT] -- CMD [ARGS...]

Runs `memtwin measure --limit SIZE [--trace T] -- CMD` (root; cold cache for the files the
trace names, else for FILE) while a tracefs instance of its own records, for FILE's inode only:
filemap:mm_filemap_add_to_page_cache / _delete_from_page_cache (index and order),
filemap:mm_filemap_fault (the faults that reached filemap_fault(): the others were mapped by
fault-around), readahead:page_cache_sync_ra / _async_ra / _ra_order / _ra_unbounded; and for
FILE's block device block:block_rq_issue / _complete (its reads' bytes, latency and the
bytes per second of time with a read in flight: the device the twin's replay models). Prints
as JSON: the measurement's read_bytes and major faults, pages added by order, pages deleted,
how many added pages had been added and deleted before (read again), how many were deleted
before the program touched them (`pages_deleted_untouched`: no read, mm_filemap_get_pages, and
no fault reaching filemap_fault() covered them since they were added; fault-around maps pages
without an event, so for a mapped file it counts pages fault-around used too), the readahead calls counted by kind, and the first N events as a
timeline, all from the program's first miss (measure's cache drop before it is left out).
The instance and its tracefs mount are removed on every exit path.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import tracefs_instance  # noqa: E402

EVENTS = ["filemap/mm_filemap_add_to_page_cache", "filemap/mm_filemap_delete_from_page_cache",
          "filemap/mm_filemap_fault", "filemap/mm_filemap_get_pages",
          "readahead/page_cache_sync_ra", "readahead/page_cache_async_ra",
          "readahead/page_cache_ra_order", "readahead/page_cache_ra_unbounded"]
BLOCK = ["block/block_rq_issue", "block/block_rq_complete"]  # the file's device, every request
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def record(path: str, cmd: list, limit: str, trace: str | None, work: str, raw: str) -> dict:
    st = os.stat(path)
    # The kernel's dev_t is major << 20 | minor; stat's is glibc's encoding.
    kdev = (os.major(st.st_dev) << 20) | os.minor(st.st_dev)
    flt = f"s_dev == {kdev} && i_ino == {st.st_ino}"
    events = {ev: (flt if ev in EVENTS else f"dev == {kdev}") for ev in EVENTS + BLOCK}
    with tracefs_instance.recording(work, "memtwin-progfolios", events, raw, 131072, tool="trace_program_folios",
                                    hint="6.14+ has them all") as inst:
        j = os.path.join(work, "m.json")
        m = [sys.executable, "-m", "memtwin.cli", "measure", "--limit", limit, "--out", j]
        m += ["--trace", trace] if trace else ["--cold", path]
        r = subprocess.run(m + ["--"] + cmd, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
                           stdout=subprocess.DEVNULL)
        if r.returncode != 0:
            sys.exit(f"trace_program_folios: memtwin measure failed (exit {r.returncode})")
        lost = tracefs_instance.events_lost(inst)
        if lost:
            sys.exit(f"trace_program_folios: {lost} events lost (the ring buffers overran)")
        with open(j) as f:
            return json.load(f)


def summarize(raw: str, first: int) -> dict:
    added, deleted = Counter(), 0
    again = 0                 # pages added that had been added and deleted before
    deleted_unread = 0        # pages deleted that no read (get_pages) or fault reached
    ever = set()
    touched = set()
    resident = {}             # index -> order of resident folios
    ra = Counter()
    faults = 0
    lines = []
    t0 = None
    issued = {}               # sector -> issue time (s) of the device's reads
    done = []                 # (issue s, complete s, sectors)
    with open(raw, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _comm, _pid, ts, ev, rest = m.groups()
            if ev in ("block_rq_issue", "block_rq_complete"):
                g = re.search(r"\d+,\d+ (\w+) .*?(\d+) \+ (\d+)", rest)
                if t0 is None or not g or "R" not in g.group(1):
                    continue
                if ev == "block_rq_issue":
                    issued[g.group(2)] = float(ts)
                elif g.group(2) in issued:
                    done.append((issued.pop(g.group(2)), float(ts), int(g.group(3))))
                continue
            if t0 is None:
                # measure's own cache drop (POSIX_FADV_DONTNEED) comes first: start at the
                # program's first miss
                if ev not in ("page_cache_sync_ra", "mm_filemap_fault"):
                    continue
                t0 = float(ts)
            t = (float(ts) - t0) * 1000
            if ev in ("mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache"):
                g = re.search(r"ofs=(\d+) order=(\d+)", rest)
                idx, order = int(g.group(1)) >> 12, int(g.group(2))
                pages = range(idx, idx + (1 << order))
                if ev.startswith("mm_filemap_add"):
                    added[order] += 1 << order
                    again += sum(1 for p in pages if p in ever)
                    ever.update(pages)
                    touched.difference_update(pages)
                    resident[idx] = order
                else:
                    deleted += 1 << order
                    deleted_unread += sum(1 for p in pages if p not in touched)
                    resident.pop(idx, None)
                kind = "add" if ev.startswith("mm_filemap_add") else "del"
                if len(lines) < first:
                    if lines and lines[-1][1] == kind and lines[-1][4] == order and lines[-1][3] == idx:
                        lines[-1][3] += 1 << order
                        lines[-1][5] += 1
                    else:
                        lines.append([t, kind, idx, idx + (1 << order), order, 1])
                continue
            if ev == "mm_filemap_get_pages":
                g = re.search(r"ofs=(\d+)-(\d+)", rest)
                touched.update(range(int(g.group(1)) >> 12, (int(g.group(2)) + 1) >> 12))
                continue
            if ev == "mm_filemap_fault":
                faults += 1
                idx = int(re.search(r"ofs=(\d+)", rest).group(1)) >> 12
                touched.add(idx)
            else:
                ra[ev] += 1
            if len(lines) < first:
                lines.append([t, ev, re.sub(r"dev=\S+ ino=\w+ ", "", rest)])
    # The device's reads while the program ran: bytes over the time at least one was in flight.
    busy, end = 0.0, None
    for a, b, _n in sorted(done):
        if end is None or a > end:
            busy += b - a
            end = b
        elif b > end:
            busy += b - end
            end = b
    lat = sorted(b - a for a, b, _n in done)
    dev = {"reads": len(done), "bytes": sum(n for _a, _b, n in done) * 512,
           "busy_s": round(busy, 6), "bytes_per_busy_s": round(sum(n for _a, _b, n in done) * 512 / busy) if busy else None,
           "median_latency_ms": round(lat[len(lat) // 2] * 1000, 3) if lat else None,
           "median_request_kib": sorted(n for _a, _b, n in done)[len(done) // 2] // 2 if done else None}
    return {"device_reads": dev, "pages_added_by_order": {str(k): v for k, v in sorted(added.items())},
            "pages_added": sum(added.values()), "pages_deleted": deleted,
            "pages_added_again": again, "pages_deleted_untouched": deleted_unread,
            "filemap_faults": faults, "readahead_calls": dict(ra),
            "timeline": [f"{x[0]:9.3f} {x[1]} [{x[2]},{x[3]}) order {x[4]} x{x[5]}" if len(x) == 6 else f"{x[0]:9.3f} {x[1]}: {x[2]}"
                         for x in lines]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="the file whose page cache is traced")
    ap.add_argument("--limit", required=True, metavar="SIZE")
    ap.add_argument("--trace", metavar="T.mtt", help="drop the cache of every file this trace names first (as the validation did)")
    ap.add_argument("--first", type=int, default=300, metavar="N", help="timeline lines to print (default 300)")
    ap.add_argument("--raw", help="also keep the raw trace in FILE")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    if not cmd:
        sys.exit("trace_program_folios: give the command after --")
    if not os.path.isfile(a.file):
        sys.exit(f"trace_program_folios: {a.file}: no such file")
    if os.geteuid() != 0:
        sys.exit("trace_program_folios: run it as root (memtwin measure and a trace instance)")
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_program_folios: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-progfolios-") as work:
        raw = a.raw or os.path.join(work, "trace.txt")
        res = record(os.path.abspath(a.file), cmd, a.limit, a.trace, work, raw)
        s = summarize(raw, a.first)
    v = res["variants"]["default"]
    s = {"command": cmd, "limit": a.limit, "file": a.file, "file_pages": (os.path.getsize(a.file) + 4095) // 4096,
         "read_bytes": v["totals"]["read_bytes"], "major_faults": v["real"]["rusage"]["major_faults"], **s}
    print(json.dumps(s, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
