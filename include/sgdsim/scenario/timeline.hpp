// Chrome-trace / Perfetto timelines of a scenario's simulated iterations: one process per merge
// policy, and per shown GPU a compute track (forward and backward per layer, optimizer) and a
// communication track (each message named by its merged layers and size). In analytic fidelity
// every GPU is identical, so tracks are capped and the rest summarised on one track.
#pragma once

#include <nlohmann/json.hpp>

#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

struct TimelineOptions {
  int max_gpus = 4;        // GPUs with their own tracks
  int max_iterations = 3;  // iterations drawn, from the first
};

nlohmann::ordered_json timeline_json(const ScenarioResult& result, const TimelineOptions& options);

}  // namespace sgdsim
