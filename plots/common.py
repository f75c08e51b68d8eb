"""Shared helpers for sgdsim's plot scripts: reading sgdsim CSV/JSON files with every field
checked, and writing figures without ever destroying an input or leaving a partial file (the
figure style is style.py's). Bad input of any kind ends as one line "SCRIPT: error: MESSAGE" on
stderr and exit status 2, as in sgdsim itself. Run the scripts with Debian's /usr/bin/python3
(python3-matplotlib)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/../tools")  # for tool_io
import style  # noqa: E402  (plots/style.py: the one figure style; sets the Agg backend)
import tool_io  # noqa: E402
from style import POLICY_LABELS, POLICY_ORDER, plt  # noqa: E402,F401
# The scripts import ArgumentParser and fail from here, with the plot helpers.
from tool_io import MAX_GPUS, ArgumentParser, describe, fail  # noqa: E402,F401

FORMATS = (".png", ".svg", ".pdf")
# No creation date or software version in the files: a figure regenerated from the same numbers
# is the same file, so regenerated figures show in a diff only where they changed.
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}


def run(main):
    """Runs a script's main() (tool_io.run): bad input is one line on stderr and exit status 2."""
    sys.exit(tool_io.run(main))


# Reading. Every conversion that could raise on bad input happens here or in tool_io, so the
# scripts index checked values only.

class Record:
    """A JSON object read from an sgdsim file, whose fields are checked as they are read: a missing
    or mistyped field is bad input naming the file and the field's JSON path."""

    def __init__(self, value, source, path=""):
        if not isinstance(value, dict):
            where = path or "the top level"
            fail(f"{source}: {where}: expected an object, found {describe(value)}")
        self.fields, self.source, self.path = value, source, path

    def where(self, key):
        return f"{self.source}: {self.path}.{key}" if self.path else f"{self.source}: {key}"

    def has(self, key):
        return self.fields.get(key) is not None

    def value(self, key, expected):
        if key not in self.fields:
            fail(f"{self.where(key)}: missing; expected {expected} (is this file from this "
                 "version of sgdsim?)")
        return self.fields[key]

    def number(self, key, low=0.0):
        """A finite number >= low (times, sizes and rates are never negative)."""
        expected = f"a finite number >= {low:g}"
        value = self.value(key, expected)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(f"{self.where(key)}: expected {expected}, found {describe(value)}")
        try:
            value = float(value)
        except OverflowError:  # an integer beyond a double
            value = math.inf
        if not math.isfinite(value) or value < low:
            fail(f"{self.where(key)}: expected {expected}, found {describe(self.fields[key])}")
        return value

    def integer(self, key, low, high):
        expected = f"an integer from {low} to {high}"
        value = self.value(key, expected)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            fail(f"{self.where(key)}: expected {expected}, found {describe(value)}")
        return value

    def text(self, key):
        value = self.value(key, "a string")
        if not isinstance(value, str):
            fail(f"{self.where(key)}: expected a string, found {describe(value)}")
        return value

    def record(self, key):
        child = f"{self.path}.{key}" if self.path else key
        return Record(self.value(key, "an object"), self.source, child)

    def records(self, key):
        """A non-empty array of objects (an empty one leaves nothing to draw)."""
        expected = "a non-empty array of objects"
        items = self.value(key, expected)
        if not isinstance(items, list) or not items:
            fail(f"{self.where(key)}: expected {expected}, found {describe(items)}")
        child = f"{self.path}.{key}" if self.path else key
        return [Record(item, self.source, f"{child}[{i}]") for i, item in enumerate(items)]


def read_json(path, expected_format):
    """The top-level Record of an sgdsim JSON file of the given format ("format" at the top, or in
    "otherData" for a Chrome-trace timeline)."""
    root = Record(tool_io.read_json(path, "output file"), path)
    holder = root.record("otherData") if "otherData" in root.fields else root
    found = holder.fields.get("format")
    if found != expected_format:
        fail(f"{path}: expected an sgdsim file of format {expected_format!r}, found "
             f"{describe(found) if found is not None else 'none'}")
    return root


def setup_of(result):
    """The checked fields style.setup_title states, from an sgdsim result Record (batch_size
    where the file has it; bandwidth_gbps where the job has a network, not inside one node;
    goodput_gbps is never stated)."""
    fields = {"model": result.text("model"), "gpus": result.integer("gpus", 1, MAX_GPUS),
              "bandwidth_gbps": (result.number("bandwidth_gbps")
                                 if result.value("bandwidth_gbps", "a number or null") is not None
                                 else None),
              "collective": result.text("collective")}
    if result.has("batch_size"):
        fields["batch_size"] = result.integer("batch_size", 1, tool_io.MAX_BATCH)
    return fields


def text_cell(cell, where):
    """Any text: names of models, policies and compressors are not checked here."""
    return cell


def number_cell(low):
    def convert(cell, where):
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low:
            fail(f"{where}: expected a finite number >= {low:g}, found {cell!r}")
        return value
    return convert


def optional_number_cell(low):
    """A number as number_cell, or None for an empty cell (bandwidth_gbps of a job inside one
    node, which has no network)."""
    number = number_cell(low)
    return lambda cell, where: None if cell == "" else number(cell, where)


def integer_cell(low, high):
    def convert(cell, where):
        try:
            value = int(cell)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            fail(f"{where}: expected an integer from {low} to {high}, found {cell!r}")
        return value
    return convert


def read_header(path):
    """(header, records) of an sgdsim CSV, as tool_io.read_csv reads it."""
    return tool_io.read_csv(path)


def read_csv(path, columns, optional=None):
    """Rows of an sgdsim CSV (tool_io.read_csv: a leading comment line or none, notes after the
    rows skipped) as dicts of the needed columns, each converted by columns[name](cell, where),
    and of those `optional` columns the file has (ones only newer files or some sweeps write); a
    missing column, a row of another length or a bad cell is bad input naming the file and
    line."""
    header, records = tool_io.read_csv(path)
    missing = [column for column in columns if column not in header]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)} (is this an sgdsim sweep CSV?)")
    wanted = {**{k: v for k, v in (optional or {}).items() if k in header}, **columns}
    rows = []
    for line, cells in records:
        if len(cells) != len(header):
            fail(f"{path}:{line}: {len(cells)} fields where the header has {len(header)}")
        row = dict(zip(header, cells))
        rows.append({name: convert(row[name], f"{path}:{line}: column {name}")
                     for name, convert in wanted.items()})
    return rows


# Writing, through tool_io: outputs checked before anything is drawn, and all written or none.

def check_outputs(outputs, inputs):
    """Refuses, before anything is drawn, an output of another extension, and whatever
    tool_io.check_outputs refuses (a folder, a missing folder, an input, one file named twice)."""
    for path in outputs:
        if not path.endswith(FORMATS):
            fail(f"{path}: the output must end in one of {', '.join(FORMATS)}")
    tool_io.check_outputs(outputs, inputs, "script")


def save(figures):
    """Writes each (figure, path) of a script, all or none (tool_io.write_files)."""
    def drawing(figure, path):
        extension = os.path.splitext(path)[1][1:]
        return lambda out: figure.savefig(out, format=extension, dpi=style.DPI,
                                          bbox_inches="tight", metadata=METADATA[extension])
    tool_io.write_files([(path, drawing(figure, path)) for figure, path in figures])
    for figure, path in figures:
        plt.close(figure)
        print(f"wrote {path}", file=sys.stderr)

