#!/usr/bin/env python3
"""vmp23: summarize vmp.bt's output (bt.out) for the host-queue writer: the python3 pid whose memcg reclaims
last the longest and come last (the runner's host-cost probes before it reclaim ~1.3-1.7 s each)."""
import bisect, collections, lzma, os, re, sys


def writer_of(reclaim_begins):
    """The scenario's writer: the pid of the last memcg reclaim begin (`R` line, fields after the letter
    `[time, pid]`), the runner's host-cost probes reclaiming before it in processes of their own."""
    return reclaim_begins[-1][1]


def queue_to_run(queued, runs, scans):
    """Each queued work (`queued`: times of its `workqueue_queue_work`) with the first run of that work starting at or
    after it (`runs`: sorted `execute_start` times): [(queue, run, pages scanned strictly between)], `scans` the
    writer's sorted (time, nr_scanned) of `shrink_inactive_list()`; a queue with no later run is left out."""
    out = []
    for a in queued:
        k = bisect.bisect_left(runs, a)
        if k < len(runs):
            out.append((a, runs[k], sum(n for t, n in scans if a < t < runs[k])))
    return out


def main():
    f = sys.argv[1] + '/bt.out'
    L = (open(f).read() if os.path.exists(f) else lzma.open(f + '.xz', 'rt').read()).split('\n')
    ev = []
    i = 0
    while i < len(L):
        l = L[i]
        if l.startswith('P '):
            st = []
            j = i + 1
            while j < len(L) and L[j].startswith((' ', '\t')):
                st.append(L[j].strip())
                j += 1
            ev.append(('P', l.split(), st))
            i = j
            continue
        if re.match(r'^[RrIAE] \d', l):
            ev.append((l[0], l.split(), None))
        i += 1
    R = [e[1] for e in ev if e[0] == 'R']
    w = writer_of([x[1:] for x in R])  # the last memcg reclaimer: the writer
    t0 = min(int(x[1]) for x in R if x[2] == w)
    t1 = max(int(e[1][1]) for e in ev if e[0] == 'r' and e[1][2] == w)
    print(f'writer pid {w}: memcg reclaims from {t0} to {t1} ns ({(t1 - t0) / 1e9:.3f} s)')
    Iw = [e[1] for e in ev if e[0] == 'I' and e[1][2] == w]
    print(f'memcg reclaim calls {sum(1 for x in R if x[2] == w)}, shrink_inactive_list calls {len(Iw)}: scanned {sum(int(x[3]) for x in Iw)}, '
          f'reclaimed {sum(int(x[4]) for x in Iw)}, dirty {sum(int(x[5]) for x in Iw)}, file activated {sum(int(x[6]) for x in Iw)}')
    print('pages scanned per shrink_inactive_list call (count):', collections.Counter(int(x[3]) for x in Iw).most_common(8))
    print('priority (count):', collections.Counter(int(x[7]) for x in Iw).most_common(13))
    A = [e[1] for e in ev if e[0] == 'A' and e[1][2] == w]
    print('works queued by the writer:', collections.Counter(x[5] for x in A).most_common(6))
    E = [e[1] for e in ev if e[0] == 'E' and e[1][4] == 'vmpressure_work_fn' and t0 <= int(e[1][1]) <= t1 + 10**7]
    print('vmpressure_work_fn runs in the writer\'s reclaim span:', len(E))
    P = [e for e in ev if e[0] == 'P' and e[1][2] == w]
    print('writer preempted:', len(P), collections.Counter(e[1][3] for e in P).most_common(6))
    fr = collections.Counter()
    for e in P:
        if e[1][3].startswith('kworker/') and not e[1][3].startswith('kworker/u'):
            s = [x for x in e[2] if not re.match(r'(__traceiter|__schedule|schedule|preempt_schedule|__cond_resched|raw_spin)', x)]
            fr[' < '.join(s[:3])] += 1
    print('where the writer was when a bound kworker took its CPU (kernel stack, callers):')
    for k, v in fr.most_common(12):
        print(f'  {v:4d} {k}')
    # the writer's own reclaim: pages scanned between two vmpressure_work_fn queues
    q = sorted(int(x[1]) for x in A if x[5] == 'vmpressure_work_fn')
    Is = sorted((int(x[1]), int(x[3])) for x in Iw)
    per = []
    k = 0
    for a, b in zip([t0] + q, q):
        s = 0
        while k < len(Is) and Is[k][0] < b:
            s += Is[k][1]
            k += 1
        per.append(s)
    per.sort()
    if per:
        print(f'pages scanned (shrink_inactive_list nr_scanned) per queued window: median {per[len(per) // 2]}, p10 {per[len(per) // 10]}, p90 {per[len(per) * 9 // 10]}')
    # each queued work: its wait to run (queue -> execute_start) and the writer's scans meanwhile
    E_all = sorted(int(x[1]) for x in (e[1] for e in ev if e[0] == 'E') if x[4] == 'vmpressure_work_fn')
    qr = queue_to_run(q, E_all, Is)
    lat = [e - a for a, e, n in qr]
    pend = [n for a, e, n in qr]
    lat.sort()
    qq = lambda v, p: v[min(len(v) - 1, int(len(v) * p))]
    print('queue -> run of the writer\'s vmpressure work, us: p10 %.0f median %.0f p75 %.0f p90 %.0f max %.0f' % tuple(qq(lat, p) / 1e3 for p in (.1, .5, .75, .9, 1)))
    print(f'works with pages scanned while pending: {sum(1 for x in pend if x)} of {len(pend)}, {sum(pend)} pages in all ({sum(pend) / 512:.0f} windows of 512); '
          f'pending over 1 ms: {sum(1 for x in lat if x > 10**6)}')
    print('pages scanned while pending (count):', collections.Counter(pend).most_common(10))
    c = wn = 0
    for t, n in Is:
        c += n
        if c >= 512:
            wn += 1
            c = 0
    print(f'the writer\'s scans under a work run at once at every window (the engine\'s rule): {wn} windows; queued on the host: {len(q)}')


if __name__ == '__main__':
    main()
