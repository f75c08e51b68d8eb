"""The ADPSGD paper's comparison (Jiang and Agrawal 2020), rerun on the convergence engine: CPSGD
against ADPSGD-style schedules at an equal budget of averaging rounds, 16 workers, at 10 and
100 Gbps; loss and test accuracy against simulated wall-clock time, the parameters' variance, and
the speedup to the target against full-communication SGD, set beside the paper's stated ranges.
Usage: study.py SGDSIM OUT (tools/study.sh adpsgd runs it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from study_common import ROOT, Study, configurations, plt, style  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BANDWIDTHS = (10, 100)
# The paper's speedups over full-communication SGD (arXiv 2007.06134, abstract).
PAPER = {10: (1.46, 1.95), 100: (1.14, 1.27)}
SGD = "SGD"


def run_at(study, scenario, gbps):
    """The scenario at `gbps`, written into OUT (trace path made absolute) and run."""
    path = study.write_scenario(
        f"scenario_{gbps}gbps.json", scenario, name=f"adpsgd_study_{gbps}gbps",
        trace=os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json"),
        network=dict(scenario["network"], bandwidth_gbps=gbps))
    return study.run_json(path, f"result_{gbps}gbps")


def no_overlap_iteration_us(result):
    """Full-communication SGD timed with one allreduce after backward (SyncEASGD, policy all):
    the baseline that overlaps nothing, as a framework without WFBP would run it."""
    for policy in result["policies"]:
        if policy["policy"] == "all" and policy["compression"] == "none":
            return policy["iteration_us"]
    raise KeyError("policy all")


def table(study, gbps, result):
    """Per configuration: iterations, time and bits to target, speedups; the CSV rows."""
    found = configurations(result)
    sgd = found[SGD]
    no_overlap_s = sgd["iterations_to_target"] * no_overlap_iteration_us(result) / 1e6
    study.say(f"{gbps} Gbps: time to {result['convergence']['target_value']:.0%} test accuracy "
              f"(speedup over SGD with the best merge policy / over SGD without overlap, "
              f"{no_overlap_s:.1f} s)")
    rows = []
    for label, c in found.items():
        if label == "every_iteration":
            continue  # the same run as SGD
        reached = c["iterations_to_target"] is not None
        seconds = c["time_to_target_us"] / 1e6 if reached else None
        point = next(p for p in c["curve"] if p["iteration"] == c["iterations_to_target"]) \
            if reached else None
        bits = point["bits_sent"] / 1e6 if reached else None
        speedup = sgd["time_to_target_us"] / c["time_to_target_us"] if reached else None
        speedup_no_overlap = no_overlap_s / seconds if reached else None
        study.say(f"  {label:<46} " + (
            f"{c['iterations_to_target']:>4} it {seconds:7.2f} s {speedup:5.2f}x "
            f"{speedup_no_overlap:5.2f}x {bits:8.2f} Mbit/worker {c['averaging_rounds']:>4} rounds"
            if reached else "target not reached"))
        rows.append([gbps, label, c["iterations_to_target"] or "",
                     f"{seconds:.6f}" if reached else "", f"{speedup:.4f}" if reached else "",
                     f"{speedup_no_overlap:.4f}" if reached else "",
                     f"{bits:.4f}" if reached else "", c["averaging_rounds"]])
    low, high = PAPER[gbps]
    study.say(f"  paper (ADPSGD over full-communication SGD, its models and cluster): "
              f"{low:.2f}-{high:.2f}x")
    return rows


def curves(results):
    rows = []
    for gbps, result in results:
        for label, c in configurations(result).items():
            for p in c["curve"]:
                rows.append([gbps, label, p["iteration"], f"{p['time_us'] / 1e6:.6f}",
                             f"{p['loss']:.6f}", f"{p['variance']:.6e}",
                             p.get("test_accuracy", ""), f"{p['bits_sent']:.0f}"])
    return rows


def drawn(result):
    """The configurations to draw, [(label, configuration)]: SGD and every_iteration are the
    same run (full communication every iteration), drawn once as "SGD = every_iteration"."""
    found = configurations(result)
    return [(label, found[label.split(" = ")[0]]) for label, _ in style.deduplicate(
        [(label, json.dumps(c["curve"])) for label, c in found.items()])]


def outcome(outcomes, axis, look, c, points, y):
    """Marks on a curve of the run's points: its first point at the target and its end."""
    reached = c["iterations_to_target"]
    target = next(((p["time_us"] / 1e6, v) for p, v in zip(points, y)
                   if reached is not None and p["iteration"] >= reached), None)
    outcomes.mark(axis, look, (points[-1]["time_us"] / 1e6, y[-1]), target)


