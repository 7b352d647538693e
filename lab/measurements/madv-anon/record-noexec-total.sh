#!/bin/sh
# mm20: three boots of qemu61-mmap-noexec-total (one hold of the QEMU lock per boot), the host load
# at each start and end in rec.log. Run from the repository root.
set -u
LOG=lab/measurements/madv-anon/rec.log
n=qemu61-mmap-noexec-total
for boot in 1 2 3; do
  out=scenarios/validation/real/$n.json
  [ $boot -gt 1 ] && out=scenarios/validation/real/$n-run$boot.json
  echo "$(date -u +%H:%M:%S) $n boot $boot wait" >> $LOG
  flock /tmp/memtwin-qemu.lock sh -c "echo \"\$(date -u +%H:%M:%S) $n boot $boot start load \$(cat /proc/loadavg)\" >> $LOG;
    PYTHONPATH=\$PWD/python python3 -m memtwin.cli real scenarios/validation/$n.toml --on qemu --qemu-nice -15 --variant all --json $out > lab/measurements/madv-anon/$n-boot$boot.out 2>&1;
    echo \"\$(date -u +%H:%M:%S) $n boot $boot rc=\$? end load \$(cat /proc/loadavg)\" >> $LOG"
done
echo DONE noexec-total >> $LOG
