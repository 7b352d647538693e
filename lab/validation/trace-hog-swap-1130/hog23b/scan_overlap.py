#!/usr/bin/env python3
"""hog23b: where the host runner's own per-step work (real.run_task(): the folio scan of
/proc/kpagecgroup + /proc/kpageflags at each step's end, memcg_folios()) falls in a traced
host-stall-hog-swap recording, and who holds the CPUs while the hog waits for one.

usage: scan_overlap.py DIR [--skew MS]   (DIR: a quiet-s50-hog-N copy: bt.out.xz from sw.bt, traced.json;
--skew: how far apart the three tasks' wake-ups at the start line may be, 1 ms by default, more on a loaded host)

Pids and the common start as cfs23/runnable.py finds them (the three python3 tasks woken together
from real.task_main()'s sleep to start_at; cp, hog, probe in fork order), their pids consecutive; the sampler is the
python3 pid forked next (real.sampler_main(), its own session) and the runner the python3 pid with
the most CPU before the start. Step windows from the start: hog 1 [0, e1] (traced.json elapsed);
hog 2 starts at the hog's first D-state switch-out after e1 + 50 ms (its first swap-in fault:
between the two steps the hog's process is CPU-bound in the scan, no D sleep) and lasts its
elapsed_s; the copy's and the probe's steps end at their elapsed_s, their processes (the scan, then
the JSON to the runner) at their last switch-out. A task is waiting from a wake-up or a switch-out
in state 0/256 (preempted) to its switch-in. A CPU's holder is the next_comm of the last switch
involving a python3 task on it (a non-python3 task switching to another is not traced)."""
import sys, os, lzma, json, collections

def load(path):
    ev = []
    for line in lzma.open(path, 'rt'):
        p = line.split()
        if p and p[0] == 'C' and len(p) == 8:
            ev.append(('C', int(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5]), p[6], p[7]))
        elif p and p[0] in 'WN' and len(p) == 5:
            ev.append((p[0], int(p[1]), int(p[2]), int(p[3]), int(p[4])))
    ev.sort(key=lambda e: e[1])
    return ev

def find_tasks(ev, skew=1e6):
    last, wakes = {}, []
    for e in ev:
        if e[0] == 'C' and e[4] == 1:
            last[e[3]] = e[1]
        if e[0] == 'W' and e[2] in last:
            d = e[1] - last.pop(e[2])
            if d > 0.2e9:
                wakes.append((e[1], e[2]))
    for i in range(len(wakes)):
        # three wake-ups within `skew` of pids forked one after the other (other helpers' python3
        # processes wake in between on a loaded host)
        near = sorted({w[1] for w in wakes[i:] if w[0] - wakes[i][0] < skew})
        for p in near:
            if p + 1 in near and p + 2 in near and wakes[i][1] in (p, p + 1, p + 2):
                return wakes[i][0], [p, p + 1, p + 2]
    raise SystemExit('no common start found')

