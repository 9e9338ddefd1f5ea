#!/usr/bin/env bash
# The work queue on a real loopback cluster: the corpus is cut into 4 parts
# per learner; one learner node is slowed to about half speed (SIGSTOP and
# SIGCONT in turn, 100 ms each) and trains fewer parts while the other takes
# the rest; every part is trained exactly once per epoch (each part's epoch
# is one lease, and the words trained are the corpus's, epoch after epoch,
# no more).
# Usage: e2e_work_queue.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
gridvec=$1
cluster_init_dev "$gridvec"
head -c 2500000 "$work/corpus.txt" > "$work/small.txt"

cluster_node coord "roles = coordinator, vocabulary, exporter, shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 1"
cluster_node learn-b "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 300
cluster_start coord learn-a learn-b

fail() { cluster_fail "$@"; }
# -sample 0: every word read is trained (but a sentence of one word), so the
# words trained tell whether any part's epoch was trained twice.
timeout 180 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/vectors.txt" \
  -size 20 -iter 2 -min-count 5 -sample 0 --report "$work/report.json" > "$work/submit.log" 2>&1 &
submit_pid=$!
wait_for_line "$work/submit.log" "^.*training: 2 learners" 120 $submit_pid || fail "training never started"
slow=${CLUSTER_PID[learn-b]}
while kill -0 "$submit_pid" 2>/dev/null; do
  kill -STOP "$slow"; sleep 0.1
  kill -CONT "$slow"; sleep 0.1
done
kill -CONT "$slow" 2>/dev/null || true
wait $submit_pid || fail "the job failed"
cluster_expect_line "work queue: 16 parts for 2 learners, each takes the next part nobody trains"
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
fast, slow = r["parts_trained_per_learner"]
print(f"parts {r['parts']}: the fast learner trained {fast} part-epochs, the slowed one {slow}; "
      f"{r['processed_words']} words read, {r['trained_words']} trained in {r['training_seconds']:.1f} s")
assert r["parts"] == 16, r["parts"]
assert fast + slow == 16 * 2, (fast, slow)  # each part's epoch one lease
assert slow < fast, (fast, slow)
# A part's epoch trained twice would add tens of thousands of words; the
# few missing are the sentences of one vocabulary word, which have no pair.
assert 0 <= r["processed_words"] - r["trained_words"] < 0.001 * r["processed_words"], r
assert r["processed_words"] % 2 == 0
PY
echo "e2e work queue passed"
