#!/usr/bin/env python3
"""The six two-list wset 3 known_outs of the parent-stream sets, boot by boot (wset22, issue 22).

For each recording of a set (default: the older set and -quiet, the two with the known_outs), the kernel's two-list
figures that decide wset 3: the stream's vmstat.pgdeactivate (the pages of A P's limit reclaim deactivated before the
next periodic memcg stats flush), wset 3's re-read (MiB), workingset_refault_file and workingset_activate_file, the
guest's wset 1 and stream times; then the engine at that boot's machine (validate.set_run_sets(): its CPU factors,
step gaps, wake-ups where recorded) at the boot seeds validate's bimodal comparison gives that recording (seed j runs
at recording j mod 12: seeds i, i + 12, i + 24, i + 36): the same figures, and how many of the four deactivate.
Last, per set: the kernel's and the engine's share of deactivating boots and the medians among them, as validate.

usage: PYTHONPATH=python wset22_boots.py [--set NAME ...] [--blocks N]"""
import argparse
import json
import os
import statistics
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SETS = ["qemu612-lrugen-parent-stream", "qemu612-lrugen-parent-stream-quiet"]
MIB = 1 << 20


def scenario(name):
    for sub in ("validation", "validation-pending"):
        p = os.path.join(ROOT, "scenarios", sub, name + ".toml")
        if os.path.exists(p):
            return p
    return None


def figures(steps):
    k = {s["name"]: s["metrics"] for s in steps}
    return (k["stream"]["vmstat.pgdeactivate"], k["wset 3"]["read_bytes"] / MIB, k["wset 3"]["memcg.workingset_refault_file"],
            k["wset 3"]["memcg.workingset_activate_file"], k["wset 1"]["elapsed_s"], k["stream"]["elapsed_s"])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", help="a parent-stream scenario's name (repeatable)")
    ap.add_argument("--blocks", type=int, default=4, help="engine boot seeds per recording (validate's 48 = 4 x 12)")
    a = ap.parse_args(argv)
    if a.blocks < 1:
        ap.exit(2, f"wset22_boots.py: --blocks {a.blocks}: error: must be at least 1\n  fix: e.g. --blocks 4\n")
    names = a.set or SETS
    paths = []
    for n in names:
        p = scenario(n)
        if p is None:
            ap.exit(2, f"wset22_boots.py: --set {n}: error: no scenarios/validation/{n}.toml nor scenarios/validation-pending/"
                       f"{n}.toml\n  fix: give a scenario's name without .toml, e.g. --set qemu612-lrugen-parent-stream-quiet\n")
        paths.append(p)
    from memtwin import api, validate
    for name, scn in zip(names, paths):
        with open(scn, "rb") as fh:
            recs = [os.path.join(os.path.dirname(scn), p) for p in tomllib.load(fh)["validation"]["recorded"]]
        n = len(recs)
        print(f"{name} (two-list), {n} boots; kernel: stream pgdeactivate, wset 3 MiB / refaults / activations, "
              f"wset 1 s, stream s | engine at seeds i + {n}k (k < {a.blocks}): the same")
        kdeact, edeact = [], []
        for i, path in enumerate(recs):
            with open(path) as fh:
                real = json.load(fh)["variants"]["two-list"]
            kd, kmib, kr, ka, kw1, ks = figures(real["steps"])
            if kr:
                kdeact.append((kmib, kr, ka))
            sets = validate.set_run_sets(i, real)
            runs = []
            for b in range(a.blocks):
                r = api.run(scn, variant="two-list", sets=[f"kernel.boot_seed={i + n * b}"] + sets[1:]).to_json()
                runs.append(figures(r["steps"]))
                if runs[-1][2]:
                    edeact.append(runs[-1][1:4])
            eng = "; ".join(f"{d} {m:.1f}/{r}/{act} {w:.3f} {s:.3f}" for d, m, r, act, w, s in runs)
            print(f"  boot {i + 1:2}: kernel {kd:5} {kmib:4.1f}/{kr}/{ka} {kw1:.3f} {ks:.3f} | engine {eng}")
        med = lambda xs, j: statistics.median(x[j] for x in xs) if xs else 0  # noqa: E731
        print(f"  deactivating: kernel {len(kdeact)} of {n}, engine {len(edeact)} of {n * a.blocks}; among them, medians "
              f"MiB / refaults / activations: kernel {med(kdeact, 0):.2f} / {med(kdeact, 1)} / {med(kdeact, 2)}, engine "
              f"{med(edeact, 0):.2f} / {med(edeact, 1)} / {med(edeact, 2)}")


if __name__ == "__main__":
    main(sys.argv[1:])
