"""For information only (cmp857, 2026-12-02; no verdict rests on it, trio-v857/RULE.md 4 decides on all twelve):
the cat (host-ext4-tight-ra8192) against the eleven v857a recordings that carry the lone window (all but 5, which
caught none), so validate gives each run its lone window and spans instead of the whole-run window it gives the
twelve (lone-window-rule.md (b)). Seeds B..B+10 (B = the argument, 0 = validate's own).

    PYTHONPATH=$PWD/python python3 lab/validation/trio-v857/info_cat11.py OUTDIR [B]
"""
import os
import re
import shutil
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from memtwin.validate import validate_file  # noqa: E402

NAME = "host-ext4-tight-ra8192"
out, base = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
src = next(p for p in (os.path.join(ROOT, "scenarios", d, NAME + ".toml") for d in ("validation-pending", "validation")) if os.path.exists(p))
d = os.path.join(out, f"cat11-seed{base}")
os.makedirs(d + "/real", exist_ok=True)
files = [f"real/{NAME}-v857a{i}.json" for i in range(1, 13) if i != 5]
for f in files:
    shutil.copy(os.path.join(os.path.dirname(src), f), os.path.join(d, f))
with open(src) as f:
    text = re.sub(r"recorded = \[[^\]]*\]", "recorded = [" + ", ".join(f'"{x}"' for x in files) + "]", f.read())
with open(d + "/s.toml", "w") as f:
    f.write(text)
rows, _, _ = validate_file(d + "/s.toml", "host", True, out=lambda s: None, boot_seed_base=base)
for r in rows:
    fig = f"{r.sim:.0f}/{r.real:.0f}" if r.metric == "resident_pages" else f"{r.sim / 1e6:.1f}/{r.real / 1e6:.1f} MB"
    print(f"{NAME} eleven recordings with the lone window, seeds {base}-{base + len(files) - 1} | {r.step} {r.metric}"
          f" {fig} {(r.sim - r.real) / r.real * 100:+.1f}% {'ok' if r.ok else 'OUT'}"
          + (f" | runs MB: {[round(x / 1e6) for x in r.sims]}" if r.metric == "read_bytes" else ""))
