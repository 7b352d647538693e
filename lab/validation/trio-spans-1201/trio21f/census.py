"""The twin's readahead cycles in race669's classes (ra_cycles.py cycles()), pass 1, at validate's inputs for a
recording of trio-spans-1201 (v669s), with the temporary trace of trio21e's twin-trace.patch (trio21f, 2026-12-01).

  run:      MEMTWIN_RATRACE=1 python3 census.py run NAME I SEED [RECLAIM_CALL_NS] 2> TRACE
            engine run at recording I's settings exactly as validate gives them (one_window_kind, start_from,
            set_run_sets; boot seed SEED); prints the pass totals (MB) on stdout. RECLAIM_CALL_NS (an
            experiment, not validate's input): machine.reclaim_call_ns replaced by it
  classify: python3 census.py classify TRACE...
            per trace, pass 1: cycles (synchronous miss to the next) by class as ra_cycles.py names them
            (the order-6 window's bio and the order-8 window's first bio let go at once or held; the next
            restart: o8 = ra.order 8 at the miss, o9 = after the order-10 window, `mid` = req below 32),
            count, pages issued per page of progress, and the pages each class issued and progressed.
  kernel:   python3 census.py kernel RAW.xz...   race669's raw traces by ra_cycles.py's cycles(), printed alike
  families: python3 census.py families TRACE... per run: cycles by where the next restart fell (family())
  fork:     python3 census.py fork TRACE...     the alone cycles' race (the order-6 window let go at once, the
            order-8 window held): evicted unread or read whole, against the order-0 fallback's end
  kfork:    python3 census.py kfork RAW.xz...   the kernel's alone cycles event by event (kcycles())

Held: the twin's B line is the bio's submission with its completion; a bio whose completion is more than 20 ms
after its submission was held by blk-throttle (trio21e's twin_throttle_held.py threshold; a lone window takes
3-4 ms on the device, the kernel's ra_cycles.py uses 5 ms from the window's add to the bio's release).
The order at the next restart is the ra.order of the cycle's last A line (the twin's FileRaState), where
ra_cycles.py reads the sync tracepoint's order (ra->order). Pages issued stand for the kernel's pages added
(every page the twin adds is read).
"""
import collections
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
HELD_NS = 20e6


def scenario(name):
    for d in ("validation-pending", "validation"):
        p = os.path.join(ROOT, "scenarios", d, name + ".toml")
        if os.path.exists(p):
            return p, d
    raise SystemExit(f"no scenario {name}")


def run_one(name, i, seed, reclaim_call=None):
    from memtwin.api import load, run, start_from
    from memtwin.validate import one_window_kind, set_run_sets
    path, where = scenario(name)
    reals = [json.load(open(os.path.join(os.path.dirname(path), f"real/{name}-v669s{k}.json")))["variants"]["default"]
             for k in range(1, 7)]
    reals = one_window_kind(reals)
    scn = load(path)
    plan = scn.doc.plan(None, [])
    r = reals[i]
    rc = (r.get("real") or {}).get("resident_at_start")
    if rc is not None:
        start_from(scn, None, rc)
    sets = set_run_sets(i, r, plan, where)
    if reclaim_call is not None:
        # an experiment (swap): recording I's failing-reclaim call replaced by the figure given
        sets = [x for x in sets if not x.startswith("machine.reclaim_call_ns=")] + [f"machine.reclaim_call_ns={reclaim_call}"]
    out = run(scn, sets=[f"kernel.boot_seed={seed}"] + sets[1:]).to_json()
    print(name, i, seed, "reclaim_call_ns", reclaim_call or "as validate gives it", "MB a pass:", " ".join(f"{st['metrics']['read_bytes'] / 1e6:.0f}" for st in out["steps"]), flush=True)


