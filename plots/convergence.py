#!/usr/bin/env python3
"""Convergence against simulated wall-clock time from an `sgdsim run --json` result of a scenario
with a convergence section: test accuracy and training loss against time, one line per
compressor and averaging schedule, the target as a dashed line; and the parameters' variance
across workers against iteration (OUT with _variance before its extension).

Usage: convergence.py RESULT.json -o OUT.png"""
import math
import os

from common import ArgumentParser, check_outputs, fail, plt, read_json, run, save, style


def series_from(path):
    """(target kind, target value, [(label, time s, loss, variance, iteration,
    [(time s, test accuracy or loss)])])."""
    result = read_json(path, "sgdsim-result")
    if not result.has("convergence"):
        fail(f"{path}: convergence: none (run a scenario with a convergence section)")
    convergence = result.record("convergence")
    kind = convergence.text("target")
    if kind not in ("accuracy", "loss"):
        fail(f"{convergence.where('target')}: expected \"accuracy\" or \"loss\", found {kind!r}")
    target = convergence.number("target_value")
    series = []
    for configuration in convergence.records("configurations"):
        points = configuration.records("curve")
        times = [p.number("time_us") / 1e6 for p in points]
        tests = [(p.number("time_us") / 1e6, p.number(f"test_{kind}"))
                 for p in points if p.has(f"test_{kind}")]
        # A measured curve may lack the training loss, and never has the variance.
        series.append((configuration.text("label"), times,
                       [p.number("loss") if p.has("loss") else math.nan for p in points],
                       [p.number("variance") if p.has("variance") else math.nan for p in points],
                       [p.integer("iteration", 1, 2**31) for p in points], tests))
    return kind, target, series


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    stem, extension = os.path.splitext(args.output)
    variance_path = f"{stem}_variance{extension}"
    check_outputs([args.output, variance_path], [args.input])
    kind, target, series = series_from(args.input)
    style()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.2))
    for label, times, losses, _, _, tests in series:
        line, = left.plot([t for t, _ in tests], [v for _, v in tests], marker=".", label=label)
        right.plot(times, losses, color=line.get_color(), linewidth=0.8, alpha=0.8)
    left.axhline(target, color="0.3", linestyle="--", linewidth=0.8)
    left.set_xlabel("simulated wall-clock time (s)")
    left.set_ylabel(f"test {kind}")
    left.set_title(f"test {kind} against time (dashed: the target)", fontsize=9)
    right.set_xlabel("simulated wall-clock time (s)")
    right.set_ylabel("training loss (workers' mini-batches)")
    right.set_yscale("log")
    right.set_title("training loss against time", fontsize=9)
    left.legend(fontsize=7, frameon=False)
    figure.tight_layout()
    variance_figure, ax = plt.subplots(figsize=(7.0, 4.0))
    drawn = 0
    for label, _, _, variances, iterations, _ in series:
        if any(v > 0 for v in variances):  # synchronous SGD keeps the copies identical
            ax.plot(iterations, variances, linewidth=0.8, label=label)
            drawn += 1
    if drawn:
        ax.set_yscale("log")
        ax.legend(fontsize=7, frameon=False)
    ax.set_xlabel("iteration")
    ax.set_ylabel("variance of the parameters across workers")
    ax.set_title("what local SGD lets drift apart between averaging rounds", fontsize=9)
    variance_figure.tight_layout()
    save([(figure, args.output), (variance_figure, variance_path)])


if __name__ == "__main__":
    run(main)
