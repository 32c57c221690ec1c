#!/usr/bin/env bash
# A build with nothing to do (issue 43, item 1; not a test: run it by hand, on an idle
# machine).
#
#   bash benches/noop.sh [CASES] [PAIRS]      (default: 11000 9)
#
# In alternating pairs over the same generated archive, each after the disk has settled:
# - checked: nothing changed since the last build, so the build checks the sources and the
#   output (a stat of each file) and writes nothing;
# - in full: the same, with the record of the last build removed first, so the build loads,
#   renders and compares everything as every warm build did before the record existed.
# Then a cold build (no output, no cache) three times, for its CPU time. Reported: median
# wall, user CPU and system CPU seconds of each, and the checked build's user CPU as a share
# of the cold build's (the system time of a cold build swings with the disk).
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
pairs=${2:-9}

. benches/lib.sh
build_tools
corpus="$work/c$cases"
target/release/examples/gen-corpus --cases "$cases" --out "$corpus" >/dev/null
record="$corpus/.casebook-cache/up-to-date.bin"
# Prints "wall user system" seconds of one build; fails unless it did what was asked.
timed() {
  local expect=$1 t
  t=$( { /usr/bin/time -f '%e %U %S' "$bin" build --root "$corpus" >"$work/out"; } 2>&1 | tail -1)
  grep -q "$expect" "$work/out" || { echo "expected '$expect', got: $(cat "$work/out")" >&2; exit 1; }
  echo "$t"
}
"$bin" build --root "$corpus" >/dev/null
sleep 2
"$bin" build --root "$corpus" >/dev/null
sync; sleep "${SETTLE:-10}"
checked=() full=()
for _ in $(seq "$pairs"); do
  checked+=("$(timed 'nothing changed')")
  rm "$record"
  full+=("$(timed '^built')")
  sleep 2
done
cold=()
for _ in 1 2 3; do
  rm -rf "$corpus/public" "$corpus/.casebook-cache" "$corpus"/.public.casebook-*
  sync; sleep "${SETTLE:-10}"
  cold+=("$(timed '^built')")
done
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}' | median; }
echo "$cases cases, $pairs pairs    wall_s  user_s   sys_s"
row() {
  local -n runs=$2
  printf '%-24s %6s  %6s  %6s\n' "$1" "$(col 1 "${runs[@]}")" "$(col 2 "${runs[@]}")" "$(col 3 "${runs[@]}")"
}
row 'checked (nothing to do)' checked
row 'in full (record removed)' full
row 'cold (median of 3)' cold
echo "checked / in full (wall): $(echo "$(col 1 "${checked[@]}") $(col 1 "${full[@]}")" | awk '{printf "%.2f", $1 / $2}')"
echo "checked user CPU / cold user CPU: $(echo "$(col 2 "${checked[@]}") $(col 2 "${cold[@]}")" | awk '{printf "%.1f %%", 100 * $1 / $2}')"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
