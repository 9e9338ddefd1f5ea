#!/usr/bin/env bash
# Helpers for tests that run a real gridvec cluster of OS processes on
# ephemeral ports of 127.0.0.1. Source it, then:
#   cluster_init GRIDVEC_BINARY WORKDIR
#   cluster_init_dev GRIDVEC_BINARY
#                              cluster_init in a new temporary WORKDIR, $work,
#                              with the dev corpus as $work/corpus.txt
#   cluster_node NAME "roles = ..." [more config lines...]   (one per node)
#   cluster_write CONFIG_FILE [HEARTBEAT_MS]
#                              (with a new cluster secret in WORKDIR, and
#                              the [cluster] lines in CLUSTER_EXTRA, if set)
#   cluster_start NAME...      starts those nodes, waits until they listen
#   cluster_start_traced NAME OPENS_FILE
#                              starts one node under strace, every file it
#                              opens written to OPENS_FILE
#   cluster_kill NAME...       SIGKILLs those nodes (in one kill: together)
#   cluster_wait_exit SECONDS [NAME...]
#                              fails unless every started node (or those
#                              named) has exited, with status 0
#   cluster_fail MESSAGE       for a test that runs `gridvec submit` with its
#                              output in WORKDIR/submit.log (in the background
#                              as $submit_pid, if so): prints the message, that
#                              log and every node's, stops the submit, exits 1
#   cluster_expect_line RE     cluster_fail unless submit.log has a line
#                              matching RE (grep -E)
#   quality_floor VECTORS ANALOGY WORDSIM
#                              prints the vectors' analogy accuracy and
#                              WordSim-353 rho (gridvec eval: gensim's numbers,
#                              e2e.eval checks), fails below either floor
# cluster_cleanup (run on EXIT by cluster_init) kills whatever is left.

cluster_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$cluster_lib_dir/strict.sh"

cluster_init() {
  CLUSTER_BIN=$1
  CLUSTER_DIR=$2
  CLUSTER_NAMES=()
  CLUSTER_SPECS=()
  declare -gA CLUSTER_PID=()
  declare -gA CLUSTER_PORT=()
  trap cluster_cleanup EXIT
}

cluster_init_dev() {
  work=$(mktemp -d)
  cluster_init "$1" "$work"
  zcat "$cluster_lib_dir/data/dev-corpus.txt.gz" > "$work/corpus.txt"
}

cluster_cleanup() {
  for name in "${!CLUSTER_PID[@]}"; do
    kill -9 "${CLUSTER_PID[$name]}" 2>/dev/null || true
  done
  # Reaped here, quietly: else bash reports each one as "Killed" on exit.
  for name in "${!CLUSTER_PID[@]}"; do
    wait "${CLUSTER_PID[$name]}" 2>/dev/null || true
  done
  [ -n "${CLUSTER_KEEP_DIR:-}" ] || rm -rf "$CLUSTER_DIR"
}

# A port no one listens on, below the kernel's ephemeral range (where
# outgoing connections take their local ports, so none can take it between
# this choice and the node's bind), and not handed out before in this test.
cluster_free_port() {
  local taken=${CLUSTER_DIR:+$CLUSTER_DIR/ports.taken}
  /usr/bin/python3 - "$taken" <<'PY'
import os, random, socket, sys
taken_file = sys.argv[1]
taken = set(open(taken_file).read().split()) if taken_file and os.path.exists(taken_file) else set()
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    port = random.randint(max(1024, low - 12000), low - 1)
    if str(port) in taken:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    if taken_file and os.path.isdir(os.path.dirname(taken_file)):
        with open(taken_file, "a") as f:
            f.write(f"{port}\n")
    print(port)
    break
else:
    sys.exit("cluster_free_port: no free port found")
PY
}

cluster_node() {
  local name=$1; shift
  CLUSTER_NAMES+=("$name")
  CLUSTER_PORT[$name]=$(cluster_free_port)
  local spec="[node $name]
host = 127.0.0.1
port = ${CLUSTER_PORT[$name]}"
  for line in "$@"; do spec+="
$line"; done
  CLUSTER_SPECS+=("$spec")
}

cluster_write() {
  local file=$1 heartbeat=${2:-300}
  CLUSTER_CONFIG=$file
  CLUSTER_SECRET=$CLUSTER_DIR/cluster.key
  [ -f "$CLUSTER_SECRET" ] || "$CLUSTER_BIN" keygen "$CLUSTER_SECRET" > /dev/null
  {
    echo "[cluster]"
    echo "heartbeat-ms = $heartbeat"
    echo "connect-timeout-ms = 3000"
    echo "secret = $CLUSTER_SECRET"
    # The tests' corpora and outputs are anywhere under /tmp and the
    # checkout; e2e_security.sh checks narrower lists.
    echo "allow-read = ${CLUSTER_ALLOW_READ:-/}"
    echo "allow-write = ${CLUSTER_ALLOW_WRITE:-/}"
    [ -z "${CLUSTER_EXTRA:-}" ] || echo "$CLUSTER_EXTRA"
    for spec in "${CLUSTER_SPECS[@]}"; do echo "$spec"; done
  } > "$file"
}

