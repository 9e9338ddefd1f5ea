#!/usr/bin/python3
"""Grows a real-text corpus to any size by resampling its lines.

Usage:
  scripts/gen-resampled-corpus.py --out FILE --words N [--source FILE[.gz]] [--seed S]

Example (the >= 20M-word corpus of scripts/bench's large run, ~10 s):
  scripts/gen-resampled-corpus.py --out /tmp/dev-20m.txt --words 20000000

Lines (sentences) of --source (default: the dev corpus,
tests/data/dev-corpus.txt.gz) are drawn uniformly with replacement,
with numpy's generator seeded by --seed, until N words are written; the
last line is cut at N. Unlike the synthetic corpora of gen-large-corpus.py
the words are English, so scripts/eval.py (analogies, WordSim-353) scores
the vectors trained on it -- the point of this corpus is measuring speed
*and* quality at a size where fixed costs no longer dominate. Its word
statistics are those of the source: a bigger corpus, not a bigger
vocabulary. Memory: the source's lines, never the output.
"""
import argparse
import gzip
import os
import sys

import numpy as np


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Resample the lines of a corpus up to N words.")
    ap.add_argument("--out", required=True)
    ap.add_argument("--words", type=int, required=True, help="corpus tokens N")
    ap.add_argument("--source", default=os.path.join(here, "..", "tests", "data", "dev-corpus.txt.gz"))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.words < 1:
        ap.error("--words must be >= 1")
    opener = gzip.open if args.source.endswith(".gz") else open
    with opener(args.source, "rb") as f:
        lines = [ln.split() for ln in f]
    lines = [ln for ln in lines if ln]
    if not lines:
        sys.exit(f"gen-resampled-corpus: no words in {args.source}")
    encoded = [b" ".join(ln) + b"\n" for ln in lines]
    lengths = np.array([len(ln) for ln in lines], dtype=np.int64)

    rng = np.random.default_rng(args.seed)
    written = 0
    with open(args.out, "wb", buffering=1 << 22) as out:
        while written < args.words:
            picks = rng.integers(0, len(lines), 100_000)
            ends = written + np.cumsum(lengths[picks])
            stop = int(np.searchsorted(ends, args.words))  # first line reaching N
            if stop < len(picks):
                out.writelines(encoded[i] for i in picks[:stop])
                before = int(ends[stop - 1]) if stop > 0 else written
                last = lines[picks[stop]][: args.words - before]
                out.write(b" ".join(last) + b"\n")
                written = args.words
            else:
                out.writelines(encoded[i] for i in picks)
                written = int(ends[-1])
    print(f"wrote {written} words (lines drawn from the {len(lines)} of the source, seed {args.seed}) "
          f"to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
