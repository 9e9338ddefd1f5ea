#!/usr/bin/env bash
# The nodes' HTTP API (docs/http.md) on a real loopback cluster with a
# secret: three OS processes, each with http-port, train the dev corpus for
# one epoch with; then curl and Python's urllib check
# /healthz, /metrics (parsed as Prometheus text, on every node), /status,
# /nearest, /vector, /analogy, the token (none or a wrong one: 401), the
# limits (an oversized header: 431, and the server goes on), 404/405/400,
# 8 concurrent clients x 50 requests, and that SIGTERM stops every node.
# Usage: e2e_http.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
cluster_init_dev "$gridvec"
fail() { echo "FAIL: $*" >&2; exit 1; }

http_coord=$(cluster_free_port)
http_shard=$(cluster_free_port)
http_learn=$(cluster_free_port)
cluster_node coord "roles = coordinator, vocabulary, exporter" "http-port = $http_coord"
cluster_node shard-a "roles = shard" "shards = 1" "http-port = $http_shard"
cluster_node learn-a "roles = learner" "learners = 1" "http-port = $http_learn"
cluster_write "$work/cluster.conf" 500
conf=$work/cluster.conf
token=$("$gridvec" keygen --http-token "$CLUSTER_SECRET")
[ ${#token} -eq 64 ] || fail "token '$token' is not 64 hex digits"
grep -q "$token" "$CLUSTER_SECRET" && fail "the token is the secret itself"

cluster_start coord shard-a learn-a
base=http://127.0.0.1:$http_coord
for port in $http_coord $http_shard $http_learn; do
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$port/healthz" | grep -q '"status": "ok"' || fail "no /healthz on port $port"
done
echo "ok: /healthz on every node, without a token"

auth=(-H "Authorization: Bearer $token")
code() { curl -s -o "$work/body" -w '%{http_code}' "$@"; }
[ "$(code "${auth[@]}" "$base/status")" = 200 ] || fail "/status before a job: $(cat "$work/body")"
grep -q '"phase": "idle"' "$work/body" || fail "/status before a job: $(cat "$work/body")"

timeout 300 "$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/vectors.txt" -size 48 \
  -min-count 5 -iter 1 > "$work/submit.log" 2>&1 || { cat "$work/submit.log"; fail "the job failed"; }
echo "ok: trained one epoch"

# --- the token ---
[ "$(code "$base/status")" = 401 ] || fail "no token: $(cat "$work/body")"
grep -q '"error"' "$work/body" || fail "401 without a JSON error: $(cat "$work/body")"
[ "$(code -H "Authorization: Bearer ${token/a/b}x" "$base/status")" = 401 ] || fail "a wrong token was accepted"
# The right length, its last character changed (to 0, or to 1 if it was 0:
# a token ending in 0 once made this "wrong" token the right one).
last=${token: -1}; [ "$last" = 0 ] && other=1 || other=0
[ "$(code -H "Authorization: Bearer ${token:0:63}$other" "$base/nearest?word=france")" = 401 ] ||
  fail "a token differing in its last character was accepted"
[ "$(code -H "Authorization: Basic $token" "$base/metrics")" = 401 ] || fail "a Basic header was accepted"
[ "$(code "http://127.0.0.1:$http_shard/metrics")" = 401 ] || fail "a shard node's /metrics without a token"
grep -q "refused .* request(s) without a valid bearer token" "$work/coord.log" || fail "no log line for refusals"
[ "$(grep -c "without a valid bearer token" "$work/coord.log")" -le 2 ] || fail "refusals are not rate-limited"
echo "ok: no token, a wrong token: 401, logged once"

# --- the JSON API with curl ---
[ "$(code "${auth[@]}" "$base/status")" = 200 ] || fail "/status: $(cat "$work/body")"
grep -q '"phase": "done"' "$work/body" || fail "/status after the job: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nearest?word=france&k=5")" = 200 ] || fail "/nearest: $(cat "$work/body")"
echo "ok: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nearest?word=zzznotaword")" = 404 ] || fail "unknown word: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nearest?word=france&k=0")" = 400 ] || fail "k=0: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nearest?word=france&k=20000")" = 400 ] || fail "k=20000: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nearest?word=%zz")" = 400 ] || fail "a bad escape: $(cat "$work/body")"
[ "$(code "${auth[@]}" "$base/nope")" = 404 ] || fail "unknown path: $(cat "$work/body")"
[ "$(code "${auth[@]}" -X POST "$base/status")" = 405 ] || fail "POST: $(cat "$work/body")"
[ "$(code "${auth[@]}" "http://127.0.0.1:$http_shard/status")" = 404 ] || fail "/status on a shard node"
# An oversized header (16 KiB > 8 KiB): refused, and the server goes on.
big=$(head -c 16384 /dev/zero | tr '\0' 'x')
status=$(code "${auth[@]}" -H "X-Big: $big" "$base/status")
[ "$status" = 431 ] || [ "$status" = 400 ] || fail "an oversized header got $status"
[ "$(code "${auth[@]}" "$base/status")" = 200 ] || fail "the server stopped serving after an oversized header"
echo "ok: 404, 400, 405, 431 ($status) and still serving"

# A parameter-server table on the shard node (docs/tables.md): its rows show
# in that node's /metrics.
"$gridvec" table --config "$conf" create http-t 4 > /dev/null || fail "table create"
"$gridvec" table --config "$conf" get http-t 1 2 3 > /dev/null || fail "table get"

# --- Python's standard library: parse everything, then load ---
/usr/bin/python3 - "$base" "$token" "$http_shard" "$http_learn" <<'PY'
import json, sys, threading, time, urllib.error, urllib.request
base, token, shard_port, learn_port = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
H = {"Authorization": "Bearer " + token}

def get(url, headers=H):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()

def prometheus(text):
    """Parses the text format strictly enough: HELP/TYPE before samples, gridvec_ names."""
    samples, typed = {}, {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert kind in ("counter", "gauge", "untyped"), line
            typed[name] = kind
            continue
        assert line and not line.startswith("#"), repr(line)
        name_labels, value = line.rsplit(" ", 1)
        name = name_labels.split("{", 1)[0]
        assert name.startswith("gridvec_"), line
        assert name in typed, "sample before its TYPE: " + line
        samples[name_labels] = float(value)
    return samples

for url, node in ((base, "coord"), (f"http://127.0.0.1:{shard_port}", "shard-a"), (f"http://127.0.0.1:{learn_port}", "learn-a")):
    status, ctype, text = get(url + "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4"), ctype
    m = prometheus(text)
    assert m[f'gridvec_up{{node="{node}"}}'] == 1, m
    assert m[f'gridvec_node_resident_memory_bytes{{node="{node}"}}'] > 0, m
m = prometheus(get(f"http://127.0.0.1:{shard_port}/metrics")[2])
assert m['gridvec_table_rows{table="http-t",shard="0",node="shard-a"}'] == 3, m
assert m['gridvec_table_memory_bytes{table="http-t",shard="0",node="shard-a"}'] > 0, m
m = prometheus(get(base + "/metrics")[2])
for key in ("gridvec_job_words_per_second", "gridvec_job_loss", "gridvec_job_recoveries_total",
            'gridvec_message_bytes_total{kind="dotprod_request"}', 'gridvec_shard_memory_bytes{shard="0",node="shard-a"}'):
    assert key in m, (key, sorted(m))
assert m["gridvec_job_words_per_second"] > 0 and m["gridvec_job_loss"] > 0, m
assert m['gridvec_message_bytes_total{kind="dotprod_request"}'] > 0, m
assert m['gridvec_job_phase{phase="done"}'] == 1, m
print("ok: /metrics parses on every node: %.0f words/s, loss %.3f, %d B of dotprod requests" % (
    m["gridvec_job_words_per_second"], m["gridvec_job_loss"], m['gridvec_message_bytes_total{kind="dotprod_request"}']))

s = json.loads(get(base + "/status")[2])
assert s["phase"] == "done" and s["vocab_size"] > 1000 and s["iterations"] == 1, s
n = json.loads(get(base + "/nearest?word=france&k=5")[2])
assert n["word"] == "france" and len(n["neighbours"]) == 5, n
assert all(isinstance(x["word"], str) and -1 <= x["score"] <= 1 for x in n["neighbours"]), n
v = json.loads(get(base + "/vector?word=france")[2])
assert v["dimension"] == 48 and len(v["vector"]) == 48 and any(x != 0 for x in v["vector"]), v
a = json.loads(get(base + "/analogy?a=man&b=king&c=woman&k=3")[2])
assert len(a["neighbours"]) == 3 and all(x["word"] not in ("man", "king", "woman") for x in a["neighbours"]), a
print("ok: urllib: status, nearest, vector (d=48), analogy: man:king :: woman:", [x["word"] for x in a["neighbours"]])
for headers in ({}, {"Authorization": "Bearer " + "0" * 64}):
    try:
        get(base + "/vector?word=france", headers)
        raise SystemExit("FAIL: urllib without a valid token got an answer")
    except urllib.error.HTTPError as e:
        assert e.code == 401 and "error" in json.loads(e.read()), e.code

# 8 clients x 50 requests, a mix of the routes, all must succeed.
paths = ["/status", "/nearest?word=france&k=5", "/metrics", "/vector?word=paris", "/healthz"]
errors, lock = [], threading.Lock()
def client(i):
    for j in range(50):
        try:
            status, _, body = get(base + paths[(i + j) % len(paths)])
            assert status == 200 and body
        except Exception as e:
            with lock:
                errors.append(repr(e))
start = time.time()
threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.time() - start
assert not errors, errors[:5]
print("ok: 8 concurrent clients x 50 requests: all 200, %.0f requests/s" % (400 / elapsed))
PY

# SIGTERM stops every node (the HTTP servers with them), with status 0.
kill -TERM "${CLUSTER_PID[learn-a]}" "${CLUSTER_PID[shard-a]}" "${CLUSTER_PID[coord]}"
cluster_wait_exit 30 || fail "a node did not stop cleanly"
curl -s -m 2 "$base/healthz" > /dev/null && fail "the coordinator's HTTP server outlived its node"
echo "ok: SIGTERM stopped every node and its HTTP server"
echo "PASS"
