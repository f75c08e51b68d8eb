#!/usr/bin/env python3
"""End-to-end validation: predict every row of ../shared/reference/end_to_end/*.csv that sgdsim
can express, from what a user knows before the multi-GPU run, and compare.

Calibration inputs, and nothing else (no parameter is fitted to a predicted row):
- the model's layers and gradient sizes from its definition (tools/estimate/model_trace.py,
  checked tensor by tensor against ../shared/reference/layer_tables by tests/tools_test.py);
- compute time: the same source's single-GPU figure for rows inside one node, and its one-node
  figure (the source's row with one full node) for rows across nodes; the estimated per-layer
  times are scaled to it (compute.layer_times = scaled_to_measured);
- the hardware the source describes (../shared/reference/end_to_end/README.md) with the link
  presets documented in scenarios/README.md;
- how each framework aggregates gradients, from its documentation (FRAMEWORKS below).
Rows whose own source documents that the run was held back by something else than the hardware
it describes (DOCUMENTED_LIMITS below) are predicted and listed with their error, but left out
of the figures.

Usage: end_to_end.py SGDSIM ROOT [--reference DIR] [--markdown FILE] [--plot FIGURE]
                     [--max-mape P --max-error P]
Exit 77 (skipped) when the reference folder is absent, 1 when a bound given is not met, 2 on
bad input (an output that cannot be written).
"""
import argparse
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOLS, PLOTS = os.path.join(ROOT, "tools"), os.path.join(ROOT, "plots")
sys.path[:0] = [os.path.join(TOOLS, "estimate"), TOOLS]
import model_trace  # noqa: E402
import tool_io  # noqa: E402
from model_trace import TRANSFORMERS  # noqa: E402  (the configurations the traces come from)

SKIP = 77

# Node types of the sources (end_to_end/README.md) as sgdsim clusters: DGX-1 and DGX-2H are the
# cluster.node presets (scenarios/README.md, "Node presets": NVLink 2 at 1,200 Gbit/s per V100,
# several NICs per node as one aggregate link, as NCCL spreads its rings across them); DLPerf's
# servers are 8 NVLink V100s with one 100 Gb EDR NIC.
NODES = {
    "dlperf": {"cluster": {"gpus_per_node": 8, "intra_node_bandwidth_gbps": 1200},
               "network": {"bandwidth_gbps": 100}, "transport": "rdma",
               "what": "8x V100-SXM2 NVLink, 1x 100 Gb EDR IB"},
    "ddp_readme": {"cluster": {"node": "dgx1_v100"}, "network": {}, "transport": "rdma",
                   "what": "DGX-1 V100 NVLink, 4x 100 Gb IB"},
    "dgx2h": {"cluster": {"node": "dgx2"}, "network": {}, "transport": "rdma",
              "what": "DGX-2H 16x V100 NVSwitch, 8x 100 Gb IB"},
}
PER_NODE = {"dlperf": 8, "ddp_readme": 8, "dgx2h": 16}

# How each framework aggregates gradients, from its documentation: PyTorch DDP's 25 MB buckets;
# Horovod's fusion buffer (HOROVOD_FUSION_THRESHOLD, 64 MiB by default); PaddlePaddle's fused
# allreduce (fuse_grad_size_in_MB, 32 by default); TF 2.3's MirroredStrategy packs all gradients
# into one batch; OneFlow's boxing, modelled as DDP-like buckets. The word embedding's gradient
# is allreduced dense by the BERT scripts DLPerf ran: NVIDIA's TF1 BERT wraps its optimizer in
# hvd.DistributedOptimizer(..., sparse_as_dense=True) (DeepLearningExamples fed7ba99,
# TensorFlow/LanguageModeling/BERT/optimization.py), and gluon-nlp's BERT (7b7bf602) builds it as
# nn.Embedding without sparse_grad. (Horovod would allgather a sparse one: the "sparse" mechanism,
# for frameworks marked sparse_embeddings, of which none is here now.)
FRAMEWORKS = [
    ("PyTorch", {"policy": "bucket"}),
    ("TensorFlow 1", {"policy": "fusion", "fusion_threshold_mib": 64}),
    ("MXNet", {"policy": "fusion", "fusion_threshold_mib": 64}),
    ("PaddlePaddle", {"policy": "bucket", "bucket_cap_mib": 32}),
    ("TensorFlow 2", {"policy": "all"}),
    ("OneFlow", {"policy": "bucket"}),
    ("Horovod", {"policy": "fusion", "fusion_threshold_mib": 64}),
]

