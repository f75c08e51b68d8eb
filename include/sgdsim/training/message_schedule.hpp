// Gradient messages on one FIFO communication stream. A merge plan groups contiguous layers
// (backward order) into messages; message i starts at
//   sc(i) = max(sc(i-1) + tc(i-1), ready(i))
// (Shi et al., MG-WFBP, eq. for the WFBP pipeline), with ready(i) the readiness of its last layer
// or a later release time the policy imposes. Where the collective pipelines queued messages
// (Collective::queued_overlap oc(i) > 0: BytePS), message i ends at
//   ec(i) = max(ready(i) + tc(i), ec(i-1) + tc(i) - oc(i))
// and holds the stream alone from max(ready(i), ec(i-1)); with oc = 0 that is the form above.
// Times are offsets from the start of backward.
#pragma once

#include <algorithm>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/training/gradient_layers.hpp"

namespace sgdsim {

struct MessageGroup {
  int first = 0;  // index into BackwardProfile::layers, inclusive
  int last = 0;   // inclusive; first <= last
  Time release;   // earliest start the policy allows (0 when only readiness matters)
};

using MergePlan = std::vector<MessageGroup>;

struct ScheduledMessage {
  MessageGroup group;
  Bytes bytes;
  Time ready;
  Time start;
  Time end;
};

// Checks that the plan covers every layer once, in order; throws InvariantError if not.
void check_plan(const BackwardProfile& profile, const MergePlan& plan);

Bytes group_bytes(const BackwardProfile& profile, const MessageGroup& group);
// The group's gathered rows: what each worker contributes, and its size once summed.
struct GatheredBytes {
  Bytes contribution;
  Bytes dense;
};
GatheredBytes group_gathered(const BackwardProfile& profile, const MessageGroup& group);
// A group on the stream: its duration, the allreduce of its dense bytes then the gather of its
// layers' gathered rows where there are any, and the part of it that runs beside the message
// ahead (Collective::queued_overlap of its dense bytes; none where it gathers rows, whose
// allgather follows its allreduce).
struct MessageCost {
  Time duration;
  Time overlap;
};
MessageCost message_cost(const BackwardProfile& profile, const MessageGroup& group,
                         const Collective& collective);
// Its overlap alone (MessageCost::overlap), without its duration.
Time message_overlap(const BackwardProfile& profile, const MessageGroup& group,
                     const Collective& collective);

// A message on the stream, released at `release`, taking `duration` of which `overlap` runs
// beside the message ahead, which ends at `free`: it holds the stream alone from `begin` and
// ends at `end` (the formula above).
struct StreamSlot {
  Time begin;
  Time end;
};
inline StreamSlot on_stream(Time free, Time release, Time duration, Time overlap) {
  return {std::max(release, free), std::max(release + duration, free + duration - overlap)};
}

// Readiness of a group: its layers' latest ready time, or its release if later.
Time group_ready(const BackwardProfile& profile, const MessageGroup& group);

std::vector<ScheduledMessage> schedule_fifo(const BackwardProfile& profile, const MergePlan& plan,
                                            const Collective& collective);

// When the last message ends (0 with no messages).
Time communication_end(const std::vector<ScheduledMessage>& messages);

}  // namespace sgdsim
