#!/usr/bin/env python3
"""Capture an sgdsim trace (schema v1) from real PyTorch training iterations.

Runs warm-up iterations, then timed iterations without instrumentation (the measured iteration
time), then the instrumented ones. --method profiler (the default on a GPU) records them with
PyTorch's profiler and derives the trace with `sgdsim trace import --from kineto`: per-layer GPU
kernel time and readiness on the GPU's timeline, undisturbed by hooks. --method hooks times every
leaf module's forward and backward and the moment each gradient becomes ready with hooks and
events (any PyTorch; on launch-bound models the hooks inflate the times). Writes the trace
atomically.

  capture.py --model resnet50 --device cuda --batch 64 --precision amp -o trace.json
  capture.py --model resnet18 --device cpu --batch 8 --method hooks -o trace.json
  capture.py --model mypkg.models:build --batch 16 -o trace.json   (your own module)

Model names: torchvision models (resnet18, resnet50, vgg16, resnet152, densenet201,
inception_v3, ...), and bert-base-uncased, bert-large-uncased, gpt2 built from their configs with
transformers (no weights are downloaded). A user function `module:function` is called as
function(batch_size, device) and returns (model, loss_fn, inputs, targets)."""
import argparse
import contextlib
import datetime
import gzip
import importlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from tool_io import (ArgumentParser, BadInput, check_batch, check_outputs, run,  # noqa: E402
                     special_file, write_files, write_json)

MAX_ITERATIONS = 1 << 30  # the most warm-up or timed iterations a trace may state
MAX_SEED = (1 << 64) - 1  # torch.manual_seed takes an unsigned 64-bit seed


def progress(message):
    print(f"capture: {message}", file=sys.stderr, flush=True)


def import_torch():
    try:
        import torch  # noqa: F401
    except ImportError as error:
        raise BadInput(f"PyTorch is not installed ({error}); on Debian: apt-get install "
                       "python3-torch python3-torchvision") from error
    return __import__("torch")


def torchvision_model(torch, name, batch, device):
    try:
        import torchvision
    except ImportError as error:
        raise BadInput("torchvision is not installed (apt-get install python3-torchvision)") from error
    builders = {n: f for n, f in vars(torchvision.models).items()
                if callable(f) and not n.startswith("_") and n.islower()}
    if name not in builders:
        return None
    kwargs = {}
    size = 224
    if name == "inception_v3":
        kwargs = {"aux_logits": False, "init_weights": False}
        size = 299
    elif name.startswith("googlenet"):
        kwargs = {"aux_logits": False, "init_weights": False}
    try:
        model = builders[name](weights=None, **kwargs)
    except TypeError:  # torchvision < 0.13
        model = builders[name](pretrained=False, **kwargs)
    inputs = torch.randn(batch, 3, size, size, device=device)
    targets = torch.randint(0, 1000, (batch,), device=device)
    return model.to(device), torch.nn.CrossEntropyLoss(), inputs, targets


def transformers_model(torch, name, batch, device, sequence):
    configs = {"bert-base-uncased": ("BertConfig", "BertForMaskedLM", {}),
               "bert-large-uncased": ("BertConfig", "BertForMaskedLM",
                                      {"hidden_size": 1024, "num_hidden_layers": 24,
                                       "num_attention_heads": 16, "intermediate_size": 4096}),
               "gpt2": ("GPT2Config", "GPT2LMHeadModel", {}),
               "gpt2-medium": ("GPT2Config", "GPT2LMHeadModel",
                               {"n_embd": 1024, "n_layer": 24, "n_head": 16})}
    if name not in configs:
        return None
    try:
        transformers = importlib.import_module("transformers")
    except ImportError as error:
        raise BadInput(f"model {name} needs the transformers package, which is not installed "
                       "here; capture it where transformers is available, or pass --model "
                       "module:function") from error
    config_name, model_name, overrides = configs[name]
    config = getattr(transformers, config_name)(**overrides)
    positions = getattr(config, "max_position_embeddings", getattr(config, "n_positions", None))
    if positions and sequence > positions:
        raise BadInput(f"--sequence {sequence} is longer than {name} takes "
                       f"({positions} tokens)")
    model = getattr(transformers, model_name)(config).to(device)
    vocabulary = config.vocab_size
    inputs = torch.randint(0, vocabulary, (batch, sequence), device=device)
    targets = inputs.clone()

    class TokenLoss(torch.nn.Module):
        def forward(self, output, target):
            logits = output.logits if hasattr(output, "logits") else output[0]
            return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                     target.reshape(-1))
    return model, TokenLoss(), inputs, targets