# Rows whose own source documents that the run was held back by something other than the
# hardware it describes and the framework's communication. Predicted from that hardware, they
# would test a setting that did not run; they are still predicted and listed with their error,
# but left out of the figures. (source, model, framework prefix, GPU counts, reason)
DOCUMENTED_LIMITS = [
    ("DLPerf", "bert-base", "TensorFlow 1", {16, 32},
     "ran without InfiniBand verbs: DLPerf's report (reports/dlperf_benchmark_test_report_v1_cn.md"
     " 6.2.6) says installing the IB driver in the NGC container lifted the 2- and 4-node "
     "speedups of NGC TF1 BERT-base markedly, and these rows were re-measured after it (DLPerf "
     "495a31a, Oct 2020: 1404.0 and 2727.9); without verbs NCCL uses its socket transport, on "
     "the ib* interfaces first (IPoIB), whose per-connection rate on that cluster is not "
     "published"),
    ("DLPerf", "bert-base", "MXNet", {8, 16, 32},
     "CPU-bound: DLPerf's MXNet BERT README of Aug 2020 (4ecbf7b2) found the bottleneck 'not "
     "network transfer or multi-GPU synchronisation' but all 48 CPU threads at about 100% in the "
     "8- and 16-GPU runs; re-measured on bare metal in Sep 2020 (f8bb8bd)"),
    ("DLPerf", "bert-base", "PaddlePaddle", {8},
     "one Python process drove all 8 GPUs (scripts/single_node_train.sh: --is_distributed false "
     "with 8 visible GPUs), a mode DLPerf's report (6.2.5) says trains and scales poorly; sgdsim "
     "models one process per GPU, and the host cost of that mode is not published"),
]


def documented_limit(source, model, setting, gpus):
    for limit_source, limit_model, prefix, counts, reason in DOCUMENTED_LIMITS:
        if (source, model) == (limit_source, limit_model) and setting.startswith(prefix) and \
                gpus in counts:
            return reason
    return None


def framework(name):
    for prefix, how in FRAMEWORKS:
        if name.startswith(prefix):
            return how
    raise ValueError(f"no aggregation model for framework {name!r}")


class Rows:
    """Every reference row: the expressible ones as predictions, the rest with a reason."""

    def __init__(self):
        self.cases = []  # dicts: source, model, setting, gpus, nodes, measured, calibration...
        self.skipped = []  # (description, reason)


def dlperf_rows(path, rows):
    table = list(csv.DictReader(open(path, encoding="utf-8")))
    for r in table:
        model = "resnet50" if r["model"].startswith("ResNet50") else "bert-base"
        batch, gpus, nodes = int(r["batch_per_gpu"]), int(r["gpus"]), int(r["nodes"])
        if gpus == 1:
            continue
        same = [s for s in table if s["model"] == r["model"] and s["framework"] == r["framework"]]
        one_gpu = next(s for s in same if int(s["gpus"]) == 1)
        one_node = next((s for s in same if int(s["nodes"]) == 1 and int(s["gpus"]) == 8), None)
        calibration = one_node if nodes > 1 and one_node else one_gpu
        rows.cases.append({
            "source": "DLPerf", "model": model, "setting": r["framework"], "batch": batch,
            "sequence": 128, "gpus": gpus, "node": "dlperf", "how": framework(r["framework"]),
            "measured": float(r["throughput"]), "unit": r["unit"],
            "calibration_gpus": int(calibration["gpus"]),
            "calibration_throughput": float(calibration["throughput"]),
            "accumulation": 1, "wire": "fp32",
            "limit": documented_limit("DLPerf", model, r["framework"], gpus)})


