#!/usr/bin/env bash
# Configures and builds gridvec (Release, tests included) into ./build.
# Usage: scripts/build.sh [TARGET...]   (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2046
cmake -S . -B build $(scripts/cmake-generator build) -DCMAKE_BUILD_TYPE=Release -DGRIDVEC_TESTS=ON >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
