#!/usr/bin/env python3
"""Tests of the trace estimation tools: estimate_trace.py reproduces the committed traces and
torchvision's parameter counts; rescale_trace.py divides every time by the factor and labels
the result as estimated; every kind of bad input to these tools and to the capture tools ends as
one "error:" line and exit 2 without touching a file.
Usage: tools_test.py SGDSIM_BINARY REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, check_refusals  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("tools")
TOOLS = os.path.join(ROOT, "tools", "estimate")


def tool(script, *args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, script), *args], capture_output=True,
                          text=True)


def elements(trace):
    return sum(g["elements"] for layer in trace["layers"] for g in layer["gradients"])


with tempfile.TemporaryDirectory() as tmp:
    # torchvision parameter counts: ResNet-50 25,557,032; ResNet-152 60,192,808; VGG-16 138,357,544.
    for model, parameters in (("resnet50", 25_557_032), ("resnet152", 60_192_808), ("vgg16", 138_357_544)):
        out = os.path.join(tmp, f"{model}.json")
        r = tool("estimate_trace.py", "--model", model, "--batch", "32", "--date", "2026-11-21", "-o", out)
        trace = json.load(open(out)) if os.path.exists(out) else {"layers": []}
        CHECKS.check(f"{model} has torchvision's parameter count", r.returncode == 0
              and elements(trace) == parameters, r.stderr)
        committed = os.path.join(ROOT, "traces", f"{model}_b32_v100_estimated.json")
        CHECKS.check(f"the committed {model} trace is what the tool writes",
              open(committed).read() == open(out).read(), "regenerate it (traces/README.md)")
    source = os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json")
    out = os.path.join(tmp, "fast.json")
    r = tool("rescale_trace.py", source, "--factor", "2", "-o", out)
    before, after = json.load(open(source)), json.load(open(out))
    CHECKS.check("rescaling by 2 halves every time and keeps the gradients", r.returncode == 0
          and all(abs(a["backward_us"] - b["backward_us"] / 2) < 1e-3
                  for a, b in zip(after["layers"], before["layers"]))
          and elements(after) == elements(before) and after["provenance"]["method"] == "estimated",
          r.stderr)
    CHECKS.check("sgdsim accepts the rescaled trace",
          subprocess.run([SGDSIM, "trace", "show", out], capture_output=True).returncode == 0)

    # model_trace.py derives the layers from the model definition itself: its tensors must be
    # the hand-listed estimator's, name by name and in forward order.
    def tensors(trace):
        return [(g["name"], g["elements"]) for layer in trace["layers"] for g in layer["gradients"]]

    for model in ("resnet50", "vgg16"):
        listed = json.load(open(os.path.join(ROOT, "traces", f"{model}_b32_v100_estimated.json")))
        derived_file = os.path.join(tmp, f"{model}_derived.json")
        r = tool("model_trace.py", "--model", model, "-o", derived_file)
        derived = json.load(open(derived_file)) if r.returncode == 0 else {"layers": []}
        CHECKS.check(f"model_trace {model}: the same tensors as the listed estimate",
                     tensors(derived) == tensors(listed), r.stderr)
    # Another GPU's peaks: each layer takes max(FLOPs / peak, bytes / bandwidth), so with the
    # RTX 2080 Ti's 13.4 TFLOP/s and 616 GB/s against the V100's 15.7 and 900 every layer is
    # slower by a factor between 15.7 / 13.4 = 1.172 (compute-bound) and 900 / 616 = 1.461
    # (memory-bound), and so is the whole iteration.
    def layer_sum(trace):
        return sum(layer["forward_us"] + layer["backward_us"] for layer in trace["layers"])

    estimates = {}
    for gpu in ("v100", "rtx2080ti"):
        out_file = os.path.join(tmp, f"resnet50_{gpu}.json")
        r = tool("model_trace.py", "--model", "resnet50", "--gpu", gpu, "-o", out_file)
        estimates[gpu] = json.load(open(out_file)) if r.returncode == 0 else {"layers": []}
    ratio = layer_sum(estimates["rtx2080ti"]) / max(layer_sum(estimates["v100"]), 1e-9)
    CHECKS.check("model_trace --gpu rtx2080ti: between the compute and the memory ratio",
                 1.172 < ratio < 1.461 and
                 estimates["rtx2080ti"].get("device") == "NVIDIA GeForce RTX 2080 Ti (estimated)",
                 f"ratio {ratio:.3f}")
    # docs/guide.md's commodity cluster: that estimate at batch 64 in a scenario that gives one
    # card's measured 290 images/s, so one GPU's iteration is 64 / 290 s = 220.690 ms.
    out_file = os.path.join(tmp, "r50_2080ti.json")
    r = tool("model_trace.py", "--model", "resnet50", "--batch", "64", "--gpu", "rtx2080ti",
             "-o", out_file)
    scenario_file = os.path.join(tmp, "cluster.json")
    with open(scenario_file, "w") as f:
        json.dump({"trace": "r50_2080ti.json",
                   "cluster": {"gpus": 16, "node": "geforce_pcie3_4gpu"},
                   "network": {"bandwidth_gbps": 10, "transport": "tcp"},
                   "communication": {"collective": {"algorithm": "ring_allreduce"},
                                     "merge": {"policy": ["fusion", "mgwfbp"]}},
                   "compute": {"single_gpu_samples_per_s": 290}}, f)
    run = subprocess.run([SGDSIM, "run", scenario_file], capture_output=True, text=True)
    CHECKS.check("the guide's commodity cluster: one GPU at its measured 290 images/s",
                 r.returncode == 0 and run.returncode == 0 and
                 "= 220.690 ms per iteration on one GPU (scaled to one GPU's measured 290 "
                 "samples/s)" in run.stdout, r.stderr + run.stdout + run.stderr)
    # Inception-v4, built from the paper's figures (not in torchvision): 42,679,816 parameters,
    # the count Keras Hub publishes for its inception_v4_imagenet preset and osmr/imgclsmob's
    # test asserts for its InceptionV4; 299 x 299 input.
    out_file = os.path.join(tmp, "inception_v4.json")
    r = tool("model_trace.py", "--model", "inception_v4", "-o", out_file)
    derived = json.load(open(out_file)) if r.returncode == 0 else {"layers": []}
    CHECKS.check("model_trace inception_v4: the published parameter count",
                 elements(derived) == 42_679_816, r.stderr)
    # Its layers named by the paper's blocks (the stem's first convolution, the last Inception-C,
    # the classifier), and its provenance saying where the model comes from: not torchvision.
    names = [layer["name"] for layer in derived["layers"]]
    description = derived.get("provenance", {}).get("description", "")
    CHECKS.check("model_trace inception_v4: layers named by the paper's blocks, provenance its own",
                 names[:1] == ["features.stem_conv1.conv"] and names[-1] == "classifier"
                 and any(n.startswith("features.inception_c3.") for n in names)
                 and "Szegedy" in description and "torchvision" not in description,
                 f"{names[:2]} {names[-1:]} {description[:120]}")
    # Transformers against the public layer tables (when ../shared/reference is present): BERT
    # pre-training with NVIDIA's vocabulary of 30,528, tensor by tensor.
    tables = os.path.join(os.environ.get("SGDSIM_REFERENCE") or os.path.join(
        ROOT, "..", "shared", "reference"), "layer_tables")
    for name, hidden, layers, heads in (("bert_base", 768, 12, 12), ("bert_large", 1024, 24, 16)):
        table = os.path.join(tables, f"{name}_pretraining_v30528_params.csv")
        if not os.path.exists(table):
            print(f"SKIPPED: {table} not found: transformer tensors not compared")
            continue
        config = os.path.join(tmp, f"{name}.json")
        with open(config, "w") as f:
            json.dump({"model_type": "bert", "vocab_size": 30528, "hidden_size": hidden,
                       "num_hidden_layers": layers, "num_attention_heads": heads,
                       "intermediate_size": 4 * hidden, "max_position_embeddings": 512,
                       "type_vocab_size": 2}, f)
        out_file = os.path.join(tmp, f"{name}_trace.json")
        r = tool("model_trace.py", "--config", config, "-o", out_file)
        derived = json.load(open(out_file)) if r.returncode == 0 else {"layers": []}
        rows = [line.split(",") for line in open(table).read().splitlines()[1:]]
        CHECKS.check(f"model_trace {name}: the layer table's tensors, in order",
                     tensors(derived) == [(row[1], int(row[3])) for row in rows], r.stderr)
    gpt2_table = os.path.join(tables, "gpt2_small_params.csv")
    if os.path.exists(gpt2_table):
        r = tool("model_trace.py", "--model", "gpt2", "-o", os.path.join(tmp, "gpt2.json"))
        derived = json.load(open(os.path.join(tmp, "gpt2.json"))) if r.returncode == 0 else {
            "layers": []}
        rows = [line.split(",") for line in open(gpt2_table).read().splitlines()[1:]]
        CHECKS.check("model_trace gpt2: the layer table's tensors, in order",
                     tensors(derived) == [(row[1], int(row[3])) for row in rows], r.stderr)


# The bad-input table: every tool fed input it must refuse. Each case runs in a fresh folder
# holding t.json (tests/data/four_layers.json: forward 4 x 1000 us, backward 1800 + 1000 + 2000
# + 1000 us, optimizer 500 us, 10,300 us in all) and the files it names, and asserts exit 2, one
# line "TOOL: error: ..." with the phrase, no traceback, and no file created, changed or removed.
FOUR_LAYERS = json.load(open(os.path.join(ROOT, "tests", "data", "four_layers.json")))
CAPTURE = os.path.join(ROOT, "tools", "capture")


def trace_with(change):
    """four_layers.json as text after change(trace) edited it in place."""
    trace = json.loads(json.dumps(FOUR_LAYERS))
    change(trace)
    return json.dumps(trace, indent=1)


TRACE_TEXT = trace_with(lambda trace: None)
OPTIMIZER = '"optimizer_us": 500'  # where the textual edits below go
RESCALE = "rescale_trace.py"
ESTIMATE = "estimate_trace.py"
PROFILE = "kineto_profile.py"
CAPTURING = "capture.py"
TINY = ["--model", "tiny_model:build"]


def rescale(what, files, phrase, source="x.json", factor="2", out="o.json"):
    """A case of rescale_trace.py reading source and writing out."""
    return (what, RESCALE, [source, "--factor", factor, "-o", out], files, phrase)


def capture(what, script, options, phrase, out="o.json"):
    """A case of capture.py or kineto_profile.py on the tiny model, writing out."""
    return (what, script, [*TINY, *options, "-o", out], {}, phrase)


# Outputs no tool can write: (how, -o value, phrase). /proc takes no new files, not even from root.
UNWRITABLE = [("into a folder", ".", ".: is a folder"),
              ("into a missing folder", "no/o.json", "no/o.json: cannot write: no folder"),
              ("onto a full device", "/dev/full", "/dev/full: cannot write: No space left on device"),
              ("into /proc", "/proc/o.json", "/proc/o.json: cannot write")]
# Factors refused as "must be a finite number above 0, found ..." (the value as Python prints it).
NOT_ABOVE_0 = [("0", "0.0"), ("-2", "-2.0"), ("nan", "nan"), ("inf", "inf")]

# (what, tool, arguments, {file: text, or bytes, or ("link", target)}, phrase in the message)
CASES = [
    # rescale_trace.py: unreadable input.
    rescale("rescale a missing trace", {}, "nope.json: cannot read", source="nope.json"),
    rescale("rescale a folder", {}, ".: cannot read", source="."),
    rescale("rescale a binary file", {"b.json": b"\x7fELF\x02\x01\x01\x00\xff\xfe"},
            "b.json: not UTF-8 text", source="b.json"),
    rescale("rescale a Latin-1 trace",
            {"l.json": TRACE_TEXT.replace("hand-made", "caf\xe9").encode("latin-1")},
            "l.json: not UTF-8 text", source="l.json"),
    rescale("rescale an empty file", {"e.json": ""}, "e.json: malformed JSON at line 1, column 1",
            source="e.json"),
    rescale("rescale a truncated trace", {"x.json": TRACE_TEXT[:200]}, "x.json: malformed JSON"),
    rescale("rescale a trace with NaN",
            {"x.json": TRACE_TEXT.replace(OPTIMIZER, '"optimizer_us": NaN')},
            "NaN is not a JSON number"),
    rescale("rescale a trace with 1e400 (beyond a double)",
            {"x.json": TRACE_TEXT.replace(OPTIMIZER, '"optimizer_us": 1e400')}, "beyond a double"),
    rescale("rescale a trace with a key given twice",
            {"x.json": TRACE_TEXT.replace(OPTIMIZER, OPTIMIZER + ', "optimizer_us": 1')},
            "'optimizer_us' given twice"),
    rescale("rescale a JSON array", {"x.json": "[]"}, "x.json: not an sgdsim trace"),
    rescale("rescale a trace without layers", {"x.json": trace_with(lambda t: t.update(layers=[]))},
            "x.json: layers: expected a non-empty"),
    rescale("rescale a layer time given as text",
            {"x.json": trace_with(lambda t: t["layers"][1].update(forward_us="fast"))},
            'layers[1].forward_us: expected a number of microseconds, found "fast"'),
    rescale("rescale a negative layer time",
            {"x.json": trace_with(lambda t: t["layers"][2].update(backward_us=-1))},
            "layers[2].backward_us: -1 us is not a time sgdsim can hold"),
    rescale("rescale gradients that are not an array",
            {"x.json": trace_with(lambda t: t["layers"][0].update(gradients=7))},
            "layers[0].gradients: expected an array"),
    rescale("rescale a trace without provenance",
            {"x.json": trace_with(lambda t: t.pop("provenance"))}, "x.json: provenance: missing"),
    # rescale_trace.py: factors. 1e-320 is a subnormal above 0: 500 us / 1e-320 overflows to
    # infinity, which was written as Infinity before.
    rescale("rescale by 1e-320", {}, "optimizer_us divided by", source="t.json", factor="1e-320"),
    # Every layer stays below 9e12 us (2000 us / 1e-9 = 2e12 us) but the iteration does not:
    # 10,300 us / 1e-9 = 1.03e13 us.
    rescale("rescale by 1e-9: an iteration beyond 9e12 us", {},
            "the rescaled iteration (check --factor): 10300000000000.0 us is not a time",
            source="t.json", factor="1e-9"),
    *[rescale(f"rescale by {factor}", {}, f"must be a finite number above 0, found {shown}",
              source="t.json", factor=factor) for factor, shown in NOT_ABOVE_0],
    rescale("rescale by a word", {}, "argument --factor: invalid float value: 'fast'",
            source="t.json", factor="fast"),
    ("rescale without a factor", RESCALE, ["t.json", "-o", "o.json"], {}, "give --factor"),
    ("rescale to an unknown GPU", RESCALE, ["t.json", "--from-gpu", "v100", "--to-gpu", "b200",
                                            "-o", "o.json"], {}, "argument --to-gpu"),
    # rescale_trace.py: outputs.
    rescale("rescale over its input", {}, "t.json: is also an input of this tool", source="t.json",
            out="t.json"),
    rescale("rescale over its input through a link", {"link.json": ("link", "t.json")},
            "link.json: is also an input of this tool", source="t.json", out="link.json"),
    *[rescale(f"rescale {how}", {}, phrase, source="t.json", out=out)
      for how, out, phrase in UNWRITABLE],
    # model_trace.py: what it cannot build.
    ("model_trace with an unknown model", "model_trace.py", ["--model", "resnet51", "-o", "o.json"],
     {}, "unknown model 'resnet51'"),
    ("model_trace with neither --model nor --config", "model_trace.py", ["-o", "o.json"], {},
     "give exactly one of --model and --config"),
    ("model_trace with a config of another kind", "model_trace.py",
     ["--config", "c.json", "-o", "o.json"], {"c.json": '{"model_type": "t5"}'},
     "model_type must be bert or gpt2"),
    ("model_trace with a config lacking a size", "model_trace.py",
     ["--config", "c.json", "-o", "o.json"], {"c.json": '{"model_type": "bert"}'},
     "bert needs hidden_size"),
    ("model_trace with a sequence past the positions", "model_trace.py",
     ["--model", "bert-base", "--sequence", "513", "-o", "o.json"], {},
     "longer than the model's 512 positions"),
    ("model_trace amp on a GPU without fast fp16", "model_trace.py",
     ["--model", "resnet50", "--gpu", "gtx1080ti", "--precision", "amp", "-o", "o.json"], {},
     "--gpu gtx1080ti: the NVIDIA GeForce GTX 1080 Ti has no fast fp16 with fp32 accumulation"),
    ("model_trace with malformed config JSON", "model_trace.py",
     ["--config", "c.json", "-o", "o.json"], {"c.json": '{"model_type": '}, "c.json"),
    # estimate_trace.py: arguments. 2^24 = 16,777,216 is the largest batch_size sgdsim reads.
    ("estimate with batch 0", ESTIMATE, ["--model", "vgg16", "--batch", "0", "-o", "o.json"], {},
     "--batch must be from 1 to 16777216, found 0"),
    ("estimate with batch 2^24 + 1", ESTIMATE,
     ["--model", "vgg16", "--batch", "16777217", "-o", "o.json"], {}, "found 16777217"),
    ("estimate with batch written as a word", ESTIMATE,
     ["--model", "vgg16", "--batch", "many", "-o", "o.json"], {}, "invalid int value: 'many'"),
    ("estimate with compute efficiency 0", ESTIMATE,
     ["--model", "vgg16", "--compute-efficiency", "0", "-o", "o.json"], {},
     "--compute-efficiency must be in (0, 1], found 0.0"),
    ("estimate with memory efficiency nan", ESTIMATE,
     ["--model", "vgg16", "--memory-efficiency", "nan", "-o", "o.json"], {},
     "--memory-efficiency must be in (0, 1], found nan"),
    # 1e-300 of the V100's 15.7 TFLOP/s makes VGG-16's first layer take about 3.5e302 us.
    ("estimate with compute efficiency 1e-300", ESTIMATE,
     ["--model", "vgg16", "--compute-efficiency", "1e-300", "-o", "o.json"], {},
     "layer features.0: forward_us"),
    ("estimate an unknown model", ESTIMATE, ["--model", "vgg17", "-o", "o.json"], {},
     "argument --model: invalid choice: 'vgg17'"),
    # estimate_trace.py: outputs (it exited 1 on an unwritable one).
    *[(f"estimate {how}", ESTIMATE, ["--model", "vgg16", "-o", out], {}, phrase)
      for how, out, phrase in UNWRITABLE],
    # capture.py and kineto_profile.py: what they refuse before importing PyTorch (their runs on
    # real models are tests/capture_test.py's).
    capture("capture with batch 2^24 + 1", CAPTURING, ["--batch", "16777217"],
            "--batch must be from 1 to 16777216, found 16777217"),
    capture("capture with 0 iterations", CAPTURING, ["--iterations", "0"],
            "--iterations must be from 1"),
    # torch.manual_seed takes 0 to 2^64 - 1.
    capture("capture with seed 2^64", CAPTURING, ["--seed", "18446744073709551616"],
            "--seed must be from 0"),
    capture("capture into a folder", CAPTURING, [], ".: is a folder", out="."),
    capture("capture into a missing folder", CAPTURING, [], "no/o.json: cannot write: no folder",
            out="no/o.json"),
    capture("capture with an unknown precision", CAPTURING, ["--precision", "fp8"],
            "argument --precision: invalid choice: 'fp8'"),
    capture("profile with warm-up -1", PROFILE, ["--warmup", "-1"], "--warmup from 0",
            out="o.json.gz"),
    capture("profile with sequence 0", PROFILE, ["--sequence", "0"],
            "--sequence must be at least 1, found 0", out="o.json.gz"),
    capture("profile into a missing folder", PROFILE, [], "no/o.json.gz: cannot write: no folder",
            out="no/o.json.gz"),
    ("profile without an output", PROFILE, TINY, {}, "the following arguments are required"),
    # The comparison and reference-import scripts.
    ("compare a missing trace", "compare_traces.py", ["t.json", "none.json"], {},
     "none.json: cannot read"),
    ("compare a JSON file that is no trace", "compare_traces.py", ["t.json", "x.json"],
     {"x.json": "[1, 2]"}, "x.json: not an sgdsim trace"),
    ("import profiles with an sgdsim that is no program", "import_reference_profiles.py",
     ["t.json", ".", "."], {}, "t.json: not an executable sgdsim"),
    ("import profiles without the plain times", "import_reference_profiles.py",
     [sys.executable, ".", "."], {}, "plain_iteration_times.txt: cannot read"),
]

check_refusals(CHECKS, CASES,
               lambda script: os.path.join(
                   CAPTURE if script in (CAPTURING, PROFILE, "compare_traces.py",
                                         "import_reference_profiles.py") else TOOLS, script),
               lambda files: {"t.json": TRACE_TEXT, **files})
SCRIPTS = {name for folder in (TOOLS, CAPTURE) for name in os.listdir(folder)
           if name.endswith(".py")}
CHECKS.check("every estimation and capture script has bad-input cases",
             SCRIPTS <= {os.path.basename(case[1]) for case in CASES}, sorted(SCRIPTS))

CHECKS.finish()