def cycles(path):
    ramps, cur, last = [], None, -1
    for line in open(path):
        p = line.split()
        if not p or p[0] not in "SAB":
            continue
        t = int(p[1])
        if p[0] == "S":
            i = int(p[2])
            if i < last - 100000:
                break  # pass 2
            last = i
            cur = dict(t=t, idx=i, req=int(p[3]), o6=None, o8=None, o6b=None, o8b=None, order=None, issued=0)
            ramps.append(cur)
            continue
        if cur is None:
            continue
        if p[0] == "A":
            st, sz, o = int(p[5]), int(p[6]), int(p[7])
            cur["order"] = o
            if o == 6 and sz == 2048 and cur["o6"] is None:
                cur["o6"] = (st, sz)
            elif o == 8 and cur["o6"] is not None and cur["o8"] is None:
                cur["o8"] = st
        else:
            s, e, d = int(p[2]), int(p[3]), int(p[4])
            cur["issued"] += e - s
            if cur["o6"] and cur["o6"][0] == s and cur["o6b"] is None:
                cur["o6b"] = d - t
            if cur["o8"] is not None and cur["o8"] == s and cur["o8b"] is None:
                cur["o8b"] = d - t
    out = []
    for r, n in zip(ramps, ramps[1:]):
        cls = "no order-8 window"
        if r["o6b"] is not None and r["o8b"] is not None:
            cls = ("o6 held" if r["o6b"] > HELD_NS else "o6 free") + ", " + ("o8 held" if r["o8b"] > HELD_NS else "o8 free")
        o = r["order"] if r["order"] is not None else 0
        outcome = f"o{min(o, 9)}" + ("" if n["req"] == 32 else " mid")
        inside6 = r["o6"] is not None and r["o6"][0] <= n["idx"] < r["o6"][0] + r["o6"][1]
        out.append((cls, outcome, r["issued"], n["idx"] - r["idx"], inside6))
    return out


def classify(paths):
    for path in paths:
        cy = cycles(path)
        c = collections.Counter((a, b) for a, b, *_ in cy)
        add = collections.defaultdict(int)
        prog = collections.defaultdict(int)
        for a, b, x, y, _ in cy:
            add[(a, b)] += x
            prog[(a, b)] += y
        tot_a, tot_p = sum(x[2] for x in cy), sum(x[3] for x in cy)
        print(f"== {os.path.basename(path)}: pass 1 cycles {len(cy)}, restarts inside the order-6 window "
              f"{sum(x[4] for x in cy)}, pages issued {tot_a} per page of progress {tot_a / max(tot_p, 1):.2f}")
        print("cycles by class -> next restart: count, pages issued per page of progress, pages issued, progress")
        for k in sorted(c):
            print(f"  {k[0]:18s} -> {k[1]:7s} {c[k]:4d} {add[k] / max(prog[k], 1):6.2f} {add[k]:7d} {prog[k]:7d}")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run_one(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else None)
    elif sys.argv[1] == "classify":
        classify(sys.argv[2:])


def kernel(paths):
    """The kernel's raw traces (race669's, xz) by ra_cycles.py's own cycles(), printed as classify() prints."""
    import lzma
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    import ra_cycles
    for path in paths:
        with tempfile.NamedTemporaryFile("wb", suffix=".txt") as tmp:
            tmp.write(lzma.open(path).read())
            tmp.flush()
            events, ino = ra_cycles.load(tmp.name)
        cy = ra_cycles.cycles(events, ino)
        c = collections.Counter((a, b) for a, b, *_ in cy)
        add = collections.defaultdict(int)
        prog = collections.defaultdict(int)
        for a, b, x, y in cy:
            add[(a, b)] += x
            prog[(a, b)] += y
        tot_a, tot_p = sum(x[2] for x in cy), sum(x[3] for x in cy)
        print(f"== {os.path.basename(path)}: cycles {len(cy)}, pages added {tot_a} per page of progress "
              f"{tot_a / max(tot_p, 1):.2f}")
        print("cycles by class -> next restart: count, pages added per page of progress, pages added, progress")
        for k in sorted(c):
            print(f"  {k[0]:18s} -> {k[1]:7s} {c[k]:4d} {add[k] / max(prog[k], 1):6.2f} {add[k]:7d} {prog[k]:7d}")


if __name__ == "__main__" and sys.argv[1] == "kernel":
    kernel(sys.argv[2:])


def family(cls, outcome):
    """The cycle's kind by where the next restart fell: `o8` (inside the order-6 window: it was evicted unread),
    `o9` (past it, after the order-10 window), `o9 mid` (a miss inside a read there), `other` (no order-8 window,
    or a restart at a lower order)."""
    if cls == "no order-8 window":
        return "no o8 window"
    return outcome if outcome in ("o8", "o9", "o9 mid") else "o8 mid/other"


FAMS = ("o8", "o9", "o9 mid", "o8 mid/other", "no o8 window")


