// Cluster construction and routing. Each NIC link carries half the network latency, so a message
// between nodes crosses two of them and sees latency_us (plus the intra-node latency of its GPU
// links); switch-to-switch links add no latency.
#include "sgdsim/topology/topology.hpp"

#include <algorithm>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

LinkSpec half_latency(LinkSpec link) {
  return LinkSpec{link.bandwidth, Time::from_ps(link.latency.ps() / 2)};
}

}  // namespace

Topology::Topology(const ClusterShape& shape, int built_nodes, int built_servers) : shape_(shape) {
  SGDSIM_ASSERT(shape.gpus > 0 && shape.gpus_per_node > 0, "cluster without GPUs");
  SGDSIM_ASSERT(shape.gpus % shape.gpus_per_node == 0, "GPUs not divisible into nodes");
  SGDSIM_ASSERT(shape.oversubscription >= 1.0, "oversubscription below 1");
  Graph& graph = graph_;
  const bool fat_tree = shape.leaf_nodes > 0;
  // Where NICs attach: the top switch, or each node's leaf switch under one spine.
  const Vertex core = boost::add_vertex(
      VertexProperties{fat_tree ? VertexKind::spine : VertexKind::top_switch, 0}, graph);
  std::vector<Vertex> leaves;
  auto first_switch = [&](int node) {
    if (!fat_tree) return core;
    const auto leaf = static_cast<std::size_t>(node / shape.leaf_nodes);
    while (leaves.size() <= leaf) {
      const Vertex added = boost::add_vertex(
          VertexProperties{VertexKind::leaf_switch, static_cast<int>(leaves.size())}, graph);
      const double nics = shape.leaf_nodes * (shape.nic_per_gpu ? shape.gpus_per_node : 1);
      const Bandwidth uplink = Bandwidth::from_bits_per_second(
          nics * shape.network.bandwidth.bits_per_second() / shape.oversubscription);
      boost::add_edge(added, core, EdgeProperties{LinkSpec{uplink, Time::zero()}}, graph);
      leaves.push_back(added);
    }
    return leaves[leaf];
  };
  std::vector<Vertex> hosts;  // where a co-located server of each node attaches
  for (int node = 0; node < built_nodes; ++node) {
    const Vertex node_switch =
        boost::add_vertex(VertexProperties{VertexKind::node_switch, node}, graph);
    const Vertex uplink = first_switch(node);
    if (!shape.nic_per_gpu) {
      boost::add_edge(node_switch, uplink, EdgeProperties{half_latency(shape.network)}, graph);
    }
    hosts.push_back(node_switch);
    for (int local = 0; local < shape.gpus_per_node; ++local) {
      const int rank = node * shape.gpus_per_node + local;
      const Vertex gpu = boost::add_vertex(VertexProperties{VertexKind::gpu, rank}, graph);
      // The node switch edge first: breadth-first search then keeps intra-node traffic inside.
      boost::add_edge(gpu, node_switch, EdgeProperties{half_latency(shape.intra_node)}, graph);
      if (shape.nic_per_gpu) {
        boost::add_edge(gpu, uplink, EdgeProperties{half_latency(shape.network)}, graph);
        if (local == 0) hosts.back() = gpu;  // a co-located server shares GPU 0's NIC
      }
      gpus_.push_back(gpu);
    }
  }
  for (int index = 0; index < built_servers; ++index) {
    const Vertex server = boost::add_vertex(VertexProperties{VertexKind::server, index}, graph);
    if (shape.server_placement == ServerPlacement::dedicated) {
      boost::add_edge(server, core, EdgeProperties{half_latency(shape.server_link)}, graph);
    } else {
      // Co-located servers are spread over the nodes round-robin and share a NIC there.
      const Vertex host = hosts[static_cast<std::size_t>(index % built_nodes)];
      boost::add_edge(server, host, EdgeProperties{half_latency(shape.intra_node)}, graph);
    }
    servers_.push_back(server);
  }
}

Topology Topology::build(const ClusterShape& shape) {
  return Topology(shape, shape.nodes(), shape.servers);
}

Topology Topology::build_representative(const ClusterShape& shape) {
  // Two nodes on different leaves (or two nodes under one switch) hold every kind of hop.
  const int wanted = shape.leaf_nodes > 0 ? shape.leaf_nodes + 1 : 2;
  return Topology(shape, std::min(shape.nodes(), wanted), std::min(shape.servers, 1));
}

std::vector<Topology::Edge> Topology::route(Vertex from, Vertex to) const {
  const Vertex unreached = boost::num_vertices(graph_);
  std::vector<Vertex> predecessor(boost::num_vertices(graph_), unreached);
  predecessor[from] = from;
  boost::breadth_first_search(graph_, from,
                              boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                  predecessor.data(), boost::on_tree_edge()))));
  std::vector<Edge> edges;
  SGDSIM_ASSERT(predecessor[to] != unreached, "no route between two vertices");
  for (Vertex at = to; at != from; at = predecessor[at]) {
    const auto [edge, found] = boost::edge(predecessor[at], at, graph_);
    SGDSIM_ASSERT(found, "route through a missing link");
    edges.push_back(edge);
  }
  std::reverse(edges.begin(), edges.end());
  return edges;
}

PathModel path_model(const Topology& topology, const std::vector<Topology::Edge>& route) {
  PathModel model{Time::zero(), Bandwidth::from_gbps(1e12)};
  for (const Topology::Edge& edge : route) {
    const LinkSpec& link = topology.graph()[edge].link;
    model.latency += link.latency;
    model.bandwidth = std::min(model.bandwidth, link.bandwidth);
  }
  return model;
}

}  // namespace sgdsim