def ddp_rows(path, rows):
    table = list(csv.DictReader(open(path, encoding="utf-8")))
    for r in table:
        gpus = int(r["gpus"])
        if gpus == 1:
            continue
        what = f"DDP README {r['model']} {r['gpus']} GPUs {r['setting']} {r['percentile']}"
        if r["percentile"] == "p95":
            rows.skipped.append((what, "a tail percentile: no per-iteration noise figure of "
                                 "the source to calibrate jitter from"))
            continue
        bucket = float(r["bucket_cap_mb"].split()[0])
        same = [s for s in table if s["model"] == r["model"] and s["percentile"] ==
                r["percentile"] and int(s["gpus"]) == 1]
        with_ddp = [s for s in same if s["setting"] != "no ddp"]
        if not with_ddp:
            rows.skipped.append((what, "no single-GPU row with DDP at this percentile"))
            continue
        one = with_ddp[0]
        rows.cases.append({
            "source": "DDP README", "model": r["model"], "setting": f"bucket {bucket:g} MB",
            "batch": int(r["batch_per_gpu"]), "sequence": 0, "gpus": gpus, "node": "ddp_readme",
            "how": {"policy": "bucket", "bucket_cap_mib": bucket,
                    "first_bucket_cap_mib": min(1.0, bucket)},
            "measured": float(r["ex_per_s_per_gpu"]) * gpus, "unit": "samples/s",
            "calibration_gpus": 1,
            "calibration_throughput": int(one["batch_per_gpu"]) / float(one["sec_per_iter"]),
            "accumulation": 1, "wire": "fp32"})


def dgx2h_rows(path, rows):
    table = list(csv.DictReader(open(path, encoding="utf-8")))
    for r in table:
        nodes, per_node = int(r["nodes"]), int(r["gpus_per_node"])
        if nodes == 1:
            continue
        one = next(s for s in table if s["seq_len"] == r["seq_len"] and int(s["nodes"]) == 1)
        for precision, suffix in (("mixed", "mixed"), ("fp32", "fp32")):
            rows.cases.append({
                "source": "DLE DGX-2H", "model": "bert-large",
                "setting": f"Horovod LAMB {precision} seq {r['seq_len']}",
                "batch": int(r[f"batch_per_gpu_{suffix}"]), "sequence": int(r["seq_len"]),
                "gpus": nodes * per_node, "node": "dgx2h",
                "how": {"policy": "fusion", "fusion_threshold_mib": 64},
                "measured": float(r[f"throughput_{suffix}_seq_per_s"]), "unit": "sequences/s",
                "calibration_gpus": per_node,
                "calibration_throughput": float(one[f"throughput_{suffix}_seq_per_s"]),
                "calibration_accumulation": int(one[f"grad_accum_{suffix}"]),
                "accumulation": int(r[f"grad_accum_{suffix}"]),
                "wire": "fp16" if precision == "mixed" else "fp32"})


def make_trace(model, batch, sequence, folder, cache):
    """The estimated V100 trace, made once per (model, batch, sequence) in this process (PyTorch
    is imported once for all of them)."""
    key = (model, batch, sequence)
    if key not in cache:
        out = os.path.join(folder, f"{model}_b{batch}_s{sequence}.json")
        arguments = ["--model", model, "--batch", str(batch), "--gpu", "v100",
                     "--date", "2026-11-23", "-o", out]
        if sequence:
            arguments += ["--sequence", str(sequence)]
        with contextlib.redirect_stderr(io.StringIO()):  # its one-line summary per model
            model_trace.main(arguments)
        with open(out, encoding="utf-8") as f:
            cache[key] = json.load(f)
    return cache[key]


