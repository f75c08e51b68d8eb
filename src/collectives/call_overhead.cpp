// A fixed cost per collective call.
#include "sgdsim/collectives/call_overhead.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim {

CallOverhead::CallOverhead(std::shared_ptr<const Collective> inner, Time per_call)
    : inner_(std::move(inner)), per_call_(per_call) {
  SGDSIM_ASSERT(inner_ != nullptr && per_call_ >= Time::zero(), "a call overhead needs >= 0");
}

LinearCost CallOverhead::linear_cost() const {
  LinearCost cost = inner_->linear_cost();
  cost.startup += per_call_;
  return cost;
}

Time CallOverhead::kernel_time(Bytes message) const {
  return scaled_share(inner_->kernel_time(message), inner_->time(message), time(message));
}

}  // namespace sgdsim
