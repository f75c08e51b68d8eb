// WFBP (Awan et al.; wait-free backpropagation): one message per layer, sent as soon as its
// gradients are ready.
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_wfbp(const BackwardProfile& profile) {
  MergePlan plan;
  for (int index = 0; index < detail::layer_count(profile); ++index)
    plan.push_back({index, index, {}});
  return plan;
}

}  // namespace detail

MergePolicyEntry none_policy() {
  return {
      {"none", "wait-free backpropagation: one message per layer, sent when ready", {}, {}, "WFBP"},
      [](const BackwardProfile& profile, const Collective& /*collective*/,
         const MergeSettings& /*settings*/,
         double /*overlap_slowdown*/) { return detail::plan_wfbp(profile); }};
}

}  // namespace sgdsim
