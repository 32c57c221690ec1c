#!/usr/bin/env bash
# The redaction workbench at the archive's size (issue 42; not a test: run it by hand, on an
# idle machine).
#
#   bash benches/workbench.sh [CASES] [RUNS]        default: 11000 7 (55,000 photographs)
#
# Generates CASES cases with 5 small photographs each (320x240: the queue's cost is in the
# number of photographs, not their pixels) and puts one 24-megapixel photograph (6000x4000)
# in the first case. Builds once (so `serve` starts from the image cache), starts
# `casebook serve`, and times over HTTP (curl, from request to the last byte; medians of
# RUNS):
#   - the queue: its first page, a filtered page, its last page;
#   - the editor of the 24 MP photograph: the page, the source at screen size (decoded at a
#     reduced scale, upright), the published preview at 800 px with one region;
#   - a save of that photograph's regions to its case file, and from a save to the case page
#     served with the new derivative (a 320x240 photograph, and the 24 MP one).
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
runs=${2:-7}
. benches/lib.sh
build_tools
# KEEP=DIR keeps the generated site in DIR (and reuses it when it is there).
site="${KEEP:-$work/site}"
fresh=1
[ -d "$site/content" ] && fresh=0
if [ $fresh = 1 ]; then
  target/release/examples/gen-corpus --cases "$cases" --photos 5 --photo-size 320x240 --out "$site" >/dev/null
  target/release/examples/gen-corpus --cases 1 --photos 1 --photo-size 6000x4000 --out "$work/big" >/dev/null
fi
for dir in "$site"/content/cases/*/; do
  if [ -z "${big_case:-}" ]; then big_case=$(basename "$dir"); else small_case=$(basename "$dir"); break; fi
done
if [ $fresh = 1 ]; then
  for big in "$work"/big/content/cases/*/photo-1.jpg; do break; done
  cp "$big" "$site/content/cases/$big_case/photo-1.jpg"
fi
echo "photographs: $(find "$site/content/cases" -name '*.jpg' | wc -l); 24 MP: cases/$big_case/photo-1.jpg"
/usr/bin/time -f 'build (fills the image cache): %e s' "$bin" build --root "$site" >/dev/null

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
began=$(date +%s.%N)
"$bin" serve --root "$site" --port "$port" --timings >"$work/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf -o /dev/null "$base/"; do sleep 0.05; done
echo "serve: first page after $(awk -v a="$began" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"
# The whole-site files follow the first page: time the workbench once they are done.
until grep -q "then search index" "$work/serve.log"; do sleep 0.1; done

# time NAME CURL-ARGS...: the median of RUNS requests, in ms.
time_it() {
  local name=$1
  shift
  local t
  t=$(for _ in $(seq "$runs"); do
    curl -sf -o /dev/null -w '%{time_total}\n' "$@" || { echo "$name: request failed" >&2; exit 1; }
  done | median)
  printf '%-58s %8.1f ms\n' "$name" "$(awk -v t="$t" 'BEGIN {print t * 1000}')"
}

rows=$(curl -sf "$base/__casebook/photos/" | sed -n 's/.*id="wb-count">[0-9]* of \([0-9]*\) .*/\1/p')
last=$(( (rows + 99) / 100 ))
echo "queue: $rows photographs, $last pages of 100"
time_it "queue, first page" "$base/__casebook/photos/"
time_it "queue, not reviewed, sensitive, page 2" "$base/__casebook/photos/?state=not-reviewed&sensitivity=sensitive&page=2"
time_it "queue, last page" "$base/__casebook/photos/?page=$last"

editor="$base/__casebook/photos/cases/$big_case/photo-1.jpg"
time_it "editor page (24 MP photograph)" "$editor"
token=$(curl -sf "$editor" | sed -n 's/.*name="casebook-token" content="\([^"]*\)".*/\1/p')
time_it "source at screen size (?w=1600, 24 MP)" -H "X-Casebook-Token: $token" "$base/__casebook/source/cases/$big_case/photo-1.jpg?w=1600"
preview='{"dir":"cases/'"$big_case"'","file":"photo-1.jpg","regions":[{"x":0.3,"y":0.05,"w":0.4,"h":0.3,"method":"fill"}],"width":800}'
time_it "preview at 800 px, one region (24 MP)" -X POST -H "X-Casebook-Token: $token" -H 'Content-Type: application/json' --data "$preview" "$base/__casebook/preview"

page="$site/content/cases/$big_case/index.md"
saves=$(for i in $(seq "$runs"); do
  sum=$(sha256sum "$page" | cut -d' ' -f1)
  body='{"dir":"cases/'"$big_case"'","file":"photo-1.jpg","sha256":"'"$sum"'","regions":[{"x":0.3,"y":0.05,"w":0.4,"h":0.'"$((i % 3 + 1))"',"method":"fill"}],"translations":{}}'
  curl -sf -o /dev/null -w '%{time_total}\n' -X POST -H "X-Casebook-Token: $token" -H 'Content-Type: application/json' --data "$body" "$base/__casebook/save" || { echo "save refused" >&2; exit 1; }
  sleep 1
done | median)
printf '%-58s %8.1f ms\n' "save (regions to the case file)" "$(awk -v t="$saves" 'BEGIN {print t * 1000}')"
# From the save to the case page served with the new derivative (the rebuild the watcher
# starts, through the preview's own pipeline), for a small photograph and the 24 MP one.
for target in "${small_case:-}" "$big_case"; do
  [ -n "$target" ] || continue
  python3 - "$base" "$site" "$target" "$token" "$runs" <<'PY'
import hashlib, json, re, statistics, sys, time, urllib.request
base, site, case, token, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
page = f"{site}/content/cases/{case}/index.md"
def names():
    html = urllib.request.urlopen(f"{base}/cases/{case}/").read().decode()
    return sorted(set(re.findall(r"photo-1\.[0-9a-f]+[^\"' ,]*\.jpg", html)))
times = []
# A region never saved before, so each save derives its photograph anew (no cache hit).
fresh = (time.time_ns() // 1000 % 997) / 1e6
for i in range(runs):
    before = names()
    sha = hashlib.sha256(open(page, "rb").read()).hexdigest()
    body = json.dumps({"dir": f"cases/{case}", "file": "photo-1.jpg", "sha256": sha, "translations": {},
                       "regions": [{"x": 0.3, "y": 0.05, "w": 0.4, "h": round(0.1 + 0.01 * (i % 7) + fresh, 6), "method": "fill"}]}).encode()
    began = time.monotonic()
    urllib.request.urlopen(urllib.request.Request(f"{base}/__casebook/save", data=body,
        headers={"Content-Type": "application/json", "X-Casebook-Token": token})).read()
    while names() == before:
        time.sleep(0.005)
    times.append((time.monotonic() - began) * 1000)
    time.sleep(1)
print(f"{'save to the case page served with the new derivative, ' + case:<58} {statistics.median(times):8.1f} ms")
PY
done
[ -n "${TIMINGS:-}" ] && cp "$work/serve.log" "$TIMINGS"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
