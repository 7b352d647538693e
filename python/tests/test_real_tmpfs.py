"""tmpfs21c: the host runner's tmpfs mounts (real.HostRun._tmpfs): mounted below the run's scratch
directory with the scenario's huge=, the host's shmem_enabled knobs and per-size shmem counters
recorded, and every mount removed on every exit path: a failing step, SIGTERM mid-run, and after a
SIGKILL by `memtwin lab clean` (leftovers.find: a tmpfs mount below a memtwin scratch directory,
unmounted before the run's swap file is swapped off). Host runs need root and a writable memory
controller; they skip with the reason otherwise."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

import memtwin
from memtwin import leftovers, real

from conftest import cli_run
from test_real import _made_by_run

HOST_OK, HOST_WHY = real.host_ready()
needs_host = pytest.mark.skipif(not HOST_OK, reason=f"host runner unavailable: {HOST_WHY}")

TMPFS = """
[scenario]
name = "tmpfs"
[machine]
ram = "4G"
%(swap)s
[kernel]
profile = "linux-6.18"
cgroup = "v1"
[devices.sda]
read_bw = "500M"
read_ahead_kb = 128
[mounts."/mnt/t"]
fs = "tmpfs"
huge = "%(huge)s"
[files."/mnt/t/f"]
size = "0"
[cgroups.A]
"memory.limit_in_bytes" = "%(limit)s"
[tasks.t]
cgroup = "A"
ops = [
  { op = "write", file = "/mnt/t/f", length = "%(length)s", bufsize = "1M", create = true, step = "write" },
  %(extra)s
]
"""


def _scn(tmp_path, huge="always", limit="256M", length="8M", extra="", swap=""):
    p = tmp_path / "s.toml"
    p.write_text(TMPFS % {"huge": huge, "limit": limit, "length": length, "extra": extra, "swap": swap})
    return str(p)


def test_tmpfs_mounts_refuse_a_sized_tmpfs_file_and_leave_other_mounts():
    plan = {"mounts": [{"path": "/mnt/t", "fs": "tmpfs", "huge": "always"}], "files": [{"path": "/mnt/t/f", "size": 0}]}
    assert [m["path"] for m in real.tmpfs_mounts(plan)] == ["/mnt/t"]
    with pytest.raises(real.RealError, match=r'(?s)\[files\."/mnt/t/f"\] size = 4096: a file on a tmpfs mount starts empty.*fix: declare it with size = "0"'):
        real.tmpfs_mounts({"mounts": plan["mounts"], "files": [{"path": "/mnt/t/f", "size": 4096}]})
    assert real.tmpfs_mounts({"mounts": [{"path": "/mnt/x", "fs": "xfs"}], "files": [{"path": "/mnt/x/f", "size": 4096}]}) == []
    assert real.on_tmpfs("/mnt/t/f", plan["mounts"]) and not real.on_tmpfs("/mnt/tt/f", plan["mounts"])


def test_shmem_enabled_settings_and_mthp_stats_read_a_sysfs_tree(tmp_path):
    d = tmp_path / "thp"
    (d / "hugepages-2048kB" / "stats").mkdir(parents=True)
    (d / "hugepages-64kB" / "stats").mkdir(parents=True)
    (d / "shmem_enabled").write_text("always within_size advise [never] deny force\n")
    (d / "hugepages-2048kB" / "shmem_enabled").write_text("always [inherit] within_size advise never\n")
    (d / "hugepages-64kB" / "shmem_enabled").write_text("always inherit within_size advise [never]\n")
    for z, n in (("2048", 6), ("64", 3)):
        for k in real.MTHP_SHMEM_STATS:
            (d / f"hugepages-{z}kB" / "stats" / k).write_text(f"{n}\n")
    assert real.shmem_enabled_settings(str(d)) == {"shmem_enabled": "never", "hugepages-64kB": "never", "hugepages-2048kB": "inherit"}
    assert real.mthp_shmem_stats(str(d)) == {2048: dict.fromkeys(real.MTHP_SHMEM_STATS, 6), 64: dict.fromkeys(real.MTHP_SHMEM_STATS, 3)}
    assert real.mthp_shmem_stats(str(tmp_path / "none")) == {}


def test_metrics_sum_the_shmem_counters_of_the_sizes_below_2m():
    class S:
        pass

    a, b = S(), S()
    for s, (small, pmd) in ((a, (1, 5)), (b, (4, 9))):
        s.t, s.user, s.sys, s.iowait = 0.0, 0.0, 0.0, None
        s.io = {"read_bytes": 0, "write_bytes": 0}
        s.memcg = {"usage": 0, "max_usage": None, "file": 0, "failcnt": None, "events": {}}
        s.vm = {}
        s.mthp = {64: {"shmem_alloc": small, "shmem_fallback": 0, "shmem_fallback_charge": 0},
                  1024: {"shmem_alloc": small, "shmem_fallback": 1, "shmem_fallback_charge": 1},
                  2048: {"shmem_alloc": pmd, "shmem_fallback": 0, "shmem_fallback_charge": 0}}
    m = real.metrics_from(a, b, {}, None)
    assert (m["mthp.shmem_alloc"], m["mthp.shmem_fallback"], m["mthp.shmem_fallback_charge"]) == (6, 0, 0)
    del a.mthp
    assert "mthp.shmem_alloc" not in real.metrics_from(a, b, {}, None), "only where the run has a tmpfs mount"


def _tmpfs_mounts_below(parent):
    return [m["mnt"] for m in real._mounts() if m["mnt"].startswith(parent.rstrip("/") + "/") and m["fstype"] == "tmpfs"]


@needs_host
def test_a_host_run_mounts_its_tmpfs_with_huge_and_records_the_knobs(tmp_path, capsys):
    parent = tempfile.mkdtemp(prefix="memtwin-test-tmpfs-", dir="/var/tmp")
    try:
        out = str(tmp_path / "r.json")
        code, o, err = cli_run(capsys, "real", _scn(tmp_path, huge="always", extra='{ op = "read", file = "/mnt/t/f", step = "read" },'),
                               "--on", "host", "--scratch", parent, "--json", out)
        assert code == 0, o + err
        import json
        v = json.load(open(out))["variants"]
        v = v[0] if isinstance(v, list) else list(v.values())[0]
        mach = v["real"]["machine"]
        assert mach["tmpfs"] == [{"path": "/mnt/t", "options": "huge=always", "shown": mach["tmpfs"][0]["shown"]}]
        assert "huge=always" in mach["tmpfs"][0]["shown"]
        assert mach["shmem_enabled"]["shmem_enabled"] in ("never", "always", "within_size", "advise", "deny", "force")
        w = v["steps"][0]["metrics"]
        assert w["memcg.shmem_bytes"] == 8 << 20 and "mthp.shmem_alloc" in w
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
    finally:
        cli_run(capsys, "lab", "clean", "--scratch", parent)
        shutil.rmtree(parent, ignore_errors=True)


@needs_host
def test_a_failing_step_unmounts_the_tmpfs(tmp_path, capsys):
    parent = tempfile.mkdtemp(prefix="memtwin-test-tmpfs-", dir="/var/tmp")
    try:
        scn = _scn(tmp_path, extra='{ op = "mkdir", cgroup = "A/x", step = "mk" }, { op = "move", cgroup = "A/x", step = "in" }, '
                                   '{ op = "rmdir", cgroup = "A/x", step = "rm" },')
        code, out, err = cli_run(capsys, "real", scn, "--on", "host", "--scratch", parent)
        assert code == 2 and "rmdir failed on the real kernel" in err
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
    finally:
        cli_run(capsys, "lab", "clean", "--scratch", parent)
        shutil.rmtree(parent, ignore_errors=True)


def _start(tmp_path, parent, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(memtwin.__file__)))
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", _scn(tmp_path, **kw), "--on", "host", "--scratch", parent],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 90
    while time.time() < deadline and p.poll() is None and not _tmpfs_mounts_below(parent):
        time.sleep(0.05)
    assert p.poll() is None, "the run ended early: " + p.communicate()[1]
    assert _tmpfs_mounts_below(parent), "the run never mounted its tmpfs"
    # into the sleep step: the tmpfs file written (polled: a loaded machine is slow)
    deadline = time.time() + 60
    f = os.path.join(_tmpfs_mounts_below(parent)[0], "f")
    while time.time() < deadline and p.poll() is None and not (os.path.exists(f) and os.path.getsize(f) == 8 << 20):
        time.sleep(0.05)
    return p


@needs_host
def test_sigterm_mid_run_unmounts_the_tmpfs_and_swaps_off(tmp_path):
    """SIGTERM while the tmpfs file is swapped out (a 4M memcg, an 8M file, a 64M swap file):
    the tmpfs goes before swapoff, which would otherwise read the file back into the memcg and
    fail (ENOMEM), leaving the swap file on."""
    if leftovers.active_swaps():
        pytest.skip("this host swaps already: the host runner refuses swap")
    parent = tempfile.mkdtemp(prefix="memtwin-test-tmpfs-", dir="/var/tmp")
    p = _start(tmp_path, parent, limit="4M", swap='swap = "64M"', extra='{ op = "sleep", duration = "60s", step = "wait" },')
    try:
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 130 and "SIGTERM" in err, err
        assert "could not remove" not in err, err
        assert not [s for s in leftovers.active_swaps() if parent in s]
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for s in leftovers.active_swaps():
            if parent in s:
                subprocess.run(["swapoff", s])
        shutil.rmtree(parent, ignore_errors=True)


@needs_host
def test_sigkill_leaves_a_tmpfs_mount_that_lab_doctor_names_and_lab_clean_removes(tmp_path, capsys):
    if leftovers.active_swaps():
        pytest.skip("this host swaps already: the host runner refuses swap")
    parent = tempfile.mkdtemp(prefix="memtwin-test-tmpfs-", dir="/var/tmp")
    p = _start(tmp_path, parent, limit="4M", swap='swap = "64M"', extra='{ op = "sleep", duration = "120s", step = "wait" },')
    try:
        tm = _tmpfs_mounts_below(parent)
        p.kill()
        p.wait()
        left = _made_by_run(parent)
        assert set(tm) <= set(left["mounts"]) and len(left["scratch"]) == 1, left
        deadline = time.time() + 10
        while time.time() < deadline and any(open(os.path.join(dp, "cgroup.procs")).read().split()
                                             for dp, _, _ in os.walk(left["cgroups"][0])):
            time.sleep(0.05)
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", parent)
        assert f"mount {tm[0]} (tmpfs)" in out, out
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0, out + err
        assert f"removed: mount {tm[0]} (tmpfs)" in out and "swapped off" in out, out
        # the tmpfs went before the swap file (whose swapoff would read the file back in)
        assert out.index(f"removed: mount {tm[0]}") < out.index("swapped off"), out
        assert not [s for s in leftovers.active_swaps() if parent in s]
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        cli_run(capsys, "lab", "clean", "--scratch", parent)
        for s in leftovers.active_swaps():
            if parent in s:
                subprocess.run(["swapoff", s])
        shutil.rmtree(parent, ignore_errors=True)
