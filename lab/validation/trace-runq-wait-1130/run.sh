#!/bin/bash
# one recording of a host-queue scenario's variant (SCN, VARIANT; default host-queue-read-ra128 msk-128)
# with every python3 task's wake-ups traced (lab/validation/trace_runq_wait.bt)
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
out=${OUT:-/tmp/trace-runq-wait}; mkdir -p $out
timeout 900 flock -w 800 /tmp/memtwin-host.lock bash -c '
  ulimit -l unlimited
  timeout 200 bpftrace lab/validation/trace_runq_wait.bt > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/${SCN:-host-queue-read-ra128}.toml --on host --variant ${VARIANT:-msk-128} --json '$out'/traced.json > '$out'/real.log 2>&1
  kill -INT $bp; wait $bp
  cat /proc/loadavg > '$out'/load.txt
'
