#!/usr/bin/env bash
# Regenerates the screenshots in this folder (not a test; run by hand after changing the
# theme): a case page at 375 CSS pixels in English and Arabic, light and dark, and the first
# page of its printed PDF with one graphic photograph opened; the redaction workbench of
# `casebook serve` (its queue, and the editor with a region drawn) over a copy of the bundled
# site, so no case file changes. Needs Chromium, Node and npm
# (puppeteer-core and pdf.js are installed under target/screenshots).
#
#   bash docs/screenshots/make.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
here=docs/screenshots
work=target/screenshots
mkdir -p "$work"
npm install --silent --prefix "$work" puppeteer-core@24 pdfjs-dist@4 >/dev/null
cargo build --release --quiet --bin casebook
rm -rf "$work/public" && target/release/casebook build --output "$work/public" >/dev/null
python3 -m http.server -d "$work/public" 8124 --bind 127.0.0.1 >/dev/null 2>&1 & site=$!
mkdir -p "$work/pdf"
cp "$here/pdf-page.html" "$work/pdf/render.html"
cp "$work"/node_modules/pdfjs-dist/build/pdf{,.worker}.min.mjs "$work/pdf/"
python3 -m http.server -d "$work/pdf" 8125 --bind 127.0.0.1 >/dev/null 2>&1 & viewer=$!
trap 'kill $site $viewer' EXIT
sleep 1
# Beside their node_modules, so that their imports resolve.
cp "$here/shoot.mjs" "$here/pdf-page.mjs" "$work/"
export CHROMIUM=${CASEBOOK_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
node "$work/shoot.mjs" http://127.0.0.1:8124 "$PWD/$here" "$PWD/$work/pdf/case.pdf"
node "$work/pdf-page.mjs" 'http://127.0.0.1:8125/render.html?dpi=110&page=1' "$here/case-print-page1.png"

# The workbench: `serve` over a copy of the site (the editor's saves would write case files).
rm -rf "$work/site" && mkdir -p "$work/site"
cp -r casebook.toml content "$work/site/"
for extra in static themes templates i18n; do [ -d "$extra" ] && cp -r "$extra" "$work/site/"; done
cp "$here/workbench.mjs" "$work/"
target/release/casebook serve --root "$work/site" --port 8126 >/dev/null 2>&1 & serve=$!
trap 'kill $site $viewer $serve' EXIT
until curl -sf -o /dev/null http://127.0.0.1:8126/; do sleep 0.2; done
node "$work/workbench.mjs" http://127.0.0.1:8126 "$PWD/$here"
