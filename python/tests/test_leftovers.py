"""What killed memtwin runs leave behind: `memtwin lab doctor` lists it, `memtwin lab clean`
removes it, only memtwin's own and only once the process that made it is gone. (The SIGKILL of
a real host run is in test_real.py.)"""

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from memtwin import leftovers, real

from conftest import cli_run

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="host runs' leftovers are root's: needs root")


@pytest.fixture
def dead():
    """(pid, start) of a process that ran and is gone."""
    p = subprocess.Popen(["sleep", "30"])
    start = leftovers.proc_start(p.pid)
    p.kill()
    p.wait()
    return p.pid, start


@pytest.fixture
def alive():
    """(pid, start) of a process that runs for the test."""
    p = subprocess.Popen(["sleep", "300"])
    yield p.pid, leftovers.proc_start(p.pid)
    p.kill()
    p.wait()


@pytest.fixture
def scratch():
    """A scratch parent on disk (as --scratch DIR), removed afterwards."""
    d = tempfile.mkdtemp(prefix="lefttest-", dir="/var/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _owned(parent, pid, start, kind="host", name=None):
    name = name or f"memtwin-{pid}-{start}-{os.urandom(4).hex()}"
    d = os.path.join(parent, name)
    os.mkdir(d)
    with open(os.path.join(d, leftovers.OWNER_FILE), "w") as f:
        json.dump({"made_by": "memtwin", "kind": kind, "pid": pid, "start": start, "boot_id": leftovers.boot_id()}, f)
    with open(os.path.join(d, "disk.img"), "wb") as f:
        f.write(b"x" * 8192)
    return d


def test_a_run_id_names_the_process_and_its_start_time():
    rid = leftovers.run_id()
    pid, start, _ = rid.split("-")
    assert int(pid) == os.getpid() and int(start) == leftovers.proc_start(os.getpid()) > 0
    assert leftovers.NAME_RE.match("memtwin-" + rid)
    assert leftovers.owner_alive(os.getpid(), int(start))
    assert not leftovers.owner_alive(os.getpid(), int(start) + 1), "a reused PID is not the owner"
    assert not leftovers.owner_alive(os.getpid(), int(start), "another-boot")


def test_a_zombie_owner_is_gone():
    p = subprocess.Popen(["true"])
    import time

    deadline = time.time() + 10
    while leftovers.proc_start(p.pid) is not None and time.time() < deadline:
        time.sleep(0.02)  # a zombie until waited for
    assert leftovers.proc_start(p.pid) is None and os.path.exists(f"/proc/{p.pid}")
    p.wait()


@ROOT_ONLY
def test_lab_clean_removes_a_dead_runs_scratch_and_leaves_a_live_runs_alone(scratch, dead, alive, capsys):
    gone = _owned(scratch, *dead)
    live = _owned(scratch, *alive)
    reused = _owned(scratch, alive[0], alive[1] + 7)  # the owner's PID, now another process's
    code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", scratch)
    assert f"{os.path.basename(gone)} (pid {dead[0]} gone)" in out
    assert f"scratch directory {gone}" in out and f"scratch directory {reused}" in out
    assert f"run in progress: {os.path.basename(live)} (pid {alive[0]} running): left alone" in out
    code, out, err = cli_run(capsys, "lab", "clean", "--scratch", scratch)
    assert code == 0, err
    assert f"removed: scratch directory {gone}" in out and f"removed: scratch directory {reused}" in out
    assert f"left alone: {os.path.basename(live)}: its owner, pid {alive[0]} running, is a run in progress" in out
    assert not os.path.exists(gone) and not os.path.exists(reused)
    assert os.path.isdir(live) and os.path.exists(os.path.join(live, "disk.img")), "a live run is never touched"


@ROOT_ONLY
def test_only_memtwins_own_names_are_touched(scratch, dead, capsys):
    others = [os.path.join(scratch, n) for n in ("memtwin-hostcache-abc", "memtwin-12-x", "other-1-2-deadbeef")]
    for d in others:
        os.mkdir(d)
    code, out, err = cli_run(capsys, "lab", "clean", "--scratch", scratch)
    assert code == 0 and "nothing to clean" in out
    assert all(os.path.isdir(d) for d in others)


@pytest.mark.skipif(os.geteuid() != 0 or not real.host_ready()[0], reason="needs root and a writable memory controller")
def test_lab_clean_rmdirs_a_dead_runs_cgroups_deepest_first_and_never_a_live_ones(dead, alive, scratch, capsys):
    _, mnt = real.find_memory_controller()
    made = []
    try:
        live = os.path.join(mnt, f"memtwin-{alive[0]}-{alive[1]}-{os.urandom(4).hex()}")
        gone = os.path.join(mnt, f"memtwin-{dead[0]}-{dead[1]}-{os.urandom(4).hex()}")
        for top in (live, gone):
            made.append(top)
            os.makedirs(os.path.join(top, "A", "B"))
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", scratch)
        assert f"cgroup {gone} (and 2 below it)" in out
        assert f"run in progress: {os.path.basename(live)}" in out
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", scratch)
        assert code == 0, err
        assert f"removed: cgroup {gone} (with everything below it)" in out
        assert not os.path.exists(gone)
        assert os.path.isdir(os.path.join(live, "A", "B")), "the live run's cgroups stay"
    finally:
        for top in made:
            for d in sorted((dp for dp, _, _ in os.walk(top)), key=lambda p: -p.count("/")):
                os.rmdir(d)


@pytest.mark.skipif(os.geteuid() != 0 or not real.host_ready()[0], reason="needs root and a writable memory controller")
def test_a_dead_runs_cgroup_with_tasks_is_reported_not_removed(dead, scratch, capsys):
    _, mnt = real.find_memory_controller()
    top = os.path.join(mnt, f"memtwin-{dead[0]}-{dead[1]}-{os.urandom(4).hex()}")
    os.mkdir(top)
    p = subprocess.Popen(["sleep", "300"])
    try:
        with open(os.path.join(top, "cgroup.procs"), "w") as f:
            f.write(str(p.pid))
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", scratch)
        assert code == 1
        assert f"cgroup {top}: still has tasks: {p.pid} (sleep 300)" in err and "  fix: " in err
        assert os.path.isdir(top)
    finally:
        p.kill()
        p.wait()
        for _ in range(50):
            try:
                os.rmdir(top)
                break
            except OSError:
                import time

                time.sleep(0.1)


def test_qemu_run_directories_are_cleaned_only_with_a_dead_owner(tmp_path, dead, alive, capsys):
    work = tmp_path / "lab"
    work.mkdir()
    gone = _owned(str(work), *dead, kind="qemu", name="run-abc123")
    live = _owned(str(work), *alive, kind="qemu", name="run-def456")
    unknown = work / "run-xyz789"  # made before owner files, or by someone else
    unknown.mkdir()
    (work / "kpkg").mkdir()
    code, out, err = cli_run(capsys, "lab", "doctor", "--workdir", work)
    assert f"QEMU run directory {gone}" in out
    assert f"unknown: {unknown}: no owner file" in out
    code, out, err = cli_run(capsys, "lab", "clean", "--workdir", work)
    assert code == 0, err
    assert f"removed: QEMU run directory {gone}" in out
    assert not os.path.exists(gone)
    assert os.path.isdir(live) and unknown.is_dir() and (work / "kpkg").is_dir()


def test_doctor_says_it_cannot_see_host_leftovers_without_root(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    code, out, err = cli_run(capsys, "lab", "doctor")
    assert "leftovers: not root: cannot see or remove the host runner's cgroups, loop devices and mounts" in out
    assert "\n  fix: sudo memtwin lab doctor" in out
    code, out, err = cli_run(capsys, "lab", "clean")
    assert "memtwin lab clean: not root: cannot see or remove" in err and "fix: sudo memtwin lab clean" in err


def test_real_warns_about_leftovers_and_names_lab_clean(tmp_path, dead, capsys):
    work = tmp_path / "lab"
    work.mkdir()
    _owned(str(work), *dead, kind="qemu", name="run-abc123")
    scn = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "scenarios", "validation", "host-first-reader.toml")
    code, out, err = cli_run(capsys, "real", scn, "--on", "qemu", "--workdir", work, "--kernel", tmp_path / "nope")
    assert code == 2  # no such kernel: the run itself does not start
    assert "memtwin real: warning: 1 killed memtwin run(s) left 1 scratch directory(ies) (" in err
    assert "  fix: memtwin lab clean (memtwin lab doctor lists them)" in err


@pytest.mark.parametrize("still_attached", [False, True])
def test_lab_clean_counts_a_loop_device_that_detached_itself_as_removed(monkeypatch, dead, still_attached):
    """`losetup -d` fails with ENXIO when the loop device went meanwhile (LO_FLAGS_AUTOCLEAR once
    the mount above it is unmounted, or another clean): that is not a leftover, and clean says so
    and exits 0; a device still attached to the run's image after a failed detach is a problem."""
    pid, start = dead
    dev, img = "/dev/loop77", "/var/tmp/memtwin-x/disk.img"
    run = leftovers.Run(name=f"memtwin-{pid}-{start}-0000", kind="host", pid=pid, start=start,
                        boot=leftovers.boot_id(), recorded=True, loops=[(dev, img)])
    monkeypatch.setattr(leftovers, "find", lambda *a, **k: [run])
    monkeypatch.setattr(leftovers, "unthrottle_loop", lambda d: [])
    monkeypatch.setattr(leftovers, "_loops", lambda: [(dev, img)] if still_attached else [])
    monkeypatch.setattr(leftovers, "_run", lambda cmd: subprocess.CompletedProcess(
        cmd, 1, "", f"losetup: {dev}: detach failed: No such device or address"))
    outs, errs = [], []
    code = leftovers.clean(outs.append, errs.append)
    if still_attached:
        assert code == 1 and any(f"loop device {dev}: losetup" in e for e in errs), errs
    else:
        assert code == 0, errs
        assert f"removed: loop device {dev} (backing file {img}; it had detached itself)" in outs
