#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (apt-get: the compiler and the libraries the binary needs,
# no test tools), builds the sgdsim binary alone and runs a scenario:
#   tools/run.sh                       the built-in default scenario (scenarios/default.json)
#   tools/run.sh SCENARIO [OPTIONS]    any scenario, with sgdsim run's options (--json, --csv)
# Paths are the caller's: `tools/run.sh my.json --json out.json` from any folder reads and
# writes there. SGDSIM=PATH runs that binary and installs and builds nothing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
scenario=${1:-$repo/scenarios/default.json}
[ $# -gt 0 ] && shift
scenario_file=$(realpath -m -- "$scenario")  # from the caller's folder
sgdsim=${SGDSIM:+$(realpath -m -- "$SGDSIM")}
[ -n "$sgdsim" ] || (
  cd "$repo"
  source tools/setup.sh
  SGDSIM_PACKAGES=$SGDSIM_RUN_PACKAGES
  # A scenario that trains (a convergence section) also needs its data set.
  if [ -f "$scenario_file" ] && grep -q '"convergence"' "$scenario_file"; then
    SGDSIM_PACKAGES="$SGDSIM_PACKAGES $SGDSIM_DATA_PACKAGES"
  fi
  # A convolutional network (fashion_mnist_lenet, fashion_mnist_resnet) also needs libtorch.
  if [ -f "$scenario_file" ] && grep -Eq '"fashion_mnist_(lenet|resnet)"' "$scenario_file"; then
    SGDSIM_PACKAGES="$SGDSIM_PACKAGES $SGDSIM_TORCH_PACKAGES"
  fi
  sgdsim_build_program release
)
# Named as the caller would name it: scenarios/default.json from the repository's root.
case "$scenario" in "$PWD"/*) scenario=${scenario#"$PWD"/} ;; esac
exec "${sgdsim:-$repo/build/release/src/sgdsim}" run "$scenario" "$@"
