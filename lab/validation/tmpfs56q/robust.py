#!/usr/bin/env python3
"""host-set-rule.md 2-3 for the host-tmpfs-tight scenarios against the s56 quiet set (real/NAME-s56q1..6.json beside the
scenario: scenarios/validation/real/ since s56/s59, scenarios/validation-pending/real/ before): validate's comparison at its inputs (`in`), at the engine's boot seeds offset
(`seed6`, `seed12`, `seed18`: blocks of six), and with each measured host cost validate gives the engine scaled by
0.97/0.98/0.99/1.01/1.02/1.03 over every recording, one group at a time: the reader's cost (`read_ns_by_order`), the
device window (`device_window_ns`), the anonymous costs (`anon_fault_ns`, `clear_page_ns`, `zap_page_ns`).

usage (repository root): PYTHONPATH=python python3 lab/validation/tmpfs56q/robust.py OUTDIR NAME [POINT ...|all]
Prints one line a point: the compared rows out of tolerance (step metric engine/kernel diff%), or none."""
import json, os, re, sys

from memtwin.validate import validate_file

TAG, N = "s56q", 6
GROUPS = {"reader": ("read_ns_by_order",), "device": ("device_window_ns",), "anon": ("anon_fault_ns", "clear_page_ns", "zap_page_ns")}
FACTORS = (0.97, 0.98, 0.99, 1.01, 1.02, 1.03)
ALL = ["in", "seed6", "seed12", "seed18"] + [f"{g}{f}" for g in GROUPS for f in FACTORS]
PENDING = os.path.join("scenarios", "validation-pending")
VALIDATION = os.path.join("scenarios", "validation")


def scaled(v, f):
    if isinstance(v, dict):
        return {k: round(x * f) for k, x in v.items()}
    return round(v * f)


def run(out, name, point):
    base, group, f = 0, None, 1.0
    if point.startswith("seed"):
        base = int(point[4:])
    elif point != "in":
        m = re.fullmatch(r"([a-z]+)([0-9.]+)", point)
        if not m or m.group(1) not in GROUPS:
            raise SystemExit(f"bad point {point!r}: one of {', '.join(ALL)}")
        group, f = m.group(1), float(m.group(2))
    d = os.path.join(out, f"{name}-{point}")
    os.makedirs(d + "/real", exist_ok=True)
    sdir = VALIDATION if os.path.exists(os.path.join(VALIDATION, name + ".toml")) else PENDING
    text = open(os.path.join(sdir, name + ".toml")).read()
    files = [f"real/{name}-{TAG}{i}.json" for i in range(1, N + 1)]
    text = re.sub(r"^recorded = .*$", "recorded = [" + ", ".join(f'"{x}"' for x in files) + "]", text, flags=re.M)
    open(d + "/s.toml", "w").write(text)
    for x in files:
        r = json.load(open(os.path.join(sdir, x)))
        for v in r["variants"].values():
            hc = v["real"]["machine"]["host_cost"]
            for k in GROUPS.get(group, ()):
                if k in hc:
                    hc[k] = scaled(hc[k], f)
        json.dump(r, open(os.path.join(d, x), "w"))
    rows, _, _ = validate_file(d + "/s.toml", "host", True, out=lambda s: None, boot_seed_base=base)
    outs = [f"{r.step} {r.metric} {r.sim:.0f}/{r.real:.0f} {(r.sim - r.real) / r.real * 100 if r.real else 0:+.1f}%" for r in rows if not r.ok]
    print(name, point, f"| {len(rows)} rows | OUT:", "; ".join(outs) or "none", flush=True)


if __name__ == "__main__":
    out, name, points = sys.argv[1], sys.argv[2], sys.argv[3:]
    for p in (ALL if points == ["all"] else points):
        run(out, name, p)
