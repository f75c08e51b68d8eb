// Jobs sharing a fabric: one worker per job on one engine, their messages' programs on one flow
// network. Phases order simultaneous events as in iteration_simulation.cpp: compute milestones
// before message releases before stream completions.
#include "sgdsim/training/shared_fabric.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "sgdsim/core/error.hpp"
#include "sgdsim/engine/simulator.hpp"

namespace sgdsim {

namespace {

enum Phase : int { compute_phase = 0, release_phase = 1, stream_phase = 2 };

// One job's worker: iterations back to back from its start, its messages on a FIFO stream whose
// messages either run their programs on the shared network or take known times.
class FabricWorker {
 public:
  FabricWorker(Simulator& simulator, FlowNetwork* network, const FabricJob& job,
               std::vector<Time> alone, SimulationResult& result)
      : simulator_(simulator),
        network_(network),
        job_(job),
        alone_(std::move(alone)),
        result_(result),
        compute_(job.overlap_slowdown) {
    simulator_.schedule_at(job_.start, compute_phase, [this] { start_iteration(); });
  }

 private:
  void start_iteration() {
    timeline_ = IterationTimeline{};
    timeline_.start = simulator_.now();
    simulator_.schedule_in(job_.forward, compute_phase, [this] { start_backward(); });
  }

  void start_backward() {
    const Time backward_start = simulator_.now();
    timeline_.backward_start = backward_start;
    timeline_.communication_end = backward_start;
    done_ = std::make_unique<CompletionCounter>(static_cast<int>(job_.messages.size()) + 1,
                                                [this] { start_update(); });
    compute_.clear();
    release_at_.assign(job_.messages.size(), Time::zero());
    released_ = 0;
    backward_ended_ = false;
    schedule_milestone();
  }

  // Backward's milestones one at a time, the next in its work (backward's end before a release
  // due at the same work, as the phases order them), at the wall time the stream's spans so far
  // give it (job_.overlap_slowdown; at 1, its work offset); scheduled again whenever the stream
  // starts or stops.
  void schedule_milestone() {
    if (milestone_) simulator_.cancel(*milestone_);
    milestone_.reset();
    const Time origin = timeline_.backward_start;
    const bool releases_left = released_ < job_.messages.size();
    if (!backward_ended_ && (!releases_left || job_.backward <= job_.messages[released_].ready)) {
      milestone_ =
          simulator_.schedule_at(origin + compute_.wall_at(job_.backward), compute_phase, [this] {
            milestone_.reset();
            backward_ended_ = true;
            timeline_.backward_end = simulator_.now();
            done_->arrive();
            schedule_milestone();
          });
    } else if (releases_left) {
      milestone_ = simulator_.schedule_at(
          origin + compute_.wall_at(job_.messages[released_].ready), release_phase, [this] {
            milestone_.reset();
            release_at_[released_] = simulator_.now() - timeline_.backward_start;
            submit(released_++);
            schedule_milestone();
          });
    }
  }

  // The stream starts or stops: a slowed backward's milestones move.
  void stream_busy(bool busy) {
    busy_ = busy;
    if (job_.overlap_slowdown == 1.0 || (backward_ended_ && released_ == job_.messages.size())) {
      return;
    }
    const Time now = simulator_.now() - timeline_.backward_start;
    if (busy) {
      compute_.open(now);
    } else {
      compute_.close(now);
    }
    schedule_milestone();
  }

  void submit(std::size_t index) {
    queue_.push_back(index);
    if (!busy_) start_next();
  }

  void start_next() {
    if (queue_.empty()) {
      stream_busy(false);
      return;
    }
    if (!busy_) stream_busy(true);
    const std::size_t index = queue_.front();
    const Time start = simulator_.now();
    if (network_ == nullptr) {
      simulator_.schedule_in(alone_[index], stream_phase,
                             [this, index, start] { finish(index, start); });
      return;
    }
    simulator_.schedule_in(job_.messages[index].local, stream_phase,
                           [this, index, start] { run_program(index, 0, start); });
  }

