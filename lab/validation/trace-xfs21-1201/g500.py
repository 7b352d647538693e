import json, glob, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f); plan = scn.doc.plan(None, [])
for p in sorted(glob.glob("lab/validation/trace-xfs21-1201/guest/bw*.json")):
    real = json.load(open(p))["variants"]["default"]
    i = int(p.split("-")[-1].split(".")[0]) - 1
    res = run(scn, sets=V.set_run_sets(i, real, plan, f)).to_json()
    print(os.path.basename(p), "at 500 MB/s:", " | ".join(f"{s['metrics']['read_bytes']/1e6:.1f} MB sys {s['metrics']['sys_s']:.2f} scan-steal {s['metrics']['memcg.pgscan']-s['metrics']['memcg.pgsteal']}" for s in res["steps"]))
