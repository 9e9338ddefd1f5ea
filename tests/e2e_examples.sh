#!/usr/bin/env bash
# gridvec as a library, as an outside project sees it: the built tree is
# installed into a fresh prefix, examples/embedded-train and
# examples/drive-cluster and examples/sparse-logreg are copied out of the
# source tree and built against that prefix only (find_package(gridvec
# CONFIG REQUIRED), warnings as errors), then run: the first trains inside
# its own actor system, the second drives a real loopback cluster of the
# *installed* `gridvec node` binary, the third trains a logistic
# regression on that cluster's tables (and on tables in its own process),
# and every process must exit by itself.
# Usage: e2e_examples.sh CMAKE BUILD_DIR SOURCE_DIR
set -euo pipefail
cmake=$1
build=$2
src=$3
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
source "$here/cluster_lib.sh"
work=$(mktemp -d)
prefix=$work/prefix
# The cluster runs the installed binary; cluster_cleanup kills what is left
# and removes $work on exit.
cluster_init "$prefix/bin/gridvec" "$work"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# --- install, and check the installed tree is complete ----------------------
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log"
config=$(find "$prefix" -name gridvecConfig.cmake)
[ -n "$config" ] || fail "no gridvecConfig.cmake installed"
for f in bin/gridvec include/gridvec/gridvec.hpp include/gridvec/local.hpp include/gridvec/cluster.hpp \
         include/gridvec/protocol.hpp include/gridvec/core/options.hpp \
         include/gridvec/schema/minibatch.capnp.h; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
libdir=$(dirname "$(dirname "$(dirname "$config")")")
for f in libgridvec.a cmake/gridvec/gridvecTargets.cmake cmake/gridvec/FindCAF017.cmake \
         cmake/gridvec/gridvecConfigVersion.cmake; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f is not installed"
done
# Exactly the headers tests/installed_headers.txt lists: the public API and
# the types it names, no internal that crept into a public header's includes.
(cd "$prefix/include" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) > "$work/installed-headers.txt"
if ! diff <(grep -v '^#' "$here/installed_headers.txt") "$work/installed-headers.txt" > "$work/headers.diff"; then
  fail "the installed headers differ from tests/installed_headers.txt (< listed only, > installed only): $(cat "$work/headers.diff")"
