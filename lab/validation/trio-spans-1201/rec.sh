#!/bin/bash
# end-of-session quiet window (s49, the lead, every helper stopped): the throttled ra8192 trio recorded with
# device_lone_window_spans_ns (trio21e's hostcal change), six rounds, one run per hold of both locks, nice -10
cd /work/main
log=/work/quiet/s49/end.log
for r in 1 2 3 4 5 6; do
  for n in validation-pending/host-ext4-seq-tight-512m-ra8192 validation-pending/host-ext4-seq-tight-1g-ra8192 validation/host-ext4-tight-ra8192; do
    b=$(basename $n)
    echo "$(date +%T) $b round $r load $(cat /proc/loadavg)" >> $log
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 memtwin real scenarios/$n.toml --on host --variant all --json /work/quiet/s49/trio/$b-v669s$r.json >> /work/quiet/s49/trio/$b-$r.out 2>&1
    echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
  done
done
echo DONE-TRIO >> $log
