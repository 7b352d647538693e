#!/bin/sh
# usage: runval.sh TAG PYTHONPATH
tag=$1; pp=$2
cd /work/wt-tcg21
for f in scenarios/validation/*qemu*.toml scenarios/validation-pending/qemu*.toml; do
  n=$(basename $f .toml)
  [ -s /tmp/tcg21/val/$tag-$n.txt ] && continue
  PYTHONPATH=$pp nice -n 10 python3 -m memtwin.cli validate --recorded $f > /tmp/tcg21/val/$tag-$n.tmp 2>&1; echo "rc=$?" >> /tmp/tcg21/val/$tag-$n.tmp
  mv /tmp/tcg21/val/$tag-$n.tmp /tmp/tcg21/val/$tag-$n.txt
done
echo finished > /tmp/tcg21/val/$tag.done
