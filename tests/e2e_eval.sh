#!/usr/bin/env bash
# End to end: `gridvec eval` prints gensim's numbers. Vectors files made to
# be hard to score alike (words in mixed case, some spelled twice in
# different cases, text and binary, analogies that are right only some of
# the time) are scored by gridvec eval and by gensim (scripts/eval.py) on
# the shared questions-words.txt and WordSim-353; the two must agree to 3
# decimals. Bad input gets one error line.
# Usage: e2e_eval.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$data" "$work" <<'PY'
import random, struct, sys
data, work = sys.argv[1], sys.argv[2]
rng = random.Random(7)
words = []
for line in open(f"{data}/questions-words.txt"):
    if not line.startswith(":"):
        words += line.split()
for line in open(f"{data}/wordsim353.tsv"):
    if not line.startswith("#"):
        words += line.split("\t")[:2]
seen, vocab = set(), []
for w in words:
    if w.lower() not in seen:
        seen.add(w.lower()); vocab.append(w.lower())
rng.shuffle(vocab)
vocab = vocab[: int(len(vocab) * 0.8)]          # some questions are skipped
dim = 24
vec = {w: [rng.gauss(0, 1) for _ in range(dim)] for w in vocab}
# Analogies that hold, with noise: b - a + c lands near the answer often.
offset = {}
for line in open(f"{data}/questions-words.txt"):
    if line.startswith(":"):
        section = line; offset[section] = [rng.gauss(0, 1) for _ in range(dim)]
        continue
    a, b, c, d = line.lower().split()
    if all(x in vec for x in (a, b, c, d)) and rng.random() < 0.5:
        vec[b] = [x + o + rng.gauss(0, 1.1) for x, o in zip(vec[a], offset[section])]
        vec[d] = [x + o + rng.gauss(0, 1.1) for x, o in zip(vec[c], offset[section])]
# Similar pairs closer than dissimilar ones, roughly.
for line in open(f"{data}/wordsim353.tsv"):
    if line.startswith("#"):
        continue
    a, b, score = line.lower().split("\t")
    if a in vec and b in vec and rng.random() < 0.5:
        t = float(score) / 10
        vec[b] = [t * x + (1 - t) * y for x, y in zip(vec[a], vec[b])]
rows = []
for w in vocab:
    r = rng.random()
    spelled = w.upper() if r < 0.1 else w.capitalize() if r < 0.2 else w
    rows.append((spelled, vec[w]))
    if r > 0.95:   # a second spelling, with its own vector, later in the file
        rows.append((w.capitalize(), [rng.gauss(0, 1) for _ in range(dim)]))
rows.append(("zero", [0.0] * dim))
with open(f"{work}/vectors.txt", "w") as f:
    f.write(f"{len(rows)} {dim}\n")
    for w, v in rows:
        f.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")
with open(f"{work}/vectors.bin", "wb") as f:
    f.write(f"{len(rows)} {dim}\n".encode())
    for w, v in rows:
        f.write(w.encode() + b" " + struct.pack(f"<{dim}f", *v) + b"\n")
PY

fails=0
compare() { # FILE [--binary]
  local file=$1; shift
  local ours theirs
  ours=$("$gridvec" eval "$file" --analogies "$data/questions-words.txt" --similarity "$data/wordsim353.tsv" --json)
  theirs=$(/usr/bin/python3 "$here/../scripts/eval.py" "$file" "$@" --json)
  if /usr/bin/python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"gridvec eval: analogy {ours['analogy']:.4f} wordsim {ours['wordsim']:.4f}   "
      f"gensim: analogy {theirs['analogy']:.4f} wordsim {theirs['wordsim']:.4f}")
assert ours["analogy"] > 0.05, "the test's vectors should answer some analogies"
ok = abs(ours["analogy"] - theirs["analogy"]) < 0.0005 and abs(ours["wordsim"] - theirs["wordsim"]) < 0.0005 \
     and abs(ours["wordsim_oov_percent"] - theirs["wordsim_oov_percent"]) < 0.01
sys.exit(0 if ok else 1)
PY
  then echo "ok   $file"; else echo "FAIL $file: gridvec eval and gensim disagree"; fails=$((fails+1)); fi
}
compare "$work/vectors.txt"
compare "$work/vectors.bin" --binary

# The same vectors with a smaller vocabulary for the analogies: fewer asked.
small=$("$gridvec" eval "$work/vectors.txt" --analogies "$data/questions-words.txt" --restrict-vocab 200 --sections)
echo "$small" | head -3
grep -q "analogy" <<<"$small" && grep -q "capital-common-countries" <<<"$small" || { echo "FAIL --sections"; fails=$((fails+1)); }

expect_error() { # NAME WANT ARGS...
  local name=$1 want=$2; shift 2
  local code=0
  "$gridvec" eval "$@" > "$work/out" 2> "$work/err" || code=$?
  if [ $code = 0 ] || [ "$(grep -c . "$work/err")" != 1 ] || ! grep -q -- "$want" "$work/err"; then
    echo "FAIL $name: exit $code:"; cat "$work/err"; fails=$((fails+1))
  else
    echo "ok   $name: $(cat "$work/err")"
  fi
}
printf 'a b c d\n' > "$work/nosection.txt"
printf '# nothing\n' > "$work/nopairs.tsv"
expect_error "no vectors file" "which vectors file" --analogies "$data/questions-words.txt"
expect_error "nothing to score" "nothing to score" "$work/vectors.txt"
expect_error "missing vectors" "$work/none.txt" "$work/none.txt" --analogies "$data/questions-words.txt"
expect_error "not vectors" "" "$data/questions-words.txt" --analogies "$data/questions-words.txt"
expect_error "missing questions" "cannot read" "$work/vectors.txt" --analogies "$work/none.txt"
expect_error "question before a section" "before the first section" "$work/vectors.txt" --analogies "$work/nosection.txt"
expect_error "no pairs" "has no word pairs" "$work/vectors.txt" --similarity "$work/nopairs.tsv"
expect_error "bad restrict" "positive number" "$work/vectors.txt" --analogies x --restrict-vocab 0
expect_error "bad floor" "--floor-analogy needs a number" "$work/vectors.txt" --analogies x --floor-analogy high
expect_error "floor without its test" "--floor-wordsim needs --similarity" "$work/vectors.txt" \
  --analogies "$data/questions-words.txt" --floor-wordsim 0.1

# Floors: met, exit 0; missed, exit 1 with one FAIL line per floor missed.
floors=("$work/vectors.txt" --analogies "$data/questions-words.txt" --similarity "$data/wordsim353.tsv")
if "$gridvec" eval "${floors[@]}" --floor-analogy 0.05 --floor-wordsim -1 > /dev/null 2> "$work/err"; then
  echo "ok   floors met"
else
  echo "FAIL floors that the vectors meet: $(cat "$work/err")"; fails=$((fails+1))
fi
code=0
"$gridvec" eval "${floors[@]}" --floor-analogy 0.99 --floor-wordsim 0.999 > /dev/null 2> "$work/err" || code=$?
if [ $code = 1 ] && [ "$(grep -c '^FAIL: .* is below the floor' "$work/err")" = 2 ]; then
  echo "ok   floors missed: $(tr '\n' ' ' < "$work/err")"
else
  echo "FAIL floors missed: exit $code: $(cat "$work/err")"; fails=$((fails+1))
fi

[ $fails = 0 ] || { echo "$fails failed"; exit 1; }
echo "gridvec eval agrees with gensim"
