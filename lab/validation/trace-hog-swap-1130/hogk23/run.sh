#!/bin/bash
# s51 lead: host-stall-hog-swap quiet set with hog23b's runner (folio scan after the last task), 6 runs, untraced,
# one run per hold of both locks, nice -10, load at every start and end. Files host-stall-hog-swap-v669k{1..6}.json
out=/work/quiet/s51/hog; cd /work/main; log=$out/rec.log
for r in 1 2 3 4 5 6; do
  j=$out/host-stall-hog-swap-v669k$r.json
  echo "$(date +%T) round $r load $(cat /proc/loadavg)" >> $log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 memtwin real scenarios/validation-pending/host-stall-hog-swap.toml --on host --variant all --json $j > $out/run$r.out 2>&1
  echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
echo DONE-HOG >> $log
