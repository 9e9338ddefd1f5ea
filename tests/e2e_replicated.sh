#!/usr/bin/env bash
# The replicated mode (--partition replicated, the GraphWord2Vec paper) on a real loopback
# cluster: a coordinator node, a shard node and three learner nodes, each
# a host with the whole model (five OS processes on 127.0.0.1), the third
# training its copy with two threads, on the dev corpus with the default
# flags.
#   1. three hosts with the model combiner: the vectors pass the quality
#      floor, the report counts rounds and their bytes, and only round
#      messages travelled (no dotprod/adjust);
#   2. the shell drives a long replicated job: status and learners while it
#      trains, pause (every host settles, the paused ones still answering
#      rounds), resume, checkpoint, nearest from the shards, cancel;
#   3. the same job, three epochs, with checkpoints; one learner node is
#      SIGKILLed after the first checkpoint: the other two hosts start again
#      from it with the lost host's part, and the job finishes with trained
#      vectors and every word of every epoch trained; `gridvec export` writes the
#      newest checkpoint's vectors, and refuses it with another vocabulary.
# Usage: e2e_replicated.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
cluster_init_dev "$gridvec"

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 1"
cluster_node learn-b "roles = learner" "learners = 1"
cluster_node learn-c "roles = learner" "learners = 2" # one host, two threads on its copy
cluster_write "$work/cluster.conf" 300
cluster_start coord shard-a learn-a learn-b learn-c

fail() { cluster_fail "$@"; }
expect_line() { cluster_expect_line "$1"; }
# Three hosts on the dev corpus score about 0.030 / 0.31 (word2vec.c
# 0.031 / 0.333, docs/replicated.md); averaging instead of the combiner
# falls to about 0.01 / 0.17 at four hosts. Random vectors score 0.
floor() {
  quality_floor "$1" 0.018 0.24 ||
    fail "the vectors are below the floor"
}

flags=(-train "$work/corpus.txt" -size 100 -window 5 -negative 5 -min-count 5 -iter 5 --partition replicated)

echo "== three hosts"
timeout 600 "$gridvec" submit --config "$work/cluster.conf" "${flags[@]}" \
  -output "$work/vectors.txt" --report "$work/report.json" > "$work/submit.log" 2>&1 ||
  fail "the replicated job failed"
expect_line "replicated: 3 hosts hold the whole model each, trained by 1-2 threads each; 32 synchronisation rounds per epoch \(auto: 8 per thread\), combiner mc"
floor "$work/vectors.txt"
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["messages"]
print(f"{r['sync_rounds']} rounds, {r['bytes_per_round']} bytes per round")
assert r["partition"] == "replicated", r["partition"]
assert r["learners"] == 3, r["learners"]
assert 5 * 32 * 0.75 <= r["sync_rounds"] <= 5 * 32 + 2, r["sync_rounds"]
for k in ("round_changes", "round_values", "round_store"):
    assert m[k]["bytes"] > 0, k
for k in ("dotprod_request", "adjust_request"):
    assert m[k]["count"] == 0, k
# Each of 3 hosts sends its changes to 2 masters, each master its values
# to 2 hosts, every round.
assert m["round_changes"]["count"] >= 6 * r["sync_rounds"] - 6, m["round_changes"]
assert r["processed_words"] == 5 * 950052, r["processed_words"]
assert r["bytes_per_round"] > 0
PY

echo "== the shell, during a long replicated job"
shell() {
  rc=0
  timeout 120 "$gridvec" shell --config "$work/cluster.conf" -c "$1" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/err" >&2; fail "shell: '$1' exited $rc"; }
  cat "$work/out"
}
expect_out() { grep -qE -- "$1" "$work/out" || fail "the shell's output lacks '$1'"; }
head -n 3000 "$work/corpus.txt" > "$work/small.txt"
shell "train -train $work/small.txt -output $work/long.txt -size 50 -min-count 3 -iter 200 --partition replicated \
       --checkpoint-dir $work/ck-shell"
