#!/usr/bin/env bash
# Peak memory of a build that renders every page again into an output folder that already
# exists (issue 43, item 7): the site's title is changed before each build.
#
#   bash benches/rebuild-memory.sh [CASES] [RUNS] [OTHER_BIN]
#
# CASES defaults to 11000, RUNS to 3. With OTHER_BIN (another casebook binary), each
# binary works on its own copy of the corpus and the two alternate, run for run.
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/lib.sh
cases=${1:-11000}
runs=${2:-3}
other=${3:-}
build_tools
warm_corpus "$cases"
sides=("$bin $corpus")
if [ -n "$other" ]; then
  cp -r "$corpus" "$work/other"
  rm -rf "$work/other/.casebook-cache" "$work/other/public"
  "$other" build --root "$work/other" >/dev/null
  sides+=("$other $work/other")
fi
echo "$cases cases, every page rendered again into the existing output; peak KiB and wall"
for run in $(seq "$runs"); do
  for side in "${sides[@]}"; do
    set -- $side
    sed -i "s/^title = .*/title = \"Generated archive, edition $run\"/" "$2/casebook.toml"
    /usr/bin/time -f "$1 run $run: peak %M KiB, wall %e s" "$1" build --root "$2" 2>&1 >/dev/null | tail -1
  done
done
