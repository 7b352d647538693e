#!/usr/bin/env python3
"""bias55: the loop device's read requests from issue to completion (block_rq_issue -> block_rq_complete, same
sector), over a raw trace from the reader's first miss on (ra_cycles.load()): percentiles in ms, and how many
completed in a group (within 60 us of another request's completion) with a request issued >= 1 ms after them.

    python3 lab/validation/bias55/rq_latency.py RAW [RAW ...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ra_cycles as R  # noqa: E402


def main():
    for path in sys.argv[1:]:
        ev, _ino = R.load(path)
        reqs = [(i, c) for i, c, _n in R.read_requests(ev)]
        lat = sorted((c - i) * 1e3 for i, c in reqs)
        n = len(lat)
        later = 0
        for i, c in reqs:
            if any(abs(c2 - c) < 60e-6 and i2 - i >= 1e-3 for i2, c2 in reqs):
                later += 1
        q = lambda f: lat[min(n - 1, int(f * n))]
        print(f"{path}: {n} requests, issue to completion ms p10 {q(.1):.2f} p50 {q(.5):.2f} p75 {q(.75):.2f} "
              f"p90 {q(.9):.2f} max {lat[-1]:.2f}; completed together with a request issued >= 1 ms later: {later}")


if __name__ == "__main__":
    main()
