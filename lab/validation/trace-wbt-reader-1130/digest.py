#!/usr/bin/env python3
"""The series README.md quotes, from the guest trace: every 100 ms of the run (after the setup's
last sync) the global dirty and writeback pages (writeback:global_dirty_state, kB) and the pages
written since boot (nr_written); then each balance_dirty_pages call of the writer's wb as its
share of the global domain (bdi_setpoint / setpoint: __wb_calc_thresh()'s completion fraction).
    xz -dc trace.txt.xz | python3 digest.py /dev/stdin [RUN_START]   (trace2: 32.5)
"""
import re
import sys

# the first trace's setup sync ended at 11.60 (CLOCK_MONOTONIC), its writer started at 11.66
RUN_START = float(sys.argv[2]) if len(sys.argv) > 2 else 11.6
last = -1.0
shares = []
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.search(r"\s(\d+\.\d+): (\w+): (.*)", line)
    if not m or float(m.group(1)) < RUN_START:
        continue
    t, ev, rest = float(m.group(1)), m.group(2), m.group(3)
    if ev == "global_dirty_state" and t - last >= 0.1:
        d = re.search(r"dirty=(\d+) writeback=(\d+).*written=(\d+)", rest)
        print(f"{t:.3f} dirty_kB={int(d.group(1)) * 4} writeback_kB={int(d.group(2)) * 4} nr_written={d.group(3)}")
        last = t
    elif ev == "balance_dirty_pages" and "cgroup_ino=1 " not in rest + " ":
        d = re.search(r"setpoint=(\d+) dirty=\d+ bdi_setpoint=(\d+)", rest)
        shares.append((t, int(d.group(2)) / int(d.group(1))))
prev = -1.0
for t, s in shares:
    if t - prev >= 0.25:
        print(f"{t:.3f} writer wb share {s:.2f}")
        prev = t
