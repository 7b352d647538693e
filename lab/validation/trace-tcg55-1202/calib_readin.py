#!/usr/bin/env python3
"""The read-in of a cold page by every calibrated QEMU boot's own calibration (tcg55), against the engine's rule.

For each recording under scenarios/validation*/real/qemu*.json (its first variant) whose calibration has a split
(code_slowdown <= 9, copy_slowdown <= 32: the unstalled boots) and a submit_io_slowdown: the calibration's cold read
of a file on the scenario's disk (`cold_read_ns_per_page`, wall time, 128 KiB reads after POSIX_FADV_DONTNEED, best
of 3) less its hot read of the same file (`file_hot_read_ns_per_page`), against the engine's read-in of an order-0
page at those factors: (add_page 484 + charge 110) x code + submit_io 16,000 x submit / 32 + clear_page x copy, the
clear at 150 (before) or copy_page's 308 (after, tcg-clear-copy.patch). Grouped by guest kernel and file system.

usage: calib_readin.py"""
import glob
import json
import os
import statistics as st

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
rows = {}
for p in sorted(glob.glob(os.path.join(ROOT, "scenarios", "validation*", "real", "qemu*.json"))):
    with open(p) as fh:
        d = json.load(fh)
    r = next(iter(d["variants"].values())).get("real", {})
    c = r.get("machine", {}).get("cpu", {})
    if not {"cold_read_ns_per_page", "file_hot_read_ns_per_page", "code_slowdown", "submit_io_slowdown"} <= c.keys():
        continue
    k, cp, sb = c["code_slowdown"], c["copy_slowdown"], c["submit_io_slowdown"]
    if k > 9 or cp > 32:
        continue
    kin = (c["cold_read_ns_per_page"] - c["file_hot_read_ns_per_page"]) / 1000
    base = (484 + 110) * k + 16000 * sb / 32
    key = (r["kernel"].split("+")[0].split("-")[0], r["machine"]["disk"].split()[0])
    rows.setdefault(key, []).append((kin, (base + 150 * cp) / 1000, (base + 308 * cp) / 1000, r["loadavg"][0], os.path.basename(p)))
for (kernel, fs), v in sorted(rows.items()):
    ks = [x[0] for x in v]
    nb = sum(abs(x[1] - x[0]) < abs(x[2] - x[0]) for x in v)
    print(f"{kernel} {fs}: {len(v)} boots, load {min(x[3] for x in v)}-{max(x[3] for x in v)}; read-in by the calibration"
          f" median {st.median(ks):.1f} us a page ({min(ks):.1f} to {max(ks):.1f}); the engine's rule before median"
          f" {st.median(x[1] for x in v):.1f}, after {st.median(x[2] for x in v):.1f}; nearer before at {nb}, after at {len(v) - nb}")
    print("   " + ", ".join(sorted({x[4].split("-boot")[0].removesuffix(".json") for x in v})))
