#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, actor protocol,
# end to end on the dev corpus). This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build && ctest --output-on-failure -j2 --timeout 600
# The libFuzzer targets (docs/fuzzing.md): a clang build, each target 5 s on
# its seed corpus (2 to 3 minutes on 2 cores, the build included). From the
# repository root: the line above ends in build/.
cd .. && scripts/fuzz --seconds 5
# The unit and actor tests again, built with ASan and UBSan (about 4 minutes
# on 2 cores, most of it the build).
scripts/sanitize
