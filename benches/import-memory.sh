#!/usr/bin/env bash
# Peak memory of `casebook import` for each hostile sheet class (issue 27; not a test: run it
# by hand).
#
#   bash benches/import-memory.sh [BIN]     (default: this checkout's release build)
#
# Classes (examples/hostile-sheets.rs, each at most about 10 MB on disk): a cell at XFD1048576;
# a million whitespace rows; two million bad rows (XLSX) and 290,000 (CSV); 1.25 million rows
# with distinct ids and nothing else; 1.6 million shared
# strings; shared strings that inflate to 1 GB; a 1 MiB shared string repeated in every row; 200,000
# rows of whitespace cells; one cell of 1 GiB; an ODS row repeated to the sheet's end with a
# cell repeated four billion columns; an .xls cell in the far corner; and 100,000 valid cases
# as CSV and XLSX. Each is a dry run into a copy of the minimal fixture site. Prints the size
# on disk, the exit code, the wall time, the peak resident memory (GNU time's maximum RSS)
# and the last line the import printed.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
build_tools hostile-sheets
bin=$(realpath "${1:-$bin}")
target/release/examples/hostile-sheets "$work/sheets"
printf '%-22s %8s %5s %8s %9s  %s\n' class "disk KB" exit seconds "peak MiB" "last line"
for sheet in far-corner.xlsx empty-rows.xlsx bad-rows.xlsx bad-rows.csv distinct-ids.xlsx shared-strings.xlsx \
  strings-bomb.xlsx repeated-string.xlsx whitespace.xlsx long-cell.xlsx repeats.ods \
  far-corner.xls cases.csv cases.xlsx; do
  rm -rf "$work/site"
  cp -r tests/fixtures/minimal "$work/site"
  set +e
  (cd "$work/site" && /usr/bin/time -f '%e %M' -o "$work/time" \
    "$bin" import "$work/sheets/$sheet" --dry-run >"$work/out" 2>&1)
  code=$?
  set -e
  read -r secs kib < <(tail -n 1 "$work/time")
  size=$(( $(stat -c %s "$work/sheets/$sheet") / 1000 ))
  printf '%-22s %8s %5s %8s %9s  %s\n' "$sheet" "$size" "$code" "$secs" "$((kib / 1024))" \
    "$(tail -n 1 "$work/out" | sed "s|$work/sheets/||" | cut -c1-90)"
done
echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
