#!/usr/bin/env bash
# Peak memory of the image stage for each hostile photograph class, with as many threads as
# this machine has cores and with 16 (as a 16-core machine would run), cold (not a test:
# run it by hand).
#
#   bash benches/image-memory.sh [BIN]     (default: this checkout's release build)
#
# Classes (examples/memory-images.rs): one 100-megapixel 16-bit RGBA PNG, one
# 100-megapixel 8-bit PNG, eight 100-megapixel 16-bit greyscale PNGs, one 40-megapixel
# 16-bit TIFF, and 32 JPEGs of 6000x4000.
# Prints, for each class and thread count, the exit code, the wall time and the peak
# resident memory (GNU time's maximum RSS). images.max_memory_mb is left at its default.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
build_tools memory-images
bin=${1:-$bin}
printf '%-10s %7s %5s %8s %10s\n' class threads exit seconds "peak MiB"
for class in deep-png wide-png grey16-png tiff16 many; do
  target/release/examples/memory-images "$work/$class" "$class"
  for threads in "$(nproc)" 16; do
    rm -rf "$work/$class/public" "$work/$class/.casebook-cache"
    set +e
    RAYON_NUM_THREADS=$threads /usr/bin/time -f '%e %M' -o "$work/time" \
      "$bin" build --root "$work/$class" >"$work/out" 2>&1
    code=$?
    set -e
    read -r secs kib < <(tail -n 1 "$work/time")
    printf '%-10s %7s %5s %8s %10s\n' "$class" "$threads" "$code" "$secs" "$((kib / 1024))"
    [ "$code" = 0 ] || grep -m1 -o 'photograph.*' "$work/out" | cut -c1-160 || true
  done
done
echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
