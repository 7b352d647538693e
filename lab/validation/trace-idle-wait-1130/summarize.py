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


if __name__ == "__main__":
    main(sys.argv[1:])
