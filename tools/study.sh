#!/usr/bin/env bash
# Runs one of the shipped studies (studies/NAME/study.py) in one command: sets up a fresh Debian
# 12 machine (apt-get), builds sgdsim, runs the study and writes its CSV, figures and summary.txt
# into OUT (default results/NAME). Times on two cores:
#   mgwfbp              the MG-WFBP paper's 4..2048-GPU simulation under the authors' cost model
#                       (under a minute)
#   adpsgd              CPSGD against ADPSGD-style schedules at an equal budget, QSGD and SGD,
#                       LeNet-5 trained for real with five seeds, 10 and 100 Gbps (about 6 min)
#   biased_compression  seven compressors with and without error feedback at matched bits,
#                       LeNet-5 trained for real with three seeds, 16 and 256 GPUs (about 8 min)
# Usage: tools/study.sh NAME [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
studies="mgwfbp adpsgd biased_compression"
name=${1:-}
if [ -z "$name" ] || [ ! -f "studies/$name/study.py" ] || [ $# -gt 2 ]; then
  echo "usage: tools/study.sh NAME [OUT]   (NAME: ${studies// /, })" >&2
  exit 2
fi
source tools/setup.sh
SGDSIM_PACKAGES="$SGDSIM_RUN_PACKAGES $SGDSIM_PLOT_PACKAGES $SGDSIM_DATA_PACKAGES $SGDSIM_TORCH_PACKAGES"
sgdsim_build_program release
exec /usr/bin/python3 "studies/$name/study.py" build/release/src/sgdsim "${2:-results/$name}"
