// The worker and its communication stream as components on the engine; each schedules only its
// own next event. Phases order simultaneous events: compute milestones before message releases
// before stream completions, which keeps the FIFO order equal to the merge plan's order.
#include "sgdsim/training/iteration_simulation.hpp"

#include <algorithm>
#include <functional>
#include <memory>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/run_monitor.hpp"
#include "sgdsim/engine/simulator.hpp"

namespace sgdsim {

namespace {

enum Phase : int { compute_phase = 0, release_phase = 1, stream_phase = 2 };

// One FIFO stream of collectives: a message holds it from when it is submitted and the message
// ahead has ended, and ends as on_stream says (message_schedule.hpp): its duration later, or,
// where the collective pipelines queued messages, its duration less the part run beside the
// message ahead after that one ends. Ends never decrease, so completions come in FIFO order.
class CommunicationStream {
 public:
  using Done = std::function<void(Time start, Time end)>;

  explicit CommunicationStream(Simulator& simulator) : simulator_(simulator) {}

  void submit(MessageCost cost, Done done) {
    const StreamSlot slot = on_stream(last_end_, simulator_.now(), cost.duration, cost.overlap);
    last_end_ = slot.end;
    simulator_.schedule_at(slot.end, stream_phase,
                           [slot, done = std::move(done)] { done(slot.begin, slot.end); });
  }

 private:
  Simulator& simulator_;
  Time last_end_;  // of the last message submitted
};

// One worker's iteration on the engine: forward, backward releasing the messages, the update.
class Worker {
 public:
  Worker(Simulator& simulator, const BackwardProfile& profile, const MergePlan& plan,
         const Collective& collective, double overlap_slowdown)
      : simulator_(simulator), profile_(profile), plan_(plan), stream_(simulator) {
    // The messages' sizes, release offsets (in plan order, so ties keep the plan's FIFO order)
    // and durations are fixed by the plan.
    Time previous_ready;
    for (const MessageGroup& group : plan_) {
      previous_ready = std::max(previous_ready, group_ready(profile_, group));
      messages_.push_back({group_bytes(profile_, group), previous_ready,
                           message_cost(profile_, group, collective)});
    }
    backward_end_ = profile_.backward;
    if (overlap_slowdown != 1.0) {
      // Compute slowed while the stream is busy: the releases and backward's end move later.
      std::vector<Time> ready;
      std::vector<MessageCost> costs;
      for (const Message& message : messages_) {
        ready.push_back(message.ready);
        costs.push_back(message.cost);
      }
      SlowedBackward slowed = slow_backward(profile_.backward, ready, costs, overlap_slowdown);
      for (std::size_t i = 0; i < messages_.size(); ++i) messages_[i].ready = slowed.releases[i];
      backward_end_ = slowed.backward_end;
    }
  }

  void start_iteration() {
    timeline_.start = simulator_.now();
    simulator_.schedule_in(profile_.forward, compute_phase, [this] { start_backward(); });
  }

  const IterationTimeline& timeline() const { return timeline_; }

 private:
  void start_backward() {
    const Time backward_start = simulator_.now();
    timeline_.backward_start = backward_start;
    timeline_.communication_end = backward_start;
    done_ = std::make_unique<CompletionCounter>(static_cast<int>(plan_.size()) + 1,
                                                [this] { start_update(); });
    simulator_.schedule_in(backward_end_, compute_phase, [this] {
      timeline_.backward_end = simulator_.now();
      done_->arrive();
    });
    for (std::size_t index = 0; index < plan_.size(); ++index) {
      simulator_.schedule_at(backward_start + messages_[index].ready, release_phase, [this, index] {
        const Message& submitted = messages_[index];
        stream_.submit(submitted.cost, [this, index](Time start, Time end) {
          const Message& message = messages_[index];
          const Time origin = timeline_.backward_start;
          timeline_.messages.push_back(
              {plan_[index], message.bytes, message.ready, start - origin, end - origin});
          timeline_.communication_end = end;
          done_->arrive();
        });
      });
    }
  }

  void start_update() {
    simulator_.schedule_in(profile_.optimizer, compute_phase,
                           [this] { timeline_.end = simulator_.now(); });
  }