def timm_model(torch, name, batch, device):
    """Models of the timm package (e.g. inception_v4), named "timm:NAME" or plainly NAME when
    torchvision has no model of that name."""
    name = name[len("timm:"):] if name.startswith("timm:") else name
    try:
        timm = importlib.import_module("timm")
    except ImportError:
        return None
    if name not in timm.list_models():
        return None
    model = timm.create_model(name, pretrained=False)
    size = model.default_cfg.get("input_size", (3, 224, 224))
    inputs = torch.randn(batch, *size, device=device)
    classes = getattr(model, "num_classes", 1000)
    targets = torch.randint(0, classes, (batch,), device=device)
    return model.to(device), torch.nn.CrossEntropyLoss(), inputs, targets


def user_model(name, batch, device):
    module_name, _, function_name = name.partition(":")
    try:
        module = importlib.import_module(module_name)
        function = getattr(module, function_name)
    except (ImportError, AttributeError) as error:
        raise BadInput(f"cannot load {name}: {error}") from error
    try:
        built = function(batch, device)
        model, loss, inputs, targets = built
    except BadInput:
        raise
    except Exception as error:  # the user's code: report it in one line
        raise BadInput(f"{name} raised {type(error).__name__}: {error}") from error
    return model, loss, inputs, targets


def build(torch, args, device):
    if ":" in args.model and not args.model.startswith("timm:"):
        return user_model(args.model, args.batch, device)
    built = None
    if not args.model.startswith("timm:"):
        built = torchvision_model(torch, args.model, args.batch, device)
    if built is None:
        built = transformers_model(torch, args.model, args.batch, device, args.sequence)
    if built is None:
        built = timm_model(torch, args.model, args.batch, device)
    if built is None:
        raise BadInput(f"unknown model {args.model!r}: give a torchvision model name (e.g. "
                       "resnet50), a timm model (timm:inception_v4, needs timm), "
                       "bert-base-uncased, bert-large-uncased, gpt2, gpt2-medium, or "
                       "module:function")
    return built


class Clock:
    """Timestamps: CUDA events on a GPU (read after a synchronize), perf_counter on a CPU."""

    def __init__(self, torch, device):
        self.torch = torch
        self.cuda = device.type == "cuda"
        self.marks = []

    def mark(self):
        if self.cuda:
            event = self.torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            self.marks.append(time.perf_counter())
        return len(self.marks) - 1

    def seconds(self):
        """All marks as seconds from the first one (synchronising the GPU first)."""
        if not self.marks:
            return []
        if self.cuda:
            self.torch.cuda.synchronize()
            first = self.marks[0]
            return [first.elapsed_time(event) / 1e3 for event in self.marks]
        return [mark - self.marks[0] for mark in self.marks]

    def reset(self):
        self.marks = []


def step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler, clock=None, stamps=None):
    """One training iteration. amp is None for fp32, else the autocast dtype (torch.float16 or
    torch.bfloat16). With a clock, marks forward start, backward start, optimizer start and end
    into `stamps`."""
    device_type = "cuda" if inputs.is_cuda else "cpu"
    if clock is not None:
        stamps["start"] = clock.mark()
    optimizer.zero_grad(set_to_none=True)
    autocast = (torch.autocast(device_type=device_type, dtype=amp) if amp is not None
                else contextlib.nullcontext())
    with autocast:
        output = model(inputs)
        loss = loss_fn(output, targets)
    if clock is not None:
        stamps["backward"] = clock.mark()
    (scaler.scale(loss) if scaler else loss).backward()
    if clock is not None:
        stamps["optimizer"] = clock.mark()
    if scaler:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    if clock is not None:
        stamps["end"] = clock.mark()


