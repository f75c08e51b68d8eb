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

// compute.overlap_slowdown's default where GPU kernels run the collectives: Lee et al.
// (arXiv:2507.03114) measured compute kernels beside NCCL's 18.9% slower on average, 40% at
// most (the upper end of the range `sgdsim run` reports).
inline constexpr double default_overlap_slowdown = 1.189;
inline constexpr double most_overlap_slowdown = 1.40;

// Compute slowed beside a busy stream: it runs at 1 / slowdown inside the stream's busy spans
// and at full speed outside them. The spans are wall-clock times on one clock, added in order
// (each begins no earlier than the last ends; touching spans merge). work_at(t) is the
// full-speed compute time the wall clock holds up to t (t itself before the first span), and
// wall_at its inverse: a compute that runs from wall time a for w of full-speed work ends at
// wall_at(work_at(a) + w). Both are O(log spans). A span whose end is not known yet is opened,
// then closed; until then it reaches to the end of time.
class SlowedCompute {
 public:
  explicit SlowedCompute(double slowdown);
  void busy(Time begin, Time end);
  void open(Time begin);
  void close(Time end);
  void clear() { spans_.clear(); }  // no span: the wall clock is the work again
  Time work_at(Time wall) const;
  Time wall_at(Time work) const;
  // wall_at(work) as if busy(begin, end) were added first (begin no earlier than the last span
  // ends), without adding it: a planner's look at the clock one message ahead.
  Time wall_at_with(Time work, Time begin, Time end) const;
  // The wall-clock end of `work` of full-speed compute begun at wall time `from`.
  Time finish(Time from, Time work) const { return wall_at(work_at(from) + work); }

 private:
  struct Span {
    Time begin, end;            // wall clock
    Time work_begin, work_end;  // work_at(begin), work_at(end)
  };
  // The span that `begin` starts: the last one where it ends there (one busy stretch, one
  // rounding), else a new one.
  Span& starting_at(Time begin);
  void end_at(Span& span, Time end);
  double slowdown_;
  std::vector<Span> spans_;
};

// Backward slowed while the stream is busy, worked out in one sweep: the wall-clock offsets
// (from backward's start) at which each message is released and backward ends, for messages
// ready at `ready` offsets of backward's own work (non-decreasing) that cost `costs` on one
// FIFO stream (message_schedule.hpp's on_stream), and a backward of `backward` at full speed. A
// message's release depends only on the spans of the messages before it, which are known by then.
struct SlowedBackward {
  std::vector<Time> releases;
  Time backward_end;
};
SlowedBackward slow_backward(Time backward, const std::vector<Time>& ready,
                             const std::vector<MessageCost>& costs, double slowdown);

}  // namespace sgdsim
