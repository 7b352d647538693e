"""One twin run of host-stall-hog-swap as validate runs boot i against recording i (debug)."""
import json, os, sys
from memtwin.api import load, run
from memtwin.validate import set_run_sets, one_window_kind
# the repository this file is in (four levels up), unless WT names another worktree
ROOT = os.environ.get("WT", os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4)))
SRC = os.path.join(ROOT, "python/memtwin/scenarios/validation-pending/host-stall-hog-swap.toml")
i = int(sys.argv[1]) if len(sys.argv) > 1 else 0
extra = sys.argv[2:]
scn = load(SRC)
plan = scn.doc.plan(None, [])
recs = [json.load(open(os.path.join(os.path.dirname(SRC), f"real/host-stall-hog-swap-v669k{r}.json")))["variants"]["default"] for r in range(1, 6)]
reals = one_window_kind(recs)
sets = set_run_sets(i, reals[i], plan, "x")
res = run(scn, variant=None, sets=sets + extra).to_json()
for s in res["steps"]:
    m = s["metrics"]
    print(s["name"], s.get("at_s"), {k: m.get(k) for k in ("elapsed_s", "memcg.file_bytes", "memcg.anon_bytes", "memcg.swap_bytes", "vmstat.pswpout", "vmstat.pswpin", "vmstat.workingset_refault_anon", "vmstat.workingset_activate_anon", "vmstat.workingset_restore_anon", "vmstat.workingset_refault_file", "vmstat.workingset_activate_file", "vmstat.pgactivate", "vmstat.pgdeactivate", "vmstat.pgrotated")}, file=sys.stdout)
if os.environ.get("ALLM"):
    for s in res["steps"]:
        if s["name"] in ("hog 2", "copy"):
            print(s["name"], {k: v for k, v in s["metrics"].items() if any(x in k for x in ("stall", "sched", "iowait", "sys_s", "user_s", "run", "throttl", "psi"))})
