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
SEEDS = sorted(ROOT.glob("scenarios/seed*.toml"))
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

    path = ROOT / "scenarios" / "seed004-dir-clean.toml"
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


def test_html_table_of_many_variants_is_split_into_blocks_that_fit_the_page():
    from types import SimpleNamespace

    from memtwin.reproduce import Section, _table_html

    class Fake:
        def __init__(self, steps):
            self.steps = steps
            self.raw = {"steps": [{"name": s, "metrics": m} for s, m in steps.items()]}

        def metric(self, step, name):
            return self.steps[step][name]

    names = [f"{'keep' if i % 2 == 0 else 'clean'}-{360 + 10 * (i // 2)}" for i in range(38)]
    results = {v: Fake({"cp -r 1 2": {"elapsed_s": 14.7373 + i, "memcg.usage_bytes": 2106359808.0},
                        "grep data 1/*": {"elapsed_s": 2.0758 * (i + 1), "memcg.usage_bytes": 2105978880.0}})
               for i, v in enumerate(names)}
    figures = {v: {"grep data 1/*": {"elapsed_s": 2.0 + i}} for i, v in enumerate(names)}
    sec = Section("seed004.toml", SimpleNamespace(published={"figures": figures}), results,
                  ["elapsed_s", "memcg.usage_bytes"], [], 1.0)
    html = _table_html(sec)
    tables = re.findall(r"<table>.*?</table>", html, re.S)
    assert 1 < len(tables) < 38
    assert html.count('<div class="tablewrap">') == len(tables)  # scrolls sideways rather than overflow the page
    heads = [re.findall(r'<th colspan="3">([^<]+)</th>', t) for t in tables]
    assert [v for h in heads for v in h] == names, "every variant once, in order"
    for t, h in zip(tables, heads):
        assert '<th rowspan="2">step</th><th rowspan="2">metric</th>' in t, "each block repeats the row labels"
        assert t.count("<tr>") == 2 + 4
    assert [len(h) for h in heads] == [2] * 19, "as many as fit: a keep/clean pair, its published figures beside"


# --------------------------------------------------------------------------------------------
# Plots: a distinct colour per variant, legends beside the data


def _seed004_like(n):
    class Fake:
        def __init__(self, i):
            self.raw = {"steps": [{"name": s, "metrics": {"elapsed_s": 1.0 + i + k}} for k, s in enumerate(("cp -r 1 2", "grep data 1/*"))]}
            self.info = {"report_metrics": ["elapsed_s"]}

        def metric(self, step, name):
            return next(s["metrics"][name] for s in self.raw["steps"] if s["name"] == step)

    names = [f"{'keep' if i % 2 == 0 else 'clean'}-{360 + 10 * (i // 2)}" for i in range(n)]
    return {v: Fake(i) for i, v in enumerate(names)}


@pytest.mark.parametrize("names", [
    [f"{'keep' if i % 2 == 0 else 'clean'}-{360 + 10 * (i // 2)}" for i in range(38)],  # a hue per group
    [f"v{i}" for i in range(38)],  # no groups: a sampled map
    [f"v{i}" for i in range(15)],  # tab20
    ["keep-360", "keep-460", "clean-360"],  # tab10
])
def test_variant_colours_are_distinct(names):
    from memtwin.plots import variant_colors

    colors = variant_colors(names)
    assert list(colors) == names
    rgb = [tuple(round(c, 3) for c in colors[v]) for v in names]
    assert len(set(rgb)) == len(names)


def test_seed004_groups_keep_and_clean_by_hue():
    import colorsys

    from memtwin.plots import variant_colors

    colors = variant_colors([f"{g}-{x}" for x in range(360, 460, 10) for g in ("keep", "clean")])
    hue = {v: round(colorsys.rgb_to_hls(*c)[0], 2) for v, c in colors.items()}
    assert len({hue[v] for v in hue if v.startswith("keep")}) == 1
    assert len({hue[v] for v in hue if v.startswith("clean")}) == 1
    assert hue["keep-360"] != hue["clean-360"]


def test_plots_of_38_variants_have_distinct_colours_and_legends_outside_the_axes(monkeypatch):
    from matplotlib.colors import to_rgb

    from memtwin import plots

    figs = []
    monkeypatch.setattr(plots, "_capture", figs)
    results = _seed004_like(38)
    pub = {"figures": {v: {"grep data 1/*": {"elapsed_s": 2.0}} for v in results},
           "table": {"at": "grep data 1/*/elapsed_s", "rows": "X", "columns": ["without cleaning", "with cleaning"],
                     "cells": [[str(360 + 10 * i), f"keep-{360 + 10 * i}", f"clean-{360 + 10 * i}"] for i in range(19)]}}
    out = plots.plots_for("seed004-dir-clean", results, pub, ["elapsed_s"])
    assert {p.slug for p in out} == {"seed-table", "metrics"} and len(figs) == 2
    import matplotlib.pyplot as plt

    try:
        for fig in figs:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
            assert legends, "every plot has a legend"
            for leg in legends:
                lb = leg.get_window_extent(renderer)
                for ax in fig.axes:
                    if ax.get_visible():
                        assert not lb.overlaps(ax.get_window_extent(renderer)), "the legend lies outside the axes"
        bars = [fig for fig in figs if any(ax.patches for ax in fig.axes)][0]
        ax = bars.axes[0]
        colours = {c.get_label(): to_rgb(c.patches[0].get_facecolor()) for c in ax.containers}
        assert len(colours) == 38 and len(set(colours.values())) == 38
    finally:
        for fig in figs:
            plt.close(fig)


def test_readme_sample_is_what_compare_prints(capsys):
    readme = (ROOT / "README.md").read_text()
    head = "```\n$ memtwin compare scenarios/seed000-memcg-reread.toml\n"
    sample = readme.split(head, 1)[1].split("```\n", 1)[0]
    _, out, _ = cli_run(capsys, "compare", ROOT / "scenarios" / "seed000-memcg-reread.toml")
    assert WALL.sub("", sample) == WALL.sub("", out), "copy the output of the command into README.md"
