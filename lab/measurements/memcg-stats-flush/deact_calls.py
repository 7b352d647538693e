#!/usr/bin/env python3
"""How much of A P's limit reclaim deactivates in the parent-stream sets, counted in reclaim calls (parent22, issue 22).

The re-read of wset 3 among the boots that deactivate A is how many of A's active pages P's limit reclaim deactivated
(stream's vmstat.pgdeactivate) times the share of those evicted before the stream ends. This script separates the two
and counts the first in reclaim calls:

1. The kernel's traces (traces/boot-*.trace.gz, mm_vmscan_lru_shrink_active): every call of
   try_to_free_mem_cgroup_pages(P) in the window scans A's active list at DEF_PRIORITY 12 and at 11 and no lower
   (get_scan_count(): `scan = lruvec_size >> sc->priority`; shrink_active_list() deactivates every unmapped file folio,
   folio_referenced() of an unmapped folio is 0; mm/vmscan.c, 6.12). So the deactivated pages after N calls are
   f(N), A's 16,384 active pages reduced by `a >> 12` then `a >> 11` per call: the count is a function of the number
   of calls alone. Printed: the traced calls and deactivations against f.
2. A recording set (--set, default the quiet set): for each kernel boot that deactivated, its pgdeactivate, the calls
   f^-1 gives, its refaults and activations; and the engine at that boot's machine (validate.set_run_sets(): factors,
   gaps, wake-ups) over --phases flush phases (kernel.boot_seed 1000..): how many deactivate, and the min / median /
   max of pgdeactivate and refaults among those that do.

usage: PYTHONPATH=python deact_calls.py [--set NAME] [--phases N] [--traces-only]"""
import argparse
import gzip
import json
import os
import re
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
A_PAGES = 64 << 8  # A's 64 MiB working set, all active after wset 2


def f_calls(n: int, active: int = A_PAGES) -> int:
    """Pages of A deactivated by n reclaim calls of P, each scanning A's active list at priority 12 then 11."""
    tot = 0
    for _ in range(n):
        x = active >> 12
        active -= x
        y = active >> 11
        active -= y
        tot += x + y
    return tot


def calls_for(deact: int) -> int:
    """The fewest reclaim calls whose f reaches `deact` pages."""
    n, tot, active = 0, 0, A_PAGES
    while tot < deact and active > 0:
        x = active >> 12
        active -= x
        y = active >> 11
        active -= y
        tot += x + y
        n += 1
    return n


def traces():
    ev = re.compile(r"\s(\d+\.\d+): mm_vmscan_lru_shrink_active: .*nr_taken=(\d+) .*nr_deactivated=(\d+) .*priority=(\d+)")
    print("kernel traces (lrugen9's five boots): calls of P's limit reclaim that deactivate A, pages deactivated, f(calls)")
    for b in range(1, 6):
        path = os.path.join(HERE, "traces", f"boot-{b}.trace.gz")
        if not os.path.exists(path):
            continue
        prios, deact, t = {}, 0, []
        with gzip.open(path, "rt") as fh:
            for line in fh:
                m = ev.search(line)
                if m:
                    t.append(float(m.group(1)))
                    deact += int(m.group(3))
                    prios[int(m.group(4))] = prios.get(int(m.group(4)), 0) + 1
        calls = prios.get(12, 0)
        if not calls:
            print(f"  boot {b}: no deactivation")
            continue
        print(f"  boot {b}: {calls} calls in {t[-1] - t[0]:.3f} s (events by priority {dict(sorted(prios.items()))}), "
              f"{deact} pages deactivated, f({calls}) = {f_calls(calls)}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="qemu612-lrugen-parent-stream-quiet")
    ap.add_argument("--phases", type=int, default=100)
    ap.add_argument("--traces-only", action="store_true")
    a = ap.parse_args(argv)
    if a.phases < 1:
        ap.exit(2, f"deact_calls.py: --phases {a.phases}: error: must be at least 1\n  fix: e.g. --phases 100\n")
    # The set is checked before anything runs (review16 L4): a name that is no scenario, or one
    # without recordings, is refused with the fix, exit status 2, no traceback.
    scn = os.path.join(ROOT, "scenarios", "validation", a.set + ".toml")
    if not os.path.exists(scn):
        scn = os.path.join(ROOT, "scenarios", "validation-pending", a.set + ".toml")
    if not a.traces_only:
        if not os.path.exists(scn):
            ap.exit(2, f"deact_calls.py: --set {a.set}: error: no scenarios/validation/{a.set}.toml nor "
                       f"scenarios/validation-pending/{a.set}.toml\n  fix: give a scenario's name without .toml, e.g. "
                       "--set qemu612-lrugen-parent-stream-quiet\n")
        try:
            with open(scn, "rb") as fh:
                files = [os.path.join(os.path.dirname(scn), p) for p in tomllib.load(fh)["validation"]["recorded"]]
        except (KeyError, TypeError):
            ap.exit(2, f"deact_calls.py: --set {a.set}: error: {scn} has no [validation] recorded list\n"
                       "  fix: give a scenario with recordings, e.g. --set qemu612-lrugen-parent-stream-quiet\n")
        except tomllib.TOMLDecodeError as e:
            ap.exit(2, f"deact_calls.py: --set {a.set}: error: {scn}: {e}\n  fix: correct the scenario file\n")
    traces()
    if a.traces_only:
        return
    from memtwin import api, validate
    print(f"{a.set} (two-list): kernel boots that deactivate A, and the engine at each one's machine over {a.phases} flush phases")
    for i, path in enumerate(files):
        with open(path) as fh:
            real = json.load(fh)["variants"]["two-list"]
        k = {s["name"]: s["metrics"] for s in real["steps"]}
        kd, kr, ka = k["stream"]["vmstat.pgdeactivate"], k["wset 3"]["memcg.workingset_refault_file"], k["wset 3"]["memcg.workingset_activate_file"]
        if not kr:
            continue
        sets = validate.set_run_sets(i, real)
        runs = []
        for seed in range(1000, 1000 + a.phases):
            r = api.run(scn, variant="two-list", sets=[f"kernel.boot_seed={seed}"] + sets[1:]).to_json()
            e = {s["name"]: s["metrics"] for s in r["steps"]}
            if e["wset 3"]["memcg.workingset_refault_file"]:
                runs.append((e["stream"]["vmstat.pgdeactivate"], e["wset 3"]["memcg.workingset_refault_file"]))
        print(f"  boot {i + 1}: kernel {kd} deactivated ({calls_for(kd)} calls), {kr} refaults ({kr / kd:.3f} of them), {ka} activations")
        if not runs:
            print("    engine: no phase deactivates")
            continue
        d = sorted(x for x, _ in runs)
        rf = sorted(y for _, y in runs)
        mid = len(runs) // 2
        print(f"    engine: {len(runs)} of {a.phases} phases deactivate; deactivated {d[0]} / {d[mid]} / {d[-1]} "
              f"({calls_for(d[0])} / {calls_for(d[mid])} / {calls_for(d[-1])} calls), refaults {rf[0]} / {rf[mid]} / {rf[-1]} "
              f"(min / median / max), {sum(rf) / sum(d):.3f} of the deactivated")


if __name__ == "__main__":
    main(sys.argv[1:])
