"""tcg21: in a recording set of the global-stream scenarios, the stream's direct reclaim (pgscan_direct, its share of
pgscan_kswapd + pgscan_direct) against the reader's system time in the stream, boot by boot; Spearman's rho and a
one-sided permutation p (20,000 shuffles, seed 1). python3 kernel_direct_vs_speed.py SCN.toml VARIANT"""
import json, os, random, sys, tomllib
f, var = sys.argv[1], sys.argv[2]
recs = tomllib.load(open(f, "rb"))["validation"]["recorded"]
rows = []
for r in recs:
    m = next(s for s in json.load(open(os.path.join(os.path.dirname(f), r)))["variants"][var]["steps"] if s["name"] == "stream")["metrics"]
    rows.append((m["vmstat.pgscan_direct"], m["vmstat.pgscan_kswapd"], m["sys_s"]))
def rank(x):
    o = sorted(range(len(x)), key=lambda i: x[i]); r = [0] * len(x)
    for j, i in enumerate(o): r[i] = j
    return r
def rho(a, b):
    ra, rb, n = rank(a), rank(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))
D = [d for d, k, s in rows]; S = [s for d, k, s in rows]
r0 = rho(D, S); random.seed(1); hit = 0
for _ in range(20000):
    P = S[:]; random.shuffle(P); hit += rho(D, P) >= r0
for i, (d, k, s) in enumerate(rows):
    print(f"boot {i+1:2d} direct {d:6d} ({100*d/(d+k):4.1f}%) sys {s:6.2f}")
print(f"{os.path.basename(f)} {var}: {len(rows)} boots, Spearman rho {r0:.2f}, one-sided permutation p {hit/20000:.4f}")
