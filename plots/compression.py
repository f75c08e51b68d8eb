#!/usr/bin/env python3
"""Compression trade-off from an `sgdsim run --json` result or an `sgdsim sweep` CSV: iteration
time against bytes sent per GPU per iteration, one point per compressor (fastest merge policy
for each) in the compressor's own colour and marker; when a sweep varies the GPU count, each
compressor's points are joined in GPU order and labelled with their GPU count.

Usage: compression.py RESULT.json|SWEEP.csv -o OUT.png"""
from collections import defaultdict

import style
from common import (MAX_GPUS, ArgumentParser, check_outputs, fail, integer_cell, number_cell,
                    optional_number_cell, plt, read_csv, read_json, run, save, setup_of,
                    text_cell)

CSV_COLUMNS = {"gpus": integer_cell(1, MAX_GPUS), "compression": text_cell,
               "iteration_us": number_cell(0.0), "bytes_sent_per_gpu": number_cell(0.0)}
# Stated in the title where the sweep has them.
CSV_SETUP = {"model": text_cell, "bandwidth_gbps": optional_number_cell(0.0), "collective": text_cell,
             "batch_size": integer_cell(1, 1 << 24)}


def rows_from(path):
    """([(gpus, compressor, bytes sent per GPU, iteration us)] of every policy in a result JSON
    or every row of a sweep CSV, the fields the title states)."""
    if not path.endswith(".json"):
        rows = read_csv(path, CSV_COLUMNS, CSV_SETUP)
        setup = {k: v for k, v in rows[0].items() if k in CSV_SETUP} if rows else {}
        if len({row["gpus"] for row in rows}) == 1:
            setup["gpus"] = rows[0]["gpus"]
        return [(row["gpus"], row["compression"], row["bytes_sent_per_gpu"], row["iteration_us"])
                for row in rows], setup
    result = read_json(path, "sgdsim-result")
    gpus = result.integer("gpus", 1, MAX_GPUS)
    return [(gpus, p.text("compression"), p.number("bytes_sent_per_gpu"), p.number("iteration_us"))
            for p in result.records("policies")], setup_of(result)


def points_from(rows, path):
    """{compressor: {gpus: (MB per GPU, iteration ms)}}, keeping each compressor's best policy;
    compressors in the order first met."""
    series = defaultdict(dict)
    for gpus, name, sent, iteration_us in rows:
        point = (sent / 1e6, iteration_us / 1e3)
        if gpus not in series[name] or point[1] < series[name][gpus][1]:
            series[name][gpus] = point
    if not series:
        fail(f"{path}: no rows to plot")
    return series


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_outputs([args.output], [args.input])
    rows, setup = rows_from(args.input)
    series = points_from(rows, args.input)
    style.apply()
    figure, ax = plt.subplots(figsize=(8.0, 4.6))
    looks = style.looks("compressor", list(series))
    several = len({gpus for points in series.values() for gpus in points}) > 1
    for name, points in series.items():
        ordered = [points[gpus] for gpus in sorted(points)]
        look = looks[name]
        if several:
            ax.plot([x for x, _ in ordered], [y for _, y in ordered], color=look.colour,
                    linewidth=0.8, zorder=2)
            for gpus in sorted(points):
                ax.annotate(f"{gpus}", points[gpus], textcoords="offset points", xytext=(4, 3),
                            fontsize=6, color=look.colour)
        ax.plot([x for x, _ in ordered], [y for _, y in ordered], linestyle="none",
                color=look.colour, zorder=3, label=name,
                **dict(style.marker_style(look), markersize=8 * (1.4 if look.marker == "*" else 1)))
    style.log10_axis(ax, [x for points in series.values() for x, _ in points.values() if x > 0],
                     "x")
    ax.set_xlabel("data sent per GPU per iteration (MB, log scale)")
    ax.set_ylabel("iteration time (ms)")
    ax.set_title("compression trade-off (each compressor with its fastest merge policy)"
                 + (f"\n{style.setup_title(setup)}" if setup else "")
                 + ("; points labelled with their GPU count" if several else ""))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="compressor")
    figure.tight_layout()
    save([(figure, args.output)])


if __name__ == "__main__":
    run(main)
