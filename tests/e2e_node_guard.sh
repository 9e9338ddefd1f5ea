#!/usr/bin/env bash
# Every node guards itself, tried against real node processes on 127.0.0.1
# by a peer that holds the cluster secret (tests/hostile_peer.cpp) and so
# can send a node's internal messages directly, not through the controller:
#   - a count worker, a shard and an exporter asked to read a file outside
#     allow-read (absolute, through "..", through a link) refuse with the
#     policy's line, the same for a file that exists and one that does not;
#   - a shard of 2e9 columns is answered with an error; the node lives on;
#   - link reaches only the cluster's nodes: an open and a closed port get
#     the same answer;
#   - --save-model and --init outside the lists are refused;
#   - a checkpoint manifest altered without the secret is refused on
#     --resume;
#   - the coordinator's node logs an audit line for every start (refused
#     or not) and export, with the sender's address and the paths.
# (The same messages in one process, with every path-opening message of a
# node's actors: tests/path_policy.test.cpp.)
# Usage: e2e_node_guard.sh GRIDVEC_BINARY HOSTILE_PEER_BINARY
set -euo pipefail
gridvec=$1
hostile=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() { echo "FAIL: $*" >&2; cluster_dump_logs; exit 1; }
[ -x "$hostile" ] || fail "no hostile peer binary at $hostile"
mkdir -p "$work/in" "$work/out" "$work/private"
(zcat "$here/data/dev-corpus.txt.gz" || true) | head -n 2000 > "$work/in/corpus.txt"
echo "private words" > "$work/private/secret.txt"
ln -s "$work/private/secret.txt" "$work/in/abs-link.txt"
ln -s ../private/secret.txt "$work/in/rel-link.txt"
small=(-size 16 -window 3 -negative 3 -min-count 5 -iter 1 --fused 0)

CLUSTER_ALLOW_READ="$work/in" CLUSTER_ALLOW_WRITE="$work/out"
cluster_node coord "roles = coordinator, vocabulary, exporter, learner" "learners = 1"
cluster_node shard "roles = shard" "shards = 1"
cluster_write "$work/cluster.conf" 500
conf=$work/cluster.conf
cluster_start coord shard
shard_port=${CLUSTER_PORT[shard]}
ask() { timeout 60 "$hostile" "$shard_port" "$CLUSTER_SECRET" "$@"; }

# Paths outside the lists, sent straight to the shard node's actors.
for path in "$work/private/secret.txt" "$work/private/no-such-file" "$work/in/../private/secret.txt" \
            "$work/in/abs-link.txt" "$work/in/rel-link.txt"; do
  for request in count newshard newexport; do
    reply=$(ask "$request" "$path")
    case "$reply" in
      "error: "*"$path is outside the directories this cluster may read"*) ;;
      *) fail "$request $path: $reply" ;;
    esac
  done
done
echo "ok: count, newshard and newexport refuse paths outside allow-read on the node itself"
# The same line for a file that exists and one that does not.
a=$(ask count "$work/private/secret.txt" | sed "s|$work/private/secret.txt|PATH|")
b=$(ask count "$work/private/no-such-file" | sed "s|$work/private/no-such-file|PATH|")
[ "$a" = "$b" ] || fail "the refusals differ: '$a' and '$b'"
# Inside the lists, the same request is served.
reply=$(ask count "$work/in/corpus.txt")
case "$reply" in "ok "*) ;; *) fail "count of an allowed corpus: $reply" ;; esac

# A shard of 2e9 columns: an error reply, and the node serves on.
reply=$(ask newshard "$work/in/corpus.txt" 2000000000)
case "$reply" in "error: "*"dimension 2000000000 is out of bounds"*) ;; *) fail "huge shard: $reply" ;; esac
kill -0 "${CLUSTER_PID[shard]}" 2>/dev/null || fail "the shard node ended on a huge dimension"
reply=$(ask count "$work/in/corpus.txt")
case "$reply" in "ok "*) ;; *) fail "the shard node stopped serving: $reply" ;; esac
echo "ok: a shard of 2e9 columns is refused with one line; the node serves on"

# link: an open port and a closed one that are no node get the same answer.
open_port=$(cluster_free_port)
closed_port=$(cluster_free_port)
/usr/bin/python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$open_port)); s.listen(); time.sleep(60)" &
listener=$!
sleep 0.3
a=$(ask link 127.0.0.1 "$open_port" | sed "s/$open_port/PORT/")
b=$(ask link 127.0.0.1 "$closed_port" | sed "s/$closed_port/PORT/")
kill "$listener"; wait "$listener" 2>/dev/null || true
[ "$a" = "$b" ] || fail "link tells an open port from a closed one: '$a' / '$b'"
case "$a" in "error: "*"is not a node of this cluster"*) ;; *) fail "link: $a" ;; esac
echo "ok: link reaches only the cluster's nodes"

