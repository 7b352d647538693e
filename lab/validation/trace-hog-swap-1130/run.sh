#!/bin/bash
# stall23c: one recording of host-stall-hog-swap with the kernel's reclaim batches traced
# (vmscan:mm_vmscan_lru_shrink_inactive and mm_vmscan_lru_shrink_active, a tracefs instance of
# its own, 64 MiB a CPU, read after the run): which lists the memcg's limit reclaim scans, what
# it frees, keeps and activates, at which priority. The QEMU and host locks held for this one
# recording only; tracefs mounted in a private mount namespace; the instance removed after; the
# load recorded before and after. OUT (default /tmp/trace-hog-swap).
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
out=${OUT:-/tmp/trace-hog-swap}; mkdir -p $out
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock \
  env EXTRA_EVENTS="$EXTRA_EVENTS" unshare -m --propagation private bash -c '
  echo "start $(date -u +%T) $(cat /proc/loadavg)" > '$out'/load.txt
  [ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
  I=/sys/kernel/tracing/instances/stall23c
  mkdir $I || exit 1
  echo 65536 > $I/buffer_size_kb
  echo 1 > $I/events/vmscan/mm_vmscan_lru_shrink_inactive/enable
  echo 1 > $I/events/vmscan/mm_vmscan_lru_shrink_active/enable
  for e in ${EXTRA_EVENTS:-}; do echo 1 > $I/events/$e/enable; done
  echo 1 > $I/tracing_on
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/host-stall-hog-swap.toml --on host --variant all --json '$out'/traced.json > '$out'/real.log 2>&1
  echo "rc=$?" >> '$out'/load.txt
  echo 0 > $I/tracing_on
  cat $I/trace > '$out'/vmscan.trace
  cat $I/per_cpu/cpu0/stats $I/per_cpu/cpu1/stats > '$out'/stats.txt
  echo 0 > $I/events/enable
  rmdir $I
  echo "end $(date -u +%T) $(cat /proc/loadavg)" >> '$out'/load.txt
'
