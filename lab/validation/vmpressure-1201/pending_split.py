#!/usr/bin/env python3
"""vmp23: each of the writer's vmpressure works: pages the writer scanned while it was pending, and what ended the
pending (the writer preempted by the kworker on the work's CPU, or no preemption: the writer slept or moved).
python3 pending_split.py v1-rwmsk-msk1280 (writer pid: the last python3 memcg reclaimer, as summarize_vmp.py)."""
import bisect, collections, lzma, re, sys
ev = [l.split() for l in lzma.open(sys.argv[1] + '/bt.out.xz', 'rt') if re.match(r'^[RrIAEP] \d', l)]
w = [x for x in ev if x[0] == 'R'][-1][2]
A = sorted((int(x[1]), int(x[4])) for x in ev if x[0] == 'A' and x[2] == w and x[5] == 'vmpressure_work_fn')
E = sorted((int(x[1]), int(x[2])) for x in ev if x[0] == 'E' and x[4] == 'vmpressure_work_fn')
Et = [e[0] for e in E]
I = sorted((int(x[1]), int(x[3])) for x in ev if x[0] == 'I' and x[2] == w)
P = sorted((int(x[1]), int(x[-1]), x[3]) for x in ev if x[0] == 'P' and x[2] == w)
Pt = [p[0] for p in P]
res = collections.Counter()
tot = 0
for a, cpu in A:
    k = bisect.bisect_left(Et, a)
    e, ecpu = E[k]
    s = sum(n for t, n in I if a < t < e)
    tot += s
    j = bisect.bisect_left(Pt, a)
    p = P[j] if j < len(P) else None
    by = p[2].split('/')[0] if p and p[0] <= e + 1000 else 'no preemption of the writer'
    res[('scans while pending' if s else 'run before the next scan', 'run on the queuing CPU' if cpu == ecpu else 'run elsewhere', by)] += 1
print(f'writer {w}: pages scanned while its work was pending {tot} of {sum(n for t, n in I)}')
for k, v in sorted(res.items(), key=lambda kv: -kv[1]):
    print(f'{v:4d}  {k[0]}, {k[1]}, next switch-out: {k[2]}')
