"""The biased-compression paper's comparison (Beznosikov, Horvath, Richtarik, Safaryan 2020,
arXiv 2002.12410), rerun on a deep network: LeNet-5 trained for real on Fashion-MNIST, three
seeds, top-k, rand-k, natural compression, natural and standard dithering, scaled sign and top-k +
natural dithering, each with and without error feedback, at matched bits per coordinate of the
timed model (scenario.json says how). Each compressor's class in the paper's terms with its
contraction measured on the network's gradients; bits and seconds to the target at the timed
model's scale (ResNet-50, an H100 capture, at 16 and 256 GPUs); each claim with its verdict.
Usage: study.py SGDSIM OUT (tools/study.sh biased_compression runs it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from study_common import (ROOT, Study, better_verdict, comparison,  # noqa: E402
                          compressor_of, configurations, fastest_iteration_us, interval,
                          interval_figure, interval_text, plt, quick, retimed_seconds,
                          seed_seconds, style, verdict)

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTERS = (16, 256)
PROPOSED = "topk_natural_dithering"
# The paper's classes (section 2): B3(delta), E||C(x) - x||^2 <= (1 - 1/delta)||x||^2, for the
# biased compressors it studies; U(omega), E C(x) = x and E||C(x)||^2 <= (omega + 1)||x||^2, for
# the unbiased ones.
CLASSES = {"topk": "B3(delta = d/k)", "randk": "U(omega = d/k - 1)", "natural": "U(omega = 1/8)",
           "natural_dithering": "U(omega)", "standard_dithering": "U(omega)",
           "sign": "B3(delta = d ||x||^2 / ||x||_1^2)", PROPOSED: "B3(delta)"}


def scenario_of():
    """The study's scenario, at its test size under SGDSIM_STUDY_QUICK=1 (2 seeds, 40
    iterations: every compressor and code path in a fraction of the time)."""
    with open(os.path.join(HERE, "scenario.json"), encoding="utf-8") as source:
        scenario = json.load(source)
    if quick():
        scenario["convergence"].update(seeds=2, max_iterations=40, evaluate_every=4,
                                       target={"accuracy": 0.15})
    return scenario


def proxy_table(study, result):
    """Per configuration: the compressor's class, its factor measured on the proxy's gradients
    against the bound at the proxy's d, iterations to target and final accuracy (the proxy)."""
    convergence = result["convergence"]
    found = configurations(result)
    study.say(f"proxy task: {convergence['task']} ({convergence['proxy_parameters']:,} parameters)"
              f", {convergence['workers']} workers x batch {convergence['batch']}, "
              f"{len(found['SGD']['seeds'])} seeds; target {convergence['target_value']:.0%} test "
              "accuracy; factors measured on its gradients (bound at its d)")
    study.say(f"  {'configuration':<62} {'class':<34} {'measured (bound)':>20} "
              f"{'iterations to target':>21} {'final accuracy':>26}")
    proxy = {}
    for label, c in found.items():
        name = compressor_of(label).split("(")[0]
        factor = ""
        if c["bound_delta"] is not None and c["measured_delta"] is not None:
            factor = f"delta {c['measured_delta']:.3g} ({c['bound_delta']:.3g})"
        elif c["bound_omega"] is not None and c["measured_omega"] is not None:
            factor = f"omega {c['measured_omega']:.3g} ({c['bound_omega']:.3g})"
        iterations = interval([s["iterations_to_target"] for s in c["seeds"]])
        accuracy = interval([s["final_test_accuracy"] for s in c["seeds"]])
        reached = sum(s["iterations_to_target"] is not None for s in c["seeds"])
        iterations_text = interval_text(iterations, 0) if iterations else \
            f"{reached} of {len(c['seeds'])} seeds"
        study.say(f"  {label:<62} {CLASSES.get(name, '-'):<34} {factor:>20} "
                  f"{iterations_text:>21} {interval_text(accuracy, 4):>26}")
        proxy[label] = (iterations, accuracy, factor)
    return proxy


def timed_table(study, result, seconds):
    """Per configuration: the compressed message's bits (the paper's measure) and the bits one GPU
    sends in the collective (gathered messages go to N - 1 peers), per iteration and to the
    target, and seconds to the target at each cluster (the timed model)."""
    found = configurations(result)
    study.say(f"timed model: ResNet-50 (H100 capture), d = "
              f"{result['convergence']['timed_gradient_elements']:,}; message: the compressed "
              "gradient (the paper's bits); sent: what one GPU sends in the 16-GPU collective")
    study.say(f"  {'configuration':<62} {'message Mbit/it':>15} {'message Gbit to target':>24} "
              f"{'sent Gbit to target':>22} "
              + " ".join(f"{f'seconds at {n} GPUs':>24}" for n in CLUSTERS))
    timed = {}
    for label, c in found.items():
        message = interval([None if s["iterations_to_target"] is None else
                            s["iterations_to_target"] * c["message_bits_per_iteration"]
                            for s in c["seeds"]])
        sent = interval([s["bits_to_target"] for s in c["seeds"]])
        times = {n: interval(seconds[n][label]) for n in CLUSTERS}
        study.say(f"  {label:<62} {c['message_bits_per_iteration'] / 1e6:>15.2f} "
                  f"{interval_text(message, 2, 1e-9):>24} {interval_text(sent, 1, 1e-9):>22} "
                  + " ".join(f"{interval_text(times[n]):>24}" for n in CLUSTERS))
        timed[label] = (message, times, sent)
    return timed


