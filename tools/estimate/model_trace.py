#!/usr/bin/env python3
"""Estimate an sgdsim trace (schema v1) for any torchvision model or transformer configuration.

Nothing is listed by hand: the model is built by PyTorch on the "meta" device (shapes only, no
weights, no download), one forward pass at the given batch runs under a dispatch mode that sees
every ATen operator, and each operator is charged to the layer (module with parameters of its
own) that was running, or that ran last, when it was called. Parameter-free operators (ReLU,
pooling, residual adds, softmax, attention's matrix products) fold into that layer, in forward
order. Each operator takes a roofline time, max(FLOPs / (peak x compute efficiency), bytes /
(bandwidth x memory efficiency)); backward costs twice forward's FLOPs and bytes (input and
weight gradients). Gradient sizes are the modules' own parameters, so they are exact.

Models: any name in torchvision.models (resnet50, vgg16, densenet161, inception_v3,
resnext101_32x8d, ...), inception_v4 (not in torchvision: built here from Szegedy et al. 2017,
"Inception-v4, Inception-ResNet and the Impact of Residual Connections on Learning", Figures 3-9,
each convolution followed by batch normalisation), or a transformer: bert-base, bert-large,
gpt2 (built-in configurations from the models' published hyperparameters), or --config FILE, a
Hugging Face style config.json
(model_type bert or gpt2 and its sizes).

Usage: model_trace.py --model resnet50 --batch 32 --gpu v100 -o traces/x.json
       model_trace.py --model bert-large --sequence 128 --batch 32 --gpu v100 -o bert.json
"""
import datetime
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from tool_io import (ArgumentParser, check_batch, check_iteration, check_outputs, fail,  # noqa: E402
                     run, write_json)

# Published peak dense throughput (fp32; fp16 where asked: tensor cores with fp32 accumulation,
# as mixed-precision training runs them; none where the GPU has no fast fp16) and memory
# bandwidth, at the reference boost clock, from NVIDIA's datasheets and architecture whitepapers
# (the source of each is its "source").
GPUS = {
    "k80": {"name": "NVIDIA Tesla K80 (one of its two GK210 GPUs)", "tflops": 4.37,
            "tflops_fp16": None, "bandwidth_gbs": 240.0,
            "source": "Tesla K80 datasheet: 8.73 TFLOPS fp32 with GPU Boost and 480 GB/s for "
                      "the board's two GPUs"},
    "p100": {"name": "NVIDIA Tesla P100 PCIe", "tflops": 9.3, "tflops_fp16": None,
             "bandwidth_gbs": 732.0,
             "source": "Tesla P100 datasheet (PCIe): 9.3 TFLOPS fp32, 732 GB/s; its 18.7 TFLOPS "
                       "fp16 is packed fp16 math with fp16 accumulation, no tensor cores, so "
                       "mixed precision's products with fp32 accumulation run near the fp32 rate"},
    "gtx1080ti": {"name": "NVIDIA GeForce GTX 1080 Ti", "tflops": 11.3, "tflops_fp16": None,
                  "bandwidth_gbs": 484.0,
                  "source": "GeForce GTX 1080 Ti specifications: 3,584 CUDA cores at 1,582 MHz "
                            "boost (x 2 FLOP = 11.3 TFLOPS), 11 Gbps on 352 bits = 484 GB/s; "
                            "GP102 runs fp16 at 1/64 of fp32"},
    "v100": {"name": "NVIDIA V100-SXM2", "tflops": 15.7, "tflops_fp16": 125.0,
             "bandwidth_gbs": 900.0, "source": "Tesla V100 datasheet (SXM2)"},
    "v100_pcie": {"name": "NVIDIA V100-PCIe", "tflops": 14.0, "tflops_fp16": 112.0,
                  "bandwidth_gbs": 900.0, "source": "Tesla V100 datasheet (PCIe)"},
    "t4": {"name": "NVIDIA T4", "tflops": 8.1, "tflops_fp16": 65.0, "bandwidth_gbs": 320.0,
           "source": "T4 datasheet: 8.1 TFLOPS fp32, 65 TFLOPS mixed precision, 320 GB/s"},
    "rtx2080ti": {"name": "NVIDIA GeForce RTX 2080 Ti", "tflops": 13.4, "tflops_fp16": 53.8,
                  "bandwidth_gbs": 616.0,
                  "source": "Turing architecture whitepaper, reference board: 13.4 TFLOPS fp32, "
                            "53.8 fp16 tensor with fp32 accumulation (GeForce: half the fp16-"
                            "accumulation rate), 616 GB/s"},
    "rtx3090": {"name": "NVIDIA GeForce RTX 3090", "tflops": 35.6, "tflops_fp16": 71.0,
                "bandwidth_gbs": 936.0,
                "source": "Ampere GA102 whitepaper: 35.6 TFLOPS fp32, 71 fp16 tensor with fp32 "
                          "accumulation (dense), 936 GB/s"},
    "a10": {"name": "NVIDIA A10", "tflops": 31.2, "tflops_fp16": 125.0, "bandwidth_gbs": 600.0,
            "source": "A10 datasheet: 31.2 TFLOPS fp32, 125 fp16 tensor (dense), 600 GB/s"},
    "a100": {"name": "NVIDIA A100-SXM4", "tflops": 19.5, "tflops_fp16": 312.0,
             "bandwidth_gbs": 1555.0, "source": "A100 datasheet (40 GB SXM4)"},
    "rtx4090": {"name": "NVIDIA GeForce RTX 4090", "tflops": 82.6, "tflops_fp16": 165.2,
                "bandwidth_gbs": 1008.0,
                "source": "Ada Lovelace architecture whitepaper: 82.6 TFLOPS fp32, 165.2 fp16 "
                          "tensor with fp32 accumulation (dense), 1,008 GB/s"},
    "h100": {"name": "NVIDIA H100-SXM5", "tflops": 67.0, "tflops_fp16": 989.0,
             "bandwidth_gbs": 3350.0, "source": "H100 datasheet (SXM5)"},
}

