// A framework's fixed cost per collective call (DDP's per-bucket work, Horovod's per-fused-
// message negotiation), added once to every message the inner collective aggregates, dense or
// gathered: t(S) = c + t_inner(S). Merge policies see it in the startup of linear_cost(), which
// is what makes fewer, larger messages worth it. The cost is local work, not a transfer: the
// inner collective's transfer programs are handed on unchanged.
#pragma once

#include "sgdsim/collectives/collective.hpp"

namespace sgdsim {

class CallOverhead final : public Collective, public Gather, public Shards {
 public:
  CallOverhead(std::shared_ptr<const Collective> inner, Time per_call);

  std::string name() const override { return inner_->name(); }
  int ranks() const override { return inner_->ranks(); }
  Time time(Bytes message) const override { return per_call_ + inner_->time(message); }
  LinearCost linear_cost() const override;
  // The framework's work per call overlaps the data ahead, as the inner startup does.
  Time overlappable(Bytes message) const override {
    return per_call_ + inner_->overlappable(message);
  }
  Time queued_overlap(Bytes message) const override { return inner_->queued_overlap(message); }
  // The framework's work per call counted as its collective's, kernels in the same share: it
  // copies the call's tensors into and out of the collective's buffers beside it (PyTorch DDP's
  // bucket copies are kernels), and a collective all kernels stays so.
  Time kernel_time(Bytes message) const override;
  double bytes_sent_per_rank(Bytes message) const override {
    return inner_->bytes_sent_per_rank(message);
  }
  Requantisation requantisation() const override { return inner_->requantisation(); }
  const Gather* gather() const override { return inner_->gather() ? this : nullptr; }
  const Shards* shards() const override { return inner_->shards() ? this : nullptr; }
  Time shard_time(ShardOp op, Bytes buffer) const override {
    return per_call_ + inner_->shards()->shard_time(op, buffer);
  }
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override {
    return inner_->shards()->shard_bytes_sent_per_rank(op, buffer);
  }
  const TransferPrograms* programs() const override { return inner_->programs(); }
  Time gather_time(Bytes contribution, Bytes aggregate) const override {
    return per_call_ + inner_->gather()->gather_time(contribution, aggregate);
  }
  double gather_bytes_sent_per_rank(Bytes contribution) const override {
    return inner_->gather()->gather_bytes_sent_per_rank(contribution);
  }
  int gather_decodes() const override { return inner_->gather()->gather_decodes(); }

 private:
  std::shared_ptr<const Collective> inner_;
  Time per_call_;
};

}  // namespace sgdsim
