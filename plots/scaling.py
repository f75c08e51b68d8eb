#!/usr/bin/env python3
"""Scaling curves from an `sgdsim sweep` CSV: speedup, scaling efficiency, throughput or iteration
time against GPUs (log2 axis), with an ideal-scaling line; one panel per model (rows) and
bandwidth (columns) on one y range, one line per merge policy (or per compressor when policies
do not vary); policies whose numbers coincide at every point of a panel are drawn once. Any
other setting the sweep varies (its columns before `scenario`: a node, a transport, a collective)
that would put two points of one line at one GPU count splits the line: one per value, named in
the legend, each value in its own line style.

Usage: scaling.py SWEEP.csv -o OUT.png [--metric speedup|efficiency|throughput|iteration|all]
With --metric all (the default) OUT.png gets the speedup and OUT_efficiency.png and
OUT_throughput.png the other two."""
import json
import os
from collections import defaultdict

import style
from common import (MAX_GPUS, POLICY_LABELS, POLICY_ORDER, ArgumentParser, check_outputs, fail,
                    integer_cell, number_cell, optional_number_cell, plt, read_csv, read_header,
                    run, save, text_cell)

# metric: (column, axis label, scale of the column's values)
METRICS = {
    "speedup": ("speedup", "speedup over one GPU (x)", 1.0),
    "efficiency": ("scaling_efficiency", "scaling efficiency (%)", 100.0),
    "throughput": ("samples_per_second", "throughput (samples/s)", 1.0),
    "iteration": ("iteration_us", "iteration time (ms)", 1e-3),
}
COLUMNS = {"gpus": integer_cell(1, MAX_GPUS), "policy": text_cell, "compression": text_cell,
           "bandwidth_gbps": optional_number_cell(0.0), "model": text_cell, "speedup": number_cell(0.0),
           "scaling_efficiency": number_cell(0.0), "samples_per_second": number_cell(0.0),
           "iteration_us": number_cell(0.0)}
# Read where the file has them: the title states them.
OPTIONAL = {"collective": text_cell, "batch_size": integer_cell(1, 1 << 24)}


def series_key(row, by_policy):
    if by_policy:
        return row["policy"] if row["compression"] == "none" else f"{row['policy']}+{row['compression']}"
    return row["compression"]


def series_label(key, by_policy):
    if not by_policy:
        return key
    policy, _, compression = key.partition("+")
    return POLICY_LABELS.get(policy, policy) + (f" + {compression}" if compression else "")


def order(key):
    policy = key.partition("+")[0]
    return (POLICY_ORDER.index(policy) if policy in POLICY_ORDER else 99, key)


def ideal(metric, gpus, single_gpu):
    """Linear scaling from one GPU: speedup N, efficiency 100%, throughput N x one GPU's, and
    one GPU's iteration time (a fixed batch per GPU)."""
    return {"speedup": list(gpus), "efficiency": [100.0] * len(gpus),
            "throughput": [g * single_gpu["samples_per_second"] for g in gpus],
            "iteration": [single_gpu["iteration_us"] * 1e-3] * len(gpus)}[metric]


LINESTYLES = ["-", "--", ":", "-."]


def swept_columns(path):
    """The sweep's own columns besides the GPU count, the x axis: `sgdsim sweep` writes its swept
    keys first, before `scenario` (none in a CSV without that column)."""
    header, _ = read_header(path)
    if "scenario" not in header:
        return []
    return [c for c in header[:header.index("scenario")] if c != "cluster.gpus"]


def splitting(rows, swept, by_policy):
    """The swept columns whose values tell apart two points of one series of one panel (model and
    bandwidth) at one GPU count, decided over the whole figure so that a setting looks the same
    in every panel."""
    out = []
    for column in swept:
        seen = defaultdict(set)
        for row in rows:
            seen[(row["model"], row["bandwidth_gbps"], series_key(row, by_policy),
                  row["gpus"])].add(row[column])
        if any(len(values) > 1 for values in seen.values()):
            out.append(column)
    return out


def setting_text(column, value):
    """A swept value for the legend: "node=geforce_pcie3_4gpu", or an object's keys
    ("bandwidth_gbps=100 transport=rdma")."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    if isinstance(parsed, dict):
        return " ".join(f"{k}={v}" for k, v in parsed.items())
    return f"{column.rsplit('.', 1)[-1]}={parsed}"


def panel_series(rows, by_policy, columns):
    """{(series key, setting values): [(gpus, row)]} for one panel, the settings being the values
    of the swept columns that split the figure's series (splitting)."""
    series = defaultdict(list)
    for row in rows:
        series[(series_key(row, by_policy), tuple(row[c] for c in columns))].append(
            (row["gpus"], row))
    return {key: sorted(points, key=lambda p: p[0]) for key, points in series.items()}


def panel_rows(rows, model, bandwidth):
    return [row for row in rows if row["model"] == model and row["bandwidth_gbps"] == bandwidth]


