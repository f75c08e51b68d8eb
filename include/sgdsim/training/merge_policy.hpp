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
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/training/message_schedule.hpp"

namespace sgdsim {

enum class MergePolicy { none, all, bucket, fusion, mgwfbp, optimal };

inline constexpr MergePolicy all_merge_policies[] = {MergePolicy::none,   MergePolicy::all,
                                                     MergePolicy::bucket, MergePolicy::fusion,
                                                     MergePolicy::mgwfbp, MergePolicy::optimal};

std::string_view policy_name(MergePolicy policy);   // as written in scenarios: "mgwfbp"
std::string_view policy_label(MergePolicy policy);  // as printed in tables: "MG-WFBP"
std::optional<MergePolicy> parse_policy(std::string_view name);

struct MergeSettings {
  Bytes bucket_cap = Bytes::from_mib(25);       // DDP bucket_cap_mb default
  Bytes first_bucket_cap = Bytes::from_mib(1);  // DDP's first bucket
  Bytes fusion_threshold = Bytes::from_mib(128);
  Time fusion_cycle = Time::from_ms(1.0);
};

MergePlan plan_messages(MergePolicy policy, const BackwardProfile& profile,
                        const Collective& collective, const MergeSettings& settings);

namespace detail {
MergePlan plan_wfbp(const BackwardProfile& profile);
MergePlan plan_single_message(const BackwardProfile& profile);
MergePlan plan_buckets(const BackwardProfile& profile, Bytes first_cap, Bytes cap);
MergePlan plan_fusion(const BackwardProfile& profile, Bytes threshold, Time cycle);
MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective);
MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective);
}  // namespace detail

}  // namespace sgdsim
