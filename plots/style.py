"""One figure style for every sgdsim figure (plots/, studies/, the validation report): one look
(colour, marker, line style) per merge policy, averaging schedule and compressor, the same in
every figure; log2 GPU axes with decimal labels on every power of two; titles that state the
setup from the result's own fields; identical series drawn once; noisy curves smoothed over a
stated window; the end of every convergence run marked. Assumes matplotlib's Agg backend."""
import math
from collections import namedtuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator  # noqa: E402

DPI = 150

# How a series is drawn. Hollow markers are drawn larger than filled ones, so a filled marker
# sitting on a hollow one (two policies with the same number at a point) leaves both visible.
Look = namedtuple("Look", "colour marker linestyle filled")

# Merge policies, then the sharded strategies (communication.sharding), which share the CSV's
# policy column.
POLICY_ORDER = ["none", "all", "bucket", "fusion", "mgwfbp", "optimal", "bytescheduler",
                "zero1", "zero2", "full_shard", "shard_grad_op", "hybrid_shard"]
POLICY_LABELS = {"none": "WFBP", "all": "SyncEASGD", "bucket": "DDP buckets",
                 "fusion": "Horovod fusion", "mgwfbp": "MG-WFBP", "optimal": "optimal",
                 "bytescheduler": "ByteScheduler", "zero1": "ZeRO-1", "zero2": "ZeRO-2",
                 "full_shard": "FULL_SHARD", "shard_grad_op": "SHARD_GRAD_OP",
                 "hybrid_shard": "HYBRID_SHARD"}
POLICY_LOOKS = {
    "none": Look("#0072B2", "o", "-", True),
    "all": Look("#E69F00", "s", "--", False),
    "bucket": Look("#009E73", "^", "-.", True),
    "fusion": Look("#D55E00", "v", ":", False),
    "mgwfbp": Look("#CC79A7", "D", (0, (5, 2, 1, 2)), True),
    "optimal": Look("#000000", "h", (0, (8, 2)), False),
    "bytescheduler": Look("#8C564B", "X", (0, (3, 1, 1, 1, 1, 1)), True),
    "zero1": Look("#56B4E9", "P", "--", False),
    "zero2": Look("#332288", "*", ":", True),
    "full_shard": Look("#117733", "s", "-", True),
    "shard_grad_op": Look("#AA4499", "d", "-.", False),
    "hybrid_shard": Look("#999933", "p", (0, (5, 1)), True),
}
# Compressors and averaging schedules share the convergence figures, so no two of these looks
# are alike. SGD without compression and every_iteration are the same run: the same look.
COMPRESSOR_LOOKS = {
    "none": Look("#000000", "o", "-", True),
    "fp16": Look("#0072B2", "s", "-", True),
    "topk": Look("#D55E00", "^", "-", True),
    "randk": Look("#009E73", "v", "-", True),
    "natural": Look("#E69F00", "D", "-", True),
    "natural_dithering": Look("#CC79A7", "P", "-", True),
    "standard_dithering": Look("#56B4E9", "X", "-", True),
    "topk_natural_dithering": Look("#8C564B", "h", "-", True),
    "sign": Look("#332288", "*", "-", True),
    "ratio": Look("#999933", "p", "-", True),
}
SCHEDULE_LOOKS = {
    "every_iteration": COMPRESSOR_LOOKS["none"],
    "constant": Look("#117733", "s", "--", False),
    "adaptive linear": Look("#AA4499", "^", "-.", False),
    "adaptive geometric": Look("#44AA99", "v", ":", False),
    "adaptive uniform": Look("#66CCEE", "<", "--", False),
    "adaptive breakpoints": Look("#882255", "d", "-.", False),
    "variance rule": Look("#B8860B", "H", (0, (5, 2, 1, 2)), False),
}
OTHER_LOOKS = [Look("#7F7F7F", m, "-", True) for m in "o^sDv"]  # names no table knows
# Series that are neither policies, schedules nor compressors (models, data sources): looks
# handed out in the order the figure lists them.
CATEGORY_LOOKS = [Look("#0072B2", "o", "-", True), Look("#D55E00", "s", "--", True),
                  Look("#009E73", "^", "-.", True), Look("#CC79A7", "D", ":", True),
                  Look("#E69F00", "v", (0, (5, 2, 1, 2)), True), Look("#000000", "h", "-", False),
                  Look("#56B4E9", "P", "--", True), Look("#882255", "X", "-.", True)]
# Fills that tell apart variants of one family in one figure (topk at three densities).
VARIANT_FILLS = ["full", "none", "left", "bottom", "right", "top"]

# Parts of a time bar (breakdown and Gantt figures).
COMPUTE, OVERLAPPED, EXPOSED, AVERAGING = "#4C72B0", "#8FB0D9", "#DD8452", "#C44E52"
IDEAL = {"color": "0.55", "linestyle": "--", "linewidth": 0.9}  # ideal scaling, targets

# Noisy per-iteration curves (parameter variance, training loss) are drawn faint and under a
# centred moving average of this many iterations (shrinking at the ends of the run).
SMOOTHING_WINDOW = 21


