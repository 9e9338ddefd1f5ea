#!/usr/bin/env bash
# The dashboard (docs/http.md) in a real browser: a loopback cluster of five
# OS processes (a coordinator with http-port, two shard nodes, a standby
# shard node, a learner node) trains the dev corpus, checkpointing every 3 s,
# paused once from the shell, and loses a shard node (SIGKILL), whose shard
# is restored on the standby node; headless Chromium (Debian's chromium, driven over the DevTools
# protocol by tests/dashboard_browser.py) loads http://127.0.0.1:PORT/:
#   - without the token: the login form, and no data of the cluster;
#   - with the token typed into the form: progress advances, one node row per
#     config entry (the killed one lost), the loss and words/s charts have
#     points, the recovery in the event log, shards, learners
#     and the "job started" event are listed, the nearest box answers, the
#     tables card lists a parameter-server table; and a screenshot is saved
#     (DASHBOARD_SCREENSHOT=FILE keeps a copy).
# Then the job is cancelled and every node stops.
# Usage: e2e_dashboard.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
command -v chromium > /dev/null || { echo "FAIL: no chromium (scripts/install-deps.sh installs it)" >&2; exit 1; }
cluster_init_dev "$gridvec"

http_coord=$(cluster_free_port)
cluster_node coord "roles = coordinator, vocabulary, exporter" "http-port = $http_coord"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node spare "roles = shard" "shards = 1" "standby = true"
cluster_node learn-a "roles = learner" "learners = 2"
cluster_write "$work/cluster.conf" 300
conf=$work/cluster.conf
"$gridvec" keygen --http-token "$CLUSTER_SECRET" > "$work/token.txt"
cluster_start coord shard-a shard-b spare learn-a
base=http://127.0.0.1:$http_coord
auth=(-H "Authorization: Bearer $(cat "$work/token.txt")")

"$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/vectors.txt" -size 48 -min-count 5 \
  -iter 200 --checkpoint-dir "$work/ck" --checkpoint-every 3s --keep-running > "$work/submit.log" 2>&1 &
submit_pid=$!
for _ in $(seq 1 600); do
  curl -sf "${auth[@]}" "$base/status" | grep -q '"phase": "training"' && break
  kill -0 "$submit_pid" 2> /dev/null || cluster_fail "the job ended before it trained"
  sleep 0.1
done
curl -sf "${auth[@]}" "$base/status" | grep -q '"phase": "training"' || cluster_fail "the job does not train"
echo "ok: the job trains"

# A parameter-server table on the shard nodes, for the tables card.
"$gridvec" table --config "$conf" create dash-emb 16 optimizer=adagrad lr=0.1 > /dev/null || cluster_fail "table create"
"$gridvec" table --config "$conf" get dash-emb 1 2 3 > /dev/null || cluster_fail "table get"

# A pause, so that the curves show one.
# A pause is refused while a checkpoint is written: asked again then.
sleep 2
for _ in $(seq 1 50); do
  "$gridvec" shell --config "$conf" -c pause > "$work/shell.log" 2>&1 && break
  grep -q "it is checkpointing" "$work/shell.log" || cluster_fail "pause: $(cat "$work/shell.log")"
  sleep 0.2
done
grep -q "job paused" "$work/shell.log" || cluster_fail "pause: $(cat "$work/shell.log")"
sleep 2
"$gridvec" shell --config "$conf" -c resume >> "$work/shell.log" 2>&1 || cluster_fail "resume: $(cat "$work/shell.log")"
echo "ok: paused and resumed from the shell"

# A shard node lost after a checkpoint: its shard comes back on the spare.
wait_for_line "$work/submit.log" "checkpoint 1 written" 120 "$submit_pid" || cluster_fail "no checkpoint 1"
cluster_kill shard-b
wait_for_line "$work/submit.log" "recovered: shard 1 restored on node spare" 120 "$submit_pid" ||
  cluster_fail "shard 1 was not restored on the spare"
sleep 2
echo "ok: shard-b killed, its shard restored on the spare"

timeout 90 /usr/bin/python3 "$here/dashboard_browser.py" "$base/" --expect-login \
  --screenshot "$work/login.png" || cluster_fail "the dashboard without a token"

timeout 120 /usr/bin/python3 "$here/dashboard_browser.py" "$base/" --token-file "$work/token.txt" --nodes 5 \
  --node-state shard-b=lost --node-state spare=up --event "recovered: shard 1 restored" \
  --query france --table dash-emb --screenshot "$work/dashboard.png" || cluster_fail "the dashboard with the token"
[ "$(head -c 8 "$work/dashboard.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  cluster_fail "the screenshot is not a PNG"
[ "$(stat -c %s "$work/dashboard.png")" -gt 20000 ] || cluster_fail "the screenshot is nearly empty"
[ -z "${DASHBOARD_SCREENSHOT:-}" ] || cp "$work/dashboard.png" "$DASHBOARD_SCREENSHOT"

# The history and events the page drew, as JSON: a paused span, a checkpoint.
curl -sf "${auth[@]}" "$base/history" > "$work/history.json" || cluster_fail "/history"
/usr/bin/python3 - "$work/history.json" <<'PY' || cluster_fail "/history lacks what the job did"
import json, sys
h = json.load(open(sys.argv[1]))
assert len(h["points"]) > 2 and h["capacity"] == 512, h
assert any(p["phase"] == "paused" for p in h["phases"]), h["phases"]
assert any(p["phase"] == "recovering" for p in h["phases"]), h["phases"]
assert any(m["label"].startswith("checkpoint") for m in h["marks"]), h["marks"]
print("ok: /history: %d points, every %g s; phases %s; %d checkpoint marks" % (
    len(h["points"]), h["interval"], [p["phase"] for p in h["phases"]], len(h["marks"])))
PY

# Cancel (Ctrl-C of submit) and stop the cluster.
kill -INT "$submit_pid"
wait "$submit_pid" 2> /dev/null || true
kill -TERM "${CLUSTER_PID[learn-a]}" "${CLUSTER_PID[shard-a]}" "${CLUSTER_PID[spare]}" "${CLUSTER_PID[coord]}"
cluster_wait_exit 30 || { cluster_dump_logs; exit 1; }
echo "PASS"
