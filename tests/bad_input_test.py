#!/usr/bin/env python3
"""The bad-input catalogue: every subcommand and file kind fed input it must refuse. Each case
asserts the exit code (2 bad input, 3 a simulation that cannot finish; never 70 or a signal), a
phrase of the message, and that no file in the working folder was created, changed or removed.
Usage: bad_input_test.py SGDSIM_BINARY REPO_ROOT"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
from harness import Checks, run_watched, write_files  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("bad input catalogue")

TRACE = "t.json"
BASE = {"trace": TRACE, "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 10}}
OSU_HEAD = "# OSU MPI Allreduce Latency Test\n# Size  Avg Latency(us)\n"
PIPEDREAM_NODE = ("node1 -- Conv2d -- forward_compute_time=1.0, backward_compute_time=2.0, "
                  "activation_size=10.0, parameter_size=864.0\n")


def with_(**edits):
    """BASE with nested edits given as dotted keys: with_(**{"network.latency_us": 1e13})."""
    scenario = json.loads(json.dumps(BASE))
    for dotted, value in edits.items():
        node = scenario
        *parents, last = dotted.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return json.dumps(scenario)


# (what, files to write {name: text}, arguments, expected exit, phrase in the message)
CASES = [
    # Outputs that would destroy an input, or cannot be written.
    ("run --json over the scenario", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "s.json"], 2, "is also an input of this command"),
    ("run --csv over the trace", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--csv", "t.json"], 2, "is also an input of this command"),
    ("run --timeline over the trace by another spelling", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--timeline", "./t.json"], 2, "is also an input of this command"),
    ("run --json through a link to the scenario", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "link-to-s.json"], 2, "is also an input of this command"),
    ("run --json over the compression profile",
     {"s.json": with_(**{"communication.compression_profile": "p.json"}), "p.json": None},
     ["run", "s.json", "--json", "p.json"], 2, "is also an input of this command"),
    ("sweep --csv over the scenario",
     {"w.json": with_(sweep={"cluster.gpus": [2, 4]})},
     ["sweep", "w.json", "--csv", "w.json"], 2, "is also an input of this command"),
    ("sweep --json over the trace",
     {"w.json": with_(sweep={"cluster.gpus": [2, 4]})},
     ["sweep", "w.json", "--json", "t.json"], 2, "is also an input of this command"),
    ("trace import over its input", {"x.log": None},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "-o", "x.log"], 2,
     "is also an input of this command"),
    ("trace export over its input", {}, ["trace", "export", "t.json", "--to", "chakra", "-o",
                                         "t.json"], 2, "is also an input of this command"),
    ("run --json naming a folder", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "."], 2, "is a folder"),
    ("run --json in a missing folder", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "missing/r.json"], 2, "no folder missing"),
    ("run: one file named for two outputs", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "r.json", "--timeline", "r.json"], 2, "named for two outputs"),
    ("sweep: one file named for two outputs",
     {"w.json": with_(sweep={"cluster.gpus": [2, 4]})},
     ["sweep", "w.json", "--json", "r", "--csv", "./r"], 2, "named for two outputs"),
    # JSON that nlohmann accepts but sgdsim must not.
    ("schema with an argument it does not take", {}, ["schema", "--bogus"], 2,
     "not expected"),
    ("a number beyond a double", {"s.json": with_(**{"network.bandwidth_gbps": 1}).replace(
        '"bandwidth_gbps": 1', '"bandwidth_gbps": 1e400')},
     ["run", "s.json"], 2, "number overflow parsing '1e400'"),
    ("a key given twice", {"s.json": json.dumps(BASE)[:-1] + ', "cluster": {"gpus": 8}}'},
     ["run", "s.json"], 2, "cluster: key given twice"),
    ("a nested duplicate key", {"s.json": with_(network={"bandwidth_gbps": 10}).replace(
        '"bandwidth_gbps": 10', '"bandwidth_gbps": 10, "bandwidth_gbps": 20')},
     ["run", "s.json"], 2, "network.bandwidth_gbps: key given twice"),
    ("a sweep value nested 100,000 deep",
     {"w.json": json.dumps(BASE)[:-1] + ', "sweep": {"cluster.gpus": ' + "[" * 100000
      + "]" * 100000 + "}}"},
     ["sweep", "w.json"], 2, "nested deeper than 64 levels"),
    ("malformed JSON", {"s.json": '{"trace": "t.json",'}, ["run", "s.json"], 2, "malformed JSON"),
    ("an empty scenario file", {"s.json": ""}, ["run", "s.json"], 2, "malformed JSON"),
    ("a binary scenario file", {"s.json": "\x00\x01\x02\xff"}, ["run", "s.json"], 2,
     "malformed JSON"),
    ("a scenario that is a folder", {}, ["run", "."], 2, "."),
    ("a missing scenario", {}, ["run", "nope.json"], 2, "no such file"),
    # Values that cannot be simulated: exit 2 where read, exit 3 when the run cannot finish.
    # A time Time cannot hold is bad input where it is read (STYLE 15): 1e13 us = 1e19 ps.
    ("latency 1e13 us", {"s.json": with_(**{"network.latency_us": 1e13})}, ["run", "s.json"],
     2, "s.json: network.latency_us: expected a time below about 104 days (9e+12 us"),
    ("bandwidth 1e-300 Gbps", {"s.json": with_(**{"network.bandwidth_gbps": 1e-300})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    ("reduction cost 9007199254740993 ns/byte",
     {"s.json": with_(**{"network.reduction_ns_per_byte": 9007199254740993})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    # A straggler's forward of 1 ms x 1e300 is past 2^63 ps: per_rank's scaled times are checked
    # like every other time (the cast was undefined behaviour).
    ("a per_rank straggler slowed 1e300 times",
     {"s.json": with_(**{"fidelity": "per_rank",
                         "compute.stragglers": [{"rank": 1, "slowdown": 1e300}]})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    ("a slow link over many iterations",
     {"s.json": with_(**{"network.bandwidth_gbps": 1e-9, "iterations": 100000})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    ("a bucket cap of 1e13 MiB",
     {"s.json": with_(**{"communication.merge": {"policy": "bucket", "bucket_cap_mib": 1e13}})},
     ["run", "s.json"], 2, "bucket_cap_mib"),
    ("a fusion threshold of 1e13 MiB",
     {"s.json": with_(**{"communication.merge": {"policy": "fusion",
                                                 "fusion_threshold_mib": 1e13}})},
     ["run", "s.json"], 2, "fusion_threshold_mib"),
    ("an averaging period of 4294967300",
     {"s.json": with_(**{"communication.averaging": {
         "run_iterations": 1000, "schedules": [{"schedule": "constant", "period": 4294967300}]}})},
     ["run", "s.json"], 2, "period"),
    ("geometric averaging with growth factor 2 over a long budget",
     {"s.json": with_(**{"communication.averaging": {
         "run_iterations": 10000, "schedules": [{"schedule": "adaptive", "budget": 2500,
                                                 "rule": "geometric", "growth_factor": 2}]}})},
     ["run", "s.json"], 2, "growth_factor"),
    ("an averaging budget the run cannot meet (more rounds than iterations)",
     {"s.json": with_(**{"communication.averaging": {
         "run_iterations": 100, "schedules": [{"schedule": "adaptive", "budget": 101}]}})},
     ["run", "s.json"], 2, "budget: expected an integer from 1 to 100"),
    ("a variance budget the run cannot meet",
     {"s.json": with_(**{"communication.averaging": {
         "run_iterations": 100, "schedules": [{"schedule": "constant", "period": 4}]}},
                      convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "variance_budget": 101})},
     ["run", "s.json"], 2, "convergence.variance_budget: expected an integer from 1 to 100"),
    ("run_iterations beyond the stated limit",
     {"s.json": with_(**{"communication.averaging": {
         "run_iterations": 100000000, "schedules": [{"schedule": "constant", "period": 4}]}})},
     ["run", "s.json"], 2, "run_iterations"),
    ("iterations 0", {"s.json": with_(iterations=0)}, ["run", "s.json"], 2, "iterations"),
    ("GPUs beyond 2^20", {"s.json": with_(**{"cluster.gpus": 2 ** 21})}, ["run", "s.json"], 2,
     "cluster.gpus"),
    # Transports, accumulation, wire precision and gathered tensors (issue 9).
    ("an unknown transport", {"s.json": with_(**{"network.transport": "infiniband"})},
     ["run", "s.json"], 2, "network.transport"),
    ("a goodput fraction above 1", {"s.json": with_(**{"network.transport": "tcp",
                                                      "network.goodput_fraction": 1.5})},
     ["run", "s.json"], 2, "network.goodput_fraction"),
    ("no connections", {"s.json": with_(**{"network.transport": "tcp",
                                           "network.connections": 0})},
     ["run", "s.json"], 2, "network.connections"),
    ("connections that are not whole", {"s.json": with_(**{"network.connections": 1.5})},
     ["run", "s.json"], 2, "network.connections"),
    ("a transport with a measured allreduce",
     {"s.json": with_(network={"transport": "rdma", "measured_allreduce": [
         {"gpus": 4, "alpha_us": 10, "beta_ns_per_byte": 1}]})},
     ["run", "s.json"], 2, "fit across nodes (it already includes what the transport costs)"),
    ("BytePS at flow fidelity in one-byte partitions",
     {"s.json": with_(fidelity="flow",
                      trace=os.path.join(ROOT, "traces", "resnet50_b32_v100_estimated.json"),
                      communication={"collective": {"algorithm": "byteps", "servers": 2,
                                                    "partition_bytes": 1},
                                     "merge": {"policy": "all"}})},
     ["run", "s.json"], 2, "communication.collective.partition_bytes"),
    ("a gathering compressor on BytePS, which cannot gather",
     {"s.json": with_(communication={"collective": {"algorithm": "byteps", "servers": 2},
                                     "compression": {"name": "topk", "density": 0.01}})},
     ["run", "s.json"], 2,
     "s.json: communication.compression: compressor topk(density=0.01) aggregates by gathering"),
    ("BytePS asked to gather sparse rows",
     {"s.json": with_(communication={"collective": {"algorithm": "byteps", "servers": 2},
                                     "allgather_gradients": [{"tensor": "L2.weight",
                                                              "rows_per_sample": 1,
                                                              "row_elements": 5}]})},
     ["run", "s.json"], 2, "the byteps collective cannot gather rows"),
    ("BytePS without servers",
     {"s.json": with_(communication={"collective": {"algorithm": "byteps"}})},
     ["run", "s.json"], 2, "communication.collective.servers"),
    ("ByteScheduler at per_rank fidelity",
     {"s.json": with_(fidelity="per_rank", communication={"merge": {"policy": "bytescheduler"}})},
     ["run", "s.json"], 2, "the bytescheduler policy lets the next forward pass overlap"),
    ("a ByteScheduler partition of no size",
     {"s.json": with_(communication={"merge": {"policy": "bytescheduler",
                                               "bytescheduler_partition": 0}})},
     ["run", "s.json"], 2, "communication.merge.bytescheduler_partition"),
    ("an unknown convergence task",
     {"s.json": with_(convergence={"task": "cifar", "target": {"accuracy": 0.8}})},
     ["run", "s.json"], 2, "convergence.task"),
    ("a target accuracy above 1",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"accuracy": 1.5}})},
     ["run", "s.json"], 2, "convergence.target.accuracy"),
    ("two targets at once",
     {"s.json": with_(convergence={"task": "synthetic_logistic",
                                   "target": {"accuracy": 0.8, "loss": 0.5}})},
     ["run", "s.json"], 2, "convergence.target: expected exactly one of"),
    ("more workers than training examples",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "workers": 1001})},
     ["run", "s.json"], 2, "convergence.workers: expected at most the task's 1000"),
    ("a convergence run shorter than the averaging run",
     {"s.json": with_(communication={"averaging": {"run_iterations": 100, "schedules": [
         {"schedule": "constant", "period": 4}]}},
                      convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "max_iterations": 50})},
     ["run", "s.json"], 2, "convergence.max_iterations"),
    ("an unknown error-feedback mode",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "error_feedback": "yes"})},
     ["run", "s.json"], 2, 'convergence.error_feedback: expected one of "biased", "always", '
     '"never", "both", found "yes"'),
    ("an unknown stopping rule",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "stop": "never"})},
     ["run", "s.json"], 2, "convergence.stop"),
    ("a stopping rule for measured curves",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}, "stop": "max_iterations"}),
      "c.csv": "iteration,accuracy\n1,0.5\n"},
     ["run", "s.json"], 2, "convergence.stop: expected nothing: measured curves are not trained "
     "by the engine"),
    ("zero seeds",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "seeds": 0})},
     ["run", "s.json"], 2, "convergence.seeds: expected an integer from 1 to 1000, found 0"),
    ("momentum of 1 (nothing of the gradient left)",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "momentum": 1})},
     ["run", "s.json"], 2, "convergence.momentum: expected a number in [0, 1)"),
    ("negative weight decay",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "weight_decay": -0.1})},
     ["run", "s.json"], 2, "convergence.weight_decay"),
    ("a step decay whose milestone lies beyond the run (it never decays)",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "max_iterations": 100, "learning_rate_schedule":
                                   {"decay": "step", "milestones": [50, 100]}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.milestones: expected a non-empty "
     "array of increasing iterations in 1..99"),
    ("step milestones out of order",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "learning_rate_schedule":
                                   {"decay": "step", "milestones": [60, 30]}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.milestones"),
    ("a step decay without milestones",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "learning_rate_schedule": {"decay": "step"}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.milestones"),
    ("a step factor that grows the rate",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "learning_rate_schedule":
                                   {"decay": "step", "milestones": [10], "gamma": 2}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.gamma: expected a factor in (0, 1)"),
    ("milestones for a cosine decay",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "learning_rate_schedule":
                                   {"decay": "cosine", "milestones": [10]}})},
     ["run", "s.json"], 2, 'convergence.learning_rate_schedule.milestones: expected nothing '
     'unless decay is "step"'),
    ("a warm-up as long as the run",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "max_iterations": 100,
                                   "learning_rate_schedule": {"warmup": 100}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.warmup: expected fewer iterations "
     "than the run's 100"),
    ("an unknown decay",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"loss": 0.5},
                                   "learning_rate_schedule": {"decay": "exponential"}})},
     ["run", "s.json"], 2, "convergence.learning_rate_schedule.decay"),
    ("more test examples than the test set",
     {"s.json": with_(convergence={"task": "fashion_mnist_softmax", "target": {"accuracy": 0.8},
                                   "test_examples": 10001})},
     ["run", "s.json"], 2, "convergence.test_examples: expected an integer from 1 to 10000"),
    ("seeds for measured curves",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}, "seeds": 3}),
      "c.csv": "iteration,accuracy\n1,0.5\n"},
     ["run", "s.json"], 2, "convergence.seeds: expected nothing: measured curves are not trained"),
    ("a bare ratio to train with",
     {"s.json": with_(communication={"compression": [{"name": "ratio", "ratio": 0.5}]},
                      convergence={"task": "synthetic_logistic", "target": {"loss": 0.5}})},
     ["run", "s.json"], 2, "is a cost model only"),
    ("a measured curve for a configuration the scenario lacks",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"topk": "c.csv"}}), "c.csv": "iteration,accuracy\n1,0.5\n"},
     ["run", "s.json"], 2, 'convergence.curves.topk: expected a compressor or schedule of this '
     'scenario (none), found "topk"'),
    ("a measured curve without the target's column",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}}), "c.csv": "iteration,loss\n1,0.5\n"},
     ["run", "s.json"], 2, "c.csv:1: expected a header with the columns iteration and accuracy"),
    ("a measured curve whose iterations go back",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}}),
      "c.csv": "iteration,accuracy\n10,0.5\n5,0.6\n"},
     ["run", "s.json"], 2, "c.csv:3: expected an iteration greater than 10"),
    ("a measured curve starting before iteration 0",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}}),
      "c.csv": "iteration,accuracy\n-1,0.5\n"},
     ["run", "s.json"], 2, 'c.csv:2: expected an iteration of 0 or more, found "-1"'),
    ("a measured accuracy above 1",
     {"s.json": with_(convergence={"task": "measured", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}}),
      "c.csv": "iteration,accuracy\n10,1.5\n"},
     ["run", "s.json"], 2, "c.csv:2: accuracy of 1.5, expected 0 to 1"),
    ("curves for a task the engine trains",
     {"s.json": with_(convergence={"task": "synthetic_logistic", "target": {"accuracy": 0.8},
                                   "curves": {"none": "c.csv"}})},
     ["run", "s.json"], 2, "convergence.curves: expected no curves unless task is"),
    ("an unknown node preset", {"s.json": with_(**{"cluster.node": "dgx9"})},
     ["run", "s.json"], 2, "cluster.node"),
    ("a measured layout that does not fill its nodes",
     {"s.json": with_(network={"measured_allreduce": [
         {"gpus": 6, "gpus_per_node": 4, "alpha_us": 10, "beta_ns_per_byte": 1}]})},
     ["run", "s.json"], 2, "measured_allreduce[0].gpus_per_node"),
    # The refusal names the key given, whichever of the four transport keys it is.
    ("a message overhead with a measured allreduce",
     {"s.json": with_(network={"message_overhead_us": 3, "measured_allreduce": [
         {"gpus": 4, "alpha_us": 10, "beta_ns_per_byte": 1}]})},
     ["run", "s.json"], 2, "network.message_overhead_us"),
    ("a negative message overhead", {"s.json": with_(**{"network.message_overhead_us": -1})},
     ["run", "s.json"], 2, "network.message_overhead_us"),
    ("a negative framework overhead per iteration",
     {"s.json": with_(**{"compute.framework_overhead_us": -1})},
     ["run", "s.json"], 2, "compute.framework_overhead_us"),
    ("a framework overhead per message past the time range",
     {"s.json": with_(**{"communication.framework_overhead_us": 1e20})},
     ["run", "s.json"], 2, "communication.framework_overhead_us: expected a time below about"),
    ("a trace's framework overheads without a per-message cost",
     {"s.json": with_(trace="o.json"), "o.json": None}, ["run", "s.json"], 2,
     "framework_overheads.message_us"),
    ("zero accumulation steps", {"s.json": with_(**{"compute.accumulation_steps": 0})},
     ["run", "s.json"], 2, "compute.accumulation_steps"),
    ("zero chunks per message",
     {"s.json": with_(**{"communication.collective": {"chunks": 0}})},
     ["run", "s.json"], 2, "communication.collective.chunks"),
    ("chunks past their limit",
     {"s.json": with_(**{"communication.collective": {"algorithm": "halving_doubling",
                                                      "chunks": 5000}})},
     ["run", "s.json"], 2, "communication.collective.chunks"),
    ("a fractional chunk count",
     {"s.json": with_(**{"communication.collective": {"chunks": 2.5}})},
     ["run", "s.json"], 2, "communication.collective.chunks"),
    ("an unknown wire dtype", {"s.json": with_(**{"communication.wire_dtype": "fp8"})},
     ["run", "s.json"], 2, "communication.wire_dtype"),
    ("a gathered tensor the trace lacks",
     {"s.json": with_(**{"communication.allgather_gradients": [
         {"tensor": "embedding.weight", "rows_per_sample": 1, "row_elements": 5}]})},
     ["run", "s.json"], 2, "allgather_gradients[0].tensor"),
    ("a gathered row width that does not divide the tensor",
     {"s.json": with_(**{"communication.allgather_gradients": [
         {"tensor": "L2.weight", "rows_per_sample": 1, "row_elements": 7}]})},
     ["run", "s.json"], 2, "allgather_gradients[0].row_elements"),
    ("flow fidelity beyond its stated limit",
     {"s.json": with_(**{"cluster.gpus": 1 << 20, "fidelity": "flow"})}, ["run", "s.json"], 2,
     "flow fidelity"),
    # 65,536 workers x 64 servers = 2^22, past the 2^21 stated (2^20: 3.6 s and 0.55 GB).
    ("flow parameter server beyond its stated cost",
     {"s.json": with_(**{"cluster.gpus": 65536, "fidelity": "flow",
                         "communication.collective": {"algorithm": "parameter_server",
                                                      "servers": 64}})},
     ["run", "s.json"], 2, "grow as workers x servers, limited to 2^21"),
    ("more concurrent jobs than the 64 stated",
     {"s.json": with_(**{"cluster.gpus": 1024, "fidelity": "flow",
                         "communication.concurrent_jobs": 65})},
     ["run", "s.json"], 2, "communication.concurrent_jobs: expected an integer from 1 to 64"),
    ("jobs below flow fidelity",
     {"s.json": with_(**{"jobs": {"with": [{"gpus": 4}]}})},
     ["run", "s.json"], 2, "jobs: needs fidelity \"flow\""),
    ("a job on part of a node",
     {"s.json": with_(**{"cluster.gpus_per_node": 2, "fidelity": "flow",
                         "jobs": {"with": [{"gpus": 3}]}})},
     ["run", "s.json"], 2, "jobs.with[0].gpus: expected a multiple of the cluster's 2 GPUs"),
    ("jobs on a fabric too small for them",
     {"s.json": with_(**{"fidelity": "flow", "jobs": {"fabric_gpus": 4, "with": [{"gpus": 4}]}})},
     ["run", "s.json"], 2, "more than the fabric's"),
    ("a straggler faster than the trace",
     {"s.json": with_(**{"fidelity": "per_rank",
                         "compute": {"stragglers": [{"rank": 1, "slowdown": 0.5}]}})},
     ["run", "s.json"], 2, "compute.stragglers[0].slowdown: expected a number >= 1"),
    ("a straggler listed twice",
     {"s.json": with_(**{"fidelity": "per_rank",
                         "compute": {"stragglers": [{"rank": 1, "slowdown": 2},
                                                    {"rank": 1, "slowdown": 3}]}})},
     ["run", "s.json"], 2, "compute.stragglers[1].rank: expected a rank not listed before"),
    ("a job with a parameter server",
     {"s.json": with_(**{"fidelity": "flow", "jobs": {"with": [{"gpus": 4, "collective": {
         "algorithm": "parameter_server", "servers": 2}}]}})},
     ["run", "s.json"], 2, "jobs.with[0]: the parameter_server collective puts parameter servers"),
    ("a job running BytePS on one machine, without servers",
     {"s.json": with_(**{"cluster.gpus_per_node": 4, "fidelity": "flow",
                         "jobs": {"with": [{"gpus": 4, "collective": {
                             "algorithm": "byteps", "servers": 1}}]}})},
     ["run", "s.json"], 2, "jobs.with[0]: the byteps collective runs BytePS's pipeline"),
    ("a job's trace that is missing",
     {"s.json": with_(**{"fidelity": "flow", "jobs": {"with": [{"gpus": 4, "trace": "no.json"}]}})},
     ["run", "s.json"], 2, "(jobs.with[0]): trace: cannot open trace file"),
    ("a job's placement with a typo",
     {"s.json": with_(**{"fidelity": "flow", "jobs": {"placement": "spred",
                                                     "with": [{"gpus": 4}]}})},
     ["run", "s.json"], 2, "jobs.placement: expected one of"),
    ("negative bandwidth", {"s.json": with_(**{"network.bandwidth_gbps": -1})}, ["run", "s.json"],
     2, "bandwidth_gbps"),
    ("a string for a number", {"s.json": with_(**{"network.bandwidth_gbps": "fast"})},
     ["run", "s.json"], 2, "bandwidth_gbps"),
    ("an unknown key", {"s.json": with_(**{"network.bandwdth_gbps": 10})}, ["run", "s.json"], 2,
     "unknown key"),
    ("an unknown collective",
     {"s.json": with_(**{"communication.collective": {"algorithm": "rign"}})},
     ["run", "s.json"], 2, 'found "rign"'),
    ("an unknown compressor",
     {"s.json": with_(**{"communication.compression": {"name": "topkk"}})},
     ["run", "s.json"], 2, "did you mean"),
    ("a missing trace", {"s.json": with_(trace="missing.json")}, ["run", "s.json"], 2,
     "missing.json"),
    # The command line.
    ("--timeline-gpus beyond its limit", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--timeline", "tl.json", "--timeline-gpus", "4096"], 2, "timeline-gpus"),
    ("--timeline-iterations beyond its limit", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--timeline", "tl.json", "--timeline-iterations", "100000"], 2,
     "timeline-iterations"),
    ("an unknown subcommand", {}, ["fly"], 2, "--help"),
    ("an unknown option", {"s.json": json.dumps(BASE)}, ["run", "s.json", "--jsn", "x"], 2,
     "--jsn"),
    ("sweep without a sweep object", {"s.json": json.dumps(BASE)}, ["sweep", "s.json"], 2,
     "sweep"),
    ("a sweep over a key that names nothing",
     {"w.json": with_(sweep={"cluster.gpu": [2, 4]})}, ["sweep", "w.json"], 2,
     "does not name a valid scenario setting"),
    ("a sweep grid beyond the stated limit",
     {"w.json": with_(sweep={"cluster.gpus": {"from": 1, "to": 1000, "step": 1},
                             "network.bandwidth_gbps": {"from": 1, "to": 101, "step": 1}})},
     ["sweep", "w.json"], 2, "points"),
    ("list of an unknown family", {}, ["list", "colectives"], 2, "colectives"),
    # Traces.
    ("trace show of a missing file", {}, ["trace", "show", "nope.json"], 2, "no such file"),
    # Found by the scenario fuzz target: a name longer than the file system's 255 bytes made
    # std::filesystem throw (exit 70) instead of saying the file cannot be opened.
    ("a trace name too long for the file system",
     {"s.json": with_(**{"trace": "t" * 5000 + ".json"})}, ["run", "s.json"], 2,
     "cannot open trace file"),
    ("a scenario name too long for the file system", {}, ["run", "s" * 5000 + ".json"], 2,
     "File name too long"),
    ("trace show of a scenario", {"s.json": json.dumps(BASE)}, ["trace", "show", "s.json"], 2,
     "s.json"),
    ("trace show with layer times past 2^63 ps",
     {"big.json": None}, ["trace", "show", "big.json"], 3, "beyond about 106 days"),
    ("trace import from an unknown format", {"x.log": None},
     ["trace", "import", "x.log", "--from", "bcafe", "--batch", "4", "-o", "o.json"], 2,
     "did you mean"),
    ("B-Caffe element count of 1e19",
     {"x.log": "I0219 13:35:34.740056 69510 distributed.cpp:112] [0, 1e19, 10.5, 40, 0]\n"},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "-o", "o.json"], 2,
     "x.log"),
    ("B-Caffe log with no rows", {"x.log": "nothing here\n"},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "-o", "o.json"], 2,
     "x.log"),
    ("PipeDream node number beyond an int", {"g.txt": PIPEDREAM_NODE.replace(
        "node1 ", "node99999999999999999999 ")},
     ["trace", "import", "g.txt", "--from", "pipedream", "--batch", "8", "-o", "o.json"], 2,
     "g.txt:1"),
    ("PipeDream time written e", {"g.txt": PIPEDREAM_NODE.replace("=1.0,", "=e,")},
     ["trace", "import", "g.txt", "--from", "pipedream", "--batch", "8", "-o", "o.json"], 2,
     "g.txt:1"),
    ("PipeDream time 1e999", {"g.txt": PIPEDREAM_NODE.replace("=1.0,", "=1e999,")},
     ["trace", "import", "g.txt", "--from", "pipedream", "--batch", "8", "-o", "o.json"], 2,
     "g.txt:1"),
    ("PipeDream 60 kB line", {"g.txt": PIPEDREAM_NODE.replace("Conv2d", "x" * 60000)[:-1]
                              + " junk\n"},
     ["trace", "import", "g.txt", "--from", "pipedream", "--batch", "8", "-o", "o.json"], 2,
     "g.txt:1"),
    ("PipeDream without --batch", {"g.txt": PIPEDREAM_NODE},
     ["trace", "import", "g.txt", "--from", "pipedream", "-o", "o.json"], 2, "--batch"),
    ("Chakra import of a JSON file", {},
     ["trace", "import", "t.json", "--from", "chakra", "-o", "o.json"], 2, "t.json"),
    # Benchmark files for calibration.
    # Found by the benchmark_log fuzz target: a GPU count of 6.5e52 was cast to int.
    ("benchmark file with a GPU count of 6.5e52",
     {"osu.log": "6.5e52 16384 120.0\n6.5e52 32768 140.0\n6.5e52 65536 180.0\n"},
     ["calibrate", "osu.log"], 2, "expected a GPU count from 1 to 1048576"),
    ("OSU file with a NaN latency", {"osu.log": OSU_HEAD + "16384 nan\n32768 140.0\n"},
     ["calibrate", "osu.log", "--gpus", "4"], 2, "osu.log"),
    ("OSU file with an infinite latency", {"osu.log": OSU_HEAD + "16384 inf\n32768 inf\n"},
     ["calibrate", "osu.log", "--gpus", "4"], 2, "osu.log"),
    ("OSU file with no measurements", {"osu.log": OSU_HEAD}, ["calibrate", "osu.log", "--gpus",
                                                              "4"], 2, "osu.log"),
    ("calibrate a binary file", {"osu.log": "\x7fELF\x00\x00"},
     ["calibrate", "osu.log", "--gpus", "4"], 2, "osu.log"),
    # Compression profiles.
    ("a profile time of 1e300",
     {"s.json": with_(**{"communication.compression_profile": "p.json",
                         "communication.compression": {"name": "topk", "density": 0.01}}),
      "p.json": json.dumps({"format": "sgdsim-compression-profile", "schema_version": 1,
                            "device": "x", "compressors": {"topk": {
                                "encode_us": [[1024, 1e300], [4096, 1e300]],
                                "decode_us": [[1024, 10], [4096, 40]]}}})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    ("a profile that is not a profile",
     {"s.json": with_(**{"communication.compression_profile": "p.json"}), "p.json": "[]"},
     ["run", "s.json"], 2, "p.json"),
    # Sharded data parallelism (the four-layer trace has no numbered blocks: units "layers").
    ("a shard group that does not divide the GPUs",
     {"s.json": with_(**{"communication.sharding": {"units": "layers", "group_gpus": 3}})},
     ["run", "s.json"], 2, "communication.sharding.group_gpus: expected a shard group size"),
    ("a prefetch depth below 0",
     {"s.json": with_(**{"communication.sharding": {"units": "layers", "forward_prefetch": -1}})},
     ["run", "s.json"], 2, "communication.sharding.forward_prefetch"),
    ("ZeRO on a parameter-server collective",
     {"s.json": with_(**{"communication.collective": {"algorithm": "parameter_server",
                                                      "servers": 1},
                         "communication.sharding": {"strategy": "zero1", "units": "layers"}})},
     ["run", "s.json"], 2, "the parameter_server collective has no reduce-scatter"),
    ("a sharding strategy with a typo",
     {"s.json": with_(**{"communication.sharding": {"strategy": "full_shrad"}})},
     ["run", "s.json"], 2, "(did you mean \"full_shard\"?)"),
    ("a sharding accumulation mode that is not one",
     {"s.json": with_(**{"communication.sharding": {"units": "layers", "accumulation": "nosync"},
                         "compute.accumulation_steps": 2})},
     ["run", "s.json"], 2, "communication.sharding.accumulation: expected one of"),
    ("a HYBRID_SHARD group that neither divides nor spans whole nodes",
     {"s.json": with_(**{"cluster.gpus": 24, "cluster.gpus_per_node": 4,
                         "communication.sharding": {"units": "layers", "group_gpus": 6,
                                                    "strategy": "hybrid_shard"}})},
     ["run", "s.json"], 2, "communication.sharding.group_gpus: expected a divisor or a multiple"),
    ("units a trace does not have",
     {"s.json": with_(**{"communication.sharding": {"units": ["encoder"]}})},
     ["run", "s.json"], 2, "no layer with parameters is named \"encoder\""),
]


# Issue 36: the newer readers, outputs, limits and wrong answers.
CURVE = "iteration,accuracy\n10,0.5\n20,0.9\n"
MEASURED = {"task": "measured", "target": {"accuracy": 0.8}, "curves": {"none": "c.csv"}}
# An averaging run of 100 iterations with CPSGD every 4 (label "constant(period=4)").
AVERAGED = {"averaging": {"run_iterations": 100,
                          "schedules": [{"schedule": "constant", "period": 4}]}}


def varint(value):
    """A protobuf varint: 7 bits a byte, low first, the high bit set on all but the last."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def read_varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def pb_fields(data):
    """A protobuf message's fields as [(number, wire type, int or bytes)]."""
    fields, at = [], 0
    while at < len(data):
        key, at = read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(data, at)
        elif wire == 2:
            size, at = read_varint(data, at)
            value, at = data[at:at + size], at + size
        else:
            size = 8 if wire == 1 else 4
            value, at = data[at:at + size], at + size
        fields.append((number, wire, value))
    return fields


