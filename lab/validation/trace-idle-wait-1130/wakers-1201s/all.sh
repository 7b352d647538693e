#!/bin/bash
cd /work/quiet/s51/wk
for r in 1 2; do
 for sv in "host-queue-rw-msk msk-1280" "host-queue-rw-seq none" "host-queue-rw-wbt wbt-2000"; do
  set -- $sv
  OUT=/work/quiet/s51/wk/$1-$2-$r SCN=$1 VARIANT=$2 ./run.sh
  echo "$1 $2 $r $(cat /work/quiet/s51/wk/$1-$2-$r/load.txt | tr '\n' ' ')" >> all.log
 done
done
echo done >> all.log