def table_row(tag, cy):
    """One row: cycles, pages per page of progress, then per family: count, share of the progress, pages per page."""
    tot_a, tot_p = sum(x[2] for x in cy), sum(x[3] for x in cy)
    cells = []
    for f in FAMS:
        sel = [x for x in cy if family(x[0], x[1]) == f]
        a, p = sum(x[2] for x in sel), sum(x[3] for x in sel)
        cells.append(f"{len(sel):3d} {p / tot_p * 100:4.1f}% {a / max(p, 1):4.2f}")
    print(f"{tag:34s} {len(cy):4d} {tot_a / tot_p:5.2f} | " + " | ".join(cells))


def families(paths, kernel_paths=()):
    print(f"{'':34s} cyc  ampl | " + " | ".join(f"{f:>16s}" for f in FAMS))
    print(f"{'':34s}           | " + " | ".join(f"{'n prog% ampl':>16s}" for f in FAMS))
    for path in paths:
        table_row(os.path.basename(path), [x[:4] for x in cycles(path)])


if __name__ == "__main__" and sys.argv[1] == "families":
    families(sys.argv[2:])


# ---- the order-6 window's race in the alone cycles (o6 let go at once, o8 held): twin and kernel ----
# twin: rows(TRACE) -> (evicted (next miss inside the order-6 window), o6 done ms, t8 ms, F ms (the order-8
# add failed), the fallback's first bio ms, failing reclaims' ends ms, reclaims freeing pages' ends ms), ms from
# the order-6 window's submission
def rows(path):
    ramps=[];cur=None;last=-1
    for line in open(path):
        p=line.split()
        if not p or p[0] not in "SABFR": continue
        t=int(p[1])
        if p[0]=="S":
            i=int(p[2])
            if i<last-100000: break
            last=i; cur=dict(idx=i,o6=None,o8=None,o6b=None,o8b=None,F=None,fb=None,R=[]); ramps.append(cur); continue
        if cur is None: continue
        if p[0]=="A":
            st,sz,o=int(p[5]),int(p[6]),int(p[7])
            if o==6 and sz==2048 and cur["o6"] is None: cur["o6"]=st
            elif o==8 and cur["o6"] is not None and cur["o8"] is None: cur["o8"]=(st,sz); cur["t8"]=t
        elif p[0]=="F":
            if cur["o8"] and cur["F"] is None: cur["F"]=t
        elif p[0]=="R":
            cur["R"].append((t,int(p[2])))
        elif p[0]=="B":
            s,e,d=int(p[2]),int(p[3]),int(p[4])
            if cur["o6"]==s and cur["o6b"] is None: cur["o6b"]=(t,d)
            if cur["o8"] and cur["o8"][0]==s and cur["o8b"] is None: cur["o8b"]=(t,d)
            elif cur["F"] is not None and cur["fb"] is None and cur["o8"] and s!=cur["o8"][0]: cur["fb"]=t
    out=[]
    for r,n in zip(ramps,ramps[1:]):
        if not r["o6b"] or not r["o8b"] or r["o6b"][1]-r["o6b"][0]>20e6 or r["o8b"][1]-r["o8b"][0]<=20e6: continue
        t6,d6=r["o6b"]
        inside=r["o6"]<=n["idx"]<r["o6"]+2048
        fb=(r["fb"]-t6)/1e6 if r["fb"] else None
        F=(r["F"]-t6)/1e6 if r["F"] else None
        r0=[(t-t6)/1e6 for t,x in r["R"] if x==0]
        rok=[(t-t6)/1e6 for t,x in r["R"] if x>0 and t<=d6+5e6]
        out.append((inside,(d6-t6)/1e6,(r["t8"]-t6)/1e6,F,fb,r0[:6],rok[:4]))
    return out


def fork(paths):
    print("twin, pass 1, alone cycles (the order-6 window let go at once, the order-8 window held): how many; evicted "
          "(the next miss inside the order-6 window); the rule 'evicted iff the window completed before the fallback's "
          "batch ended (its bio)' holds in; median completion ms of the evicted / read whole; median ms from the order-8 "
          "add's failure to the fallback's first failing reclaim's end (p10, p90); cycles by the failing reclaims before "
          "the order-8 add failed")
    for f in paths:
        al = [x for x in rows(f) if x[3] is not None]
        ok = sum(1 for x in al if (x[1] < (x[4] or 99)) == x[0])
        ev = [x for x in al if x[0]]
        wh = [x for x in al if not x[0]]
        med = lambda v: statistics.median(v) if v else float("nan")
        d1 = sorted(a[0] - x[3] for a, x in (([y for y in x[5] if y > x[3] + 0.01][:1], x) for x in al) if a)
        print(f"  {os.path.basename(f):44s} {len(al):3d} evicted {len(ev):3d} rule {ok}/{len(al)} done {med([x[1] for x in ev]):.2f}/"
              f"{med([x[1] for x in wh]):.2f} F->fallback fail {med(d1):.2f} ({d1[len(d1) // 10]:.2f}, {d1[len(d1) * 9 // 10]:.2f}) "
              f"failing reclaims before the order-8 add failed: " + str(dict(sorted(collections.Counter(sum(1 for y in x[5] if y <= x[3] + 0.001) for x in al).items()))))