def pb_bytes(fields):
    out = b""
    for number, wire, value in fields:
        out += varint(number << 3 | wire)
        out += varint(value) if wire == 0 else (varint(len(value)) + value if wire == 2 else value)
    return out


def et_with(name=None, comm_size=None):
    """tests/data/four_layers.json exported as a Chakra ET (by sgdsim itself), with its first
    node's name (Node field 2) replaced by `name`, or every comm_size attribute (Node field 10,
    an AttributeProto with int64_val, field 9) set to `comm_size`, re-framed."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(os.path.join(ROOT, "tests", "data", "four_layers.json"), folder)
        subprocess.run([SGDSIM, "trace", "export", "four_layers.json", "--to", "chakra", "-o",
                        "x.et"], cwd=folder, check=True, capture_output=True)
        with open(os.path.join(folder, "x.et"), "rb") as f:
            data = f.read()
    messages, at = [], 0
    while at < len(data):
        size, at = read_varint(data, at)
        messages.append(data[at:at + size])
        at += size
    first = True
    for index in range(1, len(messages)):  # message 0 is the GlobalMetadata
        fields = pb_fields(messages[index])
        for k, (number, wire, value) in enumerate(fields):
            if number == 2 and name is not None and first:
                fields[k], first = (2, 2, name), False
            if number == 10 and comm_size is not None:
                attr = pb_fields(value)
                if (1, 2, b"comm_size") in attr:
                    fields[k] = (10, 2, pb_bytes([(1, 2, b"comm_size"), (9, 0, comm_size)]))
        messages[index] = pb_bytes(fields)
    return b"".join(varint(len(m)) + m for m in messages)


NEW_CASES = [
    ("run --json over a measured curve",
     {"s.json": with_(convergence=MEASURED), "c.csv": CURVE},
     ["run", "s.json", "--json", "c.csv"], 2, "is also an input of this command"),
    ("run --timeline over a measured curve",
     {"s.json": with_(convergence=MEASURED), "c.csv": CURVE},
     ["run", "s.json", "--timeline", "./c.csv"], 2, "is also an input of this command"),
    ("sweep --csv over a measured curve",
     {"w.json": with_(convergence=MEASURED, sweep={"cluster.gpus": [2, 4]}), "c.csv": CURVE},
     ["sweep", "w.json", "--csv", "c.csv"], 2, "is also an input of this command"),
    # All or none: the JSON is not kept when the CSV cannot be written.
    ("run --json with a CSV on a full device", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "o.json", "--csv", "/dev/full"], 2,
     "/dev/full: cannot write output file"),
    ("run --json with a CSV where no file can be made", {"s.json": json.dumps(BASE)},
     ["run", "s.json", "--json", "o.json", "--csv", "/proc/sgdsim-o.csv"], 2,
     "/proc/sgdsim-o.csv: cannot write output file"),
    ("sweep --csv with a JSON on a full device",
     {"w.json": with_(sweep={"cluster.gpus": [2, 4]})},
     ["sweep", "w.json", "--csv", "o.csv", "--json", "/dev/full"], 2,
     "/dev/full: cannot write output file"),
    ("BytePS partitions of half a byte",
     {"s.json": with_(communication={"collective": {"algorithm": "byteps", "servers": 2,
                                                    "partition_bytes": 0.5}})},
     ["run", "s.json"], 2, "communication.collective.partition_bytes"),
    ("BytePS partitions of 2^63 bytes",
     {"s.json": with_(communication={"collective": {"algorithm": "byteps", "servers": 2,
                                                    "partition_bytes": 2.0 ** 63}})},
     ["run", "s.json"], 2, "communication.collective.partition_bytes"),
    # 6 policies x 1,000 iterations x 256 GPUs x (8 layer spans + messages) > 2^21 events.
    ("a per_rank timeline at both stated maxima",
     {"s.json": with_(fidelity="per_rank", iterations=1000, **{"cluster.gpus": 256})},
     ["run", "s.json", "--timeline", "tl.json", "--timeline-gpus", "256",
      "--timeline-iterations", "1000"], 3, "the timeline would hold"),
    ("a Chakra node name that is not UTF-8", {"x.et": et_with(name=b"conv\xff")},
     ["trace", "import", "x.et", "--from", "chakra", "-o", "o.json"], 2,
     "name: expected UTF-8 text"),
    ("a Chakra comm_size of 2^62", {"x.et": et_with(comm_size=2 ** 62)},
     ["trace", "import", "x.et", "--from", "chakra", "-o", "o.json"], 2,
     "attribute comm_size: expected a size in bytes"),
    # A 5-byte varint of 2^32 + 31: read as 32 bits it was 31.
    ("a Chakra length past 32 bits", {"x.et": varint(2 ** 32 + 31) + b"\x08\x01" * 20},
     ["trace", "import", "x.et", "--from", "chakra", "-o", "o.json"], 2,
     "message 0 at byte 0: expected 4294967327 bytes, as its length says"),
    # 20 MB of zero bytes: 20 M empty messages, about 2 GB decoded; refused at 2^20.
    ("a Chakra ET of 20 MB of zero bytes", {"x.et": bytes(20_000_000)},
     ["trace", "import", "x.et", "--from", "chakra", "-o", "o.json"], 2,
     "expected at most 1048576 messages in an ET"),
    ("a PipeDream description that is not UTF-8",
     {"g.txt": PIPEDREAM_NODE.replace("Conv2d", "Conv\udcff")},
     ["trace", "import", "g.txt", "--from", "pipedream", "--batch", "8", "-o", "o.json"], 2,
     "g.txt:1: expected a node description in UTF-8 text"),
    ("--device that is not UTF-8", {"x.log": None},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "--device", "gpu\udcff",
      "-o", "o.json"], 2, "--device: expected UTF-8 text"),
    ("--model that is not UTF-8", {"x.log": None},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "--model", "m\udcff",
      "-o", "o.json"], 2, "--model: expected UTF-8 text"),
    ("a scenario file name that is not UTF-8", {"s\udcff.json": json.dumps(BASE)},
     ["run", "s\udcff.json"], 2, "expected a file name in UTF-8 text"),
    ("trace import of a folder", {"d": ("folder",)},
     ["trace", "import", "d", "--from", "bcaffe", "--batch", "4", "-o", "o.json"], 2,
     "d: is a folder, not a file"),
    ("calibrate on times near 1e300",
     {"osu.log": OSU_HEAD + "16384 1e300\n32768 2e300\n65536 1.5e300\n"},
     ["calibrate", "osu.log", "--gpus", "4"], 2, "osu.log:3: expected a message size"),
    ("calibrate --gpus 4 on a log of 8 ranks", {"n.log": None},
     ["calibrate", "n.log", "--gpus", "4"], 2, "--gpus 4 disagrees with the 8 GPUs the log lists"),
    ("a flow-level link of 1e-14 Gbps",
     {"s.json": with_(fidelity="flow", **{"network.bandwidth_gbps": 1e-14})},
     ["run", "s.json"], 3, "beyond about 106 days"),
    ("a measured allreduce with beta 1e308 ns/byte",
     {"s.json": with_(network={"measured_allreduce": [
         {"gpus": 4, "alpha_us": 10, "beta_ns_per_byte": 1e308}]})},
     ["run", "s.json"], 2, "measured_allreduce[0].beta_ns_per_byte: expected at most 1e12"),
    # The file and the key that make a run too long are named.
    ("a latency of 5e12 us over 4 GPUs names its key",
     {"s.json": with_(**{"network.latency_us": 5e12})}, ["run", "s.json"], 3,
     "s.json: a simulated time or duration beyond about 106 days"),
    # 2(N-1) = 6 hops of 5e12 us each = 3e19 ps, past 2^63 ps by itself.
    ("... and the key is network.latency_us",
     {"s.json": with_(**{"network.latency_us": 5e12})}, ["run", "s.json"], 3,
     "(it comes from network.latency_us)"),
    ("bandwidth 1e-300 Gbps names its key",
     {"s.json": with_(**{"network.bandwidth_gbps": 1e-300})}, ["run", "s.json"], 3,
     "(it comes from network.bandwidth_gbps)"),
    ("a slow link over many iterations names both",
     {"s.json": with_(**{"network.bandwidth_gbps": 1e-9, "iterations": 100000})},
     ["run", "s.json"], 3, "(it comes from network.bandwidth_gbps over 100000 iterations)"),
    # Measured curves: target past the averaging run, hex, extra cells, missing header.
    ("a schedule's curve past its averaging run",
     {"s.json": with_(communication=AVERAGED, convergence={
         "task": "measured", "target": {"accuracy": 0.8},
         "curves": {"constant(period=4)": "c.csv"}}),
      "c.csv": "iteration,accuracy\n50,0.5\n150,0.9\n"},
     ["run", "s.json"], 2, "c.csv:3: iteration 150 is past the 100 iterations"),
    ("a curve number written in hex",
     {"s.json": with_(convergence=MEASURED), "c.csv": "iteration,accuracy\n10,0x14\n"},
     ["run", "s.json"], 2, 'c.csv:2: column accuracy: expected a decimal number, found "0x14"'),
    ("a curve row with an extra cell",
     {"s.json": with_(convergence=MEASURED), "c.csv": "iteration,accuracy\n10,0.5,7\n"},
     ["run", "s.json"], 2, "c.csv:2: expected 2 cells, as the header has, found 3"),
    ("a curve row with a quote left open",
     {"s.json": with_(convergence=MEASURED), "c.csv": 'iteration,accuracy\n10,"0.5\n'},
     ["run", "s.json"], 2, "c.csv:2: expected 2 cells, as the header has, found a quote left open"),
    ("a curve that is a folder",
     {"s.json": with_(convergence=MEASURED), "c.csv": ("folder",)},
     ["run", "s.json"], 2, "c.csv: is a folder, not a measured curve"),
    # Unbounded reads.
    ("run /dev/zero", {}, ["run", "/dev/zero"], 2, "/dev/zero: larger than the 256 MiB"),
    ("one-element ByteScheduler partitions of VGG-16",
     {"s.json": with_(trace="vgg.json", communication={"merge": {
         "policy": "bytescheduler", "bytescheduler_partition": 1}}), "vgg.json": None},
     ["run", "s.json"], 2, "communication.merge.bytescheduler_partition: expected a partition"),
    # One readable line for a sweep value of 100,000 elements.
    ("a sweep value of 100,000 elements",
     {"w.json": with_(sweep={"cluster.gpus": [[4] * 100000]})},
     ["sweep", "w.json"], 2, "cluster.gpus"),
]
CASES += NEW_CASES


def kineto_mini(drop=lambda event: False):
    """tests/data/kineto_mini.json without the events `drop` selects, as text."""
    with open(os.path.join(ROOT, "tests", "data", "kineto_mini.json"), encoding="utf-8") as f:
        profile = json.load(f)
    profile["traceEvents"] = [e for e in profile["traceEvents"] if not drop(e)]
    return json.dumps(profile)


def gzipped(text):
    import gzip
    return gzip.compress(text.encode())


KINETO = ["trace", "import", "p.json", "--from", "kineto", "--batch", "2", "-o", "o.json"]
KINETO_GZ = ["trace", "import", "p.json.gz", "--from", "kineto", "--batch", "2", "-o", "o.json"]
CASES += [
    # PyTorch profiler traces: exit 2, the file named and what is missing, no trace written.
    ("kineto: a truncated gzip profile", {"p.json.gz": gzipped(kineto_mini())[:300]},
     KINETO_GZ, 2, "p.json.gz: not a readable gzip file (truncated)"),
    ("kineto: not a Chrome trace", {"p.json": json.dumps({"events": []})},
     KINETO, 2, "p.json: not a Chrome trace"),
    ("kineto: a GPU profile without kernels",
     {"p.json": kineto_mini(lambda e: e.get("cat") == "kernel")}, KINETO, 2, "p.json: no kernels"),
    ("kineto: a profile of inference only",
     {"p.json": kineto_mini(lambda e: "autograd" in e.get("name", ""))},
     KINETO, 2, "p.json: no training step found"),
    ("kineto: recorded without record_shapes",
     {"p.json": kineto_mini().replace('"Input Dims"', '"Input Sizes"')},
     KINETO, 2, "record_shapes=True"),
    ("kineto: gradients short of --parameters", {"p.json": kineto_mini()},
     KINETO + ["--parameters", "3000"], 2, "2678 elements, the model has 3000 parameters"),
    ("merge granularity tensor with ByteScheduler",
     {"s.json": with_(communication={"merge": {"policy": ["bucket", "bytescheduler"],
                                               "granularity": "tensor"}})},
     ["run", "s.json"], 2, "granularity: \"tensor\" with the bytescheduler policy"),
    ("topology show: a preset name with a typo", {}, ["topology", "show", "dgx1_v10"], 2,
     'unknown node "dgx1_v10", did you mean "dgx1_v100"?'),
    ("topology show: a node file that does not exist", {}, ["topology", "show", "n.json"], 2,
     "node file n.json does not exist"),
    ("topology show: more GPUs than the node has", {},
     ["topology", "show", "dgx1_v100", "--gpus", "9"], 2,
     "topology show: --gpus 9: the node has 8 GPUs"),
    ("cluster.gpus_per_node above the node's GPUs",
     {"s.json": with_(cluster={"gpus": 32, "gpus_per_node": 16, "node": "dgx1_v100"})},
     ["run", "s.json"], 2, "gpus_per_node: expected at most the 8 GPUs of cluster.node"),
    ("no network for GPUs on several nodes",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4}})}, ["run", "s.json"], 2,
     "s.json: network: missing (4 GPUs on 4 nodes of 1 cross a network"),
    ("no network for dedicated servers",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4},
                            "communication": {"collective": {"algorithm": "parameter_server",
                                                             "servers": 2}}})},
     ["run", "s.json"], 2, "network: missing (2 dedicated servers (machines of their own)"),
    ("no network for BytePS forced to run its servers on one machine",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4},
                            "communication": {"collective": {"algorithm": "byteps",
                                                             "servers": 2,
                                                             "force_distributed": 1}}})},
     ["run", "s.json"], 2, "network: missing (2 dedicated servers (machines of their own)"),
    ("BytePS's force_distributed is 0 or 1",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4},
                            "communication": {"collective": {"algorithm": "byteps",
                                                             "servers": 2,
                                                             "force_distributed": 2}}})},
     ["run", "s.json"], 2, "communication.collective.force_distributed"),
    ("BytePS's pcie_switch_size must cut the machine into equal groups",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 6, "gpus_per_node": 6},
                            "communication": {"collective": {"algorithm": "byteps",
                                                             "servers": 1,
                                                             "pcie_switch_size": 4}}})},
     ["run", "s.json"], 2,
     "communication.collective.pcie_switch_size: expected 3 (two groups) or at least "
     "cluster.gpus_per_node, 6 (the whole machine)"),
    ("BytePS's default pcie_switch_size of 8 cuts machines of 24 GPUs into three groups",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 24, "gpus_per_node": 24},
                            "communication": {"collective": {"algorithm": "byteps",
                                                             "servers": 1}}})},
     ["run", "s.json"], 2,
     "communication.collective.pcie_switch_size: expected 12 (two groups) or at least "
     "cluster.gpus_per_node, 24 (the whole machine)"),
    ("BytePS's pcie_switch_size is at least 1",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4},
                            "communication": {"collective": {"algorithm": "byteps",
                                                             "servers": 1,
                                                             "pcie_switch_size": 0}}})},
     ["run", "s.json"], 2, "communication.collective.pcie_switch_size"),
    ("a one-node job whose ring latency runs past simulated time names the intra-node key",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4,
                                                        "intra_node_latency_us": 1e12},
                            "iterations": 1000})},
     ["run", "s.json"], 3, "cluster.intra_node_latency_us"),
    ("a network without a rate for a dedicated server",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 2, "gpus_per_node": 2},
                            "network": {"latency_us": 3},
                            "communication": {"collective": {"algorithm": "parameter_server",
                                                             "servers": 1}}})},
     ["run", "s.json"], 2,
     "network.bandwidth_gbps: missing (1 dedicated server (machines of their own) cross"),
    ("no network for jobs sharing a fabric",
     {"s.json": json.dumps({"trace": TRACE, "cluster": {"gpus": 4, "gpus_per_node": 4},
                            "fidelity": "flow",
                            "jobs": {"with": [{"name": "b", "trace": TRACE, "gpus": 4}]}})},
     ["run", "s.json"], 2, "network: missing (jobs sharing a fabric cross a network"),
    ("topology import: XML that is not an NCCL dump", {"t.xml": "<graph><node/></graph>"},
     ["topology", "import", "t.xml", "-o", "n.json"], 2,
     "t.xml: not an NCCL topology dump (no <system> root"),
    ("topology import: an NCCL dump without GPUs",
     {"t.xml": '<system version="1"><cpu numaid="0" vendor="GenuineIntel"/></system>'},
     ["topology", "import", "t.xml", "-o", "n.json"], 2, "t.xml: an NCCL topology dump without a <gpu>"),
    ("topology import: neither format", {"t.txt": "hello\n"},
     ["topology", "import", "t.txt", "-o", "n.json"], 2, "t.txt: neither an NCCL topology dump"),
    ("topology import: an nvidia-smi matrix with an unknown connection",
     {"t.txt": "\tGPU0\tGPU1\nGPU0\t X \tPCI\nGPU1\tPCI\t X \n"},
     ["topology", "import", "t.txt", "-o", "n.json"], 2, 'unknown connection "PCI" between GPU0 and GPU1'),
    ("topology import: a PCIe link that is not GEN.0 xLANES",
     {"t.txt": "\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\tPIX\t X \n"},
     ["topology", "import", "t.txt", "-o", "n.json", "--pcie", "x16"], 2, '--pcie "x16"'),
    ("topology import over its input",
     {"t.txt": "\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\tPIX\t X \n"},
     ["topology", "import", "t.txt", "-o", "t.txt"], 2, "is also an input of this command"),
    ("cluster.node: a preset name with a typo",
     {"s.json": with_(**{"cluster.node": "pcie3_2socket_8gp"})}, ["run", "s.json"], 2,
     'did you mean "pcie3_2socket_8gpu"?'),
    ("run --json over the scenario's node file",
     {"s.json": with_(**{"cluster.node": "n.txt"}),
      "n.txt": "\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\tPIX\t X \n"},
     ["run", "s.json", "--json", "n.txt"], 2, "is also an input of this command"),
    ("cluster.node: a node file whose GPU hangs from nothing",
     {"s.json": with_(**{"cluster.node": "n.json"}),
      "n.json": json.dumps({"format": "sgdsim-node", "version": 1, "cpus": [{"name": "cpu0"}],
                            "gpus": [{"name": "gpu0", "parent": "sw9", "pcie": "3.0 x16"}]})},
     ["run", "s.json"], 2, 'n.json: "gpu0" hangs from "sw9"'),
    ("calibrate --node with fewer GPUs than the run inside one node",
     {"n.log": None}, ["calibrate", "n.log", "--node", "geforce_pcie3_4gpu"], 2,
     "--node geforce_pcie3_4gpu: the node has 4 GPUs, and the run inside one node 8"),
    ("calibrate --node without a run inside one node",
     {"n.log": None}, ["calibrate", "n.log", "--gpus-per-node", "4", "--node", "geforce_pcie3_4gpu"],
     2, "--node geforce_pcie3_4gpu: a run inside one node to compare its rings with"),
    ("byteps with its servers placed nowhere known",
     {"s.json": with_(**{"cluster.gpus_per_node": 2, "communication.collective": {
         "algorithm": "byteps", "servers": 2, "placement": "colocate"}})}, ["run", "s.json"], 2,
     "communication.collective.placement: expected one of \"dedicated\", \"colocated\", found "
     "\"colocate\""),
    ("byteps with its servers on the workers and a rate for their own links",
     {"s.json": with_(**{"cluster.gpus_per_node": 2, "communication.collective": {
         "algorithm": "byteps", "servers": 2, "placement": "colocated",
         "server_bandwidth_gbps": 25}})}, ["run", "s.json"], 2,
     "communication.collective.server_bandwidth_gbps: expected no server_bandwidth_gbps with "
     "placement \"colocated\""),
    ("compute.overlap_slowdown below 1",
     {"s.json": with_(**{"compute.overlap_slowdown": 0.9})}, ["run", "s.json"], 2,
     "compute.overlap_slowdown: expected a number from 1 to 1000"),
    ("compute.overlap_slowdown above 1000",
     {"s.json": with_(**{"compute.overlap_slowdown": 1001})}, ["run", "s.json"], 2,
     "compute.overlap_slowdown: expected a number from 1 to 1000"),
    ("compute.single_gpu_samples_per_s with the profiler's wall times",
     {"s.json": with_(**{"compute.single_gpu_samples_per_s": 100, "compute.layer_times": "wall"})},
     ["run", "s.json"], 2, "compute.layer_times: expected \"scaled_to_measured\" or no "
     "layer_times with single_gpu_samples_per_s"),
    ("one GPU's throughput faster than the optimizer step allows",
     {"s.json": with_(**{"compute.single_gpu_samples_per_s": 1000000})}, ["run", "s.json"], 2,
     "compute.single_gpu_samples_per_s: cannot scale to the measured iteration"),
    ("compute.single_gpu_samples_per_s as a word",
     {"s.json": with_(**{"compute.single_gpu_samples_per_s": "fast"})}, ["run", "s.json"], 2,
     "compute.single_gpu_samples_per_s: expected a number > 0, found \"fast\""),
    ("compute.single_gpu_samples_per_s so low one iteration cannot be timed",
     {"s.json": with_(**{"compute.single_gpu_samples_per_s": 1e-300})}, ["run", "s.json"], 2,
     "compute.single_gpu_samples_per_s: 1e-300 samples/s makes one iteration"),
    ("cluster.host_read_efficiency without a node",
     {"s.json": with_(**{"cluster.host_read_efficiency": 0.5})}, ["run", "s.json"], 2,
     "cluster.host_read_efficiency: expected no host_read_efficiency without cluster.node"),
    ("cluster.host_read_efficiency above 1",
     {"s.json": with_(**{"cluster.node": "geforce_pcie3_4gpu",
                         "cluster.host_read_efficiency": 1.5})}, ["run", "s.json"], 2,
     "cluster.host_read_efficiency: expected a number in (0, 1], found 1.5"),
    ("cluster.node: a node file whose GPU's GPUDirect RDMA is neither supported nor disabled",
     {"s.json": with_(**{"cluster.node": "n.json"}),
      "n.json": json.dumps({"format": "sgdsim-node", "version": 1, "cpus": [{"name": "cpu0"}],
                            "gpus": [{"name": "gpu0", "parent": "cpu0", "pcie": "3.0 x16",
                                      "gdr": "no"}]})},
     ["run", "s.json"], 2, 'gpus[0].gdr: expected one of "supported", "disabled", found "no"'),
    ("kineto options given to another importer", {"x.log": None},
     ["trace", "import", "x.log", "--from", "bcaffe", "--batch", "4", "--measured-us", "5",
      "-o", "o.json"], 2, "--measured-us: only a kineto profile takes it"),
]


def data_file(name):
    with open(os.path.join(ROOT, "tests", "data", name), encoding="utf-8") as f:
        return f.read()


def too_long(trace_text):
    """The trace with two layers of 5e6 s forward each: 1e19 ps in all, past 2^63 = 9.2e18 ps."""
    trace = json.loads(trace_text)
    for layer in trace["layers"][:2]:
        layer["forward_us"] = 5e12
    return json.dumps(trace)


# An nccl-tests all_reduce_perf log that lists 8 ranks (one "#  Rank" line each).
NCCL_8_RANKS = "".join(f"#  Rank {r} Group  0 Pid 1 on host device  {r} [0x07] NVIDIA H100\n"
                       for r in range(8)) + "".join(
    f"{size:>12} {size // 4:>13}     float     sum      -1 {time:>8.2f}  0.1  0.1  0\n"
    for size, time in [(16384, 25.0), (65536, 30.5), (262144, 50.0), (1048576, 95.0)])
# The files a case names with None, read once.
TRACE_TEXT = data_file("four_layers.json")
DEFAULTS = {"x.log": data_file("bcaffe_small.log"), "p.json": data_file("profile_small.json"),
            "big.json": too_long(TRACE_TEXT),
            "vgg.json": open(os.path.join(ROOT, "traces", "vgg16_b32_v100_estimated.json"),
                             encoding="utf-8").read(),
            "n.log": NCCL_8_RANKS,
            "o.json": json.dumps(dict(json.loads(TRACE_TEXT), framework_overheads={
                "wrapper": "ddp", "iteration_us": 10}))}


# A build without libtorch (the sanitizer builds) refuses a network task and names the package;
# a build with it trains the network instead, which the unit tests cover.
VERSION = subprocess.run([SGDSIM, "--version"], capture_output=True, text=True).stdout
if "networks (libtorch): no" in VERSION:
    CASES.append(
        ("a network task in a build without libtorch",
         {"s.json": with_(convergence={"task": "fashion_mnist_resnet", "target": {"accuracy": 0.8},
                                       "max_iterations": 2, "seeds": 1})},
         ["run", "s.json"], 2, "s.json: convergence.task: expected a task this build can train: "
         "its networks train with libtorch, and this build has no libsgdsim_networks.so (install "
         "Debian's libtorch-dev"))
elif "networks (libtorch): yes" not in VERSION:
    CHECKS.check("sgdsim --version says whether networks train", False, VERSION)


def files_for(files):
    """The case's files, where None stands for a default, with the trace and a link to s.json."""
    written = {TRACE: TRACE_TEXT, "link-to-s.json": ("link", "s.json")}
    for name, text in files.items():
        if text is None:
            text = DEFAULTS[name]
        written[name] = text
    return written


