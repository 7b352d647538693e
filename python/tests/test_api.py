"""The Python API: memtwin.load / memtwin.run, Result's pandas views, ScenarioError."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pandas as pd
import pytest

import memtwin
from memtwin import Result, Scenario, ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
GIB = 1 << 30

SMALL = {
    "scenario": {"name": "small", "description": "a 4M file read twice in a 1M memcg"},
    "machine": {"ram": "1G", "cpus": 2},
    "kernel": {"profile": "linux-6.6", "cgroup": "v2"},
    "devices": {"sda": {"read_bw": "100M", "seek": "1ms"}},
    "files": {"/f": {"size": "4M"}},
    "cgroups": {"ct": {"memory.max": "1M"}},
    "tasks": {"cat": {"cgroup": "ct", "ops": [
        {"op": "read", "file": "/f", "step": "read 1"},
        {"op": "read", "file": "/f", "step": "read 2"},
    ]}},
    "report": {"sample_interval": "10ms"},
}


def seed_dict() -> dict:
    with open(SEED, "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def recharge() -> Result:
    return memtwin.run(SEED, variant="recharge")


# --------------------------------------------------------------------------------------------
# path and dict give the same numbers


@pytest.mark.parametrize("variant", [None, "baseline", "recharge"])
def test_path_and_dict_give_the_same_results(variant):
    a = memtwin.run(SEED, variant=variant)
    b = memtwin.run(seed_dict(), variant=variant)
    assert a.raw == b.raw
    pd.testing.assert_frame_equal(a.steps, b.steps)
    pd.testing.assert_series_equal(a.totals, b.totals)
    pd.testing.assert_frame_equal(a.series, b.series)


def test_path_as_str_and_pathlike():
    assert memtwin.run(str(SEED), variant="recharge").raw == memtwin.run(SEED, variant="recharge").raw


def test_loaded_scenario_can_be_run_repeatedly():
    scn = memtwin.load(SEED)
    assert isinstance(scn, Scenario)
    assert scn.name == "seed000-memcg-reread"
    assert scn.source == str(SEED)
    assert [v for v, _ in scn.variants()] == ["baseline", "recharge"]
    assert scn.published["source"].startswith("Kirill Tkhai, \"[PATCH RFC 0/3] mm: Reduce IO")
    assert len(scn.published["checks"]) == 3
    assert memtwin.run(scn, variant="recharge").raw == memtwin.run(scn, variant="recharge").raw


def test_dict_scenario_name_and_published():
    scn = memtwin.load(seed_dict())
    assert scn.name == "seed000-memcg-reread"
    assert scn.source == "<scenario dict>"
    assert scn.published == seed_dict()["published"]


def test_file_published_comes_from_the_engines_parse():
    # memtwin.load no longer parses the TOML itself: the name and [published] come from the
    # engine's parse (Doc.table), and agree with an independent TOML 1.0 parser's.
    scn = memtwin.load(SEED)
    assert scn.doc.table("published") == seed_dict()["published"]
    assert scn.published == seed_dict()["published"]
    assert scn.doc.table("scenario") == seed_dict()["scenario"]
    assert scn.doc.table("nosuchtable") is None


# --------------------------------------------------------------------------------------------
# Result: pandas views


def test_steps_dataframe(recharge):
    steps = recharge.steps
    assert isinstance(steps, pd.DataFrame)
    assert steps.index.name == "step"
    assert list(steps.index) == ["read 1", "read 2"]
    assert list(steps.columns) == ["task", "memcg"] + memtwin.metric_names()
    assert list(steps["task"]) == ["cat", "cat"]
    assert list(steps["memcg"]) == ["/ct", "/ct"]
    assert steps.loc["read 1", "read_bytes"] == GIB
    assert steps.loc["read 2", "read_bytes"] == 0
    assert steps.loc["read 2", "elapsed_s"] == recharge.metric("read 2", "elapsed_s")
    # Times and PSI averages (percent, two decimals) are floats; counts (bytes, pages, kB,
    # events) stay integers, as the kernel writes them.
    real = lambda m: m.endswith(("_s", "_ms")) or "_avg" in m  # noqa: E731
    assert all(pd.api.types.is_float_dtype(steps[m]) for m in memtwin.metric_names() if real(m))
    assert all(pd.api.types.is_integer_dtype(steps[m]) for m in memtwin.metric_names() if not real(m))


def test_totals_series(recharge):
    totals = recharge.totals
    assert isinstance(totals, pd.Series)
    assert totals.dtype == "float64"
    assert list(totals.index) == memtwin.metric_names()
    steps = recharge.steps
    # Counters are summed over steps, levels come from the last step.
    assert totals["read_bytes"] == steps["read_bytes"].sum() == GIB
    assert totals["elapsed_s"] == pytest.approx(steps["elapsed_s"].sum(), rel=1e-12)
    assert totals["memcg.usage_bytes"] == steps.loc["read 2", "memcg.usage_bytes"]


def test_series_dataframe(recharge):
    series = recharge.series
    assert isinstance(series, pd.DataFrame)
    assert series.index.name == "time_s"
    assert list(series.columns) == ["free_bytes", "cached_bytes", "dirty_bytes", "percpu_bytes", "slab_bytes", "nr_dying_memcgs",
                                    "sda:read_bytes", "sda:write_bytes",
                                    "/:usage_bytes", "/:file_bytes", "/ct:usage_bytes", "/ct:file_bytes"]
    assert list(series.columns) == recharge.raw["series"]["columns"][1:]
    assert series.index[0] == 0.0
    assert series.index.is_monotonic_increasing
    # sample_interval = "100ms"
    # sample_interval = "100ms", plus a last sample at the end of the run.
    gaps = series.index.to_series().diff().dropna()
    assert gaps.iloc[:-1].to_numpy() == pytest.approx([0.1] * (len(gaps) - 1))
    assert 0 < gaps.iloc[-1] <= 0.1 + 1e-9
    assert series.index[-1] == recharge.engine["virtual_time_s"]
    assert (series["/ct:usage_bytes"] <= 20 << 20).all()


def test_small_dict_scenario():
    r = memtwin.run(SMALL)
    assert r.scenario == "small"
    assert r.variant is None
    assert r.info["description"] == "a 4M file read twice in a 1M memcg"
    assert (r.info["profile"], r.info["cgroup"]) == ("linux-6.6", "v2")
    assert list(r.steps.index) == ["read 1", "read 2"]
    assert r.steps.loc["read 1", "read_bytes"] == 4 << 20
    assert r.series.index[1] == pytest.approx(0.01)
    assert set(r.engine) == {"page_events", "host_bytes", "host_bytes_parts", "resident_pages", "virtual_time_s", "kswapd_s", "kswapd_runq_s",
                            "vmpressure_works"}


def test_metric_lookup_errors(recharge):
    with pytest.raises(KeyError, match="no step 'read 3'"):
        recharge.metric("read 3", "elapsed_s")
    with pytest.raises(KeyError, match="no metric 'elapsed'"):
        recharge.metric("read 1", "elapsed")


def test_to_json_layout(recharge):
    j = recharge.to_json()
    assert list(j) == ["steps", "totals"]
    assert [list(s) for s in j["steps"]] == [["name", "task", "memcg", "metrics", "resident_pages", "pagecache"]] * 2
    assert j["totals"] == recharge.raw["totals"]


def test_sets_override(recharge):
    r = memtwin.run(SEED, variant="baseline", sets=["kernel.policies.recharge_on_pagecache_get=true"])
    assert r.info["policies"] == {"recharge_on_pagecache_get": True, "memcg_percpu_release_on_offline": False, "fadvise_directory": False}
    assert r.metric("read 2", "read_bytes") == 0
    # The baseline with the policy switched on is the recharge variant.
    assert r.raw["steps"] == recharge.raw["steps"]


def test_progress_callback():
    calls = []
    memtwin.run(SMALL, progress=lambda done, total: calls.append((done, total)))
    assert calls, "the engine reports progress at least at the end"
    assert all(0 <= d <= t for d, t in calls)
    assert calls[-1][0] == calls[-1][1]


# --------------------------------------------------------------------------------------------
# ScenarioError


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)
    bad = copy.deepcopy(SMALL)
    bad["machine"]["ram"] = "lots"
    with pytest.raises(ValueError):
        memtwin.run(bad)


@pytest.mark.parametrize(
    "path,value,location,message",
    [
        ("tasks.cat.ops.0.bufsize", "lots", "tasks.cat.ops[0].bufsize", 'tasks.cat.ops[0].bufsize: "lots" is not a size'),
        ("tasks.cat.ops.1.length", "-1M", "tasks.cat.ops[1].length", 'tasks.cat.ops[1].length: "-1M" is negative'),
        ("tasks.cat.ops.0.size", "1M", "tasks.cat.ops[0].size", "unknown key `size` in tasks.cat.ops[0]"),
        ("tasks.cat.ops.1.file", "/g", "tasks.cat.ops[1].file", "unknown file `/g`"),
        ("files./f.size", "-20M", "files./f.size", 'files."/f".size: "-20M" is negative'),
        ("files./f.size", "99999999999T", "files./f.size", 'files."/f".size: "99999999999T" is too large'),
        ("devices.sda.read_bw", "fast", "devices.sda.read_bw", 'devices.sda.read_bw: "fast" is not a size'),
        ("devices.sda.seek", "-1ms", "devices.sda.seek", 'devices.sda.seek: "-1ms" is negative'),
        ("report.sample_interval", "-1s", "report.sample_interval", 'report.sample_interval: "-1s" is negative'),
        ("cgroups.ct.memory.max", "-1M", "cgroups.ct.memory.max", 'memory.max: "-1M" is negative'),
        ("cgroups.ct.memory.max", "lots", "cgroups.ct.memory.max", 'memory.max: "lots" is not a size'),
        ("machine.cpus", "8", "machine.cpus", "machine.cpus must be a whole number, not a string"),
        ("tasks.cat.cgroup", "cx", "tasks.cat.cgroup", "unknown cgroup `cx`"),
    ],
)
def test_dict_error_names_the_key_path(path, value, location, message):
    bad = copy.deepcopy(SMALL)
    x = bad
    keys = path.split(".")
    # dotted keys that are themselves dotted (memory.max, /f) are rejoined
    if path.startswith("cgroups.ct.memory"):
        keys = ["cgroups", "ct", "memory.max"]
    if path.startswith("files./f"):
        keys = ["files", "/f", "size"]
    for k in keys[:-1]:
        x = x[int(k)] if isinstance(x, list) else x[k]
    x[keys[-1]] = value
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad)
    text, items = e.value.args
    assert text.splitlines()[0] == f"<scenario dict>: at {location}: error: {message}"
    assert text.splitlines()[1].startswith("  fix: ")
    assert items[0][0] == f"<scenario dict>: at {location}"
    assert items[0][1] == message
    assert items[0][2] == text.splitlines()[1][len("  fix: "):]


def test_all_errors_are_reported_at_once():
    bad = copy.deepcopy(SMALL)
    bad["machine"]["ram"] = "lots"
    bad["tasks"]["cat"]["ops"][1]["bufsize"] = "-1K"
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad)
    locations = [i[0] for i in e.value.args[1]]
    assert locations == ["<scenario dict>: at machine.ram", "<scenario dict>: at tasks.cat.ops[1].bufsize"]


FIX_VALUES = "use only str, int, float, bool, dict and list values"


@pytest.mark.parametrize(
    "where,value,location,message",
    [
        ("machine.ram", object(), "machine.ram", "values must be str, int, float, bool, dict or list, not object"),
        ("tasks.cat.ops.1.count", 1 << 70, "tasks.cat.ops[1].count", f"the integer {1 << 70} does not fit in 64 bits"),
        ("tasks.cat.ops.1.file", {1: "x"}, "tasks.cat.ops[1].file", "dict keys must be strings, not int"),
    ],
)
def test_dict_with_a_value_python_cannot_convert(where, value, location, message):
    bad = copy.deepcopy(SMALL)
    *head, last = where.split(".")
    x = bad
    for k in head:
        x = x[int(k)] if isinstance(x, list) else x[k]
    x[last] = value
    with pytest.raises(ScenarioError) as e:
        memtwin.load(bad)
    text, items = e.value.args
    assert text.splitlines() == [f"<scenario dict>: at {location}: error: {message}", f"  fix: {FIX_VALUES}"]
    assert items == [(f"<scenario dict>: at {location}", message, FIX_VALUES)]


def test_dict_with_a_key_python_cannot_convert_at_the_top_level():
    with pytest.raises(ScenarioError) as e:
        memtwin.load({**SMALL, 1: "x"})
    text, items = e.value.args
    assert text.splitlines() == ["<scenario dict>: at the top level: error: dict keys must be strings, not int",
                                 f"  fix: {FIX_VALUES}"]
    assert items == [("<scenario dict>: at the top level", "dict keys must be strings, not int", FIX_VALUES)]


def test_unknown_variant_from_python():
    # The engine names the argument, not a place in the file.
    with pytest.raises(ScenarioError) as e:
        memtwin.run(SEED, variant="fast")
    text, items = e.value.args
    assert text.splitlines() == [f"--variant fast: error: {SEED} has no variant `fast`",
                                 "  fix: use one of: baseline, recharge"]
    assert items == [("--variant fast", f"{SEED} has no variant `fast`", "use one of: baseline, recharge")]


def test_unknown_variant_from_python_suggests():
    with pytest.raises(ScenarioError) as e:
        memtwin.load(SEED).check("recharg")
    assert e.value.args[0].splitlines() == [f"--variant recharg: error: {SEED} has no variant `recharg`",
                                            "  fix: did you mean `recharge`? use one of: baseline, recharge"]


def test_unknown_variant_of_a_dict():
    with pytest.raises(ScenarioError) as e:
        memtwin.run(SMALL, variant="fast")
    assert e.value.args[0].splitlines() == [
        "--variant fast: error: <scenario dict> has no variant `fast`",
        "  fix: run without --variant: this scenario declares no [variants.NAME] tables"]
    with pytest.raises(ScenarioError) as e:
        memtwin.run({**SMALL, "variants": {"slow": {}}}, variant="fast")
    assert e.value.args[0].splitlines() == [
        "--variant fast: error: <scenario dict> has no variant `fast`",
        "  fix: use one of: slow"]


def test_check_without_running():
    scn = memtwin.load(SEED)
    scn.check("recharge")
    scn.check(None, ["kernel.profile=linux-4.4"])
    with pytest.raises(ScenarioError, match="unknown kernel profile `linux-9`"):
        scn.check(None, ["kernel.profile=linux-9"])


def test_file_errors_are_scenario_errors(tmp_path):
    # load()'s docstring promises FileNotFoundError / IsADirectoryError; it raises ScenarioError
    # (with `path: error: ...` and a fix), which is what the CLI prints.
    with pytest.raises(ScenarioError, match="no such file"):
        memtwin.load(tmp_path / "missing.toml")
    with pytest.raises(ScenarioError, match="this is a directory"):
        memtwin.load(tmp_path)


def test_toml_error_has_line_and_column(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('[scenario]\nname = "x"\n[machine]\nram = 16G\n')
    with pytest.raises(ScenarioError) as e:
        memtwin.load(p)
    assert e.value.args[0].startswith(f"{p}:4:7: error: this is not valid TOML")


def test_multiline_inline_table(tmp_path):
    # An inline table spanning lines (TOML 1.1): the engine's parser is the only one, so it loads.
    p = tmp_path / "x.toml"
    p.write_text('[scenario]\nname = "x"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "100M"\n'
                 '[files."/f"]\nsize = "1M"\n[tasks.t]\nops = [\n  { op = "read",\n    file = "/f" },\n]\n')
    scn = memtwin.load(p)
    assert scn.name == "x"
    assert memtwin.run(p).metric("t:0 read", "read_bytes") == 1 << 20


def test_multiline_inline_table_in_published(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('[scenario]\nname = "x"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "100M"\n'
                 '[files."/f"]\nsize = "1M"\n[tasks.t]\nops = [{ op = "read", file = "/f", step = "r" }]\n'
                 '[published]\nchecks = [\n  { kind = "ratio", a = "default/r/elapsed_s",\n'
                 '    b = "default/r/elapsed_s", min = 1 },\n]\n')
    scn = memtwin.load(p)
    assert scn.published == {"checks": [{"kind": "ratio", "a": "default/r/elapsed_s", "b": "default/r/elapsed_s", "min": 1}]}


def test_scenario_that_is_not_a_table(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('scenario = "x"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "100M"\n'
                 '[files."/f"]\nsize = "1M"\n[tasks.t]\nops = [{ op = "read", file = "/f" }]\n')
    scn = memtwin.load(p)  # parsed; the engine checks the document when it is checked or run
    assert scn.name == "x.toml"  # no [scenario] table to take a name from: the file's name
    with pytest.raises(ScenarioError) as e:
        memtwin.run(p)
    text, items = e.value.args
    assert text.splitlines() == [f"{p}:1:12: error: [scenario] must be a table, not a string",
                                 "  fix: write [scenario] as a [table] of keys"]
    assert items[0][0] == f"{p}:1:12"


# --------------------------------------------------------------------------------------------
# did-you-mean knows the words people use for a key


@pytest.mark.parametrize(
    "where,key,location,message,suggestion",
    [
        ("tasks.cat.ops.0", "size", "tasks.cat.ops[0].size", "unknown key `size` in tasks.cat.ops[0]", "length"),
        ("machine", "cpu", "machine.cpu", "unknown key `cpu` in [machine]", "cpus"),
        ("cgroups.ct", "limit", "cgroups.ct.limit", 'unknown key `limit` in [cgroups."ct"]', "memory.max"),
    ],
)
def test_did_you_mean_knows_synonyms(where, key, location, message, suggestion):
    bad = copy.deepcopy(SMALL)
    x = bad
    for k in where.split("."):
        x = x[int(k)] if isinstance(x, list) else x[k]
    x[key] = "1M" if key != "cpu" else 2
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad)
    text, items = e.value.args
    assert text.splitlines()[0] == f"<scenario dict>: at {location}: error: {message}"
    assert text.splitlines()[1].startswith(f"  fix: did you mean `{suggestion}`? remove it; ")
    assert items[0][:2] == (f"<scenario dict>: at {location}", message)


def test_did_you_mean_limit_in_cgroup_v1():
    bad = copy.deepcopy(SMALL)
    bad["kernel"]["cgroup"] = "v1"
    bad["cgroups"]["ct"] = {"limit": "1M"}
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad)
    assert e.value.args[0].splitlines() == [
        '<scenario dict>: at cgroups.ct.limit: error: unknown key `limit` in [cgroups."ct"]',
        '  fix: did you mean `memory.limit_in_bytes`? remove it; the keys [cgroups."ct"] takes are: '
        'memory.limit_in_bytes, memory.memsw.limit_in_bytes, memory.swappiness, procs']


# --------------------------------------------------------------------------------------------
# memory.events counters


def test_memory_events_counters_are_named_memcg_events():
    names = memtwin.metric_names()
    for event in ("max", "high", "low", "oom_kill"):
        assert f"memcg.events.{event}" in names
        assert f"memcg.{event}" not in names
    # A 4M file read through a 1M memory.max: the limit is hit.
    r = memtwin.run(SMALL)
    assert r.totals["memcg.events.max"] > 0
    assert r.totals["memcg.events.oom_kill"] == 0


def test_old_memory_events_names_are_unknown_metrics():
    bad = copy.deepcopy(SMALL)
    bad["report"]["metrics"] = ["elapsed_s", "memcg.max"]
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad)
    assert e.value.args[0].splitlines()[0] == "<scenario dict>: at report.metrics[1]: error: unknown metric `memcg.max`"
    ok = copy.deepcopy(SMALL)
    ok["report"]["metrics"] = ["memcg.events.max", "memcg.events.high", "memcg.events.low", "memcg.events.oom_kill"]
    memtwin.load(ok).check(None)


# --------------------------------------------------------------------------------------------
# [published] is validated when the scenario is loaded


def test_dict_with_a_malformed_published_check_fails_to_load():
    bad = seed_dict()
    bad["published"]["checks"][1]["mx"] = 1.05
    with pytest.raises(ScenarioError) as e:
        memtwin.load(bad)
    text, items = e.value.args
    assert text.splitlines() == ["<scenario dict>: published.checks[1]: error: unknown key `mx` in a ratio check",
                                 "  fix: remove it; a ratio check takes a, b, kind, max, min, name"]
    assert items == [("<scenario dict>: published.checks[1]", "unknown key `mx` in a ratio check",
                      "remove it; a ratio check takes a, b, kind, max, min, name")]


def test_run_with_a_malformed_published_table_runs_nothing():
    bad = seed_dict()
    bad["published"]["checks"][0]["a"] = "basline/read 2/elapsed_s"
    calls = []
    with pytest.raises(ScenarioError) as e:
        memtwin.run(bad, variant="recharge", progress=lambda done, total: calls.append(done))
    assert e.value.args[0].splitlines() == [
        "<scenario dict>: published.checks[0]: error: `basline/read 2/elapsed_s` names no declared variant",
        "  fix: use one of: baseline, recharge"]
    assert calls == []


# --------------------------------------------------------------------------------------------
# Determinism


def test_two_runs_are_identical():
    a = memtwin.run(SEED, variant="recharge")
    b = memtwin.run(SEED, variant="recharge")
    assert a.raw == b.raw


def test_runs_do_not_depend_on_what_ran_before():
    first = memtwin.run(SEED, variant="baseline").raw
    memtwin.run(SEED, variant="recharge")
    memtwin.run(SMALL)
    assert memtwin.run(SEED, variant="baseline").raw == first


def test_random_reads_are_deterministic_per_seed():
    d = copy.deepcopy(SMALL)
    d["tasks"]["cat"]["ops"] = [{"op": "read", "file": "/f", "pattern": "random", "count": 200, "bufsize": "4K"}]
    a, b = memtwin.run(d), memtwin.run(d)
    assert a.raw == b.raw
    d["scenario"]["seed"] = 1
    assert memtwin.run(d).raw == memtwin.run(d).raw
