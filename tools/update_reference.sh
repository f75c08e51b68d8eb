#!/usr/bin/env bash
# Regenerates what is derived from the declarations: scenarios/scenario.schema.json, the family
# tables of scenarios/README.md, the result schema docs/result.schema.json and its field table
# in docs/outputs.md. Usage: tools/update_reference.sh [SGDSIM_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
sgdsim=${1:-build/release/src/sgdsim}
"$sgdsim" schema > scenarios/scenario.schema.json
"$sgdsim" schema --result > docs/result.schema.json
"$sgdsim" list --markdown > /tmp/sgdsim_tables.$$
python3 - /tmp/sgdsim_tables.$$ <<'PY'
import sys
tables = open(sys.argv[1], encoding="utf-8").read()
path = "scenarios/README.md"
text = open(path, encoding="utf-8").read()
begin, end = "<!-- begin: sgdsim list --markdown -->\n", "<!-- end: sgdsim list --markdown -->"
start, stop = text.index(begin) + len(begin), text.index(end)
open(path, "w", encoding="utf-8").write(text[:start] + tables + text[stop:])
PY
rm -f /tmp/sgdsim_tables.$$
python3 tools/result_fields.py docs/result.schema.json > /tmp/sgdsim_fields.$$
python3 - /tmp/sgdsim_fields.$$ <<'PY'
import sys
table = open(sys.argv[1], encoding="utf-8").read()
path = "docs/outputs.md"
text = open(path, encoding="utf-8").read()
begin, end = "<!-- begin: result fields -->\n", "<!-- end: result fields -->"
start, stop = text.index(begin) + len(begin), text.index(end)
open(path, "w", encoding="utf-8").write(text[:start] + table + text[stop:])
PY
rm -f /tmp/sgdsim_fields.$$
echo "updated scenarios/scenario.schema.json, scenarios/README.md, docs/result.schema.json and docs/outputs.md" >&2
