// Hierarchical allreduce (as in Horovod's and BlueConnect's two-level schemes): a ring
// reduce-scatter among the G GPUs of each node, then G rings across the M nodes, GPU i of every
// node allreducing shard i (S/G bytes), then a ring allgather inside each node:
//   t(S) = 2(G-1) (alpha_i + S/(G B_i)) + 2 A_n + 2(M-1) H S/(G M B_n)
//          + gamma ((G-1) S/G + (M-1) S/(G M))
// where alpha_i, B_i are the intra-node hop, A_n the latency of one pass round the ring across
// nodes (its M-1 hops, each at its own latency: between nodes of one leaf or across the spine,
// hops.hpp, RingPass), B_n the slowest of those hops' bandwidths, and H the number of the G rings
// that share one NIC (G with one NIC per node, 1 with a NIC per GPU). Contributions that cannot
// be summed are gathered round the ring through every GPU (ring_allreduce.hpp).
// Reduce-scatter is the first half (inside the node, then across nodes on each GPU's S/G), which
// leaves GPU i of node j the sum of shard j*G+i... of S/(G M) bytes; allgather is the second half:
//   t_rs(S) = (G-1) (alpha_i + S/(G B_i)) + A_n + (M-1) H S/(G M B_n) + gamma (...),
// t_ag(S) the same without gamma, across nodes first.
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"

namespace sgdsim {

class Hierarchical final : public Collective,
                           public Gather,
                           public Shards,
                           public TransferPrograms {
 public:
  explicit Hierarchical(const CollectiveContext& context);

  std::string name() const override { return "hierarchical"; }
  int ranks() const override { return gpus_per_node_ * nodes_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  double bytes_sent_per_rank(Bytes message) const override;
  // Gathers always; transfer programs only when built on the full topology.
  const Gather* gather() const override { return this; }
  const Shards* shards() const override { return this; }
  const TransferPrograms* programs() const override { return topology_ ? this : nullptr; }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override { return ranks() - 1; }
  Time shard_time(ShardOp op, Bytes buffer) const override;
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override;
  Requantisation requantisation() const override {
    return {gpus_per_node_ - 1 + nodes_ - 1, 1.0 / ranks()};
  }
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;
  TransferProgram shard_program(ShardOp op, Bytes buffer) const override;

 private:
  // One half of the allreduce: the pass inside the node and the pass across nodes, each once.
  Time in_node_half(Bytes buffer, bool reduce) const;
  Time across_half(Bytes buffer, bool reduce) const;
  void append_half(TransferProgram& program, Bytes buffer, ShardOp op) const;
  int gpus_per_node_;
  int nodes_;
  int rings_per_nic_;
  LinkModel intra_;
  LinkModel inter_;
  LinkModel gather_hop_;  // slowest hop of the ring used to gather contributions
  RingPass gather_pass_;  // that ring's pass
  RingPass across_pass_;  // one pass of the rings across nodes
  double reduction_ps_per_byte_;
  std::shared_ptr<const Topology> topology_;
};

}  // namespace sgdsim
