#!/usr/bin/env bash
# Image pipeline benchmark (not a test: run it by hand, on an idle machine).
#
#   bash benches/images.sh [RUNS] [CASES] [PHOTOS_PER_CASE] [SIZE]     default: 3 1000 1 1600x1200
#
# Generates CASES synthetic cases with PHOTOS_PER_CASE JPEG photographs each (one redaction
# region) of SIZE pixels, or of mixed camera sizes with SIZE `camera` (1600x1200 to 4000x3000,
# one in five portrait through an EXIF orientation tag), then reports the median of a cold build (empty image cache, no output)
# and of a warm rebuild (nothing changed), with photographs per second and peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cases=${2:-1000}
per=${3:-1}
size=${4:-1600x1200}
. benches/lib.sh
build_tools
corpus="$work/corpus"
target/release/examples/gen-corpus --cases "$cases" --photos "$per" --photo-size "$size" --out "$corpus" >/dev/null
photos=$((cases * per))
cold=() warm=() peak=0
for _ in $(seq "$runs"); do
  # Moved aside, not deleted: right after 10,000 files are deleted, ext4 searches past the
  # freed inodes for every file the next build creates (seconds of system time).
  aside=$(mktemp -d "$work/aside.XXXX")
  mv "$corpus/public" "$corpus/.casebook-cache" "$aside/" 2>/dev/null || true
  rm -rf "$corpus"/.public.casebook-*
  sync
  sleep "${SETTLE:-5}"
  /usr/bin/time -o "$work/t" -f '%e %M' "$bin" build --root "$corpus" >/dev/null 2>&1
  t=$(tail -1 "$work/t")
  cold+=("${t% *}"); kb=${t#* }; [ "$kb" -gt "$peak" ] && peak=$kb
  "$bin" build --root "$corpus" >/dev/null 2>&1
  /usr/bin/time -o "$work/t" -f '%e %M' "$bin" build --root "$corpus" >/dev/null 2>&1
  t=$(tail -1 "$work/t")
  warm+=("${t% *}"); kb=${t#* }; [ "$kb" -gt "$peak" ] && peak=$kb
done
c=$(printf '%s\n' "${cold[@]}" | median)
w=$(printf '%s\n' "${warm[@]}" | median)
echo "photos: $photos ($size JPEG, $(du -sh "$corpus/content" | cut -f1) of sources, 1 region each; widths 400 and 1200 + placeholder)"
echo "cold build median: $c s ($(awk -v p="$photos" -v t="$c" 'BEGIN {printf "%.1f", p/t}') photos/s)"
echo "warm rebuild median: $w s"
echo "peak memory: $((peak / 1024)) MiB"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
