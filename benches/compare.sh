#!/usr/bin/env bash
# Two casebook binaries side by side on one generated archive (not a test: run it by hand,
# on an idle machine), e.g. the last release against a refactor:
#
#   bash benches/compare.sh OLD_BIN NEW_BIN [CASES] [PAIRS]
#
# (GEN=path/to/gen-corpus uses that corpus generator instead of building this checkout's.)
#
# Builds the archive once with each, then times warm rebuilds (previous output present,
# nothing changed) in alternating pairs, so drift in the machine's speed hits
# both alike. Reports the median wall time and peak memory of each, and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
cases=${3:-11000}
pairs=${4:-7}

. benches/lib.sh
# GEN: a gen-corpus binary to use instead of building this checkout's.
gen=${GEN:-target/release/examples/gen-corpus}
[ -n "${GEN:-}" ] || cargo build --release --quiet --example gen-corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus="$work/c$cases"
"$gen" --cases "$cases" --out "$corpus" >/dev/null
# Two warm-ups each: the first fills the output and the cache, the second is warm.
for bin in "$old" "$new" "$old" "$new"; do "$bin" build --root "$corpus" >/dev/null; done

old_t=() new_t=() old_peak=0 new_peak=0
run() {
  { /usr/bin/time -f '%e %M' "$1" build --root "$corpus" >/dev/null; } 2>&1 | tail -1
}
for _ in $(seq "$pairs"); do
  t=$(run "$old"); old_t+=("${t% *}"); [ "${t#* }" -gt "$old_peak" ] && old_peak=${t#* }
  t=$(run "$new"); new_t+=("${t% *}"); [ "${t#* }" -gt "$new_peak" ] && new_peak=${t#* }
done
om=$(printf '%s\n' "${old_t[@]}" | median)
nm=$(printf '%s\n' "${new_t[@]}" | median)
printf '%-6s %10s %12s   runs\n' binary median_s peak_MiB
printf '%-6s %10s %12s   %s\n' old "$om" "$((old_peak / 1024))" "${old_t[*]}"
printf '%-6s %10s %12s   %s\n' new "$nm" "$((new_peak / 1024))" "${new_t[*]}"
echo "new/old: $(awk -v a="$nm" -v b="$om" 'BEGIN {printf "%.3f", a / b}')"
echo "$cases cases; machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