def apply():
    """The rcParams of every figure: sizes readable in a two-column paper at full width."""
    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 7.5,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "axes.grid": True, "grid.alpha": 0.3,
        "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 1.3,
        "legend.frameon": False, "figure.dpi": DPI, "savefig.dpi": DPI})


# Looks.

def family(kind, name):
    """The table key of a name: a policy key or label; a compressor label ("topk(density=0.01)",
    "SGD + sign (EF)", "qsgd"); a schedule label ("adaptive(budget=200,linear,warmup=40)")."""
    if kind == "policy":
        by_label = {label: key for key, label in POLICY_LABELS.items()}
        return by_label.get(name, name)
    if kind == "compressor":
        bare = name.removeprefix("SGD + ").removesuffix(" (EF)")
        bare = "none" if bare == "SGD" else bare.partition("(")[0].strip()
        return "standard_dithering" if bare == "qsgd" else bare
    if name.startswith("adaptive"):
        for rule in ("linear", "geometric", "breakpoints"):
            if rule in name:
                return f"adaptive {rule}"
        return "adaptive uniform"
    if name.startswith("variance rule"):
        return "variance rule"
    return name.partition("(")[0]


def kind_of(kind, name):
    """A convergence configuration ("configuration") is a compressor's when its label names SGD
    ("SGD", "SGD + fp16"), otherwise an averaging schedule's."""
    if kind != "configuration":
        return kind
    return "compressor" if name.startswith("SGD") else "schedule"


def look(kind, name):
    """The fixed look of a name of a kind: "policy", "compressor", "schedule" or
    "configuration"."""
    name = name.split(" = ")[0]  # a deduplicated series looks like its first member
    kind = kind_of(kind, name)
    table = {"policy": POLICY_LOOKS, "compressor": COMPRESSOR_LOOKS,
             "schedule": SCHEDULE_LOOKS}[kind]
    key = family(kind, name)
    return table.get(key, OTHER_LOOKS[sum(map(ord, key)) % len(OTHER_LOOKS)])


def looks(kind, names):
    """{name: look} for the series of one figure: each its family's look; a second or later
    variant of one family (topk at another density, in the order given) gets its own marker
    fill. A compressor with and without error feedback ("... (EF)") is one variant: the caller
    tells the two apart by line style."""
    variants, out = {}, {}
    for name in names:
        base = look(kind, name)
        members = variants.setdefault(base, [])
        variant = name.removesuffix(" (EF)")
        if variant not in members:
            members.append(variant)
        index = members.index(variant)
        fills = [f for f in VARIANT_FILLS if f != fill_of(base)]
        out[name] = base if index == 0 else base._replace(filled=fills[(index - 1) % len(fills)])
    return out


def category_looks(names):
    """{name: look} for series of no family (models, data sources), in the order given."""
    return {name: CATEGORY_LOOKS[i % len(CATEGORY_LOOKS)] for i, name in enumerate(names)}


def fill_of(look_):
    """matplotlib's fillstyle of a look: filled True is "full", False "none"."""
    return {True: "full", False: "none"}.get(look_.filled, look_.filled)


def marker_style(look_):
    fill = fill_of(look_)
    hollow = fill == "none"
    size = (6.5 if hollow else 4.5) * (1.5 if look_.marker == "*" else 1.0)  # a star is thin
    return {"marker": look_.marker, "markersize": size, "fillstyle": fill,
            "markeredgewidth": 1.1 if hollow else 0.6, "markerfacecoloralt": "white",
            "markeredgecolor": look_.colour if hollow else "white" if fill == "full"
            else look_.colour}


def plot(ax, x, y, look_, label=None, markevery=None, **line):
    """A series: its line, then its markers above every line (zorder 3), so curves that coincide
    stay visible. Returns the legend entry showing both (an empty line in the axes, so that
    ax.legend() finds it too)."""
    ax.plot(x, y, color=look_.colour, linestyle=look_.linestyle, zorder=2, **line)
    if look_.marker:
        ax.plot(x, y, color=look_.colour, linestyle="none", markevery=markevery,
                zorder=3 if look_.filled is False else 3.5, **marker_style(look_))
    handle = Line2D([], [], color=look_.colour, linestyle=look_.linestyle,
                    **(marker_style(look_) if look_.marker else {}), **line)
    if label is not None:
        handle.set_label(label)
        ax.add_line(handle)
    return handle


def sparse_markers(count, wanted=12):
    """markevery for a curve of `count` points: about `wanted` markers along it."""
    return max(1, math.ceil(count / wanted))


# Axes.

def powers_of_two(low, high):
    """Every power of two from the one at or below `low` to the one at or above `high`."""
    first, last = math.floor(math.log2(low)), math.ceil(math.log2(high))
    return [2.0 ** k for k in range(first, last + 1)]


def decimal(value, _position=None):
    """A tick label: 1, 2, 4, ..., 2048 (never 2^k), 0.5, 0.25 below one."""
    return str(int(value)) if value >= 1 else f"{value:g}"


