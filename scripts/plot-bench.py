#!/usr/bin/python3
"""Draws words/s by trainer and thread count as a grouped bar chart (PNG).

Usage: scripts/plot-bench.py RUNS.tsv OUT.png [TITLE]

RUNS.tsv has one run per line: trainer, threads, words/s (tab separated;
scripts/bench --plot writes it). Repeated runs are averaged; each bar is
labelled with its words/s. Needs python3-matplotlib (Debian).
"""
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

NAMES = {"gridvec": "gridvec", "word2vec": "word2vec.c", "gensim": "gensim", "fasttext": "fastText"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = defaultdict(list)
    for line in open(sys.argv[1]):
        t, nt, wps = line.split("\t")[:3]
        runs[(t, int(nt))].append(float(wps))
    trainers = [t for t in NAMES if any(k[0] == t for k in runs)]
    threads = sorted({k[1] for k in runs})
    width = 0.8 / max(1, len(trainers))
    fig, ax = plt.subplots(figsize=(2 + 1.6 * len(threads) * max(1, len(trainers)) / 2, 4.5))
    for i, t in enumerate(trainers):
        xs, ys = [], []
        for j, nt in enumerate(threads):
            if (t, nt) in runs:
                xs.append(j + (i - (len(trainers) - 1) / 2) * width)
                ys.append(sum(runs[(t, nt)]) / len(runs[(t, nt)]))
        bars = ax.bar(xs, ys, width, label=NAMES[t])
        ax.bar_label(bars, labels=[f"{y / 1e3:,.0f}k" for y in ys], fontsize=8)
    ax.set_xticks(range(len(threads)), [f"{nt} thread{'s' if nt > 1 else ''}" for nt in threads])
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y / 1e3:,.0f}k"))
    ax.set_ylabel("words/s (corpus tokens x epochs / wall s)")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else "training speed")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"plot-bench: wrote {sys.argv[2]}", file=sys.stderr)


if __name__ == "__main__":
    main()
