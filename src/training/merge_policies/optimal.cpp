// The contiguous grouping that ends communication earliest under the collective's own cost,
// by dynamic programming over prefixes (O(L^2) collective prices).
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective) {
  const int count = detail::layer_count(profile);
  // end[j]: earliest time the first j layers can all have been sent; cut[j]: where the last
  // message of that best prefix begins.
  std::vector<Time> end(static_cast<std::size_t>(count) + 1, Time::max());
  std::vector<int> cut(static_cast<std::size_t>(count) + 1, 0);
  end[0] = Time::zero();
  for (int j = 1; j <= count; ++j) {
    Bytes bytes;
    Time ready;
    for (int i = j - 1; i >= 0; --i) {  // last message covers layers i..j-1
      const GradientLayer& layer = profile.layers[static_cast<std::size_t>(i)];
      bytes += layer.bytes;
      ready = std::max(ready, layer.ready);
      const Time finish =
          std::max(end[static_cast<std::size_t>(i)], ready) + collective.time(bytes);
      // `<=` prefers the larger last message on ties, i.e. fewer messages.
      if (finish <= end[static_cast<std::size_t>(j)]) {
        end[static_cast<std::size_t>(j)] = finish;
        cut[static_cast<std::size_t>(j)] = i;
      }
    }
  }
  MergePlan plan;
  for (int j = count; j > 0; j = cut[static_cast<std::size_t>(j)]) {
    plan.push_back({cut[static_cast<std::size_t>(j)], j - 1, {}});
  }
  std::reverse(plan.begin(), plan.end());
  return plan;
}

}  // namespace detail

MergePolicyEntry optimal_policy() {
  return {
      {"optimal",
       "the best contiguous grouping for the collective's cost (dynamic programming)",
       {},
       {},
       "optimal"},
      [](const BackwardProfile& profile, const Collective& collective,
         const MergeSettings& /*settings*/) { return detail::plan_optimal(profile, collective); }};
}

}  // namespace sgdsim
