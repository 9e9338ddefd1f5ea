#!/usr/bin/env bash
# The documented local cluster survives the loss it was built for:
# scripts/cluster-local.sh starts the nodes of examples/cluster-local.conf
# (on free ports), a job with checkpoints runs, shard-a is SIGKILLed after
# the first checkpoint; the script reports it and keeps the other nodes up,
# the supervisor restores the shard on the standby node, and the job ends
# with vectors above the quality floor. The nodes outlive the job; after
# `gridvec stop` the script exits 1 (a node failed) once they have stopped.
# Usage: e2e_cluster_local.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
cluster_init_dev "$gridvec"
fail() { echo "FAIL: $*" >&2; tail -n 20 "$work/local.log" >&2 || true; exit 1; }

# The example, on free ports.
conf=$work/cluster.conf
cp "$here/../examples/cluster-local.conf" "$conf"
for port in 7700 7701 7702 7703 7704 7705; do
  sed -i "s/^port = $port\$/port = $(cluster_free_port)/" "$conf"
done
"$here/../scripts/cluster-local.sh" "$conf" "$gridvec" > "$work/local.log" 2>&1 &
script=$!
for port in $(sed -n 's/^port = //p' "$conf"); do
  for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done

timeout 600 "$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/vectors.txt" \
  -size 100 -iter 3 --checkpoint-dir "$work/ck" --checkpoint-every 600000w > "$work/submit.log" 2>&1 &
job=$!
wait_for_line "$work/submit.log" "checkpoint 1 written" 300 || fail "no checkpoint"
shard=$(pgrep -f -- "--config $conf --name shard-a") || fail "no shard-a process"
kill -KILL $shard
wait_for_line "$work/local.log" "node shard-a failed.*still running" 30 || fail "the loss was not reported"
wait $job || { cat "$work/submit.log" >&2; fail "the job failed after the shard was lost"; }
grep -q "restored\|recovered\|recovery" "$work/submit.log" || fail "no recovery in the job's log"
quality_floor "$work/vectors.txt" 0.010 0.18
kill -0 $script || fail "cluster-local.sh ended with the job"
timeout 60 "$gridvec" stop --config "$conf" > "$work/stop.out" 2>&1 || fail "gridvec stop: $(cat "$work/stop.out")"
set +e; timeout 60 tail --pid=$script -f /dev/null; wait $script; code=$?; set -e
[ $code -eq 1 ] || fail "cluster-local.sh exited $code (1 expected: a node failed)"
echo "ok: shard-a lost, recovered on the standby, vectors written; cluster-local.sh reported it"
