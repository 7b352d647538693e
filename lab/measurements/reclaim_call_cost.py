#!/usr/bin/env python3
"""Measure what memcg limit reclaim costs on this host per `shrink_inactive_list()` call, per
`shrink_active_list()` call and per page reclaimed, for profile::CpuCost (`shrink_list_call`,
`evict_page`): the kernel's own vmscan tracepoints around a real run.

    flock /tmp/memtwin-host.lock python3 lab/measurements/reclaim_call_cost.py SCENARIO [--light] [--raw FILE]

Runs `memtwin real SCENARIO --on host` (root) while a tracefs instance records, for every task,
vmscan:mm_vmscan_memcg_reclaim_begin / _end (one `try_to_free_mem_cgroup_pages()`),
vmscan:mm_vmscan_lru_isolate (one `isolate_lru_folios()`: every `shrink_inactive_list()` and
`shrink_active_list()` call, including those that take nothing and return before their own
tracepoint) and vmscan:mm_vmscan_lru_shrink_inactive (pages reclaimed), and the reader's
sched:sched_switch. A reclaim during which its task left the CPU is dropped (its time is not
CPU time). For the rest it prints:
- the reclaims that freed nothing: their time per isolate call (the cost of a
  `shrink_inactive_list()` that meets only locked folios, with the priority loop, `get_scan_count()`,
  `shrink_slab()` and `mem_cgroup_iter()` around it shared out over the calls);
- a least-squares split of every reclaim's time: a constant per reclaim, a cost per inactive-list
  call, per active-list call and per page reclaimed.
Each isolate call writes one or two trace events (lru_isolate, and lru_shrink_inactive when it took
something), and those writes cost the reclaimer time (~175 ns each here). --light records only
memcg_reclaim_begin/_end and sched_switch and prints the durations of the reclaims that freed
nothing, with no event written inside them; their time over the calls the full run counted in
the same reclaims is the cost of a call (profile::CpuCost::shrink_list_call, BENCHMARKS.md M13).

Results (2026-11-28 22:59-23:02, host 6.18.44, load 8.6-10 from other sessions' builds),
scenarios/validation/host-ext4-tight-ra8192-queue (in validation-pending/ when measured; 256M cat, 20M memcg, large folios):
full runs: 5 and 8 reclaims freed nothing, 614-636 inactive-list calls each (~70,000 pages taken
in one folio a call), 694-905 us (1102-1145 ns a call at p10/median, two events a call); the
least-squares split of all ~1,100 reclaims: 1196-1200 ns per inactive-list call, 70-103 per page
reclaimed. --light, three runs: medians 515, 460, 464 us (p10 487, 453, 448): 464 / 620 = 748 ns
a call. scenarios/validation/host-tight-ra128 (order-0, read_ahead_kb 128: M4's read): 1663
reclaims, 5.0 calls and 35 pages reclaimed each; least squares 33 ns per reclaim, 163 per call,
1142 per page reclaimed (calls and pages move together: not separable there).

Again 2026-11-29 16:24-16:25 (ra11) on 6.18.44-fc-v782 (the quiet sets' boot), load 10.2-11.3:
host-ext4-tight-ra8192-queue: full 13 reclaims freed nothing, 644 calls median (390 ns a call with the
events), --light 23, median 171 us (p10 148): 266 ns a call; the one-pass 512M throttled scenario
(host-ext4-seq-tight-512m-ra8192 cut to pass 1): full 87, 642 calls, --light 41, median 154 us (p10 146):
240 ns a call. A third of the v857 host's figure above, at the same load (BENCHMARKS.md M13).
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))

import tracefs_instance  # noqa: E402

EVENTS = {
    "vmscan/mm_vmscan_memcg_reclaim_begin": None, "vmscan/mm_vmscan_memcg_reclaim_end": None,
    "vmscan/mm_vmscan_lru_isolate": None, "vmscan/mm_vmscan_lru_shrink_inactive": None,
    "sched/sched_switch": 'prev_comm == "python3" || next_comm == "python3"',
}
ISOLATES = 0  # every isolate call of the trace, on the CPU or not
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def reclaims(raw: str) -> list:
    """Every on-CPU reclaim of the trace: (ns, inactive calls, active calls, pages taken, pages
    reclaimed)."""
    global ISOLATES
    out, open_ = [], {}
    with open(raw, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _comm, pid, ts, ev, rest = m.groups()
            t = float(ts)
            if ev == "mm_vmscan_memcg_reclaim_begin":
                open_[pid] = [t, 0, 0, 0, 0, False]
            elif ev == "sched_switch":
                g = re.search(r"prev_pid=(\d+)", rest)
                if g and g.group(1) in open_:
                    open_[g.group(1)][5] = True
            elif ev == "mm_vmscan_lru_isolate" and pid not in open_:
                ISOLATES += 1
            elif pid not in open_:
                continue
            elif ev == "mm_vmscan_lru_isolate":
                ISOLATES += 1
                r = open_[pid]
                if "lru=inactive_file" in rest:
                    r[1] += 1
                elif "lru=active_file" in rest:
                    r[2] += 1
                r[3] += int(re.search(r"nr_taken=(\d+)", rest).group(1))
            elif ev == "mm_vmscan_lru_shrink_inactive":
                open_[pid][4] += int(re.search(r"nr_reclaimed=(\d+)", rest).group(1))
            elif ev == "mm_vmscan_memcg_reclaim_end":
                t0, ni, na, taken, rec, off = open_.pop(pid)
                if not off and ni + na > 0:
                    out.append(((t - t0) * 1e9, ni, na, taken, rec))
    return out


def light_report(raw: str) -> str:
    """--light: the reclaims that freed nothing, timed with only memcg_reclaim_begin/_end
    (and sched_switch) enabled, so that no event is written inside them."""
    durs, open_ = [], {}
    with open(raw, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _comm, pid, ts, ev, rest = m.groups()
            if ev == "mm_vmscan_memcg_reclaim_begin":
                open_[pid] = [float(ts), False]
            elif ev == "sched_switch":
                g = re.search(r"prev_pid=(\d+)", rest)
                if g and g.group(1) in open_:
                    open_[g.group(1)][1] = True
            elif ev == "mm_vmscan_memcg_reclaim_end" and pid in open_:
                t0, off = open_.pop(pid)
                if not off and rest.strip() == "nr_reclaimed=0":
                    durs.append((float(ts) - t0) * 1e9)
    if not durs:
        return "no reclaim that freed nothing stayed on the CPU"
    durs.sort()
    return (f"reclaims that freed nothing, untraced inside: {len(durs)}, us p10 {durs[len(durs) // 10] / 1e3:.1f}, "
            f"median {statistics.median(durs) / 1e3:.1f}, p90 {durs[9 * len(durs) // 10] / 1e3:.1f}")


def report(rs: list, sys_s: float, untraced_sys_s) -> str:
    lines = [f"{len(rs)} reclaims on the CPU; {sum(r[1] for r in rs)} inactive-list calls, "
             f"{sum(r[2] for r in rs)} active-list calls, {sum(r[4] for r in rs)} pages reclaimed"]
    zero = [r for r in rs if r[4] == 0]
    if zero:
        per = sorted(r[0] / (r[1] + r[2]) for r in zero)
        lines.append(f"reclaims that freed nothing: {len(zero)}, {statistics.median(r[0] for r in zero) / 1e3:.1f} us median, "
                     f"{statistics.median(r[1] + r[2] for r in zero):.0f} calls median; ns per call p10 {per[len(per) // 10]:.0f}, "
                     f"median {statistics.median(per):.0f}, p90 {per[9 * len(per) // 10]:.0f}")
    try:
        import numpy as np
        a = np.array([[1.0, r[1], r[2], r[4]] for r in rs])
        y = np.array([r[0] for r in rs])
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        lines.append("least squares, ns: per reclaim %.0f, per inactive call %.0f, per active call %.0f, per page reclaimed %.0f" % tuple(coef))
    except ImportError:
        lines.append("(numpy missing: no least-squares split)")
    events = ISOLATES
    lines.append(f"sys_s traced {sys_s:.4f}")
    if untraced_sys_s is not None:
        lines.append(f"sys_s untraced {untraced_sys_s:.4f}: {(sys_s - untraced_sys_s) * 1e9 / max(events, 1):.0f} ns more per isolate call")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--raw", help="keep the raw trace in FILE")
    ap.add_argument("--light", action="store_true", help="record only memcg_reclaim_begin/_end (and sched_switch): "
                    "the durations of the reclaims that freed nothing without events written inside them")
    ap.add_argument("--untraced", help="memtwin real --json of the same scenario without tracing (for the tracing overhead)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("reclaim_call_cost: run it as root (it runs memtwin real --on host and makes a trace instance)")
    untraced = None
    if a.untraced:
        try:
            with open(a.untraced) as f:
                untraced = sum(s["metrics"]["sys_s"] for s in json.load(f)["variants"]["default"]["steps"])
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"reclaim_call_cost: --untraced {a.untraced}: {e}; give a `memtwin real --json` output")
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"reclaim_call_cost: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-reclaim-cost-") as work:
        raw = a.raw or os.path.join(work, "trace.txt")
        res = os.path.join(work, "result.json")
        events = {k: v for k, v in EVENTS.items() if not (a.light and "lru_" in k)}
        with tracefs_instance.recording(work, "memtwin-reclaim-cost", events, raw, 262144, tool="reclaim_call_cost") as inst:
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", a.scenario, "--on", "host", "--json", res],
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")), timeout=1800)
            if r.returncode != 0:
                sys.exit(f"reclaim_call_cost: memtwin real failed (exit {r.returncode})")
            lost = tracefs_instance.events_lost(inst)
        if lost:
            sys.exit(f"reclaim_call_cost: {lost} events lost (the ring buffers overran); use a shorter scenario")
        with open(res) as f:
            sys_s = sum(s["metrics"]["sys_s"] for s in json.load(f)["variants"]["default"]["steps"])
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        print(f"# {a.scenario} (lab/measurements/reclaim_call_cost.py), load {load} at the end")
        print(light_report(raw) if a.light else report(reclaims(raw), sys_s, untraced))
    return 0


if __name__ == "__main__":
    sys.exit(main())
