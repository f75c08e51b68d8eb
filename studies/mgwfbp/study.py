"""The MG-WFBP paper's trace-based simulation (Shi, Chu, Li; INFOCOM'19, TPDS'21), rerun: 4 to 2048
GPUs under the authors' published allreduce cost model (paper_cost_model.json), GoogLeNet imported
from their B-Caffe logs (when ../shared/reference is present) and ResNet-50 (our V100 estimate and
our H100 capture); WFBP, SyncEASGD, MG-WFBP and the optimal grouping side by side; how often and
by how much the optimal grouping beats MG-WFBP; and the smallest case where it does, derived by
hand (counter_example.json). Usage: study.py SGDSIM OUT (tools/study.sh mgwfbp runs it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from study_common import REFERENCE, ROOT, Study, plt, style  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# The authors' constants (HKBU-HPML/MG-WFBP, listed in ../shared/reference/README.md).
ALPHA_US = 45.25
BETA_NS = 1.2 / (9 * 2**30 / 8) * 1e9  # 1.2 / (9 GiB/8 per s), ns per byte
GAMMA_NS = 2.5
POLICIES = [("none", "WFBP"), ("all", "SyncEASGD"), ("mgwfbp", "MG-WFBP"), ("optimal", "optimal")]
GAP = 0.001  # a gap under 0.1% of the iteration is counted as a tie


def check_cost_model(study, scenario):
    """The scenario's fits must be the paper's formula at every GPU count it lists."""
    network = scenario["network"]
    if abs(network["reduction_ns_per_byte"] - GAMMA_NS) > 1e-12:
        study.fail("paper_cost_model.json: reduction_ns_per_byte is not the paper's gamma")
    for fit in network["measured_allreduce"]:
        n = fit["gpus"]
        if (abs(fit["alpha_us"] - 2 * n * ALPHA_US) > 1e-6
                or abs(fit["beta_ns_per_byte"] - 2 * (n - 1) / n * BETA_NS) > 1e-8):
            study.fail(f"paper_cost_model.json: the fit for {n} GPUs is not 2n alpha + "
                       "2(n-1)/n beta M")


def traces(study):
    """(label, absolute trace path) of the models studied; GoogLeNet when the reference is here."""
    found = [("ResNet-50 (V100 estimate)", os.path.join(ROOT, "traces/resnet50_b32_v100_estimated.json")),
             ("ResNet-50 (H100 capture)", os.path.join(ROOT, "traces/resnet50_b32_h100_fp32.json"))]
    log = os.path.join(REFERENCE, "bcaffe_googlenet_logs", "tmp8ocomm.log")
    if os.path.exists(log):
        googlenet = study.path("googlenet_bcaffe_k80.json")
        # Batch 64 per K80, as in the authors' scripts (../shared/reference/README.md).
        study.sgdsim_run("trace", "import", "--from", "bcaffe", log, "-o", googlenet,
                         "--batch", "64", "--model", "googlenet", "--device", "Tesla K80")
        found.insert(0, ("GoogLeNet (B-Caffe K80 log)", googlenet))
    else:
        study.say("GoogLeNet skipped: ../shared/reference (the authors' B-Caffe logs) is absent")
    return found


def sweep(study, scenario, label, trace):
    """One model's sweep over 4..2048 GPUs: {gpus: {policy: row}}, each row with the trace's
    batch_size added (the figures' titles state it)."""
    name = os.path.splitext(os.path.basename(trace))[0]
    path = study.write_scenario(f"scenario_{name}.json", scenario, trace=trace,
                                description=f"{scenario['description']} Model: {label}.")
    csv_path = study.path(f"sweep_{name}.csv")
    study.sgdsim_run("sweep", path, "--csv", csv_path)
    with open(trace, encoding="utf-8") as source:
        batch = json.load(source)["batch_size"]
    table = {}
    for row in study.read_csv(csv_path):
        table.setdefault(int(row["gpus"]), {})[row["policy"]] = dict(row, batch_size=batch)
    return table


def counter_example(study):
    """The three-layer case of docs/studies.md, derived by hand there: WFBP 10 ms, SyncEASGD 9 ms,
    MG-WFBP 9 ms, optimal 8 ms per iteration."""
    result = study.run_json("studies/mgwfbp/counter_example.json", "counter_example")
    times = {p["policy"]: p["iteration_us"] / 1000.0 for p in result["policies"]}
    expected = {"none": 10.0, "all": 9.0, "mgwfbp": 9.0, "optimal": 8.0}
    for policy, ms in expected.items():
        if abs(times[policy] - ms) > 1e-9:
            study.fail(f"counter example: {policy} takes {times[policy]} ms, derived {ms} ms")
    groups = {p["policy"]: " | ".join(f"{m['layers']} {m['start_us'] / 1000:g}-{m['end_us'] / 1000:g} ms"
                                      for m in p["message_breakdown"])
              for p in result["policies"]}
    study.say("counter example (3 layers, t(S) = 2 ms + 1 ns/B x S, 1 MB each, backward 1, 1, 2 ms):")
    for policy, name in POLICIES:
        study.say(f"  {name:<10} {times[policy]:5.1f} ms  {groups[policy]}")


def panel_title(label, table):
    """The model as its trace names it, its batch, and where its times come from (the label's
    parenthesis): "resnet50, batch 32 per GPU (V100 estimate)"."""
    row = next(iter(next(iter(table.values())).values()))
    source = label[label.index("("):] if "(" in label else ""
    return f"{style.setup_title(row, ('model', 'batch'))} {source}".strip()


def setup(tables):
    """What every panel shares: the network the cost model stands for and the collective."""
    row = next(iter(next(iter(tables[0][1].values())).values()))
    return (f"under the paper's cost model (alpha {ALPHA_US} us, "
            f"{float(row['bandwidth_gbps']):.3g} Gbps, gamma {GAMMA_NS} ns/B), "
            f"{style.setup_title(row, ('collective',))}, 1 GPU per node")


def policy_panels(tables, metric, scale, ylabel):
    """One panel per model on one y range, one line per policy (equal lines drawn once)."""
    fig, axes = plt.subplots(1, len(tables), figsize=(4.2 * len(tables), 3.9), squeeze=False,
                             sharey=True)
    handles = {}
    for axis, (label, table) in zip(axes[0], tables):
        gpus = sorted(table)
        series = style.deduplicate([(name, [scale * float(table[n][policy][metric]) for n in gpus])
                                    for policy, name in POLICIES])
        for name, values in series:
            handles.setdefault(name, style.plot(axis, gpus, values,
                                                style.look("policy", name.split(" = ")[0]), name))
        style.log2_axis(axis, gpus)
        axis.set_title(panel_title(label, table))
        axis.set_xlabel("GPUs")
    axes[0][0].set_ylabel(ylabel)
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=len(handles),
               bbox_to_anchor=(0.5, 0.0))
    return fig, axes[0]


