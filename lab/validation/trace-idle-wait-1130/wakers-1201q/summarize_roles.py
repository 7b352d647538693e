#!/usr/bin/env python3
"""Summarise wakers2.bt output (lab/validation/trace-idle-wait-1130/wakers-1201q, wake23, issue 23) by role.

Roles from the trace's own per-pid syscall sums and fork lines: the runner (the python3 pid that forked the
others), the writer (the most bytes asked of write/pwrite64, the runner excluded), the sampler (the most read
calls, the runner excluded: it reads /proc), the reader (the task process the runner forked alongside the writer
with the most wake-ups; its preadv is not traced). Per role: wake-ups by waker class, placement (on the waker's
CPU, on the wakee's previous CPU = where it last switched in), whether the target CPU was idle at the wake-up,
and the wait to the switch-in by what ran on the target CPU. The trace counts a wake-up onto an idle CPU from
sched_wakeup to the switch-in; schedstat counts it 0 (6.18, wakeup-idle-1130), so `busy` waits are the ones
comparable to run_delay. Usage: summarize_roles.py RUNDIR... (each with bt.out and traced.json)."""
import collections, json, os, re, sys


def cls(comm, pid, roles):
    if comm.startswith("kworker/u"):
        return "kworker/u"
    if comm.startswith("kworker/"):
        return "kworker/bound"
    if comm.startswith("swapper"):
        return "idle(irq)"
    if comm == "python3":
        return roles.get(pid, "python3-other")
    return re.sub(r"[/:].*", "", comm)


def parse(path):
    wr, wrn, rd, rdn, forks, W, S = {}, {}, {}, {}, [], [], []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        m = re.match(r"@(wr|wrn|rd|rdn)\[(\d+)\]: (\d+)", line)
        if m:
            {"wr": wr, "wrn": wrn, "rd": rd, "rdn": rdn}[m.group(1)][m.group(2)] = int(m.group(3))
        elif f[0] == "F" and len(f) == 4:
            forks.append((f[2], f[3]))
        elif f[0] == "W" and len(f) == 10:
            W.append(f[1:])
        elif f[0] == "S" and len(f) == 7:
            S.append(f[1:])
    return wr, wrn, rd, rdn, forks, W, S


def roles_of(wr, rdn, forks, W):
    parents = collections.Counter(p for p, c in forks)
    runner = parents.most_common(1)[0][0]
    kids = {c for p, c in forks if p == runner}
    writer = max((p for p in wr if p != runner), key=lambda p: wr[p])
    sampler = max((p for p in rdn if p not in (runner, writer)), key=lambda p: rdn[p])
    nw = collections.Counter(w[1] for w in W)
    reader = max((p for p in kids if p not in (writer, sampler)), key=lambda p: nw[p])
    return {runner: "runner", writer: "writer", sampler: "sampler", reader: "reader"}


