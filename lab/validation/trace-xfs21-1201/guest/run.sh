#!/bin/bash
# one guest boot of the pending scenario with the disk at $1 read, output $2
cd /work/wt-xfs21
echo "start $(date -u +%FT%TZ) load $(cat /proc/loadavg)" >> /tmp/xfs21/g/load.txt
PYTHONPATH=/work/wt-xfs21/python python3 -m memtwin.cli --quiet real scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml --on qemu --qemu-nice -15 --set devices.sda.read_bw=$1 --json $2
rc=$?
echo "end $(date -u +%FT%TZ) rc $rc $2 load $(cat /proc/loadavg)" >> /tmp/xfs21/g/load.txt
