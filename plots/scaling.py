#!/usr/bin/env python3
"""Scaling curves from an `sgdsim sweep` CSV: speedup, scaling efficiency and throughput against
GPUs (log2 axis) with an ideal-scaling line; one panel per model (rows) and bandwidth
(columns), one line per merge policy (or per compressor when policies do not vary).

Usage: scaling.py SWEEP.csv -o OUT.png [--metric speedup|efficiency|throughput|all]
With --metric all (the default) OUT.png gets the speedup and OUT_efficiency.png and
OUT_throughput.png the other two."""
import os
from collections import defaultdict

from common import (MAX_GPUS, POLICY_LABELS, POLICY_ORDER, ArgumentParser, check_outputs, fail,
                    integer_cell, number_cell, plt, read_csv, run, save, style, text_cell)

METRICS = {
    "speedup": ("speedup", "speedup over one GPU (x)"),
    "efficiency": ("scaling_efficiency", "scaling efficiency (%)"),
    "throughput": ("samples_per_second", "throughput (samples/s)"),
}
COLUMNS = {"gpus": integer_cell(1, MAX_GPUS), "policy": text_cell, "compression": text_cell,
           "bandwidth_gbps": number_cell(0.0), "model": text_cell, "speedup": number_cell(0.0),
           "scaling_efficiency": number_cell(0.0), "samples_per_second": number_cell(0.0)}


def series_key(row, by_policy):
    if by_policy:
        return row["policy"] if row["compression"] == "none" else f"{row['policy']}+{row['compression']}"
    return row["compression"]


def series_label(key):
    policy, _, compression = key.partition("+")
    return POLICY_LABELS.get(policy, policy) + (f" + {compression}" if compression else "")


def draw(rows, metric):
    """The figure of one metric, one panel per model and bandwidth."""
    column, label = METRICS[metric]
    models = sorted({row["model"] for row in rows})
    bandwidths = sorted({row["bandwidth_gbps"] for row in rows})
    by_policy = len({row["policy"] for row in rows}) > 1 or len({row["compression"] for row in rows}) == 1
    figure, axes = plt.subplots(len(models), len(bandwidths), squeeze=False, sharex=True,
                                figsize=(3.6 * len(bandwidths) + 0.6, 2.9 * len(models) + 0.6))
    handles = {}
    for r, model in enumerate(models):
        for c, bandwidth in enumerate(bandwidths):
            ax = axes[r][c]
            points = defaultdict(list)
            single_gpu = None
            for row in rows:
                if row["model"] == model and row["bandwidth_gbps"] == bandwidth:
                    points[series_key(row, by_policy)].append((row["gpus"], row[column]))
                    speedup = row["speedup"]
                    single_gpu = row["samples_per_second"] / speedup if speedup else single_gpu
            order = sorted(points, key=lambda k: (POLICY_ORDER.index(k.partition("+")[0])
                                                  if k.partition("+")[0] in POLICY_ORDER else 99, k))
            gpus_all = sorted({g for k in points for g, _ in points[k]})
            if gpus_all:
                ideal = {"speedup": gpus_all, "efficiency": [1.0] * len(gpus_all),
                         "throughput": [g * (single_gpu or 0) for g in gpus_all]}[metric]
                line, = ax.plot(gpus_all, [v * (100 if metric == "efficiency" else 1) for v in ideal],
                                "k--", linewidth=0.8)
                handles["ideal scaling"] = line
            for key in order:
                data = sorted(points[key])
                values = [v * (100 if metric == "efficiency" else 1) for _, v in data]
                line, = ax.plot([g for g, _ in data], values, marker="o", markersize=3, linewidth=1.2)
                handles.setdefault(series_label(key), line)
            ax.set_xscale("log", base=2)
            if metric != "efficiency":
                ax.set_yscale("log", base=2 if metric == "speedup" else 10)
            else:
                ax.set_ylim(0, 105)
            ax.set_title(f"{model}, {bandwidth:g} Gbps", fontsize=9)
            if r == len(models) - 1:
                ax.set_xlabel("GPUs")
            if c == 0:
                ax.set_ylabel(label)
    figure.legend(list(handles.values()), list(handles.keys()), loc="lower center",
                  ncol=min(7, len(handles)), frameon=False, bbox_to_anchor=(0.5, -0.02))
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    return figure


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--metric", choices=[*METRICS, "all"], default="all")
    args = parser.parse_args()
    outputs = outputs_of(args.output, args.metric)
    check_outputs(list(outputs.values()), [args.csv])
    rows = read_csv(args.csv, COLUMNS)
    if not rows:
        fail(f"{args.csv}: no rows to plot (a sweep whose every point failed lists them in "
             "comment lines)")
    style()
    save([(draw(rows, metric), path) for metric, path in outputs.items()])


def outputs_of(output, metric):
    """{metric: path}: OUT itself, or with --metric all OUT (speedup), OUT_efficiency and
    OUT_throughput."""
    if metric != "all":
        return {metric: output}
    stem, extension = os.path.splitext(output)
    return {"speedup": output, "efficiency": f"{stem}_efficiency{extension}",
            "throughput": f"{stem}_throughput{extension}"}


if __name__ == "__main__":
    run(main)
