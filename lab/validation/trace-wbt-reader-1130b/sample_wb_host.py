#!/usr/bin/env python3
"""Record one host run of a scenario with the kernel's Dirty/Writeback sampled (jbd23, issue 23).

    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock python3 \
        lab/validation/trace-wbt-reader-1130b/sample_wb_host.py SCENARIO --json OUT --series CSV

Runs `memtwin real SCENARIO --on host --json OUT` and, every `--interval` seconds (10 ms), reads
/proc/meminfo (Dirty, Writeback) and the memory.stat of every v1 memcg under the run's
memtwin-* subtree (dirty, writeback, cache, rss, pgpgout) into CSV: t (CLOCK_MONOTONIC, s),
source (meminfo or the memcg's path), dirty_kB, writeback_kB, cache_kB, rss_kB, pgpgout.
The question (issue 23): the engine's Writeback in host-stall-cp8x-p64m is a saw-tooth of
49-118 MB over the copy; is the kernel's? (only its copy-end figures, 41-58 MB, were known).
"""
import argparse
import glob
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
MEMCG_V1 = "/sys/fs/cgroup/memory"


def meminfo() -> tuple[int, int]:
    d = w = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Dirty:"):
                d = int(line.split()[1])
            elif line.startswith("Writeback:"):
                w = int(line.split()[1])
    return d, w


def memstat(path: str) -> dict[str, int] | None:
    try:
        with open(path) as f:
            return {k: int(v) for k, v in (line.split() for line in f)}
    except (OSError, ValueError):
        return None


def sampler(out, stop: threading.Event, interval: float) -> None:
    while not stop.is_set():
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        d, w = meminfo()
        out.write(f"{t:.4f},meminfo,{d},{w},,,\n")
        for p in glob.glob(os.path.join(MEMCG_V1, "memtwin-*", "**", "memory.stat"), recursive=True):
            s = memstat(p)
            if s is None:
                continue
            rel = os.path.relpath(os.path.dirname(p), MEMCG_V1)
            out.write(f"{t:.4f},{rel},{s.get('dirty', 0) // 1024},{s.get('writeback', 0) // 1024},"
                      f"{s.get('cache', 0) // 1024},{s.get('rss', 0) // 1024},{s.get('pgpgout', 0)}\n")
        stop.wait(interval)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--json", required=True)
    ap.add_argument("--series", required=True, help="CSV to write the samples to")
    ap.add_argument("--interval", type=float, default=0.01, help="seconds between samples (default 0.01)")
    a = ap.parse_args()
    if not os.path.isdir(MEMCG_V1):
        sys.exit(f"sample_wb_host: {MEMCG_V1} is missing (cgroup v1's memory controller)\n"
                 "  fix: run on the host runner, whose memcg is v1")
    stop = threading.Event()
    with open(a.series, "w") as out:
        out.write("t,source,dirty_kB,writeback_kB,cache_kB,rss_kB,pgpgout\n")
        th = threading.Thread(target=sampler, args=(out, stop, a.interval), daemon=True)
        th.start()
        try:
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", a.scenario, "--on", "host", "--json", a.json],
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")), timeout=900)
        except subprocess.TimeoutExpired:
            sys.exit("sample_wb_host: memtwin real ran over 900 s and was killed\n"
                     "  fix: run `memtwin lab clean` (it removes what the killed run left), then try again")
        finally:
            stop.set()
            th.join()
    print(f"sample_wb_host: memtwin real exit {r.returncode}, series {a.series}")
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
