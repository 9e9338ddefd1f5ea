#!/usr/bin/env bash
# A cluster that lets no one in (docs/security.md), tried as a hostile local user
# would, against real node processes on 127.0.0.1:
#   - a client without the secret, or with another one, is refused with one
#     clear line; the node logs one line and keeps serving;
#   - a peer that proves the secret and then announces a 4 GB frame is cut
#     off before the node allocates it (its RSS stays small);
#   - a peer that proves the secret and sends messages whose byte buffer
#     claims 4 GB, a malformed config_value, or lists nested 100000 deep,
#     costs the node nothing and does not end it (CAF 0.17.6 allocated
#     4 GB, threw, or overflowed its stack);
#   - idle connections beyond max-handshakes-per-address are refused;
#   - a secret file others can read, and a config without any secret, stop
#     a node from starting; insecure = true starts with a warning;
#   - a job whose corpus or output lies outside allow-read / allow-write is
#     refused before anything is read or written, and so is an export;
#   - after all that, the same nodes train a job end to end;
#   - with TLS (certificates made with openssl as docs/security.md says),
#     a cluster trains end to end, a node with a certificate from another
#     CA is refused, and a silent socket is closed by the handshake timer.
# Usage: e2e_security.sh GRIDVEC_BINARY [HOSTILE_PEER_BINARY]
set -euo pipefail
gridvec=$1
hostile=${2:-$(dirname "$gridvec")/tests/gridvec_hostile_peer}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
probe() { /usr/bin/python3 "$here/peer_probe.py" "$@"; }
mkdir -p "$work/in" "$work/out" "$work/private"
(zcat "$here/data/dev-corpus.txt.gz" || true) | head -n 3000 > "$work/in/corpus.txt"
cp "$work/in/corpus.txt" "$work/private/corpus.txt"
small=(-size 32 -window 3 -negative 3 -min-count 5 -iter 1 --fused 0)

CLUSTER_ALLOW_READ="$work/in" CLUSTER_ALLOW_WRITE="$work/out" CLUSTER_EXTRA="max-handshakes-per-address = 24"
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard "roles = shard" "shards = 1"
cluster_node learn "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 500
conf=$work/cluster.conf
port=${CLUSTER_PORT[coord]}
cluster_start coord shard learn

# No secret, and the wrong secret: refused, one clear line each.
"$gridvec" keygen "$work/other.key" > /dev/null
if timeout 30 "$gridvec" shell --connect "127.0.0.1:$port" -c status 2> "$work/nosecret.err"; then
  fail "a client without the secret was served"
fi
grep -q "wants the cluster secret" "$work/nosecret.err" || fail "no secret: $(cat "$work/nosecret.err")"
if timeout 30 "$gridvec" shell --connect "127.0.0.1:$port" --secret "$work/other.key" -c status \
     2> "$work/wrong.err"; then
  fail "a client with the wrong secret was served"
fi
grep -q "does not know the cluster secret" "$work/wrong.err" || fail "wrong secret: $(cat "$work/wrong.err")"
[ "$(wc -l < "$work/wrong.err")" -eq 1 ] || fail "more than one line: $(cat "$work/wrong.err")"
wait_for_line "$work/coord.log" "refused the connection from 127.0.0.1:[0-9]+: the peer does not know" 5
[ "$(probe handshake "$port" "$work/other.key")" = closed ] || fail "the probe's wrong proof was accepted"
[ "$(probe handshake "$port" "$CLUSTER_SECRET")" = open ] || fail "the right proof was refused"

# A 4 GB frame from a peer that knows the secret: cut off, nothing allocated.
shard_port=${CLUSTER_PORT[shard]}
[ "$(probe bigframe "$shard_port" "$CLUSTER_SECRET")" = closed ] || fail "the 4 GB frame was not refused"
wait_for_line "$work/shard.log" "a frame announcing 4294967280 bytes, over the limit" 5
rss=$(awk '/VmRSS/ {print $2}' "/proc/${CLUSTER_PID[shard]}/status")
[ "$rss" -lt 300000 ] || fail "the shard node's RSS is $rss kB after the 4 GB frame"

