"""`memtwin cachesim`: the Linux page cache as one more cache policy beside libCacheSim's.

An object trace (libCacheSim's oracleGeneral or csv) is imported (memtwin.trace_import, each
object a page-aligned range of one file, readahead off), replayed in the twin in a memcg whose
limit is the cache size, and its page-cache miss ratio (pages missed / pages read) printed beside
the miss ratios libCacheSim's own simulators give at the same cache size in bytes (pip package
`libcachesim`, if installed). What each models differs: libCacheSim counts an object cache of
exactly SIZE bytes with one policy; the twin runs the kernel's mechanism (the profile's LRU lists,
memcg charging and reclaim, the dentry and inode the memcg also pays for), so its cache holds a
little less than the limit.
"""

from __future__ import annotations

import os
import sys
import tempfile

from . import api, replay, trace, trace_import

ALGOS = {"lru": "LRU", "s3fifo": "S3FIFO", "fifo": "FIFO", "clock": "Clock", "arc": "ARC", "sieve": "Sieve",
         "lirs": "LIRS", "twoq": "TwoQ", "slru": "SLRU"}


def _size(s: str) -> int:
    from .measure import parse_size

    return parse_size(s)


def run(src: str, size: str, fmt: str = "oracleGeneral", algos=("lru", "s3fifo"), csv_params: str | None = None,
        profile: str = "linux-6.1", cgroup: str = "v2") -> dict:
    nbytes = _size(size)
    with tempfile.TemporaryDirectory(prefix="memtwin-cachesim-") as d:
        mtt = os.path.join(d, "t.mtt")
        if fmt == "oracleGeneral":
            info = trace_import.import_oracle_general(src, mtt)
        else:
            info = trace_import.import_lcs_csv(src, mtt, csv_params or "time-col=1, obj-id-col=2, obj-size-col=3, delimiter=,, has-header=false")
        r = replay.replay(mtt, size, profile=profile, cgroup=cgroup)
    t = r.totals
    hits, misses = float(t["pagecache_hit_pages"]), float(t["pagecache_miss_pages"])
    rows = [{"policy": f"memtwin {profile} ({cgroup} memcg limit)", "miss_ratio": misses / max(hits + misses, 1),
             "cache_bytes": int(t["memcg.file_bytes"])}]
    lcs_error = None
    try:
        import libcachesim as lcs
    except ImportError:
        lcs = None
        lcs_error = "libCacheSim not installed (pip install libcachesim)"
    if lcs is not None:
        for a in algos:
            cls = getattr(lcs, ALGOS[a])
            ttype = lcs.TraceType.ORACLE_GENERAL_TRACE if fmt == "oracleGeneral" else lcs.TraceType.CSV_TRACE
            if fmt != "oracleGeneral":
                lcs_error = "libCacheSim comparison is for oracleGeneral traces here"
                break
            reader = lcs.TraceReader(src, ttype)
            miss, byte_miss = cls(cache_size=nbytes).process_trace(reader)
            rows.append({"policy": f"libCacheSim {ALGOS[a]}", "miss_ratio": float(miss), "byte_miss_ratio": float(byte_miss),
                         "cache_bytes": nbytes})
    return {"trace": src, "size": size, "requests": info["requests"], "objects": info["objects"], "rows": rows,
            "note": lcs_error}


def add_parser(sub) -> None:
    p = sub.add_parser("cachesim", help="an object trace's miss ratio in the Linux page cache beside libCacheSim's policies",
                       description="Import a libCacheSim trace, replay it in the twin in a memcg of --size, and print its "
                                   "miss ratio beside libCacheSim's LRU, S3-FIFO, ... at the same cache size.")
    p.add_argument("trace", metavar="TRACE")
    p.add_argument("--size", required=True, metavar="SIZE", help="cache size = memcg limit, e.g. 32M")
    p.add_argument("--format", choices=["oracleGeneral", "lcs-csv"], default="oracleGeneral")
    p.add_argument("--csv-params", metavar="PARAMS")
    p.add_argument("--algos", default="lru,s3fifo", metavar="A[,A]", help=f"libCacheSim policies (of {','.join(ALGOS)}; default lru,s3fifo)")
    p.add_argument("--profile", default="linux-6.1", help="the twin's kernel profile (default linux-6.1)")
    p.add_argument("--cgroup-version", choices=("v1", "v2"), default="v2")


def run_cli(a) -> int:
    algos = [x.strip().lower() for x in a.algos.split(",") if x.strip()]
    bad = [x for x in algos if x not in ALGOS]
    if bad:
        print(f"memtwin cachesim: error: unknown policy {bad[0]!r}\n  fix: use some of {','.join(ALGOS)}", file=sys.stderr)
        return 2
    try:
        _size(a.size)
    except Exception:
        print(f"memtwin cachesim: error: --size {a.size} is not a size\n  fix: give bytes or a size like 32M, 1G", file=sys.stderr)
        return 2
    try:
        r = run(a.trace, a.size, a.format, algos, a.csv_params, a.profile, a.cgroup_version)
    except (trace.TraceError, api.ScenarioError, ValueError, Exception) as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        print(str(e.args[0] if e.args else e), file=sys.stderr)
        return 1
    print(f"{a.trace}: {r['requests']} requests of {r['objects']} objects, cache {a.size}")
    for row in r["rows"]:
        print(f"  {row['policy']:40} miss ratio {row['miss_ratio']:.4f}")
    if r["note"]:
        print(f"  ({r['note']})")
    return 0
