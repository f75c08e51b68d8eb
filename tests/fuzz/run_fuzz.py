#!/usr/bin/env python3
"""Runs one libFuzzer target on a copy of its committed seed corpus and reports what it did.

usage: run_fuzz.py FUZZER CORPUS (--runs N | --seconds S)

The copy keeps the committed corpus as it is (libFuzzer adds every new input to its first corpus
folder). Exit 0 and one line "fuzz NAME: N executions, M in corpus, no finding"; on a finding,
libFuzzer's report, the crashing input in hex and exit 1.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fuzzer")
    parser.add_argument("corpus")
    budget = parser.add_mutually_exclusive_group(required=True)
    budget.add_argument("--runs", type=int, help="number of executions (deterministic, seed 1)")
    budget.add_argument("--seconds", type=int, help="run for this long (random seed)")
    args = parser.parse_args()
    name = os.path.basename(args.fuzzer).removeprefix("fuzz_")
    with tempfile.TemporaryDirectory(prefix=f"sgdsim_fuzz_{name}_") as tmp:
        corpus = os.path.join(tmp, "corpus")
        artifacts = os.path.join(tmp, "artifacts")
        shutil.copytree(args.corpus, corpus)
        os.mkdir(artifacts)
        command = [args.fuzzer, corpus, "-rss_limit_mb=2048", "-max_len=65536",
                   "-print_final_stats=1", "-artifact_prefix=" + artifacts + "/"]
        # No input is timed (a loaded machine is slow, not hung): 0 turns libFuzzer's per-input
        # timeout off.
        command.append("-timeout=0")
        if args.runs is not None:
            command += [f"-runs={args.runs}", "-seed=1"]
        else:
            command.append(f"-max_total_time={args.seconds}")
        result = subprocess.run(command, capture_output=True, text=True, errors="replace")
        executions = re.search(r"stat::number_of_executed_units:\s*(\d+)", result.stderr)
        if result.returncode != 0 or executions is None:
            sys.stderr.write(result.stderr[-20000:])
            for artifact in sorted(os.listdir(artifacts)):
                with open(os.path.join(artifacts, artifact), "rb") as f:
                    print(f"finding {artifact}: {f.read()[:4096].hex()}", file=sys.stderr)
            print(f"fuzz {name}: FINDING (exit {result.returncode})")
            return 1
        print(f"fuzz {name}: {int(executions.group(1))} executions, "
              f"{len(os.listdir(corpus))} in corpus, no finding")
        return 0


if __name__ == "__main__":
    sys.exit(main())
