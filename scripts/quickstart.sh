#!/usr/bin/env bash
# Installs dependencies, builds gridvec, generates a small search-session
# corpus (queries and ad ids with planted topics, as in the Network-efficient word2vec paper's Figure 1),
# trains on it with `gridvec train` and prints nearest neighbours.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh gridvec   # only the binary; scripts/test.sh builds the tests
mkdir -p out
/usr/bin/python3 scripts/gen-sessions.py --out out/sessions.txt
build/gridvec train -train out/sessions.txt -output out/sessions.vec -size 64 -window 5 \
  -negative 5 -sample 1e-4 -min-count 3 -iter 5 -threads 2 --report out/sessions.json
build/gridvec nearest out/sessions.vec $(/usr/bin/python3 scripts/gen-sessions.py --examples) -k 6
