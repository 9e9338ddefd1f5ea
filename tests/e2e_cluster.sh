#!/usr/bin/env bash
# A real cluster on loopback: five OS processes (a coordinator node, two
# shard nodes, two learner nodes) on ephemeral ports of 127.0.0.1 train the
# dev corpus; the vectors must pass the quality floor, the bytes on the wire
# must match seed 000's formula (7), and every process must exit by itself.
# Usage: e2e_cluster.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../shared/data
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
zcat "$data/dev-corpus.txt.gz" > "$work/corpus.txt"

read -r p1 p2 p3 p4 p5 < <(/usr/bin/python3 -c "
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks: s.bind(('127.0.0.1', 0))
print(*[s.getsockname()[1] for s in socks])
for s in socks: s.close()")
cat > "$work/cluster.conf" <<CONF
[cluster]
heartbeat-ms = 500
connect-timeout-ms = 5000
[node coord]
host = 127.0.0.1
port = $p1
roles = coordinator, vocabulary, exporter
[node shard-a]
host = 127.0.0.1
port = $p2
roles = shard
shards = 1
[node shard-b]
host = 127.0.0.1
port = $p3
roles = shard
shards = 1
[node learn-a]
host = 127.0.0.1
port = $p4
roles = learner
learners = 1
[node learn-b]
host = 127.0.0.1
port = $p5
roles = learner
learners = 1
CONF

for n in coord shard-a shard-b learn-a learn-b; do
  "$gridvec" node --config "$work/cluster.conf" --name $n > "$work/$n.log" 2>&1 &
  pids+=($!)
done
# Wait until every node listens.
for port in $p1 $p2 $p3 $p4 $p5; do
  for _ in $(seq 1 100); do
    (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.1
  done
done

# A node name that is not in the config is refused at once.
if "$gridvec" node --config "$work/cluster.conf" --name nobody 2> "$work/nobody.err"; then
  echo "FAIL: unknown node name accepted"; exit 1
fi
grep -q "no node 'nobody'" "$work/nobody.err"

timeout 600 "$gridvec" submit --config "$work/cluster.conf" -train "$work/corpus.txt" \
  -output "$work/vectors.txt" -size 100 -window 5 -negative 5 -sample 1e-4 -min-count 5 -iter 5 \
  --shards 2 --report "$work/report.json"

/usr/bin/python3 "$here/../scripts/eval.py" "$work/vectors.txt" --floor-analogy 0.010 --floor-wordsim 0.18

# Bytes per trained input word, each direction, against formula (7) plus
# the index bytes (input, outputs and counts, in dotprod and adjust).
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["messages"]; S = r["shards"]; n = 5
trained = r["trained_words"]; w = r["pairs"] / trained
formula = w * (n + 1) * S * 4
index = 2 * S * 4 * (1 + w + 1)
sent = (m["dotprod_request"]["bytes"] + m["adjust_request"]["bytes"]) / trained
received = (m["dotprod_reply"]["bytes"] + m["adjust_reply"]["bytes"]) / trained
print(f"w={w:.2f} S={S}: learner->shards {sent:.1f} B/word (formula {formula:.1f} + index {index:.1f}), "
      f"shards->learner {received:.1f} B/word (formula {formula:.1f})")
assert abs(sent - (formula + index)) <= 0.15 * (formula + index), "sent bytes off the formula"
assert abs(received - formula) <= 0.15 * formula, "received bytes off the formula"
nodes = r["nodes"]
assert set(nodes) == {"coord", "shard-a", "shard-b", "learn-a", "learn-b"}, nodes
for name in ["shard-a", "shard-b", "learn-a", "learn-b"]:
    assert nodes[name]["sent"]["total"] > 0 and nodes[name]["received"]["total"] > 0, name
print("bytes per word match the formula")
PY

# Every node stops by itself once the job is done.
for i in "${!pids[@]}"; do
  for _ in $(seq 1 100); do
    kill -0 "${pids[$i]}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${pids[$i]}" 2>/dev/null; then
    echo "FAIL: node process ${pids[$i]} still running after the job"; exit 1
  fi
  wait "${pids[$i]}" || { echo "FAIL: a node exited with an error"; cat "$work"/*.log; exit 1; }
done
pids=()
grep -h "stopped" "$work"/*.log | wc -l | grep -q 5
echo "cluster test passed"
