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
# Cause (measured on the host, 6.18.44, 2026-11-28): the files were on the root ext4 (/dev/vda,
# read_ahead_kb 8192), and ext4 on 6.18 caches regular files in large folios: cat of the 48 MiB
# file at 12M (212.3M read again, as recorded) added folios of order 0/2/4/6/7/8/9 (bpftrace on
# mm_filemap_add_to_page_cache: 97% of the pages in folios of order >= 2, up to 2 MiB), and
# reclaim evicts whole folios, pages not yet read included, so the 8 MiB readahead windows are
# re-read. This test replays with profile linux-6.1 and a 128 KiB window (order-0 pages). With
# the host's 8192 KiB window alone the twin reads cat@12M 146.5M (-31%) and sqlite3@10M 141.6M
# (+77%). With issue 21's large folios (merged into main on 2026-11-28: profile linux-6.18, ext4)
# and the 8192 KiB window, sqlite3@10M came within tolerance (-12.9%) but cat@12M read 68M
# (-68%) and sqlite3-mmap@10M -63.5%. Since readahead's bios unlock per BIO_MAX_VECS folios and
# 6.10+ readahead stops at a failed charge (h-thrash, 2026-11-28), the same replay (linux-6.18,
# 8192) reads cat@12M 50.4M (-76.3%: the file once, no thrash), sqlite3@10M 58.8M (-26.7%),
# sqlite3-mmap@10M 74.6M (-78.6%): the twin's reader uses each window as soon as it is read, the
# kernel's did not (lab/validation/large-folios.md, "Why the kernel thrashes more": its reader
# was off the CPU for a third of the run on this shared host, and reclaim ran while reads
# completed); replaying as linux-6.18 waits for that.
#
# sqlite3-mmap (recorded with the BPF tracer: its page faults on the database's mapping, major
# faults compared within 20%): at 10M the same large-folio thrashing (the twin reads 85.2M and
# takes 24 major faults, the kernel 348.8M and 55). At 256M the twin takes 11 major faults, the
# kernel 9: measure drops the cache of the files the trace names with POSIX_FADV_DONTNEED, which
# leaves the pages other processes map (after it, libc.so.6 keeps 438 of its 470 pages cached,
# ld.so 49/52, libm 179/222, libz 26/29, libreadline 77/86, libtinfo 45/49; mincore), while the
# replay starts those libraries cold and faults them in; at 40M the database's faults dominate.
KNOWN_OUT = {
    ("cat", "12M", "read_bytes"),      # twin 50.4M, measured 212.5M (-76.3%): large folios, issue 21
    ("sqlite3", "10M", "read_bytes"),  # twin 41.2M, measured 80.2M (-48.7%): large folios, issue 21
    ("sqlite3-mmap", "10M", "read_bytes"),    # twin 85.2M, measured 348.8M (-75.6%): large folios
    ("sqlite3-mmap", "10M", "major_faults"),  # twin 24, measured 55 (-56.4%): large folios
    ("sqlite3-mmap", "256M", "major_faults"), # twin 11, measured 9 (+22.2%): libraries mapped elsewhere stay cached
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
