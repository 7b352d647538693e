"""libCacheSim traces (oracleGeneral binary, raw or zstd; csv with libCacheSim's parameters)
imported as page-cache reads, replayed, and compared with libCacheSim itself where installed."""

import os
import struct
import subprocess
import sys

import pytest

zstandard = pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import cachesim, replay, trace, trace_import

REC = struct.Struct("<IQIq")
# (time s, object id, size): object 7 is two pages; the size-0 record is skipped, as libCacheSim does.
REQS = [(100, 1, 4096), (100, 2, 4096), (101, 1, 4096), (101, 7, 8192), (102, 9, 0), (103, 2, 4096), (104, 7, 8000)]


def _og(path, reqs=REQS, zst=False):
    data = b"".join(REC.pack(t, o, s, -1) for t, o, s in reqs)
    if zst:
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("zst", [False, True])
def test_oracle_general_device(tmp_path, zst):
    src = _og(tmp_path / ("t.oracleGeneral" + (".zst" if zst else "")), zst=zst)
    out = str(tmp_path / "t.mtt")
    info = trace_import.import_oracle_general(src, out)
    assert info == {"events": 7, "requests": 6, "objects": 3, "files": 1, "skipped_size0": 1}
    with trace.Reader(out) as r:
        assert r.files() == [("/lcs/device", 4 * 4096)]
        evs = list(r.events())
    # POSIX_FADV_RANDOM first, then each request a read of its object's range, times from the first.
    assert evs[0][5] == trace.OPS["fadvise"] and evs[0][6] == 1
    reads = [(t, off, ln) for t, off, ln, _p, f, op, _fl in evs[1:]]
    assert reads == [(0, 0, 4096), (0, 4096, 4096), (10**9, 0, 4096), (10**9, 8192, 8192), (3 * 10**9, 4096, 4096), (4 * 10**9, 8192, 8000)]
    t = replay.replay(out, "64M").totals
    # 8 page reads (object 7 is two pages): its 4 distinct pages miss once, the others hit.
    assert (t["pagecache_miss_pages"], t["pagecache_hit_pages"]) == (4, 4)


def test_oracle_general_files_and_defects(tmp_path):
    src = _og(tmp_path / "t.og")
    out = str(tmp_path / "f.mtt")
    trace_import.import_oracle_general(src, out, objects="files", ignore_obj_size=True)
    with trace.Reader(out) as r:
        assert r.files() == [("/lcs/obj/1", 4096), ("/lcs/obj/2", 4096), ("/lcs/obj/7", 4096)]
    bad = tmp_path / "cut.og"
    bad.write_bytes((tmp_path / "t.og").read_bytes()[:-5])
    with pytest.raises(trace.TraceError) as e:
        trace_import.import_oracle_general(str(bad), str(tmp_path / "x.mtt"))
    assert f"{bad}:144: error: truncated" in str(e.value) and "fix:" in str(e.value)
    assert not os.path.exists(tmp_path / "x.mtt")


def test_csv(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("ts;key;bytes\n5;a;4096\n6;b;100\n7;a;4096\n")
    out = str(tmp_path / "c.mtt")
    info = trace_import.import_lcs_csv(str(src), out, "time-col=1, obj-id-col=2, obj-size-col=3, delimiter=;, has-header=true")
    assert info["requests"] == 3 and info["objects"] == 2
    t = replay.replay(out, "64M").totals
    assert (t["pagecache_miss_pages"], t["pagecache_hit_pages"]) == (2, 1)
    with pytest.raises(trace.TraceError) as e:
        trace_import.import_lcs_csv(str(src), out, "time-col=1, obj-id-col=9, delimiter=;, has-header=true")
    assert f"{src}:2: error: cannot read the row" in str(e.value)
    with pytest.raises(trace.TraceError):
        trace_import.parse_lcs_params("obj-id-col=2, colour=red")


def test_import_cli(tmp_path):
    src = _og(tmp_path / "t.og")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), ".."))
    r = subprocess.run([sys.executable, "-m", "memtwin.cli", "import", "--format", "oracleGeneral", "--out", str(tmp_path / "o.mtt"), src],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and "6 requests of 3 objects" in r.stdout, r.stderr


def test_cross_check_with_libcachesim(tmp_path):
    """With a cache that holds every object, every policy misses exactly once per object: the
    import maps libCacheSim's requests to page reads one for one."""
    pytest.importorskip("libcachesim")
    reqs = [(i // 10, (i * 7919) % 500 + 1, 4096) for i in range(5000)]
    src = _og(tmp_path / "z.oracleGeneral.zst", reqs, zst=True)
    r = cachesim.run(src, "64M", algos=("lru",))
    ours, lru = r["rows"][0]["miss_ratio"], r["rows"][1]["miss_ratio"]
    assert ours == pytest.approx(500 / 5000) and lru == pytest.approx(500 / 5000)


FTRACE = """# tracer: nop
            cat-2001    [001] .....  5000.100000: mm_filemap_add_to_page_cache: dev 8:1 ino 2a pfn=0x1234 ofs=0 order=0
            cat-2001    [001] .....  5000.100001: mm_filemap_add_to_page_cache: dev 8:1 ino 2a pfn=0x1235 ofs=4096 order=2
            cat-2001    [001] .....  5000.200000: mm_filemap_delete_from_page_cache: dev 8:1 ino 2a pfn=0x1234 ofs=0 order=0
 cat-2002 [000]  5001.000000: mm_filemap_add_to_page_cache: dev 8:1 ino 2b page=0000000012345678 pfn=0x99 ofs=8192
            cat-2001    [001] .....  5001.500000: mm_filemap_add_to_page_cache: dev 8:1 ino 2a pfn=0x1236 ofs=0 order=0
"""


def test_ftrace(tmp_path):
    src = tmp_path / "f.txt"
    src.write_text(FTRACE)
    out = str(tmp_path / "f.mtt")
    info = trace_import.import_ftrace(str(src), out)
    assert info == {"events": 6, "added": 4, "evictions": 1, "files": 2}
    with trace.Reader(out) as r:
        assert r.files() == [("/ftrace/8:1/2a", 4096 + 4 * 4096), ("/ftrace/8:1/2b", 3 * 4096)]
        reads = [(t, f, off, ln) for t, off, ln, _p, f, op, _fl in r.events() if op == trace.OPS["read"]]
    assert reads == [(0, 0, 0, 4096), (1000, 0, 4096, 16384), (900_000_000, 1, 8192, 4096), (1_400_000_000, 0, 0, 4096)]
    # Replayed with room for all: the 6 distinct pages miss once, page 0's re-add hits.
    t = replay.replay(out, "64M").totals
    assert (t["pagecache_miss_pages"], t["pagecache_hit_pages"]) == (6, 1)
    empty = tmp_path / "e.txt"
    empty.write_text("# tracer: nop\n")
    with pytest.raises(trace.TraceError) as e:
        trace_import.import_ftrace(str(empty), str(tmp_path / "e.mtt"))
    assert "no mm_filemap_add_to_page_cache events" in str(e.value) and not os.path.exists(tmp_path / "e.mtt")