def figures(study, results):
    fig, axes = plt.subplots(2, len(results), figsize=(5.4 * len(results), 7.0), squeeze=False,
                             sharey="row")
    outcomes = style.Outcomes()
    for column, (gbps, result) in enumerate(results):
        series = drawn(result)
        looks = style.looks("configuration", [label for label, _ in series])
        for label, c in series:
            look = looks[label]
            evaluated = [p for p in c["curve"] if "test_accuracy" in p]
            accuracy = [p["test_accuracy"] for p in evaluated]
            style.plot(axes[0][column], [p["time_us"] / 1e6 for p in evaluated], accuracy, look,
                       label, markevery=style.sparse_markers(len(evaluated), 8))
            outcome(outcomes, axes[0][column], look, c, evaluated, accuracy)
            # Training loss: the workers' mean mini-batch loss, faint per iteration and as a
            # moving average (one mini-batch is too noisy to read).
            times = [p["time_us"] / 1e6 for p in c["curve"]]
            losses = [p["loss"] for p in c["curve"]]
            style.smoothed(axes[1][column], times, losses, look)
            outcome(outcomes, axes[1][column], look, c, c["curve"], style.moving_average(losses))
        target = result["convergence"]["target_value"]
        axes[0][column].axhline(target, **style.IDEAL)
        axes[0][column].set_ylim(0.6, 0.84)
        axes[0][column].set_title(style.setup_title(result))
        axes[1][column].set_xlabel("simulated wall-clock time (s)")
    axes[0][0].set_ylabel(f"test accuracy (dashed: the target, {target:g})")
    axes[1][0].set_ylabel(f"training loss (line: mean of {style.SMOOTHING_WINDOW} iterations)")
    axes[1][0].set_ylim(0.4, 1.8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles + outcomes.handles(), labels + [h.get_label() for h in outcomes.handles()],
               loc="upper center", ncol=3, bbox_to_anchor=(0.5, 0.0))
    convergence = results[0][1]["convergence"]
    fig.suptitle(f"CPSGD and ADPSGD-style schedules against SGD at an equal budget of averaging "
                 f"rounds: {convergence['task']}, {convergence['workers']} workers x batch "
                 f"{convergence['batch']}", fontsize=9)
    fig.tight_layout()
    variance_fig, variance_axis = plt.subplots(figsize=(6.4, 3.8))
    gbps, first = results[0]
    outcomes = style.Outcomes()
    series = drawn(first)
    looks = style.looks("configuration", [label for label, _ in series])
    for label, c in series:
        if c["averaging_rounds"] > 0:
            variances = [p["variance"] for p in c["curve"]]
            style.smoothed(variance_axis, [p["time_us"] / 1e6 for p in c["curve"]], variances,
                           looks[label], label)
            outcome(outcomes, variance_axis, looks[label], c, c["curve"],
                    style.moving_average(variances))
    style.log10_axis(variance_axis, [p["variance"] for c in configurations(first).values()
                                     for p in c["curve"] if p["variance"] > 0])
    variance_axis.set_xlabel("simulated wall-clock time (s)")
    variance_axis.set_ylabel("parameter variance across workers")
    variance_axis.set_title(f"{style.setup_title(first)}\n(faint: per iteration; line: mean of "
                            f"{style.SMOOTHING_WINDOW} iterations)", fontsize=8)
    handles, labels = variance_axis.get_legend_handles_labels()
    variance_axis.legend(handles + outcomes.handles(),
                         labels + [h.get_label() for h in outcomes.handles()],
                         loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    study.save(fig, "adpsgd_accuracy_loss.png")
    study.save(variance_fig, "adpsgd_variance.png")


def main():
    study = Study("adpsgd", sys.argv)
    with open(os.path.join(HERE, "scenario.json"), encoding="utf-8") as source:
        scenario = json.load(source)
    results = [(gbps, run_at(study, scenario, gbps)) for gbps in BANDWIDTHS]
    rows = []
    for gbps, result in results:
        rows += table(study, gbps, result)
        study.say()
    study.write_csv("adpsgd_study.csv",
                    ["bandwidth_gbps", "configuration", "iterations_to_target",
                     "time_to_target_s", "speedup_over_sgd", "speedup_over_sgd_no_overlap",
                     "mbit_per_worker_to_target", "averaging_rounds"], rows)
    study.write_csv("adpsgd_curves.csv",
                    ["bandwidth_gbps", "configuration", "iteration", "time_s", "train_loss",
                     "variance", "test_accuracy", "bits_sent_per_worker"], curves(results))
    figures(study, results)
    study.finish()


if __name__ == "__main__":
    main()
