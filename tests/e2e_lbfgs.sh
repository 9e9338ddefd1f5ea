#!/usr/bin/env bash
# gridvec lbfgs against scikit-learn (docs/lbfgs.md), through real processes
# on loopback: scripts/lbfgs-vs-sklearn starts two shard nodes and a
# learner node, runs
# `gridvec lbfgs --config` on them and LogisticRegression(solver="lbfgs")
# on the same data and regularisation, and both objectives are computed by
# the same Python code from each side's weights. On breast cancer
# (standardised) and on a small generated sparse set they must agree within
# 1e-4 relative, in comparable iterations. Then one process (in-process
# shards) gives the same objective, and bad input gets one error line.
# Usage: e2e_lbfgs.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/strict.sh"
gv=$1
/usr/bin/python3 -c 'import sklearn' 2>/dev/null || cannot_run "scikit-learn (python3-sklearn) is not installed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT # (cluster_init below replaces it with cluster_cleanup, which removes $work/kill)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

check() { # NAME OUTPUT: the last line's relative difference and iterations
  local line
  line=$(tail -1 "$2")
  echo "$1: $line"
  /usr/bin/python3 - "$line" <<'PY' || fail "$1: $(cat "$2")"
import sys
w = sys.argv[1].split()
assert w[0] == "objective" and w[1] == "gridvec" and w[3] == "sklearn" and w[5] == "relative", w
relative, ours, theirs = float(w[6]), int(w[8]), int(w[9])
assert relative <= 1e-4, f"relative difference {relative} > 1e-4"
assert ours <= 2 * theirs + 10, f"{ours} iterations against sklearn's {theirs}"
PY
  # Converged by its own test, not cut off by a cap sklearn does not have.
  if grep -q "^lbfgs: .*(stopped by the iteration limit)" "$2"; then fail "$1: gridvec stopped at its iteration cap"; fi
}

"$root/scripts/lbfgs-vs-sklearn" --gridvec "$gv" --work "$work/dense" > "$work/dense.out" 2>&1 \
  || fail "dense run: $(tail -20 "$work/dense.out")"
check dense "$work/dense.out"
grep -q "^lbfgs: objective .* accuracy 0.9[0-9]* " "$work/dense.out" || fail "no accuracy above 0.9: $(cat "$work/dense.out")"

"$root/scripts/lbfgs-vs-sklearn" --gridvec "$gv" --sparse --examples 4000 --features 4096 --work "$work/sparse" \
  > "$work/sparse.out" 2>&1 || fail "sparse run: $(tail -20 "$work/sparse.out")"
check sparse "$work/sparse.out"

# One process, its own table shards: the same objective as on the cluster.
"$gv" lbfgs --train "$work/dense/data.svm" --features 30 --shards 3 --threads 3 --output "$work/one.txt" \
  > "$work/one.out" 2> "$work/one.log" || fail "one process: $(cat "$work/one.log")"
/usr/bin/python3 - "$work/one.out" "$work/dense.out" <<'PY' || fail "one process and the cluster disagree"
import sys
one = float(open(sys.argv[1]).read().split()[2])
cluster = float([l for l in open(sys.argv[2]) if l.startswith("lbfgs:")][0].split()[2])
assert abs(one - cluster) <= 1e-5 * abs(cluster), (one, cluster)
PY
head -1 "$work/one.txt" | grep -q "^# gridvec lbfgs weights: features 30 l2 1 objective" || fail "weights header: $(head -1 "$work/one.txt")"
[ "$(grep -vc '^#' "$work/one.txt")" = 30 ] || fail "weights: $(wc -l < "$work/one.txt") lines"

# Bad input: one line, non-zero, and the weights file left as it was.
printf '+1 1:0.5\n-1 2:x\n' > "$work/bad.svm"
cp "$work/one.txt" "$work/kept.txt"
if "$gv" lbfgs --train "$work/bad.svm" --output "$work/one.txt" > "$work/bad.out" 2>&1; then fail "a bad line was accepted"; fi
[ "$(cat "$work/bad.out")" = "error: $work/bad.svm:2: the value of '2:x' is not a finite number" ] \
  || fail "bad line: $(cat "$work/bad.out")"
cmp -s "$work/one.txt" "$work/kept.txt" || fail "the weights file changed on a failed run"
for args in "--features 2^40" "--l2 0" "--memory 0" "--bogus 1"; do
  # shellcheck disable=SC2086
  if "$gv" lbfgs --train "$work/bad.svm" $args > "$work/opt.out" 2>&1; then fail "lbfgs $args was accepted"; fi
  [ "$(wc -l < "$work/opt.out")" = 1 ] && grep -q "^error: " "$work/opt.out" || fail "lbfgs $args: $(cat "$work/opt.out")"
done
if "$gv" lbfgs --train "$work/missing.svm" > "$work/missing.out" 2>&1; then fail "a missing file was accepted"; fi
grep -q "^error: cannot read the training data $work/missing.svm: No such file or directory$" "$work/missing.out" || fail "missing: $(cat "$work/missing.out")"
# A shard node killed mid-run: the run stops with one line naming the lost
# shard (a request in flight to it fails after --timeout), exits non-zero,
# and writes no weights file.
source "$here/cluster_lib.sh"
cluster_init "$gv" "$work/kill"
mkdir -p "$work/kill"
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-1 "roles = shard" "shards = 1"
cluster_node shard-2 "roles = shard" "shards = 1"
cluster_node learn "roles = learner" "learners = 1"
cluster_write "$work/kill/cluster.conf"
cluster_start shard-1 shard-2 learn
"$gv" lbfgs --config "$work/kill/cluster.conf" --train "$work/sparse/data.svm" --features 4096 --ftol 0 --tol 0 \
  --max-iter 100000 --timeout 5 --output "$work/kill/weights.txt" > "$work/kill/lbfgs.out" 2> "$work/kill/lbfgs.log" &
lbfgs_pid=$!
wait_for_line "$work/kill/lbfgs.log" "iteration 3:" 30 "$lbfgs_pid" || fail "no third iteration: $(cat "$work/kill/lbfgs.log")"
cluster_kill shard-2
code=0
timeout 30 tail --pid="$lbfgs_pid" -f /dev/null || fail "gridvec lbfgs did not stop within 30 s of losing a shard"
wait "$lbfgs_pid" || code=$?
[ "$code" = 1 ] || fail "gridvec lbfgs exited $code after losing a shard"
grep -E "^error: .*table shard 1" "$work/kill/lbfgs.log" > "$work/kill/error.txt" || fail "no error line: $(tail -3 "$work/kill/lbfgs.log")"
[ "$(wc -l < "$work/kill/error.txt")" = 1 ] || fail "several error lines: $(cat "$work/kill/error.txt")"
echo "shard killed: $(cat "$work/kill/error.txt")"
[ ! -e "$work/kill/weights.txt" ] || fail "a weights file was written by a failed run"
echo "e2e_lbfgs: ok"
