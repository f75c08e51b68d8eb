// The six merge policies. Each returns a contiguous cover of the layers in backward order.
#include "sgdsim/training/merge_policy.hpp"

#include <algorithm>
#include <array>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

struct PolicyNames {
  MergePolicy policy;
  std::string_view name;
  std::string_view label;
};

constexpr std::array<PolicyNames, 6> policy_names{{
    {MergePolicy::none, "none", "WFBP"},
    {MergePolicy::all, "all", "SyncEASGD"},
    {MergePolicy::bucket, "bucket", "DDP buckets"},
    {MergePolicy::fusion, "fusion", "Horovod fusion"},
    {MergePolicy::mgwfbp, "mgwfbp", "MG-WFBP"},
    {MergePolicy::optimal, "optimal", "optimal"},
}};

int layer_count(const BackwardProfile& profile) {
  return static_cast<int>(profile.layers.size());
}

}  // namespace

std::string_view policy_name(MergePolicy policy) {
  return policy_names[static_cast<std::size_t>(policy)].name;
}

std::string_view policy_label(MergePolicy policy) {
  return policy_names[static_cast<std::size_t>(policy)].label;
}

std::optional<MergePolicy> parse_policy(std::string_view name) {
  for (const PolicyNames& entry : policy_names) {
    if (entry.name == name) return entry.policy;
  }
  return std::nullopt;
}

MergePlan plan_messages(MergePolicy policy, const BackwardProfile& profile,
                        const Collective& collective, const MergeSettings& settings) {
  if (profile.layers.empty()) return {};
  switch (policy) {
    case MergePolicy::none: return detail::plan_wfbp(profile);
    case MergePolicy::all: return detail::plan_single_message(profile);
    case MergePolicy::bucket:
      return detail::plan_buckets(profile, settings.first_bucket_cap, settings.bucket_cap);
    case MergePolicy::fusion:
      return detail::plan_fusion(profile, settings.fusion_threshold, settings.fusion_cycle);
    case MergePolicy::mgwfbp: return detail::plan_mgwfbp(profile, collective);
    case MergePolicy::optimal: return detail::plan_optimal(profile, collective);
  }
  SGDSIM_ASSERT(false, "unknown merge policy");
  return {};
}

namespace detail {

MergePlan plan_wfbp(const BackwardProfile& profile) {
  MergePlan plan;
  for (int index = 0; index < layer_count(profile); ++index) plan.push_back({index, index, {}});
  return plan;
}

MergePlan plan_single_message(const BackwardProfile& profile) {
  return {MessageGroup{0, layer_count(profile) - 1, {}}};
}

MergePlan plan_buckets(const BackwardProfile& profile, Bytes first_cap, Bytes cap) {
  MergePlan plan;
  int first = 0;
  Bytes filled;
  for (int index = 0; index < layer_count(profile); ++index) {
    filled += profile.layers[static_cast<std::size_t>(index)].bytes;
    // DDP closes a bucket once it holds at least its cap (the last tensor may overshoot).
    if (filled >= (plan.empty() ? first_cap : cap) || index == layer_count(profile) - 1) {
      plan.push_back({first, index, {}});
      first = index + 1;
      filled = Bytes(0);
    }
  }
  return plan;
}

MergePlan plan_fusion(const BackwardProfile& profile, Bytes threshold, Time cycle) {
  SGDSIM_ASSERT(cycle > Time::zero(), "fusion cycle must be positive");
  auto tick_of = [&](Time ready) {  // first cycle tick at or after `ready`
    return cycle * ((ready.ps() + cycle.ps() - 1) / cycle.ps());
  };
  MergePlan plan;
  Bytes filled;
  for (int index = 0; index < layer_count(profile); ++index) {
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

MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective) {
  const Time alpha = collective.linear_cost().startup;
  MergePlan plan;
  Time stream_free;  // when the messages already closed have finished
  MessageGroup current{0, 0, {}};
  for (int next = 1; next <= layer_count(profile); ++next) {
    const Time start = std::max(stream_free, group_ready(profile, current));
    if (next < layer_count(profile)) {
      const Time next_ready = profile.layers[static_cast<std::size_t>(next)].ready;
      // Merging delays the current message by at most next_ready - start < alpha and saves one
      // startup of alpha, so it never hurts (Shi et al., INFOCOM'19, Theorem 1).
      if (start + alpha > next_ready) {
        current.last = next;
        continue;
      }
    }
    stream_free = start + collective.time(group_bytes(profile, current));
    plan.push_back(current);
    current = MessageGroup{next, next, {}};
  }
  return plan;
}

MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective) {
  const int count = layer_count(profile);
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
}  // namespace sgdsim
