// Recursive halving-doubling allreduce (Thakur, Rabenseifner & Gropp 2005), N a power of two:
// log2(N) reduce-scatter steps in which rank r exchanges half of what it holds with r XOR 2^k,
// then log2(N) allgather steps in reverse. Step k moves S/2^(k+1) bytes over the hop to the
// partner at distance 2^k, so
//   t(S) = sum_k 2 (alpha_k + S/2^(k+1) / B_k) + (N-1)/N * S * gamma
// which is 2 log2(N) alpha + 2(N-1)/N S/B when every hop is alike. At levels whose partners are
// on other nodes, all G GPUs of a node exchange at once: with one NIC per node, B_k is the NIC
// bandwidth divided by G. Exact whenever nothing else shares a link (a fat-tree spine with
// oversubscription needs flow fidelity).
// Reduce-scatter is the halving half alone and allgather the doubling half (largest distance
// first, S/N bytes, down to S/2 bytes at distance 1):
//   t_rs(S) = sum_k (alpha_k + S/2^(k+1) / B_k) + (N-1)/N * S * gamma,  t_ag(S) the same, gamma 0.
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"

namespace sgdsim {

class HalvingDoubling final : public Collective,
                              public Gather,
                              public Shards,
                              public TransferPrograms {
 public:
  // The GPU count must be a power of two (scenario validation checks).
  explicit HalvingDoubling(const CollectiveContext& context);

  std::string name() const override { return "halving_doubling"; }
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
  Requantisation requantisation() const override { return {levels(), 0.5}; }
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;
  TransferProgram shard_program(ShardOp op, Bytes buffer) const override;

 private:
  int levels() const { return static_cast<int>(hops_.size()); }
  // The exchanges of one half: (distance, bytes, compute after) in the order they run.
  struct Exchange {
    int distance;
    double bytes;
    Time compute;
  };
  std::vector<Exchange> half(ShardOp op, Bytes buffer) const;
  TransferStep exchange_step(const Exchange& exchange) const;
  int ranks_;
  std::vector<LinkModel> hops_;  // hop to the partner at distance 2^k, NIC sharing included
  double reduction_ps_per_byte_;
  std::shared_ptr<const Topology> topology_;
};

}  // namespace sgdsim
