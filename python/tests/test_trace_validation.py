"""Issue 18's validation: four real programs recorded on the host (traces in
scenarios/validation/traces, measured with `memtwin measure` at three limits by
lab/record_trace_validation.py), replayed in the twin by the streaming replay (`memtwin replay`:
the trace as a scenario task, sched/replay.rs): read bytes and memcg usage (peak) within 15%.
Points out of tolerance are listed in KNOWN_OUT with their cause; the test fails when one comes
back in tolerance, so the list is kept honest. Major faults are not compared: these traces were
recorded with strace, which sees mmap calls, not the faults on the mappings (the BPF recorder
records them; the replay counts strace's file mmaps as skipped)."""

import json
import os

import pytest

pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import replay, trace

D = os.path.join(os.path.dirname(__file__), "..", "memtwin", "scenarios", "validation", "traces")
with open(os.path.join(D, "measured.json")) as f:
    MEASURED = json.load(f)["programs"]

POINTS = [(n, lim) for n, p in MEASURED.items() for lim in p["limits"]]

# (program, limit, metric): filled from the figures this test prints; see README (issue 18).
# The traces replay as the kernel that recorded them (memtwin replay picks the profile from the
# header's kernel: linux-6.18, ext4 regular files in large folios) with the recording host's
# read_ahead_kb (8192, /dev/vda). cat's, grep's, tar's and sqlite3's traces were recorded again on
# 2026-11-28: those of 2026-11-25 predated the header's read_ahead_kb (the twin read them with a
# 128 KiB window) and the kept fadvise advice (cat's POSIX_FADV_SEQUENTIAL, which doubles the
# window to 16 MiB, was replayed as NORMAL).
#
# The three read_bytes points out are one mechanism, traced on the host (6.18.44, load 9-15,
# lab/validation/trace_program_folios.py: the file's page-cache additions and deletions by order,
# its readahead calls, its device's reads): a readahead window as large as the memcg. The kernel
# charges the next window by reclaiming the current one's folios the program has not reached,
# and reads them again: cat@12M added 50,562 pages for a 12,288-page file (orders 0-8), 38,274
# of them again, and every page added again had been deleted before the reader got to it; the
# reader then restarts at order 0 (page_cache_sync_ra() reads the rest of its request alone, the
# "standalone, small random read", then a fresh 128-page window). sqlite3@10M (4 KiB reads, no
# advice, windows up to 2048 pages in orders up to 9): 19,048 pages added for 10,026, 9,022
# again, all deleted unread. sqlite3-mmap@10M (mmap read-around of 2048 pages centred on each
# major fault, order 0 in 6.18, and asynchronous windows from the PG_readahead mark sqlite3's
# first read() left; lab/validation/trace-programs.md): 62,066 pages added, 52,040 again, 54 major
# faults. The twin opens the same
# first windows in the same orders (cat: 128 pages at 0, then 512, 1024, 2048 at orders 2, 4, 6
# from 128, 640, 1664, as the kernel's trace shows), but its reclaim finds the current
# window's folios still locked for their read (the twin's device reads 500 MB/s; this host's disk
# served these runs' reads at 1.1-2.5 GB/s of busy time, median 0.6-2.7 ms per request): of the
# pages limit reclaim scanned (before the mmap path's fixes below), 294,443 of 304,965 (sqlite3@10M) and 485,464 of 516,870
# (sqlite3-mmap@10M) were locked, so it frees nothing, the __GFP_NORETRY charge fails (8 and 14
# times) and readahead stops there (6.10+, KernelProfile::ra_enomem_stops): unread pages are not
# evicted and the file is read about once. A faster twin device alone does not close it (1 GB/s:
# cat@12M 50.4M, sqlite3@10M 60.6M; 3 GB/s: 73.3M, 64.0M). It is the thrashing of the
# host-ext4-seq-tight-*-ra8192 recordings (cat's pattern; lab/validation/large-folios.md), worked
# on in readahead.rs. The kernel's own spread at these points (repeated measures, load 9-15):
# cat@12M 179.9-212.4M, sqlite3@10M 89.2-116.2M, sqlite3-mmap@10M 257.8-348.8M read and 46-79
# major faults (M: 10^6 bytes).
#
# sqlite3-mmap@256M's major faults (the twin took 11, the kernel 9) came back in tolerance when
# the engine's mmap path learnt that PG_readahead is a folio flag (2026-11-28): fault-around
# mapped the tail pages of a marked large folio, so the scan never faulted on the marker, the
# next asynchronous window was never started and two faults on the database were major; the
# kernel's 9 are one per program and library file (traced on the host: no fault on the
# database read anything).
KNOWN_OUT = {
    ("cat", "12M", "read_bytes"),      # twin 50.4M, measured 212.4M (-76.3%): window as large as the memcg
    ("sqlite3", "10M", "read_bytes"),  # twin 51.9M, measured 90.9M (-42.9%): the same
    ("sqlite3-mmap", "10M", "read_bytes"),    # twin 134.7M, measured 348.8M (-61.4%): the same (mmap read-around)
    ("sqlite3-mmap", "10M", "major_faults"),  # twin 31, measured 55 (-43.6%): the same
}


def _rel(a, b):
    return (a - b) / b if b else 0.0


@pytest.mark.parametrize("name,limit", POINTS, ids=[f"{n}@{l}" for n, l in POINTS])
def test_replay_within_tolerance(name, limit):
    real = MEASURED[name]["limits"][limit]
    path = os.path.join(D, name + ".mtt")
    with trace.Reader(path) as r:
        faults = r.header.get("tracer") == "bpftrace"   # strace records no page faults
    t = replay.replay(path, limit).totals
    got = {"read_bytes": int(t["read_bytes"]), "memcg.max_usage_bytes": int(t["memcg.max_usage_bytes"]),
           "major_faults": int(t["memcg.pgmajfault"])}
    out = []
    checks = [("read_bytes", 0.15), ("memcg.max_usage_bytes", 0.15)] + ([("major_faults", 0.20)] if faults else [])
    for k, tol in checks:
        r = _rel(got[k], real[k])
        print(f"{name} {limit} {k}: twin {got[k]} measured {real[k]} ({r:+.1%})")
        bad = abs(r) > tol
        if (name, limit, k) in KNOWN_OUT:
            assert bad, f"{name} {limit} {k} is back in tolerance ({r:+.1%}): remove it from KNOWN_OUT"
        elif bad:
            out.append(f"{k} {r:+.1%}")
    assert not out, f"{name} at {limit}: " + ", ".join(out)
