#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (apt-get), builds sgdsim and runs a scenario:
#   tools/run.sh                       the built-in default scenario (scenarios/default.json)
#   tools/run.sh SCENARIO [OPTIONS]    any scenario, with sgdsim run's options (--json, --csv)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
sgdsim_build release
scenario=${1:-scenarios/default.json}
[ $# -gt 0 ] && shift
exec build/release/src/sgdsim run "$scenario" "$@"
