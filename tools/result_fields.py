#!/usr/bin/env python3
"""Prints the result file's field reference as a Markdown table, from its JSON Schema
(`sgdsim schema --result`): one row per field, nested fields by their dotted path, `[]` for the
items of a list. tools/update_reference.sh writes it into docs/outputs.md.
Usage: result_fields.py SCHEMA.json"""
import json
import sys


def rows(schema, path):
    props = schema.get("properties", {})
    items = schema.get("items", {})
    for name, field in props.items():
        here = f"{path}.{name}" if path else name
        kind = field.get("type", "const" if "const" in field else "enum" if "enum" in field else "")
        if isinstance(kind, list):
            kind = " or ".join(kind)
        if "const" in field:
            kind = f"`{json.dumps(field['const'])}`"
        elif "enum" in field:
            kind = " \\| ".join(f"`{v}`" for v in field["enum"])
        yield here, kind, field.get("description", "")
        if "properties" in field:
            yield from rows(field, here)
        if field.get("items", {}).get("properties"):
            yield from rows(field["items"], here + "[]")
    if items.get("properties"):
        yield from rows(items, path + "[]")


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    print("| field | type | meaning |")
    print("|---|---|---|")
    for path, kind, description in rows(schema, ""):
        meaning = description.replace("|", "\\|")
        print(f"| `{path}` | {kind} | {meaning} |")


if __name__ == "__main__":
    main(sys.argv)