def figures(study, tables):
    fig_speed, speed_axes = policy_panels(tables, "speedup", 1.0, "speedup over one GPU")
    style.log2_axis(speed_axes[0], [float(row[p]["speedup"]) for _, t in tables
                                    for row in t.values() for p, _ in POLICIES] + [1], "y")
    fig_speed.suptitle(f"Speedup {setup(tables)}", fontsize=9)
    fig_eff, eff_axes = policy_panels(tables, "scaling_efficiency", 100.0,
                                      "scaling efficiency (%)")
    eff_axes[0].set_ylim(0, 105)
    fig_eff.suptitle(f"Scaling efficiency {setup(tables)}", fontsize=9)
    fig_gap, gap_axis = plt.subplots(figsize=(5.8, 3.8))
    looks = style.category_looks([label for label, _ in tables])
    for label, table in tables:
        gpus = sorted(table)
        style.plot(gap_axis, gpus, [100 * gap(table[n]) for n in gpus], looks[label],
                   panel_title(label, table))
    style.log2_axis(gap_axis, [n for _, table in tables for n in table])
    gap_axis.set_xlabel("GPUs")
    gap_axis.set_ylabel("MG-WFBP slower than optimal (%)")
    gap_axis.set_title(f"MG-WFBP against the optimal grouping\n{setup(tables)}", fontsize=8)
    for fig in (fig_speed, fig_eff, fig_gap):
        fig.tight_layout()
    gap_axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3))  # below, once laid out
    study.save(fig_speed, "mgwfbp_speedup.png")
    study.save(fig_eff, "mgwfbp_efficiency.png")
    study.save(fig_gap, "mgwfbp_gap.png")


def gap(row):
    """How much longer MG-WFBP's iteration is than the optimal grouping's, as a fraction."""
    return float(row["mgwfbp"]["iteration_us"]) / float(row["optimal"]["iteration_us"]) - 1.0


def main():
    study = Study("mgwfbp", sys.argv)
    with open(os.path.join(HERE, "paper_cost_model.json"), encoding="utf-8") as source:
        scenario = json.load(source)
    check_cost_model(study, scenario)
    tables = [(label, sweep(study, scenario, label, trace)) for label, trace in traces(study)]
    rows = []
    study.say("speedup over one GPU (paper cost model: alpha 45.25 us, 8.05 Gb/s, gamma 2.5 ns/B)")
    study.say(f"{'model':<28} {'GPUs':>5} {'WFBP':>8} {'SyncEASGD':>10} {'MG-WFBP':>8} "
              f"{'optimal':>8} {'MG/WFBP':>8} {'MG/Sync':>8} {'gap %':>6}")
    gaps = []
    for label, table in tables:
        for n in sorted(table):
            row = table[n]
            iteration = {p: float(row[p]["iteration_us"]) for p, _ in POLICIES}
            speedup = {p: float(row[p]["speedup"]) for p, _ in POLICIES}
            gaps.append((gap(row), label, n))
            rows.append([label, n] + [f"{iteration[p]:.3f}" for p, _ in POLICIES]
                        + [f"{speedup[p]:.4f}" for p, _ in POLICIES]
                        + [row["mgwfbp"]["messages"], row["optimal"]["messages"]])
            if n in (4, 16, 64, 256, 2048):
                study.say(f"{label:<28} {n:>5} " + " ".join(
                    f"{speedup[p]:>{w}.2f}" for (p, _), w in zip(POLICIES, (8, 10, 8, 8)))
                    + f" {iteration['none'] / iteration['mgwfbp']:>7.2f}x"
                    + f" {iteration['all'] / iteration['mgwfbp']:>7.2f}x"
                    + f" {100 * gap(row):>6.1f}")
    study.write_csv("mgwfbp_study.csv",
                    ["model", "gpus"] + [f"iteration_us_{p}" for p, _ in POLICIES]
                    + [f"speedup_{p}" for p, _ in POLICIES]
                    + ["messages_mgwfbp", "messages_optimal"], rows)
    behind = [g for g in gaps if g[0] > GAP]
    worst = max(gaps)
    study.say()
    study.say(f"optimal ahead of MG-WFBP by more than {100 * GAP:g}% at {len(behind)} of "
              f"{len(gaps)} points; largest gap {100 * worst[0]:.1f}% ({worst[1]}, {worst[2]} GPUs)")
    study.say()
    counter_example(study)
    figures(study, tables)
    study.finish()


if __name__ == "__main__":
    main()
