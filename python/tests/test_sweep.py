"""`memtwin sweep`: ranges, the grid, bad input, resuming after SIGKILL, a crashing worker,
the tables and plots, and the same table on local processes and on a local Ray cluster."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import memtwin
from memtwin._memtwin import ScenarioError
from memtwin.sweep import Grid, expand_range, parse_axis_arg
from conftest import cli_run

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
KEY = 'cgroups.ct."memory.limit_in_bytes"'
FULL = f"{KEY}=8M..2G:x2"


def _sub(*args, env=None, **kw):
    e = dict(os.environ, MEMTWIN_PROGRESS="0", PYTHONPATH=str(ROOT / "python"), **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "memtwin.cli", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env=e, start_new_session=True, **kw)


# --- ranges and grids -----------------------------------------------------------------------------

def test_geometric_and_linear_ranges():
    assert expand_range("t", "8M..2G:x2") == (["8M", "16M", "32M", "64M", "128M", "256M", "512M", "1G", "2G"], "log")
    assert expand_range("t", "64M..256M:+64M") == (["64M", "128M", "192M", "256M"], "linear")
    assert expand_range("t", "64M..200M:+64M")[0] == ["64M", "128M", "192M"]  # HI only when a step lands on it
    assert expand_range("t", "128..8192:x4")[0] == ["128", "512", "2048", "8192"]  # plain numbers stay plain
    assert expand_range("t", "16M..16M:x2")[0] == ["16M"]


@pytest.mark.parametrize("item,what", [
    ("2G..8M:x2", "reversed"),
    ("8..2G:x2", "has no unit while the other end has one"),
    ("8M..2G:+8", "has no unit while its ends have one"),
    ("8M..2G", "has no step"),
    ("8M..2G:x1", "must be a number above 1"),
    ("8M..2G:+0M", "is not above 0"),
    ("..2G:x2", "has no start"),
    ("8Q..2G:x2", "is not a number or a size"),
])
def test_bad_ranges(item, what):
    with pytest.raises(ScenarioError) as e:
        expand_range("--grid K=" + item, item)
    msg = str(e.value)
    assert what in msg and "\n  fix: " in msg and msg.startswith("--grid K=")


def test_grid_product_and_zip():
    g = Grid.parse(["a=1,2", "b=x,y,z"], ["c=10,20", "d=u,v"])
    pts = g.points()
    assert len(pts) == 2 * 3 * 2
    assert pts[0] == [("a", "1"), ("b", "x"), ("c", "10"), ("d", "u")]
    assert pts[1] == [("a", "1"), ("b", "x"), ("c", "20"), ("d", "v")]  # zip keys advance together, last axis fastest
    with pytest.raises(ScenarioError, match="the --zip lists differ in length"):
        Grid.parse([], ["c=1,2", "d=1,2,3"])
    with pytest.raises(ScenarioError, match="no values"):
        parse_axis_arg("--grid", "a=")
    with pytest.raises(ScenarioError, match="swept twice"):
        Grid.parse(["a=1", "a=2"])
    assert parse_axis_arg("--grid", f"{KEY}=8M..32M:x2,max")[1] == ["8M", "16M", "32M", "max"]


# --- bad input ----------------------------------------------------------------------------------------

def test_unknown_key_is_refused_before_anything_runs(capsys, tmp_path):
    out = tmp_path / "sw"
    code, so, err = cli_run(capsys, "sweep", SEED, "--grid", 'cgroups.ct."memory.limt_in_bytes"=8M,16M', "--out", out)
    assert code == 2
    assert "unknown key `memory.limt_in_bytes`" in err and "did you mean `memory.limit_in_bytes`?" in err and "fix:" in err
    assert not out.exists()  # nothing written, nothing run


def test_bad_range_on_the_command_line(capsys, tmp_path):
    code, _, err = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=2G..8M:x2", "--out", tmp_path / "sw")
    assert code == 2 and "error: the range '2G..8M:x2' is reversed" in err and "fix:" in err


def test_unreachable_ray_address_fails_fast(capsys, tmp_path):
    t = time.monotonic()
    code, _, err = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M,16M", "--ray", "127.0.0.1:9", "--out", tmp_path / "sw")
    assert code == 2 and time.monotonic() - t < 15
    assert err.startswith("--ray 127.0.0.1:9: error: cannot reach a Ray cluster there") and "fix:" in err


def test_another_grid_in_the_same_dir_needs_force(capsys, tmp_path):
    out = tmp_path / "sw"
    assert cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M,2G", "--variants", "recharge", "--jobs", "1", "--no-plots", "--out", out)[0] == 0
    code, _, err = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M,1G", "--variants", "recharge", "--jobs", "1", "--no-plots", "--out", out)
    assert code == 2 and "holds another sweep (the grid differs" in err and "--force" in err
    code, so, _ = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M,1G", "--variants", "recharge", "--jobs", "1", "--no-plots", "--out", out, "--force")
    assert code == 0 and "1 already done" in so  # 8M [recharge] is the same point


# --- outputs --------------------------------------------------------------------------------------------

def test_tables_plots_and_html(capsys, tmp_path):
    import pandas as pd

    out = tmp_path / "sw"
    code, so, _ = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M..2G:x4", "--jobs", "2", "--out", out)
    assert code == 0, so
    assert "5 points x 2 variant(s) = 10 runs; 0 already done" in so
    assert "knee of read_bytes" in so and "  baseline: 2G" in so and "  recharge: 8M" in so
    df = pd.read_parquet(out / "sweep.parquet")
    csv = pd.read_csv(out / "sweep.csv")
    assert len(df) == len(csv) == 5 * 2 * 2  # points x variants x steps
    assert list(df.columns[:7]) == ["point", KEY, "variant", "source", "step_index", "step", "task"]
    assert list(df[KEY].unique()) == [8 << 20, 32 << 20, 128 << 20, 512 << 20, 2 << 30]
    assert list(df["variant"][:4]) == ["baseline", "baseline", "recharge", "recharge"]  # grid order, then variants, then steps
    assert {"read_bytes", "elapsed_s", "miss_ratio", "memcg.workingset_refault_file"} <= set(df.columns)
    first = df[(df["variant"] == "baseline") & (df[KEY] == 8 << 20)]
    assert list(first["read_bytes"]) == [1 << 30, 1 << 30] and list(first["miss_ratio"]) == [1.0, 1.0]
    html = (out / "sweep.html").read_text()
    assert html.count("data:image/png;base64,") >= 4 and "http://" not in html and "https://" not in html
    assert {p.name for p in out.glob("*.png")} >= {"sweep-read-bytes.png", "sweep-elapsed-s.png", "sweep-miss-ratio.png"}
    again = memtwin.sweep(SEED, grid={KEY: "8M..2G:x4"}, jobs=1, out=str(out))  # all done: read back, same table
    pd.testing.assert_frame_equal(again, df)


def test_two_keys_give_a_heatmap(capsys, tmp_path):
    out = tmp_path / "sw"
    code, so, _ = cli_run(capsys, "sweep", SEED, "--grid", f"{KEY}=8M,2G", "--grid", "devices.sda.read_ahead_kb=128,512",
                          "--variants", "baseline", "--jobs", "2", "--out", out)
    assert code == 0
    assert (out / "sweep-heatmap-read-bytes-baseline.png").exists()


# --- resuming and failures ------------------------------------------------------------------------------

SLOW = ["--set", 'files."/data/file_1gb".size=6G', "--variants", "recharge"]  # ~0.2 s a point: a kill lands mid-sweep


def test_sigkill_then_rerun_runs_only_the_missing_points(tmp_path):
    out = tmp_path / "sw"
    args = ["sweep", SEED, "--grid", FULL, *SLOW, "--jobs", "1", "--no-plots", "--out", out]
    p = _sub(*args)
    pts = out / "points"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None and len(list(pts.glob("*.json"))) < 3:
        time.sleep(0.02)
    assert p.poll() is None, "the sweep ended before it could be killed: " + p.communicate()[1]
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    kept = len(list(pts.glob("*.json")))
    assert 3 <= kept < 9
    q = _sub(*args)
    so, se = q.communicate(timeout=120)
    assert q.returncode == 0, se
    m = re.search(r"= 9 runs; (\d+) already done in .*, (\d+) to run", so)
    assert m, so
    assert int(m.group(1)) == kept and int(m.group(2)) == 9 - kept
    assert f"ran {9 - kept} in" in so
    assert len(list(pts.glob("*.json"))) == 9


def test_a_killed_worker_keeps_the_finished_points_and_lists_the_failed(tmp_path):
    out = tmp_path / "sw"
    args = ["sweep", SEED, "--grid", f"{KEY}=8M..128M:x2", "--variants", "recharge", "--jobs", "1", "--no-plots", "--out", out]
    p = _sub(*args, env={"MEMTWIN_SWEEP_TEST_CRASH": "64M"})
    so, se = p.communicate(timeout=120)
    assert p.returncode == 1
    assert "error: " in se and "runs failed" in se and "  fix: re-run the same command" in se
    assert "failed: " + KEY + "=64M [recharge]: its worker process died" in se
    done = len(list((out / "points").glob("*.json")))
    assert done == 3  # 8M, 16M and 32M ran before the crash
    q = _sub(*args)
    so, se = q.communicate(timeout=120)
    assert q.returncode == 0 and "3 already done" in so and "2 to run" in so, se


# --- local processes and Ray: the same table -----------------------------------------------------------

def test_local_and_ray_tables_are_identical(tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'memtwin[ray]'): the Ray sweep is not tested")
    import pandas as pd

    local = memtwin.sweep(SEED, grid={KEY: "8M..2G:x2"}, jobs=2, out=str(tmp_path / "local"))
    on_ray = memtwin.sweep(SEED, grid={KEY: "8M..2G:x2"}, jobs=2, ray="local", out=str(tmp_path / "ray"))
    assert not ray.is_initialized()  # the cluster it started is shut down
    assert len(local) == 9 * 2 * 2
    pd.testing.assert_frame_equal(local, on_ray)
    assert (tmp_path / "local" / "sweep.csv").read_bytes() == (tmp_path / "ray" / "sweep.csv").read_bytes()


# --- on this host's kernel --------------------------------------------------------------------------------

def test_sweep_on_the_host_puts_the_kernels_points_beside_the_twins(capsys, tmp_path):
    from memtwin import real

    ok, why = real.host_ready()
    if not ok:
        pytest.skip(f"host runner unavailable: {why}")
    import pandas as pd

    out = tmp_path / "sw"
    tight = ROOT / "scenarios" / "validation" / "host-reread-tight.toml"
    code, so, err = cli_run(capsys, "sweep", tight, "--grid", 'cgroups.A."memory.limit_in_bytes"=48M,max', "--on", "host", "--out", out)
    assert code == 0, err
    assert "read_bytes (kernel)" in so
    df = pd.read_parquet(out / "sweep.parquet")
    assert list(df["source"]) == ["engine", "engine", "real", "real"] * 2
    real_48 = df[(df["source"] == "real") & (df['cgroups.A."memory.limit_in_bytes"'] == 48 << 20)]
    assert real_48["read_bytes"].sum() >= 120 << 20  # the file is read twice from disk under 48M
    data = json.loads((out / "sweep.json").read_text())
    assert data["on"] == "host" and data["points"][0]["real"]["info"]["on"] == "host"


# --- miss_ratio of a mapped-file workload (mm20, issue 20 N2) ------------------------------------

MAPPED = """
[scenario]
name = "mapped-miss-ratio"
[machine]
ram = "1G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "400M"
[files."/data/db"]
size = "16M"
[cgroups.ct]
"memory.max" = "64M"
[tasks.t]
cgroup = "ct"
ops = [
  { op = "mmap", name = "db", file = "/data/db", shared = true, step = "map" },
  { op = "touch", name = "db", access = "read", step = "cold" },
  { op = "touch", name = "db", access = "read", pattern = "random", count = 4000, step = "warm" },
]
"""


def test_miss_ratio_counts_mapped_file_accesses(capsys, tmp_path):
    """miss_ratio of a workload that reads a file through a mapping (no read()): every access of
    the cold sequential touch is a miss (its page read by the fault or by read-around for it:
    mm/filemap.c filemap_fault() / do_sync_mmap_readahead(), 6.1), the warm random touches hit
    when the file fits in memory.max and mostly miss when it does not (4M of a 16M file)."""
    scn = tmp_path / "mapped.toml"
    scn.write_text(MAPPED)
    out = tmp_path / "sw"
    code, so, _ = cli_run(capsys, "sweep", scn, "--grid", 'cgroups.ct."memory.max"=4M,64M', "--jobs", "1", "--no-plots", "--out", out)
    assert code == 0, so
    import pandas as pd

    df = pd.read_csv(out / "sweep.csv")
    key = 'cgroups.ct."memory.max"'
    row = {(r[key], r["step"]): r for _, r in df.iterrows()}
    for limit in (4 << 20, 64 << 20):
        cold = row[(limit, "cold")]
        assert cold["pagecache_miss_pages"] == 4096 and cold["pagecache_hit_pages"] == 0
        assert cold["miss_ratio"] == 1.0
    warm_fits, warm_tight = row[(64 << 20, "warm")], row[(4 << 20, "warm")]
    assert warm_fits["pagecache_hit_pages"] + warm_fits["pagecache_miss_pages"] == 4000  # one per access
    assert warm_fits["miss_ratio"] == 0.0
    assert warm_tight["miss_ratio"] > 0.5
    # the major faults are among the misses: a miss is a fault's read or read-around's page
    assert warm_tight["vmstat.pgmajfault"] <= warm_tight["pagecache_miss_pages"]
