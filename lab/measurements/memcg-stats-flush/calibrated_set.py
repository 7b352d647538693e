#!/usr/bin/env python3
"""qemu612-lrugen-parent-stream's calibrated recording set (real/qemu612-lrugen-parent-stream-cal-boot*.json,
lrugen10: each boot with its file calibration, qemu.file_calibration(), and its steps' windows) against the
engine, boot by boot: the guest's cold read (wset 1) and hot read (wset 2) per page, its file calibration's,
the engine's at the boot's split factors taken from the file reads (as validate runs it) and from the memfd's
(as before lrugen10); and wset 3's re-read in the guest and in the engine with the boot's step gaps
(validate.recorded_step_gaps(): as validate runs it) and without. A diagnostic for README.md here.

usage: PYTHONPATH=python calibrated_set.py [--variant two-list|lru_gen] [--boots N]"""
import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCN = os.path.join(ROOT, "scenarios", "validation", "qemu612-lrugen-parent-stream-cal.toml")
PAGES_64M = 64 << 8


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="two-list")
    ap.add_argument("--boots", type=int, default=0, help="only the first N boots (0: all)")
    a = ap.parse_args(argv)
    from memtwin import api, validate

    files = sorted(glob.glob(os.path.join(ROOT, "scenarios", "validation", "real", "qemu612-lrugen-parent-stream-cal-boot*.json")),
                   key=lambda p: int(re.search(r"boot(\d+)", p).group(1)))
    if a.boots:
        files = files[:a.boots]
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
        e = {k: {s["name"]: s["metrics"] for s in api.run(SCN, variant=a.variant, sets=v).to_json()["steps"]}
             for k, v in (("gaps", sets), ("nogap", nogap), ("memfd", memfd + gaps))}
        us = lambda m, step: m[step]["elapsed_s"] * 1e6 / PAGES_64M  # noqa: E731
        mib = lambda m: m["wset 3"]["read_bytes"] / 2**20  # noqa: E731
        gs = [float(x.split("=", 1)[1].strip("[]").split(", ")[k].strip('"us')) / 1e6 for x in gaps for k in range(len(x.split(", ")))]
        print(f"{i + 1:>4} {r['real'].get('loadavg', [None])[0]} | {us(g, 'wset 1'):.1f} {us(g, 'wset 2'):.1f} "
              f"{cpu.get('cold_read_ns_per_page', 0) / 1e3:.1f} {cpu.get('file_hot_read_ns_per_page', 0) / 1e3:.1f} | "
              f"{validate.recorded_split_slowdown(r)} {us(e['gaps'], 'wset 1'):.1f} {us(e['gaps'], 'wset 2'):.1f} | "
              f"({cpu['code_slowdown']}, {cpu['copy_slowdown']}) {us(e['memfd'], 'wset 1'):.1f} {us(e['memfd'], 'wset 2'):.1f} | "
              f"{mib(g):.1f} {mib(e['gaps']):.1f} {mib(e['nogap']):.1f} | {' '.join(f'{x:.2f}' for x in gs)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
