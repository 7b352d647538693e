#!/bin/bash
# One traced measure of sqlite3-mmap@10M (call under the host lock:
#   flock /tmp/memtwin-host.lock bash run.sh N). Writes bt-N.txt (events) and m-N.json (the measure).
set -e
N=$1; D=$(cd "$(dirname "$0")" && pwd); WT=$(cd "$D/../../.." && pwd)
INO=$(stat -c %i /var/tmp/mtval/db.sqlite)
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S)" > "$D/bt-$N.txt"
timeout 200 bpftrace -B full "$D/trace.bt" "$INO" >> "$D/bt-$N.txt" 2>"$D/bt-$N.err" & BT=$!
for i in $(seq 100); do grep -q Attaching "$D/bt-$N.txt" 2>/dev/null && break; sleep 0.2; done
sleep 1
cd "$WT" && PYTHONPATH=$WT/python timeout 300 python3 -m memtwin.cli measure --limit 10M --trace scenarios/validation/traces/sqlite3-mmap.mtt --out "$D/m-$N.json" -- sqlite3 /var/tmp/mtval/db.sqlite "PRAGMA mmap_size=268435456; select count(*) from t where v like '%zzq%'" >/dev/null
sleep 0.5
kill -INT $BT; wait $BT || true
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['variants']['default']['totals']; print('measure', {k:t.get(k) for k in ('read_bytes','memcg.pgmajfault')})" "$D/m-$N.json" | tee -a "$D/bt-$N.txt"
