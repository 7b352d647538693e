"""Points per minute of `memtwin sweep` for 256 points: 1 and 2 local processes, a 2-CPU Ray
cluster started here, and the points run in the driver itself (no workers: the simulation's own
time plus writing the point files). Prints a Markdown table for BENCHMARKS.md.

    PYTHONPATH=python python3 lab/bench/sweep_bench.py [--repeat 2]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CASES = [
    ("host-reread-tight (64M file, ~2 ms a run)", "scenarios/validation/host-reread-tight.toml",
     ['--grid', 'cgroups.A."memory.limit_in_bytes"=4M..1024M:+4M']),
    ("seed 000 (1 GiB file, ~30 ms a run)", "scenarios/seed000-memcg-reread.toml",
     ['--grid', 'cgroups.ct."memory.limit_in_bytes"=8M..1024M:+8M']),
]
MODES = [("driver only (MEMTWIN_SWEEP_INPROCESS=1)", ["--jobs", "1"], {"MEMTWIN_SWEEP_INPROCESS": "1"}),
         ("1 process", ["--jobs", "1"], {}), ("2 processes", ["--jobs", "2"], {}), ("Ray, 2 CPUs", ["--ray", "--jobs", "2"], {})]


def one(path, grid, args, env):
    out = tempfile.mkdtemp(prefix="memtwin-bench-")
    try:
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "memtwin.cli", "sweep", path, *grid, *args, "--no-plots", "--out", out],
                           capture_output=True, text=True, env=dict(os.environ, MEMTWIN_PROGRESS="0", **env), check=True)
        total = time.perf_counter() - t
    finally:
        shutil.rmtree(out, ignore_errors=True)
    m = re.search(r"ran (\d+) in ([\d.]+) s \((\d+) runs/min\); simulation ([\d.]+) ms/run, overhead ([\d.]+) ms/run", p.stdout)
    ray = re.search(r"Ray cluster ready in ([\d.]+) s", p.stdout)
    return {"n": int(m.group(1)), "wall": float(m.group(2)), "ppm": int(m.group(3)), "sim": float(m.group(4)),
            "over": float(m.group(5)), "total": total, "ray": float(ray.group(1)) if ray else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    print("| scenario | workers | runs/min (sweep) | sweep wall s | command wall s | simulation ms/run | overhead ms/run |")
    print("|---|---|---|---|---|---|---|")
    for name, path, grid in CASES:
        for mode, args, env in MODES:
            best = min((one(path, grid, args, env) for _ in range(a.repeat)), key=lambda r: r["wall"])
            extra = f" (+{best['ray']:.1f} s cluster start)" if best["ray"] is not None else ""
            print(f"| {name} | {mode} | {best['ppm']} | {best['wall']:.2f} | {best['total']:.2f}{extra} | {best['sim']:.1f} | {best['over']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
