# Sourced by the e2e tests. Under the README's test command
# (scripts/test.sh exports GRIDVEC_STRICT_TESTS=1) and in CI (CI set), a
# test, or a part of one, that cannot run for want of a tool or a
# permission fails: a green run then means that every part ran. Anywhere
# else (a developer's plain ctest without root, say) it says SKIP.

strict_tests() { [ -n "${CI:-}" ] || [ "${GRIDVEC_STRICT_TESTS:-0}" = 1 ]; }

# cannot_run REASON: the whole test cannot run (exit 77 is ctest's skip).
cannot_run() {
  if strict_tests; then
    echo "FAIL: cannot run: $1 (scripts/test.sh and CI run every test; see scripts/install-deps.sh)" >&2
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

# part_cannot_run REASON: one part cannot run; the rest of the test goes on.
part_cannot_run() {
  if strict_tests; then
    echo "FAIL: cannot run: $1 (scripts/test.sh and CI run every test; see scripts/install-deps.sh)" >&2
    exit 1
  fi
  echo "SKIP: $1"
}
