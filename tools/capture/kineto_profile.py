#!/usr/bin/env python3
"""Record a PyTorch profiler (Kineto) Chrome trace of real training iterations, as users record
their own: a profile of the same run a capture times, for comparing the two and for importers
(sgdsim does not import Kineto traces yet).

  kineto_profile.py --model resnet50 --batch 32 -o resnet50.json.gz
  kineto_profile.py --model bert-base-uncased --batch 32 --sequence 128 -o bert.json.gz

The model, batch and precision options are capture.py's. The profile is recorded with
record_shapes=True and with_modules=True (what the importer needs) over --iterations iterations
after --warmup untimed ones; a name ending in .gz is written compressed."""
import argparse
import gzip
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
import capture  # noqa: E402
from tool_io import ArgumentParser, check_outputs, fail, run, special_file, write_files  # noqa: E402


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
    if args.device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda, but no CUDA GPU is available here")
    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    model, loss_fn, inputs, targets = capture.build(torch, args, device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp = {"fp32": None, "amp": torch.float16, "bf16": torch.bfloat16}[args.precision]
    scaler = torch.cuda.amp.GradScaler() if amp == torch.float16 else None
    for i in range(args.warmup):
        capture.progress(f"warm-up {i + 1}/{args.warmup}")
        capture.step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler)
    capture.synchronize(torch, device)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities, record_shapes=True,
                                with_modules=True) as profiler:
        for i in range(args.iterations):
            with torch.profiler.record_function(f"ProfilerStep#{i}"):
                capture.step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler)
            capture.synchronize(torch, device)
    export(profiler, args.output)


def export(profiler, path):
    """Exports the profile to a scratch folder beside the output (a large model's profile runs to
    hundreds of MB), then writes it to the output, gzip-compressed for a name ending in .gz."""
    beside = None if special_file(path) else os.path.dirname(os.path.realpath(path))
    try:
        with tempfile.TemporaryDirectory(dir=beside, prefix=".profile-") as folder:
            exported = os.path.join(folder, "profile.json")
            profiler.export_chrome_trace(exported)
            compress = path.endswith(".gz")
            write_files([(path, lambda out: copy(exported, out, compress))])
    except OSError as error:  # the scratch folder or the export
        fail(f"{path}: cannot write: {error.strerror or error}")


def copy(exported, out, compress):
    """The exported profile into the output file, gzip-compressed when asked."""
    with open(exported, "rb") as source:
        if not compress:
            shutil.copyfileobj(source, out)
            return
        with gzip.GzipFile(filename="", mode="wb", fileobj=out) as packed:
            shutil.copyfileobj(source, packed)


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
