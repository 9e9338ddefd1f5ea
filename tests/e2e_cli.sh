#!/usr/bin/env bash
# End to end: bad input of every kind gets one clear error line, a non-zero
# exit, no crash and no output file; an existing output survives a failed
# run; binary output loads in gensim; --help documents every option.
# Usage: e2e_cli.sh GRIDVEC_BINARY
set -uo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0

# expect_error NAME EXPECTED_SUBSTRING -- ARGS...
expect_error() {
  local name=$1 want=$2; shift 3
  rm -f out.txt
  timeout 120 "$gridvec" "$@" > stdout.txt 2> stderr.txt
  local code=$?
  local errline
  errline=$(grep -v '^\[' stderr.txt || true) # drop progress/log lines
  if [ $code -eq 0 ] || [ $code -ge 124 ]; then
    echo "FAIL $name: exit $code"; fails=$((fails+1))
  elif [ "$(printf '%s\n' "$errline" | grep -c .)" != 1 ]; then
    echo "FAIL $name: expected one error line, got:"; cat stderr.txt; fails=$((fails+1))
  elif ! grep -q -- "$want" <<<"$errline"; then
    echo "FAIL $name: '$errline' does not mention '$want'"; fails=$((fails+1))
  elif ls out.txt* >/dev/null 2>&1; then
    echo "FAIL $name: left an output file"; fails=$((fails+1))
  else
    echo "ok   $name: $errline"
  fi
}

for i in $(seq 1 300); do echo "the cat sat on the mat with the dog and the bird $i"; done > good.txt
: > empty.txt
printf '   \n\t\n' > blank.txt
head -c 200000 /dev/urandom > garbage.bin
printf 'good words\ncaf\xc3\x28 bad\n' > badutf.txt
head -c 100000000 /dev/zero | tr '\0' 'x' > oneword.txt   # one 100 MB "word"

expect_error missing-corpus "cannot read corpus" -- train -train nope.txt -output out.txt
expect_error empty-corpus "is empty" -- train -train empty.txt -output out.txt
expect_error blank-corpus "no words" -- train -train blank.txt -output out.txt
expect_error binary-garbage "garbage.bin has" -- train -train garbage.bin -output out.txt
expect_error invalid-utf8 "invalid UTF-8" -- train -train badutf.txt -output out.txt
expect_error 100mb-line "longer than" -- train -train oneword.txt -output out.txt
expect_error empty-vocab "min-count" -- train -train good.txt -output out.txt -min-count 100000
expect_error unknown-flag "unknown option" -- train -train good.txt -output out.txt -nce 1
expect_error bad-number "-size" -- train -train good.txt -output out.txt -size ten
expect_error missing-value "needs a value" -- train -train good.txt -output out.txt -size
expect_error bad-flag-value "-cbow" -- train -train good.txt -output out.txt -cbow 3
expect_error no-output "missing -output" -- train -train good.txt
expect_error unwritable-output "cannot write" -- train -train good.txt -output /nonexistent/dir/out.txt
expect_error output-is-dir "directory" -- train -train good.txt -output "$work"
expect_error too-many-shards "shards" -- train -train good.txt -output out.txt -size 4 --shards 5
expect_error unknown-command "unknown command" -- frobnicate
# Output over the corpus (the same path, a hard link, a symlink) is refused
# and the corpus is left as it was.
cp good.txt corpus-copy.txt
ln -f corpus-copy.txt hard-link.txt
ln -sf corpus-copy.txt sym-link.txt
expect_error output-is-corpus "is the corpus" -- train -train corpus-copy.txt -output corpus-copy.txt
expect_error output-is-hard-link "is the corpus" -- train -train corpus-copy.txt -output hard-link.txt
expect_error output-is-symlink "is the corpus" -- train -train sym-link.txt -output corpus-copy.txt
expect_error report-is-corpus "is the corpus" -- train -train corpus-copy.txt -output out.txt --report ./corpus-copy.txt
if ! cmp -s good.txt corpus-copy.txt; then echo "FAIL: the corpus changed"; fails=$((fails+1)); fi
expect_error checkpoint-every-alone "needs --checkpoint-dir" -- train -train good.txt -output out.txt --checkpoint-every 10s
expect_error bad-checkpoint-every "checkpoint-every" -- train -train good.txt -output out.txt --checkpoint-dir ck --checkpoint-every 10x
expect_error resume-nothing "no usable checkpoint" -- train --resume "$work/no-such-dir"
expect_error resume-with-flags "only -output" -- train --resume "$work/no-such-dir" -size 10

