#!/usr/bin/env bash
# End to end: corpora as users have them. A directory tree (read
# recursively), gzip on standard input or without its extension, -train
# repeated and @LIST (a file name with a comma) all train on the same text as
# one plain file: the same vocabulary. Bad bytes are named by the user's own
# file and line whatever the staging, in `gridvec train` and on a cluster of
# real processes; --invalid-utf8 skip and replace give the vocabulary that
# Python's decoder gives, the same in one process and on the cluster.
# Usage: e2e_inputs.sh GRIDVEC_BINARY
set -uo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
cd "$work"
fails=0
pass() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails+1)); }

# expect_error NAME EXPECTED_SUBSTRING [STDIN_FILE] -- ARGS...: one error
# line (log lines start with '['), a non-zero exit, no output file.
expect_error() {
  local name=$1 want=$2 input=/dev/null
  shift 2
  if [ "$1" != -- ]; then input=$1; shift; fi
  shift
  rm -f out.txt
  timeout 120 "$gridvec" "$@" < "$input" > stdout.txt 2> stderr.txt
  local code=$? errline
  errline=$(grep -v '^\[' stderr.txt || true)
  if [ $code -eq 0 ] || [ $code -ge 124 ]; then
    bad "$name: exit $code"
  elif [ "$(printf '%s\n' "$errline" | grep -c .)" != 1 ]; then
    bad "$name: expected one error line, got:"; cat stderr.txt
  elif ! grep -qF -- "$want" <<<"$errline"; then
    bad "$name: '$errline' does not say '$want'"
  elif [ -e out.txt ]; then
    bad "$name: left an output file"
  else
    pass "$name: $errline"
  fi
}

dev="$here/data/dev-corpus.txt.gz"
zcat "$dev" | head -n 3000 > part1.txt
zcat "$dev" | sed -n '3001,6000p' > part2.txt
cat part1.txt part2.txt > whole.txt
gzip -c part1.txt > part1.txt.gz
gzip -c part2.txt > part2.txt.gz
vocab_line() { grep -o 'vocabulary: [0-9]* words ([^)]*)' "$1"; }
small=(-output vec.txt -size 16 -iter 1 -threads 2)
"$gridvec" train -train whole.txt "${small[@]}" 2> plain.log
want=$(vocab_line plain.log)
[ -n "$want" ] || { bad "the plain corpus did not train"; cat plain.log; }

# same_as_plain NAME [STDIN_FILE] -- ARGS...: trains on the same text as whole.txt.
same_as_plain() {
  local name=$1 input=/dev/null
  shift
  if [ "$1" != -- ]; then input=$1; shift; fi
  shift
  if timeout 120 "$gridvec" train "$@" "${small[@]}" < "$input" 2> inputs.log &&
     [ "$(vocab_line inputs.log)" = "$want" ]; then
    pass "$name: $want"
  else
    bad "$name: $(vocab_line inputs.log) (want $want)"; tail -3 inputs.log
  fi
}

# A directory tree: read recursively, by path; hidden names skipped; the
# count of its files in the log.
mkdir -p tree/a tree/b/c tree/.git
cp part1.txt tree/a/1.txt
cp part2.txt.gz tree/b/c/2
printf 'never read\n' > tree/.git/HEAD
printf 'never read\n' > tree/b/.swap
same_as_plain "-train DIR (recursive)" -- -train tree
grep -q "the corpus directory $work/tree holds 2 files" inputs.log && pass "the log counts the directory's files" ||
  { bad "no count of the directory's files"; grep corpus inputs.log; }

# gzip on standard input, one member or several; gzip without .gz; text.
cat part1.txt.gz part2.txt.gz > both.gz.data
same_as_plain "gzip piped into -train -" both.gz.data -- -train -
same_as_plain "text piped into -train -" whole.txt -- -train -
cp part2.txt.gz part2.bin
same_as_plain "-train repeated, gzip without .gz" -- -train part1.txt -train part2.bin
# A name with a comma: given whole, or in a list.
cp part1.txt "one,two.txt"
same_as_plain "-train 'one,two.txt' (a name with a comma)" -- -train "one,two.txt" -train part2.txt
mkdir -p lists
printf '../one,two.txt\n\n%s\n' "$work/part2.txt.gz" > lists/paths.txt
same_as_plain "-train @LIST" -- -train @lists/paths.txt
expect_error "@LIST missing" "lists/none.txt" -- train -train @lists/none.txt -output out.txt
expect_error "an empty input" "holds no text" -- train -train "$(: > e1; echo e1)" -train - -output out.txt

