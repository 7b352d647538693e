"""The trace format (memtwin.trace): round trip, and every defect named with its place."""

import os
import struct

import pytest

zstandard = pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import trace


def _write(path, n=200000):
    w = trace.Writer(str(path), {"source": "test", "host": "h", "kernel": "k",
                                 "files": [{"id": 0, "path": "a", "size": 1 << 20}]})
    for i in range(n):
        w.add(i * 10, "read", pid=1, file=0, offset=(i * 4096) % (1 << 20), length=4096)
    return w.close()


def test_round_trip(tmp_path):
    p = tmp_path / "t.mtt"
    assert _write(p) == 200000
    s = trace.summary(str(p))
    assert s["events"] == 200000 and s["ops"] == {"read": 200000} and s["files"] == 1
    assert s["duration_ns"] == 199999 * 10
    with trace.Reader(str(p)) as r:
        assert r.header["kernel"] == "k"
        ev = next(r.events())
        assert ev == (0, 0, 4096, 1, 0, trace.OPS["read"], 0)
    # byte-identical run to run
    q = tmp_path / "u.mtt"
    _write(q)
    assert p.read_bytes() == q.read_bytes()
    assert os.path.getsize(p) < 200000 * trace.EVENT.size // 10


def _err(path):
    with pytest.raises(trace.TraceError) as e:
        trace.summary(str(path))
    msg = str(e.value)
    assert msg.startswith(str(path)) and ": error: " in msg and "\n  fix: " in msg
    return msg


def test_truncated(tmp_path):
    p = tmp_path / "t.mtt"
    _write(p)
    data = p.read_bytes()
    for cut in (len(data) - 3, len(data) - 20, len(data) // 2, 100):
        p.write_bytes(data[:cut])
        assert "truncat" in _err(p) or "chunk" in _err(p)


def test_corrupt_and_version(tmp_path):
    p = tmp_path / "t.mtt"
    _write(p, 1000)
    data = bytearray(p.read_bytes())
    bad = bytearray(data)
    bad[-40] ^= 0xFF
    p.write_bytes(bytes(bad))
    _err(p)
    bad = bytearray(data)
    bad[8:10] = struct.pack("<H", 99)
    p.write_bytes(bytes(bad))
    assert "version 99" in _err(p)
    p.write_bytes(b"hello world, not a trace")
    assert "not a memtwin trace" in _err(p)
    assert "no such trace file" in _err(tmp_path / "missing.mtt")


def test_format_versions(tmp_path):
    """Version 2 adds `access` events; a version-1 trace (every trace recorded before them, as
    the committed cat.mtt) still loads; an `access` in a file that says version 1 is a defect
    named with its place; a version this memtwin does not know is refused naming the ones it
    reads."""
    old = os.path.join(os.path.dirname(trace.__file__), "scenarios", "validation", "traces", "cat.mtt")
    with trace.Reader(old) as r:
        assert r.version == 1
    assert trace.summary(old)["events"] > 0
    p = tmp_path / "t.mtt"
    w = trace.Writer(str(p), {"source": "test", "files": [{"id": 0, "path": "a", "size": 1 << 20}]})
    w.add(0, "map", pid=1, file=0, length=1 << 20)
    w.add(1, "access", pid=1, file=0, offset=8192, length=4096, flags=trace.ACCESS_IP)
    w.close()
    with trace.Reader(str(p)) as r:
        assert r.version == 2
        assert [e[5] for e in r.events()] == [trace.OPS["map"], trace.OPS["access"]]
    data = bytearray(p.read_bytes())
    data[8:10] = struct.pack("<H", 1)
    p.write_bytes(bytes(data))
    assert "an `access` event in a version-1 trace" in _err(p)
    data[8:10] = struct.pack("<H", 3)
    p.write_bytes(bytes(data))
    assert "version 3" in _err(p) and "reads versions 1, 2" in _err(p)


def test_no_partial_file(tmp_path):
    p = tmp_path / "t.mtt"
    w = trace.Writer(str(p), {"source": "test"})
    w.add(0, "read", file=0, length=4096)
    assert not p.exists()  # nothing on disk until close() writes it whole
    w.close()
    assert p.exists()
