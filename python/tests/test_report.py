"""Unit tests of memtwin.report (mmtests percentages, formatting) and memtwin.published
(evaluating [published.checks] on hand-made results)."""

from __future__ import annotations

import pytest

import memtwin
from memtwin import ScenarioError
from memtwin.published import CheckOutcome, evaluate, figure, split_ref, validate
from memtwin.report import HIGHER_IS_BETTER, LOWER_IS_BETTER, compare_table, fmt_pct, fmt_value, pct_change


# --------------------------------------------------------------------------------------------
# pct_change: mmtests' compare-kernels sign convention


@pytest.mark.parametrize(
    "metric,base,new,expected",
    [
        # lower is better: 100 - new*100/base, a gain is positive
        ("elapsed_s", 10.0, 5.0, 50.0),
        ("elapsed_s", 10.0, 20.0, -100.0),
        ("elapsed_s", 10.0, 10.0, 0.0),
        ("sys_s", 0.5, 0.25, 50.0),
        ("read_bytes", float(1 << 30), 0.0, 100.0),
        ("memcg.pgscan", 200.0, 300.0, -50.0),
        ("pagecache_miss_pages", 4.0, 1.0, 75.0),
        # higher is better: the plain change, positive when it grows
        ("pagecache_hit_pages", 10.0, 15.0, 50.0),
        ("pagecache_hit_pages", 10.0, 5.0, -50.0),
        # no direction: the plain relative change
        ("memcg.usage_bytes", 10.0, 15.0, 50.0),
        ("memcg.usage_bytes", 10.0, 5.0, -50.0),
        ("meminfo.Cached_kB", 4.0, 4.0, 0.0),
    ],
)
def test_pct_change(metric, base, new, expected):
    assert pct_change(metric, base, new) == pytest.approx(expected)


def test_pct_change_formula_for_lower_is_better():
    for metric in LOWER_IS_BETTER:
        assert pct_change(metric, 8.0, 2.0) == pytest.approx(100 - 2.0 * 100 / 8.0)


@pytest.mark.parametrize("metric", ["elapsed_s", "pagecache_hit_pages", "memcg.usage_bytes"])
def test_pct_change_from_zero(metric):
    assert pct_change(metric, 0.0, 0.0) == 0.0
    assert pct_change(metric, 0.0, 3.0) is None


def test_directions_name_real_metrics():
    names = set(memtwin.metric_names())
    assert set(LOWER_IS_BETTER) <= names, set(LOWER_IS_BETTER) - names
    assert set(HIGHER_IS_BETTER) <= names, set(HIGHER_IS_BETTER) - names
    assert not set(LOWER_IS_BETTER) & set(HIGHER_IS_BETTER)


def test_fmt_pct():
    assert fmt_pct(None) == "(    n/a )"
    assert fmt_pct(97.9856) == "(   97.99%)"
    assert fmt_pct(-100.0) == "( -100.00%)"


@pytest.mark.parametrize(
    "value,text",
    [(None, "-"), (0.0, "0"), (1073741824.0, "1073741824"), (11.168144392, "11.1681"), (0.0011, "0.0011"),
     (4.384e-06, "4.384e-06"), (2.433e-04, "0.0002433"), (1.904e-05, "0.00001904")],
)
def test_fmt_value(value, text):
    assert fmt_value(value) == text


# --------------------------------------------------------------------------------------------
# Hand-made results


class Fake:
    """What evaluate() and compare_table() need of a Result: .metric(step, name) (KeyError
    when there is no such step or metric, as Result does) and .raw["steps"]."""

    def __init__(self, steps: dict):
        self.steps = steps
        self.raw = {"steps": [{"name": s, "task": "t", "memcg": "/", "metrics": m} for s, m in steps.items()]}

    def metric(self, step, name):
        if step not in self.steps:
            raise KeyError(f"no step {step!r} in fake; steps: {list(self.steps)}")
        if name not in self.steps[step]:
            raise KeyError(f"no metric {name!r}; see memtwin metrics")
        return self.steps[step][name]


