// Double binary tree: tree shape, pipelined closed form, transfer program.
#include "sgdsim/collectives/double_binary_tree.hpp"
#include "sgdsim/collectives/collective_registry.hpp"

#include <algorithm>
#include <bit>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

constexpr int max_chunks = 64;

}  // namespace

// In-order binary tree on positions x = r + 1: a node's level is the number of trailing zero
// bits of x; its parent sets the next bit up and clears its own, climbing further while that
// falls outside 1..N. Leaves are the even ranks.
int DoubleBinaryTree::parent(int rank, int ranks) {
  auto x = static_cast<unsigned>(rank + 1);
  const auto n = static_cast<unsigned>(ranks);
  const unsigned root = std::bit_floor(n);
  if (x == root) return -1;
  do {
    const unsigned low = x & (~x + 1);  // lowest set bit: 2^level
    x = (x | (low << 1U)) & ~low;
  } while (x > n);
  return static_cast<int>(x) - 1;
}

DoubleBinaryTree::DoubleBinaryTree(const CollectiveContext& context)
    : ranks_(context.shape().gpus),
      reduction_ps_per_byte_(context.reduction_ps_per_byte),
      topology_(context.full() ? context.topology : nullptr),
      gather_ring_(RingAllreduce::on(context)) {
  // Depth, and the fill: the latency of the slowest path from a leaf to its root over both
  // trees, each hop at its class's latency (a chunk's latency is the sum over the hops it
  // crosses, as NCCL's tuning model counts a tree's: src/graph/tuning.cc, ncclTopoTuneModel).
  const ClusterShape& shape = context.shape();
  const std::array<Time, 3> class_latency =
      hop_classes(*context.topology, NcclAlgorithm::tree, context.protocol).latency;
  // Every path from a leaf (an even rank) holds the paths from the inner ranks above it.
  for (int rank = 0; rank < ranks_; rank += 2) {
    for (const bool mirrored : {false, true}) {
      const auto position = [&](int r) { return mirrored ? ranks_ - 1 - r : r; };
      int depth = 0;
      std::array<int, 3> hops{};
      for (int at = rank; parent(at, ranks_) >= 0; at = parent(at, ranks_)) {
        ++depth;
        ++hops[static_cast<std::size_t>(
            hop_class(shape, position(at), position(parent(at, ranks_))))];
      }
      depth_ = std::max(depth_, depth);
      Time latency;
      for (std::size_t c = 0; c < hops.size(); ++c) latency += class_latency[c] * hops[c];
      if (latency > fill_latency_) {
        fill_latency_ = latency;
        fill_hops_ = hops;
      }
    }
  }
  fill_class_latency_ = class_latency;
  // Tree edges join ranks far apart: the slowest hop class bounds every step.
  const LinkModel raw =
      RingAllreduce::on(CollectiveContext{context.topology, 0.0, std::nullopt}).hop();
  hop_ = nccl_hop(raw, NcclAlgorithm::tree, context, base_latency_);
  const double efficiency = hop_.bandwidth.bits_per_second() / raw.bandwidth.bits_per_second();
  // The busiest node NIC: chunks entering (reduce) or leaving a node over both trees.
  double per_step_chunks_over_rate = 2.0 / raw.bandwidth.bits_per_second();
  if (!shape.nic_per_gpu && shape.gpus_per_node > 1) {
    const int g = shape.gpus_per_node;
    std::vector<int> in(static_cast<std::size_t>(shape.nodes()), 0);
    std::vector<int> out(static_cast<std::size_t>(shape.nodes()), 0);
    for (int rank = 0; rank < ranks_; ++rank) {
      const int p = parent(rank, ranks_);
      if (p < 0) continue;
      for (const auto& [child, up] :
           {std::pair{rank, p}, std::pair{ranks_ - 1 - rank, ranks_ - 1 - p}}) {
        if (child / g == up / g) continue;
        ++out[static_cast<std::size_t>(child / g)];
        ++in[static_cast<std::size_t>(up / g)];
      }
    }
    const int busiest = std::max(*std::max_element(in.begin(), in.end()),
                                 *std::max_element(out.begin(), out.end()));
    per_step_chunks_over_rate =
        std::max(per_step_chunks_over_rate, busiest / shape.network.bandwidth.bits_per_second());
  }
  // Two chunks through a link of this rate take as long as the busiest link of the step.
  step_rate_ = Bandwidth::from_bits_per_second(2.0 / per_step_chunks_over_rate * efficiency);
}

