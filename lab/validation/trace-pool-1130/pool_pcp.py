#!/usr/bin/env python3
"""The reader's per-CPU set at each of its direct reclaims in the stream step of a --reclaim-trace file of
qemu612-lrugen-global-stream-pool (pool22d, 2026-11-30; boots 5 and 6, whose trace has the memtwin/flush kprobe at
free_pcppages_bulk(): the set's count and high before each flush, pidx the list freed into, the zone's flags and
free pages). For each direct reclaim (memtwin/direct at try_to_free_pages()) the reader's first flush after it on
its CPU: its set's count (the frames its last refill left, less those it used) and high (nr_pcp_high()'s pcp->high,
between high_min and high_max), ZONE_RECLAIM_ACTIVE/ZONE_BELOW_HIGH (zflags bits 1 and 2), and how many frames its
flushes returned before the reclaim ended (mm_vmscan_direct_reclaim_end). Then the flushes of the reader's
non-movable list, the reader's and kswapd's (pidx 0 or 2 with count below the set's: a free of a frame of a
non-movable pageblock, free_unref_page()'s get_pfnblock_migratetype()), and the flushes with count == the set's count
(drain_all_pages() after a direct reclaim whose retry failed, pindex 0, or a set emptied).

usage: pool_pcp.py TRACE[.xz] [--rows]"""
import lzma
import re
import statistics
import sys

EV = re.compile(r'^\s*(\S+)-\d+\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\S+?):(.*)')
USAGE = "usage: pool_pcp.py TRACE[.xz] [--rows]"


def kv(rest):
    return dict(x.split("=", 1) for x in rest.split() if "=" in x)


def directs_of(path):
    lines = (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read().split("\n")
    head = next(line for line in lines if line.startswith("# step 'stream'"))
    a, b = map(float, re.search(r'(\d+\.\d+) \.\. (\d+\.\d+)', head).groups())
    first, rows, cur, nm_flushes, drains, flushes = {}, [], None, [], [], 0
    for line in lines:
        m = EV.search(line)
        if not m:
            continue
        comm, cpu, t, name, rest = m.group(1), int(m.group(2)), float(m.group(3)), m.group(4), m.group(5)
        first.setdefault(cpu, t)
        if not a <= t <= b:
            continue
        if name == "direct" and not comm.startswith("kswapd"):
            cur = {"t": t, "cpu": cpu, "free": int(kv(rest)["free"]), "first": None, "returned": 0}
            rows.append(cur)
        elif name == "mm_vmscan_direct_reclaim_end" and cur and cpu == cur["cpu"]:
            cur = None
        elif name == "flush":
            f = kv(rest)
            if "pcnt" not in f:
                continue
            flushes += 1
            count, pcnt, high, pidx = int(f["count"]), int(f["pcnt"]), int(f["high"]), int(f["pidx"])
            if count == pcnt:
                drains.append((t, comm, count))
            elif pidx != 1:
                nm_flushes.append((t, comm, count))
            if cur and comm == "memtwin-guest" and cpu == cur["cpu"] and high > 413:
                # the reader's own DMA32 set (a high at or below high_min 413 is ZONE_DMA's or kswapd's)
                if cur["first"] is None:
                    cur["first"] = (pcnt, high, int(f["zflags"], 16) if "zflags" in f else None)
                cur["returned"] += min(count, pcnt)
    return (a, b), first, rows, nm_flushes, drains, flushes


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(f"{USAGE}\n  fix: give a --reclaim-trace file with the memtwin/flush kprobe first "
              "(lab/validation/trace-pool-1130/boot5-two-list.trace.xz)", file=sys.stderr)
        sys.exit(2)
    path = argv[0]
    try:
        (a, b), first, rows, nm_flushes, drains, flushes = directs_of(path)
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as e:
        print(f"pool_pcp.py: {path}: error: cannot read it ({getattr(e, 'strerror', None) or e})\n"
              f"  fix: give a readable --reclaim-trace file (.xz or plain text)\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    except StopIteration:
        print(f"pool_pcp.py: {path}: error: no \"# step 'stream'\" header: not a --reclaim-trace file of a stream step\n"
              f"  fix: give the --reclaim-trace output of qemu612-lrugen-global-stream-pool\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    if not flushes:
        print(f"pool_pcp.py: {path}: error: no memtwin/flush events with pcnt= in the stream step (a trace taken before "
              f"pool22d's probe)\n  fix: give boot5-*/boot6-* of lab/validation/trace-pool-1130\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    seen = [r for r in rows if r["first"]]
    print(f"{path}: stream {a:.3f}-{b:.3f} s; ring buffers from " + ", ".join(f"cpu{c} {t:.3f} s" for c, t in sorted(first.items())))
    print(f"direct reclaims {len(rows)}, with the reader's flush in the buffer {len(seen)}")
    if seen:
        cnt, high = [r["first"][0] for r in seen], [r["first"][1] for r in seen]
        ret = [r["returned"] for r in seen]
        q = lambda v: f"min {min(v)} median {statistics.median(v):g} max {max(v)}"  # noqa: E731
        print(f"  the reader's set at its first flush: count {q(cnt)}; high {q(high)}")
        print(f"  frames its flushes returned in the reclaim: {q(ret)}")
        if all(r["first"][2] is not None for r in seen):
            print(f"  zone flags at it: RECLAIM_ACTIVE in {sum(1 for r in seen if r['first'][2] & 2)}, "
                  f"BELOW_HIGH in {sum(1 for r in seen if r['first'][2] & 4)} of {len(seen)}")
        else:
            print("  zone flags: not traced (boot 5's probe read no zone fields)")
    for who in ("memtwin-guest", "kswapd0"):
        v = [c for _, w, c in nm_flushes if w == who]
        print(f"{who}'s flushes after a free into a non-movable list (pidx != 1, not emptying the set): {len(v)}, {sum(v)} frames")
    print(f"flushes emptying a set (count == the set's count): {len(drains)}, by the reader {sum(1 for d in drains if d[1] == 'memtwin-guest')}")
    if "--rows" in argv:
        for r in seen:
            print(f"  {r['t']:.4f} cpu{r['cpu']} free {r['free']} count {r['first'][0]} high {r['first'][1]} "
                  f"zflags {r['first'][2] if r['first'][2] is None else format(r['first'][2], 'x')} returned {r['returned']}")


if __name__ == "__main__":
    main(sys.argv[1:])
