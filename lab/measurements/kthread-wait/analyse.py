#!/usr/bin/env python3
"""The run-queue waits of the kernel threads a step's task wakes, measured without tracing (wake11), beside
the metric they were to explain and the engine's run at them, boot by boot.

    PYTHONPATH=python python3 lab/measurements/kthread-wait/analyse.py [--no-engine]

Boots: stream-w*.json (qemu61-lrugen-global-stream, both variants) and zswap-w*.json (qemu61-zswap-pool-limit),
`memtwin real --on qemu --variant all --json`, one boot per hold of the QEMU lock, alternated. Per step the
guest recorded /proc/PID/schedstat's run_delay and pcount of kswapd (`kswapd_run_delay_s`, `kswapd_runs`) and of
the CPU-bound kworkers (`kworker_*`), memtwin_guest.c kthread_waits().

stream: the stream step's vmstat.pgscan_direct, kswapd's mean wait (run_delay / pcount), its switch-ins, its
CPU time a switch-in (kswapd_cpu_s / kswapd_runs) and the boot's ping-pong median; the engine as validate runs
it (the boot's ping-pong samples as machine.wakeup_latency) and with machine.wakeup_latency = [that mean wait].
zswap: touch 1's and touch 2's zswap.pool_limit_hit, the kworkers' mean wait in each step and over the boot;
the engine without and with machine.kworker_wakeup_latency = [the boot's mean] (validate.set_run_sets).
Then Spearman's rank correlation of each measure with the kernel's metric over the boots.
"""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", "kswapd-direct"))
from predict import spearman  # noqa: E402


def boots(kind):
    return sorted(glob.glob(os.path.join(HERE, f"{kind}-w*.json")), key=lambda f: int(f.rsplit("-w", 1)[1].split(".")[0]))


def step(r, name):
    return next(s for s in r["steps"] if s["name"] == name)


def mean_ms(s, pre):
    n = s.get(pre + "_runs") or 0
    return s.get(pre + "_run_delay_s", 0) * 1e3 / n if n else 0.0


def ping_ms(r):
    lat = ((r.get("real") or {}).get("machine", {}).get("cpu", {}) or {}).get("wakeup_latency_ns") or []
    return statistics.median(lat) / 1e6 if lat else float("nan")


def main():
    engine = "--no-engine" not in sys.argv[1:]
    if engine:
        from memtwin.api import load, run
        from memtwin import validate as V
    rows = {}
    scn = load(os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")) if engine else None
    print("stream step, vmstat.pgscan_direct")
    for i, f in enumerate(boots("stream")):
        for v, r in json.load(open(f))["variants"].items():
            s = step(r, "stream")
            row = {"boot": os.path.basename(f), "load": (r["real"].get("loadavg") or [None])[0],
                   "kernel": s["metrics"]["vmstat.pgscan_direct"], "wait": mean_ms(s, "kswapd"), "runs": s.get("kswapd_runs", 0),
                   "cpu_run": s.get("kswapd_cpu_s", 0) * 1e3 / max(1, s.get("kswapd_runs", 0)), "ping": ping_ms(r)}
            if engine:
                sets = V.set_run_sets(i, r, scn.doc.plan(v, []), f)
                at = [x for x in sets if not x.startswith("machine.wakeup_latency")] + [f'machine.wakeup_latency=["{round(row["wait"] * 1e6)}ns"]']
                row["twin"], row["twin_wait"] = (step(run(scn, variant=v, sets=ss).to_json(), "stream")["metrics"]["vmstat.pgscan_direct"] for ss in (sets, at))
            rows.setdefault(("stream", v), []).append(row)
            print("  %(boot)-16s " % row + f"{v:8s} load {row['load']:5} kernel {row['kernel']:6} | kswapd mean wait {row['wait']:.3f} ms, "
                  f"{row['runs']} runs, {row['cpu_run']:.2f} ms CPU a run | ping-pong median {row['ping']:.2f} ms"
                  + (f" | twin as validated {row['twin']:6}, at the mean wait {row['twin_wait']:6}" if engine else ""))
    scn = load(os.path.join(ROOT, "scenarios", "validation", "qemu61-zswap-pool-limit.toml")) if engine else None
    print("zswap.pool_limit_hit")
    for i, f in enumerate(boots("zswap")):
        r = json.load(open(f))["variants"]["default"]
        t1, t2 = step(r, "touch 1"), step(r, "touch 2")
        row = {"boot": os.path.basename(f), "load": (r["real"].get("loadavg") or [None])[0],
               "kernel1": t1["metrics"]["zswap.pool_limit_hit"], "kernel": t2["metrics"]["zswap.pool_limit_hit"],
               "wait1": mean_ms(t1, "kworker"), "wait": mean_ms(t2, "kworker"), "ping": ping_ms(r)}
        if engine:
            sets = V.set_run_sets(i, r, scn.doc.plan(None, []), f)
            row["boot_wait"] = (V.recorded_kworker_wait(r) or 0) / 1e6
            a = run(scn, sets=[x for x in sets if not x.startswith("machine.kworker_wakeup_latency")]).to_json()
            b = run(scn, sets=sets).to_json()
            row["twin1"], row["twin"] = (step(a, n)["metrics"]["zswap.pool_limit_hit"] for n in ("touch 1", "touch 2"))
            row["twin1_wait"], row["twin_wait"] = (step(b, n)["metrics"]["zswap.pool_limit_hit"] for n in ("touch 1", "touch 2"))
        rows.setdefault(("zswap", "touch 2"), []).append(row)
        print("  %(boot)-14s load %(load)5s | touch 1 kernel %(kernel1)3s, kworker mean wait %(wait1).3f ms | "
              "touch 2 kernel %(kernel)3s, kworker mean wait %(wait).3f ms | ping-pong median %(ping).2f ms" % row
              + (" | boot's kworker mean %(boot_wait).3f ms; twin without it %(twin1)s / %(twin)s, with it %(twin1_wait)s / %(twin_wait)s"
                 % row if engine else ""))
    print("Spearman with the kernel's metric over the boots")
    for (kind, v), rr in rows.items():
        keys = ("wait", "runs", "cpu_run", "ping") if kind == "stream" else ("wait", "ping")
        print(f"  {kind} {v}: " + ", ".join(f"{k} {spearman([r[k] for r in rr], [r['kernel'] for r in rr]):+.2f}" for k in keys)
              + (f"; medians kernel {statistics.median(r['kernel'] for r in rr)}, twin as validated "
                 f"{statistics.median(r['twin'] for r in rr)}, at the measured wait {statistics.median(r['twin_wait'] for r in rr)}" if engine else ""))
    if ("zswap", "touch 2") in rows:
        rr = rows[("zswap", "touch 2")]
        print(f"  zswap touch 1: wait {spearman([r['wait1'] for r in rr], [r['kernel1'] for r in rr]):+.2f}"
              + (f"; medians kernel {statistics.median(r['kernel1'] for r in rr)}, twin without {statistics.median(r['twin1'] for r in rr)}, "
                 f"with {statistics.median(r['twin1_wait'] for r in rr)}" if engine else ""))


if __name__ == "__main__":
    main()
