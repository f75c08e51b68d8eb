#!/usr/bin/env python3
"""The figures the documents show and the style they share: every figure README.md and docs/*.md
show is made by a recipe of tools/figures.py's manifest and is in docs/figures; every recipe
names files that exist; a broken manifest or recipe is refused with a message naming it;
plots/style.py keeps its promises (decimal ticks on every power of two, one look per policy,
identical series drawn once, titles with the bandwidth the user set); the CSV reader takes files
with and without the leading comment line. One figure is regenerated (the default scenario's
Gantt view, about 4 s); no study is rerun. Skips (exit 77) without matplotlib.
Usage: figures_test.py SGDSIM_BINARY REPO_ROOT"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, module_or_skip  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("figures")
module_or_skip("matplotlib", "python3-matplotlib", load=False)
sys.path[:0] = [os.path.join(ROOT, "plots"), os.path.join(ROOT, "tools")]
import common  # noqa: E402
import convergence  # noqa: E402  (plots/convergence.py: which configurations it draws once)
import figures  # noqa: E402  (tools/figures.py: the manifest)
import style  # noqa: E402
import tool_io  # noqa: E402

FIGURES = os.path.join(ROOT, "tools", "figures.py")


def refusal(call):
    """The message of the bad input `call()` raises, or None when it raises none."""
    try:
        call()
    except tool_io.BadInput as error:
        return str(error)
    return None


def run_figures(*args):
    return subprocess.run([sys.executable, FIGURES, *args], capture_output=True, text=True,
                          cwd=ROOT)


def is_png(path):
    with open(path, "rb") as image:
        return image.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10_000


# The manifest against the documents.
shown = figures.referenced()
made = figures.manifest()
CHECKS.check("the documents show figures (README.md and docs/*.md name at least one)", shown,
             shown)
for figure in shown:
    CHECKS.check(f"{figure}, shown in the documents, is made by a recipe", figure in made,
                 sorted(made))
    CHECKS.check(f"{figure}, shown in the documents, is in docs/figures",
                 os.path.isfile(os.path.join(ROOT, "docs", "figures", figure)))
for name, recipe in figures.RECIPES.items():
    for command in recipe.commands:
        for word in figures.files_named(command):
            CHECKS.check(f"recipe {name} names {word}, which exists",
                         os.path.isfile(os.path.join(ROOT, word)))
r = run_figures("--check")
CHECKS.check("figures.py --check finds nothing to report", r.returncode == 0 and not r.stdout,
             r.stdout + r.stderr)

# A broken manifest is refused, naming the recipe and the file or figure.
broken = dict(figures.RECIPES, broken=figures.Recipe(
    [["sgdsim", "run", "scenarios/nope.json", "-q", "--json", "{work}/r.json"],
     ["plots/nope.py", "{work}/r.json", "-o", "{work}/nope.png"]], {"nope.png": "nope.png"}))
CHECKS.check("a recipe naming a missing scenario and script is reported, each file once",
             figures.check(ROOT, broken) == [
                 "recipe broken: scenarios/nope.json: no such file in the repository",
                 "recipe broken: plots/nope.py: no such file in the repository"],
             figures.check(ROOT, broken))
with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "docs", "figures"))
    with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as readme:
        readme.write("![a](docs/figures/ghost.png)\n")
    with open(os.path.join(root, "docs", "guide.md"), "w", encoding="utf-8") as guide:
        guide.write("![b](figures/ghost.png) ![c](figures/default_gantt.png)\n")
    # ghost.png is shown twice (both forms of the path) but reported once per problem;
    # default_gantt.png has its recipe but no file in this root's docs/figures.
    problems = [p for p in figures.check(root) if not p.startswith("recipe ")]
    CHECKS.check("a figure the documents show without a recipe or a file is reported", problems == [
        "ghost.png: shown in README.md or docs/*.md but no recipe in tools/figures.py makes it",
        "default_gantt.png: shown in the documents but missing from docs/figures (run "
        "tools/figures.sh)",
        "ghost.png: shown in the documents but missing from docs/figures (run tools/figures.sh)"],
        problems)

# Regenerating: one cheap figure, and refusals before any work.
with tempfile.TemporaryDirectory() as out:
    r = run_figures(SGDSIM, out, "--only", "default_gantt.png")
    CHECKS.check("figures.py --only default_gantt.png writes that figure and nothing else",
                 r.returncode == 0 and os.listdir(out) == ["default_gantt.png"]
                 and is_png(os.path.join(out, "default_gantt.png")), r.stderr)
    r = run_figures(SGDSIM, out, "--only", "ghost.png")
    CHECKS.check("an unknown figure is refused", r.returncode == 2 and r.stderr ==
                 "figures.py: error: --only: no recipe makes ghost.png (see figures.py --list)\n",
                 r.stderr)
    r = run_figures(SGDSIM, os.path.join(out, "missing"))
    CHECKS.check("a missing output folder is refused", r.returncode == 2 and r.stderr ==
                 f"figures.py: error: {out}/missing: no such folder\n", r.stderr)
    r = run_figures(os.path.join(out, "no-sgdsim"), out)
    CHECKS.check("a missing binary is refused", r.returncode == 2 and r.stderr.startswith(
        f"figures.py: error: {out}/no-sgdsim: no sgdsim binary there"), r.stderr)
    # A recipe that fails after one that worked: the failing command is named with sgdsim's
    # message, and nothing is written (all or none).
    good = figures.Recipe([["derive", "scenarios/default.json", "{work}/d.json", "{}"]],
                          {"d.json": "d.json"})
    bad = figures.Recipe([["sgdsim", "run", "scenarios/nope.json", "-q"]], {"n.png": "n.png"})
    real, figures.RECIPES = figures.RECIPES, {"good": good, "bad": bad}
    message = refusal(lambda: figures.regenerate(SGDSIM, out, []))
    figures.RECIPES = real
    CHECKS.check("a failing recipe is named with the command and sgdsim's message",
                 message is not None and message.startswith(
                     "recipe bad: sgdsim run scenarios/nope.json -q: exit 2: sgdsim: error: ")
                 and "scenarios/nope.json" in message[60:], message)
    CHECKS.check("a failing recipe leaves the output folder untouched",
                 sorted(os.listdir(out)) == ["default_gantt.png"], os.listdir(out))

# The style: log2 GPU axes with decimal labels on every power of two.
# 1..2048 = 2^0..2^11: twelve ticks, each labelled in decimal.
CHECKS.check("a 1..2048 axis has a tick on each of the 12 powers of two",
             style.powers_of_two(1, 2048) == [2.0 ** k for k in range(12)],
             style.powers_of_two(1, 2048))
figure, axes = style.plt.subplots()
axes.plot([1, 2048], [1, 2])
style.log2_axis(axes, [1, 3, 2048])
figure.canvas.draw()
labels = [t.get_text() for t in axes.get_xticklabels()]
CHECKS.check("its labels are 1, 2, 4, ..., 2048 in decimal: 4, 16 and 64 included, no 2^k",
             labels == ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024",
                        "2048"], labels)
# 3..100 spans 2^1 (at or below 3) to 2^7 (at or above 100).
CHECKS.check("an axis over 3..100 GPUs runs from 2 to 128", style.powers_of_two(3, 100) ==
             [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0], style.powers_of_two(3, 100))
CHECKS.check("below one the labels are decimal fractions",
             [style.decimal(v) for v in (0.25, 0.5, 1.0, 1048576.0)] == ["0.25", "0.5", "1",
                                                                          "1048576"])
style.plt.close(figure)

# One look per policy, compressor and schedule, for every one sgdsim lists.
listing = subprocess.run([SGDSIM, "list"], capture_output=True, text=True).stdout
sections = {m.group(1): re.findall(r"^  ([a-z0-9_]+)", m.group(2), re.M) for m in re.finditer(
    r"^(\w+) \(.*\)\n((?:  .*\n)*)", listing, re.M)}
CHECKS.check("sgdsim list names policies, compressors and schedules",
             all(sections.get(k) for k in ("policies", "compressors", "schedules")), listing)
looks = [style.look("policy", p) for p in sections.get("policies", [])]
CHECKS.check("every policy sgdsim lists has its own look",
             all(look not in style.OTHER_LOOKS for look in looks), sections.get("policies"))
triples = {(look.colour, look.marker, str(look.linestyle)) for look in looks}
CHECKS.check("no two policies share a colour, a marker or a line style",
             len(triples) == len(looks) and len({look.colour for look in looks}) == len(looks)
             and len({look.marker for look in looks}) == len(looks)
             and len({str(look.linestyle) for look in looks}) == len(looks), looks)
CHECKS.check("every compressor and schedule sgdsim lists has a look of its own family",
             all(style.look("compressor", c) not in style.OTHER_LOOKS
                 for c in sections.get("compressors", []))
             and all(style.look("schedule", s) not in style.OTHER_LOOKS
                     for s in sections.get("schedules", [])))
# 10 compressors + 7 schedule families, less one: every_iteration is the run SGD (compressor
# none) is, and looks like it.
shared = list(style.COMPRESSOR_LOOKS.values()) + list(style.SCHEDULE_LOOKS.values())
CHECKS.check("compressors and schedules (drawn together) have 16 distinct looks",
             len(set(shared)) == 16 and style.look("schedule", "every_iteration")
             == style.look("compressor", "SGD"), len(set(shared)))
CHECKS.check("a look is the same whatever the parameters or the figure",
             style.look("compressor", "SGD + topk(density=0.01) (EF)")
             == style.look("compressor", "topk(density=0.1)") == style.COMPRESSOR_LOOKS["topk"]
             and style.look("configuration", "adaptive(budget=200,linear,warmup=40)")
             == style.SCHEDULE_LOOKS["adaptive linear"]
             and style.look("policy", "MG-WFBP") == style.look("policy", "mgwfbp"))
variants = style.looks("compressor", ["topk(density=0.1)", "topk(density=0.01)",
                                      "topk(density=0.01) (EF)", "fp16"])
CHECKS.check("variants of one compressor in a figure differ by marker fill; with and without "
             "error feedback they do not", [style.fill_of(variants[n]) for n in variants]
             == ["full", "none", "none", "full"], variants)

# Identical series drawn once.
CHECKS.check("equal series are drawn once under both labels",
             style.deduplicate([("SGD", [1, 2]), ("every_iteration", [1, 2]),
                                ("constant(period=4)", [1, 3]), ("WFBP", [1, 3])])
             == [("SGD = every_iteration", [1, 2]), ("constant(period=4) = WFBP", [1, 3])])
curve = {"times": [0.1, 0.2], "losses": [2.0, 1.0], "variances": [0.0, 0.0],
         "iterations": [1, 2], "tests": [(0.2, 0.8, 2)], "reached": 2}
drawn = convergence.merged([dict(curve, label="SGD"), dict(curve, label="every_iteration"),
                            dict(curve, label="constant(period=4)", variances=[0.1, 0.0])])
CHECKS.check("a convergence result's SGD and every_iteration (one run) are one line",
             [label for label, _ in drawn] == ["SGD = every_iteration", "constant(period=4)"],
             drawn)
# Centred mean of window 3: (0+3)/2, (0+3+6)/3, (3+6+9)/3, (6+9)/2.
CHECKS.check("the moving average is centred and shrinks at the ends",
             style.moving_average([0, 3, 6, 9], 3) == [1.5, 3.0, 6.0, 7.5])

# Titles: the bandwidth the user set, never the goodput.
CHECKS.check("a title states model, batch, GPUs, the bandwidth set and the collective",
             style.setup_title({"model": "resnet50", "batch_size": 32, "gpus": 64,
                                "bandwidth_gbps": 100, "goodput_gbps": 96,
                                "collective": "ring_allreduce"})
             == "resnet50, batch 32 per GPU, 64 GPUs, 100 Gbps, ring allreduce")
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "result.json")
    subprocess.run([SGDSIM, "run", "scenarios/default.json", "-q", "--json", path], cwd=ROOT)
    # scenarios/default.json: the resnet50 trace (batch 32), 64 GPUs, 10 Gbps, ring allreduce.
    title = style.setup_title(common.setup_of(common.read_json(path, "sgdsim-result")))
    CHECKS.check("the default scenario's title", title ==
                 "resnet50, batch 32 per GPU, 64 GPUs, 10 Gbps, ring allreduce", title)
    with open(path, encoding="utf-8") as source:
        result = json.load(source)
    result.update(bandwidth_gbps=100, goodput_gbps=96)  # a TCP transport's goodput
    with open(path, "w", encoding="utf-8") as target:
        json.dump(result, target)
    title = style.setup_title(common.setup_of(common.read_json(path, "sgdsim-result")))
    CHECKS.check("a result with goodput_gbps 96 of 100 Gbps is titled 100 Gbps",
                 "100 Gbps" in title and "96" not in title, title)
    result.pop("goodput_gbps")
    result["bandwidth_gbps"] = "fast"
    with open(path, "w", encoding="utf-8") as target:
        json.dump(result, target)
    message = refusal(lambda: common.setup_of(common.read_json(path, "sgdsim-result")))
    CHECKS.check("a bandwidth that is not a number is bad input naming the field", message ==
                 f'{path}: bandwidth_gbps: expected a finite number >= 0, found "fast"', message)

# The ends of convergence runs.
outcomes = style.Outcomes()
figure, axes = style.plt.subplots()
look = style.look("policy", "none")
outcomes.mark(axes, look, (3, 0.7), None)  # never reached: a cross
outcomes.mark(axes, look, (3, 0.8), (3, 0.8))  # stopped at the target: a star
outcomes.mark(axes, look, (5, 0.8), (3, 0.8))  # reached, then on to the limit: star and bar
CHECKS.check("runs are marked where they met the target and where they ended",
             outcomes.used == ["not reached", "stopped", "target", "limit"]
             and len(outcomes.handles()) == 4, outcomes.used)
style.plt.close(figure)

# CSV files with and without the leading comment line, notes after the rows skipped.
HEADER = "gpus,policy\n"
ROWS = '4,none\n8,"all"\n'
NOTES = "# failed: point 3 (gpus=16): sgdsim: error: ...\n# interrupted: 2 of 3 points finished\n"
with tempfile.TemporaryDirectory() as folder:
    def read(text, name="s.csv"):
        path = os.path.join(folder, name)
        with open(path, "wb") as out:
            out.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        return tool_io.read_csv(path)
    plain = read(HEADER + ROWS + NOTES)
    # Rows on lines 2 and 3 without the comment, 3 and 4 with it.
    CHECKS.check("a CSV whose first line is the header", plain ==
                 (["gpus", "policy"], [(2, ["4", "none"]), (3, ["8", "all"])]), plain)
    commented = read("# sgdsim-sweep-csv schema_version=1 points=3\n" + HEADER + ROWS + NOTES)
    CHECKS.check("a CSV with a leading comment line", commented ==
                 (["gpus", "policy"], [(3, ["4", "none"]), (4, ["8", "all"])]), commented)
    quoted = read(HEADER + '4,"two\nlines"\n8,all\n')
    CHECKS.check("a quoted cell over two lines keeps the next row's line number", quoted ==
                 (["gpus", "policy"], [(2, ["4", "two\nlines"]), (4, ["8", "all"])]), quoted)
    path = os.path.join(folder, "s.csv")
    for what, text, expected in [
            ("an empty CSV", "", f"{path}: empty; expected an sgdsim CSV with a header line"),
            ("a CSV of comments only", "# sgdsim-sweep-csv schema_version=1\n# aborted\n",
             f"{path}: empty; expected an sgdsim CSV with a header line"),
            ("a binary CSV", b"\xff\xfe\x00", f"{path}: not UTF-8 text (byte 0); is this an "
             "sgdsim output file?"),
            ("an unclosed quote", HEADER + '4,"none\n', f"{path}:2: malformed CSV: unexpected "
             "end of data")]:
        message = refusal(lambda: read(text))
        CHECKS.check(f"{what} is refused", message == expected, message)
    message = refusal(lambda: tool_io.read_csv(os.path.join(folder, "missing.csv")))
    CHECKS.check("a missing CSV is refused", message == f"{folder}/missing.csv: cannot read: No "
                 "such file or directory", message)
    read(HEADER + "4\n")
    message = refusal(lambda: common.read_csv(path, {"gpus": common.text_cell}))
    CHECKS.check("a short row names its line", message ==
                 f"{path}:2: 1 fields where the header has 2", message)
CHECKS.finish()
