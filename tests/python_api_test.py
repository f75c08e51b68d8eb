#!/usr/bin/env python3
"""Tests of the Python module: sgdsim.run gives what `sgdsim run --json` writes, sgdsim.sweep the
rows of `sgdsim sweep --csv`, and bad input raises ValueError with the command line's message.
Usage: python_api_test.py MODULE_DIR REPO_ROOT SGDSIM_BINARY (exit 77, skipped, without the module)"""
import copy
import csv
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings

MODULE_DIR, ROOT, SGDSIM = (os.path.abspath(arg) for arg in sys.argv[1:4])
sys.path.insert(0, MODULE_DIR)
sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness import Checks  # noqa: E402

try:
    import sgdsim  # noqa: E402
except ImportError as error:
    print(f"skipped: the sgdsim module was not built ({error}); install pybind11-dev python3-dev")
    sys.exit(77)

CHECKS = Checks("python api")
os.chdir(ROOT)  # scenario paths below are given as on the command line, relative to the root
SCENARIOS = os.path.join(ROOT, "scenarios")


def cli(*args):
    return subprocess.run([SGDSIM, *args], capture_output=True, text=True)


def load(path):
    with open(path, encoding="utf-8") as source:
        return json.load(source)


def raised(call):
    try:
        call()
    except BaseException as error:  # noqa: BLE001 (the checks name the type they expect)
        return error
    return None


def cli_csv_rows(text):
    return list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))


def same_cells(row, cli_row):
    """A module row matches a CLI CSV row: same columns in the same order, numbers equal to the
    printed numbers, text equal to the printed text."""
    if list(row) != list(cli_row):
        return False
    for key, value in row.items():
        cell = cli_row[key]
        if isinstance(value, float) and math.isnan(value) and cell == "":
            continue  # an empty cell (tokens_per_second of a model without sequences) is NaN
        if value is None:
            return False
        elif isinstance(value, str):
            if value != cell:
                return False
        elif float(cell) != value:
            return False
    return True


CHECKS.check("__version__ and __commit__ are the command line's",
             cli("--version").stdout.splitlines()[0]
             == f"sgdsim {sgdsim.__version__} (commit {sgdsim.__commit__})", sgdsim.__version__)


def without_provenance(result):
    """A result without its provenance, whose input paths name where each caller found them (a
    path relative to the CLI's folder, or one under base_dir; digests() compares the rest), and
    without the honest ranges, which `sgdsim run` alone computes (docs/outputs.md: the Python
    API leaves them null)."""
    return {key: value for key, value in (result or {}).items()
            if key != "provenance" and not key.endswith("_range")}


def digests(result):
    return [i["sha256"] for i in (result or {}).get("provenance", {}).get("inputs", [])][-1:]

