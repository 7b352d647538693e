"""stall23c: a traced host-stall-hog-swap recording (run.sh with EXTRA_EVENTS, vmscan-2) per window from 0.3 s before
the first anon reclaim batch: python3 windows.py vmscan-2.trace WINDOW_S FROM_S TO_S. Per window: memcg reclaim calls
(mm_vmscan_memcg_reclaim_begin/_end) and what they freed, pageouts (mm_vmscan_write_folio), folio_wait_writeback()
waits, reclaim_throttle() (mm_vmscan_throttled, by reason), anon/file scanned and reclaimed, the lowest priority,
the median and longest reclaim call."""
import re, sys, collections
f = sys.argv[1]; win = float(sys.argv[2]); t_from = float(sys.argv[3]); t_to = float(sys.argv[4])
pat = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
rows = []
for line in open(f):
    m = pat.match(line)
    if m: rows.append(m.groups())
t0 = float(rows[0][3])
first_anon = next(float(r[3]) for r in rows if r[4] == 'mm_vmscan_lru_shrink_inactive' and 'ANON' in r[5])
print('first anon at', first_anon - t0)
base = first_anon - 0.3
agg = collections.defaultdict(collections.Counter)
begin = {}
durs = collections.defaultdict(list)
for comm, pid, cpu, ts, ev, rest in rows:
    t = float(ts) - base
    if t < t_from or t > t_to: continue
    w = int(t / win)
    c = agg[w]
    if ev == 'mm_vmscan_write_folio': c['write'] += 1
    elif ev == 'folio_wait_writeback': c['waitwb'] += 1
    elif ev == 'mm_vmscan_throttled':
        c['throttled'] += 1; c['thr:' + rest.split('reason=')[-1]] += 1
    elif ev == 'mm_vmscan_memcg_reclaim_begin': begin[pid] = float(ts); c['calls'] += 1
    elif ev == 'mm_vmscan_memcg_reclaim_end':
        if pid in begin: durs[w].append(float(ts) - begin.pop(pid))
        c['freed'] += int(rest.split('nr_reclaimed=')[1].split()[0])
    elif ev == 'mm_vmscan_lru_shrink_inactive':
        kv = dict(x.split('=', 1) for x in rest.split())
        typ = 'A' if 'ANON' in kv['flags'] else 'F'
        c['scan' + typ] += int(kv['nr_scanned']); c['recl' + typ] += int(kv['nr_reclaimed'])
        c['minprio'] = min(c.get('minprio', 99) if 'minprio' in c else 99, int(kv['priority']))
for w in sorted(agg):
    c = agg[w]; d = durs[w]
    extra = {k: v for k, v in c.items() if k.startswith('thr:')}
    print(f"{w*win:6.2f} calls={c['calls']:4} freed={c['freed']:5} write={c['write']:5} waitwb={c['waitwb']:3} thr={c['throttled']:2} scanA={c['scanA']:6} reclA={c['reclA']:5} scanF={c['scanF']:5} reclF={c['reclF']:5} minprio={c.get('minprio',99):2} dur_med_ms={sorted(d)[len(d)//2]*1e3 if d else 0:.3f} dur_max_ms={max(d)*1e3 if d else 0:.1f}", extra)
