#!/bin/bash
# lag23: one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with lag.bt attached (both locks for this
# one recording, tracefs in a private mount namespace, OUT/load.txt, real.log, traced.json and bt.out): a call of
# ../trace-idle-wait-1130/bt_recording.sh as tidy54 made run.sh one. Run from anywhere.
exec "$(dirname "$0")/../trace-idle-wait-1130/bt_recording.sh" "$(dirname "$0")/lag.bt"
