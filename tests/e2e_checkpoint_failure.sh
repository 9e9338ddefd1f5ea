#!/usr/bin/env bash
# A job whose checkpoints cannot be written (here: the checkpoint directory
# replaced by a file mid-run, as a full or lost disk would fail it) stops
# with one error line and writes no vectors; with --checkpoint-failures
# warn it trains on and finishes. (Once, every checkpoint write failed and
# the job exited 0 with no checkpoint.)
# Usage: e2e_checkpoint_failure.sh GRIDVEC_BINARY
set -euo pipefail
gridvec=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); pid=
# A job left running would go on writing into the directory being removed.
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; rm -rf "$work"' EXIT
cd "$work"
{ zcat "$here/data/dev-corpus.txt.gz" || true; } | head -n 3000 > corpus.txt
fail() { echo "FAIL: $*" >&2; exit 1; }

# The corpus's word ids live in a work directory of their own: learners
# read their parts from it as they take them, and only the checkpoints'
# disk fails here.
start() { # POLICY: trains in the background; breaks the checkpoint directory after checkpoint 1
  rm -rf ck ck.lost.* wd out.txt log.txt; mkdir ck
  "$gridvec" train -train corpus.txt -output out.txt -size 20 -iter 400 -threads 2 --log-every 0.2 \
    --checkpoint-dir ck --work-dir wd --checkpoint-every 300000w --checkpoint-failures "$1" > log.txt 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do grep -q "checkpoint 1 written" log.txt && break; sleep 0.1; done
  grep -q "checkpoint 1 written" log.txt || { kill $pid 2>/dev/null; cat log.txt; fail "no first checkpoint"; }
  # The job writes a checkpoint every few tenths of a second. Removing the
  # directory would race its next one ("Directory not empty"), and the job
  # may create the directory again between a rename and the touch, so the
  # directory is moved aside until a file holds its place.
  for n in $(seq 1 50); do
    mv -T ck "ck.lost.$n" 2>/dev/null || true; touch ck 2>/dev/null || true
    [ -d ck ] || break
  done
  [ -f ck ] || { kill $pid 2>/dev/null; fail "the checkpoint directory could not be replaced by a file"; }
}

start stop
set +e; timeout 300 tail --pid=$pid -f /dev/null; wait $pid; code=$?; set -e; pid=
[ $code -eq 1 ] || { tail -5 log.txt; fail "exit $code with its checkpoints failing"; }
errline=$(grep -v '^\[' log.txt | grep -v '^$' | tail -n 1)
grep -q "checkpoint failed" <<<"$errline" || fail "last line: $errline"
grep -q -- "--checkpoint-failures warn" <<<"$errline" || fail "the error does not say how to go on: $errline"
[ ! -e out.txt ] || fail "vectors written by a job that stopped"
echo "ok: stop: $errline"

# With warn, the failed checkpoint is a warning and training goes on. (Its
# export would then need the vocabulary kept in the checkpoint directory,
# which this test destroyed: it only checks that the job lives on.)
start warn
for _ in $(seq 1 300); do grep -q "checkpoint failed" log.txt && break; sleep 0.1; done
grep -q "checkpoint failed" log.txt || { kill $pid; fail "no warning with --checkpoint-failures warn"; }
sleep 2
kill -0 $pid 2>/dev/null || { tail -5 log.txt; fail "the job stopped with --checkpoint-failures warn"; }
kill $pid; wait $pid || true; pid=
echo "ok: warn: still training 2 s after the failed checkpoint"
