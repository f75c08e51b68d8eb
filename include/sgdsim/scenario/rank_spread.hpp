// How per_rank iterations spread: the median and 99th-percentile iteration (nearest rank: the
// smallest duration at or above that share of the iterations) and the slowest iteration, and
// the rank that ended backward last most often (the straggler a user would look for first).
// Only per_rank fidelity has ranks that differ; other levels report none.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

struct RankSpread {
  Time p50;
  Time p99;
  Time slowest_iteration;
  int slowest_rank = 0;
  double slowest_rank_share = 0.0;  // of the iterations in which it ended backward last
};

std::optional<RankSpread> rank_spread(const SimulationResult& simulation);
// {"iteration_p50_us", ...}, or null without per-rank timelines.
nlohmann::ordered_json rank_spread_json(const SimulationResult& simulation);
// The per_rank table under the policy table ("" at other fidelities), its policy column as wide
// as that table's.
std::string rank_spread_table(const ScenarioResult& result, std::size_t width);

}  // namespace sgdsim