# Bad bytes, named by the user's file and line whatever the staging.
{ head -n 5 part1.txt; printf 'caf\xc3( au lait\n'; sed -n '6,20p' part1.txt; } > badfile.txt
mkdir -p badtree/x && cp part2.txt badtree/x/a.txt && cp badfile.txt badtree/x/b.txt
gzip -c badfile.txt > bad.gz
expect_error "invalid UTF-8 in a plain file" "corpus $work/badfile.txt has invalid UTF-8 on line 6, at byte " -- \
  train -train badfile.txt -output out.txt
grep -qF -- "--invalid-utf8 skip" stderr.txt && pass "the error says how to go on" ||
  bad "the error does not name --invalid-utf8: $(cat stderr.txt)"
expect_error "invalid UTF-8 in a directory's file" "corpus $work/badtree/x/b.txt has invalid UTF-8 on line 6" -- \
  train -train badtree -output out.txt
expect_error "invalid UTF-8 in a gzip file" "corpus $work/bad.gz has invalid UTF-8 on line 6" -- \
  train -train part2.txt -train bad.gz -output out.txt
grep -qF "of its uncompressed text" stderr.txt || bad "a gzip file's byte is not said to be uncompressed"
expect_error "invalid UTF-8 on standard input" "corpus standard input has invalid UTF-8 on line 6" badfile.txt -- \
  train -train part2.txt -train - -output out.txt
expect_error "invalid UTF-8 in gzip on standard input" "corpus standard input has invalid UTF-8 on line 6" bad.gz -- \
  train -train - -output out.txt
expect_error "a bad --invalid-utf8" "expects fail, skip or replace" -- \
  train -train badfile.txt -output out.txt --invalid-utf8 ignore

# --invalid-utf8 skip and replace: the vocabulary Python's decoder gives
# (errors="replace"; skip: the words that do not decode dropped).
{
  cat part1.txt
  for i in 1 2 3; do printf 'caf\xc3( \xff\xfe tea\xe2\x82 x\xed\xa0\x80y ok\xf0\x9f\x98\x80\n'; done
} > mixed.txt
for mode in skip replace; do
  if "$gridvec" train -train mixed.txt -output vec.txt -size 8 -iter 1 -threads 2 -min-count 1 \
       --invalid-utf8 $mode -save-vocab "vocab-$mode.txt" 2> "$mode.log" &&
     /usr/bin/python3 - "$mode" "vocab-$mode.txt" <<'PY'
import collections, sys
mode, path = sys.argv[1], sys.argv[2]
counts = collections.Counter()
for line in open("mixed.txt", "rb").read().split(b"\n"):
    for w in line.split():
        if mode == "replace":
            counts[w.decode("utf-8", "replace")] += 1
        else:
            try:
                counts[w.decode("utf-8")] += 1
            except UnicodeDecodeError:
                pass
ours = {}
for line in open(path, encoding="utf-8"):
    word, count = line.rstrip("\n").rsplit(" ", 1)
    if word != "</s>":
        ours[word] = int(count)
assert ours == dict(counts), (mode, set(ours.items()) ^ set(counts.items()))
print(f"{len(ours)} words as Python counts them")
PY
  then
    pass "--invalid-utf8 $mode: $(vocab_line "$mode.log")"
  else
    bad "--invalid-utf8 $mode"; tail -3 "$mode.log"
  fi
done

# A cluster of real processes: the option reaches the nodes that count and
# read the corpus (the same vocabulary as in one process), and their errors
# name the user's file and line, staged or not.
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node worker "roles = shard, learner" "shards = 1" "learners = 2"
cluster_write "$work/cluster.conf" 300
cluster_start coord worker || { bad "the cluster did not start"; exit 1; }
submit=(submit --config "$work/cluster.conf" --keep-running -size 8 -iter 1 -min-count 1)
if timeout 120 "$gridvec" "${submit[@]}" -train mixed.txt -output "$work/cvec.txt" --invalid-utf8 replace \
     -save-vocab "$work/cvocab.txt" > cluster.log 2>&1 && cmp -s cvocab.txt vocab-replace.txt; then
  pass "--invalid-utf8 replace on the cluster: the vocabulary of one process"
else
  bad "--invalid-utf8 replace on the cluster"; tail -5 cluster.log
fi
expect_error "invalid UTF-8 found by the cluster's nodes" "corpus $work/badfile.txt has invalid UTF-8 on line 6" -- \
  "${submit[@]}" -train "$work/badfile.txt" -output "$work/out.txt"
expect_error "invalid UTF-8 in a staged directory, on the cluster" \
  "corpus $work/badtree/x/b.txt has invalid UTF-8 on line 6" -- \
  "${submit[@]}" -train "$work/badtree" -output "$work/out.txt" --work-dir "$work/stage"

echo "$fails failures"
[ $fails -eq 0 ]
