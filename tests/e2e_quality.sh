#!/usr/bin/env bash
# End to end: `gridvec train` on the real dev corpus (a small configuration),
# scored on WordSim-353 and the analogy set by gridvec eval (whose numbers
# are gensim's: e2e.eval checks, in a seventh of gensim's time) against a
# floor that word2vec.c passes with the same flags
# (scripts/bench) and random vectors fail (checked here too).
# Usage: e2e_quality.sh GRIDVEC_BINARY SHARDS [extra gridvec flags]
set -euo pipefail
gridvec=$1; shards=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
zcat "$data/dev-corpus.txt.gz" > "$work/corpus.txt"
# word2vec.c scores 0.0175 / 0.245 with these flags and -sample 1e-4, and
# 0.033 / 0.33 with the default -sample 1e-3 (scripts/bench,
# scripts/quality-sweep); random vectors score 0 / 0 +- 0.06. CBOW is
# weaker on this small corpus. SAMPLE (default: -sample's own default,
# what users type) picks the subsampling.
floor_analogy=${FLOOR_ANALOGY:-0.010}
floor_wordsim=${FLOOR_WORDSIM:-0.18}
sample=()
[ -z "${SAMPLE:-}" ] || sample=(-sample "$SAMPLE")

"$gridvec" train -train "$work/corpus.txt" -output "$work/vectors.txt" -size 100 -window 5 \
  -negative 5 "${sample[@]}" -min-count 5 -iter 5 -threads 2 --shards "$shards" \
  --report "$work/report.json" "$@"
score() { "$gridvec" eval "$1" --analogies "$data/questions-words.txt" --similarity "$data/wordsim353.tsv" "${@:2}"; }
score "$work/vectors.txt" --floor-analogy $floor_analogy --floor-wordsim $floor_wordsim

# The report has the promised fields.
# Fused learners (the default) train on the shards' memory: no messages.
fused=1
for a in "$@"; do [ "$a" = "0" ] && [ "${prev:-}" = "--fused" ] && fused=0; prev=$a; done
/usr/bin/python3 - "$work/report.json" "$fused" "$*" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
fused = sys.argv[2] == "1"
# --partition words: what the word partitions exchanged is counted.
if "--partition words" in sys.argv[3]:
    assert r["partition"] == "words", r["partition"]
    batch = r["messages"]["word_split_batch"]
    assert batch["count"] > 0 and batch["bytes_per_trained_word"] > 0, batch
for k in ["raw_words", "trained_words", "seconds", "words_per_second", "vocab_size",
          "peak_rss_bytes", "final_loss", "messages"]:
    assert k in r, k
assert r["raw_words"] == 1006227, r["raw_words"]
assert "error" not in r, r["error"]
assert 0 < r["final_loss"] < 5, r["final_loss"]
for kind in ["dotprod_request", "dotprod_reply", "adjust_request", "adjust_reply"]:
    if fused:
        assert r["messages"][kind]["count"] == 0, kind
    else:
        assert r["messages"][kind]["count"] > 0 and r["messages"][kind]["bytes"] > 0, kind
print("report ok:", r["words_per_second"], "words/s")
PY

# The same floor rejects random vectors of the same vocabulary.
/usr/bin/python3 - "$work/vectors.txt" "$work/random.txt" <<'PY'
import random, sys
random.seed(3)
lines = open(sys.argv[1]).read().splitlines()
n, d = map(int, lines[0].split())
with open(sys.argv[2], "w") as f:
    f.write(f"{n} {d}\n")
    for line in lines[1:]:
        f.write(line.split(" ", 1)[0] + " " + " ".join(f"{random.gauss(0, 1):.4f}" for _ in range(d)) + "\n")
PY
if score "$work/random.txt" --floor-analogy $floor_analogy --floor-wordsim $floor_wordsim; then
  echo "random vectors passed the quality floor: the floor is meaningless" >&2
  exit 1
fi
echo "quality floor holds for shards=$shards"
