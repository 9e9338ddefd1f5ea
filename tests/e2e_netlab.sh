#!/usr/bin/env bash
# The network lab (scripts/netlab, docs/netlab.md) on a tiny job: one link profile,
# d = 16, S = 2, the dev corpus's first 3000 lines, -iter 1, the vectors
# split by column and by word. The table must have a row of each with
# nonzero words/s and nonzero bytes measured on the links,
# and no namespace of the lab may be left afterwards; then a second, longer
# run is interrupted (SIGINT) mid-job and must remove its namespaces and
# processes too. Without network namespaces (not root, `ip netns add`
# fails, no tbf qdisc) it cannot run: it fails under scripts/test.sh and CI
# and is skipped elsewhere (tests/strict.sh). A kernel without netem
# runs the link without delay (bandwidth only) and says so.
# Usage: e2e_netlab.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/strict.sh"
netlab=$here/../scripts/netlab
work=$(mktemp -d)
lab=""
cleanup() {
  # A lab still running (a failed check) cleans up after itself on SIGTERM.
  [ -z "$lab" ] || { kill -TERM "$lab" 2>/dev/null || true; wait "$lab" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$work/lab.log" >&2 2>/dev/null || true; exit 1; }
[ "$(id -u)" = 0 ] || cannot_run "not root (the lab needs network namespaces)"

# (head stops zcat early: its SIGPIPE is expected.)
{ zcat "$here/data/dev-corpus.txt.gz" || true; } | head -n 3000 > "$work/corpus.txt"
[ -s "$work/corpus.txt" ] || fail "no dev corpus"

# Namespaces of the lab whose process id is PID.
lab_namespaces() { ip netns list 2>/dev/null | grep -o "^gvlab$1-[^ ]*" || true; }

# run_lab LINK [more netlab options]: runs the lab in the background as $lab
# (its namespaces are gvlab$lab-*), waits for it; its status in $code.
run_lab() {
  local link=$1; shift
  TMPDIR=$work "$netlab" --gridvec "$gridvec" --corpus "$work/corpus.txt" --links "$link" --dims 16 --shards 2 \
    --iter 1 --partitions columns,words --out "$work/rows.jsonl" "$@" > "$work/lab.log" 2>&1 &
  lab=$!
  set +e; wait $lab; code=$?; set -e
}

link=1gbit:0.5ms
run_lab $link
lab_pid=$lab lab=""
if [ $code = 3 ] && grep -q "no netem" "$work/lab.log"; then
  echo "note: this kernel has no netem qdisc; testing the link with bandwidth only (1gbit:0)"
  link=1gbit:0
  run_lab $link
  lab_pid=$lab lab=""
fi
if [ $code = 3 ]; then
  cannot_run "$(sed 's/^netlab: //' "$work/lab.log" | tail -n 1)"
fi
[ $code = 0 ] || fail "netlab exited $code"
[ -z "$(lab_namespaces "$lab_pid")" ] || fail "namespaces left: $(lab_namespaces "$lab_pid")"

# The rows: | link | d | S | partitioning | words/s | B/word measured | ...
row=$(grep -E "^\| $link \| 16 \| 2 \| columns \|" "$work/lab.log") || fail "no table row for $link d=16 S=2"
words_per_s=$(echo "$row" | awk -F'|' '{ gsub(/[ ,]/, "", $6); print $6 }')
measured=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $7); print $7 }')
awk -v x="$words_per_s" 'BEGIN { exit !(x + 0 > 0) }' || fail "words/s is '$words_per_s'"
awk -v x="$measured" 'BEGIN { exit !(x + 0 > 0) }' || fail "bytes/word measured is '$measured'"
/usr/bin/python3 - "$work/rows.jsonl" <<'PY' || fail "the --out JSON line is wrong"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert [r["partition"] for r in rows] == ["columns", "words"], rows
for r in rows:
    assert r["bytes_per_word_measured"] > 0 and r["bytes_per_word_formula7"] > 0, r
    assert set(r["peak_rss_mb"]) == {"coord", "shard1", "shard2", "learn"}, r
    assert r["analogy"] is not None and r["wordsim"] is not None, r
# The word split's shards send each other input vectors: the shard nodes'
# links carry more than with columns, where they only answer the learner.
columns, words = rows
shard_tx = lambda r: r["link_tx_bytes"]["shard1"] + r["link_tx_bytes"]["shard2"]
assert words["vector_bytes_per_pair_seed001"] == 2 * 6 * 0.5 * 16 * 4, words  # bns: 2(N+1) x (1 - 1/S) x d x 4
assert shard_tx(words) > 0 and words["bytes_per_word_model"] > 0, words
PY
echo "row: $row"

# Interrupted mid-job: every namespace and process of the lab goes.
# Its work directory, and so every node's command line, is under $work. Run
# as a job of its own (set -m): a background command of a script without job
# control starts with SIGINT ignored, and a terminal's Ctrl-C goes to the
# whole process group, as `kill -INT -- -PGID` below.
set -m
TMPDIR=$work "$netlab" --gridvec "$gridvec" --corpus "$work/corpus.txt" --links "$link" --dims 16 \
  --shards 2 --iter 100 --partitions words > "$work/lab.log" 2>&1 &
lab=$!
set +m
for _ in $(seq 1 300); do
  grep -qs "training:" "$work"/gridvec-netlab.*/*/submit.log && break
  sleep 0.1
done
grep -qs "training:" "$work"/gridvec-netlab.*/*/submit.log || fail "the interrupted lab never started training"
[ -n "$(lab_namespaces "$lab")" ] || fail "the interrupted lab has no namespaces"
kill -INT -- -$lab
set +e; timeout 30 tail --pid=$lab -f /dev/null; wait $lab; code=$?; set -e
interrupted=$lab lab=""
[ $code = 130 ] || fail "the interrupted lab exited $code (130 expected)"
[ -z "$(lab_namespaces "$interrupted")" ] || fail "namespaces left after SIGINT: $(lab_namespaces "$interrupted")"
# A namespace that still holds a process outlives `ip netns del`: none may.
! pgrep -af -- "$work/gridvec-netlab" >&2 || fail "processes of the lab left after SIGINT"
echo "PASS: netlab row with nonzero words/s and bytes, no namespaces left (also after SIGINT)"
