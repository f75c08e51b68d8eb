// MG-WFBP (Shi et al., INFOCOM'19): merge layer l into the next one when l's message would
// start less than one startup (alpha, from the collective's linear cost) before the next layer
// is ready. A message starts and ends as the simulations run it on the stream (on_stream): where
// the runtime pipelines queued messages (BytePS), it starts moving its data before the one ahead
// has ended.
//
// The rule is the paper's criterion for a merge, that it does not delay the pair's end (its
// Theorem 1), under the paper's premise that sending a message does not move the next layer.
// Where compute slows beside the collectives (compute.overlap_slowdown) that premise fails:
// sending l now slows backward until l's gradient is sent, and the next layer is ready later.
// There the criterion itself decides: the pair's end merged against apart, on the run's clock
// (backward slowed inside the messages' spans on the stream, as the simulations slow it) with
// the collective's linear cost. At full speed the two agree, and the rule is kept as it is.
#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

namespace {

// The criterion on the run's clock: `current` and `next` (`next` alone) as one message or as
// two, on a stream free at `stream_free`, with backward slowed inside `compute`'s spans.
bool merge_keeps_pace(const BackwardProfile& profile, const Collective& collective,
                      const SlowedCompute& compute, Time stream_free, MessageGroup current,
                      MessageGroup next) {
  const LinearCost linear = collective.linear_cost();
  const auto cost = [&](const MessageGroup& group) {
    return linear.startup +
           Time::rounded_ps(linear.ps_per_byte *
                            static_cast<double>(group_bytes(profile, group).count()));
  };
  const MessageGroup pair{current.first, next.last, {}};
  const Time merged =
      std::max(compute.wall_at(group_ready(profile, pair)), stream_free) + cost(pair);
  const Time begin = std::max(compute.wall_at(group_ready(profile, current)), stream_free);
  const Time first_end = begin + cost(current);
  SlowedCompute sending = compute;  // the current message on the stream, slowing backward
  sending.busy(begin, first_end);
  const Time apart = std::max(first_end, sending.wall_at(group_ready(profile, next))) + cost(next);
  return merged <= apart;
}

}  // namespace

MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective,
                      double overlap_slowdown) {
  SGDSIM_ASSERT(overlap_slowdown >= 1.0, "a slowdown of at least 1");
  const Time alpha = collective.linear_cost().startup;
  MergePlan plan;
  Time stream_free;                         // when the messages already closed have finished
  SlowedCompute compute(overlap_slowdown);  // backward's wall clock, slowed in the closed spans
  MessageGroup current{0, 0, {}};
  for (int next = 1; next <= detail::layer_count(profile); ++next) {
    const Time ready = compute.wall_at(group_ready(profile, current));
    if (next < detail::layer_count(profile)) {
      if (overlap_slowdown > 1.0) {
        if (merge_keeps_pace(profile, collective, compute, stream_free, current,
                             MessageGroup{next, next, {}})) {
          current.last = next;
          continue;
        }
      } else {
        // The message moves its data from max(ready, stream_free - overlap), its overlap with
        // the one ahead (on_stream's end less its duration). Its overlap is asked only where it
        // could change the decision, its cost (at flow fidelity a simulation) only once it
        // closes.
        Time start = std::max(ready, stream_free);
        const Time next_ready = profile.layers[static_cast<std::size_t>(next)].ready;
        if (stream_free > ready && start + alpha > next_ready && ready + alpha <= next_ready) {
          start = std::max(ready, stream_free - message_overlap(profile, current, collective));
        }
        // Merging delays the current message by at most next_ready - start < alpha and saves
        // one startup of alpha, so it never hurts (Theorem 1) where messages run one after
        // another. Where a queued message runs its startup beside the one ahead (BytePS),
        // merging saves less and can cost: BERT-base over BytePS, MG-WFBP 626.1 ms against
        // WFBP's 616.0 (scenarios/bert_base_byteps_geforce_10gbe_flow.json).
        if (start + alpha > next_ready) {
          current.last = next;
          continue;
        }
      }
    }
    const MessageCost cost = message_cost(profile, current, collective);
    const StreamSlot slot = on_stream(stream_free, ready, cost.duration, cost.overlap);
    stream_free = slot.end;
    compute.busy(slot.begin, slot.end);
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
             const MergeSettings& /*settings*/, double overlap_slowdown) {
            return detail::plan_mgwfbp(profile, collective, overlap_slowdown);
          }};
}

}  // namespace sgdsim
