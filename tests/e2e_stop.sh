#!/usr/bin/env bash
# Nodes outlive jobs, and stopping a cluster stops every node of its
# config, real OS processes on 127.0.0.1:
#   - before any job (the coordinator's node has connected to no other
#     node yet), `shell -c shutdown` stops them all;
#   - `gridvec submit` leaves every node up, a table's rows included, and
#     the cluster takes the next job; `gridvec stop --config` stops them all
#     and exits 0 once none listens (and 1, in one line, with no cluster);
#   - `submit --shutdown`, and `shutdown-after-job = true` in the config,
#     stop every node when the job ends; `--keep-running` overrides the
#     config;
#   - after a job, a node whose connection the coordinator's node dropped
#     (it was frozen past the connection timeout, as a late heartbeat on a
#     loaded machine does) is still running, and gets its stop on a new
#     connection.
# Usage: e2e_stop.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() {
  echo "FAIL: $*" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
  exit 1
}
(zcat "$here/data/dev-corpus.txt.gz" || true) | head -n 2000 > "$work/corpus.txt"

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard "roles = shard" "shards = 1"
cluster_node learn "roles = learner" "learners = 1"
# Heartbeats every 200 ms: CAF drops a connection silent for 2 s.
cluster_write "$work/cluster.conf" 200

echo "--- a shutdown before any job"
cluster_start coord shard learn
timeout 30 "$gridvec" shell --config "$work/cluster.conf" -c shutdown > "$work/shutdown.out" 2>&1 ||
  fail "shutdown: $(cat "$work/shutdown.out")"
cluster_wait_exit 20 || fail "a node did not stop on a shutdown before any job"

job() { # a tiny job; its output in $work/submit.log
  timeout 120 "$gridvec" submit "$@" -train "$work/corpus.txt" -output "$work/vectors.txt" -size 16 -iter 1 \
    -min-count 5 > "$work/submit.log" 2>&1 || fail "the job failed: $(cat "$work/submit.log")"
}
all_up() {
  sleep 1
  for name in coord shard learn; do
    kill -0 "${CLUSTER_PID[$name]}" 2>/dev/null || fail "node $name stopped after $1"
  done
}

echo "--- nodes and their tables outlive jobs; gridvec stop stops them"
cluster_start coord shard learn
table() { "$gridvec" table --config "$work/cluster.conf" --timeout 20 "$@"; }
table create kept 4 rows=10 layout=columns storage=dense > "$work/table.out" || fail "create: $(cat "$work/table.out")"
table put kept 3 1 2 3 4 > /dev/null || fail "put"
job --config "$work/cluster.conf"
all_up "a job"
table get kept 3 | grep -qE "^3 1 2 3 4$" || fail "the table's row did not outlive the job: $(table get kept 3)"
job --config "$work/cluster.conf"
timeout 30 "$gridvec" shell --config "$work/cluster.conf" -c status > "$work/status.out" 2>&1
grep -qE "^job +2$" "$work/status.out" || fail "the second job was not job 2 of the same cluster: $(cat "$work/status.out")"
all_up "a second job"
timeout 60 "$gridvec" stop --config "$work/cluster.conf" > "$work/stop.out" 2>&1 || fail "stop: $(cat "$work/stop.out")"
grep -q "^stopped 3 nodes of $work/cluster.conf$" "$work/stop.out" || fail "stop said: $(cat "$work/stop.out")"
for name in coord shard learn; do
  port=${CLUSTER_PORT[$name]}
  (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && fail "node $name still listens after gridvec stop"
done
cluster_wait_exit 20 || fail "a node did not stop cleanly on gridvec stop"
if timeout 60 "$gridvec" stop --config "$work/cluster.conf" 2> "$work/stop.err"; then fail "stopped a stopped cluster"; fi
[ "$(wc -l < "$work/stop.err")" -eq 1 ] && grep -q "coordinator's node coord is not reachable" "$work/stop.err" ||
  fail "stop with no cluster: $(cat "$work/stop.err")"

echo "--- submit --shutdown stops every node when the job ends"
cluster_start coord shard learn
job --config "$work/cluster.conf" --shutdown
cluster_wait_exit 30 || fail "a node did not stop after submit --shutdown"

echo "--- shutdown-after-job = true in the config; --keep-running overrides it"
sed 's/^\[cluster\]$/[cluster]\nshutdown-after-job = true/' "$work/cluster.conf" > "$work/stopping.conf"
grep -q "^shutdown-after-job = true$" "$work/stopping.conf" || fail "sed wrote no shutdown-after-job"
CLUSTER_CONFIG=$work/stopping.conf cluster_start coord shard learn
job --config "$work/stopping.conf" --keep-running
all_up "a job with --keep-running"
job --config "$work/stopping.conf"
cluster_wait_exit 30 || fail "a node did not stop after a job with shutdown-after-job = true"
if "$gridvec" submit --config "$work/stopping.conf" --shutdown --keep-running -train x -output y 2> "$work/both.err"; then
  fail "--shutdown with --keep-running was accepted"
fi
grep -q "contradict" "$work/both.err" || fail "--shutdown --keep-running: $(cat "$work/both.err")"

echo "--- a node whose connection was dropped"
cluster_start coord shard learn
job --config "$work/cluster.conf"
kill -STOP "${CLUSTER_PID[shard]}"
sleep 5
kill -CONT "${CLUSTER_PID[shard]}"
sleep 1
kill -0 "${CLUSTER_PID[shard]}" || fail "the shard node ended after it was frozen"
timeout 60 "$gridvec" shell --config "$work/cluster.conf" -c shutdown > "$work/shutdown.out" 2>&1 ||
  fail "shutdown: $(cat "$work/shutdown.out")"
cluster_wait_exit 30 || fail "a node did not stop after its connection was dropped"
echo "ok: nodes outlive jobs; every node stops (gridvec stop, --shutdown, shutdown-after-job, shell shutdown), also one never connected to and one whose connection was dropped"
