#!/usr/bin/env bash
# Export in parallel on a real loopback cluster: two nodes with the
# vocabulary role each write their share of the ids as a part file
# (--output-parts 1); the coordinator puts the directory in place once both
# are written. The parts concatenated (gridvec export DIR) are byte for byte
# the single file of the same vectors (gridvec export of the job's
# --save-model, the writer -output uses without --output-parts), in text
# and in binary; gridvec
# eval and nearest read the directory as they read that file; a missing part
# fails with one line.
# Usage: e2e_export_parts.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
gridvec=$1
cluster_init_dev "$gridvec"
head -c 3000000 "$work/corpus.txt" > "$work/small.txt"

cluster_node coord "roles = coordinator, vocabulary, exporter, shard" "shards = 1"
cluster_node learn "roles = learner, vocabulary" "learners = 1"
cluster_write "$work/cluster.conf" 300
cluster_start coord learn

fail() { cluster_fail "$@"; }
timeout 120 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/parts" \
  --output-parts 1 -size 8 -iter 1 -min-count 3 --save-model "$work/model" > "$work/submit.log" 2>&1 ||
  fail "the job failed"
cluster_expect_line "exporting [0-9]+ vectors to $work/parts as 2 part files, written in parallel"
[ -f "$work/parts/PARTS" ] || fail "no PARTS file"
[ "$(sed -n 5p "$work/parts/PARTS")" = "parts 2" ] || fail "PARTS does not list 2 parts: $(cat "$work/parts/PARTS")"
[ -s "$work/parts/part-00000.vec" ] && [ -s "$work/parts/part-00001.vec" ] || fail "a part file is missing"
[ -z "$(ls -d "$work"/parts.partial-* 2>/dev/null)" ] || fail "a partial directory was left behind"

"$gridvec" export "$work/parts" -output "$work/joined.txt" 2> "$work/export.log" ||
  fail "gridvec export of the parts failed: $(cat "$work/export.log")"
"$gridvec" export "$work/model" -output "$work/single.txt" 2> "$work/export.log" ||
  fail "gridvec export of the model failed: $(cat "$work/export.log")"
cmp "$work/joined.txt" "$work/single.txt" || fail "the concatenated parts differ from the single file"

# Binary: the same, a second job on the same cluster.
timeout 120 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/parts-bin" \
  --output-parts 1 -binary 1 -size 8 -iter 1 -min-count 3 --save-model "$work/model-bin" > "$work/submit-bin.log" 2>&1 ||
  fail "the binary job failed: $(tail -3 "$work/submit-bin.log")"
grep -q "^format binary\$" "$work/parts-bin/PARTS" || fail "PARTS does not say binary: $(cat "$work/parts-bin/PARTS")"
"$gridvec" export "$work/parts-bin" -output "$work/joined.bin" 2> "$work/export.log" ||
  fail "gridvec export of the binary parts failed: $(cat "$work/export.log")"
"$gridvec" export "$work/model-bin" -binary 1 -output "$work/single.bin" 2> "$work/export.log" ||
  fail "gridvec export of the binary model failed: $(cat "$work/export.log")"
cmp "$work/joined.bin" "$work/single.bin" || fail "the concatenated binary parts differ from the single file"

questions="$here/data/questions-words.txt"
pairs="$here/data/wordsim353.tsv"
"$gridvec" eval "$work/parts" --analogies "$questions" --similarity "$pairs" > "$work/eval-parts.txt" 2>&1 ||
  fail "gridvec eval of the parts failed: $(cat "$work/eval-parts.txt")"
"$gridvec" eval "$work/joined.txt" --analogies "$questions" --similarity "$pairs" > "$work/eval-file.txt" 2>&1 ||
  fail "gridvec eval of the file failed: $(cat "$work/eval-file.txt")"
cmp -s <(sed "s|$work/parts|V|g" "$work/eval-parts.txt") <(sed "s|$work/joined.txt|V|g" "$work/eval-file.txt") ||
  fail "eval differs: $(diff "$work/eval-parts.txt" "$work/eval-file.txt" | head -5)"
"$gridvec" nearest "$work/parts" the -k 3 > "$work/nearest-parts.txt" 2>&1 || fail "gridvec nearest of the parts failed"
"$gridvec" nearest "$work/joined.txt" the -k 3 > "$work/nearest-file.txt" 2>&1 || fail "gridvec nearest of the file failed"
cmp -s "$work/nearest-parts.txt" "$work/nearest-file.txt" || fail "nearest differs"

rm "$work/parts/part-00001.vec"
if "$gridvec" eval "$work/parts" --similarity "$pairs" > "$work/missing.txt" 2>&1; then
  fail "eval read a directory with a missing part"
fi
[ "$(wc -l < "$work/missing.txt")" = 1 ] || fail "a missing part gave more than one line: $(cat "$work/missing.txt")"
grep -q "part 1 of $work/parts" "$work/missing.txt" || fail "the missing part is not named: $(cat "$work/missing.txt")"
echo "e2e export parts passed: $(head -1 "$work/eval-parts.txt")"
