"""Re-fit a recording's reclaim_freed_rows (orders61): all reads and each kind of read alone;
and the class medians. Usage: fit_rows.py REC.json..."""
import json, statistics, collections, sys
sys.path.insert(0, __file__.rsplit("/lab/", 1)[0] + "/python")
from memtwin import hostcal

for path in sys.argv[1:]:
    d = json.load(open(path))
    hc = next(iter(d["variants"].values()))["real"]["machine"]["host_cost"]
    rows, reads = hc["reclaim_freed_rows"], hc["reclaim_freed_reads"]
    e = hc.get("isolate_trace_ns_per_call")
    print(path, "load", hc.get("loadavg_before"), hc.get("loadavg_after"), "event_ns", e)
    i, by = 0, collections.defaultdict(list)
    for ra, n, _ in reads:
        by[ra] += rows[i:i + n]
        i += n
    print("  event", {k: hc.get(k) for k in ("reclaim_freed_event_ns", "reclaim_freed_event_class", "reclaim_freed_event_medians_ns", "reclaim_folio_ns", "reclaim_tail_page_ns", "reclaim_freed_fit_ns", "reclaim_freed_unavailable")})
    e = hc.get("reclaim_freed_event_ns", e)
    for name, rs in [("all", rows)] + [(str(ra), rs) for ra, rs in by.items()]:
        try:
            r = hostcal.reclaim_freed_from([tuple(x) for x in rs], e)
            print(f"  {name:7s} n={r['reclaims_freed_fitted']:5d} fit {r['reclaim_freed_fit_ns']} -> folio {r.get('reclaim_folio_ns')} tail {r.get('reclaim_tail_page_ns')}")
        except ValueError as ex:
            print(f"  {name:7s} {ex}")
    c = collections.defaultdict(list)
    for ns, b, f, p in rows:
        c[(b, f, p)].append(ns)
    top = sorted(c.items(), key=lambda kv: -len(kv[1]))[:12]
    print("  classes (batches, folios, pages): n, p50 us:", "; ".join(f"{k} {len(v)} {statistics.median(v) / 1000:.0f}" for k, v in top))
