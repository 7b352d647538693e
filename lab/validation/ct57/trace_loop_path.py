#!/usr/bin/env python3
"""Record one host run's loop-device requests and what lies beneath them: the loop worker's work items,
the requests the worker sends to the backing disk (vda, virtio-blk), plugs and vda's interrupts (ct57).

    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private \\
        nice -n -10 python3 lab/validation/ct57/trace_loop_path.py SCENARIO --raw FILE [--json FILE]

A tracefs instance of its own (tracefs_instance.recording, as trace_thrash_timeline.py) records
block:block_bio_queue / block_rq_issue / block_rq_complete for loop devices (major 7) and for the disk
VDA (major:minor, default 254:0), block:block_plug / block_unplug of kworkers, every
workqueue:workqueue_queue_work / workqueue_activate_work / workqueue_execute_start / workqueue_execute_end
(analysis keeps the loop workqueue's), and irq:irq_handler_entry of virtio handlers. analyse.py reads it.
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
    blk = f"(dev >= {7 << 20} && dev < {8 << 20}) || dev == {vda}"
    return {
        "block/block_bio_queue": blk, "block/block_rq_issue": blk, "block/block_rq_complete": blk,
        "block/block_plug": 'comm ~ "kworker*"', "block/block_unplug": 'comm ~ "kworker*"',
        "workqueue/workqueue_queue_work": 'workqueue ~ "loop*"',
        "workqueue/workqueue_activate_work": None,
        "workqueue/workqueue_execute_start": None, "workqueue/workqueue_execute_end": None,
        "irq/irq_handler_entry": 'name ~ "virtio*"',
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--raw", required=True)
    ap.add_argument("--json", help="the runner's result (steps, host costs)")
    ap.add_argument("--vda", default="254:0", help="the backing disk's major:minor (default 254:0)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("trace_loop_path: run it as root")
    ma, mi = (int(x) for x in a.vda.split(":"))
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_loop_path: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-ct57-") as work:
        result = os.path.abspath(a.json) if a.json else os.path.join(work, "result.json")
        with tracefs_instance.recording(work, "memtwin-ct57", events((ma << 20) | mi), os.path.abspath(a.raw), 131072,
                                        tool="trace_loop_path") as inst:
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", os.path.abspath(a.scenario), "--on", "host",
                                "--json", result], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            if r.returncode != 0:
                sys.exit(f"trace_loop_path: memtwin real failed (exit {r.returncode})")
            lost = tracefs_instance.events_lost(inst)
            if lost:
                sys.exit(f"trace_loop_path: {lost} events lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
