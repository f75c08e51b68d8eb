#!/usr/bin/env python3
"""Golden tests: every scenario in scenarios/ is run and its summary table (for a scenario with a
sweep: its sweep CSV) compared with tests/golden/<scenario>.txt. After an intended change, regenerate with --update and review the
diff. Usage: check_golden.py SGDSIM_BINARY REPO_ROOT [--update]"""
import difflib
import glob
import os
import subprocess
import sys

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
update = "--update" in sys.argv[3:]
failed = 0
scenarios = sorted(path for path in glob.glob(os.path.join(ROOT, "scenarios", "*.json"))
                   if not path.endswith(".schema.json"))  # the schema is not a scenario
for path in scenarios:
    name = os.path.splitext(os.path.basename(path))[0]
    relative = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as source:
        verb = "sweep" if '"sweep"' in source.read() else "run"  # a sweep's golden is its CSV
    result = subprocess.run([SGDSIM, verb, relative], cwd=ROOT, capture_output=True, text=True)
    golden = os.path.join(ROOT, "tests", "golden", name + ".txt")
    if result.returncode != 0:
        print(f"FAIL {relative}: exit {result.returncode}\n{result.stderr}")
        failed += 1
        continue
    if update:
        with open(golden, "w", encoding="utf-8") as out:
            out.write(result.stdout)
        print(f"updated {os.path.relpath(golden, ROOT)}")
        continue
    expected = open(golden, encoding="utf-8").read() if os.path.exists(golden) else ""
    if result.stdout != expected:
        failed += 1
        print(f"FAIL {relative} differs from {os.path.relpath(golden, ROOT)}:")
        sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True),
                                                   result.stdout.splitlines(True), "golden", "now"))
print(f"golden: {len(scenarios) - failed} passed, {failed} failed")
sys.exit(1 if failed or not scenarios else 0)
