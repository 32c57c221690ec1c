#!/usr/bin/env bash
# Search benchmark over a generated archive (not a test: run it by hand, on an idle machine).
#
#   bash benches/search.sh [CASES] [RUNS]        e.g. bash benches/search.sh 11000 7
#
# Reports casebook's index build time (median of RUNS rebuilds), index file count and
# bytes, then, in headless Chromium, the bytes a browser downloads for a one-word query and
# a two-word query with a facet, and keystroke-to-results time (examples/search-bench.rs).
# If Pagefind is installed (`pip install pagefind-bin`; never a casebook dependency) it
# indexes the same built site and is measured beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-11000}
runs=${2:-7}
. benches/lib.sh
build_tools search-bench
warm_corpus "$n"
index_ms=$(for _ in $(seq "$runs"); do
  "$bin" build --root "$corpus" --timings 2>&1 | awk '/search index/ {print $(NF-1)}'
done | median)
idx="$corpus/public/search/en"
files=$(find "$idx" -type f | wc -l)
bytes=$(du -sb "$idx" | cut -f1)
gzbytes=$(for f in "$idx"/*; do gzip -6 -c "$f" | wc -c; done | awk '{s+=$1} END {print s}')
echo "casebook: $n cases; index build (inside render) median ${index_ms} ms; $files index files, $bytes bytes ($gzbytes gzipped)"

pagefind=""
if command -v pagefind >/dev/null 2>&1; then pagefind="pagefind";
elif python3 -c 'import pagefind_bin' 2>/dev/null; then pagefind="python3 -m pagefind_bin"; fi
if [ -n "$pagefind" ]; then
  out=$( { /usr/bin/time -f '%e %M' $pagefind --site "$corpus/public" >/dev/null; } 2>&1 | tail -1)
  pf="$corpus/public/pagefind"
  echo "Pagefind $($pagefind --version 2>/dev/null | tr -d '\n'): indexing ${out% *} s, peak $(( ${out#* } / 1024 )) MiB; $(find "$pf" -type f | wc -l) files, $(du -sb "$pf" | cut -f1) bytes"
  cat > "$corpus/public/pagefind-bench.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>Pagefind bench</title>
<script type="module">
const pf = await import("./pagefind/pagefind.js");
await pf.init();
window.pf = pf;
window.pagefindReady = true;
const q = new URLSearchParams(location.search).get("q");
if (q) {
  const r = await pf.search(q);
  await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
  window.pagefindDone = true;
}
</script>
HTML
else
  echo "Pagefind not installed (pip install pagefind-bin): measuring casebook alone"
fi
target/release/examples/search-bench "$corpus/public" "$runs"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
