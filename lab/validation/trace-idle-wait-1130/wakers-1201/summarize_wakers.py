#!/usr/bin/env python3
"""Summarise wakers.bt output (W/S lines): per python3 wakee with the most wake-ups, the wake-ups by
waker (comm stripped of its number), whether it was placed on the waker's CPU, what ran on the target
CPU at the wake-up (idle or not), and the wait to its switch-in by what ran there."""
import sys, re, collections
def base(c):
    return re.sub(r"[/:].*", "", c) if not c.startswith("kworker") else "kworker/" + ("u" if "/u" in c else "b")
for path in sys.argv[1:]:
    W, S = collections.defaultdict(list), collections.defaultdict(list)
    pend = {}
    for line in open(path):
        f = line.split()
        if not f or f[0] not in "WS" or len(f) < 6:
            continue
        if f[0] == "W":
            t, wakee, wpid, wcomm, wcpu, tcpu, cpid, ccomm, cran = f[1:10]
            pend[wakee] = (base(wcomm), wcpu == tcpu, base(ccomm), int(cran))
        else:
            t, wakee, wait, ppid, pcomm, cpu = f[1:7]
            if wakee in pend:
                W[wakee].append(pend.pop(wakee) + (int(wait), base(pcomm)))
    print("==", path)
    for wakee, ev in sorted(W.items(), key=lambda kv: -len(kv[1]))[:3]:
        tot = sum(e[4] for e in ev)
        print(f" wakee {wakee}: {len(ev)} wake-ups, wait {tot/1e6:.2f} ms")
        by = collections.Counter(e[0] for e in ev)
        print("  wakers:", dict(by.most_common(6)))
        print("  on the waker's CPU:", sum(e[1] for e in ev), " target idle at wake-up:", sum(e[2] == "swapper" for e in ev))
        wb = collections.defaultdict(lambda: [0, 0])
        for e in ev:
            k = "idle" if e[2] == "swapper" else e[2]
            wb[k][0] += 1; wb[k][1] += e[4]
        print("  wait by what ran on the target CPU at the wake-up:",
              {k: f"{n} / {ns/1e6:.2f} ms" for k, (n, ns) in sorted(wb.items(), key=lambda kv: -kv[1][1])})
