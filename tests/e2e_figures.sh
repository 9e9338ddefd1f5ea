#!/usr/bin/env bash
# A job's figures agree wherever they are read, on a loopback cluster of
# real processes (a coordinator with HTTP, a shard node, two learner nodes):
# a job continues a saved model (--init) and is paused for 3 s midway.
#   - While paused: `status`, HTTP /status and the sum of the learners'
#     rates (`learners`) give the same words/s, and 3 s later still the
#     same (paused time does not count).
#   - At the end: the last progress line, `status`, /status and the
#     report's training_words_per_second agree (= processed words /
#     training_seconds); the report's raw_words are the corpus's alone (as
#     for a job without --init), paused_seconds covers the pause and
#     words_per_second leaves it out; `elapsed` and /status's seconds stand
#     still once the job ended; no progress line shows `eta 0:00` before
#     there is a rate.
# Usage: e2e_figures.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cluster_lib.sh"
cluster_init_dev "$gridvec"
fail() { cluster_fail "$@"; }

http=$(cluster_free_port)
cluster_node coord "roles = coordinator, vocabulary, exporter" "http-port = $http"
cluster_node shard "roles = shard" "shards = 1"
cluster_node learn-a "roles = learner" "learners = 1"
cluster_node learn-b "roles = learner" "learners = 1"
cluster_write "$work/cluster.conf" 500
conf=$work/cluster.conf
cluster_start coord shard learn-a learn-b
token=$("$gridvec" keygen --http-token "$CLUSTER_SECRET")
shell() { timeout 30 "$gridvec" shell --config "$conf" -c "$1"; }
http_status() { curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$http/status"; }
flags=(-size 32 -window 5 -negative 5 -min-count 5 -sample 1e-4)

echo "--- job 1: the model to continue"
timeout 300 "$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/v1.txt" "${flags[@]}" \
  -iter 1 --save-model "$work/model" --report "$work/report1.json" > "$work/submit.log" 2>&1 ||
  fail "job 1 failed"

echo "--- job 2: --init, paused midway"
: > "$work/submit.log"
timeout 600 "$gridvec" submit --config "$conf" -train "$work/corpus.txt" -output "$work/v2.txt" "${flags[@]}" \
  -iter 4 --init "$work/model" --report "$work/report2.json" > "$work/submit.log" 2>&1 &
submit_pid=$!
wait_for_line "$work/submit.log" "words/s  eta [0-9]" 300 $submit_pid || fail "no progress with a rate"
shell pause > "$work/pause.out" 2>&1 || fail "pause: $(cat "$work/pause.out")"
grep -q "job paused" "$work/pause.out" || fail "pause said: $(cat "$work/pause.out")"
read_paused() { # $1: suffix
  shell status > "$work/status$1.out"
  shell learners > "$work/learners$1.out"
  http_status > "$work/status$1.json"
}
read_paused 1
sleep 3
read_paused 2
shell resume > /dev/null || fail "resume"
wait $submit_pid || fail "job 2 failed"
submit_pid=""
sleep 0.5
shell status > "$work/status-end1.out"
http_status > "$work/status-end1.json"
sleep 2.2
shell status > "$work/status-end2.out"
http_status > "$work/status-end2.json"

/usr/bin/python3 - "$work" << 'PY' || fail "the figures disagree"
import json, re, sys
work = sys.argv[1]

def count(text):  # human_count's "905.2k", "1.23M", "950"
    m = re.fullmatch(r"([0-9.]+)([kMG]?)", text.strip())
    assert m, text
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]

def status(path):
    rows = {}
    for line in open(path):
        key, _, value = line.rstrip("\n").partition("  ")
        rows[key.strip()] = value.strip()
    return rows

def learners_total(path):
    lines = open(path).read().splitlines()
    head = lines[0]
    col = head.index("WORDS/S")
    rates = [count(l[: col + len("WORDS/S")].split()[-1]) for l in lines[1:] if l.strip()]
    assert len(rates) == 2, lines
    return rates

def close(a, b, tol, what):
    ok = abs(a - b) <= tol * max(abs(a), abs(b), 1e-9)
    print(f"{'ok' if ok else 'FAIL'}: {what}: {a:.1f} vs {b:.1f}")
    assert ok, what

# While paused: one figure everywhere, standing still.
for i in (1, 2):
    st = status(f"{work}/status{i}.out")
    assert st["phase"] == "paused", st
    shell_rate = count(st["words/s"])
    http = json.load(open(f"{work}/status{i}.json"))
    assert http["phase"] == "paused", http
    close(shell_rate, http["words_per_second"], 0.01, f"paused read {i}: status vs /status words/s")
    rates = learners_total(f"{work}/learners{i}.out")
    assert all(r > 0 for r in rates), rates
    close(sum(rates), http["words_per_second"], 0.02, f"paused read {i}: the learners' rates add up to the job's")
a = json.load(open(f"{work}/status1.json"))["words_per_second"]
b = json.load(open(f"{work}/status2.json"))["words_per_second"]
close(a, b, 0.001, "words/s 3 s into the pause vs at its start")

# At the end.
r1 = json.load(open(f"{work}/report1.json"))
r2 = json.load(open(f"{work}/report2.json"))
assert r2["raw_words"] == r1["raw_words"], (r1["raw_words"], r2["raw_words"])
print(f"ok: raw_words {r2['raw_words']} with --init, as without")
assert r2["paused_seconds"] >= 3, r2["paused_seconds"]
close(r2["words_per_second"], r2["raw_words"] * 4 / (r2["seconds"] - r2["paused_seconds"]), 0.001,
      "report words_per_second = raw_words * iter / unpaused seconds")
final = r2["training_words_per_second"]
close(final, r2["processed_words"] / r2["training_seconds"], 0.001,
      "report training_words_per_second = processed_words / training_seconds")
assert r2["training_seconds"] + r2["paused_seconds"] <= r2["seconds"] + 0.01, r2
lines = [l for l in open(f"{work}/submit.log") if "words/s  eta" in l]
assert lines, "no progress lines"
last = re.search(r"([0-9.]+[kMG]?) words/s", lines[-1]).group(1)
close(count(last), final, 0.01, "the last progress line vs the report")
for i in (1, 2):
    st = status(f"{work}/status-end{i}.out")
    assert st["phase"] == "done", st
    close(count(st["words/s"]), final, 0.01, f"status after the job vs the report")
    http = json.load(open(f"{work}/status-end{i}.json"))
    close(http["words_per_second"], final, 0.001, "/status after the job vs the report")
    assert http["eta_seconds"] == 0, http
assert status(f"{work}/status-end1.out")["elapsed"] == status(f"{work}/status-end2.out")["elapsed"]
s1 = json.load(open(f"{work}/status-end1.json"))["seconds"]
s2 = json.load(open(f"{work}/status-end2.json"))["seconds"]
assert s1 == s2, (s1, s2)
print(f"ok: elapsed stands still after the job ({s1:.1f} s)")
for l in lines:  # no rate yet: the ETA is unknown, not 0:00
    rate = count(re.search(r"([0-9.]+[kMG]?) words/s", l).group(1))
    assert (rate == 0) == ("eta -" in l), f"rate {rate} with: {l}"
print("ok: eta unknown until there is a rate; first line: " + lines[0].strip())
PY
echo "PASS"
