// The worker and its communication stream as components on the engine; each schedules only its
// own next event. Phases order simultaneous events: compute milestones before message releases
// before stream completions, which keeps the FIFO order equal to the merge plan's order.
#include "sgdsim/training/iteration_simulation.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/run_monitor.hpp"
#include "sgdsim/engine/simulator.hpp"

namespace sgdsim {

namespace {

enum Phase : int { compute_phase = 0, release_phase = 1, stream_phase = 2 };

// One FIFO stream of collectives: a message starts when it is submitted and the stream is idle.
class CommunicationStream {
 public:
  using Done = std::function<void(Time start, Time end)>;

  explicit CommunicationStream(Simulator& simulator) : simulator_(simulator) {}

  void submit(Time duration, Done done) {
    queue_.push_back(Pending{duration, std::move(done)});
    if (!busy_) start_next();
  }

 private:
  struct Pending {
    Time duration;
    Done done;
  };

  void start_next() {
    if (queue_.empty()) {
      busy_ = false;
      return;
    }
    busy_ = true;
    const Time start = simulator_.now();
    const Time end = start + queue_.front().duration;
    simulator_.schedule_at(end, stream_phase, [this, start, end] {
      Done done = std::move(queue_.front().done);
      queue_.pop_front();
      done(start, end);
      start_next();
    });
  }

  Simulator& simulator_;
  std::deque<Pending> queue_;
  bool busy_ = false;
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
                           message_time(profile_, group, collective)});
    }
    backward_end_ = profile_.backward;
    if (overlap_slowdown != 1.0) {
      // Compute slowed while the stream is busy: the releases and backward's end move later.
      std::vector<Time> ready;
      std::vector<Time> durations;
      for (const Message& message : messages_) {
        ready.push_back(message.ready);
        durations.push_back(message.duration);
      }
      SlowedBackward slowed = slow_backward(profile_.backward, ready, durations, overlap_slowdown);
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
        stream_.submit(messages_[index].duration, [this, index](Time start, Time end) {
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
    Time duration;
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

// Every analytic iteration starts with the stream idle (the update waits for the last message)
// and replays the same plan, so it is the first one shifted: one is simulated, the rest copied.
SlowedBackward slow_backward(Time backward, const std::vector<Time>& ready,
                             const std::vector<Time>& durations, double slowdown) {
  SGDSIM_ASSERT(slowdown >= 1.0 && ready.size() == durations.size(),
                "a slowdown of at least 1, and a duration per message");
  SlowedBackward out;
  Time wall;         // offsets from backward's start
  Time work;         // backward's work done, in its full-speed time
  Time stream_free;  // when the stream has sent everything released so far
  // The wall-clock offset at which backward's work reaches `target`: at 1 / slowdown while the
  // stream is busy, at full speed after.
  const auto reach = [&](Time target) {
    if (target <= work) return wall;
    if (stream_free > wall) {
      const Time gained = (stream_free - wall).scaled(1.0 / slowdown);
      if (work + gained >= target) return wall + (target - work).scaled(slowdown);
      return stream_free + (target - work - gained);
    }
    return wall + (target - work);
  };
  bool ended = false;
  for (std::size_t i = 0; i < ready.size(); ++i) {
    if (!ended && backward <= ready[i]) {  // backward ends before this gradient's hook runs
      out.backward_end = reach(backward);
      ended = true;
    }
    const Time release = reach(ready[i]);
    wall = release;
    work = std::max(work, ready[i]);
    stream_free = std::max(release, stream_free) + durations[i];
    out.releases.push_back(release);
  }
  if (!ended) out.backward_end = reach(backward);
  return out;
}

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
