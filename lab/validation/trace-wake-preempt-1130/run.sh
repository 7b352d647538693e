#!/bin/bash
# one recording of a host-queue scenario's variant (SCN, VARIANT) with every python3 task's
# wake-ups traced for check_preempt_wakeup_fair()'s inputs (lab/validation/trace_wake_preempt.bt);
# the host lock held for this one recording only; BT= another script (trace-worker-wake-1130/run.sh)
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
out=${OUT:?OUT=dir}; mkdir -p $out
bt=${BT:-lab/validation/trace_wake_preempt.bt}
timeout 900 flock -w 800 /tmp/memtwin-host.lock bash -c '
  cat /proc/loadavg > '$out'/load-start.txt
  timeout 300 bpftrace '$bt' > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/${SCN}.toml --on host --variant ${VARIANT} --json '$out'/traced.json > '$out'/real.log 2>&1
  kill -INT $bp; wait $bp
  cat /proc/loadavg > '$out'/load.txt
'
