// Tests for collectives/nccl_tuning.hpp and its use by the ring and tree closed forms.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "printers.hpp"
#include "sgdsim/collectives/double_binary_tree.hpp"
#include "sgdsim/collectives/protocol_choice.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

CollectiveContext with_protocol(const ClusterShape& shape, NcclProtocol protocol) {
  CollectiveContext context = test::full_context(shape);
  context.protocol = protocol;
  return context;
}

ClusterShape one_node_of_8() {
  ClusterShape shape;
  shape.gpus = 8;
  shape.gpus_per_node = 8;
  shape.intra_node = {Bandwidth::from_gbps(2400.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(100.0), Time::from_us(5.0)};
  return shape;
}

}  // namespace

TEST_CASE("the table gives NCCL's base and per-step latencies and protocol efficiency") {
  const NcclCost ring_simple_net =
      nccl_cost(NcclAlgorithm::ring, NcclProtocol::simple, HardwareClass::network);
  CHECK(ring_simple_net.base_latency == Time::from_us(8.4));
  CHECK(ring_simple_net.step_latency == Time::from_us(9.6));
  CHECK(ring_simple_net.efficiency == 1.0);
  CHECK(nccl_cost(NcclAlgorithm::tree, NcclProtocol::ll, HardwareClass::nvlink).step_latency ==
        Time::from_us(0.52));
  CHECK(nccl_cost(NcclAlgorithm::ring, NcclProtocol::ll128, HardwareClass::pci).efficiency ==
        doctest::Approx(0.9375));
}

TEST_CASE("a ring in one NVLink node under the Simple protocol, by hand") {
  const RingAllreduce ring =
      RingAllreduce::on(with_protocol(one_node_of_8(), NcclProtocol::simple));
  // 8.4 us base + 2*7 steps x 3.4 us (NVLink) + 1.75 x 24 MB at 2400 Gbps (1.75 x 80 us):
  // 8.4 + 47.6 + 140 = 196 us.
  CHECK(ring.time(Bytes(24'000'000)).us() == doctest::Approx(8.4 + 14 * 3.4 + 140.0));
}

