#!/usr/bin/env bash
# Sanitizer builds and what they run (tools/test.sh calls this after the main tests; it also runs
# on its own). Two builds beside build/test, each its own folder:
#   build/sanitize-clang  clang, AddressSanitizer + UndefinedBehaviorSanitizer (clang's UBSan
#                         also checks float-to-int overflow) with libFuzzer instrumentation: the
#                         test suite 'sanitize' (unit tests, command line with mpirun, bad-input
#                         catalogue) plus a bounded, deterministic run of every fuzz target.
#   build/tsan            GCC, ThreadSanitizer: a threaded sweep.
# Every report is fatal (-fno-sanitize-recover, halt_on_error). Open MPI's own leaks are
# suppressed with tests/sanitize/lsan.supp. Ends with "sanitize: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

root=$PWD
# The slow unwinder on malloc gives leak reports whole stacks: Open MPI's allocations (mpirun in
# the command-line test) come from plugins without frame pointers, and only a whole stack names
# the library the suppressions match.
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
# Line tables (-g1) and -O1: reports name every frame's file and line, a quicker compile than
# -O2, tests still fast. Full debug information (-g) adds nothing a report prints and compiled
# the ThreadSanitizer program 1.3x slower (168.6 s against 128.2 s on 2 cores).
# One compilation unit per folder (unity) and only the programs the tests run keep two extra
# builds inside the CI budget (a GCC ASan build of the same suite cost about ten minutes of the
# CI run; clang's ASan and UBSan check what GCC's do, and float-to-int overflow too). libtorch's networks are left out: its own code
# is not ours to sanitize, and its headers double the compile.
common=(-Doptimization=1 -Ddebug=false -Dunity=on -Dunity_size=8
        -Dpython=disabled -Dbenchmarks=disabled -Dcuda=disabled -Dtorch=disabled)
tested=(src/sgdsim tests/sgdsim_unit_tests)
passed=0
skipped=0
failed=0

suite() {  # suite BUILD: the tests of the suite 'sanitize' in build/BUILD
  local log="build/$1/meson-logs/testlog.json"
  if meson test -C "build/$1" --suite sanitize --no-rebuild --print-errorlogs \
      --num-processes 2; then :; fi
  local more_passed more_skipped more_failed
  read -r more_passed more_skipped more_failed < <(sgdsim_count_results "$log")
  passed=$((passed + more_passed))
  skipped=$((skipped + more_skipped))
  failed=$((failed + more_failed))
}

check() {  # check NAME COMMAND...: one more result
  if "${@:2}"; then
    passed=$((passed + 1)); echo "sanitize: $1: OK"
  else
    failed=$((failed + 1)); echo "sanitize: $1: FAILED" >&2
  fi
}

CC=clang CXX=clang++ sgdsim_configure sanitize-clang "${common[@]}" \
  -Dfuzz=enabled -Db_sanitize=address,undefined -Db_lundef=false \
  "-Dcpp_args=-g1 -fno-sanitize-recover=all"
fuzzers=()
for corpus in tests/fuzz/corpus/*/; do fuzzers+=("tests/fuzz/fuzz_$(basename "$corpus")"); done
ninja -C build/sanitize-clang "${tested[@]}" "${fuzzers[@]}" >&2
suite sanitize-clang

sgdsim_configure tsan "${common[@]}" -Dmpi=disabled -Db_sanitize=thread -Dcpp_args=-g1
ninja -C build/tsan src/sgdsim >&2
tsan_sweep() {
  local out status=0
  out=$(mktemp -d)
  build/tsan/src/sgdsim sweep scenarios/sweep_resnet50_gpus.json --threads 2 \
    --csv "$out/sweep.csv" && [ -s "$out/sweep.csv" ] || status=1
  rm -rf "$out"
  return $status
}
check "ThreadSanitizer, a sweep on 2 threads" tsan_sweep
tsan_training() {  # the convergence engine's workers and test-set parts on 2 threads
  local out status=0
  out=$(mktemp -d)
  cat > "$out/s.json" <<JSON
{"trace": "$root/traces/resnet50_b32_v100_estimated.json", "cluster": {"gpus": 4},
 "network": {"bandwidth_gbps": 10},
 "communication": {"compression": [{"name": "none"}, {"name": "topk", "density": 0.1}],
                   "averaging": {"run_iterations": 40,
                                 "schedules": [{"schedule": "constant", "period": 4}]}},
 "convergence": {"task": "synthetic_logistic", "target": {"accuracy": 0.99}, "workers": 4,
                 "batch": 8, "momentum": 0.9, "evaluate_every": 10, "threads": 2, "seeds": 2}}
JSON
  build/tsan/src/sgdsim run "$out/s.json" > "$out/table.txt" &&
    grep -q "first to target\|no configuration" "$out/table.txt" || status=1
  rm -rf "$out"
  return $status
}
check "ThreadSanitizer, the convergence engine on 2 threads" tsan_training

echo "sanitize: $passed passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
