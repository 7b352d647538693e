#!/usr/bin/env python3
"""bias55: per ramp of a kernel raw trace, the reader's time off-CPU while runnable (sched_switch with
prev_state R/R+, until it is switched in again) between the ramp's order-8 window (page_cache_ra_order with
ra->order 8) and the next restart, and who ran on its CPU meanwhile; by the next restart's class
(ra_cycles.py's outcome). Prints per outcome: ramps, ramps with a preemption >= 0.5 ms, median off-CPU ms.

    python3 lab/validation/bias55/preempt.py RAW [RAW ...]
"""
import os
import re
import statistics
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ra_cycles as R  # noqa: E402


def main():
    for path in sys.argv[1:]:
        ev, ino = R.load(path)
        reader = ev[0][1]
        sync = [i for i, e in enumerate(ev) if e[2] == "page_cache_sync_ra"]
        by = defaultdict(list)
        who = Counter()
        for k in range(len(sync) - 1):
            i, ni = sync[k], sync[k + 1]
            t8 = None
            off, since, longest = 0.0, None, 0.0
            for t, _p, e, r in ev[i:ni]:
                if e == "page_cache_ra_order" and t8 is None and re.search(r" order=8 ", r):
                    t8 = t
                elif e == "sched_switch" and t8 is not None:
                    g = re.search(r"prev_comm=(.*?) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)", r)
                    if g.group(2) == reader and g.group(3).startswith("R"):
                        since = t
                        who[g.group(4)] += 1
                    elif g.group(5) == reader and since is not None:
                        off += t - since
                        longest = max(longest, t - since)
                        since = None
            if t8 is None:
                continue
            g = re.search(r"req_count=(\d+) order=(\d+)", ev[ni][3])
            outcome = "o" + g.group(2) + ("" if g.group(1) == "32" else " mid")
            by[outcome].append((off * 1e3, longest * 1e3))
        print(f"== {path} (reader {reader})")
        for o in sorted(by):
            x = by[o]
            print(f"  -> {o:6s} ramps {len(x):3d}, preempted >= 0.5 ms at once {sum(1 for a, b in x if b >= 0.5):3d}, "
                  f"off-CPU runnable median {statistics.median(a for a, b in x):.2f} ms (max {max(a for a, b in x):.2f})")
        print("  switched to, while runnable:", dict(who.most_common(4)))


if __name__ == "__main__":
    main()