def synchronize(torch, device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def leaf_modules(model):
    """Modules without children, in registration order, with their qualified names."""
    return [(name, module) for name, module in model.named_modules()
            if name and not list(module.children())]


def parameter_owners(model, leaves):
    """id(parameter) -> (leaf index, qualified name, parameter) for every parameter of the model.
    A parameter held by a module with children (timm's BatchNormAct2d, a transformer's position
    embedding on the root) is listed under that module's first leaf; its ready time is measured
    by its own gradient hook either way."""
    index_of = {name: index for index, (name, _) in enumerate(leaves)}
    owner = {}
    for name, module in model.named_modules():
        direct = list(module.named_parameters(recurse=False))
        if not direct:
            continue
        if name in index_of:
            index = index_of[name]
        else:
            prefix = f"{name}." if name else ""
            index = next((i for i, (leaf, _) in enumerate(leaves) if leaf.startswith(prefix)), None)
            if index is None:
                raise BadInput(f"module {name or '(root)'} holds parameters but has no leaf "
                               "module to list them under")
        for parameter_name, parameter in direct:
            full_name = f"{name}.{parameter_name}" if name else parameter_name
            owner.setdefault(id(parameter), (index, full_name, parameter))  # shared: first owner
    return owner


def check_device(torch, args):
    if args.device == "cuda" and not torch.cuda.is_available():
        raise BadInput("--device cuda, but no CUDA GPU is available here; use --device cpu")


def training_setup(torch, args, out_of_place=False):
    """The model built on its device and in training mode, SGD with momentum, the precision's
    autocast dtype and scaler: (device, model, loss_fn, inputs, targets, optimizer, amp, scaler).
    out_of_place turns in-place modules (ReLU(inplace=True)) out of place, which backward hooks
    need; it changes memory use, not compute."""
    check_device(torch, args)
    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    model, loss_fn, inputs, targets = build(torch, args, device)
    model.train()
    if out_of_place:
        for module in model.modules():
            if getattr(module, "inplace", False):
                module.inplace = False
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp, scaler = precision_setup(torch, args, device)
    return device, model, loss_fn, inputs, targets, optimizer, amp, scaler


def plain_and_overheads(torch, args, device, model, loss_fn, inputs, targets, optimizer, amp,
                        scaler):
    """The plain timed iterations' seconds, and with --framework-overhead ddp what DDP adds."""
    plain = timed_iterations(torch, args, model, loss_fn, inputs, targets, optimizer, amp, scaler,
                             device, "timed")
    overheads = None
    if args.framework_overhead == "ddp":
        overheads = ddp_overheads(torch, args, device, model, loss_fn, inputs, targets, amp,
                                  statistics.median(plain))
    return plain, overheads


def capture(args):
    if args.method == "profiler":
        return capture_with_profiler(args)
    torch = import_torch()
    device, model, loss_fn, inputs, targets, optimizer, amp, scaler = training_setup(
        torch, args, out_of_place=True)
    plain, overheads = plain_and_overheads(torch, args, device, model, loss_fn, inputs, targets,
                                           optimizer, amp, scaler)

    leaves = leaf_modules(model)
    clock = Clock(torch, device)
    events = []  # (kind, leaf index or parameter name, mark index)
    handles = []
    def after_forward(index):
        # Forward ends now; the gradient of the output arriving later marks the moment this
        # layer's backward starts (a tensor hook, which unlike module backward hooks tolerates the
        # in-place residual additions of models such as ResNet).
        def hook(module, inputs, output):
            events.append(("forward_end", index, clock.mark()))
            first = output[0] if isinstance(output, (tuple, list)) else output
            if isinstance(first, torch.Tensor) and first.requires_grad:
                first.register_hook(
                    lambda grad: events.append(("backward_start", index, clock.mark())))
        return hook

    for index, (name, module) in enumerate(leaves):
        handles.append(module.register_forward_pre_hook(
            lambda m, i, index=index: events.append(("forward_start", index, clock.mark()))))
        handles.append(module.register_forward_hook(after_forward(index)))
    owner = parameter_owners(model, leaves)
    for key, (index, full_name, parameter) in owner.items():
        if not parameter.requires_grad:
            continue
        if hasattr(parameter, "register_post_accumulate_grad_hook"):  # PyTorch >= 2.1
            handles.append(parameter.register_post_accumulate_grad_hook(
                lambda p, full_name=full_name: events.append(("ready", full_name, clock.mark()))))
        else:
            handles.append(parameter.register_hook(
                lambda g, full_name=full_name: events.append(("ready", full_name, clock.mark()))))

    forward = [[] for _ in leaves]
    first_run = {}  # leaf index -> position of its first forward in an iteration
    backward_time = [[] for _ in leaves]
    ready = {}
    optimizer_times = []
    instrumented = []
    for i in range(args.iterations):
        clock.reset()
        events.clear()
        stamps = {}
        step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler, clock, stamps)
        seconds = clock.seconds()
        origin = seconds[stamps["backward"]]
        backward_total = seconds[stamps["optimizer"]] - origin
        # A leaf may run several times per iteration (ResNet reuses its ReLU): sum its calls.
        forward_sum = {}
        open_forward = {}
        starts = []  # (seconds into backward, leaf): one per call whose output got a gradient
        for kind, key, mark in events:
            if kind == "forward_start":
                open_forward[key] = seconds[mark]
                first_run.setdefault(key, len(first_run))
            elif kind == "forward_end" and key in open_forward:
                forward_sum[key] = forward_sum.get(key, 0.0) + seconds[mark] - open_forward.pop(key)
            elif kind == "backward_start":
                starts.append((seconds[mark] - origin, key))
            elif kind == "ready":
                ready.setdefault(key, []).append(seconds[mark] - origin)
        for key, total in forward_sum.items():
            forward[key].append(total)
        # Each call's backward lasts until the next one starts (the last until backward ends).
        starts.sort()
        backward_sum = {}
        for position, (begin, key) in enumerate(starts):
            finish = starts[position + 1][0] if position + 1 < len(starts) else backward_total
            backward_sum[key] = backward_sum.get(key, 0.0) + finish - begin
        for key, total in backward_sum.items():
            backward_time[key].append(total)
        optimizer_times.append(seconds[stamps["end"]] - seconds[stamps["optimizer"]])
        instrumented.append(seconds[stamps["end"]] - seconds[stamps["start"]])
        progress(f"instrumented iteration {i + 1}/{args.iterations}: {instrumented[-1] * 1e3:.2f} ms")
    for handle in handles:
        handle.remove()
    trace = build_trace(torch, args, device, leaves, owner, forward, first_run, backward_time,
                        ready, optimizer_times, plain, instrumented)
    if overheads is not None:
        trace["framework_overheads"] = overheads
    return trace


