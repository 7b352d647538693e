#!/bin/bash
# One recording of a scenario's variant with a bpftrace program attached (the wrappers pre23's preempt-1201s/run.sh,
# vmp23's ../vmpressure-1201/run.sh, ../vmp-slice-1201/run.sh, wake23's wakers-1201*/run.sh and s51/run-s51.sh are
# thin calls of this one):
#   OUT=DIR SCN=NAME VARIANT=NAME [DIR=validation|validation-pending] bt_recording.sh PROGRAM.bt
# (VARIANT= empty: the scenario declares no variants, the runner is called without --variant; rand56)
# both locks held for this one recording (BRIEF: a host run takes both), tracefs mounted in a private mount namespace
# (unshare -m) for bpftrace, the program attached before the runner (its "Attaching" line, then 2 s), the runner at
# nice -10 with this repository's python/, the load and time before and after and the runner's exit status in
# OUT/load.txt; OUT/bt.out (the program's output), OUT/traced.json, OUT/real.log. A relative OUT is the caller's
# (made absolute before the cd to the repository's top, review54 L2).
set -e
bt=${1:?usage: OUT=DIR SCN=NAME VARIANT=NAME [DIR=validation] bt_recording.sh PROGRAM.bt}
[ -f "$bt" ] || { echo "bt_recording.sh: error: no bpftrace program $bt" >&2; echo "  fix: give the .bt file's path" >&2; exit 2; }
bt=$(cd "$(dirname "$bt")" && pwd)/$(basename "$bt")
out=$(realpath -m -- "${OUT:?}")
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
mkdir -p "$out"
scn=${SCN:?}; var=${VARIANT?}; dir=${DIR:-validation}
varg=${var:+--variant $var}
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock unshare -m --propagation private bash -c '
  cat /proc/loadavg > '$out'/load.txt; date -u +%T >> '$out'/load.txt
  mount -t tracefs nodev /sys/kernel/tracing
  timeout 300 bpftrace '$bt' > '$out'/bt.out 2>&1 &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out && break; sleep 0.1; done
  sleep 2
  timeout 300 nice -n -10 python3 -m memtwin.cli real scenarios/'$dir'/'$scn'.toml --on host '"$varg"' --json '$out'/traced.json > '$out'/real.log 2>&1
  echo rc=$? >> '$out'/load.txt
  kill -INT $bp; wait $bp
  cat /proc/loadavg >> '$out'/load.txt; date -u +%T >> '$out'/load.txt
'
