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

namespace {

// The closed-form route from `from` to `to` is the breadth-first search's, link for link.
void check_route(const Topology& topology, Topology::Vertex from, Topology::Vertex to) {
  const auto closed = topology.route(from, to);
  const auto searched = topology.searched_route(from, to);
  REQUIRE(closed.size() == searched.size());
  for (std::size_t i = 0; i < closed.size(); ++i) {
    CHECK(topology.graph()[closed[i]].id == topology.graph()[searched[i]].id);
  }
}

}  // namespace

TEST_CASE("routes between GPUs and to servers in closed form are the breadth-first search's") {
  // Every kind of cluster the routes distinguish: one NIC per node or per GPU, a single switch
  // or a fat-tree (several nodes per leaf, the last leaf partly filled), servers co-located
  // (more servers than nodes: two on some nodes) or dedicated.
  for (const bool nic_per_gpu : {false, true}) {
    for (const int leaf_nodes : {0, 2, 3}) {
      for (const ServerPlacement placement :
           {ServerPlacement::colocated, ServerPlacement::dedicated}) {
        ClusterShape shape = two_nodes_of_four();
        shape.gpus = 28;  // 7 nodes of 4: leaves of 3 nodes leave one node on the last leaf
        shape.nic_per_gpu = nic_per_gpu;
        shape.leaf_nodes = leaf_nodes;
        shape.oversubscription = 2.0;
        shape.servers = 9;
        shape.server_link = shape.network;
        shape.server_placement = placement;
        const Topology topology = Topology::build(shape);
        for (int a = 0; a < shape.gpus; ++a) {
          for (int b = 0; b < shape.gpus; ++b)
            check_route(topology, topology.gpu(a), topology.gpu(b));
          for (int s = 0; s < shape.servers; ++s) {
            check_route(topology, topology.gpu(a), topology.server(s));
            check_route(topology, topology.server(s), topology.gpu(a));
          }
        }
        // Where BytePS pushes from (host memory, the node's switch) with one NIC a node.
        if (nic_per_gpu) continue;
        for (int node = 0; node < shape.nodes(); ++node) {
          for (int s = 0; s < shape.servers; ++s) {
            check_route(topology, topology.node_switch(node), topology.server(s));
            check_route(topology, topology.server(s), topology.node_switch(node));
          }
        }
      }
    }
  }
}
