#!/usr/bin/env python3
"""Rescale a trace's times to another GPU: every layer's forward and backward time and the
optimizer time are divided by a speed-up factor, either given (--factor) or taken from the ratio
of two GPUs' peak fp32 throughput (--from-gpu / --to-gpu, the table of estimate_trace.py).
Gradient sizes are unchanged; the result says "estimated" and how it was derived.

Usage: rescale_trace.py IN.json --from-gpu v100 --to-gpu h100 -o OUT.json
       rescale_trace.py IN.json --factor 2.5 --device "my GPU" -o OUT.json"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from estimate_trace import GPUS  # noqa: E402


def fail(message):
    print(f"rescale_trace: error: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    if not factor > 0:
        fail(f"the speed-up factor must be positive, found {factor}")
    try:
        with open(args.trace, encoding="utf-8") as source:
            trace = json.load(source)
    except (OSError, json.JSONDecodeError) as error:
        fail(f"cannot read {args.trace}: {error}")
    if trace.get("format") != "sgdsim-trace":
        fail(f"{args.trace} is not an sgdsim trace")
    for layer in trace["layers"]:
        for key in ("forward_us", "backward_us"):
            layer[key] = round(layer.get(key, 0.0) / factor, 3)
        for gradient in layer.get("gradients", []):
            if "ready_offset_us" in gradient:
                gradient["ready_offset_us"] = round(gradient["ready_offset_us"] / factor, 3)
    trace["optimizer_us"] = round(trace.get("optimizer_us", 0.0) / factor, 3)
    trace.pop("measured_iteration_us", None)  # nothing was measured on the target
    source_device = trace.get("device", "unknown")
    trace["device"] = args.device or (GPUS[args.to_gpu]["name"] if args.to_gpu else
                                      f"{source_device} x{factor:g} (estimated)")
    how = (f"--factor {factor:g}" if args.factor is not None else
           f"the fp32 peak ratio {GPUS[args.to_gpu]['tflops']} / {GPUS[args.from_gpu]['tflops']} "
           f"TFLOP/s = {factor:.3f}")
    trace["provenance"] = {
        "method": "estimated",
        "description": (f"Rescaled by tools/estimate/rescale_trace.py from {args.trace} "
                        f"({source_device}; {trace['provenance']['method']}: "
                        f"{trace['provenance']['description'][:200]}) with all times divided by "
                        f"{how}. Compute-bound and memory-bound layers are scaled alike, an "
                        f"approximation."),
        "date": trace["provenance"].get("date", ""),
    }
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(trace, out, indent=1)
        out.write("\n")
    print(f"rescale_trace: wrote {args.output} (times / {factor:.3f})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
