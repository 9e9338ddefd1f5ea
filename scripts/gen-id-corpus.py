#!/usr/bin/python3
"""Generates a corpus whose words look like query or ad ids, streamed to disk.

Usage:
  scripts/gen-id-corpus.py --out FILE --vocab V [--tokens N] [--min-occurrences K]
      [--line-words L] [--seed S]

Every one of the V words is a distinct id of 16 to 24 bytes (lowercase hex
with a short prefix such as "q_" or "ad", as query and ad ids are), and
occurs at least K times (default 5), so all V survive -min-count K. N
(default 6·V) tokens in all: K·V go through the V words K times in a
random order, the rest are drawn with Zipfian popularity (exponent 1) so
that a head of frequent ids exists, as in real logs. Lines hold L words
(default 20). Deterministic given --seed; memory is O(V) (numpy), never O(N)
beyond one chunk.
"""
import argparse
import sys

import numpy as np


def make_words(v, rng):
    prefixes = np.array([b"q_", b"ad", b"u_", b"s_"])
    lengths = rng.integers(16, 25, size=v)
    # Distinct by construction: the word's rank, in hex, ends every id.
    words = []
    pre = prefixes[rng.integers(0, len(prefixes), size=v)]
    salt = rng.integers(0, 1 << 62, size=v, dtype=np.int64)
    for r in range(v):
        tail = b"%x" % r
        body = (b"%016x" % int(salt[r]))
        need = int(lengths[r]) - len(pre[r]) - len(tail) - 1
        words.append(pre[r] + body[:max(need, 0)] + b"_" + tail)
    return words


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--tokens", type=int, default=0)
    ap.add_argument("--min-occurrences", type=int, default=5)
    ap.add_argument("--line-words", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    v, k = a.vocab, a.min_occurrences
    n = a.tokens or 6 * v
    if n < k * v:
        sys.exit("gen-id-corpus: --tokens must be at least --min-occurrences x --vocab")
    rng = np.random.default_rng(a.seed)
    words = make_words(v, rng)
    w = 1.0 / np.arange(1, v + 1, dtype=np.float64)
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    extra = n - k * v
    chunk = 2_000_000
    with open(a.out, "wb") as f:
        done = 0
        col = 0
        # The coverage tokens, K random permutations, are interleaved with
        # the Zipfian draws chunk by chunk.
        cover = [rng.permutation(v) for _ in range(k)]
        cover = np.concatenate(cover) if k else np.empty(0, dtype=np.int64)
        ci = 0
        while done < n:
            m = min(chunk, n - done)
            take_cover = min(len(cover) - ci, int(round(m * (len(cover) / n)))) if n else 0
            if done + m >= n:
                take_cover = len(cover) - ci
            ids = np.concatenate([cover[ci:ci + take_cover],
                                  np.searchsorted(cdf, rng.random(m - take_cover))])
            ci += take_cover
            rng.shuffle(ids)
            out = []
            for i in ids:
                out.append(words[i])
                col += 1
                out.append(b"\n" if col % a.line_words == 0 else b" ")
            f.write(b"".join(out))
            done += m
        if col % a.line_words:
            f.write(b"\n")


if __name__ == "__main__":
    main()