RESULTS = {
    "base": Fake({"read 1": {"elapsed_s": 10.0, "sys_s": 0.5}, "read 2": {"elapsed_s": 10.2, "sys_s": 0.6}}),
    "new": Fake({"read 1": {"elapsed_s": 10.0, "sys_s": 0.4}, "read 2": {"elapsed_s": 0.25, "sys_s": 0.25}}),
}
FIGURES = {"new": {"read 2": {"elapsed_s": 0.28, "sys_s": 0.28}}, "gone": {"read 2": {"sys_s": 0.28}}}


def ev(*checks, figures=FIGURES, results=RESULTS):
    return evaluate({"figures": figures, "checks": list(checks)}, results, "x.toml")


def test_ratio_within_bounds():
    (o,) = ev({"name": "same", "kind": "ratio", "a": "base/read 2/elapsed_s", "b": "base/read 1/elapsed_s", "min": 0.95, "max": 1.05})
    assert o == CheckOutcome("same", True, "1.02 (want [0.95, 1.05])")


def test_ratio_above_max_fails():
    (o,) = ev({"name": "same", "kind": "ratio", "a": "base/read 2/elapsed_s", "b": "base/read 1/elapsed_s", "max": 1.01})
    assert not o.ok
    assert o.detail == "1.02 (want [-inf, 1.01])"


