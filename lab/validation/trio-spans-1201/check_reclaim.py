"""reclaim-spans-rule.md 3 (with spans-rule.md 3): the throttled ra8192 trio against the set NAME-v669r1..6
(the lead's quiet set of 2026-12-01 05:01-05:10 UTC, /work/quiet/s50/trio/, copied byte-identical into each
scenario's real/), cmp21, 2026-12-01. A copy of check_spans.py that also scales the reclaim spans (item 3 (c)).

validate_file on a copy of each scenario pointed at the set: at validate's inputs (seeds 0-5), at the boot seed
blocks 6-11, 12-17, 18-23, with every recording's device input (`device_lone_window_ns` AND every span of
`device_lone_window_spans_ns`) scaled by 0.97..1.03, and with every recording's reclaim spans
(`scenario_reclaim_call_spans_ns`) AND their median (`scenario_reclaim_call_ns`) scaled by 0.97..1.03 (seeds 0-5),
one scaling at a time over every recording (a recording without them is left as it is).

    PYTHONPATH=$PWD/python python3 lab/validation/trio-spans-1201/check_reclaim.py OUTDIR NAME POINT...

The set's tag is `v669r` unless CHECK_SET names another (cmp21b, 2026-12-01: `CHECK_SET=v669t` for the lead's
quiet set of 08:02-08:08 UTC, /work/quiet/s51/trio/; the code is otherwise unchanged). cmp1045 (2026-12-01): any
build's set tag (`CHECK_SET=v1045a`, the lead's twelve quiet rounds on 6.18.44-fc-v1045, trio-v1045/RULE.md), and
the set's recordings are real/NAME-TAG1..n.json for every n present from 1 on (six for the v669 sets, twelve for
v1045a), so validate runs seeds 0..n-1 and a seed block `seedB` seeds B..B+n-1; otherwise unchanged. cmp857
(2026-12-02, `CHECK_SET=v857a`): a `devS` point scales the device input validate gives (lone-window-rule.md 1 and
its amendment (b), validate.one_window_kind): the lone window and its spans where every recording has the lone
window (as before), else every recording's whole-run window (`device_window_ns`), which is then what every run is
given (v857a's cat: its recording 5 caught no lone window); each line says which, and in how many recordings the
lone window is.

POINT: `in` (validate's inputs), `seed6`/`seed12`/`seed18`, `dev0.97` .. `dev1.03`, `rec0.97` .. `rec1.03`, or
`all`. One line per point: every pass's read_bytes (engine median, kernel median, difference), every metric out of
tolerance (validate's own verdict, Row.ok), and whether validate gave the reclaim spans (reclaim-spans-rule.md 2:
only where every recording carries them).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from memtwin.validate import validate_file  # noqa: E402

TAG = os.environ.get("CHECK_SET", "v669r")
if not re.fullmatch(r"v[0-9]+[a-z]", TAG):
    raise SystemExit(f"CHECK_SET={TAG!r}: a set tag such as v669t or v1045a (real/NAME-TAG1..n.json)")
SCALINGS = (0.97, 0.98, 0.99, 1.01, 1.02, 1.03)
ALL = ["in", "seed6", "seed12", "seed18"] + [f"dev{s}" for s in SCALINGS] + [f"rec{s}" for s in SCALINGS]


def scenario(name):
    for d in ("validation-pending", "validation"):
        p = os.path.join(ROOT, "scenarios", d, name + ".toml")
        if os.path.exists(p):
            return p
    raise SystemExit(f"no scenario {name}")


def run(out, name, point):
    base, dev, rec = 0, None, None
    if point.startswith("seed"):
        base = int(point[4:])
    elif point.startswith("dev"):
        dev = float(point[3:])
    elif point.startswith("rec"):
        rec = float(point[3:])
    elif point != "in":
        raise SystemExit(f"bad point {point!r}: one of {', '.join(ALL)}")
    d = os.path.join(out, f"{name}-{point}")
    os.makedirs(d + "/real", exist_ok=True)
    text = open(scenario(name)).read()
    n = 0
    while os.path.exists(os.path.join(os.path.dirname(scenario(name)), f"real/{name}-{TAG}{n + 1}.json")):
        n += 1
    if not n:
        raise SystemExit(f"{scenario(name)}: no real/{name}-{TAG}1.json: copy the set {TAG} into real/ first")
    files = [f"real/{name}-{TAG}{i}.json" for i in range(1, n + 1)]
    text = re.sub(r"recorded = \[[^\]]*\]", "recorded = [" + ", ".join(f'"{f}"' for f in files) + "]", text)
    open(d + "/s.toml", "w").write(text)
    given = 0
    reals = [json.load(open(os.path.join(os.path.dirname(scenario(name)), f))) for f in files]
    lone = sum(all("device_lone_window_ns" in v["real"]["machine"]["host_cost"] for v in r["variants"].values()) for r in reals)
    for f, r in zip(files, reals):
        for v in r["variants"].values():
            hc = v["real"]["machine"]["host_cost"]
            if dev and lone == n:
                hc["device_lone_window_ns"] = round(hc["device_lone_window_ns"] * dev)
                hc["device_lone_window_spans_ns"] = [round(x * dev) for x in hc["device_lone_window_spans_ns"]]
            elif dev:
                hc["device_window_ns"] = round(hc["device_window_ns"] * dev)
            if "scenario_reclaim_call_spans_ns" in hc:
                given += 1
                if rec:
                    hc["scenario_reclaim_call_spans_ns"] = [round(x * rec) for x in hc["scenario_reclaim_call_spans_ns"]]
                    hc["scenario_reclaim_call_ns"] = round(hc["scenario_reclaim_call_ns"] * rec)
        json.dump(r, open(d + "/" + f, "w"))
    rows, _, _ = validate_file(d + "/s.toml", "host", True, out=lambda s: None, boot_seed_base=base)
    rb = [f"{r.step} {r.sim / 1e6:.0f}/{r.real / 1e6:.0f} {(r.sim - r.real) / r.real * 100:+.1f}%" for r in rows if r.metric == "read_bytes"]
    outs = [f"{r.step} {r.metric} {(r.sim - r.real) / r.real * 100 if r.real else 0:+.1f}%" for r in rows if not r.ok]
    sims = {r.step: [round(x / 1e6) for x in r.sims] for r in rows if r.metric == "read_bytes"}
    window = "" if lone == n else f" | lone window in {lone}/{n} recordings (given: no; the whole-run window is)"
    print(name, point, f"| reclaim spans in {given}/{n} recordings (given: {'yes' if given == n else 'no'}){window}",
          "| read_bytes engine/kernel MB:", ", ".join(rb), "| OUT:", "; ".join(outs) or "none",
          "| runs MB:", json.dumps(sims), flush=True)


if __name__ == "__main__":
    out, name, points = sys.argv[1], sys.argv[2], sys.argv[3:]
    for p in (ALL if points == ["all"] else points):
        run(out, name, p)
