#!/bin/bash
# For the LEAD's quiet window after reclaim21 is merged (every helper stopped; host-set-rule.md 1): the throttled
# ra8192 trio recorded with both spans (device_lone_window_spans_ns and reclaim21's scenario_reclaim_call_spans_ns),
# six rounds, one run per hold of both locks, nice -10, the load at every start and end. The set compared by
# lab/validation/reclaim-spans-rule.md 3. Usage: quiet-trio.sh OUTDIR (e.g. /work/quiet/s51/trio)
set -u
out=${1:?usage: quiet-trio.sh OUTDIR}
mkdir -p "$out"
cd /work/main
log=$out/rec.log
for r in 1 2 3 4 5 6; do
  for n in validation-pending/host-ext4-seq-tight-512m-ra8192 validation-pending/host-ext4-seq-tight-1g-ra8192 validation/host-ext4-tight-ra8192; do
    b=$(basename $n)
    echo "$(date +%T) $b round $r load $(cat /proc/loadavg)" >> $log
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 memtwin real scenarios/$n.toml --on host --variant all --json $out/$b-v669r$r.json >> $out/$b-$r.out 2>&1
    echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> $log
  done
done
echo DONE-TRIO >> $log
