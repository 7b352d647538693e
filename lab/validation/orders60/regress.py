#!/usr/bin/env python3
"""orders60: least squares over the reader's successful memcg reclaims (lines of a trace_light.py run, or a twin's):
duration = a + b*batches (S) + c*folios deleted (D) + d*pages deleted (sum of 2^order), in ns.
    python3 regress.py LINES [--until-s S]"""
import sys
import numpy as np
until = float(sys.argv[sys.argv.index('--until-s') + 1]) * 1e9 if '--until-s' in sys.argv else None
X, y, cur, t0 = [], [], None, None
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0] == 'J' or not f[1].isdigit():
        continue
    t = int(f[1]); t0 = t if t0 is None else t0
    if until and t - t0 > until:
        break
    if f[0] == 'RB':
        cur = [0, 0, 0]
    elif cur is None:
        continue
    elif f[0] == 'S':
        cur[0] += 1
    elif f[0] == 'D':
        cur[1] += 1; cur[2] += 1 << int(f[3])
    elif f[0] == 'RE':
        if int(f[3]) > 0 and cur[1] > 0:
            X.append([1] + cur); y.append(int(f[2]))
        cur = None
X, y = np.array(X, float), np.array(y, float)
coef, *_ = np.linalg.lstsq(X, y, rcond=None)
res = y - X @ coef
print(f"n {len(y)}: a {coef[0]:.0f} ns + b {coef[1]:.0f} ns/batch + c {coef[2]:.0f} ns/folio + d {coef[3]:.1f} ns/page;"
      f" residual p50 |r| {np.median(abs(res)):.0f} ns")
# robust: the same fit on reclaims with at most 20 batches and durations under the 95th percentile
m = (X[:, 1] <= 20) & (y < np.percentile(y, 95))
coef2, *_ = np.linalg.lstsq(X[m], y[m], rcond=None)
print(f"  (<= 20 batches, < p95 duration: n {m.sum()}: a {coef2[0]:.0f} + b {coef2[1]:.0f}/batch + c {coef2[2]:.0f}/folio + d {coef2[3]:.1f}/page)")
