"""The biased-compression paper's comparison (Beznosikov, Horvath, Richtarik, Safaryan 2020), rerun
on the convergence engine: top-k, rand-k, natural compression, natural and standard dithering,
scaled sign and top-k + natural dithering, each with and without error feedback, at matched bits
per iteration where the compressor allows it (scenario_16gpus.json says how); test loss against
bits communicated and against simulated wall-clock time at 16 and 256 GPUs; and whether top-k +
natural dithering comes first, as the paper reports. Usage: study.py SGDSIM OUT (tools/study.sh
biased_compression runs it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from study_common import Study, configurations, plt, style  # noqa: E402

SCENARIOS = "studies/biased_compression"
CLUSTERS = (16, 256)
PROPOSED = "topk_natural_dithering"


def compressor_of(label):
    """The compressor label inside a configuration label ("SGD + topk(...) (EF)" -> "topk(...)")."""
    if label == "SGD":
        return "none"
    return label.removeprefix("SGD + ").removesuffix(" (EF)")


def fastest_iteration_us(result):
    """Each compressor's iteration time with its fastest merge policy."""
    fastest = {}
    for policy in result["policies"]:
        name = policy["compression"]
        fastest[name] = min(fastest.get(name, policy["iteration_us"]), policy["iteration_us"])
    return fastest


def rank(values, label):
    """1-based place of `label` among the configurations that reached the target (smaller first)."""
    ordered = sorted((v, k) for k, v in values.items() if v is not None)
    return next((i + 1 for i, (_, k) in enumerate(ordered) if k == label), None), len(ordered)


def main():
    study = Study("biased_compression", sys.argv)
    trained = study.run_json(f"{SCENARIOS}/scenario_16gpus.json", "result_16gpus")
    # sgdsim times the trained curves at 16 GPUs itself (each point's time_us); at 256 GPUs the
    # same iterations take the 256-GPU run's iteration time of the compressor's fastest policy.
    cluster_256 = study.run_json(f"{SCENARIOS}/scenario_256gpus.json", "result_256gpus")
    at_256 = fastest_iteration_us(cluster_256)
    found = configurations(trained)
    target = trained["convergence"]["target_value"]
    study.say(f"time and bits to {target:.0%} test accuracy (16 workers x 32, 600 iterations; "
              "iterations timed at each cluster's iteration time)")
    study.say(f"{'configuration':<58} {'iter':>5} {'Mbit':>7} {'16 GPUs s':>10} "
              f"{'256 GPUs s':>11} {'final acc':>9} {'final loss':>10}")
    rows, curve_rows = [], []
    bits_to_target, seconds_to_target = {}, {n: {} for n in CLUSTERS}
    for label, c in found.items():
        compressor = compressor_of(label)
        reached = c["iterations_to_target"]
        point = next((p for p in c["curve"] if p["iteration"] == reached), None)
        bits_to_target[label] = point["bits_sent"] / 1e6 if point else None
        seconds_to_target[16][label] = c["time_to_target_us"] / 1e6 if point else None
        seconds_to_target[256][label] = reached * at_256[compressor] / 1e6 if point else None
        cells = ("not reached", "", "", "") if point is None else (
            f"{reached}", f"{bits_to_target[label]:.2f}", f"{seconds_to_target[16][label]:.2f}",
            f"{seconds_to_target[256][label]:.2f}")
        study.say(f"{label:<58} {cells[0]:>5} {cells[1]:>7} {cells[2]:>10} {cells[3]:>11} "
                  f"{c['final_test_accuracy']:>9.4f} {c['final_test_loss']:>10.4f}")
        rows.append([label, compressor, label.endswith("(EF)"), reached or "", *cells[1:],
                     c["final_test_accuracy"], c["final_test_loss"],
                     c["measured_delta"] or "", c["measured_omega"] or ""])
        for p in c["curve"]:
            if "test_loss" in p:
                curve_rows.append([label, p["iteration"], f"{p['bits_sent']:.0f}",
                                   f"{p['time_us'] / 1e6:.6f}",
                                   f"{p['iteration'] * at_256[compressor] / 1e6:.6f}",
                                   p["test_loss"], p["test_accuracy"]])
    study.say()
    for name, values in [("bits", bits_to_target)] + [
            (f"time at {n} GPUs", seconds_to_target[n]) for n in CLUSTERS]:
        best = min((v, k) for k, v in values.items() if v is not None)
        places = [f"{k.removeprefix('SGD + ')} {rank(values, k)[0]}"
                  for k in values if PROPOSED in k and values[k] is not None]
        study.say(f"first by {name}: {best[1]} ({best[0]:.2f}); top-k + natural dithering: "
                  + (", ".join(places) if places else "did not reach the target")
                  + f" of {rank(values, best[1])[1]}")
    study.write_csv("biased_compression_study.csv",
                    ["configuration", "compressor", "error_feedback", "iterations_to_target",
                     "mbit_per_worker_to_target", "seconds_to_target_16gpus",
                     "seconds_to_target_256gpus", "final_test_accuracy", "final_test_loss",
                     "measured_delta", "measured_omega"], rows)
    study.write_csv("biased_compression_curves.csv",
                    ["configuration", "iteration", "bits_sent_per_worker", "time_s_16gpus",
                     "time_s_256gpus", "test_loss", "test_accuracy"], curve_rows)
    figures(study, trained, cluster_256, at_256)
    study.finish()