# Lies inside a frame from a peer that knows the secret: a buffer claiming
# 4 GB in a few bytes, a config_value that made CAF throw, one nested deep
# enough to overflow its stack. Dropped; the node's peak memory stays small
# and it still serves.
for mode in bigbuffer config_value deep; do
  # As a node (an insider with the secret): a client's would not get past the client gate.
  [ "$("$hostile" "$shard_port" "$CLUSTER_SECRET" "$mode" node)" = sent ] || fail "the hostile peer could not send ($mode)"
done
sleep 1
kill -0 "${CLUSTER_PID[shard]}" 2>/dev/null || fail "the shard node ended on a hostile message"
peak=$(awk '/VmHWM/ {print $2}' "/proc/${CLUSTER_PID[shard]}/status")
[ "$peak" -lt 300000 ] || fail "the shard node's peak RSS is $peak kB after the lying messages"
[ "$(probe handshake "$shard_port" "$CLUSTER_SECRET")" = open ] || fail "the shard node stopped serving"
grep -q "dropped a message from a peer: a byte buffer claims 4294967280 bytes" "$work/shard.log" ||
  fail "the shard node did not log the lying buffer"
grep -q "dropped a message from a peer: a malformed config_value" "$work/shard.log" ||
  fail "the shard node did not log the malformed config_value"
grep -q "dropped a message from a peer: values nested more than 32 deep" "$work/shard.log" ||
  fail "the shard node did not log the deeply nested config_value"
echo "ok: lying messages dropped, shard node peak RSS $peak kB"

# Idle connections: at most max-handshakes-per-address, the rest refused.
closed=$(probe idle "$shard_port" 40)
[ "$closed" -ge 16 ] || fail "only $closed of 40 idle connections were refused (cap 24)"
wait_for_line "$work/shard.log" "too many connections in their handshake from 127.0.0.1" 5

# Paths outside the allowed directories: refused before anything is touched.
if timeout 60 "$gridvec" submit --config "$conf" -train "$work/private/corpus.txt" \
     -output "$work/out/v.txt" "${small[@]}" 2> "$work/read.err"; then
  fail "a corpus outside allow-read was trained on"
fi
grep -q "the corpus $work/private/corpus.txt is outside the directories this cluster may read" "$work/read.err" ||
  fail "corpus outside: $(cat "$work/read.err")"
ln -s "$work/private/corpus.txt" "$work/in/link.txt"
if timeout 60 "$gridvec" submit --config "$conf" -train "$work/in/link.txt" \
     -output "$work/out/v.txt" "${small[@]}" 2> "$work/link.err"; then
  fail "a link out of allow-read was followed"
fi
grep -q "outside the directories this cluster may read" "$work/link.err" || fail "link: $(cat "$work/link.err")"
if timeout 60 "$gridvec" submit --config "$conf" -train "$work/in/corpus.txt" \
     -output "$work/private/v.txt" "${small[@]}" 2> "$work/write.err"; then
  fail "an output outside allow-write was written"
fi
grep -q "the output $work/private/v.txt is outside the directories this cluster may write" "$work/write.err" ||
  fail "output outside: $(cat "$work/write.err")"
[ ! -e "$work/private/v.txt" ] || fail "the refused output exists"

# After all that, the same nodes train; then an export outside is refused.
timeout 300 "$gridvec" submit --config "$conf" -train "$work/in/corpus.txt" \
  -output "$work/out/vectors.txt" "${small[@]}" > "$work/submit.log" 2>&1 ||
  { cat "$work/submit.log" >&2; fail "the job failed"; }
[ -s "$work/out/vectors.txt" ] || fail "no vectors"
if timeout 30 "$gridvec" shell --config "$conf" -c "export $work/private/x.txt" > "$work/export.out" 2>&1; then
  fail "an export outside allow-write succeeded"
