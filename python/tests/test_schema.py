"""The JSON Schemas in schema/: every scenario validates, the CLI's --json output validates,
and the scenario schema agrees with the engine on what it accepts."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

import memtwin  # noqa: E402
from memtwin.cli import main  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schema"
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.toml"))


def _validator(name: str):
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def scenario_schema():
    return _validator("scenario.schema.json")


@pytest.fixture(scope="module")
def result_schema():
    return _validator("result.schema.json")


def _errors(validator, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<top>'}: {e.message}" for e in validator.iter_errors(doc)]


# A small, valid cgroup-v1 scenario as a dict; cases below change one thing in it.
BASE = {
    "scenario": {"name": "schema-test"},
    "machine": {"ram": "1G"},
    "kernel": {"cgroup": "v1"},
    "devices": {"sda": {"read_bw": "100M"}},
    "files": {"/f": {"size": "4M"}},
    "cgroups": {"ct": {"memory.limit_in_bytes": "20M"}},
    "tasks": {"t": {"cgroup": "ct", "ops": [{"op": "read", "file": "/f"}]}},
}


def _with(path: str, value, base=BASE) -> dict:
    """A copy of `base` with the value at dotted `path` (list indices as numbers) set."""
    d = copy.deepcopy(base)
    *head, last = path.split("|")
    x = d
    for h in head:
        x = x[int(h)] if isinstance(x, list) else x.setdefault(h, {})
    if isinstance(x, list):
        x[int(last)] = value
    else:
        x[last] = value
    return d


def _without(path: str, base=BASE) -> dict:
    d = copy.deepcopy(base)
    *head, last = path.split("|")
    x = d
    for h in head:
        x = x[int(h)] if isinstance(x, list) else x[h]
    del x[last]
    return d


def _engine_accepts(doc: dict) -> bool:
    """The engine's verdict: the scenario and every declared variant resolve without errors
    (memtwin.load also validates [published], memtwin.published.validate)."""
    try:
        scn = memtwin.load(doc)
        for v in [v for v, _ in scn.variants()] or [None]:
            scn.check(v)
    except memtwin.ScenarioError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# The schemas themselves


def test_schemas_are_valid_draft_2020_12(scenario_schema, result_schema):
    for v in (scenario_schema, result_schema):
        assert v.schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _properties(node, path=""):
    """Every (path, name, subschema) under a `properties` keyword, skipping if/then/else
    (they only restate properties declared elsewhere)."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield path, name, sub
        for k, v in node.items():
            if k in ("if", "then", "else"):
                continue
            yield from _properties(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _properties(v, f"{path}/{i}")


@pytest.mark.parametrize("name", ["scenario.schema.json", "result.schema.json"])
def test_every_property_is_described(name):
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    missing = [f"{p}: {n}" for p, n, sub in _properties(schema) if not sub.get("description")]
    assert not missing, "properties without a description:\n" + "\n".join(missing)


def test_metric_and_profile_enums_match_the_engine(scenario_schema, result_schema):
    metrics = memtwin.metric_names()
    assert scenario_schema.schema["$defs"]["metricNameListed"]["enum"] == metrics
    assert result_schema.schema["$defs"]["metricNameListed"]["enum"] == metrics
    for v in (scenario_schema, result_schema):
        assert v.schema["$defs"]["metricNameThrottled"]["enum"] == memtwin.vmscan_throttled_metric_names()
        assert v.schema["$defs"]["metricNameLruGen"]["enum"] == memtwin.lru_gen_metric_names()
        assert v.schema["$defs"]["metricNameSched"]["enum"] == memtwin.sched_metric_names()
        # tmpfs21, tmpfs21b: the engine's tmpfs huge-page and swap-out metrics, then what the runners
        # record beside them
        shmem = v.schema["$defs"]["metricNameShmem"]["enum"]
        assert shmem[:12] == memtwin._memtwin.shmem_metric_names() and shmem[12:] == ["meminfo.Shmem_kB"]  # tmpfs21c: + mthp.*
    # a per-node metric of another node than 0 (engine: metrics.rs, node.{nid}.unreclaimable)
    for v in (scenario_schema, result_schema):
        name = {"$ref": "#/$defs/metricName", "$defs": v.schema["$defs"]}
        assert v.__class__(name).is_valid("node.1.unreclaimable")
        assert v.__class__(name).is_valid("vmscan.throttled.isolated")
        assert v.__class__(name).is_valid("memcg.lru_gen.max_seq")
        assert not v.__class__(name).is_valid("node.x.unreclaimable")
        assert not v.__class__(name).is_valid("no.such.metric")
    profiles = [p for p, _ in memtwin.profiles()]
    assert scenario_schema.schema["$defs"]["kernelTable"]["properties"]["profile"]["enum"] == profiles
    assert profiles == ["linux-6.18", "linux-6.12", "linux-6.12-lru_gen", "linux-6.6", "linux-6.6-lru_gen", "linux-6.1", "linux-6.1-lab", "linux-5.17", "linux-5.0", "linux-4.4", "linux-4.3", "linux-3.13"]


# --------------------------------------------------------------------------------------------
# Every scenario in the repository


def test_there_are_scenarios():
    assert SEED in SCENARIOS


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(ROOT)) for p in SCENARIOS])
def test_scenario_files_validate(scenario_schema, path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    assert _errors(scenario_schema, doc) == []


def test_base_case_is_valid_for_both(scenario_schema):
    assert _errors(scenario_schema, BASE) == []
    assert _engine_accepts(BASE)


# --------------------------------------------------------------------------------------------
# Rejections the brief names


def test_rejects_unknown_top_level_key(scenario_schema):
    doc = _with("machnie", {"ram": "1G"})
    errs = _errors(scenario_schema, doc)
    assert any("machnie" in e and "<top>" in e for e in errs), errs
    assert not _engine_accepts(doc)


def test_rejects_negative_size_string(scenario_schema):
    doc = _with("files|/f|size", "-20M")
    errs = _errors(scenario_schema, doc)
    assert any(e.startswith("files//f/size") for e in errs), errs
    assert not _engine_accepts(doc)


def test_rejects_negative_size_integer(scenario_schema):
    doc = _with("files|/f|size", -1)
    assert _errors(scenario_schema, doc)
    assert not _engine_accepts(doc)


def test_seed_with_unknown_top_level_key_is_rejected(scenario_schema):
    with open(SEED, "rb") as f:
        doc = tomllib.load(f)
    doc["reports"] = {"metrics": ["elapsed_s"]}
    assert any("reports" in e for e in _errors(scenario_schema, doc))


# --------------------------------------------------------------------------------------------
# The schema agrees with the engine. Each case is (dict, whether both accept it); the engine's
# verdict is asserted too, so a change on either side shows up here.

SIZE_STRINGS = {
    "0": True, "4096": True, "20M": True, "20m": True, "1G": True, "1GiB": True, "1gb": True, "128K": True,
    "1.5G": True, "1_000": True, " 20M ": True, "20 M": True, "+20M": True, "1e3": True, ".5K": True,
    "1T": True, "20MiB": True,
    "-20M": False, "-0": False, "lots": False, "": False, "20M B": False, "inf": False, "nan": False, "0x10": False,
    "1 000": False, "1,5G": False, "1.5.5": False, "k": False, "20Mi": False, "20 m b": False, "M20": False,
}


@pytest.mark.parametrize("value,ok", list(SIZE_STRINGS.items()), ids=[repr(k) for k in SIZE_STRINGS])
def test_size_strings_agree_with_the_engine(scenario_schema, value, ok):
    # memory.limit_in_bytes: a size with no other constraint (file sizes stop at 16 TiB).
    doc = _with("cgroups|ct|memory.limit_in_bytes", value)
    assert _engine_accepts(doc) is ok
    assert (not _errors(scenario_schema, doc)) is ok, _errors(scenario_schema, doc)


DURATIONS = {
    "5ms": True, "100us": True, "1.5s": True, "2min": True, "1h": True, "10ns": True, "0s": True, " 5 ms ": True,
    "+5s": True, 0: True,
    "5": False, "-1s": False, "5S": False, "5mins": False, "1_0s": False, "infs": False, 1: False, "5 m s": False,
}


@pytest.mark.parametrize("value,ok", list(DURATIONS.items()), ids=[repr(k) for k in DURATIONS])
def test_durations_agree_with_the_engine(scenario_schema, value, ok):
    doc = _with("tasks|t|start", value)
    assert _engine_accepts(doc) is ok
    assert (not _errors(scenario_schema, doc)) is ok, _errors(scenario_schema, doc)


BANDWIDTHS = {"100M": True, "100M/s": True, "96_213_425": True, 96_213_425: True, "1.5G/s": True,
              "0": False, 0: False, "0M/s": False, "fast": False, "-1M/s": False}


@pytest.mark.parametrize("value,ok", list(BANDWIDTHS.items()), ids=[repr(k) for k in BANDWIDTHS])
def test_bandwidths_agree_with_the_engine(scenario_schema, value, ok):
    doc = _with("devices|sda|read_bw", value)
    assert _engine_accepts(doc) is ok
    assert (not _errors(scenario_schema, doc)) is ok, _errors(scenario_schema, doc)


V2 = _with("kernel|cgroup", "v2", _with("cgroups", {"ct": {"memory.max": "20M"}}))

STRUCTURE = {
    # [scenario], [machine], [kernel]
    "no [scenario]": (_without("scenario"), False),
    "no scenario.name": (_without("scenario|name"), False),
    "scenario.seed": (_with("scenario|seed", 7), True),
    "negative seed": (_with("scenario|seed", -1), False),
    "unknown key in [scenario]": (_with("scenario|title", "x"), False),
    "no [machine]": (_without("machine"), False),
    "no machine.ram": (_without("machine|ram"), False),
    "ram below 16M": (_with("machine|ram", 1 << 20), False),
    "cpus 0": (_with("machine|cpus", 0), False),
    "cpus as a string": (_with("machine|cpus", "8"), False),
    "kernel_reserved": (_with("machine|kernel_reserved", "64M"), True),
    "float ram": (_with("machine|ram", 1.5), False),
    "ram as a boolean": (_with("machine|ram", True), False),
    "profile linux-4.4": (_with("kernel|profile", "linux-4.4"), True),
    "unknown profile": (_with("kernel|profile", "linux-7.0"), False),
    "cgroup v3": (_with("kernel|cgroup", "v3"), False),
    "policy on": (_with("kernel|policies", {"recharge_on_pagecache_get": True}), True),
    "policy as a string": (_with("kernel|policies", {"recharge_on_pagecache_get": "yes"}), False),
    "unknown policy": (_with("kernel|policies", {"recharge": True}), False),
    # devices, files
    "device without read_bw": (_without("devices|sda|read_bw"), False),
    "device with every key": (_with("devices|sda", {"read_bw": "100M", "write_bw": "50M/s", "seek": "8ms", "read_ahead_kb": 256}), True),
    "unknown device key": (_with("devices|sda|readahead", 128), False),
    "file without size": (_without("files|/f|size"), False),
    "file with every key": (_with("files|/f", {"size": 0, "device": "sda", "uid": 1000, "mode": 0o600}), True),
    "unknown file key": (_with("files|/f|owner", "root"), False),
    # cgroups
    "v2 key in a v1 scenario": (_with("cgroups|ct|memory.max", "20M"), False),
    "v2 scenario": (V2, True),
    "v2 scenario with every key": (_with("cgroups|ct", {"memory.max": "max", "memory.high": "10M", "memory.low": 0, "memory.min": "1M", "procs": []}, V2), True),
    "v1 key in a v2 scenario": (_with("cgroups|ct|memory.limit_in_bytes", "20M", V2), False),
    "v2 is the default": (_without("kernel", V2), True),
    "limit max": (_with("cgroups|ct|memory.limit_in_bytes", "max"), True),
    "procs not an array": (_with("cgroups|ct|procs", "t", _without("tasks|t|cgroup")), False),
    "procs places the task": (_with("cgroups|ct|procs", ["t"], _without("tasks|t|cgroup")), True),
    "empty cgroup path part": (_with("cgroups", {"a//b": {}, "a": {}}), False),
    "cgroup path ..": (_with("cgroups", {"a/..": {}, "a": {}}), False),
    "nested cgroup": (_with("cgroups|ct/sub", {}), True),
    # tasks and ops
    "no [tasks]": (_without("tasks"), False),
    "task without ops": (_without("tasks|t|ops"), False),
    "task start": (_with("tasks|t|start", "1s"), True),
    "unknown task key": (_with("tasks|t|nice", 0), False),
    "ops not an array": (_with("tasks|t|ops", {"op": "read", "file": "/f"}), False),
    "op without op": (_with("tasks|t|ops|0", {"file": "/f"}), False),
    "unknown op": (_with("tasks|t|ops|0", {"op": "mmap", "file": "/f"}), False),
    "read with every key": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "step": "s", "offset": 0, "length": "1M", "bufsize": "4K", "pattern": "random", "count": 10, "fadvise": "random"}), True),
    "read without file": (_with("tasks|t|ops|0", {"op": "read"}), False),
    "random read without count": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "pattern": "random"}), False),
    "count on a sequential read": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "count": 10}), False),
    "bufsize 0": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "bufsize": 0}), False),
    "unknown fadvise": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "fadvise": "willneed"}), False),
    "size key in a read": (_with("tasks|t|ops|0", {"op": "read", "file": "/f", "size": "1M"}), False),
    "write": (_with("tasks|t|ops|0", {"op": "write", "file": "/f", "length": "1M", "offset": 0, "bufsize": "1M", "fsync": True, "step": "w"}), True),
    "write without length": (_with("tasks|t|ops|0", {"op": "write", "file": "/f"}), False),
    "write with fadvise": (_with("tasks|t|ops|0", {"op": "write", "file": "/f", "length": 1, "fadvise": "normal"}), False),
    "fsync": (_with("tasks|t|ops|0", {"op": "fsync", "file": "/f"}), True),
    "fsync with length": (_with("tasks|t|ops|0", {"op": "fsync", "file": "/f", "length": 1}), False),
    "sleep": (_with("tasks|t|ops|0", {"op": "sleep", "duration": "1s"}), True),
    "sleep without duration": (_with("tasks|t|ops|0", {"op": "sleep"}), False),
    "move to the root": (_with("tasks|t|ops|0", {"op": "move", "cgroup": "/"}), True),
    "move without cgroup": (_with("tasks|t|ops|0", {"op": "move"}), False),
    # report
    "report": (_with("report", {"metrics": ["elapsed_s", "memcg.pgsteal"], "sample_interval": "1s"}), True),
    "unknown metric": (_with("report", {"metrics": ["elapsed"]}), False),
    "metrics not an array": (_with("report", {"metrics": "elapsed_s"}), False),
    "sample_interval 0": (_with("report", {"sample_interval": 0}), False),
    "unknown report key": (_with("report", {"format": "csv"}), False),
    # variants
    "variant": (_with("variants|fast", {"description": "d", "machine": {"cpus": 4}, "kernel": {"policies": {"recharge_on_pagecache_get": True}}}), True),
    "variant with an unknown key": (_with("variants|fast", {"foo": 1}), False),
    "variant with variants": (_with("variants|fast", {"variants": {}}), False),
    "variant description not a string": (_with("variants|fast", {"description": 3}), False),
    "variant v2 key in a v1 scenario": (_with("variants|fast", {"cgroups": {"ct": {"memory.max": "1M"}}}), False),
    "variant v1 key in a v1 scenario": (_with("variants|fast", {"cgroups": {"ct": {"memory.limit_in_bytes": "1M"}}}), True),
    "variant replaces ops": (_with("variants|fast", {"tasks": {"t": {"ops": [{"op": "sleep", "duration": "1s"}]}}}), True),
    "variant with published": (_with("variants|fast", {"published": {"source": "x"}}), True),
    # published (not read by the engine; memtwin.load validates its shape)
    "published": (_with("published", {"source": "s", "figures": {"default": {"t:0 read": {"elapsed_s": 1.0}}},
                                        "checks": [{"name": "n", "kind": "ratio", "a": "default/t:0 read/elapsed_s", "b": "default/t:0 read/sys_s", "min": 1},
                                                   {"kind": "published", "at": "default/t:0 read/elapsed_s", "rel_tol": 0.3}]}), True),
}


