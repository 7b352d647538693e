#!/usr/bin/env python3
"""orders60: charges_light.bt's C lines (kernel), or a twin run's P/A/F/RB/RE/D/S lines turned into the same
per-charge records, by order and window position (the k-th consecutive charge of one order whose indexes follow;
a failed one ends it).  python3 analyse_light.py kernel TRACE | twin OUT --until-s S"""
import collections, statistics, sys

def kernel(path):
    out = []
    for line in open(path):
        f = line.split()
        if f and f[0] == 'C':
            t, d, o, idx, ok, rc, rns, rp, dn, ni, off = map(int, f[1:12])
            out.append(dict(t=t, dur=d, order=o, idx=idx, ok=bool(ok), rc=rc, rns=rns, rp=rp, dn=dn, ni=ni, off=off))
    return out

def twin(path, until):
    out, cur, t0 = [], None, None
    for line in open(path):
        f = line.split()
        if not f or f[0] == 'J':
            continue
        k, t = f[0], int(f[1])
        t0 = t if t0 is None else t0
        if until and t - t0 > until:
            break
        if k == 'P':
            cur = dict(t=t, pfn=int(f[2]), order=int(f[3]), rc=0, rns=0, rp=0, dn=0, ni=0, off=0)
        elif cur is None:
            continue
        elif k == 'A' and int(f[4]) == cur['pfn']:
            cur.update(dur=t - cur['t'], idx=int(f[2]), ok=True); out.append(cur); cur = None
        elif k == 'F' and int(f[2]) == cur['pfn']:
            cur.update(dur=t - cur['t'], idx=0, ok=False); out.append(cur); cur = None
        elif k == 'RE':
            cur['rc'] += 1; cur['rns'] += int(f[2]); cur['rp'] += int(f[3])
        elif k == 'D':
            cur['dn'] += 1
        elif k == 'S':
            cur['ni'] += 1
    return [c for c in out if c['order'] >= 2]

def main():
    kind, path = sys.argv[1], sys.argv[2]
    until = float(sys.argv[sys.argv.index('--until-s') + 1]) * 1e9 if '--until-s' in sys.argv else None
    cs = kernel(path) if kind == 'kernel' else twin(path, until)
    prev = None
    for c in cs:
        if prev and prev['ok'] and prev['order'] == c['order'] and (not c['ok'] or c['idx'] == prev['idx'] + (1 << c['order'])):
            c['pos'] = prev['pos'] + 1
        else:
            c['pos'] = 1
        prev = c
    print(f"{kind} {path}: {len(cs)} charges of large folios, {sum(not c['ok'] for c in cs)} failed")
    for o in sorted({c['order'] for c in cs}):
        g0 = [c for c in cs if c['order'] == o]
        print(f"order {o}: {len(g0)} charges, {sum(not c['ok'] for c in g0)} failed")
        print("  pos    n  ok%  dur_us p50/mean   reclaim_us mean  reclaims  pages  folios_deleted  batches  offcpu_us  us/folio(p50, 1 reclaim, on cpu)")
        byp = collections.defaultdict(list)
        for c in g0:
            byp[min(c['pos'], 20 if o < 8 else 16)].append(c)
        for p in sorted(byp):
            g = byp[p]
            per = [(c['rns'] - c['off']) / c['dn'] / 1e3 for c in g if c['rc'] == 1 and c['dn'] and c['ok']]
            print(f"  {p:3d} {len(g):4d} {100 * sum(c['ok'] for c in g) / len(g):4.0f}  {statistics.median(c['dur'] for c in g) / 1e3:8.1f} {statistics.mean(c['dur'] for c in g) / 1e3:8.1f}"
                  f"  {statistics.mean(c['rns'] for c in g) / 1e3:8.1f}  {statistics.mean(c['rc'] for c in g):5.2f}  {statistics.mean(c['rp'] for c in g):6.1f}"
                  f"  {statistics.mean(c['dn'] for c in g):6.1f}  {statistics.mean(c['ni'] for c in g):6.1f}  {statistics.mean(c['off'] for c in g) / 1e3:7.1f}"
                  f"  {statistics.median(per) if per else float('nan'):6.2f}")
    # no-reclaim charges: the charge's own cost
    for o in sorted({c['order'] for c in cs}):
        nr = [c['dur'] for c in cs if c['order'] == o and c['rc'] == 0 and c['ok'] and c['off'] == 0]
        if nr:
            print(f"no-reclaim charges order {o}: n {len(nr)} p25/p50/p75 {sorted(nr)[len(nr) // 4] / 1e3:.2f}/{statistics.median(nr) / 1e3:.2f}/{sorted(nr)[3 * len(nr) // 4] / 1e3:.2f} us")
    # reclaims that deleted folios: us per deleted folio by folios count bucket
    rows = [c for c in cs if c['rc'] == 1 and c['dn'] and c['ok'] and c['off'] == 0]
    b = collections.defaultdict(list)
    for c in rows:
        k = 1 if c['dn'] == 1 else 4 if c['dn'] <= 4 else 16 if c['dn'] <= 16 else 64 if c['dn'] <= 64 else 999
        b[k].append(c)
    for k in sorted(b):
        g = b[k]
        print(f"one reclaim, on CPU, deleted <= {k:3d} folios: n {len(g)} reclaim_us p50 {statistics.median(c['rns'] for c in g) / 1e3:.1f}"
              f" us/folio p50 {statistics.median(c['rns'] / c['dn'] for c in g) / 1e3:.2f} batches p50 {statistics.median(c['ni'] for c in g)}")

main()
