"""rec21: exercise the calibration's repeated reads on the host (reclaim-spans-rule.md amendment) where one read already
catches enough (a loaded host catches 7-21): `memtwin real` with hostcal.RECLAIM_MIN raised for this process only.
A test of the runner's loop, not a measurement for any set. Usage: python3 force_min.py MIN memtwin-real-args..."""
import sys

from memtwin import cli, hostcal

hostcal.RECLAIM_MIN = int(sys.argv[1])
sys.exit(cli.main(["real"] + sys.argv[2:]))
