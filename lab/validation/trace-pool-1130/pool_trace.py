#!/usr/bin/env python3
"""The stream step's fallbacks in a --reclaim-trace file of qemu612-lrugen-global-stream-pool (pool22): the
kmem/mm_page_alloc_extfrag events (__rmqueue_fallback(), one a page) inside the step's window (the trace's
"# step 'stream'" line), the frames they took (distinct, and how many were taken more than once: a frame
that came back to its non-movable block and was stolen again), the claims (change_ownership=1), the bursts
(events less than 2 ms apart: a per-CPU refill, rmqueue_bulk()), and the CPUs kswapd and the direct reclaims
ran on. With --timeline N: the first N of the step's events in order (W a/b: wakeup_kswapd from the
allocation slow path / from rmqueue()'s ZONE_BOOSTED_WATERMARK test (gfp_flags none), K kswapd_wake, S
kswapd_sleep, B balance_pgdat() with the node's free pages, d try_to_free_pages() with them, D
direct_reclaim_begin, F<n> a run of n fallbacks).

usage: pool_trace.py TRACE[.xz] ... [--timeline N]"""
import collections
import lzma
import re
import sys

EV = re.compile(r'^\s*(\S+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\S+?):(.*)')


def read(path):
    return (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read().split("\n")


def analyse(path, timeline=0):
    lines = read(path)
    head = next(line for line in lines if line.startswith("# step 'stream'"))
    a, b = map(float, re.search(r'(\d+\.\d+) \.\. (\d+\.\d+)', head).groups())
    step = dict(re.findall(r'(\w+)=(-?\d+)', head))
    frames, cpus, ks, dr = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
    times, claims, seq, run = [], 0, [], 0
    for line in lines:
        m = EV.search(line)
        if not m or not a <= float(m.group(3)) <= b:
            continue
        ev, rest = m.group(4), m.group(5)
        if ev == "mm_page_alloc_extfrag":
            times.append(float(m.group(3)))
            frames[re.search(r'pfn=(0x[0-9a-f]+)', rest).group(1)] += 1
            claims += "change_ownership=1" in rest
            cpus[m.group(2)] += 1
            run += 1
            continue
        mark = None
        if ev == "mm_vmscan_wakeup_kswapd":
            mark = "Wb" if "gfp_flags=none" in rest or "gfp_flags=0x0" in rest else "Wa"
        elif ev in ("mm_vmscan_kswapd_wake", "mm_vmscan_kswapd_sleep", "mm_vmscan_direct_reclaim_begin"):
            mark = {"mm_vmscan_kswapd_wake": "K", "mm_vmscan_kswapd_sleep": "S", "mm_vmscan_direct_reclaim_begin": "D"}[ev]
            if mark == "D":
                dr[m.group(2)] += 1
        elif ev in ("balance", "direct"):
            f = re.search(r'free=(-?\d+)', rest)
            mark = ("B" if ev == "balance" else "d") + (f.group(1) if f else "")
        elif ev == "sched_switch" and "next_comm=kswapd" in rest:
            ks[m.group(2)] += 1
        if mark:
            if run:
                seq.append(f"F{run}")
                run = 0
            seq.append(mark)
    if run:
        seq.append(f"F{run}")
    bursts, cur, last = [], 0, -1.0
    for t in times:
        if t - last > 0.002 and cur:
            bursts.append(cur)
            cur = 0
        cur += 1
        last = t
    if cur:
        bursts.append(cur)
    print(f"{path}: stream pgscan_direct {step.get('pgscan_direct')} (allocstall_movable {step.get('allocstall_movable')}), "
          f"pageoutrun {step.get('pageoutrun')}")
    print(f"  fallbacks {len(times)} over {len(frames)} frames, {sum(c > 1 for c in frames.values())} taken more than once "
          f"(most {max(frames.values(), default=0)}), claims {claims}, by CPU {dict(cpus)}")
    print(f"  bursts {len(bursts)}, {sum(x > 32 for x in bursts)} above 32 events, largest {sorted(bursts)[-5:]}")
    print(f"  kswapd switched in by CPU {dict(ks)}, direct reclaims by CPU {dict(dr)}")
    if timeline:
        print("  " + " ".join(seq[:timeline]))


if __name__ == "__main__":
    args = sys.argv[1:]
    n = 0
    if "--timeline" in args:
        i = args.index("--timeline")
        n = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__.splitlines()[-1])
    for p in args:
        analyse(p, n)
