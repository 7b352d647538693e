#!/bin/bash
# hog23: one LOADED recording of host-stall-hog-swap with prof.bt (sw.bt's switches and wake-ups of every python3 task
# and its kernel-mode CPU samples); both locks held for this one recording; tracefs mounted for bpftrace only if it was
# not, unmounted after; the load at start and end.
cd /work/wt-hog23
export PYTHONPATH=$PWD/python
out=${OUT:-/tmp/hog23/trace/out}; mkdir -p $out
timeout 1500 flock -w 1400 /tmp/memtwin-qemu.lock flock -w 1400 /tmp/memtwin-host.lock bash -c '
  echo "start $(date -u +%H:%M:%S) $(cat /proc/loadavg)" > '$out'/load.txt
  if grep -q memtwin /proc/swaps; then echo "a memtwin swap is on: skipped" >> '$out'/load.txt; exit 0; fi
  mounted=
  if [ ! -e /sys/kernel/tracing/events ]; then mount -t tracefs nodev /sys/kernel/tracing && mounted=1; fi
  timeout 300 bpftrace $(dirname $0)/prof.bt > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/host-stall-hog-swap.toml --on host --json '$out'/traced.json > '$out'/real.log 2>&1
  echo rc=$? >> '$out'/load.txt; kill -INT $bp; wait $bp
  [ -n "$mounted" ] && umount /sys/kernel/tracing
  echo "end $(date -u +%H:%M:%S) $(cat /proc/loadavg) swaps_after=$(grep -c memtwin /proc/swaps)" >> '$out'/load.txt
'
