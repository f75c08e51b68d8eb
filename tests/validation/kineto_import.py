#!/usr/bin/env python3
"""The Kineto importer on every PyTorch profiler trace of ../shared/reference/h100/kineto (real
training iterations on an H100; README there). For each profile:
- the gradient elements equal the model's parameter count exactly (torchvision's documented
  num_params; the BERT and GPT-2 counts of the reference README; Inception-v3 less its auxiliary
  classifier, which gets no gradient);
- the layer times plus the optimizer step add up to the profile's own GPU time per iteration,
  summed here independently from its kernel, memset and copy events (launched inside each
  ProfilerStep annotation, NCCL kernels left out), within 2%;
- every gradient is ready within the backward pass, on both clocks;
- and, for the profiles taken inside DistributedDataParallel, sgdsim's `bucket` policy (which
  buckets gradient tensors in readiness order, as DDP does) plans the buckets the profile's nccl:all_reduce calls carried: same sizes, same
  order, same first and last gradient.
The GPU time is also compared with the plain script's kernel sum (plain_iteration_times.txt, a
separate run) within 3%.
Usage: kineto_import.py SGDSIM [REFERENCE_H100]. Exit 77 (skipped) without the reference data."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Checks  # noqa: E402

SGDSIM = os.path.abspath(sys.argv[1])
REFERENCE = (sys.argv[2] if len(sys.argv) > 2 else
             os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                          "reference", "h100"))
CHECKS = Checks("kineto import on the H100 profiles")

# Trainable parameters that receive a gradient: torchvision's model docs (num_params), the H100
# reference README for BERT (BertForMaskedLM) and GPT-2 (GPT2LMHeadModel); Inception-v3:
# torchvision's 27,161,264 less the auxiliary classifier's 3,326,696 (unused by the loss).
PARAMETERS = {"resnet50": 25557032, "resnet101": 44549160, "resnet152": 60192808,
              "vgg16": 138357544, "densenet161": 28681000, "inception_v3": 27161264 - 3326696,
              "bert_base": 109514298, "bert_large": 335174458, "gpt2": 124439808,
              "gpt2_medium": 354823168}
# profile -> (plain_iteration_times.txt key, precision)
PLAIN = {"op_resnet50_b32_fp32": ("resnet50_b32", "fp32"), "op_vgg16_b32_fp32": ("vgg16_b32", "fp32"),
         "op_gpt2_b8_fp32": ("gpt2_b8_s1024", "fp32"),
         "op_bert_base_uncased_b32_fp32": ("bert-base_b32_s128", "fp32"),
         "op_gpt2_medium_b8_bf16": ("gpt2-medium_b8_s1024", "bf16")}


def model_of(name):
    stem = name.removeprefix("op_").replace("_uncased", "")
    for model in sorted(PARAMETERS, key=len, reverse=True):
        if stem.startswith(model + "_"):
            return model
    raise KeyError(name)


def gpu_time_per_iteration(path):
    """Mean GPU busy time (us) of a profile's ProfilerStep iterations, summed from its events."""
    with gzip.open(path) as file:
        events = json.load(file)["traceEvents"]
    launches = {e["args"]["correlation"]: e["ts"] for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")
           and not e["name"].lower().startswith("nccl")]
    steps = [e for e in events if e.get("cat") == "user_annotation"
             and e["name"].startswith("ProfilerStep#")]
    sums = [sum(e["dur"] for e in gpu
                if s["ts"] <= launches.get(e["args"].get("correlation"), -1) <= s["ts"] + s["dur"])
            for s in steps]
    return sum(sums) / len(sums)


def plain_kernel_sums():
    sums = {}
    with open(os.path.join(REFERENCE, "plain_iteration_times.txt"), encoding="utf-8") as lines:
        for line in lines:
            fields = line.split()
            if "gpu-kernel-sum" in fields:
                sums[(fields[0], fields[1])] = float(fields[fields.index("gpu-kernel-sum") + 1])
    return sums


