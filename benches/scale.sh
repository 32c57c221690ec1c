#!/usr/bin/env bash
# The text archive at full size (issue 15): warm rebuilds, a one-case edit, and builds from
# scratch beside Hugo (not a test: run it by hand, on an idle machine).
#
#   bash benches/scale.sh [CASES] [RUNS]      (default: 11000 5)
#
# - warm: nothing changed, previous output and cache present; median of RUNS, after the
#   disk has settled (SETTLE seconds, default 30).
# - one case: one case's narrative edited before each build; median of RUNS.
# - warm with the kernel's file caches dropped first (as after a reboot), when run as root.
# - from scratch: the previous output and cache removed inside the timed command, in
#   alternating pairs with Hugo doing the same over the same cases (`gen-corpus --hugo`:
#   taxonomies for the same facets, lists paginated by 50), if `hugo` is installed
#   (`apt-get install hugo`). Medians, their ratio, and each one's peak memory; the
#   removal's own median too, and what 3x Hugo would be. With Pagefind (from npm, installed
#   under target/pagefind; PAGEFIND=path for another), Hugo's runs are Hugo then Pagefind
#   over its output, what a team would run instead, and the ratio to casebook is printed.
# - cp -a of casebook's output (into a fresh folder), in the same runs: the disk's own
#   pace for the same files, and casebook's ratio to it.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
runs=${2:-5}

. benches/lib.sh
build_tools
corpus="$work/casebook"
hugo_site="$work/hugo"
target/release/examples/gen-corpus --cases "$cases" --out "$corpus" --hugo "$hugo_site" >/dev/null
timed() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
secs() { printf '%s\n' "$@" | awk '{print $1}' | median; }
peak() { printf '%s\n' "$@" | awk '$2 > m {m = $2} END {printf "%d", m / 1024}'; }

"$bin" build --root "$corpus" >/dev/null
"$bin" build --root "$corpus" >/dev/null
# A disk still writing back the corpus and the first build's 27,000 files slows every
# build after it (measured: warm 1.5 to 1.9 s right after, about 1.0 s settled).
sync; sleep "${SETTLE:-30}"
warm=() one=()
for _ in $(seq "$runs"); do warm+=("$(timed "$bin" build --root "$corpus")"); done
edited="$corpus/content/cases/syn-000042/index.md"
for i in $(seq "$runs"); do
  echo "Edited for the benchmark ($i)." >>"$edited"
  one+=("$(timed "$bin" build --root "$corpus")")
done
echo "Edited for the benchmark (last)." >>"$edited"
echo "one case edited, what a build then does: $("$bin" build --root "$corpus" | sed 's/.*(/(/')"
# Warm, but after the kernel dropped its cached copies of the files (as after a reboot):
# every content file and output folder is read from the disk. Needs root.
cold_cache=()
if [ -w /proc/sys/vm/drop_caches ]; then
  for _ in $(seq "$runs"); do
    sync; echo 3 >/proc/sys/vm/drop_caches
    cold_cache+=("$(timed "$bin" build --root "$corpus")")
  done
