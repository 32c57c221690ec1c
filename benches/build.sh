#!/usr/bin/env bash
# Build benchmark over generated corpora (not a test: run it by hand, on an idle machine).
#
#   bash benches/build.sh [RUNS] [SIZES...]      e.g. bash benches/build.sh 5 1000 11000
#
# For each corpus size it reports the median wall time of a cold build (no previous output:
# every file and folder is created) and of a warm rebuild (an unchanged archive rebuilt
# with its previous output present), and the peak memory of all runs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 11000)

. benches/lib.sh
build_tools

printf '%-8s %-6s %10s %10s %12s\n' cases pages cold_s warm_s peak_MiB
for n in "${sizes[@]}"; do
  corpus="$work/c$n"
  target/release/examples/gen-corpus --cases "$n" --out "$corpus" >/dev/null
  cold=() warm=() peak=0 pages=0
  for _ in $(seq "$runs"); do
    rm -rf "$corpus/public" "$corpus"/.public.casebook-*
    # Let the disk finish discarding the deleted tree, or the next build pays for it.
    sync
    sleep "${SETTLE:-30}"
    t=$( { /usr/bin/time -f '%e %M' "$bin" build --root "$corpus" >"$work/out"; } 2>&1 | tail -1)
    cold+=("${t% *}"); kb=${t#* }; [ "$kb" -gt "$peak" ] && peak=$kb
    pages=$(awk '{print $2}' "$work/out")
    # Twice, as before: from the second build on, rebuilds are warm.
    "$bin" build --root "$corpus" >/dev/null
    t=$( { /usr/bin/time -f '%e %M' "$bin" build --root "$corpus" >/dev/null; } 2>&1 | tail -1)
    warm+=("${t% *}"); kb=${t#* }; [ "$kb" -gt "$peak" ] && peak=$kb
  done
  printf '%-8s %-6s %10s %10s %12s\n' "$n" "$pages" \
    "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${warm[@]}" | median)" "$((peak / 1024))"
done
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