TEST_CASE("LL halves the bandwidth and cuts the latency") {
  const RingAllreduce simple =
      RingAllreduce::on(with_protocol(one_node_of_8(), NcclProtocol::simple));
  const RingAllreduce ll = RingAllreduce::on(with_protocol(one_node_of_8(), NcclProtocol::ll));
  // Small message: LL's 3.6 + 14 x 0.47 us beats Simple's 8.4 + 14 x 3.4 us.
  CHECK(ll.time(Bytes(1024)) < simple.time(Bytes(1024)));
  // Large message: LL moves half the data per second, so its bandwidth term is twice
  // Simple's (1.75 x 1 GB at 1,200 against 2,400 Gbit/s: 11,666.7 us against 5,833.3 us), and
  // the times differ by the latencies alone: (3.6 + 14 x 0.47) - 2 x (8.4 + 14 x 3.4) =
  // 10.18 - 112 = -101.82 us.
  CHECK(ll.time(Bytes(1'000'000'000)).us() ==
        doctest::Approx(2.0 * simple.time(Bytes(1'000'000'000)).us() - 101.82));
}

// 8 nodes of 8 NVLink GPUs behind one 100 Gb NIC each.
ClusterShape eight_nodes_of_8() {
  ClusterShape shape = one_node_of_8();
  shape.gpus = 64;
  return shape;
}

TEST_CASE("across nodes a ring's steps take the row of the hop they cross, as NCCL counts them") {
  const RingAllreduce ll = RingAllreduce::on(with_protocol(eight_nodes_of_8(), NcclProtocol::ll));
  // NCCL's tuning model: base + 2(nNodes-1) network steps + the other 2(N-1) - 2(nNodes-1)
  // steps at the NVLink latency: 3.6 + 14 x 2.7 + 112 x 0.47 = 94.04 us (LL), against
  // 3.6 + 126 x 2.7 = 343.8 us if every step waited for the network.
  CHECK(ll.linear_cost().startup == Time::from_us(3.6 + 14 * 2.7 + 112 * 0.47));
  const RingAllreduce simple =
      RingAllreduce::on(with_protocol(eight_nodes_of_8(), NcclProtocol::simple));
  CHECK(simple.linear_cost().startup == Time::from_us(8.4 + 14 * 9.6 + 112 * 3.4));
}

TEST_CASE("auto takes NCCL's fastest protocol for each message size") {
  std::vector<std::pair<NcclProtocol, CollectivePtr>> candidates;
  for (NcclProtocol protocol : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    candidates.emplace_back(protocol, std::make_unique<RingAllreduce>(RingAllreduce::on(
                                          with_protocol(eight_nodes_of_8(), protocol))));
  }
  const ProtocolChoice choice(std::move(candidates));
  // Startups (as above): LL 94.04 us, LL128 10 + 14 x 4.0 + 112 x 1.9 = 278.8 us, Simple
  // 523.6 us. Slopes: 2(63/64) x 0.08 ns/byte (100 Gb NIC) = 0.1575 ns/byte over the protocol's
  // efficiency: LL 0.315, LL128 0.168, Simple 0.1575. LL gives way to LL128 at
  // 184.76 us / 0.147 ns = 1.257 MB, LL128 to Simple at 244.8 us / 0.0105 ns = 23.3 MB.
  CHECK(choice.chosen(Bytes(1'200'000)) == NcclProtocol::ll);
  CHECK(choice.chosen(Bytes(1'300'000)) == NcclProtocol::ll128);
  CHECK(choice.chosen(Bytes(23'000'000)) == NcclProtocol::ll128);
  CHECK(choice.chosen(Bytes(23'600'000)) == NcclProtocol::simple);
  CHECK(choice.time(Bytes(1'000'000)).us() == doctest::Approx(94.04 + 0.315 * 1000.0));
  CHECK(choice.time(Bytes(100'000'000)).us() == doctest::Approx(523.6 + 0.1575 * 100'000.0));
  // Merge policies get the secant from one byte (LL) to 64 MiB (Simple).
  const double slope = (523.6 + 0.1575 * 67'108.864 - (94.04 + 0.315e-3)) / 67'108'863.0;
  CHECK(choice.linear_cost().ps_per_byte == test::relative(slope * 1e6, 1e-6));
}

TEST_CASE("across nodes the tree takes the network row of the table") {
  ClusterShape shape = one_node_of_8();
  shape.gpus = 32;
  shape.gpus_per_node = 8;
  shape.nic_per_gpu = true;
  const DoubleBinaryTree tree(with_protocol(shape, NcclProtocol::ll128));
  // Base 4.4 us; with one chunk the startup is the slowest leaf-to-root path, up and down, each
  // hop at its row: rank 8's path 8 -> 9 -> 11 (inside node 1, NVLink LL128 1.2 us), 11 -> 7,
  // 7 -> 15, 15 -> 31 (three node crossings, network LL128 8.5 us): 2 x 1.2 + 3 x 8.5 = 27.9 us.
  // (Every one of the 5 levels at the network row would give 2 x 42.5 us.)
  CHECK(tree.depth() == 5);
  CHECK(tree.linear_cost().startup == Time::from_us(4.4) + Time::from_us(27.9) * 2);
}

TEST_CASE("a protocol for another algorithm, or under flow fidelity, is refused") {
  auto error_of = [](const std::string& text) {
    return test::input_error_of(
        [&] { read_scenario(jsonio::parse_text(text, "n.json"), SGDSIM_TEST_DATA); });
  };
  CHECK(
      error_of(
          R"({"trace": "four_layers.json", "cluster": {"gpus": 8}, "network": {"bandwidth_gbps": 10},
      "communication": {"collective": {"algorithm": "hierarchical", "nccl_protocol": "ll"}}})") ==
      "n.json: communication.collective.nccl_protocol: unknown key; allowed here: algorithm, "
      "chunks");
  CHECK(
      error_of(
          R"({"trace": "four_layers.json", "cluster": {"gpus": 8}, "network": {"bandwidth_gbps": 10},
      "communication": {"collective": {"nccl_protocol": "simple"}}, "fidelity": "flow"})") ==
      "n.json: fidelity: expected \"analytic\" or \"per_rank\" (the NCCL latency table prices "
      "closed forms; flow fidelity times the transfers themselves), found \"flow\"");
}
