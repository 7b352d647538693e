#!/usr/bin/env python3
"""runs-{before,after}.tsv and wset1-{before,after}.tsv (runs.py) against the kernel's recordings (tcg55).

1. test_parent_stream_wset3.py's comparisons with each engine's 192 runs: every kernel boot that deactivates A (the
   older, -quiet and -gap sets), the engine's refaults and activations interpolated between its runs on either side
   (within 600 pages), and the runs within 300 pages (NEAR) whose activations are out; the test's guards.
2. The deactivation counts: the kernel's 15 against each engine's, quantiles and P(kernel > engine).
3. The pace, boot by boot at the -gap set's machines (seed j = boot j+1, j < 12): wset 1's and the stream's system
   time, kernel against engine.
4. The read-in of a page (wset 1's system time a page less the boot's own hot read of a cached file a page,
   calibration `file_hot_read_ns_per_page`: what a cold order-0 page costs beyond its copy: allocation, the
   init_on_alloc clear, page-cache insertion, charge, submission) in the -gap, -quiet and -pool sets, against the
   engine's (its wset 1 a page less its hot read at the boot's factors: lookup x code + copy_page x copy +
   (syscall + user) x code / 32).

usage: PYTHONPATH=python compare.py   (the recordings under scenarios/, read by test_parent_stream_wset3.recordings)"""
import csv
import os
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from test_parent_stream_wset3 import recordings as test_recordings  # noqa: E402
TOL = lambda x: max(0.10 * x, 64)  # noqa: E731  the scenarios' workingset_* tolerance
PS = "qemu612-lrugen-parent-stream"


def recordings(sub, name):
    return [{s["name"]: s["metrics"] for s in v["steps"]} for v in test_recordings(sub, name)[1]]


def tsv(name):
    with open(os.path.join(HERE, name)) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


kernel = []
for sub, name in [("validation", PS), ("validation", PS + "-quiet"), ("validation-pending", PS + "-gap")]:
    for j, m in enumerate(recordings(sub, name)):
        k = (m["stream"]["vmstat.pgdeactivate"], m["wset 3"]["memcg.workingset_refault_file"], m["wset 3"]["memcg.workingset_activate_file"])
        if k[1] > 0:
            kernel.append(((name.replace(PS, "older") if name == PS else name.replace(PS + "-", ""), j + 1),) + k)
kernel.sort(key=lambda x: x[1])
kd = [k[1] for k in kernel]
runs = {t: tsv(f"runs-{t}.tsv") for t in ("before", "after")}
print("1. test_parent_stream_wset3.py's comparisons")
for tag, rows in runs.items():
    E = [(int(r["deactivated"]), int(r["wset3_refaults"]), int(r["wset3_activations"])) for r in rows if int(r["wset3_refaults"]) > 0]
    emax = max(e[0] for e in E)
    print(f"== {tag}: {len(E)} of 192 runs deactivate (guard: >= 110), the largest {emax} (guard: >= 10,000)")
    nref = nact = 0
    for boot, d, rf, act in kernel:
        below = [e for e in E if d - 600 <= e[0] <= d]
        above = [e for e in E if d <= e[0] <= d + 600]
        s = f"  {boot[0]:6s} boot {boot[1]:2d} {d:6d} deactivated: kernel {rf:5d} refaults {act:4d} activations |"
        if below and above:
            lo, hi = max(below), min(above)
            f = lambda i: lo[i] if hi[0] == lo[0] else lo[i] + (hi[i] - lo[i]) * (d - lo[0]) / (hi[0] - lo[0])  # noqa: E731
            s += (f" interpolated {f(1):5.0f} {'ok ' if abs(f(1) - rf) <= TOL(rf) else 'OUT'} {f(2):4.0f}"
                  f" {'ok ' if abs(f(2) - act) <= TOL(act) else 'OUT'} ({lo[0]}..{hi[0]})")
            nref += 1
        else:
            s += " no run on both sides" + " " * 21
        near = [e for e in E if abs(e[0] - d) <= 300]
        nact += bool(near)
        s += f" | {len(near):2d} runs within 300, out: {[(e[0], e[2]) for e in near if abs(e[2] - act) > TOL(act)]}"
        print(s)
    print(f"  boots compared: refaults {nref} (test: 13), activations {nact} (test: 14)")

print("\n2. The deactivation counts")
print(f"  kernel's 15 (older, -quiet, -gap): {kd}")
for tag, rows in runs.items():
    d = sorted(int(r["deactivated"]) for r in rows if int(r["wset3_refaults"]) > 0)
    q = lambda p: d[int(p * (len(d) - 1))]  # noqa: E731
    u = sum((x > y) + 0.5 * (x == y) for x in kd for y in d) / (len(kd) * len(d))
    print(f"  {tag}: {len(d)} deactivate; min / quartiles / max {q(0)} {q(.25)} {q(.5)} {q(.75)} {q(1)};"
          f" the kernel's counts at the engine's quantiles {[round(sum(y < x for y in d) / len(d), 2) for x in kd]};"
          f" P(kernel > engine) {u:.3f}")
