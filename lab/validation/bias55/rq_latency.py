#!/usr/bin/env python3
"""bias55: the loop device's read requests from issue to completion (block_rq_issue -> block_rq_complete, same
sector), over a raw trace from the reader's first miss on (ra_cycles.load()): percentiles in ms, and how many
completed in a group (within 60 us of another request's completion) with a request issued >= 1 ms after them;
then the completion groups (completions less than 60 us apart): requests a group, and the spread of a group's
issue times (first to last issue) and its first request's issue to the group's completion, percentiles in ms.

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
        groups = []
        for i, c in sorted(reqs, key=lambda r: r[1]):
            if groups and c - groups[-1][-1][1] < 60e-6:
                groups[-1].append((i, c))
            else:
                groups.append([(i, c)])
        size = sorted(len(g) for g in groups)
        spread = sorted((max(i for i, _ in g) - min(i for i, _ in g)) * 1e3 for g in groups)
        first = sorted((max(c for _, c in g) - min(i for i, _ in g)) * 1e3 for g in groups)
        m = len(groups)
        pq = lambda v: " ".join(f"{v[min(m - 1, int(f * m))]:.2f}" for f in (.5, .9)) + f" max {v[-1]:.2f}"
        print(f"  {m} completion groups: requests a group p50 p90 {pq(size)}; issue spread ms p50 p90 {pq(spread)}; "
              f"first issue to completion ms p50 p90 {pq(first)}")


if __name__ == "__main__":
    main()
