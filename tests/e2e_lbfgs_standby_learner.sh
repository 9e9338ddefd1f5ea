#!/usr/bin/env bash
# A standby learner node replaces a lost L-BFGS learner (docs/lbfgs.md,
# "Faults"): on a loopback cluster of two shard nodes, two learner nodes and
# a standby learner node, learn-2 is stopped and then killed in the middle
# of a pass. Its share goes to a new learner on the standby node, which
# reads that share from the file and connects to the table shards; learn-1
# keeps only its own share. The run ends at the objective, iteration count
# and accuracy of an uninterrupted run with the same shares. (e2e_memory.sh
# checks that a word2vec job does not count a standby learner node.)
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

lbfgs_learner_cluster standby
lbfgs_learn2_killed_midpass
grep -qE "learner 1 on node learn-2 is lost \(.*\); share 1 goes to learner 2 on node learn-spare, a standby" \
  "$work/lbfgs.log" || fail "share 1 did not go to the standby: $(grep -E 'lost|error' "$work/lbfgs.log" | head -3)"
grep -q "goes to learner 0 on node learn-1" "$work/lbfgs.log" && fail "learn-1 was given the lost share"
grep -qE "learner replaced: 1 share moved in [0-9.]+ s; the (line-search|gradient|accuracy) pass is done again" \
  "$work/lbfgs.log" || fail "no line on the pass done again"
grep -q "1 learner lost and replaced; 2 of 3 learners alive" "$work/lbfgs.log" || fail "no summary of the replacement"
grep -q "share 1 is examples 1500 to 3000" "$work/learn-spare.log" \
  || fail "the standby did not load share 1: $(tail -3 "$work/learn-spare.log")"
[ "$(grep -c "share [0-9]* is examples" "$work/learn-spare.log")" = 1 ] \
  || fail "the standby loaded more than share 1: $(grep share "$work/learn-spare.log")"
grep -q "share 1 is" "$work/learn-1.log" && fail "learn-1 loaded share 1"
lbfgs_same_end "$work/lbfgs.out" standby 1e-6 accuracy
echo "e2e_lbfgs_standby_learner: ok"
