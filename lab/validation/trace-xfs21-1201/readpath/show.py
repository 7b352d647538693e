"""xfs21b: each guest boot's @@CALIBRP figures (rp_*), its split factors and its passes: python3 show.py REC.json..."""
import json, sys, os
for f in sys.argv[1:]:
    v0 = list(json.load(open(f))["variants"].values())[0]
    c = v0["real"]["machine"]["cpu"]
    print(os.path.basename(f), "code/copy", c.get("code_slowdown"), c.get("copy_slowdown"), "file hot/small", c.get("file_hot_read_ns_per_page"), c.get("file_small_read_ns_per_call"))
    print("   ", {k[3:]: v for k, v in c.items() if k.startswith("rp_") and k != "rp_method"})
    for s in v0["steps"]:
        m = s["metrics"]
        print(f"    {s['name']}: {m['read_bytes']/1e6:.2f} MB sys {m['sys_s']:.3f} scan-steal {m['memcg.pgscan']-m['memcg.pgsteal']} failcnt {m['memcg.failcnt']} numa_hit {m['vmstat.numa_hit']}")
