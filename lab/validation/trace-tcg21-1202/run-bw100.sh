#!/bin/bash
# tcg21: one guest boot of qemu61-xfs-seq-tight-256m-ra8192-bw100 at its own settings (100 MB/s) with the guest
# program's @@CALIBRP line (calibrate_readpath(), MEMTWIN_READPATH_PROBE=1), output $1; run under
# flock /tmp/memtwin-qemu.lock from the worktree root (xfs21b's readpath/run.sh with the bw100 scenario)
D=lab/validation/trace-tcg21-1202
echo "start $(date -u +%FT%TZ) load $(cat /proc/loadavg)" >> $D/load.txt
MEMTWIN_READPATH_PROBE=1 PYTHONPATH=$PWD/python python3 -m memtwin.cli --quiet real scenarios/validation/qemu61-xfs-seq-tight-256m-ra8192-bw100.toml --on qemu --qemu-nice -15 --json $1 >> $D/real.log 2>&1
rc=$?
echo "end $(date -u +%FT%TZ) rc $rc $1 load $(cat /proc/loadavg)" >> $D/load.txt