def find_sgdsim(given):
    """The sgdsim binary that imports the profile: --sgdsim, $SGDSIM, `sgdsim` on PATH, else a
    build of this repository (build/release, build/test)."""
    candidates = [given, os.environ.get("SGDSIM"), shutil.which("sgdsim")]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates += [os.path.join(root, "build", kind, "src", "sgdsim") for kind in ("release", "test")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    if given:
        raise BadInput(f"--sgdsim {given}: not an executable file")
    raise BadInput("--method profiler imports the profile with sgdsim, and none was found (not "
                   "in $SGDSIM, on PATH, or in this repository's build/release or build/test); "
                   "build it (tools/run.sh does) or give --sgdsim PATH")


def record_profile(torch, device, iterations, run_step, path, with_stack=False):
    """Records `iterations` calls of run_step() with PyTorch's profiler (CPU and CUDA activity,
    input shapes, a ProfilerStep#N annotation around each iteration, module frames with
    with_stack) and exports the Chrome trace to `path` (gzip-compressed for a name ending in
    .gz); returns each iteration's seconds from the same clock as the plain ones."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    seconds = []
    with torch.profiler.profile(activities=activities, record_shapes=True, with_modules=True,
                                with_stack=with_stack) as profiler:
        for i in range(iterations):
            with torch.profiler.record_function(f"ProfilerStep#{i}"):
                seconds.append(run_step())
            synchronize(torch, device)
            progress(f"profiled iteration {i + 1}/{iterations}: {seconds[-1] * 1e3:.2f} ms")
    export_profile(profiler, path)
    return seconds


def export_profile(profiler, path):
    """Exports the profile to a scratch folder beside the output (a large model's profile runs to
    hundreds of MB), then writes it to `path`, gzip-compressed for a name ending in .gz."""
    beside = None if special_file(path) else os.path.dirname(os.path.realpath(path))
    try:
        with tempfile.TemporaryDirectory(dir=beside, prefix=".profile-") as folder:
            exported = os.path.join(folder, "profile.json")
            profiler.export_chrome_trace(exported)
            compress = path.endswith(".gz")
            write_files([(path, lambda out: copy_file(exported, out, compress))])
    except OSError as error:  # the scratch folder or the export
        raise BadInput(f"{path}: cannot write: {error.strerror or error}") from error


def copy_file(source_path, out, compress):
    """A file into an open output, gzip-compressed when asked."""
    with open(source_path, "rb") as source:
        if not compress:
            shutil.copyfileobj(source, out)
            return
        with gzip.GzipFile(filename="", mode="wb", fileobj=out) as packed:
            shutil.copyfileobj(source, packed)


def capture_with_profiler(args):
    """Plain timed iterations, then profiled ones; the trace is what `sgdsim trace import --from
    kineto` derives from the profile, with the capture's provenance added."""
    torch = import_torch()
    check_device(torch, args)
    if not getattr(torch.autograd, "kineto_available", lambda: False)():
        raise BadInput(f"--method profiler needs a PyTorch built with Kineto, its profiler "
                       f"backend; this PyTorch {torch.__version__} has none (Debian's CPU build "
                       f"does not): use --method hooks")
    sgdsim = find_sgdsim(args.sgdsim)
    device, model, loss_fn, inputs, targets, optimizer, amp, scaler = training_setup(torch, args)
    plain, overheads = plain_and_overheads(torch, args, device, model, loss_fn, inputs, targets,
                                           optimizer, amp, scaler)

    def one_step():
        return timed_step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler, device)

    # The parameters a plain iteration gave a gradient (a module the loss does not use, such as
    # Inception-v3's auxiliary classifier, gets none): the profile must show exactly these.
    parameters = sum(p.numel() for p in model.parameters()
                     if p.requires_grad and p.grad is not None)
    measured = statistics.median(plain)
    sequence = args.model.startswith(("bert", "gpt"))
    with tempfile.TemporaryDirectory(prefix="sgdsim-capture-") as folder:
        profile = args.profile or os.path.join(folder, "profile.json.gz")
        profiled = record_profile(torch, device, args.profile_iterations, one_step, profile,
                                  with_stack=args.with_stack)
        imported = os.path.join(folder, "trace.json")
        command = [sgdsim, "trace", "import", profile, "--from", "kineto", "--model", args.model,
                   "--batch", str(args.batch), "--precision", args.precision,
                   "--measured-us", f"{measured * 1e6:.3f}", "--parameters", str(parameters),
                   "-o", imported]
        if sequence:
            command += ["--sequence", str(args.sequence)]
        if device.type == "cpu":  # the profile may name a GPU the run did not use
            command += ["--device", "cpu"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BadInput(f"sgdsim could not import the profile: {done.stderr.strip()}")
        with open(imported, encoding="utf-8") as file:
            trace = json.load(file)
    overhead = statistics.median(profiled) / measured - 1.0 if measured > 0 else 0.0
    layer_sum = (sum(l["forward_us"] + l["backward_us"] for l in trace["layers"]) +
                 trace["optimizer_us"]) / 1e6
    provenance = trace["provenance"]
    provenance.update(versions_and_device(torch, device))
    provenance.update({
        "method": "captured",
        "date": datetime.date.today().isoformat(),
        "pytorch": torch.__version__,
        "warmup_iterations": args.warmup,
        "timed_iterations": args.iterations,
        "instrumentation_overhead": round(overhead, 4),
        "layer_sum_ratio": round(layer_sum / measured, 4) if measured > 0 else 1.0,
    })
    provenance.pop("framework", None)
    provenance["description"] = (
        f"Captured by tools/capture/capture.py --method profiler: {args.warmup} warm-up, "
        f"{args.iterations} plain timed iterations (median {measured * 1e3:.3f} ms) and "
        f"{args.profile_iterations} profiled ones (median {statistics.median(profiled) * 1e3:.3f} ms, "
        f"{overhead:+.1%}), precision {args.precision}, SGD with momentum. "
        + provenance["description"])
    trace["framework"] = framework_versions(torch)
    if overheads is not None:
        trace["framework_overheads"] = overheads
    return trace


def precision_setup(torch, args, device):
    """The autocast dtype (None for fp32) and the gradient scaler (fp16 only)."""
    amp = {"fp32": None, "amp": torch.float16, "bf16": torch.bfloat16}[args.precision]
    if amp is not None and device.type != "cuda":
        raise BadInput(f"--precision {args.precision} needs --device cuda")
    if amp == torch.bfloat16 and not torch.cuda.is_bf16_supported():
        raise BadInput("--precision bf16, but this GPU does not support bfloat16")
    # fp16 autocast needs loss scaling; bf16 has fp32's exponent range and does not.
    return amp, torch.cuda.amp.GradScaler() if amp == torch.float16 else None


def versions_and_device(torch, device):
    """The provenance keys of the device: GPU name, CUDA and driver versions (none on a CPU)."""
    if device.type != "cuda":
        return {}
    return {"gpu": torch.cuda.get_device_name(device), "cuda": str(torch.version.cuda),
            "driver": nvidia_driver()}


def framework_versions(torch):
    versions = f"PyTorch {torch.__version__}"
    try:
        import torchvision
        versions += f", torchvision {torchvision.__version__}"
    except ImportError:
        pass
    return versions


# DDP's bucket caps for the two runs: one that holds the whole model in a bucket or two (DDP's
# first bucket stays at its 1 MiB), and one that gives every tensor a bucket of its own (with
# DDP's first-bucket size, dist._DEFAULT_FIRST_BUCKET_BYTES, set to one byte for that run).
LARGE_BUCKET_MB = 1 << 20
SMALL_BUCKET_MB = 1e-6


def timed_step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler, device):
    """One training iteration, timed end to end (CUDA events on a GPU): its seconds."""
    clock = Clock(torch, device)
    stamps = {}
    step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler, clock, stamps)
    seconds = clock.seconds()
    return seconds[stamps["end"]] - seconds[stamps["start"]]


