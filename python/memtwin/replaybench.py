"""`memtwin bench --replay`: the streaming replay's speed and memory on synthetic traces.

A synthetic read-heavy trace of N events (`synthetic`): 4 KiB pread()s, 90% reading a hot 64 MiB
file front to back over and over (hits once read) and 10% a random page of a cold 1 GiB file
(misses: readahead, charges and memcg reclaim), replayed with no think time in a 256M memcg.
Wall time and CPU time (all threads: the binding reads and decompresses the next chunks in a
thread of its own while the engine runs) are both reported; events per CPU-second is the
one-core figure. Each size runs in its own process (`python3 -m memtwin.replaybench
N TRACE`), which reports wall time, events/s and its peak RSS (getrusage ru_maxrss): peak RSS
flat in N is the point (the engine holds one chunk; memtwin.trace.Reader one chunk).
Traces are generated once into a cache directory (numpy, seeded, so byte-identical each time).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time

SIZES = (1_000_000, 10_000_000, 100_000_000)
FILE_SIZE = 1 << 30
HOT = 64 << 20
LIMIT = "256M"


def synthetic(path: str, events: int, seed: int = 1) -> None:
    """Write the synthetic read-heavy trace of `events` events to `path`."""
    import numpy as np

    from memtwin import trace

    dt = np.dtype([("t", "<u8"), ("off", "<u8"), ("len", "<u8"), ("pid", "<u4"), ("file", "<u2"), ("op", "u1"), ("flags", "u1")])
    assert dt.itemsize == trace.EVENT.size
    rng = np.random.default_rng(seed)
    w = trace.Writer(path, {"source": "synthetic", "generator": "memtwin.replaybench", "seed": seed,
                            "files": [{"id": 0, "path": "/bench/hot", "size": HOT},
                                      {"id": 1, "path": "/bench/cold", "size": FILE_SIZE}]}, level=3)
    try:
        done = 0
        hot_done = 0
        while done < events:
            n = min(trace.CHUNK_EVENTS, events - done)
            a = np.zeros(n, dtype=dt)
            hot = rng.random(n) < 0.9
            seq = (hot_done + np.cumsum(hot) - 1) % (HOT // 4096)
            hot_done += int(hot.sum())
            pages = np.where(hot, seq, rng.integers(0, FILE_SIZE // 4096, n))
            a["t"] = np.arange(done, done + n, dtype=np.uint64) * 1000
            a["off"] = pages.astype(np.uint64) * 4096
            a["len"] = 4096
            a["pid"] = 1
            a["file"] = np.where(hot, 0, 1)
            a["op"] = trace.OPS["read"]
            w.add_raw(a.tobytes())
            done += n
    except BaseException:
        w.abort()
        raise
    w.close()


def trace_path(events: int, cache: str | None = None) -> str:
    d = cache or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "memtwin-bench")
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, f"synthetic-read2-{events}.mtt")
    if not os.path.exists(p):
        synthetic(p, events)
    return p


def _one(events: int, path: str) -> dict:
    from memtwin import replay

    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    r = replay.replay(path, LIMIT, ram="4G")
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    info = r.raw["traces"][0]
    t = r.totals
    return {"events": info["events"], "seconds": wall, "events_per_second": info["events"] / wall,
            "cpu_seconds": cpu, "events_per_cpu_second": info["events"] / cpu,
            "page_events": r.engine["page_events"], "read_bytes": int(t["read_bytes"]),
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def run_replay_bench(sizes=SIZES, cache: str | None = None, timeout: float = 1800) -> dict:
    rows = []
    for n in sizes:
        p = trace_path(n, cache)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.pathsep + env.get("PYTHONPATH", "")
        r = subprocess.run([sys.executable, "-m", "memtwin.replaybench", str(n), p], capture_output=True, text=True, timeout=timeout, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"replay bench of {n} events failed:\n{r.stderr}")
        row = json.loads(r.stdout)
        row["trace_bytes"] = os.path.getsize(p)
        rows.append(row)
    return {"date": time.strftime("%Y-%m-%d"), "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "limit": LIMIT, "rows": rows, "target_events_per_second": 10e6}


def format_replay_bench(r: dict) -> str:
    lines = [f"memtwin bench --replay, {r['date']}: synthetic read-heavy traces (4K preads: 90% a hot 64M file read over and over, 10% random pages of a 1G file), memcg {r['limit']}",
             f"{'events':>12} {'trace MB':>9} {'wall s':>8} {'M ev/s':>7} {'CPU s':>8} {'M ev/CPU-s':>11} {'peak RSS MB':>12}"]
    for w in r["rows"]:
        lines.append(f"{w['events']:>12} {w['trace_bytes'] / 1e6:>9.1f} {w['seconds']:>8.2f} {w['events_per_second'] / 1e6:>7.2f} "
                     f"{w['cpu_seconds']:>8.2f} {w['events_per_cpu_second'] / 1e6:>11.2f} {w['peak_rss_bytes'] / 2**20:>12.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(_one(int(sys.argv[1]), sys.argv[2])))