@pytest.mark.parametrize("name", list(STRUCTURE))
def test_structure_agrees_with_the_engine(scenario_schema, name):
    doc, ok = STRUCTURE[name]
    assert _engine_accepts(doc) is ok, "the engine's verdict changed"
    errs = _errors(scenario_schema, doc)
    assert (not errs) is ok, errs


PUBLISHED_ONLY = {
    # The engine never reads [published]; memtwin.load validates it (memtwin.published.validate)
    # and the schema holds its values to the same types.
    "check with an unknown kind": {"checks": [{"kind": "within", "at": "a/b/c"}]},
    "ratio check without min or max": {"checks": [{"kind": "ratio", "a": "a/b/c", "b": "a/b/c"}]},
    "published check without rel_tol": {"checks": [{"kind": "published", "at": "a/b/c"}]},
    "reference that is not VARIANT/STEP/METRIC": {"checks": [{"kind": "published", "at": "a/c", "rel_tol": 0.1}]},
    "figure that is not a number": {"figures": {"a": {"b": {"elapsed_s": "11s"}}}},
    "checks not an array": {"checks": {"kind": "ratio"}},
}


@pytest.mark.parametrize("name", list(PUBLISHED_ONLY))
def test_schema_checks_the_published_table(scenario_schema, name):
    doc = _with("published", PUBLISHED_ONLY[name])
    assert _errors(scenario_schema, doc)
    assert not _engine_accepts(doc)


