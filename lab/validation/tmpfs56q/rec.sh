#!/bin/bash
# s56 quiet host-tmpfs-tight set: ROUNDS rounds of the three tight scenarios in turn, both locks per run, runner at nice -10
cd /work/main; export PYTHONPATH=$PWD/python
out=/work/quiet/s56/tmpfs
for r in $(seq 1 ${ROUNDS:-6}); do
  for s in never always within; do
    n=host-tmpfs-tight-$s
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock bash -c "
      echo \"\$(date -u +%T) start $n r$r load \$(cut -d' ' -f1-3 /proc/loadavg)\" >> $out/rec.log
      nice -n -10 python3 -m memtwin.cli real scenarios/validation-pending/$n.toml --on host --variant all --json $out/$n-s56q$r.json > $out/$n-s56q$r.log 2>&1
      echo \"\$(date -u +%T) end $n r$r rc \$? load \$(cut -d' ' -f1-3 /proc/loadavg)\" >> $out/rec.log"
  done
done
echo DONE >> $out/rec.log
