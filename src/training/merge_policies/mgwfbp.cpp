// MG-WFBP (Shi et al., INFOCOM'19): merge layer l into the next one when l's message would
// start less than one startup (alpha, from the collective's linear cost) before the next layer
// is ready. A message starts and ends as the simulations run it on the stream (on_stream): where
// the runtime pipelines queued messages (BytePS), it starts moving its data before the one ahead
// has ended.
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective) {
  const Time alpha = collective.linear_cost().startup;
  MergePlan plan;
  Time stream_free;  // when the messages already closed have finished
  MessageGroup current{0, 0, {}};
  for (int next = 1; next <= detail::layer_count(profile); ++next) {
    const Time ready = group_ready(profile, current);
    // The message moves its data from max(ready, stream_free - overlap), its overlap with the
    // one ahead (on_stream's end less its duration). Its overlap is asked only where it could
    // change the decision, its cost (at flow fidelity a simulation) only once it closes.
    Time start = std::max(ready, stream_free);
    if (next < detail::layer_count(profile)) {
      const Time next_ready = profile.layers[static_cast<std::size_t>(next)].ready;
      if (stream_free > ready && start + alpha > next_ready && ready + alpha <= next_ready) {
        start = std::max(ready, stream_free - message_overlap(profile, current, collective));
      }
      // Merging delays the current message by at most next_ready - start < alpha and saves one
      // startup of alpha, so it never hurts (Shi et al., INFOCOM'19, Theorem 1) where messages
      // run one after another. Where a queued message runs its startup beside the one ahead
      // (BytePS), merging saves less and can cost: BERT-base over BytePS, MG-WFBP 626.1 ms
      // against WFBP's 616.0 (scenarios/bert_base_byteps_geforce_10gbe_flow.json).
      if (start + alpha > next_ready) {
        current.last = next;
        continue;
      }
    }
    const MessageCost cost = message_cost(profile, current, collective);
    stream_free = on_stream(stream_free, ready, cost.duration, cost.overlap).end;
    plan.push_back(current);
    current = MessageGroup{next, next, {}};
  }
  return plan;
}

}  // namespace detail

MergePolicyEntry mgwfbp_policy() {
  return {{"mgwfbp",
           "MG-WFBP: merge while a message would start within one startup of the next",
           {},
           {},
           "MG-WFBP"},
          [](const BackwardProfile& profile, const Collective& collective,
             const MergeSettings& /*settings*/,
             double /*overlap_slowdown*/) { return detail::plan_mgwfbp(profile, collective); }};
}

}  // namespace sgdsim
