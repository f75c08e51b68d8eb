#!/usr/bin/env python3
"""Estimate an sgdsim trace (schema v1) for a model on a GPU you do not have.

The layer list is built here from the model's published architecture (torchvision definitions
of ResNet-50 and ResNet-152 v1.5, and VGG-16), so gradient sizes are exact. Times come from a roofline: each
layer takes max(FLOPs / (peak FLOP/s * compute efficiency), bytes / (peak bandwidth * memory
efficiency)). The resulting trace says "estimated" in its provenance and lists every assumption.

Usage: estimate_trace.py --model resnet50 --batch 32 --gpu v100 -o traces/x.json
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from tool_io import ArgumentParser, run  # noqa: E402
from model_trace import (GPUS, add_roofline_options, check_roofline_options,  # noqa: E402
                         write_estimate)

FP32 = 4  # bytes per element


class Builder:
    """Accumulates layers in forward order while tracking the activation shape."""

    def __init__(self, batch, gpu, compute_efficiency, memory_efficiency):
        self.batch = batch
        self.flops_per_s = gpu["tflops"] * 1e12 * compute_efficiency
        self.bytes_per_s = gpu["bandwidth_gbs"] * 1e9 * memory_efficiency
        self.layers = []

    def seconds(self, flops, bytes_moved):
        return max(flops / self.flops_per_s, bytes_moved / self.bytes_per_s)

    def add(self, name, forward_s, backward_s, tensors):
        self.layers.append({
            "name": name,
            "forward_us": round(forward_s * 1e6, 3),
            "backward_us": round(backward_s * 1e6, 3),
            "gradients": [{"name": f"{name}.{t}", "elements": n} for t, n in tensors],
        })

    def conv(self, name, shape, out_channels, kernel, stride, padding, bias=False, first=False):
        channels, height, width = shape
        out_h = (height + 2 * padding - kernel) // stride + 1
        out_w = (width + 2 * padding - kernel) // stride + 1
        weights = out_channels * channels * kernel * kernel
        macs = weights * out_h * out_w * self.batch
        activations = self.batch * (channels * height * width + out_channels * out_h * out_w)
        forward = self.seconds(2 * macs, FP32 * (activations + weights))
        # Backward computes the weight gradient and, except for the first layer, the input
        # gradient: each costs as many FLOPs as forward.
        backward = self.seconds((2 if first else 4) * macs, FP32 * (2 * activations + 2 * weights))
        tensors = [("weight", weights)] + ([("bias", out_channels)] if bias else [])
        self.add(name, forward, backward, tensors)
        return (out_channels, out_h, out_w)

    def batch_norm(self, name, shape, extra_passes=0):
        """BatchNorm (+ the ReLU, pooling or residual add folded into it): memory bound."""
        elements = self.batch * shape[0] * shape[1] * shape[2]
        forward = self.seconds(10 * elements, FP32 * elements * (2 + extra_passes))
        backward = self.seconds(20 * elements, FP32 * elements * (3 + extra_passes))
        self.add(name, forward, backward, [("weight", shape[0]), ("bias", shape[0])])

    def linear(self, name, inputs, outputs, extra_passes=0):
        weights = inputs * outputs
        macs = weights * self.batch
        activations = self.batch * (inputs + outputs) * (1 + extra_passes)
        forward = self.seconds(2 * macs, FP32 * (activations + weights))
        backward = self.seconds(4 * macs, FP32 * (2 * activations + 2 * weights))
        self.add(name, forward, backward, [("weight", weights), ("bias", outputs)])


def resnet(b, blocks_per_stage):
    """torchvision's bottleneck ResNets (v1.5): resnet50 [3, 4, 6, 3], resnet152 [3, 8, 36, 3]."""
    shape = b.conv("conv1", (3, 224, 224), 64, 7, 2, 3, first=True)
    b.batch_norm("bn1", shape, extra_passes=2)  # ReLU and the 3x3 max pool fold in here
    shape = (64, 56, 56)
    stages = zip((64, 128, 256, 512), blocks_per_stage, (1, 2, 2, 2))
    for stage, (width, blocks, stride) in enumerate(stages, start=1):
        for block in range(blocks):
            prefix = f"layer{stage}.{block}"
            block_input = shape
            s = stride if block == 0 else 1
            # v1.5: the stride sits on the 3x3 convolution.
            shape = b.conv(f"{prefix}.conv1", block_input, width, 1, 1, 0)
            b.batch_norm(f"{prefix}.bn1", shape, extra_passes=1)
            shape = b.conv(f"{prefix}.conv2", shape, width, 3, s, 1)
            b.batch_norm(f"{prefix}.bn2", shape, extra_passes=1)
            shape = b.conv(f"{prefix}.conv3", shape, width * 4, 1, 1, 0)
            b.batch_norm(f"{prefix}.bn3", shape, extra_passes=2)  # residual add and ReLU
            if block == 0:
                b.conv(f"{prefix}.downsample.0", block_input, width * 4, 1, s, 0)
                b.batch_norm(f"{prefix}.downsample.1", shape)
    b.linear("fc", 2048, 1000, extra_passes=1)  # global average pool folds in here


def vgg16(b):
    shape = (3, 224, 224)
    index = 0
    for stage in [[64, 64], [128, 128], [256, 256, 256], [512, 512, 512], [512, 512, 512]]:
        for channels in stage:
            shape = b.conv(f"features.{index}", shape, channels, 3, 1, 1, bias=True,
                           first=(index == 0))
            index += 2  # a ReLU follows each convolution in torchvision's numbering
        index += 1  # max pool
        shape = (shape[0], shape[1] // 2, shape[2] // 2)
    b.linear("classifier.0", 512 * 7 * 7, 4096, extra_passes=1)
    b.linear("classifier.3", 4096, 4096, extra_passes=1)
    b.linear("classifier.6", 4096, 1000)


MODELS = {
    "resnet50": lambda b: resnet(b, (3, 4, 6, 3)),
    "resnet152": lambda b: resnet(b, (3, 8, 36, 3)),
    "vgg16": vgg16,
}


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, choices=sorted(MODELS))
    add_roofline_options(parser)
    args = parser.parse_args(argv)
    check_roofline_options(args)

    gpu = GPUS[args.gpu]
    builder = Builder(args.batch, gpu, args.compute_efficiency, args.memory_efficiency)
    MODELS[args.model](builder)
    parameters = sum(g["elements"] for layer in builder.layers for g in layer["gradients"])
    # SGD with momentum reads weight, gradient and momentum and writes weight and momentum.
    optimizer_s = builder.seconds(2 * parameters, 5 * FP32 * parameters)
    description = (
        f"Roofline estimate, not a measurement. Layers and gradient sizes from the "
        f"torchvision {args.model} definition ({parameters} parameters); each layer takes "
        f"max(FLOPs / ({gpu['tflops']} TFLOP/s x {args.compute_efficiency}), bytes / "
        f"({gpu['bandwidth_gbs']} GB/s x {args.memory_efficiency})); backward is twice "
        f"forward's FLOPs; ReLU, pooling and residual adds are folded into the preceding "
        f"normalisation layer; optimizer is SGD with momentum (20 bytes per parameter). "
        f"Gradients are ready at the end of their layer's backward.")
    write_estimate(args, args.model, "estimate_trace.py", builder.layers, optimizer_s * 1e6,
                   description)
    return 0


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
