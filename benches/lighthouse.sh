#!/usr/bin/env bash
# Lighthouse 12 (its default mobile emulation) over the bundled site, served locally (not a
# test: run it by hand, on an idle machine). Prints the four category scores and the layout
# shift of the home page, a case page, the search page with a query and an Arabic case page.
# Needs Chromium, Node and npm; Lighthouse is installed under target/lighthouse.
#
#   bash benches/lighthouse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=target/lighthouse
mkdir -p "$work"
npm install --silent --prefix "$work" lighthouse@12 >/dev/null
cargo build --release --quiet --bin casebook
rm -rf "$work/public" && target/release/casebook build --output "$work/public" >/dev/null
python3 -m http.server -d "$work/public" 8126 --bind 127.0.0.1 >/dev/null 2>&1 & server=$!
trap 'kill $server' EXIT
sleep 1
export CHROME_PATH=${CASEBOOK_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
echo "Lighthouse $("$work/node_modules/.bin/lighthouse" --version), mobile emulation"
echo "| page | performance | accessibility | best practices | SEO | CLS |"
echo "| --- | --- | --- | --- | --- | --- |"
for page in / /cases/syn-0001/ "/search/?q=starvation" /ar/cases/syn-0001/; do
  "$work/node_modules/.bin/lighthouse" "http://127.0.0.1:8126$page" --quiet \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless=new --no-sandbox" --output=json --output-path="$work/report.json"
  node -e '
    const r = require(process.argv[1]), c = r.categories;
    const s = (k) => Math.round(c[k].score * 100);
    console.log(`| ${process.argv[2]} | ${s("performance")} | ${s("accessibility")} | ${s("best-practices")} | ${s("seo")} | ${r.audits["cumulative-layout-shift"].numericValue.toFixed(3)} |`);
  ' "$PWD/$work/report.json" "$page"
done
echo "machine: $(nproc) cores; $(uname -sr)"
