#!/usr/bin/env bash
# Runs every fuzz target (tests/fuzz) for SECONDS each, one after another, in the clang
# ASan + UBSan build that tools/sanitize.sh also uses (build/sanitize-clang), and prints
# executions per target. A finding prints libFuzzer's report and the input, and exits 1.
# Usage: tools/fuzz.sh SECONDS [TARGET...]   (targets: scenario sweep trace compression_profile
#        bcaffe pipedream benchmark_log chakra measured_curve kineto node_nccl_xml
#        node_nvidia_smi node_json; default all)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: tools/fuzz.sh SECONDS [TARGET...]" >&2
  exit 2
fi
seconds=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(scenario sweep trace compression_profile bcaffe pipedream benchmark_log chakra
           measured_curve kineto node_nccl_xml node_nvidia_smi node_json)
source tools/setup.sh
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
CC=clang CXX=clang++ sgdsim_configure sanitize-clang -Doptimization=1 -Ddebug=true \
  -Dunity=on -Dunity_size=8 -Dpython=disabled -Dbenchmarks=disabled -Dcuda=disabled \
  -Dmpi=disabled -Dfuzz=enabled -Db_sanitize=address,undefined -Db_lundef=false \
  -Dcpp_args=-fno-sanitize-recover=all
status=0
for target in "${targets[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$target" ]; then
    echo "tools/fuzz.sh: no fuzz target named $target" >&2
    exit 2
  fi
  ninja -C build/sanitize-clang "tests/fuzz/fuzz_$target" >&2
  python3 tests/fuzz/run_fuzz.py "build/sanitize-clang/tests/fuzz/fuzz_$target" \
    "tests/fuzz/corpus/$target" --seconds "$seconds" || status=1
done
exit $status