def run(*args):
    return subprocess.run([SGDSIM, *args], capture_output=True, text=True, check=False)


def check_buckets(name, trace_path, folder):
    with open(trace_path, encoding="utf-8") as file:
        observed = json.load(file)["observed_buckets"]
    scenario = {"name": "ddp bucket check", "trace": trace_path,
                "cluster": {"gpus": 8, "gpus_per_node": 8},
                "network": {"bandwidth_gbps": 100, "latency_us": 5},
                "communication": {"merge": {"policy": "bucket"}}}
    scenario_path = os.path.join(folder, "ddp.json")
    with open(scenario_path, "w", encoding="utf-8") as file:
        json.dump(scenario, file)
    result_path = os.path.join(folder, "ddp_result.json")
    done = run("run", scenario_path, "--json", result_path, "-q")
    CHECKS.check(f"{name}: the bucket scenario runs", done.returncode == 0, done.stderr)
    if done.returncode != 0:
        return
    with open(result_path, encoding="utf-8") as file:
        messages = json.load(file)["policies"][0]["message_breakdown"]
    planned = [(m["bytes"] // 4, m["layers"]) for m in messages]
    seen = [(b["elements"], f"{b['gradients'][0]}..{b['gradients'][-1]}"
             if len(b["gradients"]) > 1 else b["gradients"][0]) for b in observed]
    CHECKS.check(f"{name}: DDP's {len(seen)} buckets are planned as the profile shows them",
                 planned == seen, f"planned {planned[:3]}..., profile {seen[:3]}...")


def main():
    folder_in = os.path.join(REFERENCE, "kineto")
    if not os.path.isdir(folder_in):
        print(f"kineto import: {folder_in} is absent: skipped", file=sys.stderr)
        return 77
    plain = plain_kernel_sums()
    with tempfile.TemporaryDirectory() as folder:
        for file_name in sorted(os.listdir(folder_in)):
            if not file_name.endswith(".json.gz"):
                continue
            name = file_name[:-len(".json.gz")]
            model = model_of(name)
            trace_path = os.path.join(folder, name + ".json")
            done = run("trace", "import", os.path.join(folder_in, file_name), "--from", "kineto",
                       "--batch", "8", "--parameters", str(PARAMETERS[model]), "-o", trace_path)
            CHECKS.check(f"{name}: imports with exactly {PARAMETERS[model]:,} gradient elements",
                         done.returncode == 0, done.stderr.strip())
            if done.returncode != 0:
                continue
            with open(trace_path, encoding="utf-8") as file:
                trace = json.load(file)
            layers = trace["layers"]
            backward = sum(l["backward_us"] for l in layers)
            backward_wall = sum(l["backward_wall_us"] for l in layers)
            total = sum(l["forward_us"] + l["backward_us"] for l in layers) + trace["optimizer_us"]
            gpu = gpu_time_per_iteration(os.path.join(folder_in, file_name))
            CHECKS.check(f"{name}: layers + optimizer {total / 1e3:.3f} ms within 2% of the "
                         f"profile's GPU time {gpu / 1e3:.3f} ms", abs(total / gpu - 1) <= 0.02)
            ready = [g for l in layers for g in l["gradients"]]
            CHECKS.check(f"{name}: every gradient ready within backward ({backward / 1e3:.3f} ms)",
                         all(g["ready_offset_us"] <= backward * 1.001 + 0.01 and
                             g["ready_wall_offset_us"] <= backward_wall * 1.001 + 0.01
                             for g in ready))
            if name in PLAIN:
                measured = plain[PLAIN[name]] * 1e3
                CHECKS.check(f"{name}: GPU time {total / 1e3:.3f} ms within 3% of the plain run's "
                             f"kernel sum {measured / 1e3:.3f} ms", abs(total / measured - 1) <= 0.03)
            if "ddp" in name:
                check_buckets(name, trace_path, folder)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
