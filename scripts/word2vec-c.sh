#!/usr/bin/env bash
# Prints the path of the reference word2vec.c trainer, installing it first
# if needed: $WORD2VEC if set, else npm's `word2vec` package (the reference
# source; its postinstall builds src/word2vec) under GRIDVEC_BENCH_CACHE
# (default ~/.cache/gridvec-bench). npm itself comes from Debian.
# Used by scripts/bench, scripts/quality-sweep and the tests that compare
# with word2vec.c in the same run.
set -euo pipefail
if [ -n "${WORD2VEC:-}" ]; then
  [ -x "$WORD2VEC" ] || { echo "word2vec-c.sh: WORD2VEC=$WORD2VEC is not executable" >&2; exit 1; }
  echo "$WORD2VEC"
  exit 0
fi
cache=${GRIDVEC_BENCH_CACHE:-$HOME/.cache/gridvec-bench}
w2v_dir=$cache/node_modules/word2vec/src
bin=$w2v_dir/word2vec
if [ ! -x "$bin" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if ! command -v npm >/dev/null; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq npm >/dev/null ||
      { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq npm >/dev/null; }
  fi
  mkdir -p "$cache"
  echo "word2vec-c.sh: npm install word2vec (into $cache)" >&2
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error word2vec >/dev/null 2>&1) || true
  # If install scripts were skipped, build the reference trainer ourselves.
  if [ ! -x "$bin" ]; then
    [ -f "$w2v_dir/word2vec.c" ] || { echo "word2vec-c.sh: npm install word2vec did not provide $w2v_dir/word2vec.c" >&2; exit 1; }
    echo "word2vec-c.sh: compiling $w2v_dir/word2vec.c" >&2
    gcc "$w2v_dir/word2vec.c" -o "$bin" -O3 -march=native -funroll-loops -lm -pthread -Wno-unused-result
  fi
fi
echo "$bin"
