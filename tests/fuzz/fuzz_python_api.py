#!/usr/bin/env python3
"""Fuzzes the Python module's conversion of dicts to scenarios: the example scenarios of
tests/fuzz/corpus/scenario, mutated (values of every JSON and non-JSON type, keys that are not
text, deep and self-containing nesting, objects whose number conversion raises or lies), passed
to sgdsim.run and sgdsim.sweep. Each call must return or raise sgdsim.InputError or
sgdsim.SimulationError (or the exception a value's own __float__ or __index__ raised); anything
else, or a crash of the interpreter, is a finding.

usage: fuzz_python_api.py MODULE_DIR REPO_ROOT (--runs N | --seconds S)
Exit 0 and one line "fuzz python_api: N executions, no finding"; else the case and exit 1. With
--runs the cases are deterministic (seed 1); exit 77 (skipped) without the module.
"""
import argparse
import copy
import glob
import json
import os
import random
import sys
import time


class OwnError(Exception):
    """Raised by the fuzzer's own objects: passing it through is the right behaviour."""


class FloatRaises:
    def __float__(self):
        raise OwnError("__float__")


class IndexHuge:
    def __index__(self):
        return 2 ** 200


class IndexNegative:
    def __index__(self):
        return -(2 ** 63) - 1


class FloatNan:
    def __float__(self):
        return float("nan")


def deep_list(depth):
    value = [1]
    for _ in range(depth):
        value = [value]
    return value


def strange_value(rng, parent):
    """One value of a kind a user might pass, or should not."""
    choices = [
        None, True, False, 0, -1, 1, 2 ** 31, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -(2 ** 64), 10 ** 40,
        0.0, -0.0, 1e-320, 1e308, float("nan"), float("inf"), -float("inf"), "", "x" * 10000,
        "\u00e9\u4e2d", "a\x00b", b"bytes", bytearray(b"x"), {1, 2}, frozenset(), (1, 2), [], {},
        {1: 2}, {None: 1}, {"k": object()}, object(), FloatRaises(), IndexHuge(), IndexNegative(),
        FloatNan(), deep_list(rng.choice([10, 63, 64, 65, 5000])), range(3), complex(1, 2),
        [float("nan")] * 3, {"from": 1, "to": 10 ** 9, "step": 1}, ["ring_allreduce"] * 1000,
    ]
    if rng.random() < 0.05:
        return parent  # contains itself
    return rng.choice(choices)


def paths(value, prefix=()):
    """The paths into a JSON-like value, the root included, to 8 levels (a mutated value may be
    deep or contain itself)."""
    yield prefix
    if len(prefix) >= 8:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, prefix + (index,))


def mutate(scenario, rng):
    scenario = copy.deepcopy(scenario)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(list(paths(scenario)))
        if not path:
            continue
        parent = scenario
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        if action < 0.7:
            parent[path[-1]] = strange_value(rng, parent)
        elif action < 0.85 and isinstance(parent, dict):
            parent[rng.choice([1, None, (1,), "unknown_key", "sweep"])] = strange_value(rng, parent)
        elif isinstance(parent, dict):
            del parent[path[-1]]
    return scenario


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module_dir")
    parser.add_argument("root")
    budget = parser.add_mutually_exclusive_group(required=True)
    budget.add_argument("--runs", type=int)
    budget.add_argument("--seconds", type=int)
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.module_dir))
    try:
        import sgdsim
    except ImportError as error:
        print(f"skipped: the sgdsim module was not built ({error})")
        return 77
    data = os.path.join(args.root, "tests", "data")
    seeds = []
    for path in sorted(glob.glob(os.path.join(args.root, "tests", "fuzz", "corpus", "scenario",
                                              "*.json"))):
        with open(path, encoding="utf-8") as source:
            seeds.append(json.load(source))
    rng = random.Random(1 if args.runs else time.time_ns())
    deadline = time.monotonic() + args.seconds if args.seconds else None
    executions = 0
    expected = (sgdsim.InputError, sgdsim.SimulationError, OwnError)
    while (executions < args.runs) if args.runs else (time.monotonic() < deadline):
        scenario = mutate(rng.choice(seeds), rng)
        # Small runs only: the fuzzer's time is better spent on more inputs than on one long run.
        if isinstance(scenario.get("iterations"), int) and scenario["iterations"] > 4:
            scenario["iterations"] = 4
        call = rng.choice(["run", "sweep"])
        try:
            if call == "run":
                sgdsim.run(scenario, base_dir=data)
            else:
                sgdsim.sweep(scenario, base_dir=data, threads=1)
        except expected:
            pass
        except Exception as error:  # noqa: BLE001 (every other exception is the finding)
            print(f"fuzz python_api: finding after {executions} executions: sgdsim.{call} "
                  f"raised {type(error).__name__}: {str(error)[:300]}\ncase: {repr(scenario)[:2000]}")
            return 1
        executions += 1
    print(f"fuzz python_api: {executions} executions, no finding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
