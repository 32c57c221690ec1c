# Shared by the benchmark scripts (sourced after they cd to the repository root).

# The median of the numbers on standard input, one per line.
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Builds the release casebook and gen-corpus, plus the examples named; sets $bin, and $work,
# a scratch folder removed on exit.
build_tools() {
  local args=(--bin casebook --example gen-corpus)
  local example
  for example in "$@"; do args+=(--example "$example"); done
  cargo build --release --quiet "${args[@]}"
  bin=target/release/casebook
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# Generates an archive of $1 cases at $work/c$1 and builds it once, so that the next build is
# warm; sets $corpus.
warm_corpus() {
  corpus="$work/c$1"
  target/release/examples/gen-corpus --cases "$1" --out "$corpus" >/dev/null
  "$bin" build --root "$corpus" >/dev/null
}
