#!/bin/bash
# rec21: two LOADED runs with the calibration's minimum raised to 40 (force_min.py) so that it reads its file several
# times and meets its bounds on the real host: the repeated reads and the by-read record end to end. Not a set.
cd /work/wt-rec21
out=lab/validation/trace-reclaim-1201/rec21
log=$out/rec.log
for n in validation-pending/host-ext4-seq-tight-512m-ra8192 validation/host-ext4-tight-ra8192; do
  b=$(basename $n)
  echo "$(date +%T) $b forced RECLAIM_MIN=40 load $(cat /proc/loadavg)" >> $log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 env PYTHONPATH=$PWD/python python3 $out/force_min.py 40 scenarios/$n.toml --on host --variant all --json $out/$b-force40.json > $out/$b-force40.out 2>&1
  echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
echo DONE2 >> $log
