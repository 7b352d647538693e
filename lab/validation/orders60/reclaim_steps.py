#!/usr/bin/env python3
"""orders60: inside each memcg reclaim of the heavy trace (charges.bt, r1), the sequence of the reader's events
between mm_vmscan_memcg_reclaim_begin (RB) and _end (RE) and the gaps between them, for reclaims of a given shape.
Every event is one bpftrace printf, whose own cost falls in the gap after it: compare the gaps with each other
and with the no-work gaps (e.g. P->A of a charge without reclaim).   python3 reclaim_steps.py r1/trace.txt"""
import collections, statistics, sys
seqs = collections.defaultdict(list)
cur = None
for line in open(sys.argv[1]):
    f = line.split()
    if not f or not f[1].isdigit():
        continue
    k, t = f[0], int(f[1])
    if k == 'RB':
        cur = [(k, t, '')]
    elif cur is not None and k in ('I', 'S', 'D', 'F', 'MF', 'RL', 'RU', 'W', 'SA', 'P', 'A'):
        extra = f[3] if k in ('D', 'F') else ''
        cur.append((k, t, extra))
    elif cur is not None and k == 'RE':
        cur.append((k, t, f[3]))
        shape = ' '.join(e[0] + (e[2] if e[0] in ('D',) else '') for e in cur)
        seqs[shape].append([b[1] - a[1] for a, b in zip(cur, cur[1:])])
        cur = None
for shape, rows in sorted(seqs.items(), key=lambda kv: -len(kv[1]))[:12]:
    if len(shape) > 200:
        continue
    med = [statistics.median(col) for col in zip(*rows)]
    print(f"n={len(rows):4d}  {shape}")
    print("        gaps us: " + ' '.join(f"{m / 1e3:.2f}" for m in med), f" total {sum(med) / 1e3:.1f}")
