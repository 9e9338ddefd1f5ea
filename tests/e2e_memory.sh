#!/usr/bin/env bash
# Memory sized before it is taken, on a real loopback cluster: a job of more
# shards than the nodes declare is refused before counting; one that does
# not fit a node's `memory` is refused with the node, its need and its
# budget; without --shards the job takes the most shards that fit, and
# --explain prints the plan; the report has every node's peak RSS since
# the job began beside the plan, and the largest is on the closing line. A
# standby learner node (a spare for L-BFGS learners) is no learner of the job.
# Usage: e2e_memory.sh GRIDVEC_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
gridvec=$1
cluster_init_dev "$gridvec"
head -c 2000000 "$work/corpus.txt" > "$work/small.txt" # about 350k words: a few seconds a job

cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1" "memory = 20M" # room for no shard at all
cluster_node learn "roles = learner" "learners = 2"
cluster_node spare "roles = shard" "shards = 1" "standby = true"
cluster_node spare-learn "roles = learner" "learners = 1" "standby = true"
cluster_write "$work/cluster.conf" 300
cluster_start coord shard-a shard-b learn spare spare-learn

fail() { cluster_fail "$@"; }
submit() {
  : > "$work/submit.log"
  timeout 120 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/vectors.txt" \
    -size 20 -iter 1 -min-count 5 "$@" >> "$work/submit.log" 2>&1
}

echo "--- more shards than the nodes declare: refused before counting"
if submit --shards 4; then fail "a job of 4 shards ran on nodes that declare 2"; fi
[ "$(cat "$work/submit.log")" = "gridvec submit: --shards 4: the shard nodes declare room for 2 (shard-a 1, shard-b 1); raise their \`shards\` in the cluster config or submit with --shards 2 or fewer (standby nodes only restore lost shards)" ] \
  || fail "not the one line of refusal"

echo "--- a node whose memory cannot hold its shard: refused with its need and budget"
if submit --shards 2; then fail "a job ran with a shard on a node of 20 MiB"; fi
grep -qE "^gridvec submit: node shard-b needs [0-9.]+ MiB but its memory budget is 20.0 MiB \(its \`memory\` in the cluster config\): 1 shard: model [0-9.]+ KiB, tables [0-9.]+ KiB, vocabulary [0-9.]+ (KiB|MiB), process 40.0 MiB; give it more memory, or spread the job over more nodes$" \
  "$work/submit.log" || fail "not the memory refusal"
[ ! -e "$work/vectors.txt" ] || fail "a refused job wrote vectors"

echo "--- --explain: the plan, one row per node"
timeout 120 "$gridvec" submit --config "$work/cluster.conf" -train "$work/small.txt" -output "$work/vectors.txt" \
  -size 20 -iter 1 -min-count 5 --explain > "$work/explain.out" 2> "$work/submit.log" || fail "--explain failed"
grep -q "^memory plan: 1 shard$" "$work/explain.out" || fail "no plan of 1 shard: $(cat "$work/explain.out")"
grep -qE "^shard-a +1s " "$work/explain.out" || fail "no row for shard-a"
grep -qE "^shard-b +- .* 0 B +20.0 MiB$" "$work/explain.out" || fail "shard-b should hold nothing: $(cat "$work/explain.out")"
grep -qE "^learn +2l " "$work/explain.out" || fail "no row for the learners"
grep -qE "^spare +standby 1s " "$work/explain.out" || fail "no row for the standby"
grep -qE "^spare-learn +standby " "$work/explain.out" || fail "no row for the standby learner node"
grep -q "^fits: every node's need is within its budget$" "$work/explain.out" || fail "the plan does not fit"

echo "--- no --shards: the most shards that fit, and every node's peak memory in the report"
submit --report "$work/report.json" || fail "the job failed"
cluster_expect_line "shards: 1 of the 2 the nodes declare, the most that fit their memory"
cluster_expect_line "memory: node shard-a peak RSS [0-9.]+ MiB \(planned [0-9.]+ MiB, budget [0-9.]+ GiB\)"
cluster_expect_line "done in .* written to .*/vectors.txt, peak RSS [0-9.]+ MiB on node [a-z-]+$"
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["shards"] == 1, r["shards"]
m = r["node_memory"]
assert set(m) == {"coord", "shard-a", "shard-b", "learn", "spare", "spare-learn"}, m
assert r["learners"] == 2, r["learners"]  # learn's two; the standby learner node trains nothing
for name in ("coord", "shard-a", "learn"):
    assert m[name]["peak_rss_bytes"] > 10 << 20, (name, m[name])
    assert m[name]["planned_bytes"] > 0, (name, m[name])
assert m["shard-b"]["budget_bytes"] == 20 << 20, m["shard-b"]
assert m["shard-b"]["planned_bytes"] == 0, m["shard-b"]  # it held nothing
assert m["shard-a"]["budget_bytes"] > 1 << 30, m["shard-a"]  # what the OS reports
for name, x in m.items():  # the plan is an upper bound: no node far above it
    if x["planned_bytes"] > 0:
        assert x["peak_rss_bytes"] <= 1.25 * x["planned_bytes"], (name, x)
largest = max(m, key=lambda n: m[n]["peak_rss_bytes"])
assert r["peak_rss_node"] == largest and r["peak_rss_bytes"] == m[largest]["peak_rss_bytes"], r
for name, x in sorted(m.items()):
    print(f"{name}: peak {x['peak_rss_bytes'] / 2**20:.1f} MiB, planned {x['planned_bytes'] / 2**20:.1f} MiB")
PY
echo "e2e memory passed"