# A failed run leaves an existing output untouched.
echo precious > keep.txt
"$gridvec" train -train badutf.txt -output keep.txt 2>/dev/null
if [ "$(cat keep.txt)" != precious ] || ls keep.txt.tmp* >/dev/null 2>&1; then
  echo "FAIL existing output damaged by a failed run"; fails=$((fails+1))
else
  echo "ok   existing output kept"
fi

# Checkpoints: a job interrupted by SIGINT leaves its checkpoints and no
# vectors; its directory is not reused by accident, and a damaged manifest
# is named when resuming.
timeout -s INT 3 "$gridvec" train -train good.txt -output ck.txt -size 8 -iter 100000 -threads 2 \
  -min-count 1 --checkpoint-dir ck --checkpoint-every 1000w 2> interrupted.err
if ls -d ck/ckpt-* >/dev/null 2>&1 && [ ! -e ck.txt ] && grep -q "interrupted" interrupted.err; then
  echo "ok   checkpoints written, no vectors after SIGINT"
else
  echo "FAIL checkpoints"; cat interrupted.err; fails=$((fails+1))
fi
expect_error reused-checkpoint-dir "already holds checkpoints" -- train -train good.txt -output out.txt --checkpoint-dir ck
for m in ck/ckpt-*/MANIFEST; do printf 'garbage' >> "$m"; done
expect_error damaged-manifest "no usable checkpoint" -- train --resume ck

# A 100 MB line of real words is not an error: it is split into sentences
# of 1000 words and trained with bounded memory.
python3 -c "
import random; random.seed(1); w=['w%d'%i for i in range(30)]
print(' '.join(random.choice(w) for _ in range(2_000_000)))" > longline.txt
if "$gridvec" train -train longline.txt -output long.txt -size 8 -iter 1 -threads 2 2>/dev/null \
   && [ "$(head -1 long.txt)" = "30 8" ]; then
  echo "ok   long line trains"
else
  echo "FAIL long line"; fails=$((fails+1))
fi

# Binary output is loadable by gensim; --help lists every option with defaults.
"$gridvec" train -train good.txt -output vec.bin -binary 1 -size 16 -min-count 1 -iter 2 -threads 2 2>/dev/null
if /usr/bin/python3 -c "
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format('vec.bin', binary=True)
assert kv.vector_size == 16 and 'cat' in kv.key_to_index, kv
"; then echo "ok   binary loads in gensim"; else echo "FAIL binary output"; fails=$((fails+1)); fi
# A run that blows up (the protocol path without its safeguards, on the dev
# corpus's wiki tables) stops with one line, writes no vectors, and its
# report says why with a null loss.
zcat "$here/data/dev-corpus.txt.gz" > dev.txt
expect_error diverged "training diverged" -- train -train dev.txt -output out.txt -sample 0 --fused 0 \
  --refresh-weights 0 --interleave 1 -threads 2 --report report.json
if /usr/bin/python3 -c "
import json
r = json.load(open('report.json'))
assert r['final_loss'] is None and 'training diverged' in r['error'], r
"; then echo "ok   the diverged run's report: null loss, the error"; else echo "FAIL diverged report"; fails=$((fails+1)); fi

