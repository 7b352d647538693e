#!/bin/bash
# swaptime61: the host runner's kind of loop device (losetup --direct-io=on over a sparse image in
# /var/tmp) - 512 KiB O_DIRECT writes, one at a time (dd), first into holes of the image, then over
# the same, now allocated, blocks. Mean per-request time = elapsed / count. Inside both locks:
#   flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock bash lab/validation/swaptime61/loop_holes.sh [ROUNDS]
# Leaves no loop device or file behind (trap EXIT).
set -u
R=${1:-3}
D=$(mktemp -d /var/tmp/swaptime61-XXXXXX)
LOOP=
cleanup() { [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$D"; echo "cleaned: $(losetup -l | grep -c swaptime61) loop devices on our image left"; }
trap cleanup EXIT
echo "start $(date -u +%T) loadavg $(cat /proc/loadavg)"
for r in $(seq 1 "$R"); do
  rm -f "$D/disk.img"; truncate -s 1G "$D/disk.img"
  LOOP=$(losetup --show --direct-io=on --find "$D/disk.img")
  for pass in holes overwrite; do
    out=$(dd if=/dev/zero of="$LOOP" bs=512K count=256 oflag=direct 2>&1 | tail -1)
    secs=$(echo "$out" | sed -E 's/.* copied, ([0-9.]+) s.*/\1/')
    echo "round $r $pass: 256 x 512KiB in $secs s = $(python3 -c "print(round($secs/256*1000,3))") ms a request  ($out)"
  done
  echo "  allocated in image after: $(du -k "$D/disk.img" | cut -f1) KiB"
  losetup -d "$LOOP"; LOOP=
done
echo "end $(date -u +%T) loadavg $(cat /proc/loadavg)"
