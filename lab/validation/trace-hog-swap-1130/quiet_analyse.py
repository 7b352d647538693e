#!/usr/bin/env python3
"""hogswap23: read a hog_calls.bt output (quiet-lead-2330/hogN-bt.out) and print what the brief asks.

Usage: python3 quiet_analyse.py hogN-bt.out [window_ms]
- per 50 ms of the clock (T0 = the first anon reclaim batch): pageouts (@wr), write bios past blk-throttle on the
  loop devices (@bioq), their pages (@bioq_s / 8), requests completed (@done) and pages (@done_s / 8);
- memcg reclaim calls (C lines) per 50 ms: calls, pageouts, freed, lowest priority median/min, max pageouts a call;
- the reclaimers' sleeps by kernel stack: total count and ms for stacks holding wbt_wait, folio_wait_writeback,
  reclaim_throttle, and the rest (cond_resched: preemption);
- blk-wbt's scaling (W lines) on 7:0 relative to T0;
- @wrq_sectors (request sizes).
"""
import re
import sys
from collections import defaultdict

path = sys.argv[1]
win = int(sys.argv[2]) if len(sys.argv) > 2 else 50
text = open(path).read()
t0 = int(re.search(r"^T0 (\d+)", text, re.M).group(1))

def hist(name):
    out = {}
    for m in re.finditer(r"^@%s\[(\d+)\]: (\d+)$" % re.escape(name), text, re.M):
        out[int(m.group(1))] = int(m.group(2))
    return out

wr, bioq, bioq_s, done, done_s = (hist(n) for n in ("wr", "bioq", "bioq_s", "done", "done_s"))
calls = []
for m in re.finditer(r"^C (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", text, re.M):
    tid, start, ln, po, rec, prio, batches, wbw = map(int, m.groups())
    if start > 10_000_000:  # a call begun before T0 (start underflowed)
        continue
    calls.append((tid, start, ln, po, rec, prio, batches, wbw))

per = win // 10
print(f"{path}: T0 {t0}; per {win} ms (bins of 10 ms)")
print("ms\tpageouts\tbios_q\tbio_pages\treqs_done\tdone_pages\tcalls\tcall_po\tfreed\tprio_med\tprio_min\tmax_po_call")
nb = max(list(wr) + list(bioq) + list(done) + [0]) // per + 1
for b in range(nb):
    r = range(b * per, (b + 1) * per)
    cs = [c for c in calls if b * win * 1000 <= c[1] < (b + 1) * win * 1000]
    pr = sorted(c[5] for c in cs)
    print(f"{b*win}\t{sum(wr.get(i,0) for i in r)}\t{sum(bioq.get(i,0) for i in r)}\t"
          f"{sum(bioq_s.get(i,0) for i in r)//8}\t{sum(done.get(i,0) for i in r)}\t{sum(done_s.get(i,0) for i in r)//8}\t"
          f"{len(cs)}\t{sum(c[3] for c in cs)}\t{sum(c[4] for c in cs)}\t"
          f"{pr[len(pr)//2] if pr else '-'}\t{pr[0] if pr else '-'}\t{max((c[3] for c in cs), default=0)}")
print(f"totals: pageouts {sum(wr.values())}, bios past throttle {sum(bioq.values())} ({sum(bioq_s.values())//8} pages), "
      f"requests done {sum(done.values())} ({sum(done_s.values())//8} pages)")
po = sorted(c[3] for c in calls)
print(f"calls {len(calls)}; pageouts a call: max {po[-1]}, calls writing >0: {sum(1 for p in po if p)}, "
      f">=100: {sum(1 for p in po if p >= 100)}, >=500: {sum(1 for p in po if p >= 500)}; "
      f"calls at priority 0: {sum(1 for c in calls if c[5] == 0)}; folio_wait_writeback in calls: {sum(c[7] for c in calls)}")
top = sorted(calls, key=lambda c: -c[3])[:5]
for c in top:
    print(f"  top call tid {c[0]} start {c[1]/1000:.1f} ms len {c[2]/1000:.1f} ms pageouts {c[3]} freed {c[4]} prio {c[5]}")

# sleeps by stack
stacks = re.findall(r"^@sleep_(n|ns)\[\n(.*?)\]: (\d+)$", text, re.M | re.S)
agg = defaultdict(lambda: [0, 0])
for kind, stk, v in stacks:
    if "wbt_wait" in stk:
        key = "wbt_wait" + (" <- swap_writeout" if "swap_writeout" in stk else " (other)")
    elif "folio_wait_writeback" in stk:
        key = "folio_wait_writeback"
    elif "reclaim_throttle" in stk:
        key = "reclaim_throttle"
    elif "__cond_resched" in stk:
        key = "cond_resched (preempted)"
    else:
        key = "other: " + stk.split("\n")[3].strip()
    agg[key][0 if kind == "n" else 1] += int(v)
for k, (n, ns) in sorted(agg.items(), key=lambda kv: -kv[1][1]):
    print(f"sleeps {k}: {n}, {ns/1e6:.1f} ms")

for m in re.finditer(r"^W (\d+) (\S+) step=(-?\d+) bg=\d+ normal=\d+ max=(\d+)$", text, re.M):
    ns, dev, step, mx = m.groups()
    rel = (int(ns) - t0) / 1e6
    if dev == "7:0" and -3000 < rel < 2000:
        print(f"wbt 7:0 at {rel:+.0f} ms: step {step} max {mx}")
m = re.search(r"@wrq_sectors: \n(.*?)\n\n", text, re.S)
print("write requests issued (sectors):\n" + (m.group(1) if m else "none"))
