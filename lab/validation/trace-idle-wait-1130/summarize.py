#!/usr/bin/env python3
"""Summarize trace_idle_wait.bt outputs (kwork23): for each traced run DIR (bt.out, traced.json,
load.txt), the scenario's tasks (the python3 pids during whose waits the loop device's work ran
most, @wq_fn[pid, loop_rootcg_workfn]) and their waits by kind: 1 after a wake-up, 2 after a
switch-out while runnable (prev_state R / R+), with the part behind kernel threads only and the
waits that began with the loop's kworker on the CPU; and the loop work's runs (@wq_run_ns).
Usage: summarize.py DIR..."""
import json
import re
import sys

PAT = re.compile(r"^@(\w+)\[(.*)\]: (.*)$")


def parse(path):
    maps = {}
    for line in open(path, errors="replace"):
        m = PAT.match(line.strip())
        if not m:
            continue
        name, key, val = m.groups()
        keys = tuple(k.strip() for k in key.split(","))
        maps.setdefault(name, {})[keys] = val
    return maps


def num(v):
    try:
        return int(v)
    except ValueError:
        return None


def main(dirs):
    for d in dirs:
        m = parse(f"{d}/bt.out")
        load = open(f"{d}/load.txt").read().split("\n")
        tj = json.load(open(f"{d}/traced.json"))
        print(f"== {d}: loadavg at start {load[0]}, at end {load[1]}")
        for vn, v in tj["variants"].items():
            smp = v["real"]["machine"].get("runq_sampler", {})
            for s in v["steps"]:
                sc = s["sched"]
                print(f"  {vn} step {s['name']}: schedstat run_delay {sc['run_delay_s']*1e3:.1f} ms over {sc['runs']} switch-ins, "
                      f"background_runnable {sc.get('background_runnable')}, sampler cpu_s {smp.get('cpu_s')} over {smp.get('samples')} samples")
        loopw = {k[0]: num(c) for k, c in m.get("wq_fn", {}).items() if k[1] == "loop_rootcg_workfn"}
        for pid, n in sorted(loopw.items(), key=lambda kv: -kv[1])[:2]:
            print(f"  pid {pid}: {m.get('switch_in', {}).get((pid,), '?')} switch-ins traced, loop work ran during {n} of its waits")
            for k in ("1", "2"):
                w = num(m["wait_ns"].get((pid, k), "0")) or 0
                n_ = num(m["wait_n"].get((pid, k), "0")) or 0
                pure_ns = num(m.get("wait_kthread_only_ns", {}).get((pid, k, "1"), "0")) or 0
                pure_n = num(m.get("wait_kthread_only_n", {}).get((pid, k, "1"), "0")) or 0
                kw_first = sum(num(c) for kk, c in m.get("first", {}).items() if kk[0] == pid and kk[1] == k and kk[2].startswith("kworker/u"))
                print(f"    kind {k}: {n_} waits {w/1e6:.1f} ms; behind kernel threads only {pure_n} waits {pure_ns/1e6:.2f} ms"
                      f" ({pure_ns/1e3/max(pure_n,1):.1f} us each); began with an unbound kworker on the CPU: {kw_first}")
            so = {kk[1]: c for kk, c in m.get("switched_out_runnable", {}).items() if kk[0] == pid}
            if so:
                print(f"    switched out runnable: R {so.get('0', 0)}, R+ (preempted) {so.get('256', 0)}")
        st = m.get("wq_run_ns", {}).get(("loop_rootcg_workfn",))
        if st:
            print(f"  loop_rootcg_workfn runs: {st}")


# the classes of what a waiting task waited behind (@behind_ns's comm), in print order
CLASSES = (
    ("idle (wake-up onto its idle CPU: 0 in schedstat)", lambda c: c.startswith("swapper/")),
    ("unbound kworkers (loop work, flusher, dio completion)", lambda c: c.startswith("kworker/u")),
    ("highpri bound kworkers (kblockd)", lambda c: c.startswith("kworker/") and c.endswith("H")),
    ("bound kworkers (vmpressure, vmstat, blk-throttle dispatch)", lambda c: c.startswith("kworker/")),
    ("ksoftirqd", lambda c: c.startswith("ksoftirqd/")),
    ("rcu", lambda c: c.startswith("rcu")),
    ("python3 (the runner's sampler or the other task)", lambda c: c == "python3"),
    ("bpftrace (the tracer)", lambda c: c == "bpftrace"),
    ("other", lambda c: True),
)


