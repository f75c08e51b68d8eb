// Double binary tree allreduce (Sanders, Speck & Traeff 2009; NCCL's tree algorithm): two binary
// trees over the ranks, the second the mirror image of the first (rank r -> N-1-r), so that a
// rank that is inner in one tree is a leaf in the other; each tree reduces and then broadcasts
// half of the message, pipelined in c chunks. Every step, a rank receives at most two chunks of
// S/(2c) (from its children in the tree where it is inner) and sends two (one per tree), so a
// step moves S/(c B), and with d the tree depth
//   t(S) = 2 (F + (c - 1) alpha + (d + c - 1) S/(c B)) + (d + c - 1) * gamma * S/c,
// the chunk count c in 1..64 chosen to minimise it (the pipeline is modelled as full in every
// step, an upper bound for its fill and drain). F is the first chunk's latency between a leaf
// and the root, summed over its path's hops at each hop's class latency (inside a node, between
// nodes, across the spine; hops.hpp), the slowest such path over both trees, as NCCL's tuning
// model sums a tree's latency over its hops; each further chunk follows one step behind, a step
// as slow as the slowest hop's latency alpha (F = d alpha when every hop is alike). B is the
// slowest hop's bandwidth; with one NIC per node, a step is also bounded by the busiest NIC,
// which carries k chunks (k counted from the two trees' edges that cross node boundaries, at
// most 2 when G = 1): a step moves S/(2c) * max(2/B, k/B_nic). With an NCCL protocol, the
// latencies (each hop class at its row) and the efficiency of B come from nccl_tuning.hpp and a
// base latency is added once. Contributions that cannot be summed are gathered round the ring
// through every GPU, priced as ring_allreduce.hpp prices it.
#pragma once

#include <array>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"

namespace sgdsim {

class DoubleBinaryTree final : public Collective, public Gather, public TransferPrograms {
 public:
  explicit DoubleBinaryTree(const CollectiveContext& context);

  std::string name() const override { return "double_binary_tree"; }
  int ranks() const override { return ranks_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  double bytes_sent_per_rank(Bytes message) const override;
  // Gathers always; transfer programs only when built on the full topology.
  const Gather* gather() const override { return this; }
  const TransferPrograms* programs() const override { return topology_ ? this : nullptr; }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override { return ranks_ - 1; }
  Requantisation requantisation() const override { return {depth_, 0.5}; }
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;

  int depth() const { return depth_; }
  int chunks(Bytes message) const;  // the pipeline depth c chosen for a message
  // Parent of rank r in the first tree (-1 for its root).
  static int parent(int rank, int ranks);

 private:
  Time time_with(Bytes message, int chunks) const;
  int ranks_;
  int depth_ = 0;
  LinkModel hop_;                           // the slowest hop: every step's bandwidth and latency
  Time fill_latency_;                       // the slowest leaf-to-root path, hops summed
  std::array<int, 3> fill_hops_{};          // that path's hops per HopClass
  std::array<Time, 3> fill_class_latency_;  // each class's per-step latency
  Time base_latency_;                       // once per collective, under the NCCL table
  Bandwidth step_rate_;                     // bandwidth at which one step's two chunks get through
  double reduction_ps_per_byte_;
  std::shared_ptr<const Topology> topology_;
  RingAllreduce gather_ring_;
};

}  // namespace sgdsim
