#!/usr/bin/env bash
# The deployment recipes, as far as they run on one machine:
#   - `gridvec config from-hosts` writes a config from a host list (one
#     node per host, the first the coordinator's, ports from a base, the
#     secret and tables in the state directory); a cluster of real processes
#     started from such a config (two nodes on 127.0.0.1) trains a job and
#     `gridvec stop` stops it; bad host lists and flags are one line;
#   - deploy/slurm/gridvec.sbatch turns $SLURM_JOB_NODELIST into that
#     config: only the host name expansion is faked (an `scontrol` on the
#     PATH that expands the one list this test gives), the script itself,
#     `gridvec config from-hosts` and `gridvec keygen` are real, and it
#     prints the srun command it would run (GRIDVEC_DRY_RUN=1);
#   - the installed systemd unit template passes `systemd-analyze verify`
#     with no complaint (the test fails if systemd-analyze is missing).
# Not run here: a real Slurm cluster, building deploy/Containerfile's image
# (docs/deploy.md).
# Usage: e2e_deploy.sh CMAKE BUILD_DIR GRIDVEC_BINARY
set -euo pipefail
cmake=$1
build=$2
gridvec=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
fail() {
  echo "FAIL: $*" >&2
  cluster_dump_logs
  exit 1
}

echo "--- gridvec config from-hosts"
printf '# two nodes on this machine\n127.0.0.1\n127.0.0.1  # the second\n' > "$work/hosts"
base=$(cluster_free_port)
while ! (/usr/bin/python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1', $base + 1))") 2> /dev/null; do
  base=$(cluster_free_port)
done
"$gridvec" config from-hosts "$work/hosts" --state-dir "$work/state" --port-base "$base" --learners 2 \
  --allow-read "$work" --allow-write "$work" -o "$work/hosts.conf" || fail "from-hosts failed"
grep -q "^\[node 127.0.0.1\]$" "$work/hosts.conf" && grep -q "^\[node 127.0.0.1-2\]$" "$work/hosts.conf" ||
  fail "unexpected nodes: $(grep '^\[node' "$work/hosts.conf")"
grep -q "^port = $((base + 1))$" "$work/hosts.conf" || fail "ports not from $base: $(grep port "$work/hosts.conf")"
grep -q "^secret = $work/state/cluster.key" "$work/hosts.conf" || fail "the secret is not in the state directory"
"$gridvec" config from-hosts - --state-dir "$work/state" < "$work/hosts" | cmp -s - <(
  "$gridvec" config from-hosts "$work/hosts" --state-dir "$work/state") || fail "stdin gave another config"
check_error() { # EXPECTED_TEXT ARGS...: the command fails with one line naming it
  local expected=$1
  shift
  if "$gridvec" config from-hosts "$@" > "$work/out" 2> "$work/err"; then fail "from-hosts $* succeeded"; fi
  [ "$(wc -l < "$work/err")" -eq 1 ] && grep -q -- "$expected" "$work/err" ||
    fail "from-hosts $*: expected one line with '$expected', got: $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "from-hosts $* printed a config"
}
printf 'good\nbad;host\n' > "$work/bad-hosts"
check_error "line 2: 'bad;host' is not a host name" "$work/bad-hosts" --state-dir "$work/state"
check_error "cannot read the host list" "$work/none" --state-dir "$work/state"
check_error "needs a host list and --state-dir" "$work/hosts"
check_error "--port-base takes a whole number" "$work/hosts" --state-dir "$work/state" --port-base 70000
check_error "leaves no host" "$work/hosts" --state-dir "$work/state" --standby 2

# A cluster from that config: real nodes, a job, gridvec stop.
mkdir "$work/state"
"$gridvec" keygen "$work/state/cluster.key" > /dev/null
CLUSTER_NAMES=(127.0.0.1 127.0.0.1-2)
CLUSTER_PORT[127.0.0.1]=$base
CLUSTER_PORT[127.0.0.1-2]=$((base + 1))
CLUSTER_CONFIG=$work/hosts.conf
cluster_start 127.0.0.1 127.0.0.1-2 || fail "the nodes of the generated config did not start"
(zcat "$here/data/dev-corpus.txt.gz" || true) | head -n 3000 > "$work/corpus.txt"
timeout 300 "$gridvec" submit --config "$work/hosts.conf" -train "$work/corpus.txt" -output "$work/vectors.txt" \
  -size 24 -iter 1 -min-count 3 > "$work/submit.log" 2>&1 || fail "the job failed: $(tail -5 "$work/submit.log")"
[ "$(head -n 1 "$work/vectors.txt" | cut -d' ' -f2)" = 24 ] || fail "no vectors of 24 dimensions"
timeout 60 "$gridvec" stop --config "$work/hosts.conf" > "$work/stop.out" 2>&1 || fail "stop: $(cat "$work/stop.out")"
cluster_wait_exit 20 || fail "a node did not stop cleanly"
echo "ok: a cluster from gridvec config from-hosts trained and stopped"

echo "--- deploy/slurm/gridvec.sbatch: the allocation's config"
mkdir "$work/bin"
# The one thing faked: Slurm's expansion of this test's node list.
cat > "$work/bin/scontrol" << 'SH'
#!/bin/sh
[ "$1 $2 $3" = "show hostnames gpu[07-09]" ] || { echo "fake scontrol: unexpected '$*'" >&2; exit 1; }
printf 'gpu07\ngpu08\ngpu09\n'
SH
chmod +x "$work/bin/scontrol"
env PATH="$work/bin:$PATH" GRIDVEC="$gridvec" SLURM_JOB_NODELIST='gpu[07-09]' SLURM_CPUS_ON_NODE=4 \
  GRIDVEC_PORT_BASE=7800 GRIDVEC_ALLOW=/data GRIDVEC_DRY_RUN=1 \
  "$here/../deploy/slurm/gridvec.sbatch" "$work/slurm" > "$work/sbatch.out" 2> "$work/sbatch.err" ||
  fail "gridvec.sbatch: $(cat "$work/sbatch.err")"
conf=$work/slurm/cluster.conf
[ -f "$conf" ] || fail "gridvec.sbatch wrote no config"
[ "$(grep -c '^\[node ' "$conf")" -eq 3 ] || fail "not three nodes: $(grep '^\[node ' "$conf")"
/usr/bin/python3 - "$conf" "$work/slurm" << 'PY' || fail "the Slurm config is not as expected"
import re, sys
text = open(sys.argv[1]).read()
state = sys.argv[2]
nodes = re.findall(r"\[node (\S+)\]\nhost = (\S+)\nport = (\d+)\nroles = ([^\n]+)\nshards = (\d+)\nlearners = (\d+)", text)
assert [n[:3] for n in nodes] == [("gpu07", "gpu07", "7800"), ("gpu08", "gpu08", "7801"), ("gpu09", "gpu09", "7802")], nodes
assert nodes[0][3] == "coordinator, vocabulary, exporter, shard, learner", nodes[0]
assert all(n[3] == "shard, learner" for n in nodes[1:]), nodes
assert all(n[5] == "4" for n in nodes), nodes  # a learner per CPU of the task
assert f"secret = {state}/cluster.key" in text
assert f"allow-read = {state}, /data" in text, text
PY
[ "$(stat -c %a "$work/slurm/cluster.key")" = 600 ] || fail "gridvec.sbatch wrote no secret of mode 0600"
grep -q "^srun --nodes=3 --ntasks=3 --ntasks-per-node=1 " "$work/sbatch.out" || fail "srun line: $(cat "$work/sbatch.out")"
grep -qF "node --config \"$work/slurm/cluster.conf\" --name \"\$(hostname -s)\"" "$work/sbatch.out" ||
  fail "the nodes do not find themselves by hostname -s: $(cat "$work/sbatch.out")"
if env PATH="$work/bin:$PATH" GRIDVEC="$gridvec" "$here/../deploy/slurm/gridvec.sbatch" "$work/slurm2" \
  2> "$work/nolist.err"; then fail "gridvec.sbatch ran without SLURM_JOB_NODELIST"; fi
grep -q "SLURM_JOB_NODELIST is not set" "$work/nolist.err" || fail "no node list: $(cat "$work/nolist.err")"
echo "ok: gridvec.sbatch wrote the allocation's config and its srun line"

echo "--- the systemd unit template"
command -v systemd-analyze > /dev/null || fail "systemd-analyze is missing (scripts/install-deps.sh installs systemd)"
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" || fail "cmake --install failed"
unit=$prefix/share/gridvec/deploy/systemd/gridvec-node@.service
[ -f "$unit" ] || fail "no unit installed"
grep -q "^ExecStart=$prefix/bin/gridvec node --config \${GRIDVEC_CONFIG} --name %i$" "$unit" ||
  fail "the unit does not run the installed binary: $(grep ExecStart "$unit")"
if ! systemd-analyze verify "$unit" > "$work/verify.out" 2>&1 || [ -s "$work/verify.out" ]; then
  fail "systemd-analyze verify: $(cat "$work/verify.out")"
fi
cp "$unit" "$work/gridvec-node@coord.service"
systemd-analyze verify "$work/gridvec-node@coord.service" > "$work/verify.out" 2>&1 && [ ! -s "$work/verify.out" ] ||
  fail "systemd-analyze verify of an instance: $(cat "$work/verify.out")"
echo "ok: systemd-analyze verify passes the installed unit"
echo "PASS"
