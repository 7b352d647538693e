"""xfs21b: the twin at each guest recording's own inputs as validate gives them (set_run_sets(), the boot's index i
for kernel.boot_seed), the pending scenario; MB and system time a pass, the twin's beside the kernel's.
[SCN=FILE] python3 twin_vs_guest.py REC.json[:i] ... (SCN: another scenario, default the pending one)"""
import json, sys, os
from memtwin.api import load, run
from memtwin import validate as V
f = os.environ.get("SCN", "scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml")
scn = load(f); plan = scn.doc.plan(None, [])
for a in sys.argv[1:]:
    p, _, i = a.partition(":")
    real = json.load(open(p))["variants"]["default"]
    sets = V.set_run_sets(int(i or 0), real, plan, f)
    res = run(scn, sets=sets).to_json()
    print(os.path.basename(p), [s.split("=")[0].split(".")[-1] + "=" + s.split("=")[1] for s in sets if "slowdown" in s])
    for s, r in zip(res["steps"], real["steps"]):
        m, q = s["metrics"], r["metrics"]
        print(f"  {s['name']}: twin {m['read_bytes']/1e6:.2f} MB sys {m['sys_s']:.2f} s | kernel {q['read_bytes']/1e6:.2f} MB sys {q['sys_s']:.2f} s", flush=True)
