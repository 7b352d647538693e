#!/usr/bin/env python3
"""Who reclaims during a step: kswapd's wake-ups, runs and sleeps and the tasks' direct reclaim, from
a `memtwin real --on qemu --reclaim-trace DIR` trace (python/memtwin/qemu.py guest_reclaim_trace()).

    python3 analyse.py TRACE [--step stream] [--json]

Per step window (the guest program's CLOCK_MONOTONIC, the trace's clock "mono"):
- kswapd cycles: a task's wakeup_kswapd() that wakes it (mm_vmscan_wakeup_kswapd) or the end of
  kswapd_try_to_sleep()'s HZ/10 short sleep (a sched_waking of kswapd with no wakeup_kswapd before
  it); the wake latency (wakeup_kswapd -> mm_vmscan_kswapd_wake, the first thing kswapd() does
  after its sleep returns), the free pages when balance_pgdat() starts (kprobe), kswapd's run
  (kswapd_wake -> its switch-out asleep, state S: the short sleep's schedule_timeout());
- direct reclaim: each try_to_free_pages() (kprobe: free pages), its nr_reclaimed, and what kswapd
  was doing then: woken but not yet running, running, or asleep;
- the reader's progress while kswapd waits to run: the pages of the block requests issued between
  the wake-up and kswapd_wake (traces with block_rq_issue);
- the guest's ping-pong wake-up samples the trace carries (# wake lines), as p10/median/p90 in ms;
- kswapd's runs by what woke it (lrugen22): a wake-up with gfp_flags=none is rmqueue()'s for a zone
  whose watermark an allocation's fallback to another migratetype's pageblock boosted
  (ZONE_BOOSTED_WATERMARK: `wakeup_kswapd(zone, 0, 0, zone_idx(zone))`, 5.0+), any other an
  allocation's slow path (wake_all_kswapds(), its gfp mask): how many, how many ended at once (a
  balanced node, run < 0.5 ms), how many ran 5 ms or more, their median and summed run.
"""
import argparse
import gzip
import json
import re
import statistics
import sys

LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<t>\d+\.\d+): (?P<ev>[\w/]+): (?P<rest>.*)$")


def parse(path):
    steps, events, wake = [], [], {}
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        if line.startswith("# step "):
            m = re.match(r"# step '(.*)' task (\S+) t ([\d.]+) \.\. ([\d.]+): ?(.*)$", line.strip())
            if m:
                steps.append({"name": m.group(1), "t0": float(m.group(3)), "t1": float(m.group(4)),
                              "vmstat": {k: int(v) for k, v in (x.split("=") for x in m.group(5).split())}})
            continue
        m = re.match(r"# wake (\w+) ns \(.*?\): (.*)$", line.strip())
        if m and m.group(2).split() and m.group(2).split()[0].isdigit():
            wake[m.group(1)] = sorted(int(x) for x in m.group(2).split())
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if m:
            events.append((float(m.group("t")), m.group("comm").strip(), int(m.group("pid")), m.group("ev"), m.group("rest")))
    events.sort(key=lambda e: e[0])
    return steps, events, wake


