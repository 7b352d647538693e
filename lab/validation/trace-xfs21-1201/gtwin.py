"""The twin against each guest boot of lab/validation/trace-xfs21-1201/guest/: at the boot's own settings as validate
gives them (set_run_sets(): kernel.boot_seed, the boot's calibrated machine.cpu_slowdown, ...) with the run's
disk rate (--set devices.sda.read_bw as recorded), MB a pass, pass sys time, pgscan - pgsteal."""
import json, sys, glob, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f); plan = scn.doc.plan(None, [])
d = "lab/validation/trace-xfs21-1201/guest"
for p in sorted(glob.glob(d + "/bw*.json")):
    bw = os.path.basename(p).split("-")[0][2:] + "M"
    real = json.load(open(p))["variants"]["default"]
    i = int(p.split("-")[-1].split(".")[0]) - 1
    sets = V.set_run_sets(i, real, plan, f) + [f"devices.sda.read_bw={bw}"]
    res = run(scn, sets=sets).to_json()
    k = [s for s in sets if "cpu_slowdown" in s]
    def fmt(steps):
        return " | ".join(f"{s['metrics']['read_bytes']/1e6:.1f} MB sys {s['metrics']['sys_s']:.2f} scan-steal {s['metrics']['memcg.pgscan']-s['metrics']['memcg.pgsteal']}" for s in steps)
    print(os.path.basename(p), k)
    print("  kernel:", fmt(real["steps"]))
    print("  twin:  ", fmt(res["steps"]))
