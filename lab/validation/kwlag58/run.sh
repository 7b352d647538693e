#!/bin/bash
# kwlag58: one recording of a host-queue scenario's variant with kw.bt attached (both locks for this one recording,
# tracefs in a private mount namespace; OUT/load.txt, real.log, traced.json, bt.out): a call of
# ../trace-idle-wait-1130/bt_recording.sh.   OUT=k1 SCN=host-queue-rw-msk VARIANT=msk-1280 ./run.sh
exec "$(dirname "$0")/../trace-idle-wait-1130/bt_recording.sh" "$(dirname "$0")/kw.bt"
