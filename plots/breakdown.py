#!/usr/bin/env python3
"""Iteration breakdown bars from an `sgdsim run --json` result: per policy, compute that hides
no communication, compute overlapped with communication, and exposed communication (the three
add up to the iteration time). When the scenario compares averaging schedules, a second panel
shows each schedule's mean time per iteration split into compute and averaging.

Usage: breakdown.py RESULT.json -o OUT.png"""
from common import MAX_GPUS, ArgumentParser, check_outputs, plt, read_json, run, save, style


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_outputs([args.output], [args.result])
    result = read_json(args.result, "sgdsim-result")
    policies = result.records("policies")
    title = (f"{result.text('model')} on {result.integer('gpus', 1, MAX_GPUS)} GPUs, "
             f"{result.number('bandwidth_gbps'):g} Gbps {result.text('collective')}")
    labels = [p.text("label") for p in policies]
    overlapped = [p.number("overlapped_communication_us") / 1e3 for p in policies]
    alone = [p.number("compute_us") / 1e3 - o for p, o in zip(policies, overlapped)]
    exposed = [p.number("exposed_communication_us") / 1e3 for p in policies]
    averaging = result.record("averaging") if result.has("averaging") else None
    style()
    panels = 2 if averaging else 1
    figure, axes = plt.subplots(1, panels, squeeze=False,
                                figsize=(max(5.0, 0.9 * len(policies) + 2.0) + 6.0 * (panels - 1), 4.4))
    ax = axes[0][0]
    x = range(len(policies))
    ax.bar(x, alone, color="#4c72b0", label="compute only")
    ax.bar(x, overlapped, bottom=alone, color="#8fb0d9", hatch="//", edgecolor="white",
           label="compute overlapped with communication")
    ax.bar(x, exposed, bottom=[a + o for a, o in zip(alone, overlapped)], color="#dd8452",
           label="exposed communication")
    ax.set_xticks(list(x), labels, rotation=30, ha="right")
    ax.set_ylabel("time per iteration (ms)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.35), frameon=False)
    if averaging:
        draw_averaging(axes[0][1], averaging, policies[0].number("compute_us") / 1e3)
    figure.tight_layout()
    save([(figure, args.output)])


def draw_averaging(ax, averaging, full_sgd_compute_ms):
    schedules = averaging.records("schedules")
    run_iterations = averaging.integer("run_iterations", 1, 1 << 31)
    mean = [s.number("total_us") / run_iterations / 1e3 for s in schedules]
    compute = [s.number("local_iteration_us") / 1e3 if s.text("schedule") != "every_iteration"
               else full_sgd_compute_ms for s in schedules]
    communication = [m - c for m, c in zip(mean, compute)]
    y = list(range(len(schedules)))[::-1]
    ax.barh(y, compute, color="#4c72b0", label="compute")
    ax.barh(y, communication, left=compute, color="#c44e52", label="communication / averaging")
    ax.set_yticks(y, [f"{s.text('schedule')}\n{s.number('speedup_vs_full_sgd'):.2f}x"
                      for s in schedules], fontsize=7)
    ax.set_xlabel("mean time per iteration (ms)")
    ax.set_title(f"averaging schedules over {run_iterations} iterations", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.35), frameon=False)


if __name__ == "__main__":
    run(main)