def first_place(values):
    """The labels sharing first place (lowest mean; every interval that overlaps the leader's)."""
    reached = {k: v for k, v in values.items() if v is not None}
    if not reached:
        return []
    leader = min(reached, key=lambda k: reached[k][0])
    return [leader] + [k for k in reached
                       if k != leader and comparison(reached[leader], reached[k]) == "tie"]


def claims(study, proxy, timed):
    study.say()
    study.say("the paper's claims")
    rows = []
    for name in ("topk", "sign", PROPOSED):
        with_ef = next(k for k in proxy
                       if k.endswith("(EF)") and compressor_of(k).split("(")[0] == name)
        without = with_ef.removesuffix(" (EF)")
        rows.append(verdict(
            study, f"error feedback improves the biased {name} (final accuracy)",
            better_verdict(proxy[without][1], proxy[with_ef][1]),
            f"{interval_text(proxy[with_ef][1], 4)} with, "
            f"{interval_text(proxy[without][1], 4)} without"))
    bits = {k: timed[k][0] for k in timed}
    leaders = first_place(bits)
    proposed = [k for k in bits if PROPOSED in k]
    if not leaders:
        outcome = "not testable"
    elif PROPOSED in leaders[0]:
        outcome = "reproduced" if len(leaders) == 1 else "partly"
    else:
        outcome = "tie" if any(PROPOSED in k for k in leaders) else "contradicted"
    rows.append(verdict(
        study, "top-k + natural dithering needs the fewest bits to the target (message bits)",
        outcome, "first by bits: "
        + (", ".join(f"{k.removeprefix('SGD + ')} {interval_text(bits[k], 2, 1e-9)} Gbit"
                     for k in leaders) or "none")
        + "; top-k + natural dithering: "
        + ", ".join(f"{interval_text(bits[k], 2, 1e-9)}" for k in proposed)))
    topk = next(k for k in proxy if "topk(" in k and k.endswith("(EF)"))
    randk = next(k for k in proxy if "randk(" in k and not k.endswith("(EF)"))
    rows.append(verdict(
        study, "biased top-k (with error feedback) needs fewer iterations than unbiased rand-k "
        "at the same bits", better_verdict(proxy[topk][0], proxy[randk][0]),
        f"{interval_text(proxy[topk][0], 0)} against {interval_text(proxy[randk][0], 0)}"))
    return rows


def figures(study, result, retimed_256):
    """Test loss against message bits (at the timed model's d), against time at 16 GPUs and at
    256 GPUs: one colour and marker per compressor, solid with error feedback (and SGD), dashed
    without; runs with equal curves drawn once; a star where the first seed met the target."""
    top = 2.4  # above the untrained network's ln 10 = 2.30
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    found = configurations(result)
    series = style.deduplicate([(label.removeprefix("SGD + "), json.dumps(c["curve"]))
                                for label, c in found.items()])
    looks = style.looks("compressor", [label.split(" = ")[0] for label, _ in series])
    outcomes = style.Outcomes()
    for label, _ in series:
        first = label.split(" = ")[0]
        c = found[first if first == "SGD" else f"SGD + {first}"]
        look = looks[first]
        if first != "SGD" and not first.endswith("(EF)"):
            look = look._replace(linestyle="--")
        evaluated = [p for p in c["curve"] if "test_loss" in p]
        # A run that diverged has no finite loss (null in the JSON): drawn on the top edge.
        losses = [top if p["test_loss"] is None else min(p["test_loss"], top)
                  for p in evaluated]
        reached = c["iterations_to_target"]
        if losses[-1] >= top:
            label += f" (ends above {top:g})"
        per_iteration = retimed_256[compressor_of(c["label"])]
        message_bits = c["message_bits_per_iteration"]
        for axis, x in zip(axes, ([p["iteration"] * message_bits / 1e9 for p in evaluated],
                                  [p["time_us"] / 1e6 for p in evaluated],
                                  [p["iteration"] * per_iteration for p in evaluated])):
            style.plot(axis, x, losses, look, label if axis is axes[0] else None,
                       markevery=style.sparse_markers(len(x), 6))
            target = next(((x_, y) for x_, y, p in zip(x, losses, evaluated)
                           if reached is not None and p["iteration"] >= reached), None)
            if target is None:
                outcomes.mark(axis, look, (x[-1], losses[-1]), None)
            else:
                outcomes.draw(axis, look, target, "target")
    axes[0].set_xlabel("Gbit of compressed messages per worker (the timed model's d)")
    axes[0].set_title("test loss against bits communicated")
    for axis, n in zip(axes[1:], CLUSTERS):
        axis.set_xlabel(f"simulated wall-clock time at {n} GPUs (s)")
        axis.set_title(f"ResNet-50 (H100) on {n} GPUs, 10 Gbps")
    for axis in axes:
        style.log10_axis(axis, [v for line in axis.get_lines() for v in line.get_xdata()], "x")
    axes[0].set_ylabel("test loss (proxy task, first seed)")
    axes[0].set_ylim(0.3, top)
    convergence = result["convergence"]
    fig.suptitle(f"{convergence['task']}, {convergence['workers']} workers x batch "
                 f"{convergence['batch']}; target: {convergence['target_value']:.0%} test "
                 "accuracy", fontsize=9)
    fig.tight_layout()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles + outcomes.handles(), labels + [h.get_label() for h in outcomes.handles()],
               loc="upper center", ncol=4, bbox_to_anchor=(0.5, 0.0),
               title="solid: with error feedback (and SGD); dashed: without")
    study.save(fig, "biased_compression_loss.png")
    return looks


