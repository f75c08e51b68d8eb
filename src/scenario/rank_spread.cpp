// Percentiles of per_rank iterations and the slowest rank: see rank_spread.hpp.
#include "sgdsim/scenario/rank_spread.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sgdsim/scenario/report.hpp"

namespace sgdsim {

namespace {

// Nearest rank: the ceil(q n)-th smallest of n sorted durations (q = 0.5: the lower of the two
// middle values for even n; q = 0.99 of 10 iterations: the 10th, the slowest).
Time nearest_rank(const std::vector<Time>& sorted, double q) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n - 1e-9)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace

std::optional<RankSpread> rank_spread(const SimulationResult& simulation) {
  if (simulation.durations.empty() || simulation.slowest_rank < 0) return std::nullopt;
  std::vector<Time> sorted = simulation.durations;
  std::sort(sorted.begin(), sorted.end());
  return RankSpread{nearest_rank(sorted, 0.5), nearest_rank(sorted, 0.99), sorted.back(),
                    simulation.slowest_rank,
                    static_cast<double>(simulation.slowest_rank_iterations) /
                        static_cast<double>(simulation.durations.size())};
}

nlohmann::ordered_json rank_spread_json(const SimulationResult& simulation) {
  const std::optional<RankSpread> spread = rank_spread(simulation);
  if (!spread) return nlohmann::ordered_json();
  return {{"iteration_p50_us", spread->p50.us()},
          {"iteration_p99_us", spread->p99.us()},
          {"iteration_max_us", spread->slowest_iteration.us()},
          {"slowest_rank", spread->slowest_rank},
          {"slowest_rank_share", spread->slowest_rank_share}};
}

std::string rank_spread_table(const ScenarioResult& result, std::size_t width) {
  std::string out;
  for (const PolicyOutcome& outcome : result.outcomes) {
    const std::optional<RankSpread> spread = rank_spread(outcome.simulation);
    if (!spread) continue;
    if (out.empty()) {
      out = fmt::format("\nper rank over {} iterations\n{:<{}} {:>10} {:>10} {:>10}  {}\n",
                        outcome.simulation.durations.size(), "policy", width, "p50 ms", "p99 ms",
                        "max ms", "slowest rank (last to end backward)");
    }
    out += fmt::format("{:<{}} {:>10.3f} {:>10.3f} {:>10.3f}  {} ({:.0f}% of iterations)\n",
                       outcome_label(outcome), width, spread->p50.ms(), spread->p99.ms(),
                       spread->slowest_iteration.ms(), spread->slowest_rank,
                       100.0 * spread->slowest_rank_share);
  }
  return out;
}

}  // namespace sgdsim