# Things only the engine can check: names that must refer to declared things.
ENGINE_ONLY = {
    "unknown cgroup": _with("tasks|t|cgroup", "cx"),
    "unknown file in an op": _with("tasks|t|ops|0|file", "/g"),
    "task in two cgroups": _with("cgroups|ct|procs", ["t"]),
    "undeclared parent cgroup": _with("cgroups|a/b", {}),
    "file on an unknown device": _with("files|/f|device", "sdb"),
}


@pytest.mark.parametrize("name", list(ENGINE_ONLY))
def test_cross_references_are_left_to_the_engine(scenario_schema, name):
    doc = ENGINE_ONLY[name]
    assert _errors(scenario_schema, doc) == []
    assert not _engine_accepts(doc)


# --------------------------------------------------------------------------------------------
# The --json output


def _check_result(result_schema, data):
    assert _errors(result_schema, data) == []


def test_run_json_validates(result_schema, tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["run", str(SEED), "--variant", "recharge", "--json", str(out)]) == 0
    capsys.readouterr()
    data = json.loads(out.read_text())
    _check_result(result_schema, data)
    assert list(data["variants"]) == ["recharge"]


def test_run_json_without_variant_validates(result_schema, tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["run", str(SEED), "--json", str(out)]) == 0
    capsys.readouterr()
    data = json.loads(out.read_text())
    _check_result(result_schema, data)
    assert list(data["variants"]) == ["default"]


