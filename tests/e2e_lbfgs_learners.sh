#!/usr/bin/env bash
# gridvec lbfgs on a cluster's learner nodes survives one of them killed
# mid-run (docs/lbfgs.md, "Faults"): on a loopback cluster of two shard
# nodes and two learner nodes, learn-2 is SIGSTOPped (so that the driver
# waits for its part of a pass) and then SIGKILLed; the driver notices the
# loss (a CAF monitor, not a timeout: --timeout is 600 s here), hands
# learn-2's share to learn-1, which reads it from the file, and does the
# pass again (a gradient pass with the table fenced and its gradient row
# zeroed). The run ends at the objective and iteration count of an
# uninterrupted run with the same shares (one process, two learner
# threads), and the log says so.
# Usage: e2e_lbfgs_learners.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gv=$1
source "$here/cluster_lib.sh"
source "$here/lbfgs_lib.sh"
work=$(mktemp -d)
outside=$(mktemp -d) # a directory the nodes may not read from
cluster_init "$gv" "$work"
trap 'cluster_cleanup; rm -rf "$outside"' EXIT
fail() { cluster_fail "$@"; }

# The uninterrupted run, in one process, its two learner threads holding
# the same two shares as the two learner nodes.
lbfgs_whole_run

lbfgs_learner_cluster
lbfgs_learn2_killed_midpass

grep -qE "learner 1 on node learn-2 is lost \(.*\); share 1 goes to learner 0 on node learn-1" "$work/lbfgs.log" \
  || fail "no line on the lost learner: $(grep -E 'lost|error' "$work/lbfgs.log" | head -3)"
grep -qE "learner replaced: 1 share moved in [0-9.]+ s; the (line-search|gradient|accuracy) pass is done again" \
  "$work/lbfgs.log" || fail "no line on the pass done again: $(grep -E 'replaced|lost' "$work/lbfgs.log" | head -3)"
grep -q "1 learner lost and replaced; 1 of 2 learners alive" "$work/lbfgs.log" || fail "no summary of the replacement"
# A gradient pass done again fences the table first (docs/lbfgs.md).
if grep -q "the gradient pass is done again" "$work/lbfgs.log"; then
  grep -qE "model table fenced at [1-9][0-9]*: the lost learner's increments still on their way are refused" \
    "$work/lbfgs.log" || fail "the gradient pass was done again without a fence"
fi
grep -q "share 1 is examples 1500 to 3000" "$work/learn-1.log" || fail "learn-1 did not take share 1"
# Noticed by its monitor, within seconds (a timeout would take 600 s).
/usr/bin/python3 - "$killed_at" "$work/lbfgs.log" <<'PY' || fail "the loss was not noticed promptly"
import sys, datetime
killed = float(sys.argv[1])
line = next(l for l in open(sys.argv[2]) if "is lost (" in l)
t = datetime.datetime.strptime(line[1:line.index("]")], "%H:%M:%S.%f").time()
day = datetime.datetime.fromtimestamp(killed).date()
delay = datetime.datetime.combine(day, t).timestamp() - killed
if delay < -43200:  # past midnight
    delay += 86400
print(f"noticed {delay:.2f} s after the kill")
assert delay < 10, delay
PY

# The same end as the run that lost nothing.
lbfgs_same_end "$work/lbfgs.out" replaced 1e-6 accuracy
head -1 "$work/weights.txt" | grep -q "^# gridvec lbfgs weights: features 4096 " || fail "no weights file"

# Every learner lost: one error line, exit status 1, no weights file.
cluster_start learn-2
"$gv" lbfgs "${run[@]}" --max-iter 100000 --config "$work/cluster.conf" --output "$work/none.txt" \
  > "$work/all.out" 2> "$work/all.log" &
lbfgs_pid=$!
wait_for_line "$work/all.log" "iteration 3:" 30 "$lbfgs_pid" || fail "no third iteration: $(tail -3 "$work/all.log")"
kill -STOP "${CLUSTER_PID[learn-1]}" "${CLUSTER_PID[learn-2]}"
sleep 0.5
cluster_kill learn-1 learn-2
code=0
timeout 20 tail --pid="$lbfgs_pid" -f /dev/null || fail "gridvec lbfgs did not end within 20 s of losing every learner"
wait "$lbfgs_pid" || code=$?
[ "$code" = 1 ] || fail "gridvec lbfgs exited $code after losing every learner"
[ "$(grep -c '^error: ' "$work/all.log")" = 1 ] && grep -q "^error: every learner node is lost" "$work/all.log" \
  || fail "losing every learner: $(grep error "$work/all.log")"
[ ! -e "$work/none.txt" ] || fail "a weights file was written by a failed run"
echo "every learner lost: $(grep '^error: ' "$work/all.log")"

# A training file outside the learner nodes' allow-read: refused there, as a
# corpus would be, with one line.
cluster_start learn-1 learn-2
cp "$work/data.svm" "$outside/data.svm"
if "$gv" lbfgs --train "$outside/data.svm" --features 4096 --config "$work/cluster.conf" > "$work/refused.out" \
  2> "$work/refused.log"; then fail "a file outside allow-read was read"; fi
grep '^error: ' "$work/refused.log" > "$work/refused.txt" || fail "no error line: $(tail -3 "$work/refused.log")"
[ "$(wc -l < "$work/refused.txt")" = 1 ] \
  && grep -qE "^error: learner [01] on node learn-[12]: .*$outside/data.svm is outside the directories" \
    "$work/refused.txt" || fail "refused: $(cat "$work/refused.txt")"
echo "outside allow-read: $(cat "$work/refused.txt")"
# --threads belongs to one process.
if "$gv" lbfgs "${run[@]}" --threads 2 --config "$work/cluster.conf" > "$work/threads.out" 2>&1; then
  fail "--threads with --config was accepted"
fi
[ "$(wc -l < "$work/threads.out")" = 1 ] && grep -q "^error: --threads is for one process" "$work/threads.out" \
  || fail "--threads: $(cat "$work/threads.out")"
echo "e2e_lbfgs_learners: ok"
