// Tests for scenario/node_range.hpp.
#include <doctest/doctest.h>

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
