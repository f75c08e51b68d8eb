#!/usr/bin/env python3
"""Compares two traces of the same model layer by layer: a hook capture against a profiler import,
for example. Layers are matched as segments: each layer with gradients and the layers without
gradients after it (a profiler import puts an activation with the operator before it; a hook
capture lists it as a leaf module of its own), in forward order; the segments must hold the same
gradient elements.

  compare_traces.py HOOK_TRACE PROFILER_TRACE [--markdown]

Prints the forward, backward and total per trace, and per segment the ratio of the first trace's
forward + backward time to the second's: median and the 10th and 90th percentiles."""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from tool_io import ArgumentParser, fail, read_json, run  # noqa: E402


def layers_of(trace, path):
    """A trace's layers, checked enough to compare: a list of objects with times."""
    if not isinstance(trace, dict) or trace.get("format") != "sgdsim-trace":
        fail(f"{path}: not an sgdsim trace (no \"format\": \"sgdsim-trace\")")
    layers = trace.get("layers")
    if not isinstance(layers, list) or not all(isinstance(l, dict) for l in layers):
        fail(f"{path}: layers: expected an array of layers")
    return layers


def segments(trace):
    out = []
    for layer in trace["layers"]:
        elements = sorted(g["elements"] for g in layer.get("gradients", []))
        time = layer.get("forward_us", 0.0) + layer.get("backward_us", 0.0)
        if elements or not out:
            out.append([elements, time])
        else:
            out[-1][1] += time
    return out


def totals(trace):
    forward = sum(layer.get("forward_us", 0.0) for layer in trace["layers"])
    backward = sum(layer.get("backward_us", 0.0) for layer in trace["layers"])
    return forward / 1e3, backward / 1e3, (forward + backward + trace.get("optimizer_us", 0.0)) / 1e3


def compare(first_path, second_path):
    first, second = read_json(first_path, "trace"), read_json(second_path, "trace")
    layers_of(first, first_path)
    layers_of(second, second_path)
    left, right = segments(first), segments(second)
    ratios = []
    if len(left) == len(right) and all(x[0] == y[0] for x, y in zip(left, right)):
        ratios = sorted(x[1] / y[1] for x, y in zip(left, right) if y[1] > 0)
    return totals(first), totals(second), ratios, len(left), len(right)


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="a trace (e.g. a hook capture)")
    parser.add_argument("second", help="a trace of the same model (e.g. a profiler import)")
    parser.add_argument("--markdown", action="store_true", help="one Markdown table row")
    args = parser.parse_args(argv)
    markdown = args.markdown
    (f1, b1, t1), (f2, b2, t2), ratios, n1, n2 = compare(args.first, args.second)
    if not ratios:
        print(f"segments do not match ({n1} against {n2}): totals only", file=sys.stderr)
        spread = "n/a"
    else:
        decile = max(0, len(ratios) // 10)
        spread = (f"{statistics.median(ratios):.2f} ({ratios[decile]:.2f}-"
                  f"{ratios[len(ratios) - 1 - decile]:.2f})")
    if markdown:
        print(f"| {f1:.2f} / {f2:.2f} | {b1:.2f} / {b2:.2f} | {t1:.2f} / {t2:.2f} | {spread} |")
    else:
        print(f"forward ms {f1:.3f} / {f2:.3f}, backward ms {b1:.3f} / {b2:.3f}, "
              f"total ms {t1:.3f} / {t2:.3f}; per segment ({n1}) first/second: median "
              f"(10th-90th percentile) {spread}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
