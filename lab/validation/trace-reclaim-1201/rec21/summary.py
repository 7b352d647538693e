"""rec21: per recording of this directory, the amended calibration (its reads, each read's failing on-CPU reclaims and
memcg reclaims begun, the medians) and the scenario's own reclaim spans, with the kernel's read bytes per pass.
Usage (from the worktree): python3 lab/validation/trace-reclaim-1201/rec21/summary.py > .../rec21/summary.txt"""
import glob
import json
import os
import re

d = os.path.dirname(os.path.abspath(__file__))
for f in sorted(glob.glob(os.path.join(d, "*.json")), key=lambda f: (re.sub(r"-rec21\w*?\d+\.json$", "", f), f)):
    rec = json.load(open(f))
    real = next(iter(rec["variants"].values()))
    hc = real["real"]["machine"]["host_cost"]
    u = hc.get("unavailable") or {}
    mb = [round(s["metrics"]["read_bytes"] / 1e6) for s in real["steps"] if "read_bytes" in s.get("metrics", {})]
    print(os.path.basename(f), f"load {real['real'].get('loadavg')}")
    print(f"  calibration: reads {hc.get('reclaim_reads')} by read [kind, failing on CPU, begun] {hc.get('reclaims_by_read')}; "
          f"timed {hc.get('reclaims_timed')} counted {hc.get('reclaims_counted')} isolate calls {hc.get('isolate_calls_median')} "
          f"median {hc.get('reclaim_median_ns')} ns -> reclaim_call_ns {hc.get('reclaim_call_ns', u.get('reclaim_call_ns'))}; "
          f"calibration {hc.get('seconds')} s")
    sp = hc.get("scenario_reclaim_call_spans_ns")
    if sp:
        n = len(sp)
        print(f"  scenario: {hc['scenario_reclaims_on_cpu']} reclaims on the CPU, {hc['scenario_reclaims_failing']} failing, "
              f"{n} spans, median {hc['scenario_reclaim_call_ns']} ns a call (p10-p90 {sp[n // 10]}-{sp[(9 * n) // 10]}), "
              f"failing median {hc['scenario_reclaim_failing_ns'][n // 2]} ns")
    else:
        print(f"  scenario: NO spans ({u.get('scenario_reclaim_call_spans_ns')})")
    print(f"  kernel read MB per step {mb}; lone windows {len(hc.get('device_lone_window_spans_ns', []))}")
