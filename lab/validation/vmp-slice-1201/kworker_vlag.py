#!/usr/bin/env python3
"""lag56 (issue 23): the bound kworker's saved lag at the scenario writer's vmpressure wake-ups, from lag.bt traces.

    python3 kworker_vlag.py DIR [DIR...]      (DIR holds bt.out.xz from lag.bt, run-lag.sh)

The writer is the scenario's (the LAST python3 to queue a vmpressure work; the runner's hostcal readers come
first, summarize_lag.py --step-writer). Per wake-up as summarize_lag.py pairs them (the writer's Q line of
vmpressure_work_fn, then the L line on its CPU within 100 us, the resched bits clear at the queue): the observed
decision (preempt: the L line's thread flags & 0x18) and the woken kworker's `vlag` (the L line's kse vlag, when the
leftmost entity read is the woken kworker; else 'none'). Prints per directory the decisions by the sign of vlag,
the change of vlag from a preempting wake-up's to the next wake-up's (median, mean: elig55's "fall a work"), and
the median vlag at the preempting wake-ups."""
import lzma, statistics, sys, collections


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
    c = collections.Counter((o, 'none' if v is None else ('0' if v == 0 else ('>0' if v > 0 else '<0'))) for _, o, v in seq)
    d1 = [b[2] - a[2] for a, b in zip(seq, seq[1:]) if a[1] == 'preempt' and a[2] is not None and b[2] is not None]
    pv = [v for _, o, v in seq if o == 'preempt' and v is not None]
    print(f"== {d}: writer {w}, decisions by the kworker's vlag: " + ", ".join(f"{o} vlag {s} {n}" for (o, s), n in sorted(c.items())))
    print(f"   vlag change after a preemption: median {statistics.median(d1)/1e3:.1f} us, mean {statistics.mean(d1)/1e3:.1f} us"
          f" ({len(d1)}); vlag at the preempting wake-ups: median {statistics.median(pv)/1e3:.1f} us")