fi
echo "$cases cases      median_s  peak_MiB"
printf 'warm          %8s  %8s\n' "$(secs "${warm[@]}")" "$(peak "${warm[@]}")"
printf 'one case      %8s  %8s\n' "$(secs "${one[@]}")" "$(peak "${one[@]}")"
if [ ${#cold_cache[@]} -gt 0 ]; then
  printf 'warm, files not in memory  %8s  %8s\n' "$(secs "${cold_cache[@]}")" "$(peak "${cold_cache[@]}")"
else
  echo "(warm with the files not in memory: run as root to drop the kernel's caches)"
fi

# Each removal is also timed on its own (milliseconds, one line a run in $work/removed-*):
# it is part of the timed command, and sets a floor no build can go below.
removing() {
  local started
  started=$(date +%s%N)
  rm -rf "$@"
  echo $((($(date +%s%N) - started) / 1000000)) >>"$removal_log"
}
scratch() {
  removal_log="$work/removed-casebook" removing "$corpus/public" "$corpus/.casebook-cache" "$corpus"/.public.casebook-*
  "$bin" build --root "$corpus" >/dev/null
}
hugo_scratch() {
  removal_log="$work/removed-hugo" removing "$hugo_site/public" "$hugo_site/resources"
  hugo --quiet --source "$hugo_site" >/dev/null
}
# What a team would run instead: Hugo, then Pagefind over Hugo's output for the search.
hugo_pagefind_scratch() {
  hugo_scratch
  "$pagefind" --site "$hugo_site/public" >/dev/null
}
# The disk's own pace: copying casebook's output as it is (`cp -a`), into a folder removed
# (and synced) before the timed command.
copying() {
  cp -a "$corpus/public" "$work/copy"
}
# Pagefind from npm, kept under target/ (PAGEFIND=path uses that binary instead).
pagefind=${PAGEFIND:-}
if [ -z "$pagefind" ] && command -v npm >/dev/null; then
  [ -x target/pagefind/node_modules/.bin/pagefind ] ||
    npm install --silent --prefix target/pagefind pagefind@1 >/dev/null 2>&1 || true
  [ -x target/pagefind/node_modules/.bin/pagefind ] && pagefind=$PWD/target/pagefind/node_modules/.bin/pagefind
fi
export -f removing scratch hugo_scratch hugo_pagefind_scratch copying
export bin corpus hugo_site work pagefind
cb=() hg=() hp=() cp=()
for _ in $(seq "$runs"); do
  sync
  cb+=("$(timed bash -c scratch)")
  rm -rf "$work/copy"; sync
  cp+=("$(timed bash -c copying)")
  if command -v hugo >/dev/null; then
    sync
    if [ -n "$pagefind" ]; then
      hp+=("$(timed bash -c hugo_pagefind_scratch)")
    else
      hg+=("$(timed bash -c hugo_scratch)")
    fi
  fi
done
printf 'from scratch  %8s  %8s   (casebook; runs: %s)\n' "$(secs "${cb[@]}")" "$(peak "${cb[@]}")" "$(printf '%s ' "${cb[@]%% *}")"
removed_s() { median <"$work/removed-$1" | awk '{printf "%.2f", $1 / 1000}'; }
echo "  of which removing the previous output: $(removed_s casebook) s (median)"
printf 'cp -a of casebook'"'"'s output  %8s  (runs: %s)\n' "$(secs "${cp[@]}")" "$(printf '%s ' "${cp[@]%% *}")"
echo "casebook from scratch / cp -a: $(awk -v a="$(secs "${cb[@]}")" -v b="$(secs "${cp[@]}")" 'BEGIN {printf "%.2f", a / b}'); without the removal: $(awk -v a="$(secs "${cb[@]}")" -v r="$(removed_s casebook)" -v b="$(secs "${cp[@]}")" 'BEGIN {printf "%.2f", (a - r) / b}')"
if [ ${#hp[@]} -gt 0 ]; then
  printf 'from scratch  %8s  %8s   (%s, then Pagefind %s; runs: %s)\n' "$(secs "${hp[@]}")" "$(peak "${hp[@]}")" \
    "$(hugo version | cut -d' ' -f1-2)" "$("$pagefind" --version 2>/dev/null | tr -d '\n')" "$(printf '%s ' "${hp[@]%% *}")"
  echo "  of which removing Hugo's previous output: $(removed_s hugo) s (median)"
  echo "casebook / (Hugo + Pagefind), ratio of medians: $(awk -v a="$(secs "${cb[@]}")" -v b="$(secs "${hp[@]}")" 'BEGIN {printf "%.2f", a / b}') (target <= 0.25)"
fi
if [ ${#hg[@]} -gt 0 ]; then
  printf 'from scratch  %8s  %8s   (%s; runs: %s)\n' "$(secs "${hg[@]}")" "$(peak "${hg[@]}")" \
    "$(hugo version | cut -d' ' -f1-2)" "$(printf '%s ' "${hg[@]%% *}")"
  echo "  of which removing the previous output: $(removed_s hugo) s (median)"
  echo "Hugo/casebook, ratio of medians: $(awk -v a="$(secs "${hg[@]}")" -v b="$(secs "${cb[@]}")" 'BEGIN {printf "%.2f", a / b}')"
  echo "3x Hugo would be $(awk -v a="$(secs "${hg[@]}")" 'BEGIN {printf "%.2f", a / 3}') s, removal included"
  echo "Hugo output: $(find "$hugo_site/public" -type f | wc -l) files; casebook: $(find "$corpus/public" -type f | wc -l)"
elif [ ${#hp[@]} -eq 0 ]; then
  echo "(hugo is not installed: apt-get install hugo to compare)"
fi
echo "files: casebook $(find "$corpus/public" -type f | wc -l)$( [ -d "$hugo_site/public" ] && echo "; Hugo (and Pagefind) $(find "$hugo_site/public" -type f | wc -l)")"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