# --save-model and --init outside the lists: refused, nothing written.
if timeout 60 "$gridvec" submit --config "$conf" --keep-running -train "$work/in/corpus.txt" \
     -output "$work/out/v.txt" --save-model "$work/private/model" "${small[@]}" 2> "$work/save.err"; then
  fail "--save-model outside allow-write was accepted"
fi
grep -q "the model directory (--save-model) $work/private/model is outside the directories this cluster may write" \
  "$work/save.err" || fail "--save-model: $(cat "$work/save.err")"
[ ! -e "$work/private/model" ] || fail "the refused model directory exists"
for init in "$work/private/model" "$work/private/no-such-model"; do
  if timeout 60 "$gridvec" submit --config "$conf" --keep-running -train "$work/in/corpus.txt" \
       -output "$work/out/v.txt" --init "$init" "${small[@]}" 2> "$work/init.err"; then
    fail "--init outside allow-read was accepted"
  fi
  grep -q "the model to start from (--init) $init is outside the directories this cluster may read" \
    "$work/init.err" || fail "--init: $(cat "$work/init.err")"
done
echo "ok: --save-model and --init outside the lists are refused"

# A job that is allowed runs; its start and an export are in the audit log.
timeout 300 "$gridvec" submit --config "$conf" --keep-running -train "$work/in/corpus.txt" \
  -output "$work/out/vectors.txt" "${small[@]}" > "$work/submit.log" 2>&1 ||
  { cat "$work/submit.log" >&2; fail "the job failed"; }
timeout 30 "$gridvec" shell --config "$conf" -c "export $work/out/again.txt" > /dev/null 2>&1 ||
  fail "the export failed"
wait_for_line "$work/coord.log" "audit: start job 1 \(corpus $work/in/corpus.txt, output $work/out/vectors.txt\) by 127\.0\.0\.1:[0-9]+" 10 ||
  fail "no audit line for the start"
wait_for_line "$work/coord.log" "audit: export of job 1 to $work/out/again.txt by 127\.0\.0\.1:[0-9]+" 10 ||
  fail "no audit line for the export"
grep -qE "audit: refused to start a job \(corpus $work/in/corpus.txt, output $work/out/v.txt, save-model $work/private/model\): .* by 127\.0\.0\.1:[0-9]+" \
  "$work/coord.log" || fail "no audit line for the refused start"
echo "ok: audit lines for starts (refused too) and exports"
# A checkpoint's manifest altered by someone without the secret (its paths
# pointed outside, its CRC-32 recomputed): --resume refuses it in one line
# and writes nothing.
# (A job that ends removes its checkpoints: this one is cancelled after its first.)
"$gridvec" submit --config "$conf" -train "$work/in/corpus.txt" -output "$work/out/long.txt" "${small[@]}" -iter 100 \
  --checkpoint-dir "$work/out/ck" --checkpoint-every 50000w > "$work/long.log" 2>&1 &
long=$!
wait_for_line "$work/coord.log" "checkpoint [0-9]+ written to $work/out/ck" 120 || fail "no checkpoint was written"
timeout 30 "$gridvec" shell --config "$conf" -c cancel > /dev/null 2>&1 || fail "the long job could not be cancelled"
wait $long 2> /dev/null || true
newest=$( (ls -d "$work"/out/ck/ckpt-?????? 2> /dev/null || true) | sort | tail -1)
[ -n "$newest" ] || fail "the job left no checkpoint: $(ls -R "$work/out" | head -20)"
/usr/bin/python3 - "$newest/MANIFEST" "$work/out" "$work/private" <<'PY' || fail "could not tamper with the manifest"
import sys, zlib
path, inside, outside = sys.argv[1:]
text = open(path).read()
body = text[: text.rindex("end ")]
changed = body.replace(inside, outside)
if changed == body:
    sys.exit("the manifest names no path under " + inside)
open(path, "w").write(changed + "end " + str(zlib.crc32(changed.encode())) + "\n")
PY
if timeout 60 "$gridvec" submit --config "$conf" --keep-running --resume "$work/out/ck" 2> "$work/resume.err"; then
  fail "a tampered manifest was resumed"
fi
grep -q "does not carry this cluster's authentication code" "$work/resume.err" ||
  fail "--resume of a tampered manifest: $(cat "$work/resume.err")"
[ -z "$(ls -A "$work/private" | grep -v '^secret.txt$')" ] || fail "the tampered resume wrote into $work/private"
echo "ok: a tampered checkpoint manifest is refused on --resume: $(grep -o "does not carry.*" "$work/resume.err" | head -1)"
timeout 30 "$gridvec" shell --config "$conf" -c shutdown > /dev/null 2>&1 || true
cluster_wait_exit 30 || fail "a node did not stop cleanly"
echo "ok: every node guards its own files and sizes"
