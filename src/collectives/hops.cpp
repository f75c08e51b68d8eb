// Representative hops and ring-shaped transfer steps.
#include "sgdsim/collectives/hops.hpp"

#include <algorithm>
#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

LinkModel hop_between(const Topology& topology, int a, int b) {
  const ClusterShape& shape = topology.shape();
  const int node_a = a / shape.gpus_per_node;
  const int node_b = b / shape.gpus_per_node;
  int x = a;
  int y = b;
  if (std::max(a, b) >= topology.built_gpus()) {  // map onto built GPUs of the same class
    x = 0;
    if (node_a == node_b) {
      y = 1;
    } else if (shape.leaf_nodes > 0 && node_a / shape.leaf_nodes != node_b / shape.leaf_nodes) {
      y = shape.leaf_nodes * shape.gpus_per_node;
    } else {
      y = shape.gpus_per_node;
    }
  }
  const PathModel path = path_model(topology, topology.route(topology.gpu(x), topology.gpu(y)));
  return LinkModel{path.latency, path.bandwidth};
}

LinkModel slowest(const std::vector<LinkModel>& hops) {
  LinkModel result{Time::zero(), Bandwidth::from_gbps(1e12)};
  for (const LinkModel& hop : hops) {
    result.alpha = std::max(result.alpha, hop.alpha);
    result.bandwidth = std::min(result.bandwidth, hop.bandwidth);
  }
  return result;
}

HardwareClass intra_node_hardware(const ClusterShape& shape) {
  return shape.intra_node.bandwidth.gbps() >= 300.0 ? HardwareClass::nvlink : HardwareClass::pci;
}

HardwareClass hardware_class(const ClusterShape& shape) {
  return shape.nodes() > 1 ? HardwareClass::network : intra_node_hardware(shape);
}

LinkModel nccl_hop(LinkModel hop, NcclAlgorithm algorithm, const CollectiveContext& context,
                   Time& base) {
  if (!context.protocol) return hop;
  const NcclCost cost = nccl_cost(algorithm, *context.protocol, hardware_class(context.shape()));
  base = cost.base_latency;
  return LinkModel{cost.step_latency, Bandwidth::from_bits_per_second(
                                          hop.bandwidth.bits_per_second() * cost.efficiency)};
}

Time RingPass::total() const {
  Time sum;
  for (std::size_t c = 0; c < steps.size(); ++c) sum += latency[c] * std::int64_t{steps[c]};
  return sum;
}

int RingPass::count() const {
  return steps[0] + steps[1] + steps[2];
}

LinkModel RingPass::slowest_route() const {
  std::vector<LinkModel> used;
  for (std::size_t c = 0; c < steps.size(); ++c) {
    if (steps[c] > 0) used.push_back(route[c]);
  }
  return slowest(used);
}

HopClass hop_class(const ClusterShape& shape, int a, int b) {
  const int node_a = a / shape.gpus_per_node;
  const int node_b = b / shape.gpus_per_node;
  if (node_a == node_b) return HopClass::intra;
  if (shape.leaf_nodes == 0 || node_a / shape.leaf_nodes == node_b / shape.leaf_nodes) {
    return HopClass::inter;
  }
  return HopClass::spine;
}

namespace {

// Whether the cluster has hops of each class, and a representative pair of ranks for each.
struct ClassPairs {
  std::array<bool, 3> present{};
  std::array<std::pair<int, int>, 3> pairs{};
};

ClassPairs class_pairs(const ClusterShape& shape) {
  const int g = shape.gpus_per_node;
  const int nodes = shape.nodes();
  ClassPairs result;
  result.present = {g > 1, nodes > 1 && (shape.leaf_nodes == 0 || shape.leaf_nodes > 1),
                    shape.leaf_nodes > 0 && nodes > shape.leaf_nodes};
  result.pairs = {{{0, 1}, {g - 1, g}, {shape.leaf_nodes * g - 1, shape.leaf_nodes * g}}};
  return result;
}

}  // namespace

std::array<Time, 3> hop_class_latencies(const Topology& topology, NcclAlgorithm algorithm,
                                        std::optional<NcclProtocol> protocol) {
  const ClusterShape& shape = topology.shape();
  const ClassPairs classes = class_pairs(shape);
  std::array<Time, 3> latency{};
  for (std::size_t c = 0; c < latency.size(); ++c) {
    if (!classes.present[c]) continue;
    if (protocol) {
      const HardwareClass hardware = c == 0 ? intra_node_hardware(shape) : HardwareClass::network;
      latency[c] = nccl_cost(algorithm, *protocol, hardware).step_latency;
    } else {
      latency[c] = hop_between(topology, classes.pairs[c].first, classes.pairs[c].second).alpha;
    }
  }
  return latency;
}

RingPass gpu_ring_pass(const Topology& topology, std::optional<NcclProtocol> protocol) {
  const ClusterShape& shape = topology.shape();
  const int nodes = shape.nodes();
  const int groups = shape.leaf_nodes > 0 && nodes > shape.leaf_nodes
                         ? (nodes + shape.leaf_nodes - 1) / shape.leaf_nodes
                         : 1;
  RingPass pass;
  pass.steps = {shape.gpus - nodes, nodes - groups, groups - 1};
  const ClassPairs classes = class_pairs(shape);
  const std::array<Time, 3> latency = hop_class_latencies(topology, NcclAlgorithm::ring, protocol);
  for (std::size_t c = 0; c < pass.steps.size(); ++c) {
    if (pass.steps[c] == 0) continue;
    pass.route[c] = hop_between(topology, classes.pairs[c].first, classes.pairs[c].second);
    pass.latency[c] = latency[c];
  }
  return pass;
}

RingPass uniform_ring_pass(int ranks, LinkModel hop) {
  RingPass pass;
  pass.steps[0] = ranks - 1;
  pass.latency[0] = hop.alpha;
  pass.route[0] = hop;
  return pass;
}

void append_ring_pass(TransferProgram& program,
                      const std::vector<std::vector<Topology::Vertex>>& rings, double bytes,
                      const RingPass& pass, Time compute) {
  for (std::size_t c = 0; c < pass.steps.size(); ++c) {
    if (pass.steps[c] <= 0) continue;
    // Every round sends the same bytes between the same neighbours: one step, repeated.
    TransferStep step;
    step.compute = compute;
    step.repeat = pass.steps[c];
    step.latency = pass.latency[c];
    for (const auto& ring : rings) {
      if (ring.size() < 2) continue;
      for (std::size_t i = 0; i < ring.size(); ++i) {
        step.transfers.push_back({ring[i], ring[(i + 1) % ring.size()], bytes});
      }
    }
    program.push_back(std::move(step));
  }
}

std::vector<Topology::Vertex> gpu_ring(const Topology& topology) {
  std::vector<Topology::Vertex> ring;
  for (int rank = 0; rank < topology.shape().gpus; ++rank) ring.push_back(topology.gpu(rank));
  return ring;
}

TransferProgram ring_gather_program(const Topology& topology, Bytes contribution) {
  TransferProgram program;
  append_ring_pass(program, {gpu_ring(topology)}, static_cast<double>(contribution.count()),
                   gpu_ring_pass(topology), Time::zero());
  return program;
}

Time reduction_time(double bytes, double ps_per_byte) {
  return Time::rounded_ps(bytes * ps_per_byte);
}

}  // namespace sgdsim
