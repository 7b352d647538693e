"""The twin's pass totals against the throttled ra8192 trio's v669l set as the lone device window moves
(trio21e, 2026-12-01; an experiment tool: it changes no scenario).

Each engine run i takes recording i's settings as validate gives them (validate.set_run_sets(): boot seed,
reader, reclaim call, `machine.loop_read_window` = the recording's `device_lone_window_ns`), with the window
scaled. With --spread FILE the window's rate is given instead as `[devices.sda] queue_read_bw_batches`: the
rate the window gives (hostcal.window_read_bw(): 8 MiB over the window less 7 requests' 13 us) times each
relative rate in FILE (colon-separated; lone_spread_pooled.txt), one drawn per busy period of the device from
the boot's seed (blkdev HwQueue::shared_bw()) -- what validate does NOT give today (lone-window-rule.md 1).

  sweep:  python3 twin_window.py sweep NAME SCALES RUNS [--spread FILE]
          one line per run and scale: run, scale, window ns, MB read by each pass
  check:  python3 twin_window.py check NAME [--spread FILE] [--base N] [--dir validation]
          the six runs' median read_bytes a pass against the set's median (%), at 1.0 and the six scalings
          of lone-window-rule.md 3, boot seeds from N (validate's are 0-5); OUT: a pass beyond 10%.
          Without --spread, its figures are validate's (checked: /work/quiet/trio/check.py's, 2026-11-30).

Run from the repository root with PYTHONPATH=$PWD/python.
"""
import json
import os
import statistics
import sys

from memtwin.api import load, run
from memtwin.validate import set_run_sets

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
SCALINGS = [1.0, 0.97, 0.98, 0.99, 1.01, 1.02, 1.03]


def opt(args, name, default=None):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


def window_bw(w):
    return int(8 * 2**20 * 1e9 / (w - 7 * 13000))


def settings(sets, w, rel):
    out = [s for s in sets if not s.startswith("machine.loop_read_window")]
    if rel is None:
        return out + [f'machine.loop_read_window="{w}ns"']
    b = window_bw(w)
    return out + [f"devices.sda.queue_read_bw={b}",
                  "devices.sda.queue_read_bw_batches=[" + ", ".join(str(int(b * r)) for r in rel) + "]"]


def main():
    args = sys.argv[1:]
    spread = opt(args, "--spread")
    base = int(opt(args, "--base", "0"))
    where = opt(args, "--dir", "validation-pending")
    rel = None if spread is None else [float(x) for x in open(spread).read().split(":")]
    mode, name = args[0], args[1]
    scn = load(f"{ROOT}/scenarios/{where}/{name}.toml")
    reals = [json.load(open(f"{ROOT}/scenarios/{where}/real/{name}-v669l{i}.json"))["variants"]["default"] for i in range(1, 7)]
    plan = scn.doc.plan(None, [])

    def one(i, sc, seed):
        sets = set_run_sets(i, reals[i], plan, name)
        sets[0] = f"kernel.boot_seed={seed}"
        ns = int([s for s in sets if s.startswith("machine.loop_read_window")][0].split("=", 1)[1].strip('"').rstrip("ns"))
        w = round(ns * sc)
        return w, [st["metrics"]["read_bytes"] for st in run(scn, sets=settings(sets, w, rel)).to_json()["steps"]]

    if mode == "sweep":
        for i in [int(x) for x in args[3].split(",")]:
            for sc in [float(x) for x in args[2].split(",")]:
                w, rb = one(i, sc, base + i)
                print(i, sc, w, " ".join(f"{x / 1e6:.0f}" for x in rb), flush=True)
    else:
        steps = len(reals[0]["steps"])
        realmed = [statistics.median(r["steps"][k]["metrics"]["read_bytes"] for r in reals) for k in range(steps)]
        for sc in SCALINGS:
            sims = [one(i, sc, base + i)[1] for i in range(6)]
            d = [(statistics.median(s[k] for s in sims) - realmed[k]) / realmed[k] * 100 for k in range(steps)]
            print(name, "spread" if rel else "window", f"seeds {base}-{base + 5}", sc, " / ".join(f"{x:+.1f}" for x in d),
                  "OUT" if any(abs(x) > 10 for x in d) else "", flush=True)


if __name__ == "__main__":
    main()
