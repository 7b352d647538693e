"""memtwin measure: a real command in a fresh memcg, cleaned up; errors without a traceback."""

import glob
import os
from pathlib import Path
import subprocess
import sys

import pytest

from memtwin import real


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "memtwin.cli", *args], capture_output=True, text=True, timeout=600)


def test_command_not_found_or_not_root():
    p = _cli("measure", "--limit", "64M", "--", "no-such-command-memtwin")
    assert p.returncode == 1 and ": error: " in p.stderr and "fix:" in p.stderr and "Traceback" not in p.stderr


def test_measure_cat_cold(tmp_path):
    ok, why = real.host_ready()
    if not ok:
        pytest.skip("needs root and a memory controller: " + why)
    data = tmp_path / "d.bin"
    data.write_bytes(os.urandom(8 << 20))
    out = tmp_path / "m.json"
    p = _cli("measure", "--limit", "64M", "--cold", str(data), "--out", str(out), "--", "cat", str(data))
    assert p.returncode == 0, p.stderr
    import json
    doc = json.loads(out.read_text())
    # The engine's layout (schema/result.schema.json), so compare/validate read it as a real run.
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "schema" / "result.schema.json").read_text())
    jsonschema.validate(doc, schema)
    v = doc["variants"]["default"]
    m = v["totals"]
    assert m["read_bytes"] >= 8 << 20 and m["memcg.max_usage_bytes"] >= 8 << 20
    assert v["steps"][0]["metrics"] == m and v["real"]["on"] == "host" and v["real"]["exit_status"] == 0
    assert "memcg.pgmajfault" in m and v["real"]["rusage"]["major_faults"] >= 0
    assert str(data) not in v["real"]["resident_at_start"], "--cold dropped it"
    v, mnt = real.find_memory_controller()
    assert not [d for d in glob.glob(os.path.join(mnt, "memtwin-*")) if str(os.getpid()) in d]


def test_start_cache_is_what_the_drop_leaves(tmp_path):
    """measure's cold start drops the trace's files with POSIX_FADV_DONTNEED, which skips the
    folios a process maps (mapping_evict_folio() refuses a mapped folio, 6.x mm/truncate.c), and
    records what stays by mincore (`resident_at_start`): here all of a file this process maps,
    none of one it does not (and, unmapped, the first goes too). A file system that ignores
    the advice (tmpfs) skips the test."""
    import mmap

    from memtwin import measure

    lib, data = tmp_path / "lib.so", tmp_path / "data"
    lib.write_bytes(os.urandom(64 * 4096))
    data.write_bytes(os.urandom(64 * 4096))
    with open(lib, "rb") as fh:
        m = mmap.mmap(fh.fileno(), 64 * 4096, prot=mmap.PROT_READ)
        try:
            sum(m[i * 4096] for i in range(64))  # faults every page in
            measure._cold([str(tmp_path)])
            rc = measure.start_cache([str(tmp_path)])
        finally:
            m.close()
    if str(data) in rc:
        pytest.skip("this file system keeps a file's pages whatever the advice")
    assert rc == {str(lib): [[0, 64]]}, rc
    measure._cold([str(lib)])   # unmapped now: all of it goes
    assert measure.start_cache([str(tmp_path)]) == {}
