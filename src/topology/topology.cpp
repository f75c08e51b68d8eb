// Cluster construction and routing. Each inter-node hop splits the network latency over the two
// NIC links it crosses, so a GPU-to-GPU message between nodes sees latency_us (plus the
// intra-node latency of its two GPU links).
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

Topology Topology::build(const ClusterShape& shape) {
  SGDSIM_ASSERT(shape.gpus > 0 && shape.gpus_per_node > 0, "cluster without GPUs");
  SGDSIM_ASSERT(shape.gpus % shape.gpus_per_node == 0, "GPUs not divisible into nodes");
  Topology topology(shape);
  Graph& graph = topology.graph_;
  const Vertex top = boost::add_vertex(VertexProperties{VertexKind::top_switch, 0}, graph);
  std::vector<Vertex> node_switches;
  for (int node = 0; node < topology.nodes(); ++node) {
    const Vertex node_switch =
        boost::add_vertex(VertexProperties{VertexKind::node_switch, node}, graph);
    boost::add_edge(node_switch, top, EdgeProperties{half_latency(shape.network)}, graph);
    node_switches.push_back(node_switch);
    for (int local = 0; local < shape.gpus_per_node; ++local) {
      const int rank = node * shape.gpus_per_node + local;
      const Vertex gpu = boost::add_vertex(VertexProperties{VertexKind::gpu, rank}, graph);
      boost::add_edge(gpu, node_switch, EdgeProperties{half_latency(shape.intra_node)}, graph);
      topology.gpus_.push_back(gpu);
    }
  }
  for (int index = 0; index < shape.servers; ++index) {
    const Vertex server = boost::add_vertex(VertexProperties{VertexKind::server, index}, graph);
    if (shape.server_placement == ServerPlacement::dedicated) {
      boost::add_edge(server, top, EdgeProperties{half_latency(shape.server_link)}, graph);
    } else {
      // Co-located servers are spread over the nodes round-robin and share the node's NIC.
      const Vertex host = node_switches[static_cast<std::size_t>(index % topology.nodes())];
      boost::add_edge(server, host, EdgeProperties{half_latency(shape.intra_node)}, graph);
    }
    topology.servers_.push_back(server);
  }
  return topology;
}

std::vector<Topology::Edge> Topology::route(Vertex from, Vertex to) const {
  std::vector<Vertex> predecessor(boost::num_vertices(graph_));
  predecessor[from] = from;
  boost::breadth_first_search(graph_, from,
                              boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                  predecessor.data(), boost::on_tree_edge()))));
  std::vector<Edge> edges;
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
