#!/bin/bash
# clock56: one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with clockage.bt attached: a call of
# ../trace-idle-wait-1130/bt_recording.sh (both locks, tracefs in a private mount namespace). Run from anywhere.
exec "$(dirname "$0")/../trace-idle-wait-1130/bt_recording.sh" "$(dirname "$0")/clockage.bt"
