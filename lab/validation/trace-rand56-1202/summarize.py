#!/usr/bin/env python3
"""rand56: the reader's own activations per pass from activate.bt's maps (bt.out of one recording).

usage: summarize.py DIR [DIR ...]   (each DIR holds bt.out and traced.json from bt_recording.sh)

The reader's file is the inode with the most page-cache additions on the runner's loop device (traced.json's disk); its passes are the runs of
additions separated by gaps of >= 2 s (the runner's snapshots between steps), checked against the runner's
per-step folio_events (added pages per pass) in traced.json. Prints, per pass: the file's added pages (trace,
runner), its activations (folios, pages) by age (0 added in this pass, 1 in an earlier one, 2 unseen) and
order, and the runner's system-wide vmstat.pgactivate for the step."""
import json
import re
import sys
from collections import defaultdict

PAT = re.compile(r"^@(add|act)\[(.*)\]: (\d+)$")


def load(d):
    add, act = defaultdict(int), defaultdict(int)
    for line in open(f"{d}/bt.out"):
        m = PAT.match(line.strip())
        if not m:
            continue
        k = tuple(int(x) for x in m.group(2).split(", "))
        (add if m.group(1) == "add" else act)[k] += int(m.group(3))
    return add, act


def passes_of(times, gap=20):
    runs, cur = [], None
    for t in sorted(times):
        if cur is None or t - cur[1] >= gap:
            cur = [t, t]
            runs.append(cur)
        cur[1] = t
    return runs


def main(dirs):
    for d in dirs:
        add, act = load(d)
        tj = json.load(open(f"{d}/traced.json"))
        var = next(iter(tj["variants"].values()))
        steps = var["steps"]
        # the runner's loop device (its machine's disk line: "... on /dev/loopN ..."): another loop-device file
        # system may be busy at the same time (tight-512m-ra8192: loop1's, not the runner's)
        minor = int(re.search(r"/dev/loop(\d+)", var["real"]["machine"]["disk"]).group(1))
        per_file = defaultdict(int)
        for (dev, ino, t, o), n in add.items():
            if dev == (7 << 20) | minor:
                per_file[(dev, ino)] += n << o
        f = max(per_file, key=per_file.get)
        times = {t for (dev, ino, t, o) in add if (dev, ino) == f}
        runs = passes_of(times)
        # the runs before the steps' are the runner's setup (the file written, then dropped)
        runs = runs[len(runs) - len(steps):]
        print(f"{d}: file dev {f[0] >> 20}:{f[0] & 0xfffff} ino {f[1]} ({per_file[f]} pages added); {len(runs)} runs of additions, "
              f"{len(steps)} steps")
        # activations of the file outside the runs are given to the run they follow (reads end before the gap);
        # before the first (the setup's writes) to none
        def run_of(t):
            i = -1
            for j, (a, b) in enumerate(runs):
                if t >= a:
                    i = j
            return i
        for j, (a, b) in enumerate(runs):
            added = sum(n << o for (dev, ino, t, o), n in add.items() if (dev, ino) == f and a <= t <= b)
            by = defaultdict(int)
            pages = 0
            for (dev, ino, t, o, age), n in act.items():
                if (dev, ino) == f and run_of(t) == j:
                    by[(age, o)] += n
                    pages += n << o
            st = steps[j] if j < len(steps) else None
            rec = st["folio_events"]["added"] if st else None
            recp = sum(n << int(k) for k, n in rec.items()) if rec else None
            vm = st["metrics"]["vmstat.pgactivate"] if st else None
            name = st["name"] if st else "?"
            print(f"  {name}: {(b - a + 1) / 10:.1f} s of additions, added {added} pages (runner {recp}); "
                  f"activations {pages} pages: " + ", ".join(f"age {k[0]} order {k[1]}: {v}" for k, v in sorted(by.items()))
                  + f"; vmstat.pgactivate (system-wide) {vm}")
        other = sum(n << o for (dev, ino, t, o, age), n in act.items() if (dev, ino) != f)
        print(f"  activations of other loop-device inodes (any loop device): {other} pages")


if __name__ == "__main__":
    main(sys.argv[1:])
