"""Issue 17: per-step resident pages of the step's own files with the machine's total in
`pagecache`, whole-machine snapshots on request, the real runners' view of the same, and the
scaling benchmark's pieces."""

import math

import memtwin
from memtwin import _memtwin, real, scalebench
from memtwin.validate import _value


def _two_tasks(resident: str = None) -> dict:
    d = {
        "scenario": {"name": "rp"},
        "machine": {"ram": "1G", "cpus": 2},
        "kernel": {"profile": "linux-6.1", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "1G"}},
        "files": {"/a": {"size": "1M"}, "/b": {"size": "2M"}, "/c": {"size": "1M"}},
        "cgroups": {"x": {}, "y": {}},
        "tasks": {
            "t": {"cgroup": "x", "ops": [{"op": "read", "file": "/a", "step": "a"}, {"op": "read", "file": "/c", "step": "c"}]},
            "u": {"cgroup": "y", "start": "1s", "ops": [{"op": "read", "file": "/b", "step": "b"}]},
        },
    }
    if resident:
        d["report"] = {"resident_pages": resident}
    return d


def test_a_step_lists_its_own_files_and_the_machine_total():
    out = _memtwin.load_dict(_two_tasks(), "rp").run(None, [], None)
    by = {s["name"]: s for s in out["steps"]}
    assert by["a"]["resident_pages"] == {"/a": 256}
    assert by["c"]["resident_pages"] == {"/c": 256}
    assert by["b"]["resident_pages"] == {"/b": 512}
    assert by["b"]["pagecache"] == 1024  # /a, /c and /b all cached
    assert _value(by["b"], "resident_pages") == 1024.0


def test_resident_pages_all_gives_every_file_every_step():
    out = _memtwin.load_dict(_two_tasks("all"), "rp").run(None, [], None)
    by = {s["name"]: s for s in out["steps"]}
    assert by["b"]["resident_pages"] == {"/a": 256, "/b": 512, "/c": 256}
    assert all(sum(s["resident_pages"].values()) == s["pagecache"] for s in out["steps"])
    # the per-step metrics do not depend on the report setting
    step = _memtwin.load_dict(_two_tasks(), "rp").run(None, [], None)
    assert [s["metrics"] for s in step["steps"]] == [s["metrics"] for s in out["steps"]]


def test_bad_resident_pages_setting_is_refused():
    try:
        _memtwin.load_dict(_two_tasks("some"), "rp").run(None, [], None)
    except memtwin.ScenarioError as e:
        assert "report.resident_pages" in str(e)
    else:
        raise AssertionError("accepted resident_pages = some")


def test_real_runners_view_matches_the_engines():
    res_all = {"/a": 256, "/b": 512, "/c": 10}
    ops = [{"op": "read", "file": "/a", "step": "s"}, {"op": "fadvise", "path": "/d", "files": ["/c"], "step": "s"}]
    assert real.step_view(res_all, ops, "step") == ({"/a": 256, "/c": 10}, 778)
    assert real.step_view(res_all, ops, "all") == (res_all, 778)
    # runs recorded before issue 17 have no pagecache: their full snapshot is summed
    assert _value({"resident_pages": res_all, "metrics": {}}, "resident_pages") == 778.0


def test_fit_exponent():
    xs = [1, 2, 4, 8]
    assert math.isclose(scalebench.fit_exponent(xs, [3 * x**1.5 for x in xs]), 1.5)
    assert scalebench.fit_exponent([1], [1]) is None


def test_scale_points_run():
    for kind, size in (("ram", "16G"), ("containers", 50), ("files", 2000), ("reread", 64)):
        r = scalebench.run_point(kind, size)
        assert r["wall_s"] > 0 and r["peak_rss_bytes"] > 0 and r["page_events"] > 0, r
        assert r["cpu_s"] == r["user_s"] + r["sys_s"] and r["user_s"] > 0 and r["minor_faults"] > 0, r
    c = scalebench.run_point("containers", 50)
    assert c["steps"] == 50 and c["entries"] == 50  # one file per container's step, not 50 x 50


def test_format_scale_shows_cpu_faults_and_load():
    row = {"size": 100, "wall_s": 2.0, "build_s": 0.1, "user_s": 1.5, "sys_s": 0.25, "cpu_s": 1.75, "minor_faults": 1234, "peak_rss_bytes": 1 << 30, "page_events": 99, "load_avg_1m": 3.5}
    row2 = dict(row, size=200, wall_s=4.0, user_s=3.0, sys_s=0.5, cpu_s=3.5)
    rows = [row, row2, {"size": 400, "error": "stopped after 9 s"}]
    xs = [100.0, 200.0]
    t = {
        "rows": rows,
        "time_exponent": scalebench.fit_exponent(xs, [2.0, 4.0]),
        "cpu_exponent": scalebench.fit_exponent(xs, [1.75, 3.5]),
        "user_exponent": scalebench.fit_exponent(xs, [1.5, 3.0]),
        "rss_exponent": scalebench.fit_exponent(xs, [1.0, 1.0]),
    }
    text = scalebench.format_scale({"date": "2026-11-28", "tables": {"containers": t}})
    lines = text.splitlines()
    assert lines[4].split() == ["100", "2.00", "0.10", "1.50", "0.25", "1234", "1.00", "G", "99", "3.5"], lines
    assert "stopped after 9 s" in lines[6]
    assert lines[7].strip() == "growth exponent (least squares on log-log): wall 1.00, CPU 1.00 (user 1.00), peak RSS 0.00", lines
