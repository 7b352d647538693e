#!/usr/bin/env python3
"""orders60: memcg reclaims (RB..RE) that deleted exactly one folio and ran one shrink_inactive_list() batch (S),
by that folio's order: duration p25/p50/p75 (us), and the span from RB to the deletion (D) and from D to RE.
Input: lines (tracefs_to_lines.py output or a twin run's O60 lines).   python3 single.py LINES [--until-s S]"""
import collections, statistics, sys
until = float(sys.argv[sys.argv.index('--until-s') + 1]) * 1e9 if '--until-s' in sys.argv else None
rows = collections.defaultdict(list)
cur, t0 = None, None
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0] == 'J' or not f[1].isdigit():
        continue
    t = int(f[1]); t0 = t if t0 is None else t0
    if until and t - t0 > until:
        break
    if f[0] == 'RB':
        cur = dict(t=t, d=[], s=0, ts=None)
    elif cur is None:
        continue
    elif f[0] == 'D':
        cur['d'].append((t, int(f[3])))
    elif f[0] == 'S':
        cur['s'] += 1
        cur['ts'] = t
    elif f[0] == 'RE':
        if len(cur['d']) == 1 and cur['s'] == 1:
            td, o = cur['d'][0]
            rows[o].append((t - cur['t'], td - cur['t'], t - td, cur['ts'] - td, t - cur['ts']))
        cur = None
def q(xs, p):
    xs = sorted(xs); return xs[int(p * (len(xs) - 1))]
for o in sorted(rows):
    r = rows[o]
    print(f"order {o}: n {len(r):4d}  reclaim us p25/p50/p75 {q([x[0] for x in r], .25) / 1e3:.1f}/{q([x[0] for x in r], .5) / 1e3:.1f}/{q([x[0] for x in r], .75) / 1e3:.1f}"
          f"  RB->D p50 {q([x[1] for x in r], .5) / 1e3:.1f}  D->RE p50 {q([x[2] for x in r], .5) / 1e3:.1f}"
          f"  (D->S {q([x[3] for x in r], .5) / 1e3:.1f}, S->RE {q([x[4] for x in r], .5) / 1e3:.1f})")
