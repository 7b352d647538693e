"""Pass 1 of a twin trace (twin-trace.patch): of the ramps whose order-6 window blk-throttle let go at once (its bio
complete within 20 ms of its submission), how many had their order-8 window let go at once too (joined on the
device: race669's "joined") and how many had it held or not issued ("alone"), each by whether the next miss fell
inside the order-6 window (evicted unread) (trio21e). The pass's last ramp is left out (no next miss in the pass).

    python3 twin_throttle_held.py TRACE...
"""
import collections
import sys

for f in sys.argv[1:]:
    ramps, cur, last = [], None, -1
    for line in open(f):
        p = line.split()
        if not p or p[0] not in "SAB":
            continue
        t = int(p[1])
        if p[0] == "S":
            i = int(p[2])
            if i < last - 100000:
                break  # pass 2 starts
            last = i
            cur = {"idx": i, "o6": None, "o6sz": 0, "o8": None, "o6b": None, "o8b": None}
            ramps.append(cur)
            continue
        if cur is None:
            continue
        if p[0] == "A":
            st, sz, o = int(p[5]), int(p[6]), int(p[7])
            if o == 6 and cur["o6"] is None:
                cur["o6"], cur["o6sz"] = st, sz
            if o == 8 and cur["o8"] is None:
                cur["o8"] = st
        if p[0] == "B":
            s, d = int(p[2]), int(p[4])
            if cur["o6"] == s and cur["o6b"] is None:
                cur["o6b"] = (t, d)
            if cur["o8"] == s and cur["o8b"] is None:
                cur["o8b"] = (t, d)
    c = collections.Counter()
    for r, nxt in zip(ramps, ramps[1:]):
        if r["o6b"] is None or r["o6b"][1] - r["o6b"][0] > 20e6:
            continue
        held = r["o8b"] is None or r["o8b"][1] - r["o8b"][0] > 20e6
        inside = r["o6"] <= nxt["idx"] < r["o6"] + r["o6sz"]
        c[("order-8 held or not issued (alone)" if held else "order-8 let go at once (joined)",
           "next miss inside the order-6 window" if inside else "next miss past it")] += 1
    # the counts are of the ramps with a next miss (len(ramps) - 1) whose order-6 window went at once (review50 L5)
    print(f, "pass 1 ramps", len(ramps), f"({len(ramps) - 1} with a next miss in the pass);", sum(c.values()),
          "of those with the order-6 window let go at once:", dict(c))
