// Flow-level pricing of collectives, memoised per size.
#include "sgdsim/collectives/flow_collective.hpp"

#include <algorithm>
#include <optional>

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
  return ranks() == 1 ? Time::zero() : price(message).time;
}

Time FlowCollective::kernel_time(Bytes message) const {
  if (ranks() == 1) return Time::zero();
  const Time kernels = closed_form_->kernel_time(message);
  if (kernels <= Time::zero()) return Time::zero();
  if (kernels >= closed_form_->time(message)) return time(message);
  return std::min(kernels, time(message));
}

Time FlowCollective::overlappable(Bytes message) const {
  if (ranks() == 1) return Time::zero();
  if (staged_ != nullptr) return price(message).queued_overlap;
  return std::min(closed_form_->overlappable(message), time(message));
}

Time FlowCollective::queued_overlap(Bytes message) const {
  if (ranks() == 1) return Time::zero();
  if (staged_ != nullptr) return price(message).queued_overlap;
  // A program's is the closed form's within its time: none, where the closed form has none,
  // without simulating the message (MG-WFBP's planner asks it of groups it may still grow).
  const Time closed = closed_form_->queued_overlap(message);
  return closed == Time::zero() ? closed : std::min(closed, time(message));
}

const FlowCollective::Price& FlowCollective::price(Bytes message) const {
  const auto found = prices_.find(message.count());
  if (found != prices_.end()) return found->second;
  // A staged message holds the stream for what the stream of such messages queued says (the rest
  // of its time alone runs beside the one ahead), or, where that costs too much to simulate, for
  // what the closed form's queued message holds (its P periods), within its time alone.
  Price result;
  if (programs_ != nullptr) {
    result.time = run(programs_->program(message));
  } else {
    result.time = staged_->staged_time(network(), message);
    const std::optional<Time> steady = staged_->staged_hold(network(), message);
    const Time held =
        steady ? *steady : closed_form_->time(message) - closed_form_->queued_overlap(message);
    result.queued_overlap = std::clamp(result.time - held, Time::zero(), result.time);
  }
  return prices_.emplace(message.count(), result).first->second;
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
