"""`memtwin reproduce`: the HTML report (self-contained, one section per seed, published figures,
embedded PNG plots), --check, --only, --scenarios, output-directory errors, and
`run/compare --plot`."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memtwin.cli import main
from conftest import cli_run
import memtwin
from memtwin.report import fmt_value

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
PNG_SIG = b"\x89PNG\r\n\x1a\n"
IMG_RE = re.compile(r'<img[^>]*\ssrc="([^"]*)"')




@pytest.fixture(scope="module")
def report_000_003(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce") / "deep" / "dir"  # created if missing
    code = main(["reproduce", "--only", "000", "003", "--out", str(out)])
    assert code == 0
    return out / "report.html"


def _sections(html: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)">', html)


def test_report_has_one_section_per_seed(report_000_003):
    html = report_000_003.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert _sections(html) == ["seed000-memcg-reread", "seed003-dying-cgroups"]
    # the one-sentence description: the scenario's own and its variants'
    assert "A 1 GiB file read twice by cat in a memcg limited to 20M: is the second read cached?" in html
    assert "recharge: the RFC: limit reclaim uncharges clean page cache and keeps it" in html
    assert "release: the series: percpu statistics flushed to atomics and freed at offline" in html
    assert html.count('class="pass"') == 9 and 'class="fail"' not in html


def test_report_images_are_embedded_pngs(report_000_003):
    html = report_000_003.read_text(encoding="utf-8")
    srcs = IMG_RE.findall(html)
    assert len(srcs) >= 3  # seed 000: 2 plots, seed 003: 1
    for src in srcs:
        assert src.startswith("data:image/png;base64,")
        data = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert len(data) > 1000 and data.startswith(PNG_SIG)


def test_report_works_offline(report_000_003):
    html = report_000_003.read_text(encoding="utf-8")
    assert not re.search(r"https?://", html)
    assert "<link" not in html and "<script" not in html


def test_report_tables_contain_the_published_figures(report_000_003):
    import memtwin

    html = report_000_003.read_text(encoding="utf-8")
    for name in ("seed000-memcg-reread", "seed003-dying-cgroups"):
        part = html.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]
        # every block of the table (the variants go to further blocks when they do not fit)
        table = "".join(t.split("</table>", 1)[0] for t in part.split("<table>")[1:])
        figures = memtwin.load(SCENARIOS / f"{name}.toml").published["figures"]
        n = 0
        for steps in figures.values():
            for ms in steps.values():
                for v in ms.values():
                    assert f'<td class="num pub">{fmt_value(float(v))}</td>' in table
                    n += 1
        assert n >= 8


def test_reproduce_prints_tables_targets_and_wall_times(capsys, tmp_path):
    code, out, err = cli_run(capsys, "reproduce", "--only", "3", "--out", tmp_path)
    assert code == 0, err
    assert "after 1000 dying  meminfo.Percpu_kB" in out
    assert "PASS  release: Percpu after, within 10%" in out
    assert re.search(r"seed003-dying-cgroups: 2 variants simulated in \d+\.\d\d s \(wall time\)", out)
    assert err.splitlines() == ["[1/1] seed003-dying-cgroups: running 2 variants"]
    assert (tmp_path / "report.html").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def test_check_passes_now(capsys, tmp_path):
    code, out, err = cli_run(capsys, "reproduce", "--only", "000", "003", "--check", "--out", tmp_path)
    assert code == 0, out + err
    assert "9 target(s): 9 met, 0 missed" in out


def test_check_fails_on_a_tightened_target(capsys, tmp_path):
    scn = tmp_path / "scn"
    scn.mkdir()
    for f in SCENARIOS.glob("seed*.toml"):
        shutil.copy(f, scn / f.name)
    p = scn / "seed003-dying-cgroups.toml"
    text = p.read_text()
    assert "max = 0.6\n" in text
    p.write_text(text.replace("max = 0.6\n", "max = 0.1\n"))
    out_dir = tmp_path / "out"
    code, out, err = cli_run(capsys, "reproduce", "--scenarios", scn, "--only", "003", "--check", "--out", out_dir)
    assert code == 1
    assert "1 missed" in out
    assert "MISSED  seed003-dying-cgroups: release: a dying memcg costs about half as much Percpu" in out
    html = (out_dir / "report.html").read_text()  # the report is still written
    assert 'class="fail"' in html
    # without --check the same run exits 0
    code, _, _ = cli_run(capsys, "reproduce", "--scenarios", scn, "--only", "003", "--out", out_dir)
    assert code == 0


def test_only_unknown_seed(capsys, tmp_path, sim_calls):
    code, out, err = cli_run(capsys, "reproduce", "--only", "000", "042", "--out", tmp_path)
    assert code == 2
    assert "--only 042: error: no scenario for seed 042" in err
    assert "fix: use one of: 000, 001, 002, 003, 004" in err, "the work-in-progress seeds count too"
    assert sim_calls == [] and not (tmp_path / "report.html").exists()


def test_work_in_progress_seeds_are_included_and_marked(capsys, tmp_path):
    # A scenarios directory with one seed and one work-in-progress seed (both seed 003's,
    # which runs in a fraction of a second).
    scn = tmp_path / "scn"
    (scn / "wip").mkdir(parents=True)
    shutil.copy(SCENARIOS / "seed003-dying-cgroups.toml", scn)
    shutil.copy(SCENARIOS / "seed003-dying-cgroups.toml", scn / "wip" / "seed005-draft.toml")
    code, out, _ = cli_run(capsys, "reproduce", "--scenarios", scn, "--out", tmp_path / "out")
    assert code == 0
    assert out.count("WORK IN PROGRESS") == 1
    html = (tmp_path / "out" / "report.html").read_text()
    assert html.count('<p class="wip">') == 1 and "(work in progress)" in html
    assert len(_sections(html)) == 2
    code, out, _ = cli_run(capsys, "reproduce", "--scenarios", scn, "--no-wip", "--out", tmp_path / "out2")
    assert code == 0 and "WORK IN PROGRESS" not in out
    assert len(_sections((tmp_path / "out2" / "report.html").read_text())) == 1


def _tightened_003() -> str:
    text = (SCENARIOS / "seed003-dying-cgroups.toml").read_text()
    assert "max = 0.6\n" in text
    return text.replace("max = 0.6\n", "max = 0.1\n")


def test_check_counts_the_misses_of_finished_scenarios_only(capsys, tmp_path):
    # The same tightened seed-003 target, once in wip/ and once as a finished scenario.
    scn = tmp_path / "scn"
    (scn / "wip").mkdir(parents=True)
    shutil.copy(SCENARIOS / "seed000-memcg-reread.toml", scn)
    (scn / "wip" / "seed003-draft.toml").write_text(_tightened_003())
    code, out, _ = cli_run(capsys, "reproduce", "--scenarios", scn, "--check", "--out", tmp_path / "out")
    assert "MISSED  seed003-dying-cgroups (work in progress)" in out
    assert "do not set the exit code" in out
    assert code == 0, "only a work-in-progress scenario missed"
    (scn / "seed003-dying-cgroups.toml").write_text(_tightened_003())
    (scn / "wip" / "seed003-draft.toml").unlink()
    code, out, _ = cli_run(capsys, "reproduce", "--scenarios", scn, "--check", "--out", tmp_path / "out2")
    assert code == 1 and "MISSED  seed003-dying-cgroups:" in out


def test_only_not_a_number(capsys, tmp_path, sim_calls):
    code, _, err = cli_run(capsys, "reproduce", "--only", "abc", "--out", tmp_path)
    assert code == 2 and "`abc` is not a seed number" in err and sim_calls == []


def test_invalid_scenario_is_found_before_anything_runs(capsys, tmp_path, sim_calls):
    scn = tmp_path / "scn"
    scn.mkdir()
    shutil.copy(SCENARIOS / "seed000-memcg-reread.toml", scn)
    bad = (SCENARIOS / "seed003-dying-cgroups.toml").read_text().replace('profile = "linux-5.0"', 'profile = "linux-9.9"')
    (scn / "seed003-dying-cgroups.toml").write_text(bad)
    code, _, err = cli_run(capsys, "reproduce", "--scenarios", scn, "--out", tmp_path / "out")
    assert code == 2
    assert re.search(r"seed003-dying-cgroups\.toml:\d+:\d+: error:", err), err
    assert sim_calls == [] and not (tmp_path / "out").exists()


def test_scenarios_dir_without_seeds(capsys, tmp_path, sim_calls):
    code, _, err = cli_run(capsys, "reproduce", "--scenarios", tmp_path, "--out", tmp_path / "out")
    assert code == 2 and "no seed*.toml scenario" in err


def test_out_dir_that_is_a_file(capsys, tmp_path, sim_calls):
    f = tmp_path / "afile"
    f.write_text("x")
    code, _, err = cli_run(capsys, "reproduce", "--only", "003", "--out", f)
    assert code == 2
    assert "exists and is not a directory" in err
    assert sim_calls == [] and f.read_text() == "x"


def _pngs(d: Path) -> list[Path]:
    files = sorted(d.glob("*.png"))
    for p in files:
        assert p.read_bytes().startswith(PNG_SIG) and p.stat().st_size > 1000
    return files


def test_run_plot(capsys, tmp_path):
    d = tmp_path / "plots" / "run"
    code, out, err = cli_run(capsys, "run", SCENARIOS / "seed000-memcg-reread.toml", "--variant", "recharge", "--plot", d)
    assert code == 0, err
    files = _pngs(d)
    assert [p.name for p in files] == ["seed000-memcg-reread-recharge-memory-over-time.png",
                                       "seed000-memcg-reread-recharge-read-bytes-per-step.png"]
    assert f"wrote {files[0]}" in out


def test_compare_plot(capsys, tmp_path):
    d = tmp_path / "plots"
    code, _, err = cli_run(capsys, "compare", SCENARIOS / "seed003-dying-cgroups.toml", "--plot", d)
    assert code == 0, err
    assert [p.name for p in _pngs(d)] == ["seed003-dying-cgroups-percpu-slab.png"]


def test_compare_plot_of_another_scenario_is_generic(capsys, tmp_path):
    code, _, err = cli_run(capsys, "compare", SCENARIOS / "validation" / "list-lru-6.1-qemu-n0.toml", "--plot", tmp_path)
    assert code == 0, err
    assert [p.name for p in _pngs(tmp_path)] == ["validation-list-lru-6.1-n0-metrics.png"]


def test_plot_onto_a_file_fails_before_running(capsys, tmp_path, sim_calls):
    f = tmp_path / "afile"
    f.write_text("x")
    code, _, err = cli_run(capsys, "compare", SCENARIOS / "seed003-dying-cgroups.toml", "--plot", f)
    assert code == 2 and "exists and is not a directory" in err and sim_calls == []


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed")
def test_report_renders_in_chromium(report_000_003, tmp_path):
    shot = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless", "--disable-gpu", "--no-sandbox", f"--screenshot={shot}",
                    "--window-size=1200,4000", report_000_003.resolve().as_uri()],
                   check=True, timeout=120, capture_output=True)
    assert shot.is_file() and shot.stat().st_size > 20_000
    assert shot.read_bytes().startswith(PNG_SIG)
    # Kept as a CI artifact under the build directory.
    artifacts = Path(__file__).resolve().parents[2] / "build" / "ci-artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, artifacts / "report.png")


def test_latency_and_seed_table_plots(tmp_path):
    from memtwin.plots import plots_for

    # A probe scenario: its latency distribution is plotted per variant.
    text = (ROOT / "python" / "tests" / "test_anon.py").read_text()
    base = text.split('BASE = """', 1)[1].split('"""', 1)[0].format(thp="always")
    p = tmp_path / "probe.toml"
    p.write_text(base + '[variants.a]\nkernel.thp = "never"\n[variants.b]\nkernel.thp = "always"\n')
    scn = memtwin.load(p)
    results = {v: memtwin.run(scn, variant=v) for v in ("a", "b")}
    slugs = [pl.slug for pl in plots_for(scn.name, results, {})]
    assert "latency" in slugs
    png = next(pl.png for pl in plots_for(scn.name, results, {}) if pl.slug == "latency")
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    # A seed table ([published.table]) becomes curves.
    pub = {"table": {"at": "probe/latency.q2_ms", "rows": "thp", "columns": ["median"], "cells": [["never", "a"], ["always", "b"]]},
           "figures": {"a": {"probe": {"latency.q2_ms": 10.0}}}}
    slugs = [pl.slug for pl in plots_for(scn.name, results, pub)]
    assert "seed-table" in slugs


def test_reproduce_finds_the_packaged_scenarios_from_any_directory(tmp_path, monkeypatch, capsys):
    """The seeds ship inside the package (memtwin/scenarios, which a wheel installs), so a
    non-editable install reproduces from any working directory, not only the repository's."""
    packaged = Path(memtwin.__file__).resolve().parent / "scenarios"
    assert (packaged / "seed000-memcg-reread.toml").is_file() and (packaged / "seed004-dir-clean.toml").is_file() and (packaged / "wip" / "seed002-stutter.toml").is_file()
    assert SCENARIOS.resolve() == packaged.resolve(), "the repository's scenarios/ is the package's"
    monkeypatch.chdir(tmp_path)  # no ./scenarios here
    code, out, err = cli_run(capsys, "reproduce", "--only", "000", "--out", tmp_path / "out")
    assert code == 0, err
    assert "seed000-memcg-reread" in out and (tmp_path / "out" / "report.html").is_file()


def test_the_wheel_ships_the_scenarios():
    """maturin puts every file of the python/memtwin tree in the wheel; the scenarios must be real
    files there, not a link maturin would skip."""
    packaged = ROOT / "python" / "memtwin" / "scenarios"
    assert packaged.is_dir() and not packaged.is_symlink()
    assert not any(p.is_symlink() for p in packaged.rglob("*"))
