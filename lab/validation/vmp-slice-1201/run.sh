#!/bin/bash
# vmp-slice: one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with slice.bt attached: both locks for
# this one recording, tracefs in a private mount namespace, load before/after, OUT/load.txt, real.log, traced.json and
# bt.out (../trace-idle-wait-1130/bt_recording.sh, of which this was a copy, review54 L7). Run from anywhere.
exec "$(dirname "$0")/../trace-idle-wait-1130/bt_recording.sh" "$(dirname "$0")/slice.bt"
