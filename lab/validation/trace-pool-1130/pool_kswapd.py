#!/usr/bin/env python3
"""kswapd's wake-ups and the per-CPU lists' flushes in the stream step of a --reclaim-trace file of
qemu612-lrugen-global-stream-pool (pool22b, 2026-11-30).

For each wake-up window (the first vmscan:mm_vmscan_wakeup_kswapd after kswapd's last balance_pgdat(),
6.12 mm/vmscan.c wakeup_kswapd(), to kswapd's next mm_vmscan_kswapd_wake, kswapd() just before
balance_pgdat()): how long kswapd took to be switched in (sched_switch next_comm=kswapd*) and to reach
balance_pgdat(), and whether a direct reclaim (the memtwin/direct kprobe at try_to_free_pages()) began
inside the window, before kswapd ran. Pages per kswapd run: the step's pgsteal_kswapd / pageoutrun.
Where the trace has kmem:mm_page_pcpu_drain (boot 3 on; filtered to non-movable pageblocks,
free_pcppages_bulk() of 6.12, migratetype = the block's): how many of the stream's unclaimed fallback
frames (mm_page_alloc_extfrag change_ownership=0) a per-CPU flush returned to their block, by whom,
and how long after the steal.

usage: pool_kswapd.py TRACE[.xz] ..."""
import bisect
import collections
import lzma
import re
import statistics
import sys

EV = re.compile(r'^\s*(\S+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\S+?):(.*)')


def q(x):
    x = sorted(x)
    return "-" if not x else f"median {statistics.median(x) * 1e3:.2f} ms (p10 {x[len(x) // 10] * 1e3:.2f}, p90 {x[9 * len(x) // 10] * 1e3:.2f})"


def analyse(path):
    lines = (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read().split("\n")
    head = next(line for line in lines if line.startswith("# step 'stream'"))
    a, b = map(float, re.search(r'(\d+\.\d+) \.\. (\d+\.\d+)', head).groups())
    step = {k: int(v) for k, v in re.findall(r'(\w+)=(-?\d+)', head)}
    wins, cur, dr, steals = [], None, [], []
    drains, ndrain = collections.defaultdict(list), 0
    traced_drain = "mm_page_pcpu_drain" in next((x for x in lines if x.startswith("# events:")), "")
    for line in lines:
        m = EV.search(line)
        if not m:
            continue
        t, ev, rest = float(m.group(3)), m.group(4), m.group(5)
        if ev == "mm_page_pcpu_drain" and a <= t <= b + 1.0:
            drains[int(re.search(r'pfn=0x([0-9a-f]+)', rest).group(1), 16)].append((t, m.group(1).rsplit("-", 1)[0]))
            ndrain += t <= b
        if not a <= t <= b:
            continue
        if ev == "mm_vmscan_wakeup_kswapd" and cur is None:
            cur = {"w": t, "sw": None, "d": []}
        elif ev == "sched_switch" and "next_comm=kswapd" in rest and cur and cur["sw"] is None:
            cur["sw"] = t
        elif ev == "mm_vmscan_kswapd_wake":
            if cur:
                cur["k"] = t
                wins.append(cur)
            cur = None
        elif ev == "direct":
            dr.append(t)
            if cur:
                cur["d"].append(t)
        elif ev == "mm_page_alloc_extfrag" and "change_ownership=0" in rest:
            steals.append((t, int(re.search(r'pfn=0x([0-9a-f]+)', rest).group(1), 16)))
    wd = [w for w in wins if w["d"]]
    runs = step.get("pageoutrun", 0)
    print(f"{path}: stream {a:.3f}..{b:.3f}: allocstall_movable {step.get('allocstall_movable', 0)}, pageoutrun {runs}, "
          f"pgsteal_kswapd {step.get('pgsteal_kswapd', 0)} ({step.get('pgsteal_kswapd', 0) / max(runs, 1):.0f} a run), "
          f"kswapd_low_wmark_hit_quickly {step.get('kswapd_low_wmark_hit_quickly', 0)}")
    print(f"  wake-up windows {len(wins)}, with a direct reclaim inside {len(wd)} (direct reclaims in the step {len(dr)})")
    print(f"  wake -> kswapd switched in {q([w['sw'] - w['w'] for w in wins if w['sw']])}; "
          f"-> balance_pgdat() {q([w['k'] - w['w'] for w in wins])}")
    print(f"  wake -> the window's first direct reclaim {q([w['d'][0] - w['w'] for w in wd])}; before kswapd was switched in: "
          f"{sum(1 for w in wd if w['sw'] is None or w['d'][0] < w['sw'])} of {len(wd)}")
    if traced_drain:
        back, dt, by, after_direct = 0, [], collections.Counter(), 0
        for t, pfn in steals:
            nxt = next((x for x in drains.get(pfn, []) if x[0] > t), None)
            if nxt:
                back += 1
                dt.append(nxt[0] - t)
                by[nxt[1]] += 1
                i = bisect.bisect_right(dr, t)
                after_direct += i < len(dr) and dr[i] < nxt[0]
        print(f"  per-CPU flushes into non-movable blocks in the step {ndrain}; unclaimed fallback frames {len(steals)}, "
              f"flushed back within the step + 1 s {back} (by {dict(by.most_common(3))}), steal -> flush {q(dt)}, "
              f"a direct reclaim between them {after_direct}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        analyse(p)
