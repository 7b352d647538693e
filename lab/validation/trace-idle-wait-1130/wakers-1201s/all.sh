#!/bin/bash
# the rounds of this directory's traces (../bt_rounds.sh): host-queue-rw-msk msk-1280, -rw-seq none, -rw-wbt wbt-2000,
# twice, with wakers3.bt, into OUTDIR (default the lead's /work/quiet/s51/wk, where they were made)
exec "$(dirname "$0")/../bt_rounds.sh" "$(dirname "$0")/wakers3.bt" "${OUTDIR:-/work/quiet/s51/wk}"
