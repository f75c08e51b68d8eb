#!/usr/bin/env python3
"""Record a PyTorch profiler (Kineto) Chrome trace of real training iterations, as users record
their own: the profile alone, for `sgdsim trace import --from kineto` or for comparing with a
capture (capture.py --method profiler records one and imports it in one go).

  kineto_profile.py --model resnet50 --batch 32 -o resnet50.json.gz
  kineto_profile.py --model bert-base-uncased --batch 32 --sequence 128 -o bert.json.gz

The model, batch and precision options are capture.py's. The profile is recorded with
record_shapes=True and with_modules=True (and with_stack=True with --with-stack: module frames)
over --iterations iterations after --warmup untimed ones; a name ending in .gz is written
compressed."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
import capture  # noqa: E402
from tool_io import ArgumentParser, check_outputs, run  # noqa: E402


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--precision", choices=["fp32", "amp", "bf16"], default="fp32")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--sequence", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--with-stack", action="store_true")
    parser.add_argument("-o", "--output", required=True)
    try:
        args = parser.parse_args(argv)
        capture.check_arguments(args)
        check_outputs([args.output])
        profile(args)
    except KeyboardInterrupt:
        print("profile: interrupted; no profile written", file=sys.stderr)
        return 130
    capture.progress(f"wrote {args.output}")
    return 0


def profile(args):
    torch = capture.import_torch()
    device, model, loss_fn, inputs, targets, optimizer, amp, scaler = capture.training_setup(
        torch, args)
    for i in range(args.warmup):
        capture.progress(f"warm-up {i + 1}/{args.warmup}")
        capture.step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler)
    capture.synchronize(torch, device)

    def one_step():
        return capture.timed_step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler,
                                  device)

    capture.record_profile(torch, device, args.iterations, one_step, args.output,
                           with_stack=args.with_stack)


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
