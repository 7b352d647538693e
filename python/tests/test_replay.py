"""The streaming replay (issue 18): a trace as a scenario task's script, `memtwin replay`, and
bad traces named with their place (file, chunk or event) and a fix, a non-zero exit and nothing on
stdout."""

import os
import struct
import subprocess
import sys

import pytest

pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import api, trace

ROOT = os.path.join(os.path.dirname(__file__), "..")


def _write(path, n=200000, file_id=0, nfiles=1):
    files = [{"id": i, "path": f"/data/f{i}", "size": 8 << 20} for i in range(nfiles)]
    w = trace.Writer(str(path), {"source": "test", "files": files})
    w.add(0, "open", pid=1, file=0)
    for i in range(n):
        w.add(i * 10 + 1, "read", pid=1, file=file_id if i == n - 1 else 0, offset=(i * 4096) % (8 << 20), length=4096)
    w.add(n * 10 + 1, "close", pid=1, file=0)
    return w.close()


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(ROOT), MEMTWIN_PROGRESS="0")
    return subprocess.run([sys.executable, "-m", "memtwin.cli", *args], capture_output=True, text=True, env=env, timeout=300)


def test_replay_cli_reads_and_hits(tmp_path):
    p = tmp_path / "t.mtt"
    _write(p)
    r = _cli("replay", str(p), "--limit", "64M")
    assert r.returncode == 0, r.stderr
    assert "200002 events" in r.stdout
    # 200000 4K reads over an 8M file: 8M read from disk once, the rest hits.
    assert "read_bytes               8388608" in r.stdout


def test_scenario_names_a_trace(tmp_path):
    p = tmp_path / "t.mtt"
    _write(p, 4096)
    s = tmp_path / "s.toml"
    s.write_text('[scenario]\nname = "s"\n[machine]\nram = "1G"\n[kernel]\ncgroup = "v2"\n[devices.sda]\nread_bw = "100M"\n'
                 '[cgroups.ct]\n"memory.max" = "4M"\n[tasks.app]\ncgroup = "ct"\ntrace = "t.mtt"\nloops = 3\ntime_scale = 0\n'
                 '[variants.big]\ncgroups.ct."memory.max" = "64M"\n')
    scn = api.load(str(s))
    tight = api.run(scn)
    loose = api.run(scn, "big")
    assert tight.raw["traces"][0]["events"] == 3 * 4098 and tight.raw["traces"][0]["loops"] == 3
    assert list(tight.steps.index) == ["app"]
    # An 8M file read twice per loop, 3 loops: a 4M memcg rereads from disk, a 64M one reads once.
    assert loose.totals["read_bytes"] == 8 << 20
    assert tight.totals["read_bytes"] == 3 * (16 << 20)
    # The same chunks through a Python source (memtwin.trace.Chunks) give the same result.
    raw = scn.doc.run(None, [], None, {"t.mtt": trace.Chunks(str(p))})
    assert raw["totals"] == tight.raw["totals"]


def test_scenario_trace_missing(tmp_path):
    s = tmp_path / "s.toml"
    s.write_text('[scenario]\nname = "s"\n[devices.sda]\nread_bw = "100M"\n[tasks.app]\ntrace = "nope.mtt"\n')
    with pytest.raises(api.ScenarioError) as e:
        api.load(str(s))
    assert f"{s}:6:9: error: trace: " in str(e.value) and "no such trace file" in str(e.value)


def _bad(tmp_path, data, *must):
    p = tmp_path / "bad.mtt"
    p.write_bytes(data)
    r = _cli("replay", str(p))
    assert r.returncode == 1 and r.stdout == "", (r.returncode, r.stdout)
    assert r.stderr.startswith(str(p)) and ": error: " in r.stderr and "\n  fix: " in r.stderr, r.stderr
    for m in must:
        assert m in r.stderr, r.stderr
    return r.stderr


