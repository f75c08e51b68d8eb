#!/usr/bin/env python3
"""Derives the profiler traces in traces/ from the H100 reference data
(../shared/reference/h100, README there): each PyTorch profiler trace in kineto/ through
`sgdsim trace import --from kineto`, with the plain iteration time that plain_iteration_times.txt
gives for the same model, batch and precision, and the model's parameter count.

  import_reference_profiles.py SGDSIM REFERENCE_H100_FOLDER OUTPUT_FOLDER

Parameter counts: torchvision's model documentation (num_params of each weight) for the CNNs,
the model configurations' counts for BERT and GPT-2 (shared/reference/h100/README.md, which
counted them on the models built). Inception-v3 is left unchecked: its auxiliary classifier
(3,326,696 of torchvision's 27,161,264 parameters) gets no gradient, since the loss uses the main
logits only."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")  # tools/, for tool_io
from tool_io import ArgumentParser, fail, read_text, run  # noqa: E402

# profile name -> (model, batch, sequence, precision, plain-times key, parameters or None)
PROFILES = {
    "op_resnet50_b32_fp32": ("resnet50", 32, 0, "fp32", "resnet50_b32", 25557032),
    "op_resnet50_b32_amp": ("resnet50", 32, 0, "amp", "resnet50_b32", 25557032),
    "op_resnet50_b64_amp": ("resnet50", 64, 0, "amp", "resnet50_b64", 25557032),
    "op_resnet101_b32_fp32": ("resnet101", 32, 0, "fp32", "resnet101_b32", 44549160),
    "op_resnet152_b32_fp32": ("resnet152", 32, 0, "fp32", "resnet152_b32", 60192808),
    "op_resnet152_b32_amp": ("resnet152", 32, 0, "amp", "resnet152_b32", 60192808),
    "op_vgg16_b32_fp32": ("vgg16", 32, 0, "fp32", "vgg16_b32", 138357544),
    "op_vgg16_b32_amp": ("vgg16", 32, 0, "amp", "vgg16_b32", 138357544),
    "op_densenet161_b32_fp32": ("densenet161", 32, 0, "fp32", "densenet161_b32", 28681000),
    "op_inception_v3_b32_fp32": ("inception_v3", 32, 0, "fp32", "inception_v3_b32", None),
    "op_bert_base_uncased_b32_fp32": ("bert-base-uncased", 32, 128, "fp32", "bert-base_b32_s128",
                                      109514298),
    "op_bert_base_uncased_b32_amp": ("bert-base-uncased", 32, 128, "amp", "bert-base_b32_s128",
                                     109514298),
    "op_bert_large_uncased_b8_fp32": ("bert-large-uncased", 8, 128, "fp32", "bert-large_b8_s128",
                                      335174458),
    "op_bert_large_uncased_b8_amp": ("bert-large-uncased", 8, 128, "amp", "bert-large_b8_s128",
                                     335174458),
    "op_gpt2_b8_fp32": ("gpt2", 8, 1024, "fp32", "gpt2_b8_s1024", 124439808),
    "op_gpt2_b8_bf16": ("gpt2", 8, 1024, "bf16", "gpt2_b8_s1024", 124439808),
    "op_gpt2_medium_b8_bf16": ("gpt2-medium", 8, 1024, "bf16", "gpt2-medium_b8_s1024", 354823168),
}


def plain_medians(path):
    """{(key, precision): median ms} from plain_iteration_times.txt."""
    medians = {}
    for line in read_text(path, "reference file").splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[2] == "median":
            try:
                medians[(fields[0], fields[1])] = float(fields[3])
            except ValueError:
                fail(f"{path}: {fields[3]!r} is not a median in ms")
    return medians


def output_name(model, batch, sequence, precision):
    stem = model.replace("-uncased", "").replace("-", "_")
    sequence_part = f"_s{sequence}" if sequence else ""
    return f"{stem}_b{batch}{sequence_part}_h100_{precision}_profiler.json"


def main(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgdsim", help="the sgdsim binary")
    parser.add_argument("reference", help="the H100 reference folder (shared/reference/h100)")
    parser.add_argument("out", help="the folder to write the traces into (traces/)")
    args = parser.parse_args(argv)
    sgdsim, reference, out = args.sgdsim, args.reference, args.out
    if not (os.path.isfile(sgdsim) and os.access(sgdsim, os.X_OK)):
        fail(f"{sgdsim}: not an executable sgdsim")
    if not os.path.isdir(out):
        fail(f"{out}: not a folder")
    medians = plain_medians(os.path.join(reference, "plain_iteration_times.txt"))
    for profile, (model, batch, sequence, precision, key, parameters) in PROFILES.items():
        if (key, precision) not in medians:
            fail(f"{reference}/plain_iteration_times.txt: no plain median for {key} {precision}")
        command = [sgdsim, "trace", "import", os.path.join(reference, "kineto", profile + ".json.gz"),
                   "--from", "kineto", "--model", model, "--batch", str(batch),
                   "--precision", precision,
                   "--measured-us", f"{medians[(key, precision)] * 1e3:.0f}",
                   "-o", os.path.join(out, output_name(model, batch, sequence, precision))]
        if sequence:
            command += ["--sequence", str(sequence)]
        if parameters:
            command += ["--parameters", str(parameters)]
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            fail(f"sgdsim could not import {profile} (exit {done.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, sys.argv[1:]))
