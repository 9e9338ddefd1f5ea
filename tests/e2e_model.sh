#!/usr/bin/env bash
# End to end: keeping a model and training it further, as gensim and
# fastText users do. --save-model writes both vector sets and the counts
# (docs/model.md); `gridvec export` turns it into word2vec text/binary (and
# .vec); --init continues it on a new corpus: new words are added, words
# the new corpus lacks keep their vectors exactly, and the continued model
# scores at least as well as one trained on the new corpus alone. Bad
# models and directories get one error line and replace nothing.
# Usage: e2e_model.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
zcat "$data/dev-corpus.txt.gz" > corpus.txt
head -n 9500 corpus.txt > first.txt
# The second half, with a word the first half never had.
{ tail -n +9501 corpus.txt; for i in $(seq 1 40); do echo "the zqxnewword of the city and the zqxnewword"; done; } \
  > second.txt
flags=(-threads 2 -debug 1) # the defaults users type

"$gridvec" train -train first.txt -output first.bin -binary 1 "${flags[@]}" --save-model model 2> save.log
for f in MODEL vocab.txt input.bin output.bin; do [ -s "model/$f" ] || fail "the model lacks $f"; done
cmp first.bin model/input.bin || fail "the model's input vectors differ from -output's"
head -1 model/MODEL | grep -q "gridvec-model 1" || fail "MODEL header"
echo "ok   --save-model: $(ls model | tr '\n' ' ')"

"$gridvec" export model -output first.txt.vec
"$gridvec" export model -output first-again.bin -binary 1
cmp first-again.bin first.bin || fail "export -binary 1 differs from the saved vectors"
"$gridvec" export model -output context.vec --vectors output
[ "$(head -1 context.vec)" = "$(head -1 first.txt.vec)" ] || fail "the output vectors' header"
/usr/bin/python3 -c 'import sys; from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1]); assert len(kv) > 0' first.txt.vec || fail "gensim cannot load the export"
echo "ok   export: text (.vec) loads in gensim, binary equals the saved vectors, output vectors too"

# REFERENCE CONTINUED: the new word was added, no word of the reference
# dropped, and every word the second corpus lacks kept its vector exactly.
check_continued() {
/usr/bin/python3 - "$1" "$2" second.txt <<'PY'
import struct, sys
def load(path):
    with open(path, "rb") as f:
        n, d = map(int, f.readline().split())
        vecs = {}
        for _ in range(n):
            w = b""
            while (c := f.read(1)) != b" ":
                w += c
            vecs[w.decode()] = struct.unpack(f"<{d}f", f.read(4 * d))
            f.read(1)
        return vecs
first, cont = load(sys.argv[1]), load(sys.argv[2])
seen = set(open(sys.argv[3]).read().split())
assert "zqxnewword" in cont and "zqxnewword" not in first, "the new word was not added"
missing = [w for w in first if w not in cont]
assert not missing, f"words of the model were dropped: {missing[:5]}"
absent = [w for w in first if w not in seen]
assert absent, "the test needs words the second corpus lacks"
changed = [w for w in absent if cont[w] != first[w]]
assert not changed, f"vectors of words the new corpus lacks changed: {changed[:5]}"
print(f"     {len(cont)} words ({len(cont) - len(first)} new); {len(absent)} words absent from the new corpus kept their vectors")
PY
}
"$gridvec" train -train second.txt -output continued.bin -binary 1 "${flags[@]}" --init model 2> init.log
grep -q "continuing the model in" init.log || fail "no word of continuing: $(cat init.log)"
"$gridvec" train -train second.txt -output scratch.bin -binary 1 "${flags[@]}" 2> /dev/null
check_continued first.bin continued.bin
score() { "$gridvec" eval "$1" --analogies "$data/questions-words.txt" --similarity "$data/wordsim353.tsv" --json; }
/usr/bin/python3 - "$(score continued.bin)" "$(score scratch.bin)" <<'PY'
import json, sys
cont, scratch = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"     continued: analogy {cont['analogy']:.4f} wordsim {cont['wordsim']:.4f}; "
      f"second half alone: analogy {scratch['analogy']:.4f} wordsim {scratch['wordsim']:.4f}")
assert cont["analogy"] >= scratch["analogy"] - 0.005 and cont["wordsim"] >= scratch["wordsim"] - 0.03, \
    "continuing the model is worse than starting over"
assert cont["analogy"] >= 0.012 and cont["wordsim"] >= 0.25, "the continued model is below the floor"
PY
echo "ok   --init: new words added, the rest kept, quality at least that of the new corpus alone"

