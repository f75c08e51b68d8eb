#!/usr/bin/env python3
"""Sharded data-parallel validation: predict published FSDP FULL_SHARD throughput of MPT models
(125M to 13B parameters) on 16 to 128 A100-40GB GPUs from the cluster's description, and compare
with the measurement and with keeping the calibration's throughput per GPU ("scale by N").

The rows are in tests/validation/data/sharding_llm_foundry.csv: mosaicml/llm-foundry,
scripts/train/benchmarking/README.md (commit 061f2c7c), table "A100 40GB with 1600 Gbps node-node
interconnect (RoCE)", every row at sequence length 2,048 without gradient accumulation. Inputs,
and nothing else (no parameter is fitted to a predicted row):
- each model's layers from its published dimensions (llm-foundry's yamls: d_model, n_heads,
  n_layers, vocabulary 50,368, 2,048 positions), built as a GPT-2-style decoder by
  tools/estimate/model_trace.py; its parameter count equals the table's NumParams exactly;
- compute from the same model's 16-GPU row (the smallest without accumulation): the estimated
  per-layer times scaled so that the simulated 16-GPU iteration takes the measured one; rows with
  activation checkpointing recompute each layer's forward in its backward;
- the hardware as stated: A100 nodes of 8 GPUs on NVSwitch (the table's single-node rows) with
  1,600 Gb/s per node, sgdsim's dgx_a100 preset (8 x 200 Gb/s HDR, one per GPU) over the roce
  transport; bf16 parameters and gradients ("PURE" bf16), one unit per transformer block,
  FSDP's defaults (forward and backward prefetch 1, two units gathered at once).

Usage: sharding.py SGDSIM [--markdown FILE] [--max-mape P]
Exit 1 when the bound given is not met, 2 on bad input.
"""
import argparse
import contextlib
import csv
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import end_to_end  # noqa: E402  (model_trace, and sgdsim runs with their result JSON)
from end_to_end import mean, model_trace, percent_error  # noqa: E402
DATA = os.path.join(HERE, "data", "sharding_llm_foundry.csv")
SOURCE = ("mosaicml/llm-foundry scripts/train/benchmarking/README.md at 061f2c7c, \"A100 40GB "
          "with 1600 Gbps node-node interconnect (RoCE)\"")
SEQUENCE = 2048
VOCABULARY = 50368
CALIBRATION_GPUS = 16


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    for row in rows:
        for key in ("d_model", "n_heads", "n_layers", "gpus", "micro_batch", "parameters"):
            row[key] = int(row[key])
        row["tokens_per_gpu"] = float(row["tokens_per_gpu"])
        row["checkpointing"] = row["checkpointing"] == "true"
    return rows


def make_trace(row, folder, cache):
    """The estimated A100 trace of the row's model at its micro-batch, made once per pair."""
    key = (row["model"], row["micro_batch"])
    if key not in cache:
        config = os.path.join(folder, f"{row['model']}.config.json")
        with open(config, "w", encoding="utf-8") as f:
            json.dump({"model_type": "gpt2", "vocab_size": VOCABULARY, "n_embd": row["d_model"],
                       "n_layer": row["n_layers"], "n_head": row["n_heads"],
                       "n_positions": SEQUENCE}, f)
        out = os.path.join(folder, f"{row['model']}_b{row['micro_batch']}.json")
        with contextlib.redirect_stderr(io.StringIO()):
            model_trace.main(["--config", config, "--sequence", str(SEQUENCE), "--batch",
                              str(row["micro_batch"]), "--precision", "amp", "--gpu", "a100",
                              "--date", "2026-11-26", "-o", out])
        with open(out, encoding="utf-8") as f:
            trace = json.load(f)
        elements = sum(g["elements"] for layer in trace["layers"]
                       for g in layer.get("gradients", []))
        if elements != row["parameters"]:
            raise RuntimeError(f"{row['model']}: {elements} parameters built, the table says "
                               f"{row['parameters']}")
        cache[key] = trace
    return json.loads(json.dumps(cache[key]))


def estimated_us(trace):
    """The estimate's own iteration on one GPU: its layers and optimizer step."""
    return trace["optimizer_us"] + sum(layer["forward_us"] + layer["backward_us"]
                                       for layer in trace["layers"])


