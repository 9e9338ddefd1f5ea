#!/usr/bin/env bash
# Network cost of training, measured on a loopback cluster (coordinator,
# two shard nodes, two learner nodes) for S = 1, 2, 4, 8 shards on the dev
# corpus, printed beside the Network-efficient word2vec paper's formula (7), w·(n+1)·S·4 bytes per
# trained input word in each direction, plus index bytes, and beside what a
# parameter server that ships vectors would send, (2 + w·n)·d·4.
# Usage: scripts/bytes-per-word.sh [CORPUS] (default: the dev corpus)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gridvec=${GRIDVEC:-$("$root/scripts/gridvec-path")}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
corpus=${1:-}
if [ -z "$corpus" ]; then
  corpus=$work/corpus.txt
  zcat "$root/tests/data/dev-corpus.txt.gz" > "$corpus"
fi
d=100; n=5
printf '%-3s %8s %14s %14s %14s %14s %12s\n' S w "sent B/word" "recv B/word" "formula(7)" "+index" "PS (2+wn)d4"
for S in 1 2 4 8; do
  read -r p1 p2 p3 p4 p5 < <(/usr/bin/python3 -c "
import socket
s=[socket.socket() for _ in range(5)]
[x.bind(('127.0.0.1',0)) for x in s]
print(*[x.getsockname()[1] for x in s])")
  cat > "$work/c.conf" <<CONF
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
  pids=()
  for node in coord shard-a shard-b learn-a learn-b; do
    "$gridvec" node --config "$work/c.conf" --name $node > "$work/$node.log" 2>&1 &
    pids+=($!)
  done
  for port in $p1 $p2 $p3 $p4 $p5; do
    for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
  done
  "$gridvec" submit --config "$work/c.conf" --shutdown -train "$corpus" -output "$work/v.txt" -size $d -window 5 \
    -negative $n -sample 1e-4 -min-count 5 -iter 1 --shards $S --report "$work/r.json" 2> "$work/submit.log"
  for p in "${pids[@]}"; do wait "$p" || true; done
  /usr/bin/python3 - "$work/r.json" $S $d $n <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); S, d, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
m = r["messages"]; t = r["trained_words"]; w = r["pairs"] / t
sent = (m["dotprod_request"]["bytes"] + m["adjust_request"]["bytes"]) / t
recv = (m["dotprod_reply"]["bytes"] + m["adjust_reply"]["bytes"]) / t
formula = w * (n + 1) * S * 4
index = 2 * S * 4 * (1 + w + 1)
ps = (2 + w * n) * d * 4
print(f"{S:<3} {w:8.2f} {sent:14.1f} {recv:14.1f} {formula:14.1f} {formula + index:14.1f} {ps:12.1f}")
PY
done
