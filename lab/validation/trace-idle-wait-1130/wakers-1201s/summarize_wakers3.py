#!/usr/bin/env python3
"""Summarise wakers3.bt output (lab/validation/trace-idle-wait-1130/wakers-1201s, sis23, issue 23, review51 M3/M4).

Per writer wake-up by an unbound kworker (kworker/u*: the write completion's work, wakers-1201q): the writer's
previous CPU (task_cpu() at the wake-up: its last switch-in CPU, or the orig_cpu of the sched_migrate_task that
select_task_rq() caused just before the wake-up), the CPU it landed on (the waker's W or the other O), what ran on
the OTHER CPU at the wake-up (idle = swapper; the scenario's reader / sampler / runner, bpftrace, a kworker, other),
the "recent_used_cpu" proxy (the writer's previous CPU at its previous wake-up: select_idle_sibling() sets
p->recent_used_cpu = prev at each call), and the wait to its switch-in. Roles as summarize_roles.py (wakers-1201q)
tells them apart: the runner forked the others; the writer wrote the most bytes; the sampler made the most read
calls; the reader is the runner's other child with the most wake-ups.

Also per run: the share of ALL python3 wake-ups (W lines, both CPUs sampled) at which each CPU ran something, by
class: a sampled (wake-up-biased) picture of the LLC's utilisation, which SIS_UTIL's nr_idle_scan follows.

Usage: summarize_wakers3.py RUNDIR... (each with bt.out or bt.out.zst, and traced.json)."""
import collections, json, os, re, subprocess, sys


def cls(comm, pid, roles):
    if comm.startswith("swapper"):
        return "idle"
    if comm.startswith("kworker/u"):
        return "kworker/u"
    if comm.startswith("kworker/"):
        return "kworker/bound"
    if comm == "python3":
        return roles.get(pid, "python3-other")
    if comm in ("bpftrace",):
        return comm
    return "other"


def lines_of(rundir):
    """bt.out, or bt.out.zst (as kept here) through zstd -dc."""
    path = os.path.join(rundir, "bt.out")
    if os.path.exists(path):
        return open(path, errors="replace").read().splitlines()
    out = subprocess.run(["zstd", "-dc", path + ".zst"], check=True, capture_output=True).stdout
    return out.decode(errors="replace").splitlines()


def parse(rundir):
    wr, rdn, forks, ev = {}, {}, [], []
    for line in lines_of(rundir):
        f = line.split()
        if not f:
            continue
        m = re.match(r"@(wr|wrn|rd|rdn)\[(\d+)\]: (\d+)", line)
        if m:
            if m.group(1) == "wr":
                wr[m.group(2)] = int(m.group(3))
            elif m.group(1) == "rdn":
                rdn[m.group(2)] = int(m.group(3))
        elif f[0] == "F" and len(f) == 4:
            forks.append((f[2], f[3]))
        elif f[0] in ("W", "S", "P", "Q", "M") and len(f) >= 4:
            ev.append(f)
    return wr, rdn, forks, ev


def roles_of(wr, rdn, forks, ev):
    parents = collections.Counter(p for p, c in forks)
    runner = parents.most_common(1)[0][0]
    kids = {c for p, c in forks if p == runner}
    writer = max((p for p in wr if p != runner), key=lambda p: wr[p])
    sampler = max((p for p in rdn if p not in (runner, writer)), key=lambda p: rdn[p])
    nw = collections.Counter(f[2] for f in ev if f[0] == "W")
    reader = max((p for p in kids if p not in (writer, sampler)), key=lambda p: nw[p])
    return {runner: "runner", writer: "writer", sampler: "sampler", reader: "reader"}


