#!/usr/bin/env python3
"""global-stream's lru_gen wset 3 boot by boot (a diagnostic for the scenario headers written by
make_lru_gen_scenarios.py): for each recording of a set, the guest's and the engine's (at that boot's
settings, validate.set_run_sets(), as validate runs it) wset 3 re-read, the steps' elapsed times, the
stream's pgscan_kswapd/direct, A's wset 3 memcg.pgrefill (the folios sort_folio() passed
on) and A's generations at the end (the guest's lru_gen_debug:
seq@age_ms:file pages, after wset 3; the engine's memcg.lru_gen.genJ of wset 3: seq max_seq - J).
With --seeds N, the engine's re-read at each boot's settings and N sets of other boot seeds
(boot_seed i + n * k), their medians and the pooled distribution: how far a set's median moves
with the memcg LRU's random bins alone.

usage: PYTHONPATH=python global_stream_wset3.py [--set NAME] [--seeds N]"""
import argparse
import json
import os
import statistics
import sys
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STEPS = ("wset 1", "wset 2", "stream", "wset 3")


def guest_gens(r: dict, memcg: str = "/memtwin/A") -> str:
    """seq@age_ms:file pages of `memcg` in the guest's lru_gen_debug (/sys/kernel/debug/lru_gen at the end)."""
    out, cur = [], None
    for line in r["real"].get("lru_gen_debug", []):
        f = line.split()
        if f[0] == "memcg":
            cur = f[-1]
        elif f[0] != "node" and cur == memcg:
            out.append(f"{f[0]}@{f[1]}:{f[3]}")
    return " ".join(out) or "-"


def engine_gens(m: dict) -> str:
    top = int(m["memcg.lru_gen.max_seq"])
    return " ".join(f"{top - j}:{int(m[f'memcg.lru_gen.gen{j}.file_pages'])}" for j in range(3, -1, -1) if top >= j)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="qemu612-lrugen-global-stream-pool")
    ap.add_argument("--seeds", type=int, default=0, help="N more boot seeds per recording (0: the table)")
    a = ap.parse_args(argv)
    from memtwin import api, validate

    scn = next(p for p in (os.path.join(ROOT, "scenarios", d, a.set + ".toml") for d in ("validation", "validation-pending"))
               if os.path.exists(p))
    with open(scn, "rb") as f:
        files = [os.path.join(os.path.dirname(scn), p) for p in tomllib.load(f)["validation"]["recorded"]]
    recs = [json.load(open(p))["variants"]["lru_gen"] for p in files]
    run = lambda sets: {s["name"]: s["metrics"] for s in api.run(scn, variant="lru_gen", sets=sets).to_json()["steps"]}  # noqa: E731
    mib = lambda m: m["wset 3"]["read_bytes"] / 2**20  # noqa: E731
    if a.seeds:
        sets = []
        for k in range(a.seeds + 1):
            v = [mib(run([f"kernel.boot_seed={i + len(files) * k}"] + validate.set_run_sets(i, r)[1:])) for i, r in enumerate(recs)]
            print(f"seeds {len(files) * k}..{len(files) * (k + 1) - 1}: median {statistics.median(v):.2f} MiB | "
                  + " ".join(f"{x:.1f}" for x in v), flush=True)
            sets += v
        print(f"pooled {len(sets)}: median {statistics.median(sets):.2f}, quartiles "
              f"{' '.join(f'{q:.2f}' for q in statistics.quantiles(sets, n=4))}, {min(sets):.2f}-{max(sets):.2f}")
        g = [mib({s['name']: s['metrics'] for s in r['steps']}) for r in recs]
        print(f"guest {len(g)}: median {statistics.median(g):.2f}, quartiles "
              f"{' '.join(f'{q:.2f}' for q in statistics.quantiles(g, n=4))}, {min(g):.2f}-{max(g):.2f}")
        return
    print("boot load pool | wset 3 MiB guest engine | elapsed s wset1 wset2 stream wset3: guest / engine | "
          "stream pgscan kswapd direct: guest / engine | wset 3 memcg.pgrefill (sort_folio()'s) guest engine | "
          "A's generations at the end: guest / engine")
    for i, r in enumerate(recs):
        sets = validate.set_run_sets(i, r)
        g, e = {s["name"]: s["metrics"] for s in r["steps"]}, run(sets)
        el = lambda m: " ".join(f"{m[k]['elapsed_s']:.2f}" for k in STEPS)  # noqa: E731
        sc = lambda m: f"{m['stream'].get('vmstat.pgscan_kswapd', 0):.0f} {m['stream'].get('vmstat.pgscan_direct', 0):.0f}"  # noqa: E731
        pool = next((s.split("=")[1] for s in sets if s.startswith("machine.nonmovable_free")), "-")
        print(f"{i + 1:>4} {r['real'].get('loadavg', ['-'])[0]} {pool} | {mib(g):.1f} {mib(e):.1f} | {el(g)} / {el(e)} | "
              f"{sc(g)} / {sc(e)} | {g['wset 3'].get('memcg.pgrefill', 0):.0f} {e['wset 3'].get('memcg.pgrefill', 0):.0f} | {guest_gens(r)} / {engine_gens(e['wset 3'])}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
