#!/usr/bin/env bash
# Byte identity of a refactor (not a test: run it by hand before landing a change that
# should change no output).
#
#   bash benches/identity.sh [REV] [CASES]      e.g. bash benches/identity.sh main~3 1500
#
# Builds casebook at REV (default HEAD) and from the working tree, then builds with each
# (the working tree's twice, so that its warm rebuild is compared):
# the bundled site at the domain root, with --portable and under a sub-path; the test
# fixtures charts, i18n, minimal and search; and a generated corpus of CASES cases (default
# 1500), which is then built again after a change to its title (every page rendered into
# the existing output), with and without the record of that output. Every output tree must
# be byte for byte the same: any difference is listed and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
cases=${2:-1500}
work=$(mktemp -d)
cleanup() {
  git worktree remove --force "$work/old-src" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Both builds share this checkout's target folder, so dependencies compile once.
target=$(pwd)/target
git worktree add --detach "$work/old-src" "$rev" >/dev/null 2>&1
(cd "$work/old-src" && CARGO_TARGET_DIR="$target" cargo build --quiet --bin casebook)
cp "$target/debug/casebook" "$work/casebook-old"
cargo build --quiet --bin casebook --example gen-corpus
cp target/debug/casebook "$work/casebook-new"

# The same inputs for both: the working tree's bundled site, fixtures and a corpus.
src="$work/src"
mkdir -p "$src/bundled"
cp -r casebook.toml content themes "$src/bundled/"
for f in charts i18n minimal search; do cp -r "tests/fixtures/$f" "$src/$f"; done
target/debug/examples/gen-corpus --cases "$cases" --out "$src/corpus" >/dev/null

# Each build runs RUNS times in a row (the working tree's twice: its second build reuses
# what the first published, and that is the output compared).
build_all() {
  local bin=$1 out=$2 runs=$3
  each() { for _ in $(seq "$runs"); do "$bin" build "$@" >/dev/null 2>&1; done; }
  each --root "$src/bundled" --output "$out/bundled"
  each --root "$src/bundled" --output "$out/bundled-portable" --portable
  each --root "$src/bundled" --output "$out/bundled-sub" --base-url https://example.org/sub/path/
  for f in charts i18n minimal search; do
    each --root "$src/$f" --output "$out/$f"
  done
  each --root "$src/corpus" --output "$out/corpus"
}
build_all "$work/casebook-old" "$work/old" 1
build_all "$work/casebook-new" "$work/new" 2
# Then every page rendered again into the existing output (the corpus's title changed),
# and once more with the record of what each folder holds removed (every file compared).
sed -i 's/^title = .*/title = "Identity, second edition"/' "$src/corpus/casebook.toml"
"$work/casebook-old" build --root "$src/corpus" --output "$work/old/corpus" >/dev/null 2>&1
"$work/casebook-new" build --root "$src/corpus" --output "$work/new/corpus" >/dev/null 2>&1
sed -i 's/^title = .*/title = "Identity, third edition"/' "$src/corpus/casebook.toml"
for side in old new; do
  rm -f "$src/corpus/.casebook-cache/published.bin"
  "$work/casebook-$side" build --root "$src/corpus" --output "$work/$side/corpus" >/dev/null 2>&1
done

files=$(find "$work/new" -type f ! -name ".*.casebook-key" | wc -l)
# The key that seals each output folder (beside it) is random: not output.
if diff -rq -x ".*.casebook-key" "$work/old" "$work/new"; then
  echo "identical: $files files ($rev and the working tree)"
else
  echo "DIFFERENT: the working tree's output differs from $rev's (listed above)"
  exit 1
fi
