// Items through stages on serial resources, on the flow network's engine.
#include "sgdsim/network/flow_pipeline.hpp"

#include <set>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// Dispatching runs after the network's arrivals and the step ends due at the same time (phase
// 0), so every stage ready at that time is waiting when a resource chooses.
constexpr int dispatch_phase = 1;

class PipelineRun {
 public:
  PipelineRun(FlowNetwork& network, const Pipeline& pipeline)
      : network_(network),
        pipeline_(pipeline),
        next_(static_cast<std::size_t>(pipeline.items), 0),
        ready_at_(static_cast<std::size_t>(pipeline.items)),
        busy_(static_cast<std::size_t>(pipeline.resources), 0),
        waiting_(static_cast<std::size_t>(pipeline.resources)),
        dispatch_queued_(static_cast<std::size_t>(pipeline.resources), 0),
        left_at_(static_cast<std::size_t>(pipeline.resources), Time::max()) {}

  void begin(Simulator& simulator) {
    simulator_ = &simulator;
    for (int item = 0; item < pipeline_.items; ++item) reach(item);
  }

  int unfinished() const { return unfinished_; }

 private:
  const std::vector<PipelineStage>& route(int item) const {
    return pipeline_.routes[static_cast<std::size_t>(item) % pipeline_.routes.size()];
  }

  // `item` is ready for its next stage (or done).
  void reach(int item) {
    const std::size_t stage = next_[static_cast<std::size_t>(item)];
    if (stage == route(item).size()) {
      --unfinished_;
      return;
    }
    const int resource = route(item)[stage].resource;
    if (resource < 0) {
      launch(item);
      return;
    }
    const auto r = static_cast<std::size_t>(resource);
    waiting_[r].insert(item);
    ready_at_[static_cast<std::size_t>(item)] = simulator_->now();
    if (busy_[r] == 0 && dispatch_queued_[r] == 0) {
      dispatch_queued_[r] = 1;
      simulator_->schedule_in(Time::zero(), dispatch_phase, [this, r] { dispatch(r); });
    }
  }

  void dispatch(std::size_t r) {
    dispatch_queued_[r] = 0;
    if (busy_[r] != 0 || waiting_[r].empty()) return;
    const int item = *waiting_[r].begin();
    waiting_[r].erase(waiting_[r].begin());
    busy_[r] = 1;
    // Streamed: the previous stage left the resource just now and this one was waiting before
    // (its bytes would have followed the last ones at once; one ready only now pays latency).
    const Time now = simulator_->now();
    launch(item, left_at_[r] == now && ready_at_[static_cast<std::size_t>(item)] < now);
  }

  void launch(int item, bool streamed = false) {
    const PipelineStage& stage = route(item)[next_[static_cast<std::size_t>(item)]];
    if (stage.program != nullptr) {
      const TransferProgram& program =
          streamed && stage.streamed != nullptr ? *stage.streamed : *stage.program;
      network_.start(*simulator_, program, [this, item](Time) { leave(item); });
    } else {
      simulator_->schedule_in(stage.work, 0, [this, item] { leave(item); });
    }
  }

  // `item` leaves its current stage: its resource serves the next waiting stage.
  void leave(int item) {
    std::size_t& stage = next_[static_cast<std::size_t>(item)];
    const int resource = route(item)[stage].resource;
    ++stage;
    if (resource >= 0) {
      const auto r = static_cast<std::size_t>(resource);
      busy_[r] = 0;
      left_at_[r] = simulator_->now();
      if (!waiting_[r].empty() && dispatch_queued_[r] == 0) {
        dispatch_queued_[r] = 1;
        simulator_->schedule_in(Time::zero(), dispatch_phase, [this, r] { dispatch(r); });
      }
    }
    reach(item);
  }

  FlowNetwork& network_;
  const Pipeline& pipeline_;
  Simulator* simulator_ = nullptr;
  std::vector<std::size_t> next_;  // per item: its next stage
  std::vector<Time> ready_at_;     // per item: when it began waiting for its resource
  std::vector<char> busy_;         // per resource
  std::vector<std::set<int>> waiting_;
  std::vector<char> dispatch_queued_;
  std::vector<Time> left_at_;  // per resource: when its last stage left (never: Time::max())
  int unfinished_ = pipeline_.items;
};

}  // namespace

Time run_pipeline(FlowNetwork& network, const Pipeline& pipeline) {
  SGDSIM_ASSERT(pipeline.items >= 0 && !pipeline.routes.empty(), "a pipeline has routes");
  for (const std::vector<PipelineStage>& route : pipeline.routes) {
    for (const PipelineStage& stage : route) {
      SGDSIM_ASSERT(stage.resource < pipeline.resources, "a pipeline stage on a known resource");
    }
  }
  PipelineRun run(network, pipeline);
  const Time end = network.run_with([&run](Simulator& simulator) { run.begin(simulator); });
  // A stage left unfinished is one whose end lies past the time range (see FlowNetwork::run).
  if (run.unfinished() > 0) detail::time_out_of_range();
  return end;
}

}  // namespace sgdsim
