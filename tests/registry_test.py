#!/usr/bin/env python3
"""Registries, the scenario JSON Schema and the generated reference tables: the committed schema
equals `sgdsim schema`; every example scenario validates against it (python3-jsonschema) and
bad ones fail both the schema and the reader; scenarios/README.md's tables equal
`sgdsim list --markdown`; `sgdsim list` and the importer registry's errors.
Usage: registry_test.py SGDSIM_BINARY REPO_ROOT"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, module_or_skip  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
jsonschema = module_or_skip("jsonschema", "python3-jsonschema")


def sgdsim(*args, cwd=ROOT):
    return subprocess.run([SGDSIM, *args], cwd=cwd, capture_output=True, text=True)


checks = Checks("registries and schema")

# The committed schema is what the binary generates.
generated = sgdsim("schema")
committed_path = os.path.join(ROOT, "scenarios", "scenario.schema.json")
with open(committed_path, encoding="utf-8") as f:
    committed = f.read()
checks.check("sgdsim schema exits 0", generated.returncode == 0, generated.stderr)
checks.check("scenarios/scenario.schema.json is current (tools/update_reference.sh)",
             generated.stdout == committed)
schema = json.loads(committed)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

# Every example validates.
examples = sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.json")) +
                  glob.glob(os.path.join(ROOT, "studies", "*.json")) +
                  glob.glob(os.path.join(ROOT, "studies", "*", "*.json")))
examples = [path for path in examples if not path.endswith((".schema.json", "_trace.json"))]
checks.check("there are example scenarios", len(examples) >= 20, str(len(examples)))
for path in examples:
    with open(path, encoding="utf-8") as f:
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}"
                  for e in validator.iter_errors(json.load(f))]
    checks.check(f"{os.path.relpath(path, ROOT)} validates", not errors, "; ".join(errors[:3]))

# Bad scenarios fail the schema and the reader alike (exit 2).
with open(os.path.join(ROOT, "scenarios", "default.json"), encoding="utf-8") as f:
    base = json.load(f)
base["trace"] = os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json")


def variant(edit):
    scenario = json.loads(json.dumps(base))
    edit(scenario)
    return scenario


bad = {
    "unknown top-level key": variant(lambda s: s.update(iterationz=3)),
    "topk with density 2": variant(lambda s: s["communication"].update(
        compression={"name": "topk", "density": 2})),
    "topk without density": variant(lambda s: s["communication"].update(compression={"name": "topk"})),
    "unknown compressor": variant(lambda s: s["communication"].update(compression={"name": "top-k"})),
    "parameter server without servers": variant(lambda s: s["communication"].update(
        collective={"algorithm": "parameter_server"})),
    "servers on a ring": variant(lambda s: s["communication"].update(
        collective={"algorithm": "ring_allreduce", "servers": 2})),
    "unknown merge policy": variant(lambda s: s["communication"]["merge"].update(policy=["mgwbfp"])),
    "constant schedule without period": variant(lambda s: s["communication"].update(
        averaging={"run_iterations": 10, "schedules": [{"schedule": "constant"}]})),
    "network without bandwidth": variant(lambda s: s.update(network={"latency_us": 5})),
}
with tempfile.TemporaryDirectory() as folder:
    for what, scenario in bad.items():
        checks.check(f"the schema refuses: {what}", not validator.is_valid(scenario))
        path = os.path.join(folder, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(scenario, f)
        result = sgdsim("run", path)
        checks.check(f"the reader refuses: {what}", result.returncode == 2 and
                     result.stderr.startswith("sgdsim: error: "), result.stderr)

# The README's reference tables are `sgdsim list --markdown`.
with open(os.path.join(ROOT, "scenarios", "README.md"), encoding="utf-8") as f:
    readme = f.read()
begin, end = "<!-- begin: sgdsim list --markdown -->\n", "<!-- end: sgdsim list --markdown -->"
tables = readme[readme.find(begin) + len(begin):readme.find(end)] if begin in readme else ""
markdown = sgdsim("list", "--markdown").stdout
checks.check("scenarios/README.md tables equal `sgdsim list --markdown` (tools/update_reference.sh)",
             tables == markdown)

# `sgdsim list`: every family, labels for the plots, errors.
listing = json.loads(sgdsim("list", "--json").stdout)
names = {family: [m["name"] for m in listing[family]["members"]]
         for family in ("collectives", "policies", "compressors", "schedules", "importers")}
checks.check("seven merge policies, WFBP first, ByteScheduler last",
             names["policies"][:1] == ["none"] and names["policies"][-1] == "bytescheduler"
             and len(names["policies"]) == 7, str(names["policies"]))
labels = {m["name"]: m["label"] for m in listing["policies"]["members"]}
checks.check("policy labels come from the registry", labels.get("mgwfbp") == "MG-WFBP", str(labels))
checks.check("qsgd is an alias of standard_dithering",
             any(m["name"] == "standard_dithering" and "qsgd" in m["aliases"]
                 for m in listing["compressors"]["members"]))
checks.check("six collectives, BytePS among them",
             names["collectives"][-1] == "byteps" and len(names["collectives"]) == 6,
             str(names["collectives"]))
text = sgdsim("list", "compressors").stdout
checks.check("sgdsim list compressors shows topk's density key",
             "density (number in (0, 1], required)" in text, text[:300])
unknown = sgdsim("list", "compresors")
checks.check("an unknown family is exit 2", unknown.returncode == 2, unknown.stderr)
with tempfile.TemporaryDirectory() as folder:
    out = os.path.join(folder, "t.json")
    result = sgdsim("trace", "import", os.path.join(ROOT, "tests", "data", "bcaffe_small.log"),
                    "--from", "bcafe", "--batch", "32", "-o", out)
    checks.check("an unknown importer is exit 2 with a suggestion",
                 result.returncode == 2 and '(did you mean "bcaffe"?)' in result.stderr
                 and not os.path.exists(out), result.stderr)
    result = sgdsim("trace", "import", os.path.join(ROOT, "tests", "data", "bcaffe_small.log"),
                    "--from", "bcaffe", "-o", out)
    checks.check("a B-Caffe import without --batch says why", result.returncode == 2 and
                 "does not record the batch size" in result.stderr, result.stderr)

# Chakra through the command line: export a trace and import it back; import ASTRA-sim's fixture.
with tempfile.TemporaryDirectory() as folder:
    trace = os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json")
    et, back = os.path.join(folder, "r50.et"), os.path.join(folder, "back.json")
    exported = sgdsim("trace", "export", "--to", "chakra", trace, "-o", et)
    imported = sgdsim("trace", "import", "--from", "chakra", et, "-o", back)
    checks.check("a trace exports to a Chakra ET and imports back", exported.returncode == 0 and
                 imported.returncode == 0, exported.stderr + imported.stderr)
    # ResNet-50 has 25,557,032 parameters (tests/unit/trace_io_test.cpp), in 107 layers.
    checks.check("the round trip keeps layers and gradient elements",
                 "imported 107 layers, 25557032 gradient elements" in imported.stderr,
                 imported.stderr)
    astra = sgdsim("trace", "import", "--from", "chakra",
                   os.path.join(ROOT, "tests", "data", "astra_resnet50_data_parallel.et"), "-o",
                   os.path.join(folder, "astra.json"))
    # ASTRA-sim's ResNet-50 DATA workload: 54 layers, 102,011,648 gradient bytes / 4 = 25,502,912.
    checks.check("ASTRA-sim's ResNet-50 workload imports as 54 layers",
                 "imported 54 layers, 25502912 gradient elements" in astra.stderr, astra.stderr)
    bad = os.path.join(folder, "bad.et")
    with open(bad, "wb") as f:
        f.write(b"\x0bnot an ET")
    refused = sgdsim("trace", "import", "--from", "chakra", bad, "-o", back + "2")
    checks.check("a file that is not an ET is exit 2 and writes nothing",
                 refused.returncode == 2 and not os.path.exists(back + "2"), refused.stderr)

checks.finish()
