"""hogk23: host-set-rule.md 3 / stall23c-rule.md 4 on host-stall-hog-swap against its compared set: validate's default
comparison, the engine's boot seeds offset (blocks at 6, 12, 18), the anonymous costs (anon_fault_ns, clear_page_ns,
zap_page_ns) scaled together in copies of every recording, and the throttle's rates (devices.sda read_bw, write_bw)
scaled together in a copy of the scenario; one change at a time.
Run from the worktree: PYTHONPATH=$PWD/python python3 lab/validation/trace-hog-swap-1130/hogk23/robust.py [SCRATCH]"""
import contextlib
import io
import json
import os
import re
import shutil
import sys

from memtwin.validate import validate_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
SRC = os.path.join(ROOT, "python", "memtwin", "scenarios", "validation-pending", "host-stall-hog-swap.toml")
SCRATCH = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hogk23/robust"
SCALES = (0.97, 0.98, 0.99, 1.01, 1.02, 1.03)
MIB = 1024 * 1024


def run(label, cost=None, bw=None, base=0):
    d = os.path.join(SCRATCH, label)
    os.makedirs(d + "/real", exist_ok=True)
    text = open(SRC).read()
    if bw:
        for key, mib in (("read_bw", 200), ("write_bw", 150)):
            old = f'{key} = "{mib}M"'
            assert old in text, old
            text = text.replace(old, f'{key} = {round(mib * MIB * bw)}', 1)
    open(d + "/s.toml", "w").write(text)
    for f in re.findall(r'"(real/[^"]+\.json)"', text.split("[validation]", 1)[1]):
        r = json.load(open(os.path.join(os.path.dirname(SRC), f)))
        if cost:
            for v in r["variants"].values():
                hc = v["real"]["machine"]["host_cost"]
                for k in ("anon_fault_ns", "clear_page_ns", "zap_page_ns"):
                    hc[k] = max(1, round(hc[k] * cost))
        json.dump(r, open(os.path.join(d, f), "w"))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rows, checks, skipped = validate_file(d + "/s.toml", "host", True, out=lambda s: None, boot_seed_base=base)
    outs = []
    for r in rows:
        if r.sim is None or r.real is None:
            continue
        if abs(r.sim - r.real) > max(r.rel * abs(r.real), r.abs):
            pct = f"{(r.sim - r.real) / r.real * 100:+.1f}%" if r.real else "abs"
            outs.append(f"{r.step} {r.metric} {r.sim:.6g} vs {r.real:.6g} ({pct})")
    print(f"{label}: {len(outs)} out of {len(rows)}")
    for line in outs:
        print("   ", line)
    sys.stdout.flush()
    shutil.rmtree(d)
    return outs


if __name__ == "__main__":
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    if which in ("all", "seeds"):
        for base in (0, 6, 12, 18):
            run(f"seeds{base}", base=base)
    if which in ("all", "cost"):
        for s in SCALES:
            run(f"anon{s}", cost=s)
    if which in ("all", "bw"):
        for s in SCALES:
            run(f"bw{s}", bw=s)
