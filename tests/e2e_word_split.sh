#!/usr/bin/env bash
# The word split (--partition words, the Distributed negative sampling paper) on a real loopback cluster:
# a coordinator node, two shard nodes each holding the whole rows of half
# the words, a standby shard node and two learner nodes (six OS processes
# on 127.0.0.1), training the dev corpus with the default flags.
#   1. each --negatives mode (bns, sns, tns): the vectors pass the quality
#      floor; the report shows the shards' exchange (visit batches between
#      shards, learners' shares to the shards of their input words) and no
#      dotprod/adjust; the noise tables each shard holds are its own
#      partition's only;
#   2. a job kept running: the shell's nearest (the same neighbours as the
#      exported vectors give) and analogy read the rows from the shards
#      that hold them, and export writes the same vectors again;
#   3. checkpoints, then one shard node SIGKILLed (three epochs): the
#      standby takes its rows from the last checkpoint, the job finishes
#      with trained vectors, and `gridvec export` writes the newest
#      checkpoint's vectors.
# Usage: e2e_word_split.sh GRIDVEC_BINARY [MODE...]
#   MODE: the --negatives modes of step 1 (default: bns sns tns). Given
#   without tns, only step 1 runs (ctest's e2e.word_split runs tns and the
#   rest; e2e.word_split.modes, a long test, bns and sns).
set -euo pipefail
gridvec=$1
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(bns sns tns)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
cluster_init_dev "$gridvec"

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node spare "roles = shard" "shards = 1" "standby = true"
cluster_node learn-a "roles = learner" "learners = 1"
cluster_node learn-b "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 300
cluster_start coord shard-a shard-b spare learn-a learn-b

fail() { cluster_fail "$@"; }
expect_line() { cluster_expect_line "$1"; }
# On the dev corpus word2vec.c scores about 0.036 / 0.38 with these flags,
# and the word split within 0.004 / 0.01 of it (docs/word-partitions.md).
# Random vectors score 0.
floor() {
  quality_floor "$1" 0.025 0.30 ||
    fail "the vectors are below the floor"
}

flags=(-train "$work/corpus.txt" -size 100 -window 5 -negative 5 -min-count 5 -iter 5 --partition words)

for mode in "${modes[@]}"; do
  echo "== --negatives $mode"
  : > "$work/submit.log"
  timeout 600 "$gridvec" submit --config "$work/cluster.conf" "${flags[@]}" --negatives $mode \
    -output "$work/vectors-$mode.txt" --report "$work/report-$mode.json" > "$work/submit.log" 2>&1 ||
    fail "the $mode job failed"
  expect_line "training: 2 learners, 2 shards of whole rows \(word w on shard w mod 2\)"
  expect_line "noise words: $mode \(hierarchical sampler\) over 2 word partitions; sampling tables [0-9]+ KiB per shard \(its own partition's\)"
  floor "$work/vectors-$mode.txt"
  /usr/bin/python3 - "$work/report-$mode.json" "$mode" <<'PY'
import json, sys
r, mode = json.load(open(sys.argv[1])), sys.argv[2]
m = r["messages"]
batch = m["word_split_batch"]
print(f"{mode}: {batch['count']} visit batches, {batch['bytes_per_trained_word']:.0f} bytes per trained word "
      f"between shards; {m['split_train_request']['bytes_per_trained_word']:.1f} learner -> shard")
assert r["partition"] == "words", r["partition"]
assert r["shards"] == 2 and r["noise"]["word_partitions"] == 2, r["noise"]
assert r["processed_words"] == 5 * 950052, r["processed_words"]
for k in ("dotprod_request", "adjust_request"):
    assert m[k]["count"] == 0, k
requests, replies = m["split_train_request"]["count"], m["split_train_reply"]["count"]
assert requests > 0, requests
# Every request is answered and counted, unless a recovery rolled the
# learners back: replies to minibatches from before it are dropped unread.
print(f"{requests} shares sent, {replies} answered; {r['recoveries']} recoveries")
assert replies == requests if r["recoveries"] == 0 else replies <= requests, (requests, replies)
# Input vectors of 100 floats out, gradients back: each batch carries at
# least one of each (and tns visits only the positive's shard: fewer).
assert batch["count"] > 0 and batch["bytes"] >= batch["count"] * 2 * 400, batch
PY
done