def timed_iterations(torch, args, model, loss_fn, inputs, targets, optimizer, amp, scaler, device,
                     what, after_warmup=lambda: None):
    """Seconds of each of args.iterations uninstrumented iterations, after args.warmup untimed
    ones (and a call of after_warmup)."""
    for i in range(args.warmup):
        progress(f"{what}: warm-up {i + 1}/{args.warmup}")
        step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler)
    synchronize(torch, device)
    after_warmup()
    times = []
    for i in range(args.iterations):
        times.append(timed_step(torch, model, loss_fn, inputs, targets, optimizer, amp, scaler,
                                device))
        progress(f"{what} iteration {i + 1}/{args.iterations}: {times[-1] * 1e3:.2f} ms")
    return times


def ddp_overheads(torch, args, device, model, loss_fn, inputs, targets, amp, plain_seconds):
    """What PyTorch DDP adds on one GPU (a process group of one rank): the same iterations with
    the model wrapped, once with buckets that hold the whole model and once with a bucket per
    tensor, each allreduce counted by a communication hook. With t0 the plain iteration and
    (n1, t1), (n2, t2) the two wrapped runs' allreduce calls and times, the cost per call is
    (t2 - t1) / (n2 - n1) and the cost per iteration t1 - t0 - n1 x that (a negative estimate,
    noise on a fast model, is written as 0)."""
    import copy
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel
    backend = "nccl" if device.type == "cuda" else "gloo"
    runs = []
    first_bucket_bytes = dist._DEFAULT_FIRST_BUCKET_BYTES
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group(backend, init_method=f"file://{folder}/store", rank=0,
                                world_size=1)
        try:
            for cap in (LARGE_BUCKET_MB, SMALL_BUCKET_MB):
                dist._DEFAULT_FIRST_BUCKET_BYTES = first_bucket_bytes if cap > 1 else 1
                copy_of = copy.deepcopy(model)
                wrapped = DistributedDataParallel(
                    copy_of, device_ids=[device.index or 0] if device.type == "cuda" else None,
                    bucket_cap_mb=cap)
                calls = [0]

                def counting(state, bucket, calls=calls):
                    calls[0] += 1
                    return default_hooks.allreduce_hook(state, bucket)

                wrapped.register_comm_hook(None, counting)
                optimizer = torch.optim.SGD(wrapped.parameters(), lr=0.01, momentum=0.9)
                scaler = torch.cuda.amp.GradScaler() if amp == torch.float16 else None
                # DDP rebuilds its buckets after the first iteration: count the timed ones only.
                seconds = statistics.median(timed_iterations(torch, args, wrapped, loss_fn, inputs, targets,
                                           optimizer, amp, scaler, device,
                                           f"DDP ({'large' if cap > 1 else 'small'} buckets)",
                                           after_warmup=lambda calls=calls: calls.__setitem__(0, 0)))
                runs.append((calls[0] / args.iterations, seconds))
                del wrapped, copy_of, optimizer
        finally:
            dist._DEFAULT_FIRST_BUCKET_BYTES = first_bucket_bytes
            dist.destroy_process_group()
    (n1, t1), (n2, t2) = runs
    if n2 <= n1:
        raise BadInput(f"DDP made {n2:g} buckets with small caps and {n1:g} with large ones; the "
                       "model has too few tensors to separate the per-call cost")
    per_call = max(0.0, (t2 - t1) / (n2 - n1))
    per_iteration = max(0.0, t1 - plain_seconds - n1 * per_call)
    progress(f"DDP on {backend}: {n1:g} and {n2:g} allreduce calls per iteration, "
             f"{per_iteration * 1e6:.1f} us per iteration + {per_call * 1e6:.1f} us per call")
    return {"wrapper": "ddp", "backend": backend, "iteration_us": round(per_iteration * 1e6, 3),
            "message_us": round(per_call * 1e6, 3)}


