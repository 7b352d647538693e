#!/usr/bin/env python3
"""lag23: 6.18's wake-up decision at each vmpressure kworker wake-up of a lag.bt trace, against the rule.

    python3 summarize_lag.py [--step-writer] DIR [DIR...]      (DIR holds bt.out or bt.out.xz from lag.bt)

Per wake-up (an L line and its G lines, right after the writer's Q line of vmpressure_work_fn on the same CPU; the
writer is the python3 that queued the most vmpressure works): the OBSERVED decision is whether
check_preempt_wakeup_fair() set the writer's need_resched (thread_info.flags & 0x18, x86 6.13+ TIF_NEED_RESCHED |
TIF_NEED_RESCHED_LAZY) at the wake-up when it was clear at the queue (set before: 'unknown'); the PREDICTED one
applies kernel/sched/fair.c 6.18 __pick_eevdf(cfs_rq, protect = true) at the root cfs_rq, whose curr is the
writer's top entity (the G line of depth 0): vruntime_eligible(): with curr's own term on both sides cancelling,
curr is eligible iff (vruntime - zero_vruntime) * sum_weight <= sum_w_vruntime (the tree's entities only);
not eligible -> preempt (curr = NULL; the kworker, placed with positive lag, is then the pick if its deadline is
the earliest: taken as so); eligible and protect_slice() (vruntime < vprot, the union's value while curr) -> keep;
eligible, slice over -> preempt iff the kworker's deadline is before curr's. Wake-ups whose L line's leftmost
entity is not the woken kworker (pid differs) use the kworker's deadline as unknown (rule: eligibility only).
"""
import collections, lzma, os, sys


def lines(d):
    p = os.path.join(d, 'bt.out')
    f = lzma.open(p + '.xz', 'rt') if not os.path.exists(p) else open(p)
    with f:
        for ln in f:
            yield ln.split()


def s64(x):
    x = int(x)
    return x - (1 << 64) if x >= 1 << 63 else x


def analyse(d):
    rows = list(lines(d))
    q = collections.Counter(r[3] for r in rows if r and r[0] == 'Q' and r[-1] == 'vmpressure_work_fn')
    if not q:
        return f'== {d}: no vmpressure works queued'
    writer = q.most_common(1)[0][0]
    if STEP_WRITER:
        # lag56: the scenario's writer is the LAST python3 to queue vmpressure works; the ones before it are the
        # runner's host-cost calibration readers (hostcal.reclaim_call_ns(): one child a read, in a 20M memcg),
        # which the default (the most works queued) picked in q1, q2, q1045-1 and q1045-2
        last = {}
        for r in rows:
            if r and r[0] == 'Q' and r[-1] == 'vmpressure_work_fn':
                last[r[3]] = int(r[1])
        writer = max(last, key=last.get)
    last_q = {}
    out = collections.Counter()
    i = 0
    while i < len(rows):
        r = rows[i]
        if r and r[0] == 'Q' and r[3] == writer:
            last_q[r[2]] = (int(r[1]), int(r[4], 16), r[-1])
        if r and r[0] == 'L':
            cpu = r[2]
            g = []
            j = i + 1
            while j < len(rows) and rows[j] and rows[j][0] == 'G':
                g.append(rows[j])
                j += 1
            qq = last_q.pop(cpu, None)
            i = j
            if not qq or qq[2] != 'vmpressure_work_fn' or int(r[1]) - qq[0] > 100_000:
                continue
            tif_q, tif_l = qq[1], int(r[5], 16)
            obs = 'unknown' if tif_q & 0x18 else ('preempt' if tif_l & 0x18 else 'keep')
            top = [x for x in g if x[3] == '0']
            if not top:
                out[('no root entity', obs)] += 1
                continue
            t = top[0]
            vr, dl, prot = int(t[4]), int(t[5]), int(t[6])
            zero, sum_w, sum_weight = int(t[12]), s64(t[13]), int(t[14])
            eligible = (vr - zero) * sum_weight <= sum_w
            kpid_ok = r[13] == r[3]
            kdl = int(r[15]) if kpid_ok else None
            if not eligible:
                pred = 'preempt'
            elif vr < prot:
                pred = 'keep'
            elif kdl is None:
                pred = 'preempt?'
            else:
                pred = 'preempt' if kdl < dl else 'keep'
            out[(('eligible' if eligible else 'not eligible') + (', protected' if eligible and vr < prot else ''), pred, obs)] += 1
            continue
        i += 1
    res = [f'== {d}: writer pid {writer}, {q[writer]} vmpressure works queued']
    right = sum(n for k, n in out.items() if len(k) == 3 and k[1] == k[2])
    known = sum(n for k, n in out.items() if len(k) == 3 and k[2] != 'unknown' and not k[1].endswith('?'))
    open_ = sum(n for k, n in out.items() if len(k) == 3 and k[2] != 'unknown' and k[1].endswith('?'))
    for k, n in sorted(out.items(), key=lambda kv: (-kv[1], kv[0])):
        res.append(f'  {n:5d}  ' + '  '.join(k))
    res.append(f'  the rule right at {right} of the {known} wake-ups with an observed decision and a definite prediction;'
               f' {open_} more with the kworker\'s deadline unread (eligible, slice over: "preempt?")')
    return '\n'.join(res)


STEP_WRITER = False

if __name__ == '__main__':
    args = sys.argv[1:]
    if '--step-writer' in args:
        # lag56: the scenario's writer (the last python3 to queue a vmpressure work), not the runner's hostcal readers
        STEP_WRITER = True
        args.remove('--step-writer')
    for d in args:
        print(analyse(d))
