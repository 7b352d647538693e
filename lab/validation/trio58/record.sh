#!/bin/bash
# trio58: one traced run of the 512M ra8192 pass 1 (the scenario bias21's v1045/v857 traces ran), both locks,
# tracefs in a private mount namespace, the runner at nice -10. Usage: record.sh OUTDIR (from the worktree's top)
set -u
d=$1; mkdir -p $d
export PYTHONPATH=$PWD/python
scn=lab/validation/trace-race-v669-1130/host-ext4-seq-tight-512m-ra8192-pass1.toml
flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private sh -c "
  echo \"\$(date -u +%T) start load \$(cat /proc/loadavg)\" >> $d/rec.log
  nice -n -10 python3 lab/validation/trio58/trace_frames.py $scn --raw $d/raw.txt --json $d/result.json > $d/trace.out 2>&1
  echo \"\$(date -u +%T) rc=\$? end load \$(cat /proc/loadavg)\" >> $d/rec.log"