def scenario_for(case, trace_file, gpus, mechanisms):
    node = NODES[case["node"]]
    per_node = min(PER_NODE[case["node"]], gpus)
    merge = {k: v for k, v in case["how"].items() if k != "sparse_embeddings"}
    network = dict(node["network"])
    communication = {"collective": {"algorithm": "ring_allreduce"}, "merge": merge}
    compute = {"layer_times": "scaled_to_measured"}
    import os as _o
    if _o.environ.get("SLOW"): compute["overlap_slowdown"] = float(_o.environ["SLOW"])
    if "transport" in mechanisms:
        network["transport"] = node["transport"]
    if "nccl" in mechanisms:
        # NCCL's own latency table and protocol choice instead of the default route latencies.
        communication["collective"]["nccl_protocol"] = "auto"
    if "accumulation" in mechanisms and case["accumulation"] > 1:
        compute["accumulation_steps"] = case["accumulation"]
    if "wire" in mechanisms and case["wire"] != "fp32":
        communication["wire_dtype"] = case["wire"]
    if "sparse" in mechanisms and case["how"].get("sparse_embeddings") and \
            case["model"] in TRANSFORMERS:
        # One row of the word embedding per token, as wide as the model.
        communication["allgather_gradients"] = [{
            "tensor": "embeddings.word_embeddings.weight", "rows_per_sample": case["sequence"],
            "row_elements": TRANSFORMERS[case["model"]]["hidden_size"]}]
    return {"schema_version": 1, "name": "validation", "trace": trace_file,
            "cluster": dict(node["cluster"], gpus=gpus, gpus_per_node=per_node),
            "network": network, "communication": communication, "compute": compute,
            "iterations": 2}


def simulate(sgdsim, scenario, folder):
    """The first policy's iteration, us."""
    return simulate_result(sgdsim, scenario, folder)["policies"][0]["iteration_us"]


