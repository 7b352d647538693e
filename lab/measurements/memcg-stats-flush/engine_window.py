#!/usr/bin/env python3
"""The engine's qemu612-lrugen-parent-stream (two-list) at kernel.boot_seed 0..N-1: whether P's limit
reclaim deactivated A's working set (wset 3's re-read), with the guest runner's time between wset 2
and the stream given to the engine as a sleep at the start of "to B" (--gap S, 0: none, the scenario
as written) and the CPU factors given (--code K --copy C: machine.cpu_slowdown / copy_slowdown; none:
the reference machine). A diagnostic for lab/measurements/memcg-stats-flush/README.md, not a validation.

usage: PYTHONPATH=python engine_window.py [--gap S] [--code K --copy C] [--boots N]"""
import argparse
import os
import sys
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# parent-stream as -cal has it (the older set's qemu612-lrugen-parent-stream.toml is the same scenario)
SCN = os.path.join(ROOT, "scenarios", "validation", "qemu612-lrugen-parent-stream-cal.toml")


def inline(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f'{k} = {inline(x)}' for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(inline(x) for x in v) + "]"
    raise SystemExit(f"cannot write {v!r} back as TOML")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gap", type=float, default=0.0)
    ap.add_argument("--code", type=int)
    ap.add_argument("--copy", type=int)
    ap.add_argument("--boots", type=int, default=12)
    a = ap.parse_args(argv)
    from memtwin import api
    with open(SCN, "rb") as f:
        ops = tomllib.load(f)["tasks"]["t"]["ops"]
    if a.gap > 0:
        i = next(i for i, op in enumerate(ops) if op["step"] == "to B")
        ops = ops[:i] + [{"op": "sleep", "duration": f"{round(a.gap * 1000)}ms", "step": "to B"}] + ops[i:]
    base = ["tasks.t.ops=" + inline(ops)]
    if a.code:
        base.append(f"machine.cpu_slowdown={a.code}")
    if a.copy:
        base.append(f"machine.copy_slowdown={a.copy}")
    reread = []
    for seed in range(a.boots):
        r = api.run(SCN, variant="two-list", sets=[f"kernel.boot_seed={seed}"] + base).to_json()
        st = {s["name"]: s["metrics"] for s in r["steps"]}
        mib = st["wset 3"]["read_bytes"] / 2**20
        reread.append(mib)
        print(f"boot seed {seed}: wset 2 {st['wset 2']['elapsed_s']:.2f} s, stream {st['stream']['elapsed_s']:.2f} s, "
              f"wset 3 re-reads {mib:.1f} MiB (refaults {st['wset 3'].get('memcg.workingset_refault_file')})", flush=True)
    hit = sorted(x for x in reread if x > 1)
    print(f"gap {a.gap} s, factors {a.code}/{a.copy}: {len(hit)} of {a.boots} boots deactivate"
          + (f", re-reads {hit[0]:.1f}-{hit[-1]:.1f} MiB" if hit else "") + f", median {sorted(reread)[a.boots // 2]:.1f} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])
