// The physical cluster as a graph (Boost.Graph): GPUs, the switch inside each node, one NIC per
// node to a single top switch, and parameter servers either on their own NIC (dedicated) or
// inside worker nodes (co-located). Links are full duplex; routes are fewest-hop paths.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

enum class VertexKind : std::uint8_t { gpu, node_switch, top_switch, server };

struct LinkSpec {
  Bandwidth bandwidth;
  Time latency;  // one-way latency of a message crossing this link
};

enum class ServerPlacement : std::uint8_t { dedicated, colocated };

struct ClusterShape {
  int gpus = 1;
  int gpus_per_node = 1;
  LinkSpec intra_node;  // GPU <-> its node's switch
  LinkSpec network;     // node NIC <-> top switch: a message between nodes crosses two of these
  int servers = 0;      // parameter servers; 0 for collectives among the workers alone
  ServerPlacement server_placement = ServerPlacement::dedicated;
  LinkSpec server_link;  // dedicated server NIC <-> top switch
};

struct VertexProperties {
  VertexKind kind = VertexKind::gpu;
  int index = 0;  // GPU rank, node number or server number, by kind
};

struct EdgeProperties {
  LinkSpec link;
};

class Topology {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                      VertexProperties, EdgeProperties>;
  using Vertex = Graph::vertex_descriptor;
  using Edge = Graph::edge_descriptor;

  // Throws InvariantError on a malformed shape; scenario validation rejects those first.
  static Topology build(const ClusterShape& shape);

  const ClusterShape& shape() const { return shape_; }
  const Graph& graph() const { return graph_; }
  int nodes() const { return shape_.gpus / shape_.gpus_per_node; }
  Vertex gpu(int rank) const { return gpus_.at(static_cast<std::size_t>(rank)); }
  Vertex server(int index) const { return servers_.at(static_cast<std::size_t>(index)); }

  // Fewest-hop path between two vertices, as the links crossed in order.
  std::vector<Edge> route(Vertex from, Vertex to) const;

 private:
  explicit Topology(const ClusterShape& shape) : shape_(shape) {}
  ClusterShape shape_;
  Graph graph_;
  std::vector<Vertex> gpus_;
  std::vector<Vertex> servers_;
};

// The path model a transfer sees along a route: latencies add, the slowest link sets the rate.
struct PathModel {
  Time latency;
  Bandwidth bandwidth;
};

PathModel path_model(const Topology& topology, const std::vector<Topology::Edge>& route);

}  // namespace sgdsim
