#!/usr/bin/env python3
"""queue-v669-rule.md 3 on the host-queue scenarios compared with the v669 idle sets: validate at the boot seed
blocks 6-11, 12-17, 18-23, and with every recording's host costs scaled by 0.97-1.03, one scaling at a time, in
three groups (the read costs, the device window, the reclaim call). Prints, per run, the rows out of tolerance
that are not known outs, and the known-out rows that came within (validate would refuse those).

Run from the repository root: PYTHONPATH=$PWD/python python3 lab/validation/check_queue_v669.py [NAME...]
"""
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile

from memtwin.validate import validate_file

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios")
NAMES = ["validation-pending/host-queue-read-msk-idle", "validation-pending/host-queue-read-ra128-idle", "validation/host-queue-rw-msk",
         "validation-pending/host-queue-rw-rand-idle", "validation-pending/host-queue-rw-seq-unthrottled",
         "validation-pending/host-queue-rw-wbt-unthrottled"]
GROUPS = {"read": ("read_ns_by_order",), "window": ("device_window_ns", "device_lone_window_ns"), "reclaim": ("reclaim_call_ns",)}
SCALES = (0.97, 0.98, 0.99, 1.01, 1.02, 1.03)


def scaled(r, group, scale):
    for v in r["variants"].values():
        hc = v["real"]["machine"].get("host_cost") or {}
        for k in GROUPS[group]:
            if k == "read_ns_by_order" and isinstance(hc.get(k), dict):
                hc[k] = {o: max(1, round(ns * scale)) for o, ns in hc[k].items()}
            elif isinstance(hc.get(k), int):
                hc[k] = max(1, round(hc[k] * scale))
    return r


def run(name, group=None, scale=None, base=0):
    src = os.path.join(ROOT, name + ".toml")
    text = open(src).read()
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "real"))
        shutil.copy(src, os.path.join(d, "s.toml"))
        for f in re.findall(r'"(real/[^"]+\.json)"', text):
            r = json.load(open(os.path.join(os.path.dirname(src), f)))
            if group:
                r = scaled(r, group, scale)
            json.dump(r, open(os.path.join(d, f), "w"))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rows, checks, skipped = validate_file(os.path.join(d, "s.toml"), "host", True, out=lambda s: None,
                                                  boot_seed_base=base)
    lines = []
    for r in rows:
        if r.sim is None or r.real is None:
            continue
        out, known = not r.ok, r.known
        if out and not known:
            lines.append(f"OUT   {r.variant} {r.step} {r.metric} {r.sim:.4g} vs {r.real:.4g} ({(r.sim - r.real) / r.real * 100 if r.real else 0:+.1f}%)")
        elif known and not out:
            lines.append(f"KNOWN-WITHIN {r.variant} {r.step} {r.metric} {r.sim:.4g} vs {r.real:.4g}")
    tag = f"seed {base}" if not group else f"{group} x{scale}"
    print(f"{name} {tag}: {len(lines)}")
    for ln in lines:
        print("   ", ln)
    sys.stdout.flush()
    return lines


if __name__ == "__main__":
    for name in sys.argv[1:] or NAMES:
        for base in (0, 6, 12, 18):
            run(name, base=base)
        for g in GROUPS:
            for s in SCALES:
                run(name, g, s)