def draw_panel(ax, rows, metric, by_policy, handles, columns, settings):
    """One model and bandwidth: the ideal line, then each series (equal ones once), each of the
    figure's settings in its own line style."""
    column, _, scale = METRICS[metric]
    series = panel_series(rows, by_policy, columns)
    points = {key: [(g, row[column] * scale) for g, row in data] for key, data in series.items()}
    keys = sorted(points, key=lambda k: (order(k[0]), k[1]))

    def label_of(key):
        texts = [setting_text(c, v) for c, v in zip(columns, key[1])]
        return ", ".join([series_label(key[0], by_policy), *texts])
    labels = {label_of(k): k for k in keys}
    kind = "policy" if by_policy else "compressor"
    # One GPU's rate, from any row: samples/s over speedup is the single-GPU throughput.
    some = next((row for row in rows if row["speedup"] > 0), None)
    gpus = sorted({row["gpus"] for row in rows})
    if some:
        single = {"samples_per_second": some["samples_per_second"] / some["speedup"],
                  "iteration_us": some["iteration_us"] * some["speedup"] / some["gpus"]}
        handles["ideal scaling"] = ax.plot(gpus, ideal(metric, gpus, single), **style.IDEAL)[0]
    merged = style.deduplicate([(label, points[k]) for label, k in labels.items()])
    looks = style.looks(kind, list(dict.fromkeys(labels[label.split(" = ")[0]][0]
                                                 for label, _ in merged)))
    for label, data in merged:
        key = labels[label.split(" = ")[0]]
        look = looks[key[0]]
        if len(settings) > 1:  # each setting in its own line style
            look = look._replace(linestyle=LINESTYLES[settings.index(key[1]) % len(LINESTYLES)])
        handle = style.plot(ax, [g for g, _ in data], [v for _, v in data], look, label)
        handles.setdefault(label, handle)
    return [v for k in keys for _, v in points[k]]


def draw(rows, metric, swept=()):
    """The figure of one metric, one panel per model and bandwidth, all on one y range."""
    _, label, _ = METRICS[metric]
    models = sorted({row["model"] for row in rows})
    bandwidths = sorted({row["bandwidth_gbps"] for row in rows})
    by_policy = len({row["policy"] for row in rows}) > 1 or len({row["compression"] for row in rows}) == 1
    figure, axes = plt.subplots(len(models), len(bandwidths), squeeze=False, sharex=True,
                                sharey=True, figsize=(3.7 * len(bandwidths) + 0.6,
                                                      3.0 * len(models) + 0.9))
    handles, values = {}, []
    columns = splitting(rows, swept, by_policy)
    settings = sorted({tuple(row[c] for c in columns) for row in rows})
    for r, model in enumerate(models):
        for c, bandwidth in enumerate(bandwidths):
            ax = axes[r][c]
            here = panel_rows(rows, model, bandwidth)
            values += draw_panel(ax, here, metric, by_policy, handles, columns, settings)
            ax.set_title(style.setup_title(here[0], ("model", "batch", "network")) if here
                         else f"{model}, {bandwidth:g} Gbps" if bandwidth is not None
                         else f"{model}, one node")
            if r == len(models) - 1:
                ax.set_xlabel("GPUs")
            if c == 0:
                ax.set_ylabel(label)
    gpus = [row["gpus"] for row in rows]
    for ax in axes.flat:
        style.log2_axis(ax, gpus)
    if metric == "speedup":
        style.log2_axis(axes[0][0], [v for v in values + gpus if v > 0], "y")
    elif metric == "efficiency":
        axes[0][0].set_ylim(0, 105)
    else:
        style.log10_axis(axes[0][0], [v for v in values if v > 0])
    collectives = sorted({str(row.get("collective", "")).replace("_", " ") for row in rows} - {""})
    common = ", ".join(collectives)
    rect = None
    if len(models) * len(bandwidths) == 1:  # one panel: one title
        axes[0][0].set_title(", ".join(filter(None, [axes[0][0].get_title(), common])))
    else:
        figure.suptitle(f"{label.split(' (')[0]} against GPUs" + (f", {common}" if common else ""),
                        fontsize=10)
        rect = (0, 0, 1, 1 - 0.35 / figure.get_figheight())  # 0.35 inch above the panels' titles
    figure.tight_layout(rect=rect)
    figure.legend(list(handles.values()), list(handles.keys()), loc="upper center",
                  ncol=min(4, len(handles)), bbox_to_anchor=(0.5, 0.0))
    return figure


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--metric", choices=[*METRICS, "all"], default="all")
    args = parser.parse_args()
    outputs = outputs_of(args.output, args.metric)
    check_outputs(list(outputs.values()), [args.csv])
    swept = swept_columns(args.csv)
    rows = read_csv(args.csv, COLUMNS, {**OPTIONAL, **{c: text_cell for c in swept}})
    if not rows:
        fail(f"{args.csv}: no rows to plot (a sweep whose every point failed lists them in "
             "comment lines)")
    style.apply()
    save([(draw(rows, metric, swept), path) for metric, path in outputs.items()])


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
