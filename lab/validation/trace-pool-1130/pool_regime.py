#!/usr/bin/env python3
"""kswapd's runs in the stream step of a --reclaim-trace file of qemu612-lrugen-global-stream-pool, one line a run
(pool22c, 2026-11-30): its start (the memtwin/balance kprobe at balance_pgdat(), with the node's free pages), its
kind, its length (to its last zone_watermark_ok_safe() probe, pgdat_balanced()'s per-zone test: the memtwin/wmok and
memtwin/wmok_ret kprobes, boots 3 and 4), DMA32's marks (high + boost) in it, the steals (kmem/mm_page_alloc_extfrag)
of a refill burst (same CPU, < 0.2 ms apart, 8 or more) ending in the 2 ms before it, and the direct reclaims
(memtwin/direct at try_to_free_pages()) from 1 ms before it to its end. Kinds: DMA-balanced (ZONE_DMA's test
answered yes: pgdat_balanced() true, balance_pgdat()'s boosted reclaim of nr_boost_reclaim), boosted (DMA32's first
mark above its high, 991), unboosted. With --windows A-B ...: per window, the runs by kind, the direct reclaims, the
bursts and the steals in it.

usage: pool_regime.py TRACE[.xz] [--windows 16.22-16.605 17.265-17.43 ...]"""
import lzma
import re
import sys

EV = re.compile(r'^\s*(\S+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\S+?):(.*)')


def runs_of(path):
    lines = (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read().split("\n")
    head = next(line for line in lines if line.startswith("# step 'stream'"))
    a, b = map(float, re.search(r'(\d+\.\d+) \.\. (\d+\.\d+)', head).groups())
    runs, cur, pend, bursts, bcur, directs, steals = [], None, None, [], None, [], []
    for line in lines:
        m = EV.search(line)
        if not m:
            continue
        t, cpu, comm, name, rest = float(m.group(3)), int(m.group(2)), m.group(1), m.group(4), m.group(5)
        if not a <= t <= b:
            continue
        if name == "mm_page_alloc_extfrag":
            steals.append(t)
            if bcur and bcur[2] == cpu and t - bcur[1] < 200e-6:
                bcur[1], bcur[3] = t, bcur[3] + 1
            else:
                bcur = [t, t, cpu, 1]
                bursts.append(bcur)
        elif name == "direct":
            directs.append(t)
        if not comm.startswith("kswapd"):
            continue
        if name == "balance":
            cur = {"t0": t, "t1": t, "free0": int(re.search(r'free=(-?\d+)', rest).group(1)), "dma_ok": 0, "marks": []}
            runs.append(cur)
        elif name == "wmok" and cur:
            pend = int(re.search(r'mark=(\d+)', rest).group(1))
        elif name == "wmok_ret" and cur and pend is not None:
            ok = int(re.search(r'ret=(\d+)', rest).group(1))
            if pend < 100:
                cur["dma_ok"] += ok
            else:
                cur["marks"].append(pend)
            cur["t1"], pend = t, None
    for r in runs:
        r["kind"] = "DMA-balanced" if r["dma_ok"] else ("boosted" if r["marks"] and r["marks"][0] > 1000 else "unboosted")
        r["burst"] = next((x[3] for x in bursts if r["t0"] - 0.002 <= x[1] <= r["t0"] and x[3] >= 8), None)
        r["directs"] = sum(1 for d in directs if r["t0"] - 0.001 <= d <= r["t1"])
    return runs, bursts, directs, steals


USAGE = "usage: pool_regime.py TRACE[.xz] [--windows 16.22-16.605 17.265-17.43 ...]"


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(f"{USAGE}\n  fix: give a --reclaim-trace file of qemu612-lrugen-global-stream-pool first "
              "(lab/validation/trace-pool-1130/boot4-two-list.trace.xz)", file=sys.stderr)
        sys.exit(2)
    path = argv[0]
    try:
        runs, bursts, directs, steals = runs_of(path)
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as e:
        print(f"pool_regime.py: {path}: error: cannot read it ({getattr(e, 'strerror', None) or e})\n"
              f"  fix: give a readable --reclaim-trace file (.xz or plain text)\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    except StopIteration:
        print(f"pool_regime.py: {path}: error: no \"# step 'stream'\" header: not a --reclaim-trace file of a stream step\n"
              f"  fix: give the --reclaim-trace output of qemu612-lrugen-global-stream-pool\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    for r in runs:
        print(f"{r['t0']:.4f} {r['kind']:12s} free0 {r['free0']:5d} {(r['t1'] - r['t0']) * 1e3:6.2f} ms marks "
              f"{sorted(set(r['marks']))} burst {r['burst'] or '-'} directs {r['directs']}")
    if "--windows" in argv:
        for w in argv[argv.index("--windows") + 1:]:
            try:
                lo, hi = map(float, w.split("-"))
            except ValueError:
                print(f"pool_regime.py: --windows {w}: error: not A-B seconds\n  fix: e.g. --windows 16.22-16.605\n{USAGE}",
                      file=sys.stderr)
                sys.exit(2)
            rs = [r for r in runs if lo <= r["t0"] < hi]
            kinds = {k: sum(1 for r in rs if r["kind"] == k) for k in ("unboosted", "boosted", "DMA-balanced")}
            print(f"window {lo}-{hi} s: runs {len(rs)} {kinds}, direct reclaims {sum(1 for d in directs if lo <= d < hi)}, "
                  f"bursts >= 8 {sum(1 for x in bursts if lo <= x[0] < hi and x[3] >= 8)}, steals {sum(1 for s in steals if lo <= s < hi)}")


if __name__ == "__main__":
    main(sys.argv[1:])
