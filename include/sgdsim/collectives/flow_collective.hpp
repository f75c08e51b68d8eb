// Flow fidelity: a collective priced by running its transfer program on the flow-level network
// (network/flow_network.hpp) instead of by its closed form, with `jobs` identical copies running
// at once on the same GPUs to model jobs that share the cluster's links. Merge policies still
// plan with the closed form's linear cost; the flow level prices what they chose. Results are
// memoised per message size. A closed form whose allreduce is staged (StagedTransfers: BytePS)
// runs its stages on the network instead of one program. It plays the roles its closed form
// plays: allreduce always, gather when the closed form gathers (priced by running the gather's
// program), reduce-scatter and allgather when the closed form has them (priced by their
// programs), and it hands on the closed form's transfer programs. A staged collective's messages
// are priced alone, and their overlap on the FIFO stream from a stream of them simulated
// together (queued_overlap).
#pragma once

#include <algorithm>
#include <map>
#include <memory>

#include "sgdsim/collectives/collective.hpp"

namespace sgdsim {

class FlowCollective final : public Collective, public Gather, public Shards {
 public:
  // `closed_form` must have been built on the full `topology` (it has transfer programs or staged
  // transfers).
  FlowCollective(CollectivePtr closed_form, std::shared_ptr<const Topology> topology, int jobs);

  std::string name() const override { return closed_form_->name(); }
  int ranks() const override { return closed_form_->ranks(); }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override { return closed_form_->linear_cost(); }
  // A program's: the closed form's, at most this message's time on the flow network. A staged
  // collective's: its time alone less what each of a stream of such messages queued back to
  // back holds the pipeline in the steady state (StagedTransfers::staged_hold, from such messages
  // simulated together), the flow level's counterpart of the closed form's "every stage but the
  // busiest"; the closed form's, at most its time, where staged_hold says that costs too much.
  Time overlappable(Bytes message) const override;
  Time queued_overlap(Bytes message) const override;
  double bytes_sent_per_rank(Bytes message) const override {
    return closed_form_->bytes_sent_per_rank(message);
  }
  Requantisation requantisation() const override { return closed_form_->requantisation(); }
  // All of this one's time where the closed form is all kernels, else the closed form's kernel
  // time (BytePS's NCCL stream: timed stages, or rings inside the nodes that the flow network
  // prices like the closed form), at most this one's time.
  Time kernel_time(Bytes message) const override;
  const Gather* gather() const override { return closed_form_->gather() ? this : nullptr; }
  const Shards* shards() const override { return closed_form_->shards() ? this : nullptr; }
  const TransferPrograms* programs() const override { return programs_; }

  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override {
    return closed_form_->gather()->gather_bytes_sent_per_rank(contribution);
  }
  int gather_decodes() const override { return closed_form_->gather()->gather_decodes(); }
  Time shard_time(ShardOp op, Bytes buffer) const override;
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override {
    return closed_form_->shards()->shard_bytes_sent_per_rank(op, buffer);
  }

 private:
  // A message's time on the flow network and, for a staged one, what it runs beside the one
  // ahead on the FIFO stream (a program's is the closed form's: queued_overlap).
  struct Price {
    Time time;
    Time queued_overlap;
  };
  const Price& price(Bytes message) const;
  Time run(const TransferProgram& program) const;
  FlowNetwork& network() const;

  CollectivePtr closed_form_;
  const TransferPrograms* programs_;  // the closed form's: null for a staged one
  const StagedTransfers* staged_;
  std::shared_ptr<const Topology> topology_;
  int jobs_;
  mutable std::unique_ptr<FlowNetwork> network_;
  mutable std::map<std::int64_t, Price> prices_;
  mutable std::map<std::pair<std::int64_t, std::int64_t>, Time> gather_times_;
  mutable std::map<std::pair<ShardOp, std::int64_t>, Time> shard_times_;
};

}  // namespace sgdsim
