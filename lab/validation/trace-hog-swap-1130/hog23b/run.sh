#!/bin/bash
# hog23b: one LOADED recording of host-stall-hog-swap with sw.bt (cfs23's: every switch and wake-up of a python3
# task), by the runner of this branch (RUNNER=new, folio_scan_blocked) or of its parent commit a272cfee^ (RUNNER=old:
# a copy of this package in /tmp/hog23b/oldpkg with that real.py, every step's end scanned); both locks held for this
# one recording; tracefs mounted for bpftrace only if it was not, unmounted after; the load at start and end.
cd /work/wt-hog23b
here=$PWD/lab/validation/trace-hog-swap-1130/hog23b
if [ "$RUNNER" = old ]; then export PYTHONPATH=/tmp/hog23b/oldpkg; else export PYTHONPATH=$PWD/python; fi
out=${OUT:?}; mkdir -p $out
timeout 1500 flock -w 1400 /tmp/memtwin-qemu.lock flock -w 1400 /tmp/memtwin-host.lock bash -c '
  echo "runner '$RUNNER' PYTHONPATH='$PYTHONPATH'" > '$out'/load.txt
  echo "start $(date -u +%H:%M:%S) $(cat /proc/loadavg)" >> '$out'/load.txt
  if grep -q memtwin /proc/swaps; then echo "a memtwin swap is on: skipped" >> '$out'/load.txt; exit 0; fi
  mounted=
  if [ ! -e /sys/kernel/tracing/events ]; then mount -t tracefs nodev /sys/kernel/tracing && mounted=1; fi
  timeout 300 bpftrace '$here'/sw.bt > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/host-stall-hog-swap.toml --on host --json '$out'/traced.json > '$out'/real.log 2>&1
  echo rc=$? >> '$out'/load.txt; kill -INT $bp; wait $bp
  [ -n "$mounted" ] && umount /sys/kernel/tracing
  echo "end $(date -u +%H:%M:%S) $(cat /proc/loadavg) swaps_after=$(grep -c memtwin /proc/swaps)" >> '$out'/load.txt
'
xz -f $out/bt.out
