#!/usr/bin/env python3
"""ct56: the loop device's read requests in busy periods (issue order; a request joins the period when it is
issued before the latest completion of the period's requests so far: the twin's complete_together batch rule
applied to the trace's own completions). Per trace: periods, requests a period, span (first issue to last
completion, ms), the bytes a period over its span (GB/s), and the bytes issued over the span of the periods
longer than 20 ms (the offered rate while the line stays busy).

    python3 lab/validation/ct56/busy.py RAW [RAW ...]     (a twin raw from twin_raw.py --own: own transfers)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import R, pct as _pct  # noqa: E402


def pct(v):
    return _pct(v, (.5, .9))


def main():
    for path in sys.argv[1:]:
        ev, _ino = R.load(path)
        reqs = sorted(R.read_requests(ev))
        per, end = [], None
        for i, c, n in reqs:
            if per and i < end:
                per[-1].append((i, c, n))
                end = max(end, c)
            else:
                per.append([(i, c, n)])
                end = c
        span = [(max(c for _i, c, _n in p) - p[0][0]) * 1e3 for p in per]
        size = [len(p) for p in per]
        rate = [sum(n for *_x, n in p) * 512 / (s * 1e-3) / 1e9 for p, s in zip(per, span) if s > 0]
        longp = [(p, s) for p, s in zip(per, span) if s > 20]
        offered = [sum(n for *_x, n in p) * 512 / (s * 1e-3) / 1e6 for p, s in longp]
        print(f"{path}: {len(reqs)} requests, {len(per)} busy periods; requests a period {pct(size)}; "
              f"span ms {pct(span)}; GB/s {pct(rate)}")
        if longp:
            print(f"  {len(longp)} periods over 20 ms: MB/s issued over the span {pct(offered)}; "
                  f"requests {pct([len(p) for p, _s in longp])}")


if __name__ == '__main__':
    main()
