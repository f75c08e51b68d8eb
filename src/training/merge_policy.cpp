// The merge policy family and what all policies share. Adding a policy: one file
// src/training/merge_policies/NAME.cpp defining `MergePolicyEntry NAME_policy()`, and NAME in the
// merge policy list of src/meson.build.
#include "sgdsim/training/merge_policy.hpp"

#include "merge_policy_list.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) MergePolicyEntry name##_policy();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<MergePolicyEntry>& merge_policy_registry() {
#define SGDSIM_ENTRY(name) name##_policy(),
  static const Registry<MergePolicyEntry> registry("merge policy",
                                                   {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

MergePolicy MergePolicy::named(std::string_view name) {
  return MergePolicy(merge_policy_registry().at(name));
}

std::vector<MergePolicy> all_merge_policies() {
  std::vector<MergePolicy> policies;
  for (const MergePolicyEntry& entry : merge_policy_registry().entries()) {
    if (entry.by_default) policies.emplace_back(entry);
  }
  return policies;
}

const std::vector<KeySpec>& merge_keys() {
  static const std::vector<KeySpec> keys = [] {
    // What a merge plan's units are: a layer's gradients at once, or each gradient tensor when
    // it is ready (as PyTorch DDP fills its buckets, tensor by tensor in readiness order).
    std::vector<KeySpec> all{KeySpec::choice(
        "granularity",
        "units of a merge plan: layers (all of a layer's gradients, when the last is ready), "
        "tensors (each gradient when it is ready, in readiness order), or auto: each policy's "
        "own (tensors for bucket, as PyTorch DDP fills its buckets; layers for the rest)",
        {"auto", "layer", "tensor"}, "auto")};
    for (const MergePolicyEntry& entry : merge_policy_registry().entries()) {
      for (const KeySpec& key : entry.keys) {
        for (const KeySpec& seen : all) {
          SGDSIM_ASSERT(seen.name != key.name, "two merge policies declare the same key");
        }
        all.push_back(key);
      }
    }
    return all;
  }();
  return keys;
}

MergeSettings merge_defaults() {
  return Settings::defaults(merge_keys());
}

MergePlan plan_messages(MergePolicy policy, const BackwardProfile& profile,
                        const Collective& collective, const MergeSettings& settings,
                        double overlap_slowdown) {
  if (profile.layers.empty()) return {};
  return policy.entry().plan(profile, collective, settings, overlap_slowdown);
}

}  // namespace sgdsim
