#!/bin/bash
# One traced measure of sqlite3-mmap@10M, under the host lock (one measure per hold):
#   flock /tmp/memtwin-host.lock bash run.sh PASS N
# PASS bt: trace.bt; bt2: trace2.bt; bt3: trace2.bt with sqlite3 pinned to CPU N%2 (taskset);
# bt4: trace2.bt with the measure run from a Python that imported sqlite3 (its libsqlite3 mapped, as
# lab/record_trace_validation.py's process has it while it measures).
# Writes PASS-N.txt (the events, the load first, the measure's figures last) and m-PASS-N.json.
set -e
P=$1; N=$2; D=$(cd "$(dirname "$0")" && pwd); WT=$(cd "$D/../../.." && pwd)
DRV=()
case $P in bt) BT=trace.bt; PIN=();; bt2) BT=trace2.bt; PIN=();; bt3) BT=trace2.bt; PIN=(taskset -c $((N % 2)));;
  bt4) BT=trace2.bt; PIN=(); DRV=(python3 -c "import sqlite3, subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)");;
  *) echo "run.sh: error: unknown pass '$P'"; echo "  fix: give bt, bt2, bt3 or bt4"; exit 2;; esac
OUT="$D/$P-$N.txt"; INO=$(stat -c %i /var/tmp/mtval/db.sqlite)
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S)" > "$OUT"
timeout 200 bpftrace -B full "$D/$BT" "$INO" >> "$OUT" 2>"$D/$P-$N.err" & BTPID=$!
for i in $(seq 100); do grep -q Attaching "$OUT" 2>/dev/null && break; sleep 0.2; done
grep -q Attaching "$OUT" || { kill $BTPID 2>/dev/null; echo "run.sh: error: bpftrace did not attach (see $D/$P-$N.err)"; exit 1; }
sleep 1
cd "$WT" && PYTHONPATH=$WT/python timeout 300 "${DRV[@]}" python3 -m memtwin.cli measure --limit 10M --trace scenarios/validation/traces/sqlite3-mmap.mtt \
  --out "$D/m-$P-$N.json" -- "${PIN[@]}" sqlite3 /var/tmp/mtval/db.sqlite "PRAGMA mmap_size=268435456; select count(*) from t where v like '%zzq%'" >/dev/null
sleep 0.5
kill -INT $BTPID; wait $BTPID || true
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['variants']['default']['totals']; print('measure', {k:t.get(k) for k in ('read_bytes','memcg.pgmajfault')})" "$D/m-$P-$N.json" | tee -a "$OUT"
