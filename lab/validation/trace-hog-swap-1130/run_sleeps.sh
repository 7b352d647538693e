#!/bin/bash
# stall23c: one recording of host-stall-hog-swap with a bpftrace script of this directory attached (BT, default
# reclaim_sleeps.bt; swap_pace.bt; SCN another scenario file), under both locks,
# tracefs mounted in a private mount namespace, load recorded before and after. OUT (default /tmp/trace-hog-sleeps).
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
out=${OUT:-/tmp/trace-hog-sleeps}; mkdir -p $out
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock \
  unshare -m --propagation private bash -c '
  echo "start $(date -u +%T) $(cat /proc/loadavg)" > '$out'/load.txt
  [ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
  timeout 400 bpftrace lab/validation/trace-hog-swap-1130/${BT:-reclaim_sleeps.bt} > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real ${SCN:-scenarios/validation-pending/host-stall-hog-swap.toml} --on host --variant all --json '$out'/traced.json > '$out'/real.log 2>&1
  echo "rc=$?" >> '$out'/load.txt
  kill -INT $bp; wait $bp
  echo "end $(date -u +%T) $(cat /proc/loadavg)" >> '$out'/load.txt
'
