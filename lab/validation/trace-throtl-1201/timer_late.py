#!/usr/bin/env python3
"""From a blk_notes.py trace: for each dispatch round of blk-throttle's pending timer, the jiffy it ran at
(the `jiffies=` of its first slice note) minus the held bio's disptime (`schedule timer. delay=D jiffies=J`:
J + D), and how far into that jiffy (us after the tick, the clock mapped as blk_replay.py maps it); and for
the engine the same figure is 1 (timer.rs calc_wheel_index(): a level-0 timer's bucket is expires + 1).

    python3 timer_late.py BLKTRACE...
"""
import collections
import re
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blk_replay as B  # noqa: E402
import throtl_replay as T  # noqa: E402

for path in sys.argv[1:]:
    ev = B.load(path)
    pend, after_dispatch, late = None, False, collections.Counter()
    for t, c, p, r in ev:
        m = re.search(r"schedule timer\. delay=(\d+) jiffies=(\d+)", r)
        if m:
            pend = int(m.group(1)) + int(m.group(2))
            continue
        if "dispatch nr_queued" in r:
            after_dispatch = True
            continue
        m = re.search(r"jiffies=(\d+)", r)
        if m and after_dispatch and pend is not None:
            late[int(m.group(1)) - pend] += 1
            pend = None
        after_dispatch = False
    n = sum(late.values())
    print(f"{path}: {n} timer dispatch rounds; ran at disptime + k jiffies: " +
          ", ".join(f"k={k}: {v} ({100 * v / n:.0f}%)" for k, v in sorted(late.items())))
