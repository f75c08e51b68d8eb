"""The small harness the script tests share: named checks that print what failed, and a closing
line "NAME: N passed, N failed" with the matching exit code; and the pieces of the bad-input
tables, which run a command in a fresh folder and assert it refused without touching a file."""
import hashlib
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile


class Checks:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failures = []

    def check(self, what, condition, detail=""):
        if condition:
            self.passed += 1
        else:
            self.failures.append(what)
            print(f"FAIL {what}: {detail}")

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures else 0)


def module_or_skip(name, package, load=True):
    """The module `name` (imported only with `load`: a subprocess may be what needs it), or exit
    77 (skipped, never passed) naming the Debian package that has it."""
    if importlib.util.find_spec(name) is None:
        print(f"SKIPPED: {package} is not installed")
        sys.exit(77)
    return importlib.import_module(name) if load else None


def snapshot(folder):
    """Every entry of the folder: a link's target, a file's SHA-256, or "folder"."""
    state = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.islink(path):
            state[name] = "link:" + os.readlink(path)
        elif os.path.isfile(path):
            with open(path, "rb") as f:
                state[name] = hashlib.sha256(f.read()).hexdigest()
        else:
            state[name] = "folder"
    return state


def write_files(folder, files):
    """Writes {name: text, bytes, ("link", target) or ("folder",)} into the folder; text as
    UTF-8, with lone surrogates written as the bytes they stand for."""
    for name, content in files.items():
        path = os.path.join(folder, name)
        if content == ("folder",):
            os.mkdir(path)
        elif isinstance(content, tuple):
            os.symlink(content[1], path)
        else:
            with open(path, "wb") as out:
                out.write(content if isinstance(content, bytes)
                          else content.encode("utf-8", "surrogateescape"))


def run_watched(command, folder):
    """Runs the command in the folder; returns its result and the names of the entries it
    created, changed or removed there, sorted."""
    before = snapshot(folder)
    r = subprocess.run(command, cwd=folder, capture_output=True, text=True, errors="replace")
    after = snapshot(folder)
    return r, sorted(name for name in {*before, *after} if before.get(name) != after.get(name))


def check_refusals(checks, cases, path_of, files_of):
    """Runs each (what, script, arguments, files, phrase) case: the Python script at
    path_of(script) in a fresh folder holding files_of(files). Each must exit 2 with one line
    "SCRIPT: error: ..." holding the phrase, no traceback, and no file created, changed or
    removed."""
    for what, script, args, files, phrase in cases:
        with tempfile.TemporaryDirectory() as folder:
            write_files(folder, files_of(files))
            r, changed = run_watched([sys.executable, path_of(script), *args], folder)
            lines = r.stderr.splitlines()
            checks.check(what, r.returncode == 2 and len(lines) == 1
                         and lines[0].startswith(f"{script}: error: ") and phrase in lines[0]
                         and "Traceback" not in r.stderr and not changed,
                         f"exit {r.returncode}, files changed {changed}, "
                         f"stderr {r.stderr[-400:]!r}")
