import json, sys, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f)
spec = scn.doc.table("validation")
recs = [json.load(open(p)) for p in V.recorded_paths(f, spec)]
reals = V.one_window_kind([r["variants"]["default"] for r in recs])
plan = scn.doc.plan(None, [])
extra = sys.argv[1:]
mode = os.environ.get("MODE", "boots")
def rb(res):
    return [round(s["metrics"]["read_bytes"]/1e6, 1) for s in res["steps"]]
if mode == "boots":
    for i, r in enumerate(reals):
        sets = V.set_run_sets(i, r, plan, f)
        if i == 0: print(sets)
        res = run(scn, sets=sets + extra).to_json()
        print(i+1, [s for s in sets if "slowdown" in s], rb(res), flush=True)
else:
    # K sweep at boot i's other settings
    i = int(os.environ.get("BOOT", "0"))
    sets = V.set_run_sets(i, reals[i], plan, f)
    sets = [s for s in sets if not s.startswith("machine.cpu_slowdown")]
    for k in [int(x) for x in mode.split(",")]:
        res = run(scn, sets=sets + [f"machine.cpu_slowdown={k}"] + extra).to_json()
        print("boot", i+1, "K", k, rb(res), flush=True)
