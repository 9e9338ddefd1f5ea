#!/usr/bin/env bash
# The installed package works on its own, from a directory outside the
# checkout: `cmake --install` into a fresh prefix puts the docs, the example
# configs, the launcher and the benchmark and evaluation scripts (with the
# data they read) under share/gridvec; the installed launcher, given only a
# state directory and a port base, finds the installed binary, writes the
# cluster secret and its config into that directory (nothing into the
# prefix) and starts examples/cluster-local.conf's six nodes; a tiny job
# runs, the nodes outlive it, `gridvec stop` stops them and the launcher
# exits 0; the installed eval.py scores the vectors with the installed data.
# Usage: e2e_install.sh CMAKE BUILD_DIR
set -euo pipefail
cmake=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
launcher_pid=""
cleanup() {
  if [ -n "$launcher_pid" ] && kill -0 "$launcher_pid" 2> /dev/null; then
    kill -TERM "$launcher_pid" 2> /dev/null || true
    wait "$launcher_pid" 2> /dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  [ ! -f "$work/launcher.log" ] || { echo "--- launcher.log" >&2; tail -n 30 "$work/launcher.log" >&2; }
  exit 1
}

prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" || fail "cmake --install failed"
share=$prefix/share/gridvec
for f in README.md docs/cluster-config.md docs/deploy.md examples/cluster-local.conf examples/cluster-one-box.conf \
         examples/drive-cluster/main.cpp scripts/cluster-local.sh scripts/gridvec-path scripts/eval.py scripts/bench \
         scripts/bench-cluster scripts/bytes-per-word.sh scripts/quality-sweep tests/data/dev-corpus.txt.gz \
         tests/data/questions-words.txt tests/data/wordsim353.tsv tests/cluster_lib.sh deploy/Containerfile \
         deploy/slurm/gridvec.sbatch deploy/systemd/gridvec-node@.service; do
  [ -e "$share/$f" ] || fail "share/gridvec/$f is not installed"
done
for f in scripts/cluster-local.sh scripts/eval.py scripts/bench deploy/slurm/gridvec.sbatch; do
  [ -x "$share/$f" ] || fail "share/gridvec/$f is not executable"
done
ls "$share"/examples/*.key 2> /dev/null && fail "a cluster secret was installed"

# From here on: a directory outside the checkout, a PATH without the build.
mkdir "$work/elsewhere"
cd "$work/elsewhere"
export PATH=/usr/bin:/bin
[ "$("$share/scripts/gridvec-path")" = "$prefix/bin/gridvec" ] ||
  fail "gridvec-path found $("$share/scripts/gridvec-path") rather than the installed binary"
(zcat "$share/tests/data/dev-corpus.txt.gz" || true) | head -n 3000 > corpus.txt
touch "$work/installed.mark"

# Six consecutive free ports below the ephemeral range.
base=$(/usr/bin/python3 - << 'PY'
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(500):
    base = random.randint(max(1024, low - 12000), low - 10)
    socks = []
    try:
        for p in range(base, base + 6):
            s = socket.socket(); socks.append(s); s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        for s in socks: s.close()
    print(base); break
else:
    raise SystemExit("no six free ports")
PY
)
state=$work/state
"$share/scripts/cluster-local.sh" --state-dir "$state" --port-base "$base" "$share/examples/cluster-local.conf" \
  > "$work/launcher.log" 2>&1 &
launcher_pid=$!
conf=$state/cluster.conf
for _ in $(seq 1 100); do [ -f "$conf" ] && break; sleep 0.1; done
[ -f "$conf" ] || fail "the launcher wrote no $conf"
grep -q "^port = $base$" "$conf" && grep -q "^port = $((base + 5))$" "$conf" || fail "ports not moved to $base: $(grep port "$conf")"
for port in $(seq "$base" $((base + 5))); do
  for _ in $(seq 1 150); do (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break; sleep 0.1; done
  (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null || fail "nothing listens on port $port"
done
[ -f "$state/cluster-local.key" ] || fail "the secret is not in the state directory: $(ls "$state")"
[ "$(stat -c %a "$state/cluster-local.key")" = 600 ] || fail "the secret's mode is not 0600"
grep -q "started node coord (pid [0-9]*): $prefix/bin/gridvec node" "$work/launcher.log" ||
  fail "the launcher did not run the installed binary"

gridvec=$prefix/bin/gridvec
timeout 300 "$gridvec" submit --config "$conf" -train "$PWD/corpus.txt" -output "$PWD/vectors.txt" -size 24 \
  -iter 1 -min-count 3 --shards 2 > submit.log 2>&1 || { cat submit.log >&2; fail "the job failed"; }
[ -s vectors.txt ] || fail "no vectors"
sleep 1
kill -0 "$launcher_pid" || fail "the cluster ended with the job"
timeout 60 "$gridvec" stop --config "$conf" > stop.out 2>&1 || fail "gridvec stop: $(cat stop.out)"
set +e
timeout 30 tail --pid="$launcher_pid" -f /dev/null
wait "$launcher_pid"
code=$?
set -e
launcher_pid=""
[ $code -eq 0 ] || fail "the launcher exited $code after gridvec stop (0 expected: every node stopped cleanly)"
grep -q "all nodes stopped" "$work/launcher.log" || fail "the launcher did not report the stop"

# Nothing was written into the prefix; the installed eval.py reads the installed data.
written=$(find "$prefix" -newer "$work/installed.mark" -type f)
[ -z "$written" ] || fail "written into the prefix: $written"
/usr/bin/python3 "$share/scripts/eval.py" vectors.txt > eval.out || fail "installed eval.py: $(cat eval.out)"
grep -q "analogy=" eval.out || fail "eval.py said: $(cat eval.out)"
echo "ok: installed to $prefix; a cluster of the installed launcher and binary ran a job from outside the checkout and stopped"
