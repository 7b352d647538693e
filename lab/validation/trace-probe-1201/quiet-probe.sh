#!/bin/bash
# For a quiet window (nothing else running, load below 2): three traced host-stall-alone-p16m recordings, one of
# host-stall-cp4x-p16m, and pinned_rounds.py with its chunks, each under both locks (run.sh takes them), into
# lab/validation/trace-probe-1201/quiet-DATE/. See README.md "quiet-probe.sh".
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
d=$PWD/lab/validation/trace-probe-1201/quiet-$(date -u +%m%d-%H%M); mkdir -p $d
for i in 1 2 3; do OUT=$d/alone-$i lab/validation/trace-probe-1201/run.sh; done
OUT=$d/cp4x-1 SCN=host-stall-cp4x-p16m lab/validation/trace-probe-1201/run.sh
timeout 300 flock -w 250 /tmp/memtwin-qemu.lock flock -w 250 /tmp/memtwin-host.lock bash -c "
  cat /proc/loadavg > $d/pinned-load.txt
  nice -n -10 python3 lab/validation/trace-probe-1201/pinned_rounds.py $d/pinned.jsonl 40 20 5,-5 1
  cat /proc/loadavg >> $d/pinned-load.txt"
python3 lab/validation/trace-probe-1201/summarize.py $d/alone-1 $d/alone-2 $d/alone-3 $d/cp4x-1 > $d/summary.txt
python3 lab/validation/trace-probe-1201/pinned_summary.py $d/pinned.jsonl >> $d/summary.txt
