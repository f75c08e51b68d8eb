// The physical cluster as a graph (Boost.Graph). Nodes hold G GPUs joined by an intra-node
// switch (NVLink or PCIe); each node has one NIC, or each GPU its own; NICs attach to a single
// top switch, or to leaf switches of a two-level leaf/spine fat-tree whose leaf-to-spine capacity
// is the leaf's NIC capacity divided by an oversubscription ratio (the spine layer is one
// aggregated vertex: perfect ECMP). Parameter servers sit on their own NIC (dedicated, on the top
// switch or spine) or inside worker nodes (co-located, sharing a NIC). Links are full duplex with
// a bandwidth per direction; routes are fewest-hop paths found by breadth-first search.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

enum class VertexKind : std::uint8_t { gpu, node_switch, top_switch, leaf_switch, spine, server };

struct LinkSpec {
  Bandwidth bandwidth;
  Time latency;  // one-way latency of a message crossing this link
};

enum class ServerPlacement : std::uint8_t { dedicated, colocated };

// The largest cluster sgdsim builds or reads a GPU count for (scenarios, their schema,
// benchmark logs).
inline constexpr std::int64_t max_cluster_gpus = std::int64_t{1} << 20;

// A GPU's link where nothing says otherwise: 256 Gbit/s, a PCIe 4.0 x16 link's 32 GB/s
// (PCI-SIG 4.0: 16 GT/s a lane; scenarios/README.md, "GPU to node-switch link").
inline constexpr double default_gpu_link_gbps = 256.0;

struct ClusterShape {
  int gpus = 1;
  int gpus_per_node = 1;
  bool nic_per_gpu = false;  // false: one NIC per node shared by its GPUs
  LinkSpec intra_node;       // GPU <-> its node's switch
  LinkSpec network;          // NIC <-> first switch: a message between nodes crosses two of these
  // What the NICs carry before a transport's cap per connection (a host's TCP streams limit
  // transfers, not the switches): the fabric's uplinks and, unless given, a dedicated server's
  // link (its connections from every worker) are built from it. Zero: `network.bandwidth`.
  Bandwidth fabric;
  Bandwidth server_default;       // a dedicated server's link unless given; zero: `fabric`
  int leaf_nodes = 0;             // nodes per leaf switch; 0 for a single top switch
  double oversubscription = 1.0;  // leaf downlink capacity / uplink capacity, >= 1
  int servers = 0;                // parameter servers; 0 for collectives among the workers alone
  ServerPlacement server_placement = ServerPlacement::dedicated;
  LinkSpec server_link;  // dedicated server NIC
  // A co-located server's link to its host (where its machine's pushes land); zero: a GPU's
  // link (intra_node), a parameter server's reads through PCIe. BytePS's servers sum in host
  // memory, where its pushes arrive and its machines' own sum already is.
  Bandwidth colocated_server;

  int nodes() const { return gpus / gpus_per_node; }
  Bandwidth fabric_bandwidth() const {
    return fabric.bits_per_second() > 0.0 ? fabric : network.bandwidth;
  }
};

struct VertexProperties {
  VertexKind kind = VertexKind::gpu;
  int index = 0;  // GPU rank, node, leaf or server number, by kind
};

struct EdgeProperties {
  LinkSpec link;
  int id = 0;  // 0, 1, 2, ... in the order links were added (and boost::edges lists them)
};

class Topology {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                      VertexProperties, EdgeProperties>;
  using Vertex = Graph::vertex_descriptor;
  using Edge = Graph::edge_descriptor;

  // The whole cluster. Throws InvariantError on a malformed shape; scenario validation rejects
  // those first.
  static Topology build(const ClusterShape& shape);
  // Only the first `max_nodes` nodes (and at most one server) but the full shape(): enough for
  // closed forms that read a few representative routes, in memory independent of the GPU count.
  static Topology build_representative(const ClusterShape& shape);

  const ClusterShape& shape() const { return shape_; }
  const Graph& graph() const { return graph_; }
  int nodes() const { return shape_.nodes(); }
  int built_gpus() const { return static_cast<int>(gpus_.size()); }
  Vertex gpu(int rank) const { return gpus_.at(static_cast<std::size_t>(rank)); }
  Vertex server(int index) const { return servers_.at(static_cast<std::size_t>(index)); }
  // The switch joining a built node's GPUs (and its NIC, where the GPUs do not have one each):
  // where the flow level puts the node's host memory.
  Vertex node_switch(int node) const { return node_switches_.at(static_cast<std::size_t>(node)); }
  // The highest-numbered built GPU on another node (and leaf, if any) than GPU 0.
  int farthest_built_gpu() const { return built_gpus() - 1; }

  // Fewest-hop path between two vertices, as the links crossed in order: in closed form between
  // GPUs (up to the first switch they share and down), between a GPU and a server (to the
  // vertex the server hangs from, then its link) and, in nodes with one NIC, between a node's
  // switch and a server (its first GPU's path without that GPU's link); by breadth-first search
  // otherwise.
  std::vector<Edge> route(Vertex from, Vertex to) const;
  // The breadth-first search alone (the closed form agrees with it link for link; tests check).
  std::vector<Edge> searched_route(Vertex from, Vertex to) const;

 private:
  Topology(const ClusterShape& shape, int built_nodes, int built_servers);
  void link(Vertex a, Vertex b, LinkSpec spec);
  std::vector<Edge> gpu_route(int from_rank, int to_rank) const;
  // GPU `rank` to server `index`, in closed form.
  std::vector<Edge> server_route(int rank, int index) const;
  // GPU `rank`'s links up to the switch its NIC attaches to (not crossed within a node).
  void append_uplink(std::vector<Edge>& route, int rank) const;
  Edge edge_between(Vertex a, Vertex b) const;

  ClusterShape shape_;
  Graph graph_;
  std::vector<Vertex> gpus_;
  std::vector<Vertex> servers_;
  std::vector<Vertex> server_hosts_;    // per server: the one vertex it links to
  std::vector<Vertex> node_switches_;   // per built node
  std::vector<Vertex> first_switches_;  // per built node: the top switch or its leaf
  Vertex core_ = 0;                     // the top switch or the spine
};

// The path model a transfer sees along a route: latencies add, the slowest link sets the rate.
struct PathModel {
  Time latency;
  Bandwidth bandwidth;
};

PathModel path_model(const Topology& topology, const std::vector<Topology::Edge>& route);

}  // namespace sgdsim
