#!/usr/bin/env python3
"""cfs23: how many of host-stall-hog-swap's three tasks were runnable at each instant of hog 1, from
the lead's quiet sched_switch/sched_wakeup trace (/work/quiet/s50/sw.bt; bt.out of hog-1 or hog-2).

usage: runnable.py BT_OUT[.xz] [--window S] [--bins MS]
(cfs23: python3 runnable.py quiet-s50-hog-N/bt.out.xz --window <hog 1's elapsed_s> > hog-N-runnable.txt)

Pids: the three task processes are the python3 pids that the runner forked last before the common
start and that wake together from their time.sleep() (S) at the start line (real.task_main());
cp, hog, probe in fork order (classify()). The hog 1 window:
from the common wake-up to that + hog 1's elapsed_s (traced.json, given as --window).

A task is runnable from its wake-up (sched_wakeup) or a switch-out with prev_state 0 (R: a
schedule() at the return to user space with need_resched) or 256 (TASK_REPORT_MAX: a preemption,
6.18 __trace_sched_switch_state()) until a switch-out in any other state (1 S, 2 D); running
between its switch-in and switch-out. Other tasks' states are not all traced (only switches that
involve a python3 task): only the three tasks are counted."""
import sys, collections

def load(path):
    ev = []
    import lzma
    for line in (lzma.open(path, 'rt') if path.endswith('.xz') else open(path)):
        p = line.split()
        if p and p[0] == 'C' and len(p) == 8:
            ev.append(('C', int(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5])))
        elif p and p[0] in 'WN' and len(p) == 5:
            ev.append((p[0], int(p[1]), int(p[2]), int(p[3]), int(p[4])))
    ev.sort(key=lambda e: e[1])
    return ev

def find_tasks(ev):
    # the common start: three python3 pids woken from S sleeps of > 0.2 s within 1 ms
    last, wakes = {}, []
    for e in ev:
        if e[0] == 'C' and e[4] == 1:
            last[e[3]] = e[1]
        if e[0] == 'W' and e[2] in last:
            d = e[1] - last.pop(e[2])
            if d > 0.2e9:
                wakes.append((e[1], e[2]))
    for i in range(len(wakes) - 2):
        if wakes[i + 2][0] - wakes[i][0] < 1e6:
            return wakes[i][0], [w[1] for w in wakes[i:i + 3]]
    raise SystemExit('no common start found')

def classify(ev, pids, start):
    """The runner forks the tasks in the scenario's order (real.py RealRun.run(): one
    subprocess.Popen per task, in plan order): host-stall-hog-swap's cp, hog, probe are the
    three pids in increasing order. (Checked: the hog's on-CPU time in its window matches
    traced.json's hog 1 sched.run_s, and the probe's S-state switch-outs number its rounds.)"""
    st = {p: collections.Counter() for p in pids}
    for e in ev:
        if e[0] == 'C' and e[3] in pids and e[1] > start:
            st[e[3]][e[4]] += 1
    cp, hog, probe = sorted(pids)
    return {'hog': hog, 'copy': cp, 'probe': probe}, st

def main():
    path = sys.argv[1]
    window = float(sys.argv[sys.argv.index('--window') + 1]) if '--window' in sys.argv else 0.3
    binms = float(sys.argv[sys.argv.index('--bins') + 1]) if '--bins' in sys.argv else 20
    ev = load(path)
    start, pids = find_tasks(ev)
    names, st = classify(ev, pids, start)
    byp = {v: k for k, v in names.items()}
    print(f'# {path}: start (common wake-up) at {start} ns; ' + ', '.join(f'{k} pid {v}' for k, v in names.items()))
    print('# switch-out states after the start, per task:', {byp[p]: dict(st[p]) for p in pids})
    end = start + int(window * 1e9)
    # state: 0 asleep, 1 runnable waiting, 2 running; all start runnable at `start`
    state = {p: 0 for p in pids}
    t_prev = None
    k_time = collections.Counter()          # ns with k of the three runnable
    wait = collections.Counter(); run = collections.Counter()
    bins = collections.defaultdict(lambda: collections.Counter())
    nwaits = collections.Counter(); waitlens = collections.defaultdict(list); wait_from = {}
    def account(t0, t1):
        if t1 <= t0:
            return
        k = sum(1 for p in pids if state[p] > 0)
        k_time[k] += t1 - t0
        for p in pids:
            if state[p] == 1: wait[p] += t1 - t0
            if state[p] == 2: run[p] += t1 - t0
        # bins
        t = t0
        while t < t1:
            b = int((t - start) // (binms * 1e6))
            be = start + int((b + 1) * binms * 1e6)
            seg = min(t1, be) - t
            bins[b]['k%d' % k] += seg
            for p in pids:
                if state[p] == 2: bins[b]['run_' + byp[p]] += seg
                if state[p] == 1: bins[b]['wait_' + byp[p]] += seg
            t += seg
    for e in ev:
        t = e[1]
        if t < start:
            # states before the start: sleeping until the common wake-up
            continue
        if t > end:
            break
        if t_prev is not None:
            account(t_prev, t)
        t_prev = t
        if e[0] in 'WN' and e[2] in pids:
            if state[e[2]] == 0:
                state[e[2]] = 1; wait_from[e[2]] = t
        elif e[0] == 'C':
            prev, pst, nxt = e[3], e[4], e[5]
            if prev in pids:
                if pst in (0, 256):
                    state[prev] = 1; wait_from[prev] = t
                else:
                    state[prev] = 0
            if nxt in pids:
                if state[nxt] == 1 and nxt in wait_from:
                    nwaits[nxt] += 1; waitlens[nxt].append(t - wait_from.pop(nxt))
                state[nxt] = 2
    account(t_prev, end)
    tot = sum(k_time.values())
    print(f'# hog 1 window {window:.4f} s: time with k of the three runnable (running or waiting):')
    for k in range(4):
        print(f'  k={k}: {k_time[k]/1e6:8.1f} ms ({100*k_time[k]/tot:5.1f}%)')
    mean_k = sum(k * v for k, v in k_time.items()) / tot
    print(f'  mean runnable count {mean_k:.3f}')
    for p in pids:
        wl = sorted(waitlens[p])
        med = wl[len(wl)//2]/1e6 if wl else 0
        print(f'  {byp[p]:5s}: on CPU {run[p]/1e6:7.1f} ms, runnable waiting {wait[p]/1e6:7.1f} ms '
              f'({nwaits[p]} waits, median {med:.3f} ms, max {max(wl)/1e6 if wl else 0:.3f} ms), '
              f'wait/run {wait[p]/max(run[p],1):.2f}')
    print(f'# per {binms:g} ms bin (ms): k0 k1 k2 k3 | run hog copy probe | wait hog copy probe')
    for b in sorted(bins):
        c = bins[b]
        print(f'{b*binms:6.0f} ' + ' '.join(f'{c["k%d"%k]/1e6:5.1f}' for k in range(4)) + ' | ' +
              ' '.join(f'{c["run_"+n]/1e6:5.1f}' for n in ('hog', 'copy', 'probe')) + ' | ' +
              ' '.join(f'{c["wait_"+n]/1e6:5.1f}' for n in ('hog', 'copy', 'probe')))

if __name__ == '__main__':
    main()
