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
// the collective's linear cost, one message after another. It looks one message ahead, so it is
// a heuristic, as the rule is beside a slowdown (`optimal` plans for it exactly). At full speed
// the two agree, and the rule is kept as it is; so it is where queued messages pipeline, whose
// ends a linear cost one after another misprices (BERT-base over BytePS planned so, with compute
// slowed 1.0001 times beside all its communication: 686.4 ms against the rule's 631.0).
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

Time linear_time(const LinearCost& linear, Bytes bytes) {
  return linear.startup + Time::rounded_ps(linear.ps_per_byte * static_cast<double>(bytes.count()));
}

// The criterion on the run's clock: `current` and `next` as one message or as two, on a stream
// free at `stream_free`, each taking the collective's linear cost, with backward slowed inside
// `compute`'s spans and, apart, inside the current message's too.
bool merge_keeps_pace(const LinearCost& linear, const SlowedCompute& compute, Time stream_free,
                      Pending current, Pending next) {
  const Time merged = std::max(compute.wall_at(std::max(current.ready, next.ready)), stream_free) +
                      linear_time(linear, current.bytes + next.bytes);
  const Time begin = std::max(compute.wall_at(current.ready), stream_free);
  const Time first_end = begin + linear_time(linear, current.bytes);
  // The next layer's wall time with the current message's span on the stream (it begins no
  // earlier than the closed ones end).
  const Time next_ready = compute.wall_at_with(next.ready, begin, first_end);
  return merged <= std::max(first_end, next_ready) + linear_time(linear, next.bytes);
}

}  // namespace

MergePlan plan_mgwfbp(const BackwardProfile& profile, const Collective& collective,
                      double overlap_slowdown) {
  SGDSIM_ASSERT(overlap_slowdown >= 1.0, "a slowdown of at least 1");
  const int count = detail::layer_count(profile);
  MergePlan plan;
  if (count == 0) return plan;
  const LinearCost linear = collective.linear_cost();
  // Whether queued messages pipeline, asked of the first layer's message (at flow fidelity a
  // pipelined runtime prices it by simulation, so not of the whole gradient).
  const Bytes probe(std::max<std::int64_t>(1, profile.layers.front().bytes.count()));
  const bool slowed = overlap_slowdown > 1.0 && collective.queued_overlap(probe) == Time::zero();
  Time stream_free;  // when the messages already closed have finished
  SlowedCompute compute(slowed ? overlap_slowdown : 1.0);  // backward's clock
  MessageGroup current{0, 0, {}};
  const auto pending_of = [&](int layer) {
    const GradientLayer& l = profile.layers[static_cast<std::size_t>(layer)];
    return Pending{l.bytes, l.ready};
  };
  Pending pending = pending_of(0);
  // The paper's rule. The message moves its data from max(ready, stream_free - overlap), its
  // overlap with the one ahead (on_stream's end less its duration). Its overlap is asked only
  // where it could change the decision, its cost (at flow fidelity a simulation) only once it
  // closes. Merging delays the current message by at most next_ready - start < alpha and saves
  // one startup of alpha, so it never hurts (Theorem 1) where messages run one after another.
  // Where a queued message runs its startup beside the one ahead (BytePS), merging saves less
  // and can cost: BERT-base over BytePS, MG-WFBP 653.3 ms against WFBP's 617.1, compute slowed
  // beside its NCCL stages (scenarios/bert_base_byteps_geforce_10gbe_flow.json; 626.1 against
  // 616.0 at full speed).
  const auto rule_merges = [&](Time ready, Time next_ready) {
    Time start = std::max(ready, stream_free);
    if (stream_free > ready && start + linear.startup > next_ready &&
        ready + linear.startup <= next_ready) {
      start = std::max(ready, stream_free - message_overlap(profile, current, collective));
    }
    return start + linear.startup > next_ready;
  };
  for (int next = 1; next <= count; ++next) {
    const Time ready = compute.wall_at(pending.ready);
    if (next < count) {
      const Pending after = pending_of(next);
      if (slowed ? merge_keeps_pace(linear, compute, stream_free, pending, after)
                 : rule_merges(ready, after.ready)) {
        current.last = next;
        pending = {pending.bytes + after.bytes, std::max(pending.ready, after.ready)};
        continue;
      }
    }
    const MessageCost cost = message_cost(profile, current, collective);
    const StreamSlot slot = on_stream(stream_free, ready, cost.duration, cost.overlap);
    stream_free = slot.end;
    compute.busy(slot.begin, slot.end);
    plan.push_back(current);
    current = MessageGroup{next, next, {}};
    if (next < count) pending = pending_of(next);
  }
  return plan;
}

}  // namespace detail

MergePolicyEntry mgwfbp_policy() {
  return {{"mgwfbp",
           "MG-WFBP: merge while a message would start within one startup of the next (beside "
           "a slowdown: while merging ends the pair no later)",
           {},
           {},
           "MG-WFBP"},
          [](const BackwardProfile& profile, const Collective& collective,
             const MergeSettings& /*settings*/, double overlap_slowdown) {
            return detail::plan_mgwfbp(profile, collective, overlap_slowdown);
          }};
}

}  // namespace sgdsim
