// The closed-form FIFO recurrence; the discrete-event simulation must agree with it exactly.
#include "sgdsim/training/message_schedule.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

void check_plan(const BackwardProfile& profile, const MergePlan& plan) {
  int next = 0;
  for (const MessageGroup& group : plan) {
    SGDSIM_ASSERT(group.first == next && group.last >= group.first,
                  "merge plan is not a contiguous cover of the layers");
    next = group.last + 1;
  }
  SGDSIM_ASSERT(next == static_cast<int>(profile.layers.size()),
                "merge plan does not cover every layer");
}

Bytes group_bytes(const BackwardProfile& profile, const MessageGroup& group) {
  Bytes bytes;
  for (int index = group.first; index <= group.last; ++index) {
    bytes += profile.layers[static_cast<std::size_t>(index)].bytes;
  }
  return bytes;
}

GatheredBytes group_gathered(const BackwardProfile& profile, const MessageGroup& group) {
  GatheredBytes gathered;
  for (int index = group.first; index <= group.last; ++index) {
    gathered.contribution += profile.layers[static_cast<std::size_t>(index)].gathered;
    gathered.dense += profile.layers[static_cast<std::size_t>(index)].gathered_dense;
  }
  return gathered;
}

namespace {

// A group's overlap with the message ahead from its summed and gathered bytes: none where it
// gathers rows, whose allgather follows its allreduce.
Time overlap_of(Bytes summed, const GatheredBytes& gathered, const Collective& collective) {
  return gathered.contribution.count() > 0 ? Time::zero() : collective.queued_overlap(summed);
}

}  // namespace

Time message_overlap(const BackwardProfile& profile, const MessageGroup& group,
                     const Collective& collective) {
  return overlap_of(group_bytes(profile, group), group_gathered(profile, group), collective);
}

MessageCost message_cost(const BackwardProfile& profile, const MessageGroup& group,
                         const Collective& collective) {
  const Bytes summed = group_bytes(profile, group);
  const GatheredBytes gathered = group_gathered(profile, group);
  if (gathered.contribution.count() == 0) {
    return {collective.time(summed), overlap_of(summed, gathered, collective)};
  }
  const Gather* gather = collective.gather();
  SGDSIM_ASSERT(gather != nullptr, "gathered gradients on a collective that cannot gather");
  // A group of gathered rows alone starts no allreduce.
  const Time allreduce = summed.count() > 0 ? collective.time(summed) : Time::zero();
  return {allreduce + gather->gather_time(gathered.contribution, gathered.dense),
          overlap_of(summed, gathered, collective)};
}

Time group_ready(const BackwardProfile& profile, const MessageGroup& group) {
  Time ready = group.release;
  for (int index = group.first; index <= group.last; ++index) {
    ready = std::max(ready, profile.layers[static_cast<std::size_t>(index)].ready);
  }
  return ready;
}

std::vector<ScheduledMessage> schedule_fifo(const BackwardProfile& profile, const MergePlan& plan,
                                            const Collective& collective) {
  check_plan(profile, plan);
  std::vector<ScheduledMessage> messages;
  messages.reserve(plan.size());
  Time stream_free;
  Time submitted;  // messages join the stream in plan order, none before the one ahead
  for (const MessageGroup& group : plan) {
    ScheduledMessage message{
        group, group_bytes(profile, group), group_ready(profile, group), {}, {}};
    submitted = std::max(submitted, message.ready);
    const MessageCost cost = message_cost(profile, group, collective);
    const StreamSlot slot = on_stream(stream_free, submitted, cost.duration, cost.overlap);
    message.start = slot.begin;
    message.end = slot.end;
    stream_free = message.end;
    messages.push_back(message);
  }
  return messages;
}

Time communication_end(const std::vector<ScheduledMessage>& messages) {
  return messages.empty() ? Time::zero() : messages.back().end;
}

}  // namespace sgdsim
