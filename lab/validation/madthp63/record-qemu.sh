#!/bin/bash
# madthp63: record the QEMU 6.1 MADV_PAGEOUT-of-THPs set, boots FIRST..LAST each (default 1..3; boot 1 to
# NAME.json, boot i to NAME-boot<i>.json), both locks held per run, /proc/loadavg at start and end.
# Run from the repository's top: bash lab/validation/madthp63/record-qemu.sh [FIRST] [LAST] [DIR]
set -u
DIR=${3:-scenarios/validation}
for i in $(seq "${1:-1}" "${2:-3}"); do
  for NAME in qemu61-madv-pageout-thp qemu61-madv-pageout-thp-nonrot qemu61-madv-pageout-thp-part; do
    if [ "$i" = 1 ]; then OUT="$DIR/real/$NAME.json"; else OUT="$DIR/real/$NAME-boot$i.json"; fi
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock bash -c '
      echo "'"$NAME"' boot '"$i"' start $(date -u +%T) loadavg $(cat /proc/loadavg)"
      PYTHONPATH=$PWD/python python3 -m memtwin.cli real '"$DIR/$NAME.toml"' --on qemu --json '"$OUT"'
      echo "'"$NAME"' boot '"$i"' rc $? end $(date -u +%T) loadavg $(cat /proc/loadavg)"
    '
  done
done
