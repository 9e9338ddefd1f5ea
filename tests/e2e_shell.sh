#!/usr/bin/env bash
# `gridvec shell` against a real loopback cluster: four OS processes (a
# coordinator node, two shard nodes, a learner node with two learners) on
# ephemeral ports of 127.0.0.1 and a small corpus. The shell is driven in
# scripted mode (-c and standard input) through a job's life: train, status,
# nodes, shards, learners, pause, resume, checkpoint, wait, nearest,
# analogy, export, submit; errors (unknown commands, bad arguments, a second
# job, an unreachable node) must be one line and the right exit status.
# Then the interactive prompt runs in a pseudo-terminal (tmux): output,
# history recall with the up arrow, Ctrl-C, quit. Finally `shutdown` stops
# the cluster and every process must exit, a frozen one once it is thawed.
# Usage: e2e_shell.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
tmux_socket=gridvec-e2e-shell-$$
cleanup() {
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true
  cluster_cleanup
}
trap cleanup EXIT
trap 'exit 143' INT TERM # through cleanup too
# The shell's history goes here, not into the user's home.
export HOME=$work

fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log "$work"/out "$work"/err; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
  done
  exit 1
}

# Runs the shell on the cluster; its exit status is left in $rc, its
# output in $work/out and $work/err. Never more than a minute.
shell() {
  rc=0
  timeout 60 "$gridvec" shell --config "$work/cluster.conf" "$@" > "$work/out" 2> "$work/err" || rc=$?
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1 ($2)"; }
expect_out() { grep -q -- "$1" "$work/out" || fail "output lacks '$1' ($2)"; }
expect_err() { grep -q -- "$1" "$work/err" || fail "errors lack '$1' ($2)"; }
expect_one_error_line() {
  [ "$(wc -l < "$work/err")" -eq 1 ] || fail "expected one error line ($1)"
  grep -q '^error: ' "$work/err" || fail "the error line does not start with 'error: ' ($1)"
}

# (zcat ends on SIGPIPE when head has enough: not an error.)
{ zcat "$data/dev-corpus.txt.gz" || true; } | head -n 3000 > "$work/corpus.txt"
[ "$(wc -l < "$work/corpus.txt")" -eq 3000 ] || fail "cannot read the dev corpus in $data"

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 2"
# A slow heartbeat: on a loaded machine a fast one takes a busy node for dead.
cluster_write "$work/cluster.conf" 2000
cluster_start coord shard-a shard-b learn-a
p_coord=${CLUSTER_PORT[coord]}
p_a=${CLUSTER_PORT[shard-a]}
p_dead=$(cluster_free_port)

echo "--- usage errors and unreachable nodes: exit 2, one line, within seconds"
start=$SECONDS
rc=0; timeout 30 "$gridvec" shell --connect 127.0.0.1:$p_dead -c status > "$work/out" 2> "$work/err" || rc=$?
expect_rc 2 "--connect to a dead port"
expect_one_error_line "--connect to a dead port"
expect_err "cannot reach 127.0.0.1:$p_dead" "--connect to a dead port"
[ $((SECONDS - start)) -le 10 ] || fail "--connect to a dead port took $((SECONDS - start)) s"
cat "$work/err"
rc=0; timeout 30 "$gridvec" shell --connect 127.0.0.1:$p_a --secret "$CLUSTER_SECRET" -c status > "$work/out" 2> "$work/err" || rc=$?
expect_rc 2 "--connect to a shard node"
expect_err "not the coordinator's node" "--connect to a shard node"
rc=0; "$gridvec" shell --config "$work/nonexistent.conf" -c status > "$work/out" 2> "$work/err" || rc=$?
expect_rc 2 "a missing config"
expect_one_error_line "a missing config"
rc=0; "$gridvec" shell -c status > "$work/out" 2> "$work/err" || rc=$?
expect_rc 2 "neither --config nor --connect"
rc=0; "$gridvec" shell --connect localhost:http -c status > "$work/out" 2> "$work/err" || rc=$?
expect_rc 2 "a bad port"
expect_err "port must be from 1 to 65535" "a bad port"

echo "--- before any job"
shell -c "status"
expect_rc 0 "status before any job"
expect_out "no job has been run yet" "status before any job"
shell -c "nodes"
expect_rc 0 "nodes"
cat "$work/out"
for n in coord shard-a shard-b learn-a; do
  grep -q "^$n  .*127.0.0.1:.*  up  " "$work/out" || fail "node $n is not listed as up"
done
rc=0; timeout 30 "$gridvec" shell --connect 127.0.0.1:$p_coord --secret "$CLUSTER_SECRET" -c "nodes" > "$work/out" 2> "$work/err" || rc=$?
expect_rc 0 "--connect to the coordinator"
expect_out "shard-b" "--connect to the coordinator"

echo "--- job 1 (long): train returns at once; a second job is refused"
# Long enough (200 epochs, 50M words) to stay in training through the
# commands below, however fast the machine; it is cancelled at the end.
# The column layout, named: --partition auto measures the link, and on a
# loaded machine may choose the word split, whose tables differ.
long_job="-train $work/corpus.txt -size 50 -min-count 3 -sample 1e-4 -iter 200 --partition columns --checkpoint-dir $work/ckpt"
start=$SECONDS
shell -c "train $long_job -output $work/long.txt"
expect_rc 0 "train"
expect_out "job 1 started" "train"
[ $((SECONDS - start)) -le 10 ] || fail "train did not return at once"
shell -c "train $long_job -output $work/other.txt"
expect_rc 1 "a second train"
expect_one_error_line "a second train"
expect_err "^error: train: job 1 is still running" "a second train"
cat "$work/err"

# Wait until the job trains (vocabulary and preprocessing come first).
for _ in $(seq 1 300); do
  shell -c status
  grep -q "^phase  *training" "$work/out" && break
  sleep 0.2
done
grep -q "^phase  *training" "$work/out" || fail "the job never reached training"

echo "--- status, shards, learners from standard input"
rc=0
printf 'status\nshards\n# a comment\n\nlearners\n' |
  timeout 60 "$gridvec" shell --config "$work/cluster.conf" > "$work/out" 2> "$work/err" || rc=$?
expect_rc 0 "status, shards, learners from stdin"
cat "$work/out"
for field in "^job  *1" "^phase  *training" "^epoch  *[0-9]* of 200" "^progress  *[0-9.]*% (" "^words/s  " \
             "^eta  " "^alpha  *0.0" "^loss  " "^bytes/word  " "^checkpoint  *none" "^message  "; do
  expect_out "$field" "status"
done
expect_out "^SHARD  NODE  *COLUMNS  *MEMORY  *REQUESTS  *REQUESTS/S  *STATE" "shards"
grep -q "^ *0  shard-a  0-24 .* MiB .*alive" "$work/out" || fail "shard 0's row"
grep -q "^ *1  shard-b  25-49 .* MiB .*alive" "$work/out" || fail "shard 1's row"
expect_out "^LEARNER  NODE  *STATE  *IN FLIGHT  *WORDS/S  *PARTS" "learners"
expect_out "learn-a  training .* p[0-9] epoch [0-9]*/200 " "learners"

echo "--- pause, status, resume, checkpoint"
shell -c "pause; status; learners"
expect_rc 0 "pause"
cat "$work/out"
expect_out "job paused" "pause"
expect_out "^phase  *paused" "status after pause"
[ "$(grep -c "learn-a  paused" "$work/out")" -eq 2 ] || fail "the learners are not paused"
shell -c "pause"
expect_rc 1 "pause twice"
expect_one_error_line "pause twice"
cat "$work/err"
shell -c "resume; checkpoint; status"
expect_rc 0 "resume and checkpoint"
cat "$work/out"
expect_out "job resumed" "resume"
expect_out "checkpoint #1 written to $work/ckpt" "checkpoint"
expect_out "^phase  *training" "status after resume"
expect_out "^checkpoint  *#1" "status after checkpoint"

echo "--- nearest, analogy and export from the live shards, during training"
printf 'nearest city 5\nanalogy he his she 3\nexport %s\nexport "%s" binary\n' \
  "$work/live.txt" "$work/live vectors.bin" > "$work/script"
rc=0
timeout 60 "$gridvec" shell --config "$work/cluster.conf" < "$work/script" > "$work/out" 2> "$work/err" || rc=$?
expect_rc 0 "queries during training"
cat "$work/out"
[ "$(grep -c "^#  WORD  *COSINE$" "$work/out")" -eq 2 ] || fail "nearest and analogy print a table each"
[ "$(grep -cE "^[1-5]  [^ ]+ +-?[01]\.[0-9]{4}$" "$work/out")" -eq 8 ] || fail "nearest 5 and analogy 3 give 8 rows"
expect_out "vectors written to $work/live.txt$" "export"
expect_out "vectors written to $work/live vectors.bin (binary)" "export binary"
header=$(head -n 1 "$work/live.txt")
[[ "$header" =~ ^[0-9]+\ 50$ ]] || fail "the exported header is '$header'"
[ "$(head -n 1 "$work/live vectors.bin")" = "$header" ] || fail "the binary export's header"
shell -c "nearest no-such-word-here"
expect_rc 1 "an unknown word"
expect_one_error_line "an unknown word"
expect_err "not in the vocabulary" "an unknown word"

echo "--- unknown commands and bad arguments: one line each, exit 1, the rest still runs"
shell -c "frobnicate"
expect_rc 1 "an unknown command"
expect_one_error_line "an unknown command"
expect_err "^error: unknown command 'frobnicate'" "an unknown command"
shell -c "nearest; status x; analogy a b c zero; export; wait -1; help nope"
expect_rc 1 "bad arguments"
cat "$work/err"
[ "$(wc -l < "$work/err")" -eq 6 ] || fail "expected six error lines"
[ "$(grep -c "^error: " "$work/err")" -eq 6 ] || fail "every error line starts with 'error: '"
expect_err "^error: nearest: wrong arguments; usage: nearest WORD \[K\]$" "nearest without a word"
expect_err "^error: status: takes no arguments$" "status x"
expect_err "^error: analogy: K must be" "analogy K"
[ ! -s "$work/out" ] || fail "bad arguments printed results"
shell -c "status; frobnicate; nodes"
expect_rc 1 "a failing command among good ones"
expect_out "^phase" "status before a failing command"
expect_out "^NODE" "nodes after a failing command"
shell -c 'export "unterminated'
expect_rc 1 "an unterminated quote"
expect_one_error_line "an unterminated quote"
shell -c "wait 0.5"
expect_rc 1 "a bounded wait"
expect_err "^error: wait: the job is still running after 0.5 seconds" "a bounded wait"

echo "--- cancel"
shell -c "cancel; status"
expect_rc 0 "cancel"
expect_out "job cancelled" "cancel"
expect_out "^phase  *cancelled" "status after cancel"
shell -c "wait"
expect_rc 1 "wait for a cancelled job"
expect_one_error_line "wait for a cancelled job"
cat "$work/err"
[ ! -e "$work/long.txt" ] || fail "a cancelled job wrote vectors"

echo "--- job 2: submit streams progress until the job ends"
head -n 1000 "$work/corpus.txt" > "$work/small.txt"
small_job="-train $work/small.txt -size 50 -min-count 3 --partition columns"
shell -c "submit $small_job -output $work/submitted.txt -iter 1 -log-every 0.2"
expect_rc 0 "submit"
cat "$work/out"
expect_out "^training: " "submit's progress"
expect_out "^ *[0-9.]*%  .* words/s  eta" "submit's progress"
expect_out "^job done in .* vectors of 50, 2 shards, 2 learners" "submit"
expect_out "vectors written to $work/submitted.txt" "submit"
[ -s "$work/submitted.txt" ] || fail "submit wrote no vectors"
shell -c "wait; status; nearest city 3"
expect_rc 0 "queries after the job"
expect_out "^job done in " "wait after the job"
expect_out "^phase  *done" "status after the job"
expect_out "^#  WORD  *COSINE" "nearest after the job"

echo "--- job 3: train, then wait for its end"
shell -c "train $small_job -output $work/waited.txt -iter 2; wait"
expect_rc 0 "train; wait"
cat "$work/out"
expect_out "job 3 started" "train; wait"
expect_out "^job done in " "train; wait"
[ -s "$work/waited.txt" ] || fail "the waited job wrote no vectors"

echo "--- job 4 fails early: job 3's vectors stay queryable"
shell -c "train -train $work/no-such-corpus.txt -output $work/never.txt"
expect_rc 1 "a job that fails early"
shell -c "nearest city 3; status"
expect_rc 0 "nearest after a failed job"
expect_out "^#  WORD  *COSINE" "nearest from the last good job, after a failed one"
expect_out "^phase  *failed" "status shows the failed job"

echo "--- the interactive prompt in a pseudo-terminal (tmux)"
pane() { tmux -L "$tmux_socket" capture-pane -p -S - -t shell; }
# Waits until the screen (and its scrollback) shows `pattern` (grep -E) at
# least `count` times.
wait_pane() {
  local pattern=$1 count=${2:-1}
  for _ in $(seq 1 300); do
    [ "$(pane | grep -cE -- "$pattern")" -ge "$count" ] && return 0
    sleep 0.2
  done
  pane
  fail "the terminal never showed '$pattern' ($count times)"
}
# Keys are typed only at a prompt: typed while a command runs, the terminal
# would echo them before the prompt.
prompts=0
at_prompt() { prompts=$((prompts + 1)); wait_pane "^gridvec>" $prompts; }
keys() { tmux -L "$tmux_socket" send-keys -t shell "$@"; }
# The shell as a person starts it, and its exit status for this test (tmux
# may take seconds to reap a process and tell its status).
cat > "$work/prompt.sh" <<PROMPT
"$gridvec" shell --config "$work/cluster.conf"
echo \$? > "$work/shell.status"
PROMPT
# Only tmux itself failing to start skips this part.
if ! command -v tmux > /dev/null; then
  part_cannot_run "tmux is not installed; the interactive prompt is not tested"
elif ! tmux -L "$tmux_socket" -f /dev/null new-session -d -s shell -x 150 -y 50 \
       "exec env HOME=$work bash $work/prompt.sh" \; set-option -t shell remain-on-exit on 2> "$work/tmux.err"; then
  part_cannot_run "tmux cannot run here ($(cat "$work/tmux.err")); the interactive prompt is not tested"
else
  at_prompt
  keys "status" Enter
  wait_pane "^phase +failed"
  at_prompt
  # History: the up arrow brings `status` back.
  keys Up
  wait_pane "^gridvec> status" 2
  keys Enter
  wait_pane "^phase +failed" 2
  at_prompt
  # Ctrl-C drops a half-typed line and gives a new prompt.
  keys "nodes --half-typed"
  wait_pane "half-typed"
  keys C-c
  wait_pane "half-typed\^C$"
  at_prompt
  # Tab completes a command's name.
  keys "neare" Tab
  wait_pane "^gridvec> nearest"
  keys "city 3" Enter
  wait_pane "COSINE"
  at_prompt
  # A command that waits stops waiting on Ctrl-C; the job goes on and can be cancelled.
  keys "train -train $work/corpus.txt -size 50 -min-count 3 -iter 200 -output $work/cancelled.txt" Enter
  wait_pane "job 5 started"
  at_prompt
  keys "wait" Enter
  # `wait` shows the job's progress meanwhile, redrawn in place.
  wait_pane "^gridvec> wait"
  wait_pane "epoch [0-9]+/200 .* words/s  eta"
  keys C-c
  wait_pane "error: wait: interrupted; the job goes on"
  at_prompt
  keys "cancel" Enter
  wait_pane "job cancelled"
  at_prompt
  keys "quit" Enter
  for _ in $(seq 1 100); do
    [ -s "$work/shell.status" ] && break
    sleep 0.1
  done
  pane > "$work/pane"
  cat "$work/pane"
  [ -s "$work/shell.status" ] || fail "the interactive shell did not end on quit"
  [ "$(cat "$work/shell.status")" = 0 ] || fail "the interactive shell exited $(cat "$work/shell.status") on quit"
  # libedit writes blanks in its history file as \040.
  sed 's/\\040/ /g' "$work/.gridvec_history" > "$work/history"
  grep -q "nodes --half-typed" "$work/history" && fail "a line dropped with Ctrl-C went into the history"
  grep -qx "status" "$work/history" || fail "no history in ~/.gridvec_history"
  grep -qx "nearest city 3" "$work/history" || fail "nearest is not in the history"
  [ ! -e "$work/cancelled.txt" ] || fail "a cancelled job wrote vectors"
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true
  echo "interactive prompt ok"
fi

echo "--- a job that fails at once: train answers with its error, not 'started'"
shell -c "train -train $work/no-such-corpus.txt -output $work/never.txt"
expect_rc 1 "train with a missing corpus"
expect_one_error_line "train with a missing corpus"
expect_err "^error: train: cannot read corpus $work/no-such-corpus.txt" "train with a missing corpus"
[ ! -e "$work/never.txt" ] || fail "a job that failed wrote vectors"

echo "--- shutdown stops every node, even one that cannot answer at once"
# shard-b is frozen: the coordinator's node sends it the stop, waits at
# most 3 s for an answer, then stops the others and itself. The stop must
# have left that process before it ended: shard-b, thawed, then stops too.
kill -STOP "${CLUSTER_PID[shard-b]}"
shell -c "shutdown"
expect_rc 0 "shutdown"
cat "$work/out"
expect_out "the cluster is stopping" "shutdown"
cluster_wait_exit 20 coord shard-a learn-a || fail "a node did not exit cleanly after shutdown"
kill -CONT "${CLUSTER_PID[shard-b]}"
cluster_wait_exit 10 shard-b || fail "the node that was frozen did not stop after it was thawed"
start=$SECONDS
shell -c status
expect_rc 2 "a stopped cluster"
expect_one_error_line "a stopped cluster"
[ $((SECONDS - start)) -le 10 ] || fail "connecting to a stopped cluster took too long"
echo "shell test passed"
