#!/usr/bin/env python3
"""Runs every plot script on real sgdsim output and checks that each writes a PNG with content,
and that every kind of bad input (unreadable, binary or malformed files, missing fields, values
out of range, outputs that cannot be written or would overwrite an input) ends as one "error:"
line and exit 2 without leaving a file behind. Skips (exit 77) when matplotlib is
not installed.
Usage: plots_test.py SGDSIM_BINARY REPO_ROOT"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, check_refusals, module_or_skip  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("plots")
module_or_skip("matplotlib", "python3-matplotlib", load=False)
PLOTS = os.path.join(ROOT, "plots")


def plot(script, *args):
    return subprocess.run([sys.executable, os.path.join(PLOTS, script), *args], capture_output=True,
                          text=True)


def is_png(path):
    with open(path, "rb") as image:
        return image.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10_000


# The bad-input table: every plot script fed input it must refuse. Each case runs in a fresh
# folder holding the files it names and asserts exit 2, one line "SCRIPT: error: ..." with the
# phrase, no traceback, and no file created, changed or removed there.
SCALING, BREAKDOWN, COMPRESSION, GANTT = "scaling.py", "breakdown.py", "compression.py", "gantt.py"
CONVERGENCE = "convergence.py"


def json_with(name, change):
    """A file the fixtures hold, after change(document) edited it in place; "NaN-here" becomes a
    bare NaN, which JSON does not allow."""
    def content(fixtures):
        document = json.loads(fixtures[name])
        change(document)
        return json.dumps(document).replace('"NaN-here"', "NaN")
    return content


def csv_with(column, value):
    """The sweep CSV (plain: its first row on line 2) with one cell of that row replaced."""
    def content(fixtures):
        lines = plain(fixtures["sweep.csv"]).splitlines(keepends=True)
        header = next(csv.reader([lines[0]]))
        row = next(csv.reader([lines[1]]))
        row[header.index(column)] = value
        lines[1] = ",".join(row) + "\n"
        return "".join(lines)
    return content


def fixture(name):
    return lambda fixtures: fixtures[name]


def plain(text):
    """A sweep CSV without the comment line older versions of sgdsim put first, whichever this
    one writes: the header on line 1, the first row on line 2."""
    return text.split("\n", 1)[1] if text.startswith("#") else text


COMMENT = "# sgdsim-sweep-csv schema_version=1 points=27\n"  # what older versions put first


def header_only(fixtures):
    return plain(fixtures["sweep.csv"]).split("\n", 1)[0] + "\n"


def first_row_short(comment):
    def content(fixtures):
        lines = plain(fixtures["sweep.csv"]).splitlines(keepends=True)
        lines[1] = lines[1].rsplit(",", 1)[0] + "\n"  # the first row loses its last field
        return comment + "".join(lines)
    return content


def first_event(kind, change):
    """Edits the first timeline event of the given phase ("M" or "X")."""
    return lambda timeline: change(next(e for e in timeline["traceEvents"] if e["ph"] == kind))


SWEEP = {"s.csv": fixture("sweep.csv")}
RESULT = {"r.json": fixture("result.json")}
TIMELINE = {"t.json": fixture("timeline.json")}
OUT = ["-o", "o.png"]

# (what, script, arguments, {file: text, bytes, a function of the fixtures, ("link", target) or
#  ("folder",)}, phrase in the message)
CASES = [
    # scaling.py: inputs.
    ("scaling of a missing CSV", SCALING, ["nope.csv", *OUT], {}, "nope.csv: cannot read"),
    ("scaling of a folder", SCALING, [".", *OUT], {}, ".: cannot read"),
    ("scaling of a file with NUL bytes", SCALING, ["b.csv", *OUT],
     {"b.csv": b"gpus,policy\n\x00\x00\n"}, "b.csv: contains NUL bytes"),
    ("scaling of a Latin-1 CSV", SCALING, ["s.csv", *OUT],
     {"s.csv": lambda f: f["sweep.csv"].replace("resnet50", "r\xe9snet50").encode("latin-1")},
     "s.csv: not UTF-8 text"),
    ("scaling of an empty CSV", SCALING, ["s.csv", *OUT], {"s.csv": ""}, "s.csv: empty"),
    ("scaling of a header without rows", SCALING, ["s.csv", *OUT], {"s.csv": header_only},
     "s.csv: no rows to plot"),
    ("scaling of a CSV without the needed columns", SCALING, ["s.csv", *OUT],
     {"s.csv": "gpus,policy\n4,none\n"}, "missing column(s) compression, bandwidth_gbps, model"),
    ("scaling of a speedup written as a word", SCALING, ["s.csv", *OUT],
     {"s.csv": csv_with("speedup", "fast")}, "s.csv:2: column speedup: expected a finite number"),
    ("scaling of a NaN speedup", SCALING, ["s.csv", *OUT], {"s.csv": csv_with("speedup", "nan")},
     "column speedup: expected a finite number >= 0, found 'nan'"),
    ("scaling of an infinite throughput", SCALING, ["s.csv", *OUT],
     {"s.csv": csv_with("samples_per_second", "inf")}, "column samples_per_second"),
    # 1,048,576 = 2^20, sgdsim's limit on cluster.gpus.
    ("scaling of 0 GPUs", SCALING, ["s.csv", *OUT], {"s.csv": csv_with("gpus", "0")},
     "column gpus: expected an integer from 1 to 1048576, found '0'"),
    ("scaling with an unknown metric", SCALING, ["s.csv", *OUT, "--metric", "latency"], SWEEP,
     "argument --metric: invalid choice: 'latency'"),
    # scaling.py: outputs.
    ("scaling to a GIF", SCALING, ["s.csv", "-o", "o.gif"], SWEEP, "o.gif: the output must end in"),
    ("scaling into a missing folder", SCALING, ["s.csv", "-o", "no/o.png"], SWEEP,
     "no/o.png: cannot write: no folder"),
    ("scaling onto a folder", SCALING, ["s.csv", *OUT], {**SWEEP, "o.png": ("folder",)},
     "o.png: is a folder"),
    ("scaling over its input", SCALING, ["s.png", "-o", "s.png"], {"s.png": fixture("sweep.csv")},
     "s.png: is also an input of this script"),
    ("scaling whose efficiency figure would overwrite its input", SCALING,
     ["o_efficiency.png", *OUT], {"o_efficiency.png": fixture("sweep.csv")},
     "o_efficiency.png: is also an input of this script"),
    ("scaling onto a full device", SCALING, ["s.csv", "-o", "full.png", "--metric", "speedup"],
     {**SWEEP, "full.png": ("link", "/dev/full")}, "full.png: cannot write: No space left"),
    # /proc takes no new files, not even from root.
    ("scaling into /proc", SCALING, ["s.csv", "-o", "/proc/o.png"], SWEEP,
     "/proc/o.png: cannot write"),
    # breakdown.py.
    ("breakdown of a missing file", BREAKDOWN, ["nope.json", *OUT], {}, "nope.json: cannot read"),
    ("breakdown of a binary file", BREAKDOWN, ["r.json", *OUT],
     {"r.json": b"\x7fELF\x02\x01\x01\xff\xfe"}, "r.json: not UTF-8 text"),
    ("breakdown of truncated JSON", BREAKDOWN, ["r.json", *OUT],
     {"r.json": lambda f: f["result.json"][:1000]}, "r.json: malformed JSON at line"),
    ("breakdown of a JSON array", BREAKDOWN, ["r.json", *OUT], {"r.json": "[1, 2]"},
     "r.json: the top level: expected an object, found [1, 2]"),
    ("breakdown of a timeline", BREAKDOWN, ["t.json", *OUT], TIMELINE,
     "expected an sgdsim file of format 'sgdsim-result', found \"sgdsim-timeline\""),
    ("breakdown of no policies", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json", lambda r: r.update(policies=[]))},
     "r.json: policies: expected a non-empty array of objects, found []"),
    ("breakdown of a policy without compute time", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json", lambda r: r["policies"][1].pop("compute_us"))},
     "r.json: policies[1].compute_us: missing"),
    ("breakdown of a NaN time", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json", lambda r: r["policies"][0].update(compute_us="NaN-here"))},
     "NaN is not a JSON number"),
    ("breakdown of a time of 1e400 (beyond a double)", BREAKDOWN, ["r.json", *OUT],
     {"r.json": lambda f: f["result.json"].replace('"compute_us": ', '"compute_us": 1e400', 1)},
     "beyond a double"),
    ("breakdown of a negative exposed time", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json",
                          lambda r: r["policies"][0].update(exposed_communication_us=-1))},
     "policies[0].exposed_communication_us: expected a finite number >= 0, found -1"),
    ("breakdown of averaging over 0 iterations", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json", lambda r: r["averaging"].update(run_iterations=0))},
     "averaging.run_iterations: expected an integer from 1"),
    ("breakdown of GPUs written as a word", BREAKDOWN, ["r.json", *OUT],
     {"r.json": json_with("result.json", lambda r: r.update(gpus="four"))},
     'r.json: gpus: expected an integer from 1 to 1048576, found "four"'),
    # Nested 100,000 deep: past Python's recursion limit of 1,000.
    ("breakdown of JSON nested 100,000 deep", BREAKDOWN, ["r.json", *OUT],
     {"r.json": "[" * 100000 + "]" * 100000}, "nested too deeply"),
    ("breakdown to a GIF", BREAKDOWN, ["r.json", "-o", "o.gif"], RESULT, "o.gif: the output must"),
    ("breakdown over its input", BREAKDOWN, ["r.png", "-o", "r.png"],
     {"r.png": fixture("result.json")}, "r.png: is also an input of this script"),
    ("breakdown over its input through a link", BREAKDOWN, ["r.json", "-o", "link.png"],
     {**RESULT, "link.png": ("link", "r.json")}, "link.png: is also an input of this script"),
    ("breakdown into a missing folder", BREAKDOWN, ["r.json", "-o", "no/o.png"], RESULT,
     "no/o.png: cannot write: no folder"),
    ("breakdown into /proc", BREAKDOWN, ["r.json", "-o", "/proc/o.png"], RESULT,
     "/proc/o.png: cannot write"),
    # compression.py.
    ("compression of a missing file", COMPRESSION, ["nope.csv", *OUT], {}, "nope.csv: cannot read"),
    ("compression of a CSV without bytes sent", COMPRESSION, ["c.csv", *OUT],
     {"c.csv": "gpus,compression,iteration_us\n4,none,100\n"},
     "missing column(s) bytes_sent_per_gpu"),
    ("compression of negative bytes sent", COMPRESSION, ["s.csv", *OUT],
     {"s.csv": csv_with("bytes_sent_per_gpu", "-1")}, "s.csv:2: column bytes_sent_per_gpu"),
    ("compression of a header without rows", COMPRESSION, ["s.csv", *OUT], {"s.csv": header_only},
     "s.csv: no rows to plot"),
    ("compression of a policy without a compressor", COMPRESSION, ["c.json", *OUT],
     {"c.json": json_with("compression.json", lambda r: r["policies"][0].pop("compression"))},
     "c.json: policies[0].compression: missing"),
    ("compression of a Latin-1 result", COMPRESSION, ["c.json", *OUT],
     {"c.json": lambda f: f["compression.json"].replace("resnet50", "r\xe9snet50").encode(
         "latin-1")}, "c.json: not UTF-8 text"),
    ("compression into a folder that is a file", COMPRESSION, ["s.csv", "-o", "s.csv/o.png"],
     SWEEP, "s.csv/o.png: cannot write: no folder"),
    ("compression onto a folder", COMPRESSION, ["s.csv", *OUT], {**SWEEP, "o.png": ("folder",)},
     "o.png: is a folder"),
    # convergence.py.
    ("convergence of a result without a convergence section", CONVERGENCE, ["r.json", *OUT],
     RESULT, "r.json: convergence: none (run a scenario with a convergence section)"),
    ("convergence of a curve point without its time", CONVERGENCE, ["c.json", *OUT],
     {"c.json": json_with("convergence.json", lambda r: r["convergence"]["configurations"][0][
         "curve"][0].pop("time_us"))},
     "c.json: convergence.configurations[0].curve[0].time_us: missing"),
    ("convergence of a target that is neither accuracy nor loss", CONVERGENCE, ["c.json", *OUT],
     {"c.json": json_with("convergence.json", lambda r: r["convergence"].update(target="f1"))},
     "c.json: convergence.target: expected \"accuracy\" or \"loss\", found 'f1'"),
    # gantt.py.
    ("Gantt of an empty timeline", GANTT, ["t.json", *OUT],
     {"t.json": json_with("timeline.json", lambda t: t.update(traceEvents=[]))},
     "t.json: traceEvents: expected a non-empty array of objects, found []"),
    ("Gantt of a timeline without policy names", GANTT, ["t.json", *OUT],
     {"t.json": json_with("timeline.json", lambda t: t.update(
         traceEvents=[e for e in t["traceEvents"] if e["ph"] != "M"]))},
     "t.json: traceEvents: no process_name event"),
    ("Gantt of an event without a phase", GANTT, ["t.json", *OUT],
     {"t.json": json_with("timeline.json", lambda t: t["traceEvents"][0].pop("ph"))},
     "t.json: traceEvents[0].ph: missing"),
    ("Gantt of a span whose start is text", GANTT, ["t.json", *OUT],
     {"t.json": json_with("timeline.json", first_event("X", lambda e: e.update(ts="soon")))},
     '.ts: expected a finite number >= 0, found "soon"'),
    ("Gantt of a timeline without its GPU count", GANTT, ["t.json", *OUT],
     {"t.json": json_with("timeline.json", lambda t: t["otherData"].pop("gpus"))},
     "t.json: otherData.gpus: missing"),
    ("Gantt of a result", GANTT, ["r.json", *OUT], RESULT,
     "expected an sgdsim file of format 'sgdsim-timeline'"),
    ("Gantt of JSON with NUL bytes", GANTT, ["t.json", *OUT], {"t.json": b'{"a": \x00}'},
     "t.json: contains NUL bytes"),
    ("Gantt of 0 policies", GANTT, ["t.json", *OUT, "--policies", "0"], TIMELINE,
     "--policies must be at least 1, found 0"),
    ("Gantt of policies written as a word", GANTT, ["t.json", *OUT, "--policies", "all"], TIMELINE,
     "argument --policies: invalid int value: 'all'"),
    ("Gantt onto a folder", GANTT, ["t.json", *OUT], {**TIMELINE, "o.png": ("folder",)},
     "o.png: is a folder"),
    ("Gantt into /proc", GANTT, ["t.json", "-o", "/proc/o.svg"], TIMELINE,
     "/proc/o.svg: cannot write"),
    ("Gantt titled from a timeline instead of a result", GANTT,
     ["t.json", *OUT, "--result", "t.json"], TIMELINE,
     "t.json: expected an sgdsim file of format 'sgdsim-result'"),
    ("Gantt titled from a result without its model", GANTT, ["t.json", *OUT, "--result", "r.json"],
     {**TIMELINE, "r.json": json_with("result.json", lambda r: r.pop("model"))},
     "r.json: model: missing"),
]


with tempfile.TemporaryDirectory() as tmp:
    def sgdsim(*args):
        return subprocess.run([SGDSIM, *args], cwd=ROOT, capture_output=True, text=True)

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
    # A job inside one node without a network (null network figures; a sweep's empty cells):
    # its breakdown and its scaling over the node's GPUs draw, titled without a network.
    one_node = os.path.join(tmp, "one_node.json")
    with open(one_node, "w", encoding="utf-8") as f:
        json.dump({"trace": os.path.join(ROOT, "tests", "data", "four_layers.json"),
                   "cluster": {"gpus": 4, "node": "geforce_pcie3_4gpu"},
                   "sweep": {"cluster.gpus": [1, 2, 4]}}, f)
    one_result, one_csv = os.path.join(tmp, "one_result.json"), os.path.join(tmp, "one.csv")
    sgdsim("run", one_node, "-q", "--json", one_result)
    sgdsim("sweep", one_node, "--csv", one_csv)
    r = plot("breakdown.py", one_result, "-o", os.path.join(tmp, "one_breakdown.png"))
    s = plot("scaling.py", one_csv, "-o", os.path.join(tmp, "one_scaling.png"))
    CHECKS.check("a one-node job without a network: breakdown and scaling draw",
                 r.returncode == 0 and is_png(os.path.join(tmp, "one_breakdown.png"))
                 and s.returncode == 0 and is_png(os.path.join(tmp, "one_scaling.png")),
                 r.stderr + s.stderr)
    # A sweep of two nodes and the GPU count: one line per node, not one line through both
    # nodes' points (which zig-zags at each GPU count). The two presets differ at 4 GPUs: one
    # PCIe switch of four GeForce cards copying through its one uplink to host memory, against
    # four root ports; at 1 GPU they are the same point.
    nodes = os.path.join(tmp, "nodes.json")
    with open(nodes, "w", encoding="utf-8") as f:
        json.dump({"trace": os.path.join(ROOT, "tests", "data", "four_layers.json"),
                   "cluster": {"gpus": 4, "node": "geforce_pcie3_4gpu"},
                   "communication": {"merge": {"policy": ["none", "all"]}},
                   "sweep": {"cluster.node": ["geforce_pcie3_4gpu", "geforce_pcie3_2socket_4gpu"],
                             "cluster.gpus": [1, 2, 4]}}, f)
    nodes_csv = os.path.join(tmp, "nodes.csv")
    sgdsim("sweep", nodes, "--csv", nodes_csv)
    sys.path.insert(0, PLOTS)
    import scaling  # noqa: E402  (plots/scaling.py, for the series it draws)
    swept = scaling.swept_columns(nodes_csv)
    rows = scaling.read_csv(nodes_csv, scaling.COLUMNS,
                            {**scaling.OPTIONAL, **{c: scaling.text_cell for c in swept}})
    columns = scaling.splitting(rows, swept, True)
    series = scaling.panel_series(rows, True, columns)
    CHECKS.check("a swept node splits each policy's line, one point per GPU count on each",
                 swept == ["cluster.node"] and columns == ["cluster.node"]
                 and sorted(series) == sorted((policy, (node,)) for policy in ("none", "all")
                                              for node in ("geforce_pcie3_4gpu",
                                                           "geforce_pcie3_2socket_4gpu"))
                 and all([g for g, _ in points] == [1, 2, 4] for points in series.values()),
                 f"{swept} {columns} {sorted(series)}")
    alone = [r for r in rows if r["cluster.node"] == "geforce_pcie3_4gpu"]
    columns = scaling.splitting(alone, swept, True)
    series = scaling.panel_series(alone, True, columns)
    CHECKS.check("one node's rows alone: no split, one line a policy",
                 columns == [] and sorted(series) == [("all", ()), ("none", ())], str(series))
    r = plot("scaling.py", nodes_csv, "-o", os.path.join(tmp, "nodes.png"))
    CHECKS.check("the split lines draw", r.returncode == 0 and is_png(os.path.join(tmp, "nodes.png")),
                 r.stderr)
    CHECKS.check("a legend names each node's line",
                 scaling.setting_text("cluster.node", "geforce_pcie3_4gpu")
                 == "node=geforce_pcie3_4gpu"
                 and scaling.setting_text("network", '{"bandwidth_gbps":100,"transport":"rdma"}')
                 == "bandwidth_gbps=100 transport=rdma", "")
    compression = os.path.join(tmp, "compression.json")
    sgdsim("run", "scenarios/compression_resnet50_16gpus_10gbps.json", "-q", "--json", compression)
    r = plot("compression.py", compression, "-o", os.path.join(tmp, "compression.png"))
    CHECKS.check("compression trade-off", r.returncode == 0 and is_png(os.path.join(tmp, "compression.png")),
          r.stderr)
    # A small convergence run: the synthetic task timed with the four-layer trace.
    convergence_scenario = os.path.join(tmp, "convergence_scenario.json")
    with open(convergence_scenario, "w", encoding="utf-8") as f:
        json.dump({"trace": os.path.join(ROOT, "tests", "data", "four_layers.json"),
                   "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 1},
                   "communication": {"merge": {"policy": "all"}, "averaging": {
                       "run_iterations": 200, "schedules": [
                           {"schedule": "every_iteration"}, {"schedule": "constant", "period": 8}]}},
                   "convergence": {"task": "synthetic_logistic", "target": {"accuracy": 0.7},
                                   "workers": 4, "batch": 16, "learning_rate": 0.5,
                                   "evaluate_every": 5}}, f)
    convergence = os.path.join(tmp, "convergence.json")
    r = sgdsim("run", convergence_scenario, "-q", "--json", convergence)
    r = plot("convergence.py", convergence, "-o", os.path.join(tmp, "convergence.png"))
    CHECKS.check("convergence against time, and the variance figure beside it",
                 r.returncode == 0 and is_png(os.path.join(tmp, "convergence.png"))
                 and is_png(os.path.join(tmp, "convergence_variance.png")), r.stderr)
    timeline = os.path.join(tmp, "timeline.json")
    sgdsim("run", "scenarios/default.json", "-q", "--timeline", timeline)
    r = plot("gantt.py", timeline, "-o", os.path.join(tmp, "gantt.svg"))
    CHECKS.check("Gantt view as SVG", r.returncode == 0 and os.path.getsize(os.path.join(tmp, "gantt.svg")) > 10_000,
          r.stderr)
    r = plot("gantt.py", timeline, "--result", result, "-o", os.path.join(tmp, "gantt.png"))
    CHECKS.check("Gantt view titled from the run's result",
                 r.returncode == 0 and is_png(os.path.join(tmp, "gantt.png")), r.stderr)
    with open(sweep_csv, encoding="utf-8") as source:
        text = plain(source.read())
    for what, name, content in [("without", "plain.csv", text),
                                ("with", "commented.csv", COMMENT + text)]:
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as out:
            out.write(content)
        r = plot("scaling.py", os.path.join(tmp, name), "--metric", "iteration", "-o",
                 os.path.join(tmp, f"iteration_{name}.png"))
        CHECKS.check(f"iteration time against GPUs from a sweep CSV {what} a leading comment",
                     r.returncode == 0 and is_png(os.path.join(tmp, f"iteration_{name}.png")),
                     r.stderr)

    r = plot("breakdown.py", result, "-o", os.path.join(tmp, "never.gif"))
    CHECKS.check("an unsupported output format: exit 2", r.returncode == 2, r.stderr)

    fixtures = {name: open(os.path.join(tmp, name), encoding="utf-8").read()
                for name in ("sweep.csv", "result.json", "compression.json", "timeline.json",
                             "convergence.json")}
    # A row one field short: the message counts the header's fields (the sweep's 2 swept keys,
    # then sgdsim's columns, however many this version writes); the first row is line 2, or
    # line 3 after a leading comment line.
    fields = len(next(csv.reader([plain(fixtures["sweep.csv"]).split("\n", 1)[0]])))
    CASES += [
        ("scaling of a short row", SCALING, ["s.csv", *OUT], {"s.csv": first_row_short("")},
         f"s.csv:2: {fields - 1} fields where the header has {fields}"),
        ("scaling of a short row after a comment line", SCALING, ["s.csv", *OUT],
         {"s.csv": first_row_short(COMMENT)},
         f"s.csv:3: {fields - 1} fields where the header has {fields}")]
    check_refusals(CHECKS, CASES, lambda script: os.path.join(PLOTS, script),
                   lambda files: {name: content(fixtures) if callable(content) else content
                                  for name, content in files.items()})
    # The validation report's figure goes through the same checks, before it reads any data
    # (so these run without ../shared/reference too).
    validation = os.path.join(ROOT, "tests", "validation")
    check_refusals(CHECKS, [
        ("the validation figure to a GIF", "end_to_end.py", [SGDSIM, ROOT, "--plot", "v.gif"], {},
         "v.gif: the output must end in"),
        ("the validation figure into a missing folder", "end_to_end.py",
         [SGDSIM, ROOT, "--plot", "no/v.png"], {}, "no/v.png: cannot write: no folder "),
    ], lambda script: os.path.join(validation, script), lambda files: files)
    scripts = {name for name in os.listdir(PLOTS)
               if name.endswith(".py") and name not in ("common.py", "style.py")}
    CHECKS.check("every plot script has bad-input cases",
                 scripts <= {os.path.basename(case[1]) for case in CASES}, sorted(scripts))

CHECKS.finish()
