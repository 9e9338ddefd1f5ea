#!/usr/bin/env bash
# A standby learner node replaces a lost L-BFGS learner (docs/lbfgs.md,
# "Faults"): on a loopback cluster of two shard nodes, two learner nodes and
# a standby learner node, learn-2 is stopped and then killed in the middle
# of a pass. Its share goes to a new learner on the standby node, which
# reads that share from the file and connects to the table shards; learn-1
# keeps only its own share. The run ends at the objective, iteration count
# and accuracy of an uninterrupted run with the same shares. A word2vec job
# on the same cluster does not count the standby among its learners.
# Usage: e2e_lbfgs_standby_learner.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gv=$1
source "$here/cluster_lib.sh"
source "$here/lbfgs_lib.sh"
work=$(mktemp -d)
cluster_init "$gv" "$work"
fail() { cluster_fail "$@"; }

lbfgs_whole_run

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-1 "roles = shard" "shards = 1"
cluster_node shard-2 "roles = shard" "shards = 1"
cluster_node learn-1 "roles = learner" "learners = 1"
cluster_node learn-2 "roles = learner" "learners = 1"
cluster_node learn-spare "roles = learner" "learners = 1" "standby = true"
CLUSTER_ALLOW_READ=$work CLUSTER_ALLOW_WRITE=$work cluster_write "$work/cluster.conf"
cluster_start shard-1 shard-2 learn-1 learn-2 learn-spare

"$gv" lbfgs "${run[@]}" --config "$work/cluster.conf" --output "$work/weights.txt" \
  > "$work/lbfgs.out" 2> "$work/lbfgs.log" &
lbfgs_pid=$!
wait_for_line "$work/lbfgs.log" "iteration 5:" 30 "$lbfgs_pid" || fail "no fifth iteration: $(tail -3 "$work/lbfgs.log")"
grep -q "^lbfgs: " "$work/lbfgs.out" && fail "the run ended before learn-2 was killed; make it longer"
grep -q "share" "$work/learn-spare.log" && fail "the standby took a share before any learner was lost"
# Stopped first, so that the kill lands in the middle of a pass.
kill -STOP "${CLUSTER_PID[learn-2]}"
sleep 1
cluster_kill learn-2
timeout 40 tail --pid="$lbfgs_pid" -f /dev/null || fail "gridvec lbfgs did not end within 40 s of losing a learner"
code=0
wait "$lbfgs_pid" || code=$?
[ "$code" = 0 ] || fail "gridvec lbfgs exited $code after losing a learner: $(tail -5 "$work/lbfgs.log")"

grep -E 'is lost|replaced' "$work/lbfgs.log" | sed 's/^.*\] //'
grep -qE "learner 1 on node learn-2 is lost \(.*\); share 1 goes to learner 2 on node learn-spare, a standby" \
  "$work/lbfgs.log" || fail "share 1 did not go to the standby: $(grep -E 'lost|error' "$work/lbfgs.log" | head -3)"
grep -q "goes to learner 0 on node learn-1" "$work/lbfgs.log" && fail "learn-1 was given the lost share"
grep -qE "learner replaced: 1 share moved in [0-9.]+ s; the (line-search|gradient|accuracy) pass is done again" \
  "$work/lbfgs.log" || fail "no line on the pass done again"
grep -q "1 learner lost and replaced; 2 of 3 learners alive" "$work/lbfgs.log" || fail "no summary of the replacement"
grep -q "share 1 is examples 1500 to 3000" "$work/learn-spare.log" \
  || fail "the standby did not load share 1: $(tail -3 "$work/learn-spare.log")"
grep -q "share 1 is" "$work/learn-1.log" && fail "learn-1 loaded share 1"
lbfgs_same_end "$work/lbfgs.out" standby 1e-6 accuracy
echo "e2e_lbfgs_standby_learner: ok"