# --explain: the partition model's table for the job, both layouts and the
# choice, and the memory plan against this machine's memory, then exit 0
# with nothing trained or written.
rm -f out.txt explain-vocab.txt
if "$gridvec" train -train good.txt -output out.txt -min-count 1 --shards 4 -save-vocab explain-vocab.txt \
     --explain > explain.txt 2> explain.err &&
   grep -q "bytes per trained word" explain.txt && grep -q "columns" explain.txt && grep -q "words" explain.txt &&
   grep -q "^choice: columns" explain.txt && [ ! -e out.txt ] && [ ! -e explain-vocab.txt ] &&
   grep -q "^memory plan: 4 shards$" explain.txt && grep -q "^fits: every node's need is within its budget$" explain.txt &&
   ! grep -q "training:" explain.err; then
  echo "ok   --explain: $(grep '^choice' explain.txt)"
else
  echo "FAIL --explain"; cat explain.txt explain.err; fails=$((fails+1))
fi
expect_error bad-partition "--partition" -- train -train good.txt -output out.txt --partition rows
expect_error bad-link-speed "--link-speed" -- train -train good.txt -output out.txt --link-speed fast

help=$("$gridvec" train --help)
for opt in train output size window negative sample min-count iter alpha threads binary cbow max-vocab shards minibatch report; do
  grep -q -- "-$opt " <<<"$help" || { echo "FAIL --help lacks -$opt"; fails=$((fails+1)); }
done
[ "$(grep -c '\]$' <<<"$help")" -ge 16 ] || { echo "FAIL --help lacks defaults"; fails=$((fails+1)); }
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$help")" -le 80 ] ||
  { echo "FAIL --help has lines over 80 columns"; fails=$((fails+1)); }

# -train as real corpora come: several files, a directory, gzip, stdin.
# Each trains on the same text as the one plain file: the same vocabulary.
dev="$here/data/dev-corpus.txt.gz"
zcat "$dev" | head -n 4000 > part1.txt
zcat "$dev" | sed -n '4001,8000p' > part2.txt
cat part1.txt part2.txt > whole.txt
gzip -c part2.txt > part2.txt.gz
mkdir -p parts && cp part1.txt parts/a.txt && cp part2.txt.gz parts/b.gz
vocab_line() { grep -o 'vocabulary: [0-9]* words ([^)]*)' "$1"; }
small=(-output inputs.txt -size 20 -iter 1 -threads 1)
"$gridvec" train -train whole.txt "${small[@]}" 2> plain.log
want=$(vocab_line plain.log)
for spec in "part1.txt,part2.txt.gz" parts; do
  if "$gridvec" train -train "$spec" "${small[@]}" 2> inputs.log && [ "$(vocab_line inputs.log)" = "$want" ] &&
     grep -q "staged" inputs.log; then
    echo "ok   -train $spec: $want"
  else
    echo "FAIL -train $spec: $(vocab_line inputs.log) (want $want)"; tail -3 inputs.log; fails=$((fails+1))
  fi
done
if cat part1.txt part2.txt | "$gridvec" train -train - "${small[@]}" 2> inputs.log &&
   [ "$(vocab_line inputs.log)" = "$want" ]; then
  echo "ok   -train - (stdin): $want"
else
  echo "FAIL -train -: $(vocab_line inputs.log)"; fails=$((fails+1))
fi
ls /tmp/gridvec-corpus-* >/dev/null 2>&1 && { echo "FAIL a staged corpus was left in /tmp"; fails=$((fails+1)); }
head -c 20000 part2.txt.gz > cut.gz
expect_error "a gzip file cut short" "not a readable gzip file" -- train -train part1.txt,cut.gz -output out.txt
expect_error "an empty corpus directory" "holds no files" -- train -train "$(mkdir -p nothing && echo nothing)" -output out.txt
expect_error "output over one of several inputs" "is the corpus" -- train -train part1.txt,part2.txt -output part2.txt

echo "$fails failures"
[ $fails -eq 0 ]
