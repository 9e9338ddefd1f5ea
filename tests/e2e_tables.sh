#!/usr/bin/env bash
# The parameter server's tables on a loopback cluster of real processes
# (docs/tables.md): `gridvec table` creates an Adagrad table on the two
# shard nodes, pushes gradients and saves it; then a shard node is killed
# (SIGKILL) and started again, and it must come back with its rows *and*
# their Adagrad slots as saved: the next push moves a weight by exactly
# lr g / (sqrt(G_saved + g^2) + eps). Bad commands get one error line. The
# shell lists the table and shows a row.
# Usage: e2e_tables.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$1" "$work"
gv=$1
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 1"
CLUSTER_EXTRA="table-dir = $work/tables" cluster_write "$work/cluster.conf"
conf=$work/cluster.conf
# Tables need only the shard nodes; the shell needs the coordinator.
cluster_start shard-a shard-b coord

table() { "$gv" table --config "$conf" --timeout 20 "$@"; }
# Which of the 2 shards holds a key (table_spec.cpp, shard_of_key).
shard_of() {
  /usr/bin/python3 -c '
import sys
m = (1 << 64) - 1
z = (int(sys.argv[1]) + 0x9e3779b97f4a7c15) & m
z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
print((z ^ (z >> 31)) % 2)' "$1"
}
fail() {
  echo "FAIL: $*" >&2
  cluster_dump_logs
  exit 1
}

# --- create, push, save ------------------------------------------------------
table create emb 4 optimizer=adagrad lr=0.5 init=uniform scale=0.1 seed=3 > "$work/create.out" \
  || fail "create failed: $(cat "$work/create.out")"
grep -q "^table emb: map of 4 floats, rows, init uniform 0.1 seed 3, adagrad lr 0.5, on 2 shards$" "$work/create.out" \
  || fail "create printed: $(cat "$work/create.out")"
# One key on each shard.
key_a=""; key_b=""
for k in $(seq 1 40); do
  if [ "$(shard_of "$k")" = 0 ]; then key_a=${key_a:-$k}; else key_b=${key_b:-$k}; fi
done
for k in "$key_a" "$key_b"; do
  table push emb "$k" 1 -2 0.5 0 > /dev/null || fail "push $k"
  table push emb "$k" 0.5 1 -1 2 > /dev/null || fail "push $k"
done
table save emb | grep -q "^table emb saved by 2 shards$" || fail "save"
[ -f "$work/tables/emb/shard-0-of-2.slice" ] && [ -f "$work/tables/emb/shard-1-of-2.slice" ] \
  || fail "no slice files in $work/tables/emb: $(ls -R "$work/tables")"
table fetch emb "$key_a" > "$work/saved-a.out"
# A dense matrix (every row made at creation) is saved and restored too.
table create dmat 4 rows=10 layout=columns storage=dense > "$work/dense.out" || fail "create dense: $(cat "$work/dense.out")"
grep -q "^table dmat: matrix 10 x 4, columns, dense, init zeros, sgd lr 0.01, on 2 shards$" "$work/dense.out" \
  || fail "create dense printed: $(cat "$work/dense.out")"
table put dmat 3 1 2 3 4 > /dev/null || fail "put dense"
table save dmat | grep -q "^table dmat saved by 2 shards$" || fail "save dense"
grep -q "^slot G 1.25 5 1.25 4$" "$work/saved-a.out" || fail "Adagrad's G after two pushes: $(cat "$work/saved-a.out")"
# A change after the save: lost with the node, as it was never saved.
table push emb "$key_a" 3 3 3 3 > /dev/null
table fetch emb "$key_a" | cmp -s - "$work/saved-a.out" && fail "the unsaved push changed nothing"
table fetch emb "$key_b" > "$work/live-b.out"

# --- kill shard-a, start it again: its table comes back from the slice --------
cluster_kill shard-a
cluster_start shard-a
grep -q "table emb restored from .*shard-0-of-2.slice (1 rows)" "$work/shard-a.log" \
  || fail "shard-a did not restore the table: $(tail -5 "$work/shard-a.log")"
table fetch emb "$key_a" > "$work/restored-a.out" || fail "fetch after the restart"
cmp -s "$work/saved-a.out" "$work/restored-a.out" \
  || fail "restored row differs from the saved one: $(cat "$work/saved-a.out") vs $(cat "$work/restored-a.out")"
table fetch emb "$key_b" | cmp -s - "$work/live-b.out" || fail "shard-b's row changed with shard-a's restart"
grep -q "table dmat restored from .*shard-0-of-2.slice (10 rows)" "$work/shard-a.log" \
  || fail "shard-a did not restore the dense table: $(tail -5 "$work/shard-a.log")"
