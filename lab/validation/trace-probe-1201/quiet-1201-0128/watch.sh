#!/bin/bash
# poll for a quiet window until 01:45 UTC; run quiet-probe.sh once if found
cd /work/wt-probe23
ok=0
while [ $(date -u +%H%M) -lt 0145 ]; do
  l=$(cut -d' ' -f1 /proc/loadavg); r=$(awk '/procs_running/{print $2}' /proc/stat)
  if awk -v l=$l 'BEGIN{exit !(l<2.0)}' && [ "$r" -le 2 ]; then ok=$((ok+1)); else ok=0; fi
  echo "$(date -u +%T) $l $r $ok" >> /tmp/p23/watch.log
  if [ $ok -ge 10 ]; then echo "$(date -u +%T) quiet: running quiet-probe.sh" >> /tmp/p23/watch.log; lab/validation/trace-probe-1201/quiet-probe.sh >> /tmp/p23/watch.log 2>&1; echo done >> /tmp/p23/watch.log; exit 0; fi
  sleep 3
done
