// Timeline events ("X" complete events in microseconds, "M" metadata for names).
#include "sgdsim/scenario/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

namespace {

using Json = nlohmann::ordered_json;

Json span(const std::string& name, const char* category, Time start, Time duration, int pid,
          int tid, Json args = Json::object()) {
  return Json{{"name", name},         {"cat", category}, {"ph", "X"},  {"ts", start.us()},
              {"dur", duration.us()}, {"pid", pid},      {"tid", tid}, {"args", std::move(args)}};
}

Json name_event(const char* kind, const std::string& name, int pid, int tid) {
  return Json{{"name", kind}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

std::string message_name(const ScenarioResult& result, const PolicyOutcome& outcome,
                         const ScheduledMessage& message) {
  const auto& layers = profile_of(result, outcome).layers;
  const std::string& first = layers[static_cast<std::size_t>(message.group.first)].name;
  const std::string& last = layers[static_cast<std::size_t>(message.group.last)].name;
  const std::string span_name = message.group.first == message.group.last
                                    ? first
                                    : fmt::format("{}..{} ({} layers)", first, last,
                                                  message.group.last - message.group.first + 1);
  return fmt::format("{} {:.2f} MB", span_name, message.bytes.megabytes());
}

// One GPU's compute and communication spans for one iteration.
void add_iteration(Json& events, const ScenarioResult& result, const PolicyOutcome& outcome,
                   const IterationTimeline& iteration, int pid, int compute_tid, int comm_tid) {
  Time at = iteration.start;
  for (const Layer& layer : result.workload.layers) {
    if (layer.forward > Time::zero()) {
      events.push_back(span(layer.name, "forward", at, layer.forward, pid, compute_tid));
    }
    at += layer.forward;
  }
  // Backward's layers, each at its wall-clock place: compute ran slower while the iteration's
  // messages were in flight (compute.overlap_slowdown, as the policy ran), so their spans
  // stretch the work.
  SlowedCompute slowed(outcome.overlap_slowdown);
  for (const ScheduledMessage& message : iteration.messages)
    slowed.busy(message.start, message.end);
  const Time backward_start = iteration.backward_start;
  Time work;  // backward's work done, from its start
  for (auto layer = result.workload.layers.rbegin(); layer != result.workload.layers.rend();
       ++layer) {
    if (layer->backward > Time::zero()) {
      const Time begin = slowed.wall_at(work);
      events.push_back(span(layer->name, "backward", backward_start + begin,
                            slowed.wall_at(work + layer->backward) - begin, pid, compute_tid));
    }
    work += layer->backward;
  }
  const Time update_start = iteration.end - result.profile.optimizer;
  if (result.profile.optimizer > Time::zero()) {
    events.push_back(
        span("optimizer", "optimizer", update_start, result.profile.optimizer, pid, compute_tid));
  }
  for (const ScheduledMessage& message : iteration.messages) {
    events.push_back(span(message_name(result, outcome, message), "communication",
                          iteration.backward_start + message.start, message.end - message.start,
                          pid, comm_tid,
                          {{"bytes", message.bytes.count()},
                           {"layers", message.group.last - message.group.first + 1},
                           {"ready_us", message.ready.us()}}));
  }
}

std::string unit_name(const ScenarioResult& result, int unit) {
  return unit < 0 ? std::string("root")
                  : result.sharded_model.units[static_cast<std::size_t>(unit)].name;
}

// A sharded strategy's last iteration, from 0: rank 0's compute, and one track per phase.
void add_sharding(Json& events, const ScenarioResult& result, const ShardingOutcome& outcome,
                  int pid) {
  const ShardedIteration& last = outcome.simulation.last;
  events.push_back(
      name_event("process_name",
                 fmt::format("{} (group of {}), its last iteration",
                             strategy_info(outcome.strategy).display(), outcome.group_gpus),
                 pid, 0));
  events.push_back(name_event("thread_name", "GPU 0 compute", pid, 0));
  for (int phase = 0; phase < shard_phases; ++phase) {
    events.push_back(name_event(
        "thread_name", std::string(phase_name(static_cast<ShardPhase>(phase))), pid, phase + 1));
  }
  for (const ShardComputeSpan& c : last.compute) {
    if (c.end <= c.start) continue;
    const std::string name = c.step ? std::string("optimizer step")
                                    : fmt::format("{} {}", unit_name(result, c.unit),
                                                  c.backward ? "backward" : "forward");
    events.push_back(span(name, c.step ? "optimizer" : (c.backward ? "backward" : "forward"),
                          c.start - last.start, c.end - c.start, pid, 0));
  }
  const bool buckets = moves_buckets(outcome.strategy);  // else a unit (or the root) at a time
  for (const ShardOperation& op : last.operations) {
    const int phase = static_cast<int>(op.phase);
    const std::string name =
        buckets ? fmt::format("bucket {} {:.2f} MB", op.unit, op.bytes.megabytes())
                : fmt::format("{} {:.2f} MB", unit_name(result, op.unit), op.bytes.megabytes());
    events.push_back(span(name, "communication", op.start - last.start, op.end - op.start, pid,
                          phase + 1, {{"bytes", op.bytes.count()}}));
  }
}

// Events add_job draws: three names, then per iteration drawn its spans and its messages.
std::uint64_t job_events(const JobOutcome& job, std::size_t drawn) {
  std::uint64_t events = 4;
  const auto& iterations = job.shared.iterations;
  for (std::size_t i = 0; i < std::min(drawn, iterations.size()); ++i) {
    events += 4 + iterations[i].messages.size();
  }
  return events;
}

// One job of the scenario's `jobs` section on the shared fabric: its representative GPU's
// forward, backward and update, its messages as they ran among the other jobs' flows, and each
// iteration against the same iteration alone on its nodes.
void add_job(Json& events, const JobOutcome& job, std::size_t drawn, int pid) {
  events.push_back(
      name_event("process_name",
                 fmt::format("{}: {} GPUs, {}, {} (a job sharing the fabric)", job.name, job.gpus,
                             job.collective, policy_label(job.policy)),
                 pid, 0));
  events.push_back(name_event("thread_name", "compute", pid, 0));
  events.push_back(name_event("thread_name", "communication", pid, 1));
  events.push_back(name_event("thread_name", "iterations (alone on its nodes in args)", pid, 2));
  const auto& iterations = job.shared.iterations;
  for (std::size_t i = 0; i < std::min(drawn, iterations.size()); ++i) {
    const IterationTimeline& it = iterations[i];
    events.push_back(span("forward", "forward", it.start, it.backward_start - it.start, pid, 0));
    events.push_back(span("backward", "backward", it.backward_start,
                          it.backward_end - it.backward_start, pid, 0));
    const Time update = std::max(it.backward_end, it.communication_end);
    events.push_back(span("update", "optimizer", update, it.end - update, pid, 0));
    for (const ScheduledMessage& message : it.messages) {
      events.push_back(span(
          message.group.first == message.group.last
              ? fmt::format("layer {} {:.2f} MB", message.group.first, message.bytes.megabytes())
              : fmt::format("layers {}..{} {:.2f} MB", message.group.first, message.group.last,
                            message.bytes.megabytes()),
          "communication", it.backward_start + message.start, message.end - message.start, pid, 1,
          {{"bytes", message.bytes.count()}, {"ready_us", message.ready.us()}}));
    }
    Json args{{"shared_us", it.duration().us()}};
    if (i < job.alone.iterations.size()) args["alone_us"] = job.alone.iterations[i].duration().us();
    events.push_back(span(fmt::format("iteration {}", i + 1), "summary", it.start, it.duration(),
                          pid, 2, std::move(args)));
  }
}

}  // namespace

std::uint64_t timeline_events(const ScenarioResult& result, const TimelineOptions& options) {
  const auto shown =
      static_cast<std::uint64_t>(std::min(result.config.gpus, std::max(1, options.max_gpus)));
  std::uint64_t spans_per_iteration = result.profile.optimizer > Time::zero() ? 1 : 0;
  for (const Layer& layer : result.workload.layers) {
    spans_per_iteration +=
        (layer.forward > Time::zero() ? 1 : 0) + (layer.backward > Time::zero() ? 1 : 0);
  }
  std::uint64_t events = 0;
  for (const PolicyOutcome& outcome : result.outcomes) {
    const auto& iterations = outcome.simulation.iterations;
    const std::size_t drawn =
        std::min(iterations.size(), static_cast<std::size_t>(std::max(1, options.max_iterations)));
    events += 2 + 2 * shown;
    for (std::size_t i = 0; i < drawn; ++i) {
      events += shown * (spans_per_iteration + iterations[i].messages.size()) + 1;
    }
  }
  for (const ShardingOutcome& outcome : result.sharding) {
    events += 2 + shard_phases + outcome.simulation.last.compute.size() +
              outcome.simulation.last.operations.size();
  }
  const auto drawn = static_cast<std::size_t>(std::max(1, options.max_iterations));
  for (const JobOutcome& job : result.jobs) events += job_events(job, drawn);
  return events;
}

Json timeline_json(const ScenarioResult& result, const TimelineOptions& options) {
  if (const std::uint64_t events = timeline_events(result, options); events > max_timeline_events) {
    throw SimulationError(fmt::format(
        "the timeline would hold {} events, more than the {} (about 1 GB of memory) a timeline "
        "may; draw fewer GPUs or iterations (--timeline-gpus, --timeline-iterations)",
        events, max_timeline_events));
  }
  Json events = Json::array();
  const int shown = std::min(result.config.gpus, std::max(1, options.max_gpus));
  for (std::size_t p = 0; p < result.outcomes.size(); ++p) {
    const PolicyOutcome& outcome = result.outcomes[p];
    const int pid = static_cast<int>(p) + 1;
    events.push_back(name_event("process_name", outcome_label(outcome), pid, 0));
    for (int gpu = 0; gpu < shown; ++gpu) {
      events.push_back(name_event("thread_name", fmt::format("GPU {} compute", gpu), pid, 2 * gpu));
      events.push_back(
          name_event("thread_name", fmt::format("GPU {} communication", gpu), pid, 2 * gpu + 1));
    }
    const int summary_tid = 2 * shown;
    if (shown < result.config.gpus) {
      events.push_back(
          name_event("thread_name",
                     fmt::format("GPUs {}..{} (identical to GPU 0 in {} fidelity)", shown,
                                 result.config.gpus - 1, result.config.fidelity),
                     pid, summary_tid));
    }
    const auto& iterations = outcome.simulation.iterations;
    const std::size_t drawn =
        std::min(iterations.size(), static_cast<std::size_t>(std::max(1, options.max_iterations)));
    for (std::size_t i = 0; i < drawn; ++i) {
      for (int gpu = 0; gpu < shown; ++gpu) {
        add_iteration(events, result, outcome, iterations[i], pid, 2 * gpu, 2 * gpu + 1);
      }
      if (shown < result.config.gpus) {
        events.push_back(span(fmt::format("iteration {}", i + 1), "summary", iterations[i].start,
                              iterations[i].duration(), pid, summary_tid));
      }
    }
  }
  for (std::size_t k = 0; k < result.sharding.size(); ++k) {
    add_sharding(events, result, result.sharding[k],
                 static_cast<int>(result.outcomes.size() + k) + 1);
  }
  const auto drawn = static_cast<std::size_t>(std::max(1, options.max_iterations));
  for (std::size_t j = 0; j < result.jobs.size(); ++j) {
    add_job(events, result.jobs[j], drawn,
            static_cast<int>(result.outcomes.size() + result.sharding.size() + j) + 1);
  }
  return Json{{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData",
               {{"format", "sgdsim-timeline"},
                {"schema_version", 1},
                {"scenario", result.config.name},
                {"gpus", result.config.gpus},
                {"fidelity", result.config.fidelity}}}};
}

}  // namespace sgdsim