cluster_start() {
  for name in "$@"; do
    "$CLUSTER_BIN" node --config "$CLUSTER_CONFIG" --name "$name" >> "$CLUSTER_DIR/$name.log" 2>&1 &
    CLUSTER_PID[$name]=$!
  done
  cluster_wait_listening "$@"
}

# cluster_start for one node under strace, which writes every file the
# node's threads open (open, openat, openat2) to OPENS_FILE. Only those
# calls stop the node (seccomp-bpf). CLUSTER_PID is the node's own pid, so
# cluster_kill and the cleanup reach it; strace ends with it.
cluster_start_traced() {
  local name=$1 opens=$2 tracer node
  command -v strace > /dev/null || { echo "FAIL: strace is needed (scripts/install-deps.sh)" >&2; return 1; }
  strace --seccomp-bpf -f -qq -e trace=open,openat,openat2 -o "$opens" \
    "$CLUSTER_BIN" node --config "$CLUSTER_CONFIG" --name "$name" >> "$CLUSTER_DIR/$name.log" 2>&1 &
  tracer=$!
  # The node is strace's child once it runs the binary (strace forks
  # short-lived children of its own first, to probe seccomp-bpf).
  local bin child
  bin=$(readlink -f "$CLUSTER_BIN")
  node=
  for _ in $(seq 1 50); do
    for child in $(pgrep -P "$tracer" || true); do
      [ "$(readlink -f "/proc/$child/exe" 2>/dev/null)" = "$bin" ] && node=$child
    done
    [ -n "$node" ] && break
    sleep 0.1
  done
  [ -n "$node" ] || { echo "FAIL: node $name did not start under strace" >&2; return 1; }
  CLUSTER_PID[$name]=$node
  cluster_wait_listening "$name"
}

cluster_wait_listening() {
  local name port listening
  for name in "$@"; do
    port=${CLUSTER_PORT[$name]}
    listening=0
    for _ in $(seq 1 100); do
      if (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; then listening=1; break; fi
      kill -0 "${CLUSTER_PID[$name]}" 2>/dev/null || break
      sleep 0.1
    done
    if [ $listening = 0 ]; then
      echo "FAIL: node $name does not listen on 127.0.0.1:$port; the end of its log:" >&2
      tail -n 15 "$CLUSTER_DIR/$name.log" >&2 || true
      return 1
    fi
  done
}

quality_floor() {
  "$CLUSTER_BIN" eval "$1" --analogies "$cluster_lib_dir/data/questions-words.txt" \
    --similarity "$cluster_lib_dir/data/wordsim353.tsv" --floor-analogy "$2" --floor-wordsim "$3"
}

cluster_fail() {
  echo "FAIL: $*" >&2
  echo "--- submit log" >&2
  cat "$CLUSTER_DIR/submit.log" >&2 2>/dev/null || true
  cluster_dump_logs
  # A submit still running would keep ctest waiting on its output.
  [ -z "${submit_pid:-}" ] || pkill -TERM -P "$submit_pid" 2>/dev/null || true
  exit 1
}

cluster_expect_line() {
  grep -qE -- "$1" "$CLUSTER_DIR/submit.log" || cluster_fail "the log lacks '$1'"
}

# Prints the end of every node's log (for a test's failure message).
cluster_dump_logs() {
  local name
  for name in "${CLUSTER_NAMES[@]}"; do
    echo "--- the end of $name.log" >&2
    tail -n 20 "$CLUSTER_DIR/$name.log" >&2 2>/dev/null || true
  done
}

cluster_kill() {
  local name pids=()
  for name in "$@"; do pids+=("${CLUSTER_PID[$name]}"); done
  kill -KILL "${pids[@]}"
  for name in "$@"; do
    wait "${CLUSTER_PID[$name]}" 2>/dev/null || true
    unset "CLUSTER_PID[$name]"
  done
}

# Waits until FILE has a line matching PATTERN (grep -E), at most SECONDS;
# with a PID, gives up as soon as that process (the one writing FILE) exits.
wait_for_line() {
  local file=$1 pattern=$2 seconds=$3 writer=${4:-}
  for _ in $(seq 1 $((seconds * 10))); do
    grep -qE -- "$pattern" "$file" 2>/dev/null && return 0
    if [ -n "$writer" ] && ! kill -0 "$writer" 2>/dev/null; then
      grep -qE -- "$pattern" "$file" 2>/dev/null && return 0
      echo "FAIL: no line matching '$pattern' in $file: its writer (pid $writer) exited" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "FAIL: no line matching '$pattern' in $file after $seconds s" >&2
  return 1
}

cluster_wait_exit() {
  local seconds=$1 failed=0
  shift
  local names=("$@")
  [ ${#names[@]} -gt 0 ] || names=("${!CLUSTER_PID[@]}")
  for name in "${names[@]}"; do
    local pid=${CLUSTER_PID[$name]}
    for _ in $(seq 1 $((seconds * 10))); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      # Left in CLUSTER_PID, so that cluster_cleanup kills it.
      echo "FAIL: node $name (pid $pid) still running; the end of its log:" >&2
      tail -n 15 "$CLUSTER_DIR/$name.log" >&2 || true
      failed=1
      continue
    elif ! wait "$pid"; then
      echo "FAIL: node $name exited with an error" >&2
      failed=1
    fi
    unset "CLUSTER_PID[$name]"
  done
  return $failed
}
