#!/usr/bin/env bash
# What signed releases cost a warm build (not a test: run it by hand, on an idle machine):
#
#   bash benches/signing.sh OLD_BIN [CASES] [PAIRS]
#   CALLGRIND=1 bash benches/signing.sh OLD_BIN 11000 0
#
# OLD_BIN is casebook from before signed releases (no Merkle tree, proofs or signature).
# The same generated archive is built by OLD_BIN as it is, and by this checkout's casebook
# with a [signing] public key and `--sign` (so with the Merkle root, a proof per case, the
# signature and the /verify/ pages), in alternating pairs of warm rebuilds. Reports the
# median wall time of each, their ratio (of the medians, and the median of each pair's ratio),
# and the new build's own timings of the manifest, the proofs and the signature. On a noisy
# machine, CALLGRIND=1 also counts the instructions of one warm build of each under
# valgrind's callgrind: repeatable, whatever the machine is doing, though blind to I/O (and
# to SHA-NI, which valgrind hides, so SHA-256 weighs more than it does natively).
set -euo pipefail
cd "$(dirname "$0")/.."
# casebook's allocator stopped asking for transparent huge pages after signed releases came
# in; the same setting for OLD_BIN keeps that change out of the comparison.
export MIMALLOC_ALLOW_THP=0
old=$(realpath "$1")
cases=${2:-11000}
pairs=${3:-9}

. benches/lib.sh
build_tools
plain="$work/plain"
signed="$work/signed"
target/release/examples/gen-corpus --cases "$cases" --out "$plain" >/dev/null
cp -r "$plain" "$signed"
"$bin" keygen "$work/keys" --unencrypted 2>/dev/null |
  awk '/^\[signing\]/ {p=1} p' >>"$signed/casebook.toml"
key="$work/keys/casebook.key"
run_old() { "$old" build --root "$plain" >/dev/null; }
run_new() { "$bin" build --root "$signed" --sign "$key" --release-label bench >/dev/null; }
# Two warm-ups each: the first fills the output and the cache, the second is warm.
for f in run_old run_new run_old run_new; do $f; done

if [ "$pairs" -gt 0 ]; then
  old_t=() new_t=()
  timed() { /usr/bin/time -f '%e' "$@" 2>&1 >/dev/null | tail -1; }
  for _ in $(seq "$pairs"); do
    old_t+=("$(timed "$old" build --root "$plain")")
    new_t+=("$(timed "$bin" build --root "$signed" --sign "$key" --release-label bench)")
  done
  om=$(printf '%s\n' "${old_t[@]}" | median)
  nm=$(printf '%s\n' "${new_t[@]}" | median)
  printf '%-7s %10s   runs\n' build median_s
  printf '%-7s %10s   %s\n' old "$om" "${old_t[*]}"
  printf '%-7s %10s   %s\n' signed "$nm" "${new_t[*]}"
  echo "signed/old, ratio of medians: $(awk -v a="$nm" -v b="$om" 'BEGIN {printf "%.3f", a / b}')"
  # Each pair ran back to back, so its ratio is less exposed to the machine's drift.
  ratios=$(for i in "${!old_t[@]}"; do awk -v a="${new_t[$i]}" -v b="${old_t[$i]}" 'BEGIN {printf "%.4f\n", a / b}'; done)
  echo "signed/old, median of pair ratios: $(printf '%s\n' "$ratios" | median)"
fi
if [ -n "${CALLGRIND:-}" ]; then
  count() {
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$@" 2>&1 >/dev/null |
      awk '/Collected/ {print $NF}'
  }
  oi=$(count "$old" build --root "$plain")
  ni=$(count "$bin" build --root "$signed" --sign "$key" --release-label bench)
  echo "instructions: old $oi, signed $ni, signed/old $(awk -v a="$ni" -v b="$oi" 'BEGIN {printf "%.4f", a / b}')"
fi
echo "the signed build's own steps (one run):"
"$bin" build --root "$signed" --sign "$key" --timings 2>&1 >/dev/null |
  grep -E 'manifest|proofs|signature|release files|write' || true
echo "proofs: $(find "$signed/public/verify/proofs" -type f | wc -l) files, $(du -sh "$signed/public/verify/proofs" | cut -f1)"
echo "$cases cases; machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
