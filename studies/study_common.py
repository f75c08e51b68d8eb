"""Shared helpers of the shipped studies (studies/NAME/study.py, run by tools/study.sh NAME): run
sgdsim, read its JSON and CSV, write the study's CSV, figures and summary. A failing step ends the
study with one line "study NAME: error: ..." and exit status 2 (bad input) or sgdsim's own status.
Run with Debian's /usr/bin/python3 (python3-matplotlib)."""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import common  # noqa: E402  (plots/common.py: one figure style, all-or-none figure writing)
from common import plt  # noqa: E402,F401

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
REFERENCE = os.path.join(ROOT, "..", "shared", "reference")


class Study:
    """One study's run: the sgdsim binary, the output folder and the summary lines."""

    def __init__(self, name, argv):
        if len(argv) != 3:
            print(f"usage: {os.path.basename(argv[0])} SGDSIM OUT", file=sys.stderr)
            sys.exit(2)
        self.name, self.sgdsim, self.out = name, os.path.abspath(argv[1]), os.path.abspath(argv[2])
        os.makedirs(self.out, exist_ok=True)
        self.lines = []
        common.style()

    def fail(self, message, status=2):
        print(f"study {self.name}: error: {message}", file=sys.stderr)
        sys.exit(status)

    def sgdsim_run(self, *arguments):
        """Runs sgdsim with `arguments` from the repository root; its stdout, or the study ends."""
        result = subprocess.run([self.sgdsim, *arguments], cwd=ROOT, capture_output=True,
                                text=True)
        if result.returncode != 0:
            self.fail(f"sgdsim {' '.join(arguments)}: exit {result.returncode}: "
                      f"{result.stderr.strip()}", result.returncode)
        return result.stdout

    def run_json(self, scenario, name):
        """`sgdsim run SCENARIO --json OUT/NAME.json`: the parsed result."""
        path = os.path.join(self.out, name + ".json")
        self.sgdsim_run("run", scenario, "--json", path)
        with open(path, encoding="utf-8") as source:
            return json.load(source)

    def path(self, name):
        return os.path.join(self.out, name)

    def write_csv(self, name, header, rows):
        with open(self.path(name), "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)

    def save(self, figure, name):
        common.save([(figure, self.path(name))])

    def say(self, line=""):
        """A summary line: printed, and kept for OUT/summary.txt (the golden test's text)."""
        print(line)
        self.lines.append(line)

    def finish(self):
        with open(self.path("summary.txt"), "w", encoding="utf-8") as out:
            out.write("\n".join(self.lines) + "\n")
        print(f"\nstudy {self.name}: results in {self.out}")


def read_csv_rows(path):
    """The rows of an sgdsim CSV (comment lines starting with # skipped) as dicts."""
    with open(path, encoding="utf-8") as source:
        return list(csv.DictReader(line for line in source if not line.startswith("#")))


def configurations(result):
    """A run's convergence configurations by label."""
    return {c["label"]: c for c in result["convergence"]["configurations"]}
