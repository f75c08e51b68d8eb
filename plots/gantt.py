#!/usr/bin/env python3
"""Per-message Gantt view from an `sgdsim run --timeline` file: for each merge policy, GPU 0's
backward pass (layer by layer) above the messages on its communication stream, for the first
iteration drawn.

Usage: gantt.py TIMELINE.json -o OUT.png [--policies N]"""
import argparse
from collections import defaultdict

from common import plt, read_json, save, style


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("timeline")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--policies", type=int, default=6, help="at most this many (default 6)")
    args = parser.parse_args()
    timeline = read_json(args.timeline, "sgdsim-timeline")
    names = {}
    spans = defaultdict(lambda: defaultdict(list))
    for event in timeline["traceEvents"]:
        if event["ph"] == "M" and event["name"] == "process_name":
            names[event["pid"]] = event["args"]["name"]
        elif event["ph"] == "X" and event["tid"] in (0, 1):
            spans[event["pid"]][event["cat"]].append(event)
    pids = sorted(names)[: args.policies]
    style()
    figure, axes = plt.subplots(len(pids), 1, squeeze=False, sharex=True,
                                figsize=(9, 1.25 * len(pids) + 0.8))
    for ax, pid in zip((a[0] for a in axes), pids):
        backward = sorted(spans[pid]["backward"], key=lambda e: e["ts"])
        optimizer = sorted(spans[pid]["optimizer"], key=lambda e: e["ts"])
        first_end = optimizer[0]["ts"] + optimizer[0]["dur"] if optimizer else float("inf")
        origin = backward[0]["ts"] if backward else 0.0
        for i, event in enumerate(e for e in backward if e["ts"] < first_end):
            ax.broken_barh([((event["ts"] - origin) / 1e3, event["dur"] / 1e3)], (1.1, 0.8),
                           color="#4c72b0" if i % 2 else "#6f8fc4")
        messages = [e for e in spans[pid]["communication"] if e["ts"] < first_end]
        for i, event in enumerate(sorted(messages, key=lambda e: e["ts"])):
            ax.broken_barh([((event["ts"] - origin) / 1e3, event["dur"] / 1e3)], (0.1, 0.8),
                           color="#dd8452" if i % 2 else "#c44e52")
        ax.set_yticks([0.5, 1.5], [f"messages ({len(messages)})", "backward"], fontsize=7)
        ax.set_title(names[pid], fontsize=8, loc="left")
        ax.grid(axis="y", visible=False)
    axes[-1][0].set_xlabel("time since the start of backward (ms)")
    other = timeline["otherData"]
    figure.suptitle(f"{other['scenario']}: GPU 0 of {other['gpus']}, first iteration", fontsize=9)
    figure.tight_layout()
    save(figure, args.output)


if __name__ == "__main__":
    main()
