#!/usr/bin/env python3
"""kwlag58: the lag budget of the writer's bound kworker from lag56's quiet lag.bt traces (../vmp-slice-1201/q1-*,
q2-*, q1045-1, q1045-2): kworker_vlag.py's pairing (the writer's vmpressure Q line, the L line on its CPU within
100 us; preempt = the L line's thread flags & 0x18), then the change of the kworker's saved vlag from one of the
writer's wake-ups to the next, summed by the first one's decision (preempt / keep): where the lag is gained and
where it is spent.     python3 vlag_budget.py DIR [DIR ...]"""
import lzma, statistics, sys


def s64(x):
    x = int(x)
    return x - (1 << 64) if x >= 1 << 63 else x


for d in sys.argv[1:]:
    rows = [ln.split() for ln in lzma.open(d + "/bt.out.xz", "rt")]
    last = {}
    for r in rows:
        if r and r[0] == 'Q' and r[-1] == 'vmpressure_work_fn':
            last[r[3]] = int(r[1])
    w = max(last, key=last.get)
    lq, seq = {}, []
    for r in rows:
        if not r:
            continue
        if r[0] == 'Q' and r[3] == w:
            lq[r[2]] = (int(r[1]), int(r[4], 16), r[-1])
        elif r[0] == 'L':
            q = lq.pop(r[2], None)
            if not q or q[2] != 'vmpressure_work_fn' or int(r[1]) - q[0] > 100_000 or q[1] & 0x18:
                continue
            obs = 'preempt' if int(r[5], 16) & 0x18 else 'keep'
            seq.append((int(r[1]), obs, s64(r[16]) if r[13] == r[3] else None))
    print(f'== {d}: writer {w}, {len(seq)} paired wake-ups')
    for o in ('preempt', 'keep'):
        ch = [b[2] - a[2] for a, b in zip(seq, seq[1:]) if a[1] == o and a[2] is not None and b[2] is not None]
        pos = [c for c in ch if c > 0]
        print(f'   after a {o:7s}: {len(ch):3d} changes to the next wake-up\'s vlag, sum {sum(ch) / 1e6:+7.2f} ms, '
              f'mean {statistics.mean(ch) / 1e3:+7.1f} us, median {statistics.median(ch) / 1e3:+7.1f} us; '
              f'rises {len(pos)} (sum {sum(pos) / 1e6:+.2f} ms)')
    v = [x[2] for x in seq if x[2] is not None]
    print(f'   vlag first / last {v[0] / 1e3:.1f} / {v[-1] / 1e3:.1f} us; at the keeps: ' +
          ' '.join(f'{x[2] / 1e3:.0f}' if x[2] is not None else 'none' for x in seq if x[1] == 'keep'))