with tempfile.TemporaryDirectory() as tmp:
    # run on scenarios/default.json equals `sgdsim run scenarios/default.json --json`, value for
    # value; the source name is the path the CLI was given, which the result's scenario_file holds.
    written = os.path.join(tmp, "default_result.json")
    r = cli("run", "scenarios/default.json", "--json", written, "--quiet")
    expected = load(written) if r.returncode == 0 else None
    default = load("scenarios/default.json")
    result = sgdsim.run(default, base_dir=SCENARIOS, source="scenarios/default.json")
    CHECKS.check("run(dict) is the CLI's --json result",
                 without_provenance(result) == without_provenance(expected)
                 and result["provenance"]["scenario"] == expected["provenance"]["scenario"]
                 and result["provenance"]["resolved"]["cluster"]
                 == expected["provenance"]["resolved"]["cluster"],
                 f"exit {r.returncode} {r.stderr}")
    # The dict has no file; the trace it names is the same file, with the same digest.
    CHECKS.check("run(dict) names the same trace digest as the CLI",
                 digests(result) == digests(expected) != [], str(digests(result)))
    CHECKS.check("run keeps the result's key order", list(result) == list(expected or {}))
    from_file = sgdsim.run_file(os.path.join(SCENARIOS, "default.json"))
    CHECKS.check("run_file is the CLI's --json result",
                 without_provenance(from_file) == without_provenance(
                     dict(expected or {}, scenario_file=from_file["scenario_file"]))
                 and [i["sha256"] for i in from_file["provenance"]["inputs"]]
                 == [i["sha256"] for i in expected["provenance"]["inputs"]])
    # default.json lists 6 merge policies and no compressors: 6 policy entries.
    CHECKS.check("run simulates every policy of default.json", len(result["policies"]) == 6,
                 str(len(result["policies"])))
    unnamed = sgdsim.run(default, base_dir=SCENARIOS)
    CHECKS.check("a dict without a source is named <dict>", unnamed["scenario_file"] == "<dict>",
                 unnamed["scenario_file"])

    # The scenario is a copy: run never changes the caller's dict.
    before = copy.deepcopy(default)
    sgdsim.run(default, base_dir=SCENARIOS)
    CHECKS.check("run leaves the scenario dict unchanged", default == before)

    # More GPUs on the same 10 Gbps ring: each message's startup, 2(p-1) alpha, grows with p, so
    # WFBP's iteration (first policy, "none") at 128 GPUs is longer than at 64.
    bigger = copy.deepcopy(default)
    bigger["cluster"]["gpus"] = 128
    wider = sgdsim.run(bigger, base_dir=SCENARIOS)
    CHECKS.check("a dict edited in Python is simulated as edited",
                 wider["gpus"] == 128 and wider["policies"][0]["iteration_us"]
                 > result["policies"][0]["iteration_us"])

    # Sweep: sweep_resnet50_gpus.json sweeps cluster.gpus from 4 to 1024 times 2 (4, 8, ..., 1024:
    # 9 values) and communication.merge.policy over 3 policies, each point running the one policy
    # it sets: 9 x 3 = 27 points x 1 policy = 27 rows, as many as the CLI's CSV has.
    sweep_path = "scenarios/sweep_resnet50_gpus.json"
    sweep_scenario = load(sweep_path)
    grid = 9 * 3
    r = cli("sweep", sweep_path, "--threads", "1")
    cli_rows = cli_csv_rows(r.stdout) if r.returncode == 0 else []
    rows = sgdsim.sweep(sweep_scenario, base_dir=SCENARIOS, source=sweep_path)
    CHECKS.check("the sweep has one row per point and policy", len(rows) == grid == len(cli_rows),
                 f"{len(rows)} rows, CLI {len(cli_rows)}, exit {r.returncode} {r.stderr}")
    CHECKS.check("sweep rows are the CLI's CSV rows, column for column",
                 len(rows) == len(cli_rows) and all(map(same_cells, rows, cli_rows)),
                 f"{rows[:1]} vs {cli_rows[:1]}")
    CHECKS.check("swept values keep their JSON type",
                 [row["cluster.gpus"] for row in rows[::3]] == [4 * 2**i for i in range(9)])
    # Rows hold NaN for empty cells, which is not equal to itself: compared as JSON text.
    CHECKS.check("sweep on 2 threads gives the same rows in the same order",
                 json.dumps(sgdsim.sweep(sweep_scenario, base_dir=SCENARIOS, threads=2,
                                         source=sweep_path)) == json.dumps(rows))
    CHECKS.check("sweep_file gives the same rows",
                 json.dumps(sgdsim.sweep_file(sweep_path)) == json.dumps(rows))

    # Bad input raises InputError, a ValueError, whose text is what the CLI prints after
    # "sgdsim: error: " for the same scenario written to a file.
    def same_error_as_cli(what, scenario, verb="run"):
        # The file lies in a temporary folder, so its trace path is made absolute for both.
        scenario = dict(scenario, trace=os.path.join(SCENARIOS, scenario["trace"]))
        path = os.path.join(tmp, "bad.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(scenario, out)
        call = sgdsim.run if verb == "run" else sgdsim.sweep
        error = raised(lambda: call(scenario, base_dir=SCENARIOS, source=path))
        r = cli(verb, path)
        CHECKS.check(f"{what} raises InputError, a ValueError",
                     isinstance(error, sgdsim.InputError) and isinstance(error, ValueError),
                     repr(error))
        CHECKS.check(f"{what} carries the CLI's message",
                     r.returncode == 2 and r.stderr == f"sgdsim: error: {error}\n",
                     f"exit {r.returncode}: {r.stderr!r} vs {str(error)!r}")
        return error

    unknown = copy.deepcopy(default)
    unknown["cluster"]["gpu"] = 64
    same_error_as_cli("an unknown key", unknown)
    wrong_type = copy.deepcopy(default)
    wrong_type["cluster"]["gpus"] = "64"
    error = same_error_as_cli("a value of the wrong type", wrong_type)
    CHECKS.check("the wrong-type message names the path, the expectation and the value",
                 str(error).startswith(os.path.join(tmp, "bad.json") + ": cluster.gpus: expected ")
                 and str(error).endswith(', found "64"'), str(error))
    same_error_as_cli("sweeping a scenario without a sweep", default, verb="sweep")

    # Values JSON cannot hold are refused by the module itself, in the same message shape.
    not_json = copy.deepcopy(default)
    not_json["cluster"]["gpus"] = {64}
    error = raised(lambda: sgdsim.run(not_json, base_dir=SCENARIOS))
    CHECKS.check("a Python set is refused with its path", str(error) == (
        "<dict>: cluster.gpus: expected a JSON value (dict, list, str, int, float, bool or None), "
        "found a Python set") and isinstance(error, ValueError), repr(error))
    not_finite = copy.deepcopy(default)
    not_finite["network"]["bandwidth_gbps"] = float("nan")
    error = raised(lambda: sgdsim.run(not_finite, base_dir=SCENARIOS))
    CHECKS.check("a NaN is refused", str(error) ==
                 "<dict>: network.bandwidth_gbps: expected a finite number, found nan", repr(error))
    error = raised(lambda: sgdsim.sweep(sweep_scenario, base_dir=SCENARIOS, threads=-1))
    CHECKS.check("a negative thread count is refused", isinstance(error, ValueError) and str(error)
                 == "threads: expected 0 (all cores) or a count from 1 to 1024, found -1", repr(error))
    error = raised(lambda: sgdsim.run_file(os.path.join(tmp, "missing.json")))
    CHECKS.check("a missing file is an InputError",
                 isinstance(error, sgdsim.InputError) and str(error)
                 == f"{os.path.join(tmp, 'missing.json')}: cannot open file: no such file",
                 repr(error))

    # The GIL is released while simulating, and Ctrl-C stops a run or a sweep, points in flight
    # included: a helper thread, which can run only while the GIL is free, sends SIGINT once the
    # call has begun, and the call must end in KeyboardInterrupt. Left alone, each call below
    # would simulate for about an hour (per_rank: 2^20 GPUs x 100,000 iterations, about 3e7
    # GPU-iterations a second) before returning, so a held GIL or an ignored signal ends in the
    # test's hang guard, a failure; no clock is read.
    def interrupted(call):
        began = threading.Event()

        def interrupt():
            began.wait()
            for _ in range(100):  # yields, so that the main thread is inside the call
                time.sleep(0)
            os.kill(os.getpid(), signal.SIGINT)

        helper = threading.Thread(target=interrupt)
        helper.start()
        began.set()
        error = raised(call)
        try:
            helper.join()
        except KeyboardInterrupt:  # the signal came after the call returned
            pass
        return error

    endless = {"iterations": 100000, "fidelity": "per_rank",
               "communication": {"merge": {"policy": "none"}}}
    slow = dict(sweep_scenario, **endless, sweep={"cluster.gpus": [1 << 20, (1 << 20) - 4]})
    error = interrupted(lambda: sgdsim.sweep(slow, base_dir=SCENARIOS, threads=2))
    CHECKS.check("Ctrl-C interrupts a sweep while Python runs beside it",
                 isinstance(error, KeyboardInterrupt), repr(error))
    long_run = copy.deepcopy(default)
    long_run.update(endless)
    long_run["cluster"] = {"gpus": 1 << 20, "gpus_per_node": 4}
    error = interrupted(lambda: sgdsim.run(long_run, base_dir=SCENARIOS))
    CHECKS.check("Ctrl-C interrupts a run while Python runs beside it",
                 isinstance(error, KeyboardInterrupt), repr(error))
    CHECKS.check("a run after an interrupted one still works",
                 sgdsim.run(default, base_dir=SCENARIOS) == unnamed)

    # Nesting is bounded as in files (64 levels), so a deep or self-containing value is an
    # InputError, not a crash of the interpreter (SIGSEGV) or gigabytes of memory.
    deep = copy.deepcopy(default)
    deep["sweep"] = {"cluster.gpus": [4]}
    for _ in range(20000):
        deep["sweep"]["cluster.gpus"] = [deep["sweep"]["cluster.gpus"]]
    error = raised(lambda: sgdsim.run(deep, base_dir=SCENARIOS))
    CHECKS.check("a list nested 20,000 deep is refused",
                 isinstance(error, sgdsim.InputError)
                 and "nested deeper than 64 levels at sweep.cluster.gpus[0]" in str(error),
                 repr(error)[:300])
    looped = copy.deepcopy(default)
    looped["network"]["self"] = looped
    error = raised(lambda: sgdsim.run(looped, base_dir=SCENARIOS))
    CHECKS.check("a dict that contains itself is refused",
                 isinstance(error, sgdsim.InputError) and "does a dict or list contain itself?"
                 in str(error), repr(error)[:300])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sgdsim.run(sweep_scenario, base_dir=SCENARIOS)
    CHECKS.check("run on a scenario with a sweep warns like the CLI's note",
                 [str(w.message) for w in caught] == ["this scenario has a sweep; sgdsim.run runs its "
                                                      "base point and sgdsim.sweep runs the grid"])

    # 1e11 "Gbit/s" is 100 Gbit/s given in bit/s: it runs, with the CLI's warning as a
    # UserWarning; a sweep over it warns once, for its swept value.
    slipped = copy.deepcopy(default)
    slipped["network"]["bandwidth_gbps"] = 1e11
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sgdsim.run(slipped, base_dir=SCENARIOS, source="slip.json")
        sgdsim.sweep(dict(default, sweep={"network.bandwidth_gbps": [1e11]}), base_dir=SCENARIOS,
                     source="swept.json")
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    CHECKS.check("implausible values warn as UserWarning, with the key and the likely slip",
                 len(messages) == 2
                 and messages[0].startswith("slip.json: network.bandwidth_gbps: 1e+11 Gbit/s")
                 and messages[1].startswith("swept.json: sweep.network.bandwidth_gbps[0]: 1e+11")
                 and all("(100 Gbit/s)?" in m for m in messages), str(messages))

    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        numbers = copy.deepcopy(default)
        numbers["cluster"]["gpus"] = numpy.int64(64)
        numbers["network"]["bandwidth_gbps"] = numpy.float64(10.0)
        CHECKS.check("numpy scalars are read as JSON numbers",
                     sgdsim.run(numbers, base_dir=SCENARIOS) == unnamed)

    try:
        import pandas
    except ImportError:
        pandas = None
        print("note: python3-pandas is not installed; the DataFrame check was skipped")
    if pandas is not None:
        frame = pandas.DataFrame(rows)
        csv_path = os.path.join(tmp, "sweep.csv")
        cli("sweep", sweep_path, "--csv", csv_path)
        from_cli = pandas.read_csv(csv_path, comment="#", float_precision="round_trip")
        CHECKS.check("pandas.DataFrame(rows) equals pandas.read_csv of the CLI's CSV",
                     frame.equals(from_cli), f"{frame.dtypes}\n{from_cli.dtypes}")

CHECKS.finish()
