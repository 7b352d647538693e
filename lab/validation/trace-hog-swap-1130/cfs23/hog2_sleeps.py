#!/usr/bin/env python3
"""cfs23: the hog's D-state sleeps after hog 1 (its second touch: swap-ins) in the lead's quiet
switch traces: how many, how long, and how the total splits by length.
usage: hog2_sleeps.py quiet-s50-hog-N   (uses runnable.py's task finding)"""
import sys, json, collections
sys.path.insert(0, __import__('os').path.dirname(__file__))
import runnable

def main():
    d = sys.argv[1]
    ev = runnable.load(d + '/bt.out.xz')
    start, pids = runnable.find_tasks(ev)
    cp, hog, probe = sorted(pids)
    st = list(json.load(open(d + '/traced.json'))['variants'].values())[0]['steps']
    el = {s['name']: s['metrics'] for s in st}
    def sleeps(pid):
        out, t_out = [], None
        for e in ev:
            if e[0] == 'C' and e[3] == pid and e[4] == 2:
                t_out = e[1]
            elif e[0] == 'W' and e[2] == pid and t_out is not None:
                out.append(((t_out - start) / 1e9, (e[1] - t_out) / 1e6))
                t_out = None
        return out
    sl = sleeps(hog)
    wakes = {'copy': [a + b / 1e3 for a, b in sleeps(cp)], 'probe': [a + b / 1e3 for a, b in sleeps(probe)]}
    h2 = [x for x in sl if x[0] > el['hog 1']['elapsed_s'] + 0.1]
    ds = sorted(x[1] for x in h2)
    n = len(ds)
    m2 = el['hog 2']
    print(f'# {d}: hog 2 elapsed {m2["elapsed_s"]:.3f} s, sys {m2["sys_s"]:.3f} s, pswpin {m2["vmstat.pswpin"]:.0f}, '
          f'read_bytes {m2["read_bytes"]/2**20:.1f} MiB')
    print(f'hog D sleeps after hog 1: {n}, total {sum(ds)/1e3:.3f} s; median {ds[n//2]:.3f} ms, p90 {ds[int(n*.9)]:.3f}, '
          f'p99 {ds[int(n*.99)]:.3f}, max {ds[-1]:.1f} ms; from {h2[0][0]:.3f} to {h2[-1][0]:.3f} s after the start')
    edges = [0, 0.5, 2, 10, 50, 1e9]
    for lo, hi in zip(edges, edges[1:]):
        xs = [x for x in ds if lo <= x < hi]
        print(f'  {lo:>5g}-{hi:<5g} ms: {len(xs):5d} sleeps, {sum(xs)/1e3:6.3f} s')
    # the long sleeps' ends against the copy's and the probe's D-sleep wake-ups (within 1 ms)
    import bisect
    longs = [x for x in h2 if x[1] >= 50]
    for name, w in wakes.items():
        w.sort()
        near = 0
        for a, b in longs:
            end = a + b / 1e3
            i = bisect.bisect_left(w, end - 1e-3)
            near += i < len(w) and w[i] <= end + 1e-3
        print(f'  of the {len(longs)} sleeps of 50 ms or more, {near} end within 1 ms of a wake-up of the {name} from a D sleep')
    ends = sorted(a + b / 1e3 for a, b in longs)
    print('  their ends (s after the start):', ' '.join(f'{e:.3f}' for e in ends))

if __name__ == '__main__':
    main()