def log2_axis(ax, values, axis="x"):
    """A log2 axis over `values` (those above 0) with a decimal label on every power of two they
    span."""
    values = [v for v in values if v > 0] or [1]
    ticks = powers_of_two(min(values), max(values))
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    target.set_major_locator(FixedLocator(ticks))
    target.set_major_formatter(FuncFormatter(decimal))
    target.set_minor_locator(NullLocator())
    if axis == "x" and len(ticks) > 8:  # 1..2048 is 12 labels: upright they touch
        ax.tick_params(axis="x", labelrotation=45)
    return ticks


def log10_axis(ax, values, axis="y"):
    """A log10 axis over `values` labelled in plain numbers (never 10^k): 1, 2, 5, 10, 20, 50,
    ... or, where the values span less than 1.5 decades, 1, 1.5, 2, 3, 5, 7, 10, ..."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    values = [v for v in values if v > 0]
    wide = not values or math.log10(max(values) / min(values)) > 1.5
    subs = (1.0, 2.0, 5.0) if wide else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(
        lambda value, _: f"{value:,.0f}" if value >= 1000 else f"{value:g}"))
    target.set_minor_locator(NullLocator())


# Titles.

def setup_title(fields, parts=("model", "batch", "gpus", "network", "collective")):
    """"resnet50, batch 32 per GPU, 64 GPUs, 100 Gbps, ring allreduce" from a result's (or a CSV
    row's) fields. The network is bandwidth_gbps, the value the user set, never the transport's
    goodput_gbps; a part whose field is absent is left out."""
    text = {
        "model": lambda: str(fields["model"]),
        "batch": lambda: f"batch {int(float(fields['batch_size']))} per GPU",
        "gpus": lambda: f"{int(float(fields['gpus']))} GPUs",
        "network": lambda: f"{float(fields['bandwidth_gbps']):g} Gbps",
        "collective": lambda: str(fields["collective"]).replace("_", " "),
    }
    needed = {"model": "model", "batch": "batch_size", "gpus": "gpus",
              "network": "bandwidth_gbps", "collective": "collective"}
    return ", ".join(text[part]() for part in parts
                     if fields.get(needed[part]) not in (None, ""))


# Series.

def deduplicate(series):
    """[(label, data)] with series of equal data drawn once under the labels joined by " = "
    ("SGD = every_iteration"), in first-seen order; data is any value compared with ==."""
    merged = []
    for label, data in series:
        for i, (kept, kept_data) in enumerate(merged):
            if kept_data == data:
                merged[i] = (f"{kept} = {label}", kept_data)
                break
        else:
            merged.append((label, data))
    return merged


def moving_average(values, window=SMOOTHING_WINDOW):
    """Centred moving average: point i is the mean of the points within window // 2 of it (fewer
    at the ends of the run). NaN points are skipped."""
    half = window // 2
    out = []
    for i in range(len(values)):
        near = [v for v in values[max(0, i - half): i + half + 1] if not math.isnan(v)]
        out.append(sum(near) / len(near) if near else math.nan)
    return out


def smoothed(ax, x, y, look_, label=None, window=SMOOTHING_WINDOW):
    """A noisy curve: raw values faint, the moving average over `window` points on top."""
    ax.plot(x, y, color=look_.colour, linewidth=0.6, alpha=0.25, zorder=1)
    return plot(ax, x, moving_average(y, window), look_, label, markevery=sparse_markers(len(x)))


# The ends of convergence runs.

STAR = dict(marker="*", markersize=11, markeredgecolor="black", markeredgewidth=0.5)
OUTCOMES = {
    "stopped": (STAR, "reached the target (the run stops there)"),
    "target": (STAR, "first evaluation at the target"),
    "not reached": (dict(marker="X", markersize=8, markeredgecolor="black",
                         markeredgewidth=0.5), "run ended, target not reached"),
    "limit": (dict(marker="|", markersize=10, markeredgewidth=1.6),
              "run ended at its iteration limit"),
}


class Outcomes:
    """Marks where each convergence run met its target and where it ended, and the legend notes
    for the marks used: a star at the first evaluation at the target (where a run that stops at
    the target ends), a cross at the end of a run that never reached it, a bar at the end of a
    run that trained on past the target (to its iteration limit)."""

    def __init__(self):
        self.used = []

    def mark(self, ax, look_, end, target=None):
        """end: (x, y) of the curve's last point; target: (x, y) of its first point at the
        target, or None when the run never reached it."""
        if target is None:
            self.draw(ax, look_, end, "not reached")
        elif end == target:
            self.draw(ax, look_, end, "stopped")
        else:
            self.draw(ax, look_, target, "target")
            self.draw(ax, look_, end, "limit")

    def draw(self, ax, look_, point, kind):
        ax.plot([point[0]], [point[1]], color=look_.colour, linestyle="none", zorder=4,
                clip_on=False, **OUTCOMES[kind][0])  # visible on the axes' edge too
        if kind not in self.used:
            self.used.append(kind)

    def handles(self):
        return [Line2D([], [], color="0.4", linestyle="none", label=OUTCOMES[kind][1],
                       **OUTCOMES[kind][0]) for kind in self.used]
