// Recursive halving-doubling: per-level hops, closed form and transfer program.
#include "sgdsim/collectives/halving_doubling.hpp"
#include <fmt/format.h>
#include "sgdsim/collectives/collective_registry.hpp"

#include <algorithm>
#include <bit>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

HalvingDoubling::HalvingDoubling(const CollectiveContext& context)
    : ranks_(context.shape().gpus),
      reduction_ps_per_byte_(context.reduction_ps_per_byte),
      topology_(context.full() ? context.topology : nullptr) {
  SGDSIM_ASSERT(ranks_ >= 1 && (ranks_ & (ranks_ - 1)) == 0,
                "halving-doubling needs a power-of-two number of ranks");
  const ClusterShape& shape = context.shape();
  const int sharing = shape.nic_per_gpu ? 1 : shape.gpus_per_node;
  for (int distance = 1; distance < ranks_; distance *= 2) {
    LinkModel hop = hop_between(*context.topology, 0, distance);
    if (distance >= shape.gpus_per_node) {  // partners on other nodes: the NIC is shared
      hop.bandwidth = std::min(
          hop.bandwidth,
          Bandwidth::from_bits_per_second(shape.network.bandwidth.bits_per_second() / sharing));
    }
    hops_.push_back(hop);
  }
}

Time HalvingDoubling::time(Bytes message) const {
  Time total;
  double fraction = 1.0;
  for (const LinkModel& hop : hops_) {
    fraction /= 2.0;  // each level exchanges half of what is left
    const Time step = hop.alpha + transfer_time(message, hop.bandwidth, fraction);
    total += step * 2 + reduction_time(static_cast<double>(message.count()) * fraction,
                                       reduction_ps_per_byte_);
  }
  return total;
}

LinearCost HalvingDoubling::linear_cost() const {
  LinearCost cost;
  double fraction = 1.0;
  for (const LinkModel& hop : hops_) {
    fraction /= 2.0;
    cost.startup += hop.alpha * 2;
    cost.ps_per_byte += fraction * (2.0 * hop.bandwidth.ps_per_byte() + reduction_ps_per_byte_);
  }
  return cost;
}

double HalvingDoubling::bytes_sent_per_rank(Bytes message) const {
  const double n = ranks_;
  return 2.0 * (n - 1.0) / n * static_cast<double>(message.count());
}

// Recursive doubling allgather of contributions: level k forwards 2^k contributions.
Time HalvingDoubling::gather_time(Bytes contribution, Bytes /*aggregate*/) const {
  Time total;
  double held = 1.0;  // contributions held, and so forwarded, at this level
  for (const LinkModel& hop : hops_) {
    total += hop.alpha + transfer_time(contribution, hop.bandwidth, held);
    held *= 2.0;
  }
  return total;
}

double HalvingDoubling::gather_bytes_sent_per_rank(Bytes contribution) const {
  return (ranks_ - 1.0) * static_cast<double>(contribution.count());
}

std::vector<HalvingDoubling::Exchange> HalvingDoubling::half(ShardOp op, Bytes buffer) const {
  std::vector<Exchange> exchanges;
  double part = static_cast<double>(buffer.count());
  for (int level = 0; level < levels(); ++level) {
    part /= 2.0;  // each level exchanges half of what is left
    exchanges.push_back({1 << level, part,
                         op == ShardOp::reduce_scatter
                             ? reduction_time(part, reduction_ps_per_byte_)
                             : Time::zero()});
  }
  if (op == ShardOp::allgather) std::reverse(exchanges.begin(), exchanges.end());
  return exchanges;
}

Time HalvingDoubling::shard_time(ShardOp op, Bytes buffer) const {
  Time total;
  for (const Exchange& exchange : half(op, buffer)) {
    // The hop to the partner at distance 2^k, carrying S/2^(k+1) = S * 0.5 / distance.
    const LinkModel& hop =
        hops_[static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(exchange.distance)))];
    total += hop.alpha + transfer_time(buffer, hop.bandwidth, 0.5 / exchange.distance) +
             exchange.compute;
  }
  return total;
}

double HalvingDoubling::shard_bytes_sent_per_rank(ShardOp /*op*/, Bytes buffer) const {
  const double n = ranks_;
  return (n - 1.0) / n * static_cast<double>(buffer.count());
}

TransferStep HalvingDoubling::exchange_step(const Exchange& exchange) const {
  TransferStep step;
  step.compute = exchange.compute;
  for (int rank = 0; rank < ranks_; ++rank) {
    step.transfers.push_back(
        {topology_->gpu(rank), topology_->gpu(rank ^ exchange.distance), exchange.bytes});
  }
  return step;
}

TransferProgram HalvingDoubling::program(Bytes message) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferProgram program;
  for (ShardOp op : {ShardOp::reduce_scatter, ShardOp::allgather}) {
    for (const Exchange& exchange : half(op, message)) program.push_back(exchange_step(exchange));
  }
  return program;
}

TransferProgram HalvingDoubling::shard_program(ShardOp op, Bytes buffer) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferProgram program;
  for (const Exchange& exchange : half(op, buffer)) program.push_back(exchange_step(exchange));
  return program;
}

TransferProgram HalvingDoubling::gather_program(Bytes contribution, Bytes /*aggregate*/) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferProgram program;
  double held = static_cast<double>(contribution.count());
  for (int distance = 1; distance < ranks_; distance *= 2) {
    program.push_back(exchange_step({distance, held, Time::zero()}));
    held *= 2.0;
  }
  return program;
}

CollectiveEntry halving_doubling_collective() {
  CollectiveEntry entry;
  entry.name = "halving_doubling";
  entry.shards = true;
  entry.description = "recursive halving-doubling (Rabenseifner); a power of two of GPUs";
  entry.check = [](const Settings&, const ClusterShape& shape) -> std::optional<KeyProblem> {
    if ((shape.gpus & (shape.gpus - 1)) == 0) return std::nullopt;
    return KeyProblem{
        "algorithm",
        fmt::format("an algorithm that fits {} GPUs (halving_doubling needs a power of two)",
                    shape.gpus),
        "\"halving_doubling\""};
  };
  entry.make = [](const CollectiveContext& context, const Settings&) -> CollectivePtr {
    return std::make_unique<HalvingDoubling>(context);
  };
  return entry;
}

}  // namespace sgdsim
