"""Shared helpers for sgdsim's plot scripts: reading sgdsim CSV/JSON files with clear errors,
and one figure style. Run the scripts with Debian's /usr/bin/python3 (python3-matplotlib)."""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

POLICY_ORDER = ["none", "all", "bucket", "fusion", "mgwfbp", "optimal"]
POLICY_LABELS = {"none": "WFBP", "all": "SyncEASGD", "bucket": "DDP buckets",
                 "fusion": "Horovod fusion", "mgwfbp": "MG-WFBP", "optimal": "optimal"}
FORMATS = (".png", ".svg", ".pdf")


def fail(message):
    print(f"{os.path.basename(sys.argv[0])}: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path, needed):
    """Rows of an sgdsim CSV (comment lines skipped); exits 2 naming any missing column."""
    try:
        with open(path, encoding="utf-8") as source:
            lines = [line for line in source if not line.startswith("#")]
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror}")
    rows = list(csv.DictReader(lines))
    columns = set(rows[0].keys()) if rows else set()
    missing = [column for column in needed if column not in columns]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)} (is this an sgdsim sweep CSV?)")
    return rows


def read_json(path, expected_format):
    try:
        with open(path, encoding="utf-8") as source:
            data = json.load(source)
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror}")
    except json.JSONDecodeError as error:
        fail(f"{path}: malformed JSON at line {error.lineno}, column {error.colno}")
    found = data.get("format") or data.get("otherData", {}).get("format")
    if found != expected_format:
        fail(f"{path}: expected an sgdsim file of format {expected_format!r}, found {found!r}")
    return data


def check_output(path):
    if not path.endswith(FORMATS):
        fail(f"{path}: the output must end in one of {', '.join(FORMATS)}")


def save(figure, path):
    """Writes through a temporary name so that a failed plot leaves no partial file."""
    check_output(path)
    temporary = path + ".partial" + os.path.splitext(path)[1]
    figure.savefig(temporary, dpi=130, bbox_inches="tight")
    os.replace(temporary, path)
    plt.close(figure)
    print(f"wrote {path}", file=sys.stderr)


def style():
    plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "axes.spines.top": False, "axes.spines.right": False})