def main():
    d = sys.argv[1]
    ev = load(os.path.join(d, 'bt.out.xz'))
    skew = float(sys.argv[sys.argv.index('--skew') + 1]) * 1e6 if '--skew' in sys.argv else 1e6
    start, (cp, hog, probe) = find_tasks(ev, skew)
    steps = {}
    for v in json.load(open(os.path.join(d, 'traced.json')))['variants'].values():
        for s in v['steps']:
            steps[s['name']] = s
    run = collections.Counter(); oncpu = {}; lastsw = {}
    for e in ev:
        if e[0] != 'C':
            continue
        t, cpu, prev, st, nxt, pc, nc = e[1:]
        if prev in oncpu:
            run[prev] += t - oncpu.pop(prev)
        if pc == 'python3':
            lastsw[prev] = t
        if nc == 'python3':
            oncpu[nxt] = t
    sampler = min((p for p in lastsw if p > probe + 3), default=None)  # forked after the tasks' pipes' threads
    # the sampler: the python3 pid after the tasks with the most CPU besides them
    cands = [p for p in lastsw if p > probe and p not in (cp, hog, probe)]
    sampler = max(cands, key=lambda p: run[p]) if cands else None
    runner = max((p for p in lastsw if p < cp), key=lambda p: run[p])
    S = lambda t: (t - start) / 1e9
    e1 = steps['hog 1']['metrics']['elapsed_s']
    s2 = next(S(e[1]) for e in ev if e[0] == 'C' and e[3] == hog and e[4] == 2 and S(e[1]) > e1 + 0.05)
    e2 = s2 + steps['hog 2']['metrics']['elapsed_s']
    ec, ep = steps['copy']['metrics']['elapsed_s'], steps['probe']['metrics']['elapsed_s']
    print(f'# {d}: start {start} ns; cp {cp}, hog {hog}, probe {probe}, sampler {sampler}, runner {runner}')
    print(f'hog 1 0-{e1:.3f} s; the hog\'s scan {e1:.3f}-{s2:.3f} s ({s2 - e1:.3f} s: hog 2 starts that much after hog 1 ends)')
    print(f'hog 2 {s2:.3f}-{e2:.3f} s; copy ends {ec:.3f} s, its process {S(lastsw[cp]):.3f} s; probe ends {ep:.3f} s, its process {S(lastsw[probe]):.3f} s; '
          f'hog process {S(lastsw[hog]):.3f} s')
    print(f'CPU time of the processes from the start: cp {run[cp]/1e9:.3f} s (step run_s {steps["copy"]["sched"]["run_s"]:.3f}), '
          f'hog {run[hog]/1e9:.3f} s (steps {steps["hog 1"]["sched"]["run_s"] + steps["hog 2"]["sched"]["run_s"]:.3f}), '
          f'probe {run[probe]/1e9:.3f} s (step {steps["probe"]["sched"]["run_s"]:.3f}), sampler {run[sampler]/1e9:.3f} s')
    names = {cp: 'cp', hog: 'hog', probe: 'probe', sampler: 'sampler', runner: 'runner'}
    def label(pid, comm):
        if pid in names: return names[pid]
        if comm == 'python3': return 'python3-other'
        if comm.startswith('kworker'): return 'kworker'
        if comm.startswith('swapper'): return 'idle'
        return comm.split('/')[0]
    wins = [('hog 1', 0, e1), ('hog 2 before the copy\'s end', s2, min(ec, e2)), ('hog 2 after the copy\'s end (cp/probe scans)', min(ec, e2), e2),
            ('hog 2 whole', s2, e2)]
    occ, st, tp = {}, 0, None
    tot = collections.Counter(); res = collections.defaultdict(collections.Counter); hrun = collections.Counter()
    for e in ev:
        t = e[1]
        if tp is not None and st:
            for w in wins:
                a, b = start + int(w[1] * 1e9), start + int(w[2] * 1e9)
                lo, hi = max(tp, a), min(t, b)
                if hi > lo:
                    if st == 1:
                        tot[w[0]] += hi - lo
                        for c in (0, 1):
                            res[w[0]][occ.get(c, '?')] += hi - lo
                    else:
                        hrun[w[0]] += hi - lo
        tp = t
        if e[0] == 'C':
            _, t, cpu, prev, s, nxt, pc, nc = e
            occ[cpu] = label(nxt, nc)
            if prev == hog:
                st = 1 if s in (0, 256) else 0
            if nxt == hog:
                st = 2
        elif e[2] == hog and st == 0:
            st = 1
    for w in wins:
        n = w[0]
        print(f'{n} ({w[1]:.3f}-{w[2]:.3f} s): hog on CPU {hrun[n]/1e6:.1f} ms, waiting {tot[n]/1e6:.1f} ms; CPU-ms held while it waited (of 2 CPUs): '
              + ', '.join(f'{k} {v/1e6:.1f}' for k, v in res[n].most_common(8)))
    print(f'traced.json hog 2 run_delay_s {steps["hog 2"]["sched"]["run_delay_s"]:.3f}, run_s {steps["hog 2"]["sched"]["run_s"]:.3f}; '
          f'hog 1 run_delay_s {steps["hog 1"]["sched"]["run_delay_s"]:.3f}')

main()