fi
grep -q "outside the directories this cluster may write" "$work/export.out" || fail "export: $(cat "$work/export.out")"
timeout 30 "$gridvec" shell --config "$conf" -c shutdown > /dev/null 2>&1 || true
cluster_wait_exit 30

# A secret that others can read, and a config without a secret: no start.
chmod 644 "$CLUSTER_SECRET"
if timeout 10 "$gridvec" node --config "$conf" --name coord 2> "$work/mode.err"; then fail "started"; fi
grep -q "can be read or written by other users (mode 0644); run: chmod 600" "$work/mode.err" ||
  fail "mode: $(cat "$work/mode.err")"
chmod 600 "$CLUSTER_SECRET"
grep -v "^secret = " "$conf" > "$work/nosecret.conf"
if timeout 10 "$gridvec" node --config "$work/nosecret.conf" --name coord 2> "$work/nokey.err"; then
  fail "started without a secret"
fi
grep -q "no secret: add 'secret = FILE'" "$work/nokey.err" || fail "no secret: $(cat "$work/nokey.err")"
sed 's/^\[cluster\]$/[cluster]\ninsecure = true/' "$work/nosecret.conf" > "$work/insecure.conf"
timeout 3 "$gridvec" node --config "$work/insecure.conf" --name coord > "$work/insecure.log" 2>&1 || true
grep -q "has insecure = true: anyone who can reach a node's port" "$work/insecure.log" ||
  fail "no warning: $(cat "$work/insecure.log")"

# TLS: a cluster CA and one certificate for the nodes (docs/security.md).
cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=gridvec CA" 2> /dev/null
openssl req -newkey rsa:2048 -nodes -keyout node.key -out node.csr -subj "/CN=gridvec node" 2> /dev/null
openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out node.pem -days 2 2> /dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout rogue.key -out rogue.pem -days 2 -subj "/CN=rogue" 2> /dev/null
chmod 600 ca.key node.key rogue.key
cd - > /dev/null
CLUSTER_EXTRA="tls-certificate = $work/node.pem
tls-key = $work/node.key
tls-ca = $work/ca.pem"
cluster_write "$work/tls.conf" 500
sed "s|$work/node.key|$work/rogue.key|" "$work/tls.conf" > "$work/wrongkey.conf"
if timeout 10 "$gridvec" node --config "$work/wrongkey.conf" --name coord 2> "$work/wrongkey.err"; then
  fail "a node started with another certificate's key"
fi
grep -q "is not the private key of $work/node.pem" "$work/wrongkey.err" || fail "key: $(cat "$work/wrongkey.err")"
cluster_start coord shard learn
sed "s|$work/node.pem|$work/rogue.pem|; s|$work/node.key|$work/rogue.key|" "$work/tls.conf" > "$work/rogue.conf"
if timeout 30 "$gridvec" shell --config "$work/rogue.conf" -c status 2> "$work/rogue.err"; then
  fail "a client with a certificate from another CA was served"
fi
grep -q "TLS\|closed the connection during the handshake" "$work/rogue.err" || fail "rogue: $(cat "$work/rogue.err")"
[ "$(probe handshake "$port" "$CLUSTER_SECRET")" = closed ] || fail "a plain connection got through to a TLS node"
# A silent TCP socket on a TLS node: closed by the handshake timer (TLS's
# handshake included), with nothing else happening on the node.
waited=$(probe silent "$port")
[ "$waited" != never ] || fail "a silent socket on a TLS node was never closed"
/usr/bin/python3 -c "import sys; sys.exit(0 if $waited <= 6 else 1)" || fail "a silent TLS socket was closed after $waited s"
timeout 300 "$gridvec" submit --config "$work/tls.conf" --shutdown -train "$work/in/corpus.txt" \
  -output "$work/out/tls-vectors.txt" "${small[@]}" > "$work/tls-submit.log" 2>&1 ||
  { cat "$work/tls-submit.log" >&2; fail "the TLS job failed"; }
[ -s "$work/out/tls-vectors.txt" ] || fail "no vectors over TLS"
cluster_wait_exit 30
echo "ok: secret, frame and connection bounds, allowed paths and TLS all hold"
