#!/usr/bin/env python3
"""Replay the recorded programs of python/tests/test_trace_validation.py's KNOWN_OUT points with
`memtwin replay`'s scenario, its `[devices.sda]` table updated with DEVICE (a JSON object of
device keys; with `queue_depth`, the default `seek` is dropped), and print read_bytes against
the measurement (lab/validation/loop-device.md's replay table):

    PYTHONPATH=python python3 lab/validation/replay_device.py '{"read_bw": 3300000000, "queue_depth": 128, ...}' [NAME@LIMIT ...]
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from memtwin import replay  # noqa: E402

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios", "validation", "traces")


def main() -> int:
    measured = json.load(open(os.path.join(D, "measured.json")))["programs"]
    dev = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    orig = replay.to_scenario

    def to_scenario(*a, **k):
        s = orig(*a, **k)
        s["devices"]["sda"].update(dev)
        if "queue_depth" in dev and "seek" not in dev:
            s["devices"]["sda"].pop("seek", None)
        return s

    replay.to_scenario = to_scenario
    points = [tuple(x.split("@")) for x in sys.argv[2:]] or [("cat", "12M"), ("sqlite3", "10M"), ("sqlite3-mmap", "10M")]
    for name, lim in points:
        t = replay.replay(os.path.join(D, name + ".mtt"), lim).totals
        real = measured[name]["limits"][lim]
        r = (t["read_bytes"] - real["read_bytes"]) / real["read_bytes"]
        print(f"{name}@{lim}: read_bytes twin {int(t['read_bytes']) / 1e6:.1f}M measured {real['read_bytes'] / 1e6:.1f}M ({r:+.1%})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
