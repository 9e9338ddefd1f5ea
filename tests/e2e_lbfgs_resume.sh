#!/usr/bin/env bash
# gridvec lbfgs resumed after its own process was lost (docs/lbfgs.md): on a
# loopback cluster with a table-dir, a run checkpointing every 4 iterations
# is SIGKILLed just after its first checkpoint after the start; run again
# with --resume and the state file its checkpoints wrote, it loads the
# model table from the table-dir and ends at the objective and iteration
# of an uninterrupted run. Checkpoints alternate between two save slots of
# the table-dir, so a checkpoint whose slices were saved but whose state
# file was not yet written (the process lost in between) leaves the one
# before it whole: resumed from that older state, the run still ends where
# the uninterrupted one does. A state of another run, one cut short and
# one whose table is of another iteration are refused with one line.
# Usage: e2e_lbfgs_resume.sh GRIDVEC_BINARY
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

lbfgs_table_cluster

cluster_run=("${run[@]}" --config "$work/cluster.conf" --checkpoint-every 4 --timeout 5)
# killed_after_checkpoint N NAME ARGS...: runs gridvec lbfgs ARGS (its log in
# $work/NAME.log) and SIGKILLs it right after its checkpoint of iteration N,
# far from the next one (4 iterations on).
killed_after_checkpoint() {
  local n=$1 name=$2 pid
  shift 2
  "$gv" lbfgs "$@" > "$work/$name.out" 2> "$work/$name.log" &
  pid=$!
  for _ in $(seq 1 3000); do
    grep -q "checkpoint: iteration $n saved" "$work/$name.log" && break
    kill -0 "$pid" 2> /dev/null || fail "the $name run ended before checkpoint $n: $(tail -3 "$work/$name.log")"
    sleep 0.01
  done
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  grep -q "checkpoint: iteration $n saved" "$work/$name.log" || fail "no checkpoint at iteration $n"
}
killed_after_checkpoint 4 first "${cluster_run[@]}" --output "$work/weights.txt"
[ -s "$work/weights.txt.state" ] || fail "no state file beside the weights file"
[ -e "$work/weights.txt" ] && fail "a weights file from a run that did not end"
head -1 "$work/weights.txt.state" | grep -qx "gridvec-lbfgs-state 2" || fail "the state file: $(head -2 "$work/weights.txt.state")"
grep -qx "table-slot 2" "$work/weights.txt.state" || fail "checkpoint 4 is not in save slot 2"
[ -s "$work/tables/lbfgs/shard-0-of-2.slot-2.slice" ] || fail "no slot-2 slice: $(ls -R "$work/tables")"
cp "$work/weights.txt.state" "$work/four.state"

# Refused with one line each: another run's options, a file cut short, a
# table of another iteration; and --resume without a table-dir.
expect_refused() { # PATTERN ARGS...: exit status 2, one error line matching PATTERN
  local pattern=$1
  shift
  local code=0
  "$gv" lbfgs "$@" > "$work/refused.out" 2> "$work/refused.log" || code=$?
  [ "$code" != 0 ] || fail "accepted: $*"
  grep -E "^error: " "$work/refused.log" | grep -qE -- "$pattern" || fail "not refused with '$pattern': $(tail -2 "$work/refused.log")"
  echo "refused: $(grep -E '^error: ' "$work/refused.log" | head -1)"
}
expect_refused "is of another run" "${cluster_run[@]}" --l2 2 --resume "$work/weights.txt.state"
head -n -1 "$work/weights.txt.state" > "$work/cut.state"
expect_refused "does not end with 'end'" "${cluster_run[@]}" --resume "$work/cut.state"
sed 's/^gradient-norm .*/gradient-norm 0x1.8p+3/' "$work/weights.txt.state" > "$work/other.state"
expect_refused "not of the checkpoint of iteration 4" "${cluster_run[@]}" --resume "$work/other.state"
expect_refused "--resume needs a cluster config with a table-dir" "${run[@]}" --resume "$work/weights.txt.state"

# Resumed, and lost again just after checkpoint 8 (slot 1): the table-dir
# then holds checkpoint 4 in slot 2 and checkpoint 8 in slot 1 (checkpoint
# 0, the first gradient, took slot 1 first).
killed_after_checkpoint 8 second "${cluster_run[@]}" --output "$work/weights.txt" --resume "$work/weights.txt.state"
grep -q "checkpoint: iteration 8 saved in the cluster's table-dir (slot 1)" "$work/second.log" \
  || fail "checkpoint 8 not in slot 1: $(grep checkpoint "$work/second.log" | tail -2)"
grep -qx "iteration 8" "$work/weights.txt.state" || fail "the state file is not checkpoint 8's"
[ -s "$work/tables/lbfgs/shard-1-of-2.slot-1.slice" ] || fail "no slot-1 slice: $(ls -R "$work/tables")"

# Resumed from checkpoint 4's state, as the process would have left it had
# it been lost after checkpoint 8's slices were saved and before its state
# was written: slot 2 still holds checkpoint 4's model table.
"$gv" lbfgs "${cluster_run[@]}" --output "$work/weights.txt" --resume "$work/four.state" \
  > "$work/resumed.out" 2> "$work/resumed.log" || fail "the resumed run: $(tail -3 "$work/resumed.log")"
grep -q "resuming from the checkpoint of iteration 4" "$work/resumed.log" || fail "no resume line: $(head -5 "$work/resumed.log")"
grep -q "iteration 1: " "$work/resumed.log" && fail "the resumed run started over"
lbfgs_same_end "$work/resumed.out" resumed 1e-9
head -1 "$work/weights.txt" | grep -q "^# gridvec lbfgs weights: features 4096 " || fail "no weights file"
echo "e2e_lbfgs_resume: ok"
