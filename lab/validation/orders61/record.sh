#!/bin/bash
# orders61: N recordings of a scenario with the runner's host costs (now with the successful-reclaim
# calibration), one run per hold of both locks, nice -10, the load at each start and end in rec.log.
# Usage: record.sh SCENARIO.toml OUTDIR TAG N   (files OUTDIR/NAME-TAG1..N.json)
set -u
s=$1; out=$2; tag=$3; n=$4
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)" || exit 2
export PYTHONPATH=$PWD/python
b=$(basename "$s" .toml)
mkdir -p "$out"
for r in $(seq 1 "$n"); do
  echo "$(date -u +%T) $b $tag$r start load $(cat /proc/loadavg)" >> lab/validation/orders61/rec.log
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 python3 -m memtwin.cli real "$s" --on host --variant all --json "$out/$b-$tag$r.json" > "$out/$b-$tag$r.out" 2>&1
  echo "$(date -u +%T) rc=$? end load $(cat /proc/loadavg)" >> lab/validation/orders61/rec.log
done
