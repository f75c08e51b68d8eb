#!/bin/bash
# Captures the project's reference GPU traces on a CUDA machine, one model at a time, and writes
# them with their logs to OUTDIR. Usage: tools/capture/capture_suite.sh OUTDIR cnn|transformers|kineto
# Each capture runs WARMUP untimed and ITERATIONS timed iterations (defaults 20 and 50) with
# capture.py --method METHOD (default profiler, which imports with the sgdsim in $SGDSIM); a capture
# that fails is logged and the suite goes on with the next one.
set -u
out=${1:?usage: capture_suite.sh OUTDIR cnn|transformers|kineto}
set_name=${2:?usage: capture_suite.sh OUTDIR cnn|transformers|kineto}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
warmup=${WARMUP:-20}
iterations=${ITERATIONS:-50}
method=${METHOD:-profiler}  # capture.py --method: profiler (needs a built sgdsim: SGDSIM=PATH) or hooks
mkdir -p "$out"

one() {  # name model batch precision [extra capture.py options]
  local name=$1 model=$2 batch=$3 precision=$4
  shift 4
  echo "== $name"
  if ! timeout 300 "$python" "$here/capture.py" --model "$model" --batch "$batch" \
      --precision "$precision" --warmup "$warmup" --iterations "$iterations" --method "$method" "$@" \
      -o "$out/$name.json" >"$out/$name.log" 2>&1; then
    echo "   FAILED (see $name.log)"
  fi
  tail -n 1 "$out/$name.log"
}

case $set_name in
  cnn)
    for precision in fp32 amp; do
      one resnet50_b32_h100_$precision resnet50 32 $precision
      one resnet50_b64_h100_$precision resnet50 64 $precision
      for model in resnet101 resnet152 vgg16 densenet161 densenet201 inception_v3; do
        one ${model}_b32_h100_$precision $model 32 $precision
      done
      one inception_v4_b32_h100_$precision timm:inception_v4 32 $precision
    done ;;
  transformers)
    for precision in fp32 amp bf16; do
      one bert_base_b32_s128_h100_$precision bert-base-uncased 32 $precision --sequence 128
      one bert_large_b8_s128_h100_$precision bert-large-uncased 8 $precision --sequence 128
      one gpt2_b8_s1024_h100_$precision gpt2 8 $precision --sequence 1024
      one gpt2_medium_b8_s1024_h100_$precision gpt2-medium 8 $precision --sequence 1024
    done ;;
  kineto)
    "$python" "$here/kineto_profile.py" --model resnet50 --batch 32 -o "$out/kineto_resnet50_b32.json.gz"
    "$python" "$here/kineto_profile.py" --model bert-base-uncased --batch 32 --sequence 128 \
      -o "$out/kineto_bert_base_b32_s128.json.gz" ;;
  *) echo "capture_suite.sh: unknown set $set_name (cnn, transformers or kineto)" >&2; exit 2 ;;
esac