# Published hyperparameters (Devlin et al. 2019, Table/section 3; Radford et al. 2019, GPT-2
# small), in the keys of a Hugging Face config.json.
TRANSFORMERS = {
    "bert-base": {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768,
                  "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
                  "max_position_embeddings": 512, "type_vocab_size": 2},
    "bert-large": {"model_type": "bert", "vocab_size": 30522, "hidden_size": 1024,
                   "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
                   "max_position_embeddings": 512, "type_vocab_size": 2},
    "gpt2": {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12,
             "n_head": 12, "n_positions": 1024},
}
IMAGE_SIZE = {"inception_v3": 299, "inception_v4": 299}


def transformer_model(torch, config, sequence):
    """A BERT (pre-training heads: masked LM tied to the word embeddings, and next sentence) or
    a GPT-2 (language-model head tied to the token embeddings), built from a configuration."""
    nn = torch.nn
    meta = {"device": "meta"}  # shapes only: nothing is allocated or initialised
    kind = config.get("model_type")

    def size(*keys):
        for key in keys:
            if key in config:
                value = config[key]
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    fail(f"config: {key} must be a positive integer, found {value!r}")
                return value
        fail(f"config: {kind} needs {keys[0]}")

    if kind == "bert":
        hidden, heads = size("hidden_size"), size("num_attention_heads")
        layers, inner = size("num_hidden_layers"), size("intermediate_size")
        vocab, positions = size("vocab_size"), size("max_position_embeddings")
        types = size("type_vocab_size")
    elif kind == "gpt2":
        hidden, heads, layers = size("n_embd", "hidden_size"), size("n_head"), size("n_layer")
        inner = config.get("n_inner") or 4 * hidden
        vocab, positions, types = size("vocab_size"), size("n_positions"), 0
    else:
        fail(f"config: model_type must be bert or gpt2, found {kind!r}")
    if hidden % heads:
        fail(f"config: the hidden size {hidden} is not a multiple of {heads} heads")
    if sequence > positions:
        fail(f"--sequence {sequence} is longer than the model's {positions} positions")

    gelu, softmax = torch.nn.functional.gelu, torch.softmax

    def attend(q, k, v):
        b, s, _ = q.shape

        def split(t):
            return t.view(b, s, heads, hidden // heads).transpose(1, 2)

        q, k, v = split(q), split(k), split(v)
        scores = softmax(q @ k.transpose(-1, -2) / math.sqrt(hidden // heads), -1)
        return (scores @ v).transpose(1, 2).reshape(b, s, hidden)

    def holder(**children):
        """A module that only names its children, so parameters get Hugging Face's names."""
        module = nn.Module()
        for name, child in children.items():
            setattr(module, name, child)
        return module

    # Module names follow Hugging Face's BertForPreTraining and GPT2LMHeadModel, so that
    # gradient names match their parameter lists.
    class BertLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = holder(
                self=holder(**{n: nn.Linear(hidden, hidden, **meta)
                               for n in ("query", "key", "value")}),
                output=holder(dense=nn.Linear(hidden, hidden, **meta),
                              LayerNorm=nn.LayerNorm(hidden, **meta)))
            self.intermediate = holder(dense=nn.Linear(hidden, inner, **meta))
            self.output = holder(dense=nn.Linear(inner, hidden, **meta),
                                 LayerNorm=nn.LayerNorm(hidden, **meta))

        def forward(self, x):
            a, out = self.attention.self, self.attention.output
            x = out.LayerNorm(x + out.dense(attend(a.query(x), a.key(x), a.value(x))))
            h = gelu(self.intermediate.dense(x))
            return self.output.LayerNorm(x + self.output.dense(h))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = holder(word_embeddings=nn.Embedding(vocab, hidden, **meta),
                                     position_embeddings=nn.Embedding(positions, hidden, **meta),
                                     token_type_embeddings=nn.Embedding(types, hidden, **meta),
                                     LayerNorm=nn.LayerNorm(hidden, **meta))
            self.encoder = holder(layer=nn.ModuleList(BertLayer() for _ in range(layers)))
            self.pooler = holder(dense=nn.Linear(hidden, hidden, **meta))
            predictions = holder(transform=holder(dense=nn.Linear(hidden, hidden, **meta),
                                                  LayerNorm=nn.LayerNorm(hidden, **meta)))
            predictions.bias = nn.Parameter(torch.zeros(vocab, device="meta"))
            self.cls = holder(predictions=predictions,
                              seq_relationship=nn.Linear(hidden, 2, **meta))

        def forward(self, tokens):
            e = self.embeddings
            x = e.word_embeddings(tokens) + e.position_embeddings(
                torch.arange(tokens.shape[1], device=tokens.device))
            x = e.LayerNorm(x + e.token_type_embeddings(torch.zeros_like(tokens)))
            for layer in self.encoder.layer:
                x = layer(x)
            pooled = torch.tanh(self.pooler.dense(x[:, 0]))
            t = self.cls.predictions.transform
            y = t.LayerNorm(gelu(t.dense(x)))
            # The decoder is tied to the word embeddings: its gradient adds to theirs.
            y = y @ e.word_embeddings.weight.t() + self.cls.predictions.bias
            self.cls.seq_relationship(pooled)
            return y

    class Gpt2Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(hidden, **meta)
            self.attn = holder(c_attn=nn.Linear(hidden, 3 * hidden, **meta),
                               c_proj=nn.Linear(hidden, hidden, **meta))
            self.ln_2 = nn.LayerNorm(hidden, **meta)
            self.mlp = holder(c_fc=nn.Linear(hidden, inner, **meta),
                              c_proj=nn.Linear(inner, hidden, **meta))

        def forward(self, x):
            q, k, v = self.attn.c_attn(self.ln_1(x)).split(hidden, dim=-1)
            x = x + self.attn.c_proj(attend(q, k, v))
            return x + self.mlp.c_proj(gelu(self.mlp.c_fc(self.ln_2(x))))

    class Gpt2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, hidden, **meta)
            self.wpe = nn.Embedding(positions, hidden, **meta)
            self.h = nn.ModuleList(Gpt2Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(hidden, **meta)

        def forward(self, tokens):
            x = self.wte(tokens) + self.wpe(torch.arange(tokens.shape[1], device=tokens.device))
            for block in self.h:
                x = block(x)
            return self.ln_f(x) @ self.wte.weight.t()  # the head is tied to wte

    Model = Bert if kind == "bert" else Gpt2
    return Model(), (lambda batch: torch.zeros(batch, sequence, dtype=torch.long, device="meta"))


def inception_v4(torch):
    """Inception-v4 as Szegedy et al. 2017 draw it: the stem (Figure 3), 4 Inception-A
    (Figure 4), Reduction-A with k, l, m, n = 192, 224, 256, 384 (Figure 7, Table 1), 7
    Inception-B (Figure 5), Reduction-B (Figure 8), 3 Inception-C (Figure 6), average pooling,
    dropout and a 1,000-way classifier (Figure 9). "V" marks unpadded convolutions; every
    convolution has batch normalisation and a ReLU, and no bias of its own."""
    from collections import OrderedDict
    nn = torch.nn

    class Conv(nn.Sequential):
        def __init__(self, inputs, outputs, kernel, stride=1, valid=False):
            kernel = kernel if isinstance(kernel, tuple) else (kernel, kernel)
            padding = (0, 0) if valid else (kernel[0] // 2, kernel[1] // 2)
            super().__init__(OrderedDict([
                ("conv", nn.Conv2d(inputs, outputs, kernel, stride, padding, bias=False)),
                ("bn", nn.BatchNorm2d(outputs, eps=0.001)), ("relu", nn.ReLU(inplace=True))]))

    class Branches(nn.Module):
        """Branches side by side, their outputs concatenated along the channels."""

        def __init__(self, *branches):
            super().__init__()
            self.branches = nn.ModuleList(branches)

        def forward(self, x):
            return torch.cat([branch(x) for branch in self.branches], 1)

    class Split(nn.Module):
        """One convolution's output fed to two, concatenated (Inception-C's 1x3 and 3x1)."""

        def __init__(self, first, left, right):
            super().__init__()
            self.first, self.left, self.right = first, left, right

        def forward(self, x):
            y = self.first(x)
            return torch.cat([self.left(y), self.right(y)], 1)

    def pool(stride=1):
        return nn.MaxPool2d(3, stride) if stride == 2 else nn.AvgPool2d(3, 1, 1,
                                                                         count_include_pad=False)

    def inception_a():
        return Branches(nn.Sequential(pool(), Conv(384, 96, 1)), Conv(384, 96, 1),
                        nn.Sequential(Conv(384, 64, 1), Conv(64, 96, 3)),
                        nn.Sequential(Conv(384, 64, 1), Conv(64, 96, 3), Conv(96, 96, 3)))

    def inception_b():
        return Branches(nn.Sequential(pool(), Conv(1024, 128, 1)), Conv(1024, 384, 1),
                        nn.Sequential(Conv(1024, 192, 1), Conv(192, 224, (1, 7)),
                                      Conv(224, 256, (7, 1))),
                        nn.Sequential(Conv(1024, 192, 1), Conv(192, 192, (1, 7)),
                                      Conv(192, 224, (7, 1)), Conv(224, 224, (1, 7)),
                                      Conv(224, 256, (7, 1))))

    def inception_c():
        return Branches(nn.Sequential(pool(), Conv(1536, 256, 1)), Conv(1536, 256, 1),
                        Split(Conv(1536, 384, 1), Conv(384, 256, (1, 3)), Conv(384, 256, (3, 1))),
                        Split(nn.Sequential(Conv(1536, 384, 1), Conv(384, 448, (1, 3)),
                                            Conv(448, 512, (3, 1))),
                              Conv(512, 256, (3, 1)), Conv(512, 256, (1, 3))))

    # The blocks named as the paper's figures draw them, so a trace's layers read
    # "features.inception_b3.branches.2.1.conv" rather than by index.
    features = nn.Sequential(OrderedDict([
        ("stem_conv1", Conv(3, 32, 3, 2, valid=True)),
        ("stem_conv2", Conv(32, 32, 3, valid=True)), ("stem_conv3", Conv(32, 64, 3)),
        ("stem_mixed1", Branches(pool(2), Conv(64, 96, 3, 2, valid=True))),
        ("stem_mixed2", Branches(
            nn.Sequential(Conv(160, 64, 1), Conv(64, 96, 3, valid=True)),
            nn.Sequential(Conv(160, 64, 1), Conv(64, 64, (7, 1)), Conv(64, 64, (1, 7)),
                          Conv(64, 96, 3, valid=True)))),
        ("stem_mixed3", Branches(Conv(192, 192, 3, 2, valid=True), pool(2))),
        *[(f"inception_a{i + 1}", inception_a()) for i in range(4)],
        ("reduction_a", Branches(pool(2), Conv(384, 384, 3, 2, valid=True),
                                 nn.Sequential(Conv(384, 192, 1), Conv(192, 224, 3),
                                               Conv(224, 256, 3, 2, valid=True)))),
        *[(f"inception_b{i + 1}", inception_b()) for i in range(7)],
        ("reduction_b", Branches(
            pool(2), nn.Sequential(Conv(1024, 192, 1), Conv(192, 192, 3, 2, valid=True)),
            nn.Sequential(Conv(1024, 256, 1), Conv(256, 256, (1, 7)), Conv(256, 320, (7, 1)),
                          Conv(320, 320, 3, 2, valid=True)))),
        *[(f"inception_c{i + 1}", inception_c()) for i in range(3)]]))
    return nn.Sequential(OrderedDict([
        ("features", features), ("pool", nn.AdaptiveAvgPool2d(1)), ("flatten", nn.Flatten()),
        ("dropout", nn.Dropout(0.2)), ("classifier", nn.Linear(1536, 1000))]))


def vision_model(torch, torchvision, name):
    if name == "inception_v4":
        return inception_v4(torch).to("meta"), (
            lambda batch: torch.zeros(batch, 3, 299, 299, device="meta"))
    constructor = getattr(torchvision.models, name, None)
    if name.startswith("_") or not callable(constructor) or name[0].isupper():
        known = sorted(n for n in dir(torchvision.models)
                       if not n.startswith("_") and n[0].islower()
                       and callable(getattr(torchvision.models, n)) and n != "get_weight")
        fail(f"unknown model {name!r}: a torchvision model ({', '.join(known[:8])}, ...), "
             f"inception_v4, or one of {', '.join(TRANSFORMERS)}")
    kwargs = {"aux_logits": False, "init_weights": False} if name in ("inception_v3", "googlenet") \
        else {}
    model = constructor(**kwargs).to("meta")
    side = IMAGE_SIZE.get(name, 224)
    return model, (lambda batch: torch.zeros(batch, 3, side, side, device="meta"))


# Views and constants: they move no data and cost no time (a parameter read through one, such as
# a tied decoder's weight.t(), still marks its layer).
FREE_OPERATORS = frozenset((
    "view", "_unsafe_view", "transpose", "t", "expand", "permute", "unsqueeze", "squeeze", "slice",
    "select", "detach", "alias", "arange", "zeros", "zeros_like", "empty", "_to_copy", "split"))


def operator_flops(func_name, args, out):
    """FLOPs of one ATen operator from its shapes: 2 per multiply-add for convolutions and
    matrix products, one per output element for everything else."""
    def numel(t):
        return t.numel() if hasattr(t, "numel") else 0

    outputs = out if isinstance(out, (tuple, list)) else (out,)
    out_elements = sum(numel(t) for t in outputs if hasattr(t, "shape"))
    if func_name.startswith("convolution") or func_name.startswith("_convolution"):
        weight = args[1]
        per_output = weight.numel() // weight.shape[0]  # in_channels / groups x kernel
        return 2 * numel(outputs[0]) * per_output
    if func_name in ("mm", "addmm", "bmm", "baddbmm"):
        a = args[1] if func_name in ("addmm", "baddbmm") else args[0]
        return 2 * numel(outputs[0]) * a.shape[-1]
    return out_elements


def trace_model(torch, model, make_input, batch, flops_per_s, bytes_per_s):
    """Runs one forward pass on the meta device and returns the layers in forward order, each
    with its forward seconds and its own parameters."""
    from torch.utils._python_dispatch import TorchDispatchMode

    layers = {}  # module qualified name -> {"forward_s", "params"} in first-use order
    state = {"current": None}
    names = {module: name for name, module in model.named_modules()}
    # Parameters used directly by a parent's forward (a tied decoder's bias, say) are found by
    # identity when an operator reads them: their module becomes a layer at that point.
    owners = {id(p): name for name, module in model.named_modules()
              for p in module.parameters(recurse=False)}

    def enter(module_name):
        if module_name not in layers:
            module = model.get_submodule(module_name) if module_name else model
            layers[module_name] = {"forward_s": 0.0, "params": [
                (n, p.numel()) for n, p in module.named_parameters(recurse=False)]}
        state["current"] = module_name

    def pre_hook(module, _inputs):
        if any(True for _ in module.parameters(recurse=False)):
            enter(names[module])

    handles = [m.register_forward_pre_hook(pre_hook) for m in model.modules()]

    class Counter(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            func_name = func.__name__.split(".")[0]
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            for t in tensors:
                owner = owners.get(id(t))
                if owner is not None and owner not in layers:
                    enter(owner)
            if func_name in FREE_OPERATORS:
                return out
            outputs = out if isinstance(out, (tuple, list)) else (out,)
            moved = sum(t.numel() * t.element_size() for t in tensors)
            moved += sum(t.numel() * t.element_size() for t in outputs
                         if isinstance(t, torch.Tensor))
            seconds = max(operator_flops(func_name, args, out) / flops_per_s,
                          moved / bytes_per_s)
            current = state["current"]
            if current is None:  # before the first layer with parameters
                current = "__prologue__"
                layers.setdefault(current, {"forward_s": 0.0, "params": []})
            layers[current]["forward_s"] += seconds
            return out

    with torch.no_grad(), Counter():
        model(make_input(batch))
    for handle in handles:
        handle.remove()
    prologue = layers.pop("__prologue__", None)
    ordered = list(layers.items())
    if prologue and ordered:
        ordered[0][1]["forward_s"] += prologue["forward_s"]
    unused = [n for n, p in model.named_parameters() if owners[id(p)] not in layers]
    if unused:
        fail(f"parameters never used in the forward pass: {', '.join(unused[:5])}")
    return ordered


def add_roofline_options(parser):
    """The options every roofline estimator takes (this tool and estimate_trace.py)."""
    parser.add_argument("--batch", type=int, default=32, help="samples per GPU (default 32)")
    parser.add_argument("--gpu", default="v100", choices=sorted(GPUS),
                        help="whose published peaks the roofline takes (default v100; the "
                             "table and its sources: traces/README.md)")
    parser.add_argument("--compute-efficiency", type=float, default=0.5,
                        help="fraction of peak FLOP/s reached (default 0.5)")
    parser.add_argument("--memory-efficiency", type=float, default=0.7,
                        help="fraction of peak memory bandwidth reached (default 0.7)")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("-o", "--output", required=True)


def check_roofline_options(args):
    check_batch(args.batch)
    for name in ("compute_efficiency", "memory_efficiency"):
        if not 0 < getattr(args, name) <= 1:  # also false for NaN
            fail(f"--{name.replace('_', '-')} must be in (0, 1], found {getattr(args, name)}")
    check_outputs([args.output])


def write_estimate(args, model, tool, layers, optimizer_us, description, sequence_length=None):
    """Checks the estimated trace (times sgdsim can hold), writes it and prints its summary; the
    same for every roofline estimator (this tool and estimate_trace.py). `sequence_length`:
    tokens per sample of a sequence model (sgdsim then reports tokens/s)."""
    total_us = check_iteration(layers, optimizer_us, "check --batch and the efficiencies")
    write_json(args.output, {
        "format": "sgdsim-trace",
        "schema_version": 1,
        "model": model,
        "device": f"{GPUS[args.gpu]['name']} (estimated)",
        "framework": f"none: estimated by tools/estimate/{tool}",
        "batch_size": args.batch,
        **({"sequence_length": sequence_length} if sequence_length else {}),
        "gradient_dtype": "fp32",
        "optimizer_us": round(optimizer_us, 3),
        "provenance": {"method": "estimated", "description": description, "date": args.date},
        "layers": layers,
    })
    parameters = sum(g["elements"] for layer in layers for g in layer["gradients"])
    print(f"{model}: {len(layers)} layers, {parameters} parameters, "
          f"{total_us / 1e3:.2f} ms per iteration at batch {args.batch}", file=sys.stderr)


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a torchvision model name or one of "
                        + ", ".join(TRANSFORMERS))
    parser.add_argument("--config", help="a transformer config.json (model_type bert or gpt2)")
    parser.add_argument("--sequence", type=int, default=128,
                        help="tokens per sample for transformers (default 128)")
    parser.add_argument("--precision", default="fp32", choices=("fp32", "amp"),
                        help="fp32, or amp: convolutions and matrix products at the tensor-core "
                        "fp16 peak (gradients stay fp32 in the trace)")
    add_roofline_options(parser)
    args = parser.parse_args(argv)
    if (args.model is None) == (args.config is None):
        fail("give exactly one of --model and --config")
    if not 1 <= args.sequence <= 1 << 20:
        fail(f"--sequence must be from 1 to {1 << 20}, found {args.sequence}")
    check_roofline_options(args)
    config = None
    if args.config is not None:
        try:
            with open(args.config, encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            fail(f"{args.config}: {e}")
        if not isinstance(config, dict):
            fail(f"{args.config}: a config must be a JSON object")
        label = config.get("_name_or_path") or os.path.basename(args.config)
    elif args.model in TRANSFORMERS:
        config, label = TRANSFORMERS[args.model], args.model
    else:
        label = args.model

    try:  # late: argument errors stay fast
        import torch
        import torchvision
    except ImportError as e:
        fail(f"{e}: run with Debian's /usr/bin/python3 and python3-torch, python3-torchvision "
             f"(tools/setup.sh installs them)")
    if config is not None:
        model, make_input = transformer_model(torch, config, args.sequence)
        what = f"{label} (sequence {args.sequence})"
    else:
        model, make_input = vision_model(torch, torchvision, args.model)
        what = ("Inception-v4 (built in model_trace.py from Szegedy et al. 2017's figures)"
                if args.model == "inception_v4" else f"torchvision {label}")
    gpu = GPUS[args.gpu]
    if args.precision == "amp" and gpu["tflops_fp16"] is None:
        fail(f"--gpu {args.gpu}: the {gpu['name']} has no fast fp16 with fp32 accumulation "
             f"({gpu['source']}); estimate it at --precision fp32")
    peak = gpu["tflops_fp16"] if args.precision == "amp" else gpu["tflops"]
    flops_per_s = peak * 1e12 * args.compute_efficiency
    bytes_per_s = gpu["bandwidth_gbs"] * 1e9 * args.memory_efficiency
    layers = trace_model(torch, model, make_input, args.batch, flops_per_s, bytes_per_s)
    parameters = sum(c for _, layer in layers for _, c in layer["params"])
    out_layers = [{
        "name": name,
        "forward_us": round(layer["forward_s"] * 1e6, 3),
        "backward_us": round(2 * layer["forward_s"] * 1e6, 3),
        "gradients": [{"name": f"{name}.{p}", "elements": c} for p, c in layer["params"]],
    } for name, layer in layers]
    # SGD with momentum reads weight, gradient and momentum and writes weight and momentum.
    optimizer_s = max(2 * parameters / flops_per_s, 20 * parameters / bytes_per_s)
    description = (
        f"Roofline estimate, not a measurement. Layers, gradient sizes and per-operator "
        f"FLOPs and bytes from the {what} definition run by PyTorch on the meta device "
        f"({parameters} parameters); each operator takes max(FLOPs / ({peak} TFLOP/s x "
        f"{args.compute_efficiency}), bytes / ({gpu['bandwidth_gbs']} GB/s x "
        f"{args.memory_efficiency})), {args.precision}; parameter-free operators fold "
        f"into the layer that ran last; backward is twice forward; optimizer is SGD with "
        f"momentum (20 bytes per parameter). Gradients are ready at the end of their "
        f"layer's backward.")
    write_estimate(args, label, "model_trace.py", out_layers, optimizer_s * 1e6, description,
                   args.sequence if config is not None else None)
    return 0


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
