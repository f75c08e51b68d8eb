// SyncEASGD / BSP: one message holding every gradient, sent after the whole backward pass.
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_single_message(const BackwardProfile& profile) {
  return {MessageGroup{0, detail::layer_count(profile) - 1, {}}};
}

}  // namespace detail

MergePolicyEntry all_policy() {
  return {
      {"all", "one message after the whole backward pass (SyncEASGD, BSP)", {}, {}, "SyncEASGD"},
      [](const BackwardProfile& profile, const Collective& /*collective*/,
         const MergeSettings& /*settings*/,
         double /*overlap_slowdown*/) { return detail::plan_single_message(profile); }};
}

}  // namespace sgdsim
