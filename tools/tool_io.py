"""Bad input and output files for sgdsim's Python tools and plot scripts. Bad input of any kind
ends as one line "TOOL: error: MESSAGE" on stderr and exit status 2, as in sgdsim; JSON is read
as strictly as sgdsim reads it; outputs are written whole or not at all, never over an input.
The tools import it by putting this folder (tools/) on sys.path."""
import argparse
import contextlib
import csv
import json
import math
import os
import stat
import sys

# sgdsim holds times as int64 picoseconds and refuses 9e18 ps (about 104 days) or more, for one
# layer or for a whole iteration.
MAX_TIME_US = 9.0e12
# The largest batch_size a trace may hold, and the largest cluster sgdsim reads a GPU count for.
MAX_BATCH = 1 << 24
MAX_GPUS = 1 << 20


class BadInput(Exception):
    """A problem with the command line or an input file: one line on stderr, exit status 2."""


def fail(message):
    raise BadInput(message)


def run(main, *args):
    """Runs main(*args) and returns its exit status. Only here is bad input caught; any other
    exception is a bug in the tool and keeps its traceback."""
    try:
        return main(*args)
    except BadInput as error:
        print(f"{os.path.basename(sys.argv[0])}: error: {error}", file=sys.stderr)
        return 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line like every other bad input (still exit 2)."""

    def error(self, message):
        fail(f"{message} (see {self.prog} --help)")


def describe(value):
    """A found value for an error message: its JSON text, shortened."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_time(value_us, where):
    """A time a trace will hold: a finite number of microseconds, not negative, within what
    sgdsim represents."""
    if isinstance(value_us, bool) or not isinstance(value_us, (int, float)):
        fail(f"{where}: expected a number of microseconds, found {describe(value_us)}")
    if not 0 <= value_us < MAX_TIME_US:  # also false for NaN
        fail(f"{where}: {describe(value_us)} us is not a time sgdsim can hold (0 up to "
             f"{MAX_TIME_US:g} us, about 104 days)")
    return value_us


def check_batch(batch):
    """--batch of a tool that writes a trace."""
    if not 1 <= batch <= MAX_BATCH:
        fail(f"--batch must be from 1 to {MAX_BATCH}, found {batch}")


def check_iteration(layers, optimizer_us, hint):
    """Every layer's times and the whole iteration of a trace about to be written; returns the
    iteration in microseconds. `hint` says what to check when the whole is too long."""
    for layer in layers:
        for key in ("forward_us", "backward_us"):
            check_time(layer[key], f"layer {layer['name']}: {key}")
    total = sum(layer["forward_us"] + layer["backward_us"] for layer in layers) + optimizer_us
    return check_time(total, f"the whole iteration ({hint})")


# Reading.

def read_text(path, kind):
    """The whole of a UTF-8 text file; a missing, unreadable or binary file is bad input whose
    message asks whether the file is an sgdsim KIND ("trace", "output file")."""
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror or error}")
    except UnicodeDecodeError as error:
        fail(f"{path}: not UTF-8 text (byte {error.start}); is this an sgdsim {kind}?")
    if "\0" in text:
        fail(f"{path}: contains NUL bytes; is this an sgdsim {kind}?")
    return text


def read_csv(path, kind="output file"):
    """(header, [(line number, cells)]) of an sgdsim CSV. The first line may be a comment
    ("# sgdsim-sweep-csv schema_version=1 ...", written before sgdsim dropped it) or the header
    itself; the comment lines after the rows ("# failed: point ...", "# interrupted: ...",
    "# aborted: ...") are skipped, and so are blank lines. An empty or malformed file is bad
    input naming the file and line."""
    lines = read_text(path, kind).splitlines(keepends=True)
    first = 1 if lines and lines[0].startswith("#") else 0
    last = len(lines)
    while last > first and (lines[last - 1].startswith("#") or not lines[last - 1].strip()):
        last -= 1  # the notes after the rows
    if last == first:
        fail(f"{path}: empty; expected an sgdsim CSV with a header line")
    reader = csv.reader(lines[first:last], strict=True)  # RFC 4180, as sgdsim writes it
    try:
        header = next(reader)
        rows = []
        start = first + 1  # line number of the record being read, counted from 1
        for cells in reader:
            if cells:
                rows.append((start + 1, cells))
            start = first + reader.line_num
    except csv.Error as error:
        fail(f"{path}:{first + reader.line_num}: malformed CSV: {error}")
    return header, rows


def finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        fail(f"the number {text} is beyond a double")
    return value


def refuse_constant(name):
    fail(f"{name} is not a JSON number")


def unique_keys(pairs):
    fields = {}
    for key, value in pairs:
        if key in fields:
            fail(f"key {key!r} given twice")
        fields[key] = value
    return fields


def parse_json(path, text):
    """Strict JSON, as sgdsim reads it: no NaN or Infinity, no number beyond a double, no key
    given twice."""
    try:
        return json.loads(text, parse_float=finite_float, parse_constant=refuse_constant,
                          object_pairs_hook=unique_keys)
    except json.JSONDecodeError as error:
        fail(f"{path}: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}")
    except ValueError as error:  # an integer of more than 4300 digits
        fail(f"{path}: malformed JSON: {error}")
    except RecursionError:
        fail(f"{path}: malformed JSON: nested too deeply")
    except BadInput as error:
        fail(f"{path}: malformed JSON: {error}")


def read_json(path, kind):
    """A JSON file read strictly (parse_json); kind as for read_text."""
    return parse_json(path, read_text(path, kind))


# Writing. As in sgdsim: outputs are checked before any work, symbolic links are written through,
# devices and pipes written directly, and a regular file is written as FILE.partial and renamed
# over FILE only once every output of the tool is complete.

def special_file(path):
    """A device or pipe (/dev/stdout, a FIFO): written directly, never renamed over."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_outputs(outputs, inputs=(), kind="tool"):
    """Refuses, before any work, outputs that cannot be written or would destroy an input: a
    folder, a missing folder, an input file, one file named twice. kind ("tool", "script") is
    what the message calls the program."""
    targets = []
    for path in outputs:
        if os.path.isdir(path):
            fail(f"{path}: is a folder; name a file to write")
        for source in inputs:
            if same_file(path, source):
                fail(f"{path}: is also an input of this {kind} ({source}); write the output "
                     "elsewhere")
        special = special_file(path)  # realpath names the same file: one stat is enough
        target = path if special else os.path.realpath(path)
        if target in targets:
            fail(f"{path}: is named for two outputs")
        targets.append(target)
        folder = os.path.dirname(target)
        if not special and not os.path.isdir(folder):
            fail(f"{path}: cannot write: no folder {folder}")
        if not special and not os.access(folder, os.W_OK):
            fail(f"{path}: cannot write: folder {folder} is not writable")


class CannotWrite(BadInput):
    """An output that could not be written: "PATH: cannot write: REASON"."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: cannot write: {reason}")
        self.path, self.reason = path, reason


def write_files(outputs):
    """Writes each (path, write) of a tool, all or none: write(binary file) fills the file. A
    failure leaves no FILE.partial behind and raises CannotWrite naming the output."""
    pending = []  # (path, regular file it names), each written as FILE.partial for now
    path = None
    try:
        for path, write in outputs:
            if special_file(path):
                with open(path, "wb") as out:
                    write(out)
                continue
            pending.append((path, os.path.realpath(path)))
            with open(pending[-1][1] + ".partial", "wb") as out:
                write(out)
        for path, target in pending:
            os.replace(target + ".partial", target)
    except OSError as error:
        raise CannotWrite(path, error.strerror or error) from error
    finally:
        for _, target in pending:
            with contextlib.suppress(OSError):  # never written, or already renamed
                os.remove(target + ".partial")


def write_json(path, document):
    """Writes a JSON document with write_files. NaN and Infinity are refused (they are not JSON):
    callers check their numbers first."""
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    write_files([(path, lambda out: out.write(text.encode("utf-8")))])
