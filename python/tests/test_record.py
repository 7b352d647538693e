"""memtwin record / import --format strace: offsets per descriptor, errors, no partial output."""

import shutil
import subprocess
import sys

import pytest

pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import trace, trace_import

LOG = """\
100 1700000000.000000 openat(AT_FDCWD</w>, "/data/a", O_RDONLY) = 3</data/a>
100 1700000000.000100 read(3</data/a>, ""..., 4096) = 4096
100 1700000000.000200 read(3</data/a>, ""..., 4096) = 4096
100 1700000000.000300 lseek(3</data/a>, 65536, SEEK_SET) = 65536
100 1700000000.000400 read(3</data/a>,  <unfinished ...>
101 1700000000.000450 pread64(4</data/b>, ""..., 8192, 12288) = 8192
100 1700000000.000500 <... read resumed>""..., 4096) = 100
100 1700000000.000600 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3</data/a>, 0x2000) = 0x7f0000000000
100 1700000000.000700 mmap(NULL, 65536, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000010000
100 1700000000.000800 close(3</data/a>) = 0
100 1700000000.000900 +++ exited with 0 +++
"""


def test_import_strace(tmp_path):
    log = tmp_path / "s.log"
    log.write_text(LOG)
    out = tmp_path / "s.mtt"
    info = trace_import.import_strace(str(log), str(out))
    assert info["files"] == 2
    with trace.Reader(str(out)) as r:
        assert [f["path"] for f in r.header["files"]] == ["/data/a", "/data/b"]
        ev = [(trace.OP_NAMES[e[5]], e[0], e[1], e[2], e[3], e[4]) for e in r.events()]
    assert ev == [
        ("open", 0, 0, 0, 100, 0),
        ("read", 100000, 0, 4096, 100, 0),
        ("read", 200000, 4096, 4096, 100, 0),
        ("lseek", 300000, 65536, 0, 100, 0),
        ("read", 450000, 12288, 8192, 101, 1),
        ("read", 500000, 65536, 100, 100, 0),
        ("mmap", 600000, 0x2000, 8192, 100, 0),
        ("anon_mmap", 700000, 0, 65536, 100, trace.NO_FILE),
        ("close", 800000, 0, 0, 100, 0),
        ("exit", 900000, 0, 0, 100, trace.NO_FILE),
    ]


def test_import_errors(tmp_path):
    with pytest.raises(trace.TraceError, match="no such strace log"):
        trace_import.import_strace(str(tmp_path / "nope.log"), str(tmp_path / "o.mtt"))
    bad = tmp_path / "bad.log"
    bad.write_text("this is not strace\n")
    with pytest.raises(trace.TraceError, match="no strace lines"):
        trace_import.import_strace(str(bad), str(tmp_path / "o.mtt"))
    assert not (tmp_path / "o.mtt").exists()


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "memtwin.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_record_command_not_found(tmp_path):
    out = tmp_path / "x.mtt"
    p = _cli("record", "--out", str(out), "--", "no-such-command-memtwin")
    assert p.returncode == 1 and "error: command not found" in p.stderr and "fix:" in p.stderr
    assert "Traceback" not in p.stderr and not out.exists()


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_record_real_program(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * 100000)
    out = tmp_path / "cat.mtt"
    p = _cli("record", "--out", str(out), "--", "cat", str(data))
    if p.returncode != 0 and "ptrace" in p.stderr:
        pytest.skip("ptrace is not allowed here: " + p.stderr.splitlines()[0])
    assert p.returncode == 0, p.stderr
    with trace.Reader(str(out)) as r:
        files = {f["path"]: f["id"] for f in r.header["files"]}
        assert r.header["tracer"] == "strace"
        fid = files[str(data)]
        read = sum(e[2] for e in r.events() if e[4] == fid and e[5] == trace.OPS["read"])
    assert read == 100000


def test_replay_stopgap(tmp_path):
    """A synthetic trace: 8 MiB read sequentially in 128 KiB reads, replayed at a 4M limit."""
    from memtwin import replay
    out = tmp_path / "r.mtt"
    w = trace.Writer(str(out), {"source": "test", "files": [{"id": 0, "path": "/data/f", "size": 8 << 20}]})
    for i in range(64):
        w.add(i, "read", pid=1, file=0, offset=i << 17, length=1 << 17)
    w.close()
    t = replay.replay(str(out), "4M").totals
    assert t["read_bytes"] >= 8 << 20 and t["memcg.max_usage_bytes"] <= 4 << 20
