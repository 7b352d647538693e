#!/bin/bash
# orders60: one traced run of the 512M ra8192 pass 1 (trio58's scenario), both locks, tracefs in a private
# mount namespace, bpftrace charges.bt (tracepoints, the reader's tid only), the runner at nice -10, timeout 300.
# Usage (from the worktree's top, as root): lab/validation/orders60/record.sh OUTDIR
set -u
d=$1; mkdir -p $d
export PYTHONPATH=$PWD/python
scn=lab/validation/trace-race-v669-1130/host-ext4-seq-tight-512m-ra8192-pass1.toml
bt=${BT:-lab/validation/orders60/charges.bt}
flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private bash -c "
  mount -t tracefs nodev /sys/kernel/tracing || exit 1
  echo \"\$(date -u +%T) start load \$(cat /proc/loadavg)\" >> $d/rec.log
  BPFTRACE_PERF_RB_PAGES=4096 timeout 330 bpftrace $bt > $d/trace.txt 2> $d/bpftrace.err &
  bp=\$!
  for i in \$(seq 60); do grep -q '^BEGIN' $d/trace.txt 2>/dev/null && break; sleep 0.5; done
  timeout 300 nice -n -10 python3 -m memtwin.cli real $scn --on host --json $d/result.json > $d/run.out 2>&1
  rc=\$?
  kill -INT \$bp; wait \$bp
  echo \"\$(date -u +%T) rc=\$rc bpftrace=\$? end load \$(cat /proc/loadavg)\" >> $d/rec.log"
