// Tests for scenario/node_range.hpp.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/node_range.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"

using namespace sgdsim;

namespace {

ScenarioResult run_text(const std::string& text) {
  return run_scenario(read_scenario(jsonio::parse_text(text, "s.json"), SGDSIM_TEST_DATA));
}

}  // namespace

TEST_CASE("a scenario with 4 GPUs per node and no node: the 4-GPU presets bound it") {
  // A fast network, so that the link inside a node sets the ring: four_layers.json on two nodes.
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "gpus_per_node": 4}, "network": {"bandwidth_gbps": 1000}})");
  const auto range = unstated_node_range(result);
  REQUIRE(range);
  CHECK(range->gpus_per_node == 4);
  // pcie3_4gpu, pcie4_4gpu, pcie3_2socket_4gpu, geforce_pcie3_4gpu, geforce_pcie3_2socket_4gpu,
  // geforce_pcie4_4gpu
  CHECK(range->presets.size() == 6);
  // Slowest: four GeForce cards under one PCIe 3.0 switch without P2P: every ring step goes
  // through host memory over the switch's 12 GB/s uplink, and its way down carries the four
  // receivers' reads of host memory, each charged 52.77 / 35.19: 12 / 5.998 = 2.0006 GB/s,
  // 16.005 Gbit/s; fastest: a PCIe 4.0 switch with P2P, 24 GB/s
  // (tests/unit/node_topology_test.cpp).
  CHECK(range->low_gbps == doctest::Approx(12.0 / (4 * 52.77 / 35.19) * 8));
  CHECK(range->low_preset == "geforce_pcie3_4gpu");
  CHECK(range->high_gbps == doctest::Approx(192.0));
  CHECK(range->assumed_gbps == doctest::Approx(256.0));
  // A slower node cannot make an iteration faster, and the ring here is the node's.
  CHECK(range->fastest_low > range->fastest_high);
  CHECK(range->fastest_high >= range->fastest_assumed);
}

TEST_CASE("no range where the node is stated or there is none to state") {
  CHECK_FALSE(unstated_node_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "pcie3_4gpu"}, "network": {"bandwidth_gbps": 10}})")));
  CHECK_FALSE(unstated_node_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "gpus_per_node": 4, "intra_node_bandwidth_gbps": 100},
    "network": {"bandwidth_gbps": 10}})")));
  CHECK_FALSE(unstated_node_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8}, "network": {"bandwidth_gbps": 10}})")));  // one GPU per node
  // No preset has 2 GPUs.
  CHECK_FALSE(unstated_node_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "gpus_per_node": 2}, "network": {"bandwidth_gbps": 10}})")));
}

