#!/usr/bin/env python3
"""Tests of the trace estimation tools: estimate_trace.py reproduces the committed traces and
torchvision's parameter counts; rescale_trace.py divides every time by the factor and labels
the result as estimated; bad input exits 2. Usage: tools_test.py SGDSIM_BINARY REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("tools")
TOOLS = os.path.join(ROOT, "tools", "estimate")


def tool(script, *args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, script), *args], capture_output=True,
                          text=True, timeout=120)


def elements(trace):
    return sum(g["elements"] for layer in trace["layers"] for g in layer["gradients"])


with tempfile.TemporaryDirectory() as tmp:
    # torchvision parameter counts: ResNet-50 25,557,032; ResNet-152 60,192,808; VGG-16 138,357,544.
    for model, parameters in (("resnet50", 25_557_032), ("resnet152", 60_192_808), ("vgg16", 138_357_544)):
        out = os.path.join(tmp, f"{model}.json")
        r = tool("estimate_trace.py", "--model", model, "--batch", "32", "--date", "2026-11-21", "-o", out)
        trace = json.load(open(out)) if os.path.exists(out) else {"layers": []}
        CHECKS.check(f"{model} has torchvision's parameter count", r.returncode == 0
              and elements(trace) == parameters, r.stderr)
        committed = os.path.join(ROOT, "traces", f"{model}_b32_v100_estimated.json")
        CHECKS.check(f"the committed {model} trace is what the tool writes",
              open(committed).read() == open(out).read(), "regenerate it (traces/README.md)")
    source = os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json")
    out = os.path.join(tmp, "fast.json")
    r = tool("rescale_trace.py", source, "--factor", "2", "-o", out)
    before, after = json.load(open(source)), json.load(open(out))
    CHECKS.check("rescaling by 2 halves every time and keeps the gradients", r.returncode == 0
          and all(abs(a["backward_us"] - b["backward_us"] / 2) < 1e-3
                  for a, b in zip(after["layers"], before["layers"]))
          and elements(after) == elements(before) and after["provenance"]["method"] == "estimated",
          r.stderr)
    CHECKS.check("sgdsim accepts the rescaled trace",
          subprocess.run([SGDSIM, "trace", "show", out], capture_output=True).returncode == 0)
    r = tool("rescale_trace.py", source, "-o", out)
    CHECKS.check("rescale without a factor: exit 2", r.returncode == 2 and "give --factor" in r.stderr, r.stderr)
    r = tool("estimate_trace.py", "--model", "resnet50", "--batch", "0", "-o", out)
    CHECKS.check("estimate with batch 0: exit 2", r.returncode == 2, r.stderr)

CHECKS.finish()
