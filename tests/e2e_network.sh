#!/usr/bin/env bash
# The cluster's network guards against real node processes on 127.0.0.1:
#   - a handshake relayed through a real proxy process (tests/relay_proxy.py,
#     standing where a stopped node's port was) fails, for a client and for a
#     node, and the node logs the refusal; a proof reflected back at a node
#     fails;
#   - a record changed on the way after the handshake closes the connection;
#   - a client (with the client key, or with the secret) reaches the
#     controller, but a node-internal request from a client is refused and
#     closes its connection, while the same request from a node is answered;
#   - a client key cannot start a node;
#   - through all that, the cluster trains a job end to end.
# Usage: e2e_network.sh GRIDVEC_BINARY [HOSTILE_PEER_BINARY]
set -euo pipefail
gridvec=$1
hostile=${2:-$(dirname "$gridvec")/tests/gridvec_hostile_peer}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() { echo "FAIL: $*" >&2; cluster_dump_logs; exit 1; }
probe() { /usr/bin/python3 "$here/peer_probe.py" "$@"; }
/usr/bin/python3 -c "import cryptography" || fail "python3-cryptography is missing (scripts/install-deps.sh)"
(zcat "$here/data/dev-corpus.txt.gz" || true) | head -n 3000 > "$work/corpus.txt"

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard "roles = shard" "shards = 1"
cluster_node learn "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 500
conf=$work/cluster.conf
port=${CLUSTER_PORT[coord]}
ghost=$(cluster_free_port) # where a stopped node listened: now the relay's
"$gridvec" keygen --client-key "$CLUSTER_SECRET" "$work/client.key" > /dev/null
cluster_start coord shard learn

# A client, with the client key or the secret, reaches the controller.
timeout 30 "$gridvec" shell --connect "127.0.0.1:$port" --secret "$work/client.key" -c status > "$work/ok1.out" 2>&1 ||
  fail "a client with the client key was not served: $(cat "$work/ok1.out")"
timeout 30 "$gridvec" shell --config "$conf" -c status > "$work/ok2.out" 2>&1 ||
  fail "a client with the config's secret was not served: $(cat "$work/ok2.out")"
[ "$(probe handshake "$port" "$CLUSTER_SECRET" client)" = open ] || fail "the client proof was refused"
[ "$(probe handshake "$port" "$CLUSTER_SECRET" node)" = open ] || fail "the node proof was refused"

# The relay: every byte passed on unchanged, in both directions, from a
# stopped node's port to the coordinator's. The handshake binds both endpoints of
# the connection, so the victim refuses the node's proof and proves nothing.
/usr/bin/python3 "$here/relay_proxy.py" "$ghost" "$port" 60 > "$work/relay.out" 2> "$work/relay.err" &
relay_pid=$!
wait_for_line "$work/relay.out" listening 10
if timeout 30 "$gridvec" shell --connect "127.0.0.1:$ghost" --secret "$work/client.key" -c "status; nodes" \
     > "$work/relayed.out" 2> "$work/relayed.err"; then
  fail "a client's handshake was relayed to the coordinator: $(cat "$work/relayed.out")"
fi
grep -q "does not end at the node it was made to" "$work/relayed.err" || fail "relay: $(cat "$work/relayed.err")"
[ "$(probe handshake "$ghost" "$CLUSTER_SECRET" node)" = closed ] || fail "a node's handshake was relayed"
wait_for_line "$work/coord.log" "refused the connection from 127.0.0.1:[0-9]+: the peer does not know" 5
grep -q "relay: a connection closed" "$work/relay.err" || fail "nothing went through the relay"
kill "$relay_pid" 2>/dev/null || true
wait "$relay_pid" 2>/dev/null || true
echo "ok: relayed handshakes refused"

# A node's own proof sent back at it; a record changed after the handshake.
[ "$(probe reflect "$port" "$CLUSTER_SECRET")" = closed ] || fail "a reflected proof was accepted"
[ "$(probe tamper "$port" "$CLUSTER_SECRET")" = closed ] || fail "a changed record was accepted"
wait_for_line "$work/coord.log" "failed its authentication tag" 5

# Roles: a node-internal request from a client is refused (and its
# connection closed); from a node (the secret itself) it is answered.
out=$("$hostile" "$port" "$work/client.key" newcounter client 2>&1 || true)
case $out in refused*) ;; *) fail "a client's internal request: $out" ;; esac
wait_for_line "$work/coord.log" "a client sent a request the node's entry does not answer to clients" 5
out=$("$hostile" "$port" "$CLUSTER_SECRET" status client 2>&1 || true)
case $out in refused*) ;; *) fail "a client holding the secret, internal request: $out" ;; esac
[ "$("$hostile" "$port" "$work/client.key" controller client 2>&1)" = answered ] || fail "a client's controller request"
[ "$("$hostile" "$port" "$CLUSTER_SECRET" status node 2>&1)" = answered ] || fail "a node's internal request"
[ "$(probe handshake "$port" "$work/client.key" client)" = open ] || fail "the client key's proof was refused"
[ "$(probe handshake "$port" "$work/client.key" node)" = closed ] || fail "a client key passed as a node"
echo "ok: clients reach the controller only"

# A client key starts no node.
sed "s|^secret = .*|secret = $work/client.key|" "$conf" > "$work/client.conf"
if timeout 10 "$gridvec" node --config "$work/client.conf" --name coord 2> "$work/ghost.err"; then
  fail "a node started with the client key"
fi
grep -q "is a client key: a node needs the cluster secret" "$work/ghost.err" || fail "ghost: $(cat "$work/ghost.err")"

# Through all that, the cluster trains (every byte sealed after the handshake).
timeout 300 "$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/vectors.txt" \
  -size 32 -window 3 -negative 3 -min-count 5 -iter 1 --fused 0 --shutdown > "$work/submit.log" 2>&1 ||
  { cat "$work/submit.log" >&2; fail "the job failed"; }
[ -s "$work/vectors.txt" ] || fail "no vectors"
cluster_wait_exit 30 coord shard learn
echo "ok: relay, reflection, tampering and roles refused; the cluster trains"
