#!/usr/bin/env bash
# Installs dependencies, builds, and runs the tests. This is what CI runs.
# Usage: scripts/test.sh [--full]
#   (default)  every test that guards a change: end to end (quality floors,
#              clusters, recovery, security, the shell) on the release build,
#              a fresh clone's tests, the fuzz targets 5 s each, and the unit
#              and actor tests, which run once, under ASan (UBSan in the core:
#              the checked build; GCC's release build compiles the rest).
#   --full     adds the long sweeps (ctest label `long`: every path against
#              word2vec.c on several flag sets) and fuzzes 60 s a target.
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
# Each step's wall-clock seconds, printed at the end: the whole command must
# stay under CI's 30 minutes, and these say where the time goes.
steps=()
step_start=$SECONDS
step_done() { steps+=("$1 $((SECONDS - step_start)) s"); step_start=$SECONDS; }
scripts/install-deps.sh
step_done install
scripts/build.sh gridvec_programs
step_done build
# The checked build (scripts/checked-build: clang with the sanitizers, for
# the fuzz targets and the sanitized unit tests) compiles while ctest runs,
# at the lowest priority: it takes the CPU the tests leave idle while they
# wait on processes and sockets, and next to nothing when they train.
checked_log=build/checked-build.log
fuzz_targets=$(cd tests/fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
# shellcheck disable=SC2086
nice -n 19 scripts/checked-build gridvec_tests $fuzz_targets >"$checked_log" 2>&1 &
checked_pid=$!
kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill "$1" 2>/dev/null || true; }
trap 'kill_tree $checked_pid' EXIT
labels=(-LE long)
[ $full = 0 ] || labels=()
(cd build && ctest --output-on-failure -j2 --timeout 600 -R '^e2e\.' "${labels[@]}")
step_done ctest
# The repository alone: a clone with nothing beside it runs a few e2e tests.
scripts/fresh-clone-check
step_done fresh-clone
wait $checked_pid || { tail -n 40 "$checked_log"; echo "scripts/test.sh: the checked build failed ($checked_log)" >&2; exit 1; }
trap - EXIT
step_done "checked-build wait"
# The libFuzzer targets (docs/fuzzing.md), each 5 s on its seed corpus, two
# at a time.
if [ $full = 1 ]; then scripts/fuzz --seconds 60; else scripts/fuzz --seconds 5; fi
step_done fuzz
# The unit and actor tests again, under ASan and UBSan.
scripts/sanitize
step_done sanitize
echo "scripts/test.sh: passed in $SECONDS s ($(IFS=,; echo "${steps[*]}" | sed 's/,/, /g'))"
