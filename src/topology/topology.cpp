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
  core_ = core;
  std::vector<Vertex> leaves;
  auto first_switch = [&](int node) {
    if (!fat_tree) return core;
    const auto leaf = static_cast<std::size_t>(node / shape.leaf_nodes);
    while (leaves.size() <= leaf) {
      const Vertex added = boost::add_vertex(
          VertexProperties{VertexKind::leaf_switch, static_cast<int>(leaves.size())}, graph);
      const double nics = shape.leaf_nodes * (shape.nic_per_gpu ? shape.gpus_per_node : 1);
      const Bandwidth uplink = Bandwidth::from_bits_per_second(
          nics * shape.fabric_bandwidth().bits_per_second() / shape.oversubscription);
      link(added, core, LinkSpec{uplink, Time::zero()});
      leaves.push_back(added);
    }
    return leaves[leaf];
  };
  std::vector<Vertex> hosts;  // where a co-located server of each node attaches
  for (int node = 0; node < built_nodes; ++node) {
    const Vertex node_switch =
        boost::add_vertex(VertexProperties{VertexKind::node_switch, node}, graph);
    const Vertex uplink = first_switch(node);
    node_switches_.push_back(node_switch);
    first_switches_.push_back(uplink);
    if (!shape.nic_per_gpu) link(node_switch, uplink, half_latency(shape.network));
    hosts.push_back(node_switch);
    for (int local = 0; local < shape.gpus_per_node; ++local) {
      const int rank = node * shape.gpus_per_node + local;
      const Vertex gpu = boost::add_vertex(VertexProperties{VertexKind::gpu, rank}, graph);
      // The node switch edge first: breadth-first search then keeps intra-node traffic inside.
      link(gpu, node_switch, half_latency(shape.intra_node));
      if (shape.nic_per_gpu) {
        link(gpu, uplink, half_latency(shape.network));
        if (local == 0) hosts.back() = gpu;  // a co-located server shares GPU 0's NIC
      }
      gpus_.push_back(gpu);
    }
  }
  for (int index = 0; index < built_servers; ++index) {
    const Vertex server = boost::add_vertex(VertexProperties{VertexKind::server, index}, graph);
    if (shape.server_placement == ServerPlacement::dedicated) {
      link(server, core, half_latency(shape.server_link));
      server_hosts_.push_back(core);
    } else {
      // Co-located servers are spread over the nodes round-robin and share a NIC there.
      const Vertex host = hosts[static_cast<std::size_t>(index % built_nodes)];
      const LinkSpec host_link{shape.colocated_server.bits_per_second() > 0.0
                                   ? shape.colocated_server
                                   : shape.intra_node.bandwidth,
                               shape.intra_node.latency};
      link(server, host, half_latency(host_link));
      server_hosts_.push_back(host);
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

void Topology::link(Vertex a, Vertex b, LinkSpec spec) {
  boost::add_edge(a, b, EdgeProperties{spec, static_cast<int>(boost::num_edges(graph_))}, graph_);
}

// Looked up from `a`'s side: give the vertex with the fewer links first (a GPU, not a switch).
Topology::Edge Topology::edge_between(Vertex a, Vertex b) const {
  const auto [edge, found] = boost::edge(a, b, graph_);
  SGDSIM_ASSERT(found, "route through a missing link");
  return edge;
}

void Topology::append_uplink(std::vector<Edge>& route, int rank) const {
  const auto node = static_cast<std::size_t>(rank / shape_.gpus_per_node);
  const Vertex gpu = gpus_[static_cast<std::size_t>(rank)];
  if (shape_.nic_per_gpu) {
    route.push_back(edge_between(gpu, first_switches_[node]));
  } else {
    route.push_back(edge_between(gpu, node_switches_[node]));
    route.push_back(edge_between(node_switches_[node], first_switches_[node]));
  }
}

// The fewest-hop path, which is unique but for one tie that the breadth-first search breaks
// toward the node switch (its link is added first): within a node, through the node switch.
std::vector<Topology::Edge> Topology::gpu_route(int from_rank, int to_rank) const {
  std::vector<Edge> route;
  if (from_rank == to_rank) return route;
  const int from_node = from_rank / shape_.gpus_per_node;
  const int to_node = to_rank / shape_.gpus_per_node;
  const Vertex from = gpus_[static_cast<std::size_t>(from_rank)];
  const Vertex to = gpus_[static_cast<std::size_t>(to_rank)];
  if (from_node == to_node) {
    const Vertex node_switch = node_switches_[static_cast<std::size_t>(from_node)];
    route.push_back(edge_between(from, node_switch));
    route.push_back(edge_between(to, node_switch));
    return route;
  }
  append_uplink(route, from_rank);
  const Vertex from_first = first_switches_[static_cast<std::size_t>(from_node)];
  const Vertex to_first = first_switches_[static_cast<std::size_t>(to_node)];
  if (from_first != to_first) {  // different leaves: up to the spine and down
    route.push_back(edge_between(from_first, core_));
    route.push_back(edge_between(to_first, core_));
  }
  std::vector<Edge> down;
  append_uplink(down, to_rank);
  route.insert(route.end(), down.rbegin(), down.rend());
  return route;
}

// A server has one link, to its host: the top switch or spine (dedicated), a node's switch, or
// with a NIC per GPU the node's GPU 0 (co-located). Every fewest-hop path to it ends with the
// path to its host, and there the breadth-first search's one tie (within a node, through the
// node switch) falls the same way from either end.
std::vector<Topology::Edge> Topology::server_route(int rank, int index) const {
  const Vertex server = servers_[static_cast<std::size_t>(index)];
  const Vertex host = server_hosts_[static_cast<std::size_t>(index)];
  const auto& host_vertex = graph_[host];
  std::vector<Edge> route;
  if (host_vertex.kind == VertexKind::gpu) {
    route = gpu_route(rank, host_vertex.index);
  } else if (host_vertex.kind == VertexKind::node_switch) {
    const int node = host_vertex.index;
    if (rank / shape_.gpus_per_node == node) {
      route.push_back(edge_between(gpus_[static_cast<std::size_t>(rank)], host));
    } else {
      // Up from the GPU's node, across the core if the leaves differ, down to the host's switch.
      append_uplink(route, rank);
      const Vertex from_first =
          first_switches_[static_cast<std::size_t>(rank / shape_.gpus_per_node)];
      const Vertex to_first = first_switches_[static_cast<std::size_t>(node)];
      if (from_first != to_first) {
        route.push_back(edge_between(from_first, core_));
        route.push_back(edge_between(to_first, core_));
      }
      route.push_back(edge_between(host, to_first));
    }
  } else {  // the core
    append_uplink(route, rank);
    const Vertex first = first_switches_[static_cast<std::size_t>(rank / shape_.gpus_per_node)];
    if (first != core_) route.push_back(edge_between(first, core_));
  }
  route.push_back(edge_between(server, host));
  return route;
}

std::vector<Topology::Edge> Topology::route(Vertex from, Vertex to) const {
  const auto& from_vertex = graph_[from];
  const auto& to_vertex = graph_[to];
  if (from_vertex.kind == VertexKind::gpu && to_vertex.kind == VertexKind::gpu) {
    return gpu_route(from_vertex.index, to_vertex.index);
  }
  if (from_vertex.kind == VertexKind::gpu && to_vertex.kind == VertexKind::server) {
    return server_route(from_vertex.index, to_vertex.index);
  }
  if (from_vertex.kind == VertexKind::server && to_vertex.kind == VertexKind::gpu) {
    std::vector<Edge> back = server_route(to_vertex.index, from_vertex.index);
    std::reverse(back.begin(), back.end());
    return back;
  }
  // A node's switch to a server with one NIC a node: its first GPU's path, which leaves through
  // that switch, less the GPU's own link.
  const auto host_route = [&](const VertexProperties& host, const VertexProperties& server) {
    const int rank = host.index * shape_.gpus_per_node;
    std::vector<Edge> path = server_route(rank, server.index);
    const Edge own = edge_between(gpus_[static_cast<std::size_t>(rank)],
                                  node_switches_[static_cast<std::size_t>(host.index)]);
    SGDSIM_ASSERT(!path.empty() && path.front() == own,
                  "a GPU's path to a server leaves through its node's switch");
    path.erase(path.begin());
    return path;
  };
  if (!shape_.nic_per_gpu && from_vertex.kind == VertexKind::node_switch &&
      to_vertex.kind == VertexKind::server) {
    return host_route(from_vertex, to_vertex);
  }
  if (!shape_.nic_per_gpu && from_vertex.kind == VertexKind::server &&
      to_vertex.kind == VertexKind::node_switch) {
    std::vector<Edge> back = host_route(to_vertex, from_vertex);
    std::reverse(back.begin(), back.end());
    return back;
  }
  return searched_route(from, to);
}

std::vector<Topology::Edge> Topology::searched_route(Vertex from, Vertex to) const {
  const Vertex unreached = boost::num_vertices(graph_);
  std::vector<Vertex> predecessor(boost::num_vertices(graph_), unreached);
  predecessor[from] = from;
  boost::breadth_first_search(graph_, from,
                              boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                  predecessor.data(), boost::on_tree_edge()))));
  std::vector<Edge> edges;
  SGDSIM_ASSERT(predecessor[to] != unreached, "no route between two vertices");
  for (Vertex at = to; at != from; at = predecessor[at]) {
    edges.push_back(edge_between(predecessor[at], at));
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
