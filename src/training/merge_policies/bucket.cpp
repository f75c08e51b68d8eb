// PyTorch DDP buckets: filled in backward order and closed once they hold at least their cap
// (the first bucket has its own smaller cap; the last tensor may overshoot).
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_buckets(const BackwardProfile& profile, Bytes first_cap, Bytes cap) {
  MergePlan plan;
  int first = 0;
  Bytes filled;
  for (int index = 0; index < detail::layer_count(profile); ++index) {
    filled += profile.layers[static_cast<std::size_t>(index)].bytes;
    // DDP closes a bucket once it holds at least its cap (the last tensor may overshoot).
    if (filled >= (plan.empty() ? first_cap : cap) || index == detail::layer_count(profile) - 1) {
      plan.push_back({first, index, {}});
      first = index + 1;
      filled = Bytes(0);
    }
  }
  return plan;
}

}  // namespace detail

MergePolicyEntry bucket_policy() {
  MergePolicyEntry entry{
      {"bucket",
       "PyTorch DDP: gradient tensors bucketed in readiness order up to a cap",
       {KeySpec::positive("bucket_cap_mib", "DDP bucket cap (bucket_cap_mb), MiB", 25.0)
            .at_most(1048576.0),  // 1 TiB, far beyond any model's gradients
        KeySpec::positive("first_bucket_cap_mib", "DDP first bucket cap, MiB", 1.0)
            .at_most(1048576.0)},
       {},
       "DDP buckets"},
      [](const BackwardProfile& profile, const Collective& /*collective*/,
         const MergeSettings& settings, double /*overlap_slowdown*/) {
        return detail::plan_buckets(profile,
                                    Bytes::from_mib(settings.number("first_bucket_cap_mib")),
                                    Bytes::from_mib(settings.number("bucket_cap_mib")));
      }};
  entry.per_tensor = true;  // DDP buckets gradient tensors in the order they become ready
  return entry;
}

}  // namespace sgdsim
