#!/usr/bin/env bash
# `casebook serve` throughput on one page at 64 connections, two binaries compared (not a
# test: run it by hand, on an idle machine). Needs wrk.
#
#   bash benches/serve-throughput.sh BASE_BIN NEW_BIN [RUNS] [PAGE]
#   e.g. bash benches/serve-throughput.sh /tmp/casebook-main target/release/casebook 5
#
# Serves a copy of the bundled site with each binary in turn (alternating, RUNS times
# each), warms up for 2 s, then runs `wrk -c 64 -t 2 -d 10s` against PAGE (default: a case
# page) and prints each run's requests per second and the medians. Only 127.0.0.1 is
# contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
base=${1:?BASE_BIN}
new=${2:?NEW_BIN}
runs=${3:-5}
page=${4:-/cases/syn-0002/}
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
site="$work/site"
mkdir -p "$site"
cp -r casebook.toml content themes "$site/"

# Serves the site with $1 until the whole-site files are built; sets $pid and $url.
start() {
  "$1" serve --root "$site" --port 0 >"$work/out" 2>"$work/err" &
  pid=$!
  url=
  for _ in $(seq 600); do
    url=$(sed -n 's/^serving \([^ ]*\) .*/\1/p' "$work/out")
    [ -n "$url" ] && curl -fso /dev/null "${url}manifest.json" && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/err" >&2; exit 1; }
}

stop() {
  kill -INT "$pid"
  wait "$pid" || true
}

# Requests per second of one measured run against $url$page.
measure() {
  wrk -c 64 -t 2 -d 2s "$url${page#/}" >/dev/null
  wrk -c 64 -t 2 -d 10s "$url${page#/}" | awk '/Requests\/sec/ {print $2}'
}

: >"$work/base" && : >"$work/new"
for run in $(seq "$runs"); do
  for which in base new; do
    bin=$base
    [ "$which" = new ] && bin=$new
    start "$bin"
    rps=$(measure)
    stop
    echo "run $run $which: $rps requests/s"
    echo "$rps" >>"$work/$which"
  done
done
echo "median base: $(median <"$work/base") requests/s ($base)"
echo "median new:  $(median <"$work/new") requests/s ($new)"
echo "page $page of the bundled site; wrk -c 64 -t 2 -d 10s after 2 s of warm-up"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
