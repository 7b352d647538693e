#!/usr/bin/env python3
"""bias55: the kernel's and the twin's raw traces through ra_cycles.py's one classifier, summed per side.

    python3 lab/validation/bias55/cmp_cycles.py kernel:RAW... twin:RAW...

A RAW is a tracefs raw text (the kernel's, trace_thrash_timeline.py --raw) or the twin's (twin_raw.py); the
prefix names the side. Per side: pages added and progress over every cycle, restarts per trace; per cycle
class and outcome: cycles per trace, progress per cycle, pages added per page of progress and each class's
share of the pages added; the order-10 windows per trace and pages per window; the reclaims freeing nothing
after an order-8 window's charges per trace and their median on-CPU time; pages added per restart by order.
"""
import os
import re
import statistics
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ra_cycles as R  # noqa: E402


def side(paths):
    agg = defaultdict(lambda: [0, 0, 0])
    tot = [0, 0]
    restarts = mid = 0
    w10 = []
    fails = []
    orders = Counter()
    for p in paths:
        ev, ino = R.load(p)
        syncs = [re.search(r"req_count=(\d+)", r).group(1) for _t, _p, e, r in ev if e == "page_cache_sync_ra"]
        restarts += len(syncs)
        mid += sum(1 for s in syncs if s != "32")
        for cls, out, added, prog in R.cycles(ev, ino):
            a = agg[(cls, out)]
            a[0] += 1; a[1] += added; a[2] += prog
            tot[0] += added; tot[1] += prog
        w10 += R.order10_windows(ev, ino)
        fails += R.failing_reclaims_after_order8(ev)
        for _t, _p, e, rest in ev:
            if e == "mm_filemap_add_to_page_cache":
                a = R.added_pages(rest, ino)
                if a:
                    orders[a[1]] += 1
    return dict(n=len(paths), agg=agg, tot=tot, restarts=restarts, mid=mid, w10=w10, fails=sorted(fails), orders=orders)


def main():
    sides = defaultdict(list)
    for a in sys.argv[1:]:
        k, p = a.split(":", 1)
        sides[k].append(p)
    S = {k: side(v) for k, v in sides.items()}
    names = list(S)
    print("side: traces, restarts a trace (inside a read), pages added / progress over the cycles, progress a cycle")
    for k in names:
        s = S[k]
        print(f"  {k:8s} {s['n']}  {s['restarts'] / s['n']:5.1f} ({s['mid'] / s['n']:.1f})  {s['tot'][0] / s['tot'][1]:.3f}"
              f"  {s['tot'][1] / max(1, s['restarts'] - s['n']):.0f}")
    print("class -> next restart: per side cycles a trace, progress a cycle, added/progress, share of pages added")
    keys = sorted(set().union(*(S[k]['agg'] for k in names)))
    for key in keys:
        cells = []
        for k in names:
            s = S[k]
            n, ad, pr = s['agg'].get(key, (0, 0, 0))
            cells.append(f"{n / s['n']:4.1f} {pr / max(n, 1):5.0f} {ad / max(pr, 1):4.2f} {ad / s['tot'][0]:4.2f}")
        print(f"  {key[0]:18s} -> {key[1]:6s} | " + " | ".join(cells))
    print("order-10 windows a trace, pages added a window, stopped short a trace (on a reclaim freeing nothing)")
    for k in names:
        s = S[k]; w = s['w10']; short = [r for r in w if r[1] < r[0]]
        print(f"  {k:8s} {len(w) / s['n']:5.1f}  {sum(r[1] for r in w) / max(1, len(w)):6.0f}  {len(short) / s['n']:.1f} "
              f"({sum(1 for r in short if r[2]) / s['n']:.1f})")
    print("reclaims freeing nothing after an order-8 window's charges: a trace, on-CPU median us")
    for k in names:
        s = S[k]; z = s['fails']
        print(f"  {k:8s} {len(z) / s['n']:5.1f}  {statistics.median(z) if z else 0:5.0f}")
    print("folios added a restart by order (0 2 4 6 8 9)")
    for k in names:
        s = S[k]
        print(f"  {k:8s} " + " ".join(f"{s['orders'][o] / s['restarts']:7.1f}" for o in (0, 2, 4, 6, 8, 9)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