TEST_CASE("a node that copies through host memory: the range over the GPUs' read rates") {
  // Four GeForce cards under one PCIe 3.0 switch: no P2P, no GPUDirect RDMA. The switch's
  // uplink carries down the four receivers' reads of host memory; up, the four steps charged
  // 6/5 through the Intel host bridge (2.5 GB/s). Reads at a fraction e of the writes charge
  // max(6/5, 1/e) per step: at the default e = 35.19 / 52.77, 12 / (4 x 1.4996) = 2.0006 GB/s,
  // 16.005 Gbit/s; at e = 0.5, 12 / 8 = 1.5 GB/s, 12 Gbit/s; at e = 1 the 6/5 binds: 20 Gbit/s.
  // The node names no NIC, but any NIC's traffic is read from host memory over a GPU's 12 GB/s
  // path: 12 e x 8 = 64.02, 48 and 96 Gbit/s, below the 1,000 Gbit/s network.
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_4gpu"}, "network": {"bandwidth_gbps": 1000}})");
  const auto range = unstated_host_read_range(result);
  REQUIRE(range);
  const double e = 35.19 / 52.77;
  CHECK(range->assumed == doctest::Approx(e));
  CHECK(range->low == doctest::Approx(0.5));
  CHECK(range->high == doctest::Approx(1.0));
  CHECK(range->intra_gbps == doctest::Approx(12.0 / (4 / e) * 8));
  CHECK(range->intra_low_gbps == doctest::Approx(12.0));
  CHECK(range->intra_high_gbps == doctest::Approx(20.0));
  CHECK(range->network_gbps == doctest::Approx(12.0 * e * 8));
  CHECK(range->network_low_gbps == doctest::Approx(48.0));
  CHECK(range->network_high_gbps == doctest::Approx(96.0));
  // Slower links cannot make an iteration faster.
  CHECK(range->fastest_low >= range->fastest_assumed);
  CHECK(range->fastest_assumed >= range->fastest_high);
  CHECK(host_read_range_note(*range).find("cluster.host_read_efficiency") != std::string::npos);
  // Stated, the reads set the node as given, and there is no range: at 1, NCCL's own pricing.
  const ScenarioResult stated = run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_4gpu", "host_read_efficiency": 1},
    "network": {"bandwidth_gbps": 1000}})");
  CHECK(stated.config.intra_node.bandwidth.gbps() == doctest::Approx(20.0));
  CHECK(stated.config.network.link.bandwidth.gbps() == doctest::Approx(96.0));
  CHECK_FALSE(unstated_host_read_range(stated));
  // Only the latency inside a node given: the rings still set its bandwidth, and move.
  const ScenarioResult latency = run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_4gpu", "intra_node_latency_us": 2},
    "network": {"bandwidth_gbps": 1000}})");
  const auto moved = unstated_host_read_range(latency);
  REQUIRE(moved);
  CHECK(moved->intra_low_gbps == doctest::Approx(12.0));
  CHECK(moved->intra_high_gbps == doctest::Approx(20.0));
  // The intra-node link given, BytePS on TCP over four machines: its NICs send from host memory
  // and receive into it themselves, and its GPUs' copies there cross the switch's one uplink at
  // its 12 GB/s (96 Gbit/s, host_copy_gbps) whatever the GPUs' kernels read: the line, 100 x
  // 1448 / 1538 = 94.15, stays under it, and one connection per server, 16.48 Gbit/s (NVIDIA/
  // nccl #209), is the worker's link. Nothing the reads set moves: no range (a ring over the
  // same node, above, has one).
  const ScenarioResult byteps = run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "node": "geforce_pcie3_4gpu", "intra_node_bandwidth_gbps": 100},
    "network": {"bandwidth_gbps": 100, "transport": "tcp"},
    "communication": {"collective": {"algorithm": "byteps", "servers": 1},
                      "merge": {"policy": "mgwfbp"}}})");
  CHECK(byteps.config.network.link.bandwidth.gbps() == doctest::Approx(16.48));
  CHECK_FALSE(unstated_host_read_range(byteps));
  // A node with P2P and GPUDirect RDMA copies nothing through host memory: no range.
  CHECK_FALSE(unstated_host_read_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "pcie3_4gpu"}, "network": {"bandwidth_gbps": 1000}})")));
  // Two Broadwell sockets without P2P: QPI's 6 GB/s binds at every read rate above 0.5 (12 x
  // 0.5 = 6), and the 10 Gbit/s network is below any GPU's reads: nothing moves, no range.
  CHECK_FALSE(unstated_host_read_range(run_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_2socket_4gpu"},
    "network": {"bandwidth_gbps": 10}})")));
}

TEST_CASE("compute slowed beside communication: the range is the scenario at 1 and 1.40") {
  // The four-layer trace's WFBP messages overlap its backward on two GPUs at 4 Mbit/s (1,000
  // bytes take 2 ms), so slowing backward while they are in flight moves the iteration. Run at
  // the default 1.189 (Lee et al.'s average), the range's ends are the scenario itself with
  // compute.overlap_slowdown at 1 (full speed) and 1.40 (their maximum).
  const std::string base = R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 0.004, "latency_us": 0},
    "communication": {"merge": {"policy": "none"}}, "compute": {)";
  const ScenarioResult result = run_text(base + "}}");
  const auto range = unstated_overlap_range(result);
  REQUIRE(range);
  CHECK(range->assumed == 1.189);
  CHECK(range->low == 1.0);
  CHECK(range->high == 1.40);
  const auto iteration = [&](const std::string& slowdown) {
    return run_text(base + R"("overlap_slowdown": )" + slowdown + "}}")
        .outcomes.front()
        .simulation.mean_iteration();
  };
  CHECK(range->fastest_assumed == result.outcomes.front().simulation.mean_iteration());
  CHECK(range->fastest_assumed == iteration("1.189"));
  CHECK(range->fastest_low == iteration("1"));
  CHECK(range->fastest_high == iteration("1.40"));
  CHECK(range->fastest_high > range->fastest_assumed);
  CHECK(range->fastest_assumed > range->fastest_low);
  CHECK(overlap_range_note(*range).find("compute.overlap_slowdown") != std::string::npos);
  // Stated, even as 1: no range; nor at per_rank fidelity, where two more runs cost too much.
  CHECK_FALSE(unstated_overlap_range(run_text(base + R"("overlap_slowdown": 1}})")));
  CHECK_FALSE(
      unstated_overlap_range(run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
        "network": {"bandwidth_gbps": 0.004, "latency_us": 0}, "fidelity": "per_rank",
        "communication": {"merge": {"policy": "none"}}})")));
}

