#!/usr/bin/env python3
"""pinned_rounds.py's output: per CPU the rounds' thread CPU time (median, p10, p90, p99) and the block medians."""
import json, statistics as st, sys
for path in sys.argv[1:]:
    rows = [json.loads(l) for l in open(path)]
    rows = [r for r in rows if r["round"] > 0]  # a block's first round after the move
    print(path)
    for sl in sorted({r.get("sleep_ms", 5.0) for r in rows}):
        for c in (0, 1):
            v = sorted(r["cpu_us"] for r in rows if r["cpu"] == c and r.get("sleep_ms", 5.0) == sl)
            if not v:
                continue
            q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
            w = sorted(r["wall_us"] for r in rows if r["cpu"] == c and r.get("sleep_ms", 5.0) == sl)
            print(f"  sleep {sl:g} ms cpu{c}: {len(v)} rounds, thread CPU us p10 {q(.1)} p50 {q(.5)} p90 {q(.9)} ({q(.9)/q(.5)-1:+.1%}) "
                  f"p99 {q(.99)} ({q(.99)/q(.5)-1:+.1%}); wall p50 {w[len(w)//2]}")
    if "sha_us" in rows[0]:
        def corr(a, b):
            ma, mb = st.mean(a), st.mean(b)
            num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
            return num / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
        for c in (0, 1):
            rs = [r for r in rows if r["cpu"] == c]
            p, s_, cp = [r["cpu_us"] for r in rs], [r["sha_us"] for r in rs], [r["copy_us"] for r in rs]
            print(f"  cpu{c}: sha p50 {st.median(s_)} us, copy p50 {st.median(cp)} us; Pearson r round~sha {corr(p, s_):.2f},"
                  f" round~copy {corr(p, cp):.2f}, sha~copy {corr(s_, cp):.2f}")
            # the rounds above 1.12x their CPU's median: do their chunks run slow too?
            mp, ms, mc = st.median(p), st.median(s_), st.median(cp)
            slow = [r for r in rs if r["cpu_us"] > 1.12 * mp]
            if slow:
                print(f"    {len(slow)} slow rounds (> 1.12x median): round {st.median(r['cpu_us'] for r in slow)/mp:.2f}x, "
                      f"sha {st.median(r['sha_us'] for r in slow)/ms:.2f}x, copy {st.median(r['copy_us'] for r in slow)/mc:.2f}x their medians")
    blocks = sorted({r["block"] for r in rows})
    print("  block medians (cpu:ms):", " ".join(f"{b % 2}:{st.median(r['cpu_us'] for r in rows if r['block'] == b)/1000:.2f}" for b in blocks))
