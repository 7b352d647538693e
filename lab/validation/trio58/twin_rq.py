#!/usr/bin/env python3
"""trio58: the twin's readahead bios and loop read requests, from a scratch build of the engine with
trio58-scratch.patch (eprintln lines TRIO58 per read_pages() bio: pages, segments, vecs, and for an order-0 bio
the pairs of consecutive pages whose frames are +1 / -1 / neither; TRIO58RQ per request submit_hw() dispatches:
pages, segments, whether it waited for the ring). Runs recording I of a set at validate's inputs (bias55's
twin_raw.py --child, boot seed I) with extra sets, prints the three passes' figures (the twin's passes are not
split: per run, all three).

    PYTHONPATH=$PWD/python python3 lab/validation/trio58/twin_rq.py NAME TAG I [SET;SET] [--fullsegs]

--fullsegs sets TRIO58_FULLSEGS=1: the scratch build then gives every order-0 bio one segment per page.
"""
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TWIN = os.path.join(HERE, '..', 'bias55', 'twin_raw.py')
CLASSES = [("<128", lambda n: n < 128), ("128", lambda n: n == 128), ("129-255", lambda n: 128 < n < 256),
           ("256", lambda n: n == 256), ("257-319", lambda n: 256 < n < 320), ("320", lambda n: n == 320)]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    name, tag, i = args[0], args[1], args[2]
    sets = args[3] if len(args) > 3 else ''
    env = dict(os.environ, B55_SETS=sets, TRIO58_SEGS='1')
    env.pop('MEMTWIN_B55_TRACE', None)
    if '--fullsegs' in sys.argv:
        env['TRIO58_FULLSEGS'] = '1'
    p = subprocess.run([sys.executable, TWIN, '--child', name, tag, i], env=env, capture_output=True, text=True,
                       check=True)
    d = json.loads(p.stdout.strip().splitlines()[-1])
    bios, rqs = [], []
    for line in p.stderr.splitlines():
        f = line.split()
        if f and f[0] == 'TRIO58':
            bios.append(tuple(map(int, f[1:])))
        elif f and f[0] == 'TRIO58RQ':
            rqs.append(tuple(map(int, f[1:])))
    sim = [s['metrics']['read_bytes'] / 1e6 for s in d['sim']]
    real = [s['metrics']['read_bytes'] / 1e6 for s in d['real']]
    o0 = [b for b in bios if b[1] == b[3]]
    pages = sum(b[1] for b in bios)
    o0p = sum(b[1] for b in o0)
    up, down, other = (sum(b[k] for b in o0) for k in (4, 5, 6))
    print(f"{name} {tag} {i} [{sets}]{' fullsegs' if '--fullsegs' in sys.argv else ''}: read_bytes "
          f"{'/'.join(f'{x:.0f}' for x in sim)} MB (recording {'/'.join(f'{x:.0f}' for x in real)})")
    print(f"  bios {len(bios)}, {pages * 4096 / 1e6:.0f} MB; order-0 bios {len(o0)}, {o0p * 4096 / 1e6:.0f} MB "
          f"({100 * o0p / max(pages, 1):.1f}%); order-0 page pairs: frame +1 {up}, -1 {down}, other {other} "
          f"(+1 {100 * up / max(up + down + other, 1):.0f}%)")
    big = [b for b in o0 if b[1] >= 128]
    if big:
        r = sorted(b[2] / b[1] for b in big)
        print(f"  order-0 bios of 128+ pages: {len(big)}, segments/pages p10/p50/p90 "
              f"{r[len(r) // 10]:.2f}/{r[len(r) // 2]:.2f}/{r[9 * len(r) // 10]:.2f}, all pages their own segment: "
              f"{sum(1 for b in big if b[2] == b[1])}")
    reads = [q for q in rqs if q[1] == 0]
    c, s128 = collections.Counter(), 0
    for q in reads:
        c[next(k for k, t in CLASSES if t(q[2]))] += 1
        s128 += q[3] >= 128
    print(f"  read requests {len(reads)}, pages " + ", ".join(f"{k}: {c[k]}" for k, _ in CLASSES)
          + f"; with 128+ segments {s128}; ring waits {sum(q[4] for q in reads)}")


if __name__ == '__main__':
    main()