b, a = runs["before"], runs["after"]
both = [(int(y["deactivated"]) / int(x["deactivated"]), float(x["stream_sys_s"]) / float(y["stream_sys_s"]))
        for x, y in zip(b, a) if int(x["wset3_refaults"]) > 0 and int(y["wset3_refaults"]) > 0]
print(f"  seeds deactivating in both: {len(both)}; after / before pgdeactivate median {st.median(r[0] for r in both):.3f}"
      f" ({min(r[0] for r in both):.3f}-{max(r[0] for r in both):.3f}); before / after stream system time median"
      f" {st.median(r[1] for r in both):.3f}")
same = {}
for tag, rows in runs.items():
    for r in rows:
        if int(r["wset3_refaults"]) > 0:
            same.setdefault(int(r["deactivated"]), {}).setdefault(tag, set()).add((r["wset3_refaults"], r["wset3_activations"], r["wset3_pgsteal"]))
common = [d for d, v in same.items() if len(v) == 2]
print(f"  counts both engines drew: {sorted(common)}; the same wset 3 (refaults, activations, pgsteal) at"
      f" {sum(same[d]['before'] == same[d]['after'] for d in common)} of them")

print("\n3. The pace at the -gap set's machines (seed j = boot j+1): system time, engine against kernel")
gap = recordings("validation-pending", PS + "-gap")
dev = {"before": ([], []), "after": ([], [])}
for i, m in enumerate(gap):
    k1, ks = m["wset 1"]["sys_s"], m["stream"]["sys_s"]
    s = f"  boot {i + 1:2d}: wset 1 kernel {k1 / 16384 * 1e6:5.2f} us a page"
    for tag in ("before", "after"):
        e1, es = float(runs[tag][i]["wset1_sys_s"]), float(runs[tag][i]["stream_sys_s"])
        dev[tag][0].append(100 * (e1 / k1 - 1))
        dev[tag][1].append(100 * (es / ks - 1))
        s += f", {tag} {e1 / 16384 * 1e6:5.2f} ({dev[tag][0][-1]:+5.1f}%)"
    s += f" | stream kernel {ks:4.2f} s"
    for tag in ("before", "after"):
        s += f", {tag} {float(runs[tag][i]['stream_sys_s']):4.2f} ({dev[tag][1][-1]:+5.1f}%)"
    print(s)
for tag in ("before", "after"):
    print(f"  {tag}: wset 1 median {st.median(dev[tag][0]):+.1f}%, within 10% at {sum(abs(x) <= 10 for x in dev[tag][0])} of 12;"
          f" stream median {st.median(dev[tag][1]):+.1f}%, within 10% at {sum(abs(x) <= 10 for x in dev[tag][1])} of 12")

print("\n4. The read-in of a cold order-0 page (us): kernel (wset 1 a page less the boot's file hot read) against the engine")
w1 = {t: tsv(f"wset1-{t}.tsv") for t in ("before", "after")}
allk, alle = [], {"before": [], "after": []}
for name in dict.fromkeys(r["set"] for r in w1["before"]):
    ks, eb, ea, loads = [], [], [], []
    for x, y in zip(w1["before"], w1["after"]):
        if x["set"] != name:
            continue
        pages = int(x["read_bytes"]) / 4096
        code, copy = int(x["code"]), int(x["copy"])
        hot = (78 * code + 308 * copy + (169 + 137) * code / 32) / 1000
        ks.append(float(x["kernel_sys_s"]) / pages * 1e6 - float(x["file_hot_ns"]) / 1000)
        eb.append(float(x["engine_sys_s"]) / pages * 1e6 - hot)
        ea.append(float(y["engine_sys_s"]) / pages * 1e6 - hot)
        loads.append(float(x["loadavg1"]))
    allk += ks
    alle["before"] += eb
    alle["after"] += ea
    print(f"  {name} (load {min(loads)}-{max(loads)}): kernel {' '.join(f'{v:.1f}' for v in ks)} (median {st.median(ks):.1f});"
          f" engine before {min(eb):.1f}-{max(eb):.1f}, after {min(ea):.1f}-{max(ea):.1f};"
          f" nearer: before at {sum(abs(p - k) < abs(q - k) for k, p, q in zip(ks, eb, ea))}, after at {sum(abs(q - k) < abs(p - k) for k, p, q in zip(ks, eb, ea))}")
print(f"  all {len(allk)}: kernel median {st.median(allk):.1f} ({min(allk):.1f}-{max(allk):.1f}); engine before"
      f" {st.median(alle['before']):.1f}, after {st.median(alle['after']):.1f}")
