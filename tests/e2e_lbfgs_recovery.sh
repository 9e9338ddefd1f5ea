#!/usr/bin/env bash
# gridvec lbfgs survives a table shard's node killed mid-run (docs/lbfgs.md):
# on a loopback cluster of two shard nodes and a standby, with a checkpoint
# every 3 iterations in the cluster's table-dir, shard-2 is SIGKILLed while
# the run goes on; its table shard is restored on the standby from the last
# checkpoint, the other shard is rolled back to it, and the run ends at the
# objective and iteration of an uninterrupted run on the same data.
# Usage: e2e_lbfgs_recovery.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gv=$1
source "$here/cluster_lib.sh"
source "$here/lbfgs_lib.sh"
work=$(mktemp -d)
cluster_init "$gv" "$work"
fail() { cluster_fail "$@"; }

# The uninterrupted run, in one process with as many table shards and as
# many learners (threads here, learners of the learner node there).
lbfgs_whole_run

lbfgs_table_cluster spare

"$gv" lbfgs "${run[@]}" --config "$work/cluster.conf" --checkpoint-every 3 --timeout 2 --output "$work/weights.txt" \
  > "$work/lbfgs.out" 2> "$work/lbfgs.log" &
lbfgs_pid=$!
wait_for_line "$work/lbfgs.log" "checkpoint: iteration 6 saved" 30 "$lbfgs_pid" || fail "no checkpoint at iteration 6: $(tail -3 "$work/lbfgs.log")"
grep -q "^lbfgs: " "$work/lbfgs.out" && fail "the run ended before shard-2 was killed; make it longer"
cluster_kill shard-2
timeout 40 tail --pid="$lbfgs_pid" -f /dev/null || fail "gridvec lbfgs did not end within 40 s of losing a shard"
code=0
wait "$lbfgs_pid" || code=$?
[ "$code" = 0 ] || fail "gridvec lbfgs exited $code after losing a shard: $(tail -5 "$work/lbfgs.log")"

# From the last checkpoint; or, if the kill cut a save short, from the start.
grep -qE "table shard 1 on node shard-2 is lost; restoring it on standby node spare from (the checkpoint of iteration [0-9]+|the start)" \
  "$work/lbfgs.log" || fail "no restore line: $(grep -E 'lost|error' "$work/lbfgs.log" | head -3)"
grep -qE "recovered: table shard 1 restored in [0-9.]+ s; going on from iteration [0-9]+" "$work/lbfgs.log" \
  || fail "no recovered line"
grep -q "taking over table shard 1 of 2" "$work/spare.log" || fail "the standby did not take over: $(tail -3 "$work/spare.log")"
echo "$(grep -E 'is lost|recovered:' "$work/lbfgs.log" | sed 's/^.*\] //')"

# The same end as the run that lost nothing.
lbfgs_same_end "$work/lbfgs.out" recovered 1e-9
head -1 "$work/weights.txt" | grep -q "^# gridvec lbfgs weights: features 4096 " || fail "no weights file"
echo "e2e_lbfgs_recovery: ok"
