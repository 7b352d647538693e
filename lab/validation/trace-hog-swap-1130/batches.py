"""stall23c: the kernel's memcg reclaim batches of a traced host-stall-hog-swap recording (run.sh), per
window of time: python3 batches.py vmscan-N.trace [window_s] (xz -dk vmscan-N.trace.xz first). One line per
window and list type (anon/file: mm_vmscan_lru_shrink_inactive scanned, reclaimed, nr_writeback, nr_immediate,
nr_dirty, activations, nr_ref_keep, mean priority; act-*: mm_vmscan_lru_shrink_active)."""
import re, sys, collections
f = sys.argv[1]; win = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
pat = re.compile(r'^\s*(\S+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (mm_vmscan_lru_shrink_\w+): (.*)$')
t0 = None
agg = collections.defaultdict(lambda: collections.Counter())
pids = collections.Counter()
for line in open(f):
    m = pat.match(line)
    if not m: continue
    comm, pid, cpu, ts, ev, rest = m.groups()
    ts = float(ts)
    if t0 is None: t0 = ts
    kv = dict(x.split('=', 1) for x in rest.split())
    w = int((ts - t0) / win)
    if ev.endswith('inactive'):
        typ = 'anon' if 'RECLAIM_WB_ANON' in kv['flags'] else 'file'
        c = agg[(w, typ)]
        for k in ('nr_scanned', 'nr_reclaimed', 'nr_dirty', 'nr_writeback', 'nr_immediate', 'nr_activate_anon', 'nr_activate_file', 'nr_ref_keep'):
            c[k] += int(kv[k])
        c['calls'] += 1
        c['prio_sum'] += int(kv['priority'])
        pids[(pid, typ)] += int(kv['nr_scanned'])
    else:
        typ = 'anon' if 'RECLAIM_WB_ANON' in kv.get('flags', '') else 'file'
        c = agg[(w, 'act-' + typ)]
        c['calls'] += 1
        for k in ('nr_taken', 'nr_active', 'nr_deactivated', 'nr_referenced'):
            c[k] += int(kv.get(k, 0))
for k in sorted(agg):
    c = agg[k]
    if k[1] in ('anon', 'file'):
        print(f"{k[0]*win:5.2f} {k[1]:8} calls={c['calls']:5} scan={c['nr_scanned']:6} recl={c['nr_reclaimed']:6} wb={c['nr_writeback']:5} imm={c['nr_immediate']:5} dirty={c['nr_dirty']:5} actA={c['nr_activate_anon']:5} actF={c['nr_activate_file']:5} keep={c['nr_ref_keep']:5} prio={c['prio_sum']/c['calls']:.1f}")
    else:
        print(f"{k[0]*win:5.2f} {k[1]:8} calls={c['calls']:5} " + ' '.join(f'{x}={c[x]}' for x in ('nr_taken','nr_active','nr_deactivated','nr_referenced')))
print(pids.most_common(12))