def test_compare_json_validates(result_schema, tmp_path, capsys):
    out = tmp_path / "compare.json"
    assert main(["compare", str(SEED), "--json", str(out)]) == 0
    capsys.readouterr()
    data = json.loads(out.read_text())
    _check_result(result_schema, data)
    assert list(data["variants"]) == ["baseline", "recharge"]


def test_thp_swap_out_metrics_are_schema_names(result_schema, scenario_schema):
    """A run that swaps anonymous THPs (THP always, swap) reports the era's THP counters
    (metrics.rs: thp_split_page/thp_swpout/thp_swpout_fallback/thp_split_pmd from 4.5, the one
    thp_split before): every name a metric of both schemas (s61 added thp_split_pmd and 4.4's
    thp_split to the engine's output, the schemas lacked them until s62)."""
    name = lambda v: v.__class__({"$ref": "#/$defs/metricName", "$defs": v.schema["$defs"]})
    for profile, want in (("linux-6.1", "vmstat.thp_split_pmd"), ("linux-4.4", "vmstat.thp_split")):
        r = memtwin.run({"scenario": {"name": "thp-names"}, "machine": {"ram": "1G", "swap": "256M", "swap_file": True},
                         "kernel": {"profile": profile, "cgroup": "v1", "thp": "always"},
                         "devices": {"sda": {"read_bw": "500M", "write_bw": "400M"}},
                         "cgroups": {"A": {"memory.limit_in_bytes": "64M"}},
                         "tasks": {"t": {"cgroup": "A", "ops": [{"op": "mmap", "name": "m", "size": "96M", "step": "touch"},
                                                                 {"op": "touch", "name": "m", "access": "write", "step": "touch"}]}}})
        metrics = r.to_json()["steps"][0]["metrics"]
        assert metrics.get(want, 0) > 0, (profile, sorted(m for m in metrics if "thp" in m))
        _check_result(result_schema, {"scenario": r.scenario, "variants": {"default": r.to_json()}})
        for v in (result_schema, scenario_schema):
            assert [m for m in metrics if not name(v).is_valid(m)] == [], profile


