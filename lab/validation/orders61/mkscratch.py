"""orders61: scratch copies of a pending scenario compared with a set of this directory's recordings, with the
recordings' successful-reclaim keys and (real_nokeys/) without them. Usage: mkscratch.py NAME TAG"""
import json, re, glob, os, sys
name, tag = sys.argv[1:3]
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, f"../../../scenarios/validation-pending/{name}.toml")).read()
body = src[src.index("[scenario]"):]
keys = ("reclaim_folio_ns", "reclaim_tail_page_ns", "reclaim_fixed_ns", "reclaim_batch_ns")
recs = sorted(glob.glob(os.path.join(here, f"real/{name}-{tag}[0-9]*.json")))
os.makedirs(os.path.join(here, "real_nokeys"), exist_ok=True)
for f in recs:
    d = json.load(open(f))
    for v in d["variants"].values():
        hc = v["real"]["machine"]["host_cost"]
        print(os.path.basename(f), {k: hc.get(k) for k in keys + ("reclaim_freed_event_ns",)}, hc.get("reclaim_freed_unavailable") or "")
        for k in keys:
            hc.pop(k, None)
    json.dump(d, open(os.path.join(here, "real_nokeys", os.path.basename(f)), "w"))
short = name.replace("host-ext4-seq-tight-", "").replace("-ra8192", "")
for dirn, suffix in (("real", ""), ("real_nokeys", "-nokeys")):
    lst = ", ".join(f'"{dirn}/{os.path.basename(f)}"' for f in recs)
    b = re.sub(r"recorded = \[.*?\]", f"recorded = [{lst}]", body, count=1, flags=re.S)
    open(os.path.join(here, f"{tag}-{short}{suffix}.toml"), "w").write(
        f"# orders61 scratch copy of scenarios/validation-pending/{name}.toml, compared with {tag}1..{len(recs)}\n" + b)
