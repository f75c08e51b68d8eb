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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
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
    args = parser.parse_args(argv)
    try:
        capture.check_writable(args.output)
        torch = capture.import_torch()
        if args.device == "cuda" and not torch.cuda.is_available():
            raise capture.CaptureError("--device cuda, but no CUDA GPU is available here")
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
        folder = os.path.dirname(os.path.abspath(args.output))
        handle, plain = tempfile.mkstemp(dir=folder, prefix=".profile-", suffix=".json")
        os.close(handle)
        profiler.export_chrome_trace(plain)
        if args.output.endswith(".gz"):
            packed = plain + ".gz"
            with open(plain, "rb") as source, gzip.open(packed, "wb") as target:
                shutil.copyfileobj(source, target)
            os.remove(plain)
            plain = packed
        os.replace(plain, args.output)
    except capture.CaptureError as error:
        print(f"profile: error: {error}", file=sys.stderr)
        return 2
    capture.progress(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
