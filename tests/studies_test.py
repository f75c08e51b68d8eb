#!/usr/bin/env python3
"""Golden tests of the shipped studies: each studies/NAME/study.py runs into a scratch folder (the
convergence studies at their test size), must write its CSV files, figures and summary, and its
summary.txt (the headline numbers) must equal tests/golden/studies/NAME.txt. The convergence
studies train LeNet-5 and are skipped where sgdsim was built without its networks module. The
MG-WFBP study's GoogLeNet rows need ../shared/reference: where it is absent, they (and the count
over all models) are left out of the comparison. After an intended change, regenerate with
--update and review the diff.
Usage: studies_test.py SGDSIM_BINARY REPO_ROOT [--update]"""
import difflib
import json
import os
import subprocess
import sys
import tempfile

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
update = "--update" in sys.argv[3:]
REFERENCE = os.path.join(ROOT, "..", "shared", "reference")
OUTPUTS = {
    "mgwfbp": ["mgwfbp_study.csv", "mgwfbp_speedup.png", "mgwfbp_efficiency.png",
               "mgwfbp_gap.png", "counter_example.json"],
    "adpsgd": ["adpsgd_study.csv", "adpsgd_claims.csv", "adpsgd_curves.csv",
               "adpsgd_accuracy_loss.png", "adpsgd_variance.png", "adpsgd_time_to_target.png"],
    "biased_compression": ["biased_compression_study.csv", "biased_compression_claims.csv",
                           "biased_compression_curves.csv", "biased_compression_loss.png",
                           "biased_compression_time.png"],
}


def comparable(text):
    """The summary lines compared: all, or without the rows that need the reference data."""
    lines = text.splitlines(True)
    if os.path.isdir(REFERENCE):
        return lines
    return [line for line in lines
            if "GoogLeNet" not in line and not line.startswith("optimal ahead")]




def retimed_as_sgdsim_times(out):
    """The studies time one training at a second network in Python (study_common.retimed_seconds,
    from each seed's iterations and rounds to the target); timed with the very scenario sgdsim
    trained, that must give sgdsim's own per-seed times (to the microsecond's rounding)."""
    sys.path.insert(0, os.path.join(ROOT, "studies"))
    import study_common  # noqa: E402 (needs the repository's path)
    with open(os.path.join(out, "result_10gbps.json"), encoding="utf-8") as source:
        trained = json.load(source)
    retimed = study_common.retimed_seconds(trained, trained)
    wrong = [(label, seed["seed"]) for label, c in study_common.configurations(trained).items()
             for seed, seconds in zip(c["seeds"], retimed[label])
             if (seconds is None) != (seed["time_to_target_us"] is None) or
             (seconds is not None and abs(seconds - seed["time_to_target_us"] / 1e6) > 1e-5)]
    if wrong:
        print(f"FAIL retimed_seconds disagrees with sgdsim's times for {wrong}")
    return not wrong


failed = 0
# Bad input: an unknown study is refused before anything is installed or built (exit 2).
refused = subprocess.run([os.path.join(ROOT, "tools", "study.sh"), "mgwfpb"], capture_output=True,
                         text=True)
if refused.returncode != 2 or "usage: tools/study.sh NAME [OUT]   (NAME: mgwfbp, adpsgd, " \
        "biased_compression)" not in refused.stderr:
    print(f"FAIL tools/study.sh mgwfpb: exit {refused.returncode}: {refused.stderr}")
    failed += 1
# An output folder that cannot be made is one line and exit 2, before anything runs.
refused = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "studies", "mgwfbp", "study.py"),
                          SGDSIM, "/dev/null/out"], capture_output=True, text=True)
if refused.returncode != 2 or refused.stderr != ("study mgwfbp: error: /dev/null/out: cannot "
                                                 "create the output folder: Not a directory\n"):
    print(f"FAIL study with an impossible output folder: exit {refused.returncode}: "
          f"{refused.stderr}")
    failed += 1
version = subprocess.run([SGDSIM, "--version"], capture_output=True, text=True).stdout
networks = "networks (libtorch): yes" in version
skipped = 0
for name, outputs in OUTPUTS.items():
    if name != "mgwfbp" and not networks:
        print(f"skip study {name}: sgdsim has no networks module (libtorch-dev)")
        skipped += 1
        continue
    with tempfile.TemporaryDirectory() as out:
        # The two convergence studies at their test size (SGDSIM_STUDY_QUICK=1: two seeds, a
        # few dozen iterations, every configuration and code path); tools/study.sh runs them
        # whole (minutes of training each).
        result = subprocess.run(["/usr/bin/python3",
                                 os.path.join(ROOT, "studies", name, "study.py"), SGDSIM, out],
                                capture_output=True, text=True,
                                env=dict(os.environ, SGDSIM_STUDY_QUICK="1"))
        if result.returncode != 0:
            print(f"FAIL study {name}: exit {result.returncode}\n{result.stderr}")
            failed += 1
            continue
        missing = [f for f in outputs if not os.path.exists(os.path.join(out, f))
                   or os.path.getsize(os.path.join(out, f)) == 0]
        if missing:
            print(f"FAIL study {name}: missing or empty outputs {missing}")
            failed += 1
        summary = open(os.path.join(out, "summary.txt"), encoding="utf-8").read()
        if name == "adpsgd" and not retimed_as_sgdsim_times(out):
            failed += 1
    golden = os.path.join(ROOT, "tests", "golden", "studies", name + ".txt")
    if update:
        with open(golden, "w", encoding="utf-8") as target:
            target.write(summary)
        print(f"updated {os.path.relpath(golden, ROOT)}")
        continue
    expected = comparable(open(golden, encoding="utf-8").read())
    if comparable(summary) != expected:
        failed += 1
        print(f"FAIL study {name}: summary differs from {os.path.relpath(golden, ROOT)}:")
        sys.stdout.writelines(difflib.unified_diff(expected, comparable(summary), "golden", "now"))
    else:
        print(f"ok   study {name}")
print(f"studies: {len(OUTPUTS) - failed - skipped} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
