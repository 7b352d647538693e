#!/bin/bash
# xfs21b: run.sh's boot with init_on_alloc=0 on the guest kernel's command line (noinit.py), output $1
D=lab/validation/trace-xfs21-1201/readpath
echo "start $(date -u +%FT%TZ) load $(cat /proc/loadavg) (init_on_alloc=0)" >> $D/load.txt
MEMTWIN_READPATH_PROBE=1 PYTHONPATH=$PWD/python python3 $D/noinit.py --quiet real scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml --on qemu --qemu-nice -15 --json $1 >> $D/real.log 2>&1
rc=$?
echo "end $(date -u +%FT%TZ) rc $rc $1 load $(cat /proc/loadavg)" >> $D/load.txt
