#!/usr/bin/python3
"""Scores word vectors (word2vec text or binary format) with gensim.

  analogy  - overall accuracy of evaluate_word_analogies on questions-words.txt
             (restrict_vocab=30000, case_insensitive=True)
  wordsim  - Spearman rho of evaluate_word_pairs on WordSim-353
             (case_insensitive=True)

Usage: scripts/eval.py VECTORS [--binary] [--json] [--data DIR]
                       [--floor-analogy X] [--floor-wordsim Y]

Prints `analogy=0.0123 wordsim=0.2345 vocab=N dim=D` (or one JSON object with
--json). With floors, exits 1 and says which score is below its floor.
The data directory defaults to the repository's tests/data.
"""
import argparse
import json
import logging
import math
import os
import sys
import tempfile
import warnings


def cleaned_wordsim(path, tmpdir):
    """evaluate_word_pairs reads `word1<TAB>word2<TAB>score` and skips lines
    starting with '#'. WordSim-353 files come both like that (the shared
    copy: two '#' header lines, tab separated) and as CSV with a
    `Word 1,Word 2,Human (mean)` header; write a clean tab-separated copy
    whatever the input is."""
    out = os.path.join(tmpdir, "wordsim353.tsv")
    rows = 0
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t") if "\t" in line else line.split(",")
            if len(parts) < 3:
                continue
            try:
                score = float(parts[2])
            except ValueError:  # a header line
                continue
            g.write(f"{parts[0].strip()}\t{parts[1].strip()}\t{score}\n")
            rows += 1
    if rows == 0:
        sys.exit(f"eval.py: no word pairs in {path}")
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vectors")
    ap.add_argument("--binary", action="store_true", help="word2vec binary format")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--data", default=os.path.join(here, "..", "tests", "data"),
                    help="directory with questions-words.txt and wordsim353.tsv")
    ap.add_argument("--floor-analogy", type=float, default=None)
    ap.add_argument("--floor-wordsim", type=float, default=None)
    args = ap.parse_args()

    # gensim logs at INFO/WARNING through the root logger and warns about
    # OOV pairs; keep the output to the one result line.
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    from gensim.models import KeyedVectors

    analogies = os.path.join(args.data, "questions-words.txt")
    wordsim = os.path.join(args.data, "wordsim353.tsv")
    for p in (args.vectors, analogies, wordsim):
        if not os.path.isfile(p):
            sys.exit(f"eval.py: no such file: {p}")

    try:
        kv = KeyedVectors.load_word2vec_format(args.vectors, binary=args.binary)
    except Exception as e:  # noqa: BLE001 - report any load failure plainly
        sys.exit(f"eval.py: cannot load {args.vectors}: {e}")

    analogy, _sections = kv.evaluate_word_analogies(
        analogies, restrict_vocab=30000, case_insensitive=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            _pearson, spearman, oov = kv.evaluate_word_pairs(
                cleaned_wordsim(wordsim, tmp), case_insensitive=True)
            rho = float(spearman[0])
        except ValueError:  # gensim raises when every pair is out of vocabulary
            print("eval.py: no WordSim-353 pair is in the vocabulary; wordsim=0",
                  file=sys.stderr)
            rho, oov = 0.0, 100.0
    if math.isnan(rho):
        rho = 0.0

    result = {"analogy": round(float(analogy), 4), "wordsim": round(rho, 4),
              "vocab": len(kv.index_to_key), "dim": int(kv.vector_size),
              "wordsim_oov_percent": round(float(oov), 2)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"analogy={analogy:.4f} wordsim={rho:.4f} vocab={result['vocab']} dim={result['dim']}")

    failed = []
    if args.floor_analogy is not None and analogy < args.floor_analogy:
        failed.append(f"analogy {analogy:.4f} is below the floor {args.floor_analogy}")
    if args.floor_wordsim is not None and rho < args.floor_wordsim:
        failed.append(f"WordSim-353 Spearman {rho:.4f} is below the floor {args.floor_wordsim}")
    if failed:
        for msg in failed:
            print(f"FAIL: {msg}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
