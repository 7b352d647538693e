#!/bin/bash
# one recording of a host-queue scenario's variant (SCN, VARIANT, OUT, DIR=validation|validation-pending) with
# wakers3.bt attached: both locks for this one recording, tracefs in a private mount namespace, load before/after
# (../../bt_recording.sh). The traces here were made from /work/main with /work/quiet/s51/wk/wakers3.bt, of which
# wakers3.bt here is the copy; this runs the runner of the repository it sits in.
exec "$(dirname "$0")/../../bt_recording.sh" "$(dirname "$0")/wakers3.bt"
