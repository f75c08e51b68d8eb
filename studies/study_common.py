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


# Student's t quantile t(0.975, df) for df = 1..30, from any table of the distribution (e.g. NIST/
# SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2): the 95% interval of a mean of
# n = df + 1 seeds, as sgdsim's own report computes it with Boost.Math. Past 30 degrees of
# freedom the value at 30 is used (within 4% of the normal 1.960: a slightly wider interval).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
        18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
        26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042}


def interval(values):
    """(mean, low, high) of the 95% interval of the mean of `values` (Student's t); None where a
    value is missing (a seed missed the target); the mean alone (low = high) for one value."""
    if not values or any(v is None for v in values):
        return None
    n = len(values)
    mean = sum(values) / n
    if n == 1:
        return (mean, mean, mean)
    deviation = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    half = T975[min(n - 1, 30)] * deviation / n ** 0.5
    return (mean, mean - half, mean + half)


def interval_text(found, digits=2, scale=1.0):
    """"mean [low, high]" of an interval, or "not reached"."""
    if found is None:
        return "not reached"
    mean, low, high = (v * scale for v in found)
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def comparison(a, b):
    """How interval `a` stands to interval `b` (lower is better): "below", "above" or "tie"."""
    if a is None or b is None:
        return "tie" if a is b else ("above" if a is None else "below")
    if a[2] < b[1]:
        return "below"
    if a[1] > b[2]:
        return "above"
    return "tie"


def better_verdict(first, second):
    """The claim "first is lower than second", from two intervals (None: not reached):
    reproduced where they separate that way, contradicted where they separate the other way;
    where they overlap, partly if the means lean the claimed way, else a tie."""
    place = comparison(first, second)
    if place == "below":
        return "reproduced"
    if place == "above":
        return "contradicted"
    if first is None or second is None:
        return "not testable"
    return "partly" if first[0] < second[0] else "tie"


def verdict(study, claim, outcome, evidence):
    """A claim's verdict and its evidence: two summary lines, and the row of NAME_claims.csv."""
    study.say(f"  {outcome:<17} {claim}")
    study.say(f"  {'':<17} {evidence}")
    return [claim, outcome, evidence]


def compressor_of(label):
    """The compressor label inside a configuration label ("SGD + topk(...) (EF)" -> "topk(...)";
    SGD and every_iteration, uncompressed: "none")."""
    if label in ("SGD", "every_iteration"):
        return "none"
    return label.removeprefix("SGD + ").removesuffix(" (EF)")


def fastest_iteration_us(result):
    """Each compressor's iteration time with its fastest merge policy, as sgdsim times a
    compressor's curve: {compressor label: us}."""
    fastest = {}
    for policy in result["policies"]:
        name = policy["compression"].split("/")[0]  # without an aggregation suffix
        fastest[name] = min(fastest.get(name, policy["iteration_us"]), policy["iteration_us"])
    return fastest


def seed_seconds(result):
    """Every configuration's per-seed seconds to target as sgdsim timed them (None: not
    reached): {label: [seconds or None]}."""
    return {label: [None if s["time_to_target_us"] is None else s["time_to_target_us"] / 1e6
                    for s in c["seeds"]] for label, c in configurations(result).items()}


def retimed_seconds(trained, timing):
    """Every configuration's per-seed seconds to target in `trained` (a result with a convergence
    section), timed again with another scenario's iteration times (`timing`: the same scenario at
    another network, no convergence section needed): a compressor's iterations at its fastest
    policy's iteration, a local schedule's at its local and averaging iterations (the variance
    rule like the first local schedule, as sgdsim times it). {label: [seconds or None]}."""
    fastest = fastest_iteration_us(timing)
    schedules = {s["schedule"]: s for s in (timing.get("averaging") or {}).get("schedules", [])}
    local = next((s for s in schedules.values() if s["schedule"] != "every_iteration"), None)
    seconds = {}
    for label, c in configurations(trained).items():
        schedule = schedules.get(label, local if label.startswith("variance rule") else None)
        runs = []
        for seed in c["seeds"]:
            iterations = seed["iterations_to_target"]
            if iterations is None:
                runs.append(None)
            elif schedule is not None and label != "every_iteration":
                rounds = seed["rounds_to_target"] or 0
                runs.append(((iterations - rounds) * schedule["local_iteration_us"]
                             + rounds * schedule["averaging_iteration_us"]) / 1e6)
            else:
                runs.append(iterations * fastest[compressor_of(label)] / 1e6)
        seconds[label] = runs
    return seconds


def quick():
    """Whether the study runs its small test size (SGDSIM_STUDY_QUICK=1, the studies test):
    fewer seeds and iterations, the same code paths."""
    return os.environ.get("SGDSIM_STUDY_QUICK") == "1"


def interval_figure(panels, names, looks, title):
    """One panel per (x label, {name: interval or None}): each configuration's mean with its 95%
    interval as a horizontal bar, one row per name in `names`, drawn in its look's colour; a
    configuration that missed the target in some seed is written as such."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels), 0.9 + 0.32 * len(names)),
                             sharey=True, squeeze=False)
    for axis, (xlabel, intervals) in zip(axes[0], panels):
        for row, name in enumerate(names):
            found = intervals.get(name)
            if found is None:
                axis.annotate("not reached in every seed", (0, row), fontsize=7, va="center",
                              xycoords=("axes fraction", "data"))
                continue
            mean, low, high = found
            axis.errorbar([mean], [row], xerr=[[mean - low], [high - mean]], fmt="o",
                          color=looks[name].colour, capsize=3)
        axis.set_yticks(range(len(names)), names, fontsize=7)
        axis.set_xlabel(xlabel)
        axis.set_xlim(left=0)
    axes[0][0].invert_yaxis()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig
