#!/usr/bin/env bash
# Where a one-shot build of one edited case spends its time, beside the least any build
# must do to notice the edit (issue 43, item 2; not a test: run it by hand, on an idle
# machine).
#
#   bash benches/edit-floor.sh [CASES] [RUNS]      (default: 11000 7)
#
# Over one generated archive, RUNS rounds of three, each after the disk has settled:
# - stat floor: `find` stats every entry of the site and of its output on one thread, the
#   least a process that is not told what changed (no watcher) must do to notice an edit;
# - nothing to do: `casebook build` with nothing changed (the same stats, on both cores,
#   with the folders' listings kept, and the record read);
# - one case edited: a line added to one case's narrative, then `casebook build
#   --timings`;
# - the same edit with the search index switched off (`[search] enabled = false`, on a copy
#   of the archive): what the build costs without the one step whose every file depends on
#   every case (BM25F scores move with the average field lengths).
# Reported: medians of wall time, and of each `--timings` step of the edited build.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
runs=${2:-7}

. benches/lib.sh
build_tools
warm_corpus "$cases"
sleep 2
"$bin" build --root "$corpus" >/dev/null
# The copy without search: its own output and caches, built twice so that it is warm.
plain="$work/plain"
cp -a "$corpus" "$plain"
sed -i 's/^\[search\]$/[search]\nenabled = false/' "$plain/casebook.toml"
grep -q '^enabled = false' "$plain/casebook.toml" || { echo "no [search] table to switch off" >&2; exit 1; }
"$bin" build --root "$plain" >/dev/null
"$bin" build --root "$plain" >/dev/null
sync; sleep "${SETTLE:-5}"
case_file="$corpus/content/cases/syn-000002/index.md"
wall() { { /usr/bin/time -f '%e' "$@" >/dev/null; } 2>&1 | tail -1; }
: >"$work/laps"
finds=() noops=() edits=() plains=()
for run in $(seq "$runs"); do
  finds+=("$(wall find "$corpus" -printf '%s %T@ %i\n')")
  noops+=("$(wall "$bin" build --root "$corpus")")
  echo "Edited in round $run." >>"$case_file"
  # Past the coarse file-time tick, as an edit by hand would be.
  sleep 2.2
  /usr/bin/time -o "$work/time" -f '%e' "$bin" build --root "$corpus" --timings >"$work/out" 2>"$work/err"
  grep -q '^built' "$work/out" || { echo "expected a build, got: $(cat "$work/out")" >&2; exit 1; }
  edits+=("$(tail -1 "$work/time")")
  # `--timings` prints "  step   12.3 ms" lines on standard error; a step named twice
  # (`merge`) is told apart by its place.
  awk '/^  .* [0-9.]+ (ms|s)$/ {v = $(NF-1); if ($NF == "s") v *= 1000; n = $0;
       sub(/ +[0-9.]+ (ms|s)$/, "", n); sub(/^ +/, "", n); if (seen[n]++) n = n " (" seen[n] ")";
       print n "\t" v}' "$work/err" >>"$work/laps"
  echo "Edited in round $run." >>"$plain/content/cases/syn-000002/index.md"
  sleep 2.2
  plains+=("$(wall "$bin" build --root "$plain")")
done
med() { printf '%s\n' "$@" | median; }
echo "$cases cases, $runs rounds, medians (wall seconds)"
echo "stat floor (find, one thread):   $(med "${finds[@]}") s, $(find "$corpus" | wc -l) entries"
echo "nothing to do:                   $(med "${noops[@]}") s"
echo "one case edited:                 $(med "${edits[@]}") s"
echo "the same, search switched off:   $(med "${plains[@]}") s"
echo "the edited build's steps (ms, median):"
cut -f1 "$work/laps" | awk '!seen[$0]++' | while IFS= read -r step; do
  printf '  %-28s %7.1f\n' "$step" "$(awk -F'\t' -v s="$step" '$1 == s {print $2}' "$work/laps" | median)"
done
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
