#!/usr/bin/env bash
# Configures and builds gridvec (Release, tests included) into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGRIDVEC_TESTS=ON >/dev/null
cmake --build build -j"$(nproc)"
