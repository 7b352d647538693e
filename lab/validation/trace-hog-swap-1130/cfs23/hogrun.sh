#!/bin/bash
# one recording of a host-queue scenario's variant (SCN, VARIANT, OUT; default
# host-queue-read-ra128-idle msk-128) with every python3 task's run-queue waits traced
# (/work/quiet/s50/sw.bt); the QEMU and host locks held for this one recording only
# (BRIEF: a host run takes both), tracefs mounted for bpftrace and unmounted after, the load
# recorded before and after
cd /work/main
export PYTHONPATH=$PWD/python
out=${OUT:-/tmp/trace-idle-wait}; mkdir -p $out
scn=${SCN:-host-queue-read-ra128-idle}; var=${VARIANT:-msk-128}
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock bash -c '
  cat /proc/loadavg > '$out'/load.txt
  mounted=
  if [ ! -e /sys/kernel/tracing/events ]; then mount -t tracefs nodev /sys/kernel/tracing && mounted=1; fi
  timeout 300 bpftrace /work/quiet/s50/sw.bt > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/'$scn'.toml --on host --variant '$var' --json '$out'/traced.json > '$out'/real.log 2>&1
  echo rc=$? >> '$out'/load.txt; kill -INT $bp; wait $bp
  [ -n "$mounted" ] && umount /sys/kernel/tracing
  cat /proc/loadavg >> '$out'/load.txt
'
