#!/bin/sh
# usage: probe.sh HUGE OUTPREFIX   (run under the host locks)
set -u
HUGE=$1; OUT=$2
D=/tmp/tmpfs21/run; CG=/sys/fs/cgroup/memory/tmpfs21probe
mkdir -p $D/disk $D/t
cp /bin/dd /tmp/tmpfs21/t21dd
truncate -s 1G $D/disk.img
LOOP=$(losetup --show --direct-io=on --find $D/disk.img)
echo "loop $LOOP"
mkfs.ext4 -q -F $LOOP && mount $LOOP $D/disk
fallocate -l 256M $D/disk/swap && chmod 600 $D/disk/swap && mkswap -q $D/disk/swap >/dev/null && swapon $D/disk/swap
mount -t tmpfs -o huge=$HUGE tmpfs21 $D/t
mkdir $CG; echo 64M > $CG/memory.limit_in_bytes; echo 60 > $CG/memory.swappiness
cat /proc/loadavg > $OUT.load
grep -h . /sys/kernel/mm/transparent_hugepage/hugepages-*/stats/shmem_alloc /sys/kernel/mm/transparent_hugepage/hugepages-*/stats/shmem_fallback_charge > /dev/null
for f in /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/shmem_alloc /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/shmem_fallback_charge; do echo "$f $(cat $f)"; done > $OUT.before
grep -E "thp_file|pswp" /proc/vmstat >> $OUT.before
unshare -m --propagation private sh -c "mount -t tracefs nodev /sys/kernel/tracing; exec bpftrace /tmp/tmpfs21/probe.bt" > $OUT.trace 2>$OUT.bterr &
BT=$!
sleep 6
sh -c "echo \$\$ > $CG/cgroup.procs; exec /tmp/tmpfs21/t21dd if=/dev/urandom iflag=fullblock of=$D/t/f bs=1M count=128 status=none"
sleep 1
kill -INT $BT; wait $BT
for f in /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/shmem_alloc /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/shmem_fallback_charge; do echo "$f $(cat $f)"; done > $OUT.after
grep -E "thp_file|pswp" /proc/vmstat >> $OUT.after
cat $CG/memory.failcnt $CG/memory.usage_in_bytes > $OUT.cg; grep -E "^(total_)?(shmem|cache|swap|pgpgin|pgpgout) " $CG/memory.stat >> $OUT.cg
cat /proc/loadavg >> $OUT.load
# cleanup
umount $D/t
rmdir $CG
swapoff $D/disk/swap
umount $D/disk
losetup -d $LOOP
rm -f $D/disk.img
echo cleaned