def mean(values):
    return sum(values) / len(values) if values else 0.0


def build_trace(torch, args, device, leaves, owner, forward, first_run, backward_time, ready,
                optimizer_times, plain, instrumented):
    gradients_of = [[] for _ in leaves]
    for index, full_name, parameter in owner.values():
        if parameter.requires_grad and full_name in ready:
            gradients_of[index].append((full_name, parameter.numel(), mean(ready[full_name])))
    # Forward order: by when each leaf first ran; leaves that never ran but own gradients last.
    executed = sorted((i for i in range(len(leaves)) if forward[i] or gradients_of[i]),
                      key=lambda i: (first_run.get(i, len(leaves) + i), i))
    layers = []
    for index in executed:
        name, module = leaves[index]
        layers.append({
            "name": name,
            "forward_us": round(mean(forward[index]) * 1e6, 3),
            "backward_us": round(mean(backward_time[index]) * 1e6, 3),
            "gradients": [{"name": n, "elements": e, "ready_offset_us": round(o * 1e6, 3)}
                          for n, e, o in sorted(gradients_of[index])],
        })
    if not any(layer["gradients"] for layer in layers):
        raise BadInput("the model produced no gradients; is anything trainable?")
    measured = mean(plain)
    overhead = mean(instrumented) / measured if measured > 0 else 1.0
    layer_sum = sum(l["forward_us"] + l["backward_us"] for l in layers) / 1e6 + mean(optimizer_times)
    ratio = layer_sum / measured if measured > 0 else 0.0
    details = versions_and_device(torch, device)
    if device.type == "cuda":
        device_name = details["gpu"]
        driver = f"CUDA {torch.version.cuda}"
    else:
        device_name = f"CPU {platform.processor() or platform.machine()} ({torch.get_num_threads()} threads)"
        driver = "none"
    versions = framework_versions(torch)
    return {
        "format": "sgdsim-trace",
        "schema_version": 1,
        "model": args.model,
        "device": device_name,
        "framework": versions,
        "batch_size": args.batch,
        **({"sequence_length": args.sequence} if args.model.startswith(("bert", "gpt")) else {}),
        "gradient_dtype": "fp32",
        "measured_iteration_us": round(measured * 1e6, 3),
        "optimizer_us": round(mean(optimizer_times) * 1e6, 3),
        "provenance": {
            "method": "captured",
            "description": (
                f"Captured by tools/capture/capture.py on {device_name} ({driver}), {versions}, "
                f"precision {args.precision}, {args.warmup} warm-up and {args.iterations} timed "
                f"iterations, SGD with momentum. Layers are leaf modules in forward order; "
                f"in-place activations ran out of place. Instrumented iterations took "
                f"{overhead:.2f}x the plain ones; the layer sum is {ratio:.2f}x the "
                f"measured iteration ({layer_sum_note(ratio)})."
                + (f" Sequence length {args.sequence}." if args.model.startswith(("bert", "gpt")) else "")),
            "date": datetime.date.today().isoformat(),
            "pytorch": torch.__version__,
            **details,
            "precision": args.precision,
            "warmup_iterations": args.warmup,
            "timed_iterations": args.iterations,
            "instrumentation_overhead": round(overhead - 1.0, 4),
            "layer_sum_ratio": round(ratio, 4),
        },
        "layers": layers,
    }


