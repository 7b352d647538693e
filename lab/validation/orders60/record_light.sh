#!/bin/bash
# orders60: one traced run of the 512M ra8192 pass 1 with trace_light.py (tracefs, no bpftrace), both locks, private
# mount namespace, nice -10, timeout 300. Usage (worktree top, root): [MIN=1|MID=1] lab/validation/orders60/record_light.sh OUTDIR
set -u
d=$1; mkdir -p $d
export PYTHONPATH=$PWD/python
scn=lab/validation/trace-race-v669-1130/host-ext4-seq-tight-512m-ra8192-pass1.toml
flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private sh -c "
  echo \"\$(date -u +%T) start load \$(cat /proc/loadavg)\" >> $d/rec.log
  timeout 300 nice -n -10 python3 lab/validation/orders60/trace_light.py $scn --raw $d/raw.txt --json $d/result.json ${MIN:+--min} ${MID:+--mid} > $d/trace.out 2>&1
  echo \"\$(date -u +%T) rc=\$? end load \$(cat /proc/loadavg)\" >> $d/rec.log"
