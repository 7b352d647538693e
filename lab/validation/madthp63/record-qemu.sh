#!/bin/bash
# madthp63: record the QEMU 6.1 MADV_PAGEOUT-of-THPs set, boots FIRST..LAST each (default 1..3; boot 1 to
# NAME.json, boot i to NAME-boot<i>.json) into DIR (default scenarios/validation), with thpswap60's
# recorder (both locks held per run, /proc/loadavg at start and end).
# Run from the repository's top: bash lab/validation/madthp63/record-qemu.sh [FIRST] [LAST] [DIR]
NAMES="qemu61-madv-pageout-thp qemu61-madv-pageout-thp-nonrot qemu61-madv-pageout-thp-part" DIR="${3:-scenarios/validation}" \
  exec bash lab/validation/thpswap60/record-qemu.sh "${1:-1}" "${2:-3}"
