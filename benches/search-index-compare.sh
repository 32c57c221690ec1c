#!/usr/bin/env bash
# Search-index build time of two casebook binaries on one generated archive (not a test:
# run it by hand, on an idle machine):
#
#   bash benches/search-index-compare.sh OLD_BIN NEW_BIN [CASES] [PAIRS]
#
# Before each build one case's text changes, so the index is built afresh (an unchanged
# index is reused from the cache); the time is the `search index` line of `--timings`.
# Runs alternate between the binaries; medians and their ratio are printed, with the size
# of the index each wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
cases=${3:-11000}
pairs=${4:-9}
. benches/lib.sh
gen=${GEN:-target/release/examples/gen-corpus}
[ -n "${GEN:-}" ] || cargo build --release --quiet --example gen-corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus="$work/c$cases"
"$gen" --cases "$cases" --out "$corpus" >/dev/null
edit=$(find "$corpus/content/cases" -name '*.md' | sort | sed -n 2p)
for bin in "$old" "$new"; do "$bin" build --root "$corpus" >/dev/null; done
index_ms() {
  echo "edited $RANDOM$RANDOM" >>"$edit"
  "$1" build --root "$corpus" --timings 2>&1 | awk '/search index/ {print $(NF-1)}'
}
old_t=() new_t=()
for _ in $(seq "$pairs"); do
  old_t+=("$(index_ms "$old")")
  old_bytes=$(du -sb "$corpus/public/search" | cut -f1)
  new_t+=("$(index_ms "$new")")
  new_bytes=$(du -sb "$corpus/public/search" | cut -f1)
done
om=$(printf '%s\n' "${old_t[@]}" | median)
nm=$(printf '%s\n' "${new_t[@]}" | median)
echo "search index at $cases cases, $pairs alternating pairs (medians):"
echo "  old: $om ms, index $old_bytes bytes"
echo "  new: $nm ms, index $new_bytes bytes"
awk -v o="$om" -v n="$nm" 'BEGIN {printf "  ratio new/old: %.2f\n", n / o}'
echo "machine: $(nproc) cores; $(uname -sr)"
