#!/usr/bin/env bash
# `casebook import` at archive size (issue 16; not a test: run it by hand, on an idle machine).
#
#   bash benches/import.sh [CASES] [RUNS] [BIG]      (default: 11000 5 50000)
#
# - into an empty site: the CASES rows of a built corpus's data/cases.csv imported into a
#   copy of that site without its cases (one copy per run, all made before timing and left
#   SETTLE seconds, default 20); then a build of the result, which must succeed.
# - round trip: the same sheet imported over the corpus it came from: no file may change.
# - a BIG-row sheet (the CASES rows repeated under new ids): a dry run and a real import
#   into an empty site, time and peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
runs=${2:-5}
big=${3:-50000}

. benches/lib.sh
build_tools
bin=$(realpath "$bin")
warm_corpus "$cases"
sheet="$work/cases.csv"
cp "$corpus/public/data/cases.csv" "$sheet"
timed() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
secs() { printf '%s\n' "$@" | awk '{print $1}' | median; }
peak() { printf '%s\n' "$@" | awk '$2 > m {m = $2} END {printf "%d", m / 1024}'; }

# Empty sites: the corpus's configuration and sections, without a case. All are made before
# the timed runs, and the disk left to settle: on this machine a file system that has just
# removed tens of thousands of files is slow to create them again, whoever asks.
settle=${SETTLE:-20}
fresh_site() {
  mkdir -p "$1/content/cases"
  cp "$corpus/casebook.toml" "$1/"
  find "$corpus/content" -maxdepth 1 -type f -exec cp {} "$1/content/" \;
  cp "$corpus"/content/cases/_index*.md "$1/content/cases/"
  if [ -d "$corpus/themes" ]; then cp -r "$corpus/themes" "$1/"; fi
}
for i in $(seq "$runs"); do fresh_site "$work/empty$i"; done
empty="$work/empty1"
sync; sleep "$settle"

into_empty=()
for i in $(seq "$runs"); do
  into_empty+=("$(cd "$work/empty$i" && timed "$bin" import "$sheet")")
  sleep 5
done
"$bin" build --root "$empty" >/dev/null && echo "the imported site builds"

before=$(cd "$corpus/content" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
round=()
for _ in $(seq "$runs"); do round+=("$(cd "$corpus" && timed "$bin" import "$sheet")")
done
after=$(cd "$corpus/content" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
if [ "$before" = "$after" ]; then echo "round trip: no file changed"; else echo "round trip: FILES CHANGED"; exit 1; fi
(cd "$corpus" && "$bin" import "$sheet" | tail -1)

# BIG rows: the sheet's rows again and again, each copy under new ids.
bigsheet="$work/big.csv"
python3 - "$sheet" "$bigsheet" "$big" <<'EOF'
import csv, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.reader(open(src, encoding="utf-8-sig")))
header, body = rows[0], rows[1:]
with open(dst, "w", newline="", encoding="utf-8-sig") as f:
    w = csv.writer(f, lineterminator="\r\n")
    w.writerow(header)
    for i in range(n):
        row = list(body[i % len(body)])
        row[0] = f"big-{i:06d}"
        w.writerow(row)
EOF
fresh_site "$work/big"
empty="$work/big"
sync; sleep "$settle"
big_dry=$(cd "$empty" && timed "$bin" import "$bigsheet" --dry-run)
big_real=$(cd "$empty" && timed "$bin" import "$bigsheet")

echo
echo "import                                 median_s  peak_MiB"
printf '%-38s %8s  %8s\n' "$cases rows into an empty site" "$(secs "${into_empty[@]}")" "$(peak "${into_empty[@]}")"
printf '%-38s %8s  %8s\n' "$cases rows over their own site" "$(secs "${round[@]}")" "$(peak "${round[@]}")"
printf '%-38s %8s  %8s\n' "$big rows, dry run (one run)" "$(secs "$big_dry")" "$(peak "$big_dry")"
printf '%-38s %8s  %8s\n' "$big rows into an empty site (one run)" "$(secs "$big_real")" "$(peak "$big_real")"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
