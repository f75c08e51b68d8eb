#!/usr/bin/env python3
"""Commodity-cluster validation: predict published training throughput of PCIe GPU servers and
cloud VMs joined by 10-100 Gb/s Ethernet, over TCP and RoCE, under Horovod, BytePS and
TensorFlow, and of one 8-GPU GeForce server, from each cluster's description, and compare with
the measurement and with scaling by the GPU count.

The rows are in tests/validation/data/commodity_clusters.csv, each from a public source
(SOURCES below, and tests/validation/data/README.md): the Horovod README of September 2017,
horovod/horovod issue #416, BytePS's two published benchmarks, TensorFlow's K80 benchmarks
on AWS with parameter servers on the workers, and Lambda's TensorFlow logs of 8 RTX 2080 Ti in
one PCIe server. Calibration inputs, and
nothing else (no parameter is fitted to a predicted row):
- the model's layers and gradient sizes from its definition (tools/estimate/model_trace.py);
- compute time from the same source's single-GPU figure, or its one-machine figure for sources
  that publish no single-GPU figure, the estimated per-layer times scaled to it;
- the hardware the source describes, as sgdsim's node presets, link rates and transports with
  their documented defaults (scenarios/README.md, "Transports" and "Node presets");
- NCCL as its version of the time ran: before 2.5 it doubled its rings only across nodes with
  NVLink (NVIDIA/nccl 2.4.8, src/misc/rings.cc: "Duplicate the rings in case of
  multinode+NVLink"), so on the PCIe servers here each transfer crossed the network over one
  connection (the CSV's `connections`; blank: sgdsim's default, two channels per NIC);
- each framework as its version of the time ran: Horovod's 64 MiB fusion buffer and 5 ms cycle
  (both defaults until 0.21; horovod/horovod d54e3a88 horovod/tensorflow/mpi_ops.cc), BytePS's
  4,096,000-byte partitions (byteps f3b49b97 byteps/common/global.cc) with one summation server
  per worker machine (the sources do not say; BytePS's docs/best-practice.md asks for servers
  whose bandwidth matches the workers'); TensorFlow's distributed_replicated as BytePS with its
  servers on the workers, as many as the source states.

Usage: commodity.py SGDSIM ROOT [--markdown FILE] [--plot FIGURE] [--mechanisms LIST]
                    [--max-mape P]
Exit 1 when a bound given is not met, 2 on bad input.
"""
import argparse
import csv
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import end_to_end  # noqa: E402  (traces, the calibration loop, the error measures)
from end_to_end import mean, percent_error, predict  # noqa: E402

DATA = os.path.join(HERE, "data", "commodity_clusters.csv")

# Where each row comes from, and the hardware as its source states it.
SOURCES = {
    "horovod_readme_2017": "Horovod README at d54e3a88 (Sep 2017): 4 servers of 4 Pascal GPUs, "
                           "25 Gb/s RoCE-capable Ethernet (TCP and RoCE); 16 servers of 4, plain "
                           "40 Gb/s Ethernet; tf_cnn_benchmarks, batch 64, fp32",
    "horovod_issue_416": "horovod/horovod #416 (Aug 2018): 2 servers of 8 V100 PCIe, 4 per PCIe "
                         "switch, one switch per CPU, 40 Gb/s RoCE with GPUDirect; ResNet-101, "
                         "batch 64, fp32",
    "byteps_pcie_roce": "BytePS docs/performance.md and images at f3b49b97 (Jun 2019): 8 V100 "
                        "per machine, 4 per PCIe switch, 2 switches, 100 Gb/s RoCEv2; batch 64, "
                        "fp32; bar heights read off the chart",
    "byteps_readme_pcie": "BytePS README and images at f22a0465 (21 Jun 2019): 8 V100 per PCIe "
                          "machine (the layout of BytePS's PCIe benchmark assumed), two machines "
                          "over 20 Gb/s TCP and over 100 Gb/s RDMA; batch 32, fp32; bar heights "
                          "read off the charts",
    "byteps_nvlink_tcp": "BytePS README and images at f3b49b97 (Jun 2019): cloud VMs of 8 V100 "
                         "with NVLink, 20 Gb/s TCP; batch 64, fp32; bar heights read off the "
                         "chart",
    "tf_k80_aws": "TensorFlow's benchmarks page (tensorflow/docs site/en/r1/guide/performance/"
                  "benchmarks.md, May 2017): AWS p2.8xlarge instances of 8 K80, 10 Gb/s, "
                  "distributed_replicated with the parameter servers on the workers (as many as "
                  "instances, except Inception-v3 6 and ResNet-152 4 on 8 instances); "
                  "synthetic data, Inception-v3 and ResNet-50 at batch 64 and 32 (ResNet-50 "
                  "at 32: 4 servers on 8 instances), ResNet-152 at 32",
    "lambda_2080ti_tf": "Lambda's TensorFlow benchmark logs (LambdaColdStorage/lambda-tensorflow-"
                        "benchmark at e086e0e7, Gold_6230-GeForce_RTX_2080_Ti_trt_TF1_15, Jul "
                        "2020): one server of 8 GeForce RTX 2080 Ti, two per PCIe 3.0 switch, "
                        "two switches per Xeon Gold 6230, no P2P; tf_cnn_benchmarks replicated "
                        "with NCCL, TF 1.15.3, synthetic data, fp32, 1 to 8 GPUs",
}

