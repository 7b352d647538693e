#!/usr/bin/env python3
"""A calibrated recording set of qemu612-lrugen-parent-stream (default the -cal set, real/qemu612-lrugen-parent-stream-cal-boot*.json,
lrugen10; --set names another: -quiet, -gap; each boot with its file calibration, qemu.file_calibration(), and its
steps' windows) against the engine, boot by boot: the guest's cold read (wset 1) and hot read (wset 2) per page, its file calibration's,
the engine's at the boot's split factors taken from the file reads (as validate runs it) and from the memfd's
(as before lrugen10); and wset 3's re-read in the guest and in the engine with the boot's step gaps
(validate.recorded_step_gaps(): as validate runs it) and without. With --window, each boot's window for the periodic flush
instead (FLUSH_WINDOW below), in the guest and in the engine's run at the boot's factors and gaps. A diagnostic
for README.md here.

usage: PYTHONPATH=python calibrated_set.py [--set NAME] [--variant two-list|lru_gen] [--boots N] [--window]"""
import argparse
import json
import os
import sys
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
VAL = os.path.join(ROOT, "scenarios", "validation")
PAGES_64M = 64 << 8
# The flush's window (README "What the guest does"): P's limit reclaim deactivates A when the last periodic flush
# before the stream reaches P's limit (~192 MiB of it charged) fell after the middle of wset 2 (wset 2 has activated
# more of A than is left inactive) and before the stream's first 64 MiB (B's inactive pages still below A's 64 MiB
# active: inactive_is_low(), ratio 1 below 1 GiB). The stream's pace before the limit is the cold read's (wset 1, 64
# MiB, nothing reclaimed): 64 MiB at one wset 1, 192 MiB at three. With the flush's phase uniform, the share of
# phases that deactivate is (t64 - max(t_mid2, t192 - period)) / period, 0 where negative; the guest's period
# measured 1.98-2.27 s (median 2.03-2.05), the engine's FLUSH_TIME 2 s.
PERIOD = {"guest": 2.04, "engine": 2.0}


def window(starts: dict, ends: dict, who: str) -> tuple:
    """(share of the flush's phases that open the window, t_mid2, t64, t192) on a run's clock, from its steps'
    starts and ends (s)."""
    mid2 = (starts["wset 2"] + ends["wset 2"]) / 2
    cold = ends["wset 1"] - starts["wset 1"]
    t64, t192 = starts["stream"] + cold, starts["stream"] + 3 * cold
    return max(0.0, t64 - max(mid2, t192 - PERIOD[who])) / PERIOD[who], mid2, t64, t192


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="two-list")
    ap.add_argument("--boots", type=int, default=0, help="only the first N boots (0: all)")
    ap.add_argument("--set", default="qemu612-lrugen-parent-stream-cal", help="the scenario whose recording set to compare")
    ap.add_argument("--window", action="store_true", help="each boot's flush window, guest and engine")
    a = ap.parse_args(argv)
    from memtwin import api, validate

    # the scenario in scenarios/validation, else in validation-pending (the gap set), its recordings beside it
    scn = os.path.join(VAL, a.set + ".toml")
    if not os.path.exists(scn):
        scn = os.path.join(os.path.dirname(VAL), "validation-pending", a.set + ".toml")
    with open(scn, "rb") as f:
        files = [os.path.join(os.path.dirname(scn), p) for p in tomllib.load(f)["validation"]["recorded"]]
    if a.boots:
        files = files[:a.boots]
    if a.window:
        return windows(scn, files, a.variant)
    print("boot load | guest us/page: wset1 cold, wset2 hot, calib cold, calib hot | file split -> engine wset1, wset2 "
          "| memfd split -> engine wset1, wset2 | wset 3 re-read MiB: guest, engine (gaps), engine (no gaps) | gaps s")
    for i, path in enumerate(files):
        with open(path) as f:
            r = json.load(f)["variants"][a.variant]
        cpu = r["real"]["machine"]["cpu"]
        g = {s["name"]: s["metrics"] for s in r["steps"]}
        sets = validate.set_run_sets(i, r)
        gaps = validate.recorded_step_gaps(r)
        nogap = [s for s in sets if s not in gaps]
        memfd = [f"kernel.boot_seed={i}", f"machine.cpu_slowdown={cpu['code_slowdown']}", f"machine.copy_slowdown={cpu['copy_slowdown']}"]
        memfd += [s for s in sets if s.startswith("machine.wakeup_latency")]
        e = {k: {s["name"]: s["metrics"] for s in api.run(scn, variant=a.variant, sets=v).to_json()["steps"]}
             for k, v in (("gaps", sets), ("nogap", nogap), ("memfd", memfd + gaps))}
        us = lambda m, step: m[step]["elapsed_s"] * 1e6 / PAGES_64M  # noqa: E731
        mib = lambda m: m["wset 3"]["read_bytes"] / 2**20  # noqa: E731
        gs = [float(x.split("=", 1)[1].strip("[]").split(", ")[k].strip('"us')) / 1e6 for x in gaps for k in range(len(x.split(", ")))]
        print(f"{i + 1:>4} {r['real'].get('loadavg', [None])[0]} | {us(g, 'wset 1'):.1f} {us(g, 'wset 2'):.1f} "
              f"{cpu.get('cold_read_ns_per_page', 0) / 1e3:.1f} {cpu.get('file_hot_read_ns_per_page', 0) / 1e3:.1f} | "
              f"{validate.recorded_split_slowdown(r)} {us(e['gaps'], 'wset 1'):.1f} {us(e['gaps'], 'wset 2'):.1f} | "
              f"({cpu['code_slowdown']}, {cpu['copy_slowdown']}) {us(e['memfd'], 'wset 1'):.1f} {us(e['memfd'], 'wset 2'):.1f} | "
              f"{mib(g):.1f} {mib(e['gaps']):.1f} {mib(e['nogap']):.1f} | {' '.join(f'{x:.2f}' for x in gs)}", flush=True)



