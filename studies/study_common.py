"""Shared helpers of the shipped studies (studies/NAME/study.py, run by tools/study.sh NAME): run
sgdsim, read its JSON and CSV, write the study's CSV, figures and summary. A failing step ends the
study with one line "study NAME: error: ..." and exit status 2 (bad input) or sgdsim's own status.
Run with Debian's /usr/bin/python3 (python3-matplotlib)."""
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import common  # noqa: E402  (plots/common.py: all-or-none figure writing)
import style  # noqa: E402,F401  (plots/style.py: the one figure style, for the studies' figures)
import tool_io  # noqa: E402  (tools/tool_io.py, on the path through common: the file writer)
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
        try:
            os.makedirs(self.out, exist_ok=True)
        except OSError as error:
            self.fail(f"{argv[2]}: cannot create the output folder: {error.strerror}")
        self.lines = []
        style.apply()

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

    def write_text(self, name, text):
        """OUT/NAME written all or none (tool_io.write_files); a failure ends the study."""
        try:
            tool_io.write_files([(self.path(name), lambda out: out.write(text.encode("utf-8")))])
        except tool_io.CannotWrite as error:
            self.fail(str(error))

    def write_csv(self, name, header, rows):
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        self.write_text(name, text.getvalue())

    def write_scenario(self, file_name, scenario, **changes):
        """A variant of a study's scenario written into OUT/FILE_NAME (to run, and to rerun by hand):
        `changes` replace top-level keys; the editor-only $schema is dropped, since its relative
        path would not resolve from OUT. Returns the file's path."""
        point = {key: value for key, value in scenario.items() if key != "$schema"}
        point.update(changes)
        self.write_text(file_name, json.dumps(point, indent=2) + "\n")
        return self.path(file_name)

    def save(self, figure, name):
        common.save([(figure, self.path(name))])

    def say(self, line=""):
        """A summary line: printed, and kept for OUT/summary.txt (the golden test's text)."""
        print(line)
        self.lines.append(line)

    def finish(self):
        self.write_text("summary.txt", "\n".join(self.lines) + "\n")
        print(f"\nstudy {self.name}: results in {self.out}")

    def read_csv(self, path):
        """The rows of an sgdsim CSV as dicts (tool_io.read_csv: a leading comment line or none,
        the notes after the rows skipped); a file that cannot be read ends the study."""
        try:
            header, records = tool_io.read_csv(path)
        except tool_io.BadInput as error:
            self.fail(str(error))
        for line, cells in records:
            if len(cells) != len(header):
                self.fail(f"{path}:{line}: {len(cells)} fields where the header has "
                          f"{len(header)}")
        return [dict(zip(header, cells)) for _, cells in records]


def configurations(result):
    """A run's convergence configurations by label."""
    return {c["label"]: c for c in result["convergence"]["configurations"]}
