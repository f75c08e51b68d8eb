#!/usr/bin/env python3
"""Outputs scripts can read: every CSV sgdsim writes is read by pandas.read_csv with its header
on the first line; every example scenario's result JSON validates against the committed result
schema (docs/result.schema.json, equal to `sgdsim schema --result`); provenance names each
input with its SHA-256 and the resolved scenario; bandwidth as set beside goodput; tokens/s for
sequence models; per_rank percentiles and the slowest rank; the averaging table's time to
target from a convergence run; plausibility warnings; "did you mean" for a misspelt command.
Usage: outputs_test.py SGDSIM_BINARY REPO_ROOT"""
import csv
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, module_or_skip  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
jsonschema = module_or_skip("jsonschema", "python3-jsonschema")
pandas = module_or_skip("pandas", "python3-pandas")

CHECKS = Checks("outputs")
# Examples that train a model for tens of seconds or run 16,384 GPUs at flow level: their
# results have the same shape as the others'; the golden and studies tests run them.
HEAVY = ("convergence_", "stress_")


def sgdsim(*args, cwd=ROOT):
    return subprocess.run([SGDSIM, *args], cwd=cwd, capture_output=True, text=True)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


with open(os.path.join(ROOT, "docs", "result.schema.json"), encoding="utf-8") as f:
    committed = json.load(f)
r = sgdsim("schema", "--result")
CHECKS.check("docs/result.schema.json equals `sgdsim schema --result` (regenerate it with "
             "tools/update_reference.sh)", r.returncode == 0 and json.loads(r.stdout) == committed,
             r.stderr)
validator = jsonschema.Draft202012Validator(committed)
fields = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "result_fields.py"),
                         os.path.join(ROOT, "docs", "result.schema.json")],
                        capture_output=True, text=True).stdout
with open(os.path.join(ROOT, "docs", "outputs.md"), encoding="utf-8") as f:
    outputs_md = f.read()
CHECKS.check("docs/outputs.md's field table is the schema's (tools/update_reference.sh)",
             fields.count("\n") > 100 and "<!-- begin: result fields -->\n" + fields
             + "<!-- end: result fields -->" in outputs_md)

