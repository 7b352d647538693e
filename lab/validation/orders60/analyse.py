#!/usr/bin/env python3
"""orders60: per-charge table of large page-cache folios from a kernel trace (charges.bt) or a twin run
(twin_charges.py), same line letters.

    python3 analyse.py kernel TRACE.txt [--pass-window]      python3 analyse.py twin OUT.txt [--until-s S]

A charge runs from the folio's allocation (P) to its insertion (A, same pfn) or its free (F, same pfn: the charge
failed). Inside it: the memcg reclaims (RB..RE), the folios they delete (D, with order), their batches
(kernel: mm_vmscan_lru_isolate count from RE; twin: S lines), the reader's time off CPU (kernel: sched_switch).
Window position: the k-th consecutive charge of one order whose indexes follow each other (a failed one ends it)."""
import collections, statistics, sys

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float('nan')

def main():
    kind, path = sys.argv[1], sys.argv[2]
    until = None
    if '--until-s' in sys.argv:
        until = float(sys.argv[sys.argv.index('--until-s') + 1]) * 1e9
    reader = None
    charges = []
    cur = None
    t0 = None
    offcpu_since = None
    for line in open(path):
        f = line.split()
        if not f:
            continue
        k = f[0]
        if k in ('J', 'BEGIN', 'END', 'READER', 'Attaching') or not f[1].isdigit():
            if k == 'READER':
                reader = int(f[1])
            continue
        t = int(f[1])
        if t0 is None and k == 'P':
            t0 = t
        if until is not None and t0 is not None and t - t0 > until:
            break
        if k == 'W' and reader is not None:
            prev, nxt = int(f[3]), int(f[5])
            if prev == reader:
                offcpu_since = t
            elif nxt == reader and offcpu_since is not None:
                if cur is not None:
                    cur['off'] += t - max(offcpu_since, cur['t'])
                offcpu_since = None
            continue
        if k == 'P':
            pfn, order = int(f[2]), int(f[3])
            if order < 2:
                cur = None
                continue
            cur = dict(t=t, pfn=pfn, order=order, end=None, ok=None, idx=None, rc=0, rns=0, rpages=0, dels=collections.Counter(),
                       batches=0, prio=12, off=0, fails=0)
            charges.append(cur)
        elif cur is None:
            continue
        elif k == 'A' and int(f[4]) == cur['pfn']:
            cur.update(end=t, ok=True, idx=int(f[2]))
            cur = None
        elif k == 'F' and int(f[2]) == cur['pfn']:
            cur.update(end=t, ok=False)
            cur = None
        elif k == 'RE':
            cur['rc'] += 1
            cur['rns'] += int(f[2])
            cur['rpages'] += int(f[3])
            if kind == 'kernel':
                cur['batches'] += int(f[4])
                cur['prio'] = min(cur['prio'], int(f[10]))
            else:
                cur['prio'] = min(cur['prio'], int(f[4]))
            if int(f[3]) == 0:
                cur['fails'] += 1
        elif k == 'S' and kind == 'twin':
            cur['batches'] += 1
        elif k == 'D':
            cur['dels'][int(f[3])] += 1
    # window positions
    prev = None
    for c in charges:
        if c['end'] is None:
            continue
        if prev and prev['ok'] and prev['order'] == c['order'] and c['ok'] and c['idx'] == prev['idx'] + (1 << c['order']):
            c['pos'] = prev['pos'] + 1
        elif prev and prev['ok'] and prev['order'] == c['order'] and not c['ok']:
            c['pos'] = prev['pos'] + 1
        else:
            c['pos'] = 1
        prev = c
    done = [c for c in charges if c['end'] is not None]
    print(f"{kind} {path}: {len(done)} large-folio charges, {sum(not c['ok'] for c in done)} failed")
    for order in sorted({c['order'] for c in done}):
        cs = [c for c in done if c['order'] == order]
        print(f"order {order}: {len(cs)} charges, failed {sum(not c['ok'] for c in cs)}")
        bypos = collections.defaultdict(list)
        for c in cs:
            bypos[min(c['pos'], 20)].append(c)
        print("  pos    n  ok%  dur_us(p50 mean)  reclaim_us  reclaims  rpages  dels(folios: order:n)  batches  prio  offcpu_us")
        for pos in sorted(bypos):
            g = bypos[pos]
            dur = [(c['end'] - c['t']) / 1e3 for c in g]
            okd = [(c['end'] - c['t']) / 1e3 for c in g if c['ok']]
            rns = [c['rns'] / 1e3 for c in g]
            dels = collections.Counter()
            for c in g:
                dels.update(c['dels'])
            dstr = ' '.join(f"{o}:{dels[o] / len(g):.1f}" for o in sorted(dels))
            print(f"  {pos:3d} {len(g):4d} {100 * sum(c['ok'] for c in g) / len(g):4.0f}  {statistics.median(dur):7.1f} {statistics.mean(dur):7.1f}"
                  f"  ok {statistics.median(okd) if okd else float('nan'):7.1f}  {statistics.mean(rns):7.1f}  {statistics.mean(c['rc'] for c in g):5.2f}"
                  f"  {statistics.mean(c['rpages'] for c in g):6.1f}  [{dstr}]  {statistics.mean(c['batches'] for c in g):6.1f}"
                  f"  {statistics.mean(c['prio'] for c in g):4.1f}  {statistics.mean(c['off'] for c in g) / 1e3:6.1f}")
    # per deleted-folio cost in successful reclaims: reclaims that freed >0, their ns per folio and per page
    rows = []
    for c in done:
        nf = sum(c['dels'].values())
        if c['ok'] and c['rc'] == 1 and nf:
            rows.append((c['rns'] - c['off'], nf, c['rpages'], c['dels']))
    if rows:
        print("one-reclaim successful charges: n", len(rows), " reclaim ns per deleted folio p50",
              statistics.median(r[0] / r[1] for r in rows), " per page", statistics.median(r[0] / max(1, r[2]) for r in rows))
        byord = collections.defaultdict(list)
        for r in rows:
            if len(r[3]) == 1:
                o = next(iter(r[3]))
                byord[o].append(r)
        for o in sorted(byord):
            rr = byord[o]
            print(f"  only order-{o} folios deleted: n {len(rr)} folios p50 {statistics.median(r[1] for r in rr)}"
                  f" reclaim_us p50 {statistics.median(r[0] for r in rr) / 1e3:.1f} ns/folio p50 {statistics.median(r[0] / r[1] for r in rr):.0f}")

