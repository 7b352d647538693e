#!/usr/bin/env python3
"""Name the work the bound kworkers run when they preempt the host-queue writer and reader (pre23, issue 23).

Input: bound.bt output (run.sh). Roles as summarize_preempt.py (writer: most bytes written; sampler: most read calls;
reader: the runner's other child with the most P lines). For each preemption of the writer/reader by a bound kworker
(P line whose next task is kworker/N:M, N:MH), the works that kworker executed between the switch-out and the
preempted task's switch-in (E lines of its tid starting in that window), the task's wait (Q), and who queued
those works (A lines, matched by function and CPU: the last A of that function on that CPU before the run).
Prints per role: preemptions by the first work's function, their waits (sum, median, mean), the works' own runs, and
the queuers; and the task's run from the kworker's wake-up (its K line before the P) to its switch-out (the P), which
schedstat counts as run_delay too (kernel/sched/core.c 6.18 wakeup_preempt() -> rq_clock_skip_update(): the switch at
the task's next cond_resched() runs on the wake-up's rq clock, sched.rs wakeup_preempt_stale_clock()), with the stale
interval that leaves at HZ=250 (a run g < T = 4 ms: g - g^2/(2T) on average; T/2 beyond). Also every bound work's
runs over the whole trace. Usage: summarize_bound.py RUNDIR..."""
import bisect, collections, os, re, sys

import bt_lines


SHAPES = {"P": 7, "Q": 7, "K": 8, "A": 8, "E": 7}  # bound.bt's lines and their field counts (bt_lines.parse)


def roles_of(wr, rdn, forks):
    runner, writer, sampler, reader = bt_lines.roles(wr, rdn, forks, kids_only=True)
    return {writer: "writer", reader: "reader", sampler: "sampler", runner: "runner"}


TICK_NS = 4_000_000  # 1/HZ, the host's CONFIG_HZ=250 (/proc/config.gz)


def stale(g):
    return g - g * g / (2 * TICK_NS) if g < TICK_NS else TICK_NS / 2


def med(l):
    l = sorted(l)
    return l[len(l) // 2] if l else 0


def summarize(rundir):
    wr, rdn, forks, lines = bt_lines.parse(os.path.join(rundir, "bt.out"), SHAPES)
    P, Q, K, A, E = (lines[k] for k in "PQKAE")
    roles = roles_of(wr, rdn, forks)
    inv = {r: p for p, r in roles.items()}
    ev = sorted([(int(p[0]), 0, p) for p in P] + [(int(q[0]), 1, q) for q in Q])
    pend, rows = {}, []
    for t, k, f in ev:
        if k == 0:
            pend[f[1]] = f
        elif f[1] in pend:
            rows.append((pend.pop(f[1]), f))
    by_tid = collections.defaultdict(list)
    for e in E:
        by_tid[e[1]].append((int(e[0]), e[4], int(e[5])))
    for l in by_tid.values():
        l.sort()
    woken = collections.defaultdict(list)
    for k in K:
        woken[k[1]].append(int(k[0]))
    queued = collections.defaultdict(list)
    for a in A:
        queued[(a[1], a[4])].append((int(a[0]), a[6], a[5]))
    print(f"== {os.path.basename(rundir.rstrip('/'))}  roles: " + ", ".join(f"{r} {p}" for p, r in roles.items()))
    out = {}
    for role in ("writer", "reader"):
        pid = inv[role]
        mine = [(p, q) for p, q in rows if p[1] == pid]
        bound = [(p, q) for p, q in mine if re.match(r"kworker/\d+:\d+H?$", p[4])]
        print(f" {role} {pid}: preempted {len(mine)} times, {sum(int(q[2]) for p, q in mine)/1e6:.2f} ms; by a bound"
              f" kworker {len(bound)}, {sum(int(q[2]) for p, q in bound)/1e6:.2f} ms")
        tab = collections.defaultdict(lambda: dict(n=0, wait=[], run=[], clean=[], gap=[], q=collections.Counter()))
        for p, q in bound:
            t0, t1, kpid, cpu = int(p[0]), int(q[0]), p[3], p[5]
            l = by_tid.get(kpid, [])
            i = bisect.bisect_left(l, (t0,))
            works = []
            while i < len(l) and l[i][0] < t1:
                works.append(l[i])
                i += 1
            key = works[0][1] if works else "(none traced)"
            d = tab[key]
            d["n"] += 1
            d["wait"].append(int(q[2]))
            d["run"].append(sum(w[2] for w in works))
            if q[4] == p[4]:
                d["clean"].append(int(q[2]))
            wk = woken.get(kpid, [])
            j = bisect.bisect_right(wk, t0) - 1
            if j >= 0:
                d["gap"].append(t0 - wk[j])
            if works:
                qa = queued.get((key, cpu), [])
                j = bisect.bisect_left(qa, (works[0][0],)) - 1
                if j >= 0:
                    d["q"][qa[j][1] if qa[j][2] != pid else role] += 1
        for k, d in sorted(tab.items(), key=lambda kv: -sum(kv[1]["wait"])):
            print(f"   {k:30s} {d['n']:4d}: wait {sum(d['wait'])/1e6:6.2f} ms (median {med(d['wait'])/1e3:6.1f} us,"
                  f" mean {sum(d['wait'])/d['n']/1e3:6.1f}); the works' run median {med(d['run'])/1e3:6.1f} us, mean"
                  f" {sum(d['run'])/d['n']/1e3:6.1f}; the kworker last before the switch-in {len(d['clean'])}: mean"
                  f" {sum(d['clean'])/max(1, len(d['clean']))/1e3:.1f} us; queued by " +
                  ", ".join(f"{c} {n}" for c, n in d["q"].most_common(4)))
            g = sorted(d["gap"])
            if g:
                print(f"   {'':30s}       from the kworker's wake-up to the switch-out ({len(g)}): median {med(g)/1e3:.1f} us,"
                      f" mean {sum(g)/len(g)/1e3:.1f}, p90 {g[int(len(g) * 0.9)]/1e3:.1f}, max {g[-1]/1e3:.0f}; stale interval at"
                      f" HZ=250: per-sample mean {sum(stale(x) for x in g)/len(g)/1e3:.1f} us, sum {sum(stale(x) for x in g)/1e6:.2f} ms;"
                      f" of the median {stale(med(g))/1e3:.1f} us")
        out[role] = {k: sorted(d["gap"]) for k, d in tab.items() if d["gap"]}
    runs = collections.defaultdict(list)
    for e in E:
        runs[e[4]].append(int(e[5]))
    print(" bound works over the trace (runs, mean us, median us): " + "; ".join(
        f"{k} {len(v)}, {sum(v)/len(v)/1e3:.1f}, {med(v)/1e3:.1f}" for k, v in sorted(runs.items(), key=lambda kv: -len(kv[1]))[:10]))
    return out


if __name__ == "__main__":
    # --runs-json FILE (review52 M1): also write every traced run from the bound kworker's wake-up to the preempted
    # task's switch-out, per run directory, role and first work's function, in ns, sorted (make_queue_scenarios.py
    # reads the writer's vmpressure_work_fn runs of b1 as machine.preempt_resched_runs)
    args, dump = sys.argv[1:], None
    if "--runs-json" in args:
        i = args.index("--runs-json")
        dump, args = args[i + 1], args[:i] + args[i + 2:]
    got = {os.path.basename(d.rstrip("/")): summarize(d) for d in args}
    if dump:
        import json
        with open(dump + ".tmp", "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(dump + ".tmp", dump)
