#!/bin/bash
# rec21's LOADED test of the amended calibration (reclaim-spans-rule.md, amendment): the throttled ra8192 trio, four
# rounds, the default light reclaim trace, one run per hold of both locks, nice -10, the load at every start and end.
# Not a compared set (5-7 other helpers running).
cd /work/wt-rec21
out=lab/validation/trace-reclaim-1201/rec21
log=$out/rec.log
for r in 1 2 3 4; do
  for n in validation-pending/host-ext4-seq-tight-512m-ra8192 validation-pending/host-ext4-seq-tight-1g-ra8192 validation/host-ext4-tight-ra8192; do
    b=$(basename $n)
    echo "$(date +%T) $b round $r load $(cat /proc/loadavg)" >> $log
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 env PYTHONPATH=$PWD/python python3 -m memtwin.cli real scenarios/$n.toml --on host --variant all --json $out/$b-rec21r$r.json > $out/$b-$r.out 2>&1
    echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
  done
done
echo DONE >> $log
