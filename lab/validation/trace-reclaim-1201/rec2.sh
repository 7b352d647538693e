#!/bin/bash
# reclaim21's trace-cost check, continued on the LOADED host: runs 4-7 alternating trace off / on
# (4, 6 off; 5, 7 on), as rec.sh otherwise.
cd /work/wt-reclaim21
out=lab/validation/trace-reclaim-1201
log=$out/rec.log
n=validation-pending/host-ext4-seq-tight-1g-ra8192
b=$(basename $n)
for r in 4 5 6 7; do
  if [ $((r % 2)) = 0 ]; then export MEMTWIN_NO_RECLAIM_TRACE=1; else unset MEMTWIN_NO_RECLAIM_TRACE; fi
  echo "$(date +%T) $b run $r notrace=${MEMTWIN_NO_RECLAIM_TRACE:-0} load $(cat /proc/loadavg)" >> $log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 env PYTHONPATH=$PWD/python python3 -m memtwin.cli real scenarios/$n.toml --on host --variant all --json $out/$b-rc$r.json > $out/$b-$r.out 2>&1
  echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
echo DONE2 >> $log
