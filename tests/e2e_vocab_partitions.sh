#!/usr/bin/env bash
# The vocabulary counted over two partitions on a real loopback cluster:
# two nodes with the vocabulary role, each counting its words in about
# 1 MiB (`count-memory`), so both spill sorted runs to their `count-dir`.
# The vocabulary (-save-vocab) equals the one gridvec train counts in one
# process: the same words with the same counts, most frequent first, the
# same line-end count; only the order among words of equal count differs
# (partition by partition: docs/vocabulary.md). -max-vocab cuts through a
# count, so the partitions find the cut together; the words kept are still
# the same. The spill directories are empty afterwards.
# The learner node and the shard node never open the vocabulary file
# (strace records every file they open): the learner turns its parts into
# ids through the partitions (the join), and both load only the counts
# beside the file. A second job on the
# whole dev corpus still passes the quality floor.
# Usage: e2e_vocab_partitions.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
gridvec=$1
cluster_init_dev "$gridvec"
head -c 4000000 "$work/corpus.txt" > "$work/small.txt"
mkdir -p "$work/spill-a" "$work/spill-b"

cluster_node coord "roles = coordinator, vocabulary, exporter" \
  "count-memory = 1M" "count-dir = $work/spill-a"
cluster_node learn "roles = learner, vocabulary" "learners = 1" "count-memory = 1M" "count-dir = $work/spill-b"
cluster_node shard "roles = shard" "shards = 1"
cluster_write "$work/cluster.conf" 300
cluster_start coord
cluster_start_traced learn "$work/learn.opens"
cluster_start_traced shard "$work/shard.opens"

fail() { cluster_fail "$@"; }
flags=(-size 8 -iter 1 -min-count 2 -max-vocab 6000)
timeout 120 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/vectors.txt" \
  "${flags[@]}" -save-vocab "$work/cluster.vocab" > "$work/submit.log" 2>&1 || fail "the job failed"
cluster_expect_line "vocabulary: 6000 words .*counted over 2 partitions, [0-9]+ sorted runs spilled to disk"
timeout 60 "$gridvec" train -train "$work/small.txt" -output "$work/single.txt" "${flags[@]}" -threads 2 \
  -save-vocab "$work/single.vocab" > "$work/single.log" 2>&1 || fail "gridvec train failed: $(tail -3 "$work/single.log")"

[ "$(head -1 "$work/cluster.vocab")" = "$(head -1 "$work/single.vocab")" ] || fail "the line-end counts differ"
[ "$(wc -l < "$work/cluster.vocab")" = 6001 ] || fail "the cluster's vocabulary has $(wc -l < "$work/cluster.vocab") lines"
cmp -s <(sort "$work/cluster.vocab") <(sort "$work/single.vocab") ||
  fail "the words or counts differ: $(diff <(sort "$work/cluster.vocab") <(sort "$work/single.vocab") | head -5)"
tail -n +2 "$work/cluster.vocab" | awk 'NR > 1 && $2 > last { bad = 1 } { last = $2 } END { exit bad }' ||
  fail "the cluster's vocabulary is not most frequent first"
# The cut falls among words of one count (else -max-vocab tested nothing).
last=$(tail -1 "$work/single.vocab" | cut -d' ' -f2)
[ "$(grep -c " $last\$" "$work/single.vocab")" -gt 1 ] || fail "the cut did not fall among equal counts"
[ -z "$(find "$work/spill-a" "$work/spill-b" -type f)" ] || fail "spilled runs were left behind"
[ -s "$work/vectors.txt" ] || fail "no vectors were written"
first=$(grep -o 'vocabulary: .*' "$work/submit.log")

# The whole dev corpus, for quality: the ids came through the partitions.
timeout 240 "$gridvec" submit --config "$work/cluster.conf" -train "$work/corpus.txt" -output "$work/dev.txt" \
  -size 50 -iter 3 -min-count 5 > "$work/submit.log" 2>&1 || fail "the dev corpus job failed"
quality_floor "$work/dev.txt" 0.010 0.18 || fail "the vectors are below the quality floor"

# What the learner and shard nodes opened: the corpus (the learner) and
# the counts beside the vocabulary file of each job, never the vocabulary
# file itself. (A path policy's opens go a directory at a time:
# openat(dir, "NAME").)
opened() { grep -E "open(at2?)?\(.*[\"/]$2\"" "$work/$1.opens" | grep -v ENOENT || true; }
[ -n "$(opened learn 'small\.txt')" ] || fail "strace saw the learner node open no corpus: $(head -5 "$work/learn.opens")"
[ -n "$(opened learn 'corpus\.txt')" ] || fail "strace saw the learner node open no dev corpus"
for node in learn shard; do
  [ "$(opened $node 'vocabulary\.txt\.counts' | wc -l)" -ge 2 ] || fail "node $node did not load the counts of both jobs"
  [ -z "$(opened $node 'vocabulary\.txt')" ] ||
    fail "node $node opened the vocabulary file: $(opened $node 'vocabulary\.txt')"
done
echo "e2e vocabulary partitions passed: $first; the learner and shard nodes opened the counts of both jobs," \
  "the vocabulary file never"
