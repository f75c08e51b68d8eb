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

// A message not yet sent: its bytes, and the backward work after which its layers are ready.
struct Pending {
  Bytes bytes;
  Time ready;
};

// The criterion on the run's clock: `current` and `next` as one message or as two, on a stream
// free at `stream_free`, each taking the collective's linear cost, with backward slowed by
// `slowdown` inside `compute`'s spans and, apart, inside the current message's too.
bool merge_keeps_pace(const LinearCost& linear, const SlowedCompute& compute, double slowdown,
                      Time stream_free, Pending current, Pending next) {
  const auto cost = [&](Bytes bytes) {
    return linear.startup +
           Time::rounded_ps(linear.ps_per_byte * static_cast<double>(bytes.count()));
  };
  const Time merged = std::max(compute.wall_at(std::max(current.ready, next.ready)), stream_free) +
                      cost(current.bytes + next.bytes);
  const Time begin = std::max(compute.wall_at(current.ready), stream_free);
  const Time first_end = begin + cost(current.bytes);
  // The next layer's wall time with the current message's span added after the others (it
  // begins no earlier than they end): work past the span's start runs at 1 / slowdown until
  // first_end, then at full speed.
  const Time work_at_begin = compute.work_at(begin);
  Time next_ready = compute.wall_at(next.ready);
  if (next.ready > work_at_begin) {
    const Time inside = (first_end - begin).scaled(1.0 / slowdown);  // work done in the span
    const Time left = next.ready - work_at_begin;
    next_ready = left <= inside ? begin + left.scaled(slowdown) : first_end + (left - inside);
  }
  return merged <= std::max(first_end, next_ready) + cost(next.bytes);
}

}  // namespace

MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective,
                      double overlap_slowdown) {
  SGDSIM_ASSERT(overlap_slowdown >= 1.0, "a slowdown of at least 1");
  const Time alpha = collective.linear_cost().startup;
  MergePlan plan;
  Time stream_free;                         // when the messages already closed have finished
  SlowedCompute compute(overlap_slowdown);  // backward's wall clock, slowed in the closed spans
  const LinearCost linear = collective.linear_cost();
  MessageGroup current{0, 0, {}};
  Pending pending{group_bytes(profile, current), group_ready(profile, current)};
  for (int next = 1; next <= detail::layer_count(profile); ++next) {
    const Time ready = compute.wall_at(pending.ready);
    if (next < detail::layer_count(profile)) {
      const GradientLayer& layer = profile.layers[static_cast<std::size_t>(next)];
      if (overlap_slowdown > 1.0) {
        const Pending after{layer.bytes, layer.ready};
        if (merge_keeps_pace(linear, compute, overlap_slowdown, stream_free, pending, after)) {
          current.last = next;
          pending = {pending.bytes + after.bytes, std::max(pending.ready, after.ready)};
          continue;
        }
      } else {
        // The message moves its data from max(ready, stream_free - overlap), its overlap with
        // the one ahead (on_stream's end less its duration). Its overlap is asked only where it
        // could change the decision, its cost (at flow fidelity a simulation) only once it
        // closes.
        Time start = std::max(ready, stream_free);
        const Time next_ready = layer.ready;
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
          pending = {pending.bytes + layer.bytes, std::max(pending.ready, layer.ready)};
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
    if (next < detail::layer_count(profile)) {
      const GradientLayer& layer = profile.layers[static_cast<std::size_t>(next)];
      pending = {layer.bytes, layer.ready};
    }
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
