"""tcg21: qemu612-lrugen-global-stream (VARIANT, default two-list) at given settings: the stream step's reader
system time, pgscan_kswapd, pgscan_direct and direct's share, pageoutrun, allocstall. Each argument is one run,
settings separated by ';' (e.g. 'machine.cpu_slowdown=50;machine.copy_slowdown=50').
python3 gsweep.py SETTINGS..."""
import os, sys
from memtwin.api import load, run
f = os.environ.get("SCN", "scenarios/validation/qemu612-lrugen-global-stream.toml")
var = os.environ.get("VARIANT", "two-list")
scn = load(f)
for a in sys.argv[1:]:
    sets = [s for s in a.split(";") if s]
    m = next(s for s in run(scn, variant=var, sets=sets).to_json()["steps"] if s["name"] == "stream")["metrics"]
    d, k = m["vmstat.pgscan_direct"], m["vmstat.pgscan_kswapd"]
    print(f"{a:60s} sys {m['sys_s']:6.2f} kswapd {k:6.0f} direct {d:6.0f} ({100*d/max(1,d+k):4.1f}%) pageoutrun {m['vmstat.pageoutrun']:4.0f} allocstall {m['vmstat.allocstall_movable']+m['vmstat.allocstall_normal']:3.0f}", flush=True)