def simulate_result(sgdsim, scenario, folder):
    """`sgdsim run`'s result JSON for the scenario."""
    path = os.path.join(folder, "scenario.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(scenario, f)
    result = os.path.join(folder, "result.json")
    r = subprocess.run([sgdsim, "run", "-q", "--json", result, path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"sgdsim failed on {json.dumps(scenario)}:\n{r.stderr}")
    with open(result, encoding="utf-8") as f:
        return json.load(f)


def predict(sgdsim, case, folder, cache, mechanisms, build=None, final=None):
    """Samples per second at the case's GPU count, compute calibrated as the module says.
    `build(case, trace_file, gpus, mechanisms)` writes the scenario (default: scenario_for);
    `final`, a dict, receives the predicting run's whole result JSON as final["result"]."""
    build = build or scenario_for
    trace = dict(make_trace(case["model"], case["batch"], case["sequence"], folder, cache))
    samples = case["batch"] * case["gpus"] * case["accumulation"]
    calibration_accumulation = case.get("calibration_accumulation", case["accumulation"])
    calibration_samples = case["batch"] * case["calibration_gpus"] * calibration_accumulation
    if "accumulation" not in mechanisms and case["accumulation"] > 1:
        return None  # not expressible without accumulation
    # The measured time of one (accumulated) step at the calibration size.
    measured_step_us = calibration_samples / case["calibration_throughput"] * 1e6
    per_pass_us = measured_step_us / calibration_accumulation
    trace_file = os.path.join(folder, "trace.json")
    # A single-GPU figure is what compute.single_gpu_samples_per_s takes, as a user gives it.
    single = case["calibration_gpus"] == 1 and calibration_accumulation == 1
    if single:
        trace.pop("measured_iteration_us", None)
    # Otherwise find the single-GPU compute that makes the calibration run take the measured
    # time: the exposed communication depends weakly on the compute, so a few fixed-point steps
    # settle it (one with a single-GPU figure over several passes).
    compute_us = per_pass_us
    calibration_case = dict(case, accumulation=calibration_accumulation)
    for _ in range(4 if case["calibration_gpus"] > 1 else 1):
        if not single:
            trace["measured_iteration_us"] = compute_us
        with open(trace_file, "w", encoding="utf-8") as f:
            json.dump(trace, f)
        if case["calibration_gpus"] == 1:
            break
        step_us = simulate(sgdsim, build(calibration_case, trace_file, case["calibration_gpus"],
                                         mechanisms), folder)
        compute_us += (measured_step_us - step_us) / calibration_accumulation
        if compute_us <= 0:
            raise RuntimeError(f"calibration gave no compute time for {case}")
    scenario = build(case, trace_file, case["gpus"], mechanisms)
    if single:
        scenario.setdefault("compute", {})["single_gpu_samples_per_s"] = \
            case["calibration_throughput"]
    result = simulate_result(sgdsim, scenario, folder)
    if final is not None:
        final["result"] = result
    return samples / (result["policies"][0]["iteration_us"] / 1e6)


def percent_error(value, measured):
    return 100.0 * (value - measured) / measured


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def linear_scaling(case):
    """The calibration figure scaled by the GPU count: throughput per GPU unchanged (with a fixed
    global batch, the passes each GPU accumulates shrink as the GPUs grow, so per-GPU throughput
    is again the quantity kept). A row measured above it scaled superlinearly: each GPU got
    faster, which no communication mechanism gives (they add time to the calibration run and to
    the predicted one alike), so its shortfall is a floor under that row's error."""
    return case["calibration_throughput"] * case["gpus"] / case["calibration_gpus"]


def draw(common, cases, path, hardware_of=None,
         title="End-to-end validation: {rows} rows on real V100 clusters"):
    """Each row's scaling efficiency against its calibration figure (throughput over linear
    scaling), measured across and predicted up, with the 5% and 15% bands: a point on the line
    is an exact prediction, a point at 1.0 a prediction of linear scaling. `common`: plots/
    common.py, imported by main (its style module gives each source a fixed look);
    `hardware_of(case)`: the legend's words for a row's hardware (default: its NODES entry)."""
    hardware_of = hardware_of or (lambda c: NODES[c["node"]]["what"])
    style = common.style
    style.apply()
    figure, axes = common.plt.subplots(figsize=(5.6, 5.2))
    efficiency, hardware = {}, {}
    for c in cases:
        linear = linear_scaling(c)
        efficiency.setdefault(c["source"], []).append((c["measured"] / linear,
                                                       c["predicted"] / linear))
        hardware[c["source"]] = hardware_of(c)
    values = [v for points in efficiency.values() for pair in points for v in pair]
    low, high = min(values) - 0.02, max(values) + 0.02
    line = [low, high]
    axes.fill_between(line, [v * 0.85 for v in line], [v * 1.15 for v in line], color="0.93",
                      label="within 15%")
    axes.fill_between(line, [v * 0.95 for v in line], [v * 1.05 for v in line], color="0.82",
                      label="within 5%")
    axes.plot(line, line, color="0.4", linewidth=0.8)
    looks = style.category_looks(sorted(efficiency))  # every source its own look, none dropped
    for source, points in sorted(efficiency.items()):
        look = looks[source]
        axes.plot([m for m, _ in points], [p for _, p in points], linestyle="none", zorder=3,
                  color=look.colour, label=f"{source} ({len(points)} rows): {hardware[source]}",
                  **dict(style.marker_style(look), markersize=5.5))
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    axes.set_xlabel("measured scaling efficiency\n(per GPU, against the calibration figure)")
    axes.set_ylabel("sgdsim's predicted scaling efficiency")
    axes.set_title(title.format(rows=len(values) // 2))
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13))
    common.save([(figure, path)])


def rank_preserved(cases):
    """Per (source, model, GPU count) with several settings: does the predicted order of the
    settings by throughput match the measured one?"""
    groups = {}
    for c in cases:
        if c.get("predicted") is not None:
            groups.setdefault((c["source"], c["model"], c["gpus"]), []).append(c)
    out = []
    for key, group in sorted(groups.items()):
        if len(group) < 2:
            continue
        measured = [c["setting"] for c in sorted(group, key=lambda c: -c["measured"])]
        predicted = [c["setting"] for c in sorted(group, key=lambda c: -c["predicted"])]
        out.append((key, measured == predicted))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgdsim")
    parser.add_argument("root")
    parser.add_argument("--reference", default=None)
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--plot", help="also draw measured against predicted scaling "
                        "efficiency to this figure (.png, .svg or .pdf)")
    parser.add_argument("--mechanisms", default="transport,accumulation,wire,sparse,nccl",
                        help="comma-separated mechanisms to use (default: all)")
    parser.add_argument("--max-mape", type=float, help="fail when the MAPE (%%) is above this")
    parser.add_argument("--max-error", type=float, help="fail when a row's |error| (%%) is above")
    args = parser.parse_args(argv)
    common = None
    if args.plot:  # refused before anything runs (a bad name is exit 2, one line)
        sys.path.insert(0, PLOTS)
        import common  # noqa: E402  (matplotlib only when a figure is asked for)
        common.check_outputs([args.plot], [])
    reference = args.reference or os.environ.get("SGDSIM_REFERENCE") or os.path.join(
        args.root, "..", "shared", "reference")
    folder_e2e = os.path.join(reference, "end_to_end")
    if not os.path.isdir(folder_e2e):
        print(f"SKIPPED: reference data not found at {folder_e2e} (set SGDSIM_REFERENCE)")
        return SKIP
    mechanisms = {m for m in args.mechanisms.split(",") if m}
    rows = Rows()
    dlperf_rows(os.path.join(folder_e2e, "dlperf_v100_edr_ib_fp32.csv"), rows)
    ddp_rows(os.path.join(folder_e2e, "pytorch_ddp_benchmark_readme.csv"), rows)
    dgx2h_rows(os.path.join(folder_e2e, "nvidia_dle_tf_bert_large_dgx2h_multinode.csv"), rows)
    rows.skipped.append(("published_scaling_claims.csv (all rows)", "efficiencies without a "
                         "single-GPU rate or batch size; the file's README says: sanity checks, "
                         "not targets"))
    cache = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in rows.cases:
            case["predicted"] = predict(args.sgdsim, case, folder, cache, mechanisms)
    done = [c for c in rows.cases if c["predicted"] is not None and not c.get("limit")]
    for c in rows.cases:
        what = f"{c['source']} {c['model']} {c['setting']} {c['gpus']} GPUs"
        if c["predicted"] is None:
            rows.skipped.append((what, "needs gradient accumulation"))
        elif c.get("limit"):
            error = percent_error(c["predicted"], c["measured"])
            rows.skipped.append((what, f"{c['limit']} (predicted from the hardware anyway: "
                                 f"{c['predicted']:.1f} against {c['measured']:.1f}, "
                                 f"{error:+.1f}%)"))
    lines = ["| source | model | setting | GPUs | calibrated on | measured | predicted | error | "
             "linear |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    errors, linear_errors = [], []
    for c in done:
        error = percent_error(c["predicted"], c["measured"])
        linear = percent_error(linear_scaling(c), c["measured"])
        errors.append(abs(error))
        linear_errors.append(linear)
        lines.append(f"| {c['source']} | {c['model']} | {c['setting']} | {c['gpus']} | "
                     f"{c['calibration_gpus']} GPU{'s' if c['calibration_gpus'] > 1 else ''} | "
                     f"{c['measured']:.1f} | {c['predicted']:.1f} | {error:+.1f}% | "
                     f"{linear:+.1f}% |")
    ranks = rank_preserved(done)
    mape = mean(errors)
    worst = max(errors) if errors else 0.0
    summary = [f"rows predicted: {len(done)}; MAPE {mape:.1f}%; max |error| {worst:.1f}%; "
               f"within 5%: {sum(e <= 5 for e in errors)}; within 15%: "
               f"{sum(e <= 15 for e in errors)}; rankings preserved: "
               f"{sum(ok for _, ok in ranks)} of {len(ranks)}",
               f"linear scaling of the calibration figure: MAPE "
               f"{mean(map(abs, linear_errors)):.1f}%; {sum(e < 0 for e in linear_errors)} rows "
               f"measured above it (superlinear), a floor of "
               f"{mean(max(-e, 0.0) for e in linear_errors):.1f} points under the MAPE"]
    summary += [f"- not expressed: {what}: {why}" for what, why in rows.skipped]
    text = "\n".join(lines + [""] + summary)
    print(text)
    if args.plot:
        draw(common, done, args.plot)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    failed = False
    if args.max_mape is not None and mape > args.max_mape:
        print(f"FAIL: MAPE {mape:.2f}% above {args.max_mape}%")
        failed = True
    if args.max_error is not None and worst > args.max_error:
        print(f"FAIL: max |error| {worst:.2f}% above {args.max_error}%")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(tool_io.run(main, sys.argv[1:]))
