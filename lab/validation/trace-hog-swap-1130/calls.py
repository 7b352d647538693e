#!/usr/bin/env python3
"""wbtswap23: one line a memcg reclaim call from a vmscan trace of run.sh with EXTRA_EVENTS (vmscan-2.trace):
mm_vmscan_memcg_reclaim_begin .. _end of a pid, its mm_vmscan_write_folio count and its shrink_inactive batches'
lowest priority; summed per 50 ms of the calls' starts from the first anon batch, for 1.6 s, and the 8 calls that
wrote most. Usage: xz -dc vmscan-2.trace.xz | python3 calls.py"""
import collections
import re
import sys

t0 = None
cur, calls = {}, []
for line in sys.stdin:
    if line.startswith('#'):
        continue
    m = re.match(r'\s*(\S+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)', line)
    if not m:
        continue
    comm, pid, ts, ev, rest = m.groups()
    ts = float(ts)
    if ev == 'mm_vmscan_lru_shrink_inactive' and 'RECLAIM_WB_ANON' in rest and t0 is None:
        t0 = ts
    if ev == 'mm_vmscan_memcg_reclaim_begin':
        cur[pid] = [ts, 0, 12, comm]
    elif ev == 'mm_vmscan_write_folio' and pid in cur:
        cur[pid][1] += 1
    elif ev == 'mm_vmscan_lru_shrink_inactive' and pid in cur:
        cur[pid][2] = min(cur[pid][2], int(re.search(r'priority=(\d+)', rest).group(1)))
    elif ev == 'mm_vmscan_memcg_reclaim_end' and pid in cur:
        s, w, p, c = cur.pop(pid)
        calls.append((s, ts, w, int(re.search(r'nr_reclaimed=(\d+)', rest).group(1)), p, c))
print('first anon batch', t0, 'calls', len(calls))
agg = collections.defaultdict(lambda: [0, 0, 0, []])
sel = [c for c in calls if t0 is not None and 0 <= c[0] - t0 < 1.6]
for s, e, w, r, p, c in sel:
    a = agg[int((s - t0) / 0.05)]
    a[0] += 1
    a[1] += w
    a[2] += r
    a[3].append(p)
for k in sorted(agg):
    a = agg[k]
    a[3].sort()
    print('%4d ms calls %3d written %5d freed %5d priority min %d median %d' % (k * 50, a[0], a[1], a[2], a[3][0], a[3][len(a[3]) // 2]))
for s, e, w, r, p, c in sorted(sel, key=lambda c: -c[2])[:8]:
    print('start %.3f s, %.1f ms: written %d, freed %d, priority %d (%s)' % (s - t0, (e - s) * 1e3, w, r, p, c))
