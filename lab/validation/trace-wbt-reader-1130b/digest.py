#!/usr/bin/env python3
"""The series README.md quotes, from the guest trace of 2026-11-30 06:20 (wbt23):
    xz -dc trace.txt.xz | python3 digest.py /dev/stdin [sleeps|convert|journal]
sleeps  (default): every D-state sleep of the flusher (kworker/u4:1, pid 25) during the run with
        where it slept (its stack: rq_qos_wait = blk-wbt, or the frames below schedule) and
        what woke it (the waker's stack), with the write requests in flight then (block_rq_issue
        minus block_rq_complete of plain W requests: the data writes blk-wbt tracks; the
        journal's WSM/WM requests not counted);
convert: each wake-up of the ext4-rsv-conversion worker by a request's completion
        (ext4_put_io_end_defer() in the waker's stack) and the request that completed;
journal: the jbd2 commits and their journal writes (WSM requests), issue and completion.
"""
import re
import sys

RUN = (13.7, 27.7)  # the writer's step ran 13.778-27.594 (CLOCK_MONOTONIC)
OFFSET = 0  # plain W requests in flight when the trace starts (the setup had synced)
L = open(sys.argv[1]).read().split("\n")
mode = sys.argv[2] if len(sys.argv) > 2 else "sleeps"
EV = re.compile(r"\s(\d+\.\d+): (\w+): (.*)")


def stack(i):
    return [x.strip()[3:] for x in L[i + 2:i + 30] if x.strip().startswith("=>")]


inflight, slept, last_w = -OFFSET, None, None
for i, line in enumerate(L):
    m = EV.search(line)
    if not m:
        continue
    t, ev, rest = float(m.group(1)), m.group(2), m.group(3)
    if ev in ("block_rq_issue", "block_rq_complete"):
        flags = rest.split()[1]
        if flags == "W":
            inflight += 1 if ev == "block_rq_issue" else -1
            if ev == "block_rq_complete":
                last_w = rest.split("()")[1].split("[")[0].strip()
        if mode == "journal" and "M" in flags and t > 11:
            print(f"{t:.4f} {ev} {rest}")
        continue
    if mode == "journal" and ev in ("jbd2_start_commit", "jbd2_end_commit") and t > 11:
        print(f"{t:.4f} {ev} {rest}")
    if not RUN[0] < t < RUN[1]:
        continue
    if mode == "sleeps" and ev == "sched_switch" and "prev_pid=25 " in rest and "prev_state=D" in rest:
        st = stack(i)
        where = "blk-wbt rq_qos_wait" if "rq_qos_wait" in st else " < ".join(st[4:7])
        print(f"{t:.4f} flusher sleeps (D) in {where}; W requests in flight {inflight}")
        slept = t
    elif mode == "sleeps" and ev == "sched_waking" and "pid=25 " in rest and slept is not None:
        st = stack(i)
        print(f"{t:.4f}   woken after {t - slept:.3f} s by {line.split()[0]}: {' < '.join(st[2:8])}; in flight {inflight}")
        slept = None
    elif mode == "convert" and ev == "sched_waking" and "ext4_put_io_end_defer" in stack(i):
        print(f"{t:.4f} conversion work queued at the completion of W {last_w} ({rest.split()[0]})")
