#!/bin/bash
# wake23/sis23's rounds (wakers-1201q/all.sh, wakers-1201s/all.sh, preempt-1201s/s51/all.sh are thin calls of this
# one): host-queue-rw-msk msk-1280, host-queue-rw-seq none and host-queue-rw-wbt wbt-2000, round-robin, twice, each
# one recording by bt_recording.sh with PROGRAM.bt into OUTDIR/SCN-VARIANT-ROUND, a line per recording in
# OUTDIR/all.log (its load.txt), "done" at the end:
#   bt_rounds.sh PROGRAM.bt OUTDIR
set -e
bt=${1:?usage: bt_rounds.sh PROGRAM.bt OUTDIR}; outdir=${2:?usage: bt_rounds.sh PROGRAM.bt OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
for r in 1 2; do
 for sv in "host-queue-rw-msk msk-1280" "host-queue-rw-seq none" "host-queue-rw-wbt wbt-2000"; do
  set -- $sv
  OUT=$outdir/$1-$2-$r SCN=$1 VARIANT=$2 "$here/bt_recording.sh" "$bt"
  echo "$1 $2 $r $(cat $outdir/$1-$2-$r/load.txt | tr '\n' ' ')" >> "$outdir/all.log"
 done
done
echo done >> "$outdir/all.log"
