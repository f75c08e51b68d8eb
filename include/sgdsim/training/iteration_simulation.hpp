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

// What a run keeps of its iterations, whatever its length: the first ones in full (as many as a
// timeline can draw), the last one in full, and running totals.
struct SimulationResult {
  static constexpr std::size_t kept_iterations = 1000;  // `sgdsim run --timeline-iterations` cap

  std::vector<IterationTimeline> iterations;  // the first min(count, kept_iterations)
  IterationTimeline last;
  Time total;  // of every iteration's duration
  std::int64_t count = 0;
  // Events executed on the engine (analytic: one iteration's, counted once per iteration it
  // stands for) or rank-steps evaluated (per_rank).
  std::uint64_t events = 0;
  // per_rank only (empty, -1 elsewhere): every iteration's duration, for its percentiles, and
  // the rank whose backward ended last in the most iterations (the lowest such rank on ties)
  // with that number of iterations.
  std::vector<Time> durations;
  int slowest_rank = -1;
  std::int64_t slowest_rank_iterations = 0;

  // Appends the next iteration.
  void record(IterationTimeline iteration);
  // Appends `times` copies of `first`, each starting where the one before ends (an iteration
  // whose successors are identical, as in analytic fidelity: O(kept) whatever `times` is).
  void record_repeated(const IterationTimeline& first, std::int64_t times);
  Time mean_iteration() const;
};

// `overlap_slowdown` (>= 1) stretches backward's compute while a collective is in flight: the
// GPU computes at 1 / overlap_slowdown of its speed then (kernels beside NCCL's run slower), so
// gradients become ready later and backward ends later; 1 is the GPU at full speed.
SimulationResult simulate_iterations(const BackwardProfile& profile, const MergePlan& plan,
                                     const Collective& collective, int iterations,
                                     double overlap_slowdown = 1.0);

// Backward slowed while the stream is busy, worked out in one sweep: the wall-clock offsets
// (from backward's start) at which each message is released and backward ends, for messages
// ready at `ready` offsets of backward's own work (non-decreasing) that take `durations` on one
// FIFO stream, and a backward of `backward` at full speed. Between a release and the stream's
// next idle moment the stream is busy without a gap (every earlier message was released by
// then), so compute runs at 1 / slowdown until then and at full speed after.
struct SlowedBackward {
  std::vector<Time> releases;
  Time backward_end;
};
SlowedBackward slow_backward(Time backward, const std::vector<Time>& ready,
                             const std::vector<Time>& durations, double slowdown);

}  // namespace sgdsim