expect_out "job [0-9]+ started"
for _ in $(seq 1 300); do
  shell status > /dev/null
  grep -q "^phase  *training" "$work/out" && break
  sleep 0.2
done
shell "learners"
[ "$(grep -cE "learn-[abc]  (training|syncing round [0-9]+) " "$work/out")" -eq 3 ] || fail "three hosts at work"
shell "pause; learners"
[ "$(grep -c "  paused  " "$work/out")" -eq 3 ] || fail "the hosts did not all pause"
shell "resume; checkpoint; status"
expect_out "job resumed"
expect_out "checkpoint #1 written"
expect_out "^phase  *training"
shell "nearest city 3"
[ "$(grep -cE "^[1-3]  [^ ]+ +-?[01]\.[0-9]{4}$" "$work/out")" -eq 3 ] || fail "nearest from the shards"
shell "cancel; status"
expect_out "job cancelled"

echo "== a host killed after the first checkpoint"
: > "$work/submit.log"
# A checkpoint every ~600k words: several in the run. Three epochs rather
# than five: what is checked is the recovery, and trained vectors (the
# floor of the cluster tests, far above random) after it.
timeout 600 "$gridvec" submit --config "$work/cluster.conf" --shutdown "${flags[@]}" -iter 3 -output "$work/vectors2.txt" \
  --report "$work/report2.json" --checkpoint-dir "$work/ck" --checkpoint-every 600000w >> "$work/submit.log" 2>&1 &
submit_pid=$!
wait_for_line "$work/submit.log" "checkpoint 1 written" 300 $submit_pid || fail "the job wrote no checkpoint 1"
sleep 0.5 # some rounds on: the kill lands in the middle of one
cluster_kill learn-c
wait $submit_pid || fail "the job failed after a host was killed"
expect_line "learner 2 on node learn-c is lost; the other hosts start again from the last checkpoint without it"
expect_line "recovered: learner 2 on node learn-c lost; the other hosts restarted from checkpoint [0-9]+ in [0-9.]+ s"
quality_floor "$work/vectors2.txt" 0.010 0.18 || fail "the vectors after recovery are below the floor"
/usr/bin/python3 - "$work/report2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"processed {r['processed_words']} words; {r['recoveries']} recoveries, {r['redone_words']} words re-done")
assert r["recoveries"] == 1, r["recoveries"]
assert r["processed_words"] == 3 * 950052, r["processed_words"]
PY

echo "== gridvec export of a checkpoint"
newest=$(ls -d "$work"/ck/ckpt-?????? | sort | tail -1)
# The cluster has a secret: its manifests are signed, and reading one
# needs the cluster's config.
if "$gridvec" export "$newest" -output "$work/ck.txt" 2> "$work/err"; then fail "exported a signed checkpoint without the secret"; fi
grep -q "authenticated by a cluster secret" "$work/err" || fail "export without --config: $(cat "$work/err")"
"$gridvec" export "$newest" -output "$work/ck.txt" --config "$work/cluster.conf" || fail "cannot export $newest"
[ "$(head -n 1 "$work/ck.txt")" = "14620 100" ] || fail "the export's header is '$(head -n 1 "$work/ck.txt")'"
[ "$(wc -l < "$work/ck.txt")" -eq 14621 ] || fail "the export lacks rows"
echo "extra 1" >> "$work/ck/vocabulary.txt"
if "$gridvec" export "$newest" -output "$work/ck2.txt" --config "$work/cluster.conf" 2> "$work/err"; then fail "exported with another vocabulary"; fi
grep -q "is not the vocabulary of" "$work/err" || fail "no clear line for another vocabulary: $(cat "$work/err")"
[ ! -e "$work/ck2.txt" ] || fail "a refused export wrote a file"
cluster_wait_exit 30 coord shard-a learn-a learn-b || fail "some node did not stop"
echo "replicated mode passed"