def layer_sum_note(ratio):
    """What a layer sum far from the measured iteration means, for the provenance text."""
    if ratio < 0.97:
        return "the rest is work outside leaf modules"
    if ratio > 1.03:
        return ("the per-layer times include launch gaps the instrumentation adds; "
                "compute.layer_times \"scaled_to_measured\" rescales them")
    return "they agree"


def nvidia_driver():
    """The NVIDIA driver version, from the kernel module or nvidia-smi; "unknown" if neither."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as version:
            match = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9.]+)", version.read())
            if match:
                return match.group(1)
    except OSError:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def check_arguments(args):
    """The numeric options (shared with kineto_profile.py), checked before PyTorch is imported."""
    check_batch(args.batch)
    if not (1 <= args.iterations <= MAX_ITERATIONS and 0 <= args.warmup <= MAX_ITERATIONS):
        raise BadInput(f"--iterations must be from 1 and --warmup from 0, both up to "
                       f"{MAX_ITERATIONS}; found {args.iterations} and {args.warmup}")
    if args.sequence < 1:
        raise BadInput(f"--sequence must be at least 1, found {args.sequence}")
    if not 0 <= args.seed <= MAX_SEED:
        raise BadInput(f"--seed must be from 0 to {MAX_SEED}, found {args.seed}")


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", type=int, default=32, help="samples per iteration (default 32)")
    parser.add_argument("--precision", choices=["fp32", "amp", "bf16"], default="fp32",
                        help="fp32, amp (fp16 autocast with loss scaling) or bf16 (bf16 autocast)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    parser.add_argument("--warmup", type=int, default=3, help="untimed iterations (default 3)")
    parser.add_argument("--iterations", type=int, default=10, help="timed iterations (default 10)")
    parser.add_argument("--sequence", type=int, default=128, help="tokens per sample for BERT/GPT-2")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--framework-overhead", choices=["none", "ddp"], default="none",
                        help="ddp: also time the model wrapped in PyTorch DDP (one rank) with "
                             "large and per-tensor buckets, and write the cost DDP adds per "
                             "iteration and per allreduce call into the trace's "
                             "framework_overheads")
    parser.add_argument("--method", choices=["profiler", "hooks"], default=None,
                        help="profiler (default with --device cuda): record with PyTorch's "
                             "profiler and import with sgdsim; hooks (default on a CPU): time "
                             "leaf modules with hooks")
    parser.add_argument("--profile-iterations", type=int, default=5,
                        help="profiler: iterations recorded and averaged (default 5; a large "
                             "model's profile takes tens of MB per iteration)")
    parser.add_argument("--profile", help="profiler: also keep the profile here (.json or "
                                          ".json.gz)")
    parser.add_argument("--with-stack", action="store_true",
                        help="profiler: record module frames (with_stack), so layers are "
                             "nn.Modules instead of operators; slows the host")
    parser.add_argument("--sgdsim", help="profiler: the sgdsim binary that imports the profile "
                                         "(default: $SGDSIM, PATH, this repository's build)")
    parser.add_argument("-o", "--output", required=True)
    try:
        args = parser.parse_args(argv)
        if args.method is None:
            args.method = "profiler" if args.device == "cuda" else "hooks"
        check_arguments(args)
        if args.method == "hooks" and (args.profile or args.with_stack or args.sgdsim):
            raise BadInput("--profile, --with-stack and --sgdsim apply to --method profiler")
        if not 1 <= args.profile_iterations <= 1000:
            raise BadInput(f"--profile-iterations must be from 1 to 1000, found "
                           f"{args.profile_iterations}")
        check_outputs([args.output] + ([args.profile] if args.profile else []))
        trace = capture(args)
        write_json(args.output, trace)
    except KeyboardInterrupt:
        print("capture: interrupted; no trace written", file=sys.stderr)
        return 130
    layers = trace["layers"]
    total = sum(g["elements"] for l in layers for g in l["gradients"])
    progress(f"wrote {args.output}: {len(layers)} layers, {total} parameters, measured iteration "
             f"{trace['measured_iteration_us'] / 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
