"""spans-rule.md 3: the throttled ra8192 trio against trio-spans-1201 (v669s1..6) with each run's lone-window
spans (spans21, 2026-12-01). validate_file on a copy of each scenario pointed at the set, at validate's inputs,
at the boot seed blocks 6-11, 12-17, 18-23, and with every recording's device input (the lone median
`device_lone_window_ns` AND every span of `device_lone_window_spans_ns`) scaled by 0.97..1.03 (seeds 0-5).

    PYTHONPATH=$PWD/python python3 lab/validation/trio-spans-1201/check_spans.py OUTDIR [NAME...]

One line per comparison: every pass's read_bytes (engine median, kernel median, difference), then every metric
out of tolerance (validate's own verdict, Row.ok). Last, for information only (spans-rule.md 3), the median of
the 24 engine runs of the four seed blocks per pass against the set's median.
"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from memtwin.validate import validate_file  # noqa: E402

OUT = sys.argv[1]
NAMES = sys.argv[2:] or ["host-ext4-seq-tight-512m-ra8192", "host-ext4-seq-tight-1g-ra8192", "host-ext4-tight-ra8192"]
SCALINGS = (0.97, 0.98, 0.99, 1.01, 1.02, 1.03)


def scenario(name):
    for d in ("validation-pending", "validation"):
        p = os.path.join(ROOT, "scenarios", d, name + ".toml")
        if os.path.exists(p):
            return p
    raise SystemExit(f"no scenario {name}")


def run(name, scale=None, base=0):
    d = os.path.join(OUT, f"{name}-s{scale}-{base}")
    os.makedirs(d + "/real", exist_ok=True)
    text = open(scenario(name)).read()
    files = [f"real/{name}-v669s{i}.json" for i in range(1, 7)]
    text = re.sub(r"recorded = \[[^\]]*\]", "recorded = [" + ", ".join(f'"{f}"' for f in files) + "]", text)
    open(d + "/s.toml", "w").write(text)
    for f in files:
        r = json.load(open(os.path.join(os.path.dirname(scenario(name)), f)))
        if scale:
            for v in r["variants"].values():
                hc = v["real"]["machine"]["host_cost"]
                hc["device_lone_window_ns"] = round(hc["device_lone_window_ns"] * scale)
                hc["device_lone_window_spans_ns"] = [round(x * scale) for x in hc["device_lone_window_spans_ns"]]
        json.dump(r, open(d + "/" + f, "w"))
    rows, _, _ = validate_file(d + "/s.toml", "host", True, out=lambda s: None, boot_seed_base=base)
    rb = [f"{r.step} {r.sim / 1e6:.0f}/{r.real / 1e6:.0f} {(r.sim - r.real) / r.real * 100:+.1f}%" for r in rows if r.metric == "read_bytes"]
    outs = [f"{r.step} {r.metric} {(r.sim - r.real) / r.real * 100 if r.real else 0:+.1f}%" for r in rows if not r.ok]
    tag = "inputs" if scale is None and base == 0 else (f"seeds {base}-{base + 5}" if scale is None else f"x{scale}")
    print(name, tag, "| read_bytes engine/kernel MB:", ", ".join(rb), "| OUT:", "; ".join(outs) or "none", flush=True)
    return rows


for n in NAMES:
    blocks = [run(n)] + [run(n, None, b) for b in (6, 12, 18)]
    for s in SCALINGS:
        run(n, s)
    pooled = []
    for k, r in enumerate(blocks[0]):
        if r.metric != "read_bytes":
            continue
        sims = [x for b in blocks for x in b[k].sims]
        m = statistics.median(sims)
        pooled.append(f"{r.step} {m / 1e6:.0f}/{r.real / 1e6:.0f} {(m - r.real) / r.real * 100:+.1f}%")
    print(n, "information only: median of 24 runs (seeds 0-23) read_bytes:", ", ".join(pooled), flush=True)
