#!/bin/bash
# sched20: 10 boots of qemu61-zswap-pool-limit with the vCPU stall probe, QEMU at nice 0 (no --qemu-nice),
# one per hold of /tmp/memtwin-qemu.lock, the host loaded by the session's other helpers.
# Run from the worktree root: bash lab/measurements/vcpu-stall/loaded/record.sh
cd "$(dirname "$0")/../../../.."
LOG=lab/measurements/vcpu-stall/loaded/record.log
for i in $(seq ${FIRST:-1} ${LAST:-10}); do
  out=scenarios/validation-pending/real/qemu61-zswap-pool-limit-loaded-boot$i.json
  flock /tmp/memtwin-qemu.lock bash -c "
    echo \"boot $i start \$(date -u +%FT%TZ) load \$(cat /proc/loadavg)\" >> $LOG
    PYTHONPATH=$PWD/python python3 -m memtwin.cli real scenarios/validation/qemu61-zswap-pool-limit.toml --on qemu --vcpu-stall-probe --json $out >> $LOG.out 2>&1
    rc=\$?; echo \"boot $i end \$(date -u +%FT%TZ) load \$(cat /proc/loadavg) rc \$rc\" >> $LOG
  "
  sleep 15
done
