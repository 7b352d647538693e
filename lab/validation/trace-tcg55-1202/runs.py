#!/usr/bin/env python3
"""The engine's runs behind test_parent_stream_wset3.py and the 6.12 cold reads, for one engine build (tcg55).

Writes, into this directory:
- runs-TAG.tsv: qemu612-lrugen-parent-stream-gap two-list at kernel.boot_seed 0-191, boot j at recording j mod 12's
  validate inputs (the test's engine_runs fixture): the stream's pgdeactivate, wset 3's refaults, activations and A's
  memcg.pgsteal, wset 1's and the stream's system time;
- wset1-TAG.tsv: wset 1 (a cold 64 MiB read into free memory, no reclaim) of every boot of the -gap, -quiet and
  -pool sets (6.12, ext4, split factors) at its validate inputs: the kernel's and the engine's system time, the boot's
  factors and file hot read (calibration), read_bytes.

usage: PYTHONPATH=<engine's python/> runs.py TAG"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from test_parent_stream_wset3 import recordings  # noqa: E402  (scenario path, the set's two-list recordings)
SETS = [("validation-pending", "qemu612-lrugen-parent-stream-gap"), ("validation", "qemu612-lrugen-parent-stream-quiet"),
        ("validation-pending", "qemu612-lrugen-global-stream-pool")]


def steps(x):
    return {s["name"]: s["metrics"] for s in x["steps"]}


def main(tag):
    from memtwin import api, validate
    scn, reals = recordings(*SETS[0])
    with open(os.path.join(HERE, f"runs-{tag}.tsv"), "w") as out:
        out.write("seed\tboot\tdeactivated\twset3_refaults\twset3_activations\twset3_pgsteal\twset1_sys_s\tstream_sys_s\n")
        for seed in range(192):
            i = seed % len(reals)
            sets = [f"kernel.boot_seed={seed}"] + [s for s in validate.set_run_sets(i, reals[i]) if not s.startswith("kernel.boot_seed=")]
            m = steps(api.run(scn, variant="two-list", sets=sets).to_json())
            w = m["wset 3"]
            out.write(f"{seed}\t{i + 1}\t{m['stream']['vmstat.pgdeactivate']}\t{w['memcg.workingset_refault_file']}\t"
                      f"{w['memcg.workingset_activate_file']}\t{w['memcg.pgsteal']}\t{m['wset 1']['sys_s']:.6f}\t{m['stream']['sys_s']:.6f}\n")
    with open(os.path.join(HERE, f"wset1-{tag}.tsv"), "w") as out:
        out.write("set\tboot\tcode\tcopy\tfile_hot_ns\tloadavg1\tread_bytes\tkernel_sys_s\tengine_sys_s\n")
        for sub, name in SETS:
            scn, reals = recordings(sub, name)
            for i, v in enumerate(reals):
                sets = validate.set_run_sets(i, v)
                fac = {s.split("=")[0]: s.split("=")[1] for s in sets if "slowdown" in s}
                k = steps(v)["wset 1"]
                e = steps(api.run(scn, variant="two-list", sets=sets).to_json())["wset 1"]
                r = v["real"]
                out.write(f"{name}\t{i + 1}\t{fac['machine.cpu_slowdown']}\t{fac['machine.copy_slowdown']}\t"
                          f"{r['machine']['cpu']['file_hot_read_ns_per_page']}\t{r['loadavg'][0]}\t{k['read_bytes']}\t{k['sys_s']:.6f}\t{e['sys_s']:.6f}\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.splitlines()[-1])
    main(sys.argv[1])
