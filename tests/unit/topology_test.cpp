// Tests for topology/topology.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/topology/topology.hpp"

using namespace sgdsim;

namespace {

ClusterShape two_nodes_of_four() {
  ClusterShape shape;
  shape.gpus = 8;
  shape.gpus_per_node = 4;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(25.0)};
  return shape;
}

}  // namespace

TEST_CASE("a cluster of 2 nodes x 4 GPUs has 8 GPUs, 2 node switches and a top switch") {
  const Topology topology = Topology::build(two_nodes_of_four());
  CHECK(boost::num_vertices(topology.graph()) == 11);  // 8 + 2 + 1
  CHECK(boost::num_edges(topology.graph()) == 10);     // 8 GPU links + 2 NIC links
  CHECK(topology.nodes() == 2);
}

TEST_CASE("a route inside a node crosses two GPU links and sees the intra-node latency") {
  const Topology topology = Topology::build(two_nodes_of_four());
  const auto route = topology.route(topology.gpu(0), topology.gpu(1));
  CHECK(route.size() == 2);
  const PathModel path = path_model(topology, route);
  CHECK(path.latency == Time::from_us(1.0));  // two halves of 1 us
  CHECK(path.bandwidth.gbps() == doctest::Approx(256.0));
}

TEST_CASE("a route between nodes crosses both NICs: network plus intra-node latency") {
  const Topology topology = Topology::build(two_nodes_of_four());
  const auto route = topology.route(topology.gpu(3), topology.gpu(4));
  CHECK(route.size() == 4);
  const PathModel path = path_model(topology, route);
  CHECK(path.latency == Time::from_us(26.0));  // 25 us network + 1 us inside the nodes
  CHECK(path.bandwidth.gbps() == doctest::Approx(10.0));
}

TEST_CASE("co-located servers sit inside worker nodes, dedicated ones on the top switch") {
  ClusterShape shape = two_nodes_of_four();
  shape.servers = 2;
  shape.server_link = shape.network;
  shape.server_placement = ServerPlacement::colocated;
  const Topology colocated = Topology::build(shape);
  CHECK(colocated.route(colocated.gpu(0), colocated.server(0)).size() == 2);  // same node
  CHECK(colocated.route(colocated.gpu(0), colocated.server(1)).size() == 4);  // node 1
  shape.server_placement = ServerPlacement::dedicated;
  const Topology dedicated = Topology::build(shape);
  CHECK(dedicated.route(dedicated.gpu(0), dedicated.server(0)).size() == 3);
}
