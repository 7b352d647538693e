#!/usr/bin/env python3
"""hog23: prof.bt's kernel-mode samples of one LOADED host-stall-hog-swap run, by task and stack category, in windows
from the hog's first anonymous fault (the three task pids given: cp hog probe, the runner's forks in plan order).
usage: prof_loaded.py BT_OUT CP HOG PROBE [--windows 0,60,120,...]"""
import sys, collections
sys.argv, rest = sys.argv[:2], sys.argv[2:]
import importlib.util, os
spec = importlib.util.spec_from_file_location("pf", os.path.join(os.path.dirname(os.path.abspath(__file__)), "prof_first.py"))
path = sys.argv[1]
cp, hog, probe = (int(x) for x in rest[:3])
wins = [float(x) for x in rest[rest.index("--windows") + 1].split(",")] if "--windows" in rest else [0, 60, 120, 300, 800]
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "prof_first.py")).read()
CATS = eval(src[src.index("CATS = ") + 7: src.index("\n\ndef cat")])
def cat(stack):
    for name, keys in CATS:
        if any(k in f for f in stack for k in keys):
            return name
    return "other: " + (stack[0] if stack else "?")
samples, cur = [], None
for line in open(path):
    if line.startswith("P "):
        p = line.split(); cur = [int(p[1]), int(p[2]), []]; samples.append(cur)
    elif cur is not None and line.startswith("        ") and line.strip():
        cur[2].append(line.strip().split("+")[0])
    elif line.strip():
        cur = None
start = min(s[0] for s in samples if s[1] == hog and "do_anonymous_page" in s[2])
print(f"# {path}: start = the hog's first do_anonymous_page sample ({start} ns); {len(samples)} samples of python3 in all")
names = {"copy": cp, "hog": hog, "probe": probe}
for a, b in zip(wins, wins[1:]):
    t0, t1 = start + a * 1e6, start + b * 1e6
    print(f"\n## {a:.0f}-{b:.0f} ms: kernel-mode samples (1999 Hz a CPU: 0.5 ms each) by task and category")
    for task, pid in names.items():
        c = collections.Counter(cat(s[2]) for s in samples if s[1] == pid and t0 <= s[0] < t1)
        n = sum(c.values())
        print(f"  {task:5} {n:4} ({n / 1.999:6.1f} ms): " + ", ".join(f"{k} {v}" for k, v in c.most_common(9)))
