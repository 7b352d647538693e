"""The engine against each boot of a stall-measured set of qemu61-zswap-pool-limit (sched20):
touch 1 and touch 2's zswap.pool_limit_hit (and written_back_pages, reject_reclaim_fail) by boot,
the kernel's and the engine's at the boot's settings as validate gives them (set_run_sets:
kernel.boot_seed, CPU factors, wake-up samples, kworker wait), without and with the boot's vCPU
stalls (validate.recorded_vcpu_stall(): the probe with every vCPU spinning, `vcpu_stall`, or each
alone, `vcpu_stall_alone`). Run from the repository root:
    PYTHONPATH=$PWD/python python3 lab/measurements/vcpu-stall/loaded/engine_by_boot.py [PREFIX] [N]
PREFIX: the recordings' name before -bootI.json in scenarios/validation-pending/real
(default qemu61-zswap-pool-limit-loaded; qemu61-zswap-pool-limit-stall is zswap20's set).
"""
import copy
import json
import os
import statistics
import sys

from memtwin import validate
from memtwin.api import load, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
SCN = os.path.join(ROOT, "python", "memtwin", "scenarios", "validation", "qemu61-zswap-pool-limit.toml")
PREFIX = sys.argv[1] if len(sys.argv) > 1 else "qemu61-zswap-pool-limit-loaded"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10
RECS = [os.path.join(ROOT, "python", "memtwin", "scenarios", "validation-pending", "real", f"{PREFIX}-boot{i}.json") for i in range(1, N + 1)]
KEYS = ("zswap.pool_limit_hit", "zswap.written_back_pages", "zswap.reject_reclaim_fail")


def m(steps, key="zswap.pool_limit_hit"):
    return [s["metrics"].get(key) for s in steps]


def share(st):
    if not st:
        return None
    gaps = [g for c in st["cpus"] for g in c["gaps_ns"]]
    return sum(gaps) / (st["probe_ns"] * len(st["cpus"]))


def main():
    scn = load(SCN)
    rows = []
    print("boot load1 | kernel t1 t2 (wb, fail) | engine t1 t2 | +stall(all) t1 t2 (wb, fail) share | +stall(alone) t1 t2 share")
    for i, f in enumerate(RECS):
        if not os.path.exists(f):
            continue
        rec = json.load(open(f))["variants"]["default"]
        cpu = rec["real"]["machine"]["cpu"]
        base = validate.set_run_sets(i, rec)
        e0 = m(run(scn, sets=base).to_json()["steps"])
        rb = run(scn, sets=base + validate.recorded_vcpu_stall(rec, SCN)).to_json()["steps"]
        both = m(rb)
        alone = None
        if cpu.get("vcpu_stall_alone"):
            r2 = copy.deepcopy(rec)
            r2["real"]["machine"]["cpu"]["vcpu_stall"] = cpu["vcpu_stall_alone"]
            alone = m(run(scn, sets=base + validate.recorded_vcpu_stall(r2, SCN)).to_json()["steps"])
        k = m(rec["steps"])
        kx = (m(rec["steps"], KEYS[1]), m(rec["steps"], KEYS[2]))
        ex = (m(rb, KEYS[1]), m(rb, KEYS[2]))
        rows.append((k, e0, both, alone))
        sa = share(cpu.get("vcpu_stall_alone"))
        print(f"{i + 1:4} {rec['real']['loadavg'][0]:5} | {k[0]:4} {k[1]:4} {kx} | {e0[0]:4} {e0[1]:4} | {both[0]:4} {both[1]:4} {ex} {share(cpu['vcpu_stall']):.2f} | "
              + ("   -    -    -" if alone is None else f"{alone[0]:4} {alone[1]:4} {sa:.2f}"), flush=True)
    for j in (0, 1):
        med = [statistics.median(r[c][j] for r in rows if r[c] is not None) for c in range(4)]
        print(f"touch {j + 1} medians: kernel {med[0]}, engine {med[1]}, +stall(all) {med[2]}, +stall(alone, {sum(r[3] is not None for r in rows)} boots) {med[3]}")


if __name__ == "__main__":
    main()
