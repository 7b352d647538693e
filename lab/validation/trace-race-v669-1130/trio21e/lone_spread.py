"""The spread of the loop device's lone 8 MiB windows in raw traces (trio21e, 2026-12-01).

Each raw trace's busy periods that are one 8 MiB window issued within 100 us and nothing else
(lab/measurements/loop_busy.py `kind()`, the periods hostcal's `device_lone_window_ns` takes the
median of), as rates relative to that trace's median lone window (median span / span), then pooled.

    xz -dc ../raw-1g-1.txt.xz > /tmp/raw-1g-1.txt   # likewise the other three
    python3 lone_spread.py /tmp/raw-512m-1.txt /tmp/raw-512m-2.txt /tmp/raw-1g-1.txt /tmp/raw-1g-2.txt

lone_spread_pooled.txt holds the last line's figures (colon-separated), as check_spread.py reads them.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "measurements"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import loop_busy as lb  # noqa: E402

if len(sys.argv) < 2:
    sys.exit("usage: lone_spread.py RAW... (raw traces of trace_thrash_timeline.py --raw, decompressed)")
allrel = []
for path in sys.argv[1:]:
    ds = [lb.describe(p) for p in lb.periods(lb.raw_requests(path))]
    lone = [d["span_ms"] for d in ds if lb.kind(d) == "8 MiB window alone"]
    m = statistics.median(lone)
    rel = sorted(m / x for x in lone)
    allrel += rel
    print(os.path.basename(path), len(lone), "lone windows, median span", round(m, 3), "ms; rates / median:", [round(r, 3) for r in rel])
print("pooled", len(allrel), ":".join(f"{r:.3f}" for r in sorted(allrel)))
