"""The ADPSGD paper's comparison (Jiang and Agrawal 2020), rerun on the convergence engine: CPSGD
against ADPSGD-style schedules at an equal budget of averaging rounds, 16 workers, at 10 and
100 Gbps; loss and test accuracy against simulated wall-clock time, the parameters' variance, and
the speedup to the target against full-communication SGD, set beside the paper's stated ranges.
Usage: study.py SGDSIM OUT (tools/study.sh adpsgd runs it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from study_common import ROOT, Study, configurations, plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BANDWIDTHS = (10, 100)
# The paper's speedups over full-communication SGD (arXiv 2007.06134, abstract).
PAPER = {10: (1.46, 1.95), 100: (1.14, 1.27)}
SGD = "SGD"
WINDOW = 20


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


def figures(study, results):
    shown = lambda label: label != "every_iteration"  # noqa: E731
    fig, axes = plt.subplots(2, len(results), figsize=(5.2 * len(results), 6.4), squeeze=False)
    for column, (gbps, result) in enumerate(results):
        for label, c in configurations(result).items():
            if not shown(label):
                continue
            evaluated = [p for p in c["curve"] if "test_accuracy" in p]
            axes[0][column].plot([p["time_us"] / 1e6 for p in evaluated],
                                 [p["test_accuracy"] for p in evaluated], label=label)
            # Training loss: the workers' mean mini-batch loss, averaged over each window of
            # WINDOW iterations (one mini-batch is too noisy to read).
            windows = [c["curve"][i:i + WINDOW] for i in range(0, len(c["curve"]), WINDOW)]
            axes[1][column].plot([w[-1]["time_us"] / 1e6 for w in windows],
                                 [sum(p["loss"] for p in w) / len(w) for w in windows],
                                 label=label)
        target = result["convergence"]["target_value"]
        axes[0][column].axhline(target, color="grey", linestyle=":", linewidth=1)
        axes[0][column].set_ylim(0.6, 0.84)
        axes[0][column].set_title(f"{gbps} Gbps")
        axes[0][column].set_ylabel("test accuracy")
        axes[1][column].set_ylabel(f"training loss (mean of {WINDOW} iterations)")
        axes[1][column].set_xlabel("simulated wall-clock time (s)")
    axes[0][0].legend(fontsize=7)
    variance_fig, variance_axis = plt.subplots(figsize=(6, 3.4))
    gbps, first = results[0]
    for label, c in configurations(first).items():
        if shown(label) and c["averaging_rounds"] > 0:
            variance_axis.plot([p["time_us"] / 1e6 for p in c["curve"]],
                               [p["variance"] for p in c["curve"]], label=label, linewidth=0.8)
    variance_axis.set_yscale("log")
    variance_axis.set_xlabel(f"simulated wall-clock time at {gbps} Gbps (s)")
    variance_axis.set_ylabel("parameter variance across workers")
    variance_axis.legend(fontsize=7)
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