def test_ratio_min_only():
    (o,) = ev({"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 30.0})
    assert o.ok and o.detail == "40 (want [30.0, inf])"
    assert o.name == "check 0"
    (o,) = ev({"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 50.0})
    assert not o.ok


def test_ratio_across_variants():
    (o,) = ev({"kind": "ratio", "a": "base/read 2/elapsed_s", "b": "new/read 2/elapsed_s", "min": 30})
    assert o.ok and o.detail.startswith("40.8 ")


def test_ratio_with_a_zero_denominator_is_infinite():
    results = {"z": Fake({"s": {"a": 1.0, "b": 0.0}})}
    (lo,) = ev({"kind": "ratio", "a": "z/s/a", "b": "z/s/b", "min": 10}, results=results)
    (hi,) = ev({"kind": "ratio", "a": "z/s/a", "b": "z/s/b", "max": 10}, results=results)
    assert lo.ok and not hi.ok


def test_published_within_tolerance():
    (o,) = ev({"name": "sys", "kind": "published", "at": "new/read 2/sys_s", "rel_tol": 0.30})
    assert o.ok
    assert o.detail == "0.25 vs published 0.28 (-10.7%, tolerance 30%)"


def test_published_outside_tolerance():
    (o,) = ev({"kind": "published", "at": "new/read 2/sys_s", "rel_tol": 0.05})
    assert not o.ok
    assert o.detail == "0.25 vs published 0.28 (-10.7%, tolerance 5%)"


def test_checks_keep_their_order():
    outcomes = ev(
        {"name": "a", "kind": "published", "at": "new/read 2/elapsed_s", "rel_tol": 0.2},
        {"name": "b", "kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "max": 2},
    )
    assert [(o.name, o.ok) for o in outcomes] == [("a", True), ("b", False)]


def test_ratio_naming_a_variant_that_was_not_run():
    # Skipped, not failed: `compare --variants` may leave a variant out on purpose.
    (o,) = ev({"name": "r", "kind": "ratio", "a": "gone/read 1/elapsed_s", "b": "base/read 1/elapsed_s", "min": 1})
    assert o == CheckOutcome("r", False, "skipped: variant gone was not run", skipped=True)
    assert o.status == "SKIP"
    (o,) = ev({"name": "r", "kind": "ratio", "a": "base/read 1/elapsed_s", "b": "gone/read 1/elapsed_s", "min": 1})
    assert o == CheckOutcome("r", False, "skipped: variant gone was not run", skipped=True)
    assert o.status == "SKIP"


def test_published_check_naming_a_variant_that_was_not_run():
    (o,) = ev({"name": "p", "kind": "published", "at": "gone/read 2/sys_s", "rel_tol": 0.3})
    assert o == CheckOutcome("p", False, "skipped: variant gone was not run", skipped=True)
    assert o.status == "SKIP"


def test_status_of_each_outcome():
    passed, failed, skipped = ev(
        {"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 30.0},
        {"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 50.0},
        {"kind": "ratio", "a": "gone/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 1.0},
    )
    assert (passed.ok, passed.skipped, passed.status) == (True, False, "PASS")
    assert (failed.ok, failed.skipped, failed.status) == (False, False, "FAIL")
    assert (skipped.ok, skipped.skipped, skipped.status) == (False, True, "SKIP")
    assert CheckOutcome("n", True, "d").skipped is False  # the field defaults to not skipped


def test_tolerance_below_one_percent_is_printed_as_it_is():
    (o,) = ev({"kind": "published", "at": "new/read 2/sys_s", "rel_tol": 0.001})
    assert not o.ok
    assert o.detail == "0.25 vs published 0.28 (-10.7%, tolerance 0.1%)"
    (o,) = ev({"kind": "published", "at": "new/read 2/sys_s", "rel_tol": 0.125})
    assert o.ok
    assert o.detail == "0.25 vs published 0.28 (-10.7%, tolerance 12.5%)"


def test_no_checks():
    assert evaluate({}, RESULTS, "x.toml") == []
    assert evaluate({"source": "s", "figures": FIGURES}, RESULTS, "x.toml") == []


@pytest.mark.parametrize(
    "check,message",
    [
        ({"kind": "within", "at": "new/read 2/sys_s"}, "unknown check kind `within`"),
        ({"at": "new/read 2/sys_s"}, "unknown check kind `None`"),
        ({"kind": "ratio", "a": "new/read 1/sys_s", "b": "new/read 2/sys_s"}, "a ratio check needs `min` or `max`"),
        ({"kind": "ratio", "b": "new/read 2/sys_s", "min": 1}, "`a` is missing or not a string"),
        ({"kind": "ratio", "a": "new/sys_s", "b": "new/read 2/sys_s", "min": 1}, "`new/sys_s` is not VARIANT/STEP/METRIC"),
        ({"kind": "ratio", "a": "new//sys_s", "b": "new/read 2/sys_s", "min": 1}, "`new//sys_s` is not VARIANT/STEP/METRIC"),
        ({"kind": "ratio", "a": "new/read 3/sys_s", "b": "new/read 2/sys_s", "min": 1}, "no step 'read 3'"),
        ({"kind": "ratio", "a": "new/read 1/sys", "b": "new/read 2/sys_s", "min": 1}, "no metric 'sys'"),
        ({"kind": "published", "at": "new/read 2/sys_s"}, "a published check needs `rel_tol`"),
        ({"kind": "published", "at": "new/read 1/sys_s", "rel_tol": 0.1}, 'no published figure at figures.new."read 1".sys_s'),
        ("not a table", "a check must be a table"),
    ],
)
def test_malformed_checks_raise(check, message):
    with pytest.raises(ScenarioError) as e:
        ev({"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 1}, check)
    text = e.value.args[0]
    assert text.startswith("x.toml: published.checks[1]: error: ")
    assert message in text.splitlines()[0]
    assert text.splitlines()[1].startswith("  fix: ")


def test_checks_must_be_an_array():
    with pytest.raises(ScenarioError, match="checks must be an array of tables"):
        evaluate({"checks": {"kind": "ratio"}}, RESULTS, "x.toml")


# --------------------------------------------------------------------------------------------
# validate: the shape of [published], checked when a scenario is loaded, before anything runs

GOOD_CHECK = {"kind": "ratio", "a": "new/read 1/elapsed_s", "b": "new/read 2/elapsed_s", "min": 1}
NEW_FIGURES = {"new": FIGURES["new"]}  # FIGURES also has `gone`, which the cases below do not declare


def test_validate_accepts_good_tables():
    validate({}, ["base", "new"], "x.toml")
    validate({"source": "s", "figures": FIGURES, "checks": [GOOD_CHECK]}, ["base", "new", "gone"], "x.toml")
    # Without declared variants the one variant is `default`: checks must name it.
    validate({"checks": [{"kind": "ratio", "a": "default/read 2/elapsed_s", "b": "default/read 1/elapsed_s", "min": 1}]}, [], "x.toml")
    with pytest.raises(ScenarioError, match="names no declared variant"):
        validate({"checks": [GOOD_CHECK]}, [], "x.toml")


# (published table, where, message, fix): where follows "x.toml: "
INVALID = {
    "unknown key in [published]": (
        {"sources": "s"}, "published.sources", "unknown key `sources` in [published]",
        "remove it; [published] takes checks, figures, source, table"),
    "unknown key in a check": (
        {"checks": [GOOD_CHECK, dict(GOOD_CHECK, mx=1.05)]}, "published.checks[1]", "unknown key `mx` in a ratio check",
        "remove it; a ratio check takes a, b, kind, max, min, name"),
    "unknown key in a published check": (
        {"figures": NEW_FIGURES, "checks": [{"kind": "published", "at": "new/read 2/sys_s", "rel_tol": 0.1, "tol": 1}]},
        "published.checks[0]", "unknown key `tol` in a published check",
        "remove it; a published check takes abs_tol, at, kind, name, rel_tol"),
    "unknown kind": (
        {"checks": [{"kind": "within", "at": "new/read 2/sys_s"}]}, "published.checks[0]", "unknown check kind `within`",
        'write kind = "ratio", "published" or "growth"'),
    "no kind": (
        {"checks": [{"at": "new/read 2/sys_s"}]}, "published.checks[0]", "unknown check kind `None`",
        'write kind = "ratio", "published" or "growth"'),
    "missing ref": (
        {"checks": [{"kind": "ratio", "b": "new/read 2/sys_s", "min": 1}]}, "published.checks[0]",
        "`a` is missing or not a string", 'add a = "VARIANT/STEP/METRIC"'),
    "ref not a string": (
        {"checks": [{"kind": "published", "at": 3, "rel_tol": 0.1}]}, "published.checks[0]",
        "`at` is missing or not a string", 'add at = "VARIANT/STEP/METRIC"'),
    "malformed ref": (
        {"checks": [{"kind": "ratio", "a": "new/sys_s", "b": "new/read 2/sys_s", "min": 1}]}, "published.checks[0]",
        "`new/sys_s` is not VARIANT/STEP/METRIC", 'write e.g. "recharge/read 2/sys_s"'),
    "ref to an undeclared variant": (
        {"checks": [{"kind": "ratio", "a": "new/read 1/sys_s", "b": "nwe/read 2/sys_s", "min": 1}]}, "published.checks[0]",
        "`nwe/read 2/sys_s` names no declared variant", "use one of: base, new"),
    "ratio without min or max": (
        {"checks": [{"kind": "ratio", "a": "new/read 1/sys_s", "b": "new/read 2/sys_s"}]}, "published.checks[0]",
        "a ratio check needs `min` or `max`", "add min = 30.0 or max = 1.05"),
    "min not a number": (
        {"checks": [dict(GOOD_CHECK, min="30")]}, "published.checks[0]", "min and max must be numbers", "write min = 0.95"),
    "published check without rel_tol": (
        {"figures": NEW_FIGURES, "checks": [{"kind": "published", "at": "new/read 2/sys_s"}]}, "published.checks[0]",
        "a published check needs a `rel_tol` of 0 or more", "add rel_tol = 0.30 (30%)"),
    "negative rel_tol": (
        {"figures": NEW_FIGURES, "checks": [{"kind": "published", "at": "new/read 2/sys_s", "rel_tol": -0.1}]},
        "published.checks[0]", "a published check needs a `rel_tol` of 0 or more", "add rel_tol = 0.30 (30%)"),
    "published check without a figure": (
        {"figures": NEW_FIGURES, "checks": [{"kind": "published", "at": "new/read 1/sys_s", "rel_tol": 0.1}]},
        "published.checks[0]", 'no published figure at figures.new."read 1".sys_s', "add the figure to [published.figures...]"),
    "figure that is not a number": (
        {"figures": {"new": {"read 2": {"sys_s": "0.28s"}}}}, 'published.figures.new."read 2".sys_s',
        "a published figure must be a number", "write the figure as a number, e.g. 0.28"),
    "figure that is a boolean": (
        {"figures": {"new": {"read 2": {"sys_s": True}}}}, 'published.figures.new."read 2".sys_s',
        "a published figure must be a number", "write the figure as a number, e.g. 0.28"),
    "figures of an undeclared variant": (
        {"figures": {"nwe": {"read 2": {"sys_s": 0.28}}}}, "published.figures.nwe", "no variant `nwe` in [variants]",
        "use one of: base, new"),
    "check that is not a table": (
        {"checks": ["not a table"]}, "published.checks[0]", "a check must be a table",
        "write [[published.checks]] with kind, name and refs"),
    "checks not an array": (
        {"checks": {"kind": "ratio"}}, "published.checks", "checks must be an array of tables",
        "write [[published.checks]] entries"),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_validate_rejects(name):
    published, where, message, fix = INVALID[name]
    with pytest.raises(ScenarioError) as e:
        validate(published, ["base", "new"], "x.toml")
    text, items = e.value.args
    assert text.splitlines() == [f"x.toml: {where}: error: {message}", f"  fix: {fix}"]
    assert items == [(f"x.toml: {where}", message, fix)]


def test_split_ref_keeps_slashes_in_step_names():
    assert split_ref("v/jobs/a read/elapsed_s", "w") == ("v", "jobs/a read", "elapsed_s")
    assert split_ref("v/s/m", "w") == ("v", "s", "m")


def test_figure():
    assert figure({"figures": FIGURES}, "new", "read 2", "sys_s") == 0.28
    assert figure({"figures": FIGURES}, "new", "read 1", "sys_s") is None
    assert figure({"figures": {"v": {"s": {"m": "1.0"}}}}, "v", "s", "m") is None
    assert figure({"figures": {"v": {"s": {"m": True}}}}, "v", "s", "m") is None
    assert figure({}, "v", "s", "m") is None


# --------------------------------------------------------------------------------------------
# compare_table on hand-made results


def test_compare_table():
    text = compare_table(RESULTS, ["elapsed_s", "sys_s"], {"figures": FIGURES})
    lines = text.splitlines()
    assert lines[0].split() == ["base", "new"]
    assert lines[1].split() == ["simulated", "simulated", "published"]  # only `new` has figures
    assert set(lines[2]) == {"-", " "}
    row = next(ln for ln in lines if ln.startswith("read 2  elapsed_s"))
    assert row.split()[3:] == ["10.2000", "(", "0.00%)", "0.2500", "(", "97.55%)", "0.2800"]
    row = next(ln for ln in lines if ln.startswith("read 1  sys_s"))
    assert row.split()[3:] == ["0.5000", "(", "0.00%)", "0.4000", "(", "20.00%)"]
    assert "Percentages compare each variant with base" in text
    assert text == compare_table(RESULTS, ["elapsed_s", "sys_s"], {"figures": FIGURES}), "the same bytes every time"


def test_fmt_pct_of_a_huge_change_keeps_its_width():
    assert fmt_pct(-46356221.57) == "(-4.6e+07%)"
    assert fmt_pct(99999.99) == "(99999.99%)"
    assert len(fmt_pct(-46356221.57)) == len(fmt_pct(1.0))


def _many(n):
    """n variants with a published figure each, as seed 004's."""
    results = {f"{'keep' if i % 2 == 0 else 'clean'}-{360 + 10 * (i // 2)}": Fake({
        "create 1 and 3": {"elapsed_s": 13.6486 + i, "memcg.usage_bytes": 1509949440.0},
        "grep data 1/*": {"elapsed_s": 2.0758 * (i + 1), "memcg.usage_bytes": 2105978880.0 + i}}) for i in range(n)}
    figures = {v: {"grep data 1/*": {"elapsed_s": 2.0 + i}} for i, v in enumerate(results)}
    return results, figures


def test_a_wide_compare_table_is_split_into_blocks_that_fit_100_columns():
    results, figures = _many(38)
    text = compare_table(results, ["elapsed_s", "memcg.usage_bytes"], {"figures": figures})
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= 100
    # every variant once, in order, each block repeating the row labels
    heads = [ln.split() for i, ln in enumerate(lines) if i + 1 < len(lines) and lines[i + 1].strip().startswith("simulated")]
    assert [v for h in heads for v in h] == list(results)
    assert len(heads) > 1
    assert sum(ln.split()[:4] == ["grep", "data", "1/*", "elapsed_s"] for ln in lines) == len(heads)
    # a block takes as many variants as fit: here two with their published figures
    assert heads[0] == ["keep-360", "clean-360"]


def test_run_table_splits_its_metrics_into_blocks():
    from memtwin.report import run_table

    class R:
        raw = {"steps": [{"name": f"step {i}", "metrics": {f"metric.number_{j}": 1000000.0 * j for j in range(12)}} for i in range(3)]}

    text = run_table(R, [f"metric.number_{j}" for j in range(12)])
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= 100
    blocks = text.split("\n\n")
    assert len(blocks) >= 2 and all(b.startswith("step ") for b in blocks)
    assert sum(ln.startswith("step ") and "metric.number_" in ln for ln in lines) == len(blocks)


# --------------------------------------------------------------------------------------------
# [published.table]: the seed's own table, simulated beside published

TABLE = {"title": "read 2 (s)", "at": "read 2/elapsed_s", "rows": "run", "columns": ["old", "new"],
         "cells": [["1", "base", "new"]]}


def test_seed_table_prints_simulated_published_and_difference():
    from memtwin.published import seed_table
    figures = {"base": {"read 2": {"elapsed_s": 8.5}}, "new": {"read 2": {"elapsed_s": 0.28}}}
    text = seed_table({"figures": figures, "table": TABLE}, RESULTS)
    lines = text.splitlines()
    assert lines[0] == "read 2 (s)"
    assert lines[1].split() == ["run", "old", "new"]
    assert lines[2].split() == ["simulated", "published", "diff"] * 2
    assert set(lines[3]) == {"-", " "}
    assert lines[4].split() == ["1", "10.200", "8.500", "+20.0%", "0.250", "0.280", "-10.7%"]


def test_seed_table_without_a_figure_or_a_run_shows_dashes():
    from memtwin.published import seed_table
    text = seed_table({"figures": {}, "table": TABLE}, {"base": RESULTS["base"]})
    assert text.splitlines()[4].split() == ["1", "10.200", "-", "-", "-"]
    assert seed_table({"figures": {}}, RESULTS) is None


@pytest.mark.parametrize("bad,message", [
    ({**TABLE, "cells": [["1", "base", "nope"]]}, "no variant `nope`"),
    ({**TABLE, "cells": [["1", "base"]]}, "a row must be a label and 2 variant names"),
    ({**TABLE, "at": "elapsed_s"}, "`at` must be STEP/METRIC"),
    ({**TABLE, "colour": 1}, "unknown key `colour`"),
    ({**TABLE, "columns": []}, "`columns` must be a list of headings"),
])
def test_a_bad_seed_table_is_an_error_with_a_fix(bad, message):
    with pytest.raises(ScenarioError) as e:
        validate({"table": bad}, ["base", "new"], "x.toml")
    assert message in str(e.value) and "fix:" in str(e.value)


def test_published_abs_tol_admits_figures_near_zero():
    # A published 0 (the 3.13.10 re-read of seed 004, 3 then 1) cannot be met within a relative
    # tolerance; abs_tol gives the absolute margin, the larger of the two applies.
    results = {"z": Fake({"s": {"a": 4000.0}})}
    pub = {"figures": {"z": {"s": {"a": 0}}}}
    (o,) = evaluate({**pub, "checks": [{"kind": "published", "at": "z/s/a", "rel_tol": 0.1, "abs_tol": 16384}]}, results, "x.toml")
    assert o.ok and o.detail == "4000 vs published 0 (4000, tolerance 10% or 16384)"
    (o,) = evaluate({**pub, "checks": [{"kind": "published", "at": "z/s/a", "rel_tol": 0.1, "abs_tol": 1000}]}, results, "x.toml")
    assert not o.ok


def test_seed_table_with_the_seeds_figure_beside_a_real_kernels():
    # Seed 004: the seed's grep time (seed_at), the re-read a real kernel measured (at, the
    # target) and the simulated re-read with its difference from the real one.
    from memtwin.published import seed_table
    table = {**TABLE, "seed_at": "read 2/sys_s", "headings": ["seed", "real", "twin"]}
    figures = {"base": {"read 2": {"sys_s": 2.385, "elapsed_s": 8.5}}, "new": {"read 2": {"elapsed_s": 0.28}}}
    lines = seed_table({"figures": figures, "table": table}, RESULTS).splitlines()
    assert lines[1].split() == ["run", "old", "new"]
    assert lines[2].split() == ["seed", "real", "twin", "diff"] * 2
    assert lines[4].split() == ["1", "2.385", "8.500", "10.200", "+20.0%", "-", "0.280", "0.250", "-10.7%"]
    validate({"figures": figures, "table": table}, ["base", "new"], "x.toml")
    with pytest.raises(ScenarioError, match="needs `seed_at`"):
        validate({"figures": figures, "table": {**TABLE, "headings": ["a", "b", "c"]}}, ["base", "new"], "x.toml")