# --init from a checkpoint of a run (its directory: the newest checkpoint)
# and from a plain vectors file (text, as gensim and fastText write it).
"$gridvec" train -train first.txt -output ck-run.txt "${flags[@]}" -debug 0 --checkpoint-dir ck --checkpoint-every 300000w
ckpt=$(ls -d ck/ckpt-* | sort | tail -1)
"$gridvec" export "$ckpt" -output ckpt.bin -binary 1 2> /dev/null
"$gridvec" train -train second.txt -output from-ckpt.bin -binary 1 "${flags[@]}" --init ck 2> init-ck.log
grep -q "the checkpoint .*$(basename "$ckpt") (.* words) as a model in" init-ck.log || fail "no word of the checkpoint: $(cat init-ck.log)"
check_continued ckpt.bin from-ckpt.bin
"$gridvec" train -train second.txt -output from-vec.bin -binary 1 "${flags[@]}" --init first.txt.vec 2> init-vec.log
grep -q "the vectors .*first.txt.vec (.* words) as a model in" init-vec.log || fail "no word of the vectors: $(cat init-vec.log)"
"$gridvec" export model -output first-text.bin -binary 1 2> /dev/null
/usr/bin/python3 - first.txt.vec first-text.bin <<'PY'
# The reference for --init first.txt.vec is the text file's values as float32.
import struct, sys
lines = open(sys.argv[1]).read().split("\n")
n, d = map(int, lines[0].split())
with open(sys.argv[2], "wb") as out:
    out.write(f"{n} {d}\n".encode())
    for line in lines[1:n + 1]:
        parts = line.split()
        out.write(parts[0].encode() + b" " + struct.pack(f"<{d}f", *map(float, parts[1:])) + b"\n")
PY
check_continued first-text.bin from-vec.bin
/usr/bin/python3 - "$(score from-ckpt.bin)" "$(score from-vec.bin)" <<'PY'
import json, sys
ck, vec = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"     from the checkpoint: analogy {ck['analogy']:.4f} wordsim {ck['wordsim']:.4f}; "
      f"from the vectors file: analogy {vec['analogy']:.4f} wordsim {vec['wordsim']:.4f}")
for name, s in (("checkpoint", ck), ("vectors file", vec)):
    assert s["analogy"] >= 0.012 and s["wordsim"] >= 0.25, f"continuing from the {name} is below the floor"
PY
echo "ok   --init from a checkpoint and from a vectors file: new words added, the rest kept"

# --resume of an --init job: the first run's row map is used again; when it
# and a part's id file are gone, both are made again through partitions
# that read the words back from the vocabulary file (no node loads them).
wait_line() { # FILE PATTERN PID: waits up to 60 s for the line
  for _ in $(seq 1 600); do grep -q "$2" "$1" && return 0; kill -0 "$3" 2> /dev/null || break; sleep 0.1; done
  grep -q "$2" "$1" || { cat "$1"; fail "no '$2'"; }
}
"$gridvec" train -train second.txt -output resumed.bin -binary 1 -threads 2 -iter 10 --init model \
  --checkpoint-dir ck-init --checkpoint-every 100000w 2> run.log &
pid=$!
wait_line run.log "checkpoint 1 written" $pid
kill -9 $pid; wait $pid 2> /dev/null || true
[ -s ck-init/work/init-rows.map ] || fail "no row map in the checkpoint directory's work directory"
"$gridvec" train --resume ck-init -output resumed.bin 2> resume1.log &
pid=$!
wait_line resume1.log "resumed from checkpoint" $pid
kill -9 $pid; wait $pid 2> /dev/null || true
grep -q "placed by the row map .*init-rows.map" resume1.log || { cat resume1.log; fail "the row map was not used again"; }
grep -q "mapped to word ids" resume1.log && fail "the row map was made again although it was there"
rm ck-init/work/init-rows.map ck-init/work/part-1.ids
"$gridvec" train --resume ck-init -output resumed.bin 2> resume2.log || { cat resume2.log; fail "the resumed job failed"; }
for want in "mapped to word ids" "placed by the row map" "preprocessing part 1 again: .*part-1.ids is gone"; do
  grep -q "$want" resume2.log || { cat resume2.log; fail "resumed without the row map and a part: no '$want'"; }
done
[ -s resumed.bin ] || fail "the resumed job wrote no vectors"
echo "ok   --resume of an --init job: the row map used again, and made again with a part's ids when gone"

# Saving over a model replaces it whole; the bad cases replace nothing.
"$gridvec" train -train second.txt -output c2.txt "${flags[@]}" -debug 0 --init model --save-model model2
cp -r model2 model2.before
expect_error() { # NAME WANT ARGS...
  local name=$1 want=$2; shift 2
  if "$gridvec" train -train second.txt -output bad.txt "${flags[@]}" -debug 0 "$@" 2> err; then
    fail "$name: accepted"
  fi
  grep -q -- "$want" err || { cat err; fail "$name: the error does not say '$want'"; }
  [ "$(grep -vc '^\[' err)" = 1 ] || { cat err; fail "$name: not one error line"; }
  [ ! -e bad.txt ] || fail "$name: wrote vectors"
  echo "ok   $name: $(grep -v '^\[' err)"
}
expect_error "--init of no model" "is not a gridvec model" --init nowhere
expect_error "--init of another -size" "give -size 100" --init model -size 50
: > afile
expect_error "--save-model over a file" "is a file" --save-model afile
expect_error "--save-model = --init" "the same directory" --init model2 --save-model model2
diff -r model2 model2.before > /dev/null || fail "a failed job changed the saved model"
ls -d model2.partial-* model2.old-* 2> /dev/null && fail "a partial model was left behind"
echo "gridvec keeps and continues models"
