#!/bin/bash
# One traced recording of a host-stall scenario (SCN, default host-stall-alone-p16m; PFN=1 adds the per-page
# kmem:mm_page_alloc probe; SIZE the probe's mmap bytes, default 16 MiB) into OUT: probe_round.bt attached before
# the runner, the QEMU and host locks held for this one recording only (BRIEF.md: a host run takes both), tracefs
# mounted in a private mount namespace (unshare -m) for bpftrace, /proc/loadavg before and after.
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
out=${OUT:?OUT}; mkdir -p "$out"
scn=${SCN:-host-stall-alone-p16m}; pfn=${PFN:-0}; size=${SIZE:-16777216}
dir=scenarios/validation-pending; [ -e $dir/$scn.toml ] || dir=scenarios/validation
timeout 900 flock -w 800 /tmp/memtwin-qemu.lock flock -w 800 /tmp/memtwin-host.lock \
 unshare -m --propagation private bash -c '
  date -u +%FT%TZ > '$out'/load.txt; cat /proc/loadavg >> '$out'/load.txt
  mount -t tracefs nodev /sys/kernel/tracing
  timeout 300 bpftrace lab/validation/trace-probe-1201/probe_round.bt '$size' '$pfn' > '$out'/bt.out 2>'$out'/bt.err &
  bp=$!
  for i in $(seq 1 600); do grep -q Attaching '$out'/bt.out '$out'/bt.err 2>/dev/null && break; sleep 0.1; done
  sleep 1
  timeout 300 nice -n -10 python3 -m memtwin.cli real '$dir/$scn'.toml --on host --json '$out'/traced.json > '$out'/real.log 2>&1
  echo "real rc=$?" >> '$out'/real.log
  kill -INT $bp; wait $bp
  date -u +%FT%TZ >> '$out'/load.txt; cat /proc/loadavg >> '$out'/load.txt
'
