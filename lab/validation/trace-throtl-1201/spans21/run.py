"""spans21: the 1G scenario at each v669s recording's inputs (validate's set_run_sets; `spans`: with the lone-window spans,
`median`: the lone median alone), each run traced by the engine built with trio21e's twin-trace.patch (git apply it,
cargo build --release -p memtwin-py, copy python/memtwin with the built lib_memtwin.so as _memtwin.abi3.so to
/tmp/spans21/patched/memtwin, git apply -R), MEMTWIN_RATRACE=1, the prints to /tmp/spans21/held/NAME-MODE-i.trace.

    python3 run.py host-ext4-seq-tight-1g-ra8192 spans
"""
import json, os, subprocess, sys
sys.path.insert(0, "/work/wt-spans21/python")
from memtwin.validate import set_run_sets, one_window_kind
import memtwin
name = sys.argv[1]; mode = sys.argv[2]  # spans | median
p = f"/work/wt-spans21/scenarios/validation-pending/{name}.toml"
reals = [json.load(open(f"/work/wt-spans21/scenarios/validation-pending/real/{name}-v669s{i}.json"))["variants"]["default"] for i in range(1, 7)]
if mode == "median":
    for r in reals: r["real"]["machine"]["host_cost"].pop("device_lone_window_spans_ns")
scn = memtwin.load(p); plan = scn.doc.plan(None, [])
for i in range(6):
    sets = set_run_sets(i, one_window_kind(reals)[i], plan, p)
    code = ("import sys,memtwin;scn=memtwin.load(%r);r=memtwin.run(scn,sets=%r).to_json();print([s['metrics']['read_bytes'] for s in r['steps']])" % (p, sets))
    with open(f"/tmp/spans21/held/{name}-{mode}-{i}.trace", "w") as err:
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "MEMTWIN_RATRACE": "1", "PYTHONPATH": "/tmp/spans21/patched"}, stdout=subprocess.PIPE, stderr=err, text=True)
    print(name, mode, i, out.stdout.strip(), flush=True)
