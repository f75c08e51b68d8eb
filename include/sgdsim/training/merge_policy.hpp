// Merge policies: how a worker groups its layers' gradients into messages.
//   none     WFBP: one message per layer, sent as soon as it is ready.
//   all      SyncEASGD / BSP: one message after the whole backward.
//   bucket   PyTorch DDP: buckets filled in backward order, closed once they reach the cap
//            (the first bucket has its own smaller cap).
//   fusion   Horovod: a background cycle fuses what became ready during the last cycle, up to
//            the fusion threshold; cycle ticks are aligned to the start of backward.
//   mgwfbp   Shi et al.: merge layer l into the next one when l's message would start less than
//            one startup (alpha) before the next layer is ready.
//   optimal  the contiguous grouping that ends communication earliest under the collective's own
//            cost, by dynamic programming over prefixes (O(L^2)).
// Each policy is one file in src/training/merge_policies/ declaring its name, label, description
// and the `communication.merge` keys it reads; merge_policy_registry() lists them.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/core/registry.hpp"
#include "sgdsim/training/message_schedule.hpp"
#include "sgdsim/training/priority_simulation.hpp"

namespace sgdsim {

// The keys of `communication.merge` the policies read (bucket_cap_mib, fusion_cycle_ms, ...).
using MergeSettings = Settings;

struct MergePolicyEntry : Declaration {
  // The plan for a backward pass, a collective, the merge settings, and compute's slowdown
  // beside the collectives (compute.overlap_slowdown; `optimal` and `mgwfbp` plan for it).
  std::function<MergePlan(const BackwardProfile&, const Collective&, const MergeSettings&, double)>
      plan;
  // Set for a policy that schedules partitions by priority instead of sending its plan's
  // messages in FIFO order (training/priority_simulation.hpp): the partition and credit, in
  // bytes, for gradient elements of the given size.
  std::function<PrioritySettings(const MergeSettings&, int bytes_per_element)> priority{};
  // Compared in scenarios that name no policy (a priority policy also changes when the next
  // iteration may start, so it is compared only when asked for).
  bool by_default = true;
  // Whether its units are gradient tensors rather than layers when the scenario leaves
  // communication.merge.granularity at "auto" (DDP fills its buckets tensor by tensor).
  bool per_tensor = false;
};

const Registry<MergePolicyEntry>& merge_policy_registry();

// A registered policy, cheap to copy and compare.
class MergePolicy {
 public:
  explicit MergePolicy(const MergePolicyEntry& entry) : entry_(&entry) {}
  // The policy registered under `name`; the name must be registered.
  static MergePolicy named(std::string_view name);

  const MergePolicyEntry& entry() const { return *entry_; }
  const std::string& name() const { return entry_->name; }        // as in scenarios: "mgwfbp"
  const std::string& label() const { return entry_->display(); }  // in tables: "MG-WFBP"
  bool operator==(const MergePolicy& other) const { return entry_ == other.entry_; }

 private:
  const MergePolicyEntry* entry_;
};

// Every registered policy compared by default, in registry order (a scenario's default).
std::vector<MergePolicy> all_merge_policies();
// Every key of every policy (the keys of `communication.merge` besides "policy").
const std::vector<KeySpec>& merge_keys();
// The defaults of merge_keys().
MergeSettings merge_defaults();

inline std::string_view policy_name(MergePolicy policy) {
  return policy.name();
}
inline std::string_view policy_label(MergePolicy policy) {
  return policy.label();
}

MergePlan plan_messages(MergePolicy policy, const BackwardProfile& profile,
                        const Collective& collective, const MergeSettings& settings,
                        double overlap_slowdown = 1.0);

// The algorithms, one per policy file, exposed for tests.
namespace detail {
inline int layer_count(const BackwardProfile& profile) {
  return static_cast<int>(profile.layers.size());
}
MergePlan plan_wfbp(const BackwardProfile& profile);
MergePlan plan_single_message(const BackwardProfile& profile);
MergePlan plan_buckets(const BackwardProfile& profile, Bytes first_cap, Bytes cap);
MergePlan plan_fusion(const BackwardProfile& profile, Bytes threshold, Time cycle);
MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective,
                      double overlap_slowdown = 1.0);
MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective,
                       double overlap_slowdown = 1.0);
}  // namespace detail

}  // namespace sgdsim
