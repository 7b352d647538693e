#!/usr/bin/env python3
"""Record one host run of a scenario with the ext4 journal's commits traced (jbd23b, issue 23).

    flock /tmp/memtwin-host.lock python3 lab/validation/trace-wbt-reader-1130b/trace_jbd2_host.py \
        SCENARIO --json OUT --trace RAW

Runs `memtwin real SCENARIO --on host --json OUT` while a tracefs instance of its own records
jbd2/{jbd2_start_commit, jbd2_commit_logging, jbd2_end_commit, jbd2_run_stats} and
writeback/balance_dirty_pages (a sleeping writer) into RAW (run under the host lock so no other
run's loop device is busy). `jbd2_run_stats` gives each commit's phases (ms): running (the
transaction's age at the commit), locked, flushing, logging (the log write: submitted to
completed), handle_count, blocks, blocks_logged: whether kjournald2's log write waited behind the
root blkio group's throttle backlog (seconds of logging at the scenario's write_bw) or not.
`--writeback` adds the flusher's works (writeback:writeback_{start,written,queue,wake_background}),
ext4:ext4_writepages{,_result} and memcg reclaim's begin/end (vmscan).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))

import tracefs_instance  # noqa: E402

EVENTS = {"jbd2/jbd2_start_commit": None, "jbd2/jbd2_commit_logging": None, "jbd2/jbd2_end_commit": None,
          "jbd2/jbd2_run_stats": None, "writeback/balance_dirty_pages": "pause > 0"}
# --writeback: also the flusher's works and ext4's writepages calls (where the flusher stops)
WRITEBACK_EVENTS = {"writeback/writeback_start": None, "writeback/writeback_written": None,
                    "writeback/writeback_wake_background": None, "writeback/writeback_queue": None,
                    "ext4/ext4_writepages": None, "ext4/ext4_writepages_result": None,
                    "vmscan/mm_vmscan_memcg_reclaim_begin": None, "vmscan/mm_vmscan_memcg_reclaim_end": None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--json", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--writeback", action="store_true", help="also trace the flusher's works and ext4_writepages()")
    a = ap.parse_args()
    events = dict(EVENTS, **WRITEBACK_EVENTS) if a.writeback else EVENTS
    with tempfile.TemporaryDirectory(prefix="memtwin-jbd2-") as work:
        with tracefs_instance.recording(work, "memtwin-jbd2", events, a.trace, 16384, poll=0.01, tool="trace_jbd2_host") as inst:
            try:
                r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", a.scenario, "--on", "host", "--json", a.json],
                                   env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")), timeout=900)
            except subprocess.TimeoutExpired:
                sys.exit("trace_jbd2_host: memtwin real ran over 900 s and was killed\n"
                         "  fix: run `memtwin lab clean` (it removes what the killed run left), then try again")
            lost = tracefs_instance.events_lost(inst)
    print(f"trace_jbd2_host: memtwin real exit {r.returncode}, events lost {lost}, trace {a.trace}")
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
