#!/usr/bin/env python3
"""bias55: per ramp whose order-6 window (8 MiB) left blk-throttle at once (ra_cycles.race()'s ramps), the
memcg reclaim in progress when that window's last request completed, if any: whether it freed pages, how long it
lasted and how much of it the reclaiming task spent off-CPU while runnable (preempted; sched_switch, kernel only);
by the next restart's class. Prints per side the counts.

    python3 lab/validation/bias55/span.py RAW [RAW ...]
"""
import os
import re
import statistics
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ra_cycles as R  # noqa: E402


def main():
    for path in sys.argv[1:]:
        ev, ino = R.load(path)
        sync = [i for i, e in enumerate(ev) if e[2] == "page_cache_sync_ra"]
        c = Counter()
        lens, offs = [], []
        for k in range(len(sync) - 1):
            i, ni = sync[k], sync[k + 1]
            t6 = sector = done = None
            for t, _p, e, r in ev[i:ni]:
                if e == "page_cache_ra_order" and t6 is None and re.search(r" order=6 size=2048", r):
                    t6 = t
                elif e == "block_bio_queue" and t6 is not None and sector is None and R.bio_kib(r) == 8192:
                    if t - t6 > R.HELD_S:
                        break
                    sector = int(re.search(r"(\d+) \+", r).group(1))
                elif e == "block_rq_complete" and sector is not None and r.startswith("7,0 R"):
                    g = re.search(r"(\d+) \+ (\d+)", r)
                    if g and sector <= int(g.group(1)) < sector + 16384 and int(g.group(2)):
                        done = t if done is None else max(done, t)
            if done is None:
                continue
            g = re.search(r"req_count=(\d+) order=(\d+)", ev[ni][3])
            outcome = "o" + g.group(2) + ("" if g.group(1) == "32" else " mid")
            begin, off, since, found = None, 0.0, None, None
            for t, p, e, r in ev[i:ni]:
                if e == "mm_vmscan_memcg_reclaim_begin":
                    begin, off, since, who = t, 0.0, None, p
                elif e == "sched_switch" and begin is not None:
                    g = re.search(r"prev_pid=(\d+) .*prev_state=(\S+) ==> .*next_pid=(\d+)", r)
                    if g.group(1) == who and g.group(2).startswith("R"):
                        since = t
                    elif g.group(3) == who and since is not None:
                        off += t - since
                        since = None
                elif e == "mm_vmscan_memcg_reclaim_end" and begin is not None:
                    if begin <= done <= t:
                        found = (int(re.search(r"nr_reclaimed=(\d+)", r).group(1)), t - begin, off)
                    begin = None
            if found is None:
                c[("no reclaim across the completion", outcome)] += 1
            else:
                c[("a reclaim across it, " + ("freed" if found[0] else "freed nothing") +
                   (", preempted" if found[2] > 0.2e-3 else ""), outcome)] += 1
                lens.append(found[1] * 1e3)
                offs.append(found[2] * 1e3)
        print(f"== {path}")
        for (a, o), n in sorted(c.items()):
            print(f"  {a:48s} -> {o:6s} {n:3d}")
        if lens:
            print(f"  the reclaims across a completion: {len(lens)}, wall median {statistics.median(lens):.2f} ms, "
                  f"off-CPU runnable median {statistics.median(offs):.2f} ms (max {max(offs):.2f})")


if __name__ == "__main__":
    main()
