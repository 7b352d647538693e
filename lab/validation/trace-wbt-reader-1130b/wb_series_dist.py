#!/usr/bin/env python3
"""Summarise sample_wb_host.py series (jbd23, issue 23): per FILE.csv (its FILE.run.json beside it),
the memcg A's Writeback and cache over the copy's write phase (from its first page under writeback to
0.2 s before the probe's last mapped sample: the copy ends 0.2 s before the probe), their quartiles,
the times Writeback rises over 95000 kB, and the copy step's recorded end levels.

    python3 wb_series_dist.py host-stall-cp8x-p64m-wb1.csv   (an .xz: xz -dk it first)
"""
import csv,sys,json,statistics as st
def q(xs):
    xs=sorted(xs); n=len(xs)
    return "min %.1f q1 %.1f med %.1f q3 %.1f max %.1f"%(xs[0]/1024,xs[n//4]/1024,xs[n//2]/1024,xs[3*n//4]/1024,xs[-1]/1024)
for path in sys.argv[1:]:
    rows=[r for r in csv.DictReader(open(path)) if r['source'].endswith('/A')]
    ws=[float(r['t']) for r in rows if int(r['writeback_kB'])>0]
    rs=[float(r['t']) for r in rows if int(r['rss_kB'])>0]
    t0,tend=ws[0],rs[-1]-0.2
    sel=[r for r in rows if t0<=float(r['t'])<=tend]
    pk=[];prev=0
    for r in sel:
        w=int(r['writeback_kB'])
        if w>95000 and prev<=95000: pk.append(float(r['t'])-t0)
        prev=w
    j=json.load(open(path.replace('.csv','.run.json')))['variants']['default']['steps']
    c=[s for s in j if s['name']=='copy'][0]['metrics']
    print(path, "write phase %.2f s"%(tend-t0), "copy elapsed %.2f file %.1f MiB wb %.1f dirty %.1f"%(c['elapsed_s'],c['memcg.file_bytes']/2**20,c['memcg.writeback_bytes']/2**20,c['memcg.dirty_bytes']/2**20))
    print("  writeback MiB:",q([int(r['writeback_kB']) for r in sel]))
    print("  cache MiB:    ",q([int(r['cache_kB']) for r in sel]))
    print("  rises over 95000 kB (s):", " ".join("%.2f"%p for p in pk))
