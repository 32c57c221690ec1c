#!/usr/bin/env bash
# The failed-update sequence of issue 40 on a real site: a build is killed part-way through
# its update, the output folder is made read-only (chattr +i, so root is needed), the site
# is built three times before the cause is fixed, then the folder is thawed and built again.
# The output must then equal a clean build's, byte for byte, and no build before the fix
# may lose a file. Uses the debug binary (its CASEBOOK_FAULT hook).
# Usage: bash benches/failed-update.sh SITE_DIR [KILL_STEP]   (BIN=a debug casebook to try another)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$1
bin=${BIN:-$(pwd)/target/debug/casebook}
[ -n "${BIN:-}" ] || cargo build --quiet --bin casebook
work=$(mktemp -d)
trap 'chattr -i "$work/site/public/${FREEZE:-.}" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r "$src" "$work/site"
rm -rf "$work/site/public" "$work/site"/.public.casebook-* "$work/site/.casebook-cache"
site="$work/site"
"$bin" build --root "$site" >/dev/null 2>&1
find "$site/public" -type f | sed "s|$site/public/||" | sort >"$work/old.txt"
# The change: every page (the site's title).
sed -i '0,/^title = "/s//title = "Edited: /' "$site/casebook.toml"
steps=$(CASEBOOK_FAULT=count "$bin" build --root "$site" 2>&1 >/dev/null | sed -n 's/casebook-fault-points: //p')
# Undo the counted build: rebuild the old site to start from it again.
sed -i '0,/^title = "Edited: /s//title = "/' "$site/casebook.toml"
"$bin" build --root "$site" >/dev/null 2>&1
sed -i '0,/^title = "/s//title = "Edited: /' "$site/casebook.toml"
k=${2:-$((steps / 2))}
echo "fault points: $steps; killing at $k"
CASEBOOK_FAULT="kill:$k" "$bin" build --root "$site" >/dev/null 2>&1 || true
[ -f "$site/.public.casebook-pending/journal" ] || { echo "no update pending at step $k: choose another"; exit 1; }
chattr +i "$site/public/${FREEZE:-.}"
for n in 1 2 3; do
  "$bin" build --root "$site" >"$work/run$n.txt" 2>&1 && echo "build $n before the fix: succeeded" || echo "build $n before the fix: failed ($(grep -c . "$work/run$n.txt") lines)"
  lost=$(comm -23 "$work/old.txt" <(find "$site/public" -type f | sed "s|$site/public/||" | sort) | wc -l)
  echo "  files of the old site missing: $lost"
done
chattr -i "$site/public/${FREEZE:-.}"
"$bin" build --root "$site" >/dev/null 2>&1 && echo "build after the fix: succeeded"
cp -r "$site" "$work/fresh"
rm -rf "$work/fresh/public" "$work/fresh"/.public.casebook-* "$work/fresh/.casebook-cache"
"$bin" build --root "$work/fresh" >/dev/null 2>&1
if diff -r "$site/public" "$work/fresh/public" >/dev/null; then
  echo "output equals a clean build: $(find "$site/public" -type f | wc -l) files"
else
  echo "output DIFFERS from a clean build"; diff -rq "$site/public" "$work/fresh/public" | head; exit 1
fi
