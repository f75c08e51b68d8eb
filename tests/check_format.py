#!/usr/bin/env python3
"""Fails when a tracked C++ file differs from what clang-format (.clang-format) would write.
Usage: check_format.py CLANG_FORMAT REPO_ROOT"""
import glob
import os
import subprocess
import sys

clang_format, root = sys.argv[1], os.path.abspath(sys.argv[2])
files = sorted(f for pattern in ("include/**/*.hpp", "src/**/*.cpp", "tests/**/*.cpp",
                                 "tests/**/*.hpp", "benchmarks/*.cpp")
               for f in glob.glob(os.path.join(root, pattern), recursive=True))
unformatted = []
for path in files:
    with open(path, encoding="utf-8") as source:
        original = source.read()
    formatted = subprocess.run([clang_format, f"--assume-filename={path}"], input=original,
                               capture_output=True, text=True, cwd=root, check=True).stdout
    if formatted != original:
        unformatted.append(os.path.relpath(path, root))
for path in unformatted:
    print(f"not clang-formatted: {path} (run: clang-format -i {path})")
print(f"format: {len(files) - len(unformatted)} passed, {len(unformatted)} failed")
sys.exit(1 if unformatted else 0)
