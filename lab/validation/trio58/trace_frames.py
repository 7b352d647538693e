#!/usr/bin/env python3
"""Record one host run's page frames (trio58): every page allocation and free in the reader's context
(kmem:mm_page_alloc with pfn and order, mm_page_alloc_zone_locked: a take from the buddy lists, with
percpu_refill set when rmqueue_bulk() refills a per-CPU list; mm_page_free / mm_page_free_batched; mm_page_pcpu_drain),
and the loop device's requests (block_rq_issue / block_rq_complete on major 7).

    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private \\
        nice -n -10 python3 lab/validation/trio58/trace_frames.py SCENARIO --raw FILE [--json FILE]

A tracefs instance of its own (tracefs_instance.recording, as ct57/trace_loop_path.py, from which this is
made); the kmem events filtered to tasks named python3* (the runner's reader). frames.py reads it.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import tracefs_instance  # noqa: E402


def events(vda: int) -> dict:
    loop = f"dev >= {7 << 20} && dev < {8 << 20}"
    py = 'comm ~ "python3*"'
    return {
        "block/block_rq_issue": loop, "block/block_rq_complete": loop,
        "kmem/mm_page_alloc": py, "kmem/mm_page_alloc_zone_locked": py, "kmem/mm_page_free": py,
        "kmem/mm_page_free_batched": py, "kmem/mm_page_pcpu_drain": py,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--raw", required=True)
    ap.add_argument("--json", help="the runner's result (steps, host costs)")
    ap.add_argument("--vda", default="254:0", help="the backing disk's major:minor (default 254:0)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("trace_frames: run it as root")
    ma, mi = (int(x) for x in a.vda.split(":"))
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_frames: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-trio58-") as work:
        result = os.path.abspath(a.json) if a.json else os.path.join(work, "result.json")
        with tracefs_instance.recording(work, "memtwin-trio58", events((ma << 20) | mi), os.path.abspath(a.raw), 131072,
                                        tool="trace_frames") as inst:
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", os.path.abspath(a.scenario), "--on", "host",
                                "--json", result], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            if r.returncode != 0:
                sys.exit(f"trace_frames: memtwin real failed (exit {r.returncode})")
            lost = tracefs_instance.events_lost(inst)
            if lost:
                sys.exit(f"trace_frames: {lost} events lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
