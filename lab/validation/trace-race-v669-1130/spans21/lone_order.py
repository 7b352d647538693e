"""Is there an order in the loop device's lone 8 MiB windows? (spans21, 2026-12-01; lab/validation/spans-rule.md 1)

For each raw trace, the spans of its busy periods that are one 8 MiB window alone (loop_busy.py `kind()`, the
periods hostcal's device_lone_window_spans_ns holds) IN TIME ORDER: their lag-1 autocorrelation against the same
spans shuffled 2,000 times (random.seed(1)), and the medians of the run's two halves with the share of shuffles
whose halves differ by at least as much.

    xz -dc ../raw-1g-1.txt.xz > /tmp/raw-1g-1.txt   # likewise the other three
    python3 lone_order.py /tmp/raw-1g-1.txt /tmp/raw-1g-2.txt /tmp/raw-512m-1.txt /tmp/raw-512m-2.txt
"""
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "measurements"))
import loop_busy as lb  # noqa: E402


def ac(s):
    mm = statistics.mean(s)
    v = sum((x - mm) ** 2 for x in s)
    return sum((s[i] - mm) * (s[i + 1] - mm) for i in range(len(s) - 1)) / v


for path in sys.argv[1:]:
    ps = [lb.describe(p) for p in lb.periods(lb.raw_requests(path))]
    seq = [d["span_ms"] for d in ps if lb.kind(d) == "8 MiB window alone"]
    n = len(seq)
    random.seed(1)
    null = []
    for _ in range(2000):
        t = seq[:]
        random.shuffle(t)
        null.append(ac(t))
    null.sort()
    half = n // 2
    obs = abs(statistics.median(seq[:half]) - statistics.median(seq[half:]))
    random.seed(1)
    drift = 0
    for _ in range(2000):
        t = seq[:]
        random.shuffle(t)
        drift += abs(statistics.median(t[:half]) - statistics.median(t[half:])) >= obs
    print(os.path.basename(path), n, "lag-1 autocorr %.3f" % ac(seq), "shuffled p5-p95 %.3f..%.3f" % (null[100], null[1900]),
          "median 1st half %.3f 2nd half %.3f" % (statistics.median(seq[:half]), statistics.median(seq[half:])),
          "shuffles with halves as far apart %.3f" % (drift / 2000))
