#!/usr/bin/env bash
# A 100,000-row import before and after a change (issue 27's "no slowdown"; not a test: run it
# by hand on an idle machine).
#
#   bash benches/import-compare.sh OLD_BIN NEW_BIN [PAIRS] [ROWS]   (default: 5 100000)
#   DRY=1 bash benches/import-compare.sh ...   reading and checking only (`--dry-run`): the
#                                              written import is dominated by creating folders
#
# Imports ROWS valid cases (examples/hostile-sheets.rs: cases.csv and cases.xlsx) into a fresh
# copy of the minimal fixture site, OLD and NEW alternating, PAIRS times per format (all sites
# made first). Prints each binary's median wall time and the ratio NEW/OLD.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
pairs=${3:-5}
rows=${4:-100000}
dry=(); [ "${DRY:-0}" = 1 ] && dry=(--dry-run)
. benches/lib.sh
build_tools hostile-sheets
target/release/examples/hostile-sheets "$work/sheets" "$rows"
for sheet in cases.csv cases.xlsx; do
  for i in $(seq "$pairs"); do
    for who in old new; do
      rm -rf "$work/$who$i"
      cp -r tests/fixtures/minimal "$work/$who$i"
    done
  done
  sync; sleep 5
  olds=(); news=()
  for i in $(seq "$pairs"); do
    for who in old new; do
      b=$old; [ "$who" = new ] && b=$new
      (cd "$work/$who$i" && /usr/bin/time -f '%e' -o "$work/t" "$b" import "$work/sheets/$sheet" "${dry[@]}" >/dev/null)
      t=$(tail -n 1 "$work/t")
      if [ "$who" = old ]; then olds+=("$t"); else news+=("$t"); fi
    done
  done
  mo=$(printf '%s\n' "${olds[@]}" | median)
  mn=$(printf '%s\n' "${news[@]}" | median)
  echo "$sheet ($rows rows${dry:+, dry run}): old ${olds[*]} -> median $mo s; new ${news[*]} -> median $mn s; new/old $(awk "BEGIN {printf \"%.3f\", $mn / $mo}")"
done
echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