def figures(study, trained, cluster_256, at_256):
    """Test loss against bits and against time at 16 and 256 GPUs, on one loss range: one colour
    and marker per compressor, solid with error feedback (and SGD), dashed without; runs with
    equal curves drawn once; a star where a run first met the target, a cross at the end of a run
    that never did (every run trains its 600 iterations), on the top edge for a run that ends
    above the loss range (it diverged)."""
    top = 1.0
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    found = configurations(trained)
    series = style.deduplicate([(label.removeprefix("SGD + "), json.dumps(c["curve"]))
                                for label, c in found.items()])
    looks = style.looks("compressor", [label.split(" = ")[0] for label, _ in series])
    outcomes = style.Outcomes()
    for label, _ in series:
        first = label.split(" = ")[0]
        c = found[first if first == "SGD" else f"SGD + {first}"]
        compressor = compressor_of(first if first == "SGD" else f"SGD + {first}")
        look = looks[first]
        if first != "SGD" and not first.endswith("(EF)"):
            look = look._replace(linestyle="--")
        evaluated = [p for p in c["curve"] if "test_loss" in p]
        losses = [p["test_loss"] for p in evaluated]
        reached = c["iterations_to_target"]
        if losses[-1] > top:
            label += f" (ends above {top:g}: diverged)"
        for axis, x in zip(axes, ([p["bits_sent"] / 1e6 for p in evaluated],
                                  [p["time_us"] / 1e6 for p in evaluated],
                                  [p["iteration"] * at_256[compressor] / 1e6 for p in evaluated])):
            style.plot(axis, x, losses, look, label if axis is axes[0] else None,
                       markevery=style.sparse_markers(len(x), 6))
            target = next(((x_, y) for x_, y, p in zip(x, losses, evaluated)
                           if reached is not None and p["iteration"] >= reached), None)
            if target is None:
                outcomes.mark(axis, look, (x[-1], min(losses[-1], top)), None)
            else:
                outcomes.draw(axis, look, target, "target")
    axes[0].set_xlabel("Mbit sent per worker")
    axes[0].set_title("test loss against bits sent")
    for axis, (n, result) in zip(axes[1:], zip(CLUSTERS, (trained, cluster_256))):
        axis.set_xlabel(f"simulated wall-clock time at {n} GPUs (s)")
        axis.set_title(style.setup_title(result))
    for axis in axes:
        style.log10_axis(axis, [v for line in axis.get_lines() for v in line.get_xdata()], "x")
    axes[0].set_ylabel("test loss")
    axes[0].set_ylim(0.45, top)
    convergence = trained["convergence"]
    fig.suptitle(f"{convergence['task']}, {convergence['workers']} workers x batch "
                 f"{convergence['batch']}, 600 iterations; target: "
                 f"{convergence['target_value']:.0%} test accuracy", fontsize=9)
    fig.tight_layout()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles + outcomes.handles(), labels + [h.get_label() for h in outcomes.handles()],
               loc="upper center", ncol=4, bbox_to_anchor=(0.5, 0.0),
               title="solid: with error feedback (and SGD); dashed: without")
    study.save(fig, "biased_compression_loss.png")


if __name__ == "__main__":
    main()