  Simulator& simulator_;
  const BackwardProfile& profile_;
  const MergePlan& plan_;
  struct Message {
    Bytes bytes;
    Time ready;  // release offset from the start of backward
    MessageCost cost;
  };
  std::vector<Message> messages_;  // one per plan group
  Time backward_end_;              // offset from the start of backward
  CommunicationStream stream_;
  IterationTimeline timeline_;
  std::unique_ptr<CompletionCounter> done_;
};

IterationTimeline shifted(IterationTimeline timeline, Time by) {
  timeline.start += by;
  timeline.backward_start += by;
  timeline.backward_end += by;
  timeline.communication_end += by;
  timeline.end += by;
  return timeline;  // messages are offsets from backward_start: unchanged
}

}  // namespace

void SimulationResult::record(IterationTimeline iteration) {
  report_simulated_iterations(1);  // progress, and a stop asked for from outside
  total += iteration.duration();
  ++count;
  if (iterations.size() < kept_iterations) iterations.push_back(iteration);
  last = std::move(iteration);
}

void SimulationResult::record_repeated(const IterationTimeline& first, std::int64_t times) {
  SGDSIM_ASSERT(times >= 1 && first.start == (count == 0 ? Time::zero() : last.end),
                "repeat an iteration that starts where the run stands, at least once");
  const Time duration = first.duration();
  for (std::int64_t i = 0; i < times && iterations.size() < kept_iterations; ++i) {
    iterations.push_back(shifted(first, duration * i));
  }
  last = shifted(first, duration * (times - 1));
  total += duration * times;
  count += times;
  report_simulated_iterations(static_cast<std::uint64_t>(times));
}

Time SimulationResult::mean_iteration() const {
  SGDSIM_ASSERT(count > 0, "no iterations were simulated");
  return Time::from_ps(total.ps() / count);
}

SlowedCompute::SlowedCompute(double slowdown) : slowdown_(slowdown) {
  SGDSIM_ASSERT(slowdown >= 1.0, "a slowdown of at least 1");
}

SlowedCompute::Span& SlowedCompute::starting_at(Time begin) {
  SGDSIM_ASSERT(spans_.empty() || spans_.back().end <= begin,
                "busy spans in order, none overlapping the last");
  if (spans_.empty() || spans_.back().end != begin) {
    const Time work = work_at(begin);
    spans_.push_back({begin, begin, work, work});
  }
  return spans_.back();
}

void SlowedCompute::end_at(Span& span, Time end) {
  span.end = end;
  span.work_end = span.work_begin + (end - span.begin).scaled(1.0 / slowdown_);
}

void SlowedCompute::busy(Time begin, Time end) {
  SGDSIM_ASSERT(begin <= end, "a busy span ends after it begins");
  if (slowdown_ == 1.0 || begin == end) return;
  end_at(starting_at(begin), end);
}

void SlowedCompute::open(Time begin) {
  if (slowdown_ == 1.0) return;
  Span& span = starting_at(begin);
  span.end = Time::max();
  span.work_end = Time::max();
}

void SlowedCompute::close(Time end) {
  if (slowdown_ == 1.0) return;
  SGDSIM_ASSERT(!spans_.empty() && spans_.back().end == Time::max() && spans_.back().begin <= end,
                "close the open span, after it began");
  end_at(spans_.back(), end);
}

Time SlowedCompute::work_at(Time wall) const {
  // The last span beginning at or before `wall`.
  const auto after = std::upper_bound(spans_.begin(), spans_.end(), wall,
                                      [](Time t, const Span& span) { return t < span.begin; });
  if (after == spans_.begin()) return wall;
  const Span& span = *(after - 1);
  if (wall <= span.end) return span.work_begin + (wall - span.begin).scaled(1.0 / slowdown_);
  return span.work_end + (wall - span.end);
}

Time SlowedCompute::wall_at(Time work) const {
  // The last span whose work begins at or before `work`.
  const auto after = std::upper_bound(spans_.begin(), spans_.end(), work,
                                      [](Time w, const Span& span) { return w < span.work_begin; });
  if (after == spans_.begin()) return work;
  const Span& span = *(after - 1);
  if (work <= span.work_end) return span.begin + (work - span.work_begin).scaled(slowdown_);
  return span.end + (work - span.work_end);
}

Time SlowedCompute::wall_at_with(Time work, Time begin, Time end) const {
  SGDSIM_ASSERT(spans_.empty() || begin >= spans_.back().end, "a span after the others");
  const Time work_begin = work_at(begin);
  if (work <= work_begin) return wall_at(work);
  const Time inside = (end - begin).scaled(1.0 / slowdown_);  // work done in the span
  const Time left = work - work_begin;
  return left <= inside ? begin + left.scaled(slowdown_) : end + (left - inside);
}

SlowedBackward slow_backward(Time backward, const std::vector<Time>& ready,
                             const std::vector<MessageCost>& costs, double slowdown) {
  SGDSIM_ASSERT(ready.size() == costs.size(), "a cost per message");
  SlowedBackward out;
  SlowedCompute compute(slowdown);  // offsets from backward's start, nothing busy before it
  Time stream_free;
  for (std::size_t i = 0; i < ready.size(); ++i) {
    const Time release = compute.wall_at(ready[i]);
    const StreamSlot slot = on_stream(stream_free, release, costs[i].duration, costs[i].overlap);
    stream_free = slot.end;
    compute.busy(slot.begin, slot.end);
    out.releases.push_back(release);
  }
  out.backward_end = compute.wall_at(backward);
  return out;
}

// Every analytic iteration starts with the stream idle (the update waits for the last message)
// and replays the same plan, so it is the first one shifted: one is simulated, the rest copied.
SimulationResult simulate_iterations(const BackwardProfile& profile, const MergePlan& plan,
                                     const Collective& collective, int iterations,
                                     double overlap_slowdown) {
  SGDSIM_ASSERT(iterations >= 1, "simulate at least one iteration");
  check_plan(profile, plan);
  Simulator simulator;
  Worker worker(simulator, profile, plan, collective, overlap_slowdown);
  worker.start_iteration();
  simulator.run();
  const IterationTimeline& first = worker.timeline();
  SGDSIM_ASSERT(first.end >= first.start && first.messages.size() == plan.size(),
                "simulation stopped before its iteration ended");
  SimulationResult result;
  result.record_repeated(first, iterations);
  result.events = simulator.executed() * static_cast<std::uint64_t>(iterations);
  return result;
}

}  // namespace sgdsim
