#!/bin/bash
# wbtswap23: host-stall-hog-swap traced on a QUIET host (for the lead's quiet window), with hog_calls.bt attached:
# per memcg reclaim call its pageouts, pages freed and lowest priority; per 10 ms the pageouts against the swap
# bios past blk-throttle and their completions; the reclaimers' sleeps by stack. The question it settles: does the
# quiet kernel's reclaim, in the hog's first touch, ever write more than blk-throttle's budget (then bios held,
# pageouts ahead of block_bio_queue) and do single calls then go to priority 0-2 writing thousands of pages as the
# twin's do (wbtswap23: 10,368 and 8,574 pages in two calls at 83-313 ms)? Or do its calls stay at priority 8-12,
# its writes within the budget, and then what do they wait on?
#
# RUNS (default 2) recordings, each one `memtwin real ... --on host --variant all` holding BOTH locks for that run
# only (QEMU lock first, as every host run), tracefs mounted in a private mount namespace (gone with it), the
# bpftrace process stopped on every exit path (trap), the runner stopped with SIGINT on timeout so that its own
# clean-up runs (swapoff of the run's swap file, its cgroups, the loop device's throttle rules), and
# `memtwin lab clean` after a failed run (leftovers of runs whose owner is dead only). /proc/loadavg is written at
# every start and end (load.txt, and rec.log as /work/quiet/rec.log has it).
# Output: OUT (default /work/quiet/hog)/hogN-{bt.out,traced.json,real.log,queue.txt}, load.txt, rec.log (queue.txt:
# every loop device's max_sectors_kb, max_hw_sectors_kb, max_segments, nr_requests, wbt_lat_usec, rotational, each
# second of the run).
# REPO (default this script's checkout): the memtwin tree whose python/ and scenario are used.
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=${REPO:-$(git -C "$here" rev-parse --show-toplevel)}
OUT=${OUT:-/work/quiet/hog}
RUNS=${RUNS:-2}
SCN=${SCN:-$REPO/scenarios/validation-pending/host-stall-hog-swap.toml}
BT=${BT:-$REPO/lab/validation/trace-hog-swap-1130/hog_calls.bt}
mkdir -p "$OUT" || exit 1
[ -f "$SCN" ] && [ -f "$BT" ] || { echo "quiet-hog.sh: no $SCN or $BT (REPO=$REPO)" >&2; exit 2; }
command -v bpftrace >/dev/null || { echo "quiet-hog.sh: bpftrace not installed" >&2; exit 2; }
log() { echo "$(date -u +%T) $* load $(cat /proc/loadavg)" | tee -a "$OUT/rec.log"; }
rc_all=0
for n in $(seq 1 "$RUNS"); do
  log "wait-locks hog$n"
  timeout 1400 flock -w 600 /tmp/memtwin-qemu.lock flock -w 600 /tmp/memtwin-host.lock \
    env REPO="$REPO" OUT="$OUT" SCN="$SCN" BT="$BT" N="$n" unshare -m --propagation private bash -c '
    set -u
    export PYTHONPATH=$REPO/python
    pfx=$OUT/hog$N
    bp=""
    stop_bt() { if [ -n "$bp" ] && kill -0 "$bp" 2>/dev/null; then kill -INT "$bp"; wait "$bp"; fi; bp=""; }
    trap "stop_bt" EXIT
    trap "stop_bt; exit 130" INT TERM
    echo "hog$N start $(date -u +%T) $(cat /proc/loadavg)" >> "$OUT/load.txt"
    echo "$(date -u +%T) start hog$N load $(cat /proc/loadavg)" >> "$OUT/rec.log"
    [ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing || exit 3
    timeout -s INT 400 bpftrace "$BT" > "$pfx-bt.out" 2>&1 &
    bp=$!
    for i in $(seq 1 600); do grep -q Attaching "$pfx-bt.out" && break; kill -0 $bp 2>/dev/null || break; sleep 0.1; done
    if ! kill -0 $bp 2>/dev/null; then echo "hog$N bpftrace did not start (see $pfx-bt.out)" >> "$OUT/load.txt"; exit 4; fi
    sleep 2
    # The loop device of the run exists only during the run: its queue limits every second (what bounds a request).
    ( while :; do for q in /sys/block/loop*/queue; do [ -e "$q/max_sectors_kb" ] && echo "$(date -u +%T.%N) $q $(cat $q/max_sectors_kb $q/max_hw_sectors_kb $q/max_segments $q/nr_requests $q/wbt_lat_usec $q/rotational 2>/dev/null | tr "\n" " ")"; done; sleep 1; done ) > "$pfx-queue.txt" 2>&1 &
    qs=$!
    trap "kill $qs 2>/dev/null; stop_bt" EXIT
    cd "$OUT"  # not the tree: the runner needs no cwd of its own (SCN and PYTHONPATH are absolute)
    timeout -s INT -k 30 300 nice -n -10 python3 -m memtwin.cli real "$SCN" --on host --variant all --json "$pfx-traced.json" > "$pfx-real.log" 2>&1
    rc=$?
    echo "hog$N rc=$rc" >> "$OUT/load.txt"
    kill $qs 2>/dev/null
    stop_bt
    if [ $rc -ne 0 ]; then python3 -m memtwin.cli lab clean >> "$pfx-real.log" 2>&1; fi
    echo "hog$N end $(date -u +%T) $(cat /proc/loadavg)" >> "$OUT/load.txt"
    echo "$(date -u +%T) rc=$rc hog$N load $(cat /proc/loadavg)" >> "$OUT/rec.log"
    exit $rc
  '
  rc=$?
  [ $rc -ne 0 ] && rc_all=$rc
  log "done hog$n rc=$rc"
done
# Leftovers check (reports only): swap areas, memtwin cgroups.
grep -v '^Filename' /proc/swaps >> "$OUT/load.txt"
echo "quiet-hog.sh: outputs in $OUT (rc $rc_all)"
exit $rc_all
