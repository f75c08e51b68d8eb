#!/usr/bin/env python3
"""Rescale a trace's times to another GPU: every layer's forward and backward time and the
optimizer time are divided by a speed-up factor, either given (--factor) or taken from the ratio
of two GPUs' peak fp32 throughput (--from-gpu / --to-gpu, the table of estimate_trace.py).
Gradient sizes are unchanged; the result says "estimated" and how it was derived.

Usage: rescale_trace.py IN.json --from-gpu v100 --to-gpu h100 -o OUT.json
       rescale_trace.py IN.json --factor 2.5 --device "my GPU" -o OUT.json"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from estimate_trace import GPUS  # noqa: E402
from tool_io import (ArgumentParser, check_outputs, check_time, describe,  # noqa: E402
                     fail, read_json, run, write_json)


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--factor", type=float, help="how many times faster the target GPU is")
    parser.add_argument("--from-gpu", choices=sorted(GPUS))
    parser.add_argument("--to-gpu", choices=sorted(GPUS))
    parser.add_argument("--device", help="device name for the new trace")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    if args.factor is None and not (args.from_gpu and args.to_gpu):
        fail("give --factor, or both --from-gpu and --to-gpu")
    factor = args.factor if args.factor is not None else (
        GPUS[args.to_gpu]["tflops"] / GPUS[args.from_gpu]["tflops"])
    if not (math.isfinite(factor) and factor > 0):
        fail(f"the speed-up factor must be a finite number above 0, found {factor}")
    check_outputs([args.output], [args.trace])
    trace = read_json(args.trace, "trace")
    if not isinstance(trace, dict) or trace.get("format") != "sgdsim-trace":
        fail(f"{args.trace}: not an sgdsim trace (no \"format\": \"sgdsim-trace\")")
    provenance = field(trace, "provenance", dict, "an object", args.trace)
    rescale_times(trace, factor, args.trace)
    trace.pop("measured_iteration_us", None)  # nothing was measured on the target
    source_device = trace.get("device", "unknown")
    trace["device"] = args.device or (GPUS[args.to_gpu]["name"] if args.to_gpu else
                                      f"{source_device} x{factor:g} (estimated)")
    how = (f"--factor {factor:g}" if args.factor is not None else
           f"the fp32 peak ratio {GPUS[args.to_gpu]['tflops']} / {GPUS[args.from_gpu]['tflops']} "
           f"TFLOP/s = {factor:.3f}")
    method = field(provenance, "method", str, "a string", args.trace, "provenance.")
    description = field(provenance, "description", str, "a string", args.trace, "provenance.")
    provenance.setdefault("date", "")
    date = field(provenance, "date", str, "a string", args.trace, "provenance.")
    trace["provenance"] = {
        "method": "estimated",
        "description": (f"Rescaled by tools/estimate/rescale_trace.py from {args.trace} "
                        f"({source_device}; {method}: {description[:200]}) with all times divided "
                        f"by {how}. Compute-bound and memory-bound layers are scaled alike, an "
                        f"approximation."),
        "date": date,
    }
    write_json(args.output, trace)
    print(f"rescale_trace: wrote {args.output} (times / {factor:.3f})", file=sys.stderr)
    return 0


def field(node, key, kind, expected, source, prefix=""):
    """node[key], which must be of the given type."""
    if key not in node:
        fail(f"{source}: {prefix}{key}: missing; expected {expected}")
    if not isinstance(node[key], kind) or isinstance(node[key], bool):
        fail(f"{source}: {prefix}{key}: expected {expected}, found {describe(node[key])}")
    return node[key]


def rescale_times(trace, factor, source):
    """Divides every time in the trace by factor, in place. Each time read and each time written
    is checked to be one sgdsim can hold, and so is the whole iteration afterwards."""
    def rescaled(node, key, where):
        value = check_time(node.get(key, 0.0), f"{source}: {where}")
        node[key] = round(check_time(value / factor, f"{where} divided by {factor:g}"), 3)
        return node[key]

    total = rescaled(trace, "optimizer_us", "optimizer_us")
    layers = trace.get("layers")
    if not isinstance(layers, list) or not layers:
        fail(f"{source}: layers: expected a non-empty array of layers, found {describe(layers)}")
    for i, layer in enumerate(layers):
        if not isinstance(layer, dict):
            fail(f"{source}: layers[{i}]: expected an object, found {describe(layer)}")
        for key in ("forward_us", "backward_us"):
            total += rescaled(layer, key, f"layers[{i}].{key}")
        gradients = layer.get("gradients", [])
        if not isinstance(gradients, list):
            fail(f"{source}: layers[{i}].gradients: expected an array, found {describe(gradients)}")
        for j, gradient in enumerate(gradients):
            if not isinstance(gradient, dict):
                fail(f"{source}: layers[{i}].gradients[{j}]: expected an object, found "
                     f"{describe(gradient)}")
            if "ready_offset_us" in gradient:
                rescaled(gradient, "ready_offset_us", f"layers[{i}].gradients[{j}].ready_offset_us")
    check_time(total, "the rescaled iteration (check --factor)")


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
