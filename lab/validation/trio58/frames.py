#!/usr/bin/env python3
"""trio58: the kernel's readahead frames (r1, trace_frames.py): for the reader's tasks (given pids), the
order-0 movable allocations with readahead's gfp (__GFP_NORETRY, migratetype 1) in allocation order: how often a
frame is the previous one's +1 (bvec_try_merge_page() would merge them into one segment), -1, or neither; and
where they came from (mm_page_alloc_zone_locked with percpu_refill=1: rmqueue_bulk() refilling a per-CPU list
from the buddy lists; the rest were on the per-CPU list: freed frames, LIFO). Also the orders of all the reader's
page-cache allocations.

    python3 lab/validation/trio58/frames.py RAW PID[,PID...] [T0 T1]
"""
import collections
import re
import sys

ALLOC = re.compile(r"-(\d+)\s+\[\d+\] \S+ ([\d.]+): mm_page_alloc: page=\S+ pfn=0x([0-9a-f]+) order=(\d+) migratetype=(\d+) gfp_flags=(\S+)")
ZL = re.compile(r"-(\d+)\s+\[\d+\] \S+ ([\d.]+): mm_page_alloc_zone_locked: page=\S+ pfn=0x([0-9a-f]+) order=(\d+) migratetype=(\d+) percpu_refill=(\d)")


def main():
    path, pids = sys.argv[1], set(sys.argv[2].split(','))
    t0, t1 = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) > 4 else (0, 1e18)
    prev, c, orders, refill, seq = None, collections.Counter(), collections.Counter(), set(), []
    with open(path) as f:
        for line in f:
            if 'mm_page_alloc' not in line:
                continue
            m = ZL.search(line)
            if m:
                if m.group(1) in pids and m.group(6) == '1' and m.group(4) == '0':
                    refill.add(int(m.group(3), 16))
                continue
            m = ALLOC.search(line)
            if not m or m.group(1) not in pids or not t0 <= float(m.group(2)) <= t1:
                continue
            if 'NORETRY' not in m.group(6) or m.group(5) != '1':
                continue
            order, pfn = int(m.group(4)), int(m.group(3), 16)
            orders[order] += 1
            if order:
                prev = None
                continue
            seq.append(pfn)
            if prev is not None:
                c['+1' if pfn == prev + 1 else '-1' if pfn == prev - 1 else 'other'] += 1
            prev = pfn
    n = sum(c.values())
    print(f"{path} pids {sorted(pids)} t {t0}-{t1}: readahead allocations by order {dict(sorted(orders.items()))}")
    print(f"  order-0 consecutive pairs {n}: +1 {c['+1']} ({100 * c['+1'] / max(n, 1):.1f}%), -1 {c['-1']} "
          f"({100 * c['-1'] / max(n, 1):.1f}%), other {c['other']} ({100 * c['other'] / max(n, 1):.1f}%)")
    fr = sum(1 for p in seq if p in refill)
    print(f"  order-0 frames that a percpu refill (rmqueue_bulk) took from the buddy in this trace: {fr} of {len(seq)}")


if __name__ == '__main__':
    main()