TEST_CASE("two unstated facts: the range of both at their faster ends, then their slower ones") {
  // ResNet-50 (estimated V100 trace) on four GeForce cards of one node: the rings go through host
  // memory (the GPUs' read rate of it unstated) and NCCL's kernels slow compute beside them (the
  // slowdown unstated). The combined range's ends are the scenario with both facts stated at
  // once: reads at the writes' rate and compute at full speed; reads at half and 1.40.
  const std::string base = R"({"trace": "../../traces/resnet50_b32_v100_estimated.json",
    "cluster": {"gpus": 4, "node": "geforce_pcie3_4gpu")";
  const std::string merge = R"(, "communication": {"merge": {"policy": "none"}})";
  ScenarioResult result = run_text(base + "}" + merge + "}");
  result.host_read_range = unstated_host_read_range(result);
  result.overlap_range = unstated_overlap_range(result);
  REQUIRE(result.host_read_range);
  REQUIRE(result.overlap_range);
  const auto combined = unstated_combined_range(result);
  REQUIRE(combined);
  CHECK(combined->facts ==
        std::vector<std::string>{"cluster.host_read_efficiency", "compute.overlap_slowdown"});
  const auto iteration = [&](const char* reads, const char* slowdown) {
    return run_text(base + R"(, "host_read_efficiency": )" + reads + "}" + merge +
                    R"(, "compute": {"overlap_slowdown": )" + slowdown + "}}")
        .outcomes.front()
        .simulation.mean_iteration();
  };
  CHECK(combined->fastest_assumed == result.outcomes.front().simulation.mean_iteration());
  CHECK(combined->fastest_low == iteration("1", "1"));
  CHECK(combined->fastest_high == iteration("0.5", "1.40"));
  // Wider than either fact's own range on both sides.
  CHECK(combined->fastest_low <
        std::min(result.host_read_range->fastest_high, result.overlap_range->fastest_low));
  CHECK(combined->fastest_high >
        std::max(result.host_read_range->fastest_low, result.overlap_range->fastest_high));
  CHECK(combined_range_note(*combined).find("at their faster ends together") != std::string::npos);
  // One unstated fact alone has its own range and no combined one.
  result.overlap_range.reset();
  CHECK_FALSE(unstated_combined_range(result));
}

TEST_CASE("BytePS's groups on a GeForce node: their rings' reads of host memory are a range") {
  // geforce_pcie3_2socket_8gpu: no P2P, so even a group of 4 under its socket rings through host
  // memory, at the GPUs' unstated read rate. The scenario states the whole machine's intra-node
  // link (30 Gbit/s), which the groups do not use (the run says so): the range still comes,
  // from the groups' rings, its ends the scenario run with the reads stated at 0.5 and at 1 (a
  // slower and a faster iteration). With one group the stated link is the rings', and nothing
  // the node's reads move is left.
  const auto read = [](int pcie_switch_size, const char* reads = nullptr) {
    return run_text(fmt::format(
        R"({{"trace": "../../traces/resnet50_b32_v100_estimated.json", "cluster": {{"gpus": 8,
          "node": "geforce_pcie3_2socket_8gpu", "intra_node_bandwidth_gbps": 30{}}},
          "iterations": 2, "communication": {{"merge": {{"policy": "all"}},
          "collective": {{"algorithm": "byteps", "servers": 1, "pcie_switch_size": {}}}}}}})",
        reads != nullptr ? fmt::format(R"(, "host_read_efficiency": {})", reads) : "",
        pcie_switch_size));
  };
  const auto iteration = [&](const char* reads) {
    return read(4, reads).outcomes.front().simulation.mean_iteration();
  };
  const ScenarioResult grouped = read(4);
  const auto range = unstated_host_read_range(grouped);
  REQUIRE(range);
  CHECK(range->fastest_low == iteration("0.5"));
  CHECK(range->fastest_high == iteration("1"));
  CHECK(range->fastest_high < range->fastest_assumed);
  CHECK(range->fastest_assumed < range->fastest_low);
  const auto& notes = grouped.config.notes;
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find(
               "the intra-node link stated for the whole machine (30.0 Gbit/s) is not "
               "theirs") != std::string::npos;
  }));
  CHECK_FALSE(unstated_host_read_range(read(8)));
}
