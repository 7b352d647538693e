#!/usr/bin/env python3
"""Does the reader's progress while a woken kswapd waits to run, measured in the run (the block requests the
reader issued between mm_vmscan_wakeup_kswapd and mm_vmscan_kswapd_wake, analyse.py), predict the stream's
vmstat.pgscan_direct boot by boot, where the wake-up ping-pong samples taken before the tasks
(real.machine.cpu.wakeup_latency_ns, which validate runs the engine at) do not (review5 M2: Spearman -0.34)?
For each traced boot and variant: pgscan_direct, the waits' pages (median, mean, and the waits in which the
reader issued more than the DMA32 zone's low-min gap of 164 pages: those that took it below min, where direct
reclaim starts), the wait's median in ms, and the boot's ping-pong median; then Spearman's rank correlation of
each with pgscan_direct, per variant and over both.

usage: PYTHONPATH=python predict.py BOOT_DIR_OR_TRACE... (a boot: NAME.json beside its *-VARIANT.trace[.gz])"""
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyse  # noqa: E402

GAP = 164  # DMA32 low - min in the 6.1 guest (min 656, low 820): README


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else float("nan")


def rows(paths):
    out = []
    for p in paths:
        traces = sorted(glob.glob(os.path.join(p, "*.trace*"))) if os.path.isdir(p) else [p]
        for t in traces:
            base = os.path.basename(t).split(".trace")[0]
            variant = "lru_gen" if base.endswith("lru_gen") else "two-list"
            d = os.path.dirname(t)
            stem = base[: -len("-" + variant)]
            boot = os.path.basename(p.rstrip("/")) if os.path.isdir(p) else stem
            js = glob.glob(os.path.join(d, "*.json")) if os.path.isdir(p) else [os.path.join(d, stem + ".json")]
            steps, events, _ = analyse.parse(t)
            a = analyse.analyse(steps, events, "stream")
            pw = (a.get("reader_pages_while_kswapd_waits") or {}).get("each")
            if not pw:
                continue  # a trace without block events
            ping = None
            for j in js:
                try:
                    with open(j) as f:
                        v = json.load(f)["variants"].get(variant)
                    ns = v["real"]["machine"]["cpu"].get("wakeup_latency_ns")
                    ping = statistics.median(ns) / 1e6 if ns else None
                except (OSError, KeyError, ValueError, TypeError):
                    pass
            out.append({"boot": boot, "variant": variant, "pgscan_direct": a["vmstat"].get("pgscan_direct", 0),
                        "median_pages": statistics.median(pw), "mean_pages": statistics.mean(pw),
                        "waits_past_gap": sum(x > GAP for x in pw), "pages_past_gap": sum(max(0, x - GAP) for x in pw),
                        "wait_ms": a["wake_latency_ms"]["median"], "ping_ms": ping, "waits": len(pw)})
    return out


def main(argv):
    rs = rows(argv)
    print("boot variant pgscan_direct | waits, pages in a wait median / mean, waits past the gap, pages past it | "
          "wait median ms | ping-pong median ms")
    for r in rs:
        print(f"{r['boot']} {r['variant']} {r['pgscan_direct']} | {r['waits']} {r['median_pages']} / {r['mean_pages']:.0f} "
              f"{r['waits_past_gap']} {r['pages_past_gap']} | {r['wait_ms']:.1f} | "
              + ("-" if r["ping_ms"] is None else f"{r['ping_ms']:.2f}"))
    keys = ("median_pages", "mean_pages", "waits_past_gap", "pages_past_gap", "wait_ms", "ping_ms")
    for v in ("two-list", "lru_gen", None):
        sel = [r for r in rs if v is None or r["variant"] == v]
        line = []
        for k in keys:
            ok = [r for r in sel if r[k] is not None]
            line.append(f"{k} {spearman([r[k] for r in ok], [r['pgscan_direct'] for r in ok]):+.2f} (n {len(ok)})" if len(ok) > 2 else f"{k} -")
        print(f"Spearman with pgscan_direct, {v or 'both variants'}: " + ", ".join(line))


if __name__ == "__main__":
    main(sys.argv[1:])
