#!/usr/bin/env python3
"""Iteration breakdown bars from an `sgdsim run --json` result: per policy, compute that hides
no communication, compute overlapped with communication, and exposed communication (the three
add up to the iteration time). When the scenario compares averaging schedules, a second panel
shows each schedule's mean time per iteration split into compute and averaging.

Usage: breakdown.py RESULT.json -o OUT.png"""
import argparse

from common import plt, read_json, save, style


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    result = read_json(args.result, "sgdsim-result")
    style()
    policies = result["policies"]
    averaging = result.get("averaging") or {}
    panels = 2 if averaging else 1
    figure, axes = plt.subplots(1, panels, squeeze=False,
                                figsize=(max(5.0, 0.9 * len(policies) + 2.0) + 6.0 * (panels - 1), 4.4))
    ax = axes[0][0]
    labels = [p["label"] for p in policies]
    overlapped = [p["overlapped_communication_us"] / 1e3 for p in policies]
    alone = [p["compute_us"] / 1e3 - o for p, o in zip(policies, overlapped)]
    exposed = [p["exposed_communication_us"] / 1e3 for p in policies]
    x = range(len(policies))
    ax.bar(x, alone, color="#4c72b0", label="compute only")
    ax.bar(x, overlapped, bottom=alone, color="#8fb0d9", hatch="//", edgecolor="white",
           label="compute overlapped with communication")
    ax.bar(x, exposed, bottom=[a + o for a, o in zip(alone, overlapped)], color="#dd8452",
           label="exposed communication")
    ax.set_xticks(list(x), labels, rotation=30, ha="right")
    ax.set_ylabel("time per iteration (ms)")
    ax.set_title(f"{result['model']} on {result['gpus']} GPUs, {result['bandwidth_gbps']:g} Gbps "
                 f"{result['collective']}", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.35), frameon=False)
    if averaging:
        ax = axes[0][1]
        schedules = averaging["schedules"]
        run = averaging["run_iterations"]
        mean = [s["total_us"] / run / 1e3 for s in schedules]
        compute = [s["local_iteration_us"] / 1e3 if s["schedule"] != "every_iteration" else
                   policies[0]["compute_us"] / 1e3 for s in schedules]
        communication = [m - c for m, c in zip(mean, compute)]
        y = list(range(len(schedules)))[::-1]
        ax.barh(y, compute, color="#4c72b0", label="compute")
        ax.barh(y, communication, left=compute, color="#c44e52", label="communication / averaging")
        ax.set_yticks(y, [f"{s['schedule']}\n{s['speedup_vs_full_sgd']:.2f}x" for s in schedules],
                      fontsize=7)
        ax.set_xlabel("mean time per iteration (ms)")
        ax.set_title(f"averaging schedules over {run} iterations", fontsize=9)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.35), frameon=False)
    figure.tight_layout()
    save(figure, args.output)


if __name__ == "__main__":
    main()
