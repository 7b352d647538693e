#!/bin/sh
# mm20: three boots each of the qemu61-madv-* scenarios (one hold of the QEMU lock per boot),
# the host load at each start and end in rec.log. Run from the repository root.
set -u
LOG=lab/measurements/madv-anon/rec.log
for boot in 1 2 3; do
  for n in qemu61-madv-pageout-anon qemu61-madv-pageout-anon-noswap qemu61-madv-willneed-anon; do
    out=scenarios/validation/real/$n.json
    [ $boot -gt 1 ] && out=scenarios/validation/real/$n-boot$boot.json
    echo "$(date -u +%H:%M:%S) $n boot $boot wait" >> $LOG
    flock /tmp/memtwin-qemu.lock sh -c "echo \"\$(date -u +%H:%M:%S) $n boot $boot start load \$(cat /proc/loadavg)\" >> $LOG;
      PYTHONPATH=\$PWD/python python3 -m memtwin.cli real scenarios/validation/$n.toml --on qemu --qemu-nice -15 --json $out > lab/measurements/madv-anon/$n-boot$boot.out 2>&1;
      echo \"\$(date -u +%H:%M:%S) $n boot $boot rc=\$? end load \$(cat /proc/loadavg)\" >> $LOG"
  done
done
echo DONE >> $LOG
