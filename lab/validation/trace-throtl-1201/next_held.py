#!/usr/bin/env python3
"""From a blk_notes.py trace: the reader's read bios in order of submission (Q of a non-kworker task: let go
at once; "throtl [R] bio." note: held), and for each 8 MiB bio let go at once (the order-6 window: 16384
sectors), whether the next bio (the order-8 window, or what came instead) was let go at once too or held; and
the sizes (MiB) of the first bio of each hold (the one that met the limit with nothing queued).

    python3 next_held.py BLKTRACE...
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blk_replay as B  # noqa: E402

for path in sys.argv[1:]:
    seq = []
    for t, comm, pid, rest in B.load(path):
        p = rest.split()
        if "throtl [R] bio." in rest:
            kv = dict(x.split("=") for x in p if "=" in x)
            seq.append((int(kv["sz"]), True, kv["queued"].split("/")[0] == "0"))
        elif len(p) >= 5 and p[0] == "Q" and "R" in p[1] and p[3] == "+" and not comm.startswith("kworker"):
            seq.append((int(p[4]) * 512, False, False))
    nxt = collections.Counter()
    for (b, held, _), (b2, held2, _) in zip(seq, seq[1:]):
        if b == 8 << 20 and not held:
            nxt[("held" if held2 else "let go at once", round(b2 / 2**20, 2) == 11.5)] += 1
    first = collections.Counter(round(b / 2**20, 2) for b, held, f in seq if f)
    n = sum(nxt.values())
    print(f"{path}: {n} 8 MiB bios let go at once; the next bio "
          f"let go at once {sum(v for k, v in nxt.items() if k[0] != 'held')} (11.5 MiB: {nxt[('let go at once', True)]}), "
          f"held {sum(v for k, v in nxt.items() if k[0] == 'held')} (11.5 MiB: {nxt[('held', True)]})")
    print("  first bio of each hold, MiB: count:", ", ".join(f"{k}: {v}" for k, v in first.most_common(8)))