def summarize(rundir):
    wr, wrn, rd, rdn, forks, W, S = parse(os.path.join(rundir, "bt.out"))
    roles = roles_of(wr, rdn, forks, W)
    sched = {}
    tj = json.load(open(os.path.join(rundir, "traced.json")))
    for v in tj["variants"].values():
        for s in v["steps"]:
            sched[{"r": "reader", "w": "writer"}.get(s["task"], s["task"])] = s["sched"]
    # merge W and S in time order
    ev = sorted([(int(w[0]), "W", w) for w in W] + [(int(s[0]), "S", s) for s in S])
    last_cpu, pend, out = {}, {}, collections.defaultdict(list)
    for t, k, f in ev:
        if k == "W":
            _, wakee, wpid, wcomm, wcpu, tcpu, cpid, ccomm, cran = f
            pend[wakee] = dict(t=t, waker=cls(wcomm, wpid, roles), waker_comm=wcomm, on_waker=wcpu == tcpu,
                               on_prev=last_cpu.get(wakee) == tcpu, idle=ccomm.startswith("swapper"),
                               cur=cls(ccomm, cpid, roles) if not ccomm.startswith("swapper") else "idle",
                               cur_ran=int(cran), waker_is_cur=(cpid == wpid), prev_is_waker=last_cpu.get(wakee) == wcpu)
        else:
            _, wakee, wait, ppid, pcomm, cpu = f
            last_cpu[wakee] = cpu
            if wakee in pend:
                e = pend.pop(wakee)
                e["wait"] = int(wait)
                e["behind"] = cls(pcomm, ppid, roles) if not pcomm.startswith("swapper") else "idle"
                out[wakee].append(e)
    print(f"== {rundir}  roles: " + ", ".join(f"{r} {p}" for p, r in roles.items()))
    for pid, role in roles.items():
        if role not in ("writer", "reader"):
            continue
        es = out.get(pid, [])
        s = sched.get(role, {})
        busy = [e for e in es if not e["idle"]]
        print(f" {role} {pid}: schedstat run_delay {s.get('run_delay_s', 0)*1e3:.2f} ms over {s.get('runs')} switch-ins;"
              f" traced wake-ups {len(es)} (wait {sum(e['wait'] for e in es)/1e6:.2f} ms),"
              f" onto a busy CPU {len(busy)} ({sum(e['wait'] for e in busy)/1e6:.2f} ms)")
        by = collections.defaultdict(list)
        for e in es:
            by[e["waker"]].append(e)
        for w, l in sorted(by.items(), key=lambda kv: -len(kv[1])):
            b = [e for e in l if not e["idle"]]
            wcur = [e for e in b if e["waker_is_cur"]]
            print(f"   woken by {w:14s} {len(l):5d}: on waker's CPU {sum(e['on_waker'] for e in l):5d},"
                  f" on prev CPU {sum(e['on_prev'] for e in l):5d}, target idle {len(l)-len(b):5d};"
                  f" busy {len(b):4d} wait {sum(e['wait'] for e in b)/1e6:6.2f} ms"
                  f" (the waker itself running there {len(wcur)}: {sum(e['wait'] for e in wcur)/1e6:.2f} ms,"
                  f" mean {sum(e['wait'] for e in wcur)/max(1,len(wcur))/1e3:.0f} us)")
        cur = collections.defaultdict(lambda: [0, 0])
        for e in busy:
            cur[e["cur"]][0] += 1
            cur[e["cur"]][1] += e["wait"]
        print("   busy wake-ups by what ran on the target CPU: " +
              ", ".join(f"{k} {n} / {ns/1e6:.2f} ms" for k, (n, ns) in sorted(cur.items(), key=lambda kv: -kv[1][1])))
        kall = [e for e in es if e["waker"] == "kworker/u"]
        if kall:
            tab = collections.defaultdict(lambda: [0, 0])
            for e in kall:
                k = ("prev CPU = waker's" if e["prev_is_waker"] else "prev CPU other") + \
                    (", placed on the waker's CPU" if e["on_waker"] else ", placed on the other") + (", idle" if e["idle"] else ", busy")
                tab[k][0] += 1
                tab[k][1] += e["wait"]
            print("   kworker/u wake-ups by placement: " + "; ".join(f"{k}: {n} / {ns/1e6:.2f} ms" for k, (n, ns) in sorted(tab.items())))
        ku = [e for e in busy if e["waker"] == "kworker/u" and e["waker_is_cur"]]
        if ku:
            ws = sorted(e["wait"] for e in ku)
            print(f"   behind the waking kworker/u: n {len(ws)}, wait median {ws[len(ws)//2]/1e3:.0f} us,"
                  f" min {ws[0]/1e3:.0f}, max {ws[-1]/1e3:.0f}; kworker's run before the wake-up median"
                  f" {sorted(e['cur_ran'] for e in ku)[len(ku)//2]/1e3:.0f} us;"
                  f" kworker comms {dict(collections.Counter(e['waker_comm'] for e in ku))}")


for d in sys.argv[1:]:
    summarize(d)
