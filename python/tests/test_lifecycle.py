"""Cgroup life cycle (mkdir, rmdir, dying memcgs), tmpfs mounts and files that writes create,
repeat ops with {i}, consecutive ops with one step name forming one step, and ops that fail as
the syscall would have (Doc.run's `errors`, the CLI's stderr)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import memtwin
from memtwin import ScenarioError
from memtwin.cli import main

PAGE = 4096

# Seed 003's loop, three times, on a tmpfs: each iteration makes a cgroup, writes one page of a
# new tmpfs file from it, leaves it and removes it. The shmem page stays charged to the removed
# memcg, which therefore stays dying.
LIFE = {
    "scenario": {"name": "life", "description": "three memcgs made, written to once and removed"},
    "machine": {"ram": "1G", "cpus": 4},
    "kernel": {"profile": "linux-5.0", "cgroup": "v2"},
    "mounts": {"/tmp": {"fs": "tmpfs"}},
    "cgroups": {"t": {}},
    "tasks": {"sh": {"ops": [
        {"op": "sleep", "duration": "1ms", "step": "before"},
        {"op": "repeat", "times": 3, "step": "3 dying", "ops": [
            {"op": "mkdir", "cgroup": "t/{i}"},
            {"op": "move", "cgroup": "t/{i}"},
            {"op": "write", "file": "/tmp/test-{i}", "length": 512, "bufsize": 512, "create": True},
            {"op": "move", "cgroup": "/"},
            {"op": "rmdir", "cgroup": "t/{i}"},
        ]},
    ]}},
}


def _inner(doc: dict) -> list:
    return doc["tasks"]["sh"]["ops"][1]["ops"]


@pytest.fixture(scope="module")
def life():
    return memtwin.run(LIFE)


# --------------------------------------------------------------------------------------------
# repeat and {i}


def test_repeat_expands_with_i_and_leaves_dying_memcgs(life):
    # Had {i} not been replaced, the second mkdir of "t/{i}" would fail with EEXIST.
    assert life.raw["nr_errors"] == 0
    assert life.raw["errors"] == []
    # The 15 inner ops take the repeat's step: with the sleep before, two steps.
    assert list(life.steps.index) == ["before", "3 dying"]
    before, after = life.steps.loc["before"], life.steps.loc["3 dying"]
    assert before["cgroup.nr_dying_descendants"] == 0
    assert before["cgroup.nr_descendants"] == 1  # t
    # Each removed memcg still has its shmem page charged, so none of the three is freed.
    assert after["cgroup.nr_dying_descendants"] == 3
    assert after["cgroup.nr_descendants"] == 1
    # The step began in the root: each dying memcg holds its shmem page and, in 5.0, the page its
    # file's dentry and inode (slab) are charged to; the root's usage is not a counter but its
    # subtree's statistics (5.0 mem_cgroup_usage(): MEMCG_CACHE + MEMCG_RSS; 6.1 NR_FILE_PAGES +
    # NR_ANON_MAPPED), which leave the slab pages out: the three shmem pages.
    assert after["memcg.usage_bytes"] == 3 * PAGE
    # tmpfs pages are shmem: nothing reaches a device.
    assert after["write_bytes"] == 0
    # Dying memcgs keep their percpu statistics and structures.
    assert after["meminfo.Percpu_kB"] > before["meminfo.Percpu_kB"]
    assert after["meminfo.Slab_kB"] > before["meminfo.Slab_kB"]


def test_without_a_charge_the_removed_memcgs_are_freed():
    doc = copy.deepcopy(LIFE)
    del _inner(doc)[2]  # no write: nothing is charged to t/i when it is removed
    r = memtwin.run(doc)
    assert r.raw["nr_errors"] == 0
    assert r.steps.loc["3 dying", "cgroup.nr_dying_descendants"] == 0
    assert r.steps.loc["3 dying", "meminfo.Percpu_kB"] == r.steps.loc["before", "meminfo.Percpu_kB"]


def test_releasing_percpu_at_offline_keeps_the_memcgs_dying_but_cheaper(life):
    r = memtwin.run(LIFE, sets=["kernel.policies.memcg_percpu_release_on_offline=true"])
    assert r.info["policies"] == {"recharge_on_pagecache_get": False, "memcg_percpu_release_on_offline": True, "fadvise_directory": False}
    assert r.steps.loc["3 dying", "cgroup.nr_dying_descendants"] == 3
    assert r.steps.loc["before", "meminfo.Percpu_kB"] == life.steps.loc["before", "meminfo.Percpu_kB"]
    assert r.steps.loc["3 dying", "meminfo.Percpu_kB"] < life.steps.loc["3 dying", "meminfo.Percpu_kB"]


def test_series_has_memcg_columns_only_for_declared_cgroups(life):
    s = life.series
    assert list(s.columns) == ["free_bytes", "cached_bytes", "dirty_bytes", "percpu_bytes", "slab_bytes", "nr_dying_memcgs",
                               "/:usage_bytes", "/:file_bytes", "/t:usage_bytes", "/t:file_bytes"]
    assert s["nr_dying_memcgs"].iloc[0] == 0
    assert s["nr_dying_memcgs"].iloc[-1] == 3


def test_i_is_replaced_in_step_names_and_inner_ops_without_a_step_take_the_repeats():
    doc = copy.deepcopy(LIFE)
    doc["tasks"]["sh"]["ops"][1]["times"] = 2
    _inner(doc)[0]["step"] = "mkdir {i}"
    r = memtwin.run(doc)
    assert r.raw["nr_errors"] == 0
    assert list(r.steps.index) == ["before", "mkdir 1", "3 dying", "mkdir 2", "3 dying"]
    assert r.steps["cgroup.nr_dying_descendants"].tolist() == [0, 0, 1, 1, 2]


def test_a_repeat_without_a_step_is_one_step_named_after_it():
    doc = copy.deepcopy(LIFE)
    del doc["tasks"]["sh"]["ops"][1]["step"]
    r = memtwin.run(doc)
    assert list(r.steps.index) == ["before", "sh:1 repeat"]
    assert r.steps.loc["sh:1 repeat", "cgroup.nr_dying_descendants"] == 3


def test_a_mount_op_holds_the_files_writes_create():
    doc = copy.deepcopy(LIFE)
    del doc["mounts"]
    _inner(doc).insert(0, {"op": "mount", "path": "/mnt/{i}"})
    _inner(doc)[3]["file"] = "/mnt/{i}/test"
    r = memtwin.run(doc)
    assert r.raw["nr_errors"] == 0
    after, before = r.steps.loc["3 dying"], r.steps.loc["before"]
    assert after["cgroup.nr_dying_descendants"] == 3
    assert after["list_lru.superblocks"] == before["list_lru.superblocks"] + 3


# --------------------------------------------------------------------------------------------
# Consecutive ops with the same step name form one step

GROUPED = {
    "scenario": {"name": "grouped"},
    "machine": {"ram": "1G"},
    "devices": {"sda": {"read_bw": "100M"}},
    "files": {"/f": {"size": "4M"}},
    "tasks": {"t": {"ops": [
        {"op": "sleep", "duration": "1s", "step": "A"},
        {"op": "sleep", "duration": "2s", "step": "A"},
        {"op": "read", "file": "/f", "step": "B"},
        {"op": "read", "file": "/f", "step": "B"},
        {"op": "sleep", "duration": "1s", "step": "A"},
        {"op": "sleep", "duration": "1s"},
        {"op": "sleep", "duration": "1s"},
    ]}},
}


def test_consecutive_ops_with_the_same_step_name_form_one_step():
    r = memtwin.run(GROUPED)
    steps = r.steps
    # Only consecutive ops are grouped: the third "A" is a step of its own, and default names
    # (which hold the op's index) never group.
    assert list(steps.index) == ["A", "B", "A", "t:5 sleep", "t:6 sleep"]
    assert steps["elapsed_s"].iloc[0] == pytest.approx(3.0)
    assert steps["elapsed_s"].iloc[2] == pytest.approx(1.0)
    # The two reads of the 4M file are one step: the first misses, the second hits.
    b = steps.iloc[1]
    assert b["read_bytes"] == 4 << 20
    assert b["pagecache_miss_pages"] == 1024
    assert b["pagecache_hit_pages"] == 1024
    assert r.totals["elapsed_s"] == pytest.approx(steps["elapsed_s"].sum(), rel=1e-12)


# --------------------------------------------------------------------------------------------
# Ops that fail as the syscall would have

BUSY = copy.deepcopy(LIFE)
del BUSY["tasks"]["sh"]["ops"][1]["ops"][3]  # no move back to the root: rmdir finds the task in t/i
EBUSY = "EBUSY (the cgroup has tasks or live children)"
ERROR_LINE = re.compile(r'^task sh at [0-9]+\.[0-9]{6} s, step "3 dying", op (\d+) \(rmdir (t/[0-9]+)\): (.*)$')


def _busy(times: int) -> dict:
    doc = copy.deepcopy(BUSY)
    doc["tasks"]["sh"]["ops"][1]["times"] = times
    return doc


def test_rmdir_of_a_cgroup_with_a_task_fails_with_ebusy():
    r = memtwin.run(_busy(1))
    assert r.raw["nr_errors"] == 1
    (line,) = r.raw["errors"]
    m = ERROR_LINE.match(line)
    assert m, line
    # op 4 of the expanded script: sleep, mkdir, move, write, rmdir
    assert m.groups() == ("4", "t/1", EBUSY)
    after = r.steps.loc["3 dying"]
    assert after["cgroup.nr_descendants"] == 2  # t and t/1, still online
    assert after["cgroup.nr_dying_descendants"] == 0


def test_errors_keep_the_first_100_and_count_them_all():
    r = memtwin.run(_busy(120))
    assert r.raw["nr_errors"] == 120
    assert len(r.raw["errors"]) == 100
    assert [ERROR_LINE.match(e).group(2) for e in r.raw["errors"][:3]] == ["t/1", "t/2", "t/3"]
    assert r.steps.loc["3 dying", "cgroup.nr_descendants"] == 121


BUSY_TOML = '''\
[scenario]
name = "busy"

[machine]
ram = "1G"

[mounts."/tmp"]

[cgroups.t]

[tasks.sh]
ops = [
  { op = "sleep", duration = "1ms", step = "before" },
  { op = "repeat", times = TIMES, step = "3 dying", ops = [
      { op = "mkdir", cgroup = "t/{i}" },
      { op = "move", cgroup = "t/{i}" },
      { op = "write", file = "/tmp/test-{i}", length = 512, create = true },
      { op = "rmdir", cgroup = "t/{i}" },
  ] },
]

[variants.v]
description = "the same"
'''


def _cli(capsys, monkeypatch, *args):
    monkeypatch.delenv("MEMTWIN_PROGRESS", raising=False)
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_failed_ops_are_printed_on_stderr(capsys, monkeypatch, tmp_path):
    path = tmp_path / "busy.toml"
    path.write_text(BUSY_TOML.replace("TIMES", "1"))
    code, out, err = _cli(capsys, monkeypatch, "run", path)
    assert code == 0  # the run itself succeeds
    lines = err.splitlines()
    assert lines[0] == "busy: 1 op(s) failed as the syscall would have:"
    assert len(lines) == 2
    assert lines[1].startswith("  task sh at ")
    m = ERROR_LINE.match(lines[1][2:])
    assert m and m.groups() == ("4", "t/1", EBUSY), lines[1]
    assert out.splitlines()[0] == "busy"


def test_stderr_shows_ten_failed_ops_and_the_variant(capsys, monkeypatch, tmp_path):
    path = tmp_path / "busy.toml"
    path.write_text(BUSY_TOML.replace("TIMES", "12"))
    code, out, err = _cli(capsys, monkeypatch, "run", path, "--variant", "v")
    assert code == 0
    lines = err.splitlines()
    assert lines[0] == "busy [v]: 12 op(s) failed as the syscall would have:"
    assert [ERROR_LINE.match(ln[2:]).group(2) for ln in lines[1:11]] == [f"t/{i}" for i in range(1, 11)]
    assert lines[11:] == ["  ... and 2 more"]


def test_a_run_without_failed_ops_prints_nothing_on_stderr(capsys, monkeypatch, tmp_path):
    path = tmp_path / "busy.toml"
    path.write_text(BUSY_TOML.replace("TIMES", "1").replace('      { op = "rmdir"', '      { op = "move", cgroup = "/" },\n      { op = "rmdir"'))
    code, out, err = _cli(capsys, monkeypatch, "run", path)
    assert (code, err) == (0, "")


# --------------------------------------------------------------------------------------------
# Located errors in scenarios that use the new ops

LIFE_TOML = '''\
[scenario]
name = "life"

[machine]
ram = "1G"

[mounts."/tmp"]
fs = "tmpfs"

[cgroups.t]

[tasks.sh]
ops = [
  { op = "repeat", times = 1, ops = [
      { op = "mkdir", cgroup = "t/{i}" },
      { op = "move", cgroup = "t/{i}" },
      { op = "write", file = "/tmp/test-{i}", length = 512, create = true },
      { op = "move", cgroup = "/" },
      { op = "rmdir", cgroup = "t/{i}" },
  ] },
]
'''

# name: (old, new, line, col, text found at line:col, message, fix)
LOCATED = {
    "move to a cgroup neither declared nor made": (
        '{ op = "move", cgroup = "/" }', '{ op = "move", cgroup = "u" }', 18, 31, '"u"',
        "unknown cgroup `u`", 'create it with an op { op = "mkdir" }'),
    "write create outside any mount": (
        'file = "/tmp/test-{i}"', 'file = "/data/test-{i}"', 17, 7, '{ op = "write"',
        "`/data/test-1` is created here, but no mount holds it", '[mounts."/tmp"] fs = "tmpfs"'),
    "repeat inside a repeat": (
        '      { op = "rmdir"', '      { op = "repeat", times = 2, ops = [] },\n      { op = "rmdir"', 19, 7, '{ op = "repeat"',
        "tasks.sh.ops[0]: a repeat inside a repeat", "flatten the loops"),
}


def test_the_life_toml_is_good(capsys, monkeypatch, tmp_path):
    path = tmp_path / "life.toml"
    path.write_text(LIFE_TOML)
    assert _cli(capsys, monkeypatch, "check", path) == (0, f"{path}: ok (1 variant: default)\n", "")


@pytest.mark.parametrize("cmd", ["run", "check"])
@pytest.mark.parametrize("name", list(LOCATED))
def test_located_errors_of_the_new_ops(capsys, monkeypatch, tmp_path, cmd, name):
    old, new, line, col, token, message, fix = LOCATED[name]
    assert LIFE_TOML.count(old) == 1
    text = LIFE_TOML.replace(old, new)
    assert text.splitlines()[line - 1][col - 1:].startswith(token)
    path = tmp_path / "broken.toml"
    path.write_text(text)
    code, out, err = _cli(capsys, monkeypatch, cmd, path)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == f"{path}:{line}:{col}: error: {message}", err
    assert lines[1].startswith("  fix: ")
    assert fix in lines[1]


@pytest.mark.parametrize(
    "change,location,message",
    [
        (lambda d: _inner(d)[3].update(cgroup="u"), "tasks.sh.ops[1].ops[3].cgroup", "unknown cgroup `u`"),
        (lambda d: d.pop("mounts"), "tasks.sh.ops[1].ops[2]", "`/tmp/test-1` is created here, but no mount holds it"),
        (lambda d: _inner(d).append({"op": "repeat", "times": 1, "ops": []}), "tasks.sh.ops[1].ops[5]",
         "tasks.sh.ops[1]: a repeat inside a repeat"),
        (lambda d: _inner(d)[0].update(cgroup="/"), "tasks.sh.ops[1].ops[0].cgroup", "mkdir of the root cgroup"),
        (lambda d: d["mounts"].update({"/data": {"fs": "ext4"}}), "mounts./data",
         '[mounts."/data"] is an ext4 file system without a device'),
        (lambda d: d["machine"].update(nodes=65), "machine.nodes", "machine.nodes is 65"),
        (lambda d: d["machine"].update(fs="ext3"), "machine.fs", "machine.fs is `ext3`, a file system the engine does not model"),
        (lambda d: d["machine"].update(fs="tmpfs"), "machine.fs",
         "machine.fs is tmpfs: the root file system is the one on the devices"),
        (lambda d: d["machine"].update(fs_features=["verity", "bigalloc"]), "machine.fs_features[1]",
         "machine.fs_features[1] is `bigalloc`, not an ext4 feature the page cache depends on"),
        (lambda d: d["machine"].update(fs="xfs", fs_features=["verity"]), "machine.fs_features",
         "machine.fs_features names ext4 features, but machine.fs is xfs"),
        (lambda d: d["mounts"].update({"/data": {"fs": "zfs"}}), "mounts./data.fs",
         "mounts.\"/data\".fs is `zfs`, a file system the engine does not model"),
    ],
    ids=["move to an unknown cgroup", "create outside any mount", "nested repeat", "mkdir /", "ext4 without a device",
         "65 nodes", "unknown root fs", "tmpfs root", "unknown ext4 feature", "ext4 feature on xfs", "unknown mount fs"],
)
def test_dict_errors_name_the_key_path(change, location, message):
    doc = copy.deepcopy(LIFE)
    change(doc)
    with pytest.raises(ScenarioError) as e:
        memtwin.run(doc)
    text, items = e.value.args
    assert items[0][:2] == (f"<scenario dict>: at {location}", message)
    assert text.splitlines()[0] == f"<scenario dict>: at {location}: error: {message}"


def test_a_cgroup_made_by_a_later_mkdir_of_another_task_may_be_moved_to():
    doc = copy.deepcopy(LIFE)
    doc["tasks"]["maker"] = {"ops": [{"op": "mkdir", "cgroup": "made"}]}
    doc["tasks"]["sh"]["ops"].append({"op": "move", "cgroup": "made", "step": "move"})
    r = memtwin.run(doc)
    assert r.raw["nr_errors"] == 0
    assert r.steps.loc["move", "cgroup.nr_descendants"] == 2  # t and made


def test_the_plan_carries_the_root_file_system():
    """[machine] fs (default ext4) and fs_features reach the plan the real-kernel runners read."""
    doc = copy.deepcopy(LIFE)
    plan = memtwin.load(doc).doc.plan(None, [])
    assert (plan["machine"]["fs"], plan["machine"]["fs_features"]) == ("ext4", [])
    doc["machine"].update(fs="ext4", fs_features=["verity", "encrypt", "verity"])
    plan = memtwin.load(doc).doc.plan(None, [])
    assert (plan["machine"]["fs"], plan["machine"]["fs_features"]) == ("ext4", ["encrypt", "verity"])
    doc["machine"].update(fs="xfs", fs_features=[])
    assert memtwin.load(doc).doc.plan(None, [])["machine"]["fs"] == "xfs"
