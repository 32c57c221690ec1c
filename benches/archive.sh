#!/usr/bin/env bash
# The archive with its photographs (issue 15): a cold build of CASES cases with 5
# camera-size photographs each (1600x1200 to 4000x3000, one in five portrait through an
# EXIF orientation tag), how well the progress predicted its end, then warm builds beside
# the same cases without photographs, in full (the up-to-date record removed) and with
# nothing to do (not a test: run it by hand, on an idle machine).
#
#   bash benches/archive.sh [CASES] [RUNS] [SIZE]
#
# Default: 11000 3 camera (11000 cases is 55,000 photographs). SIZE WxH makes every
# photograph that size instead (1300x975 is the smallest that still gets both default
# widths): the whole archive's count on this disk in minutes rather than hours.
#
# Disk: the sources take about 1.1 MB each (60 GB at 11,000 cases), the derivatives about
# 0.12 MB each, twice (cache and output). Generating the sources takes about 0.2 s of CPU
# each; at 11,000 cases that is hours on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-11000}
runs=${2:-3}
size=${3:-camera}
. benches/lib.sh
build_tools
photos="$work/photos"
text="$work/text"
target/release/examples/gen-corpus --cases "$cases" --photos 5 --photo-size "$size" --out "$photos" >/dev/null
target/release/examples/gen-corpus --cases "$cases" --out "$text" >/dev/null
"$bin" build --root "$text" >/dev/null

# Cold: no cache, no output. Each progress line is stamped as it arrives.
sync
"$bin" build --root "$photos" 2>&1 >"$work/summary" | while IFS= read -r line; do
  printf '%s %s\n' "$(date +%s.%N)" "$line"
done >"$work/progress" &
sleep 1
pid=$(pgrep -n -f "$bin build --root $photos")
peak=0
while kill -0 "$pid" 2>/dev/null; do
  kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  [ "${kb:-0}" -gt "$peak" ] && peak=$kb
  sleep 1
done
wait
cat "$work/summary"
n=$(sed -n 's/.*, \([0-9]*\) photographs derived.*/\1/p' "$work/summary")
secs=$(sed -n 's/.* in \([0-9.]*\)\(m\?s\) .*/\1 \2/p' "$work/summary" | awk '{print ($2 == "ms") ? $1 / 1000 : $1}')
echo "cold: $n photographs in $secs s: $(awk -v n="$n" -v t="$secs" 'BEGIN {printf "%.1f", n / t}') photographs/s, peak memory $((peak / 1024)) MiB"
echo "sources: $(du -sh "$photos/content" | cut -f1); cache: $(du -sh "$photos/.casebook-cache" | cut -f1); output: $(du -sh "$photos/public" | cut -f1)"
# How well each progress line's "time left" foretold the end of the photographs.
echo "progress: line, time left it said, time left it was"
awk '
  / left\)$/ {
    t[NR] = $1; s = 0; rest = $0; sub(/.*, /, "", rest); sub(/ left\)$/, "", rest)
    n = split(rest, parts, " ")
    for (i = 1; i <= n; i++) {
      v = parts[i] + 0
      if (parts[i] ~ /h$/) s += v * 3600; else if (parts[i] ~ /m$/) s += v * 60; else s += v
    }
    said[NR] = s; line[NR] = $2 " " $3; last = $1
  }
  END {
    for (k in t) printf "  %-22s %7.0f s %7.0f s\n", line[k], said[k], last - t[k]
  }' "$work/progress" | sort -k3,3nr

# Warm: nothing changed, alternating with the same cases without photographs.
# Warm: each site built again with nothing changed. A build that finds its sources and
# output as its last build recorded does nothing (`nothing changed`); the record is
# removed before the builds timed "in full", so they load, derive from the cache and
# compare everything, as every warm build did before the record.
"$bin" build --root "$photos" >/dev/null 2>&1
"$bin" build --root "$text" >/dev/null 2>&1
sleep 2
timed() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
warm=() plain=() checked=()
for _ in $(seq "$runs"); do
  rm -f "$text/.casebook-cache/up-to-date.bin" "$photos/.casebook-cache/up-to-date.bin"
  plain+=("$(timed "$bin" build --root "$text")")
  warm+=("$(timed "$bin" build --root "$photos")")
  sleep 2
  checked+=("$(timed "$bin" build --root "$photos")")
done
p=$(printf '%s\n' "${plain[@]}" | awk '{print $1}' | median)
w=$(printf '%s\n' "${warm[@]}" | awk '{print $1}' | median)
c=$(printf '%s\n' "${checked[@]}" | awk '{print $1}' | median)
echo "warm in full (record removed), text only: $p s; with photographs: $w s (+$(awk -v a="$w" -v b="$p" 'BEGIN {printf "%.2f", a - b}') s); runs (s, KB): ${plain[*]} | ${warm[*]}"
echo "warm with nothing to do (checked), with photographs: $c s; runs: ${checked[*]}"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; $(uname -sr)"