def roles(d):
    m = parse(f"{d}/bt.out")
    load = open(f"{d}/load.txt").read().split("\n")
    tj = json.load(open(f"{d}/traced.json"))
    ins = {k[0]: num(v) for k, v in m.get("switch_in", {}).items()}
    cpu = {k[1]: num(v) for k, v in m.get("run_ns", {}).items() if k[0] == "python3"}
    print(f"== {d}: loadavg at start {load[0]}, at end {load[1]}")
    for vn, v in tj["variants"].items():
        smp = v["real"]["machine"].get("runq_sampler", {})
        kw = v["real"]["machine"].get("kthread_waits", {}).get("unbound_kworker", {})
        who = {}
        for s in v["steps"]:
            sc = s["sched"]
            cand = sorted((n, p) for p, n in ins.items() if n >= sc["runs"] and p not in who.values())
            if cand:
                who[f"step {s['name']}"] = cand[0][1]
            print(f"  {vn} step {s['name']}: schedstat run_delay {sc['run_delay_s']*1e3:.1f} ms over {sc['runs']} switch-ins "
                  f"({sc['run_delay_s']*1e6/max(sc['runs'],1):.1f} us each), pid {who.get('step ' + s['name'])}")
        if smp.get("cpu_s"):
            p = min(cpu, key=lambda q: abs(cpu[q] / 1e9 - smp["cpu_s"]))
            who["sampler"] = p
            print(f"  runner's sampler: pid {p}, traced CPU {cpu[p]/1e9:.3f} s (runq_sampler.cpu_s {smp['cpu_s']})")
        if kw:
            print(f"  unbound kworkers (schedstat): run_delay {kw['run_delay_s']*1e3:.1f} ms over {kw['runs']} switch-ins")
        for role, pid in who.items():
            print(f"  {role} (pid {pid}, {ins.get(pid)} switch-ins traced):")
            for k in ("1", "2"):
                n_ = num(m["wait_n"].get((pid, k), "0")) or 0
                w = num(m["wait_ns"].get((pid, k), "0")) or 0
                pure_ns = num(m.get("wait_kthread_only_ns", {}).get((pid, k, "1"), "0")) or 0
                pure_n = num(m.get("wait_kthread_only_n", {}).get((pid, k, "1"), "0")) or 0
                print(f"    kind {k} ({'after a wake-up' if k == '1' else 'switched out runnable'}): {n_} waits {w/1e6:.2f} ms; "
                      f"behind kernel threads or idle only {pure_n} waits {pure_ns/1e6:.2f} ms ({pure_ns/1e3/max(pure_n,1):.1f} us each)")
                behind = {}
                for kk, val in m.get("behind_ns", {}).items():
                    if kk[0] == pid and kk[1] == k:
                        cls = next(name for name, f in CLASSES if f(kk[2]))
                        behind.setdefault(cls, []).append((num(val), kk[2]))
                for name, _ in CLASSES:
                    if name in behind:
                        tot = sum(x for x, _ in behind[name])
                        comms = ", ".join(f"{c} {x/1e6:.2f}" for x, c in sorted(behind[name], reverse=True)[:3])
                        print(f"      behind {name}: {tot/1e6:.2f} ms ({comms})")
                first = sorted(((num(c), kk[2]) for kk, c in m.get("first", {}).items() if kk[0] == pid and kk[1] == k), reverse=True)[:4]
                print(f"      on the CPU when the wait began: " + ", ".join(f"{c} {n}" for n, c in first))
            so = {kk[1]: c for kk, c in m.get("switched_out_runnable", {}).items() if kk[0] == pid}
            if so:
                print(f"    switched out runnable: R {so.get('0', 0)}, R+ (preempted: cond_resched() under PREEMPT_NONE) {so.get('256', 0)}")
            fns = sorted(((num(c), kk[1]) for kk, c in m.get("wq_fn", {}).items() if kk[0] == pid), reverse=True)[:6]
            if fns:
                print("    work items started on its CPU while it waited: " + ", ".join(f"{f} {n}" for n, f in fns))
    for f in ("loop_rootcg_workfn", "vmpressure_work_fn", "blk_throtl_dispatch_work_fn", "wb_workfn", "iomap_dio_complete_work"):
        st = m.get("wq_run_ns", {}).get((f,))
        if st:
            print(f"  {f} runs (whole trace): {st}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--roles"]:
        for d in sys.argv[2:]:
            roles(d)
    else:
        main(sys.argv[1:])
