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

HardwareClass hardware_class(const ClusterShape& shape) {
  if (shape.nodes() > 1) return HardwareClass::network;
  return shape.intra_node.bandwidth.gbps() >= 300.0 ? HardwareClass::nvlink : HardwareClass::pci;
}

LinkModel nccl_hop(LinkModel hop, NcclAlgorithm algorithm, const CollectiveContext& context,
                   Time& base) {
  if (!context.protocol) return hop;
  const NcclCost cost = nccl_cost(algorithm, *context.protocol, hardware_class(context.shape()));
  base = cost.base_latency;
  return LinkModel{cost.step_latency, Bandwidth::from_bits_per_second(
                                          hop.bandwidth.bits_per_second() * cost.efficiency)};
}

void append_ring_steps(TransferProgram& program,
                       const std::vector<std::vector<Topology::Vertex>>& rings, double bytes,
                       int rounds, Time compute) {
  if (rounds <= 0) return;
  // Every round sends the same bytes between the same neighbours: one step, repeated.
  TransferStep step;
  step.compute = compute;
  step.repeat = rounds;
  for (const auto& ring : rings) {
    if (ring.size() < 2) continue;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      step.transfers.push_back({ring[i], ring[(i + 1) % ring.size()], bytes});
    }
  }
  program.push_back(std::move(step));
}

void append_ring_steps(TransferProgram& program, const std::vector<Topology::Vertex>& ring,
                       double bytes, int rounds, Time compute) {
  append_ring_steps(program, std::vector<std::vector<Topology::Vertex>>{ring}, bytes, rounds,
                    compute);
}

std::vector<Topology::Vertex> gpu_ring(const Topology& topology) {
  std::vector<Topology::Vertex> ring;
  for (int rank = 0; rank < topology.shape().gpus; ++rank) ring.push_back(topology.gpu(rank));
  return ring;
}

TransferProgram ring_gather_program(const Topology& topology, Bytes contribution) {
  TransferProgram program;
  append_ring_steps(program, gpu_ring(topology), static_cast<double>(contribution.count()),
                    topology.shape().gpus - 1, Time::zero());
  return program;
}

Time reduction_time(double bytes, double ps_per_byte) {
  return Time::rounded_ps(bytes * ps_per_byte);
}

}  // namespace sgdsim