for what, files, args, code, phrase in CASES:
    with tempfile.TemporaryDirectory() as folder:
        write_files(folder, files_for(files))
        r, changed = run_watched([SGDSIM, *args], folder)
        CHECKS.check(what, r.returncode == code and phrase in r.stderr and not changed
                     and "Traceback" not in r.stderr and "bug in sgdsim" not in r.stderr,
                     f"exit {r.returncode} (want {code}), files changed {changed}, "
                     f"stderr {r.stderr[-300:]!r}")

# An error about a long value stays one readable line (it was 589,079 characters).
with tempfile.TemporaryDirectory() as folder:
    write_files(folder, files_for({"w.json": with_(sweep={"cluster.gpus": [[4] * 100000]})}))
    r, _ = run_watched([SGDSIM, "sweep", "w.json"], folder)
    CHECKS.check("an error about a 100,000-element value is one line of under 500 characters",
                 r.returncode == 2 and r.stderr.count("\n") == 1 and len(r.stderr) < 500,
                 f"exit {r.returncode}, {len(r.stderr)} characters: {r.stderr[:300]!r}")

# A failed write to standard output is exit 2 for every command that prints there.
STDOUT_COMMANDS = [
    ("schema", ["schema"]), ("list", ["list"]), ("trace show", ["trace", "show", TRACE]),
    ("calibrate", ["calibrate", "n.log"]), ("run's table", ["run", "s.json"]),
    ("run --json -", ["run", "s.json", "--json", "-"]),
    ("topology show", ["topology", "show", "dgx1_v100"]),
]
for what, args in STDOUT_COMMANDS:
    with tempfile.TemporaryDirectory() as folder:
        write_files(folder, files_for({"s.json": json.dumps(BASE), "n.log": None}))
        with open("/dev/full", "w", encoding="utf-8") as full:
            r = subprocess.run([SGDSIM, *args], cwd=folder, stdout=full, stderr=subprocess.PIPE,
                               text=True)
        CHECKS.check(f"{what} to a full standard output",
                     r.returncode == 2 and "-: cannot write to standard output" in r.stderr,
                     f"exit {r.returncode}, stderr {r.stderr[-300:]!r}")

# Every subcommand `sgdsim --help` lists has at least one case.
HELP = subprocess.run([SGDSIM, "--help"], capture_output=True, text=True).stdout
SUBCOMMANDS = set(re.findall(r"^  (\w+) {2,}\S", HELP.split("Subcommands:")[-1], re.M))
COVERED = {args[0] for _, _, args, _, _ in CASES if args}
CHECKS.check("every subcommand has a bad-input case", SUBCOMMANDS and SUBCOMMANDS <= COVERED,
             f"subcommands {sorted(SUBCOMMANDS)}, covered {sorted(COVERED)}")
CHECKS.finish()
