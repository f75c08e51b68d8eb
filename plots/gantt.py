#!/usr/bin/env python3
"""Per-message Gantt view from an `sgdsim run --timeline` file: for each merge policy, GPU 0's
backward pass (layer by layer) above the messages on its communication stream, for the first
iteration drawn, all policies on one time axis. With --result (the `sgdsim run --json` output of
the same run) the title states the model, batch, GPUs, network and collective.

Usage: gantt.py TIMELINE.json -o OUT.png [--policies N] [--result RESULT.json]"""
from collections import defaultdict

import style
from common import (MAX_GPUS, ArgumentParser, check_outputs, fail, plt, read_json, run, save,
                    setup_of)

MAX_PID = 1 << 31  # pids are small integers, one per merge policy


def read_timeline(path):
    """(policy name by pid, {pid: {category: [(ts, dur) in us]}} of GPU 0's spans, the title)."""
    timeline = read_json(path, "sgdsim-timeline")
    names = {}
    spans = defaultdict(lambda: defaultdict(list))
    for event in timeline.records("traceEvents"):
        kind = event.text("ph")
        if kind == "M" and event.text("name") == "process_name":
            names[event.integer("pid", 0, MAX_PID)] = event.record("args").text("name")
        elif kind == "X" and event.integer("tid", 0, MAX_PID) in (0, 1):  # GPU 0's two streams
            spans[event.integer("pid", 0, MAX_PID)][event.text("cat")].append(
                (event.number("ts"), event.number("dur")))
    if not names:
        fail(f"{path}: traceEvents: no process_name event, so no merge policy to draw")
    other = timeline.record("otherData")
    gpus = other.integer("gpus", 1, MAX_GPUS)
    return names, spans, f"GPU 0 of {gpus}, first iteration"


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("timeline")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--policies", type=int, default=6, help="at most this many (default 6)")
    parser.add_argument("--result", help="the run's --json result, for the title")
    args = parser.parse_args()
    if args.policies < 1:
        fail(f"--policies must be at least 1, found {args.policies}")
    check_outputs([args.output], [args.timeline] + ([args.result] if args.result else []))
    names, spans, title = read_timeline(args.timeline)
    if args.result:
        result = read_json(args.result, "sgdsim-result")
        title = f"{style.setup_title(setup_of(result))}: GPU 0, first iteration"
    pids = sorted(names)[: args.policies]
    style.apply()
    figure, axes = plt.subplots(len(pids), 1, squeeze=False, sharex=True,
                                figsize=(9, 1.25 * len(pids) + 0.8))
    for ax, pid in zip((a[0] for a in axes), pids):
        backward = sorted(spans[pid]["backward"])
        optimizer = sorted(spans[pid]["optimizer"])
        first_end = optimizer[0][0] + optimizer[0][1] if optimizer else float("inf")
        origin = backward[0][0] if backward else 0.0
        for i, (start, duration) in enumerate(s for s in backward if s[0] < first_end):
            ax.broken_barh([((start - origin) / 1e3, duration / 1e3)], (1.1, 0.8),
                           color=style.COMPUTE, alpha=1.0 if i % 2 else 0.75)
        messages = sorted(s for s in spans[pid]["communication"] if s[0] < first_end)
        for i, (start, duration) in enumerate(messages):
            ax.broken_barh([((start - origin) / 1e3, duration / 1e3)], (0.1, 0.8),
                           color=style.EXPOSED if i % 2 else style.AVERAGING)
        ax.set_yticks([0.5, 1.5], [f"messages ({len(messages)})", "backward"], fontsize=7)
        ax.set_title(names[pid], fontsize=8, loc="left", fontweight="bold",
                     color=style.look("policy", names[pid]).colour)
        ax.grid(axis="y", visible=False)
    axes[-1][0].set_xlabel("time since the start of backward (ms)")
    figure.suptitle(title, fontsize=9)
    figure.align_ylabels()
    figure.tight_layout()
    save([(figure, args.output)])


if __name__ == "__main__":
    run(main)
