#!/usr/bin/env python3
"""The loop driver's own path in trace.txt (lab/validation/trace_queue_read.bt's events), the figures
host-queue-read-msk's header and loop-device.md quote: at max_sectors_kb 128 every 128 KiB read
request of the loop device (major 7) is paired, in order, with a 128 KiB read request on /dev/vda
(254) below it: loop issue -> vda issue (loop_queue_work() and the loop worker) and vda completion ->
loop completion (lo_rw_aio_complete()). Pairing in order (FIFO) assumes the loop worker keeps the
order, which one request in flight a window mostly gives.

    xz -dc trace.txt.xz | python3 pairs.py /dev/stdin
"""
import sys


def pct(xs: list) -> str:
    xs = sorted(xs)
    n = len(xs)
    return f"n {n} p50 {xs[n // 2] / 1000:.0f} us p90 {xs[int(n * 0.9)] / 1000:.0f} us"


def main(path: str) -> None:
    ev = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 6 and p[0] in ("BI", "BC"):
                ev.append((p[0], int(p[1]), int(p[2]), int(p[4]), p[5]))
    loop = [e for e in ev if e[1] == 7 and e[3] == 256 and "R" in e[4]]
    if not loop:
        sys.exit("pairs.py: no 128 KiB read request of a loop device in the trace\n  fix: give trace.txt of a max_sectors_kb 128 run")
    t0, t1 = loop[0][2], loop[-1][2] + 50_000_000
    vda = [e for e in ev if e[1] == 254 and e[3] == 256 and "R" in e[4] and t0 <= e[2] <= t1]
    li, lc = [e[2] for e in loop if e[0] == "BI"], [e[2] for e in loop if e[0] == "BC"]
    vi, vc = [e[2] for e in vda if e[0] == "BI"], [e[2] for e in vda if e[0] == "BC"]
    print("loop issue -> vda issue      ", pct([v - lo for lo, v in zip(li, vi)]))
    print("vda complete -> loop complete", pct([lo - v for lo, v in zip(lc, vc)]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trace.txt")
