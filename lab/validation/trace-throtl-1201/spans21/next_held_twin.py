"""Pass 1 of a twin trace (trio21e's twin-trace.patch): the reader's read submissions ("B now start end done", pages),
and for each 8 MiB one (2048 pages) let go at once (done within 20 ms of its submission), whether the next one was
let go at once or held (done more than 20 ms after it): throtl21's next_held.py's figure on the twin's side."""
import collections, sys
tot = collections.Counter()
for f in sys.argv[1:]:
    seq, last = [], -1
    for line in open(f):
        p = line.split()
        if not p:
            continue
        if p[0] == "S":
            i = int(p[2])
            if i < last - 100000:
                break
            last = i
        elif p[0] == "B":
            now, s, e, d = (int(x) for x in p[1:5])
            seq.append((e - s, d - now > 20e6))
    c = collections.Counter()
    for (n, h), (n2, h2) in zip(seq, seq[1:]):
        if n == 2048 and not h:
            c["held" if h2 else "at once"] += 1
    tot += c
    print(f.split("/")[-1], "submissions", len(seq), "8 MiB let go at once", sum(c.values()), "next held", c["held"], f"({c['held'] / max(1, sum(c.values())) * 100:.0f}%)")
print("all", sum(tot.values()), "next held", tot["held"], f"({tot['held'] / max(1, sum(tot.values())) * 100:.0f}%)")
