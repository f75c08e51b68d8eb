// The worker and its communication stream as components on the engine; each schedules only its
// own next event. Phases order simultaneous events: compute milestones before message releases
// before stream completions, which keeps the FIFO order equal to the merge plan's order.
#include "sgdsim/training/iteration_simulation.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>

#include "sgdsim/core/error.hpp"
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

class Worker {
 public:
  Worker(Simulator& simulator, const BackwardProfile& profile, const MergePlan& plan,
         const Collective& collective, int iterations, std::vector<IterationTimeline>& out)
      : simulator_(simulator),
        profile_(profile),
        plan_(plan),
        stream_(simulator),
        iterations_left_(iterations),
        out_(out) {
    // Every iteration releases the same messages: their sizes, release offsets (in plan order,
    // so ties keep the plan's FIFO order) and durations are fixed by the plan.
    Time previous_ready;
    for (const MessageGroup& group : plan_) {
      previous_ready = std::max(previous_ready, group_ready(profile_, group));
      messages_.push_back({group_bytes(profile_, group), previous_ready,
                           message_time(profile_, group, collective)});
    }
  }

  void start_iteration() {
    out_.push_back(IterationTimeline{});
    current().start = simulator_.now();
    simulator_.schedule_in(profile_.forward, compute_phase, [this] { start_backward(); });
  }

 private:
  IterationTimeline& current() { return out_.back(); }

  void start_backward() {
    const Time backward_start = simulator_.now();
    current().backward_start = backward_start;
    current().communication_end = backward_start;
    done_ = std::make_unique<CompletionCounter>(static_cast<int>(plan_.size()) + 1,
                                                [this] { start_update(); });
    simulator_.schedule_in(profile_.backward, compute_phase, [this] {
      current().backward_end = simulator_.now();
      done_->arrive();
    });
    for (std::size_t index = 0; index < plan_.size(); ++index) {
      simulator_.schedule_at(backward_start + messages_[index].ready, release_phase, [this, index] {
        stream_.submit(messages_[index].duration, [this, index](Time start, Time end) {
          const Message& message = messages_[index];
          const Time origin = current().backward_start;
          current().messages.push_back(
              {plan_[index], message.bytes, message.ready, start - origin, end - origin});
          current().communication_end = end;
          done_->arrive();
        });
      });
    }
  }

  void start_update() {
    simulator_.schedule_in(profile_.optimizer, compute_phase, [this] {
      current().end = simulator_.now();
      if (--iterations_left_ > 0) start_iteration();
    });
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
  CommunicationStream stream_;
  int iterations_left_;
  std::vector<IterationTimeline>& out_;
  std::unique_ptr<CompletionCounter> done_;
};

}  // namespace

Time SimulationResult::mean_iteration() const {
  SGDSIM_ASSERT(!iterations.empty(), "no iterations were simulated");
  Time total;
  for (const IterationTimeline& iteration : iterations) total += iteration.duration();
  return Time::from_ps(total.ps() / static_cast<std::int64_t>(iterations.size()));
}

SimulationResult simulate_iterations(const BackwardProfile& profile, const MergePlan& plan,
                                     const Collective& collective, int iterations) {
  SGDSIM_ASSERT(iterations >= 1, "simulate at least one iteration");
  check_plan(profile, plan);
  SimulationResult result;
  result.iterations.reserve(static_cast<std::size_t>(iterations));
  Simulator simulator;
  Worker worker(simulator, profile, plan, collective, iterations, result.iterations);
  worker.start_iteration();
  simulator.run();
  SGDSIM_ASSERT(static_cast<int>(result.iterations.size()) == iterations &&
                    result.iterations.back().end >= result.iterations.back().start,
                "simulation stopped before its last iteration ended");
  result.events = simulator.executed();
  return result;
}

}  // namespace sgdsim
