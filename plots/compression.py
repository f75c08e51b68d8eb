#!/usr/bin/env python3
"""Compression trade-off from an `sgdsim run --json` result or an `sgdsim sweep` CSV: iteration
time against bytes sent per GPU per iteration, one point per compressor (fastest merge policy
for each), one series per GPU count when a sweep varies it.

Usage: compression.py RESULT.json|SWEEP.csv -o OUT.png"""
from collections import defaultdict

from common import (MAX_GPUS, ArgumentParser, check_outputs, fail, integer_cell, number_cell, plt,
                    read_csv, read_json, run, save, style, text_cell)
CSV_COLUMNS = {"gpus": integer_cell(1, MAX_GPUS), "compression": text_cell,
               "iteration_us": number_cell(0.0), "bytes_sent_per_gpu": number_cell(0.0)}


def rows_from(path):
    """(gpus, compressor, bytes sent per GPU, iteration us) of every policy in a result JSON or
    every row of a sweep CSV."""
    if not path.endswith(".json"):
        return [(row["gpus"], row["compression"], row["bytes_sent_per_gpu"], row["iteration_us"])
                for row in read_csv(path, CSV_COLUMNS)]
    result = read_json(path, "sgdsim-result")
    gpus = result.integer("gpus", 1, MAX_GPUS)
    return [(gpus, p.text("compression"), p.number("bytes_sent_per_gpu"), p.number("iteration_us"))
            for p in result.records("policies")]


def points_from(path):
    """{gpus: {compressor: (MB per GPU, iteration ms)}}, keeping each compressor's best policy."""
    series = defaultdict(dict)
    for gpus, name, sent, iteration_us in rows_from(path):
        point = (sent / 1e6, iteration_us / 1e3)
        if name not in series[gpus] or point[1] < series[gpus][name][1]:
            series[gpus][name] = point
    if not series:
        fail(f"{path}: no rows to plot")
    return series


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_outputs([args.output], [args.input])
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
    save([(figure, args.output)])


if __name__ == "__main__":
    run(main)
