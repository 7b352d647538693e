#!/usr/bin/env python3
"""The figure /proc/PID/schedstat's run_delay gives, taken from the traced boots of lab/measurements/kswapd-direct
(traces/boot-[a-k]-*.trace.gz): in the stream step, kswapd's waits from its sched_waking (or its switch-out R,
preempted) to its switch-in, their count, sum, median and longest, its time switched in, and Spearman's rank
correlation of the sum, median, longest and time switched in with the stream's pgscan_direct over boots c, d, f-k
(the boots with block events, as predict.py), per variant.

    python3 lab/measurements/kthread-wait/traced_waits.py
"""
import glob
import os
import statistics
import sys

KD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kswapd-direct")
sys.path.insert(0, KD)
import analyse  # noqa: E402
from predict import spearman  # noqa: E402


def main():
    rows = []
    for tr in sorted(glob.glob(os.path.join(KD, "traces", "boot-[a-k]-*.trace.gz"))):
        steps, events, _ = analyse.parse(tr)
        w = next((s for s in steps if s["name"] == "stream"), None)
        if not w:
            continue
        waking, tin, waits, oncpu = None, None, [], 0.0
        for t, _comm, _pid, name, rest in (e for e in events if w["t0"] <= e[0] <= w["t1"]):
            if name == "sched_waking" and "comm=kswapd" in rest:
                waking = t if waking is None else waking
            elif name == "sched_switch":
                if "next_comm=kswapd" in rest:
                    if waking is not None:
                        waits.append(t - waking)
                    waking, tin = None, t
                if rest.startswith("prev_comm=kswapd") and tin is not None:
                    oncpu += t - tin
                    tin = None
                    if "prev_state=R" in rest:
                        waking = t
        b = os.path.basename(tr).replace(".trace.gz", "")
        rows.append({"boot": b, "direct": w["vmstat"].get("pgscan_direct", 0), "n": len(waits), "sum": sum(waits) * 1e3,
                     "median": statistics.median(waits) * 1e3 if waits else 0, "max": max(waits) * 1e3 if waits else 0,
                     "oncpu": oncpu * 1e3})
        print("%(boot)-20s pgscan_direct %(direct)6d | waits %(n)4d, sum %(sum)7.1f ms, median %(median).3f ms, "
              "longest %(max)6.2f ms | switched in %(oncpu)7.0f ms" % rows[-1])
    for v in ("two-list", "lru_gen"):
        rr = [r for r in rows if r["boot"].endswith(v) and r["boot"][5] in "cdfghijk"]
        print(f"{v} over {len(rr)} boots: " + ", ".join(
            f"{k} {spearman([r[k] for r in rr], [r['direct'] for r in rr]):+.2f}" for k in ("sum", "median", "max", "oncpu")))


if __name__ == "__main__":
    main()
