#!/usr/bin/python3
"""Generates a large synthetic benchmark corpus, streamed to disk.

Usage:
  scripts/gen-large-corpus.py --out FILE --words N [--vocab V] [--seed S]
      [--zipf A] [--topics T] [--topic-mix P] [--line-words L]
      [--min-occurrences K]

Examples:
  # 20M words, Zipfian over a 1M-word vocabulary (~1 minute)
  scripts/gen-large-corpus.py --out out/large-20m.txt --words 20000000
  # a 10M-word vocabulary in which every word occurs at least 5 times
  # (so all 10M survive -min-count 5): needs N >= 5 * 10M words
  scripts/gen-large-corpus.py --out out/vocab-10m.txt --words 60000000 \
      --vocab 10000000 --min-occurrences 5

How it is generated (deterministic given --seed; numpy, chunks of ~2M
words, so memory is O(V) for the tables plus O(chunk), never O(N)):

  Words.  Word of frequency rank r (0-based) is the bijective base-26
  numeral of r+1 in letters a..z: a, b, ..., z, aa, ab, ... -- so frequent
  words are short, as in natural text, and every rank has a distinct
  spelling (at most 5 letters up to 12.3M words, 6 up to 321M).

  Lines.  One line is one "paragraph" of 1 + Poisson(L-1) words (mean L =
  --line-words, default 20, capped at 1000 -- the word2vec.c line limit).
  Each line has a topic t drawn uniformly from T topics (--topics, 1000).

  Tokens.  Each token of a line is drawn from one of three components:
    * global (probability 1-P, P = --topic-mix = 0.5): rank r with
      P(r) ∝ 1/(r+1)^A over all V words (A = --zipf, default 1.0). This
      gives the Zipfian head ("stopwords") and overall Zipf shape;
    * topical (probability P): rank r = H + t + j*T, where H = 100 (the top
      H words are left to the global component) and j is drawn with
      P(j) ∝ 1/(j+1)^A over j < ceil((V-H)/T); ranks >= V wrap around into
      [H, V). Topic t therefore owns the words congruent to t mod T above
      rank H, with Zipfian popularity inside the topic, and words of one
      topic co-occur within lines -- there is something for SGNS to learn,
      and the marginal frequencies stay roughly Zipfian;
    * coverage (only with --min-occurrences K > 0): K*V tokens that go
      through a random permutation of all V words K times, placed at random
      positions spread evenly over the whole corpus (the other components
      fill N - K*V tokens), so every word occurs at least K times. This is
      how a corpus gets a real V-word vocabulary at a given -min-count;
      without it, a Zipf(1) draw of N words reaches far fewer than V
      distinct words when V is large (the tail is too thin).
"""
import argparse
import sys
import time

import numpy as np

HEAD = 100          # top ranks reserved to the global component
CHUNK = 2_000_000   # words per chunk


def zipf_cdf(n, a):
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** a
    c = np.cumsum(w)
    c /= c[-1]
    return c


def spell(ranks, width):
    """Bytes of the words of `ranks` as bijective base-26 numerals, as a
    (len, width) uint8 matrix right-aligned and padded with 0 on the left."""
    x = ranks.astype(np.int64) + 1
    m = np.zeros((len(x), width), dtype=np.uint8)
    for col in range(width - 1, -1, -1):
        live = x > 0
        x1 = x - 1
        m[:, col] = np.where(live, ord("a") + x1 % 26, 0)
        x = np.where(live, x1 // 26, 0)
    return m


def width_for(v):
    w, span, total = 1, 26, 26
    while total < v:
        w += 1
        span *= 26
        total += span
    return w


def main():
    ap = argparse.ArgumentParser(description="Large Zipfian benchmark corpus with topics.")
    ap.add_argument("--out", required=True)
    ap.add_argument("--words", type=int, required=True, help="corpus tokens N")
    ap.add_argument("--vocab", type=int, default=1_000_000, help="vocabulary size V")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent A")
    ap.add_argument("--topics", type=int, default=1000, help="number of topics T")
    ap.add_argument("--topic-mix", type=float, default=0.5, help="fraction P of topical tokens")
    ap.add_argument("--line-words", type=float, default=20, help="mean words per line L")
    ap.add_argument("--min-occurrences", type=int, default=0,
                    help="every vocabulary word occurs at least K times (needs N >= K*V)")
    args = ap.parse_args()

    n_words, v, t_count = args.words, args.vocab, args.topics
    if n_words < 1 or v < HEAD + 1 or t_count < 1 or args.line_words < 1:
        ap.error("need --words >= 1, --vocab > 100, --topics >= 1, --line-words >= 1")
    if not 0 <= args.topic_mix <= 1:
        ap.error("--topic-mix must be in [0, 1]")
    coverage = args.min_occurrences * v
    if coverage > n_words:
        ap.error(f"--min-occurrences {args.min_occurrences} x --vocab {v} = {coverage} "
                 f"tokens exceeds --words {n_words}")

    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    global_cdf = zipf_cdf(v, args.zipf)
    per_topic = -(-(v - HEAD) // t_count)
    topic_cdf = zipf_cdf(per_topic, args.zipf)
    perm = rng.permutation(v).astype(np.int32) if coverage else None
    width = width_for(v)

    written = 0          # tokens written
    cov_done = 0         # coverage tokens written
    with open(args.out, "wb", buffering=1 << 22) as out:
        while written < n_words:
            # Lines of this chunk; the last line of the corpus is truncated.
            n_lines = max(1, int(CHUNK / args.line_words))
            lens = np.minimum(1 + rng.poisson(args.line_words - 1, n_lines), 1000)
            ends = np.cumsum(lens)
            remaining = n_words - written
            if ends[-1] > remaining:
                cut = int(np.searchsorted(ends, remaining))
                lens = lens[:cut + 1].copy()
                lens[-1] -= ends[cut] - remaining
                lens = lens[lens > 0]
                ends = np.cumsum(lens)
            n = int(ends[-1])

            topic = np.repeat(rng.integers(0, t_count, len(lens)), lens)
            ranks = np.searchsorted(global_cdf, rng.random(n), side="right")
            topical = rng.random(n) < args.topic_mix
            k = int(topical.sum())
            j = np.searchsorted(topic_cdf, rng.random(k), side="right")
            tr = HEAD + topic[topical] + j * t_count
            tr = np.where(tr >= v, HEAD + (tr - HEAD) % (v - HEAD), tr)
            ranks[topical] = tr
            if coverage:
                # Coverage tokens due by the end of this chunk, pro rata.
                due = (coverage * (written + n)) // n_words - cov_done
                if due:
                    pos = rng.choice(n, size=due, replace=False)
                    idx = (np.arange(cov_done, cov_done + due) % v)
                    ranks[pos] = perm[idx]
                    cov_done += due
            np.minimum(ranks, v - 1, out=ranks)

            m = np.empty((n, width + 1), dtype=np.uint8)  # last column: separator
            m[:, :width] = spell(ranks, width)
            m[:, width] = ord(" ")
            m[ends - 1, width] = ord("\n")
            flat = m.ravel()
            out.write(flat[flat != 0].tobytes())
            written += n
            if sys.stderr.isatty():
                rate = written / max(time.time() - t0, 1e-9)
                print(f"\r{written}/{n_words} words ({rate / 1e6:.1f}M words/s)",
                      end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"wrote {written} words (vocabulary {v}, {args.min_occurrences} minimum occurrences) "
          f"to {args.out} in {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
