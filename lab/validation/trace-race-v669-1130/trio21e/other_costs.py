"""One 1G run (recording I+1's settings as validate gives them) with its failing-reclaim call (reclaim) or its
reader's costs by order (reader) scaled by 0.97..1.03, MB a pass (trio21e). Run from the repository root with
PYTHONPATH=$PWD/python:  python3 other_costs.py I reclaim|reader
"""
import json, os, sys
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
from memtwin.api import load, run
from memtwin.validate import set_run_sets
name = "host-ext4-seq-tight-1g-ra8192"; W = f"{ROOT}/scenarios/validation-pending"
scn = load(f"{W}/{name}.toml"); plan = scn.doc.plan(None, [])
reals = [json.load(open(f"{W}/real/{name}-v669l{i}.json"))["variants"]["default"] for i in range(1, 7)]
i = int(sys.argv[1]); what = sys.argv[2]
sets = set_run_sets(i, reals[i], plan, name)
print(sets)
for sc in [0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03]:
    s2 = []
    for s in sets:
        k, v = s.split("=", 1)
        if what == "reclaim" and k == "machine.reclaim_call_ns":
            s = f"{k}={round(int(v) * sc)}"
        if what == "reader" and k == "machine.read_large_folio_ns":
            pairs = json.loads(v)
            s = f"{k}=[" + ", ".join(f"[{o}, {round(n * sc)}]" for o, n in pairs) + "]"
        s2.append(s)
    rb = [st["metrics"]["read_bytes"] / 1e6 for st in run(scn, sets=s2).to_json()["steps"]]
    print(what, i, sc, " ".join(f"{x:.0f}" for x in rb), flush=True)
