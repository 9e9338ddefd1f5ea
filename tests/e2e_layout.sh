#!/usr/bin/env bash
# The floors of the tree (README, "Layout"): scripts/check-layout passes on
# this checkout and fails, naming the file, on a tree with an upward include,
# and on one where a node opens a file around its path policy.
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
work2="$(mktemp -d)"; trap 'rm -rf "$work" "$work2"' EXIT
mkdir -p "$work2/src/formats" "$work2/actors"
printf 'void f(const std::string& p) {\n  std::FILE* f = std::fopen(p.c_str(), "rb");\n}\n' > "$work2/src/formats/raw.cpp"
printf 'std::ifstream in(path);\n' > "$work2/actors/raw.cpp"
if out="$("$repo/scripts/check-layout" "$work2" 2>&1)"; then
  echo "FAIL: check-layout accepted files opened around the path policy"; exit 1
fi
grep -q 'src/formats/raw.cpp:2' <<<"$out" || { echo "FAIL: raw fopen not named: $out"; exit 1; }
grep -q 'actors/raw.cpp:1' <<<"$out" || { echo "FAIL: raw ifstream not named: $out"; exit 1; }
echo "PASS layout"
