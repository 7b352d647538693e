"""The twin at 200M with a new boot's inputs (its wake-up samples, pool, gaps: set_run_sets()) but a uniform K in
place of its split factors, over boot seeds: does a boot's draw (the wake-ups' samples) break the lock-step?"""
import json, sys
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f); plan = scn.doc.plan(None, [])
real = json.load(open("lab/validation/trace-xfs21-1201/guest/" + sys.argv[1]))["variants"]["default"]
sets = [s for s in V.set_run_sets(0, real, plan, f) if not s.startswith(("machine.cpu_slowdown", "machine.copy_slowdown", "kernel.boot_seed"))]
print([s.split("=")[0] for s in sets])
for k in [int(x) for x in sys.argv[3].split(",")]:
    for seed in range(3):
        res = run(scn, sets=sets + [f"kernel.boot_seed={seed}", f"machine.cpu_slowdown={k}", f"devices.sda.read_bw={sys.argv[2]}"]).to_json()
        print(sys.argv[2], "K", k, "seed", seed, " | ".join(f"{s['metrics']['read_bytes']/1e6:.1f} sys {s['metrics']['sys_s']:.2f} ss {s['metrics']['memcg.pgscan']-s['metrics']['memcg.pgsteal']} fc {s['metrics']['memcg.failcnt']}" for s in res["steps"]), flush=True)