def q(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def analyse(steps, events, step):
    w = next(s for s in steps if s["name"] == step)
    ev = [e for e in events if w["t0"] <= e[0] <= w["t1"]]
    state = "asleep"  # kswapd: asleep | woken | running | short
    woken_at = None
    woke_by = None
    woke_boost = False
    cycles, directs = [], []
    cur = None
    last_direct = None
    woken_pages = None
    have_block = any(e[3] == "block_rq_issue" for e in ev)
    for t, comm, pid, name, rest in ev:
        if name == "block_rq_issue" and state == "woken" and woken_pages is not None:
            f = rest.split()
            if "+" in f:
                woken_pages += int(f[f.index("+") + 1]) // 8
        if name == "mm_vmscan_wakeup_kswapd":
            if state in ("asleep", "short"):
                woken_pages = 0
                woken_at, woke_by = t, "wakeup_kswapd" if state == "asleep" else "wakeup_kswapd in the short sleep"
                woke_boost = rest.rstrip().endswith("gfp_flags=none")
                state = "woken"
        elif name == "sched_waking" and "kswapd" in rest:
            if state in ("short", "asleep") and woken_at is None:
                woken_at, woke_by = t, "the short sleep's timer" if state == "short" else "timer"
                woke_boost = False
                state = "woken"
        elif name == "mm_vmscan_kswapd_wake":
            cur = {"woken": woken_at, "by": woke_by, "run": t, "latency_ms": (t - woken_at) * 1e3 if woken_at else None,
                   "free_at_balance": None, "end": None, "pages_while_woken": woken_pages if have_block else None,
                   "cause": "boost" if woke_boost else ("allocation" if woke_by and woke_by.startswith("wakeup_kswapd") else "timer")}
            cycles.append(cur)
            state, woken_at, woken_pages = "running", None, None
        elif name == "balance":
            m = re.search(r"free=(-?\d+)", rest)
            if cur is not None and cur["free_at_balance"] is None and m:
                cur["free_at_balance"] = int(m.group(1))
        elif name == "sched_switch" and rest.startswith("prev_comm=kswapd"):
            if re.search(r"prev_state=[SD]", rest) and state == "running":
                state = "short"
                if cur is not None:
                    cur["end"] = t
        elif name == "mm_vmscan_kswapd_sleep":
            state = "asleep"
            if cur is not None:
                cur["full_sleep"] = t
        elif name == "direct":
            m = re.search(r"free=(-?\d+)", rest)
            last_direct = {"t": t, "free": int(m.group(1)) if m else None, "kswapd": state, "reclaimed": None}
            directs.append(last_direct)
        elif name == "mm_vmscan_direct_reclaim_end" and last_direct is not None:
            last_direct["reclaimed"] = int(re.search(r"nr_reclaimed=(\d+)", rest).group(1))
    lat = [c["latency_ms"] for c in cycles if c["latency_ms"] is not None]
    runs = [(c["end"] - c["run"]) * 1e3 for c in cycles if c["end"] is not None]
    by = {}
    for c in cycles:
        by[c["by"]] = by.get(c["by"], 0) + 1
    dstate = {}
    for d in directs:
        dstate[d["kswapd"]] = dstate.get(d["kswapd"], 0) + 1
    fb = [c["free_at_balance"] for c in cycles if c["free_at_balance"] is not None]
    pw = [c["pages_while_woken"] for c in cycles if c["pages_while_woken"] is not None]
    causes = {}
    for cause in ("allocation", "boost", "timer"):
        rc = [(c["end"] - c["run"]) * 1e3 for c in cycles if c["cause"] == cause and c["end"] is not None]
        if rc:
            causes[cause] = {"n": len(rc), "ended_at_once": sum(r < 0.5 for r in rc), "ran_5ms_or_more": sum(r >= 5 for r in rc),
                             "median_ms": round(q(rc, .5), 2), "sum_ms": round(sum(rc), 1)}
    return {
        "runs_by_wake_cause": causes,
        "step": step, "window_s": round(w["t1"] - w["t0"], 3), "vmstat": w["vmstat"],
        "first_reclaim_s": round(min([c["run"] for c in cycles] + [d["t"] for d in directs] + [w["t1"]]) - w["t0"], 3),
        "kswapd_runs": len(cycles), "kswapd_woken_by": by,
        "wake_latency_ms": {"n": len(lat), "p10": q(lat, .1), "median": q(lat, .5), "p90": q(lat, .9), "max": max(lat) if lat else None},
        "reader_pages_while_kswapd_waits": {"n": len(pw), "p10": q(pw, .1), "median": q(pw, .5), "p90": q(pw, .9), "each": pw} if pw else None,
        "run_ms": {"n": len(runs), "median": q(runs, .5), "p90": q(runs, .9), "sum": sum(runs)},
        "free_at_balance": {"median": q(fb, .5), "min": min(fb) if fb else None, "max": max(fb) if fb else None},
        "direct": {"n": len(directs), "reclaimed": sum(d["reclaimed"] or 0 for d in directs),
                   "per_call": sorted({d["reclaimed"] for d in directs if d["reclaimed"] is not None}),
                   "kswapd_was": dstate, "free_median": q([d["free"] for d in directs if d["free"] is not None], .5)},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--step", default="stream")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    steps, events, wake = parse(a.trace)
    r = analyse(steps, events, a.step)
    r["wake_samples_ms"] = {k: {"p10": v[len(v) // 10] / 1e6, "median": v[len(v) // 2] / 1e6, "p90": v[9 * len(v) // 10] / 1e6} for k, v in wake.items()}
    if a.json:
        json.dump(r, sys.stdout, indent=1)
        print()
        return
    for k, v in r.items():
        if isinstance(v, dict) and "each" in v:  # every wait's pages: --json only (predict.py)
            v = {x: y for x, y in v.items() if x != "each"}
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
