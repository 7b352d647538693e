#!/bin/bash
# xfs21b: one guest boot of the pending scenario at its own settings (500M) with the guest program's
# @@CALIBRP line (calibrate_readpath(), asked by MEMTWIN_READPATH_PROBE=1 since the probe became opt-in), output $1; run under flock /tmp/memtwin-qemu.lock from the worktree root
D=lab/validation/trace-xfs21-1201/readpath
echo "start $(date -u +%FT%TZ) load $(cat /proc/loadavg)" >> $D/load.txt
MEMTWIN_READPATH_PROBE=1 PYTHONPATH=$PWD/python python3 -m memtwin.cli --quiet real scenarios/validation-pending/qemu61-xfs-seq-tight-256m-ra8192.toml --on qemu --qemu-nice -15 --json $1 >> $D/real.log 2>&1
rc=$?
echo "end $(date -u +%FT%TZ) rc $rc $1 load $(cat /proc/loadavg)" >> $D/load.txt
