#!/bin/bash
# the lead's quiet window 2 (s55): lag.bt x2 on host-queue-rw-msk msk-1280, then the 512M ra8192 pass 1 traced x2 (bias21's next step)
cd /work/main
export PYTHONPATH=$PWD/python
log=/work/quiet/s55/tr/rec.log
for i in 1 2; do
  echo "$(date -u +%T) lag q$i load $(cat /proc/loadavg)" >> $log
  OUT=/work/quiet/s55/tr/q$i-lag-rwmsk-msk1280 SCN=host-queue-rw-msk VARIANT=msk-1280 bash lab/validation/vmp-slice-1201/run-lag.sh >> $log 2>&1
  echo "$(date -u +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
for i in 1 2; do
  d=/work/quiet/s55/tr/ra512m-$i; mkdir -p $d
  echo "$(date -u +%T) ra512m $i load $(cat /proc/loadavg)" >> $log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private sh -c "mount -t tracefs nodev /sys/kernel/tracing; nice -n -10 python3 lab/validation/trace_thrash_timeline.py lab/validation/trace-race-v669-1130/host-ext4-seq-tight-512m-ra8192-pass1.toml --raw $d/raw.txt --out $d/timeline.txt" > $d/trace.out 2>&1
  echo "$(date -u +%T) rc=$? load $(cat /proc/loadavg)" >> $log
done
echo DONE >> $log
