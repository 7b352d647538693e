#!/usr/bin/env python3
"""kwlag58 (issue 23): per bound kworker on the scenario writer's CPU, what it runs between two of the writer's
vmpressure works and its EEVDF lag at each wake-up, pick and sleep (kw.bt's lines; 6.18 kernel/sched/fair.c).

    python3 summarize.py k1 [k2 ...]        (each DIR holds bt.out or bt.out.xz)

The writer: the LAST python3 to queue vmpressure works (summarize_vmp.writer_of()'s rule: the runner's host-cost
calibration readers queue them first). Its CPU: where it queued most of them. A "run" of a kworker: from its pick
(I line) to its switch-out (O line); its works: the X lines between. Lags in us of the root cfs_rq's virtual time:
  at a pick       avg_vruntime() - vruntime, avg_vruntime() with the kworker as curr (6.18: curr is out of
                  sum_w_vruntime / sum_weight; weights scale_load_down()'d, nice 0 = 1024)
  at a sleep      se->vlag as dequeue_entity() -> update_entity_lag() saved it (not delayed), or, DELAY_DEQUEUE
                  (sched_delayed 1), avg_vruntime() - vruntime with the next entity as curr
  at a wake-up    the lag saved at the kworker's last sleep (what place_entity() applies with PLACE_LAG; a delayed
                  one is requeued instead: requeue_delayed_entity(), DELAY_ZERO cuts a positive lag to 0)
"""
import lzma, os, statistics, sys
from collections import Counter, defaultdict

W0 = 1024  # scale_load_down(NICE_0_LOAD)


def lines(d):
    p = os.path.join(d, 'bt.out')
    f = open(p) if os.path.exists(p) else lzma.open(p + '.xz', 'rt')
    with f:
        for ln in f:
            if ln[:2] in ('Q ', 'W ', 'X ', 'Y ', 'I ', 'O ', 'S ', 'T ', 'V '):
                yield ln.split()


def avg(zero, sum_w, sum_weight, cvr=None, cw=0):
    """avg_vruntime(): zero_vruntime + (sum_w_vruntime + key(curr) * w(curr)) / (sum_weight + w(curr))."""
    if cvr is not None and cw:
        sum_w += (cvr - zero) * cw
        sum_weight += cw
    if sum_weight == 0:
        return cvr if cvr is not None else zero
    # the kernel's div_s64 truncates toward 0 (it then floors a negative key: 6.18 avg_vruntime(): "sign flips
    # effective floor / ceiling"); the ns difference is immaterial here
    return zero + int(sum_w / sum_weight)


