"""xfs21b: the twin's CPU time by component for a guest recording, at its inputs as validate gives them
(set_run_sets()), one run of the pending scenario: run with a scratch build carrying twin-tags.patch
(every `self.cpu(self.cost.X ...)` tallied under X, printed at the Kernel's drop when XFS21B_TAGS is set):
XFS21B_TAGS=1 PYTHONPATH=/tmp/xfs21b-scr/py python3 twin_tags.py REC.json [KEY=VALUE ...]
Prints the run's three passes (MB, sys) and the tallies in seconds a pass (the run's total / 3)."""
import json, sys, os
from memtwin.api import load, run
from memtwin import validate as V
f = "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml"
scn = load(f); plan = scn.doc.plan(None, [])
p = sys.argv[1]
real = json.load(open(p))["variants"]["default"]
i = 0
sets = V.set_run_sets(i, real, plan, f) + sys.argv[2:]
print(os.path.basename(p), [s for s in sets if "slowdown" in s or "read_bw" in s or "large_folio" in s], flush=True)
res = run(scn, sets=sets).to_json()
for s in res["steps"]:
    m = s["metrics"]
    print(f"  {s['name']}: {m['read_bytes']/1e6:.2f} MB sys {m['sys_s']:.3f} s scan-steal {m['memcg.pgscan']-m['memcg.pgsteal']}", flush=True)
del res
