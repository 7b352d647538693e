#!/bin/bash
# For the LEAD's quiet window after reclaim21 and rec21 are merged (every helper stopped; host-set-rule.md 1): the
# throttled ra8192 trio recorded with both spans (device_lone_window_spans_ns and reclaim21's
# scenario_reclaim_call_spans_ns, whose calibration reads until it has 5 failing reclaims of each kind: rec21,
# reclaim-spans-rule.md amendment), six rounds, one run per hold of both locks, nice -10, the load at every start and
# end, and after each run what it recorded of the reclaims (spans, the calibration's reads and counts, or why none).
# The set compared by lab/validation/reclaim-spans-rule.md 3.
# Usage: quiet-trio.sh OUTDIR SET   (e.g. quiet-trio.sh /work/quiet/s52/trio v669t: files NAME-v669t1..6.json)
# Since 2026-12-01 (s52) one script with a round count: trio-v1045/quiet-trio.sh; this path keeps six rounds.
exec env ROUNDS="${ROUNDS:-6}" "$(dirname "$0")/../trio-v1045/quiet-trio.sh" "$@"
