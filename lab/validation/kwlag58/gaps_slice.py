#!/usr/bin/env python3
"""kwlag58: from the lead's quiet slice.bt recordings (../vmp-slice-1201/s1-rwmsk-msk1280, s2-...; 6.18.44-fc-v1045,
nothing else running), what the writer's CPU's bound pool ran between two of the writer's vmpressure works (E lines:
every bound kworker's work, start, CPU, duration, function) and who was on the CPU at each bound kworker wake-up there
(W lines: the task running on the target CPU, pid 0 = idle). slice.bt's E lines carry no kworker pid: the pool's
works, whichever of its kworkers ran them.     python3 gaps_slice.py DIR [DIR ...]
"""
import lzma, statistics, sys
from collections import Counter


def main(d):
    ev = [l.split() for l in lzma.open(d + '/bt.out.xz', 'rt') if l[:2] in ('A ', 'E ', 'W ')]
    a = [e for e in ev if e[0] == 'A' and e[5] == 'vmpressure_work_fn' and e[3] == 'python3']
    writer = a[-1][2]
    wa = [e for e in a if e[2] == writer]
    cpu = Counter(e[4] for e in wa).most_common(1)[0][0]
    t0, t1 = int(wa[0][1]), int(wa[-1][1])
    print(f'== {d}: writer {writer}, {len(wa)} vmpressure works queued, CPU {cpu}, {(t1 - t0) / 1e9:.3f} s')
    es = [e for e in ev if e[0] == 'E' and e[2] == cpu and t0 <= int(e[1]) <= t1 + 5_000_000]
    ws = [e for e in ev if e[0] == 'W' and e[5] == cpu and t0 <= int(e[1]) <= t1]
    c = Counter(e[4] for e in es)
    dur = {f: statistics.mean(int(e[3]) for e in es if e[4] == f) / 1e3 for f in c}
    print('   works run on the pool in the step (n, mean us from execute_start to _end): ' +
          ', '.join(f'{f} {n} ({dur[f]:.1f})' for f, n in c.most_common(8)))
    on = Counter('writer' if e[6] == writer else ('idle' if e[6] == '0' else 'other') for e in ws)
    print(f'   bound kworker wake-ups on CPU {cpu}: {len(ws)}; the task running then: ' +
          ', '.join(f'{k} {n}' for k, n in on.most_common()))
    idx = [i for i, e in enumerate(es) if e[4] == 'vmpressure_work_fn']
    nother = [sum(1 for e in es[a + 1:b]) for a, b in zip(idx, idx[1:])]
    print(f'   gaps between two vmpressure works: {len(nother)}; other works in a gap: median '
          f'{statistics.median(nother)}, mean {statistics.mean(nother):.2f}; gaps with none: {nother.count(0)}')


for d in sys.argv[1:]:
    main(d)
