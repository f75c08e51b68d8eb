#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (apt-get: the build and every test tool), builds sgdsim with
# warnings as errors and runs every test: unit tests, validation on ../shared/reference (skipped
# when absent), layering, command line, outputs, golden scenarios, formatting, valgrind; then
# `meson install` and `pip install .` into staging folders (tests/install_test.py); then the
# sanitizer builds and the fuzz targets (tools/sanitize.sh). Ends with "tests: N passed, N
# skipped, N failed".
# Usage: tools/test.sh [--no-sanitize]   (--no-sanitize: the main build only, for a quick look)
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=1
case "${1:-}" in
  "") ;;
  --no-sanitize) sanitize=0 ;;
  *) echo "usage: tools/test.sh [--no-sanitize]" >&2; exit 2 ;;
esac
source tools/setup.sh
# One compilation unit per folder (unity): a clean build takes a third of the CPU time.
sgdsim_build test -Dwerror=true -Dunity=on -Dunity_size=8
status=0
meson test -C build/test --print-errorlogs --num-processes 2 || status=$?
read -r passed skipped failed < <(sgdsim_count_results build/test/meson-logs/testlog.json)
# Installs, after the Meson tests, from their build folder.
install_status=0
/usr/bin/python3 tests/install_test.py build/test . || install_status=$?
case $install_status in
  0) passed=$((passed + 1)) ;;
  77) skipped=$((skipped + 1)) ;;
  *) failed=$((failed + 1)); status=1 ;;
esac
if [ "$sanitize" -eq 1 ]; then
  sanitize_log=$(mktemp)
  tools/sanitize.sh | tee "$sanitize_log" || status=1
  sanitized=$(sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) skipped, \([0-9]*\) failed$/\1 \2 \3/p' \
    "$sanitize_log")
  rm -f "$sanitize_log"
  if [ -n "$sanitized" ]; then
    read -r more_passed more_skipped more_failed <<< "$sanitized"
    passed=$((passed + more_passed))
    skipped=$((skipped + more_skipped))
    failed=$((failed + more_failed))
  else
    failed=$((failed + 1))
  fi
fi
echo "tests: $passed passed, $skipped skipped, $failed failed"
exit $status
