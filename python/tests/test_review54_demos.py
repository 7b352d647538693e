"""review54: failing-test demonstrations of defects found in what landed on main since ca5a12e7
(the reviewer's branch h-review54; not for main as they stand: each fails on main's code and
names the fix it wants, in the review report).

- L1 (fd9dca4a): hostcal's callers now make their file / memcg / trace instance inside the `try:`
  whose `finally` removes it, so when the making fails because the thing is already there
  (O_EXCL's FileExistsError, mkdir's EEXIST) the `finally` removes what is not this call's.
  _write_file() itself re-raises FileExistsError untouched ("the file is not this call's");
  test_an_existing_file_is_not_the_calibrations_to_remove checks only that, not its callers.
- L2 (f290e443): bt_recording.sh, now "run from anywhere", cds to the repository's top before it
  makes OUT: a relative OUT (or bt_rounds.sh's relative OUTDIR) lands below the repository, not
  where the caller stands.
"""

import os
import shutil
import subprocess

import pytest

from memtwin import hostcal

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def test_read_ns_by_order_leaves_a_file_that_was_there(tmp_path):
    p = tmp_path / "memtwin-hostcal-read-o0"
    p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal.read_ns_by_order(str(tmp_path), orders=(0,))
    assert p.exists(), "read_ns_by_order's finally removed a file _write_file refused as not its own"


def test_loop_read_window_ns_leaves_a_file_that_was_there(tmp_path):
    p = tmp_path / "memtwin-hostcal-window"
    p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal.loop_read_window_ns(str(tmp_path))
    assert p.exists(), "loop_read_window_ns's finally removed a file _write_file refused as not its own"


def _fake_reclaim_host(tmp_path):
    """As test_hostcal._fake_reclaim_host: /sys/block with loop9, the v1 blkio hierarchy, the
    run's cgroup, tracefs and the scratch file system in tmp directories."""
    sysfs, blkio, top, tracefs, fs = (tmp_path / n for n in ("block", "blkio", "memtwin-1-2-0badf00d", "tracefs", "fs"))
    (sysfs / "loop9" / "queue").mkdir(parents=True)
    (sysfs / "loop9" / "dev").write_text("7:9\n")
    (sysfs / "loop9" / "queue" / "read_ahead_kb").write_text("128\n")
    blkio.mkdir()
    (blkio / "blkio.throttle.read_bps_device").write_text("")
    for d in (top, tracefs / "instances", fs):
        d.mkdir(parents=True)

    class Run:
        loop, version, id, throttled = "/dev/loop9", "v1", "1-2-0badf00d", None
        traces = {}

    return Run, sysfs, blkio, top, tracefs, fs


@pytest.mark.parametrize("there", ["memcg", "trace instance"])
def test_reclaim_call_ns_leaves_what_was_there(tmp_path, monkeypatch, there):
    Run, sysfs, blkio, top, tracefs, fs = _fake_reclaim_host(tmp_path)
    memcg = top / "memtwin-hostcal"
    inst = tracefs / "instances" / f"memtwin-{Run.id}-hostcal"
    (memcg if there == "memcg" else inst).mkdir()
    monkeypatch.setattr(hostcal, "RECLAIM_FILE_BYTES", 1 << 20)
    real_write = hostcal._write
    # the stand-in memcg takes no control-file write (as in test_hostcal)
    monkeypatch.setattr(hostcal, "_write", lambda p, v: None if p.startswith(str(memcg) + os.sep) else real_write(p, v))
    with pytest.raises(FileExistsError):
        hostcal.reclaim_call_ns(Run, str(fs), str(memcg), "tasks", str(tracefs), [], sysfs=str(sysfs), blkio=str(blkio))
    assert (memcg if there == "memcg" else inst).is_dir(), f"reclaim_call_ns's finally removed a {there} its mkdir refused as not its own"
    assert Run.traces == {}


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bt_recording_makes_a_relative_out_where_it_is_called(tmp_path):
    """bt_recording.sh with a relative OUT, called from outside the repository: OUT is made
    relative to the caller (the recorder itself is stubbed: `timeout` is a no-op here, so no
    lock is taken and nothing is recorded)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "timeout").write_text("#!/bin/sh\nexit 0\n")
    (bin_ / "timeout").chmod(0o755)
    name = f"review54-out-{os.getpid()}"
    stray = os.path.join(ROOT, name)
    script = os.path.join(ROOT, "lab/validation/trace-idle-wait-1130/bt_recording.sh")
    bt = os.path.join(ROOT, "lab/validation/trace-idle-wait-1130/preempt-1201s/bound.bt")
    env = dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}", OUT=name, SCN="x", VARIANT="y")
    try:
        r = subprocess.run(["bash", script, bt], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        made_in_repo = os.path.isdir(stray)
        assert (tmp_path / name).is_dir() and not made_in_repo, \
            f"OUT={name} made in {'the repository' if made_in_repo else 'neither place'}, not in the caller's {tmp_path}"
    finally:
        shutil.rmtree(stray, ignore_errors=True)