fi
# The exported target must not point back into the source or build tree,
# nor carry this machine's -march=native to its users.
if grep -q -e "$src" -e "$build" -e "march" "$libdir"/cmake/gridvec/*.cmake; then
  fail "the installed package config refers to the source/build tree or -march"
fi

# --- build both examples against the prefix, outside the source tree --------
# Release, as a user builds them, but at -O1: the examples' own code only
# drives the installed library, and CAF's templates compile in two thirds
# of the time.
for ex in embedded-train drive-cluster sparse-logreg; do
  cp -r "$src/examples/$ex" "$work/$ex-src"
  "$cmake" -S "$work/$ex-src" -B "$work/$ex" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS=-Werror > "$work/$ex-configure.log" 2>&1 || { cat "$work/$ex-configure.log"; fail "configuring $ex"; }
  grep -q "^gridvec_DIR:PATH=$prefix/" "$work/$ex/CMakeCache.txt" || fail "$ex did not find gridvec in $prefix"
done
# One compile each: run them side by side, one per core.
"$cmake" --build "$work/embedded-train" > "$work/embedded-train-build.log" 2>&1 &
b1=$!
"$cmake" --build "$work/drive-cluster" > "$work/drive-cluster-build.log" 2>&1 &
b2=$!
wait $b1 || { cat "$work/embedded-train-build.log"; fail "building embedded-train"; }
wait $b2 || { cat "$work/drive-cluster-build.log"; fail "building drive-cluster"; }
"$cmake" --build "$work/sparse-logreg" > "$work/sparse-logreg-build.log" 2>&1 \
  || { cat "$work/sparse-logreg-build.log"; fail "building sparse-logreg"; }
if grep -q -e "$src/actors" -e "$src/src" -e "-I$build" "$work"/*/CMakeFiles/*.dir/flags.make; then
  fail "an example was compiled with headers of the source or build tree"
fi
embedded=$work/embedded-train/embedded-train
drive=$work/drive-cluster/drive-cluster
logreg=$work/sparse-logreg/sparse-logreg

# --- embedded-train: gridvec inside the example's own actor system ----------
# (zcat gets SIGPIPE when head has enough: check the result instead.)
zcat "$data/dev-corpus.txt.gz" | head -n 3000 > "$work/small.txt" || true
[ "$(wc -l < "$work/small.txt")" = 3000 ] || fail "cannot read the dev corpus in $data"
timeout 300 "$embedded" --corpus "$work/small.txt" --output "$work/embedded-vectors.txt" > "$work/embedded.out" \
  2> "$work/embedded.err" || { cat "$work/embedded.out" "$work/embedded.err"; fail "embedded-train exited non-zero"; }
cat "$work/embedded.out"
grep -q "^progress: " "$work/embedded.out" || fail "embedded-train printed no progress line"
grep -q "^trained: " "$work/embedded.out" || fail "embedded-train printed no summary"
[ "$(grep -cE '^nearest to [^ ]+:( [^ ]+ -?[0-9.]+){5}$' "$work/embedded.out")" = 3 ] \
  || fail "embedded-train did not print five neighbours for each of three words"
head -n 1 "$work/embedded-vectors.txt" | grep -qE '^[0-9]+ 32$' || fail "no vectors file of dimension 32"

# Its own corpus with planted topics: the neighbours must make sense.
timeout 300 "$embedded" > "$work/topics.out" 2> "$work/topics.err" \
  || { cat "$work/topics.out" "$work/topics.err"; fail "embedded-train on its own corpus exited non-zero"; }
cat "$work/topics.out"
fruits=$(grep "^nearest to apple:" "$work/topics.out" | grep -oE "pear|plum|cherry|mango|banana|grape|peach" | wc -l)
[ "$fruits" -ge 3 ] || fail "fewer than 3 of apple's 5 neighbours are fruits"

# --- drive-cluster: nothing listening is an error, not a hang ---------------
port=$(cluster_free_port)
if timeout 60 "$drive" --connect "127.0.0.1:$port" -train "$work/small.txt" -output "$work/x.txt" \
    > "$work/refused.out" 2> "$work/refused.err"; then
  fail "drive-cluster succeeded with no cluster"
fi
[ "$(wc -l < "$work/refused.err")" = 1 ] && grep -q "^drive-cluster: .*127.0.0.1:$port" "$work/refused.err" \
  || { cat "$work/refused.err"; fail "drive-cluster did not fail with one error line"; }

# --- drive-cluster against a loopback cluster of the installed binary -------
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 2"
CLUSTER_EXTRA="table-dir = $work/tables" cluster_write "$work/cluster.conf" 500
cluster_start coord shard-a shard-b learn-a

# --- sparse-logreg: a model that is not word2vec, on the cluster's tables ----
# The hidden model's accuracy is the ceiling; a model that learned nothing
# scores about 0.5.
check_logreg() {
  grep -q "^epoch 3: training log-loss" "$1" || fail "sparse-logreg printed no third epoch"
  /usr/bin/python3 - "$1" <<'PY' || fail "sparse-logreg did not learn: $(cat "$1")"
import re, sys
text = open(sys.argv[1]).read()
got, best = map(float, re.search(r"held-out accuracy ([0-9.]+) \(the hidden model's: ([0-9.]+)", text).groups())
assert got > 0.7 and got > best - 0.08, (got, best)
PY
}
timeout 120 "$logreg" --config "$work/cluster.conf" --save > "$work/logreg.out" 2> "$work/logreg.err" \
  || { cat "$work/logreg.out" "$work/logreg.err" "$work"/*.log; fail "sparse-logreg on the cluster exited non-zero"; }
cat "$work/logreg.out"
grep -q "; 2 shards$" "$work/logreg.out" || fail "sparse-logreg did not use the 2 shard nodes"
check_logreg "$work/logreg.out"
[ -f "$work/tables/logreg-weights/shard-0-of-2.slice" ] && [ -f "$work/tables/logreg-weights/shard-1-of-2.slice" ] \
  || fail "sparse-logreg --save wrote no slices"
timeout 120 "$logreg" --local 3 > "$work/logreg-local.out" 2> "$work/logreg-local.err" \
  || { cat "$work/logreg-local.out" "$work/logreg-local.err"; fail "sparse-logreg --local exited non-zero"; }
check_logreg "$work/logreg-local.out"

# A first job through the config file; the cluster stays up after it.
timeout 400 "$drive" --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/cluster-vectors.txt" \
  -size 32 -min-count 2 -iter 2 --timeout 300 > "$work/drive1.out" 2> "$work/drive1.err" \
  || { cat "$work/drive1.out" "$work/drive1.err" "$work"/*.log; fail "drive-cluster (first job) exited non-zero"; }
cat "$work/drive1.out"
grep -q "^job 1 started" "$work/drive1.out" || fail "no job started"
grep -q "^status: job 1 done" "$work/drive1.out" || fail "no status line of the finished job"
grep -q "^done: .* on 2 shards and 2 learners" "$work/drive1.out" || fail "no summary of the first job"
[ "$(grep -cE '^nearest to [^ ]+:( [^ ]+ -?[0-9.]+){5}$' "$work/drive1.out")" = 3 ] || fail "no neighbours from the cluster"
for name in coord shard-a shard-b learn-a; do
  kill -0 "${CLUSTER_PID[$name]}" 2>/dev/null || fail "node $name stopped after a job that did not ask for it"
done

# A second job by host:port, with the query words given, and --stop.
timeout 400 "$drive" --connect "127.0.0.1:${CLUSTER_PORT[coord]}" --secret "$CLUSTER_SECRET" -train "$work/small.txt" \
  -output "$work/cluster-vectors2.txt" -size 32 -min-count 2 -iter 1 --query the,and --stop --timeout 300 \
  > "$work/drive2.out" 2> "$work/drive2.err" \
  || { cat "$work/drive2.out" "$work/drive2.err" "$work"/*.log; fail "drive-cluster (second job) exited non-zero"; }
cat "$work/drive2.out"
grep -q "^job 2 started" "$work/drive2.out" || fail "the second job was not job 2"
grep -qE "^nearest to the:( [^ ]+ -?[0-9.]+){5}$" "$work/drive2.out" || fail "no neighbours of 'the'"
grep -q "^stopping the cluster" "$work/drive2.out" || fail "the cluster was not told to stop"

# Every node stops by itself after --stop, and exits 0.
cluster_wait_exit 15 || { cat "$work"/*.log; fail "not every node stopped cleanly"; }

# --- sparse-logreg's own nodes: a user operation linked into the nodes -------
# Two shard nodes run by the example itself (start_cluster_node, as `gridvec
# node` does), with its operation logreg.stats registered; the trainer asks
# each shard for it. The other nodes of the config are named, not started.
{
  echo "[cluster]"
  echo "connect-timeout-ms = 3000"
  echo "secret = $CLUSTER_SECRET"
  for n in coord lr-a lr-b learn; do
    echo "[node $n]"
    echo "host = 127.0.0.1"
    echo "port = $(cluster_free_port)"
    case $n in
      coord) echo "roles = coordinator, vocabulary, exporter" ;;
      learn) echo "roles = learner"; echo "learners = 1" ;;
      *) echo "roles = shard"; echo "shards = 1" ;;
    esac
  done
} > "$work/logreg.conf"
lr_pids=()
for n in lr-a lr-b; do
  "$logreg" --config "$work/logreg.conf" --node "$n" > "$work/$n.log" 2>&1 &
  lr_pids+=($!)
done
for n in lr-a lr-b; do
  for _ in $(seq 1 100); do grep -q "^node $n listening" "$work/$n.log" && break; sleep 0.1; done
  grep -q "^node $n listening on port [0-9]* with the user operation logreg.stats$" "$work/$n.log" \
    || { kill "${lr_pids[@]}"; cat "$work/$n.log"; fail "sparse-logreg --node $n did not start"; }
done
timeout 120 "$logreg" --config "$work/logreg.conf" --stats --epochs 1 > "$work/logreg-stats.out" 2>&1 \
  || { kill "${lr_pids[@]}"; cat "$work/logreg-stats.out" "$work"/lr-*.log; fail "sparse-logreg --stats exited non-zero"; }
cat "$work/logreg-stats.out"
[ "$(grep -cE '^logreg.stats on shard [01]: [0-9]+ rows, mean \|w\| [0-9.]+, max \|w\| [0-9.]+$' "$work/logreg-stats.out")" = 2 ] \
  || { kill "${lr_pids[@]}"; fail "no logreg.stats from both shards"; }
kill -TERM "${lr_pids[@]}"
for p in "${lr_pids[@]}"; do
  timeout 15 tail --pid="$p" -f /dev/null || fail "a sparse-logreg node did not stop on SIGTERM"
done
echo "examples test passed"