[[ " ${modes[*]} " == *" tns "* ]] || { echo "word split: --negatives ${modes[*]} passed"; exit 0; }

echo "== the shell and export on a job of whole rows"
shell() {
  rc=0
  timeout 120 "$gridvec" shell --config "$work/cluster.conf" -c "$1" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/err" >&2; fail "shell: '$1' exited $rc"; }
  cat "$work/out"
}
shell "nearest city 3"
[ "$(grep -cE "^[1-3]  [^ ]+ +-?[01]\.[0-9]{4}$" "$work/out")" -eq 3 ] || fail "nearest from the shards"
/usr/bin/python3 - "$work/vectors-tns.txt" "$work/out" <<'PY'
# The shell's neighbours are the exported vectors' nearest by cosine.
import sys
import numpy as np
rows = {}
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        p = line.rstrip().split(" ")
        rows[p[0]] = np.array(p[1:], dtype=np.float64)
words = list(rows)
m = np.stack([rows[w] for w in words])
m /= np.linalg.norm(m, axis=1, keepdims=True) + 1e-12
scores = m @ m[words.index("city")]
best = [words[i] for i in np.argsort(-scores) if words[i] != "city"][:3]
got = [line.split()[1] for line in open(sys.argv[2]) if line[:1] in "123"]
assert got == best, (got, best)
PY
shell "analogy man king woman 5; shards"
[ "$(grep -cE "^[1-5]  [^ ]+ +-?[01]\.[0-9]{4}$" "$work/out")" -eq 5 ] || fail "analogy from the shards"
shell "export $work/again.txt"
cmp -s <(sort "$work/again.txt") <(sort "$work/vectors-tns.txt") || fail "export differs from the job's vectors"

echo "== a shard node killed after the first checkpoint"
: > "$work/submit.log"
# Three epochs rather than five: what is checked is the recovery, and
# trained vectors after it (the cluster tests' floor, far above random).
timeout 600 "$gridvec" submit --config "$work/cluster.conf" "${flags[@]}" -iter 3 -output "$work/vectors2.txt" \
  --report "$work/report2.json" --checkpoint-dir "$work/ck" --checkpoint-every 1000000w >> "$work/submit.log" 2>&1 &
submit_pid=$!
wait_for_line "$work/submit.log" "checkpoint 1 written" 300 $submit_pid || fail "the job wrote no checkpoint 1"
sleep 0.5
cluster_kill shard-b
wait $submit_pid || fail "the job failed after a shard node was killed"
expect_line "recovered: "
recovered_floor() { quality_floor "$1" 0.010 0.18 || fail "$1: below the floor after recovery"; }
recovered_floor "$work/vectors2.txt"
/usr/bin/python3 - "$work/report2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"processed {r['processed_words']} words; {r['recoveries']} recoveries, {r['redone_words']} words re-done")
assert r["recoveries"] == 1, r["recoveries"]
assert r["processed_words"] == 3 * 950052, r["processed_words"]
PY
newest=$(ls -d "$work"/ck/ckpt-?????? | sort | tail -1)
# The cluster has a secret: its manifests are signed, and reading one
# needs the cluster's config.
if "$gridvec" export "$newest" -output "$work/ck.txt" 2> "$work/err"; then fail "exported a signed checkpoint without the secret"; fi
grep -q "authenticated by a cluster secret" "$work/err" || fail "export without --config: $(cat "$work/err")"
"$gridvec" export "$newest" -output "$work/ck.txt" --config "$work/cluster.conf" || fail "cannot export $newest"
[ "$(head -n 1 "$work/ck.txt")" = "14620 100" ] || fail "the export's header is '$(head -n 1 "$work/ck.txt")'"
recovered_floor "$work/ck.txt"
echo "word split passed"
