#!/usr/bin/env python3
"""Convergence against simulated wall-clock time from an `sgdsim run --json` result of a scenario
with a convergence section: test accuracy (or loss) and training loss against time, one line per
compressor and averaging schedule (configurations that are the same run, such as SGD and
every_iteration, drawn once), the target as a dashed line, each run's end marked (a star where
it first met the target, a cross where it ended without); and the parameters' variance across
workers against iteration (OUT with _variance before its extension). The training loss and the
variance are drawn faint under their moving average (style.SMOOTHING_WINDOW iterations).

Usage: convergence.py RESULT.json -o OUT.png"""
import math
import os

import style
from common import ArgumentParser, check_outputs, fail, plt, read_json, run, save, setup_of


def series_from(path):
    """(target kind, target value, [configuration dicts], the title), each configuration with
    its label, per-iteration times, losses, variances, iterations, its evaluations
    [(time s, test metric, iteration)] and the iteration it first met the target (None)."""
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
        iterations = [p.integer("iteration", 1, 2**31) for p in points]
        times = [p.number("time_us") / 1e6 for p in points]
        # A measured curve may lack the training loss, and never has the variance.
        series.append({
            "label": configuration.text("label"), "times": times, "iterations": iterations,
            "losses": [p.number("loss") if p.has("loss") else math.nan for p in points],
            "variances": [p.number("variance") if p.has("variance") else math.nan
                          for p in points],
            "tests": [(t, p.number(f"test_{kind}"), i) for t, p, i in zip(times, points, iterations)
                      if p.has(f"test_{kind}")],
            "reached": configuration.integer("iterations_to_target", 1, 2**31)
            if configuration.has("iterations_to_target") else None})
    return kind, target, series, title_of(result, convergence)


def title_of(result, convergence):
    """What was trained, and what each iteration was timed as."""
    trained = (f"{convergence.text('task')}, {convergence.integer('workers', 1, 2**31)} workers x "
               f"batch {convergence.integer('batch', 1, 2**31)}")
    return f"{trained}; iterations timed as {style.setup_title(setup_of(result))}"


def merged(series):
    """The configurations with equal curves drawn once: [(label, configuration)]."""
    def data(c):
        return (c["times"], c["losses"], c["variances"], c["tests"], c["reached"])
    first = {}
    for c in series:
        first.setdefault(repr(data(c)), c)
    return [(label, first[key]) for label, key in
            style.deduplicate([(c["label"], repr(data(c))) for c in series])]


def mark(outcomes, ax, look, c, xs, ys, reached_at):
    """The run's end and target marks on one of its curves (xs, ys, with the iteration of each
    point in reached_at's terms)."""
    finite = [(x, y, i) for x, y, i in zip(xs, ys, reached_at) if not math.isnan(y)]
    if not finite:
        return
    at_target = next(((x, y) for x, y, i in finite if c["reached"] is not None
                      and i >= c["reached"]), None)
    outcomes.mark(ax, look, finite[-1][:2], at_target)


def draw_curves(kind, target, drawn, looks):
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.4))
    outcomes = style.Outcomes()
    handles = []
    for label, c in drawn:
        look = looks[label]
        xs, ys, its = zip(*c["tests"]) if c["tests"] else ((), (), ())
        handles.append(style.plot(left, xs, ys, look, label,
                                  markevery=style.sparse_markers(len(xs))))
        mark(outcomes, left, look, c, xs, ys, its)
        if not all(math.isnan(v) for v in c["losses"]):
            style.smoothed(right, c["times"], c["losses"], look)
            mark(outcomes, right, look, c, c["times"], style.moving_average(c["losses"]),
                 c["iterations"])
    left.axhline(target, **style.IDEAL)
    left.set_xlabel("simulated wall-clock time (s)")
    left.set_ylabel(f"test {kind}")
    left.set_title(f"test {kind} against time (dashed: the target, {target:g})")
    right.set_xlabel("simulated wall-clock time (s)")
    right.set_ylabel("training loss (workers' mini-batches)")
    style.log10_axis(right, [v for _, c in drawn for v in c["losses"] if not math.isnan(v)])
    right.set_title(f"training loss against time (faint: per iteration; line: mean of "
                    f"{style.SMOOTHING_WINDOW})")
    left.legend(handles=handles + outcomes.handles(), loc="lower right")
    return figure


def draw_variance(drawn, looks):
    figure, ax = plt.subplots(figsize=(7.0, 4.0))
    handles = []
    outcomes = style.Outcomes()
    for label, c in drawn:
        if any(v > 0 for v in c["variances"]):  # synchronous SGD keeps the copies identical
            handles.append(style.smoothed(ax, c["iterations"], c["variances"], looks[label],
                                          label))
            mark(outcomes, ax, looks[label], c, c["iterations"],
                 style.moving_average(c["variances"]), c["iterations"])
    if handles:
        style.log10_axis(ax, [v for _, c in drawn for v in c["variances"]
                              if not math.isnan(v)])
        ax.legend(handles=handles + outcomes.handles(), loc="upper right")
    ax.set_xlabel("iteration")
    ax.set_ylabel("variance of the parameters across workers")
    ax.set_title("what local SGD lets drift apart between averaging rounds\n(faint: per "
                 f"iteration; line: mean of {style.SMOOTHING_WINDOW} iterations)")
    return figure


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    stem, extension = os.path.splitext(args.output)
    variance_path = f"{stem}_variance{extension}"
    check_outputs([args.output, variance_path], [args.input])
    kind, target, series, title = series_from(args.input)
    style.apply()
    drawn = merged(series)
    looks = style.looks("configuration", [label for label, _ in drawn])
    figure = draw_curves(kind, target, drawn, looks)
    figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    variance_figure = draw_variance(drawn, looks)
    variance_figure.suptitle(title, fontsize=8)
    variance_figure.tight_layout()
    save([(figure, args.output), (variance_figure, variance_path)])


if __name__ == "__main__":
    run(main)
