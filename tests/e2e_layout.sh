#!/usr/bin/env bash
# The floors of the tree (README, "Layout"): scripts/check-layout passes on
# this checkout and fails, naming the file, on a tree with an upward include.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/scripts/check-layout" "$repo"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/util" "$work/actors"
printf '#include <caf/all.hpp>\n' > "$work/src/util/bad.hpp"
printf '#include "apps/cli/cli.hpp"\n' > "$work/actors/bad.cpp"
if out="$("$repo/scripts/check-layout" "$work" 2>&1)"; then
  echo "FAIL: check-layout accepted upward includes"; exit 1
fi
grep -q 'src/util/bad.hpp:1' <<<"$out" || { echo "FAIL: core violation not named: $out"; exit 1; }
grep -q 'actors/bad.cpp:1' <<<"$out" || { echo "FAIL: actors violation not named: $out"; exit 1; }
echo "PASS layout"
