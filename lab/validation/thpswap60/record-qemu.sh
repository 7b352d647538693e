#!/bin/bash
# thpswap60: record the QEMU 6.1 pair, boots FIRST..LAST each (default 1..1; boot 1 to NAME.json,
# boot i to NAME-boot<i>.json), both locks held per run, /proc/loadavg at start and end.
# Run from the worktree's top: bash lab/validation/thpswap60/record-qemu.sh [FIRST] [LAST]
# NAMES and DIR (environment) name other scenarios and their directory (madthp63/record-qemu.sh).
set -u
DIR=${DIR:-scenarios/validation-pending}
for i in $(seq "${1:-1}" "${2:-1}"); do
  for NAME in ${NAMES:-qemu61-thpswap-retouch qemu61-thpswap-retouch-nonrot}; do
    if [ "$i" = 1 ]; then OUT="$DIR/real/$NAME.json"; else OUT="$DIR/real/$NAME-boot$i.json"; fi
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock bash -c '
      echo "'"$NAME"' boot '"$i"' start $(date -u +%T) loadavg $(cat /proc/loadavg)"
      PYTHONPATH=$PWD/python python3 -m memtwin.cli real '"$DIR/$NAME.toml"' --on qemu --json '"$OUT"'
      echo "'"$NAME"' boot '"$i"' rc $? end $(date -u +%T) loadavg $(cat /proc/loadavg)"
    '
  done
done
