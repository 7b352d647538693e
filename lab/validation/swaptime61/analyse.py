"""swaptime61: what one trace_run.py trace says about the workload's swap writes (the loop device's
requests), its memcg reclaim and its THP splits, per step (steps: reclaim bursts of the workload's pid
apart by more than 0.5 s). Usage: python3 analyse.py TRACE[.xz] [TRACE...]"""
import lzma, re, sys, statistics as st
from collections import defaultdict, Counter
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
KV = re.compile(r"(\w+)=(\S+)")

def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")

def analyse(path):
    ev = []
    for line in (lzma.open(path, "rt", errors="replace") if path.endswith(".xz") else open(path, errors="replace")):
        m = LINE.match(line)
        if m:
            ev.append((float(m.group(4)), int(m.group(2)), m.group(5), m.group(6), m.group(1)))
    # the workload: the pid with the most anon write_folio
    wf = Counter(p for t, p, e, a, c in ev if e == "mm_vmscan_write_folio" and "WB_ANON" in a)
    pid = wf.most_common(1)[0][0]
    rec = [t for t, p, e, a, c in ev if p == pid and e == "mm_vmscan_memcg_reclaim_begin"]
    steps, cur = [], [rec[0], rec[0]]
    for t in rec[1:]:
        if t - cur[1] > 0.5:
            steps.append(cur); cur = [t, t]
        cur[1] = t
    steps.append(cur)
    # the loop device: major 7 with the swap writes
    loopdev = Counter(a.split()[0] for t, p, e, a, c in ev if e == "block_rq_issue" and a.startswith("7,") and a.split()[1].startswith("W"))
    ldev = loopdev.most_common(1)[0][0]
    print(f"== {path}: workload pid {pid}, loop device {ldev}, {len(steps)} steps")
    for si, (a0, a1) in enumerate(steps):
        lo, hi = a0 - 0.01, a1 + 0.3
        E = [x for x in ev if lo <= x[0] <= hi]
        # reclaim calls of the workload
        begins, durs, recl = {}, [], []
        for t, p, e, a, c in E:
            if p != pid: continue
            if e == "mm_vmscan_memcg_reclaim_begin": begins[p] = t
            elif e == "mm_vmscan_memcg_reclaim_end" and p in begins:
                durs.append((t - begins.pop(p)) * 1e3); recl.append(int(KV.findall(a)[0][1]))
        si_sum = defaultdict(int); prios = Counter()
        for t, p, e, a, c in E:
            if p == pid and e == "mm_vmscan_lru_shrink_inactive" and "WB_ANON" in a:
                d = dict(KV.findall(a))
                for k in ("nr_scanned", "nr_reclaimed", "nr_writeback", "nr_immediate", "nr_dirty", "nr_activate_anon", "nr_ref_keep"):
                    si_sum[k] += int(d[k])
                prios[int(d["priority"])] += 1
        iso = [dict(KV.findall(a)) for t, p, e, a, c in E if p == pid and e == "mm_vmscan_lru_isolate" and "lru=inactive_anon" in a]
        # THP splits: write_folio of a pfn aligned to 512 followed by 511 writes in its range
        wpfn = [(t, int(dict(KV.findall(a))["pfn"], 16)) for t, p, e, a, c in E if e == "mm_vmscan_write_folio" and "WB_ANON" in a and p == pid]
        heads = [(t, pf) for t, pf in wpfn if pf % 512 == 0]
        inrange = Counter(pf >> 9 for t, pf in wpfn)
        splits = [(t, pf) for t, pf in heads if inrange[pf >> 9] >= 500]
        waits = [(t, p, a) for t, p, e, a, c in E if p == pid and e == "folio_wait_writeback"]
        # loop requests
        issue, lat, qd, sizes, inflight = {}, [], [], [], 0
        comps = []
        for t, p, e, a, c in E:
            f = a.split()
            if not a.startswith(ldev + " ") or not f[1].startswith("W"): continue
            if e == "block_rq_issue":
                sec = int(f[4]); n = int(f[6]); issue[sec] = (t, n); inflight += 1; qd.append(inflight); sizes.append(n // 8)
            elif e == "block_rq_complete":
                sec = int(f[3])
                if sec in issue:
                    t0, n = issue.pop(sec); lat.append((t - t0) * 1e3); inflight -= 1; comps.append((t, n // 8))
        print(f"-- step {si + 1}: reclaim {a0:.3f}-{a1:.3f} ({(a1 - a0) * 1e3:.0f} ms): {len(durs)} memcg reclaim calls, "
              f"nr_reclaimed {sum(recl)}, call ms p50 {pct(durs, .5):.3f} p90 {pct(durs, .9):.3f} max {max(durs):.2f}")
        print(f"   shrink_inactive anon: {dict(si_sum)} priorities {dict(sorted(prios.items()))}")
        print(f"   isolate inactive_anon: {len(iso)} calls, nr_scanned {sum(int(d['nr_scanned']) for d in iso)}, nr_taken {sum(int(d['nr_taken']) for d in iso)}")
        print(f"   write_folio anon {len(wpfn)}; THP splits (head written, >=500 of its 512 pfns written) {len(splits)}")
        print(f"   folio_wait_writeback by the workload: {len(waits)}")
        print(f"   loop write requests: {len(lat)} completed, {len(issue)} not; size pages p50 {pct(sizes, .5)} max {max(sizes) if sizes else 0}; "
              f"issue->complete ms p10 {pct(lat, .1):.3f} p50 {pct(lat, .5):.3f} p90 {pct(lat, .9):.3f} max {max(lat) if lat else 0:.3f}; "
              f"in flight at issue p50 {pct(qd, .5)} max {max(qd) if qd else 0}")
        # splits against completions: pages completed between consecutive splits
        if splits:
            st_ = [t for t, _ in splits]
            print("   split times (ms from step start): " + " ".join(f"{(t - a0) * 1e3:.1f}" for t in st_))
            ct = [t for t, n in comps]
            done_before = [sum(n for t, n in comps if t < s) for s in st_]
            written_before = [sum(1 for t, _ in wpfn if t < s) for s in st_]
            print("   pages written / completed on the loop device before each split: " + " ".join(f"{w}/{d}" for w, d in zip(written_before, done_before)))
        # per split batch: the 512 tails' writes from the head's write_folio to the batch's end
        # (mm_vmscan_lru_shrink_inactive, emitted after move_folios_to_lru()); the loop requests
        # issued meanwhile, and how many completed before that end (their pages isolated then:
        # folio_end_writeback() clears PG_reclaim, folio_rotate_reclaimable() skips a folio off
        # the LRU, no PGROTATED)
        ends = [t for t, p, e, a, c in E if p == pid and e == "mm_vmscan_lru_shrink_inactive" and "WB_ANON" in a]
        rq = []  # (issue, complete, pages) of the loop's write requests
        iss = {}
        for t, p, e, a, c in E:
            f = a.split()
            if not a.startswith(ldev + " ") or not f[1].startswith("W"): continue
            if e == "block_rq_issue": iss[int(f[4])] = (t, int(f[6]) // 8)
            elif e == "block_rq_complete" and int(f[3]) in iss:
                t0, n = iss.pop(int(f[3])); rq.append((t0, t, n))
        tot_iso, tot_pages, durs_b = 0, 0, []
        for t, pf in splits:
            end = next((x for x in ends if x > t), None)
            if end is None: continue
            durs_b.append((end - t) * 1e3)
            batch = [r for r in rq if t <= r[0] <= end]
            tot_pages += sum(n for a_, b_, n in batch)
            tot_iso += sum(n for a_, b_, n in batch if b_ <= end)
        if durs_b:
            print(f"   split batches: head write -> batch end ms p50 {pct(durs_b, .5):.2f} (min {min(durs_b):.2f} max {max(durs_b):.2f}); "
                  f"pages in requests issued within the batch {tot_pages}, completed before its end (not rotated) {tot_iso}")
        if waits:
            print("   waits (ms from step start): " + " ".join(f"{(t - a0) * 1e3:.1f}" for t, p, a in waits[:60]) + (" ..." if len(waits) > 60 else ""))

for p in sys.argv[1:]:
    analyse(p)
