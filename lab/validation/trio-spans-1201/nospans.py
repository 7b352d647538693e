"""Information only (spans21; not the rule's input, decides nothing): the trio against trio-spans-1201 with the spans
dropped, each run at its lone median alone (as lone-window-rule.md gave), seeds 0-5 and 6-11.

    PYTHONPATH=$PWD/python python3 lab/validation/trio-spans-1201/nospans.py   (from the repository root)
"""
import json, os, re, sys
sys.path.insert(0, "python")
from memtwin.validate import validate_file
# the scenario's directory as it is now (cmp21b: the 1G moved to scenarios/validation with its real/)
for name in ("host-ext4-seq-tight-512m-ra8192", "host-ext4-seq-tight-1g-ra8192", "host-ext4-tight-ra8192"):
  d = next(x for x in ("validation-pending", "validation") if os.path.exists(f"scenarios/{x}/{name}.toml"))
  for base in (0, 6):
    out=f"/tmp/spans21/nospans/{name}-{base}"; os.makedirs(out+"/real", exist_ok=True)
    text=open(f"scenarios/{d}/{name}.toml").read()
    open(out+"/s.toml","w").write(text)
    for i in range(1,7):
        f=f"real/{name}-v669s{i}.json"
        r=json.load(open(f"scenarios/{d}/{f}"))
        for v in r["variants"].values(): v["real"]["machine"]["host_cost"].pop("device_lone_window_spans_ns")
        json.dump(r, open(out+"/"+f,"w"))
    rows,_,_=validate_file(out+"/s.toml","host",True,out=lambda s:None, boot_seed_base=base)
    print(name, "lone median only, seeds", base, ", ".join(f"{r.step} {r.sim/1e6:.0f}/{r.real/1e6:.0f} {(r.sim-r.real)/r.real*100:+.1f}%" for r in rows if r.metric=="read_bytes"), flush=True)
