#!/usr/bin/python3
"""Writes a sparse binary classification set in LIBSVM text for gridvec lbfgs
(docs/lbfgs.md): every example has a few dozen active binary features drawn
from a Zipf-like vocabulary of raw ids, hashed into --features columns (the
hashing trick, done here so that gridvec and scikit-learn read the same
columns), and a label drawn from a planted logistic model.

  gen-sparse-logreg.py --examples 1000000 --features 1048576 --out data.svm
"""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=1000000)
    p.add_argument("--features", type=int, default=1 << 20)
    p.add_argument("--active", type=int, default=20, help="mean active features per example")
    p.add_argument("--vocabulary", type=int, default=1 << 24, help="raw feature ids before hashing")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.examples < 1 or a.features < 2 or a.active < 1:
        sys.exit("error: --examples, --features and --active must be positive")
    rng = np.random.default_rng(a.seed)
    # The planted model, on the raw ids' hashed columns.
    truth = rng.normal(0.0, 1.0, a.features) * (rng.random(a.features) < 0.3)
    chunk = 100000
    with open(a.out, "w") as out:
        for start in range(0, a.examples, chunk):
            n = min(chunk, a.examples - start)
            counts = 1 + rng.poisson(a.active - 1, n)
            raw = (rng.zipf(1.3, counts.sum()) - 1) % a.vocabulary
            # A multiplicative hash of the raw id: the hashing trick.
            cols = ((raw.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) % np.uint64(a.features)
            cols = cols.astype(np.int64)
            ends = np.cumsum(counts)
            starts = ends - counts
            margins = np.add.reduceat(truth[cols], starts) / np.sqrt(counts)
            labels = np.where(rng.random(n) < 1 / (1 + np.exp(-margins)), 1, -1)
            lines = []
            for i in range(n):
                c = np.unique(cols[starts[i]:ends[i]])
                lines.append(("+1 " if labels[i] > 0 else "-1 ") + " ".join(f"{x}:1" for x in c))
            out.write("\n".join(lines) + "\n")
    print(f"{a.out}: {a.examples} examples over {a.features} hashed features", file=sys.stderr)


if __name__ == "__main__":
    main()
