// Ring allreduce closed form and the ring hop taken from the topology.
#include "sgdsim/collectives/ring_allreduce.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

RingAllreduce::RingAllreduce(int ranks, LinkModel ring_hop) : ranks_(ranks), hop_(ring_hop) {
  SGDSIM_ASSERT(ranks >= 1, "a ring needs at least one rank");
}

RingAllreduce RingAllreduce::on(const Topology& topology) {
  const ClusterShape& shape = topology.shape();
  // By symmetry two hops represent the whole ring: a hop inside a node and one between nodes.
  PathModel slowest{Time::zero(), Bandwidth::from_gbps(1e12)};
  auto include_hop = [&](int from, int to) {
    const PathModel hop =
        path_model(topology, topology.route(topology.gpu(from), topology.gpu(to)));
    slowest.latency = std::max(slowest.latency, hop.latency);
    slowest.bandwidth = std::min(slowest.bandwidth, hop.bandwidth);
  };
  if (shape.gpus_per_node > 1) include_hop(0, 1);
  if (topology.nodes() > 1) include_hop(shape.gpus_per_node - 1, shape.gpus_per_node);
  const int leaf_gpus = shape.leaf_nodes * shape.gpus_per_node;
  if (shape.leaf_nodes > 0 && topology.nodes() > shape.leaf_nodes) {
    include_hop(leaf_gpus - 1, leaf_gpus);  // across the spine
  }
  return RingAllreduce(shape.gpus, LinkModel{slowest.latency, slowest.bandwidth});
}

Time RingAllreduce::time(Bytes message) const {
  if (ranks_ == 1) return Time::zero();
  const double n = ranks_;
  return hop_.alpha * (2 * (ranks_ - 1)) +
         transfer_time(message, hop_.bandwidth, 2.0 * (n - 1.0) / n);
}

LinearCost RingAllreduce::linear_cost() const {
  if (ranks_ == 1) return LinearCost{};
  const double n = ranks_;
  return LinearCost{hop_.alpha * (2 * (ranks_ - 1)),
                    2.0 * (n - 1.0) / n * hop_.bandwidth.ps_per_byte()};
}

double RingAllreduce::bytes_sent_per_rank(Bytes message) const {
  const double n = ranks_;
  return 2.0 * (n - 1.0) / n * static_cast<double>(message.count());
}

Time RingAllreduce::gather_time(Bytes contribution, Bytes /*aggregate*/) const {
  if (ranks_ == 1) return Time::zero();
  return hop_.alpha * (ranks_ - 1) + transfer_time(contribution, hop_.bandwidth, ranks_ - 1.0);
}

double RingAllreduce::gather_bytes_sent_per_rank(Bytes contribution) const {
  return (ranks_ - 1.0) * static_cast<double>(contribution.count());
}

}  // namespace sgdsim
