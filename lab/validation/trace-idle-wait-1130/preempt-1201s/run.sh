#!/bin/bash
# pre23: one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with bound.bt attached: both locks for
# this one recording, tracefs in a private mount namespace, load before/after (../bt_recording.sh). Run from anywhere.
exec "$(dirname "$0")/../bt_recording.sh" "$(dirname "$0")/bound.bt"
