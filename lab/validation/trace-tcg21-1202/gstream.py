"""tcg21: qemu612-lrugen-global-stream's stream step, boot by boot: the kernel's recording and the twin at that boot's
inputs as validate gives them (set_run_sets, boot seed i): the reader's system and elapsed time, pgscan_kswapd,
pgscan_direct, direct's share, pageoutrun, allocstall. VARIANT (default two-list).
python3 gstream.py [extra settings for every twin run ...]"""
import json, os, sys
from memtwin.api import load, run
from memtwin import validate as V
f = os.environ.get("SCN", "scenarios/validation/qemu612-lrugen-global-stream.toml")
var = os.environ.get("VARIANT", "two-list")
scn = load(f)
spec = scn.doc.validation if hasattr(scn.doc, "validation") else None
import tomllib
recs = tomllib.load(open(f, "rb"))["validation"]["recorded"]
plan = scn.doc.plan(var, [])
extra = sys.argv[1:]
def row(m):
    d, k = m.get("vmstat.pgscan_direct", 0), m.get("vmstat.pgscan_kswapd", 0)
    a = sum(v for x, v in m.items() if x.startswith("vmstat.allocstall_"))
    return f"sys {m['sys_s']:6.2f} el {m['elapsed_s']:6.2f} kswapd {k:6.0f} direct {d:6.0f} ({100*d/max(1,d+k):4.1f}%) pageoutrun {m.get('vmstat.pageoutrun',0):4.0f} allocstall {a:3.0f}"
for i, r in enumerate(recs):
    real = json.load(open(os.path.join(os.path.dirname(f), r)))["variants"][var]
    sets = V.set_run_sets(i, real, plan, f)
    res = run(scn, variant=var, sets=sets + extra).to_json()
    ks = [s for s in sets if "slowdown" in s]
    sm = next(s for s in res["steps"] if s["name"] == "stream")["metrics"]
    rm = next(s for s in real["steps"] if s["name"] == "stream")["metrics"]
    print(f"boot {i+1:2d} {','.join(x.split('.')[-1] for x in ks) or 'K=1 (none recorded)'}")
    print(f"   kernel {row(rm)}")
    print(f"   twin   {row(sm)}", flush=True)
