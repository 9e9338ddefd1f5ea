#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, actor protocol,
# end to end on the dev corpus). This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build && ctest --output-on-failure -j2 --timeout 600