def summarize(rundir, tot):
    wr, rdn, forks, ev = parse(rundir)
    roles = roles_of(wr, rdn, forks, ev)
    writer = [p for p, r in roles.items() if r == "writer"][0]
    sched = {}
    tj = json.load(open(os.path.join(rundir, "traced.json")))
    for v in tj["variants"].values():
        for s in v["steps"]:
            sched[{"r": "reader", "w": "writer"}.get(s["task"], s["task"])] = s["sched"]
    cpu_of, mig, pend, last_prev, out = {}, {}, {}, {}, []
    util = collections.Counter()
    nW = 0
    preempt = collections.Counter()
    for f in ev:
        k = f[0]
        if k == "M":
            _, t, pid, o, d = f[:5]
            mig[pid] = (int(t), o, d)
            cpu_of.setdefault(pid, o)
        elif k == "W":
            t, wakee, wpid, wcomm, wcpu, tcpu, cpid, ccomm, cran, opid, ocomm, oran = f[1:13]
            nW += 1
            util[("target", cls(ccomm, cpid, roles))] += 1
            util[("other", cls(ocomm, opid, roles))] += 1
            m = mig.pop(wakee, None)
            prev = m[1] if m and m[2] == tcpu and int(t) - m[0] < 1_000_000 else cpu_of.get(wakee)
            if wakee == writer and wcomm.startswith("kworker/u"):
                pend[wakee] = dict(t=int(t), wcpu=wcpu, tcpu=tcpu, prev=prev, recent=last_prev.get(wakee),
                                   on_w=wcpu == tcpu, waker_runs_target=cpid == wpid,
                                   other=cls(ocomm, opid, roles), target=cls(ccomm, cpid, roles),
                                   kw_ran=int(cran))
            if wakee == writer:
                last_prev[wakee] = prev
        elif k == "S":
            _, t, wakee, wait, ppid, pcomm, cpu = f[:7]
            cpu_of[wakee] = cpu
            mig.pop(wakee, None)
            if wakee in pend:
                e = pend.pop(wakee)
                e["wait"] = int(wait)
                e["behind"] = cls(pcomm, ppid, roles)
                out.append(e)
        elif k == "Q":
            _, t, pid, wait, ppid, pcomm, cpu = f[:7]
            cpu_of[pid] = cpu
        elif k == "P":
            _, t, pid, st, npid, ncomm, cpu = f[:7]
            if pid == writer:
                preempt[cls(ncomm, npid, roles)] += 1
    s = sched.get("writer", {})
    print(f"== {os.path.basename(rundir.rstrip('/'))}  roles: " + ", ".join(f"{r} {p}" for p, r in roles.items()))
    print(f"  writer: schedstat run_delay {s.get('run_delay_s', 0)*1e3:.2f} ms over {s.get('runs')} switch-ins,"
          f" run {s.get('run_s', 0)*1e3:.0f} ms; the runner's background_runnable {s.get('background_runnable')}"
          f" (bpftrace included); preempted (switched out runnable) {sum(preempt.values())} times, by: "
          + ", ".join(f"{c} {n}" for c, n in preempt.most_common()))
    print(f"  writer's wake-ups by kworker/u: {len(out)}; landed on the kworker's CPU W: {sum(e['on_w'] for e in out)}"
          f" (the waking kworker still running there: {sum(e['on_w'] and e['waker_runs_target'] for e in out)})")
    tab = collections.Counter()
    waits = collections.defaultdict(int)
    for e in out:
        key = ("prev=W" if e["prev"] == e["wcpu"] else "prev=O" if e["prev"] is not None else "prev=?",
               "landed W" if e["on_w"] else "landed O", "O " + (e["other"] if e["on_w"] else e["target"]))
        tab[key] += 1
        waits[key] += e["wait"]
        tot[key] += 1
        tot[("wait",) + key] += e["wait"]
    for key in sorted(tab):
        print(f"    {key[0]:6s} {key[1]:8s} {key[2]:22s} {tab[key]:3d}  wait {waits[key]/1e6:6.2f} ms")
    # M3's case: landed on W with O idle, by prev and the recent_used_cpu proxy
    m3 = [e for e in out if e["on_w"] and e["other"] == "idle"]
    if m3:
        rc = collections.Counter(("prev=W" if e["prev"] == e["wcpu"] else "prev=O",
                                  "recent=O" if e["recent"] is not None and e["recent"] != e["wcpu"] else "recent=W/none") for e in m3)
        print("  landed on W with O idle, by prev and recent_used_cpu proxy: " + ", ".join(f"{a} {b}: {n}" for (a, b), n in sorted(rc.items())))
    print(f"  all {nW} python3 wake-ups: what ran on the target / other CPU: "
          + "; ".join(f"{w} " + ", ".join(f"{c} {100*util[(w, c)]/nW:.0f}%" for c in sorted({c for (x, c) in util if x == w}, key=lambda c: -util[(w, c)]))
                      for w in ("target", "other")))
    return out


tot = collections.Counter()
for d in sys.argv[1:]:
    summarize(d, tot)
print("== all runs: writer's kworker/u wake-ups by (prev CPU, landing, the other CPU's state), count / wait")
for key in sorted(k for k in tot if k[0] != "wait"):
    print(f"    {key[0]:6s} {key[1]:8s} {key[2]:22s} {tot[key]:3d}  {tot[('wait',)+key]/1e6:6.2f} ms")