table get dmat 3 | grep -qE "^3 1 2 3 4$" || fail "dense row after the restart: $(table get dmat 3)"
table drop dmat > /dev/null || fail "drop dense"
# The slots are intact: one more Adagrad step from the saved G.
table push emb "$key_a" 2 0 0 0 > /dev/null
table fetch emb "$key_a" > "$work/after-push.out"
/usr/bin/python3 - "$work/saved-a.out" "$work/after-push.out" <<'PY' || fail "the step after the restore is not Adagrad's from the saved slots"
import math, sys
def rows(path):
    out = {}
    for line in open(path):
        parts = line.split()
        out[" ".join(parts[:2]) if parts[0] == "slot" else parts[0]] = [float(x) for x in parts[2 if parts[0] == "slot" else 1:]]
    return out
before, after = rows(sys.argv[1]), rows(sys.argv[2])
g = 2.0
G = before["slot G"][0] + g * g
want = before["value"][0] - 0.5 * g / (math.sqrt(G) + 1e-8)
assert abs(after["slot G"][0] - G) < 1e-4, (after["slot G"], G)
assert abs(after["value"][0] - want) < 1e-4, (after["value"], want)
assert after["value"][1:] == before["value"][1:]
PY

# --- bad commands: one line each, exit 1 or 2 ----------------------------------
expect_error() {
  local want=$1; shift
  set +e
  table "$@" > "$work/bad.out" 2> "$work/bad.err"
  local rc=$?
  set -e
  [ $rc -ne 0 ] || fail "'table $*' exited 0"
  [ "$(wc -l < "$work/bad.err")" = 1 ] || fail "'table $*' printed more than one error line: $(cat "$work/bad.err")"
  grep -q -- "$want" "$work/bad.err" || fail "'table $*' said: $(cat "$work/bad.err")"
}
expect_error "no table 'nope'" get nope 1
expect_error "may contain only" create "../etc" 4
expect_error "has 4 floats per row; 2 given" put emb 1 1 2
expect_error "unknown table command" frobnicate
expect_error "exists as map of 4 floats" create emb 8
expect_error "dim must be between 1 and 65536" create huge 100000

# --- the shell: list and one row -----------------------------------------------
timeout 60 "$gv" shell --config "$conf" -c "tables; table get emb $key_b" > "$work/shell.out" 2>&1 \
  || fail "shell: $(cat "$work/shell.out")"
grep -qE "^emb +map of 4 floats.* +2 +" "$work/shell.out" || fail "shell tables: $(cat "$work/shell.out")"
grep -qE "^$key_b( -?[0-9.e-]+){4}$" "$work/shell.out" || fail "shell table get: $(cat "$work/shell.out")"

# --- a shell that outlives a shard node's restart ------------------------------
# Its first command meets the old node; the one after the restart fails (the
# node it knew is gone) and the next reconnects.
{ echo "table fetch emb $key_b"; sleep 3; echo "table fetch emb $key_b"; echo "table fetch emb $key_b"; } \
  | timeout 60 "$gv" shell --config "$conf" > "$work/shell-restart.out" 2>&1 &
shell_pid=$!
sleep 1
cluster_kill shard-b
cluster_start shard-b
wait $shell_pid || true
[ "$(grep -c '^value ' "$work/shell-restart.out")" -ge 2 ] || fail "the shell did not reconnect: $(cat "$work/shell-restart.out")"
tail -n 3 "$work/shell-restart.out" | grep -q '^value ' || fail "the last fetch failed: $(cat "$work/shell-restart.out")"

# --- export: every row, word2vec text with the key as the word -----------------
table export emb "$work/emb.txt" | grep -q "^2 rows of table emb written to $work/emb.txt$" || fail "export"
head -1 "$work/emb.txt" | grep -qE "^2 +4$" || fail "export header: $(head -1 "$work/emb.txt")"
grep -qE "^$key_a( -?[0-9.e-]+){4}$" "$work/emb.txt" && grep -qE "^$key_b( -?[0-9.e-]+){4}$" "$work/emb.txt" \
  || fail "export rows: $(cat "$work/emb.txt")"

# --- drop removes the table and its saved slices --------------------------------
table drop emb | grep -q "dropped" || fail "drop"
[ ! -e "$work/tables/emb/shard-0-of-2.slice" ] || fail "drop left the slice files"
table list | grep -q "^no tables$" || fail "list after drop: $(table list)"
echo "PASS: tables on a loopback cluster: created, saved, restored with their Adagrad slots after SIGKILL"
