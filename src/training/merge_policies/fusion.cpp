// Horovod tensor fusion: a background cycle fuses what became ready during the last cycle, up
// to the fusion threshold; cycle ticks are aligned to the start of backward.
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_fusion(const BackwardProfile& profile, Bytes threshold, Time cycle) {
  SGDSIM_ASSERT(cycle > Time::zero(), "fusion cycle must be positive");
  auto tick_of = [&](Time ready) {  // first cycle tick at or after `ready`
    return cycle * ((ready.ps() + cycle.ps() - 1) / cycle.ps());
  };
  MergePlan plan;
  Bytes filled;
  for (int index = 0; index < detail::layer_count(profile); ++index) {
    const GradientLayer& layer = profile.layers[static_cast<std::size_t>(index)];
    const Time tick = tick_of(layer.ready);
    const bool same_cycle = !plan.empty() && plan.back().release == tick;
    if (same_cycle && filled + layer.bytes <= threshold) {
      plan.back().last = index;
      filled += layer.bytes;
    } else {
      plan.push_back({index, index, tick});
      filled = layer.bytes;
    }
  }
  return plan;
}

}  // namespace detail

MergePolicyEntry fusion_policy() {
  return {{"fusion",
           "Horovod: a cycle fuses what became ready, up to a threshold",
           {KeySpec::positive("fusion_threshold_mib", "Horovod fusion threshold, MiB", 128.0)
                .at_most(1048576.0),  // 1 TiB, far beyond any model's gradients
            KeySpec::positive("fusion_cycle_ms", "Horovod cycle time, ms", 1.0).at_most(1e9)},
           {},
           "Horovod fusion"},
          [](const BackwardProfile& profile, const Collective& /*collective*/,
             const MergeSettings& settings, double /*overlap_slowdown*/) {
            return detail::plan_fusion(profile,
                                       Bytes::from_mib(settings.number("fusion_threshold_mib")),
                                       Time::from_ms(settings.number("fusion_cycle_ms")));
          }};
}

}  // namespace sgdsim
