#!/usr/bin/env python3
"""Runs every plot script on real sgdsim output and checks that each writes a PNG with content,
and that bad input (a CSV without the needed columns, a foreign JSON file) exits 2 without leaving
a file behind. Skips (exit 0 with a message) when matplotlib is not installed.
Usage: plots_test.py SGDSIM_BINARY REPO_ROOT"""
import importlib.util
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("plots")
if importlib.util.find_spec("matplotlib") is None:
    print("SKIPPED: python3-matplotlib is not installed; plots were not tested")
    sys.exit(0)
PLOTS = os.path.join(ROOT, "plots")


def plot(script, *args):
    return subprocess.run([sys.executable, os.path.join(PLOTS, script), *args], capture_output=True,
                          text=True, timeout=120)


def is_png(path):
    with open(path, "rb") as image:
        return image.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10_000


with tempfile.TemporaryDirectory() as tmp:
    def sgdsim(*args):
        return subprocess.run([SGDSIM, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)

    sweep_csv = os.path.join(tmp, "sweep.csv")
    r = sgdsim("sweep", "scenarios/sweep_resnet50_gpus.json", "--csv", sweep_csv, "--plot",
               os.path.join(tmp, "scaling.png"))
    CHECKS.check("sweep --plot draws three scaling figures", r.returncode == 0 and all(
        is_png(os.path.join(tmp, name)) for name in
        ("scaling.png", "scaling_efficiency.png", "scaling_throughput.png")), r.stderr)
    result = os.path.join(tmp, "result.json")
    sgdsim("run", "scenarios/averaging_resnet50_10gbps.json", "-q", "--json", result)
    r = plot("breakdown.py", result, "-o", os.path.join(tmp, "breakdown.png"))
    CHECKS.check("breakdown bars", r.returncode == 0 and is_png(os.path.join(tmp, "breakdown.png")), r.stderr)
    compression = os.path.join(tmp, "compression.json")
    sgdsim("run", "scenarios/compression_resnet50_16gpus_10gbps.json", "-q", "--json", compression)
    r = plot("compression.py", compression, "-o", os.path.join(tmp, "compression.png"))
    CHECKS.check("compression trade-off", r.returncode == 0 and is_png(os.path.join(tmp, "compression.png")),
          r.stderr)
    timeline = os.path.join(tmp, "timeline.json")
    sgdsim("run", "scenarios/default.json", "-q", "--timeline", timeline)
    r = plot("gantt.py", timeline, "-o", os.path.join(tmp, "gantt.svg"))
    CHECKS.check("Gantt view as SVG", r.returncode == 0 and os.path.getsize(os.path.join(tmp, "gantt.svg")) > 10_000,
          r.stderr)

    broken = os.path.join(tmp, "broken.csv")
    with open(broken, "w", encoding="utf-8") as out:
        out.write("gpus,policy\n4,none\n")
    r = plot("scaling.py", broken, "-o", os.path.join(tmp, "never.png"))
    CHECKS.check("a CSV without the needed columns: exit 2 naming them, no file", r.returncode == 2
          and "missing column(s) compression, bandwidth_gbps, model" in r.stderr
          and not os.path.exists(os.path.join(tmp, "never.png")), r.stderr)
    r = plot("gantt.py", result, "-o", os.path.join(tmp, "never.png"))
    CHECKS.check("a result JSON given to the Gantt script: exit 2", r.returncode == 2
          and "expected an sgdsim file of format 'sgdsim-timeline'" in r.stderr, r.stderr)
    r = plot("breakdown.py", result, "-o", os.path.join(tmp, "never.gif"))
    CHECKS.check("an unsupported output format: exit 2", r.returncode == 2, r.stderr)

CHECKS.finish()