  void run_program(std::size_t index, std::size_t program, Time start) {
    const FabricMessage& message = job_.messages[index];
    if (program == message.programs.size()) {
      finish(index, start);
      return;
    }
    network_->start(simulator_, message.programs[program], [this, index, program, start](Time) {
      run_program(index, program + 1, start);
    });
  }

  void finish(std::size_t index, Time start) {
    const FabricMessage& message = job_.messages[index];
    const Time origin = timeline_.backward_start;
    const Time end = simulator_.now();
    timeline_.messages.push_back(
        {message.group, message.bytes, release_at_[index], start - origin, end - origin});
    timeline_.communication_end = end;
    queue_.pop_front();
    done_->arrive();
    start_next();
  }

  void start_update() {
    simulator_.schedule_in(job_.optimizer, compute_phase, [this] {
      timeline_.end = simulator_.now();
      result_.record(std::move(timeline_));
      if (result_.count < job_.iterations) start_iteration();
    });
  }

  Simulator& simulator_;
  FlowNetwork* network_;  // null: every message takes its time alone
  const FabricJob& job_;
  std::vector<Time> alone_;
  SimulationResult& result_;
  std::deque<std::size_t> queue_;
  bool busy_ = false;
  // Backward under way: the stream's spans from its start (compute slowed inside them), each
  // message's release, the releases made, whether it ended, and the milestone scheduled.
  SlowedCompute compute_;
  std::vector<Time> release_at_;  // each message's release, from backward's start
  std::size_t released_ = 0;
  bool backward_ended_ = true;
  std::optional<EventId> milestone_;
  IterationTimeline timeline_;
  std::unique_ptr<CompletionCounter> done_;
};

}  // namespace

std::vector<Time> alone_message_times(const Topology& fabric, const FabricJob& job) {
  FlowNetwork network(fabric);
  std::vector<Time> times;
  times.reserve(job.messages.size());
  for (const FabricMessage& message : job.messages) {
    Time time = message.local;
    for (const TransferProgram& program : message.programs) time += network.time_alone(program);
    times.push_back(time);
  }
  return times;
}

std::vector<SimulationResult> simulate_shared_fabric(const Topology& fabric,
                                                     const std::vector<const FabricJob*>& jobs,
                                                     const std::vector<bool>& shared) {
  SGDSIM_ASSERT(shared.size() == jobs.size(), "say of every job whether it shares links");
  Simulator simulator;
  FlowNetwork network(fabric);
  simulator.attach(network);
  std::vector<SimulationResult> results(jobs.size());
  std::vector<std::unique_ptr<FabricWorker>> workers;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    SGDSIM_ASSERT(jobs[j]->iterations >= 1, "a job runs at least one iteration");
    std::vector<Time> alone;
    if (!shared[j]) alone = alone_message_times(fabric, *jobs[j]);
    workers.push_back(std::make_unique<FabricWorker>(simulator, shared[j] ? &network : nullptr,
                                                     *jobs[j], std::move(alone), results[j]));
  }
  simulator.run();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    SGDSIM_ASSERT(results[j].count == jobs[j]->iterations,
                  "the shared simulation stopped before a job's iterations ended");
    results[j].events = simulator.executed();
  }
  return results;
}

std::vector<int> links_crossed(const Topology& fabric, const FabricJob& job) {
  FlowNetwork network(fabric);
  std::set<std::pair<Topology::Vertex, Topology::Vertex>> endpoints;
  for (const FabricMessage& message : job.messages) {
    for (const TransferProgram& program : message.programs) {
      for (const TransferStep& step : program) {
        for (const Transfer& transfer : step.transfers) {
          endpoints.emplace(transfer.from, transfer.to);
        }
      }
    }
  }
  std::vector<int> links;
  for (const auto& [from, to] : endpoints) {
    const std::vector<int>& crossed = network.links(from, to);
    links.insert(links.end(), crossed.begin(), crossed.end());
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

}  // namespace sgdsim
