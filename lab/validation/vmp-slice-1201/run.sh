#!/bin/bash
# vmp-slice (copied from vmpressure-1201/run.sh, vmp.bt -> slice.bt): one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with slice.bt attached: both locks for
# this one recording, tracefs in a private mount namespace, load before/after. Run from the worktree's root.
set -e
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
export PYTHONPATH=$PWD/python
out=${OUT:?}; mkdir -p $out
scn=${SCN:?}; var=${VARIANT:?}
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock unshare -m --propagation private bash -c '
  cat /proc/loadavg > '$out'/load.txt; date -u +%T >> '$out'/load.txt
  mount -t tracefs nodev /sys/kernel/tracing
  timeout 300 bpftrace '$here'/slice.bt > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/validation/'$scn'.toml --on host --variant '$var' --json '$out'/traced.json > '$out'/real.log 2>&1
  echo rc=$? >> '$out'/load.txt
  kill -INT $bp; wait $bp
  cat /proc/loadavg >> '$out'/load.txt; date -u +%T >> '$out'/load.txt
'
