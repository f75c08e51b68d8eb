// Hierarchical allreduce: closed form and transfer program.
#include "sgdsim/collectives/hierarchical.hpp"
#include "sgdsim/collectives/collective_registry.hpp"

#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim {

Hierarchical::Hierarchical(const CollectiveContext& context)
    : gpus_per_node_(context.shape().gpus_per_node),
      nodes_(context.shape().nodes()),
      rings_per_nic_(context.shape().nic_per_gpu ? 1 : context.shape().gpus_per_node),
      reduction_ps_per_byte_(context.reduction_ps_per_byte),
      topology_(context.full() ? context.topology : nullptr) {
  // The ring through every GPU has the cluster's hop classes: its intra-node route is the one
  // the in-node rings take, and the ring across nodes crosses the same node boundaries (and
  // spine hops) without its intra-node steps. Contributions are gathered round the whole ring.
  gather_pass_ = gpu_ring_pass(*context.topology);
  gather_hop_ = gather_pass_.slowest_route();
  intra_ = gather_pass_.route[static_cast<std::size_t>(HopClass::intra)];
  across_pass_ = gather_pass_;
  across_pass_.steps[static_cast<std::size_t>(HopClass::intra)] = 0;
  inter_ = across_pass_.slowest_route();
}

Time Hierarchical::in_node_half(Bytes buffer, bool reduce) const {
  if (gpus_per_node_ == 1) return Time::zero();
  const double g = gpus_per_node_;
  const auto bytes = static_cast<double>(buffer.count());
  return (intra_.alpha + transfer_time(buffer, intra_.bandwidth, 1.0 / g)) * (gpus_per_node_ - 1) +
         (reduce ? reduction_time(bytes / g, reduction_ps_per_byte_) * (gpus_per_node_ - 1)
                 : Time::zero());
}

Time Hierarchical::across_half(Bytes buffer, bool reduce) const {
  if (nodes_ == 1) return Time::zero();
  const double g = gpus_per_node_;
  const double m = nodes_;
  const auto bytes = static_cast<double>(buffer.count());
  return across_pass_.total() +
         transfer_time(buffer, inter_.bandwidth, rings_per_nic_ / (g * m)) * (nodes_ - 1) +
         (reduce ? reduction_time(bytes / (g * m), reduction_ps_per_byte_) * (nodes_ - 1)
                 : Time::zero());
}

Time Hierarchical::time(Bytes message) const {
  // Reduce-scatter then allgather: each pass twice, the reduction once.
  return shard_time(ShardOp::reduce_scatter, message) + shard_time(ShardOp::allgather, message);
}

Time Hierarchical::shard_time(ShardOp op, Bytes buffer) const {
  const bool reduce = op == ShardOp::reduce_scatter;
  return in_node_half(buffer, reduce) + across_half(buffer, reduce);
}

double Hierarchical::shard_bytes_sent_per_rank(ShardOp /*op*/, Bytes buffer) const {
  const double g = gpus_per_node_;
  const double m = nodes_;
  return ((g - 1.0) / g + (m - 1.0) / (g * m)) * static_cast<double>(buffer.count());
}

LinearCost Hierarchical::linear_cost() const {
  const double g = gpus_per_node_;
  const double m = nodes_;
  LinearCost cost;
  if (gpus_per_node_ > 1) {
    cost.startup += intra_.alpha * (2 * (gpus_per_node_ - 1));
    cost.ps_per_byte += 2.0 * (g - 1.0) / g * intra_.bandwidth.ps_per_byte() +
                        (g - 1.0) / g * reduction_ps_per_byte_;
  }
  if (nodes_ > 1) {
    cost.startup += across_pass_.total() * 2;
    cost.ps_per_byte +=
        2.0 * (m - 1.0) * rings_per_nic_ / (g * m) * inter_.bandwidth.ps_per_byte() +
        (m - 1.0) / (g * m) * reduction_ps_per_byte_;
  }
  return cost;
}

double Hierarchical::bytes_sent_per_rank(Bytes message) const {
  const double g = gpus_per_node_;
  const double m = nodes_;
  return (2.0 * (g - 1.0) / g + 2.0 * (m - 1.0) / (g * m)) * static_cast<double>(message.count());
}

Time Hierarchical::gather_time(Bytes contribution, Bytes aggregate) const {
  return RingAllreduce(ranks(), gather_hop_, gather_pass_, Time::zero(), 0.0)
      .gather_time(contribution, aggregate);
}

double Hierarchical::gather_bytes_sent_per_rank(Bytes contribution) const {
  return (ranks() - 1.0) * static_cast<double>(contribution.count());
}

void Hierarchical::append_half(TransferProgram& program, Bytes buffer, ShardOp op) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  const double g = gpus_per_node_;
  const double m = nodes_;
  const auto bytes = static_cast<double>(buffer.count());
  std::vector<std::vector<Topology::Vertex>> in_node(static_cast<std::size_t>(nodes_));
  std::vector<std::vector<Topology::Vertex>> across(static_cast<std::size_t>(gpus_per_node_));
  for (int rank = 0; rank < ranks(); ++rank) {
    in_node[static_cast<std::size_t>(rank / gpus_per_node_)].push_back(topology_->gpu(rank));
    across[static_cast<std::size_t>(rank % gpus_per_node_)].push_back(topology_->gpu(rank));
  }
  const RingPass in_node_pass = uniform_ring_pass(gpus_per_node_, intra_);
  const bool reduce = op == ShardOp::reduce_scatter;
  const auto in_node_pass_of = [&] {
    append_ring_pass(program, in_node, bytes / g, in_node_pass,
                     reduce ? reduction_time(bytes / g, reduction_ps_per_byte_) : Time::zero());
  };
  const auto across_pass_of = [&] {
    append_ring_pass(
        program, across, bytes / (g * m), across_pass_,
        reduce ? reduction_time(bytes / (g * m), reduction_ps_per_byte_) : Time::zero());
  };
  if (reduce) {
    in_node_pass_of();
    across_pass_of();
  } else {
    across_pass_of();
    in_node_pass_of();
  }
}

TransferProgram Hierarchical::program(Bytes message) const {
  TransferProgram program;
  append_half(program, message, ShardOp::reduce_scatter);
  append_half(program, message, ShardOp::allgather);
  return program;
}

TransferProgram Hierarchical::shard_program(ShardOp op, Bytes buffer) const {
  TransferProgram program;
  append_half(program, buffer, op);
  return program;
}

TransferProgram Hierarchical::gather_program(Bytes contribution, Bytes /*aggregate*/) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  return ring_gather_program(*topology_, contribution);
}

CollectiveEntry hierarchical_collective() {
  CollectiveEntry entry;
  entry.name = "hierarchical";
  entry.shards = true;
  entry.description = "reduce inside each node, ring across nodes, broadcast inside";
  entry.make = [](const CollectiveContext& context, const Settings&) -> CollectivePtr {
    return std::make_unique<Hierarchical>(context);
  };
  return entry;
}

}  // namespace sgdsim
