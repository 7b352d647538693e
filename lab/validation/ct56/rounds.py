#!/usr/bin/env python3
"""ct56: the loop device's read completion groups (completions < 60 us apart, rq_latency.py's grouping)
read as the backend's rounds. Over a raw trace (ra_cycles.load(), reader's first miss on), per trace:

- order: requests completing in a later group than a request issued after them ("overtaken"): a
  FIFO backend serving its ring one request after another (Firecracker's sync engine) completes in
  pop order, so a later group never holds a request issued (to the loop device) well before one that
  completed earlier; more than 1 ms before counts.
- waited: a request's issue before the completion of the group preceding its own (ms): in a
  backend that takes into a round every request in its ring until the ring is empty, a request in
  the ring while a round runs completes with it; one issued long before the previous round ended was
  not in the ring (loop worker, or a backend with several requests in flight).
- rate: per group, bytes over (completion - max(previous completion, first issue)): the backend's
  serving rate if a round serves its requests one after another from when it starts.

    python3 lab/validation/ct56/rounds.py RAW [RAW ...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ra_cycles as R  # noqa: E402


def pct(v, fs=(.1, .5, .9)):
    v = sorted(v)
    m = len(v)
    return " ".join(f"p{int(f * 100)} {v[min(m - 1, int(f * m))]:.2f}" for f in fs) + f" max {v[-1]:.2f}"


def main():
    for path in sys.argv[1:]:
        ev, _ino = R.load(path)
        reqs = sorted(R.read_requests(ev), key=lambda r: r[1])
        groups = []
        for r in reqs:
            if groups and r[1] - groups[-1][-1][1] < 60e-6:
                groups[-1].append(r)
            else:
                groups.append([r])
        overtaken = 0
        # a request in group k issued > 1 ms before some request of an earlier group
        max_issue_before = float('-inf')
        for g in groups:
            overtaken += sum(1 for i, _c, _n in g if i < max_issue_before - 1e-3)
            max_issue_before = max(max_issue_before, max(i for i, _c, _n in g))
        waited, rate, dur = [], [], []
        prev_c = None
        for g in groups:
            c = max(cc for _i, cc, _n in g)
            first = min(i for i, _c, _n in g)
            if prev_c is not None:
                waited += [(prev_c - i) * 1e3 for i, _c, _n in g]
                start = max(prev_c, first)
                byts = sum(n for _i, _c, n in g) * 512
                if c - start > 0:
                    rate.append(byts / (c - start) / 1e9)
                    dur.append((c - start) * 1e3)
            prev_c = c
        w = [x for x in waited]
        print(f"{path}: {len(reqs)} requests, {len(groups)} groups; overtaken by >1 ms: {overtaken}")
        print(f"  issue before the previous group's completion ms: {pct(w)}; > 1 ms: {sum(x > 1 for x in w)}, "
              f"> 3 ms: {sum(x > 3 for x in w)}")
        print(f"  group service from max(previous completion, first issue) ms: {pct(dur)}; GB/s: {pct(rate)}")


if __name__ == '__main__':
    main()
