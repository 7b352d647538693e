#!/usr/bin/env python3
"""The series README.md quotes, from the guest trace of qemu61-throttle-writeback-v1:
    xz -dc trace.txt.xz | python3 digest.py /dev/stdin [series|gaps|batches]
series (default): every 100 ms of the run the global dirty and writeback MB (writeback:global_dirty_state)
  and the pages whose writeback ended since boot (written: sampled only when the event fires), each
  flusher work (writeback_start/_written: reason, pages left), blk-wbt's steps, each
  mm_vmscan_throttled and each shrink_inactive_list batch that took only dirty pages not under
  writeback (the nr_unqueued_dirty == nr_taken batches that wake the flusher and, on v1, sleep).
gaps: every time the writer (the memtwin-guest task) emitted no event for over 20 ms (it dirties a
  page batch every ~2 ms when it runs): its sleeps, in folio_wait_writeback() (shrink_folio_list()
  case 3) or reclaim_throttle() (then an mm_vmscan_throttled event ends it).
batches: shrink_inactive_list batches by kind (clean only, some under writeback, dirty only) and
  the totals of their fields.
"""
import re
import sys
from collections import Counter

RUN_START = 9.3  # the writer's step began at 9.338 (the trace's header)
mode = sys.argv[2] if len(sys.argv) > 2 else "series"
events = []
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.search(r"^\s*(\S+)\s+\[\d+\]\s+\S+\s+(\d+\.\d+): (\w+): (.*)", line)
    if m and float(m.group(2)) >= RUN_START:
        events.append((float(m.group(2)), m.group(1), m.group(3), m.group(4)))

if mode == "series":
    last = -1.0
    for t, comm, ev, rest in events:
        if ev == "global_dirty_state" and t - last >= 0.1:
            d = re.search(r"dirty=(\d+) writeback=(\d+).*written=(\d+)", rest)
            print(f"{t:.3f} dirty_MB={int(d.group(1)) * 4 / 1024:.1f} writeback_MB={int(d.group(2)) * 4 / 1024:.1f} written={d.group(3)}")
            last = t
        elif ev in ("writeback_start", "writeback_written"):
            d = re.search(r"nr_pages=(\d+).*reason=(\w+)", rest)
            print(f"{t:.3f} {ev} reason={d.group(2)} nr_pages_left={int(d.group(1)) % 10**8}")
        elif ev == "mm_vmscan_throttled":
            print(f"{t:.3f} throttled {rest}")
        elif ev == "wbt_step":
            print(f"{t:.3f} wbt {rest}")
        elif ev == "mm_vmscan_lru_shrink_inactive":
            d = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", rest)}
            if d["nr_scanned"] and d["nr_dirty"] == d["nr_scanned"] and not d["nr_writeback"]:
                print(f"{t:.3f} batch of dirty pages only: {rest[:120]}")
elif mode == "gaps":
    prev, total = None, 0.0
    for t, comm, ev, rest in events:
        if not comm.startswith("memtwin-guest"):
            continue
        if prev is not None and t - prev > 0.02:
            print(f"{prev:.3f} +{t - prev:.3f}")
            total += t - prev
        prev = t
    print(f"total {total:.3f} s")
else:
    kinds, tot = Counter(), Counter()
    for t, comm, ev, rest in events:
        if ev != "mm_vmscan_lru_shrink_inactive":
            continue
        d = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", rest)}
        for k in ("nr_scanned", "nr_reclaimed", "nr_dirty", "nr_writeback", "nr_congested", "nr_immediate", "nr_activate_file"):
            tot[k] += d[k]
        kinds["clean" if not d["nr_dirty"] else "writeback" if d["nr_writeback"] else "dirty"] += 1
    print(dict(kinds), dict(tot))