def main():
    study = Study("biased_compression", sys.argv)
    scenario = scenario_of()
    trace = os.path.join(ROOT, "traces", "resnet50_b32_h100_fp32.json")
    trained = study.run_json(study.write_scenario(
        "scenario_16gpus.json", scenario, name="biased_compression_16gpus", trace=trace),
        "result_16gpus")
    # The same runs on 256 GPUs (64 nodes of 4): training does not depend on the cluster, so
    # that scenario is timed only and the seeds' iterations to target timed again with it.
    timing = study.run_json(study.write_scenario(
        "scenario_256gpus.json", {k: v for k, v in scenario.items() if k != "convergence"},
        name="biased_compression_256gpus", trace=trace,
        cluster={"gpus": 256, "gpus_per_node": 4}), "result_256gpus")
    seconds = {16: seed_seconds(trained), 256: retimed_seconds(trained, timing)}
    proxy = proxy_table(study, trained)
    study.say()
    timed = timed_table(study, trained, seconds)
    verdicts = claims(study, proxy, timed)
    rows = []
    for label, c in configurations(trained).items():
        bits, times, sent = timed[label]
        rows.append([label, compressor_of(label), label.endswith("(EF)"),
                     f"{proxy[label][0][0]:.1f}" if proxy[label][0] else "",
                     f"{proxy[label][1][0]:.4f}", c["measured_delta"] or "",
                     c["measured_omega"] or "", f"{c['message_bits_per_iteration']:.0f}",
                     f"{bits[0]:.0f}" if bits else "", f"{c['bits_per_iteration']:.0f}",
                     f"{sent[0]:.0f}" if sent else ""]
                    + [f"{times[n][0]:.4f}" if times[n] else "" for n in CLUSTERS])
    study.write_csv("biased_compression_study.csv",
                    ["configuration", "compressor", "error_feedback", "iterations_to_target",
                     "final_test_accuracy", "measured_delta", "measured_omega",
                     "message_bits_per_iteration", "message_bits_to_target",
                     "bits_sent_per_gpu_per_iteration", "bits_sent_per_gpu_to_target",
                     "seconds_to_target_16gpus", "seconds_to_target_256gpus"], rows)
    study.write_csv("biased_compression_claims.csv", ["claim", "verdict", "evidence"], verdicts)
    # Seconds per iteration at 256 GPUs, each compressor at its fastest policy.
    fastest_256 = {name: us / 1e6 for name, us in fastest_iteration_us(timing).items()}
    curve_rows = []
    for label, c in configurations(trained).items():
        for p in c["curve"]:
            if "test_loss" in p:
                curve_rows.append([label, p["iteration"], f"{p['bits_sent']:.0f}",
                                   f"{p['time_us'] / 1e6:.6f}",
                                   f"{p['iteration'] * fastest_256[compressor_of(label)]:.6f}",
                                   p["test_loss"], p["test_accuracy"]])
    study.write_csv("biased_compression_curves.csv",
                    ["configuration", "iteration", "bits_sent_per_gpu_timed_model",
                     "time_s_16gpus", "time_s_256gpus", "test_loss", "test_accuracy"],
                    curve_rows)
    looks = figures(study, trained, fastest_256)
    names = [label.removeprefix("SGD + ") for label in configurations(trained)]
    looks = {name: looks.get(name.split(" = ")[0], style.look("compressor", "none"))
             for name in names}
    study.save(interval_figure(
        [(f"seconds to the target at {n} GPUs (mean, 95% interval)",
          {label.removeprefix("SGD + "): timed[label][1][n] for label in timed})
         for n in CLUSTERS], names, looks,
        "timed model: ResNet-50 (H100 capture) over 10 Gbps"), "biased_compression_time.png")
    study.finish()


if __name__ == "__main__":
    main()
