#!/usr/bin/env python3
"""Account the host-queue writers' and readers' waits after preemptions (pre23, issue 23) from wakers3.bt output.

wakers3.bt (the lead's, /work/quiet/s51/wk, copied with its six runs to s51/) prints a P line per switch-out of
a python3 task that was still runnable (prev_state 0 "R" or >= 256 TASK_REPORT_MAX "R+": preempted), with the task
that replaced it and how long the python3 task had run since its switch-in, and a Q line at its next switch-in (its
wait, behind whom). That wait is exactly what schedstat adds to run_delay for the switch-out (6.18
sched_info_switch(): a preempted prev is sched_info_enqueue()d again, its run_delay grows until it is picked).

Roles as wakers-1201q/summarize_roles.py: the runner forked the others; the writer asked the most bytes of write;
the sampler made the most read calls; the reader is the runner's other task child (its readv is not traced) with the
most P+W lines. Per role, the preemption waits by the preempting task's class (P's next_comm), then the bound
kworkers' among them by the kworker's comm, and by who ran last before the switch-in (Q's prev_comm).

The tracer's own share: bpftrace is woken by its own output (perf buffer wake-ups of the lines the traced switches
print), absent from the untraced recordings; a preemption whose preempting task is bpftrace is counted apart
("bpftrace") and left out of "untraced-comparable". Usage: summarize_preempt.py RUNDIR... (bt.out, traced.json)."""
import collections, json, os, re, sys

import bt_lines

STEP_SLACK_NS = 5_000_000  # the step's end snapshot after its last op


def cls(comm, pid, roles):
    if comm.startswith("kworker/u"):
        return "kworker/u"
    m = re.match(r"kworker/(\d+):", comm)
    if m:
        return f"kworker/{m.group(1)}:N"
    if comm.startswith("swapper"):
        return "idle"
    if comm == "python3":
        return roles.get(pid, "python3-other")
    return re.sub(r"/\d+$", "", comm)


SHAPES = {"P": 8, "Q": 7, "W": 13, "S": 7}  # wakers3.bt's lines and their field counts (bt_lines.parse)


def roles_of(wr, rdn, forks):
    runner, writer, sampler, reader = bt_lines.roles(wr, rdn, forks, kids_only=False)
    return {runner: "runner", writer: "writer", sampler: "sampler", reader: "reader"}


def step_start(pid, P, Q, W, S):
    """The end of the task's longest sleep: its wake-up at the runner's start_at (real.task_main sleeps until
    then, the step's first snapshot follows at once)."""
    ev = sorted([int(x[0]) for x in P + Q + W + S if x[1] == pid])
    gaps = [(ev[i + 1] - ev[i], ev[i + 1]) for i in range(len(ev) - 1)]
    return max(gaps)[1] if gaps else None


def summarize(rundir):
    wr, rdn, forks, lines = bt_lines.parse(os.path.join(rundir, "bt.out"), SHAPES)
    P, Q, W, S = (lines[k] for k in "PQWS")
    roles = roles_of(wr, rdn, forks)
    sched, elapsed = {}, {}
    tj = json.load(open(os.path.join(rundir, "traced.json")))
    for v in tj["variants"].values():
        for s in v["steps"]:
            r = {"r": "reader", "w": "writer"}.get(s["task"], s["task"])
            sched[r] = s["sched"]
            elapsed[r] = s["metrics"]["elapsed_s"]
    # pair each P with the next Q of the same pid
    ev = sorted([(int(p[0]), 0, p) for p in P] + [(int(q[0]), 1, q) for q in Q])
    pend, out = {}, collections.defaultdict(list)
    for t, k, f in ev:
        if k == 0:
            _, pid, state, npid, ncomm, cpu, ran = f
            pend[pid] = dict(t=t, state=int(state), by=cls(ncomm, npid, roles), by_comm=ncomm, cpu=cpu, ran=int(ran))
        else:
            _, pid, wait, ppid, pcomm, cpu = f
            if pid in pend:
                e = pend.pop(pid)
                e.update(wait=int(wait), behind=cls(pcomm, ppid, roles), back_cpu=cpu)
                out[pid].append(e)
    print(f"== {os.path.basename(rundir.rstrip('/'))}  roles: " + ", ".join(f"{r} {p}" for p, r in roles.items()))
    inv = {r: p for p, r in roles.items()}
    for pid, role in roles.items():
        if role not in ("writer", "reader"):
            continue
        s = sched.get(role, {})
        # the step: from the wake-up at start_at for elapsed_s (the task's post-step work, resident pages and
        # its report, runs 0.7-0.9 s before its exit: not in the step)
        t0 = step_start(inv["reader"], P, Q, W, S)  # the reader's: the two share start_at
        t1 = t0 + int(elapsed[role] * 1e9) + STEP_SLACK_NS
        es = [e for e in out.get(pid, []) if t0 <= e["t"] <= t1]
        # the waits after wake-ups (S lines) in the step, for the total
        sw = [int(x[2]) for x in S if x[1] == pid and t0 < int(x[0]) <= t1]
        nb = [e for e in es if e["by"] != "bpftrace"]
        clean = [e for e in nb if e["behind"] != "bpftrace"]
        print(f" {role} {pid}: schedstat (this traced run's step) run_delay {s.get('run_delay_s', 0)*1e3:.2f} ms over"
              f" {s.get('runs')} switch-ins, ran {s.get('run_s', 0)*1e3:.1f} ms; in the step preempted {len(es)} times,"
              f" {sum(e['wait'] for e in es)/1e6:.2f} ms waiting; preemptor not bpftrace {len(nb)},"
              f" {sum(e['wait'] for e in nb)/1e6:.2f} ms (R {sum(e['state'] == 0 for e in nb)},"
              f" R+ {sum(e['state'] != 0 for e in nb)}); nor bpftrace last before the switch-in {len(clean)},"
              f" {sum(e['wait'] for e in clean)/1e6:.2f} ms; after wake-ups (S) {len(sw)}, {sum(sw)/1e6:.2f} ms;"
              f" traced in all {(sum(e['wait'] for e in es) + sum(sw))/1e6:.2f} ms over {len(es) + len(sw)} switch-ins")
        by = collections.defaultdict(list)
        for e in es:
            by[e["by"]].append(e)
        for c, l in sorted(by.items(), key=lambda kv: -sum(e["wait"] for e in kv[1])):
            ws = sorted(e["wait"] for e in l)
            rs = sorted(e["ran"] for e in l)
            beh = collections.Counter(e["behind"] for e in l)
            cl = [e["wait"] for e in l if e["behind"] != "bpftrace"]
            print(f"   by {c:16s} {len(l):4d}: wait {sum(ws)/1e6:6.2f} ms (median {ws[len(ws)//2]/1e3:6.1f} us,"
                  f" max {ws[-1]/1e3:7.1f}); without bpftrace last {len(cl)}: {sum(cl)/1e6:6.2f} ms;"
                  f" ran before median {rs[len(rs)//2]/1e3:7.1f} us; R+ {sum(e['state'] != 0 for e in l)};"
                  f" last before the switch-in: " + ", ".join(f"{k} {n}" for k, n in beh.most_common(4)))
        kb = [e for e in nb if re.match(r"kworker/\d+:N", e["by"])]
        if kb:
            cc = collections.Counter(e["by_comm"] for e in kb)
            print("   bound kworkers by comm: " + ", ".join(f"{k} {n}" for k, n in cc.most_common()))


if __name__ == "__main__":
    for d in sys.argv[1:]:
        summarize(d)
