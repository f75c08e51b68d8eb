#!/usr/bin/env python3
"""What frameworks and transports add (issue 9), checked against closed forms on the four-layer
trace tests/data/four_layers.json: forward 4 x 1,000 us, backward 1,800 + 1,000 + 2,000 +
1,000 = 5,800 us, optimizer 500 us, batch 8, 1,250 fp32 elements (5,000 bytes) in four layers.

Usage: framework_mechanisms_test.py SGDSIM ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

from harness import Checks

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("framework mechanisms")
TRACE = os.path.join(ROOT, "tests", "data", "four_layers.json")
# 4 GPUs, one per node, on a 0.001 Gbit/s link (125,000 bytes/s): byte terms dominate.
BASE = {"trace": TRACE, "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 0.001},
        "communication": {"merge": {"policy": "all"}}, "iterations": 2}


def run(scenario):
    with tempfile.TemporaryDirectory() as folder:
        path, out = os.path.join(folder, "s.json"), os.path.join(folder, "r.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(scenario, f)
        r = subprocess.run([SGDSIM, "run", "-q", "--json", out, path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise SystemExit(f"sgdsim failed: {r.stderr}")
        return json.load(open(out, encoding="utf-8"))


def edited(**sections):
    scenario = json.loads(json.dumps(BASE))
    for section, values in sections.items():
        scenario.setdefault(section, {}).update(values)
    return scenario


def close(a, b, tolerance=1e-6):
    return abs(a - b) <= tolerance * max(1.0, abs(b))


plain = run(BASE)
policy = plain["policies"][0]

# Accumulation: k passes, one message after the last backward (policy all, nothing overlaps),
# so the step is (k - 1)(forward + backward) = 2 x 9,800 us longer for k = 3, and it carries
# k times the samples.
accumulated = run(edited(compute={"accumulation_steps": 3}))["policies"][0]
CHECKS.check("accumulation adds (k-1)(F+B) to the step",
             close(accumulated["iteration_us"] - policy["iteration_us"], 19600.0),
             f"{accumulated['iteration_us']} - {policy['iteration_us']}")
CHECKS.check("accumulation: samples per step are k x batch x GPUs",
             close(accumulated["samples_per_second"],
                   3 * 8 * 4 / (accumulated["iteration_us"] * 1e-6)),
             accumulated["samples_per_second"])

# fp16 on the wire: the ring's byte term 2(N-1)/N S / B halves: 1.5 x 2,500 B / 125,000 B/s
# = 30,000 us less communication.
half = run(edited(communication={"merge": {"policy": "all"}, "wire_dtype": "fp16"}))
CHECKS.check("fp16 on the wire halves the byte term",
             close(policy["communication_us"] - half["policies"][0]["communication_us"], 30000.0),
             half["policies"][0]["communication_us"])
CHECKS.check("bf16 prices as fp16",
             close(run(edited(communication={"merge": {"policy": "all"}, "wire_dtype": "bf16"}))
                   ["policies"][0]["communication_us"], half["policies"][0]["communication_us"]))

# Transports: TCP's goodput is 1,448 / 1,538 of the line rate, so the ring's slope
# 2(N-1)/N x 8 / B grows by 1,538 / 1,448; the per-message overhead adds 2(N-1) x 20 us to the
# ring's startup.
tcp = run(edited(network={"transport": "tcp", "message_overhead_us": 20}))
CHECKS.check("tcp: slope scaled by 1538/1448",
             close(tcp["collective_ns_per_byte"], plain["collective_ns_per_byte"] * 1538 / 1448),
             (tcp["collective_ns_per_byte"], plain["collective_ns_per_byte"]))
CHECKS.check("message overhead: 2(N-1) x 20 us on the startup",
             close(tcp["collective_startup_us"] - plain["collective_startup_us"], 120.0),
             (tcp["collective_startup_us"], plain["collective_startup_us"]))
rdma = run(edited(network={"transport": "rdma"}))
CHECKS.check("rdma: 96% of the line rate",
             close(rdma["collective_ns_per_byte"], plain["collective_ns_per_byte"] / 0.96))
connected = run(edited(network={"transport": "ipoib_connected"}))
CHECKS.check("ipoib_connected: slope scaled by 65940/65468 (16 IB packets per 65,520-byte MTU)",
             close(connected["collective_ns_per_byte"],
                   plain["collective_ns_per_byte"] * 65940 / 65468))
# A cap of 0.00025 Gbit/s per connection over the ring's two connections (NCCL's two channels
# per NIC): 0.0005 Gbit/s, below rdma's 0.96 x 0.001. The rate is half the line rate, so the
# slope doubles; over one connection it is a quarter, and the slope quadruples.
capped = run(edited(network={"transport": "rdma", "flow_cap_gbps": 0.00025}))
CHECKS.check("a flow cap x the ring's 2 connections below the goodput sets the rate",
             close(capped["collective_ns_per_byte"], plain["collective_ns_per_byte"] * 2))
CHECKS.check("the resolved transport says 2 connections",
             capped["provenance"]["resolved"]["network"]["transport"]["connections"] == 2)
one = run(edited(network={"transport": "rdma", "flow_cap_gbps": 0.00025, "connections": 1}))
CHECKS.check("network.connections 1: the cap of one connection",
             close(one["collective_ns_per_byte"], plain["collective_ns_per_byte"] * 4))
# A parameter server's worker opens one connection per server, and a dedicated server one per
# worker. 4 workers (one per node), 3 servers, rdma with 0.0002 Gbit/s per connection: a
# worker's link carries 3 connections (0.0006 Gbit/s, below the goodput 0.00096), a server's 4
# (0.0008). The closed form's slope is the busiest link's bytes over its rate: without the cap
# the servers' (4/3 of a gradient at 0.00096), with it both (1/0.0006 = (4/3)/0.0008), so the
# slope grows by (1/0.0006) / ((4/3)/0.00096) = 1.2.
ps = {"collective": {"algorithm": "parameter_server", "servers": 3}, "merge": {"policy": "all"}}
ps_plain = run(edited(network={"transport": "rdma"}, communication=ps))
ps_capped = run(edited(network={"transport": "rdma", "flow_cap_gbps": 0.0002}, communication=ps))
CHECKS.check("parameter server: one connection per server at a worker, per worker at a server",
             close(ps_capped["collective_ns_per_byte"],
                   ps_plain["collective_ns_per_byte"] * 1.2) and
             ps_capped["provenance"]["resolved"]["network"]["transport"]["connections"] == 3,
             (ps_capped["collective_ns_per_byte"], ps_plain["collective_ns_per_byte"]))
# With 2 GPUs per node sharing a NIC, each GPU pushes to each server: 2 x 3 connections.
ps_shared = run(edited(cluster={"gpus": 4, "gpus_per_node": 2},
                       network={"transport": "rdma", "flow_cap_gbps": 0.0002}, communication=ps))
CHECKS.check("parameter server: GPUs sharing a NIC each open their connections",
             ps_shared["provenance"]["resolved"]["network"]["transport"]["connections"] == 6)

# TCP's defaults on a 100 Gbit/s link: two connections of 16.48 Gbit/s (one NCCL socket ring,
# NVIDIA/nccl #209) cap it at 32.96 Gbit/s, and each message costs 52 us more (OSU on 10 GbE).
# The ring's slope is 2(N-1)/N x 8 / B ns per byte: 1.5 x 8 / 32.96 = 0.36408 ns per byte.
fast = {"bandwidth_gbps": 100, "transport": "tcp"}
tcp_default = run(edited(network=fast))
CHECKS.check("tcp default: 2 connections of 16.48 Gbit/s",
             close(tcp_default["collective_ns_per_byte"], 1.5 * 8 / 32.96),
             tcp_default["collective_ns_per_byte"])
CHECKS.check("tcp default: 52 us per message, 2(N-1) = 6 messages on the startup",
             close(tcp_default["collective_startup_us"] -
                   run(edited(network=dict(fast, transport="rdma")))["collective_startup_us"],
                   6 * 52.0), tcp_default["collective_startup_us"])
# The default cap is uncertain: the run reports the range over one connection's 11.08 to 35
# Gbit/s (NVIDIA/nccl #209's two rings, ESnet), which brackets the iteration as run; the
# network's rate at each end is 2 connections' (22.16 and 70 Gbit/s, under the goodput's
# 94.15); a cap given removes the range.
span = tcp_default["transport_range"]
CHECKS.check("transport range: 11.08 to 35 Gbit/s per connection, bracketing the run",
             span is not None and close(span["low_gbps"], 11.08) and close(span["high_gbps"], 35)
             and close(span["network_low_gbps"], 22.16) and close(span["network_high_gbps"], 70)
             and close(span["network_gbps"], 32.96) and
             span["fastest_iteration_high_us"] <= span["fastest_iteration_us"] <=
             span["fastest_iteration_low_us"], span)
CHECKS.check("no transport range with a cap given",
             run(edited(network=dict(fast, flow_cap_gbps=20)))["transport_range"] is None)
CHECKS.check("no transport range where the line rate decides (10 Gbit/s < 2 x 11.08)",
             run(edited(network={"bandwidth_gbps": 10, "transport": "tcp"}))["transport_range"]
             is None)

# A gathered tensor: L2.weight (125 elements) as rows of 5; a batch of 8 with one row per
# sample sends min(25, 8) = 8 rows of 5 x 4 + 8 index bytes = 224 bytes per worker. WFBP
# sends L2 alone: a ring allgather of (N-1)(alpha + 224 B / B) with alpha = 5 + 1 us
# (network and node latency): 3 x 6 us + 3 x 224 / 125,000 s = 18 + 5,376 us.
wfbp = {"merge": {"policy": "none"}}
gathered = run(edited(communication=dict(wfbp, allgather_gradients=[
    {"tensor": "L2.weight", "rows_per_sample": 1, "row_elements": 5}])))
messages = {m["layers"]: m for m in gathered["policies"][0]["message_breakdown"]}
l2 = messages["L2"]
CHECKS.check("gathered rows: ring allgather time", close(l2["end_us"] - l2["start_us"], 5394.0),
             l2)
CHECKS.check("gathered rows leave the allreduce", l2["bytes"] == 0, l2["bytes"])
CHECKS.check("gathered rows: 3 x 224 bytes more sent per GPU than the dense rest",
             close(gathered["policies"][0]["bytes_sent_per_gpu"],
                   1.5 * (5000 - 500) + 3 * 224), gathered["policies"][0]["bytes_sent_per_gpu"])
# At flow fidelity the gather runs as the ring's transfer program (three lockstep steps, each
# 224 bytes over one 0.001 Gbit/s hop after 6 us): the same 5,394 us.
flow_gathered = run(dict(edited(communication=dict(wfbp, allgather_gradients=[
    {"tensor": "L2.weight", "rows_per_sample": 1, "row_elements": 5}])), fidelity="flow"))
flow_l2 = {m["layers"]: m for m in flow_gathered["policies"][0]["message_breakdown"]}["L2"]
CHECKS.check("gathered rows at flow fidelity: the ring allgather's program",
             close(flow_l2["end_us"] - flow_l2["start_us"], 5394.0, 1e-3) and
             flow_l2["bytes"] == 0, flow_l2)
# With 2 accumulated passes the step's gradient holds the rows of 2 x 8 samples: min(25, 16)
# = 16 rows, 16 x 28 = 448 bytes per worker: 18 us + 3 x 448 / 125,000 s = 18 + 10,752 us.
accumulated_rows = run(edited(compute={"accumulation_steps": 2}, communication=dict(
    wfbp, allgather_gradients=[{"tensor": "L2.weight", "rows_per_sample": 1, "row_elements": 5}])))
l2 = {m["layers"]: m for m in accumulated_rows["policies"][0]["message_breakdown"]}["L2"]
CHECKS.check("gathered rows over accumulated passes: every pass's samples",
             close(l2["end_us"] - l2["start_us"], 10770.0), l2)
# Framework overheads. Per iteration: 300 us more per step, once (not per accumulated pass).
# Per call: 200 us on the startup of every message; WFBP sends 4 messages (one per layer), so
# its communication grows by 4 x 200 us.
per_iteration = run(edited(compute={"framework_overhead_us": 300}))["policies"][0]
CHECKS.check("framework overhead per iteration",
             close(per_iteration["iteration_us"] - policy["iteration_us"], 300.0),
             per_iteration["iteration_us"])
once = run(edited(compute={"framework_overhead_us": 300, "accumulation_steps": 3}))
CHECKS.check("framework overhead per iteration: once per accumulated step",
             close(once["policies"][0]["iteration_us"] - accumulated["iteration_us"], 300.0))
wfbp_plain = run(edited(communication=wfbp))
per_call = run(edited(communication=dict(wfbp, framework_overhead_us=200)))
CHECKS.check("framework overhead per call: on the startup",
             close(per_call["collective_startup_us"] - wfbp_plain["collective_startup_us"], 200.0))
CHECKS.check("framework overhead per call: 4 messages x 200 us more communication",
             close(per_call["policies"][0]["communication_us"] -
                   wfbp_plain["policies"][0]["communication_us"], 800.0))
# The same overheads measured in the trace apply unless the scenario sets them (0 turns off).
with tempfile.TemporaryDirectory() as folder:
    measured = json.load(open(TRACE, encoding="utf-8"))
    measured["framework_overheads"] = {"wrapper": "ddp", "backend": "gloo", "iteration_us": 300,
                                       "message_us": 200}
    measured_trace = os.path.join(folder, "measured.json")
    json.dump(measured, open(measured_trace, "w", encoding="utf-8"))
    from_trace = run(dict(edited(communication=wfbp), trace=measured_trace))
    CHECKS.check("measured overheads from the trace",
                 close(from_trace["policies"][0]["iteration_us"],
                       run(edited(communication=dict(wfbp, framework_overhead_us=200),
                                  compute={"framework_overhead_us": 300}))
                       ["policies"][0]["iteration_us"]))
    switched_off = run(dict(edited(communication=dict(wfbp, framework_overhead_us=0),
                                   compute={"framework_overhead_us": 0}), trace=measured_trace))
    CHECKS.check("scenario keys override the trace's overheads",
                 close(switched_off["policies"][0]["iteration_us"],
                       wfbp_plain["policies"][0]["iteration_us"]))
sys.exit(CHECKS.finish())
