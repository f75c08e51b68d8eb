// NCCL's own protocol choice (NVIDIA NCCL, src/graph/tuning.cc, ncclTopoGetAlgoTime and the
// selection that follows it): for every message, the protocol whose modelled time, its latency
// plus the bytes over its bandwidth, is the smallest. With `nccl_protocol: "auto"` a scenario's
// ring or tree is priced under LL, LL128 and Simple (nccl_tuning.hpp) and each message takes the
// fastest, so small messages get LL's low latency and large ones Simple's full bandwidth.
// LL128 is a candidate as on NVLink systems from Volta on, where NCCL enables it by default.
// The time is the minimum of affine costs, concave in S: linear_cost() is its secant between one
// byte and 64 MiB (collective.hpp). Gathers take the fastest protocol too. It has no transfer
// programs: protocols price closed forms, and flow fidelity refuses them.
#pragma once

#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/nccl_tuning.hpp"

namespace sgdsim {

class ProtocolChoice final : public Collective, public Gather, public Shards {
 public:
  // The same collective built under each candidate protocol (at least one).
  explicit ProtocolChoice(std::vector<std::pair<NcclProtocol, CollectivePtr>> candidates);

  std::string name() const override { return first().name(); }
  int ranks() const override { return first().ranks(); }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  double bytes_sent_per_rank(Bytes message) const override;
  Requantisation requantisation() const override { return first().requantisation(); }
  const Gather* gather() const override { return first().gather() ? this : nullptr; }
  const Shards* shards() const override { return first().shards() ? this : nullptr; }
  Time shard_time(ShardOp op, Bytes buffer) const override;
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override {
    return first().shards()->shard_bytes_sent_per_rank(op, buffer);
  }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override { return first().gather()->gather_decodes(); }

  // The protocol NCCL's model picks for an allreduce of `message` bytes.
  NcclProtocol chosen(Bytes message) const;

 private:
  const Collective& first() const { return *candidates_.front().second; }
  std::vector<std::pair<NcclProtocol, CollectivePtr>> candidates_;
};

}  // namespace sgdsim
