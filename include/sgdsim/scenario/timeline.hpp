// Chrome-trace / Perfetto timelines of a scenario's simulated iterations: one process per merge
// policy, and per shown GPU a compute track (forward and backward per layer, optimizer) and a
// communication track (each message named by its merged layers and size). In analytic fidelity
// every GPU is identical, so tracks are capped and the rest summarised on one track. Each sharded
// strategy (communication.sharding) is one more process: its last iteration, GPU 0's compute
// per unit and one track per phase of collectives. So is each job of a `jobs` section: its
// representative GPU's forward, backward and update, its messages on the shared fabric, and
// each iteration with its time alone on the same nodes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>

#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

struct TimelineOptions {
  int max_gpus = 4;        // GPUs with their own tracks
  int max_iterations = 3;  // iterations drawn, from the first
};

// 2^21 events: each takes about 500 bytes as JSON in memory, so a timeline stays near 1 GB
// while it is built, and Perfetto's UI still opens the file.
inline constexpr std::uint64_t max_timeline_events = std::uint64_t{1} << 21;

// How many events timeline_json would write (a bound: name events counted for every policy).
std::uint64_t timeline_events(const ScenarioResult& result, const TimelineOptions& options);

// Throws SimulationError (cannot finish) past max_timeline_events.
nlohmann::ordered_json timeline_json(const ScenarioResult& result, const TimelineOptions& options);

}  // namespace sgdsim
