#!/usr/bin/env python3
"""orders60: the reader's memcg reclaim durations by pages reclaimed, in two traces of the same run: r3 (every
event of trace_light.py) against r4 (--min: reclaim begin/end only). The difference sizes r3's event overhead.
    python3 cmp_overhead.py r3/lines.txt r4/lines.txt"""
import collections, statistics, sys
def classes(path):
    c = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        if f and f[0] == 'RE':
            n = int(f[3]); d = int(f[2])
            k = 'fail (0)' if n == 0 else str(n) if n in (64, 128, 256, 512) else '257-511' if 256 < n < 512 else '513+' if n > 512 else '1-255 other'
            c[k].append(d)
    return c
a, b = classes(sys.argv[1]), classes(sys.argv[2])
print(f"{'pages reclaimed':>16}  {'r3 n':>6} {'p50 us':>7}   {'r4 n':>6} {'p50 us':>7}")
for k in ['64', '128', '256', '512', '257-511', '513+', '1-255 other', 'fail (0)']:
    x, y = a.get(k, []), b.get(k, [])
    f = lambda v: f"{statistics.median(v) / 1e3:7.1f}" if v else "    nan"
    print(f"{k:>16}  {len(x):6d} {f(x)}   {len(y):6d} {f(y)}")
