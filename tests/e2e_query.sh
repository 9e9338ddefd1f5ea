#!/usr/bin/env bash
# End to end: gridvec nearest (--positive/--negative), analogy and
# doesnt-match on a small trained vectors file, text and binary, give the
# words and scores (to 4 decimals) of gensim's KeyedVectors.most_similar and
# doesnt_match on the same file; with no words they read their questions
# from standard input; a word outside the vocabulary is one error line.
# Usage: e2e_query.sh GRIDVEC_BINARY
set -uo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
pass() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails+1)); }

zcat "$here/data/dev-corpus.txt.gz" | head -n 20000 > corpus.txt
"$gridvec" train -train corpus.txt -output vec.txt -size 32 -iter 2 -threads 2 -min-count 5 2> train.log ||
  { bad "training"; tail -3 train.log; exit 1; }
"$gridvec" train -train corpus.txt -output vec.bin -binary 1 -size 32 -iter 1 -threads 2 -min-count 5 2> train.log ||
  { bad "training (binary)"; tail -3 train.log; exit 1; }

# Our answers, as printed, for gensim to check.
{
  for f in vec.txt vec.bin; do
    echo "== $f nearest king"
    "$gridvec" nearest "$f" king -k 5
    echo "== $f nearest +king,woman -man"
    "$gridvec" nearest "$f" --positive king,woman --negative man -k 5
    echo "== $f nearest +city -country"
    "$gridvec" nearest "$f" --positive city --negative country -k 7
    echo "== $f analogy man king woman"
    "$gridvec" analogy "$f" man king woman -k 5
    echo "== $f doesnt-match"
    "$gridvec" doesnt-match "$f" he she it city
  done
} > ours.txt 2> ours.err || { bad "a query failed: $(cat ours.err)"; }

/usr/bin/python3 - <<'PY' && pass "nearest, analogy, doesnt-match agree with gensim (words, scores to 4 decimals)" || bad "gensim disagrees"
import re
from gensim.models import KeyedVectors
blocks = {}
current = None
for line in open("ours.txt", encoding="utf-8"):
    if line.startswith("== "):
        current = line[3:].strip()
        blocks[current] = []
    else:
        blocks[current].append(line.rstrip("\n"))

def rows(lines):
    out = []
    for l in lines:
        m = re.match(r"^  (\S+)\s+(-?[0-9.]+)$", l)
        if m:
            out.append((m.group(1), float(m.group(2))))
    return out

def same(name, ours, theirs):
    assert [w for w, _ in ours] == [w for w, _ in theirs], (name, ours, theirs)
    for (w, a), (_, b) in zip(ours, theirs):
        assert abs(a - round(b, 4)) <= 1.01e-4, (name, w, a, b)
    print(f"{name}: {[w for w, _ in ours]}")

checked = 0
for f, binary in (("vec.txt", False), ("vec.bin", True)):
    kv = KeyedVectors.load_word2vec_format(f, binary=binary)
    same(f + " nearest king", rows(blocks[f"{f} nearest king"]), kv.most_similar("king", topn=5))
    same(f + " +king,woman -man", rows(blocks[f"{f} nearest +king,woman -man"]),
         kv.most_similar(positive=["king", "woman"], negative=["man"], topn=5))
    same(f + " +city -country", rows(blocks[f"{f} nearest +city -country"]),
         kv.most_similar(positive=["city"], negative=["country"], topn=7))
    same(f + " analogy", rows(blocks[f"{f} analogy man king woman"]),
         kv.most_similar(positive=["king", "woman"], negative=["man"], topn=5))
    lines = blocks[f"{f} doesnt-match"]
    odd = kv.doesnt_match(["he", "she", "it", "city"])
    assert lines[0] == odd, (lines[0], odd)
    ranked = sorted(kv.rank_by_centrality(["he", "she", "it", "city"]))
    same(f + " doesnt-match ranking", rows(lines[1:]), [(w, float(s)) for s, w in ranked])
    checked += 1
assert checked == 2
PY

# Standard input, one question a line, when no words are given.
printf 'king\nking - man + woman\n\nEXIT\nnever asked\n' | "$gridvec" nearest vec.txt -k 3 > interactive.txt 2>&1
if [ "$(grep -c '^  ' interactive.txt)" = 6 ] && grep -q '^king:$' interactive.txt &&
   grep -q '^king + woman - man:$' interactive.txt && ! grep -q "never" interactive.txt; then
  pass "nearest reads queries from standard input"
else
  bad "nearest from standard input:"; cat interactive.txt
fi
printf 'man king woman\nhe she it city\n' | "$gridvec" analogy vec.txt -k 2 > interactive.txt 2> interactive.err
if [ "$(grep -c '^  ' interactive.txt)" = 2 ] && grep -q "three words" interactive.err; then
  pass "analogy reads triples from standard input; a line of four words is refused"
else
  bad "analogy from standard input:"; cat interactive.txt interactive.err
fi
printf 'he she it city\n' | "$gridvec" doesnt-match vec.bin > interactive.txt 2>&1
[ "$(head -1 interactive.txt)" = "$(head -1 < <("$gridvec" doesnt-match vec.bin he she it city))" ] &&
  pass "doesnt-match reads lists from standard input" || { bad "doesnt-match from standard input"; cat interactive.txt; }

# Errors: one line, a non-zero exit.
one_error() { # NAME WANT ARGS...
  local name=$1 want=$2; shift 2
  "$gridvec" "$@" > /dev/null 2> err.txt < /dev/null
  local code=$?
  if [ $code -ne 0 ] && [ "$(grep -c . err.txt)" = 1 ] && grep -qF -- "$want" err.txt; then
    pass "$name: $(cat err.txt)"
  else
    bad "$name: exit $code, $(cat err.txt)"
  fi
}
one_error "an unknown word" "'zzzqqq' is not in the vocabulary" nearest vec.txt --positive king,zzzqqq
one_error "analogy of two words" "three words" analogy vec.txt man king
one_error "words both ways" "not both" nearest vec.txt king --positive queen
one_error "no such file" "cannot" nearest nope.txt king
one_error "a bad -k" "-k needs a positive number" analogy vec.txt man king woman -k 0
"$gridvec" doesnt-match vec.txt he she zzzqqq city > out.txt 2> err.txt &&
  grep -q "left out, not in the vocabulary: zzzqqq" err.txt && [ "$(wc -l < out.txt)" = 4 ] &&
  pass "doesnt-match leaves out unknown words, as gensim" || { bad "doesnt-match with an unknown word"; cat out.txt err.txt; }

echo "$fails failures"
[ $fails -eq 0 ]
