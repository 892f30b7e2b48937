#!/usr/bin/python3
"""bench_plot_mpl.py -- the matplotlib side of the figure benchmark (bench_plot.sh): the
same heat map (32 x 32 cells, colour bar) and 10,000-point box plot (4 groups of 2,500,
box 9/91, whiskers 2/98, outliers as dots) as bench_plot_dlb.lua, from the same LCG.
Also a 1e6-point line and a 100,000-point scatter (issue [14]'s speed targets).
Usage: /usr/bin/python3 bench_plot_mpl.py heatmap|boxplot|line1m|scatter100k OUT.png|OUT.pdf"""
import math
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def lcg(seed):
    def r():
        nonlocal seed
        seed = (seed * 1103515245 + 12345) % 2147483648
        return seed / 2147483648
    return r


def heatmap(path):
    z = np.array([[math.sin(i / 3) * math.cos(j / 5) + i * j / 1024 for i in range(1, 33)]
                  for j in range(1, 33)])
    fig, ax = plt.subplots(figsize=(3.3, 3.0), dpi=200)
    im = ax.imshow(z, origin="lower", cmap="viridis", aspect="auto",
                   extent=(0.5, 32.5, 0.5, 32.5))
    cb = fig.colorbar(im, ax=ax)
    cb.set_label("utilization")
    ax.set_xlabel("Batch size index")
    ax.set_ylabel("Nodes index")
    fig.tight_layout()
    fig.savefig(path)


def boxplot(path):
    r = lcg(42)
    data = []
    for g in range(1, 5):
        col = []
        for _ in range(2500):
            u1, u2 = r(), r()
            col.append(math.exp(0.2 * g + 0.5 * math.sqrt(-2 * math.log(u1 + 1e-12))
                                * math.cos(2 * math.pi * u2)))
        data.append(np.array(col))
    stats = []
    for col, label in zip(data, ["FC", "CNN", "RNN", "LSTM"]):
        p2, p9, p50, p91, p98 = np.percentile(col, [2, 9, 50, 91, 98])
        stats.append(dict(label=label, med=p50, q1=p9, q3=p91, whislo=p2, whishi=p98,
                          fliers=col[(col < p2) | (col > p98)]))
    fig, ax = plt.subplots(figsize=(3.3, 2.4), dpi=200)
    ax.bxp(stats, flierprops=dict(marker=".", markersize=2))
    ax.set_ylabel("Speedup")
    fig.tight_layout()
    fig.savefig(path)


def line1m(path):
    """1e6-point line (a sine with a 7-step saw tooth), legend placed "best"."""
    i = np.arange(1, 1000001, dtype=float)
    y = np.sin(i / 10000) + (i % 7) / 10
    fig, ax = plt.subplots(figsize=(4.5, 3.0), dpi=200)
    ax.plot(i, y, linewidth=1.2, label="line")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)


def scatter100k(path):
    """100,000 markers (circles of 4 pt), one colour, legend placed "best"."""
    r = lcg(7)
    x = np.array([r() for _ in range(100000)])
    y = np.array([r() for _ in range(100000)])
    fig, ax = plt.subplots(figsize=(4.5, 3.0), dpi=200)
    ax.scatter(x, y, s=4 ** 2, alpha=0.85, label="points")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    {"heatmap": heatmap, "boxplot": boxplot, "line1m": line1m,
     "scatter100k": scatter100k}[sys.argv[1]](sys.argv[2])
