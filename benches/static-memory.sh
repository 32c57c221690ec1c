#!/usr/bin/env bash
# Peak memory of `build` (cold and warm) and `serve` (start, rebuild after an edit, a whole
# download) of the minimal fixture with one large file in static/ (issue 40: static files are
# streamed, never held whole). Usage: bash benches/static-memory.sh [SIZE_MB] [BIN]
# SIZE_MB defaults to 1024. BIN defaults to the release build (built first).
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/lib.sh
size_mb=${1:-1024}
bin=${2:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet --bin casebook
  bin=target/release/casebook
fi
work=$(mktemp -d)
trap 'kill "${serve_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
site="$work/site"
cp -r tests/fixtures/minimal "$site"
mkdir -p "$site/static"
head -c "$((size_mb << 20))" /dev/urandom >"$site/static/big.bin"

peak() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
echo "static file: $size_mb MiB; binary: $bin"
echo "build, cold: peak $(( $(peak "$bin" build --root "$site") / 1024 )) MiB"
echo "build, warm: peak $(( $(peak "$bin" build --root "$site") / 1024 )) MiB"
touch "$site/content/about.md"
echo "build, one page edited: peak $(( $(peak "$bin" build --root "$site") / 1024 )) MiB"

port=$((20000 + RANDOM % 20000))
"$bin" serve --root "$site" --port "$port" >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 600); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done
echo "serve, started: VmHWM $(awk '/VmHWM/ {print int($2/1024)}' /proc/$serve_pid/status) MiB"
echo "x" >>"$site/static/notes.txt"
sleep 2
echo "serve, after a static-folder rebuild: VmHWM $(awk '/VmHWM/ {print int($2/1024)}' /proc/$serve_pid/status) MiB"
curl -sf -o /dev/null "http://127.0.0.1:$port/big.bin"
echo "serve, after downloading big.bin: VmHWM $(awk '/VmHWM/ {print int($2/1024)}' /proc/$serve_pid/status) MiB"
