#!/usr/bin/env bash
# Regenerates every figure README.md and docs/*.md show into OUT_DIR (default docs/figures): sets
# up a fresh Debian 12 machine (apt-get), builds the sgdsim binary alone (not the tests), then
# tools/figures.py runs the scenarios, sweeps and studies behind each figure (its manifest) and
# writes the figures, all or none. About 4 minutes on two idle cores (5 under load), most of it the
# ADPSGD and biased-compression studies' training. SGDSIM=PATH uses that binary and builds nothing.
# Usage: tools/figures.sh [OUT_DIR]
set -euo pipefail
if [ $# -gt 1 ]; then
  echo "usage: tools/figures.sh [OUT_DIR]   (default docs/figures)" >&2
  exit 2
fi
out=$(realpath -m "${1:-$(dirname "$0")/../docs/figures}")  # from the caller's folder
sgdsim=${SGDSIM:+$(realpath -m "$SGDSIM")}
cd "$(dirname "$0")/.."
if [ -z "$sgdsim" ]; then
  source tools/setup.sh
  # The validation figure estimates its traces with PyTorch's model definitions.
  SGDSIM_PACKAGES="$SGDSIM_RUN_PACKAGES $SGDSIM_PLOT_PACKAGES $SGDSIM_DATA_PACKAGES python3-torch
python3-torchvision"
  sgdsim_build_program release
  sgdsim=build/release/src/sgdsim
fi
exec /usr/bin/python3 tools/figures.py "$sgdsim" "$out"