def windows(scn, files, variant):
    """Each boot's flush window (window()) in the guest (its steps' window_s) and in the engine's run at the boot's
    factors and gaps (its steps' elapsed_s after the replayed gaps), with wset 3's re-read in both."""
    from memtwin import api, validate

    print("boot load | guest: wset 2 mid, 64 / 192 MiB of the stream at (s after wset 2's end), share | "
          "engine: the same | wset 3 re-read MiB guest, engine")
    tot = {"guest": 0.0, "engine": 0.0}
    for i, path in enumerate(files):
        with open(path) as f:
            r = json.load(f)["variants"][variant]
        g = {s["name"]: s for s in r["steps"]}
        gs, ge = {k: s["window_s"][0] for k, s in g.items()}, {k: s["window_s"][1] for k, s in g.items()}
        sets = validate.set_run_sets(i, r)
        gaps = [int(x.strip('"us')) / 1e6 for x in next(s for s in sets if "step_gaps" in s).split("=", 1)[1].strip("[]").split(", ")]
        e = api.run(scn, variant=variant, sets=sets).to_json()["steps"]
        es, ee, t = {}, {}, 0.0
        for k, st in enumerate(e):
            t += gaps[k - 1] if k else 0.0
            es[st["name"]] = t
            t += st["metrics"]["elapsed_s"]
            ee[st["name"]] = t
        row = []
        for who, st, en in (("guest", gs, ge), ("engine", es, ee)):
            w, mid2, t64, t192 = window(st, en, who)
            tot[who] += w
            z = en["wset 2"]
            row.append(f"{mid2 - z:+.2f} {t64 - z:.2f} / {t192 - z:.2f} {w:.2f}")
        em = {s["name"]: s["metrics"] for s in e}
        print(f"{i + 1:>4} {r['real'].get('loadavg', [None])[0]} | {row[0]} | {row[1]} | "
              f"{g['wset 3']['metrics']['read_bytes'] / 2**20:.1f} {em['wset 3']['read_bytes'] / 2**20:.1f}", flush=True)
    print(f"expected boots deactivating (sum of shares): guest {tot['guest']:.1f}, engine {tot['engine']:.1f} of {len(files)}")


if __name__ == "__main__":
    main(sys.argv[1:])
