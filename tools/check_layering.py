#!/usr/bin/env python3
"""Checks that every module includes only the modules below it (DESIGN.md's layering) and that
only the input/output modules touch JSON. Run from anywhere: check_layering.py [REPO_ROOT].
Exit status 0 when the tree is clean, 1 with one line per violation otherwise.
`--self-test` checks that the checker itself catches an upward include."""
import os
import re
import sys
import tempfile

# module -> modules it may include (besides itself)
ALLOWED = {
    "core": set(),
    "engine": {"core"},
    "workload": {"core"},
    "topology": {"core"},
    "network": {"core", "engine", "topology"},
    "compression": {"core"},
    "collectives": {"core", "network", "topology", "compression"},
    "metrics": {"core"},
    "training": {"core", "engine", "workload", "network", "topology", "compression", "collectives",
                 "metrics"},
    "convergence": {"core", "compression"},
    "jsonio": {"core"},
    "trace_io": {"core", "workload", "jsonio", "network", "topology"},
    "scenario": {"core", "engine", "workload", "topology", "network", "compression",
                 "collectives", "metrics", "training", "convergence", "jsonio", "trace_io"},
}
ALLOWED["cli"] = set(ALLOWED) | {"cli"}
# The Python module is a second front end beside the command line, not above it.
ALLOWED["python"] = set(ALLOWED) - {"cli"} | {"python"}
JSON_MODULES = {"jsonio", "trace_io", "scenario", "cli", "python"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def module_files(root):
    for base in ("include/sgdsim", "src"):
        top = os.path.join(root, base)
        if not os.path.isdir(top):
            continue
        for module in sorted(os.listdir(top)):
            folder = os.path.join(top, module)
            for directory, _, files in os.walk(folder):
                for name in sorted(files):
                    yield module, os.path.join(directory, name)


def violations(root):
    found = []
    for module, path in module_files(root):
        if module not in ALLOWED:
            found.append(f"{path}: module '{module}' is not in the layering table")
            continue
        with open(path, encoding="utf-8") as source:
            for number, line in enumerate(source, start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                header = match.group(1)
                if header.startswith("sgdsim/"):
                    target = header.split("/")[1]
                    if target != module and target not in ALLOWED[module]:
                        found.append(f"{path}:{number}: {module} may not include {header} "
                                     f"(layer '{target}' is not below '{module}')")
                elif header.startswith("nlohmann/") and module not in JSON_MODULES:
                    found.append(f"{path}:{number}: only {sorted(JSON_MODULES)} may touch JSON")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "engine"))
        with open(os.path.join(root, "src", "engine", "bad.cpp"), "w") as bad:
            bad.write('#include "sgdsim/training/merge_policy.hpp"\n#include <nlohmann/json.hpp>\n')
        found = violations(root)
    if len(found) != 2:
        print(f"self-test failed: expected 2 violations, got {found}")
        return 1
    print("self-test passed: an upward include and a JSON include were both caught")
    return 0


def main(argv):
    if argv and argv[0] == "--self-test":
        return self_test()
    root = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = violations(root)
    for line in found:
        print(line)
    if not found:
        print("layering: every include goes down the module table")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
