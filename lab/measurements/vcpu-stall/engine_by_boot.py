"""The engine against each boot of the stall-measured set of qemu61-zswap-pool-limit (zswap20):
touch 1 and touch 2's zswap.pool_limit_hit by boot, the kernel's and the engine's at the boot's
settings as validate gives them (set_run_sets: kernel.boot_seed, CPU factors, wake-up samples,
kworker wait), without and with the boot's vCPU stalls (validate.recorded_vcpu_stall(): the probe
with every vCPU spinning, `vcpu_stall`, or each alone, `vcpu_stall_alone`), and each probe's stall
share. Run from the repository root:
    PYTHONPATH=$PWD/python python3 lab/measurements/vcpu-stall/engine_by_boot.py
"""
import copy
import json
import os
import statistics

from memtwin import validate
from memtwin.api import load, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SCN = os.path.join(ROOT, "python", "memtwin", "scenarios", "validation", "qemu61-zswap-pool-limit.toml")
RECS = [os.path.join(ROOT, "python", "memtwin", "scenarios", "validation-pending", "real", f"qemu61-zswap-pool-limit-stall-boot{i}.json")
        for i in range(1, 11)]


def hits(steps):
    return [s["metrics"].get("zswap.pool_limit_hit") for s in steps]


def share(st):
    if not st:
        return None
    gaps = [g for c in st["cpus"] for g in c["gaps_ns"]]
    return sum(gaps) / (st["probe_ns"] * len(st["cpus"]))


def main():
    scn = load(SCN)
    rows = []
    print("boot load1 | kernel t1 t2 | engine t1 t2 | +stall(all) t1 t2 share | +stall(alone) t1 t2 share")
    for i, f in enumerate(RECS):
        rec = json.load(open(f))["variants"]["default"]
        cpu = rec["real"]["machine"]["cpu"]
        base = validate.set_run_sets(i, rec)
        e0 = hits(run(scn, sets=base).to_json()["steps"])
        both = hits(run(scn, sets=base + validate.recorded_vcpu_stall(rec, SCN)).to_json()["steps"])
        alone = None
        if cpu.get("vcpu_stall_alone"):
            r2 = copy.deepcopy(rec)
            r2["real"]["machine"]["cpu"]["vcpu_stall"] = cpu["vcpu_stall_alone"]
            alone = hits(run(scn, sets=base + validate.recorded_vcpu_stall(r2, SCN)).to_json()["steps"])
        k = hits(rec["steps"])
        rows.append((k, e0, both, alone))
        sa = share(cpu.get("vcpu_stall_alone"))
        print(f"{i + 1:4} {rec['real']['loadavg'][0]:5} | {k[0]:4} {k[1]:4} | {e0[0]:4} {e0[1]:4} | {both[0]:4} {both[1]:4} {share(cpu['vcpu_stall']):.2f} | "
              + ("   -    -    -" if alone is None else f"{alone[0]:4} {alone[1]:4} {sa:.2f}"), flush=True)
    for j in (0, 1):
        med = [statistics.median(r[c][j] for r in rows if r[c] is not None) for c in range(4)]
        print(f"touch {j + 1} medians: kernel {med[0]}, engine {med[1]}, +stall(all) {med[2]}, +stall(alone, {sum(r[3] is not None for r in rows)} boots) {med[3]}")


if __name__ == "__main__":
    main()
