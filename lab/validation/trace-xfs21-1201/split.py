import json, sys, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f); plan = scn.doc.plan(None, [])
real = json.load(open("lab/validation/trace-xfs21-1201/guest/bw250-1.json"))["variants"]["default"]
base = [s for s in V.set_run_sets(0, real, plan, f) if "slowdown" not in s.split("=")[0].split(".")[-1] or "submit_io" in s]
print([s for s in V.set_run_sets(0, real, plan, f) if not s.startswith("machine.wakeup")][:8])
bw = sys.argv[1]; copy = int(sys.argv[2])
for code in [int(x) for x in sys.argv[3].split(",")]:
    res = run(scn, sets=base + [f"machine.cpu_slowdown={code}", f"machine.copy_slowdown={copy}", f"devices.sda.read_bw={bw}"]).to_json()
    print(bw, "code", code, "copy", copy, " | ".join(f"{s['metrics']['read_bytes']/1e6:.1f} sys {s['metrics']['sys_s']:.2f} ss {s['metrics']['memcg.pgscan']-s['metrics']['memcg.pgsteal']}" for s in res["steps"]), flush=True)
