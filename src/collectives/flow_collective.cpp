// Flow-level pricing of collectives, memoised per size.
#include "sgdsim/collectives/flow_collective.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

FlowCollective::FlowCollective(CollectivePtr closed_form, std::shared_ptr<const Topology> topology,
                               int jobs)
    : closed_form_(std::move(closed_form)),
      programs_(closed_form_->programs()),
      staged_(closed_form_->staged()),
      topology_(std::move(topology)),
      jobs_(jobs) {
  SGDSIM_ASSERT(programs_ != nullptr || staged_ != nullptr,
                "flow fidelity needs a collective built on the full topology (with transfer "
                "programs or staged transfers)");
  SGDSIM_ASSERT(topology_ != nullptr && jobs_ >= 1,
                "a flow-level collective needs a topology and a job");
}

// The jobs are identical copies on the same GPUs: one program whose flows count once per job,
// alone on the network, so separable steps are priced from their shapes without events.
Time FlowCollective::run(const TransferProgram& program) const {
  return network().time_alone(program);
}

FlowNetwork& FlowCollective::network() const {
  if (!network_) network_ = std::make_unique<FlowNetwork>(*topology_, jobs_);
  return *network_;
}

Time FlowCollective::time(Bytes message) const {
  if (ranks() == 1) return Time::zero();
  const auto found = times_.find(message.count());
  if (found != times_.end()) return found->second;
  const Time result = programs_ != nullptr ? run(programs_->program(message))
                                           : staged_->staged_time(network(), message);
  times_.emplace(message.count(), result);
  return result;
}

Time FlowCollective::gather_time(Bytes contribution, Bytes aggregate) const {
  if (ranks() == 1) return Time::zero();
  const auto key = std::make_pair(contribution.count(), aggregate.count());
  const auto found = gather_times_.find(key);
  if (found != gather_times_.end()) return found->second;
  const Time result = run(programs_->gather_program(contribution, aggregate));
  gather_times_.emplace(key, result);
  return result;
}

Time FlowCollective::shard_time(ShardOp op, Bytes buffer) const {
  if (ranks() == 1) return Time::zero();
  const auto key = std::make_pair(op, buffer.count());
  const auto found = shard_times_.find(key);
  if (found != shard_times_.end()) return found->second;
  const Time result = run(programs_->shard_program(op, buffer));
  shard_times_.emplace(key, result);
  return result;
}

}  // namespace sgdsim
