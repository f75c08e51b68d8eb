#!/usr/bin/env python3
"""Every figure that README.md and docs/*.md show, regenerated: runs the scenarios, sweeps and
studies that feed each figure with the given sgdsim binary, draws it with plots/ or studies/ (one
style, plots/style.py) in a scratch folder, and only when every recipe succeeded writes the
figures into OUT_DIR under their documented names, all or none. FIGURES below is the manifest:
each figure file and the recipe (commands) that makes it; --check compares it with the
documents (tests/figures_test.py runs that). tools/figures.sh builds sgdsim and calls this.

Usage: figures.py SGDSIM OUT_DIR [--only FIGURE ...]   regenerate (all, or the named figures)
       figures.py --list                               the manifest, figure by figure
       figures.py --check                              exit 1 when manifest and documents differ
A recipe that exits 77 (the validation figure without ../shared/reference) is skipped: its
figures keep their old files, with a warning."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tool_io  # noqa: E402

SKIPPED = 77
DOCUMENTS = ["README.md", "docs/*.md"]
FIGURE_REFERENCE = re.compile(r"figures/[a-z0-9_]+\.png")  # as the documents write them

# A command is a list of words from the repository root. The first is "sgdsim" (the binary), a
# script (run with this Python) or "derive" (write the scenario BASE with the JSON object CHANGES
# merged over its top-level keys to OUT; its trace path made absolute, since OUT is elsewhere).
# {work} is the scratch folder, {sgdsim} the binary, {root} the repository. outputs maps each
# figure's name to the file the commands leave in {work}.
Recipe = namedtuple("Recipe", "commands outputs")


def scenario_figure(name, scenario, script, figure, extra=()):
    """`sgdsim run SCENARIO --json`, then plots/SCRIPT on the result, drawing FIGURE."""
    return Recipe([["sgdsim", "run", scenario, "-q", "--json", f"{{work}}/{name}.json"],
                   [f"plots/{script}", f"{{work}}/{name}.json", "-o", f"{{work}}/{figure}"]],
                  {figure: figure, **{f: f for f in extra}})


def study(name, figures):
    """studies/NAME/study.py into {work}/NAME; the figures renamed study_FIGURE."""
    return Recipe([[f"studies/{name}/study.py", "{sgdsim}", f"{{work}}/{name}"]],
                  {f"study_{figure}": f"{name}/{figure}" for figure in figures})


SHARDING_SWEEP = ('{"sweep": {"cluster.gpus": [64, 128, 256, 512, 1024], '
                  '"network.bandwidth_gbps": [100, 400]}}')
GPU_SWEEP = json.dumps({"sweep": {"cluster.gpus": {"from": 4, "to": 1024, "times": 2}}})
RECIPES = {
    "default_gantt": Recipe(
        [["sgdsim", "run", "scenarios/default.json", "-q", "--json", "{work}/default.json",
          "--timeline", "{work}/default_timeline.json"],
         ["plots/gantt.py", "{work}/default_timeline.json", "--result", "{work}/default.json",
          "-o", "{work}/default_gantt.png"]],
        {"default_gantt.png": "default_gantt.png"}),
    "averaging_breakdown": scenario_figure(
        "averaging", "scenarios/averaging_resnet50_10gbps.json", "breakdown.py",
        "averaging_breakdown.png"),
    "compression_tradeoff": scenario_figure(
        "compression", "scenarios/compression_resnet50_16gpus_10gbps.json", "compression.py",
        "compression_tradeoff.png"),
    "convergence_fashion_mnist": scenario_figure(
        "convergence_10gbps", "scenarios/convergence_fashion_mnist_16gpus_10gbps.json",
        "convergence.py", "convergence_fashion_mnist.png",
        ["convergence_fashion_mnist_variance.png"]),
    "convergence_schedules_100gbps": scenario_figure(
        "convergence_100gbps", "scenarios/convergence_fashion_mnist_16gpus_100gbps.json",
        "convergence.py", "convergence_schedules_100gbps.png"),
    "convergence_compressors_256gpus": scenario_figure(
        "convergence_256gpus", "scenarios/convergence_fashion_mnist_256gpus_10gbps.json",
        "convergence.py", "convergence_compressors_256gpus.png"),
    "mgwfbp_scaling": Recipe(
        [["sgdsim", "sweep", "studies/mgwfbp_scaling.json", "--csv",
          "{work}/mgwfbp_scaling.csv"],
         ["plots/scaling.py", "{work}/mgwfbp_scaling.csv", "-o", "{work}/mgwfbp_scaling.png"]],
        {name: name for name in ("mgwfbp_scaling.png", "mgwfbp_scaling_efficiency.png",
                                 "mgwfbp_scaling_throughput.png")}),
    # docs/python_api.md draws this with the Python module; the same runs through the CLI:
    # the default scenario (six policies) swept over 4..1024 GPUs.
    "python_api_gpus": Recipe(
        [["derive", "scenarios/default.json", "{work}/default_gpus.json", GPU_SWEEP],
         ["sgdsim", "sweep", "{work}/default_gpus.json", "--csv", "{work}/default_gpus.csv"],
         ["plots/scaling.py", "{work}/default_gpus.csv", "--metric", "iteration", "-o",
          "{work}/python_api_gpus.png"]],
        {"python_api_gpus.png": "python_api_gpus.png"}),
    # README.md: the sharded strategies (and DDP's buckets) of the GPT-2 medium example, swept
    # over 64..1,024 GPUs at 100 and 400 Gb/s per GPU.
    "sharding_gpt2_medium": Recipe(
        [["derive", "scenarios/sharding_gpt2_medium_h100_400gbps.json",
          "{work}/sharding_gpt2.json", SHARDING_SWEEP],
         ["sgdsim", "sweep", "{work}/sharding_gpt2.json", "--csv", "{work}/sharding_gpt2.csv"],
         ["plots/scaling.py", "{work}/sharding_gpt2.csv", "--metric", "iteration", "-o",
          "{work}/sharding_gpt2_medium.png"]],
        {"sharding_gpt2_medium.png": "sharding_gpt2_medium.png"}),
    "study_mgwfbp": study("mgwfbp", ["mgwfbp_efficiency.png", "mgwfbp_gap.png"]),
    "study_adpsgd": study("adpsgd", ["adpsgd_accuracy_loss.png", "adpsgd_variance.png",
                                     "adpsgd_time_to_target.png"]),
    "study_biased_compression": study("biased_compression", ["biased_compression_loss.png",
                                                             "biased_compression_time.png"]),
    "validation_end_to_end": Recipe(
        [["tests/validation/end_to_end.py", "{sgdsim}", "{root}", "--plot",
          "{work}/validation_end_to_end.png"]],
        {"validation_end_to_end.png": "validation_end_to_end.png"}),
}


def manifest(recipes=None):
    """{figure file: recipe name}."""
    recipes = RECIPES if recipes is None else recipes
    return {figure: name for name, recipe in recipes.items() for figure in recipe.outputs}


def referenced(root=ROOT):
    """The figure files README.md and docs/*.md show, sorted."""
    found = set()
    for pattern in DOCUMENTS:
        for path in glob.glob(os.path.join(root, pattern)):
            found |= {os.path.basename(m) for m in FIGURE_REFERENCE.findall(
                tool_io.read_text(path, "document"))}
    return sorted(found)


def files_named(command):
    """The repository files a command names: its script and every scenario, study or CSV word
    that is neither an option nor in {work}."""
    words = command[1:] if command[0] in ("sgdsim", "derive") else command
    return [w for w in words if "{" not in w and not w.startswith("-")
            and w.endswith((".py", ".json", ".sh", ".csv"))]


def check(root=ROOT, recipes=None):
    """The problems with the manifest, one line each: a figure the documents show that no
    recipe makes or that is missing from docs/figures, a file a command names that is missing."""
    recipes = RECIPES if recipes is None else recipes
    made = manifest(recipes)
    problems = [f"{figure}: shown in {' or '.join(DOCUMENTS)} but no recipe in tools/figures.py "
                "makes it" for figure in referenced(root) if figure not in made]
    problems += [f"{figure}: shown in the documents but missing from docs/figures (run "
                 "tools/figures.sh)" for figure in referenced(root)
                 if not os.path.isfile(os.path.join(root, "docs", "figures", figure))]
    for name, recipe in recipes.items():
        for command in recipe.commands:
            problems += [f"recipe {name}: {word}: no such file in the repository"
                         for word in files_named(command)
                         if not os.path.isfile(os.path.join(root, word))]
    return problems


def derive(base, out, changes):
    """Writes the scenario `base` with `changes` over its top-level keys to `out`."""
    scenario = tool_io.read_json(os.path.join(ROOT, base), "scenario")
    scenario.pop("$schema", None)  # its relative path would not resolve from `out`
    scenario["trace"] = os.path.normpath(os.path.join(ROOT, os.path.dirname(base),
                                                      scenario["trace"]))
    scenario.update(tool_io.parse_json("the derive changes", changes))
    tool_io.write_json(out, scenario)


def substitute(word, values):
    """The word with {work}, {sgdsim} and {root} replaced (the JSON of derive keeps its braces)."""
    for placeholder, value in values.items():
        word = word.replace(placeholder, value)
    return word


def run_recipe(name, recipe, sgdsim, work):
    """Runs a recipe's commands from the repository root; True, or False when one exits 77."""
    values = {"{work}": work, "{sgdsim}": sgdsim, "{root}": ROOT}
    for command in recipe.commands:
        words = [substitute(w, values) for w in command]
        if words[0] == "derive":
            derive(*words[1:])
            continue
        program = [sgdsim] if words[0] == "sgdsim" else [sys.executable,
                                                         os.path.join(ROOT, words[0])]
        result = subprocess.run(program + words[1:], cwd=ROOT, capture_output=True, text=True)
        if result.returncode == SKIPPED:
            print(f"figures: warning: {name} skipped ({result.stdout.strip()[-200:]}); "
                  f"{', '.join(recipe.outputs)} keep their old files", file=sys.stderr)
            return False
        if result.returncode != 0:
            tool_io.fail(f"recipe {name}: {' '.join(command)}: exit {result.returncode}: "
                         f"{result.stderr.strip()[-2000:]}")
    return True


def regenerate(sgdsim, out, only):
    unknown = sorted(set(only) - set(manifest()))
    if unknown:
        tool_io.fail(f"--only: no recipe makes {', '.join(unknown)} (see figures.py --list)")
    if not os.path.isfile(sgdsim) or not os.access(sgdsim, os.X_OK):
        tool_io.fail(f"{sgdsim}: no sgdsim binary there (tools/figures.sh builds one)")
    if not os.path.isdir(out):
        tool_io.fail(f"{out}: no such folder")
    wanted = {manifest()[figure] for figure in only} if only else set(RECIPES)
    written = []
    with tempfile.TemporaryDirectory(prefix="sgdsim_figures_") as work:
        for name in (n for n in RECIPES if n in wanted):
            began = time.monotonic()
            if run_recipe(name, RECIPES[name], sgdsim, work):
                written += [(os.path.join(out, figure), os.path.join(work, made))
                            for figure, made in RECIPES[name].outputs.items()
                            if not only or figure in only]
            print(f"figures: {name}: {time.monotonic() - began:.1f} s", file=sys.stderr)
        tool_io.check_outputs([path for path, _ in written])
        tool_io.write_files([(path, copier(made)) for path, made in written])
    for path, _ in written:
        print(f"wrote {path}", file=sys.stderr)


def copier(source):
    def write(out):
        with open(source, "rb") as made:
            out.write(made.read())
    return write


def main(argv):
    parser = tool_io.ArgumentParser(prog="figures.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("sgdsim", nargs="?")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--only", nargs="+", default=[], metavar="FIGURE")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        for figure, name in sorted(manifest().items()):
            print(f"{figure}: " + "; ".join(" ".join(c) for c in RECIPES[name].commands))
        return 0
    if args.check:
        problems = check()
        for problem in problems:
            print(f"figures: {problem}")
        return 1 if problems else 0
    if not args.sgdsim or not args.out:
        tool_io.fail("expected SGDSIM OUT_DIR, --list or --check (see figures.py --help)")
    regenerate(os.path.abspath(args.sgdsim), args.out, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(tool_io.run(main, sys.argv[1:]))
