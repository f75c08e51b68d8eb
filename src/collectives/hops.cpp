// Representative hops and ring-shaped transfer steps.
#include "sgdsim/collectives/hops.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

LinkModel hop_between(const Topology& topology, int a, int b) {
  const ClusterShape& shape = topology.shape();
  auto [x, y] = std::pair{a, b};
  if (std::max(a, b) >= topology.built_gpus()) {  // map onto built GPUs of the same class
    std::tie(x, y) = representative_pair(shape, hop_class(shape, a, b));
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

std::pair<int, int> representative_pair(const ClusterShape& shape, HopClass c) {
  switch (c) {
    case HopClass::intra: return {0, 1};
    case HopClass::inter: return {0, shape.gpus_per_node};
    case HopClass::spine: return {0, shape.leaf_nodes * shape.gpus_per_node};
  }
  return {0, 1};
}

HopClasses hop_classes(const Topology& topology, NcclAlgorithm algorithm,
                       std::optional<NcclProtocol> protocol) {
  const ClusterShape& shape = topology.shape();
  const int nodes = shape.nodes();
  HopClasses classes;
  classes.present = {shape.gpus_per_node > 1,
                     nodes > 1 && (shape.leaf_nodes == 0 || shape.leaf_nodes > 1),
                     shape.leaf_nodes > 0 && nodes > shape.leaf_nodes};
  for (const HopClass c : {HopClass::intra, HopClass::inter, HopClass::spine}) {
    const auto i = static_cast<std::size_t>(c);
    if (!classes.present[i]) continue;
    const auto [a, b] = representative_pair(shape, c);
    classes.route[i] = hop_between(topology, a, b);
    if (protocol) {
      const HardwareClass hardware =
          c == HopClass::intra ? intra_node_hardware(shape) : HardwareClass::network;
      classes.latency[i] = nccl_cost(algorithm, *protocol, hardware).step_latency;
    } else {
      classes.latency[i] = classes.route[i].alpha;
    }
  }
  return classes;
}

RingPass gpu_ring_pass(const Topology& topology, std::optional<NcclProtocol> protocol) {
  const ClusterShape& shape = topology.shape();
  const int nodes = shape.nodes();
  const int groups = shape.leaf_nodes > 0 && nodes > shape.leaf_nodes
                         ? (nodes + shape.leaf_nodes - 1) / shape.leaf_nodes
                         : 1;
  RingPass pass;
  pass.steps = {shape.gpus - nodes, nodes - groups, groups - 1};
  const HopClasses classes = hop_classes(topology, NcclAlgorithm::ring, protocol);
  for (std::size_t c = 0; c < pass.steps.size(); ++c) {
    SGDSIM_ASSERT((pass.steps[c] > 0) == classes.present[c],
                  "a ring pass has steps of exactly the hop classes the cluster has");
  }
  pass.route = classes.route;
  pass.latency = classes.latency;
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
