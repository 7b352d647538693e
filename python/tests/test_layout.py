"""What the commands print fits 100 columns and is the same bytes run to run: `compare` on every
seed (seed 004's dozens of variants in blocks), `validate`'s tables, `real`'s table; figures are
printed as integers or decimals, never as 6.71089e+07."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import cli_run

ROOT = Path(__file__).resolve().parents[2]
# seed 002 (scenarios/wip) takes about 40 s: `memtwin reproduce` prints it, through the same code
SEEDS = sorted(ROOT.glob("scenarios/seed*.toml")) + [ROOT / "scenarios" / "wip" / "seed004-dir-clean.toml"]
WALL = re.compile(r"simulated in \d+\.\d\d s")
EXP = re.compile(r"\d\.\d+e[+-]\d\d")


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_compare_fits_100_columns_and_is_the_same_every_run(capsys, path):
    code, out, err = cli_run(capsys, "compare", path)
    assert code in (0, 1), err
    too_wide = [ln for ln in out.splitlines() if len(ln) > 100]
    assert not too_wide, too_wide[:3]
    code, again, _ = cli_run(capsys, "compare", path)
    assert WALL.sub("", out) == WALL.sub("", again)


def test_seed004_prints_every_variant_in_blocks(capsys):
    import memtwin

    path = ROOT / "scenarios" / "wip" / "seed004-dir-clean.toml"
    variants = [v for v, _ in memtwin.load(path).variants()]
    _, out, _ = cli_run(capsys, "compare", path)
    lines = out.splitlines()
    heads = [ln.split() for i, ln in enumerate(lines[:-1])
             if lines[i + 1].split() and set(lines[i + 1].split()) <= {"simulated", "published"}]
    assert [v for h in heads for v in h] == variants
    assert len(heads) > 1


def test_validate_fits_100_columns_and_prints_integers(capsys):
    files = sorted(ROOT.glob("scenarios/validation/host-*.toml"))
    code, out, err = cli_run(capsys, "validate", "--recorded", *files)
    assert code == 0, out + err
    too_wide = [ln for ln in out.splitlines() if len(ln) > 100]
    assert not too_wide, too_wide[:3]
    assert not EXP.search(out), EXP.search(out).group(0)
    row = next(ln for ln in out.splitlines() if ln.split()[:2] == ["read", "1"] and "read_bytes" in ln)
    assert re.search(r"read_bytes\s+\d+\s+\d+\s+[+-]\d+ \([+-]\d+\.\d%\)\s+10% or \d+\s+ok$", row), row


def test_real_table_fits_100_columns_and_prints_integers(capsys):
    from memtwin import cli

    res = {"real": {"kernel": "6.1.0", "on": "qemu", "date": "2026-11-22", "timing_comparable": False,
                    "notes": ["a note long enough to be wrapped at one hundred characters, " * 3]},
           "steps": [{"name": "read 1", "metrics": {"elapsed_s": 1.234567, "read_bytes": 67108864.0,
                                                    "memcg.usage_bytes": 20905984, "memcg.file_bytes": 20905984,
                                                    "meminfo.Cached_kB": 65536.0, "cgroup.nr_dying_descendants": 0},
                      "resident_pages": {"/data/f": 16384}}]}
    cli._print_real({"name": "s"}, "v", res)
    out = capsys.readouterr().out
    assert max(len(ln) for ln in out.splitlines()) <= 100
    assert "67108864" in out and "6.71089e+07" not in out and not EXP.search(out)
    assert "1.2346" in out and "16384" in out
