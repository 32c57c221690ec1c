#!/usr/bin/env bash
# What one camera-size photograph costs, step by step, on one core; and whether decoding at
# a reduced scale (DCT scaling) would make it cheaper (not a test: run it by hand).
#
#   bash benches/decode.sh [RUNS]      (default: 5)
#
# Generates 20 photographs of the camera sizes `gen-corpus --photo-size camera` makes
# (1600x1200, 2048x1536, 3264x2448, 4000x3000, five of each) and runs
# `examples/decode-bench.rs` over them: medians per size of decoding, resizing to both
# default widths and encoding them, against a DCT-scaled decode with `jpeg-decoder`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
. benches/lib.sh
build_tools decode-bench
target/release/examples/gen-corpus --cases 20 --photos 1 --photo-size camera --out "$work/c" >/dev/null
target/release/examples/decode-bench "$runs" "$work"/c/content/cases/*/photo-1.jpg
echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