def test_result_to_json_validates(result_schema):
    r = memtwin.run(BASE)
    _check_result(result_schema, {"scenario": r.scenario, "variants": {"default": r.to_json()}})


def test_result_schema_rejects_wrong_layouts(result_schema, tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["run", str(SEED), "--variant", "baseline", "--json", str(out)]) == 0
    capsys.readouterr()
    good = json.loads(out.read_text())
    bad_metric = copy.deepcopy(good)
    bad_metric["variants"]["baseline"]["steps"][0]["metrics"]["elapsed"] = 1.0
    no_totals = copy.deepcopy(good)
    del no_totals["variants"]["baseline"]["totals"]
    string_value = copy.deepcopy(good)
    string_value["variants"]["baseline"]["totals"]["read_bytes"] = "1G"
    extra_top = dict(good, version=1)
    no_variants = dict(good, variants={})
    for bad in (bad_metric, no_totals, string_value, extra_top, no_variants):
        assert _errors(result_schema, bad)


# --------------------------------------------------------------------------------------------
# Mounts, the cgroup life cycle, repeat ops and the seed-003 keys: schema and engine agree.

LIFE = _with("mounts", {"/tmp": {}}, _with("tasks|t|ops", [
    {"op": "read", "file": "/f"},
    {"op": "repeat", "times": 3, "step": "loop", "ops": [
        {"op": "mkdir", "cgroup": "ct/{i}"},
        {"op": "move", "cgroup": "ct/{i}"},
        {"op": "write", "file": "/tmp/test-{i}", "length": 512, "bufsize": 512, "create": True},
        {"op": "move", "cgroup": "/"},
        {"op": "rmdir", "cgroup": "ct/{i}"},
    ]},
]))
# A scenario with no device at all: its one file is on a tmpfs.
TMPFS_ONLY = _with("mounts", {"/tmp": {"fs": "tmpfs"}}, _with("files", {"/tmp/f": {"size": "4M"}},
                   _with("tasks|t|ops|0|file", "/tmp/f", _without("devices"))))