def test_bad_traces(tmp_path):
    good = tmp_path / "g.mtt"
    _write(good)
    data = good.read_bytes()
    _bad(tmp_path, b"NOTATRACE" + data[9:], "not a memtwin trace")
    _bad(tmp_path, data[:8] + struct.pack("<H", 7) + data[10:], "version 7")
    _bad(tmp_path, data[: len(data) - 5], "end record")
    # A byte flipped in the second chunk (chunks hold 65536 events): found while replaying.
    hlen = struct.unpack("<I", data[12:16])[0]
    pos = 16 + hlen
    zlen = struct.unpack("<I", data[pos + 12: pos + 16])[0]
    second = pos + 20 + zlen
    bad = bytearray(data)
    bad[second + 20 + 10] ^= 0xFF
    _bad(tmp_path, bytes(bad), f":{second}: error: chunk 1 (from event 65536)")


def test_event_names_a_file_missing_from_the_header(tmp_path):
    p = tmp_path / "m.mtt"
    _write(p, 1000, file_id=3)
    r = _cli("replay", str(p))
    assert r.returncode == 1 and r.stdout == ""
    assert f"{p}: event 1000 (Read" in r.stderr and "file id 3" in r.stderr and "1 file(s)" in r.stderr and "fix:" in r.stderr, r.stderr


def test_replay_args(tmp_path):
    p = tmp_path / "t.mtt"
    _write(p, 10)
    assert _cli("replay", str(p), "--loops", "0").returncode == 2
    r = _cli("replay", str(tmp_path / "none.mtt"))
    assert r.returncode == 1 and "no such trace file" in r.stderr


def test_initial_cache_from_the_header(tmp_path):
    """A header file's `resident` ranges (memtwin record's mincore snapshot) are cached before the
    first event; --cold starts without them."""
    p = tmp_path / "r.mtt"
    w = trace.Writer(str(p), {"source": "test", "files": [{"id": 0, "path": "/data/f0", "size": 4 << 20, "resident": [[0, 512]]}]})
    w.add(0, "open", pid=1, file=0)
    w.add(1, "read", pid=1, file=0, offset=0, length=4 << 20)
    w.close()
    warm, cold = _cli("replay", str(p)), _cli("replay", str(p), "--cold")
    assert "read_bytes               2097152" in warm.stdout, warm.stdout + warm.stderr
    assert "read_bytes               4194304" in cold.stdout, cold.stdout + cold.stderr
    bad = tmp_path / "b.mtt"
    w = trace.Writer(str(bad), {"source": "test", "files": [{"id": 0, "path": "/data/f0", "size": 4096, "resident": [[0, -1]]}]})
    w.add(0, "open", pid=1, file=0)
    w.close()
    r = _cli("replay", str(bad))
    assert r.returncode == 1 and "malformed resident range" in r.stderr


