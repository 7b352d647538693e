"""What a newcomer meets first: error messages that name what they typed, integer counts,
outputs that are readable and all-or-nothing, and SIGTERM handled as Ctrl-C is. Each test
failed before its fix (issue: a newcomer's first hour and every bad input)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import memtwin
from conftest import cli_run

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
STUTTER = ROOT / "scenarios" / "wip" / "seed002-stutter.toml"


def test_compare_variants_names_the_flag_as_typed_and_every_unknown_variant(capsys):
    code, out, err = cli_run(capsys, "compare", SEED, "--variants", "x,baseline,y")
    assert code == 2 and out == ""
    assert err.startswith("--variants x,baseline,y: error: ") and "no variant `x`, `y`" in err
    assert "fix: use some of: baseline, recharge" in err and "--variant " not in err


def test_compare_variants_on_a_scenario_without_variants(capsys):
    code, out, err = cli_run(capsys, "compare", ROOT / "scenarios" / "validation" / "host-first-reader.toml", "--variants", "a")
    assert code == 2 and "declares no variants" in err and "run without --variants" in err


def test_compare_variants_named_twice(capsys):
    code, out, err = cli_run(capsys, "compare", SEED, "--variants", "baseline,baseline")
    assert code == 2 and "baseline named twice" in err


def test_scenario_error_str_is_the_message_and_errors_are_listed():
    with pytest.raises(memtwin.ScenarioError) as ei:
        memtwin.run(SEED, variant="zz")
    e = ei.value
    assert str(e) == f"--variant zz: error: {SEED} has no variant `zz`\n  fix: use one of: baseline, recharge"
    assert e.errors == [("--variant zz", f"{SEED} has no variant `zz`", "use one of: baseline, recharge")]


def test_counts_stay_integers_in_steps_and_json(tmp_path, capsys):
    r = memtwin.run(SEED, variant="baseline")
    assert str(r.steps["read_bytes"].dtype) == "int64" and str(r.steps["memcg.usage_bytes"].dtype) == "int64"
    assert str(r.steps["elapsed_s"].dtype) == "float64"
    assert int(r.steps.loc["read 1", "read_bytes"]) == 1 << 30
    out = tmp_path / "r.json"
    code, _, err = cli_run(capsys, "run", SEED, "--json", out)
    assert code == 0, err
    text = out.read_text()
    assert '"read_bytes": 1073741824,' in text and "1073741824.0" not in text
    assert isinstance(json.loads(text)["variants"]["default"]["steps"][0]["metrics"]["pagecache_miss_pages"], int)


def test_json_output_takes_the_umask_mode(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        code, _, err = cli_run(capsys, "run", SEED, "--json", tmp_path / "r.json")
    finally:
        os.umask(old)
    assert code == 0, err
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644


def test_a_failed_run_leaves_no_empty_plot_directory(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(SEED.read_text().replace('ram = "16G"', 'ram = "lots"'))
    plots = tmp_path / "new" / "plots"
    code, out, err = cli_run(capsys, "run", bad, "--plot", plots)
    assert code == 2 and "ram" in err
    assert not (tmp_path / "new").exists(), "the directories it created for the plots are removed again"


@pytest.mark.parametrize("cmd", [["compare", str(STUTTER)], ["reproduce", "--only", "002"]])
def test_sigterm_mid_run_says_so_exits_143_and_leaves_nothing(tmp_path, cmd):
    out_dir = tmp_path / "fresh" / "out"
    args = cmd + (["--plot", str(out_dir), "--json", str(tmp_path / "r.json")] if cmd[0] == "compare" else ["--out", str(out_dir)])
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=tmp_path)
    try:
        t0 = time.monotonic()
        while not out_dir.exists() and time.monotonic() - t0 < 60 and p.poll() is None:
            time.sleep(0.05)
        assert out_dir.exists(), "the output directory is made before the runs"
        time.sleep(1.0)  # inside seed 002's first variant (about 20 s)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "Traceback" not in err
    assert not (tmp_path / "fresh").exists() and not (tmp_path / "r.json").exists()
    assert [f.name for f in tmp_path.iterdir()] == [], "no temporary file either"
