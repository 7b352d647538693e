#!/usr/bin/env python3
"""When 6.12's periodic memcg statistics flush ran against qemu612-lrugen-parent-stream's steps, read
from a `memtwin real --on qemu --reclaim-trace` trace (plain or .gz): wset 2's window and the gap
the guest runner leaves between its end and the stream's start (step snapshots, the /proc/kpageflags
scan, the move to P/B), the flushes (workqueue_execute_start of flush_memcg_stats_dwork) relative to
the stream's start, the stream's progress (its block requests: when 64/128/192/256 MiB had been
asked for; P's limit is reached at about 192 MiB), and shrink_active_list()'s deactivations
(mm_vmscan_lru_shrink_active with nr_deactivated > 0) during the stream.

usage: analyse.py TRACE... [--json]"""
import gzip
import json
import re
import sys

STEP = re.compile(r"^# step '([^']+)' task \S+ t ([\d.]+) \.\. ([\d.]+)", re.M)
FLUSH = re.compile(r"^\s*\S.*?\[\d+\] \S+\s+([\d.]+): workqueue_execute_start: .*function flush_memcg_stats_dwork$", re.M)
READ = re.compile(r"^\s*memtwin-guest-\d+\s+\[\d+\] \S+\s+([\d.]+): block_rq_issue: \S+ RA? (\d+) ", re.M)
DEACT = re.compile(r"^\s*\S.*?\[\d+\] \S+\s+([\d.]+): mm_vmscan_lru_shrink_active: .*nr_deactivated=(\d+)", re.M)


def analyse(path: str) -> dict:
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        txt = f.read()
    steps = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in STEP.finditer(txt)}
    if "stream" not in steps or "wset 2" not in steps:
        raise SystemExit(f"{path}: no 'wset 2' and 'stream' step windows (not a qemu612-lrugen-parent-stream trace?)")
    s0, s1 = steps["stream"]
    w2a, w2b = steps["wset 2"]
    flushes = [float(m.group(1)) for m in FLUSH.finditer(txt)]
    if not flushes:
        raise SystemExit(f"{path}: no flush_memcg_stats_dwork events (a trace taken before they were traced, "
                         "or @@RTRACE_NOFILTER: the guest kernel refused the filter)")
    cum, prog = 0, []
    for m in READ.finditer(txt):
        t = float(m.group(1))
        if s0 <= t <= s1:
            cum += int(m.group(2))
            prog.append((t, cum))

    def at(mib):
        return next((round(t - s0, 3) for t, c in prog if c >= mib << 20), None)

    deact = [(float(m.group(1)) - s0, int(m.group(2))) for m in DEACT.finditer(txt) if s0 <= float(m.group(1)) <= s1]
    near = [round(x - s0, 3) for x in flushes if w2a - 2.5 < x < s1]
    return {
        "wset2_s": [round(w2a - s0, 3), round(w2b - s0, 3)],
        "gap_wset2_end_to_stream_s": round(s0 - w2b, 3),
        "stream_s": round(s1 - s0, 3),
        "flushes_from_stream_start_s": near,
        "stream_mib_requested_at_s": {m: at(m) for m in (64, 128, 192, 256)},
        "deactivated": {"calls": len(deact), "pages": sum(n for _, n in deact),
                        "from_s": round(deact[0][0], 3) if deact else None, "to_s": round(deact[-1][0], 3) if deact else None},
        "flush_period_s": {"n": len(flushes) - 1, "min": round(min(b - a for a, b in zip(flushes, flushes[1:])), 3),
                           "median": round(sorted(b - a for a, b in zip(flushes, flushes[1:]))[(len(flushes) - 1) // 2], 3),
                           "max": round(max(b - a for a, b in zip(flushes, flushes[1:])), 3)},
    }


def main(argv):
    paths = [a for a in argv if a != "--json"]
    if not paths:
        raise SystemExit(__doc__)
    res = {p: analyse(p) for p in paths}
    if "--json" in argv:
        print(json.dumps(res, indent=1))
        return
    for p, r in res.items():
        print(p)
        for k, v in r.items():
            print(f"  {k}: {v}")


if __name__ == "__main__":
    main(sys.argv[1:])