NEW_KEYS = {
    # [mounts]
    "the life cycle base case": (LIFE, True),
    "a file on a tmpfs in a scenario without devices": (TMPFS_ONLY, True),
    "tmpfs by default": (_with("mounts|/run", {}, LIFE), True),
    "a disk file system on a device": (_with("mounts|/data", {"fs": "ext4", "device": "sda"}, LIFE), True),
    "a disk file system without a device": (_with("mounts|/data", {"fs": "ext4"}, LIFE), False),
    "a mount point that is not absolute": (_with("mounts|tmp", {}, LIFE), False),
    "unknown mount key": (_with("mounts|/tmp|size", "1G", LIFE), False),
    "fs not a string": (_with("mounts|/tmp|fs", 1, LIFE), False),
    "a mount that is not a table": (_with("mounts|/tmp", "tmpfs", LIFE), False),
    "mounts not a table": (_with("mounts", 3, LIFE), False),
    # [machine] and [kernel.policies]
    "machine with the boot keys": (_with("machine", {"ram": "64G", "cpus": 32, "nodes": 2, "boot_percpu": "6912K",
                                                     "boot_slab": 69267456, "boot_superblocks": 20}, LIFE), True),
    "64 nodes": (_with("machine|nodes", 64, LIFE), True),
    "0 nodes": (_with("machine|nodes", 0, LIFE), False),
    "65 nodes": (_with("machine|nodes", 65, LIFE), False),
    "nodes as a string": (_with("machine|nodes", "2", LIFE), False),
    "negative boot_percpu": (_with("machine|boot_percpu", "-1K", LIFE), False),
    "boot_slab that is not a size": (_with("machine|boot_slab", "lots", LIFE), False),
    "negative boot_superblocks": (_with("machine|boot_superblocks", -1, LIFE), False),
    "percpu policy on": (_with("kernel|policies", {"recharge_on_pagecache_get": False, "memcg_percpu_release_on_offline": True}, LIFE), True),
    "percpu policy as a string": (_with("kernel|policies", {"memcg_percpu_release_on_offline": "on"}, LIFE), False),
    # ops
    "mkdir of the root": (_with("tasks|t|ops|1|ops|0|cgroup", "/", LIFE), False),
    "mkdir without cgroup": (_with("tasks|t|ops|1|ops|0", {"op": "mkdir"}, LIFE), False),
    "rmdir without cgroup": (_with("tasks|t|ops|1|ops|4", {"op": "rmdir"}, LIFE), False),
    "rmdir with an unknown key": (_with("tasks|t|ops|1|ops|4|force", True, LIFE), False),
    "mount op": (_with("tasks|t|ops|0", {"op": "mount", "path": "/mnt", "fs": "tmpfs", "step": "m"}, LIFE), True),
    "write create below a mount op's path": (_with("tasks|t|ops|1|ops|2|file", "/mnt/test-{i}",
                                                   _with("tasks|t|ops|0", {"op": "mount", "path": "/mnt"}, _without("mounts", LIFE))), True),
    "mount op without path": (_with("tasks|t|ops|0", {"op": "mount"}, LIFE), False),
    "mount op with a device": (_with("tasks|t|ops|0", {"op": "mount", "path": "/m", "device": "sda"}, LIFE), False),
    "write create not a boolean": (_with("tasks|t|ops|1|ops|2|create", "yes", LIFE), False),
    "repeat zero times": (_with("tasks|t|ops|1|times", 0, LIFE), True),
    "repeat without times": (_without("tasks|t|ops|1|times", LIFE), False),
    "repeat without ops": (_without("tasks|t|ops|1|ops", LIFE), False),
    "repeat negative times": (_with("tasks|t|ops|1|times", -1, LIFE), False),
    "repeat times as a string": (_with("tasks|t|ops|1|times", "3", LIFE), False),
    "repeat ops not an array": (_with("tasks|t|ops|1|ops", {"op": "sleep", "duration": "1s"}, LIFE), False),
    "repeat with an unknown key": (_with("tasks|t|ops|1|count", 3, LIFE), False),
    "repeat inside a repeat": (_with("tasks|t|ops|1|ops|4", {"op": "repeat", "times": 2, "ops": []}, LIFE), False),
    "bad inner op": (_with("tasks|t|ops|1|ops|1", {"op": "move"}, LIFE), False),
    # variants
    "variant with mounts and the seed-003 keys": (_with("variants|release", {
        "description": "d", "mounts": {"/tmp": {"fs": "tmpfs"}}, "machine": {"boot_slab": "66640K"},
        "kernel": {"policies": {"memcg_percpu_release_on_offline": True}}}, LIFE), True),
    "variant with a bad mount": (_with("variants|bad", {"mounts": {"/data": {"fs": "xfs"}}}, LIFE), False),
}


