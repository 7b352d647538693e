"""One line a ramp of the twin's temporary trace (twin-trace.patch): its events in ms from its miss (trio21e).

    python3 twin_ramps.py TRACE [N [SKIP]]
"""
import sys
f = sys.argv[1]; nmax = int(sys.argv[2]) if len(sys.argv) > 2 else 20; skip = int(sys.argv[3]) if len(sys.argv) > 3 else 0
ramps = []; cur = None; t0 = 0
for line in open(f):
    p = line.split()
    if not p or p[0] not in "SABFRWE": continue
    k = p[0]; t = int(p[1])
    if k == "S":
        cur = [f"S@{p[2]}"]; ramps.append((t, cur)); t0 = t; continue
    if cur is None: continue
    ms = (t - t0) / 1e6
    if k == "A": cur.append(f"A{ms:.2f}:{p[2]}o{p[3]}->[{p[5]}+{p[6]} o{p[7]}]")
    elif k == "B": cur.append(f"B{ms:.2f}:{p[2]}-{p[3]} done{(int(p[4])-t0)/1e6:.2f}")
    elif k == "F": cur.append(f"F{ms:.2f}:@{p[2]}o{p[3]}")
    elif k == "R":
        if cur and cur[-1].startswith("R") and (p[2] == "0") == cur[-1].startswith("R0"):
            cur[-1] = cur[-1] + "."
        else:
            cur.append(("R0" if p[2] == "0" else "R+") + f"{ms:.2f}")
    elif k == "W":
        if int(p[3]) > t: cur.append(f"W{ms:.2f}:@{p[2]}->{(int(p[3])-t0)/1e6:.2f}")
    elif k == "E":
        if p[4] == "1":
            if cur[-1].startswith("Eu"):
                a, b, c = cur[-1][2:].split(":")
                cur[-1] = f"Eu{a}:{int(b)}:{int(c)+int(p[3])}"
            else:
                cur.append(f"Eu{ms:.2f}:{p[2]}:{p[3]}")
for t, r in ramps[skip:skip + nmax]:
    print(f"{t/1e6:.1f}ms", " ".join(r))
print("ramps", len(ramps))
