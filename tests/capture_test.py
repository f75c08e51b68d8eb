#!/usr/bin/env python3
"""Tests of tools/capture/capture.py on real PyTorch training (CPU): a tiny model of known size,
ResNet-18 as tools/capture/README.md promises, and every kind of bad input (one line, non-zero
exit, no file). Each trace is validated by `sgdsim trace show`. Skips when PyTorch is not installed.
Usage: capture_test.py SGDSIM_BINARY REPO_ROOT"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, module_or_skip  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("capture")
module_or_skip("torch", "python3-torch", load=False)
CAPTURE = os.path.join(ROOT, "tools", "capture", "capture.py")


def capture(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "data"))
    return subprocess.run([sys.executable, CAPTURE, "--device", "cpu", "--warmup", "1",
                           "--iterations", "2", *args], capture_output=True, text=True, env=env)


def elements(trace):
    return sum(g["elements"] for layer in trace["layers"] for g in layer["gradients"])


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "tiny.json")
    r = capture("--model", "tiny_model:build", "--batch", "4", "-o", out)
    trace = json.load(open(out)) if os.path.exists(out) else {}
    CHECKS.check("a user module is captured", r.returncode == 0 and elements(trace) == 2762, r.stderr)
    CHECKS.check("layers in forward order with ready offsets", [l["name"] for l in trace.get("layers", [])]
          == ["0", "1", "2"] and all("ready_offset_us" in g for l in trace["layers"]
                                     for g in l["gradients"]), str(trace.get("layers"))[:300])
    CHECKS.check("the trace states its own overhead and measured time",
          trace.get("measured_iteration_us", 0) > 0 and "Instrumented iterations took"
          in trace["provenance"]["description"], "")
    shown = subprocess.run([SGDSIM, "trace", "show", out], capture_output=True, text=True)
    CHECKS.check("sgdsim accepts the captured trace", shown.returncode == 0
          and "total: 3 layers, 2762 gradient elements" in shown.stdout, shown.stdout + shown.stderr)

    out = os.path.join(tmp, "tiny_ddp.json")
    r = capture("--model", "tiny_model:build", "--batch", "4", "--framework-overhead", "ddp",
                "-o", out)
    trace = json.load(open(out)) if os.path.exists(out) else {}
    overheads = trace.get("framework_overheads", {})
    # The tiny model's 4 tensors (two weights, two biases, 11 KB): one DDP bucket under a large
    # cap (all inside DDP's first 1 MiB bucket), one bucket each under a one-byte cap.
    CHECKS.check("--framework-overhead ddp counts DDP's allreduce calls per bucket layout",
                 r.returncode == 0 and "DDP on gloo: 1 and 4 allreduce calls per iteration"
                 in r.stderr, r.stderr[-500:])
    CHECKS.check("--framework-overhead ddp writes the overheads into the trace",
                 overheads.get("wrapper") == "ddp" and overheads.get("backend") == "gloo"
                 and overheads.get("iteration_us", -1) >= 0
                 and overheads.get("message_us", -1) >= 0, overheads)
    shown = subprocess.run([SGDSIM, "trace", "show", out], capture_output=True, text=True)
    CHECKS.check("sgdsim reads the measured overheads", shown.returncode == 0
                 and "framework overheads (ddp on gloo)" in shown.stdout, shown.stderr)

    out = os.path.join(tmp, "parent.json")
    r = capture("--model", "tiny_model:with_parent_parameter", "--batch", "4", "-o", out)
    trace = json.load(open(out)) if os.path.exists(out) else {}
    names = [g["name"] for layer in trace.get("layers", []) for g in layer["gradients"]]
    # 2762 + the 64-element scale held by module 1, which has a child (1.act): it is listed
    # under that first leaf.
    CHECKS.check("a parameter on a module with children is captured under its first leaf",
                 r.returncode == 0 and elements(trace) == 2826 and "1.scale" in names
                 and any(l["name"] == "1.act" and l["gradients"] for l in trace["layers"]),
                 r.stderr + str(names))

    out = os.path.join(tmp, "tiny_kineto.json.gz")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "data"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "capture", "kineto_profile.py"),
                        "--model", "tiny_model:build", "--device", "cpu", "--batch", "4",
                        "--warmup", "1", "--iterations", "2", "-o", out],
                       capture_output=True, text=True, env=env)
    profile = json.load(gzip.open(out)) if os.path.exists(out) else []
    # PyTorch 2 writes {"traceEvents": [...]}, PyTorch 1.13 on a CPU the bare list.
    events = profile.get("traceEvents", []) if isinstance(profile, dict) else profile
    # Two profiled iterations of Linear layers: aten::addmm runs at least twice per iteration.
    CHECKS.check("kineto_profile.py writes a compressed Chrome trace of the iterations",
                 r.returncode == 0 and sum(e.get("name") == "aten::addmm" for e in events) >= 4,
                 r.stderr[-500:])

    out = os.path.join(tmp, "resnet18.json")
    r = capture("--model", "resnet18", "--batch", "2", "-o", out)
    trace = json.load(open(out)) if os.path.exists(out) else {}
    # torchvision's ResNet-18 has 11,689,512 parameters.
    CHECKS.check("resnet18 on the CPU gives a valid trace with torchvision's parameter count",
          r.returncode == 0 and elements(trace) == 11_689_512, r.stderr[-500:])
    shown = subprocess.run([SGDSIM, "trace", "show", out], capture_output=True, text=True)
    CHECKS.check("sgdsim accepts the resnet18 trace", shown.returncode == 0, shown.stderr)

    cases = [
        (["--model", "resnet5000", "--batch", "2"], "unknown model 'resnet5000'"),
        (["--model", "resnet18", "--batch", "0"], "--batch must be from 1 to 16777216, found 0"),
        (["--model", "tiny_model:broken", "--batch", "2"],
         "tiny_model:broken raised ValueError: this model cannot be built"),
        (["--model", "tiny_model:missing", "--batch", "2"], "cannot load tiny_model:missing"),
    ]
    for args, message in cases:
        out = os.path.join(tmp, "never.json")
        r = capture(*args, "-o", out)
        lines = r.stderr.strip().splitlines()
        CHECKS.check(f"bad input {args}: one line, exit 2, no file", r.returncode == 2 and len(lines) >= 1
              and message in lines[-1] and "Traceback" not in r.stderr and not os.path.exists(out),
              r.stderr[-400:])
    r = subprocess.run([sys.executable, CAPTURE, "--model", "tiny_model:build", "--device", "cuda",
                        "-o", os.path.join(tmp, "never.json")], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "data")))
    import torch
    if not torch.cuda.is_available():
        CHECKS.check("--device cuda without a GPU: exit 2", r.returncode == 2
              and "no CUDA GPU is available" in r.stderr, r.stderr)
    r = capture("--model", "tiny_model:build", "--method", "hooks", "--profile",
                os.path.join(tmp, "p.json.gz"), "-o", os.path.join(tmp, "never.json"))
    CHECKS.check("--profile with --method hooks: exit 2", r.returncode == 2
                 and "apply to --method profiler" in r.stderr, r.stderr)
    r = capture("--model", "tiny_model:build", "--batch", "4", "--method", "profiler",
                "--sgdsim", SGDSIM, "--warmup", "0", "--iterations", "1",
                "-o", os.path.join(tmp, "profiled.json"))
    if not getattr(torch.autograd, "kineto_available", lambda: False)():
        # Debian's CPU PyTorch 1.13 has no Kineto: the profiler method says so.
        CHECKS.check("--method profiler without Kineto: exit 2, naming the way out",
                     r.returncode == 2 and "use --method hooks" in r.stderr, r.stderr)
    else:
        # A CPU profile of the tiny model, imported with its CPU operator times.
        profiled = json.load(open(os.path.join(tmp, "profiled.json"))) if r.returncode == 0 else {}
        CHECKS.check("--method profiler on a CPU imports the profile with every parameter",
                     r.returncode == 0 and elements(profiled) == 2762, r.stderr[-500:])
    r = capture("--model", "tiny_model:build", "-o", "/nonexistent-folder/trace.json")
    CHECKS.check("an unwritable output path: exit 2 before any work", r.returncode == 2
          and "/nonexistent-folder/trace.json: cannot write: no folder" in r.stderr, r.stderr)

CHECKS.finish()
