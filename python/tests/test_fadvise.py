"""The fadvise op and the seed-004 directory policy, through the Python API."""

import json
import os

import jsonschema
import pytest

import memtwin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario(policy: bool, uid: int = 0) -> dict:
    files = {f"/d/f{i}": {"size": "1M", "uid": 1000 if i % 2 else 0} for i in range(4)}
    files["/keep"] = {"size": "1M"}
    reads = [{"op": "read", "file": f, "step": "read"} for f in files]
    return {
        "scenario": {"name": "fadvise"},
        "machine": {"ram": "1G"},
        "kernel": {"policies": {"fadvise_directory": policy}},
        "devices": {"sda": {"read_bw": "1G"}},
        "files": files,
        "tasks": {"t": {"uid": uid, "ops": reads + [{"op": "fadvise", "path": "/d", "advice": "dontneed", "step": "clean"}]}},
    }


def cached_kb(policy, uid=0):
    r = memtwin.run(scenario(policy, uid))
    return r.steps.loc["read", "meminfo.Cached_kB"], r.steps.loc["clean", "meminfo.Cached_kB"]


def test_directory_fadvise_does_nothing_without_the_policy():
    before, after = cached_kb(False)
    assert before == after == 5 * 1024


def test_the_policy_cleans_the_tree():
    before, after = cached_kb(True)
    assert (before, after) == (5 * 1024, 1024), "only /keep stays"


def test_the_policy_skips_files_the_caller_does_not_own():
    _, after = cached_kb(True, uid=1000)
    # uid 1000 owns /d/f1 and /d/f3; /d/f0, /d/f2 (root's) and /keep stay.
    assert after == 3 * 1024


def test_a_path_that_is_neither_file_nor_directory_is_a_located_error():
    s = scenario(True)
    s["tasks"]["t"]["ops"][-1]["path"] = "/nowhere"
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(s)
    assert "tasks.t.ops[5].path" in str(e.value)
    assert "is neither a file nor a directory holding files" in str(e.value)


def test_the_schema_knows_the_op():
    schema = json.load(open(os.path.join(ROOT, "schema", "scenario.schema.json")))
    jsonschema.validate(scenario(True), schema)
    bad = scenario(True)
    bad["tasks"]["t"]["ops"][-1]["advice"] = "forget"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