@pytest.mark.parametrize("name", list(NEW_KEYS))
def test_new_keys_agree_with_the_engine(scenario_schema, name):
    doc, ok = NEW_KEYS[name]
    assert _engine_accepts(doc) is ok, "the engine's verdict changed"
    errs = _errors(scenario_schema, doc)
    assert (not errs) is ok, errs


def test_seed003_with_a_bad_key_is_rejected(scenario_schema):
    with open(ROOT / "scenarios" / "seed003-dying-cgroups.toml", "rb") as f:
        doc = tomllib.load(f)
    assert _errors(scenario_schema, doc) == []
    doc["mounts"]["/tmp"]["fs"] = "ext4"  # a disk file system needs a device
    errs = _errors(scenario_schema, doc)
    assert any(e.startswith("mounts//tmp") and "'device' is a required property" in e for e in errs), errs
    assert not _engine_accepts(doc)


# What only the engine can check in the new keys: references to what ops create.
NEW_ENGINE_ONLY = {
    "move to a cgroup neither declared nor made": _with("tasks|t|ops|1|ops|3|cgroup", "nowhere", LIFE),
    "rmdir of a cgroup neither declared nor made": _with("tasks|t|ops|1|ops|4|cgroup", "nowhere", LIFE),
    # With one disk, a created file outside any mount lives on it; with two it is ambiguous.
    "write create outside any mount, two disks": _with("devices|sdb", {"read_bw": "1G"},
                                                      _with("tasks|t|ops|1|ops|2|file", "/data/test-{i}", LIFE)),
    "a mount on an unknown device": _with("mounts|/data", {"fs": "ext4", "device": "sdb"}, LIFE),
    "a file outside any mount without a device": _with("files|/g", {"size": "1M"}, TMPFS_ONLY),
}


@pytest.mark.parametrize("name", list(NEW_ENGINE_ONLY))
def test_references_to_what_ops_create_are_left_to_the_engine(scenario_schema, name):
    doc = NEW_ENGINE_ONLY[name]
    assert _errors(scenario_schema, doc) == []
    assert not _engine_accepts(doc)


def test_life_cycle_results_validate(result_schema):
    r = memtwin.run(LIFE)
    assert r.raw["nr_errors"] == 0
    assert [s["name"] for s in r.raw["steps"]] == ["t:0 read", "loop"]
    _check_result(result_schema, {"scenario": r.scenario, "variants": {"default": r.to_json()}})
