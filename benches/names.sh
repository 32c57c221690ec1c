#!/usr/bin/env bash
# Name search quality over a generated corpus of synthetic people (not a test: run it by
# hand). Prints precision in the first ten, recall and MRR by class of query, and bytes
# and files per cold query, for casebook and, if it is installed (`pip install
# pagefind-bin`; never a casebook dependency), Pagefind over the same built site.
#
#   bash benches/names.sh [CASES]        e.g. bash benches/names.sh 2000
#
# KEEP=DIR keeps the corpus and its build in DIR. The corpus and the judged queries come
# from benches/names/corpus.mjs; the scoring from benches/names/eval.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
. benches/lib.sh
build_tools
site=${KEEP:-$work/names}
node benches/names/corpus.mjs "$n" "$site"
"$bin" build --root "$site" >/dev/null
flags=()
pagefind=""
if command -v pagefind >/dev/null 2>&1; then pagefind="pagefind";
elif python3 -c 'import pagefind_bin' 2>/dev/null; then pagefind="python3 -m pagefind_bin"; fi
if [ -n "$pagefind" ]; then
  $pagefind --site "$site/public" >/dev/null
  echo "Pagefind $($pagefind --version 2>/dev/null | tr -d '\n') indexed the same build"
  flags+=(--pagefind)
else
  echo "Pagefind not installed (pip install pagefind-bin): measuring casebook alone"
fi
node benches/names/eval.mjs "$site" "${flags[@]}"
echo "machine: $(nproc) cores; $(uname -sr)"
