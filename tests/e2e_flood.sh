#!/usr/bin/env bash
# Floods of idle sockets against a real node, from 127.0.0.2-.5, while a
# legitimate client is measured:
#   - a silent connection is closed by the handshake timer
#     (connect-timeout-ms), with nothing else happening on the node;
#   - 1,000 idle sockets on the node's port: those beyond
#     max-handshakes-per-address are closed at once, the rest wait in the
#     handshake pool; `gridvec shell -c status` is served every time;
#   - 1,000 idle sockets on the node's HTTP port: /healthz stays 200 and an
#     authorised /status is served.
# Prints one line of figures per flood (scripts/bench-security shows them).
# Usage: e2e_flood.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() { echo "FAIL: $*" >&2; cluster_dump_logs; exit 1; }
probe() { /usr/bin/python3 "$here/peer_probe.py" "$@"; }
/usr/bin/python3 -c "import cryptography" || fail "python3-cryptography is missing (scripts/install-deps.sh)"
# 1,000 sockets in the flooding process, and as many accepted by the node.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge 2100 ] || fail "the open-file limit is $(ulimit -n); the floods need 2100"
attackers=(127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5)
sockets=1000
rounds=10

http_port=$(cluster_free_port)
cluster_node coord "roles = coordinator, vocabulary, exporter, shard, learner" "shards = 1" "learners = 1" \
  "http-port = $http_port"
CLUSTER_EXTRA="max-handshakes = 64
max-handshakes-per-address = 8"
cluster_write "$work/cluster.conf" 500 # connect-timeout-ms = 3000
conf=$work/cluster.conf
port=${CLUSTER_PORT[coord]}
token=$("$gridvec" keygen --http-token "$CLUSTER_SECRET")
cluster_start coord
sleep 1

# The handshake deadline is a timer: nothing else arrives meanwhile.
waited=$(probe silent "$port")
[ "$waited" != never ] || fail "a silent connection was never closed"
/usr/bin/python3 -c "import sys; sys.exit(0 if 2.5 <= $waited <= 5 else 1)" ||
  fail "a silent connection was closed after $waited s (connect-timeout-ms = 3000)"
echo "ok: a silent connection closed after $waited s"

# Runs CMD... $rounds times; prints "ok/rounds median-ms max-ms".
measure() {
  /usr/bin/python3 - "$rounds" "$@" <<'PY'
import subprocess, sys, time
rounds, cmd = int(sys.argv[1]), sys.argv[2:]
times, ok = [], 0
for _ in range(rounds):
    start = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    times.append((time.monotonic() - start) * 1000)
    out = r.stdout.decode(errors="replace")
    if r.returncode == 0 and ("200" if cmd[0].endswith("curl") else "") in out:
        ok += 1
    else:
        print("failed:", out.strip().splitlines()[-1:] if out.strip() else r.returncode, file=sys.stderr)
times.sort()
print(ok, round(times[len(times) // 2]), round(times[-1]))
PY
}

# The node's port.
read -r ok0 med0 max0 < <(measure "$gridvec" shell --config "$conf" -c status)
[ "$ok0" = "$rounds" ] || fail "status without a flood: $ok0 of $rounds"
probe flood "$port" "$sockets" 12 "${attackers[@]}" > "$work/flood.out" 2> "$work/flood.err" &
flood_pid=$!
wait_for_line "$work/flood.err" "holding" 30 "$flood_pid"
read -r ok1 med1 max1 < <(measure "$gridvec" shell --config "$conf" -c status)
wait "$flood_pid"
[ "$ok1" = "$rounds" ] || fail "during the flood, status answered $ok1 of $rounds times"
read -r opened closed < <(sed -n 's/opened \([0-9]*\) closed \([0-9]*\)/\1 \2/p' "$work/flood.out")
[ "$opened" -ge $((sockets * 9 / 10)) ] || fail "the flood opened only $opened sockets: $(cat "$work/flood.err")"
[ "$closed" = "$opened" ] || fail "after 12 s, $((opened - closed)) of the flood's sockets are still open"
grep -q "too many connections in their handshake from 127.0.0.[2-5]" "$work/coord.log" ||
  fail "no refusal over max-handshakes-per-address in the log"
echo "node port: $opened idle sockets from ${#attackers[@]} addresses; shell status $ok1/$rounds served," \
  "median $med1 ms, max $max1 ms (without the flood: median $med0 ms, max $max0 ms)"

# The HTTP port.
curl_status() { curl -s -o /dev/null -w "%{http_code}" --max-time 10 "$@"; }
probe flood "$http_port" "$sockets" 12 "${attackers[@]}" > "$work/hflood.out" 2> "$work/hflood.err" &
flood_pid=$!
wait_for_line "$work/hflood.err" "holding" 30 "$flood_pid"
read -r ok2 med2 max2 < <(measure /usr/bin/curl -s -o /dev/null -w "%{http_code}" --max-time 10 \
  "http://127.0.0.1:$http_port/healthz")
[ "$(curl_status -H "Authorization: Bearer $token" "http://127.0.0.1:$http_port/status")" = 200 ] ||
  fail "an authorised /status was not served during the flood"
wait "$flood_pid"
[ "$ok2" = "$rounds" ] || fail "during the HTTP flood, /healthz answered 200 $ok2 of $rounds times"
read -r hopened hclosed < <(sed -n 's/opened \([0-9]*\) closed \([0-9]*\)/\1 \2/p' "$work/hflood.out")
echo "http port: $hopened idle sockets from ${#attackers[@]} addresses; /healthz $ok2/$rounds 200," \
  "median $med2 ms, max $max2 ms; $hclosed closed by the server after 12 s"
[ "$(curl_status "http://127.0.0.1:$http_port/healthz")" = 200 ] || fail "/healthz after the flood"

timeout 30 "$gridvec" shell --config "$conf" -c shutdown > /dev/null 2>&1 || true
cluster_wait_exit 30
echo "ok: both ports served a legitimate client through the floods"
