"""reclaim21's loaded test set: per run the trace switch, load, the kernel's read bytes per pass, the calibration and
the scenario's failing reclaims (count, per-call p10/p50/p90, durations' median). python3 summary.py > summary.txt"""
import glob
import json
import re

def q(xs, p):
    return xs[int(p * (len(xs) - 1))] if xs else None

for f in sorted(glob.glob("host-ext4-seq-tight-1g-ra8192-rc*.json"), key=lambda s: int(re.search(r"rc(\d+)", s).group(1))):
    i = re.search(r"rc(\d+)", f).group(1)
    v = json.load(open(f))["variants"]["default"]
    r = v["real"]
    hc = r["machine"]["host_cost"]
    sp = hc.get("scenario_reclaim_call_spans_ns", [])
    fl = hc.get("scenario_reclaim_failing_ns", [])
    rb = [round(s["metrics"]["read_bytes"] / 1e9, 3) for s in v["steps"]]
    mode = "off" if not sp else ("full" if "MEMTWIN_RECLAIM_TRACE=full" in hc.get("scenario_reclaim_source", "") or "isolate events inside" in hc.get("scenario_reclaim_source", "") else "light")
    print(f"run {i} trace {mode:5} loadavg(end) {r.get('loadavg')} read GB/pass {rb} "
          f"cal reclaim_call_ns {hc.get('reclaim_call_ns')} isolate_trace_ns_per_call {hc.get('isolate_trace_ns_per_call')} "
          f"failing {len(sp)} of {hc.get('scenario_reclaims_on_cpu')} on-CPU reclaims, ns/call p10/50/90 {q(sp, .1)}/{q(sp, .5)}/{q(sp, .9)}, "
          f"duration median {q(fl, .5)}")
