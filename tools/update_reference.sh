#!/usr/bin/env bash
# Regenerates what is derived from the declarations: scenarios/scenario.schema.json, the family
# tables of scenarios/README.md, the result schema docs/result.schema.json and its field table
# in docs/outputs.md. Usage: tools/update_reference.sh [SGDSIM_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
sgdsim=${1:-build/release/src/sgdsim}

# between FILE MARKER: replaces what lies between <!-- begin: MARKER --> and <!-- end: MARKER -->
# in FILE with standard input.
between() {
  python3 -c '
import sys
path, marker = sys.argv[1], sys.argv[2]
content = sys.stdin.read()
text = open(path, encoding="utf-8").read()
begin, end = f"<!-- begin: {marker} -->\n", f"<!-- end: {marker} -->"
start, stop = text.index(begin) + len(begin), text.index(end)
open(path, "w", encoding="utf-8").write(text[:start] + content + text[stop:])
' "$1" "$2"
}

"$sgdsim" schema > scenarios/scenario.schema.json
"$sgdsim" schema --result > docs/result.schema.json
"$sgdsim" list --markdown | between scenarios/README.md "sgdsim list --markdown"
python3 tools/result_fields.py docs/result.schema.json | between docs/outputs.md "result fields"
echo "updated scenarios/scenario.schema.json, scenarios/README.md, docs/result.schema.json and" \
  "docs/outputs.md" >&2