with tempfile.TemporaryDirectory() as tmp:
    results = {}
    for scenario in sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.json"))):
        name = os.path.basename(scenario)[:-5]
        if name.startswith(HEAVY) or name == "scenario.schema":
            continue
        out = os.path.join(tmp, name + ".json")
        r = sgdsim("run", os.path.relpath(scenario, ROOT), "--json", out, "--quiet")
        if r.returncode != 0:
            CHECKS.check(f"{name} runs", False, r.stderr)
            continue
        CHECKS.check(f"{name}: no plausibility warning for a shipped example",
                     "warning:" not in r.stderr, r.stderr)
        with open(out, encoding="utf-8") as f:
            results[name] = json.load(f)
        errors = [f"{'/'.join(map(str, e.path))}: {e.message[:160]}"
                  for e in validator.iter_errors(results[name])]
        CHECKS.check(f"{name}: the result validates against the result schema", not errors,
                     "; ".join(errors[:3]))

    # Provenance: the scenario and its trace with the digests hashlib computes, the commit
    # --version prints, the scenario as read.
    default = results["default"]["provenance"]
    commit = sgdsim("--version").stdout.split("(commit ")[1].split(")")[0]
    CHECKS.check("provenance: version and the commit --version names",
                 default["commit"] == commit and default["sgdsim_version"] != "", commit)
    expected = [{"path": path, "bytes": os.path.getsize(os.path.join(ROOT, path)),
                 "sha256": sha256(os.path.join(ROOT, path))}
                for path in ("scenarios/default.json", "traces/resnet50_b32_v100_estimated.json")]
    CHECKS.check("provenance: every input with its size and SHA-256", default["inputs"] == expected,
                 json.dumps(default["inputs"]))
    with open(os.path.join(ROOT, "scenarios", "default.json"), encoding="utf-8") as f:
        CHECKS.check("provenance: the scenario as read", default["scenario"] == json.load(f))

    # resnet50_tcp_25gbe.json sets 25 Gbit/s over TCP with an 18 Gbit/s flow cap: the result says
    # 25 (what the user set) and the goodput min(25 x goodput fraction, 18) = 18 beside it.
    tcp = results["resnet50_tcp_25gbe"]
    CHECKS.check("bandwidth_gbps is the value set, goodput_gbps what TCP reaches of it",
                 tcp["bandwidth_gbps"] == 25 and tcp["goodput_gbps"] == 18
                 and tcp["provenance"]["resolved"]["network"]["transport"]["name"] == "tcp",
                 f"{tcp['bandwidth_gbps']} {tcp['goodput_gbps']}")

    # BERT-large's trace has sequence_length 128: tokens/s = 128 x samples/s; ResNet-50 has none.
    bert = results["bert_large_dgx2h_horovod"]
    CHECKS.check("tokens/s = sequence length x samples/s for a sequence model",
                 bert["sequence_length"] == 128 and all(
                     abs(p["tokens_per_second"] - 128 * p["samples_per_second"])
                     <= 1e-9 * p["tokens_per_second"] for p in bert["policies"]))
    CHECKS.check("no tokens/s for an image model",
                 results["default"]["sequence_length"] is None
                 and all(p["tokens_per_second"] is None for p in results["default"]["policies"]))

    # per_rank_stragglers.json: GPU 7 runs at 1.5x, GPUs 32-63 at 1.3x, all with 5% lognormal
    # jitter (sigma ~ 0.05). ln(1.5 / 1.3) = 0.143 = 2.9 sigma; the slowest of the 32 older GPUs
    # sits about 2 sigma high (the expected maximum of 32 normals) and GPU 7 has its own draw, so
    # 7 is last when its draw minus theirs exceeds -0.9 sigma over a spread of sqrt(2) sigma: in
    # about 74% of iterations (Phi(0.9 / 1.41)). More than half is what is asserted.
    for policy in results["per_rank_stragglers"]["policies"]:
        spread = policy["per_rank"]
        CHECKS.check(f"per_rank {policy['policy']}: p50 <= p99 <= max, mean within, rank 7 "
                     "slowest", spread is not None and spread["slowest_rank"] == 7
                     and spread["slowest_rank_share"] > 0.5
                     and spread["iteration_p50_us"] <= spread["iteration_p99_us"]
                     <= spread["iteration_max_us"]
                     and policy["iteration_us"] <= spread["iteration_max_us"], json.dumps(spread))
    CHECKS.check("analytic results have no per-rank spread",
                 all(p["per_rank"] is None for p in results["default"]["policies"]))
    r = sgdsim("run", "scenarios/per_rank_stragglers.json")
    CHECKS.check("the per_rank table names the slowest rank",
                 "per rank over 20 iterations" in r.stdout and "  7 (" in r.stdout, r.stdout[-600:])

    # CSVs: a plain header on the first line (pandas reads it as columns), one row per policy
    # (default.json: 6), per message, per sweep point and policy (sweep_resnet50_gpus.json:
    # 9 GPU counts x 3 policies = 27), the schema version in the last column.
    run_csv, sweep_csv = os.path.join(tmp, "run.csv"), os.path.join(tmp, "sweep.csv")
    sgdsim("run", "scenarios/default.json", "--csv", run_csv, "--quiet")
    sgdsim("sweep", "scenarios/sweep_resnet50_gpus.json", "--csv", sweep_csv, "--threads", "1")
    messages = sum(p["messages"] for p in results["default"]["policies"])
    for path, rows in ((run_csv, 6), (run_csv[:-4] + "_messages.csv", messages), (sweep_csv, 27)):
        frame = pandas.read_csv(path)
        with open(path, encoding="utf-8") as f:
            header = next(csv.reader(f))
        CHECKS.check(f"pandas.read_csv reads {os.path.basename(path)}: header, {rows} rows",
                     list(frame.columns) == header and len(frame) == rows
                     and header[-1] == "schema_version" and set(frame["schema_version"]) == {2},
                     f"{list(frame.columns)[:4]} {len(frame)}")
    frame = pandas.read_csv(run_csv)
    CHECKS.check("pandas reads the empty tokens/s of an image model as NaN",
                 frame["tokens_per_second"].isna().all() and frame["iteration_us"].dtype == float)

    # Time to target in the averaging table, from measured curves (task "measured"): SGD reaches
    # 0.8 at row 300 and CPSGD at row 200; the averaging table gives each the time the
    # convergence table gives, instead of "-".
    curves = {"sgd.csv": "iteration,accuracy\n0,0.1\n100,0.7\n300,0.81\n",
              "cpsgd.csv": "iteration,accuracy\n0,0.1\n200,0.80\n400,0.83\n"}
    for name, text in curves.items():
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write(text)
    scenario = {"trace": os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json"),
                "cluster": {"gpus": 16}, "network": {"bandwidth_gbps": 10},
                "communication": {"merge": {"policy": "optimal"}, "averaging": {
                    "run_iterations": 400, "schedules": [{"schedule": "every_iteration"},
                                                         {"schedule": "constant", "period": 4}]}},
                "convergence": {"task": "measured", "target": {"accuracy": 0.8},
                                "curves": {"every_iteration": "sgd.csv",
                                           "constant(period=4)": "cpsgd.csv"}}}
    path = os.path.join(tmp, "measured.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(scenario, f)
    out = os.path.join(tmp, "measured_result.json")
    r = sgdsim("run", path, "--json", out)
    result = json.load(open(out, encoding="utf-8")) if r.returncode == 0 else {}
    schedules = (result.get("averaging") or {}).get("schedules", [])
    trained = {c["label"]: c for c in (result.get("convergence") or {}).get("configurations", [])}
    CHECKS.check("averaging schedules take their time to target from the convergence run",
                 len(schedules) == 2 and all(
                     s["target_source"] == "convergence"
                     and s["time_to_target_us"] == trained[s["schedule"]]["time_to_target_us"]
                     and s["iterations_to_target"] == trained[s["schedule"]]["iterations_to_target"]
                     for s in schedules)
                 and [s["iterations_to_target"] for s in schedules] == [300, 200]
                 and "to target s: iterations to target from the convergence table" in r.stdout,
                 r.stderr + r.stdout[-800:])
    CHECKS.check("a measured curve may start at iteration 0",
                 trained.get("every_iteration", {}).get("curve", [{}])[0].get("iteration") == 0)
    CHECKS.check("that result validates against the result schema",
                 not list(validator.iter_errors(result)))

    # Plausibility: 1e11 "Gbit/s" is 100 Gbit/s given in bit/s; 25e-6 "us" is 25 us given in
    # seconds. Both run (exit 0) with one warning each naming the key and the likely slip.
    slip = {"trace": scenario["trace"], "cluster": {"gpus": 4},
            "network": {"bandwidth_gbps": 1e11, "latency_us": 25e-6}}
    path = os.path.join(tmp, "slip.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(slip, f)
    r = sgdsim("run", path, "--quiet")
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    CHECKS.check("unit slips run with a warning naming the key and the likely unit",
                 r.returncode == 0 and len(warnings) == 2
                 and warnings[0].startswith(f"warning: {path}: network.bandwidth_gbps: 1e+11 Gbit/s")
                 and "was it given in bit/s (100 Gbit/s)?" in warnings[0]
                 and warnings[1].startswith(f"warning: {path}: network.latency_us: 2.5e-05 us")
                 and "was it given in seconds (25 us)?" in warnings[1], r.stderr)
    r = sgdsim("run", "scenarios/default.json", "--quiet")
    CHECKS.check("no warning for real hardware", "warning" not in r.stderr, r.stderr)
    # A sweep warns once before it runs, for the scenario and for each swept value: here 25 is
    # plausible and 25e9 (25 Gbit/s in bit/s) is not.
    swept = dict(slip, network={"bandwidth_gbps": 10},
                 sweep={"network.bandwidth_gbps": [25, 25e9]})
    path = os.path.join(tmp, "swept_slip.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(swept, f)
    r = sgdsim("sweep", path, "--csv", os.path.join(tmp, "swept.csv"))
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    CHECKS.check("a sweep warns of a slipped swept value once, naming it",
                 r.returncode == 0 and len(warnings) == 1 and warnings[0].startswith(
                     f"warning: {path}: sweep.network.bandwidth_gbps[1]: 2.5e+10 Gbit/s")
                 and "(25 Gbit/s)?" in warnings[0], r.stderr)
    r = sgdsim("run", path, "--quiet")
    CHECKS.check("`run` on that scenario runs its base point: no warning for the sweep's values",
                 r.returncode == 0 and "warning:" not in r.stderr, r.stderr)

# A misspelt command names the closest one.
r = sgdsim("runn", "scenarios/default.json")
CHECKS.check("`sgdsim runn` suggests run", r.returncode == 2 and r.stderr
             == 'sgdsim: error: unknown command "runn" (did you mean "run"?); the commands are: '
             "run, sweep, calibrate, trace, topology, list, schema (sgdsim --help describes them)\n", r.stderr)
r = sgdsim("trace", "shwo", "x.json")
CHECKS.check("`sgdsim trace shwo` suggests trace show", r.returncode == 2 and
             'unknown command "trace shwo" (did you mean "trace show"?)' in r.stderr, r.stderr)
r = sgdsim("frobnicate")
CHECKS.check("a word far from every command gets no suggestion", r.returncode == 2
             and "did you mean" not in r.stderr and 'unknown command "frobnicate"' in r.stderr,
             r.stderr)

CHECKS.finish()