if __name__ == '__main__':
    main()


def gaps(kind, path, until=None):
    """Inside each reclaim (RB..RE): the gap between consecutive deletions (D) of the same order, no batch
    boundary between them (kernel: no I line; twin: no S line), by order; and per batch, the time from
    its isolation (kernel I) or start (twin: S's own span) to its end, by folios deleted."""
    g = collections.defaultdict(list)
    inrec, last, t0 = False, None, None
    for line in open(path):
        f = line.split()
        if not f or not f[1].isdigit():
            continue
        t = int(f[1])
        if t0 is None:
            t0 = t
        if until and t - t0 > until:
            break
        k = f[0]
        if k == 'RB':
            inrec, last = True, None
        elif k == 'RE':
            inrec, last = False, None
        elif not inrec:
            continue
        elif k in ('I', 'S'):
            last = None
        elif k == 'D':
            o = int(f[3])
            if last and last[1] == o:
                g[o].append(t - last[0])
            last = (t, o)
    for o in sorted(g):
        xs = g[o]
        print(f"  D-to-D gap, order {o}: n {len(xs)} p25/p50/p75 {pct(xs, .25)}/{pct(xs, .5)}/{pct(xs, .75)} ns")


if __name__ == '__main__' and '--gaps' in sys.argv:
    u = float(sys.argv[sys.argv.index('--until-s') + 1]) * 1e9 if '--until-s' in sys.argv else None
    gaps(sys.argv[1], sys.argv[2], u)
