#!/usr/bin/env python3
"""hog23b: when each task of a prof.bt trace (hog23/loaded-1: 1999 Hz kernel stacks of the python3
tasks) was in the runner's folio scan (a sample whose stack holds kpage*_read / kpagecgroup /
stable_page_flags / page_cgroup_ino), and when the hog sleeps in D (its swap-ins: hog 2).

usage: kpage_times.py BT_OUT.xz CP,HOG,PROBE"""
import sys, lzma, collections
path, pids = sys.argv[1], [int(x) for x in sys.argv[2].split(',')]
names = dict(zip(pids, ['cp', 'hog', 'probe']))
scan = collections.defaultdict(list); dsl = collections.defaultdict(list); cur = None; t0 = None
for line in lzma.open(path, 'rt'):
    p = line.split()
    if not p:
        continue
    if p[0] == 'P' and len(p) == 4:
        cur = (int(p[1]), int(p[2])) if int(p[2]) in names else None
        t0 = t0 or int(p[1])
        continue
    if p[0] == 'C' and len(p) == 8:
        t0 = t0 or int(p[1])
        if int(p[3]) in names and p[4] == '2':
            dsl[int(p[3])].append(int(p[1]))
        cur = None
        continue
    if p[0] in 'WN':
        cur = None
        continue
    if cur and any(k in p[0] for k in ('kpage', 'stable_page_flags', 'page_cgroup_ino')):
        scan[cur[1]].append(cur[0]); cur = None
for pid in pids:
    xs = sorted(set(scan[pid]))
    if not xs:
        print(names[pid], 'no scan sample'); continue
    # runs of samples less than 0.3 s apart
    runs = [[xs[0], xs[0], 1]]
    for x in xs[1:]:
        if x - runs[-1][1] < 0.3e9:
            runs[-1][1] = x; runs[-1][2] += 1
        else:
            runs.append([x, x, 1])
    print(names[pid], 'scan samples (1999 Hz):', '; '.join(f'{(a - t0)/1e9:.3f}-{(b - t0)/1e9:.3f} s ({n}, {n/1999:.2f} s of CPU)' for a, b, n in runs))
    ds = [t for t in dsl[pid]]
    if ds:
        print('   its D sleeps:', len(ds), f'first {(ds[0]-t0)/1e9:.3f} s, last {(ds[-1]-t0)/1e9:.3f} s;',
              'between its first two scans:', sum(1 for t in ds if len(runs) > 1 and runs[0][1] < t < runs[1][0]),
              '; after its first scan ends, first D sleep at', next((f'{(t - t0)/1e9:.3f} s' for t in ds if t > runs[0][1]), '-'))
