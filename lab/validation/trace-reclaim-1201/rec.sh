#!/bin/bash
# reclaim21's LOADED test set (5-7 helpers running): host-ext4-seq-tight-1g-ra8192, runs 1-2 with the scenario's
# reclaim trace, run 3 with it off (MEMTWIN_NO_RECLAIM_TRACE=1), one run per hold of both locks, nice -10.
# Only to check the recording end to end and the trace's effect; NOT a compared set.
cd /work/wt-reclaim21
out=lab/validation/trace-reclaim-1201
log=$out/rec.log
n=validation-pending/host-ext4-seq-tight-1g-ra8192
b=$(basename $n)
for r in 1 2 3; do
  if [ $r = 3 ]; then export MEMTWIN_NO_RECLAIM_TRACE=1; fi
  echo "$(date +%T) $b run $r notrace=${MEMTWIN_NO_RECLAIM_TRACE:-0} load $(cat /proc/loadavg)" >> $log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 env PYTHONPATH=$PWD/python python3 -m memtwin.cli real scenarios/$n.toml --on host --variant all --json $out/$b-rc$r.json > $out/$b-$r.out 2>&1
  echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
echo DONE >> $log
