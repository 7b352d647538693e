"""memtwin calibrate: the host runner's disk measured and written as a [devices] table. The
measuring run needs root and a loop device (skips with the reason otherwise); bad arguments
are refused before anything is made."""

import json
import os

import pytest

import memtwin
from memtwin import real

from conftest import cli_run

HOST_OK, HOST_WHY = real.host_ready()
needs_host = pytest.mark.skipif(not HOST_OK, reason=f"host runner unavailable: {HOST_WHY}")


@pytest.mark.parametrize("args, msg", [
    (["--size", "5M"], r"--size 5M: error: give a whole number of MiB, at least 16M"),
    (["--size", "lots"], r"not a size"),
    (["--throttle", "400M"], r"--throttle 400M: error: give READ,WRITE bandwidths"),
    (["--throttle", "400M,x"], r"--throttle 400M,x: error: not two sizes"),
    (["--throttle", "0,100M"], r"bandwidths must be positive"),
    (["--repeat", "0"], r"--repeat and --samples must be at least 1"),
    (["--out", "/nonexistent-dir/x.toml"], r"its directory does not exist"),
    (["--dir", "/nonexistent-dir"], r"--dir /nonexistent-dir: error: no such directory"),
    (["--dir", "/", "--throttle", "400M,300M"], r"--dir / --throttle: error: --dir measures the disk beneath DIR as it is"),
    (["--dir", "/", "--read-ahead-kb", "64"], r"--dir / --read-ahead-kb: error: --dir keeps the device's own read_ahead_kb"),
    (["--dir", "/proc"], r"--dir /proc: error: its file system is not on a block device"),
])
def test_bad_arguments_are_refused_before_anything_is_made(capsys, monkeypatch, args, msg):
    import re
    monkeypatch.setattr(real, "HostRun", None)  # nothing may be set up
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    code, out, err = cli_run(capsys, "calibrate", *args)
    assert code == 2 and re.search(msg, err) and "fix:" in err and out == ""


def test_non_root_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    code, out, err = cli_run(capsys, "calibrate")
    assert code == 2 and "must run as root" in err and "fix: run it with sudo" in err


def test_the_table_is_a_device_the_engine_reads(tmp_path):
    from memtwin import calibrate
    f = {"read_bw": 203069048, "write_bw": 156654386, "seek_ns": 60000, "rand4k_p50_us": 80.0, "rand4k_p90_us": 5412.0,
         "rand4k_p99_us": 8177.0, "buffered_read_bw": 227000000, "read_ahead_kb": 128, "size": 512 << 20, "repeat": 3,
         "throttle": {"read_bw": 209715200, "write_bw": 157286400}, "disk": "ext4 image on a loop device", "kernel": "6.18",
         "date": "2026-11-28T10:42:17Z"}
    text = calibrate.device_table("sda", f)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "c"\n[machine]\nram = "1G"\n' + text +
                 '[files."/f"]\nsize = "1M"\n[tasks.t]\nops = [{ op = "read", file = "/f" }]\n')
    plan = memtwin.load(str(p)).doc.plan(None, [])
    dev = plan["devices"][0]
    assert dev["read_bw"] == 203069048 and dev["write_bw"] == 156654386 and dev["read_ahead_kb"] == 128


@needs_host
def test_calibrate_measures_and_removes_everything(tmp_path, capsys):
    from test_real import _leftovers
    before = _leftovers()
    out_toml, out_json = tmp_path / "dev.toml", tmp_path / "dev.json"
    code, out, err = cli_run(capsys, "calibrate", "--size", "16M", "--repeat", "1", "--samples", "50",
                             "--out", out_toml, "--json", out_json)
    assert code == 0, err
    assert _leftovers() == before
    f = json.loads(out_json.read_text())
    assert f["read_bw"] > 0 and f["write_bw"] > 0 and f["rand4k_p50_us"] > 0 and f["throttle"] is None
    assert out_toml.read_text() == out and "[devices.sda]" in out


def _queue_figures(throttle):
    return {"read_bw": 1114000000, "write_bw": 2549000000, "seek_ns": 50000, "rand4k_p50_us": 54.0, "rand4k_p90_us": 70.0,
            "rand4k_p99_us": 126.0, "buffered_read_bw": 2600000000, "read_ahead_kb": 128, "size": 512 << 20, "repeat": 3,
            "throttle": throttle, "disk": "ext4 image on a loop device", "kernel": "6.18", "date": "2026-11-28T20:24:49Z",
            "queue": {"queue_depth": 128, "max_sectors_kb": 1280, "request_latency_ns": 50000, "request_read_bw": 1400000000,
                      "request_write_bw": 3500000000, "queue_read_bw": 3300000000, "queue_write_bw": 3400000000,
                      "request_cost_ns": 13000, "rand4k_iops_together": 65000, "threads": 32,
                      "alone": {"read": {"t64_us": 100.0, "t1m_us": 800.0}, "write": {"t64_us": 68.0, "t1m_us": 337.0}}}}


@pytest.mark.parametrize("throttle", [None, {"read_bw": 500000000, "write_bw": 400000000}])
def test_the_queue_table_is_a_device_queue_the_engine_reads(tmp_path, throttle):
    """`--queue`: the shared bandwidths are the device's read_bw/write_bw, or, under the
    throttle's rules (which stay read_bw/write_bw), queue_read_bw/queue_write_bw with
    blk_throttle = true; the engine reads every key (an unknown or missing one is an error)."""
    from memtwin import calibrate
    text = calibrate.device_table("sda", _queue_figures(throttle))
    assert "queue_depth = 128" in text and "max_sectors_kb = 1280" in text and 'request_latency = "50us"' in text and 'request_cost = "13.0us"' in text
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "c"\n[machine]\nram = "1G"\n' + text +
                 '[files."/f"]\nsize = "1M"\n[tasks.t]\nops = [{ op = "read", file = "/f" }]\n')
    dev = memtwin.load(str(p)).doc.plan(None, [])["devices"][0]
    assert dev["queue_depth"] == 128 and dev["blk_throttle"] == bool(throttle)
    assert dev["read_bw"] == (500000000 if throttle else 3300000000)


@pytest.mark.parametrize("dev, throttled", [
    ({"read_bw": 3300000000, "write_bw": 3400000000, "queue_depth": 128, "blk_throttle": False}, False),
    ({"read_bw": 500000000, "write_bw": 400000000, "queue_depth": 128, "blk_throttle": True}, True),
    ({"read_bw": 500000000, "write_bw": 400000000, "queue_depth": None, "blk_throttle": False}, True),
])
def test_the_host_runner_leaves_a_queued_disk_unthrottled(tmp_path, monkeypatch, dev, throttled):
    """A device with its own queue and no blk_throttle is the disk as it is: the host runner
    sets no blk-throttle rule on its loop device (it would write the rules otherwise)."""
    import types
    written = []
    monkeypatch.setattr(real, "_write", lambda path, v: written.append((path, v)))
    monkeypatch.setattr(os.path, "exists", lambda p: True)
    run = types.SimpleNamespace(notes=[], loop="/dev/loop7")
    import builtins
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda p, *a, **k: __import__("io").StringIO("7:7\n") if str(p).endswith("/dev") else real_open(p, *a, **k))
    real.HostRun._throttle(run, dev)
    assert bool(written) == throttled, (written, run.disk_throttle)
    assert ("unthrottled" in run.disk_throttle) != throttled
