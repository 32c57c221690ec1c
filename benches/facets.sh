#!/usr/bin/env bash
# The facet data a query fetches (issue 43, item 5; not a test: run it by hand).
#
#   bash benches/facets.sh [CASES]      (default: 11000)
#
# Builds a generated archive, then runs the published search client over its index from
# disk (benches/facets/fetch.mjs): for each query, from a cold start with the filters open,
# the facet files it fetched and their gzipped bytes, against the whole facets file every
# such query fetched before; the counts are checked to be the whole file's.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-11000}
. benches/lib.sh
build_tools
warm_corpus "$n"
node benches/facets/fetch.mjs "$corpus"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
