#!/usr/bin/env bash
# The MG-WFBP scaling study in one command: sets up a fresh Debian 12 machine (apt-get), builds
# sgdsim, sweeps ResNet-50, ResNet-152 and VGG-16 (estimated V100 traces) over 4..2048 GPUs,
# 10/25/100 Gbps and six merge policies (studies/mgwfbp_scaling.json), and writes
#   OUT/mgwfbp_scaling.csv                      one row per point and policy
#   OUT/mgwfbp_scaling.png                      speedup against GPUs
#   OUT/mgwfbp_scaling_efficiency.png           scaling efficiency against GPUs
#   OUT/mgwfbp_scaling_throughput.png           samples/s against GPUs
# Usage: tools/scaling_study.sh [OUT] (default results/). Under mpirun the sweep is split
# over the ranks: mpirun -n K build/release/src/sgdsim sweep studies/mgwfbp_scaling.json ...
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
SGDSIM_PACKAGES="$SGDSIM_RUN_PACKAGES $SGDSIM_PLOT_PACKAGES"
sgdsim_build_program release
out=${1:-results}
mkdir -p "$out"
build/release/src/sgdsim sweep studies/mgwfbp_scaling.json --csv "$out/mgwfbp_scaling.csv" \
  --plot "$out/mgwfbp_scaling.png"
