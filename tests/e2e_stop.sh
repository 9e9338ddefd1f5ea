#!/usr/bin/env bash
# Stopping a cluster stops every node of its config, real OS processes on
# 127.0.0.1:
#   - before any job (the coordinator's node has connected to no other
#     node yet), `shell -c shutdown` stops them all;
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

echo "--- a node whose connection was dropped"
cluster_start coord shard learn
timeout 120 "$gridvec" submit --config "$work/cluster.conf" --keep-running -train "$work/corpus.txt" \
  -output "$work/vectors.txt" -size 16 -iter 1 -min-count 5 > "$work/submit.log" 2>&1 ||
  fail "the job failed: $(cat "$work/submit.log")"
kill -STOP "${CLUSTER_PID[shard]}"
sleep 5
kill -CONT "${CLUSTER_PID[shard]}"
sleep 1
kill -0 "${CLUSTER_PID[shard]}" || fail "the shard node ended after it was frozen"
timeout 60 "$gridvec" shell --config "$work/cluster.conf" -c shutdown > "$work/shutdown.out" 2>&1 ||
  fail "shutdown: $(cat "$work/shutdown.out")"
cluster_wait_exit 30 || fail "a node did not stop after its connection was dropped"
echo "ok: every node stops, also one never connected to and one whose connection was dropped"
