#!/usr/bin/env bash
# Profile-guided build of the extension (issue 17, h-perf17c): an instrumented build of
# memtwin-py runs a training set, LLVM merges the counts, and the release build uses them
# (`-Cprofile-use`: hot paths laid out and inlined by their measured counts, cold code moved
# out). Outputs do not depend on it (no floating-point or semantic change: the same Rust code,
# placed differently); python/tests/test_output_hashes.py checks that on the result.
#
#   lab/bench/pgo_build.sh [--train bench|hashes|both]     (default both)
#
# Training: `memtwin bench --repeat 1` (the hot paths (a)..(g)) and, with hashes, `memtwin
# compare` of every scenario the output-hashes test runs (scenarios/, scenarios/validation/,
# scenarios/wip/: every era's code path), so that code outside the bench is not treated as
# never run (LLVM optimises functions without counts for size). Needs llvm-profdata of
# rustc's LLVM major version: `rustup component add llvm-tools`. The instrumented build goes
# to target/pgo-gen, the counts to target/pgo-data; the final build to target/release and
# python/memtwin/_memtwin.abi3.so, as the plain build command in README does.
# The flags are the ones in .cargo/config.toml: `--config` appends to them (cargo joins
# arrays across config sources).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TRAIN=both
while [ $# -gt 0 ]; do
  case "$1" in
    --train) TRAIN=${2:-}; shift 2 ;;
    *) echo "pgo_build.sh: unknown argument '$1' (use --train bench|hashes|both)" >&2; exit 2 ;;
  esac
done
case "$TRAIN" in bench|hashes|both) ;; *) echo "pgo_build.sh: --train is bench, hashes or both, not '$TRAIN'" >&2; exit 2 ;; esac

HOST=$(rustc -vV | sed -n 's/^host: //p')
LLVM_MAJOR=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
PROFDATA="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
  PROFDATA=$(command -v "llvm-profdata-$LLVM_MAJOR" || true)
fi
if [ -z "$PROFDATA" ] || [ ! -x "$PROFDATA" ]; then
  echo "pgo_build.sh: no llvm-profdata for rustc's LLVM $LLVM_MAJOR; install it with: rustup component add llvm-tools" >&2
  exit 1
fi

DATA="$ROOT/target/pgo-data"
rm -rf "$DATA"
mkdir -p "$DATA"
KEY="target.$HOST.rustflags"

echo "== instrumented build (target/pgo-gen)" >&2
cargo build --release -p memtwin-py --target-dir "$ROOT/target/pgo-gen" \
  --config "$KEY=[\"-Cprofile-generate=$DATA\"]"
TRAIN_PY=$(mktemp -d)
trap 'rm -rf "$TRAIN_PY"' EXIT
cp -r "$ROOT/python/memtwin" "$TRAIN_PY/memtwin"
cp "$ROOT/target/pgo-gen/release/lib_memtwin.so" "$TRAIN_PY/memtwin/_memtwin.abi3.so"

if [ "$TRAIN" != hashes ]; then
  echo "== training: memtwin bench --repeat 1" >&2
  PYTHONPATH="$TRAIN_PY" python3 -m memtwin.cli bench --repeat 1 >&2
fi
if [ "$TRAIN" != bench ]; then
  echo "== training: memtwin compare of every output-hashes scenario" >&2
  OUT=$(mktemp -d)
  for f in scenarios/*.toml scenarios/validation/*.toml scenarios/wip/*.toml; do
    [ -e "$f" ] || continue
    PYTHONPATH="$TRAIN_PY" python3 -m memtwin.cli compare "$f" --json "$OUT/out.json" >/dev/null 2>&1 || true
  done
  rm -rf "$OUT"
fi

"$PROFDATA" merge -o "$DATA/merged.profdata" "$DATA"/*.profraw
echo "== release build with the profile (target/release)" >&2
cargo build --release -p memtwin-py --config "$KEY=[\"-Cprofile-use=$DATA/merged.profdata\"]"
cp target/release/lib_memtwin.so python/memtwin/_m.tmp
mv python/memtwin/_m.tmp python/memtwin/_memtwin.abi3.so
echo "pgo_build.sh: python/memtwin/_memtwin.abi3.so built with $DATA/merged.profdata" >&2
