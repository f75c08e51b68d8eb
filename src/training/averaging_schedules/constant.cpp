// CPSGD (local SGD with a constant period): models averaged after every p-th iteration and after
// the last one.
#include <fmt/format.h>

#include "sgdsim/training/averaging_schedule.hpp"

namespace sgdsim {

AveragingEntry constant_schedule() {
  AveragingEntry entry;
  entry.name = "constant";
  entry.description = "CPSGD: models averaged every `period` iterations and after the last";
  entry.keys = {KeySpec::integer("period", "iterations between averaging rounds", 1, 10'000'000)};
  entry.check = [](const Settings& settings, int run) -> std::optional<KeyProblem> {
    if (settings.integer("period") <= run) return std::nullopt;
    return KeyProblem{"period", fmt::format("an integer from 1 to {}", run),
                      std::to_string(settings.integer("period"))};
  };
  entry.rounds = [](const Settings& settings, int run) {
    const auto period = static_cast<int>(settings.integer("period"));
    std::vector<int> rounds;
    for (int at = period; at <= run; at += period) rounds.push_back(at);
    if (rounds.empty() || rounds.back() != run) rounds.push_back(run);
    return rounds;
  };
  entry.label = [](const Settings& settings) {
    return fmt::format("constant(period={})", settings.integer("period"));
  };
  return entry;
}

}  // namespace sgdsim
