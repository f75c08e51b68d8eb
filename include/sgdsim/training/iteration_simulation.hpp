// Synchronous SGD iterations of one representative worker as discrete events: forward, backward
// releasing gradient messages onto a FIFO communication stream, the optimizer update once
// backward and the last message are both done, then the next iteration's forward. With every
// rank identical (analytic fidelity) one worker stands for all of them.
#pragma once

#include <cstdint>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/training/message_schedule.hpp"

namespace sgdsim {

struct IterationTimeline {
  Time start;
  Time backward_start;
  Time backward_end;
  Time communication_end;  // equals backward_start when there are no messages
  Time end;
  std::vector<ScheduledMessage> messages;  // times as offsets from backward_start

  Time duration() const { return end - start; }
};

struct SimulationResult {
  std::vector<IterationTimeline> iterations;
  std::uint64_t events = 0;  // events executed (analytic) or rank-steps evaluated (per_rank)

  Time mean_iteration() const;
};

SimulationResult simulate_iterations(const BackwardProfile& profile, const MergePlan& plan,
                                     const Collective& collective, int iterations);

}  // namespace sgdsim