Time DoubleBinaryTree::time_with(Bytes message, int chunks) const {
  if (ranks_ == 1) return Time::zero();
  const int steps = depth_ + chunks - 1;
  const Time transfer = transfer_time(message, step_rate_, 1.0 / chunks);
  // Each phase: the first chunk's path (its hops' latencies summed), then one step per further
  // chunk at the slowest hop's latency; every step moves a chunk at the step rate.
  const Time phase = fill_latency_ + hop_.alpha * (chunks - 1) + transfer * steps;
  return base_latency_ + phase * 2 +
         reduction_time(static_cast<double>(message.count()) / chunks, reduction_ps_per_byte_) *
             steps;
}

int DoubleBinaryTree::chunks(Bytes message) const {
  int best = 1;
  for (int c = 2; c <= max_chunks; ++c) {
    if (time_with(message, c) < time_with(message, best)) best = c;
  }
  return best;
}

Time DoubleBinaryTree::time(Bytes message) const {
  return time_with(message, chunks(message));
}

LinearCost DoubleBinaryTree::linear_cost() const {
  // With one chunk: the fill path twice and 2d passes of S/B.
  return LinearCost{base_latency_ + fill_latency_ * 2,
                    2.0 * depth_ * step_rate_.ps_per_byte() + depth_ * reduction_ps_per_byte_};
}

double DoubleBinaryTree::bytes_sent_per_rank(Bytes message) const {
  return 2.0 * static_cast<double>(message.count());  // S/2 up and S/2 down in each tree
}

Time DoubleBinaryTree::gather_time(Bytes contribution, Bytes aggregate) const {
  return gather_ring_.gather_time(contribution, aggregate);
}

double DoubleBinaryTree::gather_bytes_sent_per_rank(Bytes contribution) const {
  return (ranks_ - 1.0) * static_cast<double>(contribution.count());
}

TransferProgram DoubleBinaryTree::program(Bytes message) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  const int c = chunks(message);
  const double chunk = static_cast<double>(message.count()) / (2.0 * c);
  const int steps = depth_ + c - 1;
  TransferStep up;
  TransferStep down;
  up.compute = reduction_time(2.0 * chunk, reduction_ps_per_byte_);
  for (int rank = 0; rank < ranks_; ++rank) {
    const int p = parent(rank, ranks_);
    if (p < 0) continue;
    const int mirror = ranks_ - 1 - rank;
    const int mirror_parent = ranks_ - 1 - p;
    up.transfers.push_back({topology_->gpu(rank), topology_->gpu(p), chunk});
    up.transfers.push_back({topology_->gpu(mirror), topology_->gpu(mirror_parent), chunk});
    down.transfers.push_back({topology_->gpu(p), topology_->gpu(rank), chunk});
    down.transfers.push_back({topology_->gpu(mirror_parent), topology_->gpu(mirror), chunk});
  }
  // Each phase as the closed form counts it: one step per hop of the fill path at its class's
  // latency, then a step per further chunk at the slowest hop's.
  TransferProgram program;
  for (TransferStep* phase : {&up, &down}) {
    for (std::size_t c = 0; c < fill_hops_.size(); ++c) {
      if (fill_hops_[c] == 0) continue;
      TransferStep step = *phase;
      step.repeat = fill_hops_[c];
      step.latency = fill_class_latency_[c];
      program.push_back(std::move(step));
    }
    // Levels of the deepest path that the slowest path lacks (or all of them, with no latency):
    // a chunk still moves in each of the d fill steps, at no latency.
    const int padding = depth_ - (fill_hops_[0] + fill_hops_[1] + fill_hops_[2]);
    if (padding > 0) {
      TransferStep step = *phase;
      step.repeat = padding;
      step.latency = Time::zero();
      program.push_back(std::move(step));
    }
    if (steps > depth_) {
      TransferStep step = *phase;
      step.repeat = steps - depth_;
      step.latency = hop_.alpha;
      program.push_back(std::move(step));
    }
  }
  return program;
}

TransferProgram DoubleBinaryTree::gather_program(Bytes contribution, Bytes /*aggregate*/) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  return ring_gather_program(*topology_, contribution);
}

CollectiveEntry double_binary_tree_collective() {
  CollectiveEntry entry;
  entry.name = "double_binary_tree";
  entry.description = "two mirrored pipelined binary trees (NCCL's tree allreduce)";
  entry.keys = {KeySpec::optional_choice(
      "nccl_protocol", "NCCL latency table for the closed form (auto: the fastest per message)",
      {"ll", "ll128", "simple", "auto"})};
  entry.make = [](const CollectiveContext& context, const Settings&) -> CollectivePtr {
    return std::make_unique<DoubleBinaryTree>(context);
  };
  return entry;
}

}  // namespace sgdsim
