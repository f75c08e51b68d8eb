#!/usr/bin/env python3
"""Compression trade-off from an `sgdsim run --json` result or an `sgdsim sweep` CSV: iteration
time against bytes sent per GPU per iteration, one point per compressor (fastest merge policy
for each), one series per GPU count when a sweep varies it.

Usage: compression.py RESULT.json|SWEEP.csv -o OUT.png"""
import argparse
from collections import defaultdict

from common import fail, plt, read_csv, read_json, save, style


def points_from(path):
    """{gpus: {compressor: (MB per GPU, iteration ms)}}, keeping each compressor's best policy."""
    series = defaultdict(dict)
    if path.endswith(".json"):
        result = read_json(path, "sgdsim-result")
        rows = [dict(p, gpus=result["gpus"]) for p in result["policies"]]
        get = lambda r, k: r[k]  # noqa: E731
    else:
        rows = read_csv(path, ["gpus", "compression", "iteration_us", "bytes_sent_per_gpu"])
        get = lambda r, k: float(r[k]) if k != "compression" else r[k]  # noqa: E731
    for row in rows:
        gpus = int(get(row, "gpus"))
        name = get(row, "compression")
        point = (get(row, "bytes_sent_per_gpu") / 1e6, get(row, "iteration_us") / 1e3)
        if name not in series[gpus] or point[1] < series[gpus][name][1]:
            series[gpus][name] = point
    if not series:
        fail(f"{path}: no rows to plot")
    return series


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    series = points_from(args.input)
    style()
    figure, ax = plt.subplots(figsize=(9.0, 4.8))
    names = sorted({n for points in series.values() for n in points})
    markers = "os^vD<>pP*Xh"
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for g, gpus in enumerate(sorted(series)):
        for n, name in enumerate(names):
            if name in series[gpus]:
                x, y = series[gpus][name]
                ax.scatter([x], [y], s=36, marker=markers[n % len(markers)],
                           color=colors[g % len(colors)], zorder=3,
                           label=name if g == 0 else None)
        if len(series) > 1:
            ax.scatter([], [], color=colors[g % len(colors)], marker="s", label=f"{gpus} GPUs")
    ax.set_xscale("log")
    ax.set_xlabel("data sent per GPU per iteration (MB, log scale)")
    ax.set_ylabel("iteration time (ms)")
    ax.set_title("compression trade-off: bytes saved against time per iteration", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    save(figure, args.output)


if __name__ == "__main__":
    main()
