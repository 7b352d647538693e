#!/usr/bin/env python3
"""wset 3's refaults, activations and A's evictions as a function of the pages P's limit reclaim deactivated (gap22, issue 22).

Every kernel boot of the parent-stream sets that deactivates A (the older set, -quiet, -gap; -cal has none), its
stream's vmstat.pgdeactivate and wset 3's workingset_refault_file, workingset_activate_file and A's memcg.pgsteal,
against the engine's run at the -gap set's machines (validate's 4 blocks of 48 boots, kernel.boot_seed 0-191, boot j at
recording j mod 12's factors, gaps and wake-ups) that deactivated the nearest number of pages. The deactivated count is
f(N) of the number N of P's reclaim calls before the next flush (deact_calls.py), deterministic in N: two kernel boots
that deactivated 5,943 pages (the older set's boot 6, -gap's boot 6) re-read the same 4,108 pages.

wset 3's activations (6.12 workingset_test_recent(): refault distance at P, the eviction memcg, against P's
NR_ACTIVE_FILE from the rstat copy) are A's pages evicted during wset 3 itself (P is at its limit: the re-read's
charges evict A's inactive pages not yet read, which then refault at a short distance), plus, above ~5,900 pages
deactivated, pages evicted near the stream's end (A's inactive list is scanned at size >> priority and holds enough
for it). So the activations jump between ~5,100 and ~5,900 deactivated pages (146 -> 359 in the kernel): a median
over a few deactivating boots lands on either side by the draw.

usage: PYTHONPATH=python act_function.py [--seeds N]"""
import argparse
import json
import os
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SETS = [("older", "validation", "qemu612-lrugen-parent-stream"), ("quiet", "validation", "qemu612-lrugen-parent-stream-quiet"),
        ("gap", "validation-pending", "qemu612-lrugen-parent-stream-gap")]


def recordings(sub: str, name: str) -> list:
    scn = os.path.join(ROOT, "scenarios", sub, name + ".toml")
    with open(scn, "rb") as fh:
        return scn, [os.path.join(os.path.dirname(scn), p) for p in tomllib.load(fh)["validation"]["recorded"]]


def row(steps: dict) -> tuple:
    """(deactivated, refaults, activations, A's evictions in wset 3) of a run's or boot's steps."""
    w, s = steps["wset 3"], steps["stream"]
    return (s["vmstat.pgdeactivate"], w["memcg.workingset_refault_file"], w["memcg.workingset_activate_file"], w.get("memcg.pgsteal", 0))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=192, help="engine boots at the -gap set's machines (default 192: validate's 4 blocks)")
    a = ap.parse_args(argv)
    if a.seeds < 1:
        ap.exit(2, f"act_function.py: --seeds {a.seeds}: error: must be at least 1\n  fix: e.g. --seeds 192\n")
    from memtwin import api, validate
    kernel = []
    for tag, sub, name in SETS:
        _, files = recordings(sub, name)
        for i, p in enumerate(files):
            with open(p) as fh:
                r = row({s["name"]: s["metrics"] for s in json.load(fh)["variants"]["two-list"]["steps"]})
            if r[1] > 0:
                kernel.append((tag, i + 1) + r)
    scn, files = recordings("validation-pending", "qemu612-lrugen-parent-stream-gap")
    reals = []
    for p in files:
        with open(p) as fh:
            reals.append(json.load(fh)["variants"]["two-list"])
    eng = []
    for seed in range(a.seeds):
        sets = validate.set_run_sets(seed % len(reals), reals[seed % len(reals)])
        r = api.run(scn, variant="two-list", sets=[f"kernel.boot_seed={seed}"] + sets[1:]).to_json()
        e = row({s["name"]: s["metrics"] for s in r["steps"]})
        if e[1] > 0:
            eng.append(e)
    print(f"the engine at -gap's machines: {len(eng)} of {a.seeds} boots deactivate")
    print("set    boot | kernel: deactivated refaults activations wset-3 evictions | engine (nearest deactivated): the same")
    for tag, b, d, rf, act, st in sorted(kernel, key=lambda x: x[2]):
        e = min(eng, key=lambda x: abs(x[0] - d)) if eng else (0, 0, 0, 0)
        print(f"{tag:6s} {b:4d} | {d:6d} {rf:6d} {act:5d} {st:5d} | {e[0]:6d} {e[1]:6d} {e[2]:5d} {e[3]:5d}")


if __name__ == "__main__":
    main(sys.argv[1:])
