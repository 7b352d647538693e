#!/bin/bash
# thpswap60: record host-thpswap-retouch on this host's 6.18 N times (default 3), each run holding
# both lab locks, with /sys/kernel/mm/transparent_hugepage/enabled set to "always" for the run and
# put back to what it was after it (trap EXIT, inside the locks). The host runner itself leaves no
# cgroup, mount, loop device or swap behind. /proc/loadavg is printed at each run's start and end.
# NAME (environment) names another host scenario of DIR (madthp63).
# Run from the worktree's top: [TAG=quiet] [NAME=...] bash lab/validation/thpswap60/record.sh [N] [DIR] (TAG: files NAME-TAG1..N.json)
set -u
N=${1:-3}
DIR=${2:-scenarios/validation-pending}
T=/sys/kernel/mm/transparent_hugepage/enabled
NAME=${NAME:-host-thpswap-retouch}
for i in $(seq 1 "$N"); do
  if [ "$i" = 1 ]; then OUT="$DIR/real/$NAME${TAG:+-${TAG}1}.json"; else OUT="$DIR/real/$NAME-${TAG:-run}$i.json"; fi
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock bash -c '
    T='"$T"'
    old=$(sed "s/.*\[\(.*\)\].*/\1/" $T)
    trap "echo $old > $T; echo thp restored to \$(cat $T)" EXIT
    echo always > $T
    echo "run '"$i"' start $(date -u +%T) thp $(cat $T) loadavg $(cat /proc/loadavg)"
    PYTHONPATH=$PWD/python python3 -m memtwin.cli real '"$DIR/$NAME.toml"' --on host --json '"$OUT"'
    echo "run '"$i"' rc $? end $(date -u +%T) loadavg $(cat /proc/loadavg)"
  '
done
