#!/bin/bash
# vmp23: one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with vmp.bt attached: both locks for
# this one recording, tracefs in a private mount namespace, load before/after (../trace-idle-wait-1130/bt_recording.sh,
# as pre23's preempt-1201s/run.sh with bound.bt). Run from anywhere.
exec "$(dirname "$0")/../trace-idle-wait-1130/bt_recording.sh" "$(dirname "$0")/vmp.bt"
