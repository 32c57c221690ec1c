#!/usr/bin/env bash
# `casebook serve` benchmark over a generated archive (not a test: run it by hand, on an
# idle machine).
#
#   bash benches/serve.sh [CASES] [EDITS]        e.g. bash benches/serve.sh 11000 9
#
# Reports the median wall time of a full `casebook build` (warm: previous output present)
# for the ratio, then what examples/serve-bench.rs measures: startup, and from saving a file
# to the reload event (case narrative, case field, case template), medians over EDITS edits.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-11000}
edits=${2:-9}
. benches/lib.sh
build_tools serve-bench
warm_corpus "$n"
full=$(for _ in 1 2 3; do
  /usr/bin/time -f '%e' "$bin" build --root "$corpus" 2>&1 >/dev/null | tail -1
done | median)
echo "full build (warm, median of 3): $full s"
rm -rf "$corpus/public" "$corpus"/.public.casebook-*
target/release/examples/serve-bench --root "$corpus" --edits "$edits"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
