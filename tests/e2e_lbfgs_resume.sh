#!/usr/bin/env bash
# gridvec lbfgs resumed after its own process was lost (docs/lbfgs.md): on a
# loopback cluster with a table-dir, a run checkpointing every 4 iterations
# is SIGKILLed just after its first checkpoint after the start; run again
# with --resume and the state file its checkpoints wrote, it loads the
# model table from the table-dir and ends at the objective and iteration
# of an uninterrupted run. A state of another run, one cut short and one
# whose table is of another iteration are refused with one line.
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
"$gv" lbfgs "${cluster_run[@]}" --output "$work/weights.txt" > "$work/first.out" 2> "$work/first.log" &
pid=$!
# Killed right after a checkpoint, far from the next one (4 iterations on).
for _ in $(seq 1 3000); do
  grep -q "checkpoint: iteration 4 saved" "$work/first.log" && break
  kill -0 "$pid" 2> /dev/null || fail "the first run ended before its checkpoint: $(tail -3 "$work/first.log")"
  sleep 0.01
done
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
grep -q "checkpoint: iteration 4 saved" "$work/first.log" || fail "no checkpoint at iteration 4"
[ -s "$work/weights.txt.state" ] || fail "no state file beside the weights file"
[ -e "$work/weights.txt" ] && fail "a weights file from a run that did not end"
head -1 "$work/weights.txt.state" | grep -qx "gridvec-lbfgs-state 1" || fail "the state file: $(head -2 "$work/weights.txt.state")"

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

"$gv" lbfgs "${cluster_run[@]}" --output "$work/weights.txt" --resume "$work/weights.txt.state" \
  > "$work/resumed.out" 2> "$work/resumed.log" || fail "the resumed run: $(tail -3 "$work/resumed.log")"
grep -q "resuming from the checkpoint of iteration 4" "$work/resumed.log" || fail "no resume line: $(head -5 "$work/resumed.log")"
grep -q "iteration 1: " "$work/resumed.log" && fail "the resumed run started over"
lbfgs_same_end "$work/resumed.out" resumed 1e-9
head -1 "$work/weights.txt" | grep -q "^# gridvec lbfgs weights: features 4096 " || fail "no weights file"
echo "e2e_lbfgs_resume: ok"
