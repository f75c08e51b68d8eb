#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (apt-get), builds sgdsim with warnings as errors and runs
# every test: unit tests, validation on ../shared/reference (skipped when absent), layering,
# command line, golden scenarios, formatting, valgrind; then the sanitizer builds and the fuzz
# targets (tools/sanitize.sh). Ends with "tests: N passed, N failed".
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
sgdsim_build test -Dwerror=true
status=0
meson test -C build/test --print-errorlogs --num-processes 2 || status=$?
counts=$(python3 - build/test/meson-logs/testlog.json <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1]) if line.strip()]
ok = sum(r in ("OK", "EXPECTEDFAIL", "SKIP") for r in results)
print(ok, len(results) - ok)
PY
)
passed=${counts% *}
failed=${counts#* }
if [ "$sanitize" -eq 1 ]; then
  sanitize_log=$(mktemp)
  tools/sanitize.sh | tee "$sanitize_log" || status=1
  sanitized=$(sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$sanitize_log")
  rm -f "$sanitize_log"
  if [ -n "$sanitized" ]; then
    passed=$((passed + ${sanitized% *}))
    failed=$((failed + ${sanitized#* }))
  else
    failed=$((failed + 1))
  fi
fi
echo "tests: $passed passed, $failed failed"
exit $status
