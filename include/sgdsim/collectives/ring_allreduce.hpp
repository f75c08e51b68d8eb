// Ring allreduce (reduce-scatter then allgather, Patarasuk & Yuan 2009): two passes of N-1
// steps, each moving S/N bytes between ring neighbours at once, so
//   t(S) = 2 * A + 2(N-1)/N * S / B + (N-1) * gamma * S/N,
// A being one pass's latency, summed over the hops it crosses (hops.hpp, RingPass: on a bare
// link of latency alpha, A = (N-1) alpha; on m nodes, m-1 node crossings at the network latency
// and N-m steps at the intra-node one, as NCCL's tuning model counts them), B the slowest hop's
// bandwidth, and gamma the local reduction cost per byte (zero unless the scenario gives one).
// Ranks in GPU order cross each node's NIC once in each direction, so the closed form is exact
// whenever no link is shared with other traffic.
// With an NCCL protocol, each step's latency and B's efficiency come from nccl_tuning.hpp and a
// base latency is added once.
// Contributions that cannot be summed go round the same ring as an allgather, one pass:
//   t(w) = A + (N-1) * w / B   (each rank forwards N-1 contributions of w bytes).
// Reduce-scatter and allgather of an S-byte buffer are the two passes on their own:
//   t_rs(S) = A + (N-1)/N * S / B + (N-1) * gamma * S/N,   t_ag(S) = A + (N-1)/N * S / B,
// each with the base latency once (NCCL runs both as one ring pass of N-1 steps).
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"

namespace sgdsim {

class RingAllreduce final : public Collective,
                            public Gather,
                            public Shards,
                            public TransferPrograms {
 public:
  // A ring on a bare link (no topology, no transfer program).
  RingAllreduce(int ranks, LinkModel ring_hop, double reduction_ps_per_byte = 0.0);
  // A ring whose hops have the classes and latencies of `pass` (ring_hop's bandwidth bounds
  // every step) plus a once-per-collective base latency.
  RingAllreduce(int ranks, LinkModel ring_hop, RingPass pass, Time base_latency,
                double reduction_ps_per_byte);
  static RingAllreduce on(const CollectiveContext& context);

  std::string name() const override { return "ring_allreduce"; }
  int ranks() const override { return ranks_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  double bytes_sent_per_rank(Bytes message) const override;
  // Gathers always; transfer programs only when built on the full topology.
  const Gather* gather() const override { return this; }
  const Shards* shards() const override { return this; }
  const TransferPrograms* programs() const override { return topology_ ? this : nullptr; }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override { return ranks_ - 1; }
  Time shard_time(ShardOp op, Bytes buffer) const override;
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override;
  // Reduce-scatter: N-1 steps, each on a chunk of S/N.
  Requantisation requantisation() const override { return {ranks_ - 1, 1.0 / ranks_}; }
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;
  TransferProgram shard_program(ShardOp op, Bytes buffer) const override;
  // The slowest hop (its latency is not what a pass costs: see pass()).
  const LinkModel& hop() const { return hop_; }
  const RingPass& pass() const { return pass_; }

 private:
  int ranks_;
  LinkModel hop_;
  RingPass pass_;
  double reduction_ps_per_byte_;
  Time base_latency_;  // once per collective, under the NCCL table (nccl_tuning.hpp)
  std::shared_ptr<const Topology> topology_;  // set when built on a full topology
};

}  // namespace sgdsim