# kernel: race669's raw traces, the same cycles, by ra_cycles.py's events (page_cache_ra_unbounded = the fallback)
HELD=5e-3
def kcycles(path):
    with tempfile.NamedTemporaryFile("wb",suffix=".txt") as t:
        t.write(lzma.open(path).read()); t.flush()
        events,ino=ra_cycles.load(t.name)
    sync_at=[i for i,(_t,_p,ev,_r) in enumerate(events) if ev=="page_cache_sync_ra"]
    out=[]
    for k,i in enumerate(sync_at[:-1]):
        ni=sync_at[k+1]
        t6=None; sector=None; issue=None; done=None; t8=None; tunb=None; fails=[]; begin=None; rel6=None; rel8=None
        for j in range(i,ni):
            t,_p,ev,rest=events[j]
            if ev=="page_cache_ra_order":
                g=re.search(r"order=(\d+) size=(\d+)",rest); o,sz=int(g.group(1)),int(g.group(2))
                if o==6 and sz==2048 and t6 is None: t6=t
                elif o==8 and t6 is not None and t8 is None: t8=t
            elif ev=="page_cache_ra_unbounded" and t8 is not None and tunb is None: tunb=t
            elif ev=="block_bio_queue" and t6 is not None:
                kib=ra_cycles.bio_kib(rest)
                if kib==8192 and rel6 is None:
                    rel6=t; g=re.search(r"(\d+) \+",rest); sector=int(g.group(1))
                elif t8 is not None and rel8 is None and kib>=4096 and kib!=8192: rel8=t
            elif ev in ("block_rq_issue","block_rq_complete") and sector is not None and rest.startswith("7,0 R"):
                g=re.search(r"(\d+) \+ (\d+)",rest)
                if g and sector<=int(g.group(1))<sector+16384 and int(g.group(2)):
                    if ev=="block_rq_issue" and issue is None: issue=t
                    elif ev=="block_rq_complete": done=t if done is None else max(done,t)
            elif ev=="mm_vmscan_memcg_reclaim_begin" and t8 is not None: begin=t
            elif ev=="mm_vmscan_memcg_reclaim_end" and begin is not None:
                if re.search(r"nr_reclaimed=0\b",rest): fails.append(t)
                begin=None
        if None in (t6,rel6,issue,done,t8) or rel6-t6>HELD: continue
        if rel8 is not None and rel8-t8<=HELD: continue   # o8 let go at once: joined
        nidx=int(re.search(r"index=(\d+)",events[ni][3]).group(1))
        g=re.search(r"req_count=(\d+) order=(\d+)",events[ni][3])
        ev_unread = g.group(2)=="8"
        ms=lambda x:(x-issue)*1e3
        before=[ms(x) for x in fails if tunb is None or x<=tunb]
        after=[ms(x) for x in fails if tunb is not None and x>tunb]
        out.append(dict(evicted=ev_unread, done=ms(done), t8=ms(t8), F=ms(tunb) if tunb else None, before=before, after=after))
    return out


def kfork(paths):
    global ra_cycles, re, lzma, tempfile
    import lzma, re, tempfile
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    import ra_cycles
    for p in paths:
        rs = kcycles(p)
        print("==", os.path.basename(p), "alone cycles", len(rs), "evicted (next restart o8)", sum(r["evicted"] for r in rs))
        for r in rs:
            print("  ", "EVICT" if r["evicted"] else "whole", "done %.2f t8 %.2f F(unbounded) %s fails-before-F %s fails-after %s" % (
                r["done"], r["t8"], "%.2f" % r["F"] if r["F"] else None, " ".join("%.2f" % x for x in r["before"]),
                " ".join("%.2f" % x for x in r["after"][:4])))


if __name__ == "__main__" and sys.argv[1] == "fork":
    fork(sys.argv[2:])
if __name__ == "__main__" and sys.argv[1] == "kfork":
    kfork(sys.argv[2:])
