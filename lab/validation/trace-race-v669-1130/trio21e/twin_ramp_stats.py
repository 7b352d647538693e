"""The twin's ramps from its temporary trace (twin-trace.patch, MEMTWIN_RATRACE=1 on stderr), by kind (trio21e).

A ramp starts at a synchronous miss (S) and ends at the next. Per ramp: pages issued (B), progress (next
miss - this one), failing reclaims (R with 0 reclaimed), a wait of more than 20 ms (blk-throttle held the
bio), and whether the next miss falls inside the order-6 window (the window evicted unread: race669's
"restart in it"). Totals are over the run's three passes.

    python3 twin_ramp_stats.py TRACE...
"""
import sys, collections
def parse(f, lo=0, hi=None):
    ramps = []; cur = None
    for line in open(f):
        p = line.split()
        if not p or p[0] not in "SABFRWE": continue
        k = p[0]; t = int(p[1])
        if k == "S":
            cur = dict(t=t, idx=int(p[2]), issued=0, o6=None, o6done=None, waits=0, fails=0, evu=0, kind=None); ramps.append(cur); continue
        if cur is None: continue
        if k == "B":
            cur["issued"] += int(p[3]) - int(p[2])
            if cur["o6"] is not None and cur["o6done"] is None and int(p[2]) == cur["o6"][0]: cur["o6done"] = (int(p[4]) - t)/1e6; cur["o6issue"]=t
        elif k == "A":
            if p[7] == "6" if len(p) > 7 else False: pass
            st, sz, o = int(p[5]), int(p[6]), int(p[7])
            if o == 6 and cur["o6"] is None: cur["o6"] = (st, st + sz)
        elif k == "R" and p[2] == "0": cur["fails"] += 1
        elif k == "W" and int(p[3]) - t > 20e6: cur["waits"] += 1
        elif k == "E" and p[4] == "1": cur["evu"] += int(p[3])
    for a, b in zip(ramps, ramps[1:]):
        a["prog"] = b["idx"] - a["idx"]; a["dur"] = (b["t"] - a["t"]) / 1e6
        a["inside6"] = a["o6"] is not None and a["o6"][0] <= b["idx"] < a["o6"][1]
    return ramps[:-1]
for f in sys.argv[1:]:
    R = parse(f)
    n = len(R)
    tot_issued = sum(r["issued"] for r in R); tot_prog = sum(r["prog"] for r in R)
    print(f, "ramps", n, "issued MB", tot_issued*4096/1e6, "progress MB", tot_prog*4096/1e6, "ampl", round(tot_issued/max(tot_prog,1),2),
          "throttle-waits", sum(r["waits"]>0 for r in R), "restart inside o6", sum(r["inside6"] for r in R),
          "median fails", sorted(r["fails"] for r in R)[n//2], "time s", round(sum(r["dur"] for r in R)/1e3,2))
    c = collections.Counter((r["waits"]>0, r["inside6"]) for r in R)
    print("   (throttled, inside6):", dict(c))
    pr = collections.defaultdict(list)
    for r in R: pr[(r["waits"]>0, r["inside6"])].append((r["prog"], r["issued"], r["dur"]))
    for k, v in sorted(pr.items()):
        v.sort(); m = v[len(v)//2]
        print("   ", k, "n", len(v), "median prog/issued/dur", m, "mean prog", round(sum(x[0] for x in v)/len(v)), "mean issued", round(sum(x[1] for x in v)/len(v)), "mean dur", round(sum(x[2] for x in v)/len(v),1))
    sig = collections.Counter((r["issued"], r["prog"], r["fails"], r["inside6"], round(r["dur"], 2)) for r in R if 0 < r["prog"] < 20000)
    # only ramps with 0 < progress < 20000 pages: "ramps N" above counts all, the passes' boundaries (progress
    # negative, the next miss back at the file's start) with them (review50 L5)
    print("   ramps whose exact cycle (pages issued, progress, failing reclaims, restart inside, duration to 10 us)"
          " recurs (of the ramps with progress 1-19,999 pages; the others are the passes' boundaries, where the next"
          " miss is back at the file's start):",
          sum(v for v in sig.values() if v > 1), "of", sum(sig.values()), f"({len(sig)} distinct)")
