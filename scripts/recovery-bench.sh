#!/usr/bin/env bash
# Repeats the shard-kill run on a loopback cluster and reports how recovery
# went: a coordinator node, two shard nodes, a standby shard node and two
# learner nodes train the dev corpus with a checkpoint every 600k words;
# at a random point 0.3-3.5 s after the first checkpoint (training goes on
# for about 6 s more on this machine) one shard node is killed
# with SIGKILL. For every run it measures
#   detect   seconds from the kill until the coordinator logs the loss
#   recover  seconds from the kill until training continues ("recovered")
#   re-done  words trained again (rolled back to the checkpoint)
#   quality  analogy / WordSim-353 of the vectors
# and compares quality with uninterrupted runs of the same cluster.
# Usage: scripts/recovery-bench.sh [RUNS (default 10)] [BASELINE_RUNS (default 3)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gridvec=${GRIDVEC:-$("$root/scripts/gridvec-path")}
runs=${1:-10}
baselines=${2:-3}
source "$root/tests/cluster_lib.sh"
work=$(mktemp -d)
cluster_init "$gridvec" "$work"
zcat "$root/tests/data/dev-corpus.txt.gz" > "$work/corpus.txt"
cluster_node coord "roles = coordinator, vocabulary, exporter"
cluster_node shard-a "roles = shard" "shards = 1"
cluster_node shard-b "roles = shard" "shards = 1"
cluster_node spare "roles = shard" "shards = 1" "standby = true"
cluster_node learn-a "roles = learner" "learners = 1"
cluster_node learn-b "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 300
flags=(-size 100 -window 5 -negative 5 -sample 1e-4 -min-count 5 -iter 5)
now() { date +%s.%N; }

# one_run KILL(0|1) -> prints "detect recover redone analogy wordsim seconds"
one_run() {
  local kill=$1 log=$work/submit.log
  rm -rf "$work/ck" "$work/vectors.txt" "$log"
  cluster_start coord shard-a shard-b spare learn-a learn-b
  local t0; t0=$(now)
  timeout 900 "$gridvec" submit --config "$work/cluster.conf" --shutdown -train "$work/corpus.txt" \
    -output "$work/vectors.txt" "${flags[@]}" --checkpoint-dir "$work/ck" --checkpoint-every 600000w \
    --report "$work/report.json" > "$log" 2>&1 &
  local pid=$! detect=- recover=-
  if [ "$kill" = 1 ]; then
    wait_for_line "$log" "checkpoint 1 written" 600
    sleep "$(/usr/bin/python3 -c 'import random; print(round(random.uniform(0.3, 3.5), 2))')"
    local tk; tk=$(now)
    cluster_kill shard-b
    wait_for_line "$log" "is lost; restoring" 120
    detect=$(/usr/bin/python3 -c "print(f'{$(now) - $tk:.2f}')")
    wait_for_line "$log" "recovered:" 300
    recover=$(/usr/bin/python3 -c "print(f'{$(now) - $tk:.2f}')")
  fi
  wait $pid || { echo "run failed:" >&2; cat "$log" >&2; return 1; }
  local secs; secs=$(/usr/bin/python3 -c "print(f'{$(now) - $t0:.1f}')")
  cluster_wait_exit 30 >&2 || true
  local redone; redone=$(/usr/bin/python3 -c "import json; print(json.load(open('$work/report.json'))['redone_words'])")
  local q; q=$(/usr/bin/python3 "$root/scripts/eval.py" "$work/vectors.txt" | sed -E 's/analogy=([0-9.]+) wordsim=([0-9.-]+).*/\1 \2/')
  echo "$detect $recover $redone $q $secs"
}

: > "$work/results.txt"
for ((i = 1; i <= baselines; i++)); do
  echo "baseline run $i/$baselines" >&2
  echo "base $(one_run 0)" >> "$work/results.txt"
done
for ((i = 1; i <= runs; i++)); do
  echo "shard-kill run $i/$runs" >&2
  echo "kill $(one_run 1)" >> "$work/results.txt"
done
/usr/bin/python3 - "$work/results.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
base = [r for r in rows if r[0] == "base"]
kill = [r for r in rows if r[0] == "kill"]
print(f"{'run':<8} {'detect s':>9} {'recover s':>10} {'re-done words':>14} {'analogy':>8} {'wordsim':>8} {'wall s':>7}")
for i, r in enumerate(base + kill):
    print(f"{r[0] + str(i + 1 if r[0] == 'base' else i + 1 - len(base)):<8} {r[1]:>9} {r[2]:>10} {r[3]:>14} {r[4]:>8} {r[5]:>8} {r[6]:>7}")
if kill:
    rec = [float(r[2]) for r in kill]
    det = [float(r[1]) for r in kill]
    redone = [int(r[3]) for r in kill]
    print(f"\nrecovery (kill -> training again): median {st.median(rec):.2f} s, max {max(rec):.2f} s; "
          f"detection median {st.median(det):.2f} s, max {max(det):.2f} s")
    print(f"words re-done: median {st.median(redone):.0f}, max {max(redone)}")
if base and kill:
    bw = st.mean(float(r[5]) for r in base); kw = st.mean(float(r[5]) for r in kill)
    ba = st.mean(float(r[4]) for r in base); ka = st.mean(float(r[4]) for r in kill)
    print(f"quality: uninterrupted analogy {ba:.4f} wordsim {bw:.4f}; with a shard kill analogy {ka:.4f} "
          f"wordsim {kw:.4f} (difference {kw - bw:+.4f}, worst run {min(float(r[5]) for r in kill) - bw:+.4f})")
PY