# Each source's hardware in a few words, for the figure's legend.
HARDWARE = {
    "horovod_readme_2017": "4 Pascal per server, 25/40 GbE",
    "horovod_issue_416": "8 V100 PCIe per server, 40 Gb RoCE",
    "byteps_pcie_roce": "8 V100 PCIe per server, 100 Gb RoCE",
    "byteps_readme_pcie": "8 V100 PCIe per server, 20 Gb TCP / 100 Gb RDMA",
    "byteps_nvlink_tcp": "8 V100 NVLink cloud VMs, 20 Gb TCP",
    "tf_k80_aws": "8 K80 per p2.8xlarge, 10 Gb, TF parameter servers",
    "lambda_2080ti_tf": "8 RTX 2080 Ti in one PCIe server, no P2P",
}

# Horovod's fusion and cycle at the time of every source here (64 MiB and 5 ms until 0.21).
HOROVOD = {"policy": "fusion", "fusion_threshold_mib": 64, "fusion_cycle_ms": 5}


def rows():
    cases = []
    with open(DATA, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            cases.append({
                "source": r["source"], "model": r["model"], "framework": r["framework"],
                "transport": r["transport"],
                "setting": (f"{r['framework']} over {r['transport']} {r['network_gbps']} Gb/s, "
                            if r["network_gbps"] else f"{r['framework']} in one machine, ") +
                           f"batch {r['batch_per_gpu']}",
                "batch": int(r["batch_per_gpu"]), "sequence": 0, "gpus": int(r["gpus"]),
                "per_node": int(r["gpus_per_node"]), "node": r["node"],
                "network_gbps": float(r["network_gbps"]) if r["network_gbps"] else None,
                "measured": float(r["images_per_s"]),
                "connections": int(r["connections"]) if r["connections"] else None,
                "unit": "images/s", "calibration_gpus": int(r["calibration_gpus"]),
                "calibration_throughput": float(r["calibration_images_per_s"]),
                "accumulation": 1, "wire": "fp32", "reading": r["reading"],
                "servers": int(r["servers"]) if r["servers"] else None})
    return cases


# BytePS's BYTEPS_PCIE_SWITCH_SIZE default when its benchmarks were published (the commits of
# tests/validation/data/README.md): NCCL in groups of 4 GPUs on 8-GPU machines, the CPU adding
# the two groups' sums.
BYTEPS_2019_PCIE_SWITCH_SIZE = 4


def build(case, trace_file, gpus, mechanisms):
    """The scenario a user would write from the source's description."""
    per_node = min(case["per_node"], gpus)
    nodes = gpus // per_node
    # A run inside one machine (a one-machine source, or a calibration run) names no network.
    network = {"bandwidth_gbps": case["network_gbps"]}
    if case["transport"] and ("transport" in mechanisms or "goodput" in mechanisms):
        network["transport"] = case["transport"]
    if "goodput" in mechanisms:  # the transports as sgdsim had them before caps and overheads
        network.update(message_overhead_us=0, flow_cap_gbps=1e5)
    elif "transport" in mechanisms and case["connections"]:
        network["connections"] = case["connections"]
    collective = {"algorithm": "ring_allreduce"}
    merge = dict(HOROVOD)
    if case["framework"] == "BytePS":
        merge = {"policy": "none"}  # BytePS partitions every tensor as it is ready
        # A server per machine; on one machine BytePS runs none (sgdsim prices it so).
        # BYTEPS_PCIE_SWITCH_SIZE as the sources' BytePS ran unless told: 4 (byteps/common/
        # nccl_manager.cc at f22a0465 and f3b49b97, June 2019; 8 from 6db0ccd7, 28 Jun 2019).
        collective = {"algorithm": "byteps", "servers": nodes,
                      "pcie_switch_size": BYTEPS_2019_PCIE_SWITCH_SIZE}
    elif case["framework"] == "TF replicated NCCL":
        # tf_cnn_benchmarks' --variable_update replicated --all_reduce_spec nccl: one process
        # all-reduces each gradient tensor with NCCL as the graph makes it ready, unpacked
        # (--gradient_repacking 0, its default).
        merge = {"policy": "none"}
    elif case["framework"] == "TF distributed_replicated":
        # tf_cnn_benchmarks' distributed_replicated: each worker sums its GPUs' gradients,
        # sends the sum to the parameter servers on the workers' instances, which add the
        # workers' and hand the result back; every tensor as it is ready. The row's server count
        # at its own size; as many as instances otherwise (the source's rule).
        merge = {"policy": "none"}
        servers = case["servers"] if gpus == case["gpus"] and case["servers"] else nodes
        if "local_sum" in mechanisms:
            # TensorFlow runs its parameter servers on one instance too: forced, as
            # BYTEPS_FORCE_DISTRIBUTED would.
            collective = {"algorithm": "byteps", "servers": servers, "placement": "colocated",
                          "force_distributed": 1}
        else:  # as sgdsim could say it before: every GPU pushes its own gradient
            collective = {"algorithm": "parameter_server", "servers": servers,
                          "placement": "colocated"}
    if "no_overlap" in mechanisms:  # a bound, not a model: communication after backward
        merge = {"policy": "all"}
    cluster = {"gpus": gpus, "gpus_per_node": per_node}
    if "node" in mechanisms:  # a preset, or a node file of tests/validation/data
        cluster["node"] = (os.path.join(HERE, "data", case["node"])
                           if case["node"].endswith(".json") else case["node"])
    compute = {"layer_times": "scaled_to_measured"}
    slowdown = [m for m in mechanisms if m.startswith("slowdown=")]
    if slowdown:  # compute.overlap_slowdown: backward slowed beside the collectives
        compute["overlap_slowdown"] = float(slowdown[0].split("=", 1)[1])
    scenario = {"schema_version": 1, "name": "commodity", "trace": trace_file, "cluster": cluster,
                "communication": {"collective": collective, "merge": merge},
                "compute": compute, "iterations": 2}
    if nodes > 1:
        scenario["network"] = network
    return scenario


def rank_preserved(cases):
    """Per (source, model, GPU count, calibration figure), with several settings: does the
    predicted order of the settings by throughput match the measured one? Settings calibrated
    on different figures (BytePS and Horovod on their own one-machine runs) are not compared:
    their order would partly be the inputs'."""
    groups = {}
    for c in cases:
        key = (c["source"], c["model"], c["gpus"], c["calibration_throughput"])
        groups.setdefault(key, []).append(c)
    out = []
    for key, group in sorted(groups.items()):
        if len(group) > 1:
            measured = [c["setting"] for c in sorted(group, key=lambda c: -c["measured"])]
            predicted = [c["setting"] for c in sorted(group, key=lambda c: -c["predicted"])]
            out.append((key, measured == predicted))
    return out


def overlap_range(case, result):
    """The range `sgdsim run` reported around its default slowdown of compute beside
    communication (compute.overlap_slowdown from 1, full speed, to 1.40), as images per second
    (low, high); None where slowing compute moves nothing."""
    span = result.get("overlap_range")
    if span is None:
        return None
    samples = case["batch"] * case["gpus"]
    return (samples / (span["fastest_iteration_high_us"] * 1e-6),
            samples / (span["fastest_iteration_low_us"] * 1e-6))


def transport_range(case, result):
    """The range `sgdsim run` reported over one connection's plausible rates in the predicting
    run's `result`, as images per second (low, high); None where the transport's cap does not
    decide the network's rate."""
    span = result["transport_range"]
    if span is None:
        return None
    samples = case["batch"] * case["gpus"]
    return (samples / (span["fastest_iteration_low_us"] * 1e-6),
            samples / (span["fastest_iteration_high_us"] * 1e-6))


def every_fact_range(case, result):
    """The range `sgdsim run` reported over every unstated fact together (combined_range: the
    node's reads of host memory, one connection's rate, compute's slowdown, the node preset, at
    their faster ends together and at their slower ends), or over the one unstated fact that
    moves the iteration, as images per second (low, high); None where none does."""
    for key in ("combined_range", "host_read_range", "transport_range", "overlap_range",
                "node_range"):
        span = result.get(key)
        if span is not None:
            samples = case["batch"] * case["gpus"]
            ends = (span["fastest_iteration_low_us"], span["fastest_iteration_high_us"])
            return samples / (max(ends) * 1e-6), samples / (min(ends) * 1e-6)
    return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgdsim")
    parser.add_argument("root")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--plot", help="also draw measured against predicted scaling "
                        "efficiency to this figure (.png, .svg or .pdf)")
    parser.add_argument("--mechanisms", default="node,transport,local_sum",
                        help="comma-separated, default node,transport,local_sum: node (the node "
                        "preset the source describes; else 256 Gbit/s inside a node), transport "
                        "(goodput, cap per connection, overhead per message) or goodput (the "
                        "transport's goodput alone), and local_sum (parameter servers on the "
                        "workers fed one sum per machine, byteps with placement colocated; else "
                        "every GPU pushes to them, parameter_server); none: none of them, the "
                        "line rate; no_overlap added: every framework sends its gradients in one "
                        "message after backward (policy all), the bound of no overlap; "
                        "slowdown=S added: compute.overlap_slowdown S")
    parser.add_argument("--max-mape", type=float, help="fail when the MAPE (%%) is above this")
    args = parser.parse_args(argv)
    mechanisms = {m for m in args.mechanisms.split(",") if m and m != "none"}
    common = None
    if args.plot:  # refused before anything runs (a bad name is exit 2, one line)
        sys.path.insert(0, end_to_end.PLOTS)
        import common  # noqa: E402  (matplotlib only when a figure is asked for)
        common.check_outputs([args.plot], [])
    cases = rows()
    cache = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            final = {}
            case["predicted"] = predict(args.sgdsim, case, folder, cache, mechanisms, build,
                                        final)
            case["range"] = transport_range(case, final["result"])
            case["overlap"] = overlap_range(case, final["result"])
            case["every_fact"] = every_fact_range(case, final["result"])
    lines = ["| source | model | setting | GPUs | calibrated on | measured | predicted | error | "
             "linear |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    errors, linear_errors, faster = [], [], 0
    for c in cases:
        error = percent_error(c["predicted"], c["measured"])
        linear = percent_error(end_to_end.linear_scaling(c), c["measured"])
        errors.append(abs(error))
        linear_errors.append(abs(linear))
        faster += error > 0
        lines.append(f"| {c['source']} | {c['model']} | {c['setting']} | {c['gpus']} | "
                     f"{c['calibration_gpus']} GPU{'s' if c['calibration_gpus'] > 1 else ''} | "
                     f"{c['measured']:.1f} | {c['predicted']:.1f} | {error:+.1f}% | "
                     f"{linear:+.1f}% |")
    ranks = rank_preserved(cases)
    mape, worst = mean(errors), max(errors)
    ranged = [c for c in cases if c["range"]]
    inside = sum(low <= c["measured"] <= high for c in ranged for low, high in [c["range"]])
    slowed = [c for c in cases if c["overlap"]]
    slowed_inside = sum(low <= c["measured"] <= high for c in slowed
                        for low, high in [c["overlap"]])
    uncertain = [c for c in cases if c["every_fact"]]
    uncertain_inside = sum(low <= c["measured"] <= high for c in uncertain
                           for low, high in [c["every_fact"]])
    summary = [f"rows predicted: {len(cases)}; MAPE {mape:.1f}%; max |error| {worst:.1f}%; "
               f"within 10%: {sum(e <= 10 for e in errors)}; predicted faster than measured: "
               f"{faster}; rankings preserved: {sum(ok for _, ok in ranks)} of {len(ranks)}",
               f"linear scaling of the calibration figure: MAPE {mean(linear_errors):.1f}%; max "
               f"|error| {max(linear_errors):.1f}%",
               f"rows where one connection's plausible rates move the network's rate: "
               f"{len(ranged)}; measured inside the range sgdsim reports for them: {inside}",
               f"rows where compute slowed beside communication (1 to 1.40) moves the "
               f"iteration: {len(slowed)}; measured inside that range: {slowed_inside}",
               f"rows where an unstated fact moves the iteration: {len(uncertain)}; measured "
               f"inside the range of every unstated fact together: {uncertain_inside}"]
    for source in sorted({c["source"] for c in cases}):
        mine = [c for c in cases if c["source"] == source]
        source_mape = mean(abs(percent_error(c["predicted"], c["measured"])) for c in mine)
        ranged_here = [c for c in mine if c["every_fact"]]
        inside_here = sum(low <= c["measured"] <= high for c in ranged_here
                          for low, high in [c["every_fact"]])
        summary.append(f"- {source} ({len(mine)} rows, MAPE {source_mape:.1f}%; inside the "
                       f"range of its unstated facts: {inside_here} of {len(ranged_here)}): "
                       f"{SOURCES[source]}")
    text = "\n".join(lines + [""] + summary)
    print(text)
    if args.plot:
        end_to_end.draw(common, cases, args.plot, lambda c: HARDWARE[c["source"]],
                        "Commodity clusters: {rows} rows, PCIe servers and cloud VMs")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    if args.max_mape is not None and mape > args.max_mape:
        print(f"FAIL: MAPE {mape:.2f}% above {args.max_mape}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
    import tool_io  # noqa: E402
    sys.exit(tool_io.run(main, sys.argv[1:]))