def iteration_us(sgdsim, trace, row, gpus, compute_us, folder):
    """FULL_SHARD's simulated iteration with the layers scaled to `compute_us` in all."""
    trace["measured_iteration_us"] = compute_us
    if row["checkpointing"]:  # each layer's forward again in its backward
        for layer in trace["layers"]:
            layer["backward_us"] = layer["backward_us"] + layer["forward_us"]
    trace_file = os.path.join(folder, "trace.json")
    with open(trace_file, "w", encoding="utf-8") as f:
        json.dump(trace, f)
    scenario = {"schema_version": 1, "name": "validation", "trace": trace_file,
                "cluster": {"gpus": gpus, "node": "dgx_a100"},
                "network": {"bandwidth_gbps": 200, "transport": "roce"},
                "communication": {"collective": {"algorithm": "ring_allreduce"},
                                  "merge": {"policy": "bucket"},
                                  "sharding": {"strategy": "full_shard", "units": "blocks",
                                               "parameter_dtype": "bf16"}},
                "compute": {"layer_times": "scaled_to_measured"}, "iterations": 2}
    result = end_to_end.simulate_result(sgdsim, scenario, folder)
    return result["sharding"]["strategies"][0]["iteration_us"]


def predict(sgdsim, rows, folder):
    """Each predicted row with its prediction, the model's compute calibrated on its 16-GPU row."""
    cache = {}
    calibration = {r["model"]: r for r in rows if r["gpus"] == CALIBRATION_GPUS}
    compute = {}
    for model, row in calibration.items():
        measured_us = row["micro_batch"] * SEQUENCE / row["tokens_per_gpu"] * 1e6
        compute_us = measured_us  # the exposed communication moves little with the compute
        for _ in range(4):
            step = iteration_us(sgdsim, make_trace(row, folder, cache), row,
                                CALIBRATION_GPUS, compute_us, folder)
            compute_us += measured_us - step
        compute[model] = (compute_us, row["micro_batch"])
    predicted = []
    for row in rows:
        if row["gpus"] == CALIBRATION_GPUS:
            continue
        compute_us, calibration_batch = compute[row["model"]]
        # The calibrated compute per sample, at this row's micro-batch: the estimate's own
        # shape of time against batch, scaled by the calibration's factor.
        at_calibration = make_trace(calibration[row["model"]], folder, cache)
        here = make_trace(row, folder, cache)
        ratio = estimated_us(here) / estimated_us(at_calibration)
        step = iteration_us(sgdsim, here, row, row["gpus"], compute_us * ratio, folder)
        predicted.append(dict(row, predicted=row["micro_batch"] * SEQUENCE / step * 1e6,
                              flat=calibration[row["model"]]["tokens_per_gpu"]))
    return predicted


def report(rows):
    lines = [f"Sharded data parallelism: FSDP FULL_SHARD, {SOURCE}; compute from each model's "
             f"16-GPU row", "",
             "| model | GPUs | micro-batch | checkpointing | measured tokens/s/GPU | sgdsim | "
             "error | scale by N | error |", "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        ours = percent_error(r["predicted"], r["tokens_per_gpu"])
        flat = percent_error(r["flat"], r["tokens_per_gpu"])
        lines.append(f"| {r['model']} | {r['gpus']} | {r['micro_batch']} | "
                     f"{'yes' if r['checkpointing'] else 'no'} | {r['tokens_per_gpu']:.0f} | "
                     f"{r['predicted']:.0f} | {ours:+.1f}% | {r['flat']:.0f} | {flat:+.1f}% |")
    ours = [abs(percent_error(r["predicted"], r["tokens_per_gpu"])) for r in rows]
    flat = [abs(percent_error(r["flat"], r["tokens_per_gpu"])) for r in rows]
    lines += ["", f"{len(rows)} rows: sgdsim MAPE {mean(ours):.1f}% (max {max(ours):.1f}%), "
              f"scale by N MAPE {mean(flat):.1f}% (max {max(flat):.1f}%)"]
    return "\n".join(lines) + "\n", mean(ours)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sgdsim")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--max-mape", type=float, help="exit 1 above this MAPE (percent)")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401 (the trace estimator builds the models on the meta device)
    except ImportError:
        print("python3-torch is not installed: skipped")
        return 77
    rows = read_rows(DATA)
    with tempfile.TemporaryDirectory() as folder:
        predicted = predict(os.path.abspath(args.sgdsim), rows, folder)
    text, mape = report(predicted)
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    if args.max_mape is not None and mape > args.max_mape:
        print(f"MAPE {mape:.1f}% is above the bound {args.max_mape}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
