#!/bin/bash
# For the LEAD's quiet window after reclaim21 and rec21 are merged (every helper stopped; host-set-rule.md 1): the
# throttled ra8192 trio recorded with both spans (device_lone_window_spans_ns and reclaim21's
# scenario_reclaim_call_spans_ns, whose calibration reads until it has 5 failing reclaims of each kind: rec21,
# reclaim-spans-rule.md amendment), ROUNDS rounds (default twelve; trace-reclaim-1201/quiet-trio.sh gives six), one
# run per hold of both locks, nice -10, the load at every start and end, and after each run what it recorded of the
# reclaims (spans, the calibration's reads and counts, or why none). The set compared by
# lab/validation/reclaim-spans-rule.md 3. Run from anywhere: the runner and the scenarios are this repository's (its
# python/, each scenario found by name in scenarios/validation*/, wherever make_folio_scenarios.py put it); a relative
# OUTDIR is the caller's.
# Usage: [ROUNDS=12] quiet-trio.sh OUTDIR SET   (files NAME-SET1..ROUNDS.json; trio-v1045/RULE.md)
set -u
out=${1:?usage: quiet-trio.sh OUTDIR SET}
set_name=${2:?usage: quiet-trio.sh OUTDIR SET (the recordings are named NAME-SET1..ROUNDS.json)}
out=$(realpath -m -- "$out")
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)" || exit 2
export PYTHONPATH=$PWD/python
names="host-ext4-seq-tight-512m-ra8192 host-ext4-seq-tight-1g-ra8192 host-ext4-tight-ra8192"
for b in $names; do
  set -- scenarios/validation*/"$b".toml
  [ $# -eq 1 ] && [ -f "$1" ] || { echo "quiet-trio.sh: error: $b.toml is in none or more than one of scenarios/validation*/: $*" >&2; exit 2; }
done
mkdir -p "$out"
log=$out/rec.log
for r in $(seq 1 ${ROUNDS:-12}); do
  for b in $names; do
    n=$(echo scenarios/validation*/"$b".toml)  # where it is now (checked above: one place)
    j=$out/$b-$set_name$r.json
    echo "$(date +%T) $b round $r load $(cat /proc/loadavg)" >> "$log"
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 python3 -m memtwin.cli real "$n" --on host --variant all --json "$j" >> "$out/$b-$r.out" 2>&1
    echo "$(date +%T) rc=$? load $(cat /proc/loadavg)" >> "$log"
    python3 - "$j" >> "$log" 2>&1 <<'PY'
import json, sys
try:
    hc = next(iter(json.load(open(sys.argv[1]))["variants"].values()))["real"]["machine"]["host_cost"]
except Exception as e:  # noqa: BLE001 - a line in the log, whatever went wrong
    print(f"  reclaim: no host_cost read ({type(e).__name__}: {e})"); sys.exit()
u = hc.get("unavailable") or {}
print(f"  reclaim: spans {len(hc.get('scenario_reclaim_call_spans_ns', []))}"
      + (f" median {hc['scenario_reclaim_call_ns']}" if "scenario_reclaim_call_ns" in hc else f" NONE ({u.get('scenario_reclaim_call_spans_ns')})")
      + f"; calibration reads {hc.get('reclaim_reads')} timed {hc.get('reclaims_timed')} counted {hc.get('reclaims_counted')}"
      + (f" call {hc['reclaim_call_ns']} ns" if "reclaim_call_ns" in hc else f" ({u.get('reclaim_call_ns')})")
      + f"; lone windows {len(hc.get('device_lone_window_spans_ns', []))}")
PY
  done
done
echo DONE-TRIO >> "$log"