def test_resident_ranges(tmp_path):
    from memtwin import hostcache

    f = tmp_path / "f.bin"
    f.write_bytes(os.urandom(1 << 20))
    fd = os.open(f, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        if hostcache.resident_ranges(str(f)):
            pytest.skip("this file system keeps the pages after POSIX_FADV_DONTNEED")
        os.pread(fd, 64 << 10, 256 << 10)
    finally:
        os.close(fd)
    r = hostcache.resident_ranges(str(f))
    assert r and r[0][0] <= 64 and sum(n for _f, n in r) >= 16, r


def test_run_a_scenario_with_a_corrupt_trace(tmp_path):
    """`memtwin run` of a scenario whose trace is damaged past its first chunk: the trace's place
    and fix, exit 1, no --json file."""
    good = tmp_path / "g.mtt"
    _write(good)
    data = bytearray(good.read_bytes())
    hlen = struct.unpack("<I", data[12:16])[0]
    pos = 16 + hlen
    second = pos + 20 + struct.unpack("<I", data[pos + 12: pos + 16])[0]
    data[second + 30] ^= 0xFF
    (tmp_path / "bad.mtt").write_bytes(bytes(data))
    s = tmp_path / "s.toml"
    s.write_text('[scenario]\nname = "s"\n[machine]\nram = "1G"\ncpus = 2\n[devices.sda]\nread_bw = "100M"\n[tasks.app]\ntrace = "bad.mtt"\n')
    out = tmp_path / "o.json"
    r = _cli("run", str(s), "--json", str(out))
    assert r.returncode == 1 and not out.exists()
    assert f"bad.mtt:{second}: error: chunk 1 (from event 65536)" in r.stderr and "fix:" in r.stderr, r.stderr


def test_profile_of_the_recording_kernel(tmp_path):
    """memtwin replay runs a recorded trace as the profile of the kernel its header names: the
    newest linux-X.Y profile not newer than that kernel; an imported trace (no kernel) or one
    from a kernel older than every profile gets replay.DEFAULT_PROFILE; --profile overrides,
    and an unknown one is refused with the list."""
    from memtwin import replay

    assert replay.profile_for_kernel("6.18.44-fc-v857") == "linux-6.18"
    assert replay.profile_for_kernel("6.12.9-amd64") == "linux-6.12"
    assert replay.profile_for_kernel("6.11.0") == "linux-6.6"   # 6.6 <= 6.11 < 6.12
    assert replay.profile_for_kernel("6.1.0-56-amd64") == "linux-6.1"
    assert replay.profile_for_kernel("5.10.0") == "linux-5.0"
    assert replay.profile_for_kernel("2.6.32") == "linux-3.13"  # older than every era: the oldest
    assert replay.profile_for_kernel("3.10.0-1160.el7") == "linux-3.13"
    assert replay.profile_for_kernel(None) == replay.DEFAULT_PROFILE
    assert replay.profile_for_kernel("vm") == replay.DEFAULT_PROFILE
    p = tmp_path / "t.mtt"
    w = trace.Writer(str(p), {"source": "test", "kernel": "6.18.44", "files": [{"id": 0, "path": "/data/f0", "size": 1 << 20}]})
    w.add(0, "open", pid=1, file=0)
    w.add(1, "read", pid=1, file=0, offset=0, length=4096)
    w.close()
    assert replay.replay(str(p), "64M").info["profile"] == "linux-6.18"
    assert replay.replay(str(p), "64M", profile="linux-6.1").info["profile"] == "linux-6.1"
    r = _cli("replay", str(p), "--limit", "64M")
    assert r.returncode == 0 and "replayed in the twin (linux-6.18)" in r.stdout, r.stderr
    r = _cli("replay", str(p), "--limit", "64M", "--profile", "linux-6.1")
    assert r.returncode == 0 and "replayed in the twin (linux-6.1)" in r.stdout, r.stderr
    r = _cli("replay", str(p), "--profile", "linux-9.9")
    assert r.returncode == 2 and r.stdout == ""
    assert "--profile linux-9.9: no such kernel profile" in r.stderr and "linux-6.18" in r.stderr


def _measured(path, caches):
    """A measurement in the engine's layout with each variant's `real.resident_at_start`."""
    import json
    vs = {name: {"steps": [], "totals": {"read_bytes": 0}, "real": {"on": "host", "kernel": "6.18", "resident_at_start": rc}}
          for name, rc in caches.items()}
    path.write_text(json.dumps({"scenario": "m", "variants": vs}))


def _start_trace(tmp_path):
    p = tmp_path / "r.mtt"
    w = trace.Writer(str(p), {"source": "test", "files": [{"id": 0, "path": "/data/f0", "size": 4 << 20, "resident": [[0, 256]]},
                                                          {"id": 1, "path": "/lib/libx.so", "size": 1 << 20}]})
    w.add(0, "open", pid=1, file=0)
    w.add(1, "read", pid=1, file=0, offset=0, length=4 << 20)
    w.add(2, "open", pid=1, file=1)
    w.add(3, "read", pid=1, file=1, offset=0, length=1 << 20)
    w.close()
    return p


def test_initial_cache_from_a_measured_run(tmp_path):
    """`initial_cache = "FILE"`: the task starts with the cache the measured run of each variant
    started with (memtwin measure's real.resident_at_start: what its drop left), the variant of
    the same name's, else the file's `default`; pages of files the trace lacks, or past a file's
    end, are left out."""
    _start_trace(tmp_path)
    _measured(tmp_path / "m.json", {
        "default": {"/lib/libx.so": [[0, 256]], "/not/in/trace": [[0, 10]]},        # all of libx
        "half": {"/data/f0": [[0, 512]], "/lib/libx.so": [[0, 128], [200, 1000]]},  # 2M of f0, 128 + 56 pages of libx
    })
    s = tmp_path / "s.toml"
    s.write_text('[scenario]\nname = "s"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "100M"\nread_ahead_kb = 0\n'
                 '[cgroups.ct]\n[tasks.app]\ncgroup = "ct"\ntrace = "r.mtt"\ntime_scale = 0\ninitial_cache = "m.json"\n'
                 '[variants.half]\n[variants.header]\ntasks.app.initial_cache = true\n[variants.cold]\ntasks.app.initial_cache = false\n')
    scn = api.load(str(s))
    got = {v: int(api.run(scn, v).totals["read_bytes"]) for v in (None, "half", "header", "cold")}
    assert got == {None: 4 << 20,                                   # f0 cold, libx all cached (default)
                   "half": (2 << 20) + (1 << 20) - (128 + 56) * 4096,  # the variant's own entry
                   "header": (4 << 20) - (1 << 20) + (1 << 20),     # the recording's: 256 pages of f0
                   "cold": 5 << 20}, got
    # memtwin replay --against starts from the measurement's start cache (its default)
    r = _cli("replay", str(tmp_path / "r.mtt"), "--against", str(tmp_path / "m.json"))
    assert r.returncode == 0 and "read_bytes               4194304" in r.stdout, r.stdout + r.stderr
    r = _cli("replay", str(tmp_path / "r.mtt"), "--against", str(tmp_path / "m.json"), "--cold")
    assert "read_bytes               5242880" in r.stdout, r.stdout + r.stderr


def test_initial_cache_file_bad_input(tmp_path):
    """A start cache that cannot be used is an error at the scenario's `initial_cache` key
    (file:line:col) with a fix: a missing file, one that is not JSON, not in the engine's layout,
    a variant without resident_at_start, a scenario variant the file has no cache for."""
    _start_trace(tmp_path)
    base = ('[scenario]\nname = "s"\n[devices.sda]\nread_bw = "100M"\n[cgroups.ct]\n[tasks.app]\ncgroup = "ct"\n'
            'trace = "r.mtt"\ninitial_cache = "m.json"\n')
    s = tmp_path / "s.toml"

    def err(text, *must):
        s.write_text(text)
        with pytest.raises(api.ScenarioError) as e:
            scn = api.load(str(s))
            for v in [v for v, _ in scn.variants()] or [None]:
                api.run(scn, v)
        msg = str(e.value)
        assert f"{s}:9:17: error: initial_cache" in msg and "\n  fix: " in msg, msg
        for m in must:
            assert m in msg, msg

    err(base, "no such file")
    (tmp_path / "m.json").write_text("{not json")
    err(base, "is not JSON")
    (tmp_path / "m.json").write_text('{"scenario": "x"}')
    err(base, "engine's layout")
    _measured(tmp_path / "m.json", {"a": None})
    err(base, "variant 'a'", "resident_at_start")
    _measured(tmp_path / "m.json", {"a": {}, "b": {}})
    err(base + "[variants.c]\n", "no start cache for variant `c` (it has a, b)")
    err(base, "has start caches for variants a, b, none for the scenario without a variant", "--variant a")
    _measured(tmp_path / "m.json", {"a": {"/lib/libx.so": [[0, -3]]}})
    err(base, "malformed range")


def test_initial_cache_of_a_second_task_on_the_same_trace(tmp_path):
    """Two tasks replaying one trace: the start cache the second names is read too."""
    _start_trace(tmp_path)
    _measured(tmp_path / "m.json", {"default": {"/data/f0": [[0, 1024]], "/lib/libx.so": [[0, 256]]}})
    s = tmp_path / "s.toml"
    s.write_text('[scenario]\nname = "s"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "100M"\nread_ahead_kb = 0\n'
                 '[cgroups.ct]\n[tasks.a]\ncgroup = "ct"\ntrace = "r.mtt"\ntime_scale = 0\ninitial_cache = false\n'
                 '[tasks.b]\ncgroup = "ct"\ntrace = "r.mtt"\ntime_scale = 0\nstart = "1s"\ninitial_cache = "m.json"\n')
    r = api.run(api.load(str(s)))
    # a reads all 5M cold at 0 s; b's start cache (all of both files) is put in before its first event
    assert int(r.totals["read_bytes"]) == 5 << 20
