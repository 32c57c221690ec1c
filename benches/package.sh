#!/usr/bin/env bash
# `casebook package` over a generated archive: a BagIt bag and a WACZ web archive, alternating
# with `cp -r` of the same build (what any copy costs), each after `sync` and a pause.
# Prints each run's wall time and peak memory (GNU time), then the medians.
# Usage: bash benches/package.sh [CASES] [PAIRS]   (default: 11000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/lib.sh
cases=${1:-11000}
pairs=${2:-3}
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install -y time"; exit 1; }
build_tools
warm_corpus "$cases"
public="$corpus/public"
echo "== $cases cases: $(find "$public" -type f | wc -l) files, $(du -sm "$public" | cut -f1) MB"

# Runs a command under GNU time; prints "seconds peak_kb".
timed() {
  sync; sleep 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null
  cat "$work/time"
}

declare -A secs mem
for kind in bag wacz cp; do secs[$kind]=""; mem[$kind]=""; done
for i in $(seq "$pairs"); do
  for kind in bag wacz cp; do
    rm -rf "$work/out" "$work/out.wacz"
    case $kind in
      bag) read -r s m < <(timed "$bin" package "$public" --bag "$work/out") ;;
      wacz) read -r s m < <(SOURCE_DATE_EPOCH=1780000000 timed "$bin" package "$public" --wacz "$work/out.wacz") ;;
      cp) read -r s m < <(timed cp -r "$public" "$work/out") ;;
    esac
    echo "run $i $kind: ${s} s, $((m / 1024)) MB"
    secs[$kind]+="$s"$'\n'
    mem[$kind]+="$m"$'\n'
  done
done
[ -f "$work/out.wacz" ] || SOURCE_DATE_EPOCH=1780000000 "$bin" package "$public" --wacz "$work/out.wacz" >/dev/null
echo "== medians over $pairs runs"
for kind in bag wacz cp; do
  echo "$kind: $(printf '%s' "${secs[$kind]}" | median) s, $(( $(printf '%s' "${mem[$kind]}" | median | cut -d. -f1) / 1024 )) MB peak"
done
echo "WACZ size: $(du -m "$work/out.wacz" | cut -f1) MB"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
