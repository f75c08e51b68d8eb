#!/usr/bin/env python3
"""Iteration breakdown bars from an `sgdsim run --json` result: per policy, compute that hides
no communication, compute overlapped with communication, and exposed communication (the three
add up to the iteration time); policies with the same three numbers share one bar. When the
scenario compares averaging schedules, a second panel shows each schedule's mean time per
iteration split into compute and averaging.

Usage: breakdown.py RESULT.json -o OUT.png"""
import style
from common import ArgumentParser, check_outputs, plt, read_json, run, save, setup_of


def bars(policies):
    """[(label, (compute alone, overlapped, exposed) in ms)], equal bars once ("A = B")."""
    parts = []
    for p in policies:
        overlapped = p.number("overlapped_communication_us") / 1e3
        parts.append((p.text("label"), (p.number("compute_us") / 1e3 - overlapped, overlapped,
                                         p.number("exposed_communication_us") / 1e3)))
    return style.deduplicate(parts)


def main():
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_outputs([args.output], [args.result])
    result = read_json(args.result, "sgdsim-result")
    policies = result.records("policies")
    title = style.setup_title(setup_of(result))
    drawn = bars(policies)
    averaging = result.record("averaging") if result.has("averaging") else None
    style.apply()
    panels = 2 if averaging else 1
    figure, axes = plt.subplots(1, panels, squeeze=False, figsize=(
        max(5.0, 0.9 * len(drawn) + 2.0) + 6.0 * (panels - 1), 4.4))
    ax = axes[0][0]
    x = range(len(drawn))
    alone = [a for _, (a, _, _) in drawn]
    overlapped = [o for _, (_, o, _) in drawn]
    exposed = [e for _, (_, _, e) in drawn]
    ax.bar(x, alone, color=style.COMPUTE, label="compute only")
    ax.bar(x, overlapped, bottom=alone, color=style.OVERLAPPED, hatch="//", edgecolor="white",
           label="compute overlapped with communication")
    ax.bar(x, exposed, bottom=[a + o for a, o in zip(alone, overlapped)], color=style.EXPOSED,
           label="exposed communication")
    ax.set_xticks(list(x), [label for label, _ in drawn], rotation=30, ha="right")
    ax.set_ylabel("time per iteration (ms)")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.35))
    if averaging:
        draw_averaging(axes[0][1], averaging, policies[0])
        high = max(ax.get_ylim()[1], axes[0][1].get_xlim()[1])  # both panels on one time range
        ax.set_ylim(0, high)
        axes[0][1].set_xlim(0, high)
    figure.tight_layout()
    save([(figure, args.output)])


def draw_averaging(ax, averaging, first_policy):
    """Each schedule's mean time per iteration: compute, then communication or averaging. Full
    SGD's compute is the first policy's (every policy computes the same layers)."""
    schedules = averaging.records("schedules")
    run_iterations = averaging.integer("run_iterations", 1, 1 << 31)
    mean = [s.number("total_us") / run_iterations / 1e3 for s in schedules]
    compute = [s.number("local_iteration_us") / 1e3 if s.text("schedule") != "every_iteration"
               else first_policy.number("compute_us") / 1e3 for s in schedules]
    communication = [m - c for m, c in zip(mean, compute)]
    y = list(range(len(schedules)))[::-1]
    ax.barh(y, compute, color=style.COMPUTE, label="compute")
    ax.barh(y, communication, left=compute, color=style.AVERAGING,
            label="communication / averaging")
    ax.set_yticks(y, [f"{s.text('schedule')}\n{s.number('speedup_vs_full_sgd'):.2f}x"
                      for s in schedules], fontsize=7)
    ax.set_xlabel("mean time per iteration (ms)")
    baseline = averaging.text("baseline") if averaging.has("baseline") else None
    ax.set_title(f"averaging schedules over {run_iterations} iterations" + (
        f", gradients merged as {style.POLICY_LABELS.get(baseline, baseline)}" if baseline else ""))
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.35))


if __name__ == "__main__":
    run(main)
