#!/usr/bin/env python3
"""Fails when a C++ file of the project differs from what clang-format (.clang-format) would
write. One clang-format call checks every file (--dry-run --Werror), so a loaded machine only
makes it slower, never racier.
Usage: check_format.py CLANG_FORMAT REPO_ROOT"""
import glob
import os
import re
import subprocess
import sys

clang_format, root = sys.argv[1], os.path.abspath(sys.argv[2])
files = sorted(os.path.relpath(f, root)
               for pattern in ("include/**/*.hpp", "src/**/*.cpp", "tests/**/*.cpp",
                               "tests/**/*.hpp", "benchmarks/*.cpp", "benchmarks/*.hpp",
                               "tools/**/*.cpp", "tools/**/*.hpp")
               for f in glob.glob(os.path.join(root, pattern), recursive=True))
result = subprocess.run([clang_format, "--dry-run", "--Werror", *files], capture_output=True,
                        text=True, cwd=root)
# Each difference is reported as "FILE:LINE:COLUMN: error: code should be clang-formatted".
unformatted = sorted({match.group(1) for match in
                      re.finditer(r"^(.+?):\d+:\d+: error:", result.stderr, re.MULTILINE)})
if result.returncode != 0 and not unformatted:
    print(result.stderr)
    sys.exit(1)
for path in unformatted:
    print(f"not clang-formatted: {path} (run: clang-format -i {path})")
print(f"format: {len(files) - len(unformatted)} passed, {len(unformatted)} failed")
sys.exit(1 if unformatted else 0)
