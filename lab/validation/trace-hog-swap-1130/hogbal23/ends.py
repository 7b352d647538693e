"""hogbal23: the twin's memcg at each step's end in validate's five runs (boot i at recording i's host
costs, run1.py's settings) beside the kernel's (v669k 1-5), to tell whether hog 2's anon/file figures
follow its elapsed time: the kernel's hog 2 ends 0.13-0.31 s after its copy in runs 1-3 and 5 and 0.39 s
before it in run 4 (6.597 s against 6.983), where it too lasts into the copy's write phase (the memcg's
writeback 100.3 MiB at its end)."""
import json, os, statistics, sys
from memtwin.api import load, run
from memtwin.validate import set_run_sets, one_window_kind
# the repository this file is in (four levels up), unless WT names another worktree
ROOT = os.environ.get("WT", os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4)))
SRC = os.path.join(ROOT, "python/memtwin/scenarios/validation-pending/host-stall-hog-swap.toml")
KEYS = ("elapsed_s", "memcg.file_bytes", "memcg.anon_bytes", "memcg.swap_bytes", "vmstat.pswpout", "vmstat.pswpin", "vmstat.pgactivate", "vmstat.pgrotated", "vmstat.workingset_activate_anon")
scn = load(SRC)
plan = scn.doc.plan(None, [])
recs = [json.load(open(os.path.join(os.path.dirname(SRC), f"real/host-stall-hog-swap-v669k{r}.json")))["variants"]["default"] for r in range(1, 6)]
reals = one_window_kind(recs)
twin, kern = {}, {}
for i in range(5):
    res = run(scn, variant=None, sets=set_run_sets(i, reals[i], plan, "x")).to_json()
    for s in res["steps"]:
        twin.setdefault(s["name"], []).append(s["metrics"])
    for s in recs[i]["steps"]:
        kern.setdefault(s["name"], []).append(s["metrics"])
def med(rows, k):
    return statistics.median(r.get(k, float("nan")) for r in rows)
def fmt(k, v):
    return f"{v / 2**20:8.1f}MiB" if k.endswith("_bytes") else (f"{v:8.3f}s" if k == "elapsed_s" else f"{v:10.0f}")
print("medians of 5 (twin: validate's boots 0-4 at recordings 1-5's host costs; kernel: v669k 1-5)")
print(f"{'metric':32} {'twin copy':>12} {'kernel hog 2':>12} {'twin hog 2':>12} {'kernel copy':>12}")
for k in KEYS:
    print(f"{k:32} {fmt(k, med(twin['copy'], k)):>12} {fmt(k, med(kern['hog 2'], k)):>12} {fmt(k, med(twin['hog 2'], k)):>12} {fmt(k, med(kern['copy'], k)):>12}")
print("per run (twin copy end | kernel hog 2 end): file MiB, anon MiB, swap MiB")
for i in range(5):
    t, r = twin["copy"][i], kern["hog 2"][i]
    print(i + 1, *(f"{t[k] / 2**20:6.1f}|{r[k] / 2**20:6.1f}" for k in ("memcg.file_bytes", "memcg.anon_bytes", "memcg.swap_bytes")))
