// Work that is not one lockstep program: items (BytePS's partitions of a message) that each pass
// through a sequence of stages, where a stage is a transfer program on the flow network or a
// fixed piece of local work (a server CPU's summation), and runs on a resource that serves one
// stage at a time (a NCCL stream, a TCP connection, a CPU) or on none (it starts once ready).
// Stages of different items overlap wherever their resources differ, and their flows share the
// network's links by max-min fairness: a pipeline as the flow level sees it, where a closed form
// can only take the busiest resource's time per item.
//
// Every item is ready at time zero. A resource that falls free takes the waiting stage of the
// lowest item: the order of a message's partitions, which is the order BytePS's scheduled
// queues serve them in (one priority per tensor, its partitions in key order;
// byteps/common/scheduled_queue.cc). A resource chooses after the network's arrivals and the
// queued actions due at that time (a later phase), so stages that become ready at the same time
// by those are chosen among in item order, whichever the engine ran first. (A stage that becomes
// ready at that time only by a chain of stages taking no time may come too late to be chosen.)
#pragma once

#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/network/flow_network.hpp"

namespace sgdsim {

struct PipelineStage {
  const TransferProgram* program = nullptr;  // null: `work` on the resource
  Time work;
  int resource = -1;  // -1: none, the stage starts as soon as its item reaches it
  // The program to run instead when the stage was waiting for its resource and takes it the
  // moment the previous stage there left it: on a connection that stays busy, the next
  // message's bytes follow the last one's at once, so its latency overlaps that message's
  // transfer and it starts with none (steps of latency zero). Null: `program` either way.
  const TransferProgram* streamed = nullptr;
};

struct Pipeline {
  int items = 0;
  int resources = 0;  // resource ids are 0 .. resources-1
  // Item i passes through the stages routes[i % routes.size()], in order. The programs must
  // outlive the run.
  std::vector<std::vector<PipelineStage>> routes;
};

// When the last item leaves its last stage, the pipeline running alone on `network` from time
// zero.
Time run_pipeline(FlowNetwork& network, const Pipeline& pipeline);

}  // namespace sgdsim
