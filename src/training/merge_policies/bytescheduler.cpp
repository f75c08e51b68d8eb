// ByteScheduler (Peng et al., SOSP'19): partitions sent by layer priority within a credit, the
// next forward pass overlapping what is still in flight (training/priority_simulation.hpp).
// Its plan is one message per layer, as the scheduler receives them.
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

MergePolicyEntry bytescheduler_policy() {
  MergePolicyEntry entry;
  entry.name = "bytescheduler";
  entry.description =
      "ByteScheduler: layer partitions sent by forward priority within a credit; the next "
      "forward overlaps communication";
  entry.label = "ByteScheduler";
  // ByteScheduler's defaults (bytescheduler/common/bytecore.py): partitions of 1,000,000
  // parameters, a credit of 4,000,000 unacknowledged parameters.
  entry.keys = {
      KeySpec::positive("bytescheduler_partition",
                        "partition size in gradient elements (BYTESCHEDULER_PARTITION)", 1e6)
          .at_most(1e15),
      KeySpec::positive("bytescheduler_credit",
                        "elements that may be in flight (BYTESCHEDULER_CREDIT)", 4e6)
          .at_most(1e15),
  };
  entry.plan = [](const BackwardProfile& profile, const Collective& /*collective*/,
                  const MergeSettings& /*settings*/,
                  double /*overlap_slowdown*/) { return detail::plan_wfbp(profile); };
  entry.priority = [](const MergeSettings& settings, int bytes_per_element) {
    const auto bytes = [&](const char* key) {
      return Bytes(std::max<std::int64_t>(
          1, static_cast<std::int64_t>(settings.number(key)) * bytes_per_element));
    };
    return PrioritySettings{bytes("bytescheduler_partition"), bytes("bytescheduler_credit")};
  };
  entry.by_default = false;
  return entry;
}

}  // namespace sgdsim
