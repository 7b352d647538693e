import json, sys, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f)
spec = scn.doc.table("validation")
recs = [json.load(open(p)) for p in V.recorded_paths(f, spec)]
reals = V.one_window_kind([r["variants"]["default"] for r in recs])
plan = scn.doc.plan(None, [])
M = ["read_bytes","elapsed_s","sys_s","memcg.failcnt","memcg.pgscan","memcg.pgsteal","vmstat.numa_hit"]
def row(lbl, steps):
    for s in steps:
        m=s["metrics"]; print(lbl, s["name"], " ".join(f"{k.split('.')[-1]}={m[k]/1e6 if k=='read_bytes' else m[k]:.6g}" for k in M if k in m))
if os.environ.get("REAL"):
    for i,r in enumerate(reals): row(f"kernel{i+1}", r["steps"])
sets = V.set_run_sets(0, reals[0], plan, f)
sets = [s for s in sets if not s.startswith("machine.cpu_slowdown")]
for k in [int(x) for x in sys.argv[1].split(",")]:
    res = run(scn, sets=sets + [f"machine.cpu_slowdown={k}"] + sys.argv[2:]).to_json()
    row(f"K{k}", res["steps"])
