#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (apt-get), builds sgdsim with warnings as errors and runs
# every test: unit tests, validation on ../shared/reference (skipped when absent), layering,
# command line, golden scenarios and formatting. Ends with "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
sgdsim_build test -Dwerror=true
status=0
meson test -C build/test --print-errorlogs --num-processes 2 || status=$?
python3 - build/test/meson-logs/testlog.json <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1]) if line.strip()]
ok = sum(r in ("OK", "EXPECTEDFAIL", "SKIP") for r in results)
print(f"tests: {ok} passed, {len(results) - ok} failed")
PY
exit $status
