# What the end-to-end tests of gridvec lbfgs on a loopback cluster share;
# sourced after cluster_lib.sh, with $gv, $root, $work and fail() set
# before its functions run. Their data generator needs numpy.
/usr/bin/python3 -c 'import numpy' 2>/dev/null || cannot_run "numpy (python3-numpy) is not installed"

# The data (3,000 examples over 4,096 hashed features) in $work/data.svm,
# the options every run of a test uses in `run`, and the uninterrupted run
# in one process -- as many table shards and learner threads as the
# cluster's -- in $work/whole.out.
lbfgs_whole_run() {
  /usr/bin/python3 "$root/scripts/gen-sparse-logreg.py" --examples 3000 --features 4096 --out "$work/data.svm" \
    2> /dev/null
  run=(--train "$work/data.svm" --features 4096 --max-iter 60 --ftol 0 --tol 0)
  "$gv" lbfgs "${run[@]}" --shards 2 --threads 2 > "$work/whole.out" 2> "$work/whole.log" \
    || fail "whole run: $(tail -3 "$work/whole.log")"
}

# lbfgs_same_end OUT LABEL TOLERANCE [accuracy]: the run whose last line is
# in OUT ended where the uninterrupted one did: the objective to TOLERANCE
# (relative), the iteration count, and with `accuracy` the accuracy too.
lbfgs_same_end() {
  /usr/bin/python3 - "$work/whole.out" "$1" "$2" "$3" "${4:-}" <<'PY' || fail "the $2 run ended elsewhere"
import sys
whole, other = (open(p).read().split() for p in sys.argv[1:3])
label, tolerance, accuracy = sys.argv[3], float(sys.argv[4]), sys.argv[5] == "accuracy"
print("uninterrupted:", " ".join(whole[:8]))
print(f"{label + ':':<15}", " ".join(other[:8]))
f0, f1 = float(whole[2]), float(other[2])
assert abs(f0 - f1) <= tolerance * abs(f0), (f0, f1)
assert whole[6] == other[6], ("iterations", whole[6], other[6])
assert not accuracy or whole[4] == other[4], ("accuracy", whole[4], other[4])
PY
}

# lbfgs_table_cluster [spare]: a loopback cluster in $work/cluster.conf -- a
# learner node of 2 learners, two shard nodes of one table shard each and,
# with `spare`, a standby shard node -- with its table-dir in $work/tables,
# every node started.
lbfgs_table_cluster() {
  cluster_node coord "roles = coordinator, vocabulary, exporter"
  cluster_node learn "roles = learner" "learners = 2"
  cluster_node shard-1 "roles = shard" "shards = 1"
  cluster_node shard-2 "roles = shard" "shards = 1"
  [ "${1:-}" = spare ] && cluster_node spare "roles = shard" "shards = 1" "standby = true"
  CLUSTER_EXTRA="table-dir = $work/tables" cluster_write "$work/cluster.conf"
  cluster_start shard-1 shard-2 ${1:+spare} learn
}
