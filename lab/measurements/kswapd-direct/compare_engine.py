#!/usr/bin/env python3
"""The engine's stream step at one traced boot's settings, beside the kernel's.

    PYTHONPATH=python python3 lab/measurements/kswapd-direct/compare_engine.py traces/boot-c.json two-list \\
        [--latency ping-pong|in-stream|progress] [--trace traces/boot-c-two-list.trace.gz] [--ns-per-page N] [--scenario TOML]

The engine runs qemu61-lrugen-global-stream's variant as `memtwin validate` runs it against that
boot (memtwin.validate.set_run_sets(): its code/copy slowdowns and `machine.wakeup_latency`), with the
wake-up latency samples chosen by --latency:
- ping-pong (default): the boot's own samples (memtwin_guest.c calibrate_wakeup(), before the tasks);
- in-stream: the kernel's own kswapd wake-ups during the stream (mm_vmscan_wakeup_kswapd ->
  mm_vmscan_kswapd_wake, from --trace);
- progress: the reader's pages issued while each of those wake-ups waited (block_rq_issue, from
  --trace), times --ns-per-page (the engine's reader pace in this run: read it from the engine's log
  with engine-debug-log.patch, the time from a wake-up to the first direct reclaim over the low-min gap).
These are diagnostics, not models: the last two take the kernel's run as input.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

from analyse import parse  # noqa: E402
from memtwin.validate import set_run_sets  # noqa: E402

SCENARIO = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
SHOWN = ("elapsed_s", "vmstat.pgscan_direct", "vmstat.pgscan_kswapd", "vmstat.pageoutrun", "vmstat.allocstall_normal",
         "vmstat.allocstall_movable")


def in_stream(trace):
    steps, ev, _ = parse(trace)
    w = next(s for s in steps if s["name"] == "stream")
    lat, pages, t_wake, n = [], [], None, None
    for t, _c, _p, name, rest in ev:
        if not w["t0"] <= t <= w["t1"]:
            continue
        if name == "mm_vmscan_wakeup_kswapd":
            t_wake, n = t, 0
        elif name == "block_rq_issue" and n is not None:
            f = rest.split()
            n += int(f[f.index("+") + 1]) // 8 if "+" in f else 0
        elif name == "mm_vmscan_kswapd_wake" and t_wake is not None:
            lat.append(int((t - t_wake) * 1e9))
            pages.append(n)
            t_wake, n = None, None
    return lat, pages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recording")
    ap.add_argument("variant")
    ap.add_argument("--latency", default="ping-pong", choices=["ping-pong", "in-stream", "progress"])
    ap.add_argument("--trace")
    ap.add_argument("--ns-per-page", type=float)
    ap.add_argument("--scenario", default=SCENARIO, help="the scenario the recording is of (default qemu61-lrugen-global-stream)")
    a = ap.parse_args()
    real = json.load(open(a.recording))["variants"][a.variant]
    if a.latency != "ping-pong":
        if not a.trace:
            sys.exit("--latency in-stream|progress needs --trace")
        lat, pages = in_stream(a.trace)
        if a.latency == "progress":
            if not a.ns_per_page:
                sys.exit("--latency progress needs --ns-per-page")
            lat = [int(p * a.ns_per_page) for p in pages]
        real["real"]["machine"]["cpu"]["wakeup_latency_ns"] = sorted(lat)
    out = tempfile.mktemp(suffix=".json")
    cmd = [sys.executable, "-m", "memtwin.cli", "run", a.scenario, "--variant", a.variant, "--json", out]
    for s in set_run_sets(0, real):
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=900)
    try:
        eng = json.load(open(out))["variants"][a.variant]
    finally:
        os.unlink(out)
    es = next(s for s in eng["steps"] if s["name"] == "stream")["metrics"]
    ks = next(s for s in real["steps"] if s["name"] == "stream")["metrics"]
    print(f"{a.variant} latency={a.latency}: " + " ".join(f"{k.split('.')[-1]} engine {es.get(k)} kernel {ks.get(k)}" for k in SHOWN))


if __name__ == "__main__":
    main()