def analyse(d):
    ev = list(lines(d))
    for e in ev:   # a comm may hold spaces: Q's function is the field before '|'
        if e[0] == 'Q':
            e.append(e[e.index('|') - 1])
    vq = [e for e in ev if e[0] == 'Q' and e[-1] == 'vmpressure_work_fn']
    py = [e for e in vq if e[4] == 'python3']
    writer = py[-1][3]
    wq = [e for e in py if e[3] == writer]
    wcpu = Counter(e[2] for e in wq).most_common(1)[0][0]
    t0, t1 = int(wq[0][1]), int(wq[-1][1])
    print(f'== {d}: writer {writer}, {len(wq)} vmpressure works queued by it, {sum(1 for e in wq if e[2] == wcpu)} '
          f'on CPU {wcpu}, step {(t1 - t0) / 1e9:.3f} s')
    kcomm = {}
    runs = defaultdict(list)   # kpid -> [run dict]
    cur = {}                   # kpid -> open run
    lastsleep = {}             # kpid -> (t, lag, delayed)
    wakes = defaultdict(list)  # kpid -> [wake dict]
    pendingwake = {}
    lastq = {}                 # cpu -> last Q line (the work a wake-up came with)
    ticks, vwakes, wsleeps = defaultdict(list), defaultdict(list), defaultdict(list)
    for e in ev:
        k = e[0]
        if k == 'T':
            ticks[e[2]].append(int(e[1]))
        elif k == 'V':
            vwakes[e[-1]].append((int(e[1]), ' '.join(e[4:-1])))
        elif k == 'S' and e[3] == writer and e[e.index(e[3]) + 2] not in ('0', '256'):
            wsleeps[e[2]].append(int(e[1]))
        if k == 'Q':
            lastq[e[2]] = e
        elif k == 'W':
            i = max(j for j in range(5, len(e)) if e[j].startswith('kworker/') and e[j - 1].isdigit())
            e = e[:3] + [e[3], ' '.join(e[4:i - 1])] + e[i - 1:]
            kp = e[5]
            q = lastq.get(e[2])
            w = {'t': int(e[1]), 'waker': e[4], 'wpid': e[3], 'kpid': kp, 'on': e[8] if len(e) > 8 else None,
                 'work': q[-1] if q and int(e[1]) - int(q[1]) < 200000 else '?',
                 'prev': lastsleep.get(kp)}
            wakes[kp].append(w)
            pendingwake[kp] = w
        elif k == 'I':
            kp = e[3]
            kcomm[kp] = e[4]
            if kp in cur:     # picked again after a preemption: the same run
                continue
            p = e.index('|')
            vr, dl, vprot, sl, se = map(int, e[p + 1:p + 6])
            nrq, zero, sw, swt = int(e[p + 7]), int(e[p + 8]), int(e[p + 9]), int(e[p + 10])
            lag = avg(zero, sw, swt, vr, W0) - vr
            r = {'t': int(e[1]), 'cpu': e[2], 'lag_pick': lag, 'se0': se, 'works': [], 'nrq': nrq,
                 'prev_state': int(e[e.index('|') - 1]),
                 'wake': pendingwake.pop(kp, None), 'prev': e[5]}
            cur[kp] = r
        elif k == 'X':
            r = cur.get(e[3])
            if r is not None:
                r['works'].append(e[4])
        elif k == 'O':
            kp = e[3]
            p = e.index('|')
            vr, dl, vlag, sl, onrq, dly, se = map(int, e[p + 1:p + 8])
            p2 = e.index('|', p + 1)
            nrq, zero, sw, swt = map(int, e[p2 + 1:p2 + 5])
            cvr, cw, con = int(e[p2 + 6]), int(e[p2 + 7]), int(e[p2 + 8])
            state = int(e[4])
            r = cur.pop(kp, None)
            if r is None:
                continue
            r['tout'] = int(e[1])
            r['run'] = se - r['se0']
            r['state'] = state
            # prev_state (__trace_sched_switch_state()): 0 runnable, 256 (TASK_REPORT_MAX) preempted, else a sleep
            # (a kworker's TASK_IDLE shows as 128, TASK_REPORT_IDLE; 2 TASK_UNINTERRUPTIBLE)
            if state in (0, 256):
                r['preempted'] = r.get('preempted', 0) + 1
                cur[kp] = r   # still queued: the run goes on at its next pick
                continue
            if True:
                if dly:
                    lag = avg(zero, sw, swt, cvr, (cw >> 10) if con else 0) - vr
                else:
                    lag = vlag
                r['lag_sleep'] = lag
                r['delayed'] = dly
                lastsleep[kp] = (int(e[1]), lag, dly)
            runs[kp].append(r)
    # the writer's CPU's kworkers that ran its vmpressure works within the step
    wqt = sorted(int(e[1]) for e in wq if e[2] == wcpu)
    out = []
    for kp, rs in runs.items():
        rs = [r for r in rs if r['cpu'] == wcpu and t0 <= r['t'] <= t1 + 5_000_000]
        nv = sum(r['works'].count('vmpressure_work_fn') for r in rs)
        if nv == 0:
            continue
        out.append((nv, kp, rs))
    out.sort(reverse=True)
    for nv, kp, rs in out:
        allw = Counter(w for r in rs for w in r['works'])
        run_by = defaultdict(int)
        for r in rs:
            if 'run' in r and r['works']:
                for w in set(r['works']):
                    run_by[w] += r['run'] / len(set(r['works']))
        print(f'-- kworker {kp} {kcomm[kp]} on CPU {wcpu}: {len(rs)} runs in the step, works: ' +
              ', '.join(f'{w} {n}' for w, n in allw.most_common()))
        # wake-ups of this kworker in the step: by the work that came with it
        ws = [w for w in wakes[kp] if t0 <= w['t'] <= t1 + 5_000_000]
        bywork = defaultdict(list)
        ended, gains = {}, {}
        for r in rs:
            w = r['wake']
            if w is None or 'lag_sleep' not in r:
                continue
            on = w['on']
            on = '' if on is None else ('/on:writer' if on == writer else ('/on:idle' if on == '0' else '/on:other'))
            key = (w['work'], ('writer' if w['wpid'] == writer else ('python3' if w['waker'] == 'python3' else 'other')) + on)
            if key[0] == 'vmpressure_work_fn' and w['wpid'] == writer:
                # clock56: a preempting wake-up is switched to within ~1 ms, a kept one at a tick 1.4-5.4 ms on
                key = (key[0] + (' <1ms' if r['t'] - w['t'] < 1_000_000 else ' >=1ms'), key[1])
            prev = w['prev'][1] if w['prev'] else None
            bywork[key].append((prev, r['lag_pick'], r['t'] - w['t'], r['run'], r['lag_sleep'], r['delayed'],
                                r['prev'] == writer and r['prev_state'] == 256))
            if key[0] == 'vmpressure_work_fn >=1ms' and (ticks or vwakes):
                # what ended the wait: the last tick or other wake-up on the CPU before the pick (both run
                # update_curr(), which reschedules once protect_slice() is over), or the writer's sleep
                c, tw, tp = r['cpu'], w['t'], r['t']
                lt = max((t for t in ticks[c] if tw < t < tp), default=None)
                lv = max((v for v in vwakes[c] if tw < v[0] < tp), default=None)
                sl = any(tw < t <= tp for t in wsleeps[c])
                how = 'writer slept' if sl or r['prev'] != writer else (
                    'tick' if lt is not None and (lv is None or lt > lv[0]) else ('wake-up ' + lv[1] if lv else 'none'))
                ended.setdefault(kp, Counter())[how.split('/')[0]] += 1
                gains.setdefault(kp, []).append((how, (tp - (lt if how == 'tick' else tp)) / 1e3, r['lag_pick'] - (prev or 0)))
        print('   wake-ups by (work queued just before, waker): n | lag at wake (saved vlag) median | wait wake->pick '
              'median / mean us | lag at pick median | run median / mean us | lag at sleep median | delayed at sleep | '
              'gain (pick - wake) mean | lag change wake->sleep mean, sum (ms) | picked by preempting the writer (R+)')
        for key, v in sorted(bywork.items(), key=lambda kv: -len(kv[1])):
            pv = [x[0] for x in v if x[0] is not None]
            med = lambda a: statistics.median(a) / 1e3 if a else float('nan')
            mean = lambda a: statistics.mean(a) / 1e3 if a else float('nan')
            gain = [x[1] - x[0] for x in v if x[0] is not None]
            chg = [x[4] - x[0] for x in v if x[0] is not None]
            print(f'   {key[0]:28s} {key[1]:17s} n={len(v):4d} | {med(pv):8.1f} | {med([x[2] for x in v]):7.1f} / '
                  f'{mean([x[2] for x in v]):7.1f} | {med([x[1] for x in v]):8.1f} | {med([x[3] for x in v]):6.1f} / '
                  f'{mean([x[3] for x in v]):6.1f} | {med([x[4] for x in v]):8.1f} | {sum(x[5] for x in v):3d} | '
                  f'{mean(gain):8.1f} | {mean(chg):8.1f}, {sum(chg) / 1e6:7.2f} | {sum(x[6] for x in v)}')
        if kp in ended:
            print('   kept vmpressure wake-ups (>=1 ms to the pick), what preceded the pick: ' +
                  ', '.join(f'{h} {n}' for h, n in ended[kp].most_common()))
            tk = [g for g in gains[kp] if g[0] == 'tick']
            if tk:
                print(f'     after a tick: pick {statistics.median([g[1] for g in tk]):.1f} us after it (median); lag '
                      f'gain wake->pick mean {statistics.mean([g[2] for g in tk]) / 1e3:.1f} us')
        # segments between two vmpressure works: the runs after the run holding vmpressure work i up to and
        # including the run holding work i+1
        idx = [i for i, r in enumerate(rs) if 'vmpressure_work_fn' in r['works']]
        segs = []
        for a, b in zip(idx, idx[1:]):
            ra, rb = rs[a], rs[b]
            between = rs[a + 1:b]
            other = Counter(w for r in between for w in r['works'])
            other.update(w for w in rb['works'] if w != 'vmpressure_work_fn')
            rt = sum(r.get('run', 0) for r in between)
            la = ra.get('lag_sleep')
            wb = rb['wake']
            lw = wb['prev'][1] if wb and wb['prev'] else None
            segs.append({'dt': rb['t'] - ra['t'], 'n_runs': len(between), 'other': other, 'runtime': rt,
                         'lag_after_vmp': la, 'lag_at_vmp_wake': lw, 'vmp_wake_writer': bool(wb and wb['wpid'] == writer),
                         'lag_pick_vmp': rb['lag_pick']})
        if not segs:
            continue
        n = len(segs)
        med = lambda a: statistics.median(a) / 1e3 if a else float('nan')
        mean = lambda a: statistics.mean(a) / 1e3 if a else float('nan')
        ww = [s for s in segs if s['vmp_wake_writer'] and s['lag_at_vmp_wake'] is not None]
        print(f'   between two vmpressure works ({n} gaps; {len(ww)} where the second was woken by the writer):')
        print(f'     gap median {med([s["dt"] for s in segs]):.1f} us; other runs in the gap: median '
              f'{statistics.median([s["n_runs"] for s in segs])}, mean {statistics.mean([s["n_runs"] for s in segs]):.2f}; '
              f'their CPU time median {med([s["runtime"] for s in segs]):.1f} us, mean {mean([s["runtime"] for s in segs]):.1f} us')
        oc = Counter()
        for s in segs:
            oc.update(s['other'])
        print('     works in the gaps (total): ' + ', '.join(f'{w} {c}' for w, c in oc.most_common(8)))
        nz = sum(1 for s in segs if s['n_runs'] == 0)
        print(f'     gaps with no other run: {nz}')
        if ww:
            la = [s['lag_after_vmp'] for s in ww if s['lag_after_vmp'] is not None]
            lw = [s['lag_at_vmp_wake'] for s in ww]
            d = [s['lag_at_vmp_wake'] - s['lag_after_vmp'] for s in ww if s['lag_after_vmp'] is not None]
            d0 = [s['lag_at_vmp_wake'] - s['lag_after_vmp'] for s in ww if s['lag_after_vmp'] is not None and s['n_runs'] == 0]
            d1 = [s['lag_at_vmp_wake'] - s['lag_after_vmp'] for s in ww if s['lag_after_vmp'] is not None and s['n_runs'] > 0]
            print(f'     the writer\'s wake-ups: kworker lag at the sleep after work i median {med(la):.1f} us, at the '
                  f'wake-up for work i+1 (saved vlag) median {med(lw):.1f} / mean {mean(lw):.1f} us')
            print(f'     lag change across the gap: median {med(d):.1f}, mean {mean(d):.1f} us; gaps with other runs '
                  f'({len(d1)}): mean {mean(d1):.1f} us; with none ({len(d0)}): mean {mean(d0):.1f} us')


if __name__ == '__main__':
    for d in sys.argv[1:]:
        analyse(d)
