"""The small harness the script tests share: named checks that print what failed, and a closing
line "NAME: N passed, N failed" with the matching exit code."""
import sys


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
