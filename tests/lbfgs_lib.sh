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

# lbfgs_learner_cluster [standby]: a loopback cluster in $work/cluster.conf of
# two shard nodes and two learner nodes of one learner each (learn-1,
# learn-2) and, with `standby`, a standby learner node learn-spare; the nodes
# may read and write only under $work. Every node started.
lbfgs_learner_cluster() {
  cluster_node coord "roles = coordinator, vocabulary, exporter"
  cluster_node shard-1 "roles = shard" "shards = 1"
  cluster_node shard-2 "roles = shard" "shards = 1"
  cluster_node learn-1 "roles = learner" "learners = 1"
  cluster_node learn-2 "roles = learner" "learners = 1"
  [ "${1:-}" = standby ] && cluster_node learn-spare "roles = learner" "learners = 1" "standby = true"
  CLUSTER_ALLOW_READ=$work CLUSTER_ALLOW_WRITE=$work cluster_write "$work/cluster.conf"
  cluster_start shard-1 shard-2 learn-1 learn-2 ${1:+learn-spare}
}

# lbfgs_learn2_killed_midpass: runs gridvec lbfgs on that cluster (output
# $work/lbfgs.out, log $work/lbfgs.log, weights $work/weights.txt); after its
# fifth iteration stops learn-2 (so that the driver is left waiting for its
# part of the next pass), then SIGKILLs it (the time in $killed_at), and
# waits for the run to end well. Before the kill it checks that learn-2 held
# share 1 and that nothing was given up on while it was only stopped.
lbfgs_learn2_killed_midpass() {
  "$gv" lbfgs "${run[@]}" --config "$work/cluster.conf" --output "$work/weights.txt" \
    > "$work/lbfgs.out" 2> "$work/lbfgs.log" &
  local pid=$! code=0
  wait_for_line "$work/lbfgs.log" "iteration 5:" 30 "$pid" || fail "no fifth iteration: $(tail -3 "$work/lbfgs.log")"
  grep -q "^lbfgs: " "$work/lbfgs.out" && fail "the run ended before learn-2 was killed; make it longer"
  grep -q "share 1 is examples 1500 to 3000" "$work/learn-2.log" \
    || fail "learn-2 did not load share 1: $(tail -3 "$work/learn-2.log")"
  # Stopped first, so that the kill lands in the middle of a pass: the driver
  # sends learn-2 its next pass within milliseconds and waits for its answer.
  kill -STOP "${CLUSTER_PID[learn-2]}"
  sleep 1
  grep -q "is lost" "$work/lbfgs.log" && fail "learn-2 was given up on while stopped, before it was killed"
  killed_at=$(date +%s.%N)
  cluster_kill learn-2
  timeout 40 tail --pid="$pid" -f /dev/null || fail "gridvec lbfgs did not end within 40 s of losing a learner"
  wait "$pid" || code=$?
  [ "$code" = 0 ] || fail "gridvec lbfgs exited $code after losing a learner: $(tail -5 "$work/lbfgs.log")"
  grep -E 'is lost|replaced' "$work/lbfgs.log" | sed 's/^.*\] //'
}
