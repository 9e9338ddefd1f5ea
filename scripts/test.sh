#!/usr/bin/env bash
# Installs dependencies, builds, and runs the tests. This is what CI runs.
# Usage: scripts/test.sh [--full]
#   (default)  every test that guards a change: unit, actor protocol, end to
#              end (quality floors, clusters, recovery, security, the shell),
#              a fresh clone's tests, the fuzz targets 5 s each, and the unit
#              and actor tests under ASan and UBSan.
#   --full     adds the long sweeps (ctest label `long`: every path against
#              word2vec.c on several flag sets, the recovery scenarios beyond
#              the first, the network lab) and fuzzes 60 s a target.
# A test that cannot run for a missing tool or permission fails here
# (GRIDVEC_STRICT_TESTS, tests/strict.sh) instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
for a in "$@"; do
  case "$a" in
    --full) full=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown option $a (try --full)" >&2; exit 2 ;;
  esac
done
export GRIDVEC_STRICT_TESTS=1
scripts/install-deps.sh
scripts/build.sh
labels=(-LE long)
[ $full = 0 ] || labels=()
(cd build && ctest --output-on-failure -j2 --timeout 600 "${labels[@]}")
# The repository alone: a clone with nothing beside it runs a few e2e tests.
scripts/fresh-clone-check
# The libFuzzer targets (docs/fuzzing.md): a clang build, each target 5 s on
# its seed corpus (2 to 3 minutes on 2 cores, the build included).
if [ $full = 1 ]; then scripts/fuzz --seconds 60; else scripts/fuzz --seconds 5; fi
# The unit and actor tests again, built with ASan and UBSan (about 4 minutes
# on 2 cores, most of it the build).
scripts/sanitize
